"""The observation vocabulary: every fact name trainopt accepts, its type, allowed values, unit and help.

This table is the single source of truth for validation (API, CLI, JSON, probes), for ``trainopt facts``
and for the questions (each entry names the question that asks for it, if any). It imports nothing
heavy: ``trainopt --help`` and ``trainopt facts`` must stay fast.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import field
from functools import cache
from typing import Any

from knowledge.errors import VocabularyError
from knowledge.record import dataclass

ENUM, FLOAT, INT, BOOL, STR = "enum", "float", "int", "bool", "str"

_TRUE = {"true", "yes", "y", "1", "on"}
_FALSE = {"false", "no", "n", "0", "off", "none"}


@dataclass(frozen=True)
class Spec:
    """One observation name.

    Attributes:
        name: The fact name.
        kind: One of ``enum``, ``float``, ``int``, ``bool``, ``str``.
        help: What it means, in one line.
        choices: Allowed values for ``enum``.
        low: Inclusive lower bound for numbers (None: unbounded).
        high: Inclusive upper bound for numbers (None: unbounded).
        low_open: True when ``low`` itself is excluded (e.g. a learning rate > 0).
        unit: Unit of a number, for display.
        question: Id of the question that asks for it, if any.
        group: Family, for display (``symptom``, ``config``, ``metrics``, ``judgement``, ``probe``).
    """

    name: str
    kind: str
    help: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    unit: str = ""
    question: str | None = None
    group: str = "config"

    def allowed(self) -> str:
        """Describe the allowed values in words, for error messages and ``trainopt facts``."""
        if self.kind == ENUM:
            return ", ".join(self.choices)
        if self.kind == BOOL:
            return "true or false (yes/no)"
        if self.kind == STR:
            return "any non-empty text"
        lo = "-inf" if self.low is None else f"{self.low:g}"
        hi = "inf" if self.high is None else f"{self.high:g}"
        right = ")" if self.high is None else "]"
        if self.kind == INT and self.high is None:
            hi, right = "2^63-1", "]"  # MAX_INT: a count beyond it is a typo
        left = "(" if (self.low is None or self.low_open) else "["
        what = "an integer" if self.kind == INT else "a finite number"
        return f"{what} in {left}{lo}, {hi}{right}" + (f" {self.unit}" if self.unit else "")

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready description of this entry."""
        d: dict[str, Any] = {"name": self.name, "type": self.kind, "help": self.help, "group": self.group}
        if self.choices:
            d["choices"] = list(self.choices)
        if self.kind in (INT, FLOAT):
            d["min"], d["max"] = self.low, self.high
            if self.low_open:
                d["min_exclusive"] = True
        if self.unit:
            d["unit"] = self.unit
        d["question"] = self.question
        d["allowed"] = self.allowed()
        return d


def _e(name: str, choices: str, help: str, **kw: Any) -> Spec:
    return Spec(name, ENUM, help, choices=tuple(choices.split()), **kw)


def _f(name: str, help: str, **kw: Any) -> Spec:
    return Spec(name, FLOAT, help, **kw)


def _i(name: str, help: str, **kw: Any) -> Spec:
    return Spec(name, INT, help, **kw)


def _b(name: str, help: str, **kw: Any) -> Spec:
    return Spec(name, BOOL, help, **kw)


def _s(name: str, help: str, **kw: Any) -> Spec:
    return Spec(name, STR, help, **kw)


OPTIMIZERS = (
    "sgd sgd_momentum adam adamw lamb lion sophia muon shampoo ademamix schedule_free prodigy "
    "adamw_8bit paged_adamw other"
)

