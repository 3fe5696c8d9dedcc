"""The experta engine, hardened against experta 1.9.4's agenda defects, with an audit trail of every firing.

Guards (see ``shared/design/EXPERTA.md``), each covered by a regression test that fails on the stock engine:

* ``TotalOrderStrategy`` removes activations by scanning the whole agenda (experta's bisect looks only at
  neighbours and misses removals when several same-salience activations share facts), and orders ties
  totally: salience, then rule rank (by id), then fact ids; the stock order changes between processes.
* ``AuditedEngine.run`` checks that every fact of an activation still exists before it fires, records the
  firing (rule, knowledge row, matched facts, what it asserted and retracted), leaves ``running`` false
  even when a right-hand side raises, and stops a runaway chain after ``MAX_FIRINGS``.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import inspect
import math
import operator
from collections.abc import Callable, Iterable
from typing import Any

from expert._experta import (
    AND,
    AS,
    FACTS,
    MATCH,
    NOT,
    OR,
    TEST,
    ConditionalElement,
    DefFacts,
    Fact,
    FactList,
    KnowledgeEngine,
    P,
    Rule,
    Strategy,
    watchers,
)
from expert.choose import Pooled, open_candidates, pool, rank_questions, weigh
from expert.facts import (
    Block,
    Boundary,
    Context,
    Declined,
    Finding,
    Flag,
    Obs,
    Question,
    Route,
    established,
    plain,
    ref_pattern,
)
from expert.rete import CachedReteMatcher
from knowledge.errors import KnowledgeError
from knowledge.questions import WAIVED_ON_DECLINE, WAIVED_QUESTIONS_MAX
from knowledge.record import dataclass
from knowledge.schema import (
    ACTS,
    EXPLAINED,
    SUPERSEDED,
    Absent,
    Cite,
    Cross,
    Derive,
    Find,
    Holds,
    Is,
    Join,
    QuestionRow,
    RouteTo,
    Row,
    effective_conditions,
    joined,
    refinements,
    yields_to,
)
from knowledge.schema import Block as BlockAction
from knowledge.schema import Flag as FlagAction
from knowledge.skills import SKILL_BY_NAME

MAX_FIRINGS = 500
"""A consultation derives tens of facts; more firings than this means a loop in the knowledge."""

QUESTION_SALIENCE = -1000
"""Questions fire after every row has had its say; of those that apply, the one that best separates the open
causes fires (``AuditedEngine.resolve_questions``), the seeds' order (rank) breaking ties."""


# ---------------------------------------------------------------------------------------------------
# Rule metadata
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleInfo:
    """What the audit trail and ``trainopt rule ID`` know about one compiled rule."""

    id: str
    kind: str  # "row", "question", "join", "hand" (tests), "core"
    family: str
    rationale: str
    cite: Cite | None
    row: Row | QuestionRow | None = None


def hand_rule(rule_id: str, cite: Cite, rationale: str, *patterns: Any, salience: int = 0
              ) -> Callable[[Callable[..., Any]], Rule]:
    """Declare a hand-written rule (a join the row factory cannot express) with its id and citation.

    Use inside a mixin class in a knowledge family file; the registry finds it by its id.

    Args:
        rule_id: Stable prefixed id.
        cite: The seed row it encodes.
        rationale: Why, in our words.
        *patterns: experta patterns.
        salience: Firing priority.
    """

    def deco(fn: Callable[..., Any]) -> Rule:
        fn._trainopt = RuleInfo(rule_id, "hand", "", rationale, cite)  # type: ignore[attr-defined]
        return Rule(*patterns, salience=salience)(fn)

    return deco


def _info(rule: Rule) -> RuleInfo:
    info = getattr(rule, "_trainopt", None)
    if info is None:
        raise KnowledgeError(f"rule {rule.__name__!r} has no trainopt id", hint="declare it with hand_rule()")
    return info


# ---------------------------------------------------------------------------------------------------
# Strategy
# ---------------------------------------------------------------------------------------------------


def _sig(act: Any) -> tuple[Any, ...]:
    context = act.context
    bound = act.__dict__.get("frozen")  # ``frozenset(context.items())`` kept by the network (``rete._Activation``)
    if bound is None:
        try:  # (the network hashes every activation it makes, bindings included: a value is hashable as a rule)
            bound = frozenset(context.items())
        except TypeError:
            bound = frozenset((k, _hashable(v)) for k, v in context.items())
    return (_info(act.rule).id, frozenset(map(_FACT_ID, act.facts)), bound)


def _sig_of(act: Any) -> tuple[Any, ...]:
    """``_sig(act)``, kept on the activation (its rule, facts and bindings never change)."""
    # read from the activation's attributes: on an activation's first scan it is missing, and finding that out
    # by a raised ``AttributeError`` cost more than the lookup
    state = act.__dict__
    sig = state.get("sig")
    if sig is None:
        sig = state["sig"] = _sig(act)
    return sig


def _hashable(v: Any) -> Any:
    try:
        hash(v)
    except TypeError:
        return repr(v)
    return v


_KEY = operator.attrgetter("key")
_INFO = 20  # ``logging.INFO``
_FACT_ID = operator.itemgetter("__factid__")


