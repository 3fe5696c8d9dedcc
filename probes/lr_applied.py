"""The learning rate actually applied (free): at each sampled optimizer step, zero included, against the built LR.

Read from the param groups at the optimizer's pre-step hook (host floats the scheduler wrote; a tensor LR is
skipped rather than read, which would synchronise). The reference is the LR the optimizer was built with
(``initial_lr``, which every torch scheduler records, else the LR found when the watch opened). ``examine`` sees
one moment: an LR of 0 there is judged only when nothing can raise it (no scheduler, a schedule that scales a
built LR of 0, or a ``LambdaLR`` whose factors stay 0 over the next steps); anything else needs the loop.
"""

from __future__ import annotations

from typing import Any

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit

INFO = ProbeInfo("lr_applied", "free", "optimizer_step", ("lr_zero_fraction", "lr_low_fraction"))

MIN_SAMPLES = 4
LOOKAHEAD = 100
"""Future steps at which examine evaluates a LambdaLR's factors before calling an LR of 0 stuck."""


def applied(optimizer: Any) -> float | None:
    """The largest LR over the param groups (the step moves something unless every group's LR is 0)."""
    lrs = [g.get("lr") for g in optimizer.param_groups]
    lrs = [float(x) for x in lrs if isinstance(x, (int, float))]
    return max(lrs) if lrs else None


def built(optimizer: Any) -> float | None:
    """The LR the optimizer was built with: the largest ``initial_lr`` (set by schedulers) or current LR."""
    refs = [g.get("initial_lr", g.get("lr")) for g in optimizer.param_groups]
    refs = [float(x) for x in refs if isinstance(x, (int, float))]
    return max(refs) if refs else None


def fractions(lrs: list[float], ref: float | None) -> dict[str, float]:
    """Share of the sampled steps at exactly 0, and below ``MT-LR-LOW-FACTOR`` of ``ref``."""
    n = len(lrs)
    out = {"lr_zero_fraction": sum(x == 0.0 for x in lrs) / n}
    if ref and ref > 0:
        out["lr_low_fraction"] = sum(x < threshold("MT-LR-LOW-FACTOR") * ref for x in lrs) / n
    return out


_SCALES_BASE = frozenset({"LinearLR", "StepLR", "MultiStepLR", "ExponentialLR", "ConstantLR", "PolynomialLR",
                          "MultiplicativeLR", "LambdaLR", "ReduceLROnPlateau"})
"""torch schedulers whose LR is the LR the optimizer was built with times a factor (a plateau scheduler only
ever lowers it): from a built LR of 0 they give 0 at every step, whatever the factor."""


def scales_base(scheduler: Any) -> bool:
    """Whether a scheduler's LR is always a factor times the built LR (so a built LR of 0 stays 0).

    A warmup, step, exponential, polynomial or lambda schedule is; a cosine one is when its floor ``eta_min`` is
    0 (it moves between the floor and the built LR); a sequence or chain is when all its parts are. One-cycle
    and cyclic schedules set their own range, and a user's scheduler is unknown: not.
    """
    name = type(scheduler).__name__
    if name in ("SequentialLR", "ChainedScheduler"):
        parts = list(getattr(scheduler, "_schedulers", []) or [])
        return bool(parts) and all(scales_base(p) for p in parts)
    if name in ("CosineAnnealingLR", "CosineAnnealingWarmRestarts"):
        return float(getattr(scheduler, "eta_min", 0.0) or 0.0) == 0.0
    return name in _SCALES_BASE


def stuck_at_zero(optimizer: Any, scheduler: Any) -> tuple[bool, str] | None:
    """Whether an LR of 0 found now stays 0: (verdict, why), or None when one moment cannot tell."""
    if scheduler is None:
        return True, "no scheduler: nothing changes the LR of 0"
    base = built(optimizer)
    if base == 0.0 and scales_base(scheduler):
        # an LR of 0 read from a config, with a warmup or decay attached: every factor of 0 is 0
        return True, f"the LR the optimizer was built with is 0 and {type(scheduler).__name__} only scales it"
    lambdas = getattr(scheduler, "lr_lambdas", None)
    if type(scheduler).__name__ == "LambdaLR" and lambdas:
        start = int(getattr(scheduler, "last_epoch", 0))
        try:
            zero = all(float(f(k)) == 0.0 for f in lambdas for k in range(start, start + LOOKAHEAD))
        except Exception:  # noqa: BLE001 - a factor that cannot be evaluated ahead says nothing
            return None
        return (True, f"the LambdaLR factor stays 0 for the next {LOOKAHEAD} steps") if zero else None
    return None


class LrAppliedProbe(Probe):
    """Plugin: the LR applied at each sampled step (watch), or whether an LR of 0 is stuck there (examine)."""

    info = INFO
    hooks = ("optimizer_pre", "window")
    sampled_hooks = ("optimizer_pre",)
    thresholds = ("MT-LR-ZERO-FRAC", "MT-LR-LOW-FACTOR", "MT-LR-LOW-FRAC")

    def attach(self, run: Any) -> None:
        """Remember the LR the optimizer was built with."""
        self.ref = built(run.optimizer)
        self.lrs: list[float] = []
        self.steps: list[int] = []

    def optimizer_pre(self, run: Any) -> None:
        """On a sampled step, the LR about to be applied (a host float)."""
        if run.sampled:
            lr = applied(run.optimizer)
            if lr is not None:
                run.record_host("lr:applied", lr)

    def accumulate(self, run: Any, window: Any) -> None:
        """Keep the applied LRs (bounded: every other one once there are many)."""
        for step, v in window.get("lr:applied"):
            self.lrs.append(v[0])
            self.steps.append(step)
        if len(self.lrs) > 1024:
            self.lrs, self.steps = self.lrs[::2], self.steps[::2]

    def summarise(self, run: Any) -> list:
        """Fractions of the sampled steps at LR 0 and near 0."""
        if len(self.lrs) < MIN_SAMPLES:
            return []
        ev = {"sampled_steps": len(self.lrs), "built_lr": self.ref, "first_lr": self.lrs[0], "last_lr": self.lrs[-1],
              "min_lr": min(self.lrs), "max_lr": max(self.lrs)}
        fr = fractions(self.lrs, self.ref)
        marks = {"lr_zero_fraction": ("MT-LR-ZERO-FRAC",), "lr_low_fraction": ("MT-LR-LOW-FACTOR", "MT-LR-LOW-FRAC")}
        return [emit(INFO, k, v, ev, marks[k], step=run.steps) for k, v in fr.items()]

    def examine(self, ex: Any) -> list:
        """An LR of exactly 0 that nothing will raise (one moment says nothing about a schedule's course)."""
        if ex.optimizer is None:
            return []
        lr = applied(ex.optimizer)
        if lr is None or lr != 0.0:
            return []
        verdict = stuck_at_zero(ex.optimizer, ex.scheduler)
        if verdict is None or not verdict[0]:
            return []
        return [emit(INFO, "lr_zero_fraction", 1.0, {"applied_lr": 0.0, "why": verdict[1]}, ("MT-LR-ZERO-FRAC",))]
