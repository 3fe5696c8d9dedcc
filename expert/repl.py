"""The interactive consultation (one question at a time) and the replay of a shipped consultation."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from expert import rx, startup
from knowledge.errors import InputError, TrainoptError

if TYPE_CHECKING:
    from expert.consultation import Consultation, QuestionView

EXAMPLES = Path(__file__).parent / "examples"
DEFAULT_EXAMPLE = "nan-fp16-custom-loss"
MAX_TURNS = 200
"""A consultation asks a handful of questions; this bound only stops a runaway loop."""

COMMANDS = (
    ("<number>", "pick a numbered choice"),
    ("<value>", "type a value (e.g. fp16, 3e-4, 50k, 95%, yes)"),
    ("?", "why this question is asked, and where the knowledge comes from"),
    ("why", "the reasoning so far (audit trail)"),
    ("known", "what is known so far, and where each value came from"),
    ("back", "undo the previous answer (or what was read from the complaint)"),
    ("forget NAME", "drop one observation, e.g. a value misread from the complaint"),
    ("not X, Y", "correct one reading in place: `not hang, the loss` (the words meant the loss), `not sgd, adam`"),
    ("skip", "decline this question"),
    ("quit", "stop and print the report so far"),
)

Write = Callable[[str], None]
_DIGITS = rx.compile(r"[0-9]+", re.ASCII)


class Leave(Exception):
    """The user asked to stop (``quit``) or the input ended."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_editing = False


def _enable_editing() -> None:
    """Give ``input()`` line editing and in-session history when a person types at a terminal."""
    global _editing
    if _editing or not sys.stdin.isatty():
        return
    _editing = True
    try:
        import readline  # noqa: F401 - importing it is what makes input() edit lines and keep history
    except ImportError:  # Windows without pyreadline: plain input() still works
        pass


def read_line(prompt: str, write: Write) -> str:
    """Show ``prompt`` and read one line with ``input()`` (line editing and history at a terminal).

    The prompt goes through ``write`` (stdout, or stderr when stdout carries JSON) unless stdin and stdout are
    both terminals and ``write`` prints to stdout, where ``input(prompt)`` lets readline redraw it.

    Raises:
        Leave: The input ended (EOF, Ctrl-D).
    """
    _enable_editing()
    startup.settle()  # a session waits on a person and may run long: collect as usual from here
    while True:
        try:
            if getattr(write, "stdout", False) and sys.stdin.isatty() and sys.stdout.isatty():
                line = input(prompt)
            else:
                write(prompt)
                line = _read_piped()
        except EOFError:
            raise Leave("input ended") from None
        except UnicodeDecodeError:  # a terminal set to another encoding: the line is gone, ask again
            write("\n(that line was not UTF-8 text; type it again)\n")
            continue
        except _TooLong:
            write(f"\n(that line was over {MAX_INPUT_LINE >> 10} KiB and was dropped; type it again)\n")
            continue
        if "\ufffd" in line:
            write("(bytes that are not UTF-8 text were read as \ufffd)\n")
        return line.strip()


MAX_INPUT_LINE = 1 << 20
"""Longest line read from piped input; a longer one is dropped (never held whole) and asked again."""


class _TooLong(Exception):
    """A piped line over MAX_INPUT_LINE."""


def _read_piped() -> str:
    """One line of piped input, bounded, decoded leniently: bytes that are not UTF-8 become U+FFFD.

    Reads the byte stream under ``sys.stdin`` (when it has one) so that neither the stream's own decoding
    rules nor a line with no end can stop the consultation.

    Raises:
        EOFError: The input ended.
        _TooLong: The line was over MAX_INPUT_LINE (its bytes were read past).
    """
    raw_in = getattr(sys.stdin, "buffer", None)
    if raw_in is None:
        return input()
    raw = raw_in.readline(MAX_INPUT_LINE)
    if not raw:
        raise EOFError
    if len(raw) >= MAX_INPUT_LINE and not raw.endswith(b"\n"):
        while True:
            more = raw_in.readline(MAX_INPUT_LINE)
            if not more or more.endswith(b"\n"):
                raise _TooLong
    return raw.decode("utf-8", "replace").rstrip("\r\n")


