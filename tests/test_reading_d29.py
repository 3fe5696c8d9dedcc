"""Readings of d29: gaps against a reference, everyday hangs and resumes, shared predicates, shapes in words,
memory held on across folds, listed settings before a question, machines and cards counted."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs


@pytest.mark.parametrize("text", [
    "val accuracy is 2% below the baseline",
    "val accuracy 3 points behind the paper",
    "val accuracy is 2% short of the paper",
])
def test_a_figure_placed_against_a_reference_is_a_gap_not_the_value(text: str) -> None:
    assert obs(text).get("val_metric") is None


def test_a_plain_value_is_still_the_value() -> None:
    assert_reads("val accuracy is 60%", {"val_metric": 0.6})


@pytest.mark.parametrize("text", [
    "she hangs her coat beside the program booklet",
    "I resumed reading my book",
    "we resumed the meeting after lunch",
    "I resumed my job after the holidays",
    "the second server in the rack is down",
    "we bought 3 servers for the office",
])
def test_everyday_text_reads_nothing(text: str) -> None:
    assert obs(text) == {}


def test_a_run_that_hangs_is_still_a_hang() -> None:
    assert_reads("the renderer hangs when the job starts", {"symptom": "hang"})
    assert_reads("I think it hangs at the first batch", {"symptom": "hang"})
    assert_reads("training does not move past the first batch", {"symptom": "hang"})


def test_subjects_joined_by_and_share_the_nan() -> None:
    assert_reads("both loss_cls and loss_box_reg become nan",
                 {"box_loss_nonfinite": None, "loss_behavior": "nan_or_inf"})
    assert_reads("loss_box_reg turns into nan", {"box_loss_nonfinite": True})
    assert_reads("loss_cls 0.5 and loss_box_reg nan", {"box_loss_nonfinite": True})


def test_a_shape_error_said_in_words() -> None:
    assert_reads("the shapes don't match when multiplying in the linear layer",
                 {"boundary_topic": "shape_mismatch", "symptom": "crash"})
    assert_reads("prediction and target shapes don't match in the loss", {"boundary_topic": None})


def test_memory_held_on_across_folds_is_growth_beside_its_oom() -> None:
    assert_reads("fold 3 runs out of GPU memory, memory is never released between folds",
                 {"symptom": "memory_growth", "boundary_topic": "memory_growth"})
    assert_reads("GPU memory creeps up every iteration until it OOMs around step 2000",
                 {"symptom": "memory_growth"})


def test_the_tracker_step_axis_restarting_after_a_resume() -> None:
    assert_reads("continued the training from epoch 20 but the logger thinks it's epoch 0 again",
                 {"symptom": "experiment_tracking", "recent_change": "resume"})
    assert_reads("after resuming the loss goes back to its value at step 0", {"symptom": None})


def test_settings_listed_before_a_question_are_the_runs() -> None:
    assert_reads("lr 3e-4, bs 32, adamw, should I warm up?",
                 {"learning_rate": 0.0003, "batch_size": 32, "optimizer": "adamw", "question_topic": "schedule"})
    assert_reads("should I use adamw?", {"optimizer": None, "considering": "adamw"})


def test_machines_and_cards_counted() -> None:
    assert_reads("training on two servers does not move past the first batch", {"multi_gpu": True})
    assert_reads("scaled up to 8xA100, kept all hyperparameters", {"dist_world_size": 8})


def test_the_flatten_op_is_no_plateau() -> None:
    assert_reads("first forward pass dies at the linear layer after flatten", {"loss_behavior": None})
    assert_reads("the loss starts to flatten after epoch 3", {"symptom": "convergence"})


def test_a_hang_blocked_at_the_epoch_boundary() -> None:
    assert_reads("hang at epoch boundary, the main process is blocked on a queue", {"symptom": "hang"})
    assert_reads("it hangs for 30 seconds at the start of every epoch then runs fast",
                 {"epoch_start_stall": True})


def test_the_step_a_then_clause_follows() -> None:
    assert_reads("fp16 run: everything fine until step 8000, then nan everywhere", {"nan_step": 8000})