class TotalOrderStrategy(Strategy):
    """Agenda ordering that is total and removal that never leaves a stale activation."""

    def __init__(self) -> None:
        self.rank: dict[str, int] = {}

    def get_key(self, act: Any) -> tuple[Any, ...]:
        """Salience, then rule rank (lower id fires first), then newest facts first."""
        rank = self.rank.get(_info(act.rule).id, 0)
        facts = tuple(sorted(map(_FACT_ID, act.facts), reverse=True))
        return (act.rule.salience, -rank, facts)

    def _update_agenda(self, agenda: Any, added: Iterable[Any], removed: Iterable[Any]) -> None:
        gone = {_sig(a) for a in removed}
        if gone:
            # Scan everything: experta's bisect-and-neighbours removal misses equal keys further away. An
            # activation's rule, facts and bindings never change, so its signature is computed once.
            # (a signature kept already is read in C: most activations on the agenda were scanned before)
            agenda.activations = [a for a in agenda.activations
                                  if (a.__dict__.get("sig") or _sig_of(a)) not in gone]
        for act in added:
            act.key = self.get_key(act)
            # the place experta's ``Activation.__lt__`` (``self.key < other.key``) finds, compared in C
            bisect.insort(agenda.activations, act, key=_KEY)


# ---------------------------------------------------------------------------------------------------
# Audit
# ---------------------------------------------------------------------------------------------------


class Firing:
    """One entry of the audit trail: the rule, its knowledge row's citation, the facts it matched, asserted, retracted.

    ``matched``, ``asserted`` and ``retracted`` are JSON-ready dicts of facts (``plain``). The engine records the
    facts themselves (``recorded``), which never change once declared, and each list is made when first read: a
    diagnosis reads the few firings its findings cite, while the trail of every firing is read only when asked for.
    """

    __slots__ = ("seq", "rule", "kind", "family", "cite", "_matched", "_asserted", "_retracted")

    def __init__(self, seq: int, rule: str, kind: str, family: str, cite: dict[str, str] | None,
                 matched: list[dict[str, Any]], asserted: list[dict[str, Any]] | None = None,
                 retracted: list[dict[str, Any]] | None = None) -> None:
        self.seq, self.rule, self.kind, self.family, self.cite = seq, rule, kind, family, cite
        self._matched: Any = matched
        self._asserted: Any = [] if asserted is None else asserted
        self._retracted: Any = [] if retracted is None else retracted

    @classmethod
    def recorded(cls, seq: int, info: RuleInfo, matched: tuple[Any, ...]) -> Firing:
        """A firing of the rule ``info`` describes, over the facts ``matched`` (made plain when first read)."""
        return cls(seq, info.id, info.kind, info.family, info.cite.as_dict() if info.cite else None,
                   matched, (), ())  # type: ignore[arg-type]

    @property
    def matched(self) -> list[dict[str, Any]]:
        """The facts the rule matched, in fact-id order."""
        got = self._matched
        if type(got) is tuple:  # facts, not yet made plain
            got = self._matched = [plain(f) for f in got]
        return got

    @matched.setter
    def matched(self, value: list[dict[str, Any]]) -> None:
        self._matched = value

    @property
    def asserted(self) -> list[dict[str, Any]]:
        """The facts its right-hand side asserted (and that still stood when it finished), in fact-id order."""
        got = self._asserted
        if type(got) is tuple:
            got = self._asserted = [plain(f) for f in got]
        return got

    @asserted.setter
    def asserted(self, value: list[dict[str, Any]]) -> None:
        self._asserted = value

    @property
    def retracted(self) -> list[dict[str, Any]]:
        """The facts declared before it that its right-hand side retracted, in fact-id order."""
        got = self._retracted
        if type(got) is tuple:
            got = self._retracted = [plain(f) for f in got]
        return got

    @retracted.setter
    def retracted(self, value: list[dict[str, Any]]) -> None:
        self._retracted = value

    def facts_asserted(self) -> tuple[Any, ...] | list[dict[str, Any]]:
        """What it asserted as recorded: the facts themselves, or their dicts once read (both index by field)."""
        return self._asserted

    def _fields(self) -> tuple[Any, ...]:
        return (self.seq, self.rule, self.kind, self.family, self.cite, self.matched, self.asserted, self.retracted)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it replaces

    def __repr__(self) -> str:
        return (f"Firing(seq={self.seq!r}, rule={self.rule!r}, kind={self.kind!r}, family={self.family!r}, "
                f"cite={self.cite!r}, matched={self.matched!r}, asserted={self.asserted!r}, "
                f"retracted={self.retracted!r})")

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return {"seq": self.seq, "rule": self.rule, "kind": self.kind, "family": self.family, "cite": self.cite,
                "matched": self.matched, "asserted": self.asserted, "retracted": self.retracted}


YIELDS_TO: dict[str, frozenset[str]] = {}
"""Row id -> the rows whose finding explains it away (``knowledge.schema.yields_to``), for every compiled row.

Ids name the same row in every engine class built in a process, so one table serves them all."""

YIELDED: set[str] = set()
"""Every row id some row yields to (the values of ``YIELDS_TO``, together)."""


def _yields(eid: Any) -> bool:
    """A finding that some other finding can explain away."""
    return eid in YIELDS_TO


def _yielded(cid: Any) -> bool:
    """A finding that can explain another away."""
    return cid in YIELDED


def _guarded(basis: Any) -> bool:
    """Guards correct symptom-table routing; routes from an evidenced cause or a lint are not theirs to move."""
    return basis not in ("cause", "lint")


def _acts(severity: Any) -> bool:
    """Only a cause that needs action (warning or critical) supersedes the symptom tables."""
    return severity in ACTS


def _superseded(kind: Any) -> bool:
    """Symptom-table readings and tentative leads yield to an evidenced cause (``knowledge.schema.SUPERSEDED``)."""
    return kind in SUPERSEDED


def _leads(basis: Any) -> bool:
    return basis != "lint"


_KEYS: dict[frozenset[Any], tuple[bool, bool]] = {}
"""A fact's key set -> (a key experta calls nested, a key experta calls special): a few dozen key sets."""

_CE_TYPES: dict[frozenset[type], bool] = {}
"""A fact's set of value types -> whether a value is a pattern (experta's ``ConditionalElement``)."""


