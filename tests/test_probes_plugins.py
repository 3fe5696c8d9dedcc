"""Probes are plugins, and watching is cheap: the plugin contract, one host read per window, bounded memory."""

from __future__ import annotations

import importlib
import math
from collections import deque
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

from knowledge.measurements import MEASURE_BY_ID
from knowledge.vocabulary import VOCABULARY
from probes import PLUGINS, examine, plugins
from probes.base import HOOKS, Probe, ProbeInfo, emit
from tests.zoo import fit_batch
from trainopt import watch

# the method each declared hook needs (per-step events are methods of the same name)
METHOD = {"window": "accumulate", "escalate": "escalate"}


@pytest.mark.parametrize("spec", PLUGINS)
def test_every_listed_plugin_declares_its_contract(spec):
    cls = plugins((spec,))[0]
    mod = importlib.import_module(cls.__module__)
    assert issubclass(cls, Probe)
    assert cls.info is mod.INFO, "a plugin reports as its file's probe"
    assert mod.__name__ == f"probes.{cls.info.id}", "one probe = one file, named by its id"
    assert set(cls.hooks) <= set(HOOKS), f"unknown hooks {set(cls.hooks) - set(HOOKS)}"
    # events skipped on steps that are not sampled: declared ones among those the scheduler gates
    assert set(cls.sampled_hooks) <= set(cls.hooks) & {"forward", "optimizer_pre", "step_end"}, cls.sampled_hooks
    assert set(cls.woken_hooks) <= set(cls.hooks) & {"forward", "optimizer_pre", "step_end"}, cls.woken_hooks
    assert set(cls.thresholds) <= set(MEASURE_BY_ID), f"unknown thresholds {set(cls.thresholds) - set(MEASURE_BY_ID)}"
    assert set(cls.info.measures) <= set(VOCABULARY), "it measures vocabulary names"
    for h in cls.hooks:
        if h == "backward":
            continue  # a plugin registers its own (sampled) tensor hook
        name = METHOD.get(h, h)
        assert getattr(cls, name) is not getattr(Probe, name), f"{cls.__name__} declares {h} but has no {name}()"
    if "escalate" in cls.hooks:
        assert cls.info.tier == "expensive" or cls.info.id == "nonfinite"


class _Toy(Probe):
    """A probe written outside probes/: the batch size of the training forwards, sampled."""

    info = ProbeInfo("toy", "cheap", "forward", ("batch_size",))
    hooks = ("forward", "window")

    def attach(self, run: Any) -> None:
        self.seen: list[tuple[int, float]] = []

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        if run.sampled:
            run.record("toy:rows", torch.tensor(float(out.shape[0])))

    def accumulate(self, run: Any, window: Any) -> None:
        self.seen = (self.seen + [(s, v[0]) for s, v in window.get("toy:rows")])[-4:]

    def summarise(self, run: Any) -> list:
        return [emit(self.info, "batch_size", int(self.seen[-1][1]), step=self.seen[-1][0])] if self.seen else []

    def prepare(self, ex: Any) -> None:
        self.rows = int(ex.x.shape[0])

    def examine(self, ex: Any) -> list:
        return [emit(self.info, "batch_size", self.rows)]


def _mlp(seed: int = 0) -> tuple[nn.Module, torch.optim.Optimizer, torch.Tensor, torch.Tensor]:
    torch.manual_seed(seed)
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    return m, torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9), x, y


def test_a_new_probe_is_one_class_given_to_the_schedulers():
    m, opt, x, y = _mlp()
    with watch(m, opt, every=5, update_every=4, plugins=[_Toy]) as w:
        # only what a plugin asked for is hooked: no optimizer post-hook, no forward pre-hook
        assert not opt._optimizer_step_post_hooks and not m._forward_pre_hooks
        fit_batch(m, opt, x, y, 12, w)
    obs = {o.name: o for o in w.observations()}
    assert obs["batch_size"].value == 32 and obs["batch_size"].source == "probe:toy"
    assert obs["batch_size"].step == 8  # the latest sampled step of 12 (0, 4, 8), read at the exit's flush
    ex = {o.name: o for o in examine(m, nn.CrossEntropyLoss(), (x, y), opt, probes=[*plugins(), _Toy])}
    assert ex["batch_size"].value == 32 and "update_ratio" in ex


