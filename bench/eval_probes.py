"""`make eval-probes`: score watch and examine on generated runs (faults in many setups, healthy habits).

Every fault of ``tests.zoo.generated`` is injected into several architectures, optimizers and seeds, and every
healthy habit is trained on every architecture. Each variant runs under ``watch`` and through ``examine``;
the score per mode is: faults routed right (a right skill is a primary route), faults named right (a finding
that names the fault), and healthy runs with a warning-level finding. Targets: >= 95% routed right, 0 healthy
runs warned. ``--quick`` runs a third of the fault variants and one seed of the healthy ones (CI).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
import warnings
from collections import defaultdict
from typing import Any

TARGET_ROUTED = 0.95


def run(quick: bool = False, modes: tuple[str, ...] = ("watch", "examine"), only: str | None = None,
        verbose: bool = False) -> dict[str, Any]:
    """Run every variant in every mode; return the scores and the misses."""
    import torch

    from tests.zoo.generated import examine_variant, score, variants, watch_variant

    torch.set_num_threads(1)  # tiny models: threads only add contention on a shared machine
    logging.getLogger("trainopt.watch").setLevel(logging.ERROR)
    vs = [v for v in variants(quick=quick) if only is None or only in v.name]
    out: dict[str, Any] = {"variants": len(vs), "modes": {}}
    for mode in modes:
        fn = watch_variant if mode == "watch" else examine_variant
        rows = []
        t0 = time.perf_counter()
        for v in vs:
            if v.fault is not None and mode not in v.fault.modes:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = score(v, fn(v))
            except Exception as exc:  # noqa: BLE001 - a crash is a miss, reported with its cause
                r = {"variant": v.name, "healthy": v.healthy, "error": f"{type(exc).__name__}: {exc}",
                     "routed": False, "named": False, "warned": True, "fault": v.fault.name if v.fault else None}
            rows.append(r)
            if verbose:
                print(mode, _line(r), file=sys.stderr)
        faults = [r for r in rows if not r["healthy"]]
        healthy = [r for r in rows if r["healthy"]]
        per_fault: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for r in faults:
            pf = per_fault[r["fault"]]
            pf[0] += 1
            pf[1] += bool(r["routed"])
            pf[2] += bool(r["named"])
        out["modes"][mode] = {
            "faults": len(faults), "routed": sum(bool(r["routed"]) for r in faults),
            "named": sum(bool(r["named"]) for r in faults), "healthy": len(healthy),
            "healthy_warned": sum(bool(r["warned"]) for r in healthy), "seconds": time.perf_counter() - t0,
            "per_fault": {k: {"runs": v[0], "routed": v[1], "named": v[2]} for k, v in sorted(per_fault.items())},
            "misses": [r for r in faults if not r["routed"]] + [r for r in healthy if r["warned"]],
        }
    return out


def _line(r: dict[str, Any]) -> str:
    if r.get("error"):
        return f"{r['variant']}: ERROR {r['error']}"
    if r["healthy"]:
        return f"{r['variant']}: {'WARNED ' + str(r['findings']) if r['warned'] else 'clean'}"
    return (f"{r['variant']}: routed={r['routed']} named={r['named']} primary={r['primary']} "
            f"findings={r['findings']}")


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100.0 * a / b:.1f}%)" if b else "-"


def render(res: dict[str, Any], misses: bool = True) -> str:
    """The human table."""
    lines = [f"generated probe evaluation: {res['variants']} variants"]
    for mode, m in res["modes"].items():
        lines.append(f"\n{mode} ({m['seconds']:.0f} s)")
        lines.append(f"  faults routed right (primary): {_pct(m['routed'], m['faults'])}"
                     f"   target >= {TARGET_ROUTED:.0%}")
        lines.append(f"  faults named right:            {_pct(m['named'], m['faults'])}")
        lines.append(f"  healthy runs with a warning:   {m['healthy_warned']}/{m['healthy']}   target 0")
        lines.append("  per fault (runs, routed, named):")
        for k, v in m["per_fault"].items():
            lines.append(f"    {k:32s} {v['runs']:3d} {v['routed']:3d} {v['named']:3d}")
        if misses and m["misses"]:
            lines.append("  misses:")
            lines += [f"    {_line(r)}" for r in m["misses"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m bench.eval_probes [--quick] [--json] [--mode watch|examine] [--only TEXT]``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a reduced set (CI)")
    ap.add_argument("--json", action="store_true", help="JSON to stdout")
    ap.add_argument("--mode", choices=("watch", "examine"), action="append", help="only this mode (repeatable)")
    ap.add_argument("--only", help="only variants whose name contains this text")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per variant on stderr")
    a = ap.parse_args(argv)
    res = run(a.quick, tuple(a.mode or ("watch", "examine")), a.only, a.verbose)
    print(json.dumps(res, indent=1, default=str) if a.json else render(res))
    ok = all(m["faults"] == 0 or (m["routed"] / m["faults"] >= TARGET_ROUTED and m["healthy_warned"] == 0)
             for m in res["modes"].values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
