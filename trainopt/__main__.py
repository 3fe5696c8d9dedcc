"""``python -m trainopt``: the ``trainopt`` command line, reached clash-safe (see ``trainopt._boot``)."""

from __future__ import annotations

import sys

from trainopt._boot import internal


def main() -> None:
    """Run the command line; as the process's own program (``python -m trainopt``) it ends the process at once.

    Run in a process of another program (``runpy.run_module("trainopt", run_name="__main__")``), it ends in
    ``SystemExit`` as click does, and that program goes on (``expert.cli.entry`` and ``main``).
    """
    cli = internal("expert.cli")
    program = getattr(sys.modules.get("__main__"), "__dict__", None) is globals()
    (cli.entry if program else cli.main)()


if __name__ == "__main__":
    main()
