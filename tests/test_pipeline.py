"""Plain pipeline calls run without click (``expert.pipeline``) and behave exactly as through click.

Each call runs in a fresh interpreter both ways: ``python -m trainopt ...`` (the plain path) and
``expert.cli.main`` (click parses the same arguments); output, errors and exit code must agree, and the plain
path must not have imported click.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from expert.pipeline import plain

ROOT = Path(__file__).resolve().parent.parent

OBS = '{"symptom": "unstable", "loss_behavior": "nan_or_inf", "nan_onset": "after_steps", "mixed_precision": "fp16"}'

# ``python -m trainopt`` as the program, reporting afterwards whether click was imported (runpy: the process goes on)
PLAIN = """
import runpy, sys
sys.argv = ["trainopt", *sys.argv[1:]]
code = 0
try:
    runpy.run_module("trainopt", run_name="__main__")
except SystemExit as stop:
    code = stop.code
sys.stdout.flush()
sys.stderr.write("\\n[click imported: %s]" % ("click" in sys.modules))
sys.exit(code)
"""
USUAL = "import sys; from expert.cli import main; sys.argv[0] = 'trainopt'; main()"


def _log(path: Path) -> Path:
    rows = ["step,loss,val_loss"]
    for i in range(200):  # the validation loss turns up after step 80
        rows.append(f"{i},{2.0 * 0.99 ** i:.5f},{2.0 * 0.99 ** min(i, 80) + 0.003 * max(0, i - 80):.5f}")
    path.write_text("\n".join(rows) + "\n")
    return path


def _both(args: list[str], cwd: Path, stdin: str = "") -> tuple[subprocess.CompletedProcess, ...]:
    """The call run as the program (``python -m trainopt``) and through ``expert.cli.main``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRAINOPT_NO_CACHE": "1"}
    env.pop("_TRAINOPT_COMPLETE", None)
    run = {"cwd": cwd, "capture_output": True, "text": True, "timeout": 120, "env": env, "input": stdin}
    return (subprocess.run([sys.executable, "-c", PLAIN, *args], **run),
            subprocess.run([sys.executable, "-c", USUAL, *args], **run))


@pytest.mark.parametrize("case", ["diagnose", "diagnose-stdin", "diagnose-missing", "diagnose-not-json",
                                  "diagnose-not-object", "consult", "consult-json-stdin-quits", "logs", "logs-missing"])
def test_a_plain_call_behaves_as_through_click_without_importing_it(tmp_path, case):
    (tmp_path / "obs.json").write_text(OBS)
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[1, 2]")
    _log(tmp_path / "train.csv")
    args, stdin = {
        "diagnose": (["diagnose", "obs.json"], ""),
        "diagnose-stdin": (["diagnose", "-"], OBS),
        "diagnose-missing": (["diagnose", "absent.json"], ""),
        "diagnose-not-json": (["diagnose", "bad.json"], ""),
        "diagnose-not-object": (["diagnose", "list.json"], ""),
        "consult": (["consult"], "loss goes NaN after 3 epochs with fp16\nquit\n"),
        "consult-json-stdin-quits": (["consult"], ""),
        "logs": (["logs", "train.csv"], ""),
        "logs-missing": (["logs", "absent.csv"], ""),
    }[case]
    quick, usual = _both(args, tmp_path, stdin)
    assert quick.stderr.endswith("\n[click imported: False]"), quick.stderr[-300:]
    stderr = quick.stderr[: -len("\n[click imported: False]")]
    assert (quick.returncode, quick.stdout, stderr) == (usual.returncode, usual.stdout, usual.stderr)
    assert quick.returncode == (2 if case.endswith(("missing", "json", "object")) else 1)
    assert quick.stdout or stderr


@pytest.mark.parametrize("args", [["diagnose", "obs.json", "--format", "json"], ["consult", "--help"], ["rules"],
                                  ["diagnose"], ["logs", "--plot", "x.png", "train.csv"], ["nonsense"]])
def test_any_other_call_goes_through_click(tmp_path, args):
    (tmp_path / "obs.json").write_text(OBS)
    _log(tmp_path / "train.csv")
    quick, usual = _both(args, tmp_path)
    assert quick.stderr.endswith("\n[click imported: True]"), quick.stderr[-300:]
    assert quick.returncode == usual.returncode


