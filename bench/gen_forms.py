"""Regenerate ``knowledge/forms.py``: every inflected form of the words of ``knowledge.talk``, from lemminflect.

Run ``python -m bench.gen_forms`` after adding words to ``knowledge.talk``; ``tests/test_talk.py`` fails while
the table is out of date. lemminflect (a maintained English lemmatiser and inflector with irregular forms:
"went" -> "go", "hung" -> "hang", "froze" -> "freeze") is needed only here: its data takes ~0.2 s to load,
which a start-up budget of 0.3 s cannot pay, so its answers are shipped as a plain table.
"""

from __future__ import annotations

import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parent.parent / "knowledge" / "forms.py"


def lexicon_words() -> list[str]:
    """Every single word of every phrase the talk tables name, sorted."""
    from knowledge import talk

    tables = (talk.QUANTITIES, talk.SPLITS, talk.MOVEMENTS, talk.TIMES, talk.TOPICS, talk.TOPIC_VALUES,
              talk.IDIOMS, talk.CONCEPTS)
    words = {w for t in tables for phrase in t for w in phrase.split()}
    words |= {w.lstrip("~!=") for groups, _sets, _binds in talk.FRAMES for g in groups for w in g}
    # (and the words a frame binds to by name, which the sentence need not hold)
    words |= {w for _groups, _sets, binds in talk.FRAMES for bind in binds for side in bind[1:]
              if isinstance(side, str) for w in side.split()}
    words |= set(talk.SETTING_WORDS)
    words |= {w for phrase in talk.SETTING_VALUES for w in phrase.split()}
    words |= set(talk.SCOPE_VERBS) | set(talk.DATA_NOUNS) | set(talk.TIME_UNITS) | set(talk.CLASS_NOUNS)
    # (not the correlative's comparatives: read by their text, as lemmas they would hide "long" and "much")
    words |= set(talk.VALUE_WORDS) | set(talk.RESUME_WORDS)
    words |= set(talk.CHANGE_VERBS) | {w for phrase in talk.CHANGE_OBJECTS for w in phrase.split()}
    words |= set(talk.REMOVAL_VERBS) | set(talk.SETTING_CHANGE_LINKS) | set(talk.PASSIVE_SETTING_LINKS)
    words |= set(talk.HEDGES) | set(talk.CHOICE_WORDS) | {"be", "have", "do", "go", "get", "keep", "stop", "take",
                                                           "call", "use", "zero", "reset", "forget", "switch", "fail",
                                                           "refuse", "node", "layer"}
    return sorted(w for w in words if w.isalpha())


def forms() -> dict[str, str]:
    """Inflected form -> lemma for the lexicon's words (a form that is itself a lexicon word stays itself)."""
    import lemminflect

    words = lexicon_words()
    own = set(words)
    out: dict[str, str] = {}
    for w in words:
        table = lemminflect.getAllInflections(w) or {
            **lemminflect.getAllInflectionsOOV(w, "NOUN"), **lemminflect.getAllInflectionsOOV(w, "VERB")}
        for inflected in sorted({f.lower() for fs in table.values() for f in fs}):
            if inflected == w or inflected in own or not inflected.isalpha():
                continue
            if inflected not in out or w < out[inflected]:
                out[inflected] = w
    return dict(sorted(out.items()))


def render(table: dict[str, str]) -> str:
    """The module text for ``table``."""
    lines = ['"""Inflected forms of the words of ``knowledge.talk`` -> their lemma (generated: do not edit).', "",
             "Written by ``python -m bench.gen_forms`` from lemminflect's inflection tables.", '"""', "",
             "FORMS: dict[str, str] = {"]
    row = "   "
    for k, v in table.items():
        item = f" {k!r}: {v!r},"
        if len(row) + len(item) > 118:
            lines.append(row)
            row = "   "
        row += item
    lines.append(row)
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    """Write the table."""
    TARGET.write_text(render(forms()), encoding="utf-8")
    print(f"wrote {TARGET}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
