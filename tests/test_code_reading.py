"""Code pasted or named in a complaint (``knowledge.talk.CODE_IDIOMS``): what each idiom states, and the negated,
absent or harmless forms that must state nothing."""

from __future__ import annotations

import time

import pytest

import expert  # noqa: F401 - the experta shim
from expert.talk import understand
from knowledge import talk as K
from tests.reading import obs


def code_reads(text: str) -> dict:
    """What the code reader alone states (its readings span a matched idiom)."""
    return {r.name: r.value for r in understand(text.lower()).readings}


@pytest.mark.parametrize("text, name, value", [
    # the loop's calls said not to run
    ("I forgot optimizer.zero_grad() in my loop", "zero_grad_call", "missing"),
    ("optimizer.zero_grad() is never called", "zero_grad_call", "missing"),
    ("with a DistributedSampler I never call sampler.set_epoch(epoch)", "epoch_data_order", "repeated"),
    ("DDP on 4 gpus but no DistributedSampler in my DataLoader", "rank_data", "identical"),
    ("I call model.eval() for validation and never call model.train() again", "mode_switching", "never_calls_train"),
    ("validation loop runs without model.eval()", "mode_switching", "validates_in_train_mode"),
    ("memory grows on each val step, I run the model without torch.no_grad() for evaluation", "kept_graphs",
     "eval_with_grad"),
    ("fp16 autocast but no GradScaler", "grad_scaler", False),
    # an activation before a loss that applies its own
    ("the last layer is nn.Softmax(dim=1) and the criterion is nn.CrossEntropyLoss()", "output_activation", "softmax"),
    ("out = torch.sigmoid(model(x)); loss = nn.BCEWithLogitsLoss()(out, y)", "output_activation", "sigmoid"),
    ("log_softmax(x, dim=0) before NLLLoss", "output_activation", "log_softmax"),
    ("nn.LogSoftmax(dim=0) on a [N, C] output", "output_norm_dim", "other"),
    # the loss's reduction
    ("criterion = nn.MSELoss(reduction='sum')", "loss_reduction", "sum"),
    ("criterion = nn.L1Loss(size_average=False)", "loss_reduction", "sum"),
    # graphs kept alive
    ("train_loss += criterion(out, y) is how I track the epoch loss", "kept_graphs", "running_loss_tensor"),
    ("epoch_loss += loss at every step", "kept_graphs", "running_loss_tensor"),
    ("all_outputs.append(output) in the train loop", "kept_graphs", "stored_outputs"),
    ("losses.append(loss) every batch", "kept_graphs", "stored_outputs"),
    # the graph cut
    ("loss = torch.tensor(np.mean((pred.detach().cpu().numpy() - y) ** 2), requires_grad=True)", "graph_cut", "numpy"),
    ("I compute the loss on out.cpu().numpy() and then torch.from_numpy(loss)", "graph_cut", "numpy"),
    ("loss = criterion(out.detach(), y)", "graph_cut", "detach"),
    ("loss = torch.tensor(pred) and the weights stay the same", "graph_cut", "detach"),
    ("loss = torch.tensor(loss.item(), requires_grad=True)", "graph_cut", "item"),
    # the logged loss's denominator
    ("total += loss.item() each batch, then total / len(train_loader.dataset)", "logged_loss", "wrong_denominator"),
    ("running_loss += loss.item() and at the end running_loss / num_samples", "logged_loss", "wrong_denominator"),
    # shapes that broadcast in a regression loss
    ("mse loss with output [64, 1] and target [64]", "target_shape", "broadcast"),
    ("my L1 loss gets pred shape (N,1) and label shape (N)", "target_shape", "broadcast"),
    # the schedule's pace
    ("scheduler = StepLR(opt, step_size=30) and scheduler.step() is inside the batch loop", "scheduler_pace",
     "too_fast"),
    ("get_linear_schedule_with_warmup(opt, 500, num_training_steps=20000) but scheduler.step() once per epoch",
     "scheduler_pace", "too_slow"),
    # a language model's labels shifted twice
    ("I do labels = input_ids[:, 1:] and then call model(input_ids, labels=labels)", "label_shift", "double"),
    ("labels shifted manually plus the shift inside AutoModelForCausalLM", "label_shift", "double"),
])
def test_a_code_idiom_states_its_observation(text: str, name: str, value: object) -> None:
    assert code_reads(text).get(name) == value, code_reads(text)
    assert obs(text).get(name) == value, obs(text)


# the value that says a harmless form rules its defect out
_CLEARED = {"kept_graphs": "none"}


