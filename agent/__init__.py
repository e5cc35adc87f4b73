"""Poki's game logic: rules, tracker, decision engine, house bots, tournaments."""
from agent import native as _native

# Before any module of agent, connectors or db is imported: a compiled copy older than its
# source must not shadow it (agent/native.py).
_native.guard()