def parse_answer(q: QuestionView, text: str) -> Any:
    """Turn what the user typed into a value for ``q``: a choice number, a choice label, or the value itself.

    Raises:
        InputError: A choice number out of range for a multiple-choice question.
    """
    # ASCII digits only: str.isdigit() also accepts "²" and "١", which int() then refuses.
    if q.choices and _DIGITS.fullmatch(text):
        n = int(text) if len(text) < 10 else 0
        if 1 <= n <= len(q.choices):
            return q.choices[n - 1][0]
        if q.kind == "enum":
            raise InputError(f"no choice number {text}", hint=f"pick 1 to {len(q.choices)}")
    low = text.lower()
    for value, label in q.choices:
        if low == label.lower():
            return value
    return text


def show_question(q: QuestionView, n: int, write: Write) -> None:
    """Print question ``n`` with its numbered choices or the kind of value expected."""
    write(f"\nQ{n}. {q.text}\n")
    for i, (value, label) in enumerate(q.choices, 1):
        write(f"  {i}) {label}" + (f"  [{value}]" if label.replace(" ", "_") != value else "") + "\n")
    if not q.choices:
        from knowledge.vocabulary import spec

        write(f"  (type {spec(q.sets).allowed()})\n")
    write("  ? why   why: reasoning so far   back   forget NAME   skip   quit\n")


def _allowed(q: QuestionView) -> str:
    from knowledge.vocabulary import PAIRS, spec

    if q.choices:
        return f"a number 1-{len(q.choices)} or one of: {', '.join(v for v, _ in q.choices)}"
    pair = " (or two, train then validation: 0.95 / 0.75)" if q.sets in PAIRS else ""
    return spec(q.sets).allowed() + pair


def _source_phrase(source: str) -> str:
    kind, _, rest = source.partition(":")
    return {"text": f'from "{rest}"', "answer": f"your answer to {rest}", "probe": f"probe {rest}",
            "declared": "declared"}.get(kind, source)


def _known(c: Consultation) -> str:
    if not c.observations:
        return "nothing known yet\n"
    return "".join(f"  {n} = {o.value!r}  ({_source_phrase(o.source)})\n" for n, o in sorted(c.observations.items()))


_READER = __name__.rpartition(".")[0] + ".talk"
"""The text reader's module, as this package is named (``expert`` or trainopt's private copy of it)."""


def _read_complaint(c: Consultation, write: Write) -> None:
    """The complaint prompt: read free text until it is understood, left empty, or the user quits."""
    while True:
        text = read_line("complaint> ", write)
        if text.lower() in ("quit", "exit", "q"):
            raise Leave("quit")
        if not text:
            return
        if text.lower() == "back":
            # a command here too: after `back` took the complaint back, a second `back` is no new complaint
            _back(c, write)
            continue
        try:
            if _READER in sys.modules:
                found = c.complain(text)
            else:
                with startup.loading():  # the first complaint loads the text reader (``expert.startup.loading``)
                    found = c.complain(text)
        except TrainoptError as e:
            write(e.render() + "\n")
            continue
        if found:
            _understood(found, write)
        else:
            write("(no known symptom words in that; the questions will narrow it down)\n")
        from expert.text import confirmations, offered

        checks = confirmations(text)
        for line in checks:
            write(f"check: {line}\n")
        if checks:
            _confirm(c, write, offered(text), [o for o in found if o.name == "self_diagnosis"])
        return


def _understood(found: list, write: Write) -> None:
    """Show what a complaint (or a check answered in words) was read as, and how to correct it."""
    write("understood: " + ", ".join(f"{o.name}={o.value} ({_source_phrase(o.source)})" for o in found)
          + "\n  (misread? `not X, Y` corrects one reading, `forget NAME` drops one value, `back` takes "
            "the whole complaint back)\n")


def _told(c: Consultation, reply: str, write: Write) -> bool:
    """A check answered in words ("slower", "worse accuracy"): read as more of the complaint when it says something.

    A check that offers a choice ("slower, or worse results?") leaves no reading to correct with `not X, Y`: the
    answer is itself training talk. A reply that reads as nothing is no answer and changes nothing (False: the
    hint is shown again).
    """
    from expert.text import parse_complaint

    if not parse_complaint(reply):
        return False
    try:
        found = c.complain(reply)
    except TrainoptError as e:  # contradicts what is known: nothing changes
        write(e.render() + "\n")
        return True
    if found:
        _understood(found, write)
    return True


