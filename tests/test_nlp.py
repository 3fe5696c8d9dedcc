"""expert.nlp: spelling normalisation with a way back to the original, and the linear-time cue scanner."""

from __future__ import annotations

import random
import re
from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from expert.nlp import (
    IGNORECASE_FOLDS,
    NUMBER_KEYED_CHARS,
    PREFIXED_CHARS,
    REQUIREMENT_CHARS,
    Scanner,
    _prefix_finders,
    finditer_prefixed,
    holds,
    literal_prefixes,
    lower_aligned,
    normalise,
    number_key,
    number_prefixes,
    required_tree,
    required_words,
    word_led_prefixes,
)
from expert.text import CUE_CAP, distinct_segments, parse_complaint
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




@lru_cache(maxsize=1)
def _scanner() -> Scanner:
    return Scanner([k.pattern for k in all_keywords()])


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
                          "cuda", "out", "of", "memory", "ddp", "hangs", "after", "epoch", "10", "inf", "w&b",
                          "classes", "gpus", "4", "samples", "İs", "ſlow", "lr=3e-4", "grad", "accum", "--accumulate"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORDS, max_size=30).map(" ".join))
def test_scanner_finds_what_finditer_finds(text: str) -> None:
    patterns = [k.pattern for k in all_keywords()]
    got = sorted((i, m.start(), m.end()) for i, m in _scanner().scan(text))
    assert got == _naive(patterns, text)


def test_literal_prefixes() -> None:
    assert literal_prefixes(r"stuck|flat(?:\s+loss)?|no\s+progress") == {"stu", "fla", "no"}
    assert literal_prefixes(r"nans?|inf") == {"nan", "inf"}
    assert literal_prefixes(r"\w+ing") is None  # may start anywhere: scanned the ordinary way
    assert literal_prefixes(r"x?") is None  # may match the empty string


def test_required_words() -> None:
    assert required_words(r"(?P<v>\d+)[\s-]+classes") == {"classes"}
    assert required_words(r"optimi[sz]ers?|adamw?") == {"optimisers", "optimizers", "optimiser", "optimizer",
                                                          "adam", "adamw"}
    assert required_words(r"(?:[2-9]|\d\d+)\s*(?:x\s*)?gpus") == {"gpus"}
    assert required_words(r"nan|\w+ing") == {"nan", "ing"}
    assert required_words(r"nan|\w+") is None  # one alternative requires no word: always tried
    assert required_words(r"multiple\s+gpus") in ({"multiple"}, {"gpus"})
    assert literal_prefixes(r"--accum\w*|grad") == {"--a", "gra"}  # found by search, not the word index


def test_every_cue_that_requires_words_matches_only_where_they_occur() -> None:
    """Soundness of skipping: each cue, written out, holds one of its required words (checked on samples)."""
    for k in all_keywords():
        words = required_words(k.pattern)
        if words is None:
            continue
        for sample in ("loss is nan", "10 classes", "4 gpus", "lr=3e-4", "zero_grad", "fp16 amp"):
            for m in re.finditer(rf"(?<!\w)(?:{k.pattern})(?!\w)", sample, re.IGNORECASE):
                assert any(w in m.group(0).lower() for w in words), (k.pattern, sample)


def test_required_tree_keeps_every_requirement_and_each_alternative_apart() -> None:
    cue = r"\bloss\b[^.!?\n]{0,30}?\b(?:is|goes)\s+(?:below|under)\s+zero|(?:one|each)\s+of\s+them\s+dominates?"
    tree = required_tree(cue)

    def said(text: str) -> bool:
        return holds(tree, text.__contains__, text.__contains__)

    assert said("the loss is below zero") and said("each of them dominates")
    # (each alternative is whole: "loss" from one and "dominates" from the other is neither)
    assert not said("the loss is nan again") and not said("loss dominates the curve")
    assert required_tree(r"nan|\w+") is None  # one alternative requires nothing known: always tried
    # (a string with no word character is looked for whole: the minus of a negative loss)
    negative = required_tree(r"loss\s+is\s+-\s*\d")
    assert holds(negative, "loss is -3".__contains__, "loss is -3".__contains__)
    assert not holds(negative, "loss is 3".__contains__, "loss is 3".__contains__)
    assert holds(None, "".__contains__, "".__contains__)


