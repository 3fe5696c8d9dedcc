"""``echo``: click's ``click.echo``, without importing click where it would only write the text and flush.

Why: importing click costs about a tenth of a pipeline call (``trainopt diagnose obs.json``), and those calls
use it for nothing else (``expert.pipeline``). Where click's echo does more than write and flush, it is called:

* click is already imported (the command line parsed the arguments with it): ``click.echo`` itself, always;
* the text holds an escape character (click strips styles from text not going to a terminal);
* the stream is not a plain text stream with an encoding (click wraps it, or one that claims ASCII, in its own);
* Windows (click writes to its console through its own writer).
"""

from __future__ import annotations

import codecs
import os
import sys
from typing import Any


def _plain(stream: Any) -> bool:
    """Whether ``click.echo`` would write to ``stream`` as it is (not wrapped in a stream of its own)."""
    encoding, errors = getattr(stream, "encoding", None), getattr(stream, "errors", None)
    if not isinstance(encoding, str) or errors is None:
        return False
    try:
        return codecs.lookup(encoding).name != "ascii"  # click takes an ASCII stream for misconfigured
    except LookupError:
        return False


def echo(message: str, nl: bool = True, err: bool = False) -> None:
    """Write ``message`` (and a newline) to stdout or stderr and flush, as ``click.echo(message, nl=, err=)`` does.

    Args:
        message: The text.
        nl: Whether a newline follows it.
        err: Write to stderr rather than stdout.
    """
    click = sys.modules.get("click")
    stream = sys.stderr if err else sys.stdout
    if click is None and stream is not None and os.name != "nt" and "\x1b" not in message and _plain(stream):
        out = message + "\n" if nl else message
        if out:
            stream.write(out)
        stream.flush()
        return
    import click

    click.echo(message, nl=nl, err=err)


__all__ = ["echo"]
