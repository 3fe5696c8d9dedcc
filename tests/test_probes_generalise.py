"""Probes that hold beyond MLP-shaped models (issue 17): broadcast tokens are not weight matrices, and a loss built
of torch losses (multi-task heads, tuple outputs) has its output/target contracts judged at each term.

The models here are written for these tests (a learned-query pooling model and a two-head model); they are not
the held-out ``tests.zoo.outside`` families, which stay untuned.
"""

from __future__ import annotations

import warnings
from collections import namedtuple

import pytest
import torch
from torch import nn

from expert.consultation import Consultation
from probes import examine, watch
from probes.config_lint import composite_kind, inner_losses
from probes.output_target import composite_contract, contract, inner_calls, reduction_of
from probes.update_ratio import weight_matrix

# ------------------------------------------------------------------------------------------ weight matrices


@pytest.mark.parametrize(("name", "shape", "expect"), [
    ("fc.weight", (16, 8), True), ("head.weight", (1, 32), True), ("rnn.weight_ih_l0", (96, 8), True),
    ("attn.in_proj_weight", (96, 32), True), ("W", (8, 8), True), ("conv.weight", (8, 1, 3, 3), True),
    ("cls_token", (1, 1, 32), False), ("pos_embed", (1, 17, 32), False), ("query", (1, 4, 32), False),
    ("fc.bias", (16,), False), ("norm.weight", (32,), False)])
def test_weight_matrix_against_the_rule(name: str, shape: tuple[int, ...], expect: bool) -> None:
    # the naive rule: two or more dimensions, and either a layer's weight or a full tensor (no broadcast axis)
    naive = len(shape) >= 2 and ("weight" in name.split(".")[-1].lower() or all(d > 1 for d in shape))
    assert weight_matrix(name, shape) is expect is naive


