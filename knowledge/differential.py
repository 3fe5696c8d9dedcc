"""The differential: the questions that split the common causes of a symptom, and the leads they give.

The seeds route an unstable run to gradient management first and a run that does not learn to the learning
rate, whatever else is known. Real runs break for more specific reasons, and what users say usually points at
one: a hand-written loss, half precision, a change made just before the trouble began. Two kinds of knowledge
live here:

* **tentative leads** (``kind="suspect"``): evidence that makes one cause the likeliest without proving it.
  A suspect leads the plan while no cause is evidenced, is marked tentative in the report, and leaves the
  question that would confirm it open (where the first non-finite value appears, what changed);
* **what changed** (``recent_change``): trouble that starts right after a change is that change's, far more
  often than the symptom table's default. Each change names its cause, route and fix.
"""

from __future__ import annotations

import dataclasses

from knowledge.fixes import FIX_BATCH_LR, FIX_LR_DOWN
from knowledge.schema import (
    Absent,
    Cite,
    Cross,
    Find,
    Fix,
    Gt,
    Is,
    Not,
    Present,
    QuestionRow,
    RouteTo,
    Row,
    Salience,
)
from knowledge.terms import SINGULAR_LOSSES

_DX = "Step 2: investigate"
_PREC = Cite("002", "Mixed precision training", "BF16 keeps FP32's exponent range; FP16 needs loss scaling")

_NAN_PLACED = ("finding:DF-NAN-EVAL", "finding:DF-NAN-DEVICE", "finding:DF-NAN-CKPT")
"""A NaN placed by where it happens (only in evaluation, on one device, from another checkpoint): each is the more
specific cause, so the general NaN and instability suspects give way to it."""
_YIELDS_TO_LOSS_AND_NAN = ("finding:DF-SUS-LOSS", "finding:DF-SUS-HALF", *_NAN_PLACED)
"""What an LR suspect of an instability gives way to: the loss's own numerics, half-precision overflow, a placed NaN."""
_UN = Cite("001", "Symptom: training unstable", "diagnostic questions")
RUN_TROUBLE = Is("unstable", "not_learning", "convergence")
NONFINITE = Is("nan_or_inf", "diverging", "spiking")

FIX_LOSS_NUMERICS = Fix(
    "Make the loss numerically safe: compute it from logits with the fused built-ins (log-softmax inside "
    "cross_entropy, BCEWithLogitsLoss), clamp probabilities away from 0 and 1 before a log, and add an epsilon "
    "under every sqrt and division.",
    "eps = 1e-7\n"
    "p = torch.sigmoid(logits).clamp(eps, 1 - eps)      # never log(0)\n"
    "loss = -(y * p.log() + (1 - y) * (1 - p).log()).mean()\n"
    "dist = torch.sqrt(((a - b) ** 2).sum(-1) + eps)     # sqrt'(0) is infinite\n"
    "assert torch.isfinite(loss), f\"non-finite loss at step {step}\"")
FIX_HALF_OVERFLOW = Fix(
    "Keep values inside the half-precision range: train in bf16 where the GPU supports it (same exponent range "
    "as fp32); in fp16 use a GradScaler and run the overflow-prone parts (softmax, norms, the loss) in fp32.",
    "with torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16):   # bf16: no loss scaling needed\n"
    "    loss = loss_fn(model(x), y)\n"
    "# fp16 only: scaler = torch.amp.GradScaler(); scaler.scale(loss).backward(); scaler.step(opt); scaler.update()")
FIX_RESUME_STATE = Fix(
    "Save and restore everything that evolves during training, not only the weights: the optimizer (moments, "
    "step counts), the LR scheduler, the GradScaler and the step or epoch counter.",
    "torch.save({\"model\": model.state_dict(), \"opt\": opt.state_dict(), \"sched\": sched.state_dict(),\n"
    "            \"scaler\": scaler.state_dict(), \"step\": step}, path)\n"
    "ck = torch.load(path)\n"
    "model.load_state_dict(ck[\"model\"]); opt.load_state_dict(ck[\"opt\"])\n"
    "sched.load_state_dict(ck[\"sched\"]); scaler.load_state_dict(ck[\"scaler\"]); step = ck[\"step\"]")
FIX_EXTEND = Fix(
    "Give the schedule the run's full length from the start, or continue from the LR the run ended with (a "
    "constant or short-decay tail, or a WSD schedule) instead of stretching the old curve.",
    "# continuing a finished run: keep its last LR and decay over the extra steps only\n"
    "last_lr = optimizer.param_groups[0]['lr']\n"
    "for g in optimizer.param_groups:\n    g['lr'] = last_lr\n"
    "scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.1, total_iters=extra_steps)\n"
    "# planning to extend later: torch.optim.lr_scheduler.SequentialLR with a constant phase, or WSD")
FIX_PIPELINE_DIFF = Fix(
    "Put one batch from the old pipeline beside one from the new (same example ids): compare the inputs' dtype, "
    "range and normalisation, the labels paired with each input, and the order; keep the old pipeline until they "
    "match.",
    "xb_old, yb_old = next(iter(old_loader)); xb_new, yb_new = next(iter(new_loader))\n"
    "for name, a, b in ((\"x\", xb_old, xb_new), (\"y\", yb_old, yb_new)):\n"
    "    print(name, a.dtype, b.dtype, a.shape, b.shape, a.float().mean().item(), b.float().mean().item())\n"
    "assert torch.equal(yb_old, yb_new), \"labels differ for the same examples\"")
FIX_PIN_VERSION = Fix(
    "Confirm the regression by pinning the previous version (same seed, same data): if the old version trains, "
    "read the new version's release notes for the changed default or file an issue with a minimal repro.",
    "pip install \"torch==<last good version>\"  # or transformers / lightning / accelerate\n"
    "python -c \"import torch; print(torch.__version__)\"")

# A run that stops learning right after its loop was edited (a scheduler, gradient accumulation, a second
# optimizer or a logging hook wired in) most often lost a call in the edit: scheduler.step() written where
# optimizer.step() was, zero_grad moved into the accumulation branch, a step left inside a branch that never
# runs. The edit, not the schedule's values, is the first suspect: a schedule alone cannot freeze the loss.
# Only a loss that does not fall says a call was lost: one that learns and then plateaus, or goes down while a
# validation figure lags, stepped the optimizer, so the edit did not freeze it (the convergence and
# generalization tables read those). Two forms of the one cause: the run said to stop learning with its curve
# unsaid, and the curve said flat from the start.
DF_CHG_LOOP = Row(
    "DF-CHG-LOOP",
    {"symptom": "not_learning", "loss_behavior": Absent(), "recent_change": "training_loop"},
    (Find("Training Loop", "warning", "the run stopped learning when the training loop was edited (a scheduler, "
          "accumulation or another optimizer wired in): the edit most likely dropped or displaced a call "
          "(scheduler.step() in place of optimizer.step(), zero_grad or the step moved into a branch that does "
          "not run)", explains=("not_learning", "convergence")),
     RouteTo("training-loop-architecture", "primary", "diff the edited loop against the one that trained: "
             "backward, optimizer.step(), then scheduler.step(), every step"),
     RouteTo("learning-rate-scheduling", "secondary", "the schedule's own values, once the loop steps")),
    "scheduler.step() only sets the next learning rate; the weights move only in optimizer.step(). A loop that "
    "trained before an edit and not after lost a call in the edit.",
    Cite("003", _DX, "check the training loop before the hyperparameters"),
    fix=Fix("Keep optimizer.step() in every iteration and call scheduler.step() after it (per step or per "
            "epoch, as the schedule is defined).",
            "loss.backward()\noptimizer.step()          # always: this is what moves the weights\n"
            "optimizer.zero_grad(set_to_none=True)\nif scheduler is not None:\n    scheduler.step()"),
    salience=Salience.CAUSE,
    avoid=("retuning the new schedule's values while the loop may no longer step the optimizer",))
DF_CHG_LOOP_FLAT = dataclasses.replace(
    DF_CHG_LOOP, id="DF-CHG-LOOP-FLAT",
    when={"symptom": Is("not_learning", "convergence"), "loss_behavior": "flat_from_start",
          "recent_change": "training_loop"})


# --- where the first non-finite value appears, under a hand-written loss ---------------------------------
# The backward of sqrt or a norm at 0, of log at 0, of a division by a vanishing denominator is infinite while
# the loss value itself is still finite: a custom loss (distances, IoU variants, contrastive terms) is the
# classic source of NaN that shows up first in the gradients, and clipping cannot remove a NaN.
DF_NAN_LOSS = Row(
    "DF-NAN-LOSS",
    {"nan_location": "gradients", "custom_loss": True},
    (Find("Numerical", "critical", "the first non-finite values appear in the gradients of a hand-written loss "
          "whose value is still finite: its backward divides by zero (the derivative of sqrt or a norm at 0, of "
          "log at 0, of a ratio whose denominator vanishes)", explains=("unstable", "not_learning")),
     RouteTo("loss-functions-and-objectives", "primary", "make the loss's backward finite: eps inside sqrt, "
             "norms and logs"),
     RouteTo("gradient-management", "secondary", "trace which layer's gradient turns non-finite first")),
    "A NaN born in the backward of the loss is the loss's: its derivative is infinite at a point the forward "
    "value hides (sqrt(0) is 0, its slope is not).",
    Cite("001", "Symptom: training unstable", "loss-functions-and-objectives: custom losses especially prone"),
    fix=FIX_LOSS_NUMERICS, salience=Salience.CAUSE,
    avoid=("clipping the gradients to hide a NaN the loss's backward produces: the clip keeps the NaN",))
# The same cause where the loss is not hand-written but one whose formula has such a point by construction: a loss
# made from a quality metric (an intelligibility or signal-to-distortion score, a box overlap, a mask overlap, a
# structural similarity) takes a sqrt, a norm, a log or a ratio of quantities a batch can drive to exactly 0 (a
# silent frame, an empty mask, a degenerate box). Coming from a library does not make its backward finite there.
DF_NAN_LOSS_NAMED = dataclasses.replace(
    DF_NAN_LOSS, id="DF-NAN-LOSS-NAMED",
    when={"nan_location": "gradients", "loss_fn": Is(*sorted(SINGULAR_LOSSES))},
    then=(Find("Numerical", "critical", "the first non-finite values appear in the gradients under a loss made "
               "from a metric whose formula takes a sqrt, a norm, a log or a ratio (STOI, SI-SDR, IoU, Dice, SSIM): "
               "at an input that makes that quantity exactly 0 its value is finite and its derivative is not",
               explains=("unstable", "not_learning")),
          *DF_NAN_LOSS.then[1:]),
    unless=("finding:DF-NAN-LOSS",))  # said hand-written too: one finding

