"""Diagnostic questions: which observation each sets, when it is worth asking, and the seeds' order.

A question applies only while its observation is unknown and not declined, and never while another question
is pending: the engine holds at most one. Of those that apply, the engine asks the one whose answer best
separates the candidate causes still open (``expert.choose``); ranks follow the seeds' lists and break ties
(and order questions that separate nothing). A negative rank marks a protocol step asked before any of them.
"""

from __future__ import annotations

from knowledge.schema import Absent, Cite, Is, Present, QuestionRow

_NL = Cite("000", "Symptom: model not learning", "diagnostic questions")
_UN = Cite("001", "Symptom: training unstable", "diagnostic questions")
_OF = Cite("000", "Symptom: model overfits", "diagnostic questions")
_SL = Cite("001", "Symptom: training too slow", "diagnostic questions")
_QR = Cite("001", "Quick reference", "diagnostic question column")

# The loss-curve answers, shared by every question that asks for the loss behaviour.
LOSS_BEHAVIOR_CHOICES = (("flat_from_start", "flat from the very start"),
                         ("decreasing_slowly", "decreasing, but very slowly"),
                         ("plateau_after_learning", "was learning, then plateaued"),
                         ("oscillating", "oscillating wildly"),
                         ("spiking", "occasional spikes"),
                         ("diverging", "growing / diverging"),
                         ("nan_or_inf", "NaN or Inf appears"),
                         ("decreasing_normally", "decreasing normally"))

NEEDS_LOSS_CURVE = Is("not_learning", "unstable", "convergence")

TASK_CHOICES = (("classification", "classification"), ("regression", "regression"),
                ("language_modeling", "language modelling / LLM fine-tuning"), ("rl", "reinforcement learning"),
                ("preference_tuning", "preference tuning (DPO, RLHF, reward model)"),
                ("detection", "object detection"), ("segmentation", "segmentation"),
                ("generation", "image or audio generation"), ("other", "something else"))

WAIVED_ON_DECLINE: dict[str, tuple[str, ...]] = {
    "symptom": ("Q-SYMPTOM",),
    "learning_rate": ("Q-LR",),
    "zero_grad_call": ("Q-ZERO-GRAD",),
    "optimizer_step_call": ("Q-OPT-STEP",),
    # a user who cannot say which autocast format runs may still know the weights were loaded in half precision
    # (model.half(), torch_dtype=torch.float16): the question about the weights no longer waits for the format
    "mixed_precision": ("Q-PRECISION",),
    # a user who cannot say when the NaN began may still know what changed just before it (a new batch size, GPU
    # count, precision or library version): the change question no longer waits for the onset
    "nan_onset": ("Q-NAN-ONSET",),
}
"""Gates a question drops once the user declines the question that asks for them (observation -> questions).

Most questions wait for the symptom, and the loop questions wait for each other (the seeds' order: the LR
first, then zero_grad, then the step, then what the optimizer holds). A user who will not
give one of these would otherwise be asked nothing more on that line and get the symptom table's default. Once
such a question is declined, a question whose unmet gate is only that observation applies again, and the
engine's choice (``expert.choose``) weighs it against the causes that can still be settled (the defects of the
loop, the data and the configuration, which need no symptom)."""

WAIVED_QUESTIONS_MAX = 4
"""How many such questions (asked only because their gate was waived) a user may decline before the engine
stops asking and leads with what it has: someone who would not name the symptom answers a few checks, not a
questionnaire."""

