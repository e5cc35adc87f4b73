"""Helpers the tests share: import them as `from helpers.<module> import name`."""
