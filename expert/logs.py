"""Offline training logs: read Lightning, Hugging Face, TensorBoard, CSV and JSONL logs into observations.

A log is streamed in chunks and every series is downsampled on the fly into at most ``2 * capacity``
buckets (mean, min, max per bucket; the first non-finite step kept exactly), so a 10-million-row CSV is
read in bounded memory. Recognised columns (loss, val_loss, val_acc, train_acc, lr, grad_norm,
throughput) become observations with the provenance ``log:<file>:<column>``; the loss curve is labelled
by the probes' classifier (numpy only: reading a log never imports torch).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

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

    def classification(self) -> dict[str, Any] | None:
        """The loss curve's label and measured numbers (the probes' classifier over the bucket means)."""
        s = self.get("loss")
        if s is None:
            return None
        from probes.loss_curve import classify

        steps, mean, _, _ = s.curve()
        if s.first_nonfinite_step is not None:
            return {"label": "nan_or_inf", "first_nonfinite_step": _int(s.first_nonfinite_step),
                    "nonfinite_points": s.nonfinite, "points": s.points}
        r = classify(mean)
        r["points"] = s.points
        r["bucket_width"] = s.width
        return r

    def observations(self) -> list[Observation]:
        """Observations the log supports, each with provenance ``log:<file>:<column>`` and its evidence."""
        from probes.base import jsonable, threshold_evidence

        out: list[Observation] = []
        loss = self.get("loss")
        r = self.classification()
        if loss is not None and r is not None and r.get("label"):
            ev = jsonable({k: v for k, v in r.items() if k != "label"})
            if r["label"] != "nan_or_inf":
                ev.update(threshold_evidence("MT-CURVE-FLAT", "MT-CURVE-SLOW", "MT-CURVE-PLATEAU",
                                             "MT-CURVE-CONVERGED", "MT-CURVE-DIVERGE", "MT-CURVE-OSC",
                                             "MT-CURVE-SPIKE"))
            out.append(Observation.make("loss_behavior", r["label"], self.source("loss"), ev))
            if r["label"] == "nan_or_inf" and (r["first_nonfinite_step"] or 0) >= 0:
                out.append(Observation.make("nan_step", r["first_nonfinite_step"], self.source("loss"),
                                            {"nonfinite_points": loss.nonfinite}))
        gn = self.get("grad_norm")
        if gn is not None:
            out += self._grad_norm(gn, loss_nan=bool(r and r.get("label") == "nan_or_inf"))
        out += self._generalization()
        lr = self.get("lr")
        if lr is not None:
            out += self._lr(lr)
        return out

    def _grad_norm(self, s: Series, loss_nan: bool) -> list[Observation]:
        from knowledge.measurements import threshold
        from probes.base import threshold_evidence

        src = self.source("grad_norm")
        out = []
        steps, mean, lo, hi = s.curve()
        if s.first_nonfinite_step is not None:
            out.append(Observation.make("grad_norm_trend", "exploding", src,
                                        {"first_nonfinite_step": _int(s.first_nonfinite_step),
                                         "nonfinite_points": s.nonfinite}))
            if not loss_nan and self.kind == "hf_trainer_state":
                # The Trainer's NaN filter hid the loss; the gradient norm shows the step it went non-finite.
                out.append(Observation.make("loss_behavior", "nan_or_inf", src,
                                            {"first_nonfinite_step": _int(s.first_nonfinite_step),
                                             "why": "grad_norm non-finite; the Trainer filters NaN losses"}))
                out.append(Observation.make("nan_step", _int(s.first_nonfinite_step), src))
            return out
        if not mean.size:
            return out
        med = float(np.median(mean))
        # spikes: a bucket whose maximum exceeds MT-GRAD-SPIKE times the running median of the means before it
        spikes = 0
        if mean.size >= 8:
            run = np.array([np.median(mean[max(0, i - 64):i]) for i in range(4, mean.size)])
            spikes = int(np.sum(hi[4:] > threshold("MT-GRAD-SPIKE") * np.maximum(run, 1e-12)))
        if med > threshold("MT-GRAD-EXPLODE-ABS"):
            trend = "exploding"
        elif med < threshold("MT-GRAD-VANISH-ABS"):
            trend = "vanishing"
        else:
            trend = "spiky" if spikes else "normal"
        ev = {"median_grad_norm": float(f"{med:.6g}"), "spikes": spikes, "points": s.points,
              **threshold_evidence("MT-GRAD-EXPLODE-ABS", "MT-GRAD-VANISH-ABS", "MT-GRAD-SPIKE")}
        out.append(Observation.make("grad_norm_trend", trend, src, ev))
        out.append(Observation.make("grad_norm_global", med, src, {"median_over_points": s.points}))
        return out

    def _generalization(self) -> list[Observation]:
        from probes.generalization import observe

        loss, vl = self.get("loss"), self.get("val_loss")
        ta, va = self.get("train_acc"), self.get("val_acc")
        got: list[Observation] = []
        role = None
        if ta is not None and va is not None:
            (vs, vm, _, _), (ts, tm, _, _) = va.curve(), ta.curve()
            if vm.size and tm.size and ts.size:
                scale = 100.0 if max(vm.max(), tm.max()) > 1.0 else 1.0  # percentages
                got, role = observe(train_acc=np.interp(vs, ts, tm) / scale, val_acc=vm / scale), "val_acc"
        elif loss is not None and vl is not None:
            (vs, vm, _, _), (ts, tm, _, _) = vl.curve(), loss.curve()
            if vm.size and tm.size:
                # train loss at the validation steps, so the gap is measured at matching points
                got, role = observe(train_loss=np.interp(vs, ts, tm).tolist(), val_loss=vm.tolist()), "val_loss"
        elif va is not None:
            _, vm, _, _ = va.curve()
            if vm.size:
                last = float(vm[-1]) / (100.0 if vm.max() > 1.0 else 1.0)
                return [Observation.make("metric_kind", "accuracy", self.source("val_acc")),
                        Observation.make("val_metric", last, self.source("val_acc"))]
        if role is None:
            return []
        return [Observation.make(o.name, o.value, self.source(role), o.evidence) for o in got]

    def _lr(self, s: Series) -> list[Observation]:
        _, mean, lo, hi = s.curve()
        fin = hi[np.isfinite(hi) & (hi > 0)]
        if not fin.size:
            return []
        src = self.source("lr")
        peak = float(fin.max())
        out = []
        if 0 < peak <= 10:
            out.append(Observation.make("learning_rate", peak, src, {"peak": peak, "first": float(mean[0]),
                                                                     "last": float(mean[-1])}))
        if mean.size >= 3:
            first_peak = int(np.argmax(mean >= 0.999 * peak))
            out.append(Observation.make("warmup", bool(first_peak > 0 and mean[0] < 0.5 * peak), src,
                                        {"steps_to_peak_bucket": first_peak, "bucket_width": s.width}))
            if float(lo.min()) >= 0.9999 * peak:
                out.append(Observation.make("lr_schedule", "none", src, {"constant": peak}))
            else:
                # a few flat levels, each lower than the one before: a step schedule
                levels = np.unique(np.round(mean, 12))
                if levels.size <= 6 and np.all(np.diff(mean) <= 1e-15 * peak) and levels.size > 1:
                    out.append(Observation.make("lr_schedule", "step", src, {"levels": levels.tolist()[::-1]}))
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
        out["nan_step"] = _int(s.first_nonfinite_step)
        steps, mean, _, hi = s.curve()
        if mean.size < 6:
            return out
        from probes.loss_curve import count_spikes

        # The classifier's own count over the same bucket means: the plot marks exactly what the report counts.
        k = 5
        pad = np.pad(mean, k // 2, mode="edge")
        base = np.median(np.lib.stride_tricks.sliding_window_view(pad, k), axis=1)[: mean.size]
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
            raise InputError(f"no numeric column {excerpt(col)} in {p.name}",
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
    return LogRun(p, kind, series, roles, sorted(unrecognised), rows, notes, got.damage.notes())


def log_observations(path: str | os.PathLike[str], **kw: Any) -> tuple[LogRun, list[Observation]]:
    """Read a log and return it with its observations (``Consultation.add_log`` uses this)."""
    run = read_log(path, **kw)
    return run, run.observations()


__all__ = ["CHUNK", "LogRun", "ROLES", "STEP_NAMES", "Progress", "Series", "detect", "log_observations", "read_log",
           "role_of"]

