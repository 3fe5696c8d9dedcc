"""Real 2-process torch.distributed jobs (gloo, CPU, loopback) for the rank-aware watch: one job, many scenarios.

``python -m tests.dist_jobs OUT_DIR [SCENARIO ...]`` spawns two ranks that run each scenario in turn (a fresh
DDP model, loader and watch per scenario, all in one process group: the start-up is paid once) and write, per
rank, what the watch concluded to ``OUT_DIR/rank<r>.json``. The test (``tests/test_distributed.py``) runs it in
a subprocess with a timeout and kills the whole process group if it ever hangs.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

EVERY = 10


def _data(n: int, seed: int) -> TensorDataset:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    y = ((x[:, 0] + 0.5 * x[:, 1]) > 0).long()
    return TensorDataset(x, y)


def _model(bn: bool = False) -> torch.nn.Module:
    torch.manual_seed(0)  # the same initial weights on every rank (DDP broadcasts them anyway)
    if bn:
        return torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.BatchNorm1d(32), torch.nn.ReLU(),
                                   torch.nn.Linear(32, 2))
    return torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))


def _fit(rank: int, ddp: Any, loader: Any, epochs: int, *, set_epoch: bool = True, on_trip: str = "log",
         pass_loader: bool = False, before: Any = None, after: Any = None, accum: int = 1,
         lr: float = 0.1, extra: Any = None) -> dict[str, Any]:
    """Train ``ddp`` under a watch; return what rank ``rank`` concluded."""
    import trainopt
    from probes.watcher import TrainingTripped, watch

    opt = torch.optim.SGD(ddp.parameters(), lr=lr, momentum=0.9)
    c = trainopt.Consultation()
    loss_fn = torch.nn.functional.cross_entropy
    raised_at = None
    steps = 0
    w = watch(ddp, opt, consultation=c, every=EVERY, on_trip=on_trip, loss_fn=loss_fn,
              loader=loader if pass_loader else None)
    try:
        with w:
            for epoch in range(epochs):
                if set_epoch and isinstance(loader.sampler, DistributedSampler):
                    loader.sampler.set_epoch(epoch)
                for i, (x, y) in enumerate(loader):
                    if before is not None:
                        x = before(rank, steps, x)
                    last = (i + 1) % accum == 0
                    ctx = contextlib.nullcontext() if accum == 1 else (ddp.no_sync() if after == "nosync_all" or
                                                                       not last else contextlib.nullcontext())
                    with ctx:
                        out = ddp(x)
                        loss = loss_fn(out, y) / accum
                        if extra is not None:
                            loss = loss + extra(rank, steps, ddp, out)
                        loss.backward()
                    if last:
                        opt.step()
                        opt.zero_grad(set_to_none=True)
                    if callable(after):
                        after(rank, steps, ddp)
                    if last:  # one watch step per optimizer step
                        w.step(loss)
                    steps += 1
    except TrainingTripped:
        raised_at = steps
    d = c.diagnosis if c.diagnosis is not None else c.run()
    obs = {o.name: {"value": o.value, "source": o.source, "evidence": o.evidence} for o in c.observations.values()}
    return {"status": d.status, "findings": [(f["id"], f["severity"]) for f in d.findings], "plan": d.plan,
            "observations": obs, "raised_at": raised_at, "steps": steps, "trips": w.trips}


def _loader(ds: TensorDataset, bs: int, sampler: str, rank: int) -> DataLoader:
    if sampler == "distributed":
        return DataLoader(ds, batch_size=bs, sampler=DistributedSampler(ds, shuffle=True, seed=0))
    g = torch.Generator().manual_seed(7)  # the same seed on every rank: the same batches everywhere
    return DataLoader(ds, batch_size=bs, shuffle=True, generator=g)


def _fsdp(model: torch.nn.Module) -> torch.nn.Module:
    """FSDP2 on the CPU: each linear layer a unit, then the root (its parameters become DTensor shards)."""
    from torch.distributed.fsdp import fully_shard

    for m in model:
        if isinstance(m, torch.nn.Linear):
            fully_shard(m)
    return fully_shard(model)


def _poison(r: int, s: int, x: torch.Tensor) -> torch.Tensor:
    """One bad sample on rank 1 only, at step 25 (a DDP or an FSDP job's input)."""
    if r == 1 and s == 25:
        x = x.clone()
        x[0, 0] = float("nan")
    return x


def scenario(name: str, rank: int, world: int) -> dict[str, Any]:
    """Run one scenario on this rank."""
    ddp = torch.nn.parallel.DistributedDataParallel
    if name == "fsdp_healthy":
        return _fit(rank, _fsdp(_model()), _loader(_data(640, 1), 16, "distributed", rank), 2, pass_loader=True)
    if name == "fsdp_nan":
        return _fit(rank, _fsdp(_model()), _loader(_data(640, 1), 16, "distributed", rank), 2, before=_poison)
    if name == "fsdp_nan_grad":
        def sqrt0_f(r: int, s: int, m: Any, out: Any) -> Any:
            if r == 1 and s == 25:  # a finite loss term whose gradient is not: rank 1's own gradients go NaN in
                # backward, before the reduce-scatter (through the output: the sharded weights are DTensors here)
                return 0.0 * (out - out.detach()).abs().sqrt().sum()
            return 0.0
        return _fit(rank, _fsdp(_model()), _loader(_data(640, 1), 16, "distributed", rank), 2, extra=sqrt0_f)
    if name == "fsdp_identical":
        return _fit(rank, _fsdp(_model()), _loader(_data(640, 1), 16, "same_seed", rank), 1)
    if name == "healthy":
        return _fit(rank, ddp(_model()), _loader(_data(640, 1), 16, "distributed", rank), 3, pass_loader=True)
    if name == "desync":
        def nudge(r: int, s: int, m: Any) -> None:
            if r == 1 and s == 15:  # rank 1 writes its weights outside the optimizer
                with torch.no_grad():
                    m.module[2].bias.add_(0.01)
        return _fit(rank, ddp(_model()), _loader(_data(640, 1), 16, "distributed", rank), 2, after=nudge)
    if name == "nan":
        return _fit(rank, ddp(_model()), _loader(_data(640, 1), 16, "distributed", rank), 2, before=_poison)
    if name == "nan_grad":
        def sqrt0(r: int, s: int, m: Any, out: Any) -> Any:
            if r == 1 and s == 25:  # a finite loss term whose gradient is not: 0 * d sqrt(x)/dx at x = 0
                b = m.module[2].bias
                return 0.0 * (b - b.detach()).abs().sqrt().sum()
            return 0.0
        return _fit(rank, ddp(_model()), _loader(_data(640, 1), 16, "distributed", rank), 2, extra=sqrt0)
    if name == "identical":
        return _fit(rank, ddp(_model()), _loader(_data(640, 1), 16, "same_seed", rank), 1)
    if name == "set_epoch":
        return _fit(rank, ddp(_model()), _loader(_data(320, 1), 16, "distributed", rank), 3, set_epoch=False,
                    pass_loader=True)
    if name == "uneven":
        # hand-made shards of different sizes: rank 0 has 16 batches, rank 1 has 20; without the watch the job
        # would hang at rank 1's 17th all-reduce
        ds = _data(256 + 64 * rank, 10 + rank)
        return _fit(rank, ddp(_model()), DataLoader(ds, batch_size=16, shuffle=True), 1, on_trip="raise",
                    pass_loader=True)
    if name == "straggler":
        def slow(r: int, s: int, x: torch.Tensor) -> torch.Tensor:
            if r == 1:
                time.sleep(0.05)  # rank 1's loader is slow
            return x
        return _fit(rank, ddp(_model()), _loader(_data(640, 1), 16, "distributed", rank), 2, before=slow)
    if name == "nosync":
        # accumulation over 2 micro-batches with every backward inside no_sync: no gradient is ever all-reduced
        return _fit(rank, ddp(_model()), _loader(_data(640, 1), 16, "distributed", rank), 2, accum=2,
                    after="nosync_all")
    if name == "rank0_only":
        # a watch on rank 0 alone (a common `if rank == 0:` habit): it must notice and stay local, never wait
        import probes.ranks

        probes.ranks.HANDSHAKE_S = 3.0
        model = ddp(_model())
        loader = _loader(_data(640, 1), 16, "distributed", rank)
        if rank == 0:
            return _fit(rank, model, loader, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        return {"steps": len(loader)}
    if name == "batchnorm":
        return _fit(rank, ddp(_model(bn=True)), _loader(_data(320, 1), 4, "distributed", rank), 1, lr=0.02)
    raise SystemExit(f"unknown scenario {name}")


def main(rank: int, world: int, port: int, out: str, names: list[str]) -> None:
    """One rank: every scenario in turn, results to ``out/rank<rank>.json``."""
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=60))
    results: dict[str, Any] = {}
    try:
        for name in names:
            results[name] = scenario(name, rank, world)
            dist.barrier()  # the next scenario starts together
    finally:
        Path(out, f"rank{rank}.json").write_text(json.dumps(results, default=str))
        dist.destroy_process_group()


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_logs(rank: int, world: int, port: int, out: str) -> None:
    """A job whose rank 1 crashes at step 5: rank 0's next all-reduce fails when its peer is gone.

    Each rank's stdout and stderr go to ``out/train_rank<r>.log``, as a launcher's per-rank log files do: rank 1's
    ends with its own traceback, rank 0's with gloo's real collective error.
    """
    log = open(Path(out, f"train_rank{rank}.log"), "w", buffering=1)  # noqa: SIM115 - lives as long as the rank
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=5))
    torch.manual_seed(0)
    m = torch.nn.parallel.DistributedDataParallel(_model())
    opt = torch.optim.SGD(m.parameters(), lr=0.05)
    ds = _data(512, 1)
    for step in range(20):
        if rank == 1 and step == 5:
            raise RuntimeError("corrupt sample in shard 1 (simulated data failure)")
        x, y = ds.tensors[0][16 * step:16 * step + 16], ds.tensors[1][16 * step:16 * step + 16]
        loss = torch.nn.functional.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} loss={loss.item():.4f}", flush=True)


