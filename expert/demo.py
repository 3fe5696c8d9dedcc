"""The live demo: a small training run with a real fault, trained a few steps under watch, then examined."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _run(out: Callable[[str], Any]) -> Any:
    import logging

    import torch
    from torch import nn

    from expert.consultation import Consultation
    from probes import examine, watch

    logging.getLogger("trainopt.watch").setLevel(logging.ERROR)
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    centers = torch.randn(4, 16, generator=g) * 1.5
    y = torch.randint(0, 4, (512,), generator=g)
    x = centers[y] + torch.randn(512, 16, generator=g)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    out("trainopt demo: a 2-layer MLP on 4 Gaussian classes, SGD lr=0.05, whose loop forgets optimizer.zero_grad()\n")
    c = Consultation()
    with watch(model, opt, consultation=c, every=10, loss_fn=loss_fn, num_classes=4) as w:
        for step in range(40):
            if step % 8 == 0:
                order = torch.randperm(512, generator=g)  # a loader that reshuffles every epoch
            i = order[(step % 8) * 64:][:64]
            xb, yb = x[i], y[i]
            loss = loss_fn(model(xb), yb)  # the fault: no opt.zero_grad() before backward
            loss.backward()
            opt.step()
            w.step(loss)
    for t in w.trips:
        out(f"  watch tripped at step {t['step']}: {', '.join(t['rows'])}\n")
    obs = examine(model, loss_fn, (x[:64], y[:64]), opt, num_classes=4, val_batch=(x[64:192], y[64:192]))
    out(f"  examine measured {len(obs)} observations (model, optimizer and RNGs restored as found)\n\n")
    c.add([o for o in obs if o.name not in c.observations])  # the run's own measurements take precedence
    c.run()
    return c


def run_demo(out: Callable[[str], Any] = print, fmt: str = "text") -> Any:
    """Train the demo run, probe it, print the Training Diagnosis with the evidence and the audit trail.

    Args:
        out: Where the text goes (a callable taking a string).
        fmt: ``text``, ``markdown`` or ``json``.

    Returns:
        The Consultation holding the diagnosis.
    """
    from expert.report import render, render_trail

    c = _run(out)
    out(render(c.outcome(), fmt) + "\n")
    if fmt != "json":
        out("\nOrdered plan: " + (" -> ".join(c.diagnosis.plan) or "(none)") + "\n")
        out("\nAudit trail (every rule firing, in order):\n" + render_trail(c.trace, markdown=fmt == "markdown")
            + "\n")
    return c
