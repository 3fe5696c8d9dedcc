"""Each probe's pure core against a naive reference on a tiny model, and the loss-curve classifier."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
import torch

from knowledge.measurements import MEASURES, ROWS, threshold
from probes import activations, config_lint, generalization, grad_flow, loss_curve, loss_init, nonfinite, update_ratio
from tests.zoo import fit_batch


def tiny():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))


def test_grad_norms_match_naive_reference():
    m = tiny()
    x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
    torch.nn.functional.cross_entropy(m(x), y).backward()
    grads = [p.grad for p in m.parameters()]
    got = grad_flow.norms(grads)
    ref = torch.tensor([g.norm().item() for g in grads])
    assert torch.allclose(got, ref, rtol=1e-5)
    naive_global = math.sqrt(sum(g.pow(2).sum().item() for g in grads))
    assert grad_flow.global_norm(got).item() == pytest.approx(naive_global, rel=1e-5)


def test_layer_ratio_uses_rms_of_first_and_last_weight():
    m = tiny()
    m(torch.randn(8, 4)).sum().backward()
    named = [(n, p.grad) for n, p in m.named_parameters()]
    r = grad_flow.layer_ratio(named, grad_flow.norms([g for _, g in named]))
    first, last = m[0].weight.grad, m[2].weight.grad
    ref = (first.norm() / math.sqrt(first.numel())) / (last.norm() / math.sqrt(last.numel()))
    assert r["ratio"] == pytest.approx(ref.item(), rel=1e-5)
    assert (r["first"], r["last"]) == ("0.weight", "2.weight")


def test_update_ratio_matches_naive_and_skips_unmoved():
    a = [torch.ones(3, 3), torch.full((2,), 2.0), torch.ones(2)]
    b = [torch.ones(3, 3) * 1.1, torch.full((2,), 2.0) + torch.tensor([0.0, 0.2]), torch.ones(2)]
    r = update_ratio.ratios(a, b)
    assert r[0] == pytest.approx(0.1, rel=1e-5)
    assert r[1] == pytest.approx(0.2 / (2 * math.sqrt(2)), rel=1e-5)
    assert math.isnan(r[2])
    assert update_ratio.summarize(r)["median"] == pytest.approx(np.median(r[:2]), rel=1e-6)


def test_dead_and_saturated_fractions_match_naive():
    out = torch.tensor([[0.0, 1.0, 0.0], [0.0, 2.0, 3.0]])
    assert activations.dead_fraction(out).item() == pytest.approx(1 / 3)
    t = torch.tensor([[0.999, 0.1], [-0.9999, 0.2]])
    assert activations.saturated_fraction(t, "tanh").item() == pytest.approx(0.5)
    s = torch.tensor([[0.001, 0.5], [0.9999, 0.4]])
    assert activations.saturated_fraction(s, "sigmoid").item() == pytest.approx(0.5)


def test_activation_hooks_measure_dead_units_and_leave_no_hooks():
    m = tiny()
    with torch.no_grad():
        m[0].bias.fill_(-100.0)
    stats = activations.measure(m, lambda: m(torch.randn(32, 4)))
    assert stats["dead"]["1"] == 1.0
    assert not m[1]._forward_hooks


def test_first_nonfinite_module_is_located():
    m = tiny()
    with torch.no_grad():
        m[2].weight[0, 0] = float("nan")
    assert nonfinite.first_nonfinite_module(m, lambda: m(torch.randn(2, 4))) == "2"
    assert nonfinite.earliest({"inputs": True, "labels": True, "activations": False, "loss": False}) == "activations"


def test_loss_init_against_chance():
    r = loss_init.check(math.log(10) * 3, 10, "cross_entropy", at_init=True)
    assert r["ratio"] == pytest.approx(3.0)
    assert loss_init.check(-0.4, 10, "nll", at_init=False)["negative"] is True
    assert loss_init.check(-0.4, None, "custom", at_init=False)["negative"] is False
    assert loss_init.check(float("nan"), 10, "cross_entropy", True)["ratio"] is None


def test_output_activation_detection():
    z = torch.randn(8, 5)
    assert config_lint.output_activation(torch.softmax(z, 1)) == "softmax"
    assert config_lint.output_activation(torch.log_softmax(z, 1)) == "log_softmax"
    assert config_lint.output_activation(torch.sigmoid(torch.randn(8, 1))) == "sigmoid"
    assert config_lint.output_activation(z) == "none"


def test_optimizer_and_schedule_lint():
    m = tiny()
    sgd = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    assert config_lint.optimizer_name(sgd) == "sgd_momentum"
    assert config_lint.optimizer_name(torch.optim.AdamW(m.parameters())) == "adamw"
    warm = torch.optim.lr_scheduler.LinearLR(sgd, start_factor=0.1, total_iters=5)
    cos = torch.optim.lr_scheduler.CosineAnnealingLR(sgd, 10)
    seq = torch.optim.lr_scheduler.SequentialLR(sgd, [warm, cos], milestones=[5])
    assert config_lint.schedule(seq, sgd) == ("cosine", True)
    assert config_lint.schedule(None, sgd)[0] == "other"  # a scheduler is attached but was not passed
    assert config_lint.loss_name(torch.nn.CrossEntropyLoss()) == "cross_entropy"
    assert config_lint.loss_name(lambda o, t: (o - t).abs().mean()) == "custom"


def test_generalization_gap_and_trend():
    obs = {o.name: o.value for o in generalization.observe(train_acc=[0.6, 0.8, 0.95, 1.0],
                                                           val_acc=[0.55, 0.6, 0.62, 0.6], num_classes=4)}
    assert obs["generalization_gap"] == pytest.approx(0.4)
    assert obs["gap_trend"] == "widening"
    assert obs["val_acc_over_chance"] == pytest.approx(2.4)


def _curves():
    rng = np.random.default_rng(0)
    t = np.arange(300)
    spike = 2 * np.exp(-t / 60) + 0.3 + 0.02 * rng.standard_normal(300)
    spike[[100, 150, 220]] = 6.0  # repeated spikes: a symptom (one that recovers is info, tested below)
    nan = 2 * np.exp(-t / 60) + 0.3
    nan[200] = np.nan
    return {
        "decreasing_normally": 2 * np.exp(-t / 100) + 0.3 + 0.03 * rng.standard_normal(300),
        "flat_from_start": 1.386 + 0.02 * rng.standard_normal(300),
        "plateau_after_learning": np.r_[1.5 * np.exp(-t[:100] / 15) + 0.7, 0.7 + 0 * t[100:]]
        + 0.01 * rng.standard_normal(300),
        "decreasing_slowly": 1.4 - 0.0008 * t + 0.02 * rng.standard_normal(300),
        "oscillating": 1 + 0.8 * np.abs(rng.standard_normal(300)),
        "diverging": 1 + np.exp(t / 60),
        "spiking": spike,
        "nan_or_inf": nan,
    }


@pytest.mark.parametrize("label", list(_curves()))
def test_loss_curve_classifier(label):
    # a cross-entropy over 4 classes (chance ln 4): its floor is known, so a stall far above it is a plateau
    assert loss_curve.classify(_curves()[label], chance=math.log(4))["label"] == label
    if label != "plateau_after_learning":  # the same readings when nothing is known about the loss
        assert loss_curve.classify(_curves()[label])["label"] == label


def test_a_smooth_approach_to_a_level_of_its_own_is_converged_when_the_floor_is_unknown():
    # issue 17: BCE against grey levels, a noisy regression, an ELBO bottom out above zero; the plateau curve is
    # a smooth exponential approach to 0.7, which is what such a loss converging looks like
    r = loss_curve.classify(_curves()["plateau_after_learning"])
    assert r["label"] == "decreasing_normally" and r["fitted_floor"] == pytest.approx(0.7, abs=0.02)


def test_one_recovered_late_spike_is_info_and_tiny_late_jumps_are_noise():
    rng = np.random.default_rng(1)
    t = np.arange(400)
    y = 1.4 * np.exp(-t / 40) + 0.005 + 0.002 * np.abs(rng.standard_normal(400))
    y[380] = 0.2  # 0.005 -> 0.2 late in training: small against the starting loss of 1.4
    r = loss_curve.classify(y)
    assert r["label"] == "decreasing_normally" and r["spikes"] == 0
    y[380] = 3.0  # a real spike, recovered at once
    r = loss_curve.classify(y)
    assert r["label"] == "decreasing_normally" and r["recovered_spikes"] == 1 and "info" in r["note"]
    y[399] = 3.0  # a spike the run ends on: not (yet) recovered
    assert loss_curve.classify(y)["label"] in ("spiking", "diverging")


def test_noisy_healthy_curves_are_not_flat_or_oscillating():
    rng = np.random.default_rng(2)
    t = np.arange(600)
    for noise in (0.05, 0.2, 0.4):  # small batches, heavy augmentation, dropout
        y = np.abs(1.4 * np.exp(-t / 150) + 0.3 + noise * rng.standard_normal(600))
        assert loss_curve.classify(y)["label"] == "decreasing_normally", noise


def test_spike_counter_is_incremental_and_history_bounded():
    y = _curves()["spiking"]
    whole = loss_curve.SpikeCounter()
    whole.update(y)
    windows = loss_curve.SpikeCounter()
    for i in range(0, len(y), 50):
        windows.update(y[i:i + 50])
    assert whole.spikes == windows.spikes == 3 and windows.recovered == 3
    h = loss_curve.History(cap=64)
    h.extend(np.arange(10_000, dtype=float))
    assert len(h.array()) <= 128 and h.stride >= 64
    assert h.array()[0] == pytest.approx(np.arange(h.stride).mean())


def test_loss_curve_accepts_list_tensor_numpy_and_columns():
    y = _curves()["decreasing_normally"]

    class Column:  # a dataframe-like column
        def __init__(self, v):
            self._v = v

        def to_numpy(self):
            return self._v

    labels = {loss_curve.classify(v)["label"] for v in (list(y), torch.tensor(y), y, Column(y))}
    assert labels == {"decreasing_normally"}
    assert loss_curve.classify([1.0, 2.0])["label"] is None
    nan = loss_curve.observe([1.0, float("inf"), 1.0], offset=10)
    assert {o.name: o.value for o in nan} == {"loss_behavior": "nan_or_inf", "nan_step": 11}


def test_every_threshold_has_a_source_and_rows_use_the_table():
    assert all(m.source and m.cite for m in MEASURES)
    for row in ROWS:
        for t in row.thresholds():
            assert t["source"], row.id
    assert threshold("MT-GAP") == 0.2


def test_import_expert_does_not_import_probes_or_torch():
    import subprocess
    import sys

    code = "import sys, expert, knowledge.vocabulary, knowledge.measurements; " \
           "print('torch' in sys.modules, 'probes' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


# ------------------------------------------------------------------ issue 9: curve scale, tables, new probes


def test_a_short_noisy_converging_run_is_not_a_plateau_but_a_confident_stall_far_above_the_floor_is():
    rng = np.random.default_rng(3)
    t = np.arange(96)
    # a short healthy fit: noisy, most of the way down, still drifting lower within its noise
    healthy = 0.25 + 0.75 * np.exp(-t / 20) + 0.08 * rng.standard_normal(96)
    assert loss_curve.classify(healthy)["label"] == "decreasing_normally"
    # converged: nearly all of the way from the initial loss to zero, then flat
    t = np.arange(300)
    conv = 2 * np.exp(-t / 15) + 0.3 + 0.01 * rng.standard_normal(300)
    r = loss_curve.classify(conv)
    assert r["label"] == "decreasing_normally" and r["progress"] >= threshold("MT-CURVE-CONVERGED")
    # a stall far above the floor, flat beyond doubt
    stall = np.r_[1.5 * np.exp(-t[:100] / 15) + 0.9, 0.9 + 0 * t[100:]] + 0.01 * rng.standard_normal(300)
    assert loss_curve.classify(stall, chance=math.log(12))["label"] == "plateau_after_learning"
    # with the floor unknown, an abrupt stop far above where the descent was heading is still a plateau
    cut = np.r_[2.4 - 0.012 * t[:100], 1.2 + 0 * t[100:]] + 0.01 * rng.standard_normal(300)
    assert loss_curve.classify(cut)["label"] == "plateau_after_learning"
    # the same flat tail at the floor a label-smoothed loss cannot go below is converged
    assert loss_curve.classify(stall, floor=0.88)["label"] == "decreasing_normally"


def test_converged_fraction_and_stalled_are_scale_aware():
    assert loss_curve.converged_fraction(2.0, 0.2) == pytest.approx(0.9)
    assert loss_curve.converged_fraction(2.0, 1.1, floor=1.0) == pytest.approx(0.9)
    assert loss_curve.converged_fraction(1.0, 1.0, floor=1.0) == 0.0
    assert loss_curve.stalled(0.0, 0.001, 1.0)
    assert not loss_curve.stalled(0.0, 0.05, 1.0)  # flat within a large noise: undecided, not a stall
    assert not loss_curve.stalled(0.1, 0.0, 1.0)


class TinyBert(torch.nn.Module):
    def __init__(self, vocab: int = 20000, d: int = 32) -> None:
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(64, d)
        self.enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(d, 2, 64, batch_first=True), 2,
                                               enable_nested_tensor=False)
        self.head = torch.nn.Linear(d, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))
        return self.head(self.enc(h)[:, 0])


def test_embedding_tables_are_not_the_first_layer_of_gradient_flow():
    torch.manual_seed(0)
    m = TinyBert()
    ids = torch.randint(0, 20000, (8, 16))
    torch.nn.functional.cross_entropy(m(ids), torch.randint(0, 2, (8,))).backward()
    named = [(n, p.grad) for n, p in m.named_parameters() if p.grad is not None]
    pn = grad_flow.norms([g for _, g in named])
    raw = grad_flow.layer_ratio(named, pn)
    assert raw is not None and raw["first"] == "tok.weight"  # a row-sparse table reads as a vanishing first layer
    tables = grad_flow.lookup_tables(m)
    assert tables == {"tok.weight", "pos.weight"}
    r = grad_flow.layer_ratio(named, pn, tables)
    assert r is not None and r["first"].startswith("enc.") and r["ratio"] > threshold("MT-GRAD-VANISH-RATIO")


def test_examine_and_watch_do_not_call_a_tiny_bert_vanishing():
    from expert.consultation import Consultation
    from probes import examine
    from trainopt import watch

    torch.manual_seed(0)
    m = TinyBert()
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    ids, y = torch.randint(0, 20000, (8, 16)), torch.randint(0, 2, (8,))
    c = Consultation()
    c.add(examine(m, torch.nn.CrossEntropyLoss(), (ids, y), opt))
    assert c.observations["grad_layer_ratio"].value > threshold("MT-GRAD-VANISH-RATIO")
    assert "MS-GRAD-02" not in {f["id"] for f in c.run().findings}
    with watch(m, opt, every=5, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        fit_batch(m, opt, ids, y, 10, w)
    assert "MS-GRAD-02" not in {f["id"] for f in w.diagnosis.findings}


@pytest.mark.parametrize("kind,smoothing", [("cross_entropy", 0.0), ("cross_entropy", 0.1), ("bce_with_logits", 0.0)])
@pytest.mark.parametrize("c", [1.0, 0.25])
def test_the_loss_multiplier_is_read_from_the_output_gradient(kind, smoothing, c):
    from probes import loss_scale

    torch.manual_seed(0)
    z = torch.randn(32, 5, requires_grad=True)
    if kind == "cross_entropy":
        loss = torch.nn.functional.cross_entropy(z, torch.randint(0, 5, (32,)), label_smoothing=smoothing)
    else:
        loss = torch.nn.functional.binary_cross_entropy_with_logits(z, (torch.rand(32, 5) > 0.5).float())
    (loss * c).backward()
    m = float(loss_scale.multiplier(z, z.grad, kind, smoothing))
    assert m == pytest.approx(c, rel=1e-3)


def test_accumulation_is_judged_scaled_or_not_and_odd_multipliers_are_left_alone():
    from probes import loss_scale

    assert loss_scale.scaled_for_accum([1.0, 1.0, 0.98], 4) is False
    assert loss_scale.scaled_for_accum([0.25, 0.25], 4) is True
    assert loss_scale.scaled_for_accum([32.0], 4) is None  # a sum reduction: not judged
    assert loss_scale.scaled_for_accum([1.0], 1) is None
    assert not loss_scale.supported(torch.nn.CrossEntropyLoss(reduction="sum"), "cross_entropy")
    assert not loss_scale.supported(torch.nn.CrossEntropyLoss(weight=torch.ones(3)), "cross_entropy")


def test_weight_norm_summary_matches_a_naive_reference():
    from probes import weight_norm

    m = tiny()
    params = list(m.parameters())
    first = weight_norm.norms(params).tolist()
    assert first == pytest.approx([p.norm().item() for p in params], rel=1e-5)
    with torch.no_grad():
        for p in params:
            p.mul_(0.05)
    last = weight_norm.norms(params).tolist()
    s = weight_norm.summarize(first, last, ["0.weight", "0.bias", "2.weight", "2.bias"], [p.ndim >= 2 for p in params])
    assert s is not None and s["ratio"] == pytest.approx(0.05, rel=1e-4)
    tr = weight_norm.Track(names=["a"], matrices=[True])
    tr.update([2.0], 10)
    assert weight_norm.observe(tr) == []  # one sample: nothing to compare yet
    tr.update([0.1], 500)
    (o,) = weight_norm.observe(tr)
    assert o.value == pytest.approx(0.05) and o.step == 500


def test_val_loss_rising_while_train_loss_falls_is_overfitting_and_noise_is_not():
    rng = np.random.default_rng(4)
    ts = np.arange(400.0)
    train = 1.4 * np.exp(-ts / 80) + 0.02 * rng.standard_normal(400)
    vs = np.arange(20.0, 401.0, 20.0)
    val = 0.5 + 0.9 * np.exp(-vs / 60) + 0.002 * (vs - 100).clip(0)  # best near step 140, then rising
    r = generalization.val_loss_rise(vs, val, ts, train)
    assert r is not None and r["rising"] and r["train_falling"]
    flat_noisy = 0.6 + 0.05 * rng.standard_normal(vs.size)
    r = generalization.val_loss_rise(vs, flat_noisy, ts, train)
    assert r is not None and not r["rising"]  # a noisy flat validation loss is no rise
    both_rising = generalization.val_loss_rise(vs, val, ts, 0.3 + 0.001 * ts)
    assert both_rising is not None and not both_rising["rising"]  # both rising is instability, not overfitting
    assert generalization.val_loss_rise(vs[:3], val[:3], ts, train) is None


def test_a_tiny_late_gradient_jump_in_a_converged_run_is_not_a_spike():
    norms = [3.0] * 10 + [3.0 * 0.9 ** i for i in range(80)] + [4e-4] * 40
    norms[120] = 0.01  # 25x the late median, but a few thousandths of where the run started
    assert grad_flow.count_spikes(norms)["spikes"] == 0
    norms[120] = 3.0  # back at the starting scale out of a converged stretch: a spike
    assert grad_flow.count_spikes(norms)["spikes"] == 1


def test_a_data_wait_below_the_loaders_own_cost_is_no_bottleneck_however_small_the_step():
    """A healthy toy run's sub-millisecond fetch is half its step under load; a real 30 ms wait still reads."""
    from probes import throughput

    floor_s = threshold("MT-DATA-MIN-MS") / 1000
    # 100 steps at 0.6 of the floor a step beside a smaller compute: a fraction far above MT-DATA-FRAC, not read
    assert throughput.observe(100 * 0.6 * floor_s, 100 * 0.2 * floor_s, 100) == []
    # the same fraction at ten times the floor a step is an input-bound loop
    (o,) = throughput.observe(100 * 10 * floor_s, 100 * 3 * floor_s, 100)
    assert o.name == "data_time_fraction" and o.value > threshold("MT-DATA-FRAC")


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or not os.path.exists("/proc/self/schedstat"),
                    reason="needs Linux run-queue accounting and CPU affinity")