SPECS: tuple[Spec, ...] = (
    # --- what the user is facing -------------------------------------------------------------------
    _e("symptom", "not_learning unstable overfitting slow_training direct_question experiment_tracking "
       "new_setup convergence multi_task out_of_scope crash hang memory_growth metrics_wrong data_problem",
       "The primary symptom or request.", question="Q-SYMPTOM", group="symptom"),
    _e("vague_query", "fix_training improve_model not_working_well optimize_hyperparameters performs_poorly "
       "modern_optimizer preference_not_working",
       "A request too vague to route (clarification protocol).", group="symptom"),
    _e("improve_target", "speed accuracy generalization",
       "What the user wants improved.", question="Q-CLARIFY-IMPROVE", group="symptom"),
    _e("poor_split", "train val both",
       "Which accuracy is poor: training, validation, or both.", question="Q-CLARIFY-POOR", group="symptom"),
    _e("hparam_scope", "all specific learning_rate",
       "Which hyperparameters the user wants tuned.", question="Q-CLARIFY-HPARAMS", group="symptom"),
    _e("preference_issue", "method_side dynamics_side",
       "For a preference-tuning run (DPO, GRPO...): a method-side or a training-dynamics issue.",
       question="Q-CLARIFY-DPO", group="symptom"),
    _e("loss_behavior", "flat_from_start decreasing_slowly plateau_after_learning oscillating spiking "
       "diverging nan_or_inf decreasing_normally",
       "How the training loss behaves over time.", question="Q-LOSS-BEHAVIOR", group="symptom"),
    _e("nan_onset", "immediate after_steps", "When NaN/Inf first appears.", question="Q-NAN-ONSET",
       group="symptom"),
    _i("nan_step", "The step at which NaN/Inf first appeared.", low=0, unit="steps", group="symptom"),
    _e("nan_phase", "training evaluation",
       "Which pass shows the NaN/Inf: 'training' (the training loss or step), or 'evaluation' only (validation, "
       "test or inference loss or metrics, while the training loss stays finite); said or declared, not asked: "
       "the questions on where the NaN starts come first.", group="symptom"),
    _b("box_loss_nonfinite", "In a detector, the box-regression term of the loss (loss_box_reg, loss_bbox, a GIoU "
       "loss) is the one said to turn NaN or inf, not the classification term; said or declared, not asked: the "
       "question on the boxes themselves confirms it.", group="symptom"),
    _e("nan_location", "inputs labels activations loss gradients weights optimizer_state",
       "Where the first non-finite value was found.", question="Q-NAN-LOCATION", group="symptom"),
    _e("recent_change", "learning_rate batch_size gpu_count precision resume extended library_upgrade data_pipeline "
       "model training_loop none",
       "What changed just before the problem started ('learning_rate': the LR was raised, or changed without "
       "saying which way, a lowered one being no such change; 'extended': a finished run continued for more "
       "epochs or steps than it was planned for; 'training_loop': the loop's code was edited, e.g. a scheduler, "
       "accumulation or a second optimizer wired in; 'none': it was always like this).", question="Q-CHANGE",
       group="judgement"),
    _b("accum_step_rate_drop", "Optimizer steps per second (it/s) fell after gradient accumulation was raised, or a "
       "run with more accumulation steps shows fewer it/s than one with fewer: each step now runs that many "
       "micro-batches.", group="symptom"),
    _e("slow_kind", "per_step many_steps",
       "Slow per step (low throughput), or just many steps needed.", question="Q-SLOW-KIND", group="symptom"),
    _e("tracking_scope", "in_flight registry",
       "Tracking during training (in flight), or a long-lived model registry / lineage after it.",
       question="Q-TRACK-SCOPE", group="symptom"),
    _e("question_topic", "optimizer learning_rate schedule batch_size precision loss_function overfitting "
       "augmentation tuning tracking mup sharding preference_method architecture deployment "
       "memory_optimizer training_loop clipping",
       "The subject of a direct 'which X should I use?' question.", question="Q-TOPIC", group="symptom"),
    _s("considering", "An optimizer or technique the user wants to switch to.", group="judgement"),
    _e("pressure", "time authority self_diagnosis expert_user quick_question",
       "Pressure to skip diagnosis.", group="judgement"),
    _s("self_diagnosis", "The cause the user names themselves (a hypothesis, never evidence).",
       group="judgement"),
    _s("error_text", "An error message from the run (drives cross-pack boundaries).", group="symptom"),
    # --- configuration -----------------------------------------------------------------------------
    _e("optimizer", OPTIMIZERS, "Optimizer in use.", question="Q-OPTIMIZER"),
    _f("learning_rate", "Peak learning rate.", low=0.0, high=10.0, low_open=True, question="Q-LR"),
    _f("weight_decay", "Weight decay coefficient.", low=0.0, high=10.0),
    _b("warmup", "Whether a learning-rate warmup is used."),
    _e("lr_schedule", "none step cosine wsd linear onecycle plateau exponential other",
       "Learning-rate schedule.", question="Q-SCHEDULE"),
    _i("batch_size", "Per-step batch size.", low=1, question="Q-BATCH-SIZE"),
    _b("memory_limited", "Batch size is capped by GPU memory (OOM if raised).", question="Q-MEMORY"),
    _e("mixed_precision", "none fp16 bf16 fp8", "Mixed-precision mode.", question="Q-PRECISION"),
    _b("grad_scaler", "A loss scaler (GradScaler or equivalent) is used."),
    _b("bf16_supported", "The hardware supports BF16 (Ampere or newer, TPU)."),
    _b("grad_clipping", "Gradient clipping is applied."),
    _b("grad_norm_monitored", "Gradient norms are logged/monitored."),
    _i("grad_accum_steps", "Gradient-accumulation micro-steps per optimizer step.", low=1),
    _b("loss_scaled_for_accum", "The loss is divided by the accumulation steps."),
    _b("accum_token_mean", "Gradient accumulation does not reproduce the larger batch because each micro-batch's "
       "loss is a mean over its own tokens (or labelled positions): with unequal counts (variable lengths, padding, "
       "masked prompts) the tokens of a short micro-batch weigh more than in one large batch."),
    _b("grad_accumulation", "Gradients are accumulated over several micro-batches per optimizer step (the count "
       "need not be known)."),
    _e("accum_wiring", "per_micro_batch around_loop",
       "Where the accumulation context of a framework (accelerator.accumulate, DDP no_sync) is entered: once per "
       "micro-batch inside the loop, or once around the whole loop ('around_loop': its step and sync bookkeeping "
       "never advances).", question="Q-ACCUM-WIRING", group="loop"),
    _e("init_scheme", "default kaiming xavier orthogonal normal uniform other", "Weight initialization."),
    _e("activation", "relu leaky_relu gelu silu tanh sigmoid other", "Dominant hidden activation."),
    _e("tuning_method", "one_at_a_time grid random bayesian pbt manual none",
       "How hyperparameters are being searched."),
    _e("regularization", "none dropout weight_decay early_stopping augmentation several",
       "Regularization currently in use.", question="Q-REGULARIZATION"),
    _b("heavy_augmentation", "Heavy (CPU-bound) data augmentation is in use.", question="Q-AUGMENTATION"),
    _b("resume_training", "Training will be resumed or extended later (favours WSD/schedule-free)."),
    _b("multi_gpu", "Training runs on several GPUs.", question="Q-MULTI-GPU"),
    # --- data and model ----------------------------------------------------------------------------
    _i("dataset_size", "Number of training examples.", low=0, question="Q-DATASET-SIZE", group="data"),
    _f("train_metric", "Training metric (accuracy or another score in [0, 1], or a loss).", low=0.0, group="metrics",
       question="Q-TRAIN-VAL"),
    _f("val_metric", "Validation metric (same kind as train_metric).", low=0.0, group="metrics"),
    # ('score': a bounded metric where higher is better that is no accuracy, F1, AUC, mAP, IoU, Dice, BLEU: its
    # train/validation gap reads as an accuracy's does, but not its chance level, which depends on the metric)
    _e("metric_kind", "accuracy loss score", "Kind of train/val metric ('score': F1, AUC, mAP, IoU, Dice, BLEU "
       "and other higher-is-better figures in [0, 1] that are no accuracy).", group="metrics"),
    _s("loss_fn", "Loss function in use (e.g. cross_entropy, mse, custom).", question="Q-LOSS-FN"),
    _b("custom_loss", "A hand-written loss function is used.", question="Q-CUSTOM-LOSS"),
    _i("num_classes", "Number of classes (classification).", low=2, group="data"),
    _i("num_outputs", "How many outputs (logits) the model's head gives per example (Hugging Face num_labels, the "
       "last layer's out_features).", low=1, group="data"),
    _f("loss_at_init", "Loss value at initialization (first steps).", group="metrics"),
    _i("model_params", "Number of trainable parameters.", low=0, group="data"),
    _e("architecture", "cnn transformer rnn mlp gnn other", "Model family.", question="Q-ARCHITECTURE",
       group="data"),
    _e("task", "classification regression language_modeling rl preference_tuning detection segmentation "
       "generation other", "Task type.", question="Q-TASK", group="data"),
    # --- measurements (user-reported or probed) ----------------------------------------------------
    _f("gpu_utilization_pct", "GPU utilization during training.", low=0.0, high=100.0, unit="%",
       question="Q-GPU-UTIL", group="metrics"),
    _f("data_time_fraction", "Fraction of step time spent waiting for data.", low=0.0, high=1.0,
       group="metrics"),
    _e("grad_norm_trend", "exploding vanishing spiky normal", "Gradient-norm pattern over steps.",
       question="Q-GRAD-NORMS", group="metrics"),
    _i("frozen_params", "Parameters with requires_grad=False.", low=0, group="metrics"),
    _i("params_without_grad", "Trainable parameters that received no gradient.", low=0, group="metrics"),
    # --- judgement layer (issue 3: pressure, clarification, boundaries, lint) -- add entries below ---
    _e("not_working_aspect", "loss accuracy convergence_speed",
       "For 'training is not working well': what is not working.", question="Q-CLARIFY-WORKING",
       group="judgement"),
    _e("switch_reason", "none memory instability slow_convergence large_batch tuning_cost",
       "The symptom behind a wish to switch away from AdamW ('none': only that the optimizer is newer).",
       question="Q-CLARIFY-MODERN", group="judgement"),
    _e("concern", "cuda_oom distributed_api compile_error amp_api architecture_choice model_wont_load "
       "inference_speed deployment model_registry rl_exploration preference_method rlhf",
       "A concern another pack owns (cross-pack boundary), read from the complaint.", group="judgement"),
    _b("loss_scale_issue", "The loss scale collapses or low-precision gradients underflow (FP16/FP8).",
       group="judgement"),
    # --- probe measurements (issue 4) -- add entries below ---
    _f("loss_init_ratio", "Loss at initialization divided by ln(num_classes) (1.0 = chance).", low=0.0,
       group="probe"),
    _b("negative_loss", "A loss that must be non-negative (cross-entropy, NLL, BCE, MSE) measured below zero.",
       group="probe"),
    _f("grad_norm_global", "Global L2 norm of all gradients (median over the probed steps); for a loss starting "
       "above MT-GRAD-LOSS-REF (summed over many elements), per that much of the starting loss.", low=0.0,
       group="probe"),
    _b("grad_norm_steady_rise", "The gradient norm went over MT-GRAD-EXPLODE-ABS only by a gradual rise from a "
       "start under it: no spike, less than MT-GRAD-RISE times its start.", group="probe"),
    _b("grad_norm_follows_loss", "The gradient norm rose steadily over MT-GRAD-EXPLODE-ABS while the loss falls "
       "normally: the loss's own scale as it sharpens, not exploding gradients.", group="probe"),
    _f("grad_layer_ratio", "Gradient norm of the first layer divided by that of the last layer.", low=0.0,
       group="probe"),
    _i("params_missing_from_optimizer", "Trainable parameters in no optimizer param group.", low=0,
       group="probe"),
    _f("frozen_fraction", "Fraction of parameter elements with requires_grad=False.", low=0.0, high=1.0,
       group="probe"),
    _s("nonfinite_module", "First module whose forward output held NaN/Inf.", group="probe"),
    _f("dead_relu_fraction", "Largest per-layer fraction of ReLU units that never fire on a batch.", low=0.0,
       high=1.0, group="probe"),
    _b("dead_units_spare", "Part of a layer's ReLUs are dead (short of MT-DEAD-RELU-ALL) while the loss falls "
       "normally: the live units carry the learning.", group="probe"),
    _f("saturation_fraction", "Largest per-layer fraction of saturated tanh/sigmoid outputs.", low=0.0, high=1.0,
       group="probe"),
    _f("update_ratio", "Median over layers of |weight update| / |weight| per optimizer step.", low=0.0,
       group="probe"),
    _f("loss_multiplier", "What the loss reaching backward was multiplied by, read from the gradient at the "
       "model's output with a GradScaler's scale divided out (1 for a plain loss, 1/k averaging k micro-batches).",
       low=0.0, group="probe"),
    _f("generalization_gap", "Training accuracy minus validation accuracy (fraction).", low=-1.0, high=1.0,
       group="probe"),
    _e("gap_trend", "widening stable narrowing", "How the train/validation gap moves over the run.",
       group="probe"),
    _f("val_acc_over_chance", "Validation accuracy divided by chance accuracy 1/num_classes (1.0 = chance).",
       low=0.0, group="probe"),
    _e("output_activation", "none softmax log_softmax sigmoid",
       "Activation already applied to the model output before the loss.", question="Q-OUTPUT-ACT", group="probe"),
    _f("adam_eps", "The eps of an Adam-family optimizer.", low=0.0, low_open=True, group="probe"),
    _b("model_eval_mode", "The model (or a dropout/normalization layer) was in eval mode while training.",
       group="probe"),
    _f("grad_carryover", "Gradient left over from earlier steps relative to one fresh gradient (0 = zeroed).",
       low=0.0, group="probe"),
    _f("input_scale", "Scale of the float inputs: max(|mean|, std) over the batch.", low=0.0, group="probe"),
    _f("grad_underflow_fraction", "Fraction of low-precision gradient elements that are exactly zero.",
       low=0.0, high=1.0, group="probe"),
    # --- issue 9 (probes): weight norms, validation loss against the training loss ---
    _f("weight_norm_ratio", "Global norm of the weight matrices now over its value when first measured.", low=0.0,
       group="probe"),
    _f("decay_share", "Weight decay's shrink of the weights per step over their measured relative update per step "
       "(at or above 0.5 the decay is most of what moves them).", low=0.0, group="probe"),
    _e("step_grads", "present none zero",
       "What the optimizer finds in .grad when it steps, over the run: 'none' (no trainable parameter has a "
       "gradient: cleared with set_to_none, or never computed), 'zero' (every gradient is exactly zero).",
       group="probe"),
    _b("val_loss_rising", "Validation loss has risen well above its best while the training loss kept falling.",
       group="probe"),
    # --- issue 8: complaint understanding -- add entries below ---
    _e("boundary_topic", "cuda_oom amp_api distributed_error compile_error checkpoint_load device_mismatch "
       "dtype_mismatch shape_mismatch autograd_error cuda_assert "
       "dataloader_failure pickling collective_timeout distributed_hang recompile_limit cuda_graphs memory_growth "
       "profiling data_loading custom_autograd quantization llm_finetuning",
       "A problem another pack owns, by family (from an error message or a description in words); see "
       "knowledge.boundaries.AREAS.", group="judgement"),
    # --- the training loop, data and precision as the user describes them (issue 7 causes) ---------
    _e("zero_grad_call", "each_step missing once_per_epoch between_backward_and_step wrong_object "
       "every_micro_batch",
       "Where the loop calls zero_grad: once per optimizer step is right.", question="Q-ZERO-GRAD", group="loop"),
    _e("mode_switching", "train_and_eval never_calls_train validates_in_train_mode",
       "How the loop switches model.train() / model.eval() around validation.", question="Q-MODE-SWITCH",
       group="loop"),
    _e("graph_cut", "none detach item numpy python_list",
       "Where the graph between loss and parameters is cut (detach, .item(), a numpy round-trip, submodules "
       "kept in a plain Python list).", question="Q-GRAPH-CUT", group="loop"),
    _e("weights_dtype", "fp32 fp16 bf16", "The dtype the model's parameters are stored in (model.half() = fp16).",
       question="Q-WEIGHTS-DTYPE", group="config"),
    _e("framework", "plain lightning hf",
       "What runs the training loop: your own loop, PyTorch Lightning's Trainer or the Hugging Face Trainer (the "
       "callbacks declare it; fixes are written for it).", group="config"),
    _b("preprocessing_mismatch", "Training and evaluation apply different preprocessing (normalization, resize, "
       "tokenization) to their inputs.", question="Q-PREPROC", group="data"),
    # (the opposite slip from a mismatch: the evaluation pipeline is the training one, random transforms and all)
    _b("eval_augmented", "The validation (or test) inputs pass through the training's random augmentation (random "
       "crops, flips, jitter): the augmenting transform was set on the dataset before it was split, or the "
       "validation set shares the training transform.", group="data"),
    # --- issue 7: more causes users hit (loop, data, measurement, precision) -- add entries below ---------
    _e("optimizer_step_call", "once missing twice outside_scaler",
       "How often the loop steps the optimizer per training step: once is right; 'outside_scaler' means "
       "optimizer.step() is called directly while a GradScaler scales the loss.", question="Q-OPT-STEP",
       group="loop"),
    _e("optimizer_params", "all missing stale frozen_held",
       "Whether the optimizer holds exactly the model's trainable parameters: 'missing' (some were added, replaced "
       "or unfrozen after it was built), 'stale' (it holds tensors the model no longer uses), 'frozen_held' "
       "(it holds parameters now frozen).", question="Q-OPT-PARAMS", group="loop"),
    _e("kept_graphs", "none running_loss_tensor stored_outputs eval_with_grad",
       "What the loop keeps alive between steps: a loss summed as a tensor, stored outputs, or evaluation run "
       "with autograd on ('none': only Python numbers).", question="Q-KEPT-GRAPHS", group="loop"),
    _b("lower_lr_stable", "A lower learning rate trained stably: the instability appeared when the LR was raised, or "
       "goes away when it is lowered.", question="Q-LOWER-LR", group="judgement"),
    _b("loss_periodic", "The loss (or every metric) repeats one pattern with a fixed period: regular spikes or "
       "swings every so many steps.", group="metrics"),
    _b("epoch_start_jump", "The training loss jumps up at the start of every epoch and then recovers.",
       question="Q-EPOCH-JUMP", group="loop"),
    _b("epoch_start_drop", "The training loss drops sharply at the start of every new epoch (a staircase: a step "
       "down at each epoch boundary, nearly flat within an epoch).", group="loop"),
    _e("label_check", "ok not_zero_based misaligned class_order",
       "What a look at the labels shows: class ids 0..C-1 paired with their inputs ('ok'), ids that do not start "
       "at 0 or skip values, labels no longer paired with their inputs, or class ids assigned in another order "
       "where the model is evaluated than where it was trained ('class_order': folders sorted as strings, a class "
       "missing from one split, a different class list).", question="Q-LABELS", group="data"),
    _b("class_imbalance", "One class dominates the labels (most examples belong to it).", question="Q-IMBALANCE",
       group="data"),
    _b("targets_unscaled", "Regression targets are used in raw units with a large range (not standardized).",
       question="Q-TARGET-SCALE", group="data"),
    _b("boxes_invalid", "Some ground-truth boxes are degenerate (zero or negative width or height) or reach "
       "outside the image.", question="Q-BOXES", group="data"),
    _e("augmentation_strength", "none light strong", "How strong the training-time data augmentation is.",
       question="Q-AUG-STRENGTH", group="data"),
    _b("augmentation_hurts", "Accuracy with the training-time augmentation (mixup, cutmix, strong transforms) is no "
       "better, or worse, than without it.", group="data"),
    _e("logged_loss", "per_example_mean scaled_by_accum wrong_denominator",
       "How the logged training loss is computed: the per-example mean is right; 'scaled_by_accum' logs the loss "
       "divided (or summed) by the accumulation steps, 'wrong_denominator' averages over the wrong count.",
       question="Q-LOGGED-LOSS", group="metrics"),
    _e("step_axis", "optimizer_step per_micro_batch per_epoch mixed",
       "What the x-axis of the logged curves counts: optimizer steps are comparable across runs.",
       question="Q-STEP-AXIS", group="metrics"),
    _e("nondeterminism", "none evaluation training_runs",
       "Results that change between runs: of evaluating one trained model ('evaluation'), or of training runs "
       "with the same seed ('training_runs').", question="Q-NONDETERMINISM", group="metrics"),
    _b("step_counter_multi", "The trainer's step counter (Lightning's global_step) advances more than once per "
       "batch: it counts optimizer.step() calls and several optimizers are stepped per batch.", group="metrics"),
    _b("metrics_dropped", "Logged metrics or points are missing (steps, epochs, processes or whole metrics).",
       question="Q-METRICS-DROPPED", group="metrics"),
    _b("metric_batch_averaged", "The reported evaluation metric is the mean of per-batch values of a metric that "
       "does not average over examples (Dice, IoU, F1, precision/recall, AUC, BLEU), or of a per-example one "
       "(accuracy) unweighted by batch size, so its value depends on how the examples are batched: the batch size, "
       "shuffling, the last partial batch.", group="metrics"),
    _e("scaler_skips", "none occasional persistent",
       "How often the GradScaler skips optimizer steps for inf/NaN gradients: a few early skips are normal "
       "calibration; every step is a collapsing loss scale.", question="Q-SCALER-SKIPS", group="config"),
    _e("capacity_vs_data", "fits too_large", "Whether the model is large for the amount of training data.",
       question="Q-CAPACITY", group="data"),
    _e("monitor_mode", "right wrong_direction unavailable",
       "Whether checkpoint selection / early stopping compares the monitored metric in the right direction (min for "
       "a loss, max for accuracy), or finds no such metric where it runs (no evaluation at that point, evaluation "
       "and saving on different schedules, or the metric logged under another name).", question="Q-MONITOR",
       group="loop"),
    _e("target_shape", "matches broadcast",
       "Whether prediction and target shapes match in the loss, or differ and broadcast (e.g. [N] against [N, 1]).",
       question="Q-TARGET-SHAPE", group="data"),
    _b("loss_zero_from_start", "The training loss (or a loss term) is exactly zero from the first steps.",
       question="Q-ZERO-LOSS", group="metrics"),
    _b("device_specific", "The same code and data run correctly on another device (the CPU, other GPUs or GPU "
       "models) and fail only on this one.", group="judgement"),
    _b("checkpoint_specific", "The same code trains correctly from the original (base) weights and fails only from "
       "another checkpoint: a fine-tuned, converted, merged or otherwise derived model.", group="judgement"),
    _b("reload_metric_drop", "A model that scored well while it trained scores far worse (near chance, random-looking "
       "predictions) once saved and loaded again: part of the trained state did not come back (a head or module "
       "kept outside the saved state, keys skipped by strict=False or by a shape mismatch, a head rebuilt with "
       "another class count) or the reloaded model is run differently (train mode, other preprocessing).",
       group="judgement"),
    _b("fsdp_trains_worse", "Under FSDP the run trains worse (a higher final loss, a slower fall, or only with a "
       "larger LR) than the same recipe under another backend that keeps fp32 master weights (DeepSpeed, DDP with "
       "AMP, Megatron).", group="judgement"),
    _b("reference_works", "The same model trains as expected in another implementation (a plain PyTorch loop, the "
       "original repository, another framework) and fails only in this one.", group="judgement"),
    _e("label_shift", "once double missing",
       "How a language-model loss pairs positions with targets: shifted once (position t predicts token t+1), "
       "twice (the labels shifted by the caller or the decoder inputs and again inside the loss) or not at all (each "
       "position compared with its own token).", group="loop"),
    _b("checkpoint_inputs_no_grad", "Gradient checkpointing runs over inputs that do not require grad (frozen "
       "embeddings or backbone under LoRA/adapters); torch warns 'None of the inputs have requires_grad=True'.",
       group="loop"),
    _b("data_length_unknown", "The training data has no length the loop can read (an IterableDataset, a streaming "
       "dataset, a generator) while the trainer or the LR schedule needs the number of steps in advance.",
       group="data"),
    _b("train_metric_mixed", "The training metric (accuracy) is computed on mixed batches (mixup, cutmix, manifold "
       "mixup) against one of the original hard labels.", group="metrics"),
    _b("val_in_train", "Validation (or test) examples also reach training: duplicates across the split, a split "
       "drawn differently on each process or run, or copies split after augmentation.", group="data"),
    _b("epoch_start_stall", "Every epoch begins with a long pause before its first step, while the steps inside the "
       "epoch run at normal speed.", group="data"),
    _b("first_step_stall", "The run sits for a long time before its first step (after a start or a resume) and then "
       "trains at its normal speed; false: it never takes a step (a hang, a deadlock, a process that waits idle), "
       "or it hangs only after it has trained.",
       group="loop"),
    _b("ignore_data_skip", "On resume the trainer starts at the saved step without replaying the batches already "
       "seen (Hugging Face ignore_data_skip=True); false: it replays them to restore the data order.", group="loop"),
    _e("hang_onset", "first_step mid_run epoch_boundary",
       "Where a hang happens: before or at the first step, mid-run after steps were taken, or at an epoch "
       "boundary.", group="loop"),
    _b("attention_mask_empty", "Some sequences have an attention mask that is zero everywhere (or every query row "
       "of them masked), e.g. left padding that leaves a row with nothing to attend to.", group="data"),
    _b("clip_ineffective", "Gradient clipping is configured but never acts: the gradient norm is not capped whatever "
       "threshold is set.", group="loop"),
    _b("loss_collapses_zero", "The loss was positive at first and then reads exactly 0 from some step on (often with "
       "a non-finite grad_norm beside it).", group="metrics"),
    _b("label_smoothing", "The classification loss smooths its targets (label_smoothing above 0, or soft targets "
       "that give the other classes a share): the loss then has a floor above zero, the entropy of the smoothed "
       "targets.", group="config"),
    _b("loss_term_inert", "Changing the weight of one term of the loss changes nothing (the updates, the curves and "
       "the results stay the same): that term sends no gradient.", group="metrics"),
    _e("clip_order", "after_unscale before_unscale",
       "With a GradScaler, whether gradients are clipped after scaler.unscale_(optimizer) or while still multiplied "
       "by the loss scale.", question="Q-CLIP-ORDER", group="loop"),
    _e("scheduler_pace", "matches too_fast too_slow",
       "Whether the LR schedule advances at the pace it was defined for: 'too_fast' (defined in epochs or optimizer "
       "steps but stepped per batch, micro-batch or process), 'too_slow' (defined in steps but stepped per epoch).",
       question="Q-SCHED-PACE", group="loop"),
    _e("lr_observed", "as_set stuck near_zero reset",
       "The learning rate the optimizer actually applies (param_groups' lr, or the logged lr) against the one set: "
       "'as_set' (it follows the value and schedule set), 'stuck' (it never moves although a schedule or a new "
       "value was set), 'near_zero' (it falls to about 0 and stays there), 'reset' (mid-run it jumps back to its "
       "starting value, as a resumed run's schedule does when it starts again at step 0).", question="Q-LR-TRACE",
       group="loop"),
    _e("trainer_loss", "returned missing",
       "What the training step hands the trainer to minimise: the loss ('returned'), or none ('missing': the batch "
       "carries no labels so the model returns only logits, a base model without a task head, a Lightning "
       "training_step that returns None or a dict without the 'loss' key).", group="loop"),
    # --- issue 19: what people say about their runs that had no name -----------------------------------
    _b("predictions_constant", "The model gives the same prediction (one class, one value) for every input.",
       group="metrics"),
    _b("val_better_than_train", "The validation curve is better than the training curve (lower loss, higher "
       "accuracy) over the run.", group="metrics", question="Q-VAL-ABOVE-TRAIN"),
    _b("val_loss_far_above_from_start", "The validation loss is an order of magnitude or more above the training "
       "loss already at the first evaluation (the first epoch): too soon and too large a gap for memorisation.",
       group="metrics"),
    # --- issue 17: when and how an instability shows (what separates the step size from the gradients) ----------
    _b("unstable_early", "The loss spikes or diverges early in training: during the LR warmup or soon after the LR "
       "reaches its peak, after only a short stretch of normal training.", group="symptom"),
    _b("spike_recovers", "The loss jumps up sharply and then comes back down by itself (a transient spike the run "
       "recovers from, not a lasting divergence).", group="symptom"),
    _b("val_spikes_with_train", "The validation loss jumps up together with the training loss (the weights themselves "
       "were thrown off, not one bad batch scored).", group="symptom"),
    # --- issue 20: distributed runs (measured across ranks by the rank probe, or read from text) ----------------
    _i("dist_world_size", "How many processes (ranks) train together in torch.distributed.", low=1,
       group="distributed"),
    _e("replicas_in_sync", "in_sync diverged",
       "Whether the model replicas hold the same parameters on every rank ('diverged': some rank's weights differ "
       "from the others').", group="distributed"),
    _i("nonfinite_rank", "The rank whose own inputs, loss or local gradients went non-finite first (the value "
       "other ranks then received through the gradient all-reduce).", low=0, group="distributed"),
    _e("rank_data", "distinct identical",
       "Whether the ranks train on different batches at the same step ('identical': every rank sees the same "
       "data, as without a DistributedSampler).", group="distributed"),
    _e("epoch_data_order", "reshuffled repeated",
       "Whether each epoch visits the training data in a new order ('repeated': the same order every epoch, as "
       "with a DistributedSampler whose set_epoch is never called).", group="distributed"),
    _e("metric_denominator", "rank_count dataset_size",
       "What a metric counted in each process (correct predictions, summed loss) is divided by: the examples that "
       "process scored ('rank_count'), or the whole dataset's size ('dataset_size'), of which a data-parallel "
       "process sees only its shard.", question="Q-METRIC-DENOM", group="distributed"),
    _b("metric_world_ratio", "A metric on several GPUs is lower than the same run's on one GPU by about the number "
       "of GPUs (1/4 of it on 4 GPUs).", group="distributed"),
    _e("eval_sample_count", "exact padded",
       "Whether a distributed evaluation scores each example once ('padded': the sampler pads the ranks' shards to "
       "one length by repeating examples, so more are scored than the set holds).", question="Q-EVAL-PADDING",
       group="distributed"),
    _b("host_ram_per_rank", "The host (CPU) memory the run takes grows with the number of GPU processes on the "
       "machine, about one copy of the dataset (or of what it loads) per process.", group="distributed"),
    _e("rank_batch_counts", "equal uneven",
       "Whether every rank has the same number of batches per epoch ('uneven': some rank runs out first and the "
       "others wait in a collective it never joins).", group="distributed"),
    _f("rank_step_skew", "The slowest rank's own time per step (data loading and forward, before it waits for "
       "the others) over the median rank's.", low=0.0, unit="x", group="distributed"),
    _e("grads_synced", "synced unsynced",
       "Whether the gradients the optimizer applies are the same on every rank ('unsynced': a step taken on "
       "gradients that were never all-reduced, as inside no_sync or through the unwrapped module).",
       group="distributed"),
    _e("ddp_unused_params", "none some",
       "Whether some trainable parameters get no gradient in a step under DistributedDataParallel ('some'), "
       "or every one does ('none').", group="distributed"),
    _b("ddp_find_unused", "DistributedDataParallel was built with find_unused_parameters=True (an extra search of "
       "the autograd graph every step).", group="distributed"),
    _e("batchnorm_sync", "sync local",
       "How the model's BatchNorm layers compute batch statistics under data parallelism: across ranks "
       "(SyncBatchNorm) or per rank ('local').", group="distributed"),
    _i("per_rank_batch", "Examples per rank in one forward pass (the batch each BatchNorm layer sees).", low=1,
       unit="examples", group="distributed"),
    _b("world_size_changed", "The run moved to a different number of GPUs/processes than the one its "
       "hyperparameters were tuned on.", group="distributed"),
    _e("lr_world_scaling", "scaled unchanged",
       "Whether the learning rate was rescaled when the global batch changed with the number of processes.",
       question="Q-LR-WORLD", group="distributed"),
    _e("collective_failure", "timeout unfinished_reduction mismatch hang_first_collective",
       "What a distributed job reports: a collective (watchdog) timeout, DDP's 'expected to have finished reduction "
       "in the prior iteration', a collective mismatch between ranks (desync debug / Flight Recorder), or a hang "
       "at the very first collective.", group="distributed"),
    _e("multi_gpu_speedup", "none partial",
       "How much faster training got with more GPUs: 'none' (no faster, or slower), 'partial' (far below "
       "linear).", group="distributed"),
    # --- issue 18: output/target contracts, optimizer settings, clipping, normalisation, schedules, order ------
    _e("target_range", "inside outside_activation outside_loss",
       "Whether the targets lie where the model can put its outputs and the loss accepts them: 'outside_activation' "
       "(a bounded output activation, sigmoid or tanh, cannot reach them), 'outside_loss' (outside what the loss "
       "takes, such as BCE targets outside [0, 1]).", group="probe"),
    _e("output_norm_dim", "class other",
       "The dimension a softmax or log-softmax at the model output normalises: the class dimension (1) the loss "
       "reads, or another one (the batch or the time axis).", group="probe"),
    _e("target_kind", "class_index one_hot probabilities multi_hot integer continuous",
       "What the loss's targets are: class indices, one-hot rows, probability rows, multi-hot rows (several "
       "classes at once), integers given to a regression loss, or continuous values.", group="probe"),
    _e("loss_reduction", "mean sum", "How the loss reduces over the batch: a mean, or a sum that grows with the "
       "batch size.", group="probe"),
    _e("adam_betas", "usual swapped beta2_low",
       "An Adam-family optimizer's betas: usual, swapped (beta1 above beta2) or a beta2 so low the second moment "
       "averages a handful of steps.", group="probe"),
    _f("sgd_momentum", "The momentum of an SGD optimizer.", low=0.0, group="probe"),
    _f("decay_per_step", "The fraction by which weight decay alone shrinks the weights each step (lr * wd; "
       "lr * wd / (1 - momentum) for SGD).", low=0.0, group="probe"),
    _e("grad_clip_active", "never sometimes every_step",
       "Whether gradient clipping cut the gradient norm at the optimizer step: on every sampled step (the norm "
       "equals max_norm each time), on some, or never seen.", group="probe"),
    _f("clip_step_ratio", "With clipping on every step, the SGD step it allows against the weights: lr * max_norm "
       "/ (1 - momentum) / |W| (the update ratio the clip sets).", low=0.0, group="probe"),
    _i("bn_batch", "Examples per device that a BatchNorm layer in training mode normalises over.", low=1,
       group="probe"),
    _f("dropout_max", "The largest dropout probability in the model.", low=0.0, high=1.0, group="probe"),
    _f("lr_zero_fraction", "Fraction of the sampled steps at which the learning rate actually applied was 0.",
       low=0.0, high=1.0, group="probe"),
    _f("lr_low_fraction", "Fraction of the sampled steps at which the applied learning rate was below 1% of the "
       "learning rate the optimizer was built with.", low=0.0, high=1.0, group="probe"),
    _e("probe_scope", "one_batch loop",
       "What the probes saw: one batch at one moment (examine) or the training loop over steps (watch).",
       group="probe"),
    _e("grad_reset", "each_step sometimes never",
       "Whether .grad is cleared between optimizer steps: in every sampled interval some backward pass found it "
       "cleared (each_step), in some, or never (the last step's gradient is always still there).", group="probe"),
    _e("batch_order", "no_repeat repeats same_each_epoch",
       "Whether the training batches come back: never (a fresh order each epoch), some, or every one exactly "
       "one epoch later (the same batches in the same order every epoch).", group="probe"),
    _f("label_sortedness", "How much purer in one class the training batches are than the data overall (0: as "
       "mixed as the data, 1: each batch a single class).", low=0.0, high=1.0, group="probe"),
)

