"""experta's Rete matcher, built once per source (``expert.cache``) and polled only where something changed.

What experta 1.9.4 does on every use that costs more than it needs (``shared/design/EXPERTA.md``):

* it compiles the network from the rules in every process (~0.15-0.3 s for ~400 rules). ``CachedReteMatcher``
  stores the compiled network of the knowledge base's engine class in the user's cache (``expert.cache``) and
  loads it in a few milliseconds. The network is pickled with every rule and every test object replaced by a
  reference (its rule id; its position in that rule's patterns), resolved against the class being built, so
  the entry holds no code: only the network's shape and the literal values it tests.
* it asks every rule's conflict-set node for new activations after every change (cost grows with the rule count
  times the firings). Here a node reports itself when a token reaches it, and only those are asked, in the
  network's own order.
* its ``reset`` walks every node of the network; here only the nodes that have a memory are cleared.
* after every reset the engine declares its initial fact into the empty network, which passes it through the
  ~400 nodes of the rules whose first pattern is a negation, the same way every time: what it leaves there (the
  memories it filled, the activations it made) is kept from the first time and put back (``_Snapshot``).
* its alpha network hands every new fact to every test of a node's children in turn (``type == Obs``, then
  ``name == "symptom"``, ``name == "optimizer"``, ... for a hundred names), copying the token for each. Sibling
  tests of one kind (the fact's type; one field equal to a literal) are replaced by one lookup in a table from
  the value to the tests that value passes (``_Dispatch``): the same tests run, on the facts they pass.

* its nodes copy every token they receive (re-validating each of its facts) and log every test through its
  watcher loggers, whether anyone listens or not. Here a node copies a token only to change it (a test that
  binds variables), joins, negations, where-nodes (``TEST``) and conflict-set nodes read arriving tokens in
  place and build joined ones from facts that are valid by construction, and the tests of a loaded network
  skip the logging: a test on one plain field reads that field directly and, when it binds nothing, compares
  or calls the condition's own test (``_Field``, ``_Equal``, ``_Predicate``); type, capture and ``TEST``
  checks likewise (``_Type``, ``_Capture``, ``_Test``).
* it gives every rule its own negation node per ``NOT(...)`` of its left-hand side, and a fact such a pattern
  matches reaches each of them (``NOT(Route())`` in a dozen rules of last resort, ``NOT(Question())`` in every
  question: a hundred right activations, each passing its left tokens on or back, then down the rest of the
  rule's chain of negations). When a negated pattern binds nothing a rule reads, its negation holds or fails for
  every left token alike: whether a fact matches it is counted once for all rules (``_Presence``), and a rule's
  run of such negations is one node (``_Gate``) that hears only when one of them starts or stops matching.
* every memory a token reaches (a join's, a negation's, a conflict set's) keys it by its facts and bindings,
  frozen anew each time; here a token's key is built once per change (``_info``), and a conflict-set node's
  rule keeps its hash (``_Twin``), which experta recomputes over every pattern for each activation.

What a load costs: the entry's digest and the unpickling of ~3,000 nodes (the node order is stored with them,
so nothing is walked), then each rule's tests are looked up by position as the network names them. The unpickler
builds by itself what it can: a node's ~4,000 callbacks are ``MethodType`` applied to the node's port function
(``_Bind``, ``_port``) and their children tuples come from tuple's constructor (``_Child``), not through a Python
call each; memories nobody has written to yet are not stored (conflict sets, joins, gates and presence counts make
theirs on the first token), and checks that hold nothing but what they test are shared (``_one``).

Each is an exact refinement: same tokens, same activations, same order on the agenda (the strategy orders
it totally). ``tests/test_rete_cache.py`` checks the cached, the rebuilt and the stock networks agree.
"""

from __future__ import annotations

import _pickle as pickle  # the C pickler ``pickle`` wraps: its Python half costs ~1 ms of every start
import gc
import io
import logging
import sys
import types
from collections.abc import Mapping
from typing import Any

from expert import cache
from expert._experta import (
    Activation,
    ChildNode,
    ConditionalElement,
    ConflictSetNode,
    FactCapture,
    FeatureCheck,
    FeatureTesterNode,
    InitialFact,
    L,
    NotNode,
    OrdinaryMatchNode,
    P,
    ReteMatcher,
    Rule,
    SameContextCheck,
    Token,
    TokenInfo,
    TypeCheck,
    W,
    WhereCheck,
    WhereNode,
)
from expert.stored import HIGHEST_PROTOCOL
from expert.stored import loadable as _loadable

log = logging.getLogger("trainopt.cache")

CACHE_NAME = "rete"


def _rule_id(rule: Any) -> str | None:
    info = getattr(rule, "_trainopt", None)
    return getattr(info, "id", None)


def _anonymous(fn: Any) -> bool:
    """A function pickle cannot find by name (a lambda, or one defined inside another function)."""
    return isinstance(fn, types.FunctionType) and "<" in fn.__qualname__


def _callables(obj: Any, out: list[tuple[tuple[Any, ...], Any]], path: tuple[Any, ...] = ()) -> None:
    """The tests in a rule's left-hand side (``P(...)``, ``TEST(...)``), depth first, in pattern order.

    Each with its path from the rule: the index in a tuple or the key in a dict (a pattern) at each step down.
    """
    if isinstance(obj, dict):
        for k, v in obj.items():
            _callables(v, out, (*path, k))
    elif isinstance(obj, tuple):
        for i, v in enumerate(obj):
            _callables(v, out, (*path, i))
    elif callable(obj) and not isinstance(obj, type):
        out.append((path, obj))


def _function_table(rules: list[Any]) -> dict[tuple[str, tuple[Any, ...]], Any]:
    """``(rule id, path) -> test`` for every test object in the rules' patterns (``_callables``' paths).

    The network refers to these by where they sit in their rule: lambdas, closures and test objects (a join's test
    holds the knowledge's own functions) need not, and often cannot, be pickled; the engine being built has them.
    A load follows the path down the rule (``_at``), a few steps, rather than listing the rule's every test.
    """
    table: dict[tuple[str, tuple[Any, ...]], Any] = {}
    for rule in sorted(rules, key=lambda r: _rule_id(r) or ""):
        found: list[tuple[tuple[Any, ...], Any]] = []
        _callables(tuple(rule), found)
        rid = _rule_id(rule) or ""
        for path, fn in found:
            table.setdefault((rid, path), fn)
    return table


def _at(rule: Any, path: Any) -> Any:
    """The test at ``path`` in ``rule`` (``_callables``), or ``UnpicklingError`` when there is none there."""
    obj = tuple(rule)
    if type(path) is not tuple:
        raise pickle.UnpicklingError(f"not a path in a rule: {path!r}")
    for step in path:
        if isinstance(obj, dict) and dict.__contains__(obj, step):
            obj = dict.__getitem__(obj, step)
        elif isinstance(obj, tuple) and type(step) is int and 0 <= step < len(obj):
            obj = tuple.__getitem__(obj, step)
        else:
            raise pickle.UnpicklingError(f"no test at {path!r} in the rule")
    if not callable(obj) or isinstance(obj, type):
        raise pickle.UnpicklingError(f"no test at {path!r} in the rule")
    return obj


class _Twin(Rule):
    """A conflict-set node's rule: experta's ``Rule`` whose hash (over every pattern) is computed once.

    experta hashes the rule of every activation it records or looks up; a conflict-set node's rule (the twin a
    loaded network is given, or the copy experta's build makes) never changes once made, as no engine binds it,
    so its hash is kept.
    """

    def __hash__(self) -> int:
        h = self.__dict__.get("_twin_hash")
        if h is None:
            h = self.__dict__["_twin_hash"] = Rule.__hash__(self)
        return h


def _twin(rule: Any) -> Any:
    """A copy of a rule unbound from any engine: what experta's preparation puts in a conflict-set node."""
    # Rule.__new__ only sets attributes every rule has: its copy of them follows
    new = tuple.__new__(_Twin if type(rule) is Rule else type(rule), tuple(rule))
    new.__dict__.update(rule.__dict__)
    new._wrapped_self = None
    new.__dict__.pop("ke", None)
    return new


_PLAIN_CHECKS: dict[type, Any] = {}
"""experta's check function of a literal, predicate or wildcard test, by its kind: each reads only its arguments
(the tested value and the test itself), so one serves every test of its kind."""


def _feature_check(what: Any, how: Any) -> Any:
    # FeatureCheck's own constructor keeps every check it makes in a class-wide registry; rebuild without it
    kind = type(how)
    check = _PLAIN_CHECKS.get(kind)
    if check is not None:
        return tuple.__new__(FeatureCheck, (what, how, check, how))
    fn = FeatureCheck.get_check_function(how, what)
    if kind in (L, P, W):
        _PLAIN_CHECKS[kind] = fn.check
    return tuple.__new__(FeatureCheck, (what, how, fn.check, fn.expected))


