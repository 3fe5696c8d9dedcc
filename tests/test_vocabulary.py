"""The observation vocabulary: one typed table, validation that names the field and what is allowed."""

from __future__ import annotations

import json
import math

import pytest

from knowledge import all_questions
from knowledge.errors import VocabularyError
from knowledge.vocabulary import MAX_TEXT, SPECS, VOCABULARY, Observation, validate


def test_every_name_is_unique_and_described():
    names = [s.name for s in SPECS]
    assert len(names) == len(set(names))
    for s in VOCABULARY.values():
        assert s.help and s.kind in {"enum", "float", "int", "bool", "str"}
        if s.kind == "enum":
            assert s.choices and len(set(s.choices)) == len(s.choices)
    json.dumps([s.as_dict() for s in VOCABULARY.values()])


def test_vocabulary_covers_the_architecture_starting_point():
    for name in ["symptom", "loss_behavior", "nan_onset", "nan_step", "nan_location", "mixed_precision",
                 "grad_scaler", "optimizer", "learning_rate", "weight_decay", "warmup", "lr_schedule", "batch_size",
                 "memory_limited", "gpu_utilization_pct", "data_time_fraction", "dataset_size", "train_metric",
                 "val_metric", "metric_kind", "loss_fn", "custom_loss", "num_classes", "loss_at_init",
                 "grad_norm_trend", "frozen_params", "params_without_grad", "architecture", "task", "question_topic",
                 "considering", "pressure", "self_diagnosis", "error_text"]:
        assert name in VOCABULARY, name


def test_questions_and_vocabulary_agree():
    for q in all_questions():
        assert q.sets in VOCABULARY, q.id
    for s in VOCABULARY.values():
        if s.question:
            assert any(q.id == s.question for q in all_questions()), f"{s.name} names unknown {s.question}"


@pytest.mark.parametrize("name,raw,expected", [
    ("learning_rate", "3e-4", 3e-4), ("learning_rate", 1, 1.0), ("batch_size", "32", 32), ("batch_size", 64.0, 64),
    ("warmup", "yes", True), ("warmup", "No", False), ("symptom", "Not-Learning", "not_learning"),
    ("gpu_utilization_pct", "35%", 35.0), ("error_text", "  CUDA out of memory ", "CUDA out of memory"),
])
def test_values_are_normalised(name, raw, expected):
    assert validate(name, raw) == expected


@pytest.mark.parametrize("name,raw,field_word", [
    ("learning_rate", 0.0, "finite number in (0"), ("learning_rate", "fast", "finite number"),
    ("batch_size", 2.5, "integer"), ("batch_size", True, "integer"), ("symptom", "hungry", "not_learning"),
    ("warmup", "maybe", "true or false"), ("gpu_utilization_pct", 120, "[0, 100]"), ("error_text", "", "non-empty"),
    ("symptom", 3, "not_learning"),
])
def test_bad_values_name_the_field_and_what_is_allowed(name, raw, field_word):
    with pytest.raises(VocabularyError) as e:
        validate(name, raw)
    text = str(e.value)
    assert repr(name) in text and field_word in text
    assert e.value.field == name


def test_non_finite_numbers_never_become_values():
    for bad in (math.nan, math.inf, -math.inf, "nan"):
        with pytest.raises(VocabularyError, match="non-finite|bad value"):
            validate("loss_at_init", bad)


def test_unknown_name_suggests_near_names():
    with pytest.raises(VocabularyError) as e:
        validate("learning", 0.1)
    assert "learning_rate" in str(e.value)
    assert "trainopt facts" in str(e.value)


def test_observation_carries_provenance_and_evidence():
    o = Observation.make("data_time_fraction", 0.7, "probe:throughput", {"data_s": 0.7, "compute_s": 0.3})
    assert o.as_dict() == {"name": "data_time_fraction", "value": 0.7, "source": "probe:throughput",
                           "evidence": {"data_s": 0.7, "compute_s": 0.3}}