class QueryPool(nn.Module):
    """Features attended by one learned query (zero-initialised, (1, 1, D)) plus learned positions: a classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(6, 24)
        self.query = nn.Parameter(torch.zeros(1, 1, 24))
        self.pos = nn.Parameter(torch.randn(1, 10, 24) * 0.02)
        self.attn = nn.MultiheadAttention(24, 2, batch_first=True)
        self.head = nn.Linear(24, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x) + self.pos
        q = self.query.expand(len(x), -1, -1) + h.mean(1, keepdim=True)
        return self.head(self.attn(q, h, h, need_weights=False)[0][:, 0])


def _pool_batch(n: int = 64, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 3, (n,), generator=g)
    x = torch.randn(n, 10, 6, generator=g)
    x[:, :, 0] += y[:, None].float()
    return x, y


def _warned(obs: list) -> set[str]:
    c = Consultation()
    c.add(obs)
    c.run()
    return {f["id"] for f in c.diagnosis.findings if f["severity"] in ("warning", "critical")}


def _warmup(opt: torch.optim.Optimizer, steps: int = 100) -> torch.optim.lr_scheduler.LRScheduler:
    from torch.optim import lr_scheduler as S

    return S.SequentialLR(opt, [S.LinearLR(opt, 0.1, 1.0, 10), S.CosineAnnealingLR(opt, steps - 10)], [10])


@pytest.mark.parametrize("mult", [1.0, 300.0])
def test_a_zero_initialised_query_token_is_no_lr_verdict(mult: float) -> None:
    torch.manual_seed(0)
    model = QueryPool()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3 * mult)
    x, y = _pool_batch()
    found = _warned(examine(model, nn.CrossEntropyLoss(), (x, y), opt, scheduler=_warmup(opt)))
    # the query's updates are a large fraction of a tensor that starts at zero at any LR; the matrices decide
    assert ("MS-UPD-01" in found) is (mult > 1.0)


def test_watch_of_a_healthy_token_model_warns_nothing() -> None:
    torch.manual_seed(0)
    model = QueryPool()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    sched = _warmup(opt, 60)
    loss_fn = nn.CrossEntropyLoss()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with watch(model, opt, Consultation(), every=10, loss_fn=loss_fn, num_classes=3, scheduler=sched) as w:
            for step in range(60):
                x, y = _pool_batch(32, step)
                opt.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
                sched.step()
                w.step(loss.detach())
    assert "MS-UPD-01" not in {f["id"] for f in w.consultation.diagnosis.findings}


# ------------------------------------------------------------------------------------------ composite losses


class TwoHeads(nn.Module):
    """A shared trunk, class logits (N, 3) and a value (N, 1), returned as a tuple."""

    def __init__(self, softmax: bool = False) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(5, 24), nn.ReLU())
        self.cls, self.val = nn.Linear(24, 3), nn.Linear(24, 1)
        self.softmax = softmax

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(x)
        logits = self.cls(h)
        return (torch.softmax(logits, 1) if self.softmax else logits), self.val(h)


class ClassAndValue(nn.Module):
    """Cross-entropy on the class head plus a weighted L1 on the value; targets are (class, value) columns."""

    def __init__(self, reduction: str = "mean", flat_value: bool = False) -> None:
        super().__init__()
        self.ce, self.l1 = nn.CrossEntropyLoss(reduction=reduction), nn.L1Loss(reduction=reduction)
        self.flat_value = flat_value

    def forward(self, out: tuple[torch.Tensor, torch.Tensor], y: torch.Tensor) -> torch.Tensor:
        value = y[:, 1] if self.flat_value else y[:, 1:]
        return self.ce(out[0], y[:, 0].long()) + 0.5 * self.l1(out[1], value)


def _two_batch(n: int = 32, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 5, generator=g)
    cls = (x[:, :3]).argmax(1)
    return x, torch.stack([cls.float(), x[:, 3] - x[:, 4]], 1)


def test_inner_losses_and_the_kind_that_speaks_for_them() -> None:
    loss = ClassAndValue()
    assert [n for n, _ in inner_losses(loss)] == ["cross_entropy", "l1"]
    assert composite_kind(loss) == "cross_entropy"
    # a built-in loss or a plain function is no composite
    assert inner_losses(nn.MSELoss()) == [] and inner_losses(lambda o, y: (o - y).abs().mean()) == []
    assert composite_kind(nn.Module()) is None


def test_inner_calls_record_what_each_term_receives() -> None:
    model, loss = TwoHeads(), ClassAndValue(flat_value=True)
    x, y = _two_batch()
    out = model(x)
    calls = inner_calls(loss, out, y)
    assert [c[0] for c in calls] == ["cross_entropy", "l1"]
    # the naive reference: the terms got the heads and the columns the loss cuts
    assert torch.equal(calls[0][2], out[0]) and torch.equal(calls[0][3], y[:, 0].long())
    assert torch.equal(calls[1][2], out[1]) and torch.equal(calls[1][3], y[:, 1])
    res = composite_contract({}, calls)
    assert res["target_shape"][0] == "broadcast" and "l1" in res["target_shape"][1]["loss_term"]
    # no hook is left on the terms
    assert not loss.ce._forward_hooks and not loss.l1._forward_hooks


def test_a_healthy_term_does_not_hide_a_broken_one() -> None:
    ok = {"target_shape": ("matches", {}), "loss_reduction": ("mean", {})}
    calls = [("mse", nn.MSELoss(reduction="sum"), torch.randn(8, 1), torch.randn(8, 1))]
    res = composite_contract(ok, calls)
    assert res["loss_reduction"][0] == "sum" and res["target_shape"][0] == "matches"


@pytest.mark.parametrize(("reduce", "expect"), [("sum", "sum"), ("mean", "mean")])
def test_reduction_of_a_tuple_output(reduce: str, expect: str) -> None:
    def vae_like(out: tuple[torch.Tensor, torch.Tensor], x: torch.Tensor) -> torch.Tensor:
        rec, mu = out
        per = ((rec - x) ** 2).sum(1) + (mu ** 2).sum(1)
        return per.sum() if reduce == "sum" else per.mean()

    x = torch.randn(16, 4)
    out = (torch.randn(16, 4), torch.randn(16, 2))
    assert reduction_of(vae_like, out, x) == expect
    # the naive reference: the loss of the whole against the losses of the two halves
    whole = float(vae_like(out, x))
    halves = float(vae_like((out[0][:8], out[1][:8]), x[:8])) + float(vae_like((out[0][8:], out[1][8:]), x[8:]))
    assert (abs(halves - whole) < 1e-3 * abs(whole)) is (expect == "sum")
    assert "loss_reduction" in contract(out, x, "custom", None, vae_like)


def _examine_two(model: nn.Module, loss: nn.Module, opt_kind: str = "adam") -> set[str]:
    torch.manual_seed(0)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9) if opt_kind == "sgd" else \
        torch.optim.Adam(model.parameters(), lr=3e-3)
    return _warned(examine(model, loss, _two_batch(), opt))


def test_composite_loss_faults_are_found_at_their_term() -> None:
    torch.manual_seed(0)
    assert "MS-ACT-01" in _examine_two(TwoHeads(softmax=True), ClassAndValue())
    torch.manual_seed(0)
    assert "DT-SHAPE-01" in _examine_two(TwoHeads(), ClassAndValue(flat_value=True))
    torch.manual_seed(0)
    assert "MS-RED-01" in _examine_two(TwoHeads(), ClassAndValue(reduction="sum"), "sgd")


def test_a_healthy_two_head_model_is_not_warned() -> None:
    torch.manual_seed(0)
    found = _examine_two(TwoHeads(), ClassAndValue())
    assert not found & {"MS-ACT-01", "DT-SHAPE-01", "MS-RED-01"}
    torch.manual_seed(0)
    # a summed loss under Adam is no fault (Adam's step does not scale with the loss)
    assert "MS-RED-01" not in _examine_two(TwoHeads(), ClassAndValue(reduction="sum"))


def _watched(model: nn.Module, loss: nn.Module, steps: int) -> object:
    """A real Adam run of ``steps`` two-head batches under ``watch``; the watch, closed, for its readings."""
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with watch(model, opt, Consultation(), every=10, loss_fn=loss) as w:
            for step in range(steps):
                x, y = _two_batch(32, step)
                opt.zero_grad()
                out = loss(model(x), y)
                out.backward()
                opt.step()
                w.step(out.detach())
    return w


def _watch_two(model: nn.Module, loss: nn.Module, steps: int = 40) -> set[str]:
    torch.manual_seed(0)
    w = _watched(model, loss, steps)
    assert not loss.ce._forward_hooks and not loss.l1._forward_hooks  # hooks removed on exit
    return {f["id"] for f in w.consultation.diagnosis.findings if f["severity"] in ("warning", "critical")}


def test_watch_finds_a_broken_term_in_a_real_run() -> None:
    torch.manual_seed(0)
    assert "MS-ACT-01" in _watch_two(TwoHeads(softmax=True), ClassAndValue())
    torch.manual_seed(0)
    assert "DT-SHAPE-01" in _watch_two(TwoHeads(), ClassAndValue(flat_value=True))
    torch.manual_seed(0)
    assert not _watch_two(TwoHeads(), ClassAndValue()) & {"MS-ACT-01", "DT-SHAPE-01", "MS-RED-01"}


def test_examine_with_a_composite_loss_leaves_the_model_as_found() -> None:
    torch.manual_seed(0)
    model, loss = TwoHeads(), ClassAndValue()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    examine(model, loss, _two_batch(), opt)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert all(p.grad is None for p in model.parameters()) and not opt.state
    assert not loss.ce._forward_hooks and not loss.l1._forward_hooks


class Counting(ClassAndValue):
    """A stateful loss: a call counter and a running mean of the loss in a buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.calls, self.scale = 0, 1.0
        self.register_buffer("running", torch.zeros(()))

    def forward(self, out: tuple[torch.Tensor, torch.Tensor], y: torch.Tensor) -> torch.Tensor:
        loss = super().forward(out, y) * self.scale
        self.calls += 1
        self.scale *= 0.5
        with torch.no_grad():
            self.running.mul_(0.9).add_(0.1 * loss.detach())
        return loss