def test_plain_calls_are_the_commands_alone_with_their_one_argument(tmp_path, monkeypatch):
    monkeypatch.delenv("_TRAINOPT_COMPLETE", raising=False)
    log = _log(tmp_path / "train.csv")
    assert plain(["consult"]) == ("consult", None)
    assert plain(["diagnose", "obs.json"]) == ("diagnose", "obs.json")
    assert plain(["diagnose", "-"]) == ("diagnose", "-")
    assert plain(["logs", str(log)]) == ("logs", str(log))
    assert plain(["logs", str(tmp_path / "absent")]) == ("logs", str(tmp_path / "absent"))  # click's error, said alike
    for argv in ([], ["consult", "x"], ["consult", "--format", "json"], ["diagnose"], ["diagnose", "--help"],
                 ["diagnose", "-v"], ["diagnose", ""], ["diagnose", "a.json", "b.json"], ["logs", "-"],
                 ["logs", "--follow-links"], ["explain", "x"], ["--version"], ["Diagnose", "obs.json"]):
        assert plain(argv) is None, argv
    monkeypatch.setenv("_TRAINOPT_COMPLETE", "bash_complete")
    assert plain(["consult"]) is None  # shell completion is click's


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads every file")
def test_an_unreadable_log_is_left_to_clicks_check(tmp_path):
    log = _log(tmp_path / "train.csv")
    log.chmod(0)
    try:
        assert plain(["logs", str(log)]) is None
    finally:
        log.chmod(0o600)


ECHO = """
import io, json, sys
from expert.stdio import echo
buf = io.BytesIO()
sys.stdout = io.TextIOWrapper(buf, encoding=sys.argv[1], errors="strict", write_through=True)
echo(sys.argv[2], nl=False)
echo("")
sys.stdout.flush()
sys.__stdout__.write(json.dumps({"out": buf.getvalue().decode("utf-8"), "click": "click" in sys.modules}))
"""


@pytest.mark.parametrize("encoding, text, click_used, expected", [
    ("utf-8", "loss → NaN", False, "loss → NaN\n"),
    ("utf-8", "\x1b[1mbold\x1b[0m", True, "bold\n"),  # styles stripped off a file, by click itself
    ("ascii", "loss → NaN", True, "loss → NaN\n"),  # click writes UTF-8 to a stream that claims ASCII
])
def test_echo_writes_as_click_does(encoding, text, click_used, expected):
    out = subprocess.run([sys.executable, "-c", ECHO, encoding, text], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    got = json.loads(out.stdout)
    assert got == {"out": expected, "click": click_used}


WARM = """
import runpy, sys
sys.argv = ["trainopt", *sys.argv[1:]]
try:
    runpy.run_module("trainopt", run_name="__main__")
except SystemExit:
    pass
sys.stderr.write("\\n[imported: %s]" % sorted(m for m in ("click", "pickle", "torch", "networkx") if m in sys.modules))
"""


@pytest.mark.parametrize("args, stdin", [(["diagnose", "obs.json"], ""), (["logs", "train.csv"], ""),
                                         (["consult"], "loss goes NaN with fp16\nquit\n")])
def test_a_plain_call_with_its_knowledge_stored_imports_no_parser_pickler_or_torch(tmp_path, args, stdin):
    """Reading the stored knowledge needs the C pickler alone (``pickle.py`` is for writing plain entries)."""
    (tmp_path / "obs.json").write_text(OBS)
    _log(tmp_path / "train.csv")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRAINOPT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TRAINOPT_NO_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", WARM, *args], cwd=tmp_path, input=stdin, capture_output=True,
                           text=True, timeout=120, env=env) for _ in range(2)]
    assert "networkx" in runs[0].stderr.rsplit("[imported: ", 1)[1]  # the first call compiled and stored
    assert {p.name.split("-")[0] for p in (tmp_path / "cache").glob("*.bin")} >= {"knowledge", "kb", "rete", "plan"}
    assert runs[1].stderr.endswith("\n[imported: []]"), runs[1].stderr[-300:]
    assert runs[1].stdout == runs[0].stdout


CONSULT_MODULES = WARM.replace('("click", "pickle", "torch", "networkx")', '("json", "json.decoder")')


def test_consult_with_its_knowledge_stored_loads_no_json_module(tmp_path):
    """A consultation reads no JSON: the plan order and the signatures' words it reads back are stored plain data."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRAINOPT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TRAINOPT_NO_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", CONSULT_MODULES, "consult"], cwd=tmp_path,
                           input="loss goes NaN with fp16\nquit\n", capture_output=True, text=True, timeout=120,
                           env=env) for _ in range(2)]
    assert {p.name.split("-")[0] for p in (tmp_path / "cache").glob("*.bin")} >= {"plan", "signatures"}
    assert runs[1].stderr.endswith("\n[imported: []]"), runs[1].stderr[-300:]
    assert runs[1].stdout == runs[0].stdout
