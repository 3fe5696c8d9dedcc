"""Free text -> observations, driven entirely by the knowledge base's ``Keyword`` rows.

The parser knows no topic: every cue (phrase, what it implies, whether a negation cancels it, its priority)
is a ``Keyword`` row gathered by ``knowledge.all_keywords()``. The procedure, in order:

1. normalise the text (unicode quotes, whitespace) and cap its length;
2. find every match of every cue, on word boundaries, case-insensitively;
3. drop a match that lies strictly inside a longer match of another cue ("should I use Lion" is about
   switching, so the bare optimizer name inside it does not also count as the optimizer in use);
4. drop a negatable match that a negation in the same clause precedes ("no NaN", "loss is not NaN",
   "without any NaN", "isn't overfitting", "never diverges");
5. turn each surviving match into values; a value written ``$conv`` is read from the match (the named
   group called like the observation, else group ``v``, else the whole match) and converted by ``conv``:
   ``num`` (a float, e.g. ``3e-4``), ``int`` (``32``, ``1,024``), ``count`` (``10k``, ``1.2M``),
   ``pct`` (a percentage 0-100), ``frac`` (a percentage or fraction, as a fraction) or ``text``;
6. when cues disagree on an observation, the higher priority wins (stability first), then the earliest
   match, then the pattern text, so the result never depends on anything but the text;
7. validate each value against the vocabulary; a value that does not validate is dropped.

It never raises on any text and returns ``[]`` when nothing matches.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from expert.errors import TrainoptError
from expert.vocabulary import Observation

MAX_CHARS = 20_000
"""Longer complaints are cut: a complaint is a paragraph, and the cue scan is linear in its length."""

NEGATION_WINDOW = 4
"""How many words before a cue a negation may stand ("no", "not any", "without any real")."""

_NEGATORS = frozenset({
    "no", "not", "never", "without", "nor", "neither", "none", "nothing", "zero", "cannot",
    "isnt", "arent", "wasnt", "werent", "doesnt", "dont", "didnt", "hasnt", "havent", "hadnt", "wont", "cant",
    "couldnt", "shouldnt", "wouldnt", "aint",
})
# A clause ends at punctuation or at a contrasting / joining word; a negation does not reach past it.
_CLAUSE_BREAK = re.compile(r"[.;:!?,()\[\]\n]|\b(?:but|and|or|however|although|though|yet|while|whereas|"
                           r"except|then|so)\b", re.IGNORECASE)
_BLANKS = re.compile(r"\s+")
_WORD = re.compile(r"[\w']+")
_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:e[-+]?\d+)?", re.IGNORECASE)
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                         "\u2014": "-", "\u00a0": " "})


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    phrase: str
    groups: dict[str, str]
    keyword: Any  # knowledge.schema.Keyword


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[Any, re.Pattern[str]], ...]:
    from knowledge import all_keywords

    return tuple((k, re.compile(rf"(?<!\w)(?:{k.pattern})(?!\w)", re.IGNORECASE)) for k in all_keywords())


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text[: 4 * MAX_CHARS]).translate(_QUOTES)[:MAX_CHARS]
    # One space per run (a newline where the run had one, as it ends a clause): the cues' optional
    # whitespace then matches at most one character, so no pattern can backtrack badly on long blanks.
    return _BLANKS.sub(lambda m: "\n" if "\n" in m.group(0) else " ", text)


def _negated(text: str, start: int) -> bool:
    before = text[:start]
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(before)]
    clause = before[breaks[-1]:] if breaks else before
    words = [w.replace("'", "").lower() for w in _WORD.findall(clause)][-NEGATION_WINDOW:]
    return any(w in _NEGATORS for w in words)


def _convert(conv: str, raw: str) -> Any:
    raw = raw.strip()
    if conv == "text":
        return raw.lower()
    m = _NUMBER.search(raw)
    if m is None:
        raise ValueError(raw)
    num = float(m.group(0).replace(",", ""))
    if conv == "num":
        return num
    if conv == "int":
        return int(num) if num == int(num) else num
    if conv == "count":
        suffix = raw[m.end():].strip()[:1].lower()
        num *= {"k": 1_000, "m": 1_000_000, "b": 1_000_000_000}.get(suffix, 1)
        return int(num) if num == int(num) else num
    if conv == "pct":
        return num
    if conv == "frac":
        return num / 100.0 if ("%" in raw or num > 1.0) else num
    raise ValueError(f"unknown conversion {conv!r}")


def _value(hit: _Hit, name: str, value: Any) -> Any:
    if not (isinstance(value, str) and value.startswith("$")):
        return value
    raw = hit.groups.get(name) or hit.groups.get("v") or hit.phrase
    return _convert(value[1:], raw)


def _hits(text: str) -> list[_Hit]:
    hits = []
    for kw, rx in _compiled():
        for m in rx.finditer(text):
            if m.end() == m.start():
                continue
            groups = {k: v for k, v in m.groupdict().items() if v is not None}
            hits.append(_Hit(m.start(), m.end(), m.group(0), groups, kw))
    return hits


def _subsumed(h: _Hit, hits: list[_Hit]) -> bool:
    return any(o.keyword is not h.keyword and o.start <= h.start and h.end <= o.end
               and (o.end - o.start) > (h.end - h.start) for o in hits)


def parse_complaint(text: str) -> list[Observation]:
    """Read a free-text complaint into validated observations with provenance ``text:<matched phrase>``.

    Args:
        text: What the user wrote.

    Returns:
        At most one observation per name, sorted by name; ``[]`` when no cue matches (or ``text`` is not
        a string).
    """
    if not isinstance(text, str) or not text.strip():
        return []
    text = _normalise(text)
    hits = _hits(text)
    alive = [h for h in hits if not _subsumed(h, hits)
             and not (h.keyword.negatable and _negated(text, h.start))]
    best: dict[str, tuple[tuple[Any, ...], Observation]] = {}
    for h in alive:
        for name, raw_value in h.keyword.sets.items():
            try:
                obs = Observation.make(name, _value(h, name, raw_value), f"text:{h.phrase.strip()}")
            except (TrainoptError, ValueError, TypeError, OverflowError):
                continue  # a number out of range, an unknown unit: the phrase says nothing usable
            key = (-h.keyword.priority, h.start, h.keyword.pattern)
            if name not in best or key < best[name][0]:
                best[name] = (key, obs)
    return [best[n][1] for n in sorted(best)]
