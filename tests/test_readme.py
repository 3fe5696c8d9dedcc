"""The README's examples run as written: every ```python block, and every `trainopt` command of the ```bash blocks.

Python blocks run in order in one namespace, as in a notebook; the probes block needs a model, a loss and data,
which the test supplies (a tiny classifier), the way a user's own code would. Bash lines that call `make` are
left out (CI runs those targets itself; `make test` here would run this test again).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
BIN = Path(sys.executable).parent


def blocks(lang: str) -> list[str]:
    return [body for kind, body in BLOCK.findall(README.read_text(encoding="utf-8")) if kind == lang]


def commands() -> list[str]:
    """The shell commands of the bash blocks, with backslash continuations joined and comments cut."""
    out = []
    for body in blocks("bash"):
        for cmd in body.replace("\\\n", " ").splitlines():
            cmd = re.sub(r"\s+#\s.*$", "", cmd).strip()
            if cmd and not cmd.startswith(("make", "#")):
                out.append(cmd)
    return out


def test_the_readme_has_examples_to_run():
    assert len(blocks("python")) >= 2 and len(commands()) >= 4


def _probe_fixtures() -> dict:
    """What the probes example expects the user to have: a model, its loss, a batch, an optimizer, a loader."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 10))
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.randn(32, 8), torch.randint(0, 10, (32,))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss = loss_fn(model(x), y)
    return {"model": model, "loss_fn": loss_fn, "x": x, "y": y, "optimizer": optimizer,
            "loader": [(x, y)] * 3, "loss": loss, "val_acc": 0.5}


RUN_BY = re.compile(r"^# \(run by (tests/test_\w+\.py)")


def test_callback_examples_name_the_test_that_runs_them():
    """A block that needs a trainer (Lightning, transformers) says which test runs it with a real install."""
    root = README.parent
    for code in blocks("python"):
        m = RUN_BY.match(code)
        if m:
            test = (root / m.group(1)).read_text(encoding="utf-8")
            assert "TrainoptCallback" in test, f"{m.group(1)} does not exercise the callback shown in the README"


def test_python_examples_run_as_written(capsys):
    ns: dict = {"__name__": "__readme__"}
    for i, code in enumerate(blocks("python")):
        if RUN_BY.match(code):
            continue
        if "from probes import" in code or "trainopt.watch" in code or "trainopt.examine" in code:
            for k, v in _probe_fixtures().items():
                ns.setdefault(k, v)
        try:
            exec(compile(code, f"README.md python block {i + 1}", "exec"), ns)  # noqa: S102 - our own README
        except Exception as e:  # pragma: no cover - the message says which block
            raise AssertionError(f"README python block {i + 1} fails as written: {type(e).__name__}: {e}") from e
    c = ns["c"]
    assert c.diagnosis.status in ("diagnosed", "needs_answer", "clean", "insufficient", "out_of_scope")
    assert "Training Diagnosis" in capsys.readouterr().out


def _log_fixtures(root: Path) -> None:
    """The logs the README's `trainopt logs` lines read: a Lightning CSV, a Trainer state, a plain CSV."""
    lit = root / "lightning_logs" / "version_0"
    lit.mkdir(parents=True)
    rows = ["epoch,step,train_loss,val_loss"] + [f"0,{i},{2.3 * 0.97 ** i:.4f}," for i in range(0, 200, 5)]
    (lit / "metrics.csv").write_text("\n".join(rows) + "\n")
    ck = root / "checkpoint-500"
    ck.mkdir()
    hist = [{"step": i, "loss": 1.5 * 0.99 ** i, "learning_rate": 5e-5, "epoch": i / 100} for i in range(10, 500, 10)]
    (ck / "trainer_state.json").write_text(json.dumps({"global_step": 500, "log_history": hist}))
    lines = ["step,objective"] + [f"{i},{1.0 + (i % 7) * 0.01:.3f}" for i in range(300)]
    (root / "train.csv").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("cmd", commands())
def test_bash_examples_run_as_written(cmd, tmp_path):
    (tmp_path / "obs.json").write_text(json.dumps({"symptom": "unstable", "loss_behavior": "nan_or_inf"}))
    if "trainopt logs" in cmd:
        _log_fixtures(tmp_path)
    if "report.json" in cmd and "> report.json" not in cmd:
        subprocess.run("trainopt diagnose obs.json --format json > report.json", shell=True, cwd=tmp_path,
                       env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}, check=False)
    if shlex.split(cmd)[:2] == ["trainopt", "demo"]:
        pytest.skip("the live demo trains a model; tests/test_probes_cli.py runs it")
    r = subprocess.run(cmd, shell=True, executable="/bin/bash", cwd=tmp_path, capture_output=True, text=True,
                       timeout=120,
                       env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"})
    assert r.returncode in (0, 1), f"{cmd!r} exited {r.returncode}:\n{r.stderr[-2000:]}"
    assert "internal error" not in r.stderr
    # a command prints something, or writes its output to a file; sourcing the completion prints nothing
    assert r.stdout.strip() or " > " in cmd or cmd.startswith("eval ")
