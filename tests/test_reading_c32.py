"""Readings of issue 19's leftover kinds (c32): each kind in several phrasings of our own, and its near-misses."""

from __future__ import annotations

import pytest

from expert.text import parse_complaint
from tests.reading import assert_reads

MISMATCH = {"label_check": "not_zero_based"}


@pytest.mark.parametrize("text", [
    "I have 5 classes but num_labels=2",
    "the dataset has 10 categories and the last layer has out_features=2",
    "my data has 7 classes, model.fc = nn.Linear(2048, 3)",
    "there are 4 categories in my labels and my classifier outputs 2 logits",
    "I fine-tune a pretrained bert-base-uncased with num_labels=2 on my dataset, which has 5 classes",
])
def test_class_count_said_before_the_head_is_a_mismatch(text: str) -> None:
    assert_reads(text, MISMATCH)


@pytest.mark.parametrize("text", [
    "I have 10 classes and num_labels=10",
    "I have 2 classes and num_labels=1",
    "I have 5 classes and the head outputs 10 logits",
    "resnet50 pretrained on imagenet with 1000 classes, my last layer is nn.Linear(2048, 5)",
    "the pretrained model was trained on 1000 classes, I replaced the head with nn.Linear(2048, 10) for my 10 classes",
])
def test_head_that_fits_or_another_models_classes_is_no_mismatch(text: str) -> None:
    assert_reads(text, {"label_check": None})


@pytest.mark.parametrize("text, expected", [
    ("batch size was cut to 8", {"batch_size": 8, "recent_change": "batch_size"}),
    ("batch size got halved to 32", {"batch_size": 32, "recent_change": "batch_size"}),
    ("my bs was brought down to 4", {"batch_size": 4}),
    ("the batch size was dropped to 16", {"batch_size": 16}),
    ("lr was increased to 3e-3", {"learning_rate": 0.003, "recent_change": "learning_rate"}),
    ("the learning rate was bumped up to 3e-3 yesterday", {"learning_rate": 0.003, "recent_change": "learning_rate"}),
    ("the lr got cranked up to 1e-2", {"learning_rate": 0.01, "recent_change": "learning_rate"}),
    ("weight decay was raised to 0.1", {"weight_decay": 0.1}),
    ("wd got cut to 1e-4", {"weight_decay": 0.0001}),
    ("weight decay has been set to 0.05 since yesterday", {"weight_decay": 0.05}),
])
def test_setting_changed_to_a_value_reads_the_new_value(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # a schedule's doing, no change made to the run
    ("the lr was increased to 1e-3 by the warmup", {"recent_change": None}),
    ("lr drops to 1e-6 at the end of the cosine schedule", {"learning_rate": None, "recent_change": None}),
    ("the lr dropped to 1e-6", {"learning_rate": None}),
    # a lowered LR is no raise
    ("lr was lowered to 1e-5", {"learning_rate": 1e-05, "recent_change": None}),
    ("batch 3 was dropped", {"batch_size": None}),
])
def test_setting_change_near_misses(text: str, expected: dict) -> None:
    assert_reads(text, expected)


SLOW = {"loss_behavior": "decreasing_slowly", "symptom": "not_learning"}


@pytest.mark.parametrize("text", [
    "loss only went from 0.7 to 0.6 after 20 epochs",
    "after 50 epochs the loss has barely moved from 2.30 to 2.25",
    "the training loss dropped from 0.69 to 0.65 over 10k steps",
    "train loss goes 1.2 -> 1.15 after 30 epochs",
    "my loss only dropped from 6.9 to 6.5 in 3000 iterations",
])
def test_small_drop_by_numbers_is_a_slow_decrease(text: str) -> None:
    assert_reads(text, SLOW)


