"""Issue 3's judgement scenarios end to end: `trainopt consult` transcripts, `diagnose -` and `explain --why-not`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pytest
from click.testing import CliRunner, Result

from expert.cli import cli
from knowledge import question

REPORT_TITLE = "Training Diagnosis\n=================="
NO_ROUTE = "no skill routed yet"
SKIPS = ("skip",) * 12

TIME_NAN = "demo tomorrow, need a quick fix, loss goes NaN after 2 epochs"
AUTHORITY = "my senior says switch to SGD, loss is stuck"
AUTHORITY_ONLY = "my senior says we should switch to SGD"
MUON = "should I use Muon?"
OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"
DPO = "my DPO run is unstable, loss spikes"
POORLY = "my model performs poorly"


@dataclass
class Session:
    """One `trainopt consult` run, split into the conversation and the final report."""

    result: Result
    conversation: str
    report: str
    data: dict[str, Any] | None

    @property
    def asked(self) -> list[str]:
        """Question texts in the order the REPL showed them."""
        return re.findall(r"^Q\d+\. (.+)$", self.conversation, flags=re.M)

    @property
    def plan(self) -> list[tuple[str, str]]:
        """(skill, role) pairs of the text report's ordered plan."""
        section = self.report.partition("Reference (ordered plan)")[2].split("\n\n")[0]
        return re.findall(r"^\d+\. .*? Reference: (\S+) \((primary|secondary)", section, flags=re.M)


def consult(*lines: str, fmt: str = "text") -> Session:
    """Drive the REPL with one line per answer (the first is the complaint)."""
    r = CliRunner().invoke(cli, ["consult", "--format", fmt], input="".join(f"{ln}\n" for ln in lines))
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output
    if fmt == "json":
        return Session(r, r.stderr, r.stdout, json.loads(r.stdout))
    conversation, sep, report = r.stdout.partition(REPORT_TITLE)
    assert sep, r.stdout
    return Session(r, conversation, report, None)


def pick(qid: str, value: str) -> str:
    """The number the REPL shows for ``value`` among the choices of ``qid``."""
    return str([v for v, _ in question(qid).choices].index(value) + 1)


def text_of(qid: str) -> str:
    return question(qid).text


def roles(data: dict[str, Any]) -> dict[str, str]:
    return {r["skill"]: r["role"] for r in data["routes"]}


def acknowledged_before_first_question(s: Session, rule: str) -> bool:
    """The pressure note is printed in the conversation before Q1, and again under Notes in the report."""
    before_q1 = s.conversation.partition("\nQ1. ")[0]
    said = re.findall(rf"^note: (.+) \[{rule}\]$", before_q1, flags=re.M)
    return len(said) == 1 and f"pressure_acknowledged: {said[0]} [{rule}]" in s.report


# ------------------------------------------------------------------------------------------------------
# 1. Time pressure with a NaN complaint
# ------------------------------------------------------------------------------------------------------


def test_time_pressure_nan_is_acknowledged_and_still_asks_one_question():
    s = consult(TIME_NAN, "quit")
    assert "pressure=time (from \"demo tomorrow\")" in s.conversation
    assert "loss_behavior=nan_or_inf" in s.conversation
    assert acknowledged_before_first_question(s, "PR-TIME-01")
    assert "Time is short, so one quick question comes first" in s.report
    # The loss curve is already known (NaN), so the one question is the one that best separates the open causes
    # (where the first non-finite value appears: it decides between six of them), not a fix list.
    assert s.asked == [text_of("Q-NAN-LOCATION")]
    assert "quit: leaving the consultation" in s.conversation
    # (quitting ends the asking, not the reasoning: the plan leads with the best of what is known, and the question
    # that would best separate the leading causes stays in the report)
    assert "Status: diagnosed" in s.report and "Asking stopped: quit" in s.report
    assert "[Q-NAN-LOCATION]" in s.report
    assert "untested quick fixes under time pressure" in s.report
    assert s.result.exit_code == 1