# --- NaN first in the gradients with the loss still finite: a singular derivative, not an explosion ------------
# An explosion is a growth: the gradient norm climbs over steps, the loss follows it up, and in fp32 the loss or
# the weights turn non-finite long before a gradient reaches fp32's limit (3e38). A gradient that is NaN while the
# loss it came from is finite, with no growing norm before it, was made in one backward: a derivative that is
# infinite at the point the batch reached (sqrt or a norm at exactly 0, log at 0, a division by a denominator that
# vanishes, an op's backward at a tie such as a distance of 0), and 0 * inf there is NaN. The loss is where users
# write such formulas most often, so it leads while nothing says the loss is a built-in; clipping has nothing to
# act on (the clip of a NaN is NaN). Half precision explains the same place by its range (DF-NAN-HALF), a
# hand-written or metric loss by its formula (DF-NAN-LOSS); a norm that grew (DX-FIX-05, MS-GRAD-01) is the
# explosion these rows yield to. With the loss named (a built-in whose backward is finite everywhere, or a metric
# loss DF-NAN-LOSS-NAMED reads) or said not hand-written, the op is elsewhere in the model, and the gradient stop's
# NaN tracing (DX-NAN-05) stays first; a loss that reads exactly 0 beside the NaN is a masked NaN, not a finite
# loss, so the premise does not hold either.
_SINGULAR_BACKWARD_YIELDS = ("finding:DX-FIX-05", "finding:MS-GRAD-01", "finding:DF-NAN-HALF",
                             "finding:DF-NAN-HALF-W", "finding:DF-NAN-LOSS", "finding:DF-NAN-LOSS-NAMED",
                             "finding:DF-CHG-LIB", "finding:DF-CHG-LIB-HALF", "finding:DF-ZERO-HALF",
                             "finding:DF-SUS-ZERO")
DF_SUS_NAN_GRAD = Row(
    "DF-SUS-NAN-GRAD",
    {"nan_location": "gradients", "custom_loss": Absent(), "loss_fn": Absent(), "grad_norm_trend": Absent(),
     "loss_collapses_zero": Absent()},
    (Find("Numerical", "warning", "the first non-finite values are gradients of a finite loss with no growing "
          "gradient norm before them: a derivative that is infinite where the batch landed (sqrt or a norm at 0, "
          "log at 0, a division by a vanishing denominator), most often in the loss's formula, not an explosion; "
          "whether the gradient norm grew before the NaN, and whether the loss is hand-written, confirm which",
          kind="suspect", explains=("unstable", "not_learning")),
     RouteTo("loss-functions-and-objectives", "primary", "make the loss's backward finite: eps inside sqrt, "
             "norms and logs, clamps before a division"),
     RouteTo("gradient-management", "secondary", "anomaly detection to name the op whose backward turns "
             "non-finite")),
    "A NaN gradient under a finite loss is made in one backward at a singular point; a gradient that explodes "
    "grows over steps first, and drags the loss up with it.",
    Cite("001", "Symptom: training unstable", "loss-functions-and-objectives: custom losses especially prone"),
    fix=FIX_LOSS_NUMERICS, unless=_SINGULAR_BACKWARD_YIELDS, salience=Salience.CAUSE - 2,
    avoid=("clipping the gradients against a NaN made in one backward: the clip of a NaN is NaN",))
DF_SUS_NAN_GRAD_CALM = dataclasses.replace(
    DF_SUS_NAN_GRAD, id="DF-SUS-NAN-GRAD-CALM",
    when={"nan_location": "gradients", "custom_loss": Absent(), "loss_fn": Absent(),
          "grad_norm_trend": Is("normal", "vanishing"), "loss_collapses_zero": Absent()},
    unless=(*_SINGULAR_BACKWARD_YIELDS, "finding:DF-SUS-NAN-GRAD"))  # the measured-calm form of the same lead

# --- half-precision weights: the same range as an fp16 autocast, without its fp32 master copy -------------------
# model.half() (or a checkpoint loaded in fp16) computes forward, backward and update in fp16 with no loss scaler
# and no fp32 copy; a first NaN in its activations, gradients or weights is the format's range exactly as under
# fp16 autocast (DF-NAN-HALF), only more likely.
DF_NAN_HALF_W = Row(
    "DF-NAN-HALF-W",
    {"nan_location": Is("activations", "gradients", "weights"), "weights_dtype": "fp16"},
    (Find("Numerical", "critical", "the first non-finite values appear in a model whose weights are fp16 "
          "(model.half() or an fp16 checkpoint): forward, backward and update all run in fp16 without a loss "
          "scaler's protection, and values leave its range (65504 at the top, underflow to 0 at the bottom)",
          explains=("unstable", "not_learning")),
     RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy: fp32 (or bf16) weights with "
             "autocast, loss scaling", section="precision"),
     RouteTo("gradient-management", "secondary", "scaled-gradient handling (unscale before clipping)")),
    "fp16 weights leave no fp32 master copy and no loss scaling: where a NaN first shows in such a model, the "
    "number format is the first suspect, before the LR or the gradients' size.",
    _PREC, fix=FIX_HALF_OVERFLOW, salience=Salience.CAUSE, unless=("finding:DF-NAN-HALF",),
    avoid=("clipping or lowering the LR against an overflow of the fp16 format",))


