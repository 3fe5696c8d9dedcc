"""Systems talk read from everyday phrasings (issue 19, everyday8): hardware without bf16, partial multi-GPU
speedup, BatchNorm left per device and the per-rank batch, the accumulation context around the loop, collectives
that differ between ranks, a finished run extended. Each reading is checked where it must fire and where a
negation, a question or another subject must keep it silent."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads


@pytest.mark.parametrize("text", [
    "my V100 doesn't support bf16, what should I use instead?",
    "bf16 isn't supported on my T4",
    "my gpu has no bfloat16 support (it is a 2080 Ti)",
    "colab gave me a T4 which lacks bf16 support",
    "which precision should I train in when the gpu can't do bf16? it's a P100",
])
def test_hardware_without_bf16(text: str) -> None:
    assert_reads(text, {"bf16_supported": False})


@pytest.mark.parametrize("text", [
    "does my gpu support bf16?",
    "my A100 supports bf16, should I use it?",
    "no fp8 support on my gpu, only bf16",
    "I train in bf16 on an H100",
])
def test_bf16_support_not_denied(text: str) -> None:
    assert_reads(text, {"bf16_supported": None})


@pytest.mark.parametrize("text", [
    "4 gpus only give me 1.5x speedup over one gpu, expected close to 4x",
    "with 8 GPUs training is only about 2x faster than a single GPU",
    "ddp scaling is poor: 2 gpus 1.6x, 4 gpus 2.1x",
    "the speedup on 4 cards is far from linear",
    "adding more gpus gives diminishing returns",
])
def test_partial_multi_gpu_speedup(text: str) -> None:
    assert_reads(text, {"multi_gpu_speedup": "partial", "symptom": "slow_training"})


@pytest.mark.parametrize("text", [
    "4 gpus give a 3.9x speedup, nearly linear",
    "is the speedup from 8 gpus linear?",
    "the learning rate scaling is far from linear across 8 gpus",
])
def test_speedup_not_partial(text: str) -> None:
    assert_reads(text, {"multi_gpu_speedup": None})


def test_no_speedup_stays_none() -> None:
    assert_reads("4 gpus are not faster than 1", {"multi_gpu_speedup": "none"})


@pytest.mark.parametrize(("text", "batch"), [
    ("running ddp without syncbn, batch of 2 per process", 2),
    ("I dont use SyncBN, each of my 4 GPUs has 4 samples", 4),
    ("multi gpu training, bn layers not converted to sync batchnorm, per gpu batch is 2", 2),
    ("currently plain BN on 8 gpus with 2 images each", 2),
    ("BatchNorm with only 2 images per GPU on 8 GPUs, no SyncBatchNorm", 2),
])
def test_local_batchnorm_and_rank_batch(text: str, batch: int) -> None:
    assert_reads(text, {"batchnorm_sync": "local", "per_rank_batch": batch})


@pytest.mark.parametrize("text", [
    "not sure if SyncBN would help with ddp",
    "I use SyncBatchNorm on 8 gpus",
    "is there no syncbn in fsdp?",
    "I replaced BatchNorm with GroupNorm",
])
def test_batchnorm_not_said_local(text: str) -> None:
    assert_reads(text, {"batchnorm_sync": None})


def test_hf_per_device_batch_is_the_rank_batch() -> None:
    assert_reads("per_device_train_batch_size=8 on 4 gpus", {"per_rank_batch": 8})


@pytest.mark.parametrize("text", [
    "with accelerate I wrapped the entire for loop in with accelerator.accumulate(model):",
    "grad accumulation via accelerator.accumulate but the context manager wraps the full epoch loop",
    "I call accumulate once for the entire loop and the optimizer steps every batch",
])
def test_accumulation_context_around_loop(text: str) -> None:
    assert_reads(text, {"accum_wiring": "around_loop"})


@pytest.mark.parametrize("text", [
    "I use accelerator.accumulate(model) inside the loop, once per batch",
    "I did not wrap the whole loop with accelerator.accumulate, it is inside",
])
def test_accumulation_context_per_batch(text: str) -> None:
    assert_reads(text, {"accum_wiring": None})


@pytest.mark.parametrize("text", [
    "TORCH_DISTRIBUTED_DEBUG=DETAIL says the ranks call different collectives",
    "the collectives between ranks do not match",
    "desync between ranks: one process calls barrier, the others allreduce",
])
def test_collective_mismatch_in_words(text: str) -> None:
    assert_reads(text, {"collective_failure": "mismatch"})


def test_collectives_that_match_are_no_mismatch() -> None:
    assert_reads("the collectives between ranks match, it still hangs", {"collective_failure": None})


@pytest.mark.parametrize("text", [
    "I extended training by another 20k steps from the final checkpoint and the loss jumped",
    "after the cosine schedule ended I kept training longer, the loss suddenly spikes",
    "trained for 30 more epochs on top of a finished run",
    "continued training past the planned end (added 10 epochs) and the loss blew up",
])
def test_finished_run_extended(text: str) -> None:
    assert_reads(text, {"recent_change": "extended"})


@pytest.mark.parametrize("text", [
    "should I extend the training by 10 epochs?",
    "training takes longer than planned",
    "I extended the dataset with 2k more images and accuracy dropped",
    "I don't want to extend the run",
])
def test_not_an_extended_run(text: str) -> None:
    assert_reads(text, {"recent_change": None})


@pytest.mark.parametrize("text", [
    "moved from 1 gpu to 8 gpus with DDP, kept the same learning rate, now the model trains worse",
    "I scaled from one node to four nodes but left the lr unchanged; results got noticeably worse",
    "went from a single gpu to 4 gpus and didn't touch the learning rate",
    "Same config, more GPUs (1 -> 16), lr not adjusted, and the final loss is higher than before",
])
def test_lr_left_unscaled_when_gpus_changed(text: str) -> None:
    assert_reads(text, {"lr_world_scaling": "unchanged", "world_size_changed": True})


@pytest.mark.parametrize("text", [
    "should I keep the same lr when moving from 1 to 8 gpus?",
    "I moved from 1 to 8 gpus and scaled the lr by 8",
    "moved from 1 gpu to 8 and scaled the lr linearly, same batch per gpu",
])
def test_lr_scaled_or_only_weighed(text: str) -> None:
    assert_reads(text, {"lr_world_scaling": None})


def test_gpu_counts_of_a_change_are_no_learning_rate() -> None:
    # "from 1 gpu to 8 gpus" counts devices: the LR named beside it takes no value from it
    assert_reads("went from 1 gpu to 8 gpus with the same lr", {"learning_rate": None, "multi_gpu": True})
    assert_reads("lr from 1e-3 to 1e-4", {"learning_rate": 1e-4})


@pytest.mark.parametrize("text", [
    "RuntimeError: function MyReLUBackward returned an incorrect number of gradients (expected 2, got 1)",
    "implementing a custom Function for quantization-aware rounding, backward crashes: incorrect number of gradients",
])
def test_custom_function_gradient_count_error(text: str) -> None:
    assert_reads(text, {"boundary_topic": "custom_autograd", "symptom": "crash"})


def test_quantization_for_serving_stays_quantization() -> None:
    assert_reads("I want to quantize my model to int8 for serving", {"boundary_topic": "quantization"})


@pytest.mark.parametrize("text", [
    "running eval on 8 ranks",
    "we train across 2 nodes with 8 gpus each",
])
def test_ranks_and_nodes_counted_are_several_processes(text: str) -> None:
    assert_reads(text, {"multi_gpu": True})


@pytest.mark.parametrize("text", [
    "my GNN has 5000 nodes and 20000 edges",
    "I train LoRA with rank 8 and alpha 16",
])
def test_graph_nodes_and_lora_rank_are_no_devices(text: str) -> None:
    assert_reads(text, {"multi_gpu": None})


def test_two_ranks_with_different_weights() -> None:
    assert_reads("after some steps the weights on rank 0 and rank 1 are different",
                 {"replicas_in_sync": "diverged", "multi_gpu": True})
    assert_reads("are the weights on rank 0 and rank 1 different?", {"replicas_in_sync": None})


def test_rank_that_sees_nan_first_with_where_between() -> None:
    assert_reads("NaN loss with DDP. I checked, only rank 0 sees nan in its own loss first", {"nonfinite_rank": 0})
    assert_reads("rank 2 sees nan in its loss too, like the others", {"nonfinite_rank": None})


def test_validation_sampler_that_duplicates() -> None:
    assert_reads("when I validate with ddp the sampler duplicates a handful of samples",
                 {"eval_sample_count": "padded"})
    assert_reads("my weighted sampler repeats minority samples during training", {"eval_sample_count": None})


def test_figure_in_another_clause_is_not_the_loaders() -> None:
    # the 95% is the GPU's, said in its own clause; the loader is named only to be ruled out
    assert_reads("GPU is fully used (~95%), dataloader is not the issue, training is just slow",
                 {"data_time_fraction": None})
    assert_reads("the dataloader takes 70% of each step, gpu util is 30%", {"data_time_fraction": 0.7})
    assert_reads("profiling shows 60% of the time in data loading", {"data_time_fraction": 0.6})


def test_more_said_of_a_loss_is_no_extended_run() -> None:
    # "a much higher loss than the end of the previous epoch" compares losses; nothing was trained further
    assert_reads("the first batches of each epoch always have a much higher loss than the end of the previous epoch",
                 {"recent_change": None})
    assert_reads("should I train 10 more epochs after the finished run?", {"recent_change": None})
