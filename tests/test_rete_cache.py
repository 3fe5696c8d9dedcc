"""The compiled-knowledge cache (expert.cache, expert.rete): same diagnoses, never trusted blindly, safe to share."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import expert.consultation
from expert import cache
from expert._experta import ReteMatcher
from expert.classcode import CACHE_NAME as CLASSCODE_CACHE
from expert.kb import BUNDLE_CACHE, KB_CACHE, engine_class
from expert.rete import CACHE_NAME, CachedReteMatcher
from expert.stored import FAMILIES_CACHE
from tests.golden_runner import load_cases

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAINOPT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TRAINOPT_NO_CACHE", raising=False)
    return tmp_path


def _report(case, eng, monkeypatch):
    monkeypatch.setattr(expert.consultation, "engine", lambda: eng)
    data = dict(case.get("observations", {}))
    for key in ("complaint", "declined"):
        if key in case:
            data[key] = case[key]
    return expert.consultation.Consultation.from_json(data).to_json()


def test_loaded_built_and_stock_networks_diagnose_alike(monkeypatch):
    """The network loaded from the cache, one built here and experta's own matcher give the same reports and
    trails (every firing, in order) on every golden case."""
    cls = engine_class()
    loaded = cls()
    assert cls._rete_blob  # the class kept its network for the next engine
    built = type("Built", (cls,), {"cache_name": None})()
    stock = type("Stock", (cls,), {"cache_name": None, "__matcher__": ReteMatcher})()
    assert isinstance(loaded.matcher, CachedReteMatcher) and type(stock.matcher) is ReteMatcher
    cases = load_cases()
    assert len(cases) > 100
    for case in cases:
        want = _report(case, stock, monkeypatch)
        assert _report(case, loaded, monkeypatch) == want, case["_where"]
        assert _report(case, built, monkeypatch) == want, case["_where"]


def test_entry_round_trip_and_file_mode(cache_dir):
    assert cache.load("x") is None
    assert cache.store("x", b"payload")
    assert cache.load("x") == b"payload"
    (entry,) = cache_dir.glob("x-*.bin")
    assert entry.name == f"x-{cache.source_key()}.bin"
    assert not entry.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO)
    assert not list(cache_dir.glob("*.tmp"))


@pytest.mark.parametrize("damage", ["flip", "truncate", "foreign", "empty", "writable", "header", "check"])
def test_damaged_or_foreign_entries_are_not_trusted(cache_dir, damage):
    cache.store("x", b"payload" * 100)
    (entry,) = cache_dir.glob("x-*.bin")
    data = entry.read_bytes()
    if damage == "flip":
        entry.write_bytes(data[:-10] + bytes([data[-10] ^ 1]) + data[-9:])
    elif damage == "truncate":
        entry.write_bytes(data[:-5])
    elif damage == "foreign":
        entry.write_bytes(b"\x80\x04\x95" + data)
    elif damage == "empty":
        entry.write_bytes(b"")
    elif damage == "header":  # cut inside the header: read apart from the payload, never taken for one
        entry.write_bytes(data[:20])
    elif damage == "check":  # the header whole, the check cut short
        entry.write_bytes(data[:len(cache.MAGIC) + 33 + 5])
    else:
        os.chmod(entry, 0o666)
    assert cache.load("x") is None


def test_entries_of_other_sources_are_never_read(cache_dir, monkeypatch):
    cache.store("x", b"old")
    (old,) = cache_dir.glob("x-*.bin")
    monkeypatch.setattr(cache, "source_key", lambda: "0" * 32)
    assert cache.load("x") is None  # another key, another file: the old entry is not consulted
    old.rename(cache_dir / f"x-{'0' * 32}.bin")
    assert cache.load("x") is None  # renamed into place, its header still names the other key


def test_unwritable_or_disabled_cache_builds_in_process(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TRAINOPT_CACHE_DIR", str(blocker / "sub"))
    assert cache.store("x", b"p") is False and cache.load("x") is None
    monkeypatch.setenv("TRAINOPT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRAINOPT_NO_CACHE", "1")
    assert cache.store("x", b"p") is False and cache.load("x") is None and not list(tmp_path.glob("x-*"))


def test_pruning_keeps_the_most_recent_entries(cache_dir, monkeypatch):
    for i in range(cache.KEEP + 3):
        monkeypatch.setattr(cache, "source_key", lambda i=i: f"{i:032d}")
        cache.store("x", b"p")
        os.utime(cache_dir / f"x-{i:032d}.bin", (i, i))
    cache.prune("x")
    left = sorted(p.name for p in cache_dir.glob("x-*.bin"))
    assert left == [f"x-{i:032d}.bin" for i in range(3, cache.KEEP + 3)]


def test_cache_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("TRAINOPT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "trainopt"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # the XDG spec: relative paths are ignored
    assert cache.cache_dir() == Path.home() / ".cache" / "trainopt"


DIAGNOSE = [sys.executable, "-m", "trainopt", "diagnose", "-", "--format", "json"]
OBS = json.dumps({"symptom": "unstable", "loss_behavior": "nan_or_inf", "mixed_precision": "fp16"})


def _diagnose(env):
    out = subprocess.run(DIAGNOSE, input=OBS, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def test_processes_store_reuse_and_repair_the_network(tmp_path):
    """A first process stores the compiled knowledge, the network and plan ranks, the next loads them, a corrupt
    entry is rebuilt and rewritten; the report is the same every time (and the same as with the cache off)."""
    env = dict(os.environ, TRAINOPT_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    env.pop("TRAINOPT_NO_CACHE", None)
    first = _diagnose(env)
    entries = {p.name.split("-")[0]: p for p in tmp_path.glob("*.bin")}
    # (the command line's data classes' code too, expert.classcode)
    assert set(entries) == {FAMILIES_CACHE, KB_CACHE, BUNDLE_CACHE, CACHE_NAME, "plan", CLASSCODE_CACHE}
    assert _diagnose(env) == first
    for p in entries.values():
        p.write_bytes(p.read_bytes()[:-100] + b"\0" * 100)
    assert _diagnose(env) == first
    key = entries[CACHE_NAME].name.split("-")[1][:-4]
    env_check = dict(env, PYTHONPATH=str(ROOT))
    check = subprocess.run([sys.executable, "-c", "from expert import cache; print(cache.source_key(), "
                            "cache.load('rete') is not None, cache.load('plan') is not None, "
                            "cache.load('kb') is not None, cache.load('knowledge') is not None, "
                            "cache.load('classcode') is not None, cache.load('engine') is not None)"],
                           capture_output=True, text=True, cwd=ROOT, env=env_check, timeout=60)
    assert check.stdout.split() == [key, "True", "True", "True", "True", "True", "True"]
    assert _diagnose(dict(env, TRAINOPT_NO_CACHE="1")) == first


_WRITER = """
import sys
from expert import cache
for i in range(40):
    cache.store("x", bytes([int(sys.argv[1])]) * 200_000)
