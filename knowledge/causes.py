"""Causes users actually hit: the training loop, data and preprocessing, half-precision weights, and more.

Also the symptoms people bring that are not a loss curve: a crash, a hang, memory growth, wrong metrics.

Each cause is one row: the observation that evidences it (answered, declared or probed), a question that can
ask for it, the finding with its severity, its routes, its fix and what to avoid. Where a probe measures the
same cause (``MS-ZERO-01``, ``MS-EVAL-01``) the declared row yields to the measured one.
"""

from __future__ import annotations

from knowledge.antipatterns import AP_03, MS_FP16_01
from knowledge.contracts import LP_LR_02, MS_LR0_02
from knowledge.measurements import ge, gt, lt
from knowledge.schema import (
    Absent,
    Block,
    Cite,
    Contains,
    Cross,
    Derive,
    Find,
    Fix,
    Flag,
    Ge,
    Gt,
    Is,
    Present,
    QuestionRow,
    RouteTo,
    Row,
    Salience,
    measured_form,
)
from knowledge.terms import REGRESSION_LOSSES

_LOOP = Cite("003", "Scope boundaries", "training loop issues -> training-loop-architecture")
_MS = "Step 2: investigation commands"
_LOOP_PROBLEMS = ("not_learning", "unstable", "convergence", "multi_task", "metrics_wrong")
_EVAL_PROBLEMS = ("overfitting", "metrics_wrong", "not_learning", "convergence")
_DATA_PROBLEMS = ("overfitting", "metrics_wrong", "data_problem", "not_learning", "convergence")

LP_OPT_02 = Row(
    "LP-OPT-02", {"optimizer_params": "missing"},
    (Find("Training Loop", "warning", "some trainable parameters are in no optimizer group (added, unfrozen or "
          "left out of the list after the optimizer was built): they get gradients but never change",
          explains=_LOOP_PROBLEMS),
     RouteTo("training-loop-architecture", "primary", "which parameters the loop trains"),
     RouteTo("optimization-algorithms", "secondary", "parameter groups and their settings")),
    "The optimizer steps only the tensors in its param_groups; a layer added later, parameters unfrozen after "
    "an optimizer built over the trainable ones, or a group never appended stay at their initial values.",
    _LOOP, unless=("finding:MS-OPT-01",), salience=Salience.CAUSE,
    fix=Fix("Build the optimizer over every trainable parameter once the model is final (or add the new group).",
            "optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-4)\n"
            "# layers unfrozen later: optimizer.add_param_group({'params': head.parameters(), 'lr': 1e-4})"),
    avoid=("raising the LR of layers the optimizer never sees",))

LP_MODE_01 = Row(
    "LP-MODE-01", {"mode_switching": "never_calls_train"},
    (Find("Training Loop", "warning", "model.train() is never called after validation: training continues "
          "in eval mode, with dropout off and normalization layers frozen",
          explains=(*_EVAL_PROBLEMS, "unstable")),  # the switch to frozen statistics shows as a loss jump
     RouteTo("training-loop-architecture", "primary", "switch model.train() / model.eval() around evaluation")),
    "eval() is sticky: after the first validation pass the model trains without its regularization and batch "
    "statistics unless train() is called again.",
    _LOOP, unless=("finding:MS-EVAL-01",), salience=Salience.CAUSE,
    fix=Fix("Call model.train() at the start of every training epoch (and model.eval() only for evaluation).",
            "for epoch in range(epochs):\n    model.train()\n    for x, y in train_loader:\n        ...\n"
            "    model.eval()\n    with torch.no_grad():\n        evaluate(model, val_loader)"),
    avoid=("removing dropout to make training and validation agree",))

LP_ZERO_01 = Row("LP-ZERO-01", {"zero_grad_call": Is("missing", "once_per_epoch", "wrong_object")},
    (Find("Training Loop", "critical", "gradients are not zeroed before every step (missing, once per epoch, "
          "or called on an object that does not hold these parameters): each step applies the sum of past "
          "gradients", explains=_LOOP_PROBLEMS),
     RouteTo("training-loop-architecture", "primary", "the step order: zero_grad, forward, backward, step"),
     RouteTo("gradient-management", "secondary", "deliberate accumulation divides the loss and zeroes after")),
    "PyTorch adds every backward into .grad; without zeroing on the optimizer (or model) that owns these "
    "parameters, the effective step grows each iteration.",
    _LOOP, unless=("finding:MS-ZERO-01", "finding:MS-ZERO-03"), salience=Salience.CAUSE,
    fix=Fix("Zero the gradients of the optimizer that steps these parameters, once per optimizer step.",
            "for x, y in loader:\n"
            "    optimizer.zero_grad(set_to_none=True)\n"
            "    loss = loss_fn(model(x), y)\n"
            "    loss.backward()\n"
            "    optimizer.step()"),
    avoid=("lowering the LR to tame steps that grow because gradients pile up",))

LP_ZERO_02 = Row("LP-ZERO-02", {"zero_grad_call": "between_backward_and_step"},
    (Find("Training Loop", "critical", "the optimizer steps with an empty gradient: zero_grad runs between "
          "backward and step (or backward does not run before it), so no step moves the weights",
          explains=_LOOP_PROBLEMS),
     RouteTo("training-loop-architecture", "primary", "the step order: zero_grad, forward, backward, step")),
    "Zeroing after backward discards the gradient just computed; the step then moves nothing (or only "
    "weight decay).",
    _LOOP, unless=("finding:MS-ZERO-02",), salience=Salience.CAUSE,
    fix=Fix("Zero before the forward pass (or right after the step), never between backward and step.",
            "optimizer.zero_grad(set_to_none=True)\nloss = loss_fn(model(x), y)\nloss.backward()\n"
            "optimizer.step()"),
    avoid=("raising the LR of a loop that throws its gradients away",))

# The same causes as a probe measures them: one entry each, the measurement as a second kind of evidence, so
# the declared and the measured form lead to the same first stop with the same fix (``measured_form``).
MS_OPT_01 = measured_form(
    LP_OPT_02, "MS-OPT-01", {"params_missing_from_optimizer": Ge(1, source="seed 003: check gradients and params")},
    cite=Cite("003", "Step 1: symptom table", "loss flat from epoch 0: frozen params"),
    unless=("finding:LP-OPT-01",))  # a replaced layer: the stale-tensor finding already names these parameters
MS_EVAL_01 = measured_form(LP_MODE_01, "MS-EVAL-01", {"model_eval_mode": True})
MS_ZERO_01 = measured_form(
    LP_ZERO_01, "MS-ZERO-01", {"grad_carryover": gt("MT-CARRYOVER")},
    cite=Cite("003", "Scope boundaries", "training loop issues: gradients carried over between steps"))
# The same missing zero_grad measured a second way: .grad never reset between steps. Clipping rescales the carried
# sum to max_norm in place, so the carry-over ratio can look normal; the clip cutting every step is its effect.
MS_ZERO_03 = measured_form(
    LP_ZERO_01, "MS-ZERO-03", {"grad_reset": "never"},
    cite=Cite("003", "Scope boundaries", "training loop issues: .grad never reset between optimizer steps"),
    unless=("finding:MS-ZERO-01",))  # measured both ways: one finding
# Gradients that are None or zero at the step are also what a cut graph and a checkpoint over grad-less inputs
# leave: where either is evidenced it names the cause, and the misplaced zero_grad is not a second finding.
MS_ZERO_02 = measured_form(
    LP_ZERO_02, "MS-ZERO-02", {"step_grads": Is("none", "zero")},
    cite=Cite("003", "Scope boundaries", "training loop issues: the optimizer steps with an empty gradient"),
    unless=("finding:LP-GRAPH-01", "finding:LP-GRAPH-02", "finding:LP-GCKPT-01"))
TWINS = ((LP_OPT_02, MS_OPT_01), (LP_MODE_01, MS_EVAL_01), (LP_ZERO_01, MS_ZERO_01), (LP_ZERO_01, MS_ZERO_03),
         (LP_ZERO_02, MS_ZERO_02), (AP_03, MS_FP16_01), (LP_LR_02, MS_LR0_02))
"""(declared, measured) forms of one cause: they must route alike (``tests/test_differential.py``)."""

