"""Reading of training talk, issue 19 (d35): a flat loss at chance (ln k), an LR that reaches 0 as its schedule ends
or is said never to, the numbers of moments ("at epoch 10"), slow rises, a warmup that peaks too soon, a
validation jump with a training spike, units written apart from their numbers."""

from __future__ import annotations

import pytest

from expert.consultation import Consultation
from tests.reading import assert_reads, obs

# --- a loss held at ln(k): the loss at chance for k classes -------------------------------------------------------


@pytest.mark.parametrize(("text", "value", "classes"), [
    ("my loss is stuck at 0.6931", 0.6931, 2),
    ("loss stays at 2.3026 for the whole run", 2.3026, 10),
    ("training loss stuck at 4.6052 from the first epoch", 4.6052, 100),
    ("loss: 4.605 4.604 4.605 4.605", 4.605, 100),
    ("the loss refuses to budge from ln(2)", 0.6931, 2),
    ("loss never moves, sits at 1.0986", 1.0986, 3),
    ("loss is stuck at 2.30 all the time", 2.30, 10),
    ("my loss stays at 1.609 every epoch", 1.609, 5),
])
def test_flat_loss_at_ln_k_is_chance_for_k_classes(text: str, value: float, classes: int) -> None:
    got = obs(text)
    assert got.get("symptom") == "not_learning", got
    assert got.get("loss_at_init") == pytest.approx(value, abs=1e-4) and got.get("num_classes") == classes, got


def test_flat_loss_at_chance_reaches_the_chance_join() -> None:
    c = Consultation()
    c.complain("my loss is stuck at 2.3026 for the whole run")
    c.run()
    assert "DX-CHANCE-01" in [f["rule"] for f in c.trace]
    c = Consultation()
    c.complain("my loss is stuck at 1.234 for the whole run")
    c.run()
    assert "DX-CHANCE-01" not in [f["rule"] for f in c.trace]


@pytest.mark.parametrize("text", [
    "loss stuck at 2.3",          # one decimal: too coarse to name a class count
    "loss stuck at 1.234",        # no ln(k) of a plausible k
    "loss stuck at 1.10",         # ln 3 at two decimals: too common a value to count classes by
    "DPO loss stuck at 0.6931",   # a preference loss at ln 2 counts no classes
])
def test_flat_loss_away_from_chance_counts_no_classes(text: str) -> None:
    assert_reads(text, {"symptom": "not_learning", "num_classes": None})


def test_flat_loss_with_classes_said_keeps_them() -> None:
    assert_reads("100 classes, loss stuck at 2.3026", {"num_classes": 100, "loss_at_init": 2.3026})


@pytest.mark.parametrize("text", [
    "my loss is not stuck at 0.6931",
    "my friend's loss is stuck at 0.693",
    "val loss stuck at 0.693",
    "loss stuck, lr 0.693",
    "loss decreases from 2.30 to 0.5",
    "step 500 | loss: 2.3026",
    "the loss went down from 2.30 and plateaued at 0.69 after 10 epochs",
])
def test_no_chance_loss_where_no_flat_own_training_loss_sits_there(text: str) -> None:
    got = obs(text)
    assert got.get("loss_at_init") is None and got.get("num_classes") is None, got


def test_a_logged_dict_keeps_the_loss_figure_among_others() -> None:
    assert_reads("{'loss': 0.6931, 'rewards/chosen': 0.0, 'rewards/rejected': 0.0} at every step of my DPO run",
                 {"symptom": "not_learning", "loss_behavior": "flat_from_start"})
    assert_reads("{'loss': 0.6931, 'rewards/chosen': 0.0} at step 5", {"loss_behavior": None})


# --- the LR reaching 0: a schedule's end, a denial, a collapse ----------------------------------------------------


@pytest.mark.parametrize("text", [
    "the lr never reaches zero",
    "the learning rate never decays to 0",
    "the lr does not drop to zero",
    "lr decays to 0",
    "lr anneals to zero",
    "lr ends at 1e-8",
    "the lr decays to zero at the end of training",
])
def test_lr_reaching_zero_as_designed_or_denied_is_no_collapse(text: str) -> None:
    got = obs(text)
    assert got.get("lr_observed") is None, got


@pytest.mark.parametrize("text", [
    "the lr drops to 0 after 100 steps",
    "lr decays to 0 after 2 epochs",
    "the lr falls to zero and stays there",
    "my lr schedule decays it to zero by epoch 5 of 100",
])
def test_lr_falling_to_zero_inside_the_run_is_near_zero(text: str) -> None:
    assert_reads(text, {"lr_observed": "near_zero"})


def test_lr_denied_to_move_is_still_stuck() -> None:
    assert_reads("the lr doesn't decrease", {"lr_observed": "stuck"})


# --- a number after epoch / step is a moment, not a value ------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "val acc peaks at epoch 10 then drops",
    "validation accuracy peaks around epoch 10 and then goes down",
])
def test_peak_at_an_epoch_then_drop_is_overfitting_with_no_value(text: str) -> None:
    assert_reads(text, {"symptom": "overfitting", "val_metric": None})