def _keys_info(fact: Any) -> tuple[bool, bool]:
    """Whether a key of the fact is nested (experta's ``has_nested_accessor``), and whether one is special."""
    keys = frozenset(fact)
    got = _KEYS.get(keys)
    if got is None:
        got = _KEYS[keys] = (any("__" in str(k).strip("_") for k in keys), any(Fact.is_special(k) for k in keys))
    return got


def _constrained(fact: Any) -> bool:
    """Whether some value of the fact is a pattern (experta's ``has_field_constraints``), decided by type."""
    types = frozenset(map(type, fact.values()))
    got = _CE_TYPES.get(types)
    if got is None:
        got = _CE_TYPES[types] = any(issubclass(t, ConditionalElement) for t in types)
    return got


def _add_fact(fl: Any, fact: Any, special: bool, log: bool | None = None) -> Any:
    """Add a fact as experta's ``FactList.declare`` does: validate, add unless held; the new fact, or None.

    The fact id is experta's (the class and every field but the special ones), built in one step when no key
    is special, as before any declare.
    """
    cls = type(fact)
    if cls.__fields__ or cls.validate is not Fact.validate:  # experta's validate checks declared fields only
        fact.validate()
    fact_id = FactList._get_fact_id(fact) if special else frozenset((fact.__class__, *fact.items()))
    if fl.duplication or fact_id not in fl.reference_counter:
        idx = fl.last_index
        dict.__setitem__(fact, "__factid__", idx)  # what the ``__factid__`` setter does, without its call
        # experta's ``Fact.__hash__`` (its fields, the fact id among them), kept where it keeps it: the network
        # hashes every new fact at once, and that first call finds no kept value by raising and catching an
        # ``AttributeError`` (a tenth of what declaring a fact costs). A hash taken before is left as it is.
        state = fact.__dict__
        if "_hash" not in state:
            state["_hash"] = hash(frozenset(fact.items()))
        fl[idx] = fact
        fl.last_index += 1
        fl.added.append(fact)
        counter = fl.reference_counter  # a ``Counter``: ``+= 1`` on a new id calls its ``__missing__`` (in Python)
        counter[fact_id] = counter.get(fact_id, 0) + 1
        if FACTS.isEnabledFor(_INFO) if log is None else log:  # (``Logger.info`` asks the same first)
            FACTS.info(" ==> %s: %r", fact, fact)
        return fact
    return None


