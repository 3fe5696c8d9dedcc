"""Hostile and damaged logs: `trainopt logs` reads around damage and says so, refuses what it cannot read by
file and line, never reads outside the folder it was given, never blocks, and holds its memory bounded.

The fuzz properties run a bounded number of examples in CI; `make fuzz` (TRAINOPT_FUZZ=100) runs thousands per
surface, each under a hang watchdog (tests/hostile.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expert.cli import cli
from expert.consultation import Consultation
from expert.logs import read_log
from knowledge.errors import InputError
from tests import hostile
from tests.hostile import FORMATS, SNIPPETS, damage, hostile_folder, log_bytes, tensorboard_bytes, watchdog

ROOT = Path(__file__).resolve().parent.parent
SECRET = "AWS_SECRET_ACCESS_KEY=hunter2-do-not-print"


def logs(*args: str):
    return CliRunner().invoke(cli, ["logs", *args])


def write(tmp_path: Path, fmt: str, **kw) -> Path:
    name, data = log_bytes(fmt, **kw)
    p = tmp_path / name
    p.write_bytes(data)
    return p


def assert_handled(r, name: str) -> None:
    """Exit 0, 1 or 2, never 3; a refusal starts with 'error:' and names the file (or the folder)."""
    assert r.exit_code in (0, 1, 2), (r.exit_code, r.output[-3000:])
    if r.exit_code == 2:
        assert r.stderr.startswith("error:"), r.stderr[:500]
        assert name in r.stderr, ("unlocated refusal", name, r.stderr[:500])
    assert "Traceback" not in r.output


# ---------------------------------------------------------------------------------------- damage is said


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_nan_from_step_500_is_never_clean(tmp_path, fmt):
    p = write(tmp_path, fmt, n=1000, nan_from=500)
    r = logs(str(p), "--format", "json")
    rep = json.loads(r.stdout)
    assert rep["status"] != "clean" and r.exit_code == 1, r.output[-2000:]
    assert rep["observations"]["loss_behavior"]["value"] == "nan_or_inf"


def test_a_flipped_byte_in_a_tensorboard_file_is_skipped_and_said(tmp_path):
    name, data = log_bytes("tensorboard", n=1000, nan_from=500)
    bad = bytearray(data)
    bad[len(bad) // 3] ^= 0x10
    (tmp_path / name).write_bytes(bytes(bad))
    run = read_log(tmp_path / name)
    assert run.damage and "checksum" in run.damage[0] and "record" in run.damage[0]
    assert run.series["train/loss"].points == 999  # one record lost, every other read
    assert run.classification()["label"] == "nan_or_inf"  # the damage does not hide the NaN after it
    # The case end to end: read only up to the damage, this run was reported clean (exit 0).
    r = logs(str(tmp_path / name), "--format", "json")
    assert r.exit_code == 1 and json.loads(r.stdout)["status"] != "clean", r.output[-1500:]
    assert "skipped 1 TensorBoard records failing their checksum" in r.stderr


@pytest.mark.parametrize("fmt,hurt", [
    ("csv", lambda b: b.replace(b"\n57,", b"\n57,\xff\xfe", 1)),
    ("csv", lambda b: b.replace(b"\n80,", b"\n80,1,2,", 1)),
    ("jsonl", lambda b: b.replace(b'{"step": 40,', b'{"step": 40,,', 1)),
    ("jsonl", lambda b: b.replace(b'{"step": 41,', b"[" * 100_000 + b'{"step": 41,', 1)),
    ("jsonl", lambda b: b.replace(b'{"step": 42,', b'{"step": 42, "note": "\xff\xfe",', 1)),  # one non-UTF-8 line
    ("lightning_csv", lambda b: b.replace(b"\n2,45,", b"\n2,45,oops", 1)),
    ("tensorboard", lambda b: b[:-7]),
])
def test_a_damaged_healthy_log_is_read_around_and_never_clean(tmp_path, fmt, hurt):
    name, data = log_bytes(fmt, n=300)
    p = tmp_path / name
    p.write_bytes(hurt(data))
    healthy = tmp_path / "ok"
    healthy.mkdir()
    (healthy / name).write_bytes(data)
    assert logs(str(healthy / name)).exit_code == 0  # the same log undamaged is clean
    r = logs(str(p), "--format", "json")
    rep = json.loads(r.stdout)
    assert rep["status"] == "insufficient" and r.exit_code == 1, r.output[-2000:]
    assert rep["evidence_incomplete"] and name in rep["evidence_incomplete"][0]
    assert "skipped" in r.stderr and "evidence is incomplete" in r.stderr
    text = logs(str(p)).stdout
    assert "Evidence: incomplete" in text


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "hf_trainer_state"])
@pytest.mark.parametrize("big", ["1" + "0" * 400, "-" + "9" * 5000], ids=["over_the_float_range", "over_4300_digits"])
def test_numbers_past_the_float_range_or_the_digit_limit_are_read(tmp_path, fmt, big):
    name, data = log_bytes(fmt, n=100)
    old = {"csv": b"\n50,", "jsonl": b'{"step": 50, "loss": ', "hf_trainer_state": b'{"step": 50, "loss": '}[fmt]
    new = old + big.encode() + (b"\n50," if fmt == "csv" else b', "x": ')
    p = tmp_path / name
    p.write_bytes(data.replace(old, new, 1))
    r = logs(str(p))
    assert r.exit_code in (0, 1), r.output[-1500:]  # an OverflowError / ValueError (exit 3) before
    assert "Traceback" not in r.output and "rows" in r.stderr


def test_refusals_name_the_file_and_the_line(tmp_path):
    p = tmp_path / "trainer_state.json"
    p.write_text('{"global_step": 3,\n "best_metric": [1,,\n "log_history": []}')
    r = logs(str(p))
    assert r.exit_code == 2 and "trainer_state.json" in r.stderr and "line 2" in r.stderr
    # Damage inside log_history is read around: the entry is skipped and named.
    p.write_text('{"log_history": [\n{"loss": 1.0},\n{"loss": 2.0,,},\n{"loss": 0.5}]}')
    r = logs(str(p))
    assert r.exit_code == 1 and "entry 1, line 3" in r.stderr, r.stderr
    p.write_bytes(b'{"log_history": [{"loss": 1' + b"0" * 5000 + b"}]}")  # past int()'s digit limit: a number
    assert logs(str(p)).exit_code in (0, 1)
    p.write_bytes(b'{"log_history": ' + b"[" * 200_000 + b"]" * 200_000 + b"}")
    r = logs(str(p))
    assert r.exit_code == 2 and "nothing readable" in r.stderr and "nested too deep" in r.stderr
    q = tmp_path / "h.csv"
    q.write_bytes(b"step," + b"x" * 200_000 + b"\n1,2\n")  # a header over the csv module's field limit
    r = logs(str(q))
    assert r.exit_code == 2 and "h.csv" in r.stderr


# ---------------------------------------------------------------------------------------- nothing outside


def test_a_link_out_of_the_folder_is_not_followed_and_never_printed(tmp_path):
    secret = tmp_path / "secrets.env"
    secret.write_text(f"step,loss\n1,{SECRET}\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.csv").symlink_to(secret)
    r = logs(str(run))
    assert r.exit_code == 2 and "no training log found" in r.stderr and "--follow-links" in r.stderr
    assert "hunter2" not in r.output
    # Asked explicitly, the link is read; the text cell is an excerpt, never the whole value.
    (run / "metrics.csv").unlink()
    (run / "metrics.csv").symlink_to(secret)
    secret.write_text("step,loss\n" + "".join(f"{i},{2.0 - i / 100}\n" for i in range(50)) + f"51,{SECRET * 100}\n")
    r = logs(str(run), "--follow-links")
    assert r.exit_code in (0, 1) and "skipped 1 non-numeric cells" in r.stderr
    assert SECRET * 2 not in r.output and len(max(r.stderr.splitlines(), key=len)) < 1500


def test_fifos_devices_and_missing_files_are_refused(tmp_path):
    fifo = tmp_path / "metrics.csv"
    os.mkfifo(fifo)
    r = logs(str(fifo))  # would block forever if opened for a blocking read
    assert r.exit_code == 2 and "FIFO" in r.stderr
    zero = tmp_path / "z" / "metrics.csv"
    zero.parent.mkdir()
    zero.symlink_to("/dev/zero")
    r = logs(str(zero))
    assert r.exit_code == 2 and "character device" in r.stderr
    r = logs(str(tmp_path / "nothing" / "here.csv"))
    assert r.exit_code == 2 and "no such file" in r.stderr


def test_a_dangling_link_in_a_run_folder_is_skipped_and_said(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.csv").symlink_to(tmp_path / "gone.csv")
    (run / "train.csv").write_bytes(log_bytes("csv")[1])
    r = logs(str(run))
    assert r.exit_code == 0 and "dangling links" in r.stderr, r.output[-1500:]  # FileNotFoundError (exit 3) before


def test_a_link_loop_and_a_self_link_end(tmp_path):
    run = tmp_path / "run"
    (run / "a").mkdir(parents=True)
    (run / "a" / "up").symlink_to(run)
    (run / "self.csv").symlink_to(run / "self.csv")
    (run / "a" / "log.jsonl").write_bytes(log_bytes("jsonl")[1])
    for extra in ((), ("--follow-links",)):
        r = logs(str(run), *extra)
        assert r.exit_code == 0, r.output[-1500:]


def test_nothing_in_a_log_is_evaluated_or_unpickled(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = tmp_path / "log.jsonl"
    rows = [json.dumps({"step": i, "loss": 1.0, "note": "__import__('os').system('touch PWNED')"}) for i in range(30)]
    p.write_text("\n".join(rows) + "\n" + '{"step": "__import__(\'os\').system(\'touch PWNED\')", "loss": 1}\n')
    assert logs(str(p)).exit_code in (0, 1)
    pk = tmp_path / "state.pkl"
    import pickle

    pk.write_bytes(pickle.dumps({"loss": [1.0]}))
    r = logs(str(pk))
    assert r.exit_code == 2 and "unrecognised log format" in r.stderr
    assert not (tmp_path / "PWNED").exists()


# ---------------------------------------------------------------------------------------- bounded memory

GROW = """
import resource, sys, json
sys.path.insert(0, sys.argv[2])
from click.testing import CliRunner
from expert.cli import cli
import numpy, expert.consultation, expert.logs  # loaded before the baseline
CliRunner().invoke(cli, ["logs", "--help"])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = CliRunner().invoke(cli, ["logs", sys.argv[1]])
print(json.dumps({"code": r.exit_code, "grew_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024,
                  "err": r.stderr[-400:]}))
