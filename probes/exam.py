"""One-shot examination: a few passes and optimizer steps on one batch, then everything restored as found.

``Exam`` runs the passes; the probe plugins (``probes.PLUGINS``) measure at its phases and give the
observations (see ``probes.base`` for the protocol).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from typing import Any

import torch

from knowledge.errors import InterruptedByUser, ProbeError, ScriptExitError
from knowledge.vocabulary import Observation
from probes import config_lint, nonfinite
from probes.base import ProbeInfo, emit, finite_or_none, merge, stored
from probes.registry import plugins
from probes.state import loss_state, restore, restore_loss_state, take


def _split(batch: Any) -> tuple[Any, Any]:
    if isinstance(batch, dict) and {"inputs", "targets"} <= set(batch):
        return batch["inputs"], batch["targets"]
    if isinstance(batch, (tuple, list)) and len(batch) == 2:
        return batch[0], batch[1]
    raise ProbeError("batch must be (inputs, targets) or {'inputs': ..., 'targets': ...}",
                     context=f"got {type(batch).__name__}", hint="pass one training batch as a pair")


def _call(model: torch.nn.Module, x: Any) -> Any:
    if isinstance(x, dict):
        return model(**x)
    if isinstance(x, (tuple, list)):
        return model(*x)
    return model(x)


class UserCodeError(ProbeError):
    """The user's model, loss, optimizer or script raised: a usage error (exit 2), not a trainopt bug.

    Attributes:
        call: Which of the user's calls failed (``model(inputs)``, ``loss_fn(output, targets)``...).
        frame: The traceback's last frame in the user's code (``file:line in function``), or None.
    """

    def __init__(self, call: str, exc: BaseException, hint: str = "") -> None:
        self.call, self.frame = call, last_user_frame(exc)
        where = f"; last frame in your code: {self.frame}" if self.frame else ""
        super().__init__(f"your {call} raised {type(exc).__name__}: {exc}", context=f"while trainopt ran {call}{where}",
                         hint=hint or "run the same call outside trainopt to reproduce it; trainopt restored "
                                      "the model, optimizer and RNGs")


def last_user_frame(exc: BaseException) -> str | None:
    """The deepest traceback frame outside torch, trainopt's probes and the standard library."""
    import os
    import sysconfig
    import traceback

    skip = [os.path.dirname(torch.__file__), os.path.dirname(os.path.abspath(__file__)),
            sysconfig.get_paths()["stdlib"]]
    frames = traceback.extract_tb(exc.__traceback__)
    # "<frozen _sitebuiltins>" (exit()) and other synthetic frames are not the user's code either.
    user = [f for f in frames if not f.filename.startswith("<frozen")
            and not any(os.path.abspath(f.filename).startswith(d) for d in skip)]
    if not user:
        return None
    f = user[-1]
    return f"{f.filename}:{f.lineno} in {f.name}"


def user_call(call: str, fn: Callable[..., Any], *args: Any, hint: str = "", **kwargs: Any) -> Any:
    """Run one of the user's calls; whatever it raises becomes a ``UserCodeError`` naming the call."""
    try:
        return fn(*args, **kwargs)
    except ProbeError:
        raise
    except SystemExit as exc:
        # The script ended the process before anything was examined: its own exit code, never a silent 0.
        frame = last_user_frame(exc)
        raise ScriptExitError(f"your {call} called sys.exit({exc.code!r}) before trainopt could examine anything",
                              context="while trainopt ran " + call + (f"; at {frame}" if frame else ""),
                              hint="guard the script's entry point with `if __name__ == \"__main__\":` (trainopt runs "
                                   "it as __trainopt__), or move sys.exit out of trainopt_target()") from None
    except KeyboardInterrupt:
        raise InterruptedByUser(f"interrupted while trainopt ran your {call}",
                                hint="run `trainopt examine` again to examine the script") from None
    except Exception as exc:  # noqa: BLE001 - any error in the user's code is reported as theirs (exit 2)
        raise UserCodeError(call, exc, hint) from exc