class AuditedEngine(KnowledgeEngine):
    """experta engine with the guarded strategy and a run loop that records every firing."""

    __strategy__ = TotalOrderStrategy
    __matcher__ = CachedReteMatcher
    cache_name: str | None = None
    """Set on the knowledge base's class (``expert.kb``): its compiled network is kept in the user's cache."""

    pooled: tuple[Pooled, ...] = ()
    """The knowledge rows that can be candidate causes (what a question is weighed against)."""
    questions: dict[str, QuestionRow] = {}
    """The compiled question rows by id."""
    suspected: frozenset[str] = frozenset()
    """Observations whose questions check what the user suspects (set per run by the consultation): of the
    questions that separate the open causes, one of these is asked first. A hypothesis is never an observation."""
    _retracted: list[Any] | None = None

    def __init__(self) -> None:
        super().__init__()
        self.trail: list[Firing] = []
        self.skipped_stale = 0
        self.rule_info: dict[str, RuleInfo] = {}
        for i, info in enumerate(sorted((_info(r) for r in self.get_rules()), key=lambda x: x.id)):
            self.rule_info[info.id] = info
            self.strategy.rank[info.id] = i

    def reset(self, **kwargs: Any) -> None:
        """Clear facts, agenda and trail."""
        super().reset(**kwargs)
        self.trail = []
        self.skipped_stale = 0

    # experta finds its rules and deffacts with ``inspect.getmembers(self)`` (every attribute of a class of
    # ~450 rules, bound one by one) at construction and again at every ``reset``: the names are the class's,
    # found once; the members are bound to this engine as experta binds them, in the same (name) order.

    @classmethod
    def _member_names(cls, kind: type) -> tuple[str, ...]:
        names = cls.__dict__.get("_members_of")
        if names is None:
            # experta asks for both kinds (rules as the engine is made, deffacts at its first reset): one walk
            # of the class's attributes finds both
            members = [(n, getattr(cls, n, None)) for n in dir(cls)]
            names = {k: tuple(n for n, v in members if isinstance(v, k)) for k in (Rule, DefFacts)}
            cls._members_of = names
        if kind not in names:
            names[kind] = tuple(n for n in dir(cls) if isinstance(getattr(cls, n, None), kind))
        return names[kind]

    def _get_by_type(self, wanted_type: type) -> Iterable[Any]:
        for name in self._member_names(wanted_type):
            obj = getattr(self, name)
            obj.ke = self
            yield obj

    # experta declares fact by fact with checks that walk every field in Python (a generator per check, a
    # method call per key) and a fact id built key by key. The same checks and the same fact list entries,
    # with what depends only on a fact's keys or its value types found once per key set or type set.

    def _KnowledgeEngine__declare(self, *facts: Any) -> Any:  # noqa: N802 - overrides experta's private method
        """Declare as experta's ``__declare`` does: refuse patterns and nested keys, add, update the agenda."""
        for f in facts:
            if not isinstance(f, Fact):  # experta's own errors for what is not a fact
                return KnowledgeEngine._KnowledgeEngine__declare(self, *facts)  # type: ignore[attr-defined]
        # (plain loops: a declare of a hundred observations paid a generator step per fact and check)
        # (``_keys_info`` and ``_constrained``, their table lookups inlined: called only for a new key or type set)
        keys_of = []
        constrained = nested = False
        for f in facts:
            got = _KEYS.get(frozenset(f))
            if got is None:
                got = _keys_info(f)
            keys_of.append(got)
            if not constrained:
                ce = _CE_TYPES.get(frozenset(map(type, f.values())))
                constrained = _constrained(f) if ce is None else ce
            nested = nested or got[0]
        if constrained:
            raise TypeError("Declared facts cannot contain conditional elements")
        if nested:
            raise KeyError("Cannot declare facts containing double underscores as keys.")
        fl = self.facts
        last = None
        log = FACTS.isEnabledFor(_INFO)  # asked once per declare, not once per fact (the level holds meanwhile)
        for fact, (_, special) in zip(facts, keys_of):
            last = _add_fact(fl, fact, special, log)
        if not self.running:
            added, removed = self.get_activations()
            self.strategy.update_agenda(self.agenda, added, removed)
        return last

    def retract(self, idx_or_declared_fact: Any) -> Any:
        """Retract a fact (experta's), noting it for the firing whose right-hand side retracts it."""
        idx = idx_or_declared_fact if isinstance(idx_or_declared_fact, int) else idx_or_declared_fact.__factid__
        fact = self.facts.get(idx)
        out = super().retract(idx_or_declared_fact)
        if fact is not None and self._retracted is not None:
            self._retracted.append(fact)
        return out

    def _holds(self, act: Any) -> bool:
        facts = self.facts
        for f in act.facts:
            held = facts.get(f.get("__factid__"))
            # (the fact held is the activation's own object but for a reset in between: ``is`` decides most)
            if held is not f and (held is None or held != f):
                return False
        return True

    def run(self, steps: float = math.inf) -> None:
        """Fire activations until the agenda is empty, recording each firing.

        Raises:
            KnowledgeError: More than ``MAX_FIRINGS`` firings (a loop in the knowledge).
        """
        self.running = True
        strategy = self.strategy
        # experta's ``update_agenda`` asks its watcher whether to log each change first: asked once per run (the
        # level holds meanwhile); no change, no update (an update with nothing added or removed does nothing)
        update = strategy.update_agenda if watchers.worth("ACTIVATIONS", "INFO") else strategy._update_agenda
        try:
            while steps > 0 and self.running:
                added, removed = self.get_activations()
                if added or removed:
                    update(self.agenda, added, removed)
                self.resolve_questions()
                act = self.agenda.get_next()
                if act is None:
                    break
                if not self._holds(act):
                    self.skipped_stale += 1
                    continue
                if len(self.trail) >= MAX_FIRINGS:
                    raise KnowledgeError(f"more than {MAX_FIRINGS} rule firings; the knowledge loops",
                                         context=f"last rule: {self.trail[-1].rule}")
                info = _info(act.rule)
                first_new = self.facts.last_index  # fact ids only grow: what the firing asserts is above it
                self._retracted = []
                # (the facts as they are: ``Firing`` makes them plain when read)
                rec = Firing.recorded(len(self.trail) + 1, info,
                                      tuple([f for f in sorted(act.facts, key=_FACT_ID)
                                             if type(f).__name__ != "InitialFact"]))
                self.trail.append(rec)
                self._firing = rec
                act.rule(self, **{k: v for k, v in act.context.items() if not k.startswith("__")})
                rec._asserted = tuple(self._declared_since(first_new))
                rec._retracted = tuple(f for f in sorted(self._retracted, key=_FACT_ID) if f["__factid__"] < first_new)
                steps -= 1
        finally:
            self.running = False
            self._firing = None
            self._retracted = None

    def _declared_since(self, first: int) -> list[Any]:
        """The facts now held whose ids are ``first`` or above, in id order (the fact list's own order)."""
        out = []
        for k in reversed(self.facts):
            if k < first:
                break
            out.append(self.facts[k])
        out.reverse()
        return out

    @classmethod
    def core_ids(cls) -> list[str]:
        """The ids of the engine's own (core) rules."""
        return [_info(r).id for r in vars(AuditedEngine).values() if isinstance(r, Rule)]

    # which question: conflict resolution among the questions that apply -----------------------------

    def resolve_questions(self) -> None:
        """When questions lead the agenda, put first the one whose answer best separates the open causes.

        Questions sit below every other band, so when one leads the agenda every row has had its say and the
        question activations on it are exactly the questions that apply now. ``expert.choose`` ranks them (its
        docstring has the measure); the best is moved to the top and its reasons are kept for the ``Question``
        fact it asserts, so the audit trail says why it was asked. Once it is pending the others' activations
        fall away (a question applies only while none is pending).
        """
        self._choice = None
        acts = self.agenda.activations
        if not acts or _info(acts[-1].rule).kind != "question":
            return
        pending = {_info(a.rule).id: a for a in acts if _info(a.rule).kind == "question" and self._holds(a)}
        rows = [self.questions[qid] for qid in sorted(pending) if qid in self.questions]
        if not rows:
            return
        values = {f["name"]: f["value"] for f in self.facts.values() if isinstance(f, Obs)}
        declined = {f["question"] for f in self.facts.values() if isinstance(f, Declined)}
        open_ = open_candidates(self.pooled, self.questions, values, self._established(), declined)
        # Suspects that stand now (tentative leads): their evidence counts for the candidates that confirm them.
        # (``has_ref(est, f"finding:{id}")`` for every pooled row, read from the findings that stand instead)
        found = {f["id"] for f in self.facts.values() if type(f) is Finding and "id" in f}
        leads = [p for p in self.pooled if p.row.id in found
                 and any(isinstance(a, Find) and a.kind == "suspect" for a in p.row.then)]
        ranked = rank_questions(rows, weigh(open_, values, leads))
        # A question that applies only because its gate was waived (the user declined to give the symptom) is
        # worth asking only when its answer separates open causes; one that separates nothing is dropped.
        # And a user who would not name the symptom answers a few such checks, not a questionnaire.
        spent = sum(qid in self.questions and _waived(self.questions[qid], values) for qid in declined)
        idle = {v.question for v in ranked if _waived(self.questions[v.question], values)
                and (v.gain <= 0 or spent >= WAIVED_QUESTIONS_MAX)}
        # A late question (context asked once the symptom's own checks are done) is worth that extra step only when
        # its answer decides an open cause: the loss of a run whose loss causes are all ruled out is noise.
        idle |= {v.question for v in ranked if self.questions[v.question].late and v.gain <= 0}
        if idle:
            for qid in idle:
                acts.remove(pending[qid])
            ranked = [v for v in ranked if v.question not in idle]
            if not ranked:
                return
        # They come after every question that applies in its own right (the seeds' protocol goes first).
        # A late question (context such as the kind of run, or the loss once the symptom's own checks are done)
        # waits until nothing else applies, waived ones included. Asked only because its gate was waived, it is one
        # of the few checks left to a user who would not name the symptom, and competes with them by its value.
        ranked = [v for v in ranked if not (self.questions[v.question].late
                                            and not _waived(self.questions[v.question], values))] or ranked
        own = [v for v in ranked if not _waived(self.questions[v.question], values)]
        ranked = own or ranked
        best = ranked[0]
        # What the user suspects is checked first, once its question separates the open causes (it decides one of
        # the leaders); a protocol step still comes before it, and a suspicion nothing open bears on waits its turn.
        checks = [v for v in ranked if v.rank >= 0 and v.gain > 0 and self.questions[v.question].sets in self.suspected]
        suspect = bool(checks) and best.rank >= 0
        if suspect:
            best = checks[0]
        chosen = pending[best.question]
        # A key above every other question's (still below every row: none is pending), so the agenda stays sorted.
        chosen.key = (max(a.key[0] for a in acts) + 1, *chosen.key[1:])
        acts.sort()
        why = best.because(len(ranked))
        if suspect:
            why = f"it checks what you suspect, and {why}"
        self._choice = {"id": best.question, "chosen": why, "separates": best.separates,
                        "stops": best.stops, "gain": round(best.gain, 6),
                        "considered": tuple(v.question for v in ranked),
                        "gains": tuple(round(v.gain, 6) for v in ranked), "open_causes": len(open_)}

    def choice_for(self, question_id: str) -> dict[str, Any]:
        """Why ``question_id`` is being asked (fields for its ``Question`` fact); empty when it was not chosen."""
        choice = getattr(self, "_choice", None)
        if not choice or choice["id"] != question_id:
            return {}
        return {k: v for k, v in choice.items() if k != "id"}

    def _established(self) -> set[str]:
        """Every ``kind:key`` reference the current facts establish (and ``kind:*`` for each kind present)."""
        return established(self.facts.values())

    # helpers for right-hand sides --------------------------------------------------------------------

    def current_rule(self) -> str:
        """Id of the rule whose right-hand side is running."""
        return self._firing.rule if getattr(self, "_firing", None) else "?"

    # core rules: guards apply to routes whatever order they were derived in ------------------------

    @Rule(AS.route << Route(skill=MATCH.skill, role=MATCH.role, basis=P(_guarded)),
          Block(skill=MATCH.skill, role="any"), salience=900)
    def core_block_route(self, route: Fact) -> None:
        """Remove a route that a guard forbids."""
        self.retract(route)

    @Rule(AS.route << Route(skill=MATCH.skill, role="primary", basis=P(_guarded)),
          Block(skill=MATCH.skill, role="primary"), salience=900)
    def core_demote_primary(self, route: Fact) -> None:
        """Turn a primary route that a guard forbids as first stop into a secondary one."""
        self.retract(route)
        d = dict(route.as_dict())
        d["role"] = "secondary"
        self.declare(Route(**{k: v for k, v in d.items() if not str(k).startswith("__")}))


    # a cause supersedes the reading it explains, whichever fired first ----------------------------------

    # Each side keeps only the findings that take part in the relation (the test implies both), so the join
    # pairs a handful of findings, not every finding with every other (quadratic in the findings).
    @Rule(AS.effect << Finding(id=MATCH.eid & P(_yields)), Finding(id=MATCH.cid & P(_yielded)),
          TEST(lambda eid, cid: cid in YIELDS_TO.get(eid, ())), salience=960)
    def core_cause_supersedes(self, effect: Fact, eid: str) -> None:
        """Withdraw a finding, with its routes, boundaries and guards, once a finding that explains it stands."""
        rid = eid
        self.retract(effect)
        for fid, f in list(self.facts.items()):
            if isinstance(f, (Route, Boundary, Block)) and f.get("rule") == rid:
                self.retract(fid)

    # an evidenced cause supersedes the symptom tables -----------------------------------------------

    @Rule(Finding(finding_kind="cause", severity=P(_acts), explains=MATCH.explains),
          Obs(name="symptom", value=MATCH.symptom), TEST(lambda explains, symptom: symptom in explains),
          NOT(Flag(name=EXPLAINED)), salience=950)
    def core_cause_explains(self) -> None:
        """Mark the symptom explained when a cause that needs action can explain it."""
        self.declare(Flag(name=EXPLAINED, rule=self.current_rule(), detail=""))

    @Rule(Finding(finding_kind="cause", severity=P(_acts)), NOT(Obs(name="symptom")), NOT(Flag(name=EXPLAINED)),
          salience=950)
    def core_cause_stands(self) -> None:
        """With no symptom named, an evidenced cause is the diagnosis: there is no symptom left to ask for."""
        self.declare(Flag(name=EXPLAINED, rule=self.current_rule(), detail=""))

    @Rule(Flag(name=EXPLAINED), AS.route << Route(basis=P(_superseded)), salience=900)
    def core_cause_route(self, route: Fact) -> None:
        """Drop a symptom-table route once a root cause is evidenced: the cause carries its own."""
        self.retract(route)

    @Rule(Flag(name=EXPLAINED), AS.finding << Finding(finding_kind=P(_superseded)), salience=900)
    def core_cause_finding(self, finding: Fact) -> None:
        """Drop a symptom-table finding once a root cause is evidenced: one problem, one root-cause entry."""
        self.retract(finding)

    @Rule(Flag(name=EXPLAINED), AS.block << Block(), salience=900)
    def core_cause_block(self, block: Fact) -> None:
        """Lift a guard once a root cause is evidenced: guards correct symptom-only routing."""
        self.retract(block)

    @Rule(AS.boundary << Boundary(joint=False), Flag(name="symptom_evidence"), salience=95)
    def core_mixed_boundary(self, boundary: Fact) -> None:
        """Re-declare an exclusive boundary as joint when a training symptom of ours is described alongside."""
        d = {k: v for k, v in boundary.as_dict().items() if not str(k).startswith("__")}
        self.retract(boundary)
        d["joint"] = True
        d["why"] = f"{d['why']}; the training symptom described alongside stays here"
        self.declare(Boundary(**d))

    @Rule(AS.route << Route(basis="lint", role="primary"), Route(role="primary", basis=P(_leads)), salience=900)
    def core_lint_follows(self, route: Fact) -> None:
        """A configuration lint routes as the first stop only when nothing about the run itself does."""
        self.retract(route)
        d = dict(route.as_dict())
        d["role"] = "secondary"
        self.declare(Route(**{k: v for k, v in d.items() if not str(k).startswith("__")}))




