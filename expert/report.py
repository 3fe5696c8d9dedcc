"""Render a consultation as the Training Diagnosis report: plain text, Markdown or JSON."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from expert.diagnosis import MARKDOWN, SCHEMA_VERSION
from expert.wording import fact_short, fmt_number, fmt_value, plain, short_text, source_words
from knowledge.errors import InputError

if TYPE_CHECKING:
    from expert.diagnosis import Outcome

FORMATS = ("text", "markdown", "json")

STATUS_WORDS = {
    "diagnosed": "diagnosed",
    "needs_answer": "needs one more answer",
    "out_of_scope": "belongs to another pack",
    "insufficient": "not enough evidence to route",
    "clean": "no problem found",
}


def _declined(c: Outcome) -> list[str]:
    return [a["question"] for a in c.asked if a["answer"] is None]


def as_json(c: Outcome) -> dict[str, Any]:
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
        "tentative": d.tentative,
        "differential": d.differential,
        "complaints": c.complaints,
        "observations": {n: {k: v for k, v in o.as_dict().items() if k != "name"}
                         for n, o in sorted(c.observations.items())},
        "declined": _declined(c),
        "asked": d.asked,
        "revisions": c.revisions,
        "notes": d.notes,
    }
    if d.concluded:  # only when asking stopped with a question pending (see the schema)
        out["concluded"] = d.concluded
    if d.incomplete:  # only when a damaged log left gaps (see the schema)
        out["evidence_incomplete"] = d.incomplete
    suspects = getattr(c, "suspects", [])  # a consultation passed as its own outcome has them as a property
    if suspects:  # only when a complaint asked about a cause or suspected a setting (see the schema)
        out["suspected"] = [{"name": o.name, "value": o.value, "source": o.source} for o in suspects]
    return plain(out)


def render(c: Outcome, fmt: str = "text", *, verbose: bool = False, width: int | None = None) -> str:
    """Render the report.

    Args:
        c: The consultation (run on demand).
        fmt: ``text``, ``markdown`` or ``json``.
        verbose: Add every observation, the full threshold sources, the probes' measured values and the
            audit trail (text and Markdown; JSON always holds everything).
        width: Wrap text lines to this many columns (None: no wrapping, one logical line per line).

    Raises:
        InputError: Unknown format.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown report format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}")
    if fmt == "json":
        import json  # only this format: a text report (``consult``'s) does not load the encoder

        # A trailing newline, like every other format: shells and `cat` expect text files to end with one.
        return json.dumps(as_json(c), indent=2, sort_keys=False, allow_nan=False) + "\n"
    w = _Writer(fmt == "markdown", verbose)
    text = w.document(as_json(c))
    return wrap(text, width, keep=w.code_lines) if width and fmt == "text" else text


def wrap(text: str, width: int, keep: set[int] | frozenset[int] = frozenset()) -> str:
    """Wrap each line of ``text`` to ``width`` columns with rich, continuing under the line's own indent.

    Bullets (``* ``, ``- ``, ``1. ``) and labels (``Fix: ``) hang: their continuation lines start under the
    text, not the bullet. Lines whose index is in ``keep`` (code) are never wrapped.
    """
    from rich.console import Console
    from rich.text import Text

    console = Console(width=max(width, 40), no_color=True, highlight=False, emoji=False, markup=False)
    out = []
    for i, line in enumerate(text.splitlines()):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        m = re.match(r"(?:[*-] |\d+\. |[A-Z][A-Za-z ]{0,20}: )", body)
        hang = indent + (len(m.group(0)) if m else 0)
        if i in keep or len(line) <= width or hang >= width - 20:
            out.append(line)
            continue
        first, *rest = Text(body).wrap(console, width - indent)
        out.append(" " * indent + first.plain.rstrip())
        if rest:
            more = Text(" ".join(x.plain.strip() for x in rest)).wrap(console, width - hang)
            out += [" " * hang + x.plain.rstrip() for x in more]
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def print_report(c: Outcome, fmt: str, *, verbose: bool = False, err: bool = False) -> None:
    """Print the report for a person or a pipe: wrapped and lightly styled on a terminal, plain otherwise.

    Colour follows rich's rules: none when the output is not a terminal or ``NO_COLOR`` is set.
    """
    import sys

    from expert.stdio import echo

    stream = sys.stderr if err else sys.stdout
    tty = fmt == "text" and hasattr(stream, "isatty") and stream.isatty()
    if not tty:
        echo(render(c, fmt, verbose=verbose), nl=False, err=err)
        return
    import os

    from rich.console import Console

    console = Console(file=stream, highlight=False, emoji=False, markup=False, soft_wrap=True)
    # rich drops colours under NO_COLOR but keeps bold; the convention's users want no escapes at all.
    plain_text = bool(os.environ.get("NO_COLOR"))
    for line in render(c, fmt, verbose=verbose, width=min(console.width, 120)).splitlines():
        console.print(line, style="" if plain_text else _style(line))


