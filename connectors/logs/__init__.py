"""Readers and writers of hand logs: the 1995 IRC Poker Database, ACPC dealer logs, PHH."""
