"""Offline training logs: read Lightning, Hugging Face, TensorBoard, CSV and JSONL logs into observations.

A log is streamed in chunks and every series is downsampled on the fly into at most ``2 * capacity``
buckets (mean, min, max per bucket; the first non-finite step kept exactly), so a 10-million-row CSV is
read in bounded memory. Recognised columns (loss, val_loss, val_acc, train_acc, lr, grad_norm,
throughput) become observations with the provenance ``log:<file>:<column>``; the loss curve is labelled
by the probes' classifier (numpy only: reading a log never imports torch).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from knowledge.errors import InputError
from knowledge.vocabulary import Observation

ROLES = ("loss", "val_loss", "val_acc", "train_acc", "lr", "grad_norm", "throughput")
"""Columns trainopt understands, by role; ``--map ROLE=COLUMN`` names one explicitly."""

STEP_NAMES = ("step", "global_step", "_step", "steps", "iteration", "iter", "trainer/global_step")
IGNORED = ("epoch", "_runtime", "_timestamp", "timestamp", "time", "wall_time", "total_flos", "train_runtime",
           "train_steps_per_second", "num_input_tokens_seen")
"""Bookkeeping columns: read past without a note (they describe the run, not its health)."""

CHUNK = 65536
"""Rows converted to numpy at a time."""

Progress = Callable[[int, int], None]
"""``progress(done, total)`` in bytes, called now and then while a large file is read."""


def _norm(tag: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", tag.lower()).strip("_")


def role_of(tag: str) -> str | None:
    """The role a column name plays, or None (e.g. ``eval_loss`` -> val_loss, ``lr-AdamW`` -> lr)."""
    t = _norm(tag)
    words = set(t.split("_"))
    val = bool(words & {"val", "valid", "validation", "eval", "evaluation", "dev", "test"})
    if "grad" in t and "norm" in t:
        return "grad_norm"
    if t.startswith("lr") or "learning_rate" in t or words & {"lr"}:
        return "lr"
    if words & {"throughput", "samples_per_second", "tokens_per_second"} or "per_second" in t \
            or t.endswith(("it_s", "samples_s", "tokens_s")):
        return "throughput"
    if "loss" in t:
        return "val_loss" if val else "loss"
    if "acc" in t or "accuracy" in t:
        return "val_acc" if val else "train_acc"
    return None


# Among several loss columns, the per-step training loss wins: it has the finest resolution.
_LOSS_PREFERENCE = ("loss", "train_loss", "train_loss_step", "training_loss", "loss_step", "train_loss_epoch")


def _pick(role: str, tags: list[str]) -> str:
    if role == "loss":
        ranked = sorted(tags, key=lambda t: (_LOSS_PREFERENCE.index(_norm(t)) if _norm(t) in _LOSS_PREFERENCE
                                             else len(_LOSS_PREFERENCE), t))
        return ranked[0]
    return sorted(tags, key=lambda t: (len(t), t))[0]


# --------------------------------------------------------------------------------------- downsampling


class Series:
    """One scalar series, downsampled as it streams: bucket means, minima, maxima and first steps.

    Args:
        tag: The column or tag name in the log.
        capacity: Buckets kept after a merge; memory is O(capacity) whatever the length of the log.
    """

    def __init__(self, tag: str, capacity: int = 4096) -> None:
        self.tag = tag
        self.capacity = capacity
        self.width = 1
        self.points = 0
        self.nonfinite = 0
        self.first_nonfinite_step: float | None = None
        self.last_finite: float | None = None
        self._pend_s = np.empty(0)
        self._pend_v = np.empty(0)
        self._b: list[np.ndarray] = []  # rows: first step, sum, finite count, min, max, last step

    def extend(self, steps: np.ndarray, values: np.ndarray) -> None:
        """Add points in step order (NaN/Inf values are counted and located, never averaged)."""
        if not values.size:
            return
        self.points += int(values.size)
        bad = ~np.isfinite(values)
        if bad.any():
            self.nonfinite += int(bad.sum())
            if self.first_nonfinite_step is None:
                self.first_nonfinite_step = float(steps[int(np.argmax(bad))])
        fin = values[~bad]
        if fin.size:
            self.last_finite = float(fin[-1])
        self._pend_s = np.concatenate([self._pend_s, steps.astype(np.float64)])
        self._pend_v = np.concatenate([self._pend_v, values.astype(np.float64)])
        self._drain(final=False)

    def _drain(self, final: bool) -> None:
        w = self.width
        n = (self._pend_v.size // w) * w
        if final and self._pend_v.size > n:
            n = self._pend_v.size  # the tail becomes one short bucket
        if n:
            s, v = self._pend_s[:n], self._pend_v[:n]
            self._pend_s, self._pend_v = self._pend_s[n:], self._pend_v[n:]
            full = (v.size // w) * w
            parts = [(s[:full].reshape(-1, w), v[:full].reshape(-1, w))] if full else []
            if full < v.size:
                tail_v = np.full(w, np.nan)
                tail_v[: v.size - full] = v[full:]
                tail_s = np.full(w, s[-1])
                tail_s[: v.size - full] = s[full:]
                parts.append((tail_s.reshape(1, w), tail_v.reshape(1, w)))
            for ss, vv in parts:
                ok = np.isfinite(vv)
                cnt = ok.sum(axis=1)
                z = np.where(ok, vv, 0.0)
                mn = np.where(ok, vv, np.inf).min(axis=1)
                mx = np.where(ok, vv, -np.inf).max(axis=1)
                self._b.append(np.stack([ss[:, 0], z.sum(axis=1), cnt, mn, mx, ss[:, -1]], axis=1))
        if sum(len(b) for b in self._b) > 2 * self.capacity:
            self._merge()

    def _merge(self) -> None:
        b = np.concatenate(self._b)
        while len(b) > 2 * self.capacity:
            even = (len(b) // 2) * 2
            p = b[:even].reshape(-1, 2, 6)
            merged = np.stack([p[:, 0, 0], p[:, :, 1].sum(1), p[:, :, 2].sum(1), p[:, :, 3].min(1),
                               p[:, :, 4].max(1), p[:, 1, 5]], axis=1)
            b = np.concatenate([merged, b[even:]])
            self.width *= 2
        self._b = [b]

    def finish(self) -> Series:
        """Flush the points still pending; call once after the last ``extend``."""
        self._drain(final=True)
        return self

    @property
    def buckets(self) -> np.ndarray:
        """Array of rows (first step, sum, finite count, min, max, last step)."""
        return np.concatenate(self._b) if self._b else np.empty((0, 6))

    def curve(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Steps, means, minima and maxima of the buckets that hold a finite value."""
        b = self.buckets
        b = b[b[:, 2] > 0]
        return b[:, 0], b[:, 1] / b[:, 2], b[:, 3], b[:, 4]

    @property
    def downsampled(self) -> bool:
        """True when buckets hold more than one point."""
        return self.width > 1

    def summary(self) -> dict[str, Any]:
        """JSON-ready facts about the series."""
        _, m, _, _ = self.curve()
        return {"tag": self.tag, "points": self.points, "buckets": int(m.size), "bucket_width": self.width,
                "nonfinite": self.nonfinite, "first_nonfinite_step": _int(self.first_nonfinite_step),
                "last": self.last_finite}


