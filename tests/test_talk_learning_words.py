"""Words for learning dynamics and fine-tuning (issue 19, everyday9): warmup and loss choices asked about, one loss
term drowning the others, the parts of a preference-tuning run by name (reward models, TRL trainers), a loss of
the user's own with its kind named, an augmentation that makes things worse, and a curve that never leaves a value.
Each sentence is invented here; the guards are sentences that use the same words for something else."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs


@pytest.mark.parametrize("text, expected", [
    # the warmup asked about by its length or share
    ("how many warmup steps should I use when fine-tuning?", {"symptom": "direct_question",
                                                              "question_topic": "schedule"}),
    ("what warmup ratio is sensible for a 20k step run?", {"question_topic": "schedule"}),
    ("how long should the warmup phase be for a ViT?", {"question_topic": "schedule"}),
    ("is a linear warmup needed with adamw, and how long?", {"question_topic": "schedule"}),
    # losses weighed against each other, or the choice of the loss asked outright
    ("should I use focal loss or weighted cross entropy?", {"symptom": "direct_question",
                                                            "question_topic": "loss_function"}),
    ("is dice loss better than cross entropy for tiny foreground masks?", {"question_topic": "loss_function"}),
    ("focal vs class weights for a skewed label distribution, which one?", {"question_topic": "loss_function"}),
    ("loss choice for an unbalanced dataset, weighted CE or focal?", {"question_topic": "loss_function"}),
])
def test_a_question_about_warmup_or_the_loss_states_its_topic(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", [
    # the warmup in use beside a question about something else, or said without any question
    "I use linear warmup, what lr should I use?",
    "with 500 warmup steps the loss still spikes at step 600",
    # a loss named as the run's, not weighed
    "my focal loss goes nan after 100 steps",
    "I train with weighted cross entropy and the minority recall is 0",
])
def test_warmup_or_a_loss_named_outside_a_choice_asks_nothing(text: str) -> None:
    assert obs(text).get("question_topic") not in ("schedule", "loss_function")


@pytest.mark.parametrize("text", [
    "I have two losses and the regression one is 1000x bigger, so the classifier head never learns",
    "total loss = loss_a + loss_b, but loss_b is tiny compared to loss_a and that task gets ignored",
    "the second task of my multi-task network does not improve, its loss is 100 times smaller",
    "the segmentation loss dominates and the depth head hardly moves",
    "how should I weight my three task losses? one of them overwhelms the others",
    "shared backbone with two heads: one loss swamps the other",
    "combining a reconstruction loss and a kl term, the reconstruction term drowns everything",
])
def test_one_loss_term_drowning_the_others_is_a_multi_task_balance(text: str) -> None:
    assert_reads(text, {"symptom": "multi_task"})


@pytest.mark.parametrize("text, symptom", [
    # one loss, nothing to balance: the curve's own symptom
    ("the loss is 10x higher than yesterday and keeps going up", "unstable"),
    ("my model never learns, the loss is flat from the start", "not_learning"),
    # several heads of attention are no tasks
    ("multi-head attention with two heads, the loss is nan after 3 epochs", "unstable"),
])
def test_one_loss_or_attention_heads_are_no_multi_task(text: str, symptom: str) -> None:
    assert obs(text).get("symptom") == symptom


@pytest.mark.parametrize("text", [
    "my reward model accuracy on the chosen/rejected pairs is stuck at 50%",
    "training a reward model with RewardTrainer, the loss stays near 0.69",
    "running DPOTrainer on my preference pairs",
    "my direct preference optimization run does nothing",
    "rm training: loss 0.693 after 5000 steps",
])
def test_the_parts_of_a_preference_tuning_run_name_it(text: str) -> None:
    assert_reads(text, {"task": "preference_tuning"})


@pytest.mark.parametrize("text", [
    "rm -rf the checkpoint dir and restart, the loss still goes nan",
    "the environment's reward goes up slowly in my PPO agent",
])
def test_no_preference_run_without_its_parts(text: str) -> None:
    assert "task" not in obs(text) or obs(text)["task"] != "preference_tuning"


@pytest.mark.parametrize("text, expected", [
    ("my handwritten dice loss turns into nan after a few iterations", {"custom_loss": True}),
    ("the self-written loss produces nan values during training", {"custom_loss": True}),
    ("a homemade contrastive loss goes nan in epoch one", {"custom_loss": True}),
    # the user's own loop or data is no loss of theirs
    ("my own training loop, the loss is nan after 3 epochs", {"custom_loss": None}),
    ("custom dataset and the loss is nan from the first step", {"custom_loss": None}),
])
def test_a_loss_of_the_users_own_with_its_kind_named(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("when I turn on the augmentations the model gets worse on the test set", {"augmentation_hurts": True}),
    ("my accuracy dropped after I added color jitter", {"augmentation_hurts": True}),
    ("augmentation reduced my validation score by 3 points", {"augmentation_hurts": True}),
    ("with autoaugment on, val acc went down instead of up", {"augmentation_hurts": True}),
    # a loss that falls with augmentation is no harm, and a training figure under mixing is another reading
    ("with augmentation the val loss went down", {"augmentation_hurts": None}),
])
def test_an_augmentation_that_makes_things_worse(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the DPO loss never leaves 0.693", {"symptom": "not_learning"}),
    ("accuracy never leaves 0.5 on a balanced binary set", {"symptom": "not_learning"}),
    # "left" is padding's side, not a curve leaving a value
    ("left padding makes the loss nan", {"symptom": "unstable"}),
])
def test_a_curve_that_never_leaves_a_value_is_stuck(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("why does the DPO loss remain 0.693 the whole run?", {"symptom": "not_learning"}),
    ("the loss stays 2.30 from the first epoch on", {"symptom": "not_learning"}),
    ("accuracy stays 50% however long I train", {"symptom": "not_learning"}),
    # a span after "stays" is how long, not the value held; a held value denied is no stuck curve
    ("the loss stayed 3 epochs near 0.7 and then fell", {"symptom": None}),
    ("the loss does not stay 0.69, it drops fine", {"symptom": None}),
])
def test_a_curve_said_to_stay_a_value_is_stuck(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, fraction", [
    ("90% of the relu units output zero for every input", 0.9),
    ("about 70 percent of neurons in layer 3 never activate", 0.7),
    ("most ReLUs died (85% always zero) after the lr spike", 0.85),
    ("95% of the ReLU outputs are exactly 0 on all samples", 0.95),
    ("60% of my ReLU neurons are dead", 0.6),
])
def test_the_share_of_dead_relus_counted_in_words(text: str, fraction: float) -> None:
    assert obs(text).get("dead_relu_fraction") == pytest.approx(fraction)


@pytest.mark.parametrize("text", [
    "90% of the outputs are zero",  # outputs not said ReLU's: the predictions, not dead units
    "30% of the neurons are pruned",
    "dropout zeroes 50% of the neurons at random",
])
def test_no_dead_relu_share_without_dead_units(text: str) -> None:
    assert "dead_relu_fraction" not in obs(text)


@pytest.mark.parametrize("text, expected", [
    ("98% accuracy by predicting negative every time, only 2% positives", {"class_imbalance": True}),
    ("the foreground class is only 2% of the pixels", {"class_imbalance": True}),
    ("fraud detection with 0.5% fraud cases", {"class_imbalance": True}),
    ("defects make up 3% of the images", {"class_imbalance": True}),
    # a figure of a class, or a share that is no minority, says nothing of the balance
    ("the positive class accuracy is 5%", {"class_imbalance": None}),
    ("5% of the positives are misclassified", {"class_imbalance": None}),
    ("about 40% positives and 60% negatives", {"class_imbalance": None}),
])
def test_a_class_counted_as_a_small_share_is_an_imbalance(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("using CE loss for a multi-label task", {"loss_fn": "cross_entropy", "target_kind": "multi_hot"}),
    ("each sample can belong to several classes at once, loss is CrossEntropyLoss",
     {"target_kind": "multi_hot", "loss_fn": "cross_entropy"}),
    ("an image may be assigned more than one label", {"target_kind": "multi_hot"}),
    # one class per example, a membership denied, or classes counted per device: no multi-hot targets
    ("each image belongs to exactly one class", {"target_kind": None}),
    ("it does not belong to multiple classes, every image has one label", {"target_kind": None}),
    ("I train on multiple classes per GPU", {"target_kind": None}),
])
def test_several_classes_for_one_example_and_the_ce_loss_by_its_initials(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("only at eval time i get nan loss, the train step never has nan", {"nan_phase": "evaluation"}),
    ("during evaluation i get nan loss", {"nan_phase": "evaluation"}),
    ("the loss is nan only during validation", {"nan_phase": "evaluation"}),
    # the evaluation said fine in a clause of its own, or the training curve named: the NaN is training's
    ("the loss is nan, but at test time it is fine", {"loss_behavior": "nan_or_inf", "nan_phase": None}),
    ("the train loss is nan during evaluation too", {"nan_phase": None}),
])
def test_the_evaluation_pass_said_as_a_time_owns_the_clauses_curve(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # a kind of training run named "tuning" is no hyperparameter search
    ("which preference tuning method should I pick, DPO or KTO?", {"question_topic": "preference_method"}),
    ("instruction tuning: which learning rate should I use?", {"question_topic": "learning_rate"}),
    # the search itself asked about beside it still is
    ("how should I tune my hyperparameters for instruction tuning?", {"question_topic": "tuning"}),
])
def test_a_run_named_tuning_is_no_hyperparameter_search(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # a preference method named beside a reward: the language model's reward, not an environment's
    ("GRPO training: reward stays flat", {"task": "preference_tuning"}),
    ("my PPO agent's reward stays flat on cartpole", {"task": "rl"}),
    ("the episode reward does not go up", {"task": "rl"}),
])
def test_a_reward_beside_a_preference_method_is_the_language_models(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, symptom", [
    # what is trained beside a frozen base model: "frozen" is the base's, not a hang
    ("training an adapter on a frozen 7b model, the loss is flat", "not_learning"),
    ("the training froze after 300 steps", "hang"),
])
def test_a_frozen_base_under_an_adapter_is_no_hang(text: str, symptom: str) -> None:
    assert obs(text).get("symptom") == symptom
