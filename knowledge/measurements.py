"""Probe measurements: the thresholds the tensor probes apply (with sources) and the rows that turn them into findings.

Two tables. ``MEASURES`` holds every number a probe compares against, each with where the number comes
from; the probes read them from here (``threshold(id)``), so changing a threshold is one edit and
``trainopt rule ID`` shows the source. ``ROWS`` are the findings and routes: they cover what only a probe
can see (update-to-weight ratios, gradient flow, dead units, left-over gradients, a softmax fed to a loss
that applies its own) and take their numeric conditions from the same table.
"""

from __future__ import annotations

import math
from typing import Any

from knowledge import all_rows
from knowledge.fixes import FIX_LOADER
from knowledge.record import dataclass
from knowledge.schema import Absent, Between, Cite, Derive, Find, Fix, Flag, Ge, Gt, Is, Le, Lt, RouteTo, Row, Salience

KARPATHY = "Karpathy, 'A Recipe for Training Neural Networks' (2019)"
CS231N = "CS231n notes, 'Neural Networks Part 3: babysitting the learning process' (Karpathy)"
PLAYBOOK = "Google Deep Learning Tuning Playbook (Godbole et al., 2023)"
SAGEMAKER = "Amazon SageMaker Debugger built-in rules"
AUTOTRAINER = "AUTOTRAINER (Zhang et al., ICSE 2021)"
DEEPDIAG = "DeepDiagnosis (Wardat et al., ICSE 2022)"
IEEE = "IEEE 754 binary16 (half precision)"

_DX = "Step 2: investigation commands"


@dataclass(frozen=True)
class Measure:
    """One threshold a probe applies.

    Attributes:
        id: Stable id (``MT-...``).
        value: The number.
        meaning: What crossing it means, in our words.
        source: Where the number comes from (paper, tool, playbook, seed).
        cite: The seed row or external source it encodes.
    """

    id: str
    value: float
    meaning: str
    source: str
    cite: Cite

    def as_dict(self) -> dict[str, object]:
        """Return a JSON-ready view."""
        return {"id": self.id, "value": self.value, "meaning": self.meaning, "source": self.source,
                "cite": self.cite.as_dict()}


