"""How well the complaint reader copes with user noise (``python -m bench.perturb``, issue 19).

The phrasing suite's dev phrasings (never the held-back ones) are rewritten, deterministically from a seed, the
ways people really type, one kind of noise at a time, and read again; the figures per kind are set beside those
of the clean phrasings. A kind whose recall falls far below the clean recall names what the reader is brittle
to. The kinds:

* ``typo``: one slip in a share of the long words (two letters swapped, one dropped, one doubled, or a key's
  neighbour struck instead);
* ``flat``: all lower case, no punctuation but what a number or an identifier holds ("0.5", "val_loss");
* ``abbrev``: common abbreviations and their expansions, both ways ("validation" <-> "val", "lr" <-> "learning
  rate", "w/" <-> "with");
* ``spelling``: British spellings made American and American ones British ("normalize" <-> "normalise");
* ``terse``: articles and auxiliaries dropped, the non-native way ("loss become nan after 3 epoch");
* ``inflect``: a word's tense or number changed ("spikes" -> "spiked", "epochs" -> "epoch").

Only words a perturbation can change are changed, so a phrasing may come back as it was: it is still scored, as
a user might have typed it so.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import sys
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from bench.eval_text import SUITE, Phrasing, evaluate, load, summarise

KINDS = ("typo", "flat", "abbrev", "spelling", "terse", "inflect")
RATE = 0.35
"""Share of the words a perturbation may change that it does change (a typo in a third of the long words)."""
LONG_WORD = 6
"""Letters a word needs for a typo: a slip in a short word often makes another word ("lose" -> "lost")."""

_WORD = re.compile(r"(?<![\w.])[A-Za-z]+(?:'[a-z]+)?(?![\w.(])")
"""A word a person types (not part of an identifier, a dotted name or a call, which are pasted as they are)."""
_KEYS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


@lru_cache(maxsize=1)
def _neighbours() -> dict[str, str]:
    """Each letter's neighbours on a QWERTY keyboard (same row and the rows above and below)."""
    out: dict[str, str] = {}
    for r, row in enumerate(_KEYS):
        for c, ch in enumerate(row):
            near = {row[k] for k in (c - 1, c + 1) if 0 <= k < len(row)}
            for rr in (r - 1, r + 1):
                if 0 <= rr < len(_KEYS):
                    near |= {_KEYS[rr][k] for k in (c - 1, c, c + 1) if 0 <= k < len(_KEYS[rr])}
            out[ch] = "".join(sorted(near))
    return out


def _typo(word: str, rng: random.Random) -> str:
    """One slip in ``word`` (never its first letter: people rarely miss the first key)."""
    i = rng.randrange(1, len(word) - 1)
    how = rng.choice(("swap", "drop", "double", "near"))
    if how == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if how == "drop":
        return word[:i] + word[i + 1:]
    if how == "double":
        return word[:i] + word[i] + word[i:]
    near = _neighbours().get(word[i].lower())
    if not near:
        return word
    ch = rng.choice(near)
    return word[:i] + (ch.upper() if word[i].isupper() else ch) + word[i + 1:]


def typo(text: str, rng: random.Random) -> str:
    """A slip in a share of the long words."""
    return _WORD.sub(lambda m: _typo(m.group(0), rng)
                     if len(m.group(0)) >= LONG_WORD and m.group(0).isalpha() and rng.random() < RATE
                     else m.group(0), text)


_PUNCT = re.compile(r"[.,!?;:\"()]+(?=\s|$)|(?<=\s)[\"(]+|'")


def flat(text: str, rng: random.Random) -> str:
    """All lower case, and the punctuation between words gone (a number's point and an identifier's kept)."""
    return _PUNCT.sub("", text.lower())


# both ways: the first word of a pair is written as the second, and the second as the first
_ABBREVIATIONS = (("validation", "val"), ("accuracy", "acc"), ("learning rate", "lr"), ("batch size", "bs"),
                  ("gradients", "grads"), ("gradient", "grad"), ("epochs", "eps"), ("epoch", "ep"),
                  ("with", "w/"), ("because", "b/c"), ("iterations", "iters"), ("iteration", "iter"),
                  ("parameters", "params"), ("parameter", "param"))


