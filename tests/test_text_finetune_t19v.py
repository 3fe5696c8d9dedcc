"""Fine-tuning and framework talk read from everyday phrasings (issue 19, everyday10): telegraphic rises with
their time, printed series that move one way, accumulation counts, accuracies outside [0, 1], Lightning and
Trainer steps that hand back no loss, two optimizers in global_step, schedules stepped at the wrong pace, what
only a text generator is tuned with, continuous targets, a resume that then fails. Each reading is checked where
it must fire and where a question, a negation or another subject must keep it silent; the sentences are new, not
the suite's."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads


@pytest.mark.parametrize("text, expected", [
    ("val loss up since epoch 3 while the training loss is still down", {"val_loss_rising": True}),
    ("validation loss: 0.82, 0.88, 0.97, 1.10 after each epoch", {"val_loss_rising": True}),
    ("the eval loss went 0.70, 0.69, 0.70 over three epochs", {"val_loss_rising": None}),
    ("I turned the batch size up to 512", {"val_loss_rising": None}),
])
def test_rises_said_tersely_or_printed(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("running with gradient_accumulation_steps=4 on one card", {"grad_accum_steps": 4, "grad_accumulation": True}),
    ("gradient_accumulation_steps=1, batch 16", {"grad_accum_steps": 1, "grad_accumulation": None}),
])
def test_an_accumulation_count_above_one_is_accumulation(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("my validation accuracy reads 180% after epoch 2", {"symptom": "metrics_wrong"}),
    ("the f1 comes out greater than 1, how?", {"symptom": "metrics_wrong"}),
    ("test accuracy = 2.45 which can't be", {"symptom": "metrics_wrong"}),
    ("train accuracy 97.5% and val accuracy 71%", {"symptom": "overfitting"}),
    ("accuracy rose from 1.5% to 4.2% in ten epochs", {"symptom": None}),
])
def test_an_accuracy_outside_its_range_is_a_wrong_metric(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("my training_step has no return at the end so lightning trains nothing", {"trainer_loss": "missing"}),
    ("the lightning training step only gives back the predictions, not the loss", {"trainer_loss": "missing"}),
    ("the hf Trainer says the model did not return a loss", {"trainer_loss": "missing"}),
    ("what should training_step return in lightning?", {"trainer_loss": None}),
    ("the loss did not return to its old level after the trainer resumed", {"trainer_loss": None}),
])
def test_a_step_that_hands_back_no_loss(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("global_step moves twice as fast as the batches since the GAN has a generator and a discriminator optimizer",
     {"step_counter_multi": True}),
    ("two optimizers stepped every batch and the global loss is fine", {"step_counter_multi": None}),
])
def test_several_optimizers_counted_in_global_step(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the scheduler is stepped each micro-batch while I accumulate 8 batches", {"scheduler_pace": "too_fast"}),
    ("with accum_steps 4 the cosine decay ends far faster than it should", {"scheduler_pace": "too_fast"}),
    # (the optimizer stepped every batch too: the schedule keeps its pace, the accumulation is what is wired wrong)
    ("with accumulation on, optimizer.step() and scheduler.step() both run on every batch",
     {"scheduler_pace": None}),
    ("warmup is 1000 steps yet the scheduler is stepped once per epoch", {"scheduler_pace": "too_slow"}),
    ("the training is too slow, would a scheduler help?", {"scheduler_pace": None}),
    ("I run 8000 steps and step the StepLR scheduler every epoch", {"scheduler_pace": None}),
])
def test_schedules_stepped_at_the_wrong_pace(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("after instruction tuning the answers ignore the system prompt", {"task": "language_modeling"}),
    ("the eos token never shows up in the generations", {"task": "language_modeling"}),
    ("predicting apartment rents from listings, the loss is huge", {"task": "regression"}),
    ("predicting the price class (cheap, medium, expensive) of a house", {"task": None}),
    ("target is revenue in dollars and MSE starts at 1e9", {"targets_unscaled": True}),
])
def test_what_the_model_is_tuned_for(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the validation looks better than training the whole time", {"val_better_than_train": True}),
    ("resumed from ckpt and the optimizer step crashes on device placement", {"recent_change": "resume"}),
    ("can I resume from a checkpoint with another lr?", {"recent_change": None}),
    ("Validation DataLoader 0: 100%|##########| 40/40", {"val_metric": None, "data_time_fraction": None}),
    ("the warmup takes forever to reach the peak lr", {"loss_behavior": None}),
])
def test_comparisons_resumes_and_log_lines(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the gpu is only busy 35% of the time, the loader decodes jpegs", {"gpu_utilization_pct": 35.0}),
    ("4 GPUs train 60% faster than one", {"gpu_utilization_pct": None}),
])
def test_a_gpu_share_said_as_its_work(text: str, expected: dict) -> None:
    assert_reads(text, expected)