def test_every_cue_match_holds_all_its_requirements() -> None:
    """Soundness of the long-text skip: each cue's match, as text, holds all its ``required_tree`` asks."""
    samples = ("loss is nan", "10 classes", "4 gpus", "lr=3e-4", "zero_grad", "fp16 amp", "the loss is below zero",
               "my loss goes negative after 3 epochs", "one of the losses dominates the total",
               "reduction='sum' in the loss", "val loss 0.3 while train loss 0.1", "8 x a100 and 2 task heads")
    for k in all_keywords():
        tree = required_tree(k.pattern)
        for sample in samples:
            for m in re.finditer(rf"(?<!\w)(?:{k.pattern})(?!\w)", sample, re.IGNORECASE):
                low = m.group(0).lower()
                assert holds(tree, low.__contains__, low.__contains__), (k.pattern, sample)


def test_a_long_log_skips_a_cue_missing_a_word_and_finds_it_when_said() -> None:
    """A log naming the loss on every line: a cue of the loss going below zero is not tried at each "loss"."""
    cue = r"\bloss\b[^.!?\n]{0,30}?\b(?:is|goes)\s+(?:below|under)\s+zero"
    scanner = Scanner([cue])
    log = "step 12 | the loss is nan again\n" * (REQUIREMENT_CHARS // 30)
    assert list(scanner.scan(log)) == [] and scanner.attempts == 0
    found = [m.group(0) for _i, m in scanner.scan(log + "and now the loss is below zero")]
    assert found == ["loss is below zero"] and scanner.attempts > 0


def test_cues_in_a_text_long_enough_to_test_all_requirements_are_found_as_finditer_finds() -> None:
    rnd = random.Random(23)
    said = ["the loss is below zero", "loss goes under zero", "one of the losses dominates", "reduction='sum'",
            "val loss 0.3 while train loss 0.1", "8 x a100", "loss is nan", "grad norm explodes", "lr=3e-4",
            "training is slow", "cuda out of memory", "step 12 | loss: 0.25", "overfitting after epoch 3"]
    words: list[str] = []
    while sum(map(len, words)) < REQUIREMENT_CHARS + 1_000:
        words.append(rnd.choice(said) + rnd.choice([" ", ". ", ", ", "\n", " and "]))
    text = normalise("".join(words)).text
    assert len(text) >= REQUIREMENT_CHARS
    got = sorted((i, m.start(), m.end()) for i, m in _scanner().scan(text))
    assert len(got) > 500
    assert got == _naive([k.pattern for k in all_keywords()], text)


def test_ignorecase_folds_are_all_the_non_ascii_twins_of_ascii_letters() -> None:
    twin = re.compile(r"[a-z0-9_]", re.IGNORECASE)
    found = {chr(c): chr(c).lower() if chr(c).lower().isascii() and len(chr(c).lower()) == 1 else None
             for c in range(0x80, 0x110000) if twin.fullmatch(chr(c))}
    for ch in found:
        found[ch] = next(a for a in "abcdefghijklmnopqrstuvwxyz0123456789_"
                         if re.fullmatch(re.escape(a), ch, re.IGNORECASE))
    assert found == IGNORECASE_FOLDS


def test_scanner_finds_folded_letters_as_the_regex_engine_does() -> None:
    patterns = [k.pattern for k in all_keywords()]
    for text in ("loss İs nan", "training is ſlow", "\u212al divergence explodes", "LOSS IS NAN", "µP transfer"):
        got = sorted((i, m.start(), m.end()) for i, m in _scanner().scan(text))
        assert got == _naive(patterns, text), text


def _log(lines: int, offset: int = 0) -> str:
    """A pasted training log: every line distinct (the step and the numbers change), so none is set aside."""
    return "".join(f"epoch {(offset + i) // 100} step {offset + i} loss={(offset + i) % 97 / 10:.3f} "
                   f"lr {(offset + i) % 89 + 1}e-4 grad_norm={(offset + i) % 83 / 7:.4f}\n" for i in range(lines))


def test_scanning_work_is_linear_in_the_text() -> None:
    """A deterministic work count (pattern match attempts), not a timing: ten times the text, ten times the work."""
    scanner = _scanner()
    work = []
    for lines in (300, 3000):
        text = normalise(_log(lines) + "the loss is NaN after warmup, not overfitting. ").text
        assert sum(1 for _ in scanner.scan(text)) > 0
        work.append(scanner.attempts)
    assert 0 < work[1] <= 10.5 * work[0]


def test_the_work_per_cue_is_capped_and_repeats_are_read_once() -> None:
    """Megabyte complaints: a cue matched on every line is read CUE_CAP times; repeated lines are read once."""
    scanner = _scanner()
    one = normalise(_log(2000)).text
    assert sum(1 for _ in scanner.scan(one, cap=CUE_CAP)) <= CUE_CAP * len(all_keywords())
    unit = "the loss is fine and training went ok, nothing to see here. lr 3e-4 with adam, NaN after 3 epochs. "
    assert distinct_segments(unit * 5000).text == distinct_segments(unit).text == unit
    big = unit * 12000  # ~1.2 MB
    found = {o.name: (o.value, o.source) for o in parse_complaint(big)}
    assert found == {o.name: (o.value, o.source) for o in parse_complaint(unit)}
    assert found["learning_rate"] == (3e-4, "text:lr 3e-4") and found["loss_behavior"][0] == "nan_or_inf"


def test_a_repeat_keeps_the_way_back_to_what_was_typed() -> None:
    text = "Loss is fine.\nLoss is fine.\nThe optimiser is AdamW, lr 1e-3.\nLoss is fine.\nmy lr=5e-4 with SGD"
    d = distinct_segments(text)
    assert d.text == "Loss is fine.\nThe optimiser is AdamW, lr 1e-3.\nmy lr=5e-4 with SGD"
    i = d.text.index("my lr")
    assert text[d.offset(i):d.offset(i) + 5] == "my lr"
    assert not d.seamless(d.text.index("fine."), d.text.index("The") + 3)  # the dropped repeat lies between
    assert d.seamless(d.text.index("The"), d.text.index("AdamW"))
    found = {o.name: o.source for o in parse_complaint(text)}
    assert found["optimizer"] == "text:optimiser is AdamW" or "AdamW" in found["optimizer"]
    assert found["learning_rate"] == "text:lr 1e-3"


def test_megabyte_inputs_of_every_kind_parse() -> None:
    """Logs, tracebacks, random words, one giant token, unicode: accepted, and the cues near the end still count."""
    trace = ("Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\n    loss.backward()\n"
             "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    rng = random.Random(7)
    vocab = "loss nan lr adam sgd batch the of gradient overfit slow memory step epoch warmup val accuracy".split()
    for text in (_log(15000) + trace, trace * 8000, " ".join(rng.choice(vocab) for _ in range(200_000)),
                 "x" * 1_000_000 + " loss is nan", "Der Verlust wird NaN ß ﬁ İ ² ½ 损失 … “fp16” " * 20000):
        names = {o.name for o in parse_complaint(text)}
        assert names, text[:80]
    assert "error_text" in {o.name for o in parse_complaint(_log(15000) + trace)}


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("aBİıſK]^-\\ ßﬁΣ损x"), max_size=40))
def test_lower_aligned_keeps_length_and_lowers_the_rest(text: str) -> None:
    low = lower_aligned(text)
    assert len(low) == len(text)
    for c, got in zip(text, low):
        want = c.lower() if len(c.lower()) == 1 else c
        assert got == want or {got, want} <= {"σ", "ς"}  # a final sigma depends on its neighbours


