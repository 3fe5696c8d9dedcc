"""Distributed runs: the causes of multi-process (DDP/FSDP) trouble, measured across ranks or read from text.

The rank probe (``probes/ranks.py``) compares a few numbers every rank computes locally (parameter and batch
fingerprints, the first non-finite site, time before the first collective, batches per epoch) and turns the
comparison into the observations these rows read; pasted NCCL/DDP messages reach the same rows through
``collective_failure``. One row per root cause, each naming what the user must change on every rank.
"""

from __future__ import annotations

from knowledge.measurements import gt, lt
from knowledge.schema import (
    Absent,
    Cite,
    Derive,
    Find,
    Fix,
    Flag,
    Gt,
    Is,
    Keyword,
    Present,
    QuestionRow,
    RouteTo,
    Row,
    Salience,
)

_DDP_NOTE = Cite("PyTorch docs", "Distributed Data Parallel notes",
                 "replicas start identical (broadcast at construction) and stay so because every rank applies the "
                 "same all-reduced gradients")
_SAMPLER = Cite("PyTorch docs", "torch.utils.data.distributed.DistributedSampler",
                "each rank gets its own shard; call set_epoch at the start of every epoch for a new order")
_JOIN = Cite("PyTorch docs", "Distributed training with uneven inputs (torch.distributed.algorithms.Join)",
             "a rank that runs out of batches leaves the others waiting in a collective")
_TIMEOUT = Cite("PyTorch docs", "torch.distributed: debugging (TORCH_DISTRIBUTED_DEBUG, Flight Recorder)",
                "a collective timeout means some rank never entered the collective the others wait in")
_GOYAL = Cite("Goyal et al. 2017", "Accurate, Large Minibatch SGD", "linear LR scaling rule with gradual warmup")
_GN = Cite("Wu & He 2018", "Group Normalization",
           "BatchNorm's error grows quickly as the per-GPU batch falls below 16")
_PT = "pytorch-engineering"
_LOOP = "training-loop-architecture"
_DIST_PROBLEMS = ("not_learning", "unstable", "convergence", "multi_task", "metrics_wrong", "hang", "crash")
_SPEED = ("slow_training",)