def test_time_pressure_fp16_nan_leads_with_precision_tentatively():
    # where the NaN starts, what changed and the optimizer skipped; then the precision answered: fp16. (With the
    # optimizer declined, the LR rows that need it cannot be settled, so the LR is no longer the next best split.)
    s = consult(TIME_NAN, "skip", "skip", "skip", pick("Q-PRECISION", "fp16"), *SKIPS, fmt="json")
    d = s.data
    assert s.asked[:4] == [text_of(q) for q in ("Q-NAN-LOCATION", "Q-CHANGE", "Q-OPTIMIZER", "Q-PRECISION")]
    assert "-> mixed_precision = 'fp16'" in s.conversation
    assert d["status"] == "diagnosed" and d["question"] is None
    # An fp16 run that turns NaN most likely overflows the format: precision leads, marked tentative, and the
    # symptom table's gradient reading is shown under it, not beside it.
    assert d["plan"][0] == "batch-size-and-memory-tradeoffs" and d["tentative"] == "DF-SUS-HALF"
    assert roles(d)["gradient-management"] == "primary"
    assert roles(d)["learning-rate-scheduling"] == "secondary"  # lowering the LR is not the first response
    assert [f["id"] for f in d["findings"]] == ["DF-SUS-HALF"]  # one entry for the NaN, not two
    assert [e["id"] for e in d["findings"][0]["effects"]] == ["RT-UNST-01"]
    assert [n["rule"] for n in d["notes"] if n["name"] == "pressure_acknowledged"] == ["PR-TIME-01"]
    # FP16: the loss-scale strategy stays here, the GradScaler API is PyTorch's (joint, not out of scope).
    assert [(b["pack"], b["joint"], b["rule"]) for b in d["boundary"]] == [("pytorch-engineering", True, "RT-UNST-07")]
    assert s.result.exit_code == 1


# ------------------------------------------------------------------------------------------------------
# 2. Authority pressure towards SGD
# ------------------------------------------------------------------------------------------------------


def test_authority_pressure_routes_nothing_before_the_loss_curve():
    s = consult(AUTHORITY, "?", "quit")
    assert "considering=sgd" in s.conversation and "pressure=authority" in s.conversation
    assert acknowledged_before_first_question(s, "PR-AUTH-01")
    assert "taken as a hypothesis" in s.report
    assert s.asked == [text_of("Q-LOSS-BEHAVIOR")]
    assert f"Why: {question('Q-LOSS-BEHAVIOR').why}" in s.conversation
    # (after the quit the plan leads, tentatively, with the loop audit from what is known; never with the senior's
    # optimizer switch, and the loss-curve question stays in the report)
    assert "Asking stopped: quit" in s.report and "tentative lead" in s.report and "[Q-LOSS-BEHAVIOR]" in s.report
    assert s.plan == [("training-loop-architecture", "primary")]
    assert "changing the optimizer because someone senior said so, without diagnosis" in s.report
    assert s.result.exit_code == 1


def test_authority_pressure_flat_loss_routes_lr_not_the_suggested_optimizer():
    s = consult(AUTHORITY, pick("Q-LOSS-BEHAVIOR", "flat_from_start"), *SKIPS)
    assert "-> loss_behavior = 'flat_from_start'" in s.conversation
    assert s.plan[:2] == [("learning-rate-scheduling", "primary"), ("optimization-algorithms", "secondary")]
    assert "[DX-MIS-02]" in s.report  # the user's frame (switch optimizer) is corrected with the evidence
    # a graph cut first (one answer confirms that certain defect, which gives exactly a flat loss); then the LR,
    # the suspect the flat curve points at, with the optimizer before it, since what is too low depends on it
    assert s.asked[1] == text_of("Q-GRAPH-CUT")
    assert s.asked.index(text_of("Q-OPTIMIZER")) < s.asked.index(text_of("Q-LR"))
    # a user who skips the LR still gets the questions that split a flat loss: where zero_grad is called, does
    # the step run, does the optimizer hold every trainable parameter
    lr_at = s.asked.index(text_of("Q-LR"))
    after = s.asked[lr_at + 1:]
    assert all(text_of(q) in after for q in ("Q-ZERO-GRAD", "Q-OPT-STEP", "Q-OPT-PARAMS"))
    assert "Status: diagnosed" in s.report and "Answer Next" not in s.report
    assert s.result.exit_code == 1


def test_authority_without_any_symptom_asks_the_quick_verification():
    s = consult(AUTHORITY_ONLY, "why", "quit")
    assert s.asked == [text_of("Q-VERIFY-LOSS")]
    assert "Reasoning so far:" in s.conversation and "PR-HOLD-01" in s.conversation
    assert NO_ROUTE in s.report
    s = consult(AUTHORITY_ONLY, pick("Q-VERIFY-LOSS", "oscillating"), *SKIPS, fmt="json")
    d = s.data
    assert d["plan"] and roles(d).get("optimization-algorithms") != "primary"
    assert d["observations"]["loss_behavior"]["source"] == "answer:Q-VERIFY-LOSS"


# ------------------------------------------------------------------------------------------------------
# 3. "Should I use Muon?"
# ------------------------------------------------------------------------------------------------------


