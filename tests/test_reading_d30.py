"""Readings of d30: where a hang happens, Hugging Face arguments set, another person's run, the weights' format
beside autocast, a switch said with what it did, questions the text answers, losses that jump at schedule restarts."""

from __future__ import annotations

import pytest

from knowledge.terms import canonical_schedule
from tests.reading import assert_reads, declined, finding_ids, obs


def _questions(text: str, most: int = 8) -> list[str]:
    """The questions a consultation on ``text`` asks, each declined in turn."""
    return declined(text, most)[1]


# -- 1. where a hang happens: first step, mid-run, epoch boundary
@pytest.mark.parametrize(("text", "onset"), [
    ("after resuming from the checkpoint it trains for 2 epochs and then hangs", "mid_run"),
    ("it hangs at step 1200", "mid_run"),
    ("training hangs after 3 epochs", "mid_run"),
    ("runs fine for 3 hours, then freezes", "mid_run"),
    ("training hangs at the first batch", "first_step"),
    ("after resuming the training hangs at the first batch", "first_step"),
])
def test_the_place_of_a_hang_is_read(text: str, onset: str) -> None:
    assert_reads(text, {"symptom": "hang", "hang_onset": onset})


def test_a_hang_placed_only_by_the_resume_has_no_place() -> None:
    assert_reads("After resuming from a checkpoint the training hangs.", {"symptom": "hang", "hang_onset": None})


def test_a_resumed_run_that_hangs_after_training_is_not_asked_whether_it_ever_steps() -> None:
    text = "after resuming from the checkpoint it trains for 2 epochs and then hangs"
    assert "Q-RESUME-STALL" not in _questions(text)
    assert "DF-CHG-RESUME-SKIP" not in finding_ids(text)
    # (the place unknown, it is still asked)
    assert _questions("After resuming from a checkpoint the training hangs.")[:1] == ["Q-RESUME-STALL"]


# -- 2. Hugging Face arguments said as set
@pytest.mark.parametrize(("text", "expected"), [
    ("I set ignore_data_skip=True", {"ignore_data_skip": True}),
    ("I tried max_grad_norm=1.0", {"grad_clipping": True}),
    ("max_grad_norm=0 in my TrainingArguments", {"grad_clipping": False}),
    ("lr_scheduler_type='cosine'", {"lr_schedule": "cosine"}),
])
def test_trainer_arguments_set_are_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_a_negated_argument_is_not_read() -> None:
    assert_reads("I did not set ignore_data_skip=True", {"ignore_data_skip": None})


def test_no_data_replay_leaves_no_resume_skip_question() -> None:
    text = "after resuming the training hangs, I set ignore_data_skip=True"
    assert "Q-RESUME-STALL" not in _questions(text)
    assert "DF-CHG-RESUME-SKIP" not in finding_ids(text)


@pytest.mark.parametrize(("spelling", "value"), [
    ("cosine schedule", "cosine"), ("linear decay", "linear"), ("cosine lr schedule", "cosine"),
    ("step decay", "step"), ("cosine annealing", "cosine"),
])
def test_a_schedule_kind_with_its_word_converts(spelling: str, value: str) -> None:
    assert canonical_schedule(spelling) == value
    assert obs(f"I use a {spelling}").get("lr_schedule") == value


# -- 3. another person's run
@pytest.mark.parametrize("text", [
    "my colleague's run goes nan",
    "someone on the forum had nan loss",
    "my friend's loss explodes after epoch 2",
])
def test_another_persons_trouble_is_not_the_users(text: str) -> None:
    got = obs(text)
    assert got.get("loss_behavior") is None and got.get("symptom") is None, got


def test_the_users_own_run_beside_anothers_is_read() -> None:
    assert_reads("someone on the forum had nan loss, mine is fine but slow",
                 {"symptom": "slow_training", "loss_behavior": None})
    assert_reads("my friend's loss explodes, mine just plateaus", {"loss_behavior": "plateau_after_learning"})


@pytest.mark.parametrize("text", [
    "my colleague says my loss goes nan",
    "my friend told me the loss going nan is normal",
])
def test_a_person_who_reports_the_users_run_keeps_it_the_users(text: str) -> None:
    assert_reads(text, {"loss_behavior": "nan_or_inf"})


# -- 4. the weights' format beside autocast
@pytest.mark.parametrize("text", [
    "my weights are in fp32 and I use bf16 autocast",
    "fp32 master weights with bf16 autocast",
])
def test_fp32_weights_with_bf16_autocast_is_mixed_bf16(text: str) -> None:
    assert_reads(text, {"weights_dtype": "fp32", "mixed_precision": "bf16"})


def test_half_weights_are_half_training() -> None:
    assert_reads("my weights are in fp16", {"weights_dtype": "fp16", "mixed_precision": "fp16"})


def test_training_in_fp32_is_still_no_mixed_precision() -> None:
    assert_reads("I train in fp32", {"mixed_precision": "none", "weights_dtype": None})


