"""A per-user cache of what the knowledge compiles into (the Rete network, the plan ranks), built once per source.

Why: compiling ~400 rules into experta's Rete network and importing networkx for the plan order cost most of a
``trainopt diagnose`` process, and they come out the same every time the sources are the same.

Design:

* **Where**: ``$TRAINOPT_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/trainopt``, else ``~/.cache/trainopt``.
  ``TRAINOPT_NO_CACHE=1`` turns the cache off (everything is built in the process, as before).
* **Key**: a hash of the Python and experta versions, of where the sources are, and of the status of every ``.py``
  file under ``knowledge/`` and ``expert/`` (the knowledge, its compiler, the engine, trainopt's version): path,
  size, inode, modification and change times (``source_key`` says why that is enough). Any edit, upgrade or
  another checkout gives another key, hence another file name: a stale entry is never read, only left behind
  (writing an entry prunes the oldest of its kind beyond ``KEEP``, so a few checkouts can share the folder).
* **Trust**: an entry is our own file, written by this module: magic, key, the payload's length and CRC-32 check
  value, then the payload. It is read only when it is a regular file owned by the current user and not writable
  by others, its magic and key match, and the length and check value of what follows match; anything else
  (truncated, corrupt, foreign, another version) is ignored and rebuilt. Nothing a user passes as input ever
  reaches it. (The check is against damage, not forgery: who can write the file can write any check value, so a
  cryptographic digest adds nothing to the ownership test; hashing a consult's two megabytes of entries with
  BLAKE2b cost about 2 ms of every process, CRC-32 a fifth of that.)
* **Concurrency**: an entry is written to a temporary file in the same folder and renamed over the final name
  (``os.replace``, atomic on POSIX and Windows), so a reader sees a complete old entry, a complete new one, or
  none; two processes that build at once both write a complete, identical entry.
* **Failure**: the cache is an optimisation. An unwritable folder, a full disk or any error reading an entry
  means building in the process, silently (``TRAINOPT_CACHE_DEBUG=1`` logs why).
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from binascii import crc32  # zlib's CRC-32, in a module cheaper to load than zlib
from functools import cache
from pathlib import Path
from typing import Any

try:  # hashlib's own BLAKE2, without the OpenSSL bindings ``import hashlib`` loads first (~2 ms of every start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

log = logging.getLogger("trainopt.cache")

MAGIC = b"TRAINOPT-CACHE-3\n"
ROOT = Path(__file__).resolve().parent.parent
KEEP = 8
"""Entries kept per artifact: a few checkouts or versions side by side without rebuilding each other's."""
SOURCES = ("knowledge", "expert")
"""Folders (next to this package) whose ``.py`` files determine what is compiled."""


def enabled() -> bool:
    """False when ``TRAINOPT_NO_CACHE`` is set to a true value."""
    return os.environ.get("TRAINOPT_NO_CACHE", "").strip().lower() not in ("1", "true", "yes")


