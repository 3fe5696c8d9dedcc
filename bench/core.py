"""CLI start-up, pipeline calls, engine construction and diagnosis latency, against the targets of issues 2 and 21."""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import Result

ROOT = Path(__file__).resolve().parent.parent

# Targets on the 2-core reference machine (issue 2).
HELP_TARGET = 0.2
BUILD_TARGET = 0.5
DIAGNOSIS_TARGET = 0.05
PIPELINE_RATIO = 5.0  # issue 21: a pipeline call costs at most 5x a bare interpreter start, in CPU time
LATENCY_TARGETS = {40: 0.010, 150: 0.020}  # issue 21: a diagnosis with the engine built
COMPLAINT_MB_TARGET = 1.0  # issue 10: a 1 MB complaint parses in under a second
# issue 19: one long unpunctuated line and a pasted log stay under the same second; a typical complaint in 5 ms
LONG_TEXT_TARGET = 1.0
TYPICAL_COMPLAINT_TARGET = 0.005
TYPICAL_COMPLAINT = ("My loss becomes NaN after about 2000 steps with fp16, I use AdamW with lr 3e-4 and batch size "
                     "32. Validation loss goes up while training loss keeps going down.")

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


def _child_cpu(cmd: list[str], env: dict[str, str], stdin: str = "") -> float:
    """CPU seconds (user + system) that one run of ``cmd`` costs: the work done, not the machine's other load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, input=stdin.encode(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=env["_ROOT"],
                   env={k: v for k, v in env.items() if k != "_ROOT"}, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


PIPELINE_OBS = '{"symptom": "unstable", "loss_behavior": "nan_or_inf", "nan_onset": "after_steps", ' \
    '"mixed_precision": "fp16", "learning_rate": 0.001}'
PIPELINE_COMPLAINT = "loss goes NaN after 3 epochs, we use fp16 and adamw\nquit\n"


def _small_log(path: Path) -> Path:
    """A 300-step CSV log whose validation loss turns up (overfitting): a small file, a real diagnosis."""
    rows = ["step,loss,val_loss"]
    for i in range(300):
        rows.append(f"{i},{2.3 * 0.99 ** i + 0.05:.5f},{2.3 * 0.99 ** min(i, 120) + 0.002 * max(0, i - 120):.5f}")
    path.write_text("\n".join(rows) + "\n")
    return path


def measure_pipeline(roots: list[Path], repeats: int) -> dict[str, dict[str, float]]:
    """Median CPU seconds of pipeline calls per source tree, all interleaved (the machine's drift hits each alike).

    Per tree: ``python -c pass``; ``trainopt diagnose obs.json``, ``consult`` start-up (a complaint, the first
    question, ``quit``) and ``logs`` on a small CSV, each with the tree's compiled-knowledge cache warm (the
    usual case: every call after the first); and ``diagnose`` with an empty cache (the first call). Bytecode is
    compiled first, as an install does. Keys: the tree's path as a string.
    """
    work = Path(tempfile.mkdtemp(prefix="trainopt-bench-"))
    try:
        obs = work / "obs.json"
        obs.write_text(PIPELINE_OBS)
        log = _small_log(work / "train.csv")
        calls = {"bare": ([sys.executable, "-c", "pass"], ""),
                 "diagnose": ([sys.executable, "-m", "trainopt", "diagnose", str(obs)], ""),
                 "consult": ([sys.executable, "-m", "trainopt", "consult"], PIPELINE_COMPLAINT),
                 "logs": ([sys.executable, "-m", "trainopt", "logs", str(log)], "")}
        envs = {}
        for i, root in enumerate(roots):
            # every package an install compiles: ``logs`` imports probes (its curve readers)
            subprocess.run([sys.executable, "-m", "compileall", "-q", "trainopt", "expert", "knowledge", "probes"],
                           cwd=root, stdout=subprocess.DEVNULL, check=False,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
            env = dict(os.environ, PYTHONPATH=str(root), TRAINOPT_CACHE_DIR=str(work / f"cache{i}"), _ROOT=str(root))
            env.pop("TRAINOPT_NO_CACHE", None)
            _child_cpu(calls["diagnose"][0], env)  # fills the cache
            envs[str(root)] = env
        times: dict[str, dict[str, list[float]]] = {str(r): {k: [] for k in (*calls, "diagnose, cold")} for r in roots}
        for rep in range(repeats):
            for key, env in envs.items():
                order = list(calls)[rep % len(calls):] + list(calls)[:rep % len(calls)]
                for name in order:
                    cmd, stdin = calls[name]
                    times[key][name].append(_child_cpu(cmd, env, stdin))
                # a folder of its own per tree and repeat: trees with the same sources would share one entry
                cold = dict(env, TRAINOPT_CACHE_DIR=str(work / f"cold{list(envs).index(key)}-{rep}"))
                times[key]["diagnose, cold"].append(_child_cpu(calls["diagnose"][0], cold))
        return {k: {n: statistics.median(v) for n, v in t.items()} for k, t in times.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def pipeline(repeats: int) -> list[Result]:
    """Pipeline calls in CPU time against a bare interpreter start (issue 21: at most ``PIPELINE_RATIO`` times)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    m = measure_pipeline([ROOT], max(repeats, 5))[str(ROOT)]
    bare = m["bare"]
    out = [Result("pipeline: python -c pass (CPU)", bare,
                  note=f"bare interpreter start, CPU time (load average {load:.2f} when it began)")]
    for name, label in (("diagnose", "trainopt diagnose obs.json"), ("consult", "trainopt consult start-up"),
                        ("logs", "trainopt logs small.csv")):
        out.append(Result(f"pipeline: {label} (CPU)", m[name], PIPELINE_RATIO * bare,
                          note=f"{m[name] / bare:.1f}x the bare start (target {PIPELINE_RATIO:.0f}x); cache warm"))
    out.append(Result("pipeline: trainopt diagnose, empty cache (CPU)", m["diagnose, cold"],
                      note=f"{m['diagnose, cold'] / bare:.1f}x the bare start: the first call builds and stores"))
    return out