VOCABULARY: dict[str, Spec] = {s.name: s for s in SPECS}


def register(*specs: Spec) -> None:
    """Add entries to the vocabulary (used by knowledge families that measure new quantities).

    Args:
        *specs: New entries; a name already present with a different definition is a defect.

    Raises:
        ValueError: A name is registered twice with different definitions.
    """
    for s in specs:
        old = VOCABULARY.get(s.name)
        if old is not None and old != s:
            raise ValueError(f"observation {s.name!r} registered twice with different definitions")
        VOCABULARY[s.name] = s


def spec(name: str) -> Spec:
    """Return the entry for ``name``.

    Raises:
        VocabularyError: ``name`` is not in the vocabulary.
    """
    try:
        return VOCABULARY[name]
    except KeyError:
        # Typos ("symtom") by edit similarity, then names that contain or are contained in it ("lr" in "learning_rate").
        key = name if isinstance(name, str) else str(name)
        import difflib  # only for a name that is not in the vocabulary

        near = difflib.get_close_matches(key, VOCABULARY, n=3, cutoff=0.75)
        near += sorted(n for n in VOCABULARY if key and (key in n or n in key) and n not in near)
        hint = "run `trainopt facts` to list every observation name"
        if near:
            hint = f"did you mean {', '.join(near[:3])}? ({hint})"
        raise VocabularyError(name, f"unknown observation name {name!r}", hint=hint) from None