def test_time_preempted_by_another_process_is_no_data_wait() -> None:
    """A thread kept off its CPU by a competitor (a shared host) was ready to train: that time is not data waiting.

    The probe's clock runs from a sampled step's end to the next forward. Here the "loop" spins on one CPU that a
    busy child process shares, so about half of the wall time is spent runnable but preempted; the kernel's
    run-queue count takes it out, and what is left is the spin's own time.
    """
    import multiprocessing as mp
    import time
    from types import SimpleNamespace

    from probes.throughput import ThroughputProbe

    cpu = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    ctx = mp.get_context("fork")
    stop = ctx.Event()
    child = ctx.Process(target=_spin_on, args=(cpu, stop), daemon=True)
    child.start()
    os.sched_setaffinity(0, {cpu})
    try:
        time.sleep(0.05)  # the child is spinning on the same CPU
        p = ThroughputProbe()
        run = SimpleNamespace(sampled=True)
        p.attach(run)
        p.step_end(run)
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 0.2:
            pass
        p.forward_pre(run, None)
        wall = time.perf_counter() - t0
        p.detach(run)
    finally:
        os.sched_setaffinity(0, before)
        stop.set()
        child.join(5)
    # sharing one CPU with a spinner, about half the wall time is preempted (the kernel's slices vary)
    assert p.data[-1] < 0.8 * wall, (p.data[-1], wall)


