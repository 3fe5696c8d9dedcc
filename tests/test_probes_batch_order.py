"""Batch order on real DataLoaders: the same batches in the same order every epoch are seen (shuffle off, or a
generator re-seeded each epoch), and a loader that reshuffles, full-batch training or fresh augmentation are not."""

from __future__ import annotations

from collections import Counter

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from expert.consultation import Consultation
from knowledge.measurements import threshold
from probes import batch_order
from probes.watcher import Window
from trainopt import watch

pytestmark = pytest.mark.usefixtures("quiet_watch")


def _set(n: int = 192) -> TensorDataset:
    g = torch.Generator().manual_seed(5)
    y = torch.randint(0, 3, (n,), generator=g)
    return TensorDataset(torch.randn(3, 8, generator=g)[y] + torch.randn(n, 8, generator=g), y)


def _run(loader_for_epoch, epochs: int = 4, noise: float = 0.0) -> Consultation:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    c = Consultation()
    with watch(model, opt, consultation=c, every=10, loss_fn=loss_fn, num_classes=3) as w:
        for epoch in range(epochs):
            for x, y in loader_for_epoch(epoch):
                if noise:
                    x = x + noise * torch.randn_like(x)  # augmentation drawn afresh each time
                opt.zero_grad(set_to_none=True)
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
                w.step(loss.detach())
    c.run()
    return c


def _order(c: Consultation) -> str | None:
    o = c.observations.get("batch_order")
    return None if o is None else o.value


def _ids(c: Consultation) -> set[str]:
    return {f["id"] for f in c.diagnosis.findings}


def test_a_loader_without_shuffle_repeats_every_epoch_and_gets_the_note_with_its_route():
    ds = _set()
    c = _run(lambda e: DataLoader(ds, batch_size=16, shuffle=False))
    assert _order(c) == "same_each_epoch"
    ev = c.observations["batch_order"].evidence
    assert ev["epoch_forwards"] == 12 and ev["repeat_fraction"] == 1.0
    f = [x for x in c.diagnosis.findings if x["id"] == "MS-ORDER-02"]
    assert f and f[0]["severity"] == "info"  # fine for in-order streams: never a warning
    assert "training-loop-architecture" in {r["skill"] for r in c.diagnosis.routes if r["role"] == "primary"}


def test_a_generator_re_seeded_each_epoch_replays_the_same_shuffle():
    ds = _set()

    def loader(epoch: int) -> DataLoader:
        torch.manual_seed(0)  # the habit: seeding inside the epoch loop
        return DataLoader(ds, batch_size=16, shuffle=True)

    assert _order(_run(loader)) == "same_each_epoch"


def test_a_loader_that_reshuffles_is_no_repeat_and_no_finding():
    ds = _set()
    g = torch.Generator().manual_seed(0)
    loader = DataLoader(ds, batch_size=16, shuffle=True, generator=g)
    c = _run(lambda e: loader)
    assert _order(c) == "no_repeat" and "MS-ORDER-02" not in _ids(c)


def test_fresh_augmentation_on_a_fixed_order_is_not_a_repeat():
    ds = _set()
    assert _order(_run(lambda e: DataLoader(ds, batch_size=16), noise=0.1)) == "no_repeat"


def test_full_batch_training_is_not_an_epoch_repeated():
    ds = _set(64)
    c = _run(lambda e: DataLoader(ds, batch_size=64), epochs=30)
    assert _order(c) == "repeats" and "MS-ORDER-02" not in _ids(c)


def test_judge_needs_enough_forwards_and_a_gap_above_one():
    n = int(threshold("MT-REPEAT-MIN"))
    assert batch_order.judge(n - 1, Counter()) is None
    assert batch_order.judge(n, Counter())["value"] == "no_repeat"
    assert batch_order.judge(40, Counter({10: 30}))["value"] == "same_each_epoch"
    assert batch_order.judge(40, Counter({1: 39}))["value"] == "repeats"
    assert batch_order.judge(40, Counter({10: 5}))["value"] == "repeats"  # a few collisions, not an epoch


def test_the_store_stays_bounded_and_still_finds_repeats_of_a_long_epoch(monkeypatch):
    monkeypatch.setattr(batch_order, "KEEP", 64)
    p = batch_order.BatchOrderProbe()
    p.attach(None)
    epoch = [float(i) * 1.37 + 0.5 for i in range(300)]  # 300 distinct batches, far more than the store keeps
    for e in range(3):
        p.accumulate(None, Window(0, 0, {"order:fp": [(e * 300 + i, [v]) for i, v in enumerate(epoch)]}))
        assert len(p.store) <= 64 + 1
    j = batch_order.judge(p.seen, p.repeats, p.mod)
    assert p.mod > 1 and j["value"] == "same_each_epoch" and j["evidence"]["epoch_forwards"] == 300


def _images(n: int = 640) -> TensorDataset:
    """Zero-bordered 28 x 28 images (an MNIST layout): only the columns 4-23 hold the digit."""
    g = torch.Generator().manual_seed(7)
    y = torch.randint(0, 3, (n,), generator=g)
    x = torch.zeros(n, 1, 28, 28)
    x[:, :, 4:24, 4:24] = torch.randn(n, 1, 20, 20, generator=g) + y.view(-1, 1, 1, 1).float()
    return TensorDataset(x, y)


