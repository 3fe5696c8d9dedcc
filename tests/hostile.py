"""Hostile inputs for the fuzz tests: valid logs of every format, ways to damage them, and hostile folders;
and the fuzz harness: a per-example hang watchdog and a tally of examples per surface.

Shared by tests/test_hostile_logs.py, tests/test_hostile_inputs.py and tests/test_fuzz.py (bounded example
counts) and `make fuzz` (TRAINOPT_FUZZ scales them; TRAINOPT_FUZZ_REPORT=FILE writes the tally there).
"""

from __future__ import annotations

import atexit
import json
import math
import os
import signal
import struct
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SCALE = max(1, int(os.environ.get("TRAINOPT_FUZZ", "1") or 1))
"""Multiplies every fuzz property's example count (1 in CI; `make fuzz` runs 100)."""


def examples(ci: int, nightly: int) -> int:
    """Examples for one fuzz property: ``ci`` at scale 1 (CI), ``nightly`` at scale 100 (`make fuzz`)."""
    return ci if SCALE == 1 else max(ci, nightly * SCALE // 100)


HANG_S = float(os.environ.get("TRAINOPT_FUZZ_HANG_S", "60"))
"""One example running longer than this is a hang (the slowest healthy example takes a few seconds)."""


class Hang(BaseException):
    """Raised by the watchdog inside an example that ran past ``HANG_S``.

    A BaseException, so that no ``except Exception`` in trainopt (or click's test runner) can swallow it.
    """


TALLY: dict[str, Counter[str]] = {}
SLOWEST: dict[str, float] = {}


@contextmanager
def watchdog(surface: str) -> Iterator[Callable[[Any], None]]:
    """Run one fuzz example under a hang alarm and count it for ``surface``.

    Yields a function to record the example's outcome (an exit code, or any short label); an example that
    raises (a failed assertion) is not counted, since the test fails.
    """
    def hang(signum: int, frame: Any) -> None:
        raise Hang(f"{surface}: an example ran over {HANG_S:g} s")

    old = signal.signal(signal.SIGALRM, hang)
    signal.setitimer(signal.ITIMER_REAL, HANG_S)
    outcome: list[Any] = []
    t = time.perf_counter()
    try:
        yield outcome.append
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    took = time.perf_counter() - t
    tally = TALLY.setdefault(surface, Counter())
    tally["examples"] += 1
    for o in outcome:
        tally[f"exit {o}" if isinstance(o, int) else str(o)] += 1
    SLOWEST[surface] = max(SLOWEST.get(surface, 0.0), took)


def _write_tally() -> None:
    out = os.environ.get("TRAINOPT_FUZZ_REPORT")
    if not out or not TALLY:
        return
    path = Path(out)
    old = json.loads(path.read_text()) if path.exists() else {}
    for surface, tally in TALLY.items():
        entry = old.setdefault(surface, {"examples": 0, "outcomes": {}, "slowest_s": 0.0})
        for k, v in tally.items():
            if k == "examples":
                entry["examples"] += v
            else:
                entry["outcomes"][k] = entry["outcomes"].get(k, 0) + v
        entry["slowest_s"] = round(max(entry["slowest_s"], SLOWEST.get(surface, 0.0)), 3)
    path.write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")


atexit.register(_write_tally)

FORMATS = ("csv", "lightning_csv", "jsonl", "hf_trainer_state", "tensorboard")

# Byte strings that broke, or could break, a reader: bad UTF-8, NUL, huge or deep numbers and nesting, lone
# surrogate escapes, stray quotes and separators, CR, a megabyte with no line end.
SNIPPETS = [b"\xff\xfe", b"\x00", b"\xc3", b"\xed\xa0\x80", b"1" * 5000, b"9" * 400, b"[" * 100_000,
            b'{"a":' * 50_000, b'"\\ud800"', b'"\\udfff"', b"NaN", b"-Infinity", b"1e999", b"-1e-999", b"\r",
            b"\r\n", b"\n\n", b",,,,,", b'"', b'"""', b"\t", b"x" * (1 << 20) + b"y", b"true", b"null",
            b"__import__('os').system('touch PWNED')", b"\x80\x04\x95", b"AWS_SECRET_ACCESS_KEY=abc123"]


def curve(n: int, nan_from: int | None = None) -> list[float]:
    """A decreasing loss, NaN from ``nan_from`` on."""
    out = [2.3 * math.exp(-i / (n / 5)) + 0.3 + 0.01 * math.sin(i) for i in range(n)]
    if nan_from is not None:
        out[nan_from:] = [float("nan")] * (n - nan_from)
    return out


def _masked_crc(data: bytes) -> int:
    try:
        import google_crc32c
    except ImportError:
        from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c

        return masked_crc32c(data)
    x = google_crc32c.value(data)
    return (((x >> 15) | (x << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecord(payload: bytes) -> bytes:
    """One TFRecord: length, its masked CRC-32C, payload, its masked CRC-32C."""
    head = struct.pack("<Q", len(payload))
    return head + struct.pack("<I", _masked_crc(head)) + payload + struct.pack("<I", _masked_crc(payload))


def tensorboard_bytes(values: dict[str, list[float]]) -> bytes:
    """An event file as TensorBoard writes it: a version event, then one scalar event per value."""
    from tensorboard.compat.proto import event_pb2, summary_pb2

    out = [tfrecord(event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())]
    n = max(len(v) for v in values.values())
    for i in range(n):
        for tag, vs in values.items():
            if i < len(vs):
                ev = event_pb2.Event(wall_time=1.0 + i, step=i, summary=summary_pb2.Summary(
                    value=[summary_pb2.Summary.Value(tag=tag, simple_value=vs[i])]))
                out.append(tfrecord(ev.SerializeToString()))
    return b"".join(out)


def log_bytes(fmt: str, n: int = 200, nan_from: int | None = None) -> tuple[str, bytes]:
    """A valid log of a format: (file name, content)."""
    loss = curve(n, nan_from)
    val = curve(n)[::20]
    if fmt == "csv":
        rows = "".join(f"{i},{v}\n" for i, v in enumerate(loss))
        return "train.csv", f"step,loss\n{rows}".encode()
    if fmt == "lightning_csv":
        rows = []
        for i, v in enumerate(loss):
            rows.append(f"{i // 20},{i},{v},,\n")
            if i % 20 == 19:
                rows.append(f"{i // 20},{i},,{val[i // 20] * 1.05},0.9\n")
        return "metrics.csv", ("epoch,step,train_loss_step,val_loss,val_acc\n" + "".join(rows)).encode()
    if fmt == "jsonl":
        return "log.jsonl", "".join(json.dumps({"step": i, "loss": v, "lr": 1e-3}) + "\n"
                                    for i, v in enumerate(loss)).encode()
    if fmt == "hf_trainer_state":
        hist = [{"step": i, "loss": v, "grad_norm": 1.0, "learning_rate": 1e-4, "epoch": i / n}
                for i, v in enumerate(loss)]
        return "trainer_state.json", json.dumps({"global_step": n, "log_history": hist}).encode()
    if fmt == "tensorboard":
        return "events.out.tfevents.1.host", tensorboard_bytes({"train/loss": loss, "val/loss": val})
    raise ValueError(fmt)


def damage(data: bytes, ops: list[tuple[str, float, int]]) -> bytes:
    """Apply damage: ('flip', where 0..1, bit), ('cut', where, _), ('insert', where, snippet index),
    ('repeat', where, length), ('delete', where, length)."""
    b = bytearray(data)
    for op, where, k in ops:
        at = min(len(b), int(where * len(b)))
        if op == "flip" and b:
            b[min(at, len(b) - 1)] ^= 1 << (k % 8)
        elif op == "cut":
            del b[at:]
        elif op == "insert":
            b[at:at] = SNIPPETS[k % len(SNIPPETS)]
        elif op == "repeat":
            b[at:at] = b[at:at + k]
        elif op == "delete":
            del b[at:at + k]
    return bytes(b)


def hostile_folder(root: Path, entries: list[tuple[str, int]], secret: Path, fmt: str, top: str = "log") -> Path:
    """A run folder with hostile neighbours: dangling links, links out of the folder (to a file holding a
    secret, to /dev/zero), a FIFO named like a log, a link loop, odd file names, nested runs; and at its top
    (``top``) a valid log, none, an empty file, a log that goes NaN, or one cut mid-record."""
    run = root / "run"
    run.mkdir()
    name, data = log_bytes(fmt, nan_from=100 if top == "nan" else None)
    for kind, k in entries:
        sub = run / f"d{k % 3}"
        sub.mkdir(exist_ok=True)
        target = sub / (name if kind == "log" else ["metrics.csv", "trainer_state.json", "events.out.tfevents.9.x",
                                                     "x.jsonl", "y.csv"][k % 5])
        if target.exists() or target.is_symlink():
            continue
        if kind == "dangling":
            target.symlink_to(root / "nowhere" / str(k))
        elif kind == "secret":
            target.symlink_to(secret)
        elif kind == "zero":
            target.symlink_to("/dev/zero")
        elif kind == "fifo":
            os.mkfifo(target)
        elif kind == "loop":
            if not (sub / f"loop{k}").is_symlink():
                (sub / f"loop{k}").symlink_to(run)
        elif kind == "oddname":
            (sub / os.fsdecode(b"bad\xff\x1b[31m" + str(k).encode() + b".csv")).write_bytes(data)
        elif kind == "log":
            target.write_bytes(data)
        elif kind == "selflink":
            target.symlink_to(target)
    if top != "none":
        (run / name).write_bytes({"empty": b"", "cut": data[: len(data) * 2 // 3]}.get(top, data))
    return run
