"""The ACPC dealer's formats: game definitions."""