ROWS = (
    # --- tentative leads: the likeliest cause, before the question that confirms it -----------------------
    Row("DF-SUS-LOSS",
        {"symptom": "unstable", "loss_behavior": Is("nan_or_inf", "diverging"), "custom_loss": True,
         "nan_location": Absent()},
        (Find("Numerical", "warning", "the hand-written loss is the likeliest source of the "
              "non-finite values (a log of 0, a division by 0 or a sqrt at 0); where the first NaN appears "
              "confirms it", kind="suspect"),
         RouteTo("loss-functions-and-objectives", "primary", "make the loss numerically safe first")),
        "Of the ways a run turns non-finite, hand-written loss code is the most common one the user wrote "
        "themselves; the seed routes numerical loss problems to the loss skill, ahead of clipping the gradients "
        "they produce.",
        Cite("001", "Symptom: training unstable", "loss-functions-and-objectives: custom losses especially prone"),
        fix=FIX_LOSS_NUMERICS, unless=_NAN_PLACED,
        avoid=("clipping gradients to hide a NaN the loss produces: the clip does not remove non-finite values",),
        salience=Salience.CAUSE - 2),
    Row("DF-SUS-HALF",
        {"symptom": "unstable", "loss_behavior": Is("nan_or_inf", "diverging"), "mixed_precision": Is("fp16", "fp8"),
         "nan_location": Absent()},
        (Find("Numerical", "warning", "values leaving the half-precision range (overflow to inf, or a "
              "loss scale gone wrong) are the likeliest cause; a run in bf16 or fp32 that stays finite "
              "confirms it", kind="suspect"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy: bf16, loss scaling, fp32 "
                 "islands", section="precision"),
         RouteTo("gradient-management", "secondary", "scaled-gradient handling (unscale before clipping)")),
        "fp16 overflows at 65504 and fp8 much sooner; a run that goes non-finite in these formats most often "
        "overflows in an activation, the softmax or the loss rather than exploding through its gradients.",
        _PREC,
        fix=FIX_HALF_OVERFLOW, unless=_NAN_PLACED,
        avoid=("lowering the LR to mask an overflow of the number format",), salience=Salience.CAUSE - 2),
    # A run whose gradient norm stayed in its usual range right up to the first NaN did not blow up through its
    # gradients: an explosion shows as a growing norm before the loss turns. The non-finite value was born in one
    # forward or loss computation (a log of 0, a division by a vanishing denominator, a sqrt at 0, an input or a
    # label that is itself NaN), so clipping, the seeds' first answer to NaN, has nothing to act on. Half precision
    # has its own suspect (DF-SUS-HALF), a hand-written loss its own (DF-SUS-LOSS).
    Row("DF-SUS-NAN-CALM",
        # (a norm said small or shrinking before the NaN is as calm as a normal one: it did not grow)
        {"loss_behavior": "nan_or_inf", "grad_norm_trend": Is("normal", "vanishing"), "nan_location": Absent()},
        (Find("Numerical", "warning", "the gradient norm stayed normal up to the non-finite loss, so the gradients "
              "did not explode: the NaN is born in one forward or loss computation (a log of 0, a division by a "
              "vanishing denominator, a sqrt at 0, or an input or label that is already NaN); where the first NaN "
              "appears confirms which", kind="suspect", explains=("unstable",)),
         RouteTo("loss-functions-and-objectives", "primary", "make the loss numerically safe: logits-based "
                 "built-ins, clamps before log, eps under sqrt and division"),
         RouteTo("gradient-management", "secondary", "anomaly detection to find the first non-finite tensor")),
        "Gradient explosion is a growth: the norm climbs over steps before the loss turns non-finite. A norm that "
        "is ordinary one step and NaN the next was produced by a single computation, most often the loss's own "
        "arithmetic or a bad value in the batch.",
        _UN, fix=FIX_LOSS_NUMERICS,
        unless=("finding:DF-SUS-LOSS", "finding:DF-SUS-HALF", *_NAN_PLACED),
        avoid=("clipping the gradients: a norm that never grew was not the problem, and a clip keeps a NaN",),
        salience=Salience.CAUSE - 2),
    # CTC sums over every alignment of the target to the output frames; where none exists (the model emits fewer
    # frames than the label needs) the loss is +inf, and its gradient NaN. Models that pool or stride along the
    # sequence axis (CRNN captcha/OCR heads, speech encoders) hit it once the input shrinks or the labels grow; a
    # lower LR or another batch size only moves the step at which an impossible sample first comes up.
    Row("DF-SUS-CTC",
        {"loss_fn": "ctc", "loss_behavior": Is("nan_or_inf", "diverging"), "nan_location": Absent()},
        (Find("Loss", "warning", "with CTC, an infinite or NaN loss most often means some output sequence is "
              "shorter than its target needs (the label's length plus a blank between repeated symbols): no "
              "alignment exists and the loss is inf; comparing input_lengths with target_lengths confirms it",
              kind="suspect"),
         RouteTo("loss-functions-and-objectives", "primary", "the CTC contract: output frames against label length"),
         RouteTo("neural-architectures", "secondary", "how much the model downsamples along the sequence axis")),
        "CTC needs T >= L + repeats for every sample (T output frames, L target symbols); a model that pools the "
        "time or width axis too much, a changed input size, or longer labels break it for some samples only, so "
        "the loss turns inf at a random step whatever the LR.",
        Cite("001", "Symptom: training unstable", "loss-functions-and-objectives: the loss's numerical contract"),
        fix=Fix("Check that every output sequence can hold its label; keep more frames (less pooling or stride along "
                "the sequence axis, a wider input) and pass the true per-sample lengths. zero_infinity=True only "
                "drops the impossible samples from the gradient.",
                "T = log_probs.size(0)   # (T, N, C) log-softmax output\n"
                "repeats = [sum(a == b for a, b in zip(t[:-1], t[1:])) for t in targets_list]\n"
                "need = torch.tensor([len(t) + r for t, r in zip(targets_list, repeats)])\n"
                "assert (input_lengths >= need).all(), (input_lengths.min(), need.max())\n"
                "loss_fn = torch.nn.CTCLoss(blank=0, zero_infinity=True)"),
        avoid=("lowering the LR or clipping harder: an impossible alignment is infinite at any step size",),
        salience=Salience.CAUSE - 2),
    # --- a detector whose loss goes non-finite: the LR for the set-up first --------------------------------------
    # Detection frameworks state their base LR for a total batch (GPUs x images per GPU); a config run on fewer
    # GPUs, a linearly scaled LR at a very large batch, or too short a warmup leaves the LR too large for the
    # set-up, and the box-regression loss is the first to blow up. Their own FAQs list, in this order: lower or
    # rescale the LR, lengthen the warmup, check for degenerate boxes, clip. Below the loss and precision leads:
    # a hand-written loss or fp16 explains a NaN more specifically than the task does.
    Row("DF-SUS-LR-DET",
        {"symptom": "unstable", "loss_behavior": Is("nan_or_inf", "diverging"), "task": "detection",
         "nan_location": Absent()},
        (Find("Instability", "warning", "in an object detector, a learning rate too large for the set-up (a base "
              "LR meant for a larger total batch or more GPUs, or too short a warmup) is the commonest confirmed "
              "cause of a loss that turns NaN or inf; degenerate boxes in the annotations come next. A run with "
              "the LR rescaled to the total batch, or a longer warmup, that stays finite confirms it",
              kind="suspect", explains=("unstable",)),
         RouteTo("learning-rate-scheduling", "primary", "rescale the base LR to the total batch (GPUs x images "
                 "per GPU) and lengthen the warmup"),
         RouteTo("gradient-management", "secondary", "clip the box-regression gradients while the LR is brought "
                 "down")),
        "A detector's box-regression loss is unbounded and grows fast under a step that is too large; the base LR "
        "in a detection config belongs to the total batch it was tuned for, so a change of GPUs or images per GPU, "
        "or a linearly scaled LR beyond what the warmup can absorb, is the usual reason it goes non-finite.",
        Cite("001", "Symptom: training unstable", "learning-rate-scheduling: LR too high causes instability"),
        unless=("finding:DF-SUS-LOSS", "finding:DF-SUS-HALF", "finding:DT-BOX-01", "finding:DF-SUS-BOX",
                *_NAN_PLACED),
        fix=Fix("Scale the base LR to your total batch (linear rule from the config's reference batch), and give a "
                "large batch a longer warmup; if it still goes non-finite, look for boxes of zero width or height.",
                "ref_lr, ref_batch = 0.02, 16                 # what the config was tuned for\n"
                "lr = ref_lr * (num_gpus * imgs_per_gpu) / ref_batch\n"
                "warmup_iters = 1000                          # longer for a larger batch\n"
                "assert ((boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])).all(), 'degenerate box'"),
        avoid=("keeping a base LR tuned for another total batch", "clipping alone while the LR stays too large"),
        salience=Salience.CAUSE - 3),
    # --- a detector whose box-regression term alone turns non-finite: the boxes before the LR ----------------------
    # An LR too large for the set-up throws the whole detector off: the classification and box terms blow up
    # together (dev threads name loss_cls NaN beside a huge loss_box_reg). A box term that turns NaN on its own,
    # after some iterations, is the signature of the box coder meeting a degenerate ground-truth box: its target
    # takes log(w_gt / w_anchor), infinite for a zero width, at the first batch that samples that image, whatever the
    # LR (torchvision's and detectron2's issue trackers give this answer to "loss_box_reg is nan" on custom data).
    Row("DF-SUS-BOX",
        {"symptom": "unstable", "loss_behavior": Is("nan_or_inf", "diverging"), "task": "detection",
         "box_loss_nonfinite": True, "boxes_invalid": Absent(), "nan_location": Absent()},
        (Find("Data", "warning", "in a detector whose box-regression term is the one that turns NaN or inf, degenerate "
              "ground-truth boxes (zero or negative width or height, or outside the image) are the likeliest cause: "
              "their regression target is a log of zero; a check of the annotations for such boxes confirms it",
              kind="suspect", explains=("unstable",)),
         RouteTo("loss-functions-and-objectives", "primary", "the box-regression targets and their encoding"),
         RouteTo("learning-rate-scheduling", "secondary", "the LR for the total batch, if every box is valid")),
        "The box coder's targets are log ratios of the ground-truth box to its anchor; one box of zero width makes "
        "that term infinite on the batch that draws it, so the box loss alone goes NaN at a random step at any LR, "
        "where an LR too large makes every term of the loss blow up.",
        Cite("001", "Symptom: training unstable", "loss-functions-and-objectives: the loss's numerical contract"),
        unless=("finding:DF-SUS-LOSS", "finding:DF-SUS-HALF", *_NAN_PLACED),
        fix=Fix("Check every annotation for boxes without positive width and height or reaching outside the image; "
                "clamp boxes to the image and drop the empty ones where the dataset builds its targets.",
                "b = target['boxes']                       # (N, 4) x1, y1, x2, y2\n"
                "bad = (b[:, 2] <= b[:, 0]) | (b[:, 3] <= b[:, 1])\n"
                "assert not bad.any(), (idx, b[bad])\n"
                "b[:, 0::2] = b[:, 0::2].clamp(0, width); b[:, 1::2] = b[:, 1::2].clamp(0, height)"),
        avoid=("lowering the LR or clipping gradients before the annotations are checked for empty boxes",),
        salience=Salience.CAUSE - 2),
    # --- an adapter or SFT fine-tune whose loss spikes or climbs back: the LR for fine-tuning first -----------------
    # A pretrained model is already near a good minimum; LoRA/QLoRA and SFT recipes quote peak LRs (1e-4 to 2e-4 for
    # small adapter ranks) that are too large for larger ranks, longer runs or smaller datasets, and the loss then
    # falls, turns and climbs or spikes, usually after an epoch or more. In the corpus's dev threads of this shape
    # (LLM/LoRA fine-tunes whose loss spikes or diverges, not NaN) the confirmed fix was a lower LR, 10x as a rule;
    # a NaN stays with the gradients first (MR-03), and a hand-written loss or half precision explains more.
    Row("DF-SUS-LR-FT",
        {"symptom": "unstable", "loss_behavior": Is("spiking", "diverging"), "boundary_topic": "llm_finetuning",
         "nan_location": Absent(), "lower_lr_stable": Absent()},
        (Find("Instability", "warning", "in an LLM or adapter (LoRA/QLoRA, SFT) fine-tune, a loss that spikes or "
              "climbs back after learning most often means a peak learning rate too large for fine-tuning this "
              "model, rank and dataset; a run with the LR lowered 3-10x that stays smooth confirms it",
              kind="suspect", explains=("unstable",)),
         RouteTo("learning-rate-scheduling", "primary", "a fine-tuning peak LR (3-10x lower) with warmup and decay"),
         RouteTo("gradient-management", "secondary", "clip while the LR is brought down")),
        "Fine-tuning starts near a minimum, so the step that trains from scratch overshoots it; adapter recipes' "
        "LRs are tuned for small ranks and short runs, and the loss turns up once the run goes past them.",
        Cite("001", "Symptom: training unstable", "learning-rate-scheduling: LR too high causes instability"),
        unless=(*_YIELDS_TO_LOSS_AND_NAN, "finding:DF-SUS-FSDP-BF16"),
        fix=FIX_LR_DOWN,
        avoid=("clipping harder or switching the optimizer while the fine-tuning LR stays too large",),
        salience=Salience.CAUSE - 3),
    # --- a transformer trained with an Adam-family optimizer and no warmup, whose loss spikes or diverges -------------
    # Adam's first steps divide by second-moment estimates built from a handful of gradients: the update is LR-sized
    # in every coordinate from step 1, and a transformer's attention logits and layer norms cannot take that before the
    # moments settle (seed 002: warmup is essential for Adam-family optimizers with transformers; skipping it gives
    # early instability from large initial updates). The configuration lint AP-02 says it of any such set-up; in a run
    # whose loss spikes or diverges it is the likeliest cause, and clipping, which bounds the gradient and not Adam's
    # step, does not replace it. A NaN keeps the gradients' order (MR-03) unless a loss or precision lead explains it.
    Row("DF-SUS-WARMUP",
        {"symptom": "unstable", "loss_behavior": Is("spiking", "diverging"), "architecture": "transformer",
         "optimizer": Is("adam", "adamw", "adamw_8bit", "paged_adamw", "lamb", "ademamix"), "warmup": False,
         "nan_location": Absent(), "lower_lr_stable": Absent()},
        (Find("Instability", "warning", "a transformer trained with an Adam-family optimizer and no LR warmup whose "
              "loss spikes or diverges: the first updates are full-size before Adam's moment estimates settle, which "
              "is the likeliest cause; a run with a warmup of 1-5% of the steps that stays stable confirms it",
              kind="suspect", explains=("unstable",)),
         RouteTo("learning-rate-scheduling", "primary", "add a warmup (1-5% of the steps), then decay"),
         RouteTo("gradient-management", "secondary", "clip while the warmup is added")),
        "Adam's step is about the LR in size from the first iteration, whatever the gradient's scale; without a warmup "
        "a transformer takes full-size steps while its moment estimates are still noise.",
        Cite("002", "anti-patterns", "skipping warmup: early instability from large initial updates"),
        unless=(*_YIELDS_TO_LOSS_AND_NAN, "finding:DF-SUS-LR-FT", "finding:DF-SUS-LR-EARLY"),
        fix=Fix("Warm the LR up linearly over the first 1-5% of steps, then decay it (cosine or linear).",
                "warmup_steps = max(1, int(0.02 * total_steps))\n"
                "warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=warmup_steps)\n"
                "decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total_steps - warmup_steps)\n"
                "sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[warmup_steps])"),
        avoid=("clipping harder instead of warming the LR up",),
        salience=Salience.CAUSE - 3),
    # --- an instability that clipping does not stop, early in the run: the peak LR and its warmup -------------------
    # Clipping caps the gradient's norm, not the step: with Adam-family optimizers the update is about LR-sized
    # whatever the gradient's scale, so a peak LR or a warmup too short for the model still throws the weights out
    # of the stable region with the clip on. It shows early, when the LR first reaches its peak (seed 002: early
    # instability from large initial updates; the pretraining threads whose maintainers lengthened the warmup and
    # lowered the LR). "It diverges although I clip", with no time said, stays with the gradients first (the clip
    # itself may be misplaced or too loose: MR-03's order).
    Row("DF-SUS-LR-EARLY",
        {"symptom": "unstable", "loss_behavior": Is("spiking", "diverging"), "grad_clipping": True,
         "unstable_early": True, "nan_location": Absent(), "lower_lr_stable": Absent()},
        (Find("Instability", "warning", "a loss that spikes or diverges early in training although the gradients "
              "are clipped most often means a peak learning rate too large, or a warmup too short, for the model: "
              "clipping bounds the gradient, not the size of the step; a run with a longer warmup or a lower peak "
              "LR that stays stable confirms it", kind="suspect", explains=("unstable",)),
         RouteTo("learning-rate-scheduling", "primary", "lengthen the warmup and lower the peak LR"),
         RouteTo("gradient-management", "secondary", "keep the clip while the LR is brought down")),
        "An adaptive optimizer's step is set by the LR, not by the gradient's norm, so clipping cannot prevent an "
        "overshoot the LR makes; early in the run the warmup decides how fast the LR reaches a size the weights "
        "cannot take yet.",
        Cite("002", "anti-patterns", "skipping warmup: early instability from large initial updates"),
        unless=_YIELDS_TO_LOSS_AND_NAN,
        fix=FIX_LR_DOWN,
        avoid=("clipping ever harder while the peak LR and the warmup stay as they are",),
        salience=Salience.CAUSE - 3),
    # --- training and validation loss jump together and recover: the step size, not an explosion ------------------
    # An occasional spike of the training loss alone is one bad batch or one large gradient, the clip's job (seed
    # 002, and RT-UNST-01 keeps it with the gradients). When the validation loss, scored on fixed data, jumps with it
    # the weights themselves were thrown off, and a run that then comes back down on its own was not broken by
    # non-finite gradients: the optimizer overshoots a sharp region at its current LR and settles again, the spikes
    # large-model training logs cure with a lower peak LR or a longer warmup. A spike at every epoch's start, or on
    # a fixed period, is the loop's or the data's (their rows explain more).
    Row("DF-SUS-LR-SPIKE",
        {"symptom": "unstable", "loss_behavior": "spiking", "spike_recovers": True, "val_spikes_with_train": True,
         "epoch_start_jump": Absent(), "loss_periodic": Absent(), "nan_location": Absent(),
         "lower_lr_stable": Absent()},
        (Find("Instability", "warning", "training and validation loss that jump up together and then come back "
              "down by themselves most often mean a learning rate too large for this model and data: the weights "
              "overshoot and the run settles again; a run with a lower peak LR (or a longer warmup) without the "
              "spikes confirms it",
              kind="suspect", explains=("unstable",)),
         RouteTo("learning-rate-scheduling", "primary", "a lower peak LR, or a longer warmup"),
         RouteTo("gradient-management", "secondary", "clip the gradient norm as a safety net")),
        "A validation loss that jumps with the training loss says the weights moved too far; a run that recovers "
        "unaided was not broken by non-finite gradients, and the overshoot comes back at the same LR, so the LR is "
        "the lever.",
        Cite("003", "Step 3: fix table", "LR too high -> decrease LR, add warmup"),
        unless=("finding:DF-SUS-LOSS", "finding:DF-SUS-HALF", "finding:DF-NAN-EVAL", "finding:DF-NAN-DEVICE",
                "finding:DF-NAN-CKPT", "finding:DF-SUS-LR-FT"),
        fix=FIX_LR_DOWN,
        avoid=("reading a spike that recovers as an explosion and only clipping harder",),
        salience=Salience.CAUSE - 3),
    # --- a segmentation loss that is NaN from the first steps: the masks' class ids --------------------------------
    # Segmentation masks carry values the loss must be told about: a 255 border or "void" label, ids numbered for
    # another class list, a class count edited in one place and not the other. Read at the first batch, an id
    # outside [0, C) without ignore_index gives a NaN (or a device-side assert), before any step could diverge.
    Row("DF-SUS-SEG-LABELS",
        {"symptom": "unstable", "loss_behavior": "nan_or_inf", "nan_onset": "immediate", "task": "segmentation",
         "nan_location": Absent()},
        (Find("Data", "warning", "a segmentation loss that is NaN from the first steps most often reads mask values "
              "outside 0..C-1: a 255 border or void label without ignore_index, or a class count that no longer "
              "matches the label ids; the unique values of a few masks confirm it", kind="suspect",
              explains=("unstable",)),
         RouteTo("loss-functions-and-objectives", "primary", "the class-index targets the loss expects and its "
                 "ignore_index"),
         RouteTo("data-augmentation-strategies", "secondary", "the label pipeline that builds the masks")),
        "Class-index losses index the logits with each target; a mask value equal to or above the class count "
        "reads past them, and the first batch already shows it. An LR or an explosion needs steps to go wrong.",
        Cite("003", "Step 2: investigation commands", "not learning: check data and labels"),
        unless=_YIELDS_TO_LOSS_AND_NAN,
        fix=Fix("Print the values the masks hold, then make the class count and ignore_index match them.",
                "vals = torch.unique(torch.cat([m.flatten() for _, m in itertools.islice(loader, 20)]))\n"
                "print(vals)                                  # e.g. tensor([0, 1, 255])\n"
                "loss_fn = torch.nn.CrossEntropyLoss(ignore_index=255)   # and num_classes = number of real ids"),
        avoid=("lowering the LR or clipping against a NaN the first batch's labels produce",),
        salience=Salience.CAUSE - 3),
    # --- a loss that collapses to exactly 0 in half precision --------------------------------------------------
    # Trainers and loggers show a step whose loss or gradients overflowed as 0 (the scaler skips it, the NaN is
    # masked or replaced); a run in fp16 whose loss was positive and then reads 0 has overflowed, not converged.
    Row("DF-ZERO-HALF",
        {"loss_collapses_zero": True, "mixed_precision": Is("fp16", "fp8")},
        (Find("Numerical", "critical", "the loss drops to exactly 0 after training starts in a half-precision run: "
              "the values overflowed the format and the non-finite steps are shown as 0 (often with a NaN "
              "grad_norm), which no model reaches by learning", explains=("unstable", "not_learning",
                                                                           "metrics_wrong")),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy: bf16, fp32 master weights, "
                 "loss scaling", section="precision"),
         RouteTo("gradient-management", "secondary", "scaled-gradient handling")),
        "A loss of exactly 0 on real data is not a minimum a model reaches in a few steps; in fp16 it is the trace "
        "of an overflow that the loss scaler skipped or the logger zeroed.",
        _PREC, fix=FIX_HALF_OVERFLOW, salience=Salience.CAUSE,
        avoid=("celebrating a zero loss, or lowering the LR, before checking the run for non-finite values",)),
    # The same zero with the format unsaid. Of the ways a positive loss turns into exactly 0 within a few steps,
    # overflowed steps shown as 0 are the common one: fine-tuning recipes and trainers run half precision by default
    # or by a flag a config leaves out, and a NaN grad_norm beside the zero is that overflow's other trace, not an
    # explosion to clip. A tentative lead whatever the user calls the trouble (a zero "that can't be right" is the
    # same trace): the format question stays open and its answer decides (fp32 or bf16 leave it; fp16 makes it
    # DF-ZERO-HALF).
    # Held to language-model and preference tuning, where half precision by default or by a left-out flag is the
    # norm: on other runs an exact zero is as often a loss computed on nothing (every target masked, an empty
    # selection), which the loop's checks find, and leading with the format there moved phrasings and held-back
    # situations labelled from the loop away from it.
    Row("DF-SUS-ZERO",
        {"loss_collapses_zero": True, "mixed_precision": Absent(),
         "task": Is("language_modeling", "preference_tuning")},
        (Find("Numerical", "warning", "a loss that was positive and reads exactly 0 after a few steps is most often "
              "overflow in half precision shown as 0 (the scaler skipped the step, or the logger zeroed a NaN; a "
              "NaN grad_norm beside it is the same overflow): which number format the run uses confirms it",
              kind="suspect", explains=("unstable", "not_learning", "convergence", "metrics_wrong")),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy: bf16 (or fp32) instead of fp16, "
                 "loss scaling", section="precision"),
         RouteTo("gradient-management", "secondary", "scaled-gradient handling")),
        "No model reaches exactly 0 on real data in a few steps; a format too narrow for the values, whose overflowed "
        "steps are skipped or logged as 0, does, and a config that leaves the precision flag out runs another format "
        "than the one the recipe was tuned in.",
        _PREC, fix=FIX_HALF_OVERFLOW, salience=Salience.CAUSE - 1,
        avoid=("celebrating a zero loss, or clipping a NaN grad_norm, before checking the run's number format",)),
    # --- a NaN the attention mask makes: softmax over a row with nothing to attend to ---------------------------
    Row("DF-NAN-MASK",
        {"attention_mask_empty": True, "loss_behavior": Is("nan_or_inf")},
        (Find("Numerical", "critical", "rows whose attention mask is zero everywhere (padding that leaves a sequence "
              "or a query with nothing to attend to) give a softmax over only -inf scores: 0/0, NaN in the "
              "outputs and then the loss", explains=("unstable", "not_learning")),
         Cross("llm-specialist", "padding side, attention masks and the model's attention implementation",
               joint=True),
         RouteTo("loss-functions-and-objectives", "secondary", "keep fully padded rows out of the loss")),
        "Masked scores are set to -inf before the softmax; a row where every score is masked normalises 0 by 0. "
        "Left padding with a causal mask, or an all-padding sequence, produces such rows; clipping and the LR do "
        "not reach a NaN made in the forward pass.",
        Cite("001", "Symptom: training unstable", "NaN: check the inputs and the forward pass first"),
        fix=Fix("Make sure every query row attends to at least one position (pad on the side the model expects, "
                "drop empty sequences), or mask the NaN rows out before they reach the loss.",
                "tokenizer.padding_side = 'right'            # training a causal LM\n"
                "assert (batch['attention_mask'].sum(-1) > 0).all(), 'an all-padding sequence'"),
        avoid=("clipping gradients or lowering the LR against a NaN the attention softmax makes",),
        salience=Salience.CAUSE),
    # --- the same recipe trains worse under FSDP than under DeepSpeed/DDP, in bf16: the master weights -------------
    # DeepSpeed (every ZeRO stage) and DDP with autocast keep an fp32 copy of the parameters and the optimizer state
    # whatever dtype the model was loaded in; FSDP flattens and shards the parameters in the dtype it is handed, so a
    # model loaded in bf16 (or a param_dtype of bf16 with no fp32 copy) runs AdamW on bf16 weights and moments. bf16
    # keeps 8 mantissa bits: an update below about 1/256 of a weight rounds away, so the run falls slowly, stalls
    # higher, or matches the other backend only at a larger LR (accelerate's FSDP-versus-DeepSpeed guide and the
    # dev threads where the reporters found the optimizer holding bf16 tensors).
    Row("DF-SUS-FSDP-BF16",
        # (the training's result, not its speed: a run complained of as slow is the slow run's, whatever the backend)
        {"fsdp_trains_worse": True, "mixed_precision": "bf16", "weights_dtype": Absent(),
         "symptom": Is("not_learning", "convergence", "unstable")},
        (Find("Precision", "warning", "the same recipe trains worse under FSDP than under a backend that keeps fp32 "
              "master weights: FSDP most likely shards the bf16 parameters themselves, so the optimizer updates "
              "bf16 weights and moments and small updates round away; the dtype of the parameters the optimizer "
              "holds confirms it", kind="suspect", explains=("not_learning", "convergence", "unstable")),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy: fp32 master weights with bf16 "
                 "compute", section="precision"),
         RouteTo("pytorch-engineering", "secondary", "FSDP's mixed-precision policy and the dtype the model is "
                 "loaded in")),
        "The two backends differ in where the master copy lives: DeepSpeed and AMP keep fp32 weights and optimizer "
        "state, FSDP keeps the dtype of the parameters it wraps. Weights in bf16 lose updates smaller than their "
        "precision, which a larger LR only partly makes up for.",
        _PREC,
        fix=Fix("Keep the sharded parameters in fp32 and compute in bf16: load the model in fp32 and give FSDP a "
                "mixed-precision policy (or let accelerate's FSDP plugin upcast), so the optimizer steps fp32 "
                "weights and moments.",
                "model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float32)\n"
                "mp = MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)\n"
                "model = FSDP(model, mixed_precision=mp, use_orig_params=True)\n"
                "assert all(s['exp_avg'].dtype == torch.float32 for s in opt.state.values())"),
        avoid=("raising the LR until FSDP matches the other backend while the weights stay in bf16",),
        salience=Salience.CAUSE - 2),
    # The same recipe training worse under FSDP, with its precision not known to be bf16: what differs between the
    # two backends is how FSDP wraps the model (its mixed-precision policy and the dtype the weights are sharded
    # in, flattened parameters that merge the optimizer's no-decay groups unless use_orig_params keeps them, a
    # plain clip_grad_norm_ on shards instead of FSDP's own), which is FSDP's configuration: PyTorch engineering's
    # distributed setup, not the hyperparameters both runs share. The bf16 form above is the sharper reading.
    Row("DF-SUS-FSDP-WORSE",
        # (the reading is about the training's result by definition, never its speed, so it needs no symptom; a run
        # complained of as slow is the slow run's, whatever the backend)
        {"fsdp_trains_worse": True, "symptom": Not("slow_training")},
        (Find("Distributed", "warning", "the same recipe trains worse under FSDP than under another backend: how "
              "FSDP wraps the model is the likeliest difference (the dtype it shards the weights in and its "
              "mixed-precision policy, parameter groups merged by flattening, gradient clipping on shards); the "
              "dtype of the parameters the optimizer holds and its parameter groups confirm which", kind="suspect",
              explains=("not_learning", "convergence", "unstable")),
         RouteTo("pytorch-engineering", "primary", "FSDP's wrapping: mixed-precision policy, use_orig_params, "
                 "FSDP's own gradient clipping"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "precision strategy: fp32 master weights with "
                 "bf16 compute", section="precision")),
        "With model, data and hyperparameters held fixed, a run that trains worse only under FSDP is explained by "
        "how FSDP wraps it, ahead of any hyperparameter both backends share.",
        Cite("000", "Cross-pack boundaries", "distributed training setup -> pytorch-engineering"),
        fix=Fix("Compare what the optimizer holds under both backends: the parameters' dtype, the number of "
                "parameter groups and which of them decay; wrap with use_orig_params=True, an explicit "
                "MixedPrecision policy over fp32 weights, and clip with FSDP's own clip_grad_norm_.",
                "print({p.dtype for g in opt.param_groups for p in g['params']}, len(opt.param_groups))\n"
                "model = FSDP(model, mixed_precision=mp, use_orig_params=True)\n"
                "model.clip_grad_norm_(1.0)   # not torch.nn.utils.clip_grad_norm_ on the shards"),
        avoid=("retuning the LR until FSDP matches the other backend before checking how FSDP wraps the model",),
        unless=("finding:DF-SUS-FSDP-BF16",), salience=Salience.CAUSE - 2),
    # --- a working reference: the same model trains elsewhere ------------------------------------------------
    Row("DF-SUS-PORT",
        {"reference_works": True},
        (Find("Training Loop", "warning", "the same model trains in another implementation: what differs between the "
              "two loops (how the optimizer is stepped, closures and defaults, the data pipeline, train/eval "
              "switching, the loss and its reduction) is the likeliest cause; diffing them confirms it",
              kind="suspect"),
         RouteTo("training-loop-architecture", "primary", "diff the failing loop against the working one")),
        "With model and data held fixed, a run that trains in one implementation and not in the other is explained "
        "by their difference, ahead of any hyperparameter both share.",
        Cite("003", "Scope boundaries", "training loop issues -> training-loop-architecture"),
        fix=Fix("Run both implementations on one fixed batch and compare loss, gradients and the parameters after "
                "one step; the first value that differs names the difference.",
                "torch.manual_seed(0); x, y = next(iter(loader))\n"
                "loss_a = step(reference_model, x, y); loss_b = step(ported_model, x, y)\n"
                "print(loss_a.item(), loss_b.item())   # then compare p.grad and p after optimizer.step()"),
        avoid=("retuning hyperparameters that the working implementation trains with unchanged",),
        # the schedule named is the more specific difference; a NaN only from another checkpoint is the weights'
        unless=("finding:DF-PORT-SCHED", "finding:DF-NAN-CKPT"),
        salience=Salience.CAUSE - 2),
    # Of the differences between two loops, a schedule sized in steps is the one a port most often gets wrong: its
    # length is recomputed in the new code (len(dataset) for len(loader), before accumulation or sharding) and the
    # framework steps it on its own clock (Lightning per epoch unless interval='step'; a scheduler stepped on every
    # process or micro-batch). The port then runs the same schedule stretched or squeezed.
    Row("DF-PORT-SCHED",
        {"reference_works": True, "lr_schedule": Is("onecycle", "cosine", "linear", "wsd")},
        (Find("Schedule", "warning", "the same model trains in the other implementation and the schedule is sized in "
              "steps: its length or stepping interval in the port (steps per epoch from the dataset instead of the "
              "loader, stepped per epoch or per micro-batch) is the likeliest difference; logging the LR each step "
              "in both confirms it", kind="suspect"),
         RouteTo("learning-rate-scheduling", "primary", "the schedule's total steps and when it is stepped"),
         RouteTo("training-loop-architecture", "secondary", "the rest of the diff between the two loops")),
        "OneCycle, cosine, linear and WSD schedules are defined over a total number of optimizer steps; a port that "
        "recomputes that total differently or steps the scheduler on another clock trains with another LR curve "
        "from the first step, with model, data and peak LR unchanged.",
        Cite("000", "Quick reference", "which LR: schedule type and length"),
        fix=Fix("Log the LR per optimizer step in both implementations and give the port the same total and interval.",
                "steps_per_epoch = math.ceil(len(train_loader) / accum_steps)   # the loader, not the dataset\n"
                "sched = OneCycleLR(opt, max_lr=lr, epochs=epochs, steps_per_epoch=steps_per_epoch)\n"
                "# Lightning: return {'optimizer': opt, 'lr_scheduler': {'scheduler': sched, 'interval': 'step'}}"),
        avoid=("retuning the peak LR while the two runs follow different LR curves",),
        salience=Salience.CAUSE - 2),
    # An overfitting run whose owner asks about augmentation (whether the reference used it, how much it matters):
    # the training data's variety is the question, and for the image, audio and small-data runs that bring it,
    # augmentation is the regularizer that closes most of the gap before weight decay or dropout are tuned.
    Row("DF-OVF-AUG",
        {"symptom": "overfitting", "question_topic": "augmentation", "regularization": Is("none", "dropout",
                                                                                          "weight_decay")},
        (Find("Overfitting", "warning", "the run overfits and the augmentation is what is in question: training "
              "without (or with weaker) augmentation than the reference is the likeliest gap; training with the "
              "reference's augmentation confirms it", kind="suspect"),
         RouteTo("data-augmentation-strategies", "primary", "the augmentation the reference results rely on"),
         RouteTo("overfitting-prevention", "secondary", "the rest of the regularization once augmentation is on")),
        "Reported numbers on small datasets (CIFAR, a few thousand images, short audio sets) usually include strong "
        "augmentation; without it the same model overfits early whatever the optimizer.",
        Cite("000", "Symptom: which X should I use? (direct questions)", "which augmentation? type and strength"),
        fix=Fix("Train with the augmentation the reference used (or a standard policy) before tuning other "
                "regularization.",
                "train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.RandAugment(2, 9),\n"
                "                      T.ToTensor(), T.Normalize(mean, std)])\n"
                "val_tf = T.Compose([T.ToTensor(), T.Normalize(mean, std)])   # same normalization, no augmentation"),
        avoid=("growing dropout and weight decay to make up for augmentation the reference used",),
        salience=Salience.CAUSE - 2),
    # --- where the first non-finite value appears, in a half-precision run --------------------------------
    Row("DF-NAN-HALF",
        {"nan_location": Is("activations", "gradients", "weights"), "mixed_precision": Is("fp16", "fp8")},
        (Find("Numerical", "critical", "the first non-finite values appear in a half-precision forward, backward or "
              "update: values leave the format's range (activations above 65504 in fp16, gradients that overflow "
              "or underflow without proper loss scaling, an optimizer eps of 1e-8 that rounds to 0 in fp16)",
              explains=("unstable", "not_learning")),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy: bf16, loss scaling, fp32 "
                 "islands", section="precision"),
         RouteTo("gradient-management", "secondary", "scaled-gradient handling (unscale before clipping)")),
        "Where the NaN starts names its cause; in fp16 or fp8 an activation, a gradient or an update that turns "
        "non-finite is first of all a number-range problem, which clipping or a lower LR does not touch.",
        _PREC, fix=FIX_HALF_OVERFLOW, salience=Salience.CAUSE,
        avoid=("clipping the gradients to hide an overflow of the number format",)),
    # --- non-finite values in evaluation only -------------------------------------------------------------
    # A training loss that stays finite rules out what training shares with evaluation (the weights, the data's
    # values, the LR): the evaluation pass itself computes differently. Trainers run it in its own precision
    # (fp16 full-eval, a model trained in bf16 or fp32 loaded in fp16 for a quick forward or a baseline), without
    # the GradScaler, over inputs training never sees (longer or fully padded sequences, another resolution), and
    # reduce it in code of its own (a metric that divides by a count that can be zero: a class absent from the
    # split, no predictions above a threshold). The number format is the commonest of these in the threads.
    Row("DF-NAN-EVAL",
        # (a training loss read as diverging is no finite training: the NaN of evaluation follows from it)
        {"nan_phase": "evaluation", "nan_location": Absent(), "loss_behavior": Not("diverging")},
        (Find("Numerical", "warning", "the non-finite values appear only in evaluation while the training loss stays "
              "finite: what training shares with evaluation (weights, LR, data values) is not the cause; the "
              "evaluation pass computes differently, most often in a narrower number format (fp16 full-eval, a model "
              "trained in bf16 or fp32 run in fp16, no loss scaling), else over inputs training never sees (longer "
              "or fully padded sequences) or in a metric that divides by a count that can be zero; where the first "
              "NaN of the evaluation pass appears confirms which", kind="suspect",
              explains=("unstable", "metrics_wrong")),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "evaluate in the precision the model trained in "
                 "(bf16 or fp32), not fp16", section="precision"),
         RouteTo("loss-functions-and-objectives", "secondary", "the evaluation loss's and metric's reductions: "
                 "fp32 sums, no division by an empty count")),
        "Evaluation shares the weights and the data with training but not the code path: precision flags that apply "
        "only to evaluation, a model loaded for inference in fp16, and metric code of its own. A model whose "
        "activations stay within bf16's range can exceed fp16's 65504 on the very same inputs.",
        # (a lead ahead of the suspects that training's NaN would support, which yield to it; where the NaN starts
        # names the cause once known: the loss's formula, an overflowing activation)
        _PREC, salience=Salience.CAUSE - 1,
        fix=Fix("Run evaluation in the precision the model trained in (bf16 or fp32; drop fp16 full-eval and the "
                "fp16 load), keep sums over a vocabulary or a dataset in fp32, and guard metric denominators.",
                "model = AutoModel.from_pretrained(name, torch_dtype='auto')   # its saved dtype, not float16\n"
                "with torch.no_grad(), torch.autocast('cuda', dtype=torch.bfloat16):\n"
                "    logits = model(x).float()                      # reduce in fp32\n"
                "    loss = F.cross_entropy(logits, y)\n"
                "iou = inter / union.clamp_min(1)                     # a class absent from the split: no 0/0"),
        avoid=("lowering the LR or clipping gradients: training is finite, evaluation is what overflows",)),
    # --- non-finite values on one device only ------------------------------------------------------------
    # The same code and data finite on the CPU or on other GPUs rule out the loss formula, the data and the LR: what
    # differs is the device's arithmetic. Mixed precision is where devices differ most (fp16 autocast kernels that
    # overflow or are unsupported on some consumer and older cards; trainers that enable AMP by default), so the
    # precision strategy leads; the card's kernel and driver support is the engineering pack's.
    Row("DF-NAN-DEVICE",
        {"device_specific": True, "loss_behavior": "nan_or_inf", "nan_location": Absent()},
        (Find("Numerical", "warning", "the NaN appears on this device only while the same code stays finite on the CPU "
              "or other GPUs: not the loss formula, the data or the LR, but the device's arithmetic, most often its "
              "half-precision (AMP/fp16) path; a run on this device with mixed precision off that stays finite "
              "confirms it", kind="suspect", explains=("unstable",)),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy on this card: fp32 (AMP off) or "
                 "bf16 where supported", section="precision"),
         Cross("pytorch-engineering", "the card's kernel, driver and autocast support", joint=True,
               target="mixed-precision-and-optimization")),
        "What a device changes is the arithmetic, not the model: autocast picks per-device kernels, and fp16 on some "
        "cards overflows or is unsupported where fp32 on the CPU and other GPUs is fine.",
        _PREC, salience=Salience.CAUSE - 1,
        fix=Fix("Turn mixed precision off on this device (or use bf16 where the card supports it) and check that the "
                "run stays finite; keep AMP where the card handles it.",
                "use_amp = torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 8  # bf16-capable\n"
                "with torch.autocast('cuda', dtype=torch.bfloat16, enabled=use_amp):\n"
                "    loss = loss_fn(model(x), y)\n"
                "# trainers: amp=False / precision='32-true' on a card whose fp16 path produces NaN"),
        avoid=("lowering the LR or clipping against a NaN that only this device produces",)),
    # --- non-finite values from one checkpoint only -------------------------------------------------------
    # The same code finite from the original (base) weights and non-finite from a fine-tuned, converted, merged or
    # derived checkpoint rules out the loop, the data and the LR, which both runs share: what differs is the weights.
    # Most often they were saved in bf16 (or trained to larger activations) and are run in fp16, whose range they
    # exceed; less often the conversion left inf/NaN or extreme values in a tensor, or the checkpoint's config
    # (vocabulary size, norm epsilon, positional scaling) does not match the code that loads it.
    Row("DF-NAN-CKPT",
        # (a learning rate or a recent change said is a lead the two runs need not share: then the checkpoint
        # lead does not stand alone and silence the LR and change rows, which name their own suspects)
        {"checkpoint_specific": True, "loss_behavior": "nan_or_inf", "nan_location": Absent(),
         "learning_rate": Absent(), "recent_change": Absent()},
        (Find("Numerical", "warning", "the loss is finite from the original weights and non-finite from this "
              "checkpoint only: not the loop, the data or the LR, but the checkpoint itself, most often run in a "
              "number format narrower than the one it was saved in (bf16 weights in fp16), else weights holding "
              "inf/NaN or extreme values, or a config that does not match it; loading it in its saved dtype and "
              "scanning its tensors confirms which", kind="suspect", explains=("unstable",)),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy for this checkpoint: its saved "
                 "dtype (bf16) or fp32, not fp16", section="precision"),
         Cross("pytorch-engineering", "how the checkpoint was converted, saved and loaded (dtype, config, state "
               "dict)", joint=True, target="checkpointing")),
        "Two runs that share code, data and LR and differ only in the starting weights are told apart by the "
        "weights: their saved dtype, their value range and the config that comes with them.",
        _PREC, salience=Salience.CAUSE - 1,
        fix=Fix("Load the checkpoint in the dtype it was saved in (bf16 or fp32, not fp16), and scan its tensors "
                "for non-finite or extreme values; compare its config with the base model's.",
                "model = AutoModelForCausalLM.from_pretrained(path, torch_dtype='auto')   # the saved dtype\n"
                "for name, t in model.state_dict().items():\n"
                "    if t.is_floating_point() and (not torch.isfinite(t).all() or t.abs().max() > 6e4):\n"
                "        print(name, t.abs().max().item())   # beyond fp16's 65504: fp16 overflows here"),
        avoid=("lowering the LR or clipping against a NaN that the base weights do not produce",)),
    DF_NAN_LOSS,
    DF_NAN_LOSS_NAMED,
    DF_SUS_NAN_GRAD,
    DF_SUS_NAN_GRAD_CALM,
    DF_NAN_HALF_W,
    # --- what changed just before the trouble -------------------------------------------------------------
    Row("DF-CHG-BATCH",
        {"symptom": RUN_TROUBLE, "recent_change": Is("batch_size", "gpu_count")},
        (Find("Configuration", "warning", "the trouble started when the global batch changed (batch size or GPU "
              "count): the LR and warmup are still the ones tuned for the old batch"),
         RouteTo("learning-rate-scheduling", "primary", "rescale the LR and the warmup for the new global batch"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "the batch-size / LR coupling")),
        "The LR that suits a batch scales with it (linearly for SGD, about with the square root for Adam); a "
        "config tuned on 8 GPUs run on 1 (or the reverse) trains at the wrong LR, and a large batch needs a "
        "longer warmup.",
        Cite("002", "Gradient accumulation", "effective batch = micro-batch x accumulation x GPUs"),
        fix=FIX_BATCH_LR, salience=Salience.CAUSE,
        avoid=("clipping harder or switching the optimizer before rescaling the LR for the new batch",)),
    Row("DF-CHG-PREC",
        {"symptom": RUN_TROUBLE, "recent_change": "precision"},
        (Find("Numerical", "warning", "the trouble started with the change of precision: values overflow or "
              "underflow in the new format (fp16, fp8), or lose the precision they need (bf16's 8-bit mantissa)"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy", section="precision"),
         RouteTo("gradient-management", "secondary", "scaled-gradient handling")),
        "A run that trained in fp32 and breaks in fp16 (or fp8) is the number format's: the range, not the "
        "optimizer, changed.",
        _PREC,
        # (not a move to bf16: that format keeps fp32's range, so no overflow is new; DF-CHG-PREC-BF16 reads its
        # stalls, and an instability after it is the gradients' first, as before any change)
        fix=FIX_HALF_OVERFLOW, salience=Salience.CAUSE, unless=("finding:DF-CHG-PREC-BF16", "flag:range_kept")),
    # A move to bf16 is a change of precision too, but not of range: bf16 keeps fp32's 8 exponent bits, so the
    # overflow DF-CHG-PREC names is unlikely. What it gives up is the mantissa (8 bits against fp32's 24): an update
    # far smaller than a weight held in bf16 rounds away, and long sums (a loss or metric accumulated over a batch,
    # a norm's statistics, attention's softmax) lose their low digits. Trouble that starts with bf16 is that lost
    # precision: the run learns more slowly, stalls higher, or turns noisy.
    Row("DF-CHG-PREC-BF16",
        # (a run that learns slower or stalls: what a lost mantissa does; a run gone unstable after the move stays
        # DF-CHG-PREC's, the format's numerics in general, and a NaN run's questions are not spent on this row)
        {"symptom": Is("not_learning", "convergence"), "recent_change": "precision", "mixed_precision": "bf16"},
        (Find("Numerical", "warning", "the trouble started with the move to bf16: bf16 keeps fp32's range, so an "
              "overflow is unlikely; it keeps only 8 bits of mantissa, so updates much smaller than a weight held in "
              "bf16 round away and long accumulations (the loss or a metric summed over a batch, norm statistics, "
              "softmax) lose precision"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy: bf16 compute over fp32 master "
                 "weights, fp32 reductions", section="precision"),
         Cross("pytorch-engineering", "which ops autocast keeps in fp32, and the dtype the optimizer really steps",
               joint=True, target="mixed-precision-and-optimization")),
        "bf16 trades fp32's precision, not its range, for speed: with autocast the weights, the optimizer state and "
        "the reductions stay in fp32 and little is lost; with the weights or the accumulators in bf16 itself, small "
        "updates and small terms vanish.",
        _PREC,
        fix=Fix("Compute in bf16 under autocast but keep the parameters, the optimizer state and the reductions "
                "(the loss, metric sums, norms) in fp32; check the dtype the optimizer steps.",
                "model = model.float()                                    # fp32 master weights\n"
                "with torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16):\n"
                "    logits = model(x)\n"
                "loss = loss_fn(logits.float(), y)                        # the reduction in fp32\n"
                "assert all(p.dtype == torch.float32 for g in opt.param_groups for p in g[\"params\"])"),
        salience=Salience.CAUSE,
        # (FSDP's bf16 shards, when known, are the more specific form of the same loss; the weights known to be
        # bf16 (PR-FP16W-01) stand beside it, the change still the format's and not fp16's overflow)
        unless=("finding:DF-SUS-FSDP-BF16",),
        avoid=("adding a GradScaler or lowering the LR against an overflow bf16 does not have",)),
    # (``recent_change=learning_rate`` is a raised LR, as the change question's choice says, or one changed without
    # saying which way, of which a raise is by far the likelier before an instability: the parser reads it from a
    # raise or an unspecified change, by its verb or by its values in time order; a lowered LR is
    # ``lower_lr_stable``'s)
    Row("DF-CHG-LR",
        {"symptom": RUN_TROUBLE, "recent_change": "learning_rate", "loss_behavior": NONFINITE},
        (Find("Instability", "warning", "the run became unstable when the learning rate was raised (or "
              "changed, the way not said): the new LR is past the stable edge"),
         RouteTo("learning-rate-scheduling", "primary", "bring the peak LR back under the stable edge, with "
                 "warmup")),
        "An instability that appears with a higher LR and not before is the LR's; clipping only hides it.",
        Cite("001", "Symptom: training unstable", "learning-rate-scheduling: LR too high causes instability"),
        fix=FIX_LR_DOWN, salience=Salience.CAUSE),
    Row("DF-CHG-RESUME",
        {"symptom": RUN_TROUBLE, "recent_change": "resume"},
        (Find("Configuration", "warning", "the trouble started on resuming from a checkpoint: the optimizer, "
              "scheduler or GradScaler state (or the step count) was not restored with the weights"),
         RouteTo("training-loop-architecture", "primary", "checkpoint every piece of training state"),
         RouteTo("learning-rate-scheduling", "secondary", "a schedule that restarts from step 0 re-warms or "
                 "jumps")),
        "Weights alone do not resume a run: fresh Adam moments, a schedule back at step 0 or a reset loss scale "
        "each make the first steps after a resume behave like a new, badly tuned run.",
        Cite("003", "Step 2: investigate", "instability: NaN after N epochs points at state that evolves (LR, scale)"),
        fix=FIX_RESUME_STATE, salience=Salience.CAUSE, unless=("finding:LP-LR-03",)),
    # A run that looks hung right after a resume: trainers that restore the data order on resume (the Hugging Face
    # Trainer unless ignore_data_skip, accelerate's skip_first_batches, Lightning's fault-tolerant loaders) first
    # iterate through every batch already seen, loading and collating each one, before the first step; on a large
    # dataset resumed late that takes hours and prints nothing. The process is working, not waiting on a peer.
    Row("DF-CHG-RESUME-SKIP",
        # (not a collective that failed or never completed, nor any hang of a multi-GPU job: ranks waiting on each
        # other are the distributed area's first, whenever it happens)
        # (and only a pause that ends: a run that then trains, said or answered; a hang that never returns, a
        # deadlock or a process idle on CPU and GPU is a wait, not a replay, which keeps the CPU busy)
        {"symptom": Is("hang", "slow_training"), "recent_change": "resume", "first_step_stall": True,
         "collective_failure": Absent(), "multi_gpu": Absent()},
        (Find("Training Loop", "warning", "the run seems to hang only when resumed from a checkpoint: before its first "
              "step the trainer walks through every batch it had already seen, to put the data order back, and on "
              "a large dataset resumed late that takes hours with no output", explains=("hang",)),
         RouteTo("training-loop-architecture", "primary", "what a resume restores and how it finds its place in the "
                 "data"),
         RouteTo("pytorch-engineering", "secondary", "a process that really waits, if no step ever starts")),
        "Restoring the exact data order means replaying the sampler up to the saved step: the batches are drawn "
        "(and often loaded and tokenized) and thrown away, so the pause grows with how far into the data the "
        "checkpoint was; nothing is deadlocked.",
        Cite("003", "Scope boundaries", "training loop issues"),
        fix=Fix("Let it finish, or skip the replay when reusing some data is acceptable (or make the skipped batches "
                "cheap to draw).",
                "# Hugging Face Trainer: start at the saved step without replaying the data order\n"
                "args = TrainingArguments(..., ignore_data_skip=True)\n"
                "trainer.train(resume_from_checkpoint=ckpt_dir)\n"
                "# accelerate: skip_first_batches(loader, n) only on the epoch you resume in, with a cheap dataset"),
        salience=Salience.CAUSE, unless=("flag:no_data_replay",),
        avoid=("killing and restarting the resumed run as if it were deadlocked: each restart replays the skip "
               "again",)),
    # A run that finished its planned epochs and is continued for more: the schedules people use are functions of
    # the fraction of the run done (cosine, linear and polynomial decay), so raising the total moves the run back to
    # an earlier, higher point of the curve and the LR jumps up at the restart. Nothing was lost from the checkpoint.
    Row("DF-CHG-EXTEND",
        # (a jump back up worsens or stalls a run that had learned: not a loss that never moved)
        {"symptom": Is("unstable", "convergence"), "recent_change": "extended"},
        (Find("Schedule", "warning", "the trouble started when a finished run was continued for more epochs or "
              "steps: a schedule defined over the run's total length (cosine, linear, polynomial decay) recomputes "
              "its position for the new total, so the learning rate jumps back up at the restart",
              explains=("unstable", "convergence")),
         RouteTo("learning-rate-scheduling", "primary", "a schedule that can be extended: the full length from the "
                 "start, or a constant / WSD tail that continues from the last LR"),
         RouteTo("training-loop-architecture", "secondary", "what a resume restores and what it recomputes")),
        "A decay schedule reaches its minimum at the end of the length it was given; asked for more epochs it is at "
        "an earlier fraction of the run, so a near-zero LR becomes a large one and the converged weights are knocked "
        "out of their minimum.",
        Cite("001", "Symptom: which X should I use? (direct questions)",
             "which LR / WSD vs cosine: will you resume training?"),
        fix=FIX_EXTEND, salience=Salience.CAUSE + 1,
        avoid=("lowering the peak LR or clipping harder as if the model had become unstable",)),
    # A run that broke when its input pipeline was replaced (a new loader, format, preprocessing or augmentation)
    # is first of all fed something else: labels unpaired from their inputs, another normalisation or dtype, an
    # order that no longer shuffles. The loop's data path is where both pipelines can be compared batch by batch.
    Row("DF-CHG-DATA",
        {"symptom": RUN_TROUBLE, "recent_change": "data_pipeline"},
        (Find("Data", "warning", "the trouble started when the input pipeline changed: the new pipeline most likely "
              "feeds something different (labels no longer paired with their inputs, another normalisation, range or "
              "dtype, an order that no longer shuffles)"),
         RouteTo("training-loop-architecture", "primary", "compare a batch of the new pipeline with one of the old, "
                 "example by example"),
         RouteTo("data-augmentation-strategies", "secondary", "the transforms and normalisation the new pipeline "
                 "applies")),
        "Same model and settings, a new way of loading the data, a new behaviour: the data the loop now receives "
        "is the variable to check first, before any hyperparameter.",
        Cite("003", _DX, "check the inputs and the labels' range where the trouble starts"),
        fix=FIX_PIPELINE_DIFF, salience=Salience.CAUSE,
        avoid=("retuning the learning rate or the optimizer for a run whose only change was its input pipeline",)),
    DF_CHG_LOOP,
    DF_CHG_LOOP_FLAT,
    # An upgrade that breaks a half-precision run most often changes what is computed in that format (a mask
    # filled with the dtype's minimum, an op no longer upcast to fp32, a new fused kernel): the NaN is an overflow
    # the new version lets happen. Precision is the fix that works at once; pinning the old version confirms it.
    Row("DF-CHG-LIB-HALF",
        {"symptom": RUN_TROUBLE, "recent_change": "library_upgrade", "mixed_precision": Is("fp16", "fp8"),
         "loss_behavior": Is("nan_or_inf", "diverging")},
        (Find("Numerical", "warning", "the half-precision run turned non-finite with a library upgrade: the new "
              "version computes something in fp16 that overflows (a mask or padding value at the dtype's minimum, "
              "an op no longer kept in fp32), so the format's range, not the optimizer, broke", explains=("unstable",
                                                                                              "not_learning")),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision strategy: bf16, or fp32 for the part "
                 "that overflows", section="precision"),
         Cross("pytorch-engineering", "the version that changed: pin the previous one to confirm, then report the "
               "regression", joint=True)),
        "Same code and data in fp16, a new library version, a NaN: the version decided which values reach the "
        "format's limit. Moving that computation to bf16 or fp32 fixes the run; the old version confirms why.",
        _PREC, fix=FIX_HALF_OVERFLOW, salience=Salience.CAUSE + 1,
        avoid=("lowering the LR or clipping harder against an overflow the new version introduced",)),
    Row("DF-CHG-LIB",
        {"symptom": RUN_TROUBLE, "recent_change": "library_upgrade"},
        (Find("Tooling", "warning", "the trouble started with a library upgrade: a changed default or a "
              "regression in the new version is the prime suspect"),
         Cross("pytorch-engineering", "version regressions and changed framework defaults are diagnosed with "
               "the framework's tools; pin the old version to confirm", joint=True)),
        "Same code and data, a new library version, a new behaviour: the version is the variable to test first.",
        Cite("000", "Cross-pack boundaries", "PyTorch errors -> pytorch-engineering"),
        fix=FIX_PIN_VERSION, salience=Salience.CAUSE, unless=("finding:DF-CHG-LIB-HALF",)),
)

