"""Q-VAL-ABOVE-TRAIN: whether validation scores better than training is asked where the training pass is known to be
the harder one and the complaint is about the figures or a run that seems not to learn (issue 17, a35); never
elsewhere, and its answer settles the measurement cause (DT-AUG-02) either way."""

from __future__ import annotations

import pytest

from expert import Consultation
from tests.reading import asked_until

Q = "Q-VAL-ABOVE-TRAIN"


def _asked(**facts: object) -> list[str]:
    c = Consultation()
    c.observe(**facts)
    c.run()
    return asked_until(c, Q, limit=16)


@pytest.mark.parametrize("facts", [
    {"symptom": "metrics_wrong", "augmentation_strength": "strong"},
    {"symptom": "metrics_wrong", "regularization": "dropout"},
    {"symptom": "data_problem", "heavy_augmentation": True},
    {"symptom": "experiment_tracking", "label_smoothing": True},
])
def test_asked_where_the_training_pass_is_the_harder_one(facts: dict) -> None:
    assert Q in _asked(**facts)


@pytest.mark.parametrize("facts", [
    {"symptom": "metrics_wrong"},                                            # nothing makes training harder
    {"symptom": "metrics_wrong", "augmentation_strength": "light"},
    {"symptom": "overfitting", "augmentation_strength": "strong"},           # the gap question's ground
    {"symptom": "unstable", "augmentation_strength": "strong", "loss_behavior": "nan_or_inf"},
    {"symptom": "slow_training", "heavy_augmentation": True},
    {"symptom": "metrics_wrong", "augmentation_strength": "strong", "val_loss_rising": True},
    {"symptom": "metrics_wrong", "augmentation_strength": "strong", "train_metric": 0.9, "val_metric": 0.6,
     "metric_kind": "accuracy"},                                             # the figures already answer it
    {"symptom": "metrics_wrong", "augmentation_strength": "strong", "train_metric": 0.5, "val_metric": 0.9,
     "metric_kind": "accuracy"},
])
def test_not_asked_elsewhere(facts: dict) -> None:
    assert Q not in _asked(**facts)


def _plan(answer: bool) -> list[str]:
    c = Consultation()
    c.observe(symptom="metrics_wrong", augmentation_strength="strong")
    c.run()
    asked_until(c, Q, limit=16)
    assert c.question is not None and c.question.id == Q
    c.answer(Q, answer)
    return [f["id"] if isinstance(f, dict) else f.id for f in c.run().findings]


def test_yes_confirms_the_measurement_and_no_rules_it_out() -> None:
    assert "DT-AUG-02" in _plan(True)
    assert "DT-AUG-02" not in _plan(False)