def _element_reduce(obj: Any) -> tuple[Any, ...]:
    """How one of experta's tuples (a rule, a pattern, a test) pickles, loaded without a call into Python.

    Built by ``_new_element`` from its items, its attributes set as state.
    """
    state = dict(obj.__dict__)
    return (_new_element, (type(obj), tuple(obj)), state or None)


_CALLBACKS = frozenset({"activate", "activate_left", "activate_right"})
"""The bound methods a network holds: a node's children are its successors' activations."""


_NODE_CLASSES: set[type] = set()
"""Node classes ``_callback`` found to be a network's (ours or experta's Rete nodes): checked once per class."""


def _node_class(kind: Any) -> bool:
    """Whether ``kind`` is a class of a network's nodes: ours, or one of experta's Rete nodes."""
    if kind in _NODE_CLASSES:
        return True
    if not isinstance(kind, type):
        return False
    module = kind.__module__
    if not (module == __name__ or module.startswith("experta.matchers.rete")):
        return False
    _NODE_CLASSES.add(kind)
    return True


def _callback(node: Any, name: str) -> Any:
    """A node's activation as the network held it (pickled, a bound method would load through ``getattr``).

    What networks stored before ``_Bind`` read their callbacks through; kept for the check it makes.
    """
    # (a network holds thousands: the class's check is made once, then a set lookup per callback)
    kind = type(node)
    if not _node_class(kind) or name not in _CALLBACKS:
        raise pickle.UnpicklingError(f"not a node's activation: {kind.__name__}.{name}")
    return getattr(node, name)


class _Bind:
    """The name a stored network gives to ``types.MethodType``: a node's activation, bound to the node.

    A network holds ~4,000 callbacks (a child's ``activate``, a join's ``activate_left``...). Loaded through a
    function of ours (``_callback``), each was a Python call, a tenth of the load; stored as this name applied to
    the node's own port function and the node, each is built by ``MethodType`` itself. The unpickler maps this
    name to ``MethodType`` and a dotted name to a function only when it is a port (``_CALLBACKS``) of a node
    class (``_port``): what it binds is a node's activation, as before. Never instantiated.
    """


def _port(module: str, name: str) -> Any:
    """The function ``module.Class.port`` a stored callback names: a node class's activation, else an error."""
    cls_name, _, port = name.partition(".")
    if port not in _CALLBACKS or not _loadable(module, cls_name):
        raise pickle.UnpicklingError(f"the cached network names {module}.{name}, which is no node's activation")
    cls = getattr(sys.modules.get(module), cls_name, None)
    fn = getattr(cls, port, None)
    if not _node_class(cls) or type(fn) is not types.FunctionType:
        raise pickle.UnpicklingError(f"the cached network names {module}.{name}, which is no node's activation")
    return fn


class _Child(ChildNode):
    """experta's ``ChildNode`` (a node and the activation it is reached by), built by tuple's own constructor.

    A stored network loads ~4,000 of them; the named tuple's constructor is a Python function, this one is
    ``tuple.__new__`` (``_Child((node, callback))``). The same tuple, read the same way.
    """

    __slots__ = ()
    __new__ = tuple.__new__


_ELEMENT_CLASSES: set[type] = set()
"""Classes ``_new_element`` found to be experta's conditional elements: checked once per class."""


def _new_element(cls: type, items: tuple[Any, ...]) -> Any:
    """One of experta's tuples of class ``cls`` holding ``items``, as ``_element_reduce`` stored it.

    ``tuple.__new__`` itself would pickle as ``getattr(tuple, "__new__")``, and a loader that lets ``getattr``
    through lets anything through; this one builds only experta's conditional elements.
    """
    if cls not in _ELEMENT_CLASSES:
        if not (isinstance(cls, type) and issubclass(cls, ConditionalElement)):
            raise pickle.UnpicklingError(f"not one of experta's conditional elements: {cls!r}")
        _ELEMENT_CLASSES.add(cls)
    if type(items) is not tuple:
        raise pickle.UnpicklingError(f"not one of experta's conditional elements: {cls!r}")
    return tuple.__new__(cls, items)


class _Pickler(pickle.Pickler):
    """Pickles a network with rules and anonymous functions as references, experta's tuples by their items."""

    def __init__(self, f: Any, rules: list[Any]) -> None:
        super().__init__(f, protocol=HIGHEST_PROTOCOL)
        self._fns = {id(fn): key for key, fn in _function_table(rules).items()}

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, Rule):
            rid = _rule_id(obj)
            if rid is None:
                raise pickle.PicklingError(f"rule without an id: {obj!r}")
            return ("rule", rid)
        key = self._fns.get(id(obj))
        if key is not None:
            return ("fn", *key)
        if _anonymous(obj):
            raise pickle.PicklingError(f"function outside every rule: {obj!r}")
        return None

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is types.MethodType and obj.__func__.__name__ in _CALLBACKS and _node_class(type(obj.__self__)):
            # the port function pickles by its name (``_port`` checks it as it loads), the node as itself
            return _Bind, (obj.__func__, obj.__self__)
        if kind is ChildNode or kind is _Child:
            return _Child, (tuple(obj),)
        if isinstance(obj, FeatureCheck):
            return _feature_check, (obj.what, obj.how)
        if isinstance(obj, WhereCheck):
            return WhereCheck, (obj.test,)
        if isinstance(obj, ConditionalElement):
            return _element_reduce(obj)
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    """Resolves the references ``_Pickler`` wrote against the rules of the engine being built."""

    def __init__(self, f: Any, rules: list[Any]) -> None:
        super().__init__(f)
        self._rules = {_rule_id(r): r for r in rules}
        self._twins: dict[str, Any] = {}

    def find_class(self, module: str, name: str) -> Any:
        if name == "_Bind" and module == __name__:
            return types.MethodType
        if "." in name:  # a bound callback's function
            return _port(module, name)
        # The cache is our own file, but it sits where other programs can write: only the classes a network is
        # made of load (experta's nodes and checks, our facts and conditions, plain containers), never a callable
        # of some other module that unpickling would run.
        if not _loadable(module, name):
            raise pickle.UnpicklingError(f"the cached network names {module}.{name}, which a network never holds")
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        if pid[0] == "rule":
            twin = self._twins.get(pid[1])
            if twin is None:
                twin = self._twins[pid[1]] = _twin(self._rules[pid[1]])
            return twin
        if pid[0] == "fn":
            return _at(self._rules[pid[1]], pid[2])
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")


def dump_network(root: Any, rules: list[Any]) -> bytes:
    """Serialise a freshly built (empty) and finished (``_finish``) network.

    With it go its nodes in ``_walk`` order, the lists ``CachedReteMatcher._index`` reads (``_lists``) and the
    nodes' links to the matcher's change set and list of filled memories (``_link``, made here on the network
    being stored): a load neither walks it nor looks at, or sets an attribute on, each node.
    """
    nodes = _walk(root)
    lists = _lists(nodes)
    buf = io.BytesIO()
    _Pickler(buf, rules).dump((root, nodes, *lists, _link(*lists)))
    return buf.getvalue()


def load_network(blob: bytes, rules: list[Any]) -> tuple[Any, ...]:
    """Rebuild a network ``dump_network`` wrote, against ``rules`` (the engine's own).

    Returns:
        Its root, its nodes, ``_lists``' three lists of them, and the matcher's links to its nodes (``_link``).
    """
    # Thousands of new container objects and no garbage: collections here would only walk them (a third of
    # the load's time)
    enabled = gc.isenabled()
    gc.disable()
    try:
        loaded = _Unpickler(io.BytesIO(blob), rules).load()
    finally:
        if enabled:
            gc.enable()
    if type(loaded) is not tuple or len(loaded) != 6 or not all(type(x) is list for x in loaded[1:5]) or \
            not _links_shape(loaded[5]):
        raise pickle.UnpicklingError("not a stored network")
    return loaded


def _dispatch_key(child: Any) -> tuple[str, Any, Any] | None:
    """``(kind, field, value)`` when a child is a test a table lookup can stand for, else None.

    Kinds: ``type`` (``type(fact) == T``, experta's ``TypeCheck``) and ``field`` (``fact[name] == literal``, an
    unbound ``L`` on a plain field name, for which experta reads ``fact[name]`` and compares with ``==``).
    """
    node = child.node
    if type(node) is not FeatureTesterNode or getattr(child.callback, "__self__", None) is not node or \
            getattr(child.callback, "__name__", None) != "activate":
        return None
    check = node.matcher
    if type(check) is TypeCheck:
        return ("type", None, check.fact_type)
    if type(check) is not FeatureCheck or type(check.how) is not L or check.how.__bind__ is not None:
        return None
    what, value = check.what, check.how.value
    if not isinstance(what, str) or not what or "__" in what or what.startswith("_") or what.endswith("_"):
        return None
    try:
        hash(value)
    except TypeError:
        return None
    return ("field", what, value)