QUESTIONS = (
    QuestionRow(
        "Q-SYMPTOM", "symptom",
        "What is the main problem with the run?",
        {"vague_query": Absent()}, rank=0,
        why="Each symptom routes differently; nothing can be routed before it is known.",
        cite=Cite("000", "Red flags checklist", "did I identify specific symptoms?"),
        choices=(("not_learning", "not learning: loss stuck or barely moving"),
                 ("unstable", "unstable: spikes, divergence, NaN/Inf"),
                 ("overfitting", "overfitting: train good, validation bad"),
                 ("slow_training", "too slow: low throughput or long epochs"),
                 ("direct_question", "a direct question: which optimizer / LR / batch size ..."),
                 ("experiment_tracking", "tracking and comparing experiments"),
                 ("new_setup", "setting up a new training pipeline"),
                 ("convergence", "convergence: slow learning, plateaus"),
                 ("multi_task", "multi-task learning or a custom loss"),
                 ("crash", "it crashes with an error message"),
                 ("hang", "it hangs: no progress, no error"),
                 ("memory_growth", "memory grows until it runs out"),
                 ("metrics_wrong", "the logged metrics look wrong"),
                 ("data_problem", "I suspect the data or the labels")),
        # A configuration defect or declared healthy evidence is something to report, not a dead end.
        unless=("origin:probe", "finding_kind:lint", "flag:healthy_evidence")),
    QuestionRow(
        "Q-LOSS-CURVE", "loss_behavior",
        "Then, how does the training loss behave over time?",
        {"symptom": Absent()}, rank=1, need=("declined:Q-SYMPTOM",),
        why="Without a named problem the loss curve is the single most informative observation: it names the "
            "symptom itself (flat, oscillating, NaN, ...).",
        cite=_NL,
        choices=LOSS_BEHAVIOR_CHOICES),
    # With neither the problem nor the loss curve, speed is the other complaint a run brings that no curve shows:
    # a slow step (the input pipeline, the GPU kept idle) or a run needing too many steps. Asked here, it places the
    # run before the loop checks that a run with no symptom otherwise falls back to.
    QuestionRow(
        "Q-SPEED-ANY", "slow_kind",
        "Is the trouble that training is too slow: is each step slow (low throughput), or are the steps fine but it "
        "needs too many of them?",
        {"symptom": Absent(), "loss_behavior": Absent()}, rank=2, need=("declined:Q-LOSS-CURVE",),
        why="A run too slow shows no bad loss curve; the kind of slowness routes it (throughput: profiling, the "
            "input pipeline, precision; too many steps: the LR, the schedule, the optimizer).",
        cite=_SL,
        choices=(("per_step", "each step is slow (low throughput)"),
                 ("many_steps", "steps are fine, but it needs too many of them"))),
    QuestionRow(
        "Q-ERROR-ANY", "error_text",
        "Is there an error message? Paste its last lines.",
        {"symptom": Absent(), "loss_behavior": Absent()}, rank=2, need=("declined:Q-LOSS-CURVE",),
        why="With neither the problem nor the loss curve, an error message is the last thing that can place "
            "the run (a crash, out of memory, a distributed or compile failure).",
        cite=Cite("000", "Cross-pack boundaries", "error messages")),
    # The third complaint a declined loss curve hides: a run whose training loss is fine but whose validation gets
    # worse. The symptom table's "train good, val bad" row, asked in the words of what the user sees; without it a
    # run with no named symptom falls back to the loop checks, whatever its validation curve says.
    QuestionRow(
        "Q-OVERFIT-ANY", "val_loss_rising",
        "Does the validation loss rise (well above its best) while the training loss keeps falling?",
        {"symptom": Absent(), "loss_behavior": Absent()}, rank=2, need=("declined:Q-LOSS-CURVE",),
        why="Training that improves while validation gets worse is overfitting, whatever else the run shows: it "
            "routes to early stopping and regularization rather than to the training loop.",
        cite=Cite("003", "Step 1: symptom table", "train good, val bad: overfitting")),
    # The same complaint caught earlier: the validation loss has not turned up yet, but the gap between the training
    # and the validation figures keeps growing. Asked once the user could not say the validation loss rises; a
    # widening gap is overfitting beginning, and without it such a run falls back to the loop checks too.
    QuestionRow(
        "Q-GAP-ANY", "gap_trend",
        "Over the run, does the gap between the training and the validation metric widen, stay about the same, "
        "or narrow?",
        {"symptom": Absent(), "loss_behavior": Absent()}, rank=2, need=("declined:Q-OVERFIT-ANY",),
        why="A gap that keeps widening is overfitting starting: early stopping and regularization come before any "
            "part of the set-up.",
        cite=Cite("003", "Step 2: investigation commands", "overfitting: calculate train/val gap"),
        choices=(("widening", "it widens: training keeps improving, validation does not"),
                 ("stable", "it stays about the same"), ("narrowing", "it narrows"))),
    QuestionRow(
        "Q-TASK", "task",
        "What is the model trained to do?",
        {"symptom": Absent(), "task": Absent()}, rank=3, need=("declined:Q-SYMPTOM",),
        why="Without a named problem the kind of run still places it: language models, preference tuning and "
            "reinforcement learning have their own specialists, whatever the symptom turns out to be.",
        cite=Cite("000", "Cross-pack boundaries", "LLM and RL runs"),
        choices=TASK_CHOICES),
    QuestionRow(
        "Q-MULTI-GPU", "multi_gpu",
        "Does the run use several GPUs or processes (DDP, FSDP, DeepSpeed, accelerate, torchrun)?",
        {"symptom": Absent(), "multi_gpu": Absent()}, rank=4, need=("declined:Q-SYMPTOM",),
        why="Without a named problem, a distributed run is placed by the distribution itself: ranks out of "
            "step, a sampler per process, collective hangs and per-rank memory are the framework's ground.",
        cite=Cite("000", "Cross-pack boundaries", "distributed training")),
    # The same question once a run in trouble is named but not what it trains: a reinforcement-learning, language-
    # model or detection run that does not learn is checked first where such runs go wrong (the environment and
    # the reward, the label masking, the boxes), and the loss that fits the task is judged against it. Asked late:
    # the symptom's own questions (the curve, where the NaN starts, the precision) come first, as the seeds order.
    QuestionRow(
        "Q-TASK-RUN", "task",
        "What is the model trained to do?",
        {"symptom": NEEDS_LOSS_CURVE, "task": Absent()}, rank=15,
        why="The kind of run decides where a stalled or unstable run is checked first: reinforcement learning and "
            "language-model fine-tuning have their own specialists, and the loss is judged against the task.",
        cite=Cite("003", "Scope boundaries", "RL training issues: defer to deep-rl"),
        # (a cross-pack boundary already places the run: the question would only restate it)
        choices=TASK_CHOICES, unless=("boundary:*",), late=True),
    QuestionRow(
        "Q-LOSS-BEHAVIOR", "loss_behavior",
        "How does the training loss behave over time?",
        {"symptom": NEEDS_LOSS_CURVE}, rank=10,
        why="Flat from the start, slow, plateaued after learning, oscillating or NaN each point to a "
            "different cause (LR, optimizer, gradients, loss); this one answer separates them.",
        cite=_NL,
        choices=LOSS_BEHAVIOR_CHOICES),
    QuestionRow(
        "Q-NAN-ONSET", "nan_onset",
        "When do the NaN/Inf values first appear: immediately, or after some steps or epochs?",
        {"loss_behavior": "nan_or_inf"}, rank=11,
        why="NaN from the first step points at data, init or the loss formula; NaN after a while points "
            "at a growing LR, exploding gradients or a loss-scale problem.",
        cite=_UN,
        choices=(("immediate", "immediately, in the first steps"), ("after_steps", "after some steps/epochs"))),
    QuestionRow(
        "Q-PRECISION", "mixed_precision",
        "Are you training in mixed precision, and which format?",
        {"symptom": Is("unstable")}, rank=12,
        why="With FP16 or FP8 a loss-scale under/overflow is a common NaN source; it adds the precision "
            "branch of the plan.",
        cite=_UN,
        choices=(("none", "no, full FP32"), ("fp16", "FP16 (AMP)"), ("bf16", "BF16"), ("fp8", "FP8"))),
    QuestionRow(
        "Q-CUSTOM-LOSS", "custom_loss",
        "Is the loss a hand-written (custom) function?",
        {"symptom": Is("unstable"), "loss_behavior": Is("nan_or_inf", "diverging")}, rank=13,
        why="Custom losses often take log(0) or divide by zero; that adds the loss-functions skill.",
        cite=_UN),
    QuestionRow(
        "Q-LR", "learning_rate",
        "What peak learning rate are you using (e.g. 3e-4)?",
        {"symptom": NEEDS_LOSS_CURVE,
         "loss_behavior": Is("flat_from_start", "decreasing_slowly", "oscillating", "diverging", "nan_or_inf",
                             "spiking")}, rank=30,
        why="The learning rate is the single most common cause of flat, slow or oscillating loss, and a high "
            "LR diverges even with clipped gradients.",
        cite=_QR),
    QuestionRow(
        "Q-LOWER-LR", "lower_lr_stable",
        "Has a lower learning rate trained stably (or does lowering it make the instability go away)?",
        # asked once the LR is known and its usual range has not already convicted it: the run's own stable LR
        # decides what a range for the optimizer can only suggest
        {"loss_behavior": Is("oscillating", "diverging", "nan_or_inf", "spiking"), "learning_rate": Present()},
        rank=35,
        why="The largest stable LR moves with batch size, data and architecture; an instability that goes away at "
            "a lower LR is the LR, whatever range the optimizer usually tolerates.",
        cite=Cite("003", "Step 3: fix table", "LR too high -> decrease LR, add warmup")),
    QuestionRow(
        "Q-OPTIMIZER", "optimizer",
        "Which optimizer are you using?",
        {"symptom": NEEDS_LOSS_CURVE,
         "loss_behavior": Is("flat_from_start", "decreasing_slowly", "nan_or_inf", "diverging", "spiking")},
        rank=31,
        why="A sensible LR depends on the optimizer family (SGD vs Adam-family vs Lion): whether an LR is too "
            "low or too high cannot be judged without it.",
        cite=_NL),
    QuestionRow(
        "Q-GRAD-NORMS", "grad_norm_trend",
        "What do the gradient norms do over steps?",
        {"symptom": "convergence"}, rank=9,
        why="Convergence problems are diagnosed from gradient norms first: stability before adaptation.",
        cite=Cite("000", "Quick reference", "convergence issues: gradient norms, loss curve"),
        choices=(("exploding", "growing / exploding"), ("vanishing", "vanishing / near zero"),
                 ("spiky", "sudden spikes"), ("normal", "stable"))),
    QuestionRow(
        "Q-DATASET-SIZE", "dataset_size",
        "How many training examples do you have?",
        {"symptom": "overfitting"}, rank=10,
        why="Dataset size decides how much weight augmentation gets against regularization.",
        cite=_OF),
    QuestionRow(
        "Q-REGULARIZATION", "regularization",
        "Which regularization do you use now?",
        {"symptom": "overfitting"}, rank=12,
        why="Tells which part of the regularization strategy is missing.",
        cite=_OF),
    # (the other half of the seed's "current regularization?": augmentation is the lever a run that overfits
    # most often lacks, and its strength decides whether augmentation leads the plan, DT-AUG-04)
    QuestionRow(
        "Q-AUG-OVF", "augmentation_strength",
        "How strong is the training-time data augmentation (none, light such as flips and crops, or strong)?",
        {"symptom": "overfitting"}, rank=12,
        why="A run that overfits with little or no augmentation has not used the lever that enlarges its data.",
        cite=_OF, choices=(("none", "none"), ("light", "light: flips and crops"),
                           ("strong", "strong: scale, colour, mixing, RandAugment")),
        unless=("flag:augmentation_moot",),  # (DT-AUG-NA-*: a series or tabular model, a regression)
        late=True),  # (after the seed's own overfitting questions, which keep their order)
    QuestionRow(
        "Q-SLOW-KIND", "slow_kind",
        "Is each step slow (low throughput), or are the steps fine but you need very many of them?",
        {"symptom": "slow_training", "gpu_utilization_pct": Absent(), "data_time_fraction": Absent()}, rank=9,
        why="Slow steps are a throughput problem (profile, batch, precision); too many steps is a convergence-"
            "speed problem (LR, schedule, optimizer).",
        cite=_SL,
        choices=(("per_step", "each step is slow (low throughput)"),
                 ("many_steps", "steps are fine, but it needs too many of them"))),
    QuestionRow(
        "Q-GPU-UTIL", "gpu_utilization_pct",
        "What is the GPU utilization during training, in percent (nvidia-smi)?",
        {"symptom": "slow_training", "data_time_fraction": Absent()}, rank=10,
        unless=("flag:convergence_bound",),
        why="Low utilization means the GPU waits for data (infrastructure); high means compute-bound "
            "(batch size, precision, scaling). Profile before optimizing.",
        cite=_SL),
    QuestionRow(
        "Q-AUGMENTATION", "heavy_augmentation",
        "Do you use heavy (CPU-side) data augmentation?",
        {"symptom": "slow_training"}, rank=11, need=("flag:compute_bound",),
        why="Heavy augmentation on a busy GPU adds CPU cost worth optimizing.",
        cite=_SL),
    QuestionRow(
        "Q-MEMORY", "memory_limited",
        "Is your batch size limited by GPU memory (OOM if you raise it)?",
        {"symptom": "slow_training"}, rank=12, need=("flag:compute_bound",),
        why="A memory-capped batch routes to accumulation, 8-bit/paged optimizers and sharding strategy.",
        cite=_SL),
    QuestionRow(
        "Q-TRACK-SCOPE", "tracking_scope",
        "Is this about tracking runs during training, or a long-lived model registry / lineage afterwards?",
        {"symptom": "experiment_tracking"}, rank=10,
        why="In-flight tracking is this pack's; a registry and artifact lineage after training belong to "
            "ml-production.",
        cite=Cite("001", "Quick reference", "production registry / lineage: after-training artifact lifecycle?"),
        choices=(("in_flight", "tracking and comparing runs during training"),
                 ("registry", "model registry, lineage, artifacts after training"))),
    QuestionRow(
        "Q-LOSS-FN", "loss_fn",
        "Which loss function do you use (e.g. cross_entropy, mse, a custom one)?",
        # Any run that does not learn (or whose numbers look wrong), whatever its curve: the loss decides both the
        # task match (MSE on class labels) and which output it expects (logits, log-probabilities). Late: the
        # symptom's own checks (curve, LR, optimizer, the loop) come first, as the seeds order them; for a user who
        # would not name the symptom it is one of the few checks left, chosen by its value. A run that hangs,
        # crashes or is slow never gets it.
        {"symptom": Is("not_learning", "convergence", "metrics_wrong")}, rank=32,
        why="A loss that does not match the task (MSE on class labels) or the model's output (probabilities fed to a "
            "loss that applies its own softmax) keeps the loss from falling, whatever the LR.",
        # (a reinforcement-learning or preference run already placed across the boundary has its method's own
        # objective: which loss it uses is that pack's question)
        cite=_NL, unless=("boundary:*",), late=True),
    QuestionRow(
        "Q-OUTPUT-ACT", "output_activation",
        "What does the model return just before the loss: raw logits, or outputs already passed through softmax, "
        "log_softmax or sigmoid?",
        # only for the losses that apply their own normalization: there an activation before them is a known bug
        {"loss_fn": Is("cross_entropy", "nll", "bce_with_logits"),
         "symptom": Is("not_learning", "convergence", "metrics_wrong")}, rank=33,
        why="CrossEntropyLoss and BCEWithLogitsLoss apply their own (log-)softmax or sigmoid, and NLLLoss expects "
            "log-probabilities; a second activation flattens the gradients and keeps the loss from falling.",
        cite=Cite("003", "Step 2: investigation commands", "not learning: loss vs random chance"),
        choices=(("none", "raw logits"), ("softmax", "softmax probabilities"), ("log_softmax", "log_softmax"),
                 ("sigmoid", "sigmoid probabilities"))),
    QuestionRow(
        "Q-SCHEDULE", "lr_schedule",
        "Which learning-rate schedule do you use (with warmup or restarts)?",
        {"symptom": "unstable", "nan_onset": "after_steps"}, rank=14,
        why="NaN that appears only later often follows a schedule that raises the LR (long warmup, restarts).",
        cite=_UN),
    # The same set-up asked of any run in trouble, not only of a NaN that came late: a schedule (its kind, its
    # warmup) is where a run that learns too slowly, stalls or swings is checked once the symptom's own questions
    # are done, and its answer opens the pace and LR-trace questions. Late: asked only when its answer separates
    # the leading causes (``expert.choose``), never as a fixed step; and once the kind of run is known, which
    # places an LLM or RL run first and is asked before it.
    QuestionRow(
        "Q-SCHEDULE-ANY", "lr_schedule",
        "Does the run use a learning-rate schedule? If so, which one (step, cosine, linear, one-cycle, plateau, "
        "WSD, exponential)?",
        {"symptom": NEEDS_LOSS_CURVE, "task": Present()}, rank=16, late=True,
        # (a run already placed across a boundary, an RL or LLM run, is checked there first)
        unless=("boundary:*",),
        why="A schedule changes the LR the run actually trains at: one defined in other units than it is stepped "
            "in, or one that decays to nothing, stalls or destabilises a run whatever the peak LR is.",
        cite=_QR,
        choices=(("none", "no schedule: a constant LR"), ("step", "step decay"), ("cosine", "cosine"),
                 ("linear", "linear decay"), ("onecycle", "one-cycle"), ("plateau", "reduce on plateau"),
                 ("wsd", "warmup-stable-decay"), ("exponential", "exponential"), ("other", "another schedule"))),
    QuestionRow(
        "Q-WARMUP-ANY", "warmup",
        "Does the learning rate start with a warmup (it ramps up over the first steps)?",
        {"symptom": NEEDS_LOSS_CURVE, "task": Present()}, rank=17, late=True,
        # (a run already placed across a boundary, an RL or LLM run, is checked there first)
        unless=("boundary:*",),
        why="A warmup too short for the batch and optimizer destabilises the first steps; one too long (or given in "
            "samples where steps were meant) keeps the LR low for much of the run.",
        cite=_QR),
    QuestionRow(
        "Q-BATCH-SIZE", "batch_size",
        "What batch size do you train with now?",
        {"symptom": "slow_training"}, rank=13, need=("flag:compute_bound",),
        why="On a busy GPU a small batch leaves throughput on the table; the specialist needs the current size.",
        cite=_SL),
    QuestionRow(
        "Q-TRAIN-VAL", "train_metric",
        "What is the training accuracy (as a fraction, e.g. 0.98)? Give the validation accuracy with it if you can.",
        {"symptom": "overfitting", "generalization_gap": Absent()}, rank=11,
        why="The size of the train/validation gap tells how severe the overfitting is (above 20 points is severe).",
        cite=_OF),
    QuestionRow(
        "Q-ARCHITECTURE", "architecture",
        "Which model family is it (CNN, transformer, RNN, MLP, GNN)?",
        {"symptom": "direct_question", "question_topic": "optimizer"}, rank=20,
        why="The usual optimizer and its LR range depend on the task and the architecture.",
        cite=Cite("001", "Quick reference", "which optimizer: task type, architecture, dataset")),
    QuestionRow(
        "Q-TOPIC", "question_topic",
        "What is your question about?",
        {"symptom": "direct_question", "considering": Absent()}, rank=10,
        why="Each 'which X?' question has its own specialist.",
        cite=Cite("001", "Direct questions", "question column")),
)