ROWS = (
    # --- symptoms that are not a loss curve: where to start -------------------------------------------
    Row("SY-CRASH-01", {"symptom": "crash"},
        (RouteTo("pytorch-engineering", "primary", "a crash is read from its traceback: shapes, devices, dtypes "
                 "and API misuse are PyTorch engineering"),),
        "A run that stops with an exception is diagnosed from the message; the error-text boundaries (CUDA OOM, "
        "DDP, torch.compile) take over once it is pasted, and then this route would only restate them.",
        Cite("000", "Cross-pack boundaries", "PyTorch errors and infrastructure -> pytorch-engineering"),
        unless=("boundary:pytorch-engineering",), salience=Salience.SYMPTOM - 1),
    # A stall at every epoch start with normal steps inside the epoch: the DataLoader shuts its worker processes down
    # at the end of each pass and starts new ones (each re-running the dataset's setup and copying it) for the next.
    Row("DL-EPOCH-01", {"epoch_start_stall": True},
        (Find("Performance", "warning", "every epoch starts with a long pause: the DataLoader re-creates its worker "
              "processes (each re-importing and copying the dataset) for every pass over the data",
              explains=("slow_training",)),
         RouteTo("pytorch-engineering", "primary", "DataLoader worker lifetime and start-up cost"),
         RouteTo("training-loop-architecture", "secondary", "anything else the loop does once per epoch")),
        "Without persistent workers, iterating a DataLoader again spawns num_workers fresh processes; a dataset "
        "that loads annotations or indexes in __init__ pays that cost once per worker per epoch.",
        Cite("000", "Cross-pack boundaries", "data loading issues -> pytorch-engineering"), salience=Salience.CAUSE,
        fix=Fix("Keep the workers alive across epochs and make the dataset cheap to copy.",
                "loader = DataLoader(ds, batch_size=bs, num_workers=8, persistent_workers=True, prefetch_factor=4)\n"
                "# Hugging Face: TrainingArguments(dataloader_persistent_workers=True)\n"
                "# mmengine/mmpose config: train_dataloader = dict(persistent_workers=True, ...)"),
        avoid=("lowering num_workers to shorten the pause: every step then waits for data",)),
    Row("SY-HANG-01", {"symptom": "hang"},
        (RouteTo("pytorch-engineering", "primary", "a hang is a process waiting: DataLoader workers, a "
                 "distributed collective some rank never reaches, a deadlocked queue"),),
        "Training that stops making progress without an error waits on a worker or a collective: infrastructure.",
        Cite("000", "Cross-pack boundaries", "DDP not working / data loading -> pytorch-engineering")),
    Row("SY-MEM-01", {"symptom": "memory_growth"},
        (Find("Memory", "warning", "memory grows step after step: something keeps autograd graphs alive (a "
              "loss summed without .item(), evaluation with autograd on, tensors stored in a list)",
              kind="symptom"),
         RouteTo("training-loop-architecture", "primary", "what the loop keeps between steps"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "the memory budget once the leak is gone")),
        "Memory that climbs every step is a loop that holds references to graphs, not a batch that is too big.",
        Cite("003", "Scope boundaries", "training loop issues"),
        fix=Fix("Keep numbers, not graphs: accumulate loss.item(), evaluate under torch.no_grad(), and detach "
                "anything stored for logging.",
                "running += loss.item()  # not `running += loss`\n"
                "model.eval()\n"
                "with torch.no_grad():\n"
                "    val_loss = sum(loss_fn(model(x), y).item() for x, y in val_loader)\n"
                "model.train()"),
        avoid=("shrinking the batch to hide a leak that grows every step",)),
    Row("SY-METRIC-01", {"symptom": "metrics_wrong"},
        (Find("Measurement", "warning", "the logged metrics look wrong: before tuning anything, check how they "
              "are measured (mode, averaging, step axis, accumulation scaling)", kind="symptom",
              explains=("metrics_wrong",)),
         RouteTo("experiment-tracking", "primary", "what is logged, at which step, averaged how"),
         RouteTo("training-loop-architecture", "secondary", "evaluation mode and accumulation in the loop")),
        "Metrics that look impossible are usually measured wrongly (eval mode, a sum instead of a mean, an offset "
        "step axis), not a model problem.",
        Cite("000", "Symptom: experiment tracking", "what to log, how to compare runs"),
        fix=Fix("Log per-example means at the optimizer step, in eval mode for validation.",
                "model.eval()\n"
                "with torch.no_grad():\n"
                "    correct = sum((model(x).argmax(1) == y).sum().item() for x, y in val_loader)\n"
                "logger.log({'val_acc': correct / len(val_loader.dataset)}, step=optimizer_step)\n"
                "model.train()"),
        avoid=("tuning hyperparameters against a metric that may be measured wrongly",)),
    Row("SY-DATA-01", {"symptom": "data_problem"},
        (Find("Data", "warning", "the data or labels are suspected: check the pipeline before the model "
              "(pairing of inputs and labels, transforms, class balance, target scale)", kind="symptom",
              explains=("data_problem",)),
         RouteTo("data-augmentation-strategies", "primary", "transforms applied to inputs and targets together"),
         RouteTo("loss-functions-and-objectives", "secondary", "label format, class imbalance, target scaling")),
        "Data problems are found by looking at batches as the model sees them, not by tuning the optimizer.",
        Cite("003", _MS, "not learning: check data and labels"),
        fix=Fix("Look at a few batches exactly as the model receives them, labels beside inputs, and count the "
                "classes.",
                "x, y = next(iter(train_loader))\n"
                "print(x.shape, x.dtype, x.mean().item(), x.std().item())\n"
                "print(torch.bincount(y) if y.dtype == torch.long else (y.mean().item(), y.std().item()))"),
        avoid=("changing the model or optimizer before looking at the batches",)),
    # --- training-loop correctness -----------------------------------------------------------------------
    LP_ZERO_01,
    MS_ZERO_01,
    MS_ZERO_03,
    LP_ZERO_02,
    MS_ZERO_02,
    AP_03,
    MS_FP16_01,
    Row("LP-ZERO-03", {"zero_grad_call": "every_micro_batch",
                       "grad_accum_steps": Gt(1, source="002 · accumulation over more than one micro-batch")},
        (Find("Training Loop", "warning", "gradient accumulation zeroes the gradients every micro-batch: only the "
              "last micro-batch reaches the step, so the effective batch is one micro-batch",
              explains=_LOOP_PROBLEMS),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "gradient accumulation done right"),
         RouteTo("training-loop-architecture", "secondary", "where the loop divides, steps and zeroes")),
        "Accumulation sums micro-batch gradients between steps; zeroing inside the micro-batch loop undoes it.",
        Cite("002", "Gradient accumulation", "zero the gradients only after the optimizer step"),
        salience=Salience.CAUSE,
        fix=Fix("Divide each micro-batch loss by the accumulation steps; step and zero once every N micro-batches.",
                "for i, (x, y) in enumerate(loader):\n"
                "    (loss_fn(model(x), y) / accum_steps).backward()\n"
                "    if (i + 1) % accum_steps == 0:\n"
                "        optimizer.step()\n"
                "        optimizer.zero_grad(set_to_none=True)"),
        avoid=("raising the batch size in memory to make up for accumulation that does not accumulate",)),
    # A count of micro-batches above one is accumulation; rows and questions about how it is wired read the flag,
    # which a user who says "I accumulate gradients" without the count also gives.
    Row("DV-ACCUM-01", {"grad_accum_steps": Gt(1, source="more than one micro-batch per optimizer step")},
        (Derive("grad_accumulation", True),),
        "More than one micro-batch per optimizer step is gradient accumulation, whatever else is said.",
        Cite("002", "Gradient accumulation", "effective batch = micro-batch x accumulation steps"),
        salience=Salience.DERIVE),
    # Accumulating per-micro-batch token means: the mean of means equals the big batch's token mean only when every
    # micro-batch holds the same number of loss tokens; sequence models rarely do.
    Row("LF-ACCUM-01", {"accum_token_mean": True},
        (Find("Loss", "warning", "accumulated micro-batch losses are each a mean over their own tokens: with unequal "
              "token counts the accumulated gradient is not the large batch's (a token in a short sequence weighs "
              "more), so accumulation changes the objective, not only the memory",
              explains=("convergence", "not_learning", "metrics_wrong", "unstable")),
         RouteTo("loss-functions-and-objectives", "primary", "normalise the summed token loss by the tokens of the "
                 "whole accumulated batch"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "what gradient accumulation does and does not "
                 "reproduce")),
        "A reduction='mean' loss divides by the micro-batch's own token count; averaging those means over the "
        "accumulation steps weighs each micro-batch equally instead of each token. The large-batch gradient is the "
        "sum of token losses over the whole window divided by its total token count.",
        Cite("002", "Gradient accumulation", "divide the accumulated gradient by the steps"), salience=Salience.CAUSE,
        fix=Fix("Sum the token losses of each micro-batch and divide by the number of loss tokens in the whole "
                "accumulation window (the Hugging Face Trainer does this since 4.46 via num_items_in_batch).",
                "n_tok = sum((b['labels'] != -100).sum() for b in window)  # tokens in the accumulated batch\n"
                "for b in window:\n"
                "    logits = model(**b).logits[:, :-1]\n"
                "    loss = F.cross_entropy(logits.flatten(0, 1), b['labels'][:, 1:].flatten(), ignore_index=-100,\n"
                "                           reduction='sum') / n_tok\n"
                "    loss.backward()\noptimizer.step(); optimizer.zero_grad()"),
        avoid=("dividing the mean losses by the accumulation steps and expecting the large batch's gradient",)),
    # Framework accumulation helpers (accelerate's accumulate(), DDP's no_sync) decide at the moment the context is
    # entered whether this micro-batch syncs gradients and lets the optimizer step: they keep a counter that moves
    # once per entry. Entered once around the whole loop, the counter never moves, so every batch is handled as the
    # same micro-batch: the wrapped optimizer steps (or skips) and the gradients sync (or not) on the wrong batches.
    Row("LP-ACCUM-01", {"accum_wiring": "around_loop"},
        (Find("Training Loop", "warning", "the accumulation context (accelerator.accumulate, no_sync) is entered "
              "once around the whole loop instead of once per micro-batch: its step and sync decision never "
              "advances, so the optimizer steps and the gradients sync on the wrong micro-batches",
              explains=_LOOP_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "one accumulation context per micro-batch, inside the "
                 "loop"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "gradient accumulation done right")),
        "accumulate() and no_sync() decide on entry whether this is a step boundary; a with-block around the "
        "for-loop is entered once, so the per-batch bookkeeping the helper relies on never happens.",
        Cite("002", "Gradient accumulation", "step and sync only at the last micro-batch of each group"),
        salience=Salience.CAUSE,
        fix=Fix("Enter the accumulation context once per batch, inside the loop, around forward, backward, step "
                "and zero_grad.",
                "for batch in loader:\n"
                "    with accelerator.accumulate(model):      # one entry per micro-batch\n"
                "        loss = model(**batch).loss\n"
                "        accelerator.backward(loss)\n"
                "        optimizer.step()\n"
                "        optimizer.zero_grad()"),
        avoid=("tuning the LR of a run whose optimizer steps on the wrong micro-batches",)),
    LP_MODE_01,
    MS_EVAL_01,
    Row("LP-MODE-02", {"mode_switching": "validates_in_train_mode"},
        (Find("Training Loop", "warning", "validation runs in train mode: dropout is active and BatchNorm updates "
              "its running statistics on validation batches, so validation metrics are noisy and too low",
              explains=_EVAL_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "evaluate under model.eval() and torch.no_grad()"),
         RouteTo("experiment-tracking", "secondary", "re-measure the validation curve before acting on it")),
        "A validation pass in train mode measures a different, noisier model and changes the normalization "
        "statistics the training run uses.",
        _LOOP, salience=Salience.CAUSE,
        fix=Fix("Wrap validation in model.eval() and torch.no_grad(), then switch back.",
                "model.eval()\nwith torch.no_grad():\n    val_loss = evaluate(model, val_loader)\nmodel.train()"),
        avoid=("adding regularization against a validation gap that the measurement itself creates",)),
    Row("LP-GRAPH-01", {"graph_cut": Is("detach", "item", "numpy")},
        (Find("Training Loop", "critical", "the loss is computed from a value cut out of the autograd graph "
              "(.detach(), .item() or a numpy round-trip): no gradient reaches the parameters before the cut",
              explains=_LOOP_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "keep the loss a tensor computed from the model output"),
         RouteTo("gradient-management", "secondary", "check gradient flow layer by layer")),
        "Autograd only differentiates tensor operations it recorded; a Python float or a numpy array is a "
        "constant to it.",
        Cite("003", _MS, "not learning: check that gradients are flowing"), salience=Salience.CAUSE + 2,
        fix=Fix("Compute the loss with torch operations on the model output; use .item() only for logging.",
                "out = model(x)\nloss = loss_fn(out, y)          # a tensor with grad_fn\n"
                "loss.backward()\nlog(loss.item())                # the float is for the logger only"),
        avoid=("tuning the LR of parameters that get no gradient at all",)),
    # Reentrant checkpointing (torch.utils.checkpoint's old default, and what gradient_checkpointing_enable() used)
    # reruns a segment in backward only if one of its inputs requires grad. With the embeddings frozen (LoRA,
    # adapters, a frozen backbone) none does: the segment's parameters get no gradient, torch only warns, and the
    # run trains differently (or not at all) with checkpointing on.
    Row("LP-GCKPT-01", {"checkpoint_inputs_no_grad": True},
        (Find("Training Loop", "critical", "gradient checkpointing runs over inputs that do not require grad (frozen "
              "embeddings or backbone under LoRA or adapters): the checkpointed blocks are recomputed without "
              "autograd, so the parameters inside them receive no gradient",
              explains=(*_LOOP_PROBLEMS, "metrics_wrong")),
         Cross("pytorch-engineering", "torch.utils.checkpoint's reentrant variant and the framework switch that "
               "turns it on (use_reentrant=False, enable_input_require_grads)", joint=True)),
        "The reentrant checkpoint function records a backward only when an input requires grad; a frozen input "
        "layer leaves every checkpointed block outside the graph.",
        Cite("003", _MS, "not learning: check that gradients are flowing"), salience=Salience.CAUSE + 2,
        fix=Fix("Make the checkpointed blocks' inputs require grad, or use the non-reentrant checkpoint.",
                "model.enable_input_require_grads()          # Hugging Face / PEFT with frozen embeddings\n"
                "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={'use_reentrant': False})\n"
                "# plain PyTorch: torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)"),
        avoid=("turning checkpointing off and buying the memory elsewhere before the inputs are fixed",
               "raising the LR of blocks that get no gradient")),
    # A streamed or iterable dataset has no len(): a trainer that counts epochs (Hugging Face, Lightning's progress
    # and validation interval) or a schedule sized as epochs x len(loader) cannot know where the run ends. The fix
    # is the run's length in optimizer steps, which the LR schedule then follows.
    Row("LP-LEN-01", {"data_length_unknown": True},
        (Find("Training Loop", "warning", "the training data has no length (a streaming dataset, an IterableDataset "
              "or a generator), so the trainer cannot derive the number of steps from epochs: the run's length "
              "has to be given in optimizer steps (max_steps)", explains=("crash", "metrics_wrong")),
         RouteTo("training-loop-architecture", "primary", "the run's length in steps for data without a length"),
         RouteTo("learning-rate-scheduling", "secondary", "a schedule sized from max_steps, not epochs x len(loader)")),
        "Epoch-based settings need len(train_dataloader); an iterable or streaming dataset has none, so the total "
        "number of steps (for the loop, the progress bar and the LR schedule) must be stated explicitly.",
        _LOOP, salience=Salience.CAUSE,
        fix=Fix("Give the run's length in optimizer steps; size the schedule (and evaluation/saving intervals) in "
                "steps too.",
                "steps = tokens_or_examples_to_see // (per_device_batch * grad_accum * world_size)\n"
                "args = TrainingArguments(..., max_steps=steps, eval_strategy='steps', eval_steps=1000)\n"
                "# Lightning: Trainer(max_steps=steps, val_check_interval=1000)\n"
                "# plain PyTorch: scheduler = get_cosine_schedule_with_warmup(opt, warmup_steps, steps)"),
        avoid=("materialising a huge streamed dataset just to give it a length",)),
    # the same cause from a declared or answered error message
    Row("DV-LEN-01", {"error_text": Contains("max_steps must be", "when streaming is set to true",
                                             "does not have a length", "iterabledataset' has no len()")},
        (Derive("data_length_unknown", True),),
        "Hugging Face's and PyTorch's messages for data without a length name the cause as plainly as a description.",
        _LOOP, salience=Salience.DERIVE),
    Row("LP-GRAPH-02", {"graph_cut": "python_list"},
        (Find("Training Loop", "critical", "submodules kept in a plain Python list are not registered: their "
              "parameters are missing from model.parameters(), the optimizer and .to(device)",
              explains=_LOOP_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "register submodules so the optimizer sees them")),
        "nn.Module registers attributes that are modules or nn.ModuleList entries; a list hides them.",
        Cite("003", "Step 1: symptom table", "loss flat from epoch 0: frozen or unregistered params"),
        salience=Salience.CAUSE + 2,
        fix=Fix("Hold submodules in nn.ModuleList (or nn.ModuleDict), then rebuild the optimizer.",
                "self.blocks = torch.nn.ModuleList([Block(d) for _ in range(depth)])  # not a plain list\n"
                "optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)"),
        avoid=("raising the LR of layers the optimizer never sees",)),
    # --- data and preprocessing --------------------------------------------------------------------------
    Row("DT-PREP-01", {"preprocessing_mismatch": True},
        (Find("Data", "warning", "training and evaluation preprocess inputs differently (normalization, resize or "
              "tokenization): validation measures the model on inputs it never saw", explains=_DATA_PROBLEMS),
         RouteTo("data-augmentation-strategies", "primary", "one deterministic eval pipeline that matches the "
                 "training statistics"),
         RouteTo("training-loop-architecture", "secondary", "share the preprocessing code between the loops")),
        "Augmentation belongs to training only, but normalization and resizing must be identical in both "
        "pipelines; a mismatch looks like overfitting.",
        Cite("003", _MS, "overfitting: check the train/val split and pipeline"), salience=Salience.CAUSE,
        fix=Fix("Build both pipelines from one normalization, and keep random augmentation in training only.",
                "normalize = T.Normalize(mean=train_mean, std=train_std)\n"
                "train_tf = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), normalize])\n"
                "eval_tf = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), normalize])"),
        avoid=("adding regularization against a gap the preprocessing creates",)),
    # Random augmentation that reaches the validation data: a transform attached to the dataset before it is split
    # (random_split keeps the parent's transform), or a validation set built with the training transform. The
    # score is then taken on randomly distorted inputs, drawn anew at each evaluation: pessimistic and noisy.
    Row("DT-PREP-02", {"eval_augmented": True},
        (Find("Data", "warning", "the validation inputs go through the training's random augmentation (the "
              "transform was set before the split, or the validation set shares it): validation scores randomly "
              "distorted inputs, differently at every evaluation, so it reads low and noisy",
              explains=_DATA_PROBLEMS + ("experiment_tracking",)),
         RouteTo("data-augmentation-strategies", "primary", "random augmentation in training only, a deterministic "
                 "evaluation transform"),
         RouteTo("training-loop-architecture", "secondary", "build the validation subset from a dataset that "
                 "carries the evaluation transform")),
        "A subset made by random_split (or a Subset of indices) reads its items through the parent dataset, and so "
        "through the parent's transform: split a dataset that carries the training augmentation and the validation "
        "part is augmented too.",
        Cite("003", _MS, "overfitting: check the train/val split and pipeline"),
        # (when the complaint is that one trained model scores differently at each evaluation, the evaluation loop is
        # the first stop, as the phrasing suite routes it (e11-random-transforms-on-val): ME-DET-01 leads to the
        # evaluation path, ME-DET-03 names a random transform among what to check there)
        unless=("finding:ME-DET-01", "finding:ME-DET-03"), salience=Salience.CAUSE,
        fix=Fix("Split indices once, then build the two subsets over two datasets: one with the training "
                "augmentation, one with the deterministic evaluation transform.",
                "idx = torch.randperm(len(base), generator=torch.Generator().manual_seed(0)).tolist()\n"
                "train_ds = Subset(ImageFolder(root, transform=train_tf), idx[n_val:])\n"
                "val_ds = Subset(ImageFolder(root, transform=eval_tf), idx[:n_val])   # no random transforms"),
        avoid=("tuning regularization or the augmentation strength against a validation score taken on augmented "
               "inputs",)),
    # --- precision hygiene -------------------------------------------------------------------------------
    Row("PR-FP16W-01", {"weights_dtype": Is("fp16", "bf16")},
        (Find("Precision", "warning", "the weights themselves are stored in half precision (model.half() or "
              "model.bfloat16()): updates smaller than a weight's precision round away, so training stalls"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "mixed precision keeps an FP32 master copy",
                 section="precision"),
         Cross("pytorch-engineering", "the autocast API itself lives there; the precision strategy stays here",
               joint=True, target="mixed-precision-and-optimization")),
        "Half-precision weights have 8-11 mantissa bits: an update of 1e-4 relative to the weight is lost; AMP "
        "keeps parameters in FP32 and only computes in half precision.",
        Cite("002", "FP16 training", "master weights in FP32, loss scaling"), salience=Salience.CAUSE,
        unless=("finding:DF-NAN-HALF-W",),  # a located NaN in fp16 weights is that row's overflow, not a stall
        fix=Fix("Keep parameters in FP32 and autocast the forward pass (with a GradScaler for FP16).",
                "model = model.float()\nscaler = torch.amp.GradScaler('cuda')\n"
                "with torch.autocast('cuda', dtype=torch.float16):\n    loss = loss_fn(model(x), y)\n"
                "scaler.scale(loss).backward()\nscaler.step(optimizer)\nscaler.update()"),
        avoid=("training model.half() weights with a plain optimizer",)),
    # --- issue 7: optimizer steps and the parameters the optimizer holds ----------------------------------
    Row("LP-STEP-01", {"optimizer_step_call": "missing"},
        (Find("Training Loop", "critical", "the optimizer is never stepped: gradients are computed and thrown away, "
              "so the weights never change", explains=_LOOP_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "the step order: zero_grad, forward, backward, step")),
        "backward() only fills .grad; nothing moves until optimizer.step() (or scaler.step(optimizer)) runs.",
        _LOOP, salience=Salience.CAUSE + 2,
        fix=Fix("Step the optimizer once per training step, after backward (with AMP, through the scaler).",
                "loss.backward()\noptimizer.step()\noptimizer.zero_grad(set_to_none=True)\n"
                "scheduler.step()  # after optimizer.step(), if the schedule is per step"),
        avoid=("raising the LR of a loop that never applies it",)),
    Row("LP-STEP-02", {"optimizer_step_call": "twice"},
        (Find("Training Loop", "warning", "the optimizer is stepped twice per training step (e.g. scaler.step() "
              "followed by optimizer.step(), or a step in a callback and one in the loop): each gradient is "
              "applied twice and the effective learning rate doubles", explains=_LOOP_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "one optimizer step per training step"),
         RouteTo("learning-rate-scheduling", "secondary", "a per-step schedule advances twice as fast too")),
        "Every optimizer.step() applies the current gradient again and advances momentum and Adam's moments; a "
        "second call is a silent doubling of the step and of the schedule.",
        _LOOP, salience=Salience.CAUSE,
        fix=Fix("Keep exactly one step call per optimizer step; with AMP it is scaler.step(optimizer) alone.",
                "scaler.scale(loss).backward()\nscaler.step(optimizer)   # calls optimizer.step() itself\n"
                "scaler.update()\noptimizer.zero_grad(set_to_none=True)"),
        avoid=("halving the LR to compensate for a duplicated step",)),
    Row("LP-STEP-03", {"optimizer_step_call": "outside_scaler"},
        (Find("Training Loop", "critical", "optimizer.step() is called directly while a GradScaler scales the loss: "
              "the scaled gradients are applied without unscaling, and steps with inf/NaN gradients are not "
              "skipped", explains=_LOOP_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "the AMP step: scale, backward, scaler.step, update"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "mixed precision done right", section="precision"),
         Cross("pytorch-engineering", "the GradScaler API itself lives there; the step logic stays here", joint=True,
               target="mixed-precision-and-optimization")),
        "GradScaler multiplies the loss by up to 65536; only scaler.step() unscales the gradients first and skips "
        "a step whose gradients overflowed. Calling optimizer.step() yourself bypasses both.",
        Cite("002", "FP16 training", "dynamic loss scaling skips overflowed steps"), salience=Salience.CAUSE + 2,
        fix=Fix("Step through the scaler; unscale explicitly only to clip, once per optimizer step.",
                "scaler.scale(loss).backward()\nscaler.unscale_(optimizer)          # only if you clip\n"
                "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\nscaler.step(optimizer)\nscaler.update()"),
        avoid=("calling optimizer.step() next to scaler.step(optimizer)",)),
    # In a multi-GPU run the usual way an optimizer ends up holding tensors the model no longer trains is the
    # sharding wrapper: FSDP flattens parameters (use_orig_params=False) and DeepSpeed or accelerate's prepare()
    # replace them, so an optimizer built before (or over the originals) steps nothing the wrapped model uses. DDP
    # keeps the same Parameter objects and is not this. The order and flags are the framework's API.
    Row("LP-OPT-04", {"optimizer_params": "stale", "multi_gpu": True},
        (Find("Training Loop", "critical", "in a multi-GPU run the optimizer holds parameters the sharding wrapper "
              "replaced (FSDP's flattened parameters with use_orig_params=False, DeepSpeed or accelerate preparing "
              "the model after the optimizer was built): its steps never reach the wrapped model",
              explains=_LOOP_PROBLEMS),
         Cross("pytorch-engineering", "the wrapper's API: wrap or prepare first, then build the optimizer over the "
               "wrapped model's parameters (FSDP use_orig_params=True)", joint=True)),
        "FSDP and DeepSpeed replace the Parameter objects they shard; an optimizer holding the originals updates "
        "tensors that no forward pass reads any more.",
        Cite("000", "Cross-pack boundaries", "DDP / FSDP not working -> pytorch-engineering"),
        salience=Salience.CAUSE + 3,
        fix=Fix("Wrap (or prepare) the model first and build the optimizer over the wrapped parameters; with FSDP "
                "keep the original parameters visible.",
                "model = FSDP(model, use_orig_params=True)              # wrap first\n"
                "optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)\n"
                "# accelerate: model, optimizer = accelerator.prepare(model, optimizer)  (fsdp_use_orig_params: true)"),
        avoid=("tuning the LR of a model whose optimizer steps other tensors",)),
    Row("LP-OPT-01", {"optimizer_params": "stale"},
        (Find("Training Loop", "critical", "the optimizer holds tensors the model no longer uses (the model or a "
              "layer was re-created, replaced or wrapped after the optimizer was built): the trained layers are "
              "never updated", explains=_LOOP_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "build the optimizer after the model is final")),
        "An optimizer keeps references to the Parameter objects it was given. Replacing a head, re-instantiating "
        "the model, loading with assign=True or wrapping it in FSDP after that leaves the optimizer stepping the "
        "old tensors. (.to(device), .cuda() and .half() convert parameters in place and are not this fault.)",
        _LOOP, salience=Salience.CAUSE + 2, unless=("finding:LP-OPT-04",),
        fix=Fix("Finish building the model (new head, wrappers, loaded weights), then create the optimizer.",
                "model.fc = torch.nn.Linear(model.fc.in_features, num_classes)  # first change the model\n"
                "model = model.to(device)\n"
                "optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)    # then build the optimizer"),
        avoid=("tuning the LR of layers the optimizer does not hold",)),
    LP_OPT_02,
    MS_OPT_01,
    Row("LP-OPT-03", {"optimizer_params": "frozen_held"},
        (Find("Training Loop", "info", "the optimizer holds parameters that are frozen (requires_grad=False): "
              "harmless while their gradient stays None, but a zeroed (not None) gradient lets momentum and weight "
              "decay keep moving them", kind="note"),),
        "Optimizers skip parameters whose .grad is None; zero_grad(set_to_none=False) leaves zero tensors, and "
        "AdamW then still decays the weights and applies its stored momentum to 'frozen' layers.",
        _LOOP, salience=Salience.CAUSE,
        fix=Fix("Give the optimizer only the parameters that train, or zero with set_to_none=True.",
                "optimizer = torch.optim.AdamW((p for p in model.parameters() if p.requires_grad), lr=3e-4)"),
        avoid=("assuming requires_grad=False alone stops an optimizer that still holds the parameter",)),
    # --- issue 7: memory kept between steps, and loss jumps at epoch boundaries ----------------------------
    Row("LP-MEM-01", {"kept_graphs": Is("running_loss_tensor", "stored_outputs", "eval_with_grad")},
        (Find("Memory", "warning", "the loop keeps autograd graphs alive between steps (a loss summed as a tensor, "
              "outputs stored with their graph, or evaluation with autograd on): memory grows every step",
              explains=("memory_growth", "crash", "slow_training")),
         RouteTo("training-loop-architecture", "primary", "what the loop keeps between steps"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "the memory budget once the leak is gone")),
        "A tensor that still requires grad holds its whole graph, activations included; summing the loss or "
        "appending outputs keeps every step's graph until the end of the epoch.",
        _LOOP, salience=Salience.CAUSE,
        fix=Fix("Keep numbers for logging, detach what you store, and evaluate under torch.no_grad().",
                "running += loss.item()\npreds.append(out.detach().cpu())\n"
                "with torch.no_grad():\n    val_out = model(x_val)"),
        avoid=("shrinking the batch to hide a leak that grows every step",)),
    # The same boundary, the other direction: a staircase down is the model recognising last epoch's examples.
    Row("DT-EPOCH-01", {"epoch_start_drop": True},
        (Find("Generalization", "warning", "the training loss steps down at the start of every epoch: the model "
              "recognises the examples it saw one epoch ago, i.e. it is memorising the training set (a large "
              "model on a small dataset, several epochs); the drop is not a loop bug and not real progress",
              explains=("overfitting", "metrics_wrong", "unstable", "convergence")),
         RouteTo("overfitting-prevention", "primary", "fewer epochs, early stopping on validation, regularisation "
                 "or more data"),
         RouteTo("experiment-tracking", "secondary", "judge the run by the validation loss per epoch, not the "
                 "training staircase")),
        "Within an epoch every batch is new to the model; at the next epoch the same examples return and a model "
        "with the capacity to memorise them scores them better than anything it has not seen: the loss falls at "
        "the boundary and stays flat in between. It is the train/validation gap showing up inside the training "
        "curve.",
        Cite("000", "Symptom: overfitting", "train/val gap, memorizing training data"), salience=Salience.CAUSE,
        fix=Fix("Compare with the validation loss per epoch and stop (or regularise) where it turns up; for "
                "fine-tuning, one to three epochs is usually enough.",
                "best, bad, patience = float('inf'), 0, 2\n"
                "for epoch in range(max_epochs):\n"
                "    train_one_epoch(model, loader, opt)\n"
                "    val = evaluate(model, val_loader)\n"
                "    if val < best - 1e-4:\n"
                "        best, bad = val, 0\n"
                "        torch.save(model.state_dict(), 'best.pt')\n"
                "    else:\n"
                "        bad += 1\n"
                "        if bad >= patience:\n"
                "            break"),
        avoid=("hunting a data-loader or optimizer bug for a staircase that memorisation explains",
               "training more epochs because the training loss keeps stepping down")),
    # A curve that repeats itself on a fixed period is driven by something periodic in the loop: the order of the
    # batches (the same sequence every epoch, batches grouped by length or source, class-sorted data), or a schedule
    # with restarts; gradient spikes from the optimizer come at random steps. The named forms (jumps at epoch
    # starts, a measured batch order) are the more specific entries and stand instead.
    Row("LP-PERIOD-01", {"loss_periodic": True},
        (Find("Training Loop", "warning", "the loss repeats one pattern with a fixed period: the order in which the "
              "loop feeds the data (the same batch sequence every epoch, batches grouped by length, source or "
              "class) or a schedule that restarts drives it, not the optimizer's noise",
              explains=("unstable", "convergence")),
         RouteTo("training-loop-architecture", "primary", "how batches are ordered and grouped between epochs"),
         RouteTo("learning-rate-scheduling", "secondary", "a schedule with warm restarts repeats too")),
        "Randomly shuffled batches give spikes at random steps; a period in the curve means the inputs (or the LR) "
        "repeat with that period: length-grouped or bucketed batches alternate easy and hard stretches, an "
        "unshuffled loader replays the same sequence, a cyclic schedule rises again.",
        _LOOP, unless=("finding:LP-EPOCH-01", "finding:MS-ORDER-01", "finding:MS-ORDER-02", "finding:DD-EPOCH-01",
                       "finding:LP-MODE-01", "finding:MS-EVAL-01"), salience=Salience.CAUSE - 1,
        fix=Fix("Find what repeats with the period: shuffle every epoch, mix lengths or sources within a batch "
                "(turn off length grouping to test), and plot the LR next to the loss.",
                "loader = DataLoader(train_set, batch_size=64, shuffle=True)   # a fresh order each epoch\n"
                "# HF Trainer: TrainingArguments(group_by_length=False) to test whether the period goes away\n"
                "print(step, optimizer.param_groups[0]['lr'])"),
        avoid=("clipping harder or lowering the LR to flatten a pattern the data order makes",)),
    Row("LP-EPOCH-01", {"epoch_start_jump": True},
        (Find("Training Loop", "warning", "the loss jumps at the start of every epoch: something the loop does "
              "between epochs (a re-created optimizer or scheduler, a model left in eval mode by validation, data "
              "not reshuffled) disturbs training", explains=("unstable", "convergence", "not_learning")),
         RouteTo("training-loop-architecture", "primary", "what changes in the loop between epochs")),
        "A jump aligned with epoch boundaries is periodic, unlike gradient spikes: re-creating the optimizer "
        "resets Adam's moments (a fresh, un-warmed step), a restarting schedule raises the LR, and eval mode left "
        "on after validation changes dropout and normalization.",
        # a named cause of the jump (train() never called again, a measured eval-mode forward) explains it; those
        # rows fire first (MS-EVAL-01 sits in the symptom band), so this one waits for them
        _LOOP, unless=("finding:LP-MODE-01", "finding:MS-EVAL-01"), salience=Salience.SYMPTOM - 1,
        fix=Fix("Build the optimizer and scheduler once, outside the epoch loop; switch back to train() after "
                "validation; shuffle every epoch.",
                "optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)   # once\n"
                "loader = DataLoader(train_set, batch_size=64, shuffle=True)\n"
                "for epoch in range(epochs):\n    model.train()\n    train_one_epoch(model, loader, optimizer)\n"
                "    model.eval()\n    with torch.no_grad():\n        validate(model)"),
        avoid=("adding gradient clipping against a jump the loop itself causes",)),
    # --- issue 7: labels and targets -----------------------------------------------------------------------
    Row("DT-LABEL-01", {"label_check": "not_zero_based"},
        (Find("Data", "critical", "class ids do not run 0..C-1 (1-based, with gaps, or a class stored as 255, the "
              "usual ignore_index): the loss reads an id out of range (a device-side assert on GPU) or silently "
              "ignores a class",
              explains=(*_DATA_PROBLEMS, "unstable", "crash")),
         RouteTo("loss-functions-and-objectives", "primary", "what class-index targets the loss expects"),
         RouteTo("data-augmentation-strategies", "secondary", "the label pipeline")),
        "Class-index losses take targets in [0, C) (or ignore_index); a label equal to C indexes past the logits, "
        "and remapped ids with gaps waste outputs on classes that never occur.",
        Cite("003", _MS, "not learning: check data and labels"), salience=Salience.CAUSE + 1,
        fix=Fix("Map the label set onto 0..C-1 once, and check the range before training.",
                "classes = sorted(set(labels))\nindex = {c: i for i, c in enumerate(classes)}\n"
                "y = torch.tensor([index[c] for c in labels])\nassert 0 <= y.min() and y.max() < num_classes\n"
                "mask = (mask > 127).long()  # a 0/255 binary mask becomes classes 0/1"),
        avoid=("raising num_classes to silence the out-of-range error",)),
    # In a language-model fine-tune the usual way labels come apart from their tokens is padding: the tokenizer pads
    # input_ids on one side (Llama-family tokenizers on the left) while the collator builds the label or loss mask
    # for the other, or masks the prompt before truncation. Padding sides, chat templates and label masks are the
    # LLM pack's; the generic "shuffled apart" reading does not apply.
    Row("DT-LABEL-03", {"label_check": "misaligned", "task": Is("language_modeling", "preference_tuning")},
        (Find("Data", "critical", "the label (loss) mask of a language-model fine-tune is out of line with the padded "
              "tokens: input_ids padded on one side and the labels or their mask built for the other (left-padding "
              "tokenizers), or a prompt mask computed before truncation, so the loss scores the wrong positions",
              explains=(*_DATA_PROBLEMS, "unstable")),
         Cross("llm-specialist", "padding side, the collator's label mask and chat templates for fine-tuning",
               joint=True)),
        "Positions in the labels must be the positions in input_ids; padding the two on different sides shifts every "
        "label of a short sequence by its padding length.",
        Cite("001", "Cross-pack boundaries (bidirectional)", "LLM fine-tuning, RLHF/DPO -> llm-specialist"),
        salience=Salience.CAUSE + 2,
        fix=Fix("Pad inputs and labels on the same side (right for training), and check a decoded batch.",
                "tokenizer.padding_side = 'right'\n"
                "batch = collator(examples)\n"
                "keep = batch['labels'][0] != -100\n"
                "print(tokenizer.decode(batch['input_ids'][0][keep]))   # must read as the answer tokens"),
        avoid=("changing the model or the LR before the loss reads the right tokens",)),
    Row("DT-LABEL-02", {"label_check": "misaligned"},
        (Find("Data", "critical", "labels are no longer paired with their inputs (shuffled or sorted separately, "
              "an off-by-one index): the model learns noise and validation stays at chance",
              explains=(*_DATA_PROBLEMS, "unstable")),
         RouteTo("training-loop-architecture", "primary", "keep inputs and labels in one dataset, shuffled together"),
         RouteTo("data-augmentation-strategies", "secondary", "transforms applied to input and label together")),
        "A model cannot beat chance on labels unrelated to the inputs; training loss may still fall by memorizing.",
        Cite("003", _MS, "not learning: check data and labels"), unless=("finding:MS-CHANCE-01", "finding:DT-LABEL-03"),
        salience=Salience.CAUSE + 1,
        fix=Fix("Keep each input with its label in one Dataset and let the DataLoader shuffle the pairs.",
                "dataset = torch.utils.data.TensorDataset(x, y)        # pairs stay together\n"
                "loader = torch.utils.data.DataLoader(dataset, batch_size=64, shuffle=True)"),
        avoid=("tuning hyperparameters while labels may be wrong",)),
    # Class ids are usually assigned by enumerating the class folders (or label names) in sorted order, once per
    # dataset object: folder names sorted as strings put '10' before '2', and a split that lacks one class numbers
    # every later class one lower. The model's output index then means one class in training and another where it
    # is scored, so a run that reports a good accuracy scores near zero in the user's own evaluation.
    Row("DT-LABEL-04", {"label_check": "class_order"},
        (Find("Data", "critical", "the class ids differ between training and evaluation: each split (or the "
              "user's own evaluation) numbers the classes by its own sorted list (folder names sorted as strings, "
              "a class missing from one split), so output index k names one class in training and another where "
              "it is scored", explains=(*_DATA_PROBLEMS, "not_learning")),
         RouteTo("loss-functions-and-objectives", "primary", "one class-to-index mapping for the targets of every "
                 "split and for reading predictions back"),
         RouteTo("training-loop-architecture", "secondary", "the evaluation path: map predicted indices through "
                 "the training set's class list")),
        "An index is only a class through the list that numbered it; two lists built separately agree only when "
        "they hold the same names sorted the same way.",
        Cite("003", _MS, "not learning: check data and labels"), salience=Salience.CAUSE + 1,
        fix=Fix("Build the class-to-index mapping once from the training set and reuse it for every split and for "
                "decoding predictions.",
                "class_to_idx = train_set.class_to_idx            # e.g. {'0': 0, '1': 1, '10': 2, ...}\n"
                "idx_to_class = {i: c for c, i in class_to_idx.items()}\n"
                "pred_class = [idx_to_class[i] for i in logits.argmax(1).tolist()]\n"
                "# other splits: ImageFolder(..., ) then remap targets through class_to_idx by folder name"),
        avoid=("retraining or tuning a model whose predictions are decoded through another class list",)),
    Row("DT-IMB-01", {"class_imbalance": True},
        (Find("Data", "warning", "one class dominates the labels: accuracy near the majority share is reached by "
              "predicting that class alone, and the loss is driven by it",
              explains=("metrics_wrong", "data_problem", "not_learning", "overfitting", "convergence")),
         RouteTo("loss-functions-and-objectives", "primary", "class weights, focal loss or balanced sampling"),
         RouteTo("experiment-tracking", "secondary", "per-class recall, F1 or balanced accuracy instead of accuracy")),
        "With 95% of examples in one class, 95% accuracy is the constant predictor; the average loss barely "
        "rewards the rare classes.",
        Cite("000", "Symptom: which X should I use? (direct questions)", "which loss function? (weighted objectives)"),
        salience=Salience.CAUSE,
        fix=Fix("Weight the loss by inverse class frequency (or resample), and report per-class metrics.",
                "counts = torch.bincount(train_labels, minlength=num_classes).float()\n"
                "weight = counts.sum() / (num_classes * counts.clamp(min=1))\n"
                "loss_fn = torch.nn.CrossEntropyLoss(weight=weight.to(device))"),
        avoid=("reading plain accuracy on imbalanced classes as progress",)),
    Row("DT-TGT-01", {"targets_unscaled": True},
        (Find("Data", "warning", "regression targets are used in raw units with a large range: the loss and its "
              "gradients are huge at the start, and no single LR suits both the output layer and the rest",
              explains=("not_learning", "unstable", "convergence", "data_problem")),
         RouteTo("loss-functions-and-objectives", "primary", "normalize the target, or a loss scaled to it"),
         RouteTo("learning-rate-scheduling", "secondary", "the usable LR depends on the target scale")),
        "An MSE on targets in the thousands produces gradients millions of times larger than on standardized "
        "targets; the output bias alone needs many steps to reach the mean.",
        Cite("003", _MS, "not learning: check data and labels"), salience=Salience.CAUSE,
        fix=Fix("Standardize targets with training-set statistics and undo it for predictions.",
                "mu, sigma = y_train.mean(), y_train.std()\nloss = loss_fn(model(x), (y - mu) / sigma)\n"
                "pred = model(x_new) * sigma + mu"),
        avoid=("lowering the LR until the raw-unit loss stops exploding",)),
    # Box-regression targets are encoded against the anchor or proposal as offsets scaled by its size and log
    # ratios of widths and heights: a ground-truth box of zero (or negative) width or height gives log(0) or the
    # log of a negative number, and a box reaching outside the image is clipped by the model's own boxes but not by
    # the annotation, so the regression target and its loss turn inf or NaN at the first batch that samples it.
    Row("DT-BOX-01", {"boxes_invalid": True},
        (Find("Data", "critical", "some ground-truth boxes are degenerate (zero or negative width or height) or "
              "reach outside the image: their box-regression targets (log width and height ratios) are inf or NaN, "
              "and the box loss turns non-finite when a batch samples them",
              explains=("unstable", "not_learning", "data_problem")),
         RouteTo("loss-functions-and-objectives", "primary", "the box-regression targets and their encoding"),
         RouteTo("gradient-management", "secondary", "clipping only hides a target that is already inf")),
        "The box coder divides by the anchor's size and takes log(w_gt / w_anchor); a box with x_max <= x_min "
        "or y_max <= y_min makes that log undefined, whatever the learning rate.",
        Cite("001", "Symptom: training unstable", "loss-functions-and-objectives: the loss's numerical contract"),
        salience=Salience.CAUSE,
        fix=Fix("Clamp every box to the image and drop boxes without positive width and height when the dataset "
                "builds its targets.",
                "boxes[:, 0::2] = boxes[:, 0::2].clamp(0, width)\n"
                "boxes[:, 1::2] = boxes[:, 1::2].clamp(0, height)\n"
                "keep = (boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])\n"
                "target = {'boxes': boxes[keep], 'labels': labels[keep]}"),
        avoid=("lowering the LR or clipping gradients against a box target that is already infinite",)),
    Row("DT-AUG-01", {"augmentation_strength": "strong", "generalization_gap": lt("MT-TRAIN-BELOW-VAL")},
        (Find("Data", "warning", "training accuracy sits below validation accuracy under strong augmentation: the "
              "training task is harder than the real one, so the model underfits it",
              explains=("metrics_wrong", "not_learning", "convergence", "data_problem")),
         RouteTo("data-augmentation-strategies", "primary", "augmentation strength matched to model and data"),
         RouteTo("overfitting-prevention", "secondary", "regularization that is not needed yet")),
        "Training metrics are measured on augmented inputs; when they stay below clean validation metrics the "
        "augmentation removes more information than it adds.",
        Cite("000", "Symptom: which X should I use? (direct questions)", "which augmentation? type and strength"),
        salience=Salience.CAUSE,
        fix=Fix("Weaken the augmentation (magnitude, probability), or ramp it up over training.",
                "train_tf = T.Compose([T.RandomResizedCrop(224, scale=(0.35, 1.0)),  # was (0.08, 1.0)\n"
                "                      T.RandomHorizontalFlip(), T.ToTensor(), normalize])"),
        avoid=("adding more regularization to a model that underfits its augmented data",)),
    # An augmentation is a regulariser: it pays off only when the model overfits without it. A small model (or a
    # short schedule) that cannot fit the mixed or distorted task ends below the run without it; mixup's alpha or
    # RandAugment's magnitude is then too strong for that capacity, as mixup's authors answer its users.
    Row("DT-AUG-03", {"augmentation_hurts": True},
        (Find("Data", "warning", "the augmentation does not pay off: accuracy with it is no better or below the run "
              "without it, the sign of a regulariser too strong for the model's capacity or the training length "
              "(the model underfits the mixed or distorted task)",
              explains=("not_learning", "convergence", "metrics_wrong", "data_problem")),
         RouteTo("data-augmentation-strategies", "primary", "augmentation strength matched to model capacity and "
                 "schedule (mixup alpha 0.1-0.4, a lower magnitude)"),
         RouteTo("hyperparameter-tuning", "secondary", "tune the augmentation strength with the schedule length")),
        "Mixing or distorting inputs makes the training task harder; a high-capacity model trained long enough "
        "gains from it, a small one or a short run loses more fit than it gains in generalization.",
        Cite("000", "Symptom: which X should I use? (direct questions)", "which augmentation? type and strength"),
        unless=("finding:DT-AUG-01", "finding:ME-MIX-01"), salience=Salience.CAUSE,
        fix=Fix("Weaken the augmentation for this model (mixup alpha 0.1-0.4 instead of 1.0, a lower magnitude or "
                "probability), or keep it and use a larger model or a longer schedule; compare on clean validation "
                "accuracy.",
                "lam = np.random.beta(0.2, 0.2)             # was beta(1.0, 1.0): much weaker mixing\n"
                "x_mix = lam * x + (1 - lam) * x[perm]\n"
                "loss = lam * ce(model(x_mix), y) + (1 - lam) * ce(model(x_mix), y[perm])"),
        avoid=("adding more regularization (dropout, weight decay) to a model that already underfits",)),
    # A run that overfits while training on the raw data (no augmentation, or only flips and crops where its recipe
    # also varies scale, colour or mixes examples) has not used the lever that enlarges its effective dataset: a
    # tentative lead ahead of regularization, which the run may already have; another cause evidenced outranks it.
    Row("DT-AUG-04", {"symptom": "overfitting", "augmentation_strength": Is("none", "light")},
        (Find("Data", "warning", "the model overfits while its training data is augmented lightly or not at all: it "
              "sees the same few views of each example every epoch, and the augmentation a recipe for this task "
              "relies on (scale range of the random crops, colour, mixing) is the missing lever",
              kind="suspect", explains=("overfitting",)),
         RouteTo("data-augmentation-strategies", "primary", "the augmentation the task and recipe call for: random "
                 "resized crops' scale range, colour jitter, mixup/cutmix"),
         RouteTo("overfitting-prevention", "secondary", "regularization alongside: weight decay, early stopping")),
        "Augmentation enlarges the effective dataset and teaches the invariances the validation images need; a run "
        "that memorises un-augmented data gains more from it than from another regularizer.",
        Cite("000", "Symptom: model overfits", "data-augmentation-strategies: increases effective dataset size"),
        salience=Salience.CAUSE - 1,
        fix=Fix("Add the augmentation the reference recipe uses (for ImageNet-style training: RandomResizedCrop with "
                "its full scale range, flips, optionally colour jitter or RandAugment), on the training set only.",
                "train_tf = T.Compose([T.RandomResizedCrop(224, scale=(0.08, 1.0)), T.RandomHorizontalFlip(),\n"
                "                      T.ToTensor(), normalize])\n"
                "val_tf = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), normalize])"),
        avoid=("stacking dropout and weight decay on a run that still trains on the raw images",)),
    # Input augmentation is the standard lever of vision, audio and text models; a recurrent or MLP model of a
    # series or a table, or a regression on such data, has no recipe of label-preserving transforms to ask about:
    # the overfitting question on augmentation (Q-AUG-OVF) stays for the models where it is standard.
    Row("DT-AUG-NA-01", {"architecture": Is("rnn", "mlp")},
        (Flag("augmentation_moot"),),
        "Sequence and tabular models (an LSTM over prices, an MLP over features) rarely use input augmentation; "
        "their overfitting levers are regularization, capacity and more data.",
        Cite("000", "Symptom: model overfits", "data-augmentation-strategies: for image, audio and text data")),
    Row("DT-AUG-NA-02", {"task": Is("regression", "rl"), "architecture": Absent()},
        (Flag("augmentation_moot"),),
        "A regression or a reinforcement-learning run with no vision or language model named is most often on "
        "series, tables or states, which come with no label-preserving transforms of their inputs.",
        Cite("000", "Symptom: model overfits", "data-augmentation-strategies: for image, audio and text data")),
    # Validation better than training, said in words (the measured form is the negative generalization gap that
    # DT-AUG-01 reads with the augmentation strength): the training pass is the harder one, not the model odd.
    Row("DT-AUG-02", {"val_better_than_train": True},
        (Find("Measurement", "warning", "validation scores better than training because the two are not measured "
              "alike: training metrics come from augmented inputs with dropout (and label smoothing) active, "
              "averaged over an epoch while the model improves; validation runs clean, in eval mode, at the end",
              # (a training figure that "stays below 90%" while validation is higher is the same measurement read as
              # a run that does not learn: validation proves the model learns)
              explains=("metrics_wrong", "overfitting", "experiment_tracking", "data_problem", "not_learning",
                        "convergence")),
         # (the threads that bring it ask how to read their curves: the measurement is the first stop, the
         # augmentation's strength only once both are measured alike)
         RouteTo("experiment-tracking", "primary", "compare train and validation measured the same way"),
         RouteTo("data-augmentation-strategies", "secondary", "how much the augmentation hardens the training task")),
        "Augmentation, dropout and label smoothing apply only in training, and a running epoch average lags the "
        "end-of-epoch validation; together they routinely put the training curve below the validation curve.",
        Cite("000", "Symptom: which X should I use? (direct questions)", "which augmentation? type and strength"),
        # (a leak said outright explains it too: validation then scores examples the model trained on, in eval mode)
        unless=("finding:DT-AUG-01", "finding:ME-MIX-01", "finding:DT-LEAK-01"), salience=Salience.CAUSE,
        fix=Fix("Measure the training metric the way validation is measured (eval mode, clean inputs) on a fixed "
                "training subset; weaken the augmentation only if that clean training score is still low.",
                "model.eval()\nwith torch.no_grad():\n"
                "    train_clean = evaluate(model, DataLoader(train_subset_without_augmentation, batch_size=256))\n"
                "model.train()"),
        avoid=("reading validation above training as a data leak or a bug before measuring both the same way",)),
    # A validation loss ten or a hundred times the training loss at the very first evaluation: one epoch cannot
    # memorise a training set so far past the held-out data, so the two numbers are not the same quantity. The usual
    # slips: a sum in one loop and a mean in the other (or a sum divided by a different count), a KL or regulariser
    # term weighted (or annealed) differently on the two sides of a VAE, targets normalised for training and raw for
    # validation, and eval-mode differences (dropout, BatchNorm statistics) in a model that leans on them.
    Row("ME-VALCALC-01", {"val_loss_far_above_from_start": True},
        (Find("Measurement", "warning", "the validation loss is orders of magnitude above the training loss from "
              "the first epoch: too soon and too large for overfitting; the two losses are computed differently "
              "(sum against mean reduction, a KL or regulariser weighted differently, targets normalised on one "
              "side only, or eval-mode layers)",
              explains=("metrics_wrong", "overfitting", "experiment_tracking", "data_problem")),
         RouteTo("loss-functions-and-objectives", "primary", "compute the training and validation losses with the "
                 "same terms, weights and reduction"),
         RouteTo("experiment-tracking", "secondary", "log both losses on one scale, per example")),
        "Memorisation opens a gap over many epochs while the training loss falls; a factor of ten or more at the "
        "first evaluation is a difference in what is computed, not in what the model learned.",
        Cite("000", "Symptom: model overfits", "check that train and validation are measured the same way"),
        unless=("finding:DT-PREP-01",), salience=Salience.CAUSE + 1,
        fix=Fix("Score a few training batches with the validation code (and validation batches with the training "
                "loss): the same reduction, the same KL weight, the same target scaling, in eval mode.",
                "model.eval()\nwith torch.no_grad():\n"
                "    a = train_loss_fn(model(xb_val), yb_val)   # training's loss on validation data\n"
                "    b = val_loss_fn(model(xb_val), yb_val)     # validation's loss on the same batch\n"
                "print(a.item(), b.item())  # they must agree"),
        avoid=("adding regularization or stopping early against a gap that the first epoch already shows",)),
    # --- issue 7: measurement integrity --------------------------------------------------------------------
    # Mixup and cutmix train on blends of two examples with a blended target; an accuracy that takes the argmax of
    # the output on a blend and compares it with one of the two hard labels measures neither the model nor the
    # task. It sits far below validation accuracy and does not track learning; the loss on the mixed targets does.
    Row("ME-MIX-01", {"train_metric_mixed": True},
        (Find("Measurement", "warning", "the training accuracy is scored on mixed batches (mixup, cutmix) against "
              "one of the two original labels: it is not the model's training accuracy, sits below validation and "
              "says little about learning; the loss on the mixed targets, or a clean pass over training data, does",
              explains=("metrics_wrong", "overfitting", "experiment_tracking", "not_learning", "data_problem")),
         RouteTo("experiment-tracking", "primary", "which training metric to log under mixing"),
         RouteTo("data-augmentation-strategies", "secondary", "the mixing strength, once it is measured right")),
        "A blend of two inputs has a blended target; its argmax matches the first label only as often as the blend "
        "leans that way, so accuracy on mixed batches is capped well below the clean figure whatever the model "
        "knows.",
        Cite("000", "Symptom: need to track experiments", "what to log and how to read it"),
        salience=Salience.CAUSE + 1,
        fix=Fix("Log the mixed loss as the training curve; for a training accuracy, score unmixed training "
                "examples in eval mode (or weight the hits by the mixing coefficient).",
                "logits = model(x_mix)\nloss = lam * ce(logits, y_a) + (1 - lam) * ce(logits, y_b)   # log this\n"
                "pred = logits.argmax(1)\n"
                "acc = lam * (pred == y_a).float().mean() + (1 - lam) * (pred == y_b).float().mean()\n"
                "# or: model.eval(); accuracy on a fixed, unaugmented training subset"),
        avoid=("turning mixup off (or tuning the LR) to raise a training accuracy that cannot measure the model",)),
    Row("ME-LOG-01", {"logged_loss": Is("scaled_by_accum", "wrong_denominator")},
        (Find("Measurement", "warning", "the logged loss is not the per-example mean (divided or summed by the "
              "accumulation steps, or averaged over the wrong count): the curve's scale is wrong, not the model",
              # (a loss that "grows" with the accumulation setting is this scale, not a run that diverges)
              explains=("metrics_wrong", "experiment_tracking", "unstable")),
         RouteTo("experiment-tracking", "primary", "log the per-example mean at each optimizer step"),
         RouteTo("training-loop-architecture", "secondary", "where the loop scales the loss for accumulation")),
        "Under accumulation the loss is divided by the micro-batch count for backward only; logging that value, "
        "or dividing a sum of batch means by the example count, shifts the curve by a constant factor.",
        Cite("000", "Symptom: need to track experiments", "what to log"), salience=Salience.CAUSE,
        fix=Fix("Log the unscaled loss, averaged per example over the optimizer step.",
                "for i, (x, y) in enumerate(loader):\n    loss = loss_fn(model(x), y)\n"
                "    (loss / accum_steps).backward()\n    window.append(loss.item())       # unscaled\n"
                "    if (i + 1) % accum_steps == 0:\n        optimizer.step(); optimizer.zero_grad()\n"
                "        log({'train_loss': sum(window) / len(window)}, step=opt_step)\n        window.clear()"),
        avoid=("tuning hyperparameters against a metric that may be measured wrongly",)),
    Row("ME-STEP-01", {"step_axis": Is("per_micro_batch", "per_epoch", "mixed")},
        (Find("Measurement", "warning", "the logged step axis does not count optimizer steps (micro-batches, "
              "epochs, or a mix): curves from runs with other accumulation or batch settings cannot be compared",
              explains=("metrics_wrong", "experiment_tracking")),
         RouteTo("experiment-tracking", "primary", "one step axis: optimizer steps (or examples seen)"),
         RouteTo("training-loop-architecture", "secondary", "where the loop counts its steps")),
        "Schedules, warmup and accumulation are defined in optimizer steps; a curve against micro-batches is "
        "stretched by the accumulation factor and one against epochs by the dataset size.",
        Cite("000", "Symptom: need to track experiments", "compare runs"), salience=Salience.CAUSE,
        fix=Fix("Log every metric against the optimizer step (and examples seen, for runs with other batches).",
                "logger.log({'train_loss': loss_value, 'examples': opt_step * global_batch}, step=opt_step)"),
        avoid=("comparing runs plotted on different step axes",)),
    # Lightning's global_step (like any counter bumped inside optimizer.step()) counts optimizer steps, not batches:
    # a GAN or any module that steps two optimizers per batch under manual optimization advances it twice per batch,
    # so an interval set in steps (log_every_n_steps, val_check_interval, max_steps, checkpoint every n steps) is
    # reached every other batch, and the run ends after half the batches max_steps seemed to ask for.
    Row("ME-STEP-02", {"step_counter_multi": True},
        (Find("Measurement", "warning", "the step counter counts optimizer.step() calls, not batches: with several "
              "optimizers stepped per batch (a GAN's generator and discriminator under manual optimization) it "
              "advances several times per batch, so intervals set in steps (logging every n steps, validation, "
              "max_steps) are reached every other batch", explains=("metrics_wrong", "experiment_tracking")),
         RouteTo("experiment-tracking", "primary", "log against the batch index (or divide the interval by the "
                 "optimizers stepped per batch)"),
         RouteTo("training-loop-architecture", "secondary", "what the trainer's step counter counts under manual "
                 "optimization")),
        "A counter that each optimizer step increments moves by the number of optimizers stepped per batch; every "
        "interval expressed in that counter shrinks by the same factor.",
        Cite("000", "Symptom: need to track experiments", "compare runs"), salience=Salience.CAUSE,
        fix=Fix("Count batches for logging, or scale every step-based setting by the optimizers stepped per batch.",
                "# Lightning, two optimizers stepped per batch under manual optimization\n"
                "trainer = Trainer(log_every_n_steps=2 * n, max_steps=2 * total_batches)\n"
                "self.log('g_loss', g_loss, on_step=True)   # x-axis: global_step = optimizer steps"),
        avoid=("treating a counter that moves by two per batch as skipped batches or a logging bug",)),
    # A model that scored well while it trained and scores far worse once saved and loaded again has not changed
    # its weights by training: what was restored differs from what was trained. Most often part of the state never
    # came back: a classifier that lives outside the saved module (in the loss object, or a head an adapter save
    # leaves out), keys that strict=False or a shape mismatch skipped silently, a head rebuilt with the default
    # class count; less often the reloaded model is run differently (left in train mode, other preprocessing).
    # Saving and loading is PyTorch engineering; the evaluation path is the loop's.
    Row("LP-RELOAD-01", {"reload_metric_drop": True},
        (Find("Training Loop", "warning", "the model scores far worse after it was saved and loaded again than it did "
              "while training: part of the trained state did not come back (a head or module kept outside the saved "
              "state, keys skipped by strict=False or by a shape mismatch, a head rebuilt with another class count) "
              "or the reloaded model runs differently (train mode, other preprocessing); the missing and unexpected "
              "keys of a strict load confirm which", explains=_EVAL_PROBLEMS + ("experiment_tracking",)),
         RouteTo("pytorch-engineering", "primary", "what the checkpoint holds and what the load restores: "
                 "state_dict keys, strict loading, modules saved outside the model"),
         RouteTo("training-loop-architecture", "secondary", "evaluate the reloaded model as in training: eval(), "
                 "the same preprocessing")),
        "Loading does not train: a reloaded model that scores differently from the one that was saved is a "
        "different function, because some of its parameters (or buffers) kept their fresh initial values, or because "
        "it is evaluated in another mode or on other inputs.",
        Cite("003", "Scope boundaries", "PyTorch module behaviour -> pytorch-engineering"), salience=Salience.CAUSE,
        # (the mode said or measured wrong is the more specific cause of the same drop: it leads on its own)
        unless=("finding:LP-MODE-01", "finding:LP-MODE-02", "finding:MS-EVAL-01"),
        fix=Fix("Load strictly and read what did not match; save every trained module (a head kept in the loss "
                "object, modules_to_save for adapters); rebuild the model with the trained class count; evaluate "
                "under eval() with the training preprocessing.",
                "torch.save({\"model\": model.state_dict(), \"head\": loss_fn.classifier.state_dict()}, path)\n"
                "ck = torch.load(path, map_location=\"cpu\")\n"
                "result = model.load_state_dict(ck[\"model\"], strict=True)   # raises on missing/unexpected keys\n"
                "loss_fn.classifier.load_state_dict(ck[\"head\"])\n"
                "model.eval()\nwith torch.no_grad():\n"
                "    acc = evaluate(model, val_loader)   # same transforms as in training"),
        avoid=("strict=False to silence the key mismatch: the skipped weights stay randomly initialised",
               "retraining or retuning the model because the reloaded copy scores badly")),
    Row("ME-DET-01", {"nondeterminism": "evaluation"},
        (Find("Measurement", "warning", "evaluating the same trained model gives different results each time: "
              "evaluation runs with dropout active or BatchNorm updating (train mode)",
              explains=("metrics_wrong", "experiment_tracking", "overfitting")),
         RouteTo("training-loop-architecture", "primary", "evaluate under model.eval() and torch.no_grad()")),
        "A trained model in eval mode is a deterministic function up to floating-point noise; visible run-to-run "
        "differences come from dropout sampling or normalization statistics updated by the evaluation batches.",
        # (eval() said to be called: then the mode is set and something in the forward ignores it, ME-DET-03)
        _LOOP, unless=("finding:LP-MODE-02", "finding:ME-DET-03"), salience=Salience.CAUSE,
        fix=Fix("Put the model in eval mode for every evaluation (callbacks may leave it in train mode).",
                "model.eval()\nwith torch.no_grad():\n    metrics = evaluate(model, loader)\nmodel.train()"),
        avoid=("averaging several noisy evaluations instead of switching to eval mode",)),
    # Evaluation that still varies although eval() is called: the flag is set on the modules, so what samples is
    # code that does not read it (functional dropout, a hand-written layer, an augmentation in the eval pipeline).
    Row("ME-DET-03", {"nondeterminism": "evaluation", "mode_switching": "train_and_eval"},
        (Find("Measurement", "warning", "evaluation of one model still varies although model.eval() is called: "
              "something in the forward ignores the module's mode, typically F.dropout / F.batch_norm called "
              "functionally (their training argument defaults to True, not to self.training), a custom layer with "
              "its own flag, or a random transform left in the evaluation pipeline",
              explains=("experiment_tracking",)),
         RouteTo("pytorch-engineering", "primary", "functional ops must be passed training=self.training"),
         RouteTo("training-loop-architecture", "secondary", "the evaluation path: eval(), no_grad, eval transforms")),
        "model.eval() only flips each module's self.training; a functional call such as F.dropout(x, p) is "
        "unaware of it and keeps sampling, so two forward passes on the same input differ in eval mode.",
        Cite("003", "Scope boundaries", "PyTorch module behaviour -> pytorch-engineering"), salience=Salience.CAUSE,
        fix=Fix("Use the nn.Dropout module, or pass the module's flag to the functional call; keep evaluation "
                "transforms deterministic.",
                "x = F.dropout(x, p=self.p, training=self.training)  # or self.drop = nn.Dropout(p) in __init__\n"
                "model.eval()\nwith torch.no_grad():\n    assert torch.equal(model(x0), model(x0))"),
        avoid=("calling model.eval() again or seeding the evaluation to hide the sampling",)),
    Row("ME-DET-02", {"nondeterminism": "training_runs"},
        (Find("Measurement", "info", "training runs with the same seed differ: GPU kernels (cuDNN autotuning, "
              "atomic adds) and unseeded DataLoader workers are non-deterministic unless told otherwise"),
         RouteTo("experiment-tracking", "primary", "compare runs over several seeds, record the settings"),
         RouteTo("training-loop-architecture", "secondary", "seeding workers and deterministic algorithms")),
        "torch.manual_seed fixes the initial weights and the sampler, not the order of floating-point atomics "
        "or benchmark-chosen kernels; differences between seeded runs are expected unless determinism is forced.",
        Cite("000", "Symptom: need to track experiments", "compare runs"),
        fix=Fix("Force determinism when you need it (slower), and compare configurations over several seeds.",
                "torch.manual_seed(0)\ntorch.use_deterministic_algorithms(True)\n"
                "torch.backends.cudnn.benchmark = False\n"
                "g = torch.Generator().manual_seed(0)\n"
                "loader = DataLoader(ds, shuffle=True, generator=g, worker_init_fn=seed_worker)"),
        avoid=("concluding one configuration is better from single runs that differ by less than seed noise",)),
    Row("ME-DROP-01", {"metrics_dropped": True},
        (Find("Measurement", "warning", "logged metrics go missing (steps, the last epoch, other processes, or "
              "whole metrics): conclusions rest on a partial record",
              explains=("metrics_wrong", "experiment_tracking")),
         RouteTo("experiment-tracking", "primary", "what is logged, when it is flushed, from which process"),
         RouteTo("training-loop-architecture", "secondary", "logging calls in every branch of the loop")),
        "Metrics vanish when a logger is not flushed before exit, logs only on rank 0 without reducing, logs "
        "inside a branch that is skipped, or reuses a step number the backend drops.",
        Cite("000", "Symptom: need to track experiments", "what to log"), salience=Salience.CAUSE,
        # a monitored metric missing where the callback checks it is the callback's schedule (LP-CKPT-02): the same
        # words are not a second, logging finding
        unless=("finding:LP-CKPT-02",),
        fix=Fix("Log from one place each step with an increasing step, reduce across processes, and close the "
                "logger at the end.",
                "if dist.is_initialized():\n    dist.all_reduce(metric_t, op=dist.ReduceOp.AVG)\n"
                "if rank == 0:\n    logger.log({'val_acc': metric_t.item()}, step=opt_step)\n"
                "logger.finish()  # flush before the process exits"),
        avoid=("tuning against a curve with missing points",)),
    Row("ME-AGG-01", {"metric_batch_averaged": True},
        (Find("Measurement", "warning", "the evaluation metric is averaged over batches: a ratio of counts (Dice, "
              "IoU, F1, precision/recall) or a ranking (AUC) depends on which examples share a batch, and even a "
              "per-example mean (accuracy) is off when the batches are not weighted by size (the last short batch "
              "counts as much as a full one), so batch size, shuffling and the last batch change the score of one "
              "model",
              explains=("metrics_wrong", "experiment_tracking")),
         RouteTo("experiment-tracking", "primary", "accumulate the metric's counts over the whole set, compute once"),
         RouteTo("training-loop-architecture", "secondary", "where the evaluation loop reduces its per-batch values")),
        "A mean of per-batch ratios is not the ratio over the set: a batch with few positives weighs as much as a "
        "full one, and an empty-target batch can score 0 or 1 by convention. Only additive quantities (a summed "
        "loss, correct counts) may be averaged batch by batch, and then weighted by batch size.",
        Cite("000", "Symptom: need to track experiments", "what to log"), salience=Salience.CAUSE,
        fix=Fix("Sum the metric's sufficient statistics (intersections and unions, TP/FP/FN) over every batch and "
                "compute the metric once at the end of the epoch (torchmetrics objects do this with update/compute).",
                "dice = torchmetrics.classification.BinaryF1Score().to(device)  # F1 == Dice on binary masks\n"
                "for x, y in val_loader:\n    dice.update(model(x).sigmoid() > 0.5, y.int())\n"
                "val_dice = dice.compute()  # over the whole set, independent of batching\ndice.reset()"),
        avoid=("averaging a ratio metric over batches and comparing runs with different batch sizes",)),
    # --- issue 7: more causes from the threads users bring ----------------------------------------------------
    Row("LP-CKPT-01", {"monitor_mode": "wrong_direction"},
        (Find("Training Loop", "warning", "checkpoint selection or early stopping compares the monitored metric the "
              "wrong way (a loss treated as higher-is-better): the 'best' checkpoint is the worst, and early stopping "
              "fires on improvement", explains=("overfitting", "metrics_wrong", "experiment_tracking",
                                               "not_learning", "convergence")),
         RouteTo("training-loop-architecture", "primary", "checkpointing and early-stopping callbacks"),
         RouteTo("overfitting-prevention", "secondary", "early stopping on the right signal")),
        "Callbacks default to one direction or guess it from the metric's name; a custom name ('eval_x_loss') or "
        "an explicit mode='max' on a loss flips the comparison.",
        _LOOP, salience=Salience.CAUSE,
        fix=Fix("State the direction explicitly for every monitored metric.",
                "ModelCheckpoint(monitor='val_loss', mode='min')\nEarlyStopping(monitor='val_loss', mode='min', "
                "patience=5)\n# transformers: TrainingArguments(metric_for_best_model='eval_x_loss', "
                "greater_is_better=False)"),
        avoid=("retraining longer to get a better 'best' checkpoint picked the wrong way",)),
    # Selecting the best checkpoint (or stopping early) needs the monitored metric at the moment of the decision:
    # transformers refuses load_best_model_at_end unless every save has an evaluation of the same schedule behind
    # it, and Lightning's callbacks stop when the monitored key was never logged under that name.
    Row("LP-CKPT-02", {"monitor_mode": "unavailable"},
        (Find("Training Loop", "warning", "checkpoint selection or early stopping monitors a metric that does not "
              "exist where it runs: evaluation is off or on another schedule than saving, or the metric is logged "
              "under another name", explains=("crash", "metrics_wrong", "experiment_tracking", "overfitting")),
         RouteTo("training-loop-architecture", "primary", "evaluation and checkpoint schedules that line up"),
         RouteTo("experiment-tracking", "secondary", "the exact name and place the monitored metric is logged")),
        "Best-model selection compares the monitored metric at every save; with evaluation disabled, on a different "
        "interval, or under another key there is nothing to compare, so the frameworks refuse or stop.",
        _LOOP, salience=Salience.CAUSE,
        fix=Fix("Evaluate on the schedule you save on and monitor the key exactly as logged.",
                "TrainingArguments(..., eval_strategy='epoch', save_strategy='epoch', load_best_model_at_end=True,\n"
                "                  metric_for_best_model='eval_loss', greater_is_better=False)\n"
                "# steps: save_steps a multiple of eval_steps\n"
                "# Lightning: self.log('val_loss', loss) in validation_step; ModelCheckpoint(monitor='val_loss')"),
        avoid=("turning off load_best_model_at_end (or early stopping) to silence the check",)),
    Row("DV-CKPT-02", {"error_text": Contains("load_best_model_at_end requires", "save and eval strategy to match",
                                              "round multiple of the evaluation steps",
                                              "could not find the monitored key",
                                              "early stopping conditioned on metric")},
        (Derive("monitor_mode", "unavailable"),),
        "The frameworks' own checks for best-model selection without a matching evaluation name the cause.",
        _LOOP, salience=Salience.DERIVE),
    Row("DT-SHAPE-01", {"target_shape": "broadcast"},
        (Find("Loss", "critical", "prediction and target shapes differ ([N] against [N, 1]) and the loss broadcasts "
              "them to an N x N matrix: it optimizes the wrong objective without an error",
              explains=("not_learning", "convergence", "unstable", "data_problem", "metrics_wrong")),
         RouteTo("loss-functions-and-objectives", "primary", "prediction and target in the same shape")),
        "Element-wise losses such as MSELoss broadcast their inputs; torch only warns that the target size differs "
        "from the input size, and every prediction is then compared with every target.",
        Cite("003", _MS, "not learning: what does the loss equal exactly?"), salience=Salience.CAUSE + 1,
        fix=Fix("Give prediction and target the same shape before the loss (and assert it).",
                "pred = model(x).squeeze(-1)          # [N, 1] -> [N]\nassert pred.shape == y.shape, (pred.shape, "
                "y.shape)\nloss = torch.nn.functional.mse_loss(pred, y.float())"),
        avoid=("tuning the LR of a loss that compares every prediction with every target",)),
    Row("DT-ZERO-01", {"loss_zero_from_start": True},
        (Find("Data", "critical", "the loss is exactly zero from the first steps: no targets reach it (annotations "
              "dropped by a class list, every label equal to ignore_index, empty masks) or the input already "
              "contains the answer", explains=("not_learning", "convergence", "metrics_wrong", "data_problem")),
         RouteTo("training-loop-architecture", "primary", "the pipeline that pairs inputs with their targets"),
         RouteTo("loss-functions-and-objectives", "secondary", "ignore_index and how the loss treats empty targets")),
        "A fresh model cannot have zero loss on real targets; zero means the loss sees nothing to fit (or a leak "
        "hands it the answer).",
        Cite("003", _MS, "not learning: what does the loss equal exactly?"), unless=("finding:LS-ONE-01",),
        salience=Salience.CAUSE + 2,
        fix=Fix("Count the targets that reach the loss in one batch, and check the dataset's class list.",
                "x, y = next(iter(train_loader))\nprint(y.shape, torch.unique(y, return_counts=True))\n"
                "# detection: len(targets[0]['boxes']) > 0 ?  segmentation: (y != ignore_index).sum() > 0 ?"),
        avoid=("raising the LR of a loss that has nothing to learn from",)),
    # Label smoothing gives every target a share of the other classes, so a perfect prediction of the smoothed target
    # still pays its entropy: the smoothed cross-entropy cannot go below it (about 0.5 for 0.1 on 10 classes, more for
    # stronger smoothing or more classes). A training loss that levels off there while the accuracy is high is the
    # objective's floor, not a plateau of learning.
    Row("LS-SMOOTH-01", {"label_smoothing": True, "symptom": Is("not_learning", "convergence")},
        (Find("Loss Function", "warning", "with label smoothing the loss has a floor above zero, the entropy of the "
              "smoothed targets (about 0.5 for 0.1 on 10 classes): a training loss that levels off near it is the "
              "objective's minimum, not a stalled run; judge progress by accuracy or by the loss minus that floor",
              explains=("not_learning", "convergence")),
         RouteTo("loss-functions-and-objectives", "primary", "what the smoothed loss can reach, and its floor"),
         RouteTo("experiment-tracking", "secondary", "track accuracy beside the smoothed loss")),
        "The smoothed target puts 1 - eps on the true class and eps / (K - 1) on each other one; cross-entropy "
        "against it is minimised by predicting it exactly, and that minimum is its entropy, which is positive.",
        Cite("Szegedy et al. 2016", "Rethinking the Inception architecture", "label-smoothing regularization"),
        # (a floor is reached only by a run that learned: not by one whose loss never fell or whose accuracy sits at
        # chance; and it is the weakest reading of a stalled smoothed loss, so it comes after every other cause and
        # stands only where none of them explains the symptom; a validation loss that rises is overfitting, a
        # model still moving, not one resting at its floor)
        unless=("flag:never_learned", "flag:symptom_explained", "finding:MS-OVF-01"), salience=Salience.AFTER,
        fix=Fix("Compute the floor for your smoothing and class count and compare the plateau with it.",
                "import math\neps, K = 0.1, 10\nq = [1 - eps] + [eps / (K - 1)] * (K - 1)\n"
                "print(-sum(p * math.log(p) for p in q))   # the lowest loss the smoothed targets allow"),
        avoid=("lowering the LR or training longer to push a smoothed loss below its floor",)),
    # A weighted term of the loss whose weight changes nothing sends no gradient: it is built from values cut out of
    # the graph, or does not depend on the parameters at all.
    Row("LS-TERM-01", {"loss_term_inert": True},
        (Find("Loss Function", "warning", "one term of the loss sends no gradient, so its weight cannot matter: it is "
              "computed from values cut out of the graph (.detach(), .item(), numpy, argmax, torch.no_grad()) or "
              "does not depend on the parameters", explains=("not_learning", "convergence", "multi_task")),
         RouteTo("loss-functions-and-objectives", "primary", "build every term from differentiable outputs"),
         RouteTo("training-loop-architecture", "secondary", "where the term's inputs leave the autograd graph")),
        "A term multiplied by beta changes the gradient by beta times its own gradient; when updates stay identical "
        "for every beta, that gradient is zero: the term is a constant as far as autograd can see.",
        Cite("003", "Step 2: investigate", "not learning: check that gradients are flowing"),
        salience=Salience.CAUSE,
        fix=Fix("Check that the term has a gradient path to the parameters, and build it from logits, not from "
                "argmax or detached values.",
                "aux = aux_loss(outputs, targets)\n"
                "print(aux.requires_grad, aux.grad_fn)   # False / None: the term is cut from the graph\n"
                "g = torch.autograd.grad(aux, [p for p in model.parameters() if p.requires_grad], allow_unused=True)\n"
                "print(sum(x.abs().sum() for x in g if x is not None))   # 0: it moves nothing"),
        avoid=("tuning the term's weight over orders of magnitude while it has no gradient",)),
    # A softmax over one logit is always 1, so a cross-entropy over a single output is exactly 0 whatever the label:
    # the head has one output (num_labels=1) while the loss is the multi-class one (problem_type
    # 'single_label_classification'). The loss has nothing to compute, like an empty target, but the fix is the
    # loss/head contract, so it stands instead of the general zero-loss entry.
    # A causal-LM loss shifts the labels by one inside itself (Hugging Face heads do it for labels=input_ids); a
    # caller, a collator or a decoder that shifts them as well makes position t predict token t+2, and a head that
    # does not shift compares each position with the token it already reads. Both train a task other than the one
    # meant; a one-token input is the tell (no next token: an empty loss, or one that should not exist).
    Row("LS-SHIFT-01", {"label_shift": Is("double", "missing")},
        (Find("Loss Function", "critical", "the language-model loss pairs positions with the wrong targets: the "
              "labels are shifted twice (by the caller, the collator or the decoder inputs, and again inside the "
              "loss) or not at all (each position scored against its own token), so the model trains on another "
              "task than next-token prediction", explains=("not_learning", "convergence", "metrics_wrong",
                                                            "unstable")),
         RouteTo("loss-functions-and-objectives", "primary", "one shift between logits and labels, in one place"),
         Cross("llm-specialist", "how the model family's head and collator handle labels", joint=True)),
        "Next-token prediction needs exactly one offset between the logits and the labels; two offsets or none "
        "give a loss that can look plausible while the model learns the wrong mapping.",
        Cite("000", "Symptom: model not learning", "loss-functions-and-objectives: the loss matches the task"),
        salience=Salience.CAUSE + 2,
        fix=Fix("Shift once: give a Hugging Face causal-LM head labels=input_ids unshifted (it shifts inside), or "
                "shift yourself and compute a plain cross-entropy.",
                "out = model(input_ids=ids, attention_mask=mask, labels=ids)   # HF shifts inside: do not pre-shift\n"
                "# by hand, exactly once:\n"
                "loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten(), ignore_index=-100)"),
        avoid=("tuning the LR or the schedule of a model trained on the wrong targets",)),
    Row("LS-ONE-01", {"num_outputs": 1, "loss_zero_from_start": True},
        (Find("Loss Function", "critical", "the head has a single output and the loss is a softmax cross-entropy: "
              "the softmax of one logit is 1, so the loss is exactly 0 for every label and nothing is learned",
              explains=("not_learning", "convergence", "metrics_wrong")),
         RouteTo("loss-functions-and-objectives", "primary", "match the loss to the head: two logits with "
                 "cross-entropy, or one logit with BCEWithLogitsLoss")),
        "Cross-entropy normalises over the class dimension; with one class the normalised probability is 1 and "
        "its log is 0. Binary tasks need two outputs for cross-entropy, or one output with a sigmoid loss.",
        Cite("000", "Symptom: model not learning", "loss-functions-and-objectives: the loss matches the task"),
        salience=Salience.CAUSE + 2,
        fix=Fix("Give the head one output per class for cross-entropy (num_labels=2 for a binary task), or keep "
                "one output and use a binary loss on it.",
                "model = AutoModelForSequenceClassification.from_pretrained(name, num_labels=2)   # cross-entropy\n"
                "# or one logit: loss = torch.nn.functional.binary_cross_entropy_with_logits(logits.squeeze(-1), "
                "y.float())"),
        avoid=("raising the LR of a loss that is identically zero",)),
    # Only when the user already finds the metrics suspicious: easy tasks (and the healthy controls of the probe
    # benchmarks) do reach 100%, and a warning on a healthy run is worse than a miss.
    Row("DT-PERFECT-01", {"val_metric": ge("MT-PERFECT-ACC"), "metric_kind": "accuracy", "symptom": "metrics_wrong"},
        (Find("Data", "warning", "validation accuracy is perfect: on a real task that means the validation set "
              "leaks into training, the labels are degenerate (one class) or the metric is computed wrongly",
              explains=("metrics_wrong", "overfitting", "experiment_tracking")),
         RouteTo("training-loop-architecture", "primary", "how the split, the labels and the metric are built"),
         RouteTo("experiment-tracking", "secondary", "how the metric is computed and averaged")),
        "Perfect accuracy on held-out data is far likelier a pipeline bug (duplicates across the split, a folder "
        "layout that assigns one label, a metric over the wrong tensor) than a perfect model.",
        Cite("003", _MS, "overfitting: check the train/val split"), salience=Salience.CAUSE,
        unless=("finding:DT-LEAK-01",),  # a leak named explains the perfect score
        fix=Fix("Check the split for overlap and the label distribution of the validation set.",
                "overlap = set(train_ids) & set(val_ids)\nprint(len(overlap), torch.bincount(val_labels))"),
        avoid=("celebrating (or tuning against) a perfect validation score before checking the pipeline",)),
    # Validation that leaks into training: duplicates across the split, an unseeded split drawn in code that runs on
    # every process (Lightning's setup(), a script under torchrun) or every run, augmented copies split after the
    # augmentation. Validation then scores memorised examples and says nothing about generalisation.
    Row("DT-LEAK-01", {"val_in_train": True},
        (Find("Data", "warning", "validation examples also reach training (duplicates across the split, a split "
              "drawn separately on each process or run, copies split after augmentation): the validation score "
              "measures memory, not generalisation",
              explains=("metrics_wrong", "overfitting", "data_problem", "experiment_tracking")),
         RouteTo("training-loop-architecture", "primary", "build the split once, seeded, before any process or "
                 "augmentation touches it"),
         RouteTo("overfitting-prevention", "secondary", "judge generalisation only on a clean held-out set")),
        "A split drawn with an unseeded generator in code every process runs gives each rank its own train/val "
        "partition, so the union of the training shards covers the validation set; duplicates and augmented copies "
        "do the same on one GPU.",
        Cite("003", _MS, "overfitting: check the train/val split"), salience=Salience.CAUSE + 1,
        fix=Fix("Split once with a fixed seed (or save the split to disk) and check that no example is on both sides.",
                "g = torch.Generator().manual_seed(42)\n"
                "train_ds, val_ds = torch.utils.data.random_split(full_ds, [0.9, 0.1], generator=g)\n"
                "# Lightning: seed_everything(42) before the Trainer, or split in prepare_data and save it\n"
                "assert not set(train_ds.indices) & set(val_ds.indices)"),
        avoid=("tuning regularization against a validation score that includes training examples",)),
    Row("LP-SCHED-01", {"scheduler_pace": Is("too_fast", "too_slow")},
        (Find("Training Loop", "warning", "the LR schedule is stepped in other units than it was defined in (per "
              "batch for a schedule in epochs, per micro-batch or per process for one in optimizer steps, or per "
              "epoch for one in steps): the LR decays far too early or barely moves",
              explains=("convergence", "not_learning", "unstable", "slow_training")),
         RouteTo("learning-rate-scheduling", "primary", "the schedule's length in the units it is stepped"),
         RouteTo("training-loop-architecture", "secondary", "where scheduler.step() is called")),
        "A scheduler counts its own step() calls: T_max, total_steps or num_training_steps must be written in the "
        "same unit as the loop that calls it, after accumulation and across processes.",
        Cite("000", "Quick reference", "which LR: schedule type and length"), salience=Salience.CAUSE,
        fix=Fix("Define the schedule in optimizer steps and step it once per optimizer step.",
                "steps = epochs * math.ceil(len(loader) / accum_steps)\n"
                "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)\n"
                "# in the loop, right after optimizer.step():\nscheduler.step()"),
        avoid=("retuning the peak LR while the schedule's length is wrong",)),
    # The LR set is not the LR applied: the user sees the logged LR sit still (a scheduler never stepped, attached to
    # another optimizer, or configured in a way the framework ignores; a value overridden by a restored checkpoint).
    Row("LP-LR-01", {"lr_observed": "stuck"},
        (Find("Schedule", "warning", "the learning rate the optimizer applies never moves although a schedule (or "
              "a new value) was set: the scheduler is not stepped, steps another optimizer, is configured in a way "
              "the framework ignores, or a restored checkpoint brings back its own LR and scheduler",
              explains=("convergence", "not_learning", "unstable", "experiment_tracking", "metrics_wrong")),
         RouteTo("learning-rate-scheduling", "primary", "the LR each step actually gets, against the schedule set"),
         RouteTo("training-loop-architecture", "secondary", "where scheduler.step() runs and what a resume restores")),
        "A scheduler changes the LR only through its own step() calls on the optimizer it was built with; a "
        "framework applies it only when returned in the form it expects (Lightning: the scheduler dict with its "
        "'interval'), and a resume that loads the optimizer and scheduler state restores their LR over the new one.",
        Cite("000", "Quick reference", "which LR: schedule type and length"), salience=Salience.CAUSE,
        fix=Fix("Read the LR from the optimizer each step, then step the scheduler that was built on that optimizer "
                "once per optimizer step (or return it in the form your framework expects).",
                "print(step, optimizer.param_groups[0]['lr'])   # the LR actually applied\n"
                "# plain PyTorch: optimizer.step(); scheduler.step()\n"
                "# Lightning: return {'optimizer': opt, 'lr_scheduler': {'scheduler': sched, 'interval': 'step'}}"),
        avoid=("tuning the LR value while the LR that is applied never changes",)),
    # The LR seen jumping back to its starting value mid-run: a schedule that began again at step 0. A resume is the
    # usual way (the scheduler rebuilt from the config, its state not saved or loaded after construction; a LambdaLR
    # whose last_epoch is assigned after the constructor already reset the LR), another a scheduler re-created inside
    # the loop. Either way the loop's handling of the scheduler is at fault, not the schedule's shape; stated about the
    # LR it is more specific than the generic resume finding, which yields to it.
    Row("LP-LR-03", {"lr_observed": "reset"},
        (Find("Schedule", "warning", "the learning rate jumped back to its starting value in the middle of the run: "
              "the schedule started again at step 0 (a resumed run whose scheduler was rebuilt without its saved "
              "state, or constructed before its step count was restored)",
              # (a jump back mid-run worsens a run that was learning: not a loss flat from the first step)
              explains=("convergence", "unstable")),
         RouteTo("training-loop-architecture", "primary", "save and restore the scheduler with the optimizer, and "
                 "build it once"),
         RouteTo("learning-rate-scheduling", "secondary", "the LR the schedule should give at the resumed step")),
        "A scheduler knows the step it is at only from its own state: rebuilt on resume it starts at step 0 and sets "
        "the initial (warm-up or peak) LR again, so the trained weights take large steps and the loss gets worse.",
        Cite("000", "Quick reference", "which LR: schedule type and length"), salience=Salience.CAUSE + 1,
        fix=Fix("Checkpoint the scheduler with the optimizer and load both after constructing them (or build the "
                "scheduler with the step it resumes at).",
                "torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), 'sched': sched.state_dict(), "
                "'epoch': epoch}, path)\n"
                "ck = torch.load(path)\nopt.load_state_dict(ck['opt'])\n"
                "sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lf)   # build, then restore its state\n"
                "sched.load_state_dict(ck['sched'])"),
        avoid=("lowering the peak LR to soften the jump instead of restoring the schedule's position",)),
    # Trainers minimise what the step hands back; when nothing usable comes back they either refuse (Hugging Face:
    # "The model did not return a loss", Lightning: "No `loss` value in the dictionary") or, for a Lightning
    # training_step returning None, silently skip the optimizer step.
    Row("LP-NOLOSS-01", {"trainer_loss": "missing"},
        (Find("Training Loop", "critical", "the trainer gets no loss to minimise: the batch reaches the model without "
              "labels (so it returns only logits), the model has no task head, or the training step returns "
              "nothing or a dict without the 'loss' key",
              explains=("crash", "not_learning", "convergence")),
         RouteTo("training-loop-architecture", "primary", "the contract between the trainer, the batch and the "
                 "model: labels in, a loss out"),
         RouteTo("loss-functions-and-objectives", "secondary", "computing the loss yourself when the model has "
                 "none")),
        "The Hugging Face Trainer backpropagates outputs.loss, which a model computes only when the batch carries "
        "labels (and only a model with a task head can); Lightning backpropagates the tensor training_step returns "
        "or the value under 'loss', and skips the step when it returns None.",
        _LOOP, salience=Salience.CAUSE + 1,
        fix=Fix("Make the step return the loss: put the targets in the batch under the name the model takes "
                "('labels'), use a model class with a head, or compute the loss yourself.",
                "# Hugging Face: batch = {'input_ids': ..., 'attention_mask': ..., 'labels': ...}\n"
                "#   (AutoModelForCausalLM / ...ForSequenceClassification, not the bare AutoModel)\n"
                "# or: class MyTrainer(Trainer):\n"
                "#         def compute_loss(self, model, inputs, return_outputs=False, **kw): ...\n"
                "# Lightning:\ndef training_step(self, batch, batch_idx):\n    loss = self.loss_fn(self(batch['x']), "
                "batch['y'])\n    self.log('train_loss', loss)\n    return loss   # or {'loss': loss}"),
        avoid=("setting remove_unused_columns or renaming keys until the error goes away without checking that a "
               "loss is computed",)),
    Row("LP-NOLOSS-02", {"error_text": Contains("did not return a loss", "no `loss` value", "no loss value",
                                                "training_step returned none", "training_step` returned `none`")},
        (Derive("trainer_loss", "missing"),),
        "The trainers' own messages when the step hands back no loss name the cause.",
        _LOOP, salience=Salience.DERIVE),
    # --- issue 7: precision hygiene ------------------------------------------------------------------------
    # Clipping that is set and never acts is called where it cannot reach the gradient the optimizer applies.
    Row("LP-CLIP-01", {"clip_ineffective": True},
        (Find("Training Loop", "warning", "gradient clipping is configured but never acts: it runs where it cannot "
              "reach the gradient the optimizer applies (before backward fills .grad, after the step, on other "
              "parameters, inside a framework's training_step before the framework's own backward) or the "
              "framework ignores the setting (Lightning's gradient_clip_val under manual optimization)",
              explains=("unstable", "not_learning", "convergence")),
         RouteTo("training-loop-architecture", "primary", "clip between backward and step, on the stepped "
                 "parameters"),
         RouteTo("gradient-management", "secondary", "the clipping threshold once it acts")),
        "clip_grad_norm_ rescales the .grad that exists when it is called; called before backward it clips the "
        "previous step's (or nothing), and a framework that runs backward after training_step returns overwrites "
        "it. Under manual optimization the framework no longer clips for you.",
        _LOOP, salience=Salience.CAUSE,
        fix=Fix("Clip after backward and before the optimizer step, on the parameters the optimizer holds (in "
                "Lightning: use gradient_clip_val with automatic optimization, or clip_gradients in manual "
                "optimization).",
                "loss.backward()\n"
                "total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # returns the norm before\n"
                "optimizer.step()\n"
                "# Lightning, manual optimization:\n"
                "# self.manual_backward(loss); self.clip_gradients(opt, gradient_clip_val=1.0); opt.step()"),
        avoid=("lowering max_norm further while the clip never runs at the right point",)),
    # Clipping the gradients GradScaler still holds multiplied by the loss scale: the norm compared with max_norm is
    # scale (2**16 at first) times too large, so a usual threshold cuts almost every step to nothing, and the value
    # that "works" drifts with the scale.
    Row("PR-CLIP-01", {"clip_order": "before_unscale", "grad_clipping": True},
        (Find("Precision", "warning", "the gradients are clipped while still multiplied by the loss scale (no "
              "scaler.unscale_ before clip_grad_norm_): the clip compares a norm tens of thousands of times too "
              "large with max_norm, so a usual threshold all but stops training and the threshold that seems to "
              "work moves with the scale", explains=("not_learning", "convergence", "unstable")),
         Cross("pytorch-engineering", "the GradScaler API: unscale_ before clipping, then step and update",
               joint=True, target="mixed-precision-and-optimization"),
         RouteTo("gradient-management", "primary", "clip the true (unscaled) gradient norm")),
        "scaler.scale(loss).backward() leaves every gradient multiplied by the current scale; clip_grad_norm_ sees "
        "that product unless scaler.unscale_(optimizer) runs first.",
        Cite("002", "FP16 training", "dynamic loss scaling: unscale before clipping"), salience=Salience.CAUSE,
        fix=Fix("Unscale the gradients before clipping them, then step through the scaler.",
                "scaler.scale(loss).backward()\n"
                "scaler.unscale_(optimizer)\n"
                "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
                "scaler.step(optimizer)\nscaler.update()"),
        avoid=("raising max_norm until clipping stops hurting: it then clips nothing once the scale changes",)),
    Row("PR-SKIP-01", {"scaler_skips": "occasional"},
        (Find("Precision", "info", "the GradScaler skips an occasional step on inf/NaN gradients: this is how "
              "dynamic loss scaling calibrates, not a fault", kind="note"),
         Flag("healthy_evidence")),
        "GradScaler starts with a large scale and halves it on each overflow, skipping that step; a few skips at "
        "the start and rare ones later are the scale settling. Only skips on most steps (a collapsing scale) "
        "are a problem, and NaN in the loss itself is a different one.",
        Cite("002", "FP16 training", "dynamic loss scaling"),
        fix=Fix("Nothing to fix; to watch it, log the scale and count skipped steps.",
                "scale_before = scaler.get_scale()\nscaler.step(optimizer)\nscaler.update()\n"
                "skipped = scaler.get_scale() < scale_before  # a skipped step lowers the scale"),
        avoid=("lowering the LR or adding clipping because of occasional overflow skips",)),
    Row("PR-SKIP-03", {"symptom": "direct_question"},
        (Block("gradient-management", "occasional GradScaler skips are loss-scale calibration: nothing about them "
               "calls for gradient clipping or instability debugging"),),
        "A question about the scaler's skip messages is a precision question; the instability routes are for a "
        "run that actually diverges or turns NaN, which this is not.",
        Cite("002", "FP16 training", "dynamic loss scaling"), need=("finding:PR-SKIP-01",), salience=Salience.GUARD),
    Row("PR-SKIP-02", {"scaler_skips": "persistent"},
        (Derive("loss_scale_issue", True),),
        "A scaler that skips most steps has a collapsing loss scale: the loss-scale routes take it from there.",
        Cite("001", "Symptom: training unstable", "loss scale issue"), salience=Salience.DERIVE),
    # --- issue 7: the seeds' rows still unrouted -----------------------------------------------------------
    Row("RT-CAP-01", {"symptom": "overfitting", "capacity_vs_data": "too_large"},
        (Find("Overfitting", "warning", "the model is large for the amount of data: it can memorize the training "
              "set", kind="note"),
         RouteTo("neural-architectures", "secondary", "a smaller model or a pretrained backbone for this data")),
        "Regularization comes first for overfitting, but a model far larger than its data calls for a model-size "
        "discussion too.",
        Cite("000", "Symptom: model overfits · decision factors", "model too large: neural-architectures")),
    Row("RT-DQ-15", {"symptom": "direct_question", "question_topic": "training_loop"},
        (RouteTo("training-loop-architecture", "primary", "loop structure, evaluation, checkpointing, callbacks"),),
        "How to structure a training loop is the training-loop specialist's question.",
        Cite("000", "Skill catalog", "training-loop-architecture: loop design, monitoring, checkpointing")),
    Row("RT-DQ-16", {"symptom": "direct_question", "question_topic": "clipping"},
        (RouteTo("gradient-management", "primary", "clipping by norm or value and choosing the threshold"),),
        "Gradient clipping and its threshold are gradient management.",
        Cite("000", "Skill catalog", "gradient-management: gradient clipping")),
)