MAX_INT = 2**63 - 1
"""Largest integer accepted (what an int64 tensor or a C long can hold); beyond it a count is a typo."""
MAX_TEXT = 16_000_000
"""Longest text value accepted, in characters: text is read in linear time, so a pasted log of a few megabytes
is fine; beyond this it is not something a person pasted (and only memory would suffer)."""
MAX_NUMBER_TEXT = 100
"""Longest number written as text; anything longer is not a number a person typed."""
FRACTION_NAMES = frozenset({"train_metric", "val_metric"})
"""Fraction-valued observations whose upper bound the vocabulary does not state (a metric may be a loss)."""

_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9}
# "50,000", "1,234,567.5": commas only as thousands separators, so "0,5" (a decimal comma) stays refused.
_THOUSANDS = r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?"
_PLAIN_INT = r"[+-]?\d+"
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?"


@cache
def _number_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """``_THOUSANDS``, ``_NUMBER`` and ``_PLAIN_INT``, compiled on first use.

    Most processes read no typed number (a ``diagnose`` of JSON values, a consultation before its first answer),
    and every pattern compiled at import is start-up time.
    """
    return (re.compile(_THOUSANDS), re.compile(_NUMBER, re.ASCII | re.IGNORECASE),
            re.compile(_PLAIN_INT, re.ASCII))


