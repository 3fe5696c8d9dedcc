"""Symptom derivation: name the symptom from the evidence when nobody stated it.

These rows run before routing (salience in the 50s; stability outranks everything else, so when several
kinds of evidence are present the instability symptom is derived first and the other derivations no
longer apply). A derived symptom never replaces one the user gave: ``Derive`` only fills unknown facts.
"""

from __future__ import annotations

from knowledge.measurements import gt, le, lt
from knowledge.schema import Absent, Cite, Derive, Flag, Is, Join, Present, Row, Salience

GAP_THRESHOLD = gt("MT-GAP")
"""The diagnostician's severe-overfitting gap (train accuracy minus validation accuracy, as fractions)."""

_SYM = "Symptom table"

ROWS = (
    Row("DV-SYM-01",
        {"loss_behavior": Is("nan_or_inf", "diverging", "spiking")},
        (Derive("symptom", "unstable"),),
        "NaN/Inf, divergence and spikes are the instability symptom; stability is diagnosed before anything else.",
        Cite("001", "Symptom: training unstable", "keywords: NaN, Inf, diverging, spikes"),
        salience=Salience.DERIVE + 9),
    Row("DV-SYM-02",
        {"loss_behavior": "oscillating"},
        (Derive("symptom", "unstable"),),
        "A loss that swings wildly is an instability, even without NaN.",
        Cite("000", "Symptom: model not learning (route by loss behaviour)", "oscillating wildly: instability"),
        salience=Salience.DERIVE + 8),
    Row("DV-SYM-03",
        {"loss_behavior": Is("flat_from_start", "decreasing_slowly")},
        (Derive("symptom", "not_learning"),),
        "A loss that never moves, or barely moves, is the not-learning symptom.",
        Cite("000", "Symptom: model not learning", "keywords: stuck, flat loss, not improving"),
        salience=Salience.DERIVE + 6),
    Row("DV-SYM-04",
        {"loss_behavior": "plateau_after_learning"},
        (Derive("symptom", "convergence"),),
        "Progress that stalls after a good start is a convergence problem (plateau).",
        Cite("000", "When to use", "convergence issues: slow learning, plateaus, local minima"),
        salience=Salience.DERIVE + 5),
    Row("DV-SYM-05",
        {},
        (Derive("symptom", "overfitting"),),
        "A severe train/validation gap is overfitting, whatever the loss curve looks like.",
        Cite("003", _SYM, "train good, val bad: overfitting"), need=("flag:generalization_gap",),
        salience=Salience.DERIVE + 7),
    Row("DV-GAP-02",
        {"generalization_gap": GAP_THRESHOLD},
        (Flag("generalization_gap", "measured train/val accuracy gap above 20%"),),
        "A measured accuracy gap above 20 points is a severe generalization gap.",
        Cite("003", "Overfitting investigation", "train/val gap above 20%: severe overfitting"),
        unless=("flag:generalization_gap",), salience=Salience.DERIVE + 10),
    Row("DV-SYM-06",
        {"data_time_fraction": gt("MT-DATA-FRAC")},
        (Derive("symptom", "slow_training"),),
        "When the step waits on data longer than it computes, the run is slow for an input-pipeline reason.",
        Cite("003", _SYM, "training slow: data loading or batch size"), salience=Salience.DERIVE + 4),
    Row("DV-SYM-10",
        {"slow_kind": Present()},
        (Derive("symptom", "slow_training"),),
        "A run whose steps are slow, or that needs too many of them, is the slow-training symptom, whichever way "
        "the slowness was told.",
        Cite("001", "Symptom: training too slow", "diagnostic questions"), salience=Salience.DERIVE + 4),
    # (a loss that was positive and then reads exactly 0, or reads 0 from the start, is a problem described: a
    # setting named beside it, "full fine-tuning with FSDP, the loss goes to 0", is no question about the setting)
    Row("DV-SYM-07",
        {"question_topic": Present(), "loss_collapses_zero": Absent(), "loss_zero_from_start": Absent()},
        (Derive("symptom", "direct_question"),),
        "A 'which X should I use?' topic with no problem described is a direct question.",
        Cite("001", "Symptom: which X should I use? (direct questions)", "question column"),
        salience=Salience.DERIVE + 1),
    Row("DV-SYM-08",
        {"considering": Present()},
        (Derive("symptom", "direct_question"),),
        "Asking about a technique to switch to, with no symptom described, is a direct question about it.",
        Cite("001", "Modern landscape routing", "keywords: Lion, Sophia, Muon, ... FSDP strategy"),
        salience=Salience.DERIVE),
)


