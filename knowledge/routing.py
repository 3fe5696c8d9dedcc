"""Routing by loss behaviour: the "model not learning" table (2026 edition where it differs).

Each row: a loss behaviour (with the not-learning/convergence symptom) -> likely cause -> skills.
"""

from __future__ import annotations

from knowledge import terms
from knowledge.fixes import FIX_GRAD_FLOW, FIX_GRAD_LOG, FIX_LR_UP, FIX_PLATEAU, NOT_LEARN_AVOID
from knowledge.schema import Cite, Find, Fix, Is, RouteTo, Row

_T = "Symptom: model not learning (route by loss behaviour)"
LOSS_SYMPTOMS = Is("not_learning", "convergence", "unstable")

# Regression-style losses (distances) and classification-style losses (log-likelihoods), by their canonical
# names in knowledge.terms (every spelling is canonicalised on the way in); a loss of one kind on a task of the
# other kind is the "wrong objective" row.
REGRESSION_LOSSES = Is(*sorted(terms.REGRESSION_LOSSES))
CLASSIFICATION_LOSSES = Is(*sorted(terms.CLASSIFICATION_LOSSES))

ROWS = (
    Row("RT-LOSS-01",
        {"symptom": LOSS_SYMPTOMS, "loss_behavior": "flat_from_start"},
        (Find("Not Learning", "warning", "loss flat from the first step: LR too low, wrong optimizer, "
              "frozen parameters or an inappropriate loss", kind="symptom"),
         RouteTo("learning-rate-scheduling", "primary", "starting conditions: is the LR far too low?"),
         RouteTo("optimization-algorithms", "secondary", "starting conditions: is the optimizer suited?")),
        "A loss that never moves is a starting-conditions problem; LR and optimizer are diagnosed together.",
        Cite("001", _T, "flat from epoch 0"), fix=FIX_GRAD_FLOW, avoid=NOT_LEARN_AVOID),
    Row("RT-LOSS-02",
        {"symptom": LOSS_SYMPTOMS, "loss_behavior": "plateau_after_learning"},
        (Find("Plateau", "warning", "learned, then plateaued: needs LR decay, or it is overfitting", kind="symptom"),
         RouteTo("learning-rate-scheduling", "primary", "adapt during training: a schedule or decay"),
         RouteTo("overfitting-prevention", "secondary", "check validation loss: the plateau may be overfitting")),
        "Progress that stops mid-run calls for adaptation (a schedule), after ruling out overfitting.",
        Cite("001", _T, "was learning, then plateaued"), fix=FIX_PLATEAU,
        avoid=("raising model size or switching optimizer at a plateau before trying LR decay",)),
    Row("RT-LOSS-03",
        {"symptom": LOSS_SYMPTOMS, "loss_behavior": "oscillating"},
        (Find("Instability", "warning", "loss oscillates: LR too high, or batch too small / gradient noise",
              kind="symptom"),
         RouteTo("learning-rate-scheduling", "primary", "an LR that is too high makes the loss oscillate"),
         RouteTo("gradient-management", "secondary", "gradient instability amplifies oscillation")),
        "Wild oscillation is an instability: LR first, gradients next.",
        Cite("001", _T, "oscillating wildly"), fix=FIX_GRAD_LOG,
        avoid=("adding more epochs or a new optimizer to an oscillating run",)),
    Row("RT-LOSS-04",
        {"symptom": LOSS_SYMPTOMS, "loss_behavior": "nan_or_inf"},
        (RouteTo("gradient-management", "primary", "stabilise gradients first: clipping, NaN debugging"),
         RouteTo("loss-functions-and-objectives", "secondary", "numerically unstable loss terms (log 0, x/0)"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "FP8/AMP loss-scale branch", section="precision")),
        "NaN is a stability emergency: gradients first, then the loss formula and the precision branch.",
        Cite("001", _T, "NaN or Inf")),
    Row("RT-LOSS-05",
        {"symptom": LOSS_SYMPTOMS, "loss_behavior": "decreasing_slowly"},
        (Find("Not Learning", "warning", "loss decreases very slowly: LR too low or a poorly suited optimizer",
              kind="symptom"),
         RouteTo("learning-rate-scheduling", "primary", "slow progress is most often an LR that is too low"),
         RouteTo("optimization-algorithms", "secondary", "the optimizer and LR are chosen together")),
        "Slow but steady descent: the LR (with its optimizer) is the first suspect.",
        Cite("000", "Quick reference", "loss flat/stuck"), fix=FIX_LR_UP, avoid=NOT_LEARN_AVOID),
    Row("RT-LOSS-06",
        {"task": Is("classification", "language_modeling"), "loss_fn": REGRESSION_LOSSES},
        (Find("Configuration", "warning", "a distance loss (MSE/L1) on a classification task: the objective "
              "does not match the task"),
         RouteTo("loss-functions-and-objectives", "primary", "the objective itself is wrong for the task")),
        "Squared or absolute error on class labels trains a regressor on category ids; no optimizer or LR fixes "
        "a mismatched objective.",
        Cite("000", _T, "loss function doesn't match task"),
        fix=Fix("Use a likelihood loss on raw logits for classification.",
                "loss_fn = torch.nn.CrossEntropyLoss()  # logits [N, C], integer targets [N]"),
        avoid=("Do not tune the LR or switch optimizers to rescue a loss that does not fit the task.",)),
    Row("RT-LOSS-07",
        {"task": "regression", "loss_fn": CLASSIFICATION_LOSSES},
        (Find("Configuration", "warning", "a classification loss (cross-entropy/NLL/BCE) on a regression task: "
              "the objective does not match the task"),
         RouteTo("loss-functions-and-objectives", "primary", "the objective itself is wrong for the task")),
        "A likelihood over classes cannot fit continuous targets; the objective has to change first.",
        Cite("000", _T, "loss function doesn't match task"),
        fix=Fix("Use a regression loss for continuous targets (MSE, or Huber when outliers matter).",
                "loss_fn = torch.nn.HuberLoss(delta=1.0)  # or torch.nn.MSELoss()"),
        avoid=("Do not tune the LR or switch optimizers to rescue a loss that does not fit the task.",)),
)