class _Dispatch:
    """Stands for sibling tests of one kind: a table from the fact's type or field value to the tests it passes.

    Each test it activates still runs its own check, so a hash that agrees with ``==`` is all this relies on;
    except where the lookup is the check (``prepare``): a type test of the type looked up, or a test that a text
    field equals the text looked up (text equality is what the table's lookup decides), whose tests pass the
    token on as they are.
    """

    def __init__(self, kind: str, what: Any, table: dict[Any, list[Any]], children: list[Any]) -> None:
        self.kind, self.what, self.table, self.children = kind, what, table, children
        self.passed: dict[Any, list[tuple[Any, bool]]] = {}

    def prepare(self) -> None:
        """Mark each test whose check the lookup decides (once its tests have their final classes, ``_finish``)."""
        self.passed = {value: [(node, self._decided(node, value)) for node in nodes]
                       for value, nodes in self.table.items()}

    def _decided(self, node: Any, value: Any) -> bool:
        if not isinstance(node, _Tester):
            return False
        check = node.matcher
        if self.kind == "type":
            return type(check) is _Type and check.fact_type is value
        return type(check) is _Equal and check.what == self.what and type(check.value) is str and \
            type(value) is str and check.value == value

    def activate(self, token: Any) -> None:
        """Pass the token to the tests its fact's type or field value passes."""
        (fact,) = token.data
        if self.kind == "type":
            value: Any = type(fact)
            exact = True
        else:
            try:
                value = fact[self.what]
            except (KeyError, IndexError, TypeError):
                return
            exact = type(value) is str
        try:
            targets = self.passed.get(value, ())
        except TypeError:  # an unhashable value: compare with every literal, as experta would
            for k, nodes in self.table.items():
                if k == value:
                    for node in nodes:
                        node.activate(token)
            return
        for node, decided in targets:
            if decided and exact:  # the test's own check would pass: what it does then, without it
                for child in node.children:
                    child.callback(token)
            else:
                node.activate(token)

    def reset(self) -> None:
        """Reset what it stands for (experta's recursive reset passes through it)."""
        for child in self.children:
            child.node.reset()


def _copy(token: Any) -> Any:
    # Token.copy re-validates every fact of a token that is valid by construction; a token's facts are a frozenset
    # here (``CachedReteMatcher.changes``), which no node changes, so the copy shares it
    return tuple.__new__(type(token), (token.tag, token.data, token.context.copy()))


class _Tester(FeatureTesterNode):
    """experta's feature-test node, testing before it copies the token (most tokens fail the test).

    A test that binds nothing passes the token itself: every node a token reaches copies it before it changes
    it (this class) or only reads it (joins and negations build new tokens; where-nodes and conflict sets read).
    """

    __slots__ = ()

    def activate(self, token: Any) -> None:
        """Test the token's one fact; on a match, pass it (with a copy holding the match's bindings) on."""
        (fact,) = token.data
        match = self.matcher(fact)
        if not match:
            return
        _pass_bound(self, token, match)


def _pass_bound(node: Any, token: Any, match: Any) -> None:
    """Pass a token whose fact passed ``node``'s test on, with a copy holding the bindings the test answered."""
    if match is not True and (type(match) is dict or isinstance(match, Mapping)):  # most answer a plain bool
        token = _copy(token)
        context = token.context
        for key, value in match.items():  # experta's rules for bindings that disagree with the context
            if isinstance(key, tuple):
                if key[1] in context and context[key[1]] == value:
                    return
            else:
                if context.get(key, value) != value:
                    return
                if (False, key) in context and context[(False, key)] == value:
                    return
        context.update(match)
    for child in node.children:
        child.callback(token)


class _TestEqual(_Tester):
    """A test node whose check is ``_Equal``, made inline: one call less per fact tested (``_finish``).

    ``_Equal`` answers True or False and binds nothing, so a passing fact's token goes on as it is (``_Tester``).
    """

    __slots__ = ()

    def activate(self, token: Any) -> None:
        """Pass the token on when the fact's field equals the literal (``_Equal.__call__``, inlined)."""
        (fact,) = token.data
        check = self.matcher
        try:
            record = fact[check.what]
        except (IndexError, KeyError, TypeError):
            return
        if check.value == record:
            for child in self.children:
                child.callback(token)


class _TestPredicate(_Tester):
    """A test node whose check is ``_Predicate``, made inline (``_TestEqual``)."""

    __slots__ = ()

    def activate(self, token: Any) -> None:
        """Pass the token on when the condition holds of the fact's field (``_Predicate.__call__``, inlined)."""
        (fact,) = token.data
        check = self.matcher
        try:
            record = fact[check.what]
        except (IndexError, KeyError, TypeError):
            return
        if check.test(record):
            for child in self.children:
                child.callback(token)


class _TestCapture(_Tester):
    """A test node whose check is ``_Capture`` (``name << Pattern``), made inline.

    ``_Tester.activate`` with the one binding ``{bind: fact}`` the capture answers: the same checks against the
    token's context, the same copy holding the binding.
    """

    __slots__ = ()

    def activate(self, token: Any) -> None:
        """Bind the fact under the capture's name in a copy of the token and pass it on, unless that disagrees."""
        (fact,) = token.data
        bind = self.matcher.bind
        context = token.context
        if context:
            if type(bind) is tuple:
                if bind[1] in context and context[bind[1]] == fact:
                    return
            else:
                if bind in context and context[bind] != fact:
                    return
                if (False, bind) in context and context[(False, bind)] == fact:
                    return
            context = context.copy()
            context[bind] = fact
        else:
            context = {bind: fact}
        token = tuple.__new__(type(token), (token.tag, token.data, context))
        for child in self.children:
            child.callback(token)


class _TestBind(_Tester):
    """A test node whose check binds a field to a name and tests nothing else (``skill=MATCH.skill``), made inline.

    experta's ``wildcard_match`` answers ``{name: fact[field]}`` for every fact that has the field; ``_Tester``
    then copies the token and applies experta's rules for a binding that disagrees with the context. The same
    checks on the same values, and the same copy holding the binding, without the check's two calls and its dict.
    """

    __slots__ = ()

    @staticmethod
    def applies(check: Any) -> bool:
        """Whether ``check`` (a finished test's) is a ``_Field`` whose only work is binding the field's value."""
        if type(check) is not _Field or type(check.how) is not W:
            return False
        bind = check.how.__bind__
        return type(bind) is str and getattr(check.check, "__name__", None) == "wildcard_match"

    def activate(self, token: Any) -> None:
        """Bind the fact's field under the test's name in a copy of the token and pass it on, unless that disagrees."""
        (fact,) = token.data
        check = self.matcher
        try:
            record = fact[check.what]
        except (IndexError, KeyError, TypeError):
            return
        bind = check.how.__bind__
        context = token.context
        # ``_Tester.activate``'s checks for the one binding, in its order and with its comparisons
        if context.get(bind, record) != record:
            return
        if (False, bind) in context and context[(False, bind)] == record:
            return
        context = context.copy()
        context[bind] = record
        token = tuple.__new__(type(token), (token.tag, token.data, context))
        for child in self.children:
            child.callback(token)


class _TestAnd(_Tester):
    """A test node whose check is experta's ``and_match`` on one plain field (``id=MATCH.eid & P(test)``), inline.

    ``and_match`` asks each sub-check in turn through ``FeatureCheck.__call__``, which logs every answer through
    experta's watcher loggers; here each sub-check's own function is called on the same value, and the answers are
    combined as ``and_match`` combines them. The token then goes on as ``_Tester`` passes it.
    """

    __slots__ = ()

    @staticmethod
    def applies(check: Any) -> bool:
        """Whether ``check`` (a finished test's) is a ``_Field`` whose check is ``and_match`` over feature checks."""
        return type(check) is _Field and getattr(check.check, "__name__", None) == "and_match" and \
            type(check.expected) is tuple and all(type(x) is FeatureCheck for x in check.expected)

    def activate(self, token: Any) -> None:
        """Test the token's one fact with every sub-check; on a match, pass it (with any bindings) on."""
        (fact,) = token.data
        check = self.matcher
        try:
            record = fact[check.what]
        except (IndexError, KeyError, TypeError):
            return
        value: dict[Any, Any] = {}
        for sub in check.expected:  # ``and_match``, each sub-check's ``FeatureCheck.__call__`` less its log
            got = sub.check(record, sub.expected)
            if got is False:
                return
            if got is True:
                continue
            if isinstance(got, Mapping):
                value.update(got)
            else:
                raise TypeError("Bad check value.")
        _pass_bound(self, token, value or True)


_TESTERS: dict[type, type] = {}
"""A check's class -> the test node class that makes it inline (filled below its classes)."""


