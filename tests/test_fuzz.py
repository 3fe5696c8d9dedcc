"""Fuzzing every door into trainopt: validation, the API, JSON documents, the CLI and REPL keystrokes.

Each property draws observation names from the vocabulary (plus a few that are not in it) and values from a
mix of valid values and junk (unicode digits, huge and tiny numbers, NaN/Inf, wrong types, nested
containers, megabyte strings). What must hold: nothing ends in anything but a trainopt error (exit 2 on the
command line, never exit 3); every refusal names the field and what is allowed; a refusal changes nothing;
a consultation rebuilt from its own JSON report has the same status and plan.

The example counts are bounded so that the whole file runs in well under a minute; `make fuzz` (TRAINOPT_FUZZ=100)
runs thousands per surface, each example under a hang watchdog (tests/hostile.py).
"""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expert.cli import cli
from expert.consultation import STATUSES, Consultation
from knowledge import all_questions
from knowledge.errors import InputError, TrainoptError, VocabularyError
from knowledge.vocabulary import BOOL, ENUM, FLOAT, INT, VOCABULARY, validate
from tests.hostile import examples, watchdog

NAMES = sorted(VOCABULARY)
QUESTION_IDS = sorted(q.id for q in all_questions())
# CI runs the first count; `make fuzz` (TRAINOPT_FUZZ=100) the second.
FUZZ = settings(max_examples=examples(60, 3000), deadline=None, suppress_health_check=list(HealthCheck))
FEW = settings(max_examples=examples(15, 1500), deadline=None, suppress_health_check=list(HealthCheck))

# Text a person (or a broken pipeline) might hand over for a value.
TRICKY_TEXT = ["²", "١٢", "٣.٥", "½", "NaN", "nan", "inf", "-Infinity", "1e400", "-1e-400", "1e-320", "0x10",
               "95%", "50k", "1.2M", "50,000", "0,5", "3e-4", "  7  ", "", " ", "true", "Yes", "none", "null",
               "0.95 / 0.75", "train 0.95 val 0.75", "9" * 400, "-" + "9" * 30, "1_000", "%", "k", "1e", "..",
               "adamw", "fp16", "nan_or_inf", "Not-Learning", "\x00", "\u202e", "🙂", "a" * 2000]


def valid_value(spec):
    if spec.kind == ENUM:
        return st.sampled_from(spec.choices)
    if spec.kind == BOOL:
        return st.booleans()
    if spec.kind == INT:
        lo = int(spec.low) if spec.low is not None else -1000
        hi = int(spec.high) if spec.high is not None else 10**16
        return st.integers(lo, hi)
    if spec.kind == FLOAT:
        lo = spec.low if spec.low is not None else -1e6
        hi = spec.high if spec.high is not None else 1e6
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False, exclude_min=spec.low_open)
    return st.sampled_from(["adamw", "CUDA out of memory", "custom", "I think it's the optimizer"])


junk_scalar = st.one_of(
    st.sampled_from(TRICKY_TEXT),
    st.text(max_size=30),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.just("x" * 1_100_000),  # a megabyte string
)
junk = st.recursive(junk_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                    max_leaves=6)


@st.composite
def name_and_value(draw):
    name = draw(st.one_of(st.sampled_from(NAMES), st.sampled_from(["", "gpu_temperature", "Symptom", "learning"])))
    if name in VOCABULARY and draw(st.booleans()):
        return name, draw(valid_value(VOCABULARY[name]))
    return name, draw(junk)


def assert_names_the_field(e: TrainoptError, name: str) -> None:
    """A refusal says which field and what is allowed (or, for an unknown name, how to list the names)."""
    text = e.render()
    assert text.startswith("error: ") and len(text) < 5000, text[:300]
    if isinstance(e, VocabularyError):
        assert e.field == name
        assert e.allowed or "trainopt facts" in text


# ---------------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------------


@FUZZ
@given(name_and_value())
def test_validate_accepts_or_refuses_with_the_field_never_crashes(nv):
    name, value = nv
    try:
        v = validate(name, value)
    except VocabularyError as e:
        assert_names_the_field(e, name)
        return
    assert validate(name, v) == v  # normalised values are fixed points
    if isinstance(v, float):
        assert math.isfinite(v)


# ---------------------------------------------------------------------------------------------------
# the API: observe, answer, decline, back, forget
# ---------------------------------------------------------------------------------------------------


def state(c: Consultation) -> tuple:
    return dict(c.observations), c.asked, c.complaints


