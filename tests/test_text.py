"""Free-text complaints -> observations: paraphrases, negations, mixed complaints, numbers, junk."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expert.text import parse_complaint
from expert.vocabulary import validate
from knowledge import all_keywords


def obs(text: str) -> dict:
    return {o.name: o.value for o in parse_complaint(text)}


@pytest.mark.parametrize("text, name, value", [
    ("my loss is stuck", "symptom", "not_learning"),
    ("The model isn't learning anything", "symptom", "not_learning"),
    ("accuracy not increasing after 10 epochs", "symptom", "not_learning"),
    ("loss has been flat from the very start", "loss_behavior", "flat_from_start"),
    ("loss is decreasing extremely slowly", "loss_behavior", "decreasing_slowly"),
    ("it was learning then plateaued", "loss_behavior", "plateau_after_learning"),
    ("loss goes NaN after 3 epochs", "nan_onset", "after_steps"),
    ("I get NaNs immediately", "nan_onset", "immediate"),
    ("Loss becomes inf", "loss_behavior", "nan_or_inf"),
    ("the loss diverges", "loss_behavior", "diverging"),
    ("training is unstable with random loss spikes", "loss_behavior", "spiking"),
    ("loss oscillates wildly", "loss_behavior", "oscillating"),
    ("exploding gradients in my RNN", "grad_norm_trend", "exploding"),
    ("FP8 underflow kills the run", "mixed_precision", "fp8"),
    ("got an overflow in fp16", "symptom", "unstable"),
    ("My model overfits badly", "symptom", "overfitting"),
    ("it memorizes the training data", "symptom", "overfitting"),
    ("poor generalization on the test set", "symptom", "overfitting"),
    ("training is way too slow", "symptom", "slow_training"),
    ("each epoch takes forever", "symptom", "slow_training"),
    ("low GPU utilization", "symptom", "slow_training"),
    ("needs too many epochs to get anywhere", "slow_kind", "many_steps"),
    ("how do I track experiments with MLflow", "symptom", "experiment_tracking"),
    ("we want a model registry with lineage", "tracking_scope", "registry"),
    ("which optimizer should I use for a transformer?", "question_topic", "optimizer"),
    ("what learning rate should I pick", "question_topic", "learning_rate"),
    ("What batch size is best?", "question_topic", "batch_size"),
    ("fp8 vs bf16 for pretraining?", "question_topic", "precision"),
    ("ZeRO-3 vs FSDP full-shard?", "question_topic", "sharding"),
    ("DPO vs SFT for my chatbot?", "question_topic", "preference_method"),
    ("should I use Lion?", "considering", "lion"),
    ("does Muon beat AdamW?", "considering", "muon"),
    ("thinking about a WSD schedule", "considering", "wsd schedule"),
    ("setting up a new training pipeline", "symptom", "new_setup"),
    ("multi-task model with auxiliary losses", "symptom", "multi_task"),
    ("my custom loss", "custom_loss", True),
    ("training with bf16 and adamw", "mixed_precision", "bf16"),
    ("training with bf16 and adamw", "optimizer", "adamw"),
    ("using AMP", "mixed_precision", "fp16"),
    ("SGD with momentum", "optimizer", "sgd_momentum"),
])
def test_paraphrases(text, name, value):
    assert obs(text).get(name) == value, obs(text)


@pytest.mark.parametrize("text, name", [
    ("no NaN so far", "loss_behavior"),
    ("loss is not NaN", "loss_behavior"),
    ("without any NaN", "loss_behavior"),
    ("it isn't overfitting", "symptom"),
    ("the loss never diverges", "loss_behavior"),
    ("not slow at all", "symptom"),
    ("I'm not using fp16", "mixed_precision"),
])
def test_negations_cancel(text, name):
    assert name not in obs(text), obs(text)


def test_negation_stays_in_its_clause():
    got = obs("no NaN, but the loss is stuck")
    assert got["symptom"] == "not_learning" and "loss_behavior" not in got


def test_switch_cue_hides_the_bare_optimizer_name():
    got = obs("should I switch to Lion instead of adamw")
    assert got["considering"] == "lion" and "optimizer" not in got


@pytest.mark.parametrize("text, symptom", [
    ("NaN and also slow", "unstable"),
    ("training is slow and the loss goes NaN", "unstable"),
    ("overfitting and slow", "overfitting"),
    ("slow and stuck", "not_learning"),
    ("which optimizer should I use? my loss diverges", "unstable"),
])
def test_mixed_complaints_priority(text, symptom):
    assert obs(text)["symptom"] == symptom


def test_mixed_complaint_is_order_independent():
    assert obs("NaN and slow")["symptom"] == obs("slow and NaN")["symptom"] == "unstable"


@pytest.mark.parametrize("text, expected", [
    ("lr 3e-4", {"learning_rate": 3e-4}),
    ("learning rate of 0.1", {"learning_rate": 0.1}),
    ("LR=1e-3, batch size 32", {"learning_rate": 1e-3, "batch_size": 32}),
    ("gpu util 35%", {"gpu_utilization_pct": 35.0}),
    ("GPU utilization is only 95%", {"gpu_utilization_pct": 95.0}),
    ("10k examples", {"dataset_size": 10_000}),
    ("dataset of 800 images", {"dataset_size": 800}),
    ("1.2M samples", {"dataset_size": 1_200_000}),
    ("50,000 images", {"dataset_size": 50_000}),
    ("train acc 99% val acc 60%", {"train_metric": 0.99, "val_metric": 0.60, "metric_kind": "accuracy"}),
    ("training accuracy 0.95 and validation accuracy 0.7", {"train_metric": 0.95, "val_metric": 0.7}),
])
def test_numbers(text, expected):
    got = obs(text)
    for k, v in expected.items():
        assert got.get(k) == pytest.approx(v), got


def test_out_of_range_number_is_dropped():
    assert "gpu_utilization_pct" not in obs("gpu util 350%")
    assert "learning_rate" not in obs("lr 50")


def test_provenance_names_the_phrase():
    o = {x.name: x for x in parse_complaint("my loss goes NaN after 3 epochs")}
    assert o["symptom"].source == "text:NaN after 3 epochs"
    assert all(x.source.startswith("text:") for x in o.values())


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "hello there", "🙂🙂🙂", "ü¥ 𝕏 \x00", "?" * 1000, "a" * 50_000,
                                  " " * 30_000 + "gpu util"])
def test_junk_returns_nothing(text):
    assert parse_complaint(text) == []


def test_non_string_returns_nothing():
    assert parse_complaint(None) == []  # type: ignore[arg-type]


def test_every_keyword_compiles_and_sets_known_observations():
    from expert.vocabulary import VOCABULARY

    for k in all_keywords():
        re.compile(k.pattern)
        assert k.sets and all(name in VOCABULARY for name in k.sets), k.pattern
        for name, value in k.sets.items():
            if not (isinstance(value, str) and value.startswith("$")):
                validate(name, value)


_WORDS = st.sampled_from(["nan", "not", "no", "slow", "loss", "lr", "3e-4", "gpu", "util", "35%", "overfitting",
                          "stuck", "lion", "should", "i", "use", "which", "optimizer", "train", "acc", "99%", "val",
                          "batch", "size", "10k", "examples", ",", ".", "and", "but", "fp16", "isn't", "µP", "ZeRO-3"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.lists(_WORDS, max_size=25).map(" ".join)))
def test_never_raises_and_everything_validates(text):
    found = parse_complaint(text)
    names = [o.name for o in found]
    assert len(names) == len(set(names))
    for o in found:
        assert validate(o.name, o.value) == o.value
        assert o.source.startswith("text:")


@settings(max_examples=100, deadline=None)
@given(st.lists(_WORDS, max_size=20).map(" ".join))
def test_complaint_feeds_a_consultation(text):
    from expert.consultation import Consultation

    c = Consultation()
    if text.strip():
        c.complain(text)
        c.run()