"""


def test_concurrent_writers_never_leave_a_partial_entry(cache_dir):
    env = dict(os.environ, TRAINOPT_CACHE_DIR=str(cache_dir), PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(n)], env=env, cwd=ROOT) for n in (1, 2, 3)]
    seen = set()
    while any(p.poll() is None for p in procs):
        got = cache.load("x")
        if got is not None:
            assert len(set(got)) == 1 and len(got) == 200_000  # one writer's whole payload, never a mix
            seen.add(got[0])
    assert all(p.wait() == 0 for p in procs)
    assert cache.load("x") is not None and not list(cache_dir.glob("*.tmp"))


def test_cue_analysis_from_the_cache_scans_alike(cache_dir):
    """The complaint parser's cue analysis, stored and read back, scans a complaint exactly as a fresh one."""
    from expert import text
    from expert.nlp import Scanner
    from knowledge import all_keywords

    patterns = [k.pattern for k in all_keywords()]
    fresh = Scanner(patterns)
    text._store_analysis(patterns, fresh)
    stored = text._stored_analysis(patterns)
    assert stored == fresh.analysis()
    assert text._stored_analysis(patterns[:-1]) is None  # stored for other patterns: not used
    sample = "loss goes NaN after 3 epochs with fp16, AdamW lr 3e-4; train acc 0.99 but val acc 0.6"
    spans = [(i, m.span()) for i, m in fresh.scan(sample)]
    assert spans and spans == [(i, m.span()) for i, m in Scanner(patterns, stored).scan(sample)]
    cache.store(text.CUES_CACHE, b"{not json")
    assert text._stored_analysis(patterns) is None


ERROR_SAMPLES = (
    "loss goes NaN after 3 epochs with fp16, AdamW lr 3e-4",
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB when I raised the batch size",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "my job hangs then: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)",
    "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
    "Error(s) in loading state_dict for ResNet: Missing key(s) in state_dict: fc.weight",
    "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised an error, the model trains fine without",
    "val loss rises after epoch 10 while train loss keeps falling; no errors, no OOM, dataloader is fine",
    "the training script crashed on the second night with a weird exception I had never seen",
    "ValueError: Expected input batch_size (32) to match target batch_size (64)",
)


def test_stored_error_signature_words_read_alike(cache_dir, monkeypatch):
    """Stored signature words let a short complaint skip signatures it cannot match, and the search for a crash
    named in words: the same observations."""
    from expert import talk
    from expert.text import parse_complaint

    def parsed():
        return [[(o.name, o.value, o.source) for o in parse_complaint(s)] for s in ERROR_SAMPLES]

    monkeypatch.setenv("TRAINOPT_NO_CACHE", "1")
    talk._stored_needed.cache_clear()
    assert talk._stored_needed() is None
    fresh = parsed()
    monkeypatch.delenv("TRAINOPT_NO_CACHE")
    talk._stored_needed.cache_clear()
    stored = talk._stored_needed()  # worked out and stored
    assert stored is not None and len(stored) == len(talk.K.ERROR_SIGNATURES) + 1  # and the crash named in words
    talk._stored_needed.cache_clear()
    assert talk._stored_needed() == stored  # read back
    assert parsed() == fresh
    assert any(o[0] == "boundary_topic" for obs in fresh for o in obs)  # the samples reach the signatures
    assert ("symptom", "crash") in [o[:2] for o in fresh[-1]]  # and the crash named in words
    cache.store(talk.SIGNATURES_CACHE, b"{not json")
    talk._stored_needed.cache_clear()
    assert talk._stored_needed() == stored  # a damaged entry is worked out again
    talk._stored_needed.cache_clear()