class _Field:
    """experta's ``FeatureCheck`` on one plain field of a fact, without its per-call work.

    ``FeatureCheck.__call__`` splits the field name on ``__`` for every fact it tests and logs every result
    through experta's watcher loggers; for a plain name (no ``__``, not a number) the split is the name itself,
    so reading ``fact[what]`` and applying the same check function to the same expected value is the same
    test. Set on a network's test nodes as it is built (``_finish``), and stored with it: experta's check
    function (a nested function, which pickle cannot name) is found again from the test when it loads.
    """

    __slots__ = ("what", "how", "check", "expected")

    def __init__(self, feature: Any) -> None:
        self.what, self.how, self.check, self.expected = feature.what, feature.how, feature.check, feature.expected

    @staticmethod
    def applies(matcher: Any) -> bool:
        """Whether ``matcher`` is a feature check on a plain field name."""
        if type(matcher) is not FeatureCheck:
            return False
        what = matcher.what
        return isinstance(what, str) and bool(what) and "__" not in what and not what.isnumeric()

    @staticmethod
    def of(feature: Any) -> _Field | _Equal | _Predicate:
        """The reader for ``feature``: one that compares or calls directly when the check binds nothing."""
        how = feature.how
        if getattr(how, "__bind__", True) is None:
            if type(how) is L:
                return _Equal(feature)
            if type(how) is P:
                return _Predicate(feature)
        return _Field(feature)

    def __reduce__(self) -> tuple[Any, ...]:
        return _field, (self.what, self.how)

    def __call__(self, fact: Any) -> Any:
        try:
            record = fact[self.what]
        except (IndexError, KeyError, TypeError):
            return False
        return self.check(record, self.expected)


def _field(what: Any, how: Any) -> _Field:
    """A stored ``_Field``: its check (and the value it is given) made again from the test, as experta makes it."""
    return _Field(_feature_check(what, how))


class _Equal:
    """``fact[what] == literal`` with nothing to bind: experta's ``equal_literal`` answers True or False.

    Only the field and the value are kept (what the test reads), so a stored network loads it without a call.
    """

    __slots__ = ("what", "value")

    def __init__(self, feature: Any) -> None:
        self.what, self.value = feature.what, feature.how.value

    def __call__(self, fact: Any) -> Any:
        try:
            record = fact[self.what]
        except (IndexError, KeyError, TypeError):
            return False
        return True if self.value == record else False  # noqa: SIM210 - experta's own test, operand order kept


class _Predicate:
    """``P(test)`` on ``fact[what]`` with nothing to bind: experta's ``match_predicate`` answers True or False.

    The test itself is called as it is (a knowledge condition's is ``knowledge.schema.Holds``: the one check
    the engine, explain and the probes share); stored as a reference to the rule's own test.
    """

    __slots__ = ("what", "test")

    def __init__(self, feature: Any) -> None:
        self.what, self.test = feature.what, feature.how.match

    def __call__(self, fact: Any) -> Any:
        try:
            record = fact[self.what]
        except (IndexError, KeyError, TypeError):
            return False
        return True if self.test(record) else False


class _Test:
    """experta's ``WhereCheck`` (a ``TEST`` over bound variables), without its per-call logging.

    ``WhereCheck.__call__`` reads the test's parameters from the token's context (``None`` when unbound), calls
    the test and logs the result through experta's watcher loggers; this does the same minus the log. Set on a
    network's where-nodes as it is built (``_finish``).
    """

    __slots__ = ("test", "parameters")

    def __init__(self, check: Any) -> None:
        self.test, self.parameters = check.test, tuple(check.parameters)

    def __call__(self, context: Any) -> Any:
        get = context.get
        return self.test(**{k: get(k) for k in self.parameters})


class _Where(WhereNode):
    """experta's where-node (a ``TEST``), reading the token in place: the test only reads its context.

    experta copies every token a where-node receives (re-validating each of its facts) although it never
    changes it; its children copy what they change (see ``_Tester``).
    """

    __slots__ = ()

    def activate(self, token: Any) -> None:
        """Pass the token on when the test holds over its bindings."""
        if self.matcher(token.context):
            for child in self.children:
                child.callback(token)


class _Activation(Activation):
    """experta's activation, its hash computed once.

    A conflict-set node looks each new activation up in its set of added or removed ones and then stores it
    there: experta hashes it anew each time (its rule, a frozen copy of its facts and of its bindings). What it
    hashes never changes once made (only ``key``, which the hash leaves out, is set later), so the first hash is
    kept.
    """

    def __init__(self, rule: Any, facts: Any, context: Any = None, frozen: Any = None) -> None:
        # experta's, but for the facts: a frozenset is kept as it is (experta copies them into a set, which nothing
        # changes afterwards), and hashed as it is below
        self.rule = rule
        self.facts = facts if type(facts) is frozenset else set(facts)
        self.key = None
        self.context = {} if context is None else context
        if frozen is not None:
            # ``frozenset(context.items())`` made already (the token's info): experta's hash and the engine's
            # signature (``engine._sig``) freeze the bindings again, hashing every bound fact in Python
            self.frozen = frozen

    def __hash__(self) -> int:
        state = self.__dict__
        h = state.get("_hash")
        if h is None:
            frozen = state.get("frozen")
            # experta's hash, of the frozen bindings kept where there are (an equal frozenset: the same hash)
            h = state["_hash"] = Activation.__hash__(self) if frozen is None \
                else hash((self.rule, frozenset(self.facts), frozen))
        return h


_NO_SET: frozenset[Any] = frozenset()
"""What a conflict-set node's memory and activation sets read as until a token first reaches it."""


class _TrackedCSN(ConflictSetNode):
    """A conflict-set node that tells its matcher when a token reached it (and reads the token uncopied).

    Its memory and its sets of new and withdrawn activations are made when a token first reaches it: most of a
    network's ~600 conflict-set nodes never hear of a fact in a consultation, and a stored network loaded with
    three empty sets each (and an empty list of the children it never has) made ~2,500 objects for nothing.
    Until then they read as the class's empty, immutable defaults.
    """

    __slots__ = ()
    memory: Any = _NO_SET
    added: Any = _NO_SET
    removed: Any = _NO_SET
    children: Any = ()  # the last node of a rule's chain: nothing below it

    def __getstate__(self) -> dict[str, Any]:
        """The node's state as stored, without its empty memory, sets and children (the defaults stand for them)."""
        state = dict(self.__dict__)
        for name in ("memory", "added", "removed", "children"):
            if name in state and not state[name]:
                del state[name]
        return state

    def activate(self, token: Any) -> None:
        """Record the (de)activation; the token is only read here, so experta's copy is not needed."""
        self._activate(token)

    def get_activations(self) -> tuple[Any, Any]:
        """The activations new and withdrawn since the last call, as experta's (empty sets from then on)."""
        state = self.__dict__
        return state.pop("added", _NO_SET), state.pop("removed", _NO_SET)

    def _activate(self, token: Any) -> None:
        # experta's ConflictSetNode._activate, step for step, with the token's info from ``_info``
        info = _info(token)
        bound = info.context
        if bound:
            context = {k: v for k, v in bound if isinstance(k, str)}
            # the info's frozen bindings are the activation's when it keeps them all (none negated)
            frozen = bound if len(context) == len(bound) else None
        else:  # (most tokens bind nothing: no comprehension's call)
            context = {}
            frozen = _NO_CONTEXT
        activation = _Activation(self.rule, info.data, context, frozen)
        state = self.__dict__
        memory = self.memory
        if memory is _NO_SET:  # the first token to reach it
            memory = self.memory = set()
        if token.tag is _VALID:
            if info not in memory:
                if not memory:  # the matcher's ``reset`` clears only the memories a run filled
                    self.touched.append(self)  # type: ignore[attr-defined]
                memory.add(info)
                removed = state.get("removed")
                if removed is not None and activation in removed:
                    removed.remove(activation)
                else:
                    added = state.get("added")
                    if added is None:
                        added = state["added"] = set()
                    added.add(activation)
        else:
            try:
                memory.remove(info)
            except ValueError:  # experta's own (a set raises KeyError: a missing token is an error there too)
                pass
            else:
                added = state.get("added")
                if added is not None and activation in added:
                    added.remove(activation)
                else:
                    removed = state.get("removed")
                    if removed is None:
                        removed = state["removed"] = set()
                    removed.add(activation)
        self.dirty.add(self)  # type: ignore[attr-defined]


class _Type:
    """experta's ``TypeCheck`` (``type(fact) == T``) without its per-call logging (set by ``_finish``)."""

    __slots__ = ("fact_type",)

    def __init__(self, check: Any) -> None:
        self.fact_type = check.fact_type

    def __call__(self, fact: Any) -> bool:
        return type(fact) == self.fact_type  # noqa: E721 - experta's own comparison


class _Capture:
    """experta's ``FactCapture`` (``name << Pattern``: bind the fact) without its per-call logging."""

    __slots__ = ("bind",)

    def __init__(self, check: Any) -> None:
        self.bind = check.bind

    def __call__(self, fact: Any) -> dict[Any, Any]:
        return {self.bind: fact}


_TESTERS.update({_Equal: _TestEqual, _Predicate: _TestPredicate, _Capture: _TestCapture})

_VALID = Token.TagType.VALID
_INVALID = Token.TagType.INVALID


_NO_CONTEXT: frozenset[Any] = frozenset()


_INFOS: dict[int, tuple[Any, Any]] = {}
"""id(token) -> (token, its info) while one change passes through the network (``CachedReteMatcher.changes``
empties it). A token reaches many memories as it is (sibling negations, chains of them: every node that changes
a token copies it first), and each used to rebuild the same frozensets; the token is kept with its info, so its
id cannot be reused meanwhile."""


