"""The watch at its default window and strides (issue 21), on runs past every dense start.

The generated probe benchmark trains 60 steps with 10-step windows, where every forward is fingerprinted and every
input looked at. These runs use ``watch``'s defaults (a 200-step window, the sampled steps, the gradient norm's
stride, the batch-order marks) and last long enough that the faults arrive between samples: each must still be
named, at its step where the watch names one, and the same runs without the fault stay quiet. The watch must
also leave the training exactly as it would have gone without it, and hold no more memory late in a run than
early.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest
import torch
from torch import nn

from probes import batch_order
from probes.watcher import WINDOW
from trainopt import watch

pytestmark = pytest.mark.usefixtures("quiet_watch")


def _setup(seed: int = 0, n: int = 512) -> tuple[nn.Module, torch.optim.Optimizer, torch.Tensor, torch.Tensor]:
    torch.manual_seed(seed)
    m = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
    x = torch.randn(n, 20)
    return m, torch.optim.SGD(m.parameters(), lr=0.05), x, x[:, :5].argmax(1)


def _train(fault: str, steps: int, give_loss: bool = True, order: str = "shuffled") -> object:
    m, opt, x_all, y_all = _setup()
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(1)
    with watch(m, opt, loss_fn=loss_fn, num_classes=5) as w:
        for step in range(steps):
            if order == "fixed":
                i = torch.arange(step % 300, step % 300 + 1)  # 300 one-example batches, the same order each epoch
                i = torch.cat([i, (i + 300) % 512])
            else:
                i = torch.randint(0, 512, (32,), generator=g)
            x = x_all[i]
            if fault == "nan_input" and step == 437:
                x = x.clone()
                x[3, 7] = float("nan")  # one bad entry, on a step that is neither sampled nor the dense start
            if fault == "lr_blowup" and step == 500:
                for group in opt.param_groups:
                    group["lr"] = 50.0
            loss = loss_fn(m(x), y_all[i])
            opt.zero_grad()
            if fault != "nan_input" or step != 437:
                loss.backward()  # the bad batch is only looked at: the input stays the one non-finite place
                opt.step()
            w.step(loss if give_loss else None)
    return w


def _warned(w: object) -> set[str]:
    return {f["id"] for f in w.consultation.diagnosis.findings if f["severity"] in ("warning", "critical")}


def test_the_defaults_are_the_long_window():
    w = watch(*_setup()[:2])
    assert w.every == WINDOW == 200 and w.update_every == WINDOW // 2


@pytest.mark.parametrize("give_loss", [True, False], ids=["loss given", "no loss"])
def test_a_nan_input_between_samples_is_placed_at_its_step(give_loss):
    """Given a finite CPU loss a step's input is not read; a NaN loss (or none) makes the watch read it then."""
    w = _train("nan_input", 520, give_loss=give_loss)
    assert w.nonfinite_at.get("inputs") == 437, w.nonfinite_at
    obs = w.consultation.observations
    assert obs["nan_location"].value == "inputs" and obs["nan_step"].value == 437


def test_a_late_lr_blowup_is_caught_at_the_default_window():
    w = _train("lr_blowup", 800)
    assert any(t["step"] > 500 for t in w.trips), w.trips
    assert _warned(w) & {"MS-GRAD-01", "RT-UNST-01", "MS-UPD-01"}, _warned(w)  # gradients, curve or update size


def test_batches_repeated_each_epoch_are_found_past_the_dense_start():
    """A 300-batch epoch is longer than the dense start: only the marked forwards can pair up, and do."""
    w = _train("none", 1100, order="fixed")
    o = w.consultation.observations["batch_order"]
    assert o.value == "same_each_epoch" and o.evidence["epoch_forwards"] == 300, o.evidence
    assert o.evidence["repeat_fraction"] == 1.0  # every pair both fingerprinted was found: nothing by chance


def test_the_healthy_run_at_the_defaults_trips_nothing_and_repeats_nothing():
    w = _train("none", 1100)
    assert not w.trips and not _warned(w), (w.trips, _warned(w))
    assert w.consultation.observations["batch_order"].value == "no_repeat"
    assert w.nonfinite_at == {}


def test_the_marks_pair_every_gap_once_a_period():
    marks = sorted(batch_order.MARKS)
    gaps = sorted((a - b) % batch_order.PERIOD for a in marks for b in marks if a != b)
    assert gaps == list(range(1, batch_order.PERIOD))  # a perfect difference set
    dense = batch_order.DENSE_FORWARDS

    def fingerprinted(j: int) -> bool:
        return j < dense or j % batch_order.PERIOD in batch_order.MARKS

    for gap, forwards in ((1, 100), (5, 300), (73, 1000), (300, 1100), (411, 2000), (999, 999)):
        brute = sum(fingerprinted(i) and fingerprinted(i - gap) for i in range(gap, forwards))
        assert batch_order.pairs(gap, forwards) == brute, (gap, forwards)


