"""Causes users actually hit: the training loop, data and preprocessing, half-precision weights, and more.

Also the symptoms people bring that are not a loss curve: a crash, a hang, memory growth, wrong metrics.

Each cause is one row: the observation that evidences it (answered, declared or probed), a question that can
ask for it, the finding with its severity, its routes, its fix and what to avoid. Where a probe measures the
same cause (``MS-ZERO-01``, ``MS-EVAL-01``) the declared row yields to the measured one.
"""

from __future__ import annotations

from knowledge.schema import Cite, Cross, Find, Fix, Gt, Is, QuestionRow, RouteTo, Row, Salience

_LOOP = Cite("003", "Scope boundaries", "training loop issues -> training-loop-architecture")
_MS = "Step 2: investigation commands"
_LOOP_PROBLEMS = ("not_learning", "unstable", "convergence", "multi_task", "metrics_wrong")
_EVAL_PROBLEMS = ("overfitting", "metrics_wrong", "not_learning", "convergence")
_DATA_PROBLEMS = ("overfitting", "metrics_wrong", "data_problem", "not_learning", "convergence")

ROWS = (
    # --- symptoms that are not a loss curve: where to start -------------------------------------------
    Row("SY-CRASH-01", {"symptom": "crash"},
        (RouteTo("pytorch-engineering", "primary", "a crash is read from its traceback: shapes, devices, dtypes "
                 "and API misuse are PyTorch engineering"),),
        "A run that stops with an exception is diagnosed from the message; the error-text boundaries (CUDA OOM, "
        "DDP, torch.compile) take over once it is pasted, and then this route would only restate them.",
        Cite("000", "Cross-pack boundaries", "PyTorch errors and infrastructure -> pytorch-engineering"),
        unless=("boundary:pytorch-engineering",), salience=Salience.SYMPTOM - 1),
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
    Row("LP-ZERO-01", {"zero_grad_call": Is("missing", "once_per_epoch", "wrong_object")},
        (Find("Training Loop", "critical", "gradients are not zeroed before every step (missing, once per epoch, "
              "or called on an object that does not hold these parameters): each step applies the sum of past "
              "gradients", explains=_LOOP_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "the step order: zero_grad, forward, backward, step"),
         RouteTo("gradient-management", "secondary", "deliberate accumulation divides the loss and zeroes after")),
        "PyTorch adds every backward into .grad; without zeroing on the optimizer (or model) that owns these "
        "parameters, the effective step grows each iteration.",
        _LOOP, unless=("finding:MS-ZERO-01",), salience=Salience.CAUSE,
        fix=Fix("Zero the gradients of the optimizer that steps these parameters, once per optimizer step.",
                "for x, y in loader:\n"
                "    optimizer.zero_grad(set_to_none=True)\n"
                "    loss = loss_fn(model(x), y)\n"
                "    loss.backward()\n"
                "    optimizer.step()"),
        avoid=("lowering the LR to tame steps that grow because gradients pile up",)),
    Row("LP-ZERO-02", {"zero_grad_call": "between_backward_and_step"},
        (Find("Training Loop", "critical", "zero_grad runs between backward and the optimizer step: every step "
              "applies a zero gradient and nothing learns", explains=_LOOP_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "the step order: zero_grad, forward, backward, step")),
        "Zeroing after backward discards the gradient just computed; the step then moves nothing (or only "
        "weight decay).",
        _LOOP, salience=Salience.CAUSE,
        fix=Fix("Zero before the forward pass (or right after the step), never between backward and step.",
                "optimizer.zero_grad(set_to_none=True)\nloss = loss_fn(model(x), y)\nloss.backward()\n"
                "optimizer.step()"),
        avoid=("raising the LR of a loop that throws its gradients away",)),
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
    Row("LP-MODE-01", {"mode_switching": "never_calls_train"},
        (Find("Training Loop", "warning", "model.train() is never called after validation: training continues "
              "in eval mode, with dropout off and normalization layers frozen", explains=_EVAL_PROBLEMS),
         RouteTo("training-loop-architecture", "primary", "switch model.train() / model.eval() around evaluation")),
        "eval() is sticky: after the first validation pass the model trains without its regularization and batch "
        "statistics unless train() is called again.",
        _LOOP, unless=("finding:MS-EVAL-01",), salience=Salience.CAUSE,
        fix=Fix("Call model.train() at the start of every training epoch (and model.eval() only for evaluation).",
                "for epoch in range(epochs):\n    model.train()\n    for x, y in train_loader:\n        ...\n"
                "    model.eval()\n    with torch.no_grad():\n        evaluate(model, val_loader)"),
        avoid=("removing dropout to make training and validation agree",)),
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
        fix=Fix("Keep parameters in FP32 and autocast the forward pass (with a GradScaler for FP16).",
                "model = model.float()\nscaler = torch.amp.GradScaler('cuda')\n"
                "with torch.autocast('cuda', dtype=torch.float16):\n    loss = loss_fn(model(x), y)\n"
                "scaler.scale(loss).backward()\nscaler.step(optimizer)\nscaler.update()"),
        avoid=("training model.half() weights with a plain optimizer",)),
)

_LOOP_Q = Cite("003", "Scope boundaries", "training loop issues")

QUESTIONS = (
    QuestionRow(
        "Q-ZERO-GRAD", "zero_grad_call",
        "Where does your loop call optimizer.zero_grad()?",
        {"symptom": Is("not_learning", "unstable", "convergence"),
         "loss_behavior": Is("flat_from_start", "decreasing_slowly", "oscillating", "diverging", "spiking")},
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
)
