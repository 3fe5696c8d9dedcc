"""Readings of k29: frames and keywords held to their scope (bf16 weights that are trained, gradients cleared at
every micro-batch, image and mask augmented apart, a target that is the labels, accumulation of gradients, a swing
said of the loss, a wish for LAMB, FSDP training worse), each with a sentence its intended reading still holds for."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, finding_ids, obs


# --- weights in bf16: the trained weights, not a model loaded in it to run it or a frozen base under LoRA --------
@pytest.mark.parametrize("text", [
    "I load the model in bf16 for inference only, the outputs look fine.",
    "I train Llama with LoRA on one GPU; the base model is loaded with torch_dtype=torch.bfloat16 and the loss "
    "oscillates a lot.",
])
def test_a_model_loaded_in_bf16_is_no_bf16_weights(text: str) -> None:
    assert obs(text).get("weights_dtype") is None


def test_bf16_for_inference_raises_no_fp16_weights_finding() -> None:
    assert "PR-FP16W-01" not in finding_ids("I load the model in bf16 for inference only, the outputs look fine.")


@pytest.mark.parametrize("text", [
    "I cast the whole model to bf16 and train it with AdamW",
    "params stored in bf16, no fp32 master copy",
    "I call model.bfloat16() before full fine-tuning",
    "Loaded the model with torch_dtype=torch.bfloat16 and trained it directly, it learns slower than expected",
])
def test_weights_cast_to_bf16_are_still_read(text: str) -> None:
    assert_reads(text, {"weights_dtype": "bf16"})


# --- zero_grad at every micro-batch: not cleared only every N iterations or after the optimizer's step ----------
@pytest.mark.parametrize("text", [
    "I use gradient accumulation of 4 and call zero_grad only every 4 iterations, right after the optimizer step; "
    "the loss is noisy.",
    "I zero the gradients after each optimizer step, not after each micro-batch, with accumulation over 8 batches; "
    "loss plateaus.",
    "I call zero_grad only every 4 iterations while accumulating",
])
def test_a_correct_accumulation_loop_clears_no_micro_batch(text: str) -> None:
    assert obs(text).get("zero_grad_call") is None


@pytest.mark.parametrize("text", [
    "zero_grad is called every iteration and I step every 8 for accumulation",
    "I reset the gradients on every micro step while accumulating",
    "grad accumulation does nothing, zero_grad is called at every iteration and step only every 8",
])
def test_gradients_cleared_at_each_micro_batch_are_still_read(text: str) -> None:
    assert_reads(text, {"zero_grad_call": "every_micro_batch"})


# --- image and mask transformed apart: a random transform drawn apart, not a size -------------------------------
@pytest.mark.parametrize("text", [
    "I resize the image and the mask with the same transform to 512, their sizes were different originally; "
    "dice is low.",
    "The mask and image are resized separately but both with the same size, it works fine.",
])
def test_image_and_mask_resized_alike_are_not_misaligned(text: str) -> None:
    assert obs(text).get("label_check") is None


@pytest.mark.parametrize("text", [
    "the flip is applied to the image but the mask is cropped separately",
    "the random crop is applied to the image and the mask independently",
])
def test_a_random_transform_drawn_apart_is_still_misaligned(text: str) -> None:
    assert_reads(text, {"label_check": "misaligned"})


# --- a target network is the model, not the labels --------------------------------------------------------------
def test_a_target_network_going_nan_is_no_nan_in_the_labels() -> None:
    got = obs("In my DQN the target network's Q values become NaN after a while.")
    assert got.get("nan_location") is None
    assert got.get("symptom") == "unstable" and got.get("loss_behavior") == "nan_or_inf"


def test_targets_with_nan_are_still_the_labels() -> None:
    assert_reads("my targets contain NaN", {"nan_location": "labels"})


# --- accumulation counted: of gradients, not of a logged loss ---------------------------------------------------
@pytest.mark.parametrize("text", [
    "I log the loss accumulated over 50 steps and it is flat.",
    "I print the running loss accumulated over 100 steps; it oscillates",
])
def test_a_loss_summed_for_the_log_is_no_gradient_accumulation(text: str) -> None:
    got = obs(text)
    assert got.get("grad_accum_steps") is None and got.get("grad_accumulation") is None


@pytest.mark.parametrize(("text", "steps"), [
    ("I accumulate the gradients over 4 batches", 4),
    ("I accumulate over 8 micro-batches", 8),
])
def test_gradients_accumulated_are_still_counted(text: str, steps: int) -> None:
    assert_reads(text, {"grad_accum_steps": steps, "grad_accumulation": True})


# --- a swing around one level, said of the loss -----------------------------------------------------------------
def test_an_accuracy_swinging_around_a_level_is_not_the_loss_stalling() -> None:
    got = obs("The validation accuracy fluctuates around the same level while the training loss keeps dropping.")
    assert got.get("symptom") != "not_learning"


def test_a_heart_rate_swinging_around_a_level_reads_nothing() -> None:
    assert obs("The heart rate fluctuates around the same level during the run.") == {}


def test_a_cyclic_lr_around_its_start_is_not_stuck() -> None:
    got = obs("The learning rate jumps around the initial value because of my cyclic schedule, training works.")
    assert got.get("lr_observed") is None


@pytest.mark.parametrize(("text", "expected"), [
    ("my training loss fluctuates around the same level", {"symptom": "not_learning"}),
    ("the loss bounces around its initial value", {"symptom": "not_learning", "loss_behavior": "flat_from_start"}),
    ("it fluctuates around the starting loss", {"symptom": "not_learning", "loss_behavior": "flat_from_start"}),
])
def test_a_loss_swinging_around_one_level_is_still_stalled(text: str, expected: dict) -> None:
    assert_reads(text, expected)


# --- LAMB wished for, FSDP training worse -----------------------------------------------------------------------
def test_lamb_already_switched_to_is_no_wish() -> None:
    got = obs("I switched to LAMB for my large batch training and it helped a lot, but now the loss spikes")
    assert got.get("considering") is None


@pytest.mark.parametrize("text", [
    "is LAMB worth it for very large batch training?",
    "should I switch to LAMB for large batch training?",
])
def test_lamb_wished_for_a_large_batch_is_still_read(text: str) -> None:
    assert_reads(text, {"considering": "lamb"})


@pytest.mark.parametrize("text", [
    "Our FSDP run needs a larger batch than DeepSpeed to fit, but the loss curves match",
    "The FSDP docs say it can use a larger lr than DeepSpeed, should I try that?",
])
def test_fsdp_with_a_larger_batch_or_a_documented_lr_trains_no_worse(text: str) -> None:
    assert obs(text).get("fsdp_trains_worse") is None


@pytest.mark.parametrize("text", [
    "FSDP needs a 4x larger LR to match DeepSpeed",
    "switched from DeepSpeed to FSDP and the loss goes down much slower",
])
def test_fsdp_training_worse_is_still_read(text: str) -> None:
    assert_reads(text, {"fsdp_trains_worse": True})


def test_a_use_said_to_be_the_only_one_is_no_constant_prediction() -> None:
    assert obs("I load the model in bf16 for inference only, the outputs look fine.").get("symptom") is None


def test_outputs_said_to_be_one_value_at_inference_are_still_constant() -> None:
    assert_reads("the model only outputs class 0 at inference", {"predictions_constant": True})