def test_the_next_marked_forward_is_the_first_one_fingerprinted_after():
    # the table lookup agrees with stepping forward one forward at a time, across the dense end and many periods
    for i in range(-1, batch_order.DENSE_FORWARDS + 5 * batch_order.PERIOD):
        j = i + 1
        while not batch_order.marked(j):
            j += 1
        assert batch_order.next_marked(i) == j, i


def test_the_watch_leaves_the_training_exactly_as_it_would_have_gone():
    """Weights, gradients, optimizer state and the RNG after a watched run equal an unwatched twin's, bit for bit."""

    def run(watched: bool) -> tuple[list[torch.Tensor], list[torch.Tensor], dict, torch.Tensor]:
        m, opt, x_all, y_all = _setup(3)
        m = nn.Sequential(m, nn.Dropout(0.1))  # draws from the global RNG every step
        opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
        torch.manual_seed(7)
        loss_fn = nn.CrossEntropyLoss()
        ctx = watch(m, opt, loss_fn=loss_fn, num_classes=5) if watched else None
        w = ctx.__enter__() if ctx else None
        try:
            for _ in range(450):  # past a window end and several sampled steps
                i = torch.randint(0, 512, (32,))
                opt.zero_grad()
                loss = loss_fn(m(x_all[i]), y_all[i])
                loss.backward()
                opt.step()
                if w is not None:
                    w.step(loss)
        finally:
            if ctx:
                ctx.__exit__(None, None, None)
        state = {k: [v.clone() if torch.is_tensor(v) else v for v in s.values()] for k, s in opt.state.items()}
        return [p.detach().clone() for p in m.parameters()], [p.grad.clone() for p in m.parameters()], \
            state, torch.get_rng_state()

    plain, watched = run(False), run(True)
    for a, b in zip(plain[0] + plain[1], watched[0] + watched[1]):
        assert torch.equal(a, b)
    for sa, sb in zip(plain[2].values(), watched[2].values()):
        assert all(torch.equal(a, b) if torch.is_tensor(a) else a == b for a, b in zip(sa, sb))
    assert torch.equal(plain[3], watched[3])


def test_memory_stays_flat_over_a_long_run():
    """What the watch holds after 3,000 steps is what it held after 600: its summaries are bounded."""
    m, opt, x_all, y_all = _setup()
    g = torch.Generator().manual_seed(2)

    def steps(w: object, n: int) -> None:
        _loop(w, m, opt, x_all, y_all, n, g)

    def live_tensors() -> int:
        # torch's CPU allocator is invisible to tracemalloc: a tensor kept per step shows as a few hundred bytes of
        # Python objects there, so the tensors themselves are counted
        gc.collect()
        return sum(1 for o in gc.get_objects() if issubclass(type(o), torch.Tensor))

    with watch(m, opt, loss_fn=nn.CrossEntropyLoss(), num_classes=5) as w:
        steps(w, 600)  # past every dense start and a few window ends
        tensors = live_tensors()
        tracemalloc.start()
        try:
            steps(w, 2400)
            grown = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        tensors_grown = live_tensors() - tensors
    assert grown < 256 * 1024, grown  # a few window buffers at most, not a per-step history
    # a window's queue at most (one window end lies on either side of both counts): not one tensor per step
    assert tensors_grown < 200, tensors_grown
    assert not w.trips


def test_a_nan_micro_batch_before_a_finite_loss_is_still_placed():
    """Two forwards in a step: the one loss given cannot vouch for the first input, so both are measured."""
    m, opt, x_all, y_all = _setup()
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(3)
    with watch(m, opt, loss_fn=loss_fn, num_classes=5) as w:
        for step in range(300):
            opt.zero_grad()
            for micro in range(2):
                i = torch.randint(0, 512, (16,), generator=g)
                x = x_all[i]
                if step == 250 and micro == 0:
                    x = x.clone()
                    x[0, 0] = float("inf")
                loss = loss_fn(m(x), y_all[i])
                if not (step == 250 and micro == 0):  # looked at only: the weights stay finite
                    loss.backward()
            opt.step()
            w.step(loss)  # the last micro-batch's loss: finite
    assert w.nonfinite_at.get("inputs") == 250, w.nonfinite_at


def _loop(w: object, m: nn.Module, opt: torch.optim.Optimizer, x_all: torch.Tensor, y_all: torch.Tensor,
          steps: int, g: torch.Generator | None = None) -> None:
    """``steps`` healthy training steps of 32 random examples, drawn from ``g`` (a fresh seed-4 one by default)."""
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(4) if g is None else g
    for _ in range(steps):
        i = torch.randint(0, 512, (32,), generator=g)
        opt.zero_grad()
        loss = loss_fn(m(x_all[i]), y_all[i])
        loss.backward()
        opt.step()
        w.step(loss)


