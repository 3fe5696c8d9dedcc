"""Never give up while something is known: a consultation stopped with a question open still leads (issue 17)."""

from __future__ import annotations

from click.testing import CliRunner

from bench.eval import Case, consult, dialogue
from expert import Consultation
from expert.cli import cli
from expert.explain import final_facts


def _schedule_only() -> Consultation:
    c = Consultation()
    c.observe(lr_schedule="cosine")
    return c


def test_a_pending_question_holds_back_the_lead_until_asking_stops():
    c = _schedule_only()
    d = c.run()
    # while it may still ask, the question comes first and nothing leads (the last-resort rows wait for it)
    assert d.status == "needs_answer" and d.plan == [] and d.question is not None
    asked_next = d.question.id
    c.conclude("question limit")
    d = c.run()
    assert d.plan == ["learning-rate-scheduling"] and d.tentative == "DF-TOPIC-SCHED"
    assert d.status == "diagnosed" and d.concluded == "question limit"
    # the question that would have been asked next (the chooser's pick) is what to answer next
    assert d.question is not None and d.question.id == asked_next
    lead = next(f for f in d.findings if f["id"] == "DF-TOPIC-SCHED")
    assert lead["kind"] == "suspect"  # marked tentative, never a verdict
    js = c.to_json()
    assert js["concluded"] == "question limit" and js["tentative"] == "DF-TOPIC-SCHED" and js["question"]
    text = c.report()
    assert "Asking stopped" in text and "To Narrow It Down" in text and "tentative lead" in text


def test_nothing_known_gets_no_lead_only_the_symptom_menu():
    c = Consultation()
    c.conclude("end of input")
    d = c.run()
    assert d.plan == [] and d.boundary == [] and d.tentative is None and d.concluded is None
    assert d.status == "needs_answer" and d.question is not None and d.question.id == "Q-SYMPTOM"
    assert "concluded" not in c.to_json()


def test_an_evidenced_cause_keeps_its_lead_when_asking_stops():
    c = Consultation()
    c.observe(symptom="unstable", loss_behavior="nan_or_inf")
    before = c.run()
    assert before.question is not None
    c.conclude("quit")
    after = c.run()
    # stopping never takes a lead away; it only adds one where there was none
    assert before.plan and after.plan[0] == before.plan[0]


def test_any_later_answer_resumes_asking():
    c = _schedule_only()
    c.conclude("quit")
    q = c.run().question
    c.answer(q.id, "not_learning")
    d = c.run()
    assert c.concluded is None and d.concluded is None
    assert d.status == "needs_answer" or d.question is None
    c.conclude("quit")
    c.decline(c.run().question.id)
    assert c.concluded is None


def test_explain_replays_the_stop():
    c = _schedule_only()
    c.conclude("quit")
    c.run()
    assert {"kind": "Closed", "reason": "quit"} in final_facts(c.outcome())
    assert "DF-TOPIC-SCHED" in c.explain("learning-rate-scheduling").text()


def test_the_bench_user_who_reaches_the_question_bound_gets_the_lead():
    case = Case(id="t", complaint="I use a cosine schedule", facts={}, expected_primary="learning-rate-scheduling",
                acceptable=())
    c, d, asked, _ = dialogue(case, max_questions=0)
    assert asked == 0 and d.concluded == "question limit" and d.plan[0] == "learning-rate-scheduling"
    out = consult(case, max_questions=0)
    assert out.primary_right and not out.still_asking and not out.no_route
    # a case with nothing at all known still ends with no route (the symptom question pending)
    empty = Case(id="e", complaint="", facts={}, expected_primary="learning-rate-scheduling", acceptable=())
    out = consult(empty, max_questions=0)
    assert out.no_route and out.still_asking


def test_quitting_the_interactive_consultation_reports_the_tentative_lead():
    r = CliRunner().invoke(cli, ["consult"], input="my cosine schedule with warmup\nquit\n")
    assert "quit: leaving the consultation" in r.stdout
    assert "Asking stopped" in r.stdout and "tentative lead" in r.stdout
    assert r.exit_code == 1  # one answer is still wanted: a tentative lead is not a verdict


# --- the schedule, warmup, LR-trace and zero-loss questions: asked only when they split the differential ---------

def _asks(obs: dict, wanted: str, limit: int = 40) -> tuple[Consultation, bool]:
    """Decline every other question until ``wanted`` is asked (True) or none is left (False)."""
    c = Consultation()
    c.observe(**obs)
    for _ in range(limit):
        q = c.run().question
        if q is None:
            return c, False
        if q.id == wanted:
            return c, True
        c.decline(q.id)
    return c, False


STALLED = {"symptom": "convergence", "loss_behavior": "plateau_after_learning", "task": "classification"}


def test_the_pace_is_asked_of_a_stalled_run_and_its_answer_separates():
    c, asked = _asks(STALLED, "Q-SCHED-PACE-ANY")
    assert asked
    c.answer("Q-SCHED-PACE-ANY", "too_fast")
    d = c.run()
    assert "LP-SCHED-01" in d.causes and d.plan[0] == "learning-rate-scheduling"
    c, asked = _asks(STALLED, "Q-SCHED-PACE-ANY")
    c.answer("Q-SCHED-PACE-ANY", "matches")
    assert "LP-SCHED-01" not in c.run().causes


def test_the_schedule_questions_stay_out_of_runs_they_cannot_bear_on():
    # an overfitting run, a slow one, a hang: the schedule's questions are not theirs
    for obs in ({"symptom": "overfitting"}, {"symptom": "slow_training"}, {"symptom": "hang"},
                {"symptom": "unstable", "loss_behavior": "nan_or_inf"}):
        obs = {**obs, "task": "classification"}
        for qid in ("Q-SCHEDULE-ANY", "Q-WARMUP-ANY", "Q-SCHED-PACE-ANY", "Q-LR-TRACE-ANY"):
            _, asked = _asks(obs, qid)
            assert not asked, (obs, qid)


def test_the_lr_trace_is_asked_of_a_run_whose_pace_is_not_known():
    c, asked = _asks({"symptom": "not_learning", "lr_schedule": "cosine", "task": "regression"}, "Q-LR-TRACE-ANY")
    assert asked
    c.answer("Q-LR-TRACE-ANY", "stuck")
    d = c.run()
    assert "LP-LR-01" in d.causes and d.plan[0] == "learning-rate-scheduling"
    c, asked = _asks({"symptom": "not_learning", "lr_schedule": "cosine", "task": "regression"}, "Q-LR-TRACE-ANY")
    c.answer("Q-LR-TRACE-ANY", "as_set")
    assert not {"LP-LR-01", "LP-LR-02", "LP-LR-03"} & set(c.run().causes)


def test_the_zero_loss_question_is_for_language_model_runs():
    c, asked = _asks({"symptom": "not_learning", "task": "language_modeling"}, "Q-ZERO-COLLAPSE")
    assert asked
    c.answer("Q-ZERO-COLLAPSE", "yes")
    d = c.run()
    assert d.tentative == "DF-SUS-ZERO" and d.plan[0] == "batch-size-and-memory-tradeoffs"
    assert d.question is not None and d.question.id == "Q-PRECISION-ZERO"
    _, asked = _asks({"symptom": "not_learning", "task": "classification"}, "Q-ZERO-COLLAPSE")
    assert not asked