_BUILD = (
    "import time; t0 = time.process_time(); import expert.kb as kb; t1 = time.process_time(); "
    "kb.engine(); t2 = time.process_time(); print(t1 - t0, t2 - t1)"
)


def construction(repeats: int) -> list[Result]:
    """Engine in a fresh process: imports, then the engine (its network loaded from the cache, or built without)."""
    from expert.kb import rule_catalogue

    n = len(rule_catalogue())
    work = Path(tempfile.mkdtemp(prefix="trainopt-bench-"))
    try:
        env = dict(os.environ, PYTHONPATH=str(ROOT), TRAINOPT_CACHE_DIR=str(work))
        env.pop("TRAINOPT_NO_CACHE", None)
        variants = {"cache": env, "none": dict(env, TRAINOPT_NO_CACHE="1")}
        subprocess.run([sys.executable, "-c", _BUILD], check=True, capture_output=True, cwd=ROOT, env=env)
        got: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in variants}
        for _ in range(repeats):
            for key, e in variants.items():
                out = subprocess.run([sys.executable, "-c", _BUILD], check=True, capture_output=True, text=True,
                                     cwd=ROOT, env=e)
                a, b = (float(x) for x in out.stdout.split())
                got[key][0].append(a)
                got[key][1].append(b)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    imp = statistics.median(got["cache"][0])
    cached, built = statistics.median(got["cache"][1]), statistics.median(got["none"][1])
    return [
        Result("engine: imports (fresh process)", imp, note="experta, engine modules"),
        Result("engine: from the cache (fresh process)", cached, note=f"knowledge loaded, network read, {n} rules"),
        Result("engine: first build incl. imports, cached", imp + cached, BUILD_TARGET),
        Result("engine: Rete build, no cache (fresh process)", built,
               note=f"knowledge loaded + Rete build, {n} rules: the first call, or TRAINOPT_NO_CACHE=1"),
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


def _diagnosis_seconds(data: dict[str, Any], repeats: int) -> float:
    from expert.consultation import Consultation

    Consultation.from_json(data).run()  # warm the per-rule caches
    times = []
    for _ in range(max(repeats, 5) * 3):
        t = time.process_time()
        Consultation.from_json(data).run()
        times.append(time.process_time() - t)
    return statistics.median(times)


def latency(repeats: int) -> list[Result]:
    """Diagnosis of 5, 20, 40 and 150 observations with the engine built (validation + run + assembly), CPU time."""
    from expert.kb import engine

    engine()
    out = []
    for n in (5, 20, 40, 150):
        data = observation_set(n)
        note = "" if len(data) == n else f"only {len(data)} observations exist (the whole vocabulary)"
        out.append(Result(f"diagnosis, {n} observations (engine built)", _diagnosis_seconds(data, repeats),
                          LATENCY_TARGETS.get(n, DIAGNOSIS_TARGET), note=note))
    return out


def doubled_engine_class() -> type:
    """The knowledge base's engine class with every row, question and join twice (the copies under new ids)."""
    import dataclasses

    from expert.engine import build_engine_class
    from expert.kb import engine_class
    from knowledge import all_joins, all_questions, all_rows

    engine_class()
    rows, questions, joins = all_rows(), all_questions(), all_joins()
    return build_engine_class([*rows, *(dataclasses.replace(r, id=f"{r.id}-X2") for r in rows)],
                              [*questions, *(dataclasses.replace(q, id=f"{q.id}-X2") for q in questions)],
                              [*joins, *(dataclasses.replace(j, id=f"{j.id}-X2") for j in joins)])


def _engine_run(e: Any, data: dict[str, Any]) -> float:
    from expert.facts import Context, Obs

    t = time.process_time()
    e.reset()
    e.declare(Context(origin="user"), *(Obs(name=k, value=v, source="declared") for k, v in sorted(data.items())))
    e.run()
    return time.process_time() - t


def scaling(repeats: int) -> list[Result]:
    """Twice the rules: the Rete build and the engine run at 40 and 150 observations, against the knowledge base's own.

    Interleaved, CPU time; the ratios say how the cost grows with the rules (2.0 is linear) and with the
    observations (150 against 40: 3.75 is linear).
    """
    from expert.kb import engine, engine_class

    cls2 = doubled_engine_class()
    plain = type("Uncached", (engine_class(),), {"cache_name": None})
    builds: dict[str, list[float]] = {"1x": [], "2x": []}
    for _ in range(max(2, min(repeats, 3))):
        for key, c in (("1x", plain), ("2x", cls2)):
            t = time.process_time()
            c()
            builds[key].append(time.process_time() - t)
    e1, e2 = engine(), cls2()
    n1, n2 = len(e1.rule_info), len(e2.rule_info)
    sets = {n: observation_set(n) for n in (40, 150)}
    runs: dict[tuple[int, str], list[float]] = {(n, k): [] for n in sets for k in ("1x", "2x")}
    for data in sets.values():
        _engine_run(e1, data)
        _engine_run(e2, data)
    for _ in range(max(repeats, 5) * 3):
        for n, data in sets.items():
            runs[n, "1x"].append(_engine_run(e1, data))
            runs[n, "2x"].append(_engine_run(e2, data))
    b1, b2 = statistics.median(builds["1x"]), statistics.median(builds["2x"])
    r = {key: statistics.median(v) for key, v in runs.items()}
    out = [Result(f"Rete build, {n2} rules (2x)", b2,
                  note=f"{b2 / b1:.2f}x the build of {n1} rules ({b1 * 1000:.0f} ms)")]
    for n in sets:
        out.append(Result(f"engine run, {n} observations, {n2} rules (2x)", r[n, "2x"],
                          note=f"{r[n, '2x'] / r[n, '1x']:.2f}x the run with {n1} rules ({r[n, '1x'] * 1000:.1f} ms); "
                               "linear is 2.0x"))
    out.append(Result(f"engine run, 150 observations, {n1} rules", r[150, "1x"],
                      note=f"{r[150, '1x'] / r[40, '1x']:.2f}x the run at 40 observations; linear is 3.75x"))
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


def unpunctuated_line(size: int) -> str:
    """One line of ``size`` characters with no sentence mark: a log flattened by a chat box ("step 7 loss 1.25
    was nan step 8 ..."), every clause a movement the reader composes and asks the clause status of."""
    unit = "step {i} loss {x} was nan "
    return "".join(unit.format(i=i, x=i % 5 + 0.25) for i in range(size // 20 + 1))[:size]


def log_lines(size: int) -> str:
    """``size`` characters of pasted log: Hugging Face Trainer dicts, ``step N | loss: x`` lines, and now and then
    a traceback."""
    lines, total, i = [], 0, 0
    while total < size:
        i += 1
        if i % 3 == 0:
            line = (f"{{'loss': {1 / (1 + i % 97):.4f}, 'grad_norm': {i % 13 / 3:.3f}, "
                    f"'learning_rate': {5e-5 * (1 - i / 1e6):.3e}, 'epoch': {i / 5000:.2f}}}\n")
        elif i % 3 == 1:
            line = f"step {i * 10} | loss: {(i % 113) / 50:.2f} | lr {3e-4:.1e}\n"
        else:
            line = (f"{{'eval_loss': {i % 89 / 40:.4f}, 'eval_runtime': 12.3, 'eval_samples_per_second': 80.1, "
                    f"'epoch': {i / 5000:.2f}}}\n")
        if i % 500 == 0:
            line += ('Traceback (most recent call last):\n  File "train.py", line 142, in <module>\n'
                     "    loss.backward()\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
        lines.append(line)
        total += len(line)
    return "".join(lines)[:size]


def _parse_time(text: str, repeats: int) -> tuple[float, int]:
    """The median seconds ``parse_complaint`` takes on ``text``, and the observations it found."""
    from expert.text import parse_complaint

    times, found = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        found = parse_complaint(text)
        times.append(time.perf_counter() - t)
    return statistics.median(times), len(found)


def long_texts(repeats: int) -> list[Result]:
    """Issue 19's texts: one long unpunctuated line (200 kB and 1 MB), 1 MB of log lines, a typical complaint."""
    from expert.text import parse_complaint

    parse_complaint("warm up")  # build the cue tables outside the timing
    out = []
    for label, text in (("200 kB one unpunctuated line", unpunctuated_line(200_000)),
                        ("1 MB one unpunctuated line", unpunctuated_line(1_000_000)),
                        ("1 MB of log lines", log_lines(1_000_000)),
                        # (a log pasted without its line breaks: one line of repeated decisive records)
                        ("1 MB one log line", ("step 12 | the loss is nan again " * 40_000)[:1_000_000])):
        seconds, n = _parse_time(text, max(3, min(repeats, 5)))
        out.append(Result(f"complaint parsing, {label}", seconds, LONG_TEXT_TARGET, note=f"{n} observations"))
    seconds, n = _parse_time(TYPICAL_COMPLAINT, max(20, repeats * 5))
    out.append(Result("complaint parsing, a typical complaint", seconds, TYPICAL_COMPLAINT_TARGET,
                      note=f"{n} observations, {len(TYPICAL_COMPLAINT)} characters"))
    return out


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
    return [*startup(repeats), *pipeline(repeats), *construction(repeats), *latency(repeats), *scaling(repeats),
            *complaint_parsing(repeats), *long_texts(repeats)]


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.core``: this section alone, in the table ``python -m bench`` prints."""
    import argparse

    from bench.__main__ import _fmt

    ap = argparse.ArgumentParser(prog="python -m bench.core", description=__doc__)
    ap.add_argument("--repeats", type=int, default=7, help="repeats per measurement (median is reported)")
    args = ap.parse_args(argv)
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    print(f"load average {' '.join(f'{x:.2f}' for x in load)}; {os.cpu_count()} CPUs")
    print(f"{'measurement':<52} {'median':>11} {'target':>11}  verdict  note")
    for r in run(args.repeats):
        target = _fmt(r.target) if r.target is not None else " " * 11
        print(f"{r.name:<52} {_fmt(r.seconds)} {target}  {r.verdict:<7}  {r.note}")
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    print(f"load average {' '.join(f'{x:.2f}' for x in load)} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
