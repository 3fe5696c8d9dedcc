"""Conditions of the knowledge's own, beyond the schema's generic ones, kept out of the family modules.

Why here: the stored knowledge and the stored engine (``expert.stored``, ``expert.kb``) name a condition's class,
and loading them imports the module that defines it. Defined in a family module (``knowledge.pressure``), the
class made every pipeline call import that family and everything it imports (``knowledge.clarification``,
``knowledge.keywords``, ``knowledge.measurements``): some 8 ms of a ``trainopt diagnose`` process, for one class.
The same holds for what the talk reader shares with a family (``PROBLEM_SYMPTOMS``): it imports
this module, not the family. The families still use them as before (``knowledge.pressure.OPTIMIZER_SWITCH``,
``knowledge.clarification.PROBLEM_SYMPTOMS``).
"""

from __future__ import annotations

import re
from typing import Any

from knowledge.record import dataclass
from knowledge.schema import Cond, Is


@dataclass(frozen=True)
class OptimizerSwitch(Cond):
    """Free text that names a switch of optimizer (not an 8-bit/paged variant, which is a memory question)."""

    def test(self, value: Any) -> bool:
        """Whether the text names an optimizer (or 'optimizer') and no memory-saving variant."""
        if not isinstance(value, str):
            return False
        text = value.lower()
        if any(m in text for m in ("8-bit", "8bit", "8 bit", "paged", "bitsandbytes")):
            return False
        words = set(re.split(r"[^a-z0-9_]+", text.replace("-", "_")))
        return bool(words & _OPTIMIZER_WORDS) or "optimizer" in text or "optimiser" in text

    def describe(self) -> str:
        """Describe the condition in words."""
        return "names an optimizer switch"


_OPTIMIZER_WORDS = {"sgd", "adam", "adamw", "lamb", "lion", "sophia", "muon", "shampoo", "ademamix",
                    "schedule_free", "schedulefree", "prodigy", "rmsprop", "adagrad", "nesterov", "momentum"}

# A crash or a hang alone is infrastructure until shown otherwise: it is no evidence of a training problem of
# ours, so an error text that crosses a boundary stays across it. (Here, not in ``knowledge.clarification`` whose
# rows use it: the talk reader reads it too, and importing that family pulled its imports into every consult.)
PROBLEM_SYMPTOMS = Is("not_learning", "unstable", "overfitting", "slow_training", "convergence", "multi_task",
                      "memory_growth", "metrics_wrong", "data_problem")
"""Symptoms that describe a problem with a run (evidence); the rest are requests (questions, set-up, tracking)."""

__all__ = ["PROBLEM_SYMPTOMS", "OptimizerSwitch"]
