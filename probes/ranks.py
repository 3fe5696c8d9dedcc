"""Rank probe: compare the ranks of a torch.distributed run once per window with one small all-gather.

Every rank records a few numbers locally while it trains (no collective, no host read inside a step): a
fingerprint of each batch, the sum of its own gradient before DDP reduces it, the time it spends before its
forward pass, the gradient norm the optimizer applies on sampled steps, and a fingerprint of the parameters at
the window's last optimizer step. At the window end, after the other probes have folded the window, each rank
summarises them in one vector of ``SLOTS`` float64 numbers and the ranks exchange it in **one** ``all_gather``.
Every rank then computes the same verdicts from the same gathered table (so every rank takes the same stop
decision at the same step): replicas drifting apart, the rank and site of the first non-finite value, identical
data on every rank, data repeated in the same order each epoch, uneven batch counts, stragglers, gradients
stepped without all-reduce. Only when the parameter fingerprints disagree does a second, one-off gather of
per-parameter fingerprints name the parameter (every rank decides that from the same table, so all enter it).

Under FSDP2 (``fully_shard``) the parameters are DTensor shards: the watch hands every probe plain views of
this rank's shards (``LocalShards``), the rank's own pre-reduction gradient is read on FSDP's unsharded parameter,
and the shards are never compared as replicas (they differ by design); the ranks' squared shard gradient norms
add up to the whole model's in the gathered table.

The probe is inert outside ``torch.distributed`` (or with one rank). The window exchange is entered only when a
watch runs on every rank: ranks announce their watch in the process group's store when it opens, and the first
window end checks that all did (a watch on rank 0 alone stays local instead of waiting forever).
"""

from __future__ import annotations

import logging
import math
import time
from datetime import timedelta
from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit
from probes.medians import median

log = logging.getLogger("trainopt.watch")

INFO = ProbeInfo("ranks", "cheap", "window", (
    "dist_world_size", "replicas_in_sync", "nonfinite_rank", "nan_location", "nan_step", "nan_onset",
    "loss_behavior", "rank_data", "epoch_data_order", "rank_batch_counts", "rank_step_skew", "grads_synced",
    "ddp_unused_params", "ddp_find_unused", "batchnorm_sync", "per_rank_batch", "data_time_fraction"))

SITES = ("inputs", "labels", "activations", "loss", "gradients")
"""Places where a rank's own values can first go non-finite, in pipeline order (its gradients before reduction
last: an all-reduced NaN is no rank's own)."""

(S_STEPS, S_START, S_NF_STEP, S_NF_SITE, S_TIME, S_TIMED, S_FP, S_FP_N, S_ROWS, S_PLANNED, S_TRIP, S_W1, S_W2,
 S_G, S_G_STEP, S_NOGRAD, S_REPEAT, S_INIT1, S_INIT2, S_DATA) = range(20)
SLOTS = 20
"""Numbers each rank contributes per window (20 float64: 160 bytes a rank)."""

SKEW_WINDOWS = 3
"""Windows of timings before a straggler is judged; the same rank must be the slowest in 3 of 4 of them."""

MARK_ROWS = 4
MARK_VALUES = 4096
"""A batch fingerprint reads at most 4 samples' first 4096 values (see ``batch_mark``)."""

HANDSHAKE_S = 60.0
"""Seconds the first window end waits for every rank to announce its watch before staying local."""

_SEQ = [0]  # watches opened in this process: the n-th watch of every rank pairs with the n-th of the others


