"""The issue-18 probes against naive references: outputs vs targets, optimizer settings, layers, LR, clipping."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from probes import clipping, layer_lint, lr_applied, opt_hparams, output_target
from probes.exam import examine
from tests.zoo import families as F


def _obs(obs: list) -> dict:
    return {o.name: o.value for o in obs}


# ------------------------------------------------------------------------------------------ outputs vs targets


def test_shape_broadcast_is_told_from_matching_shapes() -> None:
    out = torch.randn(8, 1)
    assert output_target.contract(out, torch.randn(8), "mse")["target_shape"][0] == "broadcast"
    assert output_target.contract(out, torch.randn(8, 1), "mse")["target_shape"][0] == "matches"
    # torch's own broadcast agrees with the verdict: MSELoss of (8, 1) against (8,) compares 64 pairs
    with pytest.warns(UserWarning):
        assert nn.MSELoss(reduction="none")(out, torch.randn(8)).shape == (8, 8)


def test_targets_a_bounded_head_cannot_reach() -> None:
    model = nn.Sequential(nn.Linear(3, 1), nn.Sigmoid())
    x = torch.randn(16, 3)
    out = model(x)
    far = torch.linspace(-2, 2, 16).unsqueeze(1)
    near = torch.rand(16, 1)
    assert output_target.contract(out, far, "mse", model)["target_range"][0] == "outside_activation"
    assert output_target.contract(out, near, "mse", model)["target_range"][0] == "inside"
    # an unbounded head reaches anything: no verdict
    assert "target_range" not in output_target.contract(out, far, "mse", nn.Linear(3, 1))


def test_bce_targets_outside_zero_one() -> None:
    logits = torch.randn(10, 1)
    signed = torch.randint(0, 2, (10, 1)).float() * 2 - 1
    assert output_target.contract(logits, signed, "bce_with_logits")["target_range"][0] == "outside_loss"
    assert output_target.contract(logits, (signed + 1) / 2, "bce_with_logits")["target_range"][0] == "inside"
    # the naive reference: BCE-with-logits accepts -1 targets silently and can go negative
    bad = nn.functional.binary_cross_entropy_with_logits(torch.full((4, 1), 5.0), -torch.ones(4, 1))
    assert float(bad) < 0 or float(bad) > 0  # no error raised: the range check is the only guard


@pytest.mark.parametrize(("shape", "dim", "expect"), [((8, 4), 1, "class"), ((8, 4), 0, "other"),
                                                       ((8, 4, 6), 1, "class"), ((8, 4, 6), -1, "other")])
def test_normalised_dimension(shape: tuple[int, ...], dim: int, expect: str) -> None:
    out = torch.log_softmax(torch.randn(*shape), dim=dim)
    assert output_target.contract(out, torch.zeros(shape[0], dtype=torch.long), "nll")["output_norm_dim"][0] == expect
    # the naive reference: exp sums to one along exactly the normalised dimension
    assert torch.allclose(out.exp().sum(dim), torch.ones(()), atol=1e-5)


def test_target_kinds() -> None:
    out = torch.randn(6, 5)
    hot = nn.functional.one_hot(torch.arange(6) % 5, 5).float()
    multi = hot.clone()
    multi[:, 0] = 1.0
    assert output_target.target_kind(out, hot, "cross_entropy") == "one_hot"
    assert output_target.target_kind(out, multi, "cross_entropy") == "multi_hot"
    assert output_target.target_kind(out, torch.softmax(torch.randn(6, 5), 1), "cross_entropy") == "probabilities"
    assert output_target.target_kind(out, torch.arange(6) % 5, "cross_entropy") == "class_index"
    # integer labels into a regression loss: MSELoss computes on them silently (class ids fitted as numbers)
    col = torch.randn(6, 1, requires_grad=True)
    labels = (torch.arange(6) % 3).unsqueeze(1)
    torch.nn.functional.mse_loss(col, labels).backward()  # no error: the fault is silent
    assert output_target.target_kind(col, labels, "mse") == "integer"
    assert output_target.target_kind(col, labels.float(), "mse") == "continuous"
    res = output_target.contract(col.detach(), labels, "mse")
    assert res["target_kind"][1]["target_dtype"] == "int64" and res["target_kind"][1]["output_dtype"] == "float32"


def test_reduction_from_the_module_and_from_the_function() -> None:
    out, y = torch.randn(12, 3), torch.randint(0, 3, (12,))
    assert output_target.reduction_of(nn.CrossEntropyLoss(reduction="sum")) == "sum"
    assert output_target.reduction_of(nn.CrossEntropyLoss()) == "mean"

    def summed(o: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(o, t, reduction="none").sum()

    def averaged(o: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(o, t)

    assert output_target.reduction_of(summed, out, y) == "sum"
    assert output_target.reduction_of(averaged, out, y) == "mean"


def test_sortedness_against_a_naive_count() -> None:
    # four batches each of one class out of four balanced classes: fully sorted
    pooled = [8.0, 8.0, 8.0, 8.0]
    assert output_target.sortedness([1.0, 1.0, 1.0, 1.0], pooled) == pytest.approx(1.0)
    # batches with the data's own mix: not sorted
    assert output_target.sortedness([0.25] * 4, pooled) == pytest.approx(0.0)
    # naive: (mean purity - pooled majority) / (1 - pooled majority)
    assert output_target.sortedness([0.5, 0.75, 0.5, 0.75], pooled) == pytest.approx((0.625 - 0.25) / 0.75)
    assert output_target.sortedness([1.0, 1.0], pooled) is None  # too few batches


def _watch(cfg: F.FConfig) -> dict:
    v = F.FVariant("t", cfg, cfg.fam)
    return F.watch_variant(v).observations


def test_watch_sees_class_sorted_batches_and_not_shuffled_ones() -> None:
    sorted_run = _watch(F.FConfig(fam="text_bag", order="sorted", steps=20))
    mixed_run = _watch(F.FConfig(fam="text_bag", steps=20))
    assert sorted_run["label_sortedness"].value >= 0.8
    assert mixed_run["label_sortedness"].value < 0.5


# ------------------------------------------------------------------------------------------ optimizer settings


def test_adam_betas_and_sgd_settings() -> None:
    p = [nn.Parameter(torch.zeros(2))]
    assert opt_hparams.judge(torch.optim.Adam(p, betas=(0.999, 0.9)))["adam_betas"][0] == "swapped"
    assert opt_hparams.judge(torch.optim.Adam(p, betas=(0.9, 0.5)))["adam_betas"][0] == "beta2_low"
    assert opt_hparams.judge(torch.optim.AdamW(p, betas=(0.9, 0.95)))["adam_betas"][0] == "usual"
    sgd = opt_hparams.judge(torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=0.1))
    assert sgd["sgd_momentum"][0] == pytest.approx(0.9)
    assert sgd["decay_per_step"][0] == pytest.approx(0.05 * 0.1 / (1 - 0.9))
    assert opt_hparams.judge(torch.optim.AdamW(p, lr=1e-3, weight_decay=0.1))["decay_per_step"][0] == \
        pytest.approx(1e-4)
    # Adam's coupled L2 term has no per-step size to read
    assert "decay_per_step" not in opt_hparams.judge(torch.optim.Adam(p, weight_decay=0.1))


def test_decay_per_step_matches_what_sgd_does_to_the_weights() -> None:
    # naive reference: with a zero gradient SGD's decay shrinks w by lr * wd per step, momentum building to
    # 1 / (1 - momentum) of it
    w = nn.Parameter(torch.ones(4))
    opt = torch.optim.SGD([w], lr=0.01, momentum=0.9, weight_decay=0.1)
    for _ in range(300):
        opt.zero_grad()
        w.grad = torch.zeros(4)
        before = w.detach().clone()
        opt.step()
    shrink = float(1 - w.detach()[0] / before[0])
    # (first order: the velocity still carries the larger decay of slightly larger weights)
    assert shrink == pytest.approx(opt_hparams.judge(opt)["decay_per_step"][0], rel=0.15)


# ------------------------------------------------------------------------------------------ layers


def test_batchnorm_batch_and_dropout() -> None:
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.9), nn.Linear(8, 2))
    got = _obs(layer_lint.observe(model, 2))
    assert got == {"bn_batch": 2, "dropout_max": pytest.approx(0.9)}
    model.eval()  # running statistics: no batch statistics to judge
    assert "bn_batch" not in _obs(layer_lint.observe(model, 2))


# ------------------------------------------------------------------------------------------ the LR applied


def test_lr_fractions_against_a_count() -> None:
    lrs = [0.0, 0.0, 0.1, 1e-4, 0.1]
    fr = lr_applied.fractions(lrs, 0.1)
    assert fr["lr_zero_fraction"] == pytest.approx(2 / 5)
    assert fr["lr_low_fraction"] == pytest.approx(3 / 5)  # 0, 0 and 1e-4 are below 1% of 0.1


def _tiny() -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor]]:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)), (torch.randn(16, 4), torch.randint(0, 3, (16,)))


def test_examine_reads_an_lr_stuck_at_zero_and_leaves_a_warmup_alone() -> None:
    model, batch = _tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    stuck = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, s // 500))
    got = _obs(examine(model, nn.CrossEntropyLoss(), batch, opt, scheduler=stuck))
    assert got["lr_zero_fraction"] == 1.0
    assert opt.param_groups[0]["lr"] == 0.0  # left as found
    model, batch = _tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, s / 10))
    assert "lr_zero_fraction" not in _obs(examine(model, nn.CrossEntropyLoss(), batch, opt, scheduler=warm))


def test_examine_reports_the_lr_found_not_the_schedules_peak() -> None:
    model, batch = _tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
    for _ in range(3):
        opt.step()
        sched.step()
    obs = {o.name: o for o in examine(model, nn.CrossEntropyLoss(), batch, opt, scheduler=sched)}
    assert obs["learning_rate"].value == pytest.approx(1e-4)
    assert opt.param_groups[0]["lr"] == pytest.approx(1e-4)


def test_watch_measures_the_applied_lr_zero_included() -> None:
    got = _watch(F.FConfig(fam="text_bag", lr=0.0, steps=30))
    assert got["lr_zero_fraction"].value == 1.0
    per_batch = _watch(F.FConfig(fam="text_bag", schedule="per_batch_step", steps=60))
    # StepLR(step_size=10, gamma=0.1) stepped per batch: under 1% of the LR from step 20 on
    assert per_batch["lr_low_fraction"].value == pytest.approx(0.6, abs=0.15)


# ------------------------------------------------------------------------------------------ clipping


def test_clip_verdicts() -> None:
    assert clipping.verdict([0.25] * 6) == ("every_step", 0.25)
    assert clipping.verdict([0.25, 0.1, 0.25, 0.2, 0.05]) == ("sometimes", 0.25)
    assert clipping.verdict([0.3, 0.1, 0.25, 0.2, 0.05])[0] == "never"
    assert clipping.verdict([0.25] * 2) is None


def test_watch_sees_a_clip_that_cuts_every_step() -> None:
    v = F.FVariant("t", F.FConfig(fam="tab_regression", opt="sgd_momentum", lr=0.05, clip=1e-4, steps=40),
                   "tab_regression")
    run = F.build(v.cfg)
    from trainopt import watch

    with watch(run.model, run.optimizer, every=10, loss_fn=run.loss_fn) as w:
        F.train(run, v.cfg.steps, w)
    obs = w.consultation.observations
    assert obs["grad_clip_active"].value == "every_step"
    # naive reference: lr * max_norm / (1 - momentum) / |W| at the end of the run
    wn = math.sqrt(sum(float(p.detach().pow(2).sum()) for p in run.model.parameters()))
    assert obs["clip_step_ratio"].value == pytest.approx(0.05 * 1e-4 / 0.1 / wn, rel=0.2)
    assert "MS-CLIP-01" in {f["id"] for f in w.consultation.diagnosis.findings}


def test_clipping_reads_the_sampled_steps_global_norm_from_the_gradient_flow_norms() -> None:
    """One pass over the gradients a sampled step: the clip norms are the global norms of grad_flow's per-parameter
    norms, equal to a naive norm of the gradients the optimizer saw; alone, clipping measures them itself."""
    from probes.registry import plugins
    from trainopt import watch

    seen: list[int] = []
    for kinds in (None, ["clipping"]):
        torch.manual_seed(0)
        m = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        x, y = torch.randn(16, 6), torch.randint(0, 3, (16,))
        naive: list[float] = []
        chosen = None if kinds is None else [c for c in plugins() if c.__module__.split(".")[-1] in kinds]
        with watch(m, opt, every=8, update_every=4, plugins=chosen, loss_fn=nn.CrossEntropyLoss()) as w:
            for step in range(16):
                opt.zero_grad(set_to_none=True)
                nn.functional.cross_entropy(m(x), y).backward()
                nn.utils.clip_grad_norm_(m.parameters(), 1e-3)
                if step % 4 == 0:
                    naive.append(math.sqrt(sum(float(p.grad.double().pow(2).sum()) for p in m.parameters())))
                opt.step()
                w.step(1.0)
            probe = w.probe("clipping")
            assert (w.probe("grad_flow") is not None) == (kinds is None)
        assert probe.values == pytest.approx(naive, rel=1e-5)
        seen.append(len(probe.values))
    assert seen == [4, 4]


# ------------------------------------------------------------------------------------------ no false alarms


def test_word_language_model_recipe_is_not_lr_too_high() -> None:
    v = next(v for v in F.variants() if v.name.startswith("healthy:word_lm_sgd_lr20_clip/"))
    d = F.watch_variant(v).diagnosis
    ids = {f["id"]: f["severity"] for f in d.findings}
    assert "MS-UPD-01" not in ids
    assert not [i for i, s in ids.items() if s in ("warning", "critical")]


def test_class_count_for_a_class_dimension_that_is_not_last() -> None:
    torch.manual_seed(0)
    m = nn.Conv1d(4, 5, 1)  # (N, C, T) logits, the layout CrossEntropyLoss takes for sequences
    batch = (torch.randn(8, 4, 6), torch.randint(0, 5, (8, 6)))
    got = _obs(examine(m, nn.CrossEntropyLoss(), batch, torch.optim.SGD(m.parameters(), lr=0.1)))
    assert got["num_classes"] == 5
    # naive reference: an untrained model's per-position loss is near ln(5)
    assert got["loss_init_ratio"] == pytest.approx(float(nn.CrossEntropyLoss()(m(batch[0]), batch[1])) / math.log(5))


def test_examine_clips_as_the_loop_does_when_told() -> None:
    model, batch = _tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [p.detach().clone() for p in model.parameters()]
    got = _obs(examine(model, nn.CrossEntropyLoss(), batch, opt, clip_norm=1e-6))
    assert got["grad_clip_active"] == "every_step"
    # examine's steps are undone: the weights are as found
    assert all(torch.equal(a, p.detach()) for a, p in zip(before, model.parameters(), strict=True))
    assert "grad_clip_active" not in _obs(examine(model, nn.CrossEntropyLoss(), batch, opt))
