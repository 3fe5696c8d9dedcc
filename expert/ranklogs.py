"""Per-rank logs of a distributed run: a folder with one text log per rank, compared rank against rank.

``trainopt logs DIR`` comes here when ``DIR`` holds logs named by rank (``rank0.log``, ``train_rank1.txt``,
``log.rank2``, ``worker-3.out``, or torchrun's ``--log-dir`` layout ``.../attempt_0/<rank>/stderr.log``). Each log
is scanned line by line (bounded memory): the last training step it reached, the first step whose loss was not a
number, and the messages distributed jobs die with (collective timeouts, DDP's unfinished reduction, collective
mismatches). The comparison names the rank that stopped first and the rank whose loss went bad first; the
observations carry the provenance ``log:<file>`` with the per-rank numbers as evidence.
"""

from __future__ import annotations

import re
from dataclasses import field
from pathlib import Path
from typing import Any

from expert import rx
from knowledge.record import dataclass
from knowledge.vocabulary import Observation

_RANK_NAME = rx.compile(r"(?:^|[^a-z0-9])(?:rank|worker|proc|process|gpu|node)[-_.]?(\d{1,4})(?![0-9])", re.I)
_STEP = rx.compile(r"\b(?:global[_\s]?step|step|iter(?:ation)?|it)\b\s*[=:#]?\s*\[?(\d+)", re.I)
_ERROR = rx.compile(r"\b([A-Za-z_.]*(?:Error|Exception)):\s*(.+)")
_LOSS = rx.compile(r"\bloss\b\s*[=:]?\s*(-?(?:nan|inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?))", re.I)
FAILURES = (
    ("timeout", rx.compile(r"watchdog caught collective operation timeout|collective operation timeout|"
                           r"timed out (?:in|waiting for) (?:a )?(?:collective|all_?reduce|barrier)|"
                           r"timed out waiting \d+\s*ms for (?:recv|send) operation|"
                           r"connection (?:closed|reset) by peer|(?:nccl|gloo)\w* (?:\w+ )?timeout", re.I)),
    ("unfinished_reduction", rx.compile(r"expected to have finished reduction in the prior iteration", re.I)),
    ("mismatch", rx.compile(r"detected mismatch between collectives|collective (?:sequence )?mismatch", re.I)),
)
"""Messages a rank's log can end with, and the ``collective_failure`` value each one is."""


@dataclass
class RankLog:
    """What one rank's log shows."""

    rank: int
    path: Path
    lines: int = 0
    last_step: int | None = None
    first_bad_step: int | None = None
    failures: dict[str, str] = field(default_factory=dict)
    last_line: str = ""
    own_error: str = ""
    """The last exception line that is not a collective failure: the rank's own crash."""


def rank_files(folder: Path) -> dict[int, Path]:
    """The text logs in ``folder`` named by rank, by rank (empty unless at least two ranks are there)."""
    if not folder.is_dir():
        return {}
    out: dict[int, Path] = {}
    for p in sorted(folder.rglob("*")):
        if not p.is_file() or p.suffix.lower() not in ("", ".log", ".txt", ".out", ".err"):
            continue
        rel = p.relative_to(folder)
        m = _RANK_NAME.search(p.name)
        if m is not None:
            r = int(m.group(1))
        elif len(rel.parts) >= 2 and rel.parts[-2].isdigit() and p.stem in ("stdout", "stderr"):
            r = int(rel.parts[-2])  # torchrun --log-dir: <dir>/<run>/attempt_<n>/<rank>/std{out,err}.log
        else:
            continue
        if r not in out or p.stem == "stderr":  # torchrun writes tracebacks to stderr
            out[r] = p
    return out if len(out) >= 2 else {}


def scan(rank: int, path: Path) -> RankLog:
    """Read one rank's log line by line."""
    log = RankLog(rank, path)
    with path.open("r", errors="replace") as fh:
        for line in fh:
            log.lines += 1
            text = line.strip()
            if text:
                log.last_line = text[:300]
            m = _STEP.search(line)
            if m is not None:
                log.last_step = int(m.group(1))
            lm = _LOSS.search(line)
            if lm is not None and log.first_bad_step is None and lm.group(1).lower().lstrip("-") in ("nan", "inf"):
                log.first_bad_step = log.last_step if log.last_step is not None else log.lines
            collective = False
            for kind, rx in FAILURES:
                if rx.search(line):
                    collective = True
                    log.failures.setdefault(kind, text[:300])
            em = _ERROR.search(line) if not collective else None
            if em is not None and not line.lstrip().startswith(("File ", "^")):
                log.own_error = f"{em.group(1)}: {em.group(2).strip()}"[:300]
    return log


def compare(logs: list[RankLog]) -> tuple[list[Observation], list[str]]:
    """Observations from comparing the ranks, and one summary line per rank for people."""
    src = f"log:{logs[0].path.parent}"
    lines = [f"rank {r.rank}: {r.path.name}: {r.lines} lines, last step {r.last_step}"
             + (f", first NaN/Inf loss at step {r.first_bad_step}" if r.first_bad_step is not None else "")
             + (f", {', '.join(sorted(r.failures))}" if r.failures else "")
             + (f", own error: {r.own_error}" if r.own_error and not r.failures else "") for r in logs]
    last = {r.rank: r.last_step for r in logs}
    known = {k: v for k, v in last.items() if v is not None}
    ev: dict[str, Any] = {"last_step_by_rank": last}
    if len(known) >= 2 and len(set(known.values())) > 1:
        first_out = min(known, key=lambda k: (known[k], k))
        ev["stopped_first"] = {"rank": first_out, "last_step": known[first_out],
                               "last_line": next(r.last_line for r in logs if r.rank == first_out)}
    own = {r.rank: r.own_error for r in logs if r.own_error and not r.failures}
    if own:
        # a rank that died of its own error while the others failed in a collective waiting for it
        k = min(own)
        ev["failed_first"] = {"rank": k, "error": own[k]}
    obs = [Observation.make("dist_world_size", max(r.rank for r in logs) + 1, src, {"ranks_with_logs": len(logs)})]
    for kind, _ in FAILURES:
        said = {r.rank: r.failures[kind] for r in logs if kind in r.failures}
        if said:
            obs.append(Observation.make("collective_failure", kind, src, {**ev, "reported_by_ranks": sorted(said),
                                                                           "message": next(iter(said.values()))}))
            obs.append(Observation.make("error_text", next(iter(said.values())), src, {}))
            break  # one failure kind: the first in FAILURES order is the most specific
    bad = [(r.first_bad_step, r.rank) for r in logs if r.first_bad_step is not None]
    if bad:
        step, rank = min(bad)
        nev = {"rank": rank, "step": step, "first_bad_step_by_rank": {r.rank: r.first_bad_step for r in logs}}
        obs += [Observation.make("nonfinite_rank", rank, src, nev, step),
                Observation.make("loss_behavior", "nan_or_inf", src, nev, step),
                Observation.make("nan_step", step, src, nev, step)]
    return obs, lines


def read_rank_logs(folder: str | Path) -> tuple[list[Observation], list[str]] | None:
    """Observations and summary lines for a folder of per-rank logs; None when ``folder`` is not one."""
    files = rank_files(Path(folder))
    if not files:
        return None
    return compare([scan(r, p) for r, p in sorted(files.items())])
