"""The knowledge families, kept in the user's cache (``expert.cache``, entry ``knowledge``).

``knowledge.families()`` imports some twenty family modules and copies every row to stamp its family: about a
tenth of a pipeline call. What it returns is plain data that follows from the sources alone, so the first
process stores it and the next ones read it back (``families``), the family modules left unimported. The
entry's key is a hash of the sources (``expert.cache``): an edited family is another key, never a stale read.

The entry is pickled: rows, questions, keywords and joins by value, a join's test and detail by reference
(they are functions of its module, often lambdas: ``Deferred`` finds them there when the join is first read).
Only classes of our packages and experta's load (``StoredUnpickler.find_class``); anything that does not load is
rebuilt and stored again.
``expert.kb`` stores the compiled engine beside it, referring to these rows by id.
"""

from __future__ import annotations

import _pickle as pickle  # the C pickler ``pickle`` wraps: its Python half costs ~1 ms of every start
import gc
import importlib
import io
import logging
import sys
from typing import Any

from expert import cache
from knowledge import FAMILIES, adopt, loaded
from knowledge import families as load_families
from knowledge.schema import Family, Join

log = logging.getLogger("trainopt.cache")

HIGHEST_PROTOCOL = -1
"""The pickle protocol entries are written in: the newest this Python has (``pickle.HIGHEST_PROTOCOL``)."""

FAMILIES_CACHE = "knowledge"
"""The cache entry of the knowledge families."""

LOADABLE = frozenset({"experta", "expert", "knowledge", "trainopt", "collections", "frozendict", "schema"})
"""Top-level modules whose classes a stored entry may name (a network's, the knowledge's, containers)."""

PLAIN_BUILTINS = frozenset({"tuple", "list", "dict", "set", "frozenset", "bool", "int", "float", "complex", "str",
                            "bytes", "bytearray", "slice", "range", "object"})
"""The builtins a stored entry may name: containers and scalars, no function (``getattr``, ``eval``, ...)."""

BUILDERS = frozenset({"expert.kb._fact", "expert.kb._plain_fact", "expert.rete._feature_check",
                      "expert.rete._new_element", "expert.rete._callback", "expert.rete._field"})
"""The only functions a stored entry may name: ours, each checking what it is given before it builds."""


PRIVATE = "trainopt._isolated."
"""Where trainopt's private copy of its internals lives (``trainopt._names.PREFIX``; a test holds them equal)."""


def loadable(module: str, name: str) -> bool:
    """Whether a stored entry may name ``module.name`` (``find_class`` of every cache unpickler).

    A class defined in one of ``LOADABLE``'s packages (not one imported there: ``expert.stored.importlib``
    must not reach ``importlib.import_module``), a plain builtin type, or one of ``BUILDERS``. No dotted name
    (an attribute of a class, a module's module) and no other function: unpickling calls what it names.
    """
    if "." in name or name.startswith("__"):
        return False
    if module == "builtins":
        return name in PLAIN_BUILTINS
    if f"{module.removeprefix(PRIVATE)}.{name}" in BUILDERS:  # the private copy names them under its prefix
        return True
    if module.split(".")[0] not in LOADABLE:
        return False
    found = getattr(sys.modules.get(module), name, None)
    if found is None:  # not imported yet: import only a module of an allowed package, then look again
        try:
            found = getattr(importlib.import_module(module), name, None)
        except ImportError:
            return False
    return isinstance(found, type) and found.__module__ == module and found.__qualname__ == name


class Deferred:
    """A join's test or detail as stored: found in the join's family module when first called or compared.

    A join's functions are often lambdas, which pickle cannot store; and importing their modules as the entry
    loads would cost what the entry saves. A join is read only when its observations are both known, so its
    module is imported then, once (the same function objects ``knowledge.families()`` holds).
    """

    __slots__ = ("family", "join", "attr", "_fn")

    def __init__(self, family: str, join: str, attr: str) -> None:
        self.family, self.join, self.attr = family, join, attr
        self._fn: Any = None

    def resolved(self) -> Any:
        """The function itself, from ``knowledge.<family>``'s ``JOINS``."""
        fn = self._fn
        if fn is None:
            found = [j for j in getattr(importlib.import_module(f"knowledge.{self.family}"), "JOINS", ())
                     if j.id == self.join]
            if len(found) != 1 or self.attr not in ("test", "detail", "value"):
                raise LookupError(f"no join {self.join!r} in knowledge.{self.family}: the stored knowledge is not "
                                  "of these sources (remove the trainopt cache folder)")
            fn = self._fn = getattr(found[0], self.attr)
        return fn

    def __call__(self, *args: Any) -> Any:
        """Call the function itself."""
        return self.resolved()(*args)

    def __eq__(self, other: object) -> bool:
        return self.resolved() == (other.resolved() if isinstance(other, Deferred) else other)

    def __hash__(self) -> int:
        return hash(self.resolved())

    def __repr__(self) -> str:
        return f"<{self.attr} of join {self.join} (knowledge.{self.family})>"


