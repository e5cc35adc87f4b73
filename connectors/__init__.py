"""Adapters between wire or log formats and the tracker's typed events (no poker logic)."""
import agent  # noqa: F401  (first: agent.native's guard covers this package's compiled modules)
