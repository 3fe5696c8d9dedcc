"""The assembled knowledge base: the engine class built once per process, one instance per thread."""

from __future__ import annotations

import threading
from functools import lru_cache

from expert.engine import AuditedEngine, RuleInfo, build_engine_class
from expert.rete import CACHE_NAME
from knowledge import all_joins, all_questions, all_rows

_local = threading.local()


@lru_cache(maxsize=1)
def engine_class() -> type[AuditedEngine]:
    """Compile every family's rows, joins and questions (once per process)."""
    cls = build_engine_class(all_rows(), all_questions(), all_joins())
    # the class the sources define: its network can be stored under their hash (``expert.cache``)
    cls.cache_name = CACHE_NAME
    return cls


def engine() -> AuditedEngine:
    """Return the calling thread's engine (experta engines are not thread-safe; building one costs ~1 ms per rule)."""
    e = getattr(_local, "engine", None)
    if e is None:
        e = engine_class()()
        _local.engine = e
    return e


@lru_cache(maxsize=1)
def rule_catalogue() -> dict[str, RuleInfo]:
    """Every rule id -> its metadata (rows, questions, hand-written and core rules), sorted by id."""
    return dict(sorted((info.id, info) for info in engine().rule_info.values()))
