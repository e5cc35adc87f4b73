"""Poki's game logic: rules, tracker, decision engine, house bots, tournaments."""