PAIRS = {"train_metric": "val_metric"}
"""Observations asked together: a question for the first also takes the second ("0.95 / 0.75")."""

_NUM_TEXT = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?\s*%?"
# "0.95 / 0.75", "0.95, 0.75", "0.95 vs 0.75", "train 0.95 val 0.75", "train: 95% / val: 75%".
_PAIR = (
    rf"\s*(?:train\w*\s*(?:acc\w*|metric|loss)?\s*[:=]?\s*)?(?P<a>{_NUM_TEXT})\s*"
    rf"(?:/|,|;|\bvs\.?|\band\b|(?=val))\s*"
    rf"(?:(?:val\w*|valid\w*|dev|test)\s*(?:acc\w*|metric|loss)?\s*[:=]?\s*)?(?P<b>{_NUM_TEXT})\s*")


@cache
def _pair_pattern() -> re.Pattern[str]:
    """``_PAIR`` compiled on first use (an answer to a paired question), not at every start-up."""
    return re.compile(_PAIR, re.IGNORECASE | re.ASCII)


def read_pair(text: str) -> tuple[str, str] | None:
    """Split an answer that gives two numbers at once (train then validation) into its two parts.

    Returns:
        The two numbers as typed, or None when ``text`` is not such a pair (``"50,000"`` is one number).
    """
    if len(text) > 200 or _number_patterns()[0].fullmatch(text.strip()):
        return None
    m = _pair_pattern().fullmatch(text)
    return (m["a"].strip(), m["b"].strip()) if m else None


