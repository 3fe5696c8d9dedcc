"""The widening-gap form of the overfitting question, asked once the validation-loss question is declined (issue 17)."""

from __future__ import annotations

from expert import Consultation
from tests.reading import asked_until, no_symptom_no_curve


def _decline_rest(c: Consultation) -> None:
    while (q := c.run().question) is not None:
        c.decline(q.id)


def test_asked_once_the_rising_validation_loss_is_declined():
    asked = asked_until(no_symptom_no_curve(), "Q-GAP-ANY")
    assert asked[-1] == "Q-GAP-ANY"
    assert asked.index("Q-OVERFIT-ANY") < asked.index("Q-GAP-ANY")


def test_a_widening_gap_leads_to_overfitting_tentatively():
    c = no_symptom_no_curve()
    asked_until(c, "Q-GAP-ANY")
    c.answer("Q-GAP-ANY", "widening")
    _decline_rest(c)
    d = c.run()
    assert d.plan[:1] == ["overfitting-prevention"]
    assert {f["id"] for f in d.findings} == {"DF-TOPIC-GAP"}
    assert d.tentative


def test_a_steady_or_narrowing_gap_does_not():
    for answer in ("stable", "narrowing"):
        c = no_symptom_no_curve()
        asked_until(c, "Q-GAP-ANY")
        c.answer("Q-GAP-ANY", answer)
        _decline_rest(c)
        d = c.run()
        assert "overfitting-prevention" not in d.plan[:1]
        assert "DF-TOPIC-GAP" not in {f["id"] for f in d.findings}


def test_not_asked_once_the_symptom_or_the_curve_is_known_or_validation_is_said_to_rise():
    for obs in ({"symptom": "unstable"}, {"loss_behavior": "flat_from_start"}, {"symptom": "overfitting"}):
        c = Consultation()
        c.observe(**obs)
        assert "Q-GAP-ANY" not in asked_until(c, "Q-GAP-ANY")
    c = no_symptom_no_curve()
    asked_until(c, "Q-OVERFIT-ANY")
    c.answer("Q-OVERFIT-ANY", True)
    assert "Q-GAP-ANY" not in asked_until(c, "Q-GAP-ANY")


def test_a_measured_widening_gap_on_a_probed_run_is_no_lead():
    c = Consultation()
    c.observe("probe:generalization", gap_trend="widening")
    d = c.run()
    assert "DF-TOPIC-GAP" not in {f["id"] for f in d.findings}
