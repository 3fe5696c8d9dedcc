"""The Training Diagnosis report: JSON keys and plainness, Markdown/text layout, bad formats."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from expert.consultation import Consultation
from expert.report import as_json, render
from expert.wording import plain
from knowledge.errors import InputError
from knowledge.vocabulary import Observation

CONTRACT_KEYS = ["schema_version", "status", "question", "symptom", "findings", "routes", "plan", "boundary",
                 "fixes", "avoid", "trace"]
SECTIONS = ["## Training Diagnosis", "### Root Cause", "### What NOT to Do", "### Reference (ordered plan)",
            "### Answer Next", "### Diagnostic Questions Asked"]


def probe_case() -> Consultation:
    """What the demo's examine measures on a loop that forgets zero_grad, written out (no torch needed)."""
    carry = {"thresholds": {"MT-CARRYOVER": {"value": 3.0, "source": "PyTorch accumulates .grad across backward "
                                             "calls until zeroed, so the left-over grows by one gradient per step"}}}
    c = Consultation()
    c.add([
        Observation.make("grad_carryover", 150867705856.0, "probe:config_lint", carry),
        Observation.make("update_ratio", 0.4, "probe:update_ratio",
                         {"median": 0.4, "min": 0.02, "max": 0.9, "layers": 2, "largest": {"fc2": 0.9, "fc1": 0.02}}),
        Observation.make("grad_layer_ratio", 0.4102558144720085, "probe:grad_flow"),
        Observation.make("loss_behavior", "decreasing_normally", "probe:loss_curve"),
        Observation.make("optimizer", "sgd", "probe:config_lint", {"class": "SGD"}),
    ])
    return c


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


def test_markdown_puts_root_causes_first_and_each_once():
    c = nan_case()
    md = render(c, "markdown")
    positions = [md.index(s) for s in SECTIONS]
    assert positions == sorted(positions)
    d = c.diagnosis
    # The seed tables that read a NaN loss as an explosion are one root-cause row: one finding, shown once.
    explosion = [f for f in d.findings if f["category"] == "Explosion"]
    assert len(explosion) == 1
    assert md.count("] Explosion:") == 1 and "### Root Cause\n" in md
    assert ", ".join(f["id"] for f in explosion) in md
    plan_lines = [ln for ln in md.splitlines() if ln[:1].isdigit() and "Reference: `" in ln]
    assert [ln.split("Reference: `")[1].split("`")[0] for ln in plan_lines] == d.plan
    # each step says what to do in a sentence; the skill is the reference, not the advice
    assert all(ln.split(". ", 1)[1][:1].isupper() and ln.index(".", 3) < ln.index("Reference:") for ln in plan_lines)
    assert "How does the training loss behave over time? -> `loss_behavior = nan_or_inf`" in md


def test_no_section_that_says_nothing():
    clean = Consultation.from_json({"loss_behavior": {"value": "decreasing_normally", "source": "probe:loss_curve"}})
    out = render(clean, "text")
    assert clean.diagnosis.status == "clean"
    for empty in ("none yet", "not identified", "Root Cause", "What NOT to Do", "Reference (ordered plan)",
                  "nothing specific recorded"):
        assert empty not in out
    diagnosed = render(nan_case(), "text")
    assert "not identified" not in diagnosed and "Fix: none" not in diagnosed


def test_numbers_have_sensible_precision_and_units():
    from expert.wording import fmt_number, fmt_value

    assert fmt_number(0.0028583815241578774) == "0.00286"
    assert fmt_number(150867705856.0) == "1.51e+11"
    assert fmt_number(1234.5) == "1,234" and fmt_number(9007199254740993) == "9,007,199,254,740,993"
    assert fmt_value("gpu_utilization_pct", 35.0) == "35%" and fmt_value("nan_step", 812) == "812 steps"
    assert fmt_value("warmup", True) == "yes" and fmt_value("learning_rate", 3e-4) == "0.0003"
    c = probe_case()
    out = render(c, "text")
    assert "150867705856" not in out and "0.41025581" not in out


