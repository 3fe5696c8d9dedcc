"""Two general gaps the twelfth corpus batch's dev threads showed, each tested both ways.

* A vision transformer trained from scratch on a small image dataset that scores poorly (or far below the figure
  its paper reports) is the architecture pack's question: it reads as ``concern=architecture_choice``.
* An FP16 run that clips gradients and stops learning, with no word on its scaler, is asked whether the gradients
  are unscaled before the clip (Q-CLIP-ORDER-FP16) instead of going straight to the learning rate.
"""

from __future__ import annotations

import pytest

from bench import eval as ev
from expert.consultation import Consultation
from tests.reading import asked_until, obs

ARCH = "architecture_choice"


@pytest.mark.parametrize("text", [
    "Training a ViT on Tiny-ImageNet from scratch (pretrained=False), top_1_val_acc stays around 7%.",
    "My ViT implementation trains fine, but the accuracy on CIFAR-10 is far below the 99% the ViT paper reports.",
    "I train a DeiT-S from scratch on CIFAR-100 and it only reaches 45% top-1.",
    "My vision transformer trained without pretraining on MNIST gets a poor 80% accuracy",
])
def test_a_vit_from_scratch_on_small_images_that_scores_poorly_is_an_architecture_question(text: str) -> None:
    assert obs(text).get("concern") == ARCH


@pytest.mark.parametrize("text", [
    # a question about the schedule, with no poor score said
    "I train a ViT from scratch on CIFAR-10. Which learning rate schedule should I use?",
    # a pretrained, fine-tuned ViT below its paper: not a missing-pretraining gap
    "Fine-tuning a ViT pretrained on ImageNet-21k on CIFAR-10 gives 95%, below the 99% the paper reports.",
    # ImageNet-scale data, a CNN, a text transformer
    "I train a ViT from scratch on ImageNet and the accuracy is low at 60%",
    "My ResNet trained from scratch on CIFAR-10 only reaches 60% accuracy",
    "My ResNet-50 on CIFAR-10 gets 90%, below the 95% the paper reports",
    "A BERT transformer trained from scratch on my small text dataset has low accuracy",
    # a good score, a negated poor one, a low loss, a denied ViT
    "The ViT from scratch on CIFAR-10 is not bad at all: 93% accuracy, as expected",
    "My ViT from scratch on CIFAR-10 has a low loss but the LR warmup seems off",
    "I am not training a ViT from scratch on CIFAR-10; my ResNet stays around 40%",
])
def test_near_misses_raise_no_architecture_concern(text: str) -> None:
    assert obs(text).get("concern") != ARCH


def test_the_vit_from_scratch_complaint_leads_with_the_architecture_pack() -> None:
    case = ev.Case("t-vit", "Training a ViT on Tiny-ImageNet from scratch (pretrained=False), top_1_val_acc stays "
                            "around 7%. Which hyperparameters should I use?", {}, "neural-architectures", ())
    assert ev.consult(case).primary_right


FP16_CLIP = "Training with AMP and gradient clipping (clip_grad_norm_ at 1.0): the loss barely moves."


def test_fp16_clipping_that_stalls_asks_the_clip_order_when_the_scaler_is_unsaid() -> None:
    assert obs(FP16_CLIP).get("grad_scaler") is None  # the precondition: nothing said about the scaler
    c = Consultation()
    c.complain(FP16_CLIP)
    assert asked_until(c, "Q-CLIP-ORDER-FP16")[-1:] == ["Q-CLIP-ORDER-FP16"]


def test_the_clip_order_answer_routes_to_unscaling_first() -> None:
    case = ev.Case("t-clip", FP16_CLIP, {"clip_order": "before_unscale"}, "pytorch-engineering",
                   ("gradient-management",))
    assert ev.consult(case).acceptable


@pytest.mark.parametrize("said", [
    {"grad_scaler": False},          # a run said to have no scaler
    {"mixed_precision": "bf16"},     # BF16 needs no scaler
    {"grad_clipping": False},        # no clipping at all
])
def test_the_fp16_clip_question_is_not_asked_off_its_conditions(said: dict) -> None:
    c = Consultation()
    c.observe(**{"symptom": "not_learning", "grad_clipping": True, "mixed_precision": "fp16", **said})
    assert "Q-CLIP-ORDER-FP16" not in asked_until(c, "Q-CLIP-ORDER-FP16")


def test_the_fp16_clip_question_is_asked_on_its_conditions_alone() -> None:
    c = Consultation()
    c.observe(symptom="not_learning", grad_clipping=True, mixed_precision="fp16")
    assert asked_until(c, "Q-CLIP-ORDER-FP16")[-1:] == ["Q-CLIP-ORDER-FP16"]
