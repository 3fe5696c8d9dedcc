"""Which question to ask next: the one whose answer best separates the candidate causes still open.

A *candidate* is a knowledge row that routes or evidences a root cause (a cause or lint finding that needs
action), that is relevant to the symptom at hand, whose conditions nothing known contradicts, and that still
waits on at least one unknown observation, every one of which a question that can still apply asks for.
Whether a condition holds is decided by ``knowledge.schema.unmet``, the same check the engine compiles and
``explain --why-not`` reads.

A question's *value* is the expected share of the confusion between first stops that its answer settles. The
confusion of a set of candidates is the weight of the pairs of them that lead to different first stops: two
causes that lead to the same skill need not be told apart. A candidate weighs by its finding's severity
(critical 3, warning 2, otherwise 1), half that for a row that only adds a secondary skill. Each possible
answer (the vocabulary's values for the observation the question sets; for numbers, one value per band cut by
the candidates' thresholds; for text, one value per phrase a candidate looks for) keeps the candidates whose
condition on that observation it satisfies, and those without one; answers that keep the same candidates are
one outcome. Each candidate spreads its weight evenly over the outcomes it allows, and an unnamed cause
("something else", weight 1) over all of them, which gives each outcome its probability.

An answer that completes the evidence of a certain defect (a cause or lint finding that waited on this observation
alone) confirms it, and a confirmed defect outranks whatever it competes with: in that outcome only the confirmed
candidates stay open. Causes that do not read the observation (and the unnamed one) predict a healthy answer, so
their weight goes to the outcomes that confirm no defect. A standing suspect (a tentative lead) lends its evidence to
the candidate that would confirm it (``lent``), so the question that confirms or clears the leader of the
differential is asked before questions about causes nothing known speaks for.

Ties, and questions that separate nothing, keep the seeds' order (the question's rank, then its id). A
negative rank marks a protocol step the seeds put before any diagnosis (clarifying a vague request, the one
quick question under pressure); those come first, by rank.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from expert.facts import has_ref
from knowledge.record import dataclass
from knowledge.schema import (
    Absent,
    Between,
    Cond,
    Contains,
    Cross,
    Find,
    Ge,
    Gt,
    Is,
    Le,
    Lt,
    QuestionRow,
    RouteTo,
    Row,
    Words,
    cond_holds,
    contradicted,
    effective_conditions,
    waits_on_unknown,
)
from knowledge.vocabulary import BOOL, ENUM, FLOAT, INT, VOCABULARY

SEVERITY_WEIGHT = {"critical": 3.0, "warning": 2.0}
"""How much ruling a candidate in or out is worth, by the severity of its finding (anything else: 1)."""

SECONDARY_WEIGHT = 0.5
"""A row that only adds a secondary skill counts this share of its weight (it does not change the first stop)."""

OTHER_WEIGHT = 1.0
"""The weight of "a cause no row names yet": it predicts every answer equally."""

EVIDENCE_WEIGHT = 2.0
"""How much more a candidate weighs for each of its conditions a known value already meets (beyond the symptom):
the leaders of the differential are the causes part of whose evidence is in, and the question worth asking is the
one that separates them, not one that rules on causes nothing known speaks for."""

SYMPTOM_READS = frozenset({"symptom", "loss_behavior"})
"""What the complaint's symptom says: every cause of that symptom fits it, so it is not evidence for one of them."""

WAITS_FACT = "\x00fact"
"""In ``Pooled.waits``: the candidate also needs a fact (another finding) not yet established."""

_OTHER = "\x00another value"
"""A text answer that no condition looks for (no phrase of a row contains a NUL)."""


