"""The public surface: `import trainopt`, `python -m trainopt`, py.typed, LICENSE, torch as an extra, and the
name-clash strategy (a user project with its own `probes/` and `knowledge/` folders)."""

from __future__ import annotations

import configparser
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def py(code: str, cwd: Path = ROOT, env: dict[str, str] | None = None, args: tuple[str, ...] = ()) -> dict:
    """Run code in a fresh interpreter; its last stdout line is JSON."""
    full = dict(os.environ, **(env or {}))
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=cwd, capture_output=True,
                         text=True, timeout=180, env=full)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_public_names_and_version():
    res = py("""
        import json, sys, trainopt
        import expert
        heavy = [m for m in ("torch", "experta", "networkx", "matplotlib") if m in sys.modules]
        names = {n: type(getattr(trainopt, n)).__name__ for n in trainopt.__all__}
        print(json.dumps({"version": trainopt.__version__, "heavy": heavy, "names": names,
                          "isolated": trainopt.ISOLATED, "same": trainopt.Consultation is expert.Consultation}))
    """)
    assert res["heavy"] == []  # `import trainopt` is cheap: only attribute access loads more
    assert res["version"] == __import__("expert").__version__
    assert res["isolated"] is False and res["same"] is True
    assert {"watch", "examine", "Consultation", "Observation", "read_log", "__version__"} <= set(res["names"])


