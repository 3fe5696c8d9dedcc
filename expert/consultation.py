"""A consultation: observations in (answers, free text, probes, pipelines), diagnosis and audit trail out."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from expert.assemble import assemble
from expert.diagnosis import SCHEMA_VERSION, STATUSES, Diagnosis, Outcome, QuestionView, choices_for
from expert.facts import Closed, Context, Declined, Obs
from expert.kb import engine
from expert.report import as_json, render
from knowledge import all_questions, question
from knowledge.errors import ContradictionError, InputError, VocabularyError, excerpt
from knowledge.record import dataclass
from knowledge.terms import canonical_loss, canonical_optimizer, canonical_schedule
from knowledge.vocabulary import (
    MAX_TEXT,
    MEASURED_SOURCES,
    PAIRS,
    Observation,
    normalise,
    read_pair,
    short,
    spec,
    validate,
)

if TYPE_CHECKING:  # explain loads with the first explanation asked for: a diagnosis never needs it
    from expert.explain import Explanation


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


EMPTY_AFTER_RUN = True
"""Empty the network's memories as a run ends (``Consultation._run_engine``); tests that read what a run left in
them turn it off."""

_CANONICAL = {"loss_fn": canonical_loss, "optimizer": canonical_optimizer, "lr_schedule": canonical_schedule}


_SCALARS = frozenset((str, bool, int, float, type(None)))
"""Types whose values are never a ``Mapping`` (``isinstance(v, Mapping)`` is an ABC check, in Python, each time)."""


def canonical_term(name: str, value: Any) -> Any:
    """The canonical name of a loss, optimizer or schedule as typed (``nn.CrossEntropyLoss()`` -> ``cross_entropy``).

    Rows are written for canonical names (``knowledge.terms``); a spelling nobody knows is left for validation to
    accept (free text) or refuse (an enum), with the allowed values.
    """
    fn = _CANONICAL.get(name)
    return (fn(value) or value) if fn is not None and isinstance(value, str) else value


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
        # One entry per answer, skip, complaint or forget: what each touched name held before, for back().
        self._undo: list[dict[str, Any]] = []
        self.revisions: list[dict[str, Any]] = []
        self._diagnosis: Diagnosis | None = None
        self._trail: list[Any] = []
        self._facts: list[Any] = []
        self.incomplete: list[str] = []
        """What a damaged log could not give (see ``add_log``): the status is never clean while it holds any."""
        self._suspects: dict[str, Observation] = {}
        self._closed: str | None = None
        """Why asking is over (``conclude``), or None while the consultation may still ask."""
        self._open_run: tuple[tuple[Any, ...], tuple[Diagnosis, list[Any], list[Any]]] | None = None
        """The open run ``conclude`` found current, with the inputs it was made of (``_inputs``): the first of the
        next ``run``'s two runs, when nothing it reads has changed since."""

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
        self.add([Observation.make(k, canonical_term(k, v), _source) for k, v in values.items()])

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
        self._merge(new)

    def _merge(self, new: list[Observation]) -> None:
        """``add`` for observations known to be built through the vocabulary (``Observation.make`` just made them).

        Raises:
            ContradictionError: The update contradicts itself or what is known.
        """
        counts = Counter(o.name for o in new)  # (counted once: a count per name was quadratic in the update)
        dup = sorted(n for n, k in counts.items() if k > 1 and len({x.value for x in new if x.name == n}) > 1)
        if dup:
            raise ContradictionError(f"conflicting values for {', '.join(dup)} in one update",
                                     hint="give each observation once")
        merged = dict(self._obs)
        merged.update({o.name: o for o in new})
        self._check_contradictions(merged, set(counts))
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

    def add_log(self, path: Any, **options: Any) -> Any:
        """Read a training log (Lightning, Hugging Face, TensorBoard, CSV, JSONL) and add what it shows.

        Observations carry the provenance ``log:<file>:<column>``; the log is streamed in bounded memory.

        Args:
            path: A log file or a run folder.
            **options: ``mapping`` ({role: column}), ``progress`` (callback), see ``expert.logs.read_log``.

        Returns:
            The ``LogRun`` read (series, recognised columns, notes; ``.regimes()`` for a plot).

        Raises:
            InputError: Missing, unreadable or malformed log, or no loss column (nothing changes).
        """
        # Deferred for cost, not to dodge a cycle: the reader imports numpy, which consult must not pay for.
        from expert.logs import read_log

        run = read_log(path, **options)
        self.add(run.observations())
        if run.damage:
            self.incomplete.extend(run.damage)
            self._diagnosis = None
        return run

    def complain(self, text: str) -> list[Observation]:
        """Read a free-text complaint into observations (provenance ``text:<phrase>``).

        Returns:
            The observations it added.

        Raises:
            InputError: Empty text.
        """
        if not isinstance(text, str) or not text.strip():
            raise InputError("empty complaint", hint="describe what the training run does")
        if len(text) > MAX_TEXT:
            raise InputError(f"complaint too long ({len(text):,} characters)",
                             context=f"field 'complaint'; allowed: at most {MAX_TEXT:,} characters",
                             hint="describe the problem in a few sentences; give an error as error_text")
        from expert.text import parse_complaint  # its cue tables load only when there is text to read

        found = parse_complaint(text)
        # Text never overrides what the user answered or a probe measured.
        keep = [o for o in found if o.name not in self._obs or self._obs[o.name].source.startswith("text:")]
        before = {o.name: self._obs.get(o.name) for o in keep}
        self.add(keep)
        self._complaints.append(text.strip())
        self._undo.append({"kind": "complaint", "text": text.strip(), "before": before,
                           "suspects": dict(self._suspects)})
        # What the user only asked about ("could it be that I never call zero_grad?") is their hypothesis: never an
        # observation, but the question that checks it goes first once it separates the open causes.
        from expert.text import offered

        self._suspects.update((o.name, o) for o in offered(text))
        self._closed = None  # the user came back with more: asking resumes
        self._diagnosis = None
        return keep

    def confirm(self, names: Iterable[str] | None = None) -> list[Observation]:
        """Record hypotheses the user confirmed (a `yes` to "do you see it in your run?") as observations.

        Args:
            names: The suspects to confirm (None: every one still open).

        Returns:
            The observations recorded, their provenance now ending ``(confirmed)`` instead of ``(suspected)``.

        Raises:
            ContradictionError: A confirmed hypothesis contradicts what is known (nothing changes).
        """
        chosen = [o for o in self.suspects if o.name in self._suspects and (names is None or o.name in names)]
        new = [Observation.make(o.name, o.value, _confirmed(o.source), o.evidence, o.step) for o in chosen]
        before = {o.name: self._obs.get(o.name) for o in new}
        self.add(new)
        self._undo.append({"kind": "confirm", "before": before, "suspects": dict(self._suspects)})
        return new

    def dismiss(self, names: Iterable[str] | None = None) -> list[Observation]:
        """Drop hypotheses the user denied (a `no`): they are no longer listed, nor checked first.

        A setting suspected in the complaint (``self_diagnosis`` read from the text) is dropped as ``forget`` drops
        it; ``back`` restores what was dropped.

        Args:
            names: The suspects to drop (None: every one).

        Returns:
            The hypotheses dropped.
        """
        dropped = [o for o in self.suspects if names is None or o.name in names]
        if not dropped:
            return []
        self._undo.append({"kind": "dismiss", "suspects": dict(self._suspects),
                           "before": {o.name: o for o in dropped if self._obs.get(o.name) == o}})
        for o in dropped:
            self._suspects.pop(o.name, None)
            if self._obs.get(o.name) == o:
                del self._obs[o.name]
                self.revisions.append({"name": o.name, "old": o.value, "old_source": o.source, "new": None,
                                       "new_source": "dismiss"})
        self._diagnosis = None
        return dropped

    def answer(self, question_id: str, value: Any) -> Observation:
        """Answer a question; the value is validated against the observation the question sets.

        Numbers may be typed as people type them (``"95%"``, ``"50k"``, ``"50,000"``); a question whose
        observation has a partner (the training metric and the validation metric) also takes both at once:
        ``"0.95 / 0.75"`` or ``"train 0.95 val 0.75"``. How a value was read is in :attr:`last_note`.

        Raises:
            InputError: Unknown question id.
            VocabularyError: Bad value (nothing changes).
        """
        q = question(question_id) if isinstance(question_id, str) else None
        if q is None:
            raise InputError(f"unknown question {short(question_id)}",
                             hint="see `trainopt rules` for question ids")
        source = f"answer:{q.id}"
        pair = read_pair(value) if isinstance(value, str) and q.sets in PAIRS else None
        if pair is not None:
            (v1, n1), (v2, n2) = normalise(q.sets, pair[0]), normalise(PAIRS[q.sets], pair[1])
            new = [Observation(q.sets, v1, source), Observation(PAIRS[q.sets], v2, source)]
            notes = [n for n in (n1, n2) if n]
        else:
            v, note = normalise(q.sets, canonical_term(q.sets, value))
            new, notes = [Observation(q.sets, v, source)], [note] if note else []
        if q.sets == "error_text" and isinstance(new[0].value, str):
            # A pasted error says more than its family: "Target 25 is out of bounds" is a label outside the
            # classes, "Loss became infinite or NaN" an instability. It is read as a complaint would be, for what
            # nothing known yet says (the complaint, an answer or a probe keeps its value; the answer itself
            # stays the error text).
            from expert.text import parse_complaint

            new += [o for o in parse_complaint(new[0].value) if o.name != q.sets and o.name not in self._obs]
        before = {o.name: self._obs.get(o.name) for o in new}
        self.add(new)
        self.last_note = "; ".join(notes)
        self._closed = None  # an answer given after a stop resumes the consultation
        self._asked.append({"question": q.id, "text": q.text, "sets": q.sets, "answer": new[0].value})
        self._undo.append({"kind": "answer", "question": q.id, "before": before})
        return new[0]

    last_note: str = ""
    """How the last answer was read, when it was not taken literally (e.g. ``read 95% as 0.95``)."""

    def decline(self, question_id: str) -> None:
        """Skip a question (it is not asked again in this consultation).

        Raises:
            InputError: Unknown question id.
        """
        q = question(question_id) if isinstance(question_id, str) else None
        if q is None:
            raise InputError(f"unknown question {short(question_id)}",
                             hint="see `trainopt rules` for question ids")
        if q.id not in self._declined:
            self._declined.append(q.id)
            self._asked.append({"question": q.id, "text": q.text, "sets": q.sets, "answer": None})
            self._undo.append({"kind": "skip", "question": q.id, "before": {}})
        self._closed = None
        self._diagnosis = None

    def conclude(self, reason: str = "stopped") -> None:
        """Stop asking: the user quit, the input ended, or the question bound was reached.

        The next run leads with the best of what is known instead of a pending question: no question applies any
        more, so the differential's leader stands (a cause, a suspect, the symptom's route) and, where nothing
        routes, a lead of last resort from whatever is known (the part of the set-up talked about, the task, the
        loop audit), marked tentative. The question the consultation would have asked next (the one whose answer
        best separates the leading causes) stays in the diagnosis as what to answer next. With nothing known at
        all, nothing is concluded: the symptom question stays pending (a lead from nothing is a guess). Any later
        answer, skip or complaint resumes asking.

        Args:
            reason: Why asking stopped, in a few words (``quit``, ``end of input``, ``question limit``).
        """
        if self._closed is None and self._diagnosis is not None:
            # the open run the user last saw is the first of the next run's two: kept, with what it was made of
            self._open_run = (self._inputs(), (self._diagnosis, self._trail, self._facts))
        self._closed = str(reason) or "stopped"
        self._diagnosis = None

    @property
    def concluded(self) -> str | None:
        """Why asking is over (``conclude``), or None while the consultation may still ask."""
        return self._closed

    def forget(self, name: str) -> Observation:
        """Remove one observation (e.g. a value misread from the complaint); ``back`` restores it.

        Returns:
            The observation removed.

        Raises:
            VocabularyError: Unknown observation name.
            InputError: The name is valid but nothing is known about it.
        """
        if not isinstance(name, str):
            raise InputError(f"expected an observation name, got {short(name)}")
        spec(name)
        old = self._obs.get(name)
        if old is None:
            known = ", ".join(sorted(self._obs)) or "nothing yet"
            raise InputError(f"nothing known about {name!r}", context=f"known: {known}")
        del self._obs[name]
        self.revisions.append({"name": name, "old": old.value, "old_source": old.source, "new": None,
                               "new_source": "forget"})
        self._undo.append({"kind": "forget", "name": name, "before": {name: old}})
        self._diagnosis = None
        return old

    def back(self) -> dict[str, Any] | None:
        """Undo the last answer, skip, complaint, forget, confirm or dismiss, restoring what it replaced.

        An undone answer's question is asked again; an undone complaint takes back every observation read
        from it (the phrases it matched), which is how a value misread from the complaint is removed.

        Returns:
            What was undone: ``kind`` (``answer``, ``skip``, ``complaint``, ``forget``, ``confirm``, ``dismiss``),
            ``took_back`` (the values it removed) and ``restored`` (the values back in place, None where there was
            none), and for answers and skips the ``question``, ``text``, ``sets`` and ``answer`` as in :attr:`asked`;
            None when there is nothing to undo.
        """
        if not self._undo:
            return None
        event = self._undo.pop()
        undone: dict[str, Any] = {"kind": event["kind"]}
        if event["kind"] in ("answer", "skip"):
            last = self._asked.pop()
            undone.update(last)
            if last["answer"] is None:
                self._declined.remove(last["question"])
        elif event["kind"] == "complaint":
            self._complaints.pop()
            undone["text"] = event["text"]
            self._suspects = event["suspects"]
        elif event["kind"] in ("confirm", "dismiss"):
            self._suspects = event["suspects"]
        undone["took_back"] = {n: self._obs[n].value for n in event["before"] if n in self._obs}
        for name, old in event["before"].items():
            cur = self._obs.get(name)
            if old is None:
                self._obs.pop(name, None)
            else:
                self._obs[name] = old
            if cur != old:
                self.revisions.append({"name": name, "old": cur.value if cur else None,
                                       "old_source": cur.source if cur else None,
                                       "new": old.value if old else None,
                                       "new_source": "back" if old is None else old.source})
        undone["restored"] = {n: (o.value if o else None) for n, o in event["before"].items()}
        self._closed = None
        self._diagnosis = None
        return undone

    # ------------------------------------------------------------------ reasoning

    def run(self) -> Diagnosis:
        """Run the engine over the current observations and return the diagnosis.

        Once asking is over (``conclude``) with a question still pending, the engine runs again with no question
        allowed, and that diagnosis stands when it leads somewhere: it keeps the pending question as the one to
        answer next. A run that still leads nowhere (a measured run that shows nothing) keeps the open diagnosis.
        """
        kept, self._open_run = self._open_run, None
        # (a run is a function of its inputs: one kept at ``conclude`` stands for a new one while they are unchanged,
        # and a quit or the end of input then costs one engine run, not two)
        opened = kept[1] if kept is not None and kept[0] == self._inputs() else self._run_engine(None)
        if self._closed is not None and opened[0].question is not None and self._obs:
            closed = self._run_engine(self._closed)
            d = closed[0]
            if d.plan or d.boundary:
                d.question = opened[0].question
                d.concluded = self._closed
                opened = closed
        self._diagnosis, self._trail, self._facts = opened
        return self._diagnosis

    def _inputs(self) -> tuple[Any, ...]:
        """What an open run reads of this consultation (``_run_engine``): equal inputs make an equal run."""
        return (tuple(self._obs.items()), tuple(self._declined), self.asked, tuple(self.incomplete),
                tuple(self._suspects.items()))

    def _run_engine(self, closed: str | None) -> tuple[Diagnosis, list[Any], list[Any]]:
        """One engine run: the diagnosis, the trail and the final facts (``closed``: why asking is over, if it is)."""
        e = engine()
        # A run allocates some ten thousand short-lived containers (tokens, memories' entries, facts, the trail)
        # and frees them by reference counting; the collector's passes over them and over the compiled network
        # (tens of thousands of objects) find nothing, so they are held off until the run is done.
        collecting = gc.isenabled()
        gc.disable()
        try:
            e.reset()
            e.suspected = self._suspected()
            origin = "probe" if self._obs and all(o.source.startswith(MEASURED_SOURCES)
                                                  for o in self._obs.values()) else "user"
            # One declare call (one agenda update), sorted by name: fact ids, and so the agenda and the trail, do
            # not depend on the order observations arrived in.
            e.declare(Context(origin=origin), *((Closed(reason=closed),) if closed is not None else ()),
                      *(Declined(question=q) for q in sorted(self._declined)),
                      *(Obs(name=o.name, value=o.value, source=o.source) for _, o in sorted(self._obs.items())))
            e.run()
            trail = list(e.trail)
            facts = [f for f in e.facts.values()]
            return assemble(self._obs, self.asked, facts, trail, self.incomplete), trail, facts
        finally:
            # The network's memories hold the run's tokens (thousands of small containers) until the next run's
            # reset: emptied now, they are freed by reference counting here rather than walked by the collector's
            # first pass once it is back on, then moved up its generations and walked again. The next run's reset
            # finds them empty (``CachedReteMatcher.reset``); the facts and trail returned are not the network's.
            if EMPTY_AFTER_RUN:
                e.matcher.reset()
            if collecting:
                gc.enable()

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
    def suspects(self) -> list[Observation]:
        """What the complaints only asked about or suspected: the user's hypotheses, never evidence of a cause.

        Each is the observation a `yes` would record ("could it be a softmax before the loss?":
        ``output_activation=softmax``); the question that checks it is asked first once it separates the open causes.
        A setting suspected beside a described trouble ("maybe the lr is too low?") is read as ``self_diagnosis``,
        itself a hypothesis, and listed too.
        """
        # (one the user confirmed, or that an answer or a probe settled, is an observation now, no longer a hypothesis)
        out = {n: o for n, o in self._suspects.items() if n not in self._obs}
        said = self._obs.get("self_diagnosis")
        if said is not None and said.source.startswith("text:"):
            out[said.name] = said
        return [o for _, o in sorted(out.items())]

    def _suspected(self) -> frozenset[str]:
        """The observations, still unknown, whose questions check what the user suspects (``text.checks_for``)."""
        held = [*self._suspects.values(), *self.suspects]
        if not held:
            return frozenset()
        from expert.text import checks_for  # the cue tables load only when a hypothesis is held

        # (computed from what is held now, so a hypothesis dropped, forgotten or taken back no longer goes first)
        checks = checks_for(held)
        return frozenset(n for n in checks if n not in self._obs)

    @property
    def complaints(self) -> list[str]:
        """The free-text complaints read so far."""
        return list(self._complaints)

    # ------------------------------------------------------------------ output

    def outcome(self) -> Outcome:
        """Everything this consultation holds after a run, as plain data (runs the engine if needed)."""
        return Outcome(self.diagnosis, dict(self._obs), self.trace, self.asked, self.complaints,
                       [dict(r) for r in self.revisions], self.suspects)

    def report(self, fmt: str = "text") -> str:
        """Render the Training Diagnosis as ``text``, ``markdown`` or ``json``."""
        return render(self.outcome(), fmt)

    def _repr_markdown_(self) -> str:
        """Jupyter renders a consultation as its Markdown report (the engine runs if needed)."""
        return self.report("markdown")

    def to_json(self) -> dict[str, Any]:
        """The JSON report as a dict."""
        return as_json(self.outcome())

    def explain(self, skill: str, why_not: bool = False) -> Explanation:
        """Why ``skill`` was routed (the derivation tree), or with ``why_not`` why it was not."""
        from expert.explain import explain

        return explain(self.outcome(), skill, why_not=why_not)

    # ------------------------------------------------------------------ persistence

    @classmethod
    def from_json(cls, data: Any) -> Consultation:
        """Build a consultation from one JSON object of observations (``complaint`` holds free text).

        Accepts plain values (``{"symptom": "unstable"}``) or full observations
        (``{"symptom": {"value": "unstable", "source": "answer:Q-SYMPTOM"}}``), a ``declined`` list, and
        a saved JSON report (its ``observations``, ``declined``, ``complaints`` and ``suspected`` rebuild the
        consultation, so it asks the same next question). ``data`` may be the JSON text itself.

        Raises:
            InputError: Malformed JSON, not an object, or malformed entries.
            VocabularyError: Unknown names or bad values.
        """
        if isinstance(data, (str, bytes, bytearray)):
            data = parse_json(data)
        if not isinstance(data, Mapping):
            raise InputError(f"expected a JSON object of observations, got {_json_type(data)}",
                             hint='e.g. {"symptom": "unstable", "loss_behavior": "nan_or_inf"}')
        data = dict(data)
        said: Any = []
        suspected: Any = []
        if "schema_version" in data and isinstance(data.get("observations"), Mapping):
            # A saved report: what the user observed and said, and what they suspect, not what the engine
            # concluded from it. The complaints are kept as said, not read again: their readings are among the
            # observations (as corrected or forgotten since).
            said, suspected = data.get("complaints", []), data.get("suspected", [])
            data = {**data["observations"], "declined": data.get("declined", [])}
        if not isinstance(said, list) or not all(isinstance(t, str) for t in said):
            raise InputError("'complaints' must be a list of texts", context=f"got {short(said)}")
        complaint = data.pop("complaint", None)
        declined = data.pop("declined", [])
        data.pop("schema_version", None)
        if complaint is not None and not isinstance(complaint, str):
            raise InputError("'complaint' must be text", context=f"got {_json_type(complaint)}")
        if not isinstance(declined, list) or not all(isinstance(q, str) for q in declined):
            raise InputError("'declined' must be a list of question ids",
                             context=f"got {short(declined)}", hint='e.g. "declined": ["Q-PRECISION"]')
        obs = []
        for name, v in data.items():
            if not isinstance(name, str):
                raise InputError(f"observation names must be text, got {short(name)}")
            if type(v) not in _SCALARS and isinstance(v, Mapping):  # (a plain value is none: no ABC check for it)
                if "value" not in v:
                    raise InputError(f"observation {name!r} has no 'value'",
                                     hint=f'e.g. "{name}": {{"value": ..., "source": "declared"}}')
                extra = sorted(set(map(str, v)) - {"value", "source", "evidence", "step"})
                if extra:
                    raise InputError(f"observation {name!r} has unknown keys: {', '.join(extra)}",
                                     context="allowed keys: value, source, evidence, step")
                step = v.get("step")
                # The step a probe measured at travels with the value, so a saved report rebuilds exactly.
                if step is not None and (not isinstance(step, int) or isinstance(step, bool) or step < 0):
                    raise InputError(f"bad step {short(step)} for {name!r}",
                                     context="allowed: a training step, an integer >= 0")
                source = v.get("source", "declared")
                _check_source(name, source)
                obs.append(Observation.make(name, canonical_term(name, v["value"]), source, v.get("evidence"),
                                            step))
            else:
                obs.append(Observation.make(name, canonical_term(name, v), "declared"))
        c = cls()
        c._merge(obs)  # (each made just above by ``Observation.make``: validated, so not validated again)
        c._complaints = [t.strip() for t in said if t.strip()]
        c._suspects = _read_suspected(suspected, c._obs)
        if complaint is not None:
            c.complain(complaint)
        for q in declined:
            c.decline(q)
        return c


