"""A window's rows as the window end hands them to the plugins, and the loss history they feed (issue 21).

The window end builds its rows and the loss history in bulk (C-level maps, a cumulative sum per point) instead
of a Python line per value; these tests hold it to what the plain per-value code gives: the same rows in the
same order, the same history bit for bit.
"""

from __future__ import annotations

import random

import torch

from probes.loss_curve import History
from probes.watcher import Watch


def _window_rows(steps: int = 3) -> Watch:
    m = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    w = Watch(m, opt, every=50, plugins=[])
    w.__enter__()
    for i in range(steps):
        w.record("k", torch.tensor(10.0 + i))  # a device value and a host value under one key, the same step
        w.record_host("k", float(i))
        w.record_host("h", 100.0 + i)  # host keys interleaved in the queue
        w.step(0.5 + i)  # a host loss
    return w


def test_rows_keep_step_order_device_before_host_within_a_step_and_each_key_apart():
    w = _window_rows()
    win = w.read_window()
    w.__exit__(None, None, None)
    assert win.get("k") == [(0, [10.0]), (0, [0.0]), (1, [11.0]), (1, [1.0]), (2, [12.0]), (2, [2.0])]
    assert win.get("h") == [(0, [100.0]), (1, [101.0]), (2, [102.0])]
    assert win.get("loss") == [(0, [0.5]), (1, [1.5]), (2, [2.5])]
    assert sorted(win.keys()) == ["h", "k", "loss"]


class _PerValue(History):
    """The history fed one value at a time, as it was before the bulk path (the reference)."""

    def extend(self, values: object) -> None:
        import numpy as np

        for x in values:
            self._sum += float(x)
            self._n += 1
            if self._n == self.stride:
                self.values.append(self._sum / self.stride)
                self._sum, self._n = 0.0, 0
                if len(self.values) >= 2 * self.cap:
                    self.values = np.asarray(self.values, dtype=np.float64).reshape(-1, 2).mean(1).tolist()
                    self.stride *= 2


def test_the_loss_history_fed_in_bulk_is_the_per_value_history_bit_for_bit():
    rng = random.Random(0)
    for cap in (2, 3, 8, 256):
        bulk, ref = History(cap=cap), _PerValue(cap=cap)
        for _ in range(40):
            vals = [rng.choice([-0.0, 0.0, 1.0, rng.gauss(0.0, 1.0), rng.random() * 10.0 ** rng.randint(-8, 8)])
                    for _ in range(rng.choice([0, 1, 2, 5, 17, 200]))]
            bulk.extend(vals)
            ref.extend(vals)
            assert (bulk.stride, bulk._n, repr(bulk._sum)) == (ref.stride, ref._n, repr(ref._sum))
            assert list(map(repr, bulk.values)) == list(map(repr, ref.values))  # -0.0 and the last bit too
        assert bulk.stride > 1  # the runs went past the cap: points of several values were summed