@pytest.mark.parametrize(("text", "value"), [
    ("val acc hits 0.85 at epoch 10 then drops", 0.85),
    ("epoch 3 val acc 0.85", 0.85),
    ("val accuracy is 40% at step 500", 0.4),
])
def test_a_figure_beside_a_moment_is_still_read(text: str, value: float) -> None:
    assert_reads(text, {"val_metric": value})


# --- slowly: a loss that climbs diverges, an accuracy that rises learns ---------------------------------------------


@pytest.mark.parametrize("text", ["the loss climbs slowly", "my loss is slowly increasing", "loss goes up slowly"])
def test_a_slow_climb_of_the_loss_is_a_rise(text: str) -> None:
    got = obs(text)
    assert got.get("loss_behavior") == "diverging" and got.get("symptom") != "slow_training", got


@pytest.mark.parametrize("text", [
    "val acc rising slowly",
    "validation accuracy is rising slowly",
    "the accuracy increases slowly",
    "val accuracy improves very slowly",
])
def test_a_slow_rise_of_accuracy_is_slow_convergence_not_a_flat_curve(text: str) -> None:
    got = obs(text)
    assert got.get("not_working_aspect") == "convergence_speed" and got.get("symptom") != "not_learning", got


@pytest.mark.parametrize("text", ["his val accuracy rises slowly", "val acc is not rising slowly, it is flat"])
def test_no_slow_convergence_for_another_run_or_a_denial(text: str) -> None:
    assert obs(text).get("not_working_aspect") != "convergence_speed"


# --- a warmup that peaks too soon ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "lr peaks after 10 steps",
    "warmup is over in the first 50 steps of 100k",
    "the lr hits its max at step 40 instead of 4000",
    "warmup of 4000 steps but the lr peaks after 40 steps",
])
def test_a_peak_far_too_soon_is_a_schedule_paced_too_fast(text: str) -> None:
    assert_reads(text, {"scheduler_pace": "too_fast"})


def test_a_peak_later_than_planned_stays_too_slow() -> None:
    assert_reads("lr peaks after 4000 steps instead of 400", {"scheduler_pace": "too_slow"})


@pytest.mark.parametrize("text", [
    "the lr peaks after 2000 steps",
    "warmup is over in the first 5000 steps of 100k",
    "warm-up ends after 1.5k iterations",
    "the lr does not peak after 10 steps",
    "my colleague's lr peaks after 10 steps",
    "I use a warmup of 10 steps",
    "lr peaks after 10 epochs",
    "warmup_steps=50 and the lr peaks after 50 steps, then the loss blows up",
    "I use a very short warmup and the lr peaks after 20 steps",
])
def test_no_fast_pace_for_a_usual_warmup_a_denial_or_another_run(text: str) -> None:
    assert obs(text).get("scheduler_pace") is None


# --- a validation jump with a training spike; units apart ---------------------------------


def test_validation_jumping_with_a_training_spike_is_no_overfitting() -> None:
    assert_reads("train loss spike at step 40k and the eval loss is also way up right after it",
                 {"symptom": "unstable", "val_loss_rising": None, "val_spikes_with_train": True})
    assert_reads("val loss goes up while train loss goes down", {"symptom": "overfitting", "val_loss_rising": True})


def test_a_unit_written_apart_belongs_to_its_number() -> None:
    assert_reads("step time went 0.4s -> 0.55s", {"symptom": "slow_training", "slow_kind": "per_step"})
    assert_reads("the step time went 0.55s -> 0.4s", {"symptom": None})


# --- log lines printing the loss at one value, line after line -------------------------------------------------------


@pytest.mark.parametrize("text", [
    "Epoch 1/10 - loss: 2.3026 - accuracy: 0.1000\nEpoch 2/10 - loss: 2.3026 - accuracy: 0.1000",
    "{'loss': 0.6931, 'epoch': 1.0}\n{'loss': 0.6931, 'epoch': 2.0}",
    "step 100 loss 0.6931 step 200 loss 0.6931 step 300 loss 0.6931",
    "{'loss': 2.303, 'epoch': 0.1} ... {'loss': 2.301, 'epoch': 2.9} -- basically no change in three epochs",
])
def test_logged_lines_holding_the_loss_at_ln_k_are_flat_at_chance(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") == "not_learning" and got.get("num_classes") in (2, 10), got


@pytest.mark.parametrize("text", [
    "{'loss': 0.6931, 'epoch': 1.0}\n{'loss': 0.5123, 'epoch': 2.0}\n{'loss': 0.4012, 'epoch': 3.0}",
    "epoch 1 loss: 0.9\nepoch 2 loss: 0.9",
    "epoch 1 val_loss: 0.6931\nepoch 2 val_loss: 0.6931",
    "{'loss': 2.114, 'epoch': 0.1} ... {'loss': 2.109, 'epoch': 2.9}",
    "{'loss': 2.114, 'epoch': 0.1} ... {'loss': 1.509, 'epoch': 2.9}, the lr does not change",
])
def test_logged_lines_that_move_are_coarse_or_validation_are_not_flat(text: str) -> None:
    assert obs(text).get("symptom") != "not_learning"
