"""The rank-aware watch in real 2-process torch.distributed jobs (gloo on CPU, loopback, bounded in time).

One job (``tests/dist_jobs.py``) runs every scenario on both ranks; each test reads what rank 0 (the rank that
writes the report) and rank 1 concluded.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 240


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    """Run every scenario once on two ranks; the per-rank results."""
    torch = pytest.importorskip("torch")
    if not torch.distributed.is_available():
        pytest.skip("torch.distributed is not available")
    out = tmp_path_factory.mktemp("dist")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "tests.dist_jobs", str(out)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        log, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the job and both ranks: a hang must never outlive the test
        proc.communicate()
        pytest.fail(f"the distributed job did not finish in {TIMEOUT_S} s")
    assert proc.returncode == 0, log.decode(errors="replace")[-4000:]
    return [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]


def _ids(result):
    return {f for f, sev in result["findings"] if sev in ("warning", "critical")}


def _obs(result, name):
    return result["observations"][name]


def test_a_healthy_ddp_job_stays_clean_on_every_rank(ranks):
    for r in ranks:
        h = r["healthy"]
        assert h["status"] == "clean", h["findings"]
        assert _obs(h, "replicas_in_sync")["value"] == "in_sync"
        assert _obs(h, "rank_data")["value"] == "distinct"
        assert _obs(h, "rank_batch_counts")["value"] == "equal"
        assert _obs(h, "epoch_data_order")["value"] == "reshuffled"
        assert _obs(h, "grads_synced")["value"] == "synced"
        assert _obs(h, "dist_world_size")["value"] == 2
        assert h["trips"] == []


def test_replicas_drifting_apart_name_the_rank_the_parameter_and_since_when(ranks):
    d = ranks[0]["desync"]
    assert _ids(d) == {"DD-SYNC-01"}
    ev = _obs(d, "replicas_in_sync")["evidence"]
    assert ev["ranks"] == [1] and ev["first_parameter"] == "module.2.bias"
    # nudged after step 15: in sync at the window end of step 10, apart by the one of step 20
    assert ev["in_sync_at_step"] == 10 and ev["diverged_by_step"] == 20
    assert d["plan"][0] == "pytorch-engineering"


def test_the_first_nonfinite_rank_and_site_are_named_and_rank0_does_not_blame_its_gradients(ranks):
    for r in ranks:
        n = r["nan"]
        assert _obs(n, "nan_location")["value"] == "inputs"  # rank 1's input, not rank 0's all-reduced gradients
        assert _obs(n, "nonfinite_rank")["value"] == 1
        assert _obs(n, "nan_step")["value"] == 25
        assert "MS-NAN-01" in _ids(n)
        assert not {"MS-GRAD-01", "MS-NAN-03"} & _ids(n)
        assert "DD-NAN-01" in {f for f, _ in n["findings"]}


def test_a_nan_in_one_rank_s_own_gradients_is_traced_to_that_rank_before_the_all_reduce(ranks):
    for r in ranks:
        n = r["nan_grad"]
        assert _obs(n, "nonfinite_rank")["value"] == 1
        assert _obs(n, "nan_location")["value"] == "gradients"
        assert _obs(n, "nan_step")["value"] == 25
        # rank 0's own gradients went NaN in the same step, through the all-reduce: not its own first site
        assert _obs(n, "nan_location")["evidence"]["first_step_by_rank"]["0"] is None or \
            _obs(n, "nan_location")["evidence"]["first_step_by_rank"]["0"] > 25


def test_the_same_data_on_every_rank_is_named(ranks):
    assert _ids(ranks[0]["identical"]) == {"DD-DATA-01"}
    assert _obs(ranks[0]["identical"], "rank_data")["value"] == "identical"


def test_a_sampler_never_given_its_epoch_repeats_the_order(ranks):
    assert _ids(ranks[0]["set_epoch"]) == {"DD-EPOCH-01"}


def test_uneven_batch_counts_stop_every_rank_together_before_the_hang(ranks):
    for r in ranks:
        u = r["uneven"]
        assert "DD-UNEVEN-01" in _ids(u)
        assert _obs(u, "rank_batch_counts")["evidence"]["batches_per_epoch_by_rank"] == [16, 20]
    # the same stop decision at the same step on both ranks, before rank 0 runs out at batch 16
    assert ranks[0]["uneven"]["raised_at"] == ranks[1]["uneven"]["raised_at"]
    assert ranks[0]["uneven"]["raised_at"] is not None and ranks[0]["uneven"]["raised_at"] < 16


def test_a_straggler_rank_is_named(ranks):
    s = ranks[0]["straggler"]
    assert "DD-SKEW-01" in _ids(s)
    assert _obs(s, "rank_step_skew")["evidence"]["slowest_rank"] == 1


def test_an_optimizer_step_inside_no_sync_is_one_cause_not_two(ranks):
    n = ranks[0]["nosync"]
    assert "DD-NOSYNC-01" in _ids(n)
    assert "DD-SYNC-01" not in _ids(n)  # the drift it causes is its evidence, not a second finding


def test_batchnorm_without_syncbn_on_small_per_rank_batches(ranks):
    b = ranks[0]["batchnorm"]
    assert _ids(b) == {"DD-BN-01"}
    assert _obs(b, "per_rank_batch")["value"] == 4


def test_a_watch_on_rank_zero_alone_stays_local_and_never_waits_for_the_others(ranks):
    r = ranks[0]["rank0_only"]
    assert r["steps"] == 20 and r["status"] == "clean", r["findings"]
    assert "replicas_in_sync" not in r["observations"]  # no exchange took place
    assert ranks[1]["rank0_only"]["steps"] == 20


def test_an_fsdp2_job_stays_clean_and_its_shards_add_up_to_one_gradient_norm(ranks):
    for r in ranks:
        h = r["fsdp_healthy"]
        assert h["status"] == "clean", h["findings"]
        assert h["trips"] == []
        assert _obs(h, "rank_data")["value"] == "distinct"
        # sharded parameters are no replicas: no drift verdict is made on them
        assert "replicas_in_sync" not in h["observations"]
    ev = _obs(ranks[0]["fsdp_healthy"], "dist_world_size")["evidence"]
    assert ev["parameters"] == "sharded"
    assert ev["grad_norm"] > 0 and ev["grad_norm"] == _obs(ranks[1]["fsdp_healthy"], "dist_world_size")[
        "evidence"]["grad_norm"]


def test_under_fsdp2_a_nan_in_one_rank_s_batch_is_traced_to_that_rank(ranks):
    for r in ranks:
        n = r["fsdp_nan"]
        assert _obs(n, "nonfinite_rank")["value"] == 1
        assert _obs(n, "nan_location")["value"] == "inputs"
        assert _obs(n, "nan_step")["value"] == 25
        assert "MS-NAN-01" in _ids(n) and not {"MS-GRAD-01", "MS-NAN-03"} & _ids(n)


def test_under_fsdp2_a_rank_s_own_nan_gradient_is_seen_before_the_reduce_scatter(ranks):
    for r in ranks:
        n = r["fsdp_nan_grad"]
        assert _obs(n, "nonfinite_rank")["value"] == 1
        assert _obs(n, "nan_location")["value"] == "gradients"
        assert _obs(n, "nan_step")["value"] == 25
        first = _obs(n, "nan_location")["evidence"]["first_step_by_rank"]["0"]
        assert first is None or first > 25


def test_under_fsdp2_the_same_data_on_every_rank_is_named(ranks):
    assert _ids(ranks[0]["fsdp_identical"]) == {"DD-DATA-01"}
    assert _obs(ranks[0]["fsdp_identical"], "rank_data")["value"] == "identical"


def test_parameter_marks_match_a_naive_reference_and_see_a_shift_a_norm_misses():
    torch = pytest.importorskip("torch")
    from probes.ranks import differs, fingerprint, param_marks

    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2))
    ps = list(m.parameters())
    marks = param_marks(ps).tolist()
    naive = [float(p.sum()) for p in ps] + [float(p.norm()) for p in ps]
    assert marks == pytest.approx(naive, rel=1e-6)
    before = fingerprint(marks)
    with torch.no_grad():
        ps[-1].copy_(torch.tensor([0.5, -0.5]))
        after_sym = fingerprint(param_marks(ps).tolist())
        ps[-1].add_(0.01)  # the same shift on both entries of a symmetric bias keeps its L1 norm
        shifted = fingerprint(param_marks(ps).tolist())
    assert differs(before[0], after_sym[0], 1e-6) or differs(before[1], after_sym[1], 1e-6)
    assert differs(after_sym[0], shifted[0], 1e-6)
    assert not differs(float("nan"), 1.0, 1e-6)


def test_a_batch_mark_tells_batches_apart_from_a_bounded_sample():
    torch = pytest.importorskip("torch")
    from probes.ranks import MARK_ROWS, MARK_VALUES, batch_mark

    g = torch.Generator().manual_seed(0)
    for shape in ((256, 64), (16, 3, 32, 32), (8, 128, 96), (5,)):
        a = torch.randn(*shape, generator=g)
        assert float(batch_mark(a)) == float(batch_mark(a.clone()))  # the same batch: the same mark
        b = a.clone()
        b[0].reshape(-1)[-1 if b.ndim == 1 else 0] += 1.0  # one value of the first sample
        assert float(batch_mark(b)) != float(batch_mark(a))
        assert float(batch_mark(torch.randn(*shape, generator=g))) != float(batch_mark(a))
    # the mark reads a bounded part of a large batch: it equals the sum of the sampled values
    big = torch.randn(64, 3, 224, 224, generator=g)
    rows = big[::64 // MARK_ROWS][:MARK_ROWS]
    assert float(batch_mark(big)) == pytest.approx(float(rows[:, :1, :MARK_VALUES // 224, :].sum()), rel=1e-5)
    ids = torch.randint(0, 50000, (8, 512), generator=g)  # token ids: summed in float32, no overflow
    assert float(batch_mark(ids)) == pytest.approx(float(ids[::2][:MARK_ROWS].double().sum()), rel=1e-6)


def test_a_batch_mark_reads_the_same_sample_whatever_the_memory_layout():
    torch = pytest.importorskip("torch")
    from probes.ranks import MARK_ROWS, MARK_VALUES, batch_mark

    def naive(x):
        # the same sample taken by slicing: evenly spaced rows, then the innermost dims first within the budget
        t = x[::max(1, x.shape[0] // MARK_ROWS)][:MARK_ROWS]
        left = MARK_VALUES
        for d in range(t.ndim - 1, 0, -1):
            keep = min(t.shape[d], max(1, left))
            t, left = t.narrow(d, 0, keep), left // keep
        return float(t.double().sum())

    g = torch.Generator().manual_seed(3)
    base = torch.randn(10, 6, 40, 50, generator=g)
    for x in (base, base[2:], base[:, :, 5:], base.transpose(2, 3), base.to(memory_format=torch.channels_last),
              torch.randn(7, 5, generator=g).expand(9, 7, 5), torch.randn(300, generator=g)[::3]):
        assert float(batch_mark(x)) == pytest.approx(naive(x), rel=1e-5, abs=1e-4)