AuditedEngine.core_block_route._wrapped._trainopt = AuditedEngine.core_block_route._trainopt = RuleInfo(  # type: ignore[attr-defined]
    "CORE-GUARD-01", "core", "core",
    "A guard (a known routing mistake) removes any route to the skill it names, whichever was derived first.",
    Cite("000", "Common routing mistakes", "the wrong route is never produced"))
AuditedEngine.core_demote_primary._wrapped._trainopt = AuditedEngine.core_demote_primary._trainopt = RuleInfo(  # type: ignore[attr-defined]
    "CORE-GUARD-02", "core", "core",
    "A guard that forbids a skill as the first stop demotes its primary route to secondary.",
    Cite("000", "Common routing mistakes", "right skill, wrong priority"))
AuditedEngine.core_mixed_boundary._wrapped._trainopt = AuditedEngine.core_mixed_boundary._trainopt = RuleInfo(  # type: ignore[attr-defined]
    "XB-MIXED-01", "core", "boundaries",
    "An error another pack owns plus a training symptom we own is a joint case: the error goes there, the symptom "
    "is still diagnosed and routed here (our questions stay open).",
    Cite("001", "Cross-pack boundaries (bidirectional)", "route deliberately when a question spans packs"))


for _name, _id, _why, _row in (
    ("core_cause_supersedes", "CORE-CAUSE-05",
     "A finding whose row yields to another's (its unless names that finding: the cause explains this reading) "
     "is withdrawn with its routes once that finding stands, whichever fired first: the relation decides, not "
     "the firing order.",
     "the root cause, not its effect"),
    ("core_cause_explains", "CORE-CAUSE-00",
     "A root cause that needs action and can explain the stated symptom makes the symptom explained.",
     "the root cause explains the symptom"),
    ("core_cause_stands", "CORE-CAUSE-04",
     "A root cause that needs action, with no symptom named, is the diagnosis: no symptom question follows.",
     "the root cause is the diagnosis"),
    ("core_cause_route", "CORE-CAUSE-01",
     "An evidenced root cause (warning or critical) supersedes the symptom-table routes: it carries its own.",
     "symptom tables route only when no cause is evidenced"),
    ("core_cause_finding", "CORE-CAUSE-02",
     "An evidenced root cause (warning or critical) supersedes the symptom-table finding that restates it.",
     "one root cause, one finding"),
    ("core_cause_block", "CORE-CAUSE-03",
     "A guard against a routing mistake applies to symptom-only routing; an evidenced cause lifts it.",
     "the guards correct symptom-table routing"),
    ("core_lint_follows", "CORE-LINT-01",
     "A configuration lint leads the plan only when no cause or symptom of the run routes a primary.",
     "configuration lint follows the run's own diagnosis"),
):
    _rule = getattr(AuditedEngine, _name)
    _rule._wrapped._trainopt = _rule._trainopt = RuleInfo(  # type: ignore[attr-defined]
        _id, "core", "core", _why, Cite("003", "Step 3: route to fix", _row))


