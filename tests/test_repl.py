"""The interactive consultation driven end to end with CliRunner(input=...), and the demo replay."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import expert.repl
from expert.cli import cli
from expert.consultation import QuestionView
from expert.repl import load_example, parse_answer, replay
from knowledge import question
from knowledge.errors import InputError

SKIPS = "skip\n" * 30


def choice_number(qid: str, value: str) -> str:
    q = question(qid)
    return str([v for v, _ in q.choices].index(value) + 1)


def consult(text: str, *args: str):
    return CliRunner().invoke(cli, ["consult", *args], input=text)


def test_numbered_choices_lead_to_a_report():
    r = consult("\n" + choice_number("Q-SYMPTOM", "unstable") + "\n"
                + choice_number("Q-LOSS-BEHAVIOR", "nan_or_inf") + "\n" + SKIPS)
    out = r.stdout
    assert question("Q-SYMPTOM").text in out and question("Q-LOSS-BEHAVIOR").text in out
    assert "-> symptom = 'unstable'" in out and "-> loss_behavior = 'nan_or_inf'" in out
    assert "Training Diagnosis" in out and "gradient-management" in out
    assert r.exit_code == 1  # NaN is a critical finding


def test_values_typed_instead_of_numbers_are_accepted():
    r = consult("\nunstable\nNaN or Inf appears\n" + SKIPS)
    assert "-> symptom = 'unstable'" in r.stdout and "-> loss_behavior = 'nan_or_inf'" in r.stdout


def test_question_mark_shows_why_and_the_source():
    q = question("Q-SYMPTOM")
    r = consult("\n?\nquit\n")
    assert f"Why: {q.why}" in r.stdout and f"Source: {q.cite}" in r.stdout


def test_why_shows_the_reasoning_so_far():
    r = consult("\nunstable\nwhy\nquit\n")
    assert "Reasoning so far:" in r.stdout
    assert "matched symptom='unstable' (answer:Q-SYMPTOM)" in r.stdout


def test_back_revises_the_last_answer():
    r = consult("\nnot_learning\nback\nunstable\n" + SKIPS)
    out = r.stdout
    assert "revising: " in out and "(was symptom='not_learning')" in out
    assert out.count(question("Q-SYMPTOM").text) >= 3  # asked, re-asked, and listed in the report
    assert "-> symptom = 'unstable'" in out
    report = out.split("Training Diagnosis")[1]
    assert "symptom = unstable" in report and "not_learning" not in report


def test_back_with_nothing_to_revise():
    r = consult("\nback\nquit\n")
    assert "nothing to undo yet" in r.stdout


def test_skip_declines_the_question():
    r = consult("\nskip\n" + SKIPS)
    assert "skipped" in r.stdout
    assert "-> skipped" in r.stdout.split("Training Diagnosis")[1]


def test_bad_input_is_re_asked_with_the_allowed_values():
    r = consult("\n99\nbanana\n\nunstable\nquit\n")
    out = r.stdout
    assert "not accepted: no choice number 99" in out
    assert "not accepted: bad value 'banana' for 'symptom'" in out
    assert out.count("allowed: a number 1-") >= 2
    assert "please answer with" in out
    assert "-> symptom = 'unstable'" in out


def test_eof_leaves_cleanly_with_the_report_so_far():
    r = consult("\nunstable\n")
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert "input ended: leaving the consultation" in r.stdout
    assert "Training Diagnosis" in r.stdout
    assert r.exit_code == 1  # a question is still open
    r = consult("")
    assert "input ended" in r.stdout and r.exit_code == 1


def test_quit_at_the_complaint_prompt():
    r = consult("quit\n")
    assert "quit: leaving the consultation" in r.stdout and r.exit_code == 1


def test_ctrl_c_leaves_with_exit_130(monkeypatch):
    def interrupted(prompt, write):
        raise KeyboardInterrupt

    monkeypatch.setattr(expert.repl, "read_line", interrupted)
    r = consult("")
    assert r.exit_code == 130 and "interrupted" in r.stderr


def test_complaint_first_then_questions():
    r = consult("loss is NaN after 3 epochs\n" + SKIPS)
    out = r.stdout
    assert "understood:" in out or "no known symptom words" in out
    assert 'Complaint: "loss is NaN after 3 epochs"' in out
    assert r.exit_code in (0, 1)


def test_json_format_keeps_stdout_machine_readable():
    r = consult("\nunstable\n" + choice_number("Q-LOSS-BEHAVIOR", "nan_or_inf") + "\n" + SKIPS, "--format", "json")
    data = json.loads(r.stdout)
    assert data["observations"]["symptom"]["source"] == "answer:Q-SYMPTOM"
    assert question("Q-SYMPTOM").text in r.stderr


def view(kind="enum", choices=(("a", "first"), ("b", "second"))):
    return QuestionView("Q-X", "text", "x", kind, tuple(choices), "why", "cite")


def test_parse_answer():
    assert parse_answer(view(), "2") == "b"
    assert parse_answer(view(), "Second") == "b"
    assert parse_answer(view(), "b") == "b"
    with pytest.raises(InputError, match="no choice number 3"):
        parse_answer(view(), "3")
    assert parse_answer(view("int", ()), "3") == "3"  # numbers pass through for validation
    assert parse_answer(view("str", ()), "focal loss") == "focal loss"
    assert parse_answer(view("bool", (("yes", "yes"), ("no", "no"))), "0") == "0"


def test_replay_answers_what_the_engine_asks():
    lines = []
    c = replay(load_example(), lines.append)
    text = "".join(lines)
    assert text.startswith("== ") and "complaint:" in text and "Q1." in text
    assert c.diagnosis.status != "needs_answer" and c.diagnosis.plan
    asked = {a["question"] for a in c.asked}
    assert asked and all(q in load_example()["answers"] or a is None
                         for q, a in ((x["question"], x["answer"]) for x in c.asked))


def test_load_example_errors(tmp_path):
    with pytest.raises(InputError, match="unknown example"):
        load_example("nope")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(InputError, match="malformed example"):
        load_example(str(bad))


def test_ctrl_c_keeps_what_was_told_on_stderr(monkeypatch):
    lines = iter(["loss explodes"])

    def read(prompt, write):
        try:
            return next(lines)
        except StopIteration:
            raise KeyboardInterrupt from None

    monkeypatch.setattr(expert.repl, "read_line", read)
    r = consult("")
    assert r.exit_code == 130
    saved = json.loads(r.stderr.strip().splitlines()[-1])
    assert saved["loss_behavior"] == "diverging"


def test_forget_drops_a_value_misread_from_the_complaint_and_back_restores_it():
    r = consult("loss explodes\nforget loss_behavior\nknown\nback\nknown\nquit\n")
    out = r.stdout
    assert "forgot loss_behavior='diverging' (from \"loss explodes\")" in out
    known = out.split("> ")
    after_forget = next(k for k in known if k.startswith("  symptom ="))
    assert "loss_behavior" not in after_forget
    assert "restored {'loss_behavior': 'diverging'}" in out
    report = out.split("Training Diagnosis")[1]
    assert "loss_behavior = diverging" in report


def test_forget_refuses_unknown_or_absent_names_and_asks_again():
    r = consult("loss explodes\nforget gpu_temperature\nforget nan_step\nforget\nquit\n")
    out = r.stdout
    assert "unknown observation name 'gpu_temperature'" in out
    assert "nothing known about 'nan_step'" in out
    assert "forget what? known: loss_behavior, symptom" in out
    assert out.count("\nQ1. ") == 1  # the question is not re-shown after a refused command


def test_back_at_the_first_question_takes_the_complaint_back():
    r = consult("my model overfits\nback\nloss explodes\nquit\n")
    out = r.stdout
    assert "took back the complaint \"my model overfits\" (it had set symptom='overfitting')" in out
    assert out.count("complaint> ") == 2
    report = out.split("Training Diagnosis")[1]
    assert "overfitting" not in report and "diverging" in report


def test_back_at_the_complaint_prompt_after_undoing_everything_is_no_complaint():
    # as typed: a complaint, `back` at the first question takes it back, `back` again at "describe it again"
    r = consult("my model overfits\nback\nback\nloss explodes\nquit\n")
    out = r.stdout
    assert "nothing to undo yet" in out.split("took back the complaint")[1]
    assert out.count("complaint> ") == 3  # the prompt stays until a real complaint comes
    report = out.split("Training Diagnosis")[1]
    assert "complaint: back" not in report.lower() and "\"back\"" not in report
    assert "diverging" in report and "overfitting" not in report


def test_numbers_typed_as_people_type_them(monkeypatch):
    from expert.consultation import Consultation

    c = Consultation()
    # The loop's mode switching, the pipelines and the model size known, the numeric questions come next.
    c.observe(symptom="overfitting", mode_switching="train_and_eval", preprocessing_mismatch=False,
              capacity_vs_data="fits")
    assert c.question.id == "Q-DATASET-SIZE"
    monkeypatch.setattr(expert.repl, "_read_complaint", lambda c, write: None)
    lines = iter(["50k", "95% / 75%"])
    monkeypatch.setattr(expert.repl, "read_line", lambda p, w: next(lines))
    out: list[str] = []
    try:
        expert.repl.consult(c, out.append)
    except StopIteration:
        pass
    text = "".join(out)
    assert "-> dataset_size = 50000  (read 50k as 50,000)" in text
    assert "-> train_metric = 0.95, val_metric = 0.75  (read 95% as 0.95 (a fraction); read 75% as 0.75" in text


def test_unicode_digits_are_refused_not_crashed():
    q = view()
    assert parse_answer(q, "²") == "²"  # not a choice number: passed on, then refused by validation
    r = consult("\n²\n١\nunstable\nquit\n")
    assert r.stdout.count("not accepted: bad value") == 2 and "-> symptom = 'unstable'" in r.stdout


def test_read_line_uses_input_and_ends_on_eof(monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("  hello  \n"))
    seen: list[str] = []
    assert expert.repl.read_line("> ", seen.append) == "hello"
    assert seen == ["> "]
    with pytest.raises(expert.repl.Leave, match="input ended"):
        expert.repl.read_line("> ", seen.append)


def test_question_mark_says_why_this_question_is_asked_now():
    # NaN from the complaint: several questions apply; '?' names the causes the chosen one separates.
    r = consult("my loss goes NaN\n?\nquit\n")
    out = r.stdout
    assert "Asked now: of the " in out and "separates the open candidate causes" in out
    r = consult("\n?\nquit\n")
    assert "Asked now: the only question that applies now" in r.stdout
