"""Review x27d: a correct multi-GPU metric is no finding, the 1/N symptom asks the denominator, augmentation is
asked where it is standard, a saved hypothesis must be the user's words."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from expert import Consultation
from expert.cli import cli


def _questions(text: str) -> tuple[list[str], object]:
    """The questions asked after a complaint, each declined in turn, and the final diagnosis."""
    c = Consultation()
    c.complain(text)
    d = c.run()
    asked: list[str] = []
    while d.question is not None and len(asked) < 20:
        asked.append(d.question.id)
        c.decline(d.question.id)
        d = c.run()
    return asked, d


@pytest.mark.parametrize("text", [
    "in DDP I all_reduce the correct counts across ranks and then divide by len(dataset), accuracy matches single gpu",
    "with 4 GPUs I gather all predictions to rank 0 and divide by len(dataset)",
    "On 8 GPUs I divide by len(val_dataset) after dist.all_reduce of the correct count.",
    "with DDP I divide the correct count by len(dataset). The accuracy matches the single GPU run.",
])
def test_a_reduced_count_over_the_dataset_is_no_metric_finding(text: str) -> None:
    c = Consultation()
    c.complain(text)
    d = c.run()
    assert c.observations["multi_gpu"].value is True
    assert c.observations["metric_denominator"].value == "rank_count"
    assert "DD-METRIC-01" not in [f["id"] for f in d.findings]


@pytest.mark.parametrize("text", [
    "with 4 GPUs I gather all predictions to rank 0 and divide by len(dataset)",
    "I gather all predictions on rank 0 before computing the accuracy",
])
def test_predictions_gathered_to_rank_0_are_no_constant_prediction(text: str) -> None:
    c = Consultation()
    c.complain(text)
    assert "predictions_constant" not in c.observations


@pytest.mark.parametrize("text", [
    "it always predicts the majority class",
    "the model only ever predicts class 0",
])
def test_one_class_for_everything_still_reads(text: str) -> None:
    c = Consultation()
    c.complain(text)
    assert c.observations["predictions_constant"].value is True


def test_a_per_rank_count_over_the_dataset_still_reads() -> None:
    c = Consultation()
    c.complain("DDP on 4 GPUs: I count correct predictions per batch and divide by len(train_dataset).")
    assert "DD-METRIC-01" in [f["id"] for f in c.run().findings]


@pytest.mark.parametrize("text", [
    "my validation accuracy on 4 gpus is exactly 1/4 of what I get on one gpu",
    "with DDP the val acc on 8 gpus is 8x lower than on one gpu",
])
def test_a_metric_lower_by_the_gpu_count_suspects_the_denominator_and_asks_it(text: str) -> None:
    asked, d = _questions(text)
    assert "Q-METRIC-DENOM" in asked
    assert d.tentative == "DD-SUS-METRIC" and d.plan[0] == "training-loop-architecture"


def test_answering_the_denominator_turns_the_lead_into_the_cause() -> None:
    c = Consultation()
    c.complain("my validation accuracy on 4 gpus is exactly 1/4 of what I get on one gpu")
    c.answer("Q-METRIC-DENOM", "dataset_size")
    d = c.run()
    assert d.primary_cause == "DD-METRIC-01" and "DD-SUS-METRIC" not in [f["id"] for f in d.findings]


@pytest.mark.parametrize("text", ["the loss is 4 times lower with 4 gpus", "my accuracy is 1/4 of the paper's"])
def test_a_ratio_without_a_multi_gpu_metric_is_no_lead(text: str) -> None:
    c = Consultation()
    c.complain(text)
    assert "metric_world_ratio" not in c.observations or "multi_gpu" not in c.observations
    assert "DD-SUS-METRIC" not in [f["id"] for f in c.run().findings]


@pytest.mark.parametrize("text", ["my LSTM for stock prices overfits",
                                  "my MLP on tabular features overfits",
                                  "my regression on sensor readings overfits"])
def test_augmentation_is_not_asked_where_it_barely_applies(text: str) -> None:
    asked, _ = _questions(text)
    assert "Q-AUG-OVF" not in asked


@pytest.mark.parametrize("text", ["My ResNet overfits on a small image dataset",
                                  "my ViT regression of age from face photos overfits"])
def test_augmentation_is_asked_where_it_is_standard(text: str) -> None:
    asked, _ = _questions(text)
    assert "Q-AUG-OVF" in asked


def test_a_saved_suspicion_from_an_answer_is_refused_by_the_cli(tmp_path) -> None:
    c = Consultation()
    c.complain("could it be the softmax before CrossEntropyLoss? the loss is stuck")
    report = c.to_json()
    assert report["suspected"][0]["source"].startswith("text:")  # what a saved report holds
    report["suspected"] = [{**report["suspected"][0], "source": "answer:Q-LR"}]
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    r = CliRunner().invoke(cli, ["diagnose", str(path)])
    assert r.exit_code == 2
    assert "bad 'suspected' entry" in r.stderr and "must be 'text:" in r.stderr
