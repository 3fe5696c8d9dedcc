"""examine leaves everything exactly as found; edge inputs give clear findings or ProbeError, never a crash."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expert.consultation import Consultation
from knowledge.errors import ProbeError
from probes import examine
from probes.state import fingerprint
from trainopt import watch

OPTS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.1),
    "sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "adam": lambda p: torch.optim.Adam(p, lr=1e-3, weight_decay=0.01),
    "adamw": lambda p: torch.optim.AdamW(p, lr=1e-3, amsgrad=True),
}


def _model(width: int, depth: int, norm: bool, dropout: bool) -> torch.nn.Module:
    layers: list[torch.nn.Module] = []
    d = 6
    for _ in range(depth):
        layers.append(torch.nn.Linear(d, width))
        if norm:
            layers.append(torch.nn.BatchNorm1d(width))
        layers.append(torch.nn.ReLU())
        if dropout:
            layers.append(torch.nn.Dropout(0.3))
        d = width
    layers.append(torch.nn.Linear(d, 3))
    return torch.nn.Sequential(*layers)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(width=st.integers(2, 12), depth=st.integers(1, 3), norm=st.booleans(), dropout=st.booleans(),
       opt=st.sampled_from(sorted(OPTS)), warm=st.integers(0, 2), train_mode=st.booleans(),
       stale_grad=st.booleans(), freeze=st.booleans(), seed=st.integers(0, 10_000))
def test_examine_restores_state_exactly(width, depth, norm, dropout, opt, warm, train_mode, stale_grad, freeze, seed):
    torch.manual_seed(seed)
    m = _model(width, depth, norm, dropout)
    if freeze:
        m[0].weight.requires_grad_(False)
    o = OPTS[opt]([p for p in m.parameters() if p.requires_grad])
    x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
    for _ in range(warm):  # with and without momentum / Adam state
        o.zero_grad()
        torch.nn.functional.cross_entropy(m(x), y).backward()
        o.step()
    if stale_grad:
        torch.nn.functional.cross_entropy(m(x), y).backward()
    m.train(train_mode)
    random.seed(seed)
    np.random.seed(seed % 1000)
    before = fingerprint(m, o)
    obs = examine(m, torch.nn.CrossEntropyLoss(), (x, y), o, val_batch=(x, y), steps=2)
    assert fingerprint(m, o) == before
    assert all(ob.source.startswith("probe:") for ob in obs)
    Consultation().add(obs)  # the observations are valid together


def test_model_without_parameters_is_refused_cleanly():
    with pytest.raises(ProbeError, match="no parameters"):
        examine(torch.nn.ReLU(), torch.nn.MSELoss(), (torch.randn(2, 3), torch.randn(2, 3)))


def test_meta_parameters_are_refused_and_model_unchanged():
    with torch.device("meta"):
        m = torch.nn.Linear(3, 2)
    with pytest.raises(ProbeError, match="meta"):
        examine(m, torch.nn.MSELoss(), (torch.randn(2, 3), torch.randn(2, 2)))
    assert m.weight.is_meta


def test_integer_inputs_embedding_model():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Embedding(20, 8), torch.nn.Flatten(), torch.nn.Linear(8 * 5, 4))
    o = torch.optim.Adam(m.parameters())
    x, y = torch.randint(0, 20, (6, 5)), torch.randint(0, 4, (6,))
    before = fingerprint(m, o)
    obs = {ob.name: ob.value for ob in examine(m, torch.nn.CrossEntropyLoss(), (x, y), o)}
    assert "input_scale" not in obs and obs["num_classes"] == 4
    assert fingerprint(m, o) == before


def test_nan_batch_is_located_in_the_inputs():
    m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    o = torch.optim.SGD(m.parameters(), lr=0.1)
    x = torch.randn(4, 3)
    x[1, 2] = float("nan")
    before = fingerprint(m, o)
    obs = {ob.name: ob for ob in examine(m, torch.nn.CrossEntropyLoss(), (x, torch.tensor([0, 1, 0, 1])), o)}
    assert obs["nan_location"].value == "inputs"
    assert obs["loss_behavior"].value == "nan_or_inf"
    assert fingerprint(m, o) == before
    c = Consultation()
    c.add(obs.values())
    assert "MS-NAN-01" in {f["id"] for f in c.run().findings}


def test_empty_loader_is_a_probe_error_and_changes_nothing():
    m = torch.nn.Linear(3, 2)
    o = torch.optim.SGD(m.parameters(), lr=0.1)
    batch = (torch.randn(2, 3), torch.randn(2, 2))
    before = fingerprint(m, o)
    with pytest.raises(ProbeError, match="no batches"):
        examine(m, torch.nn.MSELoss(), batch, o, loader=[])
    assert fingerprint(m, o) == before


def test_malformed_batch_and_bad_watch_arguments():
    m = torch.nn.Linear(3, 2)
    with pytest.raises(ProbeError, match="batch"):
        examine(m, torch.nn.MSELoss(), torch.randn(2, 3))
    with pytest.raises(ProbeError):
        watch(m, None)
    with pytest.raises(ProbeError):
        watch(m, torch.optim.SGD(m.parameters(), lr=0.1), on_trip="explode")


def test_watch_removes_its_hooks_and_raises_on_trip_when_asked():
    from probes.watcher import TrainingTripped

    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    o = torch.optim.SGD(m.parameters(), lr=0.1)
    x, y = torch.randn(16, 4), torch.randint(0, 2, (16,))
    with pytest.raises(TrainingTripped) as ei:
        with watch(m, o, every=4, on_trip="raise", loss_fn=torch.nn.CrossEntropyLoss()) as w:
            for _ in range(20):  # zero_grad is missing
                loss = torch.nn.functional.cross_entropy(m(x), y)
                loss.backward()
                o.step()
                w.step(loss)
    assert "MS-ZERO-01" in {f["id"] for f in ei.value.diagnosis.findings}
    assert not m._forward_hooks and not m._forward_pre_hooks
    assert not o._optimizer_step_pre_hooks and not o._optimizer_step_post_hooks


def test_watch_accepts_float_losses_and_reports_json_clean():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    o = torch.optim.Adam(m.parameters(), lr=1e-2)
    x = torch.randn(64, 4)
    y = (x[:, 0] > 0).long()
    c = Consultation()
    with watch(m, o, consultation=c, every=10) as w:
        for _ in range(40):
            o.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            o.step()
            w.step(loss.item())
    d = c.diagnosis
    assert d.status == "clean", [f["id"] for f in d.findings]
    assert c.observations["loss_behavior"].source == "probe:loss_curve"
