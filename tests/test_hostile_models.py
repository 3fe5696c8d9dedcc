"""Odd models under `examine` and `watch`: sparse gradients, lazy, complex, parametrised, tied, quantised, meta and
torch.compile'd modules, modules with Python-side state, old-style weight_norm, a loader's own generator.

Each is measured where it can be (and left exactly as found), or refused with a clear error before anything
runs; never a crash inside the user's loop.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch
from torch import nn
from torch.nn.utils import parametrize

from knowledge.errors import ProbeError
from probes import examine, watch
from probes.state import fingerprint

LOSS = nn.CrossEntropyLoss()


def batch(n: int = 16, d: int = 4, c: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    return torch.randn(n, d, generator=g), torch.randint(0, c, (n,), generator=g)


class Bag(nn.Module):
    """An embedding with sparse gradients (the issue's crash in the user's own optimizer.step())."""

    def __init__(self) -> None:
        super().__init__()
        self.e = nn.Embedding(30, 4, sparse=True)
        self.out = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.e(x).mean(1))


def bag_batch() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(2)
    return torch.randint(0, 30, (16, 5), generator=g), torch.randint(0, 3, (16,), generator=g)


class Complex(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 3, dtype=torch.cfloat))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x.to(torch.cfloat) @ self.w).abs()


class Symmetric(nn.Module):
    def forward(self, w: torch.Tensor) -> torch.Tensor:
        return w.triu() + w.triu(1).transpose(-1, -2)


class Stateful(nn.Module):
    """forward updates Python attributes: a counter, a history list, a cache dict, an attribute it adds."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.calls = 0
        self.history: list[int] = []
        self.cache: dict[str, int] = {}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        self.history.append(self.calls)
        self.cache[f"k{self.calls}"] = self.calls
        self.last_batch = x.shape[0]
        return self.lin(x)


def parametrised() -> nn.Module:
    m = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 3))
    parametrize.register_parametrization(m[0], "weight", Symmetric())
    return m


def tied() -> nn.Module:
    m = nn.Sequential(nn.Linear(4, 4, bias=False), nn.Linear(4, 4, bias=False), nn.Linear(4, 3))
    m[1].weight = m[0].weight
    return m


def old_weight_norm() -> nn.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return nn.Sequential(nn.utils.weight_norm(nn.Linear(4, 4)), nn.ReLU(), nn.Linear(4, 3))


def new_weight_norm() -> nn.Module:
    return nn.Sequential(nn.utils.parametrizations.weight_norm(nn.Linear(4, 4)), nn.ReLU(), nn.Linear(4, 3))


def compiled() -> nn.Module:
    # The eager backend keeps the test fast and compiler-free; the wrapper (OptimizedModule) is what matters.
    return torch.compile(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)), backend="eager")


CASES = {
    "sparse_sgd": (Bag, lambda m: torch.optim.SGD(m.parameters(), lr=0.1), bag_batch),
    "sparse_adam": (Bag, lambda m: torch.optim.SparseAdam(list(m.e.parameters()), lr=0.01), bag_batch),
    "complex": (Complex, lambda m: torch.optim.Adam(m.parameters(), lr=1e-3), batch),
    "parametrised": (parametrised, lambda m: torch.optim.Adam(m.parameters(), lr=1e-3), batch),
    "tied": (tied, lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9), batch),
    "stateful": (Stateful, lambda m: torch.optim.SGD(m.parameters(), lr=0.1), batch),
    "old_weight_norm": (old_weight_norm, lambda m: torch.optim.SGD(m.parameters(), lr=0.1), batch),
    "new_weight_norm": (new_weight_norm, lambda m: torch.optim.SGD(m.parameters(), lr=0.1), batch),
    "compiled": (compiled, lambda m: torch.optim.Adam(m.parameters(), lr=1e-3), batch),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_examine_measures_odd_models_and_leaves_them_exactly_as_found(case):
    make, make_opt, make_batch = CASES[case]
    torch.manual_seed(0)
    m = make()
    opt = make_opt(m)
    b = make_batch()
    m(b[0])  # a forward as the user's script would have run: derived state exists before examine
    before = fingerprint(m, opt)
    attrs = {n: dict(vars(mod)) for n, mod in m.named_modules()}
    obs = examine(m, LOSS, b, optimizer=opt)
    names = {o.name for o in obs}
    assert "loss_at_init" in names or "loss_behavior" in names, sorted(names)
    assert fingerprint(m, opt) == before
    for n, mod in m.named_modules():  # every Python attribute is the same object as before, none added
        now = vars(mod)
        assert now.keys() == attrs[n].keys(), (n, now.keys() ^ attrs[n].keys())
        assert all(now[k] is attrs[n][k] for k in now), n


