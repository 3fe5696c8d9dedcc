"""How well the complaint reader understands training talk (``python -m bench.eval_text``, part of ``make eval``).

The suite in ``bench/phrasings`` (see its README) holds situations, each with the observations a careful reader
takes from the text and the route trainopt should lead with, and many phrasings of each. Every phrasing is read
by :meth:`expert.Consultation.complain` alone, and scored:

* **fact recall**: stated observations read with the stated value (numbers within 1%);
* **wrong reading**: a phrasing where a stated observation is read with another value, or an observation
  the situation's ``not:`` line names is read at all;
* **nothing understood**: a phrasing from which no observation is read;
* **first route**: the route trainopt leads with when every question is declined (text alone).

Whole situations are held back (the SHA-256 of the situation id, first byte 0 mod 3): their figures are the
headline, and their misses are not printed unless ``--show-heldout-misses`` is given, so nobody tunes on them.
``--floor FILE`` holds minimum figures per split (``{"held_back": {"recall": 0.5}}``; ``wrong`` and
``nothing`` are ceilings); the command exits 1 below a floor.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# a third of the situations is held back by the hash of the id, never by hand: the corpus's own rule
from bench.eval import split_of

SUITE = Path(__file__).resolve().parent / "phrasings"
SPLITS = ("held_back", "dev")
CEILINGS = ("wrong", "nothing")
"""Figures where lower is better (a floor file gives their maximum)."""


@dataclass(frozen=True)
class Phrasing:
    """One way of saying a situation, with the observations it states."""

    situation: str
    text: str
    facts: Mapping[str, Any]
    forbidden: frozenset[str]
    route: str
    line: str

    @property
    def split(self) -> str:
        """The split of its situation."""
        return split_of(self.situation)


class SuiteError(ValueError):
    """A malformed suite file (the message names the file and line)."""


def _value(raw: str) -> Any:
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if re.fullmatch(r"[+-]?\d+", raw):
        return int(raw)
    try:
        return float(raw)
    except ValueError:
        return raw


def _assignments(text: str, where: str) -> tuple[dict[str, Any], set[str]]:
    sets: dict[str, Any] = {}
    drops: set[str] = set()
    for item in text.split():
        if item.startswith("-"):
            drops.add(item[1:])
        elif "=" in item:
            name, _, raw = item.partition("=")
            sets[name] = _value(raw)
        else:
            raise SuiteError(f"{where}: expected name=value or -name, got {item!r}")
    return sets, drops


def load(directory: Path = SUITE) -> list[Phrasing]:
    """Read every ``*.txt`` suite file in ``directory`` (sorted by name), in file order.

    Raises:
        SuiteError: A malformed line or a duplicate situation id.
    """
    out: list[Phrasing] = []
    seen: set[str] = set()
    for path in sorted(directory.glob("*.txt")):
        sid = route = ""
        facts: dict[str, Any] = {}
        forbidden: frozenset[str] = frozenset()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.name}:{n}"
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("== "):
                parts = [p.strip() for p in line[3:].split("|")]
                if len(parts) != 3 or not parts[0] or not parts[1]:
                    raise SuiteError(f"{where}: expected '== id | route | facts'")
                sid, route = parts[0], parts[1]
                if sid in seen:
                    raise SuiteError(f"{where}: duplicate situation {sid}")
                seen.add(sid)
                facts, _ = _assignments(parts[2], where)
                forbidden = frozenset()
            elif line.startswith("not:"):
                forbidden = frozenset(line[4:].split())
            elif line.startswith("- "):
                if not sid:
                    raise SuiteError(f"{where}: a phrasing before any situation")
                text, _, extra = line[2:].partition(" || ")
                sets, drops = _assignments(extra, where)
                stated = {k: v for k, v in {**facts, **sets}.items() if k not in drops}
                out.append(Phrasing(sid, text.replace("\\n", "\n"), stated, forbidden, route, where))
            else:
                raise SuiteError(f"{where}: unrecognised line")
    return out


def same(expected: Any, got: Any) -> bool:
    """Whether a read value is the stated one (numbers within 1%, booleans and text exactly)."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        return math.isclose(float(expected), float(got), rel_tol=0.01, abs_tol=1e-12)
    return expected == got


@dataclass
class Reading:
    """What the reader made of one phrasing, scored."""

    phrasing: Phrasing
    read: dict[str, Any]
    lead: str | None
    understood: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def route_right(self) -> bool:
        """The route trainopt leads with is the situation's."""
        return self.lead == self.phrasing.route


def read(p: Phrasing) -> Reading:
    """Read one phrasing as a user's first message and score it (never raises).

    The observations are those :meth:`expert.Consultation.complain` adds to a fresh consultation; the route
    is the one ``bench.eval`` scores for the real corpus, with every question declined.
    """
    from bench.eval import Case, consult
    from expert.text import parse_complaint

    try:
        got = {o.name: o.value for o in parse_complaint(p.text)}
        outcome = consult(Case(id=p.situation, complaint=p.text, facts={}, expected_primary=p.route,
                               acceptable=()))
    except Exception as exc:  # noqa: BLE001 - a crash is scored as a failure of the reader, never hidden
        return Reading(p, {}, None, missed=sorted(p.facts), error=f"{type(exc).__name__}: {exc}")
    lead = p.route if outcome.primary_right else outcome.lead
    r = Reading(p, got, lead, error=outcome.error)
    for name, value in sorted(p.facts.items()):
        if name in got and same(value, got[name]):
            r.understood.append(name)
        else:
            r.missed.append(name)
            if name in got:
                r.wrong.append(f"{name}={got[name]!r} (stated {value!r})")
    r.wrong += [f"{name}={got[name]!r} (not stated)" for name in sorted(p.forbidden & set(got))]
    return r


