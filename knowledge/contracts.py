"""Measured causes users hit that leave gradient norms looking normal: output/target contracts, settings, schedules.

Each row is one root cause a probe measures outright (the output against the targets on a batch, the optimizer's
hyper-parameters, what clipping did at each step, the per-device batch through BatchNorm, dropout rates, the LR
actually applied, the order of the batches), with its finding, routes, fix and what to avoid. The symptom rows
that would otherwise blame the LR (``MS-UPD-0x``) yield to these where they explain the same updates.
"""

from __future__ import annotations

from knowledge.measurements import ge, le, measure_source, threshold
from knowledge.schema import Absent, Between, Cite, Find, Fix, Flag, Is, RouteTo, Row, Salience, measured_form

_EXPLAINS = ("not_learning", "convergence", "unstable", "data_problem", "metrics_wrong")
_DX = "Step 2: investigation commands"
_SGD = Is("sgd", "sgd_momentum")
_ADAM = Cite("002", "Optimizers: Adam and AdamW", "default betas (0.9, 0.999) and eps 1e-8")
# measured causes fire before the update-ratio rows (Salience.CAUSE + 1) that yield to them
_FIRST = Salience.CAUSE + 2
# gradients never zeroed: the clip probe reads the carried sum (a constant norm once the loss converges, or the clip
# cutting it every step); what clipping does then is an effect of the missing zero_grad, never its own finding
_NO_ZERO = ("finding:MS-ZERO-01", "finding:MS-ZERO-03", "finding:LP-ZERO-01")
_CONTRACT_FINDINGS = tuple(f"finding:{i}" for i in (
    "MS-RANGE-01", "MS-RANGE-02", "MS-DIM-01", "MS-TGT-01", "MS-RED-01", "MS-EPS-02", "MS-BETA-01", "MS-MOM-01",
    "MS-WD-01", "MS-WD-02", "MS-WD-03", "MS-WD-04", "MS-CLIP-01", "MS-BN-01", "MS-DROP-01", "MS-LR0-01",
    "MS-LR0-02", "MS-ORDER-01"))

# The applied LR far below the one set, for most of the run: one cause, said by the user ("the logged lr falls to
# 1e-31 and then shows 0") or measured by the LR probe; both lead to the schedule with the same fix.
LP_LR_02 = Row(
    "LP-LR-02", {"lr_observed": "near_zero"},
    (Find("Schedule", "warning", "the learning rate actually applied sits near 0 for most of the run (far below "
          "the LR the optimizer was built with): the schedule advances far faster than it was written for, decays "
          "to its floor (a plateau scheduler cutting it again and again), or a warmup runs far slower",
          explains=("not_learning", "convergence")),
     RouteTo("learning-rate-scheduling", "primary", "the LR the schedule produces at each step")),
    "A schedule defined in epochs but stepped every batch (StepLR, CosineAnnealingLR), a ReduceLROnPlateau with no "
    "min_lr that keeps cutting, or a warmup given in samples where steps were meant keeps the LR near zero; the "
    "weights then barely move whatever the gradients say.",
    Cite("003", "Step 3: route to fix", "LR schedule"), unless=("finding:MS-LR0-01", "finding:MS-LR0-02"),
    salience=_FIRST,
    fix=Fix("Print the LR the optimizer applies each step; step the scheduler in the unit its length is written in "
            "(or give its length in optimizer steps), and give a plateau scheduler a floor.",
            "print(optimizer.param_groups[0]['lr'])\n"
            "scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=5, min_lr=1e-6)\n"
            "for epoch in range(epochs):\n    for x, y in loader:\n        ...; optimizer.step()\n"
            "    scheduler.step(val_loss)   # once per epoch, on the validation metric"),
    avoid=("raising the base LR to compensate for a schedule that drives it to zero",))
MS_LR0_02 = measured_form(LP_LR_02, "MS-LR0-02", {"lr_low_fraction": ge("MT-LR-LOW-FRAC")},
                          unless=("finding:MS-LR0-01",))

