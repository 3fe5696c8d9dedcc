"""knowledge.record.dataclass gives the methods the standard decorator gives (it only makes them more cheaply)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from knowledge import record


def _family(deco: Any) -> dict[str, type]:
    """The same class shapes, decorated by ``deco``: plain, frozen, field options, inheritance, own methods."""

    @deco(frozen=True)
    class Base:
        a: int
        b: str = "x"

    @deco(frozen=True)
    class Child(Base):
        c: tuple = ()

    @deco(frozen=True)
    class Empty:
        pass

    @deco(frozen=True)
    class One:
        v: Any = None

    @deco
    class Mutable:
        a: int = 0
        items: list = dataclasses.field(default_factory=list)

    @deco(frozen=True)
    class Options:
        a: int = 0
        note: dict = dataclasses.field(default_factory=dict, compare=False, hash=False)
        hidden: int = dataclasses.field(default=3, repr=False)
        nohash: int = dataclasses.field(default=4, hash=False)

    @deco(frozen=True)
    class OwnRepr:
        a: int = 0

        def __repr__(self) -> str:
            return "mine"

    @deco(frozen=True)
    class OwnEq:
        a: int = 0

        def __eq__(self, other: object) -> bool:
            return True

    @deco(frozen=True)
    class OwnHash:
        a: int = 0

        def __hash__(self) -> int:
            return 7

    @deco(frozen=True, eq=False)
    class NoEq:
        a: int = 0

    @deco(repr=False)
    class NoRepr:
        a: int = 0

    return {k: v for k, v in locals().items() if isinstance(v, type)}


STD = _family(dataclasses.dataclass)
OURS = _family(record.dataclass)
ARGS: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {
    "Base": [((1,), {}), ((1, "y"), {}), ((2,), {})],
    "Child": [((1,), {}), ((1, "x", (1, 2)), {}), ((1, "x", (1, 3)), {})],
    "Empty": [((), {})],
    "One": [((None,), {}), ((1.5,), {}), (("s",), {})],
    "Mutable": [((), {}), ((1, [1]), {}), ((1, [1]), {})],
    "Options": [((), {}), ((0, {"x": 1}), {}), ((0, {}, 5), {}), ((0, {}, 3, 9), {}), ((1,), {})],
    "OwnRepr": [((1,), {})],
    "OwnEq": [((1,), {}), ((2,), {})],
    "OwnHash": [((1,), {}), ((2,), {})],
    "NoEq": [((1,), {}), ((1,), {})],
    "NoRepr": [((1,), {})],
}


@pytest.mark.parametrize("name", sorted(ARGS))
def test_same_methods_as_the_standard_decorator(name: str) -> None:
    std = [STD[name](*a, **k) for a, k in ARGS[name]]
    ours = [OURS[name](*a, **k) for a, k in ARGS[name]]
    for s, o in zip(std, ours):
        if name == "NoRepr":
            assert OURS[name].__repr__ is object.__repr__ is STD[name].__repr__
        else:
            assert repr(s) == repr(o)
        assert (STD[name].__hash__ is None) == (OURS[name].__hash__ is None)
        if STD[name].__hash__ is not None and name not in ("NoEq",):
            assert hash(s) == hash(o)
    for i in range(len(std)):
        for j in range(len(std)):
            assert (std[i] == std[j]) == (ours[i] == ours[j]), (i, j)
            assert (std[i] != std[j]) == (ours[i] != ours[j]), (i, j)
    assert (ours[0] == object()) is (std[0] == object())
    assert dataclasses.fields(STD[name]) and [f.name for f in dataclasses.fields(STD[name])] == \
        [f.name for f in dataclasses.fields(OURS[name])] or not dataclasses.fields(STD[name])


def test_frozen_stays_frozen_and_replace_works() -> None:
    o = OURS["Child"](1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.a = 2  # type: ignore[misc]
    assert dataclasses.replace(o, c=(1,)) == OURS["Child"](1, "x", (1,))
    assert dataclasses.asdict(o) == {"a": 1, "b": "x", "c": ()}


def test_subclass_of_another_class_is_not_equal() -> None:
    assert OURS["Base"](1) != OURS["Child"](1)
    assert STD["Base"](1) != STD["Child"](1)


def test_recursive_repr_does_not_loop() -> None:
    m = OURS["Mutable"]()
    m.items.append(m)
    s = STD["Mutable"]()
    s.items.append(s)
    assert repr(m) == repr(s)


@pytest.mark.parametrize("name", ["Base", "Child", "Empty", "Options"])
def test_frozen_classes_refuse_assignment_and_deletion_as_the_standard_ones(name: str) -> None:
    """Same errors, same messages; attributes that are not fields of a subclass instance still go through."""
    std, ours = STD[name](*ARGS[name][0][0]), OURS[name](*ARGS[name][0][0])
    for attr in ("a", "b", "c", "note", "other"):
        for act in (lambda o, a=attr: setattr(o, a, 1), lambda o, a=attr: delattr(o, a)):
            errors = []
            for obj in (std, ours):
                try:
                    act(obj)
                    errors.append(None)
                except Exception as exc:  # noqa: BLE001 - the exception itself is compared
                    errors.append((type(exc), str(exc)))
            assert errors[0] == errors[1], (name, attr)
    # a subclass that is no dataclass may set attributes of its own, as the standard methods allow
    sub_std, sub_ours = type("S", (STD[name],), {}), type("S", (OURS[name],), {})
    for cls in (sub_std, sub_ours):
        obj = cls(*ARGS[name][0][0])
        obj.extra = 1
        del obj.extra


def test_frozen_methods_are_not_compiled_per_class() -> None:
    """A frozen class's ``__setattr__``/``__delattr__`` are the shared closures, not text compiled per class."""
    if record._STANDARD_FROZEN is None:
        pytest.skip("this interpreter's decorator makes them another way: left alone")
    for name in ("Base", "Child", "Options"):
        assert OURS[name].__setattr__.__code__ is record._frozen_methods(OURS[name], [], {})[0].__code__
        assert STD[name].__setattr__.__code__ is not OURS[name].__setattr__.__code__
    assert dataclasses._frozen_get_del_attr is record._STANDARD_FROZEN  # the standard decorator is left as it was