CRASH = (
    Row("DV-SYM-09",
        {"error_text": Present()},
        (Derive("symptom", "crash"),),
        "An error message with no other symptom named is a crash: it is read from the traceback, and the "
        "error-text boundaries (out of memory, distributed, compile) take it further when they match.",
        Cite("000", "Cross-pack boundaries", "PyTorch errors -> pytorch-engineering"),
        salience=Salience.DERIVE - 1),
)
ROWS = ROWS + CRASH

RANGE = (
    # bf16 has fp32's 8 exponent bits: a run in it does not overflow where fp32 did not, so the precision change
    # rows that name a new format's overflow do not apply to it
    Row("DV-RANGE-01", {"mixed_precision": "bf16"},
        (Flag("range_kept", "bf16 keeps fp32's exponent range"),),
        "bf16 trades mantissa bits, not exponent bits: its range is fp32's.",
        Cite("002", "Mixed precision training", "BF16 keeps FP32's exponent range; FP16 needs loss scaling"),
        unless=("flag:range_kept",), salience=Salience.DERIVE),
)
ROWS = ROWS + RANGE

HEALTHY = (
    Row("DV-OK-01", {"loss_behavior": "decreasing_normally"},
        (Flag("healthy_evidence"),),
        "A loss that decreases normally is evidence of a healthy run: nothing to diagnose unless something else "
        "is reported.",
        Cite("003", _SYM, "no symptom: the loss decreases as expected"), salience=Salience.DERIVE),
    Row("DV-OK-02", {"generalization_gap": le("MT-GAP")},
        (Flag("healthy_evidence"),),
        "A train/validation gap within the severe-overfitting threshold is evidence the run generalizes.",
        Cite("003", "Overfitting investigation", "gap within 20%: not severe"), salience=Salience.DERIVE,
        unless=("flag:healthy_evidence",)),
)
ROWS = ROWS + HEALTHY


# Evidence that the run never learned anything: a loss flat from its first steps, or accuracy at chance. A cause
# that needs the model to have learned first (a loss sitting at its objective's floor, LS-SMOOTH-01) is ruled out.
_NEVER = "never_learned"
ROWS = ROWS + (
    Row("DV-LEARN-01", {"loss_behavior": "flat_from_start"},
        (Flag(_NEVER, "the loss never fell from its start"),),
        "A loss flat from the first steps never came down to anything, floor or not.",
        Cite("000", "Symptom: model not learning", "keywords: stuck, flat loss, not improving"),
        unless=(f"flag:{_NEVER}",), salience=Salience.DERIVE + 3),
    Row("DV-LEARN-02", {"val_acc_over_chance": lt("MT-CHANCE-ACC")},
        (Flag(_NEVER, "validation accuracy at chance"),),
        "Validation accuracy at chance means nothing generalizable was learned.",
        Cite("003", "Step 1: symptom table", "loss flat from epoch 0"),
        unless=(f"flag:{_NEVER}",), salience=Salience.DERIVE + 3),
)

GAP_KINDS = Is("accuracy", "score")
"""Metric kinds whose train/validation difference is a generalization gap: higher is better, both in [0, 1] (an F1 or
a mAP opens a gap as an accuracy does; only the chance level, ``DV-LEARN-03``, is the accuracy's own)."""

CHANCE_ACC = lt("MT-CHANCE-ACC")
"""Accuracy below this multiple of chance (1/num_classes) is accuracy at chance."""