@pytest.mark.parametrize("text", [
    "loss went from 2.3 to 0.4 after 20 epochs",
    "loss went from 0.7 to 0.6 after 20 epochs, which looks fine to me",
    "the loss went from 0.7 to 0.6 in the first 50 steps",
    "val loss went from 0.7 to 0.65 after 20 epochs",
])
def test_drop_by_numbers_near_misses(text: str) -> None:
    assert_reads(text, {"loss_behavior": None})


FLAT = {"loss_behavior": "flat_from_start", "symptom": "not_learning"}


@pytest.mark.parametrize("text", [
    "loss is always 10.375",
    "the loss stays at exactly 2.3026 every step",
    "loss is 0.6931 at every iteration",
    "every epoch the loss is 0.693",
    "the loss remains 0.25 throughout training",
    "loss stuck at 2.302 for all epochs",
    "I get the same loss of 1.609 for every epoch",
])
def test_one_held_value_is_a_flat_loss(text: str) -> None:
    assert_reads(text, FLAT)


@pytest.mark.parametrize("text", [
    "loss is always positive",
    "loss is always above 2",
    "the loss is not always 2.3",
    "val loss is always 0.69",
    "loss is 0.35 now",
    "I always get loss 2.3 after 10 epochs",
])
def test_held_value_near_misses(text: str) -> None:
    assert_reads(text, {"loss_behavior": None})


NO_SCALING = {"multi_gpu_speedup": "none", "symptom": "slow_training"}


@pytest.mark.parametrize("text", [
    "single GPU is faster than two",
    "4 GPUs slower than 1",
    "training on one gpu is faster than on 2 gpus",
    "weirdly, 1 gpu finishes an epoch faster than 4 gpus",
    "DDP with 8 GPUs takes longer per epoch than 1 GPU",
    "my 4 gpu setup needs more time per epoch than a single card",
    "training on 4 GPUs is not faster than on 1 GPU",
    # (modelled on how forum threads put it)
    "why is training with the ddp strategy slower than with one gpu?",
    "with 4 GPUs it takes more time with DataParallel than with just one GPU",
    "multi gpu is several times slower than one gpu",
])
def test_more_devices_slower_is_no_scaling(text: str) -> None:
    assert_reads(text, NO_SCALING)


@pytest.mark.parametrize("text, expected", [
    ("one gpu is slower than two", {"multi_gpu_speedup": None, "symptom": None}),
    ("2 GPUs are faster than 1", {"multi_gpu_speedup": None}),
    ("8 gpus is 6x faster than one gpu", {"multi_gpu_speedup": None}),
    ("1 GPU is not faster than 4 GPUs", {"multi_gpu_speedup": None}),
    ("with 8 GPUs training is only about 2x faster than a single GPU", {"multi_gpu_speedup": "partial"}),
    ("DDP with find_unused_parameters=True is much slower than without it on 4 GPUs",
     {"multi_gpu_speedup": None, "symptom": "slow_training"}),
])
def test_device_comparison_near_misses(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", [
    "loss.backward() is extremely slow",
    "the loss calculation is slow",
    "computing the loss is really slow",
])
def test_work_on_the_loss_is_step_time(text: str) -> None:
    assert_reads(text, {"symptom": "slow_training", "loss_behavior": None})


@pytest.mark.parametrize("text", [
    "loss is decreasing slowly",
    "the loss is slow to decrease",
    "the loss goes down slowly",
])
def test_slow_loss_itself_still_reads(text: str) -> None:
    assert_reads(text, {"loss_behavior": "decreasing_slowly"})


def _long_log(last: str, n: int = 25_000) -> str:
    lines = [f"step {i} | loss: {2.3 - i * 1e-5:.4f} | lr: 1e-3" for i in range(n)]
    return "my run looks fine at first\n" + "\n".join(lines) + "\n" + last


