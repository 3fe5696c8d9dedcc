"""The Lightning and Hugging Face callbacks under real multi-process launches on CPU (issue 22, item 1).

Lightning fits with ``strategy="ddp"`` on two CPU processes; the HF Trainer runs under ``torchrun`` with two
processes. Each launch runs a healthy fit and a diverging one (``stop_on_trip=True``), one launch after the
other (four processes on a shared host would make every timing a guess), each bounded in time. What must
hold: every rank takes the same stop decision at the same step, only global rank zero writes the report, and
the healthy runs stay clean and run to the end on every rank.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "dist_frameworks.py"
TIMEOUT_S = 300
STEPS, EVERY = 60, 10


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(framework: str, out: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "OMP_NUM_THREADS": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(_port()),
           "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1"}
    if framework == "lightning":
        cmd = [sys.executable, str(SCRIPT), "lightning", "healthy,diverging", str(out)]
    else:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_addr",
               "127.0.0.1", "--master_port", env["MASTER_PORT"], str(SCRIPT), "hf", "healthy,diverging", str(out)]
    return subprocess.Popen(cmd, cwd=out, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Both launches, side by side; the per-rank results by framework, case and rank."""
    pytest.importorskip("lightning")
    pytest.importorskip("transformers")
    pytest.importorskip("accelerate")
    out = tmp_path_factory.mktemp("frameworks")
    procs = {}
    for fw in ("lightning", "hf"):
        p = procs[fw] = _launch(fw, out)
        try:
            log, _ = p.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the launcher and every rank: no hang outlives the test
            log, _ = p.communicate()
            pytest.fail(f"{fw}: the 2-process run did not finish in {TIMEOUT_S} s; its output ends with:\n"
                        + log.decode(errors="replace")[-6000:])
        assert p.returncode == 0, log.decode(errors="replace")[-4000:]
    return {(fw, case, r): json.loads((out / f"{fw}-{case}-rank{r}.json").read_text())
            for fw in procs for case in ("healthy", "diverging") for r in (0, 1)}


@pytest.mark.parametrize("fw", ["lightning", "hf"])
def test_a_healthy_multi_process_run_is_clean_and_runs_to_the_end_on_every_rank(runs, fw):
    for r in (0, 1):
        h = runs[fw, "healthy", r]
        # no finding at all: the framework's own work between steps is not "waiting on data" (issue 22, item 3)
        assert set(h["findings"]) == set(), (r, h["findings"])
        # (on failure: both ranks, since a stop is one vote over every rank's watch)
        assert h["stopped_at"] is None and h["global_step"] == STEPS, \
            (r, {k: runs[fw, "healthy", k] for k in (0, 1)})


@pytest.mark.parametrize("fw", ["lightning", "hf"])
def test_stop_on_trip_stops_every_rank_at_the_same_step(runs, fw):
    r0, r1 = runs[fw, "diverging", 0], runs[fw, "diverging", 1]
    assert r0["stopped_at"] is not None and r0["stopped_at"] == r1["stopped_at"]
    assert r0["global_step"] == r1["global_step"] < STEPS
    assert r0["stopped_at"] <= 3 * EVERY  # within a window of the confirmed trip (two windows of evidence)
    assert {"MS-GRAD-01", "MS-UPD-01"} & set(r0["findings"])


@pytest.mark.parametrize("fw", ["lightning", "hf"])
def test_only_global_rank_zero_writes_the_report(runs, fw):
    for case in ("healthy", "diverging"):
        assert len(runs[fw, case, 0]["reports"]) == 2
        assert runs[fw, case, 1]["reports"] == []
