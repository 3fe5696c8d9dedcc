"""The quick-reference table (2026 edition): symptom -> primary and secondary skills, once its question is answered.

The detailed tables (loss behaviour, instability, overfitting, slow training, direct questions) already
route most situations; each quick-reference row completes the secondary skills the summary adds, and fires
only once the row's own diagnostic question has an answer (or, for the loss-flat and convergence rows, once
the user declined it, so the summary's default still gives a plan).
"""

from __future__ import annotations

from knowledge.schema import Absent, Cite, Cross, Is, Present, RouteTo, Row

_T = "Quick reference: symptom -> skills"
_DQ = "direct_question"


def _c(row: str) -> Cite:
    return Cite("001", _T, row)


ROWS = (
    Row("RT-QR-01",
        {"symptom": "not_learning", "loss_behavior": Absent()},
        (RouteTo("learning-rate-scheduling", "primary", "a stuck loss is most often the LR"),),
        "Without the loss curve, the summary's lead for a stuck loss holds: the LR first. The optimizer joins only "
        "once the loss behaviour is known (changing it blind is a known misroute).",
        Cite("000", "Symptom: model not learning", "multi-skill routing: optimizer + LR together"),
        need=("declined:Q-LOSS-BEHAVIOR",)),
    Row("RT-QR-02",
        {"symptom": "unstable", "loss_behavior": "nan_or_inf", "nan_onset": Present()},
        (RouteTo("gradient-management", "primary", "NaN/Inf: gradients first"),
         RouteTo("learning-rate-scheduling", "secondary", "LR and schedule are the next suspects"),
         RouteTo("loss-functions-and-objectives", "secondary", "numerically unsafe loss terms"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "FP8/AMP loss-scale", section="precision")),
        "Once the onset is known, the summary's full NaN plan applies: gradients, LR, loss, precision.",
        _c("loss NaN/Inf")),
    Row("RT-QR-03",
        {"symptom": "overfitting", "dataset_size": Present()},
        (RouteTo("overfitting-prevention", "primary", "regularization strategy"),
         RouteTo("data-augmentation-strategies", "secondary", "more effective data"),
         RouteTo("hyperparameter-tuning", "secondary", "regularization strength")),
        "With the dataset size known, the summary's overfitting plan is confirmed with its size-based emphasis.",
        _c("overfitting")),
    Row("RT-QR-04",
        {"symptom": "slow_training", "gpu_utilization_pct": Present(), "heavy_augmentation": True},
        (RouteTo("data-augmentation-strategies", "secondary", "augmentation cost adds to the step time"),),
        "Whatever the utilization, heavy augmentation is the summary's secondary suspect for slow training.",
        _c("training slow")),
    Row("RT-QR-05",
        {"symptom": Is("unstable", "not_learning", "convergence"), "loss_behavior": "oscillating",
         "learning_rate": Present()},
        (RouteTo("learning-rate-scheduling", "primary", "an oscillating loss at this LR: lower it or schedule it"),
         RouteTo("gradient-management", "secondary", "gradient noise amplifies oscillation")),
        "With the current LR known, an oscillating loss is an LR problem first, gradients second.",
        _c("oscillating loss")),
    Row("RT-QR-06",
        {"symptom": _DQ, "question_topic": "optimizer"},
        (RouteTo("learning-rate-scheduling", "secondary", "the LR is chosen together with the optimizer"),),
        "An optimizer choice comes with its LR range, so the LR specialist follows.",
        _c("which optimizer (incl. Lion/Sophia/Muon/AdEMAMix/Schedule-Free)")),
    Row("RT-QR-07",
        {"symptom": _DQ, "question_topic": Is("learning_rate", "schedule")},
        (RouteTo("optimization-algorithms", "secondary", "a sensible LR depends on the optimizer"),),
        "LR and schedule choices depend on the optimizer family, so the optimizer specialist follows.",
        _c("which LR / WSD vs cosine")),
    Row("RT-QR-08",
        {"symptom": _DQ, "question_topic": "precision"},
        (RouteTo("gradient-management", "secondary", "stability under reduced precision (scaling, clipping)"),
         Cross("pytorch-engineering", "the autocast / GradScaler / FP8 API lives there", joint=True,
               target="mixed-precision-and-optimization")),
        "Reduced precision affects gradient stability; the API for it is PyTorch engineering's.",
        _c("which precision (FP8 / BF16)")),
    Row("RT-QR-09",
        {"symptom": _DQ, "question_topic": "mup"},
        (RouteTo("optimization-algorithms", "secondary", "muP changes per-layer LR scaling of the optimizer"),),
        "muP is tuning-led, with the optimizer's per-layer scaling next.",
        _c("muP / mu-Transfer")),
    Row("RT-QR-10",
        {"symptom": _DQ, "question_topic": "sharding"},
        (RouteTo("pytorch-engineering", "secondary", "the FSDP / ZeRO API"),),
        "After the strategy call, the API work for sharding is PyTorch engineering's.",
        _c("ZeRO / FSDP strategy")),
    Row("RT-QR-11",
        {"symptom": _DQ, "question_topic": "memory_optimizer"},
        (RouteTo("batch-size-and-memory-tradeoffs", "secondary", "optimizer-state memory in the memory budget"),),
        "Optimizer-state size is part of the memory budget, so the memory specialist follows.",
        _c("8-bit / paged optimizer")),
    Row("RT-QR-12",
        {"symptom": "experiment_tracking", "tracking_scope": "in_flight"},
        (RouteTo("experiment-tracking", "primary", "in-flight tracking"),
         RouteTo("hyperparameter-tuning", "secondary", "searches log into the tracker"),
         RouteTo("training-loop-architecture", "secondary", "tracking callbacks in the loop")),
        "In-flight tracking leads, with search and loop integration as the usual companions.",
        _c("track experiments (in-flight)")),
    Row("RT-QR-13",
        {"symptom": "experiment_tracking", "tracking_scope": "registry"},
        (RouteTo("ml-production", "primary", "registry and lineage after training"),
         RouteTo("experiment-tracking", "secondary", "in-flight logging")),
        "A registry question leads to the production pack; in-flight logging stays a secondary stop here.",
        _c("production registry / lineage (cross-pack)")),
    Row("RT-QR-14",
        {},
        (RouteTo("overfitting-prevention", "primary", "the train/val gap calls for regularization"),
         RouteTo("data-augmentation-strategies", "secondary", "more effective data narrows the gap")),
        "A measured train/validation gap is poor generalization: regularize first, augment next.",
        _c("poor generalization"), need=("flag:generalization_gap",)),
    Row("RT-QR-15",
        {"symptom": "convergence", "grad_norm_trend": Absent()},
        (RouteTo("gradient-management", "primary", "check gradient norms first"),
         RouteTo("learning-rate-scheduling", "secondary", "then the LR schedule")),
        "Without gradient norms, the summary's convergence plan starts in its stability-first order; the "
        "optimizer comes into question only once the gradients have been checked.",
        _c("convergence issues"), need=("declined:Q-GRAD-NORMS",)),
    Row("RT-QR-16",
        {"symptom": Is("unstable", "not_learning", "convergence"), "task": "preference_tuning"},
        (Cross("llm-specialist", "a preference-tuning run: the method side (beta, pairs, reference model) is "
               "the LLM pack's; the training dynamics are ours", joint=True, target="llm-finetuning-strategies.md"),
         RouteTo("llm-specialist", "secondary", "rule out the method side (beta, pairs, reference model)"),
         RouteTo("optimization-algorithms", "secondary", "optimizer for the run's dynamics"),
         RouteTo("gradient-management", "secondary", "clipping and stability for the run")),
        "Preference-tuning trouble is shared: the method there, the dynamics here; the optimizer alone is "
        "never assumed to fix it.",
        _c("DPO / GRPO / SimPO method (cross-pack)")),
)
