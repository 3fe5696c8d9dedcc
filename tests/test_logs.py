"""Offline logs: `trainopt logs PATH` and `Consultation.add_log` over Lightning, HF, TensorBoard, CSV and JSONL."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from expert.cli import cli
from expert.consultation import Consultation
from expert.logs import Series, read_log, role_of
from knowledge.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
RNG = np.random.default_rng(0)


def healthy(n: int = 600) -> np.ndarray:
    s = np.arange(n)
    return 2.3 * np.exp(-s / (n / 6)) + 0.3 + 0.01 * RNG.standard_normal(n)


def write_csv(path: Path, header: str, rows: list[str]) -> Path:
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path


def lightning_csv(tmp_path: Path, loss: np.ndarray, val_every: int = 100) -> Path:
    """The shape CSVLogger writes: one row per logging call, empty cells for metrics not logged then."""
    d = tmp_path / "lightning_logs" / "version_0"
    d.mkdir(parents=True)
    rows = []
    for i, v in enumerate(loss):
        rows.append(f"{i // val_every},{i},{v},,,{1e-3}")
        if i % val_every == val_every - 1:
            rows.append(f"{i // val_every},{i},,{v * 1.05},0.9,")
    write_csv(d / "metrics.csv", "epoch,step,train_loss_step,val_loss,val_acc,lr-Adam", rows)
    return tmp_path / "lightning_logs"


def obs(run) -> dict:
    return {o.name: o for o in run.observations()}


@pytest.mark.parametrize("tag,role", [("train_loss", "loss"), ("loss", "loss"), ("eval_loss", "val_loss"),
                                      ("val/loss", "val_loss"), ("Loss/train", "loss"), ("val_acc", "val_acc"),
                                      ("eval_accuracy", "val_acc"), ("lr-AdamW", "lr"), ("learning_rate", "lr"),
                                      ("grad_norm", "grad_norm"), ("grad_2.0_norm_total", "grad_norm"),
                                      ("train_samples_per_second", "throughput"), ("epoch", None), ("foo", None)])
def test_column_roles(tag, role):
    assert role_of(tag) == role


def test_lightning_run_folder_is_found_read_and_clean(tmp_path):
    folder = lightning_csv(tmp_path, healthy())
    c = Consultation()
    run = c.add_log(folder)
    assert run.kind == "lightning_csv" and run.path.name == "metrics.csv"
    assert run.roles == {"loss": "train_loss_step", "val_loss": "val_loss", "val_acc": "val_acc", "lr": "lr-Adam"}
    o = obs(run)
    assert o["loss_behavior"].value == "decreasing_normally"
    assert o["loss_behavior"].source == "log:metrics.csv:train_loss_step"
    assert o["val_metric"].source == "log:metrics.csv:val_loss" and o["metric_kind"].value == "loss"
    assert o["learning_rate"].value == pytest.approx(1e-3) and o["lr_schedule"].value == "none"
    assert run.series["val_loss"].points == 6  # sparse rows: only the logged cells count
    d = c.run()
    assert d.status == "clean" and not d.needs_action


def test_nan_in_a_csv_gives_nan_or_inf_with_the_exact_step(tmp_path):
    loss = healthy(5000)
    loss[3217:] = np.nan
    p = write_csv(tmp_path / "run.csv", "step,loss", [f"{i * 10},{v}" for i, v in enumerate(loss)])
    run = read_log(p, capacity=64)  # heavily downsampled: the step must still be exact
    o = obs(run)
    assert o["loss_behavior"].value == "nan_or_inf"
    assert o["nan_step"].value == 32170 and o["nan_step"].source == "log:run.csv:loss"
    c = Consultation()
    c.add(run.observations())
    assert c.run().status in ("diagnosed", "needs_answer")


def test_jsonl_spikes_and_grad_norm(tmp_path):
    loss = healthy(1200)
    loss[[300, 700, 1000]] *= 15
    lines = [json.dumps({"iteration": i, "loss": float(v), "grad_norm": 1.0 + 0.1 * (i % 7), "note": "x"})
             for i, v in enumerate(loss)]
    p = tmp_path / "train.jsonl"
    p.write_text("\n".join(lines) + "\n")
    run = read_log(p)
    assert run.kind == "jsonl"
    o = obs(run)
    assert o["loss_behavior"].value == "spiking"
    assert o["grad_norm_trend"].value == "normal" and o["grad_norm_global"].source == "log:train.jsonl:grad_norm"
    assert run.regimes()["spikes"] == [300, 700, 1000]


def hf_state(tmp_path: Path, grad_nan_at: int | None = None) -> Path:
    hist = []
    loss = healthy(200)
    for i, v in enumerate(loss):
        step = (i + 1) * 5
        g = float("nan") if grad_nan_at is not None and step >= grad_nan_at else 1.2
        # with the NaN filter on, a NaN loss is logged as the mean of the earlier ones: finite
        hist.append({"epoch": step / 1000, "grad_norm": g, "learning_rate": 5e-5, "loss": float(v), "step": step})
        if step % 250 == 0:
            hist.append({"epoch": step / 1000, "eval_loss": float(v) * 1.1, "eval_runtime": 0.5, "step": step})
    hist.append({"epoch": 1.0, "step": 1000, "total_flos": 1e12, "train_loss": 0.9, "train_runtime": 10.0,
                 "train_samples_per_second": 100.0})
    d = tmp_path / "checkpoint-1000"
    d.mkdir()
    (d / "trainer_state.json").write_text(json.dumps({"global_step": 1000, "log_history": hist}))
    return d


def test_hf_trainer_state_clean_and_notes_the_nan_filter(tmp_path):
    run = read_log(hf_state(tmp_path))
    assert run.kind == "hf_trainer_state"
    assert run.roles["loss"] == "loss" and run.roles["val_loss"] == "eval_loss" and run.roles["lr"] == "learning_rate"
    assert any("logging_nan_inf_filter" in n for n in run.notes)
    o = obs(run)
    assert o["loss_behavior"].value == "decreasing_normally" and o["grad_norm_trend"].value == "normal"
    c = Consultation()
    c.add(run.observations())
    assert c.run().status == "clean"


def test_hf_nan_hidden_by_the_filter_is_found_through_grad_norm(tmp_path):
    run = read_log(hf_state(tmp_path, grad_nan_at=600))
    o = obs(run)
    assert o["loss_behavior"].value == "nan_or_inf" and o["loss_behavior"].source == \
        "log:trainer_state.json:grad_norm"
    assert o["nan_step"].value == 600 and o["grad_norm_trend"].value == "exploding"


def test_tensorboard_keeps_every_scalar(tmp_path):
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(log_dir=str(tmp_path / "tb"))
    loss = healthy(2500)
    for i, v in enumerate(loss):
        w.add_scalar("train/loss", float(v), i)
        if i % 500 == 0:
            w.add_scalar("val/loss", float(v) * 1.1, i)
    w.close()
    run = read_log(tmp_path / "tb")
    assert run.kind == "tensorboard"
    # EventAccumulator's default keeps a reservoir of 1,000 scalars per tag; every one of the 2,500 is read
    assert run.series["train/loss"].points == 2500 and run.series["val/loss"].points == 5
    assert obs(run)["loss_behavior"].value == "decreasing_normally"
    assert obs(run)["loss_behavior"].source == "log:tb:train/loss"


def test_downsampling_is_bounded_and_keeps_the_extremes():
    s = Series("loss", capacity=100)
    v = np.linspace(3, 1, 100_000)
    v[54_321] = 50.0
    for i in range(0, v.size, 7000):
        s.extend(np.arange(i, min(i + 7000, v.size), dtype=float), v[i:i + 7000])
    s.finish()
    steps, mean, lo, hi = s.curve()
    assert mean.size <= 200 and s.points == 100_000
    assert hi.max() == 50.0 and lo.min() == pytest.approx(1.0) and steps[0] == 0
    assert np.all(np.diff(steps) > 0)
    # bucket means average to the true mean (up to the short last bucket)
    b = s.buckets
    assert b[:, 1].sum() / b[:, 2].sum() == pytest.approx(v.mean())


BIG = """
import resource, sys, time, json
sys.path.insert(0, sys.argv[2])
from expert.logs import read_log
import numpy  # loaded before the baseline so its import is not counted
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
run = read_log(sys.argv[1])
took = time.perf_counter() - t
grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
s = run.series["loss"]
print(json.dumps({"took": took, "grew_mb": grew, "points": s.points, "buckets": int(s.buckets.shape[0]),
                  "label": run.classification()["label"]}))
