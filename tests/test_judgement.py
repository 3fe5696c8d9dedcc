"""The judgement layer end to end: clarification, pressure, guards, boundaries, misdiagnoses, lint, invariants."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tests.test_judgement as this_module
from expert import Consultation
from expert.kb import rule_catalogue
from knowledge import families
from knowledge.pressure import INVARIANTS
from knowledge.schema import Block, Find

MINE = ("clarification", "pressure", "mistakes", "boundaries", "diagnostician", "antipatterns")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def consult(text: str | None = None, **obs) -> Consultation:
    c = Consultation()
    if obs:
        c.observe(**obs)
    if text:
        c.complain(text)
    c.run()
    return c


def values(c: Consultation) -> dict:
    return {n: o.value for n, o in c.observations.items()}


def roles(c: Consultation) -> dict:
    return {r["skill"]: r["role"] for r in c.diagnosis.routes}


def note_rules(c: Consultation) -> set:
    return {n["rule"] for n in c.diagnosis.notes}


def questions_fired(c: Consultation) -> list:
    return [f["rule"] for f in c.trace if f["kind"] == "question"]


# ------------------------------------------------------------------------------------------------------
# End-to-end scenarios
# ------------------------------------------------------------------------------------------------------


def test_time_pressure_with_nan():
    c = consult("Demo is tomorrow and the loss goes NaN after a few hundred steps, need a quick fix!")
    v = values(c)
    assert v["pressure"] == "time" and v["loss_behavior"] == "nan_or_inf"
    d = c.diagnosis
    assert "PR-TIME-01" in note_rules(c)
    assert d.question is not None, "time pressure must not skip the diagnostic question"
    assert d.plan[0] == "gradient-management"
    assert roles(c).get("learning-rate-scheduling") != "primary"


def test_authority_pressure_towards_sgd():
    c = consult("My senior engineer said we should switch to SGD")
    v = values(c)
    assert v["pressure"] == "authority" and v["considering"] == "sgd"
    d = c.diagnosis
    assert d.status == "needs_answer" and d.plan == []
    assert d.question.id == "Q-VERIFY-LOSS"
    assert "PR-AUTH-01" in note_rules(c)
    why_not = json.dumps(c.explain("optimization-algorithms", why_not=True).as_dict())
    assert "PR-HOLD" in why_not
    c.answer("Q-VERIFY-LOSS", "flat_from_start")
    d = c.run()
    assert roles(c)["learning-rate-scheduling"] == "primary"
    assert roles(c).get("optimization-algorithms") != "primary"
    assert "DX-MIS-02" in {f["id"] for f in d.findings}


def test_should_i_use_muon():
    c = consult("Should I use Muon?")
    assert values(c)["vague_query"] == "modern_optimizer"
    d = c.diagnosis
    assert d.question.id == "Q-CLARIFY-MODERN" and d.plan == []
    assert "AdamW" in d.question.text
    c.answer("Q-CLARIFY-MODERN", "none")
    d = c.run()
    assert roles(c)["optimization-algorithms"] == "primary"
    assert {"CL-ANS-MODERN-01", "MR-07"} <= {f["id"] for f in d.findings}
    assert any("newer" in a for a in d.avoid)


def test_should_i_use_muon_for_instability_goes_to_gradients_first():
    c = consult("should i switch to muon?")
    c.answer("Q-CLARIFY-MODERN", "instability")
    c.run()
    assert c.question.id == "Q-LOSS-BEHAVIOR"
    c.answer("Q-LOSS-BEHAVIOR", "spiking")
    d = c.run()
    assert d.plan[0] == "gradient-management"
    assert roles(c).get("optimization-algorithms") != "primary"


def test_cuda_oom_error_text():
    c = consult("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity)")
    d = c.diagnosis
    assert d.status == "out_of_scope"
    assert d.question is None
    assert [b["pack"] for b in d.boundary] == ["pytorch-engineering"]
    assert not d.boundary[0]["joint"]


def test_dpo_instability_complaint():
    c = consult("My DPO training is unstable, the loss keeps spiking")
    v = values(c)
    assert v["task"] == "preference_tuning" and v["symptom"] == "unstable"
    d = c.diagnosis
    joint = [b for b in d.boundary if b["pack"] == "llm-specialist"]
    assert joint and all(b["joint"] for b in joint)
    assert d.plan[0] == "gradient-management"
    assert "learning-rate-scheduling" in d.plan
    assert roles(c).get("optimization-algorithms") != "primary"


def test_dpo_isnt_working_asks_method_or_dynamics():
    c = consult("DPO isn't working")
    assert c.question.id == "Q-CLARIFY-DPO" and c.diagnosis.plan == []
    c.answer("Q-CLARIFY-DPO", "method_side")
    d = c.run()
    assert d.status == "out_of_scope" and d.boundary[0]["pack"] == "llm-specialist"


def test_model_performs_poorly():
    c = consult("my model performs poorly")
    d = c.diagnosis
    assert d.question.id == "Q-CLARIFY-POOR" and d.plan == [] and d.status == "needs_answer"
    c.answer("Q-CLARIFY-POOR", "val")
    d = c.run()
    assert d.plan[:2] == ["overfitting-prevention", "data-augmentation-strategies"]
    c2 = consult("my model performs poorly")
    c2.answer("Q-CLARIFY-POOR", "train")
    c2.run()
    assert c2.question.id == "Q-LOSS-BEHAVIOR"
    assert "optimization-algorithms" not in c2.diagnosis.plan


# ------------------------------------------------------------------------------------------------------
# Free text: paraphrases, negations, mixed complaints
# ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,expected", [
    ("Can you fix my training?", "fix_training"),
    ("help me fix our model", "fix_training"),
    ("how do I improve my model", "improve_model"),
    ("the training is not working well", "not_working_well"),
    ("my run doesn't work well", "not_working_well"),
    ("I want to optimize hyperparameters", "optimize_hyperparameters"),
    ("how should we tune the hyper-parameters", "optimize_hyperparameters"),
    ("the model performs badly", "performs_poorly"),
    ("results are poor", "performs_poorly"),
    ("should we try Lion?", "modern_optimizer"),
    ("Should I use Sophia", "modern_optimizer"),
    ("should i use schedule-free", "modern_optimizer"),
    ("our GRPO run is not working", "preference_not_working"),
])
def test_vague_paraphrases_ask_one_clarifying_question(text, expected):
    c = consult(text)
    assert values(c).get("vague_query") == expected
    assert c.question is not None and c.question.id.startswith("Q-CLARIFY")
    assert c.diagnosis.plan == []
    assert len(questions_fired(c)) == 1


@pytest.mark.parametrize("text,pressure", [
    ("deadline is tonight, urgent", "time"),
    ("production training is failing", "time"),
    ("the PM wants an optimizer change", "authority"),
    ("my tech lead insists on Adam", "authority"),
    ("I'm sure it's the optimizer", "self_diagnosis"),
    ("obviously we need to clip gradients", "self_diagnosis"),
    ("I have years of experience, I know what I'm doing", "expert_user"),
    ("quick question: just tell me which optimizer", "quick_question"),
])
def test_pressure_paraphrases(text, pressure):
    c = consult(text)
    assert values(c).get("pressure") == pressure
    assert any(n["name"] == "pressure_acknowledged" and n["detail"] for n in c.diagnosis.notes)


@pytest.mark.parametrize("text,pack", [
    ("torch.OutOfMemoryError: CUDA out of memory", "pytorch-engineering"),
    ("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one",
     "pytorch-engineering"),
    ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised", "pytorch-engineering"),
    ("Error(s) in loading state_dict for Net: Missing key(s) in state_dict: 'fc.bias'", "pytorch-engineering"),
    ("RuntimeError: unscale_() has already been called on this optimizer since the last update()",
     "pytorch-engineering"),
    ("DDP hangs at the first step", "pytorch-engineering"),
    ("my checkpoint won't load", "pytorch-engineering"),
    ("which architecture should I use for images?", "neural-architectures"),
    ("inference is too slow in production", "ml-production"),
    ("how do I deploy the model", "ml-production"),
    ("we need a model registry", "ml-production"),
    ("my PPO agent has exploration issues", "deep-rl"),
    ("DPO vs SimPO for my chatbot?", "llm-specialist"),
    ("how do I set up RLHF", "llm-specialist"),
])
def test_boundaries_from_text(text, pack):
    c = consult(text)
    d = c.diagnosis
    assert pack in {b["pack"] for b in d.boundary}, (values(c), d.boundary)
    assert d.question is None
    # Out of scope, unless the direct-question table also routes to the other pack's node (or, for a
    # registry, to in-flight tracking here as a secondary).
    assert d.status == "out_of_scope" or d.plan[0] == pack


def test_negation_loss_is_not_nan():
    c = consult("loss is not NaN, it is just flat from the start")
    assert values(c).get("loss_behavior") != "nan_or_inf"
    assert "DX-SYM-04" not in {f["id"] for f in c.diagnosis.findings}


def test_negated_pressure_is_not_pressure():
    c = consult("this is not urgent, the loss oscillates")
    assert "pressure" not in values(c)


def test_mixed_nan_and_slow():
    c = consult("training is slow and the loss goes NaN after a while")
    v = values(c)
    assert v["symptom"] == "unstable" and v["loss_behavior"] == "nan_or_inf"
    assert c.diagnosis.plan[0] == "gradient-management"


def test_mixed_error_and_symptom_becomes_joint():
    c = consult("CUDA out of memory. Tried to allocate 20 MiB, and before that the loss went NaN")
    d = c.diagnosis
    assert any(b["pack"] == "pytorch-engineering" and b["joint"] for b in d.boundary)
    assert d.question is not None and d.plan[0] == "gradient-management"


# ------------------------------------------------------------------------------------------------------
# Guards are explained
# ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("obs,skill,guard", [
    ({"symptom": "direct_question", "question_topic": "optimizer", "architecture": "transformer"},
     "neural-architectures", "MR-06"),
    ({"symptom": "not_learning"}, "optimization-algorithms", "MR-02"),
    ({"symptom": "slow_training"}, "batch-size-and-memory-tradeoffs", "MR-01"),
    ({"loss_scale_issue": True, "mixed_precision": "fp8"}, "learning-rate-scheduling", "MR-10"),
    ({"vague_query": "fix_training"}, "gradient-management", "CL-HOLD-01"),
])
def test_why_not_names_the_guard(obs, skill, guard):
    c = consult(**obs)
    assert skill not in c.diagnosis.plan
    assert guard in json.dumps(c.explain(skill, why_not=True).as_dict())


# ------------------------------------------------------------------------------------------------------
# Knowledge hygiene for the judgement families
# ------------------------------------------------------------------------------------------------------


def _my_rows():
    return [r for f in families() if f.name in MINE for r in f.rows]


def test_every_finding_has_fix_and_avoid():
    for r in _my_rows():
        if any(isinstance(a, Find) for a in r.then):
            assert r.fix is not None and r.fix.explain and r.fix.code, r.id
            assert r.avoid, r.id


def test_guards_have_reasons_and_valid_roles():
    for r in _my_rows():
        for a in r.then:
            if isinstance(a, Block):
                assert a.reason and a.role in ("any", "primary"), r.id


def test_ids_are_prefixed():
    prefix = {"clarification": "CL-", "pressure": "PR-", "mistakes": "MR-", "boundaries": "XB-",
              "diagnostician": "DX-", "antipatterns": "AP-"}
    for f in families():
        if f.name in prefix:
            assert all(r.id.startswith(prefix[f.name]) for r in f.rows), f.name
            assert all(q.id.startswith("Q-") for q in f.questions), f.name


def test_clarifying_questions_outrank_symptom_questions():
    ranks = {q.id: q.rank for f in families() for q in f.questions}
    clarify = [r for q, r in ranks.items() if q.startswith("Q-CLARIFY") or q == "Q-VERIFY-LOSS"]
    others = [r for q, r in ranks.items() if not (q.startswith("Q-CLARIFY") or q == "Q-VERIFY-LOSS")]
    assert max(clarify) < min(others)


def test_invariants_are_enforced_and_tested():
    cat = rule_catalogue()
    for inv in INVARIANTS:
        assert all(r in cat for r in inv.rules), inv.id
        assert callable(getattr(this_module, inv.test, None)), f"{inv.id}: no test {inv.test}"


# ------------------------------------------------------------------------------------------------------
# Invariants (rationalizations table and red-flag checklist) as hypothesis properties
# ------------------------------------------------------------------------------------------------------

OPTIMIZER_TEXTS = st.sampled_from(["sgd", "adam", "lion", "sophia", "muon", "optimizer change", "rmsprop"])
CONFIG = st.fixed_dictionaries({}, optional={
    "optimizer": st.sampled_from(["adam", "adamw", "sgd", "lion"]),
    "learning_rate": st.sampled_from([1e-5, 3e-4, 0.1]),
    "architecture": st.sampled_from(["cnn", "transformer", "mlp"]),
    "mixed_precision": st.sampled_from(["none", "bf16", "fp16"]),
    "weight_decay": st.sampled_from([0.0, 0.01, 0.1]),
    "batch_size": st.sampled_from([32, 256, 4096]),
    "warmup": st.booleans(),
})
ATTRIBUTION = st.fixed_dictionaries({}, optional={
    "pressure": st.sampled_from(["authority", "self_diagnosis"]),
    "self_diagnosis": st.sampled_from(["optimizer", "gradients", "learning rate", "batch size too small"]),
    "considering": OPTIMIZER_TEXTS,
    "question_topic": st.sampled_from(["optimizer", "learning_rate", "schedule", "batch_size"]),
}).filter(lambda d: "pressure" in d or "self_diagnosis" in d or "considering" in d)
EVIDENCE_FREE = st.fixed_dictionaries({}, optional={
    "pressure": st.sampled_from(["time", "authority", "self_diagnosis", "expert_user", "quick_question"]),
    "considering": OPTIMIZER_TEXTS,
    "self_diagnosis": st.sampled_from(["optimizer", "gradients"]),
})
PROBLEMS = st.fixed_dictionaries({}, optional={
    "symptom": st.sampled_from(["not_learning", "unstable", "overfitting", "slow_training", "convergence",
                                "direct_question", "new_setup", "experiment_tracking", "multi_task"]),
    "loss_behavior": st.sampled_from(["flat_from_start", "decreasing_slowly", "plateau_after_learning",
                                      "oscillating", "spiking", "diverging", "nan_or_inf"]),
    "mixed_precision": st.sampled_from(["none", "fp16", "bf16", "fp8"]),
    "gpu_utilization_pct": st.sampled_from([20.0, 95.0]),
    "dataset_size": st.sampled_from([500, 50_000]),
    "question_topic": st.sampled_from(["optimizer", "mup", "sharding", "tuning"]),
    "task": st.sampled_from(["classification", "preference_tuning", "language_modeling"]),
    "grad_norm_trend": st.sampled_from(["exploding", "normal"]),
})


@SETTINGS
@given(ATTRIBUTION, CONFIG)
def test_no_route_from_attribution_alone(attribution, config):
    """Pressure and attributions never route; a configuration defect in the set-up routes to its fix."""
    c = consult(**{**config, **attribution})
    d = c.diagnosis
    lints = {f["id"] for f in d.findings if f["kind"] == "lint"}
    assert all(set(r["rules"]) <= lints for r in d.routes), (attribution, config, d.routes)
    if lints:
        assert d.plan and d.status != "insufficient", (attribution, config, d.status)
    else:
        assert d.plan == [] and d.question is not None, (attribution, config, d.plan)


@SETTINGS
@given(PROBLEMS, EVIDENCE_FREE, st.sampled_from([None, "fix_training", "performs_poorly", "modern_optimizer"]))
def test_at_most_one_question(problems, extra, vague):
    obs = {**problems, **extra}
    if vague:
        obs["vague_query"] = vague
    c = consult(**obs)
    assert len(questions_fired(c)) <= 1


@SETTINGS
@given(st.sampled_from(["fix_training", "improve_model", "not_working_well", "optimize_hyperparameters",
                        "performs_poorly", "modern_optimizer", "preference_not_working"]), EVIDENCE_FREE, CONFIG)
def test_ambiguous_request_asks(vague, extra, config):
    c = consult(vague_query=vague, **{**config, **extra})
    d = c.diagnosis
    assert d.question is not None, (vague, extra, config)
    lints = {f["id"] for f in d.findings if f["kind"] == "lint"}
    assert all(set(r["rules"]) <= lints for r in d.routes), d.routes  # only a found defect routes yet


@SETTINGS
@given(PROBLEMS, st.sampled_from(["time", "authority", "self_diagnosis", "expert_user", "quick_question"]))
def test_pressure_never_removes_question(problems, pressure):
    before = consult(**problems).diagnosis.question
    after = consult(pressure=pressure, **problems).diagnosis.question
    if before is not None:
        assert after is not None, (problems, pressure, before.id)


@SETTINGS
@given(PROBLEMS, st.sampled_from(["expert_user", "quick_question"]))
def test_expert_and_quick_keep_routes(problems, pressure):
    before = set(consult(**problems).diagnosis.plan)
    after = set(consult(pressure=pressure, **problems).diagnosis.plan)
    assert before <= after


@SETTINGS
@given(PROBLEMS, st.sampled_from(["time", "authority", "self_diagnosis", "expert_user", "quick_question"]))
def test_pressure_is_acknowledged(problems, pressure):
    c = consult(pressure=pressure, **problems)
    assert any(n["name"] == "pressure_acknowledged" and n["detail"] for n in c.diagnosis.notes)


@SETTINGS
@given(st.sampled_from(["cuda_oom", "distributed_api", "compile_error", "amp_api", "architecture_choice",
                        "model_wont_load", "inference_speed", "deployment", "model_registry", "rl_exploration",
                        "preference_method", "rlhf"]), EVIDENCE_FREE, CONFIG)
def test_exclusive_boundary_never_asks(concern, extra, config):
    c = consult(concern=concern, **{**config, **extra})
    d = c.diagnosis
    assert d.question is None
    assert any(not b["joint"] for b in d.boundary)


@pytest.mark.parametrize("text,guarded", [("warmup-stable-decay", False), ("warmup", False), ("muP", True),
                                          ("mu-transfer for a wider model", True)])
def test_mup_guard_matches_whole_words_only(text, guarded):
    # A substring test once read "warmup" as muP and blocked the optimizer route for WSD questions.
    c = Consultation()
    c.observe(considering=text)
    c.run()
    assert ("MR-14" in {f["rule"] for f in c.trace}) is guarded