JOINS = (
    Join("DV-LEARN-03", ("train_metric", "num_classes"),
         lambda acc, n: 0 <= acc <= 1 and CHANCE_ACC.test(acc * n), _NEVER,
         lambda acc, n: f"training accuracy {acc:.1%} against chance {1 / n:.1%} ({n} classes)",
         "Training accuracy at chance means the model has not even fit its training data.",
         Cite("003", "Step 1: symptom table", "loss flat from epoch 0"),
         when={"metric_kind": "accuracy"}, salience=Salience.DERIVE + 3),
    Join("DV-GAP-01", ("train_metric", "val_metric"),
         lambda train, val: GAP_THRESHOLD.test(train - val), "generalization_gap",
         lambda train, val: f"train {train:.1%} vs val {val:.1%}: gap {train - val:.1%} {GAP_THRESHOLD.describe()}",
         "A train accuracy more than 20 points above validation accuracy is a severe generalization gap.",
         Cite("003", "Overfitting investigation", "train/val gap above 20%: severe overfitting"),
         when={"metric_kind": GAP_KINDS}, salience=Salience.DERIVE + 10),
)
"""The generalization-gap join (train metric minus validation metric), which a single row cannot express."""


def over_chance(acc: float, n: int) -> float:
    """Validation accuracy as a multiple of chance accuracy (1/``n`` for ``n`` classes): 1.0 is chance."""
    return round(acc * n, 4)


# The accuracy against chance is the validation accuracy and the class count joined, whichever source gave each (an
# answer, a probe, a log, a text): derived here once, so it holds wherever the two are known, and never without both.
JOINS = JOINS + (
    Join("DV-CHANCE-01", ("val_metric", "num_classes"),
         lambda acc, n: isinstance(n, int) and n >= 2 and 0 <= acc <= 1, "chance_ratio",
         lambda acc, n: f"validation accuracy {acc:.1%} against chance {1 / n:.1%} ({n} classes)",
         "Validation accuracy over chance accuracy (1/num_classes) says how much better than guessing the model "
         "does on unseen data.",
         Cite("003", "Step 1: symptom table", "loss flat from epoch 0"),
         when={"metric_kind": "accuracy"}, salience=Salience.DERIVE + 10,
         derives="val_acc_over_chance", value=over_chance),
)

TRAIN_BELOW_VAL = lt("MT-TRAIN-BELOW-VAL")
"""Training accuracy this far under validation accuracy (as fractions) is validation scoring better than training."""

