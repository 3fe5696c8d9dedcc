"""One clause status for every reading path, and the false readings it (and the reader beside it) fixes (issue 19).

Each class of sentence is tested with several phrasings, beside the negated, asked or otherwise different forms
that must not fire (or must still be read).
"""

from __future__ import annotations

import pytest

from expert.nlp import normalise
from expert.talk import ASKED, HEDGED, NEGATED, PAST, STATED, ClauseStatus
from expert.text import confirmations, read_text
from tests.reading import finding_ids, obs


def _status(text: str, word: str) -> str:
    """The clause status of the first ``word`` in ``text`` (normalised as the reader sees it)."""
    low = normalise(text).text
    at = low.index(word)
    return ClauseStatus(low).of(at, at + len(word), hedge=True)


def _guess(text: str) -> dict[str, object]:
    return {r.observation.name: r.observation.value for r in read_text(text)
            if r.weak and r.observation.source.endswith("(a guess)")}


# -- the status itself ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "word", "status"), [
    ("the loss goes nan after 3 epochs", "nan", STATED),
    ("no nan in the loss", "nan", NEGATED),
    ("I don't really think the loss is exploding", "exploding", NEGATED),
    ("I doubt the loss diverges", "diverges", NEGATED),
    ("the weights differ between ranks. I checked, they don't.", "differ", NEGATED),
    ("are the replicas out of sync? no, they're the same", "sync", NEGATED),
    ("the weights differ between ranks?", "differ", ASKED),
    ("maybe the loss explodes", "explodes", HEDGED),
    ("the loss used to go nan", "nan", PAST),
    ("we had oom last week, solved by lowering batch", "oom", PAST),
    ("the loss was nan at step 500. fixed it by clipping.", "nan", PAST),
    # a resolution before it, of another thing, negated, or undone after it: the trouble is the run's now
    ("i fixed the seed and the loss goes nan", "nan", STATED),
    ("the loss went nan and the lr was fixed", "nan", STATED),
    ("the loss went nan, i haven't fixed it", "nan", STATED),
    ("the loss went nan, fixed it by clipping but it comes back after 1k steps", "nan", STATED),
    ("training unstable; lowering the lr solved it", "unstable", STATED),
    # a negation reaches neither into a question word's clause nor past "until"
    ("not sure why the gradients explode", "explode", STATED),
    ("memory grows without limit until i get out of memory", "out of memory", STATED),
    # a question opened by a question word, or a request after a statement, still says what it says
    ("why does the loss explode?", "explode", STATED),
    ("the loss goes nan after 3 epochs, any idea?", "nan", STATED),
])
def test_the_status_of_a_clause(text: str, word: str, status: str) -> None:
    assert _status(text, word) == status


# -- past and fixed: history, not the run now --------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "the loss used to go NaN but that's fixed now",
    "we had OOM last week, solved by lowering batch",
    "the loss was exploding last week, fixed it by adding gradient clipping",
    "I had NaN loss yesterday but it went away after I lowered the lr",
    "Training used to be really slow.",
    "Got CUDA out of memory at first. Fixed it with gradient checkpointing.",
])
def test_a_trouble_said_as_past_and_fixed_is_not_read_as_the_run_now(text: str) -> None:
    got = obs(text)
    assert not {"symptom", "loss_behavior", "concern", "boundary_topic"} & set(got), got
    assert any("past and fixed" in q for q in confirmations(text))


@pytest.mark.parametrize(("text", "name", "value"), [
    # the trouble now is read, not the one fixed before it (stability would otherwise win)
    ("the loss used to go NaN but that's fixed now, now the val loss goes up while the train loss goes down",
     "symptom", "overfitting"),
    ("we had OOM last week, solved by lowering batch, but now training is really slow", "symptom", "slow_training"),
    # fixed, and asked about: the history is what the user asks about
    ("the loss went NaN after 3 epochs; I fixed it by lowering the lr. Is that the right fix?", "symptom", "unstable"),
    # not fixed, or fixed and back, or a remedy found for a trouble said as the run's
    ("the loss went NaN and I haven't fixed it yet", "symptom", "unstable"),
    ("the loss goes nan, I fixed it with clipping but it comes back after 1k steps", "symptom", "unstable"),
    ("I fixed the seed and the loss goes nan", "symptom", "unstable"),
    ("the loss went nan with the seed fixed", "symptom", "unstable"),
    ("training unstable; lowering the lr solved it", "symptom", "unstable"),
    ("the gradients vanished after 3 epochs", "grad_norm_trend", "vanishing"),
])
def test_a_trouble_now_is_still_read(text: str, name: str, value: str) -> None:
    assert obs(text).get(name) == value


