"""Reading training logs: streaming readers for CSV, JSONL, Hugging Face, TensorBoard, and their downsampled series.

The readers turn a file into ``Series`` (bounded memory whatever the length of the log); what the series mean
(roles, observations, verdicts) is ``expert.logs``'s business.
"""

from __future__ import annotations

import csv
import fnmatch
import io
import json
import math
import os
import re
import stat
import struct
from collections.abc import Callable, Iterator
from itertools import repeat
from pathlib import Path
from typing import Any

from expert import rx
from expert.safeio import _kind_of_mode, open_regular
from knowledge.errors import InputError, excerpt
from knowledge.record import dataclass

STEP_NAMES = ("step", "global_step", "_step", "steps", "iteration", "iter", "trainer/global_step")

CHUNK = 65536
"""Rows converted to numpy at a time."""

SMALL = 3000
"""Blocks of at most this many rows are converted in plain Python, larger ones by numpy (same numbers).

A small log then never imports numpy: its import costs about twice a bare interpreter start, more than reading
and analysing a few thousand rows in plain Python. Measured on the 2-core reference machine (CPU of a whole
``trainopt logs`` process, medians of 5, a 4-column CSV): plain Python against numpy 163 vs 195 ms at 600
rows, 184 vs 197 ms at 2,000, 210 vs 203 ms at 4,096, 264 vs 216 ms at 8,192: the two cross near 3,000 rows.
A larger block loads numpy, and the analysis then uses its vectorized kernels too.
"""

Progress = Callable[[int, int], None]
"""``progress(done, total)`` in bytes, called now and then while a large file is read."""