class StoredPickler(pickle.Pickler):
    """Pickles knowledge: a join's test and detail as references (``Deferred``), all else by value."""

    def __init__(self, f: Any, protocol: int = HIGHEST_PROTOCOL) -> None:
        super().__init__(f, protocol=protocol)
        self._join_fns: dict[int, tuple[str, str, str, str]] = {}

    def persistent_id(self, obj: Any) -> Any:
        """A join's function's reference (family, join id, which); None for everything pickled by value."""
        if type(obj) is Join:  # pickled by value, but its test and detail (often lambdas) by reference
            for attr in ("test", "detail", "value"):
                self._join_fns.setdefault(id(getattr(obj, attr)), ("fn", obj.family, obj.id, attr))
            return None
        return self._join_fns.get(id(obj)) if callable(obj) else None


class StoredUnpickler(pickle.Unpickler):
    """Loads what ``StoredPickler`` wrote: only our classes and experta's; joins' functions as ``Deferred``."""

    def find_class(self, module: str, name: str) -> Any:
        """A class the entry names, refused outside ``LOADABLE``."""
        # The entry is our own file, but it sits where other programs can write: only the classes knowledge is
        # made of load, never a callable of some other module that unpickling would run.
        if not loadable(module, name):
            raise pickle.UnpicklingError(f"the stored entry names {module}.{name}, which it never holds")
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        """Resolve a reference ``persistent_id`` wrote."""
        if type(pid) is tuple and len(pid) == 4 and pid[0] == "fn" and pid[1] in FAMILIES:
            return Deferred(pid[1], pid[2], pid[3])
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")


def unpickle(blob: bytes, unpickler: type[StoredUnpickler] = StoredUnpickler) -> Any:
    """Load an entry's payload with the collector paused (thousands of new objects and no garbage)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return unpickler(io.BytesIO(blob)).load()
    finally:
        if enabled:
            gc.enable()


def dump_families(found: tuple[Family, ...]) -> bytes:
    """``knowledge.families()``'s result, serialised."""
    buf = io.BytesIO()
    StoredPickler(buf).dump(found)
    return buf.getvalue()


def load_families_blob(blob: bytes) -> tuple[Family, ...]:
    """What ``dump_families`` wrote.

    Raises:
        Exception: Anything but what ``dump_families`` writes (the caller rebuilds).
    """
    found = unpickle(blob)
    if type(found) is not tuple or [f.name for f in found if type(f) is Family] != list(FAMILIES):
        raise pickle.UnpicklingError("not the stored knowledge families")
    return found


def families() -> tuple[Family, ...]:
    """``knowledge.families()``, read from the user's cache when stored for these sources (else stored there)."""
    if loaded():
        return load_families()
    blob = cache.load(FAMILIES_CACHE)
    if blob is not None:
        try:
            return adopt(load_families_blob(blob))
        except Exception as exc:  # noqa: BLE001 - an entry that does not load is rebuilt, never trusted
            log.debug("trainopt cache: the stored knowledge did not load (%s); rebuilding", exc)
    found = load_families()
    if cache.enabled():
        try:
            blob = dump_families(found)
        except Exception as exc:  # noqa: BLE001 - something unpicklable: load the modules in every process
            log.debug("trainopt cache: the knowledge cannot be stored (%s)", exc)
        else:
            cache.store(FAMILIES_CACHE, blob)
    return found


__all__ = ["FAMILIES_CACHE", "LOADABLE", "Deferred", "StoredPickler", "StoredUnpickler", "dump_families", "families",
           "load_families_blob", "unpickle"]
