"""Changes, times and comparisons read as parts of a sentence (issue 19): a slowdown said by how much longer a step
takes, a speed that fell when devices were added, a jump after a resume said with an arrow, the trouble a change was
made against (a purpose or a reason) kept apart from the symptom said after it, a setting's number repeated by the
user with the setting left out, and a comparative slipped before its "than". Each reading is checked where it must
fire and where a negation, a question, another person's value or a near miss must keep it silent; the sentences are
new, not the suite's."""

from __future__ import annotations

import pytest

from expert.talk import comparative_slip
from tests.reading import assert_reads


@pytest.mark.parametrize("text, expected", [
    # a step said to take longer by an amount: the slowdown per step
    ("each iteration takes 40% longer since the upgrade", {"symptom": "slow_training", "slow_kind": "per_step"}),
    ("every step now takes 2x longer", {"symptom": "slow_training", "slow_kind": "per_step"}),
    ("a step takes 3 times longer than before", {"symptom": "slow_training", "slow_kind": "per_step"}),
    ("each iteration takes twice as long since the upgrade", {"symptom": "slow_training", "slow_kind": "per_step"}),
    ("it doesn't take twice as long", {"symptom": None}),
    ("iteration time 0.4 -> 0.55 s", {"symptom": "slow_training", "slow_kind": "per_step"}),
    # a unit written after each number is no side of the change
    ("my step time went 0.3s -> 0.5s", {"symptom": "slow_training", "slow_kind": "per_step"}),
    ("step time 0.5s -> 0.3s", {"symptom": None}),
    # ... not when it is faster, denied or another's
    ("step time 0.55 -> 0.4s", {"symptom": None}),
    ("each step takes 30% less time now", {"symptom": None}),
    ("each step doesn't take 30% longer", {"symptom": None}),
    ("my colleague says each step takes 30% longer on his machine", {"symptom": None}),
])
def test_step_takes_longer(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("scaling to 8 nodes made the throughput drop", {"multi_gpu_speedup": "none", "symptom": "slow_training"}),
    ("it/s went down when I added more GPUs", {"multi_gpu_speedup": "none", "symptom": "slow_training"}),
    # denied, asked, or the model's results (not the devices' speed)
    ("the throughput didn't drop when scaling to 4 nodes", {"multi_gpu_speedup": None}),
    ("with more gpus the model performs worse", {"multi_gpu_speedup": None}),
    ("more gpus perform worse", {"multi_gpu_speedup": None}),  # results or speed: the words do not say
    ("my GPU util drops when I scale to 4 nodes", {"multi_gpu_speedup": None}),
])
def test_speed_falls_with_more_devices(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("resume -> loss spikes back up", {"recent_change": "resume", "loss_behavior": "spiking"}),
    ("resumed from ckpt -> the loss jumps", {"recent_change": "resume", "loss_behavior": "spiking"}),
    ("the loss spikes back up at step 300", {"loss_behavior": "spiking"}),
    # an arrow between values is a change of a setting, no sequence; a return after a fall is no spike's direction
    ("precision fp32 -> bf16", {"recent_change": "precision", "loss_behavior": None}),
    ("lr 1e-3 -> 1e-2, the loss explodes", {"learning_rate": 0.01, "recent_change": "learning_rate"}),
    ("the loss spikes", {"recent_change": None}),
    # a clause with its own subject after the arrow, or an "=" before a movement, is what followed too
    ("resumed -> the global step starts over at 0", {"recent_change": "resume"}),
    ("resume = loss jumps", {"recent_change": "resume"}),
    ("lr = 0.1", {"recent_change": None, "learning_rate": 0.1}),
])
def test_arrow_after_event(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # the trouble a change was made against, then the run's trouble now
    ("I raised weight decay to 0.5 to fight overfitting and now the train loss is flat", {"symptom": "not_learning"}),
    ("because of overfitting I added dropout 0.5, now the loss doesn't go down", {"symptom": "not_learning"}),
    ("to avoid NaNs I lowered the lr and now the loss stays flat", {"symptom": "not_learning"}),
    ("added heavy augmentation to reduce overfitting, now the model learns nothing",
     {"symptom": "not_learning"}),
    # alone, wished or asked: the trouble is still the run's
    ("I added dropout to reduce overfitting", {"symptom": "overfitting"}),
    ("how to prevent overfitting in my resnet", {"symptom": "overfitting"}),
    ("I want to reduce overfitting, the val loss goes up", {"symptom": "overfitting"}),
    ("the loss is flat because of the weight decay", {"symptom": "not_learning"}),
])
def test_purpose_is_no_symptom(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the paper uses batch 4096 and I use 256", {"batch_size": 256}),
    ("the official repo uses lr 1e-3 while we use 3e-4", {"learning_rate": 3e-4}),
    ("the paper uses batch size 2048, mine is 128", {"batch_size": 128}),
    # the other side's number, a count of something else, a denied value: not the user's setting
    ("I use batch 512 and the paper uses 4096", {"batch_size": 512}),
    ("the paper uses batch 4096 and I use 8 GPUs", {"batch_size": None}),
    ("the paper uses batch 4096, I can't use 256", {"batch_size": None}),
    ("the paper uses batch 4096", {"batch_size": None}),
])
def test_elided_setting_is_the_users(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("val loss higer than train", {"symptom": "overfitting", "metric_kind": "loss"}),
    ("validation loss lowr than training loss", {"val_better_than_train": True}),
    ("val accuracy way lwoer than train accuracy", {"symptom": "overfitting", "metric_kind": "accuracy"}),
    # "then" typed for "than" after a comparative, set against a split or another time
    ("val loss lower then train loss", {"val_better_than_train": True}),
    ("val acc higer then train acc", {"val_better_than_train": True}),
    ("training is slower then before", {"symptom": "slow_training"}),
    ("the loss went lower then spiked", {"val_better_than_train": None, "loss_behavior": "spiking"}),
    # denied: neither side said
    ("val loss is not higer than train loss", {"symptom": None}),
    ("val loss is not higher than train loss", {"symptom": None, "val_better_than_train": None}),
])
def test_comparative_slips(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # a plan said as a comparison's standard is no plan still to carry out
    ("kept training longer than planned: extended the run and now the loss rises", {"recent_change": "extended"}),
    ("I plan to extend the run by 10 epochs", {"recent_change": None}),
])
def test_than_planned(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_comparative_slip_needs_a_near_comparative() -> None:
    assert comparative_slip("higer") == "higher"
    assert comparative_slip("lowr") == "lower"
    assert comparative_slip("bettr") == "better"
    # a real word, a short one and a far one stay as typed
    assert comparative_slip("rather") is None
    assert comparative_slip("les") is None
    assert comparative_slip("great") is None