SCENARIOS = ("healthy", "desync", "nan", "nan_grad", "identical", "set_epoch", "uneven", "straggler", "nosync",
             "batchnorm", "fsdp_healthy", "fsdp_nan", "fsdp_nan_grad", "fsdp_identical", "rank0_only")
"""In this order: ``rank0_only`` opens a watch on one rank only, so it comes last (the ranks pair their n-th
watches)."""

if __name__ == "__main__":
    import torch.multiprocessing as mp

    if Path("/sys/class/net/lo").exists():
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    if sys.argv[1] == "--rank-logs":
        # one plain process per rank, as torchrun starts them: an uncaught error prints its traceback to the
        # rank's stderr (torch.multiprocessing would catch it and hand it to the parent instead)
        import subprocess

        port = free_port()
        procs = [subprocess.Popen([sys.executable, "-m", "tests.dist_jobs", "--one-rank-log", str(r), str(port),
                                   sys.argv[2]]) for r in range(2)]
        for proc in procs:
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
        sys.exit(0)
    if sys.argv[1] == "--one-rank-log":
        rank_logs(int(sys.argv[2]), 2, int(sys.argv[3]), sys.argv[4])
        sys.exit(0)
    out_dir = sys.argv[1]
    todo = sys.argv[2:] or list(SCENARIOS)
    mp.spawn(main, args=(2, free_port(), out_dir, todo), nprocs=2)
