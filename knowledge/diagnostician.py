"""The diagnostician's tables: symptom -> category -> usual root cause, investigation checks, fixes, misdiagnoses.

Every finding carries a fix (an explanation and code a PyTorch user can paste) and what not to do. The
checks that need a join of two observations (loss at init against ln(num_classes)) are hand-written rules
that mark a flag; a row then states the finding with its fix. The train/validation gap join lives in
``derive`` (``DV-GAP-01``, flag ``generalization_gap``); the finding and fix for it are here.
"""

from __future__ import annotations

import math

from knowledge import terms
from knowledge.clarification import EVIDENCE
from knowledge.fixes import (
    FIX_BATCH_LR,
    FIX_CLIP,
    FIX_GAP_MEASURE,
    FIX_GRAD_FLOW,
    FIX_LR_DOWN,
    FIX_LR_UP,
    FIX_REGULARIZE,
    FIX_SYSTEMATIC,
    FIX_TIMING,
    FIX_VANISH,
    FIX_VERIFY_OPT,
    NOT_LEARN_AVOID,
)
from knowledge.measurements import ge, gt, le, lt
from knowledge.pressure import OPTIMIZER_SWITCH
from knowledge.schema import Cite, Contains, Derive, Find, Fix, Gt, Is, Join, Not, Present, RouteTo, Row, Salience

_S = "Step 1: symptom table"
_I = "Step 2: investigate"
_F = "Step 3: fix table"
_M = "Common misdiagnoses"

ADAPTIVE = Is(*sorted(terms.ADAPTIVE))
PLAIN_SGD = Is(*sorted(terms.PLAIN_SGD))
BAD_LOSS = Not("decreasing_normally")

CHANCE_BAND = le("MT-CHANCE-BAND")
"""How close |loss_at_init / ln(num_classes) - 1| must be to call the loss 'at chance'."""

NAN_EARLY = lt("MT-NAN-EARLY")


