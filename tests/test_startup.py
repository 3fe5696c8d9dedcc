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
