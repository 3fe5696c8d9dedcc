"""Non-finite locator: NaN/Inf in inputs, labels, weights, gradients, optimizer state, loss or a module's output."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import torch

from probes.base import Probe, ProbeInfo, emit, input_digest

INFO = ProbeInfo("nonfinite", "expensive", "forward", ("nan_location", "nan_step", "nonfinite_module",
                                                       "loss_behavior", "nan_onset"))

# Pipeline order: the earliest place a non-finite value shows up is the one reported.
ORDER = ("inputs", "labels", "weights", "optimizer_state", "activations", "loss", "gradients")


def tensors_in(obj: Any) -> Iterator[torch.Tensor]:
    """Every tensor in a nested structure (tuple, list, dict, dataclass-like objects are not walked)."""
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from tensors_in(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from tensors_in(v)


def all_finite(obj: Any) -> bool:
    """Check that every floating tensor in ``obj`` is finite (integer tensors always are)."""
    from probes.base import stored

    for t in tensors_in(obj):
        t = stored(t)
        if (t.is_floating_point() or t.is_complex()) and t.numel() and not bool(torch.isfinite(t).all()):
            return False
    return True


def first_nonfinite_module(model: torch.nn.Module, forward: Callable[[], Any]) -> str | None:
    """Run ``forward`` once with hooks on every module; name the first (in execution order) whose output is.

    non-finite. Hooks are removed whatever happens.
    """
    found: list[str] = []
    handles = []

    def make(name: str) -> Callable[..., None]:
        def hook(_m: torch.nn.Module, _inp: Any, out: Any) -> None:
            if not found and not all_finite(out):
                found.append(name or type(_m).__name__)
        return hook

    try:
        for name, mod in model.named_modules():
            handles.append(mod.register_forward_hook(make(name)))
        with torch.no_grad():
            forward()
    finally:
        for h in handles:
            h.remove()
    return found[0] if found else None


def scan_static(inputs: Any, labels: Any, model: torch.nn.Module, optimizer: Any | None) -> dict[str, bool]:
    """Finiteness of what exists before any forward pass."""
    state_ok = True
    if optimizer is not None:
        state_ok = all(all_finite(s) for s in optimizer.state.values())
    return {"inputs": all_finite(inputs), "labels": all_finite(labels),
            "weights": all(all_finite(p) for p in model.parameters()), "optimizer_state": state_ok}


def earliest(flags: dict[str, bool]) -> str | None:
    """Give the earliest non-finite place in pipeline order (``flags`` maps place -> finite?)."""
    return next((k for k in ORDER if k in flags and not flags[k]), None)


def observe(location: str | None, *, step: int | None = None, module: str | None = None,
            flags: dict[str, bool] | None = None) -> list:
    """Observations for a located non-finite value (nothing when everything was finite)."""
    if location is None:
        return []
    ev = {"finite": flags or {}, "module": module, "step": step}
    out = [emit(INFO, "nan_location", location, ev), emit(INFO, "loss_behavior", "nan_or_inf", ev)]
    if step is not None:
        out.append(emit(INFO, "nan_step", step, ev))
        out.append(emit(INFO, "nan_onset", "immediate" if step == 0 else "after_steps", ev))
    if module:
        out.append(emit(INFO, "nonfinite_module", module, ev))
    return out


class NonfiniteProbe(Probe):
    """Plugin: where and at which step something first went non-finite.

    Per training step, one read-only reduction each of the first input and the first output (``aminmax``: a
    NaN propagates into min and max, an Inf is an extreme), kept on the device until the window end. Other
    probes report their own first non-finite step into ``run.nonfinite_at`` (the loss, the gradients); the
    earliest place in pipeline order is the one reported. After a trip, one forward with a hook on every module
    names the first module whose output is non-finite.
    """

    info = INFO
    hooks = ("forward", "unsound_loss", "window", "escalate")

    def attach(self, run: Any) -> None:
        """Start with nothing located."""
        self.module: str | None = None
        self._bad: list[str] = []
        self._held: tuple[int, Any, Any] | None = None
        from probes.config_lint import loss_name

        lf = getattr(run, "loss_fn", None)
        self._builtin_loss = lf is not None and loss_name(lf) not in ("custom", "")

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """Queue the input's digest (or its min and max) and the output's min and max, as 0-d tensors.

        The window end stacks everything queued in one call; a stack here would be one more kernel launch in
        every training step, which costs more. The input is read through ``input_digest`` (one op over every
        element, shared with the batch-order probe: non-finite exactly when an entry is, and it cannot overflow
        on huge finite inputs); an input it does not cover gets ``aminmax``. Cheaper one-op checks of the input
        were measured and dropped (issue 21): a float32 sum overflows on huge finite inputs
        (``tests/test_probes_nonfinite_watch.py``), a float64 sum costs as much as the aminmax.
        """
        held = self._held
        steps = run.steps
        if held is not None and held[0] == steps:
            # a second training forward before w.step (micro-batches, an extra pass): the step's one loss cannot
            # vouch for both inputs, so the held one and this one are measured now
            self._held = None
            self._measure(run, held[1], held[2])
        elif first is not None and first.is_cpu and steps % run.update_every and \
                (out is None or type(out) is not torch.Tensor or out.is_cpu):
            # On the CPU a read of the input is a pass over memory the step has pushed out of the cache (about
            # 70 us a step on the small MLP, issue 21). A NaN or Inf input makes the loss non-finite, and w.step
            # reads a CPU loss on the host: the input (and output) are looked at only when that loss is not a
            # finite number, or none was given (``unsound_loss``). Held until then: a reference for this step only
            # (the one held before, an earlier step's, was vouched for by its finite loss: replaced).
            self._held = (steps, first, out)
            return
        else:
            self._held = None  # an earlier step's, if any, vouched for by its finite loss: dropped
        self._measure(run, first, out)

    def detach(self, run: Any) -> None:
        """Drop the held input and output."""
        self._held = None

    def unsound_loss(self, run: Any) -> None:
        """The step's loss was not read as a finite host number: look at the input and output held for it now."""
        held = self._held
        if held is None or held[0] != run.steps:
            return  # nothing held, or an earlier step's, which its finite loss vouched for
        self._held = None
        _, first, out = held
        # on the CPU: a host read costs no device wait
        if first is not None and first.is_floating_point() and first.numel() > 0:
            run.record_host("nf:hin", 0.0 if all_finite(first) else math.nan)
        if out is not None and type(out) is torch.Tensor and out.is_floating_point() and out.numel() > 0:
            run.record_host("nf:hout", 0.0 if all_finite(out) else math.nan)

    def _measure(self, run: Any, first: Any, out: Any) -> None:
        """Queue the device reads of a forward's input and output (see ``forward``)."""
        fin = first is not None and first.is_floating_point() and first.numel() > 0
        # A built-in loss over a non-finite output is non-finite, and the summary places a built-in loss's first
        # non-finite value at the activations: while ``w.step`` is given the loss every step, the loss already
        # says what the output's min and max would (one reduction a step saved). Not on sampled steps: a loss
        # that skips rows (ignore_index, padding, a mask) does not see a NaN there, so the output is still read.
        fout = out is not None and not (self._builtin_loss and run.loss_step == run.steps - 1
                                        and run.steps % run.update_every) \
            and out.is_floating_point() and out.numel() > 0
        d = input_digest(run, first) if fin else None
        if d is not None:
            if fout and first.device == out.device:
                run.record("nf:dio", (d, *torch.aminmax(out.detach())))
            else:
                run.record("nf:din", d)
                if fout:
                    run.record("nf:out", tuple(torch.aminmax(out.detach())))
            return
        if fin and fout and first.device == out.device:
            run.record("nf:io", (*torch.aminmax(first.detach() if first.requires_grad else first),
                                 *torch.aminmax(out.detach())))
        else:
            if fin:
                run.record("nf:in", tuple(torch.aminmax(first.detach())))
            if fout:
                run.record("nf:out", tuple(torch.aminmax(out.detach())))

    def accumulate(self, run: Any, window: Any) -> None:
        """Note the first step whose input or output held a non-finite value."""
        io, dio = window.get("nf:io"), window.get("nf:dio")
        # (the digest rides as its own min and max: one value, finite exactly when the input is)
        digests = [(s, (v[0], v[0])) for s, v in dio] + [(s, (v[0], v[0])) for s, v in window.get("nf:din")]
        digests += [(s, (v[0], v[0])) for s, v in window.get("nf:hin")]  # the host looks: 0 or NaN, as a digest
        for place, items in (("inputs", [(s, v[0:2]) for s, v in io] + window.get("nf:in") + digests),
                             ("activations", [(s, v[2:4]) for s, v in io] + [(s, v[1:3]) for s, v in dio]
                              + window.get("nf:out") + [(s, (v[0], v[0])) for s, v in window.get("nf:hout")])):
            if place in run.nonfinite_at or not items:
                continue
            # min + max of float32/16 values cannot overflow a double: a finite window sum means a clean window
            if not math.isfinite(sum(v[0] + v[1] for _, v in items)):
                run.nonfinite_at[place] = min(s for s, v in items if not math.isfinite(v[0] + v[1]))

    def escalate(self, run: Any) -> list[Any]:
        """Hook every sub-module for the next forward: the first one (in execution order) with a bad output."""
        bad = self._bad = []

        def make(name: str) -> Callable[..., None]:
            def hook(_m: torch.nn.Module, _inp: Any, out: Any) -> None:
                if not bad:
                    t = next(tensors_in(out), None)
                    if t is not None and t.is_floating_point() and t.numel() and not bool(torch.isfinite(t).all()):
                        bad.append(name)
            return hook

        return [mod.register_forward_hook(make(name)) for name, mod in run.model.named_modules() if name]

    def settle(self, run: Any) -> None:
        """Keep the module found."""
        self.module = self._bad[0] if self._bad else None

    def summarise(self, run: Any) -> list:
        """The earliest non-finite place and step."""
        if not run.nonfinite_at:
            return []
        from probes.config_lint import loss_name

        order = {k: i for i, k in enumerate(ORDER)}
        loc, step = min(run.nonfinite_at.items(), key=lambda c: (c[1], order[c[0]]))
        if loc == "loss" and run.loss_fn and loss_name(run.loss_fn) not in ("custom", ""):
            # A built-in loss on finite outputs overflows only on outputs out of range: the model's doing.
            loc = "activations"
        return observe(loc, step=step, module=self.module)

    def examine(self, ex: Any) -> list:
        """The earliest non-finite place the examination met, with the first bad module when the forward went bad."""
        where = earliest(ex.flags)
        if where == "loss" and ex.loss_kind != "custom":
            # A built-in loss is not the cause of a NaN from finite outputs and labels it was given: outputs out
            # of the range it can represent (an explosion) are.
            where = "activations"
        module = first_nonfinite_module(ex.model, ex.forward) if where in ("activations", "inputs", "weights") \
            else None
        return observe(where, step=ex.bad_step if where else None, module=module, flags=ex.flags)
