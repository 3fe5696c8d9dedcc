"""The published JSON Schemas: generated from the vocabulary, shipped, and matched by the JSON trainopt produces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

from click.testing import CliRunner  # noqa: E402

from expert.cli import cli  # noqa: E402
from expert.consultation import Consultation  # noqa: E402
from expert.schema_json import SCHEMAS, SHIPPED, render  # noqa: E402
from tests.golden_runner import load_cases, run_case  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def validator(name: str):
    schema = json.loads((SHIPPED / f"{name}.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def assert_valid(name: str, doc) -> None:
    errors = sorted(validator(name).iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "; ".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5])


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_shipped_schema_is_current_and_valid(name):
    shipped = (SHIPPED / f"{name}.schema.json").read_text()
    assert shipped == render(name), "run `python -m expert.schema_json` to regenerate the shipped schema"
    jsonschema.Draft202012Validator.check_schema(json.loads(shipped))


def test_every_vocabulary_name_is_in_both_schemas():
    from knowledge.vocabulary import VOCABULARY

    obs = json.loads(render("observations"))["properties"]
    rep = json.loads(render("report"))["properties"]["observations"]["properties"]
    assert set(VOCABULARY) <= set(obs) and set(VOCABULARY) == set(rep)


def test_every_golden_case_report_matches_the_report_schema():
    v = validator("report")
    cases = load_cases()
    assert len(cases) > 50
    for case in cases:
        rep = run_case(case).to_json()
        errors = list(v.iter_errors(rep))
        assert not errors, f"{case['_where']}: {errors[0].message} at {list(errors[0].absolute_path)}"


@pytest.mark.parametrize("doc,ok", [
    ({"symptom": "unstable", "loss_behavior": "nan_or_inf"}, True),
    ({"learning_rate": {"value": 3e-4, "source": "declared"}, "complaint": "loss NaN"}, True),
    ({"batch_size": 0}, False),
    ({"learning_rate": 0}, False),
    ({"symptom": "sad"}, False),
    ({"no_such_observation": 1}, False),
    ({"loss_behavior": {"source": "declared"}}, False),
])
def test_observation_schema_agrees_with_the_validator(doc, ok):
    v = validator("observations")
    assert v.is_valid(doc) is ok
    if ok:
        Consultation.from_json(doc)
    else:
        with pytest.raises(Exception):  # noqa: B017 - VocabularyError or InputError
            Consultation.from_json(doc)


def test_cli_json_outputs_match(tmp_path):
    r = CliRunner()
    out = r.invoke(cli, ["diagnose", "-", "--format", "json"],
                   input='{"symptom": "unstable", "loss_behavior": "nan_or_inf", "mixed_precision": "fp16"}')
    assert_valid("report", json.loads(out.stdout))
    out = r.invoke(cli, ["demo", "--replay", "--format", "json"])
    assert out.exit_code == 0
    assert_valid("report", json.loads(out.stdout))
    log = tmp_path / "run.csv"
    log.write_text("step,loss,lr\n" + "\n".join(f"{i},{2.0 / (1 + i / 50)},0.001" for i in range(300)) + "\n")
    out = r.invoke(cli, ["logs", str(log), "--format", "json"])
    rep = json.loads(out.stdout)
    assert_valid("report", rep)
    assert rep["observations"]["loss_behavior"]["source"] == "log:run.csv:loss"


def test_schema_command_prints_the_shipped_schema():
    out = CliRunner().invoke(cli, ["schema", "report"])
    assert out.exit_code == 0 and json.loads(out.stdout)["title"] == "trainopt report"
    out = CliRunner().invoke(cli, ["schema", "nothing"])
    assert out.exit_code == 2
