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

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from knowledge import talk as K
from knowledge.forms import FORMS

FUZZY_LIMIT = 20_000
"""Texts longer than this are pasted logs (machine-written): spelling slips are not looked for."""

_TOKEN = re.compile(
    r"(?P<num>[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:e[-+]?\d+)?)(?P<unit>%|k\b|x\b)?"
    r"|(?P<word>[a-z_.][a-z0-9_]*(?:['./-][a-z0-9_]+)*'?)"
    r"|(?P<arrow>-+>|=>|→|⟶)"
    r"|(?P<punct>[?!.;,:()\[\]{}|=<>/\n])"
    r"|\S", re.IGNORECASE)
_BREAK_WORDS = frozenset({"but", "while", "whereas", "although", "though", "however", "yet", "because", "since",
                          "so", "and", "when", "whilst", "unlike", "except"})
_SENTENCE_END = frozenset({".", "?", "!", "\n"})
_CLAUSE_PUNCT = frozenset({",", ";", ":", "(", ")", "[", "]", "{", "}", "|"})
_STEP_WORDS = frozenset({"step", "steps", "iter", "iters", "iteration", "iterations", "global_step", "it", "batch"})
_EPOCH_WORDS = frozenset({"epoch", "epochs", "ep"})
_CONTRACTED_NEG = re.compile(r"n'?t$")
_COMPARE = {"lower": "lt", "less": "lt", "smaller": "lt", "below": "lt", "under": "lt", "higher": "gt",
            "greater": "gt", "bigger": "gt", "larger": "gt", "above": "gt", "more": "gt", "over": "gt",
            "worse": "worse", "better": "better", "<": "lt", ">": "gt"}


