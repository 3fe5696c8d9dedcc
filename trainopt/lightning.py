"""Lightning callback: ``trainer = Trainer(callbacks=[TrainoptCallback()])`` watches the fit and diagnoses it.

Needs ``pip install 'trainopt[lightning]'``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from trainopt._boot import internal

internal("expert.extras").require("lightning", "trainopt.lightning")

import lightning.pytorch as pl  # noqa: E402 - after the check that names the extra

from trainopt._callback import (  # noqa: E402
    DeferredHooks,
    at_window_end,
    framework_work_done,
    metric_kwargs,
    save_report,
    should_stop,
    summary_metrics,
    unwrap_optimizer,
)
from trainopt._wiring import WINDOW  # noqa: E402 - the watch's own default window

log = logging.getLogger("trainopt.lightning")


class TrainoptCallback(pl.Callback):
    """Watch a Lightning fit with trainopt's probes and write its diagnosis.

    The watch opens at ``on_fit_start`` over the LightningModule and its (first) optimizer. Gradients are read
    at ``on_before_optimizer_step``: after backward and the AMP unscale, before clipping; updates after the
    optimizer step. Each ``training_step`` loss is fed at ``on_train_batch_end``; validation metrics logged as
    ``val_loss``/``val_acc`` (any spelling trainopt recognises) are fed with the next training step. At the
    end of the fit, the diagnosis goes to the trainer's logger (``trainopt/*`` metrics, and the Markdown report
    as text where the logger takes text, e.g. TensorBoard) and to ``trainopt_report.json`` / ``.md`` in
    ``trainer.log_dir``. Under a multi-process strategy (DDP, FSDP) every rank watches, so the watch compares
    the ranks once per window; only global rank zero writes reports and logs, and the stop decision is the
    strategy's reduce of every rank's vote at the same window end (as ``EarlyStopping`` does), so all ranks stop
    at the same step.

    The forward hooks sit on the LightningModule: call ``self(x)`` in ``training_step``, or name the
    sub-module that does the forward pass with ``module="net"``.

    Args:
        stop_on_trip: Stop the trainer (``trainer.should_stop``) when a probe trips with a finding that needs
            action and the trip still holds at a window end after at least two windows (one short window of a
            noisy loss is not enough evidence to end a run).
        loss_fn: The loss function (enables the output/loss lint: softmax before cross-entropy...).
        num_classes: For classification (loss at init vs chance).
        every: Steps per watch window (default ``WINDOW``, as ``watch``: one host read and one stop vote per
            window).
        module: Attribute of the LightningModule to hook for forward passes (default: the module itself).
        consultation: Where observations go (a new ``trainopt.Consultation`` by default).

    Attributes:
        consultation: The consultation after the fit (``.report("markdown")``).
        diagnosis: The diagnosis (None before the fit ends or on ranks other than zero).
        stopped_at: The global step at which the callback stopped the trainer, or None.
        report_paths: Files written to ``trainer.log_dir``.
    """

    def __init__(self, *, stop_on_trip: bool = False, loss_fn: Any = None, num_classes: int | None = None,
                 every: int = WINDOW, module: str | None = None, consultation: Any = None) -> None:
        super().__init__()
        self.stop_on_trip, self.loss_fn, self.num_classes = stop_on_trip, loss_fn, num_classes
        self.every, self.module = every, module
        self.consultation = consultation
        self.diagnosis: Any = None
        self.stopped_at: int | None = None
        self.report_paths: list[Path] = []
        self._watch: Any = None
        self._hooks: DeferredHooks | None = None
        self._stepped = False
        self._pending: dict[str, float] = {}

    # ------------------------------------------------------------------ open / close

    def on_fit_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """Open the watch over the module and its first optimizer (on every rank: the ranks compare notes)."""
        if not trainer.optimizers:
            return
        if self.consultation is None:
            self.consultation = internal("expert.consultation").Consultation()
        self.consultation.observe(framework="lightning")  # fixes are written as this framework says them
        self._hooks = DeferredHooks(unwrap_optimizer(trainer.optimizers[0]))
        model = getattr(pl_module, self.module) if self.module else pl_module
        watch = internal("probes.watcher").watch
        self._watch = watch(model, self._hooks.proxy, consultation=self.consultation, every=self.every,
                            loss_fn=self.loss_fn, num_classes=self.num_classes)
        self._watch.__enter__()

    def _close(self, trainer: pl.Trainer, exc: BaseException | None = None) -> None:
        w, self._watch = self._watch, None
        if w is None:
            return
        w.__exit__(type(exc) if exc else None, exc, None)
        self.diagnosis = w.diagnosis if w.diagnosis is not None else self.consultation.run()
        # trainer.log_dir broadcasts rank 0's folder under DDP: a collective, so every rank asks for it here
        folder = trainer.log_dir or trainer.default_root_dir
        if trainer.is_global_zero:
            self._write(trainer, folder)

    def _write(self, trainer: pl.Trainer, folder: str) -> None:
        d = self.diagnosis
        for lg in trainer.loggers:
            try:
                lg.log_metrics(summary_metrics(d), step=trainer.global_step)
                add_text = getattr(getattr(lg, "experiment", None), "add_text", None)
                if callable(add_text):
                    add_text("trainopt/report", self.consultation.report("markdown"), trainer.global_step)
            except Exception as exc:  # noqa: BLE001 - a logger failing must not lose the report files
                log.warning("trainopt: could not write the diagnosis to %s: %s", type(lg).__name__, exc)
        self.report_paths = save_report(self.consultation, folder)
        bad = [f"{f['id']} ({f['severity']}): {f['issue']}" for f in d.findings
               if f["severity"] in ("warning", "critical")]
        log.warning("trainopt: %s%s", d.status, (": " + "; ".join(bad)) if bad else "")

    def on_fit_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """Close the watch, diagnose, write the report to the logger and ``trainer.log_dir``."""
        self._close(trainer)

    def on_exception(self, trainer: pl.Trainer, pl_module: pl.LightningModule, exception: BaseException) -> None:
        """Close the watch and write what was diagnosed so far."""
        self._close(trainer, exception)

    # ------------------------------------------------------------------ per step

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """Restart the data-wait clock: the previous epoch's end (validation, checkpoints) was not data loading.

        Lightning runs ModelCheckpoint after every other callback, so this is the first hook after it saves.
        """
        framework_work_done(self._watch)

    def on_before_optimizer_step(self, trainer: pl.Trainer, pl_module: pl.LightningModule, optimizer: Any) -> None:
        """Read gradients now: after backward and the AMP unscale, before clipping."""
        if self._watch is not None and unwrap_optimizer(optimizer) is self._hooks.optimizer:
            self._hooks.pre()
            self._stepped = True

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        """Record the step: updates after the optimizer step, the loss, pending validation metrics."""
        if self._watch is None:
            return
        if self._stepped:  # with gradient accumulation, only batches that stepped the optimizer
            self._hooks.post()
            self._stepped = False
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        metrics, self._pending = self._pending, {}
        if "val_loss" in metrics and loss is not None:
            metrics["train_loss"] = loss  # the gap is measured between matching points
        self._watch.step(loss, **metrics)
        if self.stop_on_trip and self.stopped_at is None and at_window_end(self._watch, self.every):
            why = should_stop(self._watch, self.every)
            # every rank votes at the same window end; the strategy's reduce makes it one decision (no-op alone)
            if trainer.strategy.reduce_boolean_decision(bool(why), all=False):
                self.stopped_at = trainer.global_step
                trainer.should_stop = True
                if trainer.is_global_zero:
                    log.warning("trainopt: stopping the fit at step %d: %s", trainer.global_step,
                                why or "another rank's watch tripped")

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """Keep the validation metrics for the next training step."""
        framework_work_done(self._watch)  # the validation loop's time is not data loading
        if self._watch is not None and not trainer.sanity_checking:
            self._pending.update(metric_kwargs(dict(trainer.callback_metrics)))
