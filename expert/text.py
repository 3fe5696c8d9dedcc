"""Free text -> observations, driven entirely by the knowledge base's ``Keyword`` rows.

The parser knows no topic: every cue (phrase, what it implies, whether a negation cancels it, its priority)
is a ``Keyword`` row gathered by ``knowledge.all_keywords()``. The procedure, in order:

1. normalise the text (``expert.nlp.normalise``: unicode punctuation, blank runs, British spellings,
   hyphenated compounds), keeping a map back to what the user typed, and set aside every line or sentence
   that repeats an earlier one (a repeat sets nothing its first copy did not);
2. find every match of every cue on word boundaries, case-insensitively, with the linear-time
   ``expert.nlp.Scanner`` (each cue is tried only where one of its literal prefixes occurs, and only the first
   ``CUE_CAP`` matches of one cue are read);
3. drop a match that lies strictly inside a longer match of another cue ("should I use Lion" is about
   switching, so the bare optimizer name inside it does not also count as the optimizer in use);
4. ask the reader's one clause status (``expert.talk.clause_status``, which the composed readings and the coarse
   fallback ask too): drop a negatable match that its clause negates ("no NaN", "loss is not NaN", "without any
   NaN", "isn't overfitting", "I don't think it diverges") and any match the next sentence denies ("... I checked,
   they don't"); a trouble said as past and fixed ("we had OOM last week, solved by lowering batch") sets nothing
   of the trouble; a cue of a state users ask about (``Keyword.asked_reads`` false) said in a statement closed by
   "?" is offered to confirm, not read;
5. attribute configuration values: a setting named in a clause that says it *worked* ("with lr 1e-3 it
   trained fine") or that the user only *considers* ("should I switch to SGD?") is not the run's setting;
6. turn each surviving match into values; a value written ``$conv`` is read from the match (the named
   group called like the observation, else group ``v``, else the whole match) and converted by ``conv``:
   ``num`` (a float, e.g. ``3e-4``), ``int`` (``32``, ``1,024``), ``count`` (``10k``, ``1.2M``),
   ``pct`` (a percentage 0-100), ``frac`` (a percentage, percentage points or a fraction, as a fraction),
   ``text``, or ``loss`` / ``optimizer`` / ``schedule`` (a spelling canonicalised by ``knowledge.terms``);
7. when cues disagree on an observation, the higher priority wins (stability first), then the earliest
   match, then the pattern text, so the result never depends on anything but the text;
8. validate each value against the vocabulary; a value that does not validate is dropped.

Every step is linear in the text (a megabyte parses in well under a second; ``make bench`` times it). It never
raises on any text and returns ``[]`` when nothing matches. Each observation's provenance is
``text:<the phrase as typed>``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from functools import lru_cache
from itertools import chain
from typing import Any

from expert import rx
from expert.nlp import Normalised, Scanner, lower_aligned, lower_ascii, normalise
from knowledge.errors import TrainoptError
from knowledge.record import dataclass
from knowledge.vocabulary import Observation

MAX_CHARS = 16_000_000
"""Longer input is cut (pasted logs): every step is linear, this only bounds memory."""
CUE_CAP = 256
"""Matches of one cue that are read, the first ones. Only a cue's earliest usable match sets anything; a cue
matched this often in one complaint (a pasted log repeating "lr=...") has long been decided, so its later
matches are not looked for. Below the cap (any complaint a person types) the result is exact."""

# A clause ends at punctuation or at a contrasting / joining word: what the clause says worked or is weighed is
# looked for in it alone. A dot or colon ends a clause only before a blank, so "cfg.SOLVER.BASE_LR" and "lr=1e-3:"
# stay whole. (Whether a clause negates, asks or puts in the past what it says is ``expert.talk.clause_status``'s.)
_CLAUSE_BREAK = rx.compile(r"[;!?,()\[\]\n]|[.:](?=\s|$)|\b(?:but|and|or|however|although|though|yet|while|"
                           r"whereas|except|then|so|whereas|unlike)\b", re.IGNORECASE)
_NUMBER = rx.compile(r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:e[-+]?\d+)?", re.IGNORECASE)

# Attribution. Settings a clause says worked, or that the user only considers, are not the run's settings.
CONFIG_NAMES = frozenset({"learning_rate", "batch_size", "optimizer", "mixed_precision", "lr_schedule", "loss_fn",
                          "weight_decay"})
# Settings someone else uses ("you use AdamW in your paper", "the authors train with lr 0.1", "why do people use
# warmup?") are theirs.
_OTHERS = rx.compile(r"\b(?:you|they|people|everyone|everybody|folks|the\s+(?:paper|authors?|repo|"
                     r"original\s+\w+)|your\s+(?:paper|code|repo|config)|the\s+(?:docs?|readme|tutorial|example))\s+(?:also\s+)?(?:use[sd]?|using|train\w*|"
                     r"set[s]?|recommend\w*|suggest\w*|say[s]?)\b|"
                     # another person of the user's, or a run that is a reference, running with it ("my colleague
                     # uses bf16", "the baseline uses lr 0.1"): theirs, not the run in trouble (what they advise is
                     # weighed, the cues of ``considering`` read it)
                     r"\b(?:(?:my|our|a)\s+(?:friend|colleague|co-?worker|teammate|labmate|boss|advisor|supervisor|"
                     r"professor|mentor)s?(?:'s)?|someone|somebody|the\s+(?:baseline|reference\s+(?:run|model|code)|"
                     r"official\s+\w+))\s+(?:also\s+)?(?:use[sd]?|using|train(?:s|ed)?|runs?|ran)\b|"
                     # a run of theirs named as theirs ("my colleague's run had no warmup", "the paper's config uses
                     # lr 0.1"): what the clause says of it is theirs, whatever the verb
                     r"\b(?:(?:my|our|a)\s+(?:friend|colleague|co-?worker|teammate|labmate|boss|advisor|supervisor|"
                     r"professor|mentor)(?:'s|s')|someone's|somebody's|the\s+(?:paper|authors?|baseline)(?:'s|')|"
                     # "his run", "their model uses adam" said as the clause's subject: a possessive at the clause's
                     # start (not "I fine-tune their model with lr 1e-3", where the run is the user's)
                     r"^\W*(?:his|her|their))\s+(?:own\s+|original\s+|reference\s+)?(?:run|training|model|config|"
                     r"configuration|setup|set-up|code|script|recipe|experiment|network|net)s?\b", re.IGNORECASE)
OTHERS_NAMES = CONFIG_NAMES | {"considering", "warmup"}

# "worked" counts only when nothing negates it ("nothing works", "it never worked" describe the failing run).
_BARE_WORD = rx.compile(r"[\w.+-]+")
_CONJUNCT_END = rx.compile(r"(?:,|\band|\bor)$", re.IGNORECASE)
"""A clause break that lists ("A and B", "A, B"): what follows it alone is a conjunct of the clause before."""
_LISTING_END = rx.compile(r"\b(?:and|or)$", re.IGNORECASE)
"""A clause of a word or two ended by "and" / "or" ("with adam and ..."): a conjunct of the clause after."""
_NOT_BEFORE = r"(?<!not\s)(?<!n't\s)(?<!never\s)(?<!nothing\s)(?<!none\s)(?<!no\s)"
_WORKED = rx.compile(
    rf"\b{_NOT_BEFORE}(?:work(?:s|ed)\s+(?:just\s+)?(?:fine|well|ok|okay|great|perfectly)|(?:it|that|this|which)\s+worked|"
    rf"(?:is|was|ran|runs|run|trains?|trained|behaves?|behaved|converge[sd]?|learns?|learned|learnt|went|goes)\s+"
    r"(?:just\s+)?(?:fine|ok|okay|well|normally|great)|(?:was|is)\s+stable|no\s+(?:problems?|issues?|nans?)\s+"
    r"with|solved\s+it|fixe[sd]\s+it|(?:it|that)\s+helped)\b", re.IGNORECASE)
_WORKED_WITH = rx.compile(rf"\b{_NOT_BEFORE}work(?:s|ed)\s+(?:in|with|under|using)\b", re.IGNORECASE)
"""A run said to work with something ("works with adam", "works in fp16"): the setting is the good side's only
where another value of it is said for the run in trouble ("... but with sgd the loss is flat"); alone, the contrast
is on something else (the GPU count, training against inference) and the setting is the run's own."""
_CONSIDER = rx.compile(
    r"\b(?:should\s+(?:i|we)|consider(?:ing)?|thinking\s+(?:of|about)|want\s+to\s+(?:try|switch|use)|"
    r"(?<!after\s)(?<!since\s)(?<!when\s)(?<!once\s)switch(?:ing)?\s+to\b"
    # (not one said with what it did not do, in the past: "switching to bf16 did not change anything" was made)
    r"(?![^.!?,;\n]{0,30}?\b(?:did(?:n'?t|\s+not)\s+(?:\w+\s+)?(?:help|fix|solve|change|improve|matter|work|do)|"
    r"did\s+nothing|had\s+(?:no|zero|little)\s+effect|made\s+no\s+difference)\b)|would\s+\w+\s+help|worth\s+(?:trying|using)|told\s+(?:me|us)\s+to|"
    r"says?\s+(?:to\s+)?(?:use|switch|try))\b", re.IGNORECASE)


WEIGHING_NAMES = frozenset({"considering", "question_topic"})
"""Observations of cues that weigh a setting ("switch to Lion", "should I use AdamW?"): a setting named inside such a
cue is the one weighed, not the run's (as a shorter cue inside a longer one is dropped)."""


