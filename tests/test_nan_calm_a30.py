"""A NaN whose gradient norm never grew (issue 17): gradients said calm beside a non-finite loss are read as a normal
gradient-norm trend, and that evidence moves the lead from clipping to the loss's arithmetic. The sentences are new."""

from __future__ import annotations

import pytest

import expert  # noqa: F401 - the experta shim comes first
from expert import Consultation
from tests.reading import assert_reads


@pytest.mark.parametrize("text, expected", [
    ("the gradients are not exploding but the loss goes to nan", {"grad_norm_trend": "normal"}),
    ("no gradient explosion, the grad norm is fine before the loss becomes inf", {"grad_norm_trend": "normal"}),
    ("grad norm looks steady the whole time and then the loss is nan", {"grad_norm_trend": "normal"}),
    # a norm that grows, a question about clipping, a calm norm with no NaN said: no reading of calm gradients
    ("grad norm is fine until it explodes and the loss is nan", {"grad_norm_trend": "exploding"}),
    ("the loss is nan, should I clip the gradient norm?", {"grad_norm_trend": None}),
    ("the grad norm is fine and the loss goes down", {"grad_norm_trend": None}),
])
def test_calm_gradients_beside_a_nan_are_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def _lead(**facts: object) -> tuple[list[str], list[str]]:
    c = Consultation()
    c.observe(**facts)
    d = c.run()
    while d.question is not None:
        c.decline(d.question.id)
        d = c.run()
    return d.plan, [f["id"] for f in d.findings]


def test_a_nan_with_a_calm_norm_leads_with_the_loss() -> None:
    plan, findings = _lead(symptom="unstable", loss_behavior="nan_or_inf", grad_norm_trend="normal")
    assert plan[0] == "loss-functions-and-objectives"
    assert "DF-SUS-NAN-CALM" in findings


@pytest.mark.parametrize("facts, first", [
    # without the calm norm the seeds' NaN entry stands; in fp16 the number format is the more specific suspect
    ({"symptom": "unstable", "loss_behavior": "nan_or_inf"}, "gradient-management"),
    ({"symptom": "unstable", "loss_behavior": "nan_or_inf", "grad_norm_trend": "normal", "mixed_precision": "fp16"},
     "batch-size-and-memory-tradeoffs"),
    ({"symptom": "unstable", "loss_behavior": "nan_or_inf", "grad_norm_trend": "exploding"}, "gradient-management"),
])
def test_the_calm_norm_suspect_stays_in_its_lane(facts: dict, first: str) -> None:
    plan, findings = _lead(**facts)
    assert plan[0] == first
    assert "DF-SUS-NAN-CALM" not in findings


@pytest.mark.parametrize("text, expected", [
    ("the eval loop reports loss=nan over all 500 batches", {"nan_phase": "evaluation"}),
    ("in the validation pass the loss is nan", {"nan_phase": "evaluation"}),
    # training's own NaN, or both loops', is not the evaluation's alone
    ("the training loop and the eval loop both give nan loss", {"nan_phase": None}),
    ("the validation loop loss is fine but the training loss is nan", {"nan_phase": None}),
])
def test_a_nan_loss_of_the_evaluation_loop_is_the_evaluations(text: str, expected: dict) -> None:
    assert_reads(text, expected)
