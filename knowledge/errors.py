"""Errors that carry their own exit code and say what to do next."""

from __future__ import annotations

EXIT_OK = 0
EXIT_ACTION = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


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
        lines = [f"error: {self.message}"]
        if self.context:
            lines.append(f"  context: {self.context}")
        if self.hint:
            lines.append(f"  hint: {self.hint}")
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


class KnowledgeError(TrainoptError):
    """The knowledge base itself is inconsistent (a defect, found at build time or by the tests)."""

    exit_code = EXIT_INTERNAL