def short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, so a megabyte answer never floods an error message."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def validate(name: str, value: Any) -> Any:
    """Check one observation and return its normalised value.

    Strings are accepted for every type (the REPL and JSON hand them over), written as people write them:
    ``"3e-4"``, ``"50k"``, ``"50,000"``, ``"95%"`` (0.95 for a fraction, 95 for a percentage), ``"yes"``.
    Non-finite numbers are refused: experta cannot match NaN, so probes turn non-finite measurements into
    flags or enum values instead.

    Args:
        name: Observation name.
        value: Raw value.

    Returns:
        The value converted to the entry's type.

    Raises:
        VocabularyError: Unknown name, wrong type, or a value outside the allowed set or range.
    """
    return normalise(name, value)[0]


def normalise(name: str, value: Any) -> tuple[Any, str]:
    """Like :func:`validate`, and also say how a typed value was read when that is not obvious.

    Returns:
        ``(value, note)``: the normalised value and a note such as ``"read 95% as 0.95"`` (empty when the
        value was taken as given).

    Raises:
        VocabularyError: Unknown name, wrong type, or a value outside the allowed set or range.
    """
    s = spec(name)
    try:
        return _normalise(s, name, value)
    except _Bad:
        # the detailed error is built only when a value is refused: probes emit many values a window
        raise VocabularyError(name, f"bad value {short(value)} for {name!r}", allowed=s.allowed()) from None