def test_a_fixed_trouble_leads_to_no_finding() -> None:
    assert not {f for f in finding_ids("we had OOM last week, solved by lowering batch") if "OOM" in f}
    assert "symptom" in obs("we had OOM this morning and it crashes every time")


# -- a NaN in a range of data values is no NaN loss ------------------------------------------------------------
@pytest.mark.parametrize(("text", "location"), [
    ("targets are between nan and 5", "labels"),
    ("the labels are between nan and 1", "labels"),
    ("my regression targets range from -3 to nan", "labels"),
    ("the input features go from nan to 255", "inputs"),
    ("values range from 0 to nan", None),
    ("values are between nan and 5", None),
])
def test_a_nan_among_data_values_is_a_data_fault(text: str, location: str | None) -> None:
    got = obs(text)
    assert "loss_behavior" not in got and got.get("symptom") != "unstable", got
    assert got.get("nan_location") == location


@pytest.mark.parametrize("text", [
    "the loss goes from 2.3 to nan",
    "the loss jumps from 2.3 to nan after 3 epochs",
    "my targets are between 0 and 5 but the loss goes nan",
    "values range from 0 to 1 and the loss is nan",
    "NaN or Inf appears in the loss",
    "the loss is nan or inf after 3 epochs",
])
def test_a_loss_going_nan_is_still_read(text: str) -> None:
    assert obs(text).get("loss_behavior") == "nan_or_inf"


# -- the speed of a model in use is no slow training -----------------------------------------------------------
@pytest.mark.parametrize("text", [
    "the model answers slowly once deployed",
    "inference is slow in production",
    "prediction is slow on the server",
    "my chatbot replies really slowly to users",
    "predictions are slow once deployed",
])
def test_a_slow_model_in_use_is_inference_speed(text: str) -> None:
    got = obs(text)
    assert got.get("concern") == "inference_speed" and got.get("symptom") != "slow_training", got


@pytest.mark.parametrize(("text", "symptom"), [
    ("training is slow", "slow_training"),
    ("the model is slow to train before I deploy it", "slow_training"),
    ("each epoch is slow but inference is fast", "slow_training"),
    ("the model doesn't answer slowly once deployed", None),
    ("the model never responds slowly in production", None),
])
def test_training_speed_and_denied_slowness(text: str, symptom: str | None) -> None:
    got = obs(text)
    assert got.get("symptom") == symptom, got
    if symptom is None:
        assert got.get("concern") != "inference_speed"


# -- an LR changed, whichever way, just before the trouble -----------------------------------------------------
@pytest.mark.parametrize("text", [
    "I changed the lr and the loss started to diverge",
    "after changing the learning rate the loss went NaN",
    "since I modified the learning rate, training is unstable",
    "I tweaked the learning rate yesterday and now the loss explodes",
    "I adjusted the LR and since then the loss spikes",
    "I raised the lr and the loss started to diverge",
    "after I changed the lr the loss is nan",
])
def test_a_learning_rate_changed_is_the_recent_change(text: str) -> None:
    assert obs(text).get("recent_change") == "learning_rate"
    assert any("learning rate changed" in q for q in confirmations(text))


@pytest.mark.parametrize("text", [
    "I didn't change the lr and the loss goes nan",
    "should I change the learning rate? the loss goes nan",
    "changing the lr didn't help, the loss still goes nan",
    "the scheduler changes the lr every epoch and the loss spikes",
    "I lowered the lr and the loss still goes nan",
])
def test_no_learning_rate_change_from_these(text: str) -> None:
    assert obs(text).get("recent_change") != "learning_rate"


