"""What the public API wires together: the probes layer measures, the expert layer diagnoses."""

from __future__ import annotations

from typing import Any

from trainopt._boot import internal

WINDOW: int = internal("probes.base").WINDOW  # steps per window: one default for watch and the callbacks


def watch(model: Any, optimizer: Any, consultation: Any = None, every: int = WINDOW, on_trip: str = "log",
          **options: Any) -> Any:
    """Watch a training loop and diagnose it: ``probes.watch`` handed a ``Consultation`` (a new one when None).

    Call ``w.step(loss, **metrics)`` once per step; ``w.consultation.report()`` is the run's diagnosis. The
    arguments are ``probes.watcher.watch``'s (see there).

    Example:
        >>> with trainopt.watch(model, opt, loss_fn=loss_fn) as w:     # doctest: +SKIP
        ...     for x, y in loader:
        ...         opt.zero_grad(); loss = loss_fn(model(x), y); loss.backward(); opt.step()
        ...         w.step(loss)
        >>> print(w.consultation.report("text"))                       # doctest: +SKIP
    """
    if consultation is None:
        consultation = internal("expert.consultation").Consultation()
    return internal("probes.watcher").watch(model, optimizer, consultation, every, on_trip, **options)
