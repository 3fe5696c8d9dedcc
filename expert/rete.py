"""experta's Rete matcher, built once per source (``expert.cache``) and polled only where something changed.

Three things experta 1.9.4 does on every use that cost more than they need (``shared/design/EXPERTA.md``):

* it compiles the network from the rules in every process (~0.15-0.3 s for ~400 rules). ``CachedReteMatcher``
  stores the compiled network of the knowledge base's engine class in the user's cache (``expert.cache``) and
  loads it in a few milliseconds. The network is pickled with every rule and every anonymous function replaced
  by a reference (its rule id; its position in that rule's patterns), resolved against the class being built,
  so the entry holds no code: only the network's shape and the literal values it tests.
* it asks every rule's conflict-set node for new activations after every change (cost grows with the rule count
  times the firings). Here a node reports itself when a token reaches it, and only those are asked, in the
  network's own order.
* its ``reset`` walks every node of the network; here only the nodes that have a memory are cleared.

Each is an exact refinement: same tokens, same activations, same order on the agenda (the strategy orders
it totally). ``tests/test_rete_cache.py`` checks the cached, the rebuilt and the stock networks agree.
"""

from __future__ import annotations

import io
import logging
import pickle
import types
from typing import Any

from expert import cache
from expert._experta import ConditionalElement, ConflictSetNode, FeatureCheck, ReteMatcher, Rule, WhereCheck

log = logging.getLogger("trainopt.cache")

CACHE_NAME = "rete"


def _rule_id(rule: Any) -> str | None:
    info = getattr(rule, "_trainopt", None)
    return getattr(info, "id", None)


def _anonymous(fn: Any) -> bool:
    """A function pickle cannot find by name (a lambda, or one defined inside another function)."""
    return isinstance(fn, types.FunctionType) and "<" in fn.__qualname__


def _functions(obj: Any, out: list[Any]) -> None:
    """The anonymous functions in a rule's left-hand side, depth first, in pattern order."""
    if _anonymous(obj):
        out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _functions(v, out)
    elif isinstance(obj, tuple):
        for v in obj:
            _functions(v, out)


def _function_table(rules: list[Any]) -> dict[tuple[str, int], Any]:
    """``(rule id, position) -> function`` for every anonymous function in the rules' patterns."""
    table: dict[tuple[str, int], Any] = {}
    for rule in sorted(rules, key=lambda r: _rule_id(r) or ""):
        found: list[Any] = []
        _functions(tuple(rule), found)
        rid = _rule_id(rule) or ""
        for k, fn in enumerate(found):
            table.setdefault((rid, k), fn)
    return table


def _twin(rule: Any) -> Any:
    """A copy of a rule unbound from any engine: what experta's preparation puts in a conflict-set node."""
    new = Rule.__new__(type(rule), *rule, salience=rule.salience)
    new.__dict__.update(rule.__dict__)
    new._wrapped_self = None
    new.__dict__.pop("ke", None)
    return new


def _feature_check(what: Any, how: Any) -> Any:
    # FeatureCheck's own constructor keeps every check it makes in a class-wide registry; rebuild without it
    fn = FeatureCheck.get_check_function(how, what)
    return tuple.__new__(FeatureCheck, (what, how, fn.check, fn.expected))


def _element(cls: type, items: tuple[Any, ...], state: dict[str, Any] | None) -> Any:
    obj = tuple.__new__(cls, items)
    if state:
        obj.__dict__.update(state)
    return obj


class _Pickler(pickle.Pickler):
    """Pickles a network with rules and anonymous functions as references, experta's tuples by their items."""

    def __init__(self, f: Any, rules: list[Any]) -> None:
        super().__init__(f, protocol=pickle.HIGHEST_PROTOCOL)
        self._fns = {id(fn): key for key, fn in _function_table(rules).items()}

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, Rule):
            rid = _rule_id(obj)
            if rid is None:
                raise pickle.PicklingError(f"rule without an id: {obj!r}")
            return ("rule", rid)
        if _anonymous(obj):
            key = self._fns.get(id(obj))
            if key is None:
                raise pickle.PicklingError(f"function outside every rule: {obj!r}")
            return ("fn", *key)
        return None

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, FeatureCheck):
            return _feature_check, (obj.what, obj.how)
        if isinstance(obj, WhereCheck):
            return WhereCheck, (obj.test,)
        if isinstance(obj, ConditionalElement):
            return _element, (type(obj), tuple(obj), dict(obj.__dict__) or None)
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    """Resolves the references ``_Pickler`` wrote against the rules of the engine being built."""

    def __init__(self, f: Any, rules: list[Any]) -> None:
        super().__init__(f)
        self._rules = {_rule_id(r): r for r in rules}
        self._twins: dict[str, Any] = {}
        self._fns = _function_table(rules)

    def persistent_load(self, pid: Any) -> Any:
        if pid[0] == "rule":
            twin = self._twins.get(pid[1])
            if twin is None:
                twin = self._twins[pid[1]] = _twin(self._rules[pid[1]])
            return twin
        if pid[0] == "fn":
            return self._fns[(pid[1], pid[2])]
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")


