"""Honest attribution: the first non-finite step, user errors are the user's, bad batches refused, flags restored."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import torch
from click.testing import CliRunner

from expert.cli import cli
from expert.consultation import Consultation
from knowledge.errors import ProbeError
from probes import examine, update_ratio
from probes.exam import UserCodeError
from probes.grad_flow import NormStats
from probes.state import fingerprint
from tests.zoo import fit_batch
from trainopt import watch

logging.getLogger("trainopt.watch").setLevel(logging.ERROR)


def _regression(lr: float) -> tuple[torch.nn.Module, torch.optim.Optimizer, tuple[torch.Tensor, torch.Tensor]]:
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    x = torch.randn(64, 8)
    return m, torch.optim.SGD(m.parameters(), lr=lr), (x, x.sum(1, keepdim=True) * 3)


def test_divergence_at_lr_5_is_not_immediate_and_not_blamed_on_the_builtin_loss():
    m, opt, batch = _regression(5.0)
    obs = {o.name: o for o in examine(m, torch.nn.MSELoss(), batch, opt, steps=10)}
    with torch.no_grad():
        init = float(torch.nn.MSELoss()(m(batch[0]), batch[1]))
    assert obs["loss_at_init"].value == pytest.approx(init, rel=1e-5)
    assert obs["nan_onset"].value == "after_steps" and obs["nan_step"].value >= 1
    assert obs["nan_location"].value != "loss"  # MSELoss only met outputs out of range
    c = Consultation()
    c.add(obs.values())
    d = c.run()
    assert "MS-NAN-02" not in {f["id"] for f in d.findings}


def test_a_nan_from_a_hand_written_loss_is_the_loss():
    m, opt, (x, _) = _regression(0.01)

    def bad_loss(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.log(out - out).mean()  # log 0

    obs = {o.name: o.value for o in examine(m, bad_loss, (x, torch.zeros(64, 1)), opt)}
    assert obs["nan_location"] == "loss" and obs["nan_onset"] == "immediate"


class Tupled(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.fc(x), x


def test_user_errors_name_the_call_and_the_users_frame_and_leave_state_as_found():
    m = Tupled()
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    batch = (torch.randn(8, 4), torch.randint(0, 3, (8,)))
    before = fingerprint(m, opt)
    with pytest.raises(UserCodeError) as e:
        examine(m, torch.nn.CrossEntropyLoss(), batch, opt)
    assert e.value.exit_code == 2 and "loss_fn(output, targets)" in e.value.message and "tuple" in e.value.hint
    assert fingerprint(m, opt) == before

    def raising_loss(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        raise ValueError("my loss is broken")

    with pytest.raises(UserCodeError) as e:
        examine(m, raising_loss, batch, opt)
    assert "my loss is broken" in e.value.message and "test_probes_attribution.py" in (e.value.frame or "")
    assert fingerprint(m, opt) == before


def test_lbfgs_is_stepped_with_a_closure_and_restored():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    opt = torch.optim.LBFGS(m.parameters(), lr=0.5, max_iter=3)
    batch = (torch.randn(16, 4), torch.randint(0, 3, (16,)))
    before = fingerprint(m, opt)
    obs = {o.name for o in examine(m, torch.nn.CrossEntropyLoss(), batch, opt)}
    assert "update_ratio" in obs
    assert fingerprint(m, opt) == before


@pytest.mark.parametrize("batch", [(torch.randn(0, 4), torch.randint(0, 3, (0,))),
                                   (torch.randn(8, 4), torch.randint(0, 3, (5,)))], ids=["empty", "mismatched"])
def test_bad_batches_are_refused(batch):
    with pytest.raises(ProbeError, match="empty|different numbers"):
        examine(torch.nn.Linear(4, 3), torch.nn.CrossEntropyLoss(), batch)


def test_watch_refuses_an_empty_batch_instead_of_reading_a_nan_loss():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    x, y = torch.randn(32, 4), torch.randint(0, 3, (32,))
    with watch(m, opt, every=5) as w:
        for i in range(20):
            xb, yb = (x[:0], y[:0]) if i == 7 else (x, y)
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(xb), yb)
            loss.backward()
            opt.step()
            w.step(loss)
    assert w.empty_batches == 1
    assert "nan_location" not in w.consultation.observations


def test_examine_removes_the_flags_a_scheduler_step_sets():
    m = torch.nn.Linear(4, 3)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 5)
    assert not getattr(opt, "_opt_called", False)
    examine(m, torch.nn.CrossEntropyLoss(), (torch.randn(8, 4), torch.randint(0, 3, (8,))), opt, scheduler=sched)
    assert not getattr(opt, "_opt_called", False)  # PyTorch's scheduler-order warning still works


def test_a_builtin_loss_in_the_users_own_function_is_named_by_its_values():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Softmax(dim=1))

    def my_loss(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.cross_entropy(out, y)

    obs = examine(m, my_loss, (torch.randn(16, 4), torch.randint(0, 3, (16,))), torch.optim.Adam(m.parameters()))
    c = Consultation()
    c.add(obs)
    assert c.observations["loss_fn"].value == "cross_entropy"
    assert "MS-ACT-01" in {f["id"] for f in c.run().findings}


def test_one_layer_far_too_high_is_judged_per_layer():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.ReLU(),
                            torch.nn.Linear(64, 4))
    opt = torch.optim.Adam([{"params": list(m[0].parameters()) + list(m[2].parameters()), "lr": 1e-3},
                            {"params": m[4].parameters(), "lr": 0.5}])
    obs = {o.name: o for o in examine(m, torch.nn.CrossEntropyLoss(),
                                      (torch.randn(32, 16), torch.randint(0, 4, (32,))), opt)}
    ur = obs["update_ratio"]
    assert ur.evidence["median"] < 0.1 < ur.value and ur.evidence["worst_layer"] == "4.weight"


def test_update_ratio_phases_keep_the_blow_up_over_the_dead_stretch_after_it():
    ph = update_ratio.Phases()
    names, mats = ["a.weight", "b.weight"], [True, True]
    for step, v in ((50, 1e-3), (100, 0.2), (150, 0.25), (200, 1e-7), (250, 1e-7)):
        ph.update([v, v], names, mats, 0.1, step)
    s = ph.summary()
    assert s is not None and s["value"] == pytest.approx(0.2) and s["step"] == 100


def test_an_annealed_lr_is_judged_at_its_peak():
    ph = update_ratio.Phases()
    ph.update([1e-3, 1e-3], ["a", "b"], [True, True], 0.1, 50)
    ph.update([1e-6, 1e-6], ["a", "b"], [True, True], 1e-4, 100)  # cosine end: 1000x smaller LR, same run
    s = ph.summary()
    assert s is not None and threshold_low() < float(s["value"])


def threshold_low() -> float:
    from knowledge.measurements import threshold

    return threshold("MT-UPD-LOW")


def test_gradient_norms_keep_the_first_step_and_ignore_nan():
    st = NormStats()
    st.update([(0, 4e3)] + [(i, 1.0) for i in range(1, 50)])
    assert st.headline() == (4e3, 0)
    st2 = NormStats()
    st2.update([(i, 1.0) for i in range(30)] + [(30, float("nan"))])
    assert st2.nonfinite_step == 30 and st2.headline()[0] == pytest.approx(1.0)


def test_watch_observations_carry_the_step_they_were_measured_at():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    with watch(m, opt, every=10) as w:
        fit_batch(m, opt, x, y, 30, w)
    o = w.consultation.observations
    assert o["loss_behavior"].step == 30 and o["loss_at_init"].step == 0
    assert o["loss_behavior"].as_dict()["step"] == 30


def test_accumulation_micro_batches_are_counted():
    from tests.zoo.generated import Config, build, train

    run = build(Config(arch="mlp", opt="adamw", accum=4, steps=30))
    with watch(run.model, run.optimizer, every=10, loss_fn=run.loss_fn) as w:
        train(run, 30, w)
    assert w.consultation.observations["grad_accum_steps"].value == 4


IMPORT_ERROR = "import not_a_module_anywhere\n"
TUPLE_MODEL = '''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
    def forward(self, x):
        return self.fc(x), x
def trainopt_target():
    m = M()
    return dict(model=m, loss_fn=torch.nn.CrossEntropyLoss(), batch=(torch.randn(8, 4), torch.randint(0, 3, (8,))),
                optimizer=torch.optim.SGD(m.parameters(), lr=0.1))
'''


@pytest.mark.parametrize("script,needle", [(IMPORT_ERROR, "not_a_module_anywhere"),
                                           (TUPLE_MODEL, "loss_fn(output, targets)")], ids=["import", "tuple"])
def test_examine_command_user_errors_exit_2_with_the_users_frame(tmp_path, script, needle):
    p = tmp_path / "target.py"
    p.write_text(script)
    r = CliRunner().invoke(cli, ["examine", str(p)])
    assert r.exit_code == 2, r.output
    assert needle in r.output and "internal error" not in r.output
    if script is IMPORT_ERROR:
        assert "target.py:1" in r.output  # the last frame in the user's code
    else:
        assert "tuple" in r.output


def test_healthy_habits_give_no_warning_under_watch_or_examine():
    from tests.zoo.generated import HEALTHY, Variant, _fix_habits, examine_variant, watch_variant
    from tests.zoo.generated import Config as Cfg

    rng = np.random.default_rng(0)
    archs = ("mlp", "cnn", "lstm", "transformer")
    for i, (name, change) in enumerate(HEALTHY):
        arch = archs[(i + int(rng.integers(4))) % 4]
        if arch == "lstm" and "amp" in change:
            arch = "mlp"
        v = Variant(name, _fix_habits(Cfg(arch=arch, seed=0).__class__(**{**Cfg(arch=arch).__dict__, **change})))
        for fn in (watch_variant, examine_variant):
            d = fn(v).diagnosis
            bad = {f["id"]: f["severity"] for f in d.findings if f["severity"] != "info"}
            assert not bad, f"{name}/{arch} under {fn.__name__}: {bad}"


def test_an_examine_before_training_leaves_no_init_time_metrics_beside_the_end_of_run_ones():
    torch.manual_seed(0)
    protos = torch.randn(4, 16) * 2

    def data(n: int, s: int) -> tuple[torch.Tensor, torch.Tensor]:
        g = torch.Generator().manual_seed(s)
        y = torch.randint(0, 4, (n,), generator=g)
        return protos[y] + torch.randn(n, 16, generator=g), y

    (x, y), (vx, vy) = data(256, 0), data(256, 1)
    m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    c = Consultation()
    c.add(examine(m, torch.nn.CrossEntropyLoss(), (x, y), opt, val_batch=(vx, vy)))
    assert {"train_metric", "generalization_gap"} <= set(c.observations)  # measured at init
    with watch(m, opt, consultation=c, every=10, loss_fn=torch.nn.CrossEntropyLoss()) as w:
        for i in range(60):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            with torch.no_grad():
                metrics = {"val_acc": float((m(vx).argmax(1) == vy).float().mean())} if i % 10 == 9 else {}
            w.step(loss, **metrics)
    o = c.observations
    assert "train_metric" not in o and "generalization_gap" not in o  # superseded, not left beside
    assert o["val_metric"].step == 60 and o["val_metric"].value > 0.9
    assert all(v.step is not None for k, v in o.items() if v.source == "probe:generalization")


def test_examine_at_the_end_of_a_schedule_measures_the_peak_lr_and_puts_the_lr_back():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
    opt = torch.optim.AdamW(m.parameters(), lr=1e-8)  # far too low at its peak
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    for _ in range(10):
        opt.step()
        sched.step()
    assert opt.param_groups[0]["lr"] < 1e-12  # the annealed end: steps here move nothing
    batch = (torch.randn(32, 8), torch.randint(0, 3, (32,)))
    before = fingerprint(m, opt)
    obs = {o.name: o for o in examine(m, torch.nn.CrossEntropyLoss(), batch, opt, scheduler=sched)}
    assert obs["update_ratio"].value < 1e-5 and obs["update_ratio"].evidence["raised_to_peak"]
    assert fingerprint(m, opt) == before and opt.param_groups[0]["lr"] < 1e-12
