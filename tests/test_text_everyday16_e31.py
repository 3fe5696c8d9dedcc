"""Settings taken out, searches, capture and data order read from everyday phrasings (issue 19, everyday16): a switch
named as the object of a removal ("removed the GradScaler") is off, a negation reaches a class through its module
path, the loss scaler said not to be used, training data said not to be shuffled (in words and as ``shuffle=False``),
a Bayesian hyperparameter search by its name or its tools, CUDA-graph capture errors and fake-quantization modules.
Each reading is checked where it must fire and where another subject, a question or an evaluation split must keep
it silent; the sentences are new, not the suite's."""

from __future__ import annotations

import re

import pytest

from expert.text import _slip
from tests.reading import assert_reads


@pytest.mark.parametrize("text, expected", [
    ("I deleted the grad scaler from the loop, autocast is still float16", {"grad_scaler": False}),
    ("disabled the gradient clipping yesterday and the loss now spikes", {"grad_clipping": False}),
    ("we got rid of the warmup phase", {"warmup": False}),
    ("I skipped the grad scaler to keep things simple", {"grad_scaler": False}),
    # weighed, tried or still in use: the setting stays the run's
    ("should I remove the grad scaler?", {"grad_scaler": True}),
    ("I tried removing gradient clipping but nothing changed", {"grad_clipping": True}),
    ("the grad scaler skipped a few steps at the start", {"grad_scaler": True}),
    # a value taken out says nothing of the one in use
    ("we dropped mixed precision", {"mixed_precision": None}),
    # a switch read by a cue (bare "warmup", "label smoothing") is off when taken out too
    ("turned off warmup", {"warmup": False}),
    ("I disabled the warmup", {"warmup": False}),
    ("got rid of warmup", {"warmup": False}),
    ("I removed the learning rate warmup", {"warmup": False}),
    ("I removed label smoothing", {"label_smoothing": False}),
    ("I turned off the warmup and it diverged", {"warmup": False}),
    # ... and stays on where it is used, weighed or the removal is denied
    ("I use warmup", {"warmup": True}),
    ("with warmup the loss spikes", {"warmup": True}),
    ("I use label smoothing 0.1", {"label_smoothing": True}),
    ("I haven't removed the GradScaler, it's still there", {"grad_scaler": True}),
    ("I didn't remove gradient clipping, it is still on", {"grad_clipping": True}),
    ("we did not turn off clipping", {"grad_clipping": True}),
    ("I never removed the warmup", {"warmup": None}),
    ("I did not use a GradScaler", {"grad_scaler": False}),
])
def test_a_setting_taken_out_is_off(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("I never called torch.cuda.amp.GradScaler in my loop", {"grad_scaler": False}),
    ("we use torch.cuda.amp.GradScaler with float16", {"grad_scaler": True}),
])
def test_a_negation_reaches_a_class_through_its_module_path(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("half precision training without any scaler", {"grad_scaler": False}),
    ("float16 autocast with no scaling of the loss at all", {"grad_scaler": False}),
    # a scaler of the data, a scaler cleared of a fault, the LR's scaling: no loss scaler denied
    ("I did not fit the scaler on the validation features", {"grad_scaler": None}),
    ("there is no overflow in the scaler", {"grad_scaler": None}),
    ("no lr scaling when I doubled the batch, the loss is fine", {"grad_scaler": None}),
])
def test_the_loss_scaler_said_not_to_be_used(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the train set is not shuffled, it is ordered by class", {"epoch_data_order": "repeated"}),
    ("there is no shuffling in my training dataloader", {"epoch_data_order": "repeated"}),
    ("train_dl = DataLoader(ds, batch_size=32, shuffle=False)", {"epoch_data_order": "repeated"}),
    ("I forgot shuffle=True in the loader", {"epoch_data_order": "repeated"}),
    # an evaluation split is never shuffled, a shuffle weighed or said not to help states no order
    ("the validation data is not shuffled", {"epoch_data_order": None}),
    ("test_loader = DataLoader(test_ds, shuffle=False)", {"epoch_data_order": None}),
    ("train loader shuffle=True and val loader shuffle=False", {"epoch_data_order": None}),
    ("shuffling the training data did not help", {"epoch_data_order": None}),
])
def test_training_data_not_shuffled(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_a_whole_word_is_not_cut_back_to_a_cue_stem() -> None:
    # "shuffle" is no slip of a pattern's stem "shuffl": code that names it must still match ("shuffle=False")
    assert _slip("shuffle") == "shuffle"


@pytest.mark.parametrize("text, expected", [
    ("we tune the dropout and lr with optuna's tpe sampler", {"tuning_method": "bayesian"}),
    ("a bayesian optimisation of the hyperparameters takes 50 trials", {"tuning_method": "bayesian"}),
    ("our wandb sweep uses method: bayes over lr and wd", {"tuning_method": "bayesian"}),
    # a Bayesian model, or a Gaussian process as the model, is no search
    ("my bayesian neural network underfits", {"tuning_method": None}),
    ("the gaussian process regression takes hours to fit", {"tuning_method": None}),
])
def test_a_bayesian_search(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("CUDA error: operation not permitted when stream is capturing", {"boundary_topic": "cuda_graphs"}),
    ("make_graphed_callables fails on my encoder", {"boundary_topic": "cuda_graphs"}),
    ("QAT with fake quantization modules makes the loss jump", {"boundary_topic": "quantization"}),
    # a stream of logs captured is no graph capture
    ("I capture the log stream to a file while training", {"boundary_topic": None}),
    # CUDA's own error wordings are; a camera's, a webcam's or an audio stream's capture is everyday talk
    ("cudaErrorStreamCaptureUnsupported: operation not permitted when stream is capturing",
     {"boundary_topic": "cuda_graphs"}),
    ("RuntimeError: CUDA error: operation failed due to a previous error during capture",
     {"boundary_topic": "cuda_graphs"}),
    ("graph capture fails with torch.cuda.graph", {"boundary_topic": "cuda_graphs"}),
    ("the lighting changes a lot during capture, so my val accuracy is low", {"boundary_topic": None}),
    ("capturing stream frames from a webcam", {"boundary_topic": None}),
    ("the audio stream capture adds noise", {"boundary_topic": None}),
])
def test_capture_and_fake_quantization(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # an optimizer heard of, weighed against the run's own: the first is considered, the second is the run's
    ("our adamw training looks fine, but people keep posting about sophia. should we change?",
     {"considering": "sophia", "optimizer": "adamw", "switch_reason": "none"}),
    ("I saw that lion beats adam on some benchmark; my adam run is stable, worth switching?",
     {"considering": "lion", "optimizer": "adam", "switch_reason": "none"}),
    # a trouble said beside the wish is its reason, not newness; a switch made is no switch weighed
    ("my adamw run spikes every few hundred steps, should I switch to lion?",
     {"considering": "lion", "switch_reason": "instability"}),
    ("I switched from adam to sgd last week and now it diverges", {"considering": None, "optimizer": "sgd"}),
    # a choice between two weighs both
    ("should I use adam or sgd? my runs are fine", {"considering": None}),
])
def test_a_newer_optimizer_weighed_against_the_runs_own(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("since I reloaded the weights the model predicts nonsense", {"reload_metric_drop": True}),
    ("my classifier performs terribly after restoring it from the pth", {"reload_metric_drop": True}),
    # loading data, or a model that does well after the reload, is no drop
    ("the model predicts garbage and loading the data takes ages", {"reload_metric_drop": None}),
    ("after reloading, the network predicts well", {"reload_metric_drop": None}),
])
def test_a_model_worse_once_reloaded(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the augmentation is way too aggressive for 32x32 images", {"augmentation_strength": "strong"}),
    ("I made my augmentations a lot stronger this week", {"augmentation_strength": "strong"}),
    ("autoaugment + cutmix on every batch", {"augmentation_strength": "strong"}),
    ("heavy aug and a small model", {"augmentation_strength": "strong"}),
    # one policy alone, two weighed, or a mild augmentation said plainly are no strong augmentation
    ("we use mixup only", {"augmentation_strength": None}),
    ("should I use mixup and cutmix?", {"augmentation_strength": None}),
    ("the augmentation is not too strong, just flips", {"augmentation_strength": None}),
])
def test_augmentation_said_strong(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("epoch 1: train loss 0.3, val loss 9.0", {"val_loss_far_above_from_start": True}),
    ("after the first epoch the train loss is 0.2 and the val loss 5", {"val_loss_far_above_from_start": True}),
    ("val loss enormous since the beginning, about 50x the training loss", {"val_loss_far_above_from_start": True}),
    # a gap said at a later epoch, or a small one at the first, is no such gap
    ("epoch 40: train loss 0.1, val loss 2.5", {"val_loss_far_above_from_start": None}),
    ("epoch 1: train loss 0.5, val loss 0.6", {"val_loss_far_above_from_start": None}),
    # ordinary late overfitting: the first-evaluation words are said of another time than the values
    ("epoch 1 was fine. at epoch 30 train loss 0.02 and val loss 0.4", {"val_loss_far_above_from_start": None}),
    ("I have trained from the start for 100 epochs, now train loss 0.01 and val loss 0.2",
     {"val_loss_far_above_from_start": None}),
    ("since the beginning of the week I train; at epoch 80 train loss 0.02, val loss 0.5",
     {"val_loss_far_above_from_start": None}),
    ("train loss 0.02, val loss 0.4 at epoch 100 (epoch 1 had 2.3 and 2.4)", {"val_loss_far_above_from_start": None}),
    # the time said after both values (the reach is measured from the later value's end)
    ("train loss 0.3 and val loss 9.0, that was at epoch 1", {"val_loss_far_above_from_start": True}),
    ("train loss 0.3, val loss 9.0 after the first epoch", {"val_loss_far_above_from_start": True}),
])
def test_validation_loss_far_above_at_the_first_evaluation(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("my output layer is nn.Linear(256, 4) and there are 6 classes", {"num_outputs": 4}),
    ("the classifier fc has out_features=50", {"num_outputs": 50}),
    ("the head only gives 3 logits per image", {"num_outputs": 3}),
    # a hidden layer's width, a count of attention heads or of layers is not the head's output count
    ("the first layer is nn.Linear(784, 128)", {"num_outputs": None}),
    ("the head has 12 attention heads", {"num_outputs": None}),
    ("my classifier has 3 layers", {"num_outputs": None}),
    # a chain of numbered layers: the last Linear is the head, not the first one's hidden width
    ("fc1 = nn.Linear(784, 128), fc2 = nn.Linear(128, 10); 10 classes", {"num_outputs": 10}),
    ("self.fc1 = nn.Linear(784, 256)\nself.fc2 = nn.Linear(256, 10)", {"num_outputs": 10}),
    ("fc1 = nn.Linear(784, 10) is my only layer", {"num_outputs": 10}),
])
def test_the_heads_output_count(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    # what a name only implies of the run stays when the name is removed: the run is still on several GPUs
    ("I forgot the DistributedSampler, so each GPU reads the whole dataset", {"multi_gpu": True}),
    ("I removed the gradient clipping", {"grad_clipping": False}),
])
def test_a_removal_turns_off_the_switch_not_what_its_name_implies(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_the_far_above_factor_is_one_threshold_for_numbers_and_words() -> None:
    from knowledge.keywords import _FACTOR
    from knowledge.measurements import MEASURE_BY_ID, threshold

    assert "MT-FAR-ABOVE" in MEASURE_BY_ID and "MT-FIRST-EVAL-REACH" in MEASURE_BY_ID
    n = int(threshold("MT-FAR-ABOVE"))
    assert re.fullmatch(_FACTOR, f"{n}x") and not re.fullmatch(_FACTOR, f"{n - 1}x")
