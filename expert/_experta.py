"""The one door through which trainopt imports experta.

experta 1.9.4 pins ``frozendict==1.2``, whose ``frozendict`` subclasses ``collections.Mapping``; that alias
was removed in Python 3.10, so a plain ``import experta`` fails there. pip cannot override a dependency's
pin, so we keep the pins (``pip install -e .`` and ``pip check`` stay clean) and restore the one alias that
frozendict needs, right here, before experta is first imported. Every other module must import experta
names from this module; ``tests/test_engine.py`` checks that no other file imports experta.

experta also calls ``logging.basicConfig()`` at import and exposes process-global watcher loggers that
inherit the root level; we undo the former and mute the latter so an application logging at INFO is not
flooded. Those watchers are a debug view; trainopt's audit trail is recorded by the engine itself.
"""

from __future__ import annotations

import collections
import collections.abc
import logging

if not hasattr(collections, "Mapping"):  # Python >= 3.10 removed the alias frozendict 1.2 subclasses.
    collections.Mapping = collections.abc.Mapping  # type: ignore[attr-defined]

_root = logging.getLogger()
_handlers_before = list(_root.handlers)

import experta  # noqa: E402
from experta import (  # noqa: E402
    AND,
    AS,
    MATCH,
    NOT,
    OR,
    TEST,
    DefFacts,
    Fact,
    Field,
    InitialFact,
    KnowledgeEngine,
    L,
    P,
    Rule,
    W,
)
from experta import watchers as _watchers  # noqa: E402
from experta.abstract import Strategy  # noqa: E402
from experta.activation import Activation  # noqa: E402
from experta.conditionalelement import ConditionalElement  # noqa: E402
from experta.factlist import FactList  # noqa: E402
from experta.matchers.rete import ReteMatcher  # noqa: E402
from experta.matchers.rete.check import (  # noqa: E402
    FactCapture,
    FeatureCheck,
    SameContextCheck,
    TypeCheck,
    WhereCheck,
)
from experta.matchers.rete.mixins import ChildNode  # noqa: E402
from experta.matchers.rete.nodes import (  # noqa: E402
    ConflictSetNode,
    FeatureTesterNode,
    NotNode,
    OrdinaryMatchNode,
    WhereNode,
)
from experta.matchers.rete.token import Token, TokenInfo  # noqa: E402
from experta.utils import unfreeze  # noqa: E402

# Undo the handler experta's import-time basicConfig() added, unless the application configured one.
for _h in list(_root.handlers):
    if _h not in _handlers_before:
        _root.removeHandler(_h)

for _name in dir(_watchers):
    _obj = getattr(_watchers, _name)
    if isinstance(_obj, logging.Logger):
        _obj.setLevel(logging.CRITICAL + 1)
        _obj.propagate = False
logging.getLogger("experta").setLevel(logging.CRITICAL + 1)

EXPERTA_VERSION = getattr(experta, "__version__", "1.9.4")
FACTS = _watchers.FACTS
"""experta's watcher of the fact list (muted above), which its declare logs every new fact to."""
watchers = _watchers

__all__ = [
    "AND",
    "AS",
    "ChildNode",
    "ConditionalElement",
    "ConflictSetNode",
    "FactCapture",
    "FeatureCheck",
    "FeatureTesterNode",
    "MATCH",
    "NOT",
    "NotNode",
    "OR",
    "OrdinaryMatchNode",
    "TEST",
    "Activation",
    "DefFacts",
    "EXPERTA_VERSION",
    "FACTS",
    "Fact",
    "FactList",
    "Field",
    "InitialFact",
    "KnowledgeEngine",
    "L",
    "P",
    "ReteMatcher",
    "Rule",
    "SameContextCheck",
    "Strategy",
    "Token",
    "TokenInfo",
    "TypeCheck",
    "W",
    "WhereCheck",
    "WhereNode",
    "unfreeze",
    "watchers",
]