def test_examine_leaves_a_stateful_loss_module_as_found() -> None:
    torch.manual_seed(0)
    model, loss = TwoHeads(), Counting()
    loss.running.fill_(0.25)
    x, y = _two_batch()
    calls = inner_calls(loss, model(x), y)
    assert len(calls) == 2  # the terms were still recorded
    assert (loss.calls, loss.scale, float(loss.running)) == (0, 1.0, 0.25)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    examine(model, loss, (x, y), opt)  # examine calls the loss several times: all of them undone
    assert (loss.calls, loss.scale, float(loss.running)) == (0, 1.0, 0.25)
    assert not loss._forward_hooks and not loss.ce._forward_hooks



Heads = namedtuple("Heads", ["logits", "value"])


class NamedHeads(TwoHeads):
    """TwoHeads returning its heads as a namedtuple (a user's ``Out(logits, aux)``)."""

    def forward(self, x: torch.Tensor) -> Heads:  # type: ignore[override]
        return Heads(*super().forward(x))


class WithRegulariser(ClassAndValue):
    """ClassAndValue plus a scalar regulariser: an inner MSE on 0-d tensors (the value head's mean towards 0)."""

    def __init__(self) -> None:
        super().__init__()
        self.mse = nn.MSELoss()

    def forward(self, out: tuple[torch.Tensor, torch.Tensor], y: torch.Tensor) -> torch.Tensor:
        return super().forward(out, y) + 0.1 * self.mse(out[1].mean(), torch.tensor(0.0))


