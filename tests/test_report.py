"""The Training Diagnosis report: JSON keys and plainness, Markdown/text layout, bad formats."""

from __future__ import annotations

import json

import pytest

from expert.consultation import Consultation
from expert.errors import InputError
from expert.report import as_json, plain, render
from expert.vocabulary import Observation

CONTRACT_KEYS = ["schema_version", "status", "question", "symptom", "findings", "routes", "plan", "boundary",
                 "fixes", "avoid", "trace"]
SECTIONS = ["## Training Diagnosis", "### Symptom Identified", "### Diagnostic Questions Asked", "### Root Cause",
            "### Fix", "### What NOT to Do", "### Reference (ordered plan)"]


def nan_case() -> Consultation:
    c = Consultation()
    c.observe(symptom="unstable")
    c.answer("Q-LOSS-BEHAVIOR", "nan_or_inf")
    return c


def test_json_has_the_contract_keys_in_order_and_is_plain():
    c = nan_case()
    data = as_json(c)
    assert list(data)[: len(CONTRACT_KEYS)] == CONTRACT_KEYS
    assert data["schema_version"] == "1.0"
    assert data["status"] in ("diagnosed", "needs_answer", "out_of_scope", "insufficient", "clean")
    text = render(c, "json")
    assert json.loads(text) == data
    for f in data["findings"]:
        assert {"id", "category", "severity", "issue", "evidence"} <= set(f)
        assert f["severity"] in ("info", "warning", "critical")
    for r in data["routes"]:
        assert {"skill", "role", "pack", "why", "rule", "sheet"} <= set(r)
        assert r["role"] in ("primary", "secondary")
    assert data["plan"] == [r["skill"] for r in data["routes"]]
    assert data["trace"] and all({"seq", "rule", "matched", "asserted"} <= set(t) for t in data["trace"])


def test_json_carries_observations_with_provenance_and_rebuilds_the_same_diagnosis():
    c = nan_case()
    data = json.loads(render(c, "json"))
    assert data["observations"]["loss_behavior"] == {"value": "nan_or_inf", "source": "answer:Q-LOSS-BEHAVIOR"}
    assert data["asked"][0]["question"] == "Q-LOSS-BEHAVIOR"
    obs = dict(data["observations"])
    obs["declined"] = data["declined"]
    again = Consultation.from_json(obs)
    assert again.diagnosis.plan == c.diagnosis.plan
    assert [t["rule"] for t in again.trace] == [t["rule"] for t in c.trace]


def test_probe_measurements_reach_the_evidence():
    c = Consultation()
    c.observe(symptom="unstable")
    c.add([Observation.make("loss_behavior", "nan_or_inf", "probe:loss-finite", {"first_nonfinite_step": 812})])
    data = as_json(c)
    ev = [e for f in data["findings"] for e in f["evidence"] if e["observation"] == "loss_behavior"]
    assert ev and ev[0]["measured"] == {"first_nonfinite_step": 812}
    assert ev[0]["source"] == "probe:loss-finite"
    md = render(c, "markdown")
    assert "first_nonfinite_step=812" in md
    assert "probe loss-finite" in md


def test_markdown_follows_the_training_diagnosis_layout():
    c = nan_case()
    md = render(c, "markdown")
    positions = [md.index(s) for s in SECTIONS]
    assert positions == sorted(positions)
    d = c.diagnosis
    for f in d.findings:
        assert f"- **Category:** {f['category']}" in md
        assert f["issue"] in md
    plan_lines = [ln for ln in md.splitlines() if ln[:1].isdigit() and "` [" in ln]
    assert [ln.split("`")[1] for ln in plan_lines] == d.plan
    assert "How does the training loss behave over time? -> `loss_behavior = 'nan_or_inf'`" in md


def test_pending_question_is_reported_as_answer_next():
    c = Consultation()
    c.observe(symptom="unstable")
    q = c.question
    assert q is not None
    for fmt in ("markdown", "text"):
        out = render(c, fmt)
        assert "Answer Next" in out
        assert q.text in out and q.why in out
        assert f'"{q.sets}": <value>' in out
    assert as_json(c)["question"]["id"] == q.id


def test_text_report_has_the_same_sections_without_markdown():
    out = render(nan_case(), "text")
    for s in SECTIONS:
        assert s.lstrip("# ") in out
    assert "###" not in out and "**" not in out


def test_unknown_format_is_refused():
    with pytest.raises(InputError, match="unknown report format 'html'"):
        render(nan_case(), "html")
    with pytest.raises(InputError):
        nan_case().report("yaml")


def test_plain_converts_frozendicts_and_tuples():
    from expert._experta import Fact

    f = Fact(a=1, b=[1, 2], c={"x": (1, 2)})
    out = plain(f.as_dict())
    json.dumps(out)
    assert out["c"] == {"x": [1, 2]} and out["b"] == [1, 2]
    assert plain({1, 2}) == [1, 2]
    assert plain(object()).startswith("<object")