_NUMBER_LED = ["8 gpus", "32 images per gpu", "4x a100", "2 x h100", "16-bit", "8bit adam", "10k steps", "3 ranks",
               "50 more epochs", "95% of the data", "0.5 %", "12 validation samples", "1 gpu", "num_classes=10",
               "3 losses", "2 task heads", "1 hyperparameter", "1,000 images", "3.5k images", "8 3090s", "2 rtx 4090",
               "6 nvidia a100", "7 classes", "16  \n images", "loss 0.3", "step 100", "epoch 2", "lr 1e-4", "9\t gpus"]


def test_number_led_cues_in_a_long_text_are_found_as_finditer_finds() -> None:
    """A long text keys its numbers by what follows them: every match of a cue led by a number is still found."""
    rnd = random.Random(7)
    words: list[str] = []
    while sum(map(len, words)) < NUMBER_KEYED_CHARS + 5_000:
        words.append(rnd.choice(_NUMBER_LED) + rnd.choice([" ", ". ", ", ", "\n", " and ", ""]))
    text = normalise("".join(words)).text
    assert len(text) >= NUMBER_KEYED_CHARS
    got = sorted((i, m.start(), m.end()) for i, m in _scanner().scan(text))
    assert len(got) > 500
    assert got == _naive([k.pattern for k in all_keywords()], text)


