"""The assembled knowledge base: the engine class built once per process, one instance per thread.

The class is compiled from the knowledge's rows, joins and questions, or read from the user's cache
(``expert.cache``, entry ``kb``), where the first process stores what it compiled: the class's namespace (the
compiled rules, the pooled causes, the question rows, the yields-to relation). A process that reads it compiles
no rule, and takes the families themselves from their own entry (``expert.stored``), so it imports no family
module either; its Rete network then comes from the ``rete`` entry (``expert.rete``), resolved against these
rules.

The entry is keyed, like every entry, by a hash of the sources and versions it follows from, and is pickled
plain data: rules whose right-hand sides are objects of ``expert.engine`` (no code), the knowledge's rows,
questions and joins by id (resolved against the families), and only classes of our packages and experta's
load (``expert.stored.StoredUnpickler``). Anything that does not load is rebuilt and stored again.

A process that has not loaded the families yet (every command of the command line) reads both at once from a
third entry, ``engine`` (``BUNDLE_CACHE``): the families and the engine namespace pickled together, so what the
rules share with the families (their rows, conditions and citations) is stored and built once and no row is looked
up by id (about a sixth less to load than the two entries, some 4 ms of every pipeline call). Its rules hold the
families' own rows, as those resolved from ``kb`` do. Where the families are loaded already (a program that read
them first), ``kb`` is resolved against them as before; where ``engine`` is absent or does not load, the two
entries (or the compiler) serve and ``engine`` is written for the next process.
"""

from __future__ import annotations

import _pickle as pickle  # the C pickler ``pickle`` wraps: its Python half costs ~1 ms of every start
import io
import logging
import threading
from functools import lru_cache
from typing import Any

from expert import cache, stored
from expert._experta import ConditionalElement, Fact
from expert.engine import AuditedEngine, RuleInfo, engine_class_from, engine_namespace
from expert.rete import CACHE_NAME, _element_reduce
from knowledge import FAMILIES, adopt, all_joins, all_questions, all_rows, loaded
from knowledge.schema import Family, Join, QuestionRow, Row

log = logging.getLogger("trainopt.cache")

KB_CACHE = "kb"
"""The cache entry of the compiled knowledge base."""

BUNDLE_CACHE = "engine"
"""The cache entry of the families and the compiled knowledge base together (read when no family is loaded)."""

_KINDS = {Row: "rows", QuestionRow: "questions", Join: "joins"}

_local = threading.local()


_FACT_CLASSES: set[type] = set()
"""Classes ``_fact`` found to be experta's facts: checked once per class (a knowledge base holds ~1,800 facts)."""


def _fact(cls: type, items: dict[str, Any], state: dict[str, Any]) -> Any:
    """A fact (a pattern of a rule) as it was: its fields and its attributes, not declared anywhere."""
    if cls not in _FACT_CLASSES:
        if not (isinstance(cls, type) and issubclass(cls, Fact)):
            raise pickle.UnpicklingError(f"not a fact: {cls!r}")
        _FACT_CLASSES.add(cls)
    if type(items) is not dict or type(state) is not dict:
        raise pickle.UnpicklingError(f"not a fact: {cls!r}")
    fact = dict.__new__(cls)
    dict.update(fact, items)
    fact.__dict__.update(state)
    return fact


_DEFAULTS = "_Fact__defaults"
"""The one attribute a knowledge-base fact has: experta's cache of its fields' defaults (empty until one is read)."""


def _plain_fact(cls: type, items: dict[str, Any]) -> Any:
    """A fact whose only attribute is an empty defaults cache: ``_fact`` with that attribute made here.

    Every fact of the knowledge base is one (some two thousand in the stored bundle): writing the empty cache into
    the entry cost each fact a dictionary, a key and an attribute table to load, for what one empty dictionary
    made here restores.
    """
    return _fact(cls, items, {_DEFAULTS: {}})