def test_muon_asks_the_reason_for_leaving_adamw_first():
    s = consult(MUON, "?", "why", "quit")
    assert "vague_query=modern_optimizer" in s.conversation
    assert s.asked == [text_of("Q-CLARIFY-MODERN")] and "AdamW" in s.asked[0]
    assert "Source: 001 · Ambiguous queries" in s.conversation
    # The trail shows the held route: the optimizer route fired and the clarification guard withdrew it.
    assert "CL-HOLD-03" in s.conversation and "retracted route optimization-algorithms" in s.conversation
    assert NO_ROUTE in s.report and s.plan == []
    assert "pressure_acknowledged" not in s.report  # a plain question is not pressure
    assert s.result.exit_code == 1


def test_muon_for_novelty_keeps_adamw():
    s = consult(MUON, pick("Q-CLARIFY-MODERN", "none"), *SKIPS)
    assert "-> switch_reason = 'none'" in s.conversation
    assert s.plan == [("optimization-algorithms", "primary")]
    assert "(section: modern optimizers)" in s.report
    assert "[MR-07]" in s.report and "[CL-ANS-MODERN-01]" in s.report
    assert "torch.optim.AdamW(" in s.report
    assert "switching optimizer because it is newer or popular" in s.report
    assert s.result.exit_code == 1  # MR-07 is a warning: stay on AdamW


def test_muon_for_instability_goes_to_gradients():
    s = consult(MUON, pick("Q-CLARIFY-MODERN", "instability"), pick("Q-LOSS-BEHAVIOR", "spiking"), *SKIPS, fmt="json")
    assert s.asked[:2] == [text_of("Q-CLARIFY-MODERN"), text_of("Q-LOSS-BEHAVIOR")]
    assert s.data["plan"][0] == "gradient-management"
    assert roles(s.data).get("optimization-algorithms") != "primary"


# ------------------------------------------------------------------------------------------------------
# 4. A CUDA OOM error pasted as the complaint
# ------------------------------------------------------------------------------------------------------


def test_cuda_oom_text_is_another_packs_problem():
    s = consult(OOM)
    assert "error_text=CUDA out of memory" in s.conversation
    assert s.asked == []  # nothing of ours to ask
    assert "Status: belongs to another pack" in s.report
    boundary = s.report.partition("Cross-Pack Boundary")[2]
    assert "pytorch-engineering (belongs there, load tensor-operations-and-memory)" in boundary
    assert "out-of-memory error is an infrastructure problem" in boundary and "[XB-ERR-01]" in boundary
    assert NO_ROUTE in s.report
    assert "tuning the optimizer or LR to make an OOM go away" in s.report
    assert s.result.exit_code == 0


def test_cuda_oom_json_report():
    s = consult(OOM, fmt="json")
    d = s.data
    assert d["status"] == "out_of_scope" and d["question"] is None and d["plan"] == []
    assert [(b["pack"], b["joint"], b["target"]) for b in d["boundary"]] == [
        ("pytorch-engineering", False, "tensor-operations-and-memory")]
    assert "Training Diagnosis" not in s.result.stdout and "complaint>" in s.result.stderr


# ------------------------------------------------------------------------------------------------------
# 5. DPO instability
# ------------------------------------------------------------------------------------------------------


def test_dpo_instability_is_joint_with_dynamics_here():
    s = consult(DPO, "quit")
    assert "task=preference_tuning" in s.conversation and "symptom=unstable" in s.conversation
    assert s.asked == [text_of("Q-OPTIMIZER")]
    boundary = s.report.partition("Cross-Pack Boundary")[2]
    assert "llm-specialist (shared with this pack, load llm-finetuning-strategies.md)" in boundary
    assert "method side" in boundary
    assert s.plan[:2] == [("gradient-management", "primary"), ("learning-rate-scheduling", "secondary")]
    assert ("optimization-algorithms", "primary") not in s.plan
    assert "assuming the optimizer alone fixes a preference-tuning instability" in s.report