# ---------------------------------------------------------------------------------------------------
# The factory: rows -> experta rules
# ---------------------------------------------------------------------------------------------------


def _patterns(conds: dict[str, Any], need: Iterable[str], unless: Iterable[str]) -> list[Any]:
    """Experta patterns for a row's conditions, references and exclusions.

    Each value test is ``knowledge.schema.cond_holds``, as in explain and the probes' trip check, so the
    three readers of a row cannot disagree.
    """
    pats: list[Any] = []
    for name, cond in sorted(conds.items()):
        if isinstance(cond, Absent):
            pats.append(NOT(Obs(name=name)))
        elif isinstance(cond, Is) and len(cond.values) == 1:
            pats.append(Obs(name=name, value=cond.values[0]))
        else:
            pats.append(Obs(name=name, value=P(Holds(cond))))
    pats.extend(ref_pattern(r) for r in need)
    pats.extend(NOT(ref_pattern(r)) for r in unless)
    return pats


def _rule(patterns: list[Any], salience: int, rhs: _Action) -> Rule:
    """``Rule(*patterns, salience=salience)(rhs)`` for a right-hand side that takes ``**kwargs``.

    experta's decorator reads the function's signature (``inspect.signature``, the larger part of compiling a
    row) only to learn which keyword arguments to pass; a function with ``**kwargs`` gets them all, which is
    what an empty ``_wrapped_args`` means, so the signature need not be read.
    """
    rule = Rule(*patterns, salience=salience)
    rule._wrapped = rhs
    return functools.update_wrapper(rule, rhs)