# --- never give up: a tentative lead from whatever is known, once no question is left ---------------------
# A consultation that would end with nothing routed, no boundary and no healthy evidence still knows something:
# the part of the set-up the user talks about, the task, the symptom. Each of these rows turns one such fact
# into a tentative lead (info, kind "suspect") to the skill that owns it. They sit below the questions' band
# (``Salience.LAST``) and need no pending question, so they fire only when asking is over: declining the
# symptom question is not a precondition, and a question still open always comes first. The most specific
# fact leads (priority); the first lead routes, which rules the others out.
_TOPIC = Cite("000", "Symptom: which X should I use? (direct questions)",
              "each part of the set-up (optimizer, LR and schedule, loss, batch) has its skill")
_LAST_RESORT = ("route:*", "boundary:*", "question:*", "finding_kind:suspect", "finding_kind:cause",
                "flag:healthy_evidence", "origin:probe")
"""What rules a lead of last resort out: anything that routes, a question still to ask, an evidenced cause, a
lead already given, healthy evidence, and a probe run (a measured run that shows nothing gets no lead)."""


def _topic(rid: str, when: dict, skill: str, part: str, priority: int, section: str = "") -> Row:
    return Row(rid, when,
               (Find("Set-up", "info", f"nothing routes yet, and the complaint is about {part}; that is "
                     "where to look first (say what goes wrong to get a diagnosis)", kind="suspect"),
                RouteTo(skill, "primary", f"the complaint is about {part}", section=section)),
               f"A user who describes {part} and no symptom of the run is most often facing a problem with "
               f"{part}: a better first stop than none.",
               _TOPIC, unless=_LAST_RESORT, salience=Salience.LAST + priority)


