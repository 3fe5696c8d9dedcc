"""The diagnostician's tables: symptom -> category -> usual root cause, investigation checks, fixes, misdiagnoses.

Every finding carries a fix (an explanation and code a PyTorch user can paste) and what not to do. The
checks that need a join of two observations (loss at init against ln(num_classes)) are hand-written rules
that mark a flag; a row then states the finding with its fix. The train/validation gap join lives in
``derive`` (``DV-GAP-01``, flag ``generalization_gap``); the finding and fix for it are here.
"""

from __future__ import annotations

import math
from typing import Any

from expert._experta import MATCH, NOT, TEST
from expert.engine import hand_rule
from expert.facts import Flag as FlagFact
from expert.facts import Obs
from knowledge.clarification import EVIDENCE
from knowledge.pressure import OPTIMIZER_SWITCH
from knowledge.schema import Cite, Contains, Derive, Find, Fix, Ge, Gt, Is, Le, Lt, Not, Present, RouteTo, Row, Salience

_S = "Step 1: symptom table"
_I = "Step 2: investigate"
_F = "Step 3: fix table"
_M = "Common misdiagnoses"

ADAPTIVE = Is("adam", "adamw", "lamb", "lion", "sophia", "ademamix", "adamw_8bit", "paged_adamw", "shampoo", "muon")
PLAIN_SGD = Is("sgd", "sgd_momentum")
BAD_LOSS = Not("decreasing_normally")

CHANCE_BAND = Le(0.10, source="003 · Not learning: loss near random chance = ln(num_classes); we accept a 10% "
                             "relative band, since a uniform softmax sits exactly at ln(C) and the first batches "
                             "add a little noise")
"""How close |loss_at_init / ln(num_classes) - 1| must be to call the loss 'at chance'."""

NAN_EARLY = Lt(10, source="000 · Symptom: training unstable · 'immediately at start' vs 'after N epochs': within the "
                          "first 10 steps nothing (schedule, drift, state) has had time to build up")

# ---------------------------------------------------------------------------------------------------
# fixes (our own code)
# ---------------------------------------------------------------------------------------------------

FIX_GRAD_FLOW = Fix(
    "Check that every trainable parameter receives a gradient and nothing is frozen by accident; then compare the "
    "loss with ln(num_classes).",
    "import math\n"
    "loss = loss_fn(model(x), y); loss.backward()\n"
    "for name, p in model.named_parameters():\n"
    "    g = None if p.grad is None else p.grad.norm().item()\n"
    "    print(f\"{name:50s} requires_grad={p.requires_grad} grad_norm={g}\")\n"
    "print(\"chance-level loss:\", math.log(num_classes), \"current:\", loss.item())")
FIX_PLATEAU = Fix(
    "Decay the LR when progress stalls (or use a cosine schedule), and compare validation loss to rule out "
    "overfitting.",
    "sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode=\"min\", factor=0.1, patience=5)\n"
    "# after each validation pass:\n"
    "sched.step(val_loss)")
FIX_GRAD_LOG = Fix(
    "Log the global gradient norm every step to see whether oscillation follows gradient spikes; lower the LR or "
    "raise the batch if it does.",
    "total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=float(\"inf\"))  # measures, does not clip\n"
    "print(f\"step {step}: loss={loss.item():.4f} grad_norm={total.item():.3f}\")")
FIX_NAN_HUNT = Fix(
    "Find the first non-finite value: turn on anomaly detection for a few steps and assert finiteness of inputs, "
    "loss and gradients.",
    "torch.autograd.set_detect_anomaly(True)  # slow: only while hunting\n"
    "assert torch.isfinite(x).all(), \"non-finite input\"\n"
    "loss = loss_fn(model(x), y)\n"
    "assert torch.isfinite(loss), f\"non-finite loss at step {step}\"\n"
    "loss.backward()\n"
    "bad = [n for n, p in model.named_parameters() if p.grad is not None and not torch.isfinite(p.grad).all()]\n"
    "assert not bad, f\"non-finite gradients in {bad[:5]}\"")
