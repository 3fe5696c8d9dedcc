"""Fixes written for the user's set-up: the same remedy in their precision, framework and architecture.

A row's fix is written for a plain PyTorch loop. When what is known says the user trains in BF16, under
Lightning's or the Hugging Face ``Trainer``, or a transformer, the report shows the variant below instead: the
same remedy said as that set-up says it (a ``Trainer`` flag, a ``TrainingArguments`` field), never one that
contradicts it (BF16 needs no GradScaler; Kaiming init for ReLU is not a transformer's remedy). The first
variant whose conditions hold wins; conditions are read by the one check every row uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from knowledge.fixes import FIX_CLIP, FIX_LOADER, FIX_LR_DOWN, FIX_VANISH
from knowledge.record import dataclass
from knowledge.schema import Cond, CondLike, Fix, as_cond, cond_holds


@dataclass(frozen=True)
class FixVariant:
    """One rewording of a fix for a set-up.

    Attributes:
        of: The row id whose fix it replaces, or the shared ``Fix`` (every row that uses it).
        when: Conditions on observations (all must hold; an unknown observation does not).
        fix: The fix as that set-up writes it.
        why: Why this set-up needs its own wording.
    """

    of: str | Fix
    when: Mapping[str, CondLike]
    fix: Fix
    why: str
    conds: dict[str, Cond] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "conds", {k: as_cond(v) for k, v in self.when.items()})

    def applies(self, row_id: str, fix: Fix | None, values: Mapping[str, Any]) -> bool:
        """Whether this variant replaces ``fix`` of row ``row_id`` given the known values."""
        if self.of != row_id and self.of is not fix:
            return False
        return all(name in values and cond_holds(c, True, values[name]) for name, c in self.conds.items())


_BF16 = "BF16 has FP32's exponent range: it needs no loss scaling, and a GradScaler beside it only adds work."
_HF = "Under the Hugging Face Trainer these are TrainingArguments fields; the Trainer does the rest."
_PL = "Under Lightning these are Trainer flags and callbacks; the Trainer does the rest."

_TF = ("Transformers are built from residual blocks with LayerNorm and GELU; their gradient flow depends on where "
       "the norms sit and on the init scale, not on a ReLU gain.")
_FIX_VANISH_TF = Fix(
    "In a transformer the gradient reaches early blocks through the residual stream: check that every block adds "
    "its output to a residual path, that LayerNorm sits before attention and the MLP (pre-LN), and that the init "
    "is small (std 0.02, output projections scaled down with depth). ReLU-style Kaiming init is not the remedy "
    "here.",
    "import math\n"
    "for name, p in model.named_parameters():\n"
    "    if p.ndim >= 2:\n"
    "        torch.nn.init.normal_(p, std=0.02)\n"
    "    if name.endswith((\"out_proj.weight\", \"c_proj.weight\", \"o_proj.weight\")):\n"
    "        torch.nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layers))  # residual branches")

VARIANTS: tuple[FixVariant, ...] = (
    # --- weights stored in half precision --------------------------------------------------------------
    FixVariant("PR-FP16W-01", {"weights_dtype": "bf16", "framework": "hf"}, Fix(
        "Load the model in FP32 and let the Trainer autocast to BF16 (bf16=True); LoRA adapters stay FP32 unless "
        "the model is cast after they are added. No GradScaler: BF16 needs none.",
        "model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float32)\n"
        "args = TrainingArguments(output_dir=out, bf16=True)  # autocast to BF16, FP32 master weights"),
        _BF16 + " " + _HF),
    FixVariant("PR-FP16W-01", {"weights_dtype": "bf16", "framework": "lightning"}, Fix(
        "Keep the LightningModule in FP32 (drop .bfloat16() / .to(torch.bfloat16)) and let Lightning autocast: "
        "precision='bf16-mixed'. No GradScaler: BF16 needs none.",
        "trainer = pl.Trainer(precision=\"bf16-mixed\")  # FP32 weights, BF16 compute"),
        _BF16 + " " + _PL),
    FixVariant("PR-FP16W-01", {"weights_dtype": "bf16"}, Fix(
        "Keep the trainable parameters in FP32 and autocast the forward pass to BF16. No GradScaler: BF16 needs "
        "none.",
        "model = model.float()  # or only the trainable parameters: p.data = p.data.float()\n"
        "with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
        "    loss = loss_fn(model(x), y)\n"
        "loss.backward()\noptimizer.step()"), _BF16),
    FixVariant("PR-FP16W-01", {"weights_dtype": "fp16", "framework": "hf"}, Fix(
        "Load the model in FP32 and let the Trainer autocast to FP16 (fp16=True): it scales the loss itself.",
        "model = AutoModelForSequenceClassification.from_pretrained(name, torch_dtype=torch.float32)\n"
        "args = TrainingArguments(output_dir=out, fp16=True)  # autocast + loss scaling, FP32 master weights"), _HF),
    FixVariant("PR-FP16W-01", {"weights_dtype": "fp16", "framework": "lightning"}, Fix(
        "Keep the LightningModule in FP32 (drop .half()) and let Lightning autocast and scale the loss: "
        "precision='16-mixed'.",
        "trainer = pl.Trainer(precision=\"16-mixed\")  # FP32 weights, FP16 compute, loss scaling"), _PL),
    # --- FP16 without a loss scaler ------------------------------------------------------------------------
    FixVariant("AP-03", {"framework": "hf"}, Fix(
        "Let the Trainer do mixed precision: fp16=True autocasts and scales the loss (or bf16=True where the "
        "hardware has it, with no scaling at all).",
        "args = TrainingArguments(output_dir=out, fp16=True)  # or bf16=True on Ampere and newer"), _HF),
    FixVariant("AP-03", {"framework": "lightning"}, Fix(
        "Let Lightning do mixed precision: precision='16-mixed' autocasts and scales the loss (or 'bf16-mixed' "
        "where the hardware has it, with no scaling at all).",
        "trainer = pl.Trainer(precision=\"16-mixed\")  # or \"bf16-mixed\" on Ampere and newer"), _PL),
    # --- overfitting: stop early on the validation loss -------------------------------------------------
    FixVariant("MS-OVF-01", {"framework": "lightning"}, Fix(
        "Stop early on the validation loss and keep the best checkpoint (EarlyStopping and ModelCheckpoint), then "
        "add regularization.",
        "from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint\n"
        "trainer = pl.Trainer(callbacks=[EarlyStopping(monitor=\"val_loss\", patience=3),\n"
        "                                ModelCheckpoint(monitor=\"val_loss\", save_top_k=1)])"), _PL),
    FixVariant("MS-OVF-01", {"framework": "hf"}, Fix(
        "Stop early on the evaluation loss and load the best checkpoint at the end, then add regularization "
        "(weight_decay).",
        "from transformers import EarlyStoppingCallback\n"
        "args = TrainingArguments(output_dir=out, eval_strategy=\"steps\", save_strategy=\"steps\",\n"
        "                         load_best_model_at_end=True, metric_for_best_model=\"eval_loss\",\n"
        "                         weight_decay=0.01)\n"
        "trainer = Trainer(model=model, args=args, callbacks=[EarlyStoppingCallback(early_stopping_patience=3)])"),
        _HF),
    # --- gradient clipping ---------------------------------------------------------------------------------
    FixVariant(FIX_CLIP, {"framework": "lightning"}, Fix(
        "Clip the global gradient norm at 1.0: Lightning does it after unscaling when asked.",
        "trainer = pl.Trainer(gradient_clip_val=1.0, gradient_clip_algorithm=\"norm\")"), _PL),
    FixVariant(FIX_CLIP, {"framework": "hf"}, Fix(
        "Clip the global gradient norm at 1.0: max_norm is TrainingArguments.max_grad_norm (1.0 unless it was "
        "set to 0 or raised).",
        "args = TrainingArguments(output_dir=out, max_grad_norm=1.0)"), _HF),
    FixVariant("MS-GRAD-01", {"framework": "lightning"}, Fix(
        "Clip the global gradient norm before the optimizer step: Lightning does it after unscaling when asked.",
        "trainer = pl.Trainer(gradient_clip_val=1.0, gradient_clip_algorithm=\"norm\")"), _PL),
    FixVariant("MS-GRAD-01", {"framework": "hf"}, Fix(
        "Clip the global gradient norm before the optimizer step: TrainingArguments.max_grad_norm (1.0 unless it "
        "was set to 0 or raised).",
        "args = TrainingArguments(output_dir=out, max_grad_norm=1.0)"), _HF),
    # --- LR too high -----------------------------------------------------------------------------------------
    FixVariant(FIX_LR_DOWN, {"framework": "hf"}, Fix(
        "Lower the peak LR (3-10x) and warm up over the first 1-5% of steps: both are TrainingArguments fields.",
        "# warmup_steps takes a fraction of the run on transformers >= 5 (warmup_ratio=0.03 before)\n"
        "args = TrainingArguments(output_dir=out, learning_rate=old_lr / 5, warmup_steps=0.03)"), _HF),
    FixVariant(FIX_LR_DOWN, {"framework": "lightning"}, Fix(
        "Lower the peak LR (3-10x) and warm up over the first 1-5% of steps, stepping the scheduler every step.",
        "def configure_optimizers(self):\n"
        "    opt = torch.optim.AdamW(self.parameters(), lr=self.lr / 5)\n"
        "    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=warmup_steps)\n"
        "    return {\"optimizer\": opt, \"lr_scheduler\": {\"scheduler\": warm, \"interval\": \"step\"}}"), _PL),
    # --- data loading ------------------------------------------------------------------------------------------
    FixVariant(FIX_LOADER, {"framework": "hf"}, Fix(
        "Feed the device faster: loader workers, pinned memory and persistent workers are TrainingArguments "
        "fields.",
        "args = TrainingArguments(output_dir=out, dataloader_num_workers=8, dataloader_pin_memory=True,\n"
        "                         dataloader_persistent_workers=True, dataloader_prefetch_factor=4)"), _HF),
    # --- vanishing gradients in a transformer ---------------------------------------------------------
    *(FixVariant(of, {"architecture": "transformer"}, _FIX_VANISH_TF, _TF) for of in (FIX_VANISH, "MS-GRAD-02")),
)
"""Every variant, first match wins: more specific conditions come first."""


def fix_for(row_id: str, fix: Fix | None, values: Mapping[str, Any]) -> tuple[Fix | None, FixVariant | None]:
    """The fix to show for row ``row_id`` given what is known, and the variant chosen (None: the row's own).

    Args:
        row_id: The row whose fix is shown.
        fix: The row's own fix.
        values: Known observation values by name.
    """
    for v in _candidates(row_id, fix):
        if v.applies(row_id, fix, values):
            return v.fix, v
    return fix, None


_INDEX: list[Any] = []
"""``[VARIANTS, by row id, by id of the shared Fix]``, built at the first lookup: a report looks up the fix of
every row that fired, and each lookup reads only the variants of that row or of its fix, not every variant."""


def _candidates(row_id: str, fix: Fix | None) -> list[FixVariant]:
    """The variants that may replace ``fix`` of row ``row_id``, in ``VARIANTS``' order (``applies`` decides)."""
    if not _INDEX or _INDEX[0] is not VARIANTS:
        by_row: dict[str, list[tuple[int, FixVariant]]] = {}
        by_fix: dict[int, list[tuple[int, FixVariant]]] = {}
        for i, v in enumerate(VARIANTS):
            if isinstance(v.of, str):
                by_row.setdefault(v.of, []).append((i, v))
            else:  # a shared Fix, named by identity (``applies`` compares with ``is``); VARIANTS keeps it alive
                by_fix.setdefault(id(v.of), []).append((i, v))
        _INDEX[:] = [VARIANTS, by_row, by_fix]
    found = _INDEX[1].get(row_id, []) + _INDEX[2].get(id(fix), [])
    return [v for _, v in sorted(found, key=lambda iv: iv[0])]


__all__ = ["VARIANTS", "FixVariant", "fix_for"]
