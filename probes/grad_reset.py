"""Gradient reset between optimizer steps (cheap): does ``.grad`` start each step empty, or carry the last one.

PyTorch adds every backward pass into ``.grad`` until something clears it (``zero_grad``, ``set_to_none``). In a
healthy loop, however it accumulates micro-batches, some backward pass between two optimizer steps finds the
gradient cleared: ``None`` (``zero_grad(set_to_none=True)``, the default) or all zeros. A loop that never zeroes
finds the last step's gradient in ``.grad`` at every backward pass. That is read directly here, so it holds where
the size of the carried gradient says nothing: ``clip_grad_norm_`` rescales the accumulated sum to ``max_norm``
in place each step, so the carried gradient is never more than one clipped gradient (the carry-over ratio of
``config_lint`` stays near 1) although every step still applies the sum of all past gradients.

Cost: after the optimizer step of a sampled step only, a tensor hook on the last trainable parameter notes, at
each backward pass until the next optimizer step, whether its ``.grad`` was cleared (a host check) or the
gradient's norm (one device reduction, queued); the next optimizer pre-hook closes the interval and removes the
hook. Nothing is read to the host inside the step. A second model sharing the optimizer-free backward (a GAN's
generator loss flowing through the watched discriminator) is no false alarm: the discriminator's ``zero_grad``
before its own backward is seen within the same interval.
"""

from __future__ import annotations

from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit, norms

INFO = ProbeInfo("grad_reset", "cheap", "backward", ("grad_reset",))


def verdict(intervals: int, carried: int) -> str | None:
    """``never`` / ``sometimes`` / ``each_step`` from the sampled step intervals and how many carried over.

    Args:
        intervals: Sampled intervals between two optimizer steps with at least one backward pass seen.
        carried: Of those, intervals in which every backward pass found the gradient of the last step still in
            ``.grad`` (never ``None``, never all zeros).

    Returns:
        The verdict, or None before ``MT-RESET-MIN`` intervals.
    """
    if intervals < threshold("MT-RESET-MIN"):
        return None
    if carried == 0:
        return "each_step"
    return "never" if carried / intervals >= threshold("MT-RESET-NEVER") else "sometimes"


class GradResetProbe(Probe):
    """Plugin (watch only: examine runs its own steps and zeroes between them, so it cannot see the loop's)."""

    info = INFO
    hooks = ("optimizer_pre", "optimizer_post", "window")
    woken_hooks = ("optimizer_pre",)  # woken by the sampled step's optimizer_post: the next step closes it
    thresholds = ("MT-RESET-MIN", "MT-RESET-NEVER")
    trips_causes = True  # a loop fault measured outright

    def attach(self, run: Any) -> None:
        """No interval seen yet."""
        self.intervals = 0
        self.carried = 0
        self._hook: Any = None
        self._seen: list[Any] = []
        self._cleared = False

    def detach(self, run: Any) -> None:
        """Remove the tensor hook if armed."""
        if self._hook is not None:
            self._hook.remove()
            self._hook = None

    def optimizer_post(self, run: Any) -> None:
        """After a sampled step: watch the backward passes until the next optimizer step."""
        if self._hook is None and run.params:
            p = run.params[-1]
            self._seen, self._cleared = [], False
            self._hook = p.register_hook(lambda g, p=p: self._backward(p))
            run.wake("optimizer_pre", self.optimizer_pre, run.steps)  # the next optimizer step closes the interval

    def _backward(self, p: torch.Tensor) -> None:
        # a tensor hook runs before the new gradient is added: p.grad is what the loop left there
        g = p.grad
        if g is None:
            self._cleared = True
        elif not self._cleared:
            self._seen.append(norms([g.detach()])[0])  # all zeros (set_to_none=False) is a reset too

    def optimizer_pre(self, run: Any) -> None:
        """Close the interval: cleared (host flag), or the norms of what every backward pass found (queued)."""
        if self._hook is None:
            return
        self._hook.remove()
        self._hook = None
        if self._cleared:
            run.record_host("reset:cleared", 1.0)
        elif self._seen:
            run.record("reset:left", torch.stack(self._seen).amin())
        self._seen = []

    def accumulate(self, run: Any, window: Any) -> None:
        """Count the intervals: a left-over whose smallest norm is above zero carried over every backward pass."""
        for _ in window.get("reset:cleared"):
            self.intervals += 1
        for _, v in window.get("reset:left"):
            self.intervals += 1
            self.carried += v[0] > 0.0 or v[0] != v[0]  # NaN: a non-finite gradient was kept, not cleared

    def summarise(self, run: Any) -> list:
        """``grad_reset`` with the interval counts."""
        v = verdict(self.intervals, self.carried)
        if v is None:
            return []
        ev = {"sampled_intervals": self.intervals, "intervals_never_cleared": self.carried}
        return [emit(INFO, "grad_reset", v, ev, ("MT-RESET-MIN", "MT-RESET-NEVER"), step=run.steps)]
