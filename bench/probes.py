"""Probe overhead: watch against the plain loop and against torch.autograd.detect_anomaly, per step, window ends in.

Every figure is a ratio of seconds per step measured in one process, plain and watched interleaved so that the
machine's drift hits both alike, with the watch at its default window (``probes.watcher.WINDOW``, 200 steps; runs
long enough that window ends are paid for):

* short runs: the small MLP, CNN and transformer, ``repeats`` interleaved pairs of two windows each; the median
  of the pair ratios;
* long runs, in two rounds (``ROUNDS``: round 1 over every model, then round 2; both rounds reported, and their
  pooled ratio judged): 10,000 steps in all of the small MLP and CNN on CPU, each round under one watch (target
  1.05x, and at most 60 us added a step on the small MLP), and of the small MLP at batch 512 (a step of 10 ms or
  more: target 1.02x), with a plain
  chunk of 20 steps beside every watched one (the whole-run ratio is the sum of the watched chunks over the sum of
  the plain ones); then 10,000 steps of a tiny MLP and CNN (about a millisecond a
  step: the watch's fixed per-step and per-window costs, worst case, no target) with a plain chunk beside every
  watched one; the median chunk ratio and the whole-run ratio, and for the tiny ones the watch's memory
  (tracemalloc: held at 10% and at 100% of the run, and the peak) in a separate untimed run: flat means it
  does not grow with the steps. Both arms train the same model and optimizer (the watch's hooks are off during
  a plain chunk, see ``_pause``), and the process's malloc keeps freed buffers (``_steady_malloc``): two
  copies of a model (15% apart in one run of the slow MLP), or glibc returning a step's buffers to the kernel
  and faulting them back in (1% on one model), made two identical plain loops differ on the 2-core reference
  machine (issue 21) by more than the watch costs;
* GPU runs, only where CUDA is available: a ResNet-18 at 224 px, batch 64, bf16 autocast, and a GPT-2-small
  sized transformer (12 layers, width 768, 50,257 tokens), with the host syncs outside window ends counted by
  ``torch.cuda.set_sync_debug_mode`` (target: none).

``torch.autograd.detect_anomaly`` is timed beside each, as the usual alternative. CPU runs use one thread: the
machine is shared. Run alone with ``python -m bench.probes``; ``python -m bench`` (``make bench``) includes it.
"""

from __future__ import annotations

import argparse
import copy
import functools
import logging
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

from bench import Result

WATCH_TARGET = 1.03
LONG_TARGET = 1.05
GPU_TARGET = 1.02
ADDED_TARGET = 60e-6  # issue 21: at most 60 us added per step on the small MLP, window ends included
SLOW_STEP = 0.010  # issue 21: a step of 10 ms or more is judged against GPU_TARGET (1.02x), CPU or GPU
EVERY = 200  # the watch's default window (probes.watcher.WINDOW; not imported here: torch loads with it)
STEPS = 2 * EVERY
LONG_STEPS = 10_000
CHUNK = 20  # fine interleaving: the machine's drift over a chunk is what a ratio's noise is made of (a tenth of a
# window: every tenth watched chunk holds a window end, and the whole-run ratio pays for each)
GPU_STEPS = 3 * EVERY
GPU_CHUNK = 50


