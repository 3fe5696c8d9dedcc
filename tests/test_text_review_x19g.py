"""False readings a review found in the text reader, each beside the reading that must still hold."""

from __future__ import annotations

from typing import Any

import pytest

from expert import Consultation
from expert.text import read_text
from tests.reading import finding_ids as _finding_ids


def _read(text: str) -> dict[str, Any]:
    """Every reading, firm or guessed (a guess reaches the rules as well)."""
    return {r.observation.name: r.observation.value for r in read_text(text)}


# 1. BatchNorm named as absent, replaced or already synchronised says nothing of a per-device BN batch
@pytest.mark.parametrize("text", [
    "I don't use BatchNorm; the batch size is 2 per GPU and training is fine.",
    "I replaced BatchNorm with LayerNorm and use batch size 2 per GPU.",
    "Batch size 2 per GPU with GroupNorm instead of BatchNorm.",
    "We use sync bn with 2 images per GPU on 64 GPUs.",
    "I removed BN and now train with 2 images per GPU.",
])
def test_batchnorm_absent_or_replaced_is_no_bn_batch(text: str) -> None:
    assert "bn_batch" not in _read(text)
    assert "MS-BN-01" not in _finding_ids(text)


@pytest.mark.parametrize("text", [
    "BatchNorm with 2 images per GPU and the loss is noisy.",
    "my ResNet with BatchNorm trains with 2 images per GPU and the val mAP jumps around",
    "bs=2 with BatchNorm",
])
def test_batchnorm_beside_a_device_batch_is_still_read(text: str) -> None:
    assert _read(text).get("bn_batch") == 2


# 2. a NaN only after steps of fine-tuning, or from any weights, is no one checkpoint's
@pytest.mark.parametrize("text", [
    "The base model works fine but after 2000 steps of fine-tuning with lr 1 the loss becomes NaN.",
    "The base weights work fine; the loss is NaN from the first step regardless of checkpoint, with lr 10.",
    # a NaN from every weights, the base included, is no one checkpoint's (a failure from the checkpoints a user
    # converted, with the base fine, is: the conversion is the suspect, everyday14's derived-checkpoint situation)
    "The loss goes NaN with every checkpoint I load, the base weights as well.",
])
def test_nan_after_fine_tuning_steps_is_not_checkpoint_specific(text: str) -> None:
    assert "checkpoint_specific" not in _read(text)
    assert "DF-NAN-CKPT" not in _finding_ids(text)


def test_the_checkpoint_lead_yields_to_a_learning_rate_said() -> None:
    c = Consultation()
    c.complain("The base weights work fine, but my fine-tuned checkpoint gives NaN loss with lr 10.")
    d = c.run()
    while d.question is not None:
        c.decline(d.question.id)
        d = c.run()
    assert "DF-NAN-CKPT" not in {f["id"] for f in d.findings}


@pytest.mark.parametrize("text", [
    "The base weights work fine, but my fine-tuned checkpoint gives NaN loss when loaded.",
    "the loss is nan with my converted checkpoint, it works fine with the base weights",
])
def test_a_nan_from_another_checkpoint_is_still_read(text: str) -> None:
    assert _read(text).get("checkpoint_specific") is True
    assert "DF-NAN-CKPT" in _finding_ids(text)


# 3. replica drift only asked about, or denied right after, is not said
@pytest.mark.parametrize("text", [
    "The weights differ between ranks? I checked, they don't.",
    "Are the replicas out of sync? No, they're the same.",
    "The weights differ between ranks. I checked, they don't.",
])
def test_replica_drift_asked_or_denied_is_not_read(text: str) -> None:
    assert _read(text).get("replicas_in_sync") != "diverged"
    assert "DD-SYNC-01" not in _finding_ids(text)


@pytest.mark.parametrize("text", [
    "The weights differ between ranks after a few steps.",
    "The weights differ between ranks after a few steps. No idea why.",
])
def test_replica_drift_said_is_still_read(text: str) -> None:
    firm = {r.observation.name: r.observation.value for r in read_text(text) if not r.weak}
    assert firm.get("replicas_in_sync") == "diverged"


# 4. a belief denied reaches the whole sentence after it in the coarse reading
@pytest.mark.parametrize("text", [
    "I don't think the loss is exploding.",
    "I don't really think the gradients explode.",
    "I'm not sure the loss is diverging.",
])
def test_a_denied_belief_is_no_symptom(text: str) -> None:
    assert "symptom" not in _read(text)


@pytest.mark.parametrize("text", [
    "The loss is exploding.",
    "I'm not sure why the gradients explode in my training.",
])
def test_instability_said_is_still_read(text: str) -> None:
    assert _read(text).get("symptom") == "unstable"


# 5. a comparison of architectures denied, of a cost, or called expected is no architecture concern
@pytest.mark.parametrize("text", [
    "The ViT is not worse than the ResNet.",
    "ResNet-50 gets lower latency than ViT-B at inference.",
    "the ResNet got lower loss but the ViT trained faster",
    "The ResNet is worse than the ViT in my experiments, which is expected.",
])
def test_no_architecture_concern_from_these_comparisons(text: str) -> None:
    assert _read(text).get("concern") != "architecture_choice"


@pytest.mark.parametrize("text", [
    "ViT-B is much worse than ResNet18 on my small dataset.",
    "the ViT gets lower accuracy than the ResNet on 5k images",
    "the CNN beats my vision transformer",
])
def test_a_transformer_doing_worse_is_still_a_concern(text: str) -> None:
    assert _read(text).get("concern") == "architecture_choice"
