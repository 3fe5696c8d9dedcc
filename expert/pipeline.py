"""The pipeline calls (``consult``, ``diagnose FILE``, ``logs PATH``) and what every command shares, without click.

Why: a pipeline runs ``trainopt diagnose obs.json`` once per training run, and importing click (to parse two
words) cost about a tenth of such a process. The commands' bodies live here, free of click; ``expert.cli``
wraps each in its click command (options, help, completion), and the program (``trainopt.__main__``) runs a call
here directly when its arguments are the plain form (``plain``): the command and, for ``diagnose`` and ``logs``,
its one argument, with no option. Anything else (an option, ``--help``, another command, shell completion,
Windows' argument globbing) goes through click, as before.

A plain call behaves as through click: the same defaults (``tests/test_pipeline.py`` runs both ways and compares
output and exit code), the same messages and exit codes for errors (``failure``, which click's group uses too),
and its output written as ``click.echo`` writes it (``expert.stdio``).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from expert import startup
from expert.stdio import echo
from knowledge.errors import (
    EXIT_ACTION,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    InputError,
    TrainoptError,
    excerpt,
)

if TYPE_CHECKING:
    from expert.consultation import Consultation

MAX_JSON_INPUT = 64 << 20
"""The largest observations document read (a saved report with its trail is a few hundred kilobytes)."""

PROGRESS_FROM_BYTES = 32 << 20
"""Files at least this large show a progress line on stderr while they are read."""


def exit_code_for(c: Consultation) -> int:
    """Exit code of a finished run: 0 diagnosed/clean/out of scope without a warning-level finding, else 1."""
    d = c.diagnosis
    # (a lead concluded with a question still open is tentative: one answer is still wanted)
    if d.status in ("needs_answer", "insufficient") or d.question is not None or d.needs_action:
        return EXIT_ACTION
    return EXIT_OK


def failure(exc: BaseException, command: str | None) -> int | None:
    """Report an exception a command raised, as the command line does; its exit code (None: not handled here).

    A trainopt error prints its message; Ctrl-C one line; a closed output pipe nothing; a missing optional
    dependency names its extra; anything else is an internal error with its traceback. ``SystemExit`` and
    whatever is not an ``Exception`` (but Ctrl-C) are left to the caller (None).

    Args:
        exc: The exception.
        command: The command that raised it (``consult``...), named in the message of a missing extra.
    """
    if isinstance(exc, TrainoptError):
        echo(exc.render(), err=True)
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        # Ctrl-C anywhere in a command (the engine, a report, a probe): one line and 130, never a traceback.
        echo("\ninterrupted.", err=True)
        return EXIT_INTERRUPTED
    if isinstance(exc, BrokenPipeError):
        # The reader went away (`trainopt rules | head`): stop quietly, and keep Python's exit-time
        # flush from raising again on the closed pipe.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK
    if not isinstance(exc, Exception):
        return None
    from expert.extras import missing_extra

    # An optional dependency (torch, matplotlib, ...) is missing: a usage error naming the extra.
    extra = missing_extra(exc, f"trainopt {command or ''}".strip())
    if extra is not None:
        echo(extra.render(), err=True)
        return extra.exit_code
    import traceback

    echo(f"internal error: {type(exc).__name__}: {exc}", err=True)
    echo("  hint: this is a bug in trainopt; please report it with the traceback below", err=True)
    echo(traceback.format_exc(), err=True)
    return EXIT_INTERNAL


def read_json(path: str) -> Any:
    """Read one JSON object from a file or ``-`` (stdin).

    Raises:
        InputError: Unreadable file, malformed JSON, or a JSON value that is not an object.
    """
    from expert.consultation import _json_type, parse_json

    if path == "-":
        # Bounded: a stream with no end (`trainopt diagnose - < /dev/zero`) is refused, never held whole.
        data = sys.stdin.buffer.read(MAX_JSON_INPUT + 1) if hasattr(sys.stdin, "buffer") else \
            sys.stdin.read(MAX_JSON_INPUT + 1)
        if len(data) > MAX_JSON_INPUT:
            raise InputError(f"stdin holds over {MAX_JSON_INPUT >> 20} MiB",
                             hint="observations are a small JSON object")
        where = "stdin"
    else:
        from expert.safeio import read_bounded

        try:
            data = read_bounded(path, MAX_JSON_INPUT, "a JSON object of observations")
        except OSError as exc:
            raise InputError(f"cannot read {excerpt(path)}: {exc.strerror}",
                             hint="give a JSON file or - for stdin") from None
        where = path
    value = parse_json(data, where)
    # Checked here, not left to from_json: a JSON string such as "symptom" is valid JSON but no object, and
    # from_json would take it for JSON text to parse again.
    if not isinstance(value, dict):
        raise InputError(f"expected a JSON object of observations in {where}, got {_json_type(value)}",
                         hint='e.g. {"symptom": "unstable", "loss_behavior": "nan_or_inf"}')
    return value


def emit_report(c: Consultation, fmt: str, verbose: bool = False) -> None:
    """Print the consultation's report on stdout."""
    from expert.report import print_report

    print_report(c.outcome(), fmt, verbose=verbose)