def _swap_pattern(pairs: tuple[tuple[str, str], ...], before: str, after: str = "") -> tuple[re.Pattern[str],
                                                                                              dict[str, str]]:
    """A pattern for either word of each pair (longest first, between the given guards) and the word to swap in."""
    swap = {}
    for one, other in pairs:
        swap[one] = other
        swap[other] = one
    alts = "|".join(re.escape(w) for w in sorted(swap, key=len, reverse=True))
    return re.compile(rf"{before}(?:{alts}){after}", re.IGNORECASE), swap


@lru_cache(maxsize=1)
def _abbreviation_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    return _swap_pattern(_ABBREVIATIONS, r"(?<![\w/])", r"(?![\w/])")


def abbrev(text: str, rng: random.Random) -> str:
    """Abbreviations written out and full words abbreviated, each with chance ``RATE`` (twice as often)."""
    pattern, swap = _abbreviation_pattern()
    return pattern.sub(lambda m: swap[m.group(0).lower()] if rng.random() < 2 * RATE else m.group(0), text)


# British <-> American spelling families, by the stems they apply to (the stems as both spell them)
_SPELLINGS = (("normaliz", "normalis"), ("regulariz", "regularis"), ("optimiz", "optimis"), ("initializ", "initialis"),
              ("stabiliz", "stabilis"), ("tokeniz", "tokenis"), ("quantiz", "quantis"), ("generaliz", "generalis"),
              ("utiliz", "utilis"), ("minimiz", "minimis"), ("maximiz", "maximis"), ("memoriz", "memoris"),
              ("behavior", "behaviour"), ("color", "colour"), ("labeled", "labelled"), ("labeling", "labelling"),
              ("modeling", "modelling"), ("modeled", "modelled"), ("center", "centre"), ("analyz", "analys"),
              ("canceled", "cancelled"), ("favor", "favour"))


@lru_cache(maxsize=1)
def _spelling_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    return _swap_pattern(_SPELLINGS, r"(?<![a-z])")


def spelling(text: str, rng: random.Random) -> str:
    """Each British spelling made American and each American one British."""
    pattern, swap = _spelling_pattern()
    return pattern.sub(lambda m: swap[m.group(0).lower()], text)


_FUNCTION = frozenset("a an the is are was were be been being has have had do does did am".split())
"""Articles and auxiliaries a non-native writer leaves out."""


def terse(text: str, rng: random.Random) -> str:
    """Articles and auxiliaries dropped, each with chance twice ``RATE``; what follows keeps its form."""
    def drop(m: re.Match[str]) -> str:
        return "" if m.group(1).lower() in _FUNCTION and rng.random() < 2 * RATE else m.group(0)
    return re.sub(r"\b([A-Za-z]+) (?=[A-Za-z0-9])", drop, text)


@lru_cache(maxsize=4096)
def _other_forms(word: str) -> tuple[str, ...]:
    """The other inflections of ``word`` (lemminflect), when it is a verb or a noun; () otherwise."""
    try:
        from lemminflect import getAllInflections, getAllLemmas
    except ImportError:  # pragma: no cover - a dev dependency (setup.cfg); without it no word is inflected
        return ()
    out: set[str] = set()
    found = getAllLemmas(word)
    # a word both noun and verb keeps its likelier part: a verb's form when it ends like one ("spiked"), else
    # the noun's ("rate" -> "rates", never "rating")
    verbal = word.endswith(("ed", "ing")) or "NOUN" not in found
    for pos, lemmas in found.items():
        if pos != ("VERB" if verbal else "NOUN"):
            continue
        for lemma in lemmas:
            for tag, forms in getAllInflections(lemma, upos=pos).items():
                if tag != "VBN":  # the participle is the past's twin (or irregular): one past form is enough
                    out.update(forms)
            out.add(lemma)
    out.discard(word)
    return tuple(sorted(f for f in out if f.isalpha()))


def inflect(text: str, rng: random.Random) -> str:
    """A share of the verbs and nouns put in another tense or number."""
    def change(m: re.Match[str]) -> str:
        w = m.group(0)
        if len(w) < 4 or not w.islower() or w in _FUNCTION or rng.random() >= RATE:
            return w
        if w.endswith("ing") and re.match(r" [a-z]", text[m.end():m.end() + 2]):
            return w  # a gerund before a noun names a thing ("learning rate", "training loss"): no tense there
        forms = _other_forms(w)
        return rng.choice(forms) if forms else w
    return _WORD.sub(change, text)


