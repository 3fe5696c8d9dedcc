"""Batch order (cheap): do the same batches come back in the same order every epoch.

A loader that shuffles draws a new order each epoch, so the exact same batch (the same examples in the same order)
practically never comes back. Without ``shuffle=True``, or with the generator (or ``torch.manual_seed``) re-seeded
at the start of every epoch, every epoch repeats the previous one batch for batch: each batch recurs exactly one
epoch later. That is read here from a fingerprint of each training forward's first input: for a float input its
digest (``probes.base.input_digest``: a fixed weighting of every element, one op shared with the non-finite
probe), except a large one on the CPU (more than ``FULL_READ_MAX`` elements), which gets a fixed random projection
of ``SPREAD`` elements spread over every position of its last dimension; other inputs (token ids, half precision)
a projection of at most 64 evenly spaced elements (two small device ops per forward); queued, no host read. At
the window end the fingerprints are matched against those seen before: a batch seen before, and the gap since.

Memory is bounded: at most ``KEEP`` fingerprints are remembered. When the store is full, only fingerprints in a
value-chosen subset are kept (one in two, then one in four...); the same batch always falls in or out of the
subset, so repeats of the kept ones are still found, however long the epoch.

Full-batch training (the same batch every step, a gap of one) and a single batch reused while debugging are not
this fault and give no verdict.

The first ``DENSE_FORWARDS`` training forwards are all fingerprinted; after them, only the forwards whose index
modulo ``PERIOD`` is one of ``MARKS`` (one in eight; issue 21: a read of the whole input costs about 70 us a step
on a CPU whose cache the step has flushed, most of what the watch may add). A plain stride would not do:
fingerprinting every k-th forward finds an epoch repeated only when its length is a multiple of k. ``MARKS`` is a
perfect difference set modulo ``PERIOD``: every gap that is not a multiple of ``PERIOD`` is the difference of
exactly one pair of marks, so a batch and its repeat one epoch later are both fingerprinted once per ``PERIOD``
forwards, whatever the epoch's length; the verdict compares the repeats found with the pairs that were
fingerprinted (:func:`pairs`, exact, not an expectation).
"""

from __future__ import annotations

import ctypes
import math
from collections import Counter
from typing import Any

import numpy as np
import torch

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit, input_digest

INFO = ProbeInfo("batch_order", "cheap", "forward", ("batch_order",))

SAMPLE = 64  # input elements projected per forward
SPREAD = 1024  # elements projected from a large float input on the CPU
FULL_READ_MAX = 32768
"""Largest float input (elements) the CPU fingerprints by its whole digest. On the CPU no other probe reads the
input's digest on most steps (the non-finite probe looks at it only when the loss is not finite), and a read of
the whole input there is a pass over memory the step has pushed out of the cache: 66 us a marked forward on the
bench's small MLP (256 x 256), 114 us on its slow MLP (512 x 256), 14 and 24 us a step amortised (issue 21).
Past 128 KB (float32) ``SPREAD`` elements read instead touch at most a quarter of the input's cache lines, and
a thousand values from every position of a row tell real batches apart as the whole input does. Measured in the
loop, a marked forward of the slow MLP went from 117-150 us to 82-103 us: what remains is mostly the two ops'
dispatch in caches the step has flushed (an op costs 20-40 us there whatever its size), not the data."""
KEEP = 8192  # fingerprints remembered at most
DENSE_FORWARDS = 256  # forwards all fingerprinted first: short runs (and the generated benchmarks) keep every one
PERIOD = 73
MARKS = frozenset((1, 2, 4, 8, 16, 32, 37, 55, 64))
"""Past the dense start, a forward is fingerprinted when its index modulo ``PERIOD`` is in ``MARKS``: the powers
of two modulo 73, a perfect (73, 9, 1) difference set (Singer's construction): the 72 differences of two marks
are the 72 non-zero residues, each once (``test_the_marks_pair_every_gap_once_a_period`` in
``tests/test_watch_defaults.py`` checks it)."""


def _residues(lo: int, hi: int, r: int, k: int) -> int:
    """How many integers in ``[lo, hi)`` are ``r`` modulo ``k``."""
    return (hi - 1 - r) // k - (lo - 1 - r) // k if hi > lo else 0