def _models() -> dict[str, Callable[[], tuple[Any, Any, Any, Any]]]:
    import torch
    from torch import nn

    # The small and tiny models differ only in size: one builder each, sized by its arguments.
    def mlp(width: int = 256, hidden: int = 512, batch: int = 256) -> tuple[Any, Any, Any, Any]:
        m = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                          nn.Linear(hidden, 10))
        return m, torch.optim.AdamW(m.parameters(), 1e-3), torch.randn(batch, width), torch.randint(0, 10, (batch,))

    def cnn(channels: int = 3, c1: int = 16, pool: int = 4, side: int = 32) -> tuple[Any, Any, Any, Any]:
        m = nn.Sequential(nn.Conv2d(channels, c1, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(c1, 2 * c1, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(pool), nn.Flatten(),
                          nn.Linear(2 * c1 * pool * pool, 10))
        return m, torch.optim.SGD(m.parameters(), 0.05, momentum=0.9), torch.randn(32, channels, side, side), \
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

    return {"small MLP": mlp, "small CNN": cnn, "small transformer": transformer,
            # the small MLP at twice the batch: the same parameters (so the same watch work per step) in a step
            # of 10 ms or more on the reference machine, where the target is GPU_TARGET (issue 21)
            "slow MLP": functools.partial(mlp, batch=512),
            "tiny MLP": functools.partial(mlp, width=64, hidden=128, batch=64),
            "tiny CNN": functools.partial(cnn, channels=1, c1=8, pool=2, side=16)}


def _loop(m: Any, opt: Any, x: Any, y: Any, steps: int, w: Any = None, autocast: Any = None,
          sync: bool = False) -> float:
    """Seconds per step of a plain training loop (``w.step(loss)`` when watched).

    On the CPU the clock is the process's CPU time (one thread: the work done, not the other processes'
    turns on a shared machine); on the GPU (``sync``) it is wall time between synchronisations.
    """
    import contextlib

    import torch

    ctx = autocast or contextlib.nullcontext
    clock = time.perf_counter if sync else time.process_time
    if sync:
        torch.cuda.synchronize()
    t = clock()
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        with ctx():
            out = m(x)
            loss = torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        if w is not None:
            w.step(loss)
    if sync:
        torch.cuda.synchronize()
    return (clock() - t) / steps


def _resume(w: Any) -> None:
    """The watched loop resumes after a plain chunk: that chunk was the bench's work, not the loop's data wait.

    Without this the loader-timing probe reads the plain chunk as a data wait (a sampled step often falls on a
    chunk's first step) and trips, and the diagnosis it pays for lands in the watched time. A watch paused by
    ``_pause`` gets its two always-on hooks back (and the sampled step's, when the next step is one).
    """
    if not w._hooked:
        w._hook()
    tp = w.probe("throughput")
    if tp is not None:
        tp.restart()


def _pause(w: Any) -> None:
    """Take the watch's hooks off its model and optimizer: the next chunk is a plain loop of the same model.

    The plain arm trains the watched model itself, so both arms run the same tensors at the same addresses: a
    copy of the model (``copy.deepcopy``) ran 15% slower than the original in a plain-against-plain run of the
    slow MLP on the 2-core reference machine, a layout effect larger than the watch's cost (issue 21). The watch
    counts nothing while paused; the chunk's steps are not its steps.
    """
    w._unhook()  # its hooks and its optimizer-step counter


def _steady_malloc() -> None:
    """Make glibc keep freed buffers in the heap: a step's allocations then cost the same in both arms.

    By default glibc serves large blocks with ``mmap`` and gives the top of the heap back to the kernel past a
    threshold that moves with what was freed last, so whether a step's activations and gradients fault their
    pages in again (about 250 faults a step on the slow MLP) depends on where other, unrelated allocations
    happened to land: two identical plain loops differed by about 1% on that alone (issue 21). Fixed
    thresholds end the lottery for both arms. A no-op off glibc.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: keep up to 1 GiB of free heap
        libc.mallopt(-3, 1 << 28)  # M_MMAP_THRESHOLD: blocks below 256 MiB come from the heap (fixed, not dynamic)
    except (OSError, AttributeError):
        pass


def _twin(m: Any, opt: Any) -> tuple[Any, Any]:
    """A copy of the model and a fresh optimizer of the same kind: the watched run's own."""
    import inspect

    m2 = copy.deepcopy(m)
    accepted = inspect.signature(type(opt).__init__).parameters
    return m2, type(opt)(m2.parameters(), **{k: v for k, v in opt.defaults.items() if k in accepted})


def _quiet() -> None:
    warnings.filterwarnings("ignore", message="Anomaly Detection has been enabled")
    logging.getLogger("trainopt.watch").setLevel(logging.ERROR)


def measure(repeats: int = 5, steps: int = STEPS) -> list[dict[str, Any]]:
    """Short runs per model: median seconds per step plain / watched / under detect_anomaly, examine in steps."""
    import torch

    from probes import examine
    from trainopt import watch

    _quiet()
    torch.manual_seed(0)
    out = []
    for name, build in _models().items():
        if name.startswith(("tiny", "slow")):
            continue
        m, opt, x, y = build()
        _loop(m, opt, x, y, 5)  # warm-up: allocations, lazy optimizer state
        plain, watched, anomaly = [], [], []
        for _ in range(repeats):  # interleaved, so drift hits every variant alike
            plain.append(_loop(m, opt, x, y, steps))
            with watch(m, opt, loss_fn=torch.nn.CrossEntropyLoss()) as w:
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
                    "watch_ratio": statistics.median(a / b for a, b in zip(watched, plain)),
                    "anomaly_ratio": statistics.median(anomaly) / p, "examine_steps": statistics.median(ex) / p})
    return out


