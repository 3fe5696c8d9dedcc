"""The update ratio read on evenly spaced elements of a large weight (issue 21: a sampled step's cost)."""

from __future__ import annotations

import torch

from probes.update_ratio import SAMPLE_ABOVE, host_ratios, sample_views, update_norms


def test_a_large_weight_is_read_on_a_sample_that_gives_its_ratio_and_a_small_one_whole():
    torch.manual_seed(0)
    big = torch.nn.Parameter(torch.randn(512, 512))  # above SAMPLE_ABOVE: a view of some elements
    small = torch.nn.Parameter(torch.randn(512))
    assert big.numel() > SAMPLE_ABOVE >= small.numel()
    views = sample_views([big, small])
    assert views[1] is small and views[0].numel() < big.numel() // 16
    assert views[0].data_ptr() == big.data_ptr()  # a view: no copy of the weight
    whole = [p.detach().clone() for p in (big, small)]
    with torch.no_grad():
        before = torch._foreach_mul(views, 1.0)
        # an Adam-like step: every element moves by about the same size, a few columns not at all (dead inputs)
        step = 1e-3 * torch.sign(torch.randn(512, 512))
        step[:, :8] = 0
        big.sub_(step)
        small.sub_(1e-3)
    sampled = host_ratios(update_norms(before, views, consume=True).tolist())
    exact = host_ratios(update_norms(whole, [big, small]).tolist())
    assert abs(sampled[0] / exact[0] - 1) < 0.05, (sampled, exact)
    assert sampled[1] == exact[1]


def test_a_weight_that_is_not_contiguous_is_read_whole():
    w = torch.nn.Parameter(torch.randn(256, 512).t())
    assert not w.is_contiguous() and w.numel() > SAMPLE_ABOVE
    assert sample_views([w])[0] is w
