"""Errors that carry their own exit code and say what to do next."""

from __future__ import annotations

EXIT_OK = 0
EXIT_ACTION = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_SCRIPT_EXITED = 4
"""``trainopt examine``: the user's script (or a call into it) ended the process with ``sys.exit`` or ``exit()``."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (or a KeyboardInterrupt raised in the user's script): the shell convention, 128 + SIGINT."""

EXCERPT_CHARS = 60
"""The most characters of any input value a message quotes (the rest is elided): an error never echoes a log's
content, a secret it may hold, or a 120 kB argument whole."""
PART_CHARS = 600
"""The longest a message part (what happened, context, hint) may render; longer parts are cut with a marker."""


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """A short, escaped quotation of an input value for a message.

    Control characters, lone surrogates and undecodable bytes are escaped (``repr`` style), so a message is
    always one printable line that any terminal and encoder accept.

    Args:
        value: What the user handed over (str, bytes or anything with a ``str``).
        limit: Characters of the value kept before the elision mark.

    Returns:
        The quoted excerpt, e.g. ``'AWS_SECRET_A…' (120000 chars)``.
    """
    if isinstance(value, (bytes, bytearray)):
        text = bytes(value[: limit * 4]).decode("utf-8", "backslashreplace")
        total = len(value)
    else:
        text = value if isinstance(value, str) else str(value)
        total = len(text)
    cut = text[:limit]
    quoted = repr(cut)
    if total > limit:
        return f"{quoted[:-1]}…{quoted[-1]} ({total} {'bytes' if isinstance(value, (bytes, bytearray)) else 'chars'})"
    return quoted


def shorten_part(part: str) -> str:
    """One message part made printable and short: escaped surrogates and controls, cut at PART_CHARS."""
    if not part.isprintable():
        part = "".join(ch if ch.isprintable() or ch in "\n\t" else repr(ch)[1:-1] for ch in part)
    if len(part) > PART_CHARS:
        part = part[:PART_CHARS] + f"… ({len(part) - PART_CHARS} more chars)"
    return part


class TrainoptError(Exception):
    """Base class: a message in three parts (what happened, context, hint) and an exit code.

    Args:
        message: What happened.
        context: Where, or with what input.
        hint: What to do next.
    """

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, context: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.context = context
        self.hint = hint

    def render(self) -> str:
        """Return the error in pip's layout: what happened, then context and hint lines."""
        # Every part is made printable and short here, whatever a caller put in it: the last guard against
        # echoing a whole input or a character the terminal's encoder refuses.
        lines = [f"error: {shorten_part(self.message)}"]
        if self.context:
            lines.append(f"  context: {shorten_part(self.context)}")
        if self.hint:
            lines.append(f"  hint: {shorten_part(self.hint)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class VocabularyError(TrainoptError, ValueError):
    """An observation name is unknown or its value is not allowed."""

    def __init__(self, field: str, message: str, *, allowed: str = "", hint: str = "") -> None:
        super().__init__(
            message,
            context=f"field {field!r}" + (f"; allowed: {allowed}" if allowed else ""),
            hint=hint or "run `trainopt facts` to list every observation and its allowed values",
        )
        self.field = field
        self.allowed = allowed


class ContradictionError(TrainoptError, ValueError):
    """Two observations in one update cannot both hold."""


class InputError(TrainoptError, ValueError):
    """Malformed input (JSON, file, question id, answer)."""


class ProbeError(TrainoptError, ValueError):
    """A probe cannot examine what it was given (no parameters, empty loader, meta tensors...)."""


class ScriptExitError(TrainoptError):
    """The user's script called ``sys.exit`` (or ``exit()``) while trainopt ran it: nothing was examined."""

    exit_code = EXIT_SCRIPT_EXITED


class InterruptedByUser(TrainoptError):
    """A KeyboardInterrupt inside the user's code (Ctrl-C, or one the script raised itself)."""

    exit_code = EXIT_INTERRUPTED


class KnowledgeError(TrainoptError):
    """The knowledge base itself is inconsistent (a defect, found at build time or by the tests)."""

    exit_code = EXIT_INTERNAL
