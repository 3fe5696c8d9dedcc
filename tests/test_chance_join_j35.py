"""Accuracy against chance is derived from the validation accuracy and the class count, whichever source gave each."""

from __future__ import annotations

import pytest

import expert  # noqa: F401  (before experta: the shim)
from expert import Consultation
from knowledge import all_joins
from knowledge.derive import ROWS as DERIVED
from knowledge.derive import over_chance
from knowledge.schema import chain


def _derived(c: Consultation) -> dict:
    """``name -> (value, source)`` of the observations the engine derived in ``c``'s last run."""
    return {f["name"]: (f["value"], f["source"]) for step in c.trace for f in step["asserted"]
            if f["kind"] == "Obs"}


def test_derived_from_an_answer_and_a_text() -> None:
    c = Consultation()
    c.complain("the val accuracy is 10%")  # the text gives the accuracy, not the classes
    c.observe(num_classes=10)              # the class count comes from elsewhere (an answer, a probe, a log)
    c.run()
    assert _derived(c)["val_acc_over_chance"] == (1.0, "derived:DV-CHANCE-01")
    assert any(step["rule"] == "DV-LEARN-02" for step in c.trace)  # at chance: it never learned


def test_derived_from_declared_facts() -> None:
    c = Consultation()
    c.observe(val_metric=0.85, metric_kind="accuracy", num_classes=10)
    c.run()
    assert _derived(c)["val_acc_over_chance"] == (8.5, "derived:DV-CHANCE-01")
    assert not any(step["rule"] == "DV-LEARN-02" for step in c.trace)  # well above chance


@pytest.mark.parametrize("facts", [
    {"val_metric": 0.1, "metric_kind": "accuracy"},                      # no class count
    {"num_classes": 10, "metric_kind": "accuracy"},                      # no accuracy
    {"val_metric": 0.1, "num_classes": 10},                              # a figure of no known kind
    {"val_metric": 0.1, "num_classes": 10, "metric_kind": "loss"},       # a loss is no accuracy
])
def test_not_derived_without_both(facts: dict) -> None:
    c = Consultation()
    c.observe(**facts)
    c.run()
    assert "val_acc_over_chance" not in _derived(c)


def test_a_stated_ratio_is_kept() -> None:
    c = Consultation()
    c.observe(val_metric=0.1, metric_kind="accuracy", num_classes=10, val_acc_over_chance=3.0)
    c.run()
    assert "val_acc_over_chance" not in _derived(c)


def test_chain_derives_as_the_engine() -> None:
    run = chain(DERIVED, {"val_metric": 0.2, "num_classes": 5, "metric_kind": "accuracy"}, (), all_joins())
    assert run.values["val_acc_over_chance"] == over_chance(0.2, 5) == 1.0
    assert "DV-LEARN-02" in {r.id for r in run.fired}
    run = chain(DERIVED, {"val_metric": 0.2, "metric_kind": "accuracy"}, (), all_joins())
    assert "val_acc_over_chance" not in run.values
