"""Direct "which X should I use?" questions (2026 table): each topic has its specialist."""

from __future__ import annotations

from knowledge.schema import Absent, Cite, Cross, RouteTo, Row

_T = "Symptom: which X should I use? (direct questions)"
_DQ = "direct_question"


def _c(row: str) -> Cite:
    return Cite("001", _T, row)


ROWS = (
    Row("RT-DQ-01", {"symptom": _DQ, "question_topic": "optimizer"},
        (RouteTo("optimization-algorithms", "primary", "optimizer choice, from SGD and AdamW to the 2026 "
                 "landscape (Lion, Sophia, Muon, 8-bit ...)"),),
        "Choosing an optimizer is the optimization-algorithms specialist's question, whatever the architecture.",
        _c("which optimizer?")),
    Row("RT-DQ-02", {"symptom": _DQ, "question_topic": "learning_rate"},
        (RouteTo("learning-rate-scheduling", "primary", "initial LR and warmup"),),
        "The initial LR and its warmup belong to the scheduling specialist.",
        _c("which learning rate?")),
    Row("RT-DQ-03", {"symptom": _DQ, "question_topic": "schedule"},
        (RouteTo("learning-rate-scheduling", "primary", "schedule type: cosine vs WSD vs linear, infinite-LR "
                 "variants"),),
        "Schedule shape (cosine, WSD, linear) is part of the LR specialist's sheet.",
        _c("which learning rate? (schedule type)")),
    Row("RT-DQ-04", {"symptom": _DQ, "question_topic": "batch_size"},
        (RouteTo("batch-size-and-memory-tradeoffs", "primary", "batch size vs convergence and speed; "
                 "accumulation"),),
        "Batch size trades convergence against throughput and memory; one specialist covers all three.",
        _c("which batch size?")),
    Row("RT-DQ-05", {"symptom": _DQ, "question_topic": "precision"},
        (RouteTo("batch-size-and-memory-tradeoffs", "primary", "FP8 / BF16 / FP16 trade-offs",
                 section="precision"),),
        "There is no separate precision sheet; precision trade-offs live in the memory specialist.",
        _c("which precision?")),
    Row("RT-DQ-06", {"symptom": _DQ, "question_topic": "loss_function"},
        (RouteTo("loss-functions-and-objectives", "primary", "cross-entropy vs focal vs custom objectives"),),
        "Objective choice is the loss specialist's question.",
        _c("which loss function?")),
    Row("RT-DQ-07", {"symptom": _DQ, "question_topic": "overfitting"},
        (RouteTo("overfitting-prevention", "primary", "dropout, weight decay, early stopping"),),
        "Preventing overfitting is a regularization strategy question.",
        _c("how to prevent overfitting?")),
    Row("RT-DQ-08", {"symptom": _DQ, "question_topic": "augmentation"},
        (RouteTo("data-augmentation-strategies", "primary", "type and strength of augmentation"),),
        "Which augmentations, and how strong, is the augmentation specialist's question.",
        _c("which augmentation?")),
    Row("RT-DQ-09", {"symptom": _DQ, "question_topic": "tuning"},
        (RouteTo("hyperparameter-tuning", "primary", "search strategies: random, Bayesian, PBT, AutoML"),),
        "How to search hyperparameters is the tuning specialist's question.",
        _c("how to tune hyperparameters?")),
    Row("RT-DQ-10", {"symptom": _DQ, "question_topic": "mup"},
        (RouteTo("hyperparameter-tuning", "primary", "muP / mu-Transfer: carry tuned hyperparameters across "
                 "width and scale"),),
        "muP transfers hyperparameters across scale, so it belongs to tuning, not to optimizer choice.",
        _c("muP / mu-Transfer?")),
    Row("RT-DQ-11", {"symptom": _DQ, "question_topic": "tracking"},
        (RouteTo("experiment-tracking", "primary", "in-flight tracking: MLflow, W&B, TensorBoard"),),
        "Tracking runs during training is the experiment-tracking specialist's question.",
        _c("how to track experiments? (in-flight)")),
    # (a run that already trains worse under FSDP asks how FSDP wraps it, not which strategy to choose)
    Row("RT-DQ-12", {"symptom": _DQ, "question_topic": "sharding", "fsdp_trains_worse": Absent()},
        (RouteTo("optimization-algorithms", "primary", "the ZeRO stage / FSDP sharding strategy call"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "the memory math behind the choice"),
         Cross("pytorch-engineering", "the FSDP / DeepSpeed API itself lives there; the strategy is ours",
               joint=True, target="distributed-training-strategies")),
        "Which sharding strategy is a training-strategy decision made here with its memory math; the API is "
        "PyTorch engineering's.",
        _c("ZeRO stage / FSDP sharding strategy?")),
    Row("RT-DQ-13", {"symptom": _DQ, "question_topic": "preference_method"},
        (RouteTo("llm-specialist", "primary", "preference-tuning method choice is task-driven"),
         Cross("llm-specialist", "DPO vs SFT vs GRPO vs SimPO is a method question owned by the LLM pack",
               target="llm-finetuning-strategies.md")),
        "Which preference-tuning method fits a task is decided in the LLM specialist pack, not here.",
        _c("DPO vs SFT vs GRPO vs SimPO? (cross-pack)")),
    Row("RT-DQ-14", {"symptom": _DQ, "question_topic": "memory_optimizer"},
        (RouteTo("optimization-algorithms", "primary", "memory-efficient optimizer variants: 8-bit, paged"),),
        "8-bit and paged optimizer variants are optimizer choices.",
        Cite("001", "Modern landscape routing", "8-bit optimizer / bitsandbytes / paged optimizer")),
)
