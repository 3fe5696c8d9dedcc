"""One run, one verdict: the callbacks, ``watch`` and ``trainopt logs`` agree on real framework runs.

Each test trains a tiny model for real (Lightning, the Hugging Face Trainer, or a plain loop under ``watch``),
takes the live diagnosis, then reads the log the same run wrote (Lightning ``metrics.csv`` and TensorBoard
events, HF ``trainer_state.json``, a JSONL the loop wrote) with ``trainopt logs``: both must give the run's
right verdict, and the same one. Models are built from configs (no download).
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from expert.consultation import Consultation  # noqa: E402

OVERFIT = {"MS-OVF-01", "MS-GAP-01"}
logging.getLogger("lightning").setLevel(logging.ERROR)
logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
logging.getLogger("transformers").setLevel(logging.ERROR)


def from_log(path: Path) -> Consultation:
    c = Consultation()
    c.add_log(path)
    c.run()
    return c


def verdict(c: Consultation) -> dict[str, Any]:
    """What the run history says, whichever way it arrived."""
    o, d = c.observations, c.diagnosis
    return {"loss_behavior": o["loss_behavior"].value if "loss_behavior" in o else None,
            "val_loss_rising": o["val_loss_rising"].value if "val_loss_rising" in o else None,
            "overfitting": bool(OVERFIT & {f["id"] for f in d.findings}),
            "clean": d.status == "clean"}


def agree(live: Consultation, logged: Consultation, **expected: Any) -> None:
    a, b = verdict(live), verdict(logged)
    where = f"\nlive: {a}\nlogs: {b}\n--- live report\n{live.report('text')}\n--- logs report\n{logged.report('text')}"
    for key, want in expected.items():
        assert a[key] == want and b[key] == want, f"{key}: want {want}{where}"
    assert a["loss_behavior"] == b["loss_behavior"], where


# --------------------------------------------------------------------------------------- Lightning


def lightning_run(tmp_path: Path, kind: str) -> tuple[Any, Path]:
    pl = pytest.importorskip("lightning.pytorch")
    from torch.utils.data import DataLoader, TensorDataset

    from trainopt.lightning import TrainoptCallback

    class Classifier(pl.LightningModule):
        def __init__(self, width: int, lr: float, sgd: bool, cnn: bool = False) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(10, width), nn.ReLU(), nn.Linear(width, 3)) if not cnn else \
                nn.Sequential(nn.Unflatten(1, (1, 10)), nn.Conv1d(1, 8, 3, padding=1), nn.ReLU(),
                              nn.Conv1d(8, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(80, 3))
            self.lr, self.sgd, self.loss_fn = lr, sgd, nn.CrossEntropyLoss()

        def forward(self, x):
            return self.net(x)

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = self.loss_fn(self(x), y)
            self.log("train_loss", loss, on_step=True, on_epoch=True)  # step and epoch rows interleave
            return loss

        def validation_step(self, batch, batch_idx):
            x, y = batch
            out = self(x)
            self.log("val_loss", self.loss_fn(out, y))
            self.log("val_acc", (out.argmax(-1) == y).float().mean())

        def configure_optimizers(self):
            cls = torch.optim.SGD if self.sgd else torch.optim.Adam
            return cls(self.parameters(), lr=self.lr)

    def data(n: int, seed: int, noisy: float = 0.0) -> tuple[Any, Any]:
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(n, 10, generator=g)
        y = (x[:, 0] + 0.5 * x[:, 1] > 0).long() + (x[:, 2] > 1).long()
        flip = torch.rand(n, generator=g) < noisy
        return x, torch.where(flip, torch.randint(0, 3, (n,), generator=g), y)

    torch.manual_seed(0)
    if kind == "healthy":
        model, (x, y), epochs = Classifier(32, 1e-2, False), data(512, 0), 6
    elif kind == "healthy_cnn":
        model, (x, y), epochs = Classifier(0, 1e-2, False, cnn=True), data(512, 0), 6
    elif kind == "overfit":  # a wide net memorises 96 examples, 30% of them mislabelled
        model, (x, y), epochs = Classifier(512, 3e-3, False), data(96, 0, noisy=0.3), 100
    else:  # SGD at a learning rate far past stable: the loss overflows to NaN
        model, (x, y), epochs = Classifier(32, 200.0, True), data(512, 0), 2
    xv, yv = data(256, 1)
    cb = TrainoptCallback(loss_fn=nn.CrossEntropyLoss(), every=16)
    loggers = [pl.loggers.CSVLogger(str(tmp_path), name="csv")]
    try:
        import tensorboard  # noqa: F401

        loggers.append(pl.loggers.TensorBoardLogger(str(tmp_path), name="tb"))
    except ImportError:
        pass
    trainer = pl.Trainer(max_epochs=epochs, accelerator="cpu", devices=1, callbacks=[cb], logger=loggers,
                         default_root_dir=str(tmp_path), enable_progress_bar=False, enable_model_summary=False,
                         enable_checkpointing=False, log_every_n_steps=5)
    trainer.fit(model, DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True),
                DataLoader(TensorDataset(xv, yv), batch_size=128))
    return cb, tmp_path


def lightning_logs(root: Path) -> list[Path]:
    out = [root / "csv" / "version_0" / "metrics.csv"]
    tb = root / "tb" / "version_0"
    return out + ([tb] if tb.exists() else [])


@pytest.mark.parametrize("kind", ["healthy", "healthy_cnn"])
def test_lightning_healthy_runs_are_clean_through_the_callback_and_its_logs(tmp_path, kind):
    cb, root = lightning_run(tmp_path, kind)
    for log in lightning_logs(root):
        agree(cb.consultation, from_log(log), loss_behavior="decreasing_normally", clean=True, overfitting=False)


def test_lightning_overfit_is_found_through_the_callback_and_its_logs(tmp_path):
    cb, root = lightning_run(tmp_path, "overfit")
    for log in lightning_logs(root):
        agree(cb.consultation, from_log(log), val_loss_rising=True, overfitting=True)


def test_lightning_nan_is_found_through_the_callback_and_its_logs(tmp_path):
    cb, root = lightning_run(tmp_path, "nan")
    live = cb.consultation
    for log in lightning_logs(root):
        logged = from_log(log)
        agree(live, logged, loss_behavior="nan_or_inf")
        # the log holds every 5th step: its first NaN row is at or just after the step the watch saw
        first, seen = live.observations["nan_step"].value, logged.observations["nan_step"].value
        assert first <= seen <= first + 5, (first, seen)


# --------------------------------------------------------------------------------------- Hugging Face


class Tokens(torch.utils.data.Dataset):
    """Token sequences: for classification the label says whether the first token is in the lower half of the
    vocabulary; for language modelling each token is its predecessor plus one."""

    def __init__(self, n: int, seed: int, lm: bool) -> None:
        g = torch.Generator().manual_seed(seed)
        self.lm = lm
        self.x = torch.randint(5, 64, (n, 16), generator=g)
        if lm:
            self.x = (self.x[:, :1] + torch.arange(16)) % 64
        self.y = (self.x[:, 0] < 32).long()

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int) -> dict[str, Any]:
        if self.lm:
            return {"input_ids": self.x[i], "labels": self.x[i]}
        return {"input_ids": self.x[i], "attention_mask": torch.ones(16, dtype=torch.long), "labels": self.y[i]}


def hf_run(tmp_path: Path, kind: str) -> tuple[Any, Any, Path]:
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("accelerate")
    from trainopt.hf import TrainoptCallback

    torch.manual_seed(0)
    lm = kind != "bert"
    if lm:
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config(vocab_size=64, n_embd=32, n_layer=2, n_head=2,
                                                                     n_positions=32))
    else:
        model = transformers.BertForSequenceClassification(transformers.BertConfig(
            vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=32, num_labels=2))
    nan = kind == "gpt_nan"
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path), max_steps=60 if nan else 120, per_device_train_batch_size=32,
        # healthy: the usual small-transformer recipe (a GPT-2 block's output projections start at std 0.01, so
        # its LR stays near 1e-3 with warmup; the Trainer's default linear decay follows)
        learning_rate=30.0 if nan else 1e-3 if lm else 2e-3, warmup_steps=0 if nan else 12,
        optim="sgd" if nan else "adamw_torch", max_grad_norm=0.0 if nan else 1.0,
        logging_steps=5, eval_strategy="steps", eval_steps=30, save_strategy="no", report_to=[], use_cpu=True,
        disable_tqdm=True, seed=0)
    cb = TrainoptCallback(num_classes=None if lm else 2, every=20)
    trainer = transformers.Trainer(model=model, args=args, train_dataset=Tokens(1024, 0, lm),
                                   eval_dataset=Tokens(128, 1, lm), callbacks=[cb])
    trainer.train()
    state = tmp_path / "trainer_state.json"
    trainer.state.save_to_json(str(state))  # what every checkpoint folder holds
    return cb, trainer, state


@pytest.mark.parametrize("kind", ["bert", "gpt"])
def test_hf_healthy_transformers_are_clean_through_the_callback_and_the_trainer_state(tmp_path, kind):
    cb, _, state = hf_run(tmp_path, kind)
    live = cb.consultation
    agree(live, from_log(state), loss_behavior="decreasing_normally", clean=True)
    # no false alarms: gradients reach the first block, and an in-memory dataset is not waited on
    assert live.observations["grad_norm_trend"].value == "normal", live.report("text")
    # (the fraction is not observed at all when the wait is below what any loader pays a batch)
    data = live.observations.get("data_time_fraction")
    assert data is None or data.value < 0.5, data


def test_hf_nan_hidden_by_the_trainer_filter_is_found_through_the_callback_and_the_trainer_state(tmp_path):
    cb, trainer, state = hf_run(tmp_path, "gpt_nan")
    rows = [h for h in trainer.state.log_history if "loss" in h and "grad_norm" in h]
    # the pattern recent transformers write after a NaN: the filter logs 0.0, grad_norm stays NaN
    hidden = [h for h in rows if h["loss"] == 0.0 and math.isnan(h["grad_norm"])]
    assert hidden, rows
    logged = from_log(state)
    agree(cb.consultation, logged, loss_behavior="nan_or_inf")
    first_nan_row = min(h["step"] for h in rows if math.isnan(h["grad_norm"]))
    assert logged.observations["nan_step"].value == first_nan_row
    assert cb.consultation.observations["nan_step"].value <= first_nan_row


# --------------------------------------------------------------------------------------- plain loop + watch


def plain_run(tmp_path: Path, kind: str) -> tuple[Consultation, Path]:
    import trainopt

    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)

    def data(n: int) -> tuple[Any, Any]:
        x = torch.randn(n, 10, generator=g)
        return x, (x[:, 0] * x[:, 1] > 0).long() + (x[:, 2] > 0.5).long()

    (x, y), (xv, yv) = data(1024), data(256)
    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 3))
    loss_fn = nn.CrossEntropyLoss()
    if kind == "plateau":  # the LR is cut to almost nothing a third of the way in: progress stops well short
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = torch.optim.lr_scheduler.MultiStepLR(opt, [100], gamma=1e-4)
        batch = 256
    else:  # an LR range test left running: the LR grows 3% a step until the loss climbs away
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.ExponentialLR(opt, 1.03)
        batch = 32
    rows = []
    c = trainopt.Consultation()
    with trainopt.watch(model, opt, consultation=c, loss_fn=loss_fn, every=20) as w:
        for step in range(300):
            i = torch.randint(0, 1024, (batch,), generator=g)
            loss = loss_fn(model(x[i]), y[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            metrics = {}
            if step % 20 == 19:
                with torch.no_grad():
                    metrics["val_loss"] = float(loss_fn(model(xv), yv))
            w.step(loss, **metrics)
            rows.append({"step": step, "loss": float(loss), **metrics})
    log = tmp_path / "run.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return c, log


@pytest.mark.parametrize("kind,label", [("plateau", "plateau_after_learning"), ("diverging", "diverging")])
def test_plain_loop_watch_and_its_jsonl_agree(tmp_path, kind, label):
    live, log = plain_run(tmp_path, kind)
    agree(live, from_log(log), loss_behavior=label, clean=False)


# --------------------------------------------------------------------------------------- the shared pieces


def test_spike_counts_do_not_depend_on_how_the_stream_is_cut():
    """watch feeds its windows (any ``every``), trainopt logs a whole file: the same losses, the same count."""
    import numpy as np

    from probes.loss_curve import SpikeCounter

    rng = np.random.default_rng(3)
    t = np.arange(900)
    # noise that grows through the run (an LR climbing), with spikes some of which the run recovers from
    y = 1.5 * np.exp(-t / 200) + 0.2 + (0.01 + 0.05 * t / 900) * rng.standard_normal(900)
    y[[150, 420, 421, 700]] += [1.5, 2.0, 1.8, 2.5]
    y[-1] += 3.0  # and it ends on one
    counts = set()
    for width in (900, 50, 20, 7, 3):
        sc = SpikeCounter()
        for i in range(0, y.size, width):
            sc.update(y[i:i + width])
        counts.add((sc.totals(), sc.unrecovered))
    assert len(counts) == 1, counts
    (spikes, recovered), unrecovered = counts.pop()
    assert spikes >= 4 and recovered >= 2 and unrecovered >= 1


def test_the_hf_nan_filter_rule():
    from probes.history import nan_filtered, unfiltered_loss

    assert nan_filtered(0.0, math.nan) and nan_filtered(1.7, math.inf)  # a stand-in beside a non-finite norm
    assert not nan_filtered(0.4, 1.2) and not nan_filtered(math.nan, math.nan) and not nan_filtered(0.3, None)
    assert math.isnan(unfiltered_loss(0.0, math.nan)) and unfiltered_loss(0.4, 1.2) == 0.4