def check_batch(x: Any, y: Any) -> None:
    """Refuse a batch that cannot be trained on: no tensor, an empty batch, inputs and targets of unequal length.

    Raises:
        ProbeError: With what was found and what a batch should look like.
    """
    xs = list(nonfinite.tensors_in(x))
    if not xs:
        raise ProbeError("the batch's inputs hold no tensor", context=f"got {type(x).__name__}",
                         hint="pass (inputs, targets) with tensor inputs")
    for t in xs + list(nonfinite.tensors_in(y)):
        if t.numel() == 0 or (t.ndim and t.shape[0] == 0):
            raise ProbeError("the batch is empty: there is nothing to train on",
                             context=f"a tensor of shape {tuple(t.shape)}",
                             hint="check the dataset length, the sampler and drop_last")
    if isinstance(y, torch.Tensor) and y.ndim and xs[0].ndim and y.shape[0] != xs[0].shape[0]:
        raise ProbeError("inputs and targets hold different numbers of examples",
                         context=f"inputs {tuple(xs[0].shape)}, targets {tuple(y.shape)}",
                         hint="the first dimension of both is the batch")


def _needs_closure(optimizer: Any) -> bool:
    import inspect

    try:
        p = inspect.signature(optimizer.step).parameters.get("closure")
    except (TypeError, ValueError):
        return False
    return p is not None and p.default is inspect.Parameter.empty


def check_target(model: Any, loss_fn: Any = None) -> list[torch.nn.Parameter]:
    """Refuse what cannot be probed, with a clear error; return the parameters.

    Raises:
        ProbeError: Not a module, no parameters, parameters on the meta device, or a loss that is not callable.
    """
    if not isinstance(model, torch.nn.Module):
        raise ProbeError(f"expected a torch.nn.Module, got {type(model).__name__}", hint="pass the model object")
    params = list(model.parameters())
    quantised = [n for n, m in model.named_modules() if ".quantized" in type(m).__module__]
    quantised = [n for n in quantised if not any(n.startswith(f"{q}.") for q in quantised if q != n and q)]
    if not params:
        if quantised:
            raise ProbeError("the model is quantised: its weights are packed, not parameters, and cannot be probed",
                             context=f"{len(quantised)} quantised module(s), e.g. {quantised[0] or 'the model'}",
                             hint="examine the float model before quantisation (or the QAT model while training)")
        raise ProbeError("the model has no parameters: there is nothing to train or probe",
                         context=type(model).__name__, hint="check that layers are registered as sub-modules")
    lazy = [n for n, p in model.named_parameters() if isinstance(p, torch.nn.parameter.UninitializedParameter)]
    if lazy:
        # A lazy module (LazyLinear, LazyConv2d...) has no shape until its first forward; probing it would
        # have to run that forward and change the model for good.
        raise ProbeError("the model has lazy parameters that are not initialised yet",
                         context=f"{len(lazy)} uninitialised parameter(s), e.g. {lazy[0]}",
                         hint="run one forward pass first (model(inputs)), then examine or watch it")
    meta = [n for n, p in model.named_parameters() if p.is_meta]
    if meta:
        raise ProbeError("parameters on the meta device hold no values and cannot be probed",
                         context=f"{len(meta)} meta parameter(s), e.g. {meta[0]}",
                         hint="materialize the model first (model.to_empty(device=...) and load weights)")
    if loss_fn is not None and not callable(loss_fn):
        raise ProbeError("loss_fn must be callable as loss_fn(output, target)")
    if quantised:
        import warnings

        # A float head on a quantised backbone trains: its parameters are measured, the packed weights not.
        warnings.warn(f"trainopt: {len(quantised)} quantised module(s) ({quantised[0]}...) hold packed weights, "
                      "not parameters: they are not measured (only the float parameters are)", RuntimeWarning,
                      stacklevel=3)
    return params


def _first_tensor(x: Any) -> torch.Tensor | None:
    return next(iter(nonfinite.tensors_in(x)), None)


def _no_grads(params: Iterable[torch.nn.Parameter]) -> None:
    for p in params:
        p.grad = None


