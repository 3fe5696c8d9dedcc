"""The command line's start-up pause of the cyclic garbage collector.

A command's start-up (the imports, the knowledge, the engine) makes ~10^5 long-lived objects and no cyclic
garbage; every collection during it would only walk them again (about a tenth of a pipeline call's CPU). The
command line pauses the collector as it starts (``hold``); anything long or open-ended (waiting on a person,
training a model) calls ``settle`` first, which freezes what start-up built out of the collector's walks and
collects as usual from there. A one-shot command (diagnose, logs, explain...) ends with it paused.

At the end (``finish``) whatever is left is frozen too: the interpreter's shutdown runs one last full collection
whether the collector is paused or not, and it would walk every object start-up made once more (a sixth of a
``trainopt diagnose`` process) only to find no garbage. Frozen objects are still freed as the interpreter exits.

A process that ran the command line as its program (``leave``, from ``expert.cli.entry``) then exits at once: the
standard streams flushed, the ``atexit`` handlers run (``weakref.finalize`` and ``tempfile`` clean-ups among them),
the exit code kept, but the interpreter's teardown (unloading every module, freeing every object one by one: a
tenth of a ``trainopt diagnose`` process) skipped, as the operating system reclaims the memory whole. Only where
nothing else can still be running or writing: with another Python thread alive, torch loaded (its native teardown
is its own), or a stream that will not flush, the usual exit runs instead.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

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


@contextmanager
def loading() -> Iterator[None]:
    """Pause the collector while a bounded burst of loading runs, then freeze what it made; collect as usual after.

    For what a session loads once, after ``settle``: the first complaint imports the text reader and reads its
    tables (some 10^5 long-lived objects and no cyclic garbage to speak of), and collections while it loads would
    only walk them (a fifth of reading that first complaint). Frozen, they are left out of later collections as
    start-up's objects are. No-op where the collector is not running (paused already, or a caller's setting), and
    outside a command of the command line (``hold`` began it): a program that calls the session as a library keeps
    its collector as it set it, nothing of its heap frozen.
    """
    if not _began or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
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


def _flushed() -> bool:
    """Flush the standard streams; False when one will not (a closed pipe: the usual exit reports it)."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            return False
    return True


def is_program(namespace: dict[str, object]) -> bool:
    """Whether ``namespace`` (a ``__main__`` module's globals) is the process's own program.

    Not so when another program runs it in its process (``runpy``) and must go on after it: only the process's
    own program may ``leave``.
    """
    return getattr(sys.modules.get("__main__"), "__dict__", None) is namespace


def leave(code: object) -> NoReturn:
    """End the process with ``code`` as ``sys.exit`` would, without the interpreter's teardown when that is safe.

    For a program's entry point only (never a library call: the process ends here). Falls back to
    ``SystemExit(code)`` for a code that is no integer (a message to print), another live Python thread, torch
    loaded, or a stream that will not flush.

    Args:
        code: The exit code, as ``SystemExit.code`` holds it (None is 0).
    """
    import threading

    if code is None:
        code = 0
    if (isinstance(code, int) and not isinstance(code, bool) and 0 <= code <= 255
            and threading.active_count() == 1 and "torch" not in sys.modules and _flushed()):
        import atexit
        import os

        atexit._run_exitfuncs()  # what the usual exit runs first: registered handlers, finalizers, temp clean-up
        if _flushed():  # a handler may have written
            os._exit(code)
    raise SystemExit(code)
