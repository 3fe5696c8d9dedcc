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

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

INTERNAL = ("expert", "knowledge", "probes")
PREFIX = "trainopt._isolated."
ROOT = Path(__file__).resolve().parent.parent
"""The folder that holds ``trainopt/`` and its internal packages (site-packages, or the source checkout)."""


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


def _rename(name: str) -> str:
    return PREFIX + name if name.split(".")[0] in INTERNAL else name


def _internal_string(node: ast.expr) -> bool:
    """A string (or f-string) that starts with an internal package name and a dot, e.g. f"knowledge.{x}"."""
    first = node.values[0] if isinstance(node, ast.JoinedStr) and node.values else node
    return (isinstance(first, ast.Constant) and isinstance(first.value, str)
            and first.value.split(".")[0] in INTERNAL and "." in first.value)


class _Rewrite(ast.NodeTransformer):
    """Point the absolute imports of internal modules at ``trainopt._isolated``."""

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.ImportFrom:
        if node.level == 0 and node.module:
            node.module = _rename(node.module)
        return node

    def visit_Import(self, node: ast.Import) -> Any:
        out: list[ast.stmt] = []
        for alias in node.names:
            top = alias.name.split(".")[0]
            if top not in INTERNAL:
                out.append(ast.Import(names=[alias]))
            elif alias.asname:
                out.append(ast.Import(names=[ast.alias(_rename(alias.name), alias.asname)]))
            else:
                # `import probes.x` binds `probes`: load the submodule, then bind the private top package.
                if alias.name != top:
                    out.append(ast.Import(names=[ast.alias(_rename(alias.name), None)]))
                out.append(ast.Import(names=[ast.alias(_rename(top), top)]))
        return [ast.copy_location(s, node) for s in out]

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called == "import_module" and node.args and _internal_string(node.args[0]):
            arg = node.args[0]
            if isinstance(arg, ast.JoinedStr):
                arg.values[0] = ast.Constant(PREFIX + arg.values[0].value)  # type: ignore[union-attr]
            else:
                node.args[0] = ast.copy_location(ast.Constant(PREFIX + arg.value), arg)  # type: ignore[union-attr]
        return node


class _Loader(importlib.abc.Loader):
    """Compiles an internal module's source with its imports rewritten.

    No bytecode cache: the shared copy's ``__pycache__`` must keep the plain imports.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def get_source(self, fullname: str) -> str:
        return self.path.read_text(encoding="utf-8")

    def exec_module(self, module: ModuleType) -> None:
        tree = _Rewrite().visit(ast.parse(self.get_source(module.__name__), str(self.path)))
        code = compile(ast.fix_missing_locations(tree), str(self.path), "exec", dont_inherit=True)
        exec(code, module.__dict__)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``trainopt._isolated.<internal>...`` in trainopt's own folders, nowhere else."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(PREFIX):
            return None
        parts = fullname[len(PREFIX):].split(".")
        if parts[0] not in INTERNAL:
            return None
        base = ROOT.joinpath(*parts)
        if (base / "__init__.py").is_file():
            return importlib.util.spec_from_file_location(fullname, base / "__init__.py", loader=_Loader(
                base / "__init__.py"), submodule_search_locations=[str(base)])
        if base.with_suffix(".py").is_file():
            return importlib.util.spec_from_file_location(fullname, base.with_suffix(".py"),
                                                          loader=_Loader(base.with_suffix(".py")))
        return None


if ISOLATED and not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.insert(0, _Finder())
