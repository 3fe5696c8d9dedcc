"""What the user only suspects: kept through a saved report, marked suspected until confirmed, dropped on a `no`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from expert import Consultation
from expert.cli import cli

ASKED = "my loss is flat from the start. could it be that I use a softmax before CrossEntropyLoss?"
"""A trouble and a cause only asked about (offered, not read)."""

SUSPECTED = "loss is flat from the start, maybe the lr is too low?"
"""A trouble and a setting suspected beside it (read as ``self_diagnosis``)."""


def _unsuspected_question(observations: dict) -> str:
    """The first question for these observations declared outright, with no hypothesis to check first."""
    plain = Consultation()
    plain.observe(**{k: v["value"] if isinstance(v, dict) else v for k, v in observations.items()})
    return plain.question.id


def _first_question_why(c: Consultation) -> str:
    return str([f for f in c.trace if f["kind"] == "question"][-1])


def test_a_saved_report_keeps_the_hypotheses_and_the_next_question() -> None:
    for text, first in ((ASKED, "Q-OUTPUT-ACT"), (SUSPECTED, "Q-LR")):
        c = Consultation()
        c.complain(text)
        report = c.to_json()
        assert c.question.id == first and report["suspected"], text
        back = Consultation.from_json(json.dumps(report))
        assert back.question.id == first, text
        assert back.to_json()["suspected"] == report["suspected"], text
        assert back.complaints == c.complaints == [text]
        # the whole report reads back unchanged: nothing the report holds is lost on the way
        assert back.to_json() == report, text


def test_a_saved_report_with_a_bad_suspected_list_is_refused() -> None:
    from knowledge.errors import InputError

    c = Consultation()
    c.complain(ASKED)
    report = c.to_json()
    for bad in ({"name": "output_activation"}, "softmax", {"name": "output_activation", "value": "softmax",
                                                           "source": "guess"}):
        with pytest.raises(InputError):
            Consultation.from_json({**report, "suspected": [bad]})


def test_a_hypothesis_is_marked_suspected_until_the_user_confirms_it() -> None:
    c = Consultation()
    c.complain(ASKED)
    [s] = c.suspects
    assert s.source.endswith("(suspected)") and "(confirmed)" not in s.source
    [o] = c.confirm()
    assert o.source.endswith("(confirmed)") and "(suspected)" not in o.source
    assert c.observations["output_activation"] == o and not c.suspects


def test_repl_no_drops_the_hypothesis_and_its_priority() -> None:
    """A `no` at the check prompt drops the suspicion: not listed, not asked first, and the user is told."""
    keep = CliRunner().invoke(cli, ["consult", "--format", "json"], input=f"{ASKED}\n\nquit\n")
    result = CliRunner().invoke(cli, ["consult", "--format", "json"], input=f"{ASKED}\nno\nquit\n")
    assert "check: You asked about" in result.output
    assert "dropped what you suspected: output_activation=softmax" in result.output
    assert "press Enter to keep the reading" not in result.output
    report = json.loads(result.output[result.output.index("{"):])
    assert "suspected" not in report and "output_activation" not in report["observations"]
    # its priority is gone: the question is the one the same observations get with nothing suspected (the chooser
    # may still pick the output question on its own merits, the loss being cross-entropy)
    assert report["question"]["id"] == _unsuspected_question(report["observations"])
    assert "what you suspect" not in json.dumps(report["trace"])
    # with Enter instead the hypothesis stays, and is still checked first
    kept = json.loads(keep.output[keep.output.index("{"):])
    assert [s["name"] for s in kept["suspected"]] == ["output_activation"]
    assert kept["question"]["id"] == "Q-OUTPUT-ACT"


def test_repl_no_drops_a_suspected_setting() -> None:
    result = CliRunner().invoke(cli, ["consult", "--format", "json"], input=f"{SUSPECTED}\nno\nquit\n")
    assert "dropped what you suspected: self_diagnosis=learning rate" in result.output
    report = json.loads(result.output[result.output.index("{"):])
    assert "suspected" not in report and "self_diagnosis" not in report["observations"]
    assert "what you suspect" not in json.dumps(report["trace"])


def test_repl_yes_records_the_hypothesis_as_confirmed() -> None:
    result = CliRunner().invoke(cli, ["consult", "--format", "json"], input=f"{ASKED}\nyes\nquit\n")
    report = json.loads(result.output[result.output.index("{"):])
    assert report["observations"]["output_activation"]["source"].endswith("(confirmed)")
    assert "suspected" not in report


def test_a_dismissed_hypothesis_comes_back_with_back() -> None:
    c = Consultation()
    c.complain(ASKED)
    assert [o.name for o in c.dismiss()] == ["output_activation"]
    assert not c.suspects and c.question.id == _unsuspected_question({k: o.value for k, o in c.observations.items()})
    assert c.back()["kind"] == "dismiss"
    assert [o.name for o in c.suspects] == ["output_activation"] and c.question.id == "Q-OUTPUT-ACT"


def test_a_suspected_setting_is_listed_as_suspected_and_checked_first() -> None:
    c = Consultation()
    c.complain(SUSPECTED)
    assert c.question.id == "Q-LR" and "what you suspect" in _first_question_why(c)
    assert [(s["name"], s["value"]) for s in c.to_json()["suspected"]] == [("self_diagnosis", "learning rate")]
    # forgetting the suspicion drops its priority too
    c.forget("self_diagnosis")
    assert "suspected" not in c.to_json() and "what you suspect" not in _first_question_why(c)


def test_a_dismissed_suspicion_loses_its_priority() -> None:
    """Kept, a suspected setting is checked first; dismissed, the question is the unsuspected one."""
    c = Consultation()
    c.complain(SUSPECTED)
    kept = c.question.id
    c.dismiss()
    assert c.question.id == _unsuspected_question({k: o.value for k, o in c.observations.items()}) != kept
