"""The shape of a knowledge row: conditions over observations, what it concludes, and where it comes from.

Rows are plain data. ``expert.engine`` compiles every row into one experta rule; nothing here imports
experta, so listing or showing rules stays cheap. Conventions:

* one row = one rule, with a stable prefixed id (``RT-LOSS-01``) and a citation of the seed table row;
* thresholds live in the row (``Lt(50, source=...)``), never as constants in code;
* rationale, fix and avoid texts are our own words.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from functools import cache
from typing import Any, Union

from knowledge.record import dataclass

# ---------------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------------

# What each seed is, for people: reports and `trainopt rule` cite these names, never the seed files' hashes.
SEEDS = {
    "000": "Training-optimization router (2025 edition)",
    "001": "Training-optimization router (2026 edition)",
    "002": "Training-optimization expert knowledge",
    "003": "Training diagnostician",
}


@dataclass(frozen=True)
class Cite:
    """Where a row's knowledge comes from.

    Attributes:
        seed: Seed key (``000``..``003``) or an external source name (e.g. ``Karpathy recipe``).
        table: The table or section of that source.
        row: The row (or bullet) within it, paraphrased to identify it.
    """

    seed: str
    table: str
    row: str

    def __str__(self) -> str:
        return f"{self.seed} · {self.table} · {self.row}"

    def as_dict(self) -> dict[str, str]:
        """A JSON-ready view."""
        return {"seed": self.seed, "source": SEEDS.get(self.seed, self.seed), "table": self.table,
                "row": self.row}


# ---------------------------------------------------------------------------------------------------
# Conditions on one observation
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cond:
    """Base class of a condition on one observation's value."""

    def test(self, value: Any) -> bool:  # pragma: no cover - overridden
        """Whether ``value`` satisfies the condition."""
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - overridden
        """The condition in words."""
        raise NotImplementedError


@dataclass(frozen=True)
class Is(Cond):
    """The value equals one of ``values``."""

    values: tuple[Any, ...]

    def __init__(self, *values: Any) -> None:
        object.__setattr__(self, "values", tuple(values))

    def test(self, value: Any) -> bool:
        return value in self.values

    def describe(self) -> str:
        return f"in ({', '.join(repr(v) for v in self.values)})" if len(self.values) > 1 else f"= {self.values[0]!r}"


