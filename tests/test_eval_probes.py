"""bench.eval_probes' tallies: right = primary route and cause named; held-out part, per family, per fault kind."""

from __future__ import annotations

from bench.eval_probes import _tally, gates, render
from tests.zoo import families as F


def _row(family: str, fault: str | None, routed: bool = True, named: bool = True, warned: bool = False,
         held: bool = False) -> dict:
    base = {"variant": f"{fault}/{family}", "family": family, "held_out": held, "findings": {}, "primary": []}
    if fault is None:
        return {**base, "healthy": True, "warned": warned}
    return {**base, "healthy": False, "fault": fault, "routed": routed, "named": named, "right": routed and named}


def test_a_fault_counts_only_when_routed_and_named() -> None:
    rows = [_row("a", "f1"), _row("a", "f1", named=False), _row("b", "f2", routed=False, held=True),
            _row("b", None, warned=True, held=True), _row("a", None)]
    t = _tally(rows, 1.0)
    assert (t["faults"], t["right"], t["routed"], t["named"]) == (3, 1, 2, 2)
    assert t["per_family"]["a"] == {"runs": 2, "right": 1, "routed": 2, "named": 1, "healthy": 1, "healthy_warned": 0}
    assert t["per_fault"]["f2"]["right"] == 0
    assert t["held_out"] == {"runs": 1, "right": 0, "routed": 0, "named": 1, "healthy": 1, "healthy_warned": 1}
    assert t["development"]["runs"] == 2
    res = {"variants": 5, "suites": {"families": {"variants": 5, "modes": {"watch": t}}}}
    assert "HELD OUT" in render(res)
    assert not gates(res)  # a healthy run warned fails the gate in any suite


def test_the_catalogue_meets_its_breadth() -> None:
    from tests.zoo import generated as G

    families = {f.name for f in F.FAMILIES} | {*G.ARCHS, "rnn"}
    kinds = {f.name for f in F.F_FAULTS} | {f.name for f in G.FAULTS}
    domains = {f.domain for f in F.FAMILIES}
    assert len(families) >= 16 and len(kinds) >= 45
    assert {"audio", "vision", "language", "graphs", "tabular", "generative", "representation"} <= domains
    assert len({n for n, _ in G.HEALTHY} | {n for n, _, _ in F.F_HEALTHY}) >= 15
    # the held-out part names real families and kinds, and every fault kind applies somewhere
    assert set(F.HELD_OUT_FAMILIES) <= {f.name for f in F.FAMILIES}
    assert set(F.HELD_OUT_FAULTS) <= {f.name for f in F.F_FAULTS}
    assert all(any(f.applies(fam) for fam in F.FAMILIES) for f in F.F_FAULTS)
    # the quick subset keeps every fault kind
    assert {v.fault.name for v in F.variants(quick=True) if v.fault} == {f.name for f in F.F_FAULTS}


def test_the_quick_generated_subset_keeps_every_fault_kind_on_every_architecture_it_applies_to() -> None:
    from tests.zoo import generated as G

    quick = G.variants(quick=True)
    assert {v.fault.name for v in quick if v.fault} == {f.name for f in G.FAULTS}
    for f in G.FAULTS:
        archs = {a for a in f.archs if a in G.ARCHS or a == "rnn"}
        assert {v.cfg.arch for v in quick if v.fault is f} == archs, f.name
    assert {n for n, _ in G.HEALTHY} == {v.name.split("/")[0].split(":")[1] for v in quick if not v.fault}
    assert len(quick) < len(G.variants()) / 2


def test_worker_processes_score_the_same_runs_as_one_process() -> None:
    from bench.eval_probes import run

    kw = dict(modes=("examine",), only="adam_eps_huge/audio_cnn1d", suites=("families",))
    one, two = run(jobs=1, **kw), run(jobs=2, **kw)
    a, b = one["suites"]["families"]["modes"]["examine"], two["suites"]["families"]["modes"]["examine"]
    assert a["faults"] == b["faults"] == 1 and a["right"] == b["right"] == 1
    assert a["per_fault"] == b["per_fault"] and two["jobs"] == 2


def test_the_outside_suite_is_held_out_new_and_reported_not_gated() -> None:
    from bench.eval_probes import _held, _suite_variants
    from tests.zoo import generated as G
    from tests.zoo import outside as O

    # families neither developed suite has, each with healthy twins; every fault kind applies somewhere
    assert len(O.FAMILIES) >= 4
    assert not {f.name for f in O.FAMILIES} & ({f.name for f in F.FAMILIES} | set(G.ARCHS))
    vs = O.variants()
    assert all(_held(v) for v in vs)
    assert {v.family for v in vs if v.healthy} == {f.name for f in O.FAMILIES}
    assert all(any(f.applies(fam) for fam in O.FAMILIES) for f in O.FAULTS)
    # quick keeps every fault kind and every family, and is a small part of the whole
    quick = O.variants(quick=True)
    assert {v.fault.name for v in quick if v.fault} == {f.name for f in O.FAULTS}
    assert {v.family for v in quick} == {f.name for f in O.FAMILIES} and len(quick) < len(vs) / 3
    # --no-held-out leaves the whole suite out
    assert _suite_variants("outside", True, held_out=False) == []
    # a healthy run warned there is reported, not a failed gate
    t = _tally([_row("vae", None, warned=True, held=True)], 1.0)
    assert gates({"variants": 1, "suites": {"outside": {"variants": 1, "modes": {"watch": t}}}})