class _Bad(Exception):
    """A value refused by a checker; :func:`normalise` turns it into the detailed ``VocabularyError``."""


_BAD = _Bad()


def _normalise(s: Spec, name: str, value: Any) -> tuple[Any, str]:
    bad = _BAD
    if s.kind == ENUM:
        if not isinstance(value, str) or len(value) > MAX_NUMBER_TEXT * 10:
            raise bad
        v = value.strip().lower().replace("-", "_").replace(" ", "_")
        if v not in s.choices:
            raise bad
        return v, ""
    if s.kind == BOOL:
        if isinstance(value, bool):
            return value, ""
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE, ""
        raise bad
    if s.kind == STR:
        if not isinstance(value, str) or not value.strip():
            raise bad
        if len(value) > MAX_TEXT:
            raise VocabularyError(name, f"text too long for {name!r} ({len(value):,} characters)",
                                  allowed=f"at most {MAX_TEXT:,} characters",
                                  hint="give the part that matters (for an error: its last lines)")
        return value.strip(), ""
    return _number(s, value, bad)


def _number(s: Spec, value: Any, bad: _Bad) -> tuple[Any, str]:
    note = ""
    if isinstance(value, bool):
        raise bad
    if isinstance(value, str):
        value, note = _parse_number(s, value, bad)
    elif not isinstance(value, (int, float)):
        try:  # numpy / torch scalars
            value = value.item() if hasattr(value, "item") else value
        except Exception:  # noqa: BLE001 - any failure means "not a number"
            raise bad from None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise bad
    if isinstance(value, float) and not math.isfinite(value):
        raise VocabularyError(s.name, f"non-finite value {short(value)} for {s.name!r}", allowed=s.allowed(),
                              hint="report NaN/Inf with loss_behavior=nan_or_inf or nan_location")
    if s.kind == INT:
        # Exact integer arithmetic: float() would round 9007199254740993 and overflow on 400 digits.
        if isinstance(value, float):
            if value != int(value):
                raise bad
            value = int(value)
        if abs(value) > MAX_INT:
            raise bad
    else:
        try:
            value = float(value)
        except OverflowError:  # an int too large for a float
            raise bad from None
        if not math.isfinite(value):
            raise bad
    if s.low is not None and (value < s.low or (s.low_open and value == s.low)):
        raise bad
    high = s.high if s.high is not None else (MAX_INT if s.kind == INT else None)
    if high is not None and value > high:
        raise bad
    return value, note


