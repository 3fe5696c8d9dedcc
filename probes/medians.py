"""Medians for the run-history analysis, without ``numpy.median``'s first-call import of ``numpy.ma``.

``numpy.median`` checks its result for NaN through ``numpy.ma`` (a masked-array test), and importing
``numpy.ma`` costs about as much CPU as a bare interpreter start: ``trainopt logs`` paid it on every call for
a handful of medians. For finite values these return exactly what ``numpy.median`` returns (the middle value
of the sorted values, or the mean of the two middle ones: ``probes.base.median_rows``); anything else
(NaN, Inf, an empty array) goes to ``numpy.median`` itself, so no result can differ.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from probes.base import median_rows


def median(values: Any) -> float:
    """``float(numpy.median(values))`` over all values (flattened)."""
    v = np.ravel(np.asarray(values, dtype=np.float64))
    if v.size and np.isfinite(v).all():
        return float(median_rows(v, 0))
    return float(np.median(v))


def median_along(a: Any, axis: int) -> np.ndarray:
    """``numpy.median(a, axis=axis)`` as an array."""
    v = np.asarray(a, dtype=np.float64)
    if v.size and v.shape[axis] and np.isfinite(v).all():
        return np.asarray(median_rows(v, axis))
    return np.asarray(np.median(v, axis=axis))
