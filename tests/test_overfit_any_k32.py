"""The overfitting form of the symptom question, asked once the symptom and the loss curve are declined (issue 17)."""

from __future__ import annotations

from expert import Consultation


def _asked(c: Consultation, until: str, limit: int = 12) -> list[str]:
    """Decline every question until ``until`` is pending (or asking stops); the ids asked, in order."""
    out: list[str] = []
    for _ in range(limit):
        q = c.run().question
        if q is None:
            break
        out.append(q.id)
        if q.id == until:
            break
        c.decline(q.id)
    return out


def _no_symptom_no_curve() -> Consultation:
    c = Consultation()
    c.decline("Q-SYMPTOM")
    c.decline("Q-LOSS-CURVE")
    return c


def test_asked_when_neither_the_symptom_nor_the_loss_curve_is_given():
    c = _no_symptom_no_curve()
    assert _asked(c, "Q-OVERFIT-ANY")[-1] == "Q-OVERFIT-ANY"


def test_a_rising_validation_loss_leads_to_overfitting():
    c = _no_symptom_no_curve()
    _asked(c, "Q-OVERFIT-ANY")
    c.answer("Q-OVERFIT-ANY", True)
    d = c.run()
    assert d.plan[:1] == ["overfitting-prevention"]


def test_a_healthy_validation_curve_does_not():
    c = _no_symptom_no_curve()
    _asked(c, "Q-OVERFIT-ANY")
    c.answer("Q-OVERFIT-ANY", False)
    c.conclude("quit")
    d = c.run()
    assert "overfitting-prevention" not in d.plan[:1]


def test_not_asked_once_the_symptom_or_the_curve_is_known():
    for obs in ({"symptom": "unstable"}, {"loss_behavior": "flat_from_start"}, {"symptom": "slow_training"}):
        c = Consultation()
        c.observe(**obs)
        assert "Q-OVERFIT-ANY" not in _asked(c, "Q-OVERFIT-ANY")


def test_not_asked_before_the_loss_curve_is_declined():
    c = Consultation()
    c.decline("Q-SYMPTOM")
    assert c.run().question.id == "Q-LOSS-CURVE"
