"""Loop lint on tiny models that really have the fault: optimizer vs model parameters, step counts, scaler steps."""

from __future__ import annotations

import pytest
import torch

from knowledge.measurements import threshold
from probes import loop_lint
from trainopt import watch


def tiny() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))


def _batch() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(16, 6), torch.randint(0, 3, (16,))


def test_a_healthy_model_and_optimizer_hold_the_same_parameters():
    model = tiny()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    cov = loop_lint.optimizer_coverage(model, opt)
    assert cov == {"stale": [], "missing": [], "frozen_held": []}
    assert loop_lint.params_verdict(cov) == "all"
    assert loop_lint.weights_dtype(model) == "fp32"


def test_a_head_replaced_after_the_optimizer_is_stale_and_never_trains():
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    model[2] = torch.nn.Linear(8, 3)  # the fine-tuning mistake: new head after the optimizer
    cov = loop_lint.optimizer_coverage(model, opt)
    assert len(cov["stale"]) == 2 and cov["missing"] == ["2.weight", "2.bias"]
    assert loop_lint.params_verdict(cov) == "stale"
    # the fault for real: a step leaves the new head exactly where it was
    before = model[2].weight.detach().clone()
    x, y = _batch()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
    assert torch.equal(model[2].weight, before)


def test_layers_unfrozen_after_an_optimizer_over_trainable_params_are_missing():
    model = tiny()
    model[0].requires_grad_(False)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.5)
    model[0].requires_grad_(True)
    cov = loop_lint.optimizer_coverage(model, opt)
    assert cov["missing"] == ["0.weight", "0.bias"] and not cov["stale"]
    assert loop_lint.params_verdict(cov) == "missing"


def test_layers_frozen_after_the_optimizer_are_held_and_still_move_with_zeroed_grads():
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.1)
    x, y = _batch()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
    model[0].requires_grad_(False)
    assert loop_lint.params_verdict(loop_lint.optimizer_coverage(model, opt)) == "frozen_held"
    # why it is worth a note: zeroed (not None) gradients let momentum and decay move a "frozen" layer
    opt.zero_grad(set_to_none=False)
    before = model[0].weight.detach().clone()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
    assert not torch.equal(model[0].weight, before)


def test_half_and_to_convert_in_place_so_the_optimizer_still_holds_the_parameters():
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.half()
    assert loop_lint.params_verdict(loop_lint.optimizer_coverage(model, opt)) == "all"
    assert loop_lint.weights_dtype(model) == "fp16"
    assert loop_lint.weights_dtype(tiny().bfloat16()) == "bf16"


def test_step_counts_are_judged_only_after_enough_steps():
    few = int(threshold("MT-STEP-MIN")) - 1
    assert loop_lint.classify_steps(few, 0, 0, False, False) == {}
    n = int(threshold("MT-STEP-MIN"))
    assert loop_lint.classify_steps(n, n, 0, False, False)["optimizer_step_call"] == "once"
    assert loop_lint.classify_steps(n, 2 * n, 0, False, False)["optimizer_step_call"] == "twice"
    assert loop_lint.classify_steps(n, 0, 0, False, False)["optimizer_step_call"] == "missing"
    assert loop_lint.classify_steps(n, 10 * n, 0, False, False) == {}  # a recording cadence, not a double step
    assert loop_lint.classify_steps(n, n, 3, True, False)["optimizer_step_call"] == "outside_scaler"


