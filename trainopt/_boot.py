"""How ``trainopt`` reaches its internals (``expert``, ``knowledge``, ``probes``) without clashing with yours.

trainopt's code lives in three top-level packages with generic names. A user project often has a folder of
the same name (``probes/`` for linear probes, ``knowledge/`` for a RAG store) that comes first on
``sys.path`` (the script's folder, or the current directory under ``python -m``), or a package of that
name is already imported.

The strategy: when every internal name resolves to trainopt's own folder (the common case), trainopt uses
the packages under their plain names, once, so ``from expert import Consultation`` and
``trainopt.Consultation`` are the same class. When any of them resolves elsewhere, trainopt loads its own
copy privately under ``trainopt._isolated.<name>`` (its absolute imports rewritten to that prefix at load
time) and leaves your package alone under the plain name. ``TRAINOPT_ISOLATE=1`` forces the private copy.
Use the ``trainopt.*`` names in your code and both cases behave the same.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from trainopt._names import INTERNAL, PREFIX, ROOT


def _is_ours(name: str) -> bool:
    """True when ``import <name>`` would give (or gave) trainopt's own package."""
    mod = sys.modules.get(name)
    if mod is not None:
        origin = getattr(mod, "__file__", None)
    else:
        try:
            spec = importlib.util.find_spec(name)  # a top-level name: finds without importing
        except (ImportError, ValueError):
            return False
        origin = spec.origin if spec is not None else None
    if not origin:
        return False
    try:
        return Path(origin).resolve().parent == (ROOT / name).resolve()
    except OSError:
        return False


def _decide() -> bool:
    if os.environ.get("TRAINOPT_ISOLATE", "").strip() in ("1", "true", "yes"):
        return True
    # All or none: a private probes next to a shared expert would see two different Observation classes.
    return not all(_is_ours(n) for n in INTERNAL)


ISOLATED: bool = _decide()
"""True when trainopt runs its private copy of the internals (a name clash, or ``TRAINOPT_ISOLATE=1``)."""


def internal(name: str) -> ModuleType:
    """Import one of trainopt's internal modules, clash-safe.

    Args:
        name: Dotted name under an internal package, e.g. ``"probes.watcher"``.

    Returns:
        trainopt's own module (the shared one, or the private copy when a name clashes).
    """
    if name.split(".")[0] not in INTERNAL:
        raise ValueError(f"{name!r} is not a trainopt internal module")
    return importlib.import_module(PREFIX + name if ISOLATED else name)


# ----------------------------------------------------------------------------------------- private copy

if ISOLATED:  # the loader (ast, importlib.abc) is imported only when a name clashes: a plain start-up skips it
    from trainopt import _private

    _private.install()