# Validation above training said in numbers ("train acc 50%, test acc 90%") is the same observation as said in words
# ("my validation accuracy is higher than my training accuracy"): both reach the causes that explain it.
JOINS = JOINS + (
    Join("DV-GAP-04", ("train_metric", "val_metric"),
         lambda train, val: TRAIN_BELOW_VAL.test(train - val), "train_below_val",
         lambda train, val: f"train {train:.1%} vs val {val:.1%}: training {val - train:.1%} below validation",
         "Training accuracy clearly below validation accuracy is validation scoring better than training.",
         Cite("000", "Symptom: which X should I use? (direct questions)", "which augmentation? strength"),
         when={"metric_kind": GAP_KINDS}, salience=Salience.DERIVE + 10),
)
ROWS = ROWS + (
    # (only in a complaint about the metrics: a healthy run, probed, routinely shows training a little under
    # validation, and that is no finding to warn about)
    Row("DV-GAP-05", {"val_better_than_train": Absent(),
                      "symptom": Is("overfitting", "metrics_wrong", "experiment_tracking", "data_problem")},
        (Derive("val_better_than_train", True),),
        "Training accuracy measured below validation accuracy, in a complaint about the metrics, states that "
        "validation scores better than training.",
        Cite("000", "Symptom: which X should I use? (direct questions)", "which augmentation? strength"),
        need=("flag:train_below_val",), salience=Salience.DERIVE + 5),
    # Augmentation said to be strong in a run that cannot fit its own training data ("the augmentation is too
    # aggressive and the model underfits") is the regulariser too strong for the model: the augmented task is
    # harder than the real one, which is what a run with it scoring below the run without it states.
    Row("DV-AUG-01", {"augmentation_hurts": Absent(), "augmentation_strength": "strong",
                      "symptom": Is("not_learning", "convergence")},
        (Derive("augmentation_hurts", True),),
        "Strong augmentation in a run that does not fit its training data makes the training task harder than "
        "the real one: the augmentation costs more fit than it can give back.",
        Cite("000", "Symptom: which X should I use? (direct questions)", "which augmentation? type and strength"),
        salience=Salience.DERIVE + 5),
    # The training pass measured differently from evaluation: augmentation, mixing, label smoothing or dropout act on
    # training batches only, so a training metric below the validation one is expected there (DT-AUG-02). The flag
    # marks a run where asking which side scores better separates that measurement from a fault (Q-VAL-ABOVE-TRAIN).
    *(Row(f"DV-HARDER-0{n}", when,
          (Flag("train_pass_harder", detail),),
          "Augmentation, mixed batches, smoothed targets and dropout act in training only: the training pass is "
          "the harder one, and its metric is not measured as validation's is.",
          Cite("000", "Symptom: which X should I use? (direct questions)", "which augmentation? type and strength"),
          unless=("flag:train_pass_harder",), salience=Salience.DERIVE)
      for n, (when, detail) in enumerate((
          ({"augmentation_strength": "strong"}, "strong augmentation of the training inputs"),
          ({"heavy_augmentation": True}, "heavy augmentation of the training inputs"),
          ({"train_metric_mixed": True}, "the training metric computed on mixed batches"),
          ({"label_smoothing": True}, "label smoothing in the training loss"),
          ({"regularization": Is("dropout", "augmentation", "several")}, "regularization active in training only"),
      ), 1)),
    # Out of memory when the batch was raised is the seed's memory-limited batch said the other way round: the
    # batch the user wants does not fit.
    Row("DV-MEM-01", {"memory_limited": Absent(), "recent_change": "batch_size", "boundary_topic": "cuda_oom"},
        (Derive("memory_limited", True),),
        "A CUDA out-of-memory error that comes with a larger batch means the batch size is capped by memory.",
        Cite("000", "Symptom: training too slow (route by GPU utilization)",
             "memory-limited batch size: can't increase batch size due to OOM"),
        salience=Salience.DERIVE + 5),
    # Memory that grows step after step is the same situation whether the user picked it from the symptom menu or
    # described it in words; described, it draws the memory-profiling boundary (knowledge.boundaries,
    # memory_growth), so picked from the menu it must draw it too: the declared and spoken forms route alike.
    Row("DV-MEM-02", {"boundary_topic": Absent(), "symptom": "memory_growth"},
        (Derive("boundary_topic", "memory_growth"),),
        "Memory that climbs every step until it runs out is a memory-management bug, whichever way it was reported.",
        Cite("001", "Cross-pack boundaries (bidirectional)", "memory leaks -> pytorch-engineering"),
        salience=Salience.DERIVE + 5),
    # A trainer told not to replay the seen batches on resume (ignore_data_skip=True) has no replay to wait for:
    # the resume-skip cause and the question that tests it are moot.
    Row("DV-HANG-02", {"ignore_data_skip": True},
        (Flag("no_data_replay"),),
        "A resume that skips no batches cannot pause to replay them.",
        Cite("003", "Scope boundaries", "training loop issues"),
        salience=Salience.DERIVE + 5),
    # A run that hangs after it has trained (steps or epochs done, an epoch boundary passed) did take its first
    # step: whether it ever gets past a pause before its first step is answered, and no.
    Row("DV-HANG-01", {"first_step_stall": Absent(), "hang_onset": Is("mid_run", "epoch_boundary")},
        (Derive("first_step_stall", False),),
        "A hang that comes after steps were taken is no long pause before the first step.",
        Cite("003", "Scope boundaries", "training loop issues"),
        salience=Salience.DERIVE + 5),
)
