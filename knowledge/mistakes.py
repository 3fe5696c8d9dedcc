"""Common routing mistakes (2026 table): each wrong route becomes a guard, so it is never produced.

A guard is a ``Block(skill, reason, role)``: role ``any`` removes every route to the skill, role ``primary``
lets it follow but never lead (the engine's ``CORE-GUARD-01``/``CORE-GUARD-02`` apply them whichever was
derived first). ``explain(skill, why_not=True)`` names the guard and its reason. Guard rows run at salience
100; the few rows here that add the correct route run at 0 like every route.
"""

from __future__ import annotations

from knowledge.modern import MODERN_OPTIMIZERS, MUP
from knowledge.schema import Absent, Block, Cite, Cross, Find, Fix, Is, Keyword, RouteTo, Row, Salience, Words

_T = "Common routing mistakes"
GUARD = Salience.GUARD
# Whole-word matches shared with the modern-landscape table: a substring test would read "warmup" as muP.
MODERN = MODERN_OPTIMIZERS


def _c(row: str, seed: str = "001") -> Cite:
    return Cite(seed, _T, row)


ROWS = (
    # (not a step rate that fell by the accumulation raised: nothing there waits on data, RT-SLOW-ACCUM-01)
    Row("MR-01", {"symptom": "slow_training", "gpu_utilization_pct": Absent(), "data_time_fraction": Absent(),
                  "accum_step_rate_drop": Absent()},
        (Block("batch-size-and-memory-tradeoffs", "GPU utilization is not known yet: a slow run may be waiting "
               "on data loading, which no batch size fixes"),),
        "Slow training is profiled before the batch size is touched: low utilization means the input pipeline.",
        _c("training slow -> batch-size-and-memory is wrong: check GPU utilization first"), salience=GUARD,
        avoid=("raising or lowering the batch size before measuring GPU utilization",)),
    Row("MR-02", {"symptom": "not_learning", "loss_behavior": Absent()},
        (Block("optimization-algorithms", "the loss behaviour is not known yet: a run that does not learn is "
               "more often the LR, the gradients or the loss function than the optimizer"),),
        "Not learning is diagnosed from the loss curve before any optimizer change.",
        _c("not learning -> optimization-algorithms is wrong: diagnose loss behaviour"), salience=GUARD,
        avoid=("changing the optimizer of a run that does not learn before looking at the loss curve",)),
    # A rule against the LR as the *default* answer to NaN, not against evidence for it: it fires below the
    # tentative leads' band and stands down when one of them exists (a detector's NaN, where an LR too large
    # for the set-up is the commonest confirmed cause; a hand-written loss; half precision), since each names
    # its own first stop from what is known rather than from the symptom alone.
    Row("MR-03", {"loss_behavior": "nan_or_inf"},
        (Block("learning-rate-scheduling", "NaN is first a gradient problem (explosion is the most common cause), "
               "then a loss-scale problem; the LR may follow but never leads", role="primary"),),
        "For NaN the gradients come first; the LR schedule is at most a secondary suspect, unless the evidence "
        "itself points at the LR.",
        _c("loss NaN -> learning-rate-scheduling is wrong: gradient-management first, then FP8/AMP loss scale"),
        unless=("finding_kind:suspect",), salience=Salience.CAUSE - 4,
        avoid=("lowering the LR as the first response to NaN",)),
    Row("MR-04", {"symptom": "overfitting"},
        (RouteTo("data-augmentation-strategies", "secondary", "overfitting needs more than regularization: "
                 "augmentation enlarges the effective dataset"),),
        "Regularization alone is the incomplete answer to overfitting; augmentation always joins it.",
        _c("overfitting -> overfitting-prevention only is wrong: add data-augmentation"),
        need=("route:overfitting-prevention",), avoid=("adding dropout alone and calling overfitting solved",)),
    Row("MR-05", {"symptom": "slow_training", "gpu_utilization_pct": Absent(), "data_time_fraction": Absent()},
        (Block("optimization-algorithms", "nothing has been measured yet: speed is profiled (PyTorch profiler, "
               "GPU utilization) before any optimizer change"),),
        "A faster optimizer is no answer to a run that was never profiled.",
        _c("need to speed up training -> optimization-algorithms is wrong: profile first (pytorch-engineering)"),
        salience=GUARD, avoid=("switching optimizer to make steps faster before profiling",)),
    Row("MR-06", {"question_topic": "optimizer"},
        (Block("neural-architectures", "the question is which optimizer to use, not which architecture; the "
               "architecture (e.g. a transformer) is context for the optimizer choice"),),
        "'Which optimizer for my transformer' is an optimizer question whatever the architecture.",
        _c("which optimizer for transformer -> neural-architectures is wrong: optimization-algorithms"),
        salience=GUARD),
    Row("MR-07", {"considering": MODERN, "switch_reason": "none"},
        (Find("Optimizer Choice", "warning", "the switch is motivated by novelty, not by a symptom: AdamW stays "
              "the boring, correct default", kind="note"),),
        "Modernity is not a reason to switch optimizer; a symptom with evidence is.",
        _c("use Lion because it's modern -> switch optimizer is wrong: read 'when Lion beats AdamW'"),
        fix=Fix("Stay on AdamW; if you still want to try the new optimizer, run it as a controlled A/B with its "
                "own tuned LR (Lion wants a 3-10x lower LR) and compare on the same budget.",
                "import torch\n"
                "baseline = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)\n"
                "# candidate run, same seed and budget: e.g. Lion at lr=3e-5..1e-4, weight_decay=0.3..1.0"),
        avoid=("switching optimizer because it is newer or popular",)),
    Row("MR-08", {"task": "preference_tuning", "symptom": "unstable"},
        (Block("optimization-algorithms", "a preference-tuning instability is usually method-side (beta, "
               "reference model, pairs) before it is optimizer-side; the optimizer never leads", role="primary"),),
        "An unstable DPO run is never fixed by the optimizer alone: method there, dynamics (gradients, LR) here.",
        _c("DPO training unstable, fix optimizer -> optimization-algorithms alone is wrong"), salience=GUARD,
        avoid=("assuming a new optimizer fixes a preference-tuning instability",)),
    Row("MR-09", {"preference_issue": "dynamics_side"},
        (Block("optimization-algorithms", "preference-run dynamics are stabilised with gradients and LR first; "
               "the optimizer may follow but never leads", role="primary"),),
        "Dynamics-side preference problems start at gradients and LR, jointly with the LLM pack.",
        _c("DPO training unstable: llm-specialist jointly with gradient-management + learning-rate-scheduling"),
        salience=GUARD),
    Row("MR-10", {"loss_scale_issue": True},
        (Block("learning-rate-scheduling", "an FP8/FP16 underflow or collapsing loss scale is a precision problem, "
               "not an LR problem"),),
        "Loss-scale trouble is solved with the precision strategy (and the AMP/FP8 API), not the LR.",
        _c("FP8 underflow / loss-scale issue -> learning-rate-scheduling is wrong"), salience=GUARD,
        avoid=("lowering the LR to cure a loss-scale underflow",)),
    Row("MR-11", {"loss_scale_issue": True},
        (RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy: loss-scale window, FP8 "
                 "scaling recipe, or BF16 instead", section="precision"),
         Cross("pytorch-engineering", "the AMP / FP8 API (autocast, GradScaler, FP8 hooks) lives there; the "
               "precision strategy stays here", joint=True, target="mixed-precision-and-optimization")),
        "The correct route for a loss-scale problem: precision strategy here, AMP/FP8 API there.",
        _c("FP8 underflow / loss-scale issue -> batch-size-and-memory-tradeoffs (precision) + pytorch-engineering")),
    # (a run that already trains worse under FSDP asks how FSDP wraps it, not which strategy to choose)
    Row("MR-12", {"question_topic": "sharding", "fsdp_trains_worse": Absent()},
        (Block("pytorch-engineering", "choosing a ZeRO stage or FSDP sharding strategy is a strategy decision "
               "made here (with its memory math); PyTorch engineering only wires up the API", role="primary"),),
        "ZeRO vs FSDP is not a PyTorch-engineering-only question: strategy here, API there.",
        _c("ZeRO-3 vs FSDP full-shard -> pytorch-engineering only is wrong"), salience=GUARD),
    Row("MR-13", {"question_topic": "mup"},
        (Block("optimization-algorithms", "muP transfers tuned hyperparameters across width; it is a tuning "
               "technique, so the optimizer sheet is at most secondary", role="primary"),),
        "muP belongs to hyperparameter tuning, not to optimizer choice.",
        _c("muP for scaling up -> optimization-algorithms is wrong: hyperparameter-tuning"), salience=GUARD),
    Row("MR-14", {"considering": MUP},
        (Block("optimization-algorithms", "muP transfers tuned hyperparameters across width; it is a tuning "
               "technique, so the optimizer sheet is at most secondary", role="primary"),),
        "Considering muP is a hyperparameter-transfer question, not an optimizer question.",
        _c("muP for scaling up -> optimization-algorithms is wrong: hyperparameter-tuning"), salience=GUARD),
    Row("MR-15", {"symptom": "convergence", "grad_norm_trend": Absent()},
        (Block("optimization-algorithms", "gradients have not been checked yet: convergence is diagnosed in the "
               "order gradients, then LR, then optimizer"),),
        "Jumping to a new optimizer without checking gradients is the classic convergence mistake.",
        Cite("000", "Scenario: convergence issues", "common mistake: changing optimizer without checking gradients"),
        salience=GUARD, avoid=("changing optimizer for a convergence problem before looking at gradient norms",)),
    Row("MR-16", {"symptom": Is("unstable", "convergence", "not_learning"), "considering": Words(
        "sgd", "adam", "adamw", "lamb", "lion", "sophia", "muon", "shampoo", "ademamix", "prodigy", "optimizer",
        "optimiser")},
        (Block("optimization-algorithms", "the symptom points at LR or gradients first; the suggested optimizer "
               "change can follow once those are checked", role="primary"),),
        "Blaming the optimizer when the LR or the gradients are the issue is a common misroute.",
        Cite("000", "Scenario: convergence issues", "common mistake: blaming optimizer when LR is the issue"),
        salience=GUARD, avoid=("switching optimizer as the first response to a training symptom",)),
)

KEYWORDS = (
    Keyword(r"(?:fp8|fp16|gradient|grad) underflow|underflow(?:s|ing)?|loss[- ]scal(?:e|er|ing) (?:keeps )?(?:dropping|"
            r"collaps\w*|going to zero|goes to zero|shrinking|issue|problem)", {"loss_scale_issue": True},
            Cite("001", "Symptom: training unstable", "keywords: FP8 underflow, loss scale")),
)
