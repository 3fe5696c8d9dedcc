"""The corpus evaluation harness (bench.eval) on tiny synthetic corpora in a temp dir, never the real one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import eval as ev
from expert import Consultation

OOM = "training crashes with RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"


def _case(cid: str, complaint: str, expected: str, acceptable: list[str] | None = None,
          facts: dict | None = None, family: str = "memory", thread: int = 2) -> dict:
    # issues/1 and /5 hash to the held-back split, issues/2, /3, /4 and /7 to dev
    return {"id": cid, "source": f"https://github.com/o/r/issues/{thread}", "library": "pytorch", "family": family,
            "complaint": complaint, "facts": facts or {}, "cause": "synthetic", "confirmed_by": "reporter",
            "expected_primary": expected, "acceptable": acceptable or [], "confidence": "high"}


def _write(d: Path, *cases: dict) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    for c in cases:
        (d / f"{c['id']}.json").write_text(json.dumps(c), encoding="utf-8")
    return d


def test_split_is_fixed_by_the_hash_of_the_thread() -> None:
    # the thread of issues/2 hashes to dev, of issues/1 to held back (first byte of sha256 % 3 == 0)
    assert ev.split_of(ev.thread_of("https://github.com/o/r/issues/2")) == "dev"
    assert ev.split_of(ev.thread_of("https://github.com/o/r/issues/1")) == "held_back"
    ids = [f"x-{i:03d}" for i in range(300)]
    held = sum(ev.split_of(i) == "held_back" for i in ids)
    assert 70 < held < 130  # about a third
    # every case of one thread falls on one side, whatever its id or the link into the thread
    links = ["https://github.com/o/r/issues/1", "https://github.com/o/r/issues/1#issuecomment-9",
             "http://www.GitHub.com/o/r/issues/1/"]
    assert {ev.Case(f"t-{i:03d}", "c", {}, "x", (), source=u).split for i, u in enumerate(links)} == {"held_back"}
    assert ev.thread_of("https://discuss.pytorch.org/t/nan-loss/1234/7") == "discuss.pytorch.org/t/nan-loss/1234"
    assert ev.thread_of("https://stackoverflow.com/questions/42/why-nan?rq=1") == "stackoverflow.com/questions/42"
    # a case without a source falls back to its id
    assert ev.Case("t-002", "c", {}, "x", ()).split == ev.split_of("t-002")


def _outcome(expected: str, acceptable: tuple[str, ...], plan: list[str], boundary: list) -> ev.Outcome:
    case = ev.Case("t-001", "c", {}, expected, acceptable)
    lead = plan[0] if plan else (boundary[0][0] if boundary else None)
    return ev.Outcome(case, "diagnosed", lead, plan, boundary, 0, 0, 0)


def test_scoring_reads_plan_head_and_leading_boundary() -> None:
    assert _outcome("gradient-management", (), ["gradient-management", "x"], []).primary_right
    assert not _outcome("gradient-management", (), ["x", "gradient-management"], []).primary_right
    # the leading boundary counts by its pack or its target, also beside an in-pack plan (joint)
    b = [("pytorch-engineering", "tensor-operations-and-memory", False)]
    assert _outcome("pytorch-engineering", (), [], b).primary_right
    assert _outcome("tensor-operations-and-memory", (), [], b).primary_right
    assert _outcome("pytorch-engineering", (), ["gradient-management"], [(*b[0][:2], True)]).primary_right
    miss = _outcome("deep-rl", ("pytorch-engineering",), [], b)
    assert not miss.primary_right and miss.acceptable
    assert not _outcome("deep-rl", ("llm-specialist",), [], b).acceptable
    assert not _outcome("deep-rl", (), [], []).acceptable


def test_majority_route_breaks_ties_alphabetically() -> None:
    cases = [ev.Case(str(i), "c", {}, e, ()) for i, e in enumerate(["b", "a", "b", "a", "c"])]
    assert ev.majority_route(cases) == "a"
    assert ev.majority_route([]) is None


def test_consult_answers_from_facts_and_declines_the_rest() -> None:
    complaint = "my training loss is unstable"
    c = Consultation()
    c.complain(complaint)
    first = c.run().question
    assert first is not None, "the knowledge asks nothing for an unstable loss; pick another complaint"
    value = first.choices[0][0] if first.choices else "yes"
    answered = ev.consult(ev.Case("t-001", complaint, {first.sets: value}, "gradient-management", ()))
    declined = ev.consult(ev.Case("t-001", complaint, {}, "gradient-management", ()))
    assert answered.answered >= 1 and answered.questions >= 1
    assert declined.answered == 0 and declined.questions >= 1
    assert not declined.still_asking and not answered.still_asking
    # the bound holds even when every question is pending
    assert ev.consult(ev.Case("t-001", complaint, {}, "x", ()), max_questions=0).questions == 0


def test_a_fact_the_vocabulary_refuses_is_declined_not_a_crash() -> None:
    c = Consultation()
    c.complain("my training loss is unstable")
    q = c.run().question
    assert q is not None
    out = ev.consult(ev.Case("t-001", "my training loss is unstable", {q.sets: "not-a-valid-value-%%"}, "x", ()))
    assert out.status != "error" and out.answered == 0


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    d = _write(tmp_path / "cases",
               _case("t-001", OOM, "pytorch-engineering", thread=2),                          # dev, right
               _case("t-003", OOM, "pytorch-engineering", thread=3),                          # dev, right
               _case("t-004", OOM, "optimization-algorithms", ["pytorch-engineering"], thread=4),  # dev, acc.
               _case("t-005", OOM, "hyperparameter-tuning", family="crash", thread=7),       # dev, miss
               _case("t-002", OOM, "deep-rl", thread=1))                                     # held back, miss
    (d / "broken.json").write_text("{not json", encoding="utf-8")
    (d / "no-id.json").write_text(json.dumps({"complaint": "x"}), encoding="utf-8")
    return d


def test_load_cases_skips_what_it_cannot_use(corpus: Path) -> None:
    cases, problems = ev.load_cases(corpus)
    assert [c.id for c in cases] == ["t-001", "t-002", "t-003", "t-004", "t-005"]
    assert len(problems) == 2 and any("broken.json" in p for p in problems)


def test_figures_per_split_and_baseline(corpus: Path) -> None:
    cases, _ = ev.load_cases(corpus)
    figures, outcomes = ev.evaluate(cases)
    dev, held = figures["dev"], figures["held_back"]
    assert (dev["cases"], dev["primary_right"], dev["acceptable_right"]) == (4, 2, 3)
    assert (held["cases"], held["primary_right"], held["acceptable_right"]) == (1, 0, 0)
    assert dev["primary"] == 0.5 and dev["acceptable"] == 0.75
    # the baseline is dev's most common route, applied to both splits
    assert dev["baseline_route"] == held["baseline_route"] == "pytorch-engineering"
    assert dev["baseline_primary"] == 0.5 and dev["baseline_acceptable"] == 0.75
    assert held["baseline_primary"] == 0.0
    assert dev["still_asking"] == 0.0 and dev["errors"] == 0
    assert dev["no_route_count"] == held["no_route_count"] == 0 and dev["no_route"] == 0.0
    miss = next(o for o in outcomes if o.case.id == "t-005")
    assert miss.why_not.startswith("Why not hyperparameter-tuning")
    assert ev.by_family([o for o in outcomes if o.case.split == "dev"])["crash"] == \
        {"cases": 1, "primary_right": 0, "acceptable": 0}


def test_no_route_counts_a_consultation_that_leads_with_nothing() -> None:
    routed = _outcome("deep-rl", (), ["gradient-management"], [])
    unrouted = _outcome("deep-rl", (), [], [])
    assert not routed.no_route and unrouted.no_route
    figures = ev.summarise([routed, unrouted], None)
    assert (figures["no_route_count"], figures["no_route"]) == (1, 0.5)
    assert ev.below_floor({"dev": figures}, {"dev": {"no_route": 0.25}}) == \
        ["dev no_route 0.500 above its ceiling 0.250"]


def test_cli_prints_dev_misses_only(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ev.main(["--cases", str(corpus)]) == 0
    out = capsys.readouterr().out
    # the held-back split is the headline: first line, and first row of the table
    lines = out.splitlines()
    assert lines[0].startswith("held_back (headline") and "no route" in lines[0]
    rows = [ln.split()[0] for ln in lines if ln.split()[:1] in (["dev"], ["held_back"]) and ln.split()[1].isdigit()]
    assert rows == ["held_back", "dev"]
    assert "t-005" in out and "t-004" in out  # t-004 is acceptable but not primary: still a primary miss
    assert "t-002" not in out and "1 held-back miss(es) not shown" in out
    assert ev.main(["--cases", str(corpus), "--show-heldout-misses"]) == 0
    assert "t-002" in capsys.readouterr().out


def test_cli_json_hides_held_back_outcomes(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ev.main(["--cases", str(corpus), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["splits"]["dev"]["cases"] == 4
    assert {o["id"] for o in doc["outcomes"]} == {"t-001", "t-003", "t-004", "t-005"}
    assert len(doc["skipped"]) == 2


def test_floor_exit_codes(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    low, high, bad = tmp_path / "low.json", tmp_path / "high.json", tmp_path / "bad.json"
    low.write_text(json.dumps({"dev": {"primary": 0.5, "acceptable": 0.7}, "held_back": {"still_asking": 0.0}}))
    high.write_text(json.dumps({"dev": {"primary": 0.51}}))
    bad.write_text(json.dumps({"dev": {"speed": 1}}))
    assert ev.main(["--cases", str(corpus), "--floor", str(low)]) == 0
    assert ev.main(["--cases", str(corpus), "--floor", str(high)]) == 1
    assert "dev primary 0.500 below its floor 0.510" in capsys.readouterr().err
    assert ev.main(["--cases", str(corpus), "--floor", str(bad)]) == 2
    assert ev.main(["--cases", str(tmp_path / "nowhere")]) == 2


def test_an_empty_split_is_not_held_to_its_floor(tmp_path: Path) -> None:
    d = _write(tmp_path / "cases", _case("t-001", OOM, "pytorch-engineering"))
    floor = tmp_path / "floor.json"
    floor.write_text(json.dumps({"dev": {"primary": 1.0}, "held_back": {"primary": 0.9}}))
    assert ev.main(["--cases", str(d), "--floor", str(floor)]) == 0


@pytest.mark.parametrize("complaint, pack", [
    ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
     "pytorch-engineering"),
    ("My DDP training hangs at the end of validation on 2 GPUs, no error", "pytorch-engineering"),
    ("torch._dynamo hit config.cache_size_limit (8), my model keeps recompiling", "pytorch-engineering"),
    ("what LoRA rank and alpha should I use to fine-tune Mistral 7B?", "llm-specialist"),
    ("my PPO agent's episode reward goes down over training", "deep-rl"),
    ("on our 4000 images the vision transformer is far worse than a ResNet-50, why?", "neural-architectures"),
])
def test_boundaries_lead_when_nothing_in_pack_is_evidenced(complaint, pack):
    out = ev.consult(ev.Case("t-001", complaint, {}, pack, ()))
    assert out.primary_right, out
    assert out.boundary[0][2] is False  # exclusive: no in-pack symptom


def test_a_boundary_is_joint_when_an_in_pack_symptom_is_described():
    out = ev.consult(ev.Case("t-001", "DDP training on 4 GPUs hangs at the barrier and the loss was NaN before that",
                             {}, "pytorch-engineering", ()))
    assert out.boundary and out.boundary[0][0] == "pytorch-engineering" and out.boundary[0][2] is True
    assert out.plan  # the NaN is still routed here


def test_informational_optimizer_question_routes_the_optimizer_skill():
    out = ev.consult(ev.Case("t-001", "when does Lion beat AdamW?", {}, "optimization-algorithms", ()))
    assert out.lead == "optimization-algorithms", out


def test_experiment_tracking_request_routes_experiment_tracking():
    out = ev.consult(ev.Case("t-001", "I need experiment tracking for this project", {}, "experiment-tracking", ()))
    assert out.lead == "experiment-tracking" and out.questions == 0, out


def test_ablation_removes_one_part_of_every_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = ev.Case("t-001", OOM, {"error_text": OOM}, "pytorch-engineering", ())
    assert ev.ablate(case, None) is case
    assert ev.ablate(case, "complaint").complaint == "" and ev.ablate(case, "complaint").facts == case.facts
    assert ev.ablate(case, "facts").facts == {} and ev.ablate(case, "facts").complaint == OOM
    with pytest.raises(ValueError, match="unknown part"):
        ev.ablate(case, "source")
    # the facts alone reach the same route only through questions; the complaint alone answers none
    unstable = "my training loss is unstable"
    c = Consultation()
    c.complain(unstable)
    q = c.run().question
    assert q is not None
    value = q.choices[0][0] if q.choices else "yes"
    both = ev.Case("t-001", unstable, {q.sets: value}, "gradient-management", ())
    _, outcomes = ev.evaluate([both], ablation="facts")
    assert outcomes[0].answered == 0 and outcomes[0].questions >= 1
    # an OOM known only from its complaint is lost without it
    _, outcomes = ev.evaluate([ev.Case("t-001", OOM, {}, "pytorch-engineering", ())], ablation="complaint")
    assert not outcomes[0].primary_right and outcomes[0].answered == 0
    _, outcomes = ev.evaluate([ev.Case("t-001", OOM, {}, "pytorch-engineering", ())])
    assert outcomes[0].primary_right
    # the command line names the ablation and still keeps held-back misses hidden
    d = _write(tmp_path / "cases", _case("t-001", OOM, "pytorch-engineering", thread=2),
               _case("t-002", OOM, "deep-rl", thread=1))
    assert ev.main(["--cases", str(d), "--ablate", "complaint"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ablation: without the complaint") and "t-001" in out and "t-002" not in out
    assert ev.main(["--cases", str(d), "--ablate", "facts", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ablation"] == "facts"