@dataclass(frozen=True)
class Pooled:
    """A row that can be a candidate cause, prepared once per knowledge base.

    Attributes:
        row: The knowledge row.
        group: Where it leads (its primary skills, else the skills it adds, else its cross-pack target, else
            its own id).
        weight: ``SEVERITY_WEIGHT`` of its finding (times ``SECONDARY_WEIGHT`` when it only adds a skill).
        explains: The symptoms its finding can explain (empty: no finding, its conditions decide).
        conds: Its effective conditions.
        names: The observations its conditions read.
        certain: Whether it establishes a defect (a cause or lint finding) when its conditions hold.
        waits: As a candidate, what it still waits on: the unknown observations its unmet conditions read (and
            ``WAITS_FACT`` when it also needs a fact not yet established).
    """

    row: Row
    group: str
    weight: float
    explains: tuple[str, ...]
    conds: Mapping[str, Cond]
    names: frozenset[str]
    certain: bool = False
    waits: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Value:
    """What asking one question is worth now.

    Attributes:
        question: The question id.
        rank: Its rank (the seeds' order).
        gain: The expected share of the confusion between first stops its answer resolves (0: it separates
            nothing; 1: any answer leaves a single first stop).
        separates: Ids of the candidates whose fate its answer decides.
        stops: The first stops (groups) among them.
        outcomes: How many distinct outcomes its answers have.
    """

    question: str
    rank: int
    gain: float
    separates: tuple[str, ...]
    stops: tuple[str, ...]
    outcomes: int

    @property
    def key(self) -> tuple[bool, float, int, str]:
        """Sort key: protocol steps first, then the most valuable, then the seeds' order, then the id.

        A negative rank marks a step the seeds put before any diagnosis (clarify a vague request; under pressure,
        the one quick question): it comes before every question chosen by value. Gains are rounded so that
        ties are exact.
        """
        return (self.rank >= 0, -round(self.gain, 6), self.rank, self.question)

    def because(self, considered: int) -> str:
        """Why this question is asked rather than the other ``considered - 1`` that apply, in words."""
        if considered <= 1:
            return "the only question that applies now"
        if self.rank < 0:
            return (f"a step the seeds take before any diagnosis, so it comes before the {considered - 1} other "
                    f"question{'s' if considered > 2 else ''} that apply")
        if self.gain <= 0:
            return (f"none of the {considered} questions that apply separates the open candidate causes, so the "
                    "seeds' order decides")
        shown = ", ".join(self.separates[:6]) + (", ..." if len(self.separates) > 6 else "")
        return (f"of the {considered} questions that apply, its answer best separates the open candidate causes: "
                f"it decides {len(self.separates)} ({shown}) leading to {', '.join(self.stops)} "
                f"(expected to settle {self.gain:.0%} of the choice between first stops)")

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return {"question": self.question, "rank": self.rank, "gain": round(self.gain, 6),
                "separates": list(self.separates), "stops": list(self.stops), "outcomes": self.outcomes}


def _group(row: Row) -> str:
    """Where a row leads: its primary skills, else the skills it adds, else its cross-pack target, else itself."""
    for role in ("primary", "secondary"):
        skills = sorted({a.skill for a in row.then if isinstance(a, RouteTo) and a.role == role})
        if skills:
            return "+".join(skills)
    packs = sorted({a.pack for a in row.then if isinstance(a, Cross)})
    return "+".join(packs) if packs else row.id


def _poolable(row: Row) -> bool:
    """Rows that route or evidence a cause; guards, derivations and notes without a route are not causes."""
    return any(isinstance(a, RouteTo) for a in row.then) or any(
        isinstance(a, Find) and a.kind in ("cause", "lint") and a.severity in SEVERITY_WEIGHT for a in row.then)


def pool(rows: Iterable[Row]) -> tuple[Pooled, ...]:
    """The rows that can be candidate causes, with their group, weight and conditions (once per knowledge base).

    A row that only adds a secondary skill to the plan weighs ``SECONDARY_WEIGHT`` of its severity: it changes
    the plan, not where the user starts.
    """
    out = []
    for row in rows:
        if not _poolable(row):
            continue
        finds = [a for a in row.then if isinstance(a, Find)]
        weight = max((SEVERITY_WEIGHT.get(f.severity, 1.0) for f in finds), default=1.0)
        leads = any(isinstance(a, RouteTo) and a.role == "primary" for a in row.then) or any(
            f.kind in ("cause", "lint") for f in finds)
        if not leads:
            weight *= SECONDARY_WEIGHT
        explains = tuple(sorted({s for f in finds for s in f.explains}))
        conds = effective_conditions(row)
        certain = any(f.kind in ("cause", "lint") for f in finds)
        out.append(Pooled(row, _group(row), weight, explains, conds, frozenset(conds), certain))
    return tuple(out)


