"""Opening what a user names without being stalled or flooded: regular files only, read with a size limit.

Kept free of numpy and the engine so the command line can use it at start-up cost.
"""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

from knowledge.errors import InputError


def _kind_of_mode(mode: int) -> str:
    for test, word in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return word
    return "not a regular file"


def open_regular(path: Path | str) -> io.FileIO:
    """Open a file for reading only if it is a regular file; FIFOs, devices and sockets are refused.

    The file is opened without blocking (a FIFO with no writer would block forever) and checked on the
    open descriptor, so it cannot be swapped for something else between the check and the read.

    Raises:
        InputError: Missing (or a dangling link), unreadable, or not a regular file.
    """
    path = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        dangling = path.is_symlink()
        raise InputError(f"cannot read {path}: " + ("a link to a file that does not exist" if dangling
                                                    else "no such file"),
                         hint="check the path") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise InputError(f"{path} is {_kind_of_mode(st.st_mode)}, not a regular file",
                         hint="trainopt reads regular files only (a pipe or device could block or never end)")
    if flags & getattr(os, "O_NONBLOCK", 0):
        try:
            os.set_blocking(fd, True)
        except OSError:
            pass
    return io.FileIO(fd, "rb", closefd=True)


def read_bounded(path: Path | str, limit: int, what: str) -> bytes:
    """Read a whole regular file of at most ``limit`` bytes (a FIFO, a device or a larger file is refused).

    Raises:
        InputError: Naming the file and the limit.
    """
    with open_regular(path) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{path} is over {limit >> 20} MiB", hint=f"give {what} of at most {limit >> 20} MiB")
    return data
