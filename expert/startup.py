"""The command line's start-up pause of the cyclic garbage collector.

A command's start-up (the imports, the knowledge, the engine) makes ~10^5 long-lived objects and no cyclic
garbage; every collection during it would only walk them again (about a tenth of a pipeline call's CPU). The
command line pauses the collector as it starts (``hold``); anything long or open-ended (waiting on a person,
training a model) calls ``settle`` first, which freezes what start-up built out of the collector's walks and
collects as usual from there. A one-shot command (diagnose, logs, explain...) ends with it paused.

At the end (``finish``) whatever is left is frozen too: the interpreter's shutdown runs one last full collection
whether the collector is paused or not, and it would walk every object start-up made once more (a sixth of a
``trainopt diagnose`` process) only to find no garbage. Frozen objects are still freed as the interpreter exits;
the exit itself (``atexit`` handlers, flushed streams) is unchanged.
"""

from __future__ import annotations

import gc

_held = False
"""The collector is paused by ``hold`` (until ``settle``)."""
_began = False
"""``hold`` paused the collector for this command (until ``finish``)."""


def hold() -> None:
    """Pause the collector for the start-up (only when it runs: a caller's own setting is left alone)."""
    global _held, _began
    if gc.isenabled():
        gc.disable()
        _held = _began = True


def settle() -> None:
    """End the pause ``hold`` began: freeze what start-up built, collect as usual again. No-op otherwise."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()


def finish() -> None:
    """At a command's end, just before the process exits: freeze what is left out of the final collection.

    Only when ``hold`` paused the collector for this command (a caller's own setting is left alone).
    """
    global _held, _began
    if _began:
        _held = _began = False
        gc.freeze()
