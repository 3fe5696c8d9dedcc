"""Large logs: 1M TensorBoard points against TensorBoard's own loader, and a 1M-row CSV (issue 22's targets).

Run ``python -m bench.logs_scale [--points N] [--keep DIR]``; each read runs in its own process so its memory
is its own. Targets: TensorBoard within 1.5x TensorBoard's loader on the same file; the CSV within 2 s.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

READ = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[3])
path, how = sys.argv[1], sys.argv[2]
import numpy  # noqa: F401 - imported before the baseline
if how == "tensorboard-loader":
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
else:
    from expert.logs import read_log
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
if how == "tensorboard-loader":
    n = sum(len(ev.summary.value) for ev in EventFileLoader(path).Load())
else:
    run = read_log(path)
    n = run.rows
took = time.perf_counter() - t
print(json.dumps({"read": how, "points": n, "seconds": round(took, 2),
                  "memory_mb": round((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024, 1)}))
"""


def _time(path: Path, how: str) -> dict:
    out = subprocess.run([sys.executable, "-c", READ, str(path), how, str(ROOT)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    """Write the logs, read each two ways, print the table; exit 1 when a target is missed."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--keep", type=Path, default=None, help="write the logs here (default: a temporary folder)")
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tensorboard.compat.proto import event_pb2, summary_pb2

    from tests.hostile import tfrecord

    with tempfile.TemporaryDirectory() as tmp:
        folder = a.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        tb = folder / "events.out.tfevents.1.bench"
        with open(tb, "wb") as fh:
            fh.write(tfrecord(event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString()))
            for i in range(a.points):
                ev = event_pb2.Event(wall_time=1.0 + i, step=i, summary=summary_pb2.Summary(value=[
                    summary_pb2.Summary.Value(tag="train/loss", simple_value=2.0 * math.exp(-i / 1e5) + 0.1)]))
                fh.write(tfrecord(ev.SerializeToString()))
        csv = folder / "big.csv"
        with open(csv, "w") as fh:
            fh.write("step,loss,epoch\n")
            fh.writelines(f"{i},{2.0 * math.exp(-i / 1e5) + 0.1:.5f},{i // 10000}\n" for i in range(a.points))
        theirs, ours, c = _time(tb, "tensorboard-loader"), _time(tb, "trainopt"), _time(csv, "trainopt")
    ratio = ours["seconds"] / max(theirs["seconds"], 1e-9)
    print(f"TensorBoard, {a.points:,} points: TensorBoard's loader {theirs['seconds']} s, trainopt {ours['seconds']} s "
          f"({ratio:.2f}x; target <= 1.5x), trainopt memory {ours['memory_mb']} MB")
    print(f"CSV, {a.points:,} rows: trainopt {c['seconds']} s (target <= 2 s), memory {c['memory_mb']} MB")
    return 0 if ratio <= 1.5 and c["seconds"] <= 2.0 * a.points / 1_000_000 else 1


if __name__ == "__main__":
    sys.exit(main())
