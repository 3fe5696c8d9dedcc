"""The watch on a run longer than its dense start: what the gradient norm's stride (issue 21) must not miss.

The generated probe benchmark trains 60 steps with 10-step windows, where every optimizer step still measures
the gradient norm; these runs go past ``probes.grad_flow.DENSE_STEPS`` with the default 50-step window, so the
norm is taken on its stride when the fault arrives.
"""

from __future__ import annotations

import torch

from trainopt import watch


def _train(fault: str, steps: int = 400) -> object:
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 5))
    opt = torch.optim.SGD(m.parameters(), lr=0.05)
    x_all = torch.randn(512, 20)
    y_all = x_all[:, :5].argmax(1)
    loss_fn = torch.nn.CrossEntropyLoss()
    with watch(m, opt, every=50, loss_fn=loss_fn, num_classes=5) as w:
        for step in range(steps):
            i = torch.randint(0, 512, (32,))
            if fault == "lr_blowup" and step == 200:
                for g in opt.param_groups:
                    g["lr"] = 50.0  # far past the stable range, long after the dense start
            loss = loss_fn(m(x_all[i]), y_all[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
            w.step(loss)
    return w


def test_a_late_lr_blowup_past_the_dense_start_trips_on_the_gradients():
    w = _train("lr_blowup")
    late = [t for t in w.trips if t["step"] > 200]
    assert any("MS-GRAD-01" in t["rows"] for t in late), w.trips  # the norm was measured on its stride
    ids = {f["id"] for f in w.consultation.diagnosis.findings if f["severity"] == "critical"}
    assert ids & {"MS-GRAD-01", "RT-UNST-01"}, ids


def test_the_same_run_without_the_fault_stays_quiet():
    w = _train("none")
    assert not w.trips
    assert not [f for f in w.consultation.diagnosis.findings if f["severity"] in ("critical", "warning")]


def test_under_gradient_accumulation_the_norm_keeps_its_stride():
    """Two micro-batches a step: optimizer steps fall on every other ``w.step``; the norm still comes on its stride."""
    from probes.grad_flow import DENSE_STEPS, NORMS_PER_WINDOW

    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 5))
    opt = torch.optim.SGD(m.parameters(), lr=0.05)
    x_all, loss_fn = torch.randn(256, 20), torch.nn.CrossEntropyLoss()
    y_all = x_all[:, :5].argmax(1)
    taken: set[int] = set()
    with watch(m, opt, every=50, loss_fn=loss_fn, num_classes=5) as w:
        probe = w.probe("grad_flow")
        for step in range(800):
            i = torch.randint(0, 256, (16,))
            (loss_fn(m(x_all[i]), y_all[i]) / 2).backward()
            if step % 2 == 1:
                opt.step()
                opt.zero_grad()
            w.step(loss_fn(m(x_all[i]), y_all[i]).detach())
            taken.add(probe._last)
    late = [s for s in taken if s > 2 * DENSE_STEPS + 100]
    windows = (800 - (2 * DENSE_STEPS + 100)) / 50
    assert len(late) >= NORMS_PER_WINDOW * windows - 1, sorted(late)