_LOOP_Q = Cite("003", "Scope boundaries", "training loop issues")

# (asked twice: after the schedule is known, and on its own late in a run with no schedule said)
_PACE_CHOICES = (("matches", "yes"), ("too_fast", "no: stepped more often than defined (per batch, micro-batch, "
                 "process)"), ("too_slow", "no: stepped less often (per epoch for a per-step schedule)"))
_LR_TRACE_TEXT = ("Does the learning rate the optimizer applies (optimizer.param_groups[0]['lr'], or the logged lr) "
                  "follow the value and schedule you set?")
_LR_TRACE_CHOICES = (("as_set", "yes"), ("stuck", "no: it never changes"), ("near_zero", "no: it falls to about 0"),
                     ("reset", "no: mid-run it jumped back to its starting value"))

QUESTIONS = (
    QuestionRow(
        "Q-ZERO-GRAD", "zero_grad_call",
        "Where does your loop call optimizer.zero_grad()?",
        # asked once the LR is known: the seeds start every one of these curves with the LR (and the optimizer),
        # the common causes, so a loop fault is looked for after them, not before; a user who cannot state the
        # LR will not know where zero_grad is called either
        {"symptom": Is("not_learning", "unstable", "convergence"),
         "loss_behavior": Is("flat_from_start", "decreasing_slowly", "oscillating", "diverging", "spiking"),
         "learning_rate": Present()},
        rank=34,
        why="A zero_grad that is missing, misplaced or on the wrong object makes steps grow or vanish: it "
            "explains flat, oscillating and diverging curves alike, whatever the LR.",
        cite=_LOOP_Q,
        choices=(("each_step", "once per optimizer step, before backward"), ("missing", "nowhere"),
                 ("once_per_epoch", "once per epoch"),
                 ("between_backward_and_step", "after backward, before optimizer.step()"),
                 ("wrong_object", "on another optimizer or model than the one being trained"),
                 ("every_micro_batch", "every micro-batch while accumulating gradients"))),
    QuestionRow(
        "Q-GRAPH-CUT", "graph_cut",
        "Is the loss computed from anything detached from the graph (.detach(), .item(), numpy), or are "
        "submodules kept in a plain Python list?",
        {"symptom": "not_learning", "loss_behavior": "flat_from_start"}, rank=35,
        why="A loss that never moves can be a graph that never reaches the parameters.",
        cite=Cite("003", _MS, "not learning: check that gradients are flowing"),
        choices=(("none", "no, the loss is a tensor from the model output"), ("detach", ".detach() somewhere"),
                 ("item", ".item() / float() before the loss"), ("numpy", "a numpy round-trip"),
                 ("python_list", "submodules in a plain Python list"))),
    QuestionRow(
        "Q-MODE-SWITCH", "mode_switching",
        "How does the loop switch model.train() and model.eval() around validation?",
        {"symptom": Is("overfitting", "metrics_wrong")}, rank=13,
        why="Validating in train mode, or never switching back to train mode, makes the gap or the metrics "
            "wrong by construction.",
        cite=_LOOP_Q,
        choices=(("train_and_eval", "eval() for validation, train() again after it"),
                 ("never_calls_train", "eval() for validation, train() never called again"),
                 ("validates_in_train_mode", "validation runs without model.eval()"))),
    QuestionRow(
        "Q-PREPROC", "preprocessing_mismatch",
        "Do training and evaluation preprocess inputs differently (normalization, resizing, tokenization)?",
        {"symptom": Is("overfitting", "metrics_wrong", "data_problem")}, rank=14,
        why="A preprocessing mismatch looks like overfitting: validation sees inputs the model never trained on.",
        cite=Cite("003", _MS, "overfitting: check the pipeline")),
    QuestionRow(
        "Q-WEIGHTS-DTYPE", "weights_dtype",
        "Are the model's weights themselves stored in half precision (model.half() / model.bfloat16())?",
        {"mixed_precision": Is("fp16", "bf16"), "symptom": Is("not_learning", "unstable", "convergence")},
        rank=15,
        why="Pure half-precision weights lose small updates; AMP keeps an FP32 master copy.",
        cite=Cite("002", "FP16 training", "master weights in FP32"),
        choices=(("fp32", "no, FP32 parameters (autocast only)"), ("fp16", "yes, model.half()"),
                 ("bf16", "yes, model.bfloat16()"))),
    QuestionRow(
        "Q-ERROR-TEXT", "error_text",
        "Paste the error message (the last lines of the traceback).",
        {"symptom": "crash"}, rank=5,
        why="The message decides where a crash belongs: out of memory, distributed, compile, or our own "
            "knowledge.",
        cite=Cite("000", "Cross-pack boundaries", "error messages")),
    # --- issue 7 causes: each can be asked for -----------------------------------------------------------
    QuestionRow(
        "Q-OPT-STEP", "optimizer_step_call",
        "How many times per training step does the loop call optimizer.step() (or scaler.step(optimizer))?",
        # asked once the zero_grad question was answered: a user who cannot say where zero_grad is called will
        # not know the step count either, and a chain of loop questions then only delays the route
        {"symptom": Is("not_learning", "convergence"), "loss_behavior": "flat_from_start", "zero_grad_call": Present()},
        rank=36,
        why="A loop that never steps learns nothing; one that steps twice doubles every update.",
        cite=_LOOP_Q,
        choices=(("once", "once, after backward"), ("missing", "never (or in a branch that does not run)"),
                 ("twice", "twice (e.g. scaler.step and optimizer.step)"),
                 ("outside_scaler", "optimizer.step() directly although a GradScaler scales the loss"))),
    QuestionRow(
        "Q-OPT-PARAMS", "optimizer_params",
        "Was anything about the model's parameters changed after the optimizer was built (a layer added or "
        "replaced, layers unfrozen or frozen, the model re-created or wrapped)?",
        {"symptom": Is("not_learning", "convergence"), "loss_behavior": "flat_from_start",
         "optimizer_step_call": Present()}, rank=37,
        why="The optimizer steps only the tensors it was given; layers created or unfrozen later never train.",
        cite=_LOOP_Q,
        choices=(("all", "no: the optimizer was built over the final model"),
                 ("missing", "layers added or unfrozen afterwards (or left out of the list)"),
                 ("stale", "the model or a layer was re-created, replaced or wrapped afterwards"),
                 ("frozen_held", "layers frozen afterwards"))),
    QuestionRow(
        "Q-KEPT-GRAPHS", "kept_graphs",
        "Does the loop keep tensors between steps: a running loss summed without .item(), stored outputs, or "
        "evaluation without torch.no_grad()?",
        {"symptom": "memory_growth"}, rank=10,
        why="Memory that grows every step is nearly always graphs kept alive by the loop.",
        cite=_LOOP_Q,
        choices=(("none", "no, only Python numbers are kept"),
                 ("running_loss_tensor", "a running loss summed as a tensor"),
                 ("stored_outputs", "outputs or losses appended to a list"),
                 ("eval_with_grad", "evaluation runs without torch.no_grad()"))),
    QuestionRow(
        "Q-EPOCH-JUMP", "epoch_start_jump",
        "Do the loss jumps line up with the start of each epoch?",
        {"symptom": "unstable", "loss_behavior": "spiking"}, rank=33,
        why="Jumps at every epoch boundary come from the loop (a re-created optimizer, eval mode left on), not "
            "from the gradients.",
        cite=_LOOP_Q),
    QuestionRow(
        "Q-LABELS", "label_check",
        "Looking at a batch as the model gets it: do the class ids run 0..C-1, and is each label still paired "
        "with its input?",
        {"symptom": Is("data_problem", "metrics_wrong")}, rank=15,
        why="Labels shifted by one or shuffled apart from their inputs cap the model at chance.",
        cite=Cite("003", _MS, "not learning: check data and labels"),
        choices=(("ok", "yes: ids 0..C-1, paired with their inputs"),
                 ("not_zero_based", "ids start at 1 or have gaps"),
                 ("misaligned", "labels are not paired with their inputs"),
                 ("class_order", "the evaluation numbers the classes differently from training"))),
    QuestionRow(
        "Q-IMBALANCE", "class_imbalance",
        "Does one class hold most of the examples?",
        {"symptom": Is("data_problem", "metrics_wrong"), "task": Is("classification", "segmentation", "detection")},
        rank=16,
        why="With a dominant class, accuracy rewards predicting it alone.",
        cite=Cite("000", "Symptom: which X should I use? (direct questions)", "which loss function?")),
    QuestionRow(
        "Q-TARGET-SCALE", "targets_unscaled",
        "Are the regression targets used in raw units with a large range (not standardized)?",
        {"task": "regression", "symptom": Is("not_learning", "unstable", "convergence", "data_problem")}, rank=33,
        why="Raw-unit targets make the loss and gradients huge and the LR impossible to set.",
        cite=Cite("003", _MS, "not learning: check data and labels")),
    # The same question when the task was not said but the loss is a regression loss: a run trained with MSE or L1
    # that does not learn is most often a regression whose targets were never scaled.
    QuestionRow(
        "Q-ACCUM-WIRING", "accum_wiring",
        "Where is the accumulation context (accelerator.accumulate(model), no_sync()) entered: once per micro-batch "
        "inside the loop, or once around the whole loop?",
        {"grad_accumulation": True, "symptom": Is(*_LOOP_PROBLEMS)}, rank=14,
        why="The helper decides on entry whether a micro-batch steps and syncs; entered once, it never advances.",
        cite=Cite("002", "Gradient accumulation", "step and sync only at the last micro-batch of each group"),
        choices=(("per_micro_batch", "once per micro-batch, inside the loop"),
                 ("around_loop", "once, around the whole loop"))),
    QuestionRow(
        "Q-BOXES", "boxes_invalid",
        "Do any ground-truth boxes have zero (or negative) width or height, or reach outside the image?",
        {"task": "detection", "loss_behavior": Is("nan_or_inf", "diverging")}, rank=12,
        why="A degenerate box makes the box-regression target a log of zero: the box loss turns NaN at any LR.",
        cite=Cite("001", "Symptom: training unstable", "loss-functions-and-objectives: the loss's numerical "
                  "contract")),
    QuestionRow(
        "Q-TARGET-SCALE-LOSS", "targets_unscaled",
        "Are the targets the regression loss compares against used in raw units with a large range (not "
        "standardized)?",
        {"loss_fn": Is(*sorted(REGRESSION_LOSSES)), "task": Absent(),
         "symptom": Is("not_learning", "unstable", "convergence", "data_problem")}, rank=33,
        why="A regression loss on raw-unit targets makes the loss and gradients huge and the LR impossible to set.",
        cite=Cite("003", _MS, "not learning: check data and labels")),
    # Whether validation scores better than training: the observation DT-AUG-02 (the two passes measured unlike) and
    # a stated leak (DT-LEAK-01) explain, which only the numbers or the user's words otherwise give. Asked where the
    # training pass is known to be the harder one (DV-HARDER-*) and the complaint is about the figures or a run that
    # seems not to learn: there the answer splits "the training metric is measured on harder inputs" from a fault of
    # the run or the data. Not once a gap or a rising validation loss is known, which answer it already.
    QuestionRow(
        "Q-VAL-ABOVE-TRAIN", "val_better_than_train",
        "Does the validation metric come out better than the training metric (a lower validation loss, or a higher "
        "validation accuracy or score)?",
        {"symptom": Is("metrics_wrong", "experiment_tracking", "data_problem", "not_learning", "convergence"),
         "generalization_gap": Absent(), "val_loss_rising": Absent(), "gap_trend": Absent()},
        rank=13, need=("flag:train_pass_harder",), unless=("flag:generalization_gap", "flag:train_below_val"),
        why="Augmentation, mixed batches, label smoothing and dropout act in training only, and a training figure "
            "averaged over an epoch lags one taken at its end: validation above training then says the training "
            "pass is the harder one, not that the model fails to learn.",
        cite=Cite("000", "Symptom: which X should I use? (direct questions)", "which augmentation? strength")),
    QuestionRow(
        "Q-AUG-STRENGTH", "augmentation_strength",
        "How strong is the training-time data augmentation?",
        {"generalization_gap": lt("MT-TRAIN-BELOW-VAL")}, rank=12,
        why="Training metrics below validation usually mean the augmented training task is harder than the real "
            "one.",
        cite=Cite("000", "Symptom: which X should I use? (direct questions)", "which augmentation? strength")),
    QuestionRow(
        "Q-LOGGED-LOSS", "logged_loss",
        "How is the logged training loss computed?",
        {"symptom": "metrics_wrong"}, rank=16,
        why="A loss divided for accumulation or averaged over the wrong count shifts the whole curve.",
        cite=Cite("000", "Symptom: need to track experiments", "what to log"),
        choices=(("per_example_mean", "the per-example mean at each optimizer step"),
                 ("scaled_by_accum", "the loss after dividing it by the accumulation steps"),
                 ("wrong_denominator", "a sum of batch means divided by the example count (or similar)"))),
    QuestionRow(
        "Q-STEP-AXIS", "step_axis",
        "What does the x-axis of the logged curves count?",
        {"symptom": "metrics_wrong"}, rank=17,
        why="Curves against micro-batches or epochs cannot be compared across runs.",
        cite=Cite("000", "Symptom: need to track experiments", "compare runs"),
        choices=(("optimizer_step", "optimizer steps"), ("per_micro_batch", "micro-batches (forward passes)"),
                 ("per_epoch", "epochs"), ("mixed", "different metrics use different counters"))),
    QuestionRow(
        "Q-NONDETERMINISM", "nondeterminism",
        "Do results change between runs: evaluating the same trained model, or training with the same seed?",
        {"symptom": "metrics_wrong"}, rank=18,
        why="Evaluation that changes points at train mode; seeded training that changes is GPU non-determinism.",
        cite=Cite("000", "Symptom: need to track experiments", "compare runs"),
        choices=(("none", "no"), ("evaluation", "evaluating the same model changes"),
                 ("training_runs", "training runs with the same seed differ"))),
    QuestionRow(
        "Q-METRICS-DROPPED", "metrics_dropped",
        "Are some logged points or metrics missing (steps, the last epoch, other processes)?",
        {"symptom": "metrics_wrong"}, rank=19,
        why="A partial record misleads every comparison built on it.",
        cite=Cite("000", "Symptom: need to track experiments", "what to log")),
    QuestionRow(
        "Q-SCALER-SKIPS", "scaler_skips",
        "How often does the GradScaler skip steps (the scale drops)?",
        {"mixed_precision": "fp16", "grad_scaler": True, "symptom": "unstable",
         "loss_behavior": Is("spiking", "oscillating")}, rank=16,
        why="Occasional skips are calibration; skips on most steps are a collapsing loss scale.",
        cite=Cite("002", "FP16 training", "dynamic loss scaling"),
        choices=(("none", "never"), ("occasional", "a few times, mostly early"),
                 ("persistent", "on most steps"))),
    QuestionRow(
        "Q-CAPACITY", "capacity_vs_data",
        "Is the model large for the amount of training data (many more parameters than examples)?",
        {"symptom": "overfitting"}, rank=13,
        why="The seed's fourth overfitting question: model size relative to the dataset.",
        cite=Cite("000", "Symptom: model overfits", "model size relative to dataset size?"),
        choices=(("fits", "no, a reasonable size for the data"), ("too_large", "yes, large for the data"))),
    QuestionRow(
        "Q-MONITOR", "monitor_mode",
        "Does checkpoint selection / early stopping compare the monitored metric in the right direction (min for a "
        "loss, max for accuracy)?",
        {"regularization": Is("early_stopping", "several"), "symptom": Is("overfitting", "metrics_wrong")}, rank=15,
        why="A loss monitored as higher-is-better keeps the worst checkpoint and stops on improvement.",
        cite=_LOOP_Q,
        choices=(("right", "yes"), ("wrong_direction", "no (e.g. mode='max' on a loss)"),
                 ("unavailable", "it finds no such metric (no evaluation then, or logged under another name)"))),
    QuestionRow(
        "Q-TARGET-SHAPE", "target_shape",
        "Do the prediction and the target have exactly the same shape in the loss (e.g. both [N], not [N] and "
        "[N, 1])?",
        {"task": "regression", "symptom": Is("not_learning", "convergence", "data_problem")}, rank=34,
        why="Element-wise losses broadcast mismatched shapes silently and optimize the wrong objective.",
        cite=Cite("003", _MS, "not learning: what does the loss equal exactly?"),
        choices=(("matches", "yes, the same shape"), ("broadcast", "no, they differ"))),
    QuestionRow(
        "Q-SCHED-PACE", "scheduler_pace",
        "Is scheduler.step() called in the same unit the schedule was defined in (e.g. T_max in optimizer steps and "
        "stepped once per optimizer step)?",
        {"lr_schedule": Is("cosine", "linear", "onecycle", "wsd", "step", "exponential"),
         "symptom": Is("convergence", "not_learning", "unstable")}, rank=39,
        why="A schedule stepped per batch but defined in epochs decays (or restarts) far too early.",
        cite=_LOOP_Q,
        choices=_PACE_CHOICES),
    QuestionRow(
        "Q-CLIP-ORDER", "clip_order",
        "With the GradScaler, do you call scaler.unscale_(optimizer) before clipping the gradients?",
        {"grad_clipping": True, "grad_scaler": True, "symptom": Is("not_learning", "convergence", "unstable")},
        rank=41,
        why="Clipping gradients still multiplied by the loss scale makes any usual max_norm cut almost everything.",
        cite=Cite("002", "FP16 training", "dynamic loss scaling: unscale before clipping"),
        choices=(("after_unscale", "yes, unscale_ then clip"), ("before_unscale", "no, clip right after backward"))),
    # The same check for an FP16 run whose scaler nobody mentioned: FP16 autocast without a GradScaler is rare (its
    # small gradients underflow), so "AMP" with clipping and a loss that barely moves is worth the question before
    # the LR; a run said to have no scaler (grad_scaler False) is not asked, and BF16 needs no scaler at all.
    QuestionRow(
        "Q-CLIP-ORDER-FP16", "clip_order",
        "With FP16 mixed precision (a GradScaler): is scaler.unscale_(optimizer) called before the gradients are "
        "clipped?",
        {"grad_clipping": True, "mixed_precision": "fp16", "grad_scaler": Absent(),
         "symptom": Is("not_learning", "convergence", "unstable")},
        rank=41,
        why="Clipping gradients still multiplied by the loss scale makes any usual max_norm cut almost everything.",
        cite=Cite("002", "FP16 training", "dynamic loss scaling: unscale before clipping"),
        choices=(("after_unscale", "yes, unscale_ then clip"), ("before_unscale", "no, clip right after backward"))),
    QuestionRow(
        "Q-LR-TRACE", "lr_observed",
        _LR_TRACE_TEXT,
        # after the pace question: a schedule stepped in its own units can still never be applied, or reach 0
        {"scheduler_pace": "matches", "symptom": Is("convergence", "not_learning")}, rank=40,
        why="A schedule that is never stepped, or one that drives the LR to zero, leaves the weights barely moving "
            "whatever the set LR is.",
        cite=_LOOP_Q,
        choices=_LR_TRACE_CHOICES),
    # The pace asked without waiting for the schedule's name: a schedule stepped in other units than it is defined
    # in is a loop defect (LP-SCHED-01) that the answer settles by itself, and a user with no schedule declines it.
    # Late: asked only when its answer separates the leading causes.
    QuestionRow(
        "Q-SCHED-PACE-ANY", "scheduler_pace",
        "If the run uses an LR schedule or warmup: is scheduler.step() called in the same unit the schedule was "
        "defined in (e.g. T_max or num_training_steps in optimizer steps, stepped once per optimizer step)?",
        # (once the kind of run is known: what it trains places an LLM or RL run first, and is asked before this)
        {"lr_schedule": Absent(), "task": Present(), "symptom": Is("convergence", "not_learning")}, rank=39,
        late=True,
        # (a run already placed across a boundary, an RL or LLM run, is checked there first)
        unless=("boundary:*",),
        why="A schedule stepped per batch but defined in epochs (or per micro-batch, or on every process) decays or "
            "warms up far faster than intended; one stepped per epoch for a per-step definition barely moves.",
        cite=_LOOP_Q,
        choices=_PACE_CHOICES),
    # The LR actually applied, asked whatever the pace question got (declined, or not asked): a scheduler never
    # stepped, one driving the LR to 0 and one restarting mid-run show there first, and so does a new LR value that
    # never reached the optimizer. Late: asked only when its answer separates the leading causes.
    QuestionRow(
        "Q-LR-TRACE-ANY", "lr_observed",
        _LR_TRACE_TEXT,
        {"scheduler_pace": Absent(), "task": Present(), "symptom": Is("convergence", "not_learning")}, rank=42,
        late=True,
        # (a run already placed across a boundary, an RL or LLM run, is checked there first)
        unless=("boundary:*",),
        why="The LR set is not always the LR applied: a scheduler never stepped leaves it still, one stepped too "
            "often drives it to about 0, one rebuilt on resume sends it back to its start.",
        cite=_LOOP_Q,
        choices=_LR_TRACE_CHOICES),
    QuestionRow(
        "Q-ZERO-LOSS", "loss_zero_from_start",
        "Is the loss (or one of its terms) exactly zero from the first steps?",
        {"symptom": "not_learning", "loss_behavior": "flat_from_start"}, rank=38,
        why="A zero loss from the start means no targets reach it, or the input leaks the answer.",
        cite=Cite("003", _MS, "not learning: what does the loss equal exactly?")),
)