MEASURES: tuple[Measure, ...] = (
    # loss at initialization ----------------------------------------------------------------------
    Measure("MT-INIT-RATIO", 1.5,
            "loss at initialization above this multiple of ln(num_classes): the output layer starts confidently "
            "wrong (a well-initialized classifier starts at chance)",
            f"{KARPATHY}, 'verify loss @ init'; seed 003 compares the loss with log(num_classes)",
            Cite("003", _DX, "not learning: current loss vs random-chance loss")),
    Measure("MT-CHANCE-ACC", 1.25,
            "validation accuracy below this multiple of chance (1/num_classes) means nothing generalizable "
            "was learned",
            f"{KARPATHY}, 'input-independent baseline' and label checks; our margin of 25% over chance",
            Cite("003", "Step 1: symptom table", "loss flat from epoch 0")),
    # generalization -------------------------------------------------------------------------------
    Measure("MT-GAP", 0.20, "train accuracy exceeds validation accuracy by more than this: severe overfitting",
            "seed 003, overfitting check (a gap above 20% is severe)",
            Cite("003", _DX, "overfitting: train/val gap > 20%")),
    # update-to-weight ratio -----------------------------------------------------------------------
    Measure("MT-UPD-HEALTHY", 1e-3, "healthy |update| / |weight| per step",
            f"{CS231N}: ratio of updates to weights around 1e-3", Cite(CS231N, "ratio of weights:updates", "~1e-3")),
    Measure("MT-UPD-HIGH", 1e-1, "update/weight ratio above this (100x the healthy 1e-3): LR far too high",
            f"{CS231N} (two decades above ~1e-3); {SAGEMAKER} WeightUpdateRatio flags ratios far from healthy",
            Cite(CS231N, "ratio of weights:updates", "much higher: LR too high")),
    Measure("MT-UPD-LOW", 1e-5, "update/weight ratio below this (100x under the healthy 1e-3): LR far too low",
            f"{CS231N} (two decades below ~1e-3)", Cite(CS231N, "ratio of weights:updates", "much lower: LR too low")),
    # gradient flow --------------------------------------------------------------------------------
    Measure("MT-GRAD-VANISH-RATIO", 1e-3,
            "RMS gradient of the first layer below this fraction of the last layer's: gradients vanish on the "
            "way back",
            f"{AUTOTRAINER} detects vanishing gradients by comparing first- and last-layer gradients; "
            "the factor is ours", Cite("003", "Step 3: route to fix", "vanishing gradients")),
    Measure("MT-GRAD-EXPLODE-RATIO", 1e3,
            "RMS gradient of the first layer above this multiple of the last layer's: gradients grow on the way "
            "back", f"{AUTOTRAINER} (first/last-layer comparison); the factor is ours",
            Cite("003", "Step 3: route to fix", "gradient explosion")),
    Measure("MT-GRAD-EXPLODE-ABS", 1e2,
            "global gradient L2 norm above this: exploding (clipping at max_norm=1.0 is the seed's fix)",
            "seed 003 fix table clips at max_norm 1.0; a norm 100x the clip value is explosion (our bound)",
            Cite("003", "Step 3: route to fix", "gradient explosion: clip max_norm=1.0")),
    Measure("MT-GRAD-LOSS-REF", 100.0,
            "a loss that starts above this is summed over many elements (pixels, tokens, the batch: a VAE's "
            "reduction='sum' ELBO): its gradient norm is that many times a mean-reduced loss's, so the norm is "
            "judged per this much loss at the start before MT-GRAD-EXPLODE-ABS applies (Adam's steps do not "
            "depend on the scale; a blow-up grows the norm against the start, not with it)",
            "our bound: a mean-reduced loss starts near ln C (under 11 for any vocabulary) or the targets' "
            "variance, and an exploding init lifts it to tens; a sum over a batch of pixels starts in the "
            "thousands; a gradient scales linearly with its loss's reduction",
            Cite("003", "Step 3: route to fix", "gradient explosion: clip max_norm=1.0")),
    # A norm over MT-GRAD-EXPLODE-ABS is the loss's scale, not an explosion, when it got there by a gradual rise
    # while the loss fell normally: a likelihood with a learned variance (its loss goes below zero) or any loss
    # that sharpens as it fits has a gradient that grows as 1/sigma^2 with the fit. An explosion is geometric: it
    # starts above the bound (a bad init, an RNN's recurrence), spikes, grows by orders of magnitude, or breaks
    # the loss.
    Measure("MT-GRAD-RISE", 100.0,
            "a gradient norm that rose steadily (no spike) to over MT-GRAD-EXPLODE-ABS from a start under it, by "
            "less than this factor, while the loss falls normally, follows the loss's own sharpening: not exploding",
            "our bound: exploding gradients grow geometrically (two decades or more within a run) or break the "
            "loss (spikes, NaN); a Gaussian likelihood whose learned variance shrinks raises the norm about tenfold "
            "in a few hundred steps while it keeps learning (measured, tests/test_watch_vae_i35.py)",
            Cite("003", "Step 3: route to fix", "gradient explosion: clip max_norm=1.0")),
    Measure("MT-GRAD-VANISH-ABS", 1e-7, "global gradient L2 norm below this: no learning signal at all",
            f"{SAGEMAKER} VanishingGradient (default threshold 1e-7)",
            Cite("003", "Step 3: route to fix", "vanishing gradients")),
    Measure("MT-GRAD-SPIKE", 10.0, "a step's gradient norm above this multiple of the running median is a spike",
            f"{PLAYBOOK}: watch gradient-norm outliers (clip near a high percentile); our factor",
            Cite("003", _DX, "instability: track gradient norms over steps")),
    # activations ----------------------------------------------------------------------------------
    Measure("MT-DEAD-RELU", 0.5, "more than this fraction of a layer's ReLU units output zero for every example",
            f"{SAGEMAKER} DeadRelu (threshold_layer 50%); {DEEPDIAG} 'dying ReLU'",
            Cite(SAGEMAKER, "DeadRelu", "threshold_layer")),
    # A regularised model (a VAE's KL term, a sparsity penalty) or a wide layer on all-positive inputs can leave
    # half a layer silent early and still learn at full pace: the live units carry the signal. Only a layer that
    # has lost nearly every unit starves a run that is otherwise learning.
    Measure("MT-DEAD-RELU-ALL", 0.9,
            "while the loss falls normally, dead ReLUs are spare capacity unless at least this fraction of a "
            "layer is dead",
            f"{DEEPDIAG} 'dying ReLU' (its symptom is a loss that stops improving); Lu et al., 'Dying ReLU and "
            "Initialization' (2019): a layer dead for every input cuts the network; the 90% is ours",
            Cite(DEEPDIAG, "dying ReLU", "training stalls")),
    Measure("MT-SATURATION", 0.5, "more than this fraction of a layer's tanh/sigmoid outputs are saturated",
            f"{SAGEMAKER} SaturatedActivation (threshold_layer 50%); {DEEPDIAG} 'saturated activation'",
            Cite(SAGEMAKER, "SaturatedActivation", "threshold_layer")),
    Measure("MT-SAT-LEVEL", 0.99, "|tanh| above this (sigmoid outside [1-x, x]) counts as saturated",
            f"{DEEPDIAG} (saturated units have near-zero derivative); the level is ours",
            Cite(DEEPDIAG, "saturated activation", "near-flat region")),
    # loop faults ----------------------------------------------------------------------------------
    Measure("MT-CARRYOVER", 3.0,
            "gradient carried into a fresh backward pass worth more than three fresh gradients: zero_grad is "
            "missing", "PyTorch accumulates .grad across backward calls until zeroed, so the left-over grows by one "
            "gradient per step; our margin of 3 absorbs batch-to-batch variation",
            Cite("003", "Scope boundaries", "training loop issues")),
    Measure("MT-INPUT-SCALE", 10.0, "inputs whose mean or spread exceeds this are far from normalized",
            f"{KARPATHY} and {CS231N}: normalize inputs to zero mean, unit variance; our bound",
            Cite(KARPATHY, "become one with the data", "normalization")),
    Measure("MT-DATA-FRAC", 0.5,
            "data loading takes more than this fraction of the step: the loop is input-bound",
            "seed 003: data time above compute time means a data-loading bottleneck",
            Cite("003", _DX, "training slow: data loading vs compute")),
    Measure("MT-DATA-MIN-MS", 2.0,
            "a data wait shorter than this many milliseconds per step is not read as an input bottleneck",
            "a DataLoader worker hands each batch over through a queue (pickling and inter-process transfer, "
            "around a millisecond a batch), and a framework's own per-step bookkeeping costs as much: a shorter "
            "wait is what any loader pays, which more workers or pinned memory cannot remove; tiny in-memory "
            "batches reach half of a tiny step through it alone (a healthy 2-process toy run did under load); "
            "our bound",
            Cite("003", _DX, "training slow: data loading vs compute")),
    Measure("MT-FROZEN", 0.5, "more than this fraction of parameters frozen",
            "seed 003 lists frozen parameters as a cause of a flat loss; our fraction",
            Cite("003", "Step 1: symptom table", "loss flat from epoch 0: frozen params")),
    # precision ------------------------------------------------------------------------------------
    Measure("MT-EPS-FP16", 6e-8, "an Adam eps below the smallest FP16 subnormal rounds to zero in half precision",
            f"{IEEE}: smallest subnormal about 5.96e-8", Cite("002", "FP16 training", "loss scaling and range")),
    Measure("MT-UNDERFLOW", 0.5, "more than this fraction of half-precision gradient elements are exactly zero",
            "seed 002: FP16 without loss scaling lets gradients underflow", Cite("002", "anti-patterns",
                                                                                  "FP16 without loss scaling")),
    # loss-curve classifier --------------------------------------------------------------------------
    Measure("MT-CURVE-FLAT", 0.05, "a loss whose smoothed level never drops by this fraction is flat",
            f"seed 003 symptom table; {SAGEMAKER} LossNotDecreasing; our tolerance",
            Cite("003", "Step 1: symptom table", "loss flat from epoch 0")),
    Measure("MT-CURVE-SLOW", 0.25, "a total drop below this fraction is slow progress",
            "seed 000 quick reference (loss stuck / slow); our fraction", Cite("000", "Quick reference",
                                                                               "loss flat/stuck")),
    Measure("MT-SLOW-SPAN-EPOCHS", 2,
            "epochs a loss said to move by numbers must be said to take for a drop below MT-CURVE-SLOW to be slow "
            "progress ('only went from 0.7 to 0.6 after 20 epochs')",
            "our bound: within one epoch a small drop is the start of a curve, not its pace",
            Cite("000", "Quick reference", "loss flat/stuck")),
    Measure("MT-SLOW-SPAN-STEPS", 1000,
            "steps (iterations, batches) a loss said to move by numbers must be said to take for a drop below "
            "MT-CURVE-SLOW to be slow progress ('0.69 to 0.65 over 10k steps')",
            "our bound: about an epoch of a small dataset; a few hundred steps are the start of a curve",
            Cite("000", "Quick reference", "loss flat/stuck")),
    Measure("MT-CURVE-PLATEAU", 0.02,
            "after learning, the last half dropping less than this fraction of the starting scale, with the noise "
            "(three standard errors of the smoothed level) included, is a plateau: a noisy tail that may still be "
            "falling is not one",
            "seed 003 symptom table (decreased then plateaued); our fraction",
            Cite("003", "Step 1: symptom table", "loss decreased then plateaued")),
    Measure("MT-CURVE-AT-FLOOR", 0.02,
            "a cross-entropy loss that stays within this fraction of the way from its floor to chance (ln C) is "
            "fitted: flat there from the start is a converged or resumed run, not a stalled one",
            "our bound; chance level ln C as in seed 003's initial-loss check",
            Cite("003", "Step 1: symptom table", "loss flat from epoch 0")),
    Measure("MT-CURVE-CONVERGED", 0.8,
            "a flat tail after coming this fraction of the way from the initial loss (its first points) to the "
            "loss's floor is convergence, not a plateau problem",
            "our bound: the seed's plateau symptom is progress that stalls early, far above where the run could go, "
            "not a run that has converged",
            Cite("003", "Step 1: symptom table", "loss decreased then plateaued")),
    Measure("MT-CURVE-DIVERGE", 0.5, "the smoothed loss ending this fraction above its start is diverging",
            "seed 001 unstable-training table; our fraction", Cite("001", "Symptom: training unstable",
                                                                   "loss diverging")),
    Measure("MT-CURVE-OSC", 0.2, "step-to-step swings above this fraction of the level without progress: oscillating",
            "seed 003 symptom table (loss oscillating); our fraction",
            Cite("003", "Step 1: symptom table", "loss oscillating")),
    Measure("MT-CURVE-FIT", 0.02,
            "a loss curve fitted by one decaying exponential within this fraction of the decay's amplitude (rms "
            "over the binned curve), or within three standard errors of a bin median, approached its own floor "
            "smoothly: when the loss's floor is not known (BCE against grey-level targets, a noisy regression, "
            "an ELBO, a KL-regularised or custom loss), the fitted asymptote is the floor progress is measured "
            "against; a curve that stops abruptly far above where its descent was heading (an LR cut to nothing) "
            "misfits by 3-5% of its drop and keeps the floor it was given",
            "issue 17 (healthy VAE and BCE runs read flat or slow because progress was judged as a fraction of the "
            "whole loss, as if it could reach 0); exponential approach to an asymptote as in learning-curve "
            "extrapolation (Domhan et al. 2015, 'Speeding up automatic hyperparameter optimization of deep "
            "neural networks by extrapolation of learning curves'); our tolerance, between smooth approaches "
            "(under 1.2% on our dev curves) and linear descents cut off (3-5%)",
            Cite("003", "Step 1: symptom table", "loss decreased then plateaued")),
    Measure("MT-CURVE-STOP", 0.25,
            "a flat tail standing above the level the descent before it was heading for (a decaying exponential "
            "fitted to that descent, extrapolated to the end of the run) by more than this fraction of the drop "
            "the run made stopped short: a plateau even when the whole curve fits one exponential",
            "issue 17 (a fitted floor read an LR cut mid-descent as convergence); our fraction: a run arriving at "
            "its own floor sits at or below its descent's extrapolation, an LR cut leaves the tail 40-60% of the "
            "drop made above it on our dev curves",
            Cite("003", "Step 1: symptom table", "loss decreased then plateaued")),
    Measure("MT-CURVE-CONST-OUT", 1e-3,
            "a model output whose spread across the batch (per element, over examples) is under this fraction of "
            "its size ignores its input: a level its loss settles on is the loss of one answer for every example "
            "(the mean image, the class prior), not a floor of the data, so no floor is fitted to it",
            "our bound: any input-dependent output varies by far more than float rounding (1e-7 relative); a "
            "decoder fed zeros or a collapsed posterior gives the same image for every example",
            Cite("003", "Step 1: symptom table", "loss decreased then plateaued")),
    Measure("MT-CURVE-STEADY", 3.0,
            "with the floor unknown, a small drop reads as slow only when the descent is steady: a first third "
            "falling this many times faster than the last (a run arriving at its own floor) or a last third "
            "falling this many times faster than the first (learning that began after a plateau, as a VAE's "
            "posterior collapse holds it) is not a slow LR",
            "issue 17; an LR too low moves the loss at a nearly constant small rate from the first step, while "
            "a healthy run decelerates as it nears its floor; our ratio",
            Cite("000", "Quick reference", "loss flat/stuck")),
    Measure("MT-CURVE-SPIKE", 8.0, "a point this many robust deviations above its neighbours is a spike",
            "robust z-score on a rolling median (MAD x 1.4826); our factor",
            Cite("003", "Step 1: symptom table", "loss NaN/Inf or spikes")),
    # thresholds the rows cite (one table for every number; probes may append theirs below) ----------
    Measure("MT-CHANCE-BAND", 0.10,
            "a loss within this relative distance of ln(num_classes) sits at chance level (a uniform guess)",
            "seed 003 compares the loss with ln(num_classes); a uniform softmax sits exactly there and the first "
            "batches add a little noise, so we accept a 10% band",
            Cite("003", _DX, "not learning: loss near random chance = log(num_classes)")),
    Measure("MT-NAN-EARLY", 10,
            "a first non-finite value before this step is the 'immediate' onset (data, init or loss formula); "
            "from it on, the 'after steps' onset (schedule, drift, loss scale)",
            "seed 000 splits NaN onset into 'immediately at start' and 'after N epochs'; within the first 10 steps "
            "nothing (schedule, drift, optimizer state) has had time to build up",
            Cite("000", "Symptom: training unstable", "when do NaN values appear")),
    Measure("MT-WARMUP-STEPS-MIN", 100,
            "an LR said to reach its peak (the warmup over) after fewer optimizer steps than this reached it far "
            "sooner than any warmup is set for: the schedule runs ahead of the steps it was defined in",
            "warmups are set in the hundreds to thousands of steps (BERT 10k, the usual 1-10% of a run); a "
            "peak within a few dozen steps is a schedule stepped per micro-batch or per process, or defined in "
            "epochs and stepped per batch",
            Cite("003", "Step 3: fix table", "LR too high: decrease LR, add warmup")),
    Measure("MT-WARMUP-SHARE-MIN", 0.002,
            "an LR said to reach its peak after less than this share of the run's steps ('the first 50 of 100k') "
            "reached it sooner than any warmup is set for",
            "warmups take about 1-10% of a run; a fifth of a percent is an order of magnitude under the shortest",
            Cite("003", "Step 3: fix table", "LR too high: decrease LR, add warmup")),
    Measure("MT-LR-ADAPTIVE-LOW", 1e-5,
            "an Adam-family peak LR below this is one to two decades under the usual 1e-4..1e-3",
            "PyTorch's Adam default is 1e-3 and Karpathy's recipe uses 3e-4; 1e-5 is far under that range",
            Cite("003", "Step 3: fix table", "LR too low: increase LR 10-100x")),
    Measure("MT-LR-ADAPTIVE-HIGH", 1e-2,
            "an Adam-family peak LR above this is far outside the usual 1e-4..1e-3",
            "Karpathy's recipe (3e-4) and the Adam default (1e-3); 1e-2 is a decade above the range",
            Cite("003", "Step 3: fix table", "LR too high: decrease LR, add warmup")),
    Measure("MT-LR-SGD-LOW", 1e-3,
            "an SGD peak LR below this is one to two decades under the usual 0.01..0.1",
            "0.1 is the classic ResNet SGD LR; 1e-3 is two decades under it",
            Cite("003", "Step 3: fix table", "LR too low: increase LR 10-100x")),
    Measure("MT-LR-SGD-HIGH", 0.5,
            "an SGD peak LR above this is several times the usual 0.01..0.1",
            "0.1 is the classic ResNet SGD LR; 0.5 is five times it",
            Cite("003", "Step 3: fix table", "LR too high: decrease LR, add warmup")),
    Measure("MT-LION-LR", 3e-4,
            "a Lion LR above this is AdamW-sized: Lion needs a 3-10x lower LR than AdamW",
            "seed 002: Lion requires a 3-10x lower LR than AdamW; AdamW's usual 1e-4..1e-3 puts Lion at "
            "1e-5..3e-4", Cite("002", "Optimizers: Lion", "requires 3-10x lower LR than AdamW")),
    Measure("MT-LION-WD", 0.01,
            "a Lion weight decay at or below this is AdamW-sized: Lion needs a 3-10x higher decay",
            "seed 002: Lion requires a higher weight decay than AdamW; 0.01 is PyTorch's AdamW default",
            Cite("002", "Optimizers: Lion", "requires higher weight decay than AdamW")),
    Measure("MT-LAMB-BATCH", 32768,
            "a batch of at least this size is LAMB territory: Adam's uniform step destabilizes some layers",
            "seed 002: LAMB was designed for large-batch pretraining at 32K-64K examples per batch",
            Cite("002", "Optimizers: LAMB", "large-batch pretraining (32K-64K)")),
    Measure("MT-GPU-IDLE", 50,
            "GPU utilization consistently below this percentage: not compute-bound, the input pipeline is the target",
            "seeds 000/001 slow-training table: under 50% consistently means data loading or CPU preprocessing",
            Cite("001", "Symptom: training too slow", "< 50% consistently")),
    Measure("MT-GPU-BUSY", 80,
            "GPU utilization at or above this percentage: compute-bound (batch size, precision, scale-out)",
            "seeds 000/001 slow-training table: above 80% but still slow is compute-bound",
            Cite("001", "Symptom: training too slow", "> 80% but still slow")),
    # speed compared between two timed runs (the text reader) ----------------------------------------------
    Measure("MT-SPEEDUP-FLAT", 1.1,
            "measured against fewer GPUs, a data throughput gained by at most this factor is no speed-up at all "
            "(multi_gpu_speedup=none): within the noise of two timings",
            "seeds 000/001 slow-training table (scale-out is the compute-bound remedy); our noise margin for two "
            "timings a user reads off a progress bar",
            Cite("001", "Symptom: training too slow", "> 80% but still slow")),
    Measure("MT-SPEEDUP-PARTIAL", 0.6,
            "a multi-GPU speed-up below this share of the linear one (4 GPUs: below 2.4x) is far below linear "
            "(multi_gpu_speedup=partial); above it, scaling is as good as data parallelism usually gets",
            "seeds 000/001 slow-training table; our share, leaving room for all-reduce and input costs",
            Cite("001", "Symptom: training too slow", "> 80% but still slow")),
    Measure("MT-SPEEDUP-PRECISION", 0.95,
            "a lower-precision (or feature-on) timing at or above this share of the baseline's is no faster: the "
            "change meant to speed the run up did not",
            "seed 002: half precision gives about 2x on Tensor Core GPUs; our margin for timing noise",
            Cite("002", "Mixed Precision Training", "Approximately 2x speedup")),
    Measure("MT-DATA-SMALL", 1000,
            "fewer training examples than this: augmentation is critical against overfitting",
            "seed 000 overfitting decision factors: a small dataset is under 1K examples",
            Cite("000", "Symptom: model overfits · decision factors", "small dataset (< 1K)")),
    Measure("MT-DATA-LARGE", 10000,
            "at least this many examples and still overfitting: check the model's capacity",
            "seed 000 overfitting decision factors: a large dataset is over 10K examples",
            Cite("000", "Symptom: model overfits · decision factors", "large dataset (> 10K)")),
    # --- probe thresholds appended by issue 9 ---------------------------------------------------------
    Measure("MT-UPD-LR-PEAK", 0.3,
            "a too-small update ratio is judged only while the LR is at least this fraction of the schedule's peak: "
            "warmup starts and annealed ends (cosine, one-cycle, step decay) are small on purpose",
            f"{PLAYBOOK}: schedules anneal the LR towards zero by design; our fraction",
            Cite("003", "Step 3: route to fix", "LR too low: increase LR 10-100x")),
    Measure("MT-UPD-HIGH-LAYER", 0.3,
            "one weight matrix whose update is above this fraction of its weights per step speaks for the run even "
            "when the median layer looks fine (a 10x LR shows first in the output layer)",
            f"{CS231N} (ratio per parameter group, ~1e-3 healthy); {SAGEMAKER} WeightUpdateRatio is judged per "
            "tensor; 2.5 decades above healthy, our bound (fresh layers of healthy SGD-momentum runs reach 0.16)",
            Cite(CS231N, "ratio of weights:updates", "much higher: LR too high")),
    Measure("MT-CURVE-SPIKE-ABS", 0.25,
            "a loss spike must also rise above its neighbours by this fraction of the loss at the start: late in "
            "a run the noise is tiny, and 0.005 -> 0.2 against a start of 1.4 is noise, not instability",
            "absolute tolerance judged against the starting loss scale, as curve tests need both a relative and an "
            "absolute tolerance (numpy.isclose's rtol/atol convention); our fraction",
            Cite("003", "Step 1: symptom table", "loss NaN/Inf or spikes")),
    # --- loop lint thresholds (probes/loop_lint.py), appended by issue 7 causes ------------------------
    Measure("MT-STEP-MIN", 50,
            "optimizer steps are counted against training steps only after this many training steps: gradient "
            "accumulation and AMP's first calibration skips make shorter counts ambiguous",
            "GradScaler starts at 2**16 and halves on each overflow, so calibration skips a dozen or so steps at "
            "most; accumulation over up to 32 micro-batches still steps within 50; our bound",
            Cite("003", "Scope boundaries", "training loop issues")),
    Measure("MT-STEP-NOGRAD", 0.9,
            "at least this fraction of the optimizer steps find no gradient at all (every .grad None, or every "
            "gradient exactly zero): the gradients are cleared between backward and step, so nothing is applied",
            "backward fills .grad and step reads it; zero_grad in between (or no backward) leaves the step nothing; "
            "a loop that steps once before its first backward misses only that one, so 90% is our margin",
            Cite("003", "Scope boundaries", "training loop issues")),
    Measure("MT-STEP-NOGRAD-MIN", 10,
            "the gradient-free-step fraction is judged only after this many optimizer steps",
            "a few steps are enough: a cleared gradient is exact, not noisy; our bound",
            Cite("003", "Scope boundaries", "training loop issues")),
    Measure("MT-STEP-TWICE", 1.5,
            "more optimizer steps than this per training step: the optimizer is stepped twice (each gradient is "
            "applied twice)", "one step per training step is the loop's contract; 1.5 lies halfway to two, so a "
            "few extra or skipped steps do not tip the count", Cite("003", "Scope boundaries",
                                                                    "training loop issues")),
    Measure("MT-STEP-TWICE-MAX", 2.5,
            "more optimizer steps than this per recorded training step says the loop records only some of its "
            "steps (a logging cadence), not that it steps twice: no verdict",
            "two steps per training step is the double-step fault; three or more is a recording cadence; 2.5 lies "
            "halfway", Cite("003", "Scope boundaries", "training loop issues")),
    Measure("MT-SKIP-PERSISTENT", 0.5,
            "GradScaler skipping more than this fraction of steps is a collapsing loss scale, not calibration",
            "torch.amp.GradScaler halves the scale on an overflow and doubles it after 2000 clean steps "
            "(growth_interval), so a healthy run skips a handful of early steps and then about one in 2000; "
            "half the steps skipped is our bound", Cite("002", "FP16 training", "dynamic loss scaling")),
    Measure("MT-LOSSMUL-LOW", 1e-4,
            "the loss reaching backward multiplied by less than this (read at the model's output, a GradScaler's "
            "scale divided out) and never divided back: every gradient, and every update, shrinks by that factor",
            "below 1/k for any accumulation count in use (k up to a thousand gives 1e-3); a typical gradient of 1e-3 "
            "times 1e-4 is 1e-7, at Adam's eps (1e-8) and fp16's subnormal range (6e-8), where updates stop; a "
            "collapsed dynamic loss scale halves towards zero far past this", Cite("002", "FP16 training",
                                                                                  "dynamic loss scaling")),
    Measure("MT-PERFECT-ACC", 0.999,
            "validation accuracy at or above this is perfect: on a real task that is a leak or degenerate labels, "
            "not a model", f"{KARPATHY}: results that look too good are checked for leakage and label bugs first; "
            "0.999 leaves room for rounding of a reported 100%", Cite("003", _DX, "overfitting: check the train/val "
                                                                         "split")),
    Measure("MT-TARGET-SCALE", 10.0,
            "regression targets whose mean or spread exceeds this are in raw units, far from standardized",
            f"{KARPATHY}: normalize what the network must output as well as its inputs; same bound as MT-INPUT-SCALE",
            Cite("003", _DX, "not learning: check data and labels")),
    Measure("MT-TRAIN-BELOW-VAL", -0.02,
            "training accuracy minus validation accuracy below this (training more than 2 points under validation): "
            "the training task is harder than the evaluated one",
            "training metrics are measured on augmented inputs with dropout active, so a small negative gap is "
            "common; two points is our margin beyond noise", Cite("000", "Symptom: which X should I use? (direct "
                                                                  "questions)", "which augmentation? strength")),
    Measure("MT-GRAD-SPIKE-ABS", 0.25,
            "a gradient-norm spike must also reach this fraction of the norm the run started with (its first "
            "window): late in a converged run the norms are tiny, and a jump among them is noise, not instability",
            "the absolute tolerance of the loss-spike test (MT-CURVE-SPIKE-ABS) applied to gradient norms; our "
            "fraction", Cite("003", _DX, "instability: track gradient norms over steps")),
    Measure("MT-UPD-WORKING", 1e-4,
            "an update ratio of at least this (within a decade of the healthy 1e-3) is a working update rate: "
            "below it, chance-level accuracy is explained by steps too small to learn, not by the labels; and "
            "when the same LR later gives ratios under MT-UPD-LOW, the gradients shrank (a loss near its "
            "minimum), not the LR",
            f"{CS231N} (~1e-3 healthy); a decade of margin is ours (layers whose healthy ratio is high, such as "
            "a small CNN's head, stay above the 'far too low' bound even at an LR far too low)",
            Cite(CS231N, "ratio of weights:updates", "~1e-3")),
    Measure("MT-WNORM-COLLAPSE", 0.1,
            "the weight matrices' global norm fell below this fraction of its value at the start: weight decay "
            "is driving the weights to zero (their gradients shrink with them, which is not a vanishing gradient)",
            "decoupled weight decay multiplies the weights by (1 - lr * wd) each step (Loshchilov & Hutter, 2019), "
            "so lr * wd * steps above about 2.3 leaves under a tenth of the weights; our fraction",
            Cite("002", "Optimizers: Adam and AdamW", "AdamW decouples weight decay from the gradient update")),
    Measure("MT-WNORM-SHRINK", 0.5,
            "the weight matrices' global norm fell below this fraction of its start while weight decay makes most "
            "of each update (MT-DECAY-SHARE): the decay, not the loss, sets the weights' size",
            "a network whose weights halve while the decay outweighs the gradient is held at the size the decay "
            "allows; healthy runs keep or grow their weight norm; our fraction",
            Cite("002", "Optimizers: Adam and AdamW", "AdamW decouples weight decay from the gradient update")),
    Measure("MT-DECAY-SHARE", 0.5,
            "weight decay's shrink per step (lr * wd; lr * wd / (1 - momentum) for SGD) at least this fraction of "
            "the weights' measured relative update per step: the decay is most of what moves the weights",
            "healthy settings shrink 1e-5..1e-4 of the weights a step against updates near 1e-3 (CS231n), a share "
            "of a few percent; a share near one means the gradient only holds the weights against the decay; "
            "our bound",
            Cite("002", "Optimizers: Adam and AdamW", "AdamW decouples weight decay from the gradient update")),
    Measure("MT-VAL-RISE", 0.1,
            "validation loss this fraction above its best value (and above the noise of its own history) while the "
            "training loss kept falling: the model has started to overfit",
            "early stopping watches the validation loss for a rise after its minimum (Prechelt, 'Early stopping - "
            "but when?', 1998); our relative tolerance",
            Cite("003", "Step 1: symptom table", "train good, val bad: overfitting")),
    # --- issue 20: distributed runs (the rank probe, probes/ranks.py) ---------------------------------------
    Measure("MT-DDP-DESYNC-REL", 1e-6,
            "parameter fingerprints of two ranks differing by more than this fraction: the replicas hold different "
            "weights",
            "DDP replicas are bitwise identical (one broadcast at construction, then the same all-reduced gradient "
            "on every rank: PyTorch DDP notes); the tolerance only absorbs the rounding of float64 sums",
            Cite("PyTorch docs", "Distributed Data Parallel notes", "replicas stay in sync")),
    Measure("MT-DDP-GRAD-REL", 1e-4,
            "gradient norms at the same optimizer step differing across ranks by more than this fraction: the "
            "gradients applied were not all-reduced",
            "after DDP's all-reduce every rank holds the same averaged gradient (PyTorch DDP notes); the tolerance "
            "absorbs reduction order in the norm",
            Cite("PyTorch docs", "DistributedDataParallel.no_sync", "gradients accumulate locally inside no_sync")),
    Measure("MT-DDP-SKEW", 1.5,
            "the slowest rank's own time per step (before it waits for the others) above this multiple of the "
            "median rank's: a straggler",
            "a synchronous data-parallel step runs at the pace of its slowest rank (PyTorch DDP notes); our bound, "
            "well above the few percent of jitter between identical ranks",
            Cite("PyTorch docs", "Distributed Data Parallel notes", "the all-reduce waits for every rank")),
    Measure("MT-DDP-SKEW-ABS", 0.02,
            "seconds per step the slowest rank must lose to the median before a skew counts (timer noise on tiny "
            "steps is not a straggler)",
            "our floor: one or two scheduler time slices (4-10 ms each on Linux) of jitter on a shared host",
            Cite("PyTorch docs", "Distributed Data Parallel notes", "the all-reduce waits for every rank")),
    Measure("MT-BN-RANK-BATCH", 16,
            "per-rank batch below which BatchNorm statistics computed on one rank are too noisy (SyncBatchNorm "
            "advised)",
            "Wu & He, 'Group Normalization' (2018): BatchNorm's error rises quickly below 16 examples per GPU",
            Cite("Wu & He 2018", "Group Normalization", "BN error vs batch size per GPU")),
    # --- issue 18: output/target contracts, optimizer settings, clipping, normalisation, schedules, order ------
    Measure("MT-EPS-HIGH", 1e-3,
            "an Adam-family eps at or above this dominates sqrt(v) for gradients of ordinary size: the update "
            "becomes lr * m / eps, plain momentum SGD at a tiny LR",
            "PyTorch and Kingma & Ba default 1e-8 (Keras 1e-7); the denominator sqrt(v) + eps equals the gradient's "
            "RMS, typically 1e-4..1e-2 per element, so eps of 1e-3 and more decides the step; our bound",
            Cite("002", "Optimizers: Adam and AdamW", "Adam hyperparameters")),
    Measure("MT-BETA2-LOW", 0.9,
            "an Adam beta2 below this averages the squared gradient over fewer than ten steps: the denominator "
            "is noisy and steps blow up whenever it dips",
            "Kingma & Ba (2015) use 0.999; large-model recipes lower it to 0.95-0.98; below 0.9 the moment is a "
            "handful of steps (1 / (1 - beta2)); our bound", Cite("002", "Optimizers: Adam and AdamW",
                                                                  "Adam hyperparameters")),
    Measure("MT-MOMENTUM-HIGH", 0.995,
            "an SGD momentum at or above this averages the gradient over hundreds of steps and amplifies the LR "
            "by 1 / (1 - momentum) >= 200: the iterates overshoot and keep oscillating",
            "the usual SGD momentum is 0.9 (0.99 at most in published recipes; Sutskever et al., 2013, ramp to "
            "0.99-0.999 only with a schedule); our bound",
            Cite("002", "Optimizers: SGD with Momentum", "momentum 0.9 is standard")),
    Measure("MT-DECAY-STEP", 5e-3,
            "weight decay that shrinks the weights by at least this fraction every step (lr * wd; lr * wd / (1 - "
            "momentum) for SGD's coupled decay) halves them within about 140 steps whatever the gradient says",
            "healthy recipes shrink 1e-5..1e-3 a step (AdamW lr 1e-3 wd 0.1: 1e-4; SGD lr 0.1 wd 5e-4 momentum "
            "0.9: 5e-4); our bound lies five times above the largest", Cite("002", "Optimizers: Adam and AdamW",
                                                                         "weight decay 0.01-0.1")),
    Measure("MT-WD-FAR-SGD", 5e-3,
            "an SGD weight decay (coupled L2) at or above this is far beyond the usual range whatever the LR: "
            "with momentum 0.9 it shrinks the weights 10x faster than the usual recipe at the same LR",
            "common practice: SGD with momentum uses 1e-4..5e-4 (ResNet/ImageNet recipes); our bound is ten "
            "times the top of that range", Cite("002", "Optimizers: SGD with Momentum", "momentum 0.9 is standard")),
    Measure("MT-WD-FAR-DECOUPLED", 0.5,
            "an Adam/AdamW-family weight decay at or above this is far beyond the usual range whatever the LR "
            "(also the bound when the optimizer is unknown: the most lenient of the two families)",
            "seed 002 and common practice: AdamW uses 0.01..0.1 (LLaMA 0.1, DeiT 0.05, PyTorch default 0.01); "
            "a few recipes reach 0.2-0.4 (CLIP 0.2, DINO's schedule ends at 0.4), so our bound is five times the "
            "usual top rather than ten (ten would be 1.0, the value itself of a decoupled decay that zeroes a "
            "weight in 1/lr steps)", Cite("002", "Optimizers: Adam and AdamW", "weight decay 0.01-0.1")),
    Measure("MT-BN-BATCH", 4,
            "BatchNorm in training mode over this many examples per device or fewer: the batch statistics are "
            "noise, and evaluation with running statistics differs from training",
            "Wu & He, 'Group Normalization' (ECCV 2018), fig. 1: ResNet-50 BatchNorm error rises from 23.6% at 32 "
            "images per GPU to 27.3% at 4 and 34.7% at 2", Cite("Wu & He, Group Normalization (ECCV 2018)", "Figure 1",
                                                   "BatchNorm error against images per GPU")),
    Measure("MT-DROPOUT-HIGH", 0.8,
            "a dropout probability at or above this drops most units: usually TensorFlow's keep_prob written "
            "as PyTorch's p (p is the probability to drop)",
            "Srivastava et al. (2014) use p = 0.5 for hidden units and 0.2 for inputs; torch.nn.Dropout's p is "
            "the drop probability while tf.nn.dropout's keep_prob was the keep probability; our bound",
            Cite("Srivastava et al., Dropout (JMLR 2014)", "Section 6",
                                                                "retention probability 0.5 hidden, 0.8 input")),
    Measure("MT-LR-ZERO-FRAC", 0.5,
            "the LR actually applied was exactly 0 at this fraction of the sampled steps or more: the optimizer "
            "does not move the weights",
            "an LR of 0 is a no-op step (torch applies p -= 0 * update); a warmup from 0 spends a few percent of "
            "the run there, half the run is our bound", Cite("003", "Step 3: route to fix", "LR too low")),
    Measure("MT-LR-LOW-FACTOR", 0.01,
            "an applied LR below this fraction of the LR the optimizer was built with counts as held near zero",
            "a cosine schedule spends its last few percent of steps below 1% of its peak; our fraction",
            Cite("003", "Step 3: route to fix", "LR too low")),
    Measure("MT-LR-LOW-FRAC", 0.5,
            "the applied LR sat below MT-LR-LOW-FACTOR of the built LR at this fraction of the sampled steps or "
            "more: the schedule runs far faster (or a warmup far slower) than it was written for",
            "healthy warmup-cosine and step schedules keep the LR within 1% of its peak for most of the run; half "
            "the run is our bound", Cite("003", "Step 3: route to fix", "LR schedule")),
    Measure("MT-CLIP-TOL", 1e-3,
            "gradient norms at the optimizer step equal to within this relative spread on every sampled step "
            "(at least MT-CLIP-MIN of them): clip_grad_norm_ cut every step's gradient to its max_norm",
            "clip_grad_norm_ rescales gradients to norm max_norm exactly (up to its 1e-6 epsilon); unclipped norms "
            "vary by far more than 0.1% between batches", Cite("003", "Step 3: route to fix",
                                                             "gradient explosion: clip max_norm")),
    Measure("MT-CLIP-MIN", 4, "sampled steps needed before a constant clipped norm is trusted",
            "two windows of two sampled steps; our count", Cite("003", "Step 3: route to fix",
                                                                  "gradient explosion: clip max_norm")),
    Measure("MT-RESET-MIN", 3,
            "sampled intervals between optimizer steps (each with a backward pass seen) needed before a verdict on "
            "whether .grad is cleared between steps",
            "three sampled steps, the first window's worth at the default sampling; our count",
            Cite("003", "Scope boundaries", "training loop issues")),
    Measure("MT-RESET-NEVER", 0.9,
            "at this fraction of the sampled intervals or more, every backward pass found the last step's gradient "
            "still in .grad (never None, never zeros): gradients are never reset between steps",
            "PyTorch adds each backward into .grad until zero_grad clears it; a loop that zeroes (once per step or "
            "once per accumulated group) shows a cleared .grad in every interval, so any carried interval is "
            "already unusual and nine in ten is our margin for an occasional skipped clear",
            Cite("003", "Scope boundaries", "training loop issues")),
    Measure("MT-REPEAT", 0.9,
            "at this fraction or more of the training forwards from the second epoch on, the batch is exactly the "
            "one seen one epoch earlier (the commonest gap): the batches repeat in the same order every epoch",
            "a loader that reshuffles each epoch practically never repeats a whole batch (same examples, same "
            "order); a fixed order repeats every one; nine in ten leaves room for a last partial batch or an "
            "extra forward per epoch; our bound", Cite("003", "Scope boundaries", "training loop issues")),
    Measure("MT-REPEAT-MIN", 8,
            "forwards fingerprinted, and batches seen coming back one epoch later, needed before the order is "
            "judged", "half an epoch of a 16-batch dataset seen twice; our count",
            Cite("003", "Scope boundaries", "training loop issues")),
    Measure("MT-FAR-ABOVE", 10.0,
            "a validation loss at least this many times the training loss at the first evaluation (or said as "
            "'10x' / 'orders of magnitude' above): too large, too soon for overfitting; the two are computed "
            "differently", "memorising opens a gap over many epochs while the training loss falls; one epoch "
            "cannot open an order of magnitude; an order of magnitude is our bound",
            Cite("000", "Symptom: model overfits", "check that train and validation are measured the same way")),
    Measure("MT-FIRST-EVAL-REACH", 60,
            "characters either side of two loss values within which the first evaluation ('epoch 1', 'from the "
            "start') must be said for the values to be the first evaluation's", "about one clause of a message; "
            "our bound", Cite("000", "Symptom: model overfits", "check that train and validation are measured "
                              "the same way")),
    Measure("MT-MINORITY-SHARE", 0.2,
            "a class counted in words at this share of the examples or less (its count against the counts said "
            "beside it, or against the total said with it): one class dominates the labels",
            "Google's Machine Learning Crash Course calls a minority class of 1-20% of the data a moderate "
            "imbalance and under 1% an extreme one; the upper end of the moderate band is our bound",
            Cite("000", "Symptom: which X should I use? (direct questions)",
                 "which loss function? (weighted objectives)")),
    Measure("MT-RATE-FULL", 0.99,
            "a recall at or above this finds every positive (and one at or below 1 minus it finds none): with a "
            "precision clearly below it, the pair an all-positive classifier gives",
            "a classifier that answers positive for every input has recall exactly 1 and precision equal to the "
            "positives' share; two decimals of rounding is our bound",
            Cite("003", _DX, "not learning: near random chance = log(num_classes)")),
    Measure("MT-RATE-CONSTANT-PRECISION", 0.9,
            "a precision at or below this, beside a full recall, is the positives' share an all-positive "
            "classifier shows (unless the positives' share is said and the precision matches it)",
            "an all-positive classifier's precision is the positives' share; a precision above 0.9 beside recall 1 "
            "is as often a good classifier on balanced data; our bound",
            Cite("003", _DX, "not learning: near random chance = log(num_classes)")),
    Measure("MT-VIT-POOR-PCT", 90,
            "a vision transformer trained from scratch on a small image dataset, scoring below this percentage: "
            "short of what a convolutional net reaches on the same data (an architecture choice, not a tuning "
            "problem); at or above it the score is no poor one",
            "He et al., 'Deep Residual Learning' (2016): ResNets trained from scratch reach 91-94% on CIFAR-10 "
            "(ResNet-20 91.3%, ResNet-110 93.6%); 90% is our bound below that",
            Cite("001", "When not to use the training-optimization pack", "symptom column")),
    Measure("MT-CHANCE-LOSS-MAX", 11.6,
            "the largest loss read as a held loss's value at initialisation; above it a squared or summed error "
            "('MSE stuck around 80000') is no guess between classes",
            "ln(100000) = 11.5, the chance loss of a language model over a 100k-token vocabulary, the largest class "
            "count people train a softmax over; our bound just above it",
            Cite("003", _DX, "not learning: near random chance = log(num_classes)")),
    Measure("MT-CHANCE-ROUND-MAX", 1000,
            "the largest round class count (2 and the powers of ten up to it) a loss quoted to two decimals is taken "
            "to sit at the chance level of (ln 2 = 0.69, ln 10 = 2.30, ln 100 = 4.61, ln 1000 = 6.91); close values "
            "of ln k for other small k are too common at two decimals to name a class count",
            "the binary task and the round counts of the standard benchmarks (CIFAR-10, CIFAR-100, ImageNet-1k); "
            "our list", Cite("003", _DX, "not learning: near random chance = log(num_classes)")),
    Measure("MT-CHANCE-FINE-MAX", 20,
            "every class count from 2 up to this one (and the round counts) is one a loss quoted to three decimals "
            "or more is taken to sit at chance of (ln 3 = 1.099, ln 5 = 1.609)",
            "at three decimals a figure matching ln k is no coincidence; ln k for k beyond 20 lie within a few "
            "thousandths of each other; our bound", Cite("003", _DX, "not learning: near random chance = "
                                                         "log(num_classes)")),
    Measure("MT-FLAT-SERIES", 0.01,
            "logged loss values that stay within this fraction of each other (of their largest, or of their mean "
            "for a logged training series) do not move: the loss is flat",
            "a printed loss moving by under 1% across several logged steps is within the batch-to-batch noise of "
            "a run that learns nothing; our bound", Cite("003", _DX, "not learning: near random chance = "
                                                         "log(num_classes)")),
    Measure("MT-FLAT-FLOOR", 0.1,
            "the smallest value a set of close logged losses may hold and still be read as flat (below it a "
            "loss near zero moves by little in absolute terms while it still learns)",
            "a loss under 0.1 is mostly a converged one, where a 1% spread is no stall; our bound",
            Cite("003", _DX, "not learning: near random chance = log(num_classes)")),
    Measure("MT-FLAT-DECIMALS", 3,
            "decimals every figure of a repeated logged loss must carry for two equal figures to be read as flat "
            "(at fewer, equal figures can be rounding of a loss that moves)",
            "a loss printed to three decimals or more that repeats exactly has not moved at that precision; "
            "our bound", Cite("003", _DX, "not learning: near random chance = log(num_classes)")),
    Measure("MT-COMPARATIVE-SLIP-MIN", 4,
            "letters a word before 'than' needs before it is corrected to a comparative ('lowr'; 'les' is too short "
            "to say which)", "one edit of a three-letter word reaches too many other words; our bound",
            Cite("000", "Symptom: model overfits", "check that train and validation are measured the same way")),
    Measure("MT-SORTED", 0.8,
            "batches at least this much purer in one class than the data as a whole (0: as mixed as the data, 1: "
            "each batch one class): the batches arrive sorted by label",
            "a shuffled loader gives each batch about the data's class mix (the majority share varies by a few "
            "examples); the PyTorch data tutorial shuffles training data for this reason; our bound",
            Cite("003", "Scope boundaries", "training loop issues")),
)