class _Spans:
    """Spans, asked whether a span lies strictly inside one of them (sorted once, each question a bisection)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        spans = sorted(spans)
        self.starts = [s for s, _e in spans]
        self.reach: list[int] = []
        self.longest: dict[int, int] = {}
        best = -1
        for s, e in spans:
            best = max(best, e)
            self.reach.append(best)
            self.longest[s] = max(self.longest.get(s, -1), e)

    def inside(self, start: int, end: int) -> bool:
        """Whether some span holds ``[start, end)`` and is longer than it."""
        k = bisect_left(self.starts, start)  # the spans that start strictly before
        if k > 0 and self.reach[k - 1] >= end:
            return True
        return self.longest.get(start, -1) > end


@dataclass(frozen=True)
class _Hit:
    """One cue found in the text: where, the match, its keyword and its place in the knowledge base."""

    start: int
    end: int
    match: re.Match[str]
    keyword: Any  # knowledge.schema.Keyword
    order: int  # the cue's position in the knowledge base

    @property
    def groups(self) -> dict[str, str]:
        return {k: v for k, v in self.match.groupdict().items() if v is not None}

    @property
    def phrase(self) -> str:
        return self.match.group(0)


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[Any, ...], Scanner]:
    from expert.stored import families

    keywords = [k for f in families() for k in f.keywords]  # knowledge.all_keywords(), from the cache when stored
    stored = _stored_cues(keywords)
    if stored is not None:
        # the entry holds the patterns these sources give (the cache key hashes them): no phrase to normalise
        patterns, analysis = stored
        kws = tuple(dataclasses.replace(k, pattern=p) if k.phrases else k for k, p in zip(keywords, patterns))
    else:
        kws = tuple(_with_pattern(k) for k in keywords)
        patterns = [k.pattern for k in kws]
        analysis = _stored_analysis(patterns)
    scanner = Scanner(patterns, analysis, trees=lambda: _cue_trees(patterns, scanner))
    if analysis is None:
        _store_analysis(patterns, scanner)
    return kws, scanner


CUES_CACHE = "cues"
TREES_CACHE = "cue-trees"
"""The cues' ``required_tree``s: an entry of its own, read only when a long text first comes (a typed complaint's
process never loads it)."""


def _cue_trees(patterns: list[str], scanner: Scanner) -> list[Any] | None:
    """The cues' requirement trees from the user's cache, parsed and stored there when absent (None: no cache).

    Parsing every cue costs a few hundred ms, once per version of the sources; with the cache off the scanner
    parses the cues a long text leaves, as it goes.
    """
    from expert import cache

    if not cache.enabled():
        return None
    data = cache.load_plain(TREES_CACHE)
    if type(data) is tuple and len(data) == 2 and data[0] == patterns and type(data[1]) is list \
            and len(data[1]) == len(patterns) and all(map(_is_tree, data[1])):
        return data[1]
    trees = scanner.trees()
    cache.store_plain(TREES_CACHE, (list(patterns), trees))
    return trees


def _is_tree(node: Any) -> bool:
    """Whether ``node`` has the shape of an ``expert.nlp.Requirement`` (or is None): a damaged entry is rebuilt."""
    if node is None:
        return True
    if type(node) is not tuple or len(node) < 2:
        return False
    if node[0] == "words":
        return len(node) == 3 and type(node[1]) is frozenset and type(node[2]) is tuple \
            and all(type(w) is str for w in chain(node[1], node[2]))
    return node[0] in ("all", "any") and len(node) == 2 and type(node[1]) is tuple and bool(node[1]) \
        and all(n is not None and _is_tree(n) for n in node[1])


def _cues_entry() -> tuple[list[str], list[tuple[frozenset[str] | None, frozenset[str] | None]]] | None:
    """The cues' stored patterns and analysis (``expert.cache``, plain data), or None when absent or not of this shape.

    Plain data rather than JSON: the analysis's word sets come back as sets, with no conversion of each list.
    """
    from expert import cache

    data = cache.load_plain(CUES_CACHE)
    # (each list checked by the set of its items' types and lengths: one pass in C, not a test per cue in Python)
    if type(data) is not tuple or len(data) != 2 or type(data[0]) is not list or type(data[1]) is not list \
            or len(data[0]) != len(data[1]) or not set(map(type, data[0])) <= {str} \
            or not set(map(type, data[1])) <= {tuple} or not set(map(len, data[1])) <= {2} \
            or not set(map(type, chain.from_iterable(data[1]))) <= {type(None), frozenset}:
        return None
    return data


def _stored_cues(keywords: list[Any]) -> tuple[list[str], list[tuple[Any, Any]]] | None:
    """The cues' patterns and analysis as stored for the current sources, or None.

    An entry's key is a hash of the sources (``expert.cache``), and the patterns follow from them: a keyword
    given as a pattern must read the same, and one given as phrases takes the stored pattern.
    """
    stored = _cues_entry()
    if stored is None:
        return None
    patterns, analysis = stored
    if len(patterns) != len(keywords) or any(not k.phrases and p != k.pattern for k, p in zip(keywords, patterns)):
        return None
    return patterns, analysis


def _stored_analysis(patterns: list[str]) -> list[tuple[frozenset[str] | None, frozenset[str] | None]] | None:
    """The cues' prefixes and required words from the user's cache (``expert.cache``), if stored for these."""
    stored = _cues_entry()
    if stored is None or stored[0] != patterns:
        return None  # not what we write, or for other patterns: parse the patterns (and overwrite it)
    return stored[1]


def _store_analysis(patterns: list[str], scanner: Scanner) -> None:
    from expert import cache

    analysis = [(None if a is None else frozenset(a), None if b is None else frozenset(b))
                for a, b in scanner.analysis()]
    cache.store_plain(CUES_CACHE, (list(patterns), analysis))


def _with_pattern(kw: Any) -> Any:
    """A keyword given as literal phrases, with its pattern: each phrase normalised as the text is, longest first."""
    if not kw.phrases:
        return kw
    rx = "|".join(re.escape(normalise(p).text) for p in sorted(kw.phrases, key=len, reverse=True))
    return dataclasses.replace(kw, pattern=rx)


_CUE_WORD = rx.compile(r"(?<![a-z\\])[a-z]{5,}(?=$|[\s|)?.,:'\"\\-])")
"""A whole word written in a cue's pattern (not a stem its pattern goes on to inflect, "explod(?:e|ing)")."""


@lru_cache(maxsize=1)
def _slip_vocabulary() -> tuple[frozenset[str], dict[str, tuple[str, ...]], frozenset[str]]:
    """The words a slip in a complaint may be corrected to: the talk lexicon's and the cues' own words.

    Returns:
        Every such word (inflections included), the words of five letters or more by first letter (sorted), and
        the lexicon's own words with the cues' (what a slipped stem may be).
    """
    from expert import cache

    # the vocabulary follows from the sources alone, and building it scans every cue's pattern (a few ms of each
    # consult start-up): stored as plain data the way the talk lexicon is (``expert.talk._lexicon``), under the
    # same source key, rebuilt when that changes or the entry is not of this shape
    stored = cache.load_plain(SLIPS_CACHE) if cache.enabled() else None
    if (type(stored) is tuple and len(stored) == 3 and type(stored[0]) is frozenset and type(stored[1]) is dict
            and type(stored[2]) is frozenset):
        return stored
    built = _build_slip_vocabulary()
    if cache.enabled():
        cache.store_plain(SLIPS_CACHE, built)
    return built


SLIPS_CACHE = "slips"


def _build_slip_vocabulary() -> tuple[frozenset[str], dict[str, tuple[str, ...]], frozenset[str]]:
    """The slip vocabulary of ``_slip_vocabulary``, built from the talk lexicon and the cues' patterns."""
    from expert.talk import _known, _lexicon_lemmas, _words

    cue: set[str] = set()
    for kw, _scanner in ((k, None) for k in _compiled()[0]):
        # "\bnan\b": an escape is no letter of a word, and "evaluat\w*" is a stem, not a word
        pattern = re.sub(r"\\[a-zA-Z]", "\0", kw.pattern.lower())
        for m in _CUE_WORD.finditer(pattern):
            cue.add(m.group(0))
            if pattern.startswith("?", m.end()) and m.group(0).endswith("s"):
                cue.add(m.group(0)[:-1])  # "tensors?": the singular is a word of the cue too
    words = _words() | cue
    by_letter: dict[str, list[str]] = {}
    for w in set(_known()) | {w for w in cue if len(w) >= 5}:
        by_letter.setdefault(w[0], []).append(w)
    # (a slipped "-ing" or "-ed" word is matched by its stem: only uninflected cue words can be one, "planned" is no
    # stem of "planning")
    stems = {w for w in cue if not w.endswith(("ed", "ing"))}
    return frozenset(words), {c: tuple(sorted(ws)) for c, ws in by_letter.items()}, frozenset(_lexicon_lemmas() | stems)


@lru_cache(maxsize=8192)
def _slip(word: str) -> str:
    """The word of the lexicon or of a cue that a spelling slip of ``word`` stands for, else ``word``."""
    from expert.talk import _words, correct_slip

    if not word.isalpha() or len(word) < 5 or word in _words():
        # what ``correct_slip`` returns at once for such a word: a word of the talk lexicon (which the reader loads
        # anyway) is a word of the slip vocabulary too, so a complaint in the lexicon's words never loads the latter
        return word
    words, by_letter, lemmas = _slip_vocabulary()
    fixed = correct_slip(word, words, by_letter.get(word[:1], ()), lemmas, strict=True)
    if fixed.startswith(word) or word.startswith(fixed):
        # "evaluate" -> "evaluated", "column" -> "columns": a form we do not list, not a slip; nor is a whole word
        # cut back to a cue's stem that it already spells out ("shuffle" -> "shuffl", a pattern's stem)
        return word
    ending = next((e for e in ("ing", "ed", "ly", "s") if word.endswith(e)), "")
    if ending in ("ing", "ed") and not fixed.endswith(ending) and len(fixed) >= 4:
        # the talk reader's answer is the lemma ("unsscaled" -> "unscale"): the text keeps the inflection
        if fixed.endswith(("ed", "ing")):
            return word  # an inflected word is no stem to inflect again
        fixed = (fixed[:-1] if fixed.endswith("e") else fixed) + ending
    if not fixed.endswith(ending):
        return word  # a slip keeps its ending: "constantly" is an adverb, not a slip of the name "ConstantLR"
    return fixed


def _convert(conv: str, raw: str) -> Any:
    raw = raw.strip()
    if conv == "text":
        return raw.lower()
    if conv in ("loss", "optimizer", "schedule"):
        from knowledge import terms

        fn = {"loss": terms.canonical_loss, "optimizer": terms.canonical_optimizer,
              "schedule": terms.canonical_schedule}[conv]
        value = fn(raw)
        if value is None:
            raise ValueError(raw)
        return value
    m = _NUMBER.search(raw)
    if m is None:
        raise ValueError(raw)
    num = float(m.group(0).replace(",", ""))
    if conv == "num":
        return num
    if conv == "int":
        return int(num) if num == int(num) else num
    if conv == "count":
        suffix = raw[m.end():].strip()[:1].lower()
        num *= {"k": 1_000, "m": 1_000_000, "b": 1_000_000_000}.get(suffix, 1)
        return int(num) if num == int(num) else num
    if conv == "pct":
        return num
    if conv == "frac":
        # "95%", "20 points" and "95" are percentages; "0.95" is already a fraction.
        tail = raw[m.end():].lower()
        return num / 100.0 if ("%" in tail or "p" in tail or num > 1.0) else num
    raise ValueError(f"unknown conversion {conv!r}")


def _value(hit: _Hit, name: str, value: Any) -> Any:
    if not (isinstance(value, str) and value.startswith("$")):
        return value
    raw = hit.groups.get(name) or hit.groups.get("v") or hit.phrase
    return _convert(value[1:], raw)


_SEGMENT_END = rx.compile(r"\n|[.!?] ")


@dataclass(frozen=True)
class _Distinct:
    """A text less its repeated segments (lines and sentences seen before), with the way back."""

    text: str
    runs: tuple[int, ...]  # offsets in ``text`` where a run of kept segments begins
    origins: tuple[int, ...]  # the offset in the full text of each run's start

    def offset(self, pos: int) -> int:
        k = bisect_right(self.runs, pos) - 1
        return self.origins[k] + pos - self.runs[k]

    def seamless(self, start: int, end: int) -> bool:
        """Whether ``text[start:end]`` lies in one run (it did not arise from dropping a segment between)."""
        k = bisect_right(self.runs, start) - 1
        return k + 1 >= len(self.runs) or end <= self.runs[k + 1]


