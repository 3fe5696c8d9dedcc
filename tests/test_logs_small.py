"""A small log is read and analysed without numpy, with the numbers the numpy path gives (issue 21).

``trainopt logs`` on a small file cost about nine bare interpreter starts, numpy's import alone two of them.
Blocks of up to ``logreaders.SMALL`` rows convert in plain Python and a series keeps its points in plain lists
until it must be downsampled; larger blocks and downsampled series keep the vectorized path. These tests read
varied logs both ways and require the same series, observations and report.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from expert import logreaders
from expert.logreaders import Series
from expert.logs import read_log

ROOT = Path(__file__).resolve().parent.parent


def shapes(n: int, r: np.random.Generator) -> dict[str, np.ndarray]:
    t = np.arange(n)
    spiky = 2 * np.exp(-t / (n / 4)) + 0.1 + 0.02 * r.normal(size=n)
    spiky[r.integers(0, n, size=max(1, n // 60))] += 3
    nan = 2 * np.exp(-t / (n / 4)) + 0.1
    nan[int(n * 0.7)] = np.nan
    inf = 2 * np.exp(-t / (n / 4)) + 0.1
    inf[n // 2] = np.inf
    return {"healthy": 2 * np.exp(-t / (n / 4)) + 0.1 + 0.02 * r.normal(size=n),
            "flat": 2.3 + 0.01 * r.normal(size=n), "spiky": spiky, "nan": nan, "inf": inf,
            "noisy": 2 * np.exp(-t / (n / 3)) + 0.5 + 0.4 * r.normal(size=n),
            "diverging": 1 + 3 * (t / n) ** 2 + 0.02 * r.normal(size=n),
            "plateau": np.where(t < n / 2, 2 * np.exp(-t / (n / 10)) + 0.8, 0.8) + 0.01 * r.normal(size=n)}


def cell(x: float) -> str:
    return "" if x is None else repr(float(x))


def logs(tmp_path: Path) -> list[Path]:
    """CSV, JSONL, Lightning metrics.csv and HF trainer_state.json files of varied curves, and an 8-row file."""
    r = np.random.default_rng(21)
    out = []
    for n in (8, 300):
        for name, y in shapes(n, r).items():
            lr = np.where(np.arange(n) < n // 2, 1e-3, 1e-4)
            p = tmp_path / f"{name}{n}.csv"
            p.write_text("step,loss,lr,grad_norm,note\n" + "".join(
                f"{i},{cell(v)},{float(lr[i])!r},{float(1 + r.random())!r},{'x' if i == 3 else ''}\n"
                for i, v in enumerate(y)))
            out.append(p)
            p = tmp_path / f"{name}{n}.jsonl"
            p.write_text("".join(json.dumps({"step": i * 10, "train_loss": None if not math.isfinite(v) else v,
                                             "learning_rate": float(lr[i])}) + "\n" for i, v in enumerate(y)))
            out.append(p)
    n = 400
    tr = 2 * np.exp(-np.arange(n) / 100) + 0.1 + 0.02 * r.normal(size=n)
    d = tmp_path / "lightning" / "version_0"
    d.mkdir(parents=True)
    rows = ["step,epoch,train_loss,val_loss,val_acc,train_acc"]
    for i in range(n):
        val = i % 40 == 39
        rows.append(f"{i},{i // 40},{float(tr[i])!r},{1.0 + (i / n) ** 2 if val else ''},{0.6 if val else ''},"
                    f"{min(0.99, 0.5 + i / 500) if val else ''}")
    (d / "metrics.csv").write_text("\n".join(rows) + "\n")
    out.append(d / "metrics.csv")
    hist = [{"loss": float(v), "grad_norm": math.nan if i == 150 else 1.0, "learning_rate": 5e-5, "step": i * 5,
             "epoch": i / 100} for i, v in enumerate(tr[:200])]
    hist += [{"eval_loss": 1.2 - 0.01 * k, "eval_accuracy": 0.5 + 0.01 * k, "step": k * 200} for k in range(5)]
    hf = tmp_path / "checkpoint-1000"
    hf.mkdir()
    (hf / "trainer_state.json").write_text(json.dumps({"global_step": 1000, "log_history": hist}))
    out.append(hf / "trainer_state.json")
    return out


def reading(path: Path) -> str:
    run = read_log(path)
    return json.dumps({"summary": run.summary(), "obs": [o.to_dict() if hasattr(o, "to_dict") else repr(o)
                                                         for o in run.observations()],
                       "regimes": run.regimes(), "damage": run.damage}, sort_keys=True, default=str)


def test_small_blocks_read_the_same_in_plain_python_and_numpy(tmp_path, monkeypatch):
    files = logs(tmp_path)
    plain = [reading(p) for p in files]
    monkeypatch.setattr(logreaders, "SMALL", 0)  # every block through numpy
    assert [reading(p) for p in files] == plain
    labels = {json.loads(s)["summary"]["kind"] for s in plain}
    assert labels == {"csv", "jsonl", "lightning_csv", "hf_trainer_state"}


@pytest.mark.parametrize("n", [1, 8, 300, 2000])
def test_a_series_kept_as_points_equals_its_numpy_buckets(n):
    r = np.random.default_rng(n)
    steps = np.arange(n, dtype=np.float64) * 3
    values = r.normal(size=n)
    values[r.integers(0, n, size=max(1, n // 50))] = r.choice([np.nan, np.inf, -np.inf])
    plain = Series("loss", capacity=1024)
    plain.extend(steps.tolist(), values.tolist())
    vec = Series("loss", capacity=1024)
    vec._raw, vec._pend_s, vec._pend_v = None, np.empty(0), np.empty(0)  # the numpy path from the start
    vec.extend(steps, values)
    plain.finish(), vec.finish()
    assert plain.summary() == vec.summary()
    assert np.array_equal(plain.buckets, vec.buckets)
    for a, b in zip(plain.curve(), vec.curve()):
        assert np.array_equal(np.asarray(a), b)
    assert plain.downsampled == vec.downsampled


def test_a_series_past_twice_its_capacity_moves_to_numpy_buckets_unchanged():
    r = np.random.default_rng(3)
    values = r.normal(size=5000)
    grown = Series("loss", capacity=1000)
    for i in range(0, 5000, 700):  # plain points first, then the switch, then merges
        grown.extend(list(range(i, min(i + 700, 5000))), values[i:i + 700].tolist())
    vec = Series("loss", capacity=1000)
    vec._raw, vec._pend_s, vec._pend_v = None, np.empty(0), np.empty(0)  # numpy buckets from the first chunk
    for i in range(0, 5000, 700):
        vec.extend(np.arange(i, min(i + 700, 5000), dtype=np.float64), values[i:i + 700])
    grown.finish(), vec.finish()
    assert grown.downsampled and grown.summary() == vec.summary()
    assert np.array_equal(grown.buckets, vec.buckets)


def test_trainopt_logs_on_a_small_file_never_imports_numpy(tmp_path):
    files = logs(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for p in (f for f in files if f.name in ("spiky300.csv", "nan300.jsonl", "metrics.csv", "trainer_state.json")):
        got = subprocess.run([sys.executable, "-X", "importtime", "-m", "trainopt", "logs", str(p), "--format",
                              "json"], capture_output=True, text=True, env=env)
        assert got.returncode in (0, 1), got.stderr[-2000:]
        imported = {ln.split("|")[-1].strip() for ln in got.stderr.splitlines() if ln.startswith("import time:")}
        assert "numpy" not in imported, p.name
        assert json.loads(got.stdout)["observations"]