def pairs(gap: int, forwards: int, dense: int = DENSE_FORWARDS) -> int:
    """Forward pairs ``(i - gap, i)`` among the first ``forwards`` that were both fingerprinted.

    Every forward below ``dense`` is fingerprinted, then those marked (``MARKS`` modulo ``PERIOD``). With every
    forward fingerprinted (``forwards <= dense``) it is ``forwards - gap``.
    """
    if gap <= 0 or forwards <= gap:
        return 0
    n = max(0, min(dense, forwards) - gap)  # i below the dense end: both fingerprinted
    lo, far = max(dense, gap), max(dense, gap, dense + gap)
    for r in MARKS:  # i marked, past the dense end
        n += _residues(lo, min(forwards, dense + gap), r, PERIOD)  # i - gap below the dense end
        if (r - gap) % PERIOD in MARKS:
            n += _residues(far, forwards, r, PERIOD)  # i - gap marked too
    return n


def marked(i: int) -> bool:
    """Whether training forward ``i`` (from 0) is fingerprinted: every one in the dense start, then the marks."""
    return i < DENSE_FORWARDS or i % PERIOD in MARKS


def _gaps() -> tuple[int, ...]:
    """For each residue ``r`` modulo ``PERIOD``: how far the next marked residue after it is (1 to ``PERIOD``)."""
    return tuple(next(d for d in range(1, PERIOD + 1) if (r + d) % PERIOD in MARKS) for r in range(PERIOD))


GAPS = _gaps()
"""``next_marked``'s table, made once: the probe looks the next marked forward up instead of stepping to it (up to
16 tests of ``marked`` inside a training forward)."""


def next_marked(i: int) -> int:
    """The first forward after ``i`` that is fingerprinted (the watch wakes the probe for it, not before)."""
    return i + 1 if i + 1 < DENSE_FORWARDS else i + GAPS[i % PERIOD]


