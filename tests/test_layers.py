"""The house holds: imports run knowledge <- probes <- expert <- trainopt, with no cycle between modules.

Every import counts: at module level, inside functions, under ``TYPE_CHECKING``, relative or absolute, and a
module named as a string to ``importlib.import_module``. The checker is tested on a small synthetic tree first,
so a checker that sees nothing cannot pass for a clean house.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("knowledge", "probes", "expert", "trainopt")
"""Bottom to top: a module may import its own layer and the layers below it, never one above."""


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for pkg in LAYERS:
        for path in (root / pkg).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _targets(mod: str, is_pkg: bool, node: ast.AST, known: dict[str, Path]) -> list[str]:
    """The internal modules one import statement (or ``import_module("...")`` call) reaches."""
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = mod.split(".") if is_pkg else mod.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        # `from pkg import sub` reaches the submodule when there is one, else the package itself
        names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in known else prefix for a in node.names]
    elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
          and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        names = [node.args[0].value]
    out = []
    for name in names:
        while name and name not in known:  # `import probes.watcher.x` reaches the deepest module that exists
            name = name.rpartition(".")[0]
        if name and name.split(".")[0] in LAYERS:
            out.append(name)
    return out


def import_graph(root: Path) -> tuple[nx.DiGraph, list[tuple[str, int, str]]]:
    """Every import edge between internal modules, and the ones that run against the layer order."""
    known = _modules(root)
    graph = nx.DiGraph()
    graph.add_nodes_from(known)
    against = []
    for mod, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for target in _targets(mod, path.name == "__init__.py", node, known):
                if target != mod:
                    graph.add_edge(mod, target)
                if LAYERS.index(target.split(".")[0]) > LAYERS.index(mod.split(".")[0]):
                    against.append((mod, getattr(node, "lineno", 0), target))
    return graph, against


def cycles(graph: nx.DiGraph) -> list[list[str]]:
    """Groups of modules that import each other, directly or around a loop."""
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def test_no_import_runs_against_the_layers():
    _, against = import_graph(ROOT)
    assert not against, "imports against knowledge <- probes <- expert <- trainopt:\n" + "\n".join(
        f"  {m}:{line} imports {t}" for m, line, t in against)


def test_no_cycle_between_modules():
    found = cycles(import_graph(ROOT)[0])
    assert not found, f"modules importing each other: {found}"


def test_knowledge_imports_nothing_of_ours():
    graph, _ = import_graph(ROOT)
    out = sorted((m, t) for m, t in graph.edges if m.startswith("knowledge") and not t.startswith("knowledge"))
    assert not out, out


@pytest.fixture
def tangled(tmp_path: Path) -> Path:
    """A tiny tree with one import against the order (inside a function) and one cycle (under TYPE_CHECKING)."""
    files = {
        "knowledge/__init__.py": "",
        "knowledge/rows.py": "def f():\n    from expert.engine import run\n",
        "probes/__init__.py": "",
        "expert/__init__.py": "",
        "expert/engine.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from expert import report\n",
        "expert/report.py": "from .engine import x\nimport importlib\nimportlib.import_module('probes')\n",
        "trainopt/__init__.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_checker_finds_what_it_looks_for(tangled: Path):
    graph, against = import_graph(tangled)
    assert against == [("knowledge.rows", 2, "expert.engine")]
    assert cycles(graph) == [["expert.engine", "expert.report"]]
    assert ("expert.report", "probes") in graph.edges
