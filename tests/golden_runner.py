"""Load and check golden cases: one JSON file per knowledge family under tests/golden/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from expert.consultation import Consultation

GOLDEN = Path(__file__).parent / "golden"


def load_cases() -> list[dict[str, Any]]:
    """Every case of every ``tests/golden/*.json`` file, each tagged with its file."""
    cases = []
    for path in sorted(GOLDEN.glob("*.json")):
        for i, case in enumerate(json.loads(path.read_text())):
            case = dict(case)
            case["_where"] = f"{path.name}[{i}]"
            cases.append(case)
    return cases


def run_case(case: dict[str, Any]) -> Consultation:
    """Build a consultation from a case and run it."""
    data = dict(case.get("observations", {}))
    if "complaint" in case:
        data["complaint"] = case["complaint"]
    if "declined" in case:
        data["declined"] = case["declined"]
    c = Consultation.from_json(data)
    c.run()
    return c


def check_case(case: dict[str, Any]) -> None:
    """Assert a case's expectations; the rule it names must fire."""
    c = run_case(case)
    d = c.diagnosis
    fired = [f["rule"] for f in c.trace]
    where = f"{case['_where']} ({case.get('name', '')})"
    assert case["rule"] in fired, f"{where}: {case['rule']} did not fire; fired {fired}"
    exp = case.get("expect", {})
    for r in exp.get("fired", []):
        assert r in fired, f"{where}: {r} did not fire; fired {fired}"
    for r in exp.get("not_fired", []):
        assert r not in fired, f"{where}: {r} fired but must not"
    if "status" in exp:
        assert d.status == exp["status"], f"{where}: status {d.status} != {exp['status']}"
    if "plan" in exp:
        assert d.plan == exp["plan"], f"{where}: plan {d.plan} != {exp['plan']}"
    if "plan_starts" in exp:
        assert d.plan[: len(exp["plan_starts"])] == exp["plan_starts"], f"{where}: plan {d.plan}"
    roles = {r["skill"]: r["role"] for r in d.routes}
    for skill, role in exp.get("routes", {}).items():
        assert roles.get(skill) == role, f"{where}: route {skill} is {roles.get(skill)}, expected {role}"
    for skill in exp.get("not_routed", []):
        assert skill not in roles, f"{where}: {skill} routed but must not be"
    ids = {f["id"] for f in d.findings}
    if "only_findings" in exp:
        assert ids == set(exp["only_findings"]), f"{where}: findings {sorted(ids)} != {sorted(exp['only_findings'])}"
    if "primary" in exp:
        first = d.plan[0] if d.plan else None
        assert first == exp["primary"], f"{where}: primary route {first} != {exp['primary']} (plan {d.plan})"
    for fid in exp.get("findings", []):
        assert fid in ids, f"{where}: finding {fid} missing; have {sorted(ids)}"
    for fid in exp.get("no_findings", []):
        assert fid not in ids, f"{where}: finding {fid} present but must not be"
    if "question" in exp:
        got = d.question.id if d.question else None
        assert got == exp["question"], f"{where}: question {got} != {exp['question']}"
    packs = {b["pack"] for b in d.boundary}
    for p in exp.get("boundary", []):
        assert p in packs, f"{where}: boundary {p} missing; have {sorted(packs)}"