def test_python_side_state_is_put_back_including_in_place_changes():
    m = Stateful()
    m.calls, m.history, m.cache = 7, [1, 2], {"a": 1}
    history, cache = m.history, m.cache
    examine(m, LOSS, batch(), optimizer=torch.optim.SGD(m.parameters(), lr=0.1))
    assert (m.calls, m.history, m.cache) == (7, [1, 2], {"a": 1})
    assert m.history is history and m.cache is cache and not hasattr(m, "last_batch")


def test_old_style_weight_norm_keeps_the_derived_weight_it_had():
    m = old_weight_norm()
    x, y = batch()
    m(x)
    w, value = m[0].weight, m[0].weight.detach().clone()
    examine(m, LOSS, (x, y), optimizer=torch.optim.SGD(m.parameters(), lr=0.5))
    assert m[0].weight is w and torch.equal(m[0].weight, value)


def test_a_loaders_own_generator_shuffles_the_same_after_examine():
    from torch.utils.data import DataLoader, TensorDataset

    ds = TensorDataset(*batch(64))

    def order(examined: bool) -> list[torch.Tensor]:
        dl = DataLoader(ds, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(123))
        if examined:
            m = nn.Linear(4, 3)
            examine(m, LOSS, batch(), optimizer=torch.optim.SGD(m.parameters(), lr=0.1), loader=dl)
        return [xb for xb, _ in dl]

    assert all(torch.equal(a, b) for a, b in zip(order(False), order(True)))


@pytest.mark.parametrize("case", ["sparse_sgd", "sparse_adam", "complex", "parametrised", "tied", "compiled",
                                  "old_weight_norm", "new_weight_norm", "stateful"])
def test_watch_never_changes_what_the_users_loop_computes(case):
    make, make_opt, make_batch = CASES[case]
    # tensors, optimizer, RNGs, and the Python state forward keeps
    assert trained(make, make_opt, make_batch, 12, True) == trained(make, make_opt, make_batch, 12, False)


def lazy() -> nn.Module:
    return nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.Linear(8, 3))


def test_lazy_modules_are_refused_before_anything_runs_and_probed_after_their_first_forward():
    m = lazy()
    opt = torch.optim.Adam(m.parameters())
    with pytest.raises(ProbeError, match="lazy parameters"):
        examine(m, LOSS, batch(), optimizer=opt)
    with pytest.raises(ProbeError, match="run one forward pass first"), watch(m, opt):
        pass
    m(batch()[0])  # initialised: now an ordinary model
    assert examine(m, LOSS, batch(), optimizer=opt)


