"""A picture of a run: loss and validation curves with the regimes trainopt detected marked (matplotlib)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge.errors import InputError

if TYPE_CHECKING:
    from expert.logs import LogRun

COLORS = {"loss": "#1f77b4", "val_loss": "#ff7f0e", "val_acc": "#2ca02c", "train_acc": "#9467bd",
          "lr": "#7f7f7f", "grad_norm": "#8c564b"}


def _arrays(series: Any) -> tuple[Any, ...]:
    """A series' steps, means, minima and maxima as float64 arrays (a small log's series holds plain lists)."""
    import numpy as np

    return tuple(np.asarray(a, dtype=np.float64) for a in series.curve())


def plot_run(run: LogRun, out: str | os.PathLike[str], *, title: str | None = None,
             status: str | None = None) -> Path:
    """Draw the run and save it (PNG, SVG or PDF by the file's suffix).

    Panels: the training loss (bucket means, with the min-max band when downsampled) and the validation loss,
    with the plateau shaded, spikes marked, the divergence and the first NaN/Inf step drawn as lines; then
    accuracies, then learning rate and gradient norm, when the log has them.

    Args:
        run: The log (``expert.logs.read_log``, or ``LogRun.from_history`` for a live run).
        out: Output file.
        title: Title (default: the file name and the curve's label).
        status: The diagnosis status, shown in the title.

    Returns:
        The path written.

    Raises:
        MissingExtraError: matplotlib is not installed (``pip install 'trainopt[plot]'``).
        InputError: The output folder does not exist or the suffix is not an image format.
    """
    from expert.extras import require

    mpl = require("matplotlib", "--plot")
    mpl.use("Agg", force=True)  # files only: never open a window, work without a display
    import matplotlib.pyplot as plt
    import numpy as np

    out = Path(out)
    if not out.parent.is_dir():
        raise InputError(f"cannot write {out}: no such folder", hint="create the folder first")
    if out.suffix.lower() not in (".png", ".svg", ".pdf", ".jpg", ".jpeg"):
        raise InputError(f"unsupported image format {out.suffix or '(none)'!r}", hint="use out.png, .svg or .pdf")
    reg = run.regimes()
    panels = ["loss"]
    if run.get("val_acc") is not None or run.get("train_acc") is not None:
        panels.append("acc")
    if run.get("lr") is not None or run.get("grad_norm") is not None:
        panels.append("opt")
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 3.2 + 2.2 * (len(panels) - 1)), sharex=True,
                             squeeze=False, height_ratios=[2] + [1] * (len(panels) - 1))
    axes = axes[:, 0]

    def line(ax: Any, role: str, label: str, marker: str | None = None) -> None:
        s = run.get(role)
        if s is None:
            return
        x, m, lo, hi = _arrays(s)
        if not m.size:
            return
        ax.plot(x, m, color=COLORS[role], lw=1.2, marker=marker, ms=3, label=f"{label} ({s.tag})")
        if s.downsampled:
            ax.fill_between(x, lo, hi, color=COLORS[role], alpha=0.15, lw=0, label=f"{label} min-max per bucket")

    ax = axes[0]
    line(ax, "loss", "training loss")
    vs = run.get("val_loss")
    line(ax, "val_loss", "validation loss", marker="o" if vs is not None and _arrays(vs)[1].size < 200 else None)
    loss = run.get("loss")
    if loss is not None:
        x, m, lo, hi = _arrays(loss)
        if m.size and np.all(m > 0) and (hi.max() / max(lo.min(), 1e-300)) > 50:
            ax.set_yscale("log")
        if reg["plateau"]:
            a, b = reg["plateau"]
            ax.axvspan(a, b, color="#bcbd22", alpha=0.18, label="plateau" if reg["label"] != "flat_from_start"
                       else "flat from the start")
        if reg["spikes"]:
            ys = [hi[int(np.argmin(np.abs(x - st)))] for st in reg["spikes"]]
            ax.scatter(reg["spikes"], ys, marker="v", color="#d62728", s=36, zorder=5,
                       label=f"spikes ({len(reg['spikes'])})")
        if reg["diverging_from"] is not None:
            ax.axvspan(reg["diverging_from"], float(x[-1]) if x.size else reg["diverging_from"], color="#d62728",
                       alpha=0.12, label=f"diverging from step {reg['diverging_from']}")
    if reg["nan_step"] is not None:
        for a in axes:
            a.axvline(reg["nan_step"], color="#d62728", ls="--", lw=1.5)
        ax.plot([], [], color="#d62728", ls="--", label=f"first NaN/Inf at step {reg['nan_step']}")
    ax.set_ylabel("loss")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    label = (reg["label"] or "unclassified").replace("_", " ")
    head = title or f"{run.path.name}: {label}" + (f"  (diagnosis: {status})" if status else "")
    ax.set_title(head, fontsize=11)
    i = 1
    if "acc" in panels:
        line(axes[i], "train_acc", "training accuracy")
        line(axes[i], "val_acc", "validation accuracy", marker="o")
        axes[i].set_ylabel("accuracy")
        axes[i].grid(alpha=0.3)
        axes[i].legend(fontsize=8, loc="best")
        i += 1
    if "opt" in panels:
        a = axes[i]
        line(a, "grad_norm", "gradient norm")
        gn = run.get("grad_norm")
        if gn is not None:
            a.set_ylabel("grad norm")
            _, _, glo, ghi = _arrays(gn)
            if glo.size and glo.min() > 0 and ghi.max() / glo.min() > 20:
                a.set_yscale("log")
            a.legend(fontsize=8, loc="upper left")
        if run.get("lr") is not None:
            b = a.twinx() if run.get("grad_norm") is not None else a
            line(b, "lr", "learning rate")
            b.set_ylabel("learning rate")
            b.legend(fontsize=8, loc="lower right")
        a.grid(alpha=0.3)
    axes[-1].set_xlabel("step")
    fig.tight_layout()
    try:
        fig.savefig(out, dpi=110)
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    return out