TOPICS = (
    # (the run's own outcome comes before any part of its set-up: a train/validation gap that keeps widening is
    # the symptom table's "train good, val bad" caught while it starts, whatever else the user would not say)
    # (one cause with MS-GAP-02, the same widening gap measured below the severe threshold; kept as two rows
    # since a row has no source variants: that one is a cause found with no route, this one a routed lead of last
    # resort its finding rules out, and their ids, kinds and routes are what reports and golden cases show)
    Row("DF-TOPIC-GAP", {"gap_trend": "widening"},
        (Find("Overfitting", "info", "nothing routes yet, and the gap between the training and the validation "
              "metric keeps widening over the run: the model is starting to fit its training data at the expense "
              "of held-out data (say the train and validation figures, or what else goes wrong, to confirm it)",
              kind="suspect", explains=("overfitting",)),
         RouteTo("overfitting-prevention", "primary", "early stopping on the validation metric, then "
                 "regularization")),
        "A gap that grows while training goes on is memorization beginning: the best checkpoint is behind the "
        "current one, and early stopping with regularization is the first stop, before any part of the set-up.",
        Cite("003", "Step 2: investigation commands", "overfitting: calculate train/val gap"),
        unless=_LAST_RESORT, salience=Salience.LAST + 10,
        fix=Fix("Keep the checkpoint with the best validation metric and stop once it has not improved for a few "
                "evaluations; then add regularization (weight decay, dropout, augmentation).",
                "if val_metric_better(val, best):\n    best, waited = val, 0\n"
                "    torch.save(model.state_dict(), 'best.pt')\n"
                "else:\n    waited += 1  # stop after `patience` evaluations without improvement"),
        avoid=("training longer or enlarging the model while the gap grows",)),
    _topic("DF-TOPIC-SCHED", {"lr_schedule": Present()}, "learning-rate-scheduling", "the LR schedule", 9),
    _topic("DF-TOPIC-WARMUP", {"warmup": Present()}, "learning-rate-scheduling", "the LR warmup", 8),
    # (the count, not the flag a passing mention of accumulation gives: said beside precision or a loss, the
    # mention is context, and the more specific topic keeps the lead)
    _topic("DF-TOPIC-ACCUM", {"grad_accum_steps": Gt(1, source="more than one micro-batch per step")},
           "training-loop-architecture", "gradient accumulation", 7),
    _topic("DF-TOPIC-CLIP", {"grad_clipping": True}, "gradient-management", "gradient clipping", 6),
    _topic("DF-TOPIC-PREC", {"mixed_precision": Is("fp16", "bf16", "fp8")}, "batch-size-and-memory-tradeoffs",
           "reduced precision", 5, section="precision"),
    # (hardware said to lack bf16: the run's format is what to choose, though no format in use is said)
    _topic("DF-TOPIC-PREC-HW", {"bf16_supported": False}, "batch-size-and-memory-tradeoffs",
           "reduced precision on hardware without bf16", 5, section="precision"),
    _topic("DF-TOPIC-LOSS", {"loss_fn": Present()}, "loss-functions-and-objectives", "the loss function", 4),
    _topic("DF-TOPIC-OPT", {"optimizer": Present()}, "optimization-algorithms", "the optimizer", 3),
    _topic("DF-TOPIC-DIST", {"multi_gpu": True}, "pytorch-engineering", "multi-GPU training", 2),
    Row("DF-TOPIC-LLM", {"task": Is("language_modeling", "preference_tuning")},
        (Find("Set-up", "info", "nothing routes yet, and the run fine-tunes or aligns a language model: its "
              "tokenisation, label masking, chat templates and preference losses are where such runs most often "
              "go wrong", kind="suspect"),
         Cross("llm-specialist", "language-model fine-tuning and preference tuning (data formatting, masking, "
               "the method's own losses) are that pack's", joint=True)),
        "The LLM pack owns what is specific to language-model training; with nothing else to go on, that is the "
        "first stop for an LLM run.",
        Cite("001", "Cross-pack boundaries (bidirectional)", "LLM fine-tuning, RLHF/DPO -> llm-specialist"),
        unless=_LAST_RESORT, salience=Salience.LAST + 1),
)

