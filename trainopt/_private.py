"""trainopt's private copy of its internals (``trainopt._isolated.*``), for a name clash (see ``trainopt._boot``)."""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from trainopt._names import INTERNAL, PREFIX, ROOT


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


def install() -> None:
    """Put the finder of ``trainopt._isolated.*`` first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
