"""The 2026 modern-landscape routing table: a named modern technique the user is considering -> its specialist.

``considering`` is free text (what the user wants to switch to); with no problem described it derives the
``direct_question`` symptom (``DV-SYM-08``). With a problem described these rows stay silent: a modern
technique is a symptom-driven choice, so the symptom is routed first.
"""

from __future__ import annotations

from knowledge.schema import Cite, Cross, RouteTo, Row, Words

_T = "Modern landscape routing"
_DQ = "direct_question"

MODERN_OPTIMIZERS = Words("lion", "sophia", "muon", "shampoo", "ademamix", "schedule-free", "schedule_free",
                          "schedulefree", "schedule free", "prodigy")
MEMORY_OPTIMIZERS = Words("8-bit", "8bit", "8 bit", "bitsandbytes", "paged", "adamw8bit", "adamw_8bit",
                          "paged_adamw")
MODERN_SCHEDULES = Words("wsd", "warmup-stable-decay", "warmup stable decay", "warmup_stable_decay", "infinite-lr",
                         "infinite lr", "infinite learning rate")
PRECISIONS = Words("fp8", "bf16", "bfloat16", "fp16", "float16", "half precision", "mixed precision", "amp")
MUP = Words("mup", "µp", "μp", "mu-transfer", "mutransfer", "mu transfer", "mu-p")
SHARDING = Words("zero", "zero-1", "zero-2", "zero-3", "zero1", "zero2", "zero3", "zero stage", "fsdp", "sharding",
                 "deepspeed")
PREFERENCE = Words("dpo", "grpo", "simpo", "orpo", "kto", "ipo", "rlhf", "rlaif", "preference tuning",
                   "preference loss", "preference optimization")

ROWS = (
    Row("RT-MOD-01", {"symptom": _DQ, "considering": MODERN_OPTIMIZERS},
        (RouteTo("optimization-algorithms", "primary", "the modern-optimizer sheet: when it beats AdamW and when "
                 "it does not"),),
        "Lion, Sophia, Muon and the rest are optimizer choices with documented trade-offs against the AdamW "
        "default.",
        Cite("001", _T, "Lion / Sophia / Muon / Shampoo / AdEMAMix / Schedule-Free / Prodigy")),
    Row("RT-MOD-02", {"symptom": _DQ, "considering": MEMORY_OPTIMIZERS},
        (RouteTo("optimization-algorithms", "primary", "memory-efficient optimizer variants (8-bit, paged)"),),
        "8-bit and paged optimizers are optimizer variants that shrink the optimizer state.",
        Cite("001", _T, "8-bit optimizer / bitsandbytes / paged optimizer")),
    Row("RT-MOD-03", {"symptom": _DQ, "considering": MODERN_SCHEDULES},
        (RouteTo("learning-rate-scheduling", "primary", "WSD and infinite-LR schedules next to cosine and "
                 "linear"),),
        "Warmup-stable-decay is a schedule; it is weighed against cosine in the LR specialist.",
        Cite("001", _T, "WSD schedule / warmup-stable-decay / infinite-LR")),
    Row("RT-MOD-04", {"symptom": _DQ, "considering": PRECISIONS},
        (RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision trade-offs, FP8 included",
                 section="precision"),),
        "Precision strategy lives in the memory specialist; there is no separate precision sheet.",
        Cite("001", _T, "FP8 / BF16 / FP16 / mixed precision strategy")),
    Row("RT-MOD-05", {"symptom": _DQ, "considering": MUP},
        (RouteTo("hyperparameter-tuning", "primary", "hyperparameter transfer across width and scale"),),
        "muP is a way to transfer tuned hyperparameters, so it is a tuning topic.",
        Cite("001", _T, "muP / mu-Transfer")),
    Row("RT-MOD-06", {"symptom": _DQ, "considering": SHARDING},
        (RouteTo("optimization-algorithms", "primary", "the ZeRO stage / FSDP strategy section"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "the memory math of each stage"),
         Cross("pytorch-engineering", "the FSDP / DeepSpeed API itself lives there", joint=True,
               target="distributed-training-strategies")),
        "Picking a sharding stage is strategy (here, with its memory math); wiring it up is PyTorch's API.",
        Cite("001", _T, "ZeRO stage choice / FSDP sharding-strategy choice")),
    Row("RT-MOD-07", {"symptom": _DQ, "considering": PREFERENCE},
        (RouteTo("llm-specialist", "primary", "preference-tuning method choice"),
         Cross("llm-specialist", "the method (DPO, GRPO, SimPO, ORPO, KTO, IPO, RLHF) is chosen in the LLM pack; "
               "optimizer choice for the run still routes here", joint=True, target="llm-finetuning-strategies.md")),
        "Which preference method to use is task-driven and owned by the LLM pack; the run's training dynamics "
        "remain ours.",
        Cite("001", _T, "DPO / GRPO / SimPO / ORPO / KTO / IPO / preference loss / RLHF method (cross-pack)")),
)