ROWS = (
    Row("DD-SYNC-01", {"replicas_in_sync": "diverged"},
        (Find("Distributed", "critical", "the model replicas have drifted apart: one rank's parameters no longer "
              "match the others', so every rank trains a different model and the all-reduced gradients fit none "
              "of them", explains=_DIST_PROBLEMS),
         RouteTo(_PT, "primary", "what keeps DDP replicas identical: train through the wrapper, change parameters "
                 "only through the optimizer, on every rank alike"),
         RouteTo(_LOOP, "secondary", "rank-dependent code inside the training step")),
        "DDP keeps replicas equal only by construction (one broadcast) and by applying the same averaged gradient "
        "on every rank; any write that happens on one rank (a manual nudge, clipping or a parameter edit under "
        "`if rank == ...`, a forward through the unwrapped module, a model moved after wrapping) is never undone.",
        _DDP_NOTE, unless=("finding:DD-NOSYNC-01",), salience=Salience.CAUSE,
        fix=Fix("Call the DDP wrapper (not `model.module`) in the training step, move the model to its device "
                "before wrapping it, and make every change to parameters on every rank (or only through the "
                "optimizer). To check, compare a checksum of the parameters across ranks.",
                "model = model.to(device)\n"
                "ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])\n"
                "loss = loss_fn(ddp(x), y)          # never model(x) or ddp.module(x) while training\n"
                "# checksum: equal on every rank\n"
                "s = torch.stack([p.detach().double().sum() for p in ddp.parameters()]).sum().reshape(1)\n"
                "seen = [torch.zeros_like(s) for _ in range(dist.get_world_size())]\n"
                "dist.all_gather(seen, s)"),
        avoid=("re-broadcasting rank 0's weights every few steps to hide the drift: find the write that causes "
               "it",)),
    Row("DD-NAN-01", {"nonfinite_rank": Present()},
        (Find("Distributed", "info", "the first non-finite value appeared on one rank; the other ranks received it "
              "through the gradient all-reduce, so their own NaN gradients are not a cause", kind="note"),),
        "All-reduce averages one rank's NaN into every rank's gradients within the same step; the rank and site "
        "where it first appeared (inputs, loss, local gradients) are where to look, not the gradients every rank "
        "ends up with.",
        _DDP_NOTE, salience=Salience.CAUSE),
    Row("DD-DATA-01", {"rank_data": "identical"},
        (Find("Distributed", "warning", "every rank trains on the same batches: the data is not sharded across "
              "ranks (no DistributedSampler), so N processes do the work of one and the gradient average is an "
              "average of copies", explains=_DIST_PROBLEMS + _SPEED),
         RouteTo(_PT, "primary", "sharding the data with a DistributedSampler"),
         RouteTo(_LOOP, "secondary", "the epoch loop calls sampler.set_epoch")),
        "Without a sampler that gives each rank its own shard, every process draws the same batches (same seed, "
        "same order); training is no faster than on one GPU and the effective batch is one rank's.",
        _SAMPLER, salience=Salience.CAUSE,
        fix=Fix("Give the DataLoader a DistributedSampler (and no shuffle=True of its own) and call set_epoch "
                "before every epoch.",
                "sampler = torch.utils.data.distributed.DistributedSampler(dataset, shuffle=True)\n"
                "loader = torch.utils.data.DataLoader(dataset, batch_size=bs, sampler=sampler)\n"
                "for epoch in range(epochs):\n"
                "    sampler.set_epoch(epoch)\n"
                "    for x, y in loader:\n"
                "        ..."),
        avoid=("scaling the learning rate for a global batch of N ranks while every rank sees the same data",)),
    Row("DD-EPOCH-01", {"epoch_data_order": "repeated"},
        (Find("Distributed", "warning", "every epoch visits the data in the same order: the DistributedSampler's "
              "set_epoch is never called (or the data is not shuffled), so the model sees identical batches each "
              "epoch", explains=_DIST_PROBLEMS + ("overfitting",)),
         RouteTo(_LOOP, "primary", "the epoch loop: sampler.set_epoch(epoch) before iterating"),
         RouteTo("data-augmentation-strategies", "secondary", "order and sampling of the training data")),
        "DistributedSampler seeds its shuffle with the epoch number it was last given; without set_epoch every "
        "epoch repeats epoch 0's permutation on every rank.",
        _SAMPLER, salience=Salience.CAUSE,
        fix=Fix("Call set_epoch on the sampler at the start of every epoch.",
                "for epoch in range(epochs):\n    loader.sampler.set_epoch(epoch)\n"
                "    for x, y in loader:\n        ..."),
        avoid=("adding more regularization for a curve that repeats because the data order repeats",)),
    Row("DD-UNEVEN-01", {"rank_batch_counts": "uneven"},
        (Find("Distributed", "critical", "the ranks have different numbers of batches per epoch: when the first "
              "rank runs out, the others wait in a gradient all-reduce it never joins (a hang, then a collective "
              "timeout)", explains=_DIST_PROBLEMS),
         RouteTo(_PT, "primary", "equal shards per rank, or DDP's Join context for uneven inputs"),
         RouteTo(_LOOP, "secondary", "where the epoch ends on each rank")),
        "Every DDP step is a collective; a rank that has finished its epoch stops entering them and the rest block "
        "until the timeout. DistributedSampler pads shards to equal length; hand-made per-rank shards do not.",
        _JOIN, salience=Salience.CAUSE + 1,
        fix=Fix("Give every rank the same number of batches (DistributedSampler pads; or truncate to the shortest "
                "shard), or wrap the loop in DDP's Join context (DDP only: under FSDP every forward gathers "
                "parameters from all ranks, so equal lengths are the fix there).",
                "from torch.distributed.algorithms.join import Join\n"
                "with Join([ddp_model]):\n"
                "    for x, y in loader:          # ranks may have different lengths here\n"
                "        ..."),
        avoid=("raising the collective timeout: the waiting rank waits for a step that never comes",)),
    Row("DD-SKEW-01", {"rank_step_skew": gt("MT-DDP-SKEW")},
        (Find("Distributed", "warning", "one rank is a straggler: its own work per step (data loading and "
              "forward, before any collective) takes much longer than the others', and every rank waits for it",
              explains=_SPEED),
         RouteTo(_PT, "primary", "per-rank data loading and rank-specific work inside the step"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "balanced per-rank batches")),
        "A data-parallel step finishes when its slowest rank does; a slow loader, an unbalanced shard or logging "
        "and checkpointing on one rank inside the step slow everyone.",
        _TIMEOUT, salience=Salience.CAUSE,
        fix=Fix("Balance the ranks: equal shards and batch sizes, enough DataLoader workers on every rank, and "
                "rank-0 work (logging, checkpoints, evaluation) outside the training step.",
                "loader = DataLoader(ds, batch_size=bs, sampler=DistributedSampler(ds), num_workers=4,\n"
                "                    pin_memory=True, persistent_workers=True)"),
        avoid=("adding GPUs to a job whose pace is set by its slowest rank",)),
    Row("DD-NOSYNC-01", {"grads_synced": "unsynced"},
        (Find("Distributed", "critical", "the optimizer stepped on gradients that differ across ranks: the "
              "backward of that step ran inside no_sync() (or through the unwrapped module), so it was never "
              "all-reduced and the replicas drift apart", explains=_DIST_PROBLEMS),
         RouteTo(_LOOP, "primary", "gradient accumulation with DDP: no_sync on all but the last micro-batch"),
         RouteTo(_PT, "secondary", "what DDP synchronises and when")),
        "no_sync() skips the all-reduce for the backward passes inside it; the micro-batch whose backward precedes "
        "the optimizer step must run outside it, or each rank applies only its own gradient.",
        _DDP_NOTE, salience=Salience.CAUSE + 1,
        fix=Fix("Use no_sync only for the micro-batches before the last one; the last backward (the one the "
                "optimizer step applies) runs synchronised.",
                "for i, (x, y) in enumerate(loader):\n"
                "    last = (i + 1) % accum == 0\n"
                "    ctx = contextlib.nullcontext() if last else ddp.no_sync()\n"
                "    with ctx:\n"
                "        (loss_fn(ddp(x), y) / accum).backward()\n"
                "    if last:\n"
                "        opt.step(); opt.zero_grad(set_to_none=True)"),
        avoid=("removing gradient accumulation to hide a no_sync placed around the wrong backward",)),
    Row("DD-UNUSED-01", {"collective_failure": "unfinished_reduction"},
        (Find("Distributed", "critical", "DDP found parameters that received no gradient in the previous step "
              "(used in forward only on some steps or ranks, or outputs left out of the loss), so its gradient "
              "reduction never completed", explains=_DIST_PROBLEMS),
         RouteTo(_PT, "primary", "find_unused_parameters and rank-dependent forward paths"),
         RouteTo(_LOOP, "secondary", "every output that should train belongs in the loss")),
        "DDP waits for a gradient for every parameter it registered; a parameter outside the step's graph never "
        "reports, and the next iteration detects the unfinished reduction.",
        _TIMEOUT, salience=Salience.CAUSE,
        fix=Fix("Run once with TORCH_DISTRIBUTED_DEBUG=DETAIL to name the parameters; then make them part of the "
                "loss, freeze them (requires_grad=False) before wrapping, or build DDP with "
                "find_unused_parameters=True if the graph truly changes from step to step.",
                "ddp = DistributedDataParallel(model, device_ids=[local_rank], find_unused_parameters=True)"),
        avoid=("turning on find_unused_parameters for good without naming the parameters: it costs a graph "
               "traversal every step",)),
    Row("DD-UNUSED-02", {"ddp_find_unused": True, "ddp_unused_params": "none"},
        (Find("Performance", "info", "find_unused_parameters=True while every parameter receives a gradient: DDP "
              "searches the autograd graph every step for nothing", explains=_SPEED),
         RouteTo(_PT, "secondary", "DDP constructor options")),
        "The unused-parameter search is a traversal of the autograd graph in every backward; when no parameter is "
        "ever unused it only costs time.",
        _DDP_NOTE, salience=Salience.CAUSE - 1,
        fix=Fix("Build DDP without find_unused_parameters (the default).",
                "ddp = DistributedDataParallel(model, device_ids=[local_rank])"),
        avoid=()),
    # (a world size measured by the probes or given is the multi-GPU fact the rows and questions of this module
    # read: several processes training together)
    Row("DD-WORLD-01", {"dist_world_size": Gt(1, source="more than one rank"), "multi_gpu": Absent()},
        (Derive("multi_gpu", True),),
        "More than one process training together in torch.distributed is a multi-GPU run.",
        _DDP_NOTE, salience=Salience.DERIVE),
    Row("DD-BN-01", {"batchnorm_sync": "local", "per_rank_batch": lt("MT-BN-RANK-BATCH"), "multi_gpu": True},
        (Find("Distributed", "warning", "BatchNorm computes its statistics per rank from a small per-rank batch "
              "(no SyncBatchNorm): noisy statistics in training and running averages that differ across ranks",
              explains=_DIST_PROBLEMS),
         RouteTo(_PT, "primary", "SyncBatchNorm under DDP"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "per-rank batch size")),
        "Under DDP each rank normalises with the mean and variance of its own batch; below about 16 examples "
        "those estimates are noisy enough to hurt training and the ranks' running statistics diverge.",
        _GN, salience=Salience.CAUSE,
        fix=Fix("Convert BatchNorm to SyncBatchNorm before wrapping (or use GroupNorm/LayerNorm).",
                "model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model).to(device)\n"
                "ddp = DistributedDataParallel(model, device_ids=[local_rank])"),
        avoid=("shrinking the per-rank batch further to fit more ranks while BatchNorm stays per rank",)),
    # Language models and sequence models normalise with LayerNorm (or none), not BatchNorm: per-GPU BatchNorm
    # statistics are no cause to ask after in such a run (a ViT or an LLM on 8 GPUs that spikes).
    Row("DD-BN-NA-01", {"task": Is("language_modeling", "preference_tuning")}, (Flag("batchnorm_moot"),),
        "A language model or its preference tuning is a transformer (or recurrent) model normalised per token with "
        "LayerNorm or RMSNorm; it has no BatchNorm whose statistics the GPUs could split.", _GN),
    Row("DD-BN-NA-02", {"architecture": Is("transformer", "rnn")}, (Flag("batchnorm_moot"),),
        "Transformers and recurrent networks normalise with LayerNorm (or not at all), not BatchNorm, so the "
        "per-GPU batch says nothing about their normalisation statistics.", _GN),
    # Each rank is a process of its own: a dataset that its constructor reads into memory (a list of decoded
    # examples, a whole binarized corpus, an in-memory cache) is read once per rank, and the machine's RAM is the
    # per-process share times the GPUs it hosts; the sampler shards the indices, not the memory.
    Row("DD-RAM-01", {"host_ram_per_rank": True},
        (Find("Distributed", "warning", "every GPU process builds its own copy of the dataset in host memory: the "
              "sampler divides the indices among the ranks, not what each one loads, so CPU RAM grows with the "
              "number of GPUs on the machine", explains=("memory_growth", "crash", "slow_training")),
         RouteTo(_PT, "primary", "dataset loading under DDP: memory-mapped or lazily read data, one copy per node"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "host memory budget of the run")),
        "DistributedDataParallel starts one process per GPU and each runs the dataset's constructor; an eager "
        "load in it is repeated N times, whereas a memory-mapped file or per-item reads are shared through the "
        "page cache.",
        _SAMPLER, salience=Salience.CAUSE,
        fix=Fix("Read examples lazily in __getitem__ or memory-map the data (numpy.memmap, Arrow, LMDB), or load "
                "only the rank's shard; keep eager in-memory loading for data far smaller than RAM / GPUs.",
                "class Shards(torch.utils.data.Dataset):\n    def __init__(self, path):\n"
                "        self.data = np.load(path, mmap_mode='r')   # shared pages, not a copy per rank\n"
                "    def __getitem__(self, i):\n        return torch.from_numpy(np.array(self.data[i]))"),
        avoid=("adding swap or fewer GPUs before the per-process copy is removed",)),
    Row("DD-LR-01", {"world_size_changed": True, "lr_world_scaling": "unchanged"},
        (Find("Distributed", "warning", "the global batch changed with the number of processes but the learning "
              "rate did not: the effective batch (per-rank batch x ranks x accumulation) sets the LR the run "
              "needs"),
         RouteTo("learning-rate-scheduling", "primary", "LR scaling with the global batch, with warmup"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "effective batch size across world sizes")),
        "Averaging gradients over N ranks is one step on an N-times larger batch; SGD keeps its behaviour when the "
        "LR grows in proportion (with a warmup), adaptive optimizers need a smaller (about square-root) increase.",
        _GOYAL, salience=Salience.CAUSE,
        fix=Fix("Rescale the LR to the new global batch (linearly for SGD, about by the square root for Adam-style "
                "optimizers) and warm it up; or keep the global batch fixed by lowering the per-rank batch.",
                "global_batch = per_rank_batch * world_size * accum_steps\n"
                "lr = base_lr * global_batch / base_global_batch        # SGD (sqrt of the ratio for AdamW)\n"
                "warmup_steps = max(warmup_steps, 5 * steps_per_epoch)"),
        avoid=("retuning everything else before rescaling the LR to the new global batch",)),
    Row("DD-TIMEOUT-01", {"collective_failure": Is("timeout", "mismatch")},
        (Find("Distributed", "critical", "a collective did not complete on every rank: some rank stopped calling "
              "it (uneven batches, a collective inside `if rank == 0:`, a crashed or very slow rank) or called a "
              "different one", explains=_DIST_PROBLEMS),
         RouteTo(_PT, "primary", "finding the rank that left: desync debug, Flight Recorder, per-rank logs"),
         RouteTo(_LOOP, "secondary", "rank-dependent branches around evaluation, logging and checkpoints")),
        "A watchdog timeout is the symptom on the ranks that waited; the cause is on the rank that did not arrive. "
        "The per-rank logs (which step each rank reached last) and the collective sequence name it.",
        _TIMEOUT, salience=Salience.CAUSE,
        fix=Fix("Find the rank that stopped: compare the last step each rank logged (trainopt logs DIR with one "
                "file per rank), run with TORCH_DISTRIBUTED_DEBUG=DETAIL, and keep every collective (metrics "
                "reduction, barrier, checkpoint gather) outside rank-only branches.",
                "if dist.get_rank() == 0:\n"
                "    save(model)             # rank-0 work only: no collectives in here\n"
                "dist.barrier()              # every rank, outside the branch"),
        avoid=("raising the timeout: the missing rank will not arrive later",)),
    Row("DD-FIRST-01", {"collective_failure": "hang_first_collective"},
        (Find("Distributed", "critical", "the job hangs at its very first collective: the processes never "
              "connected (rendezvous address or port, network interface, a device shared by two ranks)",
              explains=_DIST_PROBLEMS),
         RouteTo(_PT, "primary", "process-group bring-up: rendezvous, devices, NCCL environment")),
        "The first all-reduce (DDP's construction broadcast) is where a wrong MASTER_ADDR/PORT, a blocked or wrong "
        "network interface, peer-to-peer transport trouble or two ranks on one GPU first show up.",
        _TIMEOUT, salience=Salience.CAUSE,
        fix=Fix("Pin each rank to its own device before creating the group, check the rendezvous settings, and "
                "retry with NCCL_DEBUG=INFO (NCCL_P2P_DISABLE=1 or NCCL_SOCKET_IFNAME=<iface> to test transports).",
                "local_rank = int(os.environ['LOCAL_RANK'])\n"
                "torch.cuda.set_device(local_rank)\n"
                "dist.init_process_group('nccl', device_id=torch.device('cuda', local_rank))"),
        avoid=("changing the model or batch size for a job that never connected",)),
    # DistributedSampler gives every rank ceil(N / world) examples: when the world size does not divide N it pads
    # the last shards with examples from the start of the set (drop_last on the loader does not change this; the
    # sampler's own drop_last trims instead). A metric reduced across ranks then counts those examples twice.
    Row("DD-PAD-01", {"eval_sample_count": "padded"},
        (Find("Distributed", "warning", "the distributed evaluation scores more examples than the set holds: the "
              "sampler pads the ranks' shards to one length by repeating examples from the start, so a metric "
              "averaged across ranks counts those examples twice and is not the exact validation figure",
              explains=("metrics_wrong", "experiment_tracking")),
         RouteTo(_PT, "primary", "gather per-example results across ranks and drop the sampler's padding"),
         RouteTo("experiment-tracking", "secondary", "log the de-duplicated metric once, from one process")),
        "With N examples on W ranks each rank gets ceil(N / W); the W * ceil(N / W) - N extra slots are filled "
        "by repeating the first examples, and sync_dist or all_reduce then averages over the repeats too.",
        _SAMPLER, salience=Salience.CAUSE,
        fix=Fix("Gather each example's result with its index across ranks and keep each index once before "
                "averaging (or evaluate on one rank, or use a sampler that does not pad).",
                "idx, loss = torch.tensor(indices, device=dev), torch.tensor(per_example_loss, device=dev)\n"
                "all_idx = [torch.zeros_like(idx) for _ in range(world)]\n"
                "all_loss = [torch.zeros_like(loss) for _ in range(world)]\n"
                "dist.all_gather(all_idx, idx); dist.all_gather(all_loss, loss)\n"
                "by_idx = dict(zip(torch.cat(all_idx).tolist(), torch.cat(all_loss).tolist()))  # repeats collapse\n"
                "val_loss = sum(by_idx.values()) / len(by_idx)"),
        avoid=("drop_last=True on the loader as the fix: the sampler pads before the loader batches",
               "comparing runs on different GPU counts by a padded validation metric")),
    # Under data parallelism each process scores only its shard (about N / world examples): a count of correct
    # predictions kept in one process and divided by the whole dataset's size reads about 1 / world of the true
    # figure, so the "accuracy" falls as GPUs are added while the model trains as well as before.
    Row("DD-METRIC-01", {"metric_denominator": "dataset_size", "multi_gpu": True},
        (Find("Distributed", "warning", "a metric counted in one process is divided by the whole dataset's size: "
              "each data-parallel process scores only its shard, so the figure shrinks by the number of processes "
              "(the model is not worse on more GPUs; the arithmetic is)",
              explains=("metrics_wrong", "experiment_tracking", "not_learning")),
         RouteTo("training-loop-architecture", "primary", "count and divide in the same scope: all-reduce the "
                 "correct count and the example count across processes, then divide"),
         RouteTo("experiment-tracking", "secondary", "log the reduced metric once, from rank 0")),
        "A shard of N / W examples cannot produce more than N / W correct predictions; dividing that by N caps the "
        "metric at 1 / W, whatever the model does.",
        _SAMPLER, salience=Salience.CAUSE,
        fix=Fix("Sum both the numerator and the denominator over the processes before dividing (or divide by the "
                "examples this process scored and average across processes).",
                "stats = torch.tensor([correct, seen], dtype=torch.float64, device=device)\n"
                "dist.all_reduce(stats, op=dist.ReduceOp.SUM)\n"
                "acc = (stats[0] / stats[1]).item()   # same value on every rank\n"
                "if dist.get_rank() == 0:\n    print(f'train acc {acc:.3f}')"),
        avoid=("retuning the LR or the batch for more GPUs because a per-rank metric fell",)),
    # A multi-GPU metric lower than one GPU's by the number of GPUs is the shape DD-METRIC-01 gives, and few other
    # causes give it (padding and per-batch averaging move a metric by little); a tentative lead until the user
    # says what the count is divided by.
    Row("DD-SUS-METRIC", {"metric_world_ratio": True, "multi_gpu": True, "metric_denominator": Absent()},
        (Find("Distributed", "warning", "a metric lower on several GPUs by their number is most likely a count kept "
              "in each process and divided by the whole dataset's size; what the count is divided by confirms it",
              kind="suspect", explains=("metrics_wrong", "experiment_tracking")),
         RouteTo("training-loop-architecture", "primary", "count and divide in the same scope: all-reduce the "
                 "correct count and the example count across processes, then divide")),
        "Each data-parallel process scores about N / W examples; its count over N reads 1 / W of the true figure, "
        "exactly the ratio the user sees.",
        _SAMPLER, salience=Salience.CAUSE - 2,
        avoid=("retuning the LR or the batch for more GPUs because a per-rank metric fell",)),
    Row("DD-SPEED-01", {"multi_gpu_speedup": Is("none", "partial")},
        (Find("Performance", "warning", "more GPUs did not make training faster: each rank is held up by data "
              "loading, communication or the same per-rank work as before", kind="symptom", explains=_SPEED),
         RouteTo(_PT, "primary", "profiling a data-parallel step: loader, all-reduce, rank balance"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "per-rank batch large enough to hide "
                 "communication")),
        "Data parallelism divides the batches, not the time of a loader, of a small model's all-reduce or of work "
        "every rank repeats (no sampler); the fix depends on which of them the step waits on.",
        _TIMEOUT),
)