class _Action:
    """A compiled rule's right-hand side, an object of this module rather than a closure.

    So a compiled rule can be stored in the user's cache (``expert.kb``). It carries what a decorated function
    gives the rule wrapping it (and experta's copy of that rule): its name and its ``_trainopt`` metadata.
    """

    __slots__ = ("__dict__",)

    def __init__(self, name: str, info: RuleInfo) -> None:
        self.__dict__.update(__name__=name, __qualname__=name, __doc__=None, _trainopt=info)


class _Conclude(_Action):
    """A row's right-hand side: declare what the row concludes (routes, findings, boundaries, guards...)."""

    __slots__ = ("row",)

    def __init__(self, row: Row) -> None:
        super().__init__("row_" + row.id.replace("-", "_"), RuleInfo(row.id, "row", row.family, row.rationale,
                                                                      row.cite, row))
        self.row = row

    def __call__(self, engine: AuditedEngine, **_: Any) -> None:
        row = self.row
        out: list[Any] = []
        for a in row.then:
            if isinstance(a, RouteTo):
                pack = SKILL_BY_NAME[a.skill].pack
                out.append(Route(skill=a.skill, role=a.role, pack=pack, rule=row.id, why=a.why, section=a.section,
                                 basis=row.basis))
            elif isinstance(a, Find):
                out.append(Finding(id=row.id, category=a.category, severity=a.severity, issue=a.issue,
                                   finding_kind=a.kind, explains=a.explains))
            elif isinstance(a, Cross):
                out.append(Boundary(pack=a.pack, rule=row.id, why=a.why, joint=a.joint, target=a.target))
            elif isinstance(a, BlockAction):
                out.append(Block(skill=a.skill, role=getattr(a, "role", "any"), rule=row.id, reason=a.reason))
            elif isinstance(a, Derive):
                out.append(Obs(name=a.name, value=a.value, source=f"derived:{row.id}"))
            elif isinstance(a, FlagAction):
                out.append(Flag(name=a.name, rule=row.id, detail=a.detail))
        if out:
            # Declared together, in this order: the same fact ids and fact list as one declare each (a right-hand
            # side runs inside a run, where a declare updates no agenda), in one call. experta's ``declare`` only
            # warns of a declare before any reset, then calls this.
            engine._KnowledgeEngine__declare(*out)


class _Mark(_Action):
    """A join's right-hand side: mark its flag, with the joined values' evidence line."""

    __slots__ = ("join",)

    def __init__(self, join: Join) -> None:
        super().__init__("join_" + join.id.replace("-", "_"), RuleInfo(join.id, "join", join.family,
                                                                        join.rationale, join.cite))
        self.join = join

    def __call__(self, engine: AuditedEngine, **ctx: Any) -> None:
        join = self.join
        vals = [ctx[_var(n)] for n in join.inputs]
        flag = Flag(name=join.flag, rule=join.id, detail=join.detail(*vals))
        if join.derives and join.value is not None:
            # (one call, as a row's right-hand side: the same fact ids and order as two declares inside a run)
            engine._KnowledgeEngine__declare(flag, Obs(name=join.derives, value=join.value(*vals),
                                                       source=f"derived:{join.id}"))
        else:
            engine._KnowledgeEngine__declare(flag)


class _Ask(_Action):
    """A question's right-hand side: declare it pending, with why it was chosen."""

    __slots__ = ("question",)

    def __init__(self, q: QuestionRow) -> None:
        super().__init__("ask_" + q.id.replace("-", "_"), RuleInfo(q.id, "question", q.family, q.why, q.cite, q))
        self.question = q

    def __call__(self, engine: AuditedEngine, **_: Any) -> None:
        q = self.question
        engine._KnowledgeEngine__declare(Question(id=q.id, sets=q.sets, rule=q.id, **engine.choice_for(q.id)))


def compile_row(row: Row) -> Rule:
    """Compile one knowledge row into one experta rule (one rule = one row)."""
    conds = effective_conditions(row)  # derive only what is unknown, so it cannot loop
    return _rule(_patterns(conds, row.need, row.unless), row.salience, _Conclude(row))


