"""The engine's guards against experta 1.9.4's defects, each shown to fail on the stock engine."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from expert._experta import AS, Activation, Fact, KnowledgeEngine, Rule
from expert.engine import MAX_FIRINGS, AuditedEngine, TotalOrderStrategy, hand_rule
from expert.facts import plain
from knowledge.errors import KnowledgeError
from knowledge.schema import Cite, Gt, Lt

ROOT = Path(__file__).resolve().parents[1]
CITE = Cite("test", "engine guards", "regression")


class F(Fact):
    pass


# --------------------------------------------------------------------------- import and compat


def test_experta_imports_and_fires_a_rule_on_this_python():
    class E(KnowledgeEngine):
        @Rule(F(a=1))
        def hit(self):
            self.hits = getattr(self, "hits", 0) + 1

    e = E()
    e.reset()
    e.declare(F(a=1))
    e.run()
    assert e.hits == 1
    assert sys.version_info >= (3, 10)  # the alias restored in expert/_experta.py is what makes this work


def test_every_experta_import_goes_through_the_compat_module():
    offenders = []
    for path in [*ROOT.glob("expert/**/*.py"), *ROOT.glob("knowledge/**/*.py"), *ROOT.glob("probes/**/*.py")]:
        if path.name == "_experta.py":
            continue
        text = path.read_text()
        if re.search(r"^\s*(from experta\b|import experta\b)", text, re.M):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_experta_loggers_are_silenced_and_root_logger_untouched():
    code = (
        "import logging; before = list(logging.getLogger().handlers);"
        "import expert._experta;"
        "from experta import watchers;"
        "assert logging.getLogger().handlers == before, 'root handler added';"
        "assert not watchers.RULES.isEnabledFor(logging.CRITICAL);"
        "print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


# --------------------------------------------------------------------------- stale activations


class _R:
    """A minimal rule stand-in: the strategy reads only salience and the trainopt id."""

    def __init__(self, rid: str) -> None:
        from expert.engine import RuleInfo

        self.salience = 0
        self._trainopt = RuleInfo(rid, "hand", "t", "t", CITE)

    def __repr__(self) -> str:
        return self._trainopt.id


def _fact(fid: int) -> F:
    f = F(n=fid)
    f.__factid__ = fid
    return f


def _agenda_scenario(strategy):
    """Four same-salience activations, three over one fact; then remove the one in the middle (experta #19)."""
    from experta.agenda import Agenda

    rules = [_R(f"T-{i}") for i in range(3)]
    a = Agenda()
    acts = [Activation(rules[0], [_fact(0)]), Activation(rules[1], [_fact(0)]), Activation(rules[0], [_fact(1)]),
            Activation(rules[2], [_fact(0)])]
    for act in acts:
        strategy.update_agenda(a, [act], [])
    gone = Activation(rules[2], [_fact(0)])
    strategy.update_agenda(a, [], [gone])
    return [(str(x.rule), sorted(f["__factid__"] for f in x.facts)) for x in a.activations]


def test_total_order_strategy_removes_every_stale_activation():
    left = _agenda_scenario(TotalOrderStrategy())
    assert ("T-2", [0]) not in left
    assert len(left) == 3


def test_stock_depth_strategy_leaves_the_stale_activation():
    # Documents the defect the guard exists for: if experta ever fixes it, this test says so.
    from experta.strategies import DepthStrategy

    left = _agenda_scenario(DepthStrategy())
    assert ("T-2", [0]) in left


def _retracting_engine(base):
    """Five same-salience rules over one fact; the first to fire retracts it."""
    ns = {}
    for i in range(5):
        def fn(self, f, i=i):
            self.log.append(i)
            self.retract(f)

        fn.__name__ = f"r{i}"
        ns[f"r{i}"] = (hand_rule(f"T-{i:02d}", CITE, "t", AS.f << F(), salience=0)(fn) if base is AuditedEngine
                       else Rule(AS.f << F(), salience=0)(fn))
    return type("E", (base,), ns)


def test_no_rule_fires_on_a_retracted_fact():
    e = _retracting_engine(AuditedEngine)()
    e.log = []
    e.reset()
    e.declare(F(x=1))
    e.run()
    assert e.log == [0]  # total order: lowest rule id first, and nothing after the retraction


def test_activation_check_skips_an_activation_whose_fact_is_gone():
    e = _retracting_engine(AuditedEngine)()
    e.log = []
    e.reset()
    fact = e.declare(F(x=1))
    # Simulate stale activations left on the agenda by a missed removal: retract the fact and swallow the
    # change notification, so neither matcher nor strategy hears of it.
    e.facts.retract(fact)
    e.facts.changes  # noqa: B018 - reading the property consumes the pending changes
    assert len(e.agenda.activations) == 5
    e.run()
    assert e.log == []
    assert e.skipped_stale >= 1


# --------------------------------------------------------------------------- determinism across processes

_ORDER_SCRIPT = """
import json, sys
sys.path.insert(0, {root!r})
from expert._experta import AS, Fact, KnowledgeEngine, Rule
from expert.engine import AuditedEngine, hand_rule
from knowledge.schema import Cite, Gt, Lt
class F(Fact): pass
stock = sys.argv[1] == "stock"
ns = {{}}
for i in range(8):
    def fn(self, f, i=i):
        self.log.append(i)
    fn.__name__ = "r%d" % i
    ns["r%d" % i] = Rule(AS.f << F(), salience=0)(fn) if stock else hand_rule(
        "T-%02d" % i, Cite("t", "t", "t"), "t", AS.f << F(), salience=0)(fn)
E = type("E", (KnowledgeEngine if stock else AuditedEngine,), ns)
e = E(); e.log = []; e.reset(); e.declare(F(x=1)); e.run()
print(json.dumps(e.log))
"""


def _orders(kind: str, seeds=range(1, 7)) -> set[str]:
    script = _ORDER_SCRIPT.format(root=str(ROOT))
    out = set()
    for s in seeds:
        env = dict(os.environ, PYTHONHASHSEED=str(s))
        r = subprocess.run([sys.executable, "-c", script, kind], capture_output=True, text=True, env=env, check=True)
        out.add(r.stdout.strip())
    return out


def test_same_input_in_several_processes_gives_the_same_order():
    assert _orders("ours") == {json.dumps(list(range(8)))}


def test_stock_engine_order_changes_between_processes():
    assert len(_orders("stock")) > 1


def _outputs_under_three_hash_seeds(code: str) -> set[str]:
    """The distinct stdouts of ``python -c code`` run under PYTHONHASHSEED 1, 2 and 3."""
    outs = set()
    for s in (1, 2, 3):
        env = dict(os.environ, PYTHONHASHSEED=str(s))
        outs.add(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                                check=True).stdout)
    return outs