FIX_GAP_MEASURE = Fix(
    "Measure the generalization gap with the same metric on both splits before choosing regularization.",
    "train_acc, val_acc = evaluate(model, train_loader), evaluate(model, val_loader)\n"
    "print(f\"train {train_acc:.1%} val {val_acc:.1%} gap {train_acc - val_acc:.1%}\")")
FIX_TIMING = Fix(
    "Time data loading against compute for a few dozen steps; a GPU waiting on data needs loader work, not a "
    "different batch size or optimizer.",
    "import time\n"
    "wait = comp = 0.0; t = time.perf_counter()\n"
    "for i, (x, y) in enumerate(loader):\n"
    "    t1 = time.perf_counter(); wait += t1 - t\n"
    "    loss = loss_fn(model(x.cuda()), y.cuda()); loss.backward(); opt.step(); opt.zero_grad()\n"
    "    torch.cuda.synchronize(); t = time.perf_counter(); comp += t - t1\n"
    "    if i == 30: break\n"
    "print(f\"data {wait:.2f}s compute {comp:.2f}s -> data share {wait / (wait + comp):.0%}\")")
FIX_LOADER = Fix(
    "Feed the GPU faster: more loader workers, pinned memory, persistent workers and prefetching; move heavy "
    "augmentation to the GPU if the CPU is the limit.",
    "loader = torch.utils.data.DataLoader(dataset, batch_size=bs, shuffle=True, num_workers=8, pin_memory=True,\n"
    "                                     persistent_workers=True, prefetch_factor=4)")
FIX_LR_UP = Fix(
    "Raise the LR by 10-100x (an LR range test finds the edge: the largest LR where the loss still falls).",
    "for g in opt.param_groups:\n"
    "    g[\"lr\"] *= 30  # then refine with an LR range test")
FIX_LR_DOWN = Fix(
    "Lower the peak LR (3-10x) and add a linear warmup over the first 1-5% of steps.",
    "for g in opt.param_groups:\n"
    "    g[\"lr\"] /= 5\n"
    "sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=warmup_steps)")
FIX_CLIP = Fix(
    "Clip the global gradient norm at 1.0 between backward and the optimizer step (after unscaling when a "
    "GradScaler is used).",
    "loss.backward()\n"
    "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
    "opt.step(); opt.zero_grad(set_to_none=True)")
FIX_VANISH = Fix(
    "Vanishing gradients are an architecture/initialization matter: initialize for the activation (Kaiming for "
    "ReLU), add normalization and residual paths; a different optimizer will not restore the signal.",
    "for m in model.modules():\n"
    "    if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d)):\n"
    "        torch.nn.init.kaiming_normal_(m.weight, nonlinearity=\"relu\")\n"
    "        torch.nn.init.zeros_(m.bias) if m.bias is not None else None")
FIX_REGULARIZE = Fix(
    "Regularize and augment together: decoupled weight decay, dropout, early stopping on validation loss, and "
    "data augmentation sized to the dataset.",
    "opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.05)\n"
    "head = torch.nn.Sequential(torch.nn.Dropout(p=0.3), torch.nn.Linear(d_model, num_classes))\n"
    "aug = torchvision.transforms.v2.Compose([torchvision.transforms.v2.RandomResizedCrop(224),\n"
    "                                         torchvision.transforms.v2.RandomHorizontalFlip()])")
FIX_VERIFY_OPT = Fix(
    "Verify before switching: run an LR range test and log gradient norms with the current optimizer; switch only "
    "if a tuned LR and healthy gradients still fail.",
    "lrs = torch.logspace(-7, 0, steps=100)\n"
    "for lr in lrs:  # one mini-batch per LR, from a fresh copy of the model\n"
    "    for g in opt.param_groups: g[\"lr\"] = lr.item()\n"
    "    loss = loss_fn(model(x), y); opt.zero_grad(); loss.backward(); opt.step()\n"
    "    print(f\"lr={lr.item():.1e} loss={loss.item():.4f}\")")
