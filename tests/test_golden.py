"""Golden cases for every rule, and the meta-test that keeps rules and cases in step."""

from __future__ import annotations

import pytest

from expert.kb import rule_catalogue
from tests.golden_runner import check_case, load_cases

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[f"{c['rule']}:{c['_where']}" for c in CASES])
def test_golden_case(case):
    check_case(case)


def test_every_rule_has_a_golden_case():
    covered = {c["rule"] for c in CASES}
    missing = sorted(set(rule_catalogue()) - covered)
    assert not missing, f"rules without a golden case: {missing}"


def test_every_case_names_a_rule():
    known = set(rule_catalogue())
    unknown = sorted({c["rule"] for c in CASES} - known)
    assert not unknown, f"golden cases naming no rule: {unknown}"