step = st.one_of(
    st.tuples(st.just("answer"), junk),
    st.tuples(st.just("answer_choice"), st.integers(0, 20)),
    st.tuples(st.just("decline"), st.none()),
    st.tuples(st.just("back"), st.none()),
    st.tuples(st.just("forget"), st.sampled_from(NAMES + ["nope"])),
    st.tuples(st.just("observe"), name_and_value()),
)


@FUZZ
@given(st.lists(step, min_size=1, max_size=6))
def test_api_steps_refuse_cleanly_and_the_json_report_rebuilds_the_same_diagnosis(steps):
    c = Consultation()
    c.observe(symptom="unstable")
    for kind, arg in steps:
        q = c.question
        before = state(c)
        try:
            if kind == "answer" and q is not None:
                c.answer(q.id, arg)
            elif kind == "answer_choice" and q is not None and q.choices:
                c.answer(q.id, q.choices[arg % len(q.choices)][0])
            elif kind == "decline" and q is not None:
                c.decline(q.id)
            elif kind == "back":
                c.back()
            elif kind == "forget":
                c.forget(arg)
            elif kind == "observe":
                c.observe(**{arg[0]: arg[1]})
        except TrainoptError as e:
            if isinstance(e, VocabularyError) and kind == "answer" and q is not None:
                assert_names_the_field(e, e.field)
            assert state(c) == before, "a refused input changed what is known"
    d = c.run()
    assert d.status in STATUSES
    for fmt in ("text", "markdown", "json"):
        assert c.report(fmt).endswith("\n")
    report = json.loads(c.report("json"))
    again = Consultation.from_json(report)
    assert (again.diagnosis.status, again.diagnosis.plan) == (d.status, d.plan)


# ---------------------------------------------------------------------------------------------------
# JSON documents through from_json and `trainopt diagnose`
# ---------------------------------------------------------------------------------------------------

entry = st.one_of(
    junk,
    st.fixed_dictionaries({"value": junk}, optional={"source": junk, "evidence": junk, "extra": junk}),
)


@st.composite
def documents(draw):
    names = draw(st.lists(st.one_of(st.sampled_from(NAMES), st.sampled_from(["complaint", "declined", "bogus"])),
                          unique=True, max_size=5))
    doc = {}
    for n in names:
        if n in VOCABULARY and draw(st.booleans()):
            doc[n] = draw(valid_value(VOCABULARY[n]))
        elif n == "declined":
            doc[n] = draw(st.one_of(st.lists(st.sampled_from(QUESTION_IDS), max_size=3), junk))
        elif n == "complaint":
            doc[n] = draw(st.one_of(st.sampled_from(["loss goes NaN with fp16", "my model overfits", ""]), junk_scalar
                                    .filter(lambda v: not isinstance(v, str) or len(v) < 1000)))
        else:
            doc[n] = draw(entry)
    return doc


@FUZZ
@given(documents())
def test_from_json_builds_or_refuses_and_rebuilds_from_its_report(doc):
    with watchdog("diagnose JSON (documents through the API)") as record:
        try:
            c = Consultation.from_json(doc)
        except TrainoptError as e:
            assert e.render().startswith("error: ")
            record("refused")
            return
        d = c.run()
        record(d.status)
    assert d.status in STATUSES
    for fmt in ("text", "markdown"):
        c.report(fmt)
    again = Consultation.from_json(c.report("json"))
    assert (again.diagnosis.status, again.diagnosis.plan) == (d.status, d.plan)


def run_diagnose(payload: str | bytes):
    return CliRunner().invoke(cli, ["diagnose", "-", "--format", "json"], input=payload)


@FEW
@given(st.one_of(documents().map(lambda d: json.dumps(d, allow_nan=True)),
                 st.text(max_size=200),
                 st.binary(max_size=200),
                 st.integers(1, 5000).map(lambda n: "[" * n + "]" * n),
                 st.sampled_from(['"symptom"', "null", "42", "[]", '{"symptom": "unstable"}garbage',
                                  '{"batch_size": ' + "9" * 5000 + "}"])))
def test_diagnose_never_exits_3(payload):
    with watchdog("diagnose JSON (documents and bytes on stdin)") as record:
        r = run_diagnose(payload)
        record(r.exit_code)
    assert r.exit_code in (0, 1, 2), r.output[-2000:]
    if r.exit_code == 2:
        assert r.stderr.startswith("error: ") and r.stdout == ""
    else:
        data = json.loads(r.stdout)
        assert data["status"] in STATUSES and r.stdout.endswith("\n")


# ---------------------------------------------------------------------------------------------------
# REPL keystrokes
# ---------------------------------------------------------------------------------------------------