class _Counts(Probe):
    """Counts its calls, and the sampled ones among them."""

    info = ProbeInfo("toy", "cheap", "forward", ("batch_size",))
    hooks = ("forward", "optimizer_pre", "step_end")

    def attach(self, run: Any) -> None:
        self.calls = {h: [0, 0] for h in self.hooks}

    def _count(self, run: Any, h: str) -> None:
        self.calls[h][0] += 1
        self.calls[h][1] += run.sampled

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        self._count(run, "forward")

    def optimizer_pre(self, run: Any) -> None:
        self._count(run, "optimizer_pre")

    def step_end(self, run: Any) -> None:
        self._count(run, "step_end")


class _CountsSampled(_Counts):
    sampled_hooks = ("forward", "optimizer_pre", "step_end")


class _Woken(_Counts):
    """Woken for the forwards 2 and 5, the optimizer step of step 4 (then each second step), one step end."""

    hooks = ("forward", "optimizer_pre", "step_end")
    woken_hooks = hooks

    def attach(self, run: Any) -> None:
        super().attach(run)
        self.at: dict[str, list[int]] = {h: [] for h in self.hooks}
        run.wake("forward", self.forward, 2)
        run.wake("forward", self.forward, 99)  # replaced: one wake-up per handler and event
        run.wake("forward", self.forward, 2)
        run.wake("optimizer_pre", self.optimizer_pre, 4)
        run.wake("step_end", self.step_end, 7)

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        self.at["forward"].append(run.forward_serial)
        if run.forward_serial == 2:
            run.wake("forward", self.forward, 5)

    def optimizer_pre(self, run: Any) -> None:
        self.at["optimizer_pre"].append(run.steps)
        run.wake("optimizer_pre", self.optimizer_pre, run.steps + 2)

    def step_end(self, run: Any) -> None:
        self.at["step_end"].append(run.steps)


class _WokenSampled(_Woken):
    sampled_hooks = ("optimizer_pre",)


def test_woken_hooks_are_called_when_woken_only():
    m, opt, x, y = _mlp()
    with watch(m, opt, every=6, update_every=3, plugins=[_Woken, _WokenSampled]) as w:
        fit_batch(m, opt, x, y, 12, w)
    woken, sampled = w.probes
    # the forward clock counts training forwards from 1; the others count steps (step_end: after the count)
    assert woken.at == {"forward": [2, 5], "optimizer_pre": [4, 6, 8, 10], "step_end": [7]}
    # sampled too: the sampled steps 0, 3, 6, 9 as well, and a sampled call that wakes itself moves its wake-up
    assert sampled.at["optimizer_pre"] == [0, 2, 3, 5, 6, 8, 9, 11], sampled.at


def test_sampled_hooks_are_called_on_the_sampled_steps_only():
    m, opt, x, y = _mlp()
    with watch(m, opt, every=6, update_every=3, plugins=[_Counts, _CountsSampled]) as w:
        fit_batch(m, opt, x, y, 12, w)
    every, sampled = w.probes
    # 12 steps, sampled every 3rd: the steps 0, 3, 6, 9 (step_end looks at the next one: 3, 6, 9, 12)
    assert every.calls == {h: [12, 4] for h in every.hooks}
    assert sampled.calls == {h: [4, 4] for h in sampled.hooks}


class _Reads(TorchDispatchMode):
    """Counts device-to-host reads of single values (``item``, ``float``, ``bool`` go through this op)."""

    def __init__(self) -> None:
        super().__init__()
        self.n = 0
        self.ops: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = str(func.overloadpacket)
        self.ops.append(name)
        if name == "aten._local_scalar_dense":
            self.n += 1
        return func(*args, **(kwargs or {}))


