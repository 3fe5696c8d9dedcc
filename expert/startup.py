"""The command line's start-up pause of the cyclic garbage collector.

A command's start-up (the imports, the knowledge, the engine) makes ~10^5 long-lived objects and no cyclic
garbage; every collection during it would only walk them again (about a tenth of a pipeline call's CPU). The
command line pauses the collector as it starts (``hold``); anything long or open-ended (waiting on a person,
training a model) calls ``settle`` first, which freezes what start-up built out of the collector's walks and
collects as usual from there. A one-shot command (diagnose, logs, explain...) ends with it paused.
"""

from __future__ import annotations

import gc

_held = False


def hold() -> None:
    """Pause the collector for the start-up (only when it runs: a caller's own setting is left alone)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def settle() -> None:
    """End the pause ``hold`` began: freeze what start-up built, collect as usual again. No-op otherwise."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()