QUESTIONS = (
    QuestionRow(
        "Q-LR-WORLD", "lr_world_scaling",
        "When you changed the number of GPUs, did you rescale the learning rate for the new global batch?",
        {"world_size_changed": True}, rank=20,
        why="The global batch is the per-rank batch times the ranks; the LR tuned for the old one is off by "
            "the same ratio.",
        cite=_GOYAL,
        choices=(("scaled", "yes, rescaled for the new global batch"), ("unchanged", "no, same LR as before"))),
    # A data-parallel run that trains worse (or goes unstable) where one GPU was fine: BatchNorm computed on each
    # rank's own batch is a cause the complaint rarely names (a global batch split over the GPUs leaves each a few
    # examples), and its two facts split it from the LR and data causes of the same symptom.
    QuestionRow(
        "Q-BN-SYNC", "batchnorm_sync",
        "Does the model have BatchNorm layers, and are they synchronized across the GPUs (SyncBatchNorm) or "
        "computed on each GPU's own batch (plain BatchNorm under DDP)?",
        {"multi_gpu": True, "symptom": Is("unstable", "not_learning", "convergence")}, rank=18,
        unless=("flag:batchnorm_moot",),  # (DD-BN-NA-*: a language, transformer or recurrent model)
        why="Plain BatchNorm under data parallelism normalises with each GPU's own batch; a global batch split over "
            "the GPUs can leave each too few examples for stable statistics.",
        cite=_GN,
        choices=(("sync", "synchronized (SyncBatchNorm), or no BatchNorm"), ("local", "plain BatchNorm, per GPU"))),
    QuestionRow(
        "Q-RANK-BATCH", "per_rank_batch",
        "How many examples does each GPU process in one forward pass (the per-GPU batch)?",
        {"multi_gpu": True, "batchnorm_sync": "local"}, rank=18,
        why="BatchNorm on one GPU estimates its statistics from that GPU's batch alone; below about 16 examples the "
            "estimates are too noisy.",
        cite=_GN),
    QuestionRow(
        "Q-METRIC-DENOM", "metric_denominator",
        "In each process, what is the metric's count (correct predictions, summed loss) divided by: the examples "
        "that process scored, or the whole dataset's size?",
        {"multi_gpu": True, "symptom": Is("metrics_wrong", "experiment_tracking")}, rank=16,
        why="Each data-parallel process sees only its shard; divided by the whole dataset's size its count reads "
            "1 / world of the true figure.",
        cite=_SAMPLER,
        choices=(("rank_count", "the examples that process scored (or counts reduced first)"),
                 ("dataset_size", "the whole dataset's size (len(dataset))"))),
    QuestionRow(
        "Q-EVAL-PADDING", "eval_sample_count",
        "Summed over the ranks, does the validation pass score more examples than the validation set holds (some "
        "scored twice)?",
        {"multi_gpu": True, "symptom": Is("metrics_wrong", "experiment_tracking")}, rank=17,
        why="The distributed sampler pads every rank to the same count by repeating examples; a metric reduced "
            "across ranks then counts them twice.",
        cite=_SAMPLER,
        choices=(("exact", "no, each example once"), ("padded", "yes, more than the set holds"))),
)

