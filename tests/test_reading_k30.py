"""Readings fixed after the session-30 review: a hang's place around a resume, worker-only errors, every-step
clipping, a run that dies, a summed loss, a job restart under SGDR, a trouble the user shares with another person,
a switch weighed in a question, the KL divergence named, a negative loss said as a number, a device count before
the next argument, "before freezing" and a NaN denied beside calm gradients.

The sentences are written for this file (none is from the phrasing suite or the corpus); each reading comes with a
near miss that must not give it.
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, declined, obs


def _questions(text: str, most: int = 8) -> list[str]:
    """The questions a consultation on ``text`` asks, each declined in turn."""
    return declined(text, most)[1]


# -- 1. a step that is where the run resumed places no hang; step 1 is the first step; a later stretch's first step
@pytest.mark.parametrize("text", [
    "the job hangs after resuming from step 5000",
    "after resuming from the step 5000 checkpoint my training hangs",
])
def test_a_resume_step_is_no_stretch_trained(text: str) -> None:
    assert_reads(text, {"symptom": "hang", "hang_onset": None})
    assert _questions(text)[:1] == ["Q-RESUME-STALL"]


@pytest.mark.parametrize(("text", "onset"), [
    ("my training hangs at step 4000", "mid_run"),
    ("the job hangs at step 1", "first_step"),
    ("the job hangs at the first step after 3 epochs", "mid_run"),
    ("after 800 steps the job hangs at the first step of the next epoch", "epoch_boundary"),
    ("the job hangs at the very first step", "first_step"),
])
def test_the_place_of_a_hang_by_its_step(text: str, onset: str) -> None:
    assert_reads(text, {"symptom": "hang", "hang_onset": onset})


def test_the_first_step_of_a_later_stretch_is_no_first_collective() -> None:
    assert "collective_failure" not in obs("the job hangs at the first step after 3 epochs")
    assert obs("the job hangs at the first step").get("collective_failure") == "hang_first_collective"


# -- 2. a failure to do something beside num_workers is no worker crash
@pytest.mark.parametrize("text", [
    "num_workers=8; the f1 fails to improve",
    "with num_workers=2 the validation error fails to drop",
    "using num_workers=6 my network fails to learn anything",
    # the workers named after the failure to do something
    "the val error fails to go down with num_workers=4",
    "the accuracy fails to improve when num_workers=8",
])
def test_a_failure_to_improve_with_workers_is_no_loader_crash(text: str) -> None:
    assert obs(text).get("boundary_topic") != "dataloader_failure"


def test_an_error_with_workers_is_a_loader_crash() -> None:
    assert_reads("with num_workers=3 the script fails with a pickling message",
                 {"boundary_topic": "dataloader_failure"})


@pytest.mark.parametrize("text", ["the script fails with num_workers=4", "my loader failing with num_workers=4",
                                  "it fails when using num_workers=2 but works with 0"])
def test_a_failure_with_workers_named_after_it_is_a_loader_crash(text: str) -> None:
    assert obs(text).get("boundary_topic") == "dataloader_failure"


# -- 3. every step clipped: a bare threshold needs the gradient norm; a negation denies it
@pytest.mark.parametrize("text", [
    "the val loss sits above the threshold at every step",
    "my f1 is always above the threshold I chose for early stopping",
    "the gradient norm is never above max_norm at every step",
    "not every step gets clipped",
    "the grad norm never goes above the threshold at each step",
])
def test_no_every_step_clipping(text: str) -> None:
    assert obs(text).get("grad_clip_active") != "every_step"


@pytest.mark.parametrize("text", [
    "the grad norm is above the threshold at every step",
    "my gradient norm is always above the clipping threshold",
    "every single update gets clipped",
])
def test_every_step_clipping(text: str) -> None:
    assert_reads(text, {"grad_clip_active": "every_step", "grad_clipping": True})


def test_not_every_step_clipped_does_not_deny_clipping() -> None:
    assert obs("not every step gets clipped").get("grad_clipping") is not False


# -- 4. a run dies; a metric, the dropout, a pet or a battery does not crash
@pytest.mark.parametrize("text", [
    "top-1 accuracy died",
    "the val f1 dies after the lr drop",
    "the dropout layer died",
    "my cat died yesterday",
    "my phone battery died, so I restarted training from the checkpoint",
    "the gradients pretty much died",
])
def test_no_crash_from_dying(text: str) -> None:
    assert obs(text).get("symptom") != "crash"


@pytest.mark.parametrize("text", [
    "the job died after 4 epochs",
    "training with batch size 64 dies at the end of the epoch",
    "my jupyter kernel died",
])
def test_a_run_that_dies_crashed(text: str) -> None:
    assert_reads(text, {"symptom": "crash"})


# -- 5. a summed loss: negatable, and summed errors count mistakes
@pytest.mark.parametrize("text", [
    "I do not use reduction='sum'",
    "sum reduction is not what we use, we average",
    "wrong.sum() counts the errors; errors.sum() gives the mistakes",
    "I sum the errors over the examples to get the accuracy",
])
def test_no_summed_loss(text: str) -> None:
    assert obs(text).get("loss_reduction") != "sum"


@pytest.mark.parametrize("text", ["my criterion uses reduction='sum'", "we sum the losses over the batch"])
def test_summed_loss(text: str) -> None:
    assert_reads(text, {"loss_reduction": "sum"})


# -- 6. a restart of the job under SGDR is no schedule restart
@pytest.mark.parametrize("text", [
    "we train with SGDR and the loss jumps at each restart of the slurm job",
    "with SGDR, after each restart of the run from the checkpoint the loss jumps",
])
def test_a_job_restart_under_sgdr_is_the_run_s(text: str) -> None:
    assert_reads(text, {"loss_behavior": "spiking"})


def test_a_schedule_restart_under_sgdr_is_expected() -> None:
    assert obs("we train with SGDR and the loss jumps at each restart").get("loss_behavior") is None


# -- 7. another person's trouble the user shares
@pytest.mark.parametrize(("text", "expected"), [
    ("my labmate's network overfits, mine too", {"symptom": "overfitting"}),
    ("someone on reddit had nan loss, and I have it too", {"loss_behavior": "nan_or_inf"}),
    ("my friend's run goes nan and so does mine", {"loss_behavior": "nan_or_inf"}),
])
def test_a_shared_trouble_is_the_user_s(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", [
    "my labmate's network overfits",
    "someone on reddit had nan loss; I tried their fix too",
    "my friend's run goes nan but mine is fine",
])
def test_another_person_s_trouble_alone_is_not_the_user_s(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") != "overfitting" and got.get("loss_behavior") != "nan_or_inf", got


# -- 8. a switch asked about stays weighed
@pytest.mark.parametrize(("text", "considering"), [
    ("would moving to FSDP have changed anything for memory?", "fsdp"),
    ("has switching to fp16 ever caused nan for anyone?", "fp16"),
])
def test_a_switch_asked_about_is_weighed(text: str, considering: str) -> None:
    assert_reads(text, {"considering": considering})


@pytest.mark.parametrize("text", ["switching to fp16 caused nan", "why has switching to fp16 caused nan?"])
def test_a_switch_made_is_not_weighed(text: str) -> None:
    assert "considering" not in obs(text)


# -- 9, 10. the KL divergence named; a negative loss said as a number; "under zero point one"
def test_a_negative_loss_said_as_a_number() -> None:
    assert_reads("the loss is -3.4", {"negative_loss": True})
    assert_reads("the loss is 3-4", {"negative_loss": None})


def test_under_zero_point_one_is_no_negative_loss() -> None:
    assert_reads("the loss got under zero point two", {"negative_loss": None})
    assert_reads("the loss drops below zero.", {"negative_loss": True})


# -- 11. a device count before the next argument
@pytest.mark.parametrize("text", ["Trainer(gpus=4, precision=16)", "devices=2, max_epochs=3"])
def test_a_device_count_before_the_next_argument(text: str) -> None:
    assert_reads(text, {"multi_gpu": True})


@pytest.mark.parametrize("text", ["Trainer(gpus='2,')", "python train.py --gpus 3,", "Trainer(gpus=1, precision=16)"])
def test_a_single_device_index(text: str) -> None:
    assert "multi_gpu" not in obs(text)


# -- 12. "before freezing" without a frozen thing; a NaN denied beside calm gradients
def test_before_freezing_without_a_frozen_thing_is_a_hang() -> None:
    assert_reads("before freezing, the job printed step 300", {"symptom": "hang"})
    assert obs("before freezing the backbone, the loss was fine").get("symptom") != "hang"


def test_a_denied_nan_beside_calm_gradients() -> None:
    assert "grad_norm_trend" not in obs("the grad norm is steady; the loss is not nan but it oscillates")
    assert_reads("the grad norm is steady but the loss goes nan", {"grad_norm_trend": "normal"})
