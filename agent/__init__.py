"""Poki, by layer (each imports only the layers below it; pyproject.toml's import contracts):

* agent.cli, agent.bench: the ``poki`` command, one module per sub-command; the benchmarks.
* agent.play, agent.report: what runs games (in-process dealer, duplicate tournaments,
  replay runner, shadow scoring); the opponent report.
* agent.engine: the Poki decision engine and its opponent model.
* agent.players: the Player interface, its registry and the house bots.
* agent.game: the rules, events, hand records, the tracker and its GameContext.
* agent.config and agent.native: settings and the compiled-module guard, imported by all.
"""
from agent import native as _native

# Before any module of agent, connectors or db is imported: a compiled copy older than its
# source must not shadow it (agent/native.py).
_native.guard()