def test_same_consultation_in_two_processes_gives_the_same_trail():
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT)!r});"
        "from expert import Consultation; c = Consultation();"
        "c.observe(symptom='not_learning', loss_behavior='nan_or_inf', mixed_precision='fp16', custom_loss=True);"
        "c.run(); print(json.dumps([c.trace, c.report('json')], default=str))"
    )
    assert len(_outputs_under_three_hash_seeds(code)) == 1


# --------------------------------------------------------------------------- failure modes


def test_exception_in_a_right_hand_side_leaves_the_engine_stopped():
    class Boom(AuditedEngine):
        @hand_rule("T-BOOM", CITE, "t", F())
        def boom(self):
            raise RuntimeError("rhs failed")

    e = Boom()
    e.reset()
    e.declare(F(x=1))
    with pytest.raises(RuntimeError):
        e.run()
    assert e.running is False


def test_a_looping_knowledge_base_is_stopped():
    class Loop(AuditedEngine):
        @hand_rule("T-LOOP", CITE, "t", AS.f << F())
        def again(self, f):
            self.retract(f)
            self.declare(F(n=f["n"] + 1))

    e = Loop()
    e.reset()
    e.declare(F(n=0))
    with pytest.raises(KnowledgeError, match="loops"):
        e.run()
    assert e.running is False
    assert len(e.trail) == MAX_FIRINGS


