"""trainopt benchmarks (`make bench` runs `python -m bench`).

Each section is a module with ``run(repeats: int) -> list[Result]``. ``bench.core`` measures CLI start-up,
engine construction and diagnosis latency; ``bench.probes`` (probe overhead) is picked up when importable.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Result:
    """One measured quantity.

    Attributes:
        name: What was measured.
        seconds: Median wall time.
        target: The target in seconds, if there is one.
        note: Context (the baseline, the number of repeats...).
    """

    name: str
    seconds: float
    target: float | None = None
    note: str = ""

    @property
    def verdict(self) -> str:
        """``ok``, ``MISSED`` or empty when there is no target."""
        if self.target is None:
            return ""
        return "ok" if self.seconds <= self.target else "MISSED"

    def as_dict(self) -> dict[str, object]:
        """Return a JSON-ready view."""
        return {"name": self.name, "seconds": self.seconds, "target": self.target, "verdict": self.verdict,
                "note": self.note}
