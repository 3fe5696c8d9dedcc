"""Start-up cost: `--help` imports neither torch nor the engine; knowledge commands and a probe-free consult
never import torch. Each check runs in a fresh interpreter so earlier imports cannot hide one."""

from __future__ import annotations

import json
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
