"""The assembled knowledge base: the engine class built once per process, one instance per thread.

The class is compiled from the knowledge's rows, joins and questions, or read from the user's cache
(``expert.cache``, entry ``kb``), where the first process stores what it compiled: the families as
``knowledge.families()`` gives them and the class's namespace (the compiled rules, the pooled causes, the
question rows, the yields-to relation). A process that reads it neither imports the family modules nor compiles
a rule; its Rete network then comes from the ``rete`` entry (``expert.rete``), resolved against these rules.

The entry is keyed, like every entry, by a hash of the sources and versions it follows from, and is pickled
plain data: rules whose right-hand sides are objects of ``expert.engine`` (no code), joins by family and id
(their tests are the knowledge's own functions, found in their modules), and only classes of our packages and
experta's load (``_KBUnpickler.find_class``). Anything that does not load is rebuilt and stored again.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import io
import logging
import pickle
import threading
from functools import lru_cache
from typing import Any

from expert import cache
from expert._experta import ConditionalElement, Fact
from expert.engine import AuditedEngine, RuleInfo, engine_class_from, engine_namespace
from expert.rete import _LOADABLE, CACHE_NAME, _element
from knowledge import FAMILIES, adopt, all_joins, all_questions, all_rows, families
from knowledge.schema import Family, Join

log = logging.getLogger("trainopt.cache")

KB_CACHE = "kb"
"""The cache entry of the compiled knowledge base."""

_local = threading.local()


def _fact(cls: type, items: dict[str, Any], state: dict[str, Any]) -> Any:
    """A fact (a pattern of a rule) as it was: its fields and its attributes, not declared anywhere."""
    fact = dict.__new__(cls)
    dict.update(fact, items)
    fact.__dict__.update(state)
    return fact


class _KBPickler(pickle.Pickler):
    """Pickles the knowledge base: experta's tuples and facts by their contents, joins by family and id."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Fact):
            return _fact, (type(obj), dict(obj), dict(obj.__dict__))
        if isinstance(obj, ConditionalElement):
            return _element, (type(obj), tuple(obj), dict(obj.__dict__) or None)
        return NotImplemented

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is Join:  # its test and detail are functions of its module, often lambdas
            return ("join", obj.family, obj.id)
        return None


class _KBUnpickler(pickle.Unpickler):
    """Loads what ``_KBPickler`` wrote: only our classes and experta's; joins from their family modules."""

    def __init__(self, f: Any) -> None:
        super().__init__(f)
        self._joins: dict[tuple[str, str], Any] = {}

    def find_class(self, module: str, name: str) -> Any:
        if module.split(".")[0] not in _LOADABLE:
            raise pickle.UnpicklingError(f"the stored knowledge names {module}.{name}, which it never holds")
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        if pid[0] != "join" or len(pid) != 3:
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        key = (pid[1], pid[2])
        join = self._joins.get(key)
        if join is None:
            if pid[1] not in FAMILIES:
                raise pickle.UnpicklingError(f"no knowledge family {pid[1]!r}")
            mod = importlib.import_module(f"knowledge.{pid[1]}")
            found = [j for j in getattr(mod, "JOINS", ()) if j.id == pid[2]]
            if len(found) != 1:
                raise pickle.UnpicklingError(f"no join {pid[2]!r} in knowledge.{pid[1]}")
            # as ``knowledge.families`` stamps it
            join = self._joins[key] = dataclasses.replace(found[0], family=pid[1])
        return join


def dump_kb(families: tuple[Any, ...], ns: dict[str, Any]) -> bytes:
    """The knowledge base's families and engine namespace (``expert.engine.engine_namespace``), serialised."""
    buf = io.BytesIO()
    _KBPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump((families, ns))
    return buf.getvalue()


def load_kb(blob: bytes) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """What ``dump_kb`` wrote: the families and the engine namespace.

    Raises:
        Exception: Anything but what ``dump_kb`` writes (the caller rebuilds).
    """
    enabled = gc.isenabled()
    gc.disable()  # tens of thousands of new objects and no garbage: a collection would only walk them
    try:
        families, ns = _KBUnpickler(io.BytesIO(blob)).load()
    finally:
        if enabled:
            gc.enable()
    if type(families) is not tuple or not all(type(f) is Family for f in families) or type(ns) is not dict \
            or not {"pooled", "questions", "yields_to"} <= ns.keys():
        raise pickle.UnpicklingError("not a stored knowledge base")
    return families, ns


def _stored() -> dict[str, Any] | None:
    """The engine namespace from the user's cache (the families adopted), or None (absent, stale, unreadable)."""
    blob = cache.load(KB_CACHE)
    if blob is None:
        return None
    try:
        families, ns = load_kb(blob)
    except Exception as exc:  # noqa: BLE001 - an entry that does not load is rebuilt, never trusted
        log.debug("trainopt cache: the stored knowledge base did not load (%s); rebuilding", exc)
        return None
    adopt(families)
    return ns


def _compiled() -> dict[str, Any]:
    """Compile the knowledge's engine namespace here, and store it with the families for the next process."""
    ns = engine_namespace(all_rows(), all_questions(), all_joins())
    if cache.enabled():
        try:
            blob = dump_kb(families(), ns)
        except Exception as exc:  # noqa: BLE001 - something unpicklable: compile in every process
            log.debug("trainopt cache: the knowledge base cannot be stored (%s)", exc)
        else:
            cache.store(KB_CACHE, blob)
    return ns


@lru_cache(maxsize=1)
def engine_class() -> type[AuditedEngine]:
    """Compile every family's rows, joins and questions (once per process; from the user's cache when stored)."""
    ns = _stored()
    cls = engine_class_from(ns if ns is not None else _compiled())
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
