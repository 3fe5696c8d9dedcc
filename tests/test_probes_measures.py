"""Watch-level checks of the issue-9 measurements: loss multiplier, weight norms, validation loss, no plateau alarm."""

from __future__ import annotations

import logging

import torch

from tests.zoo import fit_batch
from trainopt import watch

logging.getLogger("trainopt.watch").setLevel(logging.ERROR)


def _findings(c) -> dict[str, str]:
    return {f["id"]: f["severity"] for f in c.diagnosis.findings if f["severity"] != "info"}


def test_unscaled_accumulation_is_read_from_the_output_gradient_and_scaled_is_clean():
    from tests.zoo.generated import Config, build, train

    for scaled in (False, True):
        run = build(Config(arch="mlp", opt="sgd_momentum", accum=4, accum_scaled=scaled, steps=30))
        with watch(run.model, run.optimizer, every=10, loss_fn=run.loss_fn) as w:
            train(run, 30, w)
        o = w.consultation.observations
        assert o["grad_accum_steps"].value == 4 and o["loss_scaled_for_accum"].value is scaled
        assert ("AP-12" in _findings(w.consultation)) is not scaled


def test_weight_decay_collapse_is_named_and_not_read_as_vanishing_gradients():
    from tests.zoo.generated import FAULTS, Variant, _fix_habits, watch_variant
    from tests.zoo.generated import Config as Cfg

    f = next(f for f in FAULTS if f.name == "weight_decay_collapse")
    from dataclasses import replace

    c = watch_variant(Variant("wd", _fix_habits(replace(Cfg(arch="transformer", opt="adamw"), **f.change)), f))
    bad = _findings(c)
    assert "MS-WNORM-01" in bad and "MS-GRAD-02" not in bad and "DX-FIX-06" not in bad, bad
    assert c.observations["weight_norm_ratio"].value < 0.1


def test_validation_loss_rising_against_the_watchs_own_training_loss_is_overfitting():
    torch.manual_seed(0)
    x, y = torch.randn(16, 20), torch.randint(0, 4, (16,))  # tiny set: memorised
    vx, vy = torch.randn(256, 20), torch.randint(0, 4, (256,))  # unrelated validation data
    m = torch.nn.Sequential(torch.nn.Linear(20, 256), torch.nn.ReLU(), torch.nn.Linear(256, 4))
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)
    with watch(m, opt, every=20, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        for step in range(200):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            metrics = {}
            if step % 10 == 9:
                with torch.no_grad():
                    metrics["val_loss"] = float(torch.nn.functional.cross_entropy(m(vx), vy))
            w.step(loss, **metrics)
    o = w.consultation.observations
    assert o["val_loss_rising"].value is True, o["val_loss_rising"].evidence
    assert "MS-OVF-01" in _findings(w.consultation)
    assert any(r["skill"] == "overfitting-prevention" and r["role"] == "primary" for r in w.diagnosis.routes)


def test_a_saturated_network_that_still_learns_is_seen_without_a_trip():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 4))
    with torch.no_grad():
        m[0].weight.mul_(30.0)  # pre-activations far outside tanh's linear range
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
    with watch(m, opt, every=10, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        fit_batch(m, opt, x, y, 40, w)
    o = w.consultation.observations
    assert o["saturation_fraction"].value > 0.5 and o["saturation_fraction"].evidence["worst_layer"] == "1"
    assert o["saturation_fraction"].step is not None
    assert "MS-SAT-01" in _findings(w.consultation)


def _sgd_net(lr: float) -> tuple[torch.nn.Module, torch.optim.Optimizer, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    return m, torch.optim.SGD(m.parameters(), lr=lr, momentum=0.9), torch.randn(32, 16), torch.randint(0, 4, (32,))


def test_updates_that_shrink_as_the_loss_converges_are_not_an_lr_far_too_low():
    """SGD memorising a batch: loss to ~1e-6, updates fall under MT-UPD-LOW at the same LR. Healthy, no warning."""
    m, opt, x, y = _sgd_net(0.5)
    with watch(m, opt, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        fit_batch(m, opt, x, y, 3000, w)
    upd = w.consultation.observations["update_ratio"]
    assert upd.evidence["latest"] < 1e-5 <= upd.value  # measured low at the end; the in-band phase speaks
    assert "MS-UPD-02" not in _findings(w.consultation) and not w.trips


def test_an_lr_far_too_low_from_the_start_is_still_named():
    """The counter-case: the same net at an LR 1e5 times lower is low from its first window: MS-UPD-02."""
    from probes.update_ratio import Phases

    m, opt, x, y = _sgd_net(5e-6)
    with watch(m, opt, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        fit_batch(m, opt, x, y, 200, w)
    assert "MS-UPD-02" in _findings(w.consultation)
    # the phase rule on its own: in band then low -> the in-band phase; low then in band -> the low one
    names, mats = ["w"], [True]
    ph = Phases()
    ph.update([1e-3], names, mats, 0.1, 50)
    ph.update([1e-7], names, mats, 0.1, 100)
    assert ph.summary()["value"] == 1e-3 and ph.summary()["latest"] == 1e-7
    ph = Phases()
    ph.update([1e-7], names, mats, 0.1, 50)
    ph.update([1e-3], names, mats, 0.1, 100)
    assert ph.summary()["value"] == 1e-7


def test_a_resumed_run_flat_at_its_floor_is_fitted_and_one_flat_at_chance_is_stuck():
    """A watch attached to a model that already fits its data sees a flat loss near zero: no 'flat from start'."""
    import math

    from probes.loss_curve import classify

    rng = torch.Generator().manual_seed(0)
    noise = 1e-4 * torch.rand(200, generator=rng)
    at_floor = (2e-4 + noise).tolist()
    at_chance = (math.log(10) + 100 * noise).tolist()
    assert classify(at_floor, chance=math.log(10))["label"] == "decreasing_normally"
    assert classify(at_floor)["label"] == "flat_from_start"  # without the chance level nothing says it is low
    assert classify(at_chance, chance=math.log(10))["label"] == "flat_from_start"

    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    opt = torch.optim.AdamW(m.parameters(), 1e-2)
    x, y = torch.randn(64, 16), torch.randint(0, 10, (64,))
    fit_batch(m, opt, x, y, 400)  # the "checkpoint": the batch is fitted
    with watch(m, opt, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        fit_batch(m, opt, x, y, 100, w)
    assert w.consultation.observations["loss_behavior"].value == "decreasing_normally"
    assert not w.trips and not _findings(w.consultation)
