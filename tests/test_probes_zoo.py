"""The zoo: each faulty run is diagnosed with its finding and primary route (examine, watch); controls are clean."""

from __future__ import annotations

import logging

import pytest

from tests.zoo import CASES, examine_case, summary, watch_case

logging.getLogger("trainopt.watch").setLevel(logging.ERROR)


def _check(case, s):
    if case.healthy:
        bad = {k: v for k, v in s["findings"].items() if v in ("warning", "critical")}
        assert not bad, f"{case.name}: healthy control has findings {bad}"
        assert s["status"] == "clean", f"{case.name}: status {s['status']}"
        return
    for fid in case.findings:
        assert fid in s["findings"], f"{case.name}: {fid} missing; got {s['findings']}"
    assert s["routes"].get(case.route) == "primary", f"{case.name}: {case.route} is not a primary route: {s['routes']}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_examine_diagnoses(case):
    if "examine" not in case.modes:
        pytest.skip("examine runs between the user's steps: a left-over gradient proves no missing zero_grad")
    _check(case, summary(examine_case(case)))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_watch_diagnoses(case):
    w = watch_case(case)
    _check(case, summary(w.consultation))
    if not case.healthy:
        assert w.trips, f"{case.name}: nothing tripped during the run"