# -- 5. a switch said with what it did
def test_a_switch_that_made_the_loss_worse_is_a_change_made() -> None:
    assert_reads("switching from DDP to FSDP made the loss worse",
                 {"considering": None, "fsdp_trains_worse": True, "multi_gpu": True})
    assert_reads("switching from adam to lion made the loss worse", {"considering": None, "optimizer": "lion"})


def test_a_switch_weighed_is_still_weighed() -> None:
    assert_reads("switching to lion, will it help?", {"considering": "lion"})
    assert_reads("would switching to FSDP make training faster?", {"considering": "fsdp"})


# -- 6. questions the text answers are not asked
def test_a_stated_format_and_loss_leave_their_questions_unasked() -> None:
    asked = _questions("the loss goes nan after 2 epochs, my weights are in fp32 and I use bf16 autocast, no "
                       "custom loss, just CrossEntropyLoss")
    assert not {"Q-PRECISION", "Q-WEIGHTS-DTYPE", "Q-CUSTOM-LOSS", "Q-NAN-ONSET"} & set(asked), asked


@pytest.mark.parametrize("text", ["I use no custom loss", "I don't use a custom loss function",
                                  "no custom loss, just cross entropy"])
def test_no_custom_loss_is_read(text: str) -> None:
    assert_reads(text, {"custom_loss": False})


@pytest.mark.parametrize("text", ["there is no nan in my custom loss", "I don't think the custom loss is the issue"])
def test_a_negation_of_something_else_is_no_custom_loss_denied(text: str) -> None:
    assert obs(text).get("custom_loss") is not False


# -- 7. a loss that jumps at a schedule's restarts
@pytest.mark.parametrize("text", [
    "I use a cosine LR with restarts and the loss jumps around at the restarts",
    "cyclic lr, the loss jumps around at each restart",
    "with CosineAnnealingWarmRestarts the loss spikes at every restart",
    "SGDR: loss goes up at the start of each cycle",
])
def test_jumps_at_schedule_restarts_are_expected(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") is None and got.get("loss_behavior") is None, got
    assert got.get("not_working_aspect") is None, got


def test_a_jump_after_a_restart_from_a_checkpoint_is_still_read() -> None:
    assert_reads("after restart from checkpoint the loss jumps", {"loss_behavior": "spiking"})


def test_other_trouble_beside_restart_jumps_is_read() -> None:
    assert_reads("cyclic lr, the loss jumps at each restart but goes nan after epoch 3",
                 {"loss_behavior": "nan_or_inf"})


# -- a bare "after" before a change the user made is the change's time, not a time in the run
@pytest.mark.parametrize("text", [
    "after switching to bf16 the loss goes nan",
    "loss goes nan after I changed the lr",
    "the loss goes nan after adding a new layer",
])
def test_nan_after_a_change_has_no_onset_in_the_run(text: str) -> None:
    assert_reads(text, {"loss_behavior": "nan_or_inf", "nan_onset": None})


@pytest.mark.parametrize("text", ["loss goes nan after training for 2 hours", "after a few epochs loss becomes nan"])
def test_nan_after_training_is_after_steps(text: str) -> None:
    assert_reads(text, {"nan_onset": "after_steps"})


def test_a_hang_after_a_change_has_no_place_in_the_run() -> None:
    assert_reads("it hangs after switching to 4 gpus", {"symptom": "hang", "hang_onset": None})


# -- "training stalled" is read as "training is stuck" is: a hang only with a place or the program's signs
def test_training_stalled_alone_is_no_hang() -> None:
    assert_reads("Training stalled. Turns out 60% of my ReLU neurons are dead", {"symptom": "not_learning"})


@pytest.mark.parametrize("text", ["the job stalls", "training stalls at the first batch",
                                  "my training stalls forever with no output"])
def test_a_program_that_stalls_hangs(text: str) -> None:
    assert_reads(text, {"symptom": "hang"})


# -- one term of a combined objective left behind is the balance of the terms
@pytest.mark.parametrize("text", [
    "my multitask net only learns the detection head, the auxiliary loss stays where it started",
    "the auxiliary loss does not go down",
    "one of my two losses is stuck while the other decreases",
])
def test_one_loss_term_left_behind_is_multi_task(text: str) -> None:
    assert_reads(text, {"symptom": "multi_task", "loss_behavior": None})


def test_the_whole_loss_stuck_is_still_not_learning() -> None:
    assert_reads("the loss is stuck at 2.3", {"symptom": "not_learning"})
    assert_reads("the loss stays where it started", {"loss_behavior": "flat_from_start"})


def test_a_run_reloaded_from_a_checkpoint_is_a_resume() -> None:
    assert_reads("I reload from the last checkpoint and the loss spikes", {"recent_change": "resume"})
    assert_reads("I reloaded the model from a checkpoint for inference", {"recent_change": None})
