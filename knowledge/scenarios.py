"""Multi-skill scenarios: situations that need several specialists in a prescribed order.

The order itself lives in ``knowledge.skills.SCENARIOS`` (graph edges); these rows decide which skills
join the plan.
"""

from __future__ import annotations

from knowledge.schema import Absent, Block, Cite, Find, Is, RouteTo, Row, Salience

ROWS = (
    Row("SC-NEW-01",
        {"symptom": "new_setup"},
        (RouteTo("optimization-algorithms", "primary", "foundation: pick the optimizer for the task"),
         RouteTo("learning-rate-scheduling", "secondary", "foundation: initial LR and warmup"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "foundation: batch size and precision",
                 section="precision"),
         RouteTo("loss-functions-and-objectives", "secondary", "objective: a loss suited to the task"),
         RouteTo("experiment-tracking", "secondary", "infrastructure: experiment logging"),
         RouteTo("training-loop-architecture", "secondary", "infrastructure: loop with checkpointing")),
        "A new pipeline is built foundation first (optimizer, LR, batch and precision), then the objective, "
        "then the infrastructure.",
        Cite("001", "Scenario: new training setup", "route in order")),
    Row("SC-CONV-01",
        {"symptom": "convergence", "grad_norm_trend": Is("exploding", "vanishing", "spiky")},
        (Find("Convergence", "warning", "gradient norms are not healthy: stability has to be restored before "
              "the LR or optimizer is changed", kind="symptom"),
         RouteTo("gradient-management", "primary", "stability: vanishing/exploding gradients"),
         RouteTo("learning-rate-scheduling", "secondary", "adaptation: the LR schedule"),
         RouteTo("optimization-algorithms", "secondary", "algorithm: a different optimizer only if needed")),
        "Unhealthy gradients come first in a convergence problem: stability, then adaptation, then algorithm.",
        Cite("000", "Scenario: convergence issues", "gradient-management, then LR, then optimizer")),
    Row("SC-CONV-02",
        {"symptom": "convergence", "grad_norm_trend": "normal"},
        (RouteTo("learning-rate-scheduling", "primary", "gradients are healthy: adapt the LR schedule next"),
         RouteTo("optimization-algorithms", "secondary", "change the optimizer only if the LR is not it")),
        "With stability confirmed, the convergence order continues at adaptation (LR), then the algorithm.",
        Cite("000", "Scenario: convergence issues", "stability checked; LR before optimizer")),
    Row("SC-CONV-03",
        {"symptom": "convergence", "grad_norm_trend": Absent(), "loss_behavior": Absent()},
        (RouteTo("gradient-management", "primary", "provisional first stop: convergence is diagnosed gradients "
                 "first, whatever the norms turn out to be"),),
        "The convergence order (stability, then adaptation, then algorithm) fixes the first stop before the "
        "gradient-norm question is answered; the plan shows it while the question is open.",
        Cite("000", "Scenario: convergence issues", "gradient-management first (stability)")),
    Row("SC-SPD-01",
        {"symptom": "slow_training", "memory_limited": True, "heavy_augmentation": True},
        (Block("data-augmentation-strategies", "with memory also capping the batch, augmentation overhead is "
               "addressed after the batch/memory strategy and memory profiling", role="primary"),
         RouteTo("data-augmentation-strategies", "secondary", "reduce augmentation overhead last")),
        "Speed and memory are coupled: the batch/memory strategy leads, memory profiling follows, and the "
        "augmentation overhead comes last.",
        Cite("001", "Scenario: training speed + memory constraints", "route to (in order)"),
        need=("flag:compute_bound",), salience=Salience.GUARD),
    Row("SC-MT-01",
        {"symptom": "multi_task"},
        (RouteTo("loss-functions-and-objectives", "primary", "design the combined loss and its weighting"),
         RouteTo("gradient-management", "secondary", "check per-task gradients and their balance"),
         RouteTo("hyperparameter-tuning", "secondary", "tune the task weights")),
        "Several objectives need a designed combined loss, a look at per-task gradients, then weight tuning.",
        Cite("000", "Scenario: multi-task learning or custom loss", "route to")),
)