def _ratio(n: int, d: int) -> float:
    return round(n / d, 3) if d else 0.0


def summarise(readings: Sequence[Reading]) -> dict[str, Any]:
    """Figures for a set of readings."""
    facts = sum(len(r.phrasing.facts) for r in readings)
    return {
        "situations": len({r.phrasing.situation for r in readings}),
        "phrasings": len(readings),
        "facts": facts,
        "recall": _ratio(sum(len(r.understood) for r in readings), facts),
        "wrong": _ratio(sum(bool(r.wrong) for r in readings), len(readings)),
        "nothing": _ratio(sum(not r.read for r in readings), len(readings)),
        "route": _ratio(sum(r.route_right for r in readings), len(readings)),
        "errors": sum(bool(r.error) for r in readings),
    }


def evaluate(phrasings: Sequence[Phrasing]) -> dict[str, list[Reading]]:
    """Read every phrasing; the readings per split."""
    out: dict[str, list[Reading]] = {s: [] for s in SPLITS}
    for p in phrasings:
        out[p.split].append(read(p))
    return out


def below_floor(figures: Mapping[str, Mapping[str, Any]], floor: Mapping[str, Any]) -> list[str]:
    """One line per figure beyond its floor (or above its ceiling for ``wrong`` and ``nothing``)."""
    bad = []
    for split, limits in floor.items():
        for name, limit in (limits or {}).items():
            got = figures.get(split, {}).get(name)
            if got is None:
                continue
            if (got > limit) if name in CEILINGS else (got < limit):
                bad.append(f"{split} {name} {got:.3f} {'above' if name in CEILINGS else 'below'} {limit}")
    return bad


def _misses(readings: Sequence[Reading], out: Any, limit: int) -> None:
    shown = 0
    for r in readings:
        if not (r.missed or r.wrong or not r.route_right or r.error):
            continue
        shown += 1
        if shown > limit:
            print(f"  ... and more (--limit {limit})", file=out)
            break
        text = r.phrasing.text.replace("\n", " / ")
        print(f"  [{r.phrasing.situation}] {text[:110]}", file=out)
        detail = []
        if r.missed:
            detail.append("missed " + ", ".join(f"{n}={r.phrasing.facts[n]!r}" for n in r.missed))
        if r.wrong:
            detail.append("WRONG " + "; ".join(r.wrong))
        if not r.route_right:
            detail.append(f"route {r.lead} (want {r.phrasing.route})")
        if r.error:
            detail.append(f"ERROR {r.error}")
        print("      " + " | ".join(detail), file=out)


def main(argv: list[str] | None = None) -> int:
    """Command line: print the figures per split (held back first); exit 1 below a floor, 2 on a bad suite."""
    ap = argparse.ArgumentParser(prog="python -m bench.eval_text", description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, default=SUITE, help="directory of suite *.txt files")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--floor", type=Path, help="JSON of minimum figures per split; exit 1 when beyond")
    ap.add_argument("--show-misses", action="store_true", help="list the dev phrasings not fully understood")
    ap.add_argument("--show-heldout-misses", action="store_true", help="also list held-back misses (do not tune)")
    ap.add_argument("--limit", type=int, default=400, help="misses listed at most")
    args = ap.parse_args(argv)
    try:
        phrasings = load(args.suite)
        floor = json.loads(args.floor.read_text(encoding="utf-8")) if args.floor else {}
    except (OSError, SuiteError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not phrasings:
        print(f"error: no phrasings under {args.suite}", file=sys.stderr)
        return 2
    readings = evaluate(phrasings)
    figures = {s: summarise(rs) for s, rs in readings.items()}
    figures["all"] = summarise([r for rs in readings.values() for r in rs])
    if args.json:
        print(json.dumps({"figures": figures}, indent=2))
    else:
        out = sys.stdout
        print("Text understanding on the phrasing suite (held-back situations are the headline):", file=out)
        print(f"  {'split':<10}{'situations':>11}{'phrasings':>10}{'recall':>8}{'wrong':>7}{'nothing':>9}"
              f"{'route':>7}", file=out)
        for s in (*SPLITS, "all"):
            f = figures[s]
            print(f"  {s:<10}{f['situations']:>11}{f['phrasings']:>10}{f['recall']:>8.1%}{f['wrong']:>7.1%}"
                  f"{f['nothing']:>9.1%}{f['route']:>7.1%}", file=out)
        missed = Counter(n for r in readings["dev"] for n in r.missed)
        if missed:
            print("  dev facts missed most: " + ", ".join(f"{n} {k}" for n, k in missed.most_common(8)), file=out)
        if args.show_misses:
            print("dev misses:", file=out)
            _misses(readings["dev"], out, args.limit)
        if args.show_heldout_misses:
            print("held-back misses:", file=out)
            _misses(readings["held_back"], out, args.limit)
    bad = below_floor(figures, floor)
    for line in bad:
        print(f"below floor: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