def _info(token: Any) -> Any:
    # experta's Token.to_info, without the namedtuple constructor's detour (most tokens bind nothing)
    context = token.context
    data = token.data
    if not context and type(data) is frozenset:  # nothing to freeze: cheaper made than looked up
        return tuple.__new__(TokenInfo, (data, _NO_CONTEXT))
    hit = _INFOS.get(id(token))
    if hit is not None and hit[0] is token:
        return hit[1]
    # (the network's own tokens hold a frozenset of facts already, which ``frozenset`` would only copy)
    info = tuple.__new__(TokenInfo, (data if type(data) is frozenset else frozenset(data),
                                     frozenset(context.items()) if context else _NO_CONTEXT))
    _INFOS[id(token)] = (token, info)
    return info


def _entry(token: Any) -> tuple[Any, Any]:
    """A token as a join's or a presence's memory keeps it: its facts and its bindings, as they are.

    Those memories are lists, only scanned and compared (``==``), never hashed, so the bindings need not be frozen
    as ``_info`` freezes them (which hashes every bound fact, in Python); no node changes a token's bindings once
    made (each makes its own: ``_copy``), so they are kept as they are.
    """
    data = token.data
    return (data if type(data) is frozenset else frozenset(data), token.context)


def _same_context(left: Mapping[Any, Any], right: Mapping[Any, Any]) -> bool:
    """Whether the bindings of both sides agree (and no negated one matches), as experta's ``SameContextCheck``."""
    for key, value in left.items():
        if key[0] is False:
            raise RuntimeError(f'Negated value "{key[1]}" present before capture.')
        if key in right and value != right[key]:
            return False
        if (False, key) in right and value == right[(False, key)]:
            return False
    return True


class _Join(OrdinaryMatchNode):
    """experta's join node, reading arriving tokens without copying or re-validating them.

    The same joins in the same order as ``OrdinaryMatchNode``: an arriving token is only read (its facts and
    context go into a new token), so no copy is needed; the joined token is built from facts that are valid by
    construction. Only networks whose join test is experta's ``SameContextCheck`` take this class.
    """

    __slots__ = ()
    # Made when a token first arrives on their side (most of a network's ~500 joins hear of no fact in a
    # consultation: a stored network loaded two empty lists for each); until then the empty tuple stands for them
    left_memory: Any = ()
    right_memory: Any = ()

    def __getstate__(self) -> dict[str, Any]:
        """The node's state as stored, without its empty memories (the class's defaults stand for them)."""
        state = dict(self.__dict__)
        for name in ("left_memory", "right_memory"):
            if name in state and not state[name]:
                del state[name]
        return state

    def activate_left(self, token: Any) -> None:
        """Join a token from the left input."""
        left = self.left_memory
        if type(left) is tuple:
            left = self.left_memory = []
        self._join(token, left, self.right_memory, True)

    def activate_right(self, token: Any) -> None:
        """Join a token from the right input."""
        right = self.right_memory
        if type(right) is tuple:
            right = self.right_memory = []
        self._join(token, right, self.left_memory, False)

    def _join(self, token: Any, branch: list[Any], other: list[Any], is_left: bool) -> None:
        # ``_entry(token)``, inlined: a join is the node most often reached (one call less per arrival)
        data = token.data
        entry = (data if type(data) is frozenset else frozenset(data), token.context)
        if token.tag is _VALID:
            if not branch and not other:  # for the matcher's ``reset``: a memory filled since the last one
                self.touched.append(self)  # type: ignore[attr-defined]
            branch.append(entry)
        else:
            try:
                branch.remove(entry)
            except ValueError:
                pass
        if not other:
            return
        context = token.context
        tag, data, children = token.tag, token.data, self.children
        # what the arriving token gives every joined one, read once per arrival rather than once per pair
        mine = {k: v for k, v in context.items() if isinstance(k, str)} if context else None
        for other_data, other_context in other:
            if other_context:
                if not (_same_context(context, other_context) if is_left else _same_context(other_context, context)):
                    continue
                new = dict(mine) if mine else {}
                for k, v in other_context.items():
                    if not isinstance(k, tuple):
                        new[k] = v
            else:  # nothing bound on the other side (most memories): nothing to compare, nothing to add
                if is_left and context and not _same_context(context, {}):
                    continue
                new = dict(mine) if mine else {}
            joined = tuple.__new__(Token, (tag, data | other_data, new))
            for child in children:
                child.callback(joined)


class _Not(NotNode):
    """experta's negation node, reading arriving tokens without copying or re-validating them.

    The same counts and the same tokens passed on, in the same order, as ``NotNode``; only networks whose test
    is experta's ``SameContextCheck`` take this class.
    """

    __slots__ = ()

    def activate_left(self, token: Any) -> None:
        """Count the right-input matches of a token from the left input."""
        valid = token.tag is _VALID
        if not self.right_memory:
            if valid:
                self.left_memory[_info(token)] = 0
            else:
                del self.left_memory[_info(token)]
            for child in self.children:
                child.callback(token)
            return
        context = token.context
        count = 0
        for _, right_context in self.right_memory:
            if _same_context(context, dict(right_context)):
                count += 1
                if not valid:
                    break
        if count == 0:
            for child in self.children:
                child.callback(token)
        if valid:
            self.left_memory[_info(token)] = count
        else:
            del self.left_memory[_info(token)]

    def activate_right(self, token: Any) -> None:
        """Update the counts of the left tokens a right-input token matches."""
        if token.tag is _VALID:
            self.right_memory.append(_info(token))
            inc = 1
        else:
            inc = -1
            self.right_memory.remove(_info(token))
        context = token.context
        memory = self.left_memory
        for left in memory:
            if not left.context or _same_context(dict(left.context), context):
                memory[left] += inc
                count = memory[left]
                if (count == 0 and inc == -1) or (count == 1 and inc == 1):
                    new = tuple.__new__(Token, (_VALID if inc == -1 else Token.TagType.INVALID, left.data,
                                                dict(left.context)))
                    for child in self.children:
                        child.callback(new)


class _Presence:
    """Whether a pattern that binds nothing matches some fact now: the right input of every negation of it.

    experta gives each rule its own negation node per ``NOT(...)``, and a fact such a pattern matches reaches
    every one of them (``NOT(Route())`` in a dozen rules: a dozen right activations, each passing its left
    tokens on or back). A pattern that binds nothing matches every left token alike, so whether it holds is one
    count, kept here once for all of them; the runs of such negations (``_Gate``) hear only when it starts or
    stops matching. Its memory holds the matched facts, as a negation node's right memory does.
    """

    __slots__ = ("memory", "gates", "children", "touched")

    def __init__(self) -> None:
        # the empty tuple until a fact first matches (most of the ~260 patterns match none in a consultation,
        # and a stored network loaded an empty list for each)
        self.memory: Any = ()
        self.gates: list[_Gate] = []  # a gate negating it twice is listed twice
        self.children: Any = ()  # none: it tells its gates directly
        self.touched: list[Any] = []  # the matcher's list of memories filled since its last reset (``_index``)

    def _reset(self) -> None:
        self.memory = []

    def reset(self) -> None:
        """Forget the matched facts (a gate resets its own count)."""
        self._reset()

    def activate(self, token: Any) -> None:
        """Count a fact the pattern matched (or no longer matches); tell the gates when it starts or stops."""
        # ``_Gate.block`` inlined for its usual case, a count that moves without crossing zero (a pattern such as
        # ``NOT(Route())`` gates dozens of rules, most of them blocked already by another pattern)
        if type(self.memory) is tuple:  # the first fact to reach it (``__init__``)
            self.memory = []
        data = token.data  # ``_entry(token)``, inlined (as in ``_Join._join``)
        entry = (data if type(data) is frozenset else frozenset(data), token.context)
        if token.tag is _VALID:
            self.memory.append(entry)
            if len(self.memory) == 1:
                touched = self.touched
                touched.append(self)
                for gate in self.gates:
                    gate.blocked += 1
                    if gate.blocked == 1:
                        touched.append(gate)  # a count above zero is state its ``reset`` clears
                        if gate.left_memory:  # (most gates a pattern closes hold no token: nothing to withdraw)
                            gate.withdraw(_INVALID)
        else:
            self.memory.remove(entry)
            if not self.memory:
                for gate in self.gates:
                    gate.blocked -= 1
                    if gate.blocked == 0 and gate.left_memory:
                        gate.withdraw(_VALID)


