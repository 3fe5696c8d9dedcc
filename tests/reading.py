"""What the text reader makes of a sentence, as the reading tests check it (one copy for every test file)."""

from __future__ import annotations

import math
from typing import Any

from expert.consultation import Consultation
from expert.text import parse_complaint


def obs(text: str) -> dict:
    """``name -> value`` of every observation the complaint states."""
    return {o.name: o.value for o in parse_complaint(text)}


def assert_reads(text: str, expected: dict) -> None:
    """The text reads each expected name as its value (None: not read at all); other readings may come too."""
    got = obs(text)
    assert {k: got.get(k) for k in expected} == expected, got


def declined(text: str, most: int | None = None) -> tuple[Any, list[str]]:
    """A consultation on the complaint with every question declined: its last decision and the questions asked.

    ``most`` stops it after that many questions (the decision then still holds a question).
    """
    c = Consultation()
    c.complain(text)
    asked: list[str] = []
    d = c.run()
    while d.question is not None and (most is None or len(asked) < most):
        asked.append(d.question.id)
        c.decline(d.question.id)
        d = c.run()
    return d, asked


def asked_until(c: Consultation, until: str, limit: int = 12) -> list[str]:
    """Decline every question until ``until`` is pending (or asking stops); the ids asked, in order."""
    out: list[str] = []
    for _ in range(limit):
        q = c.run().question
        if q is None:
            break
        out.append(q.id)
        if q.id == until:
            break
        c.decline(q.id)
    return out


def no_symptom_no_curve() -> Consultation:
    """A consultation whose user declined the symptom and the loss-curve questions."""
    c = Consultation()
    c.decline("Q-SYMPTOM")
    c.decline("Q-LOSS-CURVE")
    return c


def finding_ids(text: str) -> set[str]:
    """The findings of a consultation on the complaint with every question declined."""
    return {f["id"] for f in declined(text)[0].findings}


def same_value(a: object, b: object) -> bool:
    """A read value equals the stated one: numbers within 1% (a bool is no number), anything else exactly."""
    if isinstance(a, float) or isinstance(b, float):
        return (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)
                and not isinstance(b, bool) and math.isclose(a, b, rel_tol=0.01))
    return a == b


def score_probes(probes: Any) -> tuple[int, int, list[str], list[tuple[str, dict]], list[tuple[str, dict]]]:
    """Score a reading probe of ``(text, expected)`` pairs, ``None`` in ``expected`` meaning "must not be read".

    Returns:
        (stated observations, read right, texts read as nothing, wrong readings, misses).
    """
    facts, read, nothing, wrong, missed = 0, 0, [], [], []
    for text, expected in probes:
        got = obs(text)
        if not got:
            nothing.append(text)
        bad = {k: got[k] for k, v in expected.items() if k in got and (v is None or not same_value(got[k], v))}
        if bad:
            wrong.append((text, bad))
        stated = {k: v for k, v in expected.items() if v is not None}
        facts += len(stated)
        hits = {k for k, v in stated.items() if k in got and same_value(got[k], v)}
        read += len(hits)
        if len(hits) < len(stated):
            missed.append((text, {k: v for k, v in stated.items() if k not in hits}))
    return facts, read, nothing, wrong, missed
