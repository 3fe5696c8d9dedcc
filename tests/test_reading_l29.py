"""Readings and leads fixed after review l29: the resume replay, asked settings, the scheduler pace, GPU counts."""

from __future__ import annotations

import pytest

from expert.consultation import Consultation
from tests.reading import assert_reads, finding_ids, obs

_SKIP = "DF-CHG-RESUME-SKIP"


@pytest.mark.parametrize("text", [
    "When I resume from the checkpoint, torch.load itself hangs and never returns.",
    "After resuming from a checkpoint the training hangs, and the GPU and CPU are both at 0% utilization.",
    "After resuming from a checkpoint, it is stuck at the first batch with a deadlock in the dataloader workers.",
    "After resuming, training hangs on my two RTX 3090s.",
    "After resuming, training hangs on my 2 3090s.",
])
def test_a_resume_hang_that_never_ends_is_no_data_replay(text: str) -> None:
    assert _SKIP not in finding_ids(text)
    c = Consultation()
    c.complain(text)
    d = c.run()
    assert _SKIP not in {f["id"] for f in d.findings}
    assert d.question is None or d.question.id != "Q-RESUME-STALL"


def test_a_pause_before_the_first_step_that_ends_is_the_replay() -> None:
    text = "the run hangs for two hours before the first step after resuming, then continues normally"
    assert_reads(text, {"first_step_stall": True, "recent_change": "resume"})
    assert _SKIP in finding_ids(text)


def test_a_bare_resume_hang_asks_whether_it_ever_starts() -> None:
    c = Consultation()
    c.complain("After resuming from a checkpoint the training hangs.")
    d = c.run()
    assert d.question is not None and d.question.id == "Q-RESUME-STALL"
    assert _SKIP not in {f["id"] for f in d.findings}
    c.answer("Q-RESUME-STALL", True)
    assert _SKIP in {f["id"] for f in c.run().findings}


@pytest.mark.parametrize("text", [
    "After resuming, training hangs on my two RTX 3090s.",
    "After resuming, training hangs on my 2 3090s.",
    "8xA100 training is slow",
    "we train on 2 nodes x 8 GPUs and the loss diverges",
    "all 4 ranks print the same loss",
    "when I add a second node the loss diverges",
])
def test_several_devices_read_multi_gpu(text: str) -> None:
    assert_reads(text, {"multi_gpu": True})


@pytest.mark.parametrize("text", [
    "My dataloader has num_workers=4 and all 4 processes use 100% CPU",
    "Using bf16 gives a 2x GPU memory saving",
    "My graph has two node types and the loss goes NaN",
    "When I go to the second server in our lab, the code runs out of GPU memory",
    "I train on a single 3090 and it is slow",
])
def test_workers_factors_graph_nodes_and_another_machine_are_no_multi_gpu(text: str) -> None:
    assert_reads(text, {"multi_gpu": None})


@pytest.mark.parametrize("text", [
    "I verified that the lr scheduler is called once per step, not twice per step, but the loss plateaus.",
    "asked whether the scheduler is stepped twice per iteration; I checked and it is not.",
    "In my calendar app, the job scheduler updates twice per call.",
    "In my calendar app, the scheduler updates twice per call.",
])
def test_scheduler_pace_needs_an_lr_scheduler_said_to_step_too_often(text: str) -> None:
    assert_reads(text, {"scheduler_pace": None})


@pytest.mark.parametrize("text", [
    "the scheduler advances by the number of GPUs each step",
    "scheduler.step() is called twice per iteration",
])
def test_scheduler_pace_too_fast_still_read(text: str) -> None:
    assert_reads(text, {"scheduler_pace": "too_fast"})


@pytest.mark.parametrize("text, unread", [
    ("I was wondering whether adam or sgd is better, which one would you pick?", "optimizer"),
    ("My friend uses a batch size of 512, what batch size should I use?", "batch_size"),
    ("I saw a blog saying weight decay 0.1 helps, how much weight decay do I need?", "weight_decay"),
])
def test_words_weighed_reported_or_of_another_person_before_a_question_are_no_setting(text: str, unread: str) -> None:
    assert_reads(text, {unread: None})


def test_a_setting_read_about_is_not_the_run_s() -> None:
    assert obs("I read that adam is better for transformers, should I switch from sgd?").get("optimizer") \
        in (None, "sgd")


@pytest.mark.parametrize("text, expected", [
    ("My grid search over learning rates is too costly, how can I tune faster?", {"tuning_method": "grid"}),
    ("lr 3e-4, bs 32, adamw, should I warm up?", {"learning_rate": 3e-4, "batch_size": 32, "optimizer": "adamw"}),
    ("I use adam, should I switch to sgd?", {"optimizer": "adam"}),
])
def test_first_person_statements_before_a_question_stay_the_run_s(text: str, expected: dict) -> None:
    assert_reads(text, expected)


# review r29b: the question rule judges each clause before the asking one on its own; pronouns and nouns such as
# "video" are no other person's run, and a clause that reports or tells another person's run is claimed alone
@pytest.mark.parametrize("text, kept", [
    ("my lr is 0.5 and the gradients explode, they are huge, should I lower it?", {"learning_rate": 0.5}),
    ("my batch size is 16 and the gpus are at 30%, they are barely used, should I increase it?", {"batch_size": 16}),
    ("my lr is 0.5 and I saw the loss go up, should I lower it?", {"learning_rate": 0.5}),
    ("I train my video model with adam at lr 0.5, should I lower it?", {"learning_rate": 0.5, "optimizer": "adam"}),
    ("I tried what you suggested, I use adam at lr 0.5 now, should I lower it?",
     {"learning_rate": 0.5, "optimizer": "adam"}),
    ("we train with adam at lr 0.5 on their cluster, should we lower the lr?",
     {"learning_rate": 0.5, "optimizer": "adam"}),
    ("my lr is 0.5 with adam, my friend thinks that is too high, should I lower it?",
     {"learning_rate": 0.5, "optimizer": "adam"}),
    ("my lr is 0.01 and my friend uses 0.001, which is better?", {"learning_rate": 0.01}),
    ("I read that adam is better, I use sgd with lr 0.1, should I switch?",
     {"learning_rate": 0.1, "optimizer": "sgd"}),
])
def test_own_settings_before_a_question_are_kept_clause_by_clause(text: str, kept: dict) -> None:
    got = obs(text)
    assert {k: got.get(k) for k in kept} == kept


@pytest.mark.parametrize("text", [
    "I run the same script on another server with a single GPU and the loss is nan there",
    "on another machine with one GPU the loss is nan",
])
def test_moving_to_another_single_gpu_machine_is_no_multi_gpu_run(text: str) -> None:
    assert "multi_gpu" not in obs(text)


@pytest.mark.parametrize("text", ["when I add a second node the loss is nan", "DDP across two machines, loss nan"])
def test_a_second_machine_in_the_job_is_still_multi_gpu(text: str) -> None:
    assert obs(text).get("multi_gpu") is True