def test_trail_records_rule_row_matched_facts_and_assertions():
    from expert import Consultation

    c = Consultation()
    c.observe(symptom="not_learning", loss_behavior="flat_from_start")
    c.run()
    first = next(f for f in c.trace if f["rule"] == "RT-LOSS-01")
    assert first["cite"]["seed"] in {"000", "001"}
    assert {m["name"] for m in first["matched"] if m["kind"] == "Obs"} == {"symptom", "loss_behavior"}
    assert all(m["source"] == "declared" for m in first["matched"] if m["kind"] == "Obs")
    assert any(a["kind"] == "Route" and a["skill"] == "learning-rate-scheduling" for a in first["asserted"])
    assert [f["seq"] for f in c.trace] == list(range(1, len(c.trace) + 1))


def test_each_firing_records_exactly_what_it_changed_in_the_fact_list():
    """The trail's asserted/retracted (tracked as the right-hand side runs) equal a diff of the fact list taken
    around that one firing, for runs whose guards retract routes, findings and boundaries."""
    from expert.facts import Context, Obs
    from expert.kb import engine

    e = engine()
    retractions = 0
    for data in ({"symptom": "unstable", "loss_behavior": "nan_or_inf", "nan_onset": "after_steps",
                  "mixed_precision": "fp16", "learning_rate": 1e-3, "grad_scaler": False},
                 {"symptom": "overfitting", "train_loss_trend": "decreasing", "val_loss_trend": "increasing"},
                 {"symptom": "not_learning", "loss_behavior": "flat_from_start", "learning_rate": 10.0}):
        e.reset()
        e.declare(Context(origin="user"), *(Obs(name=k, value=v, source="declared") for k, v in sorted(data.items())))
        while True:
            before = dict(e.facts)
            fired = len(e.trail)
            e.run(steps=1)
            if len(e.trail) == fired:
                break
            rec = e.trail[-1]
            assert rec.asserted == [plain(f) for k, f in e.facts.items() if k not in before]
            assert rec.retracted == [plain(f) for k, f in before.items() if k not in e.facts]
            retractions += len(rec.retracted)
    assert retractions, "no firing retracted anything: the test did not exercise retraction"


# Deferred imports that are not there to dodge a cycle: a leaf module whose own imports are too heavy for the
# paths every consultation takes (the first consult prompt must stay fast).
DEFERRED_FOR_COST = {
    ("consultation", "add_log", "expert.logs"): "the log reader imports numpy (about 0.25 s)",
    ("consultation", "complain", "expert.text"): "the cue tables (a few ms) load only when there is text to read",
    ("consultation", "answer", "expert.text"): "a pasted error is read with the same cue tables, loaded only then",
    ("consultation", "_suspected", "expert.text"): "the cue tables load only when a hypothesis is held",
    ("consultation", "explain", "expert.explain"): "loads with the first explanation asked for, never for a diagnosis",
    ("consultation", "parse_json", "json"): "the JSON decoder loads only with JSON text to read: consult reads none",
    ("explain", "rich_tree", "rich.text"): "rich is for terminals only; the consult prompt must not import it",
    ("explain", "rich_tree", "rich.tree"): "rich is for terminals only; the consult prompt must not import it",
}


def test_the_flow_is_one_way_without_imports_hidden_in_functions():
    """consultation -> assemble -> Diagnosis -> report / explain: module-level imports only (type hints aside),
    and none of assemble, diagnosis, report, explain imports the consultation at run time."""
    import ast

    root = Path(__file__).resolve().parent.parent / "expert"
    for name in ("assemble", "consultation", "diagnosis", "explain", "kb", "engine"):
        tree = ast.parse((root / f"{name}.py").read_text())
        for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            hidden = [n for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))
                      and (name, fn.name, getattr(n, "module", None)) not in DEFERRED_FOR_COST]
            assert not hidden, f"expert/{name}.py: import inside {fn.name}()"
    for name in ("assemble", "diagnosis", "report", "explain"):
        tree = ast.parse((root / f"{name}.py").read_text())
        runtime = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "expert.consultation"]
        assert not runtime, f"expert/{name}.py imports the consultation at run time: a cycle"


# --------------------------------------------------------------------------- which question to ask


def _row(rid, when, skill, severity="warning"):
    from knowledge.schema import Find, RouteTo, Row

    return Row(rid, when, (Find("Not Learning", severity, rid), RouteTo(skill, "primary", "")), "why",
               Cite("test", "t", rid))


