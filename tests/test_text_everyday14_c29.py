"""Systems, checkpoint, precision and data talk read from everyday phrasings (issue 19, everyday14): host memory that
grows with the number of GPU processes, a failure only from a derived checkpoint or only on one device, FSDP
training worse than DeepSpeed, gradients cleared at every micro-batch, class ids ordered differently where the
model is scored, weights cast to bf16, LAMB weighed for a large batch, image and mask augmented apart, a spike that
comes back down, and labels that hold NaN. Each reading is checked where it must fire and where another subject,
a setting or a question must keep it silent; the sentences are new, not the suite's."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads


@pytest.mark.parametrize("text, expected", [
    ("the host memory goes up with every extra gpu process I launch", {"host_ram_per_rank": True, "multi_gpu": True}),
    ("each rank keeps a full copy of the token array in ram", {"host_ram_per_rank": True}),
    ("cpu ram usage grows proportional to the number of gpus", {"host_ram_per_rank": True}),
    # the loader's workers, a leak over steps, or a machine's hardware list are no per-process copies
    ("ram grows with every dataloader worker I add", {"host_ram_per_rank": None}),
    ("system memory increases every epoch on my 4 gpu job", {"host_ram_per_rank": None}),
    ("the node has 512 GB of ram and 8 gpus, 64 GB per gpu", {"host_ram_per_rank": None}),
])
def test_host_memory_that_grows_with_the_processes(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("from the official weights it trains, from our converted checkpoint the loss explodes",
     {"checkpoint_specific": True}),
    ("the merged model diverges right away while the base checkpoint trains normally", {"checkpoint_specific": True}),
    # the failure said of the base weights themselves, or of generation after a merge, is no derived checkpoint's
    ("I merged the adapter into the base model and now the base model gives nan at inference",
     {"checkpoint_specific": None}),
])
def test_a_failure_only_from_a_derived_checkpoint(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("on the mps device I get inf losses, on cpu it trains fine", {"device_specific": True}),
    ("nan appears only on my m2 macbook, never on the cuda server", {"device_specific": True}),
    # both devices failing is no one device's
    ("the loss is nan on mps and also on cpu", {"device_specific": None}),
])
def test_a_failure_on_one_device_only(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("after moving from zero3 to fsdp the final loss is clearly higher", {"fsdp_trains_worse": True}),
    ("with fsdp the curve converges worse than with deepspeed", {"fsdp_trains_worse": True}),
    # speed is the step's, not the training's result
    ("fsdp is slower than deepspeed per step, the loss is identical", {"fsdp_trains_worse": None}),
    ("fsdp training runs slower than deepspeed", {"fsdp_trains_worse": None}),
])
def test_fsdp_said_to_train_worse(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("with accumulation I reset the grads on every micro step before the backward",
     {"zero_grad_call": "every_micro_batch", "grad_accumulation": True}),
    ("we accumulate the gradients over 6 micro batches per optimizer step", {"grad_accum_steps": 6}),
    # once per epoch is another placement
    ("I zero the gradients once per epoch", {"zero_grad_call": "once_per_epoch"}),
])
def test_gradients_cleared_inside_the_accumulation(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the test loader maps the class names to a different index order than training did",
     {"label_check": "class_order"}),
    ("inference builds its label list in another order than the train set", {"label_check": "class_order"}),
    # shuffled batches and a class balance that differs between splits are no class numbering
    ("the label order in training changes every epoch because of shuffle", {"label_check": None}),
    ("the class distribution of the test set is different from training", {"label_check": None}),
])
def test_class_ids_ordered_differently_where_scored(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("I cast all the parameters to bfloat16 and train them directly", {"weights_dtype": "bf16"}),
    ("the model was loaded with torch_dtype=torch.bfloat16 before training", {"weights_dtype": "bf16"}),
    # autocast keeps the weights in fp32 (said so, the format is read: review d30); a card without bf16 is the
    # hardware's
    ("I use bf16 autocast, the model parameters stay fp32", {"weights_dtype": "fp32"}),
    ("my gpu does not support bf16 for the model", {"weights_dtype": None}),
])
def test_weights_cast_to_bf16(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("would lamb help once our global batch reaches 32k?", {"considering": "lamb", "switch_reason": "large_batch"}),
    ("thinking of LAMB because we scale the batch to thousands of sequences",
     {"switch_reason": "large_batch"}),
    # a batch weighed with no LAMB named is no optimizer switch
    ("should I use a huge batch for pretraining?", {"switch_reason": None}),
])
def test_lamb_weighed_for_a_large_batch(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the image is flipped but its mask is not, the two are transformed separately",
     {"label_check": "misaligned", "task": "segmentation"}),
    ("random crop picks a different window for the mask than for the input image",
     {"label_check": "misaligned"}),
    # an attention mask over padded inputs is no label map
    ("the attention mask differs for inputs of different length after my transform", {"label_check": None}),
])
def test_image_and_mask_augmented_apart(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the loss jumps up and then goes back down by itself a few hundred steps later",
     {"spike_recovers": True, "loss_behavior": "spiking"}),
    # a rise that never returns stays a divergence
    ("the loss shoots up and keeps climbing", {"loss_behavior": "diverging", "spike_recovers": None}),
    ("the train loss spikes and the val loss spikes too at that step", {"val_spikes_with_train": True}),
    ("some of the targets contain nan and the loss turns nan", {"nan_location": "labels"}),
])
def test_spikes_and_nan_labels(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # the user's own method, stated in a clause before the one that asks, is the run's
    ("our grid search over the lr and dropout takes a week, how can we search faster?", {"tuning_method": "grid"}),
    ("I use sgd with momentum, should I move to adamw?", {"optimizer": "sgd_momentum"}),
    # two settings named only to weigh them are nobody's
    ("adam or sgd, which one is better for a small cnn?", {"optimizer": None}),
    ("for my vit, should I use adamw or lion?", {"optimizer": None}),
])
def test_a_question_leaves_the_settings_stated_before_it(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the loss function outputs inf from the first batch", {"loss_behavior": "nan_or_inf"}),
    ("the loss sits on a floor after it decreased at first", {"loss_behavior": "plateau_after_learning"}),
    ("my job hangs once I add a second node", {"multi_gpu": True}),
    ("we train on 4x A100 and the loss is fine", {"multi_gpu": True}),
    # one card, an inference output and a finite loss are none of these
    ("a single 1x A100 run", {"multi_gpu": None}),
    ("the outputs are nan at inference but the loss was fine during training", {"loss_behavior": None}),
])
def test_loss_floor_nan_output_and_device_counts(text: str, expected: dict) -> None:
    assert_reads(text, expected)
