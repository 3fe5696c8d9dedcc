"""Configuration lint: expert anti-patterns recognised from configuration facts alone, each with a fix.

These rows need no symptom: a configuration is checked as soon as it is described (or probed). Each finding
has a severity, a fix with code, what not to do, and the seed (002) bullet it encodes; thresholds carry their
source. The stance of the seeds is kept: AdamW + warmup/cosine + BF16 is the default, a modern optimizer is a
symptom-driven choice with its own hyperparameter scale.
"""

from __future__ import annotations

from knowledge.measurements import ge, gt, le
from knowledge.schema import Cite, Cross, Find, Fix, Gt, Is, RouteTo, Row, Salience, measured_form

_A = "Anti-patterns: what not to do"
_C = "Configuration"
ADAM_FAMILY = Is("adam", "adamw", "adamw_8bit", "paged_adamw", "lamb", "ademamix")


def _c(table: str, row: str) -> Cite:
    return Cite("002", table, row)


def _lint(severity: str, issue: str) -> Find:
    """Build a configuration-lint finding (it routes, but a cause or symptom of the run leads the plan)."""
    return Find(_C, severity, issue, kind="lint")


# FP16 without loss scaling is one cause whether the user says so or the probe measures the underflow it
# produces: one entry, two kinds of evidence (``knowledge.schema.measured_form``). It is a defect of the run,
# not a style lint, so it leads like any evidenced cause (listed with the causes, ``knowledge.causes``).
AP_03 = Row(
    "AP-03", {"mixed_precision": "fp16", "grad_scaler": False},
    (Find("Precision", "critical", "FP16 training without loss scaling: small gradients underflow to exactly "
          "zero and training silently degrades"),
     RouteTo("batch-size-and-memory-tradeoffs", "primary", "loss scaling or BF16", section="precision"),
     RouteTo("gradient-management", "secondary", "gradient scaling"),
     Cross("pytorch-engineering", "the autocast / GradScaler API itself lives there; the precision strategy "
           "stays here", joint=True, target="mixed-precision-and-optimization")),
    "FP16's narrow exponent range flushes small gradients to zero unless the loss is scaled.",
    _c(_A, "do not use FP16 without loss scaling"), salience=Salience.CAUSE,
    fix=Fix("Use a dynamic GradScaler (or switch to BF16, which needs none).",
            "scaler = torch.amp.GradScaler(\"cuda\")\n"
            "with torch.autocast(\"cuda\", dtype=torch.float16):\n"
            "    loss = loss_fn(model(x), y)\n"
            "scaler.scale(loss).backward()\n"
            "scaler.unscale_(opt); torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
            "scaler.step(opt); scaler.update(); opt.zero_grad(set_to_none=True)"),
    unless=("finding:MS-FP16-01",), avoid=("FP16 autocast without a GradScaler",
                                           "training pure FP16 weights without scaling"))
MS_FP16_01 = measured_form(
    AP_03, "MS-FP16-01", {"grad_underflow_fraction": gt("MT-UNDERFLOW"), "mixed_precision": "fp16"},
    cite=Cite("002", "anti-patterns", "FP16 without loss scaling: the underflowed gradient fraction"))