def _q(qid, sets, rank):
    from knowledge.schema import QuestionRow

    return QuestionRow(qid, sets, f"{sets}?", {}, rank=rank, why="why", cite=Cite("test", "t", qid))


def test_the_question_that_separates_causes_with_different_first_stops_wins_over_the_seeds_order():
    from expert.choose import candidates, pool, rank_questions

    rows = [_row("A", {"optimizer": "adam"}, "learning-rate-scheduling"),
            _row("B", {"optimizer": "sgd"}, "optimization-algorithms"),
            # two causes that lead to the same skill: telling them apart does not change where to start (each also
            # waits on the schedule, so no answer about warmup alone confirms either)
            _row("C", {"warmup": True, "lr_schedule": "cosine"}, "gradient-management"),
            _row("D", {"warmup": False, "lr_schedule": "cosine"}, "gradient-management")]
    asked = {"optimizer", "warmup", "lr_schedule"}
    open_ = candidates(pool(rows), {}, lambda ref: False, asked)
    assert [p.row.id for p in open_] == ["A", "B", "C", "D"]
    ranked = rank_questions([_q("Q-W", "warmup", 1), _q("Q-O", "optimizer", 2)], open_)
    assert [v.question for v in ranked] == ["Q-O", "Q-W"]
    assert ranked[0].separates == ("A", "B") and ranked[0].gain > ranked[1].gain > 0
    assert "separates" in ranked[0].because(2) and "A, B" in ranked[0].because(2)


def test_an_answer_that_confirms_a_certain_defect_settles_the_differential():
    from expert.choose import candidates, pool, rank_questions

    # A waits on one answer only: "adam" confirms it. B and C each need two answers. Asking the optimizer can end the
    # differential at once; asking the schedule can only narrow it.
    rows = [_row("A", {"optimizer": "adam"}, "learning-rate-scheduling"),
            _row("B", {"lr_schedule": "cosine", "warmup": True}, "optimization-algorithms"),
            _row("C", {"lr_schedule": "step", "warmup": True}, "gradient-management")]
    open_ = candidates(pool(rows), {}, lambda ref: False, {"optimizer", "lr_schedule", "warmup"})
    ranked = rank_questions([_q("Q-S", "lr_schedule", 1), _q("Q-O", "optimizer", 2)], open_)
    assert ranked[0].question == "Q-O" and ranked[0].separates == ("A",)


def test_a_metric_lower_by_the_gpu_count_asks_what_the_count_is_divided_by_first():
    from expert import Consultation

    # The standing suspect (a per-rank count over the whole dataset) lends its evidence to the cause that confirms
    # it, and the denominator question can confirm that cause with one answer: it separates the leaders best.
    c = Consultation()
    c.complain("val acc on 8 gpus is 8x lower than on 1 gpu")
    assert c.question.id == "Q-METRIC-DENOM"
    c.answer("Q-METRIC-DENOM", "dataset_size")
    assert c.diagnosis.plan[0] == "training-loop-architecture"
    assert "DD-METRIC-01" in [f["id"] for f in c.diagnosis.findings]


def test_ties_and_questions_that_separate_nothing_keep_the_seeds_order():
    from expert.choose import candidates, pool, rank_questions

    rows = [_row("A", {"optimizer": "adam"}, "learning-rate-scheduling")]
    open_ = candidates(pool(rows), {}, lambda ref: False, {"optimizer"})
    ranked = rank_questions([_q("Q-Z", "batch_size", 5), _q("Q-Y", "warmup", 3)], open_)
    assert [(v.question, v.gain) for v in ranked] == [("Q-Y", 0.0), ("Q-Z", 0.0)]
    assert "seeds' order" in ranked[0].because(2)
    # a negative rank is a protocol step (clarify a vague request first): it precedes any value
    ranked = rank_questions([_q("Q-O", "optimizer", 5), _q("Q-P", "warmup", -1)], open_)
    assert ranked[0].question == "Q-P" and ranked[1].gain > 0