def _run_images(loader_for_epoch, epochs: int = 4, width: int = 784) -> Consultation:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(width, 3))
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    c = Consultation()
    with watch(model, opt, consultation=c, every=10, loss_fn=loss_fn, num_classes=3) as w:
        for epoch in range(epochs):
            for x, y in loader_for_epoch(epoch):
                opt.zero_grad(set_to_none=True)
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
                w.step(loss.detach())
    c.run()
    return c


def test_a_large_cpu_batch_is_fingerprinted_by_a_spread_sample_and_its_repeats_still_found(monkeypatch):
    ds = _images()
    assert 64 * 784 > batch_order.FULL_READ_MAX  # the spread projection, not the whole digest
    whole = []
    monkeypatch.setattr(batch_order, "input_digest", lambda run, x: whole.append(x) or None)
    c = _run_images(lambda e: DataLoader(ds, batch_size=64, shuffle=False))
    assert not whole  # the input was never read whole for its fingerprint
    assert _order(c) == "same_each_epoch" and c.observations["batch_order"].evidence["epoch_forwards"] == 10
    g = torch.Generator().manual_seed(0)
    loader = DataLoader(ds, batch_size=64, shuffle=True, generator=g)
    assert _order(_run_images(lambda e: loader)) == "no_repeat"


def test_the_spread_sample_reaches_every_column_of_a_row():
    # batches that differ only in one column of their rows: an even stride (49 here: every 7th column) reads
    # a border column in every row, the same in every batch; a stride coprime to the row reads them all
    g = torch.Generator().manual_seed(3)
    base = torch.zeros(64, 1, 28, 28)
    probe = batch_order.BatchOrderProbe()
    probe.attach(None)
    weights = probe._weights
    for col in (1, 5, 26):
        a, b = base.clone(), base.clone()
        a[..., col] = torch.randn(64, 1, 28, generator=g)
        b[..., col] = torch.randn(64, 1, 28, generator=g)
        fa = batch_order.fingerprint(a, weights, batch_order.SPREAD, spread=True)
        fb = batch_order.fingerprint(b, weights, batch_order.SPREAD, spread=True)
        assert float(fa) != float(fb)
        assert float(fa) == float(batch_order.fingerprint(a.clone(), weights, batch_order.SPREAD, spread=True))


def _bags(n: int = 2048, width: int = 10000, hot: int = 20) -> TensorDataset:
    # bag-of-words rows: ``hot`` ones among ``width`` zeros, so the spread sample often holds no non-zero at all
    g = torch.Generator().manual_seed(11)
    x = torch.zeros(n, width)
    x.scatter_(1, torch.randint(0, width, (n, hot), generator=g), 1.0)
    return TensorDataset(x, torch.randint(0, 3, (n,), generator=g))


def test_a_sparse_input_whose_samples_are_all_zero_neither_hides_nor_invents_a_repeat():
    ds = _bags()
    weights = batch_order.SPREAD
    zero = sum(float(batch_order.fingerprint(x, lambda n, d, dev: torch.ones(n, dtype=d), weights, spread=True)) == 0
               for x, _ in DataLoader(ds, batch_size=64))
    assert zero >= 2  # the situation under test: some batches' spread samples are all zero

    fixed = _run_images(lambda e: DataLoader(ds, batch_size=64, shuffle=False), width=10000)
    assert _order(fixed) == "same_each_epoch" and "MS-ORDER-02" in _ids(fixed)
    g = torch.Generator().manual_seed(0)
    loader = DataLoader(ds, batch_size=64, shuffle=True, generator=g)
    shuffled = _run_images(lambda e: loader, width=10000)
    # a sample holding one non-zero can meet another batch's (a stray gap, ``repeats``): never an epoch repeated
    assert _order(shuffled) in ("no_repeat", "repeats") and "MS-ORDER-02" not in _ids(shuffled)


def test_a_cpu_float_input_is_fingerprinted_on_the_host_like_the_device_projection():
    # issue 21: a marked forward on the CPU dispatches one light torch op for its fingerprint (the alias that
    # ``Tensor.numpy`` takes; numpy then reads the tensor's memory), not the device path's two, and the number
    # is the device path's up to rounding: the whole digest up to FULL_READ_MAX, the spread sample past it;
    # equal batches give equal numbers, a NaN a NaN
    from torch.utils._python_dispatch import TorchDispatchMode

    from probes.base import input_digest

    class Ops(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.n = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.n += 1
            return func(*args, **(kwargs or {}))

    class Run:
        forward_serial = None
        digest_weights: dict = {}

    probe = batch_order.BatchOrderProbe()
    probe.attach(None)
    g = torch.Generator().manual_seed(2)
    for shape in ((64, 64), (64, 1, 28, 28)):
        for dtype in (torch.float32, torch.float64):
            x = torch.randn(*shape, generator=g, dtype=dtype)
            probe._host_fingerprint(x)  # weights made once, outside the count
            with Ops() as ops:
                host = probe._host_fingerprint(x)
            assert ops.n <= 1
            assert host == probe._host_fingerprint(x.clone())
            device = input_digest(Run(), x) if x.numel() <= batch_order.FULL_READ_MAX else \
                batch_order.fingerprint(x, probe._weights, batch_order.SPREAD, spread=True)
            assert host == pytest.approx(float(device), rel=1e-4, abs=1e-9)
            assert host != probe._host_fingerprint(torch.randn(*shape, generator=g, dtype=dtype))
    x = torch.randn(64, 64, generator=g)
    x[5, 7] = float("nan")
    assert probe._host_fingerprint(x) != probe._host_fingerprint(x)  # NaN: no fingerprint
