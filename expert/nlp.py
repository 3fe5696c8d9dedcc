"""Text helpers for the complaint parser: spelling normalisation with an offset map, and a linear cue scanner.

Two problems are solved here, independent of any topic:

* **Normalisation.** Users write "optimiser", "behaviour", "labelled", "over-fitting", "warm-up". Cues are
  written once, in American spelling and closed compounds; :func:`normalise` rewrites the (lower-cased)
  text to that form and keeps anchors back to the original, so a matched phrase is always quoted from what
  the user actually typed.
* **Linear time.** Scanning a long text with every cue's regular expression costs (number of cues) x (text
  length) with a large constant, because a pattern that starts with a look-behind or an alternation gets no
  literal fast path. :class:`Scanner` instead computes, once per cue, the set of literal prefixes a match can
  start with (from the parsed pattern), indexes the text's word starts by their first characters, and tries
  each cue only where one of its prefixes occurs. A cue whose prefixes cannot be bounded is scanned the
  ordinary way. Before that, a cue is skipped outright when none of the words every one of its matches must
  contain (:func:`required_words`) occurs in the text: a pasted log never mentions most cues. Either way the
  matches are the ones ``finditer`` with a no-word-character-before guard would give.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from itertools import chain, repeat
from typing import Any

from expert import rx
from knowledge.record import dataclass

try:  # Python >= 3.11 keeps the pattern parser here; 3.10 has it as a top-level module
    import re._constants as _sre_c  # type: ignore[import-not-found]
    import re._parser as _sre_p  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - exercised on 3.10 only
    import sre_constants as _sre_c  # type: ignore[no-redef]
    import sre_parse as _sre_p  # type: ignore[no-redef]

# ------------------------------------------------------------------------------------------- normalisation

# Each rewrite is found by a literal suffix (fast to scan for) and applies only when the word before it is one
# of the listed stems; the replacement keeps the stem. Words are matched in lower case.
_IS_STEMS = frozenset(
    "optim normal regular general initial util stabil memor quant token serial synchron visual parallel vector "
    "random minim maxim summar categor custom recogn final penal special standard parameter discret binar "
    "character priorit amort modern capital real factor local central organ personal anonym harmon equal "
    "neutral canonical symbol tensor vectoriz normaliz".split())
_OUR_STEMS = frozenset("behavi col fav hon lab neighb rum vap".split())
# the suffix is found at the doubled "ll", so the stem is the word less its final "l"
_LL_STEMS = frozenset(w[:-1] for w in "label model cancel signal travel channel fuel level tunnel".split())
_RE_STEMS = frozenset("cent lit met fib".split())
_UE_STEMS = frozenset("catalog dialog".split())
_COMPOUND_HEADS = frozenset("over under pre re non multi mini warm cool sub co mis auto".split())
_BLANKS = ("\t", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", "  ", " \n", "\n ", "\n\n")
"""What an ASCII text holds where the first rewrite below has a blank run to fold: a blank other than a space or a
newline, or two blanks in a row."""
_REWRITES: tuple[tuple[re.Pattern[str], frozenset[str] | None, Callable[[str], str], tuple[str, ...] | None], ...] = (
    # blank runs -> one space (a newline where the run had one, as it ends a clause); single spaces are kept, and
    # so are lone newlines (a pasted log holds one a line, each its own rewrite to nothing otherwise)
    (rx.compile(r"[^\S \n]\s*|\n\s+|\s{2,}"), None, lambda t: "\n" if "\n" in t else " ", _BLANKS),
    (rx.compile(r"is(?:e|ed|es|er|ers|ing|ation|ations|able)\b"), _IS_STEMS, lambda t: "iz" + t[2:], None),
    (rx.compile(r"ys(?:e|ed|es|ing)\b"), frozenset({"anal", "paral", "catal"}), lambda t: "yz" + t[2:], None),
    (rx.compile(r"our(?:s|ed|ing|al|ally)?\b"), _OUR_STEMS, lambda t: "or" + t[3:], None),
    (rx.compile(r"ll(?:ed|ing|er|ers)\b"), _LL_STEMS, lambda t: t[1:], None),
    (rx.compile(r"res?\b"), _RE_STEMS, lambda t: "er" + t[2:], None),
    (rx.compile(r"ues?\b"), _UE_STEMS, lambda t: t[2:], None),
    # closed compounds: "over-fitting", "warm-up", "pre-trained", "non-finite", "multi-gpu", "re-run"
    (rx.compile(r"-(?=[a-z])"), _COMPOUND_HEADS, lambda t: "", None),
    # the slash shorthands of chat ("w/ adam", "w/o warmup", "b/c the lr"), written out: cues say the words
    (rx.compile(r"(?<![\w/.])(?:w/o|b/c|w/) ?(?![\w/]*/)"), None, lambda t: _SHORTHANDS[t.strip()] + " ",
     ("w/", "b/c")),
)
"""Each rewrite: its pattern, the stems its match must follow (None: any), the replacement, and the strings an ASCII
text holds wherever the pattern can match (None: not known). A pattern led by a class or a look-behind is tried at
every character of the text, and a pasted log is long: it is not searched in a text that holds none of them."""
_SHORTHANDS = {"w/": "with", "w/o": "without", "b/c": "because"}
_SLIP_WORD = rx.compile(r"(?<![\w.'/-])[a-z]{5,}(?![\w'/-])")
"""A word a spelling slip may be corrected in: letters only, not part of an identifier, a path or a number."""
_UNICODE = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                          "\u2014": "-", "\u2010": "-", "\u2011": "-", "\u2212": "-", "\u00a0": " ",
                          "\u00d7": "x", "\u2009": " ", "\u202f": " "})


def _stem_before(low: str, pos: int) -> str:
    """The run of letters that ends at ``pos`` (the word a suffix belongs to)."""
    i = pos
    while i > 0 and low[i - 1].isalpha() and pos - i < 40:
        i -= 1
    if i > 0 and low[i - 1].isalpha():
        return ""  # longer than any stem we know
    return low[i:pos]


def lower_aligned(text: str) -> str:
    """``text.lower()``, except that a character whose lower case is two characters keeps its length."""
    low = text.lower()
    if len(low) != len(text):
        # lower-case the runs between the few characters that grow ("İ"), which stay as they are
        grow = "".join(sorted(c for c in set(text) if len(c.lower()) != 1))
        low = re.sub(f"[^{re.escape(grow)}]+", lambda m: m.group(0).lower(), text)
    return low


_ASCII_LETTER = rx.compile(r"[a-z]")


def lower_ascii(text: str) -> bool:
    """``text.isascii() and text.islower()``, the same answer in two passes of C over the text.

    ``str.islower`` looks up the case of every character (about 30 ms a megabyte, and a long text is asked of
    several times); an ASCII text has no upper-case letter when lower-casing leaves it as it is, and is lower-case
    when it holds a letter besides.
    """
    return text.isascii() and text.lower() == text and _ASCII_LETTER.search(text) is not None


@dataclass(frozen=True)
class Normalised:
    """A normalised text and the way back to the original.

    Attributes:
        text: The normalised text.
        original: The text as given (after unicode NFKC folding, which keeps the user's words).
        anchors: Sorted ``(offset in text, offset in original)`` pairs where a rewritten span begins or ends;
            between two anchors the texts run in step.
    """

    text: str
    original: str
    anchors: tuple[tuple[int, int], ...]

    def offset(self, pos: int) -> int:
        """The offset in ``original`` of offset ``pos`` of ``text``."""
        k = bisect_right(self.anchors, (pos, len(self.original) + 1)) - 1
        if k < 0:
            return pos
        at, orig = self.anchors[k]
        return orig + (pos - at)

    def source(self, start: int, end: int) -> str:
        """The original text behind ``text[start:end]``."""
        return self.original[self.offset(start):self.offset(end)]


def normalise(text: str, correct: Callable[[str], str] | None = None) -> Normalised:
    """Lower-case the text and fold unicode punctuation, blank runs, British spellings and hyphenated compounds.

    Args:
        text: Raw user text.
        correct: The word a spelling slip stands for (the word itself when it is none): given, each word of
            five letters or more that no other rewrite touched is replaced by it, so that cues written once
            match what the user meant ("expeted all tensors" reads as "expected all tensors").

    Returns:
        The normalised text with its way back to the original (see :class:`Normalised`).
    """
    if text.isascii():
        original = text.translate(_UNICODE)  # (NFKC leaves ASCII as it is: unicodedata need not load for it)
    else:
        import unicodedata

        original = unicodedata.normalize("NFKC", text).translate(_UNICODE)
    low = lower_aligned(original)
    edits: list[tuple[int, int, str]] = []
    ascii_text = low.isascii()
    for rewrite, stems, repl, needs in _REWRITES:
        if needs is not None and ascii_text and not any(map(low.__contains__, needs)):
            continue  # (nothing it can match)
        for m in rewrite.finditer(low):
            if stems is not None and _stem_before(low, m.start()) not in stems:
                continue
            rep = repl(m.group(0))
            if rep != m.group(0):
                edits.append((m.start(), m.end(), rep))
    if correct is not None:
        touched = {i for start, end, _ in edits for i in range(start, end)}
        for m in _SLIP_WORD.finditer(low):
            word = m.group(0)
            if m.end() - 1 in touched:
                continue  # a British spelling or a compound: its rewrite stands
            fixed = correct(word)
            if fixed != word:
                edits.append((m.start(), m.end(), fixed))
    edits.sort()
    parts: list[str] = []
    anchors: list[tuple[int, int]] = []
    last = out = 0
    for start, end, rep in edits:
        if start < last:
            continue  # overlaps an earlier edit (cannot happen with these rules; kept safe)
        parts.append(low[last:start])
        out += start - last
        anchors.append((out, start))
        parts.append(rep)
        out += len(rep)
        # past the replacement the texts run in step again, from the end of the replaced span
        anchors.append((out, end))
        last = end
    parts.append(low[last:])
    return Normalised("".join(parts), original, tuple(anchors))


# ------------------------------------------------------------------------------------------- linear scanning

PREFIX_LEN = 3
"""Prefixes are cut at this length: long enough to be selective, short enough to stay a small set."""
_MAX_PREFIXES = 400
"""A cue with more possible prefixes than this is scanned the ordinary way."""

_WORD_CHAR = rx.compile(r"\w")
_WORD_START = rx.compile(r"(?<!\w)\w")


class _Unbounded(Exception):
    """The pattern can start with something we do not enumerate."""


def _class_chars(items: Any) -> set[str]:
    chars: set[str] = set()
    for op, av in items:
        if op is _sre_c.LITERAL:
            chars.add(chr(av).lower())
        elif op is _sre_c.RANGE:
            lo, hi = av
            if hi - lo > 64:
                raise _Unbounded
            chars.update(chr(c).lower() for c in range(lo, hi + 1))
        elif op is _sre_c.CATEGORY and av is _sre_c.CATEGORY_DIGIT:
            chars.update("0123456789")
        else:
            raise _Unbounded
    return chars


def _extend(cur: set[str], items: Any, done: set[str]) -> set[str]:
    """Grow the prefixes in ``cur`` over the parsed ``items``; prefixes that cannot grow further go to ``done``."""
    for op, av in items:
        if not cur:
            return cur
        if op is _sre_c.LITERAL:
            cur = {p + chr(av).lower() for p in cur}
        elif op is _sre_c.NOT_LITERAL or op is _sre_c.ANY:
            done |= cur
            return set()
        elif op is _sre_c.IN:
            try:
                chars = _class_chars(av)
            except _Unbounded:
                done |= cur
                return set()
            cur = {p + c for p in cur for c in chars}
        elif op is _sre_c.SUBPATTERN:
            cur = _extend(cur, av[-1], done)
        elif op is _sre_c.BRANCH:
            cur = set().union(*(_extend(set(cur), alt, done) for alt in av[1]))
        elif op in (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT, getattr(_sre_c, "POSSESSIVE_REPEAT", None)):
            lo, hi, item = av
            once = _extend(set(cur), item, done)
            if hi != 1:
                done |= once  # after one pass the number of repeats is open: these prefixes stop here
                once = set()
            cur = (cur | once) if lo == 0 else once
            if lo > 1:
                done |= cur
                return set()
        elif op in (_sre_c.AT, _sre_c.ASSERT, _sre_c.ASSERT_NOT):
            continue  # zero-width: consumes nothing
        else:
            done |= cur
            return set()
        long_enough = {p[:PREFIX_LEN] for p in cur if len(p) >= PREFIX_LEN}
        done |= long_enough
        cur = {p for p in cur if len(p) < PREFIX_LEN}
        if len(cur) + len(done) > _MAX_PREFIXES:
            raise _Unbounded
    return cur


@lru_cache(maxsize=1024)
def _parsed(pattern: str) -> Any:
    """The regex engine's parse of a cue (parsed once for both analyses below)."""
    return _sre_p.parse(pattern, re.IGNORECASE)


def literal_prefixes(pattern: str) -> frozenset[str] | None:
    """The lower-case strings (at most ``PREFIX_LEN`` long) one of which every match of ``pattern`` starts with.

    Returns:
        The prefixes, or None when they cannot be bounded (the pattern may start with anything, with an empty
        match, or with a blank). A prefix may begin with punctuation ("--accumulate"); the scanner finds those
        by searching for them rather than through its word-start index.
    """
    try:
        parsed = _parsed(pattern)
        done: set[str] = set()
        rest = _extend({""}, parsed, done)
    except (_Unbounded, re.error, RecursionError, TypeError, ValueError):
        return None
    prefixes = done | rest
    if not prefixes or "" in prefixes or any(p[0].isspace() for p in prefixes):
        return None
    return frozenset(prefixes)


PREFIXED_CHARS = 20_000
"""From this many characters on, :func:`finditer_prefixed` tries a pattern only where one of its prefixes occurs
(below it, parsing the pattern for its prefixes costs more than the search it saves)."""


@lru_cache(maxsize=256)
def _prefix_finders(pattern: str, flags: int) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """Searches for the places a match of ``pattern`` may start (one of its literal prefixes there), or None.

    The first search is for a lower-case ASCII text (the prefixes as they are, which the regex engine skips to
    by their first characters); the second, case-blind, for any other text. None when the prefixes cannot be
    bounded, when a prefix is a single character (nearly every place of a text would be tried), or when the
    pattern may match the empty string (``finditer`` steps over empty matches in a way trying at places does
    not copy).
    """
    if flags & ~(re.UNICODE | re.IGNORECASE):
        return None  # (the prefixes are read as the pattern parses with no other flag)
    prefixes = literal_prefixes(pattern)
    if prefixes is None or min(map(len, prefixes)) < 2:
        return None
    try:
        if _sre_p.parse(pattern, flags).getwidth()[0] == 0:
            return None
    except (re.error, RecursionError, TypeError, ValueError):
        return None
    alternatives = "|".join(map(re.escape, sorted(prefixes)))
    return re.compile(alternatives), re.compile(alternatives, re.IGNORECASE)


def finditer_prefixed(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``'s matches, the same ones, tried only where one of the pattern's prefixes occurs.

    Why: an alternation of words with word boundaries gives the regex engine no first character to skip to, so
    it tries every place of a long text (about a tenth of a second per megabyte); the places where one of the
    pattern's literal prefixes (:func:`literal_prefixes`) occurs are found by a search the engine skips through,
    and a match is tried at each with ``pattern.match(text, at)``, which sees the text before ``at`` as
    ``finditer`` does.
    """
    finders = _prefix_finders(pattern.pattern, pattern.flags) if len(text) >= PREFIXED_CHARS else None
    if finders is None:
        yield from pattern.finditer(text)
        return
    # (in a lower-case ASCII text the case-blind places are the lower-case ones; any other text is searched
    # case-blind: the prefixes are lower-case, the pattern may not be)
    find = (finders[0] if lower_ascii(text) else finders[1]).search
    match, reach, at = pattern.match, 0, 0
    while (place := find(text, at)) is not None:
        at = place.start()
        if at >= reach:  # (a place inside the last match is not tried: finditer goes on from its end)
            m = match(text, at)
            if m is not None:
                yield m
                reach = m.end()  # (never empty: such patterns are not tried here)
        at += 1  # (the next place may overlap this one: "outarget" holds "out" and "tar")


_ZERO_WIDTH = (_sre_c.AT, _sre_c.ASSERT, _sre_c.ASSERT_NOT)
_WORD_CLASS = [(_sre_c.CATEGORY, _sre_c.CATEGORY_WORD)]


def _word_run(op: Any, av: Any) -> bool:
    r"""Whether a parsed item is one word character (``\w``) or a repeat of one (``\w*``, ``\w+``)."""
    if op is _sre_c.IN:
        return list(av) == _WORD_CLASS
    if op in _REPEATS:
        item = list(av[2])
        return len(item) == 1 and item[0][0] is _sre_c.IN and list(item[0][1]) == _WORD_CLASS
    return False


def word_led_prefixes(pattern: str) -> tuple[frozenset[str], frozenset[str]] | None:
    r"""For a cue with no literal prefixes: its alternatives' prefixes, and the prefixes after a leading word run.

    ``\w*sched\w*\.step\(\)`` or ``\w\)?\.log\(\)`` may start with any word character, but a match
    that starts where no word character precedes it (as the scanner's matches do) starts at the beginning of the
    run of word characters before the place of "sch" or ")." / ".l": the first set holds the prefixes of the
    alternatives that have some, the second the prefixes that follow an alternative's leading word run.

    Returns:
        The two sets, or None when some top-level alternative has neither.
    """
    try:
        if _parsed(pattern).getwidth()[0] == 0:
            return None  # (an empty match: the scanner takes none, and finditer steps over it as no try here does)
        items = [(op, av) for op, av in _parsed(pattern) if op not in _ZERO_WIDTH]
        alternatives = items[0][1][1] if len(items) == 1 and items[0][0] is _sre_c.BRANCH else [items]
        direct: set[str] = set()
        led: set[str] = set()
        for alt in alternatives:
            alt = [(op, av) for op, av in alt]
            for into, rest in ((direct, alt), (led, None)):
                if rest is None:
                    lead = [(op, av) for op, av in alt if op not in _ZERO_WIDTH]
                    if not lead or not _word_run(*lead[0]):
                        return None
                    rest = alt[alt.index(lead[0]) + 1:]
                done: set[str] = set()
                grown = _extend({""}, rest, done)
                found = done | grown
                if found and "" not in found and not any(p[0].isspace() for p in found):
                    into |= found
                    break
            else:  # (an alternative with neither: the cue may start anywhere)
                return None
    except (_Unbounded, re.error, RecursionError, TypeError, ValueError, IndexError):
        return None
    return frozenset(direct), frozenset(led)


# ------------------------------------------------------------------------------------------- number-led cues

NUMBER_KEYED_CHARS = 20_000
"""Texts at least this long key the word starts that are numbers by what follows them (``number_prefixes``): in a
pasted log most word starts are numbers, and a cue led by a number ("32 images per GPU", "8x A100") would otherwise
be tried at every one of them. Shorter texts (anything typed) scan as before."""
REQUIREMENT_CHARS = 100_000
"""Texts at least this long test all that a live cue requires (``required_tree``), not only its most selective
words: the cues' trees are parsed once a process (a few hundred ms for all of them), which a long log repays in the
match attempts it saves (ten times fewer on a megabyte of log lines)."""
STORED_REQUIREMENT_CHARS = 20_000
"""The same for a scanner given its cues' trees already parsed (``Scanner``'s ``trees``: ``expert.text`` keeps them
in the user's cache): testing them costs a fraction of a millisecond, which a pasted log of this size repays."""
RUN_OF_DIGITS, RUN_OF_BLANKS = "\x00", "\x01"
"""How a number key writes a run of digits and a run of blanks (characters no cue writes)."""
NUMBER_KEY_LEN = 5
"""Pieces of a number key: runs of digits, runs of blanks and single other characters ("8 x a1" is five)."""
_MAX_NUMBER_KEYS = 1_000
"""A cue with more number keys than this has them cut shorter, to as many pieces as keep them this few."""
_KEY_SPAN = rx.compile(rf"(?:\d+|\s+|.){{0,{NUMBER_KEY_LEN}}}", re.DOTALL)
_DIGIT_RUN, _BLANK_RUN = rx.compile(r"\d+"), rx.compile(r"\s+")
_DIGIT = rx.compile(r"\d")
_DIGITS = frozenset("0123456789")
_UNKNOWN = object()


class _TooMany(Exception):
    """More number keys than ``_MAX_NUMBER_KEYS``."""

_ANY_NUMBER = frozenset({RUN_OF_DIGITS, RUN_OF_DIGITS + RUN_OF_BLANKS})
"""Keys that hold of (nearly) every number: a cue with one is tried at every number, as a shorter text's are."""


def number_key(low: str, at: int) -> str:
    """The key of the text at ``at``: its first ``NUMBER_KEY_LEN`` pieces, each run of digits or blanks as one."""
    span = _KEY_SPAN.match(low, at).group(0)  # type: ignore[union-attr]
    return _BLANK_RUN.sub(RUN_OF_BLANKS, _DIGIT_RUN.sub(RUN_OF_DIGITS, span))


def _number_item(op: Any, av: Any) -> tuple[set[str], bool, bool] | None:
    r"""What one consuming item matches: its characters (lower case), whether any digit, whether any blank.

    None when the characters cannot be listed (``\w``, a negated class, any character).
    """
    if op is _sre_c.LITERAL:
        return {chr(av).lower()}, False, False
    if op is not _sre_c.IN:
        return None
    chars: set[str] = set()
    digits = blanks = False
    for iop, iav in av:
        if iop is _sre_c.LITERAL:
            chars.add(chr(iav).lower())
        elif iop is _sre_c.RANGE and iav[1] - iav[0] <= 64:
            chars.update(chr(c).lower() for c in range(iav[0], iav[1] + 1))
        elif iop is _sre_c.CATEGORY and iav is _sre_c.CATEGORY_DIGIT:
            digits = True
        elif iop is _sre_c.CATEGORY and iav is _sre_c.CATEGORY_SPACE:
            blanks = True
        else:
            return None
    return chars, digits, blanks


def _number_step(p: str, item: tuple[set[str], bool, bool], done: set[str], size: int) -> set[str]:
    """The keys prefix ``p`` grows to over one consuming item (a key complete goes to ``done``).

    Before the first digit nothing but a digit leads on (a match led by a letter is the word-start index's); a run
    of digits or of blanks is one piece, however many items and characters make it.
    """
    chars, digits, blanks = item
    pieces: set[str] = set()
    for c in chars:
        if c in (RUN_OF_DIGITS, RUN_OF_BLANKS):
            raise _Unbounded  # (no cue writes them; were one to, its key would be read as a run)
        pieces.add(RUN_OF_DIGITS if _DIGIT.match(c) else RUN_OF_BLANKS if c.isspace() else c)
    if digits:
        pieces.add(RUN_OF_DIGITS)
    if blanks:
        pieces.add(RUN_OF_BLANKS)
    out: set[str] = set()
    for piece in pieces:
        if not p:
            if piece == RUN_OF_DIGITS:
                out.add(piece)
        elif piece in (RUN_OF_DIGITS, RUN_OF_BLANKS) and p[-1] == piece:
            out.add(p)  # the run goes on
        else:
            out.add(p + piece)
    full = {q for q in out if len(q) >= size}
    done |= full
    if len(done) > _MAX_NUMBER_KEYS:
        raise _TooMany
    return out - full


def _number_extend(cur: set[str], items: Any, done: set[str], size: int) -> set[str]:
    """Grow number keys over the parsed ``items`` (as :func:`_extend` grows literal prefixes)."""
    for op, av in items:
        if not cur:
            return cur
        if op in (_sre_c.AT, _sre_c.ASSERT, _sre_c.ASSERT_NOT):
            continue  # zero-width: consumes nothing
        if op is _sre_c.SUBPATTERN:
            cur = _number_extend(cur, av[-1], done, size)
        elif op is _sre_c.BRANCH:
            cur = set().union(*(_number_extend(set(cur), alt, done, size) for alt in av[1]))
        elif op in _REPEATS:
            lo, hi, item = av
            if lo > 8:
                raise _Unbounded
            result = set(cur) if lo == 0 else set()
            acc = set(cur)
            for k in range(1, min(hi, 16) + 1):
                acc = _number_extend(set(acc), item, done, size)
                if k >= lo:
                    if acc <= result:
                        break  # every further repeat gives keys already had (a run is one piece)
                    result |= acc
                if not acc:
                    break
            else:
                if hi > 16:
                    raise _Unbounded
            cur = result
        else:
            one = _number_item(op, av)
            if one is None:
                if "" in cur:
                    raise _Unbounded  # a match might start with a digit we cannot follow
                done |= cur
                return set()
            cur = set().union(*(_number_step(p, one, done, size) for p in cur))
    return cur


@lru_cache(maxsize=256)
def number_prefixes(pattern: str) -> tuple[str, ...] | None:
    r"""The keys (:func:`number_key`) one of which starts the key of every number a match of ``pattern`` starts at.

    A cue "(?P<v>\d+)\s+(?:images?|samples?) per" gives a run of digits, a blank, then "im" or "sa": a number
    followed by other words is not tried. None when they cannot be bounded (the cue is then tried at every number
    it may start with).
    """
    for size in range(NUMBER_KEY_LEN, 1, -1):  # (keys cut shorter till they are few)
        try:
            done: set[str] = set()
            rest = _number_extend({""}, _parsed(pattern), done, size)
        except _TooMany:
            continue
        except (_Unbounded, re.error, RecursionError, TypeError, ValueError):
            return None
        keys = (done | rest) - {""}
        return tuple(sorted(keys)) if keys else None
    return None


def _key_pattern(keys: Iterable[str]) -> str:
    """A pattern matching where a text's key starts with one of ``keys`` (each a key with its leading digits cut)."""
    children: dict[str, set[str]] = {}
    leaf = False
    for key in keys:
        if not key:
            leaf = True
        else:
            children.setdefault(key[0], set()).add(key[1:])
    if leaf:
        return ""  # (a key that ends here: whatever follows, the text's key starts with it)
    by_rest: dict[str, list[str]] = {}
    for piece, rests in children.items():
        by_rest.setdefault(_key_pattern(rests), []).append(piece)
    alts = []
    for rest, pieces in sorted(by_rest.items()):
        chars = sorted(re.escape(c) for c in pieces if c not in (RUN_OF_DIGITS, RUN_OF_BLANKS))
        if chars:
            alts.append((chars[0] if len(chars) == 1 else "[" + "".join(chars) + "]") + rest)
        # (a run is matched whole: the next piece of a key is never another of the same run)
        if RUN_OF_DIGITS in pieces:
            alts.append(r"\d+" + rest)
        if RUN_OF_BLANKS in pieces:
            alts.append(r"\s+" + rest)
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def number_starts(low: str, wanted: Iterable[tuple[str, tuple[str, ...]]]) -> dict[tuple[str, str], list[int]]:
    """The numbers at word starts of ``low`` whose key starts as a cue's does, by their first digit and key.

    Args:
        low: The text, lower case.
        wanted: For each cue, the digits it may start with and its keys (:func:`number_prefixes`).

    One search, in the regex engine, finds them (a pasted log holds a number every few characters, and few of them
    start as a cue led by a number does and are followed by what it goes on with); each found has its key read.
    Which cue may start at which is the caller's to ask: a cue starts only at the numbers led by one of its digits
    whose key starts with one of its keys (a number found may lead none of the cues).
    """
    # one search for the numbers whose key starts as some cue's does, whatever digit leads it: the searches of
    # each cue's own first digits (alternatives tried one after the other at every number) cost several times
    # more; a number found that leads none of its cues is passed over by the scan, which asks each cue's digits
    # and keys of what is found
    rests = {k[1:] for _digits, keys in wanted for k in keys}
    # (plain ``re``: the pattern follows the text's live cues, not one for the stored table of ``expert.rx``)
    found = re.compile(r"\d(?<!\w\d)(?=\d*" + _key_pattern(rests) + ")")
    # a number's key follows from the text there with its digits as one digit (a digit run stays a run): numbers
    # written alike ("2 loss", "7 loss") have their key read once
    canon = low.translate(_ONE_DIGIT) if low.isascii() else None
    known: dict[str, str] = {}
    out: dict[tuple[str, str], list[int]] = {}
    for m in found.finditer(low):
        at = m.start()
        if canon is None:
            key = (low[at], number_key(low, at))
        else:
            near = canon[at:at + _KEY_WINDOW]
            number = known.get(near)
            if number is None:
                span = _KEY_SPAN.match(low, at).group(0)  # type: ignore[union-attr]
                number = _BLANK_RUN.sub(RUN_OF_BLANKS, _DIGIT_RUN.sub(RUN_OF_DIGITS, span))  # (number_key's)
                if len(span) < len(near) or len(near) < _KEY_WINDOW:
                    known[near] = number  # (the key's pieces end inside the window: the window decides them)
            key = (low[at], number)
        starts = out.get(key)
        if starts is None:
            out[key] = [at]
        else:
            starts.append(at)
    return out


_ONE_DIGIT = str.maketrans("123456789", "000000000")
_KEY_WINDOW = 16
"""Characters of a text read for a number's key when keys are looked up by what is written there (a key whose
pieces reach further is read from the text each time)."""


def _word_led_starts(low: str, led: re.Pattern[str]) -> list[int]:
    """Where a cue led by a word run (``word_led_prefixes``) may start: before each place ``led`` finds in ``low``.

    The start of the run of word characters that ends at the place (a place after no word character is its own).
    """
    found = set()
    word = _WORD_CHAR.match
    at = 0
    while (place := led.search(low, at)) is not None:
        s = at = place.start()
        while s > 0 and word(low, s - 1):
            s -= 1
        found.add(s)
        at += 1  # (places may overlap)
    return sorted(found)


def _punctuation_starts(low: str, prefixes: list[str]) -> list[int]:
    """Offsets where one of ``prefixes`` (each led by a non-word character) begins after no word character."""
    found = set()
    for p in prefixes:
        s = low.find(p)
        while s >= 0:
            if s == 0 or not _WORD_CHAR.match(low, s - 1):
                found.add(s)
            s = low.find(p, s + 1)
    return sorted(found)


# ------------------------------------------------------------------------------------------- required words

_REQ_LIMIT = 32
"""Largest set of alternative strings tracked for one part of a pattern; beyond it the part says nothing."""
_REPEATS = tuple(op for op in (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT, getattr(_sre_c, "POSSESSIVE_REPEAT", None))
                 if op is not None)
_WORD_PIECE = rx.compile(r"\w+", re.ASCII)
# Characters outside ASCII that a case-insensitive pattern takes for an ASCII letter (checked against the regex
# engine by tests/test_nlp.py). The text a required word is looked up in is folded the same way.
IGNORECASE_FOLDS = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
_FOLD = str.maketrans(IGNORECASE_FOLDS)


def _exact_set(items: Any) -> set[str] | None:
    """Every string (lower case) the parsed ``items`` can match, when that is a small finite set of ASCII."""
    cur = {""}
    for op, av in items:
        if op is _sre_c.LITERAL:
            one: set[str] | None = {chr(av).lower()}
        elif op is _sre_c.IN:
            try:
                one = _class_chars(av)
            except _Unbounded:
                one = None
            if one is not None and len(one) > 10:
                one = None
        elif op is _sre_c.SUBPATTERN:
            one = _exact_set(av[-1])
        elif op is _sre_c.BRANCH:
            alts = [_exact_set(a) for a in av[1]]
            one = None if any(a is None for a in alts) else set().union(*alts)  # type: ignore[arg-type]
        elif op in _REPEATS:
            lo, hi, item = av
            body = _exact_set(item)
            if body is None or hi > 2:
                one = None
            else:
                one, acc = set(), {""}
                for k in range(hi + 1):
                    if k >= lo:
                        one |= acc
                    acc = {a + b for a in acc for b in body}
        elif op in (_sre_c.AT, _sre_c.ASSERT, _sre_c.ASSERT_NOT):
            one = {""}  # zero-width
        else:
            return None
        if one is None:
            return None
        cur = {a + b for a in cur for b in one}
        if len(cur) > _REQ_LIMIT or not all(x.isascii() for x in cur):
            return None
    return cur


def _better(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    """The more selective of two requirements (its shortest string longer, then fewer strings)."""
    if not b or "" in b:
        return a
    if a is None:
        return b
    return b if (min(map(len, b)), -len(b)) > (min(map(len, a)), -len(a)) else a


def _walk(items: Any, close: Callable[[set[str]], Any], either: Callable[[list[Any]], Any],
          combine: Callable[[list[Any]], Any]) -> Any:
    """What every match of the parsed ``items`` contains, one walk for :func:`_required` and :func:`_requirement`.

    Items matched exactly are joined into runs of known strings; ``close`` turns a finished run into a part, a group
    or a required repeat gives the walk of its body, a branch ``either`` of its alternatives' walks (only when every
    alternative requires something known), and ``combine`` makes the parts, in order, into the result.
    """
    parts: list[Any] = []
    run = {""}  # the strings matched by the current stretch of exactly-known items

    def add(part: Any) -> None:
        if part is not None:
            parts.append(part)

    for op, av in items:
        one = _exact_set([(op, av)])
        if one is not None:
            joined = {a + b for a in run for b in one}
            if len(joined) <= _REQ_LIMIT:
                run = joined
                continue
            add(close(run))
            run = one
            continue
        add(close(run))
        run = {""}
        if op is _sre_c.SUBPATTERN:
            add(_walk(av[-1], close, either, combine))
        elif op is getattr(_sre_c, "ATOMIC_GROUP", None):
            add(_walk(av, close, either, combine))
        elif op is _sre_c.BRANCH:
            alts = [_walk(a, close, either, combine) for a in av[1]]
            if all(alts):  # (an alternative that requires nothing known lets the branch require nothing)
                add(either(alts))
        elif op in _REPEATS and av[0] >= 1:
            add(_walk(av[2], close, either, combine))
    add(close(run))
    return combine(parts)


def _most_selective(parts: list[set[str] | None]) -> set[str] | None:
    """The most selective of ``parts`` (the first of equals), by :func:`_better`."""
    best: set[str] | None = None
    for part in parts:
        best = _better(best, part)
    return best


def _required(items: Any) -> set[str] | None:
    """Strings one of which every match of the parsed ``items`` contains (None when none is known)."""
    return _walk(items, lambda run: run, lambda alts: set().union(*alts), _most_selective)


Requirement = tuple[Any, ...]
"""What every match of a pattern holds: ``("words", runs, in text)``, one of the runs inside a word of the text or
one of the strings ``in text`` (the runs of digits, and strings with no word character) inside the text;
``("all", parts)``, each of the parts; ``("any", parts)``, one of them."""


def _words_node(strings: set[str]) -> Requirement | None:
    """The requirement that one of ``strings`` is in a match (None: none known).

    A string is looked for by its longest word run (in the text's words), one with no word character whole (in the
    text: "-" of a negative number).
    """
    if not strings or "" in strings:
        return None
    words, marks = set(), set()
    for s in strings:
        pieces = _WORD_PIECE.findall(s)
        if pieces:
            words.add(max(pieces, key=len))
        else:
            marks.add(s)
    return ("words", frozenset(words), tuple(sorted(w for w in words if w.isdigit())) + tuple(sorted(marks)))


def _requirement(items: Any) -> Requirement | None:
    """Every requirement of the parsed ``items`` known (:func:`_required` keeps only the most selective one).

    A branch requires what one of its alternatives does: each alternative is kept whole, not merged into one set.
    """
    return _walk(items, _words_node, lambda alts: ("any", tuple(alts)), _all_node)


def _all_node(parts: list[Requirement]) -> Requirement | None:
    """The requirement that every one of ``parts`` holds (None: none known)."""
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else ("all", tuple(parts))


def required_tree(pattern: str) -> Requirement | None:
    """Everything known that a text must hold to match ``pattern`` (see ``Requirement``; None: nothing known).

    :func:`required_words` keeps one set of words, the most selective; a long text tests them all, since that set
    alone ("loss") says little of a log that names the loss on every line.
    """
    try:
        return _requirement(_parsed(pattern))
    except (re.error, RecursionError, TypeError, ValueError):
        return None


def holds(req: Requirement | None, inside: Callable[[str], bool], in_text: Callable[[str], bool]) -> bool:
    """Whether a text may match a pattern of requirement ``req`` (``inside``: a word run; ``in_text``: a string)."""
    if req is None:
        return True
    kind = req[0]
    if kind == "words":
        return any(map(inside, req[1])) or any(map(in_text, req[2]))
    if kind == "all":
        return all(holds(r, inside, in_text) for r in req[1])
    return any(holds(r, inside, in_text) for r in req[1])


def required_words(pattern: str) -> frozenset[str] | None:
    """Lower-case runs of word characters, one of which lies inside one word of the text for every match.

    A text that holds none of them cannot match ``pattern`` (case-insensitively), so the scanner skips it.

    Returns:
        The runs, or None when no such run is known (the pattern is always tried).
    """
    try:
        req = _required(_parsed(pattern))
    except (re.error, RecursionError, TypeError, ValueError):
        return None
    if not req:
        return None
    words = set()
    for s in req:
        pieces = _WORD_PIECE.findall(s)
        if not pieces:
            return None
        words.add(max(pieces, key=len))  # each string's longest word-character run stands for it
    return frozenset(words)


_TEXT_WORD = rx.compile(r"\w+")
_MAX_WORD_LIST = 20_000
"""Above this many characters of distinct words (a text of mostly unique tokens) no cue is skipped."""


_PRESENT: list[tuple[str, Callable[[str], bool] | None]] = []
"""The last text :func:`words_present` was asked about, and its test."""


def words_present(low: str) -> Callable[[str], bool] | None:
    """A test whether a required word (:func:`required_words`) occurs inside some word of ``low``.

    For an ASCII text the answer is ``word in low``'s. None when testing would not pay (a text of mostly unique
    words). The last text's test is kept: the cue scan and the error signatures ask about the same text.
    """
    if _PRESENT and _PRESENT[0][0] == low:
        return _PRESENT[0][1]
    test = _words_present(low)
    _PRESENT[:] = [(low, test)]
    return test


_WORDS_OF: list[tuple[str, frozenset[str]]] = []
"""The last text :func:`text_words` was asked about, and its words."""


def text_words(low: str) -> frozenset[str]:
    """The distinct runs of word characters in ``low``.

    The last text's are kept: the cue scan and the reader of training talk (``expert.talk``) ask of the same text,
    and a pasted log is long (one search of it, not one per reader).
    """
    if _WORDS_OF and _WORDS_OF[0][0] == low:
        return _WORDS_OF[0][1]
    words = frozenset(_TEXT_WORD.findall(low))
    _WORDS_OF[:] = [(low, words)]
    return words


def _words_present(low: str) -> Callable[[str], bool] | None:
    """A test whether a required word occurs inside some word of ``low``; None when testing would not pay."""
    distinct = set(text_words(low))
    distinct -= set(filter(str.isdigit, distinct))  # numbers are looked up apart
    if not low.isascii():
        distinct = {w.translate(_FOLD) for w in distinct}
    joined = "\n".join(distinct)
    if len(joined) > _MAX_WORD_LIST:
        return None

    def present(word: str) -> bool:
        return word in joined or (word.isdigit() and word in low)

    # (the scanner asks of hundreds of cues' words at once: it tests ``joined`` itself, in C, with no call of this)
    present.joined = joined  # type: ignore[attr-defined]
    return present


# ------------------------------------------------------------------------------------------- linear scanning


class Scanner:
    """Find every match of many cue patterns in one text, each on word boundaries, in linear time.

    Two filters keep the work per cue small: a cue none of whose required words (:func:`required_words`)
    occurs in the text is not tried at all, and a cue is tried only at word starts that begin with one of its
    literal prefixes (:func:`literal_prefixes`). ``attempts`` counts the pattern match attempts of the last
    :meth:`scan`: a deterministic measure of the work, linear in the text.

    Args:
        patterns: The cue patterns (regular expressions, case-insensitive).
        analysis: ``analysis()`` of an earlier scanner over the same patterns (skips parsing them again).
        trees: Called once, when a text of ``STORED_REQUIREMENT_CHARS`` first comes: every pattern's
            ``required_tree`` as stored earlier (``trees()`` of a scanner over the same patterns), or None when
            none is at hand; then the trees are tested from that length on, not from ``REQUIREMENT_CHARS``.
    """

    def __init__(self, patterns: list[str],
                 analysis: list[tuple[frozenset[str] | None, frozenset[str] | None]] | None = None,
                 trees: Callable[[], list[Requirement | None] | None] | None = None) -> None:
        self._patterns = list(patterns)
        # compiled on first use (``_compiled``): a complaint reaches a few dozen of the hundreds of cues, and
        # compiling them all cost most of ``consult``'s start-up
        self._plain: list[re.Pattern[str] | None] = [None] * len(self._patterns)
        self._guarded: list[re.Pattern[str] | None] = [None] * len(self._patterns)
        self._prefixes: list[frozenset[str] | None] = []
        self._required: list[frozenset[str] | None] = []
        self._digits: list[tuple[str, ...]] | None = None  # each cue's required words that are numbers (``_live``)
        self._by_word: dict[str, tuple[int, ...]] = {}  # (the rest: see ``_live``)
        self._words: tuple[str, ...] = ()
        self._numerals: tuple[str, ...] = ()
        self._free: tuple[int, ...] = ()
        self._split: list[tuple[frozenset[str], tuple[str, ...], list[str]] | None] = [None] * len(self._patterns)
        self._by_length: list[tuple[frozenset[str], tuple[str, ...]] | None] = [None] * len(self._patterns)
        self._numbers: list[Any] = [_UNKNOWN] * len(self._patterns)  # each cue's ``number_prefixes``, when asked
        self._led: dict[int, Any] = {}  # a cue with no prefixes: its ``word_led_prefixes``' finders, when asked
        self._trees: dict[int, Requirement | None] = {}  # a cue's ``required_tree``, when a long text asks
        self._stored_trees = trees  # (see Args; None once asked)
        self._tree_chars = REQUIREMENT_CHARS  # texts this long test the trees (STORED_REQUIREMENT_CHARS once stored)
        if analysis is not None and len(analysis) == len(self._patterns):
            # what ``analysis()`` returned for these patterns earlier (``expert.text`` keeps it in the cache)
            self._prefixes = [a for a, _ in analysis]
            self._required = [b for _, b in analysis]
        else:
            for p in self._patterns:
                prefixes = literal_prefixes(p)  # parses the pattern: a malformed cue fails here, not at first use
                self._prefixes.append(prefixes)
                self._required.append(required_words(p))
        self.attempts = 0

    def analysis(self) -> list[tuple[frozenset[str] | None, frozenset[str] | None]]:
        """Each pattern's literal prefixes and required words: pass it back to skip parsing the patterns again."""
        return list(zip(self._prefixes, self._required))

    def trees(self) -> list[Requirement | None]:
        """Each pattern's ``required_tree`` (parsing the patterns not parsed yet): pass it back as ``trees``."""
        for i, p in enumerate(self._patterns):
            if i not in self._trees:
                self._trees[i] = required_tree(p)
        return [self._trees[i] for i in range(len(self._patterns))]

    def _live(self, low: str, present: Callable[[str], bool] | None) -> list[int]:
        """The cues worth trying on ``low``: those with no required words, or one of them in the text.

        ``present``'s answer for each word, asked without a Python call per word (hundreds of cues ask a few words
        each of every text): a word is inside some word of the text, or a number inside the text.
        """
        if present is None:
            return list(range(len(self._required)))
        joined = getattr(present, "joined", None)
        if joined is None:  # pragma: no cover - a test made elsewhere: asked word by word
            return [i for i, required in enumerate(self._required) if required is None or any(map(present, required))]
        if self._digits is None:
            self._digits = [() if r is None else tuple(sorted(w for w in r if w.isdigit())) for r in self._required]
            # each required word once, with the cues that require it: a text asks of each word once, not of each
            # cue (hundreds of cues share a few hundred words), and its live cues are gathered in C
            by_word: dict[str, list[int]] = {}
            for i, required in enumerate(self._required):
                for w in required or ():
                    by_word.setdefault(w, []).append(i)
            self._by_word = {w: tuple(cues) for w, cues in by_word.items()}
            self._words = tuple(w for w in self._by_word if not w.isdigit())
            self._numerals = tuple(w for w in self._by_word if w.isdigit())  # (tested inside the text: ``_digits``)
            self._free = tuple(i for i, required in enumerate(self._required) if required is None)
        inside, in_text = joined.__contains__, low.__contains__
        # (a number required is inside a word of the text or inside the text; another word inside a word of it)
        said = [*filter(inside, self._words), *filter(lambda w: inside(w) or in_text(w), self._numerals)]
        live = sorted(set(self._free).union(*map(self._by_word.__getitem__, said)))
        if self._stored_trees is not None and len(low) >= STORED_REQUIREMENT_CHARS:
            stored, self._stored_trees = self._stored_trees(), None
            if stored is not None and len(stored) == len(self._patterns):
                self._trees = dict(enumerate(stored))
                self._tree_chars = STORED_REQUIREMENT_CHARS
        if len(low) < self._tree_chars:
            return live
        # a long text tests all that a cue requires (parsed for the cues it leaves, once): a pasted
        # log names the loss on every line, and a cue of the loss falling "below" something would be tried at
        # each of them in vain
        for i in live:
            if i not in self._trees:
                self._trees[i] = required_tree(self._patterns[i])
        return [i for i in live if holds(self._trees[i], inside, in_text)]

    def _prefix_split(self, i: int) -> tuple[frozenset[str], tuple[str, ...], list[str]]:
        """Cue ``i``'s prefixes parted once: first characters of its word prefixes, those prefixes, the others."""
        split = self._split[i]
        if split is None:
            prefixes = self._prefixes[i] or ()
            words = tuple(p for p in prefixes if _WORD_CHAR.match(p))
            split = self._split[i] = (frozenset(p[0] for p in words), words,
                                      [p for p in prefixes if not _WORD_CHAR.match(p)])
        return split

    def _keys(self, i: int, worded: tuple[str, ...], full: dict[str, list[int]],
              shorter: list[dict[str, list[str]]]) -> set[str]:
        """The index keys (``_index``) of the text's word starts that one of ``worded``, cue ``i``'s prefixes, opens.

        A prefix of ``PREFIX_LEN`` characters is a key itself, a shorter one opens the keys ``shorter`` lists for it.
        The cue's own prefixes, parted by length once, are met with the text's keys in one set operation: a cue has
        up to hundreds of prefixes, a short text a few dozen keys.
        """
        split = self._by_length[i]
        if split is None:
            split = self._by_length[i] = (frozenset(p for p in worded if len(p) == PREFIX_LEN),
                                          tuple(p for p in worded if len(p) != PREFIX_LEN))
        whole, short = split
        keys = full.keys() & whole
        for p in short:
            keys.update(shorter[len(p)].get(p, ()))
        return keys

    def _number_keyed(self, live: list[int]) -> dict[int, tuple[str, tuple[str, ...]]]:
        """The live cues that may start with a digit and whose numbers can be keyed: the digits, the number keys."""
        out = {}
        for i in live:
            digits = self._prefix_split(i)[0] & _DIGITS
            if digits:
                if self._numbers[i] is _UNKNOWN:
                    self._numbers[i] = number_prefixes(self._patterns[i])
                if self._numbers[i] is not None and not set(self._numbers[i]) & _ANY_NUMBER:
                    # (a cue that may go on with anything after a number is not keyed)
                    out[i] = ("".join(sorted(digits)), self._numbers[i])
        return out

    def _word_led(self, i: int) -> Any:
        """Cue ``i`` with no prefixes, by ``word_led_prefixes`` (None: it has no such prefixes either).

        Its alternatives' prefixes parted as ``_prefix_split`` parts them, and the searches for its prefixes after
        a word run (None: none).
        """
        if i not in self._led:
            found = word_led_prefixes(self._patterns[i])
            if found is None:
                self._led[i] = None
            else:
                direct, led = found
                words = tuple(p for p in direct if _WORD_CHAR.match(p))
                # (each search twice: for a lower-case ASCII text, whose places the regex engine skips to by their
                # first characters, and case-blind for any other)
                self._led[i] = ((frozenset(p[0] for p in words), words,
                                 [p for p in direct if not _WORD_CHAR.match(p)]),
                                tuple(re.compile("|".join(map(re.escape, sorted(led))), flags)
                                      for flags in (0, re.IGNORECASE)) if led else None)
        return self._led[i]

    def _compiled(self, i: int, guarded: bool) -> re.Pattern[str]:
        """Cue ``i`` compiled to match at a word start (``guarded``: anywhere, checking the word start itself)."""
        cache = self._guarded if guarded else self._plain
        pat = cache[i]
        if pat is None:
            lead = r"(?<!\w)" if guarded else ""
            pat = cache[i] = rx.compile(rf"{lead}(?:{self._patterns[i]})(?!\w)", re.IGNORECASE)
        return pat

    @staticmethod
    def _index(low: str, firsts: set[str]) -> tuple[dict[str, list[int]], list[dict[str, list[str]]]]:
        """Word starts by the (up to) ``PREFIX_LEN`` characters there, and the distinct keys by shorter prefix.

        Only word starts that begin with one of ``firsts`` (the first characters of the prefixes of the cues
        still to scan) are indexed: in a pasted log most word starts are numbers that no such cue begins with.
        """
        full: dict[str, list[int]] = {}
        if not firsts:
            return full, [{} for _ in range(PREFIX_LEN)]
        # (the word-start test follows the character, "[..](?<!\w[..])" for "(?<!\w)[..]", the same places: a
        # pattern led by its character class is skipped through by the regex engine, one led by the test is tried
        # at every place of the text)
        chars = "".join(map(re.escape, sorted(firsts)))
        starts = re.compile(rf"[{chars}](?<!\w[{chars}])")
        for s in [m.start() for m in starts.finditer(low)]:
            key = low[s:s + PREFIX_LEN]
            found = full.get(key)
            if found is None:
                full[key] = [s]
            else:
                found.append(s)
        shorter: list[dict[str, list[str]]] = [{} for _ in range(PREFIX_LEN)]
        for key in full:
            for n in range(1, min(len(key), PREFIX_LEN)):
                shorter[n].setdefault(key[:n], []).append(key)
            if len(key) < PREFIX_LEN:  # a word start near the end of the text
                shorter[len(key)].setdefault(key, []).append(key)
        return full, shorter

    def scan(self, text: str, cap: int | None = None) -> Iterator[tuple[int, re.Match[str]]]:
        """Yield ``(pattern index, match)`` for every non-empty, non-overlapping (per pattern) match.

        Args:
            text: The text to scan.
            cap: At most this many matches per pattern, the first ones (None: all).
        """
        self.attempts = 0
        limit = cap if cap is not None else len(text) + 1
        low = lower_aligned(text)
        if not low.isascii():
            low = low.translate(_FOLD)
        live = self._live(low, words_present(low))
        # (a cue none of whose required words is in the text is not tried at all)
        # a long text keys its numbers by what follows them, once, for every cue led by a number (``number_prefixes``)
        keyed = self._number_keyed(live) if len(low) >= NUMBER_KEYED_CHARS else {}
        numbers = number_starts(low, keyed.values()) if keyed else {}
        # a long text tries a cue with no prefixes where it can start: after a word run, at its later prefixes
        led = {i: w for i in live if self._prefixes[i] is None and (w := self._word_led(i)) is not None} \
            if len(low) >= NUMBER_KEYED_CHARS else {}
        full, shorter = self._index(low, set().union(*(
            led[i][0][0] if i in led else self._prefix_split(i)[0] - _DIGITS if i in keyed else
            self._prefix_split(i)[0] for i in live)))
        lower = int(not lower_ascii(low))  # (which search of the word-led prefixes: see _word_led)
        for i in live:
            prefixes = self._prefixes[i]
            found = 0
            if prefixes is None and i not in led:
                self.attempts += len(text)
                for m in self._compiled(i, True).finditer(text):
                    if m.end() > m.start():
                        yield i, m
                        found += 1
                        if found >= limit:
                            break
                continue
            _firsts, worded, punctuated = led[i][0] if i in led else self._prefix_split(i)
            number_led = keyed.get(i)
            if number_led is None and i not in led:
                runs = [full[k] for k in self._keys(i, worded, full, shorter)]  # (the cue's own prefixes, as parted)
            else:
                if number_led is not None:
                    worded = tuple(p for p in worded if p[0] not in _DIGITS)  # (its numbers are keyed apart)
                keys = {key for p in worded for key in ((p,) if len(p) == PREFIX_LEN else shorter[len(p)].get(p, ()))}
                runs = [full[k] for k in keys if k in full]
            if number_led is not None:
                digits, number_keys = number_led
                runs.extend(starts for (first, key), starts in numbers.items()
                            if first in digits and key.startswith(number_keys))
            if punctuated:
                runs.append(_punctuation_starts(low, punctuated))
            if i in led and led[i][1] is not None:
                runs.append(_word_led_starts(low, led[i][1][lower]))
            if not runs:
                continue
            # distinct keys hold distinct word starts; sorting joined sorted runs is a linear merge in practice
            if len(runs) == 1:
                starts = runs[0]
            elif i in led:
                starts = sorted(set(chain.from_iterable(runs)))  # (a word run's start may be a prefix's too)
            else:
                starts = list(chain.from_iterable(runs))
                starts.sort()
            # the attempts run in C (a pasted log gives a cue tens of thousands of starts, most matching nothing);
            # a start inside the previous match is tried too but not taken, as finditer would skip it
            match = self._compiled(i, False).match
            reach, skipped, tried = -1, 0, len(starts)
            for m in filter(None, map(match, repeat(text), starts)):
                at = m.start()
                if at < reach or m.end() == at:
                    continue
                yield i, m
                found += 1
                if found >= limit:
                    tried = bisect_right(starts, at)
                    break
                skipped += bisect_left(starts, m.end()) - bisect_right(starts, at)
                reach = m.end()
            # (the starts tried: those up to the last match taken, less those inside a match taken)
            self.attempts += tried - skipped


def clause_starts(text: str, breaks: re.Pattern[str]) -> list[int]:
    """Offsets where clauses begin (after each break), for :func:`clause_start`."""
    return [0] + [m.end() for m in breaks.finditer(text)]


def clause_start(starts: list[int], pos: int) -> int:
    """The start of the clause holding ``pos`` (the last break that ends at or before it)."""
    return starts[bisect_right(starts, pos) - 1]