class _JoinTest:
    """A join's test over matched variables, with the signature experta reads to bind them (one per input)."""

    def __init__(self, join: Join) -> None:
        self.join = join
        self.__signature__ = inspect.Signature(
            [inspect.Parameter(_var(n), inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in join.inputs])

    def __call__(self, **values: Any) -> bool:
        return joined(self.join.test, *(values[_var(n)] for n in self.join.inputs))

    def __reduce__(self) -> tuple[Any, ...]:
        return _JoinTest, (self.join,)


def _var(name: str) -> str:
    return "v_" + name


def compile_join(join: Join) -> Rule:
    """Compile a join: its conditions, every input bound to a variable, the test over them, its flag not yet set."""
    conds = {k: c for k, c in join.conditions().items() if k not in join.inputs}
    pats = _patterns(conds, (), (f"flag:{join.flag}",))
    pats.extend(Obs(name=n, value=getattr(MATCH, _var(n))) for n in join.inputs)
    pats.append(TEST(_JoinTest(join)))
    return _rule(pats, join.salience, _Mark(join))


def _waived(q: QuestionRow, values: dict[str, Any]) -> bool:
    """Whether ``q`` applies now only because a gate of it was waived (its observation unknown, and declined)."""
    return any(n in WAIVED_ON_DECLINE and n != q.sets and n not in values and not isinstance(c, Absent)
               for n, c in q.conditions().items())


def compile_question(q: QuestionRow, refines: Iterable[str] = (), siblings: Iterable[str] = ()) -> Rule:
    """Compile a question row: relevant, unanswered, not declined, no question pending yet, in scope.

    Of the questions that apply, ``AuditedEngine.resolve_questions`` lets the most useful fire first; its
    ``Question`` fact carries why (the open causes it separates, the others considered).

    Args:
        q: The question row.
        refines: Causes whose standing this question's answer can refine into a more specific cause
            (``knowledge.schema.refinements``): while one of them stands, the question is still worth asking.
        siblings: The other questions that ask for the same observation: one the user declined is the
            observation refused, so this one is not asked either (no "What is the model trained to do?" again,
            under another id, once it was declined).
    """
    conds = effective_conditions(q)
    conds[q.sets] = Absent()
    # (and none once asking is over: the consultation then leads with what it knows, ``Consultation.conclude``)
    unless = (*q.unless, f"declined:{q.id}", *(f"declined:{s}" for s in sorted(siblings)), "question:*",
              "closed:*")
    # A gate whose own question the user declined no longer holds the question back (WAIVED_ON_DECLINE).
    waived = {n: conds.pop(n) for n in sorted(conds) if n in WAIVED_ON_DECLINE and n != q.sets
              and q.rank >= 0 and not isinstance(conds[n], Absent)}
    pats = _patterns(conds, q.need, unless)
    for name, cond in waived.items():
        pats.append(OR(*_patterns({name: cond}, (), ()),
                       *(AND(NOT(Obs(name=name)), Declined(question=qid)) for qid in WAIVED_ON_DECLINE[name])))
    # An exclusive cross-pack boundary means there is nothing of ours to ask about.
    pats.append(NOT(Boundary(joint=False)))
    # Questions discriminate between candidate causes; once a cause that needs action is evidenced, the
    # diagnosis stands on it and the symptom's questions have nothing left to decide, except the one that asks
    # whether a more specific cause explains the same evidence (where the NaN starts, then: in whose code).
    refines = tuple(sorted(refines))
    if refines:
        pats.append(OR(NOT(Flag(name=EXPLAINED)), *(Finding(id=rid) for rid in refines)))
    else:
        pats.append(NOT(Flag(name=EXPLAINED)))
    return _rule(pats, QUESTION_SALIENCE - q.rank, _Ask(q))


def engine_namespace(rows: Iterable[Row], questions: Iterable[QuestionRow], joins: Iterable[Join] = (),
                     mixins: Iterable[type] = ()) -> dict[str, Any]:
    """What the engine class holds beyond ``AuditedEngine``, and the yields-to relation of its rows.

    Keys: the compiled rows, joins and questions by attribute name, ``pooled`` and ``questions``, and
    ``yields_to`` (for ``YIELDS_TO``; not a class attribute). Plain data and rules whose right-hand sides
    are objects of this module: ``expert.kb`` stores it.
    """
    rows, questions = tuple(rows), tuple(questions)
    ns: dict[str, Any] = {}
    seen: set[str] = set(AuditedEngine.core_ids())
    for m in mixins:
        for attr in vars(m).values():
            if isinstance(attr, Rule):
                info = _info(attr)
                if info.id in seen:
                    raise KnowledgeError(f"duplicate rule id {info.id}")
                seen.add(info.id)
                attr._trainopt = attr._wrapped._trainopt = dataclasses.replace(
                    info, family=m.__module__.rsplit(".", 1)[-1])
    for r in rows:
        if r.id in seen:
            raise KnowledgeError(f"duplicate rule id {r.id}")
        seen.add(r.id)
        ns["row_" + r.id.replace("-", "_")] = compile_row(r)
    for j in joins:
        if j.id in seen:
            raise KnowledgeError(f"duplicate rule id {j.id}")
        seen.add(j.id)
        ns["join_" + j.id.replace("-", "_")] = compile_join(j)
    refined = refinements(rows)
    for q in questions:
        if q.id in seen:
            raise KnowledgeError(f"duplicate rule id {q.id}")
        seen.add(q.id)
        ns["ask_" + q.id.replace("-", "_")] = compile_question(
            q, refined.get(q.sets, ()), [o.id for o in questions if o.sets == q.sets and o.id != q.id])
    ns["pooled"] = pool(rows)
    ns["questions"] = {q.id: q for q in questions}
    ns["yields_to"] = yields_to(rows)
    return ns


def engine_class_from(ns: dict[str, Any], mixins: Iterable[type] = ()) -> type[AuditedEngine]:
    """The engine class of an ``engine_namespace``: ``AuditedEngine`` (after ``mixins``) with its attributes."""
    ns = dict(ns)
    YIELDS_TO.update(ns.pop("yields_to"))
    YIELDED.update(*YIELDS_TO.values())
    return type("TrainoptEngine", (*tuple(mixins), AuditedEngine), ns)


def build_engine_class(rows: Iterable[Row], questions: Iterable[QuestionRow], joins: Iterable[Join] = (),
                       mixins: Iterable[type] = ()) -> type[AuditedEngine]:
    """Assemble the engine class: compiled rows, joins and questions (and hand-written mixins, for tests)."""
    mixins = tuple(mixins)
    return engine_class_from(engine_namespace(rows, questions, joins, mixins), mixins)


__all__ = [
    "AuditedEngine",
    "Block",
    "Boundary",
    "Context",
    "Declined",
    "Finding",
    "Firing",
    "Flag",
    "MAX_FIRINGS",
    "Obs",
    "Question",
    "Route",
    "RuleInfo",
    "TotalOrderStrategy",
    "build_engine_class",
    "engine_class_from",
    "engine_namespace",
    "compile_join",
    "compile_question",
    "compile_row",
    "hand_rule",
]