def world() -> tuple[int, int]:
    """(rank, world size) of the default process group, or (0, 1) outside torch.distributed."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return 0, 1
    return dist.get_rank(), dist.get_world_size()


def is_ddp(model: Any) -> bool:
    """Whether ``model`` is a DistributedDataParallel wrapper."""
    return isinstance(model, torch.nn.parallel.DistributedDataParallel)


def is_sharded(model: Any, params: list[Any]) -> bool:
    """Whether parameters are sharded across ranks (FSDP, DTensor): their local values differ by design."""
    if "FullyShardedDataParallel" in type(model).__name__ or "FSDP" in type(model).__name__:
        return True
    return any(is_dtensor(p) for p in params)


def is_dtensor(t: Any) -> bool:
    """Whether ``t`` is a DTensor (FSDP2's ``fully_shard`` parameters and their gradients are)."""
    return type(t).__name__ == "DTensor" and hasattr(t, "to_local")


def _local(t: Any) -> Any:
    # the shard this rank holds, as a plain tensor sharing its storage: no collective, no copy
    inner = getattr(t, "_local_tensor", None)
    return inner if isinstance(inner, torch.Tensor) else t.to_local()


def unsharded_of(model: Any, sharded: Any) -> Any:
    """The unsharded parameter FSDP2 computes with for the sharded parameter ``sharded`` (None if not found).

    It is the tensor autograd sees in the forward pass, so a hook on it gets this rank's own gradient before the
    reduce-scatter. FSDP2 keeps it on its parameter records, a private layout: when a torch release moves it,
    this returns None and the gradient site is simply not traced to a rank (no other measurement depends on it).
    """
    for m in model.modules():
        get = getattr(m, "_get_fsdp_state", None)
        if get is None:
            continue
        try:
            group = get()._fsdp_param_group
        except Exception:  # noqa: BLE001 - a private layout that may change between releases
            continue
        for fp in getattr(group, "fsdp_params", None) or ():
            if getattr(fp, "sharded_param", None) is sharded:
                up = getattr(fp, "_unsharded_param", None)
                return up if isinstance(up, torch.Tensor) else None
    return None


class LocalShards:
    """The rank's own shards of sharded (DTensor) parameters, as plain tensors the probes can read.

    Under FSDP2 (``fully_shard``) a parameter is a DTensor: every operation on it goes through DTensor's
    dispatcher and some (a norm read to the host, a stack with plain tensors) redistribute, which would be a
    collective inside a step and a host read the window cannot batch. The watch hands the probes one alias per
    parameter instead: a leaf sharing the local shard's storage (the optimizer's in-place updates show in it), whose
    ``.grad`` is set to the local shard of the reduced gradient before the optimizer steps (``sync``). Every
    measurement is then of this rank's shard; what needs the whole model (the global gradient norm) is added up
    across ranks in the window's one gather. Shards a rank holds nothing of (a parameter smaller than the world)
    are left out of its list: a zero-size tensor would read as a dead layer.
    """

    def __init__(self, params: list[Any], names: list[str]) -> None:
        pairs = []
        for p, n in zip(params, names):
            if not is_dtensor(p):
                pairs.append((p, p, n))
                continue
            a = _local(p).detach().requires_grad_(p.requires_grad)  # our own alias: the shard stays untouched
            pairs.append((p, a, n))
        kept = [t for t in pairs if t[1].numel() > 0] or pairs
        self.sharded = [p for p, _, _ in kept]
        self.local = [a for _, a, _ in kept]
        self.names = [n for _, _, n in kept]
        self._pairs = [(p, a) for p, a, _ in kept if p is not a]

    @classmethod
    def of(cls, params: list[Any], names: list[str]) -> LocalShards | None:
        """The local shards of ``params``, or None when no parameter is a DTensor."""
        return cls(params, names) if any(is_dtensor(p) for p in params) else None

    def sync(self) -> None:
        """Point each alias's gradient at the local shard of its parameter's gradient (None when it has none)."""
        for p, a in self._pairs:
            g = p.grad
            try:
                a.grad = None if g is None else (_local(g) if is_dtensor(g) else g)
            except RuntimeError:  # a gradient laid out unlike its shard (a wrapper's own layout): not measured
                a.grad = None


def param_marks(params: list[Any]) -> Any:
    """Per-parameter marks as one device tensor (no host read): each parameter's sum, then each one's L2 norm.

    A sum moves linearly with any shift of a weight (a norm alone misses a shift that raises one entry and lowers
    another); the norm catches what leaves the sum unchanged. One reduction per parameter plus one foreach norm:
    taken once per window, never inside every step.
    """
    with torch.no_grad():
        ps = [p.detach() for p in params]
        return torch.cat([torch.stack([p.float().sum() for p in ps]),
                          torch.stack([t.float() for t in torch._foreach_norm(ps)])])


def batch_mark(x: torch.Tensor) -> torch.Tensor:
    """A batch's fingerprint: the sum of the first values of up to ``MARK_ROWS`` evenly spaced samples.

    Two ranks given the same batch get the same number; two different batches almost never do. A sample of
    the batch is enough for that, and reading all of it would cost as much as a layer on image batches (a
    224x224 batch of 64 is ten million values; the sample is at most 16 thousand). One view and one reduction,
    queued on the device, in float32 for anything but float32/64 (token ids, half precision).
    """
    t = x.detach() if x.requires_grad else x
    shape, strides = list(t.shape), list(t.stride())
    step = max(1, shape[0] // MARK_ROWS)
    shape[0], strides[0] = min(MARK_ROWS, -(-shape[0] // step)), strides[0] * step
    left = MARK_VALUES
    for d in range(len(shape) - 1, 0, -1):  # innermost first: contiguous runs (a reshape could copy)
        shape[d] = min(shape[d], max(1, left))
        left //= shape[d]
    if t.layout != torch.strided:  # sparse or nested: views by slicing
        for d, k in enumerate(shape):
            t = (t[::step] if d == 0 else t).narrow(d, 0, k)
    else:
        t = t.as_strided(shape, strides, t.storage_offset())
    # float32/64 summed as they are (the cheaper call); anything else in float32
    return t.sum() if t.dtype in (torch.float32, torch.float64) else t.sum(dtype=torch.float32)


def fingerprint(marks: list[float]) -> tuple[float, float]:
    """Two float64 checksums of ``param_marks``: the index-weighted sum of the sums, and the sum of the norms."""
    k = len(marks) // 2
    return (math.fsum((i + 1) * x for i, x in enumerate(marks[:k])), math.fsum(marks[k:]))


def differs(a: float, b: float, rel: float) -> bool:
    """Whether two finite numbers differ by more than ``rel`` of the larger (non-finite: never)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) > rel * max(abs(a), abs(b), 1e-30)


def batch_count(loader: Any) -> int | None:
    """Batches per epoch of ``loader`` on this rank (None when it has no length)."""
    try:
        return int(len(loader))
    except TypeError:
        return None


class RankProbe(Probe):
    """Plugin: the cross-rank view of a distributed run (see the module docstring)."""

    info = INFO
    hooks = ("forward_pre", "forward", "optimizer_pre", "step_end")
    trips_causes = True
    thresholds = ("MT-DDP-DESYNC-REL", "MT-DDP-GRAD-REL", "MT-DDP-SKEW", "MT-DDP-SKEW-ABS", "MT-BN-RANK-BATCH")

    # ------------------------------------------------------------------ set-up

    def attach(self, run: Any) -> None:
        """Find the process group; remember the start fingerprint; announce this watch to the other ranks."""
        self.rank, self.world = world()
        self.active = self.world > 1
        self.exchanged = False  # becomes True after the first window exchange
        self.table: list[list[float]] = []
        self.windows = 0
        self.obs: list[Any] = []
        self.alarm = False
        self._handle: Any = None
        self._find: Any = None
        self._batch: Any = None  # this step's input until its mark is queued (held from forward to backward)
        if not self.active:
            self.hooks = ()  # one process: no per-step event to handle (the watch reads this after attach)
            return
        import torch.distributed as dist

        self.model = run.model
        self.ddp = is_ddp(run.model)
        self.sharded = getattr(run, "shards", None) is not None or is_sharded(run.model, run.params)
        self.loader = getattr(run, "loader", None)
        self.planned = batch_count(self.loader) if self.loader is not None else None
        sampler = getattr(self.loader, "sampler", None)
        self.dist_sampler = sampler if type(sampler).__name__ == "DistributedSampler" else None
        self.sampler_epoch0 = getattr(self.dist_sampler, "epoch", None)
        self.init = fingerprint(param_marks(run.params).tolist()) if not self.sharded else (math.nan, math.nan)
        self.backend = str(dist.get_backend())
        self.device = torch.device("cpu") if "gloo" in self.backend or "cuda" not in self.backend and \
            self.backend != "nccl" else torch.device("cuda", torch.cuda.current_device())
        bn = [m for m in run.model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
        self.bn = None if not bn else ("sync" if all(isinstance(m, torch.nn.SyncBatchNorm) for m in bn) else "local")
        self.find_unused = bool(getattr(run.model, "find_unused_parameters", False)) if self.ddp else None
        # bounded local state
        self.first_fps: list[float] = []   # the run's first batch fingerprints (to recognise a repeated order)
        self.repeat_at: int | None = None
        self.t_end = time.perf_counter()
        self.times: list[float] = []
        self.rows = 0
        self.rows_n = 0
        self.nograd = -1
        self.pre_nf: int | None = None  # first step whose local (pre-reduction) gradient was non-finite
        self.desync: dict[str, Any] | None = None
        self.last_match: int | None = 0
        self.unsynced: dict[str, Any] | None = None
        self.identical_windows = 0
        self.distinct_windows = 0
        self.trips = 0
        _SEQ[0] += 1
        self.key = f"trainopt/watch/{_SEQ[0]}"
        try:
            self.store = dist.distributed_c10d._get_default_store()
            self.store.set(f"{self.key}/{self.rank}", "1")
        except Exception:  # noqa: BLE001 - no store to ask: assume the same script runs on every rank
            self.store = None
        self._hook_grad(run)

    def _hook_grad(self, run: Any) -> None:
        # A tensor hook sees the gradient as autograd computes it on this rank, before DDP's reducer averages it:
        # one norm per backward, on one parameter (a hook on each would cost a Python call per parameter).
        p = run.params[-1]

        def hook(g: torch.Tensor) -> None:
            self.on_grad(run, g)

        if self.sharded:
            # FSDP2: the sharded parameter never sees a gradient through autograd (its shard of the reduced one is
            # assigned after the reduce-scatter); the unsharded parameter of the same FSDP unit does, before the
            # reduction. It exists from the first forward on: hooked there (``forward``).
            self._hook_fn = hook
            self._find = getattr(run, "shards", None)
            return
        self._handle = p.register_hook(hook)

    def _hook_unsharded(self, run: Any) -> None:
        self._find, shards = None, self._find
        target = unsharded_of(run.model, shards.sharded[-1]) if shards is not None else None
        if target is not None and target.requires_grad:
            self._handle = target.register_hook(self._hook_fn)

    def on_grad(self, run: Any, g: torch.Tensor) -> None:
        """Every backward: queue the sum of this rank's own gradient of one parameter, and the batch's mark.

        Both are reductions queued on the device (no sync). They run here, in the backward pass, rather than in
        the forward hook: right after a forward pass the first operator calls are the dearest of the step
        (cold caches: ~30 us against ~10 us here for the same mark, ``bench.distributed``), and a sum is what
        the backward pass itself runs for every bias. A sum is non-finite exactly when an entry is (a float16
        gradient is summed in float32 so that large finite ones do not overflow).
        """
        run.record("rk:pg", g.sum(dtype=torch.float32) if g.dtype == torch.float16 else g.sum())
        if self._batch is not None:
            self._mark(run)

    def _mark(self, run: Any) -> None:
        x, self._batch = self._batch, None
        run.record("rk:fp", batch_mark(x))

    def detach(self, run: Any) -> None:
        """Remove the gradient hook; let go of a held batch."""
        self._batch = None
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    # ------------------------------------------------------------------ per step (no sync, no collective)

    def forward_pre(self, run: Any, module: Any) -> None:
        """Sampled steps: the time this rank spent since the last step before starting its forward pass."""
        if self.active:
            self.times.append(time.perf_counter() - self.t_end)

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """Hold the batch for its mark (queued in the backward pass) and note its rows (host metadata)."""
        if not self.active or first is None:
            return
        if self._find is not None:
            self._hook_unsharded(run)
        if first.ndim and first.numel():
            if self._batch is not None:  # a forward whose backward never reached the hooked gradient
                self._mark(run)
            self._batch = first  # marked in the backward (``on_grad``), or before the optimizer steps
            self.rows += int(first.shape[0])
            self.rows_n += 1

    def optimizer_pre(self, run: Any) -> None:
        """Sampled steps: the gradient norm the optimizer applies; the window's last step: the parameters."""
        if not self.active:
            return
        if self._batch is not None:
            self._mark(run)
        if run.sampled:
            grads = [p.grad for p in run.params if p.grad is not None]
            self.nograd = len(run.params) - len(grads)
            if grads:
                run.record("rk:g", torch.stack([n.float() for n in torch._foreach_norm(grads)]).square().sum())
        if run._i == run.every - 1 and not self.sharded:
            run.record("rk:w", param_marks(run.params))

    def step_end(self, run: Any) -> None:
        """Start the clock for the next step's own time (read only on sampled steps: ``run.sampled`` is the next)."""
        if self.active and run.sampled:
            self.t_end = time.perf_counter()

    # ------------------------------------------------------------------ window end: the one collective

    def _local(self, run: Any, win: Any, tripped: bool) -> list[float]:
        v = [-1.0] * SLOTS
        v[S_STEPS], v[S_START] = float(run.steps), float(win.start)
        for s, vals in win.get("rk:pg"):
            if self.pre_nf is None and not math.isfinite(vals[0]):
                self.pre_nf = s
        order = {k: i for i, k in enumerate(SITES)}
        local = {k: s for k, s in run.nonfinite_at.items() if k in order and k != "gradients"}
        if self.pre_nf is not None:
            local["gradients"] = self.pre_nf
        if local:
            site, step = min(local.items(), key=lambda c: (c[1], order[c[0]]))
            v[S_NF_STEP], v[S_NF_SITE] = float(step), float(order[site])
        if self.times:
            # the median of the window's samples: a one-off pause (a trip's diagnosis, a checkpoint) is no
            # straggler, a rank slow at every step is
            v[S_TIME], v[S_TIMED] = median(self.times), float(len(self.times))
        self.times = []
        fps = [x[0] for _, x in win.get("rk:fp")]
        if fps:
            v[S_FP], v[S_FP_N] = math.fsum(fps) if all(math.isfinite(x) for x in fps) else -2.0, float(len(fps))
            self._order(win)
        if self.rows_n:
            v[S_ROWS] = self.rows / self.rows_n
        v[S_PLANNED] = float(self.planned) if self.planned is not None else -1.0
        v[S_TRIP] = 1.0 if tripped else 0.0
        w = win.get("rk:w")
        if w:
            n = w[-1][1]
        elif not self.sharded:
            n = param_marks(run.params).tolist()
        else:
            n = []
        self.wnorms = n
        if n:
            v[S_W1], v[S_W2] = fingerprint(n)
        g = win.get("rk:g")
        if g:
            v[S_G], v[S_G_STEP] = g[-1][1][0], float(g[-1][0])
        v[S_NOGRAD] = float(self.nograd)
        v[S_REPEAT] = self._repeated()
        v[S_INIT1], v[S_INIT2] = self.init
        tp = run.probe("throughput")
        if tp is not None:
            frac = [o.value for o in tp.summarise(run) if o.name == "data_time_fraction"]
            if frac:
                v[S_DATA] = float(frac[0])
        return v

    def _order(self, win: Any) -> None:
        # The run's first few batch fingerprints; the same sequence met again later means the order repeats.
        for s, (x,) in win.get("rk:fp"):
            if len(self.first_fps) < 4:
                self.first_fps.append(x)
                continue
            if self.repeat_at is None and s >= 4 and x == self.first_fps[0]:
                self._cand = [s, 1]
            elif getattr(self, "_cand", None) and self.repeat_at is None:
                s0, k = self._cand
                if s == s0 + k and k < 4 and x == self.first_fps[k]:
                    self._cand = [s0, k + 1]
                    if k + 1 == 4:
                        self.repeat_at = s0
                else:
                    self._cand = None

    def _repeated(self) -> float:
        if self.dist_sampler is not None and self.planned:
            # a sampler we can read: past its first epoch, its epoch never moved
            if getattr(self.dist_sampler, "shuffle", True) and self.rows_n > self.planned:
                return 1.0 if self.dist_sampler.epoch == self.sampler_epoch0 else 0.0
        if self.repeat_at is not None:
            return 1.0
        return -1.0

    def exchange(self, run: Any, win: Any, tripped: bool) -> bool | None:
        """The window's one collective; whether any rank tripped (the same answer on every rank).

        None when there is nothing to exchange (one process, or not every rank runs a watch): the caller keeps
        its own decision.
        """
        if not self.active:
            return None
        import torch.distributed as dist

        if not self.exchanged and not self._handshake():
            self.active = False
            self.detach(run)
            return None
        v = self._local(run, win, tripped)
        mine = torch.tensor(v, dtype=torch.float64, device=self.device)
        got = [torch.empty_like(mine) for _ in range(self.world)]
        dist.all_gather(got, mine)
        table = [t.tolist() for t in got]
        self.exchanged = True
        self.windows += 1
        self._judge(run, table)
        return any(r[S_TRIP] > 0 for r in table) or bool(self.alarm)

    def _handshake(self) -> bool:
        if self.store is None:
            return True
        keys = [f"{self.key}/{r}" for r in range(self.world)]
        try:
            self.store.wait(keys, timedelta(seconds=HANDSHAKE_S))
        except Exception:  # noqa: BLE001 - a store timeout: some rank runs no watch
            log.warning("trainopt watch: rank %d: not every rank runs a watch; cross-rank checks are off (open the "
                        "watch on every rank, the same script everywhere)", self.rank)
            return False
        return True

    # ------------------------------------------------------------------ verdicts (identical on every rank)

    def _judge(self, run: Any, table: list[list[float]]) -> None:
        ev: dict[str, Any] = {"backend": self.backend}
        if self.sharded:
            ev.update(self._shard_view(table))
        obs: list[Any] = [emit(INFO, "dist_world_size", self.world, ev)]
        self.alarm = False
        end = int(table[0][S_STEPS])
        start = int(table[0][S_START])
        parallel = not self.sharded and all(not differs(r[S_INIT1], table[0][S_INIT1], 1e-9) and
                                           not differs(r[S_INIT2], table[0][S_INIT2], 1e-9) for r in table)
        parallel = parallel or self.ddp
        obs += self._sync(run, table, parallel, start, end)
        obs += self._nonfinite(table)
        obs += self._data(table, end)
        obs += self._skew(table)
        if self.find_unused is not None:
            obs.append(emit(INFO, "ddp_find_unused", self.find_unused))
            nograd = [int(r[S_NOGRAD]) for r in table]
            if all(n >= 0 for n in nograd):
                obs.append(emit(INFO, "ddp_unused_params", "some" if any(nograd) else "none",
                                {"params_without_grad_by_rank": nograd}))
        rows = [r[S_ROWS] for r in table if r[S_ROWS] > 0]
        if rows:
            per_rank = int(round(min(rows)))
            obs.append(emit(INFO, "per_rank_batch", max(1, per_rank),
                            {"batch_rows_by_rank": rows, "global_batch": int(round(sum(rows)))}))
        if self.bn is not None:
            obs.append(emit(INFO, "batchnorm_sync", self.bn, thresholds=("MT-BN-RANK-BATCH",)))
        data = [r[S_DATA] for r in table]
        if all(x >= 0 for x in data):
            # A rank's time between steps includes any collective a framework runs there (a logging gather, a
            # barrier) waiting for a slower rank; what every rank spends is the loader's. The smallest share is
            # the job's data time (first in trust order: it replaces each rank's own figure).
            obs.append(emit(INFO, "data_time_fraction", min(data), {"by_rank": data}, ("MT-DATA-FRAC",)))
        self.obs = obs

    def _shard_view(self, table: list[list[float]]) -> dict[str, Any]:
        # Sharded parameters (FSDP): each rank holds a different slice by design, so there are no replicas to
        # compare and no per-rank gradient to hold against the others; what the ranks' numbers give together is
        # the whole model's gradient norm (each rank's squared shard norm, added up).
        out: dict[str, Any] = {"parameters": "sharded"}
        g = [r[S_G] for r in table]
        if all(x >= 0 for x in g) and len({r[S_G_STEP] for r in table}) == 1:
            out["grad_norm"] = math.sqrt(math.fsum(g)) if all(math.isfinite(x) for x in g) else math.nan
            out["grad_norm_step"] = int(table[0][S_G_STEP])
        return out

    def _sync(self, run: Any, table: list[list[float]], parallel: bool, start: int, end: int) -> list[Any]:
        import torch.distributed as dist

        if self.sharded or not parallel:
            return []
        out = []
        rel = threshold("MT-DDP-DESYNC-REL")
        off = [r for r in range(self.world) if differs(table[r][S_W1], table[0][S_W1], rel)
               or differs(table[r][S_W2], table[0][S_W2], rel)]
        if off and self.desync is None:
            # one-off second gather: per-parameter fingerprints, to name the parameter (all ranks decided alike)
            mine = torch.tensor(self.wnorms or [0.0], dtype=torch.float64, device=self.device)
            got = [torch.empty_like(mine) for _ in range(self.world)]
            dist.all_gather(got, mine)
            per = [t.tolist() for t in got]
            names = run.pnames
            k = len(names)
            bad = sorted({i % k for i in range(len(per[0])) if any(differs(per[r][i], per[0][i], rel) for r in off)})
            self.desync = {"ranks": off, "compared_with": 0, "parameters": [names[i] for i in bad[:5]],
                           "first_parameter": names[bad[0]] if bad else None,
                           "in_sync_at_step": self.last_match, "diverged_by_step": end,
                           "fingerprint_by_rank": [r[S_W1] for r in table]}
            self.alarm = True
        elif not off and self.desync is None:
            self.last_match = end
        if self.desync is not None:
            out.append(emit(INFO, "replicas_in_sync", "diverged", self.desync, ("MT-DDP-DESYNC-REL",),
                            step=self.desync["diverged_by_step"]))
        elif self.windows >= 1:
            out.append(emit(INFO, "replicas_in_sync", "in_sync", {"checked_at_step": end}, ("MT-DDP-DESYNC-REL",)))
        # gradients the optimizer applied at the same sampled step
        g = [r[S_G] for r in table]
        if all(x >= 0 for x in g) and len({r[S_G_STEP] for r in table}) == 1:
            grel = threshold("MT-DDP-GRAD-REL")
            apart = [r for r in range(self.world) if differs(g[r] ** 0.5, g[0] ** 0.5, grel)]
            if apart and self.unsynced is None:
                self.unsynced = {"step": int(table[0][S_G_STEP]), "grad_norm_by_rank": [x ** 0.5 for x in g],
                                 "ranks": apart}
                self.alarm = True
        if self.unsynced is not None:
            out.append(emit(INFO, "grads_synced", "unsynced", self.unsynced, ("MT-DDP-GRAD-REL",),
                            step=self.unsynced["step"]))
        elif all(x >= 0 for x in g):
            out.append(emit(INFO, "grads_synced", "synced", {"step": int(table[0][S_G_STEP])}))
        return out

    def _nonfinite(self, table: list[list[float]]) -> list[Any]:
        hits = [(int(r[S_NF_STEP]), int(r[S_NF_SITE]), k) for k, r in enumerate(table) if r[S_NF_STEP] >= 0]
        if not hits:
            return []
        step, site, rank = min(hits)
        ev = {"rank": rank, "site": SITES[site], "step": step,
              "first_step_by_rank": {k: (int(r[S_NF_STEP]) if r[S_NF_STEP] >= 0 else None)
                                     for k, r in enumerate(table)}}
        self.alarm = self.alarm or not getattr(self, "_nf_seen", False)
        self._nf_seen = True
        return [emit(INFO, "nonfinite_rank", rank, ev, step=step),
                emit(INFO, "nan_location", SITES[site], ev, step=step),
                emit(INFO, "nan_step", step, ev, step=step),
                emit(INFO, "nan_onset", "immediate" if step == 0 else "after_steps", ev, step=step),
                emit(INFO, "loss_behavior", "nan_or_inf", ev, step=step)]

    def _data(self, table: list[list[float]], end: int) -> list[Any]:
        out = []
        fps = [(r[S_FP], r[S_FP_N]) for r in table]
        if all(n > 0 for _, n in fps) and all(f != -2.0 for f, _ in fps):
            if all(f == fps[0][0] for f, _ in fps):
                self.identical_windows += 1
            else:
                self.distinct_windows += 1
        if self.identical_windows or self.distinct_windows:
            same = self.identical_windows > 0 and self.distinct_windows == 0
            if same and self.identical_windows == 1:
                self.alarm = True
            out.append(emit(INFO, "rank_data", "identical" if same else "distinct",
                            {"windows_identical": self.identical_windows, "windows_compared":
                             self.identical_windows + self.distinct_windows, "by_step": end}))
        rep = [r[S_REPEAT] for r in table]
        if any(x == 1.0 for x in rep):
            if not getattr(self, "_rep_seen", False):
                self.alarm = self._rep_seen = True
            out.append(emit(INFO, "epoch_data_order", "repeated",
                            {"ranks": [k for k, x in enumerate(rep) if x == 1.0], "by_step": end}))
        elif any(x == 0.0 for x in rep):
            out.append(emit(INFO, "epoch_data_order", "reshuffled", {"by_step": end}))
        planned = [int(r[S_PLANNED]) for r in table]
        if all(p >= 0 for p in planned):
            uneven = len(set(planned)) > 1
            if uneven and not getattr(self, "_uneven_seen", False):
                self.alarm = self._uneven_seen = True
            out.append(emit(INFO, "rank_batch_counts", "uneven" if uneven else "equal",
                            {"batches_per_epoch_by_rank": planned,
                             "hang_at_batch": min(planned) + 1 if uneven else None}, step=end))
        return out

    def _skew(self, table: list[list[float]]) -> list[Any]:
        per = [r[S_TIME] if r[S_TIMED] > 0 else None for r in table]
        if any(p is None for p in per):
            return []
        self.skew_hist = (getattr(self, "skew_hist", []) + [per])[-64:]  # bounded: the last 64 windows
        self.skew_n = getattr(self, "skew_n", 0) + 1
        # each rank's typical own time: the median over windows of the windows' medians
        mean = [median([w[k] for w in self.skew_hist]) for k in range(self.world)]
        slow = max(range(self.world), key=lambda k: mean[k])
        # a straggler is slow window after window; on a shared host the slowest rank changes from window to window
        steady = sum(1 for w in self.skew_hist if max(range(self.world), key=lambda k: w[k]) == slow)
        # the slowest rank against the median of the others (with two ranks: against the other one)
        srt = sorted(m for k, m in enumerate(mean) if k != slow)
        med = srt[(len(srt) - 1) // 2] if len(srt) % 2 else (srt[len(srt) // 2 - 1] + srt[len(srt) // 2]) / 2
        excess = mean[slow] - med
        ratio = mean[slow] / med if med > 0 else (math.inf if excess > 0 else 1.0)
        # below the absolute floor a ratio is timer noise: reported as no skew
        steady_enough = len(self.skew_hist) >= SKEW_WINDOWS and steady >= 0.75 * len(self.skew_hist)
        value = min(ratio, 1e6) if excess >= threshold("MT-DDP-SKEW-ABS") and steady_enough else 1.0
        if value > threshold("MT-DDP-SKEW") and not getattr(self, "_skew_seen", False):
            self.alarm = self._skew_seen = True
        if self.skew_n < SKEW_WINDOWS:
            return []  # the first windows' timings are the start-up's, not the run's
        return [emit(INFO, "rank_step_skew", value,
                     {"slowest_rank": slow, "own_ms_per_step_by_rank": [1000 * m for m in mean],
                      "median_ms": 1000 * med, "windows_slowest": steady, "windows": len(self.skew_hist)},
                     ("MT-DDP-SKEW", "MT-DDP-SKEW-ABS"))]

    # ------------------------------------------------------------------ observations

    def summarise(self, run: Any) -> list[Any]:
        """The cross-rank observations of the latest exchange (the same on every rank)."""
        return list(self.obs) if self.active or self.obs else []