def _index(families: tuple[Family, ...]) -> dict[tuple[str, str], Any]:
    """``(kind, id) -> row`` for every row, question and join of the families."""
    return {(kind, r.id): r for f in families for kind in _KINDS.values() for r in getattr(f, kind)}


class _KBPickler(stored.StoredPickler):
    """Pickles the engine namespace: experta's tuples and facts by contents, the families' rows by id."""

    def __init__(self, f: Any, families: tuple[Family, ...]) -> None:
        super().__init__(f)
        self._rows = _index(families)

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Fact):
            state = obj.__dict__
            if len(state) == 1 and type(state.get(_DEFAULTS)) is dict and not state[_DEFAULTS]:
                return _plain_fact, (type(obj), dict(obj))  # the usual fact: nothing but the empty cache
            return _fact, (type(obj), dict(obj), dict(state))
        if isinstance(obj, ConditionalElement):
            return _element_reduce(obj)
        return NotImplemented

    def persistent_id(self, obj: Any) -> Any:
        kind = _KINDS.get(type(obj))
        if kind is not None and self._rows.get((kind, obj.id)) is obj:
            return ("row", kind, obj.id)
        return super().persistent_id(obj)


class _KBUnpickler(stored.StoredUnpickler):
    """Loads what ``_KBPickler`` wrote, its rows from the families."""

    rows: dict[tuple[str, str], Any] = {}

    def persistent_load(self, pid: Any) -> Any:
        """Resolve a row's reference (kind, id) against the families; others as ``expert.stored`` does."""
        if type(pid) is tuple and len(pid) == 3 and pid[0] == "row":
            try:
                return self.rows[(pid[1], pid[2])]
            except KeyError:
                raise pickle.UnpicklingError(f"no {pid[1]} {pid[2]!r} in the knowledge") from None
        return super().persistent_load(pid)


def dump_kb(families: tuple[Family, ...], ns: dict[str, Any]) -> bytes:
    """An engine namespace (``expert.engine.engine_namespace``) of ``families``' rows, serialised."""
    buf = io.BytesIO()
    _KBPickler(buf, families).dump(ns)
    return buf.getvalue()


def load_kb(blob: bytes, families: tuple[Family, ...]) -> dict[str, Any]:
    """What ``dump_kb`` wrote, its rows resolved against ``families`` (those of the same sources).

    Raises:
        Exception: Anything but what ``dump_kb`` writes (the caller rebuilds).
    """
    unpickler = type("_Resolving", (_KBUnpickler,), {"rows": _index(families)})
    ns = stored.unpickle(blob, unpickler)
    if type(ns) is not dict or not {"pooled", "questions", "yields_to"} <= ns.keys():
        raise pickle.UnpicklingError("not a stored knowledge base")
    return ns


class _BundlePickler(_KBPickler):
    """Pickles the families with the engine namespace: a row by value where first met, then by reference to it."""

    def persistent_id(self, obj: Any) -> Any:
        # only the joins' functions by reference (``expert.stored``): every row is in the same pickle
        return stored.StoredPickler.persistent_id(self, obj)


def dump_bundle(families: tuple[Family, ...], ns: dict[str, Any]) -> bytes:
    """``families`` and an engine namespace of their rows, serialised together (``BUNDLE_CACHE``)."""
    buf = io.BytesIO()
    _BundlePickler(buf, families).dump((families, ns))
    return buf.getvalue()


def load_bundle(blob: bytes) -> tuple[tuple[Family, ...], dict[str, Any]]:
    """What ``dump_bundle`` wrote: the families, and the namespace whose rules hold those families' rows.

    Raises:
        Exception: Anything but what ``dump_bundle`` writes (the caller reads the other entries or rebuilds).
    """
    found = stored.unpickle(blob, _KBUnpickler)  # names no row by id (``_KBUnpickler.rows`` is empty)
    if type(found) is not tuple or len(found) != 2:
        raise pickle.UnpicklingError("not a stored bundle of the knowledge")
    families, ns = found
    if type(families) is not tuple or [f.name for f in families if type(f) is Family] != list(FAMILIES):
        raise pickle.UnpicklingError("not the stored knowledge families")
    if type(ns) is not dict or not {"pooled", "questions", "yields_to"} <= ns.keys():
        raise pickle.UnpicklingError("not a stored knowledge base")
    return families, ns