def test_number_keys_read_once_per_way_of_writing_stay_each_numbers_own() -> None:
    """Numbers written alike have their key read once (digits as one digit): a number whose key reaches past the
    window read (a long run of digits or blanks), or that ends the text, still gets its own key, and every cue led
    by a number is found at the numbers finditer finds it at."""
    rnd = random.Random(19)
    lead = ["1", "22", "333", "4444", "123456789012345678", "7" * 40]
    tails = [" x h100", "x a100", " gpus", "  \n images per gpu", " losses", " " * 20 + "gpus", " task heads", "-bit",
             "% of the data", " loss 0.3", ""]
    words: list[str] = []
    while sum(map(len, words)) < NUMBER_KEYED_CHARS + 5_000:
        words.append(rnd.choice(lead) + rnd.choice(tails) + rnd.choice([" ", ". ", "\n", " and "]))
    for text in (normalise("".join(words) + "8 x a100").text, normalise("".join(words) + "and 12").text):
        assert len(text) >= NUMBER_KEYED_CHARS
        got = sorted((i, m.start(), m.end()) for i, m in _scanner().scan(text))
        assert len(got) > 200
        assert got == _naive([k.pattern for k in all_keywords()], text)


def test_a_number_led_cue_is_not_tried_at_numbers_followed_by_other_words() -> None:
    """The number keys: "32 images" is a number, a blank, "im..."; a log's "step 10 loss=0.25" is none of the cue's."""
    cue = r"\b(?P<v>\d+)\s+(?:images?|samples?)\s+per\s+gpu"
    keys = number_prefixes(cue)
    assert keys is not None and number_key("32  images per gpu", 0).startswith(keys)
    assert not number_key("32 loss", 0).startswith(keys) and not number_key("32images", 0).startswith(keys)
    assert number_prefixes(r"\w+ 5") is None  # a match may start with a digit it cannot follow
    scanner = Scanner([cue])
    text = normalise(_log(400) + "and 32 images per gpu").text
    assert len(text) >= NUMBER_KEYED_CHARS
    assert [m.group(0) for _i, m in scanner.scan(text)] == ["32 images per gpu"]
    assert scanner.attempts == 1  # (not one attempt per number of the log)


def test_finditer_prefixed_finds_what_finditer_finds() -> None:
    """A long text: the matches tried only at the prefixes' places are finditer's, overlapping places, text before
    a place, upper case and non-ASCII text included; a pattern with one-letter prefixes is searched as it is."""
    from knowledge import talk as K

    rnd = random.Random(11)
    pieces = ["cuda out of memory", "outarget", "OOM", "xoom", "ooms", "device ran out", "gpu runs out", "İ", "ſ",
              "RuntimeError: CUDA Out Of Memory", "the model is on the gpu", "tensors on different devices", "\n",
              "loss 0.25 ", "dev", "tar", "out", " ", ". "]
    words: list[str] = []
    while sum(map(len, words)) < PREFIXED_CHARS + 5_000:
        words.append(rnd.choice(pieces))
    raw = "".join(words)
    patterns = [re.compile(p) for p, _sets in K.ERROR_SIGNATURES] + [
        re.compile(r"(?<!x)oom\w*|outa|tar\w+", re.IGNORECASE), re.compile(r"outx|tar\w+"),
        re.compile(r"(?<=\bthe )model\b[^.\n]{0,40}gpu")]
    for text in (raw, raw.lower(), raw.lower().encode("ascii", "ignore").decode()):
        assert len(text) >= PREFIXED_CHARS
        for p in patterns:
            assert [m.span() for m in finditer_prefixed(p, text)] == [m.span() for m in p.finditer(text)], p.pattern
    assert sum(1 for _ in finditer_prefixed(patterns[-3], raw)) > 100
    assert [m.group(0) for m in finditer_prefixed(patterns[-2], "outarget " * 3_000)][:2] == ["target", "target"]
    assert _prefix_finders(r"\ba\w+|cuda", 0) is None  # (a one-letter prefix: no places to skip to)
    assert _prefix_finders(r"cuda|(?:out)?", 0) is None  # (may match empty)


