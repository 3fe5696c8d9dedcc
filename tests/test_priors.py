"""Priors: a symptom's default first stop yields only to what dev threads clearly confirmed; pasted errors are read."""

from __future__ import annotations

from expert import Consultation, priors
from expert.kb import rule_catalogue
from knowledge.priors import PRIORS, SEED_WEIGHT


def _declined(text: str) -> Consultation:
    c = Consultation()
    c.complain(text)
    d = c.run()
    while d.question is not None:
        c.decline(d.question.id)
        d = c.run()
    return c


METRICS = "the logged metrics look wrong, my validation accuracy numbers make no sense"


def test_first_stop_needs_clear_majority() -> None:
    plan = ["gradient-management", "learning-rate-scheduling"]
    # a single confirming thread does not overturn the seeds' default, which counts SEED_WEIGHT threads itself
    assert priors.first_stop(plan, "unstable", set(), {"unstable": {"learning-rate-scheduling": 1}}) is None
    clear = int(SEED_WEIGHT) + 1
    assert priors.first_stop(plan, "unstable", set(), {"unstable": {"learning-rate-scheduling": clear}}) \
        == "learning-rate-scheduling"
    # a guard's blocked skill never leads, however common
    assert priors.first_stop(plan, "unstable", {"learning-rate-scheduling"},
                             {"unstable": {"learning-rate-scheduling": 50}}) is None
    # nothing to go on: no symptom, no counts for it, an empty plan
    assert priors.first_stop(plan, None, set(), {"unstable": {"learning-rate-scheduling": 9}}) is None
    assert priors.first_stop(plan, "hang", set(), {"unstable": {"learning-rate-scheduling": 9}}) is None
    assert priors.first_stop([], "unstable", set(), {"unstable": {"learning-rate-scheduling": 9}}) is None
    # only the plan's skills are candidates: a prior never adds a route
    assert priors.first_stop(plan, "unstable", set(), {"unstable": {"deep-rl": 9}}) is None


def test_default_rows_read_only_the_symptom() -> None:
    cat = rule_catalogue()
    assert priors.is_default(["RT-UNST-01"], cat)  # symptom + loss curve
    assert priors.is_default(["RT-QR-01"], cat)  # the fallback after the loss-curve question was declined
    assert not priors.is_default(["RT-SLOW-04"], cat)  # fired on a measured data-time fraction: evidence
    assert not priors.is_default(["RT-DQ-02"], cat)  # a named topic
    assert not priors.is_default(["RT-UNST-01", "RT-SLOW-04"], cat)  # every row behind the route must be one
    assert not priors.is_default([], cat)
    assert not priors.is_default(["NO-SUCH-RULE"], cat)


def test_prior_reorders_only_a_default_plan() -> None:
    with priors.using({}):
        seed = _declined(METRICS).run()
    assert seed.primary_cause is None and seed.tentative is None and len(seed.plan) >= 2
    other = seed.plan[1]
    with priors.using({"metrics_wrong": {other: 9}}):
        moved = _declined(METRICS).run()
    assert moved.plan[0] == other and sorted(moved.plan) == sorted(seed.plan)
    # an evidenced cause keeps its first stop whatever the table says
    text = "validation accuracy is computed without switching to eval mode, metrics look wrong"
    with priors.using({}):
        caused = _declined(text).run()
    assert caused.primary_cause is not None
    with priors.using({"metrics_wrong": {s: 99 for s in caused.plan[1:]}}):
        assert _declined(text).run().plan[0] == caused.plan[0]


def test_shipped_table_counts_dev_threads() -> None:
    assert PRIORS and all(isinstance(v, int) and v > 0 for counts in PRIORS.values() for v in counts.values())
    with priors.using({"x": {"y": 1}}):
        assert priors.table() == {"x": {"y": 1}}
    assert priors.table() is PRIORS


def test_pasted_error_is_read() -> None:
    c = Consultation()
    c.complain("my training crashes with an error")
    d = c.run()
    assert d.question is not None and d.question.sets == "error_text"
    c.answer(d.question.id, "IndexError: Target 12 is out of bounds.")
    d = c.run()
    assert c.observations["label_check"].value == "not_zero_based"
    assert c.observations["error_text"].value == "IndexError: Target 12 is out of bounds."
    assert d.plan[0] == "loss-functions-and-objectives"
    c.back()
    assert "label_check" not in c.observations and "error_text" not in c.observations


def test_pasted_error_never_overrides_an_answer() -> None:
    c = Consultation()
    c.complain("my training crashes with an error")
    c.answer("Q-LABELS", "ok")
    c.answer("Q-ERROR-TEXT", "IndexError: Target 12 is out of bounds.")
    assert c.observations["label_check"].value == "ok"


def test_pasted_error_never_overrides_the_complaint() -> None:
    c = Consultation()
    c.complain("the loss does not decrease at all, it stays flat")
    before = c.observations["symptom"].value
    c.answer("Q-ERROR-TEXT", "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB")
    assert c.observations["symptom"].value == before


def test_a_reordered_first_stop_says_why() -> None:
    with priors.using({}):
        seed = _declined(METRICS).run()
    other = seed.plan[1]
    with priors.using({"metrics_wrong": {other: 9}}):
        moved = _declined(METRICS).run()
    why = next(r["why"] for r in moved.routes if r["skill"] == other)
    assert "9 real threads" in why and seed.plan[0] in why
    assert "real threads" not in next(r["why"] for r in seed.routes if r["skill"] == seed.plan[0])
