"""The skill graph (networkx) and the ordered plan built from several routes."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

from knowledge.errors import KnowledgeError
from knowledge.skills import GRAPH_FOR_SYMPTOM, GRAPHS, SCENARIOS, SKILLS

if TYPE_CHECKING:
    import networkx as nx

CACHE_NAME = "plan"


@cache
def skill_graph(graph: str = "diagnostic") -> nx.DiGraph:
    """Build one scenario graph: every skill is a node, every consecutive pair of a scenario order an edge.

    Edges read "consult before". Orders that would contradict each other (a new setup picks the optimizer
    before the LR, a convergence problem checks the LR before the optimizer) live in different graphs.

    Args:
        graph: ``diagnostic``, ``setup`` or ``multi_task``.

    Raises:
        KnowledgeError: The orders of this graph form a cycle (a defect in the knowledge).
    """
    import networkx as nx  # here, not at the top: a diagnosis reads the ranks from the cache (``_ranks``)

    if graph not in GRAPHS:
        raise KnowledgeError(f"unknown skill graph {graph!r}", hint=f"one of {', '.join(GRAPHS)}")
    g = nx.DiGraph(name=graph)
    for s in SKILLS:
        g.add_node(s.name, pack=s.pack, covers=s.covers, sheet=s.sheet)
    for sc in SCENARIOS:
        if sc.graph != graph:
            continue
        for a, b in zip(sc.order, sc.order[1:]):
            if g.has_edge(a, b):
                g[a][b]["scenarios"] = tuple(sorted({*g[a][b]["scenarios"], sc.name}))
            else:
                g.add_edge(a, b, scenarios=(sc.name,), why=sc.why)
    if not nx.is_directed_acyclic_graph(g):
        cycle = nx.find_cycle(g)
        raise KnowledgeError(f"skill graph {graph!r} has a cycle: {cycle}")
    return g


def _build_rank(graph: str) -> dict[str, int]:
    import networkx as nx

    g = skill_graph(graph)
    # A fixed key makes ties deterministic: the catalogue order, then the name.
    catalogue = {s.name: i for i, s in enumerate(SKILLS)}
    order = nx.lexicographical_topological_sort(g, key=lambda n: (catalogue[n], n))
    return {n: i for i, n in enumerate(order)}


@cache
def _ranks() -> dict[str, dict[str, int]]:
    """Every graph's topological rank of each skill, read from the user's cache when the sources match.

    Otherwise computed (networkx costs more to import than a whole diagnosis) and stored there (``expert.cache``).
    """
    from expert import cache as store

    # stored as plain data (``expert.cache.load_plain``): reading it back needs no JSON decoder, a module a
    # consultation would otherwise load for this alone
    ranks = store.load_plain(CACHE_NAME)
    if isinstance(ranks, dict) and set(ranks) == set(GRAPHS) and all(
            isinstance(r, dict) and all(type(k) is str and type(v) is int for k, v in r.items())
            for r in ranks.values()):
        return ranks
    ranks = {g: _build_rank(g) for g in GRAPHS}
    store.store_plain(CACHE_NAME, ranks)
    return ranks


def _rank(graph: str) -> dict[str, int]:
    if graph not in GRAPHS:
        return _build_rank(graph)  # raises the KnowledgeError naming the graphs
    return _ranks()[graph]


def graph_for(symptom: str | None) -> str:
    """The scenario graph that orders a plan for ``symptom``."""
    return GRAPH_FOR_SYMPTOM.get(symptom or "", "diagnostic")


def order_plan(routes: Iterable[tuple[str, str]], symptom: str | None = None) -> list[str]:
    """Order routed skills into one plan: primaries first, then the graph's order, deterministically.

    Args:
        routes: ``(skill, role)`` pairs; a skill routed as primary anywhere counts as primary.
        symptom: The symptom, which selects the scenario graph.

    Returns:
        Skill names, each once.
    """
    role: dict[str, str] = {}
    for skill, r in routes:
        if role.get(skill) != "primary":
            role[skill] = r
    rank = _rank(graph_for(symptom))
    return sorted(role, key=lambda s: (role[s] != "primary", rank.get(s, len(rank)), s))


def describe_graphs() -> dict[str, Any]:
    """The graphs and scenario orders, JSON-ready (for ``trainopt skills``)."""
    out: dict[str, Any] = {"skills": [{"name": s.name, "pack": s.pack, "covers": s.covers, "sheet": s.sheet}
                                      for s in SKILLS], "graphs": {}, "scenarios": []}
    for name in GRAPHS:
        g = skill_graph(name)
        out["graphs"][name] = {
            "edges": [{"before": a, "after": b, "scenarios": list(d["scenarios"])}
                      for a, b, d in sorted(g.edges(data=True))],
            "topological_order": [n for n, _ in sorted(_rank(name).items(), key=lambda kv: kv[1])
                                  if g.degree(n) > 0],
        }
    for sc in SCENARIOS:
        out["scenarios"].append({"name": sc.name, "graph": sc.graph, "order": list(sc.order), "why": sc.why,
                                 "cite": sc.cite.as_dict()})
    return out