@pytest.mark.parametrize("make,msg", [
    (lambda: nn.Linear(4, 3, device="meta"), "meta device"),
    (lambda: torch.ao.quantization.quantize_dynamic(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)),
                                                    {nn.Linear}, dtype=torch.qint8), "quantised"),
])
def test_meta_and_quantised_models_get_a_clear_refusal(make, msg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = make()
    with pytest.raises(ProbeError, match=msg):
        examine(m, LOSS, batch())


def test_a_probe_that_fails_on_a_model_is_switched_off_and_the_loop_goes_on(caplog):
    # other test modules quiet the watch's logger for the session; this test reads its warning
    caplog.set_level("WARNING", logger="trainopt.watch")
    from probes import plugins
    from probes.base import Probe, ProbeInfo

    class Fragile(Probe):
        info, hooks = ProbeInfo("fragile", "cheap", "optimizer_step", ()), ("optimizer_post", "window")

        def attach(self, run):
            pass

        def optimizer_post(self, run):
            raise NotImplementedError("no kernel for this layout")

        def accumulate(self, run, window):
            pass

        def summarise(self, run):
            return []

    def train(probes):
        torch.manual_seed(0)
        m, (x, y) = nn.Linear(4, 3), batch()
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        with watch(m, opt, plugins=probes) as w:
            for _ in range(8):
                opt.zero_grad()
                loss = LOSS(m(x), y)
                loss.backward()
                opt.step()
                w.step(loss)
        return fingerprint(m, opt), w

    fp, w = train([*plugins(), Fragile])
    assert "fragile" in w.switched_off and "NotImplementedError" in w.switched_off["fragile"]
    assert "switched off" in caplog.text
    assert fp == train(None)[0]


# ---------------------------------------------------------------------------------------- deep Python-side state


class Counter:
    """A helper object held in a list: forward bumps its counter and grows its log."""

    def __init__(self) -> None:
        self.n = 0
        self.log: list[int] = []


class Slotted:
    __slots__ = ("hits", "last")

    def __init__(self) -> None:
        self.hits = 0


class Tracker(nn.Module):
    """A submodule whose forward changes nested, shared, cyclic and in-place state of every common kind."""

    def __init__(self) -> None:
        super().__init__()
        import collections
        import random

        import numpy as np

        self.lin = nn.Linear(4, 3)
        self.nested = [[1, 2], {"seen": [0]}, (["in a tuple"],)]
        self.stats = {"calls": [0], "by_size": collections.defaultdict(list), "running": torch.zeros(3)}
        self.helpers = [Counter(), Counter()]
        self.shared = self.helpers[0]  # the same object reached twice
        self.recent = collections.deque(maxlen=3)
        self.tags = {"start"}
        self.slotted = Slotted()
        self.np_hist = np.zeros(4)
        self.gen = torch.Generator().manual_seed(5)
        self.py_rng = random.Random(7)
        self.np_rng = np.random.default_rng(9)
        self.loop: dict = {}
        self.loop["self"] = self.loop  # a cycle

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.nested[0].append(len(self.nested[0]))
        self.nested[1]["seen"].append(x.shape[0])
        self.nested[1]["new"] = True
        self.nested[2][0].append("more")
        self.stats["calls"][0] += 1
        self.stats["by_size"][x.shape[0]].append(1)
        with torch.no_grad():
            self.stats["running"].add_(1.0)
        for h in self.helpers:
            h.n += 1
            h.log.append(h.n)
        self.shared.extra = "added"
        self.recent.append(x.shape[0])
        self.tags.add(f"t{len(self.tags)}")
        self.slotted.hits += 1
        self.slotted.last = x.shape[0]
        self.np_hist[x.shape[0] % 4] += 1
        noise = torch.rand(1, generator=self.gen).item() + self.py_rng.random() + float(self.np_rng.random())
        self.loop.setdefault("k", []).append(noise)
        return self.lin(x)


class DeepState(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = Tracker()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


def graph(root) -> list:
    """Every object reachable from ``root``'s Python state: (path, identity, type, value), for exact comparison."""
    import collections

    import numpy as np

    out, seen, stack = [], set(), [(root, "")]
    while stack:
        v, path = stack.pop()
        if callable(v) and not isinstance(v, nn.Module):
            continue  # code (and what torch.compile hangs on it), not state
        if isinstance(v, (int, float, str, bool, type(None))):
            out.append((path, type(v).__name__, v))
            continue
        out.append((path, id(v), type(v).__name__))
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, nn.Module):
            # parameters and buffers are the fingerprint's; hook registries are keyed by a process-wide counter
            # and torch.compile stamps an id(): neither is the model's state, and both differ between two builds
            stack += [(x, f"{path}.{k}") for k, x in vars(v).items()
                      if k not in ("_parameters", "_buffers") and "hook" not in k and not k.startswith("_torchdynamo")]
        elif isinstance(v, torch.Generator):
            out.append((path, "state", bytes(v.get_state().numpy())))
        elif isinstance(v, torch.Tensor):
            out.append((path, "value", v.detach().numpy().tobytes()))
        elif isinstance(v, np.ndarray):
            out.append((path, "value", v.tobytes()))
        elif isinstance(v, np.random.Generator):
            out.append((path, "state", repr(v.bit_generator.state)))
        elif hasattr(v, "getstate"):
            out.append((path, "state", v.getstate()))
        elif isinstance(v, dict):
            out.append((path, "keys", [repr(k) for k in v]))
            stack += [(x, f"{path}[{k!r}]") for k, x in v.items()]
        elif isinstance(v, (list, tuple, collections.deque)):
            out.append((path, "len", len(v)))
            stack += [(x, f"{path}[{i}]") for i, x in enumerate(v)]
        elif isinstance(v, set):
            out.append((path, "items", sorted(v)))
        elif hasattr(v, "__slots__"):
            stack += [(getattr(v, n, "<unset>"), f"{path}.{n}") for n in v.__slots__]
        elif hasattr(v, "__dict__"):
            stack += [(x, f"{path}.{k}") for k, x in vars(v).items()]
    return out


def test_nested_and_in_place_python_state_is_put_back_exactly():
    m = DeepState()
    x, y = batch()
    m(x)  # state as a training script leaves it after a step
    before = graph(m)
    obs = examine(m, LOSS, (x, y), optimizer=torch.optim.SGD(m.parameters(), lr=0.1))
    assert {o.name for o in obs} & {"loss_at_init", "loss_behavior"}
    after = graph(m)
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after) and not changed, changed[:5]
    # and the model goes on exactly as an unexamined copy does: the generators drew nothing
    twin = DeepState()
    twin.load_state_dict(m.state_dict())
    twin(x)
    twin.body.gen.set_state(m.body.gen.get_state())
    twin.body.py_rng.setstate(m.body.py_rng.getstate())
    twin.body.np_rng.bit_generator.state = m.body.np_rng.bit_generator.state
    assert m(x).tolist() == twin(x).tolist() and m.body.loop["k"][-1] == twin.body.loop["k"][-1]