def distinct_segments(text: str) -> _Distinct:
    """Drop every line or sentence that repeats one seen earlier (pasted logs, repeated tracebacks).

    A repeat can set nothing: its matches are those of the first copy, which come earlier, and negation and
    attribution stop at the line or sentence end. Text without repeats is returned unchanged.
    """
    seen: set[str] = set()
    parts: list[str] = []
    runs: list[int] = []
    origins: list[int] = []
    last = kept_to = out = 0
    bounds = [m.end() for m in _SEGMENT_END.finditer(text)]
    if len(text) > (bounds[-1] if bounds else 0):
        bounds.append(len(text))
    for end in bounds:
        seg = text[last:end]
        if seg in seen:
            last = end
            continue
        seen.add(seg)
        if not runs or last != kept_to:
            runs.append(out)
            origins.append(last)
        parts.append(seg)
        out += len(seg)
        kept_to = last = end
    if len(runs) <= 1 and (not origins or origins[0] == 0) and out == len(text):
        return _Distinct(text, (0,), (0,))
    return _Distinct("".join(parts), tuple(runs) or (0,), tuple(origins) or (0,))


def _count(raw: str) -> float | None:
    """A count as said ("3000", "2.5k", "10,000"), or None when it is no number."""
    raw = raw.replace(",", "").replace(" ", "").lower()
    scale = 1000.0 if raw.endswith("k") else 1.0
    try:
        return float(raw.rstrip("k")) * scale
    except ValueError:
        return None


def _part_of_whole(m: Any) -> bool:
    """Whether a cue's "<part> of <whole>" (groups ``part`` and ``whole``), when it says one, is a smaller part.

    Likewise a count said against the one planned (groups ``late`` and ``due``) must be the larger.

    "after 3000 of 12000 steps" is a count before the end; "at 10k of 10k steps" is the end itself (a regex cannot
    compare the two numbers, so the cue names them and this check does).
    """
    groups = m.groupdict()
    if groups.get("late") is not None and groups.get("due") is not None:
        # "peaks after 4000 steps instead of 400": a count said against the one planned is late only when larger
        late, due = _count(groups["late"]), _count(groups["due"])
        return late is not None and due is not None and late > due
    if groups.get("part") is None or groups.get("whole") is None:
        return True
    part, whole = _count(groups["part"]), _count(groups["whole"])
    return part is not None and whole is not None and part < whole


def _newer_worse(m: Any) -> bool:
    """Whether two versions a cue compares (groups ``ver1``, ``cmp``, ``ver2``) make the newer one the worse.

    "torch 1.12 is slower than 1.8" is a regression; "torch 2.1 is faster than 2.0" is none.
    """
    groups = m.groupdict()
    if groups.get("ver1") is None or groups.get("ver2") is None or groups.get("cmp") is None:
        return True
    v1, v2 = (tuple(int(x) for x in groups[k].split(".")) for k in ("ver1", "ver2"))
    if v1 == v2:
        return False
    return (v1 > v2) == (groups["cmp"].lower() in ("slower", "worse"))


def _hits(nt: Normalised, text: str | None = None) -> list[_Hit]:
    kws, scanner = _compiled()
    return [_Hit(m.start(), m.end(), m, kws[i], i)
            for i, m in scanner.scan(nt.text if text is None else text, cap=CUE_CAP)
            if _part_of_whole(m) and _newer_worse(m)]


def _cover(h: _Hit) -> list[tuple[int, int]]:
    """The spans of a hit that hide shorter cues: all of it, less any free-text gap (groups named ``gap...``).

    A cue such as "DDP ... hangs" spans a stretch of free text; a cue inside that stretch ("mixed precision")
    is the user's own information and stays, while one inside the anchors ("hangs" as "stuck") is hidden.
    """
    gaps = sorted(h.match.span(k) for k, v in h.match.groupdict().items() if k.startswith("gap") and v)
    if not gaps:
        return [(h.start, h.end)]
    spans, cur = [], h.start
    for gs, ge in gaps:
        if gs > cur:
            spans.append((cur, gs))
        cur = max(cur, ge)
    if h.end > cur:
        spans.append((cur, h.end))
    return spans


def _unsubsumed(hits: list[_Hit]) -> list[_Hit]:
    """Drop every hit lying inside a strictly longer hit (one sweep over hits and cover spans by start)."""
    covers = sorted((s, e, h.end - h.start, id(h)) for h in hits for s, e in _cover(h))
    order = sorted(hits, key=lambda h: h.start)
    kept: list[_Hit] = []
    reach = -1  # the furthest end among cover spans that start strictly before the current hit
    k = 0
    for h in order:
        while k < len(covers) and covers[k][0] < h.start:
            reach = max(reach, covers[k][1])
            k += 1
        if reach >= h.end:
            continue
        length = h.end - h.start
        j, hidden = k, False
        while j < len(covers) and covers[j][0] == h.start:
            _, e, total, owner = covers[j]
            if owner != id(h) and (e > h.end or (e == h.end and total > length)):
                hidden = True
                break
            j += 1
        if not hidden:
            kept.append(h)
    return kept


_LONGEST_BREAK = 10
CLAUSE_SPAN = 2_000
"""The farthest a clause reaches on either side of a position asked about: no one writes a clause of 2,000 characters
without a break; a pasted log or word salad of a megabyte with none would otherwise make each of its thousands of
matches scan the whole text for its clause (quadratic)."""
"""No clause break is longer ("although" is 8): a break found further back than this is not cut by the window."""


