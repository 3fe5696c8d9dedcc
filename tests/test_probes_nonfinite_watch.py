"""The watch's per-step non-finite check of the input: the first bad step is named for NaN and for either
infinity, and huge but finite inputs raise nothing (a cheaper check, e.g. a float32 sum, would overflow there).
Issue 21 measured such replacements; this holds any future one to the same verdicts."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from probes.nonfinite import NonfiniteProbe
from probes.watcher import watch


def _run(bad_at: int | None, value: float, dtype: torch.dtype = torch.float32, steps: int = 12) -> dict[str, int]:
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 4)).to(dtype)
    opt = torch.optim.SGD(m.parameters(), 0.01)
    with watch(m, opt, every=4, plugins=[NonfiniteProbe]) as w:
        for i in range(steps):
            x = torch.randn(16, 8, dtype=dtype)
            if i == bad_at:
                x[3, 2:4] = value  # two entries: two huge finite ones overflow a float32 sum
            opt.zero_grad()
            loss = m(x).pow(2).mean()
            if i != bad_at:  # the bad batch is only looked at: weights stay finite, the input is the one place
                loss.backward()
                opt.step()
            w.step()
    return dict(w.nonfinite_at)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_non_finite_input_is_placed_at_its_step(value, dtype):
    got = _run(7, value, dtype)
    assert got.get("inputs") == 7, got


def test_huge_finite_inputs_raise_nothing():
    got = _run(5, 3.0e38)
    assert "inputs" not in got, got
