"""Grammar of training talk (issue 19): constructions, not words.

Two runs set side by side, one healthy and one in trouble; a switch of optimizer only weighed, with the reason for
it; hypotheses asked about. Every sentence here was invented for these tests.
"""

from __future__ import annotations

import pytest

from expert.text import confirmations, offered
from tests.reading import assert_reads, obs


# -- two runs side by side: the troubled one is the run, what they differ in is what set it off ----------------
@pytest.mark.parametrize("text, expected", [
    # an elided setting: the bare number in the healthy half is the same setting
    ("with bs 512 it blows up, with 32 it's fine", {"batch_size": 512, "recent_change": "batch_size"}),
    ("with 32 it trains fine but with a batch of 512 the loss diverges",
     {"batch_size": 512, "recent_change": "batch_size"}),
    ("batch size 2048 gives nan, at 128 everything is ok", {"batch_size": 2048, "recent_change": "batch_size"}),
    # a comparative instead of a number
    ("a batch of 4096 diverges, smaller batches are fine", {"batch_size": 4096, "recent_change": "batch_size"}),
    # the learning rate: a lower one trained stably
    ("with lr 3e-2 the loss explodes, with 3e-4 it trains fine",
     {"learning_rate": 0.03, "lower_lr_stable": True, "recent_change": None}),
    ("lr 0.5 gives nan while a lower lr is stable", {"learning_rate": 0.5, "lower_lr_stable": True}),
    # precision: the healthy format is the baseline, not the run's
    ("fp32 ok, fp16 nan", {"mixed_precision": "fp16", "recent_change": "precision"}),
    ("bf16 fine, fp16 gives nan after a while", {"mixed_precision": "fp16", "recent_change": "precision"}),
    # a move to bf16 is a precision change too (DF-CHG-PREC-BF16 tells its lost mantissa from fp16's overflow)
    ("fp32 works, bf16 diverges", {"mixed_precision": "bf16", "recent_change": "precision"}),
    # the device count
    ("on 1 GPU fine, on 8 it diverges", {"multi_gpu": True, "world_size_changed": True,
                                         "recent_change": "gpu_count"}),
    ("on a single gpu it converges, with 4 gpus the loss blows up",
     {"multi_gpu": True, "recent_change": "gpu_count"}),
])
def test_contrasted_runs(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, absent", [
    # one run only: nothing is contrasted
    ("with bs 512 the loss diverges", ("recent_change",)),
    # both halves healthy, or both in trouble: no baseline to set against
    ("with bs 512 it's fine, with 32 it's fine too", ("recent_change",)),
    ("with bs 512 it diverges, with 32 it diverges too", ("recent_change",)),
    # the number in the healthy half is another quantity's (a step, workers): no elided batch size
    ("at step 500 it was fine, then with a batch of 512 the loss went nan", ("recent_change",)),
    ("with 4 workers it is fine, with a batch of 512 it diverges", ("recent_change",)),
    # "fine-tuning" is no judgement
    ("fine-tuning with bs 64, with bs 512 it diverges", ("recent_change",)),
    # a healthy loss beside a setting is no contrast of runs
    ("the loss looks fine, the val accuracy is low with batch size 64", ("recent_change",)),
])
def test_no_contrast_without_two_runs(text: str, absent: tuple[str, ...]) -> None:
    got = obs(text)
    assert not set(absent) & set(got), got


def test_contrast_keeps_the_troubled_setting_and_asks_to_confirm() -> None:
    got = obs("with batch size 64 it was fine, with batch size 1024 it is unstable")
    assert got["batch_size"] == 1024
    assert any("batch size changed" in q for q in confirmations(
        "with batch size 64 it was fine, with batch size 1024 it is unstable"))


# -- a switch weighed, not made -----------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("I'd like to switch from AdamW to Lion to save memory", {"considering": "lion", "optimizer": "adamw",
                                                               "switch_reason": "memory"}),
    ("should I replace Adam with SGD?", {"considering": "sgd", "optimizer": "adam"}),
    ("would it be better to go from sgd to adamw?", {"considering": "adamw", "optimizer": "sgd"}),
    ("is Lion a decent replacement for AdamW if VRAM is the bottleneck?",
     {"considering": "lion", "optimizer": "adamw", "switch_reason": "memory"}),
    ("thinking of Lion instead of AdamW because AdamW needs too much memory",
     {"considering": "lion", "optimizer": "adamw", "switch_reason": "memory"}),
    ("planning to try Lion to avoid all the retuning", {"considering": "lion", "switch_reason": "tuning_cost"}),
    ("can I just use lion? adam spikes too much and I want less instability",
     {"considering": "lion", "switch_reason": "instability"}),
])
def test_weighed_switch(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # a switch made: the new optimizer is the run's, nothing is weighed
    ("I switched from adam to sgd and now the loss diverges", {"optimizer": "sgd", "considering": None}),
    # a reason noun with no marker is no reason for a switch ("memory" here is a symptom)
    ("should I switch to lion? memory grows every step", {"considering": "lion", "switch_reason": None}),
    # no switch weighed: a reason phrase alone says nothing of one
    ("I use adam and want to save memory", {"switch_reason": None}),
])
def test_switch_not_weighed(text: str, expected: dict) -> None:
    assert_reads(text, expected)


