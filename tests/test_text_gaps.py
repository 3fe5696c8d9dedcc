"""Readings of training talk added for situations several real threads share (not for one complaint's words)."""

from __future__ import annotations

import pytest

from expert import Consultation
from expert.text import parse_complaint


@pytest.mark.parametrize("text", [
    "print_trainable_parameters says trainable params: 0 and the loss never moves",
    "trainable params: 0 || all params: 6738415616 || trainable%: 0.0",
    "the model has 0 trainable parameters after loading the adapter",
    "there are no trainable parameters left",
    "trainable params = 0",
])
def test_zero_trainable_parameters_means_everything_frozen(text: str) -> None:
    assert {o.name: o.value for o in parse_complaint(text)}.get("frozen_fraction") == 1.0


@pytest.mark.parametrize("text", [
    "trainable params: 4,194,304 || all params: 6,742,609,920",
    "trainable params: 0.06% of the model",
    "trainable params: 0.5M",
    "I froze the backbone, the head has 10 trainable params",
])
def test_a_real_trainable_count_is_not_frozen(text: str) -> None:
    assert "frozen_fraction" not in {o.name for o in parse_complaint(text)}


def test_nothing_trainable_leads_to_the_loop_not_the_lr() -> None:
    c = Consultation()
    c.complain("LoRA fine-tune: trainable params: 0 and the model learns nothing")
    d = c.run()
    while d.question is not None:
        c.decline(d.question.id)
        d = c.run()
    assert d.plan[0] == "training-loop-architecture"
