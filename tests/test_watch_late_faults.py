"""Late faults the watch reads against the run's own history: a layer that stops getting gradient, updates that
collapse. Real torch loops; healthy runs with a decaying LR stay quiet.
"""

from __future__ import annotations

import pytest
import torch

from trainopt import watch

STEPS, FAULT_AT = 600, 330


def _train(fault: str, sched: str = "none", opt_name: str = "adamw") -> object:
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.ReLU(),
                            torch.nn.Linear(64, 5))
    opt = torch.optim.AdamW(m.parameters(), 1e-3) if opt_name == "adamw" else \
        torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
    scheduler = {"cosine": lambda: torch.optim.lr_scheduler.CosineAnnealingLR(opt, STEPS),
                 "step": lambda: torch.optim.lr_scheduler.StepLR(opt, 150, gamma=0.1),
                 "none": lambda: None}[sched]()
    gen = torch.Generator().manual_seed(1)
    x_all = torch.randn(1024, 20, generator=gen)
    y_all = (x_all @ torch.randn(20, 5, generator=gen)).argmax(1)
    loss_fn = torch.nn.CrossEntropyLoss()
    with watch(m, opt, every=60, loss_fn=loss_fn, num_classes=5, scheduler=scheduler) as w:
        for step in range(STEPS):
            i = torch.randint(0, 1024, (64,), generator=gen)
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(m(x_all[i]), y_all[i])
            late = step >= FAULT_AT
            (loss * (2.0 ** -40 if late and fault == "loss_scale" else 1.0)).backward()
            if late and fault == "head_zeroed":  # the head stops learning, as if detached or frozen part way
                for p in m[-1].parameters():
                    p.grad.zero_()
            opt.step()
            if scheduler is not None:
                scheduler.step()
            w.step(loss)
    return w


def _found(w: object) -> set[str]:
    return {f["id"] for f in w.consultation.diagnosis.findings if f["severity"] in ("critical", "warning")}


def test_a_layer_whose_gradients_are_zeroed_part_way_trips_as_getting_no_gradient():
    w = _train("head_zeroed")
    assert not [t for t in w.trips if t["step"] <= FAULT_AT], w.trips
    assert any("DX-GRAD-01" in t["rows"] for t in w.trips), w.trips
    assert "DX-GRAD-01" in _found(w)
    obs = {o.name: o for o in w.observations()}
    assert set(obs["params_without_grad"].evidence["stopped_receiving"]) == {"4.weight", "4.bias"}


def test_healthy_runs_with_a_decaying_lr_stay_quiet():
    for sched, opt_name in (("cosine", "adamw"), ("step", "sgd"), ("none", "sgd")):
        w = _train("none", sched, opt_name)
        assert not w.trips, (sched, opt_name, w.trips)
        assert not _found(w) & {"DX-GRAD-01", "MS-UPD-02", "MS-UPD-00"}, (sched, opt_name)


def test_a_loss_multiplied_down_part_way_trips_as_a_loss_scale_not_the_lr():
    # the update ratio alone reads a late collapse as gradients shrinking near a minimum; the multiplier read at
    # the output names it
    w = _train("loss_scale")
    assert not [t for t in w.trips if t["step"] <= FAULT_AT], w.trips
    assert any("MS-LOSSMUL-01" in t["rows"] for t in w.trips), w.trips
    found = _found(w)
    assert "MS-LOSSMUL-01" in found and "MS-UPD-02" not in found
    assert w.observations()  # the multiplier stays readable after the run
    assert {o.name: o for o in w.observations()}["loss_multiplier"].value < 1e-9


def test_a_healthy_run_reads_a_loss_multiplier_of_one():
    w = _train("none")
    assert {o.name: o for o in w.observations()}["loss_multiplier"].value == pytest.approx(1.0, rel=0.05)
