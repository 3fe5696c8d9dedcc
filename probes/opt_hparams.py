"""Optimizer hyper-parameters against their sane range per family (free): Adam's betas, SGD's momentum, decay per step.

Read from the live optimizer's param groups (host numbers, no tensor work). Adam-family optimizers are recognised
by their ``betas`` and ``eps`` group keys; SGD by its ``momentum`` and ``dampening`` keys, so subclasses and
wrappers that keep torch's group layout are judged too. The decay per step is what decay alone takes off the
weights each step: ``lr * wd`` for decoupled decay (AdamW, Lion), ``lr * wd / (1 - momentum)`` for SGD's coupled
L2 term, which momentum amplifies. Adam's coupled L2 term is divided by the gradient's RMS, so no per-step size
can be read from the settings: it is not judged.
"""

from __future__ import annotations

from typing import Any

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit, finite_or_none

INFO = ProbeInfo("opt_hparams", "free", "static", ("adam_betas", "sgd_momentum", "decay_per_step"))


def family(optimizer: Any) -> str | None:
    """``adam`` (Adam-style betas and eps), ``adamw`` (decoupled decay), ``sgd``, ``decoupled`` (Lion...) or None."""
    name = type(optimizer).__name__.lower()
    groups = getattr(optimizer, "param_groups", None) or [{}]
    g = groups[0]
    if "betas" in g and "eps" in g:
        return "adamw" if "adamw" in name or g.get("decoupled_weight_decay") else "adam"
    if "momentum" in g and "dampening" in g:
        return "sgd"
    if "betas" in g and "weight_decay" in g:
        return "decoupled"  # sign-momentum optimizers (Lion) apply lr * wd directly
    return None


def judge(optimizer: Any) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Observation name -> (value, evidence) for the optimizer's groups (the worst group speaks)."""
    fam = family(optimizer)
    res: dict[str, tuple[Any, dict[str, Any]]] = {}
    if fam is None:
        return res
    groups = optimizer.param_groups
    decays = []
    for g in groups:
        lr = finite_or_none(g.get("lr")) or 0.0
        wd = finite_or_none(g.get("weight_decay", 0.0)) or 0.0
        if fam == "sgd":
            m = finite_or_none(g.get("momentum", 0.0)) or 0.0
            decays.append(lr * wd / (1.0 - m) if m < 1.0 else float("inf") if lr * wd > 0 else 0.0)
        elif fam in ("adamw", "decoupled"):
            decays.append(lr * wd)
    if decays and all(finite_or_none(d) is not None for d in decays):
        res["decay_per_step"] = (max(decays), {"family": fam, "per_group": decays})
    if fam == "sgd":
        moms = [finite_or_none(g.get("momentum", 0.0)) or 0.0 for g in groups]
        res["sgd_momentum"] = (max(moms), {"per_group": moms})
    if fam in ("adam", "adamw"):
        verdict, worst = "usual", None
        for g in groups:
            b = g.get("betas")
            if not isinstance(b, (tuple, list)) or len(b) != 2:
                continue
            b1, b2 = finite_or_none(b[0]), finite_or_none(b[1])
            if b1 is None or b2 is None:
                continue
            # a beta2 too low to average anything is the more specific verdict; otherwise beta1 above beta2 is the
            # pair written in the wrong order (0.999, 0.9)
            v = "beta2_low" if b2 < threshold("MT-BETA2-LOW") else "swapped" if b1 > b2 else "usual"
            if v != "usual" and verdict == "usual":
                verdict, worst = v, [b1, b2]
            worst = worst or [b1, b2]
        if worst is not None:
            res["adam_betas"] = (verdict, {"betas": worst})
    return res


class OptHparamsProbe(Probe):
    """Plugin: the optimizer's hyper-parameters, read once (watch: at the first summary; examine: as found)."""

    info = INFO
    thresholds = ("MT-BETA2-LOW",)

    def attach(self, run: Any) -> None:
        """Read the groups as they are before the first step (a scheduler may change the LR later)."""
        self._res = judge(run.optimizer)

    def summarise(self, run: Any) -> list:
        """The settings as found when the watch opened."""
        return [emit(INFO, k, v, ev, ("MT-BETA2-LOW",) if k == "adam_betas" else ()) for k, (v, ev) in
                self._res.items()]

    def examine(self, ex: Any) -> list:
        """The examined optimizer's settings."""
        if ex.optimizer is None:
            return []
        return [emit(INFO, k, v, ev, ("MT-BETA2-LOW",) if k == "adam_betas" else ()) for k, (v, ev) in
                judge(ex.optimizer).items()]
