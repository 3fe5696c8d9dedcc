"""Kinds of understanding issue 19 asked for (i33), each tested both ways: read where said, not where not.

Settings said in command-line flags or terse words; the clipping limit (``max_grad_norm``) kept apart from the
gradient norm it limits; classes said balanced; constant outputs said with "everywhere"; a NaN's onset said in an
aside; an error said to be over giving way to the one that replaced it; a split's "error" read as its loss.
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs


@pytest.mark.parametrize(("text", "expected"), [
    ("python train.py -b 256 --epochs 90 and the loss is nan", {"batch_size": 256}),
    ("ran it with -b 32 on one card", {"batch_size": 32}),
    ("--bs 64 and the val accuracy is stuck", {"batch_size": 64}),
    ("lr 3e-4 cosine, the loss plateaus after 2k steps", {"learning_rate": 3e-4, "lr_schedule": "cosine"}),
    ("learning rate 2e-5, linear, 3 epochs", {"learning_rate": 2e-5, "lr_schedule": "linear"}),
    ("I train with sgd at 0.05 and the loss jumps", {"optimizer": "sgd", "learning_rate": 0.05}),
    ("adam @ 1e-3 and it diverges", {"optimizer": "adam", "learning_rate": 1e-3}),
    ("I changed the number of classes to 5 and now it crashes", {"num_classes": 5}),
    ("number of classes is 3", {"num_classes": 3}),
    ("max_grad_norm is 0.5 and the grad_norm still spikes", {"grad_clipping": True}),
    ("set max grad norm to 1.0", {"grad_clipping": True}),
])
def test_settings_in_flags_and_terse_words_are_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize(("text", "name"), [
    ("make -j 8 and the build is slow", "batch_size"),
    ("the a-b 12 split of the data", "batch_size"),
    ("lr 1e-3 linear warmup for 500 steps", "lr_schedule"),
    ("lr 0.1 with a linear layer on top", "lr_schedule"),
    ("switched to adam at 100 epochs", "learning_rate"),
    ("adam at 0.9 accuracy on train", "learning_rate"),
    ("the number of classes grew over the years", "num_classes"),
])
def test_near_misses_of_settings_are_not_read(text: str, name: str) -> None:
    assert name not in obs(text)


@pytest.mark.parametrize("text", ["max_grad_norm=0.0 and the loss is flat", "max grad norm = 0",
                                  "max_grad_norm: 0", "I set max_grad_norm to 0", "clip_grad_norm=0"])
def test_a_zero_clipping_limit_is_clipping_off_not_zero_gradients(text: str) -> None:
    got = obs(text)
    assert got.get("grad_clipping") is False and "step_grads" not in got, got


@pytest.mark.parametrize("text", ["{'loss': 2.3, 'grad_norm': 0.0}", "grad norm = 0 at every step"])
def test_a_gradient_norm_of_zero_is_still_zero_gradients(text: str) -> None:
    assert obs(text).get("step_grads") == "zero"


@pytest.mark.parametrize("text", ["the classes are balanced and the loss is stuck at 0.69",
                                  "it's a balanced binary dataset", "5k images, balanced",
                                  "my dataset is roughly balanced"])
def test_classes_said_balanced_are_no_imbalance(text: str) -> None:
    assert obs(text).get("class_imbalance") is False


@pytest.mark.parametrize(("text", "value"), [("I use class-balanced loss", None), ("balanced accuracy is 0.5", None),
                                             ("I use a balanced sampler", None),
                                             ("the classes are highly imbalanced", True),
                                             # (a balance denied is an imbalance: test_reading_a34)
                                             ("the classes are not balanced", True)])
def test_a_balanced_remedy_or_metric_says_no_balance(text: str, value: bool | None) -> None:
    assert obs(text).get("class_imbalance") is value


@pytest.mark.parametrize("text", ["the segmentation net predicts background everywhere",
                                  "my classifier just outputs 0 everywhere"])
def test_one_class_everywhere_is_constant_predictions(text: str) -> None:
    assert obs(text).get("predictions_constant") is True


@pytest.mark.parametrize("text", ["the outputs differ everywhere", "I see the outputs everywhere in the logs"])
def test_outputs_everywhere_without_one_class_are_not_constant(text: str) -> None:
    assert "predictions_constant" not in obs(text)


@pytest.mark.parametrize("text", ["the loss goes nan later (around epoch 12)", "the loss turns nan, around epoch 30"])
def test_a_time_set_off_after_the_nan_is_its_onset(text: str) -> None:
    assert_reads(text, {"loss_behavior": "nan_or_inf", "nan_onset": "after_steps"})


@pytest.mark.parametrize("text", ["the loss goes nan (batch size 32)", "the loss explodes, after 3 epochs the val "
                                                                        "loss is flat"])
def test_an_aside_that_is_no_time_gives_no_onset(text: str) -> None:
    assert obs(text).get("nan_onset") is None


@pytest.mark.parametrize(("text", "topic"), [
    ("the CUDA OOM is fixed now, but now I get RuntimeError: Expected all tensors to be on the same device",
     "device_mismatch"),
    ("OOM gone, but now RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
     "autograd_error"),
    ("at first I got CUDA out of memory. after gradient checkpointing the OOM is gone but loss.backward() fails with "
     "RuntimeError: element 0 of tensors does not require grad", "autograd_error"),
])
def test_an_error_said_over_gives_way_to_the_one_that_replaced_it(text: str, topic: str) -> None:
    assert obs(text).get("boundary_topic") == topic


@pytest.mark.parametrize("text", ["CUDA out of memory, then RuntimeError: element 0 of tensors does not require grad",
                                  "I get CUDA OOM with batch 64"])
def test_an_error_not_said_over_stays_the_run_s(text: str) -> None:
    assert obs(text).get("boundary_topic") == "cuda_oom"


@pytest.mark.parametrize("text", ["my val error is lower than the train error",
                                  "the test error comes out below the training error",
                                  "the training error is higher than the validation error"])
def test_a_split_s_error_lower_on_validation_is_val_better(text: str) -> None:
    assert obs(text).get("val_better_than_train") is True


@pytest.mark.parametrize("text", ["the validation error is higher than the training error",
                                  "the train error is lower than the val error"])
def test_a_split_s_error_higher_on_validation_is_no_val_better(text: str) -> None:
    got = obs(text)
    assert "val_better_than_train" not in got and got.get("symptom") == "overfitting", got


@pytest.mark.parametrize(("text", "value"), [("the NaN is gone after lowering the lr", True),
                                             ("the NaN is still there after lowering the lr", False)])
def test_a_trouble_gone_after_a_lower_lr_is_the_lower_lr_stable(text: str, value: bool) -> None:
    assert obs(text).get("lower_lr_stable") is value
