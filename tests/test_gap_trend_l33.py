"""How the train/validation gap moves: asked where it separates the causes, and a widening gap routes (issue 17)."""

from __future__ import annotations

from expert import Consultation


def _asked(c: Consultation, until: str, limit: int = 14) -> list[str]:
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


def test_asked_of_an_overfitting_run_when_augmentation_competes_with_regularization():
    # no augmentation on a small set leads to augmentation; a widening gap would lead to early stopping instead
    c = Consultation()
    c.observe(symptom="overfitting", augmentation_strength="none", dataset_size=500)
    assert _asked(c, "Q-GAP-TREND")[-1] == "Q-GAP-TREND"


def test_not_asked_once_the_overfitting_lead_is_settled_or_the_gap_measured():
    for obs in ({"symptom": "overfitting", "val_loss_rising": True},
                {"symptom": "overfitting", "train_metric": 0.99, "val_metric": 0.7, "metric_kind": "accuracy"},
                {"symptom": "slow_training"}, {"symptom": "unstable"}):
        c = Consultation()
        c.observe(**obs)
        assert "Q-GAP-TREND" not in _asked(c, "Q-GAP-TREND"), obs


def test_a_stated_widening_gap_leads_to_overfitting_prevention():
    c = Consultation()
    c.observe(gap_trend="widening")
    c.conclude("quit")
    d = c.run()
    assert d.plan[:1] == ["overfitting-prevention"]


def test_a_stable_gap_does_not():
    for trend in ("stable", "narrowing"):
        c = Consultation()
        c.observe(gap_trend=trend)
        c.conclude("quit")
        assert "overfitting-prevention" not in c.run().plan[:1], trend


def test_a_severe_gap_that_widens_gives_one_entry_the_severe_one():
    c = Consultation()
    c.observe(gap_trend="widening", train_metric=1.0, val_metric=0.65, metric_kind="accuracy")
    d = c.run()
    ids = {f["id"] for f in d.findings}
    assert "MS-GAP-01" in ids
    assert d.plan[:1] == ["overfitting-prevention"]
    assert "MS-GAP-02" not in ids
