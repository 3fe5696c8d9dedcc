"""Why a skill was routed (route <- rule <- facts <- provenance), or why it was not (guards, unmet conditions)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from expert.facts import KINDS
from expert.kb import rule_catalogue
from expert.wording import fact_short
from knowledge import all_rows, question
from knowledge.errors import InputError
from knowledge.record import dataclass
from knowledge.schema import Absent, Between, Cross, Ge, Gt, Le, Lt, Present, RouteTo, unmet
from knowledge.skills import SKILL_BY_NAME
from knowledge.vocabulary import MEASURED_SOURCES, VOCABULARY

if TYPE_CHECKING:
    from expert.diagnosis import Outcome

MAX_DEPTH = 12
"""Derivation chains are a few links long; deeper means a cycle in the provenance, which we cut."""

_KEY = {"Obs": ("name", "value", "source"), "Finding": ("id",), "Route": ("skill", "rule", "role"),
        "Question": ("id",), "Boundary": ("pack", "rule"), "Block": ("skill", "rule", "role"),
        "Flag": ("name", "rule"), "Declined": ("question",), "Context": ("origin",),
        "Closed": ("reason",)}


@dataclass
class Node:
    """One node of an explanation tree.

    Attributes:
        kind: ``route``, ``rule``, ``fact``, ``source``, ``guard``, ``row``, ``condition``, ``note``.
        label: One line for the tree view.
        data: The structured details (JSON-ready).
        children: Sub-nodes.
    """

    kind: str
    label: str
    data: dict[str, Any] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-ready view of this node and its children."""
        return {"kind": self.kind, "label": self.label, **self.data,
                "children": [c.as_dict() for c in self.children]}


