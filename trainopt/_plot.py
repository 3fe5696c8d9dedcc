"""``trainopt.plot``: one call to draw a log file, a read log, or a watched run (needs ``trainopt[plot]``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from trainopt._boot import internal


def plot(what: Any, out: str | os.PathLike[str], **options: Any) -> Path:
    """Draw loss and validation curves with the detected regimes marked, and save the picture.

    Args:
        what: A log path, a ``LogRun`` (``trainopt.read_log``), or a finished ``trainopt.watch`` (its loss and
            metric histories).
        out: Output image (``.png``, ``.svg``, ``.pdf``).
        **options: ``mapping`` for a log path ({role: column}); ``title``.

    Returns:
        The path written.
    """
    logs = internal("expert.logs")
    status = None
    if isinstance(what, (str, os.PathLike)):
        run = logs.read_log(what, mapping=options.pop("mapping", None))
    elif isinstance(what, logs.LogRun):
        run = what
    elif hasattr(what, "optimizer") and hasattr(what, "step"):  # a watch
        # The watch keeps bounded host-side histories, updated at each window end.
        steps, losses = what.loss_history
        metrics = what.metric_history
        if not losses:
            raise internal("knowledge.errors").InputError("the watch recorded no loss yet",
                                                       hint="plot after the `with watch(...)` block")
        run = logs.LogRun.from_history(losses, name="watch", steps=steps,
                                       metrics={k: v for k, v in metrics.items() if v})
        status = what.diagnosis.status if getattr(what, "diagnosis", None) is not None else None
    else:
        raise TypeError(f"cannot plot a {type(what).__name__}: give a log path, a LogRun or a watch")
    return internal("expert.plot").plot_run(run, out, status=status, **options)
