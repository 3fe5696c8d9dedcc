"""Fixes written for the user's set-up: precision, framework and architecture pick the wording."""

from __future__ import annotations

import pytest

from expert.consultation import Consultation
from knowledge import all_rows
from knowledge.fix_variants import VARIANTS, fix_for
from knowledge.schema import Fix
from knowledge.vocabulary import VOCABULARY, validate

ROWS = {r.id: r for r in all_rows()}


def fixes(**obs: object) -> dict[str, dict]:
    c = Consultation()
    c.observe(**obs)
    return {f["rule"]: f for f in c.run().fixes}


def test_every_variant_rewrites_a_fix_that_exists_under_valid_conditions():
    for v in VARIANTS:
        if isinstance(v.of, Fix):
            assert any(r.fix is v.of for r in ROWS.values()), f"no row uses the shared fix of {v.fix.explain!r}"
        else:
            assert v.of in ROWS and ROWS[v.of].fix is not None, v.of
        for name, value in v.when.items():
            assert name in VOCABULARY, name
            validate(name, value)  # a value the vocabulary refuses could never match
        assert v.why and v.fix.explain


def test_bf16_never_gets_a_grad_scaler():
    for v in VARIANTS:
        if "bf16" in v.when.values():
            assert "GradScaler(" not in v.fix.code and "torch.float16" not in v.fix.code, v.fix.explain
    for framework in ("hf", "lightning", "plain"):
        f = fixes(weights_dtype="bf16", framework=framework, loss_behavior="flat_from_start")["PR-FP16W-01"]
        assert "GradScaler(" not in f["code"] and "torch.float16" not in f["code"], f
    # FP16 weights in a plain loop still get the scaler they need
    assert "GradScaler" in fixes(weights_dtype="fp16", loss_behavior="flat_from_start")["PR-FP16W-01"]["code"]


@pytest.mark.parametrize("framework,needle", [("lightning", "EarlyStopping("), ("hf", "load_best_model_at_end=True"),
                                              ("plain", "torch.save(")])
def test_overfitting_fix_speaks_the_framework(framework, needle):
    f = fixes(val_loss_rising=True, framework=framework)["MS-OVF-01"]
    assert needle in f["code"], f
    assert ("written_for" in f) == (framework != "plain")


@pytest.mark.parametrize("framework,needle", [("lightning", "gradient_clip_val=1.0"), ("hf", "max_grad_norm=1.0"),
                                              ("plain", "clip_grad_norm_(")])
def test_clipping_fix_speaks_the_framework(framework, needle):
    assert needle in fixes(grad_norm_global=500.0, framework=framework)["MS-GRAD-01"]["code"]


def test_vanishing_gradient_advice_respects_the_architecture():
    row = ROWS["MS-GRAD-02"]
    tf, chosen = fix_for("MS-GRAD-02", row.fix, {"architecture": "transformer"})
    assert chosen is not None and "kaiming" not in tf.code.lower() and "residual" in tf.explain
    cnn, chosen = fix_for("MS-GRAD-02", row.fix, {"architecture": "cnn"})
    assert chosen is None and cnn is row.fix
    f = fixes(grad_layer_ratio=1e-6, architecture="transformer")["MS-GRAD-02"]
    assert "kaiming" not in f["code"].lower() and "kaiming init is not the remedy" in f["explain"].lower()
