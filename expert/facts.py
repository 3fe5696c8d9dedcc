"""The fact types the engine reasons over, and the ``kind:key`` references rows use to name them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from expert._experta import Fact, unfreeze

_PLAIN_TYPES = frozenset({str, int, float, bool, type(None), tuple})
"""Values experta stores as they are (its ``freeze`` and ``unfreeze`` return them unchanged; a tuple is hashable
to ``freeze``, which returns it, and neither registers a conversion for it)."""


class _Fact(Fact):
    """experta's ``Fact``, built in one step when every value is plain (a name, a number, a flag, None).

    ``Fact.__init__`` stores field by field through ``__setitem__``, which checks the fact is not declared yet
    and freezes each value (a dispatch on its type); a fact being built is never declared and a plain value
    freezes to itself, so the same dict results. Anything else (patterns, containers) takes experta's way.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # (the types are checked in C: the facts of a diagnosis are built here some thousands of times)
        if args or not _PLAIN_TYPES.issuperset(map(type, kwargs.values())):
            super().__init__(*args, **kwargs)
            return
        dict.update(self, kwargs)
        self._Fact__defaults = {}


class Obs(_Fact):
    """An observation: ``name``, ``value``, ``source`` (provenance)."""


class Finding(_Fact):
    """A finding: ``id`` (the row id), ``category``, ``severity``, ``issue``, ``finding_kind``, ``explains``.

    ``finding_kind`` is cause, lint, symptom or note; ``explains`` the symptoms a cause can explain.
    """


class Route(_Fact):
    """A route: ``skill``, ``role``, ``pack``, ``rule``, ``why``, ``section``."""


class Question(_Fact):
    """The single pending question: ``id``, ``sets``, ``rule``."""


class Declined(_Fact):
    """The user declined to answer ``question`` (so it is not asked again)."""


class Boundary(_Fact):
    """A cross-pack boundary: ``pack``, ``rule``, ``why``, ``joint``, ``target``."""


class Block(_Fact):
    """A guard against a known routing mistake: ``skill``, ``role`` (``any``/``primary``), ``rule``, ``reason``."""


class Flag(_Fact):
    """A named marker: ``name``, ``rule``, ``detail``."""


class Context(_Fact):
    """Facts about the consultation itself: ``origin`` (``user`` or ``probe``)."""


class Closed(_Fact):
    """Asking is over: ``reason`` (the user quit, the input ended, the question bound was reached).

    No question applies any more, so the leads of last resort, which wait for no question to be pending, give
    the best lead from what is known (``Consultation.conclude``).
    """


KINDS: dict[str, tuple[type[Fact], str]] = {
    "finding": (Finding, "id"),
    "finding_kind": (Finding, "finding_kind"),
    "route": (Route, "skill"),
    "question": (Question, "id"),
    "boundary": (Boundary, "pack"),
    "block": (Block, "skill"),
    "flag": (Flag, "name"),
    "declined": (Declined, "question"),
    "origin": (Context, "origin"),
    "closed": (Closed, "reason"),
}


def ref_pattern(ref: str) -> Fact:
    """Turn ``kind:key`` (``key`` may be ``*``) into an experta pattern.

    Raises:
        ValueError: Unknown kind.
    """
    kind, _, key = ref.partition(":")
    if kind not in KINDS:
        raise ValueError(f"unknown fact reference {ref!r}; kinds: {', '.join(KINDS)}")
    cls, field = KINDS[kind]
    return cls() if key in ("", "*") else cls(**{field: key})


def plain(fact: Fact) -> dict[str, Any]:
    """A JSON-ready dict of a fact (frozendict values are not serialisable).

    The fact's fields as ``Fact.as_dict`` gives them (values unfrozen), less every key that is not a name or
    starts with ``__``: read in one pass, with plain values taken as they are.
    """
    out: dict[str, Any] = {"kind": type(fact).__name__}
    if _PLAIN_TYPES.issuperset(map(type, fact.values())):
        # every value as it is (the usual case: the trail shows each fact a diagnosis matches or asserts): the
        # fields copied at once, less the keys that are no name or start with ``__``, found once per key layout
        keys = tuple(fact)
        drop = _DROPPED.get(keys)
        if drop is None:
            drop = _DROPPED[keys] = tuple(k for k in keys if not (isinstance(k, str) and k[:2] != "__"))
        out.update(fact)
        for k in drop:
            del out[k]
        return out
    out.update({k: v if type(v) in _PLAIN_TYPES else unfreeze(v)
                for k, v in fact.items() if isinstance(k, str) and k[:2] != "__"})
    return out


_DROPPED: dict[tuple[Any, ...], tuple[Any, ...]] = {}
"""A fact's keys, in order -> those ``plain`` leaves out (``__factid__``): a few dozen layouts."""


def established(facts: Iterable[Any]) -> set[str]:
    """Every ``kind:key`` reference the facts establish (and ``kind:*`` for each kind present)."""
    est: set[str] = set()
    for f in facts:
        for kind, (cls, fld) in KINDS.items():
            if type(f) is cls:
                est.add(f"{kind}:*")
                if fld in f:
                    est.add(f"{kind}:{f[fld]}")
    return est


def has_ref(est: set[str], ref: str) -> bool:
    """Whether ``ref`` (``kind:key``; an empty key means any) is among the ``established`` references."""
    kind, _, key = ref.partition(":")
    return f"{kind}:{key or '*'}" in est