KEYS = ["1", "2", "3", "9", "99", "0", "²", "١", "-1", "unstable", "overfitting", "nan_or_inf", "fp16", "yes", "no",
        "3e-4", "50k", "95%", "0.95 / 0.75", "train 0.95 val 0.75", "1e400", "nan", "", "?", "why", "known", "help",
        "back", "skip", "forget symptom", "forget nope", "forget", "x" * 200_000]


@FEW
@given(st.sampled_from(["", "loss explodes with fp16", "my model overfits", "loss is flat", "which optimizer?"]),
       st.lists(st.sampled_from(KEYS), max_size=12), st.sampled_from(["text", "json"]))
def test_repl_keystrokes_never_crash(complaint, keys, fmt):
    with watchdog("consult keystrokes (text)") as record:
        r = CliRunner().invoke(cli, ["consult", "--format", fmt], input="\n".join([complaint, *keys]) + "\n")
        record(r.exit_code)
    assert r.exit_code in (0, 1), r.output[-2000:]
    assert "internal error" not in r.output and "Traceback" not in r.output
    assert "Training Diagnosis" in r.stdout or fmt == "json"
    if fmt == "json":
        assert json.loads(r.stdout)["status"] in STATUSES


# ---------------------------------------------------------------------------------------------------
# the crashes the fuzz run of issue 10 found, one by one
# ---------------------------------------------------------------------------------------------------


def test_regressions_from_the_first_fuzz_run():
    huge = 10**400
    for name in ("batch_size", "learning_rate"):
        r = run_diagnose(f'{{"{name}": {huge}}}')
        assert r.exit_code == 2 and f"for '{name}'" in r.stderr and "allowed:" in r.stderr
        assert len(r.stderr) < 1000  # the 400 digits are cut short
    c = Consultation()
    c.observe(symptom="not_learning")
    q = next(q for q in all_questions() if q.sets == "batch_size")
    with pytest.raises(VocabularyError) as e:
        c.answer(q.id, huge)
    assert e.value.field == "batch_size" and c.observations.keys() == {"symptom"}
    assert Consultation.from_json({"dataset_size": 9007199254740993}).observations["dataset_size"].value \
        == 9007199254740993
    for evidence in ('"abc"', "5", "[1, 2]"):
        r = run_diagnose('{"symptom": {"value": "unstable", "evidence": ' + evidence + "}}")
        assert r.exit_code == 2 and "bad evidence" in r.stderr and "'symptom'" in r.stderr
    r = run_diagnose("[" * 100_000 + "]" * 100_000)
    assert r.exit_code == 2 and r.stderr.startswith("error: ")
    r = run_diagnose('"symptom"')
    assert r.exit_code == 2 and "got a string" in r.stderr and "malformed" not in r.stderr
    r = CliRunner().invoke(cli, ["consult"], input="loss explodes\n²\n")
    assert r.exit_code == 1 and "not accepted: bad value '²'" in r.stdout and "internal error" not in r.output
    assert "loss_behavior = diverging" in r.stdout  # what the complaint gave survives the refusal


def test_human_numbers_are_accepted_with_a_note():
    c = Consultation()
    c.observe(symptom="overfitting")
    c.answer("Q-TRAIN-VAL", "95%")
    assert c.observations["train_metric"].value == 0.95 and "95% as 0.95" in c.last_note
    c.answer("Q-TRAIN-VAL", "train 0.99 val 0.6")
    assert (c.observations["train_metric"].value, c.observations["val_metric"].value) == (0.99, 0.6)
    c.answer("Q-TRAIN-VAL", "0.95 / 0.75")
    assert c.observations["val_metric"].value == 0.75
    c.answer("Q-DATASET-SIZE", "50k")
    assert c.observations["dataset_size"].value == 50_000 and "50,000" in c.last_note
    c.answer("Q-DATASET-SIZE", "50,000")
    assert c.observations["dataset_size"].value == 50_000 and c.last_note == ""
    c.back()
    assert c.observations["dataset_size"].value == 50_000  # back restores the previous answer, 50k
    c.back()
    assert "dataset_size" not in c.observations
    c.back()
    assert c.observations["val_metric"].value == 0.6  # the pair comes back together
    with pytest.raises(VocabularyError) as e:
        c.answer("Q-TRAIN-VAL", "0.95 / 1e400")
    assert e.value.field == "val_metric"
    with pytest.raises(VocabularyError) as e:
        c.answer("Q-TRAIN-VAL", "0.95 / lots")  # not a pair: read as one value, and refused
    assert e.value.field == "train_metric"
    assert c.observations["train_metric"].value == 0.99  # refused as a whole


