"""The compiled ``__init__`` of trainopt's data classes, kept in the user's cache (entry ``classcode``).

Why: ``dataclasses`` writes each class's ``__init__`` as source text and compiles it (``exec`` of the text), about
0.2 ms a class; a command's start-up defines some sixty data classes (the knowledge's rows and conditions, the
talk reader's tables, the engine's and the diagnosis's records), and compiling them cost about a twelfth of a
``trainopt consult`` or ``diagnose`` process (``knowledge.record`` already spares the other methods). The text
follows from the class's fields alone, and the code compiled from a text is always the same, so the first process
stores it and the next ones run the stored code.

Design:

* ``install`` (the command line, as it starts: ``trainopt.__main__``) gives the ``dataclasses`` module an ``exec``
  of its own: a text it compiles for a class of trainopt's packages is looked up in the stored table and compiled
  only when absent (as ``exec`` compiles it: same file name, no inherited ``__future__`` flag, hence an equal code
  object); anything else (a user's class, code that is not text) goes to the builtin ``exec`` unchanged. A
  library caller's process is never touched: only the command line installs it.
* The table maps each text to its code, ``marshal``-ed (Python's own bytecode format; the cache key holds the
  Python version). It is plain data (``expert.cache.load_plain`` refuses every class); an entry that does not
  load, or a code that does not unmarshal, means compiling as ``dataclasses`` does. At exit, a process that
  compiled texts the table lacked adds them (``expert.cache``: atomic, digest-checked, keyed by the sources).
* Trust: the entry is read under ``expert.cache``'s rules (a regular file of this user's, not writable by others,
  its digest intact): the same trust Python gives the ``__pycache__`` files next to the sources.
"""

from __future__ import annotations

import builtins
import threading
from typing import Any

CACHE_NAME = "classcode"
"""The cache entry of the compiled texts."""

OURS = ("knowledge.", "expert.", "probes.", "trainopt.")
"""The modules whose classes' texts are kept (``trainopt._isolated.*`` included); a user's classes are not."""

_lock = threading.Lock()
_table: dict[str, bytes] | None = None
"""``text -> marshal.dumps(code)``, as stored."""
_new: dict[str, bytes] = {}
"""What this process compiled that the stored table lacked (stored at exit)."""
_registered = False


def _load() -> dict[str, bytes]:
    """The stored table (empty when absent, unreadable or not a table)."""
    from expert import cache

    table = cache.load_plain(CACHE_NAME)
    if type(table) is not dict or not all(type(k) is str and type(v) is bytes for k, v in table.items()):
        return {}
    return table


def _store() -> None:
    """At exit: add what this process compiled to the stored table (another process's additions kept)."""
    with _lock:
        if not _new:
            return
        from expert import cache

        table = {**_load(), **_new}
        _new.clear()
        cache.store_plain(CACHE_NAME, table)


def code_for(text: str) -> Any:
    """The code ``exec(text)`` runs: from the stored table, else compiled here (and noted for the table).

    Args:
        text: Python source text, as ``dataclasses`` writes it.

    Returns:
        A code object equal to the one ``exec`` would compile from ``text`` in ``dataclasses``.
    """
    import marshal

    global _table, _registered
    with _lock:
        if _table is None:
            _table = _load()
        packed = _table.get(text)
    if packed is not None:
        try:
            code = marshal.loads(packed)
            if type(code).__name__ == "code":
                return code
        except (ValueError, EOFError, TypeError):
            pass  # not what we store: compiled below (and stored again)
    # as exec compiles a text: "<string>", and no __future__ flag of this module (dataclasses has none)
    code = builtins.compile(text, "<string>", "exec", dont_inherit=True)
    with _lock:
        if not _registered:
            import atexit

            atexit.register(_store)
            _registered = True
        _new[text] = marshal.dumps(code)
    return code


def _exec(source: Any, globals: dict[str, Any] | None = None, locals: Any = None, /) -> None:  # noqa: A002
    """``exec`` for the ``dataclasses`` module: a text for one of trainopt's classes runs from ``code_for``."""
    if type(source) is str and type(globals) is dict and str(globals.get("__name__", "")).startswith(OURS):
        source = code_for(source)
    elif type(source) is str:
        # exec of a text inherits the caller's __future__ flags, and this module has "annotations": compiled
        # without them, a user's class gets the __init__ annotations the builtin exec in dataclasses gives it
        source = builtins.compile(source, "<string>", "exec", dont_inherit=True)
    builtins.exec(source, globals, locals)


def install() -> bool:
    """Give ``dataclasses`` the caching ``exec`` (the command line's process only); False when left as it was.

    Left alone where the module already has an ``exec`` of its own (someone else's), or where it makes no class
    by ``exec`` of a text (another interpreter's).
    """
    from expert import cache

    if not cache.enabled():
        return False
    import dataclasses

    if "exec" in vars(dataclasses) or not hasattr(dataclasses, "_create_fn"):
        return vars(dataclasses).get("exec") is _exec
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    return True


def uninstall() -> None:
    """Give ``dataclasses`` back the builtin ``exec`` (tests)."""
    import dataclasses

    if vars(dataclasses).get("exec") is _exec:
        del dataclasses.exec  # type: ignore[attr-defined]


__all__ = ["CACHE_NAME", "code_for", "install", "uninstall"]
