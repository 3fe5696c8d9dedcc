"""Review fixes: the FSDP optimizer-order cue, the ViT-from-scratch cues, thresholds in the table, shared sets."""

from __future__ import annotations

import pytest

import expert  # noqa: F401  (the experta shim before anything imports experta)
from knowledge.measurements import MEASURE_BY_ID, threshold
from tests.reading import assert_reads, obs

# --- 1. the optimizer made before FSDP wraps the model ----------------------------------------------------------


@pytest.mark.parametrize("text", [
    "I create the optimizer before wrapping the model in FSDP",
    "we build the optimizer before sharding the model with FSDP",
    "I initialize the optimizer before FSDP",
    "I created the optimizer before FSDP wrapping and the loss is flat",
    "the optimizer is created before FSDP wrapping",
    "I wrapped the model in FSDP after creating the optimizer",
])
def test_fsdp_optimizer_order_read(text: str) -> None:
    assert_reads(text, {"optimizer_params": "stale"})


@pytest.mark.parametrize("text", [
    "the optimizer is never created before FSDP wrapping",
    "the optimizer was not created before FSDP wrapping",
    "I do not create the optimizer before FSDP",
    "is it a problem if the optimizer is created before FSDP?",
    "should I create the optimizer before FSDP?",
    "I defined the optimizer after wrapping in FSDP",
])
def test_fsdp_optimizer_order_not_read(text: str) -> None:
    assert obs(text).get("optimizer_params") is None


# --- 2. a vision transformer from scratch on small images scoring poorly ----------------------------------------


@pytest.mark.parametrize("text", [
    "I trained a ViT from scratch on CIFAR-10 and it only gets around 60%",
    "a ViT on Tiny-ImageNet from scratch (pretrained=False) stays around 7%",
    "my ViT from scratch on CIFAR-10 is stuck at about 70% accuracy",
])
def test_vit_scratch_poor_read(text: str) -> None:
    assert_reads(text, {"concern": "architecture_choice"})


@pytest.mark.parametrize("text", [
    "I trained a ViT from scratch on CIFAR-10 and it gets around 95%, is that normal?",
    "ViT from scratch on CIFAR-10, loss is low, 95% accuracy",
    "I fine-tuned a pretrained ViT on CIFAR-10, a ResNet from scratch only gets 60%",
    "my fine-tuned ViT is far below the ~99% the paper reports on CIFAR-10",
])
def test_vit_scratch_good_or_pretrained_not_read(text: str) -> None:
    assert obs(text).get("concern") is None


def test_poor_percent_cap_is_sourced() -> None:
    m = MEASURE_BY_ID["MT-VIT-POOR-PCT"]
    assert m.source and 50 < m.value < 100


# --- 3. thresholds from the table ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mid", ["MT-CHANCE-LOSS-MAX", "MT-CHANCE-ROUND-MAX", "MT-CHANCE-FINE-MAX", "MT-FLAT-SERIES",
                                 "MT-FLAT-FLOOR", "MT-FLAT-DECIMALS", "MT-COMPARATIVE-SLIP-MIN"])
def test_thresholds_in_table(mid: str) -> None:
    assert MEASURE_BY_ID[mid].source


def test_chance_counts_from_table() -> None:
    from expert.text import _chance_counts

    assert _chance_counts(2) == (2, 10, 100, 1000)
    assert _chance_counts(3) == tuple(range(2, int(threshold("MT-CHANCE-FINE-MAX")) + 1)) + (100, 1000)


@pytest.mark.parametrize("text, k", [("loss stuck at 2.3026 every epoch", 10), ("loss stays at 1.099", 3),
                                     ("loss: 4.605 4.604 4.605 4.605", 100)])
def test_chance_classes_still_read(text: str, k: int) -> None:
    assert_reads(text, {"num_classes": k})


def test_chance_not_read_for_mse_or_two_decimal_odd_count() -> None:
    assert obs("MSE stuck around 80000").get("loss_at_init") is None
    assert obs("loss stuck at 1.10").get("num_classes") is None


def test_flat_values_helper() -> None:
    from expert.talk import flat_values

    assert flat_values([2.31, 2.30, 2.30, 2.30])
    assert not flat_values([0.012, 0.011, 0.011])  # under the floor: a converged loss
    assert not flat_values([2.3, 2.0, 1.8])


# --- 4. one set each --------------------------------------------------------------------------------------------------


def test_shared_sets() -> None:
    import expert.talk as T
    import expert.text as X
    from knowledge.talk import TIME_UNITS
    from knowledge.vocabulary import VOCABULARY

    assert TIME_UNITS <= T._VALUE_UNITS and {"seconds", "gb", "it/s"} <= T._VALUE_UNITS
    assert T._COMPARATIVES - {"high", "low"} <= set(T._COMPARE)
    assert X._CLASS_TASKS < set(VOCABULARY["task"].choices) and "regression" not in X._CLASS_TASKS