def askable_now(questions: Iterable[QuestionRow], values: Mapping[str, Any],
                declined: Collection[str] = ()) -> frozenset[str]:
    """The observations a question can still ask for: those of questions nothing known contradicts.

    A question whose conditions a known value rules out (the batch-size question of a slow run, in an unstable
    one) will not be asked, so the causes that wait on its answer cannot be settled by asking; nor will an
    observation the user declined to give (any question of it in ``declined``, question ids).
    """
    questions = tuple(questions)
    refused = {q.sets for q in questions if q.id in declined}
    return frozenset(q.sets for q in questions
                     if q.sets not in values and q.sets not in refused
                     and not contradicted(q, values))


def candidates(pooled: Iterable[Pooled], values: Mapping[str, Any], has: Callable[[str], bool],
               askable: Collection[str]) -> list[Pooled]:
    """The pooled rows still open on ``values``: relevant, not contradicted, waiting on what questions can ask.

    A row that also waits on something no question asks for (a probe's measurement) cannot be settled by
    asking; it is left out, or every first stop it shares would look open whatever the answer.

    Args:
        pooled: ``pool(rows)``.
        values: Known observations, name -> value.
        has: Whether a ``kind:key`` fact reference is established.
        askable: The observations some question sets.
    """
    askable = askable if isinstance(askable, (set, frozenset)) else frozenset(askable)
    return _open_on_facts(_open_on_values(pooled, values, askable), has)


def _open_on_facts(waiting: Iterable[tuple[Pooled, frozenset[str]]], has: Callable[[str], bool]) -> list[Pooled]:
    """The rows of ``_open_on_values`` that no established fact rules out (what ``candidates`` reads of facts)."""
    out = []
    for p, on in waiting:
        row = p.row
        needed = [ref for ref in row.need if not has(ref)]
        if any(ref in row.unless for ref in needed) or any(has(ref) for ref in row.unless):
            continue  # an established fact rules it out
        if needed:
            on |= {WAITS_FACT}  # a needed fact may still be established
        out.append(_with(p, waits=on))
    return out


def _open_on_values(pooled: Iterable[Pooled], values: Mapping[str, Any],
                    askable: frozenset[str]) -> list[tuple[Pooled, frozenset[str]]]:
    """What ``candidates`` decides from the values alone: each row still open on them, with what it waits on."""
    symptom = values.get("symptom")
    known = values.keys()
    out = []
    for p in pooled:
        if symptom is not None and p.explains and symptom not in p.explains:
            continue  # its cause cannot explain what the user faces
        # (set operations in C: every pooled row is judged at every question the engine chooses)
        unknown = p.names - known
        if not unknown or not askable.issuperset(unknown):
            continue  # it waits on nothing, or on something no question asks for (seen before judging the row)
        # ``unmet``'s verdicts, read without listing them: every unknown observation here is askable (above)
        row = p.row
        if contradicted(row, values):
            continue  # a known value contradicts it
        waiting = waits_on_unknown(row, values)
        if not waiting:
            continue  # it stands already, or waits only on facts: nothing left to ask about it
        out.append((p, frozenset(waiting)))
    return out


# The last ``open_candidates`` call's value-decided part: its inputs and answer. A run computes the open candidates
# when it chooses a question, and the report's differential computes them again from the run's final facts: the
# values are most often the same (the question is the run's last step), and only the facts' checks are redone.
_LAST_OPEN: list[Any] = []


