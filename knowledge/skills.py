"""The skill catalogue, the cross-pack targets, and the seeds' orders between skills (graph edges)."""

from __future__ import annotations

from knowledge.record import dataclass
from knowledge.schema import Cite

HERE = "training-optimization"


@dataclass(frozen=True)
class Skill:
    """A specialist skill (this pack) or a cross-pack target (another pack).

    Attributes:
        name: Node name in the skill graph.
        pack: The pack that owns it.
        covers: What it covers, in our words.
        sheet: The reference sheet to load.
    """

    name: str
    pack: str
    covers: str
    sheet: str


_C = Cite("000", "Skill catalog", "the ten specialist sheets")

SKILLS: tuple[Skill, ...] = (
    Skill("optimization-algorithms", HERE,
          "choosing and configuring the optimizer (SGD, Adam/AdamW, LAMB and the 2026 landscape: Lion, Sophia, "
          "Muon, Shampoo, AdEMAMix, Schedule-Free, Prodigy, 8-bit/paged), ZeRO/FSDP strategy",
          "optimization-algorithms.md"),
    Skill("learning-rate-scheduling", HERE,
          "initial learning rate, warmup, schedules (step, cosine, WSD, one-cycle), LR-finder",
          "learning-rate-scheduling.md"),
    Skill("loss-functions-and-objectives", HERE,
          "objective choice, custom and multi-task losses, numerically stable formulations",
          "loss-functions-and-objectives.md"),
    Skill("gradient-management", HERE,
          "clipping, accumulation, scaling, vanishing/exploding diagnosis, NaN debugging",
          "gradient-management.md"),
    Skill("batch-size-and-memory-tradeoffs", HERE,
          "batch size vs convergence and speed, accumulation, precision (FP8/BF16/FP16), memory math",
          "batch-size-and-memory-tradeoffs.md"),
    Skill("data-augmentation-strategies", HERE,
          "augmentation choice, strength and cost", "data-augmentation-strategies.md"),
    Skill("overfitting-prevention", HERE,
          "regularization (weight decay, dropout), early stopping, generalization", "overfitting-prevention.md"),
    Skill("training-loop-architecture", HERE,
          "loop design, monitoring, logging, checkpointing, callbacks", "training-loop-architecture.md"),
    Skill("hyperparameter-tuning", HERE,
          "search strategies (random, Bayesian, PBT), muP/mu-Transfer", "hyperparameter-tuning.md"),
    Skill("experiment-tracking", HERE,
          "in-flight run tracking (MLflow, W&B, TensorBoard), comparing runs", "experiment-tracking.md"),
    # Cross-pack targets: other packs own these concerns.
    Skill("pytorch-engineering", "pytorch-engineering",
          "PyTorch infrastructure and APIs: memory/OOM, DataLoader, profiling, distributed bring-up, "
          "torch.compile, torch.amp/GradScaler, checkpoint loading", "yzmir-pytorch-engineering"),
    Skill("neural-architectures", "neural-architectures", "architecture choice and model size",
          "yzmir-neural-architectures"),
    Skill("ml-production", "ml-production", "inference speed, deployment, model registry and lineage",
          "yzmir-ml-production"),
    Skill("deep-rl", "deep-rl", "RL-specific training (exploration, reward, policy algorithms)",
          "yzmir-deep-rl"),
    Skill("llm-specialist", "llm-specialist",
          "LLM techniques: preference-tuning method choice (DPO, GRPO, SimPO, ORPO, KTO, IPO), RLHF, LoRA",
          "yzmir-llm-specialist / llm-finetuning-strategies.md"),
)

SKILL_BY_NAME = {s.name: s for s in SKILLS}
SPECIALISTS = tuple(s.name for s in SKILLS if s.pack == HERE)
CROSS_PACK = tuple(s.name for s in SKILLS if s.pack != HERE)


@dataclass(frozen=True)
class Scenario:
    """An order between skills that the seeds prescribe for one situation.

    Attributes:
        name: Scenario id.
        order: Skills in the order they should be consulted.
        why: The reason for the order, in our words.
        cite: Seed section.
        graph: Which graph the order belongs to: ``diagnostic`` (problems) or ``setup`` (a new pipeline),
            or ``multi_task`` (custom-loss design leads). Orders in one graph must not contradict.
    """

    name: str
    order: tuple[str, ...]
    why: str
    cite: Cite
    graph: str = "diagnostic"


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("new_setup",
             ("optimization-algorithms", "learning-rate-scheduling", "batch-size-and-memory-tradeoffs",
              "loss-functions-and-objectives", "experiment-tracking", "training-loop-architecture"),
             "foundations first (optimizer, LR, batch and precision), then the objective, then the "
             "infrastructure (tracking, loop)",
             Cite("001", "Scenario: new training setup", "route in order"), graph="setup"),
    Scenario("convergence",
             ("gradient-management", "learning-rate-scheduling", "optimization-algorithms"),
             "stability (gradients) before adaptation (LR) before the algorithm (optimizer)",
             Cite("000", "Scenario: convergence issues", "route in order")),
    Scenario("instability",
             ("gradient-management", "learning-rate-scheduling", "batch-size-and-memory-tradeoffs",
              "loss-functions-and-objectives"),
             "stabilise gradients first; a too-high LR diverges even when clipped; then the precision/"
             "loss-scale branch; then numerical issues in the loss",
             Cite("001", "Symptom: training unstable", "route in priority order")),
    Scenario("overfitting",
             ("overfitting-prevention", "data-augmentation-strategies", "hyperparameter-tuning"),
             "regularize, enlarge the effective dataset, then tune the regularization strength",
             Cite("000", "Scenario: overfitting issues", "multi-pronged approach")),
    Scenario("speed_memory",
             ("batch-size-and-memory-tradeoffs", "pytorch-engineering", "data-augmentation-strategies"),
             "batch/accumulation strategy here, memory profiling there, augmentation cost last",
             Cite("000", "Scenario: training speed + memory constraints", "route to")),
    Scenario("tracking",
             ("experiment-tracking", "hyperparameter-tuning", "training-loop-architecture"),
             "tracking first, systematic search on top, then wiring it into the loop",
             Cite("000", "Symptom: need to track experiments", "route to")),
    Scenario("not_learning",
             ("learning-rate-scheduling", "optimization-algorithms"),
             "the learning rate is the usual culprit; the optimizer choice comes after it",
             Cite("000", "Quick reference", "loss flat/stuck")),
    Scenario("multi_task",
             ("loss-functions-and-objectives", "gradient-management", "hyperparameter-tuning"),
             "design the combined loss, check per-task gradients, then tune the task weights",
             Cite("000", "Scenario: multi-task learning or custom loss", "route to"), graph="multi_task"),
)

SCENARIO_BY_NAME = {s.name: s for s in SCENARIOS}
GRAPHS = ("diagnostic", "setup", "multi_task")

# Which scenario graph orders the plan for a given symptom (default: diagnostic).
GRAPH_FOR_SYMPTOM = {"new_setup": "setup", "multi_task": "multi_task"}
