"""`trainopt demo` runs the live broken training run; `trainopt examine SCRIPT.py` probes a user's factory."""

from __future__ import annotations

import json

from click.testing import CliRunner

from expert.cli import cli

SCRIPT = '''
import torch
def trainopt_target():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3), torch.nn.Softmax(dim=1))
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    return dict(model=m, loss_fn=torch.nn.CrossEntropyLoss(), batch=(x, y), optimizer=torch.optim.Adam(m.parameters()))
'''


def test_live_demo_shows_measured_evidence_and_trail():
    r = CliRunner().invoke(cli, ["demo"])
    assert r.exit_code == 0, r.output
    assert "watch tripped" in r.stdout and "MS-ZERO-01" in r.stdout and "Audit trail" in r.stdout
    assert "grad_carryover" in r.stdout
    # one root cause: the carried gradient is no clipping finding of its own (it read as "sometimes clipped");
    # the audit trail may show the clipping reading fire and be withdrawn by the cause (CORE-CAUSE-05)
    report, _, trail = r.stdout.partition("Audit trail")
    assert "MS-CLIP" not in report and "Root Cause\n" in report
    assert "MS-CLIP" not in trail or "CORE-CAUSE-05" in trail


def test_examine_script_reports_double_softmax(tmp_path):
    p = tmp_path / "target.py"
    p.write_text(SCRIPT)
    r = CliRunner().invoke(cli, ["examine", str(p), "--format", "json"])
    assert r.exit_code == 1, r.output
    data = json.loads(r.stdout)
    assert "MS-ACT-01" in {f["id"] for f in data["findings"]}


def test_examine_script_without_factory_is_a_usage_error(tmp_path):
    p = tmp_path / "bad.py"
    p.write_text("x = 1\n")
    r = CliRunner().invoke(cli, ["examine", str(p)])
    assert r.exit_code == 2 and "trainopt_target" in r.output