FIX_BATCH_LR = Fix(
    "When the batch size changes, scale the LR with it (linearly for SGD, roughly with the square root for "
    "Adam-family) and keep the warmup.",
    "base_lr, base_bs = 3e-4, 256\n"
    "lr = base_lr * (new_bs / base_bs) ** 0.5  # sqrt rule for Adam-family; use the plain ratio for SGD")
FIX_SYSTEMATIC = Fix(
    "Name the symptom first, change one cause at a time with evidence; when a search is justified, sample LR and "
    "weight decay jointly on a log scale.",
    "import optuna\n"
    "def objective(trial):\n"
    "    lr = trial.suggest_float(\"lr\", 1e-5, 1e-2, log=True)\n"
    "    wd = trial.suggest_float(\"weight_decay\", 1e-4, 1e-1, log=True)\n"
    "    return train_and_validate(lr=lr, weight_decay=wd)")

_NOT_LEARN_AVOID = ("training for more epochs or switching optimizer before checking gradient flow",)

ROWS = (
    # --- Step 1: symptom -> category -> usual root cause --------------------------------------------
    Row("DX-SYM-01", {"loss_behavior": "flat_from_start"},
        (Find("Not Learning", "warning", "loss flat from the first step: usually an LR far too low, a poor "
              "initialization, or frozen parameters"),),
        "A loss that never moves has a starting-conditions cause; check gradient flow and chance-level loss.",
        Cite("003", _S, "loss flat from epoch 0 -> not learning"), fix=FIX_GRAD_FLOW, avoid=_NOT_LEARN_AVOID),
    Row("DX-SYM-02", {"loss_behavior": "plateau_after_learning"},
        (Find("Plateau", "warning", "loss fell, then plateaued: usually an LR that needs decaying, or the start "
              "of overfitting"),),
        "A stall after progress asks for LR decay, after ruling out overfitting on validation loss.",
        Cite("003", _S, "loss decreased then plateaued -> plateau"), fix=FIX_PLATEAU,
        avoid=("raising model size or switching optimizer at a plateau before trying LR decay",)),
    Row("DX-SYM-03", {"loss_behavior": "oscillating"},
        (Find("Instability", "warning", "loss oscillates: usually an LR that is too high, or a batch too small for "
              "it"),),
        "Oscillation is an LR/batch-noise problem; gradient norms show which.",
        Cite("003", _S, "loss oscillating -> instability"), fix=FIX_GRAD_LOG,
        avoid=("adding more epochs or a new optimizer to an oscillating run",)),
    Row("DX-SYM-04", {"loss_behavior": "nan_or_inf"},
        (Find("Explosion", "critical", "loss becomes NaN/Inf: usually exploding gradients or a numerical problem "
              "(log 0, division by zero, precision overflow)"),),
        "NaN/Inf is an explosion or a numerical fault; find where the first non-finite value appears.",
        Cite("003", _S, "loss NaN/Inf -> explosion"), fix=FIX_NAN_HUNT,
        avoid=("restarting with random tweaks (LR, seed, optimizer) before locating the first NaN",)),
    Row("DX-SYM-05", {"symptom": "overfitting"},
        (Find("Overfitting", "warning", "training metrics good, validation bad: the model needs regularization"),),
        "A generalization gap is an overfitting problem; its size decides how strong the remedy must be.",
        Cite("003", _S, "train good, val bad -> overfitting"), fix=FIX_GAP_MEASURE,
        avoid=("a bigger model or more epochs for an overfitting model",)),
    Row("DX-SYM-06", {"symptom": "slow_training"},
        (Find("Performance", "info", "slow training: usually data loading, otherwise the batch size"),),
        "Slow runs are measured first: data time against compute time.",
        Cite("003", _S, "training slow -> performance"), fix=FIX_TIMING,
        avoid=("changing the optimizer or batch size before timing data loading against compute",)),
    # --- Step 2: investigation checks ------------------------------------------------------------------
    Row("DX-CHANCE-02", {"loss_behavior": Is("flat_from_start", "decreasing_slowly")},
        (Find("Not Learning", "critical", "the loss sits at chance level (about ln(num_classes)): the model "
              "predicts a uniform distribution and has learned nothing"),),
        "A loss pinned at ln(C) means no learning signal reaches the outputs: frozen or disconnected parameters, "
        "an LR far too low, or labels that do not match the outputs.",
        Cite("003", _I, "not learning: is the loss near random chance = log(num_classes)?"),
        need=("flag:chance_level",), fix=FIX_GRAD_FLOW, avoid=_NOT_LEARN_AVOID),
    Row("DX-GAP-02", {},
        (Find("Overfitting", "critical", "train accuracy exceeds validation accuracy by more than 20 points: "
              "severe overfitting"),),
        "A gap above 20 points is severe: regularization and augmentation together, not one technique.",
        Cite("003", _I, "overfitting: gap above 20% is severe"), need=("flag:generalization_gap",),
        fix=FIX_REGULARIZE, avoid=("a bigger model or more epochs for an overfitting model",
                                   "adding dropout alone and calling overfitting solved")),
    Row("DX-DATA-01",
        {"data_time_fraction": Gt(0.5, source="003 · Slow training investigation · data loading longer than "
                                              "compute (over half of each step) is a loading bottleneck")},
        (Find("Performance", "warning", "data loading takes longer than compute: the input pipeline is the "
              "bottleneck"),
         RouteTo("pytorch-engineering", "primary", "DataLoader workers, prefetching and profiling")),
        "When the step waits for data more than it computes, the loader is the target, not the model or optimizer.",
        Cite("003", _I, "training slow: data time above compute time -> loading bottleneck"), fix=FIX_LOADER,
        avoid=("raising the batch size or changing the optimizer while the GPU waits for data",)),
    Row("DX-GRAD-01",
        {"params_without_grad": Gt(0, source="003 · Not learning investigation · a trainable parameter printed "
                                            "with no gradient")},
        (Find("Not Learning", "critical", "some trainable parameters receive no gradient: the graph is cut "
              "(detach, no_grad, .item(), an unused branch) before them"),),
        "A trainable parameter with no gradient after backward is disconnected from the loss.",
        Cite("003", _I, "not learning: check that gradients are flowing"), fix=FIX_GRAD_FLOW,
        avoid=("tuning the LR of parameters that get no gradient at all",)),
    Row("DX-FROZEN-01",
        {"frozen_params": Gt(0, source="003 · Not learning investigation · frozen parameters listed"),
         "loss_behavior": Is("flat_from_start", "decreasing_slowly")},
        (Find("Not Learning", "warning", "parameters are frozen (requires_grad=False) in a run that barely "
              "learns: check that only the intended layers are frozen"),),
        "Frozen parameters in a flat run are a usual root cause of not learning.",
        Cite("003", _S, "loss flat from epoch 0: frozen params"), fix=FIX_GRAD_FLOW,
        avoid=("raising the LR of a model whose layers are frozen by mistake",)),
    Row("DX-NAN-01", {"nan_location": "inputs"},
        (Find("Numerical", "critical", "the first non-finite value is already in the inputs: the data is "
              "corrupt or badly normalized"),),
        "NaN in the inputs is a data problem; no optimizer setting fixes it.",
        Cite("003", _I, "NaN: check the inputs"),
        fix=Fix("Filter or repair non-finite samples and check the normalization statistics.",
                "bad = ~torch.isfinite(x).flatten(1).all(dim=1)\n"
                "print(\"non-finite samples in batch:\", bad.nonzero().flatten().tolist())"),
        avoid=("clipping gradients to hide NaN inputs",)),
    Row("DX-NAN-02", {"nan_location": "labels"},
        (Find("Numerical", "critical", "the labels are invalid (non-finite or out of range for the loss)"),),
        "Out-of-range class indices or NaN targets break the loss before any gradient exists.",
        Cite("003", _I, "NaN: check label range"),
        fix=Fix("Check the label range against the number of outputs.",
                "assert y.min() >= 0 and y.max() < num_classes, (y.min().item(), y.max().item())"),
        avoid=("lowering the LR for a label-range error",)),
    Row("DX-NAN-03", {"nan_location": "activations"},
        (Find("Numerical", "critical", "activations overflow in the forward pass (often FP16 range or a missing "
              "normalization)"),),
        "A forward-pass overflow is a numerical-range problem: precision or normalization.",
        Cite("003", _I, "NaN: check model outputs"),
        fix=Fix("Locate the first module with non-finite output with forward hooks; move to BF16 or add "
                "normalization there.",
                "def hook(mod, inp, out):\n"
                "    if isinstance(out, torch.Tensor) and not torch.isfinite(out).all():\n"
                "        raise RuntimeError(f\"non-finite output in {mod.__class__.__name__}\")\n"
                "for m in model.modules(): m.register_forward_hook(hook)"),
        avoid=("lowering the LR for a forward-pass overflow",)),
    Row("DX-NAN-04", {"nan_location": "loss"},
        (Find("Numerical", "critical", "the loss computation itself produces the first NaN/Inf (log of 0, "
              "division by zero, an unstable formula)"),
         RouteTo("loss-functions-and-objectives", "secondary", "make the loss numerically stable")),
        "A loss that is the first non-finite value points at its formula.",
        Cite("003", _I, "NaN: custom loss functions"),
        fix=Fix("Use the fused, numerically stable forms (logits in, log-sum-exp inside) and clamp denominators.",
                "loss = torch.nn.functional.cross_entropy(logits, y)  # not log(softmax(logits))\n"
                "ratio = num / den.clamp_min(1e-8)"),
        avoid=("adding gradient clipping to hide a loss that computes log(0)",)),
    Row("DX-NAN-05", {"nan_location": "gradients"},
        (Find("Explosion", "critical", "the gradients are the first non-finite values: gradient explosion"),),
        "NaN gradients with finite loss is the explosion case; clip and trace the layer.",
        Cite("003", _F, "gradient explosion -> add clipping (max_norm=1.0)"), fix=FIX_CLIP,
        avoid=("lowering the LR alone without bounding the gradient norm",)),
    Row("DX-NAN-06", {"nan_location": "weights"},
        (Find("Explosion", "critical", "the weights became non-finite after an optimizer step: the update was too "
              "large (LR too high or unbounded gradients)"),),
        "Finite gradients that turn weights into NaN mean the step itself is too large.",
        Cite("003", _F, "LR too high -> decrease LR, add warmup"), fix=FIX_LR_DOWN,
        avoid=("resuming from the NaN checkpoint",)),
    Row("DX-NAN-07", {"nan_location": "optimizer_state"},
        (Find("Numerical", "critical", "the optimizer state is non-finite (often an Adam second moment or eps "
              "underflowing in low precision)"),),
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
    Row("DX-NAN-10", {"nan_step": Ge(10, source=NAN_EARLY.source)},
        (Derive("nan_onset", "after_steps"),),
        "NaN after training has run a while is the 'after steps' onset: LR schedule, explosion, loss scale.",
        Cite("000", "Symptom: training unstable", "when do NaN values appear: after N epochs"),
        salience=Salience.DERIVE + 2),
    # --- Step 3: fix table -----------------------------------------------------------------------------
    Row("DX-FIX-01",
        {"loss_behavior": Is("flat_from_start", "decreasing_slowly"), "optimizer": ADAPTIVE,
         "learning_rate": Lt(1e-5, source="Adam-family peak LRs sit around 1e-4..1e-3 (PyTorch Adam default 1e-3, "
                                          "Karpathy's 3e-4); below 1e-5 is one to two decades under that range")},
        (Find("Not Learning", "warning", "the LR is far too low for an Adam-family optimizer"),),
        "A flat or crawling loss at an LR decades below the usual range is the 'LR too low' fix-table row.",
        Cite("003", _F, "LR too low -> increase LR 10-100x"), fix=FIX_LR_UP,
        avoid=("switching optimizer when the LR is simply too low",)),
    Row("DX-FIX-02",
        {"loss_behavior": Is("flat_from_start", "decreasing_slowly"), "optimizer": PLAIN_SGD,
         "learning_rate": Lt(1e-3, source="SGD peak LRs sit around 0.01..0.1 (0.1 is the classic ResNet value); "
                                          "below 1e-3 is one to two decades under that range")},
        (Find("Not Learning", "warning", "the LR is far too low for SGD"),),
        "SGD needs much larger LRs than Adam; a flat loss far below its usual range is an LR problem.",
        Cite("003", _F, "LR too low -> increase LR 10-100x"), fix=FIX_LR_UP,
        avoid=("switching optimizer when the LR is simply too low",)),
    Row("DX-FIX-03",
        {"loss_behavior": Is("oscillating", "diverging", "spiking", "nan_or_inf"), "optimizer": ADAPTIVE,
         "learning_rate": Gt(1e-2, source="Adam-family peak LRs sit around 1e-4..1e-3 (Karpathy's recipe: 3e-4); "
                                          "above 1e-2 is far outside that range")},
        (Find("Instability", "warning", "the LR is far too high for an Adam-family optimizer"),),
        "An unstable loss at an LR above the usual Adam range is the 'LR too high' fix-table row.",
        Cite("003", _F, "LR too high -> decrease LR, add warmup"), fix=FIX_LR_DOWN,
        avoid=("clipping harder to compensate for an LR that is simply too high",)),
    Row("DX-FIX-04",
        {"loss_behavior": Is("oscillating", "diverging", "spiking", "nan_or_inf"), "optimizer": PLAIN_SGD,
         "learning_rate": Gt(0.5, source="SGD peak LRs sit around 0.01..0.1 (0.1 is the classic ResNet value); "
                                         "above 0.5 is far outside that range")},
        (Find("Instability", "warning", "the LR is far too high for SGD"),),
        "An unstable loss at an SGD LR several times the usual range is the 'LR too high' row.",
        Cite("003", _F, "LR too high -> decrease LR, add warmup"), fix=FIX_LR_DOWN,
        avoid=("clipping harder to compensate for an LR that is simply too high",)),
    Row("DX-FIX-05", {"grad_norm_trend": "exploding"},
        (Find("Explosion", "critical", "gradient norms grow without bound"),),
        "Exploding gradient norms are bounded with global-norm clipping at 1.0.",
        Cite("003", _F, "gradient explosion -> add clipping (max_norm=1.0)"), fix=FIX_CLIP,
        avoid=("lowering the LR alone without bounding the gradient norm",)),
    Row("DX-FIX-06", {"grad_norm_trend": "vanishing"},
        (Find("Not Learning", "warning", "gradient norms vanish: the signal does not reach the early layers"),),
        "Vanishing gradients are fixed in the architecture and initialization, not the optimizer.",
        Cite("003", _F, "vanishing gradients -> check architecture, init"), fix=FIX_VANISH,
        avoid=("raising the LR to push a vanishing gradient through",)),
    # --- common misdiagnoses: correct the user's frame with the evidence -------------------------------
    Row("DX-MIS-01", {"self_diagnosis": Contains("optimizer", "optimiser"), "loss_behavior": BAD_LOSS},
        (Find("Misdiagnosis", "warning", "the optimizer is suspected, but this loss behaviour usually comes from "
              "the LR or the gradients"),),
        "'Need a different optimizer' is usually an LR or gradient issue; the loss curve is the evidence.",
        Cite("003", _M, "need different optimizer -> usually LR or gradient issue"), fix=FIX_VERIFY_OPT,
        avoid=("switching optimizer before an LR range test and a gradient-norm check",)),
    Row("DX-MIS-02", {"considering": OPTIMIZER_SWITCH, "loss_behavior": BAD_LOSS},
        (Find("Misdiagnosis", "warning", "an optimizer switch is proposed, but a wrong optimizer is rarely the "
              "issue; verify LR and gradients first"),),
        "Wrong optimizer is rarely the issue: verify first.",
        Cite("003", _F, "wrong optimizer -> rarely the issue, verify first"), fix=FIX_VERIFY_OPT,
        avoid=("switching optimizer before an LR range test and a gradient-norm check",)),
    Row("DX-MIS-03", {"considering": Contains("epoch", "longer"), "loss_behavior": "flat_from_start"},
        (Find("Misdiagnosis", "warning", "more epochs will not help: a flat loss is not underfitting, the run is "
              "not learning at all"),),
        "'Need more epochs' with a flat loss confuses not learning with underfitting.",
        Cite("003", _M, "need more epochs -> loss flat = not learning"), fix=FIX_GRAD_FLOW,
        avoid=("training longer on a flat loss",)),
    Row("DX-MIS-04", {"considering": Contains("bigger model", "larger model", "more parameters", "capacity"),
                      "symptom": "overfitting"},
        (Find("Misdiagnosis", "warning", "a bigger model makes overfitting worse: this is a data or "
              "regularization problem, not capacity"),),
        "'Model too small' on an overfitting run is usually data or regularization.",
        Cite("003", _M, "model too small -> usually data or regularization"), fix=FIX_REGULARIZE,
        avoid=("growing the model while validation lags training",)),
    Row("DX-MIS-05", {"self_diagnosis": Contains("batch"), "loss_behavior": BAD_LOSS},
        (Find("Misdiagnosis", "warning", "the batch size is suspected, but the LR has to move with the batch: "
              "adjust them together"),),
        "'Batch size too small' is usually an LR that was not adjusted with the batch.",
        Cite("003", _M, "batch size too small -> LR needs adjustment with batch"), fix=FIX_BATCH_LR,
        avoid=("changing the batch size without rescaling the LR",)),
    Row("DX-MIS-06", {"considering": Contains("random search", "randomly", "sweep")},
        (Find("Misdiagnosis", "warning", "a search is proposed for a run with a known symptom: diagnose it "
              "systematically first"),),
        "'Need to tune hyperparameters' with a symptom on the table calls for diagnosis, not a random search.",
        Cite("003", _M, "need to tune hyperparameters -> systematic diagnosis first"), need=(EVIDENCE,),
        fix=FIX_SYSTEMATIC, avoid=("random search as a substitute for diagnosis",)),
)


class ChanceRules:
    """The chance-level join: loss at init against ln(num_classes)."""

    @hand_rule("DX-CHANCE-01",
               Cite("003", _I, "not learning: loss near random chance = log(num_classes)"),
               "A loss within 10% of ln(num_classes) is chance level: the outputs are a uniform guess "
               f"(threshold: {CHANCE_BAND.describe()} relative deviation; {CHANCE_BAND.source}).",
               Obs(name="loss_at_init", value=MATCH.loss),
               Obs(name="num_classes", value=MATCH.n),
               TEST(lambda loss, n: CHANCE_BAND.test(abs(loss / math.log(n) - 1.0))),
               NOT(FlagFact(name="chance_level")),
               salience=Salience.DERIVE + 10)
    def chance(self, loss: Any, n: Any) -> None:
        """Mark chance level with the numbers, for the finding row and the report's notes."""
        ref = math.log(n)
        self.declare(FlagFact(name="chance_level", rule="DX-CHANCE-01",
                              detail=f"loss at init {loss:.3f} vs ln({n}) = {ref:.3f} "
                                     f"(deviation {abs(loss / ref - 1.0):.1%}, chance if {CHANCE_BAND.describe()})"))


MIXINS = (ChanceRules,)
