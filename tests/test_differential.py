"""The differential's invariants: one entry per cause, a cause over the effects it explains, never no lead."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expert import Consultation
from knowledge import all_joins, all_rows
from knowledge.causes import TWINS
from knowledge.schema import ACTS, Between, Cond, Find, Ge, Gt, Is, Le, Lt, Present, RouteTo, Row, chain, yields_to
from knowledge.vocabulary import BOOL, ENUM, INT, VOCABULARY


def _satisfying(name: str, cond: Cond) -> Any:
    """One value of ``name`` that satisfies ``cond`` (None when none is obvious)."""
    if isinstance(cond, Is):
        return cond.values[0]
    if isinstance(cond, (Ge, Le)):
        return cond.limit
    spec = VOCABULARY[name]
    if isinstance(cond, Gt):
        high = spec.high if spec.high is not None else cond.limit * 2 + 1
        return (cond.limit + high) / 2 if spec.kind != INT else int(cond.limit) + 1
    if isinstance(cond, Lt):
        low = spec.low if spec.low is not None else cond.limit * 2 - 1
        return (cond.limit + low) / 2 if spec.kind != INT else int(cond.limit) - 1
    if isinstance(cond, Between):
        return (cond.low + cond.high) / 2
    if isinstance(cond, Present):
        return True if spec.kind == BOOL else spec.choices[0] if spec.kind == ENUM else None
    return None


def _evidence(row: Row) -> dict[str, Any]:
    values = {n: _satisfying(n, c) for n, c in row.conditions().items()}
    assert None not in values.values(), f"{row.id}: no obvious value satisfies {row.conditions()}"
    return values


def _primary(row: Row) -> set[str]:
    return {a.skill for a in row.then if isinstance(a, RouteTo) and a.role == "primary"}


@pytest.mark.parametrize("declared,measured", TWINS, ids=[f"{d.id}~{m.id}" for d, m in TWINS])
def test_declared_and_measured_forms_of_a_cause_route_alike(declared: Row, measured: Row) -> None:
    """"Parameters missing from the optimizer" said by the user and measured by the probe: one first stop."""
    runs = {}
    for row in (declared, measured):
        c = Consultation.from_json({**_evidence(row), "declined": ["Q-SYMPTOM"]})
        d = c.run()
        runs[row.id] = d
        assert [f["id"] for f in d.findings] == [row.id], f"{row.id} should be the one finding"
    plans = {rid: d.plan for rid, d in runs.items()}
    assert plans[declared.id][:1] == plans[measured.id][:1], plans
    assert set(plans[declared.id][:1]) <= _primary(declared)
    # One entry: the same finding text, routes and fix; only the evidence differs.
    assert declared.then == measured.then and declared.fix == measured.fix and declared.avoid == measured.avoid


def test_both_forms_together_give_one_finding() -> None:
    """A single cause, declared and measured at once, is one finding (the measurement is its evidence)."""
    for declared, measured in TWINS:
        c = Consultation.from_json({**_evidence(declared), **_evidence(measured)})
        d = c.run()
        assert [f["id"] for f in d.findings] == [measured.id]


def _explaining_causes() -> list[tuple[Row, str]]:
    """(cause row, symptom it explains) for every action-needing cause with plain evidence and a primary route."""
    from expert.kb import all_rows

    out = []
    for row in all_rows():
        finds = [a for a in row.then if isinstance(a, Find) and a.kind == "cause" and a.severity in ACTS]
        if not finds or not _primary(row) or row.need or "symptom" in row.conditions():
            continue
        try:
            _evidence(row)
        except AssertionError:
            continue
        out.extend((row, s) for f in finds for s in f.explains)
    return out


EXPLAINING = _explaining_causes()


def test_there_are_causes_that_explain_symptoms() -> None:
    assert len(EXPLAINING) > 20


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(EXPLAINING))
def test_a_cause_outranks_the_symptom_it_explains(pair: tuple[Row, str]) -> None:
    """The relation decides, not a salience number: with a cause's evidence and a symptom it explains, no
    symptom-table reading or tentative lead competes with it, and the plan starts where an evidenced cause leads.

    A row whose evidence also satisfies a row it yields to by design (named in its ``unless``; e.g. DX-NAN-05's
    NaN gradients under a finite loss with no norm course, which lead with the singular-backward suspect) stands
    aside for that row: the explanation it yields to leads instead, and may be a suspect; nothing else may.
    """
    row, symptom = pair
    c = Consultation.from_json({"symptom": symptom, **_evidence(row)})
    d = c.run()
    kinds = {f["id"]: f.get("kind") for f in d.findings}
    yielded_to = set(yields_to(all_rows()).get(row.id, ())) & set(kinds)
    assert row.id in kinds or yielded_to or any(k == "cause" for k in kinds.values()), (row.id, kinds)
    # no symptom-table reading ever competes; a suspect only where the cause yields to it by design
    assert not any(k == "symptom" or (k == "suspect" and fid not in yielded_to) for fid, k in kinds.items()), (
        row.id, symptom, kinds)
    leading = [f for f in d.findings if f.get("kind") == "cause" or f["id"] in yielded_to]
    assert d.plan and leading, (row.id, symptom, d.plan, kinds)


def test_no_consultation_ends_without_a_lead_once_asking_is_over() -> None:
    """Whatever is known (even nothing), declining every question ends with a tentative lead, not no route."""
    for start in ({}, {"task": "language_modeling"}, {"architecture": "cnn"}, {"symptom": "out_of_scope"},
                  {"optimizer_params": "frozen_held"}):
        declined: list[str] = []
        for _ in range(20):
            d = Consultation.from_json({**start, "declined": declined}).run()
            if d.question is None:
                break
            declined.append(d.question.id)
        assert d.question is None
        assert d.plan or d.boundary, (start, d.status)


def _effect_pairs() -> list[tuple[Row, Row]]:
    """(cause row, effect row) for every effect row that yields to a cause, both with plain, compatible evidence."""
    rows = {r.id: r for r in all_rows()}
    out = []
    for eid, causes in sorted(yields_to(rows.values()).items()):
        effect = rows[eid]
        for cid in sorted(causes):
            cause = rows[cid]
            if effect.need or cause.need:
                continue
            try:
                ev_c, ev_e = _evidence(cause), _evidence(effect)
            except AssertionError:
                continue
            if any(ev_c[k] != ev_e[k] for k in set(ev_c) & set(ev_e)):
                continue
            out.append((cause, effect))
    return out


EFFECT_PAIRS = _effect_pairs()


def test_there_are_row_pairs_of_cause_and_effect() -> None:
    assert len(EFFECT_PAIRS) > 30


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(EFFECT_PAIRS))
def test_a_cause_outranks_the_row_reading_its_effect(pair: tuple[Row, Row]) -> None:
    """With the evidence of a cause and of a reading it explains, the reading never stands beside the cause."""
    cause, effect = pair
    d = Consultation.from_json({**_evidence(effect), **_evidence(cause), "declined": ["Q-SYMPTOM"]}).run()
    ids = [f["id"] for f in d.findings]
    if cause.id in ids:
        assert effect.id not in ids, (cause.id, effect.id, ids)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(EFFECT_PAIRS))
def test_salience_does_not_decide_between_a_cause_and_its_effect(pair: tuple[Row, Row]) -> None:
    """Firing the effect's row first or last leaves the same findings and routes: the relation decides."""
    cause, effect = pair
    values = {**_evidence(effect), **_evidence(cause)}
    rows = all_rows()
    outcomes = []
    for effect_salience in (cause.salience + 50, cause.salience - 50):
        swapped = [dataclasses.replace(r, salience=effect_salience) if r.id == effect.id else r for r in rows]
        facts = chain(swapped, values, (), all_joins()).facts
        outcomes.append(sorted((k, key) for k, key, _ in facts if k in ("finding", "route")))
    assert outcomes[0] == outcomes[1], (cause.id, effect.id)
    assert ("finding", effect.id) not in outcomes[0] or ("finding", cause.id) not in outcomes[0]