class _Gate:
    """A run of negations of patterns that bind nothing, on one rule's path: ``NOT(Route()), NOT(Boundary())...``.

    experta chains one negation node per pattern, each passing a left token on while no fact matches its
    pattern; a token leaves the chain when none of the patterns matches. Each pattern binds nothing, so that is
    one test for every token: none of the gate's ``_Presence`` counts is above zero (``blocked`` counts those
    that are). The same tokens are passed on and back, to the same children, as the chain passes them.
    """

    __slots__ = ("left_memory", "presences", "blocked", "children", "touched")

    def __init__(self, presences: list[_Presence], children: list[Any]) -> None:
        # the empty tuple until a token first arrives (most of the ~560 gates hear of none in a consultation, and
        # a stored network loaded an empty dict for each)
        self.left_memory: Any = ()
        self.presences = presences
        self.blocked = 0
        self.children = children
        self.touched: list[Any] = []  # the matcher's list of memories filled since its last reset (``_index``)

    def _reset(self) -> None:
        self.left_memory = {}
        self.blocked = 0

    def reset(self) -> None:
        """Reset its memory and, as experta's recursive reset does, its children's."""
        self._reset()
        for child in self.children:
            child.node.reset()

    def activate_left(self, token: Any) -> None:
        """Keep a token from the left; pass it on while nothing matches any of the negated patterns."""
        if type(self.left_memory) is tuple:  # the first token to reach it (``__init__``)
            self.left_memory = {}
        if token.tag is _VALID:
            if not self.left_memory and not self.blocked:  # for the matcher's ``reset``
                self.touched.append(self)
            self.left_memory[_info(token)] = None
        else:
            del self.left_memory[_info(token)]
        if not self.blocked:
            for child in self.children:
                child.callback(token)

    def withdraw(self, tag: Any) -> None:
        """Pass every kept token on again with ``tag``: INVALID as the gate closes, VALID as it opens again.

        Its ``_Presence`` patterns count ``blocked`` and call this as the count leaves zero or comes back to it.
        """
        for left in self.left_memory:
            new = tuple.__new__(Token, (tag, left.data, dict(left.context)))
            for child in self.children:
                child.callback(new)


def _bindings_above(node: Any, parents: dict[int, list[Any]], root: Any) -> set[Any] | None:
    """The names a token reaching ``node`` may have bound (every test above it).

    None when a test above binds in a way not read here (then nothing is assumed about it).
    """
    names: set[Any] = set()
    seen: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen or n is root:
            continue
        seen.add(id(n))
        if type(n) is _Tester:
            m = n.matcher
            if type(m) is FactCapture:
                names.add(m.bind)
            elif type(m) is FeatureCheck and type(m.how) in (L, P, W):
                if m.how.__bind__ is not None:
                    names.add(m.how.__bind__)
            elif type(m) is not TypeCheck:
                return None
        elif type(n) not in (_Dispatch, _Join, _Not, _Where, _Gate):
            return None
        above = parents.get(id(n))
        if not above:
            return None
        stack.extend(above)
    return names


def _gate_negations(root: Any) -> None:
    """Replace each run of negations of patterns that bind nothing by one ``_Gate`` over shared ``_Presence``s.

    experta tests a pattern ``NOT(Route())`` with a negation node whose right input is the pattern's alpha node:
    the fact's type and field tests, then the capture of the fact under the pattern's own name (one node for
    every rule that negates the same pattern). When nothing else binds on that path and the name is bound
    nowhere on a rule's left (checked), the negation's test (experta's ``SameContextCheck``) holds for every left
    token against every such fact: the negation passes a token exactly while no fact reaches the capture. That
    is counted once (``_Presence``, under the capture, for every rule), and a run of such negations, each the
    only child of the one before, becomes one ``_Gate`` on the rule's path.
    """
    nodes = _walk(root)
    parents: dict[int, list[Any]] = {}
    lefts: dict[int, list[Any]] = {}
    rights: dict[int, list[Any]] = {}
    for node in nodes:
        for c in node.children:
            port = getattr(c.callback, "__name__", None)
            parents.setdefault(id(c.node), []).append(node)
            if port == "activate_left":
                lefts.setdefault(id(c.node), []).append(node)
            elif port == "activate_right":
                rights.setdefault(id(c.node), []).append(node)

    def source(n: Any) -> Any:
        """The capture a negation's right input is, when nothing above it binds; else None."""
        if type(n) is not _Not or len(lefts.get(id(n), ())) != 1 or len(rights.get(id(n), ())) != 1 or \
                len(parents[id(n)]) != 2:
            return None
        capture = rights[id(n)][0]
        if type(capture) is not _Tester or type(capture.matcher) is not FactCapture or \
                _bindings_above(capture, parents, root) != {capture.matcher.bind}:
            return None
        return capture

    presences: dict[int, tuple[Any, _Presence]] = {}
    for head in nodes:
        if source(head) is None:
            continue
        left = lefts[id(head)][0]
        if source(left) is not None and len(left.children) == 1:
            continue  # inside a run: its head gates it
        bound = _bindings_above(left, parents, root)
        if bound is None:
            continue
        run = [head]
        while len(run[-1].children) == 1:
            nxt = run[-1].children[0]
            if nxt.callback.__name__ != "activate_left" or source(nxt.node) is None:
                break
            run.append(nxt.node)
        # a capture name bound on the left would make the negation's test read it: the run ends before it
        run = run[:next((i for i, n in enumerate(run) if rights[id(n)][0].matcher.bind in bound), len(run))]
        if not run:
            continue
        gate = _Gate([], list(run[-1].children))
        for n in run:
            capture = source(n)
            found = presences.get(id(capture))
            if found is None:
                presence = _Presence()
                presences[id(capture)] = (capture, presence)
                capture.children.append(ChildNode(presence, presence.activate))
            else:
                presence = found[1]
            capture.children = [c for c in capture.children if c.node is not n]
            presence.gates.append(gate)
            gate.presences.append(presence)
        left.children = [ChildNode(gate, gate.activate_left) if c.node is head else c for c in left.children]
    # A capture left with its presence alone binds a name nobody reads: the presence counts the facts one test up
    for key, (capture, presence) in presences.items():
        above = parents[key]
        if len(above) == 1 and [c.node for c in capture.children] == [presence]:
            above[0].children = [ChildNode(presence, presence.activate) if c.node is capture else c
                                 for c in above[0].children]


_FAST = {FeatureTesterNode: _Tester, ConflictSetNode: _TrackedCSN, OrdinaryMatchNode: _Join, NotNode: _Not,
         WhereNode: _Where}
_PORTS = ("activate", "activate_left", "activate_right")


def _walk(root: Any) -> list[Any]:
    """Every node once, depth first, children in order (the order experta's own walk finds them in)."""
    seen: set[int] = set()
    stack = [root]
    order: list[Any] = []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(c.node for c in reversed(node.children))
    return order


def _plain_test(child: Any) -> bool:
    """Whether a child is a plain test of one field of the fact.

    Plain: experta's own feature-test node, reached by its ``activate``, on a field name with no ``__`` in it.
    """
    node = child.node
    if type(node) is not FeatureTesterNode or getattr(child.callback, "__self__", None) is not node or \
            getattr(child.callback, "__name__", None) != "activate":
        return False
    check = node.matcher
    if type(check) is not FeatureCheck:
        return False
    what = check.what
    return isinstance(what, str) and bool(what) and "__" not in what and not what.startswith("_") \
        and not what.endswith("_")


def _literal(child: Any) -> bool:
    """A plain test of one field against a literal, binding nothing (``name == "lr"``)."""
    if not _plain_test(child):
        return False
    how = child.node.matcher.how
    return type(how) is L and how.__bind__ is None


def _hoist_literals(root: Any) -> None:
    """Put a pattern's literal tests before its predicate tests (``name == "lr"`` before ``value > 0.1``).

    experta orders a pattern's tests as it finds them, and for some patterns that puts a predicate on ``value``
    straight below the fact-type test, with the ``name`` test under it: every observation of any name then runs
    that predicate (likewise a test that binds the value, ``value << MATCH.v``, for a join). A literal test binds
    nothing and leaves the token as it is, so the order does not change what passes or what is bound: a test
    (other than a literal) whose children are all literal tests becomes, per child, the literal test with a
    copy of the test under it (then the literal tests join their siblings' lookup table, ``_Dispatch``).
    """
    nodes = _walk(root)
    parents: dict[int, int] = {}
    for node in nodes:
        for c in node.children:
            parents[id(c.node)] = parents.get(id(c.node), 0) + 1
    for node in nodes:
        out: list[Any] = []
        changed = False
        for child in node.children:
            pred = child.node
            if _plain_test(child) and not _literal(child) and parents[id(pred)] == 1 and pred.children and \
                    all(_literal(c) and parents[id(c.node)] == 1 for c in pred.children):
                for c in pred.children:
                    literal = c.node
                    below = FeatureTesterNode(pred.matcher)
                    below.children = list(literal.children)
                    above = FeatureTesterNode(literal.matcher)
                    above.children = [ChildNode(below, below.activate)]
                    out.append(ChildNode(above, above.activate))
                changed = True
            else:
                out.append(child)
        if changed:
            node.children = out