@dataclass(frozen=True)
class Not(Cond):
    """The observation is present with a value other than all of ``values``."""

    values: tuple[Any, ...]

    def __init__(self, *values: Any) -> None:
        object.__setattr__(self, "values", tuple(values))

    def test(self, value: Any) -> bool:
        return value not in self.values

    def describe(self) -> str:
        return "not " + " / ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class _Bound(Cond):
    """A number compared with a limit (the comparisons below); ``source`` says where the limit comes from."""

    limit: float
    source: str = ""

    def _num(self, value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class Lt(_Bound):
    """The value is a number below ``limit`` (a threshold with its source)."""

    def test(self, value: Any) -> bool:
        return self._num(value) and value < self.limit

    def describe(self) -> str:
        return f"< {self.limit:g}"


@dataclass(frozen=True)
class Le(_Bound):
    """The value is a number at most ``limit``."""

    def test(self, value: Any) -> bool:
        return self._num(value) and value <= self.limit

    def describe(self) -> str:
        return f"<= {self.limit:g}"


@dataclass(frozen=True)
class Gt(_Bound):
    """The value is a number above ``limit``."""

    def test(self, value: Any) -> bool:
        return self._num(value) and value > self.limit

    def describe(self) -> str:
        return f"> {self.limit:g}"


@dataclass(frozen=True)
class Ge(_Bound):
    """The value is a number at least ``limit``."""

    def test(self, value: Any) -> bool:
        return self._num(value) and value >= self.limit

    def describe(self) -> str:
        return f">= {self.limit:g}"


@dataclass(frozen=True)
class Between(Cond):
    """``low <= value < high`` (a band with its source)."""

    low: float
    high: float
    source: str = ""

    def test(self, value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and self.low <= value < self.high

    def describe(self) -> str:
        return f"in [{self.low:g}, {self.high:g})"


@dataclass(frozen=True)
class Present(Cond):
    """The observation is known, whatever its value."""

    def test(self, value: Any) -> bool:
        return True

    def describe(self) -> str:
        return "is known"


@dataclass(frozen=True)
class Absent(Cond):
    """The observation is not known (compiled as a negated pattern)."""

    def test(self, value: Any) -> bool:  # pragma: no cover - never called on a present value
        return False

    def describe(self) -> str:
        return "is not known"


@dataclass(frozen=True)
class Contains(Cond):
    """A text observation contains one of ``needles`` (case-insensitive)."""

    needles: tuple[str, ...]

    def __init__(self, *needles: str) -> None:
        object.__setattr__(self, "needles", tuple(n.lower() for n in needles))

    def test(self, value: Any) -> bool:
        return isinstance(value, str) and any(n in value.lower() for n in self.needles)

    def describe(self) -> str:
        return "contains " + " or ".join(repr(n) for n in self.needles)


@cache
def _word_rx(terms: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(t) for t in terms) + r")(?![\w-])")


@dataclass(frozen=True)
class Words(Cond):
    """A text observation names one of ``terms`` as a whole word (so "warmup" is not "muP", "zero_grad" not ZeRO)."""

    terms: tuple[str, ...]

    def __init__(self, *terms: str) -> None:
        object.__setattr__(self, "terms", tuple(t.lower() for t in terms))

    def test(self, value: Any) -> bool:
        """Whether ``value`` is text naming one of the terms."""
        return isinstance(value, str) and _word_rx(self.terms).search(value.lower()) is not None

    def describe(self) -> str:
        """Describe the condition in words."""
        return "names " + " or ".join(repr(t) for t in self.terms)


CondLike = Union[Cond, str, int, float, bool]


def as_cond(c: CondLike) -> Cond:
    """Turn a bare value into ``Is(value)``."""
    return c if isinstance(c, Cond) else Is(c)


# ---------------------------------------------------------------------------------------------------
# What a row concludes
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RouteTo:
    """Route to a skill.

    Attributes:
        skill: Skill name (a node of the skill graph).
        role: ``primary`` or ``secondary``.
        why: Why this skill, in our words.
        section: The part of the skill to read (e.g. ``precision``), if any.
    """

    skill: str
    role: str = "primary"
    why: str = ""
    section: str = ""


FINDING_KINDS = ("cause", "lint", "symptom", "note", "suspect")
"""Kinds of finding; a warning or critical ``cause`` supersedes symptom-table findings and routes. A ``suspect``
is a tentative lead: the likeliest cause on the evidence so far, which leads the plan while no cause is
evidenced but supersedes nothing and leaves the questions that would confirm it open."""

RUN_PROBLEMS = ("not_learning", "unstable", "convergence", "overfitting", "multi_task")
"""Symptoms of a run that learns wrongly; a fault in the model, loss, data or loop can explain any of them."""

EXPLAINS_BY_CATEGORY: dict[str, tuple[str, ...]] = {
    "Performance": ("slow_training",),
    "Overfitting": ("overfitting",),
    # A run that cannot learn or blows up does not overfit: vanishing gradients beside a memorized training
    # set are the consequence of a near-zero loss, not the cause of the gap.
    "Not Learning": ("not_learning", "convergence", "multi_task"),
    "Explosion": ("unstable", "not_learning", "convergence", "multi_task"),
    "Instability": ("unstable", "not_learning", "convergence", "multi_task"),
    "Numerical": ("unstable", "not_learning", "convergence", "multi_task"),
}
"""Which symptoms a cause of a category can explain; a category not listed explains ``RUN_PROBLEMS``. A data
bottleneck does not explain a NaN, so a slow loader never supersedes the instability routes."""


@dataclass(frozen=True)
class Find:
    """Assert a finding (a root cause or a lint) named after the row.

    Attributes:
        category: Diagnostic category (e.g. ``Not Learning``, ``Explosion``, ``Configuration``).
        severity: ``info``, ``warning`` or ``critical``.
        issue: The specific issue, in one line.
        kind: What the finding is (``FINDING_KINDS``): a root ``cause`` evidenced by observations, a ``lint``
            (a configuration defect found from the set-up alone), a ``symptom`` restated from a symptom table
            (superseded once a cause is evidenced), a ``note`` (a correction of the user's framing), or a
            ``suspect`` (a tentative lead, see ``FINDING_KINDS``).
        explains: The symptoms a cause can explain (default: by category, ``EXPLAINS_BY_CATEGORY``).
    """

    category: str
    severity: str
    issue: str
    kind: str = "cause"
    explains: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in FINDING_KINDS:
            raise ValueError(f"finding kind {self.kind!r} is not one of {FINDING_KINDS}")
        if not self.explains:
            object.__setattr__(self, "explains", EXPLAINS_BY_CATEGORY.get(self.category, RUN_PROBLEMS))


@dataclass(frozen=True)
class Cross:
    """A cross-pack boundary: this belongs (wholly or jointly) to another pack.

    Attributes:
        pack: Target pack (e.g. ``pytorch-engineering``).
        why: Why it belongs there.
        joint: True when this pack keeps a share (strategy here, API there).
        target: The part of the target pack to load, if known.
    """

    pack: str
    why: str
    joint: bool = False
    target: str = ""


@dataclass(frozen=True)
class Block:
    """A guard against a known routing mistake.

    Attributes:
        skill: The skill that must not be routed to in this situation.
        reason: Why that route is a mistake here, in our words.
        role: ``any`` (no route at all) or ``primary`` (it may follow, never lead).
    """

    skill: str
    reason: str
    role: str = "any"


@dataclass(frozen=True)
class Derive:
    """Derive an observation (only when it is not already known)."""

    name: str
    value: Any


@dataclass(frozen=True)
class Flag:
    """Assert a named marker other rows can require (e.g. ``pressure_acknowledged``)."""

    name: str
    detail: str = ""


Action = Union[RouteTo, Find, Cross, Block, Derive, Flag]


@dataclass(frozen=True)
class Fix:
    """A fix: a short explanation and a code change a PyTorch user can paste."""

    explain: str
    code: str = ""


# ---------------------------------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One piece of tabular knowledge, compiled into one experta rule.

    Attributes:
        id: Stable prefixed id (``RT-LOSS-01``).
        when: Conditions on observations, by name (a bare value means equality).
        then: What the row concludes.
        rationale: Why, in our words.
        cite: The seed table row it encodes.
        need: Other facts that must exist, as ``kind:key`` (``finding:DX-CHANCE``, ``route:gradient-management``,
            ``flag:name``, ``boundary:pack``, ``block:skill``).
        unless: Facts that must not exist, same format.
        salience: Firing priority among rows (higher first); questions always come after all rows.
        fix: The fix, for findings.
        avoid: What not to do.
        family: Filled in by the knowledge registry from the module name.
    """

    id: str
    when: dict[str, CondLike]
    then: tuple[Action, ...]
    rationale: str
    cite: Cite
    need: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    salience: int = 0
    fix: Fix | None = None
    avoid: tuple[str, ...] = ()
    family: str = ""

    def conditions(self) -> dict[str, Cond]:
        """The ``when`` conditions with bare values turned into ``Is``."""
        return {k: as_cond(v) for k, v in self.when.items()}

    @property
    def basis(self) -> str:
        """What the row's routes rest on.

        Its finding's kind; else ``symptom`` for a row that reads the symptom or the loss curve (a
        symptom-table row); else ``other``.
        """
        kinds = [a.kind for a in self.then if isinstance(a, Find)]
        if kinds:
            return kinds[0]
        return "symptom" if {"symptom", "loss_behavior"} & set(self.when) else "other"

    def thresholds(self) -> list[dict[str, Any]]:
        """Every numeric threshold of this row with its source."""
        out = []
        for name, c in self.conditions().items():
            if isinstance(c, (Lt, Le, Gt, Ge)):
                out.append({"observation": name, "test": c.describe(), "value": c.limit,
                            "source": c.source or str(self.cite)})
            elif isinstance(c, Between):
                out.append({"observation": name, "test": c.describe(), "value": [c.low, c.high],
                            "source": c.source or str(self.cite)})
        return out


def measured_form(declared: Row, rid: str, when: dict[str, CondLike], cite: Cite | None = None,
                  unless: tuple[str, ...] = (), salience: int | None = None) -> Row:
    """The probe-measured form of a declared cause: one cause entry, two kinds of evidence.

    The finding, its routes, fix, what to avoid and the rationale are the declared row's (one entry per root
    cause, so the declared and the measured evidence cannot lead to different first stops); only the evidence
    (``when``), its citation, what rules it out and its firing band are its own. The declared row names the
    measured one in its ``unless`` (the measurement, when present, is the evidence the finding shows).

    Args:
        declared: The cause as a user states it (an observation read from an answer or the complaint).
        rid: The measured form's id (its probe's family prefix, ``MS-``).
        when: The measured evidence.
        cite: Where the measurement comes from (default: the declared row's source).
        unless: Facts that rule the measured form out.
        salience: Its firing band (default: the declared row's; which of the two stands is the declared
            row's ``unless``, applied whichever fires first, not an order of firing).
    """
    return dataclasses.replace(declared, id=rid, when=dict(when), cite=cite or declared.cite, need=(),
                               unless=tuple(unless),
                               salience=declared.salience if salience is None else salience, family="")


@dataclass(frozen=True)
class QuestionRow:
    """A diagnostic question: the observation it sets, when it is worth asking, and its rank.

    Attributes:
        id: Stable id (``Q-LOSS-BEHAVIOR``).
        sets: The observation the answer sets.
        text: The question, in our words.
        when: Conditions under which it is relevant (the observation itself must still be unknown).
        rank: Lower ranks are asked first (the seeds' order; most discriminating first).
        why: Why we ask, shown for ``?`` in the REPL.
        cite: The seed list it encodes.
        choices: Display choices as (value, label); empty means the vocabulary's choices or free input.
        need: Other facts that must exist (``kind:key``).
        unless: Facts that must not exist.
        late: Asked only once no other question applies: context that places the run (what it trains) rather
            than a test of an open cause, so the symptom's own diagnostic questions keep their order; and only
            when its answer decides an open cause (``expert.engine``). Asked only because a gate was waived, it
            competes with the other waived checks by its value.
        family: Filled in by the registry.
    """

    id: str
    sets: str
    text: str
    when: dict[str, CondLike]
    rank: int
    why: str
    cite: Cite
    choices: tuple[tuple[str, str], ...] = ()
    need: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    late: bool = False
    family: str = ""

    def conditions(self) -> dict[str, Cond]:
        """The ``when`` conditions with bare values turned into ``Is``."""
        return {k: as_cond(v) for k, v in self.when.items()}


@dataclass(frozen=True)
class Join:
    """Knowledge that relates two or more observations' values (what a one-observation condition cannot say).

    When every observation in ``inputs`` is known, ``when`` holds and ``test(*values)`` is true, the join marks
    ``flag`` (which rows then require as ``flag:<name>``), with ``detail(*values)`` as its evidence line. The
    engine compiles a join into one rule; ``derived_state`` evaluates it the same way without the engine.

    Attributes:
        id: Stable prefixed id (``DV-GAP-01``).
        inputs: The observations whose values are joined, in the order ``test`` and ``detail`` take them.
        test: Whether the joined values mean the flag.
        flag: The flag it marks.
        detail: The evidence line for the joined values.
        rationale: Why, in our words.
        cite: The seed row it encodes.
        when: Conditions on other observations (a bare value means equality).
        salience: Firing priority (derivations fire in ``Salience.DERIVE``'s band).
        family: Filled in by the knowledge registry from the module name.
        derives: An observation the join also declares (``derived:<id>``) while it is unknown, a value that is
            the joined values' (``value(*values)``) whatever source each came from ('' for none).
        value: The derived observation's value from the joined values (with ``derives``).
    """

    id: str
    inputs: tuple[str, ...]
    test: Callable[..., bool]
    flag: str
    detail: Callable[..., str]
    rationale: str
    cite: Cite
    when: dict[str, CondLike] = field(default_factory=dict)
    salience: int = 0
    family: str = ""
    derives: str = ""
    value: Callable[..., Any] | None = None

    def conditions(self) -> dict[str, Cond]:
        """The ``when`` conditions with bare values turned into ``Is``, and every input required known."""
        conds: dict[str, Cond] = {k: as_cond(v) for k, v in self.when.items()}
        for name in self.inputs:
            conds.setdefault(name, Present())
        if self.derives:  # (derive only what is unknown, as a row's ``Derive`` does, so it cannot loop)
            conds.setdefault(self.derives, Absent())
        return conds

    def holds(self, values: Mapping[str, Any], has: Callable[[str], bool] | None = None) -> bool:
        """Whether the join marks its flag on ``values`` (and the flag is not already established)."""
        for name, cond in self.conditions().items():
            if not cond_holds(cond, name in values, values.get(name)):
                return False
        if has is not None and has(f"flag:{self.flag}"):
            return False
        return joined(self.test, *(values[n] for n in self.inputs))


def joined(test: Callable[..., bool], *values: Any) -> bool:
    """``test(*values)``, false when the values are not of a kind the test can compare (never an error)."""
    try:
        return bool(test(*values))
    except (TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return False


# ---------------------------------------------------------------------------------------------------
# Salience bands: the order in which kinds of rows fire (higher first)
# ---------------------------------------------------------------------------------------------------

class Salience:
    """Named firing bands. A row's ``salience`` is one of these, or one of them plus a small offset.

    The order carries meaning: guards stand before any route is judged; observations are derived (symptom
    from loss curve, NaN onset from its step) before rows read them; root causes stand before symptom-table
    rows, so that an evidenced cause supersedes the symptom's generic route whichever fires first; questions
    come last of all (``expert.engine.QUESTION_SALIENCE``).
    """

    GUARD = 100
    """Guards against known routing mistakes (``Block``)."""
    DERIVE = 50
    """Derivations of observations and flags from other observations (50..60: stability first)."""
    CLARIFY = 40
    """Clarification: evidence markers and holds on vague queries (40..53)."""
    CAUSE = 20
    """Root-cause findings. Between a cause and a reading it explains the relation decides, not this number: the
    reading's row names the cause's finding in ``unless``, and the engine withdraws it whichever fired first
    (``yields_to``, ``CORE-CAUSE-05``)."""
    SYMPTOM = 0
    """Symptom-table routing: what the engine falls back to when no root cause is evidenced."""
    AFTER = -5
    """Rows that conclude only once every other explanation has had its chance."""
    LAST = -2000
    """Leads of last resort: below the questions' band (``expert.engine.QUESTION_SALIENCE``), so they fire only
    when no question is left to ask and nothing routes (with ``unless=("question:*", "route:*", ...)``)."""


# ---------------------------------------------------------------------------------------------------
# Whether a row's conditions hold: the one check shared by the engine, explain --why-not and the probes
# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Unmet:
    """One condition of a row that does not hold.

    Attributes:
        name: The observation, or ``""`` for a fact reference.
        cond: The condition on it (None for a reference).
        actual: The observation's value, or None when it is unknown.
        known: Whether the observation is known.
        ref: The ``need``/``unless`` reference that failed, if this is one.
        why: The failure in words.
    """

    name: str
    cond: Cond | None
    actual: Any
    known: bool
    ref: str = ""
    why: str = ""


def cond_holds(cond: Cond, known: bool, value: Any = None) -> bool:
    """Whether one condition holds for an observation that is ``known`` with ``value``.

    The engine compiles each condition into a pattern that calls this with ``known=True`` (and an absent
    pattern for ``Absent``), so every reader of a row decides the same way.
    """
    if isinstance(cond, Absent):
        return not known
    return known and cond.test(value)


@dataclass(frozen=True)
class Holds:
    """``cond_holds(cond, True, value)`` as a callable that compares equal for equal conditions.

    The engine compiles value tests into this: the Rete network shares one test node between every rule
    with an equal condition (a ``functools.partial`` would compare by identity and build one node per rule).
    """

    cond: Cond

    def __call__(self, value: Any) -> bool:
        # ``cond_holds(self.cond, True, value)`` inlined: the Rete network calls this for every observation a
        # value test reaches, and the call in between was a third of the test's cost
        cond = self.cond
        return False if isinstance(cond, Absent) else cond.test(value)


def effective_conditions(row: Row | QuestionRow) -> dict[str, Cond]:
    """The conditions a row is compiled with: its own, plus "still unknown" for every observation it derives.

    A derivation fills only what is unknown, which is what keeps derivations from looping.
    """
    conds = row.conditions()
    for a in getattr(row, "then", ()):
        if isinstance(a, Derive):
            conds.setdefault(a.name, Absent())
    return conds


def unmet(row: Row | QuestionRow, values: Mapping[str, Any], has: Callable[[str], bool] | None = None,
          explain: bool = True) -> list[Unmet]:
    """Every condition of ``row`` that does not hold on ``values``; empty when the row's conditions hold.

    Args:
        row: A knowledge row or question row.
        values: Known observations, name -> value.
        has: Whether a ``kind:key`` fact reference is established; None skips ``need``/``unless``
            (for readers that see observations only).
        explain: Whether to word each failure (``why``); the question and candidate readers that weigh every row
            at every step read only which conditions fail, and skip it.
    """
    out = []
    # the effective conditions sorted by name: built once per row for the readers that weigh every row
    pairs = _compile(row)[1] if not explain else sorted(effective_conditions(row).items())
    for name, cond in pairs:
        known = name in values
        if not cond_holds(cond, known, values.get(name)):
            if not explain:
                out.append(Unmet(name, cond, values.get(name), known))
                continue
            if isinstance(cond, Absent):
                why = f"{name} must be unknown, but is {values[name]!r}"
            elif not known:
                why = f"{name} is not known"
            else:
                why = f"{name} = {values[name]!r}, but the row needs {cond.describe()}"
            out.append(Unmet(name, cond, values.get(name), known, why=why))
    if has is not None:
        for ref in row.need:
            if not has(ref):
                out.append(Unmet("", None, None, False, ref=ref,
                                 why=f"needs {ref}, which is not established" if explain else ""))
        for ref in row.unless:
            if has(ref):
                out.append(Unmet("", None, None, False, ref=ref,
                                 why=f"{ref} is established, which rules this row out" if explain else ""))
    return out


def contradicted(row: Row | QuestionRow, values: Mapping[str, Any]) -> bool:
    """Whether a known observation fails a condition of ``row``: ``any(u.known for u in unmet(row, values))``.

    Only the known observations' conditions are tested, and no failure is worded: the question and candidate
    readers ask this of every row at every step.
    """
    for name, cond in _compile(row)[1]:
        if name in values and not cond_holds(cond, True, values[name]):
            return True
    return False


def waits_on_unknown(row: Row | QuestionRow, values: Mapping[str, Any]) -> list[str]:
    """The unknown observations whose conditions of ``row`` fail while unknown (``unmet``'s unknown names)."""
    return [name for name, cond in _compile(row)[1] if name not in values and not cond_holds(cond, False, None)]


_COMPILED: dict[int, tuple[Row | QuestionRow, tuple[tuple[str, Cond], ...], frozenset[str], frozenset[str]]] = {}


def _compile(row: Row | QuestionRow) -> tuple[Any, tuple[tuple[str, Cond], ...], frozenset[str], frozenset[str]]:
    """(row, condition pairs, names that must be known, names that must not be), built once per row object."""
    hit = _COMPILED.get(id(row))
    if hit is None or hit[0] is not row:
        pairs = tuple(sorted(effective_conditions(row).items()))
        hit = _COMPILED[id(row)] = (row, pairs, frozenset(n for n, c in pairs if not isinstance(c, Absent)),
                                    frozenset(n for n, c in pairs if isinstance(c, Absent)))
    return hit


def holds(row: Row | QuestionRow, values: Mapping[str, Any], has: Callable[[str], bool] | None = None) -> bool:
    """Whether every condition of ``row`` holds on ``values`` (and its references, when ``has`` is given).

    The same verdict as ``not unmet(...)``, without building the explanations: a watch asks at every window end.
    """
    _, pairs, known, absent = _compile(row)
    # Most rows read an observation that is not known: one set comparison rules them out before any condition
    # is tested (the same verdict: a condition on an unknown observation fails, as does "not known" on a known
    # one). A watch chains every measurement row at each window end.
    if not values.keys() >= known or (absent and not values.keys().isdisjoint(absent)):
        return False
    for name, cond in pairs:
        if not cond_holds(cond, name in values, values.get(name)):
            return False
    if has is not None:
        if not all(has(ref) for ref in row.need) or any(has(ref) for ref in row.unless):
            return False
    return True


EXPLAINED = "symptom_explained"
"""The flag set once a cause that needs action explains the symptom (or stands with none named)."""

ACTS = ("warning", "critical")
"""Severities of a finding that needs action: only such a cause supersedes the symptom tables."""

SUPERSEDED = ("symptom", "suspect")
"""Finding kinds (and route bases) that an evidenced cause supersedes: symptom-table readings and tentative
leads."""


def yields_to(rows: Iterable[Row]) -> dict[str, frozenset[str]]:
    """Row id -> the rows whose finding explains its reading away (the ``finding:`` ids in its ``unless``).

    The relation between a cause and the effect it explains, read from the rows: a row that names another's
    finding in ``unless`` is an effect of it (dead units read as a small update ratio, a missing zero_grad read
    as exploding steps) or restates it more weakly. The engine and ``chain`` apply it whichever of the two
    fires first, so no salience number decides between a cause and its effect.
    """
    rows = tuple(rows)
    ids = {r.id for r in rows}
    out = {}
    for r in rows:
        causes = frozenset(ref.partition(":")[2] for ref in r.unless if ref.startswith("finding:"))
        if causes & ids:
            out[r.id] = causes & ids
    return out


def _within(general: Cond, specific: Cond) -> bool:
    """Whether every value ``general`` accepts, ``specific`` accepts too (equal conditions, or value sets nested)."""
    if general == specific:
        return True
    return isinstance(general, Is) and isinstance(specific, Is) and set(general.values) <= set(specific.values)


def refinements(rows: Iterable[Row]) -> dict[str, frozenset[str]]:
    """Observation name -> the causes whose standing a more specific cause, waiting on that observation, refines.

    A cause entry C refines a cause R when C holds wherever R does plus at least one more observation, and leads
    to another first stop: "the first NaN is in the gradients" (R, clip them) against "... in the gradients of a
    hand-written loss" (C, fix the loss). Once R stands the symptom's questions stop, but the one that asks for
    C's extra observation still separates R from C: the question stays open for it. Read from the entries, so no
    question names the causes it may refine.
    """
    def is_cause(r: Row) -> bool:
        return any(isinstance(a, Find) and a.kind == "cause" and a.severity in ACTS for a in r.then)

    def first_stops(r: Row) -> frozenset[str]:
        return frozenset(a.skill for a in r.then if isinstance(a, RouteTo) and a.role == "primary")

    # Each entry's conditions and first stops are read once: the pairs are many (every cause against every other,
    # at each engine build), and ``Row.conditions()`` builds a new mapping per call.
    causes = [(r.id, r.conditions(), first_stops(r)) for r in rows if is_cause(r) and not r.need]
    out: dict[str, set[str]] = {}
    for gid, gc, gstops in causes:
        if not gc:
            continue
        for sid, sc, sstops in causes:
            if sid == gid or len(sc) <= len(gc) or not sstops or sstops == gstops:
                continue
            if all(name in sc and _within(cond, sc[name]) for name, cond in gc.items()):
                for name in set(sc) - set(gc):
                    out.setdefault(name, set()).add(gid)
    return {name: frozenset(ids) for name, ids in out.items()}


def _explained_away(facts: list[tuple[str, str, dict[str, Any]]], yields: Mapping[str, frozenset[str]]) -> None:
    """Drop, in place, every fact of a row whose finding another standing finding explains away."""
    standing = {key for k, key, _ in facts if k == "finding"}
    gone = {rid for rid in standing if yields.get(rid, frozenset()) & standing}
    if gone:
        facts[:] = [f for f in facts if f[2].get("rule") not in gone]


@dataclass
class Chain:
    """What forward chaining over rows and joins establishes from a set of observations (``chain``'s result).

    Attributes:
        fired: The rows and joins that fired, in firing order.
        values: The observations, with those the rows derived.
        facts: What stands at the end, as ``(kind, key, attributes)``: findings, routes, flags, boundaries,
            guards (and the references given beforehand).
    """

    fired: list[Row | Join]
    values: dict[str, Any]
    facts: list[tuple[str, str, dict[str, Any]]]

    def has(self, ref: str) -> bool:
        """Whether the ``kind:key`` reference (``key`` may be ``*`` or empty) is established."""
        return _has_ref(self.facts, ref)


def _has_ref(facts: list[tuple[str, str, dict[str, Any]]], ref: str) -> bool:
    kind, _, key = ref.partition(":")
    any_key = key in ("", "*")
    for k, v, attrs in facts:
        if k == kind and (any_key or v == key):
            return True
        if kind == "finding_kind" and k == "finding" and attrs.get("kind") == key:
            return True
    return False


def _asserts(row: Row) -> list[tuple[str, str, dict[str, Any]]]:
    """The facts a row asserts when it fires, as ``chain`` tracks them."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    for a in row.then:
        if isinstance(a, Find):
            out.append(("finding", row.id, {"kind": a.kind, "severity": a.severity, "explains": a.explains,
                                            "rule": row.id}))
        elif isinstance(a, Flag):
            out.append(("flag", a.name, {}))
        elif isinstance(a, RouteTo):
            out.append(("route", a.skill, {"basis": row.basis, "rule": row.id}))
        elif isinstance(a, Cross):
            out.append(("boundary", a.pack, {"joint": a.joint, "rule": row.id}))
        elif isinstance(a, Block):
            out.append(("block", a.skill, {"role": a.role, "rule": row.id}))
    return out


def _settle(facts: list[tuple[str, str, dict[str, Any]]], values: Mapping[str, Any]) -> None:
    """Apply the standing policy of causes over symptoms, in place (what the engine's core rules do first).

    A cause that needs action and can explain the stated symptom (or stands with none named) marks the symptom
    explained; from then on the symptom tables' routes and findings and the guards fall away. A guard removes
    the symptom-table routes to the skill it forbids.
    """
    if not _has_ref(facts, f"flag:{EXPLAINED}"):
        symptom = values.get("symptom")
        for k, _, attrs in facts:
            if k == "finding" and attrs["kind"] == "cause" and attrs["severity"] in ACTS and (
                    "symptom" not in values or symptom in attrs["explains"]):
                facts.append(("flag", EXPLAINED, {}))
                break
    if _has_ref(facts, f"flag:{EXPLAINED}"):
        facts[:] = [f for f in facts if not ((f[0] == "route" and f[2]["basis"] in SUPERSEDED) or f[0] == "block"
                                             or (f[0] == "finding" and f[2]["kind"] in SUPERSEDED))]
    blocked = {key for k, key, a in facts if k == "block" and a["role"] == "any"}
    facts[:] = [f for f in facts
                if not (f[0] == "route" and f[1] in blocked and f[2]["basis"] not in ("cause", "lint"))]


@dataclass(frozen=True)
class _Agenda:
    """The firing order of a set of rows and joins, and the indexes ``chain`` reads it through.

    Attributes:
        order: The rows and joins in firing order (salience, then id).
        yields: Their ``yields_to`` relation.
        needs: Per position in ``order``: the observation names that must be known for it to hold.
        absent: Per position: the observation names that must not be known.
        tests: Per position: the conditions to test on known values, as ``(name, condition)`` (``holds``'s
            conditions less "known" and "not known", which ``needs`` and ``absent`` decide).
        seeds: Observation name -> the positions listed under it, each position under one of its needed names
            (so a state's known names list every position that may hold, once).
        free: The positions that need no observation known.
        readers: Observation name -> the positions whose conditions read it (known or not).
    """

    order: tuple[Row | Join, ...]
    yields: dict[str, frozenset[str]]
    needs: tuple[frozenset[str], ...]
    absent: tuple[frozenset[str], ...]
    tests: tuple[tuple[tuple[str, Cond], ...], ...]
    seeds: dict[str, tuple[int, ...]]
    free: tuple[int, ...]
    readers: dict[str, tuple[int, ...]]


def _pairs(item: Row | Join) -> tuple[tuple[str, Cond], ...]:
    """The conditions ``holds`` (a row) or ``Join.holds`` (a join) tests, as ``(name, condition)`` pairs."""
    return _compile(item)[1] if isinstance(item, Row) else tuple(sorted(item.conditions().items()))


_AGENDAS: dict[tuple[int, ...], tuple[tuple[Row | Join, ...], _Agenda]] = {}


def _agenda(items: tuple[Row | Join, ...]) -> _Agenda:
    """``items`` in firing order with their ``yields_to`` and read indexes, built once per set of row objects.

    A watch chains the same rows at every window end: sorting them, reading the explains-away relation and
    indexing what each reads again each time repeated the same work. Rows and joins are immutable tables, keyed
    by identity; the cache holds the objects themselves, so no id in a key can be reused by another object
    while it is cached.
    """
    key = tuple(map(id, items))
    hit = _AGENDAS.get(key)
    if hit is not None:
        return hit[1]
    order = tuple(sorted(items, key=lambda r: (-r.salience, r.id)))
    yields = yields_to(r for r in order if isinstance(r, Row))
    pairs = [_pairs(r) for r in order]
    needs = tuple(frozenset(n for n, c in ps if not isinstance(c, Absent)) for ps in pairs)
    seeds: dict[str, list[int]] = {}
    readers: dict[str, list[int]] = {}
    for pos, ps in enumerate(pairs):
        if needs[pos]:
            seeds.setdefault(min(needs[pos]), []).append(pos)
        for name, _ in ps:
            readers.setdefault(name, []).append(pos)
    agenda = _Agenda(order, yields, needs,
                     tuple(frozenset(n for n, c in ps if isinstance(c, Absent)) for ps in pairs),
                     tuple(tuple((n, c) for n, c in ps if not isinstance(c, (Absent, Present))) for ps in pairs),
                     {n: tuple(ps) for n, ps in seeds.items()},
                     tuple(pos for pos, need in enumerate(needs) if not need),
                     {n: tuple(ps) for n, ps in readers.items()})
    if len(_AGENDAS) >= 64:  # a few row sets in practice (the watch's, tests'); never grows without bound
        _AGENDAS.clear()
    _AGENDAS[key] = (items, agenda)
    return agenda


def chain(rows: Iterable[Row], values: Mapping[str, Any], known: Iterable[str] = (),
          joins: Iterable[Join] = ()) -> Chain:
    """Forward-chain ``rows`` and ``joins`` over ``values`` without the engine: what fires, and in what order.

    The engine's semantics on plain data: of the rows and joins whose conditions hold now (``holds``, the one
    check every reader of a row uses), the one of highest salience fires next (ties: the lower id), its
    derived observations and facts join the state, the policy of causes over symptoms applies, and so on
    until none is left; a finding that another standing one explains away (``yields_to``) goes with its
    routes. A row fires at most once. The engine compiles the same rows into experta rules; a
    property test holds the two to the same firings.

    Only the rows that can still hold are looked at (a worklist): observations are only ever added, and a
    known value never changes, so a row whose conditions on the observations fail once the names it needs are
    known fails for good, and one that needs an unknown name waits until a firing derives that name (the rows
    reading a derived name are checked again). Each firing rescans only that waiting list, in firing order, for
    references (which change both ways), so the result is the plain fixpoint's; ``tests/test_chain_w34.py``
    holds the two to the same firings, values and facts.

    Args:
        rows: The rows to chain.
        values: Observations, name -> value.
        known: References established beforehand (``origin:probe``, ``declined:Q-...``).
        joins: The joins to chain with them.
    """
    values = dict(values)
    facts: list[tuple[str, str, dict[str, Any]]] = []
    for ref in known:
        kind, _, key = ref.partition(":")
        facts.append((kind, key, {}))
    agenda = _agenda((*rows, *joins))
    order, needs, absent, tests = agenda.order, agenda.needs, agenda.absent, agenda.tests
    fired: list[Row | Join] = []
    done: set[int] = set()

    def has(ref: str) -> bool:
        return _has_ref(facts, ref)

    keys = values.keys()

    def ready(pos: int) -> bool:
        """Whether a position not yet fired meets its conditions on the observations (``holds`` less references)."""
        if pos in done or not keys >= needs[pos] or not keys.isdisjoint(absent[pos]):
            return False
        for name, cond in tests[pos]:
            if not cond.test(values[name]):
                return False
        item = order[pos]
        return not isinstance(item, Join) or joined(item.test, *(values[n] for n in item.inputs))

    def refs_hold(item: Row | Join) -> bool:
        """Whether the references of a ready row (join) hold: ``holds``'s last check (``Join.holds``'s flag)."""
        if isinstance(item, Join):
            return not has(f"flag:{item.flag}")
        return all(has(ref) for ref in item.need) and not any(has(ref) for ref in item.unless)

    # The waiting list, in firing order: every position not fired whose conditions on the observations hold now
    # (kept so: a firing changes the observations only by the names it derives, and their readers are re-checked).
    waiting = sorted(pos for pos in (*agenda.free, *(p for n in values for p in agenda.seeds.get(n, ())))
                     if ready(pos))
    while True:
        at = next((i for i, pos in enumerate(waiting) if refs_hold(order[pos])), None)
        if at is None:
            break
        pos = waiting.pop(at)
        done.add(pos)
        nxt = order[pos]
        fired.append(nxt)
        if isinstance(nxt, Join):
            facts.append(("flag", nxt.flag, {}))
            derived = {nxt.derives: nxt.value(*(values[n] for n in nxt.inputs))} \
                if nxt.derives and nxt.value is not None else {}
        else:
            derived = {a.name: a.value for a in nxt.then if isinstance(a, Derive)}
            facts.extend(_asserts(nxt))
        new = [name for name in derived if name not in values]
        for name, value in derived.items():
            values.setdefault(name, value)
        if new:
            # a derived name may complete what a row needs, or end what it requires unknown
            touched = {p for name in new for p in agenda.readers.get(name, ())}
            waiting = sorted({*(p for p in waiting if p not in touched), *(p for p in touched if ready(p))})
        _explained_away(facts, agenda.yields)
        _settle(facts, values)
    return Chain(fired, values, facts)


# The priorities of free-text cues (``Keyword.priority``), stability first: the keyword packs and the talk reader's
# compositions (``knowledge.keywords``, ``knowledge.talk``) rank on this one scale. Here, not in a family, so the
# talk reader reads the scale without importing a family module (and all it imports) into every ``consult``.
P_UNSTABLE, P_OVERFIT, P_NOT_LEARNING, P_CONVERGENCE, P_SLOW = 30, 20, 15, 12, 10
P_MULTI_TASK, P_TRACKING, P_DIRECT, P_NEW_SETUP = 8, 7, 5, 3


@dataclass(frozen=True)
class Keyword:
    """A free-text cue: a phrase (regular expression) that implies observations.

    Attributes:
        pattern: Regular expression, matched case-insensitively on word boundaries (empty when ``phrases`` is
            given).
        sets: Observations it implies.
        negatable: Whether a preceding negation ("no NaN", "not NaN") cancels it.
        cite: The seed keyword list it encodes.
        priority: When two cues set the same observation differently, the higher priority wins
            (e.g. NaN beats "slow" for the symptom: stability first).
        phrases: Literal phrases (real error messages) matched after the same normalisation as the text they
            are looked for in; the language layer turns them into the pattern, longest first.
        asked_reads: Whether the cue reads in a statement closed by "?" (the reader's clause status ``asked``).
            False for a state users ask about before checking it ("the weights differ between ranks?"): asked,
            it is offered to confirm, not read.
        scope: Whether a match by itself puts the text on the topic of training. False for a cue of everyday words
            ("I predict house prices will crash", "no augmentation"): in a text that names nothing of training
            it reads nothing.
        lends_scope: Whether a match puts the rest of the text on topic too. False for a phrase of training made of
            words that everyday text also says ("heavy augmentation" of holiday photos): said alone it is still
            read, but it makes no other movement in the text the run's ("the printer is stuck" stays the printer's).
    """

    pattern: str
    sets: dict[str, Any]
    cite: Cite
    negatable: bool = True
    priority: int = 0
    phrases: tuple[str, ...] = ()
    asked_reads: bool = True
    scope: bool = True
    lends_scope: bool = True


@dataclass
class Family:
    """The rows of one knowledge module, gathered by the registry."""

    name: str
    rows: list[Row] = field(default_factory=list)
    questions: list[QuestionRow] = field(default_factory=list)
    keywords: list[Keyword] = field(default_factory=list)
    joins: list[Join] = field(default_factory=list)