def examine(model: torch.nn.Module, loss_fn: Callable[[Any, Any], torch.Tensor], batch: Any, optimizer: Any = None,
            *, num_classes: int | None = None, steps: int = 3, val_batch: Any = None,
            loader: Iterable[Any] | None = None,
            scheduler: Any = None, scaler: Any = None, at_init: bool | None = None,
            probes: list[type] | None = None, clip_norm: float | None = None) -> list[Observation]:
    """Examine a model, its loss, one batch and the optimizer; return observations (provenance ``probe:<id>``).

    Everything is restored afterwards: parameters, buffers, gradients, optimizer state, hyperparameters and
    private flags (attributes a scheduler sets, such as ``_opt_called``, are removed again), ``requires_grad``,
    train/eval modes, GradScaler attributes, the Python-side state reachable from every module, at any depth
    (counters, caches and histories in nested containers and helper objects, old-style ``weight_norm``'s
    derived ``weight``, generators; what cannot be copied is named in a RuntimeWarning), a loader's
    generators and the torch CPU/CUDA, numpy and ``random`` RNGs. What cannot be restored is what a ``loader``
    yields: examine draws up to ``throughput.LOADER_BATCHES`` (5) batches from a fresh ``iter(loader)``, so a
    generator or a one-shot iterator loses those batches. The scheduler is read, never
    stepped. Errors raised by the user's model, loss or optimizer become ``UserCodeError`` (exit 2), naming the
    call and the last frame in the user's code.

    Args:
        model: The model.
        loss_fn: ``loss_fn(output, target) -> scalar tensor``.
        batch: ``(inputs, targets)``; inputs may be a tensor, a tuple (positional) or a dict (keywords).
        optimizer: The optimizer; without it the update-ratio probe is skipped.
        num_classes: Classes for the chance-level checks (inferred from a cross-entropy output when omitted).
        steps: Optimizer steps taken (then undone) to measure update ratios and gradient trends.
        val_batch: A validation batch, for the generalization gap.
        loader: A data loader, timed for a few batches against compute.
        scheduler: The LR scheduler, for the schedule/warmup lint.
        scaler: The GradScaler, if any.
        at_init: Whether the model is untrained (default: no optimizer state and no gradients yet).
        probes: Plugin classes to run (default: ``probes.plugins()``, every listed probe).
        clip_norm: The ``max_norm`` your loop clips gradients to, if it clips: the examination's steps clip the
            same way, so the update it measures is the one your loop applies (it cannot see your loop).

    Returns:
        Observations, one per name.

    Raises:
        ProbeError: Nothing probeable (no parameters, meta tensors, malformed, empty or mismatched batch, empty
            loader).
        UserCodeError: The model, loss or optimizer raised.
    """
    params = check_target(model, loss_fn)
    if loss_fn is None:
        raise ProbeError("examine needs loss_fn(output, target)")
    x, y = _split(batch)
    check_batch(x, y)
    if steps < 0:
        raise ProbeError("steps must be >= 0")
    snap = take(model, optimizer, scaler, loader)
    saved_loss = loss_state(loss_fn)  # a stateful loss module (counters, buffers) is left as found too
    if snap.notes:
        import warnings

        for note in snap.notes:  # said before anything runs, so it stands even if the examination fails
            warnings.warn(f"trainopt examine: {note}", RuntimeWarning, stacklevel=2)
    try:
        ex = Exam(model, params, loss_fn, x, y, optimizer, num_classes, steps, val_batch, loader, scheduler,
                  scaler, at_init, [c() for c in (plugins() if probes is None else probes)])
        ex.clip_norm = clip_norm
        return ex.run()
    finally:
        restore(snap, optimizer, scaler)
        restore_loss_state(saved_loss)


SCOPE = ProbeInfo("exam", "free", "static", ("probe_scope",))


def scope() -> Observation:
    """The examination's own observation: it saw one batch at one moment (the loop's faults need watch)."""
    return emit(SCOPE, "probe_scope", "one_batch",
                {"not_seen": ["gradient accumulation", "zero_grad and step placement", "the LR schedule's course",
                              "batch order", "label pairing across the data", "loss and gradient history"]})


