"""Opponent histories in SQLite; the only package that imports sqlite-utils."""
