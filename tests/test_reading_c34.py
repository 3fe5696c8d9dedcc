"""Kinds of understanding issue 19 asked for (c34), each tested both ways: read where said, not where not.

A trouble named as the object of a fix ("I fixed the OOM, now ...", "after fixing the shape error, ...") is history,
and the trouble said next is the run's; a fix denied, believed or undone keeps it live. A step said in an aside
("loss goes nan, at step 5000", "(step 5000)") is the onset; "12k" is twelve thousand steps. A change said before its
effect ("switched to fp16 and the loss stopped improving", "enabled bf16 and ...", "upped the lr") is the recent
change, and the curve's own "improving" is no remedy. The clipping limit under its other names ("clip norm = 1",
"clipnorm=1.0") is clipping on.
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs

NAN = {"loss_behavior": "nan_or_inf", "symptom": "unstable"}


@pytest.mark.parametrize(("text", "expected"), [
    ("I fixed the OOM, now the loss is nan", {**NAN, "boundary_topic": None, "concern": None}),
    ("i fixed the oom and now the loss is nan", {**NAN, "boundary_topic": None}),
    ("fixed the cuda oom error by lowering the batch; now the loss goes nan", {**NAN, "boundary_topic": None}),
    ("after fixing the shape error, training is super slow", {"symptom": "slow_training", "boundary_topic": None}),
    ("after fixing the shape mismatch training is super slow", {"symptom": "slow_training", "boundary_topic": None}),
    ("we solved the nan issue but the accuracy is stuck at 10%", {"symptom": "not_learning", "loss_behavior": None}),
    ("I got rid of the OOM, but training is slow now", {"symptom": "slow_training", "boundary_topic": None}),
    ("the OOM is fixed, but now loss explodes", {"loss_behavior": "diverging", "boundary_topic": None}),
    ("OOM no longer happens but the loss is nan", {**NAN, "boundary_topic": None}),
    ("I fixed the OOM but now the loss still goes nan", {**NAN, "boundary_topic": None}),
])
def test_a_trouble_fixed_as_the_object_of_the_fix_is_history(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", [
    "I thought I fixed the OOM but it still crashes with out of memory",
    "I haven't fixed the OOM yet, training crashes",
    "I fixed the OOM but it came back",
    "has anyone solved this OOM?",
    "I tried to fix the OOM, still out of memory",
    "I'm fixing the OOM but training crashes",
])
def test_a_fix_denied_believed_asked_or_undone_keeps_the_trouble_live(text: str) -> None:
    assert obs(text).get("boundary_topic") == "cuda_oom"


@pytest.mark.parametrize("text", ["I fixed the seed and now the loss is nan", "fixed a bug, the loss is still nan",
                                  "the data is sorted by length and the loss is nan"])
def test_a_fix_of_another_thing_leaves_the_trouble_said_after_it(text: str) -> None:
    assert obs(text).get("loss_behavior") == "nan_or_inf"


@pytest.mark.parametrize(("text", "step"), [
    ("loss goes nan, at step 5000", 5000),
    ("my loss goes nan (at step 5000)", 5000),
    ("loss goes nan (step 5000)", 5000),
    ("loss is nan — at iteration 12k", 12000),
    ("loss becomes nan at iteration 12k", 12000),
    ("training loss went to nan around step 5k", 5000),
    ("everything fine until step 8k, then nan everywhere", 8000),
])
def test_a_step_said_in_an_aside_or_in_thousands_is_the_onset(text: str, step: int) -> None:
    assert_reads(text, {"nan_onset": "after_steps", "nan_step": step})


@pytest.mark.parametrize("text", ["loss goes nan, the step time is 2s", "loss goes nan (step time 2s)"])
def test_a_step_time_in_an_aside_is_no_onset(text: str) -> None:
    got = obs(text)
    assert "nan_step" not in got and "nan_onset" not in got, got


@pytest.mark.parametrize(("text", "expected"), [
    ("switched to fp16 and the loss stopped improving",
     {"recent_change": "precision", "mixed_precision": "fp16", "loss_behavior": "plateau_after_learning"}),
    ("doubled the batch size and accuracy doesn't improve anymore", {"recent_change": "batch_size"}),
    ("enabled bf16 and training got slower", {"recent_change": "precision", "mixed_precision": "bf16"}),
    ("turned on amp and the loss went nan", {"recent_change": "precision", **NAN}),
    ("upped the lr to 1e-3 and the loss exploded", {"recent_change": "learning_rate", "learning_rate": 1e-3}),
    ("after bumping the batch from 256 to 1024, accuracy dropped", {"recent_change": "batch_size", "batch_size": 1024}),
])
def test_a_change_said_before_its_effect_is_the_recent_change(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", [
    "switching to fp16 didn't improve the loss",
    "I tried switching to fp16 but the loss stopped improving",
    "should I switch to fp16? the loss stopped improving",
    "with amp enabled, the loss goes nan",
    "I never enabled amp and the loss is nan",
    "should I enable bf16? training is slow",
    "the loss goes up after batch 500",
])
def test_a_remedy_weighed_or_a_state_is_no_recent_change(text: str) -> None:
    assert "recent_change" not in obs(text)


@pytest.mark.parametrize(("text", "value"), [
    ("clip norm = 1 and the loss still spikes", True), ("clipnorm=1.0", True), ("clip value 0.5", True),
    ("max grad norm 1.0, loss goes nan", True), ("torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)", True),
    ("max_grad_norm=0", False),
])
def test_the_clipping_limit_under_its_names_is_the_clipping_setting(text: str, value: bool) -> None:
    assert obs(text).get("grad_clipping") is value


@pytest.mark.parametrize("text", ["max_norm=0", "the grad norm is 1.0", "not using max_grad_norm=1"])
def test_no_clipping_setting_where_none_is_said(text: str) -> None:
    assert "grad_clipping" not in obs(text)


@pytest.mark.parametrize("text", [
    "train loss looks normal, eval loss is enormous from the first epoch",
    "why is my validation loss so much larger than my training loss from the start?",
    "the gap between train and val loss is enormous from the first eval",
    "my val loss starts at 25 while train loss is 0.6 at the first evaluation",
    "from epoch 1 val loss ~20 and train ~1, something wrong with how I compute val?",
])
def test_a_validation_loss_far_above_from_the_start_in_words_or_values(text: str) -> None:
    assert obs(text).get("val_loss_far_above_from_start") is True


@pytest.mark.parametrize("text", [
    "train and val loss are both huge from the start",
    "val loss is huge from the start",
    "training loss drops fast, the val loss grows huge after epoch 10",
    "train loss 0.4, val loss 1.2 after the first epoch",
])
def test_no_far_gap_where_none_is_said_from_the_start(text: str) -> None:
    assert "val_loss_far_above_from_start" not in obs(text)


@pytest.mark.parametrize(("text", "expected"), [
    ("val loss starts at 25 while train loss is 0.6", {"val_metric": 25.0, "train_metric": 0.6}),
    ("train loss is 0.2 and val 0.9 after 30 epochs", {"train_metric": 0.2, "val_metric": 0.9}),
    ("val loss 0.5 and train 10 epochs", {"val_metric": None, "train_metric": None}),
])
def test_a_loss_pair_with_a_start_word_or_the_split_alone(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", [
    "loss curve has a saw-tooth shape that repeats each epoch, data comes grouped by label, shuffle is off",
    "sorted data + shuffle false = loss goes down, then up when the label changes",
    "the sampler yields the same sequence of samples every epoch, so the loss curve repeats itself per epoch",
])
def test_the_same_data_order_each_epoch_said_in_words(text: str) -> None:
    assert obs(text).get("epoch_data_order") == "repeated"


@pytest.mark.parametrize("text", [
    "the loss is the same every epoch, the data order is random",
    "the loss curve has the same shape every epoch, the order of the samples is shuffled",
    "val loader has shuffle off, train loader shuffles",
    "shuffle is off for the validation set",
])
def test_no_repeated_order_where_the_sameness_is_the_curves_or_the_loader_evaluates(text: str) -> None:
    assert "epoch_data_order" not in obs(text)


@pytest.mark.parametrize("text", [
    "val acc was 91% at the end of training, I saved the state_dict, loaded it in a new script and now it gives 10%",
    "Evaluation right after training: 93%. Same eval after restarting the kernel and loading best.pt: 12%.",
])
def test_a_score_then_a_reload_then_a_far_lower_score_is_a_reload_drop(text: str) -> None:
    assert obs(text).get("reload_metric_drop") is True


@pytest.mark.parametrize("text", [
    "train acc 91%, after loading the pretrained weights val acc is 10%",
    "accuracy 90% during training, after loading the checkpoint and continuing, accuracy 40%",
    "accuracy 90% during training, after loading the checkpoint it is 88%",
    "training takes 90% of the gpu, loading data takes 10%",
])
def test_no_reload_drop_from_pretrained_weights_a_resume_a_small_change_or_time_shares(text: str) -> None:
    assert "reload_metric_drop" not in obs(text)


def test_a_run_picked_up_from_a_checkpoint_is_a_resume() -> None:
    assert_reads("picking up a run from the last checkpoint, the curve does not continue smoothly",
                 {"recent_change": "resume"})


@pytest.mark.parametrize("text", ["should I pick up the run from the checkpoint?",
                                  "I pick up the phone from the table"])
def test_no_resume_from_a_pick_up_weighed_or_of_another_thing(text: str) -> None:
    assert "recent_change" not in obs(text)


def test_a_loss_pair_ending_a_sentence_is_read() -> None:
    assert_reads("epoch 1: train loss 0.4, val loss 12.5. it stays like that",
                 {"train_metric": 0.4, "val_metric": 12.5, "val_loss_far_above_from_start": True})
