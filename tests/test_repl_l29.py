"""A session run as a library call leaves the caller's garbage collector as it was (review l29)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]

_PROGRAM = """
import gc, io, json, sys
from expert.consultation import Consultation
from expert.repl import Leave, consult
before = (gc.isenabled(), gc.get_freeze_count())
sys.stdin = io.StringIO("my loss goes nan after a few hundred steps\\nquit\\n")
try:
    consult(Consultation(), lambda s: None)
except Leave:
    pass
assert "expert.text" in sys.modules  # the first complaint loaded the text reader in this call
print(json.dumps([before, (gc.isenabled(), gc.get_freeze_count())]))
"""


def test_a_library_consultation_freezes_nothing_and_keeps_the_collector_on() -> None:
    env = {**os.environ, "PYTHONPATH": str(_ROOT)}
    out = subprocess.run([sys.executable, "-c", _PROGRAM], capture_output=True, text=True, env=env, cwd=_ROOT,
                         timeout=300, check=True).stdout
    before, after = json.loads(out.strip().splitlines()[-1])
    assert after == before