@pytest.mark.parametrize("loss_cls", [ClassAndValue, WithRegulariser])
def test_a_namedtuple_output_and_a_scalar_term_under_watch(loss_cls: type) -> None:
    torch.manual_seed(0)
    model, loss = NamedHeads(), loss_cls()
    w = _watched(model, loss, 30)
    assert "output_target" not in w.switched_off  # the probe ran through: nothing raised in its hooks
    names = {o.name for o in w.observations()}
    assert {"target_shape", "loss_reduction"} <= names  # the terms and the whole namedtuple were judged
    assert not {f["id"] for f in w.consultation.diagnosis.findings} & {"MS-ACT-01", "DT-SHAPE-01", "MS-RED-01"}


def test_a_namedtuple_output_with_a_scalar_term_under_examine() -> None:
    torch.manual_seed(0)
    healthy = _examine_two(NamedHeads(), WithRegulariser())
    assert not healthy & {"MS-ACT-01", "DT-SHAPE-01", "MS-RED-01"}
    torch.manual_seed(0)
    assert "MS-ACT-01" in _examine_two(NamedHeads(softmax=True), WithRegulariser())  # the broken term still found
    x = torch.randn(16, 3)
    out = Heads(torch.randn(16, 3), torch.randn(16, 1))
    assert reduction_of(lambda o, t: ((o.logits - t) ** 2).sum() + (o.value ** 2).sum(), out, x) == "sum"
    calls = inner_calls(WithRegulariser(), out, torch.zeros(16, 2))
    assert [c[0] for c in calls] == ["cross_entropy", "l1"]  # the 0-d term is not recorded
    assert composite_contract({}, [("mse", nn.MSELoss(), torch.tensor(1.0), torch.tensor(0.0))]) == {}


def test_a_loss_hook_that_raises_switches_the_probe_off_not_the_training(monkeypatch: pytest.MonkeyPatch) -> None:
    import probes.output_target as ot

    def broken(out: object, parts: list) -> object:
        raise RuntimeError("unforeseen output")

    monkeypatch.setattr(ot, "rebuild", broken)
    torch.manual_seed(0)
    model, loss = NamedHeads(), ClassAndValue()
    w = _watched(model, loss, 12)
    assert "unforeseen output" in w.switched_off["output_target"]
    assert not loss._forward_hooks and not loss.ce._forward_hooks

# ------------------------------------------------------------------------------------------ LR of 0 under a schedule


def _sched(kind: str, opt: torch.optim.Optimizer) -> object:
    from torch.optim import lr_scheduler as S

    return {"warmup": lambda: S.LinearLR(opt, 0.1, 1.0, 10),
            "warmup_cosine": lambda: _warmup(opt),
            "step": lambda: S.StepLR(opt, 10, 0.5),
            "plateau": lambda: S.ReduceLROnPlateau(opt),
            "cosine_floor": lambda: S.CosineAnnealingLR(opt, 50, eta_min=1e-4),
            "lambda_warmup": lambda: S.LambdaLR(opt, lambda s: min(1.0, s / 10))}[kind]()


@pytest.mark.parametrize(("lr", "kind", "stuck"), [
    (0.0, "warmup", True), (0.0, "warmup_cosine", True), (0.0, "step", True), (0.0, "plateau", True),
    # a cosine with a floor above 0 rises to it; a warmup from a positive LR leaves 0 at the next step
    (0.0, "cosine_floor", False), (1e-2, "lambda_warmup", False)])
def test_an_lr_of_zero_under_a_schedule(lr: float, kind: str, stuck: bool) -> None:
    from probes.lr_applied import stuck_at_zero

    torch.manual_seed(0)
    model = QueryPool()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    sched = _sched(kind, opt)
    # the naive reference: step a copy of the schedule and read the LR it applies
    ref_opt = torch.optim.AdamW(QueryPool().parameters(), lr=lr)
    ref = _sched(kind, ref_opt)
    seen = []
    for _ in range(30):
        ref_opt.step()
        ref.step(1.0) if kind == "plateau" else ref.step()  # type: ignore[attr-defined]
        seen.append(ref_opt.param_groups[0]["lr"])
    assert (max(seen) == 0.0) is stuck
    assert bool(stuck_at_zero(opt, sched)) is stuck or opt.param_groups[0]["lr"] != 0.0
    found = _warned(examine(model, nn.CrossEntropyLoss(), _pool_batch(), opt, scheduler=sched))
    assert ("MS-LR0-01" in found) is stuck