def test_what_examine_cannot_copy_is_named_before_it_runs():
    import threading

    m = DeepState()
    m.body.handle = memoryview(bytearray(b"abc"))  # no __dict__, no slots: cannot be recorded
    m.body.lock = threading.Lock()  # the process's, not the model's: walked past silently
    with pytest.warns(RuntimeWarning, match=r"body\.handle \(memoryview\)") as caught:
        examine(m, LOSS, batch(), optimizer=torch.optim.SGD(m.parameters(), lr=0.1))
    assert not any("lock" in str(w.message) for w in caught)


def values(g: list) -> list:
    """A ``graph`` without object identities, to compare two runs built apart."""
    return [e if not (len(e) == 3 and isinstance(e[1], int) and not isinstance(e[1], bool)) else (e[0], e[2])
            for e in g]


def trained(make, make_opt, make_batch, steps: int, watched: bool) -> list:
    """Train a fresh model with the user's plain loop, under ``watch`` or not; what it left behind."""
    torch.manual_seed(0)
    m = make()
    opt = make_opt(m)
    x, y = make_batch()

    def loop(w=None):
        for _ in range(steps):
            opt.zero_grad()
            loss = LOSS(m(x), y)
            loss.backward()
            opt.step()
            if w is not None:
                w.step(loss)

    if watched:
        with watch(m, opt) as w:
            loop(w)
    else:
        loop()
    return [fingerprint(m, opt), values(graph(m))]


def test_watch_leaves_deep_python_state_as_the_loop_leaves_it():
    def sgd(m: nn.Module) -> torch.optim.Optimizer:
        return torch.optim.SGD(m.parameters(), lr=0.1)

    assert trained(DeepState, sgd, batch, 6, True) == trained(DeepState, sgd, batch, 6, False)


# ---------------------------------------------------------------------------------------- refused, and untouched


def quantised() -> nn.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)),
                                                      {nn.Linear}, dtype=torch.qint8)


