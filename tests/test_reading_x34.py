"""Readings fixed after review (x34): figures given to the run only when they are its own present level.

Each kind of sentence is checked both ways: silent on the near miss the review found (a training split's accuracy,
an epoch count, another's run, a decimal or a count of right answers said per class, a healthy classifier's rates,
a paper's figures, mixed splits, a question about a leak, an order of augmentations, another's curve after the
user's), and still read where the sentence states the fact.
"""

from __future__ import annotations

import pytest

import expert  # noqa: F401  (before experta: the compatibility shims)
from tests.reading import assert_reads


@pytest.mark.parametrize(
    "text",
    [
        "training-set accuracy is 10% on cifar10",
        "training set accuracy is 10% on cifar10",
        "train set accuracy is 10% on cifar10",
        "accuracy at 90 epochs is 10%, 10 classes",
        "I have 10 classes and accuracy 1 epoch in is 0.3",
        "my colleague's accuracy is 10% on cifar10, mine is 90%",
        "in the paper the accuracy is 10% on cifar10",
    ],
)
def test_accuracy_not_the_runs_level(text: str) -> None:
    assert_reads(text, {"val_acc_over_chance": None})


@pytest.mark.parametrize(
    ("text", "ratio"),
    [
        ("accuracy stuck at 10% on cifar10", 1.0),
        ("accuracy is 50%, 10 classes", 5.0),
        ("after training the accuracy is 10% on cifar10", 1.0),
    ],
)
def test_accuracy_level_read(text: str, ratio: float) -> None:
    assert_reads(text, {"val_acc_over_chance": ratio})


@pytest.mark.parametrize(
    "text",
    [
        "precision 0.95 of class 0 and 0.05 of class 1",
        "recall 0.9 of class 1 vs 0.2 of class 0",
        "only 5 of class 1 are predicted correctly, 480 of class 0",
        "30 of class 1 are misclassified and 900 of class 0",
    ],
)
def test_class_counts_not_sizes(text: str) -> None:
    assert_reads(text, {"class_imbalance": None})


@pytest.mark.parametrize(
    "text",
    [
        "2600 of class 0 and 40 of class 1",
        "I have 4,800 of class 0 and 120 of class 1",
    ],
)
def test_class_counts_read(text: str) -> None:
    assert_reads(text, {"class_imbalance": True})


@pytest.mark.parametrize(
    "text",
    [
        "my recall is 0.99 and precision 0.98",
        "recall 1 and precision 0.97 on a balanced dataset",
        "In the paper, recall is 1.0 and precision 0.5",
        "my colleague gets recall 1.0 and precision 0.5",
        "recall of 100% on the training set, precision 0.3 on val",
        "I want recall 1.0 and precision 0.5",
    ],
)
def test_rates_not_constant(text: str) -> None:
    assert_reads(text, {"predictions_constant": None})


@pytest.mark.parametrize(
    "text",
    [
        "recall 1.0 and precision 0.5",
        "my recall is 100% but precision only 0.3 on the val set",
        "precision 0.9, recall 1.0",
    ],
)
def test_rates_constant(text: str) -> None:
    assert_reads(text, {"predictions_constant": True})


@pytest.mark.parametrize(
    "text",
    [
        "does the same image appear in both train and val?",
        "how do I check whether the same images appear in both train and val",
        "is it possible that the same images are in both train and val",
    ],
)
def test_leak_asked(text: str) -> None:
    assert_reads(text, {"val_in_train": None})


@pytest.mark.parametrize(
    "text",
    [
        "the same images appear in both train and val",
        "the same patients appear in train and validation",
        "some images are in both the training and test sets",
    ],
)
def test_leak_stated(text: str) -> None:
    assert_reads(text, {"val_in_train": True})


def test_augmentation_order_not_data_order() -> None:
    assert_reads("I use the same order of augmentations each epoch and accuracy is fine", {"epoch_data_order": None})


@pytest.mark.parametrize(
    "text",
    [
        "the data order is the same every epoch",
        "the sampler yields the same sequence of samples every epoch, so the loss curve repeats itself",
    ],
)
def test_data_order_read(text: str) -> None:
    assert_reads(text, {"epoch_data_order": "repeated"})


@pytest.mark.parametrize(
    "text",
    [
        "mine goes down but their loss is flat",
        "my loss goes down, but theirs is flat",
        "my loss goes down but their loss is flat",
    ],
)
def test_their_curve_after_mine(text: str) -> None:
    assert_reads(text, {"loss_behavior": None})


def test_own_curve_plateau_read() -> None:
    assert_reads("my loss goes down but then it is flat", {"loss_behavior": "plateau_after_learning"})


def test_their_without_contrast_is_own() -> None:
    # "their" pointing back at the user's own things (no contrast with another's run)
    assert_reads("the modules of my model don't learn at all; their weights never change", {"update_ratio": 0.0})
