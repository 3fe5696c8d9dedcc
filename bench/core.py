"""CLI start-up, engine construction and diagnosis latency, against the targets of issue 2."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import Result

ROOT = Path(__file__).resolve().parent.parent

# Targets on the 2-core reference machine (issue 2).
HELP_TARGET = 0.2
BUILD_TARGET = 0.5
DIAGNOSIS_TARGET = 0.05
COMPLAINT_MB_TARGET = 1.0  # issue 10: a 1 MB complaint parses in under a second

BASE = {"symptom": "unstable", "loss_behavior": "nan_or_inf", "nan_onset": "after_steps",
        "mixed_precision": "fp16", "learning_rate": 1e-3}


def _median_wall(cmd: list[str], repeats: int) -> float:
    times = []
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _trainopt_cmd() -> list[str]:
    script = Path(sys.executable).parent / "trainopt"
    if script.exists():
        return [str(script)]
    found = shutil.which("trainopt")
    return [found] if found else [sys.executable, "-m", "expert.cli"]


def startup(repeats: int) -> list[Result]:
    """``trainopt --help`` against a bare interpreter start."""
    bare = _median_wall([sys.executable, "-c", "pass"], repeats)
    cmd = _trainopt_cmd()
    helped = _median_wall([*cmd, "--help"], repeats)
    return [
        Result("python -c pass (baseline)", bare, note="bare interpreter start"),
        Result("trainopt --help", helped, HELP_TARGET, note=f"{(helped - bare) * 1000:.0f} ms over the baseline"),
    ]


_BUILD = (
    "import time; t0 = time.perf_counter(); import expert.kb as kb; t1 = time.perf_counter(); "
    "kb.engine(); t2 = time.perf_counter(); print(t1 - t0, t2 - t1)"
)


def construction(repeats: int) -> list[Result]:
    """First engine build in a fresh process: imports (experta, networkx, knowledge) and the Rete build."""
    imports, builds = [], []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", _BUILD], check=True, capture_output=True, text=True, cwd=ROOT)
        a, b = (float(x) for x in out.stdout.split())
        imports.append(a)
        builds.append(b)
    imp, build = statistics.median(imports), statistics.median(builds)
    from expert.kb import rule_catalogue

    n = len(rule_catalogue())
    return [
        Result("engine: imports (fresh process)", imp, note="experta, networkx, engine modules"),
        Result("engine: Rete build (fresh process)", build, note=f"knowledge families loaded + Rete build, {n} rules"),
        Result("engine: first build incl. imports", imp + build, BUILD_TARGET),
    ]


def observation_set(n: int) -> dict[str, Any]:
    """A valid, contradiction-free set of ``n`` observations: a NaN case padded with neutral values."""
    from expert.consultation import Consultation
    from knowledge.errors import TrainoptError
    from knowledge.vocabulary import BOOL, ENUM, FLOAT, INT, VOCABULARY

    data = dict(list(BASE.items())[:n])
    c = Consultation()
    c.observe(**data)
    for name, s in sorted(VOCABULARY.items()):
        if len(data) >= n:
            break
        if name in data:
            continue
        if s.kind == ENUM:
            value: Any = s.choices[-1]
        elif s.kind == BOOL:
            value = False
        elif s.kind == INT:
            value = max(int(s.low or 0), 2)
        elif s.kind == FLOAT:
            low = s.low or 0.0
            value = low + 0.5 if s.high is None or low + 0.5 <= s.high else (low + s.high) / 2
        else:
            value = "example"
        try:
            c.observe(**{name: value})
        except TrainoptError:
            continue
        data[name] = value
    return data


def latency(repeats: int) -> list[Result]:
    """Diagnosis of 5, 20 and 40 observations with the engine already built (validation + run + assembly)."""
    from expert.consultation import Consultation
    from expert.kb import engine

    engine()
    out = []
    for n in (5, 20, 40):
        data = observation_set(n)
        Consultation.from_json(data).run()  # warm the per-rule caches
        times = []
        for _ in range(max(repeats, 5) * 3):
            t = time.perf_counter()
            Consultation.from_json(data).run()
            times.append(time.perf_counter() - t)
        note = "" if len(data) == n else f"only {len(data)} observations available"
        out.append(Result(f"diagnosis, {len(data)} observations (engine built)", statistics.median(times),
                          DIAGNOSIS_TARGET, note=note))
    return out


def pasted_complaint(size: int) -> str:
    """A complaint of ``size`` characters as people paste them: a few sentences, then a training log whose every
    line differs (so nothing is read once for many), then the traceback that ended it."""
    head = ("My loss becomes NaN after about 2000 steps with fp16, I use AdamW with lr 3e-4 and batch size 32. "
            "Validation loss goes up while training loss keeps going down. Here is the log:\n")
    tail = ("Traceback (most recent call last):\n  File \"train.py\", line 142, in <module>\n    loss.backward()\n"
            "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity)\n")
    lines, total, step = [], len(head) + len(tail), 0
    while total < size:
        step += 10
        line = (f"epoch {step // 1000} step {step} loss={(step % 997) / 331:.4f} lr={(step % 89 + 1) * 1e-5:.2e} "
                f"grad_norm={(step % 83) / 7:.3f} val_loss {(step % 991) / 313:.4f} acc {(step % 97) / 100:.2f}\n")
        lines.append(line)
        total += len(line)
    return (head + "".join(lines))[: max(0, size - len(tail))] + tail


def complaint_parsing(repeats: int) -> list[Result]:
    """Free-text parsing of 10 kB, 100 kB and 1 MB pasted complaints (linear: each ten times the last)."""
    from expert.text import _compiled, parse_complaint

    parse_complaint("warm up")  # build the cue tables outside the timing
    out = []
    for size, label in ((10_000, "10 kB"), (100_000, "100 kB"), (1_000_000, "1 MB")):
        text = pasted_complaint(size)
        times = []
        for _ in range(max(3, repeats if size < 1_000_000 else min(repeats, 5))):
            t = time.perf_counter()
            found = parse_complaint(text)
            times.append(time.perf_counter() - t)
        attempts = _compiled()[1].attempts
        out.append(Result(f"complaint parsing, {label}", statistics.median(times),
                          COMPLAINT_MB_TARGET if size == 1_000_000 else None,
                          note=f"{len(found)} observations, {attempts:,} cue match attempts"))
    return out


def run(repeats: int) -> list[Result]:
    """Every measurement of this section."""
    return [*startup(repeats), *construction(repeats), *latency(repeats), *complaint_parsing(repeats)]