def _counting_tolist(calls: list[int]) -> tuple[Any, Any]:
    """``(original, counting)``: ``Tensor.tolist`` and a stand-in that notes each call's size in ``calls``."""
    tolist = torch.Tensor.tolist

    def counting_tolist(self: torch.Tensor) -> Any:
        calls.append(self.numel())
        return tolist(self)

    return tolist, counting_tolist


def test_a_step_reads_nothing_to_the_host_and_a_window_end_reads_once(monkeypatch):
    m, opt, x, y = _mlp()
    every = 8
    calls: list[int] = []
    tolist, counting_tolist = _counting_tolist(calls)

    with watch(m, opt, every=every) as w:
        fit_batch(m, opt, x, y, every, w)  # first window: the one-time static lint reads the first batch
        monkeypatch.setattr(torch.Tensor, "tolist", counting_tolist)
        for window in range(3):
            for i in range(every):
                with _Reads() as r:
                    opt.zero_grad(set_to_none=True)
                    loss = nn.functional.cross_entropy(m(x), y)
                    loss.backward()
                    opt.step()
                    last = i == every - 1
                    w.step(loss)
                # no single-value read a step: the CPU loss's own value is read from its host memory without a torch
                # op (issue 21; tests/test_watch_host_reads.py). A loss on an accelerator is queued like everything else
                assert r.n == 0, "no single-value read in the steps or at the window end"
                assert len(calls) == window + last, "one stacked read per window end, none in a step"
        monkeypatch.setattr(torch.Tensor, "tolist", tolist)
    assert not w.trips


def test_sampled_measurements_ride_in_the_window_read(monkeypatch):
    """The loss multiplier, weight norms and sampled activations add no host read: one stacked read a window."""
    m, opt, x, y = _mlp()
    every = 8
    calls: list[int] = []
    tolist, counting_tolist = _counting_tolist(calls)

    def accumulated_step(w: Any) -> None:
        opt.zero_grad(set_to_none=True)
        for xs, ys in ((x[:16], y[:16]), (x[16:], y[16:])):
            loss = nn.functional.cross_entropy(m(xs), ys)  # not divided by the 2 micro-batches
            loss.backward()
        opt.step()
        w.step(loss)

    with watch(m, opt, every=every, update_every=2, loss_fn=nn.CrossEntropyLoss()) as w:
        for _ in range(every):
            accumulated_step(w)  # first window: the one-time static lint reads the first batch
        monkeypatch.setattr(torch.Tensor, "tolist", counting_tolist)
        for window in range(3):
            for i in range(every):
                with _Reads() as r:
                    accumulated_step(w)
                assert r.n == 0, "no single-value read in the steps or at the window end"
                assert len(calls) == window + (i == every - 1), "one stacked read per window end"
        monkeypatch.setattr(torch.Tensor, "tolist", tolist)
        keys = {o.name: o for o in w.observations()}
    assert keys["loss_scaled_for_accum"].value is False  # the multiplier read at the output is 1, not 1/2
    assert "weight_norm_ratio" in keys and "dead_relu_fraction" in keys
    assert keys["dead_relu_fraction"].step is not None


def test_a_plain_step_costs_a_few_device_ops_and_no_loop_over_parameters():
    torch.manual_seed(0)
    m = nn.Sequential(*[nn.Linear(16, 16) for _ in range(12)])  # 24 parameter tensors
    opt = torch.optim.SGD(m.parameters(), lr=0.01)
    x, y = torch.randn(8, 16), torch.randn(8, 16)

    def one(w: Any = None) -> list[str]:
        with _Reads() as r:
            opt.zero_grad(set_to_none=True)
            loss = nn.functional.mse_loss(m(x), y)
            loss.backward()
            opt.step()
            if w is not None:
                w.step(loss)
        return r.ops

    plain = one()
    with watch(m, opt, every=64, update_every=64) as w:
        one(w)  # step 0 is sampled
        watched = one(w)
    extra = len(watched) - len(plain)
    # one foreach norm over the gradients, the CPU loss's value (its one read: no input read while it is
    # finite): a handful of ops, not one per parameter
    assert 0 < extra <= 8, (extra, sorted(set(watched) - set(plain)))
    # (the CPU loss's value is read from its host memory: no _local_scalar_dense op)
    assert "aten.isfinite" not in watched and watched.count("aten._local_scalar_dense") == 0


