"""Run every benchmark section and print a table (``--json`` for machine output)."""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from bench import Result

SECTIONS = ("bench.core", "bench.probes", "bench.distributed")


def _fmt(s: float) -> str:
    if abs(s) < 1e-3:
        return f"{s * 1e6:8.0f} us"
    return f"{s * 1000:8.1f} ms" if s < 10 else f"{s:8.2f} s "


def main(argv: list[str] | None = None) -> int:
    """Run the sections; optional ones that are not there yet are noted and skipped."""
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    ap.add_argument("--repeats", type=int, default=7, help="repeats per measurement (median is reported)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    results: list[tuple[str, Result]] = []
    for name in SECTIONS:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            print(f"({name} not available yet; skipped)", file=sys.stderr)
            continue
        for r in mod.run(args.repeats):
            results.append((name, r))
    if args.json:
        print(json.dumps([{"section": s, **r.as_dict()} for s, r in results], indent=2))
        return 0
    print(f"{'measurement':<52} {'median':>11} {'target':>11}  verdict  note")
    section = None
    for s, r in results:
        if s != section:
            section = s
            print(f"-- {s}")
        target = _fmt(r.target) if r.target is not None else " " * 11
        print(f"{r.name:<52} {_fmt(r.seconds)} {target}  {r.verdict:<7}  {r.note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