PERTURBATIONS: dict[str, Callable[[str, random.Random], str]] = {
    "typo": typo, "flat": flat, "abbrev": abbrev, "spelling": spelling, "terse": terse, "inflect": inflect}


def _lines(text: str, kind: str, rng: random.Random) -> str:
    """Perturb each line apart, leaving lines that look pasted (logs, tracebacks) as the machine wrote them."""
    fn = PERTURBATIONS[kind]
    return "\n".join(line if _pasted(line) else fn(line, rng) for line in text.split("\n"))


_PASTED = re.compile(r"Error\b|Traceback|File \"|^\s*(?:\w+ ?[:=|] ?[-\d.e]+[ ,|]*){2,}|\d+/\d+ \[|it/s|s/it")


def _pasted(line: str) -> bool:
    """A line a machine wrote (an error, a log record): a user pastes it, never retypes it."""
    return bool(_PASTED.search(line))


def perturb(p: Phrasing, kind: str, seed: int) -> Phrasing:
    """``p`` with its text perturbed by ``kind`` (the same text for the same seed, situation and phrasing)."""
    rng = random.Random(f"{seed}:{kind}:{p.line}")
    return dataclasses.replace(p, text=_lines(p.text, kind, rng))


def dev_phrasings(directory: Path = SUITE) -> list[Phrasing]:
    """The dev phrasings of the suite (held-back situations are never perturbed nor read here)."""
    return [p for p in load(directory) if p.split == "dev"]


def fact_recall(phrasings: Sequence[Phrasing]) -> float:
    """The share of stated observations read with their stated value, by the text reader alone (no route: fast)."""
    from bench.eval_text import same
    from expert.text import parse_complaint

    stated = hit = 0
    for p in phrasings:
        got = {o.name: o.value for o in parse_complaint(p.text)}
        stated += len(p.facts)
        hit += sum(name in got and same(value, got[name]) for name, value in p.facts.items())
    return hit / stated if stated else 0.0


def figures(phrasings: Sequence[Phrasing], kinds: Sequence[str], seed: int) -> dict[str, dict[str, Any]]:
    """The clean figures and each kind's, over ``phrasings`` (dev only)."""
    out = {"clean": summarise(evaluate(phrasings)["dev"])}
    for kind in kinds:
        changed = [perturb(p, kind, seed) for p in phrasings]
        out[kind] = summarise(evaluate(changed)["dev"])
        out[kind]["changed"] = sum(a.text != b.text for a, b in zip(phrasings, changed))
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line: the figures per perturbation kind beside the clean ones (dev phrasings only)."""
    ap = argparse.ArgumentParser(prog="python -m bench.perturb", description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, default=SUITE, help="directory of suite *.txt files")
    ap.add_argument("--seed", type=int, default=0, help="the perturbations' seed")
    ap.add_argument("--kind", action="append", choices=KINDS, help="a kind to run (default: all)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--show", type=int, default=0, help="print this many perturbed misses per kind")
    args = ap.parse_args(argv)
    phrasings = dev_phrasings(args.suite)
    kinds = args.kind or list(KINDS)
    figs = figures(phrasings, kinds, args.seed)
    if args.json:
        print(json.dumps(figs, indent=2))
        return 0
    print(f"Dev phrasings under noise (seed {args.seed}, rate {RATE}):")
    print(f"  {'kind':<10}{'changed':>8}{'recall':>8}{'wrong':>7}{'nothing':>9}{'route':>7}")
    for kind, f in figs.items():
        print(f"  {kind:<10}{f.get('changed', ''):>8}{f['recall']:>8.1%}{f['wrong']:>7.1%}{f['nothing']:>9.1%}"
              f"{f['route']:>7.1%}")
    if args.show:
        for kind in kinds:
            shown = 0
            for p in phrasings:
                q = perturb(p, kind, args.seed)
                if q.text == p.text:
                    continue
                r = evaluate([q])["dev"][0]
                if r.missed or r.wrong:
                    print(f"[{kind}] {q.text[:120]!r}  missed={r.missed} wrong={r.wrong}")
                    shown += 1
                    if shown >= args.show:
                        break
    return 0


if __name__ == "__main__":
    sys.exit(main())
