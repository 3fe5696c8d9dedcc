"""Optional dependencies: which extra brings which module, and a clear error naming it when one is missing.

The core (``consult``, ``diagnose``, ``explain``, ``logs``) needs none of them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from knowledge.errors import TrainoptError

EXTRA_FOR: dict[str, str] = {
    "torch": "probes",
    "lightning": "lightning",
    "pytorch_lightning": "lightning",
    "transformers": "hf",
    "accelerate": "hf",
    "tensorboard": "tensorboard",
    "matplotlib": "plot",
    "jsonschema": "dev",
}
"""Top-level module -> the extra that installs it."""


class MissingExtraError(TrainoptError, ImportError):
    """A feature needs an optional dependency that is not installed."""

    def __init__(self, module: str, feature: str) -> None:
        extra = EXTRA_FOR.get(module, "all")
        super().__init__(f"{feature} needs {module}, which is not installed",
                         context=f"{module} comes with the [{extra}] extra",
                         hint=f"pip install 'trainopt[{extra}]'")
        self.name = module
        self.extra = extra


def require(module: str, feature: str) -> ModuleType:
    """Import an optional dependency or say which extra brings it.

    Args:
        module: Top-level module name (``torch``, ``matplotlib``...).
        feature: What needs it, in words (``trainopt.watch``, ``--plot``).

    Raises:
        MissingExtraError: The module is not installed (exit code 2 on the command line).
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == module.split(".")[0]:
            raise MissingExtraError(module.split(".")[0], feature) from None
        raise


def missing_extra(exc: BaseException, feature: str) -> MissingExtraError | None:
    """Turn a ``ModuleNotFoundError`` for an optional dependency into a ``MissingExtraError`` (None otherwise)."""
    name = getattr(exc, "name", None)
    if isinstance(exc, ModuleNotFoundError) and name and name.split(".")[0] in EXTRA_FOR:
        return MissingExtraError(name.split(".")[0], feature)
    return None
