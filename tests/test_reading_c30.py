"""Readings added for the everyday15 dev situations (c30): clipping on every step, a pause before the first step
said by where it sits, a summed loss, frozen weights the optimizer still holds, a negative divergence, loader errors
that come only with worker processes, models for tables weighed, and gradient checkpointing as a setting."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, finding_ids, obs


@pytest.mark.parametrize("text", [
    "every single step gets clipped, the norm before clipping is always around 100",
    "all steps get clipped, max norm 1.0",
    "gradient clipping kicks in on 100% of the steps",
    "the grad norm is above max_grad_norm (1.0) at every step",
    "clip_grad_norm_ returns a value above max_norm on each iteration",
    "the gradient norm is always > clip threshold",
])
def test_clipping_that_cuts_every_step(text: str) -> None:
    assert obs(text).get("grad_clip_active") == "every_step"


@pytest.mark.parametrize("text", [
    "I apply gradient clipping at every step with max_norm 1.0",
    "clipping is applied on every step",
    "the grad norm is above 1 sometimes",
])
def test_clipping_configured_or_sometimes_active_is_not_every_step(text: str) -> None:
    assert "grad_clip_active" not in obs(text)


def test_clipping_every_step_leads_to_gradient_management() -> None:
    assert "DF-TOPIC-CLIP" in finding_ids("every step is clipped: max_norm 1.0 and the norm is 20-40 all the time")


@pytest.mark.parametrize("text", [
    "Resuming training: long silent wait before the first iteration, afterwards normal it/s",
    "after resuming it is stuck ~30min at the beginning, then ok",
    "after the restart the job waits a very long time before its first step, then the steps are normal",
    "after resuming from the checkpoint the first step takes ages but the steps after it are as fast as before",
    "resumed from checkpoint-48000 and nothing happens for 40 min, then it continues at the normal speed",
])
def test_a_pause_before_the_first_step_said_by_where_it_sits(text: str) -> None:
    assert obs(text).get("first_step_stall") is True


@pytest.mark.parametrize("text", [
    "the loss is stuck at the beginning then goes down normally",
    "the loss is stuck at 2.3 for 10 epochs at the beginning, then it goes down normally",
    "training stalls for 10 minutes at every epoch then continues",
])
def test_a_curve_flat_at_first_or_an_epoch_pause_is_no_first_step_stall(text: str) -> None:
    assert "first_step_stall" not in obs(text)


def test_the_resume_replay_leads_to_the_loop() -> None:
    text = "after resuming, it hangs a very long time before its first step, then the steps are normal"
    assert_reads(text, {"first_step_stall": True, "recent_change": "resume"})
    assert "DF-CHG-RESUME-SKIP" in finding_ids(text)


@pytest.mark.parametrize("text", [
    "using sum reduction in my criterion and vanilla sgd",
    "sgd + loss.sum() instead of loss.mean(): training unstable",
    "for my segmentation I sum the BCE over all pixels and use SGD",
    "Summing per-sample losses (not mean), optimizer is plain SGD",
    "MSELoss(reduction='sum') with SGD",
])
def test_a_summed_loss(text: str) -> None:
    assert obs(text).get("loss_reduction") == "sum"


@pytest.mark.parametrize("text", [
    "my loss is the sum of the CE and the dice loss",
    "total loss = sum of three terms, not the mean of them",
])
def test_a_loss_made_of_summed_terms_is_no_sum_reduction(text: str) -> None:
    assert "loss_reduction" not in obs(text)


def test_a_summed_loss_under_sgd_leads_to_the_loss() -> None:
    assert "MS-RED-01" in finding_ids("I use reduction='sum' with plain SGD and the loss explodes")


@pytest.mark.parametrize("text", [
    "I set requires_grad=False on the backbone after creating the optimizer and its weights still change",
    "froze the encoder at epoch 5 (requires_grad False) but its weights keep changing",
    "after freezing layer1-3 their params drift slowly",
    "requires_grad = False but the weights are not the same after training",
    "the layers I freeze keep moving",
    "the optimizer was created before i froze them",
    "the optimizer was built before freezing",
])
def test_frozen_weights_the_optimizer_still_holds(text: str) -> None:
    assert obs(text).get("optimizer_params") == "frozen_held"


@pytest.mark.parametrize("text", [
    "I freeze the first layers and the other layers keep changing",
    "after freezing the backbone the head weights change quickly",
])
def test_other_weights_that_move_after_a_freeze_are_expected(text: str) -> None:
    assert "optimizer_params" not in obs(text)


@pytest.mark.parametrize("text", [
    "I unfreeze the backbone after creating the optimizer",
    "I built the optimizer before I unfroze the backbone",
])
def test_unfreezing_after_the_optimizer_stays_missing(text: str) -> None:
    assert obs(text).get("optimizer_params") == "missing"


@pytest.mark.parametrize("text", [
    "gradual freezing: the layers I freeze keep moving",
    "sgd still changes them (optimizer built before freezing)",
])
def test_the_act_of_freezing_is_no_hang(text: str) -> None:
    assert obs(text).get("symptom") != "hang"


def test_a_run_that_keeps_freezing_is_still_a_hang() -> None:
    assert obs("my training keeps freezing after 2 epochs").get("symptom") == "hang"


@pytest.mark.parametrize("text", [
    "my knowledge distillation loss goes below zero",
    "the kl term drops under 0 and keeps decreasing",
    "KLDivLoss giving negative values during training",
    "nn.KLDivLoss output is -2.1 at epoch 3",
])
def test_a_loss_or_divergence_under_zero(text: str) -> None:
    assert obs(text).get("negative_loss") is True


@pytest.mark.parametrize("text", [
    "the loss never goes below zero",
    "the loss doesn't go below zero",
    "the kl loss is not negative",
    "the loss goes below 0.5",
    "kl loss is 0.3",
])
def test_a_loss_above_zero_or_denied_negative_is_not_negative(text: str) -> None:
    assert "negative_loss" not in obs(text)


@pytest.mark.parametrize("text", [
    "my HDF5 dataset throws errors only when num_workers>0",
    "with num_workers=2 training dies after a few batches with a h5py error",
    "with workers > 0 I get random errors from h5py inside the worker",
])
def test_errors_only_with_worker_processes_are_the_loader(text: str) -> None:
    assert_reads(text, {"boundary_topic": "dataloader_failure"})


@pytest.mark.parametrize("text", [
    "num_workers=8 and the training error goes down slowly",
    "the training error is lower with num_workers=4",
])
def test_a_training_error_beside_the_worker_count_is_no_loader_failure(text: str) -> None:
    assert obs(text).get("boundary_topic") != "dataloader_failure"


@pytest.mark.parametrize("text", [
    "is it worth using a transformer or should I stick to gradient boosting?",
    "neural network vs random forest on a small tabular dataset - which arch should I choose?",
    "Should I use a ResNet-like MLP or FT-Transformer for my tabular dataset?",
])
def test_models_for_tables_weighed_ask_about_the_architecture(text: str) -> None:
    assert obs(text).get("question_topic") == "architecture"


@pytest.mark.parametrize("text", [
    "with gradient_checkpointing=True one epoch takes 40 min instead of 28",
    "with gradient checkpointing one epoch takes 40 min instead of 28",
])
def test_gradient_checkpointing_is_a_setting_not_the_gradients(text: str) -> None:
    got = obs(text)
    assert "grad_norm_trend" not in got and got.get("symptom") == "slow_training"
