"""Term sets and spellings: the one place that knows which names mean the same optimizer, loss or schedule.

Rows, the complaint parser and the probes all read names from here, so a loss typed as ``CrossEntropyLoss``,
``nn.CrossEntropyLoss()``, ``F.cross_entropy`` or "cross-entropy" meets the same rows. Canonical names are
the vocabulary's values (``optimizer``, ``lr_schedule``) or, for losses, the functional name in
``torch.nn.functional`` without its ``_loss`` suffix.
"""

from __future__ import annotations

import re
from functools import lru_cache

# ---------------------------------------------------------------------------------------------------
# optimizers (canonical = the vocabulary's ``optimizer`` values)
# ---------------------------------------------------------------------------------------------------

ADAPTIVE: frozenset[str] = frozenset({
    "adam", "adamw", "lamb", "lion", "sophia", "ademamix", "adamw_8bit", "paged_adamw", "prodigy", "shampoo",
    "muon", "schedule_free",
})
"""Optimizers that scale each step by running gradient statistics (their LR lives on a different scale to SGD's)."""

PLAIN_SGD: frozenset[str] = frozenset({"sgd", "sgd_momentum"})
"""Stochastic gradient descent with or without momentum."""

OPTIMIZER_SPELLINGS: dict[str, str] = {
    "sgd": "sgd", "sgd_momentum": "sgd_momentum", "momentum": "sgd_momentum", "nesterov": "sgd_momentum",
    "adam": "adam", "adamw": "adamw", "adam_w": "adamw", "adamweightdecay": "adamw", "fusedadam": "adam",
    "lamb": "lamb", "fusedlamb": "lamb", "lion": "lion", "sophia": "sophia", "sophiag": "sophia",
    "muon": "muon", "shampoo": "shampoo", "distributedshampoo": "shampoo", "ademamix": "ademamix",
    "schedulefree": "schedule_free", "schedule_free": "schedule_free", "adamwschedulefree": "schedule_free",
    "sgdschedulefree": "schedule_free", "prodigy": "prodigy", "adamw8bit": "adamw_8bit", "adam8bit": "adamw_8bit",
    "adamw_8bit": "adamw_8bit", "pagedadamw": "paged_adamw", "pagedadamw8bit": "paged_adamw",
    "paged_adamw": "paged_adamw", "paged_adamw_8bit": "paged_adamw", "adamw_torch": "adamw", "adamw_hf": "adamw",
    "adamw_torch_fused": "adamw", "adafactor": "other", "rmsprop": "other", "adagrad": "other",
    "adadelta": "other", "lbfgs": "other", "radam": "other", "nadam": "other", "adamax": "other",
}

# ---------------------------------------------------------------------------------------------------
# losses (canonical = torch.nn.functional name without ``_loss``)
# ---------------------------------------------------------------------------------------------------