# -- a setting suspected: the user's hypothesis, checked rather than routed on ---------------------------------
@pytest.mark.parametrize("text, suspect", [
    ("the loss blows up after 2 epochs, could it be the lr?", "learning rate"),
    ("val loss goes nan at some point. is it my scheduler?", "lr schedule"),
    ("loss is flat from the start. could the batch size be too small?", "batch size"),
    ("the loss oscillates a lot, I suspect the optimizer", "optimizer"),
    ("the lr might be the culprit, the loss spikes every few hundred steps", "learning rate"),
])
def test_a_suspicion_beside_a_symptom_is_read_as_one(text: str, suspect: str) -> None:
    got = obs(text)
    assert got.get("self_diagnosis") == suspect, got
    assert "symptom" in got, got  # the trouble said beside it is still read
    assert any(suspect in q for q in confirmations(text))


@pytest.mark.parametrize("text, suspect", [
    ("is my lr too high?", "learning rate"),
    ("could it be my scheduler?", "lr schedule"),
])
def test_a_suspicion_alone_is_offered_not_read(text: str, suspect: str) -> None:
    # alone it would hold every route: offered to confirm (a `yes` records it), never silently dropped
    assert "self_diagnosis" not in obs(text)
    assert [o.value for o in offered(text) if o.name == "self_diagnosis"] == [suspect]
    assert any(suspect in q for q in confirmations(text))


@pytest.mark.parametrize("text", [
    "which lr should I use for adamw?",            # a choice asked about
    "is a scheduler necessary for fine-tuning?",   # a choice word
    "can the lr be 1e-3 with adamw?",              # a value asked about
    "the loss diverges. it's not the lr, I tried 1e-6 already",  # a suspicion denied
    "the loss diverges with lr 1e-2",              # a setting stated
])
def test_no_suspicion_without_its_frame(text: str) -> None:
    assert "self_diagnosis" not in obs(text)
    assert not [o for o in offered(text) if o.name == "self_diagnosis"]


# -- a range of targets a bounded output cannot reach ------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "the head ends in a sigmoid and my targets are rents between 300 and 4000 euros",
    "tanh on the last layer, the labels range from -5 to 5",
    "sigmoid output, I predict scores (0-10) and everything comes out as 1",
    "final activation is sigmoid; targets are grey values 0..255",
    "my y goes up to 800 and the model output passes through torch.sigmoid",
])
def test_targets_a_bounded_output_cannot_reach(text: str) -> None:
    assert obs(text).get("target_range") == "outside_activation", obs(text)


@pytest.mark.parametrize("text", [
    "sigmoid output and the labels are 0 or 1, the loss sits at 0.69",   # inside [0, 1]
    "tanh at the end, targets scaled to -1 to 1",                        # inside [-1, 1]
    "tanh in the hidden layers, the targets are between 0 and 500",      # a hidden activation, not the output's
    "sigmoid output, 10 classes, label 3 is predicted for everything",   # one number alone is no range
    "the targets are between 0 and 500 and the loss is huge",            # no bounded output said
    "sigmoid at the output, targets in [0, 1], the model outputs 0 to 40 before the sigmoid",  # the output's range
])
def test_no_out_of_reach_targets_without_both(text: str) -> None:
    assert "target_range" not in obs(text), obs(text)


# -- a step or batch count said as a time is when something moved, not what moved ---------------------------------
@pytest.mark.parametrize("text, expected", [
    ("the numbers go crazy after a few hundred steps", {"symptom": "unstable"}),
    ("everything goes haywire after about 300 iterations", {"symptom": "unstable"}),
    ("it blows up within the first 2k iterations", {"symptom": "unstable"}),
    ("it hangs after a couple of thousand batches", {"symptom": "hang"}),
    # the steps' own time still moves when the steps are the subject
    ("the step time goes up after a few hundred steps", {"symptom": "slow_training"}),
])
def test_counted_times(text: str, expected: dict) -> None:
    assert_reads(text, expected)


