"""The watch's per-step non-finite check of the input (issue 21): its CPU form names the same first step as the
min/max form, for NaN and for either infinity, and stays quiet on huge but finite inputs."""

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
                x[3, 2] = value
            opt.zero_grad()
            loss = m(x).pow(2).mean()
            if i != bad_at:  # the bad batch is only looked at: weights stay finite, the input is the one place
                loss.backward()
                opt.step()
            keys = {k for k, _, _ in w._buf}
            assert "nf:inz" in keys and "nf:io" not in keys  # the CPU form is the one measuring
            w.step()
    return dict(w.nonfinite_at)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_non_finite_input_is_placed_at_its_step(value, dtype):
    got = _run(7, value, dtype)
    assert got.get("inputs") == 7, got


def test_huge_finite_inputs_raise_nothing():
    # entries near the float32 limit: a plain float32 sum would overflow to inf; the dot with zeros cannot
    assert "inputs" not in _run(5, 3.0e38)


def test_the_zero_buffer_is_reused_and_bounded():
    p = NonfiniteProbe()
    p.attach(None)
    a = p._zeros_for(torch.ones(100))
    b = p._zeros_for(torch.ones(40))
    assert a.numel() == 100 and b.numel() == 40 and b.data_ptr() == a.data_ptr()
    assert p._zeros_for(torch.ones(4, 4).t()) is None  # a strided view: the min/max form, no copy
    assert p._zeros_for(torch.ones(10, dtype=torch.bfloat16)) is None
    assert p._zeros_for(torch.ones((1 << 20) + 1)) is None
