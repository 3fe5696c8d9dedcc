"""Batch order (cheap): do the same batches come back in the same order every epoch.

A loader that shuffles draws a new order each epoch, so the exact same batch (the same examples in the same order)
practically never comes back. Without ``shuffle=True``, or with the generator (or ``torch.manual_seed``) re-seeded
at the start of every epoch, every epoch repeats the previous one batch for batch: each batch recurs exactly one
epoch later. That is read here from a fingerprint of each training forward's first input: for a float input its
digest (``probes.base.input_digest``: a fixed weighting of every element, one op shared with the non-finite
probe), else a fixed random projection of at most 64 evenly spaced elements (two small device ops per forward);
queued, no host read. At the window end the fingerprints are matched against those seen before: a batch seen
before, and the gap since.

Memory is bounded: at most ``KEEP`` fingerprints are remembered. When the store is full, only fingerprints in a
value-chosen subset are kept (one in two, then one in four...); the same batch always falls in or out of the
subset, so repeats of the kept ones are still found, however long the epoch.

Full-batch training (the same batch every step, a gap of one) and a single batch reused while debugging are not
this fault and give no verdict.

Every training forward is fingerprinted (issue 21 weighed a stride): fingerprinting every k-th forward would find
an epoch repeated only when its length in forwards is a multiple of k, and the two ops cost a few microseconds.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import torch

from knowledge.measurements import threshold
from probes.base import Probe, ProbeInfo, emit, input_digest

INFO = ProbeInfo("batch_order", "cheap", "forward", ("batch_order",))

SAMPLE = 64  # input elements projected per forward
KEEP = 8192  # fingerprints remembered at most


def fingerprint(x: torch.Tensor, weights: Any) -> torch.Tensor:
    """A 0-d device tensor, equal for equal batches: a projection of up to ``SAMPLE`` evenly spaced elements.

    Two ops for a contiguous float batch (a strided view, a dot product), one more to cast other dtypes; no copy
    of the batch. An input that requires grad is detached first, so nothing is recorded for autograd (a
    ``no_grad`` block would do the same, but entering and leaving it costs more than the two ops in a training
    step: measured at about 16 us on the 2-core reference machine, issue 21).

    Args:
        x: The forward's first input (any dtype, any device; not modified).
        weights: ``weights(n, dtype, device)`` -> ``n`` fixed weights (cached by the caller).
    """
    if x.requires_grad:
        x = x.detach()
    if not x.is_contiguous():
        # a strided view of a few entries per dimension first: flattening the whole batch would copy it
        x = x[tuple(slice(None, None, max(1, d // 4)) for d in x.shape)].contiguous()
    n = x.numel()
    k = max(1, n // SAMPLE)
    m = min(SAMPLE, n)
    sample = torch.as_strided(x, (m,), (k,), x.storage_offset())  # every k-th element, within the batch
    if sample.dtype not in (torch.float32, torch.float64):
        # float32 holds token ids below 2**24 and 8-bit pixels exactly (and exists on every device)
        sample = sample.float()
    return torch.dot(sample, weights(m, sample.dtype, sample.device))


def judge(seen: int, repeats: Counter, mod: int = 1) -> dict[str, Any] | None:
    """The verdict from the forwards fingerprinted and the gaps at which batches came back.

    Args:
        seen: Forwards fingerprinted.
        repeats: Gap (in forwards) between a batch and its last sighting -> count.
        mod: One in ``mod`` batches is remembered (the bounded store's subset): the repeats to expect scale down.

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
    eligible = max(1.0, (seen - gap) / mod)
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
    thresholds = ("MT-REPEAT", "MT-REPEAT-MIN")

    def attach(self, run: Any) -> None:
        """No fingerprint yet."""
        self.store: dict[float, int] = {}
        self.mod = 1
        self.seen = 0
        self.repeats: Counter = Counter()
        self._w: dict[tuple[Any, ...], torch.Tensor] = {}

    def forward(self, run: Any, module: Any, first: Any, out: Any) -> None:
        """Queue the fingerprint of this training forward's first input (no host read)."""
        if first is None or first.numel() == 0 or first.is_sparse:
            return
        # a float input's digest (every element, shared with the non-finite probe: no op of its own here); other
        # inputs (token ids, half precision, very large batches) get the sampled projection
        d = input_digest(run, first)
        run.record("order:fp", fingerprint(first, self._weights) if d is None else d)

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
        for _, v in window.get("order:fp"):
            fp = v[0]
            i = self.seen
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
        j = judge(self.seen, self.repeats, self.mod)
        if j is None:
            return []
        return [emit(INFO, "batch_order", j["value"], j["evidence"], ("MT-REPEAT", "MT-REPEAT-MIN"), step=run.steps)]