def test_word_led_cues_in_a_long_text_are_found_as_finditer_finds() -> None:
    r"""A cue led by a word run ('\w*sched', '\w\)?\.log\(\)') is tried on a long text only where it can start: at
    its alternatives' prefixes and at the starts of the word runs before its later prefixes; every match is found."""
    cues = [r"\b\w*sched\w*\.step\(\)\s+outside\s+the\s+loop|warm-?up\s+is\s+\d+\s+steps",
            r"\w\)?\.(?:log|sqrt)\(\)|torch\.log\b", r"\w+-instruct\b|\w*forcausallm\b|llama\w*"]
    assert word_led_prefixes(cues[0]) == (frozenset({"war"}), frozenset({"sch"}))
    assert word_led_prefixes(cues[1]) == (frozenset({"tor"}), frozenset({").l", ").s", ".lo", ".sq"}))
    assert word_led_prefixes(r"\w+\s+crash|cuda") is None  # (a word run then a blank: the cue may start anywhere)
    assert word_led_prefixes(r"\w*") is None
    rnd = random.Random(5)
    pieces = ["my_lr_scheduler.step() outside the loop", "sched.step() outside the loop", "warmup is 500 steps",
              "xsched.step() outside the loop", "x.log()", "y).sqrt()", "ab.log()", "torch.log", "qwen-instruct",
              "autoModelForCausalLM", "llama2", "_forcausallm", "loss 0.3", " ", ". ", "\n", "-", "İ"]
    words: list[str] = []
    while sum(map(len, words)) < NUMBER_KEYED_CHARS + 5_000:
        words.append(rnd.choice(pieces) + rnd.choice([" ", "", "\n"]))
    for text in ("".join(words), "".join(words).replace("İ", "").lower()):
        scanner = Scanner(cues)
        got = sorted((i, m.start(), m.end()) for i, m in scanner.scan(text))
        assert got == _naive(cues, text) and len(got) > 300
        assert scanner.attempts < len(text) // 4  # (tried at places, not at every character)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["a", "w", "/", "b", "c", "o", ".", " ", "\n", "\t", "\r", "\x0b", "\x1c", "w/",
                                  "b/c", "  ", "\n\n"]), max_size=20))
def test_a_rewrite_skipped_by_its_needs_has_nothing_to_match(pieces: list[str]) -> None:
    """normalise skips a rewrite on an ASCII text holding none of its needs: there it never matches anything."""
    from expert.nlp import _REWRITES

    low = lower_aligned("".join(pieces))
    for rewrite, _stems, _repl, needs in _REWRITES:
        if needs is not None and not any(n in low for n in needs):
            assert rewrite.search(low) is None, (rewrite.pattern, low)


def test_lone_newlines_are_kept_and_blank_runs_still_fold() -> None:
    """A pasted log's one newline a line is no edit; runs of blanks and other blanks still fold as before."""
    nt = normalise("step 1 loss 2\nstep 2 loss 1\n")
    assert nt.text == "step 1 loss 2\nstep 2 loss 1\n" and nt.anchors == ()
    assert normalise("a \n\n  b\tc  d\r\ne").text == "a\nb c d\ne"
    assert normalise("works w/ adam, not w/o warmup b/c").text == "works with adam, not without warmup because "
