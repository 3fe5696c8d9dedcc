"""Explanations: why a skill was routed (route <- rule <- facts <- provenance) and why another was not."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from expert.consultation import Consultation
from expert.explain import explain, final_facts
from knowledge import all_rows
from knowledge.errors import InputError
from knowledge.schema import RouteTo
from knowledge.skills import SPECIALISTS
from knowledge.vocabulary import Observation


def walk(node):
    yield node
    for c in node["children"]:
        yield from walk(c)


def nan_case() -> Consultation:
    c = Consultation()
    c.answer("Q-SYMPTOM", "unstable")
    c.add([Observation.make("loss_behavior", "nan_or_inf", "probe:loss-finite", {"first_nonfinite_step": 812})])
    c.observe(mixed_precision="fp16")
    return c


def test_why_goes_from_route_to_rule_to_facts_to_provenance():
    c = nan_case()
    d = c.diagnosis
    skill = d.plan[0]
    route = d.routes[0]
    e = c.explain(skill)
    assert e.routed and e.role == route["role"]
    tree = e.as_dict()["tree"]
    json.dumps(e.as_dict())
    root = tree[0]
    assert root["kind"] == "route" and root["skill"] == skill
    rules = [n["rule"] for n in root["children"] if n["kind"] == "rule"]
    assert rules and set(rules) <= set(route["rules"])
    nodes = list(walk(root))
    sources = [n for n in nodes if n["kind"] == "source"]
    assert any(n.get("question") == "Q-SYMPTOM" for n in sources)
    probe = [n for n in sources if n.get("probe") == "loss-finite"]
    assert probe and probe[0]["measured"] == {"first_nonfinite_step": 812}
    text = e.text()
    assert text.splitlines()[0].startswith(f"Why {skill}")
    assert "└─" in text and "your answer to Q-SYMPTOM" in text and "first_nonfinite_step=812" in text


def test_why_for_a_skill_not_in_the_plan_says_so():
    c = nan_case()
    skill = next(s for s in SPECIALISTS if s not in c.diagnosis.plan)
    e = explain(c, skill)
    assert not e.routed and e.nodes == [] and "not in the plan" in e.summary


def test_why_not_lists_rows_and_the_conditions_that_did_not_hold():
    c = nan_case()
    plan = c.diagnosis.plan
    targets = {a.skill for r in all_rows() for a in r.then if isinstance(a, RouteTo)}
    skill = next(s for s in SPECIALISTS if s not in plan and s in targets)
    e = c.explain(skill, why_not=True)
    assert not e.routed and e.summary.startswith(f"Why not {skill}")
    rows = [n for n in e.as_dict()["tree"] if n["kind"] == "row"]
    expected = {r.id for r in all_rows() if any(isinstance(a, RouteTo) and a.skill == skill for a in r.then)}
    assert {n["rule"] for n in rows} <= expected and rows
    for n in rows:
        if not n["fired"]:
            assert n["unmet"], f"{n['rule']} shows no unmet condition"
    facts = {f["name"]: f["value"] for f in final_facts(c) if f["kind"] == "Obs"}
    for n in rows:
        for u in n["unmet"]:
            if "observation" in u:
                assert u["actual"] == facts.get(u["observation"])


def test_why_not_names_the_question_that_would_supply_a_missing_observation():
    c = Consultation()
    c.observe(symptom="not_learning")
    rows = [r for r in all_rows() if "loss_behavior" in r.when and any(isinstance(a, RouteTo) for a in r.then)]
    assert rows
    skill = next(a.skill for a in rows[0].then if isinstance(a, RouteTo))
    if skill in c.diagnosis.plan:
        pytest.skip("routed without a loss curve")
    text = c.explain(skill, why_not=True).text()
    assert "loss_behavior is not known" in text and "Q-LOSS-BEHAVIOR" in text


def test_unknown_skill_lists_the_skills():
    with pytest.raises(InputError) as err:
        nan_case().explain("adam-tuning")
    assert "unknown skill 'adam-tuning'" in err.value.render()
    assert "gradient-management" in err.value.render()


# -- a hand-built trail: a derived observation and a guard (independent of which rows exist) -------------


def fake_consultation():
    obs = {"loss_behavior": Observation.make("loss_behavior", "nan_or_inf", "text:goes NaN")}
    o = lambda name, value, source: {"kind": "Obs", "name": name, "value": value, "source": source}  # noqa: E731
    derived = o("symptom", "unstable", "derived:DV-TEST-01")
    route_gm = {"kind": "Route", "skill": "gradient-management", "role": "primary", "pack": "training-optimization",
                "rule": "RT-TEST-02", "why": "w", "section": ""}
    route_oa = dict(route_gm, skill="optimization-algorithms", rule="RT-TEST-02")
    block = {"kind": "Block", "skill": "optimization-algorithms", "role": "any", "rule": "CM-TEST-03",
             "reason": "switching optimizers does not fix a NaN"}
    trace = [
        {"seq": 1, "rule": "DV-TEST-01", "kind": "row", "family": "t", "cite": None,
         "matched": [o("loss_behavior", "nan_or_inf", "text:goes NaN")], "asserted": [derived], "retracted": []},
        {"seq": 2, "rule": "RT-TEST-02", "kind": "row", "family": "t", "cite": None,
         "matched": [derived], "asserted": [route_gm, route_oa], "retracted": []},
        {"seq": 3, "rule": "CM-TEST-03", "kind": "row", "family": "t", "cite": None,
         "matched": [derived], "asserted": [block], "retracted": []},
        {"seq": 4, "rule": "CORE-GUARD-01", "kind": "core", "family": "core", "cite": None,
         "matched": [route_oa, block], "asserted": [], "retracted": [route_oa]},
    ]
    routes = [dict(route_gm, rules=["RT-TEST-02"])]
    diag = SimpleNamespace(routes=routes, plan=["gradient-management"])
    return SimpleNamespace(trace=trace, observations=obs, asked=[], complaints=["my loss goes NaN after a while"],
                           diagnosis=diag)


def test_why_recurses_through_derived_observations_to_the_complaint():
    e = explain(fake_consultation(), "gradient-management")
    nodes = list(walk(e.as_dict()["tree"][0]))
    rules = [n["rule"] for n in nodes if n["kind"] == "rule"]
    assert rules == ["RT-TEST-02", "DV-TEST-01"]
    phrase = [n for n in nodes if n.get("phrase") == "goes NaN"]
    assert phrase and phrase[0]["complaint"] == "my loss goes NaN after a while"
    assert 'the phrase "goes NaN" in your complaint' in e.text()


def test_why_not_shows_the_guard_that_blocked_the_route():
    fake = fake_consultation()
    e = explain(fake, "optimization-algorithms", why_not=True)
    assert "a guard blocked it" in e.summary
    guard = e.as_dict()["tree"][0]
    assert guard["kind"] == "guard" and guard["rule"] == "CORE-GUARD-01" and guard["action"] == "removed"
    assert guard["reason"] == "switching optimizers does not fix a NaN" and guard["blocked_by"] == "CM-TEST-03"
    assert guard["children"][0]["rule"] == "CM-TEST-03"
    assert "switching optimizers does not fix a NaN" in e.text()
    standing = [f for f in final_facts(fake) if f["kind"] == "Route"]
    assert [r["skill"] for r in standing] == ["gradient-management"]


def test_why_not_shows_the_nearest_rows_first_and_hides_those_ruled_out():
    c = nan_case()
    skill = "overfitting-prevention"
    assert skill not in c.diagnosis.plan
    e = c.explain(skill, why_not=True)
    rows = [n for n in e.as_dict()["tree"] if n["kind"] == "row"]
    keys = [(not r["could_apply"], r["distance"]) for r in rows]
    assert keys == sorted(keys)  # nearest first
    ruled_out = [r for r in rows if not r["could_apply"]]
    could = [r for r in rows if r["could_apply"]]
    assert ruled_out and could, "this case needs both kinds"
    for r in ruled_out:
        assert any(u.get("contradicted") for u in r["unmet"])
    for r in could:
        assert not any(u.get("contradicted") for u in r["unmet"])
    text = e.text()
    assert all(f"row {r['rule']} " in text for r in could)
    assert not any(f"row {r['rule']} " in text for r in ruled_out)
    assert f"({len(ruled_out)} more row" in text
    full = e.text(verbose=True)
    assert all(f"row {r['rule']} " in full for r in rows) and "more row" not in full


def test_explain_text_wraps_under_the_tree():
    e = nan_case().explain("overfitting-prevention", why_not=True)
    wrapped = e.text(width=60)
    assert max(len(ln) for ln in wrapped.splitlines()) <= 60
    assert wrapped.split() != [] and "".join(wrapped.split()).replace("│", "") \
        == "".join(e.text().split()).replace("│", "")
    tree = e.rich_tree()
    assert tree.children and "Why not overfitting-prevention" in str(tree.label)