class _Context:
    """Clause lookups for one text: where a clause starts and ends, its words and its attribution.

    Clause bounds are found around each position asked about, in a window that widens until it holds the
    break, so the cost follows the matches read, not the length of the text.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._attr: dict[tuple[int, int], tuple[bool, bool, bool]] = {}

    def clause_start(self, pos: int) -> int:
        """The end of the last clause break at or before ``pos`` (0 when there is none)."""
        width = 256
        while True:
            lo = max(0, pos - width)
            last = 0
            for m in _CLAUSE_BREAK.finditer(self.text, lo, pos + 1):
                if m.end() <= pos:
                    last = m.end()
            if lo == 0 or last > lo + _LONGEST_BREAK:
                return last
            if width >= CLAUSE_SPAN:
                return max(last, pos - CLAUSE_SPAN)  # no break near: the clause is cut at its reach
            width *= 4

    def clause_end(self, pos: int) -> int:
        """The end of the first clause break that ends after ``pos`` (the text's end when there is none)."""
        reach = min(len(self.text), pos + CLAUSE_SPAN)
        for m in _CLAUSE_BREAK.finditer(self.text, max(0, pos - _LONGEST_BREAK), reach):
            if m.end() > pos:
                return m.end()
        return reach

    def _few_words(self, a: int, e: int, most: int) -> bool:
        """Whether the clause ``a:e`` holds at most ``most`` words, not counting the break words that bound it.

        Counting stops past ``most``: a clause of a megabyte with no break in it costs a few words, not its length.
        """
        n = 0
        for m in _BARE_WORD.finditer(self.text, a, e):
            if not _CLAUSE_BREAK.fullmatch(m.group(0)):
                n += 1
                if n > most:
                    return False
        return True

    def attribution(self, start: int) -> tuple[bool, bool, bool, bool]:
        """(worked, considered, others', works with): what the clause around ``start`` says of its settings.

        The clause says this worked, only considers it, is about someone else's run, says the run works with it.
        """
        a = self.clause_start(start)
        # a bare conjunct ("fp32 and bf16", "adam, sgd"): a setting listed beside another, with no verb of its own,
        # shares the attribution of the clause it is listed in ("trains fine in fp32 and bf16, but fp16 gives nan")
        # ("with adam and sgd it works fine, but lion diverges": the first of a listed pair shares the next clause's)
        e = self.clause_end(start)
        while 0 < a and self._few_words(a, e, 1) and _CONJUNCT_END.search(self.text[max(0, a - 6):a]):
            a = self.clause_start(a - 1 - len(_CONJUNCT_END.search(self.text[max(0, a - 6):a]).group(0)))
        if self._few_words(a, e, 2) and _LISTING_END.search(self.text[a:e]):
            e = self.clause_end(e)
        if (a, e) not in self._attr:
            clause = self.text[a:e]
            self._attr[a, e] = (bool(_WORKED.search(clause)), bool(_CONSIDER.search(clause)),
                                bool(_OTHERS.search(clause)), bool(_WORKED_WITH.search(clause)))
        return self._attr[a, e]


def parse_complaint(text: str) -> list[Observation]:
    """Read a free-text complaint into validated observations with provenance ``text:<matched phrase>``.

    Args:
        text: What the user wrote.

    Returns:
        At most one observation per name, sorted by name; ``[]`` when no cue matches (or ``text`` is not
        a string).
    """
    if not isinstance(text, str) or not text.strip():
        return []
    return [r.observation for r in read_text(text)]


@dataclass(frozen=True)
class TextReading:
    """One observation read from a complaint, with the words that gave it.

    Attributes:
        observation: The validated observation (provenance ``text:<the words as typed>``).
        words: The words as typed.
        composed: Read from parts (a quantity and its movement, evidence) rather than from a single cue.
        hedged: The user was unsure of it ("maybe", "I think").
        weak: A fallback, read because nothing else was (a quantity named with no movement understood).
    """

    observation: Observation
    words: str
    composed: bool = False
    hedged: bool = False
    weak: bool = False


def _troubled(names: Any) -> bool:
    """Whether any of these observations says what the complaint is, or weighs a setting.

    What the complaint is: the vocabulary's ``symptom`` group (a symptom, a vague request, a question's topic);
    a setting weighed: ``considering``.
    """
    from knowledge.vocabulary import VOCABULARY

    return any(n == "considering" or (n in VOCABULARY and VOCABULARY[n].group == "symptom") for n in names)


_LAST: tuple[str, Any, tuple[TextReading, ...]] | None = None
"""The last text ``read_text`` read, what ``expert.talk`` understood of it and the readings: a consultation reads a
complaint, then asks what it left open (``confirmations``), which would read the same text again."""


def _understood(text: str) -> tuple[Any, list[TextReading]]:
    """What ``read_text`` last understood of ``text`` and its readings, else the text read now."""
    last = _LAST
    if last is not None and last[0] == text:
        return last[1], list(last[2])
    return _read(text)


def read_text(text: str) -> list[TextReading]:
    """Read a complaint into observations, each with the words that gave it (see :func:`parse_complaint`).

    Two readers are combined: the cue list (``Keyword`` rows, one phrase each) and the parser of training talk
    (``expert.talk``: quantities, movements, times, qualifiers, pasted evidence). A composed reading wins over
    a cue for the same observation, and owns its words: a cue inside them does not set what it claims (in
    "the progress bar is stuck", "stuck" is no flat loss). For the symptom, priorities decide (stability first).
    """
    global _LAST
    if not isinstance(text, str) or not text.strip():
        return []
    u, readings = _read(text)
    _LAST = (text, u, tuple(readings))
    return readings


def _read(text: str) -> tuple[Any, list[TextReading]]:
    """``read_text``'s work: what ``expert.talk`` understood of the text, and the readings."""
    from expert.talk import FUZZY_LIMIT

    # a slip in a word a person typed is read as the word meant; a pasted log is machine-written, and long
    nt = normalise(text[:MAX_CHARS], correct=_slip if len(text) <= FUZZY_LIMIT else None)
    dt = distinct_segments(nt.text)
    ctx = _Context(dt.text)
    from expert.talk import ASKED, HEDGED, NEGATED, PAST, ClauseStatus, understand
    from knowledge.talk import (
        FALLBACK_BYSTANDERS,
        HISTORY_NAMES,
        LOSS_BEHAVIOR_PRIORITY,
        PASTED_CRASH_PRIORITY,
        REMOVABLE_SWITCHES,
        SYMPTOM_PRIORITY,
        VALUE_PRIORITY,
    )

    status = ClauseStatus(dt.text)  # one judgement of negation, denial and history for every path below
    kept = sorted(_unsubsumed(_hits(nt, dt.text)), key=lambda h: h.start)
    # the cues said (not negated) name training things: the reader's scope check counts the text on topic by them
    # ("qwen crashes", "quantization crashes": a model or a topic the keyword layer knows, no word of training)
    # (not a cue of everyday words, ``Keyword.scope``: "I predict house prices will crash" names no run)
    # (nor one that lends no scope, ``Keyword.lends_scope``: "heavy augmentation of my photos" is read, alone)
    cues = tuple((h.start, h.end) for h in kept if dt.seamless(h.start, h.end) and h.keyword.scope and
                 h.keyword.lends_scope and
                 status.of(h.start, h.end, hedge=True, negatable=h.keyword.negatable) != NEGATED)
    u = understand(dt.text, cues)
    if not u.on_topic:
        # "I predict house prices will crash", "my fridge uses no augmentation": everyday words, no run to set
        kept = [h for h in kept if h.keyword.scope]
    asked = _Spans(u.asked)
    held: dict[tuple[str, Any], str] = {}  # causes asked about: (name, value) -> the words, offered to confirm

    def hypothesis(name: str, value: Any, start: int, end: int, phrase: str) -> bool:
        """Whether a reading is a cause said only inside a yes/no question (then it is held, to confirm)."""
        if not _hypothesis(name) or not asked.inside(start, end):
            return False
        held.setdefault((name, value), phrase)
        return True

    # every setting the text names, by name: a setting said to work beside another value of it is the good side
    # of a contrast ("works with adam but with sgd the loss is flat"); said alone, it is the run's own
    named: dict[str, set[tuple[str, int]]] = {}
    for h in kept:
        for name, raw_value in h.keyword.sets.items():
            named.setdefault(name, set()).add((str(raw_value), h.start))
    for r in u.readings:
        if r.named:
            named.setdefault(r.name, set()).add((str(r.value), r.start))

    def rivalled(name: str, value: Any, start: int) -> bool:
        """Whether another value of setting ``name`` is said elsewhere in the text than at ``start``."""
        return any(v != str(value) and at != start for v, at in named.get(name, ()))

    def not_the_runs(name: str, value: Any, start: int) -> bool:
        """Whether the setting said at ``start`` is what worked before, what the user weighs, or what others use."""
        worked, considered, others, worked_with = ctx.attribution(start)
        worked = worked or (worked_with and rivalled(name, value, start))
        return others or (name in CONFIG_NAMES and (worked or considered))

    best: dict[str, tuple[tuple[Any, ...], TextReading]] = {}
    history: dict[str, tuple[tuple[Any, ...], TextReading]] = {}  # the trouble said as past and fixed
    settled: set[tuple[int, str]] = set()  # (cue, name): its earliest usable match is in, later ones lose
    # a weighing cue hides the settings in its anchors only: its free-text gap ("fp16 <training with adamw and
    # 4 GPUs> does not speed up") is the user's own run, as _unsubsumed keeps the cues inside a gap
    weighing = _Spans([span for h in kept if set(h.keyword.sets) & WEIGHING_NAMES for span in _cover(h)])
    for h in kept:
        if all((h.order, name) in settled for name in h.keyword.sets):
            continue  # this cue has set all it sets: a later match of it changes nothing
        if not dt.seamless(h.start, h.end):
            continue  # spans the place of a dropped repeat: the full text has no such phrase
        said = status.of(h.start, h.end, hedge=True, negatable=h.keyword.negatable)
        if said != NEGATED and any(a < h.end and h.start < b for a, b in u.over):
            said = PAST  # an error of a family said over later ("at first CUDA OOM ... OOM gone but ..."): history
        if said == NEGATED:
            continue  # "no NaN", "I don't think it diverges", "... ? No, they're the same"
        if said == ASKED and not h.keyword.asked_reads:
            for name, raw_value in h.keyword.sets.items():
                if _hypothesis(name) and not str(raw_value).startswith("$"):
                    phrase = nt.source(dt.offset(h.start), dt.offset(h.end)).strip()
                    try:
                        Observation.make(name, raw_value, f"text:{phrase}")
                    except (TrainoptError, ValueError, TypeError):
                        continue
                    held.setdefault((name, raw_value), phrase)  # "the weights differ between ranks?": to confirm
            continue
        for name, raw_value in h.keyword.sets.items():
            if (h.order, name) in settled or u.claimed(h.start, h.end, name):
                continue
            if name in OTHERS_NAMES:
                if not_the_runs(name, raw_value, h.start):
                    continue  # what worked before, what the user weighs, what others use: not this run's
            try:
                value = _value(h, name, raw_value)
                if value is True and name in REMOVABLE_SWITCHES and \
                        any(a <= h.start and h.end <= b for a, b in u.removed):
                    value = False  # "turned off warmup", "I removed label smoothing": the switch taken out is off
                phrase = nt.source(dt.offset(h.start), dt.offset(h.end))
                obs = Observation.make(name, value, f"text:{phrase.strip()}")
            except (TrainoptError, ValueError, TypeError, OverflowError):
                continue  # a number out of range, an unknown unit: the phrase says nothing usable
            if hypothesis(name, obs.value, h.start, h.end, phrase.strip()):
                continue
            settled.add((h.order, name))
            key = (-h.keyword.priority, 1, h.start, h.keyword.pattern)
            # "we had OOM last week, solved by lowering batch": history, not the run now (kept aside)
            into = history if said == PAST and name in HISTORY_NAMES else best
            if name not in into or key < into[name][0]:
                into[name] = (key, TextReading(obs, phrase.strip(), hedged=said == HEDGED))
    composed: dict[str, tuple[tuple[Any, ...], TextReading]] = {}
    # a symptom read with a curve shape ranks as that shape does: a transient spike is weaker evidence of
    # instability than NaN, and loses to overfitting or a plateau said alongside
    shape_rank = {(r.start, r.end): LOSS_BEHAVIOR_PRIORITY[r.value] for r in u.readings
                  if r.name == "loss_behavior" and r.value in LOSS_BEHAVIOR_PRIORITY}
    for r in u.readings:
        if r.fallback and r.name == "symptom" and r.value == "direct_question":
            if _troubled(best) or _troubled(f.name for f in u.readings if not f.fallback) or \
                    any(f.name == "symptom" and f.value == "crash" for f in u.readings):
                continue  # a question of no known topic: the complaint only when nothing else of the kind is said
                # (a symptom, a request, a setting weighed, a crash named beside it)
        elif r.fallback and r.name == "symptom" and r.value == "crash":
            if "symptom" in best or any(f.name == "symptom" and not f.fallback for f in u.readings):
                continue  # an error named in words is the complaint only when no other symptom is said
        elif r.fallback and (set(best) - FALLBACK_BYSTANDERS or any(
                not f.fallback and f.name not in FALLBACK_BYSTANDERS for f in u.readings)):
            continue  # a fallback speaks only when nothing else is read (but the run's measured context)
        if not dt.seamless(r.start, r.end):
            continue
        if r.named and weighing.inside(r.start, r.end):
            continue  # "switch to Lion", "does Lion help": a setting inside a cue that weighs it is not the run's
        if r.named and r.name in OTHERS_NAMES:
            if not_the_runs(r.name, r.value, r.start):
                continue  # what worked before, what the user weighs, what others use: not this run's
        elif r.name in OTHERS_NAMES and ctx.attribution(r.start)[2]:
            continue  # a setting composed from its parts ("my colleague trains without warmup"): theirs all the same
        try:
            phrase = nt.source(dt.offset(r.start), dt.offset(r.end)).strip()
            obs = Observation.make(r.name, r.value, f"text:{phrase}")
        except (TrainoptError, ValueError, TypeError, OverflowError):
            continue
        if hypothesis(r.name, obs.value, r.start, r.end, phrase):
            continue
        # (a crash shown by pasted evidence outranks a tracker's name or a question said beside it)
        sym = PASTED_CRASH_PRIORITY if r.value == "crash" and r.evidence and not r.fallback else \
            SYMPTOM_PRIORITY.get(r.value, 0)
        prio = shape_rank.get((r.start, r.end), sym) if r.name == "symptom" else \
            LOSS_BEHAVIOR_PRIORITY.get(r.value, 0) if r.name == "loss_behavior" else \
            VALUE_PRIORITY.get(r.name, {}).get(r.value, 0)
        # a composed reading beats a cue of the same priority (tie-break 0 < 1); a weak one (a bare error
        # line's crash) only fills a gap
        key = (-prio, 0 if r.strong else 2, r.start, "")
        if r.name in HISTORY_NAMES and status.of(r.start, r.end) == PAST:
            # an error or a curve said as past and fixed ("the loss used to go NaN"): history, kept aside
            if r.name not in history or key < history[r.name][0]:
                history[r.name] = (key, TextReading(obs, phrase, composed=True, weak=r.fallback))
            continue
        if r.name not in composed or key < composed[r.name][0]:
            composed[r.name] = (key, TextReading(obs, phrase, composed=True, hedged=r.hedged, weak=r.fallback))
    for name, (key, reading) in composed.items():
        if name not in best:
            best[name] = (key, reading)
        elif name in ("symptom", "loss_behavior"):
            if key[0] <= best[name][0][0]:
                best[name] = (key, reading)
        elif key[1] == 0 and -key[0] >= VALUE_PRIORITY.get(name, {}).get(best[name][1].observation.value, 0):
            # a composed reading beats a cue's, unless the cue's value outranks it (VALUE_PRIORITY: "reward is
            # flat" reads an RL run, and GRPO named beside it keeps the run a preference tuning)
            best[name] = (key, reading)
    _first_eval_gap(best, dt.text)
    _head_short(best, dt.text)
    _bf16_lacking(best)
    _counted_imbalance(best, dt.text)
    _constant_by_rates(best, dt.text)
    _chance_classes(best, dt.text)
    _chance_ratio(best, dt.text)
    _logged_collapse(best, dt.text)
    _negative_kl_loss(best, dt.text)
    _decay_per_step(best)
    if history and not _troubled(best):
        if _ASKS.search(dt.text):
            # a trouble said as fixed, and nothing else wrong, but asked about ("had NaN, fixed it by lowering the
            # lr: is that the right fix?"): the history is what the user asks about
            for name, item in history.items():
                best.setdefault(name, item)
        else:
            words = min(history.values(), key=lambda item: item[0])[1].words
            u.confirm.append(("history", f"You said \"{words}\" is past and fixed: is anything still wrong? (say "
                                         f"what you see now)"))
    if not best and not held and not u.no_guess:
        # nothing at all understood (and no healthy run described, no question of what a thing is): a coarse,
        # tentative reading of the family the words point to (or a question)
        coarse = _coarse(dt.text, status)
        if isinstance(coarse, str):
            u.confirm.append(("coarse:families", coarse))
        elif coarse is not None:
            name, value, start, end, family = coarse
            try:
                phrase = nt.source(dt.offset(start), dt.offset(end)).strip()
                obs = Observation.make(name, value, f"text:{phrase} (a guess)")
            except (TrainoptError, ValueError, TypeError):
                obs = None
            if obs is not None:
                best[name] = ((0, 3, start, ""), TextReading(obs, phrase, weak=True))
                u.confirm.append(("fallback:coarse", f"I could not read your message exactly; from \"{phrase}\" I "
                                                     f"guessed it is about {family}: is that right? (`forget {name}` "
                                                     f"drops the guess, or say it in other words)"))
    for (name, value), words in held.items():
        if name not in best:  # said as seen elsewhere in the text: read there, nothing to ask
            u.confirm.append((f"asked:{name}", f"You asked about \"{words}\" ({name}={value}): do you see it in your "
                                               f"run? (`yes` records it)"))
            # (the value was valid when held: it went through Observation.make above)
            u.offered.append(Observation.make(name, value, f"text:{words} (suspected)"))
    return u, [best[n][1] for n in sorted(best)]


def _head_short(best: dict[str, tuple[tuple[Any, ...], TextReading]], text: str) -> None:
    """A head with fewer outputs than the classes the text states, in whichever order the two are said.

    "I have 5 classes but num_labels=2", "the dataset has 10 categories ... out_features=2": the head's width
    (``num_outputs``, read by the cues of a config value or a last Linear) against the class count said in words
    (``num_classes``). The ids past the last output are out of range for a class-index loss: the reading of
    "target out of bounds" (``label_check=not_zero_based``), as ``expert.talk``'s ``_head_short_of_classes`` reads
    the count said after the config. One output beside two classes is a binary head (BCE), no mismatch.
    """
    from knowledge.talk import OTHER_MODEL_CLASSES, OTHER_MODEL_REACH

    head, classes = best.get("num_outputs"), best.get("num_classes")
    if head is None or classes is None or "label_check" in best:
        return
    crash = best.get("symptom")
    if crash is not None and crash[1].observation.value == "crash":
        return  # the crash it ends in is the lead ("... dies on the first batch with an index error"): its error first
    width, count = head[1].observation.value, classes[1].observation.value
    if not (isinstance(width, int) and isinstance(count, int)) or count <= width or (width < 2 and count <= 2):
        return
    # (a count of another model's classes, "pretrained on imagenet's 1000 classes", or a second count that fits the
    # head, "... for my 10 classes", leaves the user's own classes unsaid or met)
    for m in re.finditer(r"\b(\d+)[\s-]+(?:classes|categories|labels)\b", text, re.IGNORECASE):
        lead = re.split(r"[.;!?\n]", text[max(0, m.start() - 80):m.start()])[-1]
        if int(m.group(1)) <= width or set(re.findall(r"[a-z]+", lead.lower())[-OTHER_MODEL_REACH:]) & \
                OTHER_MODEL_CLASSES:
            return
    words = f"{classes[1].words}; {head[1].words}"
    try:
        obs = Observation.make("label_check", "not_zero_based", f"text:{words}")
    except (TrainoptError, ValueError, TypeError):
        return
    best["label_check"] = (head[0], TextReading(obs, words))


def _bf16_lacking(best: dict[str, tuple[tuple[Any, ...], TextReading]]) -> None:
    """bf16 named only as what the hardware lacks is no format the run uses.

    "bf16 is not available on my 2080 ti", "my rtx 6000 can't use bf16": the format's name inside the words that read
    ``bf16_supported=False`` is the missing feature, so ``mixed_precision=bf16`` read from the same words goes (a bf16
    said elsewhere, "... so I moved the run to bf16 on the cluster", is kept).
    """
    lacking, fmt = best.get("bf16_supported"), best.get("mixed_precision")
    if lacking is None or fmt is None or lacking[1].observation.value is not False or \
            fmt[1].observation.value != "bf16":
        return
    start, end = lacking[0][2], lacking[0][2] + len(lacking[1].words)
    if start <= fmt[0][2] <= end:
        del best["mixed_precision"]


_COUNT = r"(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?\s*k\b|\d+)"
_CLASS_COUNTS = (
    # "900 negatives", "100 positive samples", "50 fraud cases and 10000 normal ones"
    rx.compile(rf"\b{_COUNT}\s+(?:(?:positives?|negatives?)\b|(?:positive|negative|fraud\w*|normal|benign|"
               r"malignant|anomal\w*|defect\w*|minority|majority)\s+(?:samples?|examples?|images?|cases?|instances?|"
               r"rows?|records?|labels?|class(?:es)?|ones|transactions?|emails?|messages?|reviews?|patients?|"
               r"scans?|pixels?|events?)\b)", re.IGNORECASE),
    # "12 samples of class 3", "300 images in class 'cat'", "40 examples with label 1"
    rx.compile(rf"\b{_COUNT}\s+(?:samples?|examples?|images?|instances?|rows?|records?|items?|points?)\s+"
               r"(?:of|in|for|from|with|labell?ed(?:\s+as)?)\s+(?:the\s+)?(?:class|label|category)\b", re.IGNORECASE),
    # "39.6K of them class 0", "4,800 are label 1", "300 belong to class 2", "2600 of class 0"
    rx.compile(rf"(?<![\d.])\b{_COUNT}\s+(?:of\s+(?:them\s+)?)?(?:are\s+|is\s+|belong\s+to\s+|in\s+)?(?:the\s+)?(?:class|label|category)"
               r"\s+[\w'\"]+", re.IGNORECASE),
    # "class 0 has 4500 images", "class 1: 300", "label 2 only has 15 examples"
    rx.compile(rf"\b(?:class|label|category)\s+[\w'\"]+\s*(?:has|have|had|with|:|=|->)\s*(?:only\s+|just\s+)?"
               rf"{_COUNT}(?!\s*%)", re.IGNORECASE),
)
"""Counts said of one class each: the number of examples in a class, positives or negatives, a named rare kind."""
_BARE_CLASS_COUNT = 2
"""The pattern of ``_CLASS_COUNTS`` whose count names no examples ("2600 of class 0"): in a clause of predictions
(``_PREDICTION_COUNT``: "only 5 of class 1 are predicted correctly, 480 of class 0") it counts the ones predicted
right or wrong, not the class's size."""
_PREDICTION_COUNT = rx.compile(r"\b(?:predict\w*|correct\w*|incorrect\w*|misclassif\w*|classified|right|wrong\w*|"
                               r"hits?|miss(?:es|ed)?|detected|found|recall\w*|precision)\b", re.IGNORECASE)
_CLASS_WORDS = ("positive", "negative", "fraud", "normal", "benign", "malignant", "anomal", "defect", "minority",
                "majority", "class", "label", "category")
"""Words one of which every pattern of ``_CLASS_COUNTS`` holds: a sentence of ASCII text with none of them has no
count of a class, and is not searched (a pasted log's lines are mostly such)."""
_COUNT_TOTAL = rx.compile(rf"\b(?:out\s+of|of|among|from)\s+(?:the\s+|my\s+|about\s+|~\s*)?{_COUNT}\b"
                          r"(?!\s*(?:%|classes|categories|labels))", re.IGNORECASE)
"""The whole a class's count is said against ("only 12 samples of class 3 out of 5000")."""
_COUNT_WHOLE = rx.compile(rf"\b(?:about\s+|around\s+|~\s*)?{_COUNT}\s+(?:samples|examples|images|rows|records|items|"
                          r"data\s+points)\b(?=\s*[,;:(]|\s+(?:in\s+total|total|overall))", re.IGNORECASE)
"""The whole said before the classes' counts ("about 40K samples, 39.6K of them class 0")."""


def _occurrences(text: str, word: str) -> Iterable[int]:
    """Where ``word`` starts in ``text``, each place (overlaps included)."""
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + 1)


