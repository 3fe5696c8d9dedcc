"""Readings added for the dev misses of the thirteenth everyday set (issue 19): error texts of the kernel, shape,
dtype and in-place families as users paste or retell them, the number of GPUs a run uses, a run stuck at a place
in it, a data loader that deadlocks, an error denied beside a hang, labels displaced by a row, and memory a finished
part of the run never gives back.

The sentences are written for this file (none is from the phrasing suite or the corpus); each reading comes with a
near miss that must not give it.
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs


# -- error texts: the family named with underscores or in words, the run stopped there
@pytest.mark.parametrize("text, topic", [
    ("cuda error CUBLAS_STATUS_NOT_SUPPORTED from my attention layer", "cuda_assert"),
    ("the run fails with cublas status execution failed halfway through", "cuda_assert"),
    ("IndexError: index out of range in self, raised by nn.Embedding", "cuda_assert"),
    ("an illegal memory access was encountered during backward", "cuda_assert"),
    ("the decoder head says the shapes can't be multiplied (8x300 and 512x2)", "shape_mismatch"),
    ("size mismatch, m1: [4 x 800], m2: [200 x 3]", "shape_mismatch"),
    ("mat1 and mat2 must have the same dtype in the first dense layer", "dtype_mismatch"),
    ("criterion complains: result type Float can't be cast to the desired output type Int", "dtype_mismatch"),
    ("backward fails with the in-place modification error since I edited the attention mask", "autograd_error"),
    ("an inplace-operation error shows up in backward of my GRU", "autograd_error"),
    ("RuntimeError: a leaf Variable that requires grad is being used in an in-place operation", "autograd_error"),
])
def test_error_family_read(text: str, topic: str) -> None:
    assert_reads(text, {"boundary_topic": topic, "symptom": "crash"})


def test_cublas_allocation_failure_is_memory_not_a_kernel_fault() -> None:
    assert obs("CUBLAS_STATUS_ALLOC_FAILED when calling cublasCreate(handle)").get("boundary_topic") == "cuda_oom"


def test_inplace_named_without_an_error_is_no_crash() -> None:
    got = obs("my relu layers use inplace=True and the accuracy stays at 10%")
    assert got.get("boundary_topic") is None and got.get("symptom") != "crash"


# -- the number of GPUs a run uses
@pytest.mark.parametrize("text, n", [
    ("the nan only shows up on 4 GPUs, never on one", 4),
    ("with six gpus the loss is noisier", 6),
    ("3 nodes x 4 GPUs, the job times out at startup", 12),
    ("two servers with 8 gpus each and the accuracy is lower", 16),
])
def test_world_size_read(text: str, n: int) -> None:
    assert_reads(text, {"dist_world_size": n, "multi_gpu": True})


def test_a_gpu_index_or_graph_nodes_are_no_world_size() -> None:
    assert "dist_world_size" not in obs("GPU 3 runs out of memory during the forward")
    assert obs("each graph has 50 nodes and I train on 2 gpus").get("dist_world_size") == 2


# -- a run stuck at a place in it: the program stopped (a hang), not a curve
@pytest.mark.parametrize("text", [
    "stuck at the very first step when launched on the cluster",
    "it gets stuck after the 2nd epoch every time",
    "stuck, sometimes around batch 90, sometimes later",
])
def test_stuck_at_a_place_is_a_hang(text: str) -> None:
    assert_reads(text, {"symptom": "hang"})


@pytest.mark.parametrize("text", [
    "stuck at 1.95 after the third epoch",
    "my val loss is stuck at the first epoch value",
])
def test_a_value_or_curve_stuck_is_no_hang(text: str) -> None:
    assert obs(text).get("symptom") != "hang"


# -- the data loader hanging: said as a deadlock or freeze, an error denied beside it
@pytest.mark.parametrize("text", [
    "the data loading deadlocks after a while with 12 workers",
    "my dataloader freezes halfway, no error printed",
])
def test_loader_hang_read(text: str) -> None:
    assert_reads(text, {"boundary_topic": "dataloader_failure", "symptom": "hang"})


def test_a_loader_that_stalls_the_gpu_is_slowness() -> None:
    assert obs("the data loading stalls my GPU at 35% utilisation").get("symptom") != "hang"


# -- labels displaced from their inputs by a row
@pytest.mark.parametrize("text", [
    "turns out the targets were off by one row from the pictures",
    "my labels are shifted by 1 relative to the file list",
    "the photos and labels went out of sync when I filtered the table",
])
def test_displaced_labels_read(text: str) -> None:
    assert_reads(text, {"label_check": "misaligned"})


def test_language_model_labels_shifted_against_tokens_are_not_misaligned() -> None:
    assert "label_check" not in obs("the labels are shifted by one relative to the input ids for next-token loss")


# -- memory a finished part of the run never gives back
@pytest.mark.parametrize("text", [
    "VRAM from the last trial is never released, the next one starts fuller",
    "memory keeps piling up from one fold to the next",
])
def test_memory_not_given_back_is_growth(text: str) -> None:
    assert_reads(text, {"symptom": "memory_growth"})


def test_memory_freed_is_no_growth() -> None:
    assert obs("the memory is freed after every epoch, the problem is the loss").get("symptom") != "memory_growth"
