"""The knowledge base: every family module's rows, questions, keywords and joins.

A family module defines any of ``ROWS``, ``QUESTIONS``, ``KEYWORDS`` and ``JOINS``. Adding a family is one
line in ``FAMILIES``; adding a symptom is one row (and its golden case under ``tests/golden``).
"""

from __future__ import annotations

import dataclasses
import importlib

from knowledge.schema import Family, Join, Keyword, QuestionRow, Row

FAMILIES: tuple[str, ...] = (
    "questions",
    "derive",
    "routing",
    "instability",
    "overfitting",
    "slow",
    "direct",
    "modern",
    "tracking",
    "quickref",
    "scenarios",
    "keywords",
    "measurements",
    "clarification",
    "pressure",
    "mistakes",
    "boundaries",
    "diagnostician",
    "antipatterns",
    "causes",
    "differential",
    "distributed",
    "contracts",
)


_FAMILIES: tuple[Family, ...] | None = None
"""Every family, loaded: by ``families()`` from the modules, or handed over by ``adopt``."""


def families() -> tuple[Family, ...]:
    """Load every family module once, stamping each row with its family name."""
    global _FAMILIES
    if _FAMILIES is None:
        _FAMILIES = _load()
    return _FAMILIES


def _load() -> tuple[Family, ...]:
    out = []
    for name in FAMILIES:
        mod = importlib.import_module(f"knowledge.{name}")
        fam = Family(name)
        fam.rows = [dataclasses.replace(r, family=name) for r in getattr(mod, "ROWS", ())]
        fam.questions = [dataclasses.replace(q, family=name) for q in getattr(mod, "QUESTIONS", ())]
        fam.keywords = list(getattr(mod, "KEYWORDS", ()))
        fam.joins = [dataclasses.replace(j, family=name) for j in getattr(mod, "JOINS", ())]
        out.append(fam)
    return tuple(out)


def loaded() -> bool:
    """Whether the families are loaded in this process (by ``families()`` or ``adopt``)."""
    return _FAMILIES is not None


def adopt(found: tuple[Family, ...]) -> tuple[Family, ...]:
    """Take ``found`` as what ``families()`` gives, unless the families are loaded already; return those in use.

    For a caller that kept ``families()``'s result for these very sources (``expert.kb`` stores it in the
    user's cache, keyed by a hash of this package's files): importing the family modules is skipped.
    """
    global _FAMILIES
    if _FAMILIES is None:
        _FAMILIES = found
    return _FAMILIES


def all_rows() -> list[Row]:
    """Every row of every family."""
    return [r for f in families() for r in f.rows]


def all_questions() -> list[QuestionRow]:
    """Every question row."""
    return [q for f in families() for q in f.questions]


def all_joins() -> list[Join]:
    """Every join of every family."""
    return [j for f in families() for j in f.joins]


def all_keywords() -> list[Keyword]:
    """Every free-text keyword."""
    return [k for f in families() for k in f.keywords]


def question(qid: str) -> QuestionRow | None:
    """The question row with id ``qid``, if any."""
    return next((q for q in all_questions() if q.id == qid), None)