def test_probe_evidence_reads_as_a_measurement_with_its_threshold():
    out = render(probe_case(), "text")
    assert "grad_carryover measured 1.51e+11 > 3 (threshold MT-CARRYOVER: PyTorch accumulates" in out
    assert "from probe config_lint" in out
    assert "thresholds={" not in out and "{'" not in out  # no Python reprs
    assert "Training diagnostician" in out and ".txt" not in out  # seeds by what they are, not file hashes


def test_verbose_adds_the_trail_and_every_observation():
    c = probe_case()
    short, full = render(c, "text"), render(c, "text", verbose=True)
    assert "Audit Trail" not in short and "Audit Trail" in full
    assert "values measured by the probes" in short and "update_ratio = 0.4" in full
    assert len(full) > len(short)


def test_text_wraps_to_the_width_but_never_inside_code():
    out = render(nan_case(), "text", width=72)
    code = [ln for ln in out.splitlines() if "torch.isfinite(p.grad)" in ln]
    assert code and len(code[0]) > 72  # code is left whole
    prose = [ln for ln in out.splitlines() if ln not in code and "torch." not in ln and "assert " not in ln]
    assert max(len(ln) for ln in prose) <= 72
    assert render(nan_case(), "text").split() == out.split()  # wrapping moves line breaks, never words


def test_text_report_has_the_same_sections_without_markdown():
    out = render(nan_case(), "text")
    for s in SECTIONS:
        assert s.lstrip("# ") in out
    assert "###" not in out and "**" not in out


def test_json_ends_with_a_newline():
    assert render(nan_case(), "json").endswith("}\n")


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


# ---------------------------------------------------------------------------------------------------
# Golden reports: a handful of consultations in every format, compared byte for byte with tests/reports/.
# After an intended change, regenerate with `TRAINOPT_UPDATE_GOLDEN=1 pytest tests/test_report.py` and read the
# diff by eye before committing it.
# ---------------------------------------------------------------------------------------------------

GOLDEN = Path(__file__).parent / "reports"
GOLDEN_CASES = {
    "nan-needs-answer": nan_case,
    "zero-grad-probed": probe_case,
    "clean-run": lambda: Consultation.from_json(
        {"loss_behavior": {"value": "decreasing_normally", "source": "probe:loss_curve"}}),
    "cuda-oom": lambda: Consultation.from_json({"error_text": "RuntimeError: CUDA out of memory. Tried to allocate "
                                                              "2.00 GiB", "declined": []}),
    "overfitting-numbers": lambda: Consultation.from_json(
        {"symptom": "overfitting", "train_metric": "99%", "val_metric": 0.6, "dataset_size": "50k",
         "complaint": "my model overfits badly"}),
}
EXTENSIONS = {"text": "txt", "markdown": "md", "json": "json"}


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
@pytest.mark.parametrize("case", list(GOLDEN_CASES))
def test_golden_reports(case, fmt):
    out = render(GOLDEN_CASES[case](), fmt, width=100 if fmt == "text" else None)
    path = GOLDEN / f"{case}.{EXTENSIONS[fmt]}"
    if os.environ.get("TRAINOPT_UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(out, encoding="utf-8")
    assert path.is_file(), f"no golden file {path.name}: run with TRAINOPT_UPDATE_GOLDEN=1 and review it"
    assert out == path.read_text(encoding="utf-8"), f"{path.name} changed; regenerate and review the diff"


def test_consultation_and_diagnosis_render_themselves_in_jupyter():
    c = nan_case()
    assert c._repr_markdown_() == render(c, "markdown")
    md = c.diagnosis._repr_markdown_()
    assert md.startswith("## Training Diagnosis") and "### Root Cause" in md and "### Answer Next" in md
    assert [ln.split("Reference: `")[1].split("`")[0] for ln in md.splitlines()
            if ln[:1].isdigit() and "Reference: `" in ln] == c.diagnosis.plan