def _style(line: str) -> str:
    if line and not line.startswith(" ") and not line[0].isdigit() and line[:1] not in "=-":
        return "bold"
    if "[critical]" in line:
        return "bold red"
    if "[warning]" in line:
        return "yellow"
    return ""


def diagnosis_markdown(d: Any) -> str:
    """Markdown for a :class:`~expert.consultation.Diagnosis` on its own (what Jupyter shows for it).

    A Diagnosis does not hold the observations or the trail, so this is the report without the questions
    asked and the "what was known" section.
    """
    from knowledge.skills import SKILL_BY_NAME

    routes = []
    for r in d.routes:
        skill = SKILL_BY_NAME.get(r["skill"])
        routes.append({**r, "sheet": skill.sheet if skill else ""})
    r = plain({"status": d.status, "symptom": d.symptom, "question": d.question.as_dict() if d.question else None,
               "findings": d.findings, "routes": routes, "plan": d.plan, "boundary": d.boundary, "fixes": d.fixes,
               "avoid": d.avoid, "asked": [], "notes": d.notes, "observations": {}, "complaints": [], "trace": [],
               "evidence_incomplete": d.incomplete, "concluded": d.concluded})
    return _Writer(True).document(r)


MARKDOWN[:] = [diagnosis_markdown]


def render_trail(trace: list[dict[str, Any]], markdown: bool = False) -> str:
    """Render the audit trail, one line per firing: sequence, rule, what it matched and what it asserted."""
    if not trace:
        return "(no rule fired)"
    lines = []
    for f in trace:
        matched = ", ".join(fact_short(m) for m in f["matched"]) or "-"
        asserted = ", ".join(fact_short(a) for a in f["asserted"]) or "-"
        line = f"{f['seq']:>3}. {f['rule']} [{f['family']}]  matched {matched}  =>  {asserted}"
        if f.get("retracted"):
            line += "  (retracted " + ", ".join(fact_short(r) for r in f["retracted"]) + ")"
        lines.append(("- `" + line.strip() + "`") if markdown else line)
    return "\n".join(lines)


def _where(measured: Mapping[str, Any]) -> str:
    """The layer or module a probe's value was measured on, when its evidence says."""
    for key in ("worst_layer", "module", "layer"):
        if isinstance(measured.get(key), str) and measured[key]:
            return measured[key]
    largest = measured.get("largest")
    if isinstance(largest, Mapping) and largest:
        return str(next(iter(largest)))
    return ""


def _threshold_ids(measured: Mapping[str, Any]) -> list[str]:
    th = measured.get("thresholds")
    return [str(k) for k in th] if isinstance(th, Mapping) else []


def evidence_line(e: Mapping[str, Any], *, verbose: bool = False, tick: Any = str) -> str:
    """One piece of evidence in words.

    Example: ``update_ratio measured 0.4 on fc2 > 0.1 (threshold MT-UPD-HIGH: ...); from probe update_ratio``.
    """
    name, value = e["observation"], fmt_value(e["observation"], e["value"])
    measured = e.get("measured") or {}
    src = str(e.get("source", ""))
    if src.startswith("probe:"):
        where = _where(measured)
        text = f"{tick(name)} measured {value}" + (f" on {tick(where)}" if where else "")
    else:
        text = f"{tick(name)} = {value}"
    if "threshold" in e:
        text += f" {e['threshold']}"
        source = str(e.get("threshold_source") or "")
        tid, sep, rest = source.partition(":")
        if sep and re.fullmatch(r"[A-Z]+(?:-[A-Z0-9]+)+", tid.strip()):
            label = f"threshold {tid.strip()}: {rest.strip() if verbose else short_text(rest.strip(), 70)}"
        else:
            label = f"source: {_seed_named(source, None if verbose else 60)}"
        text += f" ({label})"
    return text + f"; from {source_words(src)}"