_KT = Cite("issue 20", "distributed runs", "phrases users write about multi-GPU trouble")

_SYNCBN = r"(?:sync(?:hroni[sz]ed)?[\s_-]?(?:batch[\s_-]?norm\w*|bn)|syncbatchnorm\w*|syncbn)"
"""SyncBatchNorm by its spellings ("SyncBN", "sync batchnorm", "nn.SyncBatchNorm")."""
_PLAIN_BN = (r"(?:plain|regular|normal|vanilla|ordinary|standard|unsynced|non-synced|local)\s+"
             r"(?:batch[\s_-]?norm\w*|bn)\b")
"""BatchNorm named as the per-device kind ("plain BatchNorm", "regular BN")."""
_DATA_PARALLEL = (r"\b(?:ddp|fsdp|gpus|ranks|multi[\s-]?gpu|distributed|data[\s-]parallel|per[\s-](?:gpu|device|rank|"
                  r"process)|each\s+(?:gpu|device|rank|process))\b")
"""Words placing a sentence in data-parallel training."""
_EXAMPLES = r"(?:images?|imgs?|samples?|examples?|clips?|volumes?|sequences?|crops?|patches|patch)"
"""What a per-device batch counts."""

_BY_DATASET = (r"(?:\bdivid\w*\s+(?:\w+\s+){0,3}?by\s+(?:the\s+)?len\(\s*(?:self\.)?\w*(?:dataset|data_set|ds)\w*\s*\)|"
               r"\bdivid\w*\s+(?:\w+\s+){0,3}?by\s+(?:the\s+)?(?:size|length)\s+of\s+the\s+(?:full|whole|entire|"
               r"complete)\s+(?:train\w*\s+|val\w*\s+)?(?:dataset|data\s+set|set)\b|\bdivid\w*\s+(?:\w+\s+){0,3}?by\s+"
               r"(?:the\s+)?(?:full|whole|entire|total)\s+(?:train\w*\s+|val\w*\s+)?(?:dataset|data\s+set)\s+"
               r"(?:size|length)\b)")