def test_the_first_forward_is_kept_as_a_small_sample_not_the_whole_output():
    """A language model's first logits are not held until the first window end: a thinned copy is."""
    torch.manual_seed(0)
    vocab, seq = 3000, 64
    m = nn.Sequential(nn.Embedding(vocab, 16), nn.Linear(16, vocab))
    opt = torch.optim.AdamW(m.parameters(), 1e-3)
    x = torch.randint(0, vocab, (32, seq))
    with watch(m, opt, every=4, loss_fn=nn.CrossEntropyLoss()) as w:
        opt.zero_grad()
        out = m(x)  # [32, 64, 3000]: 6.1M elements
        loss = nn.functional.cross_entropy(out.reshape(-1, vocab), x.reshape(-1))
        loss.backward()
        opt.step()
        w.step(loss)
        kept = w.first_output
        assert w.first_output_shape == (32, seq, vocab)
        assert kept.numel() <= 16 * seq * 16 and kept.ndim == 3 and kept.shape[1] == seq
        assert kept.untyped_storage().data_ptr() != out.untyped_storage().data_ptr()  # a copy, not a view
        assert torch.equal(kept[0, :, 0], out.detach()[0, :, 0])
    obs = {o.name: o.value for o in w.consultation.observations.values()}
    assert obs["batch_size"] == 32  # read from the full output's shape, not the sample's


def test_update_ratios_from_window_norms_match_a_naive_reference():
    """The watch queues |update| and |weight| norms on the device and divides on the host at the window end."""
    from probes.update_ratio import host_ratios, ratios, update_norms

    torch.manual_seed(1)
    before = [torch.randn(5, 3), torch.zeros(4), torch.randn(7)]
    after = [before[0] + 1e-3 * torch.randn(5, 3), before[1].clone(), before[2].clone()]
    naive = [float(torch.linalg.vector_norm(a - b)) for a, b in zip(after, before)] + \
        [float(torch.linalg.vector_norm(b)) for b in before]
    queued = update_norms(before, after).tolist()
    assert all(math.isclose(q, n, rel_tol=1e-6, abs_tol=1e-12) for q, n in zip(queued, naive))
    host, examined = host_ratios(queued), ratios(before, after)  # watch's path and examine's: one rule
    assert math.isclose(host[0], naive[0] / naive[3], rel_tol=1e-5) and examined[0] == host[0]
    assert all(math.isnan(v) for v in host[1:] + examined[1:])  # unmoved: no verdict


def _footprint(obj: Any, seen: set[int] | None = None, depth: int = 0) -> int:
    """Elements held in a plugin's containers (lists, dicts, deques, arrays), recursively."""
    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 6 or isinstance(obj, (str, bytes, int, float, bool, type(None), nn.Module,
                                                        torch.optim.Optimizer)):
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return int(obj.size)
    if isinstance(obj, torch.Tensor):
        return int(obj.numel())
    if isinstance(obj, dict):
        return len(obj) + sum(_footprint(v, seen, depth + 1) for v in obj.values())
    if isinstance(obj, (list, tuple, deque, set)):
        return len(obj) + sum(_footprint(v, seen, depth + 1) for v in obj)
    if hasattr(obj, "__dict__"):
        return sum(_footprint(v, seen, depth + 1) for v in vars(obj).values())
    return 0


