"""The reader of long texts stays linear on one long line (a log pasted without its line breaks).

The pass composing late decisive lines once searched back to the text's start for each line's beginning and
stepped through every match of a repeated line: a single-line log of a few MB took quadratic time.
"""

from __future__ import annotations

import time

from expert import talk
from expert.nlp import text_words


def _seconds(text: str) -> float:
    text_words(text)  # the cue scan's word list, shared with the reader (kept for the last text)
    t0 = time.process_time()  # (this process's CPU time: less moved by other work on the machine)
    talk._ranges(text)
    return time.process_time() - t0


def test_one_long_line_is_read_in_linear_time():
    line = "the loss is nan again "
    # 1.1 MB and 4.4 MB: linear is a ratio of 4 at most (less here: the fixed costs), quadratic near 16 (about 8
    # measured at these sizes before the fix)
    ratio = _seconds(line * 200_000) / _seconds(line * 50_000)
    assert ratio < 6, ratio


def test_a_late_decisive_line_is_still_composed_on_one_long_line():
    text = "the loss is nan again " * 20_000 + " gradients are all zero now"
    got = [text[lo:hi] for lo, hi in talk._ranges(text)]
    assert any("all zero" in g for g in got)
