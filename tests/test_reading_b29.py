"""Readings and a cause added for the dev misses of the seventh corpus batch (issue 17): a loss that swings around
the level it started at, a schedule that moves several of its steps per call, and a run that looks hung right after
a resume.

The sentences are written for this file (none is from the phrasing suite or the corpus); each reading comes with a
near miss that must not give it.
"""

from __future__ import annotations

import pytest

from expert.consultation import Consultation
from tests.reading import assert_reads, finding_ids, obs


# -- a swing around the starting level is a curve that never left its start, not an unstable one
@pytest.mark.parametrize("text", [
    "my training loss just fluctuates around its starting value for 20 epochs",
    "the loss jitters around the initial level and never really moves",
    "val loss is fine but the train loss oscillates around the original value",
])
def test_swing_around_the_start_reads_flat(text: str) -> None:
    got = obs(text)
    assert got.get("loss_behavior") != "oscillating", got


def test_swing_around_the_start_is_flat_from_the_start() -> None:
    assert_reads("the loss keeps bouncing around the starting loss, as if nothing was learned",
                 {"loss_behavior": "flat_from_start"})


@pytest.mark.parametrize("text", [
    "the loss oscillates a lot from one batch to the next",
    "my loss bounces around wildly after epoch 3",
])
def test_a_plain_swing_stays_oscillating(text: str) -> None:
    assert obs(text).get("loss_behavior") == "oscillating"


# -- a schedule that takes several of its own steps per call runs that many times too fast
@pytest.mark.parametrize("text", [
    "on 8 GPUs each lr_scheduler.step() moves the schedule by the number of processes",
    "my scheduler gets stepped twice per optimizer step since I moved to two cards",
    "the lr scheduler advances 4 times per iteration when I launch on 4 devices",
])
def test_schedule_stepped_several_times_per_call(text: str) -> None:
    assert_reads(text, {"scheduler_pace": "too_fast"})


@pytest.mark.parametrize("text", [
    "I step the scheduler once per epoch and the optimizer every batch",
    "the scheduler is a cosine decay over 4 times the warmup length",
])
def test_schedule_without_a_multiple_step_is_no_pace(text: str) -> None:
    assert obs(text).get("scheduler_pace") is None


# -- a run that looks hung right after a resume is the trainer replaying the seen batches
def test_hang_on_resume_is_the_data_skip() -> None:
    # (a pause that ends is the replay; whether it ever ends unsaid, it is asked: review l29)
    ids = finding_ids("after restarting from checkpoint-450000 the trainer shows nothing for hours, it seems frozen "
                      "before the first step, then it starts training normally")
    assert "DF-CHG-RESUME-SKIP" in ids, ids
    c = Consultation()
    c.complain("after restarting from checkpoint-450000 the trainer shows nothing for hours, it seems frozen before "
               "the first step")
    assert c.run().question.id == "Q-RESUME-STALL"


def test_a_resumed_run_whose_collective_times_out_is_no_data_skip() -> None:
    ids = finding_ids("after resuming on 4 GPUs the job hangs and the NCCL watchdog times out")
    assert "DF-CHG-RESUME-SKIP" not in ids, ids


def test_a_hang_without_a_resume_is_no_data_skip() -> None:
    assert "DF-CHG-RESUME-SKIP" not in finding_ids("training hangs at the first step, GPU utilisation at 0%")
