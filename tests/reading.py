"""What the text reader makes of a sentence, as the reading tests check it (one copy for every test file)."""

from __future__ import annotations

from expert.consultation import Consultation
from expert.text import parse_complaint


def obs(text: str) -> dict:
    """``name -> value`` of every observation the complaint states."""
    return {o.name: o.value for o in parse_complaint(text)}


def assert_reads(text: str, expected: dict) -> None:
    """The text reads each expected name as its value (None: not read at all); other readings may come too."""
    got = obs(text)
    assert {k: got.get(k) for k in expected} == expected, got


def finding_ids(text: str) -> set[str]:
    """The findings of a consultation on the complaint with every question declined."""
    c = Consultation()
    c.complain(text)
    d = c.run()
    while d.question is not None:
        c.decline(d.question.id)
        d = c.run()
    return {f["id"] for f in d.findings}
