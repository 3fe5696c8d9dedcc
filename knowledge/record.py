"""``dataclass`` with the same methods as the standard one, made without compiling a function for each.

The standard decorator writes every method it adds (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, and
a frozen class's ``__setattr__``/``__delattr__``) as source text and compiles it: about 0.1 ms a method, 0.6 ms a
frozen class. A command's start-up defines some sixty data classes (the knowledge's rows and conditions, the
engine's and the diagnosis's records): a tenth of a ``trainopt diagnose`` process went to compiling them.

Here the standard decorator still writes ``__init__``, where a shared function would make every instance slower
to build, and ``__repr__``, ``__eq__`` and ``__hash__`` are shared functions reading the fields through one
``operator.attrgetter``; a frozen class's ``__setattr__``/``__delattr__`` (which only ever raise for a field, and
run on no instance built by ``__init__``) are closures over the class and its field names, the same code the
standard decorator compiles from text (``_frozen_methods``; two thirds of the functions a frozen class needs).
They behave as the generated ones do: the same fields (``repr=``, ``compare=``, ``hash=`` of a field honoured),
the same results, ``NotImplemented`` against another class, a method the class defines itself left alone, the
standard rule for when ``__hash__`` is added, set to None or kept, and the same ``FrozenInstanceError``.
``tests/test_record.py`` compares them with the standard decorator's.
"""

from __future__ import annotations

import _thread
import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """A function from an object to the tuple of the named attributes (``(self.a, self.b,)`` in the generated code)."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


def _repr(names: list[str]) -> Callable[[Any], str]:
    parts = [(f"{n}=", attrgetter(n)) for n in names]

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        return self.__class__.__qualname__ + "(" + ", ".join([p + repr(get(self)) for p, get in parts]) + ")"

    return __repr__


def _eq(names: list[str]) -> Callable[[Any, Any], Any]:
    values = _getter(names)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(names: list[str]) -> Callable[[Any], int]:
    values = _getter(names)

    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _frozen_methods(cls: type, fields: list[Any], globals: dict[str, Any]) -> tuple[Callable[..., None], ...]:
    """``dataclasses._frozen_get_del_attr``'s two methods, as closures rather than compiled from source text."""
    names = tuple(f.name for f in fields)
    error = dataclasses.FrozenInstanceError

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


_STANDARD_FROZEN = getattr(dataclasses, "_frozen_get_del_attr", None)
"""The standard decorator's maker of a frozen class's methods, which ``_standard`` stands in for while it runs."""
if getattr(getattr(_STANDARD_FROZEN, "__code__", None), "co_varnames", ())[:3] != ("cls", "fields", "globals"):
    _STANDARD_FROZEN = None  # another interpreter's decorator (3.12 adds them through a builder): left alone
_swap = _thread.RLock()


def _standard(cls: T, frozen: bool, **kw: Any) -> T:
    """``dataclasses.dataclass(cls, frozen=frozen, **kw)``, a frozen class's methods made by ``_frozen_methods``."""
    if not frozen or _STANDARD_FROZEN is None:
        return dataclasses.dataclass(cls, frozen=frozen, **kw)
    with _swap:
        dataclasses._frozen_get_del_attr = _frozen_methods  # type: ignore[attr-defined]
        try:
            return dataclasses.dataclass(cls, frozen=True, **kw)
        finally:
            dataclasses._frozen_get_del_attr = _STANDARD_FROZEN  # type: ignore[attr-defined]


def _decorate(cls: T, frozen: bool, repr: bool, eq: bool, unsafe_hash: bool, **kw: Any) -> T:
    if kw.get("order") or unsafe_hash:  # not used here: the standard decorator, unchanged
        return dataclasses.dataclass(cls, frozen=frozen, repr=repr, eq=eq, unsafe_hash=unsafe_hash, **kw)
    # the standard rule's test, made before anything is added: a class body with __eq__ and no __hash__ has None
    own_hash = cls.__dict__.get("__hash__", dataclasses.MISSING)
    explicit_hash = not (own_hash is dataclasses.MISSING or (own_hash is None and "__eq__" in cls.__dict__))
    cls = _standard(cls, frozen, repr=False, eq=False, **kw)
    fields = dataclasses.fields(cls)
    if repr and "__repr__" not in cls.__dict__:
        cls.__repr__ = _repr([f.name for f in fields if f.repr])  # type: ignore[assignment]
    if eq:
        if "__eq__" not in cls.__dict__:
            cls.__eq__ = _eq([f.name for f in fields if f.compare])  # type: ignore[assignment]
        if not explicit_hash:
            if frozen:
                cls.__hash__ = _hash(  # type: ignore[assignment]
                    [f.name for f in fields if (f.compare if f.hash is None else f.hash)])
            else:
                cls.__hash__ = None  # type: ignore[assignment]
    return cls


def dataclass(cls: T | None = None, /, *, frozen: bool = False, repr: bool = True, eq: bool = True,
              unsafe_hash: bool = False, **kw: Any) -> Any:
    """``dataclasses.dataclass``, same signature and behaviour, cheaper to apply (see the module's docstring)."""
    def wrap(c: T) -> T:
        return _decorate(c, frozen, repr, eq, unsafe_hash, **kw)

    return wrap if cls is None else wrap(cls)


__all__ = ["dataclass"]