def _norm(tag: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", tag.lower()).strip("_")


# --------------------------------------------------------------------------------------- downsampling


class Series:
    """One scalar series, downsampled as it streams: bucket means, minima, maxima and first steps.

    Up to ``2 * capacity`` points every point is its own bucket, so the points are kept as they came, in plain
    lists (a small log never imports numpy); past that the series moves to numpy buckets and merges them in
    pairs. Both hold the same numbers: a one-point bucket's mean, minimum and maximum are the point.

    Args:
        tag: The column or tag name in the log.
        capacity: Buckets kept after a merge; memory is O(capacity) whatever the length of the log.
    """

    def __init__(self, tag: str, capacity: int = 4096) -> None:
        self.tag = tag
        self.capacity = capacity
        self.width = 1
        self.points = 0
        self.nonfinite = 0
        self.first_nonfinite_step: float | None = None
        self.last_finite: float | None = None
        self._raw: tuple[list[float], list[float]] | None = ([], [])  # (steps, values) while every point is a bucket
        self._pend_s: Any = None
        self._pend_v: Any = None
        self._b: list[Any] = []  # rows: first step, sum, finite count, min, max, last step

    def extend(self, steps: Any, values: Any) -> None:
        """Add points in step order (NaN/Inf values are counted and located, never averaged)."""
        if not len(values):
            return
        if self._raw is not None and len(self._raw[1]) + len(values) <= 2 * self.capacity:
            st = steps.tolist() if hasattr(steps, "tolist") else [float(x) for x in steps]
            vals = values.tolist() if hasattr(values, "tolist") else [float(x) for x in values]
            self.points += len(vals)
            bad = [i for i, x in enumerate(vals) if not math.isfinite(x)]
            if bad:
                self.nonfinite += len(bad)
                if self.first_nonfinite_step is None:
                    self.first_nonfinite_step = float(st[bad[0]])
            if len(bad) < len(vals):
                self.last_finite = next(float(x) for x in reversed(vals) if math.isfinite(x))
            self._raw[0].extend(float(x) for x in st)
            self._raw[1].extend(float(x) for x in vals)
            return
        import numpy as np  # a long series: numpy buckets

        if self._raw is not None:  # the points so far become the pending points, as if they had streamed in
            self._pend_s, self._pend_v = np.asarray(self._raw[0]), np.asarray(self._raw[1])
            self._raw = None
        steps, values = np.asarray(steps), np.asarray(values)
        self.points += int(values.size)
        bad = ~np.isfinite(values)
        if bad.any():
            self.nonfinite += int(bad.sum())
            if self.first_nonfinite_step is None:
                self.first_nonfinite_step = float(steps[int(np.argmax(bad))])
        fin = values[~bad]
        if fin.size:
            self.last_finite = float(fin[-1])
        self._pend_s = np.concatenate([self._pend_s, steps.astype(np.float64)])
        self._pend_v = np.concatenate([self._pend_v, values.astype(np.float64)])
        self._drain(final=False)

    def _drain(self, final: bool) -> None:
        if self._raw is not None:
            return
        import numpy as np

        w = self.width
        n = (self._pend_v.size // w) * w
        if final and self._pend_v.size > n:
            n = self._pend_v.size  # the tail becomes one short bucket
        if n:
            s, v = self._pend_s[:n], self._pend_v[:n]
            self._pend_s, self._pend_v = self._pend_s[n:], self._pend_v[n:]
            full = (v.size // w) * w
            parts = [(s[:full].reshape(-1, w), v[:full].reshape(-1, w))] if full else []
            if full < v.size:
                tail_v = np.full(w, np.nan)
                tail_v[: v.size - full] = v[full:]
                tail_s = np.full(w, s[-1])
                tail_s[: v.size - full] = s[full:]
                parts.append((tail_s.reshape(1, w), tail_v.reshape(1, w)))
            for ss, vv in parts:
                ok = np.isfinite(vv)
                cnt = ok.sum(axis=1)
                z = np.where(ok, vv, 0.0)
                mn = np.where(ok, vv, np.inf).min(axis=1)
                mx = np.where(ok, vv, -np.inf).max(axis=1)
                self._b.append(np.stack([ss[:, 0], z.sum(axis=1), cnt, mn, mx, ss[:, -1]], axis=1))
        if sum(len(b) for b in self._b) > 2 * self.capacity:
            self._merge()

    def _merge(self) -> None:
        import numpy as np

        b = np.concatenate(self._b)
        while len(b) > 2 * self.capacity:
            even = (len(b) // 2) * 2
            p = b[:even].reshape(-1, 2, 6)
            merged = np.stack([p[:, 0, 0], p[:, :, 1].sum(1), p[:, :, 2].sum(1), p[:, :, 3].min(1),
                               p[:, :, 4].max(1), p[:, 1, 5]], axis=1)
            b = np.concatenate([merged, b[even:]])
            self.width *= 2
        self._b = [b]

    def finish(self) -> Series:
        """Flush the points still pending; call once after the last ``extend``."""
        self._drain(final=True)
        return self

    @property
    def buckets(self) -> Any:
        """Array of rows (first step, sum, finite count, min, max, last step)."""
        import numpy as np

        if self._raw is not None:
            s, v = self._raw
            return np.array([(a, x, 1.0, x, x, a) if math.isfinite(x) else (a, 0.0, 0.0, math.inf, -math.inf, a)
                             for a, x in zip(s, v)], dtype=np.float64).reshape(-1, 6)
        return np.concatenate(self._b) if self._b else np.empty((0, 6))

    def curve(self) -> tuple[Any, Any, Any, Any]:
        """Steps, means, minima and maxima of the buckets that hold a finite value (lists while not downsampled)."""
        if self._raw is not None:
            kept = [(a, x) for a, x in zip(*self._raw) if math.isfinite(x)]
            m = [x for _, x in kept]
            return [a for a, _ in kept], m, list(m), list(m)
        b = self.buckets
        b = b[b[:, 2] > 0]
        return b[:, 0], b[:, 1] / b[:, 2], b[:, 3], b[:, 4]

    @property
    def downsampled(self) -> bool:
        """True when buckets hold more than one point."""
        return self.width > 1

    def summary(self) -> dict[str, Any]:
        """JSON-ready facts about the series."""
        _, m, _, _ = self.curve()
        return {"tag": self.tag, "points": self.points, "buckets": len(m), "bucket_width": self.width,
                "nonfinite": self.nonfinite, "first_nonfinite_step": _int(self.first_nonfinite_step),
                "last": self.last_finite}


def _int(x: float | None) -> int | None:
    return None if x is None else int(x)


# --------------------------------------------------------------------------------------- limits and damage

MAX_LINE = 1 << 20
"""Longest CSV/JSONL line read (bytes); a longer one is skipped as damage, never held whole."""
BLOCK = 1 << 20
"""Bytes read, decoded and parsed at a time: with MAX_LINE, what bounds the memory a text log takes."""
MAX_RECORD = 64 << 20
"""Largest TensorBoard record parsed; a longer one (an image, a mesh) is seeked past, never loaded."""
RESYNC_BYTES = 16 << 20
"""How far past a damaged TensorBoard record header the reader looks for the next intact one."""
MAX_COLUMNS = 1024
"""Distinct numeric columns or tags kept; later ones are listed as skipped."""
MAX_TAG_CHARS = 256
"""Longest column name or tag kept."""
MAX_FOLDER_ENTRIES = 200_000
"""Folder entries looked at while searching a run folder for its log."""

LOG_PATTERNS = ("metrics.csv", "trainer_state.json", "events.out.tfevents*", "*.jsonl", "*.csv")
"""What a run folder is searched for, best first."""


class Damage:
    """What a reader skipped, by kind: how many, and where the first one was.

    Args:
        name: The file's name, for the notes.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.kinds: dict[str, list[Any]] = {}  # why -> [count, first place]

    def skip(self, why: str, where: str, n: int = 1) -> None:
        """Count ``n`` skipped items of one kind; keep where the first was."""
        k = self.kinds.get(why)
        if k is None:
            self.kinds[why] = [n, where]
        else:
            k[0] += n

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def notes(self) -> list[str]:
        """One line per kind: what was skipped, how much, where the first was."""
        return [f"{self.name}: skipped {n} {why} (first at {where})" for why, (n, where) in self.kinds.items()]


def _big_int(text: str) -> float:
    """JSON integers as floats: no digit limit, and a value past the float range becomes +-inf."""
    return float(text)


def _loads(text: str | bytes) -> Any:
    # parse_int=float: a log's numbers all end as float64, and int() refuses over 4,300 digits.
    return json.loads(text, parse_int=_big_int)


# --------------------------------------------------------------------------------------- files and folders


def _inside(target: Path, root: Path) -> bool:
    try:
        target.relative_to(root)
    except ValueError:
        return False
    return True


def scan(root: Path, patterns: tuple[str, ...], *, follow_links: bool, notes: list[str] | None,
         depth: int = 32) -> list[tuple[Path, float]]:
    """Files under ``root`` matching any pattern, with their mtimes; what is skipped is said in ``notes``.

    Links are followed only while they stay inside ``root`` (unless ``follow_links``); dangling links,
    FIFOs, devices and sockets are skipped; linked folders are entered once (no cycles); the walk stops
    after MAX_FOLDER_ENTRIES entries.
    """
    real_root = root.resolve()
    found: list[tuple[Path, float]] = []
    skipped: dict[str, list[str]] = {}
    seen_dirs: set[tuple[int, int]] = set()
    entries = 0
    stack: list[tuple[Path, int]] = [(root, 0)]
    while stack:
        d, level = stack.pop()
        try:
            st = d.stat()
            key = (st.st_dev, st.st_ino)
            if key in seen_dirs:
                continue
            seen_dirs.add(key)
            it = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError as exc:
            skipped.setdefault("unreadable folders", []).append(f"{d} ({exc.strerror})")
            continue
        for e in it:
            entries += 1
            if entries > MAX_FOLDER_ENTRIES:
                skipped.setdefault("entries past the first 200,000 (folder search stopped)", []).append(str(d))
                stack.clear()
                break
            p = Path(e.path)
            try:
                is_link = e.is_symlink()
                if is_link:
                    target = p.resolve()
                    if not target.exists():
                        if any(fnmatch.fnmatch(e.name, pat) for pat in patterns):
                            skipped.setdefault("dangling links", []).append(e.name)
                        continue
                    if not follow_links and not _inside(target, real_root):
                        skipped.setdefault("links that lead out of the folder (--follow-links reads them)",
                                           []).append(e.name)
                        continue
                st = os.stat(p)
            except (OSError, RuntimeError) as exc:  # RuntimeError: a link loop on older Pythons
                skipped.setdefault("unreadable entries", []).append(f"{e.name} ({getattr(exc, 'strerror', exc)})")
                continue
            if stat.S_ISDIR(st.st_mode):
                if level < depth:
                    stack.append((p, level + 1))
                continue
            if not any(fnmatch.fnmatch(e.name, pat) for pat in patterns):
                continue
            if not stat.S_ISREG(st.st_mode):
                skipped.setdefault("entries that are not regular files (FIFOs, devices, sockets)", []
                                   ).append(e.name)
                continue
            found.append((p, st.st_mtime))
    if notes is not None:
        for why, names in skipped.items():
            shown = ", ".join(excerpt(n, 40) for n in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3
                                                                    else "")
            notes.append(f"under {root}: skipped {len(names)} {why}: {shown}")
    return found


# --------------------------------------------------------------------------------------- cells and columns


def _float(c: Any) -> tuple[float, bool]:
    """One cell as a float and whether it is text, as numpy's conversion reads it (None and '' are NaN, not text)."""
    if c is None or c == "":
        return math.nan, False
    try:
        return float(c), False
    except OverflowError:  # an integer past the float range: a number, and not a finite one
        return (math.inf if c > 0 else -math.inf), False
    except (TypeError, ValueError):
        return math.nan, True


def _floats(cells: list[Any]) -> tuple[Any, Any]:
    """Cells of one column as float64 (NaN kept), and a mask of the cells that are not numbers (or None).

    Cells are str from CSV or numbers from JSON; None and '' mean "not logged on this row" and are not bad.
    """
    import numpy as np

    try:  # fast path: every cell a number or a numeric string (numpy parses those; None becomes NaN)
        return np.array(cells, dtype=np.float64), None
    except (TypeError, ValueError, OverflowError):
        pass
    got = [_float(c) for c in cells]
    return np.array([x for x, _ in got], dtype=np.float64), np.array([t for _, t in got], dtype=bool)


def _present(cells: list[Any]) -> Any:
    import numpy as np

    if "" not in cells and None not in cells:  # dense column: both scans run in C
        return np.ones(len(cells), dtype=bool)
    return np.fromiter((c is not None and c != "" for c in cells), dtype=bool, count=len(cells))


class _Columns:
    """Turns blocks of rows (as columns) into series, counting cells that are not numbers per column.

    Args:
        sink: ``sink(tag, steps, values)`` receives each column's numeric cells, in order.
        damage: Where skipped cells are counted.
        line_of: Turns a row index into a place for the notes (``line 17``, ``record 4``).
    """

    def __init__(self, sink: Callable[[str, Any, Any], None], damage: Damage,
                 line_of: Callable[[int], str]) -> None:
        self.sink, self.damage, self.line_of = sink, damage, line_of
        self.numeric: dict[str, int] = {}  # column -> numeric cells seen
        self.text: dict[str, tuple[int, str]] = {}  # column -> (non-numeric cells, first place)

    def add(self, cols: dict[str, list[Any]], step_col: str | None, rows: list[int] | range) -> None:
        """One block: ``cols`` maps a column to its cells; ``rows`` holds each row's index (for places)."""
        n = len(rows)
        if n <= SMALL:
            self._add_plain(cols, step_col, rows)
            return
        import numpy as np

        idx = (np.arange(rows.start, rows.stop, dtype=np.float64) if isinstance(rows, range)
               else np.asarray(rows, dtype=np.float64))
        steps = idx
        if step_col is not None and step_col in cols:
            st, bad = _floats(cols[step_col])
            if bad is not None:
                st[bad] = np.nan
            steps = np.where(np.isfinite(st), st, idx)  # a row without a step keeps its row number
        for c, cells in cols.items():
            if c == step_col or len(cells) != n:
                continue
            mask = _present(cells)
            if not mask.any():
                continue
            vals, bad = _floats(cells)
            if bad is not None and bad.any():
                first = int(np.argmax(bad))
                k, where = self.text.get(c, (0, f"{self.line_of(rows[first])}: {excerpt(cells[first], 24)}"))
                self.text[c] = (k + int(bad.sum()), where)
                mask &= ~bad
            if mask.any():
                self.numeric[c] = self.numeric.get(c, 0) + int(mask.sum())
                self.sink(c, steps[mask], vals[mask])

    def _add_plain(self, cols: dict[str, list[Any]], step_col: str | None, rows: list[int] | range) -> None:
        """``add`` for a small block, in plain Python: the same cells read the same way, without numpy."""
        n = len(rows)
        steps = [float(r) for r in rows]
        if step_col is not None and step_col in cols:
            for i, c in enumerate(cols[step_col]):
                x, text = _float(c)
                if not text and math.isfinite(x):  # a row without a step keeps its row number
                    steps[i] = x
        for c, cells in cols.items():
            if c == step_col or len(cells) != n:
                continue
            got = [_float(x) for x in cells]
            bad = [i for i, (_, text) in enumerate(got) if text]
            if bad:
                k, where = self.text.get(c, (0, f"{self.line_of(rows[bad[0]])}: {excerpt(cells[bad[0]], 24)}"))
                self.text[c] = (k + len(bad), where)
            keep = [i for i, x in enumerate(cells) if x is not None and x != "" and not got[i][1]]
            if keep:
                self.numeric[c] = self.numeric.get(c, 0) + len(keep)
                self.sink(c, [steps[i] for i in keep], [got[i][0] for i in keep])

    def finish(self, notes: list[str]) -> None:
        """Text columns are not series (a note); stray text in a numeric column is damage."""
        words = []
        for c, (k, where) in sorted(self.text.items()):
            if self.numeric.get(c):
                self.damage.skip(f"non-numeric cells in column {excerpt(c, 40)}", where, k)
            else:
                words.append(excerpt(c, 40))
        if words:
            notes.append("columns that hold text, not numbers (not read): " + ", ".join(words[:10])
                         + (f" and {len(words) - 10} more" if len(words) > 10 else ""))


def _find_step(columns: list[str]) -> str | None:
    norm = {_norm(c): c for c in columns}
    for s in STEP_NAMES:
        if _norm(s) in norm:
            return norm[_norm(s)]
    return None


# --------------------------------------------------------------------------------------- text logs


def _decode(raw: bytes, lineno: int, damage: Damage) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        damage.skip("lines that are not UTF-8 text", f"line {lineno}, byte {exc.start + 1}")
        return None


def _lines(fh: io.FileIO, damage: Damage, progress: Progress | None, total: int, *,
           keep_unterminated: bool = True) -> Iterator[tuple[int, list[str | None]]]:
    """Blocks of decoded lines, each with the number of its first line.

    A line that is not UTF-8 or is over MAX_LINE comes as None (and is counted in ``damage``), never held
    whole. A final line without a line end is kept when ``keep_unterminated`` (a JSON record shows its own
    truncation), else skipped as damage: a CSV row cut mid-number would read as a wrong value.
    """
    tail = b""
    lineno = 1
    skipping = False  # inside a line already over the limit: drop bytes up to its end
    done = 0
    every = max(BLOCK, total // 100)
    next_report = every
    while True:
        block = fh.read(BLOCK)
        if not block:
            break
        done += len(block)
        if progress is not None and done >= next_report:
            next_report = done + every
            progress(done, total)
        if skipping:
            i = block.find(b"\n")
            if i < 0:
                continue
            block = block[i + 1:]
            skipping = False
            yield lineno, [None]
            lineno += 1
        data = tail + block if tail else block
        cut = data.rfind(b"\n")
        if cut < 0:
            tail = data
        else:
            tail = data[cut + 1:]
            body = data[:cut]
            try:
                text = body.decode("utf-8")
                lines: list[str | None] = text.split("\n")  # type: ignore[assignment]
                if len(body) > MAX_LINE and max(map(len, lines)) > MAX_LINE // 4:  # chars: check in bytes
                    lines = [ln if ln is None or len(ln.encode("utf-8")) <= MAX_LINE else None for ln in lines]
                    for i, ln in enumerate(lines):
                        if ln is None:
                            damage.skip(f"lines over {MAX_LINE >> 20} MiB", f"line {lineno + i}")
            except UnicodeDecodeError:
                lines = []
                for i, raw in enumerate(body.split(b"\n")):
                    if len(raw) > MAX_LINE:
                        damage.skip(f"lines over {MAX_LINE >> 20} MiB", f"line {lineno + i}")
                        lines.append(None)
                    else:
                        lines.append(_decode(raw, lineno + i, damage))
            yield lineno, lines
            lineno += len(lines)
        if len(tail) > MAX_LINE:
            damage.skip(f"lines over {MAX_LINE >> 20} MiB", f"line {lineno}")
            tail = b""
            skipping = True
    if skipping:
        yield lineno, [None]
    elif tail and not keep_unterminated and tail.strip():
        damage.skip("last lines with no line end (a file cut short while it was written?)", f"line {lineno}")
        yield lineno, [None]
    elif tail:
        yield lineno, [_decode(tail, lineno, damage)]
    if progress is not None:
        progress(total, total)


def _size(fh: io.FileIO) -> int:
    return os.fstat(fh.fileno()).st_size


def _read_csv(path: Path, sink: Any, progress: Progress | None, damage: Damage, notes: list[str]
              ) -> tuple[list[str], int]:
    with open_regular(path) as fh:
        blocks = _lines(fh, damage, progress, _size(fh), keep_unterminated=False)
        head: str | None = None
        pending: list[str | None] = []
        start = 1
        for start, lines in blocks:
            for i, ln in enumerate(lines):
                if ln is None or ln.strip():
                    head, pending, start = ln, lines[i + 1:], start + i + 1
                    break
            if head is not None or any(ln is None for ln in lines):
                break
        if head is None:
            if damage:
                raise InputError(f"{path.name}: the header row cannot be read", context="; ".join(damage.notes()),
                                 hint="a CSV log starts with a header row (step,loss,...) of UTF-8 text")
            raise InputError(f"{path.name} is empty", hint="a CSV log starts with a header row (step,loss,...)")
        head = head.rstrip("\r")
        dialect = "excel-tab" if head.count("\t") > head.count(",") else "excel"
        try:
            columns = [c.strip() for c in next(csv.reader([head], dialect=dialect))]
        except (csv.Error, StopIteration) as exc:
            raise InputError(f"{path.name}: the header row (line {start - 1}) is not CSV: {exc}",
                             context=f"header: {excerpt(head)}") from None
        if len(set(columns)) != len(columns) or not all(columns):
            raise InputError(f"{path.name}: the header row has empty or repeated column names",
                             context=f"header: {excerpt(head, 200)}")
        if len(columns) > MAX_COLUMNS:
            raise InputError(f"{path.name}: the header row names {len(columns)} columns",
                             hint=f"trainopt reads logs of at most {MAX_COLUMNS} columns; cut the file to those "
                                  "you need")
        step = _find_step(columns)
        width = len(columns)
        conv = _Columns(sink, damage, lambda r: f"line {r}")
        rows_read = 0

        delim = "\t" if dialect == "excel-tab" else ","

        def parse(first: int, lines: list[str | None]) -> None:
            nonlocal rows_read
            if None not in lines:
                # Fast path (metric logs are plain numbers): no quoting and every line with the header's field
                # count, so the block splits into columns in C; anything else takes the csv module, row by row.
                joined = "\n".join(lines)  # type: ignore[arg-type]
                if '"' not in joined:
                    if "\r" in joined:
                        joined = joined.replace("\r", "")
                        lines = joined.split("\n")  # type: ignore[assignment]
                    counts = list(map(str.count, lines, repeat(delim)))  # type: ignore[arg-type]
                    if counts.count(width - 1) == len(lines) and (width > 1 or "" not in lines):
                        flat = joined.replace("\n", delim).split(delim) if width > 1 else list(lines)
                        rows_read += len(lines)
                        conv.add({c: flat[j::width] for j, c in enumerate(columns)}, step,
                                 range(first, first + len(lines)))
                        return
            rows: list[list[str]] = []
            where: list[int] = []
            good = [ln for ln in lines if ln is not None]
            try:
                # One C-level pass over the whole block when nothing is odd in it.
                parsed = list(csv.reader(good, dialect=dialect)) if len(good) == len(lines) else None
            except csv.Error:
                parsed = None
            if parsed is not None and len(parsed) == len(lines):
                pairs = zip(range(first, first + len(lines)), parsed)
            else:
                pairs = ((first + i, _row(ln, dialect, first + i, damage)) for i, ln in enumerate(lines))
            for n, row in pairs:
                if not row:
                    continue
                if len(row) != width:
                    if len(row) == 1 and not row[0].strip():
                        continue
                    damage.skip(f"rows whose field count differs from the header's {width}",
                                f"line {n} ({len(row)} fields)")
                    continue
                rows.append(row)
                where.append(n)
            if rows:
                rows_read += len(rows)
                conv.add(dict(zip(columns, map(list, zip(*rows)))), step, where)

        if pending:
            parse(start, pending)
        for first, lines in blocks:
            parse(first, lines)
        conv.finish(notes)
        return columns, rows_read


def _row(line: str | None, dialect: str, n: int, damage: Damage) -> list[str]:
    if line is None:
        return []
    try:
        return next(csv.reader([line], dialect=dialect), [])
    except csv.Error as exc:
        damage.skip("rows that are not CSV", f"line {n} ({exc})")
        return []


def _read_jsonl(path: Path, sink: Any, progress: Progress | None, damage: Damage, notes: list[str]
                ) -> tuple[list[str], int]:
    columns: dict[str, None] = {}
    over: list[str] = []
    rows = 0
    conv = _Columns(sink, damage, lambda r: f"line {r}")
    with open_regular(path) as fh:
        for first, lines in _lines(fh, damage, progress, _size(fh)):
            batch: list[dict[str, Any]] = []
            where: list[int] = []
            for i, line in enumerate(lines):
                if line is None or not line.strip():
                    continue
                n = first + i
                try:
                    d = _loads(line)
                except (ValueError, RecursionError) as exc:
                    why = "nested too deep" if isinstance(exc, RecursionError) else str(exc).split(":")[0]
                    damage.skip("lines that are not JSON", f"line {n} ({why})")
                    continue
                if not isinstance(d, dict):
                    damage.skip("lines that are not JSON objects", f"line {n} ({type(d).__name__})")
                    continue
                batch.append(d)
                where.append(n)
            if not batch:
                continue
            rows += len(batch)
            keys = _new_keys(batch, columns, over)
            step = _find_step(list(columns))
            conv.add({k: [_cell(d.get(k)) for d in batch] for k in sorted(keys)}, step, where)
    if not rows:
        if damage:
            raise InputError(f"{path.name} holds no readable JSON object", context="; ".join(damage.notes()),
                             hint='a JSONL log holds one JSON object per line, e.g. {"step": 10, "loss": 2.3}')
        raise InputError(f"{path.name} holds no JSON objects",
                         hint='a JSONL log holds one JSON object per line, e.g. {"step": 10, "loss": 2.3}')
    if over:
        notes.append(f"{len(over)} keys not read (more than {MAX_COLUMNS} columns, or names over "
                     f"{MAX_TAG_CHARS} characters): " + ", ".join(excerpt(k, 30) for k in sorted(set(over))[:5]))
    conv.finish(notes)
    return sorted(columns), rows


def _numberish(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) or (
        isinstance(v, str) and v.strip().lower() in ("nan", "inf", "-inf", "infinity", "-infinity"))


def _cell(v: Any) -> Any:
    return v if _numberish(v) else None


class _More(Exception):
    """The buffered text ends inside a JSON value: read on."""


class _JsonStream:
    """One JSON document read piecewise: values are decoded one at a time from a bounded window of text.

    A value longer than MAX_LINE, text that is not UTF-8, or a syntax error ends the value it is in; the
    caller decides whether that is damage to skip or a refusal. Places are given as line numbers.
    """

    _WS = rx.compile(r"[ \t\n\r]*")

    def __init__(self, fh: io.FileIO, path: Path, progress: Progress | None) -> None:
        import codecs

        self.fh, self.path, self.progress = fh, path, progress
        self.total = _size(fh)
        self.done = 0
        self.buf = ""
        self.i = 0
        self.line = 1  # line number of buf[0]
        self.eof = False
        self._dec = codecs.getincrementaldecoder("utf-8")("strict")
        self._json = json.JSONDecoder(parse_int=_big_int)

    def fill(self) -> bool:
        """Read the next block (dropping what was consumed); False at the end of the file."""
        if self.eof:
            return False
        chunk = self.fh.read(BLOCK)
        try:
            text = self._dec.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            raise InputError(f"{self.path.name} is not UTF-8 text",
                             context=f"{self.where()}, byte {self.done + exc.start + 1}: "
                                     f"{excerpt(chunk[max(0, exc.start - 10):exc.start + 10])}") from None
        self.done += len(chunk)
        if self.progress is not None:
            self.progress(self.done, self.total)
        self.eof = not chunk
        self.line += self.buf.count("\n", 0, self.i)
        self.buf = self.buf[self.i:] + text
        self.i = 0
        return True

    def where(self) -> str:
        """The line the reader is at."""
        return f"line {self.line + self.buf.count(chr(10), 0, self.i)}"

    def peek(self) -> str:
        """The next character that is not white space ('' at the end)."""
        while True:
            self.i = self._WS.match(self.buf, self.i).end()  # type: ignore[union-attr]
            if self.i < len(self.buf) or not self.fill():
                return self.buf[self.i] if self.i < len(self.buf) else ""

    def take(self, ch: str) -> bool:
        """Consume ``ch`` if it comes next."""
        if self.peek() == ch:
            self.i += 1
            return True
        return False

    def value(self) -> Any:
        """Decode the next value; raises JSONDecodeError, RecursionError or _More on damage."""
        self.peek()
        while True:
            try:
                v, end = self._json.raw_decode(self.buf, self.i)
                if end >= len(self.buf) and not self.eof:
                    raise _More  # a number at the window's edge may go on in the next block
                self.i = end
                return v
            except (json.JSONDecodeError, _More):
                if self.eof or len(self.buf) - self.i > MAX_LINE:
                    raise
                self.fill()

    def resync(self, pattern: re.Pattern[str]) -> bool:
        """Move to the end of the next match of ``pattern`` (bounded window); False at the end of the file."""
        while True:
            m = pattern.search(self.buf, self.i)
            if m:
                self.i = m.end()
                return True
            self.i = max(self.i, len(self.buf) - 64)
            if not self.fill():
                return False


_NEXT_ENTRY = rx.compile(r"\}\s*,\s*(?=\{)")


def _hf_entries(js: _JsonStream, damage: Damage) -> Iterator[tuple[int, Any]]:
    """The entries of the top-level ``log_history`` list, in order; damaged entries are skipped and counted.

    Raises:
        InputError: Not a JSON object, no ``log_history`` list, or damage outside it (named by line).
    """
    name = js.path.name

    def refuse(what: str) -> InputError:
        return InputError(f"{name} is not a readable JSON file: {what}", context=js.where(),
                          hint="a truncated copy? copy the file again from the checkpoint folder")

    if not js.take("{"):
        raise InputError(f"{name} has no 'log_history' list", context="the file is not a JSON object",
                         hint="give the trainer_state.json a transformers Trainer saves with each checkpoint")
    while True:
        if js.take("}") or not js.peek():
            raise InputError(f"{name} has no 'log_history' list",
                             hint="give the trainer_state.json a transformers Trainer saves with each checkpoint")
        try:
            key = js.value()
            if not isinstance(key, str) or not js.take(":"):
                raise refuse("expected a key and ':'")
            if key == "log_history":
                break
            js.value()
        except (json.JSONDecodeError, _More) as exc:
            raise refuse(getattr(exc, "msg", "the file ends inside a value")) from None
        except RecursionError:
            raise refuse("nested too deep") from None
        if not js.take(","):
            if js.take("}"):
                continue
            raise refuse("expected ',' or '}'")
    if not js.take("["):
        raise InputError(f"{name}: 'log_history' is not a list", context=js.where())
    n = 0
    if js.take("]"):
        return
    while True:
        if not js.peek():
            damage.skip("log_history entries cut short by the end of the file (a truncated copy?)",
                        f"entry {n}, {js.where()}")
            return
        at = js.where()
        try:
            yield n, js.value()
        except (json.JSONDecodeError, _More, RecursionError) as exc:
            why = "nested too deep" if isinstance(exc, RecursionError) else getattr(exc, "msg", "cut short")
            if not js.resync(_NEXT_ENTRY):
                if isinstance(exc, RecursionError) or not js.eof or "Unterminated" not in why:
                    damage.skip("log_history entries that are not JSON (nothing readable after the first)",
                                f"entry {n}, {at} ({why})")
                else:
                    damage.skip("log_history entries cut short by the end of the file (a truncated copy?)",
                                f"entry {n}, {at}")
                return
            damage.skip("log_history entries that are not JSON", f"entry {n}, {at} ({why})")
            n += 1
            continue
        n += 1
        if js.take(","):
            continue
        if js.take("]"):
            return
        if not js.peek():
            damage.skip("log_history entries cut short by the end of the file (a truncated copy?)",
                        f"after entry {n - 1}, {js.where()}")
            return
        damage.skip("log_history entries that are not JSON", f"after entry {n - 1}, {js.where()}")
        if not js.resync(_NEXT_ENTRY):
            return


def _read_hf(path: Path, sink: Any, notes: list[str], damage: Damage,
             progress: Progress | None = None) -> tuple[list[str], int]:
    columns: dict[str, None] = {}
    over: list[str] = []
    rows = 0
    conv = _Columns(sink, damage, lambda r: f"log_history entry {r}")
    batch: list[dict[str, Any]] = []
    where: list[int] = []
    noted = False

    def flush() -> None:
        nonlocal rows
        rows += len(batch)
        keys = _new_keys(batch, columns, over)
        cols = {k: [_cell(d.get(k)) for d in batch] for k in sorted(keys)}
        # The end-of-training summary ("train_loss" averaged over the run) is one point: not a curve.
        if "train_loss" in cols and "loss" in columns:
            del cols["train_loss"]
        conv.add(cols, _find_step(list(columns)), where)
        batch.clear()
        where.clear()

    with open_regular(path) as fh:
        for i, d in _hf_entries(_JsonStream(fh, path, progress), damage):
            if not noted:
                noted = True
                notes.append("Hugging Face Trainer: with logging_nan_inf_filter=True (the default) a NaN/Inf training "
                             "loss is never logged (the Trainer logs the mean of the earlier losses instead, and a "
                             "window that was all NaN shows as 0.0); grad_norm is logged unfiltered, so trainopt "
                             "reads non-finite gradient norms as a non-finite loss. Set logging_nan_inf_filter=False "
                             "to see the real values.")
            if not isinstance(d, dict):
                damage.skip("log_history entries that are not objects", f"entry {i} ({type(d).__name__})")
                continue
            batch.append(d)
            where.append(i)
            if len(batch) >= CHUNK:
                flush()
        if batch:
            flush()
    if over:
        notes.append(f"{len(over)} keys not read (more than {MAX_COLUMNS} columns, or names over "
                     f"{MAX_TAG_CHARS} characters): " + ", ".join(excerpt(k, 30) for k in sorted(set(over))[:5]))
    conv.finish(notes)
    return sorted(columns), rows


def _new_keys(batch: list[dict[str, Any]], columns: dict[str, None], over: list[str]) -> list[str]:
    """Numeric keys of a batch of records: known ones, and new ones while there is room (else listed in over)."""
    keys: list[str] = []
    for k in {k for d in batch for k, v in d.items() if _numberish(v)}:
        if k in columns:
            keys.append(k)
        elif len(columns) < MAX_COLUMNS and len(k) <= MAX_TAG_CHARS:
            columns[k] = None
            keys.append(k)
        elif len(over) < 1000:
            over.append(k)
    return keys


# --------------------------------------------------------------------------------------- TensorBoard


def _crc_function() -> Callable[[bytes], int]:
    """Masked CRC-32C as TFRecord uses it: google-crc32c's C code when installed, else TensorBoard's Python."""
    try:
        import google_crc32c

        value = google_crc32c.value

        def masked(data: bytes) -> int:
            x = value(data)
            return (((x >> 15) | (x << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    except ImportError:  # the pure-Python table TensorBoard's own reader uses: correct, slower
        from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c as masked
    return masked


def _records(fh: io.FileIO, damage: Damage, on_bytes: Callable[[int], None]) -> Iterator[bytes]:
    """TFRecord payloads in order, each checked against both its checksums.

    A record whose payload fails its checksum is skipped (its length was checked, so the next record is
    found); a header that fails its checksum is searched past for the next intact header; a record cut short
    by the end of the file is reported. Every skip is counted in ``damage``.
    """
    crc = _crc_function()
    head = struct.Struct("<QI")
    buf = b""
    pos = 0  # offset of buf[0] in the file
    i = 0  # read position in buf
    eof = False
    record = 0

    def need(n: int) -> bool:
        nonlocal buf, pos, i, eof
        if len(buf) - i >= n or eof:
            return len(buf) - i >= n
        chunk = fh.read(max(BLOCK * 4, n - (len(buf) - i)))
        on_bytes(len(chunk))
        if not chunk:
            eof = True
        pos += i
        buf = buf[i:] + chunk
        i = 0
        return len(buf) - i >= n

    while need(12):
        length, hcrc = head.unpack_from(buf, i)
        if crc(buf[i:i + 8]) != hcrc:
            start = pos + i
            found = False
            scanned = 0
            i += 1
            while scanned < RESYNC_BYTES and need(12):
                length, hcrc = head.unpack_from(buf, i)
                if length <= MAX_RECORD and crc(buf[i:i + 8]) == hcrc:
                    found = True
                    break
                i += 1
                scanned += 1
            damage.skip("damaged stretches of TensorBoard records", f"byte {start}"
                        + ("" if found else f"; nothing intact in the next {min(scanned, RESYNC_BYTES)} bytes, "
                           "the rest of the file was not read"))
            if not found:
                return
            continue
        record += 1
        if length > MAX_RECORD:
            # Too large to be a scalar event (an image or a mesh): seek past it without loading it.
            skip = 12 + length + 4
            have = len(buf) - i
            if have >= skip:
                i += skip
            else:
                fh.seek(skip - have, os.SEEK_CUR)
                on_bytes(skip - have)
                pos += len(buf) + (skip - have)
                buf, i = b"", 0
            continue
        if not need(12 + length + 4):
            damage.skip("TensorBoard records cut short by the end of the file (a crashed or still running run?)",
                        f"byte {pos + i}")
            return
        data = buf[i + 12:i + 12 + length]
        (dcrc,) = struct.unpack_from("<I", buf, i + 12 + length)
        i += 12 + length + 4
        if crc(data) != dcrc:
            damage.skip("TensorBoard records failing their checksum", f"record {record}, byte {pos + i - length - 16}")
            continue
        yield data


def _read_tensorboard(path: Path, sink: Any, progress: Progress | None, damage: Damage, notes: list[str],
                      follow_links: bool = False) -> tuple[list[str], int]:
    from expert.extras import require

    require("tensorboard", "reading TensorBoard event files")
    from google.protobuf.message import DecodeError
    from tensorboard.compat.proto import event_pb2
    from tensorboard.util import tensor_util

    if path.is_dir():
        files = sorted(p for p, _ in scan(path, ("events.out.tfevents*",), follow_links=follow_links, notes=notes,
                                          depth=0))
    else:
        files = [path]
    total = sum(f.stat().st_size for f in files)
    done = 0
    rows = 0
    seen: dict[str, None] = {}
    over: set[str] = set()
    bufs: dict[str, tuple[list[float], list[float]]] = {}
    parse = event_pb2.Event.FromString
    float_dtypes = (1, 2, 19)  # DT_FLOAT, DT_DOUBLE, DT_HALF

    def flush(tag: str) -> None:
        s, v = bufs.pop(tag)
        sink(tag, s, v)

    def moved(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None and n:
            progress(min(done, total), total)

    for f in files:
        fdamage = Damage(f.name)
        with open_regular(f) as fh:
            for n, data in enumerate(_records(fh, fdamage, moved)):
                try:
                    ev = parse(data)
                except DecodeError:
                    fdamage.skip("TensorBoard records that are not events", f"record {n + 1}")
                    continue
                if not ev.HasField("summary"):
                    continue
                step = float(ev.step)
                for v in ev.summary.value:
                    kind = v.WhichOneof("value")
                    if kind == "simple_value":
                        x = v.simple_value
                    elif kind == "tensor" and v.tensor.dtype in float_dtypes:
                        try:
                            arr = tensor_util.make_ndarray(v.tensor)
                        except Exception:  # noqa: BLE001 - a malformed tensor proto: not a scalar we can read
                            fdamage.skip("TensorBoard values that are not readable tensors", f"record {n + 1}")
                            continue
                        if arr.size != 1:
                            continue
                        x = float(arr.reshape(-1)[0])
                    else:
                        continue
                    tag = v.tag
                    if tag not in seen:
                        if len(seen) >= MAX_COLUMNS or len(tag) > MAX_TAG_CHARS:
                            over.add(tag[:MAX_TAG_CHARS])
                            continue
                        seen[tag] = None
                    s, vals = bufs.setdefault(tag, ([], []))
                    s.append(step)
                    vals.append(x)
                    rows += 1
                    if len(vals) >= CHUNK:
                        flush(tag)
        for why, (k, where) in fdamage.kinds.items():
            damage.skip(f"{why} in {excerpt(f.name, 60)}", where, k)
    if over:
        notes.append(f"{len(over)} tags not read (more than {MAX_COLUMNS}, or names over {MAX_TAG_CHARS} characters)")
    if not rows:
        if damage:
            raise InputError(f"no readable scalar events in {excerpt(str(path), 200)}",
                             context="; ".join(damage.notes()), hint="a damaged or truncated event file? copy it again")
        raise InputError(f"no scalar events in {excerpt(str(path), 200)}",
                         hint="not a TensorBoard event file, or the run logged no scalars (add_scalar)")
    for tag in list(bufs):
        flush(tag)
    return list(seen), rows


# --------------------------------------------------------------------------------------- finding the log


def detect(path: Path, notes: list[str] | None = None, *, follow_links: bool = False) -> tuple[Path, str]:
    """Find the log file in ``path`` (a file, or a run folder) and its kind.

    In a folder holding several logs, the newest is read (and ``notes`` says so). Links inside the folder
    that lead out of it, dangling links, FIFOs, devices and sockets are skipped (and ``notes`` says so),
    unless ``follow_links`` allows links out.

    Raises:
        InputError: Nothing readable there.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        what = "a link to something that does not exist" if path.is_symlink() else "no such file or folder"
        raise InputError(f"{what}: {excerpt(str(path), 200)}", hint="give a log file or a run folder") from None
    except OSError as exc:
        raise InputError(f"cannot read {excerpt(str(path), 200)}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        found = scan(path, LOG_PATTERNS, follow_links=follow_links, notes=notes)  # one walk, whatever the size
        cands: list[tuple[Path, float]] = []
        for pat in LOG_PATTERNS:
            cands = sorted((c for c in found if fnmatch.fnmatch(c[0].name, pat)), key=lambda c: (-c[1], str(c[0])))
            if cands:
                break
        if not cands:
            raise InputError(f"no training log found in {path}",
                             hint="looked for metrics.csv, trainer_state.json, events.out.tfevents.*, *.jsonl, *.csv "
                                  "(regular files; links out of the folder only with --follow-links)")
        first = cands[0][0]
        tb = first.name.startswith("events.out.tfevents")
        runs = {c.parent for c, _ in cands} if tb else {c for c, _ in cands}
        if len(runs) > 1 and notes is not None:
            newest = first.parent if tb else first
            notes.append(f"{len(runs)} logs found under {path}; read the newest, {newest} (give another file or "
                         "folder to read it)")
        if tb:
            return first.parent, "tensorboard"  # one run folder may hold several event files
        path = first
    elif not stat.S_ISREG(st.st_mode):
        raise InputError(f"{excerpt(str(path), 200)} is {_kind_of_mode(st.st_mode)}, not a log file",
                         hint="trainopt reads regular files only (a pipe or device could block or never end)")
    name = path.name
    if name.startswith("events.out.tfevents"):
        return path, "tensorboard"
    if name.endswith(".jsonl") or name.endswith(".ndjson"):
        return path, "jsonl"
    if name.endswith(".json"):
        return path, "hf_trainer_state"
    if name == "metrics.csv":
        return path, "lightning_csv"
    if name.endswith((".csv", ".tsv", ".txt")):
        return path, "csv"
    raise InputError(f"unrecognised log format: {excerpt(name)}",
                     hint="supported: Lightning metrics.csv, HF trainer_state.json, TensorBoard events.out.tfevents.*, "
                          "CSV or JSONL with a step and a loss column")


@dataclass
class Read:
    """What a reader got from a log: the file, its kind, its series, its columns and what it skipped."""

    path: Path
    kind: str
    series: dict[str, Series]
    columns: list[str]
    rows: int
    notes: list[str]
    damage: Damage


def read_series(path: Path, *, progress: Progress | None = None, capacity: int = 4096,
                follow_links: bool = False) -> Read:
    """Find the log at ``path``, read every numeric series in it, and say what was skipped.

    Raises:
        InputError: Nothing readable there (named: the file, and the line, record or field).
    """
    notes: list[str] = []
    p, kind = detect(path, notes, follow_links=follow_links)
    series: dict[str, Series] = {}
    damage = Damage(p.name)

    def sink(tag: str, steps: Any, values: Any) -> None:
        s = series.get(tag)
        if s is None:
            s = series[tag] = Series(tag, capacity)
        s.extend(steps, values)

    try:
        if kind in ("csv", "lightning_csv"):
            columns, rows = _read_csv(p, sink, progress, damage, notes)
        elif kind == "jsonl":
            columns, rows = _read_jsonl(p, sink, progress, damage, notes)
        elif kind == "hf_trainer_state":
            columns, rows = _read_hf(p, sink, notes, damage, progress)
        else:
            columns, rows = _read_tensorboard(p, sink, progress, damage, notes, follow_links)
    except OSError as exc:
        raise InputError(f"cannot read {excerpt(str(p), 200)}: {exc.strerror or exc}") from None
    except InputError as exc:
        if p != path:  # found in a folder: say which file of it the message is about
            exc.context = f"file {excerpt(str(p), 200)}" + (f"; {exc.context}" if exc.context else "")
        raise
    if not series and damage:
        shown = p.name if p == path else excerpt(str(p), 200)  # found in a folder: which file of it
        raise InputError(f"nothing readable in {shown}", context="; ".join(damage.notes()),
                         hint="a damaged or truncated copy? copy the log again")
    for s in series.values():
        s.finish()
    return Read(p, kind, series, columns, rows, notes, damage)
