"""Review of the clause status (issue 19): its cost on long texts, and the readings it got wrong.

A 10 KB sentence with no full stop, and a long pasted run of repeated words, are read in time linear in their
length; "used to" as "employed to", a denied belief reaching past its clause, fixes that are no resolution, a
relapse word said of another thing, and a question mark after a cue cut by "and".
"""

from __future__ import annotations

import time

import pytest

from expert.talk import ASKED, PAST
from expert.text import read_text
from tests.reading import obs
from tests.test_text_clause_status import _status


# -- 1. cost: no walk to the sentence's end per word --------------------------------------------------------------
def _seconds(text: str) -> float:
    read_text("the loss goes nan")  # the cue tables are built once, outside the timing
    # CPU time of this process, not wall time: a shared CI machine under load must not fail a linear reader,
    # and a quadratic one still takes many times the bound.
    start = time.process_time()
    read_text(text)
    return time.process_time() - start


def test_a_long_sentence_with_no_full_stop_is_read_in_time() -> None:
    text = " ".join(f"at step {i} the loss jumped to {i % 7 + 0.5}" for i in range(400))[:10000]
    assert _seconds(text) < 2.0


@pytest.mark.parametrize("unit", ["step {i} loss {x} was nan ", "the loss was nan, fixed the seed, still {x} "])
def test_a_long_run_of_repeated_words_is_read_in_time(unit: str) -> None:
    text = "".join(unit.format(i=i, x=i % 5 + 0.25) for i in range(12000))[:200000]
    assert _seconds(text) < 5.0  # 200 KB (the quadratic walk took 39 s on the first)


# -- 2. "used to" as "employed to" is no habit --------------------------------------------------------------------
@pytest.mark.parametrize(("text", "name", "value"), [
    ("the script I used to train the model crashes with CUDA out of memory", "symptom", "crash"),
    ("the model I used to fine-tune diverges after 3 epochs", "loss_behavior", "diverging"),
    ("the tokenizer I used to preprocess the data gives nan loss", "loss_behavior", "nan_or_inf"),
])
def test_used_as_employed_is_no_habit(text: str, name: str, value: str) -> None:
    assert obs(text).get(name) == value


@pytest.mark.parametrize(("text", "word"), [
    ("the loss used to go nan", "nan"),
    ("the loss used to randomly explode", "explode"),
    ("training used to be really slow", "slow"),
    ("i used to get oom with batch 64", "oom"),
])
def test_a_habit_said_of_the_trouble_is_still_past(text: str, word: str) -> None:
    assert _status(text, word) == PAST


# -- 3. a denied belief ends with its clause -----------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "I don't think the loss is exploding, it just plateaus",
    "I don't think the loss is exploding it just plateaus",
    "I don't think the loss is exploding but it plateaus at 2.3",
])
def test_a_denied_belief_leaves_the_next_clause_said(text: str) -> None:
    got = obs(text)
    assert got.get("loss_behavior") == "plateau_after_learning" and got.get("symptom") == "convergence", got


@pytest.mark.parametrize("text", ["I don't really think the loss is exploding", "I doubt the loss diverges"])
def test_a_denied_belief_still_denies_its_complement(text: str) -> None:
    assert "loss_behavior" not in obs(text)


# -- 4. fixes that are no resolution, relapse words of another thing ------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("the loss went nan right after I fixed it", "nan_or_inf"),
    ("I had a bug in the dataloader, after I fixed it the loss goes nan", "nan_or_inf"),
    ("the loss exploded and nobody has fixed it", "diverging"),
    ("the loss exploded and no one has fixed it", "diverging"),
    ("the loss was nan, I thought I fixed it, but no", "nan_or_inf"),
    ("the loss diverged although everything was fixed", "diverging"),
    ("the loss was nan last week, fixed it, but it's back", "nan_or_inf"),
    ("the loss was nan last week, fixed it but the loss still goes nan", "nan_or_inf"),
])
def test_a_fix_that_is_no_resolution_leaves_the_trouble_live(text: str, value: str) -> None:
    assert obs(text).get("loss_behavior") == value


@pytest.mark.parametrize(("text", "word"), [
    ("we had an oom last week but it's solved now, the loss still plateaus at 2.3", "oom"),
    ("the loss was nan last week, i fixed it by lowering it back", "nan"),
    ("the loss was nan last week, fixed it by clipping", "nan"),
])
def test_a_resolution_with_no_relapse_of_its_trouble_is_past(text: str, word: str) -> None:
    assert _status(text, word) == PAST


def test_the_live_trouble_beside_a_fixed_one_is_read() -> None:
    got = obs("we had an OOM last week but it's solved now, the loss still plateaus at 2.3")
    assert got.get("loss_behavior") == "plateau_after_learning" and "boundary_topic" not in got, got


# -- 5. a question mark after a cue cut by "and" --------------------------------------------------------------------
@pytest.mark.parametrize(("text", "asked"), [
    ("the weights on rank 0 and rank 1 are different?", True),
    ("the weights differ between ranks?", True),
    ("the weights on rank 0 and rank 1 are different", False),
])
def test_a_cue_ending_in_the_asked_clause_is_asked(text: str, asked: bool) -> None:
    assert (obs(text).get("replicas_in_sync") == "diverged") is not asked
    assert (_status(text, "different" if "different" in text else "differ") == ASKED) is asked