def cache_dir() -> Path:
    """The folder for trainopt's cache entries (not created here)."""
    explicit = os.environ.get("TRAINOPT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "trainopt"


@cache
def source_key() -> str:
    """A hash of everything the compiled artifacts depend on: versions, and the sources as the file system has them.

    Each ``.py`` file counts by its path, size, inode, modification and change times, as Python's own bytecode
    cache counts a source by its modification time and size (reading and hashing a megabyte of sources cost a
    few ms of every process). The change time is the kernel's, set by every write and by no tool (``touch``,
    ``cp -p`` and unpacking an archive set the modification time only), so an edited, replaced or reinstalled
    file is another key even where modification times are fixed (reproducible builds); an unchanged file
    touched or checked out again is another key too, and the next process builds once more. trainopt's version
    is in ``expert/__init__.py``, one of the files counted.
    """
    h = blake2b(digest_size=32)
    # __name__: trainopt's private copy (trainopt._isolated.*, see trainopt._boot) pickles its own classes
    h.update(f"{__name__}\0{sys.version}\0{_experta_version()}\0{ROOT}\0".encode())
    for folder in SOURCES:
        for rel, st in _sources(ROOT / folder, folder):
            h.update(f"{rel}\0{st.st_size}\0{st.st_ino}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0".encode())
    return h.hexdigest()[:32]


def _sources(folder: Path, rel: str) -> list[tuple[str, os.stat_result]]:
    """Every ``.py`` file under ``folder`` with its status, by path (``rel``: the folder's name in the key)."""
    out: list[tuple[str, os.stat_result]] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return out
    for e in entries:
        if e.name.endswith(".py") and e.is_file():
            out.append((f"{rel}/{e.name}", e.stat()))
        elif e.is_dir() and e.name != "__pycache__":
            out.extend(_sources(Path(e.path), f"{rel}/{e.name}"))
    return out


def _experta_version() -> str:
    """Experta's location and version line, found without importing it (the plan cache does not need it)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("experta")
        origin = spec.origin if spec is not None else None
        if not origin:
            return "?"
        text = Path(origin).read_text(encoding="utf-8", errors="replace")
    except (ImportError, ValueError, OSError):
        return "?"
    version = next((line for line in text.splitlines() if "__version__" in line), "")
    return f"{origin}\0{version}"


CHECK_SIZE = 16
"""Bytes of an entry's check: the payload's length and the CRC-32 of header and payload (8 bytes each)."""


def _check(header: bytes, payload: bytes) -> bytes:
    """The check an entry carries of its header and payload.

    The payload's length (a truncation is caught before any hashing), then the CRC-32 of header and payload.
    """
    return len(payload).to_bytes(8, "little") + crc32(payload, crc32(header)).to_bytes(8, "little")


def _path(name: str) -> Path:
    return cache_dir() / f"{name}-{source_key()}.bin"


def _debug(msg: str, *args: object) -> None:
    if os.environ.get("TRAINOPT_CACHE_DEBUG"):
        log.warning("trainopt cache: " + msg, *args)


def load(name: str) -> bytes | None:
    """The payload stored under ``name`` for the current sources, or None (absent, unreadable or not ours)."""
    if not enabled():
        return None
    path = _path(name)
    try:
        with open(path, "rb", buffering=0) as f:  # unbuffered: the payload read straight into its own object
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                _debug("%s is not a regular file", path)
                return None
            if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
                _debug("%s is not owned by this user or is writable by others", path)
                return None
            header = MAGIC + source_key().encode() + b"\n"
            # header and check first, then the payload as its own object: slicing it out of the whole file would
            # copy it (a consult reads some two megabytes of entries, and a copy is as many fresh pages again)
            head = f.read(len(header) + CHECK_SIZE)
            if head[:len(header)] != header or len(head) < len(header) + CHECK_SIZE:
                _debug("%s: not an entry of these sources", path)
                return None
            payload = f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        _debug("cannot read %s: %s", path, exc)
        return None
    check = head[len(header):]
    if _check(header, payload) != check:
        _debug("%s: check mismatch (corrupt or truncated)", path)
        return None
    return payload


def store(name: str, payload: bytes) -> bool:
    """Write ``payload`` under ``name`` for the current sources, atomically; False when it could not be written."""
    if not enabled():
        return False
    import tempfile  # only when writing: it costs a few ms to import

    path = _path(name)
    header = MAGIC + source_key().encode() + b"\n"
    blob = header + _check(header, payload) + payload
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=f".{name}-", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        _debug("cannot write %s: %s", path, exc)
        return False
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    prune(name)
    return True


@cache
def _plain_unpickler() -> Any:
    """An unpickler that refuses every class (made on first use: ``pickle`` loads when plain data is read)."""
    import _pickle as pickle  # the C pickler ``pickle`` wraps (its Python half is not needed to read)

    class Plain(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            raise pickle.UnpicklingError(f"a plain entry names {module}.{name}, which it never holds")

    return Plain


def load_plain(name: str) -> Any:
    """The plain data (containers, strings, numbers, bytes: no class) stored under ``name`` by ``store_plain``.

    None when absent, unreadable or not plain data; the caller checks the shape it expects.
    """
    payload = load(name)
    if payload is None:
        return None
    import io

    try:
        return _plain_unpickler()(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001 - not what store_plain writes: the caller rebuilds
        _debug("%s: not plain data", name)
        return None


def shared(data: Any) -> Any:
    """``data`` with its equal strings, and tuples and frozensets of strings, made one object each.

    Pickle writes an object met again as a reference to the first, so an entry stored this way loads each distinct
    value once: the talk lexicon's twelve thousand strings are five thousand distinct ones, and building the
    copies cost a fifth of reading it back. Only immutable values are merged, so what loads is equal to ``data``
    and behaves the same; a list, set or dict stays one object per object of ``data`` (one met twice is still
    one object, met twice).

    Args:
        data: Plain data (containers, strings, numbers, bytes).
    """
    equal: dict[Any, Any] = {}
    done: dict[int, Any] = {}  # id of a container of ``data`` -> its copy (the originals live until the end)

    def one(x: Any) -> Any:
        kind = type(x)
        if kind is str:
            return equal.setdefault(x, x)
        if kind not in (tuple, frozenset, list, set, dict):
            return x
        copy = done.get(id(x))
        if copy is not None:
            return copy
        if kind is dict:
            copy = {one(k): one(v) for k, v in x.items()}
        elif kind is list:
            copy = [one(v) for v in x]
        elif kind is set:
            copy = {one(v) for v in x}
        else:
            copy = kind(one(v) for v in x)
            # only a container of strings: equal numbers of other types (1, 1.0, True) would pass for one another
            if all(type(v) is str for v in copy):
                copy = equal.setdefault((kind, copy), copy)
        done[id(x)] = copy
        return copy

    return one(data)


def store_plain(name: str, data: Any) -> bool:
    """Store plain data (pickled; ``load_plain`` refuses any class) under ``name``; False when it could not.

    Equal immutable values are stored once (``shared``): fewer objects to build when the entry is read back.
    """
    import pickle

    try:
        payload = pickle.dumps(shared(data), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - nothing stored is no error
        return False
    return store(name, payload)


def prune(name: str) -> None:
    """Remove the oldest entries of ``name`` beyond the ``KEEP`` most recently written (other sources' entries)."""
    try:
        entries = sorted(cache_dir().glob(f"{name}-*.bin"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for p in entries[KEEP:]:
        try:
            p.unlink()
        except OSError:
            pass


__all__ = ["cache_dir", "enabled", "load", "load_plain", "prune", "shared", "source_key", "store", "store_plain"]
