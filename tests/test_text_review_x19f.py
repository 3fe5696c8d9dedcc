"""Readings a review found wrong in the text reader, each with the reading that must still hold beside it."""

from __future__ import annotations

import pytest

from knowledge.differential import ROWS
from knowledge.schema import Not
from tests.reading import finding_ids as _finding_ids
from tests.reading import obs as _read


# 1. a NaN in evaluation is the evaluation pass's own only where training stays finite
@pytest.mark.parametrize("text", [
    "train loss goes nan after 100 steps and then val loss is nan too",
    "after epoch 2 my val loss becomes nan, train loss also nan",
    "val loss nan, train loss inf",
    "the training loss explodes and the val loss becomes nan",
])
def test_nan_in_training_too_is_not_evaluation_only(text: str) -> None:
    read = _read(text)
    assert read.get("loss_behavior") in ("nan_or_inf", "diverging")
    assert "nan_phase" not in read


@pytest.mark.parametrize("text", [
    "train loss is fine but val loss is nan",
    "val loss goes to nan after a few epochs",
])
def test_nan_in_evaluation_alone_is_still_evaluation(text: str) -> None:
    assert _read(text).get("nan_phase") == "evaluation"


def test_the_evaluation_row_needs_a_training_loss_that_does_not_diverge() -> None:
    row = next(r for r in ROWS if getattr(r, "id", None) == "DF-NAN-EVAL")
    cond = row.when["loss_behavior"]
    assert isinstance(cond, Not) and not cond.test("diverging") and cond.test("nan_or_inf")


# 2. a hedge about a setting's value, or a setting cleared, is no suspicion
@pytest.mark.parametrize("text", [
    "loss is nan; probably the batch size is fine",
    "loss goes nan; I think the optimizer is adam with default settings",
    "I think the batch size is 32 and the loss explodes",
    "I guess my lr is 1e-3, the loss explodes",
    "the loss explodes, probably lr 3e-4",
    "the loss spikes; the lr is not the culprit",
    "the lr is not the problem, the loss still explodes",
    "the loss explodes. I doubt the batch size is the issue",
    "the loss explodes, we ruled out the lr",
])
def test_a_stated_or_cleared_setting_is_not_suspected(text: str) -> None:
    assert "self_diagnosis" not in _read(text)


@pytest.mark.parametrize(("text", "name"), [
    ("the loss explodes, maybe the batch size is too small", "batch size"),
    ("the loss explodes, I think the lr is the culprit", "learning rate"),
    ("loss goes nan, I suspect the optimizer", "optimizer"),
    ("the loss spikes, the lr might be the culprit", "learning rate"),
])
def test_a_suspected_setting_is_still_suspected(text: str, name: str) -> None:
    assert _read(text).get("self_diagnosis") == name


def test_a_cleared_batch_size_gives_no_misdiagnosis_warning() -> None:
    assert not {f for f in _finding_ids("loss is nan; probably the batch size is fine") if f.startswith("DX-MIS")}


# 3. per-step timings on more GPUs compare no run speeds (each GPU takes a batch of its own)
@pytest.mark.parametrize("text", [
    "a step takes 200ms on 1 GPU and 210ms on 4 GPUs with DDP",
    "per-step time is 0.5s on one GPU and 0.55s on 8 GPUs",
    "iteration time 1 s on a single gpu, 1.1 s on 2 gpus",
    "2 it/s on 1 GPU, 2.1 it/s on 4 GPUs",
])
def test_step_timings_give_no_speedup(text: str) -> None:
    read = _read(text)
    assert "multi_gpu_speedup" not in read
    assert read.get("multi_gpu") is True


def test_step_timings_on_more_gpus_raise_no_speed_finding() -> None:
    assert "DD-SPEED-01" not in _finding_ids("a step takes 200ms on 1 GPU and 210ms on 4 GPUs with DDP")


@pytest.mark.parametrize("text", [
    "an epoch takes 10 min on one GPU and 9.5 min on 4 GPUs",
    "800 samples/s on 1 GPU and 820 samples/s on 4 GPUs",
    "with the global batch fixed, 2 it/s on 1 GPU and 2.1 it/s on 4 GPUs",
])
def test_run_and_throughput_timings_still_give_a_speedup(text: str) -> None:
    assert _read(text).get("multi_gpu_speedup") == "none"


def test_linear_throughput_scaling_is_no_complaint() -> None:
    assert "multi_gpu_speedup" not in _read("800 samples/s on 1 GPU and 3000 samples/s on 4 GPUs")


# 4. only counts of work compared between ranks make them uneven
@pytest.mark.parametrize("text", [
    "ranks 0-3 take different time per step",
    "one gpu has more samples in its shard than the others but training works fine",
    "the data loader gives different numbers of batches per worker",
])
def test_other_differences_are_not_uneven_ranks(text: str) -> None:
    assert "rank_batch_counts" not in _read(text)


@pytest.mark.parametrize("text", [
    "one rank has fewer batches than the others and the job hangs",
    "rank 0 still has 3 more batches to go",
    "the ranks have a different number of batches",
    "one gpu has more samples in its shard than the others and it hangs at the end of the epoch",
])
def test_uneven_rank_counts_are_still_read(text: str) -> None:
    assert _read(text).get("rank_batch_counts") == "uneven"


# 6. a bare number in a contrast is read in either order of the two halves
@pytest.mark.parametrize("text", [
    "on 4 GPUs it diverges, on 1 it's fine",
    "on 1 GPU it's fine, on 4 it diverges",
])
def test_one_gpu_fine_in_either_order(text: str) -> None:
    assert _read(text).get("world_size_changed") is True


@pytest.mark.parametrize("text", [
    "with batch size 128 it explodes, but 32 is fine",
    "with batch size 128 it explodes, but with 32 it is fine",
])
def test_a_bare_batch_size_opening_the_healthy_clause(text: str) -> None:
    read = _read(text)
    assert read.get("recent_change") == "batch_size" and read.get("batch_size") == 128


@pytest.mark.parametrize("text", [
    "with batch size 128 it explodes, 2 runs are fine",
    "on 4 GPUs it diverges, 1 epoch is fine",
])
def test_a_counted_number_is_no_elided_setting(text: str) -> None:
    read = _read(text)
    assert "world_size_changed" not in read and read.get("recent_change") != "batch_size"


# 7. older odd readings
def test_a_signed_regression_target_range_is_no_one_based_class_id() -> None:
    assert "label_check" not in _read("targets go from -1 to 1 and I use MSE")
    assert _read("labels start at 1 and I use cross entropy").get("label_check") == "not_zero_based"


def test_a_falling_loss_judged_healthy_is_not_the_trouble() -> None:
    assert "not_working_aspect" not in _read("the loss went from 2.3 to 0.1 and looks healthy")
    assert _read("the loss went from 2.3 to 2.2 and looks stuck").get("symptom") == "not_learning"