CODE_SAMPLES = [
    "I apply softmax then nn.CrossEntropyLoss and the loss is stuck at 2.3",
    "the model ends in log_softmax and I use nll_loss, accuracy stays at chance",
    "I use BCEWithLogitsLoss after a sigmoid and the loss plateaus",
    "total_loss += loss every step and memory grows until OOM",
    "I keep outputs.append(logits) during training and memory grows",
    "loss = torch.tensor(loss.item()) then loss.backward() and nothing learns",
    "nothing in my code calls sigmoid, the loss is flat",
]


def test_stored_code_idiom_words_read_alike(cache_dir, monkeypatch):
    """Stored code idiom words let a short complaint search only the idioms it can match: the same
    observations as searching all of them."""
    from expert import talk
    from expert.text import parse_complaint

    def parsed():
        return [[(o.name, o.value, o.source) for o in parse_complaint(s)] for s in CODE_SAMPLES]

    monkeypatch.setenv("TRAINOPT_NO_CACHE", "1")
    talk._stored_code_needed.cache_clear()
    assert talk._stored_code_needed() is None
    fresh = parsed()
    monkeypatch.delenv("TRAINOPT_NO_CACHE")
    talk._stored_code_needed.cache_clear()
    stored = talk._stored_code_needed()  # worked out and stored
    assert stored is not None and len(stored) == len(talk.K.CODE_IDIOMS)
    talk._stored_code_needed.cache_clear()
    assert talk._stored_code_needed() == stored  # read back
    assert parsed() == fresh
    names = {o[0] for obs in fresh for o in obs}
    assert {"output_activation", "kept_graphs"} <= names  # the samples reach the idioms
    cache.store(talk.CODE_IDIOMS_CACHE, b"{not json")
    talk._stored_code_needed.cache_clear()
    assert talk._stored_code_needed() == stored  # a damaged entry is worked out again
    talk._stored_code_needed.cache_clear()


def test_stored_cue_patterns_are_the_ones_the_phrases_give(cache_dir):
    """The cue patterns read back from the cache are exactly those normalising the keywords' phrases gives."""
    from expert import text
    from knowledge import all_keywords

    keywords = all_keywords()
    assert text._stored_cues(keywords) is None  # nothing stored yet
    fresh = [text._with_pattern(k).pattern for k in keywords]
    text._store_analysis(fresh, text.Scanner(fresh))
    patterns, analysis = text._stored_cues(keywords)
    assert patterns == fresh and analysis == text.Scanner(fresh).analysis()
    assert text._stored_cues(keywords[:-1]) is None  # stored for other keywords: not used
    cache.store(text.CUES_CACHE, b"{not json")
    assert text._stored_cues(keywords) is None
    cache.store_plain(text.CUES_CACHE, (fresh, [None] * len(fresh)))  # plain data, not of the entry's shape
    assert text._stored_cues(keywords) is None


# ------------------------------------------------------------------------------- the compiled knowledge (kb)


def _plain(rule):
    """A rule's patterns, a join's test (which compares by identity) as the join it tests."""
    from expert.engine import _JoinTest

    return [p[0].join if type(p).__name__ == "TEST" and isinstance(p[0], _JoinTest) else p for p in rule]


def test_stored_knowledge_base_round_trips_and_diagnoses_alike(monkeypatch):
    """The families and engine namespace read back from their entries equal what the modules give, and an engine
    built from them reports and traces every golden case as the compiled one does."""
    from expert import stored
    from expert.engine import engine_class_from, engine_namespace
    from expert.kb import dump_kb, load_kb
    from knowledge import all_joins, all_questions, all_rows, families

    fams = stored.load_families_blob(stored.dump_families(families()))
    assert fams == families() and fams is not families()
    joins = [j for f in fams for j in f.joins]
    assert joins and all(type(j.test) is stored.Deferred for j in joins)  # found in their modules when read
    ns = engine_namespace(all_rows(), all_questions(), all_joins())
    loaded = load_kb(dump_kb(families(), ns), fams)
    assert loaded.keys() == ns.keys() and loaded["questions"] == ns["questions"]
    assert loaded["yields_to"] == ns["yields_to"] and loaded["pooled"] == ns["pooled"]
    rows = {r.id: r for f in fams for r in (*f.rows, *f.questions, *f.joins)}
    for name, rule in ns.items():
        if name.startswith(("row_", "join_", "ask_")):
            twin = loaded[name]
            assert _plain(twin) == _plain(rule) and twin.salience == rule.salience, name
            assert twin._trainopt == rule._trainopt and twin.__name__ == rule.__name__ == name
            if twin._trainopt.row is not None:  # the stored rule holds the families' own row, not a copy
                assert twin._trainopt.row is rows[twin._trainopt.id]
    compiled = type("Compiled", (engine_class_from(ns),), {"cache_name": None})()
    stored_ = type("Stored", (engine_class_from(loaded),), {"cache_name": None})()
    for case in load_cases():
        assert _report(case, stored_, monkeypatch) == _report(case, compiled, monkeypatch), case["_where"]


