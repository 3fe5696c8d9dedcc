"""A reader of training talk: which quantity moves which way, when, under which qualifier; and pasted evidence.

The words come from ``knowledge.talk`` (lemmas; inflections from the generated ``knowledge.forms``, spelling
slips matched with rapidfuzz). The procedure, linear in the text:

1. tokenise the normalised text, lemmatise each word, and cut it into sentences and clauses (punctuation,
   "but", "while", "and then"...);
2. match the lexicon's phrases greedily (longest first): quantities, splits ("val", "train"), movements,
   times, negators, hedges, question words, topics;
3. in each clause attach each movement to its quantity (the nearest one before it, else after it, else the
   one the sentence last spoke of, else the quantity the movement implies: "it diverges" is the loss), with the
   negation in front of it ("not decreasing") and the time around it ("from the first step", "after 3 epochs",
   "at every epoch start", "at first ... then");
4. look each reading up in ``knowledge.talk.COMPOSITIONS``; compare quantities ("val loss lower than train
   loss"), read values next to their quantity ("99% train accuracy") and changes ("batch 64 -> 1024": the
   after-value is the setting, the before-value is claimed so no cue reads it);
5. a question that weighs settings ("should I use adam or sgd?") states a topic, and claims the settings it
   names: they are not the run's;
6. read pasted evidence: error signatures (``knowledge.talk.ERROR_SIGNATURES``) and log lines (``step 1200 |
   loss: nan``, Hugging Face dicts, Lightning bars, epoch tables): the first non-finite loss with its step, and
   the train/validation series.

The result is an :class:`Understanding`: readings (observation, value, the words that gave it, whether the user
hedged), claims (spans in which single-word cues may not set given observations) and confirmation questions for
words that could mean two things.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterator
from dataclasses import field
from functools import cache, cached_property, lru_cache
from itertools import accumulate
from typing import Any

from expert import rx
from expert.nlp import finditer_prefixed, text_words, words_present
from knowledge import talk as K
from knowledge.conditions import PROBLEM_SYMPTOMS
from knowledge.record import dataclass
from knowledge.terms import canonical_loss, canonical_optimizer
from knowledge.vocabulary import Observation

MAX_CLAUSE = 60
"""Tokens in one clause at most (a longer run without a break is cut)."""
MAX_SENTENCE = 300
"""Tokens in one sentence at most."""
COMPOSE_LIMIT = 50_000
"""Characters of a long text (past ``FUZZY_LIMIT``) that are composed, from its first lines with a movement:
a complaint a person types is far shorter, and pasted logs are read in full by the evidence pass."""
RECORD_LIMIT = 10_000
"""Characters of a long text's repeated lines that are composed (within ``COMPOSE_LIMIT``): a line saying the words of
a line composed before, its numbers aside, is a log's record, and past the first of them what its words compose is
said; the evidence pass reads the figures of every line."""
FUZZY_LIMIT = 20_000
"""Texts longer than this are pasted logs (machine-written): spelling slips are not looked for."""
CODE_FILTER_CHARS = 5_000
"""Texts at least this long search only the code idioms whose required words they hold (``_code_needed``): working
those words out parses the idioms' patterns, once a process, which a typed complaint would not repay (a shorter
text filters with them only when the user's cache holds them: ``_stored_code_needed``)."""

_TOKEN = rx.compile(
    r"(?P<num>[-+]?(?:\d(?:[\d,]*\d)?(?:\.\d+)?|\.\d+)(?:e[-+]?\d+)?)(?P<unit>\s?%|k\b|x\b)?"
    r"|(?P<word>(?:[a-z_]|\.(?=[a-z_]))[a-z0-9_]*(?:['./-][a-z0-9_]+)*'?)"
    r"|(?P<arrow>-+>|=>|→|⟶)"
    r"|(?P<punct>[?!.;,:()\[\]{}|=<>/\n])"
    r"|\S", re.IGNORECASE)
_BREAK_WORDS = frozenset({"but", "while", "whereas", "although", "though", "however", "yet", "because", "since",
                          "so", "and", "when", "whilst", "unlike", "except"})
_SENTENCE_END = frozenset({".", "?", "!", "\n"})
SENTENCE_END = _SENTENCE_END
"""Tokens that end a sentence (for the readers that tokenise with :func:`tokenise`)."""
_CLAUSE_PUNCT = frozenset({",", ";", ":", "(", ")", "[", "]", "{", "}", "|"})
_BIND_BREAKS = frozenset({",", ";", ":", "|"})
"""Punctuation that separates what two words are said of (brackets are a call's, not a clause's)."""
_CONTRASTS = frozenset({"but", "however", "although", "though", "yet", "while", "whereas"})
"""Contrast words: like the punctuation above, they end what a bound word is said of (a new subject follows)."""
QUOTED_CAP = 8
"""Readings of one setting quoted with its number, the first ones: the earliest the run owns wins, and a pasted log
quoting "lr=..." on every line has said it long before (each reading costs a look at its clause's attribution)."""
NEGATION_REACH = 4
"""Words (light words not counted, see ``_LIGHT``) a negation may stand before the movement it negates."""
ARROW_REACH = 4
"""Tokens after an arrow in which a movement makes it a sequence ("resume -> loss spikes"), not a value's change."""
RESUME_REACH = 8
"""Words after "then" in which a pause may be said to end ("then the progress bar jumps quickly through")."""
_LIGHT = frozenset("the a an my our your its this that any to get make really even quite".split())
"""Words that do not count in the reach of a negation."""
_FAMILY = rx.compile(r"(?P<stem>[a-z]+?)(?P<size>s|\d[\d.]*[a-z]{0,2}\d*|)")
"""A model's name: its family's stem, then nothing, a plural "s", or a size or version ("resnet50", "gpt4o")."""
_COORDINATION = frozenset({"and", "&", "/", "the", "my", "its", "their", "as", "well", ","})
"""Words that may stand between two coordinated quantities ("the train loss and the val loss", "train / val loss")."""
_ADJECTIVE_MOVEMENTS = frozenset({"nan", "zero", "none", "huge", "flat", "flatline", "oscillate", "unstable", "low",
                                  "high", "slow", "negative", "tiny", "same"})
"""Movements whose words stand before a noun as its adjective ("NaN loss", "flat accuracy", "noisy gradients"); a
verb ("increases each step") is said of the quantity before it."""
_BASELINE_FILLERS = frozenset("plain normal regular full usual standard the a pure vanilla".split())
"""Words between "than" and the setting a run is compared with ("slower than plain fp32")."""
_THEN = frozenset("before expected expect usual normal earlier previously yesterday last it i we should what at in "
                  "with the a".split())
"""Words after "than" that compare a quantity with itself at another time ("higher than before", "worse than it
should be"), not with another quantity or model."""
_SAME_ACROSS = frozenset("rank process replica evaluate evaluation checkpoint deterministic reproducible "
                         "all_reduce allreduce".split())
"""Words in a sentence that make a quantity's sameness one between copies of the run or repeats of its evaluation
("each rank logs the same loss", "the same accuracy every time I evaluate"), not a flat curve."""
_SUBJECT_LEADS = frozenset("the my our this its".split())
"""Words that may open a sentence before its subject quantity ("the loss is ...", "my loss ...")."""
_NOT_PREDICATES = frozenset("of for in on at to from with by and or as that which who a an the my your our his her "
                            "their".split())
"""Words after a quantity (or after its "be") that make no predicate of it ("the loss of my father", "is a")."""
_HUNG = rx.compile(r"\b(?:hangs?|hanging|hung|freez\w*|froze|deadlock\w*|stuck|stall\w*)\b")
_CRASHED = rx.compile(r"crash(?:es|ed|ing)?|segfaults?|aborted|killed")
"""A program's crash, as a verb ("the renderer crashes", "got killed")."""
"""Words that say a run stopped moving without stopping (a hang), where an error family is named."""
_DIRECTIONS = frozenset({"down", "down_bare", "up", "up_bare"})
"""Movements that give a direction: a second one in a healthy sentence must be another quantity's."""
_CONTRASTS = frozenset("but while however yet whereas although though".split())
"""Words that set one clause against another: a wanted movement on one side leaves the other as the complaint."""
_REFERENCES = frozenset("paper author authors baseline reported official reference benchmark repo readme "
                        "leaderboard other others theirs".split())
"""Words a little after "than" that name another work's result ("higher than the paper", "than the reported one"):
a comparison with it, however the "the" before it reads."""
_WORK_FILLERS = frozenset("the their this that original".split())
"""Words between a lead and the work it leads ("in the original paper", "according to their paper")."""
_MOVES_TO = frozenset({"jump", "spike", "up", "up_bare", "down_bare", "climb", "rise"})
"""Movements that can take a curve to a new level ("jumps to 9"); a state said after one is the curve's level."""
_STALLS = frozenset({"plateau", "stuck", "flat", "flatline", "not-down", "not-improve", "stay"})
"""Movements of a curve that stopped improving (a plateau, said in any of its words)."""

_USE_VERBS = frozenset("use train run set pick choose keep".split())
"""Verbs whose object is a setting the run is run with ("I use batch 4096", "trained with batch 256")."""
_OWN_PRONOUNS = frozenset({"mine"})
_CONTRAST_WORDS = frozenset("but while whereas yet unlike though although".split())
"""Words that set another's quantity against the user's own ("my loss drops but their loss is flat")."""
"""Pronouns that name the user's own of a quantity said of another's run ("his loss drops, mine doesn't")."""
_THAN_FILLERS = frozenset("the my our its that on in for of with".split())
"""Words that may stand between "than" and the quantity it compares with ("than on the train loss")."""
_LEVEL_MOVES = frozenset({"up", "down", "worse", "high", "low", "better"})
"""Movements a comparative is read as ("higher" is "up"), which after a stall only place it (``_stall_level``)."""
_LEVEL_WORDS = frozenset("higher lower worse better high low".split())
"""The comparatives that, right after a stall, say its level ("plateaus higher", "stalls at a lower value")."""
_LEVEL_FILLERS = frozenset("at to a an on the much way far slightly bit little lot somewhat even quite noticeably "
                           "significantly clearly".split())
"""Words that may stand between a stall and the comparative placing it ("plateaus at a much higher value", "converges
to a higher value")."""
_RISES = frozenset({"jump", "spike", "up", "up_bare", "climb", "rise"})
_TERSE_AFTER = frozenset({"and", "but", "while", "whereas", "after", "since", "from", "every", "each", "over",
                          "during", "until", "till"})
"""Words that may follow a telegraphic "up"/"down" right after its quantity ("val loss up after epoch 2")."""
"""Movements after which a fall "again" or "back" is the curve's return, not a drop of its own."""

_SETTLED = frozenset({"stay", "flat", "flatline", "same", "stuck", "plateau"})
_COUNTED_SPANS = frozenset("epoch step iteration iter batch hour minute min day second sec".split())
"""What a number after "stays" counts when it is a span, not the value held ("stayed 3 epochs at 0.7")."""
"""Movements that say a curve stays where it is."""
_COUNTED = frozenset("epoch step iteration iter batch class sample example image hour minute second day gpu worker "
                     "layer".split())
"""Nouns a number counts ("10 epochs", "5 classes"): such a number is no figure of a metric said nearby."""
_RESTART_SCHEDULE = rx.compile(K.RESTART_SCHEDULE, re.IGNORECASE)
_SHARED_TOO = rx.compile(K.SHARED_TOO, re.IGNORECASE)
_RECURRING = ("epoch_start", "start", "each_epoch", "periodic", "always")
"""Times that place a movement by themselves, the most specific first (an epoch's start, of which "the first batch"
may be said, the first step, any epoch, a fixed interval, every time)."""
_VALUE_UNITS = K.TIME_UNITS | frozenset("secs seconds mins minutes hrs hours gb mb gib mib % x it/s s/it".split())
"""Units written after their number, apart or not ("0.4 s", "0.4s -> 0.55s", "12 GB"): a value's, never a value of
their own (the side of a change is the number, not its unit)."""
_LABEL_LINKS = frozenset({":", "=", "'", '"'})
"""What stands between a logged name and its figure ("'loss': 0.69", "loss=0.69")."""
_STEP_WORDS = frozenset({"step", "steps", "iter", "iters", "iteration", "iterations", "global_step", "it", "batch"})
_EPOCH_WORDS = frozenset({"epoch", "epochs", "ep"})
_LENGTH_WORDS = _EPOCH_WORDS | frozenset({"step", "steps", "iteration", "iterations", "iter", "iters"})
"""Units of a run's length said with a "more" before them ("more epochs", "extra iterations")."""
_STEP_OR_EPOCH_WORDS = _STEP_WORDS | _EPOCH_WORDS
_SERIES_WORDS = frozenset({"then", "and", "still", "per", "value", "be", "is", "are", "were", "was", "like"})
"""Words a printed series of values may hold between its name and its numbers ("loss per epoch: ...",
"my loss values are ...")."""
_GPU_LINK = frozenset("be at around about only just ~ sit stay run hover mostly usually under below near "
                      "util utilization usage load work busy active".split())
"""Words between "GPU" and a percentage that say it is the GPU's figure ("the GPU is only at 30%")."""
_CHANGE_BY = ("faster", "slower", "more", "less", "higher", "lower", "better", "worse", "speedup", "speed-up",
              "increase", "decrease", "improvement", "longer", "shorter")
"""Words after a percentage that make it a change by that share ("29% faster"), not a level."""
_RATE = rx.compile(r"(?:s|sec|secs|ms|min)/(?:it|iter|iteration|step|batch)|"
                   r"(?:it|its|iter|iters|step|steps|batch|batches|sample|samples|img|imgs|image|images|tok|tokens)"
                   r"/(?:s|sec|second)")
"""A rate of training as progress bars and logs print it ("1.2 s/it", "3.4 it/s", "850 samples/sec")."""
_IS_VALUE = tuple([w] for w in K.VALUE_WORDS)
"""Words before a bare "0" that make it the value of what was just named ("loss is 0", "drops to 0")."""
_CALL_HEADS = frozenset(k.split()[0] for k in K.LOOP_CALLS)
"""The first words of the loop's calls (a sentence without one names no call)."""
_VALUED = frozenset({"lr", "loss", "grad_norm", "accuracy"})
"""Quantities a number right after them is the value of ("lr 0", "grad_norm 0.0")."""
_COMPARE = {"lower": "lt", "less": "lt", "smaller": "lt", "below": "lt", "under": "lt", "higher": "gt",
            "greater": "gt", "bigger": "gt", "larger": "gt", "above": "gt", "more": "gt", "over": "gt",
            "worse": "worse", "better": "better", "<": "lt", ">": "gt"}
_COMPARATIVES = frozenset(w for w in _COMPARE if w.isalpha() and w not in ("less", "more", "below", "under", "above",
                                                                           "over")) | {"high", "low"}
"""Words that compare (a split after them is one side of a comparison, not whose curve moved): the comparatives
of ``_COMPARE`` but the places and amounts ("over", "more", said of many other things too), and their bare
adjectives."""


_RUNS_ON = rx.compile(r"[,;!?\n]|[.:](?=\s)")
"""A clause or sentence break: a reading that spans one past a pasted error's end says more than the error."""
_UNTIL_REACH = 6
"""Tokens before a clause opened by "then" where the step it follows is looked for ("until step 8000, then")."""
_JOINERS = frozenset({"and", "&", "/", ",", "+"})
"""Words that join two names into one list ("loss_cls and loss_box_reg", "cls/box")."""
_LIST_NOUNS = frozenset({"loss", "term", "head", "both"})
"""The nouns a list of a model's loss terms repeats between its names ("the cls loss and the box loss")."""
_GAP_PLACES = frozenset({"below", "above", "behind"})
"""Words that, right after a figure, place one quantity against another ("2% below the baseline"): the figure is
the distance between them, never a value of either ("under" and "over" also say a condition: "80% under fp16")."""
_ALTERNATIVES = frozenset({"or", "vs", "versus", "vs."})
_INVERTED = frozenset("is are does can could should would shall".split())
"""Auxiliaries that open a question when they come first (a statement never starts with one; "do" may be a command)."""

_INTENTIONS = frozenset({"plan", "planning", "intend"})
"""Words of an intention that, right after "than", are a comparison's standard ("longer than planned")."""
ELIDED_OWNERS = frozenset("i we mine ours".split())
"""Subjects that make a clause with a setting left out the user's own value ("... and I use 256", "mine is 1e-4")."""
_ELIDED_JOINS = frozenset("and but while whereas whilst though although".split())
_ELIDED_VERBS = frozenset("use be have run train set go pick choose keep".split())
_LOG_EXPECTED = frozenset("expect expected expectation should would theoretical theory ideal".split())
"""Words that make a loss figure the one expected of a run ("Expected loss: 0.6931 at init"), no record of it."""
_FALLS_READ = frozenset({"down", "down_bare", "improve", "learn", "converge"})
"""Movements of a curve that fall or improve: a loss said to do so is not flat, whatever figures repeat."""
_PROSE_WORDS = frozenset("i my we our me it its is was are were the and but then at to which what why how both "
                         "this that".split())
"""Function words of prose, which a log's records do not hold between them ("at init. My loss: ...")."""
_RUN_LABELS = frozenset("run model experiment exp config variant version baseline setup".split())
"""Nouns that label a run in a record ("run A loss: 0.69"): two labels are two runs, no one curve."""
_ELIDED_BATCH_UNITS = frozenset("sample example image sequence sentence".split())
"""What a batch's number may count when said again ("and I use 256 samples"); any other noun after the number
("I use 4 A100s", "2 nodes", "16 accumulation steps") makes it a count of that, no value of the setting."""
_ELIDED_TAILS = frozenset("too instead now though only here locally currently".split())
"""Words that may follow a setting's number said again and close its clause ("I use 256 instead"): no noun of it."""
_ELIDED_NAMES = frozenset({"batch_size", "learning_rate"})
"""Settings whose number a user may repeat without naming them again (``QUOTED_SETTINGS``' names)."""
_PURPOSE_FILLERS = frozenset("the a an any all some more further my our its this that".split())
"""Words between a purpose's verb and the trouble it names ("to avoid any NaNs", "to reduce the overfitting")."""
_WEIGHT_NOUNS = K.TERM_WEIGHTS | {w + "s" for w in K.TERM_WEIGHTS}
"""``knowledge.talk.TERM_WEIGHTS`` as the nouns (and plurals) a text says them with."""


@dataclass(frozen=True)
class Token:
    """One token of the normalised text."""

    text: str
    lemma: str
    start: int
    end: int
    kind: str  # word, num, arrow, punct, other
    unit: str = ""

    @cached_property
    def number(self) -> float | None:
        """The token's value when it is a number (read once: the readers ask a number's value many times)."""
        if self.kind != "num":
            return None
        try:
            return float(self.text.replace(",", ""))
        except ValueError:
            return None


def _count(t: Token) -> float | None:
    """A number token's value as a count, its "k" read as thousands ("at iteration 12k" is step 12000)."""
    n = t.number
    return None if n is None else n * 1000 if t.unit == "k" else n


@dataclass(frozen=True)
class Reading:
    """One observation read from the text.

    Attributes:
        name: The observation.
        value: Its value (validated later, against the vocabulary).
        start: Offset of the first word that gave it (normalised text).
        end: Offset after the last word.
        strong: A composed reading (quantity and movement, evidence): it wins over a single-word cue.
        hedged: The user was unsure ("maybe", "I think").
        evidence: Read from pasted evidence (an error line, a log).
        fallback: A weaker reading that counts only when nothing else is read ("it crashes" with no error
            family named).
        named: A setting named in passing ("with fp16"): whose setting it is (this run's, someone else's, one
            being weighed) is for the reader of the whole text to say.
    """

    name: str
    value: Any
    start: int
    end: int
    strong: bool = True
    hedged: bool = False
    evidence: bool = False
    fallback: bool = False
    named: bool = False


@dataclass
class Understanding:
    """What the text says, as parts.

    Attributes:
        readings: Observations with the words that gave each.
        claims: ``(start, end, names)``: a single-word cue inside the span may not set these observations.
        confirm: Confirmation questions for words read two ways (the word, the question).
        asked: ``(start, end)`` of each yes/no question ("does the warmup end too early?"): a cause read inside
            one is the user's hypothesis, offered to confirm rather than read (``knowledge.talk.YES_NO_LEADS``).
        removed: ``(start, end)`` of the words a removal said as done takes out ("turned off <the warmup>", "I
            removed <label smoothing>"): a cue of a switch inside one reads it off (``expert.text``).
        offered: The observations of those hypotheses (filled by ``expert.text``): a `yes` to their confirmation
            records them.
        no_guess: The text says why no trouble is to be guessed when nothing is read: it describes a healthy run
            ("the loss keeps dropping and val loss follows it") or asks what a thing is ("what are exploding
            gradients?").
        on_topic: The text names a thing of training (a word of it, or a cue not of everyday words): cues of
            everyday words (``Keyword.scope`` False) read nothing in a text that does not.
        over: ``(start, end)`` of each pasted or named error of a family the text says is over ("at first CUDA OOM
            ... OOM gone but backward fails with ..."): a cue inside one says history (``expert.text``).
    """

    readings: list[Reading] = field(default_factory=list)
    claims: list[tuple[int, int, frozenset[str]]] = field(default_factory=list)
    confirm: list[tuple[str, str]] = field(default_factory=list)
    asked: list[tuple[int, int]] = field(default_factory=list)
    removed: list[tuple[int, int]] = field(default_factory=list)
    offered: list[Any] = field(default_factory=list)
    no_guess: bool = False
    on_topic: bool = True
    over: list[tuple[int, int]] = field(default_factory=list)
    _index: dict[str, tuple[list[int], list[int]]] | None = field(default=None, repr=False)

    def claimed(self, start: int, end: int, name: str) -> bool:
        """Whether a cue at ``[start, end)`` may not set ``name`` (a lookup in an index built once)."""
        if self._index is None:
            by_name: dict[str, list[tuple[int, int]]] = {}
            for s, e, names in self.claims:
                for n in names:
                    by_name.setdefault(n, []).append((s, e))
            self._index = {}
            for n, spans in by_name.items():
                spans.sort()
                reach, ends = -1, []
                for _s, e in spans:
                    reach = max(reach, e)
                    ends.append(reach)
                self._index[n] = ([s for s, _e in spans], ends)
        found = self._index.get(name)
        if found is None:
            return False
        starts, ends = found
        k = bisect_right(starts, start)
        # the claims starting at or before ``start``: does the furthest of them reach ``end``?
        return k > 0 and ends[k - 1] >= end


def threshold(mid: str) -> float:
    """``knowledge.measurements.threshold``, imported at first use.

    Only a complaint comparing step timings across GPU counts asks for one; importing the measurement table with
    the reader cost every ``consult`` start-up about a millisecond.
    """
    from knowledge.measurements import threshold as measured

    return measured(mid)


def flat_values(values: list[float]) -> bool:
    """Whether logged loss values stay within ``MT-FLAT-SERIES`` of their largest, all at least ``MT-FLAT-FLOOR``.

    "2.31 2.30 2.30 2.30" is a printed loss that does not move; "0.012 0.011" is a converged one still moving.
    """
    return min(values) >= threshold("MT-FLAT-FLOOR") and \
        max(values) - min(values) <= threshold("MT-FLAT-SERIES") * max(values)


# ------------------------------------------------------------------------------------------------ lexicon


LEXICON_CACHE = "lexicon"
"""The cache entry of the lexicon's tables (``_lexicon``)."""

_FORMS: dict[str, str] = {}
"""``knowledge.forms.FORMS`` (inflected form -> lemma), filled by ``_lexicon``: stored with the lexicon's tables, the
3,000 forms come back with them, and a start-up that finds them stored does not import the module that spells them
out (about 2 ms of every ``consult``). Read through ``_forms``."""


def _forms() -> dict[str, str]:
    """The word forms (``knowledge.forms.FORMS``), as ``_lexicon`` loaded them."""
    if not _FORMS:
        _lexicon()
    return _FORMS


def _phrase_table() -> dict[tuple[str, ...], dict[str, str]]:
    table: dict[tuple[str, ...], dict[str, str]] = {}
    for role, source in (("q", K.QUANTITIES), ("s", K.SPLITS), ("m", K.MOVEMENTS), ("t", K.TIMES),
                         ("topic", K.TOPICS), ("tv", K.TOPIC_VALUES), ("idiom", {k: k for k in K.IDIOMS}),
                         ("neutral", {k: k for k in K.NEUTRAL}), ("set", {k: k for k in K.SETTING_NAMES})):
        for phrase, value in source.items():
            key = tuple(_lemma(w) for w in phrase.split())
            table.setdefault(key, {})[role] = value
    return table


def _lexicon_tables() -> tuple[Any, ...]:
    """``_lexicon``'s tables, worked out from the talk tables and the word forms."""
    forms = _forms()
    phrases = _phrase_table()
    single = {w for k in phrases for w in k if w.isalpha()}
    lemmas = frozenset(w for w in single if len(w) >= 5)
    known = tuple(sorted(lemmas | {f for f in forms if len(f) >= 5}))
    words = frozenset({w for w in single if len(w) >= 3} | set(forms))
    return phrases, known, lemmas, words, dict(forms)


def _lexicon_shape(data: Any) -> bool:
    # (the phrase table's keys and values by their set of types: one pass in C, not a test per phrase in Python)
    return (type(data) is tuple and len(data) == 5 and type(data[0]) is dict and type(data[1]) is tuple
            and type(data[2]) is frozenset and type(data[3]) is frozenset and type(data[4]) is dict
            and set(map(type, data[0])) <= {tuple} and set(map(type, data[0].values())) <= {dict})


def _pooled(tables: tuple[Any, ...]) -> tuple[Any, ...]:
    """The lexicon's tables with equal role tables of its phrases made one dict (stored once, loaded once).

    Two thousand phrases name a few hundred distinct ``{role: value}`` tables; the reader only reads them
    (``_parts`` copies the one it takes), so phrases that say the same can share one.
    """
    pool: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
    phrases = {k: pool.setdefault(tuple(v.items()), v) for k, v in tables[0].items()}
    return (phrases, *tables[1:])


@lru_cache(maxsize=1)
def _lexicon() -> tuple[Any, ...]:
    """(phrases, known, lexicon lemmas, words, word forms): see the functions below; kept in the user's cache.

    They follow from the talk tables and the word forms alone, and working them out cost a tenth of reading a
    first complaint: the first process stores them (``expert.cache``), the next ones read them back. Either way
    the word forms are ``_FORMS`` from here on (``_lemma`` reads them).
    """
    from expert import cache

    stored = cache.load_plain(LEXICON_CACHE) if cache.enabled() else None
    if stored is not None and _lexicon_shape(stored):
        _FORMS.update(stored[4])
        return stored
    from knowledge.forms import FORMS

    _FORMS.update(FORMS)  # before the tables: working them out lemmatises every phrase
    tables = _pooled(_lexicon_tables())
    if cache.enabled():
        cache.store_plain(LEXICON_CACHE, tables)
    return tables


def _phrases() -> dict[tuple[str, ...], dict[str, str]]:
    """Lemma sequence -> {role: value} for every phrase of the talk tables."""
    return _lexicon()[0]


@lru_cache(maxsize=1)
def _max_len() -> int:
    return max(map(len, _phrases()))


def _known() -> tuple[str, ...]:
    """Single words worth correcting a slip to (lexicon words of five letters or more), sorted."""
    return _lexicon()[1]


def _lexicon_lemmas() -> frozenset[str]:
    """The lexicon's own single words of five letters or more (no inflected forms): what a slipped stem may be."""
    return _lexicon()[2]


def _words() -> frozenset[str]:
    """Every single word of the lexicon and its inflected forms (the words a slip may be corrected to)."""
    return _lexicon()[3]


def _lemma(word: str) -> str:
    w = word.lower()
    if w in K.SHORT_FORMS:
        return K.SHORT_FORMS[w]
    lemma = (_FORMS or _forms()).get(w)
    if lemma is not None:
        return lemma
    if w.endswith("ly") and len(w) > 4:
        # an adverb of a judgement is that judgement: "does badly on new data", "performs terribly on test"
        for stem in (w[:-2], w[:-3] + "le" if w.endswith("bly") else "", w[:-3] + "y" if w.endswith("ily") else ""):
            if stem and K.MOVEMENTS.get(stem) in K.ADVERB_JUDGEMENTS:
                return stem
    return w


_INFLECTIONS = ("ing", "ed")
"""Endings of an inflected form that a spelling slip leaves in place."""


def _inflects(word: str, lemmas: frozenset[str]) -> bool:
    """Whether ``word`` is one of ``lemmas`` with a regular "-ing" or "-ed" ("checkpointing", "unscaled")."""
    ending = next((e for e in _INFLECTIONS if word.endswith(e)), "")
    stem = word[:-len(ending)] if ending else ""
    return bool(stem) and (stem in lemmas or stem + "e" in lemmas)


def _inflected(lemma: str, ending: str, words: frozenset[str]) -> str:
    """``lemma`` with the inflection ``ending`` as the vocabulary spells it ("expect", "ed": "expected").

    Else the lemma itself: the reader of talk lemmatises either, a text rewritten with it wants the inflected word.
    """
    for form in (lemma + ending, lemma[:-1] + ending, lemma + lemma[-1] + ending):
        if form in words:
            return form
    return lemma


@lru_cache(maxsize=4096)
def _corrected(word: str) -> str:
    """The lexicon word a slip of ``word`` stands for ("gradiant", "oscilating"), else ``word``."""
    return correct_slip(word, _words(), _known(), _lexicon_lemmas())


def correct_slip(word: str, words: frozenset[str], known: tuple[str, ...], lemmas: frozenset[str],
                 strict: bool = False) -> str:
    """The word of a vocabulary a slip of ``word`` stands for, else ``word``.

    Only words of seven letters or more are corrected by a substituted letter, by one edit (two from nine
    letters), keeping the first letter: short words have too many real neighbours ("stack" is not "stuck",
    "floats" is not "flats"). Shorter ones (five letters or more) are corrected only for a doubled key, a plural
    -s on a word that takes none, or a last letter cut off.

    Args:
        word: A lower-case word.
        words: Every word of the vocabulary, inflected forms included (a word among them is no slip).
        known: The words of five letters or more a slip may be corrected to, sorted.
        lemmas: The vocabulary's own words of five letters or more (what a slipped stem may be).
        strict: One edit at most, and a stem of six letters or more to correct an inflected word: for a large
            vocabulary, whose words have more real English neighbours ("directory" is not "directly",
            "retuning" is not "returning").
    """
    if not word.isalpha() or len(word) < 5 or word in words:
        return word
    # a key held down once too long ("losss", "gradd") or a plural -s on a word that takes none ("stucks")
    for k in range(1, len(word)):
        if word[k] == word[k - 1]:
            single = word[:k] + word[k + 1:]
            if single in words or _inflects(single, lemmas):
                return single
    if word.endswith("s") and word[:-1] in words:
        return word[:-1]
    if len(word) >= 7:
        # two neighbouring letters typed the wrong way round ("grdaient"; with a letter left out too, "platues"):
        # one slip, though it is two substitutions to the edit distance below
        for k in range(1, len(word) - 1):
            swapped = word[:k] + word[k + 1] + word[k] + word[k + 2:]
            if swapped in words:
                return swapped
            fixed = next((swapped[:n] + c + swapped[n:] for n in range(max(2, k), min(k + 3, len(swapped)))
                          for c in "aeiou" if swapped[:n] + c + swapped[n:] in words), None)
            if fixed is not None:
                return fixed  # (a vowel left out beside the swap: the commonest second slip)
    if len(word) < 7:
        # a word cut short by one letter ("explod", "decreas"): only the lexicon word it begins
        # (``known`` is sorted: the words it begins lie together from where it would go)
        grown = []
        for c in known[bisect_left(known, word):]:
            if not c.startswith(word):
                break
            if len(c) == len(word) + 1:
                grown.append(c)
        if len(grown) == 1 or len(word) < 6:
            return grown[0] if len(grown) == 1 else word
        # ... or one letter left out inside a six-letter word ("plateu", "diverg"): only the one lexicon word
        # that, with the letter back, it makes
        grown = sorted({c for k in range(2, len(word) + 1) for c in words
                        if len(c) == len(word) + 1 and c[:k] == word[:k] and c[k + 1:] == word[k:]})
        return grown[0] if len(grown) == 1 else word
    try:
        from rapidfuzz.distance import OSA, Indel
        from rapidfuzz.process import extractOne
    except ImportError:  # pragma: no cover - a required dependency; without it slips are simply not matched
        return word

    ending = next((e for e in _INFLECTIONS if word.endswith(e)), "")
    if ending:
        # a slip keeps the word's inflection: its stem is matched against the lexicon's own words, never against
        # inflections made up for words that take none ("installed" is no slip of "instabled", made from
        # "instable"; "oscilating" is a slip of "oscillate")
        stem = word[:-len(ending)]
        cutoff = 2 if len(stem) >= 9 and not strict else 1
        for guess in (stem, stem + "e"):
            if guess in lemmas:
                return _inflected(guess, ending, words)
        if strict and len(stem) < 6:
            return word
        choices = [c for c in lemmas if c[0] == stem[0] and abs(len(c) - len(stem)) <= cutoff + 1]
        # (letters dropped or doubled only: a substituted letter makes another word, "installe" is no "instable")
        best = min(((Indel.distance(g, c), c) for g in (stem, stem + "e") for c in choices), default=None)
        return _inflected(best[1], ending, words) if best is not None and best[0] <= cutoff else word
    cutoff = 2 if len(word) >= 9 and not strict else 1
    choices = [c for c in known if c[0] == word[0] and abs(len(c) - len(word)) <= cutoff]
    # (two letters swapped is one slip, the commonest: "unstbale", "trainnig")
    hit = extractOne(word, choices, scorer=OSA.distance, score_cutoff=cutoff)
    return hit[0] if hit else word


@lru_cache(maxsize=1)
def _triggers() -> frozenset[str]:
    """Words without which a line of a long text holds no movement, idiom or comparison to compose."""
    lemmas = {w for source in (K.MOVEMENTS, K.IDIOMS) for phrase in source for w in phrase.split()[:1]}
    lemmas |= set(_COMPARE)
    # (and the settings a line may name: "optimizer: AdamW, lr=1e-3" in a pasted config)
    lemmas |= {w for phrase in K.SETTING_NAMES for w in phrase.split()[:1]} | set(K.MODEL_FAMILIES)
    lemmas |= {w for phrase, q in K.QUANTITIES.items() if q in K.QUOTED_SETTINGS for w in phrase.split()[:1]}
    words = {w for w in lemmas if w.isalpha()} | {f for f, lem in _forms().items() if lem in lemmas}
    return frozenset(words - {"up", "down", "low", "high", "large", "run", "change", "update", "same", "over"})


_WORDS = rx.compile(r"[a-z]+")
_POINT_WORDS = frozenset({"start", "beginning", "init", "initialization", "initialisation", "first"})
"""Words after "at" that name one point of a run ("at the start", "at init"): a value there held no longer."""


def _line_window(text: str, m: re.Match[str]) -> tuple[int, int]:
    """The line holding match ``m``, or the 400 characters either side of it in a line too long to be one.

    The searches for the line's ends stay within that reach: a text of one long line costs each match its window,
    not a scan back to the text's start.
    """
    lo = max(text.rfind("\n", max(0, m.start() - 400), m.start()) + 1, m.start() - 400)
    hi = text.find("\n", m.end(), m.end() + 400)
    return lo, (min(len(text), m.end() + 400) if hi < 0 else hi)


_NOT_LETTER = str.maketrans({chr(i): " " for i in range(128) if not "a" <= chr(i) <= "z"})


def _shape(text: str, lo: int, hi: int) -> frozenset[str]:
    """The runs of letters of ``text[lo:hi]`` (``_WORDS``'s matches), each once: the words a line is made of.

    An ASCII line's runs are found by blanking every other character and splitting, in two passes of C rather than a
    string made per match (a long line of log is cut into thousands of windows).
    """
    piece = text[lo:hi]
    if piece.isascii():
        return frozenset(piece.translate(_NOT_LETTER).split())
    return frozenset(_WORDS.findall(piece))


def _led_words(words: list[str]) -> str:
    """The pattern ``(?<![a-z])(?:w1|w2|...)`` of these words in this order, written to be searched fast.

    Each first character leads its words and the test that no letter comes before it follows it
    ("l(?<![a-z]l)(?:oss|r)"): the same matches (only words of one first character can match at a place, and they
    keep their order), but a pattern led by the test is tried at every place of a long text, while one led by
    characters is skipped through to them by the regex engine.
    """
    groups: dict[str, list[str]] = {}
    for w in words:
        groups.setdefault(w[0], []).append(w[1:])
    return "(?:" + "|".join(f"{re.escape(c)}(?<![a-z]{re.escape(c)})(?:{'|'.join(map(re.escape, rest))})"
                            for c, rest in groups.items()) + ")"


def _ranges(text: str) -> list[tuple[int, int]]:
    """The lines of a long text worth composing (see :func:`_triggers`); the whole of a short one."""
    if len(text) <= FUZZY_LIMIT:
        return [(0, len(text))]
    # (each run of letters lies inside one run of word characters: those of the text's distinct words, which the
    # cue scan has listed already, are the text's; read in one search of the words joined by a blank, which no run
    # of letters crosses, not a search per word: a log's distinct words are mostly its numbers)
    present = set(_WORDS.findall(" ".join(text_words(text)))) & _triggers()
    if not present and "->" not in text and "\u2192" not in text:
        return []
    alts = _led_words(sorted(present | {"->", "\u2192"}, key=lambda w: (-len(re.escape(w)), re.escape(w))))
    out: list[tuple[int, int]] = []
    last_line, budget, records, decisive = -1, COMPOSE_LIMIT, RECORD_LIMIT, COMPOSE_LIMIT
    shapes: set[frozenset[str]] = set()  # the words of each line composed
    for m in re.finditer(rf"{alts}(?![a-z])", text):
        if m.start() < last_line:
            continue
        lo, hi = _line_window(text, m)
        last_line = hi
        budget -= hi - lo
        shape = _shape(text, lo, hi)
        if shape not in shapes:
            shapes.add(shape)
            out.append((lo, hi))
        elif records > 0:
            out.append((lo, hi))
            records -= hi - lo
        # (past that, a line of the same words as one composed, only its numbers differing, is a log's record: its
        # figures are read by the evidence pass, and composing it again would say what its first copies said)
        if budget <= 0:
            break  # enough read: what a person writes is said by now; the evidence pass still reads it all
    else:
        return out
    # past the budget, a line of new words that may decide the diagnosis ("gradients are all zero now" after 20K
    # records, "Warning: NaN or Inf found in input tensor") is still composed, however late, within a budget of its
    # own; one search of a few words over the rest keeps it linear, and a record of a shape composed before is the
    # evidence pass's
    said = sorted(set(_WORDS.findall(" ".join(text_words(text)))) & K.DECISIVE_WORDS, key=lambda w: (-len(w), w))
    if not said:
        return out
    # (each search starts past the last line read, so a long line saying the words over and over, a pasted log on
    # one line, costs one step per line window, not one per word; the backward search for the line's start, and
    # the words read, stay within the window: the pass is linear in the text)
    find = re.compile(rf"{_led_words(said)}(?![a-z])").search
    while (m := find(text, max(last_line, 0))) is not None:
        lo, hi = _line_window(text, m)
        last_line = max(hi, m.end())
        shape = _shape(text, lo, hi)
        if shape not in shapes:
            shapes.add(shape)
            out.append((lo, hi))
            decisive -= hi - lo
            if decisive <= 0:
                break
    return out


def tokenise(text: str, fuzzy: bool = True, ranges: list[tuple[int, int]] | None = None) -> list[Token]:
    """Tokens of lower-cased text, each with its lemma; identifiers are split ("val_loss" -> val, loss).

    Args:
        text: The normalised text.
        fuzzy: Correct spelling slips of lexicon words.
        ranges: Only these ``(start, end)`` stretches (each ends a sentence); None: all of it.
    """
    out: list[Token] = []
    for lo, hi in ranges if ranges is not None else [(0, len(text))]:
        out.extend(_tokens(text, lo, hi, fuzzy))
        if ranges is not None:
            out.append(Token("\n", "\n", hi, hi, "punct"))
    return _than_slips(out) if fuzzy else out


def _than_slips(tokens: list[Token]) -> list[Token]:
    """``tokens`` with the slips a "than" reveals corrected; the same list when there are none.

    Both ways to the fuzzy tokens (:func:`tokenise`, :func:`_with_slips`) pass here, and the list may be the one
    shared by the two readers of a short text (:func:`_whole_tokens`): it is copied before a change, never edited.
    """
    out = tokens

    def put(k: int, token: Token) -> None:
        nonlocal out
        if out is tokens:
            out = list(tokens)
        out[k] = token

    # "lower then train", "higher then the val loss": "then" typed for "than" after a comparative, known by
    # the split or the baseline it is set against (not "went lower then spiked", a sequence)
    for k in range(1, len(out) - 2):
        if out[k].lemma == "then" and out[k - 1].kind == "word" and (
                out[k - 1].lemma in _COMPARE or comparative_slip(out[k - 1].lemma) is not None):
            nxt = out[k + 2] if out[k + 1].lemma in _THAN_FILLERS and k + 2 < len(out) else out[k + 1]
            if nxt.lemma in K.SPLITS or nxt.lemma in _THEN_STANDARDS:
                put(k, Token(out[k].text, "than", out[k].start, out[k].end, out[k].kind, out[k].unit))
    # a comparative is known by the "than" after it: there a slip of one ("higer than train", "lowr than")
    # is corrected against the few comparatives, although the word is too short to correct anywhere else
    for k in range(len(out) - 1):
        t = out[k]
        if out[k + 1].lemma == "than" and t.kind == "word" and t.lemma not in _COMPARE:
            fixed = comparative_slip(t.lemma)
            if fixed is not None:
                put(k, Token(t.text, fixed, t.start, t.end, t.kind, t.unit))
    return out


_THEN_STANDARDS = frozenset("before expected usual normal earlier previously yesterday".split())
"""Words after a "then" typed for "than" that make it a comparison with another time ("slower then before")."""
@lru_cache(maxsize=1024)
def comparative_slip(word: str) -> str | None:
    """The comparative (``_COMPARE``) a slipped ``word`` before "than" stands for, else None.

    One edit (a letter dropped, doubled, swapped or mistyped; rapidfuzz's optimal string alignment distance), the
    first letter kept: "higer", "lowr", "hihger", "smalelr". A real word of the lexicon is never corrected.
    """
    if not word.isalpha() or len(word) < threshold("MT-COMPARATIVE-SLIP-MIN") or word in _words():
        return None
    try:
        from rapidfuzz.distance import OSA
        from rapidfuzz.process import extractOne
    except ImportError:  # pragma: no cover - a required dependency
        return None
    choices = [c for c in _COMPARE if c.isalpha() and c[0] == word[0] and abs(len(c) - len(word)) <= 1]
    hit = extractOne(word, choices, scorer=OSA.distance, score_cutoff=1)
    return hit[0] if hit else None


def _tokens(text: str, lo: int, hi: int, fuzzy: bool) -> Iterator[Token]:
    phrases = _phrases()
    for m in _TOKEN.finditer(text, lo, hi):
        if m.group("num") is not None:
            yield Token(m.group("num"), m.group("num"), m.start(), m.end("num"), "num", (m.group("unit") or "").strip())
            continue
        word = m.group("word")
        if word is None:
            kind = "arrow" if m.group("arrow") else "punct" if m.group("punct") else "other"
            yield Token(m.group(0), m.group(0), m.start(), m.end(), kind)
            continue
        word = word.lower().strip("'")
        if word.endswith("'s") and len(word) > 3:
            word = word[:-2]  # "the loss's", "NaN's": the word itself
        if word.startswith(".") and (word,) not in phrases:
            word = word.lstrip(".")
        if not word:
            continue
        pos = m.start()
        for part, lemma in _word_parts(word, fuzzy):
            at = text.find(part, pos, m.end())
            at = pos if at < 0 else at
            yield Token(part, lemma, at, at + len(part), "word")
            pos = at + len(part)


_WHOLE: list[tuple[str, list[Token]]] = []
"""The last short text tokenised whole, unfuzzed, and its tokens (:func:`_whole_tokens`)."""


def _whole_tokens(text: str) -> list[Token]:
    """``tokenise(text, fuzzy=False)``, made once for the two readers of a short text.

    :class:`ClauseStatus` reads a text shorter than its block as one stretch, the whole text, and the reader of
    training talk tokenises the same text (its slips corrected: :func:`_with_slips`): one tokenisation, and one
    :class:`_Index` of it (``_index`` finds the list it was built for), serve both.
    """
    # (one read of the shared entry: another thread may replace it between a test and a second read)
    last = _WHOLE[0] if _WHOLE else None
    if last is not None and last[0] == text:
        return last[1]
    tokens = list(_tokens(text, 0, len(text), False))
    _WHOLE[:] = [(text, tokens)]
    return tokens


def _with_slips(tokens: list[Token]) -> list[Token]:
    """``tokenise(text, fuzzy=True)`` from ``tokens``, ``tokenise(text, fuzzy=False)``: the same list when no slip.

    The two differ only in the lemma of a word whose slip is corrected (:func:`_word_parts`), and each such lemma
    follows from the token's text and its unfuzzed lemma (:func:`_slip_lemma`).
    """
    out: list[Token] | None = None
    for k, t in enumerate(tokens):
        if t.kind == "word":
            lemma = _slip_lemma(t.text, t.lemma)
            if lemma != t.lemma:
                if out is None:
                    out = list(tokens)
                out[k] = Token(t.text, lemma, t.start, t.end, "word")
    return _than_slips(tokens if out is None else out)


@lru_cache(maxsize=16_384)
def _slip_lemma(part: str, lemma: str) -> str:
    """The lemma ``_word_parts`` gives the piece ``part`` with slips corrected, from the one it gives without."""
    if part.endswith("n't") or (part.endswith("nt") and part in K.NEGATORS):
        return lemma  # ("not" either way)
    if (lemma,) not in _phrases() and lemma not in K.NEGATORS:
        return _lemma(_corrected(lemma))
    return lemma


@lru_cache(maxsize=16_384)
def _word_parts(word: str, fuzzy: bool) -> tuple[tuple[str, str], ...]:
    """The pieces of a lower-case word as tokens, each with its lemma (worked out once per distinct word).

    A text says its words many times ("loss" on every line of a log): the split, the lemma and the slip
    correction depend on the word alone.
    """
    phrases = _phrases()
    # an identifier is split at its dots first, then each piece that the lexicon does not know at "_" and "-"
    # ("optimizer.zero_grad" -> optimizer, zero_grad; "val_loss" -> val, loss)
    parts = [word] if (_lemma(word),) in phrases else [
        q for piece in re.split(r"[./]", word) if piece
        for q in ([piece] if (_lemma(piece),) in phrases else re.split(r"[_-]", piece)) if q]
    out = []
    for part in parts:
        lemma = _lemma(part)
        if fuzzy and (lemma,) not in phrases and lemma not in K.NEGATORS:
            lemma = _lemma(_corrected(lemma))
        if part.endswith("n't") or (part.endswith("nt") and part in K.NEGATORS):
            lemma = "not"  # "doesn't", "dont": the contraction is the negation
        out.append((part, lemma))
    return tuple(out)


# ------------------------------------------------------------------------------------------------ parts


@dataclass
class Part:
    """A matched phrase: its tokens and its possible roles."""

    i: int  # first token index
    j: int  # one past the last token
    roles: dict[str, str]
    start: int
    end: int


_NO_PART = Part(0, 0, {}, 0, 0)
"""The part of a token no phrase holds (no roles)."""


@lru_cache(maxsize=1)
def _concept_claims() -> frozenset[str]:
    """What a cue may not set inside a question asking what a thing is: every observation but the question's topic."""
    from knowledge.vocabulary import VOCABULARY

    return frozenset(VOCABULARY) - {"question_topic"}


@lru_cache(maxsize=1)
def _scope_stems() -> tuple[frozenset[str], tuple[str, ...]]:
    """The words of training (``COARSE_TOPIC``, ``SCOPE_WORDS``) as whole words and as prefixes (stems with ``*``)."""
    stems = K.COARSE_TOPIC | K.SCOPE_WORDS
    return (frozenset(s for s in stems if not s.endswith("*")),
            tuple(sorted(s[:-1] for s in stems if s.endswith("*"))))


@lru_cache(maxsize=4096)
def _near_topic_word(word: str) -> bool:
    """Whether ``word`` is a slip of a training quantity ("los", "lose", "modle", "accuarcy"): said as a subject.

    One edit (a transposition counts as one) from a word of ``SLIP_TARGETS``, two from eight letters, keeping the
    first letter; never a short word, a non-word or an English word that close (``EVERYDAY_NEAR_WORDS``: "the mode",
    "my nose" is no node, and no target either).
    """
    if len(word) < 3 or not word.isalpha() or word in K.EVERYDAY_NEAR_WORDS:
        return False
    try:
        from rapidfuzz.distance import OSA
    except ImportError:  # pragma: no cover - a required dependency; without it slips are simply not matched
        return False
    cutoff = 2 if len(word) >= 8 else 1
    return any(c[0] == word[0] and abs(len(c) - len(word)) <= cutoff and
               OSA.distance(word, c, score_cutoff=cutoff) <= cutoff for c in K.SLIP_TARGETS)


def _parts(tokens: list[Token]) -> list[Part]:
    """Greedy longest match of lexicon phrases over the lemmas."""
    phrases, longest = _phrases(), _max_len()
    out: list[Part] = []
    i, n = 0, len(tokens)
    # (each token's lemma, and whether it is a filler, looked up once: every token starts up to ``longest`` keys)
    lemmas = [t.lemma for t in tokens]
    # (an amount of change, "30%" or "2x", may stand inside a phrase too: ``_with_fillers``)
    fillers = [lemma in K.PHRASE_FILLERS or (t.kind == "num" and t.unit in ("%", "x")) or
               (t.kind == "num" and m + 1 < n and lemmas[m + 1] == "time") for m, (t, lemma) in
               enumerate(zip(tokens, lemmas))]
    while i < n:
        found = None
        for k in range(min(longest, n - i), 0, -1):
            key = tuple(lemmas[i:i + k])
            if key in phrases:
                found = (k, phrases[key])
                break
        if found is None and longest > 1 and any(fillers[i + 1:i + longest]):
            found = _with_fillers(tokens, i, phrases, longest)
        if found:
            k, roles = found
            out.append(Part(i, i + k, dict(roles), tokens[i].start, tokens[i + k - 1].end))
            i += k
        else:
            i += 1
    return out


ELIDED_AUX = frozenset({"be", "do", "have", "not"})
"""Words a clause may end on after its quantity when it leaves out the movement ("but train loss is", "val loss
doesn't", "val loss not")."""
ELIDED_REACH = 12
"""Tokens before an elided clause in which the movement it leaves out is looked for."""


def _elided(tokens: list[Token], parts: list[Part]) -> list[Part]:
    """Parts with the movement an elliptical clause leaves out, said again at its auxiliary.

    "train loss goes down but val loss doesn't", "val loss isn't decreasing, train loss is", "train loss decreasing,
    val loss not": a clause of a quantity and an auxiliary (``ELIDED_AUX``), nothing after it, says the movement of
    the clause before it again, of its own quantity, with its own polarity (the part's ``elided`` role: "neg" or
    "pos"), so the quantity is composed as if the movement were written out.
    """
    if not parts:
        return parts
    by_start = {p.i: p for p in parts}
    added: list[Part] = []
    for n, p in enumerate(parts):
        if "q" not in p.roles or "m" in p.roles:
            continue
        k = p.j
        while k < len(tokens) and tokens[k].kind == "word" and tokens[k].lemma in ELIDED_AUX and k - p.j < 3:
            k += 1
        if k == p.j or (k < len(tokens) and not _breaks(tokens[k])) or k in by_start:
            continue  # no auxiliary, or the clause goes on ("the loss is 2.3", "the loss is not nan")
        # the movement said last before it, in the clause just before (a break between, none inside the gap)
        source = None
        for o in reversed(parts[max(0, n - 6):n]):
            if p.i - o.j > ELIDED_REACH:
                break
            if "m" in o.roles and "q" not in o.roles:
                source = o
                break
        if source is None or not any(_breaks(t) for t in tokens[source.j:p.i]):
            continue
        negative = any(t.lemma in K.NEGATORS or t.text.lower() in K.NEGATORS for t in tokens[p.j:k])
        roles = {"m": source.roles["m"], "elided": "neg" if negative else "pos"}
        added.append(Part(k - 1, k, roles, tokens[k - 1].start, tokens[k - 1].end))
    if not added:
        return parts
    return sorted(parts + added, key=lambda q: q.i)


def _with_fillers(tokens: list[Token], i: int, phrases: Any, longest: int) -> tuple[int, Any] | None:
    """A phrase at token ``i`` said with degree or polarity words inside it (``PHRASE_FILLERS``).

    "isn't getting any better", "doesn't go down much further": the phrase ("get better") holds without them.
    Returns the tokens spanned (fillers included) and the phrase's roles, or None.
    """
    kept: list[int] = [i]
    k = i + 1
    skipped = False
    while k < len(tokens) and len(kept) < longest and k - i < 2 * longest:
        t = tokens[k]
        if t.kind == "num" and (t.unit in ("%", "x") or (k + 1 < len(tokens) and tokens[k + 1].lemma == "time")):
            # the amount of a change said inside its phrase ("takes 30% longer", "got 2x slower", "takes 3 times
            # longer"): a degree like "much", the phrase holds without it
            skipped = True
            k += 2 if t.unit not in ("%", "x") else 1
            continue
        if t.kind != "word":
            break
        if t.lemma in K.PHRASE_FILLERS:
            skipped = True
        else:
            kept.append(k)
        k += 1
    if not skipped:
        return None
    for n in range(len(kept), 1, -1):
        key = tuple(tokens[x].lemma for x in kept[:n])
        if key in phrases and kept[n - 1] - i + 1 > n:
            return kept[n - 1] - i + 1, phrases[key]
    return None


def _clauses(tokens: list[Token], parts: list[Part]) -> Iterator[tuple[int, int, int]]:
    """``(sentence index, first token, one past last token)`` of each clause."""
    inside = set()
    for p in parts:
        if p.j - p.i > 1:
            inside.update(range(p.i + 1, p.j))  # a break word inside a phrase ("up and down") does not cut it
    inside.update(_coordinating(tokens, parts))
    sentence, start, sentence_start = 0, 0, 0
    for k, t in enumerate(tokens):
        brk = False
        if k - start >= MAX_CLAUSE or k - sentence_start >= MAX_SENTENCE:
            # text without punctuation (a pasted dump): bounded pieces keep every later step linear
            if k > start:
                yield sentence, start, k
            start = k
            if k - sentence_start >= MAX_SENTENCE:
                sentence, sentence_start = sentence + 1, k
        if t.kind == "punct" and (t.text in _SENTENCE_END or t.text in _CLAUSE_PUNCT):
            # a dot inside a number or an identifier is no end: the tokeniser keeps those whole
            brk = not _empty_call(tokens, k)
        elif t.kind == "word" and t.lemma in _BREAK_WORDS and k not in inside:
            brk = True
        if brk:
            if k > start:
                yield sentence, start, k
            start = k + 1
            if t.text in _SENTENCE_END:
                sentence, sentence_start = sentence + 1, k + 1
    if start < len(tokens):
        yield sentence, start, len(tokens)


def _coordinating(tokens: list[Token], parts: list[Part]) -> set[int]:
    """Where an "and" joins two curves of one quantity ("the training loss and the validation loss").

    The two are one subject: cutting the clause there would leave the movement after them to the second curve
    alone (``_Reader._coordinated`` reads them together).
    """
    by_start = {p.i: p for p in parts}
    by_end = {p.j: p for p in parts}
    out: set[int] = set()
    for k, t in enumerate(tokens):
        if t.kind != "word" or t.lemma != "and":
            continue
        left = by_end.get(k)
        if left is None or "q" not in left.roles:
            continue
        before = by_end.get(left.i)
        if "s" not in left.roles and (before is None or "s" not in before.roles):
            continue  # only curves said with their split ("train loss"): "loss and accuracy" are two subjects
        n = k + 1
        while n < len(tokens) and tokens[n].lemma in ("the", "my", "its", "their", "both"):
            n += 1
        right = by_start.get(n)
        if right is not None and "s" in right.roles and "q" not in right.roles:
            right = by_start.get(right.j)
        if right is not None and right.roles.get("q") == left.roles["q"]:
            out.add(k)
    return out


def _empty_call(tokens: list[Token], k: int) -> bool:
    """Whether the bracket at ``k`` is half of an empty call joined to a name ("memory_allocated() grows")."""
    t = tokens[k]
    if t.text == "(":
        return 0 < k < len(tokens) - 1 and tokens[k + 1].text == ")" and tokens[k - 1].end == t.start
    return t.text == ")" and k > 1 and tokens[k - 1].text == "(" and tokens[k - 2].end == tokens[k - 1].start


def _breaks(t: Token) -> bool:
    """Whether a token ends a clause (punctuation or a linking word)."""
    return (t.kind == "punct" and (t.text in _SENTENCE_END or t.text in _BIND_BREAKS)) or \
        (t.kind == "word" and t.lemma in _BREAK_WORDS)


# ------------------------------------------------------------------------------------------------ clause status


STATED, NEGATED, ASKED, HEDGED, PAST = "stated", "negated", "asked", "hedged", "past"
"""What a clause does with what it says (:func:`clause_status`): says it, denies it, only asks whether it is so,
says it unsure, or says it was so and is fixed."""


def _plain(t: Token) -> str:
    """A word as typed, lower-case, apostrophes dropped ("doesn't" -> "doesnt"), as the status tables write it."""
    return t.text.lower().replace("'", "")


_NEGATING_VERBS = frozenset({"fail", "refuse"})
"""Verbs that negate like "not" before "to" ("fails to decrease"): :func:`negated_at`."""


def negated_at(tokens: list[Token], i: int, lo: int) -> bool:
    """A negator among the (up to ``NEGATION_REACH``) words before token ``i``, not before ``lo`` (its clause start).

    Light words ("the", "my", "any", "get", "make") are not counted: "can't get the model to converge" and
    "didn't make the training any faster" negate the movement as "doesn't converge" does.
    """
    seen = 0
    for k in range(i - 1, max(lo, i - 2 * NEGATION_REACH) - 1, -1):
        t = tokens[k]
        if t.text in _BIND_BREAKS or t.lemma in _CONTRASTS:
            return False  # a negation does not reach past its clause ("without unscaling first, amp with fp16")
        if t.lemma in K.WH_WORDS or t.lemma in K.SUBORDINATORS:
            return False  # nor into a clause a question word or "until" opens ("not sure why the gradients explode")
        # (nor the pieces of a module path, which the tokeniser splits: "never used torch.cuda.amp.GradScaler"
        # negates the class as "never used GradScaler" does)
        if t.lemma not in _LIGHT and t.lemma not in K.MODULE_PATH_WORDS:
            seen += 1
            if seen > NEGATION_REACH:
                return False
        if t.lemma in K.NEGATORS or t.lemma == "not":
            return True
        if t.lemma in K.SCOPE_VERBS and k < i - 1:
            return False  # "never predicts the rare class": the negation is the verb's, not "rare"'s
        if t.lemma in K.FIX_LEMMAS:
            return False  # "haven't fixed the OOM yet": the negation is the fix's; the OOM is still there
        if t.lemma in K.OUTCOME_VERBS and any(tokens[m].lemma in K.CIRCUMSTANCE_PREPS for m in range(k + 1, i)):
            return False  # "loss not decreasing with Adam": the negation is the movement's; Adam is still in use
        if t.lemma in K.COMPARED_MARKERS:
            return False  # "no difference between the lora model and the base": the comparison is negated
        # "fails to decrease", "refuses to go down" negate like "does not"
        if t.lemma in _NEGATING_VERBS and k + 1 < len(tokens) and tokens[k + 1].lemma == "to":
            return True
    return False


class _Index:
    """Where each token's sentence and clause start and end, and where the words the status looks for stand.

    Built once per token list (:func:`_index`), so that asking the status of every word of a long text costs
    each ask a few look-ups, not a walk over its sentence (a 10 KB message with no full stop, a pasted log).
    """

    def __init__(self, tokens: list[Token]) -> None:
        n = len(tokens)
        self.n = n
        self.sent_lo = [0] * n
        self.sent_hi = [n] * n
        self.clause_lo = [0] * n
        self.clause_hi = [n] * n
        for k in range(1, n):
            t = tokens[k - 1]
            self.sent_lo[k] = k if t.text in _SENTENCE_END else self.sent_lo[k - 1]
            cut = (t.kind == "punct" and (t.text in _SENTENCE_END or t.text in _CLAUSE_PUNCT) and
                   not _empty_call(tokens, k - 1)) or (t.kind == "word" and t.lemma in _BREAK_WORDS)
            self.clause_lo[k] = k if cut else self.clause_lo[k - 1]
        for k in range(n - 1, -1, -1):
            if tokens[k].text in _SENTENCE_END:
                self.sent_hi[k] = k
            elif k + 1 < n:
                self.sent_hi[k] = self.sent_hi[k + 1]
            if k + 1 < n:
                t = tokens[k + 1]
                cut = (t.kind == "punct" and (t.text in _SENTENCE_END or t.text in _CLAUSE_PUNCT)) or \
                    (t.kind == "word" and t.lemma in _BREAK_WORDS)
                self.clause_hi[k] = k + 1 if cut else self.clause_hi[k + 1]
        firsts = {p[0] for p in K.RESOLVED_PHRASES}
        self.plain = plain = [_plain(t) for t in tokens]  # (each word's plain form, made once for the tables below)
        self.resolutions = [k for k, w in enumerate(plain) if w in K.RESOLVED_FORMS or w in firsts]
        self.relapses = [k for k, t in enumerate(tokens) if t.lemma in K.RELAPSE_WORDS or plain[k] in K.RELAPSE_WORDS]
        self.habits = [k for k in range(n - 1) if (plain[k], plain[k + 1]) in K.PAST_HABIT]
        self._past_marks = self._counts([w in K.PAST_MARKERS or (t.text.endswith("ed") and t.lemma != t.text)
                                         for w, t in zip(plain, tokens)])
        self._presupposing = self._counts([t.lemma in K.PRESUPPOSING_WORDS for t in tokens])
        self._hedges = self._counts([t.lemma in K.HEDGES for t in tokens])
        self.denied = self._denials(tokens)

    @staticmethod
    def _counts(flags: list[bool]) -> list[int]:
        """How many of the flags before each position are set (``len(flags) + 1`` counts, the first 0)."""
        return list(accumulate(map(int, flags), initial=0))

    def past_marks(self, lo: int, hi: int) -> bool:
        return self._past_marks[hi] > self._past_marks[lo]

    def presupposing(self, lo: int, hi: int) -> bool:
        return self._presupposing[hi] > self._presupposing[lo]

    def hedged(self, lo: int, hi: int) -> bool:
        return self._hedges[min(hi, self.n)] > self._hedges[max(0, lo)]

    def _denials(self, tokens: list[Token]) -> list[bool]:
        """Which tokens a denied belief or a doubt before them reaches.

        It reaches what it is said of, up to the next clause break: "I don't think the loss is exploding, it just
        plateaus" denies the explosion, not the plateau.
        """
        n = self.n
        out = [False] * n
        k = 0
        # (only a doubt or a belief word can open a denial: the others are passed over without a look)
        openers = _denial_openers()[1]
        for c in [c for c, w in enumerate(self.plain) if w in openers]:
            if c < k or not _denial_trigger(tokens, c, self.sent_lo[c], n):
                continue  # (inside the stretch the last denial reached, or no denial)
            m = c + 1
            while m < n and not _denial_ends(tokens, m):
                out[m] = True
                m += 1
            k = max(c + 1, m)
        return out


def _denial_ends(tokens: list[Token], m: int) -> bool:
    """Whether token ``m`` ends what a denied belief before it is said of (``knowledge.talk.DENIAL_ENDS``)."""
    t = tokens[m]
    if t.text in _SENTENCE_END or t.text in _BIND_BREAKS or t.lemma in _CONTRASTS:
        return True
    return m + 1 < len(tokens) and (_plain(t), _plain(tokens[m + 1])) in K.DENIAL_ENDS


_INDEXES: list[tuple[list[Token], _Index]] = []
_INDEX_KEEP = 8


def _index(tokens: list[Token]) -> _Index:
    """The :class:`_Index` of a token list, built on first ask (the last few lists asked about are kept)."""
    if isinstance(tokens, _Window):
        return tokens.ix  # type: ignore[return-value]  # (a window of a stretch brings its own)
    for held, ix in _INDEXES:
        if held is tokens and ix.n == len(tokens):
            return ix
    ix = _Index(tokens)
    _INDEXES.insert(0, (tokens, ix))
    del _INDEXES[_INDEX_KEEP:]
    return ix


def _sentence_bounds(tokens: list[Token], i: int) -> tuple[int, int]:
    """``[first, end)`` of the sentence holding token ``i``; ``end`` is its closing mark's index (or the text's end)."""
    ix = _index(tokens)
    return ix.sent_lo[i], ix.sent_hi[i]


def clause_start(tokens: list[Token], i: int) -> int:
    """The first token of the clause holding token ``i`` (the break rule of the reader's clauses)."""
    return _index(tokens).clause_lo[i] if i < len(tokens) else i


def _belief_denied(tokens: list[Token], lo: int, i: int) -> bool:
    """Whether a belief denied ("I don't think", "not sure") or a doubt ("I doubt") opens what token ``i`` says.

    It reaches what follows up to the next clause break: "I don't really think <the loss is exploding>", but not
    "..., it just plateaus"; "not sure why it diverges" asks about a thing said, and denies nothing.
    """
    return _index(tokens).denied[i]


def _denied_next(tokens: list[Token], hi: int) -> bool:
    """Whether the sentence after the one closing at ``hi`` opens by denying it ("I checked, they don't")."""
    end = _index(tokens).sent_hi[hi + 1] if hi + 1 < len(tokens) else len(tokens)
    after = [_plain(t) for t in tokens[hi + 1:min(end, hi + 1 + 4 * K.NEXT_DENIAL_WORDS)]
             if t.kind == "word"][:K.NEXT_DENIAL_WORDS]
    if after and after[0] in K.NEXT_NO[0] and (len(after) == 1 or after[1] in K.NEXT_NO[1]):
        return True
    if not any(w in _NEXT_DENIAL_FIRSTS for w in after):
        return False  # (each denial opens with one of a few words: most sentences hold none of them)
    return any(after[m:m + len(d)] == list(d) for d in K.NEXT_DENIALS for m in range(len(after)))


_NEXT_DENIAL_FIRSTS = frozenset(d[0] for d in K.NEXT_DENIALS)


def _asked(tokens: list[Token], lo: int, hi: int, i: int | None = None, j: int | None = None) -> bool:
    """Whether the sentence ``[lo, hi)`` only asks whether what its last clause says is so.

    A statement closed by "?" ("the weights differ between ranks?"), not a question opened by a question word
    ("why does the loss explode?"), nor a request after a statement ("the loss is NaN, any idea?"), nor one that
    takes what it says as given ("..., is that normal?"). With ``i`` (and ``j``, one past the end of what is
    said): only when what is said ends in that last clause ("the weights on rank 0 and rank 1 are different?").
    """
    if hi >= len(tokens) or tokens[hi].text != "?" or lo >= hi:
        return False
    ix = _index(tokens)
    last = ix.clause_lo[hi - 1]
    if i is not None and min(hi, i + 1 if j is None else max(j, i + 1)) - 1 < last:
        return False
    return _plain(tokens[lo]) not in K.ASKING_OPENERS and _plain(tokens[max(lo, last)]) not in K.ASKING_OPENERS \
        and not ix.presupposing(lo, hi)


def _resolved_at(tokens: list[Token], k: int, lo: int, subject: int | None = None) -> int:
    """How many tokens at ``k`` say a trouble is over (0: none): "went away", or "fixed" said of the trouble.

    "fixed it by clipping", "that's fixed now", ", solved by lowering batch" are; "fixed the seed", "the lr was
    fixed", "a fixed lr" are not (said of another thing, ``RESOLVED_OBJECTS``, ``RESOLVED_SUBJECTS``), nor a fix
    said in a clause of time or concession, believed, or denied to anyone ("after I fixed it", "although
    everything was fixed", "I thought I fixed it", "nobody has fixed it": ``UNRESOLVING_WORDS``). ``subject`` is the
    trouble's last token, when known: the trouble itself as the subject of the passive ("the OOM is fixed now, but
    now I get ...", "OOM gone") is said over.
    """
    n = 0
    for phrase in K.RESOLVED_PHRASES:
        if [_plain(t) for t in tokens[k:k + len(phrase)]] == list(phrase):
            n = len(phrase)
            break
    if not n:
        if _plain(tokens[k]) not in K.RESOLVED_FORMS or negated_at(tokens, k, lo):
            return 0
        nxt = tokens[k + 1] if k + 1 < len(tokens) else None
        if nxt is not None and nxt.kind == "word" and _plain(nxt) not in K.RESOLVED_OBJECTS:
            return 0  # "fixed the seed", "solved a bug": said of another thing
        if nxt is None or _plain(nxt) not in K.RESOLVED_PRONOUNS:
            # passive: its subject is the trouble ("that's fixed", "it got solved") or left out (", solved by ...")
            m = k - 1
            while m >= lo and _plain(tokens[m]) in K.RESOLVED_AUX:
                m -= 1
            if not (m < lo or m == subject or _plain(tokens[m]) in K.RESOLVED_SUBJECTS):
                return 0
        n = 1
    # what opens the fix's own words: "after I fixed it", "although everything was fixed", "nobody has fixed it"
    m = k - 1
    while m >= 0 and m >= k - 6 and tokens[m].kind == "word" and _plain(tokens[m]) in K.FIXER_WORDS:
        m -= 1
    if m >= 0 and tokens[m].kind == "word" and (_plain(tokens[m]) in K.UNRESOLVING_WORDS or
                                                 tokens[m].lemma in K.UNRESOLVING_WORDS):
        return 0
    return n


def _fixed_object(tokens: list[Token], ix: _Index, i: int, j: int) -> bool:
    """Whether what tokens ``[i, j)`` say is the object of a fix done before it in its clause.

    "I fixed the OOM, now the loss is NaN", "after fixing the shape error, training is slow", "got rid of the OOM":
    the object is over, and the trouble said next is the run's. Not when the fix is denied, believed, or only a
    condition ("haven't fixed the OOM", "I thought I fixed the OOM", "if I fixed it": ``FIX_UNDONE_OPENERS``), nor
    when its sentence asks ("has anyone solved this OOM?"), nor when the trouble comes back after it ("fixed the
    OOM but it came back"); nor of another thing than the trouble ("fixed the seed and now the loss is NaN": only
    ``FIXED_OBJECT_FILLERS`` may stand between the fix and the trouble).
    """
    lo = ix.clause_lo[i]
    m, filled = i - 1, 0
    while m >= lo and filled < K.FIXED_OBJECT_FILLER_REACH and tokens[m].kind == "word" and \
            _plain(tokens[m]) in K.FIXED_OBJECT_FILLERS:
        m, filled = m - 1, filled + 1
    if m < lo or tokens[m].kind != "word":
        return False
    word = _plain(tokens[m])
    verb = m
    if word in K.FIXING_VERBS:
        q = m - 1
        while q >= lo and _plain(tokens[q]) in K.FIXER_WORDS:
            q -= 1  # "after finally fixing the OOM"
        if q < lo or _plain(tokens[q]) not in K.FIXED_AFTER:
            return False  # "I'm fixing the OOM", "tried fixing it": not done
    elif m - 2 >= lo and (_plain(tokens[m - 1]), word) == K.RID_PHRASE and tokens[m - 2].lemma == "get":
        verb = m - 2
    elif word not in K.FIXED_VERBS:
        return False
    if negated_at(tokens, verb, lo):
        return False  # "haven't fixed the OOM yet"
    q = verb - 1
    while q >= 0 and q >= verb - 6 and tokens[q].kind == "word" and _plain(tokens[q]) in K.FIXER_WORDS:
        q -= 1
    if q >= 0 and tokens[q].kind == "word" and (_plain(tokens[q]) in K.FIX_UNDONE_OPENERS or
                                                 tokens[q].lemma in K.FIX_UNDONE_OPENERS):
        return False
    end = ix.sent_hi[i]
    if end < len(tokens) and tokens[end].text == "?":
        return False  # "has anyone solved this OOM?": asked of a trouble still there
    trouble = {t.lemma for t in tokens[i:j] if t.kind == "word"} | {_plain(t) for t in tokens[i:j] if t.kind == "word"}
    r = bisect_left(ix.relapses, j)
    while r < len(ix.relapses) and ix.relapses[r] < min(end, j + K.RESOLUTION_REACH):
        if _relapse(tokens, ix.relapses[r], trouble):
            return False  # "I fixed the OOM but it came back"
        r += 1
    return True


def _subject_over(tokens: list[Token], ix: _Index, j: int, c_end: int) -> bool:
    """Whether the trouble ending before token ``j`` is the subject of its own resolution right after it.

    "OOM no longer happens but ...", "the OOM is fixed now": said in the present, the trouble is over all the same
    (only auxiliaries, ``RESOLVED_AUX``, between them).
    """
    k = j
    while k < c_end and _plain(tokens[k]) in K.RESOLVED_AUX:
        k += 1
    return k < len(tokens) and k < c_end + 1 and _resolved_at(tokens, k, ix.clause_lo[k], j - 1) > 0


def _relapse(tokens: list[Token], r: int, trouble: set[str]) -> bool:
    """Whether the relapse word at ``r`` says the trouble came back ("but it comes back", "still goes NaN").

    Not in a clause whose subject is another named thing: "..., the loss still plateaus" says another trouble is
    live, not that the fixed one returned (a pronoun, the trouble's own words, or no subject keep it a relapse);
    "back" only after a verb of coming or being ("it came back", not "lowering it back": ``RELAPSE_BACK_AFTER``).
    """
    lo = _index(tokens).clause_lo[r]
    if _plain(tokens[r]) == "back" and (r == 0 or (_plain(tokens[r - 1]) not in K.RELAPSE_BACK_AFTER and
                                                   tokens[r - 1].lemma not in K.RELAPSE_BACK_AFTER and
                                                   not (r - 1 == lo and _plain(tokens[r - 1]) in K.RESOLVED_SUBJECTS))):
        return False  # "it came back", "(it's) it back" as a clause's subject; not "lowering it back"
    m = max(lo, r - 8)
    while m < r and _plain(tokens[m]) in K.RELAPSE_LEAD_WORDS:
        m += 1  # "..., now the loss still goes NaN": the subject follows
    if m >= r or _plain(tokens[m]) not in K.RELAPSE_DETERMINERS:
        return True
    while m < r and _plain(tokens[m]) in K.RELAPSE_DETERMINERS:
        m += 1
    return m >= r or tokens[m].kind != "word" or tokens[m].lemma in trouble or _plain(tokens[m]) in trouble


def _habit(tokens: list[Token], ix: _Index, i: int, j: int) -> bool:
    """Whether what tokens ``[i, j)`` say follows "used to" as its verb ("the loss used to go NaN").

    The trouble's words must open right after "to", or after light verbs and adverbs only ("used to go NaN",
    "used to be really slow": ``HABIT_FILLERS``), or be the subject just before "used": in "the script I used to
    train the model crashes", "used" is the script's, and the crash is the run's now.
    """
    lo = ix.clause_lo[i]
    k = bisect_left(ix.habits, max(lo, i - 8))
    while k < len(ix.habits) and ix.habits[k] <= j:
        u = ix.habits[k]
        # the trouble's first word after "to" ("used to go NaN" said of "NaN", or of "the loss ... NaN" whole)
        said = i if u + 2 <= i else j - 1
        if u >= lo and (u == j or (u + 2 <= said and all(
                tokens[m].kind == "word" and tokens[m].lemma in K.HABIT_FILLERS for m in range(u + 2, said)))):
            return True
        k += 1
    return False


def _past(tokens: list[Token], i: int, lo: int, hi: int, j: int | None = None) -> bool:
    """Whether what token ``i`` says is history, not the run now.

    Said after "used to"; or said in the past ("had", "was", "last week", a past form) and followed in its sentence
    (within ``RESOLUTION_REACH`` tokens of its clause, or at the next one's opening) by its resolution ("we had OOM
    last week, solved by lowering batch"), with no relapse of it after that.
    """
    ix = _index(tokens)
    j = i + 1 if j is None else j
    clause, c_end = ix.clause_lo[i], ix.clause_hi[i]
    if _habit(tokens, ix, i, j) or _fixed_object(tokens, ix, i, j):
        return True
    r = bisect_left(ix.relapses, clause)
    if r < len(ix.relapses) and ix.relapses[r] <= i:
        return False  # "the loss still goes NaN"
    if not ix.past_marks(clause, c_end) and not _subject_over(tokens, ix, j, c_end):
        return False  # "training unstable; lowering the lr solved it": the trouble said as the run's, its remedy found
    n_tok = len(tokens)
    end = ix.sent_hi[hi + 1] if hi + 1 < n_tok else n_tok
    # the rest of its clause and the next few, and the opening words of the next sentence ("... NaN at step 500.
    # Fixed it by clipping.")
    near = min(hi, c_end + K.RESOLUTION_REACH)
    stop = min(end, hi + 1 + K.NEXT_DENIAL_WORDS)
    for a, b in ((i + 1, near), (hi + 1, stop)):
        q = bisect_left(ix.resolutions, a)
        while q < len(ix.resolutions) and ix.resolutions[q] < b:
            k = ix.resolutions[q]
            q += 1
            n = _resolved_at(tokens, k, ix.clause_lo[k], j - 1)
            if not n:
                continue
            tail_end = min(end, k + n + K.RESOLUTION_REACH)
            said = tokens[max(clause, i - K.RESOLUTION_REACH):min(c_end, j + K.RESOLUTION_REACH)]
            trouble = {t.lemma for t in said if t.kind == "word"} | {_plain(t) for t in said if t.kind == "word"}
            r = bisect_left(ix.relapses, k + n)
            while r < len(ix.relapses) and ix.relapses[r] < tail_end:
                if _relapse(tokens, ix.relapses[r], trouble):
                    return False
                r += 1
            return True
    return False


def clause_status(tokens: list[Token], i: int, j: int | None = None, lo: int | None = None,
                  hedge: bool = True, negatable: bool = True) -> str:
    """What the clause holding tokens ``[i, j)`` does with them: stated, negated, asked, hedged or past.

    The one judgement every reading path asks (the composed readings, the cue list, the coarse fallback); the
    first of these that holds:

    * negated: a negator before it in its clause ("no NaN", "isn't overfitting"), a belief denied or a doubt
      before it in its sentence ("I don't think the loss explodes"), or the next sentence denies it ("I checked,
      they don't");
    * past: said after "used to", or followed by its resolution ("was NaN last week, fixed it by clipping");
    * asked: its sentence is a statement closed by "?" ("the weights differ between ranks?");
    * hedged: its clause holds a hedge ("maybe", "I think") (only when ``hedge``).

    Args:
        tokens: The text's tokens.
        i: The first token of what is said.
        j: One past its last token (``i + 1`` when None).
        lo: Where its clause starts, when the caller knows (else found by the clause break rule).
        hedge: Look for hedges.
        negatable: Whether a negation before it in its sentence denies it (False for words that hold their own
            negation, "no speed-up", "doesn't learn": only a denial in the next sentence does).
    """
    if not tokens or not 0 <= i < len(tokens):
        return STATED
    j = i + 1 if j is None else j
    lo = clause_start(tokens, i) if lo is None else lo
    s_lo, s_hi = _sentence_bounds(tokens, i)
    if (negatable and (negated_at(tokens, i, lo) or _belief_denied(tokens, s_lo, i))) or \
            (s_hi < len(tokens) and _denied_next(tokens, s_hi)):
        return NEGATED
    if _past(tokens, i, lo, s_hi, j):
        return PAST
    if _asked(tokens, s_lo, s_hi, i, j):
        return ASKED
    if hedge and _index(tokens).hedged(lo, _clause_end(tokens, i)):
        return HEDGED
    return STATED


def hedged_in(tokens: list[Token], lo: int, hi: int) -> bool:
    """Whether tokens ``[lo, hi)`` hold a hedge ("maybe", "I think", ``knowledge.talk.HEDGES``)."""
    return any(t.lemma in K.HEDGES for t in tokens[lo:hi])


def _clause_end(tokens: list[Token], i: int) -> int:
    """One past the last token of the clause holding token ``i``."""
    if i < len(tokens):
        return _index(tokens).clause_hi[i]
    k = i + 1
    while k < len(tokens) and not ((tokens[k].kind == "punct" and (tokens[k].text in _SENTENCE_END or
                                    tokens[k].text in _CLAUSE_PUNCT)) or
                                   (tokens[k].kind == "word" and tokens[k].lemma in _BREAK_WORDS)):
        k += 1
    return k


_STATUS_SENTENCE = rx.compile(r"\n|[.!?](?=\s|$)")
STATUS_REACH = 600
"""Characters around a position that :class:`ClauseStatus` reads: its sentence and the next one's opening (a
longer sentence is cut there, as the reader cuts a clause)."""
_STATUS_GRID = 256
"""Characters to which a window's cut ends are rounded outward (the matches of one long sentence share windows)."""
_STATUS_BLOCK = 4096
"""Characters of text per stretch that :class:`ClauseStatus` tokenises and indexes once (a window whose start is in
the block is read from it)."""
_STATUS_MARGIN = 2048
"""Characters a block's stretch reaches past its end, so that the windows starting in it fit (a window is at most
``2 * (STATUS_REACH + _STATUS_GRID)`` characters past the words asked about)."""
_STATUS_CUT = rx.compile(r"\s(?!%)")
"""A space no token holds (only a number's unit, "5 %", spans one): the tokens on either side of it are the same
whether the text is tokenised whole or from there."""


class _Stretch:
    """The tokens of ``text[lo:hi]`` (``lo`` and ``hi`` where no token is cut) and their :class:`_Index`."""

    __slots__ = ("lo", "hi", "tokens", "starts", "ends", "ix", "den_ends", "triggers")

    def __init__(self, text: str, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi
        # (a short text's one stretch is all of it: tokenised once for the reader of talk too)
        self.tokens = _whole_tokens(text) if lo == 0 and hi == len(text) else list(_tokens(text, lo, hi, False))
        self.starts = [t.start for t in self.tokens]
        self.ends = [t.end for t in self.tokens]
        self.ix = ix = _index(self.tokens)
        tokens, n = self.tokens, len(self.tokens)
        # where a denied belief stops, and the words that deny one, as _Index._denials finds them (only a word
        # that opens a denial ending, a doubt or a belief is looked at closer)
        plain, openers = ix.plain, _denial_openers()
        self.den_ends = [m for m in range(n) if (plain[m] in openers[0] or tokens[m].text in _SENTENCE_END or
                                                 tokens[m].text in _BIND_BREAKS or tokens[m].lemma in _CONTRASTS)
                         and _denial_ends(tokens, m)]
        self.triggers = [k for k in range(n) if plain[k] in openers[1] and _denial_trigger(tokens, k, ix.sent_lo[k], n)]


@lru_cache(maxsize=1)
def _denial_openers() -> tuple[frozenset[str], frozenset[str]]:
    """The first words of ``DENIAL_ENDS`` pairs, and the doubt and belief words (what may open a denial)."""
    return frozenset(a for a, _b in K.DENIAL_ENDS), frozenset(K.DOUBT_WORDS) | frozenset(K.BELIEF_WORDS)


def _denial_trigger(tokens: Any, k: int, lo: int, n: int) -> bool:
    """Whether token ``k`` opens a denied belief or a doubt (``lo``: its sentence's first token; ``n``: the end)."""
    word = _plain(tokens[k])
    if k + 1 < n and tokens[k + 1].lemma in K.WH_WORDS:
        return False
    return word in K.DOUBT_WORDS or (word in K.BELIEF_WORDS and any(
        tokens[m].lemma in K.NEGATORS or tokens[m].lemma == "not" for m in range(max(lo, k - 3), k)))


class _Window:
    """``tokens[a:b]`` of a :class:`_Stretch`, read as a token list of its own without copying or re-indexing.

    It answers what the status asks of a token list (its length, a token, a slice) and carries its :class:`_View`
    index: the stretch's index cut to ``[a, b)``, so a window costs each ask a few look-ups, not a tokenisation.
    """

    __slots__ = ("_tokens", "_a", "_n", "ix")

    def __init__(self, stretch: _Stretch, a: int, b: int) -> None:
        self._tokens, self._a, self._n = stretch.tokens, a, b - a
        self.ix = _View(stretch, self, a, b)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            lo, hi, step = k.indices(self._n)
            return self._tokens[self._a + lo:self._a + hi:step] if step > 0 else list(self)[k]
        if k < 0:
            k += self._n
        if not 0 <= k < self._n:
            raise IndexError(k)
        return self._tokens[self._a + k]

    def __iter__(self) -> Iterator[Token]:
        return iter(self._tokens[self._a:self._a + self._n])


class _Shifted:
    """The positions of ``values[lo:hi]`` less ``a`` (a stretch's sorted positions, as a window counts them)."""

    __slots__ = ("_values", "_lo", "_n", "_a")

    def __init__(self, values: list[int], lo: int, hi: int, a: int) -> None:
        self._values, self._lo, self._n, self._a = values, lo, max(0, hi - lo), a

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, q: int) -> int:
        if q < 0:
            q += self._n
        if not 0 <= q < self._n:
            raise IndexError(q)
        return self._values[self._lo + q] - self._a


class _Lookup:
    """A per-token table computed on ask (``f(k)``), for the :class:`_View` tables."""

    __slots__ = ("_f",)

    def __init__(self, f: Any) -> None:
        self._f = f

    def __getitem__(self, k: int) -> Any:
        return self._f(k)


class _View:
    """The :class:`_Index` of a :class:`_Window`, answered from its stretch's for a few look-ups per ask.

    The answers are those of an index built on the window's own token list (``tests/test_text_clause_status``
    checks it). A window's bounds cut sentences and clauses (clamped to them), and change what the rules that look
    at a token's neighbours see at its first and last tokens: those few are judged again here, on the window.
    """

    def __init__(self, stretch: _Stretch, window: _Window, a: int, b: int) -> None:
        self._s, self._w, self._a, self._b = stretch, window, a, b
        self.n = n = b - a
        ix = stretch.ix
        self.sent_lo = _Lookup(lambda k: max(0, ix.sent_lo[a + k] - a))
        self.sent_hi = _Lookup(lambda k: min(n, ix.sent_hi[a + k] - a))
        self.clause_hi = _Lookup(lambda k: min(n, ix.clause_hi[a + k] - a))
        self.clause_lo = _Lookup(self._clause_lo)
        self.denied = _Lookup(self._denied)
        self.resolutions = self._shift(ix.resolutions, b)
        self.relapses = self._shift(ix.relapses, b)
        self.habits = self._shift(ix.habits, b - 1)  # a pair's second word must be in the window too

    def _shift(self, values: list[int], hi: int) -> _Shifted:
        return _Shifted(values, bisect_left(values, self._a), bisect_left(values, hi), self._a)

    def _cut(self, p: int) -> bool:
        """Whether a clause starts at window token ``p`` (the rule of :class:`_Index`, on the window)."""
        t = self._w[p - 1]
        return (t.kind == "punct" and (t.text in _SENTENCE_END or t.text in _CLAUSE_PUNCT) and
                not _empty_call(self._w, p - 1)) or (t.kind == "word" and t.lemma in _BREAK_WORDS)

    def _clause_lo(self, k: int) -> int:
        g = self._s.ix.clause_lo[self._a + k] - self._a
        if g >= 3:
            return g  # (an empty call's brackets are judged by their neighbours: from the third token on, as whole)
        for p in (2, 1):
            if p <= k and self._cut(p):
                return p
        return 0

    def _denied(self, k: int) -> bool:
        # a token is denied when a trigger stands before it with no end of what it denies between
        a, g, s = self._a, self._a + k, self._s
        e = bisect_right(s.den_ends, g) - 1
        if e >= 0 and s.den_ends[e] == self._b - 1 and not _denial_ends(self._w, k):
            e -= 1  # (the window's last token: the word after it is not the window's)
        first = max(a, s.den_ends[e]) if e >= 0 else a
        t = bisect_left(s.triggers, max(first, a + 3))
        if t < len(s.triggers) and s.triggers[t] < g:
            return True
        # the first three words: their negations before the window are not the window's
        w = self._w
        return any(_denial_trigger(w, m - a, self.sent_lo[m - a], self.n) for m in range(first, min(a + 3, g)))

    def past_marks(self, lo: int, hi: int) -> bool:
        marks = self._s.ix._past_marks
        return marks[self._a + hi] > marks[self._a + lo]

    def presupposing(self, lo: int, hi: int) -> bool:
        marks = self._s.ix._presupposing
        return marks[self._a + hi] > marks[self._a + lo]

    def hedged(self, lo: int, hi: int) -> bool:
        marks = self._s.ix._hedges
        return marks[self._a + min(hi, self.n)] > marks[self._a + max(0, lo)]


class ClauseStatus:
    """:func:`clause_status` asked by character offsets.

    For the readers that match text rather than tokens (the cue list, the coarse fallback). The words asked about
    are judged in a window of text around them (their sentence, cut to ``STATUS_REACH`` characters either side).
    The text is tokenised and indexed once per stretch of ``_STATUS_BLOCK`` characters asked about, and each window
    is read from its stretch: the cost follows the text read, not the number of matches times their windows.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._stretches: dict[int, _Stretch] = {}
        self._marks: dict[int, list[int]] = {}  # the sentence marks of each block, found on first ask
        # (the readings of one composition share their words: a long text asks the same span several times)
        self._said: dict[tuple[int, int, bool, bool], str] = {}
        self._windows: dict[tuple[int, int], tuple[_Window, _Stretch, int, int]] = {}

    def _sentence_ends(self, lo: int, hi: int) -> list[int]:
        """Where the sentence marks in ``[lo, hi)`` stand, as ``_STATUS_SENTENCE`` finds them in the whole text."""
        out: list[int] = []
        for block in range(lo // _STATUS_BLOCK, (hi - 1) // _STATUS_BLOCK + 1):
            marks = self._marks.get(block)
            if marks is None:
                b_lo = block * _STATUS_BLOCK
                b_hi = min(len(self.text), b_lo + _STATUS_BLOCK)
                # (the text past the block is in view: a mark's look-ahead is the whole text's)
                marks = [m.start() for m in _STATUS_SENTENCE.finditer(self.text, b_lo, min(len(self.text), b_hi + 1))
                         if m.start() < b_hi]
                self._marks[block] = marks
            out.extend(marks[bisect_left(marks, lo):bisect_left(marks, hi)])
        return out

    def _window(self, start: int, end: int) -> tuple[int, int]:
        """The characters ``[lo, hi)`` read around ``[start, end)``: its sentence and the next one's opening."""
        text = self.text
        # the reach's ends snapped to a grid, so that the matches of one long sentence share their windows
        lo = max(0, (start - STATUS_REACH) // _STATUS_GRID * _STATUS_GRID)
        far = min(len(text), -(-(end + STATUS_REACH) // _STATUS_GRID) * _STATUS_GRID)
        # (a mark at either end of a search counts whatever follows it, as "$" matches there)
        if lo < start and text[start - 1] in ".!?":
            lo = start
        elif lo < start:
            before = self._sentence_ends(lo, start)
            lo = before[-1] + 1 if before else lo
        ends = self._sentence_ends(end, far - 1)[:2] if end < far else []
        if len(ends) < 2 and end < far and text[far - 1] in ".!?\n":
            ends.append(far - 1)
        return lo, ends[1] + 1 if len(ends) == 2 else far

    def _cut_before(self, x: int) -> int:
        """The last place at or before ``x`` where no token is cut (0 at worst)."""
        reach = _STATUS_GRID
        while x - reach > 0:
            last = -1
            for m in _STATUS_CUT.finditer(self.text, x - reach, x + 1):
                if m.end() <= x:
                    last = m.end()
            if last >= 0:
                return last
            reach *= 4
        return 0

    def _cut_after(self, x: int) -> int:
        """The first place at or after ``x`` where no token is cut (the text's end at worst)."""
        if x <= 0:
            return 0
        m = _STATUS_CUT.search(self.text, x - 1)
        return m.end() if m else len(self.text)

    def _stretch(self, lo: int, hi: int) -> _Stretch:
        """The stretch that holds the window ``[lo, hi)``: its block's, tokenised on first ask."""
        block = lo // _STATUS_BLOCK
        got = self._stretches.get(block)
        if got is None or not got.lo <= lo <= hi <= got.hi:
            base = block * _STATUS_BLOCK
            got = _Stretch(self.text, self._cut_before(min(lo, base)),
                           self._cut_after(max(hi, base + _STATUS_BLOCK + _STATUS_MARGIN)))
            self._stretches[block] = got
        return got

    def window(self, start: int, end: int) -> tuple[_Window, int, int]:
        """The tokens read around ``[start, end)``, and the first and one past the last of them in it."""
        lo, hi = self._window(start, end)
        got = self._windows.get((lo, hi))
        if got is None:
            # (the asks about one long sentence share their windows: each is cut from its stretch once)
            s = self._stretch(lo, hi)
            a, b = bisect_left(s.starts, lo), bisect_right(s.ends, hi)
            got = self._windows[(lo, hi)] = (_Window(s, a, b), s, a, b)
        window, s, a, b = got
        return window, bisect_left(s.starts, start, a, b) - a, bisect_left(s.starts, end, a, b) - a

    def of(self, start: int, end: int, hedge: bool = False, negatable: bool = True) -> str:
        """The status of the words at ``[start, end)`` of the text (``STATED`` when they hold no token)."""
        key = (start, end, hedge, negatable)
        said = self._said.get(key)
        if said is None:
            tokens, i, j = self.window(start, end)
            said = STATED if i >= len(tokens) or tokens[i].start >= end else \
                clause_status(tokens, i, j, hedge=hedge, negatable=negatable)
            self._said[key] = said
        return said


# ------------------------------------------------------------------------------------------------ reading


@lru_cache(maxsize=1)
def _concept_firsts() -> frozenset[str]:
    """The first word of each phrase ``knowledge.talk.CONCEPTS`` names by one word."""
    return frozenset(phrase.split(" ")[0] for phrase in K.CONCEPTS)


@lru_cache(maxsize=1)
def _frame_anchors() -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]], tuple[int, ...]]:
    """The frames (indexes into ``K.FRAMES``) by the words of their anchor group.

    Three tables: by a word said plainly, by a word said negated, and the frames whose anchor group names no word
    (they are tried in every sentence).
    """
    plain: dict[str, list[int]] = {}
    negated: dict[str, list[int]] = {}
    always: list[int] = []
    for f, (groups, _sets, _binds) in enumerate(K.FRAMES):
        words = [w for w in groups[0] if w[0] != "!"] if groups else []
        if not words:
            always.append(f)
        for w in words:
            (negated if w[0] == "~" else plain).setdefault(w[1:] if w[0] in "~=" else w, []).append(f)
    return ({w: tuple(fs) for w, fs in plain.items()}, {w: tuple(fs) for w, fs in negated.items()}, tuple(always))


@cache
def _frame_groups(f: int) -> tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...],
                                         tuple[str, ...], bool], ...]:
    """Frame ``f``'s groups (``K.FRAMES``), each parted once by its words' marks, for :meth:`_Reader.frames`.

    For each group: the words to be said negated ("~w"), said plainly ("=w"), said either way (bare), the words
    that rule the frame out when said plainly ("!=w") or at all ("!w"), and whether it names a word to be said.
    """
    out = []
    for g in K.FRAMES[f][0]:
        words = [w for w in g if w[0] != "!"]
        out.append((tuple(w[1:] for w in words if w[0] == "~"), tuple(w[1:] for w in words if w[0] == "="),
                    tuple(w for w in words if w[0] not in "~="),
                    tuple(w[2:] for w in g if w[0] == "!" and w[1:2] == "="),
                    tuple(w[1:] for w in g if w[0] == "!" and w[1:2] != "="), bool(words)))
    return tuple(out)


def _frames_said(plain: dict[str, int], negated: dict[str, int]) -> list[int]:
    """The frames whose anchor group a sentence says, in ``K.FRAMES`` order.

    A frame whose anchor is not said cannot fire (:meth:`_Reader.frames` stops at its first group), and a pasted
    log's line says the anchor of almost none.
    """
    by_plain, by_negated, always = _frame_anchors()
    found = set(always)
    for words, table in ((plain, by_plain), (negated, by_negated)):
        for w in words:
            fs = table.get(w)
            if fs is not None:
                found.update(fs)
    return sorted(found)


_SET_TO_NOTHING = rx.compile(r"[\w-]*\s*(?:[=:]|\bis\b|\bof\b|\bset\s+to\b)\s*['\"]?(?:0+(?:\.0+)?|none|false|off)"
                             r"['\"]?(?![\w.]*[1-9])(?![\w-])(?!\s*(?:->|→|=>|-\s*[\d.]|to\s+[\d.]|\.\.\s*[\d.]))",
                             re.IGNORECASE)
"""What follows a switch's name that sets it to nothing ("_steps=0", " = 0.0", ": none", " is 0"): the switch off.
Not a range's start ("warmup: 0 -> 3e-4 over 2k steps", "clipping of 0 to 1"): the switch set along a range is on."""


_FALLS = frozenset({"drop", "decrease", "fall", "fell", "decline", "learn", "improve", "converge", "descend"})
"""Verbs of a loss that falls or a model that learns: said after "hardly moves", the change came later."""

_FLAT_STATES = frozenset({"same", "stay", "flat", "flatline", "plateau", "stuck"})
"""Movements that say a curve holds its level (``_minor_noise_on_flat``)."""


class _Reader:
    """Reads one text (see the module docstring)."""

    def __init__(self, text: str, cues: tuple[tuple[int, int], ...] = ()) -> None:
        self.text = text
        self._cues = cues  # the spans the keyword layer read a cue in (``_on_topic``)
        long = len(text) > FUZZY_LIMIT
        self._spans = _ranges(text) if long else None
        # (a short text's tokens are those of its clause status, with slips corrected: one tokenisation of it)
        self.tokens = tokenise(text, fuzzy=False, ranges=self._spans) if long else _with_slips(_whole_tokens(text))
        self.parts = _elided(self.tokens, _parts(self.tokens))
        self.part_starts = [p.i for p in self.parts]
        self.by_token: dict[int, Part] = {}
        for p in self.parts:
            for k in range(p.i, p.j):
                self.by_token[k] = p
        self.u = Understanding()
        self._token_starts = [t.start for t in self.tokens]
        self.error_spans: list[tuple[int, int]] = []
        self._time_span: tuple[int, int] | None = None
        self._clause_times: dict[tuple[int, int], Any] = {}  # (see _clause_time)
        self._troubles: list[Any] = [None, 0, []]  # (see _troubled_clause)
        self._judged: dict[str, tuple[int, int]] = {}  # the sentence's figures judged good or bad, by split
        self._lowered_lr: tuple[int, int] | None = None  # where the text says the LR was lowered
        self._train_unstable = False  # whether the text reads the training loss non-finite or diverging
        self._topics: list[int] | None = None  # the tokens found to be words of training (``_on_topic``)
        self._topic_scan = 0  # the first token ``_on_topic`` has not looked at
        self._concepts: list[tuple[int, int]] = []  # sentences asking what a thing is (``_definition``)
        self._expected: list[tuple[int, int]] = []  # clauses that describe expected behaviour (schedule restarts)
        self._restart_schedule: bool | None = None  # whether the text names a restarting schedule (worked out once)
        self._restart_clauses: dict[tuple[int, int], bool] = {}  # (see _at_schedule_restart)
        self._clause_list: list[tuple[int, int, int]] | None = None  # (see _clause_spans)
        self._sentence_spans: list[tuple[int, int]] | None = None  # (see _sentences)

    # -- helpers ------------------------------------------------------------------------------------
    def add(self, sets: dict[str, Any], start: int, end: int, strong: bool = True, hedged: bool = False,
            evidence: bool = False, fallback: bool = False, named: bool = False) -> None:
        for name, value in sets.items():
            self.u.readings.append(Reading(name, value, start, end, strong, hedged, evidence, fallback, named))

    def claim(self, start: int, end: int, names: Any) -> None:
        self.u.claims.append((start, end, frozenset(names)))
        self.u._index = None  # (a lookup made before this claim must not hide it from later ones)

    def _manner(self, move: Part, slow: Part) -> bool:
        """Whether ``slow``, said after ``move`` with only fillers between, says how it moves ("learns, just slowly").

        The fillers (``knowledge.talk.MANNER_FILLERS``) may cross a clause break: "it learns, but slowly".
        """
        return move.j <= slow.i and all(t.lemma in K.MANNER_FILLERS or t.text in K.MANNER_FILLERS
                                        for t in self.tokens[move.j:slow.i])

    def lemmas(self, i: int, j: int) -> list[str]:
        return [t.lemma for t in self.tokens[max(0, i):j]]

    # -- scope: whether words are said of a training run ------------------------------------------------
    def _topic_at(self, k: int) -> bool:
        """Whether token ``k`` is a word of training (``COARSE_TOPIC``, ``SCOPE_WORDS``; "my nan" is none)."""
        t = self.tokens[k]
        if t.kind != "word":
            return False
        if t.lemma in ("nan", "nans") and k and self.tokens[k - 1].lemma in K.NOUN_MARKERS - {"a", "an", "the"}:
            return False  # "my nan", "his nan": a grandmother
        exact, prefixes = _scope_stems()
        return any(w in exact or w.startswith(prefixes) for w in (t.text, t.lemma)) or self._family_at(k) is not None

    def _family_at(self, k: int) -> str | None:
        """The model family token ``k`` names ("resnet50", "t5", "roberta"), as ``_model_families`` reads it."""
        toks = self.tokens
        t = toks[k]
        word = t.text.lower()
        m = None if word in K.MODEL_FAMILIES else _FAMILY.fullmatch(word)
        stem, size = (word, "") if m is None else (m.group("stem"), m.group("size"))
        if stem not in K.MODEL_FAMILIES:
            return None
        joined = k + 1 < len(toks) and toks[k + 1].start == t.end + 1 and \
            self.text[t.end] in "-_" and toks[k + 1].text[:1].isdigit()
        if stem in K.LOOSE_STEMS and not (size and size[0].isdigit()) and not joined:
            return None
        if size == "s" and stem in K.LOOSE_STEMS:
            return None
        return K.MODEL_FAMILIES[stem]

    def _on_topic(self, besides: tuple[int, int] = (0, 0)) -> bool:
        """Whether the text names a training thing anywhere (outside tokens ``besides``).

        The tokens are looked at in order until one is found outside ``besides`` (the first ones found are kept):
        a pasted log names one early, and a text that names none is short.
        """
        if self._cues:
            # a cue the keyword layer read ("qwen", "quantization", "detectron2") names the run's setting or task:
            # the text speaks of training, though no word of ``SCOPE_WORDS`` says so
            if besides == (0, 0) or besides[0] >= besides[1]:
                return True
            lo, hi = self.tokens[besides[0]].start, self.tokens[besides[1] - 1].end
            if any(e <= lo or s >= hi for s, e in self._cues):
                return True
        if self._topics is None:
            self._topics, self._topic_scan = [], 0
        for k in self._topics:
            if not besides[0] <= k < besides[1]:
                return True
        while self._topic_scan < len(self.tokens):
            k = self._topic_scan
            self._topic_scan += 1
            if self._topic_at(k):
                self._topics.append(k)
                if not besides[0] <= k < besides[1]:
                    return True
        return False

    def _other_subject(self, k: int, lo: int, persons: frozenset[str] = frozenset()) -> bool:
        """Whether the movement at token ``k`` is said of another thing than the run, or is itself a noun.

        "the bus was stuck", "my mood is flat", "I feel stuck": something named before it in its clause that is no
        training quantity; "my nan": a noun.

        The nearest word before it that is no filler (``SUBJECT_FILLERS``: articles, auxiliaries, adverbs,
        prepositions, hedges, negators; or an adverb in -ly, a number) is its subject: a word of the lexicon (a
        quantity, a setting, a split) or a pronoun of the run (``RUN_PRONOUNS``) is the run's ("with bs 512 it
        blows up", "it failed to learn"); no subject at all is the run's too ("keeps crashing"), and so is a person
        who observes it (``OBSERVING_VERBS``: "I see spikes"); any other word (a person, "the bus") is something
        else's, but one of ``persons`` (given for a crash named in words, a noun by itself: "we got a crash").
        """
        if not persons and k > lo and self.tokens[k - 1].lemma in K.NOUN_MARKERS:
            return True  # (a crash named in words is a noun by itself: "we got a crash")
        observed = False  # an observing verb passed: a person before it watches the run ("I see spikes")
        for n in range(k - 1, lo - 1, -1):
            t = self.tokens[n]
            if self.by_token.get(n, _NO_PART).j > k:
                continue  # (the phrase of the words themselves: "ran" of "ran out of memory")
            if t.kind != "word" or self.by_token.get(n, _NO_PART).roles or t.lemma in K.RUN_PRONOUNS or \
                    t.lemma in persons or (observed and t.lemma in K.CRASH_RECEIVERS):
                if t.kind == "word":
                    return False  # (a word of the lexicon, or "it": the run's)
                continue
            if t.lemma in K.OBSERVING_VERBS or t.text in K.OBSERVING_VERBS:
                observed = True
                continue
            if t.lemma in K.SUBJECT_FILLERS or t.text in K.SUBJECT_FILLERS or (t.text.endswith("ly") and
                                                                                 len(t.text) > 4):
                continue
            # a slip of a training quantity ("the los is stuck", "modle is stuck", "accuarcy stuck"), or a step of
            # the program ("fit hangs", "compile hangs"): the run's
            # ("the oil pipeline exploded": a step named with another thing before it is that thing's)
            return not (_near_topic_word(t.text) or t.text in K.SUBJECT_SCOPE_WORDS and (
                n == lo or self.tokens[n - 1].kind != "word" or self.tokens[n - 1].lemma in K.SUBJECT_FILLERS))
        return False

    def _off_scope(self, k: int, lo: int, persons: frozenset[str] = frozenset()) -> bool:
        """Whether a movement or a crash at token ``k``, said of no training quantity, is everyday English.

        The text names nothing of training and the words are said of something else ("the stock market crashed").
        A crash or a hang in a text that names the program of a run (``RUN_MACHINERY``: "the renderer hangs when
        the job starts") is the run's all the same: only a program crashes or hangs that way.
        """
        if self._on_topic() or not self._other_subject(k, lo, persons):
            return False
        word = self.tokens[k]
        if _HUNG.fullmatch(word.text.lower()) or _CRASHED.fullmatch(word.text.lower()):
            # ("lost my job", "a new job": the work a person has, no program)
            return not any(t.lemma in K.RUN_MACHINERY and not any(
                u.lemma in K.EMPLOYMENT_WORDS for u in self.tokens[max(0, n - 2):n])
                for n, t in enumerate(self.tokens) if t.kind == "word")
        return True

    def _names_frozen(self, sent: tuple[int, int], p: Part) -> bool:
        """Whether sentence ``sent`` names a thing frozen on purpose, or "freezing" at ``p`` takes an object."""
        if p.j < sent[1] and self.tokens[p.j].lemma in K.FREEZE_OBJECT_LEADS:
            return True  # "before freezing the encoder"
        return any(w in K.FROZEN_PARTS or w in K.FREEZABLE_WORDS
                   for t in self.tokens[sent[0]:sent[1]] for w in (t.lemma, t.text.lower()))

    def _named_divergence(self, p: Part, lo: int, hi: int, movements: list[Part]) -> bool:
        """Whether the "divergence" of part ``p`` names a measure whose clause says something else of it.

        The noun with a measure's name before it (``DIVERGENCE_NAMES``: "KL divergence", "KL-divergence") is a
        measure, often a loss term of the run; when its clause (tokens ``lo``..``hi``) holds another movement ("the
        KL divergence goes to nan", "... is negative", "... keeps growing"), a value or a word of its use
        (``MEASURE_USE_WORDS``: "we train with KL divergence as the objective"), that is what the text says of it,
        and the name is no run diverging. Said bare ("KL divergence problems in PPO"), it is still read as one.
        """
        if self.tokens[p.i].text.lower() not in ("divergence", "divergences"):
            return False
        k = p.i - 1
        while k >= lo and self.tokens[k].text in ("-", "_"):
            k -= 1
        if k < lo or self.tokens[k].text.lower() not in K.DIVERGENCE_NAMES:
            return False
        others = [o.roles["m"] for o in movements if o is not p and o.i >= lo and o.j <= hi]
        if others:
            # (a KL that grows in a run tuned against a reference policy is that policy drifting: the run's
            # instability, read as the divergence it is said with)
            return not (set(others) & (_RISES | {"diverge", "huge", "explode"}) and self._policy_run())
        rest = self.tokens[lo:hi]
        return any(t.kind == "num" for t in rest) or any(t.lemma in K.MEASURE_USE_WORDS for t in rest)

    def _policy_run(self) -> bool:
        """Whether the text speaks of a run tuned against a reference policy (``POLICY_WORDS``: PPO, DPO, RLHF)."""
        return any(t.lemma in K.POLICY_WORDS or t.text.lower() in K.POLICY_WORDS for t in self.tokens[:MAX_SENTENCE])

    def _others_run(self, lo: int, k: int) -> bool:
        """Whether what moves at token ``k`` is said of another person's run (``OTHER_PEOPLE``).

        Another person is named before it in its clause, within ``OWNER_REACH`` words, and no word of the user's own
        after that person ("my colleague's run goes nan"; not "my colleague says my loss goes nan").
        """
        for n in range(k - 1, max(lo, k - K.OWNER_REACH) - 1, -1):
            t = self.tokens[n]
            if t.lemma in K.PERSONAL_WORDS or t.text.lower() in K.PERSONAL_WORDS:
                return False
            if t.lemma in K.OTHER_PEOPLE or t.text.lower() in K.OTHER_PEOPLE | K.OTHER_POSSESSIVES or \
                    self._other_work(lo, n, k) or \
                    (t.text.lower() == "their" and (self._mine_after(k) or self._own_before(lo))):
                # "my coworker's model overfits, mine too", "someone had nan loss, and I have it too": the user
                # shares it, so it moves in the user's run as well
                return _SHARED_TOO.search(self.text, self.tokens[k].end,
                                          self.tokens[k].end + K.SHARED_TOO_REACH) is None
        return False

    def _mine_after(self, k: int) -> bool:
        """Whether the sentence of token ``k`` sets "mine" against it after it ("their loss drops but mine doesn't").

        "their" points back at the user's own things as often (``OTHER_PEOPLE``); set against "mine", it is another's.
        """
        hi = _sentence_bounds(self.tokens, k)[1]
        return any(t.text.lower() in _OWN_PRONOUNS for t in self.tokens[k + 1:hi])

    def _own_before(self, lo: int) -> bool:
        """Whether the sentence of the clause at ``lo`` says the user's own before that clause.

        "my loss goes down, but their loss is flat", "mine drops but their loss is flat": "their" set against the
        user's own is another's (as with "mine" after it, ``_mine_after``).
        """
        s_lo = _sentence_bounds(self.tokens, lo)[0]
        own = [n for n in range(s_lo, lo) if self.tokens[n].text.lower() in _OWN_PRONOUNS | {"my", "our"}]
        # (set against it by a contrast: "my modules don't learn; their weights never change" is the user's own)
        return bool(own) and any(t.text.lower() in _CONTRAST_WORDS for t in self.tokens[own[0]:lo + 1])

    def _other_work(self, lo: int, n: int, k: int) -> bool:
        """Whether token ``n`` names a work or a reference run as the place or source of what moves at ``k``.

        "in the paper", "according to the authors", "the authors say", "in the reference run", "the tutorial's loss":
        the figure is theirs. A work named otherwise ("following the paper, the val loss ...", "the reference model") is
        the user's own recipe or part.
        """
        t = self.tokens[n]
        word = t.text.lower()
        if word in K.REFERENCE_RUN_NOUNS and n > lo and self.tokens[n - 1].text.lower() in K.REFERENCE_RUNS:
            return True  # "in the reference run", "the baseline run's val loss": another run of the user's or theirs
        if word not in K.OTHER_WORKS and t.lemma not in K.OTHER_WORKS:
            return False
        if n + 1 < k and self.tokens[n + 1].lemma in K.WORK_VERBS:
            return True
        if self.text[t.end:t.end + 2] in ("'s", "\u2019s"):
            return True  # "the tutorial's loss drops", "the paper's lr": the work owns the figure
        m = n - 1
        while m >= lo and self.tokens[m].lemma in _WORK_FILLERS:
            m -= 1
        return m >= lo and self.tokens[m].lemma in K.WORK_LEADS

    def _person_subject(self, k: int, lo: int) -> bool:
        """Whether the nearest word before token ``k`` that is no filler is a person (``AGENTS``: "she", "I")."""
        for n in range(k - 1, lo - 1, -1):
            t = self.tokens[n]
            if t.kind != "word":
                return False
            if t.lemma in K.AGENTS or t.text.lower() in K.AGENTS:
                return True
            if not (t.lemma in K.SUBJECT_FILLERS or t.text.lower() in K.SUBJECT_FILLERS):
                return False
        return False

    def _imperative(self, p: Part, sent_lo: int) -> bool:
        """Whether a movement verb opens its sentence as an everyday imperative ("hang on", "hang in there")."""
        word = self.tokens[p.i]
        particles = K.IMPERATIVE_IDIOMS.get(word.text)
        if particles is None or p.j >= len(self.tokens) or self.tokens[p.j].lemma not in particles:
            return False
        after = p.j + 1
        if after + 1 < len(self.tokens) and self.tokens[after].lemma in ("the", "a", "an"):
            after += 1  # ("hang on the all-reduce": what follows the article)
        if after < len(self.tokens) and (self.tokens[after].kind == "num" or self._topic_at(after) or
                                         self.tokens[after].lemma in K.IDIOM_RUN_OBJECTS):
            return False  # "hang on first batch", "hang on step 0": where the run hangs, no "hang on, ..."
        return all(t.lemma in K.IMPERATIVE_OPENERS or t.kind == "punct" for t in self.tokens[sent_lo:p.i])

    def parts_in(self, i: int, j: int) -> list[Part]:
        k = bisect_left(self.part_starts, i)
        out = []
        while k < len(self.parts) and self.parts[k].i < j:
            if self.parts[k].j <= j:
                out.append(self.parts[k])
            k += 1
        return out

    # -- the pieces of one clause ---------------------------------------------------------------------
    def _weighted(self, p: Part) -> bool:
        """Whether a quantity is named only as what a setting weighs (``knowledge.talk.TERM_WEIGHTS``).

        "loss weight", "the weight of my auxiliary loss", "lambda for the KL loss": the head is the weight, and a
        number or a change said of the phrase is the weight's.
        """
        # the token's own text, nouns only: a lemma would make "loss weighted by class frequency" the weight's
        if p.j < len(self.tokens) and self.tokens[p.j].text in _WEIGHT_NOUNS:
            return True
        k = p.i - 1
        while k >= max(0, p.i - 4) and self.tokens[k].kind == "word" and \
                self.tokens[k].lemma not in ("of", "for", "on") and p.i - k <= 3:
            k -= 1
        return k >= 1 and self.tokens[k].lemma in ("of", "for", "on") and self.tokens[k - 1].text in _WEIGHT_NOUNS

    def _loss_operation(self, p: Part) -> bool:
        """Whether the loss named by part ``p`` is an operation run on it, not its value.

        Its backward call ("loss.backward()", ``LOSS_OPERATION_CALLS``), a noun of computing it right after ("the
        loss calculation", ``LOSS_OPERATION_NOUNS``), or a verb of computing it right before ("computing the loss",
        "calculating my loss", ``LOSS_OPERATION_VERBS``).
        """
        toks = self.tokens
        if p.j + 1 < len(toks) and toks[p.j].text == "." and toks[p.j].end == toks[p.j + 1].start == p.end + 1 and \
                toks[p.j + 1].text.lower() in K.LOSS_OPERATION_CALLS:
            return True
        if p.j < len(toks) and toks[p.j].lemma in K.LOSS_OPERATION_NOUNS:
            return True
        k = p.i - 1
        while k >= 0 and toks[k].lemma in ("the", "my", "our", "this", "a"):
            k -= 1
        return k >= 0 and toks[k].text.lower() in K.LOSS_OPERATION_VERBS

    def _quantities(self, parts: list[Part]) -> list[tuple[Part, str, str | None]]:
        """(part, quantity, split) of each quantity mention; a split word before a quantity qualifies it."""
        out: list[tuple[Part, str, str | None]] = []
        k = 0
        while k < len(parts):
            p = parts[k]
            nxt = parts[k + 1] if k + 1 < len(parts) else None
            if "s" in p.roles and nxt is not None and "q" in nxt.roles and nxt.i - p.j <= 1 \
                    and nxt.roles["q"] not in ("run", "pronoun", "model"):
                # "training and validation loss": both curves, neither split alone
                prev = self.by_token.get(p.i - 2) if p.i >= 2 else None
                both = prev is not None and "s" in prev.roles and prev.roles["s"] != p.roles["s"] and \
                    self.tokens[p.i - 1].lemma in ("and", "&", "/", "or")
                out.append((Part(p.i, nxt.j, nxt.roles, p.start, nxt.end), nxt.roles["q"],
                            None if both else p.roles["s"]))
                k += 2
                continue
            if "q" in p.roles and self._weighted(p):
                k += 1  # "the weight of my aux loss", "loss coefficient": a setting of the loss, not the loss
                continue
            if "q" in p.roles and p.roles["q"] == "loss" and self._loss_operation(p):
                # "loss.backward() is extremely slow", "computing the loss takes forever": the work done on the loss
                # is a part of the step, its time the step's; the curve is not said
                out.append((p, "step_time", None))
                k += 1
                continue
            if "q" in p.roles and ("m" not in p.roles or p.roles["m"] == "change_verb"):
                # a phrase of several words that names its split too ("the validation error"); a lone word that is
                # both ("training": the run, or the split) is the run here
                split = p.roles.get("s") if p.j - p.i > 1 else None
                # "accuracy on train", "loss on the validation set"
                if nxt is not None and "s" in nxt.roles and nxt.i - p.j <= 2 and \
                        set(self.lemmas(p.j, nxt.i)) <= {"on", "the", "for", "of"} and nxt.i > p.j:
                    split = nxt.roles["s"]
                elif split is None:
                    split = self._trailing_split(parts, k)
                out.append((p, p.roles["q"], split))
            elif "s" in p.roles and "q" not in p.roles and (p.roles["s"] == "val" or (
                    p.j < len(self.tokens) and self.tokens[p.j].kind == "num")):
                # ("train 98": the split said with its figure; a bare "train" is most often the verb)
                out.append((p, "split_only", p.roles["s"]))
            k += 1
        return self._coordinated(out)

    def _trailing_split(self, parts: list[Part], k: int) -> str | None:
        """The split named after the movement of the quantity ``parts[k]`` ("the loss goes up on the validation set").

        Said after its verb, the split still says whose curve moved: "perplexity keeps going up on val" is the
        validation curve rising, not the training loss diverging. Only "on"/"for" (and a determiner) may stand
        before the split ("during validation" and "in eval" place a moment of the run instead), the quantity's own
        clause holds the movement and the split, and no other quantity stands between them.
        """
        p, moved = parts[k], False
        for n in parts[k + 1:]:
            if n.i - p.j > 8 or any(_breaks(t) for t in self.tokens[p.j:n.i]):
                return None
            if "q" in n.roles and "s" not in n.roles:
                return None
            if "m" in n.roles:
                moved = True
                continue
            if "s" in n.roles and moved:
                if {"than", "as"} & set(self.lemmas(p.j, min(len(self.tokens), n.j + 4))) or \
                        _COMPARATIVES & set(self.lemmas(p.j, n.i)):
                    return None  # "accuracy is higher on the test set than on train": a comparison, read apart
                lead = self.lemmas(max(p.j, n.i - 2), n.i)
                if lead and lead[0] in ("on", "for") and set(lead) <= {"on", "for", "the", "my", "our"} or \
                        lead[-1:] in (["on"], ["for"]):
                    return n.roles["s"] if "q" not in n.roles else None
                return None
        return None

    def _coordinated(self, out: list[tuple[Part, str, str | None]]) -> list[tuple[Part, str, str | None]]:
        """Read "the training loss and the validation loss" as both curves: neither split alone.

        A movement said of two coordinated curves of different splits is both curves' ("train loss and val loss
        rise together" is the training curve rising too, not a validation curve rising alone); the movement takes
        the nearest quantity, so both are read as the unsplit quantity, as "train and val loss" already is.
        """
        for n in range(len(out) - 1):
            (a, qa, sa), (b, qb, sb) = out[n], out[n + 1]
            if qa != qb or sa is None or sb is None or sa == sb or b.i < a.j:
                continue
            between = self.lemmas(a.j, b.i)
            if between and set(between) <= _COORDINATION and set(between) & {"and", "&", "/"}:
                out[n], out[n + 1] = (a, qa, None), (b, qb, None)
        return out

    def _eval_phase(self, p: Part) -> bool:
        """Whether a split word names the evaluation pass as a time: "during/in/at validation", "at eval time"."""
        if p.roles.get("s") != "val" or "q" in p.roles:
            return False
        lead = self.lemmas(p.i - 1, p.i)
        return lead in (["during"], ["while"]) or (lead in (["at"], ["in"]) and p.j < len(self.tokens) and
                                                   self.tokens[p.j].lemma in ("time", "phase", "mode"))

    def _as_time(self, p: Part) -> bool:
        """Whether a step or batch phrase is said as a time ("after each step"), not as the thing spoken of.

        A count may stand between the preposition and the noun: "after a few hundred steps", "within the first
        2k iterations", "for about 300 batches" (``TIME_COUNTS``).
        """
        if not p.roles.get("q", "").startswith("step_time"):
            return False
        k = p.i - 1
        while k >= max(0, p.i - 5) and (self.tokens[k].kind == "num" or self.tokens[k].lemma in K.TIME_COUNTS):
            k -= 1
        return k >= 0 and self.tokens[k].lemma in K.TIME_PREPOSITIONS

    def _step_number(self, p: Part) -> bool:
        """Whether part ``p`` is a step word alone followed by its number ("step 5000", "iteration 12k"): a moment."""
        toks = self.tokens
        return p.j - p.i == 1 and toks[p.i].lemma in _STEP_WORDS and p.j < len(toks) and toks[p.j].kind == "num"

    def _negated(self, i: int, lo: int) -> bool:
        """A negator before token ``i`` in its clause, not before ``lo`` (:func:`negated_at`)."""
        return negated_at(self.tokens, i, lo)

    def _time(self, i: int, j: int, sent_lo: int, sent_hi: int, at: int) -> tuple[str | None, int | None]:
        """The time of a movement at token ``at`` in clause ``[i, j)``, and a step number when one is said.

        The words that said it (in the clause) are left in ``self._time_span``.
        """
        said = self._clause_times.get((i, j))
        if said is None:
            said = self._clause_times[(i, j)] = self._clause_time(i, j)
        times, step, found, self._time_span = said
        return self._movement_time(times, step, found, sent_lo, sent_hi, at)

    def _appended_time(self, j: int, sent: tuple[int, int], at: int, step: int | None) -> tuple[str | None,
                                                                                                int | None]:
        """The time a clause's movement gets from a time put after it, set off by "(" or ",".

        "the NaN loss shows up early (around epoch 8)", "it goes nan, at step 5000": the aside says when, and holds
        no quantity or movement of its own (else it is a clause of its own, with its own time).
        """
        toks = self.tokens
        if j + 1 >= sent[1] or toks[j].text not in ("(", ","):
            return None, step
        hi = _clause_end(toks, j + 1)
        # (a step said as a time, "at step 5000" or a step number alone, "(step 5000)", is the aside's time, no
        # quantity of its own)
        if hi <= j + 1 or any(("q" in p.roles and not self._as_time(p) and not self._step_number(p)) or
                              "m" in p.roles for p in self.parts_in(j + 1, hi)):
            return None, step
        return self._time(j + 1, hi, sent[0], sent[1], at)

    def _clause_time(self, i: int, j: int) -> tuple[list[tuple[str, Part]], int | None, str | None,
                                                     tuple[int, int] | None]:
        """What clause ``[i, j)`` says of time whatever moves in it.

        Its time phrases, the step, the time its step and epoch counts say, and their words: worked out once per
        clause (a long clause holds many movements).
        """
        times = [(p.roles["t"], p) for p in self.parts_in(i, j) if "t" in p.roles and not self._after_change(p)]
        step = None
        found: str | None = None
        self._time_span = None
        for k in range(i, j):
            t = self.tokens[k]
            if t.kind != "word" or t.lemma not in _STEP_OR_EPOCH_WORDS:
                continue
            nums = [u for u in self.tokens[k + 1:min(j, k + 3)] if u.kind == "num"]
            before = [u for u in self.tokens[max(i, k - 2):k] if u.kind == "num"]
            lead = set(self.lemmas(k - 3, k))
            lead_at = next((n for n in range(max(i, k - 4), k) if self.tokens[n].lemma in
                            ("after", "at", "around", "from", "by", "since")), k)
            if nums and t.lemma in _STEP_WORDS and t.lemma not in ("it", "batch"):
                value = _count(nums[0])
                if value is not None:
                    step = int(value) if step is None else step
                    found = "start" if value == 0 else "later"
                    self._time_span = (self.tokens[lead_at].start, nums[0].end)
            elif nums and t.lemma in _EPOCH_WORDS:
                value = nums[0].number
                if value is not None:
                    found = "start" if value == 0 or (value == 1 and lead & {"from", "since"}) else (found or "later")
                    self._time_span = (self.tokens[lead_at].start, nums[0].end)
            elif t.lemma in _LENGTH_WORDS and k - 1 >= i and self.tokens[k - 1].text.lower() in K.MORE_WORDS and \
                    found is None and not self._length_of_other(k, j):
                # "when I train for more epochs, ...", "with additional iterations it drops": what moves in the
                # clause moves once the run goes on past its usual length (a later time of the run's own length)
                found = "run_longer"
                self._time_span = (self.tokens[k - 1].start, t.end)
            elif k - 2 >= i and self.tokens[k - 1].kind == "num" and self.tokens[k - 2].lemma in ("every", "each"):
                # "every 500 steps", "each 2 epochs": a movement that comes back on a fixed interval
                found = "periodic"
                self._time_span = (self.tokens[k - 2].start, t.end)
            elif before and "after" in lead | set(self.lemmas(k - 4, k)):
                found = "later"
                self._time_span = (self.tokens[lead_at].start, t.end)
            elif lead & {"after", "a", "few", "some", "several", "first", "initial"} and \
                    "after" in self.lemmas(k - 4, k):
                # ("after the first logged steps", "after the initial few steps": the run had begun)
                found = "later"
                self._time_span = (self.tokens[lead_at].start, t.end)
        if step is None and i < j and self.tokens[i].lemma == "then":
            # "everything fine until step 8000, then nan everywhere": what happens then happens at the step the
            # clause before ran up to
            for k in range(i - 1, max(0, i - _UNTIL_REACH) - 1, -1):
                t = self.tokens[k]
                if t.kind == "num" and t.number is not None and k >= 2 and \
                        self.tokens[k - 1].lemma in _STEP_WORDS and self.tokens[k - 2].lemma in K.UNTIL_WORDS:
                    step, found = int(_count(t) or 0), "later"
                    self._time_span = (self.tokens[k - 2].start, t.end)
                    break
        return times, step, found, self._time_span

    def _movement_time(self, times: list[tuple[str, Part]], step: int | None, found: str | None, sent_lo: int,
                       sent_hi: int, at: int) -> tuple[str | None, int | None]:
        """:meth:`_time` for the movement at token ``at``, from what its clause says of time."""
        # a recurring time named by its event beats a bare "every time" ("every time an epoch begins")
        recurring = sorted((t for t in times if t[0] in _RECURRING), key=lambda t: _RECURRING.index(t[0]))
        inside = [p for v, p in times if v == "within_epoch"]
        if recurring and inside and min(abs(p.i - at) for p in inside) < abs(recurring[0][1].i - at):
            # "within an epoch the loss goes down, but at the start of the next epoch it jumps": the nearer time
            # phrase is this movement's; the boundary belongs to the other movement of the clause
            return None, step
        if recurring and recurring[0][0] == "always" and found in ("later", "run_longer"):
            return found, step  # "after 10 steps it reads 0 every time": every value from that onset on
        if recurring:
            value, p = recurring[0]
            self._time_span = (p.start, p.end)
            return value, step
        for value, p in times:
            if value == "start_bare" and found is None:
                found = "start"
                self._time_span = (p.start, p.end)
            elif value in ("later", "after", "then") and found is None:
                found = "later"
                self._time_span = (p.start, p.end) if value != "then" else None
            elif value == "epoch_end" and found is None:
                # "freezes at the end of the epoch": the boundary, said by its close (``_hang_onset`` reads it)
                found = "epoch_end"
                self._time_span = (p.start, p.end)
        if found is None and any(v == "within_epoch" for v, _ in times):
            # the clause puts its movement inside an epoch ("within an epoch the loss goes down, but at the next
            # epoch's start it jumps"): the boundary said in the other clause is not this movement's time
            return None, step
        if found is None:
            # a time said elsewhere in the sentence ("at first ... then", "after 3 epochs, ...")
            for p in self.parts_in(sent_lo, sent_hi):
                v = p.roles.get("t")
                if v in ("start", "epoch_start", "each_epoch"):
                    return v, step
                if v == "start_soft" and self.lemmas(p.i - 1, p.i) in (["since"], ["from"]):
                    return "start", step  # "NaN, since epoch 1": from the first epoch on
                if v in ("later", "after", "then") and p.i < at and not self._after_change(p):
                    found = "later"
        return found, step

    def _calm_before_nan(self, q: Part, p: Part, sent: tuple[int, int]) -> bool:
        """Whether the gradients named by ``q`` are said calm before a NaN (``knowledge.talk.CALM_LEVELS``).

        "grad norms were normal right up to the nan", "small grad norm then NaN": the movement part ``p`` is the
        NaN said after a calm word, or a small level said before one; either way the gradients were calm, and the
        NaN is a later event of the run, not a value of theirs nor a vanishing.
        """
        lem = self.lemmas(sent[0], sent[1])
        nan_at = next((k for k in range(max(p.i, q.j) - sent[0], len(lem)) if lem[k] in K.NAN_WORDS), None)
        if nan_at is None:
            return False
        if self.tokens[p.i].lemma in K.NAN_WORDS:
            return bool(set(self.lemmas(max(sent[0], q.i - 2), p.i)) & K.CALM_LEVELS)
        # (a level reached is a trend, not a calm one: "the grad norm becomes very small, then nan" vanishes)
        return set(self.lemmas(p.i, p.j)) <= K.CALM_LEVELS | K.DEGREE_WORDS and sent[0] + nan_at >= p.j and \
            not set(self.lemmas(min(q.j, p.i), p.i)) & K.REACH_VERBS

    def _loss_term(self, p: Part, sent: tuple[int, int] | None = None) -> bool:
        """Whether the loss named by part ``p`` is one term among several ("the auxiliary loss", "one of my losses").

        "the other loss" is a term only when said of a loss of its own (no run or model between: "the other run's
        loss" is a second run's whole curve) beside another loss or the words of a combined objective in the
        sentence ``sent`` ("the cls loss drops but the other loss plateaus").
        """
        window = self.tokens[max(0, p.i - 4):p.j]
        words = {t.lemma for t in window} | {t.text.lower() for t in window}
        if words & K.LOSS_TERM_WORDS or ({"one", "of"} <= words and "losses" in words):
            return True
        other = [k for k in range(max(0, p.i - 4), p.i) if self.tokens[k].lemma in K.OTHER_LOSS_WORDS]
        if not other or any(t.lemma in K.LOSS_OWNER_NOUNS or t.text.lower() in K.LOSS_OWNER_NOUNS
                            for t in self.tokens[other[-1] + 1:p.i]):
            return False
        lo, hi = sent if sent is not None else (p.i, p.j)
        beside = any(q.roles.get("q") == "loss" and (q.j <= other[-1] or q.i >= p.j) for q in self.parts_in(lo, hi))
        return beside or bool(set(self.lemmas(lo, hi)) & K.COMBINED_LOSS_WORDS)

    def _after_change(self, p: Part) -> bool:
        """Whether a bare "after" is the time of a change the user made, not a time in the run.

        "after switching to bf16", "after I changed the lr", "after adding a layer": what follows happened after the
        change, not after steps of training ("after training for 2 hours" and "after a few epochs" are the run's).
        """
        if p.roles.get("t") != "after" or p.j >= len(self.tokens):
            return False
        nxt = self.tokens[p.j]
        if nxt.lemma in K.AGENTS or nxt.text.lower() in K.AGENTS:
            verb = self.tokens[p.j + 1] if p.j + 1 < len(self.tokens) else None
            return verb is not None and verb.kind == "word" and verb.lemma not in K.RUN_VERBS and \
                verb.text.lower() not in K.RUN_VERBS
        text = nxt.text.lower()
        return nxt.kind == "word" and text.endswith("ing") and len(text) > 5 and text not in K.RUN_VERBS

    def _sanity_fit(self, k: int, hi: int) -> bool:
        """Whether "overfit" before token ``k`` takes a tiny piece of data as its object ("overfit a single batch").

        Fitting one batch or a handful of examples on purpose is the check that the model and loop can learn at
        all (``SANITY_FIT_SIZES``, ``SANITY_FIT_UNITS``); it is no overfitting of the run.
        """
        after = [t.lemma for t in self.tokens[k:min(hi, k + 4)]]
        if after[:1] in (["on"], ["to"]):
            after = after[1:]
        if after[:1] in (["a"], ["the"]):
            after = after[1:]
        while after and after[0] in K.SANITY_FIT_SIZES:
            after = after[1:]
        return bool(after) and after[0] in K.SANITY_FIT_UNITS and len(after) < 4

    def _length_of_other(self, k: int, j: int) -> bool:
        """Whether the length word at token ``k`` measures something other than the run ("more epochs of warmup").

        "of" and a thing after it that is not training itself make the epochs that thing's length (of warmup, of
        pretraining data), not the run going on longer.
        """
        after = [t.lemma for t in self.tokens[k + 1:min(j, k + 4)]]
        if not after or after[0] != "of":
            return False
        rest = [w for w in after[1:] if w not in ("the", "my", "our")]
        return bool(rest) and rest[0] not in ("training", "train", "it")

    def _reaches(self, at: int, sent_lo: int) -> bool:
        """Whether the value at token ``at`` is said as reached by a change ("goes to 0", "became 0").

        A verb of change (``REACH_VERBS``) within the three words before it, the last of them "to" or the verb.
        """
        before = self.lemmas(max(sent_lo, at - 3), at)
        return bool(before) and bool(set(before) & K.REACH_VERBS) and (
            before[-1] == "to" or before[-1] in K.REACH_VERBS)

    def _fitted(self, sent_lo: int, sent_hi: int, at: int) -> bool:
        """Whether the sentence of the loss's 0 at token ``at`` says the 0 is a fit, not a collapse.

        A fit or a good outcome (``FIT_MOVES``, ``FIT_PHRASES``: "works great", "I overfit a batch") or a held-out
        figure rising beside it ("the training loss goes to 0 but the validation loss keeps increasing"): the
        training data was memorised, no step broke.
        """
        held_out = False
        for p in self.parts_in(sent_lo, sent_hi):
            if p.i == at:
                continue
            m = p.roles.get("m")
            if m in K.FIT_MOVES and not self._negated(p.i, sent_lo):
                return True
            if p.roles.get("s") == "val":
                held_out = True
            elif m == "up" and held_out and not self._negated(p.i, sent_lo):
                return True
        said = self.text[self.tokens[sent_lo].start:self.tokens[sent_hi - 1].end]
        return any(phrase in said for phrase in K.FIT_PHRASES)

    def _same_again(self, p: Part, i: int, j: int, quantities: list[tuple[Part, str, str | None]]) -> bool:
        """Whether "same" at ``p`` says the earlier trouble recurs with another variant ("the same with X").

        No quantity of the clause is said before it (a pronoun may be: "it's the same with bf16"), at most a word of
        ``knowledge.talk.SAME_REFERENTS`` follows it ("same thing", "same result"), then a word of ``VARIANT_LEADS``
        ("with", "using", "for") whose object is not every input (``ALL_INPUTS``: "the same for every input" is one
        answer for all).
        """
        if any(q[0].i < p.i and q[1] not in ("pronoun", "run") for q in quantities if i <= q[0].i):
            return False  # "the outputs are all the same": the sameness is the outputs'
        k = p.j
        if k < j and self.tokens[k].lemma in K.SAME_REFERENTS:
            k += 1
        if k >= j or self.tokens[k].lemma not in K.VARIANT_LEADS:
            return False
        return not set(self.lemmas(k + 1, min(j, k + 4))) & K.ALL_INPUTS

    def _schedule_end(self, sent_lo: int, sent_hi: int) -> bool:
        """Whether the sentence places a value at the run's planned end, or says it went as planned.

        ``knowledge.talk.SCHEDULE_END_PHRASES`` ("at the end of training", "by the last step") and
        ``PLANNED_PHRASES`` ("as planned", "as scheduled"): what a schedule reaches there is its design.
        """
        said = self.text[self.tokens[sent_lo].start:self.tokens[sent_hi - 1].end].lower()
        return any(phrase in said for phrase in K.SCHEDULE_END_PHRASES + K.PLANNED_PHRASES)

    def _designed_decay(self, sent_lo: int, sent_hi: int, p: Part) -> bool:
        """Whether an LR said to reach 0 at ``p`` is said as its schedule's shape: "lr decays to 0", "anneals to zero".

        A schedule verb (``SCHEDULE_DECAY_VERBS``) in the sentence, no word that dates the fall inside the run
        (``EARLY_ZERO_WORDS``: "after 3 epochs", "already") and no number but the 0 itself: the decay a schedule is
        given, ending at 0 where the run ends, not an LR that collapsed.
        """
        toks = self.tokens[sent_lo:sent_hi]
        lemmas = {t.lemma for t in toks} | {t.text.lower() for t in toks}
        if not lemmas & K.SCHEDULE_DECAY_VERBS or lemmas & K.EARLY_ZERO_WORDS:
            return False
        return all(t.number == 0 for t in toks if t.kind == "num")

    def _minor_noise_on_flat(self, p: Part, sent_lo: int, sent_hi: int) -> bool:
        """Whether the noise at ``p`` is said to be slight beside a curve said to be flat or not falling.

        "stays the same with some fluctuations", "doesn't decrease, just small oscillations" (``MINOR_WORDS``): the
        curve's state is the stall, the noise is incidental.
        """
        toks = self.tokens
        if not any(t.lemma in K.MINOR_WORDS for t in toks[max(sent_lo, p.i - 2):p.i]):
            return False
        for q in self.parts_in(sent_lo, sent_hi):
            m = q.roles.get("m")
            if q is p or m is None:
                continue
            if m in _FLAT_STATES or (m in ("down", "down_bare", "improve") and self._negated(q.i, sent_lo)):
                return True
        return False

    def _no_more(self, p: Part, sent_lo: int, sent_hi: int) -> bool:
        """Whether a denied movement at ``p`` is said to have stopped ("doesn't go down anymore").

        "no longer decreases" (``knowledge.talk.NO_MORE``): it moved before, so the stall came after some learning.
        """
        toks = self.tokens
        for k in range(max(sent_lo, p.i - 3), min(sent_hi, p.j + 5)):
            one = toks[k].lemma
            two = f"{one} {toks[k + 1].lemma}" if k + 1 < sent_hi else ""
            if one in K.NO_MORE or two in K.NO_MORE:
                return True
        return False

    def _after_learning(self, sent_lo: int, at: int) -> bool:
        """Whether the sentence says, before token ``at``, that the quantity first went down or learned."""
        for p in self.parts_in(sent_lo, at):
            if p.roles.get("t") == "at_first":
                return True
            m = p.roles.get("m")
            if m in ("down", "down_bare", "learn", "improve", "converge") and not self._negated(p.i, sent_lo):
                if self._others_run(clause_start(self.tokens, p.i), p.i):
                    continue  # "his loss goes down but mine doesn't": another run learned, not the user's
                return True
            if m in _MOVES_TO and p.j + 1 < at and self.tokens[p.j].lemma == "to" and \
                    self.tokens[p.j + 1].kind == "num":
                # "jumps to 4.2 and then stays there": a move to a level and a state after it; the level the
                # curve ends on, not the one-off move, is what it does
                return True
        return False

    # -- composition -------------------------------------------------------------------------------------
    @staticmethod
    @lru_cache(maxsize=1024)
    def _fits(quantity: str, movement: str) -> bool:
        """Whether some composition speaks of ``quantity`` moving ``movement`` (any negation, time, split)."""
        return any(c.quantity == quantity and c.movement.removeprefix("not-").removeprefix("slow-") == movement
                   for c in K.COMPOSITIONS)

    def _compose(self, quantity: str | None, split: str | None, movement: str, time: str | None,
                 tags: set[str], subject: bool = False) -> dict[str, Any] | None:
        for c in K.COMPOSITIONS:
            if c.subject and not subject:
                continue
            if quantity is None:
                if not c.implicit:
                    continue
            elif c.quantity != quantity:
                continue
            if c.movement != movement:
                continue
            if c.split == "none" and split is not None:
                continue
            if c.split not in (None, "none") and c.split != split:
                continue
            if c.time is not None and c.time != time and not (c.time == "later" and time == "run_longer"):
                continue  # (what moves as the run goes on longer moves later in it)
            if c.tags and not c.tags & tags:
                continue
            return c.sets
        return None

    def _returns(self, p: Part, end: int) -> bool:
        """Whether the curve that rises at ``p`` comes back later in its sentence ("then comes back down")."""
        for o in self.parts_in(p.j, end):
            if o.roles.get("m") in ("down", "down_bare") and not self._negated(o.i, p.j) and (
                    self.lemmas(o.j, o.j + 1) in (["again"], ["back"]) or self.lemmas(o.i - 1, o.i) == ["back"]):
                return True
        return False

    def _before_first_step(self, k: int, end: int) -> bool:
        """Whether "before the first step" (batch, iteration) follows token ``k`` in its sentence.

        "stuck at 0% for a while before the first step": what is stuck is the run, waiting to take its first step
        (a loss cannot be stuck before any step computed it).
        """
        lem = self.lemmas(k, end)
        return any(lem[n] == "before" and "first" in lem[n + 1:n + 3] and
                   bool(set(lem[n + 2:n + 4]) & {"step", "batch", "iteration"}) for n in range(len(lem)))

    def _stuck_at_place(self, k: int, end: int) -> bool:
        """Whether a place in the run follows "stuck" at token ``k`` ("at the first step", "after epoch 1").

        Prepositions, articles, adverbs of frequency and ordinals may stand between; the first other word must
        name a step, batch, iteration or epoch, or the run's start ("stuck at 2.3" names a value, not a place).
        """
        toks = self.tokens
        for n in range(k, min(end, k + 6)):
            t = toks[n]
            if t.lemma in K.RUN_PLACES:
                return True
            ordinal = t.kind == "num" and n + 1 < end and toks[n + 1].lemma in ("st", "nd", "rd", "th")
            if t.lemma in K.PLACE_FILLERS or ordinal or t.lemma in (",", "st", "nd", "rd", "th"):
                continue
            return False  # (a bare number is the value stuck at: "stuck at 2.30 after the first epoch")
        return False

    def _other_metric(self, q: Part) -> bool:
        """Whether the metric quantity ``q`` is one other than accuracy ("F1 score", "mAP", "the BLEU").

        Its own words, or the two words before it ("F1 score": the score named by what it scores), name one of
        :data:`knowledge.talk.OTHER_METRICS`.
        """
        return any(t.lemma in K.OTHER_METRICS or t.text.lower() in K.OTHER_METRICS
                   for t in self.tokens[max(0, q.i - 2):q.j])

    def _lower_better(self, q: Part) -> bool:
        """Whether the metric ``q`` is one where lower is better (WER, CER): its figure is no score of the split."""
        return any(t.lemma in K.LOWER_BETTER_METRICS or t.text.lower() in K.LOWER_BETTER_METRICS
                   for t in self.tokens[max(0, q.i - 2):q.j])

    def _value_follows(self, k: int, end: int) -> bool:
        """Whether a value follows the movement ending at token ``k`` ("stays at 0%", "sits around 30", "is 5").

        A preposition or two of place may stand between ("at", "around", "near"); the first other word is a number.
        """
        for n in range(k, min(end, k + 3)):
            t = self.tokens[n]
            if t.kind == "num":
                return True
            if t.lemma not in ("at", "around", "about", "near", "on", "to", "~", "be"):
                return False
        return False

    def _stuck_at_call(self, k: int, end: int) -> bool:
        """Whether a line of code follows "stuck" at token ``k`` ("stuck at DistributedDataParallel(model)").

        Only the words of :data:`knowledge.talk.PLACE_FILLERS` may stand between; the code is a call (a word and its
        bracket) or a snake_case name ("init_process_group"): the program stopped inside it, a hang.
        """
        toks = self.tokens
        for n in range(k, min(end, k + 4)):
            t = toks[n]
            if t.lemma in K.PLACE_FILLERS:
                continue
            return t.kind == "word" and ("_" in t.text.strip("_") or any(
                toks[u].text == "(" for u in range(n + 1, min(end, n + 3))))
        return False

    def read_clause(self, sent: tuple[int, int], i: int, j: int, state: dict[str, Any]) -> None:
        parts = self.parts_in(i, j)
        quantities = self._quantities(parts)
        if any(self._eval_phase(p) for p in parts):
            # the evaluation pass said as the clause's time ("only at eval time I get a nan loss", "the loss is nan
            # only during validation"): its curves with no split of their own are the evaluation's
            quantities = [(q, name, "val" if split is None and name in ("loss", "accuracy") else split)
                          for q, name, split in quantities]
        hedged = hedged_in(self.tokens, i, j)
        lemmas = set(self.lemmas(i, j))
        tags = {"all"} if lemmas & {"all", "every", "each", "always", "exactly", "just", "only"} else set()
        if lemmas & {"first", "early", "earlier", "some", "lower", "bottom"} and "all" not in lemmas:
            tags = {"some"}
        if not tags:
            tags = {"all"}
        # "update" is a quantity ("the update size") unless a quantity before it is what is updated
        first_q = min((q[0].i for q in quantities if q[0].roles.get("q") != "update"), default=None)
        # ("never updates" with nothing named before it is a movement all the same: the run's)
        movements = [p for p in parts if "m" in p.roles and not (
            "q" in p.roles and p.roles["m"] == "change_verb" and (first_q is None or first_q > p.i)
            and not self._negated(p.i, i))]
        others = False  # a movement of the clause is another person's run's
        for n, p in enumerate(movements):
            m = p.roles["m"]
            if self._imperative(p, sent[0]):
                continue  # "hang on, ...", "hang in there": an everyday imperative, no movement of the run
            if m in _LEVEL_MOVES and self._stall_level(p, parts):
                continue  # "plateaus at a higher value than before", "stalls lower": the level of the stall, no move
            than = next((k for k in range(p.j, min(j, p.j + 4)) if self.tokens[k].lemma == "than"), None)
            if than is not None and m != "slow" and (not (set(self.lemmas(than + 1, than + 3)) & _THEN) or
                                                     set(self.lemmas(than + 1, than + 4)) & _REFERENCES or
                                                     self._than_split(than, parts)):
                # "gets lower validation accuracy than ResNet", "higher than the training loss": a comparison with
                # another thing or split (``compare``), no movement; "higher than before" is one, and so is
                # "slower than fp32" (a speed is the complaint whatever it is compared with)
                continue
            if m == "diverge" and self._named_divergence(p, i, j, movements):
                continue  # "the KL divergence goes to nan", "we use KL divergence": a measure's name, what it does
                # is said by the clause's other words
            if m == "huge" and n + 1 < len(movements) and movements[n + 1].i - p.j <= 2:
                continue  # "huge spikes": the size of the next movement, not a movement of its own
            if m == "change_verb" and self.lemmas(p.i - 1, p.i) in (["a"], ["an"], ["the"], ["each"], ["every"],
                                                                 ["one"], ["single"], ["any"]):
                continue  # "never used for an update": the noun, not the weights' movement
            if m == "same" and self.lemmas(max(i, p.i - 2), p.i) in (["on", "the"], ["for", "the"], ["with", "the"],
                                                                      ["from", "the"], ["to", "the"], ["of", "the"]):
                continue  # "predictions on the same input differ": the sameness is the input's, no movement
            if m == "down" and (self.lemmas(p.j, p.j + 1) in (["again"], ["back"]) or
                                self.lemmas(p.i - 1, p.i) == ["back"]) and \
                    any(o.roles.get("m") in _RISES for o in self.parts_in(sent[0], p.i)):
                continue  # "goes up by a lot and falls again": the return from the rise, no drop of its own
            if m in ("up", "up_bare") and any(o.roles.get("m") in ("spike", "jump") and o.j < p.i <= o.j + 1 and
                                               self.lemmas(o.j, p.i) == ["back"] for o in parts):
                continue  # "spikes back up", "jumps back up": the direction of the jump, no rise of its own
            if m == "same" and p.j < j and (self.tokens[p.j].lemma in K.PATTERN_NOUNS or any(
                    "m" in o.roles and o.i in (p.j, p.j + 1) for o in parts)):
                continue  # "repeats the same bump pattern", "the same spike every 500 steps": a recurring shape
            if m == "same" and self._same_again(p, i, j, quantities):
                # "the same with image_logits.t()", "same thing with the other optimizer": the trouble said before
                # recurs with another variant; nothing is said to stay the same (nor may a cue read it so)
                self.claim(self.tokens[i].start, self.tokens[j - 1].end, ("symptom", "predictions_constant"))
                continue
            if m == "same" and set(self.lemmas(*sent)) & _SAME_ACROSS:
                # "each rank logs the same loss", "the same accuracy every time I evaluate the checkpoint": copies
                # or repeats that agree (a frame reads what that says), no curve that stays flat
                continue
            if self.tokens[p.i].text.lower() in K.OPERATION_VERBS and p.j == p.i + 1 and (
                    (p.i > i and self.tokens[p.i - 1].lemma in K.OPERATION_LEADS) or
                    (p.j < len(self.tokens) and self.tokens[p.j].lemma in K.OPERATION_NOUNS)):
                continue  # "dies at the linear layer after flatten", "the flatten layer": the model's operation
            if self._others_run(i, p.i):
                # "my colleague's run goes nan", "someone on the forum had nan loss": another person's run moves,
                # not the user's (nor may a cue read it)
                self.claim(self.tokens[i].start, self.tokens[j - 1].end, K.TROUBLE_NAMES)
                self.u.no_guess = True  # (nor is the user's trouble guessed from it when nothing else is read)
                others = True
                continue
            if self._purpose(p, sent):
                # "set weight decay 1.0 to fight overfitting and now the loss is flat": the trouble a change was made
                # against, not the run's symptom now (the later clause says that); nor may a cue read it
                self.claim(self.tokens[self._purpose_from(p, sent)].start, p.end, K.TROUBLE_NAMES)
                continue
            if m == "hang" and self._person_subject(p.i, i):
                continue  # "she hangs her coat by the program booklet": a person hangs a thing, no run hangs
            if m == "freeze" and (any(t.lemma in K.AGENTS for t in self.tokens[i:p.i]) or (
                    p.j < j and self.tokens[p.j].lemma in K.FREEZE_OBJECT_LEADS)):
                continue  # "I froze the encoder", "this freezes all the layers": something frozen on purpose
            if m == "freeze" and self.tokens[p.i].text.lower() == "freezing" and p.i > i and \
                    self.tokens[p.i - 1].text.lower() in K.FREEZE_ACT_LEADS and (
                        self.tokens[p.i - 1].text.lower() not in K.FREEZE_TIME_LEADS or self._names_frozen(sent, p)):
                continue  # "built before freezing", "gradual freezing": the act of freezing weights, no hang
            if m == "freeze" and any(t.lemma in K.FROZEN_PARTS or t.text.lower() in K.FROZEN_PARTS
                                     for t in self.tokens[i:j]):
                # "a frozen backbone", "BatchNorm is still frozen": a part frozen on purpose, no hang (nor a cue's
                # hang in the rest of the sentence: "frozen ... on 16 GPUs" is no distributed hang)
                self.claim(p.start, self.tokens[sent[1] - 1].end, ("symptom", "boundary_topic"))
                continue
            if m == "slow" and (any("m" in o.roles and o is not p and abs(o.i - p.i) <= 2 for o in parts) or any(
                    "m" in o.roles and self._manner(o, p) for o in self.parts_in(sent[0], p.i))):
                continue  # "slowly goes up", "decreasing very slowly": the manner of the other movement
            if m in K.FALLBACK_MOVEMENTS and any("m" in o.roles and o is not p and abs(o.i - p.i) <= 3 for o in parts):
                continue  # "weird spikes", "goes up in a strange way": the other movement says how
            if m in ("up_bare", "down_bare"):
                m = m[:-5]
                # "go up" is a phrase; a bare "up" only counts after a verb of motion or "way"
                prev = self.lemmas(p.i - 1, p.i)
                nxt = self.tokens[p.j] if p.j < len(self.tokens) else None
                # ("val loss up, val acc up": a telegraphic report, the direction right after the quantity and
                # nothing after it in its clause; not "the batch size up to 1024")
                # ("val loss up after epoch 1", "loss down since step 200": the time it moved from comes right after)
                terse = any(q[0].j == p.i for q in quantities) and (
                    nxt is None or nxt.kind == "punct" or nxt.lemma in _TERSE_AFTER)
                # ("goes down then up again": the verb of the movement before it carries over)
                if not terse and (not prev or prev[0] not in (
                        "go", "shoot", "creep", "come", "way", "goes", "went", "move", "back", "keep", "is", "be",
                        "climb", "fall", "jump", "spike", "then")):
                    continue
            if m == "flat" and self.lemmas(p.i, p.i + 1)[0] in ("stay", "remain") and max(
                    ((q[0].j, q[1]) for q in quantities if q[0].j <= p.i), default=(0, None))[1] == "lr":
                # "the learning rate stays the same during training": the LR watched and found held (a verb of
                # state), where "a constant LR", "kept the LR the same" are the setting chosen
                m = "stay"
            if m in ("stay", "same", "stuck") and p.j < j and self.tokens[p.j].lemma in K.WEIGHT_FORMATS:
                continue  # "the parameters stay fp32": the format they are kept in, no curve held still
            if m == "stay" and p.j < j and self.tokens[p.j].kind == "num" and not (
                    p.j + 1 < len(self.tokens) and self.tokens[p.j + 1].lemma in _COUNTED_SPANS):
                m = "stuck"  # "the DPO loss remains 0.693", "stays 10.8": held at a value, as "stays at" says
            if m in _MOVES_TO and p.j + 1 < sent[1] and self.tokens[p.j].lemma == "to" and \
                    self.tokens[p.j + 1].kind == "num" and any(
                        o.roles.get("m") in _SETTLED for o in self.parts_in(p.j + 2, sent[1])) and \
                    not self._negated(p.i, i):
                continue  # "shot up to 3.5 and remained flat": the level it moved to and stayed at is the reading
            # (a movement said as past and fixed is composed all the same: the text reader keeps it only as history)
            negated = clause_status(self.tokens, p.i, p.j, i, hedge=False) == NEGATED \
                if "elided" not in p.roles else p.roles["elided"] == "neg"
            if negated and m in ("down", "down_bare", "up", "up_bare", "improve", "learn", "converge") and any(
                    t.lemma in K.STEADY_MANNERS for t in self.tokens[p.j:min(j, p.j + 2)]):
                # "doesn't go down monotonically": the steadiness denied, not the fall (a noisy curve, no stall to
                # guess either)
                self.claim(p.start, self.tokens[min(j, p.j + 2) - 1].end, ("symptom", "loss_behavior"))
                self.u.no_guess = True
                continue
            if negated and m in ("down", "down_bare", "zero") and p.j + 1 < j and \
                    self.tokens[p.j].lemma in ("to", "towards") and \
                    (self.tokens[p.j + 1].kind == "num" or self.tokens[p.j + 1].lemma == "zero") and \
                    any(q[1] == "lr" and q[0].j <= p.i for q in quantities):
                # "the lr never decays to 0", "doesn't drop to zero": the end point denied, not the fall (an LR with
                # a floor above 0 still moves; no stuck LR, no collapse)
                self.claim(self.tokens[i].start, self.tokens[j - 1].end, ("lr_observed",))
                continue
            slow = any(q.roles.get("m") == "slow" for q in parts if q is not p and abs(q.i - p.i) <= 3) or any(
                q.roles.get("m") == "slow" and self._manner(p, q) for q in self.parts_in(p.j, sent[1]))
            # the quantity: nearest before, else after, else the sentence's last one
            # (a step or batch said as a time is when it moved, not what moved: "go crazy after a few hundred steps")
            own = [q for q in quantities if not self._as_time(q[0])]
            before = [q for q in own if q[0].j <= p.i and (q[1] not in K.ONLY_FITTING or self._fits(q[1], m))]
            after = [q for q in own if q[0].i >= p.j and (q[1] not in K.ONLY_FITTING or self._fits(q[1], m))]
            # the nearest quantity the movement can be said of ("the .grad of my weights is None": the grad)
            # (after the movement only the nearest quantity can be its subject: in "raising the batch size the loss
            # goes NaN" the rise is the batch size's, never the loss's)
            if any(self._than_object(q[0]) for q in before) and not all(self._than_object(q[0]) for q in before):
                # "val loss is higher than train loss and keeps rising": what a comparison is set against is no
                # subject; the movement after it is the compared quantity's
                before = [q for q in before if not self._than_object(q[0])]
            fitting = [q for q in before[::-1] + after[:1] if self._fits(q[1], m)]
            word = self.tokens[p.j - 1]
            if after and after[0][0].i == p.j and self._fits(after[0][1], m) and word.kind == "word" and (
                    m in _ADJECTIVE_MOVEMENTS or (word.text.endswith(("ing", "ed", "y")) and not any(
                        i <= q[0].i and self._fits(q[1], m) for q in before))):
                # (a participle after a quantity it fits is that quantity's verb: "memory growing every step")
                fitting = after[:1]  # "NaN loss", "exploding gradients": a movement said as the quantity's adjective
            chosen = fitting[0] if fitting else before[-1] if before else after[0] if after else None
            if chosen is not None and chosen[1] == "run" and chosen[0].i >= p.j and state.get("last") is not None \
                    and self.tokens[chosen[0].i - 1].lemma in ("of", "during", "throughout"):
                chosen = None  # "stayed the same for the rest of training": the run said after it is a time
            if chosen is not None and chosen[1] == "pronoun" and \
                    self.tokens[chosen[0].i].text.lower() in K.POSSESSIVE_PRONOUNS:
                # "the LR reaches its peak": a possessive names the owner of the noun after it, no subject of its
                # own; the quantity said before it in the clause is the one that moves (the LR's peak is no spike)
                owner = next((q for q in before[::-1] if q[1] != "pronoun" and q[0].j <= chosen[0].i), None)
                chosen = owner if owner is not None else chosen
            if chosen is None or chosen[1] == "pronoun":
                # "they never change", "it spikes": the latest quantity said before, less those said as a time
                # ("I printed the weights after each step and they never change": "they" are the weights)
                chosen = state.get("last")
                if chosen is None and state.get("others_last") is not None and any(
                        t.text.lower() in _OWN_PRONOUNS for t in self.tokens[i:p.i]):
                    # "his loss goes down but mine doesn't": "mine" is the user's own of the quantity just said of
                    # another person's run
                    chosen = state["others_last"]
                if chosen is not None and chosen[1] == "pronoun":
                    chosen = None  # "it is so slow" with nothing named before: the run's movement
            if chosen is not None and chosen[1] == "split_only":
                prev_q = state.get("last")
                chosen = (chosen[0], prev_q[1] if prev_q else "loss", chosen[2])
            if chosen is None and self._off_scope(p.i, i):
                # "the bus was stuck in traffic", "sales exploded", "my nan is visiting": said of no training
                # quantity, of something else, in a text that names nothing of training (nor may a cue read it)
                self.claim(p.start, p.end, ("symptom", "loss_behavior"))
                continue
            # (a pronoun of this clause stands for the quantity it resolved to: "then it became exactly 0.0")
            said_here = chosen is not None and (i <= chosen[0].i < j or any(
                q[1] == "pronoun" and i <= q[0].i < p.i for q in quantities))
            if chosen is not None and chosen[1] == "lr" and m in ("zero", "vanish") and not negated and \
                    (self._schedule_end(*sent) or self._designed_decay(*sent, p)):
                # "the lr reaches 0 at the end of the run as planned": a schedule that decays to its floor where the
                # run ends is the schedule's design, no LR collapsed (nor is the trouble guessed from it)
                self.claim(self.tokens[i].start, self.tokens[j - 1].end, ("symptom", "loss_behavior", "lr_observed"))
                self._expected.append((self.tokens[i].start, self.tokens[j - 1].end))
                self.u.no_guess = True
                continue
            if m == "zero" and self.tokens[p.i].kind == "num" and not (
                    said_here and (self.lemmas(p.i - 1, p.i)[:1] in _IS_VALUE or (
                        chosen[0].j == p.i and chosen[1] in _VALUED))):
                continue  # a bare "0" is the value of a quantity said just before ("output 0 of ReluBackward" is none)
            quantity = chosen[1] if chosen else None
            split = chosen[2] if chosen else None
            if quantity in ("grad", "grad_norm") and m in ("nan", "vanish") and not negated and \
                    self._calm_before_nan(chosen[0], p, sent):
                if m == "vanish":
                    continue  # "small grad norm then NaN": calm gradients before the NaN (a frame reads them normal)
                # "grad norms were normal right up to the nan": the NaN came after calm gradients, not in them
                chosen, quantity, split = None, None, None
            if m == "stuck" and (quantity is None and self._stuck_at_place(p.j, sent[1]) or quantity in (None, "run")
                                 and (self._before_first_step(p.j, sent[1]) or self._stuck_at_call(p.j, sent[1]))) \
                    and not any(
                    q[1] in ("loss", "accuracy") for q in self._quantities(self.parts_in(sent[0], sent[1]))):
                # "stuck at the first iteration", "stuck after 1st epoch", "randomly stuck, sometimes step 300":
                # nothing named stuck but a place in the run where it stopped, and no curve in the sentence: the
                # program stops there (a hang), not a loss that stopped falling
                quantity, m = "run", "hang"
            if m == "slow" and not self._negated(p.i, i) and quantity in K.IN_USE_SUBJECTS and \
                    self._in_use(sent, i, j):
                # "the model answers slowly once deployed", "prediction is slow on the server": the speed of the
                # model in use (the ml-production boundary), no slow training run
                self.add({"concern": "inference_speed"}, p.start, p.end)
                self.claim(self.tokens[sent[0]].start, self.tokens[sent[1] - 1].end, ("symptom",))
                continue
            if m == "nan" and quantity in (None, "pronoun", "run", "model") and self._range_bound(p, *sent):
                # "targets are between nan and 5", "values range from 0 to nan": a NaN among a range of data values
                # is a fault of the data (whose: the data noun said beside it), no loss going NaN
                owner = next((K.NAN_RANGE_OWNERS[t.lemma] for t in self.tokens[sent[0]:sent[1]]
                              if t.lemma in K.NAN_RANGE_OWNERS), None)
                if owner is not None:
                    self.add({"nan_location": owner}, self.tokens[i].start, p.end)
                self.claim(self.tokens[sent[0]].start, self.tokens[sent[1] - 1].end,
                           ("symptom", "loss_behavior", "nan_onset", "nan_step"))
                continue
            if m == "slow" and quantity == "loss" and self.tokens[p.i].text == "slower":
                continue  # "it got slower" compares speeds; a loss is not slower
            # (the change verb may stand an adverb or two before it: "the loss gets clearly / much worse")
            if m == "worse" and quantity == "loss" and split in (None, "train") and \
                    not set(self.lemmas(max(p.i - 2, chosen[0].j if chosen else 0), p.j)) & K.WORSENING_WORDS:
                continue  # "the loss is worse than with Adam": a level judged, no rise (the fallback asks how)
            if m == "zero" and quantity == "gpu_util" and (
                    self.lemmas(chosen[0].i, chosen[0].j)[-1] in ("gpu", "cuda") or chosen[0].i > p.i and any(
                        t.lemma in ("gpu", "cuda", "device", "rank") for t in self.tokens[max(sent[0], p.i - 2):p.i])):
                continue  # "zero GPUs", "GPU 0", "cuda:0": a device counted or numbered, not its utilization at 0
            if quantity == "gpu_util" and m in ("down", "low", "slow", "oscillate") and \
                    self.lemmas(chosen[0].i, chosen[0].j)[-1] in ("gpu", "cuda") and any(
                    t.lemma in K.DEVICE_PLACE_WORDS for t in self.tokens[max(sent[0], chosen[0].i - 3):chosen[0].i]) \
                    and not set(self.lemmas(*sent)) & K.MEASURE_WORDS:
                continue  # "on a single GPU it does", "with 4 GPUs it drops": the cards a run is on, not their use
            if m in _SETTLED and quantity == "gpu_util" and self._value_follows(p.j, sent[1]):
                # "the GPU stays at 0%", "GPU util sits at 0", "the gpu is stuck at 100% utilization": the card's
                # use held at a level (its figure is read on its own), no curve of the loss held still
                self.claim(p.start, p.end, ("symptom",))
                continue
            if m in ("stuck", "hang", "freeze") and quantity == "gpu_util" and \
                    self.lemmas(chosen[0].i, chosen[0].j) == ["gpu"]:
                # "4 GPUs get stuck forever", "the GPUs max out and it gets stuck there": the devices' run hangs,
                # not their utilization, and never the loss (a loss is not said of the cards)
                quantity, m = "run", "hang"
            if quantity == "run" and chosen is not None and i <= chosen[0].i < p.i and not any(
                    q[1] in ("loss", "accuracy") for q in self._quantities(self.parts_in(sent[0], sent[1]))) and (
                    (m == "plateau" and set(self.lemmas(p.i, p.j)) & K.STALL_WORDS) or (
                        m == "stuck" and self.tokens[chosen[0].j - 1].lemma in K.PROGRAM_WORDS)):
                # "the job stalls", "the script gets stuck": the run named as its subject and no curve said
                # in the sentence, the program stops (a hang); "the loss stalls" stays the curve's plateau;
                # "training stalled" may be either, and is read as "training is stuck" is (a place in the run or
                # the program's signs say a hang, else the user is asked)
                program = self.tokens[chosen[0].j - 1].lemma in K.PROGRAM_WORDS
                m = "hang" if m == "stuck" or program else "stuck"
            if quantity in ("run", "model") and m in K.VAGUE_MOVEMENTS:
                pass  # "training is broken", "my model is trash": the vague complaint about the run or model itself
            elif quantity in ("run", "model") and m not in ("hang", "freeze", "stuck", "nan", "diverge", "explode",
                                                          "fast", "progress", "spike", "nowhere", "overfit", "underfit",
                                                          "generalize", "unstable", "oscillate", "slow", "plateau",
                                                          "flat", "flatline", "converge", "learn", "improve"):
                continue
            if quantity in ("run", "model") and m not in K.VAGUE_MOVEMENTS:
                # "training diverges", "the model doesn't learn": the run's movements are the loss's, except a hang
                quantity = None if m not in ("hang", "freeze", "stuck") or quantity == "model" else quantity
                if quantity is None and m not in ("hang", "freeze", "stuck"):
                    chosen = None  # "my model is overfitting": the words that say it are the movement's
                if quantity == "model" and m == "stuck":
                    quantity = None
            if quantity == "run" and m == "stuck":
                if lemmas & {"forever", "error", "output", "happen", "bar", "progress", "iteration", "batch",
                             "log", "freeze", "hang", "epoch", "step", "hour", "minute", "startup", "init",
                             "initialize", "initialization", "init_process_group", "kill", "during", "alive",
                             "respond", "restart", "there"}:
                    # ("gets stuck there": a place the program reached and stopped at, no curve's level)
                    m = "hang"
                else:
                    self.u.confirm.append(("stuck", "You said 'stuck': is the loss stuck (not improving), or "
                                                    "is the run frozen (no progress, no output)?"))
                    # until answered, the likelier reading (most who say training is stuck mean the loss), weakly
                    self.add({"symptom": "not_learning"}, p.start, p.end, strong=False, hedged=True)
                    continue
            if slow and (m in ("down", "improve", "learn", "converge") or
                         (m in ("up", "up_bare") and quantity in ("lr", "accuracy"))):
                # ("the LR barely rises" during warmup: a pace; "val acc rising slowly" a metric that improves,
                # slowly, no flat one; "the loss slowly goes up" stays a rise: a loss that climbs diverges)
                m = f"slow-{m}"
            elif m == "slow" and quantity in (None, "loss"):
                if quantity is None and not (lemmas & {"learn", "converge", "decrease", "drop", "improve", "loss"}):
                    quantity = "run"  # "it's so slow": the run is slow
            if m == "up" and quantity in (None, "loss") and not negated and self._returns(p, sent[1]):
                m = "spike"  # "rises sharply, then comes back down": a transient rise is a spike, not a divergence
            if m == "overfit" and not negated and self._sanity_fit(p.j, sent[1]):
                continue  # "I overfit a single batch": the check that the model can learn, no symptom of the run
            if m == "oscillate" and not negated and self._minor_noise_on_flat(p, *sent):
                continue  # "stays the same with some fluctuations": a flat curve with a little noise, no swing
            if m == "change" and not negated and any(t.lemma in K.SCARCELY
                                                     for t in self.tokens[max(sent[0], p.i - 2):p.i]):
                # "the loss hardly budges", "barely moves": a change said to be next to none is no change (a
                # direction said so, "barely decreases", is a slow fall, above)
                if {t.lemma for t in self.tokens[p.i + 1:sent[1]]} & _FALLS:
                    # "hardly moves during the first 100 steps, then drops quickly": a slow start the sentence
                    # says the loss then leaves, no curve that does not learn
                    continue
                negated = True
            if negated:
                m = f"not-{m}"
            at = p.i
            time, step = self._time(i, j, sent[0], sent[1], at)
            if time is None:
                time, step = self._appended_time(j, sent, at, step)
            if m in ("plateau", "stuck", "flat", "flatline", "not-down", "not-improve", "stay") and time != "start" \
                    and (self._after_learning(sent[0], at) or (negated and self._no_more(p, *sent))):
                time = "after_learning"
            if split == "val" and time in ("later", "after_learning") and m in _STALLS and \
                    {"train", "training"} & set(self.lemmas(*sent)):
                # "val loss plateaus after 10 epochs while train loss keeps dropping": the two curves apart are the
                # gap's (a frame reads it), not a stall of the run's progress
                time = None
            if m in ("hang", "freeze", "stuck") and time == "epoch_start" and \
                    set(self.lemmas(*sent)) & K.FOREVER_WORDS:
                time = None  # "hangs at the epoch boundary, blocked on a queue": it never goes on, no slow start
            if m == "spike" and time in ("start_soft",):
                time = None
            if m == "zero" and time is None and quantity == "loss" and self._reaches(p.i, sent[0]) and \
                    not self._fitted(sent[0], sent[1], p.i):
                time = "later"  # "the loss goes (down) to 0", "drops to 0 quickly": it was not 0 before
            judgement = K.JUDGEMENTS.get((quantity, m))
            # ("train acc is great but it does badly on new data": "it" is the model, the data named after says whose)
            resolved = chosen is not None and not i <= chosen[0].i < j
            if m in ("good", "bad") and ((judgement is None and quantity in (None, "run", "model", "pronoun")) or
                                         resolved):
                # "it does great on train data and awful on validation data": the data named right after says whose
                on = next((o for o in parts if "s" in o.roles and "q" not in o.roles and 0 <= o.i - p.j <= 2 and
                           set(self.lemmas(p.j, o.i)) <= {"on", "the", "for", "with", "in", "at"}), None) or next(
                    # ("on unseen data it's really bad": the data said first, in the judgement's clause)
                    (o for o in parts if "s" in o.roles and "q" not in o.roles and i < o.i < p.i and
                     (self.tokens[o.i - 1].lemma in ("on", "for") or (self.tokens[o.i - 1].lemma in ("the", "my")
                                                                      and self.lemmas(o.i - 2, o.i - 1) in (["on"],
                                                                                                            ["for"])))),
                    None)
                if on is not None:
                    judgement, split, chosen = m, on.roles["s"], (on, "split_only", on.roles["s"])
            if judgement is not None and split in ("train", "val"):
                # a figure judged without a shape, on one side of the split: the sentence may hold the other side
                span = (min(p.start, chosen[0].start), max(p.end, chosen[0].end)) if chosen else (p.start, p.end)
                self._judged.setdefault(f"{split}_{judgement}", span)
            # the quantity is the clause's subject: said before the movement, no person before it ("the LR never
            # changes", not "I did not change the LR")
            subject = chosen is not None and i <= chosen[0].i < p.i and not any(
                t.lemma in K.AGENTS for t in self.tokens[i:chosen[0].i])
            if quantity is None and m in ("not-change", "not-change_verb", "same", "flat") and \
                    ({"try", "tried", "attempt"} & set(self.lemmas(sent[0], sent[1])) or
                     (self._change_made_before(sent[0], p.i) and "still" not in self.lemmas(p.i - 3, p.i))):
                # "tried AdamW instead, no change", "I switched to bf16, nothing changed": the attempt or the change
                # made changed nothing, no curve is named ("..., still nothing changes" keeps the trouble going)
                continue
            if quantity is None and m in ("not-change", "not-change_verb") and \
                    self.lemmas(p.j, min(p.j + 1, sent[1])) in (["it"], ["this"], ["that"], ["anything"]):
                continue  # "drop_last=True doesn't change it": a remedy that changed nothing, no curve is named
            if m in K.RESTART_MOVES and quantity in (None, "loss") and split in (None, "train") and not negated and \
                    self._at_schedule_restart(i, j):
                # "cosine with restarts, the loss jumps at each restart": the LR going back up is the schedule's
                # design, and the loss answering it is expected, no instability (nor a figure to ask about)
                self.claim(self.tokens[i].start, self.tokens[j - 1].end, K.TROUBLE_NAMES)
                self._expected.append((self.tokens[i].start, self.tokens[j - 1].end))
                self.u.no_guess = True
                continue
            if m == "hang" and quantity is None and self.lemmas(p.i, p.j) == ["nothing", "happen"] and any(
                    q[1] in ("loss", "accuracy") for q in self._quantities(self.parts_in(sent[0], sent[1]))):
                continue  # "nothing happens, the loss stays at 2.3": what does not happen is the curve's, no hang
            if m == "hang" and quantity in ("loss", "accuracy"):
                m = "plateau"  # a curve that "sits there" after a rise stops moving; only a run hangs
            sets = self._compose(quantity, split, m, time, tags, subject)
            if sets is None and time is not None:
                sets = self._compose(quantity, split, m, None, tags, subject)
            if sets is None and m in K.RUN_MOVEMENTS and chosen is not None and quantity is not None and \
                    not (i <= chosen[0].i < p.i):
                # "it hangs with 4 GPUs", "300 steps or fewer doesn't learn": a quantity said after the movement
                # or in an earlier clause that it does not fit is not its subject; the run (or its loss) is
                sets = self._compose(None, None, m, time, tags) or self._compose(None, None, m, None, tags)
                chosen = None if sets is not None else chosen
            # a measured quantity said as the movement's subject in its clause owns it ("val accuracy goes to nan",
            # "the LR stays the same"), whatever reads of it
            subject_here = chosen is not None and i <= chosen[0].i < p.i
            owned = subject_here and quantity in K.OWN_MOVERS
            if sets is None and m in K.SELF_MOVEMENTS and quantity is not None and not owned:
                # "with batch 32 it overfits": the run overfits, whatever setting was named near it
                sets = self._compose(None, None, m, time, tags) or self._compose(None, None, m, None, tags)
                chosen = None
            if sets is None:
                if subject_here and quantity in K.UNGUESSED_MOVERS and not negated:
                    # no composition reads it: nothing of the run is said by it (a cue of the same words is not the
                    # run's either, nor is the trouble guessed from them when nothing else is read)
                    self.claim(min(p.start, chosen[0].start), p.end, ("symptom", "loss_behavior"))
                    self.u.no_guess = True
                continue
            if sets.get("symptom") == "hang" and self._resumes(p.j, sent[1]):
                # "nothing happens for a minute, then it runs fast": a pause that ends is a slow stretch, no hang
                sets = {"symptom": "slow_training"}
            lo = min(p.start, chosen[0].start) if chosen and chosen[0].i >= i else p.start
            hi = max(p.end, chosen[0].end) if chosen and chosen[0].i >= i else p.end
            if time is not None and self._time_span is not None:
                # the words that placed it in time are part of what gave it ("NaN after 3 epochs")
                lo, hi = min(lo, self._time_span[0]), max(hi, self._time_span[1])
            sets = dict(sets)
            if quantity == "accuracy" and chosen is not None and self._other_metric(chosen[0]):
                # "the F1 score stays at 0": the metric moves as an accuracy would, but it is not the accuracy
                sets.pop("metric_kind", None)
                if not sets:
                    continue
            if quantity == "loss" and sets.get("symptom") in ("not_learning", "convergence") and chosen is not None \
                    and self._loss_term(chosen[0], sent):
                # "the auxiliary loss stays where it started", "one of my two losses is stuck": one term of a
                # combined objective left behind is the balance of the terms, not the whole curve's shape
                sets = {"symptom": "multi_task"}
            if sets.get("symptom") == "hang":
                onset = self._hang_onset(time, step, sent, p.i)
                if onset is not None:
                    sets["hang_onset"] = onset
            if sets.get("loss_behavior") == "nan_or_inf" and step is not None and step > 0:
                sets["nan_step"] = step
            if quantity == "loss" and split == "train" and sets.get("loss_behavior") in ("nan_or_inf", "diverging"):
                self._train_unstable = True
            self.add(sets, lo, hi, hedged=hedged, fallback=set(sets) <= K.FALLBACK_NAMES or m in K.FALLBACK_MOVEMENTS)
            if m == "weird":
                # odd how? a curve that does not behave, or a figure computed wrong: the user says which
                what = "accuracy" if quantity == "accuracy" else "loss"
                self.u.confirm.append(("weird", f"You said the {what} looks odd: does it not move as it should "
                                                f"(stuck, rising, jumping), or does its value look computed wrong "
                                                f"(impossible, or not matching what the model does)?"))
            if quantity == "loss" and split is None and m in ("up", "worse") and \
                    sets.get("loss_behavior") == "diverging":
                # most who say "the loss goes up" mean the training loss; some mean the validation loss (overfitting)
                self.u.confirm.append(("loss up", "You said the loss goes up: the training loss, or only the "
                                                  "validation loss (the training loss still falling)?"))
            if m in K.CLAIMS_BY_MOVEMENT:
                self.claim(self.tokens[i].start, self.tokens[j - 1].end, K.CLAIMS_BY_MOVEMENT[m])
            if "symptom" in sets or "loss_behavior" in sets:
                # the composed reading owns its words: a single-word cue inside them reads nothing else
                self.claim(lo, hi, ("symptom", "loss_behavior"))
        things = [q for q in quantities if not self._as_time(q[0])]
        if any(not self._than_object(q[0]) for q in things):
            # ("val loss is higher than train loss, and keeps rising": what was compared against is no antecedent)
            things = [q for q in things if not self._than_object(q[0])]
        if things and not others:  # (another person's quantity is no antecedent of "it")
            state["last"] = things[-1]
        elif things:
            state["others_last"] = things[-1]  # (but of "mine": the user's own of the same quantity)
        self._idioms(parts)

    def _purpose_from(self, p: Part, sent: tuple[int, int]) -> int:
        """Where the purpose or reason said of movement ``p`` starts ("to" or "because"), else ``p.i``.

        A purpose is "to" + a verb of remedy (``K.PURPOSE_VERBS``) before the movement, a few light words between
        ("to avoid any NaNs"), unless the word before the "to" makes it a wish or a question ("how to prevent
        overfitting"); a reason is "because of", "due to" or "against" right before it.
        """
        k = p.i
        while k > sent[0] and self.tokens[k - 1].lemma in _PURPOSE_FILLERS:
            k -= 1
        for lead in K.PURPOSE_CAUSES:
            # (a reason may open the sentence before the bounds its reading starts at: "because of X I did Y")
            if k - len(lead) >= 0 and tuple(self.lemmas(k - len(lead), k)) == lead:
                return k - len(lead)
        if k - 2 >= sent[0] and self.tokens[k - 1].lemma in K.PURPOSE_VERBS and self.tokens[k - 2].lemma == "to" \
                and not (k - 3 >= sent[0] and self.tokens[k - 3].lemma in K.PURPOSE_ASKERS):
            return k - 2
        return p.i

    def _purpose(self, p: Part, sent: tuple[int, int]) -> bool:
        """Whether movement ``p`` is a purpose or reason (:meth:`_purpose_from`) with the run's trouble said after it.

        Only a later movement in another clause of the sentence ("... and now the loss is flat") makes the one in
        the purpose past trouble: alone ("I added dropout to reduce overfitting") it is still the run's.
        """
        if self._purpose_from(p, sent) == p.i:
            return False
        end = _clause_end(self.tokens, p.j - 1)
        return any("m" in o.roles or "idiom" in o.roles for o in self.parts_in(end, sent[1]))

    def _than_split(self, than: int, parts: list[Part]) -> bool:
        """Whether the "than" at token ``than`` sets a split against another ("higher than the training loss")."""
        k = than + 1
        while k < len(self.tokens) and self.tokens[k].kind == "word" and self.tokens[k].lemma in _THAN_FILLERS:
            k += 1
        return any("s" in o.roles and o.i == k for o in parts)

    def _than_object(self, q: Part) -> bool:
        """Whether quantity part ``q`` is what a comparison is set against ("higher than the train loss", "> train")."""
        k = q.i - 1
        while k >= 0 and self.tokens[k].kind == "word" and self.tokens[k].lemma in _THAN_FILLERS:
            k -= 1
        return k >= 0 and (self.tokens[k].lemma == "than" or self.tokens[k].text in (">", "<"))

    def _stall_level(self, p: Part, parts: list[Part]) -> bool:
        """Whether movement ``p`` is a comparative that places the stall said right before it ("plateaus higher").

        "the loss plateaus at a higher value than before", "it settles much lower", "gets stuck at a worse level":
        the comparative says where the curve stopped, not that it rises or falls (a plateau, not a divergence).
        """
        if self.tokens[p.i].text.lower() not in _LEVEL_WORDS:
            return False
        k = p.i - 1
        while k >= 0 and self.tokens[k].kind == "word" and self.tokens[k].lemma in _LEVEL_FILLERS:
            k -= 1
        return any(o.roles.get("m") in _STALLS | {"converge", "settle"} and o.j == k + 1 for o in parts)

    def _at_schedule_restart(self, i: int, j: int) -> bool:
        """Whether clause ``[i, j)`` places what moves at a restart of the LR schedule the text names.

        The clause names a restart or a cycle ("at the restarts", "each cycle") and the text a schedule that
        restarts (``knowledge.talk.RESTART_SCHEDULE``: SGDR, warm restarts, a cyclic LR): a restart of the run
        from a checkpoint is no such thing.
        """
        if self._restart_schedule is None:
            self._restart_schedule = _RESTART_SCHEDULE.search(self.text) is not None
        if not self._restart_schedule:
            return False
        if (i, j) not in self._restart_clauses:  # (once per clause: a long clause holds many movements)
            # (a clause naming the job, the run or its checkpoint restarts the run: "at each restart of the job")
            words = {t.lemma for t in self.tokens[i:j]} | {t.text.lower() for t in self.tokens[i:j]}
            self._restart_clauses[i, j] = bool(words & K.SCHEDULE_RESTART_WORDS) and \
                not words & K.RUN_RESTART_WORDS
        return self._restart_clauses[i, j]

    def _hang_onset(self, time: str | None, step: int | None, sent: tuple[int, int], at: int) -> str | None:
        """Where a hang at token ``at`` of sentence ``sent`` happens: the first step, mid-run, an epoch boundary.

        "hangs at the first batch": the first step; "hangs at the start of every epoch", "at the end of the epoch": the
        boundary; "hangs at
        step 1200", "hangs after 3 epochs", "trains for 2 epochs and then hangs": mid-run. A later time said only
        by the resume ("after resuming it hangs") places the hang after the restart, not after any step: unknown.
        """
        if time == "start":
            # "hangs at the first step after 2 epochs", "after 500 steps it hangs at the first step of the next
            # epoch": the first step of a later stretch, not of the run
            return self._later_first_step(sent) or "first_step"
        if time in ("epoch_start", "each_epoch", "epoch_end"):
            return "epoch_boundary"
        if time != "later":
            return None
        span = self._time_span
        if span is not None:
            a, b = bisect_left(self._token_starts, span[0]), bisect_left(self._token_starts, span[1])
            # "hangs after resuming from step 5000", "after resuming from the step 5000 checkpoint": the step is
            # where the run restarted, not a stretch the restarted run has trained (its onset stays unknown)
            near = self.tokens[max(sent[0], a - K.RESUME_SPAN_REACH):min(sent[1], b + 1)]
            if not any(t.text.lower().startswith(K.RESTART_STEMS) for t in near):
                if step is not None and step <= 1:
                    return "first_step"  # "hangs at step 1": the run never got past its first step
                return "mid_run"
        # a stretch of training counted before the hang in its sentence ("trains for 2 epochs and then hangs",
        # "runs fine for 3 hours, then freezes"): the run had taken steps
        for k in range(max(sent[0] + 1, at - K.OWNER_REACH), at):
            if self.tokens[k - 1].kind == "num" and self.tokens[k].lemma in K.TRAINED_SPANS:
                return "mid_run"
        return None

    def _later_first_step(self, sent: tuple[int, int]) -> str | None:
        """Where a hang "at the first step" of sentence ``sent`` happens when the sentence counts training before it.

        "after 2 epochs it hangs at the first step", "hangs at the first step of the next epoch": an epoch named as
        next, new or each is the epoch boundary; a count of steps or epochs after "after" is mid-run; else None.
        """
        toks = self.tokens
        for k in range(sent[0], sent[1]):
            if toks[k].lemma in _EPOCH_WORDS and k > sent[0] and toks[k - 1].lemma in K.EPOCH_TURN_WORDS:
                return "epoch_boundary"
        for k in range(sent[0] + 1, sent[1] - 1):
            if toks[k].kind == "num" and toks[k].number and toks[k + 1].lemma in _STEP_OR_EPOCH_WORDS and \
                    toks[k - 1].lemma in ("after", "for"):
                return "mid_run"
        return None

    def _in_use(self, sent: tuple[int, int], i: int, j: int) -> bool:
        """Whether a speed said in clause ``[i, j)`` is of the model in use.

        The sentence names serving or inference (``SERVING_WORDS``) and the clause no training (``TRAINING_WORDS``).
        """
        def said(t: Token, stems: frozenset[str]) -> bool:
            return any(w in stems or any(s.endswith("*") and w.startswith(s[:-1]) for s in stems)
                       for w in (t.text, t.lemma))

        return any(said(t, K.SERVING_WORDS) for t in self.tokens[sent[0]:sent[1]]) and \
            not any(t.lemma in K.TRAINING_WORDS for t in self.tokens[i:j])

    def _range_bound(self, p: Part, i: int, j: int) -> bool:
        """Whether the NaN word ``p`` is one end of a range of values ("between nan and 5", "from 0 to nan").

        Looked for in tokens ``[i, j)``, its sentence ("and" cuts clauses). The other end is a number, joined by a
        range link (``NAN_RANGE_LINKS``): "NaN or Inf" is no range.
        """
        toks = self.tokens

        def value(k: int) -> bool:
            return i <= k < j and toks[k].kind == "num"

        def link(k: int) -> bool:
            return i <= k < j and toks[k].text in K.NAN_RANGE_LINKS

        return (link(p.i - 1) and value(p.i - 2)) or (link(p.j) and value(p.j + 1))

    def _resumes(self, k: int, hi: int) -> bool:
        """Whether the sentence goes on, after token ``k``, to say the run then moves on (``RESUME_WORDS``).

        Only "then"/"afterwards" open that: "freezes after epoch 1" places the freeze, it says no resumption.
        """
        then = next((n for n in range(k, hi) if self.tokens[n].lemma in ("then", "afterwards")), None)
        return then is not None and any(self.tokens[n].lemma in K.RESUME_WORDS and not self._negated(n, then)
                                        for n in range(then + 1, min(hi, then + 1 + RESUME_REACH)))

    def _judged_gap(self, judged: dict[str, tuple[int, int]]) -> None:
        """A figure judged good on the training data and bad on held-out data in one sentence is overfitting.

        "train acc is great but val acc is trash": neither judgement has a shape, together they are the gap.
        """
        if "train_good" in judged and "val_bad" in judged:
            (a, b), (c, d) = judged["train_good"], judged["val_bad"]
            self.add({"symptom": "overfitting"}, min(a, c), max(b, d))

    def _idioms(self, parts: list[Part]) -> None:
        for p in parts:
            if "idiom" in p.roles and (p.roles["idiom"] in K.IDIOMS_UNDER_NEGATION or
                                       not self._negated(p.i, max(0, p.i - 3))):
                sets = K.IDIOMS[p.roles["idiom"]]
                self.add(sets, p.start, p.end, fallback=set(sets) <= K.FALLBACK_NAMES)
                if p.roles["idiom"] in K.IDIOM_CLAIMS:
                    self.claim(p.start, p.end, K.IDIOM_CLAIMS[p.roles["idiom"]])

    def _values(self, lo: int, hi: int) -> None:
        """Numbers said next to a quantity in a sentence: train/val accuracy, the data-time share.

        A training accuracy well above the validation accuracy (10 points or more) is the overfitting reading.
        """
        quantities = self._quantities(self.parts_in(lo, hi))
        used: set[int] = set()
        metrics: dict[str, float] = {}
        kinds: dict[str, str] = {}
        prev, other = None, False
        for p, q, split in quantities:
            if q == "split_only" and prev == "accuracy":
                q = "accuracy"  # "accuracy on train = 96%, on validation = 68%"
            elif q == "accuracy":
                other = self._other_metric(p)  # ("F1 on train 0.9, on validation 0.1": the split's F1 too)
            prev = q if q != "split_only" else prev
            if q not in ("accuracy", "data_time", "data_time_weak"):
                continue
            if self._others_run(clause_start(self.tokens, p.i), p.i):
                continue  # "the paper reports mAP 0.9 on val", "the paper's val F1 is 0.4": another's figure
            if q == "accuracy" and other and (split not in ("train", "val") or self._lower_better(p)):
                continue  # "my F1 score is 0.0": a figure of another metric, no accuracy, and of no split
            # (not a number said right after another quantity: in "acc 0.96 (loss 0.11) but val_acc 0.049" the
            # 0.11 is the loss's)
            # (a counted thing, "4 gpus", is no quantity a figure after it belongs to)
            def counted(o: Part) -> bool:
                return o.i > lo and self.tokens[o.i - 1].kind == "num" and self.tokens[o.j - 1].lemma in _COUNTED

            others = {o.j for o, oq, _s in quantities if o is not p and oq != q and not counted(o)}
            # (nor a count of something else: "not increasing since 10 epochs", "5 classes")
            # (nor a number with another quantity between it and this one: in "a new dataloader, and the accuracy
            # dropped from 90% to 60%" the figures are the accuracy's, the nearer quantity's)
            between = [(o.i, o.j) for o, oq, _s in quantities
                       if o is not p and oq not in (q, "pronoun", "run", "model") and not counted(o)]
            # (nor a number in another clause whose own quantity it sits beside: in "GPU is fully used (~95%),
            # dataloader is not the issue" the 95% is the GPU's)
            # (only a figure said before this quantity, across a clause break that is no "name: value" colon: a log
            # line's "accuracy: 0.99 - val_loss: 1.8" keeps its figures after their names)
            def cut(a: int, b: int) -> bool:
                return any(_breaks(self.tokens[n]) and self.tokens[n].text != ":"
                           for n in range(min(a, b) + 1, max(a, b)))

            # (a quantity of the same kind counts there too: in "val accuracy is stuck at 0.5 while training
            # accuracy improves" the 0.5 is the validation accuracy's, in its own clause)
            owners = between + [(o.i, o.j) for o, oq, os_ in quantities
                                if o is not p and oq == q and os_ != split and not counted(o)]

            def elsewhere(k: int, p: Part = p, owners: list[tuple[int, int]] = owners) -> bool:
                return k < p.i and cut(k, p.i) and any(not cut(k, i if k < i else j - 1) for i, j in owners)

            # (a moment said after the quantity does not use up its reach: "test acc was best at epoch 8 (72%)")
            moments = sum(1 for k in range(p.j, min(hi, p.j + 7)) if self._time_index(k, lo) or (
                k + 1 < hi and self._time_index(k + 1, lo)))
            near = [t for k, t in enumerate(self.tokens[max(lo, p.i - 6):min(hi, p.j + 5 + moments)], max(lo, p.i - 6))
                    if t.kind == "num" and t.start not in used and not (others & {k, k - 1}) and
                    not (k + 1 < hi and self.tokens[k + 1].lemma in _COUNTED) and not self._time_index(k, lo) and
                    not self._setting_number(k, lo, p) and not self._relative(k, hi) and not self._moved_by(k, lo) and
                    not self._left_value(k, lo, hi) and
                    not any(p.j <= i and j <= k or k < i and j <= p.i for i, j in between) and not elsewhere(k)]
            if not near:
                continue
            num = min(near, key=lambda t: min(abs(t.start - p.end), abs(p.start - t.end)))
            value = num.number
            if value is None:
                continue
            after_num = self.text[num.end:num.end + 20].strip()
            if after_num.startswith(("point", "pp", "percentage point")):
                continue  # "20 points below train" is a gap, not an accuracy
            if self.text[max(0, num.start - 6):num.start].rstrip().lower().endswith(" than"):
                continue  # "val accuracy comes out bigger than 1.0": the bound it is compared with, not its value
            if after_num.lstrip("%").lstrip().startswith("|"):
                continue  # "Validation DataLoader 0: 100%|█████| 50/50": a progress bar's share done, no metric
            pct = num.unit == "%" or after_num.startswith(("percent", "%"))
            frac = value / 100.0 if (pct or value > 1.0) else value
            if not 0.0 <= frac <= 1.0:
                continue
            span = (min(p.start, num.start), max(p.end, num.end))
            if q == "accuracy" and split is None and any(oq == "accuracy" and os_ == "val"
                                                         for _o, oq, os_ in quantities):
                split = "train"  # "loss: 0.01 - accuracy: 0.99 - val_accuracy: 0.62": the bare one is training's
            if q == "accuracy" and split in ("train", "val"):
                used.add(num.start)
                # ("train F1 0.95, val F1 0.2": a score of a split, higher better as an accuracy, gap and all)
                kind = "score" if other else "accuracy"
                if kinds.setdefault("kind", kind) != kind:
                    continue  # "train accuracy 0.9, val F1 0.4": two metrics, no gap between them
                metrics[split] = frac
                self.add({f"{split}_metric": frac, "metric_kind": kind}, *span)
                if split == "train" and frac >= 0.9:
                    self._judged.setdefault("train_good", span)  # "training accuracy 99%, validation sucks"
            elif q.startswith("data_time") and (pct or value <= 1.0) and \
                    after_num.split(" ", 1)[0] not in K.TIME_UNITS and \
                    not (num.start > p.end and not pct and after_num.startswith(":") and float(value).is_integer()):
                # ("data_time 0.217 s per batch" is a time; Lightning's "Sanity Checking DataLoader 0: 100%" numbers
                # the loader, a label's index and no share of the step)
                used.add(num.start)
                self.add({"data_time_fraction": frac}, *span)
                if frac >= 0.3:
                    self.add({"symptom": "slow_training"}, *span, strong=False)
        # (a share said of what the machine does, "GPU usage drops to 30% during validation", "memory at 90% in
        # training": the percentage is that measure's, no score of the split named beside it)
        if not metrics and not any(q in ("loss", "accuracy") or q in K.SHARE_OWNERS for _p, q, _s in quantities):
            metrics = self._split_shares(lo, hi)
        if len(metrics) == 2 and metrics["train"] - metrics["val"] >= 0.1:
            self.add({"symptom": "overfitting"}, self.tokens[lo].start, self.tokens[hi - 1].end)
        self._classes(lo, hi)
        self._world_size(lo, hi)
        self._metric_by_world(lo, hi, quantities)
        self._huge_norm(lo, hi, quantities)
        self._calm_norm(lo, hi, quantities)
        self._huge_loss(lo, hi, quantities)
        self._constant_loss(lo, hi, quantities)
        self._loss_scale(lo, hi, quantities)
        self._gpu_share(lo, hi, quantities, used)
        self._data_share(lo, hi)
        self._durations(lo, hi)
        self._rates(lo, hi)
        self._repeats(lo, hi, quantities)

    def _time_index(self, k: int, lo: int) -> bool:
        """Whether the number at token ``k`` numbers a moment of the run ("at epoch 10", "step 2000", "iter #300").

        A number right after an epoch or step word (a "#" or "no." may stand between) is when something happened:
        "val acc peaks at epoch 10 then drops" gives no accuracy of 10%.
        """
        n = k - 1
        while n >= lo and n > k - 3 and self.tokens[n].text in ("#", "no", "no.", "number", "nr"):
            n -= 1
        return n >= lo and (self.tokens[n].lemma in _EPOCH_WORDS or self.tokens[n].lemma in _STEP_WORDS - {"it"})

    def _moved_by(self, k: int, lo: int) -> bool:
        """Whether the number at token ``k`` is the amount a verb before it moved by (``AMOUNT_VERBS``).

        "val acc drops 5%", "accuracy fell by about 3%": the size of the move, no level of the metric ("drops to 5%"
        names the level: its "to" stands between).
        """
        n = k - 1
        while n >= lo and n > k - 3 and (self.tokens[n].lemma in K.AMOUNT_FILLERS or self.tokens[n].text == "~"):
            n -= 1
        return n >= lo and self.tokens[n].lemma in K.AMOUNT_VERBS

    def _left_value(self, k: int, lo: int, hi: int) -> bool:
        """Whether the number at token ``k`` is the value a change left ("dropped from 80% to 60%": the 80%).

        The number right after "from" with a "to" and another number after it: the later one is the figure now.
        """
        toks = self.tokens
        return k > lo and toks[k - 1].lemma == "from" and any(
            toks[n].lemma in ("to", "into") and n + 1 < hi and toks[n + 1].kind == "num"
            for n in range(k + 1, min(hi, k + 3)))

    def _relative(self, k: int, hi: int) -> bool:
        """Whether the number at token ``k`` compares one figure with another instead of giving one.

        A multiplier ("8x lower", "3 times higher", "2-fold"), either side of a fraction ("1/4 of one GPU's") or
        a number right before a comparative ("5 lower than train", "10 points below") sizes the quantity against
        another run or split: the ratio is a comparison's, never the quantity's value.
        """
        t = self.tokens[k]
        if t.unit in ("x", "\u00d7"):
            return True
        if k > 1 and self.tokens[k - 1].text == "/" and self.tokens[k - 2].kind == "num":
            return True
        nxt = self.tokens[k + 1] if k + 1 < hi else None
        if nxt is None:
            return False
        if nxt.text == "/" and k + 2 < hi and self.tokens[k + 2].kind == "num":
            return True
        if nxt.lemma in ("time", "fold", "x") and t.unit != "%":
            return True  # "3 times lower", "2 fold", "4 x worse"
        if nxt.lemma in _GAP_PLACES or (nxt.lemma in ("short", "ahead") and k + 2 < hi and
                                        self.tokens[k + 2].lemma == "of"):
            return True  # "2% below the baseline", "3 points behind the paper", "1% short of it": a gap's size
        return nxt.lemma in _COMPARE and nxt.lemma not in ("over", "above", "under", "below", "<", ">") and \
            k + 2 < hi and self.tokens[k + 2].lemma == "than"

    def _setting_number(self, k: int, lo: int, own: Part) -> bool:
        """Whether the number at token ``k`` is a setting's value, not a figure of the quantity ``own``.

        Walking back over links and the other numbers of a change ("num_workers > 0", "batch size of 64",
        "NUM_WORKERS from 1 to 4"), the first word is a setting's name (``knowledge.talk.SETTING_WORDS``) or a
        config key (a word joined by "_" or "." to the next): the number is that setting's.
        """
        strict = True  # only a change's own links so far ("gpus (1 -> 4)"), no verb such as "is"
        for n in range(k - 1, max(lo, k - 7) - 1, -1):
            t = self.tokens[n]
            if t.kind == "num" or t.text in K.SETTING_NUMBER_LINKS or t.lemma in K.SETTING_NUMBER_LINKS:
                strict = strict and (t.kind == "num" or t.text in K.CHANGE_LINKS or t.lemma in K.CHANGE_LINKS)
                continue
            if own.i <= n < own.j or t.kind != "word":
                return False
            if strict and t.lemma in K.COUNTED_SETTINGS:
                return True  # "more gpus (1 -> 4)": the count of devices changed
            if t.lemma in _COUNTED and n > lo and self.tokens[n - 1].kind == "num":
                return False  # "on 4 gpus is 80%": the noun has its count already, the later figure is not it
            joined = self.text[max(0, t.start - 1):t.start] in ("_", ".") or self.text[t.end:t.end + 1] in ("_", ".")
            return t.lemma in K.SETTING_WORDS or (joined and self.text[t.end:t.end + 1] != ".")
        return False

    def _nearest_pct(self, lo: int, hi: int, p: Part, reach: int = 5, unbroken: bool = False) -> Token | None:
        """The percentage nearest a part, within ``reach`` tokens either side ("30%", "30 percent").

        ``unbroken``: only one with no clause break between it and the part.
        """
        a, b = max(lo, p.i - reach), min(hi, p.j + reach)
        near = [t for k, t in enumerate(self.tokens[a:b], a) if t.kind == "num" and (
            t.unit == "%" or self.text[t.end:t.end + 9].strip().startswith("percent")) and not (
            unbroken and any(_breaks(u) for u in self.tokens[min(k + 1, p.j):max(k, p.i)]))]
        return min(near, key=lambda t: min(abs(t.start - p.end), abs(p.start - t.end))) if near else None

    def _split_shares(self, lo: int, hi: int) -> dict[str, float]:
        """"100% on the training data but 60% on test": percentages said of the splits are their accuracy."""
        found: dict[str, tuple[float, int, int]] = {}
        for p in self.parts_in(lo, hi):
            split = p.roles.get("s")
            if split not in ("train", "val") or split in found:
                continue
            # (a figure across a clause break is not the split's: "gpu util 100% but training is slow")
            num = self._nearest_pct(lo, hi, p, reach=4, unbroken=True)
            value = num.number if num is not None else None
            if value is None or not 0.0 <= value <= 100.0 or any(num.start == f[1] for f in found.values()):
                continue
            if self.text[num.end:num.end + 3].lstrip("% ").startswith("|"):
                continue  # "Validation DataLoader 0: 100%|█████|": a progress bar's share done, no accuracy
            if self.text[num.end:num.end + 12].lstrip("% ").lower().startswith(("of ", "percent of ")):
                continue  # "60% of training time goes to the loader": a share of what follows, no accuracy
            found[split] = (value / 100.0, num.start, num.end)
            self._split_span = (min(p.start, num.start), max(p.end, num.end))
            if split == "train" and value >= 90.0:
                self._judged.setdefault("train_good", self._split_span)  # "near 100% on the training data"
            self.add({f"{split}_metric": value / 100.0, "metric_kind": "accuracy"}, *self._split_span)
        return {k: v[0] for k, v in found.items()}

    def _gpu_share(self, lo: int, hi: int, quantities: list[tuple[Part, str, str | None]], used: set[int]) -> None:
        """"GPU util is only 30%", "the GPU sits at 25% utilization": the utilization, and low use is slow."""
        for p, q, _split in quantities:
            if q != "gpu_util" or self.lemmas(p.i - 1, p.i) == ["cpu"]:
                continue
            num = self._nearest_pct(lo, hi, p)
            if num is None and set(self.lemmas(p.i, p.j)) & K.MEASURE_WORDS:
                num = self._bare_share(p, hi)  # "GPU util is 30", "utilization sits around 40": a share all the same
            between = [t for t in self.tokens[p.j:min(hi, p.j + 5)] if t.end <= num.start] if num else []
            if num is not None and self.lemmas(p.i, p.j) == ["gpu"] and (num.start < p.start or not between or any(
                    t.kind != "word" or t.lemma not in _GPU_LINK for t in between)):
                continue  # a bare "GPU": only a figure said of it ("the GPU sits at 30%"), not "3 GPUs 29%"
            if p.i > lo and self.tokens[p.i - 1].kind == "num" and any(
                    oq in ("accuracy", "loss", "split_only") for o, oq, _s in quantities if o is not p):
                # "test accuracy on 8 GPUs is 91%": a device count said beside a metric, the figure is the metric's
                continue
            value = num.number if num is not None else None
            if value is None or num.start in used or not 0.0 <= value <= 100.0:
                continue
            if self.text[num.end:num.end + 12].lstrip("% ").lower().startswith(_CHANGE_BY):
                continue  # "3 GPUs work 29% faster": a change by that share, no utilization
            k = next(n for n in range(max(lo, p.i - 5), min(hi, p.j + 5)) if self.tokens[n] is num)
            if k > lo and self.tokens[k - 1].lemma == "from" and k + 2 < hi and self.tokens[k + 1].lemma == "to" \
                    and self.tokens[k + 2].kind == "num" and self.tokens[k + 2].unit == "%" and \
                    self.tokens[k + 2].number is not None and 0.0 <= self.tokens[k + 2].number <= 100.0:
                # "went from 90% to 30%": the level it is at now is the later one
                num, value = self.tokens[k + 2], self.tokens[k + 2].number
            elif k >= lo + 2 and self.tokens[k - 1].lemma in ("and", "to", "-") and self.tokens[k - 2].kind == "num":
                continue  # "swings between 0 and 100%": the bounds of a swing, neither of them its level
            used.add(num.start)
            span = (min(p.start, num.start), max(p.end, num.end))
            self.add({"gpu_utilization_pct": value}, *span)
            if value < 50.0:
                self.add({"symptom": "slow_training"}, *span, strong=False)
            return

    def _bare_share(self, p: Part, hi: int) -> Token | None:
        """A number with no unit said as the value of a utilization named at ``p`` ("GPU util is 30"), or None.

        Only words of ``_GPU_LINK`` may stand between; the number is whole-valued in [0, 100] and no unit, count or
        second figure follows it ("util is 30 GB", "30 it/s", "30 of 40": ``knowledge.talk.SHARE_UNITS``).
        """
        toks = self.tokens
        for k in range(p.j, min(hi, p.j + 4)):
            t = toks[k]
            if t.kind == "num":
                after = toks[k + 1] if k + 1 < hi else None
                if t.unit or t.number is None or not 0 <= t.number <= 100 or t.number != int(t.number) or (
                        after is not None and (
                        after.kind == "num" or after.text in ("/", "x") or after.lemma in _COUNTED or
                        after.lemma in K.SHARE_UNITS)):
                    return None
                return t
            if t.kind != "word" or t.lemma not in _GPU_LINK:
                return None
        return None

    def _loss_scale(self, lo: int, hi: int, quantities: list[tuple[Part, str, str | None]]) -> None:
        """"the loss scale drops to 1e-4": a loss scale below 1 has collapsed (it starts at 2**16)."""
        for p, q, _split in quantities:
            if q != "loss_scale":
                continue
            nums = [t for k, t in enumerate(self.tokens[p.j:min(hi, p.j + 6)], p.j) if t.kind == "num" and
                    not t.unit and self.tokens[k - 1].lemma in ("to", "=", ":", "be", "at", "of", "reach", "hit")]
            value = nums[0].number if nums else None
            if value is not None and 0.0 <= value < 1.0:
                self.add({"symptom": "unstable", "loss_scale_issue": True}, p.start, nums[0].end)
                return

    def _huge_loss(self, lo: int, hi: int, quantities: list[tuple[Part, str, str | None]]) -> None:
        """"loss values like 1e+20": a loss in the millions has diverged."""
        for p, q, split in quantities:
            if q != "loss" or split == "val":
                continue
            nums = [t for t in self.tokens[p.j:min(hi, p.j + 5)] if t.kind == "num" and not t.unit]
            value = nums[0].number if nums else None
            if value is not None and value >= K.HUGE_LOSS:
                self.add({"symptom": "unstable", "loss_behavior": "diverging"}, p.start, nums[0].end)
                return

    def _constant_loss(self, lo: int, hi: int, quantities: list[tuple[Part, str, str | None]]) -> None:
        """One value the loss is said to hold over the run: a flat loss, from its start.

        "loss is always 10.375", "the loss stays at exactly 2.3026 every step", "every epoch the loss is 0.693": the
        training loss, linked (``CONSTANT_LINKS``) to a single number, in a sentence that says the value holds for
        the whole run (``CONSTANT_MARKERS``, or "every" / "each" / "all" before a unit of training). A loss of 0 is
        the zero-loss reading's; a bound ("always above 2": ``BOUND_WORDS``), two numbers (a move, "from 0.7 to
        0.6"), a validation loss or a negated sentence read nothing here.
        """
        toks = self.tokens
        lemmas = [t.lemma for t in toks[lo:hi]]
        marked = set(lemmas) & K.CONSTANT_MARKERS
        whole = any(a in K.CONSTANT_WHOLE and (b in K.SPAN_EPOCHS or b in K.SPAN_STEPS or b == "time")
                    for a, b in zip(lemmas, lemmas[1:]))
        if not (marked or whole) or set(lemmas) & K.BOUND_WORDS or "after" in lemmas:
            return  # (a value "after 10 epochs" is the loss at that time, "always" then of every run)
        if "val" in {K.SPLITS[w] for w in lemmas if w in K.SPLITS} and not {"train", "training"} & set(lemmas):
            return  # ("the loss is always 10.375 on the validation set": the validation loss, not the training one)
        if any(a == "at" and (b in K.SPAN_STEPS or b in K.SPAN_EPOCHS or b in _POINT_WORDS or
                              (b == "the" and c in _POINT_WORDS))
               for a, b, c in zip(lemmas, lemmas[1:], lemmas[2:] + [""])):
            return  # ("always 0.693 at step 0", "at the start": one point of the run, the loss at init, not a flat run)
        nums = [k for k in range(lo, hi) if toks[k].kind == "num" and not toks[k].unit and
                not (k + 1 < hi and (toks[k + 1].lemma in _COUNTED or toks[k + 1].lemma in K.SPAN_EPOCHS or
                                     toks[k + 1].lemma in K.SPAN_STEPS)) and
                not (k > lo and (toks[k - 1].lemma in K.SPAN_EPOCHS or toks[k - 1].lemma in K.SPAN_STEPS))]
        if len(nums) > 1:
            # (a log line holds other figures beside the loss's: "{'loss': 0.6931, 'rewards/chosen': 0.0}" at every
            # step keeps the one its name labels, a number right after "loss" and its colon or "=")
            nums = [k for k in nums if any(q == "loss" and split != "val" and 0 < k - p.j <= 2 and all(
                t.text in _LABEL_LINKS for t in toks[p.j:k]) for p, q, split in quantities)]
        if len(nums) != 1 or not toks[nums[0]].number:
            return
        k = nums[0]
        for p, q, split in quantities:
            if q != "loss" or split == "val":
                continue
            gap = toks[p.j:k] if k >= p.j else toks[k + 1:p.i]
            neg_at = min(p.i, k)
            ands = [n for n, t in enumerate(gap) if t.lemma == "and"]
            if k >= p.j and ands and {t.lemma for t in gap[:ands[-1]]} <= K.STILL_DENIALS and \
                    {t.lemma for t in gap[:ands[-1]]} & K.NEGATORS:
                # ("loss does not change and sticks at 0.6931": a denied change coordinated with the held value;
                # the value's own predicate is the link, and the denial is no denial of the flat loss)
                gap, neg_at = gap[ands[-1] + 1:], k
            if len(gap) > 6 or any(t.lemma not in K.CONSTANT_LINKS and t.lemma not in K.CONSTANT_MARKERS and
                                   t.lemma not in K.CONSTANT_WHOLE and t.lemma not in K.SPAN_EPOCHS and
                                   t.lemma not in K.SPAN_STEPS and t.lemma not in ("my", "our", "training", "train",
                                                                                   "the", "every", "each")
                                   for t in gap):
                continue
            # ("always" said of the loss and its value, not of the runs: "I always get loss 2.3")
            near = {t.lemma for t in toks[max(lo, min(p.i, k) - 1):min(hi, max(p.j, k + 1) + 3)]}
            if not whole and not near & K.CONSTANT_MARKERS:
                continue
            if self._negated(neg_at, lo) or self._others_run(lo, min(p.i, k)):
                return  # (nor another's run: "in the paper the loss is always 0.693", "the authors say ...")
            self.add({"symptom": "not_learning", "loss_behavior": "flat_from_start"},
                     toks[min(p.i, k)].start, toks[max(p.j - 1, k)].end)
            return

    def _huge_norm(self, lo: int, hi: int, quantities: list[tuple[Part, str, str | None]]) -> None:
        """"grad norm is like 1e5": a gradient norm in the thousands is an exploding one."""
        for p, q, _split in quantities:
            if q not in ("grad_norm", "grad_norm_bare"):
                continue
            nums = [t for t in self.tokens[p.j:min(hi, p.j + 4)] if t.kind == "num" and not t.unit]
            value = nums[0].number if nums else None
            if value is not None and value >= K.HUGE_GRAD_NORM:
                self.add({"grad_norm_trend": "exploding"}, p.start, nums[0].end)
                return

    def _calm_norm(self, lo: int, hi: int, quantities: list[tuple[Part, str, str | None]]) -> None:
        """"the grad norm was 0.09 right before it went nan": a small gradient norm said before a NaN is calm.

        The first number after the norm (``CALM_GRAD_NORM``), with a NaN said after it in the sentence and no
        growth between ("grew from 0.5 to 1e5 then nan" grew), reads the norm's course before the NaN as normal.
        """
        toks = self.tokens
        for p, q, _split in quantities:
            if q not in ("grad_norm", "grad_norm_bare", "grad"):
                continue
            k = next((k for k in range(p.j, min(hi, p.j + 5)) if toks[k].kind == "num"), None)
            if k is None or toks[k].unit or toks[k].number is None or toks[k].number >= K.CALM_GRAD_NORM:
                continue
            nan_at = next((m for m in range(k + 1, hi) if toks[m].lemma in K.NAN_WORDS), None)
            if nan_at is None or set(self.lemmas(p.i, nan_at)) & K.GROWTH_WORDS or self._negated(p.i, lo):
                continue
            self.add({"grad_norm_trend": "normal"}, p.start, toks[k].end)
            return

    def _classes(self, lo: int, hi: int) -> None:
        """"10 classes", "num_classes=5", "a 3-class problem": the number of classes."""
        for k in range(lo, hi):
            t = self.tokens[k]
            value = t.number
            if value is None or t.unit or not 2 <= value <= 1_000_000 or value != int(value):
                continue
            nxt = self.lemmas(k + 1, k + 2)
            prev = self.lemmas(k - 3, k)
            if nxt and self._class_size(k, hi):
                continue  # "2400 class 1", "300 of label 'cat'": examples of one class counted, not classes
            if (nxt and nxt[0] in K.CLASS_NOUNS and self.lemmas(k - 1, k) != ["of"]) or \
                    (len(prev) == 3 and prev[1] in K.CLASS_NOUNS and prev[2] in ("=", ":") and prev[0] in
                     ("num", "n", "number")):
                first = k - 3 if len(prev) == 3 and prev[2] in ("=", ":") else k
                self.add({"num_classes": int(value)}, self.tokens[first].start,
                         self.tokens[k + 1].end if first == k else t.end)
                if first == k or prev[1] != "label":
                    return
                # (a head's config count, "num_labels=2", may be contradicted by the classes said after it:
                # _head_short_of_classes weighs them)

    def _class_size(self, k: int, hi: int) -> bool:
        """Whether number ``k`` counts the examples of one class: "2400 class 1", "2600 of class 0", "500 label b".

        The class noun then names one class (singular, an id after it) rather than counting classes: "10 classes", a
        "3-class problem" and "10 class classification" have no id after the noun.
        """
        toks = self.tokens
        at = k + 1
        if at < hi and toks[at].lemma in ("of", "in", "from"):
            at += 1
        if at + 1 >= hi or toks[at].lemma not in K.CLASS_NOUNS or toks[at].text.lower() != toks[at].lemma:
            return False
        ident = toks[at + 1]
        return ident.kind == "num" or (ident.kind == "word" and len(ident.text) <= 2 and ident.text.isalnum()
                                       and ident.lemma not in K.CLASS_ID_FILLERS)

    def _world_size(self, lo: int, hi: int) -> None:
        """"on 4 GPUs", "with eight gpus", "2 nodes x 8 GPUs": how many processes train together.

        The largest count of GPUs said in the sentence is the run's (a healthy single-GPU run said beside it is the
        baseline: "works on 1 GPU, fails on 4"); a count of nodes said beside a per-node GPU count multiplies it.
        A GPU numbered after its noun ("GPU 0") is a device index, not a count; nodes multiply only a count said
        beside them ("a graph of 100 nodes, trained on 4 GPUs" is 4).
        """
        toks = self.tokens
        counts: list[tuple[int, int]] = []
        nodes: int | None = None
        node_at: int | None = None
        for k in range(lo + 1, hi):
            prev = toks[k - 1]
            if prev.kind == "num" and prev.number is not None and 2 <= prev.number <= 100_000 and \
                    prev.number == int(prev.number) and not prev.unit:
                n: int | None = int(prev.number)
            elif prev.lemma in K.VAGUE_COUNTS:
                continue  # "several GPUs", "multiple gpus": more than one, how many unsaid (multi_gpu is read apart)
            else:
                n = K.NUMBER_WORDS.get(prev.lemma)
            card = toks[k].lemma == "gpu" or toks[k].lemma in K.CARD_NAMES or (
                toks[k].lemma[:1] == "x" and toks[k].lemma[1:] in K.CARD_NAMES)  # ("8xA100": 8 cards)
            if n is None and prev.lemma == "x" and k >= 2 and card and toks[k - 2].kind == "num" and \
                    toks[k - 2].number is not None and toks[k - 2].number == int(toks[k - 2].number):
                n = int(toks[k - 2].number)  # "2 x H100"
            if n is None and prev.lemma in K.ORDINAL_HOSTS and toks[k].lemma in K.HOST_NOUNS and k >= 2 and \
                    toks[k - 2].lemma == "a":
                n = K.ORDINAL_HOSTS[prev.lemma]  # "when I add a second node" (not "the second server": one of them)
            if n is None or not 2 <= n <= 100_000:
                continue
            if card:
                counts.append((n, k))
            elif toks[k].lemma in K.HOST_NOUNS:
                nodes, node_at = n, k
        if not counts:
            if node_at is not None and self._on_topic((node_at, node_at + 1)) and (
                    toks[node_at].lemma != "node" or set(self.lemmas(lo, hi)) & K.DEVICE_CONTEXT):
                # ("my GNN has 5000 nodes": a graph's nodes; a node is a machine beside words of devices)
                # "training on two servers", "a second node": a run over several machines runs on several devices
                # (how many the words do not say)
                self.add({"multi_gpu": True}, toks[node_at - 1].start, toks[node_at].end)
            return
        n, k = max(counts)
        per_node = node_at is not None and (0 < k - 1 - node_at <= 3 or bool(
            set(self.lemmas(k + 1, min(hi, k + 3))) & {"each", "per"}))
        if nodes is not None and per_node and len(counts) == 1:
            n *= nodes  # "2 nodes x 8 GPUs", "two machines with 8 gpus each": GPUs per node times nodes
        self.add({"dist_world_size": n, "multi_gpu": True}, toks[k - 1].start, toks[k].end)

    def _metric_by_world(self, lo: int, hi: int, quantities: list[tuple[Part, str, str | None]]) -> None:
        """"1 GPU gets 89% accuracy, 3 GPUs get 29%": a metric lower on more GPUs by about their count.

        Each figure (a percentage or a fraction) is the nearest GPU count's; a count lower, a figure higher by about
        the same factor (``knowledge.talk.WORLD_RATIO_TOLERANCE``) is the shape a per-process count divided by the
        whole dataset gives (read as evidence, as the words "1/4 of one GPU's" are).
        """
        if not any(q == "accuracy" for _p, q, _s in quantities):
            return
        toks = self.tokens
        counts: list[tuple[int, int]] = []  # (token index, GPUs)
        values: list[tuple[int, float]] = []  # (token index, figure)
        for k in range(lo, hi):
            t = toks[k]
            if t.kind == "num" and t.number is not None and k + 1 < hi and toks[k + 1].lemma == "gpu" and \
                    t.number == int(t.number) and 1 <= t.number <= 100_000 and not t.unit:
                counts.append((k, int(t.number)))
            elif t.kind == "word" and t.lemma in K.NUMBER_WORDS and k + 1 < hi and toks[k + 1].lemma == "gpu":
                counts.append((k, K.NUMBER_WORDS[t.lemma]))
            elif t.lemma in ("single", "one") and k + 1 < hi and toks[k + 1].lemma == "gpu":
                counts.append((k, 1))
            elif t.kind == "num" and t.number is not None and (
                    (t.unit == "%" and 0 < t.number <= 100) or (not t.unit and 0 < t.number < 1)):
                values.append((k, t.number / 100 if t.unit == "%" else t.number))
        if len({n for _k, n in counts}) != 2 or len(values) != 2:
            return
        # each figure is the GPU count's said nearest to it (before it on a tie: "1 GPU gets 89%")
        owner = {k: min(counts, key=lambda c: (abs(c[0] - k), c[0] > k))[1] for k, _v in values}
        by = {owner[k]: v for k, v in values}
        if len(by) != 2:
            return
        (few, v_few), (many, v_many) = sorted(by.items())
        if v_many <= 0 or v_few <= v_many:
            return
        if abs((v_few / v_many) / (many / few) - 1) <= K.WORLD_RATIO_TOLERANCE:
            self.add({"metric_world_ratio": True, "multi_gpu": True, "symptom": "metrics_wrong"},
                     toks[min(k for k, _x in counts + values)].start, toks[max(k for k, _x in counts + values)].end)

    def _data_share(self, lo: int, hi: int) -> None:
        """"one class is 95% of my data", "99% of samples are negatives": most of the data is one class."""
        for k in range(lo, hi):
            t = self.tokens[k]
            value = t.number
            if value is None or t.unit != "%" or not 75.0 <= value < 100.0:
                continue
            after = self.lemmas(k + 1, min(hi, k + 5))
            if "of" in after[:2] and set(after) & K.DATA_NOUNS:
                end = next(u for u in range(k + 1, min(hi, k + 5)) if self.tokens[u].lemma in K.DATA_NOUNS)
                self.add({"class_imbalance": True}, t.start, self.tokens[end].end)
                return

    def _durations(self, lo: int, hi: int) -> None:
        """"takes 3 hours per epoch", "each step takes 2 s": a complaint of the time a unit of training takes.

        Said without "take" ("1 epoch is 3 hours", "each epoch 45 minutes", "one epoch = 5h") the duration is the
        same figure, but a weaker complaint: a fallback, read only when nothing else is (beside another complaint
        it is context).
        """
        took = "take" in self.lemmas(lo, hi)
        if self._step_operation_time(lo, hi):
            return
        for k in range(lo, hi):
            t = self.tokens[k]
            if t.kind != "num":
                continue
            unit = [t.unit] if t.unit in K.TIME_UNITS else self.lemmas(k + 1, k + 2)
            if not unit or unit[0] not in K.TIME_UNITS:
                continue
            per = self.lemmas(k + 2, min(hi, k + 6))  # "2 days to train one epoch"
            # "3 hours per epoch", or "each epoch takes 3 hours" ("1 epoch is 3 hours": a count of one)
            said_of = self.lemmas(max(lo, k - 4), k)
            if set(per) & (_STEP_WORDS | _EPOCH_WORDS) and set(per) & {"per", "a", "an", "each", "every", "one",
                                                                     "for"} or \
                    set(said_of) & (_STEP_WORDS | _EPOCH_WORDS) and set(said_of) & {"each", "every", "one", "an",
                                                                                    "per", "single", "1"}:
                self.add({"symptom": "slow_training"}, min(t.start, self.tokens[max(lo, k - 4)].start),
                         self.tokens[min(hi - 1, k + 1)].end, strong=False, fallback=not took)
                return

    def _complained_time(self, lo: int, hi: int) -> bool:
        """Whether the sentence complains of a time: a slow word, or "too long" / "longer than expected"."""
        lem = self.lemmas(lo, hi)
        if set(lem) & K.SLOW_COMPLAINTS:
            return True
        return any(b in K.TOO_LONG and a in ("too", "so", "very", "way", "really", "much") or
                   a in K.TOO_LONG and b == "than" for a, b in zip(lem, lem[1:]))

    def _step_operation_time(self, lo: int, hi: int) -> bool:
        """"my loss.backward() call takes 5 seconds, way too long": a step's operation said slow by its duration.

        A part of a step (``STEP_OPERATIONS``) said to take a duration, in a sentence that complains of it
        (:meth:`_complained_time`): the step is slow. A bare figure ("backward takes 5 seconds") is no complaint,
        nor a duration denied ("it does not take 5 seconds").
        """
        toks = self.tokens
        if not self._complained_time(lo, hi):
            return False
        for k in range(lo, hi):
            t = toks[k]
            if t.kind != "num" or not (t.unit in K.TIME_UNITS or self.lemmas(k + 1, k + 2)[:1] and
                                       self.lemmas(k + 1, k + 2)[0] in K.TIME_UNITS):
                continue
            before = self.lemmas(max(lo, k - 6), k)
            if "take" not in before or not set(before) & K.STEP_OPERATIONS or self._negated(k, lo):
                continue
            start = toks[max(lo, k - 6)].start
            self.add({"symptom": "slow_training", "slow_kind": "per_step"}, start, toks[min(hi - 1, k + 1)].end)
            return True
        return False

    def _rates(self, lo: int, hi: int) -> None:
        """"0.75 s/it", "3 it/s", "120 samples/sec": a speed quoted as a rate is a complaint of the time a step takes.

        Only a fallback (read when nothing else is): a rate quoted beside another complaint is its context.
        """
        for k in range(lo, hi - 1):
            t = self.tokens[k]
            if t.kind != "num":
                continue
            nxt = self.tokens[k + 1].text.lower()
            after = self.lemmas(k + 2, k + 3)
            split_rate = nxt in K.TIME_UNITS and bool(after) and after[0] in _STEP_WORDS and \
                self.text[self.tokens[k + 1].end:self.tokens[k + 2].start] == "/"  # "s/iteration"
            if _RATE.fullmatch(nxt) or split_rate:
                self.add({"symptom": "slow_training", "slow_kind": "per_step"}, t.start,
                         self.tokens[k + (2 if split_rate else 1)].end, strong=False, fallback=True)
                return

    def _repeats(self, lo: int, hi: int, quantities: list[tuple[Part, str, str | None]]) -> None:
        """"loss: 0.693 0.693 0.693": the same value said again and again is a flat curve.

        A series that peaks and then falls back ("val_acc: 0.81 0.86 0.86 0.83 0.80") moves down (a validation
        loss that dips and climbs back, up).
        """
        for p, q, split in quantities:
            if q in ("accuracy", "loss"):
                self._series_trend(p, q, split, hi)
            if q == "accuracy" or (q == "loss" and split == "val"):
                self._series_turn(p, q, split, hi)
                continue
            if q != "loss":
                continue
            nums = []
            for t in self.tokens[p.j:min(hi, p.j + 24)]:
                if t.kind == "num":
                    nums.append(t)
                elif t.kind == "word" and t.lemma not in _STEP_WORDS | _EPOCH_WORDS | _SERIES_WORDS:
                    break
            values = [t.number for t in nums]
            if any(v is None for v in values):
                continue
            # (four or more values within 1% of each other, well above zero, are as flat as three equal ones:
            # "2.31 2.30 2.30 2.30" is a printed loss that does not move)
            near = len(values) >= 4 and flat_values(values)
            if len(values) >= 3 and (near or all(v == values[0] for v in values)) and values[0] != 0:
                self.add({"symptom": "not_learning"}, p.start, nums[-1].end)
                return

    def _series_trend(self, p: Part, q: str, split: str | None, hi: int) -> None:
        """A printed series that moves one way at every value: the curve rises or falls, as if said in words.

        "eval loss: 1.21, 1.25, 1.38, 1.52 per epoch" rises; "train loss goes 1.3, 0.9, 0.6, 0.4" falls.
        """
        values = []
        last = p.j
        for k in range(p.j, min(hi, p.j + 24)):
            t = self.tokens[k]
            if t.kind == "num" and t.number is not None:
                values.append(t.number)
                last = k
            elif t.kind == "word" and t.lemma not in _SERIES_WORDS | {"go"}:
                break
        if len(values) < 3 or values[0] == 0 or self._series_not_curve(last, hi):
            return
        steps = [b - a for a, b in zip(values, values[1:])]
        if not (all(d > 0 for d in steps) or all(d < 0 for d in steps)):
            return
        if abs(values[-1] - values[0]) < K.SERIES_TREND * abs(values[0]):
            return
        sets = self._compose(q, split, "up" if steps[0] > 0 else "down", None, {"all"})
        if sets:
            self.add(dict(sets), p.start, p.end)

    def _spread(self, p: Part) -> bool:
        """Whether two or more figures printed after the quantity ``p`` are one per run of a sweep or comparison.

        "the val loss was 0.30, 0.33, 0.37 across 3 seeds" gives a spread over seeds (or configs, folds, runs), not
        a curve over training: it says what each run reached, nothing of how any of them behaves.
        """
        hi = _sentence_bounds(self.tokens, p.i)[1]
        count, last = 0, p.j
        for k in range(p.j, min(hi, p.j + 24)):
            t = self.tokens[k]
            if t.kind == "num" and t.number is not None:
                count, last = count + 1, k
            elif t.kind == "word" and t.lemma not in _SERIES_WORDS | {"go"}:
                break
        return count >= 2 and self._series_not_curve(last, hi, sweep_only=True)

    def _series_not_curve(self, last: int, hi: int, sweep_only: bool = False) -> bool:
        """Whether the words after a printed series (ending at token `last`) make it something other than a curve.

        A unit after the numbers makes them another measure ("2, 3, 4 minutes per epoch", "12, 15, 19 percent");
        a sweep or comparison makes them one value per run ("for batch sizes 32, 64 and 128", "across 3 seeds",
        "on cifar10, cifar100 and imagenet", "than the paper"), and one value per run has no direction in time.
        With ``sweep_only`` only the second (a sweep or comparison) counts.
        """
        t = self.tokens[last]
        after = self.tokens[last + 1] if last + 1 < hi else None
        if not sweep_only and (t.unit.lower() in K.SERIES_UNITS or (
                after is not None and {after.text.lower(), after.lemma} & K.SERIES_UNITS)):
            return True
        rest = self.tokens[last + 1:hi]
        words = [r.text.lower() for r in rest]
        # ("across epochs", "over the steps": the series is over training time after all)
        if set(words) & K.SERIES_SWEEP and not (
                words[:1] in (["across"], ["over"]) and
                any(r.lemma in _STEP_OR_EPOCH_WORDS for r in rest[1:3])):
            return True
        # "on A, B and C": a place named once per value is a list of datasets or machines, not of epochs
        for n, w in enumerate(words):
            if w in ("on", "for", "with") and any(x in (",", "and", "/") for x in words[n + 2:n + 4]):
                return True
        return False

    def _series_turn(self, p: Part, q: str, split: str | None, hi: int) -> None:
        """A printed series of a curve that turns: rises to a peak then falls well below it (or the reverse)."""
        values = []
        for t in self.tokens[p.j:min(hi, p.j + 24)]:
            if t.kind == "num" and t.number is not None:
                values.append(t.number)
            elif t.kind == "word" and t.lemma not in _STEP_WORDS | _EPOCH_WORDS | _SERIES_WORDS:
                break
        if len(values) < 4:
            return
        peak = max(range(len(values)), key=lambda n: values[n]) if q == "accuracy" else \
            min(range(len(values)), key=lambda n: values[n])
        first, best, last = values[0], values[peak], values[-1]
        if not 0 < peak < len(values) - 1 or best == 0:
            return
        turned = (last <= best - K.SERIES_TURN * abs(best)) if q == "accuracy" else \
            (last >= best + K.SERIES_TURN * abs(best))
        improved = best > first if q == "accuracy" else best < first
        if turned and improved:
            sets = self._compose(q, split, "down" if q == "accuracy" else "up", None, {"all"})
            if sets:
                self.add(dict(sets), p.start, self.tokens[min(hi, p.j + 24) - 1].end)

    # -- comparisons and series -----------------------------------------------------------------------
    def compare(self, lo: int, hi: int) -> None:
        """"val loss lower than train loss", "validation accuracy much lower than training accuracy"."""
        parts = self.parts_in(lo, hi)
        quantities = self._quantities(parts)
        for k in range(lo, hi):
            t = self.tokens[k]
            rel = _COMPARE.get(t.lemma) or _COMPARE.get(t.text)
            if rel is None:
                continue
            # "the loss is lower on val than on train": the split said between the comparative and its "than" is
            # the left figure's
            between = next((p for p in parts if "s" in p.roles and "q" not in p.roles and k + 1 < p.i <= k + 3 and
                            set(self.lemmas(k + 1, p.i)) <= {"on", "in", "for", "the"} and
                            self.lemmas(p.j, p.j + 1) == ["than"]), None) if t.kind == "word" else None
            if t.kind == "word" and "than" not in self.lemmas(k + 1, k + 2) and t.text not in ("<", ">") \
                    and t.lemma not in ("below", "under", "above", "over") and between is None:
                continue
            left = [q for q in quantities if q[0].j <= k and q[1] != "split_only"]
            if between is not None:
                if not left or left[-1][2] is not None:
                    continue
                left = [(left[-1][0], left[-1][1], between.roles["s"])]
                k = between.j  # what follows its "than" is the other side
            right = [q for q in quantities if q[0].i > k]
            near = [p for p in parts if "s" in p.roles and k - 4 <= p.i < k and "q" not in p.roles]
            if rel in ("better", "worse") and near and (not left or left[-1][0].j <= near[-1].i):
                # "the validation is always better than training": two splits judged, whatever their figure (a
                # better or worse curve says which is ahead without naming the loss or the accuracy), and the
                # split right before the comparison is its subject, not a figure quoted earlier
                other = [p for p in parts if "s" in p.roles and k < p.i <= k + 4]
                if other and {near[-1].roles["s"], other[0].roles["s"]} == {"train", "val"}:
                    left, right = [(near[-1], "results", near[-1].roles["s"])], \
                        [(other[0], "results", other[0].roles["s"])]
            if left and not right:
                # "accuracy on the test set is much worse than on train": the split alone names the other curve
                right = [(p, "split_only", p.roles["s"]) for p in parts if p.i > k and p.i <= k + 4 and "s" in p.roles]
            if left and not right and left[-1][2] == "val" and left[-1][1] in ("accuracy", "results", "loss") and \
                    set(self.lemmas(k + 1, min(hi, k + 5))) & K.REFERENCE_NOUNS:
                # "the test accuracy ends below the baseline", "val accuracy is worse than the paper's": a held-out
                # figure judged short of a reference is that split judged bad (the sentence may judge training good)
                worse = rel in ("lt", "worse") if left[-1][1] != "loss" else rel in ("gt", "worse")
                if worse:
                    self._judged.setdefault("val_bad", (left[-1][0].start, t.end))
            if not left or not right:
                continue
            if t.kind == "word" and self._negated(k, clause_start(self.tokens, k)):
                continue  # "val loss is not higher than train loss": the comparison denied, neither side said
            (lp, lq, ls), (rp, rq, rs) = left[-1], right[0]
            if rq == "split_only":
                rq = lq
            if lq != rq or lq not in ("loss", "accuracy", "results") or {ls, rs} != {"train", "val"}:
                continue
            if lq == "results" and rel not in ("better", "worse"):
                continue
            if rel in ("better", "worse"):
                val_better = (rel == "better") == (ls == "val")
            else:
                val_lower = (rel == "lt") == (ls == "val")
                val_better = val_lower if lq == "loss" else not val_lower
            span = (lp.start, rp.end)
            if val_better:
                self.add({"val_better_than_train": True}, *span)
            elif lq == "results":
                self.add({"symptom": "overfitting"}, *span)
            else:
                self.add({"symptom": "overfitting", "metric_kind": lq}, *span)

    def correlative(self, lo: int, hi: int) -> None:
        """"the longer I train, the lower my val accuracy gets": a quantity that moves as training goes on.

        The first half must be training's own length ("the longer", "the more epochs"); the second names the
        quantity and its direction by a comparative, composed as that movement later in the run ("the bigger the
        batch, the worse the accuracy" is about the batch, not the run's course, and reads nothing).
        """
        k = lo
        while k + 1 < hi:
            # the words after the comparative: in "the longer the sequence, ..." nothing says the run's length
            lead = self.tokens[k + 2:min(hi, k + 5)]
            if self.tokens[k].lemma != "the" or self.tokens[k + 1].text not in K.CORRELATIVE_LEADS or \
                    not {w for t in lead for w in (t.text, t.lemma)} & K.TRAINING_LENGTH:
                k += 1
                continue
            second = next((n for n in range(k + 2, min(hi, k + 10)) if self.tokens[n].lemma == "the" and n + 1 < hi
                           and self.tokens[n + 1].text in K.CORRELATIVE_MOVES), None)
            if second is None:
                return
            move = K.CORRELATIVE_MOVES[self.tokens[second + 1].text]
            said = [q for q in self._quantities(self.parts_in(second + 2, min(hi, second + 8)))
                    if q[1] not in ("pronoun", "run", "model", "split_only")]
            if not said:
                return
            part, quantity, split = said[0]
            sets = self._compose(quantity, split, move, "run_longer", {"all"}) or \
                self._compose(quantity, split, move, None, {"all"})
            if sets:
                self.add(dict(sets), self.tokens[k].start, part.end)
            return

    # -- questions, changes ---------------------------------------------------------------------------------
    def question(self, lo: int, hi: int) -> None:
        """A sentence asking which setting to use states a topic and claims the settings it names."""
        toks = self.tokens[lo:hi]
        if not toks:
            return
        lemmas = [t.lemma for t in toks]
        asks = toks[-1].text == "?" or lemmas[0] in K.QUESTION_LEADS or (len(lemmas) > 2 and lemmas[1] in
                                                                          ("should", "do", "can"))
        # a finite auxiliary first is the inverted order of a question, whose "?" people often leave off ("is
        # adamw better than adam for my model"); a sentence closed by a full stop is a statement still
        asks = asks or (toks[0].text in _INVERTED and (lo == 0 or self.tokens[lo - 1].text in _SENTENCE_END)
                         and (hi >= len(self.tokens) or self.tokens[hi].text != "."))
        # (a question word opening the text's last words with its auxiliary, the "?" left off: "fp32 or mixed
        # precision what do you recommend", "small or large batch size which is better")
        asks = asks or (hi >= len(self.tokens) and any(
            lemmas[n] in ("what", "which") and lemmas[n + 1] in _INVERTED | {"do", "be", "one"}
            for n in range(1, len(lemmas) - 1)) and bool({"or", "vs", "versus"} & set(lemmas[1:4])) and
            lemmas[0] not in K.AGENTS)
        # a wish to do something with a setting is a request about it as much as a question ("I want to augment
        # my images and masks with imgaug", "I'd like to weight the loss"): the topic must follow the wish
        wish = next((n + 2 for n in range(len(lemmas) - 2) if lemmas[n] in K.WISH_VERBS and lemmas[n + 1] == "to"
                     and not (n and lemmas[n - 1] in K.NEGATORS)), None)
        if wish is not None and not asks and any("topic" in p.roles and p.i >= lo + wish
                                                 for p in self.parts_in(lo, hi)):
            asks = True
        # (a question opened by a form of "be": "is it worth ...", whose lemma is no question word)
        opens = asks or toks[0].text in K.QUESTION_LEADS
        choice = set(lemmas) & K.CHOICE_WORDS or "vs" in lemmas or "which" in lemmas or "what" in lemmas or \
            "how" in lemmas or wish is not None
        if not opens:
            return
        parts = self.parts_in(lo, hi)
        # a setting said in use in a clause of its own is not what the question asks about: "I use gradient
        # clipping, what learning rate should I use?" asks about the learning rate
        named = [p for p in parts if "topic" in p.roles or "tv" in p.roles]
        in_use = [p for p in named if self._in_use_clause(p, lo, hi)]
        asked_from = lo  # where the question starts: after the clauses that state settings in use
        if in_use and len(in_use) < len(named):
            parts = [p for p in parts if p not in in_use]
            asked_from = max(self._clause_of(p, lo, hi)[1] for p in in_use)
        topics = [p.roles["topic"] for p in parts if "topic" in p.roles]
        values = [p.roles["tv"] for p in parts if "tv" in p.roles]
        named = topics or values
        if not named or not asks:
            if named:
                return
            # a choice asked about no setting the lexicon knows ("should I freeze the backbone first?", "what
            # dropout should I use"): the config question, weakly, unless the text says a symptom
            # (asked outright: a "?" or a question word first; "I should add that I use 4 GPUs" asks nothing)
            outright = toks[-1].text == "?" or lemmas[0] in K.QUESTION_LEADS or toks[0].text in K.QUESTION_LEADS
            if outright and lemmas[0] != "why" and set(lemmas) & K.OPEN_CHOICE_WORDS:
                self.add({"symptom": "direct_question"}, toks[0].start, toks[-1].end, strong=False, fallback=True)
                self.u.confirm.append(("fallback:question", "You asked which setting to use: about what? (the "
                                                            "optimizer, the learning rate, its schedule, the batch "
                                                            "size, regularization, precision...)"))
            return
        if len(values) < 2 and not topics and not (set(lemmas) & {"should", "worth", "better", "enable", "need",
                                                                  "which", "vs", "recommend"}):
            return
        # (a terse question of a topic for a setting or model: "weight decay for adamw?", "lr for a vit?")
        terse = toks[-1].text == "?" and hi - lo <= 10 and any(
            "topic" in p.roles and p.i == lo and p.j < hi and self.tokens[p.j].lemma in ("for", "with", "on", "in")
            for p in parts)
        # (a question in the inverted order whose "?" was left off ends the text: "does a larger batch size hurt
        # generalization"; "does not converge" is a statement with its subject dropped)
        unmarked = toks[0].text.lower() in _INVERTED and hi >= len(self.tokens) and len(lemmas) > 1 and \
            lemmas[1] not in K.NEGATORS and lemmas[1] != "not"
        if not choice and not terse and not (topics and (toks[-1].text == "?" or unmarked) and
                                             lemmas[0] in K.QUESTION_LEADS):
            return
        # "why is my loss negative?" asks about a symptom, not a setting: a topic must be the subject
        if lemmas[0] == "why":
            return
        # the most specific topic: "hyperparameters, especially the learning rate" asks about the learning rate,
        # "how should I pick AdamW hyperparameters" about the optimizer
        specific = [t for t in topics if t != "tuning"] or [v for v in values if v != "tuning"]
        generic = {self.tokens[p.i].lemma for p in parts if p.roles.get("topic") == "tuning"} <= {"hyperparameter"}
        topic = specific[0] if specific and "tuning" in topics + values and generic else named[0]
        # the loop's calls asked about ("should optimizer.zero_grad() go before loss.backward()?"): the question is
        # the loop's, not the optimizer's or the schedule's whose method is called
        # (and the order of two parts' calls asked: "should scheduler.step() come before or after optimizer.step()?")
        if ("training_loop" in topics and topic in ("optimizer", "schedule")) or (
                {"optimizer", "schedule"} <= set(topics) and {"before", "after", "order"} & set(lemmas)):
            topic = "training_loop"
        # a knob of the optimizer asked about with the optimizer named ("two param groups in my optimizer, one with
        # weight decay"): the knob is what is asked, the optimizer is where it is set
        knobs = [p.roles["topic"] for p in parts if "topic" in p.roles and
                 " ".join(self.lemmas(p.i, p.j)) in K.OPTIMIZER_KNOBS]
        if topic == "optimizer" and knobs:
            topic = knobs[0]
        # ... and the knob said by its verb, of the parameters it is applied to ("configure AdamW's param groups so
        # the biases are not decayed"): a weight-decay question, unless the decay is the learning rate's
        # (the question's clause may stop before the clause that says what is decayed: read on to the sentence end)
        elif topic == "optimizer":
            end_at = next((n for n in range(lo, len(self.tokens)) if self.tokens[n].text in _SENTENCE_END),
                          len(self.tokens))
            said = self.lemmas(lo, end_at)
            decays = [n for n in range(lo, end_at) if self.tokens[n].lemma == "decay"]
            if decays and not set(said) & K.LR_DECAY_WORDS and not any(
                    p.i <= n < p.j for p in self.parts_in(lo, end_at) if "topic" in p.roles or "tv" in p.roles
                    for n in decays):
                topic = K.TOPICS["weight decay"]
        # (the settings stated before the question are the run's: "lr 3e-4, bs 32, adamw, should I warm up?")
        start, end = self.tokens[asked_from].start if asked_from < hi else toks[0].start, toks[-1].end
        if topic == "tracking":
            if set(lemmas) & {"how", "what", "which", "should", "best"}:
                self.add({"symptom": "experiment_tracking"}, start, end)
            return
        self.add({"symptom": "direct_question", "question_topic": topic}, start, end)
        names = set(K.TOPIC_SETTINGS.get(topic, ())) | K.SETTINGS
        if len(values) >= 2 and set(lemmas) & {"or", "vs", "versus", "vs."}:
            names.add("considering")  # "adam or sgd?" weighs two: the user is not set on either
        self.claim(self._asking_start(lo, hi, start), end, names)

    def _asking_start(self, lo: int, hi: int, start: int) -> int:
        """Where a question's claim on the settings begins.

        At the clause that asks, when clauses before it state the user's own run ("my grid search is too costly,
        how do I search smarter?", "I use adam, should I switch to sgd?": the grid and adam are the run's); else at
        the sentence's start ("adam or sgd, which is better?" names both only to weigh them). A clause before it
        that weighs, reports or tells another person's run is claimed on its own ("my lr is 0.5, my friend thinks
        that is too high, should I lower it?": the lr stays the user's).
        """
        toks = self.tokens
        asking = K.QUESTION_LEADS | K.CHOICE_WORDS | {"how", "what", "which", "why", "any"}
        for k in range(lo + 1, hi):
            if (toks[k].lemma in asking or toks[k].text in asking) and _breaks(toks[k - 1]):
                own, others = self._own_clauses(lo, k)
                if not own:
                    return start
                names = set(K.SETTINGS)
                for a, b in others:
                    self.claim(toks[a].start, toks[b - 1].end, names)
                return toks[k].start
        return start

    def _own_clauses(self, lo: int, hi: int) -> tuple[bool, list[tuple[int, int]]]:
        """Whether a clause before a question's asking clause states the user's own run; the clauses that do not.

        Tokens ``[lo, hi)`` are read. Clauses part at punctuation and at "and"/"but"/"so", each judged alone ("my
        lr is 0.5 and I saw the loss go up" states the lr, whatever was seen). A clause states the run when it is in
        the first person and does not weigh ("I was wondering whether adam or sgd ..."), report someone's words ("I
        read that adam is better") or tell another person's run ("my friend uses a batch size of 512").
        """
        toks = self.tokens
        own, others, a = False, [], lo
        for k in range(lo, hi + 1):
            if k < hi and not (_breaks(toks[k]) or toks[k].lemma in ("and", "but", "so")):
                continue
            if k > a:
                lemmas = {t.lemma for t in toks[a:k]} | {t.text.lower() for t in toks[a:k]}
                if lemmas & K.NOT_OWN_WORDS:
                    others.append((a, k))
                elif lemmas & K.PERSONAL_WORDS:
                    own = True
            a = k + 1
        return own, others

    def yes_no(self, clauses: list[tuple[int, int]], hi: int) -> None:
        """Mark a yes/no question: from the clause that opens it ("is", "does", "could" or a hedge) to its "?".

        "does the warmup end too early?", "loss is flat, is my lr too high?", "maybe the labels are shuffled?"
        state what the user suspects; "why does my loss go nan?" (a question word) and "is it normal that val
        loss is lower?" (``PRESUPPOSING_WORDS``) take what they say as given, and are not marked.
        """
        if hi >= len(self.tokens) or self.tokens[hi].text != "?":
            return
        for i, j in clauses:
            lead = self.tokens[i].lemma
            if lead in K.YES_NO_LEADS or lead in K.HEDGES:
                if any(t.lemma in K.PRESUPPOSING_WORDS for t in self.tokens[i:j]):
                    return
                self.u.asked.append((self.tokens[i].start, self.tokens[hi].end))
                return
            if lead in K.QUESTION_LEADS:
                return  # "why is ... ?", "what ... ?": an open question about the state, its words are read

    def _clause_of(self, p: Part, lo: int, hi: int) -> tuple[int, int]:
        """The clause around a part, within tokens ``lo``..``hi``: (first token, one past its last)."""
        a = p.i
        while a > lo and not _breaks(self.tokens[a - 1]):
            a -= 1
        b = p.j
        while b < hi and not _breaks(self.tokens[b]):
            b += 1
        return a, b

    def _in_use_clause(self, p: Part, lo: int, hi: int) -> bool:
        """Whether the clause around a part says it is in use ("I use X", "with X") and asks nothing.

        A setting listed bare, with its value, in a clause of its own before a comma ("lr 3e-4, bs 32, adamw,
        should I warm up?") is stated as the run's, as a list of settings states them.
        """
        a, b = self._clause_of(p, lo, hi)
        words = {t.lemma for t in self.tokens[a:b]}
        if (b < len(self.tokens) and self.tokens[b].text == "?") or words & (K.QUESTION_LEADS | K.CHOICE_WORDS):
            return False
        # (another person's run, or words reported or weighed, are no setting in use: "my friend uses a batch size
        # of 512, what batch size should I use?")
        if words & K.NOT_OWN_WORDS:
            return False
        # (a setting offered "with" and then "without" is weighed, not in use: "two param groups, one with weight
        # decay and one without?")
        if words & K.IN_USE_WORDS == {"with"} and "without" in self.lemmas(b, hi):
            return False
        listed = b < hi and self.tokens[b].text == "," and all(
            p.i <= n < p.j or t.kind == "num" or t.text in ("=", ":") for n, t in enumerate(self.tokens[a:b], a))
        return listed or bool(words & K.IN_USE_WORDS)

    def changes(self, lo: int, hi: int) -> None:
        """"batch 64 -> 1024", "from fp32 to bf16", "1024 (was 64)", "1024 instead of 128": the after-value."""
        toks = self.tokens
        for k in range(lo, hi):
            t = toks[k]
            window = self.lemmas(k - 6, k)
            from_at = k - len(window) + max((n for n, w in enumerate(window) if w == "from"), default=-1)
            named_pair = t.lemma in ("to", "into") and k > lo and self._setting_value(k - 1) is not None \
                and self._setting_value(k + 1) is not None
            # "swapped adam for sgd", "replaced fp16 with bf16": the object is the value left, the complement the
            # value now (``SUBSTITUTION_VERBS``)
            swapped = t.lemma in ("for", "with", "by") and k > lo and self._setting_value(k - 1) is not None \
                and self._setting_value(k + 1) is not None and any(
                    toks[n].lemma in K.SUBSTITUTION_VERBS for n in range(max(lo, k - 4), k - 1))
            marker = t.kind == "arrow" or (t.lemma in ("to", "into") and "from" in window) or named_pair or swapped
            if marker:
                skip = ("from", "a", "of", "the", "size", "batch", "bs", "at")
                if t.kind != "arrow" and "from" in window:
                    # "from 0.5 at epoch 3 to 1.2": the before-value is the first after "from"
                    before = [u for u in range(from_at + 1, k) if toks[u].kind in ("num", "word")
                              and toks[u].lemma not in skip][:1]
                else:
                    before = [u for u in range(max(lo, k - 4), k) if toks[u].kind in ("num", "word")
                              and toks[u].lemma not in skip and not self._number_unit(u)][-1:]
                after = [u for u in range(k + 1, min(hi, k + 5)) if toks[u].kind in ("num", "word")
                         and toks[u].lemma not in skip]
                if not before or not after:
                    continue
                b, a = before[0], after[0]
                if toks[b].kind == "word" and b > lo and toks[b - 1].kind == "num" and toks[b].lemma in _VALUE_UNITS:
                    b -= 1  # "step time went 0.4 s -> 0.55 s": the unit written apart is the number's, not the value
                if t.kind == "arrow" and toks[a].kind != "num" and self._setting_value(a) is None:
                    continue  # "batch size changed to 1024 -> loss spikes": the arrow leads to what followed
                named = self._setting_value(b)
                if named is not None and t.kind != "arrow":
                    b = named[2]
                self._change(lo, hi, b, a, claim_from=from_at if "from" in window else None)
            elif t.lemma in ("was", "previously", "instead", "before") or t.text == "was":
                # "1024 (was 64)", "bf16 (was fp32 before)", "1024 instead of 128"
                nxt = [u for u in range(k + 1, min(hi, k + 4)) if toks[u].kind in ("num", "word")
                       and toks[u].lemma not in ("of", "a", "the", "batch", "size", "bs")]
                if t.lemma == "before":
                    continue
                if nxt:
                    b = nxt[0]
                    self.claim(toks[b].start, toks[b].end, K.SETTINGS)
                    # "1024 instead of 128": the number before "instead" is the after-value of the same change
                    prev = next((u for u in range(k - 1, max(lo, k - 3) - 1, -1) if toks[u].kind == "num"), None)
                    if t.lemma == "instead" and prev is not None and toks[b].kind == "num":
                        # ("lr 1e-3 instead of 1e-2" is a choice against another value, no change in time)
                        self._change(lo, hi, b, prev, timed=self._said_as_change(lo, hi))
                        continue
                    # "lr was 1e-4, now 1e-3": the value said after "now" is the setting's
                    now = next((u for u in range(b + 1, min(hi, b + 4)) if toks[u].lemma in ("now", "currently")),
                               None)
                    a = next((u for u in range(now + 1, min(hi, now + 4)) if toks[u].kind in ("num", "word") and
                              toks[u].lemma not in ("it", "be", "is", "the", "a", "set", "at", "to")), None) \
                        if now is not None else None
                    if a is not None and toks[a].kind == toks[b].kind:
                        self._change(lo, hi, b, a)
        # "to 1024 from 128", "moving to bf16 from fp32"
        for k in range(lo, hi):
            if toks[k].lemma == "from" and k > lo and "to" in self.lemmas(k - 4, k):
                nxt = [u for u in range(k + 1, min(hi, k + 4)) if toks[u].kind in ("num", "word")]
                if nxt:
                    self.claim(toks[nxt[0]].start, toks[nxt[-1]].end, K.SETTINGS)
                    to_at = k - 4 + self.lemmas(k - 4, k).index("to") if k >= 4 else self.lemmas(lo, k).index("to")
                    after_v = self._setting_value(to_at + 1)
                    if after_v is not None:
                        self.add({after_v[0]: after_v[1]}, toks[to_at + 1].start, toks[after_v[2]].end)

    def _number_unit(self, k: int) -> bool:
        """Whether token ``k`` is the unit written right after a number ("0.4s", "12 GB"): part of that number."""
        return k > 0 and self.tokens[k].lemma in _VALUE_UNITS and self.tokens[k - 1].kind == "num" and \
            self.tokens[k - 1].end >= self.tokens[k].start - 1

    def _setting_value(self, k: int) -> tuple[str, Any, int] | None:
        """The setting a value word at token ``k`` names ("bf16", "full precision"), and its last token."""
        for n in (2, 1):
            if k + n > len(self.tokens):
                continue  # (a value at the text's very end has no second word: "... to bf16")
            key = " ".join(t.lemma for t in self.tokens[k:k + n])
            if key in K.SETTING_VALUES:
                name, value = K.SETTING_VALUES[key]
                return name, value, k + n - 1
        return None

    def _said_as_change(self, lo: int, hi: int) -> bool:
        """Whether the sentence ``lo:hi`` says something changed in time.

        A change verb (a motion verb with its "to" or "from", ``MOTION_VERBS``), a "now" / "since" that sets the
        present against the past, or a comparative that sets the value against the run's old one
        (``CHANGE_COMPARATIVES``).
        """
        toks = self.tokens
        return any(t.lemma in K.NOW_MARKERS or t.lemma == "since" or t.text.lower() in K.CHANGE_COMPARATIVES or
                   (t.lemma in K.CHANGE_VERBS and (t.lemma not in K.MOTION_VERBS or self._goes_somewhere(k + 1, hi)))
                   for k, t in enumerate(toks[lo:hi], lo))

    def _change_made_before(self, lo: int, i: int) -> bool:
        """Whether tokens ``lo``..``i`` say a setting was changed (a change verb said of something, an arrow).

        A change verb counts with its object or its "to" / "from" (``_said_as_change``'s test); "nothing changed"
        right after it is then the change's outcome, not a curve's.
        """
        toks = self.tokens
        return any(t.kind == "arrow" or (t.lemma in K.CHANGE_VERBS and t.lemma != "change" and
                                         (t.lemma not in K.MOTION_VERBS or self._goes_somewhere(k + 1, i)))
                   or (t.lemma == "change" and k + 1 < i and toks[k + 1].lemma in ("to", "from", "the", "my"))
                   for k, t in enumerate(toks[lo:i], lo))

    def _goes_somewhere(self, i: int, hi: int) -> bool:
        """Whether a motion verb before token ``i`` has a "to" or "from" in its clause (``MOTION_COMPLEMENTS``)."""
        for t in self.tokens[i:min(hi, i + 8)]:
            if _breaks(t):
                return False
            if t.lemma in K.MOTION_COMPLEMENTS:
                return True
        return False

    def _change(self, lo: int, hi: int, b: int, a: int, claim_from: int | None = None, timed: bool = True) -> None:
        """A value ``b`` set against ``a``: ``a`` is the setting's, and (when ``timed``) the difference a change."""
        toks = self.tokens
        self.claim(toks[claim_from if claim_from is not None else b].start, toks[b].end, K.SETTINGS)
        start = claim_from if claim_from is not None else b
        window = toks[max(lo, start - 6):start]
        brk = max((n for n, t in enumerate(window) if t.kind == "punct"), default=-1)
        if any(t.text in K.TRIED_WORDS for t in window[brk + 1:]):  # in this clause only
            # "I tried learning rates from 2e-5 down to 1e-8": a range tried, neither end is the run's setting
            self.claim(toks[start].start, toks[a].end, K.SETTINGS)
            return
        before_v, after_v = self._setting_value(b), self._setting_value(a)
        if after_v is not None and (before_v is None or before_v[0] == after_v[0]):
            name, value, last = after_v
            self.add({name: value}, toks[a].start, toks[last].end)
            if timed and before_v is not None and before_v[1] != value:
                self._changed(lo, hi, name, toks[b].start, toks[last].end)
            return
        if toks[a].kind != "num" or toks[b].kind != "num":
            return
        # numbers that count the noun right after them ("went from 1 gpu to 8 gpus with the same lr") are that
        # noun's count, no setting's value
        if any(n + 1 < hi and (toks[n + 1].lemma in K.COUNTED_SETTINGS or toks[n + 1].text.lower() in K.GPU_NAMES)
               for n in (a, b)):
            return
        # whose numbers they are: the quantity said last before them ("lr=2e-5: loss goes from 15.5 to 1.43" is
        # the loss's), else any the sentence names ("from 64 to 1024 for the batch size")
        said = [q for _p, q, _s in self._quantities(self.parts_in(lo, b)) if q not in ("pronoun", "run", "model")]
        # (one named after the numbers that heads a change of its own, "num_classes from 2 to 5 and the batch size
        # from 2 to 3", owns that change's numbers, not these)
        quantities = said[-1:] or [q for p, q, _s in self._quantities(self.parts_in(lo, hi))
                                   if not (p.i > a and "from" in self.lemmas(p.j, p.j + 3))]
        value = toks[a].number
        if value is None:
            return
        before = toks[b].number
        # a quantity moving from one number to another ("val_loss from 0.5 to 1.2")
        if "batch" in quantities and value == int(value):
            self.add({"batch_size": int(value)}, toks[b].start, toks[a].end)
            if timed and before is not None and before != value:
                self._changed(lo, hi, "batch_size", toks[b].start, toks[a].end)
        elif "lr" in quantities:
            self.add({"learning_rate": value}, toks[b].start, toks[a].end)
            if timed and before is not None and before != value:
                self._changed(lo, hi, "learning_rate", toks[b].start, toks[a].end, before, value)
        elif before is not None and quantities:
            self._moved(lo, b, before, value, toks[b].start, toks[a].end)

    def change_verbs(self, lo: int, hi: int) -> None:
        """A change verb said of a setting: what changed (``CHANGE_VERBS`` and ``CHANGE_OBJECTS``).

        "since doubling the lr", "I switched to fp16", "upgraded torch": the object follows the verb in its clause
        (up to a preposition, ``CHANGE_STOPS``); a batch or a precision may also precede a past form ("batch size
        changed to 1024"; an LR said to fall is the schedule's). A change negated ("without changing the lr"), a
        noun ("the weight updates"), or one the sentence only weighs or tried as a remedy (``_weighed_change``),
        changed nothing that started the trouble.
        """
        toks = self.tokens
        if self._weighed_change(lo, hi):
            return
        for k in range(lo, hi):
            verb = toks[k]
            upgrade = verb.lemma == "install" and any(t.lemma in K.UPGRADE_FLAGS for t in toks[k + 1:min(hi, k + 4)])
            if self._switched_on(k, lo, hi):
                return
            if verb.kind != "word" or (verb.lemma not in K.CHANGE_VERBS and not upgrade):
                continue
            if any(t.lemma in K.NEGATORS for t in toks[max(lo, k - 3):k]) or \
                    (k > lo and toks[k - 1].lemma in K.NOUN_MARKERS):
                continue
            if verb.lemma in K.MOTION_VERBS and not self._goes_somewhere(k + 1, hi):
                continue  # "each batch goes through the dataloader": motion, not a change
            if verb.lemma in K.MOTION_VERBS and any(t.lemma in K.SPENT_SHARES or t.text in K.SPENT_SHARES
                                                    for t in toks[max(lo, k - 3):k]):
                continue  # "60% of the time goes to the DataLoader": where the time is spent, not a switch
            if k > lo and toks[k - 1].lemma in K.PASSIVE_AUXILIARIES and self._others_run(lo, k):
                continue  # "my colleague's batch size was cut to 8": a change made to another's run
            found = self._change_object(k + 1, min(hi, k + 7))
            # (a passive says someone made the change, whatever the participle's form: "batch size was cut to 8",
            # "the lr got bumped up")
            passive = k > lo and toks[k - 1].lemma in K.PASSIVE_AUXILIARIES
            if found is None and (verb.text.endswith("ed") or passive):
                # the passive or the bare past after its object: "batch size changed to 1024", "bs doubled"
                agent = bool(set(self.lemmas(lo, hi)) & K.LR_SCHEDULE_AGENTS)  # "raised to 1e-3 by the warmup"
                found = self._change_object(max(lo, k - (4 if passive else 3)), k, before_verb=True,
                                            passive=passive and not agent)
            if found is None:
                continue
            kind, end = found
            if kind == "library_upgrade" and verb.lemma not in K.LIBRARY_CHANGE_VERBS and not upgrade:
                continue
            if kind == "data_pipeline" and any(t.lemma in K.LOADING_SPEED_WORDS for t in toks[lo:hi]):
                continue
            if kind == "learning_rate" and verb.lemma not in K.LR_RAISE_VERBS | K.LR_CHANGE_VERBS:
                # a lowered LR is no raise (``lower_lr_stable`` is its observation); an LR "changed" or "adjusted"
                # says no way and reads as the change the vocabulary names, as a raise does
                if verb.lemma in K.LR_LOWER_VERBS:
                    self._lowered_lr = (verb.start, toks[end].end)
                continue
            if kind == "learning_rate" and verb.lemma in K.LR_CHANGE_VERBS and not verb.text.endswith(("ed", "ing")):
                continue  # "the scheduler changes the lr every epoch": how the run goes, no change made to it
            self._read_change({"recent_change": kind}, verb.start, toks[end].end)
            return

    def _switched_on(self, k: int, lo: int, hi: int) -> bool:
        """Whether token ``k`` switches a precision on or raises a setting, said with its object after it.

        "enabled bf16", "turned on amp" (``SWITCH_ON_VERBS``, ``SWITCH_ON_PARTICLE_VERBS``), "upped the lr to 1e-3"
        (``RAISE_FORMS``): the change is read (and True returned); not when negated ("never enabled amp").
        """
        toks = self.tokens
        verb = toks[k]
        if verb.kind != "word":
            return False
        plain = _plain(verb)
        particle = verb.lemma in K.SWITCH_ON_PARTICLE_VERBS and k + 1 < hi and toks[k + 1].lemma == "on"
        on = particle or verb.lemma in K.SWITCH_ON_VERBS or plain in K.SWITCH_ON_VERBS
        raised = plain in K.RAISE_FORMS
        if not (on or raised) or any(t.lemma in K.NEGATORS for t in toks[max(lo, k - 3):k]):
            return False
        found = self._change_object(k + (2 if particle else 1), min(hi, k + 7))
        if found is None or found[0] not in (("precision",) if on else ("batch_size", "learning_rate")):
            return False
        self._read_change({"recent_change": found[0]}, verb.start, toks[found[1]].end)
        return True

    def _change_object(self, i: int, j: int, before_verb: bool = False, passive: bool = False) -> \
            tuple[str, int] | None:
        """The first object of a change in tokens ``i:j``: what changed, and its last token.

        The search stops at a clause break or a preposition (``CHANGE_STOPS``). Before its verb only a batch or a
        precision is a change's object ("batch size changed to 1024": an LR said to fall is the schedule's), and
        the learning rate too when a ``passive`` with no schedule named says someone changed it ("the lr was raised
        to 3e-3").
        """
        toks = self.tokens
        k = i
        while k < j:
            if k > i and _breaks(toks[k]) or (toks[k].kind == "punct" and toks[k].text not in "-_"):
                return None
            for n in (3, 2, 1):
                key = " ".join(t.lemma for t in toks[k:k + n])
                kind = K.CHANGE_OBJECTS.get(key)
                if kind is None or k + n > len(toks):
                    continue
                if before_verb and kind not in ("batch_size", "precision") and not (
                        passive and kind == "learning_rate"):
                    return None
                if kind == "batch_size" and self._batch_count(k, k + n):
                    return None  # "double the number of batches", "more batches per epoch": how many, not how big
                if k + n < len(toks) and toks[k + n].lemma in K.CHANGE_OBJECT_BLOCKERS:
                    return None  # "the lr schedule": the schedule's change
                return kind, k + n - 1
            if toks[k].lemma in K.CHANGE_STOPS and not before_verb:
                return None  # a preposition: what follows is another thing's, not the change's object
            if toks[k].lemma in K.CHANGE_OBJECT_BLOCKERS or toks[k].text in K.CHANGE_OBJECT_BLOCKERS:
                return None  # "update the model parameters every batch": the parameters are what is updated
            k += 1
        return None

    def _batch_count(self, i: int, j: int) -> bool:
        """Whether the batch word at tokens ``i:j`` counts batches rather than naming their size.

        "the number of batches", "more batches per epoch", "500 batches": a count of batches is the epoch's length.
        """
        if any(p.i <= i and j <= p.j and p.roles.get("q") == "step_count"
               for p in self.parts_in(max(0, i - 4), min(len(self.tokens), j + 4))):
            return True
        return self.tokens[i].text.lower().endswith("es") and i > 0 and self.tokens[i - 1].kind == "num"

    def _then_now(self) -> None:
        """A sentence that sets an earlier state against "now": the old setting is not the run's, the change is.

        "I used to use batch size 32, now 256" reads batch_size=256 (not 32) and recent_change=batch_size; "used to
        train on 1 GPU, now 4 GPUs" a change of the GPU count (``THEN_MARKERS``, ``NOW_MARKERS``). Runs once the
        whole text is read, over the readings each side of "now" gave.
        """
        toks = self.tokens
        starts = [t.start for t in toks]
        for lo, hi in self._sentences():
            then = next((k for k in range(lo, hi) if toks[k].lemma in K.THEN_MARKERS and (
                toks[k].lemma != "use" or (k + 1 < hi and toks[k + 1].lemma == "to"))), None)
            now = next((k for k in range(then + 1, hi) if toks[k].lemma in K.NOW_MARKERS), None) \
                if then is not None else None
            if now is None or self._weighed_change(lo, hi):
                continue
            cut, end = toks[now].start, toks[hi - 1].end
            old_side = [r for r in self.u.readings if toks[lo].start <= r.start < cut]
            new_side = [r for r in self.u.readings if cut <= r.start < end]
            for setting, kind in K.CHANGED_SETTINGS.items():
                before = [r for r in old_side if r.name == setting]
                after = [r for r in new_side if r.name == setting]
                if not before:
                    continue
                nxt = bisect_left(starts, cut) + 1
                if not after and setting != "mixed_precision" and nxt < hi and toks[nxt].number is not None:
                    # "batch size 32, now 256": the bare number after "now" is the setting's new value
                    value = toks[nxt].number
                    self.add({setting: int(value) if setting == "batch_size" else value}, toks[nxt].start,
                             toks[nxt].end)
                    after = [self.u.readings[-1]]
                if after and any(a.value != b.value for a in after for b in before):
                    self.u.readings = [r for r in self.u.readings if r not in before]
                    if kind == "learning_rate":
                        self._lr_moved(before[-1].value, after[-1].value, toks[then].start, after[-1].end)
                    else:
                        self._read_change({"recent_change": kind}, toks[then].start, after[-1].end)
            # one device then, several now: the GPU count changed
            said = {t.lemma for t in toks[lo:now]}
            devices_then = any(t.lemma in K.SINGLE_DEVICE and u.lemma in K.COUNTED_SETTINGS
                               for t, u in zip(toks[lo:now], toks[lo + 1:now]))
            several_now = any(r.name == "multi_gpu" and r.value is True for r in new_side)
            if devices_then and several_now and "gpu" in said:
                self._read_change({"recent_change": "gpu_count", "world_size_changed": True}, toks[then].start, end)

    def _optimizer_at(self, k: int) -> str | None:
        """The optimizer a word at token ``k`` names ("AdamW", "lion"), or None (a plain word, an unnamed kind)."""
        if not 0 <= k < len(self.tokens) or self.tokens[k].kind != "word":
            return None
        t = self.tokens[k]
        if t.lemma in ("momentum", "nesterov"):
            return None  # a setting of SGD before it is an optimizer's name
        name = canonical_optimizer(t.text)
        return None if name in (None, "other") else name

    def _substitutions(self) -> None:
        """A switch of optimizer the user only weighs: the new one is ``considering``, the old one the run's.

        "I want to switch from AdamW to Lion", "should I replace Adam with SGD?", "Lion instead of AdamW?", "is
        Lion a good replacement for AdamW?", "would switching the optimizer to Lion help?" (``SUBSTITUTE_VERBS``,
        ``REPLACEMENT_WORDS``) in a sentence that weighs it (``WEIGHING_MARKERS`` or a "?"). A switch reported as
        made ("I switched from Adam to SGD and it diverges") is left to the change readers. The reason given for the
        switch is read too (``_switch_reason``).
        """
        toks = self.tokens
        weighed_any = False
        for lo, hi in self._sentences():
            end = hi + 1 if hi < len(toks) and toks[hi].text == "?" else hi
            if not any(t.lemma in K.WEIGHING_MARKERS or t.text.lower() in K.WEIGHING_MARKERS or t.text == "?"
                       for t in toks[lo:end]):
                continue
            for a in range(lo, hi):
                new = self._optimizer_at(a)
                if new is None or {t.lemma for t in toks[max(lo, a - 2):min(hi, a + 3)]} & _ALTERNATIVES:
                    continue  # "adam or sgd?": a choice between two, the user is set on neither
                old_at = self._substituted(a, lo, hi)
                if old_at is None:
                    continue
                weighed_any = True
                old = self._optimizer_at(old_at) if old_at >= 0 else None
                self.u.readings = [r for r in self.u.readings if not (
                    r.name == "optimizer" and r.value == new and toks[a].start <= r.start < toks[a].end + 1)]
                self.claim(toks[a].start, toks[a].end, {"optimizer"})
                self.u._index = None
                self.add({"considering": new}, toks[a].start, toks[a].end)
                if old is not None and old != new:
                    self.add({"optimizer": old}, toks[old_at].start, toks[old_at].end)
                break
        if not weighed_any:
            weighed_any = self._weighed_newcomer()
        if weighed_any:
            self._switch_reason()

    def _weighed_newcomer(self) -> bool:
        """An optimizer the user has only heard of, weighed against the run's own: ``considering``.

        "my AdamW run is fine but everyone uses Muon now, should I switch?", "I read Lion is better, worth it?",
        "heard about Prodigy; my Adam run converges normally, should I still switch?": a text that weighs a switch
        (a substitute verb or "worth", with a weighing word or a "?") and names two optimizers, one said as the
        run's (``OWN_RUN_MARKERS`` before it, no other person's or report's word) and one not. Returns whether one
        was read.
        """
        toks = self.tokens
        lem = [t.lemma for t in toks]
        if not (set(lem) & (K.SUBSTITUTE_VERBS | {"worth"})) or not any(
                t.lemma in K.WEIGHING_MARKERS or t.text == "?" for t in toks):
            return False
        if any(r.name == "considering" for r in self.u.readings) or set(lem) & _ALTERNATIVES:
            return False  # (a choice between two, "adam or sgd?", weighs both)
        named = [(k, name) for k in range(len(toks)) if (name := self._optimizer_at(k)) is not None]
        if len({name for _k, name in named}) < 2:
            return False

        def own(k: int) -> bool:
            # (another person or a report a few words before speaks of theirs: "everyone on twitter uses Muon")
            return bool(set(lem[max(0, k - 3):k]) & K.OWN_RUN_MARKERS) and \
                not set(lem[max(0, k - 6):k]) & (K.REPORTING_WORDS | K.OTHER_PEOPLE)

        mine = {name for k, name in named if own(k)}
        others = [(k, name) for k, name in named if name not in mine]
        if len(mine) != 1 or not others:
            return False
        (old,), (at, new) = mine, others[0]
        self.u.readings = [r for r in self.u.readings if r.name != "optimizer"]
        for k, _name in others:
            self.claim(toks[k].start, toks[k].end, {"optimizer"})
        self.u._index = None
        self.add({"considering": new}, toks[at].start, toks[at].end)
        # (the run's own, read here as its own: not a setting named inside the weighing, which the attribution of
        # named settings would set aside)
        k_old = next(k for k, name in named if name == old)
        self.add({"optimizer": old}, toks[k_old].start, toks[k_old].end)
        return True

    def _substituted(self, a: int, lo: int, hi: int) -> int | None:
        """Whether the optimizer at token ``a`` is put in another's place: the old one's token, -1 when unnamed.

        None when no substitution frame holds the name.
        """
        toks = self.tokens
        lem = [t.lemma for t in toks]
        before = range(max(lo, a - 5), a)
        if a > lo and lem[a - 1] == "to":
            # "from X to Y"
            old = next((b for b in before if b > lo and lem[b - 1] == "from" and self._optimizer_at(b)), None)
            if old is not None:
                return old
            # "switch (the optimizer) to Y"
            if any(lem[b] in K.SUBSTITUTE_VERBS for b in before):
                return -1
        if a > lo + 1 and lem[a - 1] == "the" and lem[a - 2] == "to" and \
                any(lem[b] in K.SUBSTITUTE_VERBS for b in range(max(lo, a - 6), a - 2)):
            return -1  # "moving to the Lion optimizer"
        if a > lo and lem[a - 1] in ("with", "by"):
            # "replace X with Y"
            for b in before:
                if self._optimizer_at(b) and any(lem[v] in K.SUBSTITUTE_VERBS for v in range(max(lo, b - 3), b)):
                    return b
        verb = a - 1 if a > lo and lem[a - 1] != "the" else a - 2
        if verb >= lo and lem[verb] in ("use", "try") and \
                any(lem[v] in K.WEIGHING_LEADS for v in range(max(lo, verb - 3), verb)):
            return -1  # "can I just use Lion?", "planning to try Lion"
        if a > lo and lem[a - 1] in K.WEIGHING_LEADS and "help" in lem[a + 1:min(hi, a + 8)]:
            return -1  # "would Lion help?"
        after = range(a + 1, min(hi, a + 7))
        for c in after:
            # "Y instead of X", "Y as a replacement for X", "Y a good alternative to X"
            if lem[c] == "instead" and c + 1 < hi and lem[c + 1] == "of":
                return next((d for d in range(c + 2, min(hi, c + 5)) if self._optimizer_at(d)), -1)
            if lem[c] in K.REPLACEMENT_WORDS:
                return next((d for d in range(c + 1, min(hi, c + 4)) if self._optimizer_at(d)), -1)
        return None

    def _switch_reason(self) -> None:
        """Why a weighed switch is wanted, from a reason noun beside a reason marker (``SWITCH_REASONS``)."""
        toks = self.tokens
        for k, t in enumerate(toks):
            reason = K.SWITCH_REASONS.get(t.lemma) or K.SWITCH_REASONS.get(t.text.lower())
            if reason is None:
                continue
            marked = False
            for u in reversed(toks[max(0, k - 4):k]):
                if u.kind == "punct":
                    break  # a marker in another clause is not this noun's
                marked = marked or u.lemma in K.REASON_MARKERS
            head = [u.lemma for u in toks[k + 1:k + 5]]
            while head and head[0] in ("be", "the", "main", "only", "real", "biggest", "my", "our"):
                head.pop(0)
            if marked or (head and head[0] in K.REASON_HEADS):
                self.add({"switch_reason": reason}, t.start, t.end)
                return
        # no reason noun, but the run's own trouble read beside the switch: that trouble is what the switch is for
        # ("AdamW keeps giving me loss spikes, should I try Muon?"); the switch to a newer optimizer is then the
        # modern-optimizer request with its reason said
        for r in self.u.readings:
            reason = K.TROUBLE_REASONS.get((r.name, str(r.value)))
            if reason is None:
                continue
            self.add({"switch_reason": reason}, r.start, r.end)
            if any(c.name == "considering" and c.value in K.MODERN_OPTIMIZERS for c in self.u.readings):
                self.add({"vague_query": "modern_optimizer"}, r.start, r.end)
            return
        # no reason given, and the run said healthy ("my AdamW run is fine", "training is stable", "no problems so
        # far"), with no trouble read anywhere: the switch is weighed for its newness alone
        if any(r.name in K.TROUBLE_NAMES for r in self.u.readings if r.value not in ("direct_question",
                                                                                      "decreasing_normally")):
            return
        for k, t in enumerate(toks):
            negated = self._negated(k, max(0, k - 4))
            if (t.lemma in K.HEALTHY_RUN_WORDS and not negated) or (t.lemma in K.TROUBLE_WORDS and negated):
                self.add({"switch_reason": "none"}, t.start, t.end)
                return

    def _suspected(self) -> None:
        """A setting the user suspects of causing the trouble: ``self_diagnosis``, a hypothesis to check.

        "could it be the lr?", "is it my scheduler?" (a yes/no question that puts the setting after "be"), "maybe
        the batch size is too small", "I suspect the scheduler" (``SUSPECT_VERBS`` before it in its clause), "the lr
        might be the culprit" (``SUSPECT_HEADS`` after it). A choice asked about ("is a scheduler necessary?",
        ``CHOICE_WORDS``) and a suspicion denied ("it's not the lr") suspect nothing. The first one said is read,
        and the user is told it will be checked rather than taken as the diagnosis.
        """
        toks = self.tokens
        for lo, hi in self._sentences():
            asked = hi < len(toks) and toks[hi].text == "?"
            choice = bool({t.lemma for t in toks[lo:hi]} & K.CHOICE_WORDS)
            for p in self.parts_in(lo, hi):
                topic = p.roles.get("topic") or K.TOPIC_VALUES.get(" ".join(self.lemmas(p.i, p.j))) \
                    if "topic" in p.roles or "tv" in p.roles else None
                name = K.SUSPECT_NAMES.get(topic or "")
                if name is None or self._negated(p.i, lo):
                    continue
                a = p.i
                while a > lo and not _breaks(toks[a - 1]):
                    a -= 1
                # a yes/no question opened in the setting's own clause: "(loss explodes,) could it be the lr?"
                opens = asked and not choice and (toks[a].lemma in K.YES_NO_LEADS or toks[a].text in K.QUESTION_LEADS)
                k = p.i - 1
                while k > a and toks[k].lemma in ("the", "my", "our", "a", "an", "this", "that", "it", "just"):
                    k -= 1
                near = [toks[k].lemma] if k >= a else []  # the verb right before the setting
                head = [w for w in self.lemmas(p.j, min(hi, p.j + 6)) if w not in ("the", "a", "real", "main")]
                # "is it my scheduler?", "could it be the lr?"; "could the batch size be too small?"
                judged = head[1:2] and (head[1] in K.SUSPECT_JUDGEMENTS or head[1] in K.SUSPECT_HEADS)
                if self._cleared(a, p, hi):
                    continue
                framed = (opens and (("be" in near and not self._valued(p.j, hi)) or (head[:1] == ["be"] and judged))) \
                    or \
                    (any(w in K.SUSPECT_VERBS or w in K.HEDGES for w in self.lemmas(a, p.i)) and
                     not self._stated(a, p, hi)) or \
                    (len(head) > 1 and head[0] in ("be", "could", "might", "may", "must") and
                     any(w in K.SUSPECT_HEADS for w in head[1:4]))
                if not framed:
                    continue
                if any((r.name == "symptom" and PROBLEM_SYMPTOMS.test(r.value)) or r.name == "loss_behavior"
                       for r in self.u.readings if not r.fallback):
                    # (itself the user's hypothesis: no "you sounded unsure" line beside this one)
                    self.add({"self_diagnosis": name}, p.start, p.end)
                    self.u.confirm.append((f"suspect:{name}", f"You suspect the {name}: it is checked against what "
                                                              f"the run shows before anything is changed "
                                                              f"(`forget self_diagnosis` drops it)"))
                else:
                    # no trouble said beside it (the evidence of CL-EVID-*): a suspicion alone would hold every
                    # route (PR-HOLD-02), so it is offered to confirm instead, and the rest of the text routes
                    words = self.text[p.start:p.end]
                    self.u.confirm.append(("asked:self_diagnosis", f"You suspect the {name}: what do you see in "
                                                                    f"the run that points to it? (`yes` records the "
                                                                    f"suspicion)"))
                    self.u.offered.append(Observation.make("self_diagnosis", name, f"text:{words} (suspected)"))
                return

    def _cleared(self, a: int, p: Part, hi: int) -> bool:
        """Whether the setting at ``p`` is cleared rather than suspected.

        "I doubt the batch size is the issue", "ruled out the lr" (``SUSPECT_DENIALS`` in its clause) and "the lr
        is not the culprit" (a negation before a ``SUSPECT_HEADS`` noun after the setting) deny the suspicion.
        """
        toks = self.tokens
        if any(t.lemma in K.SUSPECT_DENIALS for t in toks[a:min(hi, p.j + 6)]):
            return True
        for k in range(p.j, min(hi, p.j + 6)):
            if _breaks(toks[k]):
                break
            if toks[k].lemma in K.SUSPECT_HEADS:
                return self._negated(k, p.j)
        return False

    def _stated(self, a: int, p: Part, hi: int) -> bool:
        """Whether the setting at ``p`` is given a value or judged fine, not suspected, after a hedge.

        "I think the batch size is 32", "probably lr 3e-4", "I think the optimizer is adam", "probably the batch
        size is fine": the hedge is about the value or clears it; "maybe the batch size is too small" suspects.
        """
        toks = self.tokens
        if "tv" in p.roles and any("topic" in o.roles for o in self.parts_in(a, p.i)):
            return True  # the value itself, said after its setting ("I think the optimizer is adam")
        k = p.j
        if k < hi and toks[k].lemma == "be":
            k += 1
        while k < hi and toks[k].lemma in ("the", "a", "an", "just", "set", "to", "="):
            k += 1
        if k >= hi:
            return False
        if toks[k].kind == "num" or toks[k].lemma in K.CONTRAST_FINE:
            return True
        q = self.by_token.get(k)
        # (a value of the setting named after it: "the optimizer is adam")
        return k > p.j and q is not None and q.i == k and "tv" in q.roles

    def _valued(self, k: int, hi: int) -> bool:
        """Whether a number follows token ``k`` closely ("is the lr 1e-3?" asks a value, suspects nothing)."""
        return any(t.kind == "num" for t in self.tokens[k:min(hi, k + 2)])

    def _bounded_output(self) -> tuple[float, float] | None:
        """The interval of a bounded activation the text puts at the model's output (``BOUNDED_OUTPUTS``)."""
        toks = self.tokens
        for k, t in enumerate(toks):
            bounds = K.BOUNDED_OUTPUTS.get(t.lemma)
            if bounds is None or self._negated(k, max(0, k - 4)):
                continue
            lo, hi = k, k + 1
            while lo > max(0, k - 5) and toks[lo - 1].text not in _SENTENCE_END:
                lo -= 1
            while hi < min(len(toks), k + 6) and toks[hi].text not in _SENTENCE_END:
                hi += 1
            if any(u.lemma in K.OUTPUT_MARKERS or u.text in K.OUTPUT_MARKERS for u in toks[lo:hi]):
                return bounds
        return None

    def _inside_number(self, k: int) -> bool:
        """Whether a dot at token ``k`` joins two numbers ("0..255"): no sentence ends there."""
        toks = self.tokens
        return 0 < k < len(toks) - 1 and toks[k].text == "." and toks[k - 1].end == toks[k].start and \
            toks[k + 1].start == toks[k].end and toks[k + 1].kind == "num"

    def _range_values(self, i: int, j: int) -> list[float]:
        """The numbers of ranges and value pairs in tokens ``[i, j)``.

        "0 to 255", "0-90", "0..255", "between 100 and 5000", "1 or 2", "up to 50" (``RANGE_LINKS``,
        ``RANGE_CAPS``). A number said alone is none.
        """
        toks = self.tokens
        out: list[float] = []
        for k in range(i, j):
            t = toks[k]
            if t.kind != "num" or t.unit or t.number is None:
                continue
            value = t.number
            prev = toks[k - 1] if k > i else None
            glued = prev is not None and prev.end == t.start and t.text[:1] in "-." and \
                (prev.kind == "num" or prev.text == ".")
            if glued:
                # "0-90", "280-310", "0..255": the tokeniser reads the upper end as signed or as a fraction
                value = float(t.text.lstrip("-.")) if t.text.lstrip("-.").replace(".", "", 1).isdigit() else value
                out.append(value)
                continue
            nxt = toks[k + 1] if k + 1 < j else None
            after = toks[k + 2] if k + 2 < j else None
            linked = nxt is not None and (nxt.lemma in K.RANGE_LINKS or nxt.text in K.RANGE_LINKS) and \
                after is not None and after.kind == "num"
            joined = prev is not None and (prev.lemma in K.RANGE_LINKS or prev.text in K.RANGE_LINKS) and \
                k - 2 >= i and toks[k - 2].kind == "num"
            capped = prev is not None and (prev.lemma in K.RANGE_CAPS or
                                           (prev.lemma == "to" and k - 2 >= i and toks[k - 2].lemma == "up"))
            if prev is not None and prev.lemma in K.RANGE_BEYOND:
                out.append(value * 1.01 + 0.01)  # "go above 1": past the number itself
            elif linked or joined or capped:
                out.append(value)
        return out

    def _bounded_loss(self) -> bool:
        """Whether the text names a loss taking targets in [0, 1] only (binary cross-entropy, ``BOUNDED_LOSSES``)."""
        toks = self.tokens
        for k, t in enumerate(toks):
            if t.kind != "word":
                continue
            if canonical_loss(t.text) in K.BOUNDED_LOSSES or (
                    t.lemma == "binary" and self.lemmas(k + 1, k + 3) in (["cross", "entropy"], ["crossentropy"])):
                return True
        return False

    def _listed_ids(self, k: int, hi: int) -> list[float]:
        """Class ids listed after token ``k`` up to a negation or "instead" ("1,2,3 not 0,1,2": the first list).

        A number written with commas that are no thousands separators ("1,2,3") is a list; "[1, num_classes]" a
        range from its first number; ranges and pairs as ``_range_values`` reads them.
        """
        toks = self.tokens
        end = k + 1
        while end < min(hi, k + 12) and toks[end].lemma not in K.NEGATORS and toks[end].lemma not in (
                "not", "instead", "rather", "but"):
            end += 1
        out: list[float] = []
        for n in range(k + 1, end):
            t = toks[n]
            pieces = t.text.split(",")
            if t.kind == "num" and len(pieces) > 1 and any(len(x) != 3 for x in pieces[1:]) and \
                    all(x.isdigit() for x in pieces):
                out += [float(x) for x in pieces]
            elif t.kind == "num" and n > 0 and toks[n - 1].text == "[" and t.number is not None:
                out.append(t.number)
        return out + self._range_values(k + 1, end)

    def _one_based_ids(self) -> None:
        """Class ids said to start at 1: ``label_check=not_zero_based``.

        "my targets are 1,2,3 not 0,1,2", "labels are in [1, num_classes]": ids listed after a word naming them
        (``CLASS_ID_ANCHORS``) whose least is 1, with no 0 among them, in a text about classes
        (``CLASS_CONTEXT``, a cross-entropy loss, or the ids' own word "class").
        """
        toks = self.tokens

        def about_classes() -> bool:
            """Whether the text is about classes (asked only of ids listed from 1: most texts list none)."""
            words = {t.lemma for t in toks} | {t.text.lower() for t in toks}
            return bool(words & K.CLASS_CONTEXT) or any(canonical_loss(t.text) in ("cross_entropy", "nll")
                                                        for t in toks if t.kind == "word")

        for lo, hi in self._sentences():
            for k in range(lo, hi):
                if toks[k].lemma not in K.CLASS_ID_ANCHORS and toks[k].text.lower() not in K.CLASS_ID_ANCHORS:
                    continue
                ids = self._listed_ids(k, hi)
                listed = len(ids) >= 2 or any(t.text == "[" for t in toks[k + 1:min(hi, k + 5)])
                # ("1,2,3 not 0,1,2": the ids it should be, from 0, set against them say they are class ids too)
                zero_said = any(t.kind == "num" and t.text.startswith("0,") for t in toks[lo:hi])
                if ids and listed and min(ids) == 1 and all(v == int(v) for v in ids) and \
                        (zero_said or about_classes()):
                    self.add({"label_check": "not_zero_based"}, toks[k].start, toks[min(hi, k + 6) - 1].end)
                    return

    def _reload_numbers(self) -> None:
        """A score given before saving and after loading again, only as numbers: ``reload_metric_drop``.

        "93% before saving, 12% after loading", "reloaded it gets 0.12, trained it had 0.93": each score (a
        percentage or a fraction) tied to the nearest side word within three tokens (``RELOAD_SAVED_SIDE``,
        ``RELOAD_LOADED_SIDE``); the reloaded one ``RELOAD_DROP`` of the saved one or less, in either order. A
        sentence about GPU use, memory or data loading (``RELOAD_NOT_METRIC``) holds no score.
        """
        toks = self.tokens
        for lo, hi in self._sentences():
            if set(self.lemmas(lo, hi)) & K.RELOAD_NOT_METRIC:
                continue
            sides: dict[str, list[tuple[int, float]]] = {"saved": [], "loaded": []}
            for k in range(lo, hi):
                t = toks[k]
                if t.kind != "num" or t.number is None or t.number < 0:
                    continue
                if t.unit == "%" and t.number <= 100:
                    value = t.number / 100
                elif not t.unit and 0 < t.number <= 1 and "." in t.text:
                    value = t.number
                else:
                    continue
                # (a side word across a comma is the other score's: "93% before saving, 12% after loading")
                # (at equal distance the words after the score are its own: "93% before saving and 90% after")
                near = sorted((abs(n - k), n < k, n) for n in range(max(lo, k - 3), min(hi, k + 4)) if n != k and
                              toks[n].lemma in K.RELOAD_SAVED_SIDE | K.RELOAD_LOADED_SIDE and
                              not any(x.kind == "punct" and x.text in ",;:()" for x in toks[min(n, k):max(n, k)]))
                if near:
                    side = "loaded" if toks[near[0][2]].lemma in K.RELOAD_LOADED_SIDE else "saved"
                    sides[side].append((k, value))
            if len(sides["saved"]) != 1 or len(sides["loaded"]) != 1:
                continue
            # (scores, not the share of time spent loading data: the keyword layer's reading of "12% ... loading")
            start, end = toks[lo].start, toks[hi - 1].end
            self.claim(start, end, ("data_time_fraction",))
            self.u.readings = [r for r in self.u.readings if not (
                start <= r.start and r.end <= end and (r.name == "data_time_fraction" or (
                    r.name == "symptom" and r.value == "slow_training")))]
            if sides["loaded"][0][1] <= K.RELOAD_DROP * sides["saved"][0][1]:
                ends = sorted((sides["saved"][0][0], sides["loaded"][0][0]))
                self.add({"reload_metric_drop": True}, toks[ends[0]].start, toks[ends[1]].end)
                return
        self._reload_told_in_order()

    def _reload_told_in_order(self) -> None:
        """A score, then the reload, then a far lower score, told as a story across clauses or two sentences.

        "val acc was 91% at the end of training, I saved the state_dict, loaded it in a new script and now it gives
        10%", "Evaluation right after training: 93%. Same eval after loading best.pt: 12%": the last score before a
        reload word (``RELOAD_LOADED_SIDE``) and the first after it, each within ``RELOAD_STORY_REACH`` tokens, with
        the training or the saving said before the reload; the later ``RELOAD_DROP`` of the earlier or less. Not
        when the stretch speaks of GPU use, time or data loading (``RELOAD_NOT_METRIC``), of weights pretrained
        elsewhere or of a resumed run (``RELOAD_NOT_STORY``), nor when either score is one of several.
        """
        toks = self.tokens
        scores: list[tuple[int, float]] = []
        for k, t in enumerate(toks):
            if t.kind != "num" or t.number is None or t.number < 0:
                continue
            if t.unit == "%" and t.number <= 100:
                scores.append((k, t.number / 100))
            elif not t.unit and 0 < t.number <= 1 and "." in t.text:
                scores.append((k, t.number))
        if len(scores) < 2:
            return
        reach = K.RELOAD_STORY_REACH
        for r, t in enumerate(toks):
            if t.kind != "word" or t.lemma not in K.RELOAD_LOADED_SIDE:
                continue
            before = [x for x in scores if r - reach <= x[0] < r]
            after = [x for x in scores if r < x[0] <= r + reach]
            if len(before) != 1 or len(after) != 1:
                continue
            (a, saved), (b, loaded) = before[0], after[0]
            words = {u.lemma for u in toks[a:b + 1]} | {u.text.lower() for u in toks[a:b + 1]}
            if words & (K.RELOAD_NOT_METRIC | K.RELOAD_NOT_STORY) or "?" in words:
                continue
            told = {u.lemma for u in toks[max(0, a - reach):r]}
            if not told & K.RELOAD_SAVED_SIDE or loaded > K.RELOAD_DROP * saved:
                continue
            self.add({"reload_metric_drop": True}, toks[a].start, toks[b].end)
            return

    def _head_short_of_classes(self) -> None:
        """A head with fewer outputs than the classes the text states: the classes win, the mismatch is read.

        "num_labels=2 but my labels run 0..4", "nn.Linear(512, 2) ... 5 classes": a count of the head's outputs
        (``num_outputs``, a config value such as num_labels) is a setting, the label range or class count said in
        words is the data. When the data has more classes, the config count must not stand as ``num_classes``;
        the ids past the last output are out of range for a class-index loss (``label_check=not_zero_based``, the
        reading of "target out of bounds"). One output beside two classes is a binary head (BCE), no mismatch.
        """
        # (the config's count is the one _classes read off "num_labels=N": a setting of the head)
        config = [r for r in self.u.readings if r.name == "num_classes" and isinstance(r.value, int) and
                  re.search(r"num_?labels", self.text[r.start:r.end], re.I)]
        if not config:
            return
        head = max(r.value for r in config)
        toks = self.tokens
        counts = [r.value for r in self.u.readings if r.name == "num_classes" and isinstance(r.value, int) and
                  r.value > head]
        for lo, hi in self._sentences():
            for k in range(lo, hi):
                if toks[k].lemma not in K.CLASS_ID_ANCHORS and toks[k].text.lower() not in K.CLASS_ID_ANCHORS:
                    continue
                if self._negated(k, max(lo, k - 3)):
                    continue
                ids = self._listed_ids(k, hi)
                # (a range written glued, "0..4", "0-4": _range_values keeps its upper end; its lower end is the
                # number right before)
                for n in range(k + 2, min(len(toks), k + 8)):  # (a sentence ends at "0." of "0..4")
                    low = n - 2 if toks[n - 1].text == "." else n - 1
                    if toks[n].kind == "num" and toks[n].text[:1] in "-." and low > k and \
                            toks[low].kind == "num" and toks[low].number is not None and \
                            toks[low].end == toks[low + 1].start and toks[n - 1].end == toks[n].start and \
                            not any(t.lemma in K.NEGATORS or t.lemma == "not" for t in toks[k + 1:low]):
                        top = toks[n].text.lstrip("-.")
                        ids += [toks[low].number] + ([float(top)] if top.isdigit() else [])
                # (ids from 0 said as a range: "0..4", "from 0 to 4"; the class count is the top id plus one)
                if len(ids) >= 2 and min(ids) == 0 and all(v == int(v) for v in ids):
                    counts.append(int(max(ids)) + 1)
        count = max(counts, default=0)
        if count <= head or (head < 2 and count <= 2):
            return
        self.u.readings = [r for r in self.u.readings if r not in config]
        self.add({"num_classes": count, "label_check": "not_zero_based"}, config[0].start, config[0].end)

    def _targets_out_of_reach(self) -> None:
        """Targets given as a range their consumer cannot take: ``target_range``.

        "my last layer is a sigmoid but the targets are prices between 100 and 5000", "tanh at the end, targets go up
        to 50": a bounded activation at the output (``_bounded_output``) and, after a word naming the targets
        (``TARGET_ANCHORS``), a range (``_range_values``) that leaves its interval (``outside_activation``). "targets
        for the binary cross entropy are 1 and 2": a loss that takes [0, 1] only (``_bounded_loss``,
        ``outside_loss``). The range runs until another quantity is named ("the model outputs 0.99 everywhere" is
        the output's).
        """
        if self._bounded_loss():
            bounds, value = (0.0, 1.0), "outside_loss"
        else:
            found = self._bounded_output()
            if found is None:
                return
            bounds, value = found, "outside_activation"
        toks = self.tokens
        for k, t in enumerate(toks):
            if t.lemma not in K.TARGET_ANCHORS and t.text.lower() not in K.TARGET_ANCHORS:
                continue
            if self._negated(k, max(0, k - 3)):
                continue
            end = k + 1
            while end < min(len(toks), k + 20) and (toks[end].text not in _SENTENCE_END or self._inside_number(end)):
                part = self.by_token.get(end)
                q = part.roles.get("q", "") if part is not None else ""
                # (a quantity right after the anchor is what the targets are: "label = pixel values")
                other = q and q not in ("labels", "pronoun", "run", "model") and not q.endswith("_weak") and \
                    end > k + 3
                if other or toks[end].lemma in K.OUTPUT_MARKERS or toks[end].lemma in K.BOUNDED_OUTPUTS:
                    break  # another quantity's numbers ("the model outputs 0.99")
                end += 1
            values = self._range_values(k + 1, end)
            if any(v < bounds[0] or v > bounds[1] for v in values):
                self.add({"target_range": value}, t.start, toks[end - 1].end)
                return

    def _uneven_ranks(self) -> None:
        """Ranks compared by how much work they have: ``rank_batch_counts=uneven``.

        "one rank has fewer batches than the others", "rank 0 still has 3 more batches to go" (a comparative before a
        count noun, ``UNEVEN_WORDS``, ``COUNT_NOUNS``), "rank 0 has 1250 batches and rank 1 has 1248" (two counts
        that differ), "one process finishes its batches earlier than the others" (``EARLY_WORDS``). The comparison
        must be between ranks: a rank singled out ("rank 0", "one process") or "than the others"; "with 4 GPUs the
        epoch has fewer steps than on 1 GPU" compares runs, and a sentence that weighs or asks compares nothing.
        """
        toks = self.tokens
        for lo, hi in self._sentences():
            end = hi + 1 if hi < len(toks) and toks[hi].text == "?" else hi
            words = {t.lemma for t in toks[lo:end]} | {t.text.lower() for t in toks[lo:end]}
            if not words & K.RANK_WORDS or "?" in words or words & K.WEIGHING_MARKERS:
                continue
            if not words & K.RANK_HANG_WORDS and any(
                    toks[k].lemma in K.CONTRAST_FINE and not self._negated(k, lo) for k in range(lo, hi)):
                continue  # "one gpu has more samples than the others but training works fine": nothing stalls
            singled = [k for k in range(lo, hi) if toks[k].lemma in K.RANK_WORDS and (
                (k + 1 < hi and toks[k + 1].kind == "num") or
                (k > lo and toks[k - 1].lemma in ("one", "some", "another", "single", "last", "slow", "slowest")))]
            found = None
            for k in range(lo, hi):
                w = toks[k].lemma if toks[k].lemma in K.UNEVEN_WORDS | K.EARLY_WORDS else toks[k].text.lower()
                nxt = self.lemmas(k + 1, min(hi, k + 4))
                than = next((n for n in range(k + 1, min(hi, k + 5)) if toks[n].lemma == "than"), None)
                # "than the others", "than rank 1": ranks compared; "than on 1 GPU": runs compared
                others = False
                if than is not None:
                    n = than + 1
                    while n < hi and toks[n].lemma in ("the", "all", "any"):
                        n += 1
                    others = n < hi and (toks[n].lemma in ("other", "others", "rest") or (
                        toks[n].lemma in K.RANK_WORDS and n + 1 < hi and toks[n + 1].kind == "num"))
                between = others or (than is None and bool(singled))
                # the count right after the comparative ("fewer batches", "a different number of steps"): "different
                # time per step" compares times, not counts
                counted = next((n for n in nxt if n not in K.COUNT_LEADS), None) in K.COUNT_NOUNS
                if (w in K.UNEVEN_WORDS and counted and between and not self._negated(k, lo)) or \
                        (w in K.EARLY_WORDS and others and any(
                            u.lemma in ("finish", "run", "exhaust", "end", "done") for u in toks[max(lo, k - 6):k])):
                    found = k
                    break
            if found is None and len(singled) >= 2:
                # "rank 0 has 1250 batches and rank 1 has 1248": the counts each rank is said to have
                counts = {toks[k + 1].number for k in range(lo, hi - 1) if toks[k].lemma in ("have", "get", "see")
                          and toks[k + 1].kind == "num"}
                if len(counts) >= 2:
                    found = singled[0]
            if found is not None:
                self.add({"rank_batch_counts": "uneven", "multi_gpu": True}, toks[found].start, toks[hi - 1].end)
                return

    def _measure(self, k: int) -> tuple[str, float] | None:
        """A timing at number token ``k``: (kind, seconds per unit of work) for a duration or a rate.

        "14 min" after "an epoch takes", "850 samples/s" are ``"run"`` timings (a data throughput's inverse);
        "0.7 s/it", "2 it/s", "a step takes 200 ms" are ``"step"`` timings (``STEP_TIME_WORDS``): with data
        parallelism a step on more GPUs does more work, so only run timings compare speeds across GPU counts.
        """
        toks = self.tokens
        t = toks[k]
        if t.kind != "num" or t.number is None or t.number <= 0 or k + 1 >= len(toks):
            return None
        unit = t.unit if t.unit in K.UNIT_SECONDS else toks[k + 1].lemma
        if unit in K.UNIT_SECONDS:
            return self._timing_kind(k), t.number * K.UNIT_SECONDS[unit]
        rate = toks[k + 1].text.lower()
        if k + 2 < len(toks) and self.text[toks[k + 1].end:toks[k + 2].start] == "/":
            rate = f"{rate}/{toks[k + 2].text.lower()}"  # "samples/s" split at the slash by the tokeniser
        if _RATE.fullmatch(rate):
            per, _, over = rate.partition("/")
            if per in K.UNIT_SECONDS:
                return "step", t.number * K.UNIT_SECONDS[per]
            kind = "step" if per.rstrip("s") in K.STEP_TIME_WORDS | {"batche"} else "run"
            return kind, K.UNIT_SECONDS.get(over, 1.0) / t.number
        return None

    def _timing_kind(self, k: int) -> str:
        """Whether the duration at token ``k`` is a step's or a run's: the nearest timing word before it."""
        toks = self.tokens
        after = self.lemmas(k + 2, min(len(toks), k + 4))
        if after[:1] == ["per"] and after[1:] and after[1] in K.STEP_TIME_WORDS | K.RUN_TIME_WORDS:
            return "step" if after[1] in K.STEP_TIME_WORDS else "run"  # "40 min per epoch", "200 ms per step"
        for n in range(k - 1, max(-1, k - 7), -1):
            if toks[n].text in _SENTENCE_END:
                break
            if toks[n].lemma in K.STEP_TIME_WORDS or toks[n].text.lower() in ("per-step", "per-iteration"):
                return "step"
            if toks[n].lemma in K.RUN_TIME_WORDS:
                return "run"
        return "run"

    def _device_comparison(self) -> None:
        """More devices said to be slower than fewer: a run that does not scale, read from which side is which.

        "a single GPU is faster than two", "4 GPUs slower than 1", "with two GPUs an epoch takes longer than with
        one": a comparative (``FASTER_WORDS``, ``SLOWER_WORDS``) before "than", each side's GPU count (a count of
        GPUs, "single", a bare count right after "than", or a word of a multi-device run, ``MULTI_DEVICE_WORDS``).
        The side with more devices slower is ``multi_gpu_speedup=none``; the side with more devices faster ("one
        GPU is slower than two") is a healthy speed-up, and the frames' reading of its words is taken back.
        """
        toks = self.tokens
        for lo, hi in self._sentences():
            for c in range(lo + 1, hi - 1):
                word = toks[c].text.lower()
                faster = word in K.FASTER_WORDS
                if not faster and word not in K.SLOWER_WORDS:
                    continue
                # ("takes longer per epoch than", "more time to train than": the words of what is timed between)
                than = next((n for n in range(c + 1, min(hi, c + 5)) if toks[n].lemma == "than"), None)
                if than is None or any(t.lemma not in K.TIMED_FILLERS and t.lemma not in K.MULTI_DEVICE_WORDS
                                       for t in toks[c + 1:than]):
                    continue
                if word in ("more", "less") and toks[c + 1].lemma != "time":
                    continue  # "more memory than", "less accurate than": no speed
                start = max((n + 1 for n in range(lo, c) if _breaks(toks[n]) and toks[n].lemma not in (
                    "with", "on", "using")), default=lo)
                end = next((n for n in range(than + 1, hi) if _breaks(toks[n])), hi)
                if "without" in self.lemmas(than, end):
                    continue  # "slower with find_unused_parameters than without it": a setting compared, not devices
                left, right = self._side_devices(start, c), self._side_devices(than, end, bare=True)
                # (a run said multi-device without its count has more devices only against one said single)
                left = 2 if left == 0 and right == 1 else left
                right = 2 if right == 0 and left == 1 else right
                if not left or not right or left == right:
                    continue
                cards = [{t.text.lower() for t in toks[a:b]} & K.GPU_NAMES for a, b in ((start, c), (than, end))]
                if cards[0] and cards[1] and cards[0] != cards[1]:
                    continue  # "an A100 is faster than two V100s": cards set against cards, no scaling
                # ("4 GPUs are not faster than 1": the more devices no faster, as slow as said slower; "not slower"
                # says neither side faster, nothing to set)
                negated = any(t.lemma in K.NEGATORS or t.lemma == "not" for t in toks[max(start, c - 2):c])
                # ("4 GPUs are not slower than 1": no side said slower, so the frames' "slow" is taken back below
                # and no speed-up is set either way)
                more_slow = False if negated and not faster else left > right if negated else \
                    (left > right) != faster
                span = (toks[start].start, toks[end - 1].end)
                if self._others_run(lo, c) or _asked(toks, lo, hi):
                    # "my friend says a single GPU is faster than two", "is one GPU faster than two?": another's
                    # claim or a question, nothing of the user's run (nor what the frames read of its words)
                    self.u.readings = [r for r in self.u.readings if not (
                        span[0] <= r.start and r.end <= span[1] and r.name in (
                            "multi_gpu", "multi_gpu_speedup", "symptom"))]
                    return
                # (the frames read "GPU ... slow ... one" whichever side was slow: the sides decide here; a speed-up
                # said partial, "only about 2x faster than one", stays)
                flat = {(r.start, r.end) for r in self.u.readings if span[0] <= r.start and r.end <= span[1] and
                        r.name == "multi_gpu_speedup" and r.value == "none"}
                if flat:
                    self.u.readings = [r for r in self.u.readings if not (
                        span[0] <= r.start and r.end <= span[1] and ((r.start, r.end) in flat or (
                            r.name == "symptom" and r.value == "slow_training")))]
                self.add({"multi_gpu": True}, *span)
                if more_slow:
                    self.add({"multi_gpu_speedup": "none", "symptom": "slow_training"}, *span)
                return

    def _device_worse(self) -> None:
        """A multi-device run said "worse" with no word of what: its speed or its results, offered to confirm.

        "more GPUs performs worse", "my multi-gpu run performs worse than my single gpu run": "worse" (a judgement of
        ``DEVICE_WORSE_WORDS``) of a run read as multi-device may be its speed (a run that does not scale,
        ``multi_gpu_speedup``) or its results (accuracy, loss), and the two are far apart. With a word of speed
        (``SPEED_SENSE_WORDS``) or a metric (``QUANTITIES``, ``OTHER_METRICS``, ``RESULT_SENSE_WORDS``) anywhere in
        the text, or a reading of either already made, the text says which and nothing is asked; a question,
        another's run or a negated judgement asks nothing either. Nothing is read until the user answers.
        """
        toks = self.tokens
        if not any(r.name == "multi_gpu" and r.value is True for r in self.u.readings):
            return
        if any(r.name in ("multi_gpu_speedup", "loss_behavior") or r.name == "symptom" for r in self.u.readings):
            return  # the speed or a curve already read: the text said which
        metrics = {w for w, q in K.QUANTITIES.items() if q in ("loss", "accuracy", "recall", "reward")}
        for t in toks:
            low = t.text.lower()
            if {t.lemma, low} & (K.SPEED_SENSE_WORDS | K.RESULT_SENSE_WORDS | K.OTHER_METRICS | metrics):
                return
        for lo, hi in self._sentences():
            for k in range(lo, hi):
                if toks[k].lemma not in K.DEVICE_WORSE_WORDS:
                    continue
                if _asked(toks, lo, hi) or (hi < len(toks) and toks[hi].text == "?") or toks[hi - 1].text == "?" \
                        or self._others_run(lo, k) or self._negated(k, lo) or \
                        set(self.lemmas(lo, hi)) & K.HYPOTHETICAL_WORDS:
                    continue
                self.u.confirm.append(("device worse", "You said the multi-GPU run is worse: slower (time per "
                                                       "epoch, throughput), or worse results (accuracy, loss)?"))
                return

    def _constant_lr(self) -> None:
        """"the learning rate is constant", "LR stays the same the whole run": the schedule, or a stuck LR trace.

        The learning rate linked (``LR_CONSTANT_LINKS``) to a constancy word (``LR_CONSTANT_WORDS``), before or after
        it ("a fixed lr"), plainly said (not negated, asked or wished): with a schedule named anywhere in the text
        (``SCHEDULE_NAMED``: "I set cosine but the LR stays the same") the LR applied did not follow it,
        ``lr_observed=stuck``; with none, the run has no schedule, ``lr_schedule=none``. A reading of either
        already made stands.
        """
        toks = self.tokens
        if any(r.name in ("lr_observed", "lr_schedule") for r in self.u.readings):
            return
        scheduled = bool({t.lemma for t in toks} & K.SCHEDULE_NAMED)
        for lo, hi in self._sentences():
            lem = self.lemmas(lo, hi)
            if set(lem) & K.HYPOTHETICAL_WORDS or hi < len(toks) and toks[hi].text == "?":
                continue
            for p, q, _split in self._quantities(self.parts_in(lo, hi)):
                if q != "lr":
                    continue
                after = next((k for k in range(p.j, min(hi, p.j + 5)) if toks[k].lemma in K.LR_CONSTANT_WORDS),
                             None)
                if after is not None and any(t.lemma not in K.LR_CONSTANT_LINKS for t in toks[p.j:after]):
                    after = None
                if after is None and p.j + 1 < hi and toks[p.j].lemma == "be" and toks[p.j + 1].lemma == "fix":
                    after = p.j + 1  # "lr is fixed at 3e-4" (the participle's lemma is the verb's)
                if after is not None and toks[after].lemma == "same" and (
                        self.lemmas(after + 1, after + 2) == ["as"] or not (
                            set(self.lemmas(p.j, after)) & {"stay", "remain"} or
                            set(self.lemmas(after + 1, min(hi, after + 4))) & {"whole", "entire", "throughout"})):
                    # ("I kept the lr the same as before": a setting left unchanged between runs, not a trace)
                    after = None
                before = p.i - 1 if p.i - 1 >= lo and toks[p.i - 1].lemma in K.LR_CONSTANT_WORDS - {"same"} else None
                k = after if after is not None else before
                if k is None or self._negated(min(k, p.i), lo):
                    continue
                span = (toks[min(k, p.i)].start, toks[max(k, p.j - 1)].end)
                self.add({"lr_observed": "stuck"} if scheduled else {"lr_schedule": "none"}, *span)
                return

    def _side_devices(self, i: int, j: int, bare: bool = False) -> int | None:
        """The GPU count one side of a comparison says in tokens ``[i, j)``.

        A count of GPUs (``_devices``); with ``bare``, a count right after "than" ("than two", "than 1", "than a
        single one", "than with one"); else 0 for a word of a multi-device run (several, how many not said).
        """
        toks = self.tokens
        found = self._devices(max(0, i - 1), j)
        if found is not None:
            return found
        if bare:
            k = i + 1
            while k < j and toks[k].lemma in ("with", "on", "using", "use", "a", "the", "just", "only"):
                k += 1
            if k < j:
                t = toks[k]
                if t.kind == "num" and t.number is not None and t.number == int(t.number) and not t.unit and \
                        1 <= t.number <= 100_000:
                    return int(t.number)
                if t.lemma in ("one", "single"):
                    return 1
                if t.lemma in K.NUMBER_WORDS and t.lemma not in ("more", "many", "several", "multiple"):
                    return K.NUMBER_WORDS[t.lemma]
        if any(t.lemma in K.MULTI_DEVICE_WORDS or t.text.lower() in K.MULTI_DEVICE_WORDS for t in toks[i:j]):
            return 0  # several devices, how many not said
        return None

    def _devices(self, i: int, j: int) -> int | None:
        """The GPU count said in tokens ``[i, j)`` ("on 4 GPUs", "a single GPU", "1 gpu:"), or None."""
        toks = self.tokens
        for k in range(i + 1, j):
            if toks[k].lemma not in ("gpu", "card", "device") and toks[k].text.lower() not in K.GPU_NAMES:
                continue
            prev = toks[k - 1]
            if prev.kind == "num" and prev.number is not None and prev.number == int(prev.number):
                return int(prev.number)
            if prev.lemma in K.SINGLE_DEVICE:
                return 1
            if prev.lemma in K.NUMBER_WORDS:
                return K.NUMBER_WORDS[prev.lemma]
        return None

    def _timed_pairs(self) -> None:
        """Two timings set side by side in one sentence: what the faster-meant side did to the speed.

        "an epoch takes 10 min on one GPU and 9 min on 4 GPUs", "800 samples/s on 1 GPU, 850 samples/s on 4 GPUs"
        (the speed-up of run or data-throughput timings against the GPU count, MT-SPEEDUP-FLAT, MT-SPEEDUP-PARTIAL;
        per-step timings and it/s give none unless the global batch is said fixed, since each GPU takes a batch of
        its own); "with amp my epoch takes 14 min, without it 10 min", "0.5 s/it with fp32 and 0.7 s/it with fp16"
        (a lower precision that did not speed the run up is slow training, MT-SPEEDUP-PRECISION). Each
        timing's side is the words from its half of the sentence (split between the two timings).
        """
        toks = self.tokens
        for lo, hi in self._sentences():
            measured = [(k, m) for k in range(lo, hi) if (m := self._measure(k)) is not None]
            if len(measured) != 2:
                continue
            (a, (kind_a, cost_a)), (b, (kind_b, cost_b)) = measured
            words = set(self.lemmas(lo, hi))
            # per-step timings compare speeds only where each step covers the same data on any GPU count
            fixed = "global" in words and bool(words & K.GLOBAL_BATCH_FIXED)
            runs = fixed or (kind_a == "run" and kind_b == "run")
            cut = next((n for n in range(a + 2, b) if _breaks(toks[n])), b - 1 if b - 1 > a + 1 else b)
            sides = ((lo, cut), (cut, hi))
            gpus = [self._devices(*side) for side in sides]
            if gpus[0] and gpus[1] and gpus[0] != gpus[1]:
                if not runs:
                    # "a step takes 200 ms on 1 GPU and 210 ms on 4": each GPU took its own batch, 4x the data
                    # in about the same time, no slowness said
                    self.add({"multi_gpu": True}, toks[a].start, toks[hi - 1].end)
                    return
                (few, c_few), (many, c_many) = sorted(((gpus[0], cost_a), (gpus[1], cost_b)))
                speedup = c_few / c_many
                start, end = toks[a].start, toks[hi - 1].end
                self.add({"multi_gpu": True}, start, end)
                if speedup <= threshold("MT-SPEEDUP-FLAT"):
                    self.add({"multi_gpu_speedup": "none", "symptom": "slow_training"}, start, end)
                elif speedup < threshold("MT-SPEEDUP-PARTIAL") * many / few:
                    self.add({"multi_gpu_speedup": "partial", "symptom": "slow_training"}, start, end)
                return
            # a lower precision (or a feature said "with", the other side "without it") that is not faster
            low = [any(r.name == "mixed_precision" and r.value not in ("none", None) and
                       toks[side[0]].start <= r.start < (toks[side[1]].start if side[1] < len(toks) else r.end + 1)
                       for r in self.u.readings) for side in sides]
            without = ["without" in self.lemmas(*side) for side in sides]
            faster_meant = 0 if (low[0] and not low[1]) or without[1] else 1 if (low[1] and not low[0]) or \
                without[0] else None
            if faster_meant is None or (low[0] and low[1]):
                continue
            costs = (cost_a, cost_b)
            if costs[faster_meant] >= costs[1 - faster_meant] * threshold("MT-SPEEDUP-PRECISION"):
                self.add({"symptom": "slow_training"}, toks[a].start, toks[hi - 1].end)
                # the other side's precision is the baseline measured against, not the run's
                b_lo, b_hi = sides[1 - faster_meant]
                span = (toks[b_lo].start, toks[b_hi - 1].end)
                self.u.readings = [r for r in self.u.readings if not (
                    r.name == "mixed_precision" and span[0] <= r.start < span[1])]
                self.claim(*span, {"mixed_precision"})
                self.u._index = None
                return

    def _contrasted_runs(self) -> None:
        """Two runs set side by side in one sentence, one judged healthy and one in trouble.

        "with bs 1024 it blows up, with 64 it's fine", "fp32 ok, fp16 nan", "on 1 GPU fine, on 4 it diverges",
        "a batch of 1024 diverges, smaller batches are fine": the troubled clause is the run asked about, the
        healthy one its baseline. The baseline's setting is not the run's; the setting the two differ in is what
        set the trouble off, read as the change it amounts to (``_read_change``, which asks the user to confirm),
        and a lower LR that trained stably is ``lower_lr_stable``. A bare number in one half stands for the setting
        the other half names (``ELLIPSIS_LEADS``). Runs once the whole text is read, over its readings.
        """
        by_sentence: dict[int, list[tuple[int, int]]] = {}
        for s, i, j in self._clause_spans():
            by_sentence.setdefault(s, []).append((i, j))
        for clauses in by_sentence.values():
            if len(clauses) < 2 or self._weighed_change(clauses[0][0], clauses[-1][1]):
                continue
            fine = [c for c in clauses if self._fine_clause(*c)]
            bad = [c for c in clauses if c not in fine and self._troubled_clause(*c)]
            if fine and bad:
                self._contrast(fine[0], bad[0])

    def _span(self, i: int, j: int) -> tuple[int, int]:
        return self.tokens[i].start, self.tokens[j - 1].end

    def _fine_clause(self, i: int, j: int) -> bool:
        """Whether clause ``[i, j)`` judges its run healthy (``CONTRAST_FINE``, not negated, no trouble read in it)."""
        toks = self.tokens
        judged = any(t.kind == "word" and t.lemma in K.CONTRAST_FINE and not self._negated(k, i) and
                     not (t.lemma == "fine" and k + 1 < j and toks[k + 1].lemma.startswith("tun"))
                     for k, t in enumerate(toks[i:j], i))
        return judged and not self._troubled_clause(i, j)

    def _troubled_clause(self, i: int, j: int) -> bool:
        """Whether a symptom or a loss behaviour was read from words inside clause ``[i, j)``."""
        lo, hi = self._span(i, j)
        # (the spans of those readings, sorted, kept up to date as readings are added: a long text has thousands,
        # and every clause asks)
        readings, held = self.u.readings, self._troubles
        if held[0] is not readings or held[1] > len(readings):
            held[:] = [readings, 0, []]
        if held[1] < len(readings):
            for r in readings[held[1]:]:
                if r.name in ("symptom", "loss_behavior"):
                    insort(held[2], (r.start, r.end))
            held[1] = len(readings)
        spans = held[2]
        k = bisect_left(spans, (lo,))
        while k < len(spans) and spans[k][0] < hi:
            if spans[k][1] <= hi:
                return True
            k += 1
        return False

    def _bare_number(self, i: int, j: int) -> Token | None:
        """A number said alone after a preposition in clause ``[i, j)`` ("with 64", "on 4"): an elided setting."""
        toks = self.tokens
        quantities = [p for p in self.parts_in(i, j) if {"q", "set", "t"} & set(p.roles) and
                      p.roles.get("q") not in ("pronoun", "run", "model")]
        for k in range(i, j):
            t = toks[k]
            # after a preposition ("with 64"), or opening its clause ("(with 128 it explodes,) but 32 is fine")
            led = k > i and toks[k - 1].lemma in K.ELLIPSIS_LEADS
            opens = all(u.lemma in K.ELLIPSIS_OPENERS for u in toks[i:k])
            if t.kind != "num" or t.unit or not (led or opens):
                continue
            nxt = toks[k + 1] if k + 1 < j else None
            if any(p.i <= k + 1 < p.j for p in quantities) or (nxt is not None and (nxt.kind == "num" or (
                    nxt.kind == "word" and nxt.text not in K.ELLIPSIS_FOLLOWERS and
                    nxt.lemma not in K.ELLIPSIS_FOLLOWERS and nxt.lemma not in K.CONTRAST_FINE))):
                return None  # "with 64 workers", "at 500 steps": the number is another quantity's
            return t
        return None

    def _contrast(self, good: tuple[int, int], bad: tuple[int, int]) -> None:
        """Read what one healthy clause ``good`` and one troubled clause ``bad`` differ in (``_contrasted_runs``)."""
        toks = self.tokens
        g_lo, g_hi = self._span(*good)
        b_lo, b_hi = self._span(*bad)
        start, end = min(g_lo, b_lo), max(g_hi, b_hi)
        unstable = any(b_lo <= r.start < b_hi and (r.value == "unstable" or r.value in K.INSTABILITY_BEHAVIORS)
                       for r in self.u.readings if r.name in ("symptom", "loss_behavior"))
        for name, kind in K.CHANGED_SETTINGS.items():
            g_said = [r for r in self.u.readings if r.name == name and g_lo <= r.start < g_hi]
            b_said = [r for r in self.u.readings if r.name == name and b_lo <= r.start < b_hi]
            g_value = g_said[0].value if g_said else None
            b_value = b_said[0].value if b_said else None
            numeric = name != "mixed_precision"
            if numeric and g_value is None and b_value is not None:
                n = self._bare_number(*good)
                g_value = None if n is None else n.number
            elif numeric and b_value is None and g_value is not None:
                n = self._bare_number(*bad)
                if n is not None and n.number is not None:
                    b_value = int(n.number) if name == "batch_size" else n.number
                    if name != "batch_size" or b_value == n.number:
                        self.add({name: b_value}, n.start, n.end)
            if b_value is None:
                continue
            quantity = next((q for q, n in K.QUOTED_SETTINGS.items() if n == name), None)
            lower = g_value is None and quantity is not None and any(
                p.roles.get("q") == quantity and p.i > 0 and toks[p.i - 1].lemma in K.CONTRAST_LOWER
                for p in self.parts_in(*good))
            if g_value is None and not lower:
                continue
            if g_value is not None and g_value == b_value:
                continue
            # the healthy run's value is the baseline: neither read as the run's nor left for a cue to read
            self.u.readings = [r for r in self.u.readings if r not in g_said]
            self.claim(g_lo, g_hi, {name})
            self.u._index = None
            if kind == "learning_rate":
                if unstable and (lower or (isinstance(g_value, (int, float)) and g_value < b_value)):
                    self.add({"lower_lr_stable": True}, start, end)
            else:
                self._read_change({"recent_change": kind}, start, end)
        # one device healthy, several in trouble: the GPU count is what differs
        one = any(t.lemma in K.SINGLE_DEVICE and u.lemma in K.COUNTED_SETTINGS
                  for t, u in zip(toks[good[0]:good[1]], toks[good[0] + 1:good[1]]))
        several = any(r.name == "multi_gpu" and r.value is True and b_lo <= r.start < b_hi for r in self.u.readings)
        if several and not one:
            # "on 4 GPUs it diverges, on 1 it's fine": the healthy half's bare 1 is one GPU
            n = self._bare_number(*good)
            one = n is not None and n.number == 1
        if one and not several:
            n = self._bare_number(*bad)
            if n is not None and n.number is not None and n.number >= 2 and n.number == int(n.number):
                self.add({"multi_gpu": True}, n.start, n.end)
                several = True
        if one and several:
            self._read_change({"recent_change": "gpu_count", "world_size_changed": True}, start, end)

    def _sentences(self) -> list[tuple[int, int]]:
        """``(first token, one past last)`` of each sentence (worked out once: a dozen readers walk them)."""
        if self._sentence_spans is None:
            spans: dict[int, tuple[int, int]] = {}
            for s, i, j in self._clause_spans():
                lo, _hi = spans.get(s, (i, j))
                spans[s] = (lo, j)
            self._sentence_spans = list(spans.values())
        return self._sentence_spans

    def _clause_spans(self) -> list[tuple[int, int, int]]:
        """``_clauses`` of the text's tokens and parts, which never change once read: worked out once."""
        if self._clause_list is None:
            self._clause_list = list(_clauses(self.tokens, self.parts))
        return self._clause_list

    def _changed(self, lo: int, hi: int, setting: str, start: int, end: int, before: Any = None,
                 after: Any = None) -> None:
        """A setting said with a before and an after value was changed: what changed (``CHANGED_SETTINGS``).

        A learning rate changed by its values is read by their order (``_lr_moved``).
        """
        kind = K.CHANGED_SETTINGS.get(setting)
        if kind is None or self._weighed_change(lo, hi):
            return
        if kind == "learning_rate":
            self._lr_moved(before, after, start, end)
        else:
            self._read_change({"recent_change": kind}, start, end)

    def _lr_moved(self, before: Any, after: Any, start: int, end: int) -> None:
        """An LR that went from ``before`` to ``after``: what its order says.

        A raise is ``recent_change=learning_rate`` (DF-CHG-LR's "the LR was raised"); a cut is kept for
        ``_lowered_lr_unstable``; values that cannot be ordered say neither.
        """
        if not isinstance(before, (int, float)) or not isinstance(after, (int, float)):
            return
        if after > before:
            self._read_change({"recent_change": "learning_rate"}, start, end)
        elif after < before and self._lowered_lr is None:
            self._lowered_lr = (start, end)

    def _lowered_lr_unstable(self) -> None:
        """A lowered LR in a text whose loss is unstable: the lower LR did not train stably.

        Reads ``lower_lr_stable`` false, unless the text already judged it (``INSTABILITY_BEHAVIORS``).
        """
        if self._lowered_lr is None or any(r.name == "lower_lr_stable" for r in self.u.readings):
            return
        if any(r.name == "loss_behavior" and r.value in K.INSTABILITY_BEHAVIORS for r in self.u.readings):
            self.add({"lower_lr_stable": False}, *self._lowered_lr)

    def _read_change(self, sets: dict[str, Any], start: int, end: int) -> None:
        """Read what changed, and offer the link the text only implies as a question to confirm.

        That the setting changed is said; that the change started the trouble is how the differential reads it
        (DF-CHG-*), so the user is asked rather than the link guessed silently.
        """
        self.add(sets, start, end)
        what = K.CHANGE_NAMES.get(sets["recent_change"], "a setting")
        self.u.confirm.append((f"change:{sets['recent_change']}",
                               f"You said {what} changed: did the trouble start right after that change? "
                               f"(`forget recent_change` if it was there before)"))

    def _weighed_change(self, lo: int, hi: int) -> bool:
        """Whether the sentence ``lo:hi`` says a change only weighed, asked about or tried as a remedy.

        "should I go from 64 to 1024?", "how do I change the lr" (``CHANGE_HYPOTHETICALS``, ``HOW_ASKS``) changed
        nothing in the run; "changing the lr only delays it" (``REMEDY_WORDS``) and "changing the lr has no effect"
        (``NULL_OUTCOMES`` denied) did not start the trouble.
        """
        toks = self.tokens
        return (hi < len(toks) and toks[hi].text == "?") or \
            any(t.lemma in K.CHANGE_HYPOTHETICALS or (t.lemma in K.REMEDY_WORDS and not self._curve_moves(k)) or
                t.text == "?" or
                # (a word listed as typed whose lemma is not: "thinking about moving to fp16", where "think" alone is
                # a hedge, "I think I moved to fp16")
                t.text.lower() in K.CHANGE_HYPOTHETICALS for k, t in enumerate(toks[lo:hi], lo)) \
            or any(t.lemma == "how" and u.lemma in K.HOW_ASKS for t, u in zip(toks[lo:hi], toks[lo + 1:hi])) \
            or any(t.lemma in K.NULL_OUTCOMES and any(u.lemma in K.NEGATORS for u in toks[max(lo, k - 3):k])
                   for k, t in enumerate(toks[lo:hi], lo))

    def _curve_moves(self, k: int) -> bool:
        """Whether the word at token ``k`` is a curve's own movement ("the loss stopped improving"), not a remedy's.

        Only ``CURVE_REMEDY_WORDS``, with a curve (``CURVE_SUBJECTS``) as their subject before them in their clause and
        only ``CURVE_VERB_FILLERS`` between.
        """
        toks = self.tokens
        if toks[k].lemma not in K.CURVE_REMEDY_WORDS:
            return False
        m = k - 1
        lo = max(clause_start(toks, k), k - 6)
        while m >= lo and toks[m].kind == "word" and toks[m].lemma in K.CURVE_VERB_FILLERS:
            m -= 1
        if m < lo:
            return False
        return any(p.i <= m < p.j and q in K.CURVE_SUBJECTS for p, q, _s in self._quantities(self.parts_in(lo, m + 1)))

    def _moved(self, lo: int, b: int, before: float, after: float, start: int, end: int) -> None:
        """A quantity said to go from one number to another moves up or down: compose that movement."""
        said = [q for q in self._quantities(self.parts_in(lo, b)) if q[1] not in ("pronoun", "run", "model")]
        if not said or before == after:
            return
        _p, quantity, split = said[-1]
        movement = "up" if after > before * 1.05 else "down" if after < before / 1.05 else "flat"
        if quantity == "loss" and split != "val" and 0 <= after < before and \
                (before - after) / before < threshold("MT-CURVE-SLOW") and self._slow_span(lo, b):
            # "the loss only went from 0.7 to 0.6 after 20 epochs": a small drop for all that training is slow
            # progress, not a curve coming down as it should; not another's run ("in the reference run ..."), nor
            # the validation loss named after the move ("... in 2 epochs on the val set")
            s_lo, s_hi = _sentence_bounds(self.tokens, _p.i)
            words = set(self.lemmas(s_lo, s_hi))
            if self._others_run(s_lo, _p.i) or (
                    "val" in {K.SPLITS[w] for w in words if w in K.SPLITS} and not {"train", "training"} & words):
                return
            self.add({"symptom": "not_learning", "loss_behavior": "decreasing_slowly"}, start, end)
            return
        sets = self._compose(quantity, split, movement, None, {"all"})
        if sets is not None and "loss_behavior" not in sets:
            self.add(dict(sets), start, end)
        elif sets is not None and sets.get("loss_behavior") == "diverging" and after >= 3 * before > 0:
            self.add(dict(sets), start, end)  # "loss went from 2.3 to 50": a rise that large is a divergence

    def _slow_span(self, lo: int, b: int) -> bool:
        """Whether the sentence from token ``lo`` says a loss's move by numbers (from token ``b``) took long.

        A word that makes it little ("only", "barely": ``LITTLE_WORDS``) before the numbers, or a stretch of
        training said with them: at least ``MT-SLOW-SPAN-EPOCHS`` epochs or ``MT-SLOW-SPAN-STEPS`` steps ("after 20
        epochs", "over 10k steps", "by epoch 30"). A word of a healthy run in the sentence ("fine", "good":
        ``HEALTHY_RUN_WORDS``) says the pace is no complaint.
        """
        toks = self.tokens
        hi = lo
        while hi < len(toks) and (toks[hi].text not in _SENTENCE_END or self._inside_number(hi)):
            hi += 1
        lemmas = {t.lemma for t in toks[lo:hi]}
        if lemmas & K.HEALTHY_RUN_WORDS:
            return False
        if any(t.lemma in K.LITTLE_WORDS for t in toks[max(lo, b - 6):b]):
            return True
        for k in range(lo, hi):
            t = toks[k]
            if t.kind != "num" or t.number is None or t.unit not in ("", "k"):
                continue
            n = t.number * (1000 if t.unit == "k" else 1)
            after = toks[k + 1].lemma if k + 1 < hi else ""
            before = toks[k - 1].lemma if k > lo else ""  # "by epoch 30"
            if (after in K.SPAN_EPOCHS or before in K.SPAN_EPOCHS) and n >= threshold("MT-SLOW-SPAN-EPOCHS"):
                return True
            if (after in K.SPAN_STEPS or before in K.SPAN_STEPS) and n >= threshold("MT-SLOW-SPAN-STEPS"):
                return True
        return False

    # -- the whole text ------------------------------------------------------------------------------------
    def read(self) -> Understanding:
        state: dict[str, Any] = {}
        sentences: dict[int, list[tuple[int, int]]] = {}
        for s, i, j in self._clause_spans():
            sentences.setdefault(s, []).append((i, j))
        for clauses in sentences.values():
            lo, hi = clauses[0][0], clauses[-1][1]
            state.pop("last", None)
            self._judged = {}
            for i, j in clauses:
                self.read_clause((lo, hi), i, j, state)
            self.compare(lo, hi)
            self.correlative(lo, hi)
            self.question(lo, hi + (1 if hi < len(self.tokens) and self.tokens[hi].text == "?" else 0))
            self.yes_no(clauses, hi)
            self.changes(lo, hi)
            self.change_verbs(lo, hi)
            # (a sentence opened by a linking word, "since switching to fp16 ...", keeps it for its frames)
            lead = lo - 1 if lo > 0 and self.tokens[lo - 1].lemma in _BREAK_WORDS else lo
            self.frames(lead, hi)
            self.order(lo, hi)
            self._values(lo, hi)
            self._judged_gap(self._judged)
            self._definition(lo, hi)
        self.evidence()
        self.code()
        self._chance()
        self._logged_flat()
        self._loss_at_chance()
        self._warmup_peak()
        self._named_settings()
        self._removal_objects()
        self._quoted_settings()
        self._elided_settings()
        self._model_families()
        self._then_now()
        self._contrasted_runs()
        self._substitutions()
        self._suspected()
        self._targets_out_of_reach()
        self._one_based_ids()
        self._head_short_of_classes()
        self._reload_numbers()
        self._uneven_ranks()
        self._timed_pairs()
        self._device_comparison()
        self._device_worse()
        self._constant_lr()
        self._lowered_lr_unstable()
        if self._train_unstable:
            # "train loss goes NaN and then val loss is NaN too": evaluation inherits what training broke, so the
            # NaN is not the evaluation pass's own
            self.u.readings = [r for r in self.u.readings if not (r.name == "nan_phase" and r.value == "evaluation")]
        if any(r.name == "val_spikes_with_train" and r.value is True for r in self.u.readings) and \
                any(r.name == "loss_behavior" and r.value == "spiking" for r in self.u.readings):
            # the validation loss jumping with the training loss's spike is the weights thrown off, not a held-out
            # curve that rises while training improves: no overfitting, no validation rise of its own
            self.u.readings = [r for r in self.u.readings if r.name != "val_loss_rising" and
                               (r.name, r.value) != ("symptom", "overfitting")]
        if any(r.name == "spike_recovers" and r.value is True for r in self.u.readings):
            # a rise said to come back down by itself is a transient spike ("shoots up, then goes back down"): the
            # rise is that spike, not a lasting divergence
            self.u.readings = [Reading(r.name, "spiking", r.start, r.end, r.strong, r.hedged, r.evidence, r.fallback,
                                       r.named)
                               if r.name == "loss_behavior" and r.value == "diverging" else r
                               for r in self.u.readings]
        if self.error_spans:
            # words inside a pasted error are the error's ("weight type ... should be the same" is no flat weight)
            # (a reading that runs on past the error into a clause of its own is that clause's: "runs out of gpu
            # memory, memory is never released between folds" says the memory is held on, beside the error)
            # (and a trouble said before the error that it ends in: "gpu memory creeps up every iteration until it
            # OOMs around step 2000" is memory growing, the OOM its end)
            self.u.readings = [r for r in self.u.readings if r.evidence or not any(
                s < r.end and r.start < e and not (r.end > e and _RUNS_ON.search(self.text, e, r.end)) and
                not (r.start < s and (r.name, r.value) in K.ENDS_IN_ERROR)
                for s, e in self.error_spans)]
        if not self.u.readings:
            self._quantity_fallback()
        self.u.on_topic = self._on_topic()
        if not self.u.on_topic:
            # "we resumed the meeting after lunch": everyday words of going on, said of no run
            # (a run named as cut short is training's by itself: "continuing a stopped run")
            self.u.readings = [r for r in self.u.readings if (r.name, r.value) not in K.TOPIC_BOUND_READINGS
                               or self._stopped_run(r.start, r.end)]
        return self.u

    def _stopped_run(self, start: int, end: int) -> bool:
        """Whether the words at ``start:end`` name a run cut short (``STOPPED_RUN``: "a stopped run")."""
        lemmas = {t.lemma for t in self.tokens if start <= t.start and t.end <= end}
        return all(lemmas & words for words in K.STOPPED_RUN)

    def _quantity_fallback(self) -> None:
        """Nothing composed: the first training quantity named (``QUANTITY_FALLBACKS``) gives a weak reading.

        "the train loss goes down in steps at each new epoch" names the loss and a movement no composition knows;
        rather than nothing, the figure the complaint is about is read, weakly, and a question asks how it moves.
        """
        if any(p.roles.get("m") in K.FIT_MOVES for p in self.parts):
            # "the training loss is great": a figure judged good is not the trouble; "I overfit a single batch and
            # the loss goes to 0": a fit sought on purpose, neither
            return
        for p in self.parts:
            q = p.roles.get("q")
            if q not in K.QUANTITY_FALLBACKS or "m" in p.roles or self._as_time(p) or \
                    any(s <= p.start < e for s, e in self.error_spans + self._concepts + self._expected):
                continue
            if clause_status(self.tokens, p.i, p.j, hedge=False) in (NEGATED, PAST):
                continue  # "no loss curve yet", "the loss used to be weird, fixed now": nothing is said of it now
            c_lo = clause_start(self.tokens, p.i)
            if self._others_run(c_lo, p.i):
                continue  # "my friend's loss goes nan": another person's figure, nothing said of the user's run
            if any("m" in o.roles and o.i >= p.j and self._negated(o.i, c_lo)
                   for o in self.parts_in(p.j, _clause_end(self.tokens, p.i))):
                continue  # "the loss is not nan", "val loss isn't going up": a trouble of it denied, none said
            if q in K.JUDGED_FALLBACKS and not self._judged_at_all(p):
                continue  # "gpu util" alone: a name, nothing said of it
            if self._judged_fine(p) or self._above_reference(p):
                # "the loss looks fine", "it fits in memory", "92% val accuracy, above the baseline": named as what
                # is not the trouble
                continue
            if self._spread(p):
                continue  # "val loss 0.30, 0.33, 0.37 across 3 seeds": one figure per run, no behaviour said
            if self._healthy(p, q):
                self.u.no_guess = True  # "the loss goes down steadily": a healthy run described
                continue
            lo, hi = _sentence_bounds(self.tokens, p.i)
            if any(o.roles.get("m") == "same" for o in self.parts_in(lo, hi)) and \
                    set(self.lemmas(lo, hi)) & _SAME_ACROSS:
                continue  # "the same accuracy every time I evaluate": repeats that agree, nothing wrong said of it
            if self.tokens[p.i].text in K.EVERYDAY_QUANTITY_WORDS and not self._on_topic((p.i, p.j)) and \
                    not self._judged_at_all(p) and not self._predicated(p):
                continue  # "sorry for your loss": an everyday word, judged of nothing, in a text of nothing else
            if q in K.MEASURED_FALLBACKS and not any(t.lemma in K.MEASURE_WORDS or t.text in K.MEASURE_WORDS
                                                     for t in self.tokens[p.i:p.j + 1]):
                continue  # "the training steps", "my GPU": a thing named, not its speed ("data loading time": its)
            sets, what = K.QUANTITY_FALLBACKS[q]
            self.add(dict(sets), p.start, p.end, strong=False, fallback=True)
            self.u.confirm.append((f"fallback:{q}", f"You mentioned {what}, but I could not tell how it behaves: "
                                                    f"is it stuck, rising, jumping, NaN, or slow? (say it in other "
                                                    f"words)"))
            return

    def _definition(self, lo: int, hi: int) -> None:
        """A sentence asking what a thing is (``DEFINITION_LEADS``) names a concept: what it names is not the run's.

        "what are exploding gradients?", "can you explain what a vanishing gradient is?": the readings composed in
        it are dropped (but its question and topic), and a cue may set nothing in it; the question is left to the
        readers of questions. A sentence that speaks of the user's own things ("what is causing my loss to
        explode?") is a complaint asked as a question, and one that weighs a choice (``CHOICE_WORDS``: "what is the
        right loss for imbalanced data?") a request: both are read.
        """
        toks = self.tokens[lo:hi]
        k = 0
        while k < len(toks) and toks[k].lemma in K.DEFINITION_OPENERS:
            k += 1
        lemmas = [t.lemma for t in toks[k:k + 4]]
        lead = next((lead for lead in K.DEFINITION_LEADS if tuple(lemmas[:len(lead)]) == lead), None)
        if lead is None or \
                any(t.lemma in K.PERSONAL_WORDS or t.text in K.PERSONAL_WORDS or t.lemma in K.CHOICE_WORDS
                    or t.text in K.RUN_TALK_WORDS for t in toks) or \
                any(a.text == "going" and b.text == "on" for a, b in zip(toks, toks[1:])):
            return  # (the user's own run, or a choice asked: "what is the right loss for imbalanced data?")
        if self._definite_movement(lo + k + len(lead), hi):
            return  # "explain what the loss spikes mean": a movement of the run's own curve, asked about
        start, end = toks[0].start, toks[-1].end
        self.u.readings = [r for r in self.u.readings if not (start <= r.start and r.end <= end) or
                           r.name == "question_topic" or (r.name, r.value) == ("symptom", "direct_question")]
        self.claim(start, end, _concept_claims())
        self._concepts.append((start, end))
        self.u.no_guess = True

    def _definite_movement(self, lo: int, hi: int) -> bool:
        """Whether the words after a definition's lead (tokens ``lo``..``hi``) open with "the" and move a quantity.

        "explain what the loss spikes mean": the quantity is the user's curve, and it moves ("spikes" after "loss");
        "what is the difference between an epoch and a step?" moves nothing, and "what is the vanishing gradient
        problem" names a movement before its quantity (a concept's name).
        """
        if lo >= hi or self.tokens[lo].lemma != "the":
            return False
        parts = self.parts_in(lo, hi)
        return any("q" in a.roles and "m" in b.roles and b.i >= a.j for a in parts for b in parts)

    def _unhealthy_detail(self, lo: int, hi: int) -> bool:
        """Whether the sentence (tokens ``lo``..``hi``) says more of a wanted movement than that it happens.

        A value or target it moves to ("converges to 0.69", "drops to zero"; not "from 2.3 to 0.4"), a word that
        limits or doubts it (``UNHEALTHY_DETAIL_WORDS``: "only", "suspiciously", "fast", "then stops"), "too"
        before another word ("too fast"), or a second movement no quantity should make ("goes down and then goes
        up"): then the sentence is no healthy run described, and the coarse reading may guess.
        """
        toks = self.tokens
        for k in range(lo, hi):
            t = toks[k]
            if t.text in K.UNHEALTHY_DETAIL_WORDS or t.text.startswith("suspicious"):
                return True
            if t.text == "too" and k + 1 < hi and toks[k + 1].kind == "word":
                return True
            value = k + 1 < hi and (toks[k + 1].kind == "num" or toks[k + 1].text in ("zero", "nothing"))
            if t.text == "to" and value and not any(toks[n].text == "from" for n in range(max(lo, k - 4), k)):
                return True
        last_q = None
        fresh = True  # a quantity named since the last movement (the next movement may be its own)
        for o in self.parts_in(lo, hi):
            if "q" in o.roles:
                last_q, fresh = o.roles["q"], True
            elif "m" in o.roles:
                m = o.roles["m"]
                if (last_q, m) not in K.HEALTHY_MOVES and (m not in K.HEALTHY_COMPANIONS or
                                                           (m in _DIRECTIONS and not fresh)):
                    return True  # "goes down and up": a second direction with no quantity of its own is a shape
                fresh = False
        # a contrast that sets the wanted movement against something else ("train loss drops but val loss does
        # not", "... while train loss drops", "goes down but the generated text is repeated"): the other side is
        # the complaint, unless it too is a wanted movement ("the loss goes down while accuracy goes up")
        for k in range(lo + 1, hi - 1):
            if toks[k].lemma not in _CONTRASTS:
                continue
            for a, b in ((lo, k), (k + 1, hi)):
                if any(t.kind == "word" for t in toks[a:b]) and not any(
                        (self._side_quantity(o, a), o.roles.get("m")) in K.HEALTHY_MOVES and not self._negated(o.i, a)
                        for o in self.parts_in(a, b)):
                    return True
        return False

    def _side_quantity(self, o: Part, lo: int) -> str | None:
        """The quantity a movement part ``o`` is said of: the last one named from ``lo`` up to it."""
        return next((x.roles["q"] for x in reversed(self.parts_in(lo, o.i)) if "q" in x.roles), None)

    def _healthy(self, p: Part, q: str) -> bool:
        """Whether the sentence of quantity ``p`` (``q``) describes a healthy run.

        It moves ``q`` the way training wants (``HEALTHY_MOVES``: "the loss goes down steadily", "val accuracy
        improved"), unnegated and with no shape to it (``SHAPE_WORDS`` after "in", "like" or "with": "goes down in
        steps" is a shape to ask about); or it judges something fine ("the curves look healthy") and nothing odd,
        off or compared (``COMPARING_WORDS``).
        """
        lo, hi = _sentence_bounds(self.tokens, p.i)
        toks = self.tokens
        if any(toks[k].text in K.SHAPE_WORDS and any(t.lemma in ("in", "like", "with") for t in toks[max(lo, k - 2):k])
               for k in range(lo, hi)):
            return False
        if any((q, o.roles.get("m")) in K.HEALTHY_MOVES and not self._negated(o.i, lo)
               for o in self.parts_in(lo, hi)):
            return not self._unhealthy_detail(lo, hi)
        fine = any(t.kind == "word" and t.lemma in K.FALLBACK_CONTENT and not self._negated(k, max(lo, k - 3))
                   for k, t in enumerate(toks[lo:hi], lo))
        return fine and not any(t.lemma in K.COMPARING_WORDS or t.text in K.COMPARING_WORDS for t in toks[lo:hi])

    def _predicated(self, p: Part) -> bool:
        """Whether quantity ``p`` opens its sentence as the subject of a predicate ("the loss is xyzzy").

        Something is said of it, if in words the reader does not know. Only a determiner may stand before it, and
        a verb or "be" and a word after it; "the loss of my father", "sorry for your loss" say nothing of a curve.
        """
        lo, hi = _sentence_bounds(self.tokens, p.i)
        toks = self.tokens
        if any(t.lemma not in _SUBJECT_LEADS for t in toks[lo:p.i]) or p.j >= hi or toks[p.j].kind != "word":
            return False
        nxt = toks[p.j].lemma
        if nxt == "be":
            return p.j + 1 < hi and toks[p.j + 1].kind == "word" and toks[p.j + 1].lemma not in _NOT_PREDICATES
        return nxt not in _NOT_PREDICATES

    def _judged_at_all(self, p: Part, reach: int = 8) -> bool:
        """Whether the sentence of ``p`` says a movement or a comparison near it (``COMPARING_WORDS``)."""
        lo, hi = p.i, p.j
        while lo > max(0, p.i - reach) and self.tokens[lo - 1].text not in _SENTENCE_END:
            lo -= 1
        while hi < min(len(self.tokens), p.j + reach) and self.tokens[hi].text not in _SENTENCE_END:
            hi += 1
        return any("m" in o.roles for o in self.parts_in(lo, hi)) or \
            any(t.lemma in K.COMPARING_WORDS or t.text in K.COMPARING_WORDS for t in self.tokens[lo:hi])

    def _above_reference(self, p: Part) -> bool:
        """Whether the sentence of ``p`` puts a figure above a reference ("above the baseline", "beats the paper").

        A word of surpassing (``ABOVE_WORDS``, not negated) with a reference (``REFERENCE_NOUNS``) within the three
        words after it: the figure is better than what it was measured against, no trouble.
        """
        lo, hi = _sentence_bounds(self.tokens, p.i)
        return any(t.lemma in K.ABOVE_WORDS and not self._negated(k, max(lo, k - 3)) and
                   set(self.lemmas(k + 1, min(hi, k + 4))) & K.REFERENCE_NOUNS
                   for k, t in enumerate(self.tokens[lo:hi], lo))

    def _judged_fine(self, p: Part, reach: int = 5) -> bool:
        """Whether the clause of ``p`` judges it as it should be (``FALLBACK_CONTENT``, said without a negation)."""
        def fine(k: int) -> bool:
            t = self.tokens[k]
            return t.kind == "word" and t.lemma in K.FALLBACK_CONTENT and not self._negated(k, max(0, k - 3))

        def ends(k: int) -> bool:
            t = self.tokens[k]
            return t.text in _BIND_BREAKS or t.text in _SENTENCE_END or (t.kind == "word" and t.lemma in _BREAK_WORDS)

        toks = self.tokens
        for k in range(p.j, min(len(toks), p.j + 2 * reach)):
            if ends(k) and not (toks[k].lemma == "and" and k + 1 < len(toks) and toks[k + 1].lemma in K.LINK_VERBS):
                break  # ("went from 2.3 to 0.1 and looks healthy": the same subject goes on, judged)
            if fine(k) and (k < p.j + reach or any(t.lemma in K.LINK_VERBS for t in toks[p.j:k])):
                return True
        for k in range(p.i - 1, max(-1, p.i - 1 - reach), -1):
            if ends(k):
                break
            if fine(k):
                return True
        return False

    def _named_settings(self) -> None:
        """Settings named in passing (``knowledge.talk.SETTING_NAMES``), unless negated, asked about or changed.

        Runs after every sentence is read: a question or a change claims its words for the settings it names.
        """
        self.u._index = None  # claims were added while reading: the index is rebuilt once here
        for p in self.parts:
            key = p.roles.get("set")
            if key is None:
                continue
            lead = self._path_start(p.i)  # "torch.cuda.amp.GradScaler": the name starts at its module path
            if self._removal_denied(lead, max(0, lead - 6)):
                # "I haven't removed the GradScaler": the removal is denied, not the setting; a switch stays on
                on = {n: True for n, v in K.SETTING_NAMES[key].items() if v is True and n in K.REMOVABLE_SWITCHES
                      and not self.u.claimed(p.start, p.end, n)}
                if on:
                    self.add(on, p.start, p.end, named=True)
                continue
            if self._negated(lead, max(0, lead - 3)) or self._baseline(p):
                continue
            if "mixed_precision" in K.SETTING_NAMES[key] and self._judged_cost(p):
                continue  # "fp32 takes too much memory": a precision judged by its cost, not said to be the run's
            if key in K.EVERYDAY_SETTING_NAMES and not self._on_topic():
                continue  # "the heater takes forever to warm up": everyday words, in a text of no training
            sets = {n: v for n, v in K.SETTING_NAMES[key].items() if not self.u.claimed(p.start, p.end, n)}
            if _SET_TO_NOTHING.match(self.text, p.end) and any(
                    v is True and n in K.REMOVABLE_SWITCHES for n, v in sets.items()):
                # "--lr_warmup_steps=0", "max grad norm = 0", "warmup_ratio: 0.0": the switch's own option set to
                # zero (or none, false) is the switch off, whatever its name holds
                self.add({n: False for n, v in sets.items() if v is True and n in K.REMOVABLE_SWITCHES},
                         p.start, p.end, named=True)
                continue
            if self._removed(lead):
                # "I removed the GradScaler", "disabled gradient clipping": a switch taken out is off; a value
                # taken out ("dropped fp16") says nothing of the one now in use; and what the name only implies
                # of the run stays ("forgot the DistributedSampler": the run is still on several GPUs)
                off = {n: False for n, v in sets.items() if v is True and n in K.REMOVABLE_SWITCHES}
                kept = {n: v for n, v in sets.items() if v is True and n not in K.REMOVABLE_SWITCHES}
                if off:
                    self.add(off, p.start, p.end, named=True)
                if kept:
                    self.add(kept, p.start, p.end, strong=key not in K.GENERIC_SETTINGS, named=True)
                continue
            if key in K.WEIGHT_FORMATS and self._of_weights(p):
                # "my weights are in fp32", "fp32 master weights": the format the parameters are stored in; fp32
                # weights say nothing of autocast ("weights in fp32 and bf16 autocast" is mixed bf16)
                fmt = K.WEIGHT_FORMATS[key]
                if not self.u.claimed(p.start, p.end, "weights_dtype"):
                    self.add({"weights_dtype": fmt}, p.start, p.end, named=True)
                if fmt == "fp32":
                    sets.pop("mixed_precision", None)
            if sets.get("optimizer") in K.OPTIMIZER_OPTIONS:
                sets["optimizer"] = self._with_option(p, sets["optimizer"])
            if sets:
                self.add(sets, p.start, p.end, strong=key not in K.GENERIC_SETTINGS, named=True)
        self.u._index = None

    def _path_start(self, i: int) -> int:
        """The first token of the module path before the name at ``i`` ("torch cuda amp" before "gradscaler")."""
        toks = self.tokens
        while i > 0 and toks[i - 1].kind == "word" and toks[i - 1].lemma in K.MODULE_PATH_WORDS:
            i -= 1
        return i

    def _removal_verb(self, i: int) -> int | None:
        """The removal verb whose object starts at token ``i`` ("removed the", "turned off", "got rid of"), or None."""
        toks = self.tokens
        k = i - 1
        while k >= 0 and i - k <= 3 and toks[k].kind == "word" and toks[k].lemma in K.REMOVAL_FILLERS:
            k -= 1
        if k < 0 or toks[k].kind != "word":
            return None
        particle = K.REMOVAL_PARTICLES.get(toks[k].lemma)
        if particle is not None:
            return k - 1 if k > 0 and {toks[k - 1].lemma, toks[k - 1].text} & particle else None
        return k if toks[k].lemma in K.REMOVAL_VERBS or toks[k].text in K.REMOVAL_VERBS else None

    def _removed(self, i: int) -> bool:
        """Whether the setting named from token ``i`` on is the object of a removal, said as done.

        "removed the GradScaler", "turned off warmup", "got rid of clipping"; not weighed ("should I remove the
        scaler?") nor tried ("tried removing warmup"), nor denied ("I haven't removed the scaler"), where the
        setting is still the run's.
        """
        toks = self.tokens
        verb = self._removal_verb(i)
        if verb is None:
            return False
        before = {t.lemma for t in toks[max(0, verb - 3):verb]} | {t.text for t in toks[max(0, verb - 3):verb]}
        return not (before & (K.CHANGE_HYPOTHETICALS | K.TRIED_WORDS | K.NEGATORS | {"not", "?"})) and \
            not any(t.text == "?" for t in toks[verb:min(len(toks), i + 6)])

    def _removal_denied(self, i: int, lo: int) -> bool:
        """Whether token ``i`` stands in the object of a denied removal: the setting is then still on.

        "I haven't removed the scaler", "didn't remove gradient clipping": the negation is the removal's.

        The removal verb is looked for up to four words before ``i`` in its clause (a setting named in words,
        "gradient clipping", is reached from its last word too), and must itself be negated.
        """
        toks = self.tokens
        for k in range(i, max(lo, i - 4) - 1, -1):
            if k < i and (toks[k].text in _BIND_BREAKS or toks[k].kind != "word"):
                return False
            verb = self._removal_verb(k)
            if verb is not None:
                return self._negated(verb, lo)
        return False

    def _removal_objects(self) -> None:
        """The words each removal said as done takes out (``Understanding.removed``), for the cues of switches.

        The object runs from the first word after the verb (its fillers skipped) for up to four words of its
        clause: "turned off <the learning rate warmup>", "got rid of <warmup>".
        """
        toks = self.tokens
        for i, t in enumerate(toks):
            if t.kind != "word" or t.lemma in K.REMOVAL_FILLERS or not self._removed(i):
                continue
            j = i
            while j + 1 < len(toks) and j + 1 - i < 4 and toks[j + 1].kind == "word" and \
                    toks[j + 1].lemma not in _JOINERS and toks[j + 1].lemma not in _BREAK_WORDS:
                j += 1
            self.u.removed.append((t.start, toks[j].end))

    def _of_weights(self, p: Part) -> bool:
        """Whether a numeric format is said of the parameters: "weights (are) in fp32", "fp32 (master) weights"."""
        toks = self.tokens
        k = p.i - 1
        while k >= 0 and p.i - k <= 4 and toks[k].kind == "word" and toks[k].lemma in K.WEIGHT_LINKS:
            k -= 1
        if k >= 0 and k < p.i - 1 and toks[k].lemma in K.WEIGHT_NOUNS:
            return True
        k = p.j
        while k < len(toks) and k - p.j < 2 and toks[k].lemma in ("master", "model"):
            k += 1
        return k < len(toks) and toks[k].lemma in K.WEIGHT_NOUNS

    def _judged_cost(self, p: Part) -> bool:
        """Whether a setting is the subject of a judgement of its cost ("fp32 takes too much memory", "bf16 OOMs").

        Nothing but an article or a plain adjective before it in its clause (not "my fp32 run": the user's own), and
        within a few words after it one of :data:`knowledge.talk.COST_JUDGEMENTS`. A precision so judged is the
        reason to weigh another one: the run may be in it or may have left it, the text does not say.
        """
        lo = clause_start(self.tokens, p.i)
        if any(t.lemma not in _BASELINE_FILLERS for t in self.tokens[lo:p.i]):
            return False
        hi = _clause_end(self.tokens, p.i)
        return bool(set(self.lemmas(p.j, min(hi, p.j + 5))) & K.COST_JUDGEMENTS)

    def _baseline(self, p: Part) -> bool:
        """Whether a setting is named as what the run is compared with ("slower than fp32", "compared to SGD").

        The setting after "than", "vs" or "compared to" (a word such as "plain" between them) is the baseline the
        user measures against, not the run's own.
        """
        before = self.lemmas(max(0, p.i - 3), p.i)
        while before and before[-1] in _BASELINE_FILLERS:
            before.pop()
        return bool(before) and (before[-1] in ("than", "vs", "versus") or before[-2:] in (["compare", "to"],
                                                                                          ["compare", "with"]))

    def _with_option(self, p: Part, name: str) -> str:
        """The optimizer an option said right after its name makes of it ("SGD(momentum=0.9)" is SGD with momentum)."""
        options, becomes = K.OPTIMIZER_OPTIONS[name]
        toks = self.tokens
        for k in range(p.j, min(len(toks), p.j + K.OPTION_REACH)):
            t = toks[k]
            if t.kind == "punct" and t.text in (".", "?", "!", "\n"):
                break
            if t.lemma in options:
                value = next((u.number for u in toks[k + 1:k + 3] if u.kind == "num"), None)
                off = next((u for u in toks[k + 1:k + 3] if u.lemma in ("false", "none", "off", "no")), None)
                if value == 0 or off is not None or self._negated(k, p.j):
                    return name
                return becomes
        return name

    def _model_families(self) -> None:
        """The model family a name states ("resnet50", "a BERT model", "gpt-2", "LSTMs"): the first one said."""
        toks = self.tokens
        for k, t in enumerate(toks):
            if t.kind != "word":
                continue
            family = self._family_at(k)
            if family is not None:
                self.add({"architecture": family}, t.start, t.end, named=True)
                return

    def _quoted_settings(self) -> None:
        """Settings quoted with their number ("lr 3e-4", "batch size of 64", "a batch of 1024", "4 GPUs").

        The number follows its quantity across linking words ("lr was set to 1e-3", "batch_size = 32"), or stands
        right before it ("32 batch size"). A number a change claims for its before-side ("from 64 to 1024") is
        passed over: the after-value is the run's. Runs after every sentence is read (a change claims its words).
        """
        self.u._index = None
        toks = self.tokens
        read: dict[str, int] = {}
        for p in self.parts:
            q = p.roles.get("q")
            if q == "gpu_util" and (self.lemmas(p.i, p.j) == ["gpu"] or
                                    (p.j - p.i == 1 and self.tokens[p.i].lemma in K.GPU_NAMES)):
                self._gpu_count(p)
                continue
            name = K.QUOTED_SETTINGS.get(q or "")
            if name is None or read.get(name, 0) >= QUOTED_CAP:
                continue
            if p.i > 0 and self.text[toks[p.i - 1].end:p.start] in ("", "_", "-") and \
                    toks[p.i - 1].lemma in K.OTHER_RATES:
                continue  # "min_lr 1e-6", "warmup_lr": another rate than the run's
            bare = self.lemmas(p.i, p.j) == ["batch"]
            found, linked, changed = None, False, False
            for k in range(p.j, min(len(toks), p.j + 6)):
                t = toks[k]
                if t.kind == "num":
                    if self.u.claimed(t.start, t.end, name):
                        continue  # the before-side of a change
                    found = t
                    # "a batch (1024 instead of 128)", "batch 64 -> 1024": a change says it is the size
                    linked = linked or (k + 1 < len(toks) and (toks[k + 1].lemma == "instead" or
                                                              toks[k + 1].kind == "arrow"))
                    break
                if t.lemma in K.SETTING_LINKS or t.text in ("=", ":", "~", "(", "->", "→") or (
                        t.lemma in K.PASSIVE_SETTING_LINKS and toks[k - 1].lemma in K.PASSIVE_AUXILIARIES):
                    linked = linked or t.lemma not in ("(",)
                    changed = changed or t.lemma in K.SETTING_CHANGE_LINKS or t.lemma in K.PASSIVE_SETTING_LINKS
                    continue
                break
            if found is not None and changed and self._change_not_made(p.i):
                continue
            if found is None and not bare and p.i > 0 and toks[p.i - 1].kind == "num" and not toks[p.i - 1].unit:
                found = toks[p.i - 1]  # "32 batch size"
            elif found is not None and bare and not linked and not self._used_setting(p.i):
                found = None  # "batch 3 gives NaN" is a batch's index; "a batch of 1024", "batch=64" its size
            if found is None or found.unit == "%" or self.u.claimed(found.start, found.end, name):
                continue
            if self._value_list(self._token_at(found)):
                continue  # "tried lr 1e-3, 1e-4 and 1e-5": values listed (a sweep), none of them the run's
            value = found.number
            if value is None:
                continue
            if found.unit == "k":
                value *= 1000
            if name == "batch_size":
                if value != int(value):
                    continue
                value = int(value)
            span = (min(p.start, found.start), max(p.end, found.end))
            self.add({name: value}, *span, named=True)
            read[name] = read.get(name, 0) + 1

    def _elided_settings(self) -> None:
        """A setting's number said again by the user with the setting left out: the user's own value of it.

        "the paper uses batch 4096 and I use 256", "their lr is 1e-3, mine is 1e-4": the setting named just before.

        The clause after the quoted setting, in its sentence, opens (after "and", "but", "while", a comma) with
        the user as its subject (``ELIDED_OWNERS``) and a verb of use or being, and holds a number and no quantity
        of its own; whose value the first one is, the attribution of its clause says (``expert.text``).
        """
        toks = self.tokens
        starts = [t.start for t in toks]
        for r in [r for r in self.u.readings if r.named and r.name in _ELIDED_NAMES]:
            k = bisect_left(starts, r.end)  # (the first token past the setting: the tokens run in text order)
            if k >= len(toks):
                continue
            _s_lo, s_hi = _sentence_bounds(toks, k - 1)
            # the next clause: past the joining word (or the ";" that joins two clauses), the owner first
            while k < s_hi and (toks[k].lemma in _ELIDED_JOINS or toks[k].text in (",", ";")):
                k += 1
            if k >= s_hi or toks[k].text.lower() not in ELIDED_OWNERS:
                continue
            end = min(s_hi, _clause_end(toks, k), k + 5)
            verb = next((n for n in range(k + 1, end) if toks[n].lemma in _ELIDED_VERBS), None)
            num = next((n for n in range(k + 1, end) if toks[n].kind == "num"), None)
            if verb is None or num is None or num < verb or any(
                    "q" in p.roles for p in self.parts_in(k + 1, num + 1)) or toks[num].unit == "%":
                continue
            nxt = num + 1
            if nxt < min(s_hi, _clause_end(toks, num)) and toks[nxt].kind != "punct" and \
                    toks[nxt].lemma not in _ELIDED_TAILS and \
                    not (r.name == "batch_size" and toks[nxt].lemma in _ELIDED_BATCH_UNITS):
                continue  # "and I use 8 GPUs", "4 A100s", "16 accumulation steps": a count of something else
            if self._negated(num, k):
                continue  # "..., I can't use 256": a value the user does not run
            value = toks[num].number
            if value is None or self.u.claimed(toks[num].start, toks[num].end, r.name):
                continue
            value *= 1000 if toks[num].unit == "k" else 1
            if r.name == "batch_size":
                if value != int(value):
                    continue
                value = int(value)
            self.add({r.name: value}, toks[k].start, toks[num].end, named=True)

    def _used_setting(self, k: int) -> bool:
        """Whether the setting named at token ``k`` is the object of a verb of use ("I use batch 4096", "train with").

        A bare "batch 4096" is a batch's index ("batch 3 gives NaN") unless it is what the run is run with.
        """
        n = k - 1
        while n >= 0 and self.tokens[n].kind == "word" and self.tokens[n].lemma in ("a", "the", "my", "our", "with"):
            n -= 1
        return n >= 0 and self.tokens[n].lemma in _USE_VERBS

    def _change_not_made(self, k: int) -> bool:
        """Whether a change of the setting at token ``k`` ("batch size was cut to 8") is none made to the user's run.

        Asked ("was the batch size cut to 8?"), said of another's run ("my colleague's batch size was cut to 8"), or
        the schedule's doing ("the lr got cranked up to 3e-3 by the warmup", ``LR_SCHEDULE_AGENTS``): the number is
        no setting of the run.
        """
        s_lo, s_hi = _sentence_bounds(self.tokens, k)
        return (s_hi < len(self.tokens) and self.tokens[s_hi].text == "?") or self._others_run(s_lo, k) or \
            bool(set(self.lemmas(s_lo, s_hi)) & K.LR_SCHEDULE_AGENTS)

    def _token_at(self, t: Token) -> int:
        """The index of token ``t`` (by its start)."""
        return bisect_left(self._token_starts, t.start)

    def _value_list(self, k: int) -> bool:
        """Whether the number at token ``k`` opens a list of values of its setting ("1e-3, 1e-4 and 1e-5").

        A joiner and another bare number right after it (one that counts no noun: "lr 1e-3, 100 epochs" is two
        settings).
        """
        toks = self.tokens
        return k + 2 < len(toks) and toks[k + 1].text in (",", "and", "or", "/") and toks[k + 2].kind == "num" and \
            not (k + 3 < len(toks) and toks[k + 3].lemma in _COUNTED)

    def _gpu_count(self, p: Part) -> None:
        """"4 GPUs", "2x GPU", "two gpus": more than one device is a multi-GPU run."""
        if p.i == 0:
            return
        prev = self.tokens[p.i - 1]
        if prev.kind == "num":
            value = prev.number
        else:
            value = K.NUMBER_WORDS.get(prev.lemma)
        if value is not None and value >= 2 and value == int(value):
            self.add({"multi_gpu": True}, prev.start, p.end)

    def _chance(self) -> None:
        """An accuracy at chance (about 1/classes) is a model that has learned nothing."""
        classes = next((r.value for r in self.u.readings if r.name == "num_classes"), None)
        if not isinstance(classes, (int, float)) or classes < 2:
            return
        for r in self.u.readings:
            if r.name in ("train_metric", "val_metric") and isinstance(r.value, float) and \
                    r.value <= 1.25 / classes + 0.02:
                self.add({"symptom": "not_learning"}, r.start, r.end, strong=False)
                return
        # an accuracy quoted with no split named ("acc 10% with 10 classes"): its figure right after it
        toks = self.tokens
        for p in self.parts:
            if p.roles.get("q") != "accuracy":
                continue
            k = p.j
            while k < min(len(toks), p.j + 4) and toks[k].kind != "num" and (
                    toks[k].lemma in K.VALUE_WORDS or toks[k].text in K.VALUE_WORDS or toks[k].lemma in K.TIME_COUNTS):
                k += 1
            if k >= len(toks) or toks[k].kind != "num" or toks[k].number is None:
                continue
            value = toks[k].number / 100 if toks[k].unit == "%" or toks[k].number > 1 else toks[k].number
            if 0 < value <= 1.25 / classes + 0.02:
                self.add({"symptom": "not_learning", "metric_kind": "accuracy"}, p.start, toks[k].end, strong=False)
                return

    def _logged_flat(self) -> None:
        """Log lines that print the training loss at one value, line after line: a flat curve.

        "Epoch 1/10 - loss: 2.3026 - accuracy: 0.1000" then "Epoch 2/10 - loss: 2.3026 ...", "{'loss': 0.6931,
        'epoch': 1.0}" twice: the figure labelled by the loss's name (right after it, or after its ":" or "="), taken
        over the whole text. Three or more within 1% of each other (well above 0), two the same to three decimals
        or more, or two within 1% said with a denied change ("no change in three epochs"), is a loss that does not
        move (as ``_repeats`` reads a series said in one line), and its first figure the loss at init. A validation
        loss, another's run, or a text that reads the loss moving already give none here.
        """
        if any((r.name == "loss_behavior" and r.value != "flat_from_start") or r.name == "loss_at_init"
               for r in self.u.readings):
            return
        flat_read = any((r.name, r.value) == ("symptom", "not_learning") for r in self.u.readings)
        toks = self.tokens
        figures: list[tuple[Part, Token]] = []
        for p, q, split in self._quantities(self.parts):
            if q != "loss" or split == "val":
                continue
            k = p.j
            while k < min(len(toks), p.j + 2) and toks[k].text in _LABEL_LINKS:
                k += 1
            if k < len(toks) and toks[k].kind == "num" and not toks[k].unit and toks[k].number is not None and \
                    not (k + 1 < len(toks) and toks[k + 1].lemma in _COUNTED):
                figures.append((p, toks[k]))
        # (a figure its clause says is expected, "Expected loss: 0.6931 at init", is a reference, no log record)
        figures = [(p, t) for p, t in figures
                   if not {u.lemma for u in toks[clause_start(toks, p.i):_clause_end(toks, p.i)]} & _LOG_EXPECTED]
        if len(figures) < 2 or any(self._others_run(clause_start(toks, p.i), p.i) for p, _t in figures):
            return
        if any(o.roles.get("m") in _FALLS_READ and not self._negated(o.i, clause_start(toks, o.i))
               for o in self.parts):
            return  # ("my loss: 0.6931 at init, then it decreases to 0.3": a loss that moves)
        if not self._log_records([p for p, _t in figures]):
            return
        values = [t.number or 0.0 for _p, t in figures]
        close = flat_values(values)
        fine = all("." in t.text and len(t.text.split(".")[1]) >= threshold("MT-FLAT-DECIMALS") for _p, t in figures)
        # (two close figures said with a denied change, "basically no change in three epochs", "barely moves")
        said_still = any(t.lemma in K.SCARCELY for t in toks) or any(
            o.roles.get("m") in ("change", "change_verb") and self._negated(o.i, clause_start(toks, o.i))
            for o in self.parts)
        if (len(values) >= 3 and close) or (fine and len(set(values)) == 1 and values[0] > 0) or \
                (len(values) == 2 and close and said_still):
            if not flat_read:
                self.add({"symptom": "not_learning"}, figures[0][0].start, figures[-1][1].end)
            if 0 < values[0] <= threshold("MT-CHANCE-LOSS-MAX"):
                # (the first line logged is the loss from the start: the chance-level check's value)
                self.add({"loss_at_init": values[0]}, figures[0][0].start, figures[0][1].end, strong=False)

    def _log_records(self, quoted: list[Part]) -> bool:
        """Whether the loss figures quoted at ``quoted`` are consecutive records of one run's log.

        Between one figure and the next loss name, only log words: no prose's function word (``_PROSE_WORDS``, "at
        init. My loss: ..."); and no two records labelled as different runs ("run A loss: 0.69 / run B loss: 0.69").
        """
        toks = self.tokens
        for a, b in zip(quoted, quoted[1:], strict=False):
            if any(t.kind == "word" and t.lemma in _PROSE_WORDS for t in toks[a.j:b.i]):
                return False
        labels = set()
        for p in quoted:
            lo = max(0, p.i - 4)
            for n in range(p.i - 2, lo - 1, -1):
                if toks[n].text in _SENTENCE_END:
                    break
                if toks[n].lemma in _RUN_LABELS:
                    labels.add(toks[n + 1].text.lower())
                    break
        return len(labels) < 2

    def _loss_at_chance(self) -> None:
        """The value a loss said not to move sits at: ``loss_at_init``, for the chance-level check.

        "loss stuck at 0.6931", "stays at 2.3026 every epoch", "loss refuses to budge from ln(2)", "loss: 4.605
        4.604 4.605": a training loss read as flat (``symptom=not_learning`` with no fall, plateau or rise said
        in its sentence) and the figure said right after the loss (or ``ln(k)`` / ``log(k)`` written out) is the
        loss from the start on, so its value at initialisation. Set against ln(num_classes) by DX-CHANCE-01 (the
        number of classes, when unsaid, is inferred from the value by ``expert.text``). A validation loss,
        another person's run, a time ("at step 500") or a setting's figure named between ("lr 0.69") give none.
        """
        toks = self.tokens
        flat = [r for r in self.u.readings if (r.name, r.value) in (("symptom", "not_learning"),
                                                                      ("loss_behavior", "flat_from_start"))]
        moving = {r.value for r in self.u.readings if r.name == "loss_behavior"} - {"flat_from_start"}
        if not flat or moving or any(r.name == "loss_at_init" or r.name in K.LOSS_MOVED for r in self.u.readings):
            return
        for lo, hi in self._sentences():
            if not any(toks[lo].start <= r.start < toks[hi - 1].end for r in flat):
                continue
            if {t.lemma for t in toks[lo:hi]} & (K.BOUND_WORDS | K.LATER_ONSET_WORDS):
                continue  # ("won't go below 2.0": a bound; "stuck at 0.6 after epoch 10": a level reached later)
            quantities = self._quantities(self.parts_in(lo, hi))
            stops = {o.i for o, q, _s in quantities if q != "loss"}
            for p, q, split in quantities:
                if q != "loss" or split == "val" or self._others_run(lo, p.i) or self._negated(p.i, lo):
                    continue
                found = self._chance_figure(p.j, min(hi, p.j + K.CHANCE_FIGURE_REACH), stops)
                if found is not None and found[0] <= threshold("MT-CHANCE-LOSS-MAX"):
                    value, end = found
                    self.add({"loss_at_init": value}, p.start, toks[end - 1].end, strong=False)
                    return

    def _warmup_peak(self) -> None:
        """An LR said to reach its peak far too soon: a schedule paced too fast (``scheduler_pace=too_fast``).

        "lr peaks after 10 steps", "warmup is over in the first 50 steps of 100k", "the lr hits its max at step 40
        instead of 4000": the peak (``WARMUP_PEAK_WORDS``) or the warmup's end (``WARMUP_DONE_WORDS``), said of the
        LR or the warmup, dated in optimizer steps (``PEAK_STEP_UNITS``). Sooner than the count planned, under
        ``MT-WARMUP-SHARE-MIN`` of the run's steps, or (with neither said) under ``MT-WARMUP-STEPS-MIN`` steps, the
        schedule ran ahead of the steps it was defined in. A later peak than planned is the slow pace's (a cue);
        a denial, a question, another's run or a setting ("warmup of 10 steps") read nothing here.
        """
        toks = self.tokens
        for lo, hi in self._sentences():
            lemmas = [t.lemma for t in toks[lo:hi]]
            if not ({"lr", "rate", "warmup", "warm-up"} & set(lemmas)):
                continue
            for k in range(lo, hi):
                t = toks[k]
                if t.lemma in K.WARMUP_PEAK_WORDS:
                    subject = self._warmup_subject(lo, k, {"lr", "rate", "warmup", "warm-up"})
                elif t.lemma in K.WARMUP_DONE_WORDS:
                    subject = self._warmup_subject(lo, k, {"warmup", "warm-up"})
                else:
                    continue
                if subject is None or self._negated(k, lo) or self._others_run(lo, subject) or \
                        _asked(toks, lo, hi, subject, k + 1):
                    continue
                if self._schedule_end(lo, hi):
                    return  # ("the lr peaks after 40 steps as expected": the peak its schedule was given)
                pace = self._peak_pace(k + 1, hi)
                planned = self._warmup_set()
                if pace is not None and not pace[0]:
                    # (a peak past the floor of steps: sooner than the warmup set only, "warmup is 4000 steps but
                    # the lr peaks at step 500")
                    if planned is None or planned is True or pace[2] >= planned:
                        continue
                    pace = ("too_fast", pace[1], pace[2])
                if pace is not None and pace[0] == "too_fast":
                    if planned is not None and (planned is True or pace[2] >= planned):
                        return  # ("a very short warmup (50 steps) ... peaks after 50": where the warmup was set)
                if pace is not None:
                    self.add({"scheduler_pace": pace[0]}, toks[subject].start, toks[pace[1] - 1].end)
                    return

    def _warmup_set(self) -> float | bool | None:
        """The warmup length the text sets ("warmup_steps=50", "a warmup of 4000 steps"), True for one called short.

        ("a short warmup"; None for neither): an LR peaking no sooner than that peaks where it was set to (a short
        warmup, no schedule running ahead); sooner, the schedule runs ahead of it.
        """
        toks = self.tokens
        for k, t in enumerate(toks):
            word = t.text.lower()
            if "warmup" not in word and "warm-up" not in word:
                continue
            if k > 0 and toks[k - 1].lemma in ("short", "tiny", "small", "brief", "quick"):
                return True
            ahead = toks[k + 1:k + 4]
            if any(u.lemma in K.WARMUP_PEAK_WORDS or u.lemma in K.WARMUP_DONE_WORDS for u in ahead):
                continue  # ("warmup is over in the first 50 steps": when it ended, no length set)
            n = next((u for u in ahead if u.kind == "num"), None)
            if n is not None and _count(n) is not None:
                return _count(n)  # ("warmup of 50 steps", "warmup_steps=50", "warmup 50")
        return None

    def _warmup_subject(self, lo: int, k: int, subjects: set[str]) -> int | None:
        """The LR or warmup word the peak or end at ``k`` is said of: before it in its clause, at most 4 words back."""
        for n in range(k - 1, max(lo, k - 5) - 1, -1):
            if _breaks(self.tokens[n]):
                return None
            if self.tokens[n].lemma in subjects or self.tokens[n].text.lower() in subjects:
                return n
        return None

    def _peak_pace(self, a: int, hi: int) -> tuple[str, int, float] | None:
        """The pace a peak's date after token ``a`` says, the token after its words, the peak's step count.

        ``("too_fast", end, 10.0)``; ``""`` for the pace of a peak no sooner than the step floor with no planned
        or whole count said after it.

        The date: a time preposition, then a step count with its unit ("after 10 steps", "at step 40", "in the first
        50 steps"); then the planned count ("instead of 4000") or the run's ("of 100k"), if said.
        """
        toks = self.tokens
        n = a
        while n < min(hi, a + 3) and toks[n].lemma not in K.TIME_PREPOSITIONS and toks[n].lemma not in ("at", "by"):
            n += 1
        if n >= min(hi, a + 3):
            return None
        n += 1
        while n < hi and toks[n].kind != "num" and (toks[n].lemma in K.TIME_COUNTS or
                                                    toks[n].lemma in K.PEAK_STEP_UNITS):
            n += 1
        if n >= hi or toks[n].kind != "num":
            return None
        count = _count(toks[n])
        unit = toks[n - 1].lemma if toks[n - 1].lemma in K.PEAK_STEP_UNITS else \
            toks[n + 1].lemma if n + 1 < hi else ""
        if count is None or unit not in K.PEAK_STEP_UNITS or count <= 0:
            return None
        end = n + 1 + (toks[n + 1].lemma == unit if n + 1 < hi else 0)
        after = self.lemmas(end, min(hi, end + 4))
        for lead in K.PACE_DUE_LEADS:
            if tuple(after[:len(lead)]) == lead:
                due = next((m for m in range(end + len(lead), min(hi, end + len(lead) + 3))
                            if toks[m].kind == "num"), None)
                planned = _count(toks[due]) if due is not None else None
                if planned is None or planned == count:
                    return None
                return ("too_fast" if count < planned else "too_slow"), due + 1, count
        if after[:1] in (["of"], ["out"]):
            whole = next((m for m in range(end + 1, min(hi, end + 3)) if toks[m].kind == "num"), None)
            total = _count(toks[whole]) if whole is not None else None
            if total is None or total <= count:
                return None
            return ("too_fast", whole + 1, count) if count / total < threshold("MT-WARMUP-SHARE-MIN") else None
        # (a later peak, with nothing to set it against here, is ``""``: the warmup set elsewhere may still be longer)
        return ("too_fast" if count < threshold("MT-WARMUP-STEPS-MIN") else ""), end, count

    def _chance_figure(self, a: int, b: int, stops: set[int]) -> tuple[float, int] | None:
        """The first loss figure in tokens ``a:b`` and the token after it: a plain number, or ``ln(k)`` / ``log(k)``.

        A clause break (not a log's colon), another quantity, a number that numbers a moment ("at step 500") or
        counts something ("10 epochs") ends the search: what follows is not the loss's.
        """
        toks = self.tokens
        for k in range(a, b):
            t = toks[k]
            if k in stops or (_breaks(t) and t.text not in _LABEL_LINKS and t.text != ","):
                return None  # (a comma may part the loss from its level: "loss never moves, sits at 1.0986")
            if t.lemma in ("ln", "log") and k + 3 < len(toks) and toks[k + 1].text == "(" and \
                    toks[k + 2].kind == "num" and toks[k + 3].text == ")":
                n = toks[k + 2].number
                return (round(math.log(n), 4), k + 4) if n is not None and n >= 2 else None
            if t.lemma in ("ln", "log") and k + 1 < len(toks) and toks[k + 1].kind == "num":
                n = toks[k + 1].number  # ("flat at log 2 from the first step")
                return (round(math.log(n), 4), k + 2) if n is not None and n >= 2 else None
            if t.kind != "num":
                continue
            if t.unit or t.number is None or self._time_index(k, a) or \
                    (k + 1 < len(toks) and (toks[k + 1].lemma in _COUNTED or toks[k + 1].lemma in K.RATIO_WORDS)):
                return None  # (a count, "10 epochs"; a ratio, "100 times smaller")
            return (t.number, k + 1) if t.number > 0 else None
        return None

    def frames(self, lo: int, hi: int) -> None:
        """Concepts said together in one sentence (``knowledge.talk.FRAMES``), each word bound where it must be."""
        toks = self.tokens[lo:hi]
        plain: dict[str, int] = {}
        negated: dict[str, int] = {}
        where: dict[str, list[int]] = {}
        under: set[int] = set()  # the words said under a negation
        breaks = [0]  # clause breaks before each token (two words after as many breaks share a clause)
        # (no word can be negated before the sentence's first negating word: most log lines hold none)
        first_neg = next((k for k, t in enumerate(toks) if t.lemma in K.NEGATORS or t.lemma in _NEGATING_VERBS or
                          t.lemma == "not"), len(toks))
        for k, t in enumerate(toks):
            breaks.append(breaks[-1] + (t.text in _BIND_BREAKS or (t.kind == "word" and t.lemma in _BREAK_WORDS)))
            if (t.kind == "arrow" or t.text == "=" or (t.text == ":" and k > 0 and (
                    toks[k - 1].lemma in K.COLON_EVENT_WORDS or toks[k - 1].text.lower() in K.COLON_EVENT_WORDS))) \
                    and k > 0 and toks[k - 1].kind == "word" and self._arrow_sequence(lo + k, hi):
                # "resume -> loss spikes", "upgraded torch => nan", "resuming: loss jumps": what comes after the
                # arrow (or a colon after a resume, ``COLON_EVENT_WORDS``) happened after what is before it (a change
                # of a setting's value is read by ``changes``)
                plain.setdefault("after", k)
                where.setdefault("after", []).append(k)
                continue
            if t.kind not in ("word", "num"):
                continue
            if t.lemma in _INTENTIONS and k > 0 and toks[k - 1].lemma == "than":
                continue  # "training longer than planned": the standard of a comparison, no plan still to carry out
            # (a word in the object of a denied removal is not denied: "I haven't removed the scaler" keeps it)
            target = negated if k > first_neg and self._negated(lo + k, lo) and \
                not self._removal_denied(lo + k, lo) else plain
            if target is negated:
                under.add(k)
            target.setdefault(t.lemma, k)
            target.setdefault(t.text, k)
            where.setdefault(t.lemma, []).append(k)
            if t.text != t.lemma:
                where.setdefault(t.text, []).append(k)
        # a count of steps said in words ("the number of batches", "batches per epoch"): a frame may be ruled out by it
        for p in self.parts_in(lo, hi):
            if p.roles.get("q") == "step_count":
                plain.setdefault("step_count", p.i - lo)
        # a phrase a frame names by one word ("has no effect": ``inert``), said plainly (it holds its negation)
        lem = [t.lemma for t in toks]
        firsts = _concept_firsts()
        for k in range(len(toks)):
            if lem[k] not in firsts and " " not in lem[k]:
                continue  # (no concept opens with this word)
            for n in range(min(K.CONCEPT_REACH, len(toks) - k), 0, -1):
                concept = K.CONCEPTS.get(" ".join(lem[k:k + n]))
                if concept is not None:
                    plain.setdefault(concept, k)
                    where.setdefault(concept, []).append(k)
                    break

        def spots(group: frozenset[str] | str) -> list[int]:
            words = group.split() if isinstance(group, str) else group
            return [k for w in words if w[0] != "!" for k in where.get(w.lstrip("~="), ())
                    if (k in under) == (w[0] == "~") or w[0] not in "~="]

        def attached(a: int, own: list[int], rival: list[int]) -> bool:
            """Whether the word at ``a`` is said of ``own`` rather than ``rival``.

            Of the nearest of them before it in its clause (its subject), else after it in its clause ("great on
            train data"), else before it in the sentence (a subject carried over: "val acc goes up, then drops"),
            else after it.
            """
            # (a word right before a rival is its modifier, the rival the head: "update torch weights" updates the
            # weights, not torch)
            own = [b for b in own if b + 1 not in rival]
            # (what first follows a "than" is the standard a comparative is measured against, not what it is said of:
            # "the loss plateaus higher than the recipe under DeepSpeed ZeRO-3 with FSDP" says "higher" of FSDP's run;
            # the standard runs on while the words after it are of its side)
            than = next((k for k in range(a + 1, len(toks)) if toks[k].lemma == "than"), len(toks))
            standard: set[int] = set()
            for b in sorted(b for b in set(own) | set(rival) if b > than):
                if standard and (b in own) != (min(standard) in own):
                    break
                standard.add(b)
            both = [(b, b in own) for b in set(own) | set(rival) if b != a and b not in standard]
            same = [(b, o) for b, o in both if breaks[b] == breaks[a]]
            for pool, before in ((same, True), (same, False), (both, True), (both, False)):
                side = [(b, o) for b, o in pool if (b < a) == before]
                if side:
                    b, o = min(side, key=lambda bo: abs(bo[0] - a))
                    # ("both loss_cls and loss_box_reg become nan": subjects joined by "and" share what is said of
                    # them, so it is not the own word's rather than the rival's)
                    return o and not (before and any(not ob and joined(rb, b) for rb, ob in both if rb < b))
            return False

        def joined(x: int, y: int) -> bool:
            """Whether the words at ``x`` < ``y`` are conjuncts of one list ("A and B", "A loss and the B loss")."""
            between = toks[x + 1:y]
            return len(between) <= 4 and any(t.text in _JOINERS for t in between) and \
                all(t.text in _JOINERS or t.lemma in _COORDINATION or t.lemma in _LIST_NOUNS for t in between)

        done: set[str] = set()
        for f in _frames_said(plain, negated):
            groups, sets, binds = K.FRAMES[f]
            if set(sets) <= done:
                continue
            at: list[int] = []
            for n, (under_neg, said_plain, bare, out_plain, out_any, wants) in enumerate(_frame_groups(f)):
                # ("!w": the word rules the frame out, said or negated; "!=w": said plainly only, so "training
                # is stable" rules a frame out where "training is not stable" does not)
                if any(w in plain for w in out_plain) or any(w in plain or w in negated for w in out_any):
                    break
                # the anchor group must be said as it is (a plain word unnegated); the others may sit in a negated
                # stretch ("I don't call zero_grad": "grad" is under the "don't" too)
                hits = [negated[w] for w in under_neg if w in negated]
                hits += [plain[w] for w in said_plain if w in plain]
                hits += [plain[w] for w in bare if w in plain] if n == 0 else \
                    [plain[w] if w in plain else negated[w] for w in bare if w in plain or w in negated]
                if not hits and wants:
                    break
                if hits:
                    at.append(min(hits))  # the earliest word of the group (never the set's order)
            else:
                if not at:
                    continue
                # each bound word is said of its own group's word, not of the rival's ("val acc great, train acc
                # bad": "great" is the validation figure's)
                if any(not any(attached(x, spots(b if isinstance(b, str) else groups[b]),
                                        spots(c if isinstance(c, str) else groups[c])) for x in spots(groups[a]))
                       for a, b, c in binds):
                    continue
                lo, hi = toks[min(at)].start, toks[max(at)].end
                # (nor a name a composition claimed there: "the lr reaches 0 at the end of training" is the
                # schedule's design, whatever frame its words also make)
                sets = {k: v for k, v in sets.items() if k not in done and not self.u.claimed(lo, hi, k)}
                if not sets:
                    continue
                self.add(sets, lo, hi)
                done |= set(sets)

    # -- the loop's calls ---------------------------------------------------------------------------------
    def _arrow_sequence(self, k: int, hi: int) -> bool:
        """Whether the arrow at token ``k`` leads from an event to what the run did next.

        A movement follows it in its clause within ``ARROW_REACH`` tokens ("resume -> loss spikes back up"), not a
        setting's new value ("fp32 -> bf16").
        """
        end = min(hi, k + 1 + ARROW_REACH)
        stop = next((n for n in range(k + 1, end) if self.tokens[n].text in _SENTENCE_END or
                     self.tokens[n].kind == "arrow"), end)
        if self.tokens[k].kind == "arrow" and k + 1 < stop and self.tokens[k + 1].lemma in _SUBJECT_LEADS:
            return True  # "resume -> the step counter restarts": a clause with its subject follows, no value
        return any("m" in o.roles for o in self.parts_in(k + 1, stop))

    def _calls(self, lo: int, hi: int) -> list[tuple[int, int, str]]:
        """The loop's calls named in a sentence: ``(first token, one past last, call)``, longest phrase first."""
        toks, out, k = self.tokens, [], lo
        texts = [t.text.lower() for t in toks[lo:hi]]
        if not any(x in _CALL_HEADS for x in texts):
            return out  # (most sentences name no call: one look at each word)
        others = {K.LOOP_CALLS.get(x) for x in texts} - {None, "step"}  # the calls besides "step"
        while k < hi:
            for n in (4, 3, 2, 1):
                name = K.LOOP_CALLS.get(" ".join(texts[k - lo:k - lo + n])) if k + n <= hi else None
                if name is not None:
                    break
            else:
                k += 1
                continue
            if name == "step":
                prev = toks[k - 1] if k > lo else None
                nxt = toks[k + 1] if k + 1 < hi else None
                owned = prev is not None and prev.text.lower() in K.STEP_OWNERS
                called = nxt is not None and nxt.text == "("
                counted = (prev is not None and prev.kind == "num") or (nxt is not None and nxt.kind == "num")
                if counted or not (owned or called or len(others) >= 2 or (prev is not None and prev.lemma in (
                        "then", "call", ">", "->"))):
                    k += n
                    continue
            out.append((k, k + n, name))
            k += n
        return out

    def order(self, lo: int, hi: int) -> None:
        """The order a sentence says the loop's calls run in (``knowledge.talk.CALL_ORDERS``).

        The first call named is the sentence's subject: a later call after "after" ran before it, after "before"
        ran after it, after "between" (and the next one) around it; any other call runs after every one so far
        ("backward(); zero_grad(); step()", "backward, then zero_grad, then step").
        """
        calls = self._calls(lo, hi)
        if len({c for _i, _j, c in calls}) < 2:
            return
        when: dict[str, int] = {}
        negated: set[str] = set()
        first = last = 0
        around = 0  # after "between": the next two calls lie one before, one after the subject
        prev_end = calls[0][1]
        for n, (i, j, call) in enumerate(calls):
            if self._negated(i, max(lo, i - 3)):
                negated.add(call)
                prev_end = j
                continue
            gap = {t.lemma for t in self.tokens[prev_end:i]} if n else set()
            if n == 0:
                t = 0
            elif around == 2 or (gap & K.ORDER_BETWEEN):
                t, around = first - 1, 1
            elif around == 1:
                t, around = last + 1, 0
            elif gap & K.ORDER_AFTER and "then" not in gap:
                t = first - 1
            else:
                t = last + 1  # in sequence ("then", "->", ";", "followed by", "before" the subject's next)
            if n and gap & K.ORDER_BETWEEN:
                around = 1
            when.setdefault(call, t)
            first, last = min(first, t), max(last, t)
            prev_end = j
        span = (self.tokens[calls[0][0]].start, self.tokens[calls[-1][1] - 1].end)
        for seq, sets in K.CALL_ORDERS:
            if all(c in when for c in seq) and all(when[a] < when[b] for a, b in zip(seq, seq[1:])):
                self.add(sets, *span)
                return
        for done, left_out, sets in K.CALLS_LEFT_OUT:
            if done in when and left_out in negated and left_out not in when:
                self.add(sets, *span)
                return

    # -- code pasted or named ---------------------------------------------------------------------------------
    def code(self) -> None:
        """What the code a text pastes or names states (``knowledge.talk.CODE_IDIOMS``).

        Every idiom is matched on its own (they overlap: "loss = torch.tensor(...)" is a loss named and a loss
        rebuilt), each match is said to run or not (the shared negation before it, ``_absent_after`` after it),
        and an idiom states its observations when the idioms it needs are said to run within its reach and none
        of those that undo it are.
        """
        ran: dict[str, list[int]] = {}
        hits: list[tuple[int, int, K.CodeIdiom, bool]] = []
        # a long text is a pasted log: its code is read in the lines that are composed (``_ranges``), which keeps
        # the forty patterns' work bounded whatever the length
        spans = self._spans if self._spans is not None else [(0, len(self.text))]
        # (in those lines, or the whole of a text long enough, an idiom none of whose required words they hold
        # cannot match, and is not searched; on ASCII text, where case folding is exact)
        # (a shorter text too, when the user's cache holds those words: a typed complaint then searches the few
        # idioms it can match, not all fifty, and no pattern is parsed to know which)
        stored = _stored_code_needed() if self._spans is None and len(self.text) < CODE_FILTER_CHARS else None
        said = "\n".join(self.text[lo:hi] for lo, hi in spans).lower() if self._spans is not None else \
            self.text.lower() if len(self.text) >= CODE_FILTER_CHARS or stored is not None else ""
        # (a long text takes the stored words too: working them out parses fifty patterns, a third of a second of
        # a process's first pasted log)
        needed = (stored or _stored_code_needed() or _code_needed()) if said.isascii() and said else \
            (None,) * len(K.CODE_IDIOMS)
        for idiom, pattern, words in zip(K.CODE_IDIOMS, _code_patterns(), needed):
            if words is not None and not any(w in said for w in words):
                continue
            found = pattern.finditer(self.text, *spans[0]) if len(spans) == 1 else \
                (m for lo, hi in spans for m in pattern.finditer(self.text, lo, hi))
            for n, m in enumerate(found):
                if n >= K.CODE_HITS:
                    break
                negated = self._code_negated(m.start(), m.end(), idiom.inner_negation)
                if not negated:
                    ran.setdefault(idiom.id, []).append(m.start())
                if idiom.sets or idiom.absent:
                    hits.append((m.start(), m.end(), idiom, negated))

        def near(ids: str, at: int, reach: int) -> bool:
            for name in ids.split("|"):
                starts = ran.get(name, [])
                k = bisect_left(starts, at - reach)
                if k < len(starts) and starts[k] <= at + reach:
                    return True
            return False

        done: set[str] = set()
        for start, end, idiom, negated in hits:
            sets = idiom.absent if negated else idiom.sets
            if not sets or idiom.id in done:
                continue
            if all(near(group, start, idiom.reach) for group in idiom.needs) and \
                    not any(near(u, start, idiom.reach) for u in idiom.unless):
                self.add(dict(sets), start, end)
                done.add(idiom.id)

    def _code_negated(self, start: int, end: int, inner: bool = False) -> bool:
        """Whether a call at ``[start, end)`` is said not to run.

        Negated before it ("never call set_epoch", "without no_grad", "forgot zero_grad"), with the reader's shared
        negation, or after it ("zero_grad() is missing", "set_epoch is never called"); with ``inner``, inside it
        too ("the warmup does not end too early").
        """
        toks = self.tokens
        k = bisect_left(self._token_starts, start)
        if k >= len(toks) or toks[k].start >= end:
            return False  # (a long text's line that was not tokenised: read as said)
        lo = self._negation_floor(k)
        if self._removal_denied(k, lo):
            return False  # "I haven't removed the GradScaler": the removal is denied, the call still runs
        if self._negated(k, lo) or any(t.lemma in K.CODE_ABSENT_LEADS or t.text in K.CODE_ABSENT_LEADS
                                       for t in toks[max(lo, k - 3):k]):
            return True
        j = k
        while j < len(toks) and toks[j].start < end:
            if inner and (toks[j].lemma in K.NEGATORS or toks[j].lemma == "not"):
                return True
            j += 1
        after = toks[j:j + 6]
        for n, t in enumerate(after):
            if _breaks(t) and t.text != ":":
                break
            if t.lemma in K.CODE_ABSENT_AFTER or t.text in K.CODE_ABSENT_AFTER:
                return True
            if (t.lemma in K.NEGATORS or t.lemma == "not") and any(
                    u.lemma in K.CODE_CALL_VERBS for u in after[n + 1:n + 3]):
                return True
        return False

    def _said_absent(self, start: int) -> bool:
        """Whether the words at character ``start`` are denied by a negator before them in their clause.

        Only what comes before counts: an error message's own words ("does not require grad") are its text, not
        the user's denial of it.
        """
        toks = self.tokens
        k = bisect_left(self._token_starts, start)
        if k >= len(toks) or k == 0:
            return False  # (a long text's line that was not tokenised, or nothing before it: read as said)
        return self._negated(k, self._negation_floor(k))

    def _said_over(self, start: int, end: int) -> bool:
        """Whether the error said at characters ``[start, end)`` is said as past and fixed ("OOM gone but ...")."""
        toks = self.tokens
        k = bisect_left(self._token_starts, start)
        j = bisect_left(self._token_starts, end)
        return k < len(toks) and clause_status(toks, k, max(j, k + 1), hedge=False) == PAST

    def _crash_off_scope(self, start: int) -> bool:
        """Whether a crash named in words at character ``start`` is everyday English (see :meth:`_off_scope`).

        "the printer throws an error", "the website crashed", in a text that names nothing of training; "I keep
        getting an error" is the user's run (``CRASH_RECEIVERS``).
        """
        k = bisect_left(self._token_starts, start)
        return k < len(self.tokens) and self._off_scope(k, clause_start(self.tokens, k), K.CRASH_RECEIVERS)

    def _negation_floor(self, k: int) -> int:
        """The first token a negator before token ``k`` may stand at.

        Its sentence's start, at most twice the negation reach back: the floor :meth:`_code_negated` and
        :meth:`_said_absent` hand to :meth:`_negated`.
        """
        toks = self.tokens
        lo = k
        while lo > 0 and k - lo < 2 * NEGATION_REACH and toks[lo - 1].text not in _SENTENCE_END:
            lo -= 1
        return lo

    # -- pasted evidence ------------------------------------------------------------------------------------
    def evidence(self) -> None:
        low = self.text
        shown: list[tuple[int, dict[str, Any], int, int]] = []
        stored = _stored_needed()
        # (whether a word is in a long ASCII text, asked of its distinct words, as the cue scan asked: not a search
        # of the whole text per word)
        present = words_present(low) if len(low) > FUZZY_LIMIT and low.isascii() else None
        has = present if present is not None else low.__contains__
        for order, (_pattern, sets) in enumerate(K.ERROR_SIGNATURES):
            # skip a signature none of whose required words occur: always when they are stored, else on a long
            # text (working them out, or compiling the signature, costs more than searching a typed complaint)
            needed = stored[order] if stored is not None else _needed(order) if len(low) > FUZZY_LIMIT else None
            if needed is not None and not any(map(has, needed)):
                continue  # none of the words every match holds is in the text
            for n, m in enumerate(finditer_prefixed(_signature(order), low)):
                if n >= 64:
                    break  # a log repeating one error: its first copies say all it says
                if self._said_absent(m.start()):
                    continue  # "no OOM errors", "I'm not getting any CUDA OOM": the error is denied, not shown
                self.error_spans.append((m.start(), m.end()))
                shown.append((m.start(), sets, m.start(), m.end()))
        # an error said to be over ("the OOM is fixed now, but now I get ...", "at first CUDA OOM ... OOM gone but
        # backward fails with ...") is the one shown only when no other is: the error that replaced it is the run's
        # (``expert.text`` keeps the one said over as history). Said over once, every mention of its family is.
        over = {sets.get("boundary_topic") for a, sets, _s, e in shown if self._said_over(a, e)} if len(shown) > 1 \
            else set()
        live = [x for x in shown if x[1].get("boundary_topic") not in over]
        if live:
            self.u.over.extend((a, e) for a, sets, _s, e in shown if sets.get("boundary_topic") in over)
        first = min(live or shown, key=lambda x: x[0]) if shown else None
        if first is None:
            # no known error family: an error or crash named in words is still a crash (a weak reading); as for
            # the signatures, a text without any word every such mention holds is not searched (nor the
            # pattern compiled)
            named = len(K.ERROR_SIGNATURES)
            needed = stored[named] if stored is not None else _needed(named) if len(low) > FUZZY_LIMIT else None
            # (a crash denied is no crash: "no crash, no nan", "the run did not crash"; the first one said counts,
            # "it never crashed before, now it crashes at step 100")
            crash = next((m for n, m in enumerate(finditer_prefixed(_crash_named(), low))
                          if n < 64 and not self._said_absent(m.start()) and not self._crash_off_scope(m.start())),
                         None) \
                if needed is None or any(map(has, needed)) else None
            pasted = _pasted().search(low) if crash is not None else None
            if pasted is not None:  # an exception line pasted with its message is a crash shown, not named
                self.add({"symptom": "crash"}, pasted.start(), pasted.end(), strong=False, evidence=True)
            elif crash is not None:
                self.add({"symptom": "crash"}, crash.start(), crash.end(), strong=False, evidence=True,
                         fallback=True)
        if first is not None:
            _, sets, s, e = first
            self.add(dict(sets), s, e, strong=False, evidence=True)
            topic = sets.get("boundary_topic")
            # (an error denied is no crash: "the loader deadlocks, no error")
            # (searched only where it decides: a crash family whose error span says no hang is a crash whatever
            # else the text says, and a megabyte of pasted log need not be searched for a crash word to know it)
            crash_family = topic in K.CRASH_TOPICS
            hung = crash_family and _HUNG.search(low, s, e) is not None
            crash = next((m for m in _crash().finditer(low) if not self._said_absent(m.start())), None) \
                if hung or not crash_family else None
            if hung and not crash:
                # "the dataloader hangs": the family's failure said as a hang, not a stop
                self.add({"symptom": "hang"}, s, e, strong=False, evidence=True)
            elif crash_family or crash:
                self.add({"symptom": "crash"}, s, e, strong=False, evidence=True)
        _log_series(self)


@lru_cache(maxsize=1)
def _code_patterns() -> tuple[re.Pattern[str], ...]:
    """The compiled pattern of each code idiom (``knowledge.talk.CODE_IDIOMS``), in order.

    Through ``expert.rx``, as the program's other patterns: about fifty compilations are a few ms of every start.
    """
    return tuple(rx.compile(idiom.pattern) for idiom in K.CODE_IDIOMS)


@lru_cache(maxsize=1)
def _code_needed() -> tuple[frozenset[str] | None, ...]:
    """Each code idiom's required words (:func:`expert.nlp.required_words`; None: always searched), in order."""
    from expert.nlp import required_words

    return tuple(required_words(idiom.pattern) for idiom in K.CODE_IDIOMS)


CODE_IDIOMS_CACHE = "code_idioms"


@lru_cache(maxsize=1)
def _stored_code_needed() -> tuple[frozenset[str] | None, ...] | None:
    """Each code idiom's required words (``_code_needed``) kept in the user's cache; None when it is off.

    Read back, they let a short complaint search only the idioms it can match (the same test a long text makes,
    so the same matches) without parsing the idioms' patterns in every process. Worked out and stored on the
    first call.
    """
    return _stored_words(CODE_IDIOMS_CACHE, [idiom.pattern for idiom in K.CODE_IDIOMS], _code_needed)


_Words = tuple[frozenset[str] | None, ...]
"""One required-word set per pattern, in order (None: the pattern is always searched)."""


def _stored_words(entry: str, patterns: list[str], work_out: Callable[[], _Words]) -> _Words | None:
    """The required words of ``patterns`` kept under cache ``entry``; None when the user's cache is off.

    An entry stored for other patterns, or not in the shape written here, is worked out again (``work_out``,
    one word set or None per pattern, in order) and overwritten.
    """
    from expert import cache

    if not cache.enabled():
        return None
    # plain data (``cache.load_plain``): reading it needs no JSON decoder, which a consultation has no other use for
    data = cache.load_plain(entry)
    if data is not None:
        try:
            if data["patterns"] == patterns:
                return tuple(None if w is None else frozenset(w) for w in data["needed"])
        except (ValueError, KeyError, TypeError):
            pass  # not what we write: work them out (and overwrite it)
    needed = work_out()
    cache.store_plain(entry, {"patterns": patterns, "needed": [None if w is None else sorted(w) for w in needed]})
    return needed


SIGNATURES_CACHE = "signatures"


@lru_cache(maxsize=1)
def _stored_needed() -> tuple[frozenset[str] | None, ...] | None:
    """Every error signature's required words, then a crash named in words' (``CRASH_NAMED``); None uncached.

    Kept in the user's cache (``expert.cache``), they let a short complaint skip compiling the signatures it
    cannot match (most of them): the same test a long text makes, so the same matches. Worked out and stored on
    the first call.
    """
    patterns = [_pattern(i) for i in range(len(K.ERROR_SIGNATURES) + 1)]
    return _stored_words(SIGNATURES_CACHE, patterns, lambda: tuple(_needed(i) for i in range(len(patterns))))


def _pattern(order: int) -> str:
    """Error signature ``order``'s pattern; one past the last, the crash named in words (``CRASH_NAMED``)."""
    return K.ERROR_SIGNATURES[order][0] if order < len(K.ERROR_SIGNATURES) else K.CRASH_NAMED


@lru_cache(maxsize=64)
def _needed(order: int) -> frozenset[str] | None:
    from expert.nlp import required_words

    return required_words(_pattern(order))


@lru_cache(maxsize=64)
def _signature(order: int) -> re.Pattern[str]:
    return rx.compile(K.ERROR_SIGNATURES[order][0])


@lru_cache(maxsize=1)
def _crash() -> re.Pattern[str]:
    return rx.compile(K.CRASH_SIGNS)


@lru_cache(maxsize=1)
def _pasted() -> re.Pattern[str]:
    return rx.compile(K.PASTED_EXCEPTION)


@lru_cache(maxsize=1)
def _crash_named() -> re.Pattern[str]:
    return rx.compile(K.CRASH_NAMED)


_NONFINITE_NORM = rx.compile(r"(?:grad_norm|gnorm|grad norm)['\"]?\s*[:=]\s*['\"]?(?:nan|-?inf)\b")
# (never the clipping limit, a setting: "max_grad_norm=0.0" or "max grad norm = 0" turns clipping off, and says
# nothing of the gradients, HF Trainer's convention)
_NORM_VALUE = rx.compile(r"g(?<![a-z]g)(?<!max[_\s-]g)(?<!clip[_\s-]g)"
                         r"(?:rad_norm|norm|rad norm)['\"]?\s*[:=]\s*['\"]?"
                         r"(?P<value>[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?)(?![\d.])")
RISING_SERIES = 1.3
"""A logged training loss that only rises and ends this many times its first value is diverging."""

_LOSS_VALUE = rx.compile(r"loss['\"]?\s*(?:[:=]|\s(?:was|is|of)\s)?\s*"
                         r"(?P<value>nan|-?inf|[-+]?\d+\.\d+(?:e[-+]?\d+)?|\d+(?=[\s,|}\]]))\b")
_SPLIT_KEYS = ("train", "training", "trn", "val", "validation", "valid", "eval", "test")


class _Key:
    """The split named right before a logged loss ("val_loss", "train loss")."""

    def __init__(self, split: str) -> None:
        self.split = split

    def group(self, _name: str) -> str:
        return self.split


def _split_key(before: str) -> _Key | None:
    """The split named at the end of ``before`` (the words right before a logged loss, trailing "_ -" stripped)."""
    for key in _SPLIT_KEYS:
        if before.endswith(key) and (len(before) == len(key) or not before[-len(key) - 1].isalpha()):
            return _Key(key)
    return None
_STEP = rx.compile(r"(?<![a-z])(?:global_step|step|iteration|iter)['\"]?\s*[:=]?\s*\[?\s*(?P<step>\d[\d,]*)")
# (the word-start test follows the first letter, "e(?<![a-z]e)" for "(?<![a-z])e": a pattern led by a letter is
# searched for that letter by the regex engine itself, where one led by the test is tried at every character)
_EPOCH = rx.compile(r"e(?<![a-z]e)p(?:och)?['\"]?\s*[:=]?\s*(?P<epoch>\d+(?:\.\d+)?)")
_DICT_LR = rx.compile(r"['\"](?:learning_rate|lr)['\"]\s*:\s*(?P<lr>\d+(?:\.\d+)?(?:e[-+]?\d+)?)")
_SERIES_KEY = rx.compile(r"(?P<split>t(?<![a-z]t)rain|v(?<![a-z]v)al)\s+(?P<value>\d+\.\d+)\b")


def _log_series(r: _Reader) -> None:
    """Log lines: the first non-finite loss, a metrics dict's learning rate, a rising validation loss.

    The first non-finite training loss comes with its step and whether finite losses came before it; a
    validation loss that rises while the training loss falls is the overfitting reading.
    """
    text = r.text
    train: list[float] = []
    val: list[float] = []
    nan_at: tuple[int, int, int | None, bool] | None = None  # start, end, step, finite before
    hits: list[tuple[int, str, Any]] = []
    for m in _LOSS_VALUE.finditer(text):
        at = m.start()
        before = text[max(0, at - 12):at].rstrip("_ -")
        # (most values of a pasted log follow no split's name: one test for all of them, no call per value)
        hits.append((at, m.group("value"), _split_key(before) if before.endswith(_SPLIT_KEYS) else None))
    if not any(k for _s, _v, k in hits):
        # "ep1 train 1.2 val 1.1 / ep5 ...": curves logged by their split's name alone
        hits += [(m.start(), m.group("value"), m) for m in _SERIES_KEY.finditer(text)]
        hits.sort(key=lambda h: h[0])
    # a value quoted with its epoch ("at epoch 3 val_loss was 0.61") takes that place in its curve, wherever said
    train_at: list[float | None] = []
    val_at: list[float | None] = []
    epochs: list[tuple[int, int, str]] | None = None  # (end, start, number) of each epoch said, when first needed
    epoch_ends: list[int] = []
    for start, raw, key in hits:
        split = (key.group("split") if key else "train")[:2]
        is_val = split in ("va", "ev", "te")

        if raw in ("nan", "inf", "-inf"):
            if not is_val and nan_at is None:
                lo = text.rfind("\n", 0, start) + 1
                hi = text.find("\n", start)
                line = text[lo:len(text) if hi < 0 else hi]
                st = _STEP.search(line)
                ep = _EPOCH.search(line)
                step = int(st.group("step").replace(",", "")) if st else None
                epoch = float(ep.group("epoch")) if ep else None
                # (step 1 of a log counting from 1 is still the first step)
                # (nor is epoch 1 of a log counting epochs from 1; "epoch 1.0" of a fractional count is later)
                later = bool(train) or bool(step and step > 1) or bool(epoch is not None and (
                    epoch > 1 or (epoch == 1 and "." in ep.group("epoch"))))
                nan_at = (start, start + len(raw) + 5, step, later)
            continue
        try:
            (val if is_val else train).append(float(raw))
        except ValueError:
            continue
        at = val_at if is_val else train_at
        if at and at[-1] is None:
            at.append(None)  # (a value of the curve with no epoch: the curve keeps its order, no more epochs needed)
            continue
        if epochs is None:
            # every epoch said, found once: the last one ending before a value and starting at most 80 characters
            # before it is what a search of those 80 characters finds (a match opens at the "e" of "ep" and holds
            # no letter after, so the loss or split name a value starts at is never inside one)
            epochs = [(m.end(), m.start(), m.group("epoch")) for m in _EPOCH.finditer(text)]
            epoch_ends = [e for e, _s, _v in epochs]
        k = bisect_right(epoch_ends, start) - 1
        at.append(float(epochs[k][2]) if k >= 0 and epochs[k][1] >= start - 80 else None)
    if len(train) >= 3 and nan_at is None and train[0] > 0.0 and \
            max(train) - min(train) <= threshold("MT-FLAT-SERIES") * abs(sum(train) / len(train)):
        # "loss 4.21 ... 4.19 ... 4.20": a logged loss that does not move
        r.add({"symptom": "not_learning"}, hits[0][0], hits[-1][0] + 4, strong=False)
    elif len(train) >= 2 and nan_at is None and not val and train[0] > 0.0 and train[-1] >= RISING_SERIES * train[0] \
            and all(b >= a for a, b in zip(train, train[1:])):
        # "| epoch 003 | loss 7.21 ... | epoch 004 | loss 9.85": a logged training loss that only climbs
        r.add({"symptom": "unstable", "loss_behavior": "diverging"}, hits[0][0], hits[-1][0] + 4, strong=False)
    if nan_at is not None and ("\n" in text or " / " in text or "{" in text or train or nan_at[3]):
        s, e, st, later = nan_at
        sets: dict[str, Any] = {"symptom": "unstable", "loss_behavior": "nan_or_inf",
                                "nan_onset": "after_steps" if later else "immediate"}
        if st:
            sets["nan_step"] = st
        r.add(sets, s, e)
    if nan_at is None:
        # a gradient norm logged as non-finite ("'grad_norm': nan") after finite losses: the gradients went first
        g = _NONFINITE_NORM.search(text)
        if g is not None:
            before = [v for at, v, _k in hits if at < g.start() and v not in ("nan", "inf", "-inf")]
            r.add({"symptom": "unstable", "nan_location": "gradients",
                   "nan_onset": "after_steps" if before else "immediate"}, g.start(), g.end(), strong=False)
    # a gradient norm logged, and every value of it exactly zero ("'grad_norm': 0.0" in each record, "| gnorm 0.000"):
    # no gradient reaches the weights, however late in a long log it is said (the evidence pass reads every line)
    norms = [(m.start(), m.end(), float(m.group("value"))) for m in _NORM_VALUE.finditer(text)]
    if norms and all(v == 0.0 for _s, _e, v in norms):
        r.add({"step_grads": "zero", "symptom": "not_learning"}, norms[0][0], norms[-1][1], strong=False)
    lr = _DICT_LR.search(text)
    if lr is not None:
        r.add({"learning_rate": float(lr.group("lr"))}, lr.start(), lr.end(), strong=False)
    for series, at in ((train, train_at), (val, val_at)):
        if len(series) >= 2 and all(e is not None for e in at):
            series[:] = [v for _e, v in sorted(zip(at, series), key=lambda ev: ev[0])]
    # (one training value says nothing of its trend: the validation curve speaks alone)
    if len(val) >= 2 and max(val[-2:]) > min(val) * 1.1 and val[-1] > val[0] and \
            (len(train) < 2 or train[-1] < train[0]):
        first = next(s for s, _v, k in hits if k and k.group("split")[:2] in ("va", "ev", "te"))
        r.add({"symptom": "overfitting", "val_loss_rising": True}, first, first + 4)


def understand(text: str, cues: tuple[tuple[int, int], ...] = ()) -> Understanding:
    """Read normalised (lower-case) text into an :class:`Understanding` (never raises on any text).

    Args:
        text: The normalised text.
        cues: The ``(start, end)`` spans of the keyword cues read in it (each names something of training, so a
            movement said in the text is the run's: "qwen crashes", "quantization crashes").
    """
    if not text:
        return Understanding()
    return _Reader(text, cues).read()
