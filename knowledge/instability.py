"""The instability priority order: gradients first, then LR, then the precision branch, then the loss formula.

Rows here apply to the ``unstable`` symptom (stated, or derived from NaN/divergence/spikes). Each adds one
step of the seeds' priority list when its evidence is present; the plan's order comes from the
``instability`` scenario of the skill graph.
"""

from __future__ import annotations

from knowledge.fixes import FIX_NAN_HUNT
from knowledge.schema import Absent, Cite, Cross, Find, Is, RouteTo, Row

_T = "Symptom: training unstable (route in priority order)"
_RAPID = Is("nan_or_inf", "diverging", "spiking")

ROWS = (
    Row("RT-UNST-01",
        {"symptom": "unstable", "loss_behavior": _RAPID},
        (Find("Explosion", "critical", "the loss spikes, diverges or goes non-finite: unstable gradients are "
              "the most common cause", kind="symptom"),
         RouteTo("gradient-management", "primary", "stabilise gradients first: clipping, scaling, NaN debugging")),
        "Gradient trouble drives most instability, so gradients are stabilised before anything else is tuned.",
        Cite("001", _T, "1. gradient-management (primary)"), fix=FIX_NAN_HUNT,
        avoid=("restarting with random tweaks (LR, seed, optimizer) before locating the first bad value",)),
    Row("RT-UNST-04",
        {"symptom": "unstable", "nan_onset": "after_steps"},
        (RouteTo("learning-rate-scheduling", "secondary", "NaN after a while: check whether the schedule "
                 "(warmup or restarts) raises the LR too far"),),
        "Instability that appears only later in training often follows the schedule pushing the LR up.",
        Cite("001", _T, "2. learning-rate-scheduling: NaN appearing later in training")),
    Row("RT-UNST-05",
        {"symptom": "unstable", "custom_loss": True},
        (RouteTo("loss-functions-and-objectives", "secondary", "hand-written losses often take log(0) or "
                 "divide by zero"),),
        "Custom loss code is the usual place for log(0) or x/0; their NaN reaches the gradients.",
        Cite("001", _T, "loss-functions-and-objectives: custom losses especially prone")),
    Row("RT-UNST-07",
        {"symptom": "unstable", "mixed_precision": Is("fp16", "bf16", "fp8")},
        (RouteTo("batch-size-and-memory-tradeoffs", "secondary", "precision strategy: loss-scale window, FP8 "
                 "underflow, or move to BF16", section="precision"),
         Cross("pytorch-engineering", "the autocast / GradScaler / FP8 API itself lives there; the strategy "
               "(which precision, what loss-scale window) stays here", joint=True,
               target="mixed-precision-and-optimization")),
        "Reduced precision adds loss-scale underflow and overflow to the causes; the strategy is ours, the API "
        "is PyTorch's.",
        Cite("001", _T, "batch-size-and-memory-tradeoffs (precision section) + cross-pack note")),
    # (a collapsing loss scale, when it is what the user saw, already names the precision strategy as the first
    # stop (MR-11): the provisional gradient stop is for a bare "unstable" and does not lead over it)
    Row("RT-UNST-08",
        {"symptom": "unstable", "loss_behavior": Absent(), "loss_scale_issue": Absent()},
        (RouteTo("gradient-management", "primary", "provisional first stop: whatever the loss curve shows, the "
                 "priority order starts at the gradients"),),
        "The symptom alone fixes the first stop of the instability order (gradient management), so the plan "
        "shows it while the loss-curve question is still open, and keeps it if that question is declined.",
        Cite("001", _T, "1. gradient-management (primary)")),
    Row("RT-UNST-09",
        {"symptom": "unstable", "grad_norm_trend": Is("exploding", "spiky")},
        (RouteTo("gradient-management", "primary", "measured gradient norms explode or spike"),),
        "Exploding or spiking gradient norms are direct evidence for the first stop of the priority order.",
        Cite("001", _T, "gradient-management: gradient explosion, NaN gradients")),
)
