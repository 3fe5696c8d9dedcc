"""Suite-wide: every JSON report any test produces is validated against the report schema (issue 11).

The schema is generated from the vocabulary at session start (the shipped copy is checked separately in
test_schema.py), so a new observation name does not break unrelated tests. Skipped without jsonschema.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile

import pytest

# Every test (and every subprocess a test starts) uses its own cache folder, never the user's (expert.cache).
os.environ["TRAINOPT_CACHE_DIR"] = _CACHE = tempfile.mkdtemp(prefix="trainopt-test-cache-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


@pytest.fixture(autouse=True, scope="session")
def _reports_match_the_schema():
    try:
        import jsonschema
    except ImportError:
        yield
        return
    import expert.report
    from expert.schema_json import report_schema

    validator = jsonschema.Draft202012Validator(report_schema())
    original = expert.report.as_json

    def checked(c):
        out = original(c)
        errors = list(validator.iter_errors(out))
        if errors:
            e = errors[0]
            raise AssertionError(f"JSON report does not match the report schema at "
                                 f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}")
        return out

    expert.report.as_json = checked
    yield
    expert.report.as_json = original


@pytest.fixture
def quiet_watch():
    """The watch's logger at ERROR for one test, then as it was (its trip warnings are expected output)."""
    log = logging.getLogger("trainopt.watch")
    level = log.level
    log.setLevel(logging.ERROR)
    yield
    log.setLevel(level)