def _read_suspected(entries: Any, known: Mapping[str, Observation]) -> dict[str, Observation]:
    """The hypotheses of a saved report's ``suspected`` list, validated as observations are.

    A setting suspected in the complaint (``self_diagnosis``) is listed there and among the observations too: it is
    held once, as the observation.

    Raises:
        InputError: Not a list of {name, value, source} objects, or a source other than ``text:``.
        VocabularyError: Unknown names or bad values.
    """
    if not isinstance(entries, list):
        raise InputError("'suspected' must be a list", context=f"got {_json_type(entries)}",
                         hint='e.g. "suspected": [{"name": "output_activation", "value": "softmax", '
                              '"source": "text:softmax (suspected)"}]')
    out: dict[str, Observation] = {}
    for e in entries:
        if not isinstance(e, Mapping) or not isinstance(e.get("name"), str) or "value" not in e:
            raise InputError(f"bad 'suspected' entry {short(e)}", context="each needs name, value and source")
        name, source = e["name"], e.get("source")
        if not isinstance(source, str) or not source.startswith("text:"):
            # a hypothesis is words the user wrote, held to confirm: an answer, a probe or a declaration is an
            # observation, and listing it as a suspicion would show a settled fact as a guess
            raise InputError(f"bad 'suspected' entry {short(e)}: its source must be 'text:<the words>'",
                             context=f"got source {short(source)}; a hypothesis comes from the complaint's words",
                             hint="move an answered or declared value to 'observations'")
        _check_source(name, source)
        o = Observation.make(name, canonical_term(name, e["value"]), source)
        if known.get(name) != o:
            out[name] = o
    return out


