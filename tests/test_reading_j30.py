"""Leftovers of issues 17 and 19 (session 30, j30): readings that said more than the words, or missed what they said.

Each group holds sentences that must read a value, and ordinary sentences beside them that must not. The sentences
are new (written for these tests, none taken from the corpus).
"""

from __future__ import annotations

import pytest

import expert  # noqa: F401 - the experta shim comes first
from tests.reading import assert_reads, declined, finding_ids


def _lead(text: str) -> tuple[list[str], set[str], set[str]]:
    """The plan, the findings and the questions asked of a consultation on ``text`` with every question declined."""
    d, asked = declined(text)
    return d.plan, {f["id"] for f in d.findings}, set(asked)


# 1. frozen weights held by the optimizer: only the frozen part still changing --------------------------------
@pytest.mark.parametrize("text, expected", [
    ("I froze the encoder and the head weights are still updated", {"optimizer_params": None}),
    ("we freeze the backbone, the classifier still changes every step as it should", {"optimizer_params": None}),
    ("I froze the encoder but its weights are still changing", {"optimizer_params": "frozen_held"}),
    ("I froze the head but it still changes after each step", {"optimizer_params": "frozen_held"}),
    ("the frozen weights still change", {"optimizer_params": "frozen_held"}),
])
def test_frozen_held_is_said_of_the_frozen_part(text: str, expected: dict) -> None:
    assert_reads(text, expected)


# 2. a calm gradient norm before a NaN: no NaN in the gradients, no vanishing -------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("grad norms were normal right up to the nan", {"grad_norm_trend": "normal", "nan_location": None}),
    ("small grad norm then NaN", {"grad_norm_trend": "normal", "nan_location": None}),
    ("the gradient norm was very low and steady, then a nan appeared", {"grad_norm_trend": "normal",
                                                                        "nan_location": None}),
    # the norm itself going NaN, a norm that shrinks to a level, a small norm with no NaN: as before
    ("the grad norm goes nan at step 300", {"nan_location": "gradients"}),
    ("the grad norm becomes very small and the loss is nan", {"grad_norm_trend": "vanishing"}),
    ("the grad norm is tiny", {"grad_norm_trend": "vanishing"}),
])
def test_a_calm_norm_before_a_nan_is_calm(text: str, expected: dict) -> None:
    assert_reads(text, expected)


# 3. a metric lower on several GPUs by about their count -----------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("1 GPU gets 89% accuracy, 3 GPUs get 29%", {"metric_world_ratio": True}),
    ("accuracy is 92% on one GPU but 23% on 4 GPUs", {"metric_world_ratio": True}),
    ("single gpu accuracy 0.8, with 2 gpus 0.41", {"metric_world_ratio": True}),
    # a small drop, a rise, another quantity than a metric: no division by the world size
    ("1 GPU gets 89% accuracy, 3 GPUs get 86%", {"metric_world_ratio": None}),
    ("accuracy is 40% on 1 GPU and 80% on 2 GPUs", {"metric_world_ratio": None}),
    ("on 1 GPU 90% GPU util, on 4 GPUs 22%", {"metric_world_ratio": None}),
])
def test_a_metric_divided_by_the_gpu_count_is_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_the_divided_metric_finds_the_denominator_suspect() -> None:
    _plan, findings, _asked = _lead("1 GPU gets 89% accuracy, 3 GPUs get 29% with DDP")
    assert "DD-SUS-METRIC" in findings


# 4. "the other loss": one term only beside another ------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("the cls loss goes down but the other loss plateaus", {"symptom": "multi_task"}),
    ("the auxiliary loss stays where it started", {"symptom": "multi_task"}),
    ("the other run's loss plateaus", {"symptom": "convergence"}),
    ("on the other machine the loss plateaus", {"symptom": "convergence"}),
    ("the other model's loss is stuck", {"symptom": "not_learning"}),
])
def test_the_other_loss_is_a_term_only_beside_another(text: str, expected: dict) -> None:
    assert_reads(text, expected)


