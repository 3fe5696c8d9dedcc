"""Meta-tests over the knowledge rows: one row per cause, references that resolve, reports that agree with
themselves, and one reading of a row's conditions shared by the engine and every other reader."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from expert.consultation import Consultation
from expert.engine import EXPLAINED
from expert.facts import KINDS
from expert.kb import rule_catalogue
from knowledge import all_joins, all_questions, all_rows
from knowledge.errors import TrainoptError
from knowledge.measurements import MEASURE_BY_ID
from knowledge.schema import (
    FINDING_KINDS,
    Absent,
    Between,
    Contains,
    Find,
    Flag,
    Ge,
    Gt,
    Is,
    Le,
    Lt,
    Not,
    Present,
    RouteTo,
    Row,
    Words,
    holds,
)
from knowledge.skills import SKILL_BY_NAME
from knowledge.terms import ADVICE_ACTIONS, actions_in
from knowledge.vocabulary import VOCABULARY, validate

ROWS = all_rows()
FINDING_ROWS = [r for r in ROWS if any(isinstance(a, Find) for a in r.then)]
KNOWLEDGE = Path(__file__).resolve().parent.parent / "knowledge"


def _signature(row: Row) -> tuple[Any, ...]:
    return (tuple(sorted((k, repr(c)) for k, c in row.conditions().items())), tuple(sorted(row.need)),
            tuple(sorted(row.unless)))


def test_no_two_finding_rows_share_their_conditions():
    seen: dict[tuple[Any, ...], str] = {}
    for row in FINDING_ROWS:
        sig = _signature(row)
        assert sig not in seen, f"{row.id} restates {seen[sig]}: one root cause, one row"
        seen[sig] = row.id


def _flags_declared() -> set[str]:
    names = {a.name for r in ROWS for a in r.then if isinstance(a, Flag)} | {EXPLAINED}
    return names | {j.flag for j in all_joins()}


def _resolves(ref: str, flags: set[str]) -> bool:
    kind, _, key = ref.partition(":")
    if kind not in KINDS:
        return False
    if key in ("", "*"):
        return True
    finding_ids = {r.id for r in FINDING_ROWS}
    return {
        "finding": lambda: key in finding_ids,
        "finding_kind": lambda: key in FINDING_KINDS,
        "route": lambda: key in SKILL_BY_NAME,
        "block": lambda: key in SKILL_BY_NAME,
        "boundary": lambda: key in SKILL_BY_NAME or any(s.pack == key for s in SKILL_BY_NAME.values()),
        "flag": lambda: key in flags,
        "declined": lambda: key in {q.id for q in all_questions()},
        "question": lambda: key in {q.id for q in all_questions()},
        "origin": lambda: key in ("user", "probe"),
    }[kind]()


def test_every_need_and_unless_reference_resolves():
    flags = _flags_declared()
    bad = [(r.id, ref) for r in [*ROWS, *all_questions()] for ref in (*r.need, *r.unless) if not _resolves(ref, flags)]
    assert not bad, f"references to nothing: {bad}"


def test_every_row_condition_names_a_vocabulary_observation():
    bad = [(r.id, n) for r in [*ROWS, *all_questions()] for n in r.conditions() if n not in VOCABULARY]
    assert not bad, bad


def test_every_threshold_id_is_a_rule_the_cli_can_show():
    cat = rule_catalogue()
    for mid in MEASURE_BY_ID:
        assert mid not in cat, f"threshold id {mid} clashes with a rule id"


# ---------------------------------------------------------------------------------------------------
# witnesses: observations that satisfy a row, built from its own conditions
# ---------------------------------------------------------------------------------------------------


def _admissible(name: str, v: Any) -> bool:
    try:
        return validate(name, v) == v
    except TrainoptError:
        return False


def _witness_value(name: str, cond: Any) -> Any:
    """A value of observation ``name`` that satisfies ``cond`` and the vocabulary (None: no simple witness)."""
    spec = VOCABULARY[name]
    if isinstance(cond, Is):
        cands: list[Any] = list(cond.values)
    elif isinstance(cond, Not):
        cands = [c for c in (spec.choices or ()) if c not in cond.values]
    elif isinstance(cond, (Gt, Ge)):
        x = cond.limit
        cands = [x * 10, x * 2, x + 1, x + (1 - x) / 2, x]
    elif isinstance(cond, (Lt, Le)):
        x = cond.limit
        cands = [x / 10, x / 2, x - 1, x]
    elif isinstance(cond, Between):
        cands = [cond.low, (cond.low + cond.high) / 2]
    elif isinstance(cond, Contains):
        cands = list(cond.needles)
    elif isinstance(cond, Words):
        cands = list(cond.terms)
    elif isinstance(cond, Present):
        cands = list(spec.choices or ()) or [True, 1, 0.5, "x"]
    else:
        return None
    if spec.kind == "int":
        cands = [int(c) for c in cands if isinstance(c, (int, float)) and not isinstance(c, bool)]
    return next((c for c in cands if cond.test(c) and _admissible(name, c)), None)


def _witness(row: Row) -> dict[str, Any] | None:
    out = {}
    for name, cond in row.conditions().items():
        if isinstance(cond, Absent):
            continue
        v = _witness_value(name, cond)
        if v is None or not cond.test(v):
            return None
        out[name] = v
    return out


def _run(obs: dict[str, Any]) -> Consultation | None:
    try:
        c = Consultation.from_json(obs)
        c.run()
    except TrainoptError:
        return None  # contradictory or out-of-range witness: not a reachable report
    return c


PLAIN_ROWS = [r for r in ROWS if not r.need and _witness(r) is not None]


@pytest.mark.parametrize("row", PLAIN_ROWS, ids=[r.id for r in PLAIN_ROWS])
def test_the_engine_fires_a_row_exactly_when_the_shared_check_says_it_holds(row):
    obs = _witness(row)
    c = _run(obs)
    if c is None:
        pytest.skip("witness refused by the vocabulary")
    values = {k: o.value for k, o in c.observations.items()}
    fired = {f["rule"] for f in c.trace}
    derived = {a["name"]: a["value"] for f in c.trace for a in f["asserted"] if a["kind"] == "Obs"}
    if not holds(row, {**values, **derived}) or row.unless:
        return  # a derivation filled a condition the row needs unknown, or an exclusion may apply
    assert row.id in fired, f"{row.id} holds on {obs} but did not fire"


# ---------------------------------------------------------------------------------------------------
# a report never advises what its own What NOT to Do forbids
# ---------------------------------------------------------------------------------------------------


def _fix_advice(row: Row) -> set[str]:
    return actions_in(f"{row.fix.explain}\n{row.fix.code}") if row.fix else set()


def _advice(row: Row) -> set[str]:
    # what a row tells the user to do: its fix, and the primary plan step its routes add
    return _fix_advice(row) | actions_in("\n".join(t.why for t in row.then
                                                    if isinstance(t, RouteTo) and t.role == "primary"))


def _forbids(row: Row) -> set[str]:
    return set().union(*(actions_in(a) for a in row.avoid)) if row.avoid else set()


CONFLICTS = [(a, b) for a, b in itertools.permutations(ROWS, 2) if _advice(a) & _forbids(b)]


def test_the_action_lexicon_recognises_advice_and_avoid_texts():
    assert "lower_lr" in actions_in("Lower the peak LR (3-10x) and add a linear warmup")
    assert "lower_lr" in actions_in("lowering the LR as the first response to NaN")
    assert "switch_optimizer" in actions_in("switching optimizer before an LR range test")
    assert not actions_in("Zero the gradients once per optimizer step.")
    assert set(ADVICE_ACTIONS) >= {"lower_lr", "raise_lr", "switch_optimizer", "clip", "more_epochs"}


def test_no_reachable_report_advises_what_it_forbids():
    """For every pair of rows whose fix does what the other's avoid forbids, build the observations that fire
    both and check the report never carries both texts."""
    checked, bad = 0, []
    for a, b in CONFLICTS:
        wa, wb = _witness(a), _witness(b)
        if wa is None or wb is None or any(k in wb and wb[k] != v for k, v in wa.items()):
            continue
        c = _run({**wa, **wb})
        if c is None:
            continue
        checked += 1
        d = c.diagnosis
        # what the report shows a telling the user: its fix, and the plan steps written in its words
        does = _fix_advice(a) if a.id in {f["rule"] for f in d.fixes} else set()
        does |= actions_in("\n".join(r["why"] for r in d.routes if r["rule"] == a.id and r["role"] == "primary"))
        # (a row's own fix, steps and avoid are written together: "clip while the LR comes down" beside "do not
        # clip harder to make up for the LR" is one piece of advice)
        if any(x in d.avoid for x in b.avoid if x not in a.avoid and actions_in(x) & does):
            bad.append((a.id, b.id, sorted(_advice(a) & _forbids(b))))
    assert checked, "no conflicting pair was reachable: the check checked nothing"
    assert not bad, f"reports that advise what they forbid (fix row, avoid row, action): {bad}"


# ---------------------------------------------------------------------------------------------------
# one table for every number
# ---------------------------------------------------------------------------------------------------

PRESENCE = (0, 1)
"""Bounds that only say "any at all" (a count above 0, an accumulation over more than 1 step): not tunable."""


def test_every_row_threshold_cites_the_threshold_table():
    loose = [(r.id, t["observation"], t["test"]) for r in ROWS for t in r.thresholds()
             if not str(t["source"]).startswith("MT-") and t["value"] not in PRESENCE]
    assert not loose, f"thresholds outside knowledge.measurements.MEASURES: {loose}"


@pytest.mark.parametrize("mid", sorted(MEASURE_BY_ID))
def test_trainopt_rule_shows_every_threshold(mid):
    from click.testing import CliRunner

    from expert.cli import cli

    res = CliRunner().invoke(cli, ["rule", mid, "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["value"] == MEASURE_BY_ID[mid].value and data["source"] == MEASURE_BY_ID[mid].source