def _confirmed(source: str) -> str:
    """The provenance of a hypothesis the user confirmed: ``text:<words> (confirmed)``."""
    return source.removesuffix(" (suspected)").removesuffix(" (confirmed)") + " (confirmed)"


SOURCE_KINDS = ("declared", "answer:", "probe:", "text:", "derived:", "log:")
"""The provenances an observation handed over as JSON may carry (ARCHITECTURE.md, "Observations")."""


def _check_source(name: str, source: Any) -> None:
    """Refuse a provenance that names no known kind, or an answer to a question that does not exist.

    Raises:
        InputError: Naming the observation and what is allowed.
    """
    if not isinstance(source, str) or not (source == "declared" or source.startswith(SOURCE_KINDS[1:])):
        raise InputError(f"bad source {excerpt(source)} for {name!r}",
                         context="allowed: declared, answer:<question id>, probe:<probe id>, text:<phrase>, "
                                 "derived:<rule id>, log:<file>:<column>")
    if source.startswith("answer:"):
        qid = source.partition(":")[2].strip()
        if qid not in {q.id for q in all_questions()}:
            raise InputError(f"source {excerpt(source)} for {name!r} names no question trainopt asks",
                             hint="give the question id as `trainopt rules` lists it (Q-...), or source \"declared\"")