LONG_MODELS = ("small MLP", "small CNN", "slow MLP")  # the long runs: LONG_TARGET, GPU_TARGET at 10 ms
FIXED_COST_MODELS = ("tiny MLP", "tiny CNN")  # about a millisecond a step: the watch's fixed costs, worst case


def measure_long(steps: int = LONG_STEPS, chunk: int = CHUNK, names: tuple[str, ...] = LONG_MODELS,
                 plain_every: int = 1, memory: bool = True) -> list[dict[str, Any]]:
    """Long runs under one watch: per-step ratios (window ends included), detect_anomaly, memory.

    Args:
        steps: Watched steps (window ends every ``EVERY``).
        chunk: Steps per timed chunk; a plain chunk of the same model (the watch paused) runs beside every
            ``plain_every``-th watched chunk (the ratio of a chunk pair is the watched chunk's time per step over
            the plain one's).
        names: Models from ``_models``.
        plain_every: 1 times a plain chunk beside every watched one; more saves time on the slower models.
        memory: Also run the watch under tracemalloc, untimed (its memory at 10% and at 100% of the run).
    """
    import tracemalloc

    import torch

    from trainopt import watch

    _quiet()
    out = []
    models = _models()
    for name in names:
        torch.manual_seed(0)
        m, opt, x, y = models[name]()
        _loop(m, opt, x, y, 5)
        plain, watched, pairs, anomaly = [], [], [], []
        # one model for both arms (see _pause): the watch's hooks are off in the plain and anomaly chunks
        with watch(m, opt, loss_fn=torch.nn.CrossEntropyLoss()) as w:
            _pause(w)
            for i in range(steps // chunk):  # interleaved chunks, so drift hits both alike
                if i % plain_every == 0 and i % 2:
                    plain.append(_loop(m, opt, x, y, chunk))
                _resume(w)
                watched.append(_loop(m, opt, x, y, chunk, w))
                _pause(w)
                if i % plain_every == 0 and not i % 2:  # which goes first alternates
                    plain.append(_loop(m, opt, x, y, chunk))
                if i % plain_every == 0:
                    pairs.append(watched[-1] / plain[-1])
                if i % (25 * plain_every) == 0:
                    with torch.autograd.detect_anomaly(check_nan=True):
                        anomaly.append(_loop(m, opt, x, y, 20))
        windows = w.steps // w.every
        p = statistics.median(plain)
        r = {"model": name, "steps": steps, "plain_ms": 1e3 * p, "watch_ratio": statistics.median(pairs),
             "watch_ratio_total": statistics.fmean(watched) / statistics.fmean(plain),
             "plain_mean_ms": 1e3 * statistics.fmean(plain), "watch_mean_ms": 1e3 * statistics.fmean(watched),
             "anomaly_ratio": statistics.median(anomaly) / p, "windows": windows, "trips": len(w.trips)}
        if memory:  # a separate, untimed watched run under tracemalloc
            m3, opt3 = _twin(m, opt)
            tracemalloc.start()
            with watch(m3, opt3) as w3:
                _loop(m3, opt3, x, y, steps // 10, w3)
                early, peak_early = tracemalloc.get_traced_memory()
                _loop(m3, opt3, x, y, steps - steps // 10, w3)
                late, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            r.update({"mem_early_kb": early / 1024, "mem_late_kb": late / 1024, "peak_early_kb": peak_early / 1024,
                      "peak_kb": peak / 1024})
        out.append(r)
    return out


ROUNDS = 2
"""The long runs are measured in this many rounds, each over every model in turn (a round's steps are the run's
divided among them): the watch measured twice, both figures reported, so a ratio that one round's drift made is
seen as such beside the other (issue 21), in the time one round of the full length took."""


def measure_rounds(steps: int = LONG_STEPS, rounds: int = ROUNDS) -> list[list[dict[str, Any]]]:
    """The long runs, ``rounds`` times in turn (round 1 over every model, then round 2...): each model's rows.

    Each round runs ``steps // rounds`` watched steps of each model (window ends every ``EVERY``); the tiny
    models' memory is measured in the last round only. Returns, per model (``LONG_MODELS`` then
    ``FIXED_COST_MODELS``), its rounds' results in order; :func:`pooled` combines them.
    """
    per = max(EVERY, steps // max(1, rounds))
    done: list[list[dict[str, Any]]] = []
    for k in range(rounds):
        last = k == rounds - 1
        done.append(measure_long(per, names=LONG_MODELS, memory=False)
                    + measure_long(per, names=FIXED_COST_MODELS, memory=last))
    return [list(rs) for rs in zip(*done)]


def pooled(rs: list[dict[str, Any]]) -> dict[str, Any]:
    """One model's rounds as one run: the whole-run ratio over every round's chunks (equal counts per round)."""
    r = dict(rs[-1])
    r["steps"] = sum(x["steps"] for x in rs)
    r["plain_ms"] = statistics.median(x["plain_ms"] for x in rs)
    r["watch_ratio"] = statistics.median(x["watch_ratio"] for x in rs)
    r["watch_ratio_total"] = sum(x["watch_mean_ms"] for x in rs) / sum(x["plain_mean_ms"] for x in rs)
    r["anomaly_ratio"] = statistics.median(x["anomaly_ratio"] for x in rs)
    r["trips"] = sum(x["trips"] for x in rs)
    # each round's whole-run ratio and microseconds added per step (its median plain step times the excess)
    r["rounds"] = [(x["watch_ratio_total"], x["plain_ms"] * (x["watch_ratio_total"] - 1) * 1e3) for x in rs]
    return r


def _rounds_note(r: dict[str, Any]) -> str:
    return "rounds " + ", ".join(f"{ratio:.3f}x ({us:.0f} us)" for ratio, us in r.get("rounds", ()))


def _mem(r: dict[str, Any]) -> str:
    return f"watch memory {r['mem_early_kb']:.0f} KB at 10%, {r['mem_late_kb']:.0f} KB at 100%" \
        if "mem_early_kb" in r else "memory: see the tiny runs"


def _gpu_models() -> dict[str, Callable[[], tuple[Any, Any, Any, Any]]]:
    """A ResNet-18 (224 px, batch 64) and a GPT-2-small-sized causal transformer, on the GPU."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.b1 = nn.BatchNorm2d(cout)
            self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.b2 = nn.BatchNorm2d(cout)
            self.down = None if stride == 1 and cin == cout else nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x: Any) -> Any:
            y = torch.relu(self.b1(self.c1(x)))
            y = self.b2(self.c2(y))
            return torch.relu(y + (x if self.down is None else self.down(x)))

    def resnet18() -> tuple[Any, Any, Any, Any]:
        layers: list[nn.Module] = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                   nn.MaxPool2d(3, 2, 1)]
        cin = 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
            cin = cout
        m = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)).cuda()
        m = m.to(memory_format=torch.channels_last)
        x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
        return m, torch.optim.SGD(m.parameters(), 0.1, momentum=0.9, weight_decay=1e-4), x, \
            torch.randint(0, 1000, (64,), device="cuda")

    class GPT(nn.Module):
        def __init__(self, vocab: int = 50257, width: int = 768, depth: int = 12, heads: int = 12,
                     ctx: int = 512) -> None:
            super().__init__()
            self.tok = nn.Embedding(vocab, width)
            self.pos = nn.Embedding(ctx, width)
            layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0, activation="gelu",
                                               batch_first=True, norm_first=True)
            self.blocks = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)
            self.head.weight = self.tok.weight  # tied, as in GPT-2: 124M parameters
            self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(ctx), persistent=False)

        def forward(self, idx: Any) -> Any:
            t = idx.shape[1]
            h = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
            h = self.blocks(h, mask=self.mask[:t, :t], is_causal=True)
            return self.head(self.norm(h))

    def gpt2() -> tuple[Any, Any, Any, Any]:
        m = GPT().cuda()
        tokens = torch.randint(0, 50257, (8, 513), device="cuda")
        return m, torch.optim.AdamW(m.parameters(), 3e-4, weight_decay=0.1, fused=True), tokens[:, :-1], \
            tokens[:, 1:]

    return {"ResNet-18 224px b64 bf16": resnet18, "GPT-2 small b8x512 bf16": gpt2}


def _count_syncs(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """Host synchronisations ``fn(*args, **kwargs)`` causes, as ``torch.cuda.set_sync_debug_mode`` reports them."""
    import torch

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        try:
            fn(*args, **kwargs)
        finally:
            torch.cuda.set_sync_debug_mode(0)
    return sum("synchroniz" in str(w.message).lower() for w in seen)


def _bf16() -> Any:
    import torch

    return torch.autocast("cuda", dtype=torch.bfloat16)


def _gpu_one(name: str, build: Callable[[], tuple[Any, Any, Any, Any]], steps: int, chunk: int) -> dict[str, Any]:
    import torch

    from trainopt import watch

    torch.manual_seed(0)
    m, opt, x, y = build()
    m2, opt2 = _twin(m, opt)
    for mm, oo in ((m, opt), (m2, opt2)):
        _loop(mm, oo, x, y, 5, autocast=_bf16, sync=True)
    plain, watched, anomaly = [], [], []
    syncs_plain = _count_syncs(_loop, m, opt, x, y, 5, autocast=_bf16)
    with watch(m2, opt2) as w:
        for i in range(steps // chunk):
            plain.append(_loop(m, opt, x, y, chunk, autocast=_bf16, sync=True))
            _resume(w)
            watched.append(_loop(m2, opt2, x, y, chunk, w, autocast=_bf16, sync=True))
            if i % 3 == 0:
                with torch.autograd.detect_anomaly(check_nan=True):
                    anomaly.append(_loop(m, opt, x, y, 3, autocast=_bf16, sync=True))
        # syncs: every step of a window but its last, then the step that ends the window on its own
        torch.cuda.synchronize()
        syncs_steps = _count_syncs(_loop, m2, opt2, x, y, w.every - 1 - w._i, w, autocast=_bf16)
        syncs_window = _count_syncs(_loop, m2, opt2, x, y, 1, w, autocast=_bf16)
    p = statistics.median(plain)
    return {"model": name, "plain_ms": 1e3 * p, "watch_ratio": statistics.median(a / b for a, b in zip(watched, plain)),
            "anomaly_ratio": statistics.median(anomaly) / p, "syncs_plain_5_steps": syncs_plain,
            "syncs_outside_window_ends": syncs_steps, "syncs_at_a_window_end": syncs_window,
            "peak_gib": torch.cuda.max_memory_allocated() / 2**30, "trips": len(w.trips)}


def measure_gpu(steps: int = GPU_STEPS, chunk: int = GPU_CHUNK) -> list[dict[str, Any]]:
    """GPU-bound models under one watch: per-step ratio (window ends in), detect_anomaly, host syncs.

    Returns an empty list without CUDA.
    """
    import torch

    if not torch.cuda.is_available():
        return []
    _quiet()
    torch.backends.cudnn.benchmark = True
    out = []
    for name, build in _gpu_models().items():
        out.append(_gpu_one(name, build, steps, chunk))
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    return out


def breakdown(name: str = "small MLP", steps: int = 1000) -> tuple[float, dict[str, float]]:
    """Where the watch's time goes, in place: CPU seconds per step of each of its entry points and handlers.

    Each torch hook the watch registers, ``w.step``, the window end's parts (``read_window``, ``accumulate`` per
    plugin, ``observations``, the trip check) and every plugin handler is timed where it runs, inside a training
    loop: an op there meets the caches the step has left (cold data and code) and costs several times what it
    costs in a micro-benchmark. The clock is this thread's CPU time (another process's turn is not counted); each
    timed part adds about a microsecond of clock reads to the part it runs in.

    Returns:
        The plain step's CPU seconds, and seconds per step by part: ``parent/part`` paths (``step/flush/...``).
    """
    import torch

    import probes.watcher as watcher
    from trainopt import watch

    _quiet()
    torch.manual_seed(0)
    m, opt, x, y = _models()[name]()
    _loop(m, opt, x, y, 20)
    plain = _loop(m, opt, x, y, min(steps, 200))
    spent: dict[str, float] = {}
    clock = time.thread_time

    def timed(part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def inner(*args: Any, **kwargs: Any) -> Any:
            t = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[part] = spent.get(part, 0.0) + clock() - t
        return inner

    trip_check = watcher.tripped_rows
    hook_of = {"_on_fwd_pre": "forward pre-hook", "_on_fwd": "forward hook", "_on_opt_pre": "optimizer pre-hook",
               "_on_opt_post": "optimizer post-hook", "_on_step_end": "w.step",
               "_on_gradless": "optimizer step counter"}
    w = watch(m, opt, loss_fn=torch.nn.CrossEntropyLoss())
    w.__enter__()
    try:
        for ev, where in hook_of.items():
            for hooks in (getattr(w, ev), getattr(w, ev + "_rest", None)):
                if hooks is not None:
                    hooks[:] = [timed(f"{where}/{ev[4:]}: {f.__self__.info.id}", f) for f in hooks]
        for p in w._on_window:
            p.accumulate = timed(f"w.step/window end/accumulate: {p.info.id}", p.accumulate)
        parts = {"_fwd_pre": "forward pre-hook", "_opt_post": "optimizer post-hook", "step": "w.step",
                 "_flush": "w.step/window end", "read_window": "w.step/window end/read_window",
                 "observations": "w.step/window end/observations"}
        for attr, part in parts.items():
            setattr(w, attr, timed(part, getattr(w, attr)))
        # the hooks registered on entry, again, timed (the instance's own, so the watch registers these when it
        # puts a hook back on), and the optimizer-step counter
        w._unhook()
        w._fwd_post = timed("forward hook", w._fwd_post)
        w._opt_pre = timed("optimizer pre-hook", w._opt_pre)
        w._hook()
        counter = w._step_code
        if counter is not None:
            opt._optimizer_step_code = timed("optimizer step counter", counter)
        watcher.tripped_rows = timed("w.step/window end/trip check", trip_check)
        _loop(m, opt, x, y, steps, w)
    finally:
        watcher.tripped_rows = trip_check
        if w._step_code is not None:
            opt._optimizer_step_code = w._step_code  # the watch's own again: its exit takes it off
        w.__exit__(None, None, None)
    return plain, {k: v / steps for k, v in spent.items()}


def counts(name: str = "small MLP", steps: int = 1500) -> dict[str, float]:
    """What the watch adds per step, counted rather than timed (the 2-core reference machine's timings drift).

    A fresh watch over ``steps`` steps (its dense starts and window ends included, as a bench round has them):
    torch ops dispatched (``TorchDispatchMode``) and Python bytecodes executed in every frame (torch's own
    included: a registered hook sends ``nn.Module.__call__`` down its slow path), each per step, plain and
    watched. Machine-independent, so a change's effect shows where timing noise hides it.
    """
    import collections
    import sys

    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    from trainopt import watch

    class Ops(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.n = 0

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            self.n += 1
            return func(*args, **(kwargs or {}))

    _quiet()
    torch.manual_seed(0)
    m, opt, x, y = _models()[name]()
    _loop(m, opt, x, y, 5)
    n = collections.Counter()

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode":
            n["bytecodes"] += 1
        return local

    from probes import watcher

    # the watch's entry points torch calls inside a step: each entry costs the step far more than its bytecodes
    # (caches the step has flushed, issue 21), so they are counted apart
    W = watcher.Watch
    entries = {f.__code__ for f in (W._fwd_pre, W._fwd_post, W._opt_pre, W._opt_post)}
    if hasattr(watcher, "_StepCounter"):  # (the optimizer-step counter: a bench of an older watch has none)
        entries.add(watcher._StepCounter.__call__.__code__)

    def trace(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        n["calls"] += 1
        n["entries"] += frame.f_code in entries
        return local

    def count(k: int, w: Any = None) -> tuple[float, float]:
        """Ops and bytecodes per step over ``k`` steps (two passes: the tracer would slow the op counter)."""
        with Ops() as ops:
            _loop(m, opt, x, y, k, w)
        n.clear()
        sys.settrace(trace)
        try:
            _loop(m, opt, x, y, k, w)
        finally:
            sys.settrace(None)
        return ops.n / k, n["bytecodes"] / k, n["calls"] / k

    plain_ops, plain_bc, plain_calls = count(100)
    # ops on one fresh watch, bytecodes on another: each pass sees what a bench round sees (the dense starts)
    with watch(m, opt, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        with Ops() as ops:
            _loop(m, opt, x, y, steps, w)
    watched_ops = ops.n / steps
    n.clear()
    with watch(m, opt, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        sys.settrace(trace)
        try:
            _loop(m, opt, x, y, steps, w)
        finally:
            sys.settrace(None)
    return {"plain_ops": plain_ops, "watched_ops": watched_ops, "plain_bytecodes": plain_bc,
            "watched_bytecodes": n["bytecodes"] / steps, "plain_calls": plain_calls,
            "watched_calls": n["calls"] / steps, "hook_entries": n["entries"] / steps}


def run(repeats: int = 5) -> list[Result]:
    """The section for ``python -m bench``: short runs, the 10,000-step CPU runs, and the GPU runs with CUDA."""
    import torch

    torch.set_num_threads(1)
    _steady_malloc()
    res = []
    for r in measure(max(3, min(repeats, 7))):
        res.append(Result(f"watch step, {r['model']} (ratio to plain x plain)", r["watch_s"],
                          target=r["plain_s"] * WATCH_TARGET,
                          note=f"{r['watch_ratio']:.3f}x plain; detect_anomaly {r['anomaly_ratio']:.2f}x"))
        res.append(Result(f"examine, {r['model']}", r["examine_s"],
                          note=f"= {r['examine_steps']:.1f} training steps"))
    for r in map(pooled, measure_rounds()):
        p = r["plain_ms"] / 1e3
        long = r["model"] in LONG_MODELS
        added = p * (r["watch_ratio_total"] - 1)
        # judged over the whole run, as the target says (window ends and any trip's diagnosis included); the
        # median chunk pair is beside it; a step of SLOW_STEP or more is held to GPU_TARGET
        limit = GPU_TARGET if p >= SLOW_STEP else LONG_TARGET
        res.append(Result(f"watch step, {r['model']}, {r['steps']} steps ({len(r['rounds'])} rounds)",
                          p * r["watch_ratio_total"],
                          target=p * limit if long else None,
                          note=f"{r['watch_ratio_total']:.3f}x plain over the whole run ("
                               + (f"target {limit}x; " if long else "")
                               + f"median chunk pair {r['watch_ratio']:.3f}x); {added * 1e6:.0f} us added per step; "
                               f"{_rounds_note(r)}; detect_anomaly {r['anomaly_ratio']:.2f}x; {_mem(r)}"
                               + ("" if long else "; fixed costs, worst case: no target")))
        if r["model"] == "small MLP":
            res.append(Result(f"watch added per step, small MLP, {r['steps']} steps", added, target=ADDED_TARGET,
                              note=f"whole run, window ends in; {_rounds_note(r)}; plain step {p * 1e3:.2f} ms "
                                   "(CPU, one thread)"))
    gpu = measure_gpu()
    for r in gpu:
        p = r["plain_ms"] / 1e3
        res.append(Result(f"watch step, {r['model']}", p * r["watch_ratio"], target=p * GPU_TARGET,
                          note=f"{r['watch_ratio']:.3f}x plain; detect_anomaly {r['anomaly_ratio']:.2f}x; "
                               f"{r['syncs_outside_window_ends']} host syncs outside window ends"))
    if not gpu:
        import sys

        print("(bench.probes: GPU runs not measured: no CUDA device)", file=sys.stderr)
    return res


def main(argv: list[str] | None = None) -> int:
    """Print the probe-overhead tables."""
    ap = argparse.ArgumentParser(prog="python -m bench.probes", description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--long-steps", type=int, default=LONG_STEPS, help="0 skips the long runs")
    ap.add_argument("--rounds", type=int, default=ROUNDS, help="rounds the long runs' steps are divided into (each "
                    "over every model in turn; both reported)")
    ap.add_argument("--gpu-steps", type=int, default=GPU_STEPS, help="0 skips the GPU runs")
    ap.add_argument("--counts", metavar="MODEL", help="only what the watch adds per step on this model, counted: torch "
                    "ops and Python bytecodes (a fresh watch over --long-steps steps, 1500 when 0)")
    ap.add_argument("--breakdown", metavar="MODEL", help="only where the watch's time goes on this model, in place "
                    "(e.g. 'small MLP', 'tiny MLP'): microseconds per step of its hooks and plugin handlers")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    _steady_malloc()
    if args.counts:
        c = counts(args.counts, args.long_steps if args.long_steps else 1500)
        print(f"{args.counts}, per step: torch ops {c['plain_ops']:.2f} plain, {c['watched_ops']:.2f} watched "
              f"(+{c['watched_ops'] - c['plain_ops']:.2f}); Python bytecodes {c['plain_bytecodes']:.0f} plain, "
              f"{c['watched_bytecodes']:.0f} watched (+{c['watched_bytecodes'] - c['plain_bytecodes']:.0f}); "
              f"Python calls {c['plain_calls']:.1f} plain, {c['watched_calls']:.1f} watched "
              f"(+{c['watched_calls'] - c['plain_calls']:.1f}); the watch's hook entries {c['hook_entries']:.2f}")
        return 0
    if args.breakdown:
        plain, parts = breakdown(args.breakdown, max(args.long_steps, EVERY) if args.long_steps else 1000)
        print(f"{args.breakdown}: plain step {plain * 1e3:.2f} ms CPU; the watch's parts in place, CPU us per step "
              "(a part's own parts are indented under it)")

        def show(parent: str, depth: int) -> None:
            kids = [k for k in parts if k.rpartition("/")[0] == parent]
            for k in sorted(kids, key=lambda k: -parts[k]):
                if parts[k] >= 0.5e-6:
                    print(f"{'  ' * depth}{k.rpartition('/')[2]:<{44 - 2 * depth}}{parts[k] * 1e6:8.1f}")
                    show(k, depth + 1)

        show("", 1)
        top = sum(v for k, v in parts.items() if "/" not in k)
        print(f"  {'all the watch (the top-level parts)':<42}{top * 1e6:8.1f}")
        return 0
    print(f"short runs ({args.steps} steps, window every {EVERY}); ratios: median of {args.repeats} interleaved pairs")
    print(f"{'model':<20}{'plain ms/step':>15}{'watch':>10}{'watch x':>9}{'anomaly x':>11}{'examine (steps)':>17}")
    for r in measure(args.repeats, args.steps):
        print(f"{r['model']:<20}{r['plain_s'] * 1e3:>15.2f}{r['watch_s'] * 1e3:>10.2f}{r['watch_ratio']:>9.3f}"
              f"{r['anomaly_ratio']:>11.2f}{r['examine_steps']:>17.1f}")
    print(f"target: watch <= {WATCH_TARGET}x plain; examine a few steps")
    if args.long_steps:
        print(f"\nlong runs ({args.long_steps} steps in {args.rounds} round(s), each round over every model in turn; "
              f"CPU, window every {EVERY}, window ends included; watch x: median of {CHUNK}-step chunk pairs, "
              "whole-run ratio beside it; 'all' pools the rounds)")
        print(f"{'model':<12}{'round':>6}{'plain ms':>9}{'watch x':>9}{'(whole)':>9}{'us/step':>9}{'anomaly x':>11}"
              f"{'mem 10%':>10}{'mem 100%':>10}{'peak 10%':>10}{'peak':>9}{'trips':>7}")
        rows = []
        for rs in measure_rounds(args.long_steps, args.rounds):
            rows += [dict(r, round=str(k + 1)) for k, r in enumerate(rs)]
            if len(rs) > 1:
                rows.append(dict(pooled(rs), round="all"))
        for r in rows:
            mem = (f"{r['mem_early_kb']:>7.0f} KB{r['mem_late_kb']:>7.0f} KB{r['peak_early_kb']:>7.0f} KB"
                   f"{r['peak_kb']:>6.0f} KB") if "mem_early_kb" in r else f"{'-':>10}{'-':>10}{'-':>10}{'-':>9}"
            added = 1e3 * r["plain_ms"] * (r["watch_ratio_total"] - 1)  # whole run, window ends in
            print(f"{r['model']:<12}{r['round']:>6}{r['plain_ms']:>9.2f}{r['watch_ratio']:>9.3f}"
                  f"{r['watch_ratio_total']:>9.3f}"
                  f"{added:>9.0f}{r['anomaly_ratio']:>11.2f}{mem}{r['trips']:>7d}")
        print(f"target: {', '.join(LONG_MODELS)}: watch <= {LONG_TARGET}x plain over the whole run ({GPU_TARGET}x "
              f"for a step of {SLOW_STEP * 1e3:.0f} ms or more; a trip runs the "
              f"engine once: its diagnosis is part of the watched time); {', '.join(FIXED_COST_MODELS)} (about a "
              "millisecond a step) show the watch's fixed per-step and per-window costs, worst case; memory flat")
    gpu = measure_gpu(args.gpu_steps) if args.gpu_steps else []
    if gpu:
        print(f"\nGPU runs ({args.gpu_steps} steps, bf16 autocast, window every {EVERY})")
        print(f"{'model':<28}{'plain ms':>9}{'watch x':>9}{'anomaly x':>11}{'syncs/steps':>13}{'syncs/window':>14}")
        for r in gpu:
            print(f"{r['model']:<28}{r['plain_ms']:>9.2f}{r['watch_ratio']:>9.3f}{r['anomaly_ratio']:>11.2f}"
                  f"{r['syncs_outside_window_ends']:>13d}{r['syncs_at_a_window_end']:>14d}")
        print(f"target: watch <= {GPU_TARGET}x plain, no host sync outside window ends")
    else:
        print("\nGPU runs: not measured (no CUDA device here)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
