"""Render a consultation as the Training Diagnosis report: plain text, Markdown or JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from expert.diagnosis import SCHEMA_VERSION
from expert.errors import InputError

if TYPE_CHECKING:
    from expert.consultation import Consultation

FORMATS = ("text", "markdown", "json")

STATUS_WORDS = {
    "diagnosed": "diagnosed",
    "needs_answer": "needs one more answer",
    "out_of_scope": "belongs to another pack",
    "insufficient": "not enough evidence to route",
    "clean": "no problem found",
}


def plain(value: Any) -> Any:
    """Turn frozendicts, tuples, sets and other non-JSON values into plain JSON types, recursively."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items() if not str(k).startswith("__")}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=repr)
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if hasattr(value, "item"):  # numpy / torch scalars in probe evidence
        try:
            return plain(value.item())
        except Exception:  # noqa: BLE001 - fall back to the text form
            pass
    return str(value)


def _declined(c: Consultation) -> list[str]:
    return [a["question"] for a in c.asked if a["answer"] is None]


def as_json(c: Consultation) -> dict[str, Any]:
    """Build the JSON report: the keys of ARCHITECTURE.md plus observations, asked, revisions and notes.

    The ``observations`` and ``declined`` keys are enough to rebuild the consultation
    (``trainopt explain --report``), so a saved report can be explained later.
    """
    from knowledge.skills import SKILL_BY_NAME

    d = c.diagnosis
    routes = []
    for r in d.routes:
        item = dict(r)
        skill = SKILL_BY_NAME.get(r["skill"])
        item["sheet"] = skill.sheet if skill else ""
        routes.append(item)
    out = {
        "schema_version": SCHEMA_VERSION,
        "status": d.status,
        "question": d.question.as_dict() if d.question else None,
        "symptom": d.symptom,
        "findings": d.findings,
        "routes": routes,
        "plan": d.plan,
        "boundary": d.boundary,
        "fixes": d.fixes,
        "avoid": d.avoid,
        "trace": c.trace,
        "needs_action": d.needs_action,
        "complaints": c.complaints,
        "observations": {n: {k: v for k, v in o.as_dict().items() if k != "name"}
                         for n, o in sorted(c.observations.items())},
        "declined": _declined(c),
        "asked": d.asked,
        "revisions": c.revisions,
        "notes": d.notes,
    }
    return plain(out)


