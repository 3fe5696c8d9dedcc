"""Readings of complaint bodies nobody here wrote (d32): a second probe, from the first lines of public threads.

Where the probe of review l31 paraphrases thread titles, this one paraphrases about 120 first sentences and short
complaint bodies of public threads (GitHub issues of training libraries and model repositories, the PyTorch forum,
Stack Exchange), picked across kinds that probe under-covered: speed and GPU utilisation, memory, several GPUs
(DDP, FSDP), mixed precision, LR schedules, fine-tuning LLMs (a loss at 0, a LoRA loss that will not fall, a NaN
eval loss), metrics (a class never predicted), data loading and resuming. Each is lightly paraphrased and carries
the observations a careful expert reads from it; a value of None names a reading the text does not support (a
reading there is wrong).

First contact, before any change made for it: 120 phrasings, 163 stated observations, 134 read right (82.2%),
5 phrasings with nothing understood, 14 with a wrong reading. After the mechanisms tested below: 139 read right
(85.3%), 1 with nothing understood, 11 with a wrong reading. After issue 19's mechanisms (a GPU's use held at a
level, other metrics than accuracy, vague device counts, a precision judged by its cost, sharding named with no
question, a share said without "%", an LR that stays the same): 144 read right (88.3%), 1 with nothing understood, 3
with a wrong reading (the floors assert these; ``KNOWN_GAPS`` lists the rest).
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs, score_probes

SLOW = {"symptom": "slow_training"}
SLOWM = {"symptom": "slow_training", "multi_gpu": True}
NAN = {"loss_behavior": "nan_or_inf"}
EVNAN = {"loss_behavior": "nan_or_inf", "nan_phase": "evaluation"}
RESUME = {"recent_change": "resume"}
ZERO = {"loss_collapses_zero": True}
DLF = {"boundary_topic": "dataloader_failure"}
PROBES = [
    # speed and GPU utilisation
    ("while training, GPU utilisation is very low and only spikes for a moment with each batch; looks like the GPU "
     "is waiting for the data. normal?", SLOW),
    ("IO is slow: GPU util sits around 30 and falls to 0 every few seconds, one run takes more than 26 hours",
     {**SLOW, "gpu_utilization_pct": 30.0, "multi_gpu_speedup": None}),
    ("finetuning on a single A10 the gpu utility is really low, and the torch profiler shows 60% of the training "
     "time goes to the DataLoader", {**SLOW, "data_time_fraction": 0.6, "recent_change": None}),
    ("one node, 4 gpus, DALI dataloader: the gpu util is low and training is slow too, about 1:30 per epoch",
     {**SLOWM, "multi_gpu_speedup": None}),
    ("after a few steps training slows down: it drops from 300+ Hz to below 10 and one or two of the 8 GPUs sit at "
     "0% utilization", {**SLOWM, "multi_gpu_speedup": None}),
    ("the dataloader reads data so slowly that the GPU stays at 0% utilization for long periods, yet the CPU is "
     "mostly idle", {**SLOW, "gpu_utilization_pct": 0.0}),
    ("batch size 24, 13GB of GPU memory in use, utilization jumps between 0% and 90% and is at 0 most of the time "
     "waiting for data", {**SLOW, "batch_size": 24}),
    ("GPU utilization is very low and the dataloader is the bottleneck, but when I raise num_workers I get errors",
     SLOW),
    ("I'm getting really low GPU utilisation (~5%) and batches take a very long time to get onto the GPU",
     {**SLOW, "gpu_utilization_pct": 5.0}),
    ("the batches don't go through evenly: four run quickly, then a long pause, then another four", SLOW),
    ("the GPU memory is nearly full (24GB) but GPU usage stays around 25%",
     {**SLOW, "gpu_utilization_pct": 25.0}),
    ("setting precision to 16 instead of 32 gives about the same training speed, why?", SLOW),
    ("amp_bfloat16 is a lot slower than amp and even fp32: roughly 0.73s vs 0.28s per batch on 8 A100s",
     {**SLOWM, "mixed_precision": "bf16"}),
    ("with AMP the throughput went down from 30k to 25k samples/s", SLOW),
    ("one epoch over 40,000 training images takes about 90 minutes, which is far too slow",
     {**SLOW, "dataset_size": 40000}),
    # multi-GPU, DDP, FSDP
    ("why is training with the DDP strategy slower than on one GPU? how do I fix it", SLOWM),
    ("DDP is twice as slow as a single GPU: with two GPUs it seems to pause at the start of every new epoch",
     {**SLOWM, "epoch_start_stall": True}),
    ("with --devices=1 I get 3.95 it/s but with --devices=4 only 2.7 it/s", SLOWM),
    ("throughput per device is 1,747 tokens/s with FSDP against 8,034 with DDP", {**SLOWM, "question_topic": None}),
    ("moving the ddp backend to fully sharded made training much slower: 100 steps took 5 min before and 18 min "
     "with FSDP", {**SLOWM, "question_topic": None}),
    ("on 4 RTX 4090s with torchrun one epoch would take 130 hours, on a single GPU 30 hours for the same steps",
     SLOWM),
    ("FSDP+PEFT runs too slowly, plain DDP is three times faster", {**SLOWM, "question_topic": None}),
    ("with ddp on several GPUs the printed training loss doesn't go down monotonically, on a single GPU it does",
     {"multi_gpu": True, "symptom": None, "dist_world_size": None}),
    ("DistributedDataParallel is much faster but ends at a higher loss than DataParallel", {"multi_gpu": True}),
    ("training hangs with FSDP but not with DeepSpeed", {"symptom": "hang", "multi_gpu": True}),
    ("after 4-5 hours on 4 GPUs with DDP: RuntimeError: DataLoader worker (pid 812) is killed by signal: Killed. "
     "never on one GPU", {**DLF, "multi_gpu": True}),
    ("the GPUs all max out at 100% and it gets stuck there with DDP", {"symptom": "hang", "multi_gpu": True}),
    ("Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 1800000 "
     "milliseconds before timing out", {"collective_failure": "timeout"}),
    ("NCCL timeout at the first allreduce when I go from 1 node to 2 nodes", {"multi_gpu": True}),
    # memory
    ("I get cuda out of memory after 8784 iterations; the loss is summed with loss_sum += loss.item()",
     {"boundary_topic": "cuda_oom"}),
    ("GPU memory grows quickly and is never released when I add up the losses of every sequence before backward",
     {"symptom": "memory_growth"}),
    ("a one-layer LSTM with 200 units fills an 8gb gpu, batch size = 1", {"batch_size": 1, "architecture": "rnn"}),
    ("memory use keeps climbing during training until the process gets killed", {"symptom": "memory_growth"}),
    ("the DataLoader takes 3x more memory when num_workers > 0, and the RAM used keeps growing",
     {"symptom": "memory_growth"}),
    ("RuntimeError: DataLoader worker (pid 3855) is killed by signal: Bus error. It is possible that dataloader's "
     "workers are out of shared memory.", DLF),
    ("trains fine until about epoch 55 and then a DataLoader worker is killed", DLF),
    ("RuntimeError: DataLoader worker (pid(s) 14455) exited unexpectedly, with num_workers=8", DLF),
    ("DataLoader worker is killed by signal: Segmentation fault even with num_workers set to 1", DLF),
    ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 11.17 GiB total capacity; 10.52 GiB "
     "already allocated)", {"boundary_topic": "cuda_oom"}),
    ("out of memory only in the validation step, the training steps run fine", {"boundary_topic": "cuda_oom"}),
    ("memory usage goes up every epoch until it OOMs around epoch 12", {"symptom": "memory_growth"}),
    # fine-tuning LLMs
    ("when I finetune on my data with lora the loss does not decrease, why and how do I fix it",
     {"symptom": "not_learning"}),
    ("full finetuning brings the loss down to 0.03, but with lora it wobbles between 1.2 and 1.5",
     {"loss_behavior": "oscillating"}),
    ("fine-tuning with Lora the loss drops to about 0.8 over the first 20k steps, then increases to 6.2 and keeps "
     "oscillating there", {"loss_behavior": "diverging"}),
    ("why didn't my training loss go down when I train a lora of flux?", {"symptom": "not_learning"}),
    ("a strange sudden increase of the loss while fine-tuning llava with LoRA on my custom dataset",
     {"loss_behavior": "diverging"}),
    ("13B LORA, the loss has stayed at 3-point-something for 3 epochs", {"symptom": "not_learning"}),
    ("the loss won't drop: in a whole day it only went from 1.3 to 1.0", {"loss_behavior": "decreasing_slowly"}),
    ("the training loss of LoRA fine tuning converges to around 1.0 after 4000 steps, which is not good",
     {"loss_behavior": "plateau_after_learning"}),
    ("the loss goes to 0 already at the second step and doesn't recover", ZERO),
    ("the loss and grad_norm are always 0 in the terminal, changing the learning rate several times has no effect",
     {"loss_zero_from_start": True, "recent_change": None}),
    ("{'loss': 1.9166, 'learning_rate': 2.1e-08, 'epoch': 0.0} and after that {'loss': 0.0, ...} on every line", ZERO),
    ("fine-tuning llama2 on alpaca on one card, at 0.07 epochs the loss shoots up and then becomes 0", ZERO),
    ("why is the train loss always 0 when I fine-tune llama2 with fp16?",
     {"loss_zero_from_start": True, "mixed_precision": "fp16"}),
    ("fine-tuning CodeLlama-34b my loss is always 0 with every dataset; the same settings work for 7B and 13B",
     {"loss_zero_from_start": True}),
    ("at 27% progress the loss seems to become zero and it stays close to zero", ZERO),
    ("I get a zero loss after the first iteration, on 8 A6000 GPUs", {**ZERO, "multi_gpu": True}),
    ("the training loss falls to exactly 0.0 after just a few steps for llama-3.2-vision; qwen2.5-vl trains fine",
     ZERO),
    ("all settings are standard and the eval loss keeps coming back as nan", EVNAN),
    ("my training loss goes down but my eval loss is NaN", {"nan_phase": "evaluation"}),
    ("{'eval_loss': nan, 'eval_accuracy': 0.0, 'eval_runtime': 17.3, 'epoch': 0.08}", {"nan_phase": "evaluation"}),
    ("the train loss is fine on my long context dataset but the eval loss is nan at every evaluation",
     {"nan_phase": "evaluation"}),
    ("I turned on FP16 to speed up fine-tuning, but the loss is nan the whole time",
     {**NAN, "mixed_precision": "fp16"}),
    ("Loss and logits are nan when fine-tuning an NLI model with the Trainer", NAN),
    ("my rtx 6000 can't use bf16 and fp32 takes too much memory, but fp16 gives nan loss",
     {**NAN, "mixed_precision": "fp16", "bf16_supported": False}),
    ("after enabling fp16 with a dynamic loss scale the loss became nan and grad_norm is nan as well",
     {**NAN, "mixed_precision": "fp16"}),
    ("Epoch [1][50/3862] lr: 4.9e-05, time: 4.43, data_time: 1.90, memory: 10657, loss: nan, grad_norm: nan", NAN),
    ("bf16=True in TrainingArguments but the model still trains in fp32; when I force it to bf16 the loss goes down "
     "much more slowly", {"mixed_precision": "bf16", "loss_behavior": "decreasing_slowly"}),
    ("Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 1e-20", {"loss_scale_issue": True}),
    ("pure fp16 training without a loss scaler doesn't converge", {"mixed_precision": "fp16"}),
    ("moved from fp32 to bf16 and now the loss plateaus higher",
     {"mixed_precision": "bf16", "recent_change": "precision"}),
    ("the loss became NaN after I raised the batch size from 64 to 1024",
     {**NAN, "recent_change": "batch_size", "batch_size": 1024}),
    # LR schedules
    ("the warmup scheduler seems not to work, the learning rate stays the same during training",
     {"warmup": True, "lr_observed": "stuck"}),
    ("whatever lr I pass to the optimizer, the learning rate curve of the warmup scheduler does not change",
     {"warmup": True}),
    ("warmup_epoch is set to 1 but the warmup doesn't work when training", {"warmup": True}),
    ("the WSD lr scheduler acts like a constant one", {"lr_schedule": "wsd"}),
    ("the learning rate logged is 0.0 at every step", {"lr_observed": "near_zero"}),
    ("after resuming, the lr schedule starts over from the warmup", {"recent_change": "resume"}),
    ("with a cosine schedule the lr already reaches zero halfway through training",
     {"lr_schedule": "cosine", "scheduler_pace": "too_fast"}),
    ("I call scheduler.step() every batch instead of every epoch, so after the first epoch the lr is almost 0",
     {"scheduler_pace": "too_fast"}),
    ("learning rate 2e-4 made the loss explode, 2e-5 works", {"lower_lr_stable": True}),
    # metrics
    ("about 40K samples, 39.6K of them class 0; accuracy is ~99% and the model just predicts class 0 for everything",
     {"class_imbalance": True, "predictions_constant": True}),
    ("precision, recall and F1 are all zero for the minority class in the classification report",
     {"class_imbalance": True}),
    ("keras prediction returns only one class in a binary problem", {"predictions_constant": True}),
    ("my model predicts 0 for every input", {"predictions_constant": True}),
    ("the validation accuracy remains constant at 0.5, with 207 normal and 179 covid images for training",
     {"metric_kind": "accuracy", "val_metric": 0.5}),
    ("my training accuracy jumps all over the place within an epoch but val_acc at the end of each epoch doesn't "
     "budge", {"metric_kind": "accuracy"}),
    ("test accuracy plateaus around 87% after the first few epochs", {"metric_kind": "accuracy", "val_metric": 0.87}),
    ("same loss and accuracy for all epochs", {"symptom": "not_learning", "metric_kind": "accuracy"}),
    # (a split's figure of another higher-is-better metric is the split's score: its gap reads as an accuracy's)
    ("the F1 score on validation stays at 0 for every epoch", {"metric_kind": "score", "val_metric": 0.0}),
    ("the model never predicts the rare class", {"class_imbalance": True}),
    ("it always outputs the majority class", {"predictions_constant": True, "class_imbalance": True}),
    ("the accuracy is computed per batch and averaged, and it doesn't match sklearn on the full set",
     {"metric_batch_averaged": True}),
    ("accuracy on 4 GPUs is about a quarter of what I get on one GPU", {"metric_world_ratio": True,
                                                                       "multi_gpu": True}),
    # resume and checkpoints
    ("I continue training with resume_from and the loss is as large as at the start; the mAP decreases too", RESUME),
    ("when I load the model and optimizer state dicts and resume, the training loss suddenly spikes and wipes out a "
     "lot of the progress, then slowly goes down again", RESUME),
    ("after restoring with --resume-from, the training and validation loss jumped sharply at first and then "
     "decreased", RESUME),
    ("after a power outage I resumed from the last checkpoint, and the loss is very high as if the parameters were "
     "not loaded", RESUME),
    ("training was interrupted so I loaded _checkpoint.pth to resume, and the loss became very big right where it "
     "stopped", RESUME),
    ("loading a checkpoint and continuing at the previous learning rate, the loss rises sharply after a few steps",
     RESUME),
    ("I resumed training from a checkpoint and the validation loss jumped from 5.99 back up to 15.6",
     {**RESUME, "val_loss_rising": None}),
    ("the loss had reached 0.04, I stopped and restarted from the latest checkpoint on the same images and now the "
     "loss starts at 2000", RESUME),
    ("the loss spikes after restoring checkpoints and keeps decreasing from that higher point", RESUME),
    ("every time I resume from a checkpoint it starts again from epoch 0 iteration 0", RESUME),
    ("mAP falls to zero after resuming from a checkpoint", RESUME),
    # how the loss moves
    ("the loss decreases for the first few epochs and then stays flat", {"loss_behavior": "plateau_after_learning"}),
    ("the loss is going down very slowly", {"loss_behavior": "decreasing_slowly"}),
    ("val loss starts going up after epoch 3 while train loss keeps going down",
     {"val_loss_rising": True, "symptom": "overfitting"}),
    ("my training loss is much higher than my validation loss the whole time", {"val_better_than_train": True}),
    ("the loss jumps up at the start of every epoch and then comes back down", {"epoch_start_jump": True}),
    ("every epoch begins with a long pause before the first batch arrives", {"epoch_start_stall": True}),
    ("it takes 10 minutes before the very first step starts", {"first_step_stall": True}),
    ("the gradients for the first layers are zero", {"grad_norm_trend": "vanishing"}),
    ("the weights don't change after optimizer.step()", {"symptom": "not_learning"}),
    ("grad is None for all my parameters after loss.backward()", {"step_grads": "none"}),
    ("with gradient accumulation 8 the logged loss looks 8 times smaller", {"grad_accum_steps": 8}),
    # data loading
    ("training hangs in the first epoch whenever num_workers > 0", {"symptom": "hang"}),
    ("the DataLoader freezes at the end of the epoch with persistent_workers=True",
     {"symptom": "hang", "hang_onset": "epoch_boundary"}),
    ("fetching the next batch takes longer than forward and backward together", SLOW),
    ("each epoch sees the batches in exactly the same order", {"batch_order": "same_each_epoch"}),
]

FACTS = 165
READ_FLOOR = 144
NOTHING_CEILING = 1
WRONG_CEILING = 3
# Phrasings with a stated observation not read yet, by their first words: what each still misses.
KNOWN_GAPS: dict[str, str] = {
    'finetuning on a single A10 the gpu utility is really lo': 'data_time_fraction',
    'batch size 24, 13GB of GPU memory in use, utilization j': 'batch_size',
    "the batches don't go through evenly: four run quickly, ": 'symptom',
    'with --devices=1 I get 3.95 it/s but with --devices=4 o': 'symptom',
    'throughput per device is 1,747 tokens/s with FSDP again': 'symptom',
    'the training loss of LoRA fine tuning converges to arou': 'loss_behavior',
    'the loss and grad_norm are always 0 in the terminal, ch': 'loss_zero_from_start',
    'fine-tuning llama2 on alpaca on one card, at 0.07 epoch': 'loss_collapses_zero',
    'Loss and logits are nan when fine-tuning an NLI model w': 'loss_behavior',
    'with a cosine schedule the lr already reaches zero half': 'scheduler_pace',
    'same loss and accuracy for all epochs': 'metric_kind',
    'the DataLoader freezes at the end of the epoch with per': 'hang_onset',
    'each epoch sees the batches in exactly the same order': 'batch_order',
}


def _score() -> tuple[int, int, list[str], list[tuple[str, dict]], list[tuple[str, dict]]]:
    """(stated observations, read right, phrasings read as nothing, wrong readings, misses)."""
    return score_probes(PROBES)


def test_the_probe_bodies_keep_their_recall_floor() -> None:
    """The figures may only improve: recall, phrasings read as nothing, phrasings with a wrong reading."""
    facts, read, nothing, wrong, missed = _score()
    assert facts == FACTS
    assert read >= READ_FLOOR, (read, facts, missed)
    assert len(nothing) <= NOTHING_CEILING, nothing
    assert len(wrong) <= WRONG_CEILING, wrong


def test_the_known_gaps_are_the_only_misses() -> None:
    """Every miss is a listed known gap, and every listed gap is still a miss: a change either way shows."""
    _, _, _, _, missed = _score()
    new = [text for text, _ in missed if text[:55] not in KNOWN_GAPS]
    assert not new, new
    closed = set(KNOWN_GAPS) - {text[:55] for text, _ in missed}
    assert not closed, f"gaps closed, drop them from KNOWN_GAPS: {sorted(closed)}"


# -- the mechanisms the probe lacked, each tested both ways -------------------------------------------------------


@pytest.mark.parametrize("text", ["as slow on 8 GPUs as on a single one", "DDP is slower than a single GPU",
                                  "multi GPU several times slower than one GPU",
                                  "training on 2 gpus is slow compared to 1 gpu"])
def test_a_single_device_compared_says_no_speedup(text: str) -> None:
    assert_reads(text, {"multi_gpu_speedup": "none", "symptom": "slow_training"})


@pytest.mark.parametrize("text", ["IO is slow: GPU util sits around 30, one run takes more than 26 hours",
                                  "the job is slow with 4 GPUs, one epoch takes 3 hours",
                                  "one node with 4 gpus and training is slow"])
def test_one_run_node_or_epoch_is_no_single_device(text: str) -> None:
    assert "multi_gpu_speedup" not in obs(text)


@pytest.mark.parametrize("text", ["the loss and grad_norm are always 0, changing the learning rate several times "
                                  "has no effect", "the loss is nan, a smaller batch size makes no difference"])
def test_a_change_with_no_effect_is_a_remedy_tried(text: str) -> None:
    assert "recent_change" not in obs(text)


@pytest.mark.parametrize(("text", "change"), [("since changing the learning rate the loss explodes", "learning_rate"),
                                              ("I changed the lr to 1e-3 and now it diverges", "learning_rate"),
                                              ("the effect of switching to fp16 was a nan loss",
                                               "precision")])
def test_a_change_that_started_the_trouble_stays_a_change(text: str, change: str) -> None:
    assert_reads(text, {"recent_change": change})


@pytest.mark.parametrize("text", ["the profiler shows 60% of the training time goes to the DataLoader",
                                  "most of the time goes to data loading"])
def test_where_the_time_goes_is_no_switch(text: str) -> None:
    assert "recent_change" not in obs(text)


def test_a_switch_of_the_loader_is_still_a_change() -> None:
    assert_reads("I switched the data pipeline to webdataset and now the loss is nan",
                 {"recent_change": "data_pipeline"})


@pytest.mark.parametrize("text", ["every epoch begins with a long pause before the first batch arrives",
                                  "each new epoch starts with a 2 minute wait"])
def test_an_epoch_that_opens_with_a_pause_stalls_at_its_start(text: str) -> None:
    assert_reads(text, {"epoch_start_stall": True, "symptom": "slow_training"})


@pytest.mark.parametrize("text", ["every epoch begins with a warmup of the lr", "each epoch starts with a loss spike"])
def test_an_epoch_that_opens_with_something_else_is_no_stall(text: str) -> None:
    assert "epoch_start_stall" not in obs(text)


@pytest.mark.parametrize("text", ["it takes 10 minutes before the very first step starts",
                                  "it took an hour before the first batch showed up"])
def test_a_wait_before_the_first_step_is_a_first_step_stall(text: str) -> None:
    assert_reads(text, {"first_step_stall": True})


@pytest.mark.parametrize("text", ["it takes 10 minutes before the first step of every epoch starts",
                                  "it takes 10 minutes per epoch", "the first step takes 10 minutes"])
def test_no_first_step_stall_without_a_wait_before_the_first_step(text: str) -> None:
    assert "first_step_stall" not in obs(text)


@pytest.mark.parametrize("text", ["I use a WSD schedule", "the WSD lr scheduler acts like a constant one",
                                  "a trapezoidal schedule"])
def test_a_wsd_schedule_named_with_its_noun(text: str) -> None:
    assert_reads(text, {"lr_schedule": "wsd"})


def test_a_bare_wsd_is_no_schedule() -> None:
    assert "lr_schedule" not in obs("the wsd of the run")


@pytest.mark.parametrize(("text", "pace"), [
    ("I call scheduler.step() every batch instead of every epoch", "too_fast"),
    ("the lr scheduler steps each iteration instead of once per epoch", "too_fast"),
    ("I step the scheduler every epoch instead of every step", "too_slow"),
])
def test_a_scheduler_stepped_in_the_wrong_unit(text: str, pace: str) -> None:
    assert_reads(text, {"scheduler_pace": pace})


@pytest.mark.parametrize("text", ["I step the scheduler every batch", "the scheduler is stepped every epoch",
                                  "I call scheduler.step() every epoch, not every batch",
                                  "I step the scheduler every batch not every epoch"])
def test_a_scheduler_stepped_in_one_unit_says_no_pace(text: str) -> None:
    assert "scheduler_pace" not in obs(text)


@pytest.mark.parametrize("text", ["it hangs at the end of the first epoch",
                                  "Lightning training hangs at the end of the epoch with DDP"])
def test_a_hang_at_the_end_of_an_epoch_is_at_the_boundary(text: str) -> None:
    assert_reads(text, {"symptom": "hang", "hang_onset": "epoch_boundary"})


@pytest.mark.parametrize("text", ["the loss jumps at the end of the epoch", "the loss is nan at the end of the epoch"])
def test_a_movement_at_the_end_of_an_epoch_is_no_jump_at_its_start(text: str) -> None:
    got = obs(text)
    assert "epoch_start_jump" not in got and "hang_onset" not in got, got


@pytest.mark.parametrize("text", ["the loss spikes after restoring checkpoints",
                                  "loss jumps after loading the checkpoint",
                                  "the loss spikes after restoring from a checkpoint"])
def test_a_curve_moving_after_a_checkpoint_is_restored_is_a_resume(text: str) -> None:
    assert_reads(text, {"recent_change": "resume"})


@pytest.mark.parametrize("text", ["after loading the pretrained checkpoint the loss is high",
                                  "after loading the checkpoint for evaluation the loss is much higher",
                                  "after loading the checkpoint I get a missing keys error",
                                  "I save a checkpoint after every epoch and the loss spikes"])
def test_a_checkpoint_loaded_for_another_purpose_is_no_resume(text: str) -> None:
    assert obs(text).get("recent_change") != "resume"


# -- issue 19: wrong readings of this probe, each a kind, tested both ways -----------------------------------------


@pytest.mark.parametrize(("text", "pct"), [("the GPU stays at 0%", 0.0), ("GPU util sits at 0", 0.0),
                                           ("gpu utilisation stays at 5% the whole time", 5.0),
                                           ("the gpu is stuck at 100% utilization", 100.0)])
def test_a_gpu_held_at_a_level_is_no_stuck_loss(text: str, pct: float) -> None:
    got = obs(text)
    assert got.get("gpu_utilization_pct") == pct and got.get("symptom") != "not_learning", got


@pytest.mark.parametrize(("text", "symptom"), [("the GPU stays at 0% while the loss stays at 2.3", "not_learning"),
                                               ("the loss stays at 0.69", "not_learning"),
                                               ("my gpu is stuck", "hang"),
                                               ("the GPUs max out at 100% and it gets stuck there", "hang")])
def test_a_loss_held_still_or_a_stuck_device_keep_their_reading(text: str, symptom: str) -> None:
    assert_reads(text, {"symptom": symptom})


@pytest.mark.parametrize("text", ["fp32 takes too much memory", "full fp32 is too slow so I use fp16 and the loss "
                                  "goes nan", "my rtx 6000 can't use bf16 and fp32 takes too much memory, but fp16 "
                                  "gives nan loss"])
def test_a_precision_judged_by_its_cost_is_not_the_runs(text: str) -> None:
    assert obs(text).get("mixed_precision") != "none"


@pytest.mark.parametrize(("text", "precision"), [("my fp32 run takes too much memory", "none"),
                                                 ("I train in fp32 and it takes too much memory", "none"),
                                                 ("full fp32 is too slow so I use fp16 and the loss goes nan", "fp16"),
                                                 ("fp16 gives nan loss", "fp16")])
def test_a_precision_the_run_uses_is_still_read(text: str, precision: str) -> None:
    assert_reads(text, {"mixed_precision": precision})


@pytest.mark.parametrize("text", ["F1 stays at 0", "my F1 score is 0.0", "the mAP stays at 0 for all epochs",
                                  "BLEU is stuck at 0.12"])
def test_another_metric_is_no_accuracy(text: str) -> None:
    got = obs(text)
    assert got.get("metric_kind") != "accuracy" and "val_metric" not in got, got


def test_a_split_figure_of_another_metric_is_its_score() -> None:
    got = obs("the F1 score on validation stays at 0 for every epoch")
    assert got.get("metric_kind") == "score" and got.get("val_metric") == 0.0, got


@pytest.mark.parametrize(("text", "val"), [("val accuracy stays at 0", 0.0), ("my validation accuracy is 0.0", 0.0),
                                           ("the val acc is 45% and the F1 is 0.2", 0.45)])
def test_an_accuracy_is_still_read_as_one(text: str, val: float) -> None:
    assert_reads(text, {"metric_kind": "accuracy", "val_metric": val})


@pytest.mark.parametrize("text", ["training on several GPUs is slow", "multiple GPUs make the loss nan",
                                  "many gpus and the run hangs"])
def test_a_vague_device_count_is_no_world_size(text: str) -> None:
    got = obs(text)
    assert got.get("multi_gpu") is True and "dist_world_size" not in got, got


@pytest.mark.parametrize(("text", "n"), [("training on two GPUs is slow", 2), ("I train on 4 gpus and it hangs", 4)])
def test_a_device_count_said_is_still_a_world_size(text: str, n: int) -> None:
    assert_reads(text, {"dist_world_size": n})


@pytest.mark.parametrize("text", ["I use FSDP and the loss is nan", "FSDP+PEFT runs too slowly, plain DDP is three "
                                  "times faster", "full fine-tuning with FSDP on 4 A100s, the loss goes to 0"])
def test_sharding_named_in_passing_is_no_question(text: str) -> None:
    got = obs(text)
    assert "question_topic" not in got and got.get("multi_gpu") is True, got


@pytest.mark.parametrize("text", ["should I use FSDP or DeepSpeed ZeRO-3?", "FSDP vs ZeRO-3 for a 7B model"])
def test_sharding_asked_about_is_a_question(text: str) -> None:
    assert_reads(text, {"question_topic": "sharding", "symptom": "direct_question"})


@pytest.mark.parametrize("text", ["the loss doesn't go down monotonically", "the loss doesn't decrease smoothly",
                                  "the accuracy does not improve steadily"])
def test_an_uneven_fall_is_no_stall(text: str) -> None:
    assert obs(text).get("symptom") != "not_learning"


@pytest.mark.parametrize("text", ["the loss doesn't go down", "the loss doesn't go down at all"])
def test_a_fall_denied_is_still_a_stall(text: str) -> None:
    assert_reads(text, {"symptom": "not_learning"})


@pytest.mark.parametrize(("text", "pct"), [("GPU util is 30", 30.0),
                                           ("my GPU utilization is 30 and training is slow", 30.0),
                                           ("gpu usage sits around 95, still slow", 95.0)])
def test_a_gpu_share_said_without_a_percent_sign(text: str, pct: float) -> None:
    assert_reads(text, {"gpu_utilization_pct": pct})


@pytest.mark.parametrize("text", ["GPU util is 30 GB", "GPU util is 30 of 40", "the GPU is 30",
                                  "GPU usage is 3.5 it/s", "GPU memory usage is 30"])
def test_a_bare_number_that_is_no_gpu_share(text: str) -> None:
    assert "gpu_utilization_pct" not in obs(text)


@pytest.mark.parametrize("text", ["the LR stays the same", "the learning rate remains the same every epoch"])
def test_an_lr_that_stays_the_same_is_observed_stuck(text: str) -> None:
    assert_reads(text, {"lr_observed": "stuck"})


@pytest.mark.parametrize("text", ["I kept the lr the same", "the learning rate is constant",
                                  "with lr 1e-3 the loss stays the same"])
def test_an_lr_kept_the_same_is_a_setting(text: str) -> None:
    assert "lr_observed" not in obs(text)