def fingerprint(x: torch.Tensor, weights: Any, sample: int = SAMPLE, spread: bool = False) -> torch.Tensor:
    """A 0-d device tensor, equal for equal batches: a projection of up to ``sample`` evenly spaced elements.

    Two ops for a contiguous float batch (a strided view, a dot product), one more to cast other dtypes; no copy
    of the batch. An input that requires grad is detached first, so nothing is recorded for autograd (a
    ``no_grad`` block would do the same, but entering and leaving it costs more than the two ops in a training
    step: measured at about 16 us on the 2-core reference machine, issue 21).

    With ``spread`` the stride is coprime to the last dimension, so the elements fall on every position of a row
    (an image's columns, a sequence's tokens): a stride that divides a row's length reads the same position of
    every row, a border pixel or a padding token, identical in every batch.

    Args:
        x: The forward's first input (any dtype, any device; not modified).
        weights: ``weights(n, dtype, device)`` -> ``n`` fixed weights (cached by the caller).
        sample: Elements projected at most.
        spread: Choose the stride coprime to the last dimension.
    """
    if x.requires_grad:
        x = x.detach()
    if not x.is_contiguous():
        # a strided view of a few entries per dimension first: flattening the whole batch would copy it
        x = x[tuple(slice(None, None, max(1, d // 4)) for d in x.shape)].contiguous()
    n = x.numel()
    k = max(1, n // sample)
    m = min(sample, n)
    if spread and m > 1:
        k = max(1, (n - 1) // (m - 1))
        row = x.shape[-1] if x.ndim else 1
        while k > 1 and math.gcd(k, row) != 1:
            k -= 1
    sample = torch.as_strided(x, (m,), (k,), x.storage_offset())  # every k-th element, within the batch
    if sample.dtype not in (torch.float32, torch.float64):
        # float32 holds token ids below 2**24 and 8-bit pixels exactly (and exists on every device)
        sample = sample.float()
    return torch.dot(sample, weights(m, sample.dtype, sample.device))


_HOST_DTYPES = (torch.float32, torch.float64)
_C_TYPES = {torch.float32: ctypes.c_float, torch.float64: ctypes.c_double}


def _host_readable(x: torch.Tensor) -> bool:
    """Whether ``x``'s values are its memory as ``_host_view`` reads it: a contiguous CPU float32/float64 tensor.

    A negative or conjugate view (``_neg_view``, ``conj``) keeps the values before its lazy sign flip in memory:
    it is read through torch instead.
    """
    return x.is_cpu and x.dtype in _HOST_DTYPES and x.layout is _STRIDED and not x.requires_grad \
        and x.is_contiguous() and not x.is_neg() and not x.is_conj()


def _host_view(x: torch.Tensor) -> Any:
    """A flat numpy view of a contiguous CPU float32/float64 tensor's memory, made without a torch op.

    ``Tensor.numpy`` dispatches an alias op (``aten.detach``), one a fingerprinted forward, every forward of the
    dense start (issue 21: an op dispatched in caches the step has flushed costs more than the read). Built from
    the data pointer instead; the view holds no reference to ``x``: it is used while ``x`` is alive, never kept.
    """
    buf = (_C_TYPES[x.dtype] * x.numel()).from_address(x.data_ptr())
    return np.frombuffer(buf, dtype=np.float32 if x.dtype is torch.float32 else np.float64)
_STRIDED = torch.strided


class _Cache:
    """A stand-in run for ``base._digest_weights``: a weight cache of its own, dropped after one use."""

    digest_weights: dict[Any, Any]

    def __init__(self) -> None:
        self.digest_weights = {}


def judge(seen: int, repeats: Counter, mod: int = 1, forwards: int | None = None) -> dict[str, Any] | None:
    """The verdict from the forwards fingerprinted and the gaps at which batches came back.

    Args:
        seen: Forwards fingerprinted.
        repeats: Gap (in forwards) between a batch and its last sighting -> count.
        mod: One in ``mod`` batches is remembered (the bounded store's subset): the repeats to expect scale down.
        forwards: Training forwards in all, fingerprinted or not (gaps count them); None: ``seen`` (every forward
            was fingerprinted).

    Returns:
        ``value`` (``same_each_epoch``, ``repeats`` or ``no_repeat``) and evidence; None before
        ``MT-REPEAT-MIN`` forwards.
    """
    if seen < threshold("MT-REPEAT-MIN"):
        return None
    if not repeats:
        return {"value": "no_repeat", "evidence": {"forwards": seen, "repeated": 0}}
    gap, at_gap = repeats.most_common(1)[0]
    # every forward from one epoch on could repeat the one an epoch before it (one in mod is remembered)
    eligible = max(1.0, (seen - gap if forwards is None else pairs(gap, forwards)) / mod)
    frac = min(1.0, at_gap / eligible)
    ev = {"forwards": seen, "repeated": sum(repeats.values()), "epoch_forwards": gap,
          "repeated_one_epoch_later": at_gap, "repeat_fraction": frac, "remembered_one_in": mod}
    # a gap of one is full-batch training (or one batch reused while debugging), not an epoch repeated
    same = gap >= 2 and at_gap >= threshold("MT-REPEAT-MIN") / mod and frac >= threshold("MT-REPEAT")
    return {"value": "same_each_epoch" if same else "repeats", "evidence": ev}


class BatchOrderProbe(Probe):
    """Plugin (watch only: one batch shows no order)."""

    info = INFO
    hooks = ("forward", "window")
    woken_hooks = ("forward",)  # woken for the marked forwards only (every one in the dense start)
    thresholds = ("MT-REPEAT", "MT-REPEAT-MIN")

    def attach(self, run: Any) -> None:
        """No fingerprint yet."""
        self.store: dict[float, int] = {}
        self.mod = 1
        self.seen = 0
        self.repeats: Counter = Counter()
        self._w: dict[tuple[Any, ...], torch.Tensor] = {}
        self._hw: dict[tuple[Any, ...], Any] = {}  # the host path's weights (numpy)
        self._plans: dict[tuple[Any, ...], tuple[int, int, Any]] = {}  # the host path's reads, per input shape
        if hasattr(run, "wake"):
            run.wake("forward", self.forward, 1)  # the first training forward
        self.read = 0  # forwards up to the last fingerprint read at a window end
        self._index: list[int] = []  # the forward index of each fingerprint queued and not yet read

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """Queue the fingerprint of this training forward's first input (no host read), if it is marked."""
        i = run.forward_serial - 1  # this training forward's index (the scheduler counts them all)
        run.wake("forward", self.forward, next_marked(i) + 1)
        if first is None or first.numel() == 0 or first.is_sparse or not marked(i):
            return
        self._index.append(i)
        # a float input's digest (every element, shared with the non-finite probe: no op of its own here), but a
        # large one on the CPU a spread projection (FULL_READ_MAX); other inputs (token ids, half precision, very
        # large batches) get the sampled projection. One rule per input kind: a batch and its repeat read alike.
        if _host_readable(first):
            # On the CPU the same projection is taken on the host (numpy, over the tensor's own memory): a torch
            # op dispatched in caches the step has flushed costs 20-40 us whatever its size, and a marked forward
            # took two (issue 21); no torch op is left (``_host_view``), and numpy reads the same
            # elements without building a tensor. Every such forward goes this way, so the fingerprints of a
            # run stay comparable with each other.
            run.record_host("order:fp", self._host_fingerprint(first))
            return
        if first.is_cpu and first.numel() > FULL_READ_MAX and first.dtype in (torch.float32, torch.float64):
            run.record("order:fp", fingerprint(first, self._weights, SPREAD, spread=True))
            return
        d = input_digest(run, first)
        run.record("order:fp", fingerprint(first, self._weights) if d is None else d)

    def _host_fingerprint(self, x: torch.Tensor) -> float:
        """``fingerprint``/``input_digest`` of a contiguous CPU float input, taken on the host.

        Up to ``FULL_READ_MAX`` elements: every element, with the digest's weights (``base.input_digest``); past
        it, ``SPREAD`` elements at a stride coprime to the last dimension (``fingerprint(spread=True)``). The
        array is a view of the tensor's memory (``_host_view``: no torch op): nothing is copied or kept.
        """
        key = (x.numel(), x.shape[-1] if x.ndim else 1, x.dtype)
        plan = self._plans.get(key)
        if plan is None:  # once per input shape: the stride search and the weights, out of the step
            plan = self._plans[key] = self._plan(*key)
        stop, k, w = plan
        return float(np.dot(_host_view(x)[:stop:k], w))

    def _plan(self, n: int, row: int, dtype: Any) -> tuple[int, int, Any]:
        """``_host_fingerprint``'s elements (``[:stop:k]`` of the flat input) and weights for one input shape."""
        npdtype = np.float32 if dtype is torch.float32 else np.float64
        if n <= FULL_READ_MAX:
            return n, 1, self._host_weights(n, npdtype, digest=True)
        m = min(SPREAD, n)
        k = max(1, (n - 1) // (m - 1))
        while k > 1 and math.gcd(k, row) != 1:
            k -= 1
        return (m - 1) * k + 1, k, self._host_weights(m, npdtype, digest=False)

    def _host_weights(self, n: int, dtype: Any, digest: bool) -> Any:
        # the same weights as the device paths (the digest's, or ``_weights``), as numpy arrays, made once per
        # length and dtype
        key = (n, dtype, digest)
        w = self._hw.get(key)
        if w is None:
            if digest:
                from probes.base import _digest_weights

                t = _digest_weights(_Cache(), n, torch.float64, torch.device("cpu"))
            else:
                t = self._weights(n, torch.float64, torch.device("cpu"))
            w = self._hw[key] = t.numpy().astype(dtype)
        return w

    def _weights(self, n: int, dtype: Any, device: Any) -> torch.Tensor:
        # fixed weights in [0.5, 1.5), made once per length, dtype and device (never inside a step again)
        key = (n, dtype, device)
        w = self._w.get(key)
        if w is None:
            g = torch.Generator().manual_seed(1234)
            w = self._w[key] = torch.rand(n, generator=g, dtype=torch.float64).add_(0.5).to(device, dtype)
        return w

    def accumulate(self, run: Any, window: Any) -> None:
        """Match this window's fingerprints with those seen before (bounded store, value-chosen subset)."""
        items = window.get("order:fp")
        index, self._index = self._index[:len(items)], self._index[len(items):]
        for k, (_, v) in enumerate(items):
            fp = v[0]
            i = index[k] if k < len(index) else self.read  # (fingerprints queued by hand: one per forward)
            self.read = i + 1
            if fp == 0.0:
                # every element projected is zero: a sparse input (bag of words, one-hot) whose spread sample missed
                # its few non-zeros, or an all-zero batch. It names no batch: matched, all such batches would be
                # one batch coming back at every gap (false repeats, and a true period drowned among them)
                continue
            self.seen += 1
            if fp != fp:
                continue  # a non-finite input: no fingerprint (the non-finite probe reports it)
            if hash(fp) % self.mod:
                continue  # outside the kept subset, now and every time it comes back
            last = self.store.get(fp)
            if last is not None:
                self.repeats[i - last] += 1
                if len(self.repeats) > 64:  # gaps of a shuffled stream's rare collisions: keep the common ones
                    self.repeats = Counter(dict(self.repeats.most_common(32)))
            self.store[fp] = i
            if len(self.store) > KEEP:
                self.mod *= 2
                self.store = {k: s for k, s in self.store.items() if hash(k) % self.mod == 0}

    def summarise(self, run: Any) -> list:
        """``batch_order`` with the gap (the epoch length, in forwards) and how many batches came back."""
        j = judge(self.seen, self.repeats, self.mod, self.read if self.read > DENSE_FORWARDS else None)
        if j is None:
            return []
        return [emit(INFO, "batch_order", j["value"], j["evidence"], ("MT-REPEAT", "MT-REPEAT-MIN"), step=run.steps)]
