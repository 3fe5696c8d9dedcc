"""A model that scores far worse once saved and loaded again (issue 17): the reading, where it must stay silent, and
the cause it evidences (what the load restores, ahead of the symptom's defaults). The sentences are new."""

from __future__ import annotations

import pytest

import expert  # noqa: F401 - the experta shim comes first
from expert import Consultation
from tests.reading import assert_reads


@pytest.mark.parametrize("text, expected", [
    ("after loading the saved model with load_state_dict the accuracy drops to chance", {"reload_metric_drop": True}),
    ("we saved it, loaded it again and the f1 is far worse than in training", {"reload_metric_drop": True}),
    ("after saving and reloading the adapter the predictions look random", {"reload_metric_drop": True}),
    ("restored the checkpoint for evaluation and the score is terrible", {"reload_metric_drop": True}),
    # a reload said not to hurt, data loading, GPU load, pretrained weights to start from, a question of how to load
    ("after reloading the model the accuracy does not drop", {"reload_metric_drop": None}),
    ("data loading is slow and the model accuracy is low", {"reload_metric_drop": None}),
    ("GPU load is low and model accuracy is bad", {"reload_metric_drop": None}),
    ("I load the pretrained resnet weights and the accuracy is low", {"reload_metric_drop": None}),
    ("how do I load a checkpoint without the accuracy dropping", {"reload_metric_drop": None}),
    ("the accuracy after loading the checkpoint is the same as before saving", {"reload_metric_drop": None}),
])
def test_a_metric_that_falls_after_a_reload_is_read(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_a_reload_drop_leads_with_what_the_load_restores() -> None:
    """The complaint alone, every question declined: the save/load path leads, not the LR default of "not learning"."""
    c = Consultation()
    c.complain("my classifier reached 92% accuracy in training, but after saving it and loading it again the "
               "accuracy is at chance")
    d = c.run()
    while d.question is not None:
        c.decline(d.question.id)
        d = c.run()
    assert d.plan[:2] == ["pytorch-engineering", "training-loop-architecture"]
    assert [f["id"] for f in d.findings][:1] == ["LP-RELOAD-01"]


def test_without_the_reload_the_cause_is_silent() -> None:
    c = Consultation()
    c.complain("my classifier reached 92% accuracy in training but the test accuracy is at chance")
    d = c.run()
    assert "LP-RELOAD-01" not in [f["id"] for f in d.findings]


def test_the_mode_said_wrong_explains_the_reload_drop() -> None:
    """A reloaded model validated in train mode: the mode is the more specific cause and leads on its own."""
    c = Consultation()
    c.observe(symptom="not_learning", reload_metric_drop=True, mode_switching="validates_in_train_mode")
    d = c.run()
    assert [f["id"] for f in d.findings] == ["LP-MODE-02"]
    assert d.plan[0] == "training-loop-architecture"


@pytest.mark.parametrize("text, expected", [
    ("the accuracy is very low unless I call model.eval() first", {"mode_switching": "validates_in_train_mode"}),
    ("the f1 stays bad until I switch the model to eval mode", {"mode_switching": "validates_in_train_mode"}),
    # a metric low until some point of training, or until a setting changes, says nothing of the mode
    ("the eval accuracy is low until epoch 10", {"mode_switching": None}),
    ("eval loss is bad until I lower the lr", {"mode_switching": None}),
])
def test_a_metric_bad_unless_eval_is_called_is_the_mode(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_a_reload_drop_that_eval_cures_leads_with_the_mode() -> None:
    c = Consultation()
    c.complain("I load my model from the checkpoint in another script and the accuracy is very low unless I call "
               "model.eval() first")
    d = c.run()
    while d.question is not None:
        c.decline(d.question.id)
        d = c.run()
    assert d.plan[0] == "training-loop-architecture"
    assert "LP-RELOAD-01" not in [f["id"] for f in d.findings]
