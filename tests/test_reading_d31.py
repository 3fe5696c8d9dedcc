"""Readings of d31: the training's random augmentation said to reach the validation data (eval_augmented), and
the cause it evidences (DT-PREP-02), both ways: the slip read and routed, the right pipeline and its near misses not."""

from __future__ import annotations

import pytest

from expert.consultation import Consultation
from tests.reading import assert_reads, declined, finding_ids


@pytest.mark.parametrize("text", [
    "the validation images get augmented too",
    "augmentation is also applied to my val set",
    "val accuracy is measured on augmented images",
    "my validation data is being augmented too, the random transforms end up there as well",
    # (the random transforms named instead of the word)
    "the validation images get random crop/flip too",
    "the dataset with augmentation is split into train and validation so the validation samples are augmented too",
])
def test_augmentation_said_of_the_validation_data_is_read(text: str) -> None:
    assert_reads(text, {"eval_augmented": True})


@pytest.mark.parametrize("text", [
    # the right pipeline, and the augmentation said of training
    "I augment the training set only and keep the validation set clean",
    "I use random crop and flip for training images and center crop for validation images",
    "we augment the training data too and the test set is the same as before",
    "validation accuracy is higher than training accuracy because of augmentation",
    # said not to happen, or asked about
    "the validation set is not augmented",
    "should I apply augmentation to the validation set too?",
    # an augmentation beside a held-out symptom, applied to nothing held out
    "val loss rises even with heavy augmentation on the training images",
    # test-time augmentation is meant; augmented copies across the split are a leak, read as such
    "I also augment the test images at inference with flips (TTA) and average the predictions",
    "test-time augmentation: the test images are also augmented with random flips and averaged",
])
def test_near_misses_do_not_read_augmented_validation(text: str) -> None:
    assert_reads(text, {"eval_augmented": None})


def test_augmented_copies_split_across_train_and_val_stay_a_leak() -> None:
    text = ("I augmented the whole dataset and then split it, so augmented copies of validation images are also in "
            "training")
    assert_reads(text, {"eval_augmented": None, "val_in_train": True})


def test_augmented_validation_routes_the_augmentation_skill_first() -> None:
    text = ("In the CIFAR demo the validation images get random crop/flip too: the training transform is set on the "
            "dataset before it is split into train and validation.")
    decision, _ = declined(text)
    assert "DT-PREP-02" in finding_ids(text)
    assert decision.plan and decision.plan[0] == "data-augmentation-strategies"


def test_the_observation_alone_evidences_the_cause() -> None:
    c = Consultation()
    c.complain("my validation accuracy looks strange")
    c.observe(eval_augmented=True)
    d = c.run()
    while d.question is not None:
        c.decline(d.question.id)
        d = c.run()
    assert "DT-PREP-02" in {f["id"] for f in d.findings}


def test_a_clean_validation_pipeline_evidences_nothing() -> None:
    assert "DT-PREP-02" not in finding_ids("I augment the training set only and keep the validation set clean, "
                                           "but validation accuracy is stuck at 60%")


def test_an_evaluation_that_varies_leads_to_the_evaluation_loop_even_with_the_transform_named() -> None:
    # (the varying score of one model is the complaint: the evaluation path first, the transform checked there)
    text = ("my validation results change every time I run evaluation on the same model, I apply the random "
            "augmentations to the val set as well")
    decision, _ = declined(text)
    assert "DT-PREP-02" not in {f["id"] for f in decision.findings}
    assert decision.plan[0] == "training-loop-architecture"
