"""Long-run detection: does ``watch`` still catch a fault that appears late in a run, and how soon?

``bench.eval_probes`` scores the watch on runs of about sixty steps, where every fault is there from the start;
what the watch samples less often on a long run (sampled steps, batch fingerprints, hooks armed only some steps)
cannot show there. Here each scenario is a real torch training run of a small classifier (``STEPS`` steps, a
fixed teacher-labelled data set shuffled each epoch) whose fault appears at ``FAULT_AT``, in the middle of a
window: the learning rate raised a hundredfold, the inputs turning NaN, the last layer's gradients zeroed, the
labels shuffled, the loss multiplied down as a collapsed loss scale would leave it, the first layer's ReLUs killed
by a bias shift, a target off by a whole class index range. A healthy run with ordinary label noise and a
decaying LR must stay clean. Per scenario: the watch's first trip at or after the fault (its step and
rows), any trip before the fault (a false alarm), and what the rows tripped on exit read.

Not a timed test: the figures are detection, not speed (a few minutes on one core). Run with
``python -m bench.watch_detect`` (``--json`` for the raw table; ``--steps``/``--fault-at`` to resize).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
import warnings
from collections.abc import Callable
from typing import Any

STEPS = 2400
FAULT_AT = 1500  # mid-window (200-step windows): a window's worth of latency shows as the step of the next end
FEATURES, CLASSES, BATCH, DATA = 32, 10, 64, 4096
HIDDEN = 64  # the hidden width (``--hidden``: 256 gives a weight large enough to be read on a sample)


def _faults() -> dict[str, Callable[[dict[str, Any]], None] | None]:
    """Scenario name -> a function called every step from ``FAULT_AT`` on with the step's state (None: healthy).

    The state (``s``) holds ``m``, ``opt``, ``x``, ``y``, ``step`` and ``scale`` (what the loss is multiplied by
    before ``backward``); ``after_backward`` (optional) runs between ``backward`` and ``optimizer.step``.
    """
    import torch

    def lr_x100(s: dict[str, Any]) -> None:
        if s["step"] == s["fault_at"]:
            for g in s["opt"].param_groups:
                g["lr"] *= 100

    def nan_inputs(s: dict[str, Any]) -> None:
        s["x"] = torch.full_like(s["x"], float("nan"))

    def layer_grads_zeroed(s: dict[str, Any]) -> None:
        def zero(m: Any) -> None:
            for p in m[-1].parameters():
                if p.grad is not None:
                    p.grad.zero_()
        s["after_backward"] = zero

    def labels_shuffled(s: dict[str, Any]) -> None:
        s["y"] = s["y"][torch.randperm(len(s["y"]), generator=s["gen"])]

    def loss_scale_collapse(s: dict[str, Any]) -> None:
        s["scale"] = 2.0 ** -40  # a loss multiplied down and never divided back: the updates vanish

    def dead_relus(s: dict[str, Any]) -> None:
        if s["step"] == s["fault_at"]:
            with torch.no_grad():
                s["m"][0].bias -= 20.0  # every unit of the first layer below zero on (nearly) every input

    def inputs_scaled(s: dict[str, Any]) -> None:
        s["x"] = s["x"] * 1000.0  # a preprocessing change (normalisation dropped) part way

    return {"healthy": None, "lr_x100": lr_x100, "nan_inputs": nan_inputs,
            "layer_grads_zeroed": layer_grads_zeroed, "labels_shuffled": labels_shuffled,
            "loss_scale_collapse": loss_scale_collapse, "dead_relus": dead_relus, "inputs_scaled": inputs_scaled}


def run_one(name: str, steps: int = STEPS, fault_at: int = FAULT_AT, seed: int = 0, hidden: int = HIDDEN
            ) -> dict[str, Any]:
    """Train one scenario under ``watch``; return its trips (step, rows), false alarms and the rows on exit."""
    import torch
    from torch import nn

    from probes.watcher import tripped_rows
    from trainopt import watch

    fault = _faults()[name]
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed + 1)
    data = torch.randn(DATA, FEATURES, generator=gen)
    teacher = torch.randn(FEATURES, CLASSES, generator=gen)
    labels = (data @ teacher).argmax(1)
    if name == "healthy":  # ordinary label noise: 5% of the labels wrong, fixed for the run
        flip = torch.rand(DATA, generator=gen) < 0.05
        labels[flip] = torch.randint(0, CLASSES, (int(flip.sum()),), generator=gen)
    m = nn.Sequential(nn.Linear(FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                      nn.Linear(hidden, CLASSES))
    opt = torch.optim.AdamW(m.parameters(), 1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps) if name == "healthy" else None
    loss_fn = nn.CrossEntropyLoss()
    per_epoch = DATA // BATCH
    order = torch.randperm(DATA, generator=gen)
    t0 = time.process_time()
    with watch(m, opt, loss_fn=loss_fn, scheduler=sched) as w:
        for step in range(steps):
            if step % per_epoch == 0:
                order = torch.randperm(DATA, generator=gen)
            idx = order[(step % per_epoch) * BATCH:(step % per_epoch + 1) * BATCH]
            s = {"m": m, "opt": opt, "x": data[idx], "y": labels[idx], "step": step, "fault_at": fault_at,
                 "scale": 1.0, "gen": gen, "after_backward": None}
            if fault is not None and step >= fault_at:
                fault(s)
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(m(s["x"]), s["y"])
            (loss * s["scale"]).backward()
            if s["after_backward"] is not None:
                s["after_backward"](m)
            opt.step()
            if sched is not None:
                sched.step()
            w.step(loss)
        exit_rows = tripped_rows({o.name: o for o in w.observations()}, w.probes)
    seconds = time.process_time() - t0
    before = [t for t in w.trips if t["step"] <= fault_at]
    after = [t for t in w.trips if t["step"] > fault_at]
    first = after[0] if after else None
    return {"scenario": name, "fault_at": None if fault is None else fault_at, "steps": steps,
            "false_alarms": before, "detected": first is not None if fault is not None else None,
            "step": first["step"] if first else None,
            "latency": first["step"] - fault_at if first else None,
            "rows": first["rows"] if first else [], "exit_rows": sorted(exit_rows),
            "switched_off": dict(w.switched_off), "cpu_s": seconds}


def run(steps: int = STEPS, fault_at: int = FAULT_AT, only: str | None = None,
        seeds: tuple[int, ...] = (0,), hidden: int = HIDDEN) -> list[dict[str, Any]]:
    """Every scenario (or those whose name contains ``only``), for each seed."""
    import torch

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    logging.getLogger("trainopt.watch").setLevel(logging.ERROR)
    return [dict(run_one(n, steps, fault_at, seed, hidden), seed=seed)
            for seed in seeds for n in _faults() if only is None or only in n]


def render(rows: list[dict[str, Any]]) -> str:
    """One line per scenario: detected and at which step, the rows, false alarms."""
    out = [f"{'scenario':<22}{'seed':>5}{'detected':>10}{'step':>7}{'latency':>9}{'false':>7}{'cpu s':>7}  rows "
           "(first trip after the fault) | on exit"]
    for r in rows:
        det = "-" if r["detected"] is None else ("yes" if r["detected"] else "NO")
        out.append(f"{r['scenario']:<22}{r['seed']:>5}{det:>10}{r['step'] or '-':>7}{r['latency'] or '-':>9}"
                   f"{len(r['false_alarms']):>7}{r['cpu_s']:>7.1f}  {', '.join(r['rows']) or '-'} | "
                   f"{', '.join(r['exit_rows']) or '-'}")
        for t in r["false_alarms"]:
            out.append(f"{'':<22}  false alarm at step {t['step']}: {', '.join(t['rows'])}")
    faults = [r for r in rows if r["detected"] is not None]
    healthy = [r for r in rows if r["detected"] is None]
    out.append(f"detected {sum(r['detected'] for r in faults)}/{len(faults)} faults; "
               f"false alarms in {sum(bool(r['false_alarms']) for r in rows)}/{len(rows)} runs "
               f"(healthy runs with any trip: {sum(bool(r['false_alarms']) or r['step'] is not None for r in healthy)}"
               f"/{len(healthy)})")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Print the detection table."""
    ap = argparse.ArgumentParser(prog="python -m bench.watch_detect", description=__doc__)
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--fault-at", type=int, default=FAULT_AT)
    ap.add_argument("--only", help="only scenarios whose name contains this text")
    ap.add_argument("--seeds", type=int, default=1, help="seeds per scenario (0, 1, ...)")
    ap.add_argument("--hidden", type=int, default=HIDDEN, help="hidden width of the MLP")
    ap.add_argument("--json", action="store_true", help="JSON to stdout")
    args = ap.parse_args(argv)
    rows = run(args.steps, args.fault_at, args.only, tuple(range(args.seeds)), args.hidden)
    print(json.dumps(rows, indent=1) if args.json else render(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