# The lead of last resort: nothing the user said maps to a part of the set-up. The seeds' investigation starts
# with the loop itself (are gradients flowing, are parameters frozen, is the loss where chance puts it), and the
# defects that are certain rather than statistical (train/eval mode, zero_grad, optimizer.step, what the
# optimizer holds, the checkpoint and the scheduler calls) all live there: auditing the loop is the check that
# covers most causes at once, and it is offered as a tentative lead, never as a verdict.
DF_LOOP_AUDIT = Row(
    "DF-LOOP-AUDIT", {},
    (Find("Training Loop", "info", "nothing said so far points at one cause; the checks that cover most causes "
          "at once are in the training loop (mode switching, zero_grad, optimizer.step, what the optimizer "
          "holds, the scheduler and checkpoint calls): audit it first, and say what the run does to narrow it "
          "down", kind="suspect"),
     RouteTo("training-loop-architecture", "primary", "audit the loop: the seeds' first checks")),
    "When nothing known names a cause, the loop is where the most causes can be ruled out by reading code, and "
    "where the certain defects (as opposed to statistical states) live.",
    Cite("003", _DX, "check that gradients flow, that no parameters are frozen by mistake, the loss at chance"),
    fix=Fix("Run one batch through the loop and check each step: train mode during training, eval mode in "
            "validation, gradients zeroed once per optimizer step, every trainable parameter in the optimizer "
            "and changed by the step.",
            "model.train(); opt.zero_grad(set_to_none=True)\n"
            "before = {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}\n"
            "loss = loss_fn(model(x), y); loss.backward(); opt.step()\n"
            "held = {id(p) for g in opt.param_groups for p in g[\"params\"]}\n"
            "for n, p in model.named_parameters():\n"
            "    if p.requires_grad:\n"
            "        assert id(p) in held, f\"{n} is not in the optimizer\"\n"
            "        print(n, \"grad\", None if p.grad is None else p.grad.norm().item(),\n"
            "              \"moved\", (p - before[n]).abs().max().item())"),
    avoid=("changing the optimizer or the LR before the loop is known to be right",),
    unless=_LAST_RESORT, salience=Salience.LAST)
