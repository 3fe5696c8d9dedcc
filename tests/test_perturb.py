"""Robustness of the complaint reader to user noise (issue 19): typos, flat text, abbreviations, spellings.

A small fixed sample of the phrasing suite's dev phrasings (never the held-back ones) is perturbed by each kind of
``bench.perturb`` and read again; the recall must stay above a floor per kind, so a change that makes the reader
brittle to the words people really type fails here rather than silently.
"""

from __future__ import annotations

import pytest

from bench.perturb import KINDS, dev_phrasings, fact_recall, perturb
from expert.text import parse_complaint

SAMPLE_EVERY = 25
"""Every this-many-th dev phrasing is in the sample (about 70 phrasings: the test stays within a few seconds)."""
SEED = 0

# recall on the sample (seed 0), measured after issue 19's slip correction, less two points for small changes; the
# reader before it read 0.819 of the typo sample
FLOORS = {"clean": 0.93, "typo": 0.84, "flat": 0.89, "abbrev": 0.92, "spelling": 0.93, "terse": 0.90,
          "inflect": 0.88}


@pytest.fixture(scope="module")
def sample():
    return dev_phrasings()[::SAMPLE_EVERY]


def test_sample_is_dev_only_and_deterministic(sample):
    assert all(p.split == "dev" for p in sample)
    assert len(sample) >= 50
    for kind in KINDS:
        once = [perturb(p, kind, SEED).text for p in sample]
        assert once == [perturb(p, kind, SEED).text for p in sample]
        assert sum(a != p.text for a, p in zip(once, sample)) >= 2, kind  # the kind changes something


@pytest.mark.parametrize("kind", ["clean", *KINDS])
def test_recall_under_noise_stays_above_floor(sample, kind):
    phrasings = sample if kind == "clean" else [perturb(p, kind, SEED) for p in sample]
    assert fact_recall(phrasings) >= FLOORS[kind]


@pytest.mark.parametrize("text, name, value", [
    ("Expeted all tensors to be on the same device, cuda:0 and cpu", "boundary_topic", "device_mismatch"),
    ("my trainng loss explodse after a few iteratoins", "loss_behavior", None),
    ("training w/o warmup, loss explodes at step 10", "warmup", False),  # "w/o" is "without", not "with"
])
def test_slips_and_shorthands_read_as_meant(text, name, value):
    got = {o.name: o.value for o in parse_complaint(text)}
    assert name in got and (value is None or got[name] == value), got


@pytest.mark.parametrize("text", [
    "the columns of my vector are constantly evaluated by the presenter",
    "unscaled photos look prettier on the projector",
])
def test_real_words_are_not_corrected_into_readings(text):
    assert parse_complaint(text) == []
