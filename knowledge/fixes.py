"""Fixes shared by several rows: an explanation and code a PyTorch user can paste (our own code)."""

from __future__ import annotations

from knowledge.schema import Fix

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

NOT_LEARN_AVOID = ("training for more epochs or switching optimizer before checking gradient flow",)
