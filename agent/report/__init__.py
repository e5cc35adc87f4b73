"""The opponent report: HUD statistics over the opponent database, its page and its schedule."""
