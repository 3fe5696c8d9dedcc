"""``w.step`` skips its end-of-step scheduling on the steps where nothing is due (``Watch._quiet_to``).

Issue 21: the scheduling (the next step's handler tables, the optimizer's pre-hook, wake-ups, the window end) ran
on every step though most steps have nothing due. These tests hold the measurements, the trips, the handlers
called and the per-step scheduling state, step by step, to what scheduling every step in full gives: on a healthy
run, on a run with a non-finite input, and with handlers woken at steps of their own choosing.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
import torch

from probes.base import Probe, ProbeInfo
from probes.registry import plugins as default_plugins
from probes.watcher import Watch
from trainopt import watch


def tiny() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))


def _state(w: Watch) -> tuple[Any, ...]:
    """What the end-of-step scheduling leaves for the next step: hooks on, handler tables in force, clocks."""
    return (w._opt_handle is not None, w._post_handle is not None, w._pre_handle is not None,
            w.forward_serial, w.opt_steps, w.steps, w._i, w._fwd_now is w._on_fwd, w._opt_now is w._on_opt_pre,
            w._wake_fwd, w._wake_opt, w._wake_end, w._escalate, w._pending, len(w.trips))


def _run(model: torch.nn.Module, opt: torch.optim.Optimizer, w: Watch, n: int, *, nan_at: int = -1,
         seen: list | None = None, quiet: list | None = None) -> None:
    g = torch.Generator().manual_seed(1)
    for i in range(n):
        x, y = torch.randn(16, 6, generator=g), torch.randint(0, 3, (16,), generator=g)
        if i == nan_at:
            x[0, 0] = float("nan")
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        w.step(loss)
        if seen is not None:
            seen.append(_state(w))
        if quiet is not None:
            quiet.append(w._quiet_to > w.steps + 1)  # the next w.step skips its scheduling


def _observed(monkeypatch: pytest.MonkeyPatch, *, full: bool, nan_at: int = -1, n: int = 460,
              plugins: tuple[type, ...] = ()) -> tuple[list, list, list, list]:
    """A run's observations, trips, per-step state and plugin calls; ``full``: every step's end scheduled in full.

    The per-step count of skipped step ends is checked here, not returned: a full run skips none.
    """
    with monkeypatch.context() as mp:
        if full:
            mp.setattr(Watch, "_next_due", lambda self, sampled: self.steps + 1)
        model = tiny()
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        seen: list = []
        quiet: list = []
        kw: dict[str, Any] = {"plugins": [*default_plugins(), *plugins]} if plugins else {}
        with watch(model, opt, loss_fn=torch.nn.CrossEntropyLoss(), every=50, update_every=7, **kw) as w:
            assert model._forward_hooks  # the forward hook, as ever
            _run(model, opt, w, n, nan_at=nan_at, seen=seen, quiet=quiet)
            obs = [(o.name, o.value, o.step) for o in w.observations()]
            calls = [list(p.at.items()) for p in w.probes if isinstance(p, _Waker)]
        assert not model._forward_hooks and not model._forward_pre_hooks
        if full:
            assert not any(quiet)
        else:
            assert sum(quiet) > n // 3  # many step ends are idle, and skipped
        return obs, w.trips, seen, calls


def test_idle_step_ends_skipped_change_no_measurement_trip_or_hook(monkeypatch):
    ref = _observed(monkeypatch, full=True)
    assert ref[0] and len(ref[2]) == 460
    assert _observed(monkeypatch, full=False) == ref


def test_idle_step_ends_skipped_on_a_non_finite_input_too(monkeypatch):
    ref = _observed(monkeypatch, full=True, nan_at=300)
    assert ref[1]  # the non-finite input trips
    assert _observed(monkeypatch, full=False, nan_at=300) == ref


class _Waker(Probe):
    """Wakes its step-end and optimizer handlers at steps between the sampled ones, from each of its handlers."""

    info = ProbeInfo("test_waker", "cheap", "forward", ())
    hooks: ClassVar[tuple[str, ...]] = ("forward", "optimizer_pre", "step_end")
    woken_hooks: ClassVar[tuple[str, ...]] = hooks

    def attach(self, run: Any) -> None:
        self.at: dict[str, list[int]] = {h: [] for h in self.hooks}
        run.wake("forward", self.forward, 3)
        run.wake("step_end", self.step_end, 11)

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        self.at["forward"].append(run.forward_serial)
        # from a forward: this step's optimizer step, and a step end three steps on
        run.wake("optimizer_pre", self.optimizer_pre, run.steps)
        run.wake("step_end", self.step_end, run.steps + 3)

    def optimizer_pre(self, run: Any) -> None:
        self.at["optimizer_pre"].append(run.steps)
        if run.steps < 300:
            run.wake("optimizer_pre", self.optimizer_pre, run.steps + 5)  # from its own handler

    def step_end(self, run: Any) -> None:
        self.at["step_end"].append(run.steps)
        if run.steps < 200:
            run.wake("forward", self.forward, run.forward_serial + 17)
        elif run.steps < 400:
            run.wake("step_end", self.step_end, run.steps + 23)  # from its own handler


def test_woken_handlers_run_at_the_same_steps_when_idle_step_ends_are_skipped(monkeypatch):
    ref = _observed(monkeypatch, full=True, plugins=(_Waker,))
    (calls,) = ref[3]
    at = dict(calls)
    # woken at steps that are neither sampled (every 7th) nor window ends (every 50th)
    assert len(at["forward"]) > 5 and len(at["optimizer_pre"]) > 20 and len(at["step_end"]) > 10, at
    assert any(s % 7 and s % 50 for s in at["step_end"]) and any(s % 7 for s in at["optimizer_pre"])
    assert _observed(monkeypatch, full=False, plugins=(_Waker,)) == ref
