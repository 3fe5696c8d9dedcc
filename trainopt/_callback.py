"""What the Lightning and Hugging Face callbacks share: a watch whose optimizer hooks fire when the framework says.

A framework steps the optimizer through layers of its own (Lightning's closure runs forward and backward
*inside* ``optimizer.step``; AMP scales, clipping rewrites gradients in place). Hooks registered on the
optimizer would see gradients at the wrong moment. So the watch gets a stand-in optimizer: the same object
state (param groups, hyperparameters, class), but its step hooks are kept aside and fired by the callback at
the framework's own hook points (Lightning's ``on_before_optimizer_step``: unscaled and not yet clipped).
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from pathlib import Path
from typing import Any

from trainopt._boot import internal

log = logging.getLogger("trainopt.callback")


class _Handle:
    def __init__(self, hooks: OrderedDict[int, Any], key: int) -> None:
        self.hooks, self.key = hooks, key

    def remove(self) -> None:
        self.hooks.pop(self.key, None)


class DeferredHooks:
    """A stand-in for ``optimizer`` whose step hooks the caller fires (``pre()``, ``post()``)."""

    def __init__(self, optimizer: Any) -> None:
        self.optimizer = optimizer
        self._pre: OrderedDict[int, Any] = OrderedDict()
        self._post: OrderedDict[int, Any] = OrderedDict()
        self._n = 0
        cls = type(optimizer)
        hooks = self

        def register_step_pre_hook(_self: Any, fn: Any) -> _Handle:
            hooks._n += 1
            hooks._pre[hooks._n] = fn
            return _Handle(hooks._pre, hooks._n)

        def register_step_post_hook(_self: Any, fn: Any) -> _Handle:
            hooks._n += 1
            hooks._post[hooks._n] = fn
            return _Handle(hooks._post, hooks._n)

        # Same class name and isinstance as the real optimizer (the optimizer lint reads both); the instance
        # shares the real one's __dict__, so param groups, state and hyperparameters are the live ones.
        stand_in = type(cls.__name__, (cls,), {"register_step_pre_hook": register_step_pre_hook,
                                               "register_step_post_hook": register_step_post_hook,
                                               "__module__": cls.__module__})
        self.proxy = object.__new__(stand_in)
        self.proxy.__dict__ = optimizer.__dict__

    def pre(self) -> None:
        """Fire the step pre-hooks (gradients as they are now)."""
        for fn in list(self._pre.values()):
            fn(self.proxy, (), {})

    def post(self) -> None:
        """Fire the step post-hooks (after the real step)."""
        for fn in list(self._post.values()):
            fn(self.proxy, (), {})


def unwrap_optimizer(opt: Any) -> Any:
    """The torch optimizer inside a framework wrapper (Lightning's LightningOptimizer, accelerate's)."""
    for _ in range(4):  # wrappers expose the wrapped optimizer as .optimizer; torch optimizers have none
        inner = getattr(opt, "optimizer", None)
        if inner is None or inner is opt:
            break
        opt = inner
    return opt


VALIDATION_KEYS = ("val_loss", "val_acc", "train_acc")


def metric_kwargs(metrics: dict[str, Any]) -> dict[str, float]:
    """Map logged metric names (``val_loss``, ``eval_accuracy``, ``valid/acc``...) to the watch's metric names."""
    role_of = internal("expert.logs").role_of
    out: dict[str, float] = {}
    for k, v in metrics.items():
        role = role_of(str(k))
        if role in VALIDATION_KEYS and role not in out:
            try:
                x = float(v.detach().cpu()) if hasattr(v, "detach") else float(v)
            except (TypeError, ValueError):
                continue
            out[role] = x / 100.0 if role != "val_loss" and x > 1.0 else x
    return out


def save_report(consultation: Any, folder: str | Path | None, name: str = "trainopt") -> list[Path]:
    """Write ``<name>_report.json`` and ``<name>_report.md`` to ``folder`` (created); return the paths."""
    if not folder:
        return []
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    js, md = d / f"{name}_report.json", d / f"{name}_report.md"
    js.write_text(json.dumps(consultation.to_json(), indent=2))
    md.write_text(consultation.report("markdown"))
    return [js, md]


def summary_metrics(diagnosis: Any) -> dict[str, float]:
    """Numbers a metrics logger can chart: the diagnosis as counts and a needs-action flag."""
    sev = [f["severity"] for f in diagnosis.findings]
    return {"trainopt/needs_action": float(diagnosis.needs_action),
            "trainopt/critical": float(sev.count("critical")), "trainopt/warning": float(sev.count("warning")),
            "trainopt/routes": float(len(diagnosis.routes))}


def world_size() -> int:
    """Processes in the torch.distributed job (1 outside one)."""
    import torch.distributed as dist

    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def any_rank(flag: bool) -> bool:
    """Whether ``flag`` holds on any rank: one all-reduce (MAX) of a one-element tensor; ``flag`` outside a job.

    Every rank must call it at the same point (the callbacks call it at window ends only, which every rank
    reaches at the same step). The tensor lives where the backend can reduce it: the CPU for gloo, the current
    CUDA device for NCCL.
    """
    if world_size() < 2:
        return flag
    import torch
    import torch.distributed as dist

    backend = str(dist.get_backend())
    dev = torch.device("cuda", torch.cuda.current_device()) if "nccl" in backend and "gloo" not in backend \
        else torch.device("cpu")
    t = torch.tensor([1.0 if flag else 0.0], device=dev)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return bool(t.item() > 0)


def at_window_end(watch: Any, every: int) -> bool:
    """Whether the watch just closed a window (the only points where ranks vote on stopping)."""
    return watch.steps > 0 and watch.steps % every == 0


def framework_work_done(watch: Any) -> None:
    """The framework's own work between two steps (evaluation, checkpointing, logging) has ended.

    The watch's data-wait clock runs from one step's end to the next training forward; restarting it here keeps
    that work out of the time spent waiting on data.
    """
    probe = watch.probe("throughput") if watch is not None else None
    if probe is not None:
        probe.restart()


def should_stop(watch: Any, every: int) -> str:
    """Why a watched run should stop now ('' when it should not).

    Checked at window ends only, after at least two windows: the diagnosis of the latest trip needs action and
    the cheap probes still trip on the whole history so far.
    """
    if not watch.trips or watch.steps < 2 * every or watch.steps % every:
        return ""
    d = watch.diagnosis
    if d is None or not d.needs_action:
        return ""
    rows = internal("probes.watcher").tripped_rows({o.name: o for o in watch.observations()})
    if not rows:
        return ""
    return "; ".join(f"{f['id']} ({f['severity']})" for f in d.findings if f["severity"] != "info") + \
        " [" + ", ".join(rows) + "]"