def _bundled() -> tuple[dict[str, Any] | None, bool]:
    """The engine namespace from ``BUNDLE_CACHE``, its families adopted; and whether the entry wants writing.

    None (and no writing) where the families are loaded already: the entry's rows are not theirs. None (and
    writing) where the entry is absent or does not load.
    """
    if loaded() or not cache.enabled():
        return None, False
    blob = cache.load(BUNDLE_CACHE)
    if blob is None:
        return None, True
    try:
        families, ns = load_bundle(blob)
    except Exception as exc:  # noqa: BLE001 - an entry that does not load is rebuilt, never trusted
        log.debug("trainopt cache: the stored knowledge bundle did not load (%s); rebuilding", exc)
        return None, True
    if adopt(families) is not families:  # loaded meanwhile (another thread): resolve against those instead
        return None, False
    return ns, False


def _store_bundle(families: tuple[Family, ...], ns: dict[str, Any]) -> None:
    """Write ``BUNDLE_CACHE`` for the next process (nothing stored is no error)."""
    try:
        blob = dump_bundle(families, ns)
    except Exception as exc:  # noqa: BLE001 - something unpicklable: the two entries serve
        log.debug("trainopt cache: the knowledge bundle cannot be stored (%s)", exc)
    else:
        cache.store(BUNDLE_CACHE, blob)


def _stored(families: tuple[Family, ...]) -> dict[str, Any] | None:
    """The engine namespace from the user's cache, or None (absent, stale, unreadable)."""
    blob = cache.load(KB_CACHE)
    if blob is None:
        return None
    try:
        return load_kb(blob, families)
    except Exception as exc:  # noqa: BLE001 - an entry that does not load is rebuilt, never trusted
        log.debug("trainopt cache: the stored knowledge base did not load (%s); rebuilding", exc)
        return None


def _compiled(families: tuple[Family, ...]) -> dict[str, Any]:
    """Compile the knowledge's engine namespace here, and store it for the next process."""
    # the knowledge's own lists, of the families in use (``stored.families`` adopted them)
    ns = engine_namespace(all_rows(), all_questions(), all_joins())
    if cache.enabled():
        try:
            blob = dump_kb(families, ns)
        except Exception as exc:  # noqa: BLE001 - something unpicklable: compile in every process
            log.debug("trainopt cache: the knowledge base cannot be stored (%s)", exc)
        else:
            cache.store(KB_CACHE, blob)
    return ns


@lru_cache(maxsize=1)
def engine_class() -> type[AuditedEngine]:
    """Compile every family's rows, joins and questions (once per process; from the user's cache when stored)."""
    ns, write = _bundled()
    if ns is None:
        families = stored.families()
        ns = _stored(families)
        if ns is None:
            ns = _compiled(families)
        if write:
            _store_bundle(families, ns)
    cls = engine_class_from(ns)
    # the class the sources define: its network can be stored under their hash (``expert.cache``)
    cls.cache_name = CACHE_NAME
    return cls


def engine() -> AuditedEngine:
    """Return the calling thread's engine (experta engines are not thread-safe; building one costs ~1 ms per rule)."""
    e = getattr(_local, "engine", None)
    if e is None:
        e = engine_class()()
        _local.engine = e
    return e


@lru_cache(maxsize=1)
def rule_catalogue() -> dict[str, RuleInfo]:
    """Every rule id -> its metadata (rows, questions, hand-written and core rules), sorted by id."""
    return dict(sorted((info.id, info) for info in engine().rule_info.values()))
