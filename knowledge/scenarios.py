"""Multi-skill scenarios."""

ROWS = ()