@dataclass
class Explanation:
    """The answer to ``explain(skill)`` or ``explain(skill, why_not=True)``.

    Attributes:
        skill: The skill asked about.
        why_not: Whether this is a why-not explanation.
        routed: Whether the skill is in the plan.
        role: Its role when routed.
        summary: One sentence.
        nodes: The tree roots.
    """

    skill: str
    why_not: bool
    routed: bool
    role: str | None
    summary: str
    nodes: list[Node]

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-ready view."""
        return {"skill": self.skill, "question": "why_not" if self.why_not else "why", "routed": self.routed,
                "role": self.role, "summary": self.summary, "tree": [n.as_dict() for n in self.nodes]}

    def text(self, verbose: bool = False, width: int | None = None) -> str:
        """Render the explanation as an indented tree.

        Args:
            verbose: Also show the rows that what is known already rules out (why-not).
            width: Wrap long labels to this many columns, continuing under the label (None: no wrapping).
        """

        def para(text: str) -> list[str]:
            return textwrap.wrap(text, width) if width else [text]

        shown, hidden = self._visible(verbose)
        lines = para(self.summary)
        for i, n in enumerate(shown):
            _draw(n, "", i == len(shown) - 1, lines, width)
        if hidden:
            lines += para(f"({hidden} more row{'s' if hidden > 1 else ''} route here but contradict what is known; "
                          "--verbose or --format json lists them)")
        return "\n".join(lines) + "\n"

    def _visible(self, verbose: bool) -> tuple[list[Node], int]:
        if verbose or not self.why_not:
            return self.nodes, 0
        shown = [n for n in self.nodes if n.kind != "row" or n.data.get("could_apply", True)]
        return shown, len(self.nodes) - len(shown)

    def rich_tree(self, verbose: bool = False) -> Any:
        """The explanation as a ``rich.tree.Tree`` (what a terminal gets: wrapped, with guides)."""
        # Deferred for cost: rich is only needed on a terminal, and the consult prompt must not import it.
        from rich.text import Text
        from rich.tree import Tree

        shown, hidden = self._visible(verbose)
        root = Tree(Text(self.summary, style="bold"), guide_style="dim")

        def add(parent: Any, n: Node) -> None:
            style = {"route": "bold", "guard": "yellow", "row": "", "condition": "italic"}.get(n.kind, "")
            branch = parent.add(Text(n.label, style=style))
            for c in n.children:
                add(branch, c)

        for n in shown:
            add(root, n)
        if hidden:
            root.add(Text(f"({hidden} more rows route here but contradict what is known; --verbose lists them)",
                          style="dim"))
        return root

    def __str__(self) -> str:
        return self.text()


def _draw(n: Node, prefix: str, last: bool, lines: list[str], width: int | None = None) -> None:
    head = prefix + ("└─ " if last else "├─ ")
    child_prefix = prefix + ("   " if last else "│  ")
    if width is None or len(head) + len(n.label) <= width:
        lines.append(head + n.label)
    else:
        cont = child_prefix + ("│  " if n.children else "   ")
        lines += textwrap.wrap(n.label, max(width, len(cont) + 20), initial_indent=head, subsequent_indent=cont,
                               break_on_hyphens=False) or [head]
    for i, c in enumerate(n.children):
        _draw(c, child_prefix, i == len(n.children) - 1, lines, width)


# ---------------------------------------------------------------------------------------------------
# Facts and firings, from the public trail
# ---------------------------------------------------------------------------------------------------


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    if a.get("kind") != b.get("kind"):
        return False
    keys = _KEY.get(a.get("kind", ""), tuple(k for k in a if k != "kind"))
    return all(a.get(k) == b.get(k) for k in keys)


def final_facts(c: Outcome) -> list[dict[str, Any]]:
    """Replay the trail: the consultation's observations, plus what firings asserted, minus what they retracted.

    Within one firing the retractions go first: a rule that replaces a fact (a boundary redeclared joint, under
    the same pack and rule, which is all ``_same`` compares) retracts the old one and asserts the new one, and
    replaying the assertion first would let the retraction delete the fact just asserted.
    """
    facts: list[dict[str, Any]] = [{"kind": "Obs", **o.as_dict()} for _, o in sorted(c.observations.items())]
    probe_only = bool(facts) and all(f["source"].startswith(MEASURED_SOURCES) for f in facts)
    facts.append({"kind": "Context", "origin": "probe" if probe_only else "user"})
    for a in c.asked:
        if a["answer"] is None:
            facts.append({"kind": "Declined", "question": a["question"]})
    if getattr(c.diagnosis, "concluded", None):
        facts.append({"kind": "Closed", "reason": c.diagnosis.concluded})
    for f in c.trace:
        for r in f["retracted"]:
            facts = [x for x in facts if not _same(x, r)]
        for a in f["asserted"]:
            facts.append(dict(a))
    return facts


def _asserted_by(trace: list[dict[str, Any]], fact: Mapping[str, Any]) -> dict[str, Any] | None:
    for f in trace:
        if any(_same(a, fact) for a in f["asserted"]):
            return f
    return None


def _rule_label(rec: Mapping[str, Any], info: Any) -> tuple[str, dict[str, Any]]:
    cite = rec.get("cite") or {}
    where = f"{cite.get('seed', '')} · {cite.get('table', '')} · {cite.get('row', '')}" if cite else "core"
    rationale = info.rationale if info else ""
    data = {"rule": rec["rule"], "seq": rec["seq"], "rule_kind": rec["kind"], "family": rec["family"],
            "cite": cite, "rationale": rationale}
    return f"rule {rec['rule']} (firing #{rec['seq']}; {where}): {rationale}".rstrip(": "), data


class _Builder:
    """Builds derivation trees for one consultation."""

    def __init__(self, c: Outcome) -> None:
        self.c = c
        self.trace = c.trace
        self.cat = rule_catalogue()
        self.obs = c.observations

    def firing(self, rec: Mapping[str, Any], depth: int, seen: frozenset[int]) -> Node:
        info = self.cat.get(rec["rule"])
        label, data = _rule_label(rec, info)
        node = Node("rule", label, data)
        if depth >= MAX_DEPTH or rec["seq"] in seen:
            node.children.append(Node("note", "(derivation already shown above)"))
            return node
        seen = seen | {rec["seq"]}
        conds = {}
        row = getattr(info, "row", None)
        if row is not None and hasattr(row, "conditions"):
            conds = row.conditions()
        for m in rec["matched"]:
            node.children.append(self.fact(m, conds, depth + 1, seen))
        return node

    def fact(self, m: Mapping[str, Any], conds: Mapping[str, Any], depth: int, seen: frozenset[int]) -> Node:
        kind = m.get("kind")
        data = {k: v for k, v in m.items() if k != "kind"}
        if kind != "Obs":
            node = Node("fact", fact_short(m), {"fact": kind, **data})
            rec = _asserted_by(self.trace, m)
            if rec is not None:
                node.children.append(self.firing(rec, depth, seen))
            elif kind == "Declined":
                node.children.append(Node("source", f"you skipped question {m['question']}"))
            elif kind == "Context":
                node.children.append(Node("source", "the consultation itself (who supplied the observations)"))
            elif kind == "Closed":
                node.children.append(Node("source", f"asking stopped ({m.get('reason')})"))
            return node
        label = f"{m['name']} = {m['value']!r}"
        cond = conds.get(m["name"])
        if isinstance(cond, (Lt, Le, Gt, Ge, Between)):
            label += f"  [condition {cond.describe()}; threshold source: {getattr(cond, 'source', '') or 'row'}]"
            data["threshold"] = cond.describe()
            data["threshold_source"] = getattr(cond, "source", "")
        node = Node("fact", label, data)
        node.children.append(self.source(m, depth, seen))
        return node

    def source(self, m: Mapping[str, Any], depth: int, seen: frozenset[int]) -> Node:
        src = str(m.get("source", ""))
        kind, _, rest = src.partition(":")
        if kind == "answer":
            q = question(rest)
            text = f' "{q.text}"' if q else ""
            return Node("source", f"your answer to {rest}{text}", {"source": src, "question": rest})
        if kind == "text":
            complaint = next((t for t in self.c.complaints if rest.lower() in t.lower()), None)
            data = {"source": src, "phrase": rest}
            if complaint:
                data["complaint"] = complaint
            return Node("source", f'the phrase "{rest}" in your complaint', data)
        if kind == "probe":
            o = self.obs.get(m["name"])
            ev = dict(o.evidence) if o is not None and o.evidence else {}
            measured = ", ".join(f"{k}={v}" for k, v in ev.items())
            return Node("source", f"probe {rest}" + (f" measured {measured}" if measured else ""),
                        {"source": src, "probe": rest, "measured": ev})
        if kind == "derived":
            node = Node("source", f"derived by {rest}", {"source": src, "rule": rest})
            rec = _asserted_by(self.trace, m)
            if rec is not None:
                node.children.append(self.firing(rec, depth, seen))
            return node
        return Node("source", "declared input (API or JSON)" if src == "declared" else src, {"source": src})


# ---------------------------------------------------------------------------------------------------
# why / why not
# ---------------------------------------------------------------------------------------------------


QUESTION = "question"
"""What to explain instead of a skill: why the pending question is the one asked."""


def explain(c: Outcome, skill: str, why_not: bool = False) -> Explanation:
    """Explain why ``skill`` was routed, or with ``why_not`` why it was not (``"question"``: the pending question).

    Args:
        c: The consultation (run on demand).
        skill: A skill or cross-pack target name, or ``"question"``.
        why_not: Explain the absence (guards that blocked it, rows whose conditions did not hold).

    Raises:
        InputError: Unknown skill.
    """
    if skill == QUESTION:
        return explain_question(c)
    if skill not in SKILL_BY_NAME:
        raise InputError(f"unknown skill {skill!r}",
                         hint="skills: " + ", ".join(SKILL_BY_NAME) + f" (or {QUESTION!r}: why this question)")
    d = c.diagnosis
    route = next((r for r in d.routes if r["skill"] == skill), None)
    b = _Builder(c)
    if not why_not:
        return _why(b, skill, route)
    return _why_not(b, skill, route)


def _why(b: _Builder, skill: str, route: dict[str, Any] | None) -> Explanation:
    if route is None:
        return Explanation(skill, False, False, None,
                           f"{skill} is not in the plan; ask why-not (--why-not) to see what kept it out.", [])
    pos = b.c.diagnosis.plan.index(skill) + 1
    root = Node("route", f"route {skill} ({route['role']}, step {pos} of the plan, pack {route['pack']}): "
                f"{route['why']}", {"skill": skill, "role": route["role"], "pack": route["pack"],
                                    "why": route["why"], "step": pos})
    for rule in route.get("rules") or [route["rule"]]:
        rec = next((f for f in b.trace if f["rule"] == rule
                    and any(a.get("kind") == "Route" and a.get("skill") == skill for a in f["asserted"])), None)
        if rec is not None:
            root.children.append(b.firing(rec, 1, frozenset()))
    root.children.extend(_guards(b, skill))
    return Explanation(skill, False, True, route["role"],
                       f"Why {skill}: routed as {route['role']} by {', '.join(route.get('rules') or [route['rule']])}.",
                       [root])


def explain_question(c: Outcome) -> Explanation:
    """Why the pending question is asked: what it is for and which open candidate causes it separates.

    Also the other questions that applied, each with the facts that made it apply and the share of the choice
    between first stops it would have settled. Read from the audit trail: the question's firing asserts the
    ``Question`` fact that holds the choice and its reasons.
    """
    d = c.diagnosis
    if d.question is None:
        return Explanation(QUESTION, False, False, None, f"No question is pending (status {d.status}).", [])
    b = _Builder(c)
    rec = next((f for f in b.trace if f["rule"] == d.question.id), None)
    asked = next((a for a in rec["asserted"] if a.get("kind") == "Question"), {}) if rec else {}
    root = Node("question", f"question {d.question.id}: {d.question.text}",
                {"question": d.question.id, "sets": d.question.sets, "why": d.question.why,
                 "chosen": d.question.chosen, "open_causes": asked.get("open_causes")})
    root.children.append(Node("note", f"what the answer tells: {d.question.why}", {"cite": d.question.cite}))
    rows = {r.id: r for r in all_rows()}
    for rid in asked.get("separates", ()):
        row = rows.get(rid)
        cond = row.conditions().get(d.question.sets) if row is not None else None
        stops = sorted({a.skill for a in row.then if isinstance(a, RouteTo) and a.role == "primary"}) \
            if row is not None else []
        wants = f"{d.question.sets} {cond.describe()}" if cond is not None else "its conditions"
        root.children.append(Node("row", f"candidate {rid} (first stop: {', '.join(stops) or 'none'}) needs {wants}",
                                  {"rule": rid, "first_stop": stops,
                                   "condition": cond.describe() if cond is not None else None}))
    values = {f["name"]: f["value"] for f in final_facts(c) if f.get("kind") == "Obs"}
    for qid, gain in zip(asked.get("considered", ()), asked.get("gains", ())):
        other = question(qid)
        if qid == d.question.id or other is None:
            continue
        node = Node("fact", f"also applied: {qid} ({other.text}); it would settle {gain:.0%}",
                    {"question": qid, "gain": gain})
        for name in sorted(other.conditions()):
            if name in values:
                node.children.append(Node("fact", f"{name} = {values[name]!r}", {"observation": name,
                                                                                 "value": values[name]}))
        root.children.append(node)
    if rec is not None:
        root.children.append(b.firing(rec, 1, frozenset()))
    summary = f"Why question {d.question.id}: {d.question.chosen or d.question.why}"
    return Explanation(QUESTION, False, False, None, summary, [root])


def _guards(b: _Builder, skill: str) -> list[Node]:
    """Guard firings that removed or demoted a route to ``skill``."""
    out = []
    for f in b.trace:
        if f["kind"] != "core":
            continue
        if not any(r.get("kind") == "Route" and r.get("skill") == skill for r in f["retracted"]):
            continue
        block = next((m for m in f["matched"] if m.get("kind") == "Block"), None)
        demoted = any(a.get("kind") == "Route" for a in f["asserted"])
        what = "demoted to secondary" if demoted else "removed"
        reason = block.get("reason", "") if block else ""
        label = f"guard {f['rule']} {what} the route (firing #{f['seq']})" + (f": {reason}" if reason else "")
        node = Node("guard", label, {"rule": f["rule"], "action": what, "reason": reason,
                                     "blocked_by": block.get("rule") if block else None})
        if block is not None:
            rec = _asserted_by(b.trace, block)
            if rec is not None:
                node.children.append(b.firing(rec, 1, frozenset()))
        out.append(node)
    return out


def _why_not(b: _Builder, skill: str, route: dict[str, Any] | None) -> Explanation:
    facts = final_facts(b.c)
    values = {f["name"]: f["value"] for f in facts if f.get("kind") == "Obs"}
    fired = {f["rule"] for f in b.trace}
    nodes: list[Node] = []
    guards = _guards(b, skill)
    exclusive = sorted((f for f in facts if f.get("kind") == "Boundary" and not f.get("joint")),
                       key=lambda f: f["rule"])
    # Standing guards that would block any future route, even if no route was derived to be removed.
    for blk in (f for f in facts if f.get("kind") == "Block" and f.get("skill") == skill):
        if not any(g.data.get("blocked_by") == blk.get("rule") for g in guards):
            node = Node("guard", f"guard from {blk['rule']} forbids {skill} ({blk.get('role', 'any')}): "
                        f"{blk.get('reason', '')}", {"rule": blk["rule"], "reason": blk.get("reason", ""),
                                                      "role": blk.get("role", "any")})
            rec = _asserted_by(b.trace, blk)
            if rec is not None:
                node.children.append(b.firing(rec, 1, frozenset()))
            guards.append(node)
    nodes.extend(guards)

    want_primary = route is not None  # routed already: what would have made it primary
    candidates: list[Node] = []
    for row in all_rows():
        targets = [a for a in row.then if isinstance(a, RouteTo) and a.skill == skill]
        # a cross-pack target is reached through boundary rows as well as routes
        boundaries = [a for a in row.then if isinstance(a, Cross) and a.pack == skill and route is None]
        if not (targets or boundaries) or (want_primary and targets and all(t.role != "primary" for t in targets)):
            continue
        roles = "/".join(sorted({t.role for t in targets}
                                | {"joint boundary" if c.joint else "boundary" for c in boundaries}))
        if row.id in fired:
            if route is None:
                nodes.append(Node("row", f"row {row.id} fired ({roles}), but its route did not stand "
                                  "(see the guard above)", {"rule": row.id, "fired": True, "role": roles}))
            continue
        missing = _unmet(row, values, facts)
        blocked = [m for m in missing if m.data.get("contradicted")]
        node = Node("row", f"row {row.id} would route here ({roles}); {row.rationale}",
                    {"rule": row.id, "fired": False, "role": roles, "cite": row.cite.as_dict(),
                     "unmet": [m.data for m in missing], "could_apply": not blocked, "distance": len(missing)})
        node.children.extend(missing)
        candidates.append(node)
    # Nearest first: rows that could still apply (only missing facts stand in the way), fewest gaps first;
    # rows that what is known already rules out come last (the text view leaves them out).
    candidates.sort(key=lambda n: (not n.data["could_apply"], n.data["distance"], n.data["rule"]))
    nodes.extend(candidates)

    if route is not None:
        summary = (f"{skill} is routed ({route['role']}); "
                   + ("rows that would make it primary and why they did not fire:" if nodes
                      else "no other row routes there."))
    elif guards:
        summary = f"Why not {skill}: a guard blocked it."
    elif exclusive:
        summary = (f"Why not {skill}: this belongs to another pack ("
                   + ", ".join(f"{b['pack']} [{b['rule']}]" for b in exclusive)
                   + "), so no question of ours is asked and nothing here is routed.")
    elif nodes:
        summary = f"Why not {skill}: no row that routes there had all its conditions met."
    else:
        summary = f"Why not {skill}: no knowledge row routes to it directly."
    return Explanation(skill, True, route is not None, route["role"] if route else None, summary, nodes)


def _unmet(row: Any, values: Mapping[str, Any], facts: list[dict[str, Any]]) -> list[Node]:
    """List the conditions of ``row`` that do not hold on the final facts, each as a node.

    The decision is ``knowledge.schema.unmet``, the same check the engine compiles, so why-not never names
    a condition the engine would have accepted.
    """
    out = []
    for u in unmet(row, values, lambda ref: _has(ref, facts)):
        if u.ref:
            key = "unless" if u.ref in row.unless else "need"
            # An established ``unless`` fact rules the row out; a missing ``need`` may still come.
            data: dict[str, Any] = {key: u.ref}
            if key == "unless":
                data["contradicted"] = True
            out.append(Node("condition", u.why, data))
            continue
        label = u.why
        if not u.known and not isinstance(u.cond, Absent):
            q = VOCABULARY[u.name].question if u.name in VOCABULARY else None
            ask = f" (question {q} asks for it)" if q else ""
            wanted = "" if isinstance(u.cond, Present) else f" (the row needs {u.name} {u.cond.describe()})"
            label = f"{u.name} is not known{wanted}{ask}"
        # A known value that fails the condition (or a value that must be unknown) rules the row out.
        out.append(_cond_node(u.name, u.cond, label, values, contradicted=u.known))
    return out


def _cond_node(name: str, cond: Any, label: str, values: Mapping[str, Any], contradicted: bool = False) -> Node:
    data: dict[str, Any] = {"observation": name, "condition": cond.describe(), "actual": values.get(name),
                            "contradicted": contradicted}
    src = getattr(cond, "source", "")
    if src:
        data["threshold_source"] = src
        label += f" (threshold source: {src})"
    return Node("condition", label, data)


def _has(ref: str, facts: list[dict[str, Any]]) -> bool:
    kind, _, key = ref.partition(":")
    if kind not in KINDS:
        return False
    cls, fld = KINDS[kind]
    return any(f.get("kind") == cls.__name__ and (key in ("", "*") or f.get(fld) == key) for f in facts)