# Weight decay too strong for its optimizer: one cause. Its measured form is the shrink per step (lr * wd); when
# the LR is not known (most users name only the decay) a decay far above its optimizer family's usual range is
# the same cause on its own, with the same route and fix. The optimizer unknown, the most lenient family's bound
# applies. Lion, Sophia, Muon and Shampoo are left out: their recipes use several times AdamW's decay.
MS_WD_01 = Row(
    "MS-WD-01", {"decay_per_step": ge("MT-DECAY-STEP")},
    (Find("Optimizer", "warning", "weight decay shrinks the weights by a large fraction every step (learning "
          "rate x weight decay, amplified by momentum for SGD): it erases what the gradient learns",
          explains=("not_learning", "convergence")),
     RouteTo("optimization-algorithms", "primary", "weight decay sized for this optimizer and LR")),
    "SGD's weight decay is an L2 gradient that momentum amplifies; AdamW's decay is applied at lr * wd per "
    "step. A value copied from one to the other (0.1 is an AdamW habit) can shrink the weights by percent a "
    "step.", Cite("002", "Optimizers: Adam and AdamW", "AdamW decouples weight decay from the gradient update"),
    unless=("finding:MS-WNORM-01", "finding:MS-WNORM-02"), salience=Salience.AFTER,
    fix=Fix("Set the weight decay to the usual range for the optimizer: about 1e-4 to 5e-4 for SGD with momentum; "
            "0.01-0.1 with AdamW, whose decoupled decay shrinks the weights by lr x wd each step (with plain Adam, "
            "switch to AdamW rather than raising an L2 term).",
            "optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)"),
    avoid=("raising the LR against a decay that scales with it",))
_DECOUPLED = Is("adam", "adamw", "lamb", "adamw_8bit", "paged_adamw", "ademamix", "prodigy", "schedule_free", "other")
# a decay setting alone is no evidence of a problem: the variants need a run that does not learn or converge
_NO_PROGRESS = Is("not_learning", "convergence")
_WD_UNLESS = ("finding:MS-WNORM-01", "finding:MS-WNORM-02")
_WD_CITE = Cite("002", "Optimizers: Adam and AdamW", "weight decay 0.01-0.1")
MS_WD_02 = measured_form(MS_WD_01, "MS-WD-02", {"weight_decay": ge("MT-WD-FAR-SGD"), "optimizer": _SGD,
                                                "decay_per_step": Absent(), "symptom": _NO_PROGRESS},
                         cite=_WD_CITE, unless=_WD_UNLESS)
MS_WD_03 = measured_form(MS_WD_01, "MS-WD-03", {"weight_decay": ge("MT-WD-FAR-DECOUPLED"), "optimizer": _DECOUPLED,
                                                "decay_per_step": Absent(), "symptom": _NO_PROGRESS},
                         cite=_WD_CITE, unless=_WD_UNLESS)
MS_WD_04 = measured_form(MS_WD_01, "MS-WD-04", {"weight_decay": ge("MT-WD-FAR-DECOUPLED"), "optimizer": Absent(),
                                                "decay_per_step": Absent(), "symptom": _NO_PROGRESS},
                         cite=_WD_CITE, unless=_WD_UNLESS)

