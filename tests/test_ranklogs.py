"""``trainopt logs DIR`` on a folder of per-rank logs: the ranks compared, the rank that failed first named.

The logs come from a real 2-process gloo job (``python -m tests.dist_jobs --rank-logs DIR``) whose rank 1
crashes at step 5: its log ends with its own traceback, rank 0's with gloo's timeout in the next all-reduce.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from expert.cli import cli
from expert.ranklogs import rank_files

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def rank_log_dir(tmp_path_factory):
    """Per-rank logs of a job whose rank 1 crashed."""
    pytest.importorskip("torch")
    out = tmp_path_factory.mktemp("ranklogs")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "OMP_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-m", "tests.dist_jobs", "--rank-logs", str(out)], cwd=ROOT, env=env,
                   timeout=180, check=True, capture_output=True)
    return out


def test_the_rank_that_crashed_is_named_under_the_collective_timeout_of_the_others(rank_log_dir):
    res = CliRunner().invoke(cli, ["logs", str(rank_log_dir), "--format", "json"])
    assert res.exit_code == 1, res.output
    rep = json.loads(res.stdout)
    assert [f["id"] for f in rep["findings"] if f["severity"] != "info"] == ["DD-TIMEOUT-01"]
    obs = rep["observations"]
    cf = obs["collective_failure"] if isinstance(obs, dict) else next(o for o in obs
                                                                        if o["name"] == "collective_failure")
    ev = cf["evidence"]
    assert ev["reported_by_ranks"] == [0]
    assert ev["failed_first"]["rank"] == 1 and "corrupt sample" in ev["failed_first"]["error"]
    assert "rank 1" in res.stderr and "own error" in res.stderr


def test_only_folders_with_two_or_more_rank_logs_are_read_as_ranks(tmp_path):
    (tmp_path / "train_rank0.log").write_text("step 1 loss=0.5\n")
    assert rank_files(tmp_path) == {}  # one rank: an ordinary log folder
    run = tmp_path / "torchrun" / "run1" / "attempt_0"
    for r in (0, 1):
        (run / str(r)).mkdir(parents=True)
        (run / str(r) / "stdout.log").write_text("step 1 loss=0.5\n")
        (run / str(r) / "stderr.log").write_text("")
    found = rank_files(tmp_path / "torchrun")
    assert sorted(found) == [0, 1] and all(p.name == "stderr.log" for p in found.values())