def _int(x: float | None) -> int | None:
    return None if x is None else int(x)


# --------------------------------------------------------------------------------------- readers


def _floats(cells: list[Any], where: str, first_row: int) -> np.ndarray:
    """Cells of one column (str from CSV, numbers from JSON; None/'' for not logged) as float64, NaN kept."""
    try:  # fast path: every cell a number or a numeric string (numpy parses those; None becomes NaN)
        return np.array(cells, dtype=np.float64)
    except (TypeError, ValueError):
        pass
    out = np.empty(len(cells))
    for i, c in enumerate(cells):
        if c is None or c == "":
            out[i] = np.nan  # caller masks these out: "not logged on this row"
            continue
        try:
            out[i] = float(c)
        except (TypeError, ValueError):
            raise InputError(f"non-numeric value {c!r} in column {where!r}",
                             context=f"data row {first_row + i + 1}",
                             hint="a log column holds numbers (nan/inf allowed); fix or drop that row") from None
    return out


def _present(cells: list[Any]) -> np.ndarray:
    if "" not in cells and None not in cells:  # dense column: both scans run in C
        return np.ones(len(cells), dtype=bool)
    return np.fromiter((c is not None and c != "" for c in cells), dtype=bool, count=len(cells))


class _Chunks:
    """Collects rows as columns and hands them over CHUNK rows at a time."""

    def __init__(self, columns: list[str], step_col: str | None, sink: Callable[[str, np.ndarray, np.ndarray],
                                                                                    None]) -> None:
        self.columns, self.step_col, self.sink = columns, step_col, sink
        self.cols: dict[str, list[Any]] = {c: [] for c in columns}
        self.rows = 0
        self._first = 0

    def flush(self) -> None:
        n = self.rows - self._first
        if not n:
            return
        if self.step_col is not None:
            sc = self.cols[self.step_col]
            steps = _floats(sc, self.step_col, self._first)
            idx = np.arange(self._first, self.rows, dtype=np.float64)
            steps = np.where(np.isfinite(steps), steps, idx)  # a row without a step keeps its row number
        else:
            steps = np.arange(self._first, self.rows, dtype=np.float64)
        for c in self.columns:
            if c == self.step_col:
                continue
            cells = self.cols[c]
            mask = _present(cells)
            if mask.any():
                self.sink(c, steps[mask], _floats(cells, c, self._first)[mask])
        self.cols = {c: [] for c in self.columns}
        self._first = self.rows


