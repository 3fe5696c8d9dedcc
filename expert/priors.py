"""The first stop a symptom's default leaves open, chosen by how often real threads confirmed each one.

When no cause is evidenced and no suspect leads, the plan's first stop is the seeds' fixed default for the
symptom ("not learning -> the LR", "unstable -> the gradients"), or the graph's order between two primaries.
That default is a guess about which cause is commonest. ``knowledge.priors`` holds what the corpus's dev threads
say about the same situation: for each symptom, how many threads that reached this fallback confirmed each first
stop. Here that count decides between the skills the engine already routed, with the seeds' choice counted as
``SEED_WEIGHT`` confirmed threads of its own, so that a prior overturns the default only where the threads
clearly disagree with it. Nothing is added to the plan, and a skill a guard forbids as the first stop stays
where it is.

A default is a route whose rows read nothing but the symptom and the loss curve (and what is still unknown or
was declined): a row that fired on anything more specific (a measured data time, a named topic, a setting) is
evidence, and the prior never overrides it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from knowledge.priors import DEFAULT_READS, PRIORS, SEED_WEIGHT
from knowledge.schema import Absent, Row, effective_conditions

_OVERRIDE: ContextVar[Mapping[str, Mapping[str, int]] | None] = ContextVar("trainopt_priors", default=None)
"""A table in force instead of ``PRIORS`` (leave-one-thread-out validation; ``{}`` disables priors). A context
variable: one thread's validation never changes another thread's consultations."""


@contextmanager
def using(table: Mapping[str, Mapping[str, int]]) -> Iterator[None]:
    """Consult with ``table`` as the priors (``{}``: none) inside the block.

    Used to validate the priors honestly: a case's own thread must not have voted in the table it is scored
    with (``bench.priors_cv``), and the table itself is counted with priors off (``bench.gen_priors``).
    """
    token = _OVERRIDE.set(table)
    try:
        yield
    finally:
        _OVERRIDE.reset(token)


def table() -> Mapping[str, Mapping[str, int]]:
    """The priors in force: an override, else the shipped ``PRIORS``."""
    override = _OVERRIDE.get()
    return PRIORS if override is None else override


def is_default(rules: Sequence[str], catalogue: Mapping[str, Any]) -> bool:
    """Whether every row behind a route reads only the symptom and the loss curve (unknowns aside).

    Args:
        rules: The ids of the rules that routed the skill.
        catalogue: ``expert.kb.rule_catalogue()``.
    """
    if not rules:
        return False
    for rid in rules:
        info = catalogue.get(rid)
        row = info.row if info else None
        if not isinstance(row, Row):
            return False
        read = {name for name, cond in effective_conditions(row).items() if not isinstance(cond, Absent)}
        # a row that waits for a declined question is the fallback the seeds give when the answer is missing
        if not read or not read <= DEFAULT_READS or any(not n.startswith("declined:") for n in row.need):
            return False
    return True


def first_stop(plan: Sequence[str], symptom: str | None, blocked: set[str],
               priors: Mapping[str, Mapping[str, int]] | None = None) -> str | None:
    """The skill the priors put first, among the plan's, or None when they leave the seeds' choice.

    Args:
        plan: The ordered plan (its first skill is the seeds' default).
        symptom: The symptom the consultation settled on.
        blocked: Skills a guard forbids as the first stop.
        priors: The table to use (default: the one in force).

    Returns:
        A skill of ``plan`` other than ``plan[0]`` that the threads confirmed clearly more often, else None.
    """
    if not plan or symptom is None:
        return None
    counts = (table() if priors is None else priors).get(symptom, {})
    if not counts:
        return None
    seed = plan[0]

    def score(skill: str) -> float:
        return counts.get(skill, 0) + (SEED_WEIGHT if skill == seed else 0.0)

    best = max((s for s in plan if s == seed or s not in blocked), key=lambda s: (score(s), -plan.index(s)))
    return None if best == seed else best
