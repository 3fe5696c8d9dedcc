"""Readings added after the eighth corpus batch (b30): found on its dev threads, written as general phrasings.

Three gaps, each in the reader, none in the causes (the causes already existed):

* two versions of one library side by side, the library named again before the second version ("nan with
  deepspeed 0.13.5. With deepspeed 0.10.2 the same script trains fine") is a regression the upgrade brought
  (``recent_change=library_upgrade``, the DF-CHG-LIB rows); two different libraries in one setup are not;
* several devices given as a launch or trainer setting ("--gpu_ids 0,1", "CUDA_VISIBLE_DEVICES=0,1", "gpus=2",
  "--num_processes 8") are a multi-GPU run; one device is not, nor numbers after a bare word in prose;
* a run said to die ("training with batch_size 16 dies at the end of the epoch") stopped: a crash, as "crashes"
  is, also when the sentence says other things; units, gradients or a rate that die are no crash.

The sentences are written for this file (none is from a corpus case or the phrasing suite).
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, finding_ids, obs


# -- a library version that trains set against the one that does not, the library named twice
@pytest.mark.parametrize("text", [
    "With accelerate 0.31.0 my runs collapse after a few hundred steps. With accelerate 0.30.1 the same config trains "
    "normally.",
    "Loss is nan from the first step on transformers 4.40; with transformers 4.38 the identical script converges.",
    "deepspeed 0.14.2 gives nan grad_norm at step 3, using deepspeed 0.12.6 everything works",
])
def test_two_versions_of_one_library_read_an_upgrade(text: str) -> None:
    assert_reads(text, {"recent_change": "library_upgrade"})


@pytest.mark.parametrize("text", [
    "I use deepspeed 0.13.5 with transformers 4.38 and it trains fine but evaluation is slow",
    "peft 0.10.0 with accelerate 0.29.3 trains well on one GPU",
])
def test_two_libraries_in_one_setup_are_no_upgrade(text: str) -> None:
    assert obs(text).get("recent_change") is None


def test_the_upgrade_said_with_versions_leads_to_the_version_check() -> None:
    text = ("Continued pretraining with the HF Trainer and deepspeed 0.14.2: loss and grad_norm are nan from step 2. "
            "With deepspeed 0.11.0 the same script trains fine.")
    assert "DF-CHG-LIB" in finding_ids(text)


# -- several devices as a setting
@pytest.mark.parametrize("text", [
    "python train.py --gpu_ids 0,1 --batch_size 32 and the loss goes nan",
    "CUDA_VISIBLE_DEVICES=0,1,2,3 python main.py hangs after the first epoch",
    "my Lightning Trainer(gpus=2) run gives a lower accuracy",
    "accelerate launch --num_processes 8 train.py is slower than expected",
    "with --gpus 4 the training is not faster",
    "nn.DataParallel(model, device_ids=[0, 1]) and the loss does not go down",
    "Trainer(devices=[0, 1], strategy='ddp') freezes at the start",
])
def test_several_devices_as_a_setting_read_multi_gpu(text: str) -> None:
    assert_reads(text, {"multi_gpu": True})


@pytest.mark.parametrize("text", [
    "CUDA_VISIBLE_DEVICES=0 python train.py and the loss goes nan",
    "python train.py --gpu_ids 0 --batch_size 32 and the loss goes nan",
    "my Lightning Trainer(gpus=1) run gives a lower accuracy",
    "with --gpus 0, training works",
    "the batch is 8 per gpu, 16 and 32 were too big",
    "python train.py --gpu 2 and the loss goes nan",
])
def test_one_device_or_prose_numbers_are_no_multi_gpu(text: str) -> None:
    assert obs(text).get("multi_gpu") is None


# -- a run that dies
@pytest.mark.parametrize("text", [
    "training with batch_size 64 and lr 3e-4 dies at the end of the second epoch",
    "the job died after 5 epochs on 2 GPUs",
    "with fp16 the script dies at step 1200",
])
def test_a_run_that_dies_is_a_crash(text: str) -> None:
    assert_reads(text, {"symptom": "crash"})


@pytest.mark.parametrize("text", [
    "most ReLUs died (80% always zero)",
    "the learning rate dies to zero with the cosine schedule at lr 1e-3",
    "the loss dies down after warmup with lr 1e-3",
    "the gradient dies out in the early layers with sigmoid activations",
])
def test_units_gradients_and_rates_that_die_are_no_crash(text: str) -> None:
    assert obs(text).get("symptom") != "crash"
