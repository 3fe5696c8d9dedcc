"""Vision, distributed, data and numerics talk read from everyday phrasings (issue 19, everyday11): held-out
examples found in the training split, every rank logging the same loss, one side of the pipeline said to skip the
normalisation, an evaluation that is not deterministic, losses the user wrote, ids that start from 1 and not
from 0, one answer given to every input, a parameter made trainable after the optimizer was built, and
augmentations named by their randomness or their jitter. Each reading is checked where it must fire and where
another subject, a setting or a question must keep it silent; the sentences are new, not the suite's."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads


@pytest.mark.parametrize("text, expected", [
    ("some of the held-out rows turned out to be duplicates of rows in the training data",
     {"val_in_train": True}),
    ("the same recordings landed in both the train and the test folder", {"val_in_train": True}),
    ("identical documents appear in training and in validation", {"val_in_train": True}),
    # oversampling duplicates training examples on purpose; a distributed sampler pads its own shards
    ("I duplicate the minority class in training by oversampling, validation is untouched", {"val_in_train": None}),
    ("the distributed sampler duplicates a few validation samples so each rank gets as many as the others while "
     "training", {"val_in_train": None}),
    # settings both splits share are no shared examples
    ("I use the same image size for train and val, both 224", {"val_in_train": None}),
    ("train and validation loss are the same at every epoch", {"val_in_train": None}),
])
def test_held_out_examples_said_to_be_in_training(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("every process logs exactly the same loss on each step of my ddp job", {"rank_data": "identical"}),
    ("rank 0 and rank 2 report identical loss values down to the last decimal", {"rank_data": "identical"}),
    # the same loss with another count of GPUs compares runs, not the ranks of one run
    ("the final loss is the same with one gpu and with four", {"rank_data": None}),
    ("the loss curve is the same for every run I start on 2 ranks", {"rank_data": None}),
])
def test_every_rank_logging_the_same_loss_is_the_same_data(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the training transforms normalize the pixels while my inference script does not normalize them",
     {"preprocessing_mismatch": True}),
    ("I normalized everything in training but at test time the images go in raw", {"preprocessing_mismatch": True}),
    # the targets' scale is the loss's concern
    ("I normalize the inputs in training but the predictions of the raw target look off",
     {"preprocessing_mismatch": None}),
    ("should I normalize the validation images the same way as in training?", {"preprocessing_mismatch": None}),
])
def test_one_side_said_to_skip_the_normalisation(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("evaluating one checkpoint is not deterministic, the score moves between calls", {"nondeterminism": "evaluation"}),
    ("I evaluated the stored weights four times and got four different accuracies",
     {"nondeterminism": "evaluation"}),
    # training runs that differ under one seed are the runs', not the evaluation's
    ("training with the same seed is not deterministic, and I evaluate on the test set at the end",
     {"nondeterminism": "training_runs"}),
])
def test_an_evaluation_that_does_not_repeat(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("I wrote a weighted iou loss and it returns nan after a while", {"custom_loss": True}),
    ("the loss that we coded ourselves gives inf on empty masks", {"custom_loss": True}),
    ("custom bce + dice loss goes to nan on some batches", {"custom_loss": True}),
    ("implemented our own focal variant, now the loss is nan", {"custom_loss": True}),
    # a loop or a script the user wrote is no loss of theirs
    ("I wrote my own training loop and the loss is nan", {"custom_loss": None}),
    ("wrote a data script, the loss from nn.CrossEntropyLoss is fine", {"custom_loss": None}),
])
def test_a_loss_the_user_says_they_wrote(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the class ids in my csv begin at 1, not at 0", {"label_check": "not_zero_based"}),
    # one answer given to all, beside a loss that does not go down, counts no ids from one
    ("it outputs one class for every input and the loss does not go down",
     {"label_check": None, "predictions_constant": True}),
    ("the model assigns a single label to all samples", {"predictions_constant": True}),
    # one label per example is the data's format
    ("each image has one label and all images are in one folder", {"predictions_constant": None}),
])
def test_ids_from_one_and_one_answer_for_all(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("I flip requires_grad=True on the decoder later on but it still does not update, the optimizer got only the "
     "head", {"optimizer_params": "missing"}),
    ("requires_grad=False on the backbone, the optimizer has everything else", {"optimizer_params": None}),
])
def test_a_parameter_made_trainable_after_the_optimizer(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("I keep random crop and color jitter in the val transforms", {"loss_behavior": None, "symptom": None}),
    ("with random flip on, the val accuracy is lower", {"symptom": None}),
    ("I evaluate one model three times and get three different accuracies, random transforms are still on for val",
     {"symptom": None, "nondeterminism": "evaluation"}),
    # augmentation named by its randomness is still a topic a question can ask about
    ("did you train with random augmentation for the numbers in the paper?", {"question_topic": "augmentation"}),
    # an accuracy said to be random is still at chance
    ("val accuracy looks random after 10 epochs", {"symptom": "not_learning"}),
    ("the training loss jitters a lot", {"loss_behavior": "oscillating"}),
])
def test_augmentations_named_by_randomness_or_jitter(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the target y is not standardized, it runs from 200 to 90000 kWh",
     {"targets_unscaled": True, "task": "regression"}),
    # class labels kept as raw strings are no targets with units
    ("my raw class labels are strings like 'cat', I map them to ids", {"targets_unscaled": None, "task": None}),
])
def test_targets_left_in_their_units_are_a_regression(text: str, expected: dict) -> None:
    assert_reads(text, expected)
