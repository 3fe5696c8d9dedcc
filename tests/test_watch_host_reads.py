"""The watch's host reads on the CPU take no torch op: the loss read and the batch-order fingerprint's view.

Issue 21: ``Tensor.item`` (the loss, every step) and ``Tensor.numpy`` (each fingerprinted forward) were the
torch ops the watch added to a plain CPU step. Both now read the tensor's memory at its data pointer; these tests
hold the values to what the ops gave (NaN and infinities included) and count the ops a plain step dispatches.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from probes.batch_order import BatchOrderProbe, _host_readable, _host_view
from probes.watcher import _host_scalar
from trainopt import watch


class _Ops(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops: Counter = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        self.ops[str(func)] += 1
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("value", [1.2345678, -0.0, 3e38, 1e-40, math.inf, -math.inf, math.nan])
def test_a_scalar_read_from_memory_equals_item(dtype, value):
    t = torch.tensor(value, dtype=dtype)
    got, want = _host_scalar(t), t.item()
    assert got == want or (math.isnan(got) and math.isnan(want))


def test_a_scalar_read_follows_views_and_autograd_outputs():
    assert _host_scalar(torch.arange(10.0)[7]) == 7.0  # a view at an offset
    x = torch.randn(5, 3, requires_grad=True)
    loss = (x * 2).sum()
    assert _host_scalar(loss) == loss.item()


def test_a_float_scalar_is_read_without_a_torch_op_and_bfloat16_with_item():
    t32, t16 = torch.tensor(0.5), torch.tensor(0.5, dtype=torch.bfloat16)
    with _Ops() as m:
        _host_scalar(t32)
    assert not m.ops
    with _Ops() as m:
        _host_scalar(t16)
    assert m.ops["aten._local_scalar_dense.default"] == 1


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_host_view_is_the_tensors_memory(dtype):
    base = torch.randn(10, 300, 200, dtype=dtype)
    for x in (base[3], base[3, :7]):  # contiguous, at an offset
        assert np.array_equal(_host_view(x), x.numpy().reshape(-1))
    x = base[3]
    with _Ops() as m:
        _host_view(x)
    assert not m.ops


def _old_host_fingerprint(p: BatchOrderProbe, x: torch.Tensor) -> float:
    """The fingerprint as taken before (numpy's own view, the stride searched at each call)."""
    a = x.numpy().reshape(-1)
    n = a.size
    if n <= 32768:
        return float(np.dot(a, p._host_weights(n, a.dtype, digest=True)))
    m = min(1024, n)
    k = max(1, (n - 1) // (m - 1))
    while k > 1 and math.gcd(k, x.shape[-1]) != 1:
        k -= 1
    return float(np.dot(a[::k][:m], p._host_weights(m, a.dtype, digest=False)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(64, 32), (256, 256), (512, 256), (8, 3, 32, 32), (5,), ()])
def test_a_host_fingerprint_is_what_it_was(shape, dtype):
    """Both paths (the whole digest; a spread sample past FULL_READ_MAX), per-shape plans against the old read."""
    p = BatchOrderProbe()
    p._hw, p._w, p._plans = {}, {}, {}
    for _ in range(2):  # the plan made, then reused
        x = torch.randn(shape, dtype=dtype)
        assert p._host_fingerprint(x) == _old_host_fingerprint(p, x)


def test_a_plain_cpu_step_dispatches_no_op_for_the_watch():
    """Past the dense starts, a step neither sampled nor marked runs only the loop's own ops."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), 0.01)
    x, y = torch.randn(16, 6), torch.randint(0, 3, (16,))

    def step(w: object = None) -> None:
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if w is not None:
            w.step(loss)

    with _Ops() as plain:
        step()
    with watch(model, opt, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        for _ in range(302):
            step(w)
        with _Ops() as watched:
            step(w)
    assert watched.ops == plain.ops


def test_a_nan_loss_is_still_read_as_unsound():
    """The non-finite probe still hears of a NaN loss read from memory (its held input is looked at)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), 0.01)
    seen: list[int] = []
    with watch(model, opt, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        w._on_unsound.append(lambda run: seen.append(run.steps))
        for i in range(5):
            x = torch.randn(16, 6)
            if i == 3:
                x[0, 0] = math.nan
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(model(x), torch.randint(0, 3, (16,)))
            loss.backward()
            w.step(loss)
    assert seen == [3]


def test_a_negative_or_conjugate_view_is_read_with_its_sign():
    """A lazy negation keeps the un-negated value in memory: the host reads must not take it from there."""
    t = torch.tensor(2.0)._neg_view()
    assert t.is_neg()
    assert _host_scalar(t) == -2.0
    assert _host_scalar(torch.tensor(2.0)) == 2.0
    x = torch.randn(4, 3)
    assert _host_readable(x)
    assert not _host_readable(x._neg_view())