def test_a_candidate_part_of_whose_evidence_is_in_weighs_more_than_one_nothing_known_points_to():
    from expert.choose import EVIDENCE_WEIGHT, candidates, pool, rank_questions, weigh

    # A waits on the output activation once the loss is known; E on the gradient norms, with nothing known for it;
    # four other causes, each its own first stop, wait on the warmup
    others = ("optimization-algorithms", "overfitting-prevention", "experiment-tracking", "hyperparameter-tuning")
    rows = [_row("A", {"loss_fn": "cross_entropy", "output_activation": "softmax"}, "loss-functions-and-objectives"),
            _row("E", {"grad_norm_trend": "exploding"}, "gradient-management"),
            *(_row(f"B{i}", {"warmup": True}, skill) for i, skill in enumerate(others))]
    known = {"loss_fn": "cross_entropy", "symptom": "not_learning"}
    open_ = candidates(pool(rows), known, lambda ref: False, {"output_activation", "grad_norm_trend", "warmup"})
    weighed = {p.row.id: p.weight for p in weigh(open_, known)}
    assert weighed["A"] == 2.0 * (1 + EVIDENCE_WEIGHT) and weighed["E"] == weighed["B0"] == 2.0
    qs = [_q("Q-G", "grad_norm_trend", 1), _q("Q-A", "output_activation", 2)]
    # unweighed the two questions tie and the seeds' order asks the gradient norms; with the evidence in, the
    # question that settles the leader comes first
    plain = rank_questions(qs, open_)
    assert [v.question for v in plain] == ["Q-G", "Q-A"] and plain[0].gain == pytest.approx(plain[1].gain)
    assert rank_questions(qs, weigh(open_, known))[0].question == "Q-A"
    # the symptom alone is no evidence for one cause of it
    assert [p.weight for p in weigh(open_, {"symptom": "not_learning"})] == [p.weight for p in open_]


def test_the_loss_and_the_output_before_it_are_asked_of_a_run_that_does_not_learn_not_of_a_hang():
    from expert import Consultation

    def questions(**obs):
        c = Consultation()
        c.observe(**obs)
        seen = []
        while c.question is not None and len(seen) < 15:
            seen.append(c.question.id)
            c.decline(c.question.id)
        return seen

    flat = questions(symptom="not_learning", loss_behavior="decreasing_slowly", task="classification")
    assert "Q-LOSS-FN" in flat
    # a user who would not name the symptom is asked for the loss among the few checks left, then (before those
    # run out) for the output before it, once the loss is one that applies its own softmax or sigmoid
    c = Consultation()
    for q in ("Q-SYMPTOM", "Q-LOSS-CURVE", "Q-TASK", "Q-MULTI-GPU", "Q-ERROR-ANY", "Q-SPEED-ANY"):
        c.decline(q)
    seen = []
    while c.question is not None and "Q-LOSS-FN" not in seen and len(seen) < 6:
        seen.append(c.question.id)
        if c.question.id != "Q-LOSS-FN":
            c.decline(c.question.id)
    assert seen[-1] == "Q-LOSS-FN"
    c.answer("Q-LOSS-FN", "bce_with_logits")
    while c.question is not None and c.question.id != "Q-OUTPUT-ACT":
        c.decline(c.question.id)
    assert c.question is not None, "the output before the loss was never asked"
    c.answer("Q-OUTPUT-ACT", "sigmoid")
    assert c.diagnosis.plan[0] == "loss-functions-and-objectives"
    assert any(f["id"] == "MS-ACT-02" for f in c.diagnosis.findings)
    assert "Q-LOSS-FN" not in questions(symptom="hang")
    assert "Q-LOSS-FN" not in questions(symptom="slow_training")
    # late, it is asked only when its answer decides an open cause: with the output known to be raw logits and a
    # task no loss mismatch is written for, no loss cause is left open and the question would be noise
    plateau = {"symptom": "not_learning", "loss_behavior": "plateau_after_learning", "output_activation": "none"}
    # a plateau after learning is also what an LR driven to about 0 (or a schedule stepped faster than defined)
    # looks like: the applied LR and the schedule's pace split that run's leading cause (LP-LR-02 or LP-SCHED-01
    # against a plain plateau, RT-LOSS-02), so those two late questions are rightly asked after the loss's
    lr_checks = ["Q-LR-TRACE-ANY", "Q-SCHED-PACE-ANY"]
    assert questions(**plateau, task="classification") == ["Q-LOSS-FN", *lr_checks]
    assert questions(**plateau, task="other") == lr_checks