def state_bytes(m: nn.Module) -> list:
    """Every entry of the state dict as bytes (packed quantised weights unpacked), meta tensors by shape."""
    out = []
    for k, v in m.state_dict().items():
        if isinstance(v, tuple):  # packed params: (weight, bias)
            v = v[0]
        if isinstance(v, torch.Tensor):
            if v.is_meta or isinstance(v, nn.parameter.UninitializedParameter):
                out.append((k, type(v).__name__, str(v.dtype)))
            else:
                t = v.dequantize() if v.is_quantized else v
                out.append((k, t.detach().contiguous().numpy().tobytes()))
        else:
            out.append((k, repr(v)))
    return out


REFUSED = {
    "lazy": (lazy, "lazy parameters"),
    "meta": (lambda: nn.Sequential(nn.Linear(4, 8, device="meta"), nn.ReLU(), nn.Linear(8, 3, device="meta")),
             "meta device"),
    "quantised": (quantised, "quantised"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
@pytest.mark.parametrize("how", ["examine", "watch"])
def test_refused_models_are_refused_with_a_reason_and_left_untouched(case, how):
    make, msg = REFUSED[case]
    m = make()
    params = list(m.parameters())
    opt = torch.optim.SGD(params, lr=0.1) if params else None
    calls = []
    m.register_forward_hook(lambda *a: calls.append(1))
    before = (state_bytes(m), [type(p).__name__ for p in m.parameters()], m.training, torch.get_rng_state())
    with pytest.raises(ProbeError) as e:
        if how == "examine":
            examine(m, LOSS, batch(), optimizer=opt)
        else:
            with watch(m, opt):
                pass
    text = e.value.render()
    assert text.startswith("error: ") and (msg in text or how == "watch" and opt is None and "optimizer" in text)
    assert e.value.hint  # what to do instead
    assert not calls  # nothing ran: a lazy module stays lazy
    assert (state_bytes(m), [type(p).__name__ for p in m.parameters()], m.training) == before[:3]
    assert torch.equal(torch.get_rng_state(), before[3])
    assert opt is None or not opt.state


def test_a_float_head_on_a_quantised_backbone_is_measured_and_the_packed_part_named():
    back = quantised()[:2]
    m = nn.Sequential(back, nn.Linear(8, 3))
    opt = torch.optim.SGD(m[1].parameters(), lr=0.1, momentum=0.9)
    x, y = batch()
    m(x)
    before, packed = fingerprint(m, opt), state_bytes(m)
    with pytest.warns(RuntimeWarning, match=r"1 quantised module.*not measured"):
        obs = examine(m, LOSS, (x, y), optimizer=opt)
    assert {"loss_at_init", "update_ratio"} <= {o.name for o in obs}
    assert fingerprint(m, opt) == before and state_bytes(m) == packed


# ---------------------------------------------------------------------------------------- through the command line

SCRIPT = """
import warnings
import torch
from torch import nn
from tests.test_hostile_models import {make}, {batch}


def trainopt_target():
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = {make}()
    params = [p for p in model.parameters() if not isinstance(p, nn.parameter.UninitializedParameter)]
    opt = torch.optim.SGD(params or model.parameters(), lr=0.1) if list(model.parameters()) else None
    return dict(model=model, loss_fn=nn.CrossEntropyLoss(), batch={batch}(), optimizer=opt)
"""


@pytest.mark.parametrize("make,batch_fn,codes,said", [
    ("lazy", "batch", {2}, "lazy parameters"),
    ("quantised", "batch", {2}, "quantised"),
    ("meta_model", "batch", {2}, "meta device"),
    ("Bag", "bag_batch", {0, 1}, ""),
    ("new_weight_norm", "batch", {0, 1}, ""),
    ("DeepState", "batch", {0, 1}, ""),
])
def test_trainopt_examine_on_odd_models_never_exits_3(tmp_path, monkeypatch, make, batch_fn, codes, said):
    from click.testing import CliRunner

    from expert.cli import cli

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent))
    script = tmp_path / "train.py"
    script.write_text(SCRIPT.format(make=make, batch=batch_fn))
    r = CliRunner().invoke(cli, ["examine", str(script)])
    assert r.exit_code in codes, r.output[-2000:]
    assert "Traceback" not in r.output and "internal error" not in r.output
    if said:
        assert r.stderr.startswith("error:") and said in r.stderr, r.stderr


def meta_model() -> nn.Module:
    return REFUSED["meta"][0]()
