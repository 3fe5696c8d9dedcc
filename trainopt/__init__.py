"""trainopt: a rule-based expert system that diagnoses PyTorch training problems (the public API).

Importing it is cheap (no torch, no engine): each name loads on first use. ``watch`` and ``examine`` need
PyTorch (``pip install 'trainopt[probes]'``); ``Consultation`` and the log reader do not.

Example:
    >>> import trainopt
    >>> c = trainopt.Consultation()
    >>> c.observe(symptom="unstable", loss_behavior="nan_or_inf")
    >>> c.run().status in ("needs_answer", "diagnosed")
    True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from trainopt._boot import ISOLATED, internal

__version__: str = internal("expert").__version__

__all__ = ["Consultation", "Observation", "TrainingTripped", "__version__", "examine", "plot", "read_log", "watch",
           "ISOLATED"]

if TYPE_CHECKING:  # what type checkers see; at run time the names resolve lazily (and clash-safe) below
    from expert.consultation import Consultation
    from expert.logs import read_log
    from knowledge.vocabulary import Observation
    from probes.exam import examine
    from probes.watcher import TrainingTripped
    from trainopt._plot import plot
    from trainopt._wiring import watch

_LAZY = {
    "Consultation": ("expert.consultation", None),
    "Observation": ("knowledge.vocabulary", None),
    "read_log": ("expert.logs", None),
    "plot": ("trainopt._plot", None),
    "watch": ("trainopt._wiring", "trainopt.watch"),
    "examine": ("probes.exam", "trainopt.examine"),
    "TrainingTripped": ("probes.watcher", "trainopt.TrainingTripped"),
}


def __getattr__(name: str) -> Any:
    try:
        module, needs_torch = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'trainopt' has no attribute {name!r}") from None
    if needs_torch:
        internal("expert.extras").require("torch", needs_torch)
    mod = importlib.import_module(module) if module.startswith("trainopt.") else internal(module)
    value = getattr(mod, name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