def test_dpo_instability_in_bf16_adds_the_precision_branch():
    # the optimizer and the epoch-boundary question skipped, then the precision answered
    s = consult(DPO, "skip", "skip", pick("Q-PRECISION", "bf16"), *SKIPS, fmt="json")
    assert s.asked[:3] == [text_of(q) for q in ("Q-OPTIMIZER", "Q-EPOCH-JUMP", "Q-PRECISION")]
    d = s.data
    assert d["status"] == "diagnosed"
    assert d["plan"][0] == "gradient-management" and d["plan"][1] == "learning-rate-scheduling"
    assert "llm-specialist" in d["plan"]
    precision = [r for r in d["routes"] if r["skill"] == "batch-size-and-memory-tradeoffs"]
    assert precision and precision[0]["section"] == "precision"
    packs = {b["pack"]: b for b in d["boundary"]}
    assert packs["llm-specialist"]["joint"] and "XB-JOINT-01" in packs["llm-specialist"]["rules"]
    assert packs["pytorch-engineering"]["joint"]  # the AMP API there, the precision strategy here


# ------------------------------------------------------------------------------------------------------
# 6. "My model performs poorly"
# ------------------------------------------------------------------------------------------------------


def test_performs_poorly_asks_which_accuracy_and_routes_nothing():
    s = consult(POORLY, "?", "quit")
    assert "vague_query=performs_poorly" in s.conversation
    assert s.asked == [text_of("Q-CLARIFY-POOR")]
    assert f"Why: {question('Q-CLARIFY-POOR').why}" in s.conversation
    assert NO_ROUTE in s.report and "Status: needs one more answer" in s.report
    assert s.result.exit_code == 1


def test_performs_poorly_on_validation_is_overfitting():
    s = consult(POORLY, pick("Q-CLARIFY-POOR", "val"), *SKIPS)
    assert "-> poor_split = 'val'" in s.conversation
    assert s.asked[0] == text_of("Q-CLARIFY-POOR")
    assert s.plan[:2] == [("overfitting-prevention", "primary"), ("data-augmentation-strategies", "secondary")]
    assert "overfitting (from rule CL-ANS-POOR-02, which derived it)" in s.report
    assert "[DX-SYM-05]" in s.report


def test_performs_poorly_on_training_is_not_learning():
    s = consult(POORLY, pick("Q-CLARIFY-POOR", "train"), pick("Q-LOSS-BEHAVIOR", "flat_from_start"), *SKIPS,
                fmt="json")
    d = s.data
    assert s.asked[:2] == [text_of("Q-CLARIFY-POOR"), text_of("Q-LOSS-BEHAVIOR")]
    assert d["symptom"]["value"] == "not_learning"
    assert d["plan"][0] == "learning-rate-scheduling"
    assert "overfitting-prevention" not in d["plan"]
    assert roles(d).get("optimization-algorithms") != "primary"


def test_performs_poorly_back_revises_the_clarifying_answer():
    s = consult(POORLY, pick("Q-CLARIFY-POOR", "val"), "back", pick("Q-CLARIFY-POOR", "train"), "quit", fmt="json")
    assert "revising: " in s.conversation and "(was poor_split='val')" in s.conversation
    assert s.asked == [text_of("Q-CLARIFY-POOR"), text_of("Q-MODE-SWITCH"), text_of("Q-CLARIFY-POOR"),
                       text_of("Q-LOSS-BEHAVIOR")]
    d = s.data
    assert d["observations"]["poor_split"]["value"] == "train" and d["revisions"]
    assert "overfitting-prevention" not in d["plan"]


def test_performs_poorly_skipped_stays_unrouted():
    s = consult(POORLY, "skip", *SKIPS, fmt="json")
    d = s.data
    assert d["status"] == "insufficient" and d["plan"] == [] and "Q-CLARIFY-POOR" in d["declined"]
    assert s.result.exit_code == 1


# ------------------------------------------------------------------------------------------------------
# `trainopt diagnose -` on the same complaints
# ------------------------------------------------------------------------------------------------------


def diagnose(obs: dict[str, Any]) -> tuple[Result, dict[str, Any]]:
    r = CliRunner().invoke(cli, ["diagnose", "-", "--format", "json"], input=json.dumps(obs))
    return r, json.loads(r.stdout)