LOSS_SPELLINGS: dict[str, str] = {
    "crossentropyloss": "cross_entropy", "cross_entropy": "cross_entropy", "crossentropy": "cross_entropy",
    "categorical_crossentropy": "cross_entropy", "sparse_categorical_crossentropy": "cross_entropy",
    "ce": "cross_entropy", "ce_loss": "cross_entropy",  # ("CE loss": safe with its noun, unlike a bare "ce")
    "nllloss": "nll", "nll_loss": "nll", "nll": "nll", "negative_log_likelihood": "nll",
    "bcewithlogitsloss": "bce_with_logits", "binary_cross_entropy_with_logits": "bce_with_logits",
    "bce_with_logits": "bce_with_logits", "bcewithlogits": "bce_with_logits",
    "bceloss": "bce", "binary_cross_entropy": "bce", "bce": "bce", "binary_crossentropy": "bce",
    "mseloss": "mse", "mse_loss": "mse", "mse": "mse", "mean_squared_error": "mse", "l2": "mse", "l2_loss": "mse",
    "meansquarederror": "mse",
    "l1loss": "l1", "l1_loss": "l1", "l1": "l1", "mae": "l1", "mean_absolute_error": "l1", "meanabsoluteerror": "l1",
    "smoothl1loss": "smooth_l1", "smooth_l1_loss": "smooth_l1", "smooth_l1": "smooth_l1",
    "huberloss": "huber", "huber_loss": "huber", "huber": "huber",
    "kldivloss": "kl_div", "kl_div": "kl_div", "kl_divergence": "kl_div", "kld": "kl_div",
    "ctcloss": "ctc", "ctc_loss": "ctc", "ctc": "ctc",
    "marginrankingloss": "margin_ranking", "tripletmarginloss": "triplet_margin",
    "cosineembeddingloss": "cosine_embedding",
    "focal_loss": "focal", "focalloss": "focal", "sigmoid_focal_loss": "focal", "dice_loss": "dice", "diceloss": "dice",
    # losses made from a quality metric (speech intelligibility, signal-to-distortion, box overlap, structural
    # similarity): named with their "loss" or by their package, since the bare metric names are scores in prose
    "stoi_loss": "stoi", "negstoi": "stoi", "negstoiloss": "stoi", "torch_stoi": "stoi",
    "si_sdr_loss": "si_sdr", "sisdr_loss": "si_sdr", "si_snr_loss": "si_sdr", "sisnr_loss": "si_sdr",
    "iou_loss": "iou", "giou_loss": "iou", "diou_loss": "iou", "ciou_loss": "iou",
    "ssim_loss": "ssim", "ms_ssim_loss": "ssim",
    "custom": "custom",
}

CLASSIFICATION_LOSSES: frozenset[str] = frozenset({"cross_entropy", "nll", "bce", "bce_with_logits", "focal",
                                                   "kl_div"})
"""Losses over class scores or probabilities."""

REGRESSION_LOSSES: frozenset[str] = frozenset({"mse", "l1", "smooth_l1", "huber"})
"""Losses over real-valued targets."""

LOGIT_LOSSES: frozenset[str] = frozenset({"cross_entropy", "bce_with_logits", "focal"})
"""Losses that apply their own softmax/sigmoid: a softmax or sigmoid before them is applied twice."""

SINGULAR_LOSSES: frozenset[str] = frozenset({"dice", "iou", "ssim", "stoi", "si_sdr"})
"""Losses whose formula takes a square root, a norm, a log or a ratio of quantities that a prediction can drive to
exactly 0 (an empty mask, a silent or constant frame, a degenerate box): the value stays finite there while the
derivative is infinite, so their first NaN is born in the backward."""

NON_NEGATIVE_LOSSES: frozenset[str] = frozenset({"cross_entropy", "nll", "bce", "bce_with_logits", "mse", "l1",
                                                 "smooth_l1", "huber", "kl_div", "ctc", "focal", "dice"})
"""Losses that cannot go below zero when fed what they expect (NLLLoss only with log-probabilities)."""

# ---------------------------------------------------------------------------------------------------
# schedules (canonical = the vocabulary's ``lr_schedule`` values)
# ---------------------------------------------------------------------------------------------------

SCHEDULE_SPELLINGS: dict[str, str] = {
    "steplr": "step", "multisteplr": "step", "step": "step", "step_decay": "step", "multistep": "step",
    "cosineannealinglr": "cosine", "cosineannealingwarmrestarts": "cosine", "cosine": "cosine",
    "cosine_with_restarts": "cosine", "cosine_annealing": "cosine", "sgdr": "cosine",
    "linearlr": "linear", "linear": "linear", "polynomiallr": "linear", "polynomial": "linear",
    "onecyclelr": "onecycle", "onecycle": "onecycle", "one_cycle": "onecycle",
    "reducelronplateau": "plateau", "plateau": "plateau", "exponentiallr": "exponential", "exponential": "exponential",
    "constantlr": "none", "constant": "none", "constant_with_warmup": "none", "none": "none",
    "wsd": "wsd", "warmup_stable_decay": "wsd", "trapezoidal": "wsd",
}