@dataclass(frozen=True)
class Token:
    """One token of the normalised text."""

    text: str
    lemma: str
    start: int
    end: int
    kind: str  # word, num, arrow, punct, other
    unit: str = ""

    @property
    def number(self) -> float | None:
        """The token's value when it is a number."""
        if self.kind != "num":
            return None
        try:
            return float(self.text.replace(",", ""))
        except ValueError:
            return None


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
    """

    name: str
    value: Any
    start: int
    end: int
    strong: bool = True
    hedged: bool = False


@dataclass
class Understanding:
    """What the text says, as parts.

    Attributes:
        readings: Observations with the words that gave each.
        claims: ``(start, end, names)``: a single-word cue inside the span may not set these observations.
        confirm: Confirmation questions for words read two ways (the word, the question).
    """

    readings: list[Reading] = field(default_factory=list)
    claims: list[tuple[int, int, frozenset[str]]] = field(default_factory=list)
    confirm: list[tuple[str, str]] = field(default_factory=list)

    def claimed(self, start: int, end: int, name: str) -> bool:
        """Whether a cue at ``[start, end)`` may not set ``name``."""
        return any(s <= start and end <= e and name in names for s, e, names in self.claims)


# ------------------------------------------------------------------------------------------------ lexicon


@lru_cache(maxsize=1)
def _phrases() -> dict[tuple[str, ...], dict[str, str]]:
    """Lemma sequence -> {role: value} for every phrase of the talk tables."""
    table: dict[tuple[str, ...], dict[str, str]] = {}
    for role, source in (("q", K.QUANTITIES), ("s", K.SPLITS), ("m", K.MOVEMENTS), ("t", K.TIMES),
                         ("topic", K.TOPICS), ("tv", K.TOPIC_VALUES), ("idiom", {k: k for k in K.IDIOMS})):
        for phrase, value in source.items():
            key = tuple(_lemma(w) for w in phrase.split())
            table.setdefault(key, {})[role] = value
    return table


@lru_cache(maxsize=1)
def _max_len() -> int:
    return max(len(k) for k in _phrases())


@lru_cache(maxsize=1)
def _known() -> tuple[str, ...]:
    """Single words worth correcting a slip to (lexicon words of five letters or more)."""
    words = {w for k in _phrases() for w in k if w.isalpha() and len(w) >= 5}
    return tuple(sorted(words | {f for f in FORMS if len(f) >= 5}))


def _lemma(word: str) -> str:
    w = word.lower()
    return FORMS.get(w, w)


@lru_cache(maxsize=4096)
def _corrected(word: str) -> str:
    """The lexicon word a slip of ``word`` stands for ("gradiant", "oscilating"), else ``word``.

    Only words of six letters or more are corrected, by one edit (two from nine letters), keeping the first
    letter: short words have too many real neighbours ("stack" is not "stuck").
    """
    if len(word) < 6 or not word.isalpha():
        return word
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import extractOne

    cutoff = 2 if len(word) >= 9 else 1
    choices = [c for c in _known() if c[0] == word[0] and abs(len(c) - len(word)) <= cutoff]
    hit = extractOne(word, choices, scorer=Levenshtein.distance, score_cutoff=cutoff)
    return hit[0] if hit else word


def tokenise(text: str, fuzzy: bool = True) -> list[Token]:
    """Tokens of lower-cased text, each with its lemma; identifiers are split ("val_loss" -> val, loss)."""
    phrases = _phrases()
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        if m.group("num") is not None:
            out.append(Token(m.group("num"), m.group("num"), m.start(), m.end("num"), "num", (m.group("unit") or "")))
            continue
        word = m.group("word")
        if word is None:
            kind = "arrow" if m.group("arrow") else "punct" if m.group("punct") else "other"
            out.append(Token(m.group(0), m.group(0), m.start(), m.end(), kind))
            continue
        word = word.lower().strip("'")
        if word.startswith(".") and (word,) not in phrases:
            word = word.lstrip(".")
        if not word:
            continue
        parts = [word] if (_lemma(word),) in phrases else [p for p in re.split(r"[._/-]", word) if p]
        pos = m.start()
        for part in parts:
            at = text.find(part, pos, m.end())
            at = pos if at < 0 else at
            lemma = _lemma(part)
            if fuzzy and (lemma,) not in phrases and lemma not in K.NEGATORS:
                lemma = _lemma(_corrected(lemma))
            if _CONTRACTED_NEG.search(part) and part not in ("want",):
                lemma = "not"
            out.append(Token(part, lemma, at, at + len(part), "word"))
            pos = at + len(part)
    return out


# ------------------------------------------------------------------------------------------------ parts


@dataclass
class Part:
    """A matched phrase: its tokens and its possible roles."""

    i: int  # first token index
    j: int  # one past the last token
    roles: dict[str, str]
    start: int
    end: int


def _parts(tokens: list[Token]) -> list[Part]:
    """Greedy longest match of lexicon phrases over the lemmas."""
    phrases, longest = _phrases(), _max_len()
    out: list[Part] = []
    i, n = 0, len(tokens)
    while i < n:
        found = None
        for k in range(min(longest, n - i), 0, -1):
            key = tuple(t.lemma for t in tokens[i:i + k])
            if key in phrases:
                found = (k, phrases[key])
                break
        if found:
            k, roles = found
            out.append(Part(i, i + k, dict(roles), tokens[i].start, tokens[i + k - 1].end))
            i += k
        else:
            i += 1
    return out


def _clauses(tokens: list[Token], parts: list[Part]) -> Iterator[tuple[int, int, int]]:
    """``(sentence index, first token, one past last token)`` of each clause."""
    inside = set()
    for p in parts:
        if p.j - p.i > 1:
            inside.update(range(p.i + 1, p.j))  # a break word inside a phrase ("up and down") does not cut it
    sentence, start = 0, 0
    for k, t in enumerate(tokens):
        brk = False
        if t.kind == "punct" and (t.text in _SENTENCE_END or t.text in _CLAUSE_PUNCT):
            # a dot inside a number or an identifier is no end: the tokeniser keeps those whole
            brk = True
        elif t.kind == "word" and t.lemma in _BREAK_WORDS and k not in inside:
            brk = True
        if brk:
            if k > start:
                yield sentence, start, k
            start = k + 1
            if t.text in _SENTENCE_END:
                sentence += 1
    if start < len(tokens):
        yield sentence, start, len(tokens)


# ------------------------------------------------------------------------------------------------ reading


class _Reader:
    """Reads one text (see the module docstring)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenise(text, fuzzy=len(text) <= FUZZY_LIMIT)
        self.parts = _parts(self.tokens)
        self.by_token: dict[int, Part] = {}
        for p in self.parts:
            for k in range(p.i, p.j):
                self.by_token[k] = p
        self.u = Understanding()

    # -- helpers ------------------------------------------------------------------------------------
    def add(self, sets: dict[str, Any], start: int, end: int, strong: bool = True, hedged: bool = False) -> None:
        for name, value in sets.items():
            self.u.readings.append(Reading(name, value, start, end, strong, hedged))

    def claim(self, start: int, end: int, names: Any) -> None:
        self.u.claims.append((start, end, frozenset(names)))

    def lemmas(self, i: int, j: int) -> list[str]:
        return [t.lemma for t in self.tokens[max(0, i):j]]

    def parts_in(self, i: int, j: int) -> list[Part]:
        return [p for p in self.parts if i <= p.i and p.j <= j]

    # -- the pieces of one clause ---------------------------------------------------------------------
    def _quantities(self, parts: list[Part]) -> list[tuple[Part, str, str | None]]:
        """(part, quantity, split) of each quantity mention; a split word before a quantity qualifies it."""
        out: list[tuple[Part, str, str | None]] = []
        k = 0
        while k < len(parts):
            p = parts[k]
            nxt = parts[k + 1] if k + 1 < len(parts) else None
            if "s" in p.roles and nxt is not None and "q" in nxt.roles and nxt.i - p.j <= 1 \
                    and nxt.roles["q"] not in ("run", "pronoun", "model"):
                out.append((Part(p.i, nxt.j, nxt.roles, p.start, nxt.end), nxt.roles["q"], p.roles["s"]))
                k += 2
                continue
            if "q" in p.roles and "m" not in p.roles:
                split = None
                # "accuracy on train", "loss on the validation set"
                if nxt is not None and "s" in nxt.roles and nxt.i - p.j <= 2 and \
                        set(self.lemmas(p.j, nxt.i)) <= {"on", "the", "for", "of"} and nxt.i > p.j:
                    split = nxt.roles["s"]
                out.append((p, p.roles["q"], split))
            elif "s" in p.roles and p.roles["s"] in ("val",) and "q" not in p.roles:
                out.append((p, "split_only", p.roles["s"]))
            k += 1
        return out

    def _negated(self, i: int, lo: int) -> bool:
        """A negator among the (up to) four words before token ``i``, not before ``lo``."""
        for k in range(i - 1, max(lo, i - 4) - 1, -1):
            t = self.tokens[k]
            if t.lemma in K.NEGATORS or t.lemma == "not":
                return True
        return False

    def _time(self, i: int, j: int, sent_lo: int, sent_hi: int, at: int) -> tuple[str | None, int | None]:
        """The time of a movement at token ``at`` in clause ``[i, j)``, and a step number when one is said."""
        times = [(p.roles["t"], p) for p in self.parts_in(i, j) if "t" in p.roles]
        step = None
        found: str | None = None
        for k in range(i, j):
            t = self.tokens[k]
            if t.kind != "word" or t.lemma not in _STEP_WORDS | _EPOCH_WORDS:
                continue
            nums = [u for u in self.tokens[k + 1:min(j, k + 3)] if u.kind == "num"]
            before = [u for u in self.tokens[max(i, k - 2):k] if u.kind == "num"]
            lead = set(self.lemmas(k - 3, k))
            if nums and t.lemma in _STEP_WORDS and t.lemma not in ("it", "batch"):
                value = nums[0].number
                if value is not None:
                    step = int(value) if step is None else step
                    found = "start" if value == 0 else "later"
            elif nums and t.lemma in _EPOCH_WORDS:
                value = nums[0].number
                if value is not None:
                    found = "start" if value == 0 or (value == 1 and "from" in lead) else (found or "later")
            elif before and "after" in lead | set(self.lemmas(k - 4, k)):
                found = "later"
            elif lead & {"after", "a", "few", "some", "several"} and "after" in self.lemmas(k - 4, k):
                found = "later"
        for value, _p in times:
            if value in ("start", "epoch_start", "each_epoch", "always"):
                return value, step
            if value == "start_bare" and found is None:
                found = "start"
            elif value in ("later", "after", "then") and found is None:
                found = "later"
        if found is None:
            # a time said elsewhere in the sentence ("at first ... then", "after 3 epochs, ...")
            for p in self.parts_in(sent_lo, sent_hi):
                v = p.roles.get("t")
                if v in ("start", "epoch_start", "each_epoch"):
                    return v, step
                if v in ("later", "after", "then") and p.i < at:
                    found = "later"
        return found, step

    def _after_learning(self, sent_lo: int, at: int) -> bool:
        """Whether the sentence says, before token ``at``, that the quantity first went down or learned."""
        for p in self.parts_in(sent_lo, at):
            if p.roles.get("t") == "at_first":
                return True
            m = p.roles.get("m")
            if m in ("down", "down_bare", "learn", "improve", "converge") and not self._negated(p.i, sent_lo):
                return True
        return False

    # -- composition -------------------------------------------------------------------------------------
    def _compose(self, quantity: str | None, split: str | None, movement: str, time: str | None,
                 tags: set[str]) -> dict[str, Any] | None:
        for c in K.COMPOSITIONS:
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
            if c.time is not None and c.time != time:
                continue
            if c.tags and not c.tags & tags:
                continue
            return c.sets
        return None

    def read_clause(self, sent: tuple[int, int], i: int, j: int, state: dict[str, Any]) -> None:
        parts = self.parts_in(i, j)
        quantities = self._quantities(parts)
        hedged = any(t.lemma in K.HEDGES for t in self.tokens[i:j])
        lemmas = set(self.lemmas(i, j))
        tags = {"all"} if lemmas & {"all", "every", "each", "always", "exactly", "just", "only"} else set()
        if lemmas & {"first", "early", "earlier", "some", "lower", "bottom"} and "all" not in lemmas:
            tags = {"some"}
        if not tags:
            tags = {"all"}
        movements = [p for p in parts if "m" in p.roles and not ("q" in p.roles and p.roles["q"] != "pronoun"
                                                                  and p.roles["m"] in ("change_verb",))]
        for p in movements:
            m = p.roles["m"]
            if m in ("up_bare", "down_bare"):
                m = m[:-5]
                # "go up" is a phrase; a bare "up" only counts after a verb of motion or "way"
                prev = self.lemmas(p.i - 1, p.i)
                if not prev or prev[0] not in ("go", "shoot", "creep", "come", "way", "goes", "went", "move",
                                               "keep", "is", "be", "climb", "fall", "jump", "spike"):
                    continue
            negated = self._negated(p.i, i)
            slow = any(q.roles.get("m") == "slow" for q in parts if q is not p and abs(q.i - p.i) <= 3)
            # the quantity: nearest before, else after, else the sentence's last one
            before = [q for q in quantities if q[0].j <= p.i]
            after = [q for q in quantities if q[0].i >= p.j]
            chosen = before[-1] if before else after[0] if after else state.get("last")
            if chosen is not None and chosen[1] == "pronoun":
                chosen = state.get("last")
            if chosen is not None and chosen[1] == "split_only":
                prev_q = state.get("last")
                chosen = (chosen[0], prev_q[1] if prev_q else "loss", chosen[2])
            quantity = chosen[1] if chosen else None
            split = chosen[2] if chosen else None
            if quantity in ("run", "model") and m not in ("hang", "stuck", "nan", "diverge", "explode", "spike",
                                                          "oscillate", "slow", "plateau", "flat", "converge",
                                                          "learn", "improve"):
                continue
            if quantity in ("run", "model"):
                # "training diverges", "the model doesn't learn": the run's movements are the loss's, except a hang
                quantity = None if m not in ("hang", "stuck") else quantity
                if quantity == "model" and m == "stuck":
                    quantity = None
            if quantity == "run" and m == "stuck":
                if lemmas & {"forever", "error", "output", "happen", "bar", "progress", "iteration", "batch",
                             "log", "freeze", "hang", "epoch"}:
                    m = "hang"
                else:
                    self.u.confirm.append(("stuck", "You said 'stuck': is the loss stuck (not improving), or "
                                                    "is the run frozen (no progress, no output)?"))
                    continue
            if slow and m in ("down", "improve", "learn", "converge"):
                m = f"slow-{m}"
            elif m == "slow" and quantity in (None, "loss"):
                if quantity is None and not (lemmas & {"learn", "converge", "decrease", "drop", "improve", "loss"}):
                    continue
            if negated:
                m = f"not-{m}"
            at = p.i
            time, step = self._time(i, j, sent[0], sent[1], at)
            if m in ("plateau", "stuck", "flat", "not-down", "not-improve", "stay") and time != "start" \
                    and self._after_learning(sent[0], at):
                time = "after_learning"
            if m == "spike" and time in ("start_soft",):
                time = None
            sets = self._compose(quantity, split, m, time, tags)
            if sets is None and time is not None:
                sets = self._compose(quantity, split, m, None, tags)
            if sets is None:
                continue
            lo = min(p.start, chosen[0].start) if chosen and chosen[0].i >= i else p.start
            hi = max(p.end, chosen[0].end) if chosen and chosen[0].i >= i else p.end
            sets = dict(sets)
            if sets.get("loss_behavior") == "nan_or_inf" and step is not None and step > 0:
                sets["nan_step"] = step
            self.add(sets, lo, hi, hedged=hedged)
            if m in K.CLAIMS_BY_MOVEMENT:
                self.claim(self.tokens[i].start, self.tokens[j - 1].end, K.CLAIMS_BY_MOVEMENT[m])
            if "symptom" in sets or "loss_behavior" in sets:
                # the composed reading owns its words: a single-word cue inside them reads nothing else
                self.claim(lo, hi, ("symptom", "loss_behavior"))
        if quantities:
            state["last"] = quantities[-1]
        self._values(i, j, quantities)
        self._idioms(parts)

    def _idioms(self, parts: list[Part]) -> None:
        for p in parts:
            if "idiom" in p.roles and not self._negated(p.i, max(0, p.i - 3)):
                self.add(K.IDIOMS[p.roles["idiom"]], p.start, p.end)

    def _values(self, i: int, j: int, quantities: list[tuple[Part, str, str | None]]) -> None:
        """Numbers said next to a quantity: train/val accuracy, data-time share."""
        for p, q, split in quantities:
            if q not in ("accuracy", "data_time", "data_time_weak"):
                continue
            near = [t for t in self.tokens[max(i, p.i - 3):min(j, p.j + 4)] if t.kind == "num"]
            if not near:
                continue
            num = min(near, key=lambda t: min(abs(t.start - p.end), abs(p.start - t.end)))
            value = num.number
            if value is None:
                continue
            pct = num.unit == "%" or (num.end < len(self.text) and
                                      self.text[num.end:num.end + 8].strip().startswith(("percent", "%")))
            frac = value / 100.0 if (pct or value > 1.0) else value
            if not 0.0 <= frac <= 1.0:
                continue
            if q == "accuracy" and split in ("train", "val"):
                self.add({f"{'train' if split == 'train' else 'val'}_metric": frac, "metric_kind": "accuracy"},
                         min(p.start, num.start), max(p.end, num.end))
            elif q.startswith("data_time") and (pct or value <= 1.0):
                self.add({"data_time_fraction": frac}, min(p.start, num.start), max(p.end, num.end))

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
            if t.kind == "word" and "than" not in self.lemmas(k + 1, k + 2) and t.text not in ("<", ">") \
                    and not (t.lemma in ("below", "under", "above", "over")):
                continue
            left = [q for q in quantities if q[0].j <= k]
            right = [q for q in quantities if q[0].i > k]
            if not left or not right:
                continue
            (lp, lq, ls), (rp, rq, rs) = left[-1], right[0]
            if rq == "split_only":
                rq = lq
            if lq != rq or lq not in ("loss", "accuracy") or {ls, rs} != {"train", "val"}:
                continue
            val_lower = (rel == "lt") == (ls == "val")
            val_better = val_lower if lq == "loss" else not val_lower
            span = (lp.start, rp.end)
            if val_better:
                self.add({"val_better_than_train": True}, *span)
            else:
                self.add({"symptom": "overfitting", "metric_kind": lq}, *span)

    # -- questions, changes ---------------------------------------------------------------------------------
    def question(self, lo: int, hi: int) -> None:
        """A sentence asking which setting to use states a topic and claims the settings it names."""
        toks = self.tokens[lo:hi]
        if not toks:
            return
        lemmas = [t.lemma for t in toks]
        asks = toks[-1].text == "?" or lemmas[0] in K.QUESTION_LEADS or (len(lemmas) > 2 and lemmas[1] in
                                                                          ("should", "do", "can"))
        choice = set(lemmas) & K.CHOICE_WORDS or "vs" in lemmas or "which" in lemmas or "what" in lemmas or \
            "how" in lemmas
        if not asks or not choice:
            return
        parts = self.parts_in(lo, hi)
        topics = [p.roles["topic"] for p in parts if "topic" in p.roles]
        values = [p.roles["tv"] for p in parts if "tv" in p.roles]
        named = topics or values
        if not named:
            return
        if len(values) < 2 and not topics and not (set(lemmas) & {"should", "worth", "better", "enable", "need",
                                                                  "which", "vs", "recommend"}):
            return
        # "why is my loss negative?" asks about a symptom, not a setting: a topic must be the subject
        if lemmas[0] == "why":
            return
        topic = named[0]
        start, end = toks[0].start, toks[-1].end
        if topic == "tracking":
            if lemmas[0] in ("how", "what", "which", "should", "best") or "best" in lemmas:
                self.add({"symptom": "experiment_tracking"}, start, end)
            return
        self.add({"symptom": "direct_question", "question_topic": topic}, start, end)
        self.claim(start, end, set(K.TOPIC_SETTINGS.get(topic, ())) | K.SETTINGS)

    def changes(self, lo: int, hi: int) -> None:
        """"batch 64 -> 1024", "from fp32 to bf16", "1024 (was 64)", "1024 instead of 128": the after-value."""
        toks = self.tokens
        for k in range(lo, hi):
            t = toks[k]
            marker = t.kind == "arrow" or (t.lemma in ("to", "into") and "from" in self.lemmas(k - 5, k))
            if marker:
                before = [u for u in range(max(lo, k - 4), k) if toks[u].kind in ("num", "word")
                          and toks[u].lemma not in ("from", "a", "of", "the", "size", "batch", "bs")]
                after = [u for u in range(k + 1, min(hi, k + 5)) if toks[u].kind in ("num", "word")
                         and toks[u].lemma not in ("a", "of", "the", "size", "batch", "bs")]
                if not before or not after:
                    continue
                b, a = before[-1], after[0]
                self._change(lo, hi, b, a)
            elif t.lemma in ("was", "previously", "instead", "before") or t.text == "was":
                # "1024 (was 64)", "bf16 (was fp32 before)", "1024 instead of 128"
                nxt = [u for u in range(k + 1, min(hi, k + 4)) if toks[u].kind in ("num", "word")
                       and toks[u].lemma not in ("of", "a", "the", "batch", "size", "bs")]
                if t.lemma == "before":
                    continue
                if nxt:
                    b = nxt[0]
                    self.claim(toks[b].start, toks[b].end, K.SETTINGS)
        # "to 1024 from 128"
        for k in range(lo, hi):
            if toks[k].lemma == "from" and k > lo and "to" in self.lemmas(k - 4, k):
                nxt = [u for u in range(k + 1, min(hi, k + 4)) if toks[u].kind in ("num", "word")]
                if nxt:
                    self.claim(toks[nxt[0]].start, toks[nxt[0]].end, K.SETTINGS)

    def _change(self, lo: int, hi: int, b: int, a: int) -> None:
        toks = self.tokens
        self.claim(toks[b].start, toks[b].end, K.SETTINGS)
        if toks[a].kind != "num" or toks[b].kind != "num":
            return
        quantities = [q for _p, q, _s in self._quantities(self.parts_in(lo, hi))]
        value = toks[a].number
        if value is None:
            return
        before = toks[b].number
        # a quantity moving from one number to another ("val_loss from 0.5 to 1.2")
        if "batch" in quantities and value == int(value):
            self.add({"batch_size": int(value)}, toks[b].start, toks[a].end)
        elif "lr" in quantities:
            self.add({"learning_rate": value}, toks[b].start, toks[a].end)
        elif before is not None and quantities:
            self._moved(quantities, lo, hi, before, value, toks[b].start, toks[a].end)

    def _moved(self, quantities: list[str], lo: int, hi: int, before: float, after: float, start: int,
               end: int) -> None:
        split = None
        for _p, q, s in self._quantities(self.parts_in(lo, hi)):
            if q == "loss":
                split = s
        if "loss" not in quantities or before == after:
            return
        if split == "val" and after > before * 1.05:
            self.add({"symptom": "overfitting", "val_loss_rising": True}, start, end)

    # -- the whole text ------------------------------------------------------------------------------------
    def read(self) -> Understanding:
        state: dict[str, Any] = {}
        sentences: dict[int, list[tuple[int, int]]] = {}
        for s, i, j in _clauses(self.tokens, self.parts):
            sentences.setdefault(s, []).append((i, j))
        for clauses in sentences.values():
            lo, hi = clauses[0][0], clauses[-1][1]
            state.pop("last", None)
            for i, j in clauses:
                self.read_clause((lo, hi), i, j, state)
            self.compare(lo, hi)
            self.question(lo, hi + (1 if hi < len(self.tokens) and self.tokens[hi].text == "?" else 0))
            self.changes(lo, hi)
        self.evidence()
        return self.u

    # -- pasted evidence ------------------------------------------------------------------------------------
    def evidence(self) -> None:
        low = self.text
        first: tuple[int, dict[str, Any], int, int] | None = None
        for order, (pattern, sets) in enumerate(K.ERROR_SIGNATURES):
            m = _signature(order).search(low)
            if m and (first is None or m.start() < first[0]):
                first = (m.start(), sets, m.start(), m.end())
        if first is not None:
            _, sets, s, e = first
            self.add(dict(sets), s, e, strong=False)
            topic = sets.get("boundary_topic")
            crash = _crash().search(low)
            if topic in K.CRASH_TOPICS or crash:
                self.add({"symptom": "crash"}, s, e, strong=False)
        _log_series(self)


