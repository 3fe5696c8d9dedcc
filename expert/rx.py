"""Regular expressions compiled once per source and interpreter, kept in the user's cache (entry ``regex``).

Why: the text readers (``expert.talk``, ``expert.text``, ``expert.nlp``) and the log readers compile some hundred
patterns, and ``re`` parses and compiles each from its text in every process, in Python: about a tenth of a
``trainopt consult`` start-up. What a compilation yields (the pattern's final flags, its matcher code, its group
names) follows from the pattern's text and the interpreter alone, so the first process stores it and the next ones
hand it straight to the regex engine (``_sre.compile``, the last step of ``re.compile``), parsing nothing.

Design:

* ``compile(pattern, flags)`` stands for ``re.compile``: same arguments, an equal ``re.Pattern`` (equal patterns
  have the same text, flags and code). A pattern not in the stored table is compiled as ``re`` compiles it (its
  parser and code generator, then ``_sre.compile``) and noted; at exit, a process that noted any adds them to the
  stored table (``expert.cache``: atomic, keyed by the sources and the Python version, digest-checked).
* The stored table maps ``(pattern, flags)`` to the arguments ``_sre.compile`` takes after the pattern, the code
  packed as bytes (unpacked only for the patterns a process uses). It is plain data (``expert.cache.load_plain``
  refuses every class); ``_sre.compile`` validates the code it is given.
* Anything unexpected (another interpreter's ``re`` internals, an entry that does not load, code the engine
  refuses) means plain ``re.compile``: the cache is an optimisation, never a different pattern. The first pattern
  a process compiles itself is checked against ``re.compile``'s; a mismatch turns the table off for the process.
* Patterns made per input (from a text's own characters) go to ``re`` directly: the table holds the program's own.
"""

from __future__ import annotations

import re
import threading
from typing import Any

try:  # the stages ``re.compile`` runs (CPython 3.11+); without them every pattern goes through ``re.compile``
    import _sre
    from re import _compiler, _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another interpreter
    _sre = _compiler = _parser = None

CACHE_NAME = "regex"
"""The cache entry of the compiled patterns."""

_CODE = "I" if memoryview(bytes(8)).cast("I").itemsize == 4 else "L"
"""The type code of the engine's code units (32-bit). The stored code is read back through a ``memoryview`` cast
(a builtin: importing ``array`` cost about half a millisecond of every start-up)."""

_lock = threading.Lock()
_table: dict[tuple[str, int], tuple[Any, ...]] | None = None
"""``(pattern, flags) -> (final flags, packed code, groups, group index, index group)``, as stored."""
_new: dict[tuple[str, int], tuple[Any, ...]] = {}
"""What this process compiled that the stored table lacked (stored at exit)."""
_checked = False
"""Whether this process's own compilation was found to match ``re.compile``'s."""
_registered = False
"""Whether ``_store`` is registered to run at exit."""
_off = _sre is None or memoryview(bytes(8)).cast(_CODE).itemsize != 4


def _valid(table: Any) -> bool:
    if type(table) is not dict:
        return False
    for key, value in table.items():
        if not (type(key) is tuple and len(key) == 2 and type(key[0]) is str and type(key[1]) is int
                and type(value) is tuple and len(value) == 5 and type(value[0]) is int and type(value[1]) is bytes
                and type(value[2]) is int and type(value[3]) is dict and type(value[4]) is tuple):
            return False
    return True


def _load() -> dict[tuple[str, int], tuple[Any, ...]]:
    """The stored table (empty when absent, unreadable or not a table)."""
    from expert import cache

    table = cache.load_plain(CACHE_NAME)
    return table if _valid(table) else {}


def _store() -> None:
    """At exit: add what this process compiled to the stored table (another process's additions kept)."""
    with _lock:
        if not _new or _off:
            return
        from expert import cache

        table = {**_load(), **_new}
        _new.clear()
        cache.store_plain(CACHE_NAME, table)


def _build(pattern: str, flags: int) -> tuple[re.Pattern[str], tuple[Any, ...]]:
    """Compile as ``re.compile`` does (``re._compiler.compile``), keeping what ``_sre.compile`` is given."""
    p = _parser.parse(pattern, flags)
    code = _compiler._code(p, flags)
    groupindex = dict(p.state.groupdict)
    indexgroup: list[str | None] = [None] * p.state.groups
    for k, i in groupindex.items():
        indexgroup[i] = k
    args = (flags | p.state.flags, code, p.state.groups - 1, groupindex, tuple(indexgroup))
    return _sre.compile(pattern, *args), args


def compile(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:  # noqa: A001 - re.compile's name
    """``re.compile(pattern, flags)``, from the stored table when it holds the pattern.

    Args:
        pattern: The pattern's text (a ``str``).
        flags: ``re`` flags.

    Returns:
        The compiled pattern, equal to ``re.compile(pattern, flags)``.
    """
    global _table, _checked, _off, _registered
    flags = int(flags)
    if _off or type(pattern) is not str or flags & re.DEBUG:
        return re.compile(pattern, flags)
    key = (pattern, flags)
    with _lock:
        if _table is None:
            _table = _load()
        stored = _table.get(key)
    if stored is not None:
        final, packed, groups, groupindex, indexgroup = stored
        try:
            return _sre.compile(pattern, final, memoryview(packed).cast(_CODE).tolist(), groups, groupindex, indexgroup)
        except Exception:  # noqa: BLE001 - code the engine refuses: compile it here
            pass
    try:
        compiled, args = _build(pattern, flags)
        if not _checked:
            ref = re.compile(pattern, flags)
            # (Pattern equality compares the code, not the group names: checked apart)
            if compiled != ref or compiled.groupindex != ref.groupindex:  # this re works otherwise: do as it does
                _off = True
                return ref
            _checked = True
    except re.error:
        raise
    except (ValueError, TypeError, OverflowError):
        return re.compile(pattern, flags)  # the pattern's or the flags' own fault: re says so; the table stays on
    except Exception:  # noqa: BLE001 - re's internals are not what they were: plain re
        _off = True
        return re.compile(pattern, flags)
    with _lock:
        if not _registered:
            import atexit

            atexit.register(_store)
            _registered = True
        from array import array  # only to store what this process compiled

        _new[key] = (args[0], array(_CODE, args[1]).tobytes(), *args[2:])
    return compiled


def loaded() -> bool:
    """Whether this process has read the stored table already: then ``compile`` costs no read of the entry.

    For patterns a process may well not need the table for (a ``diagnose`` reads no text, hence no table):
    ``compile`` them here only when it is loaded anyway, else with ``re.compile`` (an equal pattern).
    """
    return _table is not None and not _off


__all__ = ["CACHE_NAME", "compile", "loaded"]