def _optimise(root: Any) -> None:
    """Rewrite a freshly built network for speed, keeping what it matches.

    Literal tests go first; sibling tests of one kind become one ``_Dispatch``; tests and conflict-set nodes
    take the classes above.
    """
    _hoist_literals(root)
    for node in _walk(root):
        if isinstance(node, _Dispatch):
            continue
        groups: dict[tuple[str, Any], list[tuple[int, Any, Any]]] = {}
        for i, child in enumerate(node.children):
            key = _dispatch_key(child)
            if key is not None:
                groups.setdefault(key[:2], []).append((i, key[2], child))
        replace: dict[int, Any] = {}
        drop: set[int] = set()
        for (kind, what), members in groups.items():
            if len(members) < 2:
                continue
            table: dict[Any, list[Any]] = {}
            for _, value, child in members:
                table.setdefault(value, []).append(child.node)
            d = _Dispatch(kind, what, table, [child for _, _, child in members])
            replace[members[0][0]] = ChildNode(d, d.activate)
            drop.update(i for i, _, _ in members[1:])
        if replace:
            node.children = [replace.get(i, c) for i, c in enumerate(node.children) if i not in drop]
    nodes = _walk(root)
    for node in nodes:
        fast = _FAST.get(type(node))
        if fast is not None and (fast not in (_Join, _Not) or type(node.matcher) is SameContextCheck):
            node.__class__ = fast
    for node in nodes:  # callbacks were bound to the old classes' methods
        node.children = [ChildNode(c.node, getattr(c.node, c.callback.__name__))
                         if getattr(c.callback, "__self__", None) is c.node and c.callback.__name__ in _PORTS
                         else c for c in node.children]
    _gate_negations(root)


def _finish(nodes: list[Any]) -> None:
    """Give a built network's nodes and tests the classes above (``_optimise``'s last step, before it is stored).

    Conflict-set nodes report themselves (``_TrackedCSN``) and keep their rule's hash (``_Twin``); tests on one
    plain field, on the fact's type, captures and ``TEST`` checks read without experta's per-call work.
    """
    for node in nodes:
        if type(node) is ConflictSetNode:
            node.__class__ = _TrackedCSN
        if isinstance(node, _TrackedCSN):
            if type(node.rule) is Rule:  # experta's own copy of the rule: hashed once too
                node.rule.__class__ = _Twin
        elif type(node) is _Tester and _Field.applies(node.matcher):
            node.matcher = _Field.of(node.matcher)
        elif type(node) is _Tester and type(node.matcher) is TypeCheck:
            node.matcher = _Type(node.matcher)
        elif type(node) is _Tester and type(node.matcher) is FactCapture:
            node.matcher = _Capture(node.matcher)
        elif type(node) is _Where and type(node.matcher) is WhereCheck:
            node.matcher = _Test(node.matcher)
    for node in nodes:
        if type(node) is _Tester:
            node.__class__ = _TestBind if _TestBind.applies(node.matcher) else _TestAnd \
                if _TestAnd.applies(node.matcher) else _TESTERS.get(type(node.matcher), _Tester)
    for node in nodes:  # callbacks bound to ``_Tester.activate`` before: to the new class's
        children = getattr(node, "children", ())
        if any(getattr(c.callback, "__self__", None) is c.node and c.callback.__func__ is not
               getattr(type(c.node), c.callback.__name__, None) for c in children):
            node.children = [ChildNode(c.node, getattr(c.node, c.callback.__name__))
                             if getattr(c.callback, "__self__", None) is c.node and c.callback.__name__ in _PORTS
                             else c for c in children]
    made: dict[Any, Any] = {}
    for node in nodes:
        if type(node) is _Dispatch:
            node.prepare()
        elif type(node) in (_Tester, _TestEqual, _TestPredicate, _TestCapture, _TestBind, _TestAnd, _Join, _Not):
            node.matcher = _one(made, node.matcher)


_EXACT = (str, int, bool, type(None))
"""Kinds of value two tests may share a check object on: equal values of one of these behave alike in every
comparison (unlike 0.0 and -0.0, or values of classes with their own equality)."""


def _one(made: dict[Any, Any], check: Any) -> Any:
    """``check``, or an equal check made before for another node (``made``): one object for the network's copies.

    Only checks that hold nothing but what they test and are never changed: a join's ``SameContextCheck`` (it
    holds nothing), a literal test of one field (``_Equal``: the field and the value) and a capture (``_Capture``:
    the name). A stored network loaded ~1,600 of them, ~1,000 of them copies.
    """
    kind = type(check)
    if kind is SameContextCheck:
        key: Any = (kind,)
    elif kind is _Equal and type(check.what) is str and type(check.value) in _EXACT:
        key = (kind, check.what, type(check.value), check.value)
    elif kind is _Capture and type(check.bind) is str:
        key = (kind, check.bind)
    else:
        return check
    return made.setdefault(key, check)


def _lists(nodes: list[Any]) -> tuple[list[Any], list[Any], list[Any]]:
    """What a matcher indexes of a finished network's nodes.

    Returns:
        The conflict-set nodes that report themselves (in ``nodes``' order, experta's), the other conflict-set
        nodes (asked every time, as experta does), and the nodes that have a memory.
    """
    tracked: list[Any] = []
    always: list[Any] = []
    memories: list[Any] = []
    for node in nodes:
        if isinstance(node, _TrackedCSN):
            tracked.append(node)
        elif isinstance(node, ConflictSetNode):
            always.append(node)
        if hasattr(node, "memory") or hasattr(node, "left_memory"):
            memories.append(node)
    return tracked, always, memories


def _link(conflict_sets: list[Any], always: list[Any], memories: list[Any]) -> tuple[Any, ...]:
    """Link a network's nodes to one change set and one list of filled memories, and part its memories by kind.

    The conflict-set nodes report a change to the set (``_TrackedCSN.dirty``); our memory nodes list themselves
    in the list as a memory of theirs goes from empty to holding something (``touched``). Done on the network
    built (and so stored with it: a loaded network comes linked, its ~2,000 nodes not visited one by one), whose
    memories are all empty: from here on the list holds every memory of ours that holds something.

    Raises:
        ValueError: A memory of ours holds something (the list would miss it; such a network is not stored).

    Returns:
        The change set, the list, then the memory nodes of ``_Join``, ``_TrackedCSN``, ``_Presence``, ``_Gate``
        and of any other class (reset as experta resets them), each in ``memories``' order.
    """
    dirty: set[Any] = set()
    touched: list[Any] = []
    for node in conflict_sets:
        node.dirty = dirty
    parts: dict[type, list[Any]] = {_Join: [], _TrackedCSN: [], _Presence: [], _Gate: []}
    others: list[Any] = []
    for node in memories:
        part = parts.get(type(node))
        if part is None:
            others.append(node)
        else:
            # the list holds every memory filled since the last reset only if each starts empty
            if getattr(node, "memory", None) or getattr(node, "left_memory", None) or \
                    getattr(node, "right_memory", None) or getattr(node, "blocked", 0):
                raise ValueError(f"a network with facts in it: {type(node).__name__} holds some")
            part.append(node)
            node.touched = touched
    return (dirty, touched, *parts.values(), others)


def _links_shape(links: Any) -> bool:
    """Whether a stored network's links are what ``_link`` returns (an empty set, then six lists)."""
    return (type(links) is tuple and len(links) == 7 and type(links[0]) is set and not links[0]
            and all(type(x) is list for x in links[1:]) and not links[1])


