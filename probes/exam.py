"""One-shot examination: a few passes and optimizer steps on one batch, then everything restored as found."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import torch

from expert.errors import ProbeError
from expert.vocabulary import Observation
from probes import activations, config_lint, generalization, grad_flow, loss_init, nonfinite, throughput, update_ratio
from probes.base import finite_or_none, merge
from probes.state import restore, take

LOADER_BATCHES = 5


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


def check_target(model: Any, loss_fn: Any = None) -> list[torch.nn.Parameter]:
    """Refuse what cannot be probed, with a clear error; return the parameters.

    Raises:
        ProbeError: Not a module, no parameters, parameters on the meta device, or a loss that is not callable.
    """
    if not isinstance(model, torch.nn.Module):
        raise ProbeError(f"expected a torch.nn.Module, got {type(model).__name__}", hint="pass the model object")
    params = list(model.parameters())
    if not params:
        raise ProbeError("the model has no parameters: there is nothing to train or probe",
                         context=type(model).__name__, hint="check that layers are registered as sub-modules")
    meta = [n for n, p in model.named_parameters() if p.is_meta]
    if meta:
        raise ProbeError("parameters on the meta device hold no values and cannot be probed",
                         context=f"{len(meta)} meta parameter(s), e.g. {meta[0]}",
                         hint="materialize the model first (model.to_empty(device=...) and load weights)")
    if loss_fn is not None and not callable(loss_fn):
        raise ProbeError("loss_fn must be callable as loss_fn(output, target)")
    return params


def _first_tensor(x: Any) -> torch.Tensor | None:
    return next(iter(nonfinite.tensors_in(x)), None)


def _accuracy(out: Any, y: Any) -> float | None:
    if not (isinstance(out, torch.Tensor) and isinstance(y, torch.Tensor)) or out.ndim != 2 or out.shape[1] < 2:
        return None
    if y.dtype not in (torch.int64, torch.int32, torch.int16, torch.uint8) or y.shape != out.shape[:1]:
        return None
    return float((out.argmax(1) == y).float().mean())


def _no_grads(params: Iterable[torch.nn.Parameter]) -> None:
    for p in params:
        p.grad = None


def examine(model: torch.nn.Module, loss_fn: Callable[[Any, Any], torch.Tensor], batch: Any, optimizer: Any = None,
            *, num_classes: int | None = None, steps: int = 3, val_batch: Any = None,
            loader: Iterable[Any] | None = None,
            scheduler: Any = None, scaler: Any = None, at_init: bool | None = None) -> list[Observation]:
    """Examine a model, its loss, one batch and the optimizer; return observations (provenance ``probe:<id>``).

    Everything is restored afterwards: parameters, buffers, gradients, optimizer state and hyperparameters,
    ``requires_grad``, train/eval modes, GradScaler attributes and the torch CPU/CUDA, numpy and ``random`` RNGs.

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

    Returns:
        Observations, one per name.

    Raises:
        ProbeError: Nothing probeable (no parameters, meta tensors, malformed batch, empty loader).
    """
    params = check_target(model, loss_fn)
    if loss_fn is None:
        raise ProbeError("examine needs loss_fn(output, target)")
    x, y = _split(batch)
    if steps < 0:
        raise ProbeError("steps must be >= 0")
    snap = take(model, optimizer, scaler)
    try:
        return _examine(model, params, loss_fn, x, y, optimizer, num_classes, steps, val_batch, loader, scheduler,
                        scaler, at_init)
    finally:
        restore(snap, optimizer, scaler)


def _examine(model: torch.nn.Module, params: list[torch.nn.Parameter], loss_fn: Any, x: Any, y: Any, optimizer: Any,
             num_classes: int | None, steps: int, val_batch: Any, loader: Any, scheduler: Any, scaler: Any,
             at_init: bool | None) -> list[Observation]:
    groups: list[list[Observation]] = []
    dev = params[0].device
    struct = grad_flow.structure(model, optimizer)
    flags = nonfinite.scan_static(x, y, model, optimizer)
    if at_init is None:
        # untrained: no optimizer state yet and no gradient left by a previous backward pass
        at_init = (optimizer is None or len(optimizer.state) == 0) and all(p.grad is None for p in params)
    existing = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
    fwd = lambda: _call(model, x)  # noqa: E731 - a thunk for the hook-based probes

    # activation health (one hooked pass, no grad)
    try:
        stats = activations.measure(model, fwd)
    except Exception as exc:  # noqa: BLE001 - a forward that fails is reported below with context
        raise ProbeError(f"the model's forward pass failed: {type(exc).__name__}: {exc}",
                         hint="check that the batch matches the model's input") from exc

    _no_grads(params)
    t0 = time.perf_counter()
    with torch.enable_grad():
        out = fwd()
        loss = loss_fn(out, y)
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        raise ProbeError("loss_fn must return a scalar tensor", context=f"got {type(loss).__name__}")
    lv = float(loss.detach())
    out_t = _first_tensor(out)
    flags["activations"] = nonfinite.all_finite(out)
    flags["loss"] = finite_or_none(lv) is not None
    classification = isinstance(out_t, torch.Tensor) and out_t.ndim == 2 and isinstance(y, torch.Tensor) \
        and not y.is_floating_point() and y.ndim == 1
    if num_classes is None and classification and config_lint.loss_name(loss_fn) in ("cross_entropy", "nll"):
        num_classes = int(out_t.shape[1])
    bs = int(out_t.shape[0]) if isinstance(out_t, torch.Tensor) and out_t.ndim >= 1 else None

    # generalization: the weights as found (backward changed only .grad), eval mode, no grad
    if val_batch is not None:
        vx, vy = _split(val_batch)
        modes = [(m, m.training) for m in model.modules()]
        try:
            model.eval()
            with torch.no_grad():
                va = _accuracy(_call(model, vx), vy)
                ta = _accuracy(_call(model, x), y)
        finally:
            for m, t in modes:
                m.training = t
        if va is not None and ta is not None:
            groups.append(generalization.observe(train_acc=[ta], val_acc=[va], num_classes=num_classes))

    norms_per_step: list[float] = []
    upd: list[list[float]] = []
    per_param: dict[str, float] = {}
    ratio = None
    underflow = None
    no_grad: list[str] = []
    carry = None
    losses = [lv]
    step_s: list[float] = []
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if flags["loss"] and loss.requires_grad:
        loss.backward()
        step_s.append(time.perf_counter() - t0)
        named = [(n, p.grad) for n, p in trainable if p.grad is not None]
        no_grad = [n for n, p in trainable if p.grad is None]
        if named:
            pn = grad_flow.norms([g for _, g in named])
            per_param = dict(zip([n for n, _ in named], pn.tolist()))
            norms_per_step.append(float(grad_flow.global_norm(pn)))
            ratio = grad_flow.layer_ratio(named, pn)
            uf = grad_flow.underflow_fraction([g for _, g in named])
            underflow = None if uf is None else float(uf)
            flags["gradients"] = all(nonfinite.all_finite(g) for _, g in named)
            both = [n for n, _ in named if n in existing]
            if both:
                old = torch.linalg.vector_norm(grad_flow.norms([existing[n] for n in both]))
                new = torch.linalg.vector_norm(torch.stack([torch.tensor(per_param[n]) for n in both]))
                carry = max(0.0, float(old) / max(float(new), 1e-30) - 1.0)
            else:
                carry = 0.0
        # optimizer steps on this batch (undone by the restore)
        if optimizer is not None and flags.get("gradients", False):
            opt_params = [p for g in optimizer.param_groups for p in g["params"] if p.requires_grad]
            opt_names = {id(p): n for n, p in model.named_parameters()}
            for i in range(steps):
                t1 = time.perf_counter()
                before = [p.detach().clone() for p in opt_params]
                optimizer.step()
                upd.append(update_ratio.ratios(before, opt_params).tolist())
                if i == steps - 1:
                    step_s.append(time.perf_counter() - t1)
                    break
                _no_grads(params)
                with torch.enable_grad():
                    li = loss_fn(fwd(), y)
                losses.append(float(li.detach()))
                if finite_or_none(losses[-1]) is None:
                    flags["loss"] = False
                    break
                li.backward()
                gl = [p.grad for _, p in trainable if p.grad is not None]
                norms_per_step.append(float(grad_flow.global_norm(grad_flow.norms(gl))))
                step_s.append(time.perf_counter() - t1)
            flags["weights"] = flags["weights"] and all(nonfinite.all_finite(p) for p in params)
            flags["optimizer_state"] = flags["optimizer_state"] and all(
                nonfinite.all_finite(s) for s in optimizer.state.values())
            upd_names = [opt_names.get(id(p), "?") for p in opt_params]
            if upd:
                import warnings

                import numpy as np

                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore", RuntimeWarning)
                    per_layer = np.nanmedian(np.asarray(upd, dtype=np.float64), axis=0) if len(upd) > 1 \
                        else np.asarray(upd[0], dtype=np.float64)
                groups.append(update_ratio.observe(update_ratio.summarize(per_layer.tolist(), upd_names)))

    # non-finite: earliest place, with the first module when the forward output went bad
    where = nonfinite.earliest(flags)
    module = None
    if where in ("activations", "inputs", "weights"):
        module = nonfinite.first_nonfinite_module(model, fwd)
    groups.insert(0, nonfinite.observe(where, step=0 if where else None, module=module, flags=flags))

    groups.append(config_lint.observe(model=model, optimizer=optimizer, loss_fn=loss_fn, scheduler=scheduler,
                                      scaler=scaler, output=out_t, inputs=_first_tensor(x), carryover=carry,
                                      batch_size=bs, device_type=dev.type, classification=classification))
    groups.append(loss_init.observe(loss_init.check(lv, num_classes, config_lint.loss_name(loss_fn), at_init),
                                    num_classes))
    groups.append(grad_flow.observe(struct=struct | ({"missing_from_optimizer": None} if optimizer is None else {}),
                                    per_param=per_param, no_grad=no_grad, global_norms=norms_per_step, ratio=ratio,
                                    underflow=underflow))
    groups.append(activations.observe(stats))
    if loader is not None:
        import statistics

        # median step: the first pass carries one-time costs (allocations, lazy optimizer state)
        groups.append(_time_loader(loader, statistics.median(step_s) if step_s else 0.0, dev))
    return merge(groups)


def _time_loader(loader: Iterable[Any], compute_per_step: float, device: torch.device) -> list[Observation]:
    it = iter(loader)
    data_s, n = 0.0, 0
    for _ in range(LOADER_BATCHES):
        t = time.perf_counter()
        try:
            next(it)
        except StopIteration:
            break
        data_s += time.perf_counter() - t
        n += 1
    if n == 0:
        raise ProbeError("the loader yielded no batches", hint="check the dataset length and drop_last")
    return throughput.observe(data_s, compute_per_step * n, n, device)
