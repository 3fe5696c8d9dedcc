"""Faults found in runs not written for them (issue 9): each new measurement on a tiny run that has the fault,
and on a healthy twin that must stay quiet."""

from __future__ import annotations

import pytest
import torch

from expert.consultation import Consultation
from tests.zoo.generated import Config, Variant, examine_variant


def _findings(c: Consultation) -> dict[str, str]:
    return {f["id"]: f["severity"] for f in c.diagnosis.findings}


def _warned(c: Consultation) -> set[str]:
    return {i for i, s in _findings(c).items() if s in ("warning", "critical")}


# ------------------------------------------------------------------ LR too low, examined at chance


@pytest.mark.parametrize("seed", [2, 3])
def test_examine_names_an_sgd_lr_far_too_low_not_the_labels(seed):
    # a CNN trained 60 steps with SGD at 1e-4 of a working LR: still at chance, updates ~1e-5..1e-4 of the weights
    torch.set_num_threads(1)
    c = examine_variant(Variant("lr_too_low", Config(arch="cnn", opt="sgd_momentum", seed=seed, lr_mult=1e-4)))
    obs = c.observations
    assert obs["val_acc_over_chance"].value < 1.25
    ids = _warned(c)
    assert ids & {"MS-UPD-02", "MS-UPD-03"}, ids
    assert "MS-CHANCE-01" not in ids  # the labels are fine: the steps were too small to learn
    assert "learning-rate-scheduling" in [r["skill"] for r in c.diagnosis.routes if r["role"] == "primary"]


def test_examine_of_the_same_cnn_at_a_working_lr_is_quiet():
    torch.set_num_threads(1)
    c = examine_variant(Variant("healthy", Config(arch="cnn", opt="sgd_momentum", seed=2)))
    assert not _warned(c)


def test_small_updates_in_a_model_that_learned_are_not_an_lr_fault():
    c = Consultation()
    c.observe("probe:update_ratio", update_ratio=2e-5, val_acc_over_chance=3.0)
    c.run()
    assert not {"MS-UPD-02", "MS-UPD-03", "MS-CHANCE-01"} & set(_findings(c))


# ------------------------------------------------------------------ weight decay that outweighs the gradient


def test_decay_rate_reads_the_shrink_per_step_from_the_optimizer():
    from probes.weight_norm import decay_rate

    w = [torch.nn.Parameter(torch.ones(3, 3))]
    assert decay_rate(torch.optim.AdamW(w, lr=1e-3, weight_decay=0.1)) == pytest.approx(1e-4)
    # SGD's coupled decay goes through momentum: 1 / (1 - 0.9) times larger
    assert decay_rate(torch.optim.SGD(w, lr=0.1, momentum=0.9, weight_decay=5e-4)) == pytest.approx(5e-4)
    assert decay_rate(torch.optim.SGD(w, lr=0.1)) is None  # no decay
    assert decay_rate(torch.optim.Adam(w, lr=1e-3, weight_decay=0.1)) is None  # L2 inside an adaptive step


def _watch(**change) -> Consultation:
    from tests.zoo.generated import watch_variant

    torch.set_num_threads(1)
    return watch_variant(Variant("run", Config(**change)))


def test_an_lstm_held_small_by_decay_is_named_although_its_weights_never_collapse():
    # AdamW with lr * wd = 0.1 a step: the LSTM's weights settle well above a tenth of their start (the collapse
    # bound), held there by a gradient that only fights the decay
    c = _watch(arch="lstm", opt="adamw", seed=2, wd_strength=0.1, steps=100)
    obs = c.observations
    assert obs["weight_norm_ratio"].value < 0.5
    assert obs["decay_share"].value >= 0.5
    ids = _warned(c)
    assert ids & {"MS-WNORM-01", "MS-WNORM-02"}, ids
    assert "MS-UPD-01" not in ids  # the update ratio is the decay's, not an LR far too high
    assert "optimization-algorithms" in [r["skill"] for r in c.diagnosis.routes if r["role"] == "primary"]


# a converged SGD transformer balances its decay against a small gradient (a share near or above one): the
# weights never shrink and the loss falls, which is what keeps it quiet
@pytest.mark.parametrize("change", [{"arch": "lstm", "opt": "adamw", "steps": 100},
                                    {"arch": "lstm", "opt": "sgd_momentum", "dropout": 0.5, "steps": 100},
                                    {"arch": "transformer", "opt": "sgd_momentum", "steps": 100},
                                    {"arch": "mlp", "opt": "adamw", "finetune": True, "steps": 100}])
def test_ordinary_weight_decay_does_not_hold_the_weights_down(change):
    c = _watch(seed=2, **change)
    assert c.observations["decay_share"].value >= 0  # measured
    assert c.observations["weight_norm_ratio"].value >= 0.5
    assert not _warned(c)


def test_a_large_decay_share_alone_is_no_fault():
    c = Consultation()
    c.observe("probe:weight_norm", weight_norm_ratio=1.05, decay_share=3.0, loss_behavior="decreasing_normally")
    c.run()
    assert not {"MS-WNORM-01", "MS-WNORM-02"} & set(_findings(c))
    c.observe("probe:weight_norm", weight_norm_ratio=0.3)  # shrunk, but the loss fell normally: a trained net
    c.run()
    assert "MS-WNORM-02" not in _findings(c)


# ------------------------------------------------------------------ labels that do not follow the inputs


@pytest.mark.parametrize("arch, seed", [("cnn", 2), ("cnn", 3), ("mlp", 2)])
def test_watch_names_labels_shuffled_apart_from_their_inputs(arch, seed):
    c = _watch(arch=arch, opt="sgd_momentum", seed=seed, shuffle_labels=True)
    ids = _warned(c)
    assert ids & {"MS-CHANCE-01", "MS-CHANCE-02"}, ids
    assert "training-loop-architecture" in [r["skill"] for r in c.diagnosis.routes if r["role"] == "primary"]


def test_a_network_that_fits_nothing_is_not_a_label_fault_while_its_units_are_dead():
    # dead units and chance-level accuracy everywhere (no gap): the dead units explain it, not the labels
    c = Consultation()
    c.observe("probe:grad_flow", val_acc_over_chance=1.0, generalization_gap=0.02, update_ratio=0.01,
              dead_relu_fraction=0.9)
    c.run()
    ids = set(_findings(c))
    assert "MS-DEAD-01" in ids and not {"MS-CHANCE-01", "MS-CHANCE-02"} & ids