@pytest.mark.parametrize("complaint,status,qid,packs,plan_head,note", [
    (TIME_NAN, "needs_answer", "Q-NAN-LOCATION", [], "gradient-management", "PR-TIME-01"),
    (AUTHORITY, "needs_answer", "Q-LOSS-BEHAVIOR", [], None, "PR-AUTH-01"),
    (AUTHORITY_ONLY, "needs_answer", "Q-VERIFY-LOSS", [], None, "PR-AUTH-01"),
    (MUON, "needs_answer", "Q-CLARIFY-MODERN", [], None, None),
    (OOM, "out_of_scope", None, [("pytorch-engineering", False)], None, None),
    (DPO, "needs_answer", "Q-OPTIMIZER", [("llm-specialist", True)], "gradient-management", None),
    (POORLY, "needs_answer", "Q-CLARIFY-POOR", [], None, None),
])
def test_diagnose_stdin(complaint, status, qid, packs, plan_head, note):
    r, d = diagnose({"complaint": complaint})
    assert f"status: {status}" in r.stderr and "from stdin" in r.stderr
    assert d["status"] == status
    assert (d["question"] or {}).get("id") == qid
    assert [(b["pack"], b["joint"]) for b in d["boundary"]] == packs
    if plan_head is None:
        assert d["plan"] == []
    else:
        assert d["plan"][0] == plan_head
    acknowledged = [n["rule"] for n in d["notes"] if n["name"] == "pressure_acknowledged"]
    assert acknowledged == ([note] if note else [])
    assert r.exit_code == (0 if status == "out_of_scope" else 1)


@pytest.mark.parametrize("obs,routes,next_q", [
    ({"complaint": POORLY, "poor_split": "val"},
     [("overfitting-prevention", "primary"), ("data-augmentation-strategies", "secondary")], "Q-MODE-SWITCH"),
    ({"complaint": MUON, "switch_reason": "memory"},
     [("optimization-algorithms", "primary"), ("batch-size-and-memory-tradeoffs", "secondary")], None),
    ({"complaint": AUTHORITY, "loss_behavior": "flat_from_start"},
     [("learning-rate-scheduling", "primary"), ("optimization-algorithms", "secondary")], "Q-GRAPH-CUT"),
])
def test_diagnose_stdin_with_the_deciding_answer(obs, routes, next_q):
    r, d = diagnose(obs)
    assert [(x["skill"], x["role"]) for x in d["routes"]][: len(routes)] == routes
    assert (d["question"] or {}).get("id") == next_q
    assert d["boundary"] == []


def test_diagnose_stdin_bad_json_is_an_input_error():
    r = CliRunner().invoke(cli, ["diagnose", "-", "--format", "json"], input='{"complaint": ')
    assert r.exit_code == 2 and "malformed JSON in stdin" in r.stderr and r.stdout == ""


# ------------------------------------------------------------------------------------------------------
# `trainopt explain SKILL --why-not --observations -` names the guard
# ------------------------------------------------------------------------------------------------------


def explain(skill: str, obs: dict[str, Any], *extra: str) -> Result:
    args = ["explain", skill, "--why-not", "--observations", "-", *extra]
    return CliRunner().invoke(cli, args, input=json.dumps(obs))


def test_why_not_batch_size_names_the_gpu_utilization_guard():
    r = explain("batch-size-and-memory-tradeoffs", {"complaint": "training is slow"})
    assert r.exit_code == 0
    first = r.stdout.splitlines()
    assert first[0] == "Why not batch-size-and-memory-tradeoffs: a guard blocked it."
    assert first[1].startswith("├─ guard from MR-01 forbids batch-size-and-memory-tradeoffs")
    assert "GPU utilization is not known yet" in first[1]
    assert 'the phrase "slow" in your complaint' in r.stdout


def test_why_not_batch_size_json_and_guard_lifted_once_utilization_is_known():
    r = explain("batch-size-and-memory-tradeoffs", {"symptom": "slow_training"}, "--format", "json")
    e = json.loads(r.stdout)
    assert e["routed"] is False and e["tree"][0]["kind"] == "guard" and e["tree"][0]["rule"] == "MR-01"
    r = explain("batch-size-and-memory-tradeoffs", {"symptom": "slow_training", "gpu_utilization_pct": 30},
                "--format", "json")
    e = json.loads(r.stdout)
    assert not any(n["kind"] == "guard" for n in e["tree"])
    assert any(n.get("rule") == "RT-SLOW-03" for n in e["tree"])  # would route at >= 80% utilization


@pytest.mark.parametrize("complaint,skill,guards", [
    (AUTHORITY_ONLY, "optimization-algorithms", ("PR-HOLD-01", "PR-HOLD-03")),
    (AUTHORITY, "optimization-algorithms", ("MR-02", "MR-16")),
    (MUON, "optimization-algorithms", ("CL-HOLD-03",)),
    (POORLY, "overfitting-prevention", ("CL-HOLD-01",)),
])
def test_why_not_names_the_pressure_and_clarification_guards(complaint, skill, guards):
    r = explain(skill, {"complaint": complaint})
    assert r.exit_code == 0
    assert r.stdout.startswith(f"Why not {skill}: a guard blocked it.")
    for g in guards:
        assert f"guard from {g} forbids {skill}" in r.stdout, (g, r.stdout[:600])
