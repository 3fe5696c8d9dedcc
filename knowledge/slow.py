"""Slow training, routed by where the time goes (GPU utilization or data-loading share), never before that.

The batch-size specialist is reached only once the run is known to be compute-bound (``flag:compute_bound``);
a GPU that waits for data is an input-pipeline problem for PyTorch engineering.
"""

from __future__ import annotations

from knowledge.measurements import ge, le, lt, measure_source, threshold
from knowledge.schema import Absent, Between, Block, Cite, Cross, Find, Fix, Flag, RouteTo, Row, Salience

_T = "Symptom: training too slow (route by GPU utilization)"

ROWS = (
    Row("RT-SLOW-01",
        {"symptom": "slow_training", "gpu_utilization_pct": lt("MT-GPU-IDLE")},
        (Find("Performance", "warning", "the GPU idles more than half the time: data loading or CPU "
              "preprocessing is the bottleneck", kind="symptom"),
         RouteTo("pytorch-engineering", "primary", "DataLoader workers, prefetching, profiling"),
         Cross("pytorch-engineering", "not compute-bound: the input pipeline is infrastructure",
               target="data loading, performance profiling")),
        "An idle GPU means the optimization target is the input pipeline, not batch size or the optimizer.",
        Cite("001", _T, "< 50% consistently: data loading / CPU preprocessing")),
    Row("RT-SLOW-03",
        {"symptom": "slow_training", "gpu_utilization_pct": ge("MT-GPU-BUSY")},
        (Flag("compute_bound", "GPU busy 80% or more"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "compute-bound: batch size and precision "
                 "(FP8/BF16) decide throughput", section="precision"),
         RouteTo("pytorch-engineering", "secondary", "possibly scale out: distributed training bring-up")),
        "A busy GPU that is still slow needs a larger batch, cheaper precision, or more GPUs.",
        Cite("001", _T, "> 80% but still slow: batch size, precision, distributed")),
    Row("RT-SLOW-04",
        {"symptom": "slow_training", "data_time_fraction": le("MT-DATA-FRAC"),
         "gpu_utilization_pct": Absent()},
        (Flag("compute_bound", "data time at most compute time"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "not loading-bound: batch size and precision "
                 "decide throughput", section="precision"),
         RouteTo("pytorch-engineering", "secondary", "profile to confirm, and scale out if needed")),
        "When data loading is not the larger share of the step, the compute side is where the time goes.",
        Cite("003", "Slow training investigation", "data time at most compute time: compute side")),
    Row("RT-SLOW-05",
        {"symptom": "slow_training", "heavy_augmentation": True},
        (RouteTo("data-augmentation-strategies", "primary", "make the augmentation pipeline cheaper"),
         RouteTo("pytorch-engineering", "secondary", "profile the CPU side")),
        "On a busy GPU, heavy CPU-side augmentation is overhead worth optimizing.",
        Cite("001", _T, "high utilization + heavy augmentation"), need=("flag:compute_bound",)),
    Row("RT-SLOW-06",
        {"symptom": "slow_training", "memory_limited": True},
        (RouteTo("batch-size-and-memory-tradeoffs", "primary", "gradient accumulation, 8-bit/paged optimizer "
                 "state, ZeRO/FSDP sharding strategy"),
         RouteTo("pytorch-engineering", "secondary", "memory profiling and the sharding API")),
        "When memory caps the batch, accumulation and lighter optimizer state or sharding raise the effective "
        "batch; the memory tooling lives in PyTorch engineering.",
        Cite("001", _T, "memory-limited batch size"), need=("flag:compute_bound",)),
    # The same memory-limited batch when the user brings the out-of-memory error rather than the slowness: the
    # memory tooling is PyTorch engineering's (the OOM boundary stays), the batch it cannot hold is ours.
    Row("RT-MEM-01",
        {"memory_limited": True, "boundary_topic": "cuda_oom"},
        (RouteTo("batch-size-and-memory-tradeoffs", "primary", "the batch that fits: per-device batch, gradient "
                 "accumulation to the effective batch, activation checkpointing, lighter optimizer state"),),
        "A batch too large for memory is a batch-size decision first: accumulation keeps the effective batch while "
        "each device holds only what fits (under data parallelism every device holds its own full batch).",
        Cite("000", _T, "memory-limited batch size: batch-size-and-memory-tradeoffs + pytorch-engineering")),
    Row("RT-SLOW-07",
        {"symptom": "slow_training", "gpu_utilization_pct": Between(threshold("MT-GPU-IDLE"), threshold("MT-GPU-BUSY"),
                                                                 source=measure_source("MT-GPU-IDLE"))},
        (RouteTo("pytorch-engineering", "primary", "utilization in between: profile to find the bottleneck "
                 "before changing anything"),),
        "Between the two bands the table does not decide; the key principle applies: profile first.",
        Cite("001", _T, "key principle: profile first before optimizing")),
    Row("RT-SLOW-08",
        {"symptom": "slow_training", "slow_kind": "many_steps"},
        (Flag("convergence_bound", "slow because many steps are needed, not because steps are slow"),
         RouteTo("learning-rate-scheduling", "primary", "reach the target in fewer steps: LR and schedule")),
        "Needing many steps is a convergence-speed question (LR and schedule first), not a throughput one.",
        Cite("000", "Symptom: training too slow", "diagnostic question 1: slow per step or many steps?")),
    # Raising gradient accumulation to N makes each optimizer step run N micro-batches: a progress bar counting
    # optimizer steps (it/s) shows about N times fewer, while examples (tokens) per second hold. The run is no slower;
    # what it buys, a larger effective batch at the same memory, is the batch-size specialist's.
    Row("RT-SLOW-ACCUM-01", {"accum_step_rate_drop": True},
        (Find("Performance", "info", "fewer optimizer steps per second after raising gradient accumulation is "
              "expected: each step now runs N micro-batches, so it/s falls by about N while examples per second "
              "hold; the run is not slower", kind="note"),
         RouteTo("batch-size-and-memory-tradeoffs", "primary", "gradient accumulation trades optimizer steps for a "
                 "larger effective batch: compare examples/s and time to a target loss, not it/s")),
        "With accumulation N an optimizer step covers N forward/backward passes, so steps per second drop by about "
        "N while the work per second is unchanged (a little faster, with fewer optimizer calls); fewer steps are "
        "also needed per epoch. Only a drop in examples per second is a slowdown.",
        Cite("002", "Gradient accumulation", "effective batch = micro-batch x accumulation steps"),
        salience=Salience.CAUSE,
        fix=Fix("Nothing to fix: measure throughput in examples (or tokens) per second, which accumulation leaves "
                "unchanged.",
                "examples_per_s = micro_batch * accum_steps * optimizer_steps_per_s\n"
                "# compare this figure (or time to a target loss) between runs, not it/s"),
        avoid=("lowering the accumulation or profiling the data pipeline because it/s fell by the accumulation "
               "factor",)),
    Row("RT-SLOW-ACCUM-02", {"symptom": "slow_training"},
        (Block("pytorch-engineering", "it/s fell by the accumulation factor: optimizer steps per second, not "
               "throughput, went down, so there is no bottleneck to profile"),),
        "A step-rate drop explained by raised accumulation leaves nothing for profiling to find.",
        Cite("002", "Gradient accumulation", "effective batch = micro-batch x accumulation steps"),
        need=("finding:RT-SLOW-ACCUM-01",), salience=Salience.GUARD),
    Row("RT-SLOW-09",
        {"symptom": "slow_training", "gpu_utilization_pct": Absent(), "data_time_fraction": Absent()},
        (RouteTo("pytorch-engineering", "primary", "the bottleneck is unknown: profile first"),),
        "Without a utilization figure the only sound step is to measure; profiling lives in PyTorch engineering.",
        Cite("000", _T, "key principle: profile first; low utilization means the wrong target"),
        need=("declined:Q-GPU-UTIL",)),
)
