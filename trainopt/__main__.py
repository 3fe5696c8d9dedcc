"""``python -m trainopt``: the ``trainopt`` command line, reached clash-safe (see ``trainopt._boot``)."""

from __future__ import annotations

from trainopt._boot import internal


def main() -> None:
    """Run the command line as this process's program (it exits at the end)."""
    internal("expert.cli").entry()


if __name__ == "__main__":
    main()
