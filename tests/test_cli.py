"""Every `trainopt` command through click's CliRunner, including bad input and the exit codes."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from expert.cli import cli, exit_code_for
from expert.consultation import Consultation
from expert.kb import rule_catalogue
from knowledge import all_questions, all_rows

NAN = {"symptom": "unstable", "loss_behavior": "nan_or_inf"}
CLEAN = {"loss_behavior": {"value": "decreasing_normally", "source": "probe:loss-trend"}}


@pytest.fixture
def runner():
    return CliRunner()


def write(tmp_path, data, name="obs.json"):
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(p)


def test_help_and_version(runner):
    r = runner.invoke(cli, ["--help"])
    assert r.exit_code == 0
    for cmd in ("consult", "diagnose", "explain", "facts", "rules", "rule", "skills", "demo"):
        assert cmd in r.output
    assert "Exit codes" in r.output
    r = runner.invoke(cli, ["--version"])
    assert r.exit_code == 0 and r.output.startswith("trainopt ")


def test_facts_text_and_json(runner):
    r = runner.invoke(cli, ["facts"])
    assert r.exit_code == 0 and "loss_behavior" in r.output and "allowed:" in r.output
    r = runner.invoke(cli, ["facts", "--format", "json"])
    names = {o["name"]: o for o in json.loads(r.stdout)["observations"]}
    assert names["symptom"]["question"] == "Q-SYMPTOM" and "unstable" in names["symptom"]["choices"]


def test_rules_lists_every_rule(runner):
    r = runner.invoke(cli, ["rules", "--format", "json"])
    assert r.exit_code == 0
    rows = json.loads(r.stdout)["rules"]
    assert [x["id"] for x in rows] == list(rule_catalogue())
    assert all(x["family"] and x["kind"] in ("row", "question", "join", "core") for x in rows)
    r = runner.invoke(cli, ["rules"])
    assert r.exit_code == 0
    assert all(rid in r.stdout for rid in rule_catalogue())


def test_rule_shows_a_row_a_question_and_a_core_rule(runner):
    row = all_rows()[0]
    r = runner.invoke(cli, ["rule", row.id])
    assert r.exit_code == 0, r.output
    assert row.id in r.output and "when:" in r.output and "then:" in r.output and row.cite.table in r.output
    d = json.loads(runner.invoke(cli, ["rule", row.id, "--format", "json"]).stdout)
    assert d["conditions"] and d["conclusions"] and "thresholds" in d and d["cite"]["table"] == row.cite.table
    q = all_questions()[0]
    r = runner.invoke(cli, ["rule", q.id.lower()])
    assert r.exit_code == 0 and q.text in r.output
    r = runner.invoke(cli, ["rule", "CORE-GUARD-01"])
    assert r.exit_code == 0 and "guard" in r.output.lower()


def test_rule_with_thresholds_shows_their_source(runner):
    rows = [r for r in all_rows() if r.thresholds()]
    if not rows:
        pytest.skip("no row with a numeric threshold yet")
    d = json.loads(runner.invoke(cli, ["rule", rows[0].id, "--format", "json"]).stdout)
    assert d["thresholds"] and all(t["source"] for t in d["thresholds"])


def test_unknown_rule_is_a_usage_error(runner):
    r = runner.invoke(cli, ["rule", "RT-NOPE-99"])
    assert r.exit_code == 2 and "unknown rule 'RT-NOPE-99'" in r.stderr


def test_skills_text_and_json(runner):
    r = runner.invoke(cli, ["skills"])
    assert r.exit_code == 0 and "gradient-management" in r.output and "Scenario orders" in r.output
    g = json.loads(runner.invoke(cli, ["skills", "--format", "json"]).stdout)
    assert g["graphs"]["diagnostic"]["edges"] and g["scenarios"]


def test_diagnose_json_from_a_file(runner, tmp_path):
    r = runner.invoke(cli, ["diagnose", write(tmp_path, NAN), "--format", "json"])
    data = json.loads(r.stdout)
    assert data["schema_version"] and data["findings"]
    assert "status:" in r.stderr  # progress goes to stderr, stdout stays JSON
    assert r.exit_code == 1  # a critical finding needs action


def test_diagnose_stdin_markdown_and_text(runner):
    r = runner.invoke(cli, ["diagnose", "-", "--format", "markdown"], input=json.dumps(NAN))
    assert r.stdout.startswith("## Training Diagnosis") and r.exit_code == 1
    r = runner.invoke(cli, ["diagnose", "-"], input=json.dumps(NAN))
    assert r.stdout.startswith("Training Diagnosis\n")


def test_diagnose_reports_the_pending_question_and_exits_1(runner):
    r = runner.invoke(cli, ["diagnose", "-", "--format", "json"], input=json.dumps({"symptom": "unstable"}))
    data = json.loads(r.stdout)
    assert data["status"] == "needs_answer" and data["question"]["id"] and r.exit_code == 1
    r = runner.invoke(cli, ["diagnose", "-"], input=json.dumps({"symptom": "unstable"}))
    assert "Answer Next" in r.stdout


def test_diagnose_declined_and_complaint_keys(runner):
    first = json.loads(runner.invoke(cli, ["diagnose", "-", "--format", "json"],
                                     input=json.dumps({"symptom": "unstable"})).stdout)["question"]["id"]
    data = json.loads(runner.invoke(cli, ["diagnose", "-", "--format", "json"],
                                    input=json.dumps({"symptom": "unstable", "declined": [first]})).stdout)
    assert data["declined"] == [first] and (data["question"] or {}).get("id") != first
    r = runner.invoke(cli, ["diagnose", "-", "--format", "json"],
                      input=json.dumps({"complaint": "loss is NaN after 3 epochs"}))
    assert json.loads(r.stdout)["complaints"] == ["loss is NaN after 3 epochs"]


def test_diagnose_clean_exits_0(runner):
    r = runner.invoke(cli, ["diagnose", "-", "--format", "json"], input=json.dumps(CLEAN))
    assert json.loads(r.stdout)["status"] == "clean" and r.exit_code == 0


@pytest.mark.parametrize(("payload", "message"), [
    ('{"symptom": ', "malformed JSON"),
    ("", "is empty"),
    ("[1, 2]", "expected a JSON object"),
    ('{"symptom": "unstable", "gpu_temperature": 80}', "unknown observation name 'gpu_temperature'"),
    ('{"batch_size": "many"}', "bad value 'many' for 'batch_size'"),
    ('{"learning_rate": -1}', "allowed: a finite number"),
    ('{"warmup": 3}', "allowed: true or false"),
    ('{"complaint": 42}', "'complaint' must be text"),
])
def test_diagnose_bad_input_exits_2_with_a_clear_message(runner, payload, message):
    r = runner.invoke(cli, ["diagnose", "-"], input=payload)
    assert r.exit_code == 2, r.output
    assert message in r.stderr and r.stderr.startswith("error:")
    assert r.stdout == ""


def test_diagnose_missing_file(runner, tmp_path):
    r = runner.invoke(cli, ["diagnose", str(tmp_path / "nope.json")])
    assert r.exit_code == 2 and "cannot read" in r.stderr


def test_explain_from_a_saved_report_and_from_observations(runner, tmp_path):
    report = runner.invoke(cli, ["diagnose", write(tmp_path, NAN), "--format", "json"]).stdout
    plan = json.loads(report)["plan"]
    path = write(tmp_path, report, "report.json")
    r = runner.invoke(cli, ["explain", plan[0], "--report", path])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith(f"Why {plan[0]}") and "└─" in r.stdout
    r = runner.invoke(cli, ["explain", plan[0], "--observations", "-", "--format", "json"], input=json.dumps(NAN))
    d = json.loads(r.stdout)
    assert d["routed"] and d["tree"][0]["kind"] == "route"
    other = next(s for s in ("overfitting-prevention", "experiment-tracking", "data-augmentation-strategies")
                 if s not in plan)
    r = runner.invoke(cli, ["explain", other, "--why-not", "--report", path])
    assert r.exit_code == 0 and r.stdout.startswith(f"Why not {other}")


def test_explain_bad_usage(runner, tmp_path):
    path = write(tmp_path, NAN)
    r = runner.invoke(cli, ["explain", "gradient-management"])
    assert r.exit_code == 2 and "exactly one of" in r.output
    r = runner.invoke(cli, ["explain", "gradient-management", "--report", path, "--observations", path])
    assert r.exit_code == 2
    r = runner.invoke(cli, ["explain", "nope", "--observations", path])
    assert r.exit_code == 2 and "unknown skill 'nope'" in r.stderr
    r = runner.invoke(cli, ["explain", "gradient-management", "--report", path])
    assert r.exit_code == 2 and "not a trainopt JSON report" in r.stderr


def test_demo_replays_the_shipped_consultation(runner):
    r = runner.invoke(cli, ["demo", "--replay"])
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "complaint:" in out and "Training Diagnosis" in out and "Audit trail" in out and "Ordered plan:" in out
    assert out.index("complaint:") < out.index("Training Diagnosis") < out.index("Audit trail")
    r = runner.invoke(cli, ["demo", "--list"])
    assert "nan-fp16-custom-loss" in r.stdout
    r = runner.invoke(cli, ["demo", "--replay", "--format", "json"])
    data = json.loads(r.stdout)
    assert data["status"] != "needs_answer" and data["plan"] and "Q1." in r.stderr
    r = runner.invoke(cli, ["demo", "--example", "nope"])
    assert r.exit_code == 2 and "unknown example" in r.stderr


def test_internal_errors_exit_3(runner, monkeypatch):
    import expert.plan

    def boom():
        raise RuntimeError("kaboom")

    monkeypatch.setattr(expert.plan, "describe_graphs", boom)
    r = runner.invoke(cli, ["skills"])
    assert r.exit_code == 3 and "internal error: RuntimeError: kaboom" in r.stderr


def test_exit_code_policy():
    c = Consultation.from_json(NAN)
    assert exit_code_for(c) == 1
    assert exit_code_for(Consultation.from_json({"symptom": "unstable"})) == 1
    assert exit_code_for(Consultation.from_json(CLEAN)) == 0


class _Terminal:
    """A stdout that says it is a terminal, to see what a person at one gets."""

    def __init__(self) -> None:
        import io

        self.buf = io.StringIO()

    def write(self, s: str) -> int:
        return self.buf.write(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_report_on_a_terminal_is_wrapped_and_no_color_is_respected(monkeypatch):
    from expert.report import print_report

    term = _Terminal()
    monkeypatch.setattr("sys.stdout", term)
    monkeypatch.setenv("COLUMNS", "70")
    monkeypatch.setenv("NO_COLOR", "1")
    c = Consultation.from_json(NAN)
    print_report(c, "text")
    out = term.buf.getvalue()
    assert "\x1b[" not in out and out.startswith("Training Diagnosis")
    prose = [ln for ln in out.splitlines() if not ln.startswith("      ")]  # code lines are never wrapped
    assert max(map(len, prose)) <= 70
    piped = c.report("text")
    assert max(map(len, piped.splitlines())) > 70  # a pipe or file gets whole lines, for grep


def test_verbose_flag_adds_the_audit_trail(runner):
    r = runner.invoke(cli, ["diagnose", "-", "--verbose"], input=json.dumps(NAN))
    assert "Audit Trail" in r.stdout and r.exit_code == 1
    r = runner.invoke(cli, ["diagnose", "-"], input=json.dumps(NAN))
    assert "Audit Trail" not in r.stdout