def _count_value(raw: str) -> float:
    """A count as written: "1,024", "5000", "1.5k"."""
    raw = raw.replace(",", "").strip().lower()
    return float(raw[:-1].strip()) * 1000 if raw.endswith("k") else float(raw)


def _counted_imbalance(best: dict[str, tuple[tuple[Any, ...], TextReading]], text: str) -> None:
    """Class sizes said as counts, one class at ``MT-MINORITY-SHARE`` of the examples or less: ``class_imbalance``.

    "900 negatives and 100 positives", "only 12 samples of class 3 out of 5000", "class 0 has 4500 images, class 1
    has 300": the smallest count against the counts said beside it in the sentence (their sum), or against the total
    said with it. Two counts of one size each ("600 cats and 400 dogs" is no count of a class here, and "500
    positives and 450 negatives" is balanced) add nothing; nor does a count of splits, which no cue above reads.
    """
    if "class_imbalance" in best:
        return
    from knowledge.measurements import threshold

    bound = threshold("MT-MINORITY-SHARE")
    # (where each class word starts, found by plain substring search: four pattern searches in every sentence of a
    # long log cost more than the rest of its reading; only ASCII is filtered, as a case-blind pattern also matches
    # a few letters outside it, such as the dotless "ı" for "i")
    marks: list[int] | None = None
    if text.isascii():
        low = text.lower()
        marks = sorted(at for word in _CLASS_WORDS for at in _occurrences(low, word))
        if not marks:
            return
    for sentence in re.finditer(r"(?:[^.!?\n]|[.](?!\s|$))+", text):  # (a decimal point ends no sentence: "39.6K")
        lo, hi = sentence.span()
        if marks is not None:
            k = bisect_left(marks, lo)
            if k == len(marks) or marks[k] >= hi:
                continue  # no class word in it: no pattern of a class's count can match
        counts: list[tuple[float, int, int]] = []
        predictions = False  # (once one bare count is of predictions, the ones listed after it are too)
        for p, pattern in enumerate(_CLASS_COUNTS):
            for m in pattern.finditer(text, lo, hi):
                if p == _BARE_CLASS_COUNT:
                    a = max(text.rfind(",", lo, m.start()), text.rfind(";", lo, m.start()), lo)
                    b = min((x for x in (text.find(",", m.end(), hi), text.find(";", m.end(), hi)) if x >= 0),
                            default=hi)
                    predictions = predictions or bool(_PREDICTION_COUNT.search(text, a, b))
                    if predictions:
                        continue
                if not any(a < m.end() and m.start() < b for _v, a, b in counts):
                    counts.append((_count_value(m.group("n")), m.start(), m.end()))
        if not counts:
            continue
        counts.sort(key=lambda c: c[1])
        smallest = min(counts)
        share = None
        if len(counts) >= 2 and sum(v for v, _a, _b in counts) > 0:
            share = smallest[0] / sum(v for v, _a, _b in counts)
        total = _COUNT_TOTAL.search(text, smallest[2], min(hi, smallest[2] + 40)) or \
            _COUNT_WHOLE.search(text, lo, counts[0][1])
        whole = _count_value(total.group("n")) if total is not None else 0.0
        if len(counts) == 1 and whole > 0 and counts[0][0] >= (1.0 - bound) * whole:
            share = (whole - counts[0][0]) / whole  # the one class counted is most of the whole: the rest is minor
        elif whole > smallest[0]:
            share = smallest[0] / whole
        if share is None or share > bound:
            continue
        start = counts[0][1]
        start = min(start, total.start()) if total is not None else start
        end = max(b for _v, _a, b in counts) if total is None else max(total.end(), counts[-1][2])
        words = text[start:end].strip()
        try:
            obs = Observation.make("class_imbalance", True, f"text:{words}")
        except (TrainoptError, ValueError, TypeError):
            return
        best["class_imbalance"] = ((0, 1, start, ""), TextReading(obs, words))
        size = best.get("dataset_size")
        if size is not None and any(a <= size[0][2] < b for _v, a, b in counts):
            del best["dataset_size"]  # one class's count, read as the whole data's size
        return


