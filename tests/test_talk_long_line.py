"""A log pasted without its line breaks (one long line) is still composed where it matters.

The pass composing late decisive lines once searched back to the text's start for each line's beginning and
stepped through every match of a repeated line: a single-line log of a few MB took quadratic time. Its speed is a
figure of ``make bench`` (``bench.core.long_texts``: "1 MB one log line"), not of a timed test; here the
behaviour: the search for a line's start stays near the match, and a late decisive record is still read.
"""

from __future__ import annotations

from expert import talk


def test_a_late_decisive_line_is_still_composed_on_one_long_line():
    text = "the loss is nan again " * 20_000 + " gradients are all zero now"
    got = [text[lo:hi] for lo, hi in talk._ranges(text)]
    assert any("all zero" in g for g in got)


def test_a_range_on_one_long_line_is_a_window_near_its_match_not_the_line_from_its_start():
    text = "the loss is nan again " * 20_000 + " gradients are all zero now"
    ranges = talk._ranges(text)
    assert ranges
    # (a window reaching back to the text's start would be the quadratic search's; each stays within its match's
    # neighbourhood)
    assert max(hi - lo for lo, hi in ranges) < 10_000, max(hi - lo for lo, hi in ranges)