@lru_cache(maxsize=4096)  # (a pasted log names the same few losses thousands of times)
def _key(name: str) -> str:
    """Reduce a spelling to a lookup key: lower case, no module path, call parentheses, hyphens or spaces."""
    s = name.strip().lower()
    s = re.sub(r"\(.*\)$", "", s)          # nn.CrossEntropyLoss() -> nn.CrossEntropyLoss
    s = s.rsplit(".", 1)[-1]               # torch.nn.functional.cross_entropy -> cross_entropy
    return re.sub(r"[\s-]+", "_", s)


def _canonical(table: dict[str, str], name: str) -> str | None:
    k = _key(name)
    return table.get(k) or table.get(k.replace("_", ""))


@lru_cache(maxsize=4096)  # (the text readers ask it of every word of a complaint, the same words again and again)
def canonical_loss(name: str) -> str | None:
    """The canonical loss name for a spelling (``nn.CrossEntropyLoss()`` -> ``cross_entropy``), or None.

    A package or function name followed by the word ("the torch_stoi loss") is the name's loss.
    """
    found = _canonical(LOSS_SPELLINGS, name)
    if found is None and re.search(r"[-_\s]loss$", name.strip(), re.I):
        found = _canonical(LOSS_SPELLINGS, re.sub(r"[-_\s]loss$", "", name.strip(), flags=re.I))
    return found


def canonical_optimizer(name: str) -> str | None:
    """The vocabulary's optimizer value for a spelling (``torch.optim.AdamW`` -> ``adamw``), or None."""
    return _canonical(OPTIMIZER_SPELLINGS, name)


def canonical_schedule(name: str) -> str | None:
    """The vocabulary's lr_schedule value for a spelling (``CosineAnnealingLR`` -> ``cosine``), or None.

    A kind named with the word for a schedule after it ("cosine schedule", "linear lr decay") is that kind.
    """
    found = _canonical(SCHEDULE_SPELLINGS, name)
    if found is None:
        bare = re.sub(r"[-_\s]+(?:lr[-_\s]+)?(?:schedul\w*|decay|annealing)$", "", name.strip(), flags=re.I)
        if bare != name.strip():
            found = _canonical(SCHEDULE_SPELLINGS, bare)
    return found

# ---------------------------------------------------------------------------------------------------
# advice actions: what a fix tells the user to do, and what an avoid entry forbids (issue 7's meta-test
# reads both with the same patterns, so a report cannot advise what its own "What NOT to do" forbids)
# ---------------------------------------------------------------------------------------------------

ADVICE_ACTIONS: dict[str, str] = {
    "lower_lr": r"\b(?:lower|lowering|reduce|reducing|decrease|decreasing|divide|dividing)\b[\w\s-]{0,12}?"
                r"\b(?:lr|learning rate)\b|\[\W?lr\W?\]\s*(?:/=|\*=\s*0\.)",
    "raise_lr": r"\b(?:raise|raising|increase|increasing)\b[\w\s-]{0,12}?\b(?:lr|learning rate)\b"
                r"|\[\W?lr\W?\]\s*\*=\s*[1-9]",
    "switch_optimizer": r"\b(?:switch|switching|change|changing)\b[\w\s-]{0,8}?\boptimi[sz]ers?\b"
                        r"|\bswap\b[\w\s]{0,12}\bfor\b",
    "clip": r"\bclip(?:ping|_grad_norm_)?\b|\bclip harder\b",
    "more_epochs": r"\bmore epochs\b|\btrain(?:ing)? (?:for )?longer\b",
    "bigger_model": r"\b(?:bigger|larger) model\b|\bmore layers\b|\bgrowing the model\b",
}
"""Action -> pattern over advice text (case-insensitive)."""


def actions_in(text: str) -> frozenset[str]:
    """The advice actions a fix or avoid text names (``lower_lr``, ``switch_optimizer``, ...)."""
    return _actions_in(text)


@lru_cache(maxsize=4096)
def _actions_in(text: str) -> frozenset[str]:
    # The texts are the knowledge's own (fixes, avoid entries, route reasons): a report reads the same few
    # hundred again and again, six patterns each, so each text is read once per process.
    low = text.lower()
    return frozenset(a for a, rx in ADVICE_ACTIONS.items() if re.search(rx, low))
