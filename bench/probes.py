"""Probe overhead: watch vs the plain loop and vs torch.autograd.detect_anomaly; examine cost in training steps.

Short runs: three model sizes (small MLP, small CNN, small transformer), medians of interleaved repeats in one
process, each watched run long enough to include window ends (``STEPS`` = 2 windows of ``EVERY``). Long runs:
10,000 steps of a tiny MLP and CNN (about a millisecond a step), plain and watched in interleaved chunks (one
watch over the whole run, so every window end and the history it keeps are paid for), detect_anomaly beside
them, and the watch's memory at 10% and 100% of the run (tracemalloc, in a separate untimed pass). One CPU
thread: the machine is shared.
Run alone with ``python -m bench.probes``; ``python -m bench`` picks up the short section.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench import Result

WATCH_TARGET = 1.03
LONG_TARGET = 1.05
EVERY = 50
STEPS = 2 * EVERY
LONG_STEPS = 10_000


def _models() -> dict[str, Callable[[], tuple[Any, Any, Any, Any]]]:
    import torch
    from torch import nn

    def mlp() -> tuple[Any, Any, Any, Any]:
        m = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
        return m, torch.optim.AdamW(m.parameters(), 1e-3), torch.randn(256, 256), torch.randint(0, 10, (256,))

    def cnn() -> tuple[Any, Any, Any, Any]:
        m = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1),
                          nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(32 * 16, 10))
        return m, torch.optim.SGD(m.parameters(), 0.05, momentum=0.9), torch.randn(32, 3, 32, 32), \
            torch.randint(0, 10, (32,))

    def transformer() -> tuple[Any, Any, Any, Any]:
        class T(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.emb = nn.Embedding(1000, 64)
                layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.1, batch_first=True)
                self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
                self.head = nn.Linear(64, 10)

            def forward(self, x: Any) -> Any:
                return self.head(self.enc(self.emb(x)).mean(1))

        m = T()
        return m, torch.optim.AdamW(m.parameters(), 3e-4), torch.randint(0, 1000, (8, 32)), \
            torch.randint(0, 10, (8,))

    def tiny_mlp() -> tuple[Any, Any, Any, Any]:
        m = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
        return m, torch.optim.AdamW(m.parameters(), 1e-3), torch.randn(64, 64), torch.randint(0, 10, (64,))

    def tiny_cnn() -> tuple[Any, Any, Any, Any]:
        m = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1),
                          nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(16 * 4, 10))
        return m, torch.optim.SGD(m.parameters(), 0.05, momentum=0.9), torch.randn(32, 1, 16, 16), \
            torch.randint(0, 10, (32,))

    return {"small MLP": mlp, "small CNN": cnn, "small transformer": transformer, "tiny MLP": tiny_mlp,
            "tiny CNN": tiny_cnn}


def _loop(m: Any, opt: Any, x: Any, y: Any, steps: int, w: Any = None) -> float:
    import torch

    t = time.perf_counter()
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        if w is not None:
            w.step(loss)
    return (time.perf_counter() - t) / steps


def measure(repeats: int = 5, steps: int = STEPS) -> list[dict[str, Any]]:
    """Per model: median seconds per step plain / watched / under detect_anomaly, and examine in steps."""
    import warnings

    import torch

    from probes import examine, watch

    warnings.filterwarnings("ignore", message="Anomaly Detection has been enabled")
    logging.getLogger("trainopt.watch").setLevel(logging.ERROR)
    torch.manual_seed(0)
    out = []
    for name, build in _models().items():
        if name.startswith("tiny"):
            continue
        m, opt, x, y = build()
        _loop(m, opt, x, y, 5)  # warm-up: allocations, lazy optimizer state
        plain, watched, anomaly = [], [], []
        for _ in range(repeats):  # interleaved, so drift hits every variant alike
            plain.append(_loop(m, opt, x, y, steps))
            with watch(m, opt, every=EVERY) as w:
                watched.append(_loop(m, opt, x, y, steps, w))
            with torch.autograd.detect_anomaly(check_nan=True):
                anomaly.append(_loop(m, opt, x, y, max(5, steps // 4)))
        ex = []
        for _ in range(max(1, repeats // 2)):
            t = time.perf_counter()
            examine(m, torch.nn.CrossEntropyLoss(), (x, y), opt)
            ex.append(time.perf_counter() - t)
        p = statistics.median(plain)
        out.append({"model": name, "plain_s": p, "watch_s": statistics.median(watched),
                    "anomaly_s": statistics.median(anomaly), "examine_s": statistics.median(ex),
                    "watch_ratio": statistics.median(watched) / p, "anomaly_ratio": statistics.median(anomaly) / p,
                    "examine_steps": statistics.median(ex) / p})
    return out


def measure_long(steps: int = LONG_STEPS, chunk: int = 500) -> list[dict[str, Any]]:
    """10,000-step runs: per-step ratio of watch (window ends included) and detect_anomaly to the plain loop,
    and the watch's Python memory at 10% and 100% of the run."""
    import copy
    import tracemalloc
    import warnings

    import torch

    from probes import watch

    warnings.filterwarnings("ignore", message="Anomaly Detection has been enabled")
    logging.getLogger("trainopt.watch").setLevel(logging.ERROR)
    out = []
    models = _models()
    for name in ("tiny MLP", "tiny CNN"):
        torch.manual_seed(0)
        m, opt, x, y = models[name]()
        m2 = copy.deepcopy(m)
        opt2 = type(opt)(m2.parameters(), **{k: v for k, v in opt.defaults.items()
                                             if k in ("lr", "momentum", "weight_decay")})
        _loop(m, opt, x, y, 5)
        _loop(m2, opt2, x, y, 5)
        plain = watched = anomaly = 0.0
        n_anomaly = 0
        with watch(m2, opt2, every=EVERY) as w:
            for _ in range(steps // chunk):  # interleaved chunks, so drift hits both alike
                plain += _loop(m, opt, x, y, chunk) * chunk
                watched += _loop(m2, opt2, x, y, chunk, w) * chunk
                if n_anomaly < steps // 50:
                    with torch.autograd.detect_anomaly(check_nan=True):
                        anomaly += _loop(m, opt, x, y, 20) * 20
                    n_anomaly += 20
        # memory: a separate, untimed watched run under tracemalloc
        m3 = copy.deepcopy(m2)
        opt3 = type(opt)(m3.parameters(), **{k: v for k, v in opt.defaults.items()
                                             if k in ("lr", "momentum", "weight_decay")})
        tracemalloc.start()
        with watch(m3, opt3, every=EVERY) as w3:
            _loop(m3, opt3, x, y, steps // 10, w3)
            early = tracemalloc.get_traced_memory()[0]
            _loop(m3, opt3, x, y, steps - steps // 10, w3)
            late = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        out.append({"model": name, "steps": steps, "plain_ms": 1e3 * plain / steps,
                    "watch_ratio": watched / plain, "anomaly_ratio": (anomaly / n_anomaly) / (plain / steps),
                    "mem_early_kb": early / 1024, "mem_late_kb": late / 1024, "windows": steps // EVERY})
    return out


def run(repeats: int = 5) -> list[Result]:
    """The section for ``python -m bench``: watch overhead against its 1.03x target, examine in steps."""
    res = []
    for r in measure(max(3, min(repeats, 7))):
        res.append(Result(f"watch step, {r['model']} (ratio to plain x plain)", r["watch_s"],
                          target=r["plain_s"] * WATCH_TARGET,
                          note=f"{r['watch_ratio']:.3f}x plain; detect_anomaly {r['anomaly_ratio']:.2f}x"))
        res.append(Result(f"examine, {r['model']}", r["examine_s"],
                          note=f"= {r['examine_steps']:.1f} training steps"))
    return res


def main(argv: list[str] | None = None) -> int:
    """Print the probe-overhead table."""
    ap = argparse.ArgumentParser(prog="python -m bench.probes", description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--long-steps", type=int, default=LONG_STEPS, help="0 skips the long runs")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    print(f"short runs ({args.steps} steps, window every {EVERY})")
    print(f"{'model':<20}{'plain ms/step':>15}{'watch':>10}{'watch x':>9}{'anomaly x':>11}{'examine (steps)':>17}")
    for r in measure(args.repeats, args.steps):
        print(f"{r['model']:<20}{r['plain_s'] * 1e3:>15.2f}{r['watch_s'] * 1e3:>10.2f}{r['watch_ratio']:>9.3f}"
              f"{r['anomaly_ratio']:>11.2f}{r['examine_steps']:>17.1f}")
    print(f"target: watch <= {WATCH_TARGET}x plain; examine a few steps")
    if args.long_steps:
        print(f"\nlong runs ({args.long_steps} steps, CPU, window every {EVERY}, window ends included)")
        print(f"{'model':<20}{'plain ms/step':>15}{'watch x':>9}{'anomaly x':>11}{'watch mem 10%':>15}"
              f"{'watch mem 100%':>16}")
        for r in measure_long(args.long_steps):
            print(f"{r['model']:<20}{r['plain_ms']:>15.2f}{r['watch_ratio']:>9.3f}{r['anomaly_ratio']:>11.2f}"
                  f"{r['mem_early_kb']:>12.0f} KB{r['mem_late_kb']:>13.0f} KB")
        print(f"target: watch <= {LONG_TARGET}x plain over the whole run, memory flat; GPU targets: not measured "
              "(no GPU in this run)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