def test_every_buffer_stays_bounded_over_100k_steps():
    """100,000 steps of windows: the watch and every plugin hold no more at the end than after 10,000."""
    from probes.watcher import Window

    m, opt, x, y = _mlp()
    every = 250
    w = watch(m, opt, every=every, update_every=12)
    with w:
        fit_batch(m, opt, x, y, 2 * every, w)  # real windows first: every probe has state
        rng = np.random.default_rng(0)
        norms = [list(rng.uniform(0.1, 1.0, len(w.params))) for _ in range(every)]
        upd = [list(rng.uniform(1e-3, 1e-2, len(w.params))) for _ in range(every)]
        sizes: dict[str, list[int]] = {}
        for k in range(2, 100_000 // every):
            start = k * every
            steps = range(start, start + every)
            loss = [2.0 * math.exp(-s / 30_000) + 0.05 * rng.standard_normal() for s in steps]
            items = {"loss": [(s, [v]) for s, v in zip(steps, loss)],
                     "m:val_loss": [(start + every - 1, [loss[-1] * 1.1])],
                     "m:val_acc": [(start + every - 1, [0.8])], "m:train_acc": [(start + every - 1, [0.85])],
                     "gf:norms": list(zip(steps, norms)),
                     "upd:norms": [(s, u + [1.0] * len(u)) for s, u in zip(steps[::12], upd)],
                     "nf:io": [(s, [-3.0, 3.0, -9.0, 9.0]) for s in steps],
                     "lint:carry": [(start, [0.0])]}
            w.steps = start + every
            win = Window(start, start + every, items)
            for p in w.probes:
                p.accumulate(w, win)
                t = getattr(p, "data", None)
                if t is not None:  # throughput's clocks, as the hooks would feed them on the sampled steps
                    p.data.extend([0.001] * (every // w.update_every))
                    p.compute.extend([0.01] * (every // w.update_every))
            if k % 40 == 0:
                w.observations()
            if start + every >= 10_000:
                for p in w.probes:
                    sizes.setdefault(p.info.id, []).append(_footprint(p))
        hist_steps, hist = w.loss_history
        assert len(hist) <= 2 * 256 and hist_steps[-1] > 90_000
        assert all(len(v) <= 64 for v in w.metric_history.values())
    for pid, s in sizes.items():
        # the bounded history breathes between cap and 2 * cap points; nothing grows with the step count
        first, second = max(s[: len(s) // 4]), max(s[len(s) // 4:])
        assert second <= first * 1.05 + 16, (pid, first, second)
        assert second <= 2000, (pid, second)
    assert not w._buf and not w._hostbuf


def test_window_end_cost_does_not_grow_with_the_history():
    """The work at a window end (numpy elements touched) is the same at step 100k as at step 1k."""
    from probes.loss_curve import History, SpikeCounter

    h, sc = History(), SpikeCounter()
    rng = np.random.default_rng(1)
    for k in range(2000):
        v = (1.0 + 0.01 * rng.standard_normal(50)).tolist()
        h.extend(v)
        sc.update(v)
        if k == 20:
            early = (len(h.values), len(sc._tail), len(sc._pending))
    late = (len(h.values), len(sc._tail), len(sc._pending))
    assert late[0] <= 2 * h.cap and late[1] <= sc.TAIL and late[2] <= early[2] + 50


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: sync debug mode counts real syncs")
def test_no_host_sync_outside_window_ends_on_cuda():
    m, opt, x, y = _mlp()
    m = m.cuda()
    opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
    x, y = x.cuda(), y.cuda()
    with watch(m, opt, every=8) as w:
        fit_batch(m, opt, x, y, 8, w)
        torch.cuda.set_sync_debug_mode("error")
        try:
            fit_batch(m, opt, x, y, 7, w)  # the eighth step ends the window: its one read is allowed
        finally:
            torch.cuda.set_sync_debug_mode(0)


@pytest.mark.parametrize("divided, scaled", [(1, False), (2, True)])
def test_an_accumulating_run_of_one_sampled_step_has_its_loss_multiplier(divided: int, scaled: bool):
    """The multiplier is read on the first sampled step already, from its second micro-batch on (review l29)."""
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(m.parameters(), lr=0.01)
    x, y = torch.randn(32, 8), torch.randint(0, 4, (32,))
    with watch(m, opt, every=64, loss_fn=nn.CrossEntropyLoss()) as w:
        opt.zero_grad(set_to_none=True)
        for xs, ys in ((x[:16], y[:16]), (x[16:], y[16:])):
            loss = nn.functional.cross_entropy(m(xs), ys) / divided
            loss.backward()
        opt.step()
        w.step(loss)
    assert {o.name: o.value for o in w.observations()}.get("loss_scaled_for_accum") is scaled
