"""The coarse reading: when nothing else is understood, a tentative symptom family from general words, or nothing."""

from __future__ import annotations

import pytest

from expert.text import confirmations, parse_complaint, read_text


def _guess(text: str) -> dict[str, object]:
    """What the text reader read, keeping only the readings it marked as guesses."""
    return {r.observation.name: r.observation.value for r in read_text(text)
            if r.weak and r.observation.source.endswith("(a guess)")}


@pytest.mark.parametrize(("text", "name", "value"), [
    ("my network output blows up after some hundred iterations", "symptom", "unstable"),
    ("the weights become huge after a few epochs", "symptom", "unstable"),
    ("whatever I feed it the model always says cat", "symptom", "not_learning"),
    ("the decoder layers still do not train even though I unfroze them", "symptom", "not_learning"),
    ("each label seems to belong to the next photo in my training data", "label_check", "misaligned"),
    ("the training throws something about shapes", "symptom", "crash"),
    ("each epoch takes three hours on a single v100", "symptom", "slow_training"),
    ("the model is huge and does not fit on my card", "concern", "cuda_oom"),
    ("after a while the params on the two ranks differ from each other", "replicas_in_sync", "diverged"),
    ("prediction latency of the deployed network is high", "concern", "inference_speed"),
])
def test_a_training_complaint_nothing_else_reads_gets_a_tentative_family(text: str, name: str, value: str) -> None:
    assert _guess(text) == {name: value}
    # the guess is shown as one, and a question asks whether it is right
    assert any("guessed" in q and name in q for q in confirmations(text))


@pytest.mark.parametrize("text", [
    "what is the weather like in paris tomorrow, my flight keeps getting delayed",  # off topic
    "the model output looks fine, no nan, nothing blows up",  # a healthy run
    "the model output never blows up after warmup",  # negated
    "each epoch takes about three hours and the results look good",  # a healthy run, its time only quoted
    "my loss function is the same as the one in the paper",  # "same" names the function, no stall
    "what does the mean squared error column of the model log show",  # a metric's name, no error raised
    "how do I load a checkpoint into the model with a different number of classes",  # an API question
    "my cat knocked the labels off the jars and they do not match anymore",  # labels, but no training words
])
def test_no_guess_without_a_training_complaint(text: str) -> None:
    assert _guess(text) == {}


def test_several_families_ask_instead_of_guessing() -> None:
    text = "my model output blows up and it is sluggish"
    assert parse_complaint(text) == []
    asked = " ".join(confirmations(text))
    assert "instability" in asked and "slow training" in asked


def test_the_guess_never_overrides_what_the_reader_understood() -> None:
    # the reader reads this one (a stated NaN); the coarse words for slowness beside it add nothing
    readings = read_text("the loss is nan after 3 epochs and training is slow")
    assert not any(r.observation.source.endswith("(a guess)") for r in readings)


@pytest.mark.parametrize(("text", "name", "value"), [
    ("image/label mismatch in the dataset, sample 4 has the class of sample 5", "label_check", "misaligned"),
    ("my labels are no longer paired with their images since I sorted one list", "label_check", "misaligned"),
    ("how do I get my model faster at inference time, latency has to be low", "concern", "inference_speed"),
])
def test_what_the_lexicon_reads_is_read_for_sure_and_not_guessed(text: str, name: str, value: str) -> None:
    readings = read_text(text)
    assert {r.observation.name: r.observation.value for r in readings}.get(name) == value
    assert not _guess(text)


def test_a_long_unread_text_is_read_quickly_and_never_raises() -> None:
    import time

    text = "zz qq model blows? up\x00 ' '' ... \n" * 40_000
    start = time.process_time()  # CPU time: load on a shared machine is no slowness of ours
    parse_complaint(text)
    assert time.process_time() - start < 5.0
