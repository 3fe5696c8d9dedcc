"""Regression targets in raw units, measured by examine on a tiny regression model."""

from __future__ import annotations

import torch

from expert.consultation import Consultation
from probes import examine, target_scale


def _regression(scale: float):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    x = torch.randn(64, 4)
    y = (x @ torch.tensor([1.0, -2.0, 0.5, 3.0]) * scale + 5 * scale).unsqueeze(1)
    return model, x, y


def test_scale_reads_float_targets_only():
    assert target_scale.scale(torch.arange(10)) is None  # class indices
    assert target_scale.scale(torch.tensor([1.0, float("nan")])) is None
    assert abs(target_scale.scale(torch.tensor([0.0, 2.0])) - 1.4142) < 1e-3
    assert target_scale.observe(torch.randn(8) * 1000, "cross_entropy") == []


def test_raw_unit_targets_are_found_and_standardized_ones_are_not():
    for scale, expected in ((1000.0, True), (0.2, False)):
        model, x, y = _regression(scale)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        obs = examine(model, torch.nn.MSELoss(), (x, y), opt)
        got = {o.name: o for o in obs}["targets_unscaled"]
        assert got.value is expected and got.source == "probe:target_scale"
        c = Consultation()
        c.add(obs)
        ids = {f["id"] for f in c.run().findings}
        assert ("DT-TGT-01" in ids) is expected, ids