ROWS = (
    # --- outputs against targets ---------------------------------------------------------------------
    Row("MS-RANGE-01", {"target_range": "outside_activation"},
        (Find("Loss", "critical", "the targets lie outside the range of the model's output activation (a sigmoid "
              "or tanh head cannot produce them): the loss has a floor it can never get under",
              explains=_EXPLAINS),
         RouteTo("loss-functions-and-objectives", "primary", "an output head whose range covers the targets")),
        "A bounded activation at the output (sigmoid in (0, 1), tanh in (-1, 1)) can only approach targets inside "
        "its range; targets outside it (regression values, images normalised to [-1, 1]) leave the outputs "
        "pinned at the bound with vanishing gradients.",
        Cite("003", _DX, "not learning: what does the loss equal exactly?"), salience=_FIRST,
        fix=Fix("Drop the bounded activation for regression (a linear head), or rescale the targets into its range "
                "(and use the matching activation: tanh for [-1, 1], sigmoid for [0, 1]).",
                "model.head = torch.nn.Linear(hidden, 1)      # no Sigmoid for unbounded targets\n"
                "# or: y = (y - y.min()) / (y.max() - y.min())  # targets in [0, 1] for a sigmoid head"),
        avoid=("raising the LR to push outputs past a bound they cannot cross",)),
    Row("MS-RANGE-02", {"target_range": "outside_loss"},
        (Find("Loss", "critical", "the targets lie outside what the loss accepts (binary cross-entropy takes "
              "targets in [0, 1]; labels such as -1/1 make it optimise a meaningless objective without an error)",
              explains=_EXPLAINS),
         RouteTo("loss-functions-and-objectives", "primary", "targets in the range the loss is defined on")),
        "BCEWithLogitsLoss computes a cross-entropy only for targets between 0 and 1; it accepts other values "
        "silently, and with -1 targets the loss can go negative and the gradient pushes the wrong way.",
        Cite("003", _DX, "not learning: what does the loss equal exactly?"), salience=_FIRST,
        fix=Fix("Map the labels into [0, 1] before the loss (for -1/1 labels: (y + 1) / 2).",
                "target = (y + 1) / 2   # {-1, 1} -> {0, 1}\n"
                "loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, target.float())"),
        avoid=("clamping a negative loss: the targets are wrong, not the loss value",)),
    Row("MS-DIM-01", {"output_norm_dim": "other"},
        (Find("Loss", "critical", "the output's softmax / log-softmax normalises over the wrong dimension (the "
              "batch or the time axis, not the classes): each example's class scores are not a distribution",
              explains=_EXPLAINS),
         RouteTo("loss-functions-and-objectives", "primary", "normalise over the class dimension the loss reads")),
        "The loss reads classes along dimension 1; a softmax over dimension 0 (the batch) or -1 of an (N, C, T) "
        "output (the time axis) couples examples or positions, and accuracy stalls while the loss still falls a "
        "little.", Cite("003", _DX, "not learning: what does the loss equal exactly?"), salience=_FIRST,
        fix=Fix("Normalise over the class dimension (dim=1), or return raw logits and let CrossEntropyLoss do it.",
                "log_probs = torch.log_softmax(logits, dim=1)   # classes are dim 1 for (N, C) and (N, C, T)"),
        avoid=("tuning the LR or the model while each example's scores do not sum to one",)),
    Row("MS-TGT-01", {"target_kind": "multi_hot", "loss_fn": "cross_entropy"},
        (Find("Loss", "warning", "multi-hot targets (several classes on at once) go into CrossEntropyLoss, which "
              "treats each row as one probability distribution over mutually exclusive classes",
              explains=_EXPLAINS),
         RouteTo("loss-functions-and-objectives", "primary", "a multi-label loss: one sigmoid per class")),
        "Cross-entropy with probability targets expects each row to sum to one; multi-label targets need an "
        "independent binary decision per class (BCEWithLogitsLoss), or the classes compete for one unit of mass.",
        Cite("000", "Symptom: which X should I use? (direct questions)", "which loss function?"), salience=_FIRST,
        fix=Fix("Use BCEWithLogitsLoss on the raw logits with the multi-hot targets as floats; threshold each "
                "class's sigmoid for predictions.",
                "loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, multi_hot.float())\n"
                "pred = torch.sigmoid(logits) > 0.5"),
        avoid=("normalising the multi-hot rows to sum to one: the classes still compete",)),
    # the targets' dtype, a set-up choice: a lint note (counts and ratings are integers too)
    Row("MS-TGT-02", {"target_kind": "integer"},
        (Find("Loss", "info", "the targets are integers (an integer dtype) given to a regression loss: right for "
              "counts or ratings, wrong for class labels, which it regresses as numbers (class 3 'closer' to 2 "
              "than to 0)", kind="lint"),
         RouteTo("loss-functions-and-objectives", "primary", "a loss that matches what the targets are")),
        "MSELoss and L1Loss take integer targets without complaint and fit the label's value; labels of classes "
        "have no order, so the model learns the wrong task. Counts and ratings are numbers, so this is a note.",
        Cite("003", _DX, "not learning: what does the loss equal exactly?"), salience=_FIRST,
        fix=Fix("For class labels, give the model one output per class and use CrossEntropyLoss with the integer "
                "labels; for real numeric targets, cast them to float to say so.",
                "model.head = torch.nn.Linear(hidden, num_classes)\nloss_fn = torch.nn.CrossEntropyLoss()  # y: "
                "int64 class indices\n# numeric targets: y = y.float()"),
        avoid=("tuning the LR of a regression fitted to class ids",)),
    Row("MS-RED-01", {"loss_reduction": "sum", "optimizer": _SGD},
        (Find("Loss", "warning", "the loss is summed over the batch, not averaged, and SGD's step scales with it: "
              "the effective LR is the set LR times the batch size (and changes whenever the batch does)",
              explains=("unstable", "not_learning", "convergence")),
         RouteTo("loss-functions-and-objectives", "primary", "a mean reduction (or an LR divided by the batch)"),
         RouteTo("learning-rate-scheduling", "secondary", "the LR that suits a per-example mean")),
        "reduction='sum' multiplies the gradient by the number of examples; adaptive optimizers divide that scale "
        "out again, SGD does not, so an LR tuned for a mean diverges or a sweep finds an LR that only suits one "
        "batch size.", Cite("002", "Gradient accumulation", "divide the accumulated gradient by the steps"),
        salience=_FIRST,
        fix=Fix("Average the loss over the batch (the default), or divide the LR by the batch size.",
                "criterion = torch.nn.CrossEntropyLoss(reduction='mean')"),
        avoid=("lowering the LR until a summed loss happens to work at this one batch size",)),
    # --- optimizer settings out of their sane range --------------------------------------------------
    Row("MS-EPS-02", {"adam_eps": ge("MT-EPS-HIGH")},
        (Find("Optimizer", "warning", "Adam's eps is so large that it, not the gradient's running RMS, divides the "
              "update: the optimizer behaves like momentum SGD at a much smaller LR",
              explains=("not_learning", "convergence")),
         RouteTo("optimization-algorithms", "primary", "Adam's hyper-parameters: eps back near 1e-8")),
        "Adam divides by sqrt(v) + eps; per-element gradient RMS is usually 1e-4..1e-2, so an eps of 1e-3 or more "
        "sets the step size itself and adaptivity is lost.", _ADAM, salience=_FIRST,
        fix=Fix("Use the default eps (1e-8; 1e-6 at most for half-precision states).",
                "optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, eps=1e-8)"),
        avoid=("raising the LR to make up for a large eps: both together are plain SGD",)),
    Row("MS-BETA-01", {"adam_betas": Is("swapped", "beta2_low")},
        (Find("Optimizer", "warning", "Adam's betas are out of their usual order or range (beta1 above beta2, or a "
              "beta2 that averages the squared gradient over a handful of steps): steps blow up whenever the "
              "second moment dips", explains=("unstable", "convergence", "not_learning")),
         RouteTo("optimization-algorithms", "primary", "betas (0.9, 0.999); beta2 0.95-0.98 for large models")),
        "beta1 sets the momentum (about 0.9) and beta2 the second-moment window (0.95-0.999); swapped, the update "
        "divides a long-memory momentum by a short-memory RMS, and a beta2 under 0.9 makes that RMS noisy.",
        _ADAM, salience=_FIRST,
        fix=Fix("Pass betas as (beta1, beta2) = (0.9, 0.999), or (0.9, 0.95) for large transformers.",
                "optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.999))"),
        avoid=("adding clipping to hide steps that the betas make unstable",)),
    Row("MS-MOM-01", {"sgd_momentum": ge("MT-MOMENTUM-HIGH")},
        (Find("Optimizer", "warning", "SGD momentum is so close to 1 that it sums hundreds of past gradients: the "
              "effective step is the LR times 1 / (1 - momentum), and the weights overshoot and keep oscillating",
              explains=("unstable", "convergence", "not_learning")),
         RouteTo("optimization-algorithms", "primary", "momentum 0.9 (Nesterov optional)")),
        "Momentum m multiplies the steady-state step by 1 / (1 - m): 10x at 0.9, 1000x at 0.999; at 1.0 the "
        "velocity never decays.", Cite("002", "Optimizers: SGD with Momentum", "momentum 0.9 is standard"),
        salience=_FIRST,
        fix=Fix("Use momentum 0.9 (0.99 only with a schedule that ramps it).",
                "optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)"),
        avoid=("lowering the LR by 100x to tame a momentum of 0.999: fix the momentum",)),
    MS_WD_01,
    MS_WD_02,
    MS_WD_03,
    MS_WD_04,
    # --- clipping -----------------------------------------------------------------------------------
    Row("MS-CLIP-01", {"grad_clip_active": "every_step", "clip_step_ratio": le("MT-UPD-WORKING"), "optimizer": _SGD},
        (Find("Gradients", "warning", "gradient clipping cuts every step's gradient to max_norm, and the step "
              "that allows (lr x max_norm) is far below a working update rate: the clip threshold, not the LR, "
              "sets the step size",
              explains=("not_learning", "convergence")),
         RouteTo("gradient-management", "primary", "a clip threshold near the typical gradient norm")),
        "clip_grad_norm_ rescales the whole gradient to max_norm whenever its norm is larger; with a threshold far "
        "below the usual norm every SGD step has length lr * max_norm, however the LR is tuned.",
        Cite("002", "Gradient Clipping", "By global norm: threshold typically 1.0"), unless=_NO_ZERO, salience=_FIRST,
        fix=Fix("Log the unclipped norm (clip_grad_norm_ returns it) and set max_norm near its typical value, so "
                "only spikes are cut.",
                "norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
                "print(float(norm))   # the pre-clip norm: clip near its usual size"),
        avoid=("raising the LR to make up for a clip that cuts every step",)),
    Row("MS-CLIP-02", {"grad_clip_active": Is("every_step", "sometimes"), "optimizer": _SGD,
                       "loss_behavior": Is("decreasing_normally", "plateau_after_learning")},
        (Find("Gradients", "info", "gradient clipping is cutting SGD's steps to lr x max_norm and the loss falls "
              "normally: a large update ratio is this recipe's (a high LR held by a tight clip), not an LR that "
              "is too high"),),
        "With norm clipping active, an SGD step is at most lr * max_norm long, so a high LR with a tight clip "
        "(PyTorch's word-language-model example: LR 20, max_norm 0.25) is stable by construction; a too-high LR "
        "shows as a loss that diverges, spikes or oscillates, and then this note does not stand.",
        Cite("002", "Gradient Clipping", "By global norm: bounds the magnitude"), unless=_NO_ZERO,
        salience=_FIRST),
    Row("MS-CLIP-03", {"grad_clip_active": "every_step", "optimizer": _SGD, "probe_scope": "one_batch",
                       "update_ratio": ge("MT-UPD-HIGH")},
        (Find("Gradients", "info", "the loop's clip cuts every examined step to lr x max_norm: a large update ratio "
              "on one batch is what the clip allows, and whether the LR is too high needs the loss over steps "
              "(run watch)"),),
        "Examined with the loop's max_norm, SGD's step has a fixed length; one batch shows no loss curve, so the "
        "high ratio alone does not say the LR is too high.",
        Cite("002", "Gradient Clipping", "By global norm: bounds the magnitude"), unless=_NO_ZERO,
        salience=_FIRST),
    # --- normalisation and regularisation -------------------------------------------------------------
    Row("MS-BN-01", {"bn_batch": le("MT-BN-BATCH")},
        (Find("Normalization", "warning", "BatchNorm trains on a handful of examples per device: its batch "
              "statistics are noise, and evaluation with running statistics behaves differently from training",
              explains=("unstable", "overfitting", "convergence", "metrics_wrong")),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "a per-device batch BatchNorm can use"),
         RouteTo("neural-architectures", "secondary", "GroupNorm / LayerNorm, which do not depend on the batch")),
        "BatchNorm normalises each channel with the batch's mean and variance; from 2-4 examples they are so noisy "
        "that the error grows sharply (Wu & He, 2018), and the running averages used at evaluation disagree.",
        Cite("Wu & He, Group Normalization (ECCV 2018)", "Figure 1", "BatchNorm error against images per GPU"),
        # on several ranks the same cause is DD-BN-01 (its fix, SyncBatchNorm, is the specific one): one finding
        unless=("finding:DD-BN-01",), salience=Salience.CAUSE,
        fix=Fix("Raise the per-device batch (accumulation does not help BatchNorm), use SyncBatchNorm across "
                "devices, or replace BatchNorm with GroupNorm.",
                "model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)   # several GPUs\n"
                "# or: torch.nn.GroupNorm(num_groups=8, num_channels=c) in place of BatchNorm2d(c)"),
        avoid=("gradient accumulation as the fix: BatchNorm still sees the small micro-batch",)),
    Row("MS-DROP-01", {"dropout_max": ge("MT-DROPOUT-HIGH")},
        (Find("Regularization", "warning", "a dropout layer drops most of its units (p at or above 0.8): usually a "
              "keep probability written as PyTorch's drop probability", explains=("not_learning", "convergence")),
         RouteTo("overfitting-prevention", "primary", "regularisation strength: dropout p 0.1-0.5")),
        "torch.nn.Dropout(p) zeroes each unit with probability p; TensorFlow 1's keep_prob meant the opposite, so "
        "a ported 0.9 drops nine units in ten and the network underfits.",
        Cite("Srivastava et al., Dropout (JMLR 2014)", "Section 6", "retention probability 0.5 hidden, 0.8 input"),
        salience=_FIRST,
        fix=Fix("Set p to the drop probability you mean (0.1-0.5 for hidden layers).", "self.drop = "
                "torch.nn.Dropout(p=0.1)   # p = probability to DROP"),
        avoid=("training longer or raising the LR while most units are dropped",)),
    # --- the LR actually applied -----------------------------------------------------------------------
    Row("MS-LR0-01", {"lr_zero_fraction": ge("MT-LR-ZERO-FRAC")},
        (Find("Schedule", "critical", "the learning rate actually applied was exactly 0 for most steps: the "
              "optimizer does not move the weights", explains=("not_learning", "convergence")),
         RouteTo("learning-rate-scheduling", "primary", "the LR the schedule produces at each step")),
        "An LR of 0 (a config default, or a warmup factor computed with integer division such as step // warmup) "
        "turns every step into a no-op; gradients look healthy and the loss stays where it started.",
        Cite("003", "Step 3: route to fix", "LR too low: increase LR"), salience=_FIRST,
        fix=Fix("Print the LR the optimizer applies each step and fix where it becomes 0 (a float warmup factor).",
                "print(optimizer.param_groups[0]['lr'])\n"
                "warmup = lambda s: min(1.0, (s + 1) / warmup_steps)   # float division, never 0"),
        avoid=("raising the base LR: zero times anything is zero",)),
    MS_LR0_02,
    LP_LR_02,
    # --- batch order ----------------------------------------------------------------------------------
    Row("MS-ORDER-01", {"label_sortedness": ge("MT-SORTED")},
        (Find("Data", "warning", "the training batches arrive sorted by label (each holds almost one class): the "
              "model chases the class of the moment and forgets the others", explains=_EXPLAINS),
         RouteTo("training-loop-architecture", "primary", "shuffle the training data every epoch")),
        "A dataset stored class by class and a DataLoader without shuffle=True give single-class batches; every "
        "step pulls the output towards one class, so the loss oscillates by epoch and accuracy stays near chance.",
        Cite("003", "Scope boundaries", "training loop issues"), salience=_FIRST,
        fix=Fix("Shuffle the training loader (or use a sampler that mixes classes).",
                "loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True)"),
        avoid=("lowering the LR to damp the swings that sorted batches cause",)),
    # a loader setting seen in the run: a lint note, whose route follows any cause or symptom of the run itself
    Row("MS-ORDER-02", {"batch_order": "same_each_epoch"},
        (Find("Data", "info", "the same training batches come back in the same order every epoch (the loader "
              "does not shuffle, or its generator is re-seeded each epoch): fine for data whose order is the "
              "recipe (truncated BPTT over a text stream, time series), otherwise each epoch repeats the last",
              kind="lint"),
         RouteTo("training-loop-architecture", "primary", "shuffle the training data every epoch")),
        "A DataLoader without shuffle=True, or torch.manual_seed / a sampler's generator seeded again at the start "
        "of every epoch, hands the model identical batches in an identical order each epoch; SGD's noise then "
        "repeats too, the loss curve repeats its epoch pattern and generalisation suffers. A language model "
        "trained with truncated backpropagation through time needs its stream in order, so this is a note, not a "
        "warning.", Cite("003", "Scope boundaries", "training loop issues"),
        # class-sorted batches are the same cause seen worse, and a DistributedSampler never given set_epoch the
        # same cause on several ranks (its fix is the specific one): one finding, theirs
        unless=("finding:MS-ORDER-01", "finding:DD-EPOCH-01"), salience=Salience.CAUSE - 1,
        fix=Fix("Shuffle every epoch, and seed the generator once (not at each epoch) so runs stay reproducible.",
                "g = torch.Generator().manual_seed(0)          # once, before the epochs\n"
                "loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True, generator=g)\n"
                "# DistributedSampler: sampler.set_epoch(epoch) at the start of each epoch"),
        avoid=("torch.manual_seed(...) inside the epoch loop: it replays the same shuffle every epoch",)),
    # --- a flat loss at chance while the weights move at a working rate ---------------------------------
    Row("MS-CHANCE-03",
        {"loss_behavior": "flat_from_start",
         "update_ratio": Between(threshold("MT-UPD-WORKING"), threshold("MT-UPD-HIGH"),
                                 source=measure_source("MT-UPD-WORKING"))},
        (Find("Data", "critical", "the loss stays flat at chance level (ln C) although the weights move at a "
              "working rate: the steps are taken, but what they fit carries no signal, so the labels may not "
              "follow the inputs (shuffled apart, misaligned, or read from the wrong column)",
              explains=("not_learning", "convergence", "data_problem")),
         RouteTo("training-loop-architecture", "primary", "check that inputs and labels stay paired")),
        "A flat loss is blamed on the LR first, but an update ratio in the working band says the LR moves the "
        "weights; if the loss still sits at ln(C), no input-label relation is being learned. Validation accuracy "
        "near chance says the same (MS-CHANCE-01) when it is logged.",
        Cite("003", _DX, "not learning: near random chance = log(num_classes)"),
        need=("flag:chance_level",),
        unless=("finding:MS-CHANCE-01", "finding:MS-CHANCE-02", "finding:MS-DEAD-01", "finding:MS-FROZEN-01",
                "finding:MS-SAT-01", "finding:MS-GRAD-02", "finding:MS-ACT-01", "finding:MS-ACT-02",
                "finding:MS-ACT-03", "finding:MS-WNORM-01", "finding:MS-WNORM-02", "finding:MS-ZERO-01",
                "finding:MS-ZERO-03", "finding:MS-ZERO-02", "finding:MS-EVAL-01", "finding:LP-STEP-01",
                *_CONTRACT_FINDINGS),
        salience=Salience.AFTER,
        fix=Fix("Verify input-label pairing (show a few samples with their labels) and overfit one small batch: "
                "a model that cannot fit 32 examples with a working LR is fed labels that do not follow the inputs.",
                "xb, yb = next(iter(loader))\nfor _ in range(200):\n    opt.zero_grad(); "
                "loss_fn(model(xb), yb).backward(); opt.step()\nprint(loss_fn(model(xb), yb).item())  # near 0?"),
        avoid=("raising the LR of a run whose updates are already at a working rate",
               "tuning hyperparameters while labels may be wrong")),
    # --- what one batch cannot show ----------------------------------------------------------------------
    Row("MS-SCOPE-01", {"probe_scope": "one_batch"},
        (Flag("one_batch_limits", "examined one batch at one moment: the outputs against the targets, the loss, "
              "gradients, a few optimizer steps and the settings were measured; gradient accumulation and where "
              "zero_grad / step sit in the loop, the LR schedule's course, the order of the batches, whether "
              "labels follow inputs across the data, and the loss and gradient history need the loop: run it "
              "under trainopt.watch for those"),),
        "A one-shot examination states what it could not see instead of guessing it: the loop's faults leave no "
        "trace in one forward and backward pass.",
        Cite("003", _DX, "instability: track gradient norms over steps"), salience=Salience.DERIVE),
)