@pytest.mark.parametrize("text, name", [
    # said to run: nothing is missing
    ("I call optimizer.zero_grad() every step", "zero_grad_call"),
    ("I call sampler.set_epoch(epoch) at the start of each epoch", "epoch_data_order"),
    ("DDP with a DistributedSampler", "rank_data"),
    ("model.eval() for validation, model.train() after it", "mode_switching"),
    ("the val loop is wrapped in torch.no_grad()", "kept_graphs"),
    ("autocast with a GradScaler and the loss is nan", "zero_grad_call"),
    # harmless pairings and uses
    ("log_softmax then NLLLoss", "output_activation"),
    ("CrossEntropyLoss for training, softmax only at inference", "output_activation"),
    ("torch.sigmoid for the predictions at inference, BCEWithLogitsLoss in training", "output_activation"),
    ("criterion = nn.MSELoss(reduction='mean')", "loss_reduction"),
    ("not reduction='sum'", "loss_reduction"),
    # Python numbers kept: no graph
    ("running_loss += loss.item()", "kept_graphs"),
    ("outputs.append(out.detach().cpu())", "kept_graphs"),
    # numpy for a metric, not a loss; a detach for logging
    ("I compute the validation accuracy with sklearn on numpy arrays", "graph_cut"),
    ("loss_value = loss.detach() for the progress bar", "graph_cut"),
    # the right denominator: batch means weighted by their batch size
    ("total += loss.item() * x.size(0), then total / len(dataset)", "logged_loss"),
    # a classification loss takes [N, C] against [N]
    ("CrossEntropyLoss with logits [64, 1] and targets [64]", "target_shape"),
    ("output [64, 10] and target [64]", "target_shape"),
    # the schedule stepped in its own units
    ("OneCycleLR with steps_per_epoch=len(loader), scheduler.step() every batch", "scheduler_pace"),
    ("StepLR(step_size=30), scheduler.step() once per epoch", "scheduler_pace"),
    # a question about the shift, or one shift
    ("do I need to shift the labels myself or does the model shift them internally?", "label_shift"),
    ("I do labels = input_ids[:, 1:] before my own loss", "label_shift"),
])
def test_a_negated_absent_or_harmless_form_states_nothing(text: str, name: str) -> None:
    # 'nothing' of the defect: a reading that the harmless form rules the defect out (kept_graphs=none for a
    # Python number kept) is what it says, and answers the question that would ask it
    assert code_reads(text).get(name) in (None, _CLEARED.get(name)), code_reads(text)



def test_every_idiom_id_is_unique_and_its_references_exist() -> None:
    ids = [i.id for i in K.CODE_IDIOMS]
    assert len(ids) == len(set(ids))
    for idiom in K.CODE_IDIOMS:
        for group in idiom.needs + idiom.unless:
            assert set(group.split("|")) <= set(ids), (idiom.id, group)


def test_code_reading_is_bounded_on_a_megabyte_of_pasted_code() -> None:
    unit = "running_loss += loss; outputs.append(out) [64, 1] vs [64] scheduler.step() every batch steplr\n"
    big = (unit * (1_000_000 // len(unit))).lower()
    t = time.process_time()  # CPU time: a loaded machine must not fail a linear reader
    understand(big)
    assert time.process_time() - t < 5.0  # (the 1 s budget is held by tests/test_talk on a quiet machine)


def test_a_grad_scaler_said_in_use_is_not_read_as_left_out() -> None:
    assert obs("autocast with a GradScaler, the loss is nan").get("grad_scaler") is True
    assert obs("autocast in fp16 without a GradScaler, the loss is nan").get("grad_scaler") is False


@pytest.mark.parametrize("text, name, value", [
    ("I store preds in a python list for metrics later and memory keeps increasing", "kept_graphs", "stored_outputs"),
    ("I keep a sum of the losses as a tensor for the progress bar", "kept_graphs", "running_loss_tensor"),
    ("the loss goes through numpy for the sorting step", "graph_cut", "numpy"),
    ("the train loss was divided by the dataset size, not by the number of batches", "logged_loss",
     "wrong_denominator"),
    ('nn.MSELoss warns "different to the input size"', "target_shape", "broadcast"),
])
def test_the_same_idioms_told_in_words(text: str, name: str, value: object) -> None:
    assert code_reads(text).get(name) == value, code_reads(text)


@pytest.mark.parametrize("text, name", [
    ("I keep the predictions in a list after .detach().cpu() and memory grows", "kept_graphs"),
    ("I store the predictions in a list for the confusion matrix", "kept_graphs"),  # no memory said to grow
    ("I convert the loss to numpy for logging", "graph_cut"),
])
def test_words_that_keep_nothing_alive_state_nothing(text: str, name: str) -> None:
    assert name not in code_reads(text), code_reads(text)


def test_a_schedule_said_to_end_far_too_early_was_stepped_too_often() -> None:
    text = "with accumulate_grad_batches=16 the warmup finishes far too early, after about 1000 optimizer steps"
    assert code_reads(text).get("scheduler_pace") == "too_fast"
    assert obs(text).get("scheduler_pace") == "too_fast"


def test_a_negation_inside_an_idiom_told_in_words_negates_it() -> None:
    assert "kept_graphs" not in code_reads("I don't keep the predictions in a list, memory still grows")


def test_a_whole_model_frozen_in_code() -> None:
    assert code_reads("for p in model.parameters(): p.requires_grad = False\nloss does not move").get(
        "frozen_fraction") == 1.0
    assert code_reads("model.requires_grad_(False) and the loss is flat").get("frozen_fraction") == 1.0
    # frozen, then the head unfrozen; a backbone only
    assert "frozen_fraction" not in code_reads(
        "for p in model.parameters(): p.requires_grad = False\nfor p in model.fc.parameters(): p.requires_grad = True")
    assert "frozen_fraction" not in code_reads(
        "for p in model.backbone.parameters(): p.requires_grad = False")