def _find_step(columns: list[str]) -> str | None:
    norm = {_norm(c): c for c in columns}
    for s in STEP_NAMES:
        if _norm(s) in norm:
            return norm[_norm(s)]
    return None


class _Counting(io.RawIOBase):
    """A byte stream that reports how far it has read (for progress on large files)."""

    def __init__(self, fh: Any, total: int, progress: Progress | None) -> None:
        self.fh, self.total, self.progress = fh, total, progress
        self.done = 0
        self._every = max(1 << 16, total // 100)  # about a hundred reports, whatever the size
        self._next = self._every
        self._ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = self.fh.readinto(b)
        self.done += n or 0
        if self.progress is not None and (self.done >= self._next or (not n and not self._ended)):
            self._next = self.done + self._every
            self._ended = not n
            self.progress(self.done, self.total)
        return n

    def close(self) -> None:
        self.fh.close()
        super().close()


def _text(path: Path, progress: Progress | None) -> io.TextIOWrapper:
    raw = _Counting(open(path, "rb"), path.stat().st_size, progress)  # noqa: SIM115 - closed by the wrapper
    return io.TextIOWrapper(io.BufferedReader(raw, 1 << 20), encoding="utf-8", errors="strict", newline="")


def _read_csv(path: Path, sink: Any, progress: Progress | None) -> tuple[list[str], int]:
    with _text(path, progress) as fh:
        try:
            head = fh.readline()
        except UnicodeDecodeError:
            raise InputError(f"{path.name} is not a UTF-8 text file", hint="give a CSV, JSONL, JSON or "
                             "TensorBoard event file") from None
        if not head.strip():
            raise InputError(f"{path.name} is empty", hint="a CSV log starts with a header row (step,loss,...)")
        dialect = "excel-tab" if head.count("\t") > head.count(",") else "excel"
        columns = [c.strip() for c in next(csv.reader([head], dialect=dialect))]
        if len(set(columns)) != len(columns) or not all(columns):
            raise InputError(f"{path.name}: the header row has empty or repeated column names",
                             context=f"header: {head.strip()[:200]}")
        step = _find_step(columns)
        ch = _Chunks(columns, step, sink)
        width = len(columns)
        reader = csv.reader(fh, dialect=dialect)
        rows: list[list[str]] = []

        def flush() -> None:
            ch.rows += len(rows)
            for c, cells in zip(columns, zip(*rows)):  # rows -> columns in one C-level pass
                ch.cols[c] = list(cells)
            ch.flush()
            rows.clear()

        try:
            for row in reader:
                if len(row) != width:
                    if not row:
                        continue
                    raise InputError(f"{path.name}: line {reader.line_num + 1} has {len(row)} fields, the header has "
                                     f"{width}", hint="a truncated or mixed file? fix or cut that row")
                rows.append(row)
                if len(rows) >= CHUNK:
                    flush()
        except (UnicodeDecodeError, csv.Error) as exc:
            raise InputError(f"{path.name} is not a readable CSV file: {exc}",
                             context=f"near line {reader.line_num + 1}") from None
        flush()
        return columns, ch.rows


def _read_jsonl(path: Path, sink: Any, progress: Progress | None) -> tuple[list[str], int]:
    columns: list[str] = []
    rows = 0
    pending: list[dict[str, Any]] = []

    def flush() -> None:
        nonlocal columns
        if not pending:
            return
        keys = sorted({k for d in pending for k, v in d.items() if _numberish(v)})
        columns = sorted(set(columns) | set(keys))
        step = _find_step(columns)
        ch = _Chunks(keys + ([step] if step and step not in keys else []), step, sink)
        ch._first = rows - len(pending)
        ch.rows = rows
        for k in ch.columns:
            ch.cols[k] = [_cell(d.get(k)) for d in pending]
        ch.flush()
        pending.clear()

    with _text(path, progress) as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise InputError(f"{path.name}: line {lineno} is not JSON: {exc}",
                                 hint="a JSONL log holds one JSON object per line") from None
            if not isinstance(d, dict):
                raise InputError(f"{path.name}: line {lineno} is not a JSON object",
                                 hint='e.g. {"step": 10, "loss": 2.3}')
            pending.append(d)
            rows += 1
            if len(pending) >= CHUNK:
                flush()
        flush()
    if not rows:
        raise InputError(f"{path.name} holds no JSON objects")
    return columns, rows


def _numberish(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) or (
        isinstance(v, str) and v.strip().lower() in ("nan", "inf", "-inf", "infinity", "-infinity"))


def _cell(v: Any) -> Any:
    return v if _numberish(v) else None


def _read_hf(path: Path, sink: Any, notes: list[str]) -> tuple[list[str], int]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path.name} is not a readable JSON file: {exc}") from None
    hist = data.get("log_history") if isinstance(data, dict) else None
    if not isinstance(hist, list):
        raise InputError(f"{path.name} has no 'log_history' list",
                         hint="give the trainer_state.json a transformers Trainer saves with each checkpoint")
    notes.append("Hugging Face Trainer: with logging_nan_inf_filter=True (the default) a NaN/Inf training loss is "
                 "never logged (the Trainer logs the mean of the earlier losses instead, and a window that was all "
                 "NaN shows as 0.0); grad_norm is logged unfiltered, so trainopt reads non-finite gradient norms "
                 "as a non-finite loss. Set logging_nan_inf_filter=False to see the real values.")
    # Training logs, evaluation logs and the final summary share the list; only numeric keys become series.
    rows = [d for d in hist if isinstance(d, dict)]
    keys = sorted({k for d in rows for k, v in d.items() if _numberish(v)})
    step = _find_step(keys)
    ch = _Chunks(keys, step, sink)
    for k in keys:
        ch.cols[k] = [_cell(d.get(k)) for d in rows]
    # The end-of-training summary ("train_loss" averaged over the run) is one point: not a curve.
    if "train_loss" in ch.cols and "loss" in ch.cols:
        ch.cols["train_loss"] = [None] * len(rows)
    ch.rows = len(rows)
    ch.flush()
    return keys, len(rows)


