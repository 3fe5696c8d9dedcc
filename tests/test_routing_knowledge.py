"""Symptom-routing knowledge: scenario orders hold in real plans, evidence gates routes, probe runs end clean."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expert.consultation import Consultation
from knowledge import families
from knowledge.skills import SCENARIO_BY_NAME

MY_FAMILIES = ("derive", "routing", "instability", "overfitting", "slow", "direct", "modern", "tracking", "quickref",
               "scenarios")


def plan_of(**obs) -> list[str]:
    c = Consultation()
    c.observe(**obs)
    return c.run().plan


def _in_order(plan: list[str], order: tuple[str, ...]) -> bool:
    seen = [s for s in plan if s in order]
    return seen == [s for s in order if s in seen]


@pytest.mark.parametrize("scenario, obs, min_len", [
    ("new_setup", {"symptom": "new_setup"}, 6),
    ("convergence", {"symptom": "convergence", "grad_norm_trend": "spiky"}, 3),
    ("instability", {"symptom": "unstable", "loss_behavior": "nan_or_inf", "nan_onset": "after_steps",
                     "mixed_precision": "fp16", "custom_loss": True}, 4),
    ("overfitting", {"symptom": "overfitting", "dataset_size": 5000}, 3),
    ("speed_memory", {"symptom": "slow_training", "gpu_utilization_pct": 90, "memory_limited": True,
                      "heavy_augmentation": True}, 3),
    ("tracking", {"symptom": "experiment_tracking", "tracking_scope": "in_flight", "tuning_method": "random"}, 3),
    ("not_learning", {"symptom": "not_learning", "loss_behavior": "flat_from_start"}, 2),
    ("multi_task", {"symptom": "multi_task"}, 3),
])
def test_scenario_order_holds_in_the_plan(scenario, obs, min_len):
    plan = plan_of(**obs)
    order = SCENARIO_BY_NAME[scenario].order
    assert len([s for s in plan if s in order]) >= min_len, plan
    assert _in_order(plan, order), (plan, order)


def test_healthy_probe_run_is_clean():
    c = Consultation()
    c.observe("probe:curve", loss_behavior="decreasing_normally")
    c.observe("probe:throughput", gpu_utilization_pct=93.0, data_time_fraction=0.05)
    d = c.run()
    assert d.status == "clean" and d.plan == [] and d.question is None


def test_probe_run_with_a_loading_bottleneck_is_diagnosed_without_a_question_about_the_symptom():
    c = Consultation()
    c.observe("probe:throughput", data_time_fraction=0.8)
    d = c.run()
    assert d.symptom["value"] == "slow_training" and d.plan[0] == "pytorch-engineering"


_EXTRA = st.fixed_dictionaries({}, optional={
    "heavy_augmentation": st.booleans(), "memory_limited": st.booleans(), "slow_kind": st.sampled_from(["per_step"]),
    "batch_size": st.integers(1, 4096), "mixed_precision": st.sampled_from(["none", "fp16", "bf16", "fp8"]),
    "optimizer": st.sampled_from(["adamw", "sgd", "lion"]), "dataset_size": st.integers(0, 10**6)})


@settings(max_examples=60, deadline=None)
@given(_EXTRA)
def test_slow_training_never_routes_to_batch_size_before_utilization_is_known(extra):
    plan = plan_of(symptom="slow_training", **extra)
    assert "batch-size-and-memory-tradeoffs" not in plan


@settings(max_examples=40, deadline=None)
@given(_EXTRA)
def test_not_learning_never_routes_to_the_optimizer_before_the_loss_behaviour(extra):
    plan = plan_of(symptom="not_learning", **extra)
    assert "optimization-algorithms" not in plan


def test_every_row_cites_a_seed_and_every_threshold_has_a_source():
    for fam in families():
        if fam.name not in MY_FAMILIES:
            continue
        for row in fam.rows:
            assert row.cite.seed in ("000", "001", "002", "003"), row.id
            assert row.rationale and row.id.split("-")[0] in ("RT", "DV", "SC"), row.id
            for t in row.thresholds():
                assert t["source"], (row.id, t)


def test_every_loss_name_in_terms_is_classified_one_way_by_the_wrong_objective_rows() -> None:
    """RT-LOSS-06/07 read the term sets of knowledge.terms: every spelling meets the rows its canonical name does."""
    from expert.consultation import canonical_term
    from knowledge import terms
    from knowledge.routing import ROWS

    rows = {r.id: r for r in ROWS}
    on_classification = rows["RT-LOSS-06"].conditions()["loss_fn"]
    on_regression = rows["RT-LOSS-07"].conditions()["loss_fn"]
    assert not terms.REGRESSION_LOSSES & terms.CLASSIFICATION_LOSSES
    for spelling, canonical in terms.LOSS_SPELLINGS.items():
        value = canonical_term("loss_fn", spelling)
        assert value == canonical, spelling
        assert on_classification.test(value) == (canonical in terms.REGRESSION_LOSSES), spelling
        assert on_regression.test(value) == (canonical in terms.CLASSIFICATION_LOSSES), spelling
    for name in ("MSELoss", "nn.L1Loss()", "HuberLoss", "SmoothL1Loss"):
        assert "loss-functions-and-objectives" == plan_of(task="classification", loss_fn=name)[0], name
    for name in ("CrossEntropyLoss", "F.nll_loss", "BCEWithLogitsLoss", "nn.BCELoss()"):
        assert "loss-functions-and-objectives" == plan_of(task="regression", loss_fn=name)[0], name
