"""``python -m trainopt`` and the ``trainopt`` script: the command line, reached clash-safe (see ``trainopt._boot``)."""

from __future__ import annotations

import sys
from types import ModuleType

from trainopt._boot import internal


def _command_line() -> ModuleType:
    """What runs the arguments: ``expert.pipeline`` for a plain pipeline call, else ``expert.cli`` (click).

    A plain call (``trainopt diagnose obs.json``, ``trainopt consult``, ``trainopt logs PATH``: no option) needs
    no argument parser, and importing click cost about a tenth of it; both modules run a call alike (their
    ``main`` and ``entry``). Imported with the start-up's collector pause already on (``expert.startup.hold``):
    the command line's own imports (click, the knowledge's schema) make only long-lived objects, as the rest of
    the start-up does, and collections while they load would only walk them (about a twentieth of a pipeline
    call). ``main`` holds the pause too; here it begins before those modules load. So does the data classes' stored
    code (``expert.classcode``): it serves the classes those modules define.
    """
    startup = internal("expert.startup")
    startup.hold()
    internal("expert.classcode").install()
    try:
        pipeline = internal("expert.pipeline")
        if pipeline.plain(sys.argv[1:]) is not None:
            return pipeline
        return internal("expert.cli")
    except BaseException:
        startup.settle()  # no command will run: collect as usual again
        raise


def main() -> None:
    """Run the command line; as the process's own program (``python -m trainopt``) it ends the process at once.

    Run in a process of another program (``runpy.run_module("trainopt", run_name="__main__")``), it ends in
    ``SystemExit`` as click does, and that program goes on (``expert.cli.entry`` and ``main``).
    """
    cli = _command_line()
    (cli.entry if internal("expert.startup").is_program(globals()) else cli.main)()


def entry() -> None:
    """The ``trainopt`` console script: the process's own program, as ``expert.cli.entry`` is (a quick exit)."""
    _command_line().entry()


if __name__ == "__main__":
    main()
