"""Everyday words for training trouble (issue 19, vocabulary): guessing, coin flips, a curve that takes off, times
said loosely ("mid-training", "from the get-go"), a long tail of classes, a missing monitored metric, an optimizer
switch made for memory, inference latency, micro-batch logging and preference methods weighed. Each sentence is
invented here; the false-alarm guards are sentences that use the same words for something else."""

from __future__ import annotations

import pytest

from expert.text import parse_complaint


def obs(text: str) -> dict:
    return {o.name: o.value for o in parse_complaint(text)}


def assert_reads(text: str, expected: dict) -> None:
    """The text reads each expected name as its value (None: not read at all); other readings may come too."""
    got = obs(text)
    assert {k: got.get(k) for k in expected} == expected, got


@pytest.mark.parametrize("text, expected", [
    # a model said to guess is at chance: it does not learn
    ("honestly my resnet is just guessing on the test images", {"symptom": "not_learning"}),
    ("the sentiment model performs like a coin toss", {"symptom": "not_learning"}),
    ("after ten epochs it is basically flipping a coin", {"symptom": "not_learning"}),
    ("the detector seems to guess randomly between the two classes", {"symptom": "not_learning"}),
    ("accuracy is at coin-flip level on held-out data", {"symptom": "not_learning", "metric_kind": "accuracy"}),
    # a curve that takes off goes up
    ("validation loss takes off around epoch 7 while the training loss keeps shrinking",
     {"symptom": "overfitting", "val_loss_rising": True}),
    # times said loosely
    ("half precision run: the loss turned NaN mid-training",
     {"loss_behavior": "nan_or_inf", "nan_onset": "after_steps"}),
    ("the loss became nan partway through the second epoch",
     {"loss_behavior": "nan_or_inf", "nan_onset": "after_steps"}),
    ("nan loss from the get-go, before the optimizer did anything",
     {"loss_behavior": "nan_or_inf", "nan_onset": "immediate"}),
    ("my loss has been inf straight away", {"loss_behavior": "nan_or_inf", "nan_onset": "immediate"}),
    # a long tail of classes is an imbalance
    ("a long-tailed species dataset where rare species are almost never predicted", {"class_imbalance": True}),
    ("the tail classes get zero recall", {"class_imbalance": True}),
    # the monitored metric missing where early stopping or checkpointing looks for it
    ("my EarlyStopping says the monitored metric val_mae is not available", {"monitor_mode": "unavailable"}),
    ("ModelCheckpoint warns the monitor key is missing from the logged metrics", {"monitor_mode": "unavailable"}),
    ("the callback cannot find val_dice when it runs", {"monitor_mode": "unavailable"}),
    # an optimizer switch weighed for its memory
    ("thinking of moving to adafactor because adam's states do not fit in memory", {"switch_reason": "memory"}),
    ("would sophia help save memory compared with adamw?", {"switch_reason": "memory"}),
    # inference speed, not the training run's
    ("the exported model has 300 ms latency per request", {"concern": "inference_speed"}),
    ("our serving endpoint is too slow, how to speed up inference", {"concern": "inference_speed"}),
    ("in production the classifier is much slower than on my laptop", {"concern": "inference_speed"}),
    # micro-batches logged as steps
    ("with accumulation 4 my wandb plot counts every micro-batch as a step", {"step_axis": "per_micro_batch"}),
    # preference methods weighed against each other
    ("choosing between ORPO and DPO for a 7B chat model, which should I use?",
     {"symptom": "direct_question", "question_topic": "preference_method"}),
    ("is SimPO better than DPO when I only have 5k pairs?",
     {"symptom": "direct_question", "question_topic": "preference_method"}),
    ("is KTO good enough if my feedback is thumbs up / thumbs down only?",
     {"symptom": "direct_question", "question_topic": "preference_method"}),
])
def test_everyday_words(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, absent", [
    # "guess" as a hedge or about a setting is no claim that the model guesses
    ("I guess the lr is too high since the loss explodes", "predictions_constant"),
    ("we are guessing the weight decay, which value is best?", "symptom"),
    # latency and speed said of the training or its data, not of serving
    ("data loading latency is high and the gpu waits", "concern"),
    ("the model is slow to converge, should I deploy it anyway?", "concern"),
    ("the dataloader latency went up after moving the data to a network disk", "concern"),
    # memory growing with a newer optimizer is the run's memory, not a reason to switch
    ("I use the lion optimizer and memory keeps growing until OOM", "switch_reason"),
    # micro-batches sized for memory say nothing about how steps are logged
    ("micro batches of 4 with accumulation 8 still run out of memory", "step_axis"),
    # a callback that cannot find a file is a path, not a metric
    ("the checkpoint callback can't find the directory I gave it", "monitor_mode"),
    # a tail of a curve is no class imbalance
    ("the tail of the loss curve is flat", "class_imbalance"),
])
def test_everyday_words_no_false_reading(text: str, absent: str) -> None:
    got = obs(text)
    assert absent not in got or (absent == "symptom" and got[absent] != "not_learning"), got