def test_a_plain_step_past_the_dense_starts_calls_only_the_every_step_handlers():
    """Step 302: not sampled nor just after one, no batch-order mark, between two gradient norms (300 and 340).

    The handlers that act on some steps only (marks, strides, a step after a sampled one, a step that found no
    gradient) are woken for those: on this step the plugins' per-step handlers are the two forward ones that look
    at every step, each one Python call. The loop lint's gradient check is no call here: the optimizer-step
    counter calls it only when the step finds no gradient (its pre-hook is off on such a step, issue 21).
    """
    import sys

    m, opt, x_all, y_all = _setup()
    called: list[tuple[str, str]] = []
    handlers = {"forward", "forward_pre", "optimizer_pre", "optimizer_post", "step_end", "unsound_loss"}

    def profile(frame: object, event: str, arg: object) -> None:
        code = frame.f_code  # type: ignore[attr-defined]
        if event == "call" and code.co_name in handlers and "/probes/" in code.co_filename \
                and not code.co_filename.endswith("watcher.py"):
            called.append((code.co_filename.rsplit("/", 1)[1], code.co_name))

    with watch(m, opt, loss_fn=nn.CrossEntropyLoss(), num_classes=5) as w:
        _loop(w, m, opt, x_all, y_all, 302)
        assert w.steps == 302 and w.forward_serial == 302 and 302 % batch_order.PERIOD not in batch_order.MARKS
        sys.setprofile(profile)
        try:
            _loop(w, m, opt, x_all, y_all, 1)
        finally:
            sys.setprofile(None)
    assert sorted(called) == [("config_lint.py", "forward"), ("nonfinite.py", "forward")], called


def test_the_gradient_norm_is_taken_on_the_steps_of_its_rule():
    """Dense for the first optimizer steps, then a stride from the last norm taken, and every sampled step."""
    from probes.grad_flow import DENSE_STEPS, NORMS_PER_WINDOW

    m, opt, x_all, y_all = _setup()
    with watch(m, opt, loss_fn=nn.CrossEntropyLoss(), num_classes=5) as w:
        taken: list[int] = []
        record = w.record

        def spy(key: str, value: object) -> None:
            if key == "gf:norms":
                taken.append(w.steps)
            record(key, value)

        w.record = spy
        _loop(w, m, opt, x_all, y_all, 700)
    stride, last, expected = WINDOW // NORMS_PER_WINDOW, 0, []
    for step in range(700):  # the rule as a check on every step would apply it
        if step + 1 > DENSE_STEPS and step - last < stride and step % w.update_every:
            continue
        last = step
        expected.append(step)
    assert taken == expected


def test_a_loop_that_breaks_on_a_nan_loss_before_w_step_still_places_the_nan():
    """``if isnan(loss): break`` leaves before ``w.step``: the held input of that forward is looked at on exit.

    On the CPU the input is held until a finite loss vouches for it; a loop that stops on the NaN never hands
    that loss over, so without the look on exit the run would end "clean" with a NaN input in its last batch.
    """
    import math

    m, opt, x_all, y_all = _setup()
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(3)
    with watch(m, opt, loss_fn=loss_fn, num_classes=5) as w:
        for step in range(520):
            i = torch.randint(0, 512, (32,), generator=g)
            x = x_all[i].clone()
            if step == 437:
                x[3, 7] = float("nan")
            opt.zero_grad()
            loss = loss_fn(m(x), y_all[i])
            if math.isnan(loss.item()):
                break
            loss.backward()
            opt.step()
            w.step(loss)
    assert w.steps == 437
    assert w.nonfinite_at.get("inputs") == 437, w.nonfinite_at
    assert w.diagnosis is not None and w.diagnosis.status != "clean"


@pytest.mark.parametrize("fault", ["none", "lr_blowup", "nan_input"])
def test_the_window_end_trip_check_reads_the_same_values_without_evidence(fault):
    """The trip check's observations (``values_only``) are the full ones, name, value and step, minus evidence."""
    from probes.base import values_only
    from probes.watcher import tripped_rows

    w = _train(fault, 640)
    full = w.observations()
    with values_only():
        bare = w.observations()
    assert [(o.name, o.value, o.source, o.step) for o in bare] == [(o.name, o.value, o.source, o.step) for o in full]
    assert not any(o.evidence for o in bare) and any(o.evidence for o in full)  # evidence back after the block
    assert tripped_rows({o.name: o for o in bare}, w.probes) == tripped_rows({o.name: o for o in full}, w.probes)
    assert w._tripped() == set(tripped_rows({o.name: o for o in full}, w.probes))