def test_the_bundled_families_and_knowledge_base_round_trip_sharing_their_rows(monkeypatch):
    """Read back together, the families equal the modules' and every rule holds those families' own rows (one
    object per row, as the ``kb`` entry's resolved rules do); an engine built from it diagnoses as the compiled."""
    from expert.engine import engine_class_from, engine_namespace
    from expert.kb import dump_bundle, load_bundle
    from knowledge import all_joins, all_questions, all_rows, families

    ns = engine_namespace(all_rows(), all_questions(), all_joins())
    fams, loaded = load_bundle(dump_bundle(families(), ns))
    assert fams == families() and fams is not families()
    assert loaded.keys() == ns.keys() and loaded["questions"] == ns["questions"]
    assert loaded["yields_to"] == ns["yields_to"] and loaded["pooled"] == ns["pooled"]
    rows = {r.id: r for f in fams for r in (*f.rows, *f.questions, *f.joins)}
    held = 0
    for name, rule in ns.items():
        if name.startswith(("row_", "join_", "ask_")):
            twin = loaded[name]
            assert _plain(twin) == _plain(rule) and twin.salience == rule.salience, name
            assert twin._trainopt == rule._trainopt and twin.__name__ == rule.__name__ == name
            if twin._trainopt.row is not None:
                assert twin._trainopt.row is rows[twin._trainopt.id]
                held += 1
    assert held > 300
    compiled = type("Compiled", (engine_class_from(ns),), {"cache_name": None})()
    bundled = type("Bundled", (engine_class_from(loaded),), {"cache_name": None})()
    for case in load_cases():
        assert _report(case, bundled, monkeypatch) == _report(case, compiled, monkeypatch), case["_where"]


def test_a_stored_fact_reads_back_with_its_fields_and_a_defaults_cache_of_its_own():
    """The usual fact (nothing read of its defaults yet) is stored without its empty cache and given a fresh one on
    load, one per fact; a fact whose cache holds a default keeps it (both ways: plain and not)."""
    from expert.facts import Obs
    from expert.kb import _DEFAULTS, _KBUnpickler, dump_bundle
    from expert.stored import unpickle
    from knowledge import families

    plain, other = Obs(name="symptom", value="unstable"), Obs(name="lr", value=0.1)
    other.__dict__[_DEFAULTS]["source"] = "declared"  # as experta caches a default once read
    _, ns = unpickle(dump_bundle(families(), {"facts": [plain, plain.copy(), other]}), _KBUnpickler)
    a, b, c = ns["facts"]
    assert type(a) is Obs and dict(a) == dict(plain) and dict(c) == dict(other)
    assert a.__dict__ == {_DEFAULTS: {}} and a.__dict__[_DEFAULTS] is not b.__dict__[_DEFAULTS]
    assert c.__dict__ == {_DEFAULTS: {"source": "declared"}}
    blob = dump_bundle(families(), {"facts": [plain]})
    assert b"_plain_fact" in blob and b"_Fact__defaults" not in blob


_READS = """
import json, sys
from expert import cache
read = []
load = cache.load
cache.load = lambda name: read.append(name) or load(name)
from expert.kb import engine_class
engine_class()
print(json.dumps(sorted(set(read))))
"""