def _seed_named(source: str, limit: int | None = None) -> str:
    """``"002 · text"`` -> ``"Training-optimization expert knowledge · text"``: seeds by what they are.

    ``limit`` shortens the text after the seed names (never the names themselves).
    """
    from knowledge.schema import SEEDS

    key, sep, rest = source.partition(" · ")
    keys = key.split("/")
    if not sep or not all(k in SEEDS for k in keys):
        return source if limit is None else short_text(source, limit + 20)
    return " / ".join(SEEDS[k] for k in keys) + f" · {rest if limit is None else short_text(rest, limit)}"


def _measured_words(measured: Mapping[str, Any]) -> str:
    parts = []
    for k, v in measured.items():
        if k == "thresholds":
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            parts.append(f"{k}={fmt_number(v)}")
        elif isinstance(v, Mapping):
            inner = ", ".join(f"{ik}={fmt_number(iv)}" for ik, iv in list(v.items())[:5])
            parts.append(f"{k}={{{inner}{', …' if len(v) > 5 else ''}}}")
        elif isinstance(v, list):
            inner = ", ".join(fmt_number(x) for x in v[:6])
            parts.append(f"{k}=[{inner}{', …' if len(v) > 6 else ''}]")
        else:
            parts.append(f"{k}={short_text(str(v), 60)}")
    return ", ".join(parts)


def _facts_of(f: Mapping[str, Any]) -> set[tuple[str, str]]:
    # The symptom alone says which family a finding is in, not which cause: it never makes two findings one.
    return {(e["observation"], repr(e["value"])) for e in f["evidence"] if e["observation"] != "symptom"}


def _same_cause(g: Mapping[str, Any], f: Mapping[str, Any]) -> bool:
    if g["category"] != f["category"]:
        return False
    if "suspect" in (g.get("kind"), f.get("kind")):
        return False  # each tentative lead is its own hypothesis (the differential weighs them)
    facts = _facts_of(f)
    # Same words, the same observed facts, or a bare symptom-table reading of a cause already shown.
    return g["issue"] == f["issue"] or bool(g["_facts"] & facts) or not facts


