"""Symptom-routing knowledge: scenario orders hold in real plans, evidence gates routes, probe runs end clean."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expert.consultation import Consultation
from knowledge import families
from knowledge.skills import SCENARIO_BY_NAME

MY_FAMILIES = ("derive", "routing", "instability", "overfitting", "slow", "direct", "modern", "tracking", "quickref",
               "scenarios")


def plan_of(**obs) -> list[str]:
    c = Consultation()
    c.observe(**obs)
    return c.run().plan


def _in_order(plan: list[str], order: tuple[str, ...]) -> bool:
    seen = [s for s in plan if s in order]
    return seen == [s for s in order if s in seen]


@pytest.mark.parametrize("scenario, obs, min_len", [
    ("new_setup", {"symptom": "new_setup"}, 6),
    ("convergence", {"symptom": "convergence", "grad_norm_trend": "spiky"}, 3),
    ("instability", {"symptom": "unstable", "loss_behavior": "nan_or_inf", "nan_onset": "after_steps",
                     "mixed_precision": "fp16", "custom_loss": True}, 4),
    ("overfitting", {"symptom": "overfitting", "dataset_size": 5000}, 3),
    ("speed_memory", {"symptom": "slow_training", "gpu_utilization_pct": 90, "memory_limited": True,
                      "heavy_augmentation": True}, 3),
    ("tracking", {"symptom": "experiment_tracking", "tracking_scope": "in_flight", "tuning_method": "random"}, 3),
    ("not_learning", {"symptom": "not_learning", "loss_behavior": "flat_from_start"}, 2),
    ("multi_task", {"symptom": "multi_task"}, 3),
])
def test_scenario_order_holds_in_the_plan(scenario, obs, min_len):
    c = Consultation()
    c.observe(**obs)
    d = c.run()
    plan, order = d.plan, SCENARIO_BY_NAME[scenario].order
    assert len([s for s in plan if s in order]) >= min_len, plan
    # Tentative leads (an fp16 NaN: precision; a custom loss: the loss) go first; the scenario orders the rest.
    suspects = {f["id"] for f in d.findings if f["kind"] == "suspect"}
    rest = [r["skill"] for r in d.routes if not set(r["rules"]) & suspects]
    assert _in_order(rest if d.tentative else plan, order), (plan, order, d.tentative)


def test_healthy_probe_run_is_clean():
    c = Consultation()
    c.observe("probe:curve", loss_behavior="decreasing_normally")
    c.observe("probe:throughput", gpu_utilization_pct=93.0, data_time_fraction=0.05)
    d = c.run()
    assert d.status == "clean" and d.plan == [] and d.question is None


def test_probe_run_with_a_loading_bottleneck_is_diagnosed_without_a_question_about_the_symptom():
    c = Consultation()
    c.observe("probe:throughput", data_time_fraction=0.8)
    d = c.run()
    assert d.symptom["value"] == "slow_training" and d.plan[0] == "pytorch-engineering"


_EXTRA = st.fixed_dictionaries({}, optional={
    "heavy_augmentation": st.booleans(), "memory_limited": st.booleans(), "slow_kind": st.sampled_from(["per_step"]),
    "batch_size": st.integers(1, 4096), "mixed_precision": st.sampled_from(["none", "fp16", "bf16", "fp8"]),
    "optimizer": st.sampled_from(["adamw", "sgd", "lion"]), "dataset_size": st.integers(0, 10**6)})


@settings(max_examples=60, deadline=None)
@given(_EXTRA)
def test_slow_training_never_routes_to_batch_size_before_utilization_is_known(extra):
    plan = plan_of(symptom="slow_training", **extra)
    assert "batch-size-and-memory-tradeoffs" not in plan


@settings(max_examples=40, deadline=None)
@given(_EXTRA)
def test_not_learning_never_routes_to_the_optimizer_before_the_loss_behaviour(extra):
    plan = plan_of(symptom="not_learning", **extra)
    assert "optimization-algorithms" not in plan


def test_every_row_cites_a_seed_and_every_threshold_has_a_source():
    for fam in families():
        if fam.name not in MY_FAMILIES:
            continue
        for row in fam.rows:
            assert row.cite.seed in ("000", "001", "002", "003"), row.id
            assert row.rationale and row.id.split("-")[0] in ("RT", "DV", "SC"), row.id
            for t in row.thresholds():
                assert t["source"], (row.id, t)


# --- issue 7: the causes users hit, as they write them -------------------------------------------------------

def _read(text: str) -> dict:
    from expert.text import parse_complaint

    return {o.name: o.value for o in parse_complaint(text)}


@pytest.mark.parametrize("text, name, value", [
    ("the gradients are set to zero on the line right before the optimizer steps", "zero_grad_call",
     "between_backward_and_step"),
    ("I forgot to call optimizer.step() in the loop", "optimizer_step_call", "missing"),
    ("I call scaler.step(optimizer) and then optimizer.step() as well", "optimizer_step_call", "twice"),
    ("optimizer.step() instead of scaler.step with AMP", "optimizer_step_call", "outside_scaler"),
    ("the head's parameters are never added to the optimizer", "optimizer_params", "missing"),
    ("I unfroze the encoder layers after creating the optimizer", "optimizer_params", "missing"),
    ("I replaced the classifier head after creating the optimizer", "optimizer_params", "stale"),
    ("there is still a small change in frozen layer parameters", "optimizer_params", "frozen_held"),
    ("total_loss += loss every step and memory grows", "kept_graphs", "running_loss_tensor"),
    ("the validation loop runs without torch.no_grad", "kept_graphs", "eval_with_grad"),
    ("the loss jumps up at the start of every epoch", "epoch_start_jump", True),
    ("my labels start at 1 with CrossEntropyLoss", "label_check", "not_zero_based"),
    ("binary masks with 0 for background and 255 for the object", "label_check", "not_zero_based"),
    ("I shuffled the images but not the labels", "label_check", "misaligned"),
    ("a heavily imbalanced dataset, rare classes get ignored", "class_imbalance", True),
    ("I forgot to normalize the regression targets", "targets_unscaled", True),
    ("targets range from 0 to 250,000", "targets_unscaled", True),
    ("strong augmentation (RandAugment, mixup)", "augmentation_strength", "strong"),
    ("the logged loss shrinks with gradient accumulation steps", "logged_loss", "scaled_by_accum"),
    ("the printed loss is smaller than it should be by a factor of the batch size", "logged_loss",
     "wrong_denominator"),
    ("the global step counts micro-batches", "step_axis", "per_micro_batch"),
    ("evaluating the saved model gives different accuracy every time", "nondeterminism", "evaluation"),
    ("with the same seed the runs are not reproducible", "nondeterminism", "training_runs"),
    ("the last epoch is never logged to wandb", "metrics_dropped", True),
    # issue 17, sixth batch: words that say a cause the threads name
    ("fairseq needs CPU RAM that grows with the number of GPUs on the machine", "host_ram_per_rank", True),
    ("each process loads the whole dataset into memory", "host_ram_per_rank", True),
    ("the loss quickly goes to 0", "loss_collapses_zero", True),
    ("the training loss dropped down to zero suspiciously fast", "loss_collapses_zero", True),
    ("after the first logged steps the loss reads 0 every time", "loss_collapses_zero", True),
    ("with more epochs the performance gets lower and lower", "symptom", "overfitting"),
    ("train accuracy hits 100% fast but the test accuracy ends below the baseline", "symptom", "overfitting"),
    ("CodeLlama-7b full fine-tuning", "task", "language_modeling"),
    ("the val dice changes with shuffle=True or False on the val loader", "metric_batch_averaged", True),
    ("my validation F1 depends on the eval batch size", "metric_batch_averaged", True),
    ("my f1 changes when I evaluate the same checkpoint with a larger batch size", "metric_batch_averaged", True),
    ("the val f1 changes with the batch size of the val loader", "metric_batch_averaged", True),
    ("with AMP, gradient clipping at the usual 1.0 effectively halts training", "clip_order", "before_unscale"),
    ("dropout still applies at test time even though I call .eval() on my model", "mode_switching",
     "train_and_eval"),
    ("accumulating 4 micro-batches does not match batch 32 because my sequences have different lengths",
     "accum_token_mean", True),
    ("the accuracy my compute_metrics reports is off", "symptom", "metrics_wrong"),
    ("the logged F1 score was incorrect", "symptom", "metrics_wrong"),
    ("Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 32768.0", "scaler_skips", "occasional"),
    ("Gradient overflow. Skipping step, reducing loss scale to 1.5e-20", "scaler_skips", "persistent"),
    ("I call model.half() and train with Adam", "weights_dtype", "fp16"),
    ("a huge model on a small dataset", "capacity_vs_data", "too_large"),
    ("I ended up with the worst checkpoint instead of the best", "monitor_mode", "wrong_direction"),
    ("UserWarning: Using a target size (torch.Size([8, 1])) that is different to the input size "
     "(torch.Size([8]))", "target_shape", "broadcast"),
    ("loss_cls=0 from the start", "loss_zero_from_start", True),
    ("the test accuracy is 100% after the first epoch", "val_metric", 1.0),
    ("the blocks are kept in a plain Python list", "graph_cut", "python_list"),
    ("y_hat = out.detach().numpy() and the loss is computed from it", "graph_cut", "numpy"),
    ("loss = torch.tensor(loss.item(), requires_grad=True)", "graph_cut", "item"),
    ("the LR schedule runs out far too early, long before training ends", "scheduler_pace", "too_fast"),
    ("CosineAnnealingLR(T_max=epochs) with scheduler.step() every batch", "scheduler_pace", "too_fast"),
    ("the warmup never ends", "scheduler_pace", "too_slow"),
    ("the scheduler only changes the lr at the end of each epoch", "scheduler_pace", "too_slow"),
    ("fine-tuning Wav2Vec2ForCTC, the loss is inf", "loss_fn", "ctc"),
    ("training the crnn_ctc captcha model", "loss_fn", "ctc"),
    ("RuntimeError: When streaming is set to True, max_steps must be a non-negative integer", "data_length_unknown",
     True),
    ("TypeError: object of type 'IterableDataset' has no len()", "data_length_unknown", True),
    ("with cutmix my training accuracy is 40% but validation is 80%", "train_metric_mixed", True),
    ("I think each GPU ends up with a different train/val split", "val_in_train", True),
    ("it wastes about 3 minutes at the start of every epoch before the first iteration", "epoch_start_stall", True),
    ("the first batch of every epoch takes 2 minutes", "epoch_start_stall", True),
    ("the training loss I see grows as I raise gradient_accumulation_steps", "logged_loss", "scaled_by_accum"),
    ("the model was partly trained on my validation data", "val_in_train", True),
    ("I suspect data leakage between the splits", "val_in_train", True),
    ("ModelCheckpoint(monitor='val_acc') could not find the monitored key in the returned metrics", "monitor_mode",
     "unavailable"),
    ("how should I structure my training loop?", "question_topic", "training_loop"),
    ("what max_norm should I use for gradient clipping?", "question_topic", "clipping"),
    ("Bayesian optimization vs random search for lr and dropout?", "question_topic", "tuning"),
])
def test_a_cause_described_in_words_sets_its_observation(text, name, value):
    assert _read(text).get(name) == value


@pytest.mark.parametrize("text, name", [
    ("there is no class imbalance", "class_imbalance"),
    ("the loss does not jump at the start of each epoch", "epoch_start_jump"),
    ("the loss is 0.5 from the start", "loss_zero_from_start"),
    ("the loss was zero point five from the start", "loss_zero_from_start"),
    ("validation accuracy is 95%", "val_metric"),
    ("I call optimizer.step() once per iteration", "optimizer_step_call"),
    ("the loss scale settles at 65536", "scaler_skips"),
    # (GPU memory that grows over epochs is no per-process copy; a zero loss from the first step no collapse)
    ("GPU memory grows every epoch", "host_ram_per_rank"),
    ("the loss is 0 from the very first step", "loss_collapses_zero"),
    ("my dice loss depends on the batch size", "metric_batch_averaged"),
    ("gradient clipping at 1.0 halts training", "clip_order"),
    ("gradient accumulation with samples of different lengths and the loss is nan", "accum_token_mean"),
    ("my accuracy is low", "symptom"),
    ("with amp the training freezes at epoch 2, I clip gradients at 1.0", "clip_order"),
    ("with mixed precision the loss changes with the batch size", "metric_batch_averaged"),
    # (review x27a) a batch size one trains with, a machine that freezes, batch norm and padded images
    ("my val f1 changes a lot when I train with a larger batch size", "metric_batch_averaged"),
    ("the auc depends on the batch size I train with", "metric_batch_averaged"),
    ("with amp and clip_grad_norm 1.0 the whole machine freezes", "clip_order"),
    ("with amp and clip_grad_norm 1.0 the gpu freezes", "clip_order"),
    ("gradient accumulation is not equivalent to a larger batch because of batchnorm; my images are padded",
     "accum_token_mean"),
])
def test_healthy_or_unrelated_wording_sets_no_fault(text, name):
    read = _read(text)
    assert read.get(name) in (None, 0.95), read


def test_a_batch_averaged_ratio_metric_routes_to_tracking_first():
    plan = plan_of(metric_batch_averaged=True, symptom="metrics_wrong")
    assert plan[:2] == ["experiment-tracking", "training-loop-architecture"], plan


_LOOP_CAUSES = [("optimizer_step_call", "missing"), ("optimizer_step_call", "twice"),
                ("optimizer_step_call", "outside_scaler"), ("optimizer_params", "stale"),
                ("optimizer_params", "missing"), ("epoch_start_jump", True), ("label_check", "misaligned")]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_LOOP_CAUSES),
       st.sampled_from([("not_learning", "flat_from_start"), ("unstable", "oscillating"), ("unstable", "spiking"),
                        ("convergence", "plateau_after_learning")]),
       st.sampled_from([None, 1e-3, 0.5]))
def test_an_evidenced_loop_cause_leads_over_the_symptom_tables(cause, symptom, lr):
    obs = {cause[0]: cause[1], "symptom": symptom[0], "loss_behavior": symptom[1]}
    if lr is not None:
        obs["learning_rate"] = lr
    plan = plan_of(**obs)
    assert plan and plan[0] == "training-loop-architecture", (obs, plan)


@settings(max_examples=30, deadline=None)
@given(st.fixed_dictionaries({}, optional={"optimizer": st.sampled_from(["adamw", "sgd"]),
                                           "learning_rate": st.sampled_from([1e-4, 1e-3, 0.1]),
                                           "batch_size": st.integers(1, 512)}))
def test_occasional_scaler_skips_alone_never_route_to_instability(extra):
    for obs in ({"scaler_skips": "occasional"},
                {"scaler_skips": "occasional", "symptom": "direct_question", "question_topic": "precision"}):
        c = Consultation()
        c.observe(mixed_precision="fp16", grad_scaler=True, **obs, **extra)
        d = c.run()
        assert "gradient-management" not in d.plan, (obs, extra, d.plan)
        assert all(f["severity"] == "info" for f in d.findings if f["id"].startswith("PR-SKIP")), d.findings


def test_skips_beside_a_nan_loss_keep_the_nan_route():
    d = Consultation()
    d.observe(symptom="unstable", loss_behavior="nan_or_inf", mixed_precision="fp16", grad_scaler=True,
              scaler_skips="occasional")
    diag = d.run()
    # The skips stay a note; the fp16 NaN leads with precision, tentatively, the gradient route right after it.
    assert diag.plan[:2] == ["batch-size-and-memory-tradeoffs", "gradient-management"], diag.plan
    assert diag.tentative == "DF-SUS-HALF"


def test_a_vague_tuning_request_is_clarified_and_a_named_strategy_is_routed():
    c = Consultation()
    c.complain("I want to optimize my hyperparameters")
    assert c.run().question.id == "Q-CLARIFY-HPARAMS"
    c = Consultation()
    c.complain("should I use Bayesian optimization or random search for the learning rate and dropout?")
    d = c.run()
    assert d.plan[0] == "hyperparameter-tuning" and d.question is None, (d.plan, d.question)


def test_a_model_too_large_for_its_data_adds_the_architecture_pack_after_regularization():
    plan = plan_of(symptom="overfitting", capacity_vs_data="too_large")
    assert plan[0] == "overfitting-prevention" and "neural-architectures" in plan


@pytest.mark.parametrize("topic, skill", [("training_loop", "training-loop-architecture"),
                                          ("clipping", "gradient-management"),
                                          ("tuning", "hyperparameter-tuning")])
def test_direct_questions_the_seed_tables_left_unrouted(topic, skill):
    assert plan_of(symptom="direct_question", question_topic=topic)[0] == skill
def test_every_loss_name_in_terms_is_classified_one_way_by_the_wrong_objective_rows() -> None:
    """RT-LOSS-06/07 read the term sets of knowledge.terms: every spelling meets the rows its canonical name does."""
    from expert.consultation import canonical_term
    from knowledge import terms
    from knowledge.routing import ROWS

    rows = {r.id: r for r in ROWS}
    on_classification = rows["RT-LOSS-06"].conditions()["loss_fn"]
    on_regression = rows["RT-LOSS-07"].conditions()["loss_fn"]
    assert not terms.REGRESSION_LOSSES & terms.CLASSIFICATION_LOSSES
    for spelling, canonical in terms.LOSS_SPELLINGS.items():
        value = canonical_term("loss_fn", spelling)
        assert value == canonical, spelling
        assert on_classification.test(value) == (canonical in terms.REGRESSION_LOSSES), spelling
        assert on_regression.test(value) == (canonical in terms.CLASSIFICATION_LOSSES), spelling
    for name in ("MSELoss", "nn.L1Loss()", "HuberLoss", "SmoothL1Loss"):
        assert "loss-functions-and-objectives" == plan_of(task="classification", loss_fn=name)[0], name
    for name in ("CrossEntropyLoss", "F.nll_loss", "BCEWithLogitsLoss", "nn.BCELoss()"):
        assert "loss-functions-and-objectives" == plan_of(task="regression", loss_fn=name)[0], name


# --- the run's own stable LR (DX-FIX-07) ------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("loss goes nan after 2k steps; lowering the learning rate to 1e-5 fixed it", True),
    ("the loss diverges since I increased the lr", True),
    ("With cfg.SOLVER.BASE_LR = 0.001 it trained fine, I raised it to 0.02 and now the loss is nan", True),
    # a lower LR that did not help is read as such (issue 19): the lower LR did not train stably
    ("loss goes nan; lowering the lr didn't fix it", False),
    ("nan loss, reducing the learning rate does not solve it", False),
    ("nan loss even with a lower lr it never works", False),
])
def test_a_stable_lower_lr_is_read_only_when_it_was_stable(text: str, expected: bool | None) -> None:
    assert _read(text).get("lower_lr_stable") == expected


def test_a_stable_lower_lr_convicts_the_lr_of_a_nan_inside_the_usual_range() -> None:
    from expert import Consultation

    c = Consultation()
    c.complain("Loss becomes NaN after a few hundred iterations. With lr 0.001 it trained fine; at 0.01 it blows up.")
    c.observe(optimizer="sgd_momentum")
    d = c.run()
    assert d.plan[0] == "learning-rate-scheduling"
    assert d.causes == ["DX-FIX-07"]


@pytest.mark.parametrize("text, activation, loss", [
    ("my classifier ends with a softmax layer and I use nn.CrossEntropyLoss; loss stuck at 2.30", "softmax",
     "cross_entropy"),
    ("I apply softmax before CrossEntropyLoss and the loss barely moves", "softmax", "cross_entropy"),
    ("the network ends with a sigmoid, loss is BCEWithLogitsLoss, accuracy stuck at 50%", "sigmoid",
     "bce_with_logits"),
    ("I don't use softmax before cross entropy", None, None),
])
def test_an_activation_before_a_normalizing_loss_is_read_with_its_loss(text: str, activation: str | None,
                                                                        loss: str | None) -> None:
    got = _read(text)
    assert (got.get("output_activation"), got.get("loss_fn")) == (activation, loss)


@pytest.mark.parametrize("text, name", [
    # a learning regime is no curve that shoots, a tool's name no slip of a setting, a statistic's name no move
    ("few-shot classification with a ResNet backbone", "loss_behavior"),
    ("one-shot learning on omniglot", "loss_behavior"),
    ("LoRA SFT through LLaMA-Factory with 4 accumulation steps", "logged_loss"),
    ("'Moving average ignored a value of inf/nan' keeps appearing on 4 GPUs", "world_size_changed"),
    # a setting named in passing is no question about it
    ("full fine-tuning with FSDP on 8 GPUs, the loss goes to 0", "symptom"),
])
def test_names_of_regimes_tools_and_statistics_read_no_trouble(text: str, name: str) -> None:
    read = _read(text)
    assert read.get(name) in (None, "unstable"), read


# review k28: a training loss that reaches 0 as a fit is no collapse; host RAM is not GPU memory; a run's length
@pytest.mark.parametrize("text, name, value", [
    ("training with fp16, the train loss converges to 0.0 and val accuracy is 98%, works great",
     "loss_collapses_zero", None),
    ("the train loss converges to 0 and val accuracy is 95%, all good", "loss_collapses_zero", None),
    ("training loss goes to 0 but validation loss keeps increasing, I use fp16 mixed precision",
     "loss_collapses_zero", None),
    ("the train loss goes to 0 and val accuracy is 95%, all good", "loss_collapses_zero", None),
    ("the loss becomes 0.0 after 100 steps", "loss_collapses_zero", True),
    ("the loss drops to 0 with fp16", "loss_collapses_zero", True),
])
def test_a_loss_reaching_zero_as_a_fit_is_no_collapse(text, name, value):
    assert _read(text).get(name) == value


@pytest.mark.parametrize("text, value", [
    ("memory is fine and throughput scales linearly with the number of GPUs", None),
    ("GPU memory usage grows with the number of GPUs in the model parallel setup", None),
    ("the peak memory increases with more GPUs because of NCCL buffers", None),
    ("I want to know if memory scales with more GPUs when using DDP?", None),
    ("CPU RAM does not grow with the number of GPUs", None),
    ("RAM usage scales with the number of processes", True),
    ("the host memory usage keeps increasing with more GPUs", True),
])
def test_only_host_memory_that_grows_with_the_gpus_is_a_copy_per_rank(text, value):
    assert _read(text).get("host_ram_per_rank") == value


def _first_questions(text: str | None = None, n: int = 4, **obs) -> list[str]:
    c = Consultation()
    if text:
        c.complain(text)
    if obs:
        c.observe(**obs)
    c.run()
    asked = []
    while len(asked) < n and c.question is not None:
        asked.append(c.question.id)
        c.decline(c.question.id)
    return asked


@pytest.mark.parametrize("text, obs, asked", [
    ("fine-tuning mistral 7b on 8 GPUs, the loss spikes", {}, False),
    (None, {"dist_world_size": 8, "symptom": "unstable", "task": "language_modeling", "architecture": "transformer"},
     False),
    (None, {"dist_world_size": 8, "symptom": "unstable", "architecture": "rnn"}, False),
    ("training a resnet on 8 GPUs, the loss spikes", {}, True),
    (None, {"dist_world_size": 8, "symptom": "unstable", "architecture": "cnn"}, True),
])
def test_batchnorm_per_gpu_is_asked_only_of_models_that_may_have_batchnorm(text, obs, asked):
    assert ("Q-BN-SYNC" in _first_questions(text, **obs)) is asked


@pytest.mark.parametrize("text, value", [
    ("performance drops with more epochs of warmup", None),
    ("the accuracy gets worse with more epochs of pretraining data", None),
    ("performance drops with more epochs of training", "overfitting"),
    ("performance drops with more epochs", "overfitting"),
])
def test_more_epochs_of_something_else_is_no_longer_run(text, value):
    assert _read(text).get("symptom") == value


@pytest.mark.parametrize("text, value", [
    ("training GPT-2 from scratch on 4 GPUs, the loss plateaus", None),
    ("I moved the data to the GPU and the accuracy is lower than expected", None),
    ("went from 1 GPU to 8 and accuracy is worse", "gpu_count"),
])
def test_a_gpu_count_change_is_said_of_the_devices(text, value):
    assert _read(text).get("recent_change") == value


@pytest.mark.parametrize("text, name, value", [
    ("I overfit a single batch and the loss goes to 0 as expected", "symptom", None),
    ("I overfit a single batch and the loss goes to 0 as expected", "not_working_aspect", None),
    ("I tried to overfit one batch but the loss stays at 2.3", "symptom", "not_learning"),
    ("it overfits on a small dataset", "symptom", "overfitting"),
    ("the model reaches 92% val accuracy, which is above the baseline", "not_working_aspect", None),
    ("the accuracy is below the baseline", "not_working_aspect", "accuracy"),
])
def test_a_fit_sought_on_purpose_or_a_figure_above_its_reference_is_no_trouble(text, name, value):
    assert _read(text).get(name) == value


def test_host_ram_taken_up_again_by_a_pronoun_still_grows_with_the_gpus():
    text = "the loader takes a lot of system memory, and it increases with more GPUs"
    assert _read(text).get("host_ram_per_rank") is True
