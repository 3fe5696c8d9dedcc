"""Weight decay far above its optimizer family's usual range, the LR unknown: the decay cause, not the schedule."""

from __future__ import annotations

import pytest

from expert import Consultation
from knowledge.measurements import threshold
from tests.reading import assert_reads, declined

_CAUSES = {"MS-WD-01", "MS-WD-02", "MS-WD-03", "MS-WD-04"}


def _decide(**facts: object) -> tuple[set[str], str | None]:
    """The findings and the primary route of a consultation on ``facts`` alone."""
    c = Consultation()
    c.observe(**facts)
    d = c.run()
    primary = next((r["skill"] for r in d.routes if r["role"] == "primary"), None)
    return {f["id"] for f in d.findings}, primary


def _text(text: str) -> tuple[set[str], str | None]:
    """The findings and the primary route of a complaint with every question declined."""
    d, _ = declined(text)
    primary = next((r["skill"] for r in d.routes if r["role"] == "primary"), None)
    return {f["id"] for f in d.findings}, primary


def test_thresholds_sit_above_the_usual_ranges() -> None:
    # ten times SGD's usual top (5e-4); AdamW's bound above CLIP's 0.2 and DINO's 0.4, under 1.0
    assert threshold("MT-WD-FAR-SGD") == pytest.approx(5e-3)
    assert 0.4 < threshold("MT-WD-FAR-DECOUPLED") < 1.0


@pytest.mark.parametrize(("facts", "rid"), [
    ({"symptom": "not_learning", "weight_decay": 1.0}, "MS-WD-04"),
    ({"symptom": "not_learning", "optimizer": "adamw", "weight_decay": 0.5}, "MS-WD-03"),
    ({"symptom": "not_learning", "optimizer": "adam", "weight_decay": 0.8}, "MS-WD-03"),
    ({"symptom": "not_learning", "optimizer": "sgd_momentum", "weight_decay": 0.05}, "MS-WD-02"),
    ({"symptom": "not_learning", "optimizer": "sgd", "weight_decay": 5e-3}, "MS-WD-02"),
])
def test_far_decay_is_the_cause_and_leads(facts: dict, rid: str) -> None:
    found, primary = _decide(**facts)
    assert found & _CAUSES == {rid}
    assert primary == "optimization-algorithms"


@pytest.mark.parametrize("facts", [
    {"symptom": "not_learning", "optimizer": "adamw", "weight_decay": 0.01},
    {"symptom": "not_learning", "optimizer": "adamw", "weight_decay": 0.05},
    {"symptom": "not_learning", "optimizer": "adamw", "weight_decay": 0.1},
    {"symptom": "not_learning", "optimizer": "sgd_momentum", "weight_decay": 5e-4},
    {"symptom": "not_learning", "weight_decay": 0.1},
    {"symptom": "not_learning", "weight_decay": 0.3},          # SGD-huge, AdamW-plausible: the lenient bound
    {"symptom": "not_learning", "optimizer": "lion", "weight_decay": 1.0},   # Lion's recipes use 0.3-1.0
    # the LR known: the shrink per step decides (AdamW lr 1e-4 wd 1.0 shrinks 1e-4 a step, a usual rate)
    {"symptom": "not_learning", "optimizer": "adamw", "learning_rate": 1e-4, "weight_decay": 1.0,
     "decay_per_step": 1e-4},
])
def test_usual_or_explained_decay_is_silent(facts: dict) -> None:
    found, _ = _decide(**facts)
    assert not found & _CAUSES


@pytest.mark.parametrize("text", [
    "my model is not learning at all, weight decay 1.0",
    "loss is not going down; AdamW, wd=0.5",
    "training with SGD momentum 0.9 and weight decay 0.05, the loss doesn't move",
])
def test_text_routes_to_the_decay(text: str) -> None:
    found, primary = _text(text)
    assert found & {"MS-WD-02", "MS-WD-03", "MS-WD-04"}
    assert primary == "optimization-algorithms"


@pytest.mark.parametrize("text", [
    "not learning, adamw weight decay 0.05",
    "not learning, AdamW with wd 0.01",
    "not learning, SGD momentum weight decay 5e-4",
    "not learning, I did not set weight decay to 1.0",
    "not learning, should I use weight decay 1.0?",
    "not learning; my colleague uses weight decay 1.0",
])
def test_text_silent_on_usual_negated_or_asked(text: str) -> None:
    found, _ = _text(text)
    assert not found & {"MS-WD-02", "MS-WD-03", "MS-WD-04"}


def test_negated_decay_is_not_read() -> None:
    assert_reads("not learning, I did not set weight decay to 1.0", {"weight_decay": None})
    assert_reads("the model does not learn with weight decay 1.0", {"weight_decay": 1.0})
    assert_reads("no warmup, weight decay 0.01", {"weight_decay": 0.01})


def test_a_decay_setting_alone_is_no_finding() -> None:
    # no symptom, or a run that learns: the configuration by itself is not evidence of the cause
    for facts in ({"optimizer": "sgd", "weight_decay": 0.01}, {"weight_decay": 1.0},
                  {"symptom": "overfitting", "optimizer": "adamw", "weight_decay": 0.5}):
        found, _ = _decide(**facts)
        assert not found & _CAUSES, facts
