"""Stored data-class code (expert.classcode): the same classes as ``dataclasses`` makes, from the cache when stored."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import types
from pathlib import Path

import pytest

from expert import cache, classcode

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty cache folder, a process table not yet loaded, the caching ``exec`` installed for the test only."""
    monkeypatch.setenv("TRAINOPT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TRAINOPT_NO_CACHE", raising=False)
    monkeypatch.setattr(classcode, "_table", None)
    monkeypatch.setattr(classcode, "_new", {})
    monkeypatch.setattr(classcode, "_registered", True)  # stored by hand below, not at the test process's exit
    was = "exec" in vars(dataclasses)
    assert classcode.install()
    yield tmp_path
    if not was:
        classcode.uninstall()


SOURCE = '''
from __future__ import annotations
import dataclasses
from typing import Any
from knowledge.record import dataclass

@dataclass(frozen=True)
class Row:
    id: str
    n: int = 3
    tags: frozenset[str] = dataclasses.field(default_factory=frozenset)
    extra: Any = None

@dataclasses.dataclass
class Plain:
    a: int
    b: list[int] = dataclasses.field(default_factory=list)
    c: str = dataclasses.field(default="x", repr=False)
'''


def _module(name: str) -> types.ModuleType:
    """``SOURCE`` run as module ``name`` (``dataclasses`` reads a class's module from ``sys.modules``)."""
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    try:
        exec(compile(SOURCE, f"<{name}>", "exec"), mod.__dict__)
    finally:
        del sys.modules[name]
    return mod


def _same(a: types.ModuleType, b: types.ModuleType) -> None:
    for cls in ("Row", "Plain"):
        x, y = getattr(a, cls), getattr(b, cls)
        assert x.__init__.__code__ == y.__init__.__code__
        assert x.__init__.__defaults__ == y.__init__.__defaults__
        assert [f.name for f in dataclasses.fields(x)] == [f.name for f in dataclasses.fields(y)]
    assert a.Row("r", 4) == a.Row("r", 4) and a.Row("r").n == 3 and a.Row("r").tags == frozenset()
    assert repr(a.Plain(1)) == repr(b.Plain(1)) and a.Plain(1, [2]) == a.Plain(1, [2]) != a.Plain(2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.Row("r").n = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        a.Row()  # type: ignore[call-arg]


def test_compiled_stored_and_read_back_alike(fresh, monkeypatch):
    """Our classes compiled here, then read back from the stored table, are the classes ``dataclasses`` makes."""
    classcode.uninstall()
    stock = _module("expert._probe_stock")
    assert classcode.install()
    built = _module("expert._probe_built")
    noted = len(classcode._new)
    assert noted >= 2  # the texts compiled here (both __init__, Plain's __repr__ and __eq__) are noted
    _same(built, stock)
    classcode._store()
    assert not classcode._new and len(cache.load_plain(classcode.CACHE_NAME)) == noted
    monkeypatch.setattr(classcode, "_table", None)  # the next process
    read = _module("expert._probe_read")
    assert not classcode._new  # every text found in the table
    _same(read, stock)


def test_a_users_class_is_left_to_dataclasses(fresh):
    """A class outside trainopt's packages goes to the builtin ``exec``: nothing noted, nothing stored."""
    mod = _module("mypackage.rows")
    assert not classcode._new and mod.Row("r").n == 3


def test_a_users_class_keeps_its_annotations(fresh):
    """The caching exec adds no __future__ flag of its own: a user's __init__ keeps real annotations."""
    import dataclasses
    import typing

    # the user's module has no __future__ import (this test file has one, so the class is made from a text)
    text = "import dataclasses\n@dataclasses.dataclass\nclass Point:\n    x: int\n    y: float = 0.0\n"
    space: dict = {"__name__": "mypackage.points"}
    exec(compile(text, "points.py", "exec", dont_inherit=True), space)
    init = space["Point"].__init__
    assert vars(dataclasses).get("exec") is classcode._exec  # the caching exec made it
    assert init.__annotations__ == {"x": int, "y": float, "return": None}
    assert typing.get_type_hints(init) == {"x": int, "y": float, "return": type(None)}


@pytest.mark.parametrize("payload", [["not", "a", "table"], {"text": "not bytes"}, {1: b"x"}])
def test_an_entry_that_is_not_a_table_is_not_used(fresh, payload):
    cache.store_plain(classcode.CACHE_NAME, payload)
    assert classcode._load() == {}
    _same(_module("expert._probe_a"), _module("expert._probe_b"))


def test_code_that_does_not_load_is_compiled_again(fresh, monkeypatch):
    """A damaged code in the table (bytes that are no code) is compiled again, transparently, and stored anew."""
    built = _module("expert._probe_built")
    texts = list(classcode._new)
    cache.store_plain(classcode.CACHE_NAME, {t: b"\x00damaged" for t in texts})
    monkeypatch.setattr(classcode, "_table", None)
    monkeypatch.setattr(classcode, "_new", {})
    again = _module("expert._probe_again")
    assert sorted(classcode._new) == sorted(texts)  # compiled here again
    _same(again, built)
    classcode._store()
    monkeypatch.setattr(classcode, "_table", None)
    assert all(classcode.code_for(t) == compile(t, "<string>", "exec", dont_inherit=True) for t in texts)


def test_install_is_left_off_without_the_cache(monkeypatch):
    monkeypatch.setenv("TRAINOPT_NO_CACHE", "1")
    was = vars(dataclasses).get("exec")
    assert not classcode.install() or was is classcode._exec
    assert vars(dataclasses).get("exec") is was


def test_the_program_stores_the_code_once_and_reads_it_after(tmp_path):
    """A command-line process stores its classes' code at exit; the next one compiles none of them."""
    env = {"PYTHONPATH": str(ROOT), "TRAINOPT_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    probe = ("import runpy, sys; sys.argv = ['trainopt', 'facts']; "
             "from expert import classcode; import atexit; "
             "atexit.register(lambda: print('COMPILED', classcode._registered, file=sys.__stderr__)); "
             "runpy.run_module('trainopt', run_name='__main__')")
    first = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=env)
    assert first.returncode == 0, first.stderr
    assert list(tmp_path.glob(f"{classcode.CACHE_NAME}-*.bin"))  # stored at the first process's exit
    second = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=env)
    assert second.returncode == 0, second.stderr
    assert "COMPILED True" in first.stderr
    assert "COMPILED False" in second.stderr and second.stdout == first.stdout  # every class's code read back
