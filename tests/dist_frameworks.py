"""Lightning DDP (2 CPU processes) and a Hugging Face Trainer under torchrun (2 CPU processes) with the callback.

``python tests/dist_frameworks.py lightning|hf CASES OUT_DIR``: CASES is a comma-separated list of ``healthy``
(stays clean, runs to the end) and ``diverging`` (an LR far too high: the loss blows up, the watch trips
and ``stop_on_trip`` must stop every rank at the same step). Each rank writes
``OUT_DIR/<framework>-<case>-rank<r>.json``; the test checks them. Lightning's DDP strategy starts the second
process itself; the HF run is started by ``torchrun``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from torch import nn

EVERY = 10
STEPS = 60


def _data(n: int = 1024) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 8, generator=g)
    return x, ((x[:, 0] + 0.5 * x[:, 1]) > 0).long()


def _lr(case: str, adam: bool = False) -> float:
    if case != "healthy":
        return 1e4
    return 1e-2 if adam else 0.05


def lightning(case: str, out: Path) -> None:
    """A Lightning fit under DDP on two CPU processes with the trainopt callback."""
    import lightning.pytorch as pl
    from torch.utils.data import DataLoader, TensorDataset

    from trainopt.lightning import TrainoptCallback

    class Net(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net(x)

        def training_step(self, batch: tuple[torch.Tensor, torch.Tensor], i: int) -> torch.Tensor:
            x, y = batch
            return nn.functional.cross_entropy(self(x), y)

        def configure_optimizers(self) -> torch.optim.Optimizer:
            return torch.optim.SGD(self.parameters(), lr=_lr(case), momentum=0.9)

    torch.manual_seed(0)
    cb = TrainoptCallback(stop_on_trip=True, every=EVERY, loss_fn=nn.functional.cross_entropy)
    trainer = pl.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_steps=STEPS, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                         default_root_dir=str(out / f"lightning-{case}"), callbacks=[cb])
    x, y = _data()
    trainer.fit(Net(), DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True))
    d = cb.diagnosis
    (out / f"lightning-{case}-rank{trainer.global_rank}.json").write_text(json.dumps({
        "stopped_at": cb.stopped_at, "global_step": trainer.global_step, "status": d.status if d else None,
        "findings": [f["id"] for f in d.findings if f["severity"] != "info"] if d else [],
        "reports": [str(p) for p in cb.report_paths],
        "evidence": {o.name: o.evidence for o in cb.consultation.observations.values()
                     if o.source == "probe:ranks"}}, default=str))


def hf(case: str, out: Path) -> None:
    """A transformers Trainer run on two CPU processes (torchrun) with the trainopt callback."""
    import torch.distributed as dist
    from transformers import Trainer, TrainingArguments

    from trainopt.hf import TrainoptCallback

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))

        def forward(self, x: torch.Tensor, labels: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
            logits = self.net(x)
            out = {"logits": logits}
            if labels is not None:
                out["loss"] = nn.functional.cross_entropy(logits, labels)
            return out

    x, y = _data()
    rows = [{"x": x[i], "labels": y[i]} for i in range(len(x))]
    torch.manual_seed(0)
    cb = TrainoptCallback(stop_on_trip=True, every=EVERY)
    args = TrainingArguments(output_dir=str(out / f"hf-{case}"), per_device_train_batch_size=16,
                             max_steps=STEPS, learning_rate=_lr(case, adam=True), optim="adamw_torch",
                             lr_scheduler_type="constant",
                             logging_steps=5, save_strategy="no", report_to=[], use_cpu=True,
                             disable_tqdm=True, ddp_backend="gloo", max_grad_norm=0.0)
    trainer = Trainer(model=Net(), args=args, train_dataset=rows, callbacks=[cb])
    trainer.train()
    rank = dist.get_rank() if dist.is_initialized() else 0
    d = cb.diagnosis
    (out / f"hf-{case}-rank{rank}.json").write_text(json.dumps({
        "stopped_at": cb.stopped_at, "global_step": trainer.state.global_step,
        "status": d.status if d else None,
        "findings": [f["id"] for f in d.findings if f["severity"] != "info"] if d else [],
        "reports": [str(p) for p in cb.report_paths],
        "world": dist.get_world_size() if dist.is_initialized() else 1}))


if __name__ == "__main__":
    import faulthandler

    faulthandler.dump_traceback_later(240, exit=True)  # a hang prints every thread's stack, then ends the rank
    torch.set_num_threads(1)
    for one in sys.argv[2].split(","):  # one launch, several fits in turn: the start-up is paid once
        {"lightning": lightning, "hf": hf}[sys.argv[1]](one, Path(sys.argv[3]))
    import torch.distributed as dist

    if dist.is_initialized():  # leave together: a rank still in the group at exit can hold the launcher up
        dist.barrier()
        dist.destroy_process_group()
