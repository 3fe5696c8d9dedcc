"""Frames of the reader that fired on words without the defect they name, and the forms that must still fire."""

from __future__ import annotations

from typing import Any

import pytest

from expert.text import read_text


def _read(text: str) -> dict[str, Any]:
    """Every reading, firm or guessed (a guess reaches the rules as well)."""
    return {r.observation.name: r.observation.value for r in read_text(text)}


@pytest.mark.parametrize("text, name, value", [
    # a partial multi-GPU speedup needs more than one device
    ("4 GPUs only give a 1.5x speedup", "multi_gpu_speedup", "partial"),
    ("8 GPUs are only about 2x faster", "multi_gpu_speedup", "partial"),
    ("with DDP on 4 cards training is only slightly faster", "multi_gpu_speedup", "partial"),
    # class ids in folder order, said to mismatch
    ("ImageFolder sorted my numeric folders as strings, so class 10 comes before class 2", "label_check",
     "class_order"),
    ("the classes are assigned by folder order, not by folder name", "label_check", "class_order"),
    ("at evaluation the class index follows a different folder order", "label_check", "class_order"),
    # hardware without bf16
    ("my V100 doesn't support bf16", "bf16_supported", False),
    ("bf16 isn't supported on the T4", "bf16_supported", False),
    ("my card lacks bf16 support", "bf16_supported", False),
    # a step counter that moves by more than one per batch
    ("global_step moves by 2 per batch", "step_counter_multi", True),
    ("the step count increases twice per iteration on two gpus", "step_counter_multi", True),
    # the user's own scoring disagreeing with the trainer's
    ("the training log says 60% test accuracy, but when I run the model myself only 27 of 7000 are right",
     "symptom", "metrics_wrong"),
    # a preference-tuning run
    ("my DPO run: the loss is flat", "task", "preference_tuning"),
    ("rm training diverges", "task", "preference_tuning"),
])
def test_the_defect_said_is_read(text: str, name: str, value: Any) -> None:
    assert _read(text).get(name) == value


@pytest.mark.parametrize("text, name, value", [
    ("my GPU is only slightly faster than my CPU", "multi_gpu_speedup", "partial"),
    ("the labels come from the folder order, as ImageFolder does, and the loss is flat", "label_check",
     "class_order"),
    ("bf16 isn't available in my tensorboard logs", "bf16_supported", False),
    ("I lack a good understanding of bf16 support", "bf16_supported", False),
    ("global_step moves by 1 per batch, two gpus", "step_counter_multi", True),
    ("I wrote my own evaluation script, the accuracy printed is 90%", "symptom", "metrics_wrong"),
    ("I read the DPO paper, my classifier loss is flat", "task", "preference_tuning"),
    ("I tried the rm accuracy metric", "task", "preference_tuning"),
])
def test_words_without_the_defect_are_not_read_as_it(text: str, name: str, value: Any) -> None:
    assert _read(text).get(name) != value
