"""trainopt's expert system: vocabulary, engine, consultation, report.

Importing this package is cheap (no torch, no experta): the names below load on first use.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Consultation", "Observation", "__version__"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "Consultation":
        from expert.consultation import Consultation

        return Consultation
    if name == "Observation":
        from knowledge.vocabulary import Observation

        return Observation
    raise AttributeError(name)