"""A count divided by the whole dataset's size ("divide by len(train_dataset)", "by the size of the full set")."""
_REDUCED = (r"(?:\b(?:dist\.)?all[\s_-]?(?:reduce|gather)\w*|\bgather\w*|\breduc\w*\s+(?:\w+\s+){0,3}?(?:across|over|"
            r"from)\s+(?:the\s+|all\s+)?(?:ranks|gpus|processes|devices|workers|nodes)|\bsum\w*\s+(?:\w+\s+){0,3}?"
            r"(?:across|over|from)\s+(?:the\s+|all\s+)?(?:ranks|gpus|processes|devices|workers|nodes))\b")
"""Counts brought together from the processes (all_reduce, all_gather, gather, summed across the ranks)."""
_METRIC = r"\b(?:accuracy|acc|metrics?|f1|score|map|miou|iou|auc|precision|recall|top-?[15])\b"
"""An evaluation metric by name."""
_BY_WORLD = (r"(?:\b1\s*/\s*(?:[2-9]|16|32|64)(?:th)?\s+of\b|\b(?:a|one)\s+(?:quarter|eighth)\s+of\b|"
             r"\b(?:[2-9]|two|four|eight)\s*(?:times|x)\s+(?:lower|smaller|less|worse)\b|\bdivided\s+by\s+the\s+(?:number|count)\s+of\s+"
             r"(?:gpus|ranks|processes|devices|cards)\b|\b(?:world[_\s]?size|(?:the\s+)?(?:number|count|num)\s+of\s+(?:gpus|"
             r"ranks|processes|devices))\s+(?:times|x)\s+(?:lower|smaller|less|worse)\b|"
             # (a half, when the sentence names the devices: two of them halve it)
             r"\b(?:exactly\s+|about\s+|roughly\s+)?half\s+(?:of\b|what\b)(?=[^.!?\n]{0,60}?\b(?:gpus?|devices?|ranks?|"
             r"process(?:es)?|cards?)\b))")
