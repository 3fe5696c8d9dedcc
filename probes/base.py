"""What every probe shares: its metadata (id, cost tier, hook point) and the observation adapter."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from expert.vocabulary import Observation
from knowledge.measurements import MEASURE_BY_ID

TIERS = ("free", "cheap", "expensive")


@dataclass(frozen=True)
class ProbeInfo:
    """A probe's identity card.

    Attributes:
        id: Stable id; observations it emits carry the provenance ``probe:<id>``.
        tier: ``free`` (reads live objects, no tensor work), ``cheap`` (a few device reductions per step,
            safe always-on) or ``expensive`` (hooks on every module or extra passes; only on a trip).
        hook: Where it attaches (``static``, ``forward``, ``backward``, ``optimizer_step``, ``history``...).
        measures: The observation names it can emit.
    """

    id: str
    tier: str
    hook: str
    measures: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.tier not in TIERS:
            raise ValueError(f"probe {self.id}: tier must be one of {TIERS}")

    @property
    def source(self) -> str:
        """Provenance string of this probe's observations."""
        return f"probe:{self.id}"


def finite_or_none(x: Any) -> float | None:
    """``float(x)`` when finite, else None (non-finite numbers never become observation values)."""
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def jsonable(v: Any) -> Any:
    """Turn measured numbers into JSON-ready evidence; non-finite floats become the strings 'nan'/'inf'."""
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if hasattr(v, "item") and getattr(v, "ndim", 1) == 0:
        v = v.item()
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return float(f"{v:.6g}")
    return v


def threshold_evidence(*mids: str) -> dict[str, Any]:
    """Evidence entries naming the thresholds applied and their sources."""
    out = {}
    for mid in mids:
        m = MEASURE_BY_ID[mid]
        out[mid] = {"value": m.value, "source": m.source}
    return {"thresholds": out} if out else {}


def emit(info: ProbeInfo, name: str, value: Any, evidence: dict[str, Any] | None = None,
         thresholds: Iterable[str] = (), step: int | None = None) -> Observation:
    """Build one validated observation from a probe, with its measured numbers as evidence.

    Args:
        info: The emitting probe.
        name: Vocabulary name (must be one of ``info.measures``).
        value: The value (finite numbers, enums, flags only).
        evidence: Measured numbers behind it.
        thresholds: Threshold ids applied, recorded with their sources.
        step: Training step of the measurement (``at_step`` sets it for a whole group when omitted).

    Raises:
        ValueError: The probe emits a name it does not declare (a defect).
    """
    if name not in info.measures:
        raise ValueError(f"probe {info.id} does not declare {name!r}")
    ev = jsonable(dict(evidence or {}))
    ev.update(threshold_evidence(*thresholds))
    return Observation.make(name, value, info.source, ev, step)


def at_step(obs: Iterable[Observation], step: int | None) -> list[Observation]:
    """Stamp observations that carry no step with ``step`` (the step the summary was taken at)."""
    from dataclasses import replace

    return [o if o.step is not None or step is None else replace(o, step=step) for o in obs]


def merge(groups: Iterable[Iterable[Observation]]) -> list[Observation]:
    """Flatten probe outputs; the first observation of a name wins (probes run in order of trust)."""
    seen: dict[str, Observation] = {}
    for g in groups:
        for o in g:
            seen.setdefault(o.name, o)
    return [seen[k] for k in sorted(seen)]