@pytest.mark.parametrize("bad", [b"\xff\xfe{", "{", "", "   ", '"symptom"', "[1]"])
def test_malformed_json_text_is_an_input_error(bad):
    with pytest.raises(InputError) as e:
        Consultation.from_json(bad)
    assert e.value.render().startswith("error: ")


@FEW
@given(documents(), st.sampled_from(["gradient-management", "optimization-algorithms", "overfitting-prevention",
                                     "nope"]), st.booleans())
def test_explain_never_exits_3(doc, skill, why_not):
    args = ["explain", skill, "--observations", "-"] + (["--why-not"] if why_not else [])
    r = CliRunner().invoke(cli, args, input=json.dumps(doc, allow_nan=True))
    assert r.exit_code in (0, 2), r.output[-2000:]
    if r.exit_code == 2:
        assert r.stderr.startswith("error: ")
    else:
        assert r.stdout.startswith(("Why ", f"{skill} is"))


# ---------------------------------------------------------------------------------------------------
# megabyte complaints: pasted logs and tracebacks are read (in linear time), not refused
# ---------------------------------------------------------------------------------------------------

# Seconds per example: a dozen in the nightly run covers the sizes and mixes.
MB = settings(max_examples=examples(3, 12), deadline=None, suppress_health_check=list(HealthCheck))
PIECES = ["loss goes NaN with fp16 after 2000 steps. ", "my model overfits, val loss rises\n", "lr=3e-4 batch size 32 ",
          "epoch 3 step 1200 loss=nan lr=1e-3 grad_norm=inf\n", "RuntimeError: CUDA out of memory.\n",
          "it isn't overfitting, ", "²½ﬁİſ损失 “fp16” … ", "x" * 5000, "\x00\u202e🙂 ", "should I switch to SGD? ",
          'Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n', "9" * 400 + " "]


@st.composite
def megabyte_complaints(draw):
    """One to three megabytes: a repeated mix of sentences, log lines and junk, then a log whose lines all differ."""
    unit = "".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=8))) + draw(st.text(max_size=40))
    size = draw(st.sampled_from([1_000_000, 3_000_000]))
    varied = "".join(f"step {i} loss={i % 977 / 100:.2f} lr {i % 89 + 1}e-5\n" for i in range(size // 60))
    text = (unit * (size // (2 * len(unit)) + 1))[: size // 2] + varied
    return text if text.strip() else "loss is nan " + text


@MB
@given(megabyte_complaints())
def test_megabyte_complaints_are_read_through_the_api(text):
    c = Consultation()
    c.observe(batch_size=64)
    found = c.complain(text)
    assert all(o.source.startswith("text:") and len(o.source) < 2000 for o in found)
    assert c.observations["batch_size"].value == 64  # text never overrides what was given
    d = c.run()
    assert d.status in STATUSES
    again = Consultation.from_json(c.report("json"))
    assert (again.diagnosis.status, again.diagnosis.plan) == (d.status, d.plan)


@MB
@given(megabyte_complaints(), st.sampled_from(["text", "json"]))
def test_megabyte_complaints_through_diagnose_and_consult_never_exit_3(text, fmt):
    r = CliRunner().invoke(cli, ["diagnose", "-", "--format", fmt],
                           input=json.dumps({"complaint": text, "optimizer": "adamw"}))
    assert r.exit_code in (0, 1), r.output[-2000:]
    if fmt == "json":
        assert json.loads(r.stdout)["status"] in STATUSES
    one_line = text.replace("\r", " ").replace("\n", " ")
    r = CliRunner().invoke(cli, ["consult", "--format", fmt], input=one_line + "\n1\nskip\n\n")
    assert r.exit_code in (0, 1), r.output[-2000:]
    assert "internal error" not in r.output and "Traceback (most recent call last):\n  File \"/" not in r.output


def test_a_complaint_over_the_limit_is_refused_by_name_and_changes_nothing():
    from knowledge.vocabulary import MAX_TEXT

    assert MAX_TEXT >= 4_000_000  # a few megabytes of pasted log are read, not refused
    c = Consultation()
    c.complain("loss is nan with fp16")
    before = state(c)
    with pytest.raises(InputError) as e:
        c.complain("loss explodes " * (MAX_TEXT // 14 + 1))
    assert "'complaint'" in e.value.render() and f"{MAX_TEXT:,}" in e.value.render()
    assert state(c) == before
    r = run_diagnose(json.dumps({"complaint": "x " * (MAX_TEXT // 2 + 1)}))
    assert r.exit_code == 2 and "'complaint'" in r.stderr and f"{MAX_TEXT:,}" in r.stderr and r.stdout == ""
