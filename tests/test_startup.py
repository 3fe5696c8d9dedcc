"""Start-up cost: `--help` imports neither torch nor the engine; knowledge commands and a probe-free consult
never import torch. Each check runs in a fresh interpreter so earlier imports cannot hide one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import json, sys
from click.testing import CliRunner
from expert.cli import cli
args = json.loads(sys.argv[1])
r = CliRunner().invoke(cli, args, input=sys.argv[2])
heavy = ("torch", "experta", "networkx")
print(json.dumps({"exit": r.exit_code, "loaded": [m for m in heavy if m in sys.modules]}))
"""


def run(args, stdin=""):
    out = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(args), stdin], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_help_loads_neither_torch_nor_the_engine():
    res = run(["--help"])
    assert res["exit"] == 0 and res["loaded"] == []


@pytest.mark.parametrize("args", [["facts"], ["rules"], ["rule", "Q-SYMPTOM"], ["skills"]])
def test_knowledge_commands_do_not_import_torch(args):
    res = run(args)
    assert res["exit"] == 0 and "torch" not in res["loaded"]


def test_consult_without_probes_does_not_import_torch():
    res = run(["consult"], "loss is NaN after 3 epochs\n" + "skip\n" * 20)
    assert res["exit"] in (0, 1) and "torch" not in res["loaded"]