"""A figure lower by the number of processes ("1/4 of", "a quarter of", "4 times lower", "divided by the number
of gpus", "world_size times lower", half of one GPU's)."""

# Free-text cues for distributed trouble: words map to observations, never to causes.
KEYWORDS = (
    # several processes said by their count or by two of their ranks ("eval on 8 ranks", "across 2 nodes", "the
    # weights on rank 0 and rank 1 differ"); graph nodes come in larger counts and without "on/across" (ranks
    # counted in digits, as launch logs give them: "the two ranks" of a sentence is left to what it says of them)
    Keyword(r"\b(?:[2-9]|[1-9]\d{1,3})\s+ranks\b|"
            r"\b(?:on|across|over|to|from)\s+(?:[2-9]|[1-5]\d|64|two|three|four|eight|several|multiple)\s+"
            r"(?:nodes|machines|hosts)\b|\brank\s*#?\d+\s+(?:and|vs\.?|or|versus)\s+(?:rank\s*)?#?\d+\b",
            {"multi_gpu": True}, _KT, priority=2),
    # a per-process count divided by the whole dataset's size ("divide by len(train_dataset)", "divided by the
    # size of the full dataset"): the row reads it only under data parallelism, where a process sees a shard
    Keyword(_BY_DATASET, {"metric_denominator": "dataset_size"}, _KT, negatable=False, priority=4),
    # the same division after the counts were reduced or gathered across the processes ("I all_reduce the correct
    # counts and then divide by len(dataset)", "gather all predictions to rank 0 and divide by len(dataset)"):
    # the numerator is then the whole dataset's, and the figure right; this longer cue hides the one above
    Keyword(rf"{_REDUCED}(?P<gap>[^.!?\n]*?){_BY_DATASET}|{_BY_DATASET}(?P<gap2>[^.!?\n]*?){_REDUCED}",
            {"metric_denominator": "rank_count"}, _KT, negatable=False, priority=6),
    # the metric said to agree with one GPU's ("accuracy matches single gpu"): no shard is divided by the whole
    # dataset, which would cap it at 1 / world
    Keyword(r"\b(?:match(?:es|ed|ing)?|same\s+as|agrees?\s+with|identical\s+to|equal\s+to)\s+(?:the\s+|my\s+|a\s+)?"
            r"(?:single|one|1)[\s-]?(?:gpu|device|card|process)(?:\s+(?:run|one|training|result))?\b",
            {"metric_denominator": "rank_count"}, _KT, negatable=False, priority=6),
    # a multi-GPU metric lower by the number of GPUs ("accuracy on 4 gpus is exactly 1/4 of what I get on one",
    # "4 times lower", "divided by the number of gpus"): the shape the per-process count over the whole dataset
    # gives, read as evidence, not as the cause (the question on the denominator confirms it)
    Keyword(rf"{_METRIC}(?P<gap>[^.!?\n]{{0,60}}?){_BY_WORLD}",
            {"metric_world_ratio": True, "symptom": "metrics_wrong"}, _KT, negatable=False, priority=6),
    # more devices, some more speed but far less than they multiply ("the speedup is far from linear", "DDP
    # scaling is poor", "more GPUs give diminishing returns"); not the LR's scaling rule
    Keyword(r"(?<!lr\s)(?<!rate\s)\b(?:speed-?up|scaling)\s+(?:(?:on|with|from|of|across)\s+(?:[\w-]+\s+){1,3}?)?"
            r"(?:is\s+|was\s+|seems\s+)?(?:very\s+|really\s+)?(?:far\s+"
            r"(?:from|below)\s+linear|sub-?linear|poor|bad|disappointing|terrible)|(?<!lr\s)\bscales?\s+(?:very\s+)?"
            r"(?:poorly|badly|sub-?linearly)|(?:more|extra|additional)\s+(?:gpus|cards|nodes|ranks)\s+(?:\w+\s+){0,2}?"
            r"diminishing\s+returns?",
            {"multi_gpu_speedup": "partial", "symptom": "slow_training"}, _KT, negatable=True, priority=10),
    # BatchNorm left per device under data parallelism ("no SyncBatchNorm", "I don't use SyncBN", "running DDP
    # without syncbn", "plain BN on 8 GPUs", "the BN statistics are computed per GPU"): not asked, and "not sure
    # whether SyncBN ..." is no denial of it
    Keyword(rf"(?:\bno|\bnot(?!\s+sure)|n't|\bdont|\bdidnt|\bnever|\bwithout)\s+(?:[\w-]+\s+){{0,3}}?{_SYNCBN}"
            rf"(?![^.!?\n]*\?)|{_DATA_PARALLEL}[^.!?\n]{{0,60}}?\b{_PLAIN_BN}|{_PLAIN_BN}(?=[^.!?\n]{{0,60}}?"
            rf"{_DATA_PARALLEL})|\b(?:batch[\s_-]?norm\w*|bn)\s+(?:stats|statistics)\s+(?:are\s+)?(?:computed\s+|"
            r"calculated\s+|collected\s+)?(?:separately\s+)?(?:per|on\s+each)\s+(?:gpu|device|rank|process)",
            {"batchnorm_sync": "local"}, _KT, negatable=False, priority=4),
    # the examples each rank takes in one forward pass ("2 images per GPU", "batch size 1 per gpu", "per-gpu batch
    # is 2", "each GPU sees 3 images", "8 GPUs with 2 images each", per_device_train_batch_size=8)
    # host memory said to follow the GPU count ("CPU RAM grows with the number of GPUs", "RAM usage scales with the
    # number of processes", "4x the RAM on 4 GPUs", "each process loads the whole dataset into memory")
    # Only the host's memory: "memory" alone or GPU memory ("GPU memory grows with the GPUs", "peak memory increases
    # with more GPUs because of NCCL buffers") is no dataset copy; the growth word is said of that memory in its own
    # clause ("needs a lot of CPU RAM, and it grows ..." says it of the RAM), not denied ("CPU RAM does not
    # grow ..."), and a question about it ("does RAM scale with more GPUs?")
    # is offered to confirm, not read.
    Keyword(r"(?<!gpu\s)(?<!cuda\s)(?<!device\s)(?<!video\s)\b(?:(?:cpu|host|system)\s+(?:ram|memory)|ram)\b"
            r"(?:,?\s+(?!(?:not|never|no|doesn'?t|don'?t|didn'?t|isn'?t|wasn'?t|won'?t|and(?!\s+it\b)|but|while|"
            r"though|because|with)\b)[\w'-]+){0,6}?\s+(?:grow\w*|scal\w*|increas\w*|"
            r"multipl\w*|proportional|linear\w*|correlat\w*)\b[^.!?\n]{0,40}?\b(?:number\s+of\s+|more\s+|#\s*)"
            r"(?:gpus?|processes|ranks|devices|cards|workers\s+per\s+gpu)\b|"
            r"\beach\s+(?:gpu\s+)?(?:process|rank)\s+(?:loads|holds|keeps|reads)\s+(?:the\s+)?(?:whole|entire|full)\s+"
            r"(?:dataset|data)",
            {"host_ram_per_rank": True, "multi_gpu": True, "symptom": "memory_growth"}, _KT, priority=3,
            asked_reads=False),
    *(Keyword(p, {"per_rank_batch": "$int"}, _KT, priority=3) for p in (
        rf"\b(?P<per_rank_batch>\d+)\s+{_EXAMPLES}\s+(?:per|each|a|/)\s*(?:gpu|card|device|rank|process)\b",
        r"\bbatch(?:[\s_-]?size)?\s*(?:of|=|:|is)?\s*(?P<per_rank_batch>\d+)\s+(?:per|on\s+each|each)\s+(?:gpu|card|"
        r"device|rank|process)\b",
        r"\bper[\s_-](?:gpu|device|rank|process)\s+batch(?:[\s_-]?size)?\s*(?:is|of|=|:)?\s*(?P<per_rank_batch>\d+)\b",
        rf"\beach\s+(?:gpu|card|device|rank|process)\s+(?:sees|gets|has|processes|takes|receives)\s+(?:only\s+)?"
        rf"(?P<per_rank_batch>\d+)\s+{_EXAMPLES}",
        rf"\beach\s+of\s+(?:my|the)\s+\d+\s+(?:gpus|cards|devices|ranks)\s+(?:has|gets|sees|processes|takes)\s+"
        rf"(?:only\s+)?(?P<per_rank_batch>\d+)\s+{_EXAMPLES}",
        rf"\b(?:gpus|cards|devices|ranks)\s+(?:with|having|at)\s+(?P<per_rank_batch>\d+)\s+{_EXAMPLES}\s+each\b",
        r"per_device_train_batch_size\s*=?\s*(?P<per_rank_batch>\d+)")),
    Keyword(r"watchdog\s+caught\s+collective\s+operation\s+timeout|collective\s+operation\s+timeout|"
            r"(?:nccl|gloo|collective|all[-_\s]?reduce|all[-_\s]?gather|barrier)\s+(?:\w+\s+)?timed?\s*out|"
            r"timed\s+out\s+(?:in|waiting\s+for)\s+(?:an?\s+)?(?:collective|all[-_\s]?reduce|barrier)",
            {"collective_failure": "timeout"}, _KT, negatable=False, priority=3),
    Keyword(r"expected\s+to\s+have\s+finished\s+reduction\s+in\s+the\s+prior\s+iteration",
            {"collective_failure": "unfinished_reduction"}, _KT, negatable=False, priority=5),
    Keyword(r"detected\s+mismatch\s+between\s+collectives|collective\s+(?:sequence\s+)?mismatch|"
            r"(?:desync|de-sync)\s+(?:debug|report)|ranks?\s+\d+\s+(?:is|are)\s+(?:running|waiting\s+for)\s+"
            r"(?:a\s+)?(?:different|collective)|flight\s+recorder|"
            # (the mismatch told in words: "the ranks call different collectives", "the collectives between ranks
            # do not match", "a desync between ranks")
            r"(?:ranks?|processes|gpus)\s+(?:call|calls|calling|run|runs|running|issue|issues|enter|entering)\s+"
            r"(?:different|mismatched)\s+collectives?|collectives?\s+(?:between|across|on)\s+(?:the\s+)?(?:ranks|"
            r"processes|gpus)\s+(?:do\s+not|don'?t|does\s+not|doesn'?t)\s+match|(?:desync|de-sync|"
            r"desynchroni[sz]ation)\s+(?:between|across)\s+(?:the\s+)?(?:ranks|processes|gpus)",
            {"collective_failure": "mismatch"}, _KT, negatable=False, priority=4),
    Keyword(r"(?:hangs?|hanging|hung|stuck|freezes?|blocks?)\s+(?:at|on|in)\s+(?:the\s+)?(?:very\s+)?first\s+"
            # (not "the first step after 2 epochs" nor "the first step of the next epoch": a later stretch's step)
            r"(?:all[-_\s]?reduce|collective|barrier|broadcast|(?:step|iteration)(?!\s+(?:after\s+\w+\s+\w+|of\s+"
            r"(?:the\s+|a\s+)?(?:next|new|each|every|following|second|\d+\w*)\s+epoch)))|"
            r"(?:hangs?|hanging|hung|stuck)\s+(?:at|in|on)\s+(?:init_process_group|ddp\s+(?:init|construction))",
            {"collective_failure": "hang_first_collective", "symptom": "hang"}, _KT, negatable=False, priority=4),
    Keyword(r"(?:\d+|two|three|four|eight|more|multiple)\s+gpus?\s+(?:is\s+|are\s+|was\s+|were\s+)?"
            r"(?:no|not\s+any)\s+faster|(?:no|zero)\s+speed-?up\s+(?:from|with)\s+(?:\w+\s+)?(?:gpus?|ddp|ranks?)|"
            r"(?:ddp|multi-?gpu|distributed)\s+(?:training\s+)?(?:is\s+)?(?:no|not)\s+faster",
            {"multi_gpu_speedup": "none", "symptom": "slow_training"}, _KT, negatable=False, priority=11),
    Keyword(r"(?:no|without(?:\s+a)?|forgot(?:\s+the)?|missing(?:\s+the)?)\s+distributed\s?sampler|"
            r"same\s+(?:data|batch(?:es)?)\s+on\s+(?:every|each|all)\s+(?:rank|gpu|process)(?:es|s)?",
            {"rank_data": "identical"}, _KT, negatable=False, priority=4),
    Keyword(r"(?:never|forgot\s+to|didn'?t|did\s+not|without)\s+(?:call(?:ing)?\s+)?(?:sampler\.)?set_epoch",
            {"epoch_data_order": "repeated"}, _KT, negatable=False, priority=4),
    # (drift only asked about, "the weights differ between ranks?", is offered to confirm, not read; denied right
    # after, "... I checked, they don't", it is no claim: the reader's clause status says both, as for every cue)
    Keyword(r"(?:replicas?|ranks?|weights?|models?)\s+(?:are\s+|have\s+)?(?:out\s+of\s+sync|drift(?:ed|ing)?\s+apart|"
            r"diverg(?:ed|ing)\s+(?:across|between)\s+ranks)",
            {"replicas_in_sync": "diverged"}, _KT, negatable=False, priority=4, asked_reads=False),
    # (the same said of the parameters: "the ranks have different weights after a few steps", "parameter values
    # differ between GPUs")
    Keyword(r"(?:ranks?|replicas?|gpus?|processes|workers)\s+(?:have|hold|end\s+up\s+with|show)\s+(?:\w+\s+)?different\s+"
            r"(?:parameters?|param(?:eter)?\s+values|weights?|model\s+weights)|(?:parameters?|param(?:eter)?\s+values|"
            r"weights?)\s+(?:are\s+|become\s+)?(?:differ(?:ent)?|not\s+(?:the\s+)?same|out\s+of\s+sync)\s+(?:across|"
            r"between|on)\s+(?:the\s+)?(?:ranks|replicas|gpus|processes|devices)" + r"|"
            # (two ranks named: "the weights on rank 0 and rank 1 are different")
            r"(?:parameters?|params?|weights?)\s+(?:on|of|in)\s+(?:rank|gpu|replica|device)\s*#?\d+\s+(?:and|vs\.?)\s+"
            r"(?:rank|gpu|replica|device)?\s*#?\d+\s+(?:are\s+|become\s+|look\s+)?(?:different|differ|not\s+(?:the\s+)?"
            r"same|out\s+of\s+sync)",
            {"replicas_in_sync": "diverged", "multi_gpu": True}, _KT, negatable=False, priority=4,
            asked_reads=False),
    # the rank where a NaN shows up first ("rank 2 hits nan first", "the first inf appears on gpu 3")
    # ("rank 0 sees nan in its own loss first": where the value was seen may come between)
    Keyword(r"(?:rank|gpu|process|device)\s*#?(?P<nonfinite_rank>\d+)\s+(?:\w+\s+){0,3}?(?:nan|inf|non-?finite)\w*\s+"
            r"(?:(?:in|on|at|for)\s+(?:\w+\s+){1,3}?)?(?:first|before\s+(?:the\s+)?others)|(?:first|only)\s+(?:nan|inf|non-?finite)\w*\s+(?:\w+\s+){0,3}?(?:on|in|"
            r"from|at)\s+(?:rank|gpu|process|device)\s*#?(?P<v>\d+)",
            {"nonfinite_rank": "$int", "multi_gpu": True}, _KT, negatable=False, priority=4),
    # validation examples scored more than once across ranks ("14 validation tracks but 16 get evaluated",
    # "DistributedSampler duplicates some validation samples", "val samples counted twice with DDP")
    Keyword(r"\d+\s+(?:validation|val|eval|evaluation|test)\s+(?:samples|examples|tracks|items|images|files|clips|"
            r"sequences|utterances)\b[^.;]{0,40}?\bbut\s+\d+\s+(?:(?:get|got|are|were)\s+)?(?:evaluated|"
            r"validated|scored|processed|counted)|"
            r"distributed\s?sampler\s+(?:pads|padded|duplicates|duplicated|repeats|repeated|adds)|"
            # (the sampler of a validation under DDP, unnamed: "when I validate with ddp the sampler duplicates a
            # few samples"; not a training sampler drawing with replacement)
            r"(?:validat\w*|\beval\w*|\bval\b|\btest(?:ing)?\b)(?P<gap1>[^.!?\n]{0,60}?)\bsampler\s+(?:pads|padded|"
            r"duplicates|duplicated|repeats|repeated)\b|"
            r"(?:validation|val|eval|evaluation|test)\s+(?:samples?|examples?|tracks?|items?|images?)\s+"
            r"(?:are\s+|get\s+|were\s+)?(?:duplicated|repeated|counted\s+twice|evaluated\s+twice|scored\s+twice)",
            {"eval_sample_count": "padded", "symptom": "metrics_wrong"}, _KT, negatable=False, priority=6),
    Keyword(r"uneven\s+(?:inputs|batch(?:es)?|batch\s+counts|number\s+of\s+batches|shards?)|"
            r"(?:ranks?|gpus?)\s+(?:have|get)\s+(?:a\s+)?different\s+(?:number\s+of\s+batches|dataset\s+sizes?)",
            {"rank_batch_counts": "uneven"}, _KT, negatable=False, priority=4),
)