# ---------------------------------------------------------------------------------------------------
# the commands' bodies (``expert.cli`` holds their options and help)
# ---------------------------------------------------------------------------------------------------


def consult(fmt: str = "text", verbose: bool = False) -> NoReturn:
    """``trainopt consult``: a complaint, then one question at a time, then the report; exits."""
    from expert.consultation import Consultation
    from expert.repl import Leave
    from expert.repl import consult as run_consult

    # With JSON on stdout, the conversation moves to stderr so stdout stays machine-readable.
    err = fmt == "json"

    def write(s: str) -> None:
        echo(s, nl=False, err=err)

    write.stdout = not err  # type: ignore[attr-defined]  # read_line lets readline draw the prompt there

    c = Consultation()
    try:
        run_consult(c, write)
    except Leave as stop:
        write(f"\n{stop.reason}: leaving the consultation; the report below is what is known so far.\n")
        # A stop is not a dead end: the report leads with the best of what is known, marked tentative.
        c.conclude(stop.reason)
    except KeyboardInterrupt:
        # Leave at once (exit 130), but keep what was answered: it is one `trainopt diagnose -` away.
        echo("\ninterrupted.", err=True)
        if c.observations:
            import json

            saved = {n: o.value for n, o in sorted(c.observations.items())}
            echo("  what you had told trainopt (resume with `trainopt diagnose -`):\n  " + json.dumps(saved),
                 err=True)
        sys.exit(EXIT_INTERRUPTED)
    write("\n")
    emit_report(c, fmt, verbose)
    sys.exit(exit_code_for(c))


def diagnose(source: str, fmt: str = "text", verbose: bool = False) -> NoReturn:
    """``trainopt diagnose FILE|-``: the report on a JSON object of observations; exits."""
    from expert.consultation import Consultation

    c = Consultation.from_json(read_json(source))
    d = c.run()
    echo(f"trainopt: {len(c.observations)} observation(s) from {'stdin' if source == '-' else source}; "
         f"status: {d.status}", err=True)
    emit_report(c, fmt, verbose)
    sys.exit(exit_code_for(c))


def role_mapping(pairs: tuple[str, ...]) -> dict[str, str]:
    """``--map ROLE=COLUMN`` options as a mapping.

    Raises:
        InputError: A pair without ``=`` or with an empty side.
    """
    out = {}
    for p in pairs:
        role, sep, col = p.partition("=")
        if not sep or not role.strip() or not col.strip():
            raise InputError(f"bad --map {excerpt(p)}", hint="use --map ROLE=COLUMN, e.g. --map loss=train/loss")
        out[role.strip()] = col.strip()
    return out