_RATE_NAME = rx.compile(r"\b(?P<name>recall|sensitivity|tpr|true\s+positive\s+rate|precision|ppv)\b", re.IGNORECASE)
"""The two rates of a classifier whose pair shows one answer for all: recall (sensitivity) and precision."""
_RATE_WORDS = ("recall", "sensitivity", "tpr", "true", "precision", "ppv")
"""A word each ``_RATE_NAME`` match holds: an ASCII text (lower-case, as normalised) naming none has no rate."""
_RATE_FIGURE = rx.compile(r"(?<![\w.])(?P<v>\d+(?:\.\d+)?|\.\d+)(?P<pct>\s*(?:%|percent))?(?![\w.])", re.IGNORECASE)
_RATE_NOT_FIGURE = rx.compile(r"(?:class|label|category|epoch|step|iteration|top-?|@|k\s*=)\s*$", re.IGNORECASE)
"""What makes the number after it an id or a count, not a rate ("recall for class 0", "after epoch 3", "recall@5")."""
_FIGURE_NOT_OWN_LEVEL = (r"\bfrom\b[^.;!?\n]*\bto\b|->|→|\b(?:went|goes|go|rose|dropped|improved|increased|decreased)"
                         r"\s+(?:up\s+|down\s+)?to\b|\b(?:not|never|if|should|would|expect\w*|want\w*|target\w*|goal\w*|"
                         r"reported)\b|n't\b|\?")
"""A figure said as a change, a denial, a wish or a question: no present level of the run (the rate and the
accuracy readers share it, with the words of another's run, ``_figure_not_own``)."""


@lru_cache(maxsize=1)
def _figure_not_own() -> re.Pattern[str]:
    """``_FIGURE_NOT_OWN_LEVEL``, or a word giving the sentence's figures to another run.

    A person other than the user, a third person's possessive, a published work, or "mine" / "theirs" set against
    another's ("my colleague's accuracy is 10%, mine is 90%", "in the paper, recall is 1.0"): the talk reader's lists
    of whose a movement is, shared.
    """
    from knowledge.talk import OTHER_PEOPLE, OTHER_POSSESSIVES, OTHER_WORKS

    words = sorted(OTHER_PEOPLE | OTHER_POSSESSIVES | OTHER_WORKS | {"mine", "theirs"}, key=len, reverse=True)
    return rx.compile(rf"{_FIGURE_NOT_OWN_LEVEL}|\b(?:{'|'.join(map(re.escape, words))})(?:'s|s')?\b", re.IGNORECASE)


_RATE_CHANGE = rx.compile(r"(?:recall|precision)\s*@", re.IGNORECASE)
"""A rate at a cut-off ("recall@5"): a ranking's figure, not a classifier's pair."""
_SPLIT_TRAIN = rx.compile(r"\b(?:on|in|for)\s+(?:the\s+)?train(?:ing)?\b|\btrain(?:ing)?[-\s_]*(?:set|data|split)\b",
                          re.IGNORECASE)
_SPLIT_HELD = rx.compile(r"\b(?:val(?:idation)?|test|dev|held[-\s]?out|holdout)\b", re.IGNORECASE)
"""A sentence naming both a training split and a held-out one mixes their figures ("recall of 100% on the training
set, precision 0.3 on val"): no one pair of the same predictions."""


def _rate_figures(text: str, lo: int, hi: int) -> dict[str, list[float]]:
    """The figures said after each rate's name in a sentence, as fractions (a class id or a count is skipped)."""
    names = list(_RATE_NAME.finditer(text, lo, hi))
    out: dict[str, list[float]] = {}
    for n, m in enumerate(names):
        end = names[n + 1].start() if n + 1 < len(names) else hi
        kind = "precision" if m.group("name").lower() in ("precision", "ppv") else "recall"
        for f in _RATE_FIGURE.finditer(text, m.end(), end):
            if _RATE_NOT_FIGURE.search(text, m.end(), f.start()) or _RATE_NOT_FIGURE.search(
                    text[max(m.end(), f.start() - 12):f.start()]):
                continue
            value = float(f.group("v"))
            value = value / 100 if f.group("pct") or value > 1 else value
            if 0 <= value <= 1:
                out.setdefault(kind, []).append(value)
    return out


def _constant_by_rates(best: dict[str, tuple[tuple[Any, ...], TextReading]], text: str) -> None:
    """A pair of rates only one answer for every input gives: ``predictions_constant``.

    Recall of 1 beside a precision below it ("recall 1.0 and precision 0.5", "precision 0.5, recall 100%"): every
    input is predicted positive, so every positive is found and precision is the positives' share. Per-class recall of
    1 for one class and 0 for the others ("recall is 1.0 for class 0 and 0.0 for class 1"): everything is that class.
    A rate said as a change ("recall went from 0.5 to 0.9"), denied, wished for, asked or given to another run is no
    such pair; nor is a precision near the recall (``MT-RATE-CONSTANT-PRECISION``: "recall 1, precision 0.97" is a
    good classifier), nor figures of two splits ("recall 1 on train, precision 0.3 on val").
    """
    if "predictions_constant" in best:
        return
    from knowledge.measurements import threshold

    if text.isascii() and not any(map(text.lower().__contains__, _RATE_WORDS)):
        return  # no rate named (a pasted log): not split into sentences to find none (a pass of C, not of regex)
    top, low_precision = threshold("MT-RATE-FULL"), threshold("MT-RATE-CONSTANT-PRECISION")
    for sentence in re.finditer(r"(?:[^.!?\n]|[.](?=\d))+[.!?]?", text):
        lo, hi = sentence.span()
        if not _RATE_NAME.search(text, lo, hi) or _RATE_CHANGE.search(text, lo, hi) or \
                _figure_not_own().search(text, lo, hi) or \
                (_SPLIT_TRAIN.search(text, lo, hi) and _SPLIT_HELD.search(text, lo, hi)):
            continue
        rates = _rate_figures(text, lo, hi)
        recall, precision = rates.get("recall", []), rates.get("precision", [])
        full = [r for r in recall if r >= top]
        # (a precision clearly below the full recall: 0.98 beside 0.99 is a good classifier, not one answer)
        constant = (len(recall) == 1 and full and len(precision) == 1 and precision[0] <= low_precision) or \
            (len(recall) >= 2 and len(full) == 1 and all(r <= 1 - top for r in recall if r < top) and not precision)
        if not constant:
            continue
        words = text[lo:hi].strip()
        try:
            obs = Observation.make("predictions_constant", True, f"text:{words}")
        except (TrainoptError, ValueError, TypeError):
            return
        best["predictions_constant"] = ((0, 1, lo, ""), TextReading(obs, words))
        return


_ACC_FIGURE = rx.compile(r"(?<!top-5\s)(?<!top5\s)(?<!train\s)(?<!training\s)(?<!train_)(?<!train/)"
                         r"\b(?:val(?:idation)?\s+|test\s+|eval\s+)?"
                         r"(?:top-?1\s+)?(?:accuracy|acc)\b\s*(?:(?:is|was|of|at|=|:|around|about|stays?|stayed|stuck|"
                         r"remains?|hovers?|sits?|plateaus?|only|just|~|still|hovering|staying)\s*)*"
                         r"(?:(?P<v>\d+(?:\.\d+)?|\.\d+)(?P<pct>\s*(?:%|percent))?(?![\w.])"
                         r"(?!\s*(?:epochs?|steps?|iter\w*|batch\w*|class(?:es)?|categor\w*|labels?|samples?|images?)\b)"
                         r"|(?P<chance>(?:random\s+)?chance\b|"
                         r"1\s*/\s*(?:num_classes|n_classes|n|c|k)\b|random\s+guess\w*))", re.IGNORECASE)
"""An accuracy said with its figure, or said to be at chance ("accuracy stuck at 10%", "val acc at chance level"),
not a training accuracy (whose chance level says nothing of what the model learnt to generalise)."""
_ACC_UNCERTAIN = rx.compile(r"\b(?:above|over|better\s+than|beyond)\b", re.IGNORECASE)
"""A figure said against chance: no level of the run (nor one ``_figure_not_own`` finds)."""
_ACC_TRAIN_BEFORE = rx.compile(r"\btrain(?:ing)?(?:[-\s_]*(?:set|data|split)(?:'s)?)?[-\s_/]+$", re.IGNORECASE)
"""A training split named just before the accuracy ("training-set accuracy", "train set acc"): the training figure."""


_CHANCE_LOG = rx.compile(r"\b(?:ln|log)\s*\(\s*(?P<k>\d+)\s*\)\s*$", re.IGNORECASE)
_CHANCE_DECIMALS = rx.compile(r"(?<![\d.])\d*\.(?P<d>\d+)\s*$")
_CLASS_TASKS = frozenset({"classification", "other"})
"""Tasks whose loss at ln(k) may count classes (with no task read, too). Every other task's counts none (a DPO loss
at ln 2 is its start, a language model's at ln of its vocabulary, a regression's no log of anything): an allow-list,
so that a task added later counts no classes until said to."""
_NOT_CLASS_WORDS = rx.compile(r"\bregress\w*|\brewards?/|\blogps\b|[/_]chosen\b|[/_]rejected\b|\bdpo\b|\bkl\b",
                              re.IGNORECASE)
"""Words of a text whose loss counts no classes though no task is read: a regression, or a preference/reward log's
keys ("{'loss': 0.6931, 'rewards/chosen': 0.0}": DPO starts at ln 2 by construction)."""


@lru_cache(maxsize=4)
def _chance_counts(places: int) -> tuple[int, ...]:
    """The class counts a loss quoted to ``places`` decimals is matched against (the thresholds table's bounds).

    Two decimals: 2 and the powers of ten up to ``MT-CHANCE-ROUND-MAX``; three or more: every count from 2 up to
    ``MT-CHANCE-FINE-MAX`` and the round ones above it.
    """
    from knowledge.measurements import threshold

    top = int(threshold("MT-CHANCE-ROUND-MAX"))
    rounds = (2,) + tuple(10 ** e for e in range(1, len(str(top))) if 10 ** e <= top)
    if places == 2:
        return rounds
    fine = int(threshold("MT-CHANCE-FINE-MAX"))
    return tuple(range(2, fine + 1)) + tuple(n for n in rounds if n > fine)


