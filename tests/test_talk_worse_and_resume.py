"""A multi-device run said "worse" (speed or results, asked) and a resume said as the onset with a colon (k35)."""

from __future__ import annotations

import pytest

import expert  # noqa: F401  (the experta shim first)
from expert.text import confirmations
from tests.reading import assert_reads, obs


def _asks_which_worse(text: str) -> bool:
    return any("multi-GPU run is worse" in q for q in confirmations(text))


@pytest.mark.parametrize("text", [
    "more GPUs performs worse",
    "my multi-gpu run performs worse than my single gpu run",
    "training on 4 GPUs is worse than on 1",
    "with 8 gpus the model underperforms compared to 1 gpu",
])
def test_device_worse_is_asked(text: str) -> None:
    assert _asks_which_worse(text)
    # nothing guessed until the user says which
    assert "symptom" not in obs(text) and "multi_gpu_speedup" not in obs(text)


@pytest.mark.parametrize("text", [
    "ddp performs worse than single gpu, slower per epoch",  # speed said: read, not asked
    "multi gpu run performs worse, accuracy 70% vs 80%",  # a metric said
    "multi-gpu results are worse",  # results said
    "does ddp perform worse?",  # a question
    "my colleague says more GPUs performs worse",  # another's run
    "more GPUs doesn't perform worse",  # negated
    "the model performs worse",  # no multi-device run
    "4 GPUs are slower than 1",
])
def test_device_worse_not_asked(text: str) -> None:
    assert not _asks_which_worse(text)


def test_device_worse_speed_still_read() -> None:
    assert_reads("ddp performs worse than single gpu, slower per epoch",
                 {"multi_gpu_speedup": "none", "symptom": "slow_training"})


@pytest.mark.parametrize("text", [
    "resuming: loss jumps",
    "resumed: loss spikes",
    "restart: the loss spikes",
    "restarted: loss is nan",
    "after the restart, loss is back to 2.3",
    "after restarting training, loss jumps",
    "since the restart the loss is flat",
])
def test_resume_as_onset(text: str) -> None:
    assert_reads(text, {"recent_change": "resume"})


@pytest.mark.parametrize("text", [
    "loss: jumps",  # a colon after no resume word: no sequence
    "resume: how do I do it",  # no movement after the colon
    "after restarting from scratch, the loss still spikes",  # a new run
    "after restarting the kernel the loss is nan",  # the notebook's kernel
    "should I restart after the loss spikes?",
    "loss spikes after every restart of the cosine schedule",  # a schedule's warm restart
    "the loss spikes after each warm restart",
])
def test_resume_not_read(text: str) -> None:
    assert obs(text).get("recent_change") != "resume"


def test_find_unused_with_slower_than_expected() -> None:
    # "expected" in a user's "slower than expected" is no DDP error ("Expected to have finished reduction")
    assert_reads("With find_unused_parameters=True the run is slower than expected", {"ddp_find_unused": True})
    assert_reads("find_unused_parameters=False and it is slower than expected", {"ddp_find_unused": None})
    assert_reads("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new "
                 "one", {"ddp_find_unused": None})


# --- the check answered in words, at the REPL, as a user types ----------------------------------------------------


@pytest.mark.parametrize(("reply", "read"), [("slower", "symptom=slow_training"),
                                             ("worse accuracy", "not_working_aspect=accuracy")])
def test_the_worse_check_is_answered_in_words(reply: str, read: str) -> None:
    from click.testing import CliRunner

    from expert.cli import cli

    out = CliRunner().invoke(cli, ["consult"], input=f"more GPUs performs worse\n{reply}\nquit\n").output
    assert "check: You said the multi-GPU run is worse" in out
    assert f"understood: {read}" in out
    assert "or type `not X, Y`" not in out  # the answer was taken, not refused


def test_a_check_answer_that_reads_as_nothing_changes_nothing() -> None:
    from click.testing import CliRunner

    from expert.cli import cli

    out = CliRunner().invoke(cli, ["consult", "--format", "json"],
                             input="more GPUs performs worse\nhmm whatever\nquit\n").output
    assert "or type `not X, Y`" in out  # no answer: the hint again
    assert "hmm whatever" not in out[out.index("{"):]  # not taken as more of the complaint