def render(c: Consultation, fmt: str = "text") -> str:
    """Render the report.

    Args:
        c: The consultation (run on demand).
        fmt: ``text``, ``markdown`` or ``json``.

    Raises:
        InputError: Unknown format.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown report format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps(as_json(c), indent=2, sort_keys=False)
    return _Writer(fmt == "markdown").document(as_json(c))


def render_trail(trace: list[dict[str, Any]], markdown: bool = False) -> str:
    """Render the audit trail, one line per firing: sequence, rule, what it matched and what it asserted."""
    if not trace:
        return "(no rule fired)"
    lines = []
    for f in trace:
        matched = ", ".join(_fact_short(m) for m in f["matched"]) or "-"
        asserted = ", ".join(_fact_short(a) for a in f["asserted"]) or "-"
        line = f"{f['seq']:>3}. {f['rule']} [{f['family']}]  matched {matched}  =>  {asserted}"
        if f.get("retracted"):
            line += "  (retracted " + ", ".join(_fact_short(r) for r in f["retracted"]) + ")"
        lines.append(("- `" + line.strip() + "`") if markdown else line)
    return "\n".join(lines)


def _fact_short(f: Mapping[str, Any]) -> str:
    kind = f.get("kind", "?")
    if kind == "Obs":
        return f"{f['name']}={f['value']!r} ({f.get('source', '')})"
    if kind == "Route":
        return f"route {f['skill']} ({f['role']})"
    if kind == "Finding":
        return f"finding {f['id']} ({f['severity']})"
    if kind == "Question":
        return f"question {f['id']}"
    if kind == "Boundary":
        return f"boundary {f['pack']}"
    if kind == "Block":
        return f"guard against {f['skill']} ({f.get('role', 'any')})"
    if kind == "Flag":
        return f"flag {f['name']}"
    if kind == "Declined":
        return f"declined {f['question']}"
    if kind == "Context":
        return f"origin {f.get('origin')}"
    return kind


def _source_words(source: str) -> str:
    kind, _, rest = source.partition(":")
    if kind == "answer":
        return f"your answer to {rest}"
    if kind == "text":
        return f'your complaint ("{rest}")'
    if kind == "probe":
        return f"probe {rest}"
    if kind == "derived":
        return f"rule {rest}, which derived it"
    if kind == "declared":
        return "declared input"
    return source


class _Writer:
    """Lays out the report sections for plain text or Markdown."""

    def __init__(self, markdown: bool) -> None:
        self.md = markdown
        self.out: list[str] = []

    def title(self, text: str) -> None:
        self.out += [f"## {text}", ""] if self.md else [text, "=" * len(text), ""]

    def section(self, text: str) -> None:
        self.out += [f"### {text}", ""] if self.md else [text, "-" * len(text)]

    def line(self, text: str = "") -> None:
        self.out.append(text)

    def bullet(self, text: str, level: int = 0, width: int = 2) -> None:
        # ``width``: the indent of a nested level (3 under a Markdown "1. " item).
        self.out.append((" " * (width if self.md else 2) * level) + ("- " if self.md else "  * ") + text)

    def gap(self) -> None:
        # Markdown lists must be separated from paragraphs by a blank line; plain text needs none.
        if self.md:
            self.out.append("")

    def label(self, name: str, text: str) -> None:
        # Markdown: a list item per label, so consecutive labels do not merge into one paragraph.
        self.out.append(f"- **{name}:** {text}".rstrip() if self.md else f"  {name}: {text}".rstrip())

    def code(self, text: str) -> None:
        if self.md:
            self.out += ["```python", text.rstrip(), "```"]
        else:
            self.out += ["    " + ln for ln in text.rstrip().splitlines()]

    def end(self) -> None:
        self.out.append("")

    def tick(self, s: str) -> str:
        return f"`{s}`" if self.md else s

    # ------------------------------------------------------------------ the document

    def document(self, r: dict[str, Any]) -> str:
        self.title("Training Diagnosis")
        self.label("Status", STATUS_WORDS.get(r["status"], r["status"]))
        self.end()
        self._symptom(r)
        self._questions(r)
        self._root_cause(r)
        self._fixes(r)
        self._avoid(r)
        self._plan(r)
        self._boundary(r)
        self._notes(r)
        self._next(r)
        return "\n".join(self.out).rstrip() + "\n"

    def _symptom(self, r: dict[str, Any]) -> None:
        self.section("Symptom Identified")
        s = r["symptom"]
        if s:
            named = "" if s["label"] == s["value"] else f"{self.tick(s['value'])}; "
            self.line(f"{s['label']} ({named}from {_source_words(s['source'])})")
        else:
            self.line("not identified yet")
        for text in r["complaints"]:
            self.line(f'Complaint: "{text}"')
        self.end()

    def _questions(self, r: dict[str, Any]) -> None:
        self.section("Diagnostic Questions Asked")
        if r["asked"]:
            for i, a in enumerate(r["asked"], 1):
                ans = "skipped" if a["answer"] is None else self.tick(f"{a['sets']} = {a['answer']!r}")
                self.line(f"{i}. {a['text']} -> {ans}")
        else:
            self.line("none")
        others = {n: o for n, o in r["observations"].items() if not o["source"].startswith("answer:")}
        if others:
            self.gap()
            self.line("Also known:")
            self.gap()
            for n, o in others.items():
                fact = self.tick(f"{n} = {o['value']!r}")
                self.bullet(f"{fact} ({_source_words(o['source'])})")
        self.end()

    def _root_cause(self, r: dict[str, Any]) -> None:
        self.section("Root Cause")
        if not r["findings"]:
            self.line("not established" + (" yet: answer the question below" if r["question"] else ""))
            self.end()
            return
        for f in r["findings"]:
            self.label("Category", f"{f['category']} ({f['severity']})")
            self.label("Specific Issue", f"{f['issue']} [{f['id']}]")
            self.label("Evidence", "" if f["evidence"] else "none recorded")
            for e in f["evidence"]:
                fact = self.tick(f"{e['observation']} = {e['value']!r}")
                text = f"{fact} from {_source_words(e['source'])}"
                if "threshold" in e:
                    text += f"; threshold {e['threshold']} (source: {e['threshold_source']})"
                self.bullet(text, level=1)
                if e.get("measured"):
                    measured = ", ".join(f"{k}={v}" for k, v in e["measured"].items())
                    self.bullet(f"measured: {measured}", level=2)
            if f.get("source"):
                src = f["source"]
                self.label("Knowledge", f"{src['table']} / {src['row']} ({src['source']})")
            self.end()

    def _fixes(self, r: dict[str, Any]) -> None:
        self.section("Fix")
        if not r["fixes"] and r["routes"]:
            self.line("follow the ordered plan below; each skill holds the fix for its part")
        elif not r["fixes"]:
            self.line("none yet")
        for x in r["fixes"]:
            self.line(f"{x['explain']} [{x['rule']}]")
            if x.get("code"):
                self.code(x["code"])
        self.end()

    def _avoid(self, r: dict[str, Any]) -> None:
        self.section("What NOT to Do")
        if not r["avoid"]:
            self.line("nothing specific recorded for this case")
        for a in r["avoid"]:
            self.bullet(a)
        self.end()

    def _plan(self, r: dict[str, Any]) -> None:
        self.section("Reference (ordered plan)")
        if not r["routes"]:
            self.line("no skill routed yet")
        for i, x in enumerate(r["routes"], 1):
            where = f" (section: {x['section']})" if x.get("section") else ""
            self.line(f"{i}. {self.tick(x['skill'])} [{x['role']}, pack {x['pack']}]{where}")
            self.bullet(f"why: {x['why']}", level=1, width=3)
            self.bullet(f"rule: {', '.join(x.get('rules') or [x['rule']])}", level=1, width=3)
            self.bullet(f"load: {x['sheet']}", level=1, width=3)
        self.end()

    def _boundary(self, r: dict[str, Any]) -> None:
        if not r["boundary"]:
            return
        self.section("Cross-Pack Boundary")
        for b in r["boundary"]:
            share = "shared with this pack" if b["joint"] else "belongs there"
            target = f", load {b['target']}" if b.get("target") else ""
            self.bullet(f"{self.tick(b['pack'])} ({share}{target}): {b['why']} [{b['rule']}]")
        self.end()

    def _notes(self, r: dict[str, Any]) -> None:
        if not r["notes"]:
            return
        self.section("Notes")
        for n in r["notes"]:
            self.bullet(f"{n['name']}: {n['detail']} [{n['rule']}]" if n["detail"] else f"{n['name']} [{n['rule']}]")
        self.end()

    def _next(self, r: dict[str, Any]) -> None:
        q = r["question"]
        if not q:
            return
        self.section("Answer Next")
        self.line(f"{q['text']} [{q['id']}]")
        if q["choices"]:
            self.gap()
            for ch in q["choices"]:
                self.bullet(f"{self.tick(ch['value'])}: {ch['label']}")
            self.gap()
        self.label("Why", q["why"])
        key = self.tick(f'"{q["sets"]}": <value>')
        self.label("How", f"answer it in `trainopt consult`, or add {key} to the observations JSON and run "
                   "`trainopt diagnose` again.")
        self.end()