def group_findings(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per root cause, most severe first.

    Findings in the same category that say the same thing (same issue text), rest on the same observed
    facts (several seed tables reading one NaN loss as "explosion"), or only restate the symptom (a symptom
    table's generic reading) are one root cause: shown once, headed by the most specific finding, at the
    severity of the most severe, with every row id and the union of their evidence; the other wordings are
    kept in ``also``.
    """
    rank = {"critical": 0, "warning": 1, "info": 2}
    # Specific findings (resting on more than the symptom) first, so a generic reading joins them, not the
    # other way round.
    order = sorted(range(len(findings)), key=lambda i: (not _facts_of(findings[i]), i))
    out: list[dict[str, Any]] = []
    for i in order:
        f = findings[i]
        same = next((g for g in out if _same_cause(g, f)), None)
        if same is None:
            out.append({**f, "ids": [f["id"]], "evidence": list(f["evidence"]), "also": [],
                        "_facts": _facts_of(f), "_pos": i})
            continue
        same["ids"].append(f["id"])
        same["_facts"] |= _facts_of(f)
        same["_pos"] = min(same["_pos"], i)
        if rank.get(f["severity"], 9) < rank.get(same["severity"], 9):
            same["severity"] = f["severity"]
        if f["issue"] != same["issue"] and f["issue"] not in same["also"]:
            same["also"].append(f["issue"])
        for e in f["evidence"]:
            if e not in same["evidence"]:
                same["evidence"].append(e)
    out.sort(key=lambda g: (rank.get(g["severity"], 9), g["_pos"]))
    for g in out:
        del g["_facts"], g["_pos"]
    return out


SEVERITY_WORDS = {"critical": "critical", "warning": "warning", "info": "note"}


class _Writer:
    """Lays out the report sections for plain text or Markdown: root causes first, then what to do."""

    def __init__(self, markdown: bool, verbose: bool = False) -> None:
        self.md = markdown
        self.verbose = verbose
        self.out: list[str] = []
        self.code_lines: set[int] = set()  # indices of code lines, which wrapping must leave alone

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

    def label(self, name: str, text: str, level: int = 0) -> None:
        # Markdown: a list item per label, so consecutive labels do not merge into one paragraph.
        pad = "   " * level if self.md else "  " * (level + 1)
        self.out.append(f"{pad}- **{name}:** {text}".rstrip() if self.md else f"{pad}{name}: {text}".rstrip())

    def code(self, text: str, level: int = 0) -> None:
        if self.md:
            pad = "   " * level
            self.out += [f"{pad}```python", *(pad + ln for ln in text.rstrip().splitlines()), f"{pad}```"]
        else:
            for ln in text.rstrip().splitlines():
                self.code_lines.add(len(self.out))
                self.out.append("    " + "  " * level + ln)

    def end(self) -> None:
        self.out.append("")

    def tick(self, s: str) -> str:
        return f"`{s}`" if self.md else s

    # ------------------------------------------------------------------ the document

    def document(self, r: dict[str, Any]) -> str:
        self.title("Training Diagnosis")
        self._status(r)
        fixes_shown = self._root_cause(r)
        self._differential(r)
        self._fixes(r, fixes_shown)
        self._avoid(r)
        if r["status"] == "out_of_scope":  # where it belongs comes before the (empty) plan here
            self._boundary(r)
            self._plan(r)
        else:
            self._plan(r)
            self._boundary(r)
        self._next(r)
        self._questions(r)
        self._notes(r)
        if self.verbose:
            self.section("Audit Trail")
            self.line(render_trail(r["trace"], markdown=self.md))
            self.end()
        return "\n".join(self.out).rstrip() + "\n"

    def _status(self, r: dict[str, Any]) -> None:
        groups = group_findings(r["findings"])
        status = STATUS_WORDS.get(r["status"], r["status"])
        acting = [g for g in groups if g["severity"] in ("critical", "warning")]
        if acting:
            worst = acting[0]["severity"]
            status += f" — {len(acting)} root cause{'s' if len(acting) > 1 else ''} to fix (worst: {worst})"
        self.label("Status", status)
        if r.get("concluded"):
            # A stop is not a verdict: the lead is the best of what is known, and one answer would sharpen it.
            self.label("Asking stopped", f"{r['concluded']}: the plan leads with the best of what is known so "
                       "far; the answer below would best separate the leading causes")
        gaps = r.get("evidence_incomplete") or []
        if gaps:
            # Damaged input never reads as clean: say what was not read, so the verdict is weighed for it.
            self.label("Evidence", "incomplete — " + "; ".join(gaps[:5])
                       + (f"; and {len(gaps) - 5} more" if len(gaps) > 5 else ""))
        s = r["symptom"]
        if s:
            named = "" if s["label"] == s["value"] else f"{self.tick(s['value'])}; "
            self.label("Symptom", f"{s['label']} ({named}from {source_words(s['source'])})")
        elif r["status"] == "diagnosed" and any(
                o["source"].startswith("probe:") for o in r["observations"].values()):
            self.label("Symptom", "none named; found from the probes' measurements")
        for text in r["complaints"]:
            self.label("Complaint", f'"{short_text(text, 300) if not self.verbose else text}"')
        self.end()

    def _root_cause(self, r: dict[str, Any]) -> set[str]:
        """Root causes, each once, with evidence and their own fix; returns the rules whose fix was shown."""
        groups = group_findings(r["findings"])
        shown: set[str] = set()
        if not groups:
            return shown
        self.section("Root Cause" if len(groups) == 1 else f"Root Causes ({len(groups)})")
        fixes = {x["rule"]: x for x in r["fixes"]}
        for i, g in enumerate(groups, 1):
            sev = SEVERITY_WORDS.get(g["severity"], g["severity"])
            ids = ", ".join(g["ids"])
            lead = " (tentative lead)" if g.get("kind") == "suspect" else ""
            head = f"[{sev}] {g['category']}{lead}: {g['issue']} [{ids}]"
            self.line(f"{i}. {head}")
            self.gap()
            for e in g["evidence"]:
                self.label("Evidence", evidence_line(e, verbose=self.verbose, tick=self.tick), level=1)
                words = _measured_words(e.get("measured") or {})
                if words:
                    self.label("Measured", words if self.verbose else short_text(words, 160), level=2)
            if not g["evidence"]:
                self.label("Evidence", "none recorded", level=1)
            for eff in g.get("effects", ()):
                self.label("Explains", f"{eff['issue']} [{eff['id']}]", level=1)
            for fix in (fixes[x] for x in g["ids"] if x in fixes):
                shown.add(fix["rule"])
                self.label("Fix", f"{fix['explain']} [{fix['rule']}]", level=1)
                if fix.get("code"):
                    self.gap()
                    self.code(fix["code"], level=1)
            if self.verbose:
                for other in g["also"]:
                    self.label("Also read as", other, level=1)
            if g.get("source"):
                src = g["source"]
                self.label("Knowledge", f"{src['source']} · {src['table']} · {src['row']}", level=1)
            self.end()
        return shown

    def _fixes(self, r: dict[str, Any], shown: set[str]) -> None:
        rest = [x for x in r["fixes"] if x["rule"] not in shown]
        if not rest:
            return
        self.section("Fix")
        for x in rest:
            self.line(f"{x['explain']} [{x['rule']}]")
            if x.get("code"):
                self.gap()
                self.code(x["code"])
                self.gap()
        self.end()

    def _avoid(self, r: dict[str, Any]) -> None:
        if not r["avoid"]:
            return
        self.section("What NOT to Do")
        for a in r["avoid"]:
            self.bullet(a)
        self.end()

    def _plan(self, r: dict[str, Any]) -> None:
        if not r["routes"]:
            if r["status"] != "clean":
                self.section("Reference (ordered plan)")
                self.line("no skill routed yet")
                self.end()
            return
        self.section("Reference (ordered plan)")
        for i, x in enumerate(r["routes"], 1):
            where = f" (section: {x['section']})" if x.get("section") else ""
            rules = ", ".join(x.get("rules") or [x["rule"]])
            # the step is what to check or change, in a sentence; the skill is where to read more about it
            why = x["why"][:1].upper() + x["why"][1:]
            why += "" if why.endswith((".", "?", "!")) else "."
            self.line(f"{i}. {why} Reference: {self.tick(x['skill'])} ({x['role']}, pack {x['pack']}{where}) "
                      f"[{rules}]")
            if self.verbose:
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

    def _differential(self, r: dict[str, Any]) -> None:
        """The leading causes beside the one shown: why the leader leads, and what would settle the others."""
        diff = r.get("differential") or []
        if len(diff) < 2:  # one cause and nothing open: the root cause section says it all
            return
        self.section("Differential")
        for i, e in enumerate(diff, 1):
            mark = " (tentative)" if e.get("tentative") and e["standing"] != "open" else ""
            if e["standing"] == "open":
                asks = f" — ask {', '.join(e['asked_by'])}" if e["asked_by"] else ""
                self.line(f"{i}. open: {e['issue']} [{e['id']}] -> {e['route']}; needs {', '.join(e['needs'])}{asks}")
            else:
                self.line(f"{i}. {e['standing']}{mark}: {e['issue']} [{e['id']}]")
                if e.get("for"):
                    self.label("For", ", ".join(f"{x['observation']} = {fmt_value(x['observation'], x['value'])}"
                                                for x in e["for"]), level=1)
                if e.get("why_first"):
                    self.label("Leads because", e["why_first"], level=1)
        self.end()

    def _questions(self, r: dict[str, Any]) -> None:
        others = {n: o for n, o in r["observations"].items() if not o["source"].startswith("answer:")}
        if not r["asked"] and not others:
            return
        self.section("Diagnostic Questions Asked" if r["asked"] else "What Was Known")
        for i, a in enumerate(r["asked"], 1):
            ans = "skipped" if a["answer"] is None else self.tick(f"{a['sets']} = {fmt_value(a['sets'], a['answer'])}")
            self.line(f"{i}. {a['text']} -> {ans}")
        probes = {n: o for n, o in others.items() if o["source"].startswith("probe:")}
        told = {n: o for n, o in others.items() if n not in probes}
        if (told or probes) and r["asked"]:
            self.gap()
            self.line("Also known:")
            self.gap()
        shown = {**told, **probes} if self.verbose else told
        for n, o in shown.items():
            fact = self.tick(f"{n} = {fmt_value(n, o['value'])}")
            self.bullet(f"{fact} ({source_words(o['source'])})")
        if probes and not self.verbose:
            names = sorted({o["source"].partition(":")[2] for o in probes.values()})
            many = f"{len(probes)} values" if len(probes) > 1 else "1 value"
            self.bullet(f"{many} measured by the probes ({', '.join(names)}); "
                        f"`--verbose` {'lists them' if len(probes) > 1 else 'shows it'}")
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
        self.section("To Narrow It Down" if r.get("concluded") else "Answer Next")
        self.line(f"{q['text']} [{q['id']}]")
        if q["choices"]:
            self.gap()
            for ch in q["choices"]:
                same = ch["label"].replace(" ", "_") == ch["value"]
                self.bullet(self.tick(ch["value"]) + ("" if same else f": {ch['label']}"))
            self.gap()
        self.label("Why", q["why"])
        if q.get("chosen"):
            # Several questions usually apply; say why this one comes first (expert/choose.py's reason).
            self.label("Why now", q["chosen"])
        key = self.tick(f'"{q["sets"]}": <value>')
        self.label("How", f"answer it in `trainopt consult`, or add {key} to the observations JSON and run "
                   "`trainopt diagnose` again.")
        self.end()
