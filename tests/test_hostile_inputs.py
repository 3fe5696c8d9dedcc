"""Hostile input on the other surfaces: `diagnose` JSON (lone surrogates, NaN evidence, made-up provenance),
`consult` keystrokes (bytes that are not UTF-8, endless lines, end of input and Ctrl-C anywhere), and scripts
that `examine` runs which exit or are interrupted.

The fuzz properties run a bounded number of examples (TRAINOPT_FUZZ=N runs N times as many: `make fuzz`).
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expert.cli import cli
from expert.consultation import STATUSES
from knowledge.errors import EXIT_INTERRUPTED, EXIT_SCRIPT_EXITED
from tests.hostile import SCALE, examples, watchdog

ROOT = Path(__file__).resolve().parent.parent
FUZZ = settings(max_examples=examples(20, 2000), deadline=None, suppress_health_check=list(HealthCheck),
                derandomize=SCALE == 1, database=None)


def strict_json(text: str) -> dict:
    """Parse as strict JSON: a bare NaN/Infinity token is an error, as in every other JSON parser."""
    def refuse(token: str) -> None:
        raise AssertionError(f"bare {token} in the JSON report")

    return json.loads(text, parse_constant=refuse)


def encodable(text: str) -> None:
    text.encode("utf-8")  # raises on a lone surrogate: what a strict terminal or pipe would do


# ---------------------------------------------------------------------------------------- diagnose

SURROGATES = ["\\ud800", "\\udfff", "a\\ud83d", "\\udc00\\ud800"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_lone_surrogates_and_nan_evidence_render_in_every_format(fmt):
    doc = ('{"complaint": "loss goes nan \\ud800 after warmup", "error_text": "RuntimeError \\udfff", '
           '"loss_behavior": {"value": "nan_or_inf", "source": "declared", "evidence": {"first": NaN, '
           '"peak": Infinity, "low": -Infinity, "\\ud800key": 1}}}')
    r = CliRunner().invoke(cli, ["diagnose", "-", "--format", fmt], input=doc)
    assert r.exit_code in (0, 1), r.output[-2000:]
    encodable(r.stdout)
    if fmt == "json":
        rep = strict_json(r.stdout)
        ev = rep["observations"]["loss_behavior"]["evidence"]
        assert ev["first"] == "NaN" and ev["peak"] == "Infinity" and ev["low"] == "-Infinity"


@pytest.mark.parametrize("source,msg", [("answer:Q-DOES-NOT-EXIST", "names no question"), ("evil", "bad source"),
                                        ("", "bad source"), ("answer:", "names no question")])
def test_a_provenance_that_names_nothing_real_is_refused(source, msg):
    doc = json.dumps({"symptom": {"value": "unstable", "source": source}})
    r = CliRunner().invoke(cli, ["diagnose", "-"], input=doc)
    assert r.exit_code == 2 and msg in r.stderr and "'symptom'" in r.stderr, r.output


def test_a_saved_report_with_every_provenance_still_rebuilds():
    doc = json.dumps({"symptom": {"value": "unstable", "source": "answer:Q-SYMPTOM"},
                      "loss_behavior": {"value": "nan_or_inf", "source": "log:train.csv:loss"},
                      "mixed_precision": {"value": "fp16", "source": "text:fp16"}})
    r = CliRunner().invoke(cli, ["diagnose", "-", "--format", "json"], input=doc)
    assert r.exit_code in (0, 1)
    again = CliRunner().invoke(cli, ["diagnose", "-", "--format", "json"], input=r.stdout)
    assert strict_json(again.stdout)["plan"] == strict_json(r.stdout)["plan"]


LONE = st.sampled_from(SURROGATES).map(lambda s: json.loads(f'"{s}"'))
leaf = st.one_of(st.floats(allow_nan=True, allow_infinity=True), LONE,
                 st.text(max_size=12), st.integers(-10**20, 10**20))


@FUZZ
@given(complaint=st.one_of(st.none(), st.text(max_size=40), LONE),
       evidence=st.dictionaries(st.one_of(st.text(max_size=6), LONE), leaf,
                                max_size=4),
       source=st.sampled_from(["declared", "answer:Q-SYMPTOM", "probe:x", "text:nan", "log:a:b", "answer:Q-NO", "x"]),
       fmt=st.sampled_from(["text", "markdown", "json"]))
def test_diagnose_with_hostile_text_and_numbers_never_exits_3(complaint, evidence, source, fmt):
    doc = {"loss_behavior": {"value": "spiking", "source": source, "evidence": evidence}}
    if complaint is not None:
        doc["complaint"] = complaint
    with watchdog("diagnose JSON (hostile text, numbers, provenance)") as record:
        r = CliRunner().invoke(cli, ["diagnose", "-", "--format", fmt], input=json.dumps(doc, allow_nan=True))
        record(r.exit_code)
    assert r.exit_code in (0, 1, 2), r.output[-2000:]
    encodable(r.output)
    if r.exit_code == 2:
        assert r.stderr.startswith("error:") and ("loss_behavior" in r.stderr or "complaint" in r.stderr), r.stderr
    elif fmt == "json":
        assert strict_json(r.stdout)["status"] in STATUSES


# ---------------------------------------------------------------------------------------- consult

KEY_BYTES = [b"1", b"2", b"9", b"back", b"skip", b"?", b"why", b"forget symptom", b"quit", b"yes", b"3e-4", b"",
             b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"caf\xe9", b"\x00", b"\x1b[31m", b"\r", b"x" * 300_000]


@FUZZ
@given(complaint=st.sampled_from([b"loss explodes with fp16", b"overfits \xff", b"", b"\xc3\xa9 nan", b"\x80" * 50]),
       keys=st.lists(st.one_of(st.sampled_from(KEY_BYTES), st.binary(max_size=12)), max_size=10),
       end=st.sampled_from([b"\n", b"", b"\r\n"]), fmt=st.sampled_from(["text", "json"]))
def test_consult_keystroke_bytes_never_crash(complaint, keys, end, fmt):
    data = b"\n".join([complaint, *keys]) + end  # input may end mid-line (EOF without a newline)
    with watchdog("consult keystroke bytes") as record:
        r = CliRunner().invoke(cli, ["consult", "--format", fmt], input=data)
        record(r.exit_code)
    assert r.exit_code in (0, 1), r.output[-2000:]
    assert "internal error" not in r.output and "Traceback" not in r.output
    if fmt == "json":
        assert strict_json(r.stdout)["status"] in STATUSES


_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_HARNESS = f"{os.sep}hypothesis{os.sep}"


class _CtrlC:
    """Raise KeyboardInterrupt at the ``nth`` Python function call once the consult command has started.

    A real SIGINT lands between any two bytecodes; a call boundary anywhere (trainopt, the engine, click, json,
    the standard library) is the same thing at a grain a test can choose and replay. A trace function that
    raises is switched off by Python, so exactly one interrupt is delivered. Generator frames are not counted:
    one is also entered when the collector closes it, where Python itself drops any exception ("Exception
    ignored in"), a limit of the interpreter rather than of trainopt; so are the test harness's own frames
    (hypothesis runs a garbage-collector callback, where an exception is dropped the same way).
    """

    def __init__(self, nth: int) -> None:
        self.nth, self.calls, self.started, self.where = nth, 0, False, ""

    def __call__(self, frame, event, arg):
        if event != "call" or frame.f_code.co_flags & _GENERATOR_FLAGS or _HARNESS in frame.f_code.co_filename:
            return None
        if not self.started:
            self.started = frame.f_code.co_name == "consult" and frame.f_code.co_filename.endswith("cli.py")
            if not self.started:
                return None
        self.calls += 1
        if self.calls == self.nth:
            self.where = f"{frame.f_code.co_filename}:{frame.f_code.co_name}"
            raise KeyboardInterrupt
        return None


CTRL_C_KEYS = ["1", "2", "3", "back", "skip", "?", "why", "known", "forget symptom", "3e-4", "yes", "", "nan", "95%"]


@FUZZ
@given(nth=st.one_of(st.integers(1, 45_000), st.integers(1, 300)),
       complaint=st.sampled_from(["loss goes nan with fp16", "my model overfits", "", "loss is flat", "slow"]),
       keys=st.lists(st.sampled_from(CTRL_C_KEYS), max_size=6), fmt=st.sampled_from(["text", "json"]))
def test_ctrl_c_anywhere_in_consult_exits_130_without_a_traceback(nth, complaint, keys, fmt):
    trace = _CtrlC(nth)
    data = "\n".join([complaint, *keys]) + "\n"
    before = sys.gettrace()  # a coverage tracer, if any, comes back afterwards
    with watchdog("consult Ctrl-C") as record:
        sys.settrace(trace)
        try:
            r = CliRunner().invoke(cli, ["consult", "--format", fmt], input=data)
        finally:
            sys.settrace(before)
        record("interrupted" if trace.where else "ran to the end")
    assert "Traceback" not in r.output and "internal error" not in r.output, (trace.where, r.output[-2000:])
    assert "Exception ignored" not in r.output, (trace.where, r.output[-2000:])
    if trace.where:
        assert r.exit_code == EXIT_INTERRUPTED and "interrupted." in r.stderr, (trace.where, r.output[-1500:])
    else:
        assert r.exit_code in (0, 1), r.output[-1500:]


@pytest.mark.parametrize("data", [b"loss goes nan \xff with fp16\n1\n", b"loss goes nan with fp16\n\xff\xfe\n1\nskip\n",
                                  b"my model overfits\n" + b"caf\xe9 " * 1000 + b"\n", b"\x80" * 50])
def test_bytes_that_are_not_utf8_on_a_strict_stdin_are_read_leniently(data):
    # The case: a terminal or pipe decoding strictly made one such byte an internal error (exit 3).
    r = subprocess.run([sys.executable, "-m", "trainopt", "consult"], input=data, capture_output=True, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8:strict"}, timeout=120)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr


def test_a_real_sigint_during_consult_exits_130(tmp_path):
    # A user's terminal delivers Ctrl-C to a process whose SIGINT is at its default; a test run started in the
    # background of a non-interactive shell (a CI script's `... &`) inherits SIGINT ignored, and a child would keep
    # ignoring it (as `nohup` wants): give the child the terminal's default so the test checks trainopt, not its shell.
    p = subprocess.Popen([sys.executable, "-m", "trainopt", "consult"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8:strict"},
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    p.stdin.write(b"loss goes nan with fp16\n")
    p.stdin.flush()
    deadline = time.monotonic() + 60
    out = b""
    while b"?" not in out and time.monotonic() < deadline:  # wait for the first question
        out += os.read(p.stdout.fileno(), 4096)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == EXIT_INTERRUPTED, err[-2000:]
    assert b"Traceback" not in err and b"interrupted" in err


# ---------------------------------------------------------------------------------------- examine: script exits

MODEL = """
import torch
def trainopt_target():
    {in_factory}
    class M(torch.nn.Linear):
        def forward(self, x):
            {in_forward}
            return super().forward(x)
    batch = (torch.randn(8, 4), torch.randint(0, 2, (8,)))
    return dict(model=M(4, 2), loss_fn=torch.nn.CrossEntropyLoss(), batch=batch)
{at_top}
"""


@pytest.mark.parametrize("where,stmt,code", [
    ("at_top", "import sys; sys.exit(0)", EXIT_SCRIPT_EXITED),
    ("at_top", "raise SystemExit('usage: train.py CONFIG')", EXIT_SCRIPT_EXITED),
    ("in_factory", "exit(3)", EXIT_SCRIPT_EXITED),
    ("in_forward", "raise SystemExit(0)", EXIT_SCRIPT_EXITED),
    ("at_top", "raise KeyboardInterrupt", EXIT_INTERRUPTED),
    ("in_forward", "raise KeyboardInterrupt", EXIT_INTERRUPTED),
])
def test_a_script_that_exits_or_is_interrupted_gets_its_own_code(tmp_path, where, stmt, code):
    fill = {"at_top": "", "in_factory": "pass", "in_forward": "pass"}
    fill[where] = stmt
    script = tmp_path / "train.py"
    script.write_text(MODEL.format(**fill))
    r = CliRunner().invoke(cli, ["examine", str(script)])
    assert r.exit_code == code, r.output[-2000:]
    assert r.stderr.startswith("error:") and "Traceback" not in r.output
    if code == EXIT_SCRIPT_EXITED:
        assert "sys.exit(" in r.stderr and "train.py" in r.stderr


# ---------------------------------------------------------------------------------------- long arguments

LONG = "X" * 120_000


@pytest.mark.parametrize("args", [["logs", LONG], ["logs", ".", "--map", LONG], ["rule", LONG], ["examine", LONG],
                                  ["diagnose", "-", "--format", LONG], ["explain", LONG, "--observations", "-"]])
def test_a_120kb_argument_is_never_echoed_whole(args):
    r = CliRunner().invoke(cli, args, input='{"symptom": "unstable"}')
    assert r.exit_code == 2, r.output[-500:]
    assert len(r.output) < 3000 and "X" * 1000 not in r.output


def test_diagnose_refuses_pipes_devices_and_endless_input(tmp_path):
    fifo = tmp_path / "obs.json"
    os.mkfifo(fifo)
    r = CliRunner().invoke(cli, ["diagnose", str(fifo)])  # would block forever if opened for a blocking read
    assert r.exit_code == 2 and "FIFO" in r.stderr
    r = CliRunner().invoke(cli, ["diagnose", "/dev/zero"])  # would grow until killed
    assert r.exit_code == 2 and "character device" in r.stderr
    r = CliRunner().invoke(cli, ["diagnose", "-"], input=b" " * (65 << 20))
    assert r.exit_code == 2 and "over 64 MiB" in r.stderr