# --- open candidates: only those something known speaks for --------------------------------------------------

def _open(complaint: str, decline_all: bool = False) -> tuple[Any, list[dict[str, Any]]]:
    c = Consultation()
    c.complain(complaint)
    d = c.run()
    while decline_all and d.question is not None:
        c.decline(d.question.id)
        d = c.run()
    return d, [e for e in d.differential if e["standing"] == "open"]


def test_a_plain_hang_lists_no_unrelated_open_causes() -> None:
    # Clarifications of other requests (preference tuning, a switch of optimizer) wait only on questions whose
    # own gates are unmet: possible for any run, evidence for none.
    d, opened = _open("training hangs")
    assert d.plan and d.plan[0] == "pytorch-engineering"
    assert opened == []


def test_open_causes_are_those_the_pending_question_can_confirm() -> None:
    d, opened = _open("my training loss becomes nan after a few epochs")
    assert d.question is not None and d.question.id == "Q-NAN-LOCATION"
    assert opened, "the causes the NaN's location would settle are the differential while it is asked"
    assert all("nan_location" in e["needs"] for e in opened)
    assert not any(e["id"].startswith("CL-") for e in opened)


def test_a_known_value_that_meets_a_condition_keeps_a_cause_open() -> None:
    from expert.choose import Pooled, supported

    row = Row("X-1", {"custom_loss": True, "nan_location": "loss"},
              (Find("Loss", "warning", "x", explains=("unstable",)),), "r", None)
    p = Pooled(row, "loss-functions-and-objectives", 2.0, ("unstable",), row.conditions(),
               frozenset(row.conditions()))
    assert supported(p, {"custom_loss": True}, applicable=())            # part of its evidence is in
    assert not supported(p, {"symptom": "unstable"}, applicable=())      # fits the symptom, nothing can ask
    assert supported(p, {"symptom": "unstable"}, applicable={"custom_loss", "nan_location"})
    assert not supported(p, {"symptom": "hang"}, applicable={"custom_loss", "nan_location"})
    assert not supported(p, {"custom_loss": False}, applicable=())       # a known value against it is not for it


