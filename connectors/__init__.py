"""Adapters between wire or log formats and the tracker's typed events (no poker logic)."""
