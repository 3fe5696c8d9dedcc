"""Hugging Face callback: ``Trainer(..., callbacks=[TrainoptCallback()])`` watches training and diagnoses it.

Needs ``pip install 'trainopt[hf]'``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from trainopt._boot import internal

internal("expert.extras").require("transformers", "trainopt.hf")

from transformers import TrainerCallback  # noqa: E402 - after the check that names the extra

from trainopt._callback import (  # noqa: E402
    DeferredHooks,
    any_rank,
    at_window_end,
    framework_work_done,
    metric_kwargs,
    save_report,
    should_stop,
    summary_metrics,
    unwrap_optimizer,
)
from trainopt._wiring import WINDOW  # noqa: E402 - the watch's own default window

log = logging.getLogger("trainopt.hf")


class TrainoptCallback(TrainerCallback):
    """Watch a ``transformers.Trainer`` run with trainopt's probes and write its diagnosis.

    The watch opens at ``on_train_begin`` over the ``model`` and ``optimizer`` the Trainer passes to callbacks.
    Gradients are read at ``on_pre_optimizer_step`` (the Trainer has clipped them by then; the unclipped norm
    is the ``grad_norm`` it logs), updates at ``on_optimizer_step``. Training losses come from ``on_log`` (the
    Trainer's averages over ``logging_steps``; with ``logging_nan_inf_filter`` on, NaN losses never reach the
    log, so non-finite values are caught on the model's outputs and gradients instead), evaluation metrics
    from ``on_evaluate``. A trip with a finding that needs action stops training through
    ``control.should_training_stop`` when ``stop_on_trip`` is set. At the end the diagnosis is appended to
    ``state.log_history`` (saved in ``trainer_state.json``) and written to ``trainopt_report.json`` / ``.md``
    in ``args.output_dir``. Under a multi-process launch (torchrun, accelerate) every process watches, so the
    watch compares the ranks once per window; only the world's main process writes reports, and every process
    votes at the same window end in one all-reduce, so ``control.should_training_stop`` is the same everywhere.

    Args:
        stop_on_trip: Stop training when a trip needs action and still holds after two windows.
        num_classes: For classification (loss at init vs chance).
        every: Optimizer steps per watch window (default ``WINDOW``, as ``watch``: one host read and one stop
            vote per window).
        consultation: Where observations go (a new ``trainopt.Consultation`` by default).

    Attributes:
        consultation: The consultation after training.
        diagnosis: The diagnosis (None before training ends or off the main process).
        stopped_at: The global step at which training was stopped, or None.
        report_paths: Files written to ``args.output_dir``.
    """

    def __init__(self, *, stop_on_trip: bool = False, num_classes: int | None = None, every: int = WINDOW,
                 consultation: Any = None) -> None:
        self.stop_on_trip, self.num_classes, self.every = stop_on_trip, num_classes, every
        self.consultation = consultation
        self.diagnosis: Any = None
        self.stopped_at: int | None = None
        self.report_paths: list[Path] = []
        self._watch: Any = None
        self._hooks: DeferredHooks | None = None
        self._loss: float | None = None
        self._model: Any = None
        self._training = True
        self._last_logged: float | None = None
        self._pending: dict[str, float] = {}

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, optimizer: Any = None,
                       **kwargs: Any) -> None:
        """Open the watch over the model and the (unwrapped) optimizer."""
        if model is None or optimizer is None:
            return
        if self.consultation is None:
            self.consultation = internal("expert.consultation").Consultation()
        self.consultation.observe(framework="hf")  # fixes are written as this framework says them
        self._hooks = DeferredHooks(unwrap_optimizer(optimizer))
        self._model, self._training = model, model.training
        self._watch = internal("probes.watcher").watch(model, self._hooks.proxy, consultation=self.consultation,
                                                       every=self.every, num_classes=self.num_classes)
        self._watch.__enter__()

    def on_pre_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Read the gradients the optimizer is about to apply."""
        if self._watch is not None:
            self._training = self._model.training
            self._hooks.pre()

    def on_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Measure the update just applied."""
        if self._watch is not None:
            self._hooks.post()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        """Record the step with the latest logged loss; stop training on a confirmed trip when asked."""
        if self._watch is None:
            return control
        loss, self._loss = self._loss, None
        metrics, self._pending = self._pending, {}
        self._watch.step(loss, **metrics)
        if self.stop_on_trip and self.stopped_at is None and at_window_end(self._watch, self.every):
            why = should_stop(self._watch, self.every)
            if any_rank(bool(why)):  # every process votes here, at the same step: one decision for all
                self.stopped_at = state.global_step
                control.should_training_stop = True
                if state.is_world_process_zero:
                    log.warning("trainopt: stopping training at step %d: %s", state.global_step,
                                why or "another rank's watch tripped")
        return control

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None,
               **kwargs: Any) -> None:
        """Keep the logged training loss for the next step."""
        if self._watch is None or not logs:
            return
        framework_work_done(self._watch)
        if "loss" in logs:
            try:
                loss = float(logs["loss"])
                grad_norm = float(logs["grad_norm"]) if logs.get("grad_norm") is not None else None
            except (TypeError, ValueError):
                return
            # the Trainer's NaN filter logs 0.0 (or an old mean) for a non-finite loss; trainopt logs reads the
            # saved trainer_state.json by the same rule, so both see the NaN at the same step
            self._loss = internal("probes.history").unfiltered_loss(loss, grad_norm)
            if self._loss == self._loss:
                self._last_logged = self._loss

    def on_evaluate(self, args: Any, state: Any, control: Any, metrics: dict[str, Any] | None = None,
                    **kwargs: Any) -> None:
        """Keep the evaluation metrics (eval_loss, eval_accuracy...) for the next step."""
        if self._watch is None or not metrics:
            return
        framework_work_done(self._watch)
        self._pending.update(metric_kwargs(metrics))
        if "val_loss" in self._pending and self._last_logged is not None:
            self._pending["train_loss"] = self._last_logged  # the gap between matching points

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """A checkpoint was written: that time was not spent waiting on data."""
        framework_work_done(self._watch)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Close the watch, diagnose, append the diagnosis to the log history and write the report files."""
        w, self._watch = self._watch, None
        if w is None:
            return
        # The Trainer's last evaluation leaves the model in eval mode; the watch judges the mode it trained in.
        now = self._model.training
        self._model.train(self._training)
        try:
            w.__exit__(None, None, None)
        finally:
            self._model.train(now)
        self.diagnosis = w.diagnosis if w.diagnosis is not None else self.consultation.run()
        d = self.diagnosis
        if not state.is_world_process_zero:
            return  # the main process writes the report
        state.log_history.append({**summary_metrics(d), "trainopt/status": d.status, "step": state.global_step})
        self.report_paths = save_report(self.consultation, args.output_dir)
        bad = [f"{f['id']} ({f['severity']}): {f['issue']}" for f in d.findings
               if f["severity"] in ("warning", "critical")]
        log.warning("trainopt: %s%s", d.status, (": " + "; ".join(bad)) if bad else "")