def _field_steps(d: _Dispatch) -> dict[Any, tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """A field ``_Dispatch``'s table as what its ``activate`` calls for each value: (for a text value, otherwise).

    For a value that is text (``exact``) a test the lookup decides is skipped and its children are called; for
    any other value every test runs its own check. Each is the list of calls ``_Dispatch.activate`` makes, in
    its order.
    """
    out: dict[Any, tuple[tuple[Any, ...], tuple[Any, ...]]] = {}
    for value, targets in d.passed.items():
        exact: list[Any] = []
        for node, decided in targets:
            if decided:
                exact.extend(child.callback for child in node.children)
            else:
                exact.append(node.activate)
        out[value] = (tuple(exact), tuple(node.activate for node, _ in targets))
    return out


def _alpha_plan(root: Any) -> dict[type, tuple[tuple[Any, ...], ...]] | None:
    """What a fact's token meets below the root, by the fact's type, with the dispatches on fields spelled out.

    The root's one child is the ``_Dispatch`` on the fact's type; every test it reaches is decided by the lookup,
    so a fact of a type goes on to the test's children: those are called in order, except that a child which is
    a ``_Dispatch`` on a field becomes its table (``_field_steps``), looked up in place of its call. Each step is
    ``(field, table, dispatch, None)`` or ``(None, None, None, callback)``. The same calls, in the same order, as
    the nodes make (``CachedReteMatcher.changes`` walks it); None for a network of another shape.
    """
    children = root.children
    if len(children) != 1:
        return None
    top = children[0].node
    if type(top) is not _Dispatch or top.kind != "type" or children[0].callback != top.activate:
        return None
    plan: dict[type, tuple[tuple[Any, ...], ...]] = {}
    for fact_type, targets in top.passed.items():
        if not isinstance(fact_type, type):
            return None
        steps: list[tuple[Any, ...]] = []
        for node, decided in targets:
            if not decided:
                return None
            for child in node.children:
                below = child.node
                if type(below) is _Dispatch and below.kind == "field" and child.callback == below.activate:
                    steps.append((below.what, _field_steps(below), below, None))
                else:
                    steps.append((None, None, None, child.callback))
        plan[fact_type] = tuple(steps)
    return plan


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
                root, nodes, *lists = load_network(blob, rules)
                foreign = {type(n).__module__ for n in nodes} - {__name__, ConflictSetNode.__module__}
                if foreign:  # nodes of another copy of this module (a private copy's entry): not ours to use
                    raise pickle.UnpicklingError(f"nodes from {sorted(foreign)}")
            except Exception as exc:  # noqa: BLE001 - a cache entry that does not load is rebuilt, never trusted
                log.debug("trainopt cache: the stored network did not load (%s); rebuilding", exc)
                root, blob = None, None
        if root is None:
            super().build_network()
            root = self.root_node
            _optimise(root)
            _finish(_walk(root))
            if name:
                try:
                    blob = dump_network(root, rules)
                except Exception as exc:  # noqa: BLE001 - something unpicklable: build in every process
                    log.debug("trainopt cache: the network cannot be stored (%s)", exc)
                    blob = None
                if blob is not None:
                    cache.store(name, blob)
            lists = [*_lists(_walk(root))]
            lists.append(_link(*lists))
        if name and blob is not None:
            cls._rete_blob = blob  # the next engine of this class (another thread) loads from memory
        self.root_node = root
        self._index(*lists)
        self._alpha = _alpha_plan(root)

    def _index(self, conflict_sets: list[Any], always: list[Any], memories: list[Any], links: tuple[Any, ...]) \
            -> None:
        """Take the network's change set and list of filled memories, and number its conflict sets in experta's order.

        Args:
            conflict_sets: The ``_TrackedCSN`` nodes, in ``_walk`` order (``_lists``).
            always: The other conflict-set nodes, asked every time.
            memories: The nodes that have a memory (cleared by ``reset``).
            links: What ``_link`` made of these: the set and list the nodes report to, and the memories by kind.
        """
        self.dirty: set[Any] = links[0]
        self.order: dict[Any, int] = dict(zip(conflict_sets, range(len(conflict_sets))))
        self.always: list[Any] = always
        self.memories: list[Any] = memories
        # ``reset`` clears only what holds something: most of a network's ~2,000 memories stay empty in a
        # consultation, and a fresh empty container in place of an empty one changes nothing. Our own node
        # classes are checked by what their ``_reset`` empties; any other node is reset as experta would.
        # Our node classes add themselves to ``touched`` as a memory of theirs goes from empty to holding
        # something, so ``reset`` visits the few hundred a run filled, not all ~2,000 (a scan that, right after a
        # run, reads nodes long gone from the processor's caches). The first reset too: ``_link`` linked the
        # network with every memory empty (built, or stored so), so the list has missed none.
        self.touched: list[Any] = links[1]
        self._joins, self._csns, self._presences, self._gates, self._others = links[2:]

    def changes(self, adding: Any = None, deleting: Any = None) -> tuple[list[Any], list[Any]]:
        """Pass the changes through the network; collect activations from the nodes they reached."""
        # The first change after a reset is the engine's initial fact, alone, every time (experta's ``reset``): what
        # it leaves in the network is the same every time too, and is put back as it was left (``_Snapshot``)
        # rather than passed through a few hundred nodes again.
        # (not with nodes of other kinds: ``reset`` resets them, but a snapshot neither captures nor restores them)
        first = self.__dict__.pop("_fresh", False) and not deleting and adding is not None and len(adding) == 1 \
            and type(adding[0]) is InitialFact and not self._others
        if first:
            snapshot = self.__dict__.get("_snapshot")
            if snapshot is not None and snapshot.fact == adding[0]:
                snapshot.restore(self)
                return self._collect()
        # experta's bus node (``root_node.add``/``remove``): a token of the one fact to each child, built here
        # without ``Token.__new__``'s checks of what is a fact by construction, nor its debug log
        children = self.root_node.children
        alpha = self.__dict__.get("_alpha")
        try:
            for tag, facts in ((_INVALID, deleting), (_VALID, adding)):
                if facts is None:
                    continue
                for fact in facts:
                    token = tuple.__new__(Token, (tag, frozenset((fact,)), {}))
                    if alpha is None:
                        for child in children:
                            child.callback(token)
                        continue
                    # the type dispatch, its tests and the dispatches on fields below them, as ``_alpha_plan``
                    # spelled them out (``_Dispatch.activate``, inlined: the same calls in the same order)
                    for what, table, dispatch, call in alpha.get(type(fact), ()):
                        if call is not None:
                            call(token)
                            continue
                        try:
                            value = fact[what]
                        except (KeyError, IndexError, TypeError):
                            continue
                        try:
                            got = table.get(value)
                        except TypeError:  # an unhashable value: the dispatch compares it with every literal
                            dispatch.activate(token)
                            continue
                        if got is not None:
                            for call in got[0] if type(value) is str else got[1]:
                                call(token)
        finally:
            _INFOS.clear()
        if first:
            self._snapshot = _Snapshot(adding[0], self)
        return self._collect()

    def _collect(self) -> tuple[list[Any], list[Any]]:
        """The activations new and withdrawn at the conflict-set nodes changes reached, in the network's order."""
        added: list[Any] = []
        removed: list[Any] = []
        for node in self.always:
            a, r = node.get_activations()
            added.extend(a)
            removed.extend(r)
        if self.dirty:
            for node in sorted(self.dirty, key=self.order.__getitem__):
                a, r = node.get_activations()
                added.extend(a)
                removed.extend(r)
            self.dirty.clear()
        return added, removed

    def reset(self) -> None:
        """Clear every memory filled since the last reset (``touched``); the others are empty already."""
        touched = self.touched
        # each line is what the class's ``_reset`` does (experta's for joins and conflict sets), inlined; a node
        # listed twice (filled, emptied, filled again) is cleared twice, which changes nothing
        for node in touched:
            kind = type(node)
            if kind is _Gate:  # the most listed: a pattern that starts matching lists every gate it closes
                node.blocked = 0
                if node.left_memory:  # (one listed for its count alone holds no token: its memory stays)
                    node.left_memory = {}
            elif kind is _Join:
                node.left_memory = []
                node.right_memory = []
            elif kind is _TrackedCSN:
                node.memory = set()
            else:  # _Presence
                node.memory = []
        touched.clear()
        for node in self._others:
            node._reset()
        self._fresh = True


class _Snapshot:
    """What one fact, passed alone through an empty network, left in it: its memories and pending activations.

    The engine declares its initial fact first after every reset, into an empty network, so what it leaves there is
    the same every time: the memories it filled (about 400, a token each, for the rules whose first pattern is a
    negation) and a few conflict-set nodes' new activations. ``restore`` puts that state back in new containers
    (later changes add to them and remove from them), with new activations (the engine keys and marks the ones on
    its agenda); the conflict-set nodes are reported changed as the pass would have reported them, so the matcher
    collects the same activations in the same order.
    """

    __slots__ = ("fact", "nodes", "filled", "dirty")

    def __init__(self, fact: Any, matcher: CachedReteMatcher) -> None:
        self.fact = fact
        self.nodes: list[tuple[Any, tuple[Any, ...]]] = []
        for node in matcher.touched:
            kind = type(node)
            if kind is _Join:
                state: tuple[Any, ...] = (tuple(node.left_memory), tuple(node.right_memory))
            elif kind is _TrackedCSN:
                made = node.__dict__
                state = (tuple(node.memory), *(tuple((a.rule, a.facts, dict(a.context)) for a in made.get(k, ()))
                                               for k in ("added", "removed")))
            elif kind is _Presence:
                state = (tuple(node.memory),)
            elif kind is _Gate:
                state = (tuple(node.left_memory), node.blocked)
            else:
                raise TypeError(f"no snapshot of a {kind.__name__}")
            self.nodes.append((node, state))
        self.filled = tuple(node for node, _ in self.nodes)
        self.dirty = tuple(matcher.dirty)

    def restore(self, matcher: CachedReteMatcher) -> None:
        """Put the state back into a network just reset (every memory empty, none listed as filled)."""
        for node, state in self.nodes:
            kind = type(node)
            if kind is _Join:
                node.left_memory, node.right_memory = list(state[0]), list(state[1])
            elif kind is _TrackedCSN:
                node.memory = set(state[0])
                made = node.__dict__
                for key, acts in (("added", state[1]), ("removed", state[2])):
                    if acts:
                        made[key] = {_Activation(rule, facts, dict(context)) for rule, facts, context in acts}
            elif kind is _Presence:
                node.memory = list(state[0])
            else:  # _Gate
                node.left_memory = dict.fromkeys(state[0])
                node.blocked = state[1]
        matcher.touched.extend(self.filled)  # every one holds something again: listed for the next reset
        matcher.dirty.update(self.dirty)

__all__ = ["CACHE_NAME", "CachedReteMatcher", "dump_network", "load_network"]
