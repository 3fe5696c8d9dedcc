"""Watch overhead in a 2-process DDP or FSDP2 job (gloo on CPU, loopback): watched chunks against plain ones.

Each rank builds three DistributedDataParallel (or ``fully_shard``) copies of the same model in one process
group: a plain one, one under a watch with every plugin, and one under the same watch without the rank probe (the
cross-rank check's own share). The watches are opened once, before timing, and warmed up for a window (the
first window end's handshake, lazy imports and the probes' first reads are one-off costs a long job pays once);
then chunks of ``CHUNK`` steps (two windows of ``EVERY``: every watched chunk pays its window ends and their
all-gather) run in turns, the ranks meeting at a barrier around each chunk. Each step trains on a batch drawn
from a pool of distinct batches per rank in a fresh order each chunk (as a DistributedSampler with ``set_epoch``
serves them): a healthy job, so no finding trips and no diagnosis runs inside the timed chunks.

The figure is the median, over chunk turns, of the ratio of watched to plain CPU time, both ranks' process time
added (the watch's own work, which a shared host's other jobs do not inflate the way they inflate wall time);
the wall-time ratio is beside it. Two models: an MLP whose step is a few milliseconds of CPU (the target applies
to it) and the tests' tiny model whose step is under a millisecond (a worst case: the watch's fixed per-step and
per-window costs against almost no work; reported, no target); the MLP again under FSDP2 (every linear layer a
unit: its step all-gathers and reduce-scatters on the CPU). Run alone with ``python -m bench.distributed``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import Result

TARGET = 1.05
CHUNK = 100
EVERY = 50
POOL = 64

MODELS = {
    # name: (layer widths, batch rows, classes)
    "mlp": ((256, 512, 512), 256, 10),
    "tiny": ((8, 32), 16, 2),
}


def _net(widths: tuple[int, ...], classes: int) -> Any:
    import torch
    from torch import nn

    torch.manual_seed(0)
    layers: list[Any] = []
    for a, b in zip(widths, widths[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(widths[-1], classes))


def _timed_rank_probe() -> Any:
    """The rank probe with a CPU clock around each of its entry points (the share of the watch it costs)."""
    from probes.ranks import RankProbe

    clock = dict.fromkeys(("step", "window", "null", "step_calls", "null_calls"), 0.0)

    def timed(base: Any, part: str) -> Any:
        def wrapper(self: Any, *args: Any) -> Any:
            # this thread's CPU only: the process's clock would also count gloo's threads all-reducing the
            # DDP buckets meanwhile (a gradient hook runs in the middle of the backward pass)
            t = time.thread_time()
            try:
                return base(self, *args)
            finally:
                clock[part] += time.thread_time() - t
                clock[part + "_calls"] = clock.get(part + "_calls", 0.0) + 1
        return wrapper

    members = {n: timed(getattr(RankProbe, n), "step")
               for n in ("forward_pre", "forward", "optimizer_pre", "step_end", "on_grad")}
    members["exchange"] = timed(RankProbe.exchange, "window")
    # the clock's own cost: the same wrapper around nothing, called once a step beside the probe's hooks (on a
    # loaded host a cold call costs microseconds; it is taken off the hooks' total)
    members["null"] = timed(lambda self: None, "null")
    return type("TimedRankProbe", (RankProbe,), members), clock


def _wrap(net: Any, how: str) -> Any:
    import torch

    if how == "ddp":
        return torch.nn.parallel.DistributedDataParallel(net)
    from torch.distributed.fsdp import fully_shard

    for m in net:
        if isinstance(m, torch.nn.Linear):
            fully_shard(m)
    return fully_shard(net)


def _rank_main(rank: int, world: int, port: int, model: str, how: str, turns: int, out: str) -> None:
    import torch
    import torch.distributed as dist
    from torch import nn

    from probes.ranks import RankProbe
    from probes.registry import plugins
    from probes.watcher import watch

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    widths, rows, classes = MODELS[model]
    g = torch.Generator().manual_seed(100 + rank)  # each rank its own shard of data
    xs = [torch.randn(rows, widths[0], generator=g) for _ in range(POOL)]
    # a task the model can learn (the class a fixed projection favours): a healthy loss that falls
    proj = torch.randn(widths[0], classes, generator=torch.Generator().manual_seed(1))
    ys = [(x @ proj).argmax(1) for x in xs]
    loss_fn = nn.functional.cross_entropy
    local_only = [p for p in plugins() if p is not RankProbe]
    timed, clock = _timed_rank_probe()
    every_plugin = [timed if p is RankProbe else p for p in plugins()]

    jobs: dict[str, Any] = {}
    for name, probes in (("plain", None), ("watch", every_plugin), ("local", local_only)):
        ddp = _wrap(_net(widths, classes), how)
        opt = torch.optim.AdamW(ddp.parameters(), 1e-3)
        w = None if probes is None else watch(ddp, opt, every=EVERY, loss_fn=loss_fn, plugins=probes).__enter__()
        jobs[name] = (ddp, opt, w)

    def chunk(name: str, n: int, epoch: int) -> tuple[float, float]:
        ddp, opt, w = jobs[name]
        order = torch.randperm(POOL, generator=torch.Generator().manual_seed(epoch * 7 + rank)).tolist()
        dist.barrier()
        t, c = time.perf_counter(), time.process_time()
        for i in range(n):
            k = order[i % POOL]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(ddp(xs[k]), ys[k])
            loss.backward()
            opt.step()
            if w is not None:
                w.step(loss)
                if name == "watch":
                    w.probe("ranks").null()
        c = time.process_time() - c
        t = time.perf_counter() - t
        dist.barrier()
        return t, c

    for name in jobs:  # warm-up: one window each
        chunk(name, EVERY, 0)
    clock.update(dict.fromkeys(clock, 0.0))
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in jobs}
    for turn in range(turns):
        # the order of the three turns rotates: a drift of the host's load does not favour one of them
        names = list(jobs)
        for name in names[turn % 3:] + names[:turn % 3]:
            times[name].append(chunk(name, CHUNK, turn + 1))
    trips = [len(w.trips) for _, _, w in jobs.values() if w is not None]
    for _, _, w in jobs.values():
        if w is not None:
            w._detach()  # no final diagnosis: its cost is not the loop's
    Path(out, f"rank{rank}.json").write_text(json.dumps({"times": times, "trips": trips, "clock": clock,
                                                         "steps": turns * CHUNK}))
    dist.destroy_process_group()


def _own(clock: dict[str, float]) -> float:
    # the step hooks' CPU less the clock's own cost per call (measured on the empty wrapper)
    per_call = clock["null"] / clock["null_calls"] if clock["null_calls"] else 0.0
    return max(0.0, clock["step"] - clock["step_calls"] * per_call)


def measure(model: str = "mlp", turns: int = 5, how: str = "ddp") -> dict[str, Any]:
    """Run the 2-process job; per-turn ratios (both ranks' CPU time added; rank 0's wall time)."""
    import socket

    import torch.multiprocessing as mp

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as d:
        mp.spawn(_rank_main, args=(2, port, model, how, turns, d), nprocs=2)
        per = [json.loads(Path(d, f"rank{r}.json").read_text()) for r in (0, 1)]
    cpu = {k: [sum(r["times"][k][i][1] for r in per) for i in range(turns)] for k in per[0]["times"]}
    wall = {k: [x for x, _ in per[0]["times"][k]] for k in per[0]["times"]}
    return {"cpu_ratios": [a / b for a, b in zip(cpu["watch"], cpu["plain"])],
            "local_cpu_ratios": [a / b for a, b in zip(cpu["local"], cpu["plain"])],
            "wall_ratios": [a / b for a, b in zip(wall["watch"], wall["plain"])],
            "plain_cpu_ms": 1000 * statistics.median(cpu["plain"]) / (2 * CHUNK),
            "plain_wall_ms": 1000 * statistics.median(wall["plain"]) / CHUNK,
            "trips": per[0]["trips"] + per[1]["trips"],
            # the rank probe's own CPU a step, per rank (its step hooks; its window ends, amortised)
            "rank_step_us": 1e6 * sum(_own(r["clock"]) / r["steps"] for r in per) / 2,
            "rank_window_us": 1e6 * sum(r["clock"]["window"] / r["steps"] for r in per) / 2}


def _result(model: str, label: str, turns: int, target: bool, how: str = "ddp") -> Result:
    r = measure(model, turns, how)
    cpu = statistics.median(r["cpu_ratios"])
    local = statistics.median(r["local_cpu_ratios"])
    wall = statistics.median(r["wall_ratios"])
    p = r["plain_cpu_ms"] / 1000
    return Result(f"watch step, {label}, {how.upper()} 2 ranks", p * cpu, target=p * TARGET if target else None,
                  note=f"{cpu:.3f}x plain CPU time (plain {r['plain_cpu_ms']:.2f} ms CPU/step a rank, "
                       f"{r['plain_wall_ms']:.1f} ms wall); without the rank probe {local:.3f}x; the rank "
                       f"probe's own CPU {r['rank_step_us']:.0f} us/step in step hooks + "
                       f"{r['rank_window_us']:.0f} us/step at window ends = "
                       f"{(r['rank_step_us'] + r['rank_window_us']) / (10 * r['plain_cpu_ms']):.2f}% of the "
                       f"plain step; wall "
                       f"{wall:.3f}x; trips {sum(r['trips'])} (medians of {turns} turns of {CHUNK} steps; CPU "
                       f"ratios {', '.join(f'{x:.3f}' for x in r['cpu_ratios'])})")


def run(repeats: int = 5) -> list[Result]:
    """The section for ``python -m bench``."""
    turns = max(3, min(repeats, 7))
    return [_result("mlp", "MLP 256-512-512-10 b256", turns, True),
            _result("tiny", "tiny MLP 8-32-2 b16", turns, False),
            _result("mlp", "MLP 256-512-512-10 b256", turns, True, "fsdp")]


if __name__ == "__main__":
    for res in run(int(sys.argv[1]) if len(sys.argv) > 1 else 5):
        print(res.name, f"{res.seconds * 1000:.2f} ms/step", res.verdict, res.note)