def test_what_the_user_only_suspects_is_checked_first_never_read_as_a_fact():
    from expert import Consultation

    plain = Consultation()
    plain.complain("the loss is flat from the start with CrossEntropyLoss")
    # A flat cross-entropy loss asks about the output first on its own (one answer can confirm softmax before the
    # loss, a certain defect); a suspicion adds the reason, never an observation.
    assert plain.question.id == "Q-OUTPUT-ACT" and not plain.suspects
    c = Consultation()
    c.complain("the loss is flat from the start with CrossEntropyLoss. could it be a softmax before the loss?")
    assert [(o.name, o.value) for o in c.suspects] == [("output_activation", "softmax")]
    assert "output_activation" not in c.observations  # a hypothesis, not what the user saw
    assert c.question.id == "Q-OUTPUT-ACT"
    ask = [f for f in c.trace if f["kind"] == "question"]
    assert ask and "what you suspect" in str(ask[-1])
    # the report keeps the hypothesis apart from the observations
    doc = c.to_json()
    assert [(s["name"], s["value"]) for s in doc["suspected"]] == [("output_activation", "softmax")]
    assert "output_activation" not in doc["observations"] and "suspected" not in plain.to_json()
    # the answer decides: "raw logits" clears the suspicion, and no finding stands on the hypothesis alone
    c.answer("Q-OUTPUT-ACT", "none")
    assert not any(f["id"].startswith("MS-ACT") for f in c.diagnosis.findings)
    # taking the complaint back takes its hypotheses with it
    c.back()
    c.back()
    assert not c.suspects and c.question.id == "Q-SYMPTOM"
    # a suspicion no open cause bears on does not jump the queue: with the output's cause open (Q-OUTPUT-ACT is
    # among the questions weighed), a flat loss on one run is not asked first about replicas drifting apart
    h = Consultation()
    h.complain("the loss is flat from the start with CrossEntropyLoss. could it be that the weights differ "
               "between ranks?")
    assert [(o.name, o.value) for o in h.suspects] == [("replicas_in_sync", "diverged")]
    weighed = [f for f in h.trace if f["kind"] == "question"][-1]["asserted"][0]
    assert "Q-OUTPUT-ACT" in weighed["considered"]
    assert h.question.id == plain.question.id and "what you suspect" not in str(weighed)


def test_candidates_are_judged_by_the_shared_condition_check():
    from expert.choose import candidates, pool

    rows = [_row("A", {"optimizer": "adam", "learning_rate": Gt(0.01)}, "learning-rate-scheduling"),
            _row("B", {"optimizer": "sgd"}, "optimization-algorithms"),
            _row("P", {"update_ratio": Gt(0.1)}, "learning-rate-scheduling")]
    known = {"optimizer": "adam"}
    ids = [p.row.id for p in candidates(pool(rows), known, lambda ref: False, {"optimizer", "learning_rate"})]
    # B is contradicted by what is known; P waits on a probe's measurement no question asks for
    assert ids == ["A"]
    # once it holds it is no longer open: nothing is left to ask about it
    assert not candidates(pool(rows), {**known, "learning_rate": 0.1}, lambda ref: False, {"learning_rate"})


def test_numeric_answers_are_cut_at_the_candidates_thresholds():
    from expert.choose import candidates, pool, value

    rows = [_row("LO", {"learning_rate": Lt(1e-5)}, "learning-rate-scheduling"),
            _row("HI", {"learning_rate": Gt(0.01)}, "gradient-management")]
    open_ = candidates(pool(rows), {}, lambda ref: False, {"learning_rate"})
    v = value(_q("Q-LR", "learning_rate", 1), open_)
    assert v.separates == ("HI", "LO") and v.outcomes == 3  # below, between, above