def _read_tensorboard(path: Path, sink: Any, progress: Progress | None) -> tuple[list[str], int]:
    from expert.extras import require

    require("tensorboard", "reading TensorBoard event files")
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    from tensorboard.util import tensor_util

    files = sorted(path.glob("**/events.out.tfevents*")) if path.is_dir() else [path]
    bufs: dict[str, tuple[list[float], list[float]]] = {}
    total = sum(f.stat().st_size for f in files)
    done = 0
    rows = 0
    seen: set[str] = set()

    def flush(tag: str) -> None:
        s, v = bufs.pop(tag)
        sink(tag, np.asarray(s, dtype=np.float64), np.asarray(v, dtype=np.float64))

    for f in files:
        try:
            # Every event in order (EventAccumulator would keep a reservoir sample of 1,000 scalars per tag).
            for ev in EventFileLoader(str(f)).Load():
                if not ev.HasField("summary"):
                    continue
                for v in ev.summary.value:
                    kind = v.WhichOneof("value")
                    if kind == "simple_value":
                        x = float(v.simple_value)
                    elif kind == "tensor" and v.tensor.dtype in (1, 2, 19):  # float, double, half
                        arr = tensor_util.make_ndarray(v.tensor)
                        if arr.size != 1:
                            continue
                        x = float(arr.reshape(-1)[0])
                    else:
                        continue
                    seen.add(v.tag)
                    s, vals = bufs.setdefault(v.tag, ([], []))
                    s.append(float(ev.step))
                    vals.append(x)
                    rows += 1
                    if len(vals) >= CHUNK:
                        flush(v.tag)
        except Exception as exc:  # noqa: BLE001 - the reader raises several kinds on a corrupt record
            raise InputError(f"{f.name} is not a readable TensorBoard event file: {type(exc).__name__}: {exc}",
                             hint="a truncated file from a crashed run? copy it again") from None
        done += f.stat().st_size
        if progress is not None:
            progress(done, total)
    if not rows:
        raise InputError(f"no scalar events in {path.name}",
                         hint="not a TensorBoard event file, or the run logged no scalars (add_scalar)")
    for tag in list(bufs):
        flush(tag)
    return sorted(seen), rows