def _spin_on(cpu: int, stop: object) -> None:
    os.sched_setaffinity(0, {cpu})
    while not stop.is_set():  # type: ignore[attr-defined]
        pass


def test_a_window_multiplier_far_below_one_speaks_for_the_run_even_after_it_recovers():
    from probes import loss_scale

    assert loss_scale.window_multiplier([float("nan"), 1.02, 0.98, 1.0]) == pytest.approx(1.0)
    assert loss_scale.window_multiplier([float("nan"), 0.0]) is None
    healthy = loss_scale.observe_multiplier(None, (400, 1.0))
    assert healthy[0].value == 1.0 and healthy[0].step == 400
    collapsed = loss_scale.observe_multiplier((1600, 2.0 ** -40), (2400, 1.0))
    assert collapsed[0].value == 2.0 ** -40 and collapsed[0].evidence["latest"] == 1.0
    assert loss_scale.observe_multiplier(None, None) == []


@pytest.mark.parametrize("shape", [(512, 512), (1000, 64), (300,), (7, 3, 33, 33)])
def test_the_update_ratio_read_on_a_subset_matches_the_whole_tensor(shape):
    from probes.update_ratio import SUBSET, host_ratios, subset, update_norms

    torch.manual_seed(0)
    p = torch.nn.Parameter(torch.randn(shape))
    opt = torch.optim.AdamW([p], lr=1e-3)
    p.grad = torch.randn(shape)
    opt.step()  # Adam's first step moves every entry by about the LR: a second one with a new gradient
    full_before = p.detach().clone()
    before = torch._foreach_mul(subset([p]), 1.0)
    p.grad = torch.randn(shape)
    opt.step()
    after = subset([p])
    assert after[0].numel() < 2 * SUBSET  # about SUBSET entries (the stride is n // SUBSET or a little more)
    est = host_ratios(update_norms(before, after, consume=True).tolist())[0]
    full = host_ratios(update_norms([full_before], [p.detach()]).tolist())[0]
    assert est == pytest.approx(full, rel=0.05)
    # a matrix's subset walks through all its columns, not the same few in every row
    index = subset([torch.arange(p.numel()).reshape(shape)])[0]
    assert len(set((index % shape[-1]).tolist())) == min(shape[-1], index.numel())
