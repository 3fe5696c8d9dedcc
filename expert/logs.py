"""Offline training logs: read Lightning, Hugging Face, TensorBoard, CSV and JSONL logs into observations.

A log is streamed in chunks and every series is downsampled on the fly into at most ``2 * capacity``
buckets (mean, min, max per bucket; the first non-finite step kept exactly), so a 10-million-row CSV is
read in bounded memory. Recognised columns (loss, val_loss, val_acc, train_acc, lr, grad_norm,
throughput) become observations with the provenance ``log:<file>:<column>``; the loss curve is labelled
by the probes' classifier. Reading a log never imports torch, and a small one (up to
``expert.logreaders.SMALL`` rows) never imports numpy: its series and their analysis stay plain Python.
"""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path
from typing import Any

from expert.logreaders import (
    CHUNK,
    STEP_NAMES,
    Progress,
    Series,
    _find_step,
    _int,
    _norm,
    detect,
    read_series,
)
from knowledge.errors import InputError, excerpt
from knowledge.record import dataclass
from knowledge.vocabulary import Observation

ROLES = ("loss", "val_loss", "val_acc", "train_acc", "lr", "grad_norm", "throughput")
"""Columns trainopt understands, by role; ``--map ROLE=COLUMN`` names one explicitly."""

IGNORED = ("epoch", "_runtime", "_timestamp", "timestamp", "time", "wall_time", "total_flos", "train_runtime",
           "train_steps_per_second", "num_input_tokens_seen")
"""Bookkeeping columns: read past without a note (they describe the run, not its health)."""


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
    damage: list[str] = field(default_factory=list)
    """What the reader skipped (records, lines, cells) and where: when not empty, the evidence is incomplete."""

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
        import numpy as np  # a live run's (torch has loaded it)

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
        if len(mean) < 6:
            return out
        import numpy as np  # the plot's (matplotlib has loaded it)

        from probes.loss_curve import count_spikes
        from probes.medians import median_along

        # The classifier's own count over the same bucket means: the plot marks exactly what the report counts.
        k = 5
        mean = np.asarray(mean, dtype=np.float64)
        pad = np.pad(mean, k // 2, mode="edge")
        base = median_along(np.lib.stride_tricks.sliding_window_view(pad, k), 1)[: mean.size]
        out["spikes"] = [int(steps[i]) for i in count_spikes(mean).positions]
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



def read_log(path: str | os.PathLike[str], *, mapping: dict[str, str] | None = None,
             progress: Progress | None = None, capacity: int = 4096, follow_links: bool = False) -> LogRun:
    """Read a training log (streaming, bounded memory) and recognise its columns.

    Args:
        path: A log file or a run folder (``lightning_logs/version_0``, a checkpoint folder, a TensorBoard run).
        mapping: ``{role: column}`` overriding the recognised names (roles: see ``ROLES``).
        progress: Called with (bytes done, bytes total) while a large file is read.
        capacity: Buckets kept per series (at most twice that many points reach the classifier and the plot).
        follow_links: Read links in a run folder that lead out of it (by default they are skipped, with a note).

    Returns:
        The run: series, roles, notes; ``.observations()`` for the engine.

    Raises:
        InputError: Missing, unreadable or malformed file, or no loss column.
    """
    got = read_series(Path(path), progress=progress, capacity=capacity, follow_links=follow_links)
    p, kind, series, columns, rows, notes = got.path, got.kind, got.series, got.columns, got.rows, got.notes
    # Found in a folder: name the file by its whole path (a run folder may hold several metrics.csv).
    shown = p.name if p == Path(path) else excerpt(str(p), 200)
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
            raise InputError(f"unknown role {excerpt(role)}", hint=f"roles: {', '.join(ROLES)}")
        if col not in series:
            raise InputError(f"no numeric column {excerpt(col)} in {shown}",
                             context="columns: " + ", ".join(sorted(series)[:30]))
        roles[role] = col
    if "loss" not in roles:
        raise InputError(f"no training-loss column in {shown}",
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
        if len(m) >= 2 and m[0] > 0:
            # No vocabulary entry takes a raw rate (the slow-training rows reason over data-wait fraction and
            # GPU utilisation), so the rate is reported for a person to read.
            from probes.medians import median

            notes.append(f"throughput ({tp.tag}): median {median(m):.4g}, last/first "
                         f"{float(m[-1] / m[0]):.2f}")
    return LogRun(p, kind, series, roles, sorted(unrecognised), rows, notes, got.damage.notes())


def log_observations(path: str | os.PathLike[str], **kw: Any) -> tuple[LogRun, list[Observation]]:
    """Read a log and return it with its observations (``Consultation.add_log`` uses this)."""
    run = read_log(path, **kw)
    return run, run.observations()


__all__ = ["CHUNK", "LogRun", "ROLES", "STEP_NAMES", "Progress", "Series", "detect", "log_observations", "read_log",
           "role_of"]

