"""Medians for the run-history analysis, without importing numpy (nor ``numpy.median``'s ``numpy.ma``).

``trainopt logs`` on a small file takes a handful of medians; importing numpy for them costs about twice a bare
interpreter start, and ``numpy.median`` adds ``numpy.ma`` on its first call. :func:`median` works on any
sequence (a list, or an array it is given) and returns exactly what ``numpy.median`` returns: the middle value of
the sorted values, or the mean of the two middle ones (``(a + b) / 2``, as numpy computes it); NaN when any value
is NaN or there are none.
"""

from __future__ import annotations

import math
from typing import Any


def median(values: Any) -> float:
    """``float(numpy.median(values))`` over all values (an array is flattened), in plain Python."""
    v = values.ravel().tolist() if hasattr(values, "ravel") else list(values)
    n = len(v)
    # numpy: NaN for no values or any NaN (a NaN makes the sum NaN; so does inf - inf, hence the second look)
    total = sum(v) if n else 0.0
    if not n or (total != total and any(map(math.isnan, v))):
        return math.nan
    v.sort()
    mid = n // 2
    return float(v[mid]) if n % 2 else float((v[mid - 1] + v[mid]) / 2.0)


def amin(values: Any) -> float:
    """``float(numpy.min(values))``: NaN when any value is NaN (Python's ``min`` depends on where a NaN sits)."""
    v = [float(x) for x in values]
    return math.nan if any(x != x for x in v) else min(v)


def median_along(a: Any, axis: int) -> Any:
    """``numpy.median(a, axis=axis)`` as an array (for arrays a caller already has: imports numpy)."""
    import numpy as np

    from probes.base import median_rows

    v = np.asarray(a, dtype=np.float64)
    if v.size and v.shape[axis] and np.isfinite(v).all():
        return np.asarray(median_rows(v, axis))
    return np.asarray(np.median(v, axis=axis))