_NO = ("n", "no", "nope", "not that", "no it isn't", "no it's not")
"""Replies that deny a hypothesis at the check prompt."""


def _confirm(c: Consultation, write: Write, asked: list | None = None, suspected: list | None = None) -> None:
    """After a reading left open: Enter keeps what was read, `not X, Y` corrects one reading in place.

    An answer in words that reads as something ("slower") is more of the complaint (:func:`_told`).
    ``asked`` holds the causes the user only asked about (not read): `yes` records them, Enter leaves them out.
    ``suspected`` holds the settings the complaint suspects (read as ``self_diagnosis``). A `no` drops both kinds of
    hypothesis: they are no longer listed as suspected nor checked first.
    """
    asked, suspected = list(asked or []), list(suspected or [])
    hypotheses = asked + suspected
    if asked:
        write("  (`yes` records what you asked about; `no` drops it; Enter leaves it out and keeps the readings; "
              "`not X, Y` corrects one)\n")
    elif suspected:
        write("  (Enter keeps the reading; `no` drops the suspicion; `not X, Y` corrects it)\n")
    else:
        write("  (Enter keeps the reading; `not X, Y` corrects it, e.g. `not hang, the loss`)\n")
    for _ in range(3):
        reply = read_line("check> ", write)
        low = reply.lower().strip(" .!")
        if low in ("quit", "exit", "q"):
            raise Leave("quit")
        if asked and low in ("y", "yes"):
            try:
                recorded = c.confirm([o.name for o in asked])
            except TrainoptError as e:  # contradicts what is known: nothing changes
                write(e.render() + "\n")
                return
            write("recorded: " + ", ".join(f"{o.name}={o.value}" for o in recorded) + "\n")
            return
        if hypotheses and low in _NO:
            dropped = c.dismiss([o.name for o in hypotheses])
            write("dropped what you suspected: " + (", ".join(f"{o.name}={o.value}" for o in dropped) or "nothing")
                  + "; it is no longer checked first (`back` restores it)\n")
            return
        if not reply or low in ("y", "yes", "ok", "keep"):
            return
        if correct(c, reply, write) is not None or _told(c, reply, write):
            return
        write("press Enter to keep the reading, " + ("`no` to drop what you suspect, " if hypotheses else "")
              + "or type `not X, Y`\n")


_CORRECTION = rx.compile(r"^\s*not\s+(?P<wrong>[^,;]+?)\s*[,;]\s*(?:but\s+)?(?:it'?s\s+|it\s+is\s+)?"
                         r"(?P<right>\S.*?)\s*$",
                         re.IGNORECASE)


def correct(c: Consultation, text: str, write: Write) -> bool | None:
    """Correct one reading of the complaint in place: ``not X, Y``.

    ``X`` names the reading (its value, its observation or a word it was read from); ``Y`` is either another
    value of the same observation (``not sgd, adam``) or the quantity the words were about (``not hang, the
    loss``: the words are read again as said of the loss).

    Returns:
        None when ``text`` is no correction; True when a reading changed; False when it could not be applied
        (nothing changes then).
    """
    m = _CORRECTION.match(text)
    if m is None:
        return None
    from expert.consultation import canonical_term
    from expert.text import reread
    from knowledge.vocabulary import Observation, validate

    wrong, right = m.group("wrong").strip().lower(), m.group("right").strip()
    read = [o for o in c.observations.values() if o.source.startswith("text:")]
    target = next((o for o in read if str(o.value).lower() == wrong), None) or \
        next((o for o in read if o.name == wrong), None) or \
        next((o for o in read if wrong in o.source[5:].lower()), None)
    if target is None:
        write(f"nothing read from the complaint is '{wrong}'; read: "
              + (", ".join(f"{o.name}={o.value}" for o in read) or "nothing") + "\n")
        return False
    value = canonical_term(target.name, right)
    try:
        fixed = [Observation.make(target.name, validate(target.name, value), f"{target.source} (corrected)")]
    except TrainoptError:
        # not a value of that observation: the words were about another quantity
        words = target.source[5:]
        fixed = reread(words, re.sub(r"^(?:the|my)\s+", "", right, flags=re.IGNORECASE))
        if not fixed:
            write(f"'{words}' said of {right} states nothing trainopt knows; `forget {target.name}` drops the "
                  f"reading\n")
            return False
    stale = [o.name for o in read if o.source == target.source and o.name not in {f.name for f in fixed}]
    for name in stale:
        c.forget(name)
    c.add(fixed)
    write("corrected: " + ", ".join(f"{o.name}={o.value!r}" for o in fixed)
          + (f" (dropped {', '.join(stale)})" if stale else "") + "\n")
    return True