# -- the coarse fallback asks the same status -------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "my network output used to blow up after some hundred iterations",
    "after a while the params on the two ranks differ from each other. I checked, they don't.",
    "after a while the params on the two ranks differ from each other?",
    "I doubt my network output blows up after some hundred iterations",
])
def test_the_coarse_guess_honours_the_clause_status(text: str) -> None:
    assert _guess(text) == {}


def test_the_coarse_guess_still_reads_what_is_stated() -> None:
    assert _guess("after a while the params on the two ranks differ from each other") == \
        {"replicas_in_sync": "diverged"}


# -- a hedge marks a cue's reading as it marks a composed one ----------------------------------------------------
@pytest.mark.parametrize(("text", "name"), [
    ("maybe it is an OOM", "concern"),
    ("I think the problem is CUDA out of memory", "boundary_topic"),
    ("maybe the gradients explode", "symptom"),
])
def test_a_hedged_reading_is_offered_to_confirm_whatever_read_it(text: str, name: str) -> None:
    assert any("unsure" in q and f"({name}=" in q for q in confirmations(text))


def test_a_plain_reading_is_not_offered_as_unsure() -> None:
    assert not any("unsure" in q for q in confirmations("it is an OOM and the gradients explode"))


# -- a crash or an error denied is no crash (the pasted-evidence path asks the same negation) --------------------
@pytest.mark.parametrize("text", [
    "no crash, no nan, the run finished",
    "the run did not crash",
    "no OOM errors",
    "I am not getting any OOM",
    "it never crashed",
])
def test_a_denied_crash_or_error_is_not_read(text):
    assert obs(text).get("symptom") != "crash"
    assert "boundary_topic" not in obs(text)


@pytest.mark.parametrize("text", [
    "it never crashed before but now it crashes at step 100",
    "the kernel crashes, no idea why",
    "I do not know why I get CUDA out of memory",
    "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
])
def test_a_crash_said_beside_a_negation_is_still_read(text):
    assert obs(text).get("symptom") == "crash"


# -- the status of a long text: read from stretches tokenised once, each window the same as on its own ----------
_WORDS = ("the loss is not going down maybe it was nan last week fixed it by clipping but it still explodes i don't "
          "think it overfits val loss rises used to go nan with fp16 lr 3e-4 step 1200 never doubt whether why ( ) "
          "foo() , ; : | solved went away came back now is that normal any idea ? . ! \n 5 % x.y val_loss").split(" ")


@pytest.mark.parametrize("seed", range(6))
def test_a_window_read_from_its_stretch_is_judged_as_on_its_own(seed: int) -> None:
    """Every window's status, read off the stretch's index, equals the status on the window's own token list."""
    import random

    from expert.talk import clause_status

    rng = random.Random(seed)
    punctuated = seed % 2 == 0  # (odd seeds: one long sentence, cut into windows mid-clause)
    words = [w for w in (rng.choice(_WORDS) for _ in range(1500)) if punctuated or w not in {".", "!", "?", "\n"}]
    text = " ".join(words).replace("  ", "", seed)
    status = ClauseStatus(text)
    for _ in range(400):
        start = rng.randrange(len(text))
        end = min(len(text), start + rng.randint(1, 20))
        hedge, negatable = rng.random() < 0.5, rng.random() < 0.7
        tokens, i, j = status.window(start, end)
        own = STATED if i >= len(tokens) or tokens[i].start >= end else \
            clause_status(list(tokens), i, j, hedge=hedge, negatable=negatable)
        assert status.of(start, end, hedge, negatable) == own, (text[max(0, start - 60):end + 60], start, end)


def test_the_status_of_a_word_far_into_a_long_line_sees_only_its_window() -> None:
    """A relapse or a hedge kilobytes before, in the same unpunctuated line, is out of reach; nearby, it counts."""
    tail = "the loss was nan fixed it by clipping"
    for opening, near in (("the loss still goes up ", "stated"), ("maybe the loss goes up ", "hedged")):
        far = opening + "step 1 loss 2 is nan " * 400 + tail
        assert ClauseStatus(far).of(far.rindex("nan"), far.rindex("nan") + 3, hedge=True) == PAST
        text = opening + "the loss is nan"
        assert ClauseStatus(text).of(text.rindex("nan"), text.rindex("nan") + 3, hedge=True) == near
