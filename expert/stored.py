"""The knowledge families, kept in the user's cache (``expert.cache``, entry ``knowledge``).

``knowledge.families()`` imports some twenty family modules and copies every row to stamp its family: about a
tenth of a pipeline call. What it returns is plain data that follows from the sources alone, so the first
process stores it and the next ones read it back (``families``), the family modules left unimported. The
entry's key is a hash of the sources (``expert.cache``): an edited family is another key, never a stale read.

The entry is pickled: rows, questions and keywords by value, joins by family and id (their tests and details
are functions of their modules, often lambdas, found there on load). Only classes of our packages and
experta's load (``StoredUnpickler.find_class``); anything that does not load is rebuilt and stored again.
``expert.kb`` stores the compiled engine beside it, referring to these rows by id.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import io
import logging
import pickle
from typing import Any

from expert import cache
from knowledge import FAMILIES, adopt, loaded
from knowledge import families as load_families
from knowledge.schema import Family, Join

log = logging.getLogger("trainopt.cache")

FAMILIES_CACHE = "knowledge"
"""The cache entry of the knowledge families."""

LOADABLE = frozenset({"experta", "expert", "knowledge", "trainopt", "builtins", "collections", "copyreg",
                      "frozendict", "functools", "_functools", "operator", "re", "schema"})
"""Top-level modules whose classes a stored entry may name (a network's, the knowledge's, plain containers)."""


class StoredPickler(pickle.Pickler):
    """Pickles knowledge: joins by family and id (``persistent_id`` of subclasses may name more)."""

    def persistent_id(self, obj: Any) -> Any:
        """A join's reference (family, id); None for everything pickled by value."""
        if type(obj) is Join:  # its test and detail are functions of its module, often lambdas
            return ("join", obj.family, obj.id)
        return None


class StoredUnpickler(pickle.Unpickler):
    """Loads what ``StoredPickler`` wrote: only our classes and experta's; joins from their family modules."""

    def __init__(self, f: Any) -> None:
        super().__init__(f)
        self._joins: dict[tuple[str, str], Any] = {}

    def find_class(self, module: str, name: str) -> Any:
        """A class the entry names, refused outside ``LOADABLE``."""
        # The entry is our own file, but it sits where other programs can write: only the classes knowledge is
        # made of load, never a callable of some other module that unpickling would run.
        if module.split(".")[0] not in LOADABLE:
            raise pickle.UnpicklingError(f"the stored entry names {module}.{name}, which it never holds")
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        """Resolve a reference ``persistent_id`` wrote."""
        if type(pid) is tuple and len(pid) == 3 and pid[0] == "join":
            return self._join(pid[1], pid[2])
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")

    def _join(self, family: str, jid: str) -> Any:
        key = (family, jid)
        join = self._joins.get(key)
        if join is None:
            if family not in FAMILIES:
                raise pickle.UnpicklingError(f"no knowledge family {family!r}")
            found = [j for j in getattr(importlib.import_module(f"knowledge.{family}"), "JOINS", ()) if j.id == jid]
            if len(found) != 1:
                raise pickle.UnpicklingError(f"no join {jid!r} in knowledge.{family}")
            join = self._joins[key] = dataclasses.replace(found[0], family=family)  # as knowledge.families stamps it
        return join


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
    StoredPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(found)
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


__all__ = ["FAMILIES_CACHE", "LOADABLE", "StoredPickler", "StoredUnpickler", "dump_families", "families",
           "load_families_blob", "unpickle"]