def _back(c: Consultation, write: Write) -> bool:
    """Undo the last step; True when it was the complaint (so the complaint prompt comes back)."""
    undone = c.back()
    if undone is None:
        write("nothing to undo yet\n")
        return False
    if undone["kind"] == "complaint":
        took = ", ".join(f"{n}={v!r}" for n, v in undone["took_back"].items()) or "nothing"
        write(f"took back the complaint \"{undone['text'][:80]}\" (it had set {took}); "
              "describe it again, or press Enter to answer questions\n")
        return True
    if undone["kind"] == "forget":
        write(f"restored {undone['restored']}\n")
        return False
    if undone["kind"] in ("confirm", "dismiss"):
        what = ", ".join(f"{o.name}={o.value}" for o in c.suspects) or "nothing"
        said = "yes" if undone["kind"] == "confirm" else "no"
        write(f"took back your `{said}`; suspected again: {what}\n")
        return False
    was = "skipped" if undone["answer"] is None else f"{undone['sets']}={undone['answer']!r}"
    write(f"revising: {undone['text']} (was {was})\n")
    return False


def _forget(c: Consultation, arg: str, write: Write) -> bool:
    """Drop one observation; True when something was forgotten (so the next question may change)."""
    if not arg:
        write("forget what? known: " + (", ".join(sorted(c.observations)) or "nothing yet") + "\n")
        return False
    try:
        old = c.forget(arg)
    except TrainoptError as e:
        write(e.render() + "\n")
        return False
    write(f"forgot {old.name}={old.value!r} ({_source_phrase(old.source)}); `back` restores it\n")
    return True


def _prepare() -> None:
    """Load what every consultation reads (the knowledge, the engine) before the first prompt.

    Until then the start-up's collector pause holds (``expert.startup``), and the first prompt freezes what was
    loaded out of the collector's walks: loaded after it, the engine's hundred thousand objects would be walked
    by every collection of the conversation (about a twentieth of a short ``consult``). Nothing here is wasted:
    even a consultation left at once ends with a report, which runs the engine.
    """
    from expert.kb import engine

    engine()