"""


@pytest.mark.parametrize("name,head", [("one.csv", b"step,loss\n1,"), ("one.jsonl", b'{"step": 1, "loss": "'),
                                       ("trainer_state.json", b'{"log_history": ["')])
def test_a_file_with_no_line_end_takes_bounded_memory(tmp_path, name, head):
    p = tmp_path / name
    with open(p, "wb") as fh:
        fh.write(head)
        block = b"7" * (1 << 20)
        for _ in range(96):  # 96 MiB on one line
            fh.write(block)
    out = subprocess.run([sys.executable, "-c", GROW, str(p), str(ROOT)], capture_output=True, text=True, timeout=120)
    r = json.loads(out.stdout)
    assert r["code"] == 2, r  # nothing readable: refused by name
    assert r["grew_mb"] < 48, r  # never the whole line


# ---------------------------------------------------------------------------------------- fuzzing



def fuzz(ci: int, nightly: int) -> settings:
    return settings(max_examples=hostile.examples(ci, nightly), deadline=None, suppress_health_check=list(HealthCheck),
                    derandomize=hostile.SCALE == 1, database=None)


op = st.tuples(st.sampled_from(["flip", "flip", "cut", "insert", "insert", "repeat", "delete"]),
               st.floats(0, 1), st.integers(0, 4096))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """One folder reused by every example of a property (a fresh folder per example costs more than the read)."""
    return tmp_path_factory.mktemp("fuzz")


def fresh(scratch: Path) -> Path:
    import shutil

    d = scratch / "x"
    if d.exists() or d.is_symlink():
        shutil.rmtree(d)
    d.mkdir()
    return d


@pytest.mark.parametrize("fmt", FORMATS)
@fuzz(12, 2000)
@given(ops=st.lists(op, min_size=1, max_size=4), nan_from=st.sampled_from([None, 0, 50, 150]))
def test_damaged_logs_never_exit_3(scratch, fmt, ops, nan_from):
    d = fresh(scratch)
    name, data = log_bytes(fmt, n=200, nan_from=nan_from)
    (d / name).write_bytes(damage(data, ops))
    with watchdog(f"logs {fmt} (damaged)") as record:
        r = logs(str(d / name), "--format", "json")
        record(r.exit_code)
    assert_handled(r, name)
    if r.exit_code in (0, 1):
        rep = json.loads(r.stdout)  # valid JSON always
        rows = int(re.search(r": (\d+) rows;", r.stderr).group(1))
        # Clean only if what was read ends before the NaN (a cut exactly at a line end leaves a shorter, whole
        # log: nothing shows the loss), with room for the validation rows some formats interleave.
        if nan_from is not None and rep["status"] == "clean" and rows > nan_from * 1.1 + 5:
            raise AssertionError(f"a log with NaN from step {nan_from} read as clean: {r.stderr}")


@fuzz(12, 2500)
@given(entries=st.lists(st.tuples(st.sampled_from(["dangling", "secret", "zero", "fifo", "loop", "oddname", "log",
                                                    "selflink"]), st.integers(0, 30)), max_size=8),
       fmt=st.sampled_from(FORMATS), follow=st.booleans(), top=st.sampled_from(["log", "none", "empty", "nan", "cut"]))
def test_hostile_folders_never_exit_3_hang_or_leak(scratch, entries, fmt, follow, top):
    root = fresh(scratch)
    secret = root / "secret.csv"
    secret.write_text(f"step,loss\n1,{SECRET}\n")
    run = hostile_folder(root, entries, secret, fmt, top)
    with watchdog("logs folders") as record:
        r = logs(str(run), *(["--follow-links"] if follow else []))
        record(r.exit_code)
    assert_handled(r, str(run))  # a refusal names the folder, or the file in it by its whole path
    if not follow:
        assert "hunter2" not in r.output


@fuzz(12, 1500)
@given(lines=st.lists(st.one_of(st.sampled_from(SNIPPETS[:20]), st.binary(max_size=40),
                                st.builds(lambda k, v: json.dumps({k: v}).encode(), st.text(max_size=8),
                                          st.one_of(st.floats(), st.integers(-10**30, 10**30), st.text(max_size=5)))),
                      max_size=12),
       fmt=st.sampled_from(["csv", "jsonl", "hf_trainer_state"]))
def test_junk_text_logs_never_exit_3(scratch, lines, fmt):
    d = fresh(scratch)
    name, data = log_bytes(fmt, n=30)
    junk = b"\n".join(lines)
    (d / name).write_bytes(data[: len(data) // 2] + junk + data[len(data) // 2:] if len(lines) % 2 else junk)
    with watchdog(f"logs {fmt} (junk lines)") as record:
        r = logs(str(d / name))
        record(r.exit_code)
    assert_handled(r, name)


def test_the_api_refuses_without_changing_anything(tmp_path):
    p = tmp_path / "events.out.tfevents.2.x"
    p.write_bytes(tensorboard_bytes({"acc": [0.5]})[:-3])  # a version event and a cut scalar: no loss
    c = Consultation()
    c.observe(symptom="unstable")
    with pytest.raises(InputError):
        c.add_log(p)
    assert set(c.observations) == {"symptom"} and not c.incomplete



# ---------------------------------------------------------------------------------------- large logs


def test_tensorboard_reads_faster_than_tensorboards_own_loader(tmp_path):
    """Issue 22's bar: at most 1.5x TensorBoard's reader on the same file (the bench measures 1M points)."""
    import time

    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    from tests.hostile import curve

    n = 20_000
    p = tmp_path / "events.out.tfevents.1.host"
    p.write_bytes(tensorboard_bytes({"train/loss": curve(n), "lr": [1e-3] * n}))
    t = time.perf_counter()
    theirs = sum(len(ev.summary.value) for ev in EventFileLoader(str(p)).Load())
    t_theirs = time.perf_counter() - t
    t = time.perf_counter()
    run = read_log(p)
    t_ours = time.perf_counter() - t
    assert run.rows == theirs == 2 * n and not run.damage
    assert t_ours <= 1.5 * t_theirs, (t_ours, t_theirs)


def test_the_plot_marks_the_spikes_the_report_counts(tmp_path):
    from tests.hostile import curve

    loss = curve(3000)
    for at in (700, 1500, 2300):
        loss[at] *= 6
    p = tmp_path / "spiky.csv"
    p.write_text("step,loss\n" + "".join(f"{i},{v}\n" for i, v in enumerate(loss)))
    run = read_log(p)
    counted = run.classification()["spikes"]
    marked = run.regimes()["spikes"]
    assert counted == len(marked) == 3 and marked == [700, 1500, 2300]


def test_progress_is_shown_for_a_folder_too(tmp_path, monkeypatch):
    import expert.pipeline as pipeline_mod

    monkeypatch.setattr(pipeline_mod, "PROGRESS_FROM_BYTES", 1)
    for fmt in FORMATS:
        d = tmp_path / fmt
        d.mkdir()
        write(d, fmt)
        r = logs(str(d))
        assert r.exit_code in (0, 1) and f"reading {fmt}: 100%" in r.stderr, (fmt, r.stderr[-500:])