def test_py_typed_license_and_metadata_agree():
    assert (ROOT / "trainopt" / "py.typed").is_file()
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    assert cfg["metadata"]["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY" in text
    assert "py.typed" in cfg["options.package_data"]["trainopt"]
    requires = cfg["options"]["install_requires"]
    assert "torch" not in requires  # torch is an extra
    extras = cfg["options.extras_require"]
    for extra in ("probes", "lightning", "hf", "tensorboard", "plot", "dev"):
        assert extra in extras
    assert "torch" in extras["probes"]


def test_python_dash_m_trainopt():
    out = subprocess.run([sys.executable, "-m", "trainopt", "--help"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and "Usage: " in out.stdout and "diagnose" in out.stdout


USER_PROJECT = {
    "probes/__init__.py": "USER_PROBES = 'linear probes of my own'\n",
    "probes/base.py": "WHO = 'user'\n",
    "knowledge/__init__.py": "STORE = 'my rag store'\n",
}

TRAIN = """
import json, sys
import trainopt
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(64, 8)
y = (x[:, 0] > 0).long()
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()
with trainopt.watch(model, opt, loss_fn=loss_fn, every=10) as w:
    for _ in range(30):
        opt.zero_grad(); loss = loss_fn(model(x), y); loss.backward(); opt.step(); w.step(loss)
import probes, probes.base, knowledge                       # the user's own packages, after trainopt
print(json.dumps({"status": w.diagnosis.status, "isolated": trainopt.ISOLATED, "user": probes.USER_PROBES,
                  "base": probes.base.WHO, "store": knowledge.STORE,
                  "watch_from": type(w).__module__}))
"""


def make_project(tmp_path: Path) -> Path:
    for rel, text in USER_PROJECT.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def test_user_project_with_its_own_probes_folder_can_use_trainopt_watch(tmp_path):
    proj = make_project(tmp_path)
    (proj / "train.py").write_text(TRAIN)
    out = subprocess.run([sys.executable, "train.py"], cwd=proj, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["isolated"] is True  # the clash was noticed...
    assert res["watch_from"].startswith("trainopt._isolated.probes")  # ...trainopt used its private copy
    assert res["status"] == "clean"
    assert (res["user"], res["base"], res["store"]) == ("linear probes of my own", "user", "my rag store")


def test_user_package_imported_first_stays_the_users(tmp_path):
    proj = make_project(tmp_path)
    res = py("""
        import json, probes
        import trainopt
        c = trainopt.Consultation()
        c.observe(symptom="unstable", loss_behavior="nan_or_inf", mixed_precision="fp16")
        import sys
        print(json.dumps({"user": probes.USER_PROBES, "status": c.run().status, "isolated": trainopt.ISOLATED,
                          "same": sys.modules["probes"] is probes}))
    """, cwd=proj)
    assert res == {"user": "linear probes of my own", "status": res["status"], "isolated": True, "same": True}
    assert res["status"] in ("needs_answer", "diagnosed")


def test_python_dash_m_trainopt_in_a_project_with_clashing_folders(tmp_path):
    proj = make_project(tmp_path)
    out = subprocess.run([sys.executable, "-m", "trainopt", "diagnose", "-", "--format", "json"], cwd=proj,
                         input='{"symptom": "unstable", "loss_behavior": "nan_or_inf", "mixed_precision": "fp16"}',
                         capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    assert json.loads(out.stdout)["plan"]


def test_isolated_copy_gives_the_same_report_as_the_shared_one():
    code = """
        import json, trainopt
        c = trainopt.Consultation()
        c.observe(symptom="not_learning", loss_behavior="flat_from_start", optimizer="adam", learning_rate=0.5)
        d = c.to_json()
        print(json.dumps({"plan": d["plan"], "findings": [f["id"] for f in d["findings"]],
                          "rules": [t["rule"] for t in d["trace"]], "isolated": trainopt.ISOLATED}))
    """
    shared = py(code)
    private = py(code, env={"TRAINOPT_ISOLATE": "1"})
    assert shared.pop("isolated") is False and private.pop("isolated") is True
    assert shared == private


NO_TORCH = """
import json, sys
sys.modules["torch"] = None          # as if torch were not installed: `import torch` raises ModuleNotFoundError
from click.testing import CliRunner
import trainopt
from expert.cli import cli
r = CliRunner()
obs = '{"symptom": "unstable", "loss_behavior": "nan_or_inf", "mixed_precision": "fp16"}'
codes = {
    "diagnose": r.invoke(cli, ["diagnose", "-"], input=obs).exit_code,
    "explain": r.invoke(cli, ["explain", "gradient-management", "--observations", "-"], input=obs).exit_code,
    "consult": r.invoke(cli, ["consult"], input="loss is NaN after 3 epochs\\n" + "skip\\n" * 20).exit_code,
}
ex = r.invoke(cli, ["examine", sys.argv[1]])
try:
    trainopt.watch
    err = None
except ImportError as e:
    err = str(e)
print(json.dumps({"codes": codes, "watch_error": err, "examine": [ex.exit_code, ex.output]}))
"""


def test_core_runs_without_torch_and_probes_name_the_extra(tmp_path):
    script = tmp_path / "target.py"
    script.write_text("import torch\ndef trainopt_target():\n    return {}\n")
    res = py(NO_TORCH, args=(str(script),))
    assert res["codes"]["diagnose"] in (0, 1)
    assert res["codes"]["explain"] == 0
    assert res["codes"]["consult"] in (0, 1)
    assert "pip install 'trainopt[probes]'" in res["watch_error"]
    code, output = res["examine"]
    assert code == 2 and "trainopt[probes]" in output


@pytest.mark.parametrize("name", ["nothing", "_boot"])
def test_unknown_attribute_is_an_attribute_error(name):
    import trainopt

    if name == "_boot":
        assert trainopt._boot.ISOLATED is False
    else:
        with pytest.raises(AttributeError):
            trainopt.nothing  # noqa: B018


@pytest.mark.parametrize("words,cword,expect", [
    ("trainopt explain grad", "2", "plain,gradient-management"),
    ("trainopt rule rt-unst-0", "2", "plain,RT-UNST-01"),
    ("trainopt lo", "1", "plain,logs"),
])
def test_shell_completion_of_commands_skills_and_rule_ids(words, cword, expect):
    from click.testing import CliRunner

    from expert.cli import cli

    r = CliRunner().invoke(cli, [], prog_name="trainopt",
                           env={"_TRAINOPT_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": cword})
    assert r.exit_code == 0 and expect in r.output.splitlines()


def test_plot_after_watch(tmp_path):
    pytest.importorskip("matplotlib")
    import torch
    from torch import nn

    import trainopt

    torch.manual_seed(0)
    x, y = torch.randn(64, 8), torch.randint(0, 2, (64,))
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    with trainopt.watch(model, opt, every=10) as w:
        for i in range(40):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            w.step(loss, val_loss=float(loss) * 1.1 if i % 10 == 9 else None)
    out = trainopt.plot(w, tmp_path / "watch.png")
    assert out.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(TypeError):
        trainopt.plot(42, tmp_path / "x.png")


def test_help_imports_no_heavy_dependency():
    res = py("""
        import json, runpy, sys
        sys.argv = ["trainopt", "--help"]
        try:
            runpy.run_module("trainopt", run_name="__main__")
        except SystemExit as e:
            code = e.code
        heavy = ("torch", "lightning", "transformers", "matplotlib", "tensorboard", "experta", "jsonschema")
        print(json.dumps({"code": code, "loaded": [m for m in heavy if m in sys.modules]}))
    """)
    assert res == {"code": 0, "loaded": []}
