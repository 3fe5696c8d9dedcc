"""trainopt.hf.TrainoptCallback with a real transformers install and a tiny randomly initialised model (no download)."""

from __future__ import annotations

import importlib.util
import json
import logging

import pytest

pytest.importorskip("transformers")
pytest.importorskip("accelerate")
import torch  # noqa: E402
from transformers import Trainer, TrainingArguments, ViTConfig, ViTForImageClassification  # noqa: E402

from trainopt.hf import TrainoptCallback  # noqa: E402

logging.getLogger("transformers").setLevel(logging.ERROR)


class Images(torch.utils.data.Dataset):
    """1x8x8 noisy images; class 1 has a bright top half, class 0 a bright bottom half."""

    def __init__(self, n: int, seed: int, shuffle_labels: bool = False) -> None:
        g = torch.Generator().manual_seed(seed)
        self.y = torch.randint(0, 2, (n,), generator=g)
        self.x = torch.randn(n, 1, 8, 8, generator=g)
        self.x[:, :, :4] += 0.8 * (2 * self.y - 1).view(-1, 1, 1, 1)
        self.x[:, :, 4:] -= 0.8 * (2 * self.y - 1).view(-1, 1, 1, 1)
        if shuffle_labels:
            self.y = self.y[torch.randperm(n, generator=g)]

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int) -> dict:
        return {"pixel_values": self.x[i], "labels": self.y[i]}


def train(tmp_path, cb, lr=2e-3, steps=60, shuffle_labels=False, **kw):
    # A tiny ViT, randomly initialised from a config: no download. (Its first weight is the class token, whose
    # gradient is dense; the first weight of a text model is a token-embedding table with sparse gradients.)
    torch.manual_seed(0)
    cfg = ViTConfig(image_size=8, patch_size=4, num_channels=1, hidden_size=32, num_hidden_layers=1,
                    num_attention_heads=2, intermediate_size=64, num_labels=2)
    model = ViTForImageClassification(cfg)
    args = TrainingArguments(output_dir=str(tmp_path), max_steps=steps, per_device_train_batch_size=32,
                             learning_rate=lr, logging_steps=2, eval_strategy="steps", eval_steps=20,
                             save_strategy="no", report_to=[], use_cpu=True, disable_tqdm=True, seed=0,
                             lr_scheduler_type="constant", **kw)
    trainer = Trainer(model=model, args=args, train_dataset=Images(1024, 0, shuffle_labels),
                      eval_dataset=Images(64, 1), callbacks=[cb])
    trainer.train()
    return trainer


def test_healthy_training_is_clean_and_the_report_is_saved(tmp_path):
    cb = TrainoptCallback(num_classes=2, every=20)
    trainer = train(tmp_path, cb)
    assert cb.diagnosis.status == "clean", cb.consultation.report("text")
    obs = cb.consultation.observations
    assert obs["loss_behavior"].value == "decreasing_normally"
    assert obs["optimizer"].value == "adamw"  # read off the optimizer inside accelerate's wrapper
    assert "metric_kind" in obs  # eval metrics reached the watch
    saved = json.loads((tmp_path / "trainopt_report.json").read_text())
    assert saved["status"] == "clean"
    if importlib.util.find_spec("jsonschema"):
        from tests.test_schema import assert_valid

        assert_valid("report", saved)
    assert trainer.state.log_history[-1]["trainopt/status"] == "clean"


def test_exploding_learning_rate_is_found_and_stops_training(tmp_path):
    cb = TrainoptCallback(num_classes=2, every=10, stop_on_trip=True)
    trainer = train(tmp_path, cb, lr=30.0, max_grad_norm=0.0)
    assert cb.diagnosis.needs_action, cb.consultation.report("text")
    assert cb.stopped_at is not None and trainer.state.global_step < 60


def test_shuffled_labels_leave_a_flat_loss(tmp_path):
    cb = TrainoptCallback(num_classes=2, every=20)
    train(tmp_path, cb, shuffle_labels=True, steps=60)
    obs = cb.consultation.observations
    assert obs["loss_behavior"].value in ("flat_from_start", "decreasing_slowly"), cb.consultation.report("text")
    assert cb.diagnosis.status in ("diagnosed", "needs_answer")