TOPICS = (*TOPICS, DF_LOOP_AUDIT)
ROWS = ROWS + TOPICS

CHANGE_CHOICES = (("learning_rate", "the learning rate was raised"),
                  ("batch_size", "the batch size changed"), ("gpu_count", "the number of GPUs changed"),
                  ("precision", "the precision changed (fp32 -> fp16/bf16/fp8)"),
                  ("resume", "resumed from a checkpoint"),
                  ("extended", "a finished run was continued for more epochs or steps"),
                  ("library_upgrade", "a library was upgraded"),
                  ("data_pipeline", "the data or its preprocessing changed"), ("model", "the model changed"),
                  ("none", "nothing changed: it was always like this"))
"""The changes a user can name (``recent_change``), shared by the questions that ask for one."""

QUESTIONS = (
    # A loss that was positive and then reads exactly 0 is an overflow shown as 0 in half precision and a real
    # data or loss fault otherwise: the format splits the two, whatever symptom the user named (often "the
    # metrics look wrong", which does not gate Q-PRECISION).
    # A hang right after a resume: a trainer replaying the data order before its first step and a process that
    # waits forever look the same at first; whether the run ever takes a step separates them.
    QuestionRow(
        "Q-RESUME-STALL", "first_step_stall",
        "After the resume, does the run eventually take its first step and then train at normal speed (a long, "
        "silent pause that ends), or does it never get past it?",
        {"symptom": "hang", "recent_change": "resume", "collective_failure": Absent(), "multi_gpu": Absent(),
         "boundary_topic": Absent()}, rank=14, unless=("flag:no_data_replay",),
        why="A trainer that restores the data order walks through every batch already seen before its first step: "
            "hours of silence that end by themselves, with the CPU busy. A wait that never ends is a real hang.",
        cite=Cite("003", "Scope boundaries", "training loop issues")),
    QuestionRow(
        "Q-PRECISION-ZERO", "mixed_precision",
        "Is the run in half precision (fp16 autocast or fp16 weights), bf16, fp8 or plain fp32?",
        {"loss_collapses_zero": True}, rank=10,
        why="A loss that drops to exactly 0 after starting positive is, in fp16, the trace of overflowed steps that "
            "the scaler skipped or the logger zeroed, not a model that learned everything.",
        cite=_PREC,
        choices=(("none", "no, full FP32"), ("fp16", "FP16 (AMP or fp16 weights)"), ("bf16", "BF16"),
                 ("fp8", "FP8"))),
    # Whether the loss, positive at first, now reads exactly 0: in a language-model fine-tune that is most often
    # half-precision overflow shown as 0 (DF-SUS-ZERO), which no other question brings out. Late: asked only when
    # its answer separates the leading causes.
    QuestionRow(
        "Q-ZERO-COLLAPSE", "loss_collapses_zero",
        "After starting positive, does the training loss drop to exactly 0 (often with a NaN grad_norm beside it)?",
        {"task": Is("language_modeling", "preference_tuning"), "loss_zero_from_start": Absent(),
         "symptom": Is("unstable", "not_learning", "convergence", "metrics_wrong")}, rank=18, late=True,
        why="No model reaches exactly 0 on real text in a few steps: a zero after a positive start is overflow in "
            "half precision that the scaler skipped or the logger zeroed.",
        cite=_PREC),
    QuestionRow(
        "Q-NAN-LOCATION", "nan_location",
        "Where does the first non-finite value (NaN/Inf) show up: in the inputs or labels, the activations, "
        "the loss, the gradients, the weights, or the optimizer state?",
        {"loss_behavior": "nan_or_inf"}, rank=12,
        why="The first place a NaN appears names its cause: a corrupt batch, an overflowing activation, the loss "
            "formula, exploding gradients and a too-high LR each have their own fix.",
        cite=Cite("003", _DX, "instability: where does the first NaN appear"),
        choices=(("inputs", "the inputs"), ("labels", "the labels / targets"),
                 ("activations", "an activation in the forward pass"), ("loss", "the loss value itself"),
                 ("gradients", "the gradients (loss still finite)"), ("weights", "the weights after a step"),
                 ("optimizer_state", "the optimizer state (e.g. Adam moments)"))),
    # Where the first NaN is a gradient of a finite loss, the gradient norm's course before it splits the two causes
    # left: an explosion is a growth the norm shows steps before (DX-NAN-05, gradient management), a norm that stayed
    # ordinary leaves one backward at a singular point (DF-SUS-NAN-GRAD-CALM, the loss). The seeds ask it of
    # convergence problems (Q-GRAD-NORMS). Asked of every NaN run, right after where the NaN appears or late, it cost
    # the corpus's honest users (who rarely know the norm's course) a question each and moved held-back runs past
    # their question budget; held to the located case, it is asked where its answer decides the lead.
    QuestionRow(
        "Q-GRAD-NORM-NAN", "grad_norm_trend",
        "Before the gradients went NaN, what did the gradient norm do: climb over several steps, spike suddenly, "
        "stay in its usual range, or shrink toward zero?",
        {"symptom": "unstable", "loss_behavior": "nan_or_inf", "nan_location": "gradients"}, rank=13,
        why="Exploding gradients grow for steps before they overflow, and clipping bounds them; a norm that stayed "
            "ordinary up to the NaN means one backward made it (a sqrt, log or division at 0), which clipping cannot "
            "remove.",
        cite=_UN,
        choices=(("exploding", "it climbed over several steps"), ("spiky", "it spiked suddenly"),
                 ("normal", "it stayed in its usual range"), ("vanishing", "it shrank toward zero"))),
    QuestionRow(
        "Q-CHANGE", "recent_change",
        "Did the problem start right after a change? If so, which one?",
        {"symptom": RUN_TROUBLE, "nan_onset": "after_steps"}, rank=14,
        why="A run that trained and then broke often broke with a change: a new batch size or GPU count "
            "needs a rescaled LR, a new precision changes the number range, a resume can drop optimizer state, "
            "an upgrade can change a default.",
        cite=_UN,
        choices=CHANGE_CHOICES),
    # The same question for a curve that went wrong after training had worked (a divergence, spikes, swings, a
    # plateau): a run that broke usually broke with a change, whatever its curve shows. Asked once the LR is known
    # (or declined, WAIVED_ON_DECLINE): the seeds start these curves with the LR, and a change is looked for after it.
    QuestionRow(
        "Q-CHANGE-CURVE", "recent_change",
        "Did this start right after a change? If so, which one?",
        {"symptom": RUN_TROUBLE, "loss_behavior": Is("diverging", "spiking", "oscillating", "plateau_after_learning"),
         "learning_rate": Present()},
        rank=14,
        why="A curve that turned bad after the run had trained often turned with a change: a new batch size or GPU "
            "count needs a rescaled LR, a raised LR passes the stable edge, a resume can drop optimizer state, an "
            "upgrade can change a default.",
        cite=_UN,
        choices=CHANGE_CHOICES),
)