def _chance_classes(best: dict[str, tuple[tuple[Any, ...], TextReading]], text: str) -> None:
    """The classes a flat loss's value counts, when the text names none: "loss stuck at 2.3026" is ln(10).

    The loss read as held from the start (``loss_at_init``) matching ln(k), to the digits it was written with
    (rounded or cut: "0.69", "0.6931", "2.30", "2.302"), for k of the round counts up to ``MT-CHANCE-ROUND-MAX``
    (two decimals) or those and every count up to ``MT-CHANCE-FINE-MAX`` (three or more), or "ln(k)" written out,
    is chance level for k classes: it gives ``num_classes`` k and DX-CHANCE-01 reads the loss at chance. One decimal
    ("2.3"), a task with no classes (one not in ``_CLASS_TASKS``), a regression loss (``REGRESSION_LOSSES``: "MSE
    loss stuck at 0.69") or a text of a regression or a preference log (``_NOT_CLASS_WORDS``) gives none.

    It is read here, not in a derivation row: which k the value matches hangs on the digits it was written with,
    which only the text holds; the guards stay next to it for the same reason.
    """
    from knowledge.terms import REGRESSION_LOSSES

    init = best.get("loss_at_init")
    task = best.get("task")
    loss_fn = best.get("loss_fn")
    if init is None or "num_classes" in best or (task is not None and task[1].observation.value not in _CLASS_TASKS):
        return
    if (loss_fn is not None and loss_fn[1].observation.value in REGRESSION_LOSSES) or _NOT_CLASS_WORDS.search(text):
        return
    value, words = init[1].observation.value, init[1].words
    named = _CHANCE_LOG.search(words)
    k: int | None = None
    if named:
        k = int(named.group("k"))
    else:
        digits = _CHANCE_DECIMALS.search(words)
        places = len(digits.group("d")) if digits else 0
        if places < 2:
            return
        unit = 10.0 ** -places
        counts = _chance_counts(places)
        # (said rounded, within half a unit of its last digit; or cut, ln k at most one unit above it)
        k = next((n for n in counts if abs(value - math.log(n)) <= unit / 2 + 1e-9 or
                  0 <= math.log(n) - value < unit), None)
    if k is None or k < 2:
        return
    try:
        obs = Observation.make("num_classes", k, f"text:{words} (ln {k}: chance level)")
    except (TrainoptError, ValueError, TypeError):
        return
    best["num_classes"] = (init[0], TextReading(obs, words))


def _chance_ratio(best: dict[str, tuple[tuple[Any, ...], TextReading]], text: str) -> None:
    """An accuracy and the number of classes said together: ``val_acc_over_chance`` (accuracy times num_classes).

    "accuracy stuck at 10% on cifar10" is at chance (1.0), "val acc 50% on a binary task" too, "accuracy at chance
    level, 5 classes" as said. The validation figure read (``val_metric``, an accuracy) is used first; else an
    accuracy said with no split, which people mean as the model's (not a training accuracy's, read apart).
    """
    classes = best.get("num_classes")
    if classes is None or "val_acc_over_chance" in best:
        return
    n = classes[1].observation.value
    if not isinstance(n, int) or n < 2:
        return
    from knowledge.derive import over_chance  # (the derivation layer's, which joins it from any sources)
    val, kind = best.get("val_metric"), best.get("metric_kind")
    ratio, start, words = None, 0, ""
    if val is not None and kind is not None and kind[1].observation.value == "accuracy" and \
            0 <= val[1].observation.value <= 1:
        ratio, start, words = over_chance(val[1].observation.value, n), val[0][2], val[1].words
    else:
        for sentence in re.finditer(r"(?:[^.!?\n]|[.](?=\d))+[.!?]?", text):
            lo, hi = sentence.span()
            if _ACC_UNCERTAIN.search(text, lo, hi) or _figure_not_own().search(text, lo, hi):
                continue
            m = _ACC_FIGURE.search(text, lo, hi)
            if m is None or _ACC_TRAIN_BEFORE.search(text[max(lo, m.start() - 24):m.start()]):
                continue
            if m.group("chance"):
                ratio = 1.0
            else:
                value = float(m.group("v"))
                value = value / 100 if m.group("pct") or value > 1 else value
                if not 0 <= value <= 1:
                    continue
                ratio = over_chance(value, n)
            start, words = m.start(), m.group(0).strip()
            break
    if ratio is None:
        return
    try:
        obs = Observation.make("val_acc_over_chance", round(ratio, 4), f"text:{words}")
    except (TrainoptError, ValueError, TypeError):
        return
    best["val_acc_over_chance"] = ((0, 1, start, ""), TextReading(obs, words))


_LOGGED_LOSS = rx.compile(r"(?<![\w.])['\"]?(?:train_|training_|train/|train\s)?loss['\"]?\s*[:=]\s*"
                          r"(?P<v>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)", re.IGNORECASE)
"""A training loss as a trainer logs it: the Hugging Face Trainer's ``{'loss': 0.0, ...}``, ``loss: 2.31``, ``loss=0``
(not ``eval_loss`` nor ``val_loss``: the name must start there)."""
_LOGGED_VALUE = r"['\"]?\s*[:=]\s*(?P<v>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)"
_TRAIN_PREFIX = r"(?:rain_|raining_|rain/|rain\s)"
_LOGGED_LOSS_LOWER = rx.compile(rf"(?:'(?<![\w.]')(?:t{_TRAIN_PREFIX})?loss|\"(?<![\w.]\")(?:t{_TRAIN_PREFIX})?loss|"
                                rf"t(?<![\w.]t){_TRAIN_PREFIX}loss|l(?<![\w.]l)oss){_LOGGED_VALUE}")
"""``_LOGGED_LOSS`` for a lower-case ASCII text, the same matches: each way a match may open is led by its first
character and the word-start test follows it, so the regex engine skips to those characters (a pattern led by the
test is tried at every place of a megabyte of log)."""


def _logged_collapse(best: dict[str, tuple[tuple[Any, ...], TextReading]], text: str) -> None:
    """A logged training loss that was positive and then reads exactly 0 to the last line: ``loss_collapses_zero``.

    "{'loss': 2.31, 'epoch': 0.1} ... {'loss': 0.0, 'epoch': 0.5} {'loss': 0.0, 'epoch': 1.0}": the reading "the loss
    drops to 0.0 after 200 steps" gives in words, taken from the values in the order logged. A loss that only falls
    ("0.5, 0.3, 0.0012"), that is 0 from its first line (``loss_zero_from_start``'s), or that is 0 once and then
    positive again says no collapse.
    """
    if "loss_collapses_zero" in best:
        return
    # (each value read only where the test asks it: a long log's first and last ones, and its run of zeros at the end)
    found = list(_LOGGED_LOSS_LOWER.finditer(text) if lower_ascii(text) else _LOGGED_LOSS.finditer(text))

    def value(n: int) -> float:
        return float(found[n].group("v"))

    if len(found) < 2 or value(-1) != 0.0 or value(0) <= 0.0:
        return
    first_zero = next(n for n in range(len(found) - 1, -1, -1) if n == 0 or value(n - 1) != 0.0)
    if first_zero == 0:
        return
    start, end = found[first_zero - 1].start(), found[first_zero].end()
    words = text[start:end].strip()
    try:
        obs = Observation.make("loss_collapses_zero", True, f"text:{words}")
    except (TrainoptError, ValueError, TypeError):
        return
    best["loss_collapses_zero"] = ((0, 1, start, ""), TextReading(obs, words))


def _decay_per_step(best: dict[str, tuple[tuple[Any, ...], TextReading]]) -> None:
    """The fraction weight decay alone takes off the weights each step, from the LR and the decay said together.

    "AdamW, lr 1e-2, weight_decay 1.0", "SGD lr 0.1 momentum 0.9 weight decay 0.5": ``decay_per_step`` is lr * wd
    for a decoupled decay (AdamW, Lion, or no optimizer named) and lr * wd / (1 - momentum) for SGD's coupled one,
    as the optimizer probe measures it. Adam's coupled L2 is divided by the gradient's scale, so no rate follows
    from the two numbers there.
    """
    lr, wd = best.get("learning_rate"), best.get("weight_decay")
    if lr is None or wd is None or "decay_per_step" in best:
        return
    rate, decay = lr[1].observation.value, wd[1].observation.value
    if not (isinstance(rate, (int, float)) and isinstance(decay, (int, float))) or rate <= 0 or decay <= 0:
        return
    opt = best.get("optimizer")
    name = str(opt[1].observation.value) if opt is not None else ""
    if name in ("adam", "adagrad", "rmsprop", "adafactor"):
        return
    per_step = rate * decay
    if name.startswith("sgd") or name in ("momentum", "nesterov"):
        mom = best.get("sgd_momentum")
        m = mom[1].observation.value if mom is not None else (0.9 if name != "sgd" else 0.0)
        if not isinstance(m, (int, float)) or m >= 1:
            return
        per_step /= 1.0 - m
    words = f"{lr[1].words}; {wd[1].words}"
    try:
        obs = Observation.make("decay_per_step", float(f"{per_step:.3g}"), f"text:{words}")
    except (TrainoptError, ValueError, TypeError):
        return
    best["decay_per_step"] = (wd[0], TextReading(obs, words))


def _negative_kl_loss(best: dict[str, tuple[tuple[Any, ...], TextReading]], text: str) -> None:
    """The KL divergence said to go negative names the loss in use: ``loss_fn=kl_div`` outside policy tuning.

    "my KLDivLoss gives negative values": the negative-loss cue takes in the loss's name, so the name's own cue
    reads nothing; the KL is then the chosen loss (a distillation's, a VAE's). In a run tuned against a reference
    policy (PPO, DPO, RLHF: ``POLICY_WORDS``, or the task read as one) the KL is a penalty the run monitors, not
    its loss, and nothing is added.
    """
    neg = best.get("negative_loss")
    if neg is None or neg[1].observation.value is not True or "loss_fn" in best:
        return
    # imported only here, where a negative loss was read: the keyword family (and what it imports) stays out of
    # every other complaint's process
    from knowledge.keywords import _KL_NAME
    from knowledge.talk import POLICY_WORDS

    task = best.get("task")
    if task is not None and task[1].observation.value in ("rl", "preference_tuning"):
        return
    if set(re.findall(r"[a-z]+", text.lower())) & POLICY_WORDS:
        return
    found = rx.compile(_KL_NAME, re.IGNORECASE).search(text)
    if found is None:
        return
    try:
        obs = Observation.make("loss_fn", "kl_div", f"text:{found.group(0).strip()}")
    except (TrainoptError, ValueError, TypeError):
        return
    best["loss_fn"] = (neg[0], TextReading(obs, found.group(0).strip()))


_LATER = rx.compile(r"[.!?](?=\s|$)|[;\n]|\bepochs?\s*[:#]?\s*(?:[2-9]|\d{2,})|\b(?:[2-9]|\d{2,})\s+epochs\b|"
                    r"\b(?:now|later|currently|today)\b", re.IGNORECASE)
"""Words between a first-evaluation time and two loss values that put the values later: a sentence break,
another epoch's number, a count of epochs, "now"."""


