"""What the text reader makes of a sentence, as the reading tests check it (one copy for every test file)."""

from __future__ import annotations

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


def finding_ids(text: str) -> set[str]:
    """The findings of a consultation on the complaint with every question declined."""
    return {f["id"] for f in declined(text)[0].findings}
