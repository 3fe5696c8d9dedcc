"""A consultation: observations in (answers, free text, probes, pipelines), diagnosis and audit trail out."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from expert.assemble import assemble
from expert.diagnosis import SCHEMA_VERSION, STATUSES, Diagnosis, QuestionView, choices_for
from expert.errors import ContradictionError, InputError, VocabularyError
from expert.explain import Explanation, explain
from expert.facts import Context, Declined, Obs
from expert.kb import engine
from expert.report import as_json, render
from expert.text import parse_complaint
from expert.vocabulary import Observation, spec, validate
from knowledge import question


@dataclass(frozen=True)
class Contradiction:
    """Two observations that cannot both hold.

    Attributes:
        a: (name, predicate) of the first observation.
        b: (name, predicate) of the second.
        message: What is contradictory, in words.
    """

    a: str
    a_test: Any
    b: str
    b_test: Any
    message: str


CONTRADICTIONS: tuple[Contradiction, ...] = (
    Contradiction("loss_behavior", lambda v: v == "decreasing_normally", "nan_onset", lambda v: True,
                  "a loss that decreases normally has no NaN onset"),
    Contradiction("loss_behavior", lambda v: v == "decreasing_normally", "nan_location", lambda v: True,
                  "a loss that decreases normally has no NaN location"),
    Contradiction("metric_kind", lambda v: v == "accuracy", "train_metric", lambda v: v > 1.0,
                  "an accuracy cannot exceed 1.0 (give it as a fraction)"),
    Contradiction("metric_kind", lambda v: v == "accuracy", "val_metric", lambda v: v > 1.0,
                  "an accuracy cannot exceed 1.0 (give it as a fraction)"),
)


class Consultation:
    """One diagnosis session. See ``ARCHITECTURE.md`` for the contract.

    Example:
        >>> c = Consultation()
        >>> c.observe(symptom="unstable", loss_behavior="nan_or_inf")
        >>> c.run().status in ("needs_answer", "diagnosed")
        True
    """

    def __init__(self) -> None:
        self._obs: dict[str, Observation] = {}
        self._declined: list[str] = []
        self._asked: list[dict[str, Any]] = []
        self._complaints: list[str] = []
        self.revisions: list[dict[str, Any]] = []
        self._diagnosis: Diagnosis | None = None
        self._trail: list[Any] = []
        self._facts: list[Any] = []

    # ------------------------------------------------------------------ input

    @property
    def observations(self) -> dict[str, Observation]:
        """The current observations by name (a copy)."""
        return dict(self._obs)

    def observe(self, _source: str = "declared", **values: Any) -> None:
        """Add observations from a pipeline (provenance ``declared`` unless ``_source`` says otherwise).

        All values are validated first; on any error nothing changes.

        Raises:
            VocabularyError: Unknown name or bad value.
            ContradictionError: The update contradicts itself or what is known.
        """
        self.add([Observation.make(k, v, _source) for k, v in values.items()])

    def add(self, observations: Iterable[Observation]) -> None:
        """Add already-built observations (probes hand these over), atomically.

        Raises:
            VocabularyError: An observation was not built through the vocabulary.
            ContradictionError: The update contradicts itself or what is known.
        """
        new = list(observations)
        for o in new:
            if not isinstance(o, Observation):
                raise InputError(f"expected an Observation, got {type(o).__name__}",
                                 hint="build it with Observation.make(name, value, source)")
            if validate(o.name, o.value) != o.value:
                raise VocabularyError(o.name, f"unnormalised value {o.value!r}", allowed=spec(o.name).allowed())
        names = [o.name for o in new]
        dup = sorted({n for n in names if names.count(n) > 1 and len({x.value for x in new if x.name == n}) > 1})
        if dup:
            raise ContradictionError(f"conflicting values for {', '.join(dup)} in one update",
                                     hint="give each observation once")
        merged = dict(self._obs)
        merged.update({o.name: o for o in new})
        self._check_contradictions(merged, set(names))
        for o in new:
            old = self._obs.get(o.name)
            if old is not None and (old.value != o.value or old.source != o.source):
                self.revisions.append({"name": o.name, "old": old.value, "old_source": old.source,
                                       "new": o.value, "new_source": o.source})
            self._obs[o.name] = o
        self._diagnosis = None

    @staticmethod
    def _check_contradictions(merged: Mapping[str, Observation], touched: set[str]) -> None:
        for c in CONTRADICTIONS:
            if c.a in merged and c.b in merged and (c.a in touched or c.b in touched):
                va, vb = merged[c.a].value, merged[c.b].value
                try:
                    hit = c.a_test(va) and c.b_test(vb)
                except TypeError:
                    hit = False
                if hit:
                    raise ContradictionError(
                        f"contradictory observations: {c.a}={va!r} and {c.b}={vb!r}",
                        context=c.message, hint=f"revise one of them (e.g. observe {c.a}=... again)")

    def complain(self, text: str) -> list[Observation]:
        """Read a free-text complaint into observations (provenance ``text:<phrase>``).

        Returns:
            The observations it added.

        Raises:
            InputError: Empty text.
        """
        if not isinstance(text, str) or not text.strip():
            raise InputError("empty complaint", hint="describe what the training run does")
        found = parse_complaint(text)
        # Text never overrides what the user answered or a probe measured.
        keep = [o for o in found if o.name not in self._obs or self._obs[o.name].source.startswith("text:")]
        self.add(keep)
        self._complaints.append(text.strip())
        self._diagnosis = None
        return keep

    def answer(self, question_id: str, value: Any) -> Observation:
        """Answer a question; the value is validated against the observation the question sets.

        Raises:
            InputError: Unknown question id.
            VocabularyError: Bad value.
        """
        q = question(question_id)
        if q is None:
            raise InputError(f"unknown question {question_id!r}", hint="see `trainopt rules` for question ids")
        obs = Observation.make(q.sets, value, f"answer:{q.id}")
        self.add([obs])
        self._asked.append({"question": q.id, "text": q.text, "sets": q.sets, "answer": obs.value})
        return obs

    def decline(self, question_id: str) -> None:
        """Skip a question (it is not asked again in this consultation).

        Raises:
            InputError: Unknown question id.
        """
        q = question(question_id)
        if q is None:
            raise InputError(f"unknown question {question_id!r}")
        if q.id not in self._declined:
            self._declined.append(q.id)
            self._asked.append({"question": q.id, "text": q.text, "sets": q.sets, "answer": None})
        self._diagnosis = None

    def back(self) -> dict[str, Any] | None:
        """Undo the last answer (or skip), so its question is asked again. Returns what was undone."""
        if not self._asked:
            return None
        last = self._asked.pop()
        if last["answer"] is None:
            self._declined.remove(last["question"])
        else:
            o = self._obs.get(last["sets"])
            if o is not None and o.source == f"answer:{last['question']}":
                del self._obs[last["sets"]]
                self.revisions.append({"name": last["sets"], "old": last["answer"], "old_source": o.source,
                                       "new": None, "new_source": "back"})
        self._diagnosis = None
        return last

    # ------------------------------------------------------------------ reasoning

    def run(self) -> Diagnosis:
        """Run the engine over the current observations and return the diagnosis."""
        e = engine()
        e.reset()
        origin = "probe" if self._obs and all(o.source.startswith("probe:") for o in self._obs.values()) \
            else "user"
        # One declare call (one agenda update), sorted by name: fact ids, and so the agenda and the trail, do
        # not depend on the order observations arrived in.
        e.declare(Context(origin=origin), *(Declined(question=q) for q in sorted(self._declined)),
                  *(Obs(name=o.name, value=o.value, source=o.source) for _, o in sorted(self._obs.items())))
        e.run()
        self._trail = list(e.trail)
        self._facts = [f for f in e.facts.values()]
        self._diagnosis = assemble(self, self._facts, self._trail)
        return self._diagnosis

    def _ensure(self) -> Diagnosis:
        return self._diagnosis if self._diagnosis is not None else self.run()

    @property
    def question(self) -> QuestionView | None:
        """The single next question, or None."""
        return self._ensure().question

    @property
    def diagnosis(self) -> Diagnosis:
        """Findings, routes, plan, boundary, fixes, avoid (runs the engine if needed)."""
        return self._ensure()

    @property
    def trace(self) -> list[dict[str, Any]]:
        """The audit trail of the last run: every firing with its rule, row, matched facts and assertions."""
        self._ensure()
        return [f.as_dict() for f in self._trail]

    @property
    def asked(self) -> list[dict[str, Any]]:
        """Questions asked so far with their answers (None: skipped)."""
        return [dict(a) for a in self._asked]

    @property
    def complaints(self) -> list[str]:
        """The free-text complaints read so far."""
        return list(self._complaints)

    # ------------------------------------------------------------------ output

    def report(self, fmt: str = "text") -> str:
        """Render the Training Diagnosis as ``text``, ``markdown`` or ``json``."""
        return render(self, fmt)

    def to_json(self) -> dict[str, Any]:
        """The JSON report as a dict."""
        return as_json(self)

    def explain(self, skill: str, why_not: bool = False) -> Explanation:
        """Why ``skill`` was routed (the derivation tree), or with ``why_not`` why it was not."""
        return explain(self, skill, why_not=why_not)

    # ------------------------------------------------------------------ persistence

    @classmethod
    def from_json(cls, data: Any) -> Consultation:
        """Build a consultation from one JSON object of observations (``complaint`` holds free text).

        Accepts plain values (``{"symptom": "unstable"}``) or full observations
        (``{"symptom": {"value": "unstable", "source": "answer:Q-SYMPTOM"}}``), and a ``declined`` list.

        Raises:
            InputError: Not an object, or malformed entries.
            VocabularyError: Unknown names or bad values.
        """
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise InputError(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                                 hint="give one JSON object of observations") from None
        if not isinstance(data, dict):
            raise InputError(f"expected a JSON object of observations, got {type(data).__name__}",
                             hint='e.g. {"symptom": "unstable", "loss_behavior": "nan_or_inf"}')
        c = cls()
        data = dict(data)
        complaint = data.pop("complaint", None)
        declined = data.pop("declined", [])
        data.pop("schema_version", None)
        obs = []
        for name, v in data.items():
            if isinstance(v, dict):
                if "value" not in v:
                    raise InputError(f"observation {name!r} has no 'value'")
                obs.append(Observation.make(name, v["value"], str(v.get("source", "declared")),
                                            v.get("evidence")))
            else:
                obs.append(Observation.make(name, v, "declared"))
        c.add(obs)
        if complaint is not None:
            if not isinstance(complaint, str):
                raise InputError("'complaint' must be text")
            c.complain(complaint)
        if not isinstance(declined, list):
            raise InputError("'declined' must be a list of question ids")
        for q in declined:
            c.decline(str(q))
        return c


__all__ = ["SCHEMA_VERSION", "STATUSES", "Consultation", "Contradiction", "Diagnosis", "QuestionView", "choices_for"]