ROWS = (
    Row("AP-01", {"optimizer": "adam", "weight_decay": Gt(0, source="002 · any non-zero weight decay with Adam "
                                                                  "is coupled L2, not true weight decay")},
        (_lint("warning", "Adam with weight decay applies it as L2 through the adaptive scaling: use AdamW "
              "(decoupled weight decay)"),
         RouteTo("optimization-algorithms", "primary", "AdamW and decoupled weight decay")),
        "Adam's weight decay is scaled by the second moment, so it does not regularize as intended; AdamW "
        "decouples it.",
        _c(_A, "do not use Adam with weight decay: use AdamW"),
        fix=Fix("Swap Adam for AdamW with the same LR; keep weight decay off biases and norm weights.",
                "decay = [p for n, p in model.named_parameters() if p.ndim >= 2]\n"
                "no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]\n"
                "opt = torch.optim.AdamW([{\"params\": decay, \"weight_decay\": 0.05},\n"
                "                         {\"params\": no_decay, \"weight_decay\": 0.0}], lr=lr)"),
        avoid=("torch.optim.Adam(..., weight_decay=...) as a regularizer",)),
    Row("AP-02", {"architecture": "transformer", "optimizer": ADAM_FAMILY, "warmup": False},
        (_lint("warning", "a transformer trained with an Adam-family optimizer and no LR warmup: early updates "
              "are large and poorly directed"),
         RouteTo("learning-rate-scheduling", "primary", "warmup then decay for Adam-family transformers")),
        "Adam's early moment estimates are noisy; transformers need a warmup to avoid damaging early steps.",
        _c("Learning rate schedules: warmup", "essential for Adam-family optimizers with transformers"),
        fix=Fix("Warm up linearly over the first 1-5% of steps, then decay (cosine).",
                "warmup_steps = int(0.02 * total_steps)\n"
                "warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=warmup_steps)\n"
                "decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total_steps - warmup_steps)\n"
                "sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[warmup_steps])"),
        avoid=("starting a transformer at its peak LR from step 0",),
        unless=("finding:DF-SUS-WARMUP",)),  # in a run that spikes or diverges the same cause is the run's lead
    Row("AP-04", {"mixed_precision": "fp16", "bf16_supported": True},
        (_lint("info", "FP16 on hardware that supports BF16: BF16 has FP32's exponent range, needs no loss scaling "
              "and is the default"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "BF16 instead of FP16", section="precision")),
        "Where BF16 is supported it is simpler and more stable than FP16 at comparable speed.",
        _c("Mixed precision: when to use which", "BF16 if the hardware supports it"),
        fix=Fix("Autocast to bfloat16 and drop the GradScaler.",
                "with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
                "    loss = loss_fn(model(x), y)\n"
                "loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)"),
        avoid=("keeping FP16 and loss-scale tuning on Ampere-or-newer GPUs",)),
    Row("AP-05", {"optimizer": "lion",
                  "learning_rate": gt("MT-LION-LR")},
        (_lint("warning", "Lion at an AdamW-sized LR: its sign updates have unit magnitude, so it needs a 3-10x "
              "lower LR"),
         RouteTo("optimization-algorithms", "primary", "Lion's own LR and weight-decay scale"),
         RouteTo("learning-rate-scheduling", "secondary", "re-tune the peak LR for Lion")),
        "Lion's update has the same magnitude in every coordinate; an AdamW-sized LR makes its steps too large.",
        _c("Optimizers: Lion", "requires 3-10x lower LR than AdamW"),
        fix=Fix("Divide the AdamW LR by 3-10 for Lion (and raise weight decay by the same factor).",
                "from lion_pytorch import Lion\n"
                "opt = Lion(model.parameters(), lr=adamw_lr / 5, weight_decay=adamw_wd * 5)"),
        avoid=("reusing the AdamW learning rate for Lion",)),
    Row("AP-06", {"optimizer": "lion",
                  "weight_decay": le("MT-LION-WD")},
        (_lint("warning", "Lion with AdamW-sized (or smaller) weight decay: with its lower LR the effective decay "
              "(LR x weight decay) becomes too weak"),
         RouteTo("optimization-algorithms", "primary", "Lion's own LR and weight-decay scale")),
        "Decoupled decay acts through LR x weight decay; Lion's lower LR needs a proportionally higher decay.",
        _c("Optimizers: Lion", "requires higher weight decay than AdamW"),
        fix=Fix("Scale the weight decay up by the factor the LR went down (3-10x).",
                "opt = Lion(model.parameters(), lr=adamw_lr / 5, weight_decay=adamw_wd * 5)"),
        avoid=("reusing the AdamW weight decay for Lion",)),
    Row("AP-07", {"optimizer": Is("adam", "adamw"),
                  "batch_size": ge("MT-LAMB-BATCH")},
        (_lint("warning", "Adam/AdamW at a very large batch (32K or more): per-layer trust ratios (LAMB) keep "
              "large-batch training stable"),
         RouteTo("optimization-algorithms", "primary", "LAMB for very large batches"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "batch size and LR scaling")),
        "At 32K+ batches Adam's uniform step becomes unstable in some layers; LAMB scales each layer's update.",
        _c("Optimizers: LAMB", "large-batch pretraining (32K-64K) where Adam diverges"),
        fix=Fix("Use a LAMB implementation with warmup (or keep AdamW and reduce the batch with accumulation "
                "counted in).",
                "from torch_optimizer import Lamb\n"
                "opt = Lamb(model.parameters(), lr=lr, weight_decay=0.01)"),
        avoid=("scaling the batch to 32K+ with plain Adam and no schedule changes",)),
    Row("AP-08", {"tuning_method": "one_at_a_time"},
        (_lint("warning", "hyperparameters tuned one at a time: LR, weight decay and batch size interact, so "
              "one-dimensional sweeps miss good configurations"),
         RouteTo("hyperparameter-tuning", "primary", "a joint search strategy (random, then Bayesian)")),
        "Interacting hyperparameters have to be searched jointly.",
        _c(_A, "do not tune hyperparameters one at a time"),
        fix=Fix("Search LR and weight decay jointly on a log scale (random first, then Bayesian); tune LR first, "
                "then batch size, then regularization.",
                "import optuna\n"
                "def objective(trial):\n"
                "    lr = trial.suggest_float(\"lr\", 1e-5, 1e-2, log=True)\n"
                "    wd = trial.suggest_float(\"weight_decay\", 1e-4, 1e-1, log=True)\n"
                "    return train_and_validate(lr=lr, weight_decay=wd)\n"
                "optuna.create_study(direction=\"minimize\").optimize(objective, n_trials=40)"),
        avoid=("grid searches over one hyperparameter while the others stay fixed",)),
    Row("AP-09", {"grad_norm_monitored": False},
        (_lint("warning", "gradient norms are not monitored: spikes that warn of instability go unseen"),
         RouteTo("gradient-management", "primary", "monitor the gradient norm every step"),
         RouteTo("experiment-tracking", "secondary", "log it with the loss")),
        "Gradient-norm spikes are the early warning of instability; they have to be logged to be seen.",
        _c(_A, "do not ignore gradient norm monitoring"),
        fix=Fix("Log the global gradient norm every step (clip_grad_norm_ returns it).",
                "gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
                "logger.log({\"grad_norm\": gnorm.item(), \"loss\": loss.item()}, step=step)"),
        avoid=("training without a gradient-norm curve",)),
    Row("AP-10", {"init_scheme": Is("xavier", "normal", "uniform"), "activation": Is("relu", "leaky_relu")},
        (_lint("warning", "ReLU-family activations with an initialization not designed for them: activations "
              "shrink layer by layer; Kaiming (He) initialization matches ReLU"),
         RouteTo("gradient-management", "primary", "initialization matched to the activation")),
        "ReLU zeroes half its inputs; Kaiming's 2/fan_in variance compensates, Xavier's does not.",
        _c("Weight initialization: practical guidelines", "Kaiming for ReLU networks"),
        fix=Fix("Initialize with Kaiming for ReLU-family layers.",
                "for m in model.modules():\n"
                "    if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d)):\n"
                "        torch.nn.init.kaiming_normal_(m.weight, mode=\"fan_in\", nonlinearity=\"relu\")\n"
                "        if m.bias is not None: torch.nn.init.zeros_(m.bias)"),
        avoid=("Xavier initialization for a deep ReLU network",)),
    Row("AP-11", {"init_scheme": "kaiming", "activation": Is("tanh", "sigmoid")},
        (_lint("warning", "tanh/sigmoid activations with Kaiming initialization: pre-activations are too large and "
              "saturate; Xavier (Glorot) matches them"),
         RouteTo("gradient-management", "primary", "initialization matched to the activation")),
        "Kaiming's larger variance pushes tanh/sigmoid into saturation; Xavier keeps them in their linear range.",
        _c("Weight initialization: practical guidelines", "Xavier for tanh/sigmoid networks"),
        fix=Fix("Initialize with Xavier for tanh/sigmoid layers.",
                "for m in model.modules():\n"
                "    if isinstance(m, torch.nn.Linear):\n"
                "        torch.nn.init.xavier_uniform_(m.weight, gain=torch.nn.init.calculate_gain(\"tanh\"))\n"
                "        if m.bias is not None: torch.nn.init.zeros_(m.bias)"),
        avoid=("Kaiming initialization for saturating activations",)),
    Row("AP-12", {"grad_accum_steps": Gt(1, source="002 · accumulation over more than one micro-batch sums the "
                                                   "gradients"),
                  "loss_scaled_for_accum": False},
        (_lint("warning", "gradient accumulation without dividing the loss: gradients are summed, so the effective "
              "LR is multiplied by the accumulation steps"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "gradient accumulation done right"),
         RouteTo("training-loop-architecture", "secondary", "where the loop divides, steps and zeroes")),
        "Accumulated gradients add up; the loss must be divided by the number of micro-steps to average them.",
        _c("Gradient accumulation", "divide by the number of accumulation steps"),
        fix=Fix("Divide each micro-batch loss by the accumulation steps; step and zero every N micro-batches.",
                "for i, (x, y) in enumerate(loader):\n"
                "    loss = loss_fn(model(x), y) / accum_steps\n"
                "    loss.backward()\n"
                "    if (i + 1) % accum_steps == 0:\n"
                "        opt.step(); opt.zero_grad(set_to_none=True)"),
        avoid=("summing accumulated gradients and keeping the single-batch LR",),
        salience=Salience.CAUSE),
    Row("AP-13", {"mixed_precision": "none", "bf16_supported": True},
        (_lint("info", "training in FP32 on hardware with BF16: BF16 autocast is the default and roughly halves "
              "activation memory and step time"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "BF16 autocast by default", section="precision")),
        "AdamW + cosine + BF16 is the default; FP32 is for debugging numerics or tiny models.",
        _c("Mixed precision: when to use which", "FP32 only for debugging or very small models"),
        fix=Fix("Wrap the forward pass in BF16 autocast; parameters and optimizer state stay FP32.",
                "with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
                "    loss = loss_fn(model(x), y)\n"
                "loss.backward()"),
        avoid=("FP32 training by default on BF16-capable GPUs",)),
)