@lru_cache(maxsize=64)
def _signature(order: int) -> re.Pattern[str]:
    return re.compile(K.ERROR_SIGNATURES[order][0])


@lru_cache(maxsize=1)
def _crash() -> re.Pattern[str]:
    return re.compile(K.CRASH_SIGNS)


_KEY_VALUE = re.compile(
    r"(?P<key>(?:train[_ ]|training[_ ]|val[_ ]|validation[_ ]|eval[_ ]|valid[_ ])?loss)['\"]?\s*[:=]?\s*"
    r"(?P<value>nan|-?inf|[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?)\b"
    r"|(?P<skey>global_step|step|iteration|iter|it)['\"]?\s*[:=\s]\s*\[?(?P<step>\d[\d,]*)(?:\s*/\s*\d+)?"
    r"|(?P<ekey>epoch|ep)['\"]?\s*[:=\s]?\s*(?P<epoch>\d+(?:\.\d+)?)"
    r"|(?P<lkey>learning_rate|lr)['\"]?\s*[:=]\s*(?P<lr>\d+(?:\.\d+)?(?:e[-+]?\d+)?)")


def _log_series(r: _Reader) -> None:
    """Log lines: the first non-finite training loss (its step, whether finite losses came before it), the first
    learning rate of a metrics dict, and a validation loss that rises while the training loss falls."""
    train: list[float] = []
    val: list[float] = []
    nan_at: tuple[int, int, int | None, bool] | None = None  # start, end, step, finite before
    step: int | None = None
    epoch: float | None = None
    lines = 0
    for line_start, line in _lines(r.text):
        seen = False
        for m in _KEY_VALUE.finditer(line):
            if m.group("skey"):
                step = int(m.group("step").replace(",", ""))
            elif m.group("ekey"):
                epoch = float(m.group("epoch"))
            elif m.group("lkey"):
                if not any(x.name == "learning_rate" for x in r.u.readings) and "{" in line:
                    r.add({"learning_rate": float(m.group("lr"))}, line_start + m.start(), line_start + m.end())
            else:
                seen = True
                key, raw = m.group("key"), m.group("value")
                is_val = key.startswith(("val", "eval", "valid"))
                if raw in ("nan", "inf", "-inf"):
                    if not is_val and nan_at is None:
                        later = bool(train) or bool(step) or bool(epoch and epoch >= 1)
                        nan_at = (line_start + m.start(), line_start + m.end(), step, later)
                    continue
                (val if is_val else train).append(float(raw))
        lines += seen
    if nan_at is not None:
        s, e, st, later = nan_at
        sets: dict[str, Any] = {"symptom": "unstable", "loss_behavior": "nan_or_inf",
                                "nan_onset": "after_steps" if later else "immediate"}
        if st:
            sets["nan_step"] = st
        r.add(sets, s, e)
    if len(val) >= 2 and max(val[-2:]) > min(val) * 1.1 and val[-1] > val[0] and (not train or train[-1] < train[0]):
        r.add({"symptom": "overfitting", "val_loss_rising": True}, 0, min(len(r.text), 1))


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """Lines of the text, also split at " / " and at the closing brace of a dict (pasted one per line or not)."""
    pos = 0
    for piece in re.split(r"(\n|\s/\s|\}\s*(?=\{))", text):
        if piece and not re.fullmatch(r"\n|\s/\s|\}\s*", piece):
            yield pos, piece
        pos += len(piece)


def understand(text: str) -> Understanding:
    """Read normalised (lower-case) text into an :class:`Understanding` (never raises on any text)."""
    if not text:
        return Understanding()
    return _Reader(text).read()