def consult(c: Consultation, write: Write) -> Consultation:
    """Run the interactive consultation on stdin until no question is pending.

    Args:
        c: The consultation to fill in (it may already hold observations).
        write: Where the conversation goes (stdout, or stderr when stdout carries JSON).

    Returns:
        The consultation.

    Raises:
        Leave: The user quit or the input ended (the consultation keeps what was answered).
    """
    from expert.report import render_trail

    write("trainopt consult: describe the training problem in a sentence (or press Enter to answer "
          "questions instead).\n")
    _prepare()
    _read_complaint(c, write)

    asked = 0
    noted: set[str] = set()
    for _ in range(MAX_TURNS):
        d = c.run()
        # A note (e.g. the pressure acknowledgement) answers the user now, before the question it announces.
        for n in d.notes:
            if n["detail"] not in noted:
                noted.add(n["detail"])
                write(f"note: {n['detail']} [{n['rule']}]\n")
        q = d.question
        if q is None:
            return c
        asked += 1
        show_question(q, asked, write)
        while True:
            text = read_line("> ", write)
            low = text.lower()
            command, _, arg = low.partition(" ")
            if low in ("quit", "exit", "q"):
                raise Leave("quit")
            if low in ("?", "help why"):
                write(f"Why: {q.why}\n" + (f"Asked now: {q.chosen}\n" if q.chosen else "") + f"Source: {q.cite}\n")
                continue
            if low in ("help", "h"):
                write("".join(f"  {k:<12} {v}\n" for k, v in COMMANDS))
                continue
            if low == "why":
                write("Reasoning so far:\n" + render_trail(c.trace) + "\n")
                continue
            if low in ("known", "facts"):
                write(_known(c))
                continue
            fixed = correct(c, text, write)
            if fixed is not None:
                if not fixed:
                    continue
                asked -= 1
                break
            if command == "forget":
                if not _forget(c, text.partition(" ")[2].strip(), write):
                    continue
                asked -= 1
                break
            if low == "back":
                if _back(c, write):
                    _read_complaint(c, write)
                asked = max(0, asked - 2)
                break
            if low == "skip":
                c.decline(q.id)
                write("skipped\n")
                break
            if not text:
                write(f"please answer with {_allowed(q)}\n")
                continue
            try:
                obs = c.answer(q.id, parse_answer(q, text))
            except TrainoptError as e:
                # Refused: nothing changed; the same question is asked again.
                write(f"not accepted: {e.message}\n  allowed: {_allowed(q)}\n")
                continue
            also = [o for o in c.observations.values() if o.source == obs.source and o.name != obs.name]
            shown = ", ".join(f"{o.name} = {o.value!r}" for o in (obs, *also))
            write(f"  -> {shown}" + (f"  ({c.last_note})" if c.last_note else "") + "\n")
            break
    raise InputError(f"more than {MAX_TURNS} turns without reaching a diagnosis")


# ---------------------------------------------------------------------------------------------------
# Replay of a shipped consultation (``trainopt demo``)
# ---------------------------------------------------------------------------------------------------


def list_examples() -> list[str]:
    """Names of the shipped consultations."""
    return sorted(p.stem for p in EXAMPLES.glob("*.json"))


def load_example(name: str = DEFAULT_EXAMPLE) -> dict[str, Any]:
    """Load a shipped consultation (or any JSON file given by path).

    Raises:
        InputError: Unknown example or malformed file.
    """
    path = Path(name) if name.endswith(".json") else EXAMPLES / f"{name}.json"
    if not path.is_file():
        raise InputError(f"unknown example {name!r}", hint="examples: " + ", ".join(list_examples()))
    import json  # only a replayed example is JSON here: ``consult`` does not load the decoder

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed example {path.name}: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("answers", {}), dict):
        raise InputError(f"example {path.name} must be an object with 'complaint' and 'answers'")
    return data


def replay(example: dict[str, Any], write: Write) -> Consultation:
    """Replay a scripted consultation: the complaint, then each question the engine asks with its scripted answer.

    The script maps question ids to answers (``null`` declines); a question the script does not answer is
    declined, so the replay always ends with what the engine can conclude.

    Args:
        example: ``{"title", "complaint", "observations"?, "answers": {question id: answer}}``.
        write: Where the transcript goes.

    Returns:
        The finished consultation.
    """
    from expert.consultation import Consultation

    c = Consultation()
    if example.get("title"):
        write(f"== {example['title']} ==\n")
    if example.get("observations"):
        c.observe(**example["observations"])
        write("declared: " + ", ".join(f"{k}={v}" for k, v in example["observations"].items()) + "\n")
    complaint = example.get("complaint")
    if complaint:
        write(f'complaint: "{complaint}"\n')
        found = c.complain(complaint)
        if found:
            write("  understood: " + ", ".join(f"{o.name}={o.value}" for o in found) + "\n")
    answers = example.get("answers", {})
    for n in range(1, MAX_TURNS):
        q = c.run().question
        if q is None:
            break
        write(f"Q{n}. {q.text} [{q.id}]\n")
        if q.id in answers and answers[q.id] is not None:
            obs = c.answer(q.id, answers[q.id])
            write(f"  A: {obs.value!r}  ({obs.name})\n")
        else:
            c.decline(q.id)
            write("  A: (skipped" + ("" if q.id in answers else ": not in the script") + ")\n")
    return c
