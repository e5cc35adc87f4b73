"""Poki, by layer (each imports only the layers below it; pyproject.toml's import contracts):

* agent.cli, agent.bench: the ``poki`` command, one module per sub-command; the benchmarks.
* agent.play, agent.report: what runs games (seat runtime, the IRC and ACPC dealers'
  table logic, in-process dealer, duplicate tournaments, replay runner, shadow scoring);
  the opponent report.
* agent.engine: the Poki decision engine (pre-flop, triples, weight tables, simulator).
* agent.players, agent.models: the Player interface, its registry and the house bots;
  opponent modelling (frequencies, predictors, the model store).
* agent.game: the rules, events, hand records, the tracker and its GameContext.
* agent.config and agent.native: settings and the compiled-module guard, imported by all.
"""
from agent import native as _native

# Before any module of agent, connectors or db is imported: a compiled copy older than its
# source must not shadow it (agent/native.py).
_native.guard()
