"""Gradients reset between optimizer steps, read directly: a missing zero_grad under tight clipping is seen, and
loops that zero (once per step, per accumulated group, in place, or a GAN's other loss) are not flagged."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from expert.consultation import Consultation
from knowledge.measurements import threshold
from probes import grad_reset
from trainopt import watch

pytestmark = pytest.mark.usefixtures("quiet_watch")


def _data(n: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    y = torch.randint(0, 3, (n,), generator=g)
    return torch.randn(3, 8, generator=g)[y] + torch.randn(n, 8, generator=g), y


def _model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))


def _train(zero: str, clip: float | None, accum: int = 1, steps: int = 60) -> Consultation:
    x, y = _data()
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    c = Consultation()
    with watch(model, opt, consultation=c, every=10, loss_fn=loss_fn, num_classes=3) as w:
        for step in range(steps):
            if zero == "none_set":
                opt.zero_grad(set_to_none=True)
            elif zero == "in_place":
                opt.zero_grad(set_to_none=False)
            for k in range(accum):
                i = ((step * accum + k) * 16) % 256
                (loss_fn(model(x[i:i + 16]), y[i:i + 16]) / accum).backward()
            if clip:
                nn.utils.clip_grad_norm_(model.parameters(), clip)
            opt.step()
            w.step(loss_fn(model(x[:16]), y[:16]).detach())
    c.run()
    return c


def _ids(c: Consultation) -> set[str]:
    return {f["id"] for f in c.diagnosis.findings}


def test_verdict_needs_enough_intervals_and_reads_never_sometimes_each_step():
    n = int(threshold("MT-RESET-MIN"))
    assert grad_reset.verdict(n - 1, n - 1) is None
    assert grad_reset.verdict(n, 0) == "each_step"
    assert grad_reset.verdict(10, 10) == "never"
    assert grad_reset.verdict(10, 2) == "sometimes"


def test_missing_zero_grad_under_tight_clipping_is_its_own_single_root_cause():
    c = _train("missing", clip=0.01)
    o = c.observations
    # the clip rescales the carried sum each step: the carry-over ratio stays below its threshold...
    assert o["grad_carryover"].value <= threshold("MT-CARRYOVER")
    # ...but every backward pass found last step's gradient still there
    assert o["grad_reset"].value == "never"
    assert o["grad_reset"].evidence["intervals_never_cleared"] == o["grad_reset"].evidence["sampled_intervals"]
    ids = _ids(c)
    assert "MS-ZERO-03" in ids and not any(i.startswith("MS-CLIP") for i in ids)
    assert [r["skill"] for r in c.diagnosis.routes if r["role"] == "primary"] == ["training-loop-architecture"]


def test_missing_zero_grad_without_clipping_is_one_finding_not_two():
    ids = _ids(_train("missing", clip=None))
    assert "MS-ZERO-01" in ids and "MS-ZERO-03" not in ids


@pytest.mark.parametrize("zero,clip,accum", [("none_set", 0.01, 1), ("in_place", None, 1), ("none_set", 1.0, 4)])
def test_loops_that_zero_are_reset_each_step(zero, clip, accum):
    c = _train(zero, clip, accum, steps=60 // accum if accum > 1 else 60)
    assert c.observations["grad_reset"].value == "each_step"
    assert not {"MS-ZERO-01", "MS-ZERO-02", "MS-ZERO-03"} & _ids(c)


def test_a_gan_generator_loss_through_the_watched_discriminator_is_no_carry_over():
    torch.manual_seed(0)
    d = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    g = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 4))
    opt_d = torch.optim.Adam(d.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_g = torch.optim.Adam(g.parameters(), lr=2e-4, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()
    c = Consultation()
    with watch(d, opt_d, consultation=c, every=10) as w:
        for _ in range(60):
            real, fake = torch.randn(32, 4) + 2.0, g(torch.randn(32, 2))
            d.zero_grad()
            loss_d = bce(d(real), torch.ones(32, 1)) + bce(d(fake.detach()), torch.zeros(32, 1))
            loss_d.backward()
            opt_d.step()
            g.zero_grad()
            bce(d(fake), torch.ones(32, 1)).backward()  # flows into d's .grad after d's step (DCGAN's loop)
            opt_g.step()
            w.step(loss_d.detach())
    c.run()
    assert c.observations["grad_reset"].value == "each_step"
    assert not {"MS-ZERO-01", "MS-ZERO-03"} & _ids(c)


def test_the_probe_leaves_no_hook_behind():
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = _data(64)
    armed = []
    with watch(model, opt, every=2) as w:
        for _ in range(5):
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            armed.append(bool(model[2].bias._backward_hooks))  # armed after a sampled step's optimizer step
            w.step(0.0)
    assert any(armed) and not model[2].bias._backward_hooks