def test_a_first_process_reads_the_bundle_alone_and_one_with_the_families_loaded_reads_the_two(tmp_path):
    """With nothing loaded, the engine's knowledge comes from the one bundled entry; a process that loaded the
    families first resolves the ``kb`` entry against them, and writes no bundle of its own."""
    env = dict(os.environ, TRAINOPT_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    env.pop("TRAINOPT_NO_CACHE", None)

    def reads(code):
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    reads(_READS)  # an empty cache: compiles and stores every entry
    assert reads(_READS) == [BUNDLE_CACHE]
    first = reads("from expert import stored; stored.families()\n" + _READS)
    assert first == [KB_CACHE]


def test_a_stored_join_finds_its_functions_in_its_module_when_first_read():
    """A stored join's test and detail are its module's own functions, found on first use: same results, equal
    and hashing alike; a join its module no longer has is an error that says what to do, never a wrong answer."""
    from expert import stored
    from knowledge import all_joins

    for join in all_joins():
        test = stored.Deferred(join.family, join.id, "test")
        detail = stored.Deferred(join.family, join.id, "detail")
        assert test.resolved() is join.test and detail.resolved() is join.detail
        assert test == join.test and join.test == test and hash(test) == hash(join.test)
        assert test == stored.Deferred(join.family, join.id, "test") and test != detail
    gap = stored.Deferred("derive", "DV-GAP-01", "test")
    assert gap(0.99, 0.6) is True and gap(0.9, 0.85) is False
    with pytest.raises(LookupError, match="cache folder"):
        stored.Deferred("derive", "DV-NOPE", "test")(1, 2)


class _Evil:
    """Unpickled by a plain unpickler, it makes a folder (the test then sees that it ran)."""

    def __init__(self, where):
        self.where = where

    def __reduce__(self):
        return (os.mkdir, (str(self.where),))


@pytest.mark.parametrize("entry", ["kb", "knowledge", "engine"])
@pytest.mark.parametrize("payload", ["garbage", "foreign", "shape", "truncated"])
def test_a_damaged_or_foreign_knowledge_entry_is_rebuilt_never_run(cache_dir, payload, entry):
    """What the kb and knowledge entries hold is only read as our own data: anything else is ignored (and
    nothing in it runs), and the next build stores a good entry again."""
    import pickle

    from expert import kb, stored
    from knowledge import families

    ran = cache_dir / "ran"
    good = {"kb": lambda: kb.dump_kb(families(), {"pooled": (), "questions": {}, "yields_to": {}}),
            "knowledge": lambda: stored.dump_families(families()),
            "engine": lambda: kb.dump_bundle(families(), {"pooled": (), "questions": {}, "yields_to": {}})}[entry]
    blob = {"garbage": b"\x80\x05not a pickle",
            "foreign": pickle.dumps((_Evil(ran),)),
            "shape": pickle.dumps(((1, 2), {"pooled": ()})),
            "truncated": good()[:-40]}[payload]
    name = {"kb": KB_CACHE, "knowledge": FAMILIES_CACHE, "engine": BUNDLE_CACHE}[entry]
    cache.store(name, blob)
    assert cache.load(name) == blob  # a valid entry of these sources, holding what we never write
    if entry == "kb":
        assert kb._stored(families()) is None and not ran.exists()
        cls = kb.engine_class.__wrapped__()  # rebuilt and stored again
        assert kb._stored(families()) is not None and cls.questions == engine_class().questions
    elif entry == "engine":
        with pytest.raises((pickle.UnpicklingError, EOFError, ValueError)):
            kb.load_bundle(blob)
        assert not ran.exists()
        # a first process (no family loaded) ignores it, builds from the other entries and stores it again
        code = ("from expert import kb, cache; kb.engine_class(); "
                "print(kb.load_bundle(cache.load(kb.BUNDLE_CACHE))[0] == kb.stored.families())")
        env = dict(os.environ, TRAINOPT_CACHE_DIR=str(cache_dir), PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr
        assert not ran.exists()
    else:
        with pytest.raises((pickle.UnpicklingError, EOFError)):
            stored.load_families_blob(blob)
        assert not ran.exists()
        code = ("from expert import stored; from knowledge import _load; "
                "assert stored.families() == _load(); print(stored.load_families_blob("
                "stored.cache.load(stored.FAMILIES_CACHE)) == _load())")
        env = dict(os.environ, TRAINOPT_CACHE_DIR=str(cache_dir), PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr  # rebuilt and stored again


_STARTS = """
import json, sys
from expert.kb import engine_class
cls = engine_class()
from knowledge import _load, families
print(json.dumps({"families_imported": "knowledge.causes" in sys.modules, "same": families() == _load(),
                  "rules": len([n for n in vars(cls) if n.startswith(("row_", "join_", "ask_"))])}))
"""


def test_a_process_with_the_entry_imports_no_family_module_and_sees_the_same_knowledge(tmp_path):
    """Read from the entry, the knowledge is what the family modules give (checked against them afterwards),
    and the modules were not imported to get it; concurrent first processes all store a loadable entry."""
    env = dict(os.environ, TRAINOPT_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    env.pop("TRAINOPT_NO_CACHE", None)
    procs = [subprocess.Popen([sys.executable, "-c", _STARTS], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
             for _ in range(3)]  # an empty cache, three first processes at once: each compiles and stores
    cold = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs) and not list(tmp_path.glob("*.tmp"))
    warm = json.loads(subprocess.run([sys.executable, "-c", _STARTS], env=env, cwd=ROOT, capture_output=True,
                                     text=True, timeout=120).stdout)
    # a first process that starts after another has stored the entry reads it (a race the cache allows), so
    # only one is sure to compile; every one of them must see the same knowledge
    assert all(c["same"] for c in cold) and any(c["families_imported"] for c in cold)
    assert warm == {"families_imported": False, "same": True, "rules": cold[0]["rules"]}


def test_the_key_follows_every_write_to_a_source(tmp_path, monkeypatch):
    """An edit that keeps the size and puts the modification time back, a new file and a removed one each give
    another key; the key is read from the file system's status of the sources, not their contents."""
    import time

    for folder in cache.SOURCES:
        (tmp_path / folder / "sub").mkdir(parents=True)
        (tmp_path / folder / "a.py").write_text("x = 1\n")
        (tmp_path / folder / "sub" / "b.py").write_text("y = 2\n")
    monkeypatch.setattr(cache, "ROOT", tmp_path)

    def key():
        cache.source_key.cache_clear()
        try:
            return cache.source_key()
        finally:
            cache.source_key.cache_clear()

    first = key()
    assert key() == first  # nothing changed
    time.sleep(0.05)  # past the kernel's timestamp granularity
    src = tmp_path / "knowledge" / "sub" / "b.py"
    st = src.stat()
    src.write_text("y = 3\n")  # same size
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))  # modification time put back, as `cp -p` or tar would
    edited = key()
    assert edited != first
    (tmp_path / "expert" / "c.py").write_text("")
    added = key()
    assert added not in (first, edited)
    (tmp_path / "expert" / "c.py").unlink()
    assert key() == edited  # the new file removed: the sources are as they were after the edit
    (tmp_path / "expert" / "notes.txt").write_text("not a source")
    assert key() == edited


def test_negations_of_patterns_that_bind_nothing_are_gated_and_match_as_experta_does():
    """Runs of ``NOT(...)`` over patterns that bind nothing become one gate per rule over shared counts
    (expert.rete._Gate, _Presence); a negation whose pattern binds a variable the rule reads stays experta's.
    Through declares and retracts that block, unblock and re-block, the activations equal the stock matcher's."""
    from expert import rete
    from expert._experta import MATCH, NOT, Fact, KnowledgeEngine, Rule

    class A(Fact):
        pass

    class B(Fact):
        pass

    class C(Fact):
        pass

    def rule(name, *patterns):
        def fn(self, **_):
            pass

        fn.__name__ = name
        return Rule(*patterns)(fn)

    ns = {"r1": rule("r1", A(k=1), NOT(B()), NOT(C(kind="x"))),
          "r2": rule("r2", A(k=MATCH.k), NOT(B()), NOT(C(kind=MATCH.k))),  # the second reads k: not gated
          "r3": rule("r3", NOT(B())),
          "r4": rule("r4", A(), NOT(C(kind="x")), NOT(C(kind="x")))}
    ours = type("Ours", (KnowledgeEngine,), {**ns, "__matcher__": CachedReteMatcher})()
    stock = type("Stock", (KnowledgeEngine,), dict(ns))()
    kinds = {type(n).__name__ for n in rete._walk(ours.matcher.root_node)}
    assert {"_Gate", "_Presence", "_Not"} <= kinds

    def agenda(e):
        return sorted((a.rule.__name__, sorted(f["__factid__"] for f in a.facts)) for a in e.agenda.activations)

    for e in (ours, stock):
        e.reset()
    steps = [("declare", A(k=1)), ("declare", A(k=2)), ("declare", C(kind="x")), ("declare", B()),
             ("declare", C(kind=2)), ("retract", 3), ("retract", 4), ("declare", B()), ("retract", 6),
             ("retract", 5), ("declare", C(kind="x")), ("declare", C(kind="x", n=2)), ("retract", 7)]
    for op, arg in steps:
        for e in (ours, stock):
            if op == "declare":
                e.declare(arg.copy())
            else:
                e.retract(arg)
            e.strategy.update_agenda(e.agenda, *e.get_activations())
        assert agenda(ours) == agenda(stock), (op, arg)
    for e in (ours, stock):
        e.reset()
    assert agenda(ours) == agenda(stock)


@pytest.mark.parametrize("damage", [None, b"not a pickle", b"\x80\x05]\x94."])
def test_the_lexicon_tables_stored_are_the_ones_worked_out(cache_dir, damage):
    """The complaint parser's lexicon (expert.talk._lexicon) read back from the cache equals the one worked out
    from the talk tables; a damaged or foreign entry is worked out again."""
    from expert import talk

    talk._lexicon.cache_clear()
    try:
        if damage is not None:
            cache.store(talk.LEXICON_CACHE, damage)
        first = talk._lexicon()  # worked out (and stored)
        talk._lexicon.cache_clear()
        again = talk._lexicon()  # read back
        assert first == again == talk._lexicon_tables() and first is not again
        assert cache.load_plain(talk.LEXICON_CACHE) == first
    finally:
        talk._lexicon.cache_clear()


@pytest.mark.parametrize("module,name", [
    ("builtins", "getattr"), ("builtins", "eval"), ("builtins", "__import__"), ("os", "system"),
    ("expert.stored", "importlib"),  # a module our module imports: its functions are not ours
    ("expert.cache", "os"), ("expert.stored", "Deferred.resolved"), ("expert.stored", "unpickle"),
    ("knowledge", "families"), ("expert.rete", "__builtins__"),
])
def test_stored_entries_name_only_our_classes_and_builders(module, name):
    """Every cache unpickler refuses a function, a re-exported module or a dotted name, even under our packages:
    unpickling calls what an entry names, and the cache folder is writable by other programs of the user."""
    from expert import stored

    assert not stored.loadable(module, name)


def test_stored_entries_load_with_nothing_but_their_classes_and_builders(cache_dir, monkeypatch):
    """What the engine's entries really name passes ``loadable``; the builders refuse what is not theirs."""
    import pickle

    from expert import kb, rete, stored
    from knowledge import families

    fams = families()
    named: list[tuple[str, str]] = []

    class Recording(stored.StoredUnpickler):
        def find_class(self, module, name):
            named.append((module, name))
            return super().find_class(module, name)

    stored.unpickle(stored.dump_families(fams), Recording)
    engine = kb.engine_class.__wrapped__()()
    blob = type(engine)._rete_blob
    monkeypatch.setattr(rete, "_loadable", lambda m, n: named.append((m, n)) or stored.loadable(m, n))
    assert rete.load_network(blob, engine.get_rules())[0] is not None
    assert named and all(stored.loadable(m, n) for m, n in named)
    assert ("builtins", "getattr") not in named
    with pytest.raises(pickle.UnpicklingError):
        rete._new_element(dict, ())
    with pytest.raises(pickle.UnpicklingError):
        kb._fact(dict, {}, {})
    with pytest.raises(pickle.UnpicklingError):
        kb._plain_fact(dict, {})
    with pytest.raises(pickle.UnpicklingError):
        rete._callback(engine, "activate")  # not a node


def test_the_private_copy_reads_back_the_entries_it_stored(tmp_path):
    """Under ``TRAINOPT_ISOLATE`` the internals live under ``trainopt._isolated.``: the builders an entry names
    carry that prefix, and a second start loads the entries rather than refusing and rebuilding them."""
    from expert import stored
    from trainopt._names import PREFIX

    assert stored.PRIVATE == PREFIX
    code = ("import logging, trainopt\n"
            "logging.basicConfig(level=logging.DEBUG, format='%(name)s %(message)s')\n"
            "c = trainopt.Consultation(); c.observe(symptom='unstable', loss_behavior='nan_or_inf'); c.to_json()\n"
            "print('isolated', trainopt.ISOLATED)\n")
    env = dict(os.environ, TRAINOPT_ISOLATE="1", TRAINOPT_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    runs = [subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                           timeout=300) for _ in range(2)]
    assert all(r.returncode == 0 and "isolated True" in r.stdout for r in runs), runs[-1].stderr
    refused = [line for line in runs[1].stderr.splitlines() if "did not load" in line or "never holds" in line]
    assert not refused, refused



def _held(node):
    """What a memory node holds, as sizes: its memories, and a gate's count of patterns that match."""
    return tuple(len(v) if not isinstance(v, int) else v
                 for v in (getattr(node, a, 0) for a in ("memory", "left_memory", "right_memory", "blocked")))


def test_reset_after_runs_clears_every_memory_a_run_filled(monkeypatch):
    """``reset`` clears only the memories listed as filled: after each run, every node of the network holds what
    it holds on an engine reset once (the initial fact's tokens), and each case reads as on a fresh engine."""
    monkeypatch.setattr(expert.consultation, "EMPTY_AFTER_RUN", False)  # what a run left, read here
    cases = [c for c in load_cases() if c.get("observations")][:12]
    eng = engine_class()()
    fresh = engine_class()()
    fresh.reset()
    want = [_held(n) for n in fresh.matcher.memories]
    for case in cases:
        _report(case, eng, monkeypatch)
        assert any(map(any, (_held(n) for n in eng.matcher.memories)))
        eng.reset()
        assert [_held(n) for n in eng.matcher.memories] == want, case["_where"]
    for case in cases:
        assert _report(case, eng, monkeypatch) == _report(case, engine_class()(), monkeypatch), case["_where"]


def test_a_network_is_linked_only_while_empty_and_a_loaded_one_comes_linked(monkeypatch):
    """``_link`` lists every memory a run fills only from an empty network: it refuses one with facts in it (such
    a network is never stored), and an engine's network (loaded or built) comes with its nodes linked to its
    matcher's change set and list (no per-node pass on a load), which its first reset then clears alone."""
    monkeypatch.setattr(expert.consultation, "EMPTY_AFTER_RUN", False)  # what a run left, read here
    from expert import rete

    case = next(c for c in load_cases() if c.get("observations"))
    rete._link(*rete._lists(rete._walk(engine_class()().matcher.root_node)))  # empty as built or loaded
    eng = engine_class()()
    nodes = rete._walk(eng.matcher.root_node)
    _report(case, eng, monkeypatch)
    with pytest.raises(ValueError):
        rete._link(*rete._lists(nodes))
    loaded = engine_class()()
    m = loaded.matcher
    assert all(n.dirty is m.dirty for n in m.order)
    assert all(n.touched is m.touched for n in (*m._joins, *m._csns, *m._presences, *m._gates))
    _report(case, loaded, monkeypatch)
    assert m.touched
    loaded.reset()
    fresh = engine_class()()
    fresh.reset()
    assert [_held(n) for n in m.memories] == [_held(n) for n in fresh.matcher.memories]


def test_shared_plain_data_loads_equal_with_each_value_once(cache_dir):
    """store_plain stores equal strings and tuples/frozensets of strings once: what loads is equal, each such value
    one object; numbers of different types are never merged, and mutable containers stay apart."""
    a, b = "".join(["lo", "ss"]), "".join(["los", "s"])
    assert a == b and a is not b
    data = {(a, "goes"): {"q": a}, (b, "rises"): {"q": b}, "n": [(1, 1.0, True), (True, 1, 1.0)],
            "words": [frozenset({a, "up"}), frozenset({b, "up"})], "lists": [[a], [b]]}
    assert cache.store_plain("plain", data)
    back = cache.load_plain("plain")
    assert back == data
    keys = list(back)
    assert keys[0][0] is keys[1][0] is back[keys[0]]["q"]  # one string, wherever it is
    assert back["words"][0] is back["words"][1]  # one frozenset of strings
    assert [type(x) for x in back["n"][0]] == [int, float, bool]
    assert [type(x) for x in back["n"][1]] == [bool, int, float]
    assert back["lists"][0] is not back["lists"][1] and back[keys[0]] is not back[keys[1]]
    twice = {"x": a}
    assert cache.store_plain("plain", [twice, twice])
    one, other = cache.load_plain("plain")
    assert one is other  # a container met twice is still one object met twice


def test_a_network_reference_leads_to_the_rules_own_test_or_is_refused():
    """A stored network names a rule's test by its path in the rule (expert.rete._at): the path the table gives
    leads to that very object; a path to nothing, or to no test, is refused (the entry is then rebuilt)."""
    import _pickle

    from expert import rete

    rules = engine_class()().get_rules()
    table = rete._function_table(rules)
    assert table
    by_id = {rete._rule_id(r): r for r in rules}
    for (rid, path), fn in table.items():
        assert rete._at(by_id[rid], path) is fn
    (rid, path), _ = next(iter(table.items()))
    for bad in ((*path, 0), (99,), path[:-1], [*path], ("name",), (-1,)):
        with pytest.raises(_pickle.UnpicklingError):
            rete._at(by_id[rid], bad)


@pytest.mark.parametrize("module, name", [
    ("expert.rete", "_Tester.__init__"), ("expert.rete", "_Tester.reset"), ("expert.rete", "_Dispatch.prepare"),
    ("expert.rete", "_at.activate"), ("expert.kb", "AuditedEngine.activate"), ("os", "path.join"),
    ("experta.engine", "KnowledgeEngine.run"), ("expert.rete", "_Tester.activate.__globals__"),
    ("expert.cache", "Path.activate"),
])
def test_a_stored_callback_names_only_a_node_class_activation(module, name):
    """A stored callback is ``MethodType`` (stored as ``_Bind``) applied to a function the entry names: the
    unpickler gives only a node class's port function (``activate``, ``activate_left``, ``activate_right``) for
    a dotted name, so nothing else can be bound and called."""
    import _pickle

    from expert import rete

    with pytest.raises(_pickle.UnpicklingError):
        rete._port(module, name)


def test_a_loaded_network_binds_each_child_to_its_nodes_port_and_holds_no_empty_memory(monkeypatch):
    """A loaded network's children are its nodes and their own activations, as built; its conflict sets, joins,
    gates and presence counts load with no memory of their own (the empty defaults) until a token arrives, and a
    consultation fills them as on a built network (the agreement tests compare the diagnoses)."""
    import types

    from expert import rete

    assert rete._port("expert.rete", "_Tester.activate") is rete._Tester.activate
    assert rete._Unpickler.find_class(None, "expert.rete", "_Bind") is types.MethodType
    engine_class()()  # the first engine of the class builds or loads; the next one loads (``_rete_blob``)
    eng = engine_class()()
    nodes = rete._walk(eng.matcher.root_node)
    children = [c for n in nodes for c in n.children]
    assert children and all(type(c) is rete._Child for c in children)
    for c in children:
        assert type(c.callback) is types.MethodType and c.callback.__self__ is c.node
        assert c.callback.__name__ in rete._CALLBACKS
    lazy = {rete._TrackedCSN: ("memory", "added", "removed", "children"), rete._Join: ("left_memory", "right_memory")}
    for node in nodes:
        for name in lazy.get(type(node), ()):
            assert name not in node.__dict__ and not getattr(node, name)
        if type(node) is rete._Gate:
            assert node.left_memory == ()
        if type(node) is rete._Presence:
            assert node.memory == () and node.children == ()
    case = next(c for c in load_cases() if c.get("observations"))
    assert _report(case, eng, monkeypatch) == _report(case, engine_class()(), monkeypatch)
    filled = [n for n in nodes if type(n) is rete._TrackedCSN and "memory" in n.__dict__]
    assert filled and all(type(n.memory) is set for n in filled)


def test_cue_trees_from_the_cache_scan_alike_from_a_shorter_text(cache_dir, monkeypatch):
    """The cues' requirement trees, stored and read back, filter a 20 kB log as parsing them would, and damaged
    entries are parsed and stored again; with the cache off there is nothing to read."""
    from expert import text
    from expert.nlp import REQUIREMENT_CHARS, STORED_REQUIREMENT_CHARS, Scanner
    from knowledge import all_keywords

    patterns = [k.pattern for k in all_keywords()]
    fresh = Scanner(patterns)
    trees = text._cue_trees(patterns, fresh)  # parsed and stored
    assert trees == fresh.trees() and cache.load_plain(text.TREES_CACHE) == (patterns, trees)
    assert text._cue_trees(patterns, Scanner(patterns[:1] * len(patterns))) == trees  # read back, not parsed
    line = "step 12 | the loss is nan again, lr 3e-4. RuntimeError: CUDA out of memory when the batch size was 64\n"
    log = text.normalise(line * (STORED_REQUIREMENT_CHARS // len(line) + 10)).text
    assert len(log) < REQUIREMENT_CHARS
    with_trees = Scanner(patterns, fresh.analysis(), trees=lambda: trees)
    without = Scanner(patterns, fresh.analysis())
    found = [(i, m.span()) for i, m in with_trees.scan(log)]
    assert found and found == [(i, m.span()) for i, m in without.scan(log)]
    assert with_trees.attempts < without.attempts  # the trees were tested
    for damaged in (b"junk", None):
        if damaged is None:
            cache.store_plain(text.TREES_CACHE, (patterns, [("words",)] * len(patterns)))  # not of the shape
        else:
            cache.store(text.TREES_CACHE, damaged)
        assert text._cue_trees(patterns, Scanner(patterns)) == trees
        assert cache.load_plain(text.TREES_CACHE) == (patterns, trees)  # stored again
    assert text._cue_trees(patterns[:-1], Scanner(patterns[:-1])) == trees[:-1]  # other patterns: parsed anew
    monkeypatch.setenv("TRAINOPT_NO_CACHE", "1")
    assert text._cue_trees(patterns, fresh) is None


def test_a_reused_engine_with_memories_of_other_kinds_diagnoses_as_a_fresh_one(monkeypatch):
    """A network holding memory nodes of a class of its own (reset as experta resets them) takes no snapshot of the
    initial fact's pass, which would not capture those nodes: reused over differing cases it reports as fresh."""
    cls = type("Built", (engine_class(),), {"cache_name": None})
    reused = cls()
    m = reused.matcher
    # one of the network's real join nodes, listed as a node of another kind: reset by its own ``_reset``
    node = m._joins.pop()
    m._others.append(node)
    cases = load_cases()[:12]
    for case in cases + cases[::-1]:
        assert _report(case, reused, monkeypatch) == _report(case, cls(), monkeypatch), case["_where"]
    assert m.__dict__.get("_snapshot") is None


def test_a_consultation_leaves_the_network_empty(monkeypatch):
    """A consultation's run empties the memories it filled as it ends (the collector then has no tokens to walk),
    and the next run on the same engine reads as on a fresh one."""
    cases = [c for c in load_cases() if c.get("observations")][:4]
    eng = engine_class()()
    for case in cases:
        got = _report(case, eng, monkeypatch)
        assert not eng.matcher.touched and not any(map(any, (_held(n) for n in eng.matcher.memories)))
        assert got == _report(case, engine_class()(), monkeypatch), case["_where"]
