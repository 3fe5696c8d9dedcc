"""Leave-one-thread-out check of ``knowledge.priors`` on the dev split (``python -m bench.priors_cv``).

The priors are counted from the dev cases; scoring a dev case with a table its own thread voted in would flatter
them. Here every dev case is consulted three ways and scored as ``bench.eval`` scores it (primary route right):

* **seeds**: priors off, the seeds' defaults decide;
* **in-sample**: the shipped table (every dev thread voted);
* **leave-one-thread-out**: a table counted from every dev thread except the case's own.

The last figure is the honest estimate of what the priors add on threads they were not counted from. Held-back
cases are never consulted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.eval import DEFAULT_CASES, Case, consult, load_cases
from bench.gen_priors import count, default_vote


def cross_validate(cases: list[Case]) -> dict[str, object]:
    """Primary-right counts on the dev split: seeds, in-sample priors and leave-one-thread-out priors.

    Returns:
        ``cases`` (dev cases), ``voting`` (those that end on a default), ``seeds``, ``in_sample``, ``loto``
        (primary right, all dev cases) and ``changed`` (case id -> (seeds, loto) lead, where they differ).
    """
    from expert import priors

    dev = [c for c in cases if c.split == "dev"]
    votes = {c.id: default_vote(c) for c in dev}
    full = count(dev, votes)
    seeds = in_sample = loto = 0
    changed: dict[str, tuple[str | None, str | None]] = {}
    for case in dev:
        with priors.using({}):
            base = consult(case)
        with priors.using(full):
            ins = consult(case)
        own = case.thread
        with priors.using(count([c for c in dev if c.thread != own], votes)):
            out = consult(case)
        seeds += base.primary_right
        in_sample += ins.primary_right
        loto += out.primary_right
        if out.lead != base.lead:
            changed[case.id] = (base.lead, out.lead)
    return {"cases": len(dev), "voting": sum(1 for v in votes.values() if v), "seeds": seeds,
            "in_sample": in_sample, "loto": loto, "changed": changed}


def main(argv: list[str] | None = None) -> int:
    """Print the three figures (and the cases whose lead the held-out priors change)."""
    ap = argparse.ArgumentParser(prog="python -m bench.priors_cv", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    args = ap.parse_args(argv)
    cases, problems = load_cases(args.cases)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    r = cross_validate(cases)
    n = r["cases"]
    print(f"dev cases {n}, ending on a symptom's default (priors off): {r['voting']}")
    for label, key in (("seeds' defaults", "seeds"), ("priors, in-sample", "in_sample"),
                       ("priors, leave-one-thread-out", "loto")):
        print(f"  {label:<30} primary right {r[key]}/{n} {r[key] / n:.1%}" if n else f"  {label}: no cases")
    for cid, (a, b) in sorted(r["changed"].items()):  # type: ignore[union-attr]
        print(f"  {cid}: {a} -> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
