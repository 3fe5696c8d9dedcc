"""Route accuracy on the corpus of real training problems (``python -m bench.eval``, ``make eval``).

Every case in ``bench/corpus/cases`` (see ``bench/corpus/README.md``) is consulted as an honest user would
consult trainopt: the complaint goes in as free text, then each pending question is answered from the
case's ``facts`` when the question sets one of them and declined otherwise, until no question is left (or
a bound is reached). The route trainopt leads with (the first skill of the plan, or the leading cross-pack
boundary) is scored against the case's ``expected_primary`` and ``acceptable`` routes, per split:

* ``dev``: cases we may read and learn from;
* ``held_back``: cases whose source thread hashes to 0 mod 3 (every case of one thread falls on one side);
  only ever evaluated, never tuned on, so their misses are not printed unless ``--show-heldout-misses`` is
  given. The held-back split is the headline: its line comes first in the summary.

Besides primary and acceptable accuracy, each split counts the cases that end with no route at all (no plan
and no cross-pack boundary).

``--ablate complaint`` consults every case without its complaint (the facts alone, reached only through
questions), ``--ablate facts`` with the complaint alone (every question declined). Dev is nearly saturated on
full cases; the ablated dev runs score close to the held-back figures, so their misses show general gaps
(routing knowledge, questions never asked, wrong defaults, an unread complaint) rather than recall. Held-back
figures are summarised as always; their misses stay hidden.

``--floor FILE`` names a JSON object of minimum ratios per split (``{"dev": {"primary": 0.4}}``); the
command exits 1 when any figure falls below its floor, so CI can hold the line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

DEFAULT_CASES = Path(__file__).resolve().parent / "corpus" / "cases"
MAX_QUESTIONS = 12
"""A consultation asks a handful of questions; more than this means the knowledge loops, which we report."""

SPLITS = ("held_back", "dev")
"""The splits, the headline first."""
REQUIRED = ("id", "complaint", "expected_primary")
HEADLINE = SPLITS[0]
"""The split reported first: the figures that are never tuned on."""
RATIOS = ("primary", "acceptable", "still_asking", "no_route")
"""Ratios a floor file may hold (``still_asking`` and ``no_route`` are ceilings: lower is better)."""
CEILINGS = ("still_asking", "no_route")
ABLATIONS = ("complaint", "facts")
"""What ``--ablate`` may remove from every case: its complaint text, or its facts."""


def thread_of(source: str) -> str:
    """The thread a source URL belongs to, so that links into one thread name the same thread.

    Drops the scheme, a ``www.``, the query, the fragment (``#issuecomment-...``) and a trailing slash, and
    lower-cases the host; a Discourse post number (``/t/slug/123/4``) and a Stack Exchange question slug
    (``/questions/123/slug``) are dropped too.
    """
    url = source.strip().split("#", 1)[0].split("?", 1)[0].rstrip("/")
    url = re.sub(r"^[a-z]+://", "", url, flags=re.I)
    host, _, path = url.partition("/")
    host = host.lower().removeprefix("www.")
    path = re.sub(r"^(t/[^/]+/\d+)/\d+$", r"\1", path)
    path = re.sub(r"^(questions/\d+)/[^/]+$", r"\1", path)
    return f"{host}/{path}" if path else host


def split_of(key: str) -> str:
    """The split of a case, from the hash of its thread (``thread_of(source)``), or of its id when it has no
    source: a third is held back, chosen by hash, not by hand, and one thread never straddles the splits."""
    return "held_back" if hashlib.sha256(key.encode()).digest()[0] % 3 == 0 else "dev"


@dataclass(frozen=True)
class Case:
    """One corpus case (the fields the evaluation reads)."""

    id: str
    complaint: str
    facts: Mapping[str, Any]
    expected_primary: str
    acceptable: tuple[str, ...]
    family: str = ""
    path: str = ""
    source: str = ""

    @property
    def thread(self) -> str:
        """The case's source thread (``thread_of``), or its id when it names no source."""
        return thread_of(self.source) if self.source else self.id

    @property
    def split(self) -> str:
        """``dev`` or ``held_back``, by the case's source thread (by its id when it names no source)."""
        return split_of(self.thread)


@dataclass
class Outcome:
    """What one consultation produced, and how it scores.

    Attributes:
        case: The case consulted.
        status: The final diagnosis status (``error`` when trainopt raised).
        lead: The route trainopt leads with: plan[0], else the leading boundary's pack (None: nothing).
        plan: The ordered plan.
        boundary: ``(pack, target, joint)`` of every cross-pack boundary, leading one first.
        questions: How many questions were put to the user (answered or declined).
        answered: How many of them the case's facts answered.
        findings: Number of findings in the final report.
        error: The exception text when the consultation failed.
    """

    case: Case
    status: str
    lead: str | None
    plan: list[str]
    boundary: list[tuple[str, str, bool]]
    questions: int
    answered: int
    findings: int
    error: str = ""
    why_not: str = field(default="", repr=False)

    def _leading_names(self) -> set[str]:
        names = set(self.plan[:1])
        if self.boundary:
            pack, target, _ = self.boundary[0]
            names |= {pack, target} - {""}
        return names

    @property
    def primary_right(self) -> bool:
        """plan[0] or the leading boundary (its pack or target) is the expected primary route."""
        return self.case.expected_primary in self._leading_names()

    @property
    def acceptable(self) -> bool:
        """The primary route is right, or what leads is one of the case's acceptable routes."""
        return self.primary_right or bool(self._leading_names() & set(self.case.acceptable))

    @property
    def no_route(self) -> bool:
        """The consultation ended with nothing to lead with: no plan and no cross-pack boundary."""
        return self.lead is None

    @property
    def still_asking(self) -> bool:
        """The consultation ended with a question pending (the bound was reached)."""
        return self.status == "needs_answer"

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return {"id": self.case.id, "split": self.case.split, "family": self.case.family,
                "expected_primary": self.case.expected_primary, "acceptable_routes": list(self.case.acceptable),
                "lead": self.lead, "plan": self.plan,
                "boundary": [{"pack": p, "target": t, "joint": j} for p, t, j in self.boundary],
                "status": self.status, "primary_right": self.primary_right, "acceptable": self.acceptable,
                "no_route": self.no_route, "questions": self.questions, "answered": self.answered,
                "findings": self.findings,
                "error": self.error, "why_not": self.why_not}


# --------------------------------------------------------------------------------------------------- loading

def ablate(case: Case, part: str | None) -> Case:
    """The case with one part removed, to see what each source of evidence carries on its own.

    Args:
        case: The case.
        part: ``complaint`` (no free text; questions answered from the facts), ``facts`` (the complaint
            alone; every question declined) or None (the case unchanged).

    Returns:
        A copy of the case without that part.

    Raises:
        ValueError: ``part`` is not one of ``ABLATIONS`` (or None).
    """
    if part is None:
        return case
    if part == "complaint":
        return replace(case, complaint="")
    if part == "facts":
        return replace(case, facts={})
    raise ValueError(f"ablate: unknown part {part!r} (expected {', '.join(ABLATIONS)})")


def load_cases(directory: Path) -> tuple[list[Case], list[str]]:
    """Read every ``*.json`` case in ``directory``, sorted by id.

    Returns:
        The valid cases and one line per file that could not be used (malformed, missing keys, duplicate id).
    """
    cases: list[Case] = []
    problems: list[str] = []
    seen: set[str] = set()
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            problems.append(f"{path.name}: unreadable ({exc})")
            continue
        if not isinstance(raw, dict):
            problems.append(f"{path.name}: not a JSON object")
            continue
        missing = [k for k in REQUIRED if not isinstance(raw.get(k), str) or not raw.get(k)]
        if missing:
            problems.append(f"{path.name}: missing {', '.join(missing)}")
            continue
        if raw["id"] in seen:
            problems.append(f"{path.name}: duplicate id {raw['id']}")
            continue
        seen.add(raw["id"])
        facts = raw.get("facts") or {}
        acceptable = raw.get("acceptable") or []
        cases.append(Case(id=raw["id"], complaint=raw["complaint"],
                          facts=facts if isinstance(facts, dict) else {},
                          expected_primary=raw["expected_primary"],
                          acceptable=tuple(str(a) for a in acceptable if isinstance(a, str)),
                          family=str(raw.get("family", "")), path=str(path),
                          source=str(raw.get("source") or "")))
    cases.sort(key=lambda c: c.id)
    return cases, problems


# --------------------------------------------------------------------------------------------------- consulting

def dialogue(case: Case, max_questions: int = MAX_QUESTIONS) -> tuple[Any, Any, int, int]:
    """Consult trainopt on one case as an honest user: answer from the facts, decline the rest.

    Returns:
        The consultation, its final diagnosis, how many questions were asked and how many answered.

    Raises:
        Exception: Whatever trainopt raised (``consult`` scores it as a failure).
    """
    from expert import Consultation
    from knowledge.errors import TrainoptError

    c = Consultation()
    asked = answered = 0
    if case.complaint:  # an ablated case has none: the consultation starts from questions alone
        try:
            c.complain(case.complaint)
        except TrainoptError as exc:
            # A complaint trainopt cannot read is its failure to score, not the harness's; go on with questions.
            if "empty" not in str(exc):
                raise
    d = c.run()
    while d.question is not None and asked < max_questions:
        q = d.question
        asked += 1
        if q.sets in case.facts:
            try:
                c.answer(q.id, case.facts[q.sets])
                answered += 1
            except TrainoptError:
                # A fact the vocabulary refuses is a fact the user could not have typed: decline.
                c.decline(q.id)
        else:
            c.decline(q.id)
        d = c.run()
    if d.question is not None:
        # The bound stops the user, not the reasoning: the consultation then leads with what it knows.
        c.conclude("question limit")
        d = c.run()
    return c, d, asked, answered


def consult(case: Case, max_questions: int = MAX_QUESTIONS, why_not: bool = False) -> Outcome:
    """Consult trainopt on one case as an honest user (``dialogue``) and score what it leads with.

    Args:
        case: The case.
        max_questions: Stop after this many questions even if another is pending.
        why_not: Also record a short ``explain --why-not`` of the expected route when it is missed.

    Returns:
        The outcome; a consultation that raises is an outcome with status ``error``, never an exception.
    """
    try:
        c, d, asked, answered = dialogue(case, max_questions)
    except Exception as exc:  # noqa: BLE001 - any crash is a scored failure, reported with its text
        return Outcome(case, "error", None, [], [], 0, 0, 0, error=f"{type(exc).__name__}: {exc}")
    boundary = [(b["pack"], b.get("target") or "", bool(b["joint"])) for b in d.boundary]
    lead = d.plan[0] if d.plan else (boundary[0][0] if boundary else None)
    out = Outcome(case, d.status, lead, list(d.plan), boundary, asked, answered, len(d.findings))
    if why_not and not out.primary_right:
        out.why_not = _why_not(c, case.expected_primary)
    return out


def _why_not(c: Any, skill: str, lines: int = 4) -> str:
    from knowledge.errors import TrainoptError

    try:
        text = c.explain(skill, why_not=True).text()
    except TrainoptError as exc:
        return f"(cannot explain {skill!r}: {exc})"
    kept = [ln.rstrip() for ln in text.splitlines() if ln.strip()][:lines]
    return "\n".join(kept)


# --------------------------------------------------------------------------------------------------- scoring

def majority_route(cases: Iterable[Case]) -> str | None:
    """The most common expected primary route (ties: alphabetical), or None for no cases."""
    counts = Counter(c.expected_primary for c in cases)
    if not counts:
        return None
    return min(counts, key=lambda k: (-counts[k], k))


def _ratio(n: int, d: int) -> float:
    return round(n / d, 4) if d else 0.0


def summarise(outcomes: Sequence[Outcome], baseline: str | None) -> dict[str, Any]:
    """Figures for one split.

    Args:
        outcomes: The split's outcomes.
        baseline: The majority route (from dev) the split is compared against.

    Returns:
        Counts and ratios: cases, primary right, acceptable, still asking, no route, errors, mean questions,
        median findings, and the baseline's primary and acceptable ratios.
    """
    n = len(outcomes)
    primary = sum(o.primary_right for o in outcomes)
    acceptable = sum(o.acceptable for o in outcomes)
    asking = sum(o.still_asking for o in outcomes)
    unrouted = sum(o.no_route for o in outcomes)
    base_p = sum(o.case.expected_primary == baseline for o in outcomes) if baseline else 0
    base_a = sum(baseline == o.case.expected_primary or baseline in o.case.acceptable
                 for o in outcomes) if baseline else 0
    return {
        "cases": n,
        "primary_right": primary, "primary": _ratio(primary, n),
        "acceptable_right": acceptable, "acceptable": _ratio(acceptable, n),
        "still_asking_count": asking, "still_asking": _ratio(asking, n),
        "no_route_count": unrouted, "no_route": _ratio(unrouted, n),
        "errors": sum(o.status == "error" for o in outcomes),
        "mean_questions": round(statistics.fmean([o.questions for o in outcomes]), 2) if n else 0.0,
        "median_findings": statistics.median([o.findings for o in outcomes]) if n else 0,
        "baseline_route": baseline,
        "baseline_primary": _ratio(base_p, n), "baseline_acceptable": _ratio(base_a, n),
    }


def by_family(outcomes: Sequence[Outcome]) -> dict[str, dict[str, int]]:
    """Cases and primary-right counts per symptom family (where the misses cluster)."""
    out: dict[str, dict[str, int]] = {}
    for o in outcomes:
        f = out.setdefault(o.case.family or "?", {"cases": 0, "primary_right": 0, "acceptable": 0})
        f["cases"] += 1
        f["primary_right"] += o.primary_right
        f["acceptable"] += o.acceptable
    return dict(sorted(out.items()))


def below_floor(figures: Mapping[str, Mapping[str, Any]], floor: Mapping[str, Any]) -> list[str]:
    """Every figure that misses its floor, as one line each (``still_asking`` and ``no_route`` are ceilings).

    Raises:
        ValueError: The floor names an unknown split or ratio, or a ratio that is not a number.
    """
    misses = []
    for split, limits in floor.items():
        if split not in SPLITS or not isinstance(limits, Mapping):
            raise ValueError(f"floor: unknown split {split!r} (expected {', '.join(SPLITS)})")
        for name, limit in limits.items():
            if name not in RATIOS or not isinstance(limit, (int, float)):
                raise ValueError(f"floor: {split}.{name} must be one of {', '.join(RATIOS)} with a number")
            if not figures.get(split, {}).get("cases"):
                continue  # an empty split has no ratio to hold; main() warns about it
            have = figures[split][name]
            if name in CEILINGS and have > limit:
                misses.append(f"{split} {name} {have:.3f} above its ceiling {limit:.3f}")
            elif name not in CEILINGS and have < limit:
                misses.append(f"{split} {name} {have:.3f} below its floor {limit:.3f}")
    return misses


def evaluate(cases: Sequence[Case], why_not: bool = True, max_questions: int = MAX_QUESTIONS,
             ablation: str | None = None) -> tuple[dict[str, dict[str, Any]], list[Outcome]]:
    """Consult every case and summarise per split.

    Args:
        cases: The corpus.
        why_not: Record ``explain --why-not`` for misses.
        max_questions: The question bound per consultation.
        ablation: Remove this part of every case first (``ablate``); None keeps cases whole.

    Returns:
        (figures per split, outcomes in case order).
    """
    cases = [ablate(c, ablation) for c in cases]
    outcomes = [consult(c, max_questions=max_questions, why_not=why_not) for c in cases]
    baseline = majority_route(c for c in cases if c.split == "dev")
    figures = {s: summarise([o for o in outcomes if o.case.split == s], baseline) for s in SPLITS}
    return figures, outcomes


# --------------------------------------------------------------------------------------------------- output

def _print_table(figures: Mapping[str, Mapping[str, Any]], out: Any) -> None:
    cols = ("cases", "primary right", "acceptable", "no route", "still asking", "mean Qs", "median findings",
            "baseline primary", "baseline acceptable")
    print(f"{'split':<10} " + " ".join(f"{c:>16}" for c in cols), file=out)
    for s in SPLITS:
        f = figures[s]
        n = f["cases"]
        cells = (str(n), f"{f['primary_right']}/{n} {f['primary']:.0%}", f"{f['acceptable_right']}/{n} "
                 f"{f['acceptable']:.0%}", f"{f['no_route_count']}/{n}", f"{f['still_asking_count']}/{n}",
                 f"{f['mean_questions']:.2f}",
                 f"{f['median_findings']:g}", f"{f['baseline_primary']:.0%}", f"{f['baseline_acceptable']:.0%}")
        print(f"{s:<10} " + " ".join(f"{c:>16}" for c in cells), file=out)
    base = figures["dev"]["baseline_route"]
    print(f"baseline: always answer the most common dev route ({base})", file=out)
    errors = sum(figures[s]["errors"] for s in SPLITS)
    if errors:
        print(f"{errors} consultation(s) raised an error (scored as misses)", file=out)


def _print_misses(title: str, misses: Sequence[Outcome], out: Any) -> None:
    print(f"\n{title} ({len(misses)})", file=out)
    for o in misses:
        got = o.lead or "nothing"
        extra = f", acceptable: {', '.join(o.case.acceptable)}" if o.case.acceptable else ""
        print(f"- {o.case.id} [{o.case.family or '?'}] expected {o.case.expected_primary}{extra}; got {got} "
              f"(status {o.status}, plan {' > '.join(o.plan) or '-'}, {o.questions} question(s))", file=out)
        if o.error:
            print(f"    error: {o.error}", file=out)
        for line in o.why_not.splitlines():
            print(f"    {line}", file=out)


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation; exit 1 when a figure falls below ``--floor``, 2 on a usage error."""
    ap = argparse.ArgumentParser(prog="python -m bench.eval", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=Path, default=DEFAULT_CASES, help="directory of case JSON files")
    ap.add_argument("--json", action="store_true", help="print JSON (figures, outcomes) instead of a table")
    ap.add_argument("--floor", type=Path, help="JSON of minimum ratios per split; exit 1 when below")
    ap.add_argument("--show-heldout-misses", action="store_true",
                    help="also list held-back misses (only to report, never to tune on)")
    ap.add_argument("--max-questions", type=int, default=MAX_QUESTIONS, help="question bound per case")
    ap.add_argument("--families", action="store_true", help="also print dev figures per symptom family")
    ap.add_argument("--ablate", choices=ABLATIONS,
                    help="consult without the complaint (facts via questions) or without the facts (complaint "
                         "alone): dev misses then show general gaps")
    args = ap.parse_args(argv)

    if not args.cases.is_dir():
        if args.cases != DEFAULT_CASES:
            print(f"error: no case directory {args.cases}", file=sys.stderr)
            return 2
        # A checkout without the corpus yet evaluates nothing rather than failing.
        print(f"warning: no corpus at {args.cases}; nothing to evaluate", file=sys.stderr)
    floor = None
    if args.floor is not None:
        try:
            floor = json.loads(args.floor.read_text(encoding="utf-8"))
            below_floor({}, floor)  # validate its shape before the (slower) evaluation
        except (OSError, json.JSONDecodeError, ValueError, AttributeError) as exc:
            print(f"error: unusable floor file {args.floor}: {exc}", file=sys.stderr)
            return 2

    cases, problems = load_cases(args.cases)
    for p in problems:
        print(f"warning: skipped {p}", file=sys.stderr)
    figures, outcomes = evaluate(cases, why_not=True, max_questions=args.max_questions, ablation=args.ablate)
    dev_misses = [o for o in outcomes if o.case.split == "dev" and not o.primary_right]
    held_misses = [o for o in outcomes if o.case.split == "held_back" and not o.primary_right]

    if args.json:
        shown = [o for o in outcomes if o.case.split == "dev" or args.show_heldout_misses]
        doc = {"schema_version": "1.0", "cases_dir": str(args.cases), "skipped": problems, "headline": HEADLINE,
               "ablation": args.ablate, "splits": figures,
               "families_dev": by_family([o for o in outcomes if o.case.split == "dev"]),
               "outcomes": [o.as_dict() for o in shown]}
        print(json.dumps(doc, indent=2))
    else:
        h = figures[HEADLINE]
        if args.ablate:
            kept = "facts only, via questions" if args.ablate == "complaint" else "complaint only, questions declined"
            print(f"ablation: without the {args.ablate} ({kept})")
        print(f"{HEADLINE} (headline, never tuned on): primary right {h['primary_right']}/{h['cases']} "
              f"{h['primary']:.0%}, acceptable {h['acceptable_right']}/{h['cases']} {h['acceptable']:.0%}, "
              f"no route {h['no_route_count']}/{h['cases']}")
        print(f"{len(cases)} case(s) from {args.cases}")
        _print_table(figures, sys.stdout)
        if args.families:
            print("\ndev by family (primary right / acceptable / cases)")
            for fam, f in by_family([o for o in outcomes if o.case.split == "dev"]).items():
                print(f"  {fam:<18} {f['primary_right']:>3} / {f['acceptable']:>3} / {f['cases']:>3}")
        _print_misses("dev misses", dev_misses, sys.stdout)
        if args.show_heldout_misses:
            _print_misses("held-back misses (report only; do not tune on these)", held_misses, sys.stdout)
        elif held_misses:
            print(f"\n{len(held_misses)} held-back miss(es) not shown (--show-heldout-misses)")

    if floor is not None:
        for split in floor:
            if not figures[split]["cases"]:
                print(f"warning: no {split} cases; its floor is not checked", file=sys.stderr)
        misses = below_floor(figures, floor)
        for m in misses:
            print(f"floor: {m}", file=sys.stderr)
        if misses:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
