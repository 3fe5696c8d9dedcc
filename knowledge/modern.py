"""The 2026 modern-landscape routing table."""

ROWS = ()
