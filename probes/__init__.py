"""Tensor probes: measure the live model, optimizer, data and loss, and hand the engine observations.

``examine`` is a one-shot examination that leaves everything as found; ``watch`` is an always-on context
manager for a training loop. Both are generic schedulers over the probe plugins listed in ``PLUGINS`` (the
protocol is in ``probes.base``): adding a probe is writing its file and listing its plugin in
``probes.registry``. This layer measures and imports only ``knowledge``: what diagnoses is handed in. Importing
this package is cheap; torch loads with the first use.
"""

from __future__ import annotations

from typing import Any

__all__ = ["examine", "watch", "PROBES", "PLUGINS", "plugins"]

from probes.registry import PLUGINS, PROBES, plugins


def __getattr__(name: str) -> Any:
    if name == "examine":
        from probes.exam import examine

        return examine
    if name == "watch":
        from probes.watcher import watch

        return watch
    raise AttributeError(name)
