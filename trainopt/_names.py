"""The names ``trainopt._boot`` and its private-copy loader (``trainopt._private``) share."""

from __future__ import annotations

from pathlib import Path

INTERNAL = ("expert", "knowledge", "probes")
"""trainopt's internal top-level packages."""
PREFIX = "trainopt._isolated."
"""Where the private copy of the internals lives."""
ROOT = Path(__file__).resolve().parent.parent
"""The folder that holds ``trainopt/`` and its internal packages (site-packages, or the source checkout)."""
