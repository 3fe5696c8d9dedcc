"""Wording shared by the report and explain: numbers, values, facts and sources as a person reads them."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

NONFINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
"""How the JSON report writes a non-finite number: as a string (JSON has no NaN), the spelling JavaScript and
Python's ``float()`` both read back. The report's schema documents it."""


def clean_text(text: str) -> str:
    """Text any encoder accepts: lone surrogates (from a JSON escape such as ud800) become escapes."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def plain(value: Any) -> Any:
    """Turn frozendicts, tuples, sets and other non-JSON values into plain JSON types, recursively.

    Non-finite floats become the strings of ``NONFINITE`` and text with lone surrogates is escaped, so the
    result always serialises as valid JSON and prints on any terminal.
    """
    if isinstance(value, Mapping):
        return {clean_text(str(k)): plain(v) for k, v in value.items() if not str(k).startswith("__")}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return NONFINITE[repr(value)]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if hasattr(value, "item"):  # numpy / torch scalars in probe evidence
        try:
            return plain(value.item())
        except Exception:  # noqa: BLE001 - fall back to the text form
            pass
    return str(value)


def fact_short(f: Mapping[str, Any]) -> str:
    """A fact of the audit trail in a few words (``lr=0.1 (answer:Q-LR)``, ``route gradient-management``)."""
    kind = f.get("kind", "?")
    if kind == "Obs":
        v = f["value"]
        shown = fmt_number(v) if isinstance(v, float) else repr(v)
        return f"{f['name']}={shown} ({f.get('source', '')})"
    if kind == "Route":
        return f"route {f['skill']} ({f['role']})"
    if kind == "Finding":
        return f"finding {f['id']} ({f['severity']})"
    if kind == "Question":
        return f"question {f['id']}"
    if kind == "Boundary":
        return f"boundary {f['pack']}"
    if kind == "Block":
        return f"guard against {f['skill']} ({f.get('role', 'any')})"
    if kind == "Flag":
        return f"flag {f['name']}"
    if kind == "Declined":
        return f"declined {f['question']}"
    if kind == "Context":
        return f"origin {f.get('origin')}"
    if kind == "Closed":
        return f"asking stopped ({f.get('reason')})"
    return kind


def source_words(source: str) -> str:
    """Where an observation came from, in words (``your answer to Q-LR``, ``probe grad_flow``)."""
    kind, _, rest = source.partition(":")
    if kind == "answer":
        return f"your answer to {rest}"
    if kind == "text":
        return f'your complaint ("{rest}")'
    if kind == "probe":
        return f"probe {rest}"
    if kind == "derived":
        return f"rule {rest}, which derived it"
    if kind == "declared":
        return "declared input"
    return source


def fmt_number(value: Any, unit: str = "") -> str:
    """A number as a person writes it: three significant digits, thousands separators, its unit."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        text = f"{value:,}" if abs(value) >= 10_000 else str(value)
    elif value != value or value in (float("inf"), float("-inf")):
        text = str(value)
    elif value == 0:
        text = "0"
    elif 1_000 <= abs(value) < 1e6:
        text = f"{value:,.0f}"
    else:
        text = f"{value:.3g}"
    if not unit:
        return text
    return f"{text}{unit}" if unit == "%" else f"{text} {unit}"


def fmt_value(name: str, value: Any) -> str:
    """An observation's value for a report: numbers with precision and unit, flags as yes/no, text as is."""
    from knowledge.vocabulary import VOCABULARY

    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        s = VOCABULARY.get(name)
        return fmt_number(value, s.unit if s else "")
    return str(value)


def short_text(text: str, limit: int = 90) -> str:
    """``text`` on one line, cut at ``limit`` characters with an ellipsis."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