def _same_values(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Equal values of equal types (``True == 1``, but a condition may tell them apart)."""
    return a == b and all(type(v) is type(b[k]) for k, v in a.items())


def open_candidates(pooled: Sequence[Pooled], questions: Mapping[str, QuestionRow], values: Mapping[str, Any],
                    est: Collection[str], declined: Collection[str]) -> list[Pooled]:
    """``candidates`` over the questions' askable observations (``askable_now``) and established references ``est``.

    What the values decide (``askable_now`` and the rows open on them) is reused from the last call when the
    inputs are equal (the same pooled rows and question table, equal values and declined questions).
    """
    if _LAST_OPEN:
        p0, q0, v0, d0, waiting = _LAST_OPEN
        if p0 is pooled and q0 is questions and d0 == declined and _same_values(v0, values):
            return _open_on_facts(waiting, lambda ref: has_ref(est, ref))
    waiting = _open_on_values(pooled, values, askable_now(questions.values(), values, declined))
    _LAST_OPEN[:] = [pooled, questions, dict(values), frozenset(declined), waiting]
    return _open_on_facts(waiting, lambda ref: has_ref(est, ref))


def _with(p: Pooled, waits: frozenset[str] | None = None, weight: float | None = None) -> Pooled:
    """``dataclasses.replace(p, waits=..., weight=...)``, made by the constructor itself.

    ``replace`` reads the fields' list each time, and the candidates are remade at every question chosen.
    """
    # by keyword: a field added or reordered in ``Pooled`` cannot shift the values into the wrong ones
    return Pooled(row=p.row, group=p.group, weight=p.weight if weight is None else weight, explains=p.explains,
                  conds=p.conds, names=p.names, certain=p.certain, waits=p.waits if waits is None else waits)


def supported(p: Pooled, values: Mapping[str, Any], applicable: Collection[str]) -> bool:
    """Whether an open candidate belongs in the differential now.

    It does when a known value beyond the complaint's symptom meets one of its conditions (part of its evidence is
    in), or when it fits the symptom and every observation it still waits on is asked by a question that applies
    now (the next answers can confirm it). The symptom and the loss curve alone fit every cause of that symptom,
    so they do not single one out. A candidate that only waits on questions whose own gates are unmet (a
    clarification of a vague request, a preference-tuning detail, the regression-target question of a run whose
    task is unknown) is possible for any run: listed beside a hang or a NaN it is noise, not a competing cause.

    Args:
        p: The candidate (from ``candidates``).
        values: Known observations, name -> value.
        applicable: The observations set by the questions that apply now.
    """
    if any(name in values and name not in SYMPTOM_READS and not isinstance(cond, Absent)
           and cond_holds(cond, True, values[name]) for name, cond in p.conds.items()):
        return True
    symptom = values.get("symptom")
    fits = [cond_holds(p.conds[n], True, values[n]) for n in SYMPTOM_READS if n in p.conds and n in values]
    if not (fits and all(fits)) and (symptom is None or symptom not in p.explains):
        return False
    return all(name in applicable for name in p.names if name not in values)


def evidence(p: Pooled, values: Mapping[str, Any]) -> int:
    """How many of a candidate's conditions known values already meet, beyond the complaint's symptom.

    The symptom and the loss curve fit every cause of that symptom (``SYMPTOM_READS``), and a condition that needs
    an observation unknown says nothing known speaks for the cause: neither counts.
    """
    return sum(1 for name, cond in p.conds.items()
               if name in values and name not in SYMPTOM_READS and not isinstance(cond, Absent)
               and cond_holds(cond, True, values[name]))


def lent(open_: Sequence[Pooled], leads: Iterable[Pooled], values: Mapping[str, Any]) -> dict[str, int]:
    """Evidence that standing suspects lend to the open candidates that would confirm them.

    A suspect (a tentative lead) stands while the observation that would confirm it is unknown (it reads that
    observation as ``Absent``). The candidate that reads the same observation and leads to the same first stop is
    the confirmed form of that suspect: whatever speaks for the suspect (a metric lower by the number of GPUs, for a
    per-rank count divided by the whole dataset) speaks for it too, though its own conditions do not read it.

    Args:
        open_: The open candidates.
        leads: The pooled rows of the suspects that stand now.
        values: Known observations, name -> value.

    Returns:
        Candidate row id -> the number of a suspect's met conditions the candidate does not read itself (the
        largest over the suspects it confirms).
    """
    out: dict[str, int] = {}
    for s in leads:
        waits = {n for n, c in s.conds.items() if isinstance(c, Absent) and n not in values}
        met = {n for n, c in s.conds.items() if n in values and n not in SYMPTOM_READS
               and not isinstance(c, Absent) and cond_holds(c, True, values[n])}
        if not waits or not met:
            continue
        for p in open_:
            reads = {n for n, c in p.conds.items() if not isinstance(c, Absent)}
            extra = len(met - reads)
            if p.group == s.group and waits & reads and extra > out.get(p.row.id, 0):
                out[p.row.id] = extra
    return out


def weigh(open_: Sequence[Pooled], values: Mapping[str, Any], leads: Iterable[Pooled] = ()) -> list[Pooled]:
    """The open candidates weighed by the evidence already in: the leaders of the differential count more.

    Each condition a known value meets multiplies a candidate's severity weight by ``1 + EVIDENCE_WEIGHT`` (once:
    ``1 + EVIDENCE_WEIGHT * n``): "softmax before CrossEntropyLoss" weighs more once the loss is known to be
    cross-entropy, so the question about the output (which settles it) outranks one about a cause nothing known
    points to. The evidence of a standing suspect counts for the candidates that would confirm it (``lent``), so the
    question that confirms or clears the tentative lead outranks one about causes nothing known speaks for.
    Candidates without evidence keep their weight; their relative order is unchanged.

    Args:
        open_: The open candidates.
        values: Known observations, name -> value.
        leads: The pooled rows of the suspects that stand now.
    """
    extra = lent(open_, leads, values)
    out = []
    for p in open_:
        n = evidence(p, values) + extra.get(p.row.id, 0)
        out.append(_with(p, weight=p.weight * (1.0 + EVIDENCE_WEIGHT * n)) if n else p)
    # A suspect is the reading its evidence makes most likely: its confirmation weighs at least as much as every
    # other open cause (and the unnamed one) together, so the question that settles it is a fair coin, worth asking.
    rest = OTHER_WEIGHT + sum(p.weight for p in out if p.row.id not in extra)
    return [_with(p, weight=max(p.weight, rest)) if p.row.id in extra else p for p in out]


def _representatives(name: str, conds: Sequence[Cond]) -> list[Any]:
    """One answer per kind of value the conditions can tell apart (plus one none of them looks for)."""
    s = VOCABULARY.get(name)
    kind = s.kind if s is not None else ""
    if kind == ENUM:
        return list(s.choices)
    if kind == BOOL:
        return [True, False]
    if kind in (INT, FLOAT):
        cuts: set[float] = set()
        for c in conds:
            if isinstance(c, (Lt, Le, Gt, Ge)):
                cuts.add(float(c.limit))
            elif isinstance(c, Between):
                cuts |= {float(c.low), float(c.high)}
            elif isinstance(c, Is):
                cuts |= {float(v) for v in c.values if isinstance(v, (int, float)) and not isinstance(v, bool)}
        pts = sorted(cuts)
        if not pts:
            return [1]
        below = pts[0] / 2 if pts[0] > 0 else pts[0] - 1
        above = pts[-1] * 2 if pts[-1] > 0 else pts[-1] + 1
        samples = [below, *pts, *((a + b) / 2 for a, b in zip(pts, pts[1:])), above]
        if kind == INT:
            samples = [int(math.floor(x)) for x in samples] + [int(math.ceil(x)) for x in samples]
        lo, hi = (s.low, s.high) if s is not None else (None, None)
        return [x for x in samples if (lo is None or x >= lo) and (hi is None or x <= hi)]
    out: list[Any] = [_OTHER]
    for c in conds:
        if isinstance(c, Is):
            out.extend(c.values)
        elif isinstance(c, Contains):
            out.extend(c.needles)
        elif isinstance(c, Words):
            out.extend(c.terms)
    return out


_UNNAMED = "\x00unnamed"
"""The first stop of the unnamed cause (no skill is called this)."""


def confusion(groups: Mapping[str, float]) -> float:
    """Weight of the pairs of open candidates that lead to different first stops (weights per first stop).

    Half of (total weight squared minus the sum of each first stop's weight squared): the Gini impurity of the
    first stops, unnormalised. Two candidates that lead to the same skill are never counted as confused.
    """
    total = sum(groups.values())
    return (total * total - sum(w * w for w in groups.values())) / 2


def value(q: QuestionRow, open_: Sequence[Pooled]) -> Value:
    """The value of asking ``q`` with ``open_`` candidates (see the module docstring)."""
    name = q.sets
    # A condition that needs the observation unknown is a fallback, not a prediction: it is left out.
    affected = [(p, p.conds[name]) for p in open_ if name in p.conds and not isinstance(p.conds[name], Absent)]
    if not affected:
        return Value(q.id, q.rank, 0.0, (), (), 1)
    outcomes: dict[tuple[bool, ...], None] = {}
    for v in _representatives(name, [c for _, c in affected]):
        outcomes.setdefault(tuple(cond_holds(c, True, v) for _, c in affected), None)
    cells = list(outcomes)
    n = len(cells)
    # What stays open whatever the answer: candidates without a condition on the observation, and the unnamed
    # cause (its own first stop), each spreading its weight evenly over the outcomes.
    base: dict[str, float] = {_UNNAMED: OTHER_WEIGHT}
    for p in open_:
        if name not in p.conds or isinstance(p.conds[name], Absent):
            base[p.group] = base.get(p.group, 0.0) + p.weight
    # A cause that does not read this observation predicts a healthy answer: its mass (and the unnamed cause's) goes
    # to the outcomes in which no certain defect is confirmed, not to the answer that would confirm one.
    healthy = [k for k, cell in enumerate(cells)
               if not any(cell[i] and p.certain and p.waits == {name} for i, (p, _) in enumerate(affected))] \
        or list(range(n))
    mass = [sum(base.values()) / len(healthy) if k in healthy else 0.0 for k in range(n)]
    for i, (p, _) in enumerate(affected):
        hits = [k for k, cell in enumerate(cells) if cell[i]]
        for k in hits:
            mass[k] += p.weight / len(hits)
    norm = sum(mass)
    expected = 0.0
    for k, cell in enumerate(cells):
        # An answer that completes a certain defect's evidence (this observation was all it waited on) confirms it:
        # a confirmed defect outranks every reading it would compete with, so only the confirmed ones stay open.
        confirmed = [p for i, (p, _) in enumerate(affected) if cell[i] and p.certain and p.waits == {name}]
        alive = {} if confirmed else dict(base)
        for i, (p, _) in enumerate(affected):
            if cell[i] and (not confirmed or p in confirmed):
                alive[p.group] = alive.get(p.group, 0.0) + p.weight
        expected += mass[k] / norm * confusion(alive)
    before = dict(base)
    for p, _ in affected:
        before[p.group] = before.get(p.group, 0.0) + p.weight
    # As a share of the confusion before asking, so the figure reads the same whatever the pool's size.
    gain = 1.0 - expected / confusion(before) if confusion(before) > 0 else 0.0
    # Which candidates the answer decides: those some outcome keeps and another rules out.
    decided = [p for i, (p, _) in enumerate(affected) if len({cell[i] for cell in cells}) > 1]
    if gain <= 1e-9 or not decided:
        return Value(q.id, q.rank, 0.0, (), (), n)
    return Value(q.id, q.rank, gain, tuple(sorted(p.row.id for p in decided)),
                 tuple(sorted({p.group for p in decided})), n)


def rank_questions(questions: Iterable[QuestionRow], open_: Sequence[Pooled]) -> list[Value]:
    """Every question's value, best first (ties: the seeds' order)."""
    return sorted((value(q, open_) for q in questions), key=lambda v: v.key)


__all__ = ["EVIDENCE_WEIGHT", "OTHER_WEIGHT", "SECONDARY_WEIGHT", "SEVERITY_WEIGHT", "Pooled", "Value", "askable_now",
           "candidates", "confusion", "evidence", "lent", "pool", "rank_questions", "supported", "value", "weigh"]
