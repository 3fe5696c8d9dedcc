"""Stored regular expressions (expert.rx): the same patterns as ``re.compile``, from the cache when stored there."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from expert import cache, rx

ROOT = Path(__file__).resolve().parent.parent

PATTERNS = [
    (r"(?P<num>[-+]?\d+(?:\.\d+)?)(?P<unit>\s?%|k\b)?|(?P<word>[a-z_]+)", re.IGNORECASE),
    (r"(?<!\w)(?:loss|val[_ ]loss)(?!\w)", 0),
    (r"[0-9]+", re.ASCII),
    (r"\bfoo\b|→|⟶", re.I | re.M),
    (r"^(a)(?P<b>b)?(c)$", 0),
]


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty cache folder and a process table not yet loaded."""
    monkeypatch.setenv("TRAINOPT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TRAINOPT_NO_CACHE", raising=False)
    monkeypatch.setattr(rx, "_table", None)
    monkeypatch.setattr(rx, "_new", {})
    monkeypatch.setattr(rx, "_registered", True)  # stored by hand below, not at the test process's exit
    return tmp_path


def _reload(monkeypatch):
    monkeypatch.setattr(rx, "_table", None)
    monkeypatch.setattr(rx, "_new", {})


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_built_and_stored_patterns_equal_re_compile(fresh, monkeypatch, pattern, flags):
    want = re.compile(pattern, flags)
    built = rx.compile(pattern, flags)
    assert built == want and built.groupindex == want.groupindex and built.flags == want.flags
    rx._store()
    _reload(monkeypatch)
    stored = rx.compile(pattern, flags)
    assert not rx._new  # read from the table, nothing compiled here
    assert stored == want and stored.groups == want.groups and dict(stored.groupindex) == dict(want.groupindex)
    text = "Loss 3.5% k val_loss foo → abc 12"
    assert [m.span() for m in stored.finditer(text)] == [m.span() for m in want.finditer(text)]


def test_the_table_keeps_what_other_processes_stored(fresh, monkeypatch):
    rx.compile("alpha+")
    rx._store()
    _reload(monkeypatch)
    rx.compile("beta+")
    rx._store()
    _reload(monkeypatch)
    rx.compile("alpha+")
    rx.compile("beta+")
    assert not rx._new


def test_a_bad_pattern_is_refused_as_re_refuses_it(fresh):
    with pytest.raises(re.error):
        rx.compile("(unclosed")


@pytest.mark.parametrize("payload", [b"not a pickle", pickle.dumps({("a", 0): "x"}),
                                     pickle.dumps({("a", 0): (32, b"\x01\x02\x03\x04", 0, {}, ())}),
                                     pickle.dumps([1, 2])])
def test_an_entry_that_is_not_a_table_or_holds_bad_code_is_not_used(fresh, payload):
    """Garbage, a wrong shape or code the regex engine refuses: the pattern is compiled as re compiles it."""
    cache.store(rx.CACHE_NAME, payload)
    assert rx.compile("a") == re.compile("a")


def test_an_entry_naming_a_class_is_refused(fresh):
    cache.store(rx.CACHE_NAME, pickle.dumps({("a", 0): (32, b"", 0, {}, (re.compile("x"),))}))
    assert rx._load() == {}


def test_the_program_stores_its_patterns_once_and_reads_them_after(tmp_path):
    """The first process stores what it compiled; the next one compiles none of it itself."""
    env = {"TRAINOPT_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    code = ("import expert.text, expert.rx as rx; from expert.text import parse_complaint; "
            "parse_complaint('loss goes NaN after 3 epochs with fp16'); print(len(rx._new))")
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert int(first.stdout) > 10
    assert list(tmp_path.glob(f"{rx.CACHE_NAME}-*.bin"))
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert int(second.stdout) == 0


def test_advice_actions_read_through_the_cache_as_knowledge_reads_them(fresh, monkeypatch):
    """The report's agreement check (expert.assemble.actions_in) names the same actions as knowledge.terms's, for
    every fix, avoid entry and route reason of the knowledge, whether its patterns came from the cache or from re."""
    from expert import assemble
    from knowledge import all_rows
    from knowledge.terms import actions_in

    texts = set()
    for row in all_rows():
        if row.fix:
            texts.add(f"{row.fix.explain}\n{row.fix.code}")
        texts.update(row.avoid or ())
        texts.update(t.why for t in row.then if getattr(t, "why", None))
    texts |= {"Lower the peak LR (3-10x) and add a linear warmup", "switching optimizer before an LR range test",
              "Zero the gradients once per optimizer step.", "TRAIN LONGER and clip harder"}
    expected = {t: actions_in(t) for t in texts}
    assert any(expected.values()) and not all(expected.values())
    for table_loaded in (False, True):
        assemble._advice.cache_clear()
        assemble.actions_in.cache_clear()
        if table_loaded:
            rx.compile(r"x+")  # the table read, as a consultation's text reader reads it
        assert rx.loaded() is table_loaded
        assert {t: assemble.actions_in(t) for t in texts} == expected
    assemble._advice.cache_clear()
    assemble.actions_in.cache_clear()