def test_console_script_help_in_a_fresh_process():
    out = subprocess.run([sys.executable, "-m", "expert.cli", "--help"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and "Usage:" in out.stdout


GC_SCRIPT = """
import gc, json, sys
from expert import startup
out = {}
if sys.argv[1] == "caller-disabled":
    gc.disable()
startup.hold()
out["held"] = not gc.isenabled()
frozen = gc.get_freeze_count()
startup.settle()
out["after"] = gc.isenabled()
out["froze"] = gc.get_freeze_count() > frozen
startup.settle()  # a second settle changes nothing
out["again"] = gc.isenabled()
print(json.dumps(out))
"""


@pytest.mark.parametrize("case", ["enabled", "caller-disabled"])
def test_the_start_up_collector_pause_ends_at_settle_and_leaves_a_callers_own_setting(case):
    out = subprocess.run([sys.executable, "-c", GC_SCRIPT, case], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    if case == "enabled":  # paused for the start-up, then collecting again with start-up's objects frozen
        assert got == {"held": True, "after": True, "froze": True, "again": True}
    else:  # the caller had switched it off: it stays off, nothing is frozen
        assert got == {"held": True, "after": False, "froze": False, "again": False}


def test_a_consultation_collects_as_usual_once_it_waits_on_a_person():
    script = ("import gc, sys\nfrom expert import cli\nfrom expert.repl import read_line\n"
              "cli.startup.hold()\nassert not gc.isenabled()\nread_line('> ', lambda t: None)\n"
              "print(gc.isenabled())\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, input="hello\n", capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "True"


FINISH_SCRIPT = """
import gc, json, sys
from expert import startup
if sys.argv[1] == "caller-disabled":
    gc.disable()
startup.hold()
if sys.argv[1] == "settled":
    startup.settle()
kept = [[i] for i in range(1000)]  # tracked objects made after start-up (and after settle)
frozen = gc.get_freeze_count()
startup.finish()
grew = gc.get_freeze_count() - frozen
startup.finish()  # a second finish changes nothing
print(json.dumps({"froze": grew >= len(kept), "again": gc.get_freeze_count() - frozen == grew}))
"""


@pytest.mark.parametrize("case", ["one-shot", "settled", "caller-disabled"])
def test_a_command_ends_with_its_objects_out_of_the_final_collection(case):
    """At a command's end everything is frozen (the final collection would find no garbage in it), unless the
    caller had the collector off before the command line paused it."""
    out = subprocess.run([sys.executable, "-c", FINISH_SCRIPT, case], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"froze": case != "caller-disabled", "again": True}


def test_the_command_line_freezes_at_its_end():
    script = ("import gc, sys\nfrom expert import cli\nsys.argv = ['trainopt', 'facts', '--format', 'json']\n"
              "try:\n    cli.main()\nexcept SystemExit as e:\n"
              "    print('froze', e.code, gc.get_freeze_count() > 0, file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stderr.strip().splitlines()[-1] == "froze 0 True"


LEAVE_SCRIPT = """
import atexit, sys, tempfile, threading, weakref
from expert import startup
case = sys.argv[1]
holder = tempfile.TemporaryDirectory()  # its clean-up is a weakref.finalize, run through atexit
print(holder.name)
atexit.register(lambda: print("handler ran", flush=False))
sys.stdout.write("buffered, not flushed")
if case == "thread":
    threading.Thread(target=lambda: None, daemon=False).start()
    threading.Thread(target=threading.Event().wait, args=(0.5,)).start()
if case == "finalizer":
    class Box:
        pass
    box = Box()
    weakref.finalize(box, print, "finalizer ran")
startup.leave(None if case == "none" else 3)
"""


@pytest.mark.parametrize("case", ["plain", "none", "thread", "finalizer"])
def test_leave_keeps_output_handlers_clean_up_and_the_exit_code(case):
    """The quick exit flushes what was written, runs atexit handlers and finalizers (a temporary folder is
    removed), and exits with the code given; with another thread alive the usual exit runs, with the same result."""
    out = subprocess.run([sys.executable, "-c", LEAVE_SCRIPT, case], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == (0 if case == "none" else 3), out.stderr
    lines = out.stdout.splitlines()
    assert "buffered, not flushedhandler ran" in lines
    assert not Path(lines[0]).exists()  # TemporaryDirectory's finalizer ran
    if case == "finalizer":
        assert "finalizer ran" in lines
    assert out.stderr == ""


@pytest.mark.parametrize("command", [["diagnose", "obs.json"], ["diagnose", "obs.json", "--format", "json"],
                                     ["rules"], ["nonsense"]])
def test_the_program_exits_as_before_with_its_output_whole(tmp_path, command):
    """`python -m trainopt` (the quick exit) and `main` under the usual exit give the same output and code."""
    (tmp_path / "obs.json").write_text('{"symptom": "unstable", "loss_behavior": "nan_or_inf", '
                                       '"mixed_precision": "fp16"}')
    env = {"PYTHONPATH": str(ROOT), "TRAINOPT_NO_CACHE": "1", "PATH": "/usr/bin:/bin"}
    quick = subprocess.run([sys.executable, "-m", "trainopt", *command], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120, env=env)
    usual = subprocess.run([sys.executable, "-c", "import sys; from expert.cli import main; sys.argv[0] = 'trainopt'; "
                            "main()", *command], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert (quick.returncode, quick.stdout, quick.stderr) == (usual.returncode, usual.stdout, usual.stderr)
    assert quick.returncode == {"diagnose": 1, "rules": 0, "nonsense": 2}[command[0]]
    assert quick.stdout or quick.stderr


def test_the_quick_exit_into_a_closed_pipe_is_quiet():
    """`trainopt rules | head -1`: the reader leaves early; the first line arrives and nothing is reported."""
    out = subprocess.run(f"'{sys.executable}' -m trainopt rules | head -1", shell=True, cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert len(out.stdout.splitlines()) == 1
    assert "Error" not in out.stderr and "Exception" not in out.stderr


def test_the_program_takes_the_quick_exit_and_a_host_program_goes_on(tmp_path):
    """`python -m trainopt` ends through os._exit with its exit code; run by another program in its process
    (runpy), the command line ends in SystemExit and that program goes on."""
    (tmp_path / "sitecustomize.py").write_text(
        "import os, sys\nreal = os._exit\n"
        "def spy(code):\n    sys.stderr.write(f'[quick exit {code}]'); sys.stderr.flush(); real(code)\n"
        "os._exit = spy\n")
    env = {"PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "PATH": "/usr/bin:/bin", "TRAINOPT_NO_CACHE": "1"}
    quick = subprocess.run([sys.executable, "-m", "trainopt", "rules"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120, env=env)
    assert quick.returncode == 0 and quick.stderr.endswith("[quick exit 0]") and "AP-01" in quick.stdout
    host = subprocess.run([sys.executable, "-c", "import runpy, sys\nsys.argv = ['trainopt', 'rules']\n"
                           "try:\n    runpy.run_module('trainopt', run_name='__main__')\n"
                           "except SystemExit as e:\n    print('went on', e.code)\n"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert host.stdout.splitlines()[-1] == "went on 0" and "[quick exit" not in host.stderr


def test_the_vocabulary_compiles_its_number_patterns_only_when_a_number_is_read():
    """Importing the vocabulary compiles none of its number patterns; reading a typed number or a pair does."""
    script = ("import re, sys\n"
              "seen = []\n"
              "compile_ = re.compile\n"
              "re.compile = lambda p, f=0: seen.append(p) or compile_(p, f)\n"
              "import knowledge.vocabulary as v\n"
              "ours = {getattr(x, 'pattern', x) for x in (v._THOUSANDS, v._NUMBER, v._PLAIN_INT, v._PAIR)}\n"
              "at_import = [p for p in seen if p in ours]\n"
              "print(len(at_import), v.normalise('batch_size', '1,024')[0], v.read_pair('0.95 / 0.75'))\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(None, 1) == ["0", "1024 ('0.95', '0.75')\n"]
