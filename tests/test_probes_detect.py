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
