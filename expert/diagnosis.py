"""The outcome of a consultation as data: the Diagnosis, its pending question, and the report schema version.

This module sits below assembly, report and explain: each of them reads a ``Diagnosis`` and none needs the
others, so the flow stays one-way (consultation -> engine -> assemble -> Diagnosis -> report / explain).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from knowledge.record import dataclass
from knowledge.vocabulary import BOOL, ENUM, Observation, spec

SCHEMA_VERSION = "1.0"
MARKDOWN: list = []
"""The Markdown renderer for a Diagnosis on its own, registered by ``expert.report`` (which reads this module, so
this module cannot import it): notebooks show a Diagnosis through it."""
STATUSES = ("diagnosed", "needs_answer", "out_of_scope", "insufficient", "clean")


@dataclass(frozen=True)
class QuestionView:
    """The pending question as a user sees it."""

    id: str
    text: str
    sets: str
    kind: str
    choices: tuple[tuple[str, str], ...]
    why: str
    cite: str
    chosen: str = ""
    """Why the engine asks this question rather than another that applies (which candidate causes it separates)."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return {"id": self.id, "text": self.text, "sets": self.sets, "type": self.kind,
                "choices": [{"value": v, "label": lab} for v, lab in self.choices], "why": self.why,
                "source": self.cite, "chosen": self.chosen}


@dataclass
class Diagnosis:
    """The outcome of one run of the engine over the consultation's observations."""

    status: str
    symptom: dict[str, Any] | None
    question: QuestionView | None
    findings: list[dict[str, Any]]
    routes: list[dict[str, Any]]
    plan: list[str]
    boundary: list[dict[str, Any]]
    fixes: list[dict[str, Any]]
    avoid: list[str]
    asked: list[dict[str, Any]]
    notes: list[dict[str, Any]] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)
    """Ids of the root-cause and lint findings that need action, best-evidenced first."""
    primary_cause: str | None = None
    """The best-evidenced cause: its primary route is the plan's first stop."""
    tentative: str | None = None
    """With no cause evidenced, the suspect (a tentative lead) whose primary route is the plan's first stop."""
    incomplete: list[str] = field(default_factory=list)
    """What the evidence is missing (records or lines a damaged log could not give): never clean with any."""
    differential: list[dict[str, Any]] = field(default_factory=list)
    """The leading causes: those the evidence supports (the leader first, with why it leads), then the open
    candidates with what they need and the questions that ask for it."""
    concluded: str | None = None
    """Why asking stopped before the questions ran out (``Consultation.conclude``: quit, end of input, the question
    bound): the plan then leads with the best of what is known, and ``question`` is the one to answer next."""

    @property
    def needs_action(self) -> bool:
        """True when a finding of warning or critical severity stands."""
        return any(f["severity"] in ("warning", "critical") for f in self.findings)

    def _repr_markdown_(self) -> str:
        """Jupyter renders a Diagnosis as its Markdown report."""
        return MARKDOWN[0](self) if MARKDOWN else f"Diagnosis: {self.status}"


@dataclass(frozen=True)
class Outcome:
    """Everything a consultation holds after a run, as plain data: what the report and explain render.

    ``Consultation.outcome()`` builds it; report and explain read only this (a consultation has the same
    attributes, so either may be passed), which keeps the flow one-way.
    """

    diagnosis: Diagnosis
    observations: Mapping[str, Observation]
    trace: list[dict[str, Any]]
    asked: list[dict[str, Any]]
    complaints: list[str]
    revisions: list[dict[str, Any]]
    suspects: list[Observation] = field(default_factory=list)
    """What the complaints only asked about or suspected: the user's hypotheses, never evidence of a cause (a setting
    suspected beside a trouble is also an observation, ``self_diagnosis``)."""


def choices_for(q: Any) -> tuple[tuple[str, str], ...]:
    """Display choices for a question: its own, else the vocabulary's enum values or yes/no."""
    if q.choices:
        return tuple(q.choices)
    s = spec(q.sets)
    if s.kind == ENUM:
        return tuple((c, c.replace("_", " ")) for c in s.choices)
    if s.kind == BOOL:
        return (("yes", "yes"), ("no", "no"))
    return ()