@pytest.mark.parametrize("name,raw,expected,note", [
    ("train_metric", "95%", 0.95, "read 95% as 0.95 (a fraction)"),
    ("data_time_fraction", "40 %", 0.4, "read 40 % as 0.4 (a fraction)"),
    ("gpu_utilization_pct", "35%", 35.0, ""),
    ("dataset_size", "50k", 50_000, "read 50k as 50,000"),
    ("model_params", "1.2M", 1_200_000, "read 1.2M as 1,200,000"),
    ("model_params", "7B", 7_000_000_000, "read 7B as 7,000,000,000"),
    ("dataset_size", "50,000", 50_000, ""),
    ("dataset_size", "1_000_000", 1_000_000, ""),
    ("learning_rate", "3e-4", 3e-4, ""),
    ("dataset_size", 9007199254740993, 9007199254740993, ""),
    ("dataset_size", "9007199254740993", 9007199254740993, ""),
])
def test_numbers_as_people_type_them(name, raw, expected, note):
    from knowledge.vocabulary import normalise

    assert normalise(name, raw) == (expected, note)


@pytest.mark.parametrize("name,raw", [
    ("batch_size", 10**400), ("learning_rate", 10**400), ("batch_size", "9" * 400), ("batch_size", "²"),
    ("batch_size", "١٢"), ("learning_rate", "5%"), ("dataset_size", "0,5"), ("learning_rate", "1e400"),
    ("batch_size", 2**63), ("symptom", "x" * 10**6), ("error_text", "x" * (MAX_TEXT + 1)), ("learning_rate", [0.1]),
])
def test_junk_numbers_and_huge_values_are_refused_with_a_short_message(name, raw):
    with pytest.raises(VocabularyError) as e:
        validate(name, raw)
    # The junk is shortened, never echoed: beyond the list of allowed values, the message stays short.
    from knowledge.vocabulary import spec

    assert e.value.field == name and len(str(e.value)) < 300 + len(spec(name).allowed())


def test_a_pasted_log_of_a_few_megabytes_is_accepted_as_text():
    assert validate("error_text", "RuntimeError: CUDA out of memory\n" * 100_000).startswith("RuntimeError")


def test_evidence_and_source_are_checked():
    for evidence in ("abc", 5, [1], {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}):
        with pytest.raises(VocabularyError, match="evidence"):
            Observation.make("symptom", "unstable", "declared", evidence)
    for source in (5, "", None, "x" * 2000):
        with pytest.raises(VocabularyError, match="bad source"):
            Observation.make("symptom", "unstable", source)


def test_a_probe_step_survives_the_json_round_trip_and_a_bad_step_is_refused():
    import json

    from expert.consultation import Consultation
    from knowledge.errors import InputError

    c = Consultation.from_json({"data_time_fraction": {"value": 0.7, "source": "probe:throughput", "step": 40}})
    saved = json.loads(c.report("json"))
    assert saved["observations"]["data_time_fraction"]["step"] == 40
    again = Consultation.from_json(saved)
    assert again.observations["data_time_fraction"].step == 40
    assert (again.diagnosis.status, again.diagnosis.plan) == (c.diagnosis.status, c.diagnosis.plan)
    for bad in (-1, 1.5, True, "40"):
        with pytest.raises(InputError, match="step"):
            Consultation.from_json({"data_time_fraction": {"value": 0.7, "step": bad}})


def test_losses_optimizers_and_schedules_typed_any_way_meet_the_canonical_rows():
    from expert.consultation import Consultation

    c = Consultation()
    c.observe(loss_fn="nn.CrossEntropyLoss()", optimizer="torch.optim.AdamW", lr_schedule="CosineAnnealingLR")
    assert {k: o.value for k, o in c.observations.items()} == {
        "loss_fn": "cross_entropy", "optimizer": "adamw", "lr_schedule": "cosine"}
    assert Consultation.from_json({"loss_fn": {"value": "F.mse_loss", "source": "declared"}}).observations[
        "loss_fn"].value == "mse"
    c = Consultation()
    c.answer("Q-LOSS-FN", "BCEWithLogitsLoss")
    assert c.observations["loss_fn"].value == "bce_with_logits"
    c.observe(loss_fn="my_contrastive_loss")          # unknown free text stays as typed
    assert c.observations["loss_fn"].value == "my_contrastive_loss"
    with pytest.raises(VocabularyError):              # an unknown optimizer is still refused, nothing changes
        c.observe(optimizer="FooOpt")
    assert "optimizer" not in c.observations


def test_a_typo_gets_a_did_you_mean():
    from knowledge.vocabulary import spec

    with pytest.raises(VocabularyError) as e:
        spec("symtom")
    assert "did you mean symptom?" in str(e.value)
    with pytest.raises(VocabularyError) as e:
        spec("zzzz")
    assert "did you mean" not in str(e.value)