# 5. the loss kept as a number answers whether graphs are kept -------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("I log loss.item()", {"kept_graphs": "none"}),
    ("I only accumulate loss.item()", {"kept_graphs": "none"}),
    ("memory grows every step; running_loss += loss.item()", {"kept_graphs": "none"}),
    # a kept tensor said beside it stands
    ("I log loss.item() and my eval loop runs without torch.no_grad()", {"kept_graphs": "eval_with_grad"}),
    ("memory keeps growing; total_loss += loss", {"kept_graphs": "running_loss_tensor"}),
    ("the loss is nan", {"kept_graphs": None}),
])
def test_a_loss_kept_as_a_number_is_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_memory_growth_with_the_loss_as_a_number_asks_no_kept_graphs_question() -> None:
    _plan, _findings, asked = _lead("GPU memory grows every iteration until OOM, I only accumulate loss.item()")
    assert "Q-KEPT-GRAPHS" not in asked
    _plan, _findings, asked = _lead("GPU memory grows every iteration until OOM")
    assert "Q-KEPT-GRAPHS" in asked


# 6. a validation loss far above training from the first epoch: computed differently, not memorised -----------
@pytest.mark.parametrize("text, expected", [
    ("train loss is tiny but validation loss is 100x larger already after the first epoch",
     {"val_loss_far_above_from_start": True}),
    ("my VAE: from epoch 1 the val loss is orders of magnitude higher than the train loss",
     {"val_loss_far_above_from_start": True}),
    ("val loss rises after 10 epochs while train loss falls", {"val_loss_far_above_from_start": None,
                                                               "symptom": "overfitting"}),
    ("val loss is 2x higher after the first epoch", {"val_loss_far_above_from_start": None}),
    # the factor said of the training loss itself; a factor of something else is nothing
    ("val loss is 100x the train loss already after the first epoch", {"val_loss_far_above_from_start": True}),
    ("after the first epoch the validation loss is 50 times that of training",
     {"val_loss_far_above_from_start": True}),
    ("val loss is 2x the train loss after the first epoch", {"val_loss_far_above_from_start": None}),
    ("my model is 10x the training set size from the start", {"val_loss_far_above_from_start": None}),
])
def test_a_val_loss_far_above_from_the_start_is_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_the_far_gap_leads_with_how_the_losses_are_computed() -> None:
    plan, findings, _asked = _lead("regression model: train loss 0.001, but validation loss is 1000x higher right "
                                   "after the first epoch")
    assert "ME-VALCALC-01" in findings
    assert plan[0] == "loss-functions-and-objectives"
    # ordinary overfitting stays overfitting
    assert "ME-VALCALC-01" not in finding_ids("val loss rises after 10 epochs while train loss keeps falling")


# 7. a first-step wait and a resume said in other words ---------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    # (whether the wait ends is not said: the question on it is asked, as for "looks frozen at the start")
    ("stuck at 0% for a while before the first step", {"symptom": "hang", "hang_onset": "first_step",
                                                       "loss_behavior": None}),
    ("the bar is stuck for some time before the first batch", {"symptom": "hang", "hang_onset": "first_step"}),
    ("the loss is stuck at 2.3 from the first step", {"loss_behavior": "flat_from_start"}),
    ("I'm continuing a stopped run and the loss spikes", {"recent_change": "resume"}),
    ("after continuing a stopped training run the loss is nan", {"recent_change": "resume"}),
    ("trainer.train(resume_from_checkpoint=True) and the loss jumps", {"recent_change": "resume"}),
    ("the loss continues to drop until I stop training", {"recent_change": None}),
])
def test_a_first_step_wait_and_a_resume_are_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_a_stopped_run_taken_up_that_waits_before_its_first_step_asks_whether_it_starts() -> None:
    _plan, _findings, asked = _lead("continuing a stopped training run, it is stuck at 0% for a while before the "
                                    "first step")
    assert "Q-RESUME-STALL" in asked
