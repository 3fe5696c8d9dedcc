"""expert.nlp: spelling normalisation with a way back to the original, and the linear-time cue scanner."""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from expert.nlp import Scanner, literal_prefixes, normalise
from expert.text import parse_complaint
from knowledge import all_keywords


def test_normalise_spellings_and_compounds_keeps_the_original_phrase() -> None:
    n = normalise("My Optimiser's behaviour is over-fitting after warm-up;   labelled data, analyse it")
    assert n.text == "my optimizer's behavior is overfitting after warmup; labeled data, analyze it"
    i = n.text.index("labeled data")
    assert n.source(i, i + len("labeled data")) == "labelled data"
    j = n.text.index("behavior")
    assert n.source(j, j + len("behavior")) == "behaviour"


def test_normalise_leaves_unlisted_words_alone() -> None:
    # "raise", "noise", "precise" end like British -ise verbs but are not; "all" is no doubled-l verb
    assert normalise("raise the noise, precise, all well").text == "raise the noise, precise, all well"




def _naive(patterns: list[str], text: str) -> list[tuple[int, int, int]]:
    out = []
    for i, p in enumerate(patterns):
        for m in re.finditer(rf"(?<!\w)(?:{p})(?!\w)", text, re.IGNORECASE):
            if m.end() > m.start():
                out.append((i, m.start(), m.end()))
    return sorted(out)


_WORDS = st.sampled_from(["nan", "not", "no", "slow", "loss", "lr", "3e-4", "gpu", "util", "35%", "overfitting",
                          "stuck", "lion", "should", "i", "use", "which", "optimizer", "train", "acc", "99%", "val",
                          "batch", "size", "10k", "examples", ",", ".", "and", "but", "fp16", "isn't", "µp", "zero-3",
                          "cuda", "out", "of", "memory", "ddp", "hangs", "after", "epoch", "10", "inf", "w&b"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORDS, max_size=30).map(" ".join))
def test_scanner_finds_what_finditer_finds(text: str) -> None:
    patterns = [k.pattern for k in all_keywords()]
    got = sorted((i, m.start(), m.end()) for i, m in Scanner(patterns).scan(text))
    assert got == _naive(patterns, text)


def test_literal_prefixes() -> None:
    assert literal_prefixes(r"stuck|flat(?:\s+loss)?|no\s+progress") == {"stu", "fla", "no"}
    assert literal_prefixes(r"nans?|inf") == {"nan", "inf"}
    assert literal_prefixes(r"\w+ing") is None  # may start anywhere: scanned the ordinary way
    assert literal_prefixes(r"x?") is None  # may match the empty string


def test_a_megabyte_parses_in_linear_time() -> None:
    parse_complaint("warm up")  # build the cue tables outside the timing
    unit = "the loss is fine and training went ok, nothing to see here. lr 3e-4 with adam, NaN after 3 epochs. "
    small, big = unit * 1200, unit * 12000  # ~120 kB and ~1.2 MB
    t = time.perf_counter()
    parse_complaint(small)
    t_small = time.perf_counter() - t
    t = time.perf_counter()
    found = {o.name: o.value for o in parse_complaint(big)}
    t_big = time.perf_counter() - t
    assert found["learning_rate"] == 3e-4 and found["loss_behavior"] == "nan_or_inf"
    # ten times the text may cost at most ~20 times the time (linear, with slack for a loaded machine; the
    # quadratic parser took ~100 times); the absolute bound only catches a gross regression on a shared core
    assert t_big < max(20 * t_small, 0.5) and t_big < 15.0
