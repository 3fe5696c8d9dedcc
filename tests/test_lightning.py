"""trainopt.lightning.TrainoptCallback, real Lightning, tiny CPU models: a healthy fit is clean, faults are found."""

from __future__ import annotations

import json
import logging

import pytest

pytest.importorskip("lightning")
import lightning.pytorch as pl  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

from trainopt.lightning import TrainoptCallback  # noqa: E402

logging.getLogger("lightning").setLevel(logging.ERROR)
logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)


@pytest.fixture(autouse=True)
def _seeded() -> None:
    # Models are built in the tests, before fit() seeds the data: seed their initialisation too, so each test
    # sees one run, not a different one per process.
    torch.manual_seed(0)


def data(n: int = 512, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 10, generator=g)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).long() + (x[:, 2] > 1).long()
    return x, y


class Classifier(pl.LightningModule):
    def __init__(self, lr: float = 1e-2, opt: str = "adam", softmax_out: bool = False) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
        self.lr, self.opt, self.softmax_out = lr, opt, softmax_out
        self.loss_fn = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.net(x)
        return out.softmax(-1) if self.softmax_out else out

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = self.loss_fn(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        out = self(x)
        self.log("val_loss", self.loss_fn(out, y))
        self.log("val_acc", (out.argmax(-1) == y).float().mean())

    def configure_optimizers(self):
        if self.opt == "sgd":
            return torch.optim.SGD(self.parameters(), lr=self.lr)
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def fit(tmp_path, model, callback, epochs: int = 6, **trainer_kw):
    torch.manual_seed(0)
    x, y = data()
    xv, yv = data(128, seed=1)
    train = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    val = DataLoader(TensorDataset(xv, yv), batch_size=64)
    trainer = pl.Trainer(max_epochs=epochs, accelerator="cpu", devices=1, callbacks=[callback],
                         default_root_dir=str(tmp_path), logger=pl.loggers.CSVLogger(str(tmp_path)),
                         enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
                         log_every_n_steps=5, **trainer_kw)
    trainer.fit(model, train, val)
    return trainer


def jsonschema_ok() -> bool:
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        return False
    return True


def severe(cb) -> dict[str, str]:
    return {f["id"]: f["severity"] for f in cb.diagnosis.findings if f["severity"] in ("warning", "critical")}


def test_healthy_fit_is_clean_and_the_report_is_written(tmp_path):
    cb = TrainoptCallback(loss_fn=nn.CrossEntropyLoss(), every=16)
    trainer = fit(tmp_path, Classifier(), cb)
    assert cb.diagnosis.status == "clean", (severe(cb), cb.consultation.report("text"))
    assert cb.stopped_at is None
    obs = cb.consultation.observations
    assert obs["loss_behavior"].value == "decreasing_normally"
    assert obs["grad_norm_trend"].value == "normal"
    assert obs["metric_kind"].value == "accuracy" or obs["metric_kind"].value == "loss"  # val metrics were fed
    paths = {p.name for p in cb.report_paths}
    assert paths == {"trainopt_report.json", "trainopt_report.md"}
    saved = json.loads((tmp_path / "lightning_logs" / "version_0" / "trainopt_report.json").read_text())
    assert saved["status"] == "clean"
    if jsonschema_ok():
        from tests.test_schema import assert_valid

        assert_valid("report", saved)
    metrics = (tmp_path / "lightning_logs" / "version_0" / "metrics.csv").read_text()
    assert "trainopt/needs_action" in metrics.splitlines()[0]
    assert trainer.global_step == 6 * 16


def test_divergent_learning_rate_is_found_and_stops_the_fit(tmp_path):
    cb = TrainoptCallback(loss_fn=nn.CrossEntropyLoss(), every=8, stop_on_trip=True)
    trainer = fit(tmp_path, Classifier(lr=40.0, opt="sgd"), cb)
    assert cb.diagnosis.status == "diagnosed" and cb.diagnosis.needs_action
    assert cb.stopped_at is not None and trainer.global_step < 6 * 16  # stopped early
    obs = cb.consultation.observations
    assert obs["loss_behavior"].value in ("nan_or_inf", "diverging", "oscillating", "spiking")
    assert obs["loss_behavior"].source.startswith("probe:")


def test_softmax_before_cross_entropy_is_found(tmp_path):
    cb = TrainoptCallback(loss_fn=nn.CrossEntropyLoss(), every=16)
    fit(tmp_path, Classifier(softmax_out=True), cb, epochs=3)
    assert cb.consultation.observations["output_activation"].value == "softmax"
    assert cb.diagnosis.needs_action, cb.consultation.report("text")


def test_gradients_are_seen_before_clipping(tmp_path):
    """With clipping to 1e-3 the optimizer sees tiny gradients; the callback reads them at on_before_optimizer_step,
    before Lightning clips, so the measured norm is the real one."""
    cb = TrainoptCallback(loss_fn=nn.CrossEntropyLoss(), every=16)
    fit(tmp_path, Classifier(), cb, epochs=2, gradient_clip_val=1e-3)
    assert cb.consultation.observations["grad_norm_global"].value > 1e-2


def test_a_rank_other_than_zero_watches_and_votes_but_writes_no_report(tmp_path, monkeypatch):
    # Under DDP every rank watches (the ranks compare notes once per window) and votes on stopping through the
    # strategy's reduce; only global rank zero writes. Pretend this process is rank 1 (alone, the reduce is its
    # own vote); the real 2-process fits are in test_dist_frameworks.py.
    monkeypatch.setattr(pl.Trainer, "is_global_zero", property(lambda self: False))
    cb = TrainoptCallback(loss_fn=nn.CrossEntropyLoss(), every=8, stop_on_trip=True)
    trainer = fit(tmp_path, Classifier(lr=40.0, opt="sgd"), cb, epochs=2)
    assert cb.diagnosis is not None and cb.stopped_at is not None
    assert trainer.global_step < 2 * 16
    assert not list(tmp_path.rglob("trainopt_report.*")) and cb.report_paths == []