def dump_network(root: Any, rules: list[Any]) -> bytes:
    """Serialise a freshly built (empty) network."""
    buf = io.BytesIO()
    _Pickler(buf, rules).dump(root)
    return buf.getvalue()


def load_network(blob: bytes, rules: list[Any]) -> Any:
    """Rebuild a network ``dump_network`` wrote, against ``rules`` (the engine's own)."""
    return _Unpickler(io.BytesIO(blob), rules).load()


class _TrackedCSN(ConflictSetNode):
    """A conflict-set node that tells its matcher when a token reached it."""

    __slots__ = ()

    def _activate(self, token: Any) -> None:
        super()._activate(token)
        self.dirty.add(self)  # type: ignore[attr-defined]


class CachedReteMatcher(ReteMatcher):
    """experta's Rete matcher: network from the cache when the engine class allows, change polling by node."""

    def build_network(self) -> None:
        """Load the network from the process or the user's cache, else build it (and store it)."""
        cls = type(self.engine)
        name = getattr(cls, "cache_name", None)
        rules = self.engine.get_rules()
        root = None
        blob = getattr(cls, "_rete_blob", None) if name else None
        if name and blob is None:
            blob = cache.load(name)
        if blob is not None:
            try:
                root = load_network(blob, rules)
            except Exception as exc:  # noqa: BLE001 - a cache entry that does not load is rebuilt, never trusted
                log.debug("trainopt cache: the stored network did not load (%s); rebuilding", exc)
                root, blob = None, None
        if root is None:
            super().build_network()
            root = self.root_node
            if name:
                try:
                    blob = dump_network(root, rules)
                except Exception as exc:  # noqa: BLE001 - something unpicklable: build in every process
                    log.debug("trainopt cache: the network cannot be stored (%s)", exc)
                    blob = None
                if blob is not None:
                    cache.store(name, blob)
        if name and blob is not None:
            cls._rete_blob = blob  # the next engine of this class (another thread) loads from memory
        self.root_node = root
        self._index()

    def _index(self) -> None:
        """Number the conflict-set nodes in experta's order and list the nodes that have a memory."""
        self.dirty: set[Any] = set()
        self.order: dict[Any, int] = {}
        self.memories: list[Any] = []
        seen: set[int] = set()
        stack = [self.root_node]
        order: list[Any] = []
        while stack:  # depth first, children in order: the order experta's own walk finds them
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            order.append(node)
            stack.extend(c.node for c in reversed(node.children))
        for node in order:
            if isinstance(node, ConflictSetNode):
                if type(node) is ConflictSetNode:
                    node.__class__ = _TrackedCSN
                node.dirty = self.dirty
                self.order[node] = len(self.order)
            if hasattr(node, "memory") or hasattr(node, "left_memory"):
                self.memories.append(node)

    def changes(self, adding: Any = None, deleting: Any = None) -> tuple[list[Any], list[Any]]:
        """Pass the changes through the network; collect activations from the nodes they reached."""
        if deleting is not None:
            for fact in deleting:
                self.root_node.remove(fact)
        if adding is not None:
            for fact in adding:
                self.root_node.add(fact)
        added: list[Any] = []
        removed: list[Any] = []
        if self.dirty:
            for node in sorted(self.dirty, key=self.order.__getitem__):
                a, r = node.get_activations()
                added.extend(a)
                removed.extend(r)
            self.dirty.clear()
        return added, removed

    def reset(self) -> None:
        """Clear every node's memory (alpha nodes have none)."""
        for node in self.memories:
            node._reset()


__all__ = ["CACHE_NAME", "CachedReteMatcher", "dump_network", "load_network"]
