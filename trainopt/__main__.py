"""``python -m trainopt``: the ``trainopt`` command line, reached clash-safe (see ``trainopt._boot``)."""

from __future__ import annotations

from trainopt._boot import internal


def main() -> None:
    """Run the command line; as the process's own program (``python -m trainopt``) it ends the process at once.

    Run in a process of another program (``runpy.run_module("trainopt", run_name="__main__")``), it ends in
    ``SystemExit`` as click does, and that program goes on (``expert.cli.entry`` and ``main``).
    """
    cli = internal("expert.cli")
    (cli.entry if internal("expert.startup").is_program(globals()) else cli.main)()


if __name__ == "__main__":
    main()