def _parse_number(s: Spec, text: str, bad: _Bad) -> tuple[int | float, str]:
    """Read a number as people type it: ``3e-4``, ``50k``, ``1.2M``, ``50,000``, ``1_000``, ``95%``."""
    raw = text.strip()
    if not raw or len(raw) > MAX_NUMBER_TEXT:
        raise bad
    t = raw.lower().replace("_", "")
    notes = []
    percent = t.endswith("%")
    if percent:
        t = t[:-1].rstrip()
    scale = 1.0
    if t[-1:] in _SUFFIX and t[:-1].strip():
        scale = _SUFFIX[t[-1]]
        t = t[:-1].rstrip()
    thousands, number, plain_int = _number_patterns()
    if thousands.fullmatch(t):
        t = t.replace(",", "")
    if not number.fullmatch(t):  # ASCII only: "²" and "١٢" are not numbers anyone types in a config
        raise bad
    if s.kind == INT and scale == 1.0 and not percent and plain_int.fullmatch(t):
        value: int | float = int(t)
    else:
        try:
            value = float(t) * scale
        except OverflowError:
            raise bad from None
        if not math.isfinite(value):
            raise bad
        if s.kind == INT and scale != 1.0:
            # "50k" is an exact count; round away float noise like 1.2 * 1e6 = 1199999.9999999998.
            value = round(value, 6)
    if scale != 1.0:
        notes.append(f"read {raw} as {_plain(value)}")
    if percent and s.unit != "%":
        if s.high == 1.0 or s.name in FRACTION_NAMES:
            value = value / 100.0
            notes = [f"read {raw} as {_plain(value)} (a fraction)"]
        else:
            raise bad
    return value, "; ".join(notes)


def _plain(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


MEASURED_SOURCES = ("probe:", "log:")
"""Provenance prefixes of measured observations (live probes, offline logs): a consultation made only of these is
a measured run, which is ``clean`` when nothing trips and never asks the user for a symptom."""


@dataclass(frozen=True)
class Observation:
    """A validated fact with its provenance.

    Attributes:
        name: Vocabulary name.
        value: Normalised value.
        source: ``answer:<question id>``, ``probe:<probe id>``, ``text:<phrase>``, ``declared`` or
            ``derived:<rule id>``.
        evidence: Measured numbers behind a probe observation (threshold, values, where), JSON-ready.
        step: Training step the value was measured at (probes; None when unknown or not step-bound).
    """

    name: str
    value: Any
    source: str = "declared"
    evidence: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    step: int | None = field(default=None, compare=False, hash=False)

    @classmethod
    def make(cls, name: str, value: Any, source: str = "declared", evidence: dict[str, Any] | None = None,
             step: int | None = None) -> Observation:
        """Validate and build an observation (the only sanctioned constructor).

        ``step`` is the training step the value was measured at (probes set it; None when unknown).
        """
        return cls(name, validate(name, value), _source(name, source), _evidence(name, evidence), step)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        d: dict[str, Any] = {"name": self.name, "value": self.value, "source": self.source}
        if self.evidence:
            d["evidence"] = self.evidence
        if self.step is not None:
            d["step"] = self.step
        return d


MAX_EVIDENCE_DEPTH = 6
"""Probe evidence is a few levels deep at most (values, per-layer tables, thresholds); deeper is junk."""


def _source(name: str, source: Any) -> str:
    if not isinstance(source, str) or not source.strip() or len(source) > 1000:
        raise VocabularyError(name, f"bad source {short(source)} for {name!r}",
                              allowed="declared, answer:<question id>, probe:<probe id>, text:<phrase>, "
                                      "derived:<rule id>")
    return source.strip()


def _evidence(name: str, evidence: Any) -> dict[str, Any]:
    """Check that ``evidence`` is a shallow mapping of JSON-like values (a copy is kept)."""
    if evidence is None:
        return {}
    if not isinstance(evidence, Mapping):
        raise VocabularyError(name, f"bad evidence {short(evidence)} for {name!r}",
                              allowed="an object of measured values, e.g. {\"first_nonfinite_step\": 812}")
    if _depth(evidence, 0) > MAX_EVIDENCE_DEPTH:
        raise VocabularyError(name, f"evidence for {name!r} is nested too deeply",
                              allowed=f"an object at most {MAX_EVIDENCE_DEPTH} levels deep")
    return {str(k): v for k, v in evidence.items()}


_LEAVES = (float, int, str, bool, type(None))


def _depth(value: Any, level: int) -> int:
    # Iterative enough: stops descending as soon as the limit is passed, so it never recurses deeply. Leaves
    # are skipped by exact type first: probes emit evidence at every window end, and an abstract-class check
    # per number is most of the cost.
    if level > MAX_EVIDENCE_DEPTH:
        return level
    t = type(value)
    if t is list or t is tuple:
        children: Any = value
    elif t is dict or (t not in _LEAVES and isinstance(value, Mapping)):
        children = value.values()
    elif t not in _LEAVES and isinstance(value, (list, tuple)):
        children = value
    else:
        return level
    deepest = level + 1
    for v in children:
        if type(v) in _LEAVES:
            continue
        deepest = max(deepest, _depth(v, level + 1))
        if deepest > MAX_EVIDENCE_DEPTH:
            break
    return deepest
    if isinstance(value, Mapping):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, (list, tuple)):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level
