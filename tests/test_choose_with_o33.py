"""``expert.choose._with`` remakes a candidate with every field kept (it is built by keyword)."""

from __future__ import annotations

import dataclasses

import expert  # noqa: F401  (before experta)
from expert import choose


def test_with_is_replace_with_every_other_field_kept():
    from knowledge.measurements import ROWS

    row = ROWS[0]
    p = choose.Pooled(row=row, group="g", weight=2.0, explains=("a",), conds={}, names=frozenset({"n"}),
                      certain=True, waits=frozenset({"w"}))
    assert choose._with(p) == p
    assert choose._with(p, waits=frozenset({"x"})) == dataclasses.replace(p, waits=frozenset({"x"}))
    assert choose._with(p, weight=0.5) == dataclasses.replace(p, weight=0.5)