"""


def test_a_million_row_csv_streams_in_bounded_memory_and_time(tmp_path):
    n = 1_000_000
    p = tmp_path / "big.csv"
    vals = [f"{2.0 * math.exp(-i / 2000) + 0.5:.5f}" for i in range(0, 10_000)]
    with open(p, "w") as fh:
        fh.write("step,loss,epoch\n")
        fh.writelines(f"{i},{vals[i // 100]},{i // 10000}\n" for i in range(n))
    out = subprocess.run([sys.executable, "-c", BIG, str(p), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["points"] == n and r["buckets"] <= 2 * 4096
    assert r["grew_mb"] < 80, r  # ~60 MB of text, never held at once: chunks of 65,536 rows
    assert r["took"] < 60, r
    assert r["label"] in ("decreasing_normally", "plateau_after_learning")


# ---------------------------------------------------------------------------------------- command line


def test_cli_logs_json_report_and_exit_codes(tmp_path):
    folder = lightning_csv(tmp_path, healthy())
    r = CliRunner().invoke(cli, ["logs", str(folder), "--format", "json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["status"] == "clean"
    assert rep["observations"]["loss_behavior"]["source"] == "log:metrics.csv:train_loss_step"
    assert "columns used" in r.stderr
    bad = healthy(400) * np.exp(np.linspace(0, 3, 400)) ** 2
    p = write_csv(tmp_path / "div.csv", "step,loss", [f"{i},{v}" for i, v in enumerate(bad)])
    r = CliRunner().invoke(cli, ["logs", str(p), "--format", "json"])
    assert r.exit_code == 1 and json.loads(r.stdout)["observations"]["loss_behavior"]["value"] == "diverging"


def test_cli_map_names_an_unusual_column(tmp_path):
    p = write_csv(tmp_path / "x.csv", "it,objective", [f"{i},{v}" for i, v in enumerate(healthy())])
    r = CliRunner().invoke(cli, ["logs", str(p)])
    assert r.exit_code == 2 and "no training-loss column" in r.stderr and "--map loss=COLUMN" in r.stderr
    r = CliRunner().invoke(cli, ["logs", str(p), "--map", "loss=objective", "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["observations"]["loss_behavior"]["source"] == "log:x.csv:objective"


@pytest.mark.parametrize("name,content,msg", [
    ("missing.csv", None, "no such file"),
    ("empty.csv", "", "is empty"),
    ("bin.csv", b"\xff\xfe\x00\x01garbage", "header row cannot be read"),
    ("nolog.jsonl", "not json\n[1, 2]\n", "holds no readable JSON object"),
    ("state.json", "{\"global_step\": 3}", "no 'log_history'"),
    ("broken.json", "{\"log_history\": [", "nothing readable in broken.json"),
    ("events.out.tfevents.1.host", b"\x00" * 40, "no readable scalar events"),
    ("model.pt", "x", "unrecognised log format"),
])
def test_bad_logs_are_refused_with_exit_2_and_change_nothing(tmp_path, name, content, msg):
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    elif content is not None:
        p.write_text(content)
    r = CliRunner().invoke(cli, ["logs", str(p)])
    assert r.exit_code == 2, r.output
    assert msg in r.stderr and r.stderr.startswith("error:")
    c = Consultation()
    c.observe(symptom="unstable")
    with pytest.raises(InputError):
        c.add_log(p)
    assert set(c.observations) == {"symptom"}


def test_bad_map_is_a_usage_error(tmp_path):
    p = write_csv(tmp_path / "x.csv", "step,loss", [f"{i},{v}" for i, v in enumerate(healthy())])
    for arg, msg in (("loss", "bad --map"), ("speed=loss", "unknown role"), ("loss=nothing", "no numeric column")):
        r = CliRunner().invoke(cli, ["logs", str(p), "--map", arg])
        assert r.exit_code == 2 and msg in r.stderr, r.output


def test_progress_is_reported_on_large_files(tmp_path, monkeypatch):
    import expert.pipeline as pipeline_mod

    monkeypatch.setattr(pipeline_mod, "PROGRESS_FROM_BYTES", 1)
    p = write_csv(tmp_path / "x.csv", "step,loss", [f"{i},{v}" for i, v in enumerate(healthy(20_000))])
    r = CliRunner().invoke(cli, ["logs", str(p)])
    assert r.exit_code == 0 and "reading x.csv: 100%" in r.stderr


# ---------------------------------------------------------------------------------------- plot


def test_plot_renders_regimes(tmp_path):
    pytest.importorskip("matplotlib")
    loss = healthy(3000)
    loss[[800, 1900]] *= 10
    loss[2600:] = np.nan
    p = write_csv(tmp_path / "run.csv", "step,loss,val_loss,grad_norm,lr",
                  [f"{i},{v},{v * 1.1 if i % 300 == 0 else ''},{1 + (i % 5) / 10},{1e-3 * min(1, i / 300)}"
                   for i, v in enumerate(loss)])
    out = tmp_path / "run.png"
    r = CliRunner().invoke(cli, ["logs", str(p), "--plot", str(out)])
    assert r.exit_code == 1, r.output  # NaN: a finding that needs action
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20_000
    assert "plot written" in r.stderr
    run = read_log(p)
    reg = run.regimes()
    assert reg["nan_step"] == 2600 and reg["label"] == "nan_or_inf"
    from expert.plot import plot_run

    # the live-run path (watch histories) draws too
    hist = type(run).from_history(list(healthy(400)), metrics={"val_loss": ([99, 199, 299], [1.0, 0.8, 0.7])})
    assert plot_run(hist, tmp_path / "h.svg").stat().st_size > 1000


def test_plot_errors_are_usage_errors(tmp_path):
    p = write_csv(tmp_path / "x.csv", "step,loss", [f"{i},{v}" for i, v in enumerate(healthy())])
    r = CliRunner().invoke(cli, ["logs", str(p), "--plot", str(tmp_path / "nodir" / "a.png")])
    assert r.exit_code == 2 and "no such folder" in r.stderr
    r = CliRunner().invoke(cli, ["logs", str(p), "--plot", str(tmp_path / "a.txt")])
    assert r.exit_code == 2 and "unsupported image format" in r.stderr


NO_MPL = """
import sys
sys.modules["matplotlib"] = None
from click.testing import CliRunner
from expert.cli import cli
r = CliRunner().invoke(cli, ["logs", sys.argv[1], "--plot", sys.argv[2]])
print(r.exit_code, "trainopt[plot]" in r.output, "torch" in sys.modules)
"""


def test_logs_need_neither_torch_nor_matplotlib_until_a_plot(tmp_path):
    p = write_csv(tmp_path / "x.csv", "step,loss", [f"{i},{v}" for i, v in enumerate(healthy())])
    out = subprocess.run([sys.executable, "-c", NO_MPL, str(p), str(tmp_path / "a.png")], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["2", "True", "False"], out.stderr


def test_a_folder_with_several_runs_reads_the_newest_and_says_so(tmp_path):
    import os

    old = lightning_csv(tmp_path / "a", healthy()) / "version_0" / "metrics.csv"
    os.utime(old, (1_000_000, 1_000_000))
    new_dir = tmp_path / "a" / "lightning_logs" / "version_1"
    new_dir.mkdir()
    write_csv(new_dir / "metrics.csv", "step,train_loss", [f"{i},{v}" for i, v in enumerate(healthy())])
    run = read_log(tmp_path / "a")
    assert run.path == new_dir / "metrics.csv"
    assert any("2 logs found" in n and "version_1" in n for n in run.notes)


def test_throughput_is_reported_in_the_notes(tmp_path):
    p = write_csv(tmp_path / "t.csv", "step,loss,tokens_per_second",
                  [f"{i},{v},{1000 - i}" for i, v in enumerate(healthy(500))])
    run = read_log(p)
    assert run.roles["throughput"] == "tokens_per_second"
    assert any(n.startswith("throughput (tokens_per_second): median 750") for n in run.notes), run.notes
