"""Free-text complaints -> observations: paraphrases, negations, mixed complaints, numbers, junk."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expert.text import parse_complaint
from knowledge import all_keywords
from knowledge.vocabulary import validate
from tests.reading import obs


@pytest.mark.parametrize("text, name, value", [
    ("my loss is stuck", "symptom", "not_learning"),
    ("The model isn't learning anything", "symptom", "not_learning"),
    ("accuracy not increasing after 10 epochs", "symptom", "not_learning"),
    ("loss has been flat from the very start", "loss_behavior", "flat_from_start"),
    ("loss is decreasing extremely slowly", "loss_behavior", "decreasing_slowly"),
    ("it was learning then plateaued", "loss_behavior", "plateau_after_learning"),
    ("loss goes NaN after 3 epochs", "nan_onset", "after_steps"),
    ("I get NaNs immediately", "nan_onset", "immediate"),
    ("Loss becomes inf", "loss_behavior", "nan_or_inf"),
    ("the loss diverges", "loss_behavior", "diverging"),
    ("training is unstable with random loss spikes", "loss_behavior", "spiking"),
    ("loss oscillates wildly", "loss_behavior", "oscillating"),
    ("exploding gradients in my RNN", "grad_norm_trend", "exploding"),
    ("FP8 underflow kills the run", "mixed_precision", "fp8"),
    ("got an overflow in fp16", "symptom", "unstable"),
    ("My model overfits badly", "symptom", "overfitting"),
    ("it memorizes the training data", "symptom", "overfitting"),
    ("poor generalization on the test set", "symptom", "overfitting"),
    ("training is way too slow", "symptom", "slow_training"),
    ("each epoch takes forever", "symptom", "slow_training"),
    ("low GPU utilization", "symptom", "slow_training"),
    ("needs too many epochs to get anywhere", "slow_kind", "many_steps"),
    ("how do I track experiments with MLflow", "symptom", "experiment_tracking"),
    ("we want a model registry with lineage", "tracking_scope", "registry"),
    ("which optimizer should I use for a transformer?", "question_topic", "optimizer"),
    ("what learning rate should I pick", "question_topic", "learning_rate"),
    ("What batch size is best?", "question_topic", "batch_size"),
    ("fp8 vs bf16 for pretraining?", "question_topic", "precision"),
    ("ZeRO-3 vs FSDP full-shard?", "question_topic", "sharding"),
    ("DPO vs SFT for my chatbot?", "question_topic", "preference_method"),
    ("should I use Lion?", "considering", "lion"),
    ("does Muon beat AdamW?", "considering", "muon"),
    ("thinking about a WSD schedule", "considering", "wsd schedule"),
    ("setting up a new training pipeline", "symptom", "new_setup"),
    ("multi-task model with auxiliary losses", "symptom", "multi_task"),
    ("my custom loss", "custom_loss", True),
    ("training with bf16 and adamw", "mixed_precision", "bf16"),
    ("training with bf16 and adamw", "optimizer", "adamw"),
    ("using AMP", "mixed_precision", "fp16"),
    ("SGD with momentum", "optimizer", "sgd_momentum"),
])
def test_paraphrases(text, name, value):
    assert obs(text).get(name) == value, obs(text)


@pytest.mark.parametrize("text, task", [
    # a detector's loss terms and names say detection, even beside its classification loss
    ("the box regression loss goes to inf and the classification loss to nan", "detection"),
    ("loss_cls is nan and loss_box_reg is huge", "detection"),
    ("training a MobileNet SSD on my data", "detection"),
    ("fine-tuning a YOLOv8 classifier head", "detection"),
    # the autograd tool is no detector
    ("I turned on anomaly detection and the classifier's loss is NaN", "classification"),
    # segmentation models and datasets by name
    ("training BiSeNet on Cityscapes", "segmentation"),
    ("fine-tuning DeepLabV3 on my masks", "segmentation"),
])
def test_task_from_the_model_and_its_losses(text, task):
    assert obs(text).get("task") == task, obs(text)


@pytest.mark.parametrize("text, name", [
    ("the training loss is exactly zero from the second step onwards", "loss_collapses_zero"),
    ("loss becomes 0 after the first epoch", "loss_collapses_zero"),
    ("loss is zero from the first step", "loss_zero_from_start"),
])
def test_when_a_loss_reads_zero(text, name):
    assert obs(text).get(name) is True, obs(text)


@pytest.mark.parametrize("text, changed", [
    ("gradients become nan after the first iteration on PyTorch 1.5; on 1.4 the loss decreases normally", True),
    ("with torch 2.1 the loss is nan, with 2.0 it works fine", True),
    ("on torch 2.1 it is nan and on 2.0 it doesn't work either", False),
    ("I use torch 2.1 with lr 1.5 and it trains fine", False),
])
def test_two_versions_side_by_side_are_an_upgrade(text, changed):
    assert (obs(text).get("recent_change") == "library_upgrade") is changed, obs(text)


@pytest.mark.parametrize("text, works", [
    ("accuracy is stuck at 15%, while the non-PyG train.py reaches 98%", True),
    ("the loss is flat, whereas the non-Lightning loop converges", True),
    ("loss is flat while the nonlinear model trains", False),
])
def test_a_version_without_the_framework_that_trains(text, works):
    assert (obs(text).get("reference_works") is True) is works, obs(text)


def test_the_checkpoint_warning_names_grad_less_inputs():
    got = obs("with gradient checkpointing on, torch warns: None of the inputs have requires_grad=True. "
              "Gradients will be None")
    assert got.get("checkpoint_inputs_no_grad") is True and got.get("symptom") == "not_learning", got


def test_a_unet_is_no_segmentation_task_by_itself():
    assert obs("fine-tuning the Stable Diffusion UNet, the loss is NaN").get("task") != "segmentation"


def test_rlhf_with_ppo_is_preference_tuning():
    assert obs("PPO training with the trlx summarization_rlhf example").get("task") == "preference_tuning"
    assert obs("PPO on CartPole, the reward stays flat").get("task") == "rl"


@pytest.mark.parametrize("text, shift", [
    ("the decoder shifts the labels and the causal-LM loss shifts them again", "double"),
    ("it seems the model is trained against labels[..., 1:] rather than the labels I pass", "double"),
    ("it learns to predict the token after the next one", "double"),
    ("the LM loss is computed straight against the labels, with no internal shift", "missing"),
    ("the labels are not shifted inside the head", "missing"),
    ("I shift the labels by one myself and the loss looks fine", None),
])
def test_how_users_find_a_wrong_label_shift(text, shift):
    assert obs(text).get("label_shift") == shift, obs(text)


@pytest.mark.parametrize("text, symptom", [
    ("the epoch progress bar goes to about half way and then jumps after validation", "metrics_wrong"),
    ("the tqdm progress bar total is wrong with gradient accumulation", "metrics_wrong"),
    ("the progress bar is stuck at 0% and nothing happens", "hang"),
])
def test_a_progress_bar_that_counts_wrong_is_a_display_question(text, symptom):
    assert obs(text).get("symptom") == symptom, obs(text)


@pytest.mark.parametrize("text", [
    "with manual optimization and Trainer(gradient_clip_val=1.0) the gradients are not clipped at all",
    "gradient_clip_val is never applied",
    "the grad norms are never clipped",
])
def test_clipping_that_never_acts(text):
    assert obs(text).get("clip_ineffective") is True, obs(text)


@pytest.mark.parametrize("text, misaligned", [
    ("decoding input_ids[label_mask] shows the wrong tokens: the label masks don't line up with the padded inputs",
     True),
    ("my labels are not aligned with the images any more after the crop", True),
    ("I checked that the labels match the inputs", False),
])
def test_labels_out_of_line_with_their_inputs(text, misaligned):
    assert (obs(text).get("label_check") == "misaligned") is misaligned, obs(text)


# The same held-out images scored by hand do better than the validation loop says: the loop's inputs differ from
# training's; a look at the data by hand (labels checked, images inspected) says nothing of the pipeline.
@pytest.mark.parametrize("text, mismatch", [
    ("Train accuracy is 0.93 but val accuracy sits at 0.06; scoring the validation images manually gives much "
     "better predictions.", True),
    ("If I predict the test samples by hand one at a time they come out right, yet the test accuracy is awful", True),
    ("I checked the validation images by hand and the labels look right", False),
    ("I labeled the validation images by hand and the accuracy got better", False),
])
def test_held_out_images_scored_by_hand_do_better(text, mismatch):
    assert (obs(text).get("preprocessing_mismatch") is True) is mismatch, obs(text)


@pytest.mark.parametrize("text", [
    "the learning rate finder picks a learning rate that is clearly wrong: it is fooled by a spike early in the sweep",
    "I ran an LR range test and the loss explodes at 1e-2, which LR should I use?",
])
def test_the_lr_finder_is_a_question_about_the_lr(text):
    got = obs(text)
    assert got.get("symptom") == "direct_question" and got.get("question_topic") == "learning_rate", got


def test_a_disk_is_no_detector():
    assert obs("the dataset sits on an SSD and each epoch is slow").get("task") != "detection"


@pytest.mark.parametrize("text, name", [
    ("no NaN so far", "loss_behavior"),
    ("loss is not NaN", "loss_behavior"),
    ("without any NaN", "loss_behavior"),
    ("it isn't overfitting", "symptom"),
    ("the loss never diverges", "loss_behavior"),
    ("not slow at all", "symptom"),
    ("I'm not using fp16", "mixed_precision"),
])
def test_negations_cancel(text, name):
    assert name not in obs(text), obs(text)


def test_negation_stays_in_its_clause():
    got = obs("no NaN, but the loss is stuck")
    assert got["symptom"] == "not_learning" and "loss_behavior" not in got


def test_switch_cue_hides_the_bare_optimizer_name():
    got = obs("should I switch to Lion instead of adamw")
    assert got["considering"] == "lion" and "optimizer" not in got


@pytest.mark.parametrize("text, symptom", [
    ("NaN and also slow", "unstable"),
    ("training is slow and the loss goes NaN", "unstable"),
    ("overfitting and slow", "overfitting"),
    ("slow and stuck", "not_learning"),
    ("which optimizer should I use? my loss diverges", "unstable"),
])
def test_mixed_complaints_priority(text, symptom):
    assert obs(text)["symptom"] == symptom


def test_mixed_complaint_is_order_independent():
    assert obs("NaN and slow")["symptom"] == obs("slow and NaN")["symptom"] == "unstable"


@pytest.mark.parametrize("text, expected", [
    ("lr 3e-4", {"learning_rate": 3e-4}),
    ("learning rate of 0.1", {"learning_rate": 0.1}),
    ("LR=1e-3, batch size 32", {"learning_rate": 1e-3, "batch_size": 32}),
    ("gpu util 35%", {"gpu_utilization_pct": 35.0}),
    ("GPU utilization is only 95%", {"gpu_utilization_pct": 95.0}),
    ("10k examples", {"dataset_size": 10_000}),
    ("dataset of 800 images", {"dataset_size": 800}),
    ("1.2M samples", {"dataset_size": 1_200_000}),
    ("50,000 images", {"dataset_size": 50_000}),
    ("train acc 99% val acc 60%", {"train_metric": 0.99, "val_metric": 0.60, "metric_kind": "accuracy"}),
    ("training accuracy 0.95 and validation accuracy 0.7", {"train_metric": 0.95, "val_metric": 0.7}),
])
def test_numbers(text, expected):
    got = obs(text)
    for k, v in expected.items():
        assert got.get(k) == pytest.approx(v), got


def test_out_of_range_number_is_dropped():
    assert "gpu_utilization_pct" not in obs("gpu util 350%")
    assert "learning_rate" not in obs("lr 50")


def test_provenance_names_the_phrase():
    o = {x.name: x for x in parse_complaint("my loss goes NaN after 3 epochs")}
    # the composed reading names the quantity, its movement and the time that placed it
    assert o["symptom"].source == "text:loss goes NaN after 3 epochs"
    assert all(x.source.startswith("text:") for x in o.values())


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "hello there", "🙂🙂🙂", "ü¥ 𝕏 \x00", "?" * 1000, "a" * 50_000,
                                  " " * 30_000 + "gpu util"])
def test_junk_returns_nothing(text):
    assert parse_complaint(text) == []


def test_non_string_returns_nothing():
    assert parse_complaint(None) == []  # type: ignore[arg-type]


def test_every_keyword_compiles_and_sets_known_observations():
    from knowledge.vocabulary import VOCABULARY

    for k in all_keywords():
        re.compile(k.pattern)
        assert k.sets and all(name in VOCABULARY for name in k.sets), k.pattern
        for name, value in k.sets.items():
            if not (isinstance(value, str) and value.startswith("$")):
                validate(name, value)


_WORDS = st.sampled_from(["nan", "not", "no", "slow", "loss", "lr", "3e-4", "gpu", "util", "35%", "overfitting",
                          "stuck", "lion", "should", "i", "use", "which", "optimizer", "train", "acc", "99%", "val",
                          "batch", "size", "10k", "examples", ",", ".", "and", "but", "fp16", "isn't", "µP", "ZeRO-3"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.lists(_WORDS, max_size=25).map(" ".join)))
def test_never_raises_and_everything_validates(text):
    found = parse_complaint(text)
    names = [o.name for o in found]
    assert len(names) == len(set(names))
    for o in found:
        assert validate(o.name, o.value) == o.value
        assert o.source.startswith("text:")


@settings(max_examples=100, deadline=None)
@given(st.lists(_WORDS, max_size=20).map(" ".join))
def test_complaint_feeds_a_consultation(text):
    from expert.consultation import Consultation

    c = Consultation()
    if text.strip():
        c.complain(text)
        c.run()


# --- issue 8: what users write ------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("val acc is 20 points below train", {"generalization_gap": 0.2, "symptom": "overfitting"}),
    ("training accuracy is 0.99 but validation is 0.6", {"train_metric": 0.99, "val_metric": 0.6}),
    ("train acc 99% while val acc 60%", {"train_metric": 0.99, "val_metric": 0.6}),
    ("train 95% val 75%", {"train_metric": 0.95, "val_metric": 0.75, "metric_kind": "accuracy"}),
    ("train loss 0.1 but val loss 2.3", {"train_metric": 0.1, "val_metric": 2.3, "metric_kind": "loss"}),
    ("validation loss starts increasing after epoch 10 while train loss keeps going down",
     {"symptom": "overfitting"}),
    ("validation AUC peaks early and then starts to drop while the training loss keeps going down",
     {"symptom": "overfitting"}),
    ("loss is negative", {"negative_loss": True}),
    ("the model would not converge", {"symptom": "not_learning"}),
    ("it failed to learn anything", {"symptom": "not_learning"}),
    ("the loss is never falling", {"symptom": "not_learning"}),
    ("it predicts the same class for every input", {"symptom": "not_learning"}),
    ("the loss jumped at epoch 3", {"loss_behavior": "spiking"}),
    ("training got slower after the update", {"symptom": "slow_training"}),
    ("2 images per GPU on 8 GPUs, 10k images in total", {"dataset_size": 10_000, "multi_gpu": True}),
    ("trained on 50k samples", {"dataset_size": 50_000}),
    ("lr=1e-3, bs 32, weight_decay=0.05", {"learning_rate": 1e-3, "batch_size": 32, "weight_decay": 0.05}),
    ("I use nn.CrossEntropyLoss() with torch.optim.AdamW and CosineAnnealingLR",
     {"loss_fn": "cross_entropy", "optimizer": "adamw", "lr_schedule": "cosine"}),
    ("F.binary_cross_entropy_with_logits on 2 classes", {"loss_fn": "bce_with_logits"}),
    ("no warmup, no gradient clipping", {"warmup": False, "grad_clipping": False}),
    ("I need experiment tracking for this project", {"symptom": "experiment_tracking", "tracking_scope": "in_flight"}),
    ("when does Lion beat AdamW?", {"symptom": "direct_question", "question_topic": "optimizer"}),
    ("how does Schedule-Free work?", {"symptom": "direct_question", "question_topic": "optimizer"}),
    ("how should I pick AdamW hyperparameters?", {"symptom": "direct_question", "question_topic": "optimizer"}),
    ("optim: adamw_torch_fused in the HF Trainer", {"optimizer": "adamw"}),
    ("DeepSpeed FusedAdam with fp16", {"optimizer": "adam", "mixed_precision": "fp16"}),
])
def test_issue_8_phrasings(text, expected):
    got = obs(text)
    for k, v in expected.items():
        assert got.get(k) == (pytest.approx(v) if isinstance(v, float) else v), (k, got)


def test_gap_in_points_is_not_the_val_accuracy():
    assert "val_metric" not in obs("val acc is 20 points below train")


def test_settings_in_a_weighing_cues_free_text_gap_are_the_runs_own():
    # the cue weighs precision ("fp16 ... does not speed up"); what lies in its gap is said of the run itself
    got = obs("fp16 training with adamw and 4 GPUs does not speed anything up")
    assert got["optimizer"] == "adamw" and got["multi_gpu"] is True
    assert got["question_topic"] == "precision"


def test_informational_question_is_no_switch():
    got = obs("when does Lion beat AdamW?")
    assert "considering" not in got and "optimizer" not in got


def test_zero_stage_0_is_no_sharding_question():
    assert "question_topic" not in obs("we run ZeRO stage 0 with bf16")
    assert obs("ZeRO stage 3 or FSDP?")["question_topic"] == "sharding"


def test_the_setting_that_worked_is_not_the_runs_setting():
    got = obs("with lr 1e-3 it trained fine, with lr 1e-2 the loss diverges")
    assert got["learning_rate"] == pytest.approx(1e-2)
    assert "learning_rate" not in obs("it worked fine with lr 1e-3")


def test_a_considered_setting_is_not_in_use():
    assert "optimizer" not in obs("should I switch to SGD?")


def test_a_stall_outranks_a_transient_spike():
    got = obs("the loss spiked once and then stalled")
    assert got["loss_behavior"] == "plateau_after_learning"


@pytest.mark.parametrize("text, value", [
    ("My optimiser's behaviour is over-fitting", "overfitting"),
    ("OVER-FITTING badly", "overfitting"),
    ("it memorises the training set", "overfitting"),
])
def test_normalisation_of_spelling_case_and_hyphens(text, value):
    assert obs(text)["symptom"] == value


def test_provenance_quotes_what_was_typed():
    o = {x.name: x for x in parse_complaint("My model is OVER-FITTING")}
    assert o["symptom"].source == "text:OVER-FITTING"


def test_a_cue_inside_a_descriptions_free_text_still_counts():
    got = obs("My DistributedDataParallel run with mixed precision just hangs in NCCL on multiple GPUs")
    assert got["boundary_topic"] == "distributed_hang" and got["mixed_precision"] == "fp16"
    assert got["symptom"] == "hang"  # "hangs" is the run's, never a stuck loss


@pytest.mark.parametrize("text, topic", [
    ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
     "device_mismatch"),
    ("Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same", "device_mismatch"),
    ("RuntimeError: expected scalar type Long but found Float", "dtype_mismatch"),
    ("mat1 and mat2 shapes cannot be multiplied (64x512 and 256x10)", "shape_mismatch"),
    ("element 0 of tensors does not require grad and does not have a grad_fn", "autograd_error"),
    ("CUDA error: device-side assert triggered", "cuda_assert"),
    ("DataLoader worker (pid 13) is killed by signal: Bus error", "dataloader_failure"),
    ("my DataLoader hangs forever when num_workers > 0", "dataloader_failure"),
    ("AttributeError: Can't pickle local object 'Net.__init__.<locals>.<lambda>'", "pickling"),
    ("Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)", "collective_timeout"),
    ("DDP training hangs after the first epoch on 4 GPUs", "distributed_hang"),
    ("torch._dynamo hit config.cache_size_limit (8) and keeps recompiling", "recompile_limit"),
    ("CUDA graphs keep re-recording every step", "cuda_graphs"),
    ("GPU memory keeps growing every iteration until it crashes", "memory_growth"),
    ("how do I profile where the time goes in my training step?", "profiling"),
    ("how do I write a custom autograd Function with my own backward?", "custom_autograd"),
    ("what LoRA rank should I use for llama 2?", "llm_finetuning"),
    ("RL fine-tuning of my 7B model: the reward collapses", "llm_finetuning"),
    ("how do I quantize my model to int8 for serving?", "quantization"),
    ("ValueError: Attempting to unscale FP16 gradients. (training a LoRA adapter)", "amp_api"),
])
def test_boundary_topics_from_errors_and_descriptions(text, topic):
    assert obs(text).get("boundary_topic") == topic, obs(text)


def test_rl_named_by_its_algorithms_and_quantities():
    assert obs("my DQN agent on CartPole never learns")["task"] == "rl"
    assert obs("the mean episode return keeps going down")["task"] == "rl"
    assert "task" not in obs("RLHF with TRL's PPOTrainer gives a negative KL warning") or \
        obs("RLHF with TRL's PPOTrainer gives a negative KL warning")["task"] != "rl"


@pytest.mark.parametrize("text, lr", [
    ("I use lr 1e-3 and adam, nothing works", 1e-3),      # a failure is no "what worked"
    ("it never worked fine with lr 3e-4", 3e-4),
    ("it worked with lr 1e-4 but with lr 1e-2 the loss is NaN", 1e-2),
])
def test_attribution_respects_negated_success(text, lr):
    assert obs(text)["learning_rate"] == pytest.approx(lr)


def test_someone_elses_settings_are_not_the_users():
    got = obs("the paper uses lr 0.1 but I use lr 0.01 with SGD and the loss diverges")
    assert got["learning_rate"] == pytest.approx(0.01)
    assert "considering" not in obs("You use AdamW in your paper; how should I pick its betas?")


def test_a_switch_already_made_is_the_setting_in_use():
    assert obs("I switched to AdamW and now the loss is NaN")["optimizer"] == "adamw"


@pytest.mark.parametrize("text,name,value", [
    ("my gradients never cleared and the loss explodes", "zero_grad_call", "missing"),
    ("I forgot to call optimizer.zero_grad() in the loop", "zero_grad_call", "missing"),
    ("I call zero_grad once per epoch", "zero_grad_call", "once_per_epoch"),
    ("after validation I never call model.train() again", "mode_switching", "never_calls_train"),
    ("I validate in train mode, without model.eval()", "mode_switching", "validates_in_train_mode"),
])
def test_loop_bugs_as_users_describe_them(text, name, value):
    found = {o.name: o for o in parse_complaint(text)}
    assert found[name].value == value and found[name].source.startswith("text:")


@pytest.mark.parametrize("text", ["I do call zero_grad every step", "model.train() and model.eval() are both called"])
def test_a_loop_done_right_sets_no_loop_bug(text):
    names = {o.name for o in parse_complaint(text)}
    assert not names & {"zero_grad_call", "mode_switching"}


@pytest.mark.parametrize("text,name,value", [
    # a telegraphic report: the direction right after the quantity
    ("weird: val loss up, val acc up at the same time", "val_loss_rising", True),
    # a speed compared with a baseline is still a speed complaint, and the baseline is not the run's setting
    ("mixed precision training is slower than fp32 for me", "symptom", "slow_training"),
    ("mixed precision training is slower than fp32 for me", "mixed_precision", "fp16"),
    ("enabled fp16 and the run takes longer than before", "symptom", "slow_training"),
    # an error named in words is a crash beside a setting
    ("batchnorm error when the batch size is 1", "symptom", "crash"),
    ("My model fails with a value error inside batch norm when I use bs 1", "symptom", "crash"),
    # an empty call joined to a name does not cut its clause
    ("torch.cuda.memory_allocated() grows on each val step", "symptom", "memory_growth"),
    ("GPU memory keeps increasing during validation, I forgot torch.no_grad in the eval loop", "kept_graphs",
     "eval_with_grad"),
    # layers made trainable after the optimizer was built
    ("I unfreeze the backbone after 5 epochs but its weights don't change at all", "optimizer_params", "missing"),
    ("I add a new layer to the model after creating the optimizer and it never learns", "optimizer_params",
     "missing"),
    # clipping set that does not cap the norm
    ("I clip gradients with max_norm=1 but the logged gradient norm is still huge", "clip_ineffective", True),
    ("my grad clipping isn't clipping", "clip_ineffective", True),
    # a run continued from a checkpoint
    ("resumed at epoch 30 but the lr schedule started over like it's epoch 0", "recent_change", "resume"),
    ("after loading the checkpoint my scheduler forgets where it was", "recent_change", "resume"),
    # a warmup named by its settings
    ("I set num_warmup_steps=20000 with 3 epochs of training", "warmup", True),
    ("during the warm up phase nothing happens", "warmup", True),
    ("with batch size 2 my loss jumps up and down a lot", "loss_behavior", "oscillating"),
    ("all my predictions are ~3.2 which is just the mean of the training labels", "task", "regression"),
    ("My regressor collapses to a constant prediction", "task", "regression"),
    ("training is fine for 2000 steps and diverges when the lr hits 5e-4", "learning_rate", 5e-4),
])
def test_everyday_complaints_third_set(text, name, value):
    got = obs(text)
    assert got.get(name) == (pytest.approx(value) if isinstance(value, float) else value)


def test_a_word_of_english_is_no_slip_of_a_lexicon_word():
    # "installed" is one substitution from a made-up inflection of "instable": it is no unstable run
    assert obs("installed torch but training runs on CPU only").get("symptom") != "unstable"
    assert obs("the mse equals the variance of the targets").get("loss_behavior") != "oscillating"


def test_an_option_named_warmup_is_no_warmup_and_a_baseline_is_no_setting():
    assert "warmup" not in obs("Adafactor(model.parameters(), lr=1e-3, relative_step=False, warmup_init=True)")
    assert obs("each step is slower than plain float32 with bf16 autocast").get("mixed_precision") == "bf16"


@pytest.mark.parametrize("text,name,value", [
    # more GPUs and an epoch as long as before: no faster
    ("I went from 1 to 2 GPUs and the epoch time stayed the same", "symptom", "slow_training"),
    # a norm that spikes and keeps climbing is exploding (the trend outranks the transient)
    ("grad norm spikes to very large values and keeps climbing", "grad_norm_trend", "exploding"),
    # clipping said to run before the unscale, or on still scaled gradients
    ("in float16 training with GradScaler I clip before calling unscale_", "grad_clipping", True),
    ("i do gradient clipping on the still scaled grads in my fp16 amp loop", "clip_order", "before_unscale"),
])
def test_everyday_complaints_third_set_more(text, name, value):
    assert obs(text).get(name) == value


def test_the_clip_model_is_no_clipping():
    assert "grad_clipping" not in obs("Training open_clip with a timm image tower, CLIP mean/std in preprocessing")


def test_nothing_happens_beside_a_loss_is_the_curves():
    got = obs("during the warm up phase nothing happens, loss stays at 2.3 for 8k iterations")
    assert got.get("symptom") == "not_learning"
    assert obs("i launch the script and nothing happens").get("symptom") == "hang"


@pytest.mark.parametrize("text, custom", [
    # a loss whose formula the user writes out by hand: the usual home of log(0), sqrt'(0) and x/0
    ("I take the log of the predicted probabilities in my loss and it goes nan after a while", True),
    ("my loss divides by the number of positive pixels and becomes nan on some batches", True),
    ("after adding torch.sqrt of a distance to my loss, the gradients become nan", True),
    ("loss = -(y * p.log()).mean() gives nan", True),
    ("I compute the square root of the pairwise distances for a contrastive term", True),
    # fused built-ins, logging calls and the log of the loss curve are not formulas of a loss
    ("I use torch.log_softmax and nll_loss and the loss is nan", None),
    ("I log the loss with self.log('train_loss', loss) and it is nan", None),
    ("wandb.log shows a nan loss", None),
    ("I take the log of the loss to plot it", None),
])
def test_a_loss_formula_written_out_is_a_hand_written_loss(text, custom):
    assert obs(text).get("custom_loss") == custom, obs(text)


@pytest.mark.parametrize("text, change", [
    # the version that trains said first, then the one that does not: a regression the upgrade brought
    ("it worked with torch 1.13 but not with 2.0", "library_upgrade"),
    ("trains fine on transformers 4.20, fails on 4.21", "library_upgrade"),
    ("works with version 0.9 but fails with 1.0", "library_upgrade"),
    # a number that is no version (an LR, a batch) is no upgrade
    ("trained with 0.1 but diverges", None),
    ("converges with lr 1e-3 but diverges with 1e-2", None),
])
def test_a_version_that_trained_before_one_that_fails_is_an_upgrade(text, change):
    assert obs(text).get("recent_change") == change, obs(text)