def test_scaler_skips_are_calibration_when_rare_and_a_collapse_when_most_steps_skip():
    n = 100
    assert loop_lint.classify_steps(n, n - 8, 0, True, False)["scaler_skips"] == "occasional"
    assert loop_lint.classify_steps(n, n, 0, True, False)["scaler_skips"] == "none"
    assert loop_lint.classify_steps(n, n // 4, 0, True, False)["scaler_skips"] == "persistent"
    assert loop_lint.classify_steps(n, 0, 0, True, False)["scaler_skips"] == "persistent"
    # under accumulation a missing optimizer step is not a skip
    assert "scaler_skips" not in loop_lint.classify_steps(n, n // 4, 0, True, True)


def test_stepping_outside_the_scaler_is_seen_in_the_step_hook():
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    seen: list[bool] = []
    opt.register_step_pre_hook(lambda *_: seen.append(loop_lint.stepped_outside_scaler(scaler, opt)))
    x, y = _batch()
    scaler.scale(torch.nn.functional.cross_entropy(model(x), y)).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
    scaler.scale(torch.nn.functional.cross_entropy(model(x), y)).backward()
    opt.step()  # the fault: scaled gradients applied directly
    assert seen == [False, True]
    assert loop_lint.stepped_outside_scaler(None, opt) is False


def _train(steps_per_iter: int, n: int = 60, **kw) -> object:
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    with watch(model, opt, every=20, **kw) as w:
        for _ in range(n):
            x, y = _batch()
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            for _ in range(steps_per_iter):
                opt.step()
            w.step(loss)
    return w


@pytest.mark.parametrize("steps, value, finding", [(1, "once", None), (2, "twice", "LP-STEP-02"),
                                                    (0, "missing", "LP-STEP-01")])
def test_watch_counts_optimizer_steps_per_training_step(steps, value, finding):
    w = _train(steps)
    obs = {o.name: o for o in w.observations()}
    assert obs["optimizer_step_call"].value == value
    assert obs["optimizer_step_call"].source == "probe:loop_lint"
    assert obs["optimizer_params"].value == "all"
    ids = {f["id"] for f in w.diagnosis.findings}
    step_findings = {i for i in ids if i.startswith("LP-STEP")}
    assert step_findings == ({finding} if finding else set())
    if finding:
        assert w.diagnosis.plan[0] == "training-loop-architecture"


def _train_zero_grad(where: str, set_to_none: bool = True, n: int = 40) -> tuple[object, torch.Tensor, torch.Tensor]:
    """A loop with zero_grad before the forward pass (``where="before"``) or between backward and step."""
    model = tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    start = model[0].weight.detach().clone()
    with watch(model, opt, every=10) as w:
        for _ in range(n):
            x, y = _batch()
            if where == "before":
                opt.zero_grad(set_to_none=set_to_none)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            if where == "between":
                opt.zero_grad(set_to_none=set_to_none)  # the fault: the step finds nothing to apply
            opt.step()
            w.step(loss)
    return w, start, model[0].weight.detach()


@pytest.mark.parametrize("set_to_none, value", [(True, "none"), (False, "zero")])
def test_zero_grad_between_backward_and_step_leaves_the_step_nothing(set_to_none, value):
    w, start, end = _train_zero_grad("between", set_to_none)
    assert torch.equal(start, end)  # the fault for real: no step moved the weights
    obs = {o.name: o for o in w.observations()}
    assert obs["step_grads"].value == value
    assert obs["step_grads"].source == "probe:loop_lint"
    ids = {f["id"] for f in w.diagnosis.findings}
    assert "MS-ZERO-02" in ids and "DX-GRAD-01" not in ids
    assert w.diagnosis.plan[0] == "training-loop-architecture"


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_before_the_forward_pass_is_healthy(set_to_none):
    w, start, end = _train_zero_grad("before", set_to_none)
    assert not torch.equal(start, end)
    obs = {o.name: o for o in w.observations()}
    assert obs["step_grads"].value == "present"
    assert "MS-ZERO-02" not in {f["id"] for f in w.diagnosis.findings}


def test_step_grads_is_judged_only_after_enough_steps_and_tolerates_one_early_empty_step():
    few = int(threshold("MT-STEP-NOGRAD-MIN"))
    assert loop_lint.classify_step_grads(few - 1, few - 1) is None
    assert loop_lint.classify_step_grads(few, few) == "none"
    assert loop_lint.classify_step_grads(50, 1) == "present"  # one step before the first backward
    assert loop_lint.classify_step_grads(50, 0, all_grads_zero=True) == "zero"


def test_a_closure_that_computes_the_gradients_inside_the_step_is_healthy():
    # LBFGS: the loop zeroes nothing itself; the closure zeroes, runs forward and backward inside step()
    model = tiny()
    opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=2)
    x, y = _batch()
    with watch(model, opt, every=10) as w:
        for _ in range(20):
            def closure() -> torch.Tensor:
                opt.zero_grad(set_to_none=True)
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                return loss
            loss = opt.step(closure)
            opt.zero_grad(set_to_none=True)
            w.step(loss)
    obs = {o.name: o for o in w.observations()}
    assert obs["step_grads"].value == "present"
    assert "MS-ZERO-02" not in {f["id"] for f in w.diagnosis.findings}
