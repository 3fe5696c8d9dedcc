"""Issue 17 (d17u): general causes read from dev misses, checked from complaints as users write them."""

from __future__ import annotations

import pytest

from expert import Consultation
from knowledge.terms import canonical_loss


def _lead(text: str, **facts: object) -> list[str]:
    c = Consultation()
    c.complain(text)
    if facts:
        c.observe(**facts)
    return c.run().plan


@pytest.mark.parametrize(("spelling", "canonical"), [
    ("torch_stoi loss", "stoi"), ("SI-SDR loss", "si_sdr"), ("GIoU loss", "iou"), ("ms_ssim_loss", "ssim"),
    ("CrossEntropyLoss", "cross_entropy"), ("mse loss", "mse")])
def test_metric_built_losses_have_canonical_names(spelling: str, canonical: str) -> None:
    assert canonical_loss(spelling) == canonical


def test_unknown_name_before_loss_stays_unknown() -> None:
    assert canonical_loss("my_fancy loss") is None


def test_nan_gradients_under_a_metric_built_loss_lead_to_the_loss() -> None:
    plan = _lead("Training a denoiser with the torch_stoi loss, the gradients turn NaN after a few thousand steps.")
    assert plan[:2] == ["loss-functions-and-objectives", "gradient-management"]


def test_nan_gradients_under_cross_entropy_stay_gradient_management() -> None:
    plan = _lead("Training a classifier with CrossEntropyLoss, the gradients turn NaN after a few thousand steps.")
    assert plan[0] == "gradient-management"


def test_a_metric_named_as_a_score_is_no_loss() -> None:
    c = Consultation()
    c.complain("The SSIM of my reconstructions reaches 0.91 and the IoU of the boxes is 0.7.")
    assert "loss_fn" not in c.observations


def test_lora_loss_collapsing_to_zero_with_format_unsaid_leads_to_precision() -> None:
    plan = _lead("LoRA fine-tune of Mistral: the training loss falls to 0 after 10 steps and the model learns nothing.")
    assert plan[0] == "batch-size-and-memory-tradeoffs"


def test_zero_loss_beside_nan_grad_norm_is_not_an_explosion_to_clip() -> None:
    plan = _lead("Fine-tuning llama with LoRA, after 50 steps the loss is 0.0 and grad_norm is nan.")
    assert plan[0] == "batch-size-and-memory-tradeoffs"


def test_zero_loss_in_plain_fp32_does_not_suspect_the_format() -> None:
    c = Consultation()
    c.complain("Fine-tuning llama with LoRA, after 50 steps the loss is 0.0 and grad_norm is nan.")
    c.observe(mixed_precision="none")
    d = c.run()
    assert "DF-SUS-ZERO" not in [f["id"] for f in d.findings]
    assert d.plan[0] == "gradient-management"


@pytest.mark.parametrize(("text", "strength"), [
    ("I use no data augmentation and the model overfits.", "none"),
    ("I train without any augmentation.", "none"),
    ("The only augmentation is random horizontal flips.", "light"),
    ("augmentation: just random crop and flip", "light")])
def test_light_or_absent_augmentation_is_read(text: str, strength: str) -> None:
    c = Consultation()
    c.complain(text)
    assert c.observations["augmentation_strength"].value == strength


@pytest.mark.parametrize("text", [
    "No augmentation helped, the loss is flat.",
    "I tried with and without augmentation, no difference.",
    "augmentation: just random crop and flip, plus colour jitter and mixup"])
def test_other_talk_of_augmentation_sets_no_light_strength(text: str) -> None:
    c = Consultation()
    c.complain(text)
    assert c.observations.get("augmentation_strength") is None or \
        c.observations["augmentation_strength"].value not in ("none", "light")


def test_overfitting_without_augmentation_leads_with_augmentation() -> None:
    plan = _lead("My ResNet overfits: train accuracy 99%, validation 70%. I use no data augmentation.")
    assert plan[:2] == ["data-augmentation-strategies", "overfitting-prevention"]


def test_per_rank_count_over_whole_dataset_leads_to_the_loop() -> None:
    plan = _lead("DDP training: my training accuracy drops as I add GPUs. I count correct predictions per batch and "
                 "divide by len(train_dataset) at the end of the epoch.")
    assert plan[0] == "training-loop-architecture"


def test_dividing_by_the_dataset_on_one_gpu_is_no_finding() -> None:
    c = Consultation()
    c.complain("I count correct predictions and divide by len(train_dataset) at the end of the epoch.")
    d = c.run()
    assert c.observations["metric_denominator"].value == "dataset_size"
    assert "DD-METRIC-01" not in [f["id"] for f in d.findings]


def test_zero_loss_called_a_wrong_metric_still_suspects_the_format() -> None:
    plan = _lead("Running a DPO notebook, the training loss is exactly zero from the second step. That can't be right?")
    assert plan[0] == "batch-size-and-memory-tradeoffs"


@pytest.mark.parametrize(("text", "read"), [
    ("Works with the base model; with a community fine-tune the loss goes NaN.", True),
    ("DPO works with the original Llama weights, but with a Chinese Llama-2 derivative the loss is inf.", True),
    ("The original weights work fine, but this variant of the recipe gives NaN.", False)])
def test_a_derivative_checkpoint_is_another_checkpoint(text: str, read: bool) -> None:
    c = Consultation()
    c.complain(text)
    assert ("checkpoint_specific" in c.observations) is read


@pytest.mark.parametrize("text", [
    "I keep running out of GPU memory when I raise the batch size.",
    "I assumed the batch_size is split across the GPUs under DDP, but I run out of GPU memory when I raise it."])
def test_oom_from_a_larger_batch_leads_to_the_batch_size(text: str) -> None:
    c = Consultation()
    c.complain(text)
    d = c.run()
    assert d.plan[0] == "batch-size-and-memory-tradeoffs"
    assert [b["pack"] for b in d.boundary] == ["pytorch-engineering"]


def test_oom_without_a_batch_stays_a_boundary() -> None:
    c = Consultation()
    c.complain("My batch size is 32 and I run out of memory when I load the model.")
    d = c.run()
    assert d.status == "out_of_scope"
