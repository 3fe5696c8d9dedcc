"""Readings added for the dev misses of the twelfth everyday set (issue 19): how hyperparameters are searched, early
stopping in use, the exploration of an RL agent, the actor-critic family, a metric averaged over batches, a metric
lower by the number of GPUs, a warmup's end, a resumed run, a comparison under a negation, a preference method
beside a reward, label smoothing and its loss floor, and a value said to stay above zero.

The sentences are written for this file (none is from the phrasing suite or the corpus); each reading comes with a
near miss that must not give it.
"""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, finding_ids, obs


# -- how the search is run: a grid, or one setting at a time (the user's own search)
@pytest.mark.parametrize("text, method", [
    ("we sweep a full grid of dropout and weight decay values for every model", "grid"),
    ("the tuning uses GridSearchCV over three learning rates", "grid"),
    ("my optimum keeps landing on the corner of the grid", "grid"),
    ("I adjust a single knob per experiment and compare the curves", "one_at_a_time"),
    ("we optimise the hyperparameters one after the other, lr before batch size", "one_at_a_time"),
    ("I tune lr first and then the dropout with that lr fixed", "one_at_a_time"),
])
def test_tuning_method_read(text: str, method: str) -> None:
    assert_reads(text, {"tuning_method": method})


def test_slowness_of_a_search_is_no_slow_training() -> None:
    got = obs("the grid search over four knobs takes forever")
    assert got.get("tuning_method") == "grid" and got.get("symptom") != "slow_training"
    assert obs("my training takes forever, each epoch is two hours").get("symptom") == "slow_training"


def test_grid_without_a_search_is_no_tuning_method() -> None:
    assert "tuning_method" not in obs("the image is cut into a grid of 16 patches and the loss goes nan")


# -- early stopping named as part of the run
@pytest.mark.parametrize("text", [
    "the EarlyStopping callback ends my run after six epochs",
    "early stopping halted the training while the accuracy was still climbing",
    "I use early stopping with patience 4 on the val loss",
])
def test_early_stopping_in_use(text: str) -> None:
    assert_reads(text, {"regularization": "early_stopping"})


def test_early_stopping_not_in_use() -> None:
    assert "regularization" not in obs("no early stopping, the model trains for the full 50 epochs and overfits")


def test_hf_trainer_argument_names_the_framework() -> None:
    assert_reads("metric_for_best_model is not set and the best checkpoint is never loaded", {"framework": "hf"})


# -- an RL agent that explores too little, and the actor-critic family by its parts
@pytest.mark.parametrize("text", [
    "my agent barely explores the maze and the return stays at zero",
    "epsilon decays way too quickly, after 500 steps the agent is greedy",
    "the policy settles on one action after a few updates and its entropy drops to zero",
    "the agent never reaches the goal in this sparse reward task",
])
def test_exploration_read(text: str) -> None:
    assert_reads(text, {"concern": "rl_exploration", "task": "rl"})


def test_same_prediction_is_no_exploration() -> None:
    assert "concern" not in obs("my classifier always predicts the same class for every image")


def test_actor_critic_is_rl() -> None:
    assert_reads("in my actor-critic setup the vf_loss keeps climbing", {"task": "rl"})


def test_preference_method_beside_a_reward() -> None:
    # a flat reward reads an RL run, unless a preference method is named with it, even past a negation
    assert_reads("reward does not improve at all in my GRPO fine-tune", {"task": "preference_tuning"})
    assert_reads("the episode reward does not improve at all", {"task": "rl"})


# -- a ratio metric averaged over evaluation batches, said outright
@pytest.mark.parametrize("text", [
    "I take the dice of each batch and report their mean as the val dice",
    "the reported iou is the average of the per-batch ious",
    "per-batch precision is averaged over the test loader",
])
def test_batch_averaged_metric(text: str) -> None:
    assert_reads(text, {"metric_batch_averaged": True})


def test_batch_averaged_loss_is_no_metric_average() -> None:
    assert "metric_batch_averaged" not in obs("I average the loss of each batch over the epoch")


# -- a metric lower by the number of processes
def test_half_on_two_devices() -> None:
    assert_reads("on two gpus the test accuracy is exactly half of what one gpu gives", {"metric_world_ratio": True})
    assert "metric_world_ratio" not in obs("after lowering the lr the accuracy is half of what it was")


def test_world_size_times_lower() -> None:
    assert_reads("my f1 under torchrun is world_size times lower than in the single process run",
                 {"metric_world_ratio": True})


# -- the warmup's end in other words
def test_instability_at_warmup_end() -> None:
    assert_reads("the pretraining goes haywire right after the warmup finishes", {"unstable_early": True})
    assert_reads("with warmup of 300 steps the loss turns unstable once the lr reaches its peak",
                 {"unstable_early": True})


# -- a run continued from a checkpoint
@pytest.mark.parametrize("text", [
    "restarted the job from the epoch 12 weights and the loss jumped",
    "after loading the checkpoint and continuing, the accuracy dropped",
    "continuing from the saved model, the loss is higher than before",
])
def test_resume_read(text: str) -> None:
    assert_reads(text, {"recent_change": "resume"})


def test_restart_from_scratch_is_no_resume() -> None:
    assert obs("I restart from random weights every time and the loss is always flat").get("recent_change") != "resume"


# -- a negation before a comparison is the comparison's
def test_negated_comparison_keeps_its_terms() -> None:
    assert_reads("no difference between my lora adapter model and the original one",
                 {"boundary_topic": "llm_finetuning"})
    assert "boundary_topic" not in obs("I am not using lora, the whole model is trained")


# -- "LM" as the language model
def test_lm_abbreviation() -> None:
    assert_reads("the LM loss is fine but the generations are bad", {"task": "language_modeling"})
    assert "task" not in obs("the lm of the regression is fitted with statsmodels")


# -- label smoothing and the loss floor it sets
def test_label_smoothing_read() -> None:
    assert_reads("nn.CrossEntropyLoss(label_smoothing=0.2) and the loss flattens at 0.9", {"label_smoothing": True})
    assert "label_smoothing" not in obs("CrossEntropyLoss(label_smoothing=0.0), loss flattens at 0.9")
    assert "label_smoothing" not in obs("no label smoothing, the training loss plateaus")


def test_label_smoothing_floor_explains_the_plateau() -> None:
    assert "LS-SMOOTH-01" in finding_ids("with label smoothing 0.1 the train loss stops going down at about 0.5")
    assert "LS-SMOOTH-01" not in finding_ids("with label smoothing 0.1 the val loss goes up while train loss drops")


def test_above_zero_is_no_zero() -> None:
    assert "loss_collapses_zero" not in obs("the loss levels off at a value well above zero")
    assert obs("after 2k steps the loss became 0 and stayed there").get("loss_collapses_zero") is True