# -- degree and polarity words inside a phrase; a judgement said as an adverb --------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("the network isn't getting any better however long it trains", {"symptom": "not_learning"}),
    ("my loss won't go down very much", {"symptom": "not_learning"}),
    ("train accuracy looks great but it does badly on unseen data", {"symptom": "overfitting"}),
    ("it does great on the training set and horribly on the test set", {"symptom": "overfitting"}),
])
def test_fillers_and_adverbs(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_an_adverb_of_degree_is_no_judgement() -> None:
    # "greatly" and "perfectly" say how much: no judgement of the data is read from them
    assert obs("the val accuracy greatly exceeds the training accuracy").get("symptom") != "overfitting"


# -- an accuracy quoted at chance, whatever split -------------------------------------------------------------------
@pytest.mark.parametrize("text, learning", [
    ("acc 20% with 5 classes, basically guessing", False),
    ("accuracy is about 0.1 on my 10 classes", False),
    ("accuracy 85% with 10 classes, I want more", True),
])
def test_accuracy_quoted_at_chance(text: str, learning: bool) -> None:
    got = obs(text)
    assert (got.get("symptom") == "not_learning") is not learning, got


# -- ranks compared by how much work they have ---------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "the job freezes at epoch end; one worker process has fewer samples than the rest",
    "rank 2 has 811 batches and rank 3 has 809, then everything stalls",
    "the slowest rank still has 5 more steps to go when the others are done",
    "one gpu runs out of batches earlier than the others and the others wait forever",
])
def test_uneven_ranks(text: str) -> None:
    assert obs(text).get("rank_batch_counts") == "uneven", obs(text)


@pytest.mark.parametrize("text", [
    "with 8 gpus an epoch has fewer steps than on 1 gpu",          # runs compared, not ranks
    "rank 0 has 400 batches and rank 1 has 400 batches",           # the same count
    "should each gpu get fewer batches when I add more gpus?",     # weighed
    "I have 4 workers and 2 gpus, fewer workers make it slower",   # no rank singled out
])
def test_no_uneven_ranks(text: str) -> None:
    assert "rank_batch_counts" not in obs(text), obs(text)


# -- "the same" before a shape is a recurring shape, not a curve that stays the same ---------------------------------
@pytest.mark.parametrize("text, flat", [
    ("the train loss draws the same wave pattern every 200 batches", False),
    ("the loss shows the same jump at every epoch start", False),
    ("the loss stays exactly the same for days", True),
])
def test_the_same_shape(text: str, flat: bool) -> None:
    assert (obs(text).get("symptom") == "not_learning") is flat, obs(text)


# -- two timings side by side -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("310 samples/s on a single gpu and 330 samples/s on 8 gpus", {"multi_gpu_speedup": "none",
                                                                   "symptom": "slow_training"}),
    ("2 gpus: 50 min per epoch, 8 gpus: 40 min per epoch", {"multi_gpu_speedup": "partial",
                                                            "symptom": "slow_training"}),
    ("an epoch takes 20 min with autocast and 15 min without it", {"symptom": "slow_training"}),
    ("1.2 s/it in fp32 vs 1.5 s/it in fp16", {"symptom": "slow_training", "mixed_precision": "fp16"}),
])
def test_timed_pairs(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", [
    "1 gpu: 40 min per epoch, 4 gpus: 11 min per epoch",      # near-linear scaling
    "0.9 s/it in fp32 and 0.5 s/it with bf16",                 # the lower precision is faster
    "3.1 it/s on a single gpu and 3.3 it/s on 8 gpus",         # each gpu steps its own batch: 8x the data
])
def test_timed_pairs_that_are_fine(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") != "slow_training" and "multi_gpu_speedup" not in got, got


@pytest.mark.parametrize("text, expected", [
    ("my targets for BCEWithLogitsLoss are 0 or 100 (percent)", "outside_loss"),
    ("binary cross entropy with labels -1 and 1", "outside_loss"),
    ("nn.BCELoss and the targets are 0 and 1", None),
])
def test_targets_a_bounded_loss_cannot_take(text: str, expected: str | None) -> None:
    assert obs(text).get("target_range") == expected, obs(text)


def test_a_fall_after_a_rise_is_its_return() -> None:
    # the loss comes back after its rise: no drop at the epoch start of its own (nor overfitting from one)
    got = obs("every new epoch the training loss shoots up and drops back within a couple hundred batches")
    assert got.get("epoch_start_drop") is None and got.get("symptom") != "overfitting", got
    assert obs("the loss drops again at every epoch start").get("epoch_start_drop") is True


# -- class ids listed from 1 ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("my class ids are 1,2,3,4,5 and the CrossEntropyLoss throws", "not_zero_based"),
    ("targets in [1, n_classes], cross entropy fails with an index error", "not_zero_based"),
    ("the labels are 1,2,3 instead of 0,1,2", "not_zero_based"),
    ("my class ids are 0,1,2,3 and the loss is nan", None),
    ("regression targets between 1 and 10, mse is high", None),
])
def test_one_based_ids(text: str, expected: str | None) -> None:
    assert obs(text).get("label_check") == expected, obs(text)