@pytest.mark.parametrize("complaint, lead", [
    # where the evidence points away from the gradients, a NaN does not default to gradient management
    ("I take the log of the predicted probabilities in my loss and it goes nan after a while",
     "loss-functions-and-objectives"),
    ("after adding torch.sqrt of a distance to my loss, the gradients become nan", "loss-functions-and-objectives"),
    ("after switching to fp16 the loss becomes nan", "batch-size-and-memory-tradeoffs"),
    ("loss became nan after I increased the batch size from 32 to 256", "learning-rate-scheduling"),
    ("loss goes nan after I raised the learning rate to 1e-2", "learning-rate-scheduling"),
    ("loss becomes nan after resuming from a checkpoint", "training-loop-architecture"),
    # finite from the base weights, NaN from a derived checkpoint: the checkpoint's dtype and values, not the port
    ("the official script works with the original pretrained weights, but with my converted checkpoint the loss "
     "turns to nan", "batch-size-and-memory-tradeoffs"),
    # BatchNorm on a few examples per device: the per-device batch, not the LR
    ("my UNet with BatchNorm trains with 2 images per GPU and the loss goes nan after a while",
     "batch-size-and-memory-tradeoffs"),
])
def test_a_nan_leads_where_its_evidence_points(complaint: str, lead: str) -> None:
    d, _ = _open(complaint, decline_all=True)
    assert d.plan and d.plan[0] == lead, d.plan


@pytest.mark.parametrize("complaint, lead", [
    # a loss scale seen collapsing names the precision strategy; the provisional gradient stop does not lead it
    ("the loss scale drops to 1e-4 and training stops with fp16", "batch-size-and-memory-tradeoffs"),
    # a bare instability still starts at the gradients
    ("my training is unstable", "gradient-management"),
])
def test_a_collapsing_loss_scale_leads_to_the_precision_strategy(complaint: str, lead: str) -> None:
    d, _ = _open(complaint, decline_all=True)
    assert d.plan and d.plan[0] == lead, d.plan


def _lead_of(obs: dict[str, Any]) -> tuple[Any, dict[str, dict[str, Any]]]:
    c = Consultation.from_json(obs)
    c.run()
    return c.diagnosis, {e["id"]: e for e in c.diagnosis.differential}


@pytest.mark.parametrize(("obs", "suspect", "lint", "first"), [
    # a diverging fp16 transformer without warmup: the format's lead, not the warmup lint, not the default stop
    ({"symptom": "unstable", "loss_behavior": "diverging", "architecture": "transformer", "optimizer": "adamw",
      "warmup": False, "mixed_precision": "fp16"}, "DF-SUS-HALF", "AP-02", "batch-size-and-memory-tradeoffs"),
    # an unrelated lint (Adam's coupled weight decay) beside a detector's NaN
    ({"symptom": "unstable", "loss_behavior": "nan_or_inf", "task": "detection", "optimizer": "adam",
      "weight_decay": 0.01}, "DF-SUS-LR-DET", "AP-01", "learning-rate-scheduling"),
])
def test_a_suspect_that_explains_the_symptom_leads_over_a_standing_lint(obs: dict[str, Any], suspect: str,
                                                                       lint: str, first: str) -> None:
    d, diff = _lead_of(obs)
    assert d.primary_cause is None and d.tentative == suspect
    assert d.plan[0] == first
    assert diff[suspect]["standing"] == "leading" and diff[suspect]["tentative"]
    assert diff[lint]["standing"] == "standing", "the warning is still shown, beside the lead"
    assert d.findings[0]["id"] == suspect, "the lead is listed first, the warning beside it"
    assert lint in {f["id"] for f in d.findings}


def test_a_lint_alone_still_leads() -> None:
    # Nothing about the run is known: the configuration warning is what it is read by.
    d, diff = _lead_of({"architecture": "transformer", "optimizer": "adamw", "warmup": False})
    assert d.primary_cause == "AP-02" and d.tentative is None
    assert d.plan == ["learning-rate-scheduling"] and diff["AP-02"]["standing"] == "leading"
    # With a symptom but no suspect and no cause, it stays the best-supported reading (its route follows the run's).
    d, diff = _lead_of({"symptom": "not_learning", "architecture": "transformer", "optimizer": "adamw",
                        "warmup": False})
    assert d.primary_cause == "AP-02" and diff["AP-02"]["standing"] == "leading"


def test_a_cause_still_outranks_a_suspect_and_a_lint() -> None:
    # An evidenced defect (fp16 without loss scaling) beside the warmup lint: the defect leads, untentatively.
    d, diff = _lead_of({"symptom": "unstable", "loss_behavior": "diverging", "architecture": "transformer",
                        "optimizer": "adamw", "warmup": False, "mixed_precision": "fp16", "grad_scaler": False})
    assert d.primary_cause == "AP-03" and d.tentative is None
    assert diff["AP-03"]["standing"] == "leading" and not diff["AP-03"]["tentative"]