def _first_eval_gap(best: dict[str, tuple[tuple[Any, ...], TextReading]], text: str) -> None:
    """A validation loss an order of magnitude above the training loss at the first evaluation, said in numbers.

    "epoch 1: train loss 0.4, val loss 12.5", "at the first eval val_loss=15 with train_loss=0.7": both losses'
    values read (``metric_kind`` loss), the validation one ``MT-FAR-ABOVE`` times the training one or more, and
    the first evaluation said of them (``FIRST_EVAL`` within ``MT-FIRST-EVAL-REACH`` characters, nothing later
    between, ``_LATER``): no memorising
    opens such a gap in one epoch, so ``val_loss_far_above_from_start`` is added to ``best``. A gap said at a later
    epoch is the ordinary overfit's and adds nothing.
    """
    kind, train, val = best.get("metric_kind"), best.get("train_metric"), best.get("val_metric")
    if kind is None or train is None or val is None or kind[1].observation.value != "loss" or \
            "val_loss_far_above_from_start" in best:
        return
    # imported only where two losses were read: the thresholds' family stays out of every other complaint's process
    from knowledge.measurements import threshold
    from knowledge.talk import FIRST_EVAL

    t, v = train[1].observation.value, val[1].observation.value
    if not (isinstance(t, (int, float)) and isinstance(v, (int, float)) and t > 0
            and v >= threshold("MT-FAR-ABOVE") * t):
        return
    at = min(train[0][2], val[0][2])
    end = max(train[0][2] + len(train[1].words), val[0][2] + len(val[1].words))
    reach = int(threshold("MT-FIRST-EVAL-REACH"))
    lo, hi = max(0, at - reach), end + reach
    # the time must be said of these values: another epoch, a count of epochs or a sentence break between them
    # puts the values at a later time ("epoch 1 was fine. at epoch 30 train loss ...", "from the start for 100
    # epochs, now train loss ...", "... at epoch 100 (epoch 1 had ...)")
    if not any(_LATER.search(text[m.end():at] if m.end() <= at else text[end:m.start()]) is None
               for m in rx.compile(FIRST_EVAL).finditer(text, lo, hi) if m.end() <= at or m.start() >= end):
        return
    try:
        obs = Observation.make("val_loss_far_above_from_start", True, f"text:{train[1].words}")
    except (TrainoptError, ValueError, TypeError):
        return
    best["val_loss_far_above_from_start"] = (train[0], TextReading(obs, train[1].words))


_ASKS = rx.compile(r"\?|\b(?:why|how|what|whether|should|any\s+idea)\b", re.IGNORECASE)
"""Words of a text that asks something: a trouble it says was fixed is then what it asks about."""



def _stem_in(word: str, stems: Any) -> bool:
    """Whether ``word`` is one of ``stems`` (a stem ending in ``*`` takes any ending)."""
    return word in stems or any(s.endswith("*") and word.startswith(s[:-1]) for s in stems)


def _coarse(text: str, status: Any = None) -> tuple[str, Any, int, int, str] | str | None:
    """The last resort when nothing was read: the symptom family the general words of a training complaint suggest.

    Only a text about training (``COARSE_TOPIC``) that calls nothing healthy (``COARSE_HEALTHY``) is read. Each
    family of ``COARSE_FAMILIES`` is suggested by its phrases, or by a subject near a direction word, unless the
    clause says it only as negated, asked, denied or past (``expert.talk.clause_status``, the judgement the other
    readers use). One family suggested: its observation, the cue's span and the family's name. Several: a
    clarifying question naming them (a guess between them would as likely be wrong). None: ``None``.

    Args:
        text: The normalised text.
        status: Its :class:`expert.talk.ClauseStatus` (made here when None).
    """
    from expert.talk import SENTENCE_END, STATED, ClauseStatus, tokenise
    from knowledge.talk import (
        COARSE_CHARS,
        COARSE_CONTRAST,
        COARSE_FAMILIES,
        COARSE_HEALTHY,
        COARSE_PAIR_REACH,
        COARSE_TOPIC,
        COARSE_TOPIC_TOGETHER,
        NEGATORS,
    )

    status = ClauseStatus(text) if status is None else status
    # (lower-cased in place: a character whose lower case is longer, "İ", stays, so that every word's offsets are
    # the text's and the status can be asked about it)
    low = lower_aligned(text[:COARSE_CHARS])
    # the reader's own tokens (words as typed, apostrophes dropped), each with the sentence it is in (a "needs" word
    # and a pair's two words must share it)
    toks: list[tuple[str, int, int]] = []
    lemmas: list[str] = []  # each word's lemma ("hung" -> hang, "dies" -> die): a stem matches either form
    sent_ids: list[int] = []
    # words written as code (a call or what it is called on, "errors.sum()", its one argument, "len(errors)", or a
    # name assigned, "errors = ..."): a variable's name, no word of the complaint ("loss = errors.sum()" raises no
    # error)
    code: set[int] = set()
    sentence = 0
    for t in tokenise(low, fuzzy=False):
        if t.text in SENTENCE_END:
            sentence += 1
        elif t.kind in ("word", "num"):
            toks.append((t.text.replace("'", ""), t.start, t.end))
            lemmas.append(t.lemma if t.lemma != "not" else toks[-1][0])  # (a contraction keeps its own spelling)
            sent_ids.append(sentence)
            if t.kind == "word" and (low.startswith("(", t.end) or _METHOD_CALL.match(low, t.end) or
                                     (low.startswith(")", t.end) and t.start and low[t.start - 1] == "(")):
                code.add(len(toks) - 1)
        elif t.text == "=" and toks and not low.startswith("=", t.end) and \
                not low[toks[-1][2]:t.start].strip() and not low.startswith("=", t.start - 1):
            code.add(len(toks) - 1)
    words = [w for w, _s, _e in toks]

    def is_(i: int, stems: Any) -> bool:
        """Whether word ``i``, as typed or as its lemma, is one of ``stems``."""
        return _stem_in(words[i], stems) or _stem_in(lemmas[i], stems)

    if not any(is_(i, COARSE_TOPIC) for i in range(len(words))) and \
            not all(any(is_(i, group) for i in range(len(words))) for group in COARSE_TOPIC_TOGETHER):
        return None  # not about training: say nothing rather than guess

    def negated(i: int, own: bool = False) -> bool:
        """Whether word ``i`` is said other than as stated (``own``: the words hold their own negation)."""
        return status.of(toks[i][1], toks[i][2], negatable=not own) != STATED

    # a contrast after a healthy word in its sentence ("does well in training but bombs on test") turns to what is
    # not: the healthy word silences nothing, and the words before the contrast are not read
    turned = [next((k for k in range(i + 1, len(words)) if sent_ids[k] == sent_ids[i] and is_(k, COARSE_CONTRAST)),
                   None) for i in range(len(words))]
    if any(is_(i, COARSE_HEALTHY) and not negated(i) and turned[i] is None for i in range(len(words))):
        return None  # "the loss goes down fine": a run described as healthy gets no symptom
    unread = {n for i in range(len(words)) if is_(i, COARSE_HEALTHY) and not negated(i)
              for n in range(len(words)) if sent_ids[n] == sent_ids[i] and n < turned[i]}
    found: list[tuple[int, int, Any]] = []  # (first token, last token, family)
    for fam in COARSE_FAMILIES:
        if fam.unless_words and any(is_(i, fam.unless_words) for i in range(len(words))):
            continue
        hit = None
        for i in range(len(words)):
            if i in unread or i in code:
                continue
            for seq in fam.phrases:
                j = i + len(seq)
                if j > len(words) or not all(is_(i + n, (s,)) for n, s in enumerate(seq)):
                    continue
                if negated(i, own=seq[0] in NEGATORS):
                    continue
                if (not fam.guarded or seq[0] in fam.guarded) and (
                        (j < len(words) and words[j] in fam.unless_next) or (i and words[i - 1] in fam.unless_prev)):
                    continue  # "error rate", "test error": a metric named, no error raised
                hit = (i, j - 1)
                break
            if hit is None and fam.subjects and is_(i, fam.subjects):
                for j in range(max(0, i - COARSE_PAIR_REACH), min(len(words), i + COARSE_PAIR_REACH + 1)):
                    if j != i and j not in unread and j not in code and sent_ids[j] == sent_ids[i] and \
                            is_(j, fam.directions) and \
                            not negated(j):
                        hit = (min(i, j), max(i, j))
                        break
            if hit is not None and fam.needs and not any(
                    is_(n, fam.needs) for n in range(len(words)) if sent_ids[n] == sent_ids[hit[0]]):
                hit = None
            if hit is not None:
                break
        if hit is not None and all(f.family != fam.family for _i, _j, f in found):
            found.append((*hit, fam))  # (a family written as two rows, each with its own guards, counts once)
    if len(found) == 1:
        i, j, fam = found[0]
        (name, value), = fam.sets.items()
        return name, value, toks[i][1], toks[j][2], fam.family
    if found:
        names = [fam.family for _i, _j, fam in found]
        return ("I could not read your message exactly: is it about " + ", ".join(names[:-1]) +
                f" or {names[-1]}? (say which in your own words)")
    return None


_METHOD_CALL = rx.compile(r"\.[a-z_]\w*\(")
"""A method called on the word before it ("errors.sum()"): that word is a variable's name."""


def _hypothesis(name: str) -> bool:
    """Whether an observation names a cause (``knowledge.talk.HYPOTHESIS_GROUPS``, ``HYPOTHESIS_NAMES``)."""
    from knowledge.talk import HYPOTHESIS_GROUPS, HYPOTHESIS_NAMES
    from knowledge.vocabulary import VOCABULARY

    return name in HYPOTHESIS_NAMES or (name in VOCABULARY and VOCABULARY[name].group in HYPOTHESIS_GROUPS)


def confirmations(text: str) -> list[str]:
    """Questions that would confirm the readings a text leaves open, one line each, without repeats.

    Open readings are words read two ways ("you said 'stuck': the loss, or the run?") and readings the user
    hedged ("maybe", "I think").
    """
    if not isinstance(text, str) or not text.strip():
        return []
    u, readings = _understood(text)
    weak = any(r.weak for r in readings)
    # (a fallback's question only when the fallback is what was read: a cue may have read the text instead)
    out = [q for word, q in u.confirm if weak or not word.startswith("fallback:")]
    for r in readings:
        if r.hedged:
            o = r.observation
            out.append(f"You sounded unsure about \"{r.words}\" ({o.name}={o.value}): is that what you see? "
                       f"(`forget {o.name}` drops it)")
    return list(dict.fromkeys(out))


def offered(text: str) -> list[Observation]:
    """The causes a text only asked about ("does the warmup end too early?"), as the observations a `yes` records.

    They are not read from the text (a question is no observation); ``confirmations`` asks about each.
    """
    if not isinstance(text, str) or not text.strip():
        return []
    return list(_understood(text)[0].offered)


def checks_for(observations: Iterable[Observation]) -> frozenset[str]:
    """The observations whose questions check the user's hypotheses among ``observations``.

    A cause only asked about (``offered``) is checked by the question that sets its own observation; a setting the
    user suspects (``self_diagnosis``: "maybe it's the lr?") by the questions of that setting
    (``knowledge.talk.TOPIC_SETTINGS``).
    """
    from knowledge.talk import SUSPECT_NAMES, TOPIC_SETTINGS

    topics = {v: k for k, v in SUSPECT_NAMES.items()}
    out: set[str] = set()
    for o in observations:
        if o.name == "self_diagnosis":
            out.update(TOPIC_SETTINGS.get(topics.get(str(o.value), ""), ()))
        else:
            out.add(o.name)
    return frozenset(out)


def reread(words: str, quantity: str) -> list[Observation]:
    """Read ``words`` again as said of another quantity.

    "not hang, the loss" turns "training is stuck" into "the loss is stuck": the first quantity named in
    ``words`` is replaced (or ``quantity`` is put in front).

    Returns:
        The observations the corrected words state, with provenance ``text:<words> (corrected: <quantity>)``.
    """
    from expert.talk import _parts, tokenise

    low = lower_aligned(words)
    tokens = tokenise(low)
    target = next((p for p in _parts(tokens) if p.roles.get("q") not in (None, "pronoun")), None)
    fixed = (low[:target.start] + quantity + low[target.end:]) if target else f"{quantity} {low}"
    source = f"text:{words} (corrected: {quantity})"
    return [Observation.make(o.name, o.value, source) for o in parse_complaint(fixed)]