MEASURE_BY_ID = {m.id: m for m in MEASURES}


def threshold(mid: str) -> float:
    """Give the value of threshold ``mid`` (probes read every number through here).

    Raises:
        KeyError: Unknown threshold id.
    """
    return MEASURE_BY_ID[mid].value


def _src(mid: str) -> str:
    m = MEASURE_BY_ID[mid]
    return f"{m.id}: {m.source}"


def gt(mid: str) -> Gt:
    """A row condition "above threshold ``mid``", citing the table entry."""
    return Gt(threshold(mid), source=_src(mid))


def ge(mid: str) -> Ge:
    """A row condition "at least threshold ``mid``", citing the table entry."""
    return Ge(threshold(mid), source=_src(mid))


def lt(mid: str) -> Lt:
    """A row condition "below threshold ``mid``", citing the table entry."""
    return Lt(threshold(mid), source=_src(mid))


def le(mid: str) -> Le:
    """A row condition "at most threshold ``mid``", citing the table entry."""
    return Le(threshold(mid), source=_src(mid))


def measure_source(mid: str) -> str:
    """The citation of threshold ``mid`` (id and source), for conditions built around it."""
    return _src(mid)


ROWS = (
    # --- loss at init / loss-activation mismatches ----------------------------------------------------
    Row("MS-INIT-01", {"loss_init_ratio": gt("MT-INIT-RATIO")},
        (Find("Initialization", "warning", "loss at initialization far above chance level ln(num_classes): "
              "the output layer starts confidently wrong"),
         RouteTo("gradient-management", "primary", "initialization scale and the gradients it produces")),
        "A fresh classifier should predict near-uniform probabilities; a much higher loss wastes the first "
        "steps undoing a bad init and can destabilize them.",
        Cite(KARPATHY, "set up the end-to-end skeleton", "verify loss @ init"),
        fix=Fix("Scale the last layer down at init (or zero its weights) so the first loss is about ln(C).",
                "torch.nn.init.zeros_(model.head.weight)\ntorch.nn.init.zeros_(model.head.bias)"),
        # a (log-)softmax over the wrong dimension makes the first loss far above ln(C) too: that is its cause
        unless=("finding:MS-DIM-01",),
        avoid=("Do not lower the LR to hide a bad init: fix the init.",)),
    # A policy-gradient or PPO objective is an advantage-weighted log-probability (minus an entropy bonus): it has no
    # floor at 0, and with unnormalised rewards it is often negative. In an RL or RLHF run a negative loss is the
    # objective's scale, not probabilities fed to a log-loss.
    Row("MS-LOSS-02", {"negative_loss": True, "task": Is("rl", "preference_tuning")},
        (Find("Loss", "info", "a negative loss in a reinforcement-learning or RLHF run is expected: policy-gradient "
              "and PPO objectives are advantage-weighted and have no floor at 0 (a negative mean reward makes it "
              "likelier); what matters is whether the reward improves", kind="note"),),
        "The clipped PPO surrogate and REINFORCE losses are -advantage x ratio (or log-probability); their sign "
        "follows the advantages, so a negative value says nothing about a mismatch between output and loss.",
        Cite("003", _DX, "not learning: what does loss equal exactly?"),
        fix=Fix("Watch the reward (and the KL to the reference) instead of the policy loss's sign; normalise rewards "
                "or advantages so their scale stays stable.",
                "adv = (adv - adv.mean()) / (adv.std() + 1e-8)     # per batch\n"
                "# TRL: PPOConfig(..., whiten_rewards=True) or a running reward normaliser"),
        avoid=("matching the policy's outputs to a log-loss because its value is negative",),
        salience=1),  # before MS-LOSS-01, which it rules out
    Row("MS-LOSS-01", {"negative_loss": True},
        (Find("Loss", "critical", "a loss that cannot be negative was measured below zero: the model output does "
              "not match what the loss expects (probabilities or log-probabilities mixed up)"),
         RouteTo("loss-functions-and-objectives", "primary", "match the output to the loss's expected input")),
        "Cross-entropy, NLL, BCE and MSE are non-negative by construction; a negative value means e.g. "
        "probabilities fed to NLLLoss, which expects log-probabilities.",
        Cite("003", _DX, "not learning: what does loss equal exactly?"),
        unless=("finding:MS-LOSS-02",),
        fix=Fix("Feed NLLLoss log-probabilities (log_softmax), or give raw logits to CrossEntropyLoss.",
                "loss = torch.nn.functional.cross_entropy(logits, target)  # no softmax before it"),
        avoid=("Do not clamp the loss to zero: the gradients are still wrong.",)),
    Row("MS-ACT-01", {"output_activation": "softmax", "loss_fn": Is("cross_entropy")},
        (Find("Loss", "warning", "softmax applied before CrossEntropyLoss, which applies log-softmax itself "
              "(double softmax): gradients shrink and the loss cannot approach zero"),
         RouteTo("loss-functions-and-objectives", "primary", "the loss expects raw logits")),
        "CrossEntropyLoss combines log-softmax and NLL; a softmax before it squashes the logits into [0, 1].",
        Cite("003", "Step 2: investigation commands", "not learning: loss vs random chance"),
        fix=Fix("Remove the final Softmax layer; return logits and apply softmax only for predictions.",
                "model = torch.nn.Sequential(*list(model)[:-1])  # drop the trailing nn.Softmax"),
        avoid=("Do not raise the LR to compensate for the flattened gradients.",)),
    Row("MS-ACT-02", {"output_activation": "sigmoid", "loss_fn": Is("bce_with_logits")},
        (Find("Loss", "warning", "sigmoid applied before BCEWithLogitsLoss, which applies its own sigmoid"),
         RouteTo("loss-functions-and-objectives", "primary", "the loss expects raw logits")),
        "BCEWithLogitsLoss fuses the sigmoid for numerical stability; a second sigmoid compresses the outputs.",
        Cite("003", "Step 2: investigation commands", "not learning: loss vs random chance"),
        fix=Fix("Drop the output sigmoid and keep BCEWithLogitsLoss.",
                "loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, target)"),
        avoid=("Do not switch to BCELoss on sigmoid outputs: it is the numerically unstable form.",)),
    Row("MS-ACT-03", {"output_activation": "softmax", "loss_fn": Is("nll")},
        (Find("Loss", "critical", "softmax probabilities fed to NLLLoss, which expects log-probabilities"),
         RouteTo("loss-functions-and-objectives", "primary", "NLLLoss needs log_softmax outputs")),
        "NLLLoss negates the selected input; with probabilities the loss is negative and unbounded in meaning.",
        Cite("003", "Step 2: investigation commands", "not learning: loss vs random chance"),
        fix=Fix("Use log_softmax before NLLLoss (or CrossEntropyLoss on logits).",
                "loss = torch.nn.functional.nll_loss(torch.log_softmax(logits, dim=-1), target)"),
        avoid=("Do not take log() of the softmax output yourself: log_softmax is the stable form.",)),
    # --- non-finite values --------------------------------------------------------------------------
    Row("MS-NAN-01", {"nan_location": Is("inputs", "labels")},
        (Find("Data", "critical", "the first non-finite or invalid value is already in the batch (inputs, or "
              "labels out of range for the loss), before the model runs"),
         RouteTo("gradient-management", "primary", "NaN debugging: find and filter the bad samples"),
         RouteTo("loss-functions-and-objectives", "secondary", "the label range the loss expects")),
        "A non-finite input or an out-of-range label poisons every gradient; no optimizer or LR change can fix "
        "it, so the data pipeline is the cause.",
        Cite("003", _DX, "NaN/Inf: check inputs and label ranges"),
        salience=Salience.CAUSE,
        fix=Fix("Assert finiteness and the label range where batches are built; filter or repair the bad samples "
                "and check the normalization statistics.",
                "bad = ~torch.isfinite(x).flatten(1).all(dim=1)\n"
                "print(\"non-finite samples:\", bad.nonzero().flatten().tolist())\n"
                "assert y.min() >= 0 and y.max() < num_classes, (y.min().item(), y.max().item())"),
        avoid=("clipping gradients to hide NaN inputs: clipping a NaN gives NaN",
               "lowering the LR for a data or label-range error")),
    Row("MS-NAN-02", {"nan_location": "loss"},
        (Find("Explosion", "critical", "model outputs are finite but the loss is NaN/Inf: the loss formula is "
              "numerically unsafe (log of 0, division by 0)"),
         RouteTo("loss-functions-and-objectives", "primary", "numerically stable loss formulation"),
         RouteTo("gradient-management", "secondary", "NaN debugging")),
        "The first non-finite value appears in the loss itself, so the loss formula is the cause.",
        Cite("003", _DX, "NaN/Inf: any custom loss functions?"),
        salience=Salience.CAUSE,
        fix=Fix("Compute log-probabilities with log_softmax / logsigmoid (or the built-in losses), never log(p).",
                "logp = torch.log_softmax(logits, dim=-1)\nloss = -(onehot * logp).sum(-1).mean()"),
        avoid=("Do not add eps everywhere and hope: use the stable fused form.",
               "adding gradient clipping to hide a loss that computes log(0)")),
    # --- gradient flow ------------------------------------------------------------------------------
    # A large norm is a fault when it explodes, not when it is the scale of a loss that keeps learning: a norm
    # that rose steadily over the bound (the probe's grad_norm_steady_rise) while the loss falls normally is held
    # back; one that starts over it, spikes, grows by orders of magnitude or comes with a broken loss still fires.
    Row("MS-GRAD-00", {"grad_norm_steady_rise": True, "loss_behavior": "decreasing_normally"},
        # the flag holds back the declared twin too (DX-FIX-05 reads the probe's "exploding" trend)
        (Derive("grad_norm_follows_loss", True), Flag("grad_norm_follows_loss")),
        "A gradient norm that rises gradually with a loss that keeps falling normally is the loss sharpening as it "
        "fits (a learned variance shrinking), not a step that overshoots: the falling loss shows the steps work.",
        Cite("003", "Step 3: route to fix", "gradient explosion: add clipping"), salience=Salience.DERIVE),
    Row("MS-GRAD-01", {"grad_norm_global": gt("MT-GRAD-EXPLODE-ABS"), "grad_norm_follows_loss": Absent()},
        (Find("Explosion", "critical", "gradient norm far above any clipping threshold: exploding gradients"),
         RouteTo("gradient-management", "primary", "clip gradients (max_norm=1.0) and find the source"),
         RouteTo("learning-rate-scheduling", "secondary", "lower LR / warmup once gradients are bounded")),
        "Gradient norms in the hundreds make single steps overshoot; recurrent nets are the classic case.",
        Cite("003", "Step 3: route to fix", "gradient explosion: add clipping"),
        salience=Salience.CAUSE,
        fix=Fix("Clip the global norm before the optimizer step.",
                "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\noptimizer.step()"),
        avoid=("Do not just lower the LR: the gradient spikes remain.",)),
    Row("MS-GRAD-02", {"grad_layer_ratio": lt("MT-GRAD-VANISH-RATIO")},
        (Find("Not Learning", "warning", "gradients vanish towards the input: the first layer gets a tiny fraction "
              "of the last layer's gradient"),
         RouteTo("gradient-management", "primary", "vanishing-gradient diagnosis: activations, init, depth")),
        "Saturating activations stacked deep shrink the gradient geometrically; early layers stop learning.",
        Cite("003", "Step 3: route to fix", "vanishing gradients: check architecture, init"),
        unless=("finding:MS-WNORM-01", "finding:MS-WNORM-02"),
        salience=Salience.CAUSE,
        fix=Fix("Use ReLU/GELU with Kaiming init (or add normalization / residual connections).",
                "torch.nn.init.kaiming_normal_(layer.weight, nonlinearity='relu')"),
        avoid=("Do not raise the LR to push the early layers: the later layers blow up first.",)),
    Row("MS-GRAD-03", {"grad_layer_ratio": gt("MT-GRAD-EXPLODE-RATIO")},
        (Find("Explosion", "warning", "gradients grow towards the input: the first layer gets far more gradient "
              "than the last"),
         RouteTo("gradient-management", "primary", "exploding-gradient diagnosis and clipping")),
        "Gradients amplified layer after layer explode in the earliest layers first.",
        Cite("003", "Step 3: route to fix", "gradient explosion"),
        fix=Fix("Clip gradients and check the init scale of the deep stack.",
                "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)"),
        avoid=("Do not ignore it because the loss still moves: it diverges later.",)),
    Row("MS-GRAD-04", {"grad_norm_trend": "spiky", "symptom": Absent()},
        (Find("Instability", "warning", "gradient-norm spikes well above the running median"),
         RouteTo("gradient-management", "primary", "clip the spikes"),
         RouteTo("learning-rate-scheduling", "secondary", "warmup / lower peak LR")),
        "Isolated gradient spikes precede loss spikes and divergence.",
        Cite("003", _DX, "instability: gradient norms over steps"),
        fix=Fix("Clip the global norm and log it each step.",
                "norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)"),
        avoid=("Do not restart with a new optimizer: clip and inspect the spike batches.",)),
    Row("MS-FROZEN-01", {"frozen_fraction": ge("MT-FROZEN")},
        (Find("Not Learning", "warning", "most parameters are frozen (requires_grad=False): if this is not a "
              "deliberate fine-tune, they never learn"),
         RouteTo("training-loop-architecture", "primary", "which parameters the loop trains")),
        "Frozen parameters are a root cause of a flat loss in the seed's symptom table.",
        Cite("003", "Step 1: symptom table", "loss flat from epoch 0: frozen params"),
        salience=Salience.CAUSE,
        fix=Fix("Unfreeze what should learn and rebuild the optimizer over it.",
                "for p in model.parameters():\n    p.requires_grad_(True)"),
        avoid=("Do not raise the LR for a frozen network: nothing moves.",)),
    # --- update-to-weight ratio -------------------------------------------------------------------------
    Row("MS-UPD-01", {"update_ratio": gt("MT-UPD-HIGH")},
        (Find("Instability", "warning", "weight updates are a large fraction of the weights each step: LR far too "
              "high"),
         RouteTo("learning-rate-scheduling", "primary", "lower the peak LR, add warmup"),
         RouteTo("gradient-management", "secondary", "clipping while the LR is fixed")),
        "Around 1e-3 is healthy; updates of 10% of the weights per step overshoot. Gradients that pile up "
        "without zero_grad inflate the ratio too, so a missing zero_grad (MS-ZERO-01, which fires first) "
        "explains it instead of the LR, and so does accumulation that sums k micro-batch gradients without "
        "dividing the loss (AP-12: k times the step).",
        Cite("003", "Step 3: route to fix", "LR too high: decrease LR, add warmup"),
        # weights shrunk by decay make every update a large fraction of them: the decay explains the ratio
        unless=("finding:MS-ZERO-01", "finding:MS-ZERO-03", "finding:AP-12", "finding:MS-WNORM-01",
                "finding:MS-WNORM-02",
                # clipping bounds every SGD step (a tight-clip recipe), or summed losses scale the step
                "finding:MS-CLIP-02", "finding:MS-CLIP-03", "finding:MS-RED-01"),
        salience=Salience.CAUSE,
        fix=Fix("Lower the LR by 10x or more and add warmup; run an LR range test.",
                "for g in optimizer.param_groups:\n    g['lr'] *= 0.1"),
        avoid=("Do not switch optimizers: the LR is the problem.",)),
    # Exactly zero is not "too small": any positive LR times a non-zero gradient moves a weight. Weights that do
    # not move at all are not reached by the step, and the LR row below would send the user to tune it in vain.
    Row("MS-UPD-00", {"update_ratio": Le(0.0, source="an update of exactly zero: no positive step reached the "
                                                      "weights")},
        (Find("Not Learning", "warning", "the weights do not move at all (an update of exactly zero, not a small "
              "one): the optimizer step does not reach them; they are outside the optimizer, get no gradient (a "
              "cut graph, submodules in a plain list), or the step never runs",
              explains=("not_learning", "convergence")),
         RouteTo("training-loop-architecture", "primary", "what the optimizer holds and whether the step runs"),
         RouteTo("pytorch-engineering", "secondary", "module registration (nn.ModuleList) and the autograd graph")),
        "A learning rate too low still changes the weights a little each step; no change at all means the update "
        "is not applied to those parameters, whatever the LR.",
        Cite("003", "Step 2: investigate with commands", "check that gradients flow and that parameters change"),
        # (a loss term found inert explains updates that stay identical whatever its weight: same words, its reading)
        unless=("finding:MS-LR0-01", "finding:MS-LR0-02", "finding:LP-LR-02", "finding:MS-OPT-01",
                "finding:MS-ZERO-02", "finding:LP-OPT-02", "finding:MS-FROZEN-01", "finding:PR-FP16W-01",
                "finding:LS-TERM-01"),
        salience=Salience.CAUSE,
        fix=Fix("Check, for one step, which trainable parameters have a gradient, are in the optimizer and change.",
                "held = {id(p) for g in opt.param_groups for p in g['params']}\n"
                "before = {n: p.detach().clone() for n, p in model.named_parameters()}\n"
                "loss.backward(); opt.step()\n"
                "for n, p in model.named_parameters():\n"
                "    print(n, p.requires_grad, id(p) in held, p.grad is not None, (p - before[n]).abs().max().item())"),
        avoid=("raising the LR of parameters the step never reaches",)),
    # A loss multiplied down before backward (a collapsed loss scale that nothing divides back, a stray constant)
    # shrinks every gradient by the same factor: read at the output, it is told apart from an LR too low or
    # gradients shrinking near a minimum, which look the same in the update ratio.
    Row("MS-LOSSMUL-01", {"loss_multiplier": lt("MT-LOSSMUL-LOW")},
        (Find("Not Learning", "warning", "the loss reaching backward is multiplied by a vanishing factor and never "
              "divided back (a collapsed loss scale, a loss scaled down by mistake): gradients and updates vanish "
              "with it", explains=("not_learning", "convergence")),
         Derive("loss_scale_issue", True)),
        "The gradient at the output is the loss's multiplier times a known softmax or sigmoid term: a multiplier "
        "of 1e-12 is the loss scale, not the LR or the data, and the fix is where the loss is scaled.",
        Cite("002", "FP16 training", "dynamic loss scaling"),
        salience=Salience.CAUSE,
        fix=Fix("Scale the loss through the scaler and let it unscale before the step (or drop the constant).",
                "scaler.scale(loss).backward()\nscaler.step(optimizer)\nscaler.update()\n"
                "print(scaler.get_scale())  # a healthy scale stays in the thousands"),
        avoid=("raising the LR to make up for a loss scaled down",)),
    Row("MS-UPD-02", {"update_ratio": Between(math.ulp(0.0), threshold("MT-UPD-LOW"),
                                              source=_src("MT-UPD-LOW") + "; above 0, which MS-UPD-00 reads")},
        (Find("Not Learning", "warning", "weight updates are a vanishing fraction of the weights: LR far too low"),
         RouteTo("learning-rate-scheduling", "primary", "raise the LR 10-100x"),
         RouteTo("optimization-algorithms", "secondary", "LR and optimizer are chosen together")),
        "Updates 100x below the healthy ratio make the loss look flat however long the run.",
        Cite("003", "Step 3: route to fix", "LR too low: increase LR 10-100x"),
        # what sets the step size instead of the LR: an applied LR of 0 or near it, a clip that cuts every step,
        # a huge Adam eps; and dead units, whose layers get no gradient to step with
        unless=("finding:MS-LR0-01", "finding:MS-LR0-02", "finding:MS-CLIP-01", "finding:MS-EPS-02",
                "finding:MS-DEAD-01", "finding:MS-LOSSMUL-01"),
        salience=Salience.CAUSE,
        fix=Fix("Raise the LR 10-100x (an LR range test finds the edge).",
                "for g in optimizer.param_groups:\n    g['lr'] *= 30"),
        avoid=("Do not train for more epochs: a flat loss is not underfitting.",)),
    # The working-rate bound splits chance-level accuracy in two: at or above it the updates could have learned and
    # the labels are suspect (MS-CHANCE-01); below it the steps were too small to leave chance, which is the LR.
    Row("MS-UPD-03",
        {"update_ratio": Between(threshold("MT-UPD-LOW"), threshold("MT-UPD-WORKING"), source=_src("MT-UPD-WORKING")),
         "val_acc_over_chance": lt("MT-CHANCE-ACC")},
        (Find("Not Learning", "warning", "weight updates are a decade or more below the healthy rate and validation "
              "accuracy is still at chance: the LR is too low to learn"),
         RouteTo("learning-rate-scheduling", "primary", "raise the LR 10-100x"),
         RouteTo("optimization-algorithms", "secondary", "LR and optimizer are chosen together")),
        "Below a working update rate the model has not moved far enough from its initialization to beat chance; "
        "the same chance-level accuracy at a healthy rate would point at the labels instead.",
        Cite("003", "Step 3: route to fix", "LR too low: increase LR 10-100x"),
        # causes that also keep updates small and accuracy at chance speak for themselves
        unless=("finding:MS-DEAD-01", "finding:MS-FROZEN-01", "finding:MS-SAT-01", "finding:MS-GRAD-02",
                "finding:MS-ACT-01", "finding:MS-WNORM-01", "finding:MS-WNORM-02", "finding:MS-ZERO-02",
                "finding:LP-STEP-01", "finding:MS-LR0-01", "finding:MS-LR0-02", "finding:MS-CLIP-01",
                "finding:MS-EPS-02"),
        salience=Salience.CAUSE,
        fix=Fix("Raise the LR 10-100x (an LR range test finds the edge).",
                "for g in optimizer.param_groups:\n    g['lr'] *= 30"),
        avoid=("Do not train for more epochs: steps this small stay at chance for a long time.",
               "Do not suspect the labels before the LR gives the model a working update rate.")),
    # --- activation health -----------------------------------------------------------------------------
    # Dead units are a fault when they stop the learning: a run whose loss falls normally with part of a layer
    # dead (a VAE whose KL term silences encoder units, sparse activations) has capacity to spare.
    # Only in the band where MS-DEAD-01 would warn: below it there is nothing to hold back, and a "spare"
    # mark on a 3%-dead layer would only clutter the audit trail.
    Row("MS-DEAD-00", {"dead_relu_fraction": Between(threshold("MT-DEAD-RELU"), threshold("MT-DEAD-RELU-ALL"),
                                                     source=_src("MT-DEAD-RELU-ALL")),
                       "loss_behavior": "decreasing_normally"},
        (Derive("dead_units_spare", True),),
        "A layer with many dead ReLUs still passes the signal through its live ones; while the loss keeps "
        "falling normally those carry the learning.",
        Cite(DEEPDIAG, "dying ReLU", "training stalls"), salience=Salience.DERIVE),
    Row("MS-DEAD-01", {"dead_relu_fraction": ge("MT-DEAD-RELU"), "dead_units_spare": Absent()},
        (Find("Not Learning", "warning", "most ReLU units in a layer never activate (dead ReLUs): they pass no "
              "gradient"),
         RouteTo("gradient-management", "primary", "init and activation choice that keep units alive"),
         RouteTo("learning-rate-scheduling", "secondary", "a too-high LR kills ReLUs")),
        "A ReLU that is negative for every input has zero gradient and cannot recover.",
        Cite(SAGEMAKER, "DeadRelu", "dead units per layer"),
        fix=Fix("Re-initialize biases at zero with Kaiming init, lower the LR, or use LeakyReLU/GELU.",
                "torch.nn.init.zeros_(layer.bias)\nact = torch.nn.LeakyReLU(0.01)"),
        avoid=("Do not add more layers: dead units stay dead.",)),
    Row("MS-SAT-01", {"saturation_fraction": ge("MT-SATURATION")},
        (Find("Not Learning", "warning", "most tanh/sigmoid outputs in a layer are saturated: their derivative is "
              "near zero"),
         RouteTo("gradient-management", "primary", "saturation blocks gradient flow")),
        "Saturated units pass almost no gradient; pre-activations are too large.",
        Cite(DEEPDIAG, "saturated activation", "near-flat region"),
        fix=Fix("Normalize inputs, scale the init down (Xavier for tanh), or add normalization layers.",
                "torch.nn.init.xavier_uniform_(layer.weight)"),
        avoid=("Do not raise the LR: saturated units ignore it.",)),
    # --- loop faults -------------------------------------------------------------------------------------
    Row("MS-INPUT-01", {"input_scale": gt("MT-INPUT-SCALE")},
        (Find("Data", "warning", "inputs are far from normalized (large mean or spread): the first layers start "
              "saturated or with huge gradients"),
         RouteTo("training-loop-architecture", "primary", "normalize inputs in the data pipeline"),
         RouteTo("learning-rate-scheduling", "secondary", "a usable LR depends on the input scale")),
        "Unnormalized inputs (e.g. raw 0-255 pixels) make every LR either too high for some weights or too low.",
        Cite(KARPATHY, "become one with the data", "normalize inputs"),
        fix=Fix("Standardize inputs with training-set statistics.",
                "x = (x - mean) / std  # mean/std computed on the training set"),
        avoid=("Do not compensate with a tiny LR.",)),
    Row("MS-CHANCE-01",
        {"val_acc_over_chance": lt("MT-CHANCE-ACC"),
         "update_ratio": Between(threshold("MT-UPD-WORKING"), threshold("MT-UPD-HIGH"),
                                 source=_src("MT-UPD-WORKING"))},
        (Find("Data", "critical", "validation accuracy stays at chance although the weights update at a healthy "
              "rate: labels may not match inputs (shuffled or misaligned)"),
         RouteTo("training-loop-architecture", "primary", "check that inputs and labels stay paired")),
        "With a healthy update rate and working gradients, chance-level validation points at the labels.",
        Cite("003", _DX, "not learning: near random chance = log(num_classes)"),
        unless=("finding:MS-DEAD-01", "finding:MS-FROZEN-01", "finding:MS-SAT-01", "finding:MS-GRAD-02",
                "finding:MS-ACT-01", "finding:MS-WNORM-01", "finding:MS-WNORM-02", "finding:MS-ZERO-02",
                # measured causes that keep accuracy at chance with a working update rate
                "finding:MS-CLIP-01", "finding:MS-LR0-01", "finding:MS-LR0-02", "finding:MS-EPS-02",
                "finding:MS-ORDER-01", "finding:MS-DIM-01", "finding:MS-DROP-01", "finding:MS-MOM-01",
                "finding:MS-WD-01", "finding:MS-BETA-01"),
        salience=Salience.AFTER,  # after the findings that would explain chance-level accuracy otherwise
        fix=Fix("Verify input-label pairing (show a few samples with their labels); overfit one small batch.",
                "for x, y in list(zip(xs, ys))[:8]:\n    print(y, x.mean())  # do labels follow the inputs?"),
        avoid=("Do not tune hyperparameters while labels may be wrong.",)),
    # Chance-level validation with a network that fits its training batches: the causes that stop learning
    # (dead units, saturation, vanishing gradients) are contradicted by the training accuracy, so they do not
    # block this row the way they block MS-CHANCE-01.
    Row("MS-CHANCE-02",
        {"val_acc_over_chance": lt("MT-CHANCE-ACC"), "generalization_gap": ge("MT-GAP"),
         "update_ratio": Between(threshold("MT-UPD-WORKING"), threshold("MT-UPD-HIGH"),
                                 source=_src("MT-UPD-WORKING"))},
        (Find("Data", "warning", "the model fits its training batches but validation accuracy stays at chance: what "
              "it learns does not transfer, so the labels may not follow the inputs (shuffled or misaligned), or "
              "validation data is prepared differently"),
         RouteTo("training-loop-architecture", "primary", "check that inputs and labels stay paired")),
        "A network that learns its training batches is not blocked by dead units or vanishing gradients; if none of "
        "it carries over to held-out data, the pairing of inputs and labels (or the validation pipeline) is the "
        "first suspect, before any regularization.",
        Cite("003", _DX, "not learning: near random chance = log(num_classes)"),
        unless=("finding:MS-CHANCE-01", "finding:MS-WNORM-01", "finding:MS-WNORM-02", "finding:MS-ZERO-02",
                "finding:MS-EVAL-01"),
        salience=Salience.AFTER,
        fix=Fix("Verify input-label pairing (show a few samples with their labels) and that validation batches go "
                "through the same preprocessing as training.",
                "for x, y in list(zip(xs, ys))[:8]:\n    print(y, x.mean())  # do labels follow the inputs?"),
        avoid=("Do not fight this gap with regularization before the labels are checked.",)),
    Row("MS-DATA-01", {"data_time_fraction": gt("MT-DATA-FRAC")},
        (Find("Performance", "warning", "the loop waits on data loading for most of each step"),
         RouteTo("pytorch-engineering", "primary", "DataLoader workers, pinned memory, prefetching"),
         RouteTo("data-augmentation-strategies", "secondary", "CPU-heavy augmentation cost")),
        "Faster compute cannot help a loop that waits for its next batch.",
        Cite("003", _DX, "training slow: data loading is a bottleneck, increase num_workers"),
        fix=FIX_LOADER,
        avoid=("Do not increase the batch size or buy a faster GPU first.",)),
    Row("MS-GAP-01", {},
        (Find("Overfitting", "warning", "training accuracy exceeds validation accuracy by more than 20 points: "
              "severe overfitting", kind="symptom"),
         RouteTo("overfitting-prevention", "primary", "regularization and early stopping"),
         RouteTo("data-augmentation-strategies", "secondary", "enlarge the effective dataset")),
        "A gap above 20 points is memorization, not learning: regularization and augmentation together. The gap "
        "is measured by a probe or joined from the train and validation accuracy (DV-GAP-01/02).",
        Cite("003", _DX, "overfitting: gap > 20% is severe"), need=("flag:generalization_gap",),
        salience=Salience.CAUSE,
        fix=Fix("Add decoupled weight decay and dropout, augment, and stop early on validation loss.",
                "opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.05)\n"
                "head = torch.nn.Sequential(torch.nn.Dropout(p=0.3), torch.nn.Linear(d_model, num_classes))"),
        avoid=("a bigger model or more epochs for an overfitting model",
               "adding dropout alone and calling overfitting solved")),
    # (one cause with DF-TOPIC-GAP, the widening gap only said; two rows because a row has no source variants:
    # this measured one is a cause with no route and rules that routed lead of last resort out, see there)
    Row("MS-GAP-02", {"gap_trend": "widening", "generalization_gap": Lt(threshold("MT-GAP"),
                                                                        source=_src("MT-GAP"))},
        (Find("Overfitting", "info", "the train/validation gap is widening: overfitting is starting"),),
        "A gap that keeps growing crosses the severe threshold later; early stopping catches it.",
        Cite("003", _DX, "overfitting: calculate train/val gap")),
    Row("MS-OVF-01", {"val_loss_rising": True},
        (Find("Overfitting", "warning", "validation loss has risen well above its best while the training loss kept "
              "falling: the model has started to overfit"),
         RouteTo("overfitting-prevention", "primary", "early stopping and regularization"),
         RouteTo("data-augmentation-strategies", "secondary", "enlarge the effective dataset")),
        "Training loss going down while validation loss goes up is memorization; the best checkpoint is behind.",
        Cite("003", "Step 1: symptom table", "train good, val bad: overfitting"),
        unless=("flag:generalization_gap",),
        fix=Fix("Stop early on the validation loss (keep the best checkpoint) and add regularization.",
                "if val_loss < best:\n    best, bad = val_loss, 0\n    torch.save(model.state_dict(), 'best.pt')\n"
                "else:\n    bad += 1  # stop after a few evaluations without improvement"),
        avoid=("training longer or making the model bigger while validation loss rises",)),
    # --- weight norms -----------------------------------------------------------------------------------
    Row("MS-WNORM-01", {"weight_norm_ratio": lt("MT-WNORM-COLLAPSE")},
        (Find("Not Learning", "warning", "the weights are shrinking towards zero: weight decay is too strong for "
              "the LR and the number of steps (the gradients shrink with the weights, which is not a vanishing "
              "gradient)"),
         RouteTo("optimization-algorithms", "primary", "weight decay is set with the optimizer and its LR"),
         RouteTo("hyperparameter-tuning", "secondary", "weight decay and LR are tuned together")),
        "Decay multiplies every weight by (1 - lr * wd) per step; when that outpaces the gradient the network "
        "collapses to zero and its gradients vanish as a consequence.",
        Cite("002", "Optimizers: Adam and AdamW", "AdamW decouples weight decay from the gradient update"),
        salience=Salience.CAUSE + 5,  # before the vanishing-gradient rows, whose reading collapsing weights distort
        fix=Fix("Lower the weight decay (AdamW: 0.01-0.1 at LR 1e-4..1e-3; SGD: 1e-4..5e-4) and keep it off biases "
                "and norm gains.",
                "opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.05)"),
        avoid=("raising the LR against vanishing gradients: with decoupled decay it shrinks the weights faster",)),
    # A converged run also balances decay against a small gradient (a large share), and normalized networks may
    # shrink their weights on purpose: only a loss that barely moves makes the balance a fault.
    Row("MS-WNORM-02", {"weight_norm_ratio": lt("MT-WNORM-SHRINK"), "decay_share": ge("MT-DECAY-SHARE"),
                        "loss_behavior": Is("flat_from_start", "decreasing_slowly", "plateau_after_learning")},
        (Find("Not Learning", "warning", "weight decay outweighs the gradient: each step's decay is most of the "
              "weights' update, their norm has more than halved and the loss barely moves, so the decay, not the "
              "loss, sets their size"),
         RouteTo("optimization-algorithms", "primary", "weight decay is set with the optimizer and its LR"),
         RouteTo("hyperparameter-tuning", "secondary", "weight decay and LR are tuned together")),
        "The weights settle where the gradient balances the decay; when the decay is as large as the whole update, "
        "that balance sits far below a useful size without ever reaching zero, "
        "and the gradient's work goes into resisting the decay.",
        Cite("002", "Optimizers: Adam and AdamW", "AdamW decouples weight decay from the gradient update"),
        unless=("finding:MS-WNORM-01",),  # the collapse row says it more strongly
        salience=Salience.CAUSE + 5,  # before the LR rows, whose update ratio the decay makes up
        fix=Fix("Lower the weight decay so lr * wd is 1e-5..1e-4 a step (AdamW: 0.01-0.1 at LR 1e-4..1e-3; SGD: "
                "1e-4..5e-4), and keep it off biases and norm gains.",
                "opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.05)"),
        avoid=("raising the LR against a slow loss: with decoupled decay it shrinks the weights faster",)),
    # --- precision --------------------------------------------------------------------------------------
    Row("MS-EPS-01", {"adam_eps": lt("MT-EPS-FP16"), "mixed_precision": "fp16"},
        (Find("Configuration", "warning", "the Adam eps is below what FP16 can represent: it becomes zero and "
              "divisions by tiny second moments blow up"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "precision settings", section="precision"),
         RouteTo("optimization-algorithms", "secondary", "optimizer eps for low precision")),
        "1e-8 rounds to 0 in half precision.",
        Cite("002", "FP16 training", "master weights in FP32, loss scaling"),
        fix=Fix("Keep optimizer state in FP32 (AMP does) or raise eps to 1e-6 or more.",
                "torch.optim.AdamW(model.parameters(), lr=3e-4, eps=1e-6)"),
        avoid=("Do not cast the optimizer state to FP16.",)),
)


def threshold_detail(mid: str) -> dict[str, Any]:
    """Everything about threshold ``mid``, shaped as ``trainopt rule ID`` shows a rule.

    Its value, meaning and source, and the rows that cite it.

    Raises:
        KeyError: Unknown threshold id.
    """
    m = MEASURE_BY_ID[mid]
    cited = sorted(r.id for r in all_rows() if any(str(t["source"]).startswith(f"{mid}:") for t in r.thresholds()))
    return {"id": m.id, "kind": "threshold", "family": "measurements",
            "rationale": m.meaning + (f" Cited by {', '.join(cited)}." if cited else ""),
            "cite": m.cite.as_dict(), "value": m.value, "source": m.source, "cited_by": cited,
            "thresholds": [{"observation": "value", "test": f"= {m.value:g}", "source": m.source}]}


__all__ = ["MEASURES", "MEASURE_BY_ID", "Measure", "ROWS", "ge", "gt", "le", "lt", "measure_source", "threshold",
           "threshold_detail"]
