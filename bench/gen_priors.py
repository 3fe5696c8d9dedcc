"""Regenerate ``knowledge/priors.py``: per symptom, the first stops dev threads confirmed where a default led.

``python -m bench.gen_priors`` consults every dev case of ``bench/corpus`` with priors off (``expert.priors.using
({})``), keeps those whose consultation ends on a symptom's default (:func:`default_vote`), and counts, once per
thread, the first stop the thread confirmed. Held-back cases are never consulted. ``--check`` exits 1 when the
shipped table differs (run after changing the corpus's dev cases or the knowledge).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

from bench.eval import DEFAULT_CASES, Case, dialogue, load_cases

TARGET = Path(__file__).resolve().parent.parent / "knowledge" / "priors.py"


def default_vote(case: Case) -> str | None:
    """The symptom whose default the case's consultation ended on (priors off), or None.

    A default is a plan whose first stop no evidenced cause and no suspect chose, routed only by rows that read
    the symptom and the loss curve (``expert.priors.is_default``).
    """
    from expert import priors
    from expert.kb import rule_catalogue

    with priors.using({}):
        try:
            _c, d, _asked, _answered = dialogue(case)
        except Exception:  # noqa: BLE001 - a case trainopt fails on says nothing about the default
            return None
    if d.primary_cause or d.tentative or not d.plan or d.symptom is None:
        return None
    lead = next((r for r in d.routes if r["skill"] == d.plan[0]), None)
    if lead is None or not priors.is_default(lead["rules"], rule_catalogue()):
        return None
    return str(d.symptom["value"])


def count(cases: Iterable[Case], votes: dict[str, str | None] | None = None) -> dict[str, dict[str, int]]:
    """Per symptom, how many threads confirmed each first stop (dev cases only; one vote per thread and stop).

    Args:
        cases: The cases (held-back ones are skipped).
        votes: Precomputed ``default_vote`` per case id (computed when missing).
    """
    seen: set[tuple[str, str, str]] = set()
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        if case.split != "dev":
            continue
        symptom = votes[case.id] if votes is not None and case.id in votes else default_vote(case)
        if symptom is None:
            continue
        key = (case.thread, symptom, case.expected_primary)
        if key in seen:
            continue
        seen.add(key)
        table[symptom][case.expected_primary] += 1
    return {s: dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))) for s, c in sorted(table.items())}


def render(table: dict[str, dict[str, int]], cases: int, threads: int) -> str:
    """The module text for ``table``, estimated from ``cases`` dev cases of ``threads`` threads."""
    head = TARGET.read_text(encoding="utf-8").split("PRIORS: dict", 1)[0].split("# estimated from", 1)[0]
    lines = [head.rstrip() + "\n", "",
             f"# estimated from {cases} dev cases that ended on a default ({threads} threads)",
             "PRIORS: dict[str, dict[str, int]] = {"]
    for symptom, counts in table.items():
        lines.append(f"    {symptom!r}: {{")
        lines.extend(f"        {k!r}: {v}," for k, v in counts.items())
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) ``knowledge/priors.py``."""
    ap = argparse.ArgumentParser(prog="python -m bench.gen_priors", description=__doc__)
    ap.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--check", action="store_true", help="exit 1 when the shipped table is out of date")
    args = ap.parse_args(argv)
    cases, problems = load_cases(args.cases)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    votes = {c.id: default_vote(c) for c in cases if c.split == "dev"}
    table = count(cases, votes)
    voting = [c for c in cases if c.split == "dev" and votes.get(c.id)]
    text = render(table, len(voting), len({c.thread for c in voting}))
    if args.check:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is out of date: run python -m bench.gen_priors", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET} ({sum(map(len, table.values()))} entries over {len(table)} symptoms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