def parse_json(text: str | bytes | bytearray, where: str = "input") -> Any:
    """Parse JSON text, turning every failure into an :class:`InputError` that says where.

    Raises:
        InputError: Malformed, not UTF-8, or nested deeper than the parser can follow.
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{where} is not UTF-8 text (byte {exc.start})",
                             hint="save the observations as UTF-8 JSON") from None
    if not text.strip():
        raise InputError(f"{where} is empty", hint='give one JSON object, e.g. {"symptom": "unstable"}')
    from json import JSONDecodeError, loads  # here: a consultation that reads no JSON (``consult``) loads no decoder

    try:
        return loads(text)
    except JSONDecodeError as exc:
        raise InputError(f"malformed JSON in {where}: {exc.msg} at line {exc.lineno} column {exc.colno}",
                         hint="give one JSON object of observations") from None
    # RecursionError: nesting deeper than the interpreter's stack; ValueError: an integer literal with more
    # digits than int() converts (4,300 by default).
    except (RecursionError, ValueError) as exc:
        raise InputError(f"unreadable JSON in {where}: {short(str(exc), 100)}",
                         hint="give one JSON object of observations") from None


def _json_type(v: Any) -> str:
    names = {str: "a string", int: "a number", float: "a number", bool: "true/false", list: "an array",
             type(None): "null"}
    return names.get(type(v), type(v).__name__)


__all__ = ["SCHEMA_VERSION", "STATUSES", "Consultation", "Contradiction", "Diagnosis", "QuestionView", "choices_for"]
