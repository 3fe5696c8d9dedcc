"""Everyday words for training trouble (issue 19, vocabulary): guessing, coin flips, a curve that takes off, times
said loosely ("mid-training", "from the get-go"), a long tail of classes, a missing monitored metric, an optimizer
switch made for memory, inference latency, micro-batch logging and preference methods weighed. Each sentence is
invented here; the false-alarm guards are sentences that use the same words for something else."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs


@pytest.mark.parametrize("text, expected", [
    # a model said to guess is at chance: it does not learn
    ("honestly my resnet is just guessing on the test images", {"symptom": "not_learning"}),
    ("the sentiment model performs like a coin toss", {"symptom": "not_learning"}),
    ("after ten epochs it is basically flipping a coin", {"symptom": "not_learning"}),
    ("the detector seems to guess randomly between the two classes", {"symptom": "not_learning"}),
    ("accuracy is at coin-flip level on held-out data", {"symptom": "not_learning", "metric_kind": "accuracy"}),
    # a curve that takes off goes up
    ("validation loss takes off around epoch 7 while the training loss keeps shrinking",
     {"symptom": "overfitting", "val_loss_rising": True}),
    # times said loosely
    ("half precision run: the loss turned NaN mid-training",
     {"loss_behavior": "nan_or_inf", "nan_onset": "after_steps"}),
    ("the loss became nan partway through the second epoch",
     {"loss_behavior": "nan_or_inf", "nan_onset": "after_steps"}),
    ("nan loss from the get-go, before the optimizer did anything",
     {"loss_behavior": "nan_or_inf", "nan_onset": "immediate"}),
    ("my loss has been inf straight away", {"loss_behavior": "nan_or_inf", "nan_onset": "immediate"}),
    # a long tail of classes is an imbalance
    ("a long-tailed species dataset where rare species are almost never predicted", {"class_imbalance": True}),
    ("the tail classes get zero recall", {"class_imbalance": True}),
    # the monitored metric missing where early stopping or checkpointing looks for it
    ("my EarlyStopping says the monitored metric val_mae is not available", {"monitor_mode": "unavailable"}),
    ("ModelCheckpoint warns the monitor key is missing from the logged metrics", {"monitor_mode": "unavailable"}),
    ("the callback cannot find val_dice when it runs", {"monitor_mode": "unavailable"}),
    # an optimizer switch weighed for its memory
    ("thinking of moving to adafactor because adam's states do not fit in memory", {"switch_reason": "memory"}),
    ("would sophia help save memory compared with adamw?", {"switch_reason": "memory"}),
    # inference speed, not the training run's
    ("the exported model has 300 ms latency per request", {"concern": "inference_speed"}),
    ("our serving endpoint is too slow, how to speed up inference", {"concern": "inference_speed"}),
    ("in production the classifier is much slower than on my laptop", {"concern": "inference_speed"}),
    # micro-batches logged as steps
    ("with accumulation 4 my wandb plot counts every micro-batch as a step", {"step_axis": "per_micro_batch"}),
    # preference methods weighed against each other
    ("choosing between ORPO and DPO for a 7B chat model, which should I use?",
     {"symptom": "direct_question", "question_topic": "preference_method"}),
    ("is SimPO better than DPO when I only have 5k pairs?",
     {"symptom": "direct_question", "question_topic": "preference_method"}),
    ("is KTO good enough if my feedback is thumbs up / thumbs down only?",
     {"symptom": "direct_question", "question_topic": "preference_method"}),
])
def test_everyday_words(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, absent", [
    # "guess" as a hedge or about a setting is no claim that the model guesses
    ("I guess the lr is too high since the loss explodes", "predictions_constant"),
    ("we are guessing the weight decay, which value is best?", "symptom"),
    # latency and speed said of the training or its data, not of serving
    ("data loading latency is high and the gpu waits", "concern"),
    ("the model is slow to converge, should I deploy it anyway?", "concern"),
    ("the dataloader latency went up after moving the data to a network disk", "concern"),
    # memory growing with a newer optimizer is the run's memory, not a reason to switch
    ("I use the lion optimizer and memory keeps growing until OOM", "switch_reason"),
    # micro-batches sized for memory say nothing about how steps are logged
    ("micro batches of 4 with accumulation 8 still run out of memory", "step_axis"),
    # a callback that cannot find a file is a path, not a metric
    ("the checkpoint callback can't find the directory I gave it", "monitor_mode"),
    # a tail of a curve is no class imbalance
    ("the tail of the loss curve is flat", "class_imbalance"),
])
def test_everyday_words_no_false_reading(text: str, absent: str) -> None:
    got = obs(text)
    assert absent not in got or (absent == "symptom" and got[absent] != "not_learning"), got


@pytest.mark.parametrize("text, expected", [
    # labels suspected of being wrong: the data, not a swinging curve
    ("I'm fairly sure a third of the labels are wrong", {"symptom": "data_problem", "loss_behavior": None}),
    ("our crowd-sourced labels are noisy", {"symptom": "data_problem", "loss_behavior": None}),
    ("there are many mislabeled x-rays in the set", {"symptom": "data_problem"}),
    ("the sensor data is very noisy and the model struggles", {"loss_behavior": None}),
    ("we scraped a noisy dataset from the web", {"symptom": "data_problem", "loss_behavior": None}),
    # an epoch that lasts too long is a slow run
    ("every epoch takes ages on the cluster", {"symptom": "slow_training"}),
    ("epochs take forever since I moved to the bigger model", {"symptom": "slow_training"}),
    # a metric that falls off a cliff, a curve all over the map
    ("the training accuracy fell off a cliff at epoch 9", {"not_working_aspect": "accuracy"}),
    ("my training loss is all over the map", {"symptom": "unstable", "loss_behavior": "oscillating"}),
    # segmentation masks out of step with their images
    ("the masks and the images don't line up anymore after my custom flip", {"label_check": "misaligned"}),
])
def test_everyday_words_data_and_speed(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, absent", [
    # an attention or padding mask that does not match is no label pairing
    ("the attention mask does not match the input length", "label_check"),
    # a fraction is not a precision format
    ("throughput dropped by half after enabling gradient checkpointing", "recent_change"),
    # a wrong prediction is the model's answer, not a wrong label in the data
    ("the model predicts the wrong label for most cats", "symptom"),
])
def test_everyday_words_data_no_false_reading(text: str, absent: str) -> None:
    got = obs(text)
    assert absent not in got or got[absent] != "data_problem" and absent == "symptom", got


@pytest.mark.parametrize("text, expected", [
    # inputs and labels no longer paired, said many ways
    ("the targets are no longer paired with their images since I sorted the folder", {"label_check": "misaligned"}),
    ("I shuffled the images but not the labels", {"label_check": "misaligned"}),
    ("I sorted the file list but not the label list", {"label_check": "misaligned"}),
    # class ids counted from one, said by their values
    ("the targets are in [1, 20] with 20 classes", {"label_check": "not_zero_based"}),
    ("my labels are 1,2,3 not 0,1,2 like the docs say", {"label_check": "not_zero_based"}),
    # BCE's check on its targets, pasted
    ("ValueError? no: RuntimeError: all elements of target should be between 0 and 1",
     {"target_range": "outside_loss"}),
    # a slow start of every epoch
    ("the loader is slow to start each epoch, after that it flies", {"epoch_start_stall": True}),
    ("every new epoch hangs for 40 s before the first batch shows up", {"epoch_start_stall": True}),
    # one process out of batches before the others
    ("rank 3 runs out with fewer batches than the other ranks and then everything hangs",
     {"rank_batch_counts": "uneven"}),
    # the same sequence each epoch
    ("the sampler yields an identical sequence every epoch", {"epoch_data_order": "repeated"}),
])
def test_everyday_words_pipeline(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, absent", [
    # fewer batches per rank than on one GPU is how sharding works, not an uneven split
    ("with 4 gpus each rank gets fewer batches than with 1 gpu, is that expected?", "rank_batch_counts"),
    # labels naming their classes are not misaligned
    ("the labels belong to 10 classes", "label_check"),
    # labels counted from zero are fine
    ("labels are in [0, 9] for the 10 digits", "label_check"),
])
def test_everyday_words_pipeline_no_false_reading(text: str, absent: str) -> None:
    assert absent not in obs(text)


def test_new_words_keep_the_lemmas_of_old_ones() -> None:
    """Words added to the tables must not turn common inflections into lemmas of their own ("more" is "much",
    "thinking" is "think", "logged" is "log", "slower" is "slow")."""
    from knowledge.forms import FORMS

    for form, lemma in {"more": "much", "thinking": "think", "logged": "log", "logging": "log", "found": "find",
                        "fewer": "few", "earlier": "early", "slower": "slow", "guessing": "guess",
                        "labeling": "label", "stopping": "stop", "recording": "record"}.items():
        assert FORMS.get(form) == lemma, form


@pytest.mark.parametrize("text, expected", [
    # a switch weighed, said with what it leaves
    ("should I switch from AdamW to Sophia for pretraining?", {"considering": "sophia"}),
    ("thinking to replace adamw with muon in my nanoGPT run", {"considering": "muon"}),
    ("would Prodigy be a decent replacement for AdamW here?", {"considering": "prodigy"}),
    ("is Lion a drop-in substitute for adamw if memory is what I care about?",
     {"considering": "lion", "switch_reason": "memory"}),
])
def test_switch_weighed(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", [
    # a switch already made is the run's optimizer, not one weighed
    "I switched from AdamW to Lion and now the loss diverges",
    "after switching from adamw to lion the loss is nan",
    # a format in use is no switch
    "I just use fp16 and the loss is nan",
])
def test_switch_made_is_not_weighed(text: str) -> None:
    assert "considering" not in obs(text)


@pytest.mark.parametrize("text, expected", [
    # a model that stops learning after a good start ("learning" is its own word in the lexicon)
    ("my classifier stops learning after about six epochs", {"symptom": "not_learning"}),
    ("the net is not getting any better after the first day", {"symptom": "not_learning"}),
    # runs that stop without an error
    ("the whole job grinds to a halt after epoch 2, no traceback", {"symptom": "hang"}),
    ("the training loop freezes right after validation", {"symptom": "hang"}),
    ("the run stops doing anything after a few hours, no error", {"symptom": "hang"}),
    # slowness said as a pace or a count of steps
    ("the loss goes down at a snail's pace", {"loss_behavior": "decreasing_slowly"}),
    ("it needs thousands of iterations before the loss moves", {"symptom": "slow_training",
                                                                "slow_kind": "many_steps"}),
])
def test_everyday_words_stops(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, absent", [
    # a run halted by its user is no hang
    ("I halted the run after 3 epochs to change the lr", "symptom"),
    # a count of images per second is throughput, not a count of steps
    ("thousands of images per second, throughput looks fine", "slow_kind"),
])
def test_everyday_words_stops_no_false_reading(text: str, absent: str) -> None:
    got = obs(text)
    assert got.get(absent) not in ("hang", "many_steps"), got


@pytest.mark.parametrize("text, expected", [
    # progressive forms of words the lexicon holds as their own ("learning", "tracking")
    ("honestly the transformer is learning nothing", {"symptom": "not_learning"}),
    ("which tool is good for tracking my experiments across machines?", {"symptom": "experiment_tracking"}),
])
def test_progressive_spellings(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # a squashing output asked for targets beyond its reach
    ("the final layer is torch.sigmoid and I regress house sizes of 40 to 400 square meters",
     {"target_range": "outside_activation"}),
    ("tanh at the end of the network, and the rent targets run up to 3,000 a month",
     {"target_range": "outside_activation"}),
    ("depth targets between 0.5 and 80 m but the head ends in a sigmoid", {"target_range": "outside_activation"}),
    # the pairing of inputs and labels named as one
    ("I think I have an image/label mismatch after my custom sampler", {"label_check": "misaligned"}),
])
def test_targets_and_pairing(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, absent", [
    # targets inside the sigmoid's range, or numbers that are other settings
    ("sigmoid output with BCE, labels are 0 and 1, batch 64", "target_range"),
    ("last layer sigmoid, trained for 20 epochs, labels smoothed to 0.9", "target_range"),
    ("sigmoid output for a multi-label head with 80 labels", "target_range"),
    # a hidden tanh is not the output
    ("tanh activations in the hidden layers, the targets are prices up to 5000", "target_range"),
    # one-hot targets are no constant prediction
    ("sigmoid output layer, 10 classes, targets one-hot", "predictions_constant"),
])
def test_targets_no_false_reading(text: str, absent: str) -> None:
    assert absent not in obs(text)


@pytest.mark.parametrize("text, expected", [
    # generated text that loops is a language model's repetition, not one class for everything
    ("after SFT my model spits out the same token over and over",
     {"task": "language_modeling", "predictions_constant": None}),
    ("the chatbot keeps repeating the same sentence after fine-tuning", {"task": "language_modeling"}),
    ("my summariser is stuck repeating", {"task": "language_modeling", "symptom": None}),
    # a curve that repeats its shape swings with a period
    ("the train loss repeats the same wave shape every few hundred steps",
     {"loss_periodic": True, "symptom": "unstable"}),
])
def test_repetition(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # a classifier's one answer stays a constant prediction
    ("the classifier outputs the same class for every image", {"predictions_constant": True}),
    # a repeating pattern in the GPU's utilization is not the loss's period
    ("the gpu util repeats a pattern of 0 then 100 percent", {"loss_periodic": None}),
])
def test_repetition_kept_apart(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text", [
    "how much weight decay should I use with AdamW on ViT?",
    "what dropout rate is sensible for a small MLP?",
    "is label smoothing worth it for a noisy dataset?",
    "should I add early stopping or just train longer?",
])
def test_regularization_questions(text: str) -> None:
    assert_reads(text, {"symptom": "direct_question", "question_topic": "overfitting"})


def test_regularization_named_in_a_complaint_is_no_question() -> None:
    # a setting said in passing, with a symptom, is the run's setting: the symptom leads
    assert_reads("I use dropout 0.5 and weight decay 0.01, val loss goes up after epoch 3",
                 {"symptom": "overfitting", "question_topic": None})


@pytest.mark.parametrize("text, expected", [
    # loop bugs said in words
    ("I clear the gradients once per epoch, not every step", {"zero_grad_call": "once_per_epoch"}),
    ("accumulating 16 micro batches but I reset the grads on every micro-batch",
     {"zero_grad_call": "every_micro_batch"}),
    ("with accumulation I never divide the loss by the accumulation steps", {"loss_scaled_for_accum": False}),
    ("by mistake I detach the logits right before the loss", {"graph_cut": "detach"}),
    ("I cast the predictions to numpy to compute the loss", {"graph_cut": "numpy"}),
    ("my AdamW has betas=(0.99, 0.9), is that a problem?", {"adam_betas": "swapped"}),
    ("adam with beta2 = 0.8 because a blog said so", {"adam_betas": "beta2_low"}),
    ("the grads are never all-reduced since every backward runs inside no_sync", {"grads_synced": "unsynced"}),
    ("I scale the learning rate linearly with the number of gpus", {"lr_world_scaling": "scaled"}),
    ("I never rescaled the lr after moving to 8 gpus", {"lr_world_scaling": "unchanged"}),
    ("the losses are summed over the batch instead of averaged", {"loss_reduction": "sum"}),
    ("the model is far too big for 300 training images", {"capacity_vs_data": "too_large"}),
])
def test_loop_bugs_in_words(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, absent", [
    # "zero" the verb is no zero gradient
    ("I zero the grads every step and then call step", "step_grads"),
    # usual betas are no finding
    ("betas=(0.9, 0.999), lr 3e-4", "adam_betas"),
    ("beta2 = 0.95 for the 1B model", "adam_betas"),
    # an LR not rescaled, with no devices in sight, says nothing of the world size
    ("I did not scale the lr", "lr_world_scaling"),
    # a loss summed over heads is not a batch reduction
    ("the loss is summed over the two heads", "loss_reduction"),
])
def test_loop_bugs_no_false_reading(text: str, absent: str) -> None:
    assert absent not in obs(text)


@pytest.mark.parametrize("text, expected", [
    ("half the validation images are also in the training set", {"val_in_train": True}),
    ("found duplicates between the train and test splits", {"val_in_train": True}),
    ("the gpus end up with different weights after an hour", {"replicas_in_sync": "diverged"}),
    ("rank 5 goes nan first and then everything is nan", {"nonfinite_rank": 5}),
    ("the first inf appears on rank 1", {"nonfinite_rank": 1}),
])
def test_data_and_ranks_in_words(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_ranks_with_their_own_losses_are_normal() -> None:
    # each rank sees other data, so its loss differs: no drift of the replicas
    assert "replicas_in_sync" not in obs("the ranks have different losses at each step")