@pytest.mark.parametrize("last, expected", [
    ("gradients are all zero now", {"step_grads": "zero"}),
    ("Warning: NaN or Inf found in input tensor.", {"nan_location": "inputs"}),
    ("step 25000 | loss: nan | lr: 1e-3", {"loss_behavior": "nan_or_inf", "nan_step": 25000}),
])
def test_late_decisive_line_of_a_long_log_is_read(last: str, expected: dict) -> None:
    got = {o.name: o.value for o in parse_complaint(_long_log(last))}
    assert {k: got.get(k) for k in expected} == expected, got


def test_long_log_of_records_alone_reads_no_decisive_fact() -> None:
    got = {o.name: o.value for o in parse_complaint(_long_log("step 25000 | loss: 2.05 | lr: 1e-3"))}
    assert got.get("step_grads") is None and got.get("nan_location") is None, got


@pytest.mark.parametrize("text, expected", [
    ("{'loss': 2.3026, 'grad_norm': 0.0, 'learning_rate': 5e-05, 'epoch': 0.1}", "zero"),
    ("step 100 | loss: 2.30 | grad_norm: 0.0000", "zero"),
    ("{'loss': 2.3026, 'grad_norm': 0.53, 'learning_rate': 5e-05, 'epoch': 0.1}", None),
    ("gnorm: 0.0 then gnorm: 1.2", None),
])
def test_logged_grad_norm_of_zero(text: str, expected: str | None) -> None:
    assert_reads(text, {"step_grads": expected})


@pytest.mark.parametrize("text", [
    "in the paper the loss is always 0.693 at the start",
    "the authors say the loss is always 0.693",
    "the loss is always 10.375 on the validation set",
    "the loss is always 0.693 at step 0",
])
def test_a_constant_loss_of_another_run_the_validation_set_or_one_point_is_no_flat_run(text: str) -> None:
    assert_reads(text, {"loss_behavior": None})


@pytest.mark.parametrize("text", [
    "the loss is always 10.375",
    "the loss stays at exactly 2.3026 every step",
    "my training loss is always 0.693 while the validation set looks fine",
])
def test_the_users_own_constant_loss_is_still_flat(text: str) -> None:
    assert_reads(text, {"loss_behavior": "flat_from_start"})


def test_another_persons_device_comparison_is_not_the_users() -> None:
    assert_reads("my friend says a single GPU is faster than two", {"multi_gpu_speedup": None, "symptom": None})


def test_the_users_own_device_comparison_still_reads() -> None:
    assert_reads("a single GPU is faster than two", {"multi_gpu_speedup": "none"})


@pytest.mark.parametrize("text", [
    "in the reference run the loss only went from 0.7 to 0.6 over 10k steps",
    "the loss only went from 0.7 to 0.69 in 2 epochs on the val set",
])
def test_a_small_drop_of_another_run_or_the_validation_loss_is_no_slow_training(text: str) -> None:
    assert_reads(text, {"loss_behavior": None})


@pytest.mark.parametrize("text", [
    "the loss only went from 0.7 to 0.6 over 10k steps",
    "the training loss only went from 0.7 to 0.6 over 10k steps while the val loss rose",
])
def test_the_users_own_small_drop_is_slow(text: str) -> None:
    assert_reads(text, {"loss_behavior": "decreasing_slowly"})


@pytest.mark.parametrize("text, name", [
    ("was the batch size cut to 8?", "batch_size"),
    ("my colleague's batch size was cut to 8 and his loss diverged", "batch_size"),
    ("the learning rate got cranked up to 3e-3 by the warmup", "learning_rate"),
])
def test_a_passive_change_asked_anothers_or_the_schedules_sets_nothing(text: str, name: str) -> None:
    assert_reads(text, {name: None, "recent_change": None})


@pytest.mark.parametrize("text, expected", [
    ("the batch size was cut to 8", {"batch_size": 8, "recent_change": "batch_size"}),
    ("the lr got cranked up to 3e-3", {"learning_rate": 0.003, "recent_change": "learning_rate"}),
])
def test_the_users_own_passive_change_still_reads(text: str, expected: dict) -> None:
    assert_reads(text, expected)
