"""The interactive consultation (one question at a time) and the replay of a shipped consultation."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from expert.errors import InputError, TrainoptError

if TYPE_CHECKING:
    from expert.consultation import Consultation, QuestionView

EXAMPLES = Path(__file__).parent / "examples"
DEFAULT_EXAMPLE = "nan-fp16-custom-loss"
MAX_TURNS = 200
"""A consultation asks a handful of questions; this bound only stops a runaway loop."""

COMMANDS = (
    ("<number>", "pick a numbered choice"),
    ("<value>", "type a value (e.g. fp16, 3e-4, yes)"),
    ("?", "why this question is asked, and where the knowledge comes from"),
    ("why", "the reasoning so far (audit trail)"),
    ("back", "revise the previous answer"),
    ("skip", "decline this question"),
    ("quit", "stop and print the report so far"),
)

Write = Callable[[str], None]


class Leave(Exception):
    """The user asked to stop (``quit``) or the input ended."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read_line(prompt: str, write: Write) -> str:
    """Show ``prompt`` and read one line from stdin.

    Raises:
        Leave: The input ended (EOF).
    """
    write(prompt)
    line = sys.stdin.readline()
    if line == "":
        raise Leave("input ended")
    return line.strip()


def parse_answer(q: QuestionView, text: str) -> Any:
    """Turn what the user typed into a value for ``q``: a choice number, a choice label, or the value itself.

    Raises:
        InputError: A choice number out of range for a multiple-choice question.
    """
    if q.choices and text.isdigit():
        n = int(text)
        if 1 <= n <= len(q.choices):
            return q.choices[n - 1][0]
        if q.kind == "enum":
            raise InputError(f"no choice number {n}", hint=f"pick 1 to {len(q.choices)}")
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
        from expert.vocabulary import spec

        write(f"  (type {spec(q.sets).allowed()})\n")
    write("  ? why   why: reasoning so far   back   skip   quit\n")


def _allowed(q: QuestionView) -> str:
    from expert.vocabulary import spec

    if q.choices:
        return f"a number 1-{len(q.choices)} or one of: {', '.join(v for v, _ in q.choices)}"
    return spec(q.sets).allowed()


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
    while True:
        text = read_line("complaint> ", write)
        if text.lower() in ("quit", "exit", "q"):
            raise Leave("quit")
        if not text:
            break
        try:
            found = c.complain(text)
        except TrainoptError as e:
            write(e.render() + "\n")
            continue
        if found:
            write("understood: " + ", ".join(f"{o.name}={o.value} (from \"{o.source.partition(':')[2]}\")"
                                              for o in found) + "\n")
        else:
            write("(no known symptom words in that; the questions will narrow it down)\n")
        break

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
            if low in ("quit", "exit", "q"):
                raise Leave("quit")
            if low in ("?", "help why"):
                write(f"Why: {q.why}\nSource: {q.cite}\n")
                continue
            if low in ("help", "h"):
                write("".join(f"  {k:<9} {v}\n" for k, v in COMMANDS))
                continue
            if low == "why":
                write("Reasoning so far:\n" + render_trail(c.trace) + "\n")
                continue
            if low == "back":
                undone = c.back()
                if undone is None:
                    write("nothing to revise yet\n")
                    continue
                was = "skipped" if undone["answer"] is None else f"{undone['sets']}={undone['answer']!r}"
                write(f"revising: {undone['text']} (was {was})\n")
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
                write(f"not accepted: {e.message}\n  allowed: {_allowed(q)}\n")
                continue
            write(f"  -> {obs.name} = {obs.value!r}\n")
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
