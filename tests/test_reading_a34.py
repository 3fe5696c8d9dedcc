"""Readings of predictions, classes and metrics (issue 19): constant answers said through ids or rate pairs, class
balance said with negation or counts, and an accuracy said beside the number of classes.

Each kind of sentence is checked both ways: read where the sentence states the fact, silent (or the other value) on
near misses (changes, negations, counts of other things, perfect scores, training-only figures).
"""

from __future__ import annotations

import pytest

import expert  # noqa: F401  (before experta: the compatibility shims)
from tests.reading import assert_reads

_CONSTANT = {"predictions_constant": True}
_NOT_CONSTANT = {"predictions_constant": None}


@pytest.mark.parametrize("text", [
    # one class id given to every input
    "predicts 1 for all samples",
    "my model predicted 3 for every image in the test set",
    "the net outputs class 0 for each input",
    "torch.argmax(out, 1) gives 2 for every image",
    "it predicts positive for every sample",
    "predicts 'cat' for every image",
    # the predictions' one value
    "argmax is always 3",
    "all predictions are 1",
    "the preds are always class 0",
    "all of the predicted labels are 4 after training",
    "the model keeps predicting class 0",
    # the accuracy equal to the largest class's share
    "accuracy is exactly the proportion of negatives",
    "val acc = the majority class ratio, 0.93",
    "my accuracy matches the share of class 0 in the test set",
    # one side of a binary task never given
    "99.5% accuracy but it never flags a single fraud",
    "there are zero positive predictions on the val set",
])
def test_constant_answer_said_with_its_class(text: str) -> None:
    assert_reads(text, _CONSTANT)


@pytest.mark.parametrize("text", [
    "it does not predict 1 for all samples",        # denied
    "the model didnt predict 1 for everything",
    "the model outputs 1 for every epoch",
    "my hook returns 0 for all parameters",
    "the check returns true for all files",           # counts epochs, not inputs
    "return 0 for every batch where the loss is nan",
    "I predict all the outputs of layer 1",
    "the model predicts 5 epochs ahead",
    "I use argmax to get the predictions",
    "my labels are 0 for all negatives",
    "accuracy is not the same as the proportion of positives",
    "accuracy is way above the majority class baseline",
])
def test_no_constant_answer_in_near_misses(text: str) -> None:
    assert_reads(text, _NOT_CONSTANT)


@pytest.mark.parametrize("text", [
    "recall 1.0 and precision 0.5",
    "recall is 100% but precision is 50%",
    "precision 0.5, recall 1",
    "sensitivity 100%, ppv 3%",
    "recall for class 0 is 1.0 and 0.0 for class 1",
    "per class recall: 1.0, 0.0, 0.0",
])
def test_rate_pair_of_one_answer_for_all(text: str) -> None:
    assert_reads(text, _CONSTANT)


@pytest.mark.parametrize("text", [
    "recall went from 0.5 to 0.9",                    # a change
    "recall went from 0.5 to 1.0 and precision 0.4",
    "precision 0.9 recall 0.85",                      # an ordinary pair
    "recall 1.0 precision 1.0",                       # perfect, not constant
    "recall is not 1.0, precision 0.5",               # denied
    "recall@5 is 1.0 and precision 0.2",              # a ranking metric at k
    "recall 0.98 precision 0.97 after epoch 1",
])
def test_rate_pairs_that_say_no_constant_answer(text: str) -> None:
    assert_reads(text, _NOT_CONSTANT)


@pytest.mark.parametrize("text, value", [
    ("the classes are not balanced", True),
    ("classes aren't balanced", True),
    ("my data isnt balanced at all", True),
    ("not a balanced dataset", True),
    ("unbalanced dataset", True),
    ("inbalanced dataset", True),                      # the usual slips
    ("unbalaced classes", True),
    ("the classes are balanced", False),
    ("roughly balanced classes", False),
    ("the dataset is not imbalanced", False),          # an imbalance denied
    ("the labels aren't skewed", False),
    ("2600 of class 0 and 2400 class 1", None),        # counts of about one size: no imbalance
    ("500 class 0 and 4500 class 1", True),            # one count a small share
    ("the classes are not perfectly balanced", None),  # short of perfect: no statement either way
    ("the data is not inbalanced", None),
    ("is my dataset balanced?", None),
])
def test_class_balance_said(text: str, value: bool | None) -> None:
    assert_reads(text, {"class_imbalance": value})


@pytest.mark.parametrize("text, value", [
    ("2600 of class 0 and 2400 class 1", None),  # a class's id after its count is no number of classes
    ("we have 300 class b and 3000 class a", None),
    ("10 classes", 10),
    ("num_classes=10", 10),
    ("10 class classification", 10),
    ("f1 stuck at 0.33 on 3 classes", 3),
    ("the head has 3 outputs, smaller than the number of classes (4)", 4),  # the count in brackets
    ("my labels have 7 different values", 7),                               # distinct label values
    ("the targets take 12 unique values", 12),
    ("my labels have 7 missing values", None),
])
def test_class_ids_are_not_class_counts(text: str, value: int | None) -> None:
    assert_reads(text, {"num_classes": value})


@pytest.mark.parametrize("text, ratio", [
    ("accuracy at 10% on cifar10", 1.0),
    ("accuracy stuck at 10% on cifar10", 1.0),
    ("val acc 50% on a binary task", 1.0),
    ("my classifier accuracy stays at chance, 5 classes", 1.0),
    ("val accuracy 85% on cifar10", 8.5),
    ("accuracy 0.1 with 10 classes", 1.0),
    ("training accuracy stuck at 10% on cifar10", None),  # a training figure says nothing of chance on unseen data
    ("accuracy went from 10% to 60% on cifar10", None),   # a change
    ("accuracy is well above chance on cifar10", None),
    ("top-5 accuracy of 90% on cifar100", None),          # top-5 chance is not 1/num_classes
    ("f1 stuck at 0.33 on 3 classes", None),              # an F1 is no accuracy
])
def test_accuracy_against_chance(text: str, ratio: float | None) -> None:
    assert_reads(text, {"val_acc_over_chance": ratio})


@pytest.mark.parametrize("text, kind", [
    ("top-1 58%", "accuracy"),
    ("top1 acc = 0.71 on imagenet-1k", "accuracy"),
    ("top-5 accuracy of 90%", "accuracy"),
    ("mAP 0.2", None),  # a detection metric: no accuracy (the vocabulary has no kind for it)
])
def test_top_k_is_an_accuracy(text: str, kind: str | None) -> None:
    assert_reads(text, {"metric_kind": kind})