ROWS = (
    # --- Step 1: symptom -> category -> usual root cause --------------------------------------------
    Row("DX-SYM-05", {"symptom": "overfitting"},
        (Find("Overfitting", "warning", "training metrics good, validation bad: the model needs regularization",
              kind="symptom"),),
        "A generalization gap is an overfitting problem; its size decides how strong the remedy must be. Once the "
        "gap is measured, MS-GAP-01 states it with the number instead.",
        Cite("003", _S, "train good, val bad -> overfitting"), unless=("flag:generalization_gap",),
        fix=FIX_GAP_MEASURE, avoid=("a bigger model or more epochs for an overfitting model",)),
    Row("DX-SYM-06", {"symptom": "slow_training"},
        (Find("Performance", "info", "slow training: usually data loading, otherwise the batch size",
              kind="symptom"),),
        "Slow runs are measured first: data time against compute time.",
        Cite("003", _S, "training slow -> performance"), fix=FIX_TIMING,
        avoid=("changing the optimizer or batch size before timing data loading against compute",)),
    # --- Step 2: investigation checks ------------------------------------------------------------------
    Row("DX-CHANCE-02", {"loss_behavior": Is("flat_from_start", "decreasing_slowly")},
        (Find("Not Learning", "critical", "the loss sits at chance level (about ln(num_classes)): the model "
              "predicts a uniform distribution and has learned nothing", kind="symptom"),),
        "A loss pinned at ln(C) means no learning signal reaches the outputs: frozen or disconnected parameters, "
        "an LR far too low, or labels that do not match the outputs.",
        Cite("003", _I, "not learning: is the loss near random chance = log(num_classes)?"),
        need=("flag:chance_level",), fix=FIX_GRAD_FLOW, avoid=NOT_LEARN_AVOID),
    Row("DX-GRAD-01",
        {"params_without_grad": Gt(0, source="003 · Not learning investigation · a trainable parameter printed "
                                            "with no gradient")},
        (Find("Not Learning", "warning", "some trainable parameters receive no gradient: the graph is cut "
              "(detach, no_grad, .item(), a numpy round-trip, an unused branch) before them"),
         RouteTo("training-loop-architecture", "primary", "where the graph is cut between the loss and these "
                 "parameters"),
         RouteTo("gradient-management", "secondary", "check gradient flow layer by layer")),
        "A trainable parameter with no gradient after backward is disconnected from the loss.",
        Cite("003", _I, "not learning: check that gradients are flowing"),
        # every parameter without a gradient at every step is the step order (MS-ZERO-02), not a cut graph; and
        # behind ReLUs that no input activates a layer's gradient is exactly zero too: the dead units explain it
        unless=("finding:LP-GRAPH-01", "finding:LP-GRAPH-02", "finding:MS-ZERO-02", "finding:MS-DEAD-01"),
        fix=FIX_GRAD_FLOW,
        avoid=("tuning the LR of parameters that get no gradient at all",)),
    Row("DX-FROZEN-01",
        {"frozen_params": Gt(0, source="003 · Not learning investigation · frozen parameters listed"),
         "loss_behavior": Is("flat_from_start", "decreasing_slowly")},
        (Find("Not Learning", "warning", "parameters are frozen (requires_grad=False) in a run that barely "
              "learns: check that only the intended layers are frozen"),
         RouteTo("training-loop-architecture", "primary", "which parameters the loop trains")),
        "Frozen parameters in a flat run are a usual root cause of not learning.",
        Cite("003", _S, "loss flat from epoch 0: frozen params"), unless=("finding:MS-FROZEN-01",), fix=FIX_GRAD_FLOW,
        avoid=("raising the LR of a model whose layers are frozen by mistake",)),
    Row("DX-NAN-03", {"nan_location": "activations"},
        (Find("Numerical", "critical", "activations overflow in the forward pass (often FP16 range or a missing "
              "normalization)"),
         RouteTo("gradient-management", "primary", "NaN debugging: the first module with a non-finite output"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "precision range: BF16 instead of FP16",
                 section="precision")),
        "A forward-pass overflow is a numerical-range problem: precision or normalization.",
        Cite("003", _I, "NaN: check model outputs"),
        fix=Fix("Locate the first module with non-finite output with forward hooks; move to BF16 or add "
                "normalization there.",
                "def hook(mod, inp, out):\n"
                "    if isinstance(out, torch.Tensor) and not torch.isfinite(out).all():\n"
                "        raise RuntimeError(f\"non-finite output in {mod.__class__.__name__}\")\n"
                "for m in model.modules(): m.register_forward_hook(hook)"),
        avoid=("lowering the LR for a forward-pass overflow",),
        unless=("finding:DF-NAN-HALF", "finding:DF-NAN-HALF-W")),
    Row("DX-NAN-05", {"nan_location": "gradients"},
        (Find("Explosion", "critical", "the gradients are the first non-finite values while the loss is finite: "
              "trace the first non-finite gradient (a norm that grew before it is an explosion to bound)"),
         RouteTo("gradient-management", "primary", "NaN gradients: clip, scale and trace them"),
         RouteTo("learning-rate-scheduling", "secondary", "a too-high LR diverges even when clipped")),
        "NaN gradients under a finite loss are traced layer by layer; where the norm grew first it is the explosion "
        "case and is clipped. (A norm that never grew, with the loss's origin unknown, is the singular-derivative "
        "lead DF-SUS-NAN-GRAD; a built-in loss leaves the op elsewhere in the model, which this tracing finds.)",
        Cite("003", _F, "gradient explosion -> add clipping (max_norm=1.0)"), fix=FIX_CLIP,
        avoid=("lowering the LR alone without bounding the gradient norm",),
        # (a backward that turns non-finite only on a new library version is a changed op's backward: the
        # version explains where the NaN appears, not an explosion; NaN gradients beside a loss that reads exactly
        # 0 are an overflow the logger zeroed, which no explosion produces)
        unless=("finding:DF-NAN-HALF", "finding:DF-NAN-HALF-W", "finding:DF-NAN-LOSS", "finding:DF-NAN-LOSS-NAMED",
                "finding:DF-CHG-LIB", "finding:DF-CHG-LIB-HALF", "finding:DF-ZERO-HALF", "finding:DF-SUS-ZERO",
                "finding:DF-SUS-NAN-GRAD", "finding:DF-SUS-NAN-GRAD-CALM")),
    Row("DX-NAN-06", {"nan_location": "weights"},
        (Find("Explosion", "critical", "the weights became non-finite after an optimizer step: the update was too "
              "large (LR too high or unbounded gradients)"),
         RouteTo("learning-rate-scheduling", "primary", "the step is too large: lower the peak LR, add warmup"),
         RouteTo("gradient-management", "secondary", "bound the gradient norm")),
        "Finite gradients that turn weights into NaN mean the step itself is too large.",
        Cite("003", _F, "LR too high -> decrease LR, add warmup"), fix=FIX_LR_DOWN,
        avoid=("resuming from the NaN checkpoint",), unless=("finding:DF-NAN-HALF", "finding:DF-NAN-HALF-W")),
    Row("DX-NAN-07", {"nan_location": "optimizer_state"},
        (Find("Numerical", "critical", "the optimizer state is non-finite (often an Adam second moment or eps "
              "underflowing in low precision)"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "keep optimizer state in FP32", section="precision"),
         RouteTo("optimization-algorithms", "secondary", "optimizer eps for low precision")),
        "A broken optimizer state poisons every later step; keep it in FP32 and eps representable.",
        Cite("003", _I, "NaN/Inf: numerical issues"),
        fix=Fix("Keep optimizer state in FP32 (autocast only the forward), use eps >= 1e-8, and reset the state from "
                "the last finite checkpoint.",
                "opt = torch.optim.AdamW(model.parameters(), lr=lr, eps=1e-8)  # model params stay FP32\n"
                "with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
                "    loss = loss_fn(model(x), y)"),
        avoid=("casting the whole model and optimizer to FP16",)),
    Row("DX-NAN-08", {"nan_location": Present()},
        (Derive("loss_behavior", "nan_or_inf"),),
        "A located non-finite value means the run has the NaN/Inf loss behaviour.",
        Cite("003", _I, "NaN: check where NaN first appears"), salience=Salience.DERIVE + 2),
    Row("DX-NAN-09", {"nan_step": NAN_EARLY},
        (Derive("nan_onset", "immediate"),),
        "NaN within the first steps is the 'immediate' onset: data, init or the loss formula.",
        Cite("000", "Symptom: training unstable", "when do NaN values appear: immediately at start"),
        salience=Salience.DERIVE + 2),
    Row("DX-NAN-10", {"nan_step": ge("MT-NAN-EARLY")},
        (Derive("nan_onset", "after_steps"),),
        "NaN after training has run a while is the 'after steps' onset: LR schedule, explosion, loss scale.",
        Cite("000", "Symptom: training unstable", "when do NaN values appear: after N epochs"),
        salience=Salience.DERIVE + 2),
    # --- Step 3: fix table -----------------------------------------------------------------------------
    Row("DX-FIX-01",
        {"loss_behavior": Is("flat_from_start", "decreasing_slowly"), "optimizer": ADAPTIVE,
         "learning_rate": lt("MT-LR-ADAPTIVE-LOW")},
        (Find("Not Learning", "warning", "the LR is far too low for an Adam-family optimizer"),
         RouteTo("learning-rate-scheduling", "primary", "raise the LR 10-100x (LR range test)"),
         RouteTo("optimization-algorithms", "secondary", "the LR scale belongs to the optimizer family")),
        "A flat or crawling loss at an LR decades below the usual range is the 'LR too low' fix-table row.",
        Cite("003", _F, "LR too low -> increase LR 10-100x"), unless=("finding:MS-UPD-02",), fix=FIX_LR_UP,
        avoid=("switching optimizer when the LR is simply too low",)),
    Row("DX-FIX-02",
        {"loss_behavior": Is("flat_from_start", "decreasing_slowly"), "optimizer": PLAIN_SGD,
         "learning_rate": lt("MT-LR-SGD-LOW")},
        (Find("Not Learning", "warning", "the LR is far too low for SGD"),
         RouteTo("learning-rate-scheduling", "primary", "raise the LR 10-100x (LR range test)"),
         RouteTo("optimization-algorithms", "secondary", "the LR scale belongs to the optimizer family")),
        "SGD needs much larger LRs than Adam; a flat loss far below its usual range is an LR problem.",
        Cite("003", _F, "LR too low -> increase LR 10-100x"), unless=("finding:MS-UPD-02",), fix=FIX_LR_UP,
        avoid=("switching optimizer when the LR is simply too low",)),
    Row("DX-FIX-03",
        {"loss_behavior": Is("oscillating", "diverging", "spiking", "nan_or_inf"), "optimizer": ADAPTIVE,
         "learning_rate": gt("MT-LR-ADAPTIVE-HIGH")},
        (Find("Instability", "warning", "the LR is far too high for an Adam-family optimizer"),
         RouteTo("learning-rate-scheduling", "primary", "lower the peak LR and add warmup"),
         RouteTo("gradient-management", "secondary", "clipping while the LR is brought down")),
        "An unstable loss at an LR above the usual Adam range is the 'LR too high' fix-table row.",
        Cite("003", _F, "LR too high -> decrease LR, add warmup"), unless=("finding:MS-UPD-01",), fix=FIX_LR_DOWN,
        avoid=("clipping harder to compensate for an LR that is simply too high",)),
    Row("DX-FIX-04",
        {"loss_behavior": Is("oscillating", "diverging", "spiking", "nan_or_inf"), "optimizer": PLAIN_SGD,
         "learning_rate": gt("MT-LR-SGD-HIGH")},
        (Find("Instability", "warning", "the LR is far too high for SGD"),
         RouteTo("learning-rate-scheduling", "primary", "lower the peak LR and add warmup"),
         RouteTo("gradient-management", "secondary", "clipping while the LR is brought down")),
        "An unstable loss at an SGD LR several times the usual range is the 'LR too high' row.",
        Cite("003", _F, "LR too high -> decrease LR, add warmup"), unless=("finding:MS-UPD-01",), fix=FIX_LR_DOWN,
        avoid=("clipping harder to compensate for an LR that is simply too high",)),
    # The same cause evidenced by the run's own history instead of a threshold: the user has seen a lower LR
    # train stably. It yields to the threshold rows and the measured update ratio, which say the same thing.
    Row("DX-FIX-07",
        {"loss_behavior": Is("oscillating", "diverging", "spiking", "nan_or_inf"), "lower_lr_stable": True},
        (Find("Instability", "warning", "the LR is too high for this setup: a lower LR trained stably, so the "
              "instability follows the LR, whatever the usual range for the optimizer says"),
         RouteTo("learning-rate-scheduling", "primary", "lower the peak LR toward the one that was stable, with "
                 "warmup"),
         RouteTo("gradient-management", "secondary", "clipping while the LR is brought down")),
        "An instability that comes with a higher LR and goes with a lower one is the 'LR too high' row: the "
        "usual ranges are only a prior, the run's own stable LR is evidence (batch size, data and architecture "
        "all move the largest stable LR).",
        Cite("003", _F, "LR too high -> decrease LR, add warmup"),
        unless=("finding:MS-UPD-01", "finding:DX-FIX-03", "finding:DX-FIX-04"), salience=-1, fix=FIX_LR_DOWN,
        avoid=("clipping harder to compensate for an LR that is simply too high",)),
    Row("DX-FIX-05", {"grad_norm_trend": "exploding"},
        (Find("Explosion", "critical", "gradient norms grow without bound"),
         RouteTo("gradient-management", "primary", "clip the global norm and find the source"),
         RouteTo("learning-rate-scheduling", "secondary", "lower LR / warmup once gradients are bounded")),
        "Exploding gradient norms are bounded with global-norm clipping at 1.0.",
        Cite("003", _F, "gradient explosion -> add clipping (max_norm=1.0)"),
        # (a norm that rose steadily while the loss falls normally is the loss's scale: MS-GRAD-00)
        unless=("finding:MS-GRAD-01", "flag:grad_norm_follows_loss"), fix=FIX_CLIP,
        avoid=("lowering the LR alone without bounding the gradient norm",)),
    Row("DX-FIX-06", {"grad_norm_trend": "vanishing"},
        (Find("Not Learning", "warning", "gradient norms vanish: the signal does not reach the early layers"),
         RouteTo("gradient-management", "primary", "vanishing-gradient diagnosis: activations, init, depth")),
        "Vanishing gradients are fixed in the architecture and initialization, not the optimizer.",
        Cite("003", _F, "vanishing gradients -> check architecture, init"),
        # (a norm that stayed small up to a NaN is the calm before a NaN made in one computation, not a signal that
        # fails to reach the early layers: the NaN leads explain it)
        unless=("finding:MS-GRAD-02", "finding:MS-WNORM-01", "finding:MS-WNORM-02", "finding:DF-SUS-NAN-CALM",
                "finding:DF-SUS-NAN-GRAD-CALM"),
        fix=FIX_VANISH,
        avoid=("raising the LR to push a vanishing gradient through",)),
    # --- common misdiagnoses: correct the user's frame with the evidence -------------------------------
    Row("DX-MIS-01", {"self_diagnosis": Contains("optimizer", "optimiser"), "loss_behavior": BAD_LOSS},
        (Find("Misdiagnosis", "warning", "the optimizer is suspected, but this loss behaviour usually comes from "
              "the LR or the gradients", kind="note"),),
        "'Need a different optimizer' is usually an LR or gradient issue; the loss curve is the evidence.",
        Cite("003", _M, "need different optimizer -> usually LR or gradient issue"), fix=FIX_VERIFY_OPT,
        avoid=("switching optimizer before an LR range test and a gradient-norm check",)),
    Row("DX-MIS-02", {"considering": OPTIMIZER_SWITCH, "loss_behavior": BAD_LOSS},
        (Find("Misdiagnosis", "warning", "an optimizer switch is proposed, but a wrong optimizer is rarely the "
              "issue; verify LR and gradients first", kind="note"),),
        "Wrong optimizer is rarely the issue: verify first.",
        Cite("003", _F, "wrong optimizer -> rarely the issue, verify first"), fix=FIX_VERIFY_OPT,
        avoid=("switching optimizer before an LR range test and a gradient-norm check",)),
    Row("DX-MIS-03", {"considering": Contains("epoch", "longer"), "loss_behavior": "flat_from_start"},
        (Find("Misdiagnosis", "warning", "more epochs will not help: a flat loss is not underfitting, the run is "
              "not learning at all", kind="note"),),
        "'Need more epochs' with a flat loss confuses not learning with underfitting.",
        Cite("003", _M, "need more epochs -> loss flat = not learning"), fix=FIX_GRAD_FLOW,
        avoid=("training longer on a flat loss",)),
    Row("DX-MIS-04", {"considering": Contains("bigger model", "larger model", "more parameters", "capacity"),
                      "symptom": "overfitting"},
        (Find("Misdiagnosis", "warning", "a bigger model makes overfitting worse: this is a data or "
              "regularization problem, not capacity", kind="note"),),
        "'Model too small' on an overfitting run is usually data or regularization.",
        Cite("003", _M, "model too small -> usually data or regularization"), fix=FIX_REGULARIZE,
        avoid=("growing the model while validation lags training",)),
    Row("DX-MIS-05", {"self_diagnosis": Contains("batch"), "loss_behavior": BAD_LOSS},
        (Find("Misdiagnosis", "warning", "the batch size is suspected, but the LR has to move with the batch: "
              "adjust them together", kind="note"),),
        "'Batch size too small' is usually an LR that was not adjusted with the batch.",
        Cite("003", _M, "batch size too small -> LR needs adjustment with batch"), fix=FIX_BATCH_LR,
        avoid=("changing the batch size without rescaling the LR",)),
    Row("DX-MIS-06", {"considering": Contains("random search", "randomly", "sweep")},
        (Find("Misdiagnosis", "warning", "a search is proposed for a run with a known symptom: diagnose it "
              "systematically first", kind="note"),),
        "'Need to tune hyperparameters' with a symptom on the table calls for diagnosis, not a random search.",
        Cite("003", _M, "need to tune hyperparameters -> systematic diagnosis first"), need=(EVIDENCE,),
        fix=FIX_SYSTEMATIC, avoid=("random search as a substitute for diagnosis",)),
)


def _chance_deviation(loss: float, n: int) -> float:
    """How far the loss at init is from ln(num_classes), relative to it."""
    return abs(loss / math.log(n) - 1.0)


JOINS = (
    Join("DX-CHANCE-01", ("loss_at_init", "num_classes"),
         lambda loss, n: CHANCE_BAND.test(_chance_deviation(loss, n)), "chance_level",
         lambda loss, n: f"loss at init {loss:.3f} vs ln({n}) = {math.log(n):.3f} "
                         f"(deviation {_chance_deviation(loss, n):.1%}, chance if {CHANCE_BAND.describe()})",
         "A loss within 10% of ln(num_classes) is chance level: the outputs are a uniform guess "
         f"(threshold: {CHANCE_BAND.describe()} relative deviation; {CHANCE_BAND.source}).",
         Cite("003", _I, "not learning: loss near random chance = log(num_classes)"),
         salience=Salience.DERIVE + 10),
)
"""The chance-level join: loss at init against ln(num_classes)."""