def test_a_pending_question_says_why_it_was_chosen_in_the_trail_the_view_and_explain():
    from expert import Consultation

    c = Consultation()
    c.observe(symptom="not_learning", loss_behavior="flat_from_start")
    q = c.question
    ask = [f for f in c.trace if f["kind"] == "question"]
    assert [f["rule"] for f in ask] == [q.id]  # only the chosen question fires
    asked = ask[0]["asserted"][0]
    assert asked["kind"] == "Question" and asked["id"] == q.id
    assert asked["considered"][0] == q.id and len(asked["considered"]) == len(asked["gains"]) > 1
    assert list(asked["gains"]) == sorted(asked["gains"], reverse=True)
    assert q.chosen and asked["separates"][0] in q.chosen
    assert q.as_dict()["chosen"] == q.chosen
    e = c.explain("question")
    assert e.summary.startswith(f"Why question {q.id}")
    text = e.text()
    for rid in asked["separates"]:
        assert f"candidate {rid}" in text
    other = next(x for x in asked["considered"] if x != q.id)
    assert f"also applied: {other}" in text


def test_explaining_the_question_when_none_is_pending():
    from expert import Consultation

    c = Consultation()
    c.observe(loss_behavior="decreasing_normally")
    assert c.explain("question").summary.startswith("No question is pending")


def test_the_question_choice_is_the_same_in_every_process():
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT)!r});"
        "from expert import Consultation; out = []\n"
        "for obs in ({'symptom': 'unstable', 'loss_behavior': 'nan_or_inf'}, {'symptom': 'overfitting'},"
        " {'symptom': 'not_learning', 'loss_behavior': 'flat_from_start'}, {'symptom': 'slow_training'}):\n"
        "    c = Consultation(); c.observe(**obs); c.run()\n"
        "    out.append([f['asserted'] for f in c.trace if f['kind'] == 'question'])\n"
        "print(json.dumps(out, default=str))"
    )
    assert len(_outputs_under_three_hash_seeds(code)) == 1


def test_every_other_rule_fires_before_any_question():
    """The question choice relies on it: when a question leads the agenda, every row has had its say."""
    from expert.kb import engine
    from knowledge.schema import Salience

    e = engine()
    kinds = {info.id: info.kind for info in e.rule_info.values()}
    rules = {r._trainopt.id: r.salience for r in e.get_rules()}
    # Leads of last resort sit below the questions on purpose: they may fire only when no question is pending.
    last = {rid for rid, s in rules.items() if kinds[rid] == "row" and s <= Salience.LAST + 100}
    for rid in last:
        assert "question:*" in e.rule_info[rid].row.unless, f"{rid} sits below the questions but ignores them"
    lowest_other = min(s for rid, s in rules.items() if kinds[rid] != "question" and rid not in last)
    highest_question = max(s for rid, s in rules.items() if kinds[rid] == "question")
    lowest_question = min(s for rid, s in rules.items() if kinds[rid] == "question")
    assert lowest_other > highest_question + 1
    assert all(rules[rid] < lowest_question for rid in last)


def test_a_declared_fact_keeps_experta_s_hash_and_an_activation_hashes_as_experta_s():
    """The hash kept as a fact is declared is experta's own (its fields with the fact id); one taken before is
    left as experta leaves it; a conflict-set node's activation hashes as experta's ``Activation`` does."""
    from expert._experta import Activation
    from expert.consultation import Consultation
    from expert.facts import Obs
    from expert.kb import engine
    from expert.rete import _Activation

    Consultation.from_json({"symptom": "unstable", "loss_behavior": "nan_or_inf", "mixed_precision": "fp16"}).run()
    facts = list(engine().facts.values())
    assert len(facts) > 5
    for f in facts:
        assert hash(f) == hash(frozenset(f.items())), f
    e = engine()
    e.reset()
    early = Obs(name="symptom", value="unstable", source="declared")
    kept = hash(early)  # before the fact id exists, as experta would keep it
    e.declare(early)
    assert hash(early) == kept != hash(frozenset(early.items()))
    rule = next(iter(e.get_rules()))
    act = _Activation(rule, facts[:2], {"x": 1})
    first = hash(act)  # (kept: the next hashes read it)
    assert hash(act) == first == hash(Activation(rule, facts[:2], {"x": 1}))  # experta's hash of a fresh equal one
    other = _Activation(rule, facts[1:3], {"x": 2})
    assert hash(other) == hash(Activation(rule, facts[1:3], {"x": 2})) != first  # each its own, none shared
    assert hash(_Activation(rule, facts[:2], {"x": 1})) == first
    assert act == Activation(rule, facts[:2], {"x": 1})
