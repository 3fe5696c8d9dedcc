"""The watch's optimizer-step counter: the pre-hook only on the steps that need it, the same counts, nothing left.

Issue 21: a registered optimizer pre-hook cost every step tens of microseconds; the watch counts optimizer steps
with a counter the optimizer's step wrapper calls anyway, and registers the pre-hook only for sampled steps,
wake-ups, scalers and sharded parameters. These tests hold the counts and the gradient-free-step verdicts to
what the always-on hook gave, and check that exit leaves the model and optimizer as found.
"""

from __future__ import annotations

import copy
import pickle

import pytest
import torch

from probes.watcher import Watch, _StepCounter
from trainopt import watch


def tiny() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))


def _batch() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(16, 6), torch.randint(0, 3, (16,))


def _no_watch_left(model: torch.nn.Module, opt: torch.optim.Optimizer) -> None:
    assert "_optimizer_step_code" not in vars(opt)
    assert not opt._optimizer_step_pre_hooks and not opt._optimizer_step_post_hooks
    assert not model._forward_hooks and not model._forward_pre_hooks


def _loop(model, opt, w, n, *, zero_between=lambda i: False, accumulate=1, on=None):
    for i in range(n):
        x, y = _batch()
        if i % accumulate == 0 and not zero_between(i):
            opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        if (i + 1) % accumulate == 0:
            if zero_between(i):
                opt.zero_grad(set_to_none=True)  # the fault, on this step only
            opt.step()
        w.step(loss)
        if on is not None:
            on.append(w._opt_handle is not None)


def test_optimizer_steps_are_counted_with_the_pre_hook_off_on_most_steps():
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    on: list[bool] = []
    with watch(model, opt) as w:
        assert isinstance(vars(opt)["_optimizer_step_code"], _StepCounter)
        _loop(model, opt, w, 600, on=on)
        assert w.opt_steps == 600
    # on for sampled steps, grad_flow's wake-ups and the first steps; off for most of the run
    assert 0 < sum(on[300:]) <= 60
    _no_watch_left(model, opt)
    obs = {o.name: o for o in w.observations()}
    assert obs["optimizer_step_call"].value == "once"
    assert obs["step_grads"].value == "present"


def test_accumulated_steps_are_counted_as_optimizer_steps():
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    with watch(model, opt) as w:
        _loop(model, opt, w, 600, accumulate=4)
    assert w.opt_steps == 150


@pytest.mark.parametrize("every_k", [1, 3, 7])
def test_steps_that_find_no_gradient_are_all_counted_when_the_pre_hook_is_off(every_k):
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    bad = [i for i in range(600) if i % every_k == 0]
    with watch(model, opt) as w:
        _loop(model, opt, w, 600, zero_between=lambda i: i % every_k == 0)
    lint = w.probe("loop_lint")
    # exactly the faulty steps, whether the pre-hook or the counter looked (first step included)
    assert lint.steps_without_grad == len(bad)
    assert w.opt_steps == 600
    if every_k == 1:
        assert {o.name: o for o in w.observations()}["step_grads"].value == "none"


def test_a_closure_that_computes_the_gradients_is_no_step_without_gradient():
    model = tiny()
    opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=2)
    x, y = _batch()
    with watch(model, opt) as w:
        for _ in range(450):
            def closure() -> torch.Tensor:
                opt.zero_grad(set_to_none=True)
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                return loss
            loss = opt.step(closure)
            opt.zero_grad(set_to_none=True)
            w.step(loss)
    assert w.probe("loop_lint").steps_without_grad == 0
    assert w.opt_steps == 450
    _no_watch_left(model, opt)


def test_a_scaler_keeps_the_pre_hook_on_every_step():
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    on: list[bool] = []
    with watch(model, opt, scaler=scaler) as w:
        _loop(model, opt, w, 300, on=on)
    assert all(on) and w.opt_steps == 300
    _no_watch_left(model, opt)


def test_copies_of_the_optimizer_do_not_carry_the_watch():
    model = tiny()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    with watch(model, opt) as w:
        _loop(model, opt, w, 5)
        twin = copy.deepcopy(opt)
        thawed = pickle.loads(pickle.dumps(opt))
        for o in (twin, thawed):
            assert not isinstance(vars(o).get("_optimizer_step_code"), _StepCounter)
            for p in o.param_groups[0]["params"]:
                p.grad = torch.zeros_like(p)
            o.step()  # steps as any optimizer does, counted by no watch
        assert w.opt_steps == 5
        _loop(model, opt, w, 5)
    assert w.opt_steps == 10
    _no_watch_left(model, opt)


def test_an_exception_in_the_loop_leaves_nothing_behind():
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    with pytest.raises(RuntimeError, match="boom"), watch(model, opt) as w:
        _loop(model, opt, w, 250)
        raise RuntimeError("boom")
    _no_watch_left(model, opt)


def test_a_step_code_installed_by_someone_else_is_left_alone():
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    calls: list[int] = []
    opt._optimizer_step_code = lambda: calls.append(1)
    with watch(model, opt) as w:
        _loop(model, opt, w, 300)
        assert w._opt_always  # no counter of its own: the pre-hook counts, every step
    assert w.opt_steps == 300 and len(calls) == 300
    assert vars(opt)["_optimizer_step_code"] is not None
    del opt._optimizer_step_code
    _no_watch_left(model, opt)


def test_the_watch_has_no_hook_of_its_own_between_bench_pause_and_resume():
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    with watch(model, opt) as w:
        _loop(model, opt, w, 10)
        w._unhook()
        _no_watch_left(model, opt)
        for _ in range(3):  # a plain chunk: not the watch's steps
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(_batch()[0]), _batch()[1]).backward()
            opt.step()
        assert w.opt_steps == 10
        w._hook()
        _loop(model, opt, w, 10)
    assert w.opt_steps == 20
    assert isinstance(w, Watch)
    _no_watch_left(model, opt)


def test_a_framework_stand_in_keeps_the_pre_hook_on_and_installs_no_counter():
    from trainopt._callback import DeferredHooks

    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    hooks = DeferredHooks(opt)
    with watch(model, hooks.proxy) as w:
        assert "_optimizer_step_code" not in vars(opt) and w._opt_always
        for _ in range(250):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(_batch()[0]), _batch()[1]).backward()
            hooks.pre()  # where the framework says: the watch counts here, as before
            opt.step()
            hooks.post()
            w.step()
    assert w.opt_steps == 250
    assert not hooks._pre and not hooks._post
    _no_watch_left(model, opt)


def test_a_subclass_step_code_override_still_runs_and_steps_are_counted():
    """An optimizer subclass's own ``_optimizer_step_code`` is not shadowed: the pre-hook counts instead."""

    class MySGD(torch.optim.SGD):
        calls = 0

        def _optimizer_step_code(self) -> None:
            type(self).calls += 1

    model = tiny()
    opt = MySGD(model.parameters(), lr=0.05)
    with watch(model, opt) as w:
        assert "_optimizer_step_code" not in vars(opt)
        _loop(model, opt, w, 20)
        assert w.opt_steps == 20
    assert MySGD.calls == 20
    _no_watch_left(model, opt)
