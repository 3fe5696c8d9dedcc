"""The overfitting form of the symptom question, asked once the symptom and the loss curve are declined (issue 17)."""

from __future__ import annotations

from expert import Consultation
from tests.reading import asked_until, no_symptom_no_curve


def test_asked_when_neither_the_symptom_nor_the_loss_curve_is_given():
    c = no_symptom_no_curve()
    assert asked_until(c, "Q-OVERFIT-ANY")[-1] == "Q-OVERFIT-ANY"


def test_a_rising_validation_loss_leads_to_overfitting():
    c = no_symptom_no_curve()
    asked_until(c, "Q-OVERFIT-ANY")
    c.answer("Q-OVERFIT-ANY", True)
    d = c.run()
    assert d.plan[:1] == ["overfitting-prevention"]


def test_a_healthy_validation_curve_does_not():
    c = no_symptom_no_curve()
    asked_until(c, "Q-OVERFIT-ANY")
    c.answer("Q-OVERFIT-ANY", False)
    c.conclude("quit")
    d = c.run()
    assert "overfitting-prevention" not in d.plan[:1]


def test_not_asked_once_the_symptom_or_the_curve_is_known():
    for obs in ({"symptom": "unstable"}, {"loss_behavior": "flat_from_start"}, {"symptom": "slow_training"}):
        c = Consultation()
        c.observe(**obs)
        assert "Q-OVERFIT-ANY" not in asked_until(c, "Q-OVERFIT-ANY")


def test_not_asked_before_the_loss_curve_is_declined():
    c = Consultation()
    c.decline("Q-SYMPTOM")
    assert c.run().question.id == "Q-LOSS-CURVE"