class Exam:
    """The one-shot examination: a generic scheduler over the probe plugins (``probes.PLUGINS``).

    It runs the examination passes (one forward and loss, one backward, then up to ``steps`` optimizer steps
    on the batch, each followed by a forward, loss and backward) and stops stepping at the first non-finite
    output, loss, gradient or weight. Plugins hook in at its phases, each receiving this object:
    ``prepare`` (before anything runs: weights as found), ``after_forward`` (the first forward and loss are in
    ``output``/``loss_value``), ``after_backward(i)`` (``named`` gradients of the batch; a plugin may set
    ``flags[place] = False`` to stop the stepping there), ``before_step(i)`` / ``after_step(i)`` around each
    optimizer step, and ``examine`` (their observations). ``examine`` restores everything afterwards.
    """

    def __init__(self, model: torch.nn.Module, params: list[torch.nn.Parameter], loss_fn: Any, x: Any, y: Any,
                 optimizer: Any, num_classes: int | None, steps: int, val_batch: Any, loader: Any, scheduler: Any,
                 scaler: Any, at_init: bool | None, plugins: list[Any]) -> None:
        self.model, self.params, self.loss_fn, self.x, self.y = model, params, loss_fn, x, y
        self.optimizer, self.num_classes, self.steps, self.val_batch = optimizer, num_classes, steps, val_batch
        self.loader, self.scheduler, self.scaler, self.at_init = loader, scheduler, scaler, at_init
        self.clip_norm: float | None = None  # the max_norm the user's loop clips to (examine cannot see the loop)
        self.pre_clip: list[float] = []  # the gradient norms its steps clipped from
        self.probes = plugins
        self.device = params[0].device
        self.flags: dict[str, bool] = {}
        self.bad_step: int | None = None
        self.output: Any = None
        self.output_tensor: torch.Tensor | None = None
        self.loss_value: float = math.nan
        self.losses: list[float] = []
        self.loss_name = config_lint.loss_name(loss_fn)
        self.behaves_as: str | None = None
        self.loss_kind = self.loss_name
        self.classification = False
        self.batch_size: int | None = None
        self.trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
        self.existing = {n for n, p in model.named_parameters() if p.grad is not None}
        self.named: list[tuple[str, torch.Tensor]] = []
        self.no_grad: list[str] = []
        self.opt_params: list[torch.nn.Parameter] = []
        self.upd_names: list[str] = []
        self.step_s: list[float] = []

    # what plugins call
    @staticmethod
    def split(batch: Any) -> tuple[Any, Any]:
        """(inputs, targets) of a batch."""
        return _split(batch)

    def call_model(self, inputs: Any, call: str = "model(inputs)") -> Any:
        """Run the user's model on ``inputs``; an error is the user's (``UserCodeError`` naming ``call``)."""
        return user_call(call, _call, self.model, inputs)

    def forward(self) -> Any:
        """The model on the examined batch's inputs."""
        return self.call_model(self.x)

    def loss_of(self, out: Any) -> torch.Tensor:
        """The user's loss of ``out`` against the batch's targets, checked to be a scalar tensor."""
        hint = ("the model returns a " + type(out).__name__ + "; give examine a loss_fn that takes that output "
                "(e.g. lambda out, y: criterion(out[0], y))") if not isinstance(out, torch.Tensor) else ""
        loss = user_call("loss_fn(output, targets)", self.loss_fn, out, self.y, hint=hint)
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise ProbeError("loss_fn must return a scalar tensor", context=f"got {type(loss).__name__}"
                             + (f" of shape {tuple(loss.shape)}" if isinstance(loss, torch.Tensor) else ""),
                             hint="reduce the loss with .mean() or .sum()")
        return loss

    def _phase(self, name: str, *args: Any) -> None:
        for p in self.probes:
            fn = getattr(p, name, None)
            if fn is not None:
                fn(self, *args)

    def run(self) -> list[Observation]:
        """Run the passes and the plugins; return the merged observations."""
        model, params, optimizer, x, y = self.model, self.params, self.optimizer, self.x, self.y
        self.flags = nonfinite.scan_static(x, y, model, optimizer)
        if self.at_init is None:
            # untrained: no optimizer state yet and no gradient left by a previous backward pass
            self.at_init = (optimizer is None or len(optimizer.state) == 0) and all(p.grad is None for p in params)
        self._phase("prepare")

        _no_grads(params)
        t0 = time.perf_counter()
        with torch.enable_grad():
            out = self.forward()
            loss = self.loss_of(out)
        lv = float(loss.detach())
        out_t = _first_tensor(out)
        self.output, self.output_tensor, self.loss_value, self.losses = out, out_t, lv, [lv]
        self.flags["activations"] = nonfinite.all_finite(out)
        self.flags["loss"] = finite_or_none(lv) is not None
        self.classification = isinstance(out_t, torch.Tensor) and out_t.ndim == 2 and isinstance(y, torch.Tensor) \
            and not y.is_floating_point() and y.ndim == 1
        if self.loss_name == "custom":
            self.behaves_as = config_lint.identify_loss(self.loss_fn, out_t, y, lv)
        self.loss_kind = self.behaves_as or self.loss_name
        # classes are dimension 1 of any (N, C, ...) layout a cross-entropy reads against class-index targets
        # (a sequence's (N, C, T) logits, a segmentation map's (N, C, H, W))
        dense = isinstance(out_t, torch.Tensor) and out_t.ndim >= 3 and isinstance(y, torch.Tensor) \
            and not y.is_floating_point() and y.ndim == out_t.ndim - 1
        if self.num_classes is None and (self.classification or dense) \
                and self.loss_kind in ("cross_entropy", "nll"):
            self.num_classes = int(out_t.shape[1])
        self.batch_size = int(out_t.shape[0]) if isinstance(out_t, torch.Tensor) and out_t.ndim >= 1 else None
        self._phase("after_forward")

        self.bad_step = None if all(self.flags.values()) else 0
        if self.flags["loss"] and loss.requires_grad:
            user_call("loss.backward()", loss.backward)
            self.step_s.append(time.perf_counter() - t0)
            self.named = [(n, stored(p.grad)) for n, p in self.trainable if p.grad is not None]
            self.no_grad = [n for n, p in self.trainable if p.grad is None]
            self._phase("after_backward", 0)
            if "gradients" in self.flags and not self.flags["gradients"] and self.bad_step is None:
                self.bad_step = 0
            if optimizer is not None and self.flags.get("gradients", False):
                self._step_through()
        return merge([*(p.examine(self) for p in self.probes), [scope()]])

    def _step_through(self) -> None:
        """Optimizer steps on the batch (undone by the restore), stopping at the first non-finite value."""
        optimizer, params, flags = self.optimizer, self.params, self.flags
        self.opt_params = [p for g in optimizer.param_groups for p in g["params"] if p.requires_grad]
        opt_names = {id(p): n for n, p in self.model.named_parameters()}
        self.upd_names = [opt_names.get(id(p), "?") for p in self.opt_params]
        closure = None
        if _needs_closure(optimizer):
            def closure() -> torch.Tensor:  # LBFGS and friends re-evaluate the loss themselves
                _no_grads(params)
                with torch.enable_grad():
                    li = self.loss_of(self.forward())
                    li.backward()
                return li
        for i in range(self.steps):
            t1 = time.perf_counter()
            self._phase("before_step", i)
            if self.clip_norm is not None and closure is None:
                # the step the user's loop takes: its gradients clipped to max_norm first
                self.pre_clip.append(float(torch.nn.utils.clip_grad_norm_(self.opt_params, self.clip_norm)))
            user_call("optimizer.step()", optimizer.step, *(() if closure is None else (closure,)))
            self._phase("after_step", i)
            if not all(nonfinite.all_finite(p) for p in self.opt_params):
                flags["weights"] = False
                self.bad_step = i + 1 if self.bad_step is None else self.bad_step
                break
            if i == self.steps - 1:
                self.step_s.append(time.perf_counter() - t1)
                break
            _no_grads(params)
            with torch.enable_grad():
                oi = self.forward()
                li = self.loss_of(oi)
            self.losses.append(float(li.detach()))
            if not nonfinite.all_finite(oi):
                flags["activations"] = False  # the model's output went bad after an update: not the loss
                self.bad_step = i + 1 if self.bad_step is None else self.bad_step
                break
            if finite_or_none(self.losses[-1]) is None:
                flags["loss"] = False
                self.bad_step = i + 1 if self.bad_step is None else self.bad_step
                break
            user_call("loss.backward()", li.backward)
            self._phase("after_backward", i + 1)
            if not flags.get("gradients", True):
                self.bad_step = i + 1 if self.bad_step is None else self.bad_step
                break
            self.step_s.append(time.perf_counter() - t1)
        flags["weights"] = flags["weights"] and all(nonfinite.all_finite(p) for p in params)
        flags["optimizer_state"] = flags["optimizer_state"] and all(
            nonfinite.all_finite(s) for s in optimizer.state.values())