# --------------------------------------------------------------------------------------- the run


@dataclass
class LogRun:
    """A training log, read and summarised.

    Attributes:
        path: The file read.
        kind: ``lightning_csv``, ``csv``, ``jsonl``, ``hf_trainer_state`` or ``tensorboard``.
        series: Every numeric column or tag, downsampled.
        roles: Role (``loss``, ``val_loss``...) -> the column that plays it.
        unrecognised: Numeric columns trainopt does not understand (read past, listed in the report notes).
        rows: Rows (or scalar events) read.
        notes: What the reader noticed that a person should know.
    """

    path: Path
    kind: str
    series: dict[str, Series]
    roles: dict[str, str]
    unrecognised: list[str]
    rows: int
    notes: list[str] = field(default_factory=list)

    @classmethod
    def from_history(cls, loss: Any, *, name: str = "watch", steps: Any = None,
                     metrics: dict[str, Any] | None = None, capacity: int = 4096) -> LogRun:
        """A run from in-memory histories (a live loop, ``watch``): per-step losses and optional metrics.

        Args:
            loss: Loss per step (None entries are skipped).
            name: What ``source`` calls the run (``log:<name>:<column>``).
            steps: Step numbers of the losses (default 0, 1, ...).
            metrics: ``{column: values}`` or ``{column: (steps, values)}``; columns are recognised by name.
            capacity: Buckets kept per series.
        """
        series: dict[str, Series] = {}

        def put(tag: str, st: Any, vals: Any) -> None:
            v = np.asarray([np.nan if x is None else float(x) for x in vals], dtype=np.float64)
            keep = np.asarray([x is not None for x in vals], dtype=bool)
            st = np.arange(v.size, dtype=np.float64) if st is None else np.asarray(st, dtype=np.float64)
            series[tag] = Series(tag, capacity)
            series[tag].extend(st[keep], v[keep])
            series[tag].finish()

        put("loss", steps, list(loss))
        for tag, val in (metrics or {}).items():
            if isinstance(val, tuple) and len(val) == 2:
                put(tag, val[0], list(val[1]))
            else:
                put(tag, None, list(val))
        roles = {"loss": "loss"}
        for tag in series:
            r = role_of(tag)
            if r and r not in roles:
                roles[r] = tag
        return cls(Path(name), "history", series, roles, [], series["loss"].points, [])

    def source(self, role: str) -> str:
        """Provenance of an observation drawn from a role's column: ``log:<file>:<column>``."""
        return f"log:{self.path.name}:{self.roles[role]}"

    def get(self, role: str) -> Series | None:
        """The series playing a role, if any."""
        tag = self.roles.get(role)
        return self.series.get(tag) if tag else None

    def curve(self, role: str) -> Any:
        """The series playing ``role`` as the shared analysis reads it (``probes.history.Curve``), or None."""
        from probes.history import Curve

        s = self.get(role)
        if s is None:
            return None
        steps, mean, _, hi = s.curve()
        return Curve(steps, mean, s.first_nonfinite_step, s.nonfinite, s.points, hi if s.downsampled else None)

    def analysis(self) -> dict[str, list[Observation]]:
        """The shared run-history analysis (``probes.history.analyse``, as ``watch`` and the callbacks use it).

        Returns:
            ``{role: [Observation]}``: each verdict with the role whose column it rests on.
        """
        cached = getattr(self, "_analysis", None)
        if cached is not None:
            return cached
        from probes.history import analyse

        lr = self.get("lr")
        self._analysis = analyse(
            loss=self.curve("loss"), val_loss=self.curve("val_loss"), val_acc=self.curve("val_acc"),
            train_acc=self.curve("train_acc"), grad_norm=self.curve("grad_norm"), lr=self.curve("lr"),
            nan_filter=self.kind == "hf_trainer_state",
            lr_lo=lr.curve()[2] if lr is not None and lr.downsampled else None,
            lr_width=lr.width if lr is not None else 1)
        return self._analysis

    def classification(self) -> dict[str, Any] | None:
        """The loss curve's label and measured numbers, as the report has them (None without a loss)."""
        if self.get("loss") is None:
            return None
        for obs in self.analysis().values():
            for o in obs:
                if o.name == "loss_behavior":
                    return {"label": o.value, **dict(o.evidence or {})}
        return {"label": None}

    def observations(self) -> list[Observation]:
        """Observations the log supports, each with provenance ``log:<file>:<column>`` and its evidence."""
        out: list[Observation] = []
        for role, obs in self.analysis().items():
            out += [Observation.make(o.name, o.value, self.source(role), o.evidence) for o in obs]
        return out

    def regimes(self) -> dict[str, Any]:
        """Where the loss curve did what (for the plot): plateau span, spike steps, divergence start, NaN step."""
        s = self.get("loss")
        out: dict[str, Any] = {"label": None, "plateau": None, "spikes": [], "diverging_from": None,
                               "nan_step": None}
        if s is None:
            return out
        r = self.classification() or {}
        out["label"] = r.get("label")
        nan = r.get("first_nonfinite_step", s.first_nonfinite_step)  # a filtered loss's, from its grad norm
        out["nan_step"] = _int(nan if r.get("label") == "nan_or_inf" else s.first_nonfinite_step)
        steps, mean, _, hi = s.curve()
        if mean.size < 6:
            return out
        from knowledge.measurements import threshold

        k = 5
        pad = np.pad(mean, k // 2, mode="edge")
        base = np.median(np.lib.stride_tricks.sliding_window_view(pad, k), axis=1)[: mean.size]
        resid = hi - base
        mad = float(np.median(np.abs(mean - base))) * 1.4826
        floor = max(mad, 1e-3 * max(float(np.median(np.abs(mean))), 1e-12))
        hits = np.nonzero((resid / floor > threshold("MT-CURVE-SPIKE")) & (resid > 0.25 * np.abs(base)))[0]
        out["spikes"] = [int(steps[i]) for i in hits[:50]]
        if out["label"] == "plateau_after_learning":
            half = mean.size // 2
            out["plateau"] = [int(steps[half]), int(steps[-1])]
        elif out["label"] == "flat_from_start":
            out["plateau"] = [int(steps[0]), int(steps[-1])]
        if out["label"] == "diverging":
            out["diverging_from"] = int(steps[int(np.argmin(base))])
        return out

    def summary(self) -> dict[str, Any]:
        """JSON-ready description: file, kind, rows, roles, series summaries, notes."""
        return {"file": str(self.path), "kind": self.kind, "rows": self.rows, "roles": dict(self.roles),
                "unrecognised": list(self.unrecognised), "series": {k: v.summary() for k, v in self.series.items()},
                "notes": list(self.notes)}


def detect(path: Path, notes: list[str] | None = None) -> tuple[Path, str]:
    """Find the log file in ``path`` (a file, or a run folder) and its kind.

    In a folder holding several logs, the newest is read (and ``notes`` says so).

    Raises:
        InputError: Nothing readable there.
    """
    if not path.exists():
        raise InputError(f"no such file or folder: {path}", hint="give a log file or a run folder")
    if path.is_dir():
        cands: list[Path] = []
        for pat in ("metrics.csv", "trainer_state.json", "events.out.tfevents*", "*.jsonl", "*.csv"):
            cands = sorted(path.glob(f"**/{pat}"), key=lambda p: (-p.stat().st_mtime, str(p)))
            if cands:
                break
        if not cands:
            raise InputError(f"no training log found in {path}",
                             hint="looked for metrics.csv, trainer_state.json, events.out.tfevents.*, *.jsonl, *.csv")
        runs = {c.parent for c in cands} if cands[0].name.startswith("events.out.tfevents") else set(cands)
        if len(runs) > 1 and notes is not None:
            newest = cands[0].parent if cands[0].name.startswith("events.out.tfevents") else cands[0]
            notes.append(f"{len(runs)} logs found under {path}; read the newest, {newest} (give another file or "
                         "folder to read it)")
        if cands[0].name.startswith("events.out.tfevents"):
            return cands[0].parent, "tensorboard"  # one run folder may hold several event files
        path = cands[0]
    name = path.name
    if name.startswith("events.out.tfevents"):
        return path, "tensorboard"
    if name.endswith(".jsonl") or name.endswith(".ndjson"):
        return path, "jsonl"
    if name.endswith(".json"):
        return path, "hf_trainer_state"
    if name == "metrics.csv":
        return path, "lightning_csv"
    if name.endswith((".csv", ".tsv", ".txt")):
        return path, "csv"
    raise InputError(f"unrecognised log format: {name}",
                     hint="supported: Lightning metrics.csv, HF trainer_state.json, TensorBoard events.out.tfevents.*, "
                          "CSV or JSONL with a step and a loss column")


def read_log(path: str | os.PathLike[str], *, mapping: dict[str, str] | None = None,
             progress: Progress | None = None, capacity: int = 4096) -> LogRun:
    """Read a training log (streaming, bounded memory) and recognise its columns.

    Args:
        path: A log file or a run folder (``lightning_logs/version_0``, a checkpoint folder, a TensorBoard run).
        mapping: ``{role: column}`` overriding the recognised names (roles: see ``ROLES``).
        progress: Called with (bytes done, bytes total) while a large file is read.
        capacity: Buckets kept per series (at most twice that many points reach the classifier and the plot).

    Returns:
        The run: series, roles, notes; ``.observations()`` for the engine.

    Raises:
        InputError: Missing, unreadable or malformed file, or no loss column.
    """
    notes: list[str] = []
    p, kind = detect(Path(path), notes)
    series: dict[str, Series] = {}

    def sink(tag: str, steps: np.ndarray, values: np.ndarray) -> None:
        s = series.get(tag)
        if s is None:
            s = series[tag] = Series(tag, capacity)
        s.extend(steps, values)

    try:
        if kind in ("csv", "lightning_csv"):
            columns, rows = _read_csv(p, sink, progress)
        elif kind == "jsonl":
            columns, rows = _read_jsonl(p, sink, progress)
        elif kind == "hf_trainer_state":
            columns, rows = _read_hf(p, sink, notes)
        else:
            columns, rows = _read_tensorboard(p, sink, progress)
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from None
    for s in series.values():
        s.finish()
    step = _find_step(columns)
    by_role: dict[str, list[str]] = {}
    unrecognised = []
    for tag in series:
        if tag == step or _norm(tag) in IGNORED:
            continue
        role = role_of(tag)
        if role is None:
            unrecognised.append(tag)
        else:
            by_role.setdefault(role, []).append(tag)
    roles = {r: _pick(r, tags) for r, tags in by_role.items()}
    for role, col in (mapping or {}).items():
        if role not in ROLES:
            raise InputError(f"unknown role {role!r}", hint=f"roles: {', '.join(ROLES)}")
        if col not in series:
            raise InputError(f"no numeric column {col!r} in {p.name}",
                             context="columns: " + ", ".join(sorted(series)[:30]))
        roles[role] = col
    if "loss" not in roles:
        raise InputError(f"no training-loss column in {p.name}",
                         context="numeric columns: " + (", ".join(sorted(series)[:30]) or "(none)"),
                         hint="name it loss or train_loss, or map it: --map loss=COLUMN")
    extra = sorted(t for r, tags in by_role.items() for t in tags if t != roles.get(r))
    if unrecognised:
        notes.append("columns not used: " + ", ".join(sorted(unrecognised)[:20]))
    if extra:
        notes.append("also present, not used (another column plays the role): " + ", ".join(extra[:20]))
    tp = series.get(roles.get("throughput", ""))
    if tp is not None:
        _, m, _, _ = tp.curve()
        if m.size >= 2 and m[0] > 0:
            # No vocabulary entry takes a raw rate (the slow-training rows reason over data-wait fraction and
            # GPU utilisation), so the rate is reported for a person to read.
            notes.append(f"throughput ({tp.tag}): median {float(np.median(m)):.4g}, last/first "
                         f"{float(m[-1] / m[0]):.2f}")
    return LogRun(p, kind, series, roles, sorted(unrecognised), rows, notes)


def log_observations(path: str | os.PathLike[str], **kw: Any) -> tuple[LogRun, list[Observation]]:
    """Read a log and return it with its observations (``Consultation.add_log`` uses this)."""
    run = read_log(path, **kw)
    return run, run.observations()


__all__ = ["LogRun", "ROLES", "Series", "detect", "log_observations", "read_log", "role_of"]