def logs(path: str, plot_to: str | None = None, mapping: tuple[str, ...] = (), fmt: str = "text",
         follow_links: bool = False) -> NoReturn:
    """``trainopt logs PATH``: the report on a finished run's logs; exits.

    Args:
        path: A log file or a run folder.
        plot_to: Where to draw the curves, if anywhere.
        mapping: ``ROLE=COLUMN`` pairs.
        fmt: Report format.
        follow_links: Read links that lead out of a run folder.
    """
    from expert.consultation import Consultation

    if "numpy" not in sys.modules:
        # numpy's BLAS starts a thread per core as it loads (~15 ms of CPU on two cores, more on larger machines);
        # reading a log does no linear algebra a thread pool would speed up. The user's own setting stands.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    name = os.path.basename(os.path.normpath(path)) or path
    if not name.isprintable() or len(name) > 60:
        name = excerpt(name, 60)
    shown = [False]

    def progress(done: int, total: int) -> None:
        # Files and folders alike: the readers report bytes over the whole log; small logs stay quiet.
        if total < PROGRESS_FROM_BYTES:  # (read at each call: both ways in share the one constant)
            return
        shown[0] = True
        echo(f"\rtrainopt: reading {name}: {100 * done // max(total, 1):3d}%", err=True, nl=done >= total)

    c = Consultation()
    if os.path.isdir(path):
        from expert.ranklogs import read_rank_logs

        ranked = read_rank_logs(path)
        if ranked is not None:  # one log per rank of a distributed run: the ranks compared (issue 20)
            obs, lines = ranked
            c.add(obs)
            d = c.run()
            echo(f"trainopt: {len(lines)} per-rank logs in {path}; status: {d.status}", err=True)
            for line in lines:
                echo(f"  {line}", err=True)
            emit_report(c, fmt)
            sys.exit(exit_code_for(c))
    run = c.add_log(path, mapping=role_mapping(mapping), progress=progress, follow_links=follow_links)
    d = c.run()
    roles = ", ".join(f"{r}={col}" for r, col in sorted(run.roles.items()))
    echo(f"trainopt: {run.kind} log {run.path}: {run.rows} rows; columns used: {roles}; "
         f"{len(c.observations)} observation(s); status: {d.status}", err=True)
    for note in run.notes:
        echo(f"  note: {note}", err=True)
    for note in run.damage:
        echo(f"  note: {note} (the evidence is incomplete)", err=True)
    if plot_to:
        from expert.plot import plot_run

        # The title says what the report says: its status, the symptom it settled on, and a gap in the evidence.
        verdict = d.status + (f": {d.symptom['label']}" if d.symptom else "") \
            + ("; evidence incomplete" if d.incomplete else "")
        echo(f"trainopt: plot written to {plot_run(run, plot_to, status=verdict)}", err=True)
    emit_report(c, fmt)
    sys.exit(exit_code_for(c))


# ---------------------------------------------------------------------------------------------------
# plain calls: the program runs them without click
# ---------------------------------------------------------------------------------------------------

COMPLETE_VAR = "_TRAINOPT_COMPLETE"
"""The variable click's shell completion sets for the ``trainopt`` program (its requests go to click)."""


def _operand(arg: str) -> bool:
    """Whether click would take ``arg`` as the command's one argument, as it is (no option, no globbing)."""
    return arg == "-" or (bool(arg) and not arg.startswith("-"))


def plain(argv: list[str]) -> tuple[str, str | None] | None:
    """``(command, argument)`` when ``argv`` is a plain pipeline call, else None (click parses it).

    Plain: ``consult``; ``diagnose FILE`` or ``diagnose -``; ``logs PATH`` where click's check of PATH (a path
    that exists must be readable) passes. Not on Windows (click expands wildcards in arguments there), nor
    under shell completion.
    """
    if os.name == "nt" or COMPLETE_VAR in os.environ:
        return None
    if argv == ["consult"]:
        return ("consult", None)
    if len(argv) != 2 or not _operand(argv[1]):
        return None
    command, arg = argv
    if command == "diagnose":
        return (command, arg)
    if command == "logs" and arg != "-" and (not os.path.exists(arg) or os.access(arg, os.R_OK)):
        return (command, arg)
    return None


def _run(call: tuple[str, str | None]) -> NoReturn:
    """Run a plain call as click's group runs a command: its errors reported, its exit code kept."""
    command, arg = call
    try:
        if command == "consult":
            consult()
        elif command == "diagnose":
            diagnose(arg)  # type: ignore[arg-type]
        else:
            logs(arg)  # type: ignore[arg-type]
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported as the command line reports it (``failure``)
        code = failure(exc, command)
        if code is None:
            raise
        sys.exit(code)
    sys.exit(EXIT_OK)  # pragma: no cover - every body exits


def main(argv: list[str] | None = None) -> None:
    """Run a plain call (``plain``; ``sys.argv[1:]`` by default) as ``expert.cli.main`` would: ends in SystemExit.

    Raises:
        ValueError: ``argv`` is not a plain call.
    """
    call = plain(sys.argv[1:] if argv is None else argv)
    if call is None:
        raise ValueError("not a plain pipeline call: run it through expert.cli")
    startup.hold()
    try:
        _run(call)
    except KeyboardInterrupt:  # after the command's own handling (while the report is written, say)
        sys.stderr.write("\ninterrupted.\n")
        sys.exit(EXIT_INTERRUPTED)
    finally:
        startup.finish()  # the process exits next


def entry() -> None:
    """The program's entry point for a plain call: ``main``, then the quick exit ``expert.cli.entry`` takes."""
    try:
        main()
    except SystemExit as stop:
        startup.leave(stop.code)
    startup.leave(0)


__all__ = ["MAX_JSON_INPUT", "PROGRESS_FROM_BYTES", "consult", "diagnose", "emit_report", "entry", "exit_code_for",
           "failure", "logs", "main", "plain", "read_json", "role_mapping"]
