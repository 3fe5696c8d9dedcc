"""The words of training talk: quantities, movements, times and qualifiers, and what their compositions state.

A description of a run is read as parts (see ``expert.talk``): a **quantity** ("val loss", "grad norm",
"the weights", "GPU util"), a **movement** of it ("goes up", "is flat", "spikes", "turns NaN"), a **time**
("from the first step", "after 3 epochs", "at every epoch start") and **qualifiers** (negation, hedges, a
question, a change "from X to Y", a comparison "lower than"). This module holds the words (as lemmas: the
inflected forms come from ``knowledge.forms``) and the table that turns a composition into observations.
Language maps to observations here, never to causes.

Everything is plain data: ``expert.talk`` knows no topic.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from knowledge.record import dataclass
from knowledge.schema import P_DIRECT, P_NOT_LEARNING, P_OVERFIT, P_SLOW, P_TRACKING, P_UNSTABLE

# ------------------------------------------------------------------------------------------------ the words
# Each entry: a phrase of lemmas (space separated) -> the part it names. Longer phrases win over shorter ones.

CARD_NAMES = tuple(f"{n}{s}" for n in ("a100", "h100", "h200", "v100", "a10g", "l40s", "t4", "p100", "k80", "a6000",
                                       "3090", "4090", "2080ti", "3080") for s in ("", "s"))
"""GPUs by name, and their plurals ("4 A100s", "my 2 3090s"): counted like "GPUs" (the plural written out: names with
digits have no inflections from the lemmatiser)."""

QUANTITIES: dict[str, str] = {
    # the loss and other curves
    "loss": "loss", "cost": "loss", "objective": "loss", "nll": "loss",
    "loss curve": "loss", "learning curve": "loss", "perplexity": "loss", "ppl": "loss",
    "accuracy": "accuracy", "acc": "accuracy", "f1": "accuracy", "auc": "accuracy", "score": "accuracy",
    "metric": "accuracy", "iou": "accuracy", "map": "accuracy", "bleu": "accuracy", "top-1": "accuracy",
    "top1": "accuracy", "miou": "accuracy", "auroc": "accuracy", "rouge": "accuracy",
    # (Dice is a segmentation score and a loss: "dice loss" is the loss, the longer phrase winning)
    "dice": "accuracy", "dice score": "accuracy", "dice coefficient": "accuracy", "dice loss": "loss",
    "recall": "recall", "reward": "reward", "episode reward": "reward",
    # gradients and weights
    "gradient": "grad", "grad": "grad", ".grad": "grad", "p.grad": "grad", "param.grad": "grad",
    "weight.grad": "grad", "grad norm": "grad_norm", "gradient norm": "grad_norm", "norm of gradient": "grad_norm",
    "grad_norm": "grad_norm", "norm": "grad_norm_bare",
    "weight": "weights", "parameter": "weights", "param": "weights", "model weight": "weights",
    "model parameter": "weights", "update": "update", "update size": "update",
    # settings users report moving
    "learning rate": "lr", "lr": "lr",
    # (the base LR of recipes that scale it by the batch, MAE/DeiT/MAR's ``blr``: lr = blr * batch / 256)
    "blr": "lr", "base lr": "lr", "base learning rate": "lr", "base_lr": "lr",
    # (the schedule's top value is a setting, not a spike: "the warmup takes forever to reach the peak lr")
    "peak lr": "lr", "peak learning rate": "lr", "max lr": "lr", "max learning rate": "lr",
    # (the warmup's peak is the LR's, no spike of the loss: "the warmup peaks after 4000 steps")
    "warmup peak": "lr", "warm-up peak": "lr",
    "batch size": "batch", "batch_size": "batch", "bs": "batch",
    "batchsize": "batch", "batch": "batch",
    # systems
    "gpu util": "gpu_util", "gpu utilization": "gpu_util", "gpu usage": "gpu_util", "gpu-util": "gpu_util",
    "volatile gpu-util": "gpu_util", "utilization": "gpu_util", "util": "gpu_util",
    "memory": "memory", "gpu memory": "memory", "ram": "memory", "vram": "memory", "memory usage": "memory",
    "memory consumption": "memory", "cuda memory": "memory", "mem": "memory", "memory allocate": "memory",
    "throughput": "throughput", "it/s": "throughput", "iteration per second": "throughput",
    "sample/sec": "throughput", "samples/sec": "throughput", "speed": "throughput", "training speed": "throughput",
    "step time": "step_time", "time per step": "step_time", "each step": "step_time", "every step": "step_time",
    "each iteration": "step_time", "iteration": "step_time_weak", "every batch": "step_time", "each batch": "step_time",
    "data loading": "data_time", "dataloader": "data_time", "data loader": "data_time", "data time": "data_time",
    "loading": "data_time_weak",
    # (the wait for data said as time spent on it: "the time spent loading data grows")
    "time spent loading data": "data_time", "time spent on data loading": "data_time",
    "time spent waiting for data": "data_time", "loading time": "data_time",
    "training error": "loss", "train error": "loss", "error rate": "loss",
    # ("error" after a split is that split's loss: "my val error is lower than the train error"; the phrase names
    # the split too, below in ``SPLITS``, so a comparison of the two reads as one of their losses)
    "validation error": "loss", "val error": "loss", "test error": "loss", "dev error": "loss",
    "valid error": "loss", "wer": "loss", "cer": "loss",
    "rmse": "loss", "mse": "loss", "mae": "loss", "tokens/sec": "throughput", "token per second": "throughput",
    "sample per second": "throughput", "s/it": "step_time", "second per iteration": "step_time",
    "time per iteration": "step_time", "iteration time": "step_time", "epoch time": "epoch_time",
    "time per epoch": "epoch_time",
    # the backward pass is timed, not the loss ("the backward pass takes forever")
    "backward pass": "step_time",
    # the inputs (a value found in them: "NaN in my input features")
    "input": "inputs", "input data": "inputs", "input feature": "inputs", "feature": "inputs", "input tensor": "inputs",
    "input image": "inputs", "pixel": "inputs", "dataset": "inputs", "csv": "inputs",
    # what the model outputs
    "prediction": "predictions", "output": "predictions", "predict": "predictions_verb",
    "logit": "predictions", "model output": "predictions",
    # where else a first non-finite value is found: inside the forward pass, in the targets, in the optimizer
    "activation": "activations", "hidden state": "activations", "intermediate output": "activations",
    "attention score": "activations", "attention weight": "activations", "feature map": "activations",
    "label": "labels", "target value": "labels", "ground truth": "labels", "target": "labels",
    "target column": "labels",
    # (a target that is a second model, as in Q-learning or self-distillation, is the model, not the labels: "the
    # target network's Q values become NaN")
    **dict.fromkeys(("target network", "target model", "target net", "target encoder", "target q", "target q-network",
                     "target critic", "target policy"), "model"),
    "optimizer state": "optimizer_state", "adam state": "optimizer_state", "optimizer moment": "optimizer_state",
    "exp_avg_sq": "optimizer_state", "exp_avg": "optimizer_state", "second moment": "optimizer_state",
    # what can hang
    "progress bar": "progress", "tqdm": "progress", "tqdm bar": "progress", "bar": "progress",
    "training": "run", "script": "run", "run": "run", "job": "run", "process": "run", "program": "run",
    "code": "run", "ddp": "run", "distributed training": "run", "multi-gpu training": "run", "it": "pronoun",
    # (the user's own of a quantity just said of another's run: "his loss drops but mine doesn't")
    "mine": "pronoun",
    "loop": "run", "training loop": "run", "train loop": "run",
    # a hyperparameter search is many runs: its cost ("the grid search takes forever") is no slow training run
    "grid search": "search", "gridsearch": "search", "gridsearchcv": "search", "grid": "search", "sweep": "search",
    "hyperparameter search": "search", "hyperparameter sweep": "search", "hparam search": "search",
    "hparam sweep": "search", "hyperparameter tuning": "search", "hyperparameter optimization": "search",
    "hyperparameter optimisation": "search", "hpo": "search", "tune one hyperparameter": "search",
    "tuning one hyperparameter": "search",
    "they": "pronoun", "them": "pronoun", "step": "step_time_weak", "training step": "step_time",
    "result": "results", "performance": "results", "model performance": "results", "outcome": "results",
    "model": "model", "network": "model", "net": "model", "classifier": "model",
    "loss scale": "loss_scale", "loss scaler": "loss_scale", "loss scaling": "loss_scale", "scale": "loss_scale_weak",
    "gpu": "gpu_util",
    # the devices by name ("4 A100s", "my 2 3090s"): counted like "GPUs"
    # (the plural written out: names with digits have no inflections from the lemmatiser)
    **dict.fromkeys(CARD_NAMES, "gpu_util"),
    # how many steps the run needs (not how long each takes)
    "number of step": "step_count", "number of epoch": "step_count", "number of iteration": "step_count",
    "step count": "step_count", "many step": "step_count", "many epoch": "step_count",
    # (how many batches an epoch has is its step count, not the batch size: "1000 batches per epoch")
    "number of batch": "step_count", "batch per epoch": "step_count", "batch in an epoch": "step_count",
    "batch per gpu per epoch": "step_count", "batch count": "step_count", "many batch": "step_count",
    "many iteration": "step_count",
}
"""Phrases naming a quantity (or a thing that can move, freeze or hang)."""

GPU_NAMES = frozenset(k for k, v in QUANTITIES.items() if v == "gpu_util" and any(c.isdigit() for c in k))
"""Devices named by their model ("A100"): a count before one is a count of GPUs."""

SPLITS: dict[str, str] = {
    "train": "train", "training": "train", "trn": "train", "tr": "train",
    "val": "val", "validation": "val", "valid": "val", "eval": "val", "evaluation": "val", "test": "val",
    "dev": "val", "held-out": "val", "holdout": "val",
    # the data a figure is measured on ("100% on the training data, 60% on test")
    "training data": "train", "train data": "train", "training set": "train", "train set": "train",
    "test data": "val", "test set": "val", "validation set": "val", "val set": "val", "validation data": "val",
    "dev set": "val", "unseen data": "val", "new data": "val",
    # a split's error is its loss, and says whose it is (``QUANTITIES`` has the same phrases)
    "training error": "train", "train error": "train", "validation error": "val", "val error": "val",
    "test error": "val", "dev error": "val", "valid error": "val",
}
"""Words saying whose curve a quantity is (train_loss, val_loss...)."""

MOVEMENTS: dict[str, str] = {
    # up / down
    "increase": "up", "rise": "up", "climb": "up", "grow": "up", "go up": "up", "shoot up": "up",
    "skyrocket": "up", "creep up": "up", "get bigger": "up", "get larger": "up", "get worse": "worse",
    "keep grow": "up", "balloon": "up", "pile up": "up", "keep pile up": "up", "higher": "up", "go higher": "up",
    "up": "up_bare",
    "decrease": "down", "drop": "down", "fall": "down", "go down": "down", "decline": "down", "shrink": "down",
    "reduce": "down", "come down": "down", "get smaller": "down", "get lower": "down", "down": "down_bare",
    # (a fall in one go, as a stair: "the loss steps down at each epoch")
    "step down": "down",
    "converge": "converge", "improve": "improve", "get better": "improve", "learn": "learn", "learning": "learn",
    "decay": "down",
    # flat and frozen
    "flat": "flatline", "flat line": "flatline", "constant": "flat", "unchanged": "flat", "same": "same",
    "identical": "flat",
    "stay the same": "flat", "remain the same": "flat", "static": "flat", "stagnant": "flat",
    "stuck": "stuck", "stick": "stuck", "change": "change", "move": "change", "budge": "change",
    "get update": "change", "be update": "change", "update": "change_verb", "stay": "stay", "remain": "stay",
    "plateau": "plateau", "stall": "plateau", "level off": "plateau", "flatten out": "plateau",
    "stop improve": "plateau", "stop decrease": "plateau", "stop learn": "plateau", "stop go down": "plateau",
    "stop drop": "plateau", "stop get better": "plateau",
    # ("learning" is a word of its own here, so the phrase is spelled with it: "the model stops learning"; a model
    # said to stop learning is read as one that learns nothing more, as "goes nowhere")
    "stop learning": "nowhere", "quit learning": "nowhere", "stop get any better": "plateau",
    "get any better": "improve",
    "flatten": "plateau", "saturate": "plateau",
    # unstable shapes
    "oscillate": "oscillate", "fluctuate": "oscillate", "bounce": "oscillate", "zigzag": "oscillate",
    "noisy": "oscillate", "erratic": "oscillate", "jumpy": "oscillate", "up and down": "oscillate",
    "go up and down": "oscillate", "jump around": "oscillate", "bounce around": "oscillate",
    # (a jump both ways is a swing, not a spike: "the loss jumps up and down")
    "jump up and down": "oscillate", "bounce up and down": "oscillate", "swing up and down": "oscillate",
    "zig zag": "oscillate", "zig-zag": "oscillate",
    "all over the place": "oscillate", "wild": "oscillate", "wildly": "oscillate", "all over the map": "oscillate",
    "all over the shop": "oscillate", "fall off a cliff": "down", "drop off a cliff": "down",
    "spike": "spike", "spiky": "spike", "jump": "jump", "peak": "spike", "shoot": "spike",
    "explode": "explode", "blow up": "explode", "explosion": "explode", "huge": "huge", "large": "huge",
    "diverge": "diverge", "divergence": "diverge",
    "vanish": "vanish", "tiny": "vanish", "smaller and smaller": "vanish", "get smaller and smaller": "vanish",
    "disappear": "vanish",
    # values
    "nan": "nan", "inf": "nan", "infinity": "nan", "infinite": "nan", "-inf": "nan", "not a number": "nan",
    "zero": "zero", "0": "zero", "0.0": "zero", "0.0000": "zero", "0.000": "zero", "none": "none",
    "negative": "negative", "below zero": "negative", "less than zero": "negative",
    # nearly zero is a value shrinking, not exactly zero ("the grad norm decays towards zero")
    "towards zero": "vanish", "toward zero": "vanish", "near zero": "vanish", "close to zero": "vanish",
    "almost zero": "vanish", "nearly zero": "vanish", "approach zero": "vanish", "tend to zero": "vanish",
    "virtually zero": "vanish", "practically zero": "vanish",
    # a value said to stay clear of zero is no zero ("plateaued at a value way above zero"): it composes nothing
    # (written as lemmas: "greater than zero" is read as "great than zero")
    "above zero": "nonzero", "great than zero": "nonzero", "high than zero": "nonzero", "over zero": "nonzero",
    "away from zero": "nonzero", "much than zero": "nonzero", "non-zero": "nonzero",
    "nonzero": "nonzero",
    # speed and hangs
    "slow": "slow", "slowly": "slow", "barely": "slow", "hardly": "slow", "super slow": "slow", "too slow": "slow",
    "low": "low", "high": "high", "idle": "low", "starve": "low",
    "hang": "hang", "freeze": "freeze", "frozen": "freeze", "deadlock": "hang",
    # a run that stops without an error ("training grinds to a halt", "stops doing anything", "stops responding";
    # not bare "halt", which people do to runs: "I halted it after 3 epochs")
    "come to a halt": "hang", "grind to a halt": "hang", "stop do anything": "hang",
    "stop respond": "hang", "unresponsive": "hang", "become unresponsive": "hang", "never finish": "hang",
    "nothing happen": "hang", "stop move": "hang", "no output": "hang", "no progress": "hang",
    "leak": "up",
    # more ways of saying the same movements
    "go through the roof": "up", "shoot through the roof": "up", "tank": "down", "plummet": "down",
    "nosedive": "down", "stagnate": "flat", "flatline": "flatline", "hover": "flat", "hover around": "flat",
    "sit at": "flat", "jitter": "oscillate", "go crazy": "oscillate", "worsen": "worse", "degrade": "worse",
    "deteriorate": "worse", "go haywire": "oscillate", "go to nan": "nan", "nan out": "nan", "turn nan": "nan",
    "become nan": "nan", "go nan": "nan", "go inf": "nan",
    # a value the curve never gets away from ("the DPO loss never leaves 0.693", "accuracy never leaves 0.5"): not
    # bare "leave", whose past "left" is padding's side
    "never leave": "flat",
    # a floor the curve does not pass ("won't go below 2.0" is a loss that does not go down)
    "go below": "down", "get below": "down", "drop below": "down", "fall below": "down",
    "convergence": "converge",
    # speed compared ("not any faster", "no speedup", "doesn't speed up"): said of the run
    "fast": "fast", "faster": "fast", "quick": "fast", "speed up": "fast", "speedup": "fast", "speed-up": "fast",
    # a run that never gets going ("the script just sits there", "never starts training")
    "sit there": "hang", "never start": "hang", "never begin": "hang",
    # (a run that does not go on from a point of its own: "does not move past the first batch")
    "move past": "progress", "make it past": "progress", "move beyond": "progress", "move on": "progress",
    # a wait before the run goes on at speed ("a long pause before the first batch"): composes only with a time
    "pause": "pause", "long pause": "pause", "delay": "pause", "long delay": "pause", "big delay": "pause",
    "long wait": "pause", "wait": "pause", "lag": "pause",
    # a run that does not advance ("nothing progresses") hangs; a model that makes no progress does not learn
    "progress": "progress", "make progress": "learn", "make any progress": "learn", "make much progress": "learn",
    # more ways to say a curve rises, falls, swings or stops
    "rocket": "up", "soar": "up", "drift up": "up", "drift upward": "up", "inch up": "up", "tick up": "up",
    "slide": "down", "slide down": "down", "slip": "down", "erode": "down", "go back down": "down",
    "hit a ceiling": "plateau", "reach a ceiling": "plateau", "hit a plateau": "plateau", "peak out": "plateau",
    "sink": "down", "plunge": "down", "drift down": "down", "drift downward": "down", "inch down": "down",
    "creep down": "down", "swing": "oscillate", "wobble": "oscillate", "seesaw": "oscillate",
    # (a figure shaken between two levels and back: "shakes between 200 and 800"; "jumps between epochs" is a jump at
    # each epoch's start, and "goes back and forth between train and eval mode" moves no figure)
    "shake between": "oscillate", "shake around": "oscillate", "jump back and forth": "oscillate",
    "bottom out": "plateau", "hit a wall": "plateau", "level out": "plateau", "top out": "plateau",
    "max out": "plateau", "cap": "plateau", "get past": "up", "go past": "up", "get above": "up", "go above": "up",
    "small": "vanish", "very small": "vanish", "super small": "vanish", "too small": "vanish",
    # shorthand of a log reader ("trn loss dec, val loss inc")
    "inc": "up", "incr": "up", "dec": "down", "decr": "down",
    # arrows typed for a direction ("val loss ↑ train loss ↓")
    "↑": "up", "↓": "down", "⬆": "up", "⬇": "down",
    # a value the curve stays at ("loss stays at 0.69") is a curve that does not move
    "stay at": "stuck", "remain at": "stuck", "stay around": "stuck", "remain around": "stuck",
    # (or a narrow band it stays in: "the loss stays between 14.9 and 15")
    "stay between": "stuck", "remain between": "stuck",
    "too much time": "slow", "so much time": "slow", "high variance": "oscillate",
    # (not bare "variance": "MSE equals the variance of the targets" is a value, not a swing)
    # "jumps up", "spikes up": the jump, not a steady rise
    "jump up": "jump", "spike up": "spike",
    # speed said as duration
    "take forever": "slow", "take age": "slow",
    # ("ages" is a word of its own here, kept from the lemmatiser by a frame that names it)
    "take ages": "slow", "take too long": "slow", "take so long": "slow",
    # ("takes longer than before", "one epoch takes hours": the duration is the complaint)
    "take long": "slow", "take hour": "slow", "take day": "slow",
    # (a multiple of the time it took: "each step takes twice as long", "runs twice as slow")
    "take twice as long": "slow", "twice as slow": "slow",
    "take way too long": "slow", "take very long": "slow", "crawl": "slow",
    "snail pace": "slow", "snail's pace": "slow", "at a snail's pace": "slow", "at a crawl": "slow",
    # going nowhere: the run makes no progress
    "go nowhere": "nowhere", "get nowhere": "nowhere", "not go anywhere": "nowhere",
    # a judgement of a figure without its shape ("loss is too high", "accuracy is bad"): what is not working
    # (not "weird" or "wrong": a figure that looks wrong may be computed wrong)
    "bad": "bad", "poor": "bad", "terrible": "bad", "awful": "bad", "horrible": "bad", "disappointing": "bad",
    "too high": "high", "very high": "high", "too low": "low", "very low": "low", "mediocre": "bad",
    "big": "high", "very big": "high", "too big": "high",
    "not good": "bad", "not great": "bad", "really bad": "bad", "garbage": "bad", "useless": "bad",
    # slang for a bad result ("accuracy sucks", "my model is trash")
    "suck": "bad", "trash": "bad", "crap": "bad", "crappy": "bad", "rubbish": "bad", "junk": "bad",
    "lousy": "bad", "dismal": "bad", "abysmal": "bad", "pathetic": "bad", "meh": "bad", "subpar": "bad",
    # a figure that looks odd: not working, but how is the user's to say (a question asks)
    "weird": "weird", "strange": "weird", "odd": "weird", "funny": "weird", "unusual": "weird",
    "suspicious": "weird", "fishy": "weird",
    # a figure judged good (only with its split: "train acc is great but val acc is trash", see JUDGEMENTS)
    "good": "good", "great": "good", "perfect": "good", "awesome": "good", "excellent": "good", "amazing": "good",
    "nail": "good", "crush": "good", "near perfect": "good", "almost perfect": "good",
    "sub-par": "bad", "gibberish": "bad", "nonsense": "bad", "worse": "worse", "wrong": "wrong",
    # a run or model said to be broken without a symptom ("training is broken"): the vague complaint
    "broken": "broken", "break": "break", "work": "work",  # (the verb, "I broke it into shards", is no complaint)
    # the symptom said of the run itself ("it overfits", "training is unstable", "the model memorizes")
    "overfit": "overfit", "overfitting": "overfit", "over-fit": "overfit", "over-fitting": "overfit",
    "overtrain": "overfit", "overtrained": "overfit", "overtraining": "overfit",
    "memorize": "overfit", "memorise": "overfit", "memorization": "overfit", "memorisation": "overfit",
    "generalize poorly": "overfit", "generalise poorly": "overfit", "generalize badly": "overfit",
    "poor generalization": "overfit", "poor generalisation": "overfit", "bad generalization": "overfit",
    "poorly generalize": "overfit", "generalization gap": "overfit", "generalisation gap": "overfit",
    "train-val gap": "overfit", "train/val gap": "overfit", "train val gap": "overfit",
    "gap between train and val": "overfit", "gap between train and validation": "overfit",
    "gap between training and validation": "overfit", "gap between train and test": "overfit",
    "gap between training and test": "overfit", "generalize": "generalize", "generalise": "generalize",
    # ... with the curves' quantity after the pair: the gap is the subject, not that quantity ("the gap between
    # training and validation loss keeps growing" says nothing of the validation loss rising by itself)
    **{f"{g} between {a} and {b} {q}": "overfit" for g in ("gap", "difference", "distance")
       for a in ("train", "training") for b in ("val", "validation", "valid", "test")
       for q in ("loss", "accuracy", "acc", "curve", "metric")},
    # the opposite gap: the model does not fit even the training data
    "underfit": "underfit", "underfitting": "underfit", "under-fit": "underfit", "under-fitting": "underfit",
    # a judgement against an expectation, no shape ("it underperforms the baseline")
    "underperform": "underperform", "underperforming": "underperform",
    "unstable": "unstable", "instability": "unstable", "instable": "unstable",
    "sluggish": "slow", "slow down": "slow", "underutilized": "low", "underutilised": "low", "idling": "low",
    "under-utilized": "low", "overflow": "overflow", "underflow": "overflow", "collapse": "vanish",
    "be bottleneck": "slow", "be the bottleneck": "slow", "bottleneck by": "slow",
    "get bottleneck": "slow", "bottleneck on": "slow",
    # a figure at the level of guessing
    "chance": "chance", "chance level": "chance", "random": "chance", "look random": "chance",
    "at chance": "chance", "above chance": "above_chance", "better than chance": "above_chance",
    "better than random": "above_chance",
    # guessing said as such ("it's basically flipping a coin", "coin-toss accuracy", "the model just guesses")
    "coin flip": "chance", "coin-flip": "chance", "coin toss": "chance", "coin-toss": "chance",
    "flip a coin": "chance", "toss a coin": "chance", "random guess": "chance",
    "guess randomly": "chance", "randomly guess": "chance", "just guess": "chance", "guess at random": "chance",
    # a curve that leaves its level upward all at once ("the val loss takes off after epoch 4")
    "take off": "up", "shoot off": "up",
}
"""Phrases naming how a quantity moves or what value it takes."""
# a swing around the level the curve started at ("the loss bounces around its initial value", "fluctuates around
# the starting loss") is a curve that never leaves its start: it does not go down, whatever noise it shows; a swing
# around "the same value" does not move either, without saying since when
# (said of the loss only: an accuracy, a learning rate on a cyclic schedule or a heart rate swinging around a level
# is no stalled training curve; ``swing_level`` composes with the loss alone, and a level named "the loss" says it)
_SWING_VERBS = ("bounce", "fluctuate", "oscillate", "jump", "jitter", "wobble", "swing", "hover")
_START_LEVELS = ("initial", "start", "original", "first")  # ("starting" is read as its lemma "start")
_LEVEL_NOUNS = ("value", "level", "loss", "point")
# ("its" is written as its lemma "it": a key holding "its" would make it a lemma of its own)
_SWING_AT_START = {f"{v} around {d}{w} {u}": "stuck" if u == "loss" else "swing_level"
                   for v in _SWING_VERBS for d in ("", "it ", "the ") for w in _START_LEVELS for u in _LEVEL_NOUNS}
MOVEMENTS.update(_SWING_AT_START)
MOVEMENTS.update({f"{v} around {d}same {u}": "stuck" if u == "loss" else "swing_level"
                  for v in _SWING_VERBS for d in ("", "the ") for u in _LEVEL_NOUNS})

TIMES: dict[str, str] = {
    # from the start
    "from the start": "start", "from the beginning": "start", "from the very start": "start",
    "from the very beginning": "start", "from the first step": "start", "from the first batch": "start",
    "from the first iteration": "start", "from the first epoch": "start", "since the beginning": "start",
    "since the start": "start", "right from the start": "start", "right from the beginning": "start",
    "right away": "start", "immediately": "start", "instantly": "start", "at step 0": "start",
    "at the start": "start_bare", "at the beginning": "start_bare", "the first step": "start",
    "the first batch": "start", "the first iteration": "start", "first iteration": "start", "first batch": "start",
    "first step": "start", "first forward pass": "start", "the first forward pass": "start", "step 0": "start",
    "iteration 0": "start", "epoch 1": "start_soft", "from epoch 1": "start", "as soon as": "start",
    "from iteration one": "start", "before any update": "start", "from step 0": "start",
    "at the very beginning": "start", "right at the start": "start", "from epoch 0": "start",
    "from step one": "start", "from step 1": "start", "on the first step": "start", "on the first batch": "start",
    # (a curve that "stays where it started" never left its start)
    "where it start": "start", "where it begin": "start", "where it be at the start": "start",
    # later
    "towards the end": "later", "late in training": "later", "after resume": "later", "after resuming": "later",
    "after the warmup": "later", "after warmup": "later", "after": "after", "later": "later", "later on": "later",
    "after a while": "later", "after some time": "later",
    # (a run that started fine and changed one step or epoch in: no longer "from the start"; keys are lemmas)
    **{f"{lead} {o} {u}": "later" for lead in ("from the", "since the", "as of the")
       for o in ("second", "2nd", "third", "3rd") for u in ("step", "batch", "iteration", "epoch")},
    **{f"after the first {n}{u}": "later" for n in ("", "few ") for u in ("step", "batch", "iteration", "epoch")},
    "halfway": "later", "mid-run": "later", "midway": "later", "suddenly": "later", "then": "then",
    "out of nowhere": "later",
    # (somewhere inside the run: "it goes NaN mid-training", "partway through the epoch")
    "mid-training": "later", "mid training": "later", "midway through": "later", "partway through": "later",
    "part way through": "later", "in the middle of training": "later", "in the middle of the run": "later",
    # (from the outset, as people say it: "straight away", "from the get-go", "since epoch one")
    "straight away": "start", "straightaway": "start", "from the get-go": "start", "from the get go": "start",
    "from the outset": "start", "from the word go": "start", "from epoch one": "start", "since epoch one": "start",
    "since epoch 1": "start", "since step one": "start", "since the first step": "start",
    "since the first batch": "start", "since the first epoch": "start",
    "start at": "start", "start out": "start", "start with": "start",
    "at first": "at_first", "initially": "at_first", "in the beginning": "at_first",
    "first few": "at_first",
    # epoch boundaries
    "every epoch": "each_epoch", "each epoch": "each_epoch", "each new epoch": "each_epoch",
    "every new epoch": "each_epoch", "epoch boundary": "epoch_start", "start of every epoch": "epoch_start",
    "start of each epoch": "epoch_start", "beginning of each epoch": "epoch_start",
    "beginning of every epoch": "epoch_start", "every epoch start": "epoch_start", "each epoch start": "epoch_start",
    "new epoch begin": "epoch_start", "epoch begin": "epoch_start", "start of a new epoch": "epoch_start",
    "start of every new epoch": "epoch_start", "start of each new epoch": "epoch_start",
    "beginning of every new epoch": "epoch_start", "beginning of each new epoch": "epoch_start",
    **{f"at the {w} of {e} {n}epoch": "epoch_start" for w in ("start", "beginning") for e in ("every", "each")
       for n in ("", "new ")}, "new epoch start": "epoch_start", "epoch start": "epoch_start",
    "every time a new epoch": "epoch_start", "whenever a new epoch": "epoch_start",
    "at each epoch boundary": "epoch_start", "new epoch": "each_epoch",
    **{f"{e} epoch boundary": "epoch_start" for e in ("every", "each", "at every", "at each", "at the")},
    # the boundary said as a change of epoch ("every time the epoch changes", "when a new epoch starts")
    "every time the epoch change": "epoch_start", "each time the epoch change": "epoch_start",
    "when the epoch change": "epoch_start", "whenever the epoch change": "epoch_start",
    "when a new epoch start": "epoch_start", "every time a new epoch start": "epoch_start",
    "epoch change": "epoch_start",
    **{f"{w} of the next epoch": "epoch_start" for w in ("start", "beginning")},
    # the boundary as a passage from one epoch to the next, as the first batches of an epoch, or as the loader
    # starting its pass over the data again ("at epoch transitions", "the first batches of each epoch", "each time
    # the dataloader restarts")
    **{f"{e}epoch transition": "epoch_start" for e in ("", "each ", "every ", "at each ", "at every ")},
    "transition between epoch": "epoch_start",
    # the close of an epoch ("freezes at the end of the epoch", "hangs when the epoch ends"): a boundary too, but its
    # own time, so that a movement there is no jump at the next epoch's start (only a hang's onset reads it)
    **{f"end of {e}epoch": "epoch_end" for e in ("the ", "an ", "the first ", "the current ", "this ")},
    "epoch end": "epoch_end",
    **{f"{t}first {b} of {e} {n}epoch": "epoch_start" for t in ("", "the ")
       for b in ("batch", "step", "iteration", "few batch", "few step")
       for e in ("each", "every", "a", "the") for n in ("", "new ")},
    **{f"{e}{w} restart": "epoch_start" for w in ("dataloader", "data loader", "loader")
       for e in ("", "each time the ", "every time the ", "when the ", "whenever the ")},
    # inside an epoch, between its boundaries ("within an epoch the loss goes down, then it jumps at the next one"):
    # the movement is the epoch's own course, not what happens at the boundary
    **{f"{p} {e} epoch": "within_epoch" for p in ("within", "during", "inside", "over", "throughout")
       for e in ("an", "each", "every", "the", "one")},
    # on a fixed interval ("at regular intervals", "periodically"; "every 500 steps" is read with its number)
    "at regular interval": "periodic", "regular interval": "periodic", "at a regular interval": "periodic",
    "at a fix interval": "periodic", "fix interval": "periodic",
    "periodically": "periodic", "like clockwork": "periodic", "at fix interval": "periodic",
    # (keys are lemmas: "fixed" is read as "fix"; a key holding "fixed" would make it a lemma of its own)
    # always
    "always": "always", "every time": "always", "the whole time": "always", "the entire time": "always",
    "for every batch": "always", "all the time": "always",
    # (the whole run named as the span: "stays constant for the whole run", "flat throughout training"; a curve that
    # holds one level over all of it never left where it started)
    **{f"{p} the {w} {r}": "always" for p in ("for", "over", "during", "across") for w in ("whole", "entire")
       for r in ("run", "training", "training run")},
    **{f"throughout {r}": "always" for r in ("training", "the run", "the training", "the whole run",
                                             "the entire run", "the whole training", "the entire training")},
}
"""Phrases placing a movement in time."""
# (a swing around the starting level, read above as a curve stuck where it began, places it at the start too)
TIMES.update(dict.fromkeys(_SWING_AT_START, "start"))
# the same phrases with the article left out, as many type them ("from first epoch", "since beginning")
TIMES.update({k.replace("the ", "", 1): v for k, v in list(TIMES.items()) if " the " in f" {k} "
              and k.replace("the ", "", 1) not in TIMES})

NEGATORS = frozenset("not no never n't nothing none without nor neither cannot cant dont doesnt didnt isnt "
                     "arent wasnt werent wont havent hasnt hadnt".split())
"""Words negating the movement or setting that follows them in the same clause."""

HEDGES = frozenset("maybe perhaps probably possibly might seem seems seemingly apparently guess think suspect "
                   "sometimes".split())
"""Words marking a reading the user is unsure of."""

QUESTION_LEADS = frozenset("which what should shall would is are does do can could how why when whether".split())
"""Words that open a question."""

WISH_VERBS = frozenset("want like wish".split())
"""Lemmas that, before "to" and a setting ("I want to augment the masks too", "I'd like to weight the loss"), ask
how to do it: a request about that setting, said without a question."""

YES_NO_LEADS = frozenset("be do can could would should might may will have shall".split())
"""Lemmas of the verbs that open a yes/no question ("is it ...?", "does the warmup ...?", "could it be that ...?"):
what such a question says of a cause is the user's hypothesis, not what they saw. A "?" after a hedge ("maybe the
labels are shuffled?") asks the same."""

PRESUPPOSING_WORDS = frozenset("normal expected usual common ok okay fine if".split())
"""Words of a yes/no question that takes its content as given: "is it normal that val loss is lower than train
loss?" says that it is, and asks only whether that is fine; "is it overfitting if val loss goes up?" states the
condition it asks about."""

HYPOTHESIS_GROUPS = frozenset({"loop", "probe", "distributed"})
"""Vocabulary groups whose observations say what is wrong in the code, the optimisation or across processes: a
cause. Asked in a yes/no question they are offered to confirm, not read (see ``HYPOTHESIS_NAMES``)."""

HYPOTHESIS_NAMES = frozenset({"loss_scale_issue"})
"""Observations outside ``HYPOTHESIS_GROUPS`` that also name a cause (a collapsing loss scale). The state a
question describes (the symptom, the loss curve, metric values) and the settings it presupposes (the optimizer,
the batch size) are read as usual: "why is val acc 50%?", "is a batch of 8 too small?". (``self_diagnosis`` is
itself the user's hypothesis, and read as one.) Data faults asked about ("can the val split overlap the training
data?") are still read: holding them lost a dev route (a leak asked about beside suspiciously good validation
numbers); whether to hold them too is left open."""

CHOICE_WORDS = frozenset("which should best better recommend recommended vs versus choose pick or worth need "
                         "reasonable good right optimal ideal enable necessary sensible default typical".split())
"""Words that make a question a choice of setting ("which X should I use", "X or Y?")."""

OPEN_CHOICE_WORDS = frozenset("should worth recommend recommended need best".split())
"""Words that make a question (a sentence ending in "?" or opening with a question word) a choice of setting even
when it names none the lexicon knows ("is it worth using label smoothing?", "what dropout should I use"): the
config question, as a fallback. Not "which" alone: "which one is right?" asks about what was just said."""

AGENTS = frozenset("i we you they he she someone".split())
"""Persons: one said before a quantity makes it the object of what they did ("I kept the LR the same")."""

IN_USE_WORDS = frozenset("use with have set run enable turn apply".split())
"""Words saying a setting is the run's ("I use gradient clipping", "with AdamW"): said in a clause of their own
beside a question, the setting is not what the question asks about."""

TOPICS: dict[str, str] = {
    "optimizer": "optimizer", "optimiser": "optimizer", "learning rate": "learning_rate", "lr": "learning_rate",
    "bs": "batch_size",
    "schedule": "schedule", "scheduler": "schedule", "lr schedule": "schedule",
    "batch size": "batch_size", "batch": "batch_size", "precision": "precision", "mixed precision": "precision",
    "hyperparameter": "tuning", "hyperparameter tuning": "tuning", "hyperparameter search": "tuning",
    "hyperparameter optimization": "tuning", "tuning": "tuning", "sweep": "tuning", "warmup": "schedule",
    "warm-up": "schedule", "grid search": "tuning", "random search": "tuning",
    "lr scheduler": "schedule", "learning rate schedule": "schedule", "learning rate scheduler": "schedule",
    "track": "tracking", "keep track": "tracking", "log": "tracking", "compare": "tracking",
    "experiment tracking": "tracking",
    # gradient clipping and its threshold ("what max_grad_norm?", "should I clip gradients at 1.0 or 5.0?")
    "clipping": "clipping", "gradient clipping": "clipping", "grad clipping": "clipping", "clip": "clipping",
    "clip gradient": "clipping", "clip grad": "clipping", "clip grad norm": "clipping", "max norm": "clipping",
    "max grad norm": "clipping", "max_grad_norm": "clipping", "max_norm": "clipping", "clip value": "clipping",
    "clipping threshold": "clipping", "clip threshold": "clipping", "grad clip": "clipping",
    # data augmentation and the architecture (the latter another pack's: the boundary says so)
    "augmentation": "augmentation", "data augmentation": "augmentation", "augment": "augmentation",
    # (augmentation named by its randomness is still augmentation, and no accuracy "at random": "did you use random
    # augmentation for those numbers?")
    "random augmentation": "augmentation",
    "architecture": "architecture", "model architecture": "architecture", "arch": "architecture",
    # regularization asked about by its knobs ("what's a good dropout rate?", "how much weight decay?", "is label
    # smoothing worth it?"): the overfitting specialist's question
    "dropout": "overfitting", "dropout rate": "overfitting", "weight decay": "overfitting", "wd": "overfitting",
    "weight_decay": "overfitting", "decoupled weight decay": "overfitting",
    "regularization": "overfitting", "regularisation": "overfitting", "early stop": "overfitting",
    "label smoothing": "overfitting", "l2 regularization": "overfitting", "l2 penalty": "overfitting",
    # the warmup asked about by its length or share ("how many warmup steps?", "what warmup ratio?", "how long a
    # warm-up phase?"): these phrases also name the run's warmup (SETTING_NAMES), which a question claims
    **dict.fromkeys(("warm up", "lr warmup", "linear warmup", "warmup step", "warmup ratio", "warmup phase",
                     "warmup period", "warmup epoch", "warm up phase", "warm up step", "warmup length",
                     "warmup iteration", "warm up iteration", "warm up period", "length of warmup",
                     "length of the warmup"), "schedule"),
    # the loss asked about as a choice ("loss choice for an unbalanced dataset?", "choice of loss?")
    "loss choice": "loss_function", "choice of loss": "loss_function", "choice of the loss": "loss_function",
    "loss function choice": "loss_function", "choice of loss function": "loss_function",
    "choice of the loss function": "loss_function",
    # hyperparameters carried across width by the parametrisation (muP): named by the method, the question is about
    # it, not about the learning rate or the optimizer it carries ("should I use mup so the lr transfers to 1B?")
    **dict.fromkeys(("mup", "mu-p", "mu-transfer", "mutransfer", "mu transfer",
                     "maximal update parametrization", "maximal update parameterization",
                     "maximal update parametrisation", "hyperparameter transfer"), "mup"),
    # the loop's own calls and their order asked about ("should zero_grad go before or after backward?", "where do
    # scheduler.step() and optimizer.step() go?", "how should the training loop look?"): a question about the loop,
    # not about the optimizer or schedule whose method is called
    # (the call by its method name, "zero_grad": "optimizer.zero_grad()" is split at its dot, so
    # the loop's order read from pasted code still sees each call; the loop's topic outranks the optimizer's there)
    # ("backward" alone is no topic: "how many values must backward() return?" is a custom Function's error)
    **dict.fromkeys(("training loop", "train loop", "zero_grad", "order of operation"), "training_loop"),
}
"""Nouns that name what a direct question asks about (the ``question_topic`` values; ``tracking`` is the
experiment-tracking request)."""

SHORT_FORMS: dict[str, str] = {"iter": "iteration", "iters": "iteration", "itr": "iteration", "itrs": "iteration",
                               "epch": "epoch", "epchs": "epoch"}
"""Words users shorten, read as the word they stand for ("each iter is slow"). Not "eps" (Adam's epsilon too) nor
"it" (a pronoun)."""

OPTIMIZER_KNOBS = frozenset({"weight decay", "wd", "weight_decay", "decoupled weight decay", "l2 regularization",
                             "l2 penalty"})
"""Topics (``TOPICS``' phrases) that are knobs set in the optimizer: asked about with the optimizer named ("what weight
decay in my optimizer?"), the knob is the question's topic, not the optimizer."""

LR_DECAY_WORDS = frozenset({"lr", "learning", "rate", "schedule", "scheduler", "cosine", "linear", "step", "warmup",
                            "exponential"})
"""Words that make a question's "decay" the learning rate's ("how should AdamW decay the lr?"), not the weights'."""

NEUTRAL = frozenset({"deep learning", "machine learning", "transfer learning", "reinforcement learning",
                     "contrastive learning", "self-supervised learning", "federated learning", "metric learning",
                     "representation learning", "curriculum learning", "multi-task learning", "fine tune",
                     "fine tuning", "fine-tune", "fine-tuning", "finetune", "finetuning",
                     # (other kinds of training run named "tuning": no hyperparameter search either)
                     "preference tuning", "preference-tuning", "instruction tuning", "instruction-tuning",
                     "prompt tuning", "prefix tuning",
                     # (accumulation is a setting, its gradient no curve: "with gradient accumulation the decay ends
                     # early" says nothing of the gradients' size)
                     "gradient accumulation", "grad accumulation", "gradient accumulation step",
                     "accumulate gradient", "accumulate the gradient",
                     # (checkpointing is a memory setting too, its gradient no curve: "with gradient checkpointing
                     # one epoch takes 40 min instead of 28" says nothing of the gradients' size)
                     "gradient checkpointing", "grad checkpointing", "gradient_checkpointing",
                     "gradient checkpoint", "grad checkpoint", "gradient_checkpointing_enable",
                     "zero point", "loss function", "loss fn", "cost function", "objective function",
                     "same loss function", "same model", "same data", "same seed", "same config",
                     "same code", "same setting", "same hyperparameter", "same result", "off the shelf", "turn off",
                     "switch off", "set off", "wrong label", "wrong class", "wrong dtype", "wrong device",
                     "wrong shape", "bad label", "poor man", "zero_grad",
                     # "zero" as the verb of clearing gradients ("I zero the grads every step") is no zero gradient
                     "zero the grad", "zero the gradient", "zero out the grad", "zero out the gradient",
                     "zero my grad", "zero all the grad", "zero all grad",
                     "within",  # (a word of its own, not a slip of "withing": "within an epoch" is a time)
                     # overfitting named as the purpose of a setting ("weight decay 1.0 to fight overfitting", "dropout
                     # against overfitting"): what the setting is for, not what the run does now
                     # (not "to prevent/avoid/reduce": "how to prevent overfitting in my CNN" says the run overfits)
                     *(f"to {v} {w}" for v in ("fight", "combat", "counter")
                       for w in ("overfitting", "overfit", "over-fitting")),
                     "against overfitting", "against overfit",
                     # (the verb, not a slip of the noun with its last letter cut off: "how should I optimize all my
                     # hyperparameters?" asks about tuning, not about the optimizer)
                     "optimize", "optimise",
                     # (an English word of its own, no slip of "factor": the LLaMA-Factory fine-tuning tool)
                     "factory",
                     # a learning regime named by its number of examples per class ("few-shot", "zero-shot"): no
                     # curve "shoots"
                     "few-shot", "few shot", "one-shot", "one shot", "zero-shot", "zero shot", "k-shot", "n-shot",
                     "low-shot", "many-shot",
                     # a statistic named by how it is kept ("Moving average ignored a value of inf", "the EMA
                     # weights"): nothing was moved, no GPUs or data were moved
                     "moving average", "exponential moving average", "running average", "moving mean",
                     # an augmentation named by its transform ("random crop, color jitter"): no curve jitters
                     "color jitter", "colour jitter",
                     # ... or by its randomness ("random crop", "random transforms are still on for val"), and a split
                     # drawn at random: no accuracy "at random" (chance) is said by them ("random augmentation" is a
                     # topic, TOPICS)
                     "random crop", "random cropping", "random flip", "random flipping", "random horizontal flip",
                     "random vertical flip", "random resized crop", "random rotation", "random erasing",
                     "random transform", "random transformation", "random split",
                     # an overflow line that says the step was skipped is the loss scaler calibrating itself
                     *(f"overflow {p} {skip} {what}" for p in ". , ! : ;".split() for skip in ("skip", "skipping")
                       for what in ("step", "iteration", "update", "batch")),
                     # ... and DeepSpeed's, which names the rank between ("OVERFLOW! Rank 0 Skipping step")
                     *(f"overflow {p} rank" for p in ". , ! : ;".split())})
"""Phrases that hold a lexicon word without its sense ("fine-tuning" is no hyperparameter tuning)."""

TOPIC_VALUES: dict[str, str] = {
    "schedule free": "optimizer", "schedule-free": "optimizer", "schedulefree": "optimizer",
    "adam": "optimizer", "adamw": "optimizer", "sgd": "optimizer", "rmsprop": "optimizer", "lion": "optimizer",
    "momentum": "optimizer", "cosine": "schedule", "onecyclelr": "schedule", "reducelronplateau": "schedule",
    "step decay": "schedule", "linear decay": "schedule", "cosine annealing": "schedule", "fp16": "precision",
    "bf16": "precision", "fp8": "precision", "fp32": "precision", "bfloat16": "precision", "float16": "precision",
    "amp": "precision", "optuna": "tuning", "bayesian optimization": "tuning", "wandb": "tracking",
    "mlflow": "tracking", "tensorboard": "tracking", "mixup": "augmentation", "cutmix": "augmentation",
    "randaugment": "augmentation", "autoaugment": "augmentation", "trivialaugment": "augmentation",
    # losses weighed against each other ("focal loss or weighted cross entropy?", "is dice better than CE here?",
    # "pos_weight enough, or should I switch to focal?"): the question is the objective's (the kind alone, never
    # "<kind> loss" or "class weight" as one phrase, which would hide the quantity "loss" or "weight" they hold:
    # "my contrastive loss went from 0.5 to 20")
    **dict.fromkeys(("focal", "dice", "tversky", "lovasz", "huber", "cross entropy", "cross-entropy",
                     "crossentropyloss", "bce", "bcewithlogitsloss", "bcewithlogits", "mse", "mae", "smooth l1",
                     "pos_weight", "weighted ce", "weighted cross entropy", "nllloss", "infonce"), "loss_function"),
    # models for tables weighed against each other ("MLP with embeddings or TabNet?", "stick to gradient boosting?",
    # "a ResNet-like MLP or FT-Transformer?"): the question is the architecture's
    **dict.fromkeys(("xgboost", "lightgbm", "catboost", "gradient boosting", "gbdt", "gbm", "random forest",
                     "tabnet", "ft-transformer", "tabtransformer", "tab transformer", "saint"), "architecture"),
}
"""Values that name a topic only when no topic noun is said ("adam or sgd?" asks about the optimizer)."""

MODULE_PATH_WORDS = frozenset("torch cuda amp nn optim functional utils f pl lightning transformers accelerate "
                              "apex".split())
"""The pieces of a module path before a class's name ("torch.cuda.amp.GradScaler", "torch.nn.utils.clip_grad_norm_"):
the tokeniser splits the path, and a negation before it ("I never used torch.cuda.amp.GradScaler") is the name's."""
REMOVAL_VERBS = frozenset("remove disable drop skip skipped omit forget ditch delete deactivate".split())
"""Verbs whose object is a setting taken out of the run ("I removed the GradScaler", "disabled gradient clipping",
"skipped the warmup"): a switch named after one is off, as one said with "no" or "without" is. ("skipped" is a lemma
of its own in this lexicon, the scaler's skipped steps being read by its text.)"""
REMOVABLE_SWITCHES = frozenset({"grad_scaler", "grad_clipping", "warmup", "label_smoothing", "grad_accumulation"})
"""The switches a removal turns off: the setting named is the one taken out. A name that only implies something of
the run ("DistributedSampler": several GPUs) keeps that when it is removed ("I forgot the DistributedSampler")."""
REMOVAL_PARTICLES: dict[str, frozenset[str]] = {
    "off": frozenset("turn turned turning switch switched switching".split()),
    "out": frozenset("take took taken comment commented".split()),
    "of": frozenset({"rid"}),
}
"""Two-word removals ("turned off warmup", "took out the scaler", "got rid of clipping"): the particle before the
setting and the verbs it completes."""
REMOVAL_FILLERS = frozenset("the a an my our its this that all any every also just completely entirely".split())
"""Words that may stand between a removal verb and the setting it removes."""

SETTING_NAMES: dict[str, dict[str, Any]] = {
    # the numeric format (a format named outright beats "AMP" / "mixed precision", which name none: see
    # GENERIC_SETTINGS)
    "fp16": {"mixed_precision": "fp16"}, "float16": {"mixed_precision": "fp16"},
    "half precision": {"mixed_precision": "fp16"}, "half-precision": {"mixed_precision": "fp16"},
    "bf16": {"mixed_precision": "bf16"}, "bfloat16": {"mixed_precision": "bf16"},
    "fp8": {"mixed_precision": "fp8"}, "float8": {"mixed_precision": "fp8"},
    "fp32": {"mixed_precision": "none"}, "float32": {"mixed_precision": "none"},
    "full precision": {"mixed_precision": "none"}, "full-precision": {"mixed_precision": "none"},
    # torch's CUDA autocast defaults to float16
    "amp": {"mixed_precision": "fp16"}, "autocast": {"mixed_precision": "fp16"},
    "mixed precision": {"mixed_precision": "fp16"}, "mixed-precision": {"mixed_precision": "fp16"},
    # the loss scaler and gradient clipping, named in passing
    "grad scaler": {"grad_scaler": True}, "gradscaler": {"grad_scaler": True}, "gradient scaler": {"grad_scaler": True},
    "grad-scaler": {"grad_scaler": True},
    "clipping": {"grad_clipping": True}, "gradient clipping": {"grad_clipping": True},
    "grad clipping": {"grad_clipping": True}, "clip grad": {"grad_clipping": True},
    "clip grad norm": {"grad_clipping": True}, "clip grad value": {"grad_clipping": True},
    "max grad norm": {"grad_clipping": True}, "gradient clip val": {"grad_clipping": True},
    "clip the gradient": {"grad_clipping": True}, "clip gradient": {"grad_clipping": True},
    "clip the grad": {"grad_clipping": True}, "gradient clip": {"grad_clipping": True},
    "grad clip": {"grad_clipping": True}, "clipping threshold": {"grad_clipping": True},
    "clip threshold": {"grad_clipping": True},
    # a learning-rate warmup named in passing ("num_warmup_steps=2000", "the warm up phase", "warmup_ratio=0.1"); not
    # bare "warmup", which may be another option's piece ("Adafactor(warmup_init=True)"): the cue list reads it alone
    **{k: {"warmup": True} for k in ("warm up", "lr warmup", "linear warmup", "warmup step", "warmup ratio",
                                     "warmup phase", "warmup period", "warmup epoch", "warm up phase", "warm up step")},
    # the optimizer (a name with its option is read whole: "SGD with momentum"; an option said after the name,
    # "SGD(momentum=0.9)", is read by OPTIMIZER_OPTIONS)
    "adam": {"optimizer": "adam"}, "adamw": {"optimizer": "adamw"}, "adam w": {"optimizer": "adamw"},
    "sgd": {"optimizer": "sgd"}, "lamb": {"optimizer": "lamb"}, "lion": {"optimizer": "lion"},
    "sophia": {"optimizer": "sophia"}, "sophiag": {"optimizer": "sophia"}, "muon": {"optimizer": "muon"},
    "shampoo": {"optimizer": "shampoo"}, "ademamix": {"optimizer": "ademamix"}, "prodigy": {"optimizer": "prodigy"},
    **{f"{a} {b}".strip(): {"optimizer": "schedule_free"} for a in ("schedule free", "schedule-free", "schedulefree")
       for b in ("", "adam", "adamw", "sgd")},
    **{k: {"optimizer": "sgd_momentum"} for k in (
        "sgd with momentum", "sgd + momentum", "sgd and momentum", "sgd momentum", "momentum sgd", "nesterov",
        "sgd with nesterov momentum", "sgd + nesterov", "sgd with nesterov", "nesterov sgd")},
    # ("8bit" is one word inside an identifier, "8 bit" or "8 - bit" in prose: the tokens a number leaves)
    **{k.replace("8bit", bits): {"optimizer": "adamw_8bit"} for bits in ("8bit", "8 bit", "8 - bit") for k in (
        "adamw 8bit", "adamw8bit", "8bit adamw", "8bit adam", "adam 8bit", "adam8bit", "adamw bnb 8bit",
        "bnb adamw 8bit")},
    **{k.replace("Nbit", bits): {"optimizer": "paged_adamw"} for bits in ("8bit", "8 bit", "8 - bit", "32bit",
                                                                         "32 bit", "32 - bit") for k in (
        "paged adamw", "paged adam", "paged adamw Nbit", "paged_adamw")},
    **{k: {"optimizer": "other"} for k in (
        "rmsprop", "adagrad", "adadelta", "adafactor", "radam", "nadam", "adamax", "lbfgs", "l-bfgs")},
    # the model family said in words (a family's name with its size, "resnet50", "gpt-2", is MODEL_FAMILIES')
    **{k: {"architecture": "transformer"} for k in (
        "transformer", "vision transformer", "attention layer", "self attention", "self-attention")},
    **{k: {"architecture": "cnn"} for k in (
        "conv net", "convolutional net", "convolutional network", "convolutional neural network", "conv layer",
        "convolutional layer", "u-net", "u net")},
    **{k: {"architecture": "rnn"} for k in ("recurrent", "recurrent network", "recurrent neural network")},
    **{k: {"architecture": "mlp"} for k in (
        "fully connected", "fully-connected", "feed forward network", "feedforward network", "feed-forward network",
        "feed forward net", "feedforward net")},
    **{k: {"architecture": "gnn"} for k in ("graph neural", "graph neural network", "graph conv",
                                            "graph convolution", "graph convolutional")},
    # several devices (a count of GPUs is read with its number: "4 GPUs", "2x GPU")
    **{k: {"multi_gpu": True} for k in (
        "ddp", "fsdp", "deepspeed", "distributeddataparallel", "dataparallel", "data parallel", "multi gpu",
        "multi-gpu", "multigpu", "multiple gpu", "several gpu", "more gpu", "many gpu", "multi node", "multi-node",
        "multinode", "multiple node", "torchrun", "distributed training", "distributed job", "distributed run",
        "distributed setup", "nproc per node", "nproc_per_node",
        # (the abbreviation users title their threads with: "dist train slow", "dist training hangs")
        "dist train", "dist training", "dist-train", "dist_train",
        # what only a run of several processes has: their sampler, their collectives, its ranks said as a group
        "distributedsampler", "nccl", "allreduce", "all-reduce", "all reduce",
        "each rank", "every rank", "all rank", "all ranks", "all the ranks", "other rank", "other ranks",
        "the other ranks", "both rank", "both ranks", "both gpu",
        # (a second machine added to the job is read with its verb, ``knowledge.keywords``: "when I add a second node";
        # "the second server in our lab" alone is another single machine, "two node types" a graph's)
        "multiple server", "several server")},
    # (not "each/every/all the gpu": "takes all the GPU memory", "each GPU step takes 2 s" on one card)
    # (not "each process": a DataLoader's workers are processes too)
}
"""Settings of the run named in passing ("fine-tuning with fp16", "I use gradient clipping"): read unless negated,
asked about, the before-side of a change, or someone else's."""

MODEL_FAMILIES: dict[str, str] = {
    **dict.fromkeys(("transformer", "transformers", "vit", "bert", "gpt", "llama", "t5", "roberta", "deberta",
                     "distilbert", "bart",
                     "swin", "deit", "mistral", "qwen", "gemma", "whisper", "opt", "bloom", "falcon", "phi"),
                    "transformer"),
    **dict.fromkeys(("cnn", "convnet", "resnet", "vgg", "efficientnet", "unet", "mobilenet", "densenet", "convnext",
                     "resnext", "alexnet", "lenet", "inception", "wideresnet", "wrn"), "cnn"),
    **dict.fromkeys(("lstm", "gru", "rnn", "bilstm"), "rnn"),
    **dict.fromkeys(("mlp",), "mlp"),
    **dict.fromkeys(("gnn", "gcn", "gat", "graphsage"), "gnn"),
}
"""Model families by the stem of their names: a word that is the stem, its plural, or the stem with a size or
version ("resnet50", "vgg16", "gpt2", "llama3"; "gpt-2" and "resnet-50" are split into the stem and the number)
names the architecture."""

LOOSE_STEMS = frozenset({"opt", "phi", "gat", "bloom", "falcon", "inception"})
"""Stems that are ordinary words too: they name a family only with a number joined to them ("opt-1.3b", "phi2")."""

OPTIMIZER_OPTIONS: dict[str, tuple[frozenset[str], str]] = {
    "sgd": (frozenset({"momentum", "nesterov"}), "sgd_momentum"),
}
"""An option said right after an optimizer's name that makes it another optimizer of the vocabulary ("SGD
(momentum=0.9)", "sgd, nesterov=True"); a zero value of the option ("momentum=0") leaves it as it was."""

OPTION_REACH = 24
"""Tokens after an optimizer's name in which its option is looked for (the arguments of its constructor:
"SGD(model.parameters(), lr=0.1, momentum=0.9)"), up to the sentence's end."""

GENERIC_SETTINGS = frozenset({"amp", "autocast", "mixed precision", "mixed-precision"})
"""Names of a setting that leave its exact value open: a more exact name in the same text wins."""

IDIOMS: dict[str, dict[str, Any]] = {
    # a request for help that names no symptom ("what am I doing wrong?", "how do I make it better?"): the vague
    # query, read only when nothing else is (``FALLBACK_NAMES``), so the clarifying question comes first
    "do wrong": {"vague_query": "fix_training"}, "go wrong": {"vague_query": "fix_training"},
    "make it work": {"vague_query": "fix_training"}, "get it to work": {"vague_query": "fix_training"},
    "make it better": {"vague_query": "improve_model"},
    # something amiss, no symptom named ("something is off with my training")
    "something be off": {"vague_query": "not_working_well"}, "something off": {"vague_query": "not_working_well"},
    "something be wrong": {"vague_query": "not_working_well"},
    # results below the paper's, or below what was expected
    "reproduce the paper": {"vague_query": "performs_poorly"},
    "reproduce the result": {"vague_query": "performs_poorly"},
    "match the paper": {"vague_query": "performs_poorly"}, "worse than expect": {"vague_query": "performs_poorly"},
    "not as good as": {"vague_query": "performs_poorly"}, "below the paper": {"vague_query": "performs_poorly"},
    # a notebook kernel that dies is the run stopping
    # labels suspected of being wrong ("noisy labels", "a lot of mislabeled images", "annotation errors"): the data,
    # not the run's curve ("noisy" here is no oscillation, see IDIOM_CLAIMS)
    **dict.fromkeys(("noisy label", "label noise", "label be noisy", "label be wrong", "label be incorrect",
                     "incorrect label", "mislabel", "mislabeled", "mislabelled", "label error", "annotation error",
                     "noisy annotation", "bad annotation", "wrong annotation", "annotation be wrong", "dirty data",
                     "noisy data", "noisy dataset", "noisy sample", "noisy image", "noisy input",
                     *(f"{what} be {how}noisy" for what in ("data", "dataset", "input", "sample", "image", "label",
                                                             "annotation", "record", "measurement")
                       for how in ("", "very ", "quite ", "really ", "extremely ", "pretty ", "super ")),
                     "dirty label"), {"symptom": "data_problem"}),
    # an epoch said to last too long ("each epoch takes ages", "one epoch takes forever")
    # (the run is slow; whether each step is slow or the epoch has many steps, a question asks)
    **{f"{lead}epoch {v}": {"symptom": "slow_training"}
       for lead in ("", "each ", "every ", "an ", "a single ")
       for v in ("take age", "take ages", "take forever", "take hour", "take day", "take so long", "take too long",
                 "take way too long", "take very long")},
    # the whole run's length foretold ("40 epochs will take a week", "training would take months"): a run too slow
    # to finish, said before it does (a week or a month is no length anyone plans one run for on purpose)
    **{f"{what} {aux} take {v}": {"symptom": "slow_training"}
       for what in ("epoch", "training") for aux in ("will", "would")
       for v in ("a week", "week", "a month", "month", "forever", "age", "ages")},
    "kernel die": {"symptom": "crash"}, "kernel crash": {"symptom": "crash"}, "kernel restart": {"symptom": "crash"},
    "make it good": {"vague_query": "improve_model"},
    "better result": {"vague_query": "improve_model"}, "any tip": {"vague_query": "improve_model"},
    "too many epoch": {"symptom": "slow_training", "slow_kind": "many_steps"},
    "so many epoch": {"symptom": "slow_training", "slow_kind": "many_steps"},
    "so many step": {"symptom": "slow_training", "slow_kind": "many_steps"},
    "need many epoch": {"symptom": "slow_training", "slow_kind": "many_steps"},
    "need many step": {"symptom": "slow_training", "slow_kind": "many_steps"},
    "local minimum": {"symptom": "convergence"}, "local minima": {"symptom": "convergence"},
    "convergence issue": {"symptom": "convergence"}, "convergence problem": {"symptom": "convergence"},
    "speed up training": {"symptom": "slow_training"}, "speed up the training": {"symptom": "slow_training"},
    "speed up my training": {"symptom": "slow_training"}, "too long to train": {"symptom": "slow_training"},
    "make training faster": {"symptom": "slow_training"}, "faster training": {"symptom": "slow_training"},
    "not stable": {"symptom": "unstable"}, "never stable": {"symptom": "unstable"},
    "train faster": {"symptom": "slow_training"}, "training faster": {"symptom": "slow_training"},
    "hard to train": {"symptom": "not_learning"}, "barely make progress": {"symptom": "not_learning"},
    "barely make any progress": {"symptom": "not_learning"}, "learn nothing": {"symptom": "not_learning"},
    # "nothing" as the subject of training, said to have stopped ("now nothing trains anymore"): no weight moves any
    # more (not bare: "nothing trains faster than a small model" compares; and no phrase with "more", whose lemma
    # "much" the tables rely on)
    "nothing train anymore": {"symptom": "not_learning"}, "nothing train at all": {"symptom": "not_learning"},
    # ("learning" is a word of its own in the lexicon: the progressive is spelled with it)
    "learning nothing": {"symptom": "not_learning"},
    "nothing be learn": {"symptom": "not_learning"}, "not much be learn": {"symptom": "not_learning"},
    "experiment tracking": {"symptom": "experiment_tracking"}, "track experiment": {"symptom": "experiment_tracking"},
    "track my experiment": {"symptom": "experiment_tracking"}, "track run": {"symptom": "experiment_tracking"},
    "track my run": {"symptom": "experiment_tracking"},
    # (and with "tracking", a word of its own: "what do you use for tracking my experiments?")
    **dict.fromkeys(("tracking experiment", "tracking my experiment", "tracking run", "tracking my run",
                     "tracking our experiment", "tracking the experiment"), {"symptom": "experiment_tracking"}),
    "compare run": {"symptom": "experiment_tracking"},
    "compare my run": {"symptom": "experiment_tracking"}, "log metric": {"symptom": "experiment_tracking"},
    "model registry": {"symptom": "experiment_tracking", "tracking_scope": "registry"},
    "registry": {"symptom": "experiment_tracking", "tracking_scope": "registry"},
    "lineage": {"symptom": "experiment_tracking", "tracking_scope": "registry"},
    "model versioning": {"symptom": "experiment_tracking", "tracking_scope": "registry"},
    "artifact tracking": {"symptom": "experiment_tracking", "tracking_scope": "registry"},
    "artifact versioning": {"symptom": "experiment_tracking", "tracking_scope": "registry"},
    "fp8 underflow": {"symptom": "unstable", "mixed_precision": "fp8"},
    # a tracker named: a tracking request, unless any other symptom is said (it has the lowest priority but one)
    "wandb": {"symptom": "experiment_tracking"}, "weight & bias": {"symptom": "experiment_tracking"},
    "weight and bias": {"symptom": "experiment_tracking"}, "w&b": {"symptom": "experiment_tracking"},
    "mlflow": {"symptom": "experiment_tracking"}, "tensorboard": {"symptom": "experiment_tracking"},
    "neptune": {"symptom": "experiment_tracking"}, "comet": {"symptom": "experiment_tracking"},

    "too many step": {"symptom": "slow_training", "slow_kind": "many_steps"},
    "too many iteration": {"symptom": "slow_training", "slow_kind": "many_steps"},
    "hundred of epoch": {"symptom": "slow_training", "slow_kind": "many_steps"},
    **{f"{n} of {u}": {"symptom": "slow_training", "slow_kind": "many_steps"}
       for n in ("hundred", "thousand", "million") for u in ("step", "iteration", "epoch")
       if (n, u) != ("hundred", "epoch")},
    "huge number of step": {"symptom": "slow_training", "slow_kind": "many_steps"},
    "lose track": {"symptom": "experiment_tracking"},
    "memory leak": {"symptom": "memory_growth"},
    # targets with several classes on at once ("multi-label", "multi-hot vectors")
    "multi label": {"target_kind": "multi_hot"}, "multilabel": {"target_kind": "multi_hot"},
    "multi hot": {"target_kind": "multi_hot"}, "multihot": {"target_kind": "multi_hot"},
    # a loss curve drawn as steps down, one at each epoch ("a staircase")
    "staircase": {"epoch_start_drop": True}, "stair": {"epoch_start_drop": True},
    "run out of memory": {"boundary_topic": "cuda_oom"},
    "binary classification": {"num_classes": 2}, "binary task": {"num_classes": 2},
    "binary classifier": {"num_classes": 2}, "cifar10": {"num_classes": 10}, "cifar-10": {"num_classes": 10},
    "cifar100": {"num_classes": 100}, "cifar-100": {"num_classes": 100}, "mnist": {"num_classes": 10},
    # (not bare "imagenet": most who name it fine-tune from its weights on data of their own)
    "imagenet-1k": {"num_classes": 1000}, "fashion-mnist": {"num_classes": 10},
    "fashionmnist": {"num_classes": 10}, "svhn": {"num_classes": 10},
    # what runs the loop (a framework's own words: its Trainer, its module class, its config names)
    "pytorch lightning": {"framework": "lightning"}, "lightning": {"framework": "lightning"},
    "pl.trainer": {"framework": "lightning"}, "lightningmodule": {"framework": "lightning"},
    "lightning trainer": {"framework": "lightning"}, "pytorch-lightning": {"framework": "lightning"},
    "training_step": {"framework": "lightning"}, "trainer.fit": {"framework": "lightning"},
    "hf trainer": {"framework": "hf"}, "huggingface trainer": {"framework": "hf"},
    "hugging face trainer": {"framework": "hf"}, "transformers trainer": {"framework": "hf"},
    "trainingarguments": {"framework": "hf"}, "seq2seqtrainer": {"framework": "hf"},
    "seq2seqtrainingarguments": {"framework": "hf"}, "trainer.train": {"framework": "hf"},
    "sfttrainer": {"framework": "hf"}, "trl": {"framework": "hf"},
    # (the Trainer's own argument and callback names, which no other loop uses)
    **dict.fromkeys(("load_best_model_at_end", "metric_for_best_model", "evaluation_strategy", "eval_strategy",
                     "save_strategy", "earlystoppingcallback"), {"framework": "hf"}),
    # ("transformers Trainer" reaches here in its lemmas)
    "transformer trainer": {"framework": "hf"},
    # the hidden activation, when named as one ("sigmoid activations", "tanh everywhere")
    "sigmoid activation": {"activation": "sigmoid"}, "tanh activation": {"activation": "tanh"},
    "relu activation": {"activation": "relu"}, "gelu activation": {"activation": "gelu"},
    "tanh": {"activation": "tanh"}, "gelu": {"activation": "gelu"}, "silu": {"activation": "silu"},
    "swish": {"activation": "silu"}, "leaky relu": {"activation": "leaky_relu"},
    "leakyrelu": {"activation": "leaky_relu"}, "leaky_relu": {"activation": "leaky_relu"},
    # a crash named by its kind (the word "segmentation" in it is no task)
    "segmentation fault": {"symptom": "crash"}, "segfault": {"symptom": "crash"}, "core dump": {"symptom": "crash"},
    "illegal memory access": {"symptom": "crash"},
    # a model said to guess ("the model is just guessing", "my net is basically flipping a coin"): the curves are
    # at chance, whatever the user's words for them (not "I guess", a hedge: the phrases hold the guessing itself)
    **dict.fromkeys(("just guess", "randomly guess", "guess randomly", "guess at random", "random guess",
                     "coin flip", "coin-flip", "coin toss", "coin-toss", "flip a coin", "flip coin",
                     "toss a coin"), {"symptom": "not_learning"}),
    # generated text that repeats ("spits out the same token over and over", "stuck repeating", "repetitive
    # output"): a language model's generation, not a model stuck on one class
    **dict.fromkeys((*(f"{how} {noun}{tail}" for noun in ("token", "word", "phrase", "sentence", "line")
                       for how, tail in (("same", " over and over"), ("same", " again and again"),
                                         ("repeat the same", ""), ("loop the same", ""))),
                     "stuck repeat", "keep repeat the same", "repetitive output", "repetitive text",
                     "repetitive generation", "repetitive answer", "degenerate into repetition", "repetition loop"),
                    {"task": "language_modeling"}),
    # a model that will not train
    "fail to train": {"symptom": "not_learning"}, "fail to fit": {"symptom": "not_learning"},
    **{f"{who} {neg} {verb}": {"symptom": "not_learning"} for who in ("model", "network", "net")
       for neg in ("not", "be not", "do not", "fail to", "refuse to", "just not", "be just not", "still not",
                   "be still not") for verb in ("train", "training")},
}
"""Whole phrases (lemmas) that state observations by themselves."""

JUDGEMENTS: dict[tuple[str, str], str] = {
    **{("accuracy", m): "good" for m in ("good", "high")}, **{("accuracy", m): "bad" for m in ("bad", "low", "down")},
    ("loss", "good"): "good", ("loss", "low"): "good", ("loss", "zero"): "good",
    **{("loss", m): "bad" for m in ("bad", "high", "up")},
    # (a loss that falls is doing well, one that does not is not: "train loss goes down but val loss doesn't" is
    # the gap, each side said by its movement, the second often left out and said again by its auxiliary)
    **{("loss", m): "good" for m in ("down", "down_bare", "improve")},
    **{("loss", m): "bad" for m in ("not-down", "not-down_bare", "not-improve")},
    ("accuracy", "up"): "good", ("accuracy", "improve"): "good",
    **{("accuracy", m): "bad" for m in ("not-up", "not-up_bare", "not-improve")},
}
"""A figure judged without a shape, good or bad (quantity, movement): said of the training data one way and of
held-out data the other in one sentence, the two judgements are overfitting's gap."""

REACH_VERBS = frozenset({"go", "drop", "fall", "collapse", "decrease", "decline", "become", "turn",
                         "reach", "sink", "plunge", "plummet", "crash", "head", "shrink", "tank", "dive"})
"""Verbs of change that say a value was reached ("the loss goes to 0", "dropped to zero", "became 0"): what it
reached it did not hold before. "Converge" is none: a loss converging to 0 approaches it as a fit does."""
FIT_MOVES = frozenset({"good", "overfit"})
"""Movements that make a training loss reaching 0 a fit, not a collapse ("goes to 0, works great", "I overfit a
batch and the loss goes to 0"): said in its sentence, the 0 is the data memorised."""
SANITY_FIT_SIZES = frozenset({"single", "one", "1", "few", "handful", "couple", "of", "tiny"})
SANITY_FIT_UNITS = frozenset({"batch", "minibatch", "mini-batch", "example", "sample", "image", "sentence"})
"""The object of "overfit" that makes it the can-it-learn check ("overfit a single batch", "overfit a few
examples"): a size word or none, then one of these units; a dataset or a task is the run's own data."""
FIT_PHRASES = ("as expected", "as it should")
"""Phrases that make a training loss reaching 0 the outcome sought ("the loss goes to 0 as expected"), no fault."""
SCHEDULE_DECAY_VERBS = frozenset("decay anneal anneals annealed annealing taper end finish".split())
"""Verbs that say an LR reaching 0 is the shape its schedule was given ("lr decays to 0", "the lr ends at 0"), not an LR
that collapsed; with no time said that makes it early ("after 3 epochs", "already", ``EARLY_ZERO_WORDS``)."""
EARLY_ZERO_WORDS = frozenset("after within before already early soon quickly suddenly immediately halfway half "
                             "first by since".split())
"""Words that date an LR's fall to 0 inside the run ("decays to 0 after 3 epochs", "already 0 halfway"): a schedule
that ends too early, or an LR that collapsed, not the schedule's planned end."""
PLANNED_PHRASES = FIT_PHRASES + ("as planned", "as scheduled", "as intended", "as designed", "by design",
                                 "as configured", "as it's supposed to", "as it is supposed to", "as supposed to")
"""Phrases that make a value a schedule reaches its design ("the lr goes to 0 as planned"), no fault."""
SCHEDULE_END_PHRASES = tuple(f"{w} {e}" for w in ("at the end of", "by the end of", "at the very end of")
                             for e in ("training", "the training", "the run", "the schedule", "the cosine",
                                       "the decay", "all epochs", "the last epoch", "the final epoch")) + (
    "at the last step", "at the final step", "by the last step", "by the final step", "when training ends",
    "when the run ends", "when training finishes", "when the run finishes")
"""Phrases that place a value at the run's planned end: an LR decayed to 0 there is the schedule finishing
("the lr reaches 0 at the end of training"; an epoch's end, "at the end of the first epoch", is none)."""
SAME_REFERENTS = frozenset("thing result problem issue error behavior behaviour story outcome bug symptom happen "
                           "here deal".split())
"""Nouns "same" refers back with ("same thing with Adam", "the same result with SGD"): the trouble said before."""
VARIANT_LEADS = frozenset("with using for when if on after in".split())
"""Words that introduce the variant the earlier trouble recurs with ("the same with image_logits.t()")."""
ALL_INPUTS = frozenset("every all any each everything anything whatever different regardless matter".split())
"""Objects that make "the same for ..." one answer for all inputs ("the same for every image"), not a recurrence."""
POSSESSIVE_PRONOUNS = frozenset({"its", "their"})
"""Pronouns that name the owner of the noun after them ("the LR reaches its peak"), not a subject of their own."""
WORSENING_WORDS = frozenset({"get", "become", "grow", "keep", "worsen", "deteriorate", "degrade"})
"""Words that make "worse" a change over time ("got worse", "worsens"), not a level judged ("is worse")."""
RUN_MACHINERY = frozenset("script job process program training".split())
"""Names of a run's program that everyday text says too ("my job"): they put no text on topic, but a crash or a hang
said of some other thing in a text that names one ("the renderer hangs when the job starts") is the run's."""
EMPLOYMENT_WORDS = frozenset("lose lost quit leave left hate love find found new dream day full part".split())
"""Words before "job" that make it a person's work ("I lost my job", "a new job"), no program of a run."""
FREEZE_OBJECT_LEADS = frozenset("the my all every some its our their them it these those most half".split())
"""Words right after "freeze" that open its object ("freezes all the layers"): something frozen on purpose, no hang
(a run that freezes is said without an object: "it freezes at epoch 3")."""
PROGRAM_WORDS = frozenset({"script", "job", "process", "program", "code"})
"""Names of the run as a program: when one of these is stuck, it is the program that hangs (no curve is meant)."""
STALL_WORDS = frozenset({"stall"})
"""Verbs of stopping said of the run itself ("the job stalls"): a hang; said of a curve ("the loss stalls"), a
plateau."""
SCOPE_WORDS = frozenset(
    "step* nan inf infs nans oom nccl tpu* node* cluster* colab kaggle notebook* jupyter kernel* container* docker "
    "slurm rank* warmup lora peft finetun* fine-tun* fp16 bf16 amp torchrun deepspeed fsdp ddp tensorflow keras jax "
    "huggingface hf trainer* backprop* backward forward startup init* all-reduce allreduce data overfit* underfit* "
    "chatbot* llm* gpt* llama* bert* resnet* yolo* unet* vit lstm* rnn* cnn* mlp* gan gans diffusion "
    # (the machinery a run is on, and the program's other steps: "my machine hangs", "pip install hangs")
    "python pip install* download* tokeniz* inference eval* server* instance* pod pods worker* session* vm vms "
    "computer* pc pcs mac laptop* gpu* cpu* value* number* tensor* logit* output* "
    # (what a run's figures are drawn as, and the parts and figures of other kinds of training: reinforcement
    # learning, segmentation, generation)
    "curve* graph* plot* chart* dashboard* agent* policy policies env envs environment* "
    "simulat* reward* kl miou dice psnr ssim fid rouge perplexity ppl "
    # (a network, a run's other names and steps, the accelerator a run is on, the libraries training is done with:
    # "my NN is stuck", "my experiments keep crashing", "compile hangs", "my rtx 3090 crashes", "vllm crashes")
    "nn nns experiment* rtx a100 a100s h100 h100s h200 v100 t4 a10 a10g l4 l40s mps "
    "rocm vllm unsloth xgboost lightgbm catboost sklearn scikit* megatron trl axolotl onnx* tensorrt triton wandb "
    "mlflow tensorboard "
    # (a run's speed and memory said by their own names: "throughput drops after resuming", "VRAM keeps growing")
    "throughput it/s samples/sec samples/s tokens/sec tokens/s vram".split())
"""Words of training and its machinery (stems, as ``COARSE_TOPIC``'s are written) that, with ``COARSE_TOPIC``, make a
text about a training run: a movement said of no training quantity ("stuck", "crashed", "exploded") is the run's
only in such a text, or said of nothing else ("it hangs", "keeps crashing"). "the bus was stuck in traffic", "sales
exploded" are everyday English. "nan" right after a person's possessive ("my nan") is a grandmother, no topic."""

SUBJECT_SCOPE_WORDS = frozenset("fit fitting export exporting compile compiling compilation pipeline pipelines "
                                 "build".split())
"""Steps of a training program that are everyday words elsewhere ("the jeans don't fit", "exports fell"): they make
a movement the run's only as its subject ("fit hangs", "compile hangs", "the pipeline crashes"), and do not make the
whole text one about training (``SCOPE_WORDS``)."""
SLIP_TARGETS = frozenset("loss accuracy model network gradient training validation metric epoch batch dataset "
                         "optimizer checkpoint weights learning".split())
"""The quantities and things a misspelt subject may stand for ("the los is stuck", "modle is stuck", "accuarcy
stuck at 10%"): one edit away (a swap of two letters is one), two from eight letters, same first letter."""
EVERYDAY_NEAR_WORDS = frozenset(
    "lass less lots lost lows logs lobs lops mode modes modal modem motel bath bitch botch butch accurate leaning "
    "leanings leaching leaguing leashing leavening meteoric metrical valuation variation weighty wrights tracking "
    "trailing trapping trashing trawling tramping tainting triaging trialing".split())
"""English words that lie that close to a ``SLIP_TARGETS`` word and are no slip of it ("the mode is stuck", "lots
crashed"), listed from an English lemma lexicon (lemminflect's) once; a verb that cannot be a subject ("the lose is
stuck") is left out on purpose: said as a subject it is a slip of "loss"."""

SUBJECT_FILLERS = frozenset(
    "the a an my our your his her their its these those whole all just really still also always never ever even "
    "again already now then sometimes often suddenly randomly constantly completely totally basically literally "
    "kind sort of quite very so too pretty "
    "be have do keep get start begin continue stop seem look appear end up go become fail refuse try manage tend "
    "need want happen will would can could should might may must not no n't nt dont doesnt didnt isnt wont cant "
    "cannot ok okay well yeah hi hello please help maybe perhaps probably think guess somehow "
    "with without after before at on in during when whenever once since for from by to as if until than about "
    "around some many most few several lot lots bunch half any each every both other others more much plenty "
    "couple how what why which when where who whether".split())
"""Words that may stand between a movement and its subject and are no subject themselves (articles, quantifiers,
auxiliaries and verbs taking another verb, adverbs of time and manner, negators, hedges, prepositions, question
words): the nearest word
before a movement that is none of these is what it is said of."""
RUN_PRONOUNS = frozenset("it this that everything something anything nothing thing things which mine".split())
"""Pronouns that, as a movement's subject, stand for the run ("it keeps crashing", "everything freezes", "mine
hangs too")."""
OBSERVING_VERBS = frozenset("see saw seen seeing observe notice encounter experience face hit witness".split())
"""Verbs by which the user reports what their run does ("I see spikes", "we observe divergence"): a person before one
is the run's observer, and the movement after it is the run's."""
CRASH_RECEIVERS = frozenset("i we".split())
"""Persons who, as the subject of a crash named in words, get it from their run ("I keep getting an error")."""

NOUN_MARKERS = frozenset("a an the my our your his her their".split())
"""Words right before a movement word that make it a noun ("my nan", "a crash course", "the hang of it"): a thing
named, the run's trouble only in a text about training."""

IMPERATIVE_IDIOMS: dict[str, frozenset[str]] = {
    "hang": frozenset({"on", "in", "tight", "out", "around", "up"}),
}
"""Movement verbs that, in their bare form opening a sentence and followed by one of these particles, are an
everyday imperative ("hang on, ...", "hang in there", "hang tight"), no movement of the run."""
IMPERATIVE_OPENERS = frozenset("just please so ok okay well oh".split())
IDIOM_RUN_OBJECTS = frozenset("first step steps batch batches epoch epochs iteration iter startup start init "
                              "initialization".split())
"""Words that, right after an idiom's particle, say where the run stops ("hang on first batch", "hang on step 0",
"hang on the all-reduce"): then the verb is the run's hang, no everyday imperative ("hang on, let me ...")."""
"""Words that may open a sentence before such an imperative ("just hang in there")."""

DEFINITION_LEADS = (("what", "be"), ("what", "a"), ("what", "an"), ("explain", "what"), ("define",),
                    ("what", "do", "it", "mean"))
"""Lemmas that open a question asking what a thing is ("what are exploding gradients?", "can you explain what a
vanishing gradient is?"), after an optional "can / could you (please)": the trouble it names is the concept asked
about, not the run's, unless the question speaks of the user's own things (``PERSONAL_WORDS``)."""
DEFINITION_OPENERS = frozenset("can could would you please pls so ok okay hi hey".split())
"""Words that may come before a definition's lead ("could you please explain what ...")."""
PERSONAL_WORDS = frozenset("i we my our me us mine ours im ive".split())
"""Words that make a question about the user's own run ("what is causing my loss to explode?")."""
WEIGHING_WORDS = frozenset("or whether vs versus wonder wondering".split())
"""Words that make a clause before a question weigh settings rather than state the run's ("I was wondering whether
adam or sgd is better, ...")."""
REPORTING_WORDS = frozenset(
    "read saw see seen hear heard say says said tell told claim claims claimed suggest suggests suggested recommend "
    "recommends recommended".split())
"""Words that make a clause before a question report what someone else says ("I read that adam is better", "I saw a
blog saying weight decay 0.1 helps"): the settings in it are not the user's run. Verbs only: a noun such as "video" or
"post" names the user's own things as often ("my video model")."""
OTHER_PEOPLE = frozenset(
    "friend friends colleague colleagues coworker coworkers teammate teammates labmate labmates boss advisor "
    "supervisor professor prof teacher mentor brother sister someone somebody people everyone".split())
"""People other than the user: a run said to be theirs ("my friend uses a batch size of 512") is not the user's. No
pronouns: "they", "his", "their" point back at the user's own things as often ("the gradients explode, they are
huge"; "on their cluster")."""
OTHER_POSSESSIVES = frozenset("his her hers theirs".split())
"""Pronouns that own a run that is not the user's ("his loss goes nan", "her model overfits", "mine drops but theirs is
flat"): unlike "their", which points back at the user's own things as often (``OTHER_PEOPLE``), a third person singular
is someone else, and "theirs" stands for another's thing by itself."""
OTHER_WORKS = frozenset("paper author authors publication readme tutorial leaderboard".split())
"""A published or reference work whose figures are its own ("in the paper the val accuracy reaches 90%", "the
authors say the grad norm spikes"): a movement said of it is not the user's run, where the work is named as a place or
a source (``WORK_LEADS`` before it, or a reporting verb after it)."""
REFERENCE_RUNS = frozenset("reference baseline official original".split())
"""Words that name another run only with a run's noun after them (``REFERENCE_RUN_NOUNS``: "in the reference run",
"the official implementation's loss"); alone they are often the user's own ("the reference model" of a DPO run)."""
REFERENCE_RUN_NOUNS = frozenset("run runs implementation implementations repo code results result curve curves "
                                "training experiment experiments".split())
WORK_LEADS = frozenset("in per from to accord".split())
"""Words before a work that make it the place of a figure ("in the paper", "per the readme", "according to the
authors": "according" is read as its lemma "accord")."""
WORK_VERBS = frozenset("report show get reach achieve observe mention claim say write state see find".split())
"""Verbs after a work that make what follows its finding ("the authors report", "the paper shows")."""
WEIGHT_FORMATS: dict[str, str] = {"fp32": "fp32", "float32": "fp32", "full precision": "fp32", "fp16": "fp16",
                                  "float16": "fp16", "bf16": "bf16", "bfloat16": "bf16"}
"""Numeric formats named in passing that may be said of the parameters (``weights_dtype``)."""
WEIGHT_NOUNS = frozenset("weight weights param params parameter parameters".split())
"""What a format said of the parameters is said of ("weights in fp32", "parameters stay fp32"); not "the model",
which is loaded in a format for inference as often ("I load the model in bf16 for inference")."""
WEIGHT_LINKS = frozenset("be is are in stored kept keep all still remain stay".split())
"""Words between the parameters and their format ("weights are stored in fp32")."""
RESTART_SCHEDULE = (r"\b(?:sgdr|cycl(?:ic|ical)\w*|\w*warm[\s_-]?restarts?\w*|cosine\w*[\s_](?:(?:lr|learning[\s_]"
                    r"rate|annealing|schedule|decay)[\s_])?with[\s_](?:warm[\s_])?restarts?|triangular\d?|"
                    r"(?:lr|learning[\s_]rate|schedule\w*)\s+(?:with\s+)?restarts)\b")
"""A learning-rate schedule that restarts by design: SGDR, (cosine) warm restarts, cyclic and triangular LRs."""
SCHEDULE_RESTART_WORDS = frozenset("restart restarts cycle cycles reset resets".split())
"""Words that place a movement at a restart of the schedule ("at each restart", "every cycle")."""
RUN_RESTART_WORDS = frozenset("job run process checkpoint ckpt resume resuming resumed relaunch cluster node "
                              "preemption preempted slurm".split())
"""Words that make a restart in a clause the run's, not the schedule's ("at each restart of the cluster job",
"after each restart of the job from the checkpoint")."""
DIVERGENCE_NAMES = frozenset("kl kullback-leibler leibler kullback js jensen-shannon shannon jsd bregman "
                             "f-divergence renyi".split())
"""Names before "divergence" that make it a measure ("the KL divergence"), which may be a loss term of the run."""
MEASURE_USE_WORDS = frozenset("use using with as objective criterion term compute computing between".split())
"""Words in a clause that say a named divergence is used or computed ("we train with KL divergence as the
objective", "the KL divergence between the two heads"): the measure, no run diverging."""
POLICY_WORDS = frozenset("dpo grpo ppo rlhf rlaif simpo orpo kto ipo policy reference ref reward rl trl "
                         "preference".split())
"""Words of a run tuned against a reference policy (RL, preference tuning): there a KL divergence that grows is the
policy drifting away from its reference, the run's instability, not a loss term that rises (a VAE's, a student's)."""
AMOUNT_VERBS = frozenset("drop fall decrease increase rise improve climb decline degrade dip sink grow shrink gain "
                         "lose".split())
"""Verbs (lemmas) a figure said right after sizes the move of ("val acc drops 5%", "fell by 3 points"): the amount it
moved by, not the level it is at ("drops to 5%" says the level)."""
AMOUNT_FILLERS = frozenset("by about around roughly like ~ almost nearly over".split())
"""Words that may stand between such a verb and its amount."""
RESTART_MOVES = frozenset({"spike", "jump", "up", "oscillate"})
"""How the loss answers the LR going back up at a restart: expected there, no instability."""
OWNER_REACH = 12
"""Words looked back from a movement for whose run it is, or for the training counted before a hang: a clause
of a pasted log may run for thousands of words, and what says it is near."""
LOSS_TERM_WORDS = frozenset("auxiliary aux secondary".split())
"""Words that name one loss as a term among several by themselves ("the auxiliary loss")."""
CALM_LEVELS = frozenset("normal fine small stable ok okay low tiny reasonable flat steady healthy calm sane "
                        "constant".split())
"""Levels that say gradients are calm; said of them before a NaN, the NaN did not grow through them."""
DEGREE_WORDS = frozenset("very super quite pretty really rather fairly".split())
"""Words of degree before a level ("very small"): they leave it a level."""
NAN_WORDS = frozenset("nan inf nans infs".split())
"""A non-finite value named."""
WORLD_RATIO_TOLERANCE = 0.25
"""How far the fall of a metric from one GPU count to another may be from the ratio of the counts and still be read
as divided by the world size (89% on 1 GPU, 29% on 3: 3.07 against 3). Source: DD-SUS-METRIC, a per-process count
over the whole dataset caps the figure at 1 / world; a quarter leaves room for the run-to-run spread of the figure."""
OTHER_LOSS_WORDS = frozenset("other another".split())
"""Words that name one loss beside another ("the other loss"): a term only where the loss beside it is a term too."""
LOSS_OWNER_NOUNS = frozenset("run model experiment seed config setup version branch attempt trial fold machine gpu "
                             "node rank job checkpoint baseline person team paper repo dataset".split())
"""What else "the other" may name, whose loss is a whole curve, not a term ("the other run's loss plateaus")."""
COMBINED_LOSS_WORDS = frozenset("combined total sum term terms component components multi-task multitask task tasks "
                                "head heads objective objectives".split())
"""Words that say the loss is made of terms ("the total loss", "the loss terms", "each task's loss")."""
RUN_VERBS = frozenset("train trained training run ran running iterate iterated iterating go went going learn learned "
                      "learning fit fitting have had be was been wait waited waiting".split())
"""Verbs of the run going on: "after training for 2 hours" is a time of the run, "after switching to bf16" of a
change (``expert.talk._Reader._after_change``)."""
TROUBLE_NAMES = ("symptom", "loss_behavior", "nan_onset", "nan_step", "hang_onset")
"""What a movement says of a run's trouble: claimed whole when the run is another person's."""
SHARED_TOO = (r"\b(?:mine|me)\s+(?:too|as\s+well|also)\b|\b(?:mine|my\s+\w+)\s+(?:does|did|do|is|was|has|had)\s+(?:too|"
              r"as\s+well)\b|\bi\s+(?:have|had|get|got|see|saw|am\s+seeing|'m\s+seeing|have\s+got)\s+(?:it|this|that|"
              r"the\s+same(?:\s+\w+)?)\s+(?:too|as\s+well)\b|\bsame\s+(?:here|for\s+me|with\s+me|with\s+mine|"
              r"for\s+mine)\b|\bso\s+(?:do|does|did|have|has)\s+(?:i|mine|my\s+\w+)\b")
"""Words after another person's trouble that give it to the user as well ("mine too", "I have it too", "same here",
"so does mine")."""
SHARED_TOO_REACH = 60
"""Characters after another person's trouble looked at for :data:`SHARED_TOO`."""
NOT_OWN_WORDS = WEIGHING_WORDS | REPORTING_WORDS | OTHER_PEOPLE
"""Words that keep a clause from stating the user's own run: it weighs, reports, or tells another person's."""
RUN_TALK_WORDS = frozenset("causing wrong happening happens this these".split())
"""Words (as typed) that make a "what is ..." question about something seen in the user's run, not a concept:
"what is causing the nan?", "what is wrong with the training", "what are these spikes in the loss" (and "going
on", two words, checked beside them). A concept is asked as "what is a/an X" or "what are Xs"."""

EVERYDAY_QUANTITY_WORDS = frozenset("loss losses cost costs score scores".split())
"""Names of a quantity that are everyday words too ("sorry for your loss", "the loss of my father"): with nothing
said of them (no movement, no comparison) and no other word of training in the text, they give no fallback
reading."""

OPERATION_VERBS = frozenset({"flatten"})
"""Movement words that, in their bare form, also name a model's operation (``nn.Flatten``): the operation, no curve,
after a preposition or an article ("after flatten", "the flatten") or before a noun of layers ("flatten layer")."""
OPERATION_LEADS = frozenset("after before of into from with the a an".split())
OPERATION_NOUNS = frozenset("layer op operation module call".split())
TOPIC_BOUND_READINGS = frozenset({("recent_change", "resume"), ("recent_change", "extended")})
"""Readings said in everyday words ("resumed", "continued after", "extended"): a change of the run only in a text
that names something of training; "I resumed my job after the holidays" names none."""
INTERRUPTION_WORDS = "stop interrupt kill crash preempt halt pause cancel abort"
"""Lemmas that say a run was cut short ("a stopped run", "the preempted job")."""
RUN_NOUNS = "run training job"
"""Nouns of the run itself, which an interruption word may be said of."""
STOPPED_RUN = (frozenset(INTERRUPTION_WORDS.split()), frozenset(RUN_NOUNS.split()))
"""A run named as cut short ("continuing a stopped run", "resuming the killed job"): these words are training's by
themselves, so a resume said of them stands in a text that names nothing else of training (``TOPIC_BOUND_READINGS``
are otherwise dropped there)."""
EVERYDAY_SETTING_NAMES = frozenset({"warm up"})
"""Names of a setting (``SETTING_NAMES``) that are everyday words too ("the heater takes forever to warm up"): they
name the setting only in a text about training (``SCOPE_WORDS``); "warmup" written as one word always does."""

HEALTHY_MOVES = frozenset({("loss", "down"), ("loss", "down_bare"), ("loss", "improve"), ("loss", "converge"),
                           ("accuracy", "up"), ("accuracy", "up_bare"), ("accuracy", "improve"),
                           ("recall", "up"), ("recall", "improve"), ("reward", "up"), ("reward", "improve"),
                           ("throughput", "up"),
                           # a speed figure getting better or holding steady ("the step time goes down", "throughput
                           # stays the same", "GPU utilization goes up"), a memory use that falls
                           ("throughput", "up_bare"), ("throughput", "flat"), ("throughput", "same"),
                           # (a speed's peak is its best figure, no slowness: "throughput peaks at 3000 samples/s")
                           ("throughput", "spike"),
                           ("step_time", "down"), ("step_time", "down_bare"), ("step_time", "flat"),
                           ("step_time", "same"), ("data_time", "down"), ("data_time", "down_bare"),
                           ("data_time", "flat"), ("epoch_time", "down"), ("epoch_time", "flat"),
                           ("gpu_util", "up"), ("gpu_util", "up_bare"), ("memory", "down"), ("memory", "flat"),
                           ("memory", "same")})
"""A quantity moving the way training wants it to (quantity, movement as the lexicon names it): "the loss goes down",
"val accuracy improved". Said plainly of the quantity, not negated and with no shape word (``SHAPE_WORDS``), it is
a healthy run described, and the quantity gives no fallback reading."""
UNHEALTHY_DETAIL_WORDS = frozenset("only just barely stop stops stopped stopping stall stalls stalled fast quickly "
                                   "instantly immediately".split())
"""Words that, said beside a wanted movement, limit or doubt it ("improves only to 60% then stops", "goes down
suspiciously fast", "drops to zero immediately"): no healthy run described (``suspicious*`` is checked too)."""
HEALTHY_COMPANIONS = frozenset({"good", "down", "down_bare", "up", "up_bare", "improve", "converge", "smooth",
                                "steady"})
"""Movements that may follow a wanted one in a healthy sentence of another quantity ("the loss goes down and the
accuracy keeps climbing"); any other second movement ("... then goes up again") is a shape to ask about."""
SHAPE_WORDS = frozenset("step steps stair stairs staircase wave waves bump bumps zigzag sawtooth jump jumps spike "
                        "spikes pattern shape cycle cycles".split())
"""Words that give a healthy direction a shape the reader has no composition for ("goes down in steps, one big step
at each new epoch"): the quantity is still read weakly and asked about."""

VAGUE_MOVEMENTS = frozenset({"bad", "worse", "broken", "wrong", "work", "underperform"})
"""Judgements without a shape ("bad", "broken"): said of the run or the model itself, they are its, not the loss's."""
FALLBACK_MOVEMENTS = frozenset({"weird"})
"""Movements whose reading is a fallback too: "the loss looks weird" beside a shape says no more than the shape."""
QUANTITY_FALLBACKS: dict[str, tuple[dict[str, Any], str]] = {
    "loss": ({"not_working_aspect": "loss"}, "the loss"),
    "accuracy": ({"not_working_aspect": "accuracy"}, "the accuracy (or another metric)"),
    "recall": ({"not_working_aspect": "accuracy"}, "a metric"),
    "throughput": ({"symptom": "slow_training"}, "the speed"),
    "epoch_time": ({"symptom": "slow_training"}, "the time per epoch"),
    # (not the step or the loader: "each step", "the training steps", "my dataloader" name them, not their speed;
    # their time, the GPU's use and the data-loading time are figures of speed, said with a word of measure
    # (MEASURED_FALLBACKS): "the step time looks off", "GPU utilization is weird")
    "step_time": ({"symptom": "slow_training"}, "the time per step"),
    "gpu_util": ({"symptom": "slow_training"}, "the GPU's use"),
    "data_time": ({"symptom": "slow_training"}, "the data loading"),
    # the memory a run takes bounds its batch ("uses much more memory than I expected")
    "memory": ({"memory_limited": True}, "the memory"),
    # gradients judged without a shape ("the gradient norm looks odd"): they are watched, how they move is asked
    "grad_norm": ({"grad_norm_monitored": True}, "the gradient norm"),
    "grad": ({"grad_norm_monitored": True}, "the gradients"),
}
"""What a complaint states, weakly, when it names one of these quantities and nothing composes a reading ("the train
loss goes down in steps", "the speed after the change"): the figure that is not working (or, for a speed, that
the run is slow), offered with a question (how does it move?) rather than nothing. Only the first quantity named,
never negated, never said as a time ("after each step"), and only when the text gives no other reading."""

SHARE_UNITS = frozenset("gb mb gib mib kb g m k it its s sec ms min h hz w watt watts c degree degrees time times "
                        "of out token tokens core cores node nodes".split())
"""Words after a bare number that make it no share of use ("util is 30 GB", "30 it/s", "30 of 40", "30 times")."""

COST_JUDGEMENTS = frozenset("too oom expensive costly prohibitive".split())
"""Words that judge a setting said as their subject by its cost ("fp32 takes too much memory", "bf16 OOMs")."""

STEADY_MANNERS = frozenset("monotonically monotonic monotonously smoothly steadily consistently linearly "
                           "continuously strictly".split())
"""Manners of an even movement: denied right after it ("the loss doesn't go down monotonically"), what is denied
is the evenness, not the movement (the curve falls, unevenly)."""

OTHER_METRICS = frozenset("f1 f1-score fscore f-score f-measure auc auroc roc-auc iou miou map map50 bleu rouge "
                          "dice jaccard precision recall wer cer perplexity".split())
"""Metrics read as the ``accuracy`` quantity (they move as it does) that are no accuracy: a figure or a kind said
of one is not ``metric_kind=accuracy`` nor a ``val_metric`` (an accuracy in [0, 1], or a loss)."""

LOWER_BETTER_METRICS = frozenset("wer cer perplexity ppl".split())
"""Of ``OTHER_METRICS``, those where lower is better: a split's figure of one is never read as a score (a higher-is-
better ``metric_kind``), whose train/validation gap would read the wrong way round."""

DEVICE_PLACE_WORDS = frozenset("on with using across over".split())
"""Words that make a bare "GPU" after them the devices a run is on ("on a single GPU it does", "with 4 GPUs the loss
goes down"), not the cards' use moving: a movement in that clause is said of something else."""

MEASURED_FALLBACKS = frozenset({"step_time", "gpu_util", "data_time"})
"""Quantities whose name is a fallback only with one of ``MEASURE_WORDS`` in it ("step time", "GPU usage"): their
bare names ("each step", "the GPU", "the dataloader") name a thing, not its speed."""
MEASURE_WORDS = frozenset("time util utilization usage utilisation second s/it duration".split())
"""Words of measure that make a ``MEASURED_FALLBACKS`` quantity's name a figure of speed."""

JUDGED_FALLBACKS = frozenset({"step_time", "gpu_util", "data_time", "memory", "grad_norm", "grad"})
"""Quantities that give their fallback only when their sentence judges or compares something (a movement, or one
of ``COMPARING_WORDS``): "gpu util" alone, a name in a pasted list, says nothing of it."""
COMPARING_WORDS = frozenset("more less much higher lower bigger smaller larger than too way off odd weird strange "
                            "wrong bad suspicious unusual abnormal fishy funny different change".split())
"""Words of comparison, excess or judgement ("uses much more memory than training", "the grad norm looks off")."""

TERM_WEIGHTS = frozenset("weight weighting coefficient coef lambda factor multiplier".split())
"""Nouns naming what weighs a loss or a metric in a sum ("loss weight", "the weight of the aux loss"): the phrase
names the weight, a setting, not the quantity (its numbers and changes are the weight's)."""

LINK_VERBS = frozenset("look seem be appear stay remain feel".split())
"""Verbs that carry a judgement back to the subject of the clause ("the loss went from 2.3 to 0.1 and looks
healthy"): a subject-less "and looks ..." goes on speaking of the same figure."""

FALLBACK_CONTENT = frozenset("fine ok okay normal fit good great well healthy reasonable expected".split())
"""Words that judge a figure as it should be ("the loss looks fine", "it fits in memory"): said plainly in the
quantity's clause, the quantity gives no fallback reading (it is named as what is not the trouble)."""

MANNER_FILLERS = frozenset("just but only very really so extremely super quite incredibly painfully too , "
                           "although though yet".split())
"""Words that may stand between a movement and the "slowly" said after it, which still says how it moves: "it does
learn, just very very slowly", "it learns, but slowly" (the loss falls slowly, the run is not slow)."""

FALLBACK_BYSTANDERS = frozenset({"gpu_utilization_pct", "dataset_size"})
"""Measurements that do not silence a fallback complaint beside them: "util 97%, but 1 epoch = 5h on 2M images"
or "GPU-Util 96%, still only 3 it/s" is still a slow run (a busy GPU or a big dataset is the run's context, not
another complaint that the duration or rate would only be the context of)."""

FALLBACK_NAMES = frozenset({"vague_query"})
"""Observations a composition states only as a fallback: read when nothing else is (a vague complaint said beside
a symptom is that symptom's complaint)."""

IDIOMS_UNDER_NEGATION = frozenset({"reproduce the paper", "reproduce the result", "match the paper",
                                   "not as good as",
                                   "speed up training", "speed up the training", "speed up my training",
                                   "make training faster", "faster training", "train faster", "training faster"})
"""Idioms that state the same thing negated: a wish for speed and its failure ("adding GPUs didn't speed up
training") both say the run is too slow."""

ONLY_FITTING = frozenset({"inputs", "activations", "labels", "optimizer_state"})
"""Quantities that are a movement's subject only when some composition speaks of them moving that way: in "the
dataset is slow to load" the slowness is the run's, in "NaN in my dataset" the NaN is the inputs'."""

SELF_MOVEMENTS = frozenset({"underfit", "overfit", "not-generalize", "unstable", "overflow", "diverge", "nan"})

OWN_MOVERS = frozenset({"accuracy", "recall", "gpu_util", "memory", "throughput", "step_time", "data_time",
                        "epoch_time"})
"""Measured quantities whose movement, said with them as its subject, is theirs even where no composition reads it
("val accuracy goes to NaN" is a metric computed wrong, not the loss): the run's own movements (``SELF_MOVEMENTS``)
are not read in their place, nor is the trouble guessed. (Not a setting: "lr 0.1 diverges", "batch size 2048 gives
nan" are the run's; nor the gradients or weights, whose values the coarse reading still guesses from: "the weights
become huge".)"""
UNGUESSED_MOVERS = OWN_MOVERS | {"lr"}
"""Quantities whose movement, said as its subject and read by no composition, guesses no trouble either: "the LR
stays the same" may be the schedule the user set (the run's own movements said of the LR are still read)."""

FROZEN_PARTS = frozenset("backbone layer layers part parts weight weights parameter parameters param params "
                         "embedding embeddings encoder decoder head heads bn batchnorm base module modules block "
                         "blocks tower stem statistic statistics stats feature features extractor norm "
                         # (what is trained beside a frozen base model: "an adapter on a frozen 7b model")
                         "adapter adapters lora peft".split())
"""Parts of a model that are frozen on purpose: "frozen" said of them (in its clause) is no hang of the run
("a frozen backbone", "BatchNorm is frozen", "freeze the first layers")."""

FREEZE_ACT_LEADS = frozenset("before after gradual progressive during by of layer layerwise layer-wise partial "
                             "selective".split())
"""Words before "freezing" that make it the act of freezing weights, no run that freezes ("the optimizer was built
before freezing", "gradual freezing: the layers keep moving")."""
FREEZE_TIME_LEADS = frozenset("before after during".split())
"""The leads of :data:`FREEZE_ACT_LEADS` that only place a time: "before freezing" is the act of freezing weights
only when its sentence names what is frozen (``FREEZABLE_WORDS``); "before freezing, the run printed step 100" is
a run that froze."""
FREEZABLE_WORDS = frozenset("layer layers weight weights parameter parameters param params optimizer optimiser "
                            "requires_grad".split())
"""Words naming what a user freezes on purpose, besides the model's parts (``FROZEN_PARTS``)."""

RUN_MOVEMENTS = SELF_MOVEMENTS | {"hang", "freeze", "not-progress", "not-learn", "not-converge", "not-change_verb",
                                  "not-improve", "nowhere"}
"""Movements that, said with no fitting quantity in their own clause, are the run's ("it hangs with 4 GPUs",
"300 steps or fewer doesn't learn")."""
"""Movements of the run itself: said next to a setting ("with batch 32 it overfits"), they are still the run's."""

IDIOM_CLAIMS: dict[str, tuple[str, ...]] = {
    "segmentation fault": ("task",), "core dump": ("task",),
    # (noisy labels are wrong labels, not a curve that swings)
    **dict.fromkeys(("noisy label", "label noise", "label be noisy", "noisy annotation"), ("loss_behavior",)),
}
"""Observations a single-word cue inside an idiom may not set ("segmentation fault" names no segmentation task)."""

TOPIC_SETTINGS: dict[str, tuple[str, ...]] = {
    "optimizer": ("optimizer",), "learning_rate": ("learning_rate",),
    "schedule": ("lr_schedule", "warmup"), "batch_size": ("batch_size",),
    "precision": ("mixed_precision", "grad_scaler"),
    "tuning": ("tuning_method",), "clipping": ("grad_clipping",), "augmentation": ("heavy_augmentation",),
}
"""Settings a question about a topic names without setting them ("should I use adam or sgd")."""

SETTINGS = frozenset({"optimizer", "learning_rate", "batch_size", "mixed_precision", "lr_schedule", "loss_fn",
                      "weight_decay", "grad_scaler", "tuning_method", "warmup", "label_smoothing"})
"""Observations that are settings of the run (a question or the before-side of a change does not set them)."""

QUOTED_SETTINGS: dict[str, str] = {"lr": "learning_rate", "blr": "learning_rate", "batch": "batch_size"}
"""Quantities that are settings of the run: a number quoted with them is their value ("lr 3e-4", "bs=32")."""

SETTING_CHANGE_LINKS = frozenset("cut halve double triple slash shrink boost bring push crank get back".split())
"""Verbs of a change made to a setting that link it to its new number ("batch size was cut to 8", "the lr got
cranked up to 3e-3", "bs brought down to 4"); their forms come from ``knowledge.forms``."""

SETTING_LINKS = frozenset("of be = : at to set change up down increase raise reduce lower decrease bump around "
                          "about roughly only just now still currently was is approx approximately ~ ( "
                          "hit reach".split()) | SETTING_CHANGE_LINKS
"""Words between a setting and its number ("lr was set to 1e-3", "batch size of 64", "raised the batch up to 1024"):
a link of being, of setting, or of a change made to it."""

OTHER_MODEL_CLASSES = frozenset("pretrained pretrain pretraining imagenet coco original backbone".split())
"""Words that make a class count said right after them (``OTHER_MODEL_REACH`` words, in its sentence) another
model's ("resnet pretrained on imagenet with 1000 classes, my head is nn.Linear(2048, 5)"): the head is then set
against no count of the user's own classes."""
OTHER_MODEL_REACH = 8
"""How many words before a class count a word of another model (``OTHER_MODEL_CLASSES``) makes the count its."""

LITTLE_WORDS = frozenset("only just barely hardly merely slightly marginally".split())
"""Words that say a movement by numbers is small for what it took ("the loss only went from 0.7 to 0.6"): with a drop
below ``MT-CURVE-SLOW`` the loss decreases slowly, whatever span is said."""
SPAN_EPOCHS = frozenset("epoch epochs".split())
SPAN_STEPS = frozenset("step steps iteration iterations iter iters batch batches it".split())
"""Units of a stretch of training a movement by numbers is said to take ("over 10k steps", "after 20 epochs",
"in 3000 iterations"): its length is set against ``MT-SLOW-SPAN-EPOCHS`` / ``MT-SLOW-SPAN-STEPS``."""

WARMUP_PEAK_WORDS = frozenset("peak max maximum top full target".split())
"""What the LR reaches when its warmup ends ("the lr peaks", "hits its max", "reaches the full lr")."""
WARMUP_DONE_WORDS = frozenset("over done finish finished end complete completed".split())
"""What a warmup is said to be when it has ended ("warmup is over in the first 50 steps", "warm-up ends after")."""
PEAK_STEP_UNITS = frozenset("step iteration iter update batch".split())
"""Units of optimizer steps a peak is dated in (epochs are too coarse to call a warmup short)."""
PACE_DUE_LEADS = (("instead", "of"), ("rather", "than"), ("not", "at"), ("not", "after"), ("vs",), ("versus",),
                  ("but", "should", "be"))
"""Words that set a step count against the one planned ("after 40 steps instead of 4000")."""
CHANCE_FIGURE_REACH = 7
"""How many words after a flat loss's name its figure may come ("loss refuses to budge from ln(2)", "loss stays at
about 0.693")."""
LOSS_MOVED = frozenset({"loss_collapses_zero", "loss_zero_from_start", "negative_loss", "spike_recovers"})
"""Readings that say the loss moved away from a held value, or held 0: its value is no loss at init."""
LATER_ONSET_WORDS = frozenset("after then later until suddenly".split())
"""Words that date a held loss inside the run ("stuck at 0.6 after epoch 10"): the level it stalled at, not its
value from the first step."""
RATIO_WORDS = frozenset("times x fold percent %".split())
"""Words after a number that make it a ratio or share ("100 times smaller"), no level of the loss."""
CONSTANT_MARKERS = frozenset("always constantly forever throughout".split())
"""Words that say a value holds for the whole run ("the loss is always 10.375", "stays 0.25 throughout"); "every" or
"each" or "all" before a unit of training (``SPAN_EPOCHS``, ``SPAN_STEPS``) says it too ("0.693 every step")."""
CONSTANT_WHOLE = frozenset("every each all".split())
"""Words before a unit of training that make a value said with it held over the run ("every epoch", "all steps")."""
LR_CONSTANT_WORDS = frozenset("constant fixed same unchanged steady static flat".split())
"""Words that say the learning rate holds one value ("the learning rate is constant", "LR stays the same the whole
run", "a fixed lr"). Said with no schedule named they describe the run's setting, no schedule
(``lr_schedule=none``); said where a schedule was set they are the LR the optimizer applies not following it
(``lr_observed=stuck``: the scheduler is not stepped)."""
LR_CONSTANT_LINKS = frozenset("be stay remain keep kept at the whole entire all throughout during of a an my "
                              "our always just exactly".split())
"""Words allowed between the learning rate and its constancy word."""
SCHEDULE_NAMED = frozenset("scheduler schedule sched lr_scheduler cosine cosineannealinglr cosineannealingwarmrestarts "
                           "onecycle onecyclelr steplr multisteplr exponentiallr lambdalr linearlr polynomiallr "
                           "reducelronplateau warmup anneal annealing decay".split())
"""Words that name an LR schedule set for the run: with one named, an LR said constant did not follow it."""
HYPOTHETICAL_WORDS = frozenset("should would whether how if want could".split())
"""Words that make a sentence a question or a wish, which states nothing of the run."""
STILL_DENIALS = frozenset("do be not never n't doesnt didnt isnt wasnt change move budge decrease drop fall "
                          "improve go down really even at all".split())
"""Words of a denied change said of the loss before its held value ("loss does not change and sticks at 0.69"):
the two predicates say one thing, a loss that never moved."""
CONSTANT_LINKS = frozenset("be stay remain stick stuck sit keep hover = : at exactly precisely still constant "
                           "fixed always constantly around about ~ of value the same like".split())
"""Words between the loss and the one value it is said to hold ("is always", "stays at exactly", "sits at", "is the
same value")."""
BOUND_WORDS = frozenset("above below over under less more greater higher lower smaller bigger larger least most "
                        "than < > <= >= within between".split())
"""Words that make a number a bound the loss is compared with ("always above 2", "never below 0.5"), not its value."""

FASTER_WORDS = frozenset("faster quicker speedier shorter less".split())
"""Comparatives (as typed, or their lemma) that make the side before "than" the faster one ("a single GPU is faster
than two", "one GPU takes less time than four")."""
SLOWER_WORDS = frozenset("slower longer more".split())
"""Comparatives that make the side before "than" the slower one ("4 GPUs are slower than 1", "two GPUs take longer
than one", "8 GPUs need more time per epoch than a single one")."""
TIMED_FILLERS = frozenset("time per epoch step iteration iter batch to train run finish each an a the with using "
                          "use".split())
"""Words between a speed comparative and its "than" that say what is timed ("longer per epoch than", "more time to
train than"), or how ("more time with DataParallel than": a word of a multi-device run, ``MULTI_DEVICE_WORDS``)."""
MULTI_DEVICE_WORDS = frozenset("multi-gpu multigpu ddp distributed multi-node multinode fsdp dataparallel".split())
"""Words that name a run on several devices without a count ("the multi-gpu run is slower than the single-gpu
one"): set against one device, the side with more."""

COLON_EVENT_WORDS = frozenset("resume resuming resumed restart restarting restarted reload reloading reloaded "
                               "restore restoring restored".split())
"""Words of a run taken up again that a colon after makes the onset of what follows ("resuming: loss jumps",
"after restart: loss spikes"), as an arrow does; a colon after other words leads a value ("loss: 2.3") or a log
field, no sequence."""
DEVICE_WORSE_WORDS = frozenset("worse underperform poor bad badly".split())
"""Judgements (lemma) that leave open what is worse about a multi-device run ("more GPUs performs worse", "the
multi-gpu run underperforms the single-gpu one"): its speed (``multi_gpu_speedup``) or its results."""
SPEED_SENSE_WORDS = frozenset("slow slower fast faster speed speedup speed-up throughput time long longer quick "
                              "quicker scale scaling it/s s/it sec second minute hour latency utilization util "
                              "samples/sec samples/s tokens/s tokens/sec".split())
"""Words (lemma or as typed) that make a multi-device run's "worse" its speed: said in the same text, the speed is
read as said, with nothing to ask."""
RESULT_SENSE_WORDS = frozenset("result results converge convergence generalize generalise overfit validation val "
                               "eval test evaluation".split())
"""Words (besides the metrics of ``QUANTITIES`` and ``OTHER_METRICS``) that make a multi-device run's "worse" its
results ("worse validation numbers with DDP"): nothing to ask."""

LOSS_OPERATION_CALLS = frozenset("backward".split())
"""Methods called on the loss that run a part of the step ("loss.backward() is extremely slow"): their time is the
step's, not the loss curve's pace. (Not ``item``: "loss.item() is 0.5" is the loss's value.)"""
LOSS_OPERATION_NOUNS = frozenset("calculation calculations computation computations calc backward backprop "
                                 "backpropagation".split())
"""Nouns right after "loss" that name the work of computing it ("the loss calculation is slow")."""
LOSS_OPERATION_VERBS = frozenset("computing calculating evaluating backpropagating backpropping".split())
"""Verb forms right before "loss" that name the work of computing it ("computing the loss is really slow")."""

DECISIVE_WORDS = frozenset("nan inf infinity zero zeros none overflow underflow error exception traceback warning "
                           "diverge diverged diverges diverging divergence explode exploded explodes exploding "
                           "explosion vanish vanished vanishes vanishing oom killed timeout timed hang hangs hanging "
                           "hung stuck skip skipped skipping".split())
"""Words of a line that may decide a diagnosis ("gradients are all zero now", "Warning: NaN or Inf found in input
tensor", "loss: nan"): in a long pasted log such a line is composed even past the composing budget, however late it
comes (within a budget of its own, so the reading stays linear)."""

PASSIVE_SETTING_LINKS = frozenset("drop".split())
"""Links that join a setting to its number only after an auxiliary ("batch size was dropped to 8", "got dropped
to"): said bare, "the lr drops to 1e-6", the number is where a schedule takes the rate, not the run's setting."""

PASSIVE_AUXILIARIES = frozenset("be get".split())
"""Lemmas of the auxiliaries of a passive change ("was cut", "got bumped", "has been raised"): someone changed it."""

LR_SCHEDULE_AGENTS = frozenset("warmup scheduler schedule cosine anneal annealing onecycle plateau decay".split())
"""Words that make a rise of the learning rate the schedule's doing ("the lr was increased to 1e-3 by the warmup"),
not a change made to the run."""

OTHER_RATES = frozenset("min max_min warmup final end eta start minimum".split())
"""Words joined to "lr" that name another rate than the run's peak ("min_lr", "warmup_lr", "eta_min")."""

NUMBER_WORDS: dict[str, int] = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                                "sixteen": 16, "several": 2, "multiple": 2, "many": 2, "more": 2}
"""Counts said in words ("two GPUs", "multiple GPUs")."""
VAGUE_COUNTS = frozenset(w for w in NUMBER_WORDS if w in ("several", "multiple", "many", "more"))
"""Counts of ``NUMBER_WORDS`` that say only "more than one": enough to tell a multi-GPU run or to compare two
counts, never a number of devices of its own (``dist_world_size``)."""

REFERENCE_NOUNS = frozenset("baseline paper reported reference benchmark expected expectation original official "
                            "previous published sota".split())
"""What a held-out figure is measured against besides training's ("below the baseline", "worse than the paper")."""
ABOVE_WORDS = frozenset("above beat beats exceed outperform surpass".split())
"""Words that put a figure over a reference ("above the baseline", "beats the paper"): better than it, no fault."""
MORE_WORDS = frozenset("more additional extra further".split())
"""Words that lengthen a run when said before its unit ("more epochs", "additional iterations")."""
CORRELATIVE_LEADS = frozenset("longer more further".split())
TRAINING_LENGTH = frozenset("train training epoch step iteration iter time".split())
CORRELATIVE_MOVES: dict[str, str] = {"lower": "down", "smaller": "down", "less": "down", "worse": "worse",
                                     "higher": "up", "bigger": "up", "larger": "up", "greater": "up",
                                     "better": "improve"}
"""The correlative "the longer I train, the lower my val accuracy gets": its lead (a comparative of the run's length,
said with one of ``TRAINING_LENGTH``) and the comparative of the second half, as the movement it says. The
comparatives are matched as typed, not as lemmas (they are no lexicon words: "longer" would hide "long")."""

RESUME_WORDS = frozenset("fast faster quick quickly normally proceed".split())
"""Words saying a paused run moves on again ("then it runs at normal speed", "then the bar moves quickly"): the
pause said before them is a slow stretch, not a hang. Not "continue" or "normal": "then I have to continue it by
hand" and "then crashes with normal output" say nothing of the run moving on."""

VALUE_WORDS = ("be", "at", "=", ":", "always", "to", "stay", "remain", "become", "exactly", "just", "all", "still",
               "show", "print", "log", "report", "read", "hit", "reach", "display", "give", "get")
"""Words before a bare "0" that make it the value of what was just named ("loss is 0", "drops to 0", "the loss
reads 0.0"); lemmas, their inflections ("reads", "printed") come from ``knowledge.forms``."""

SETTING_WORDS = frozenset("worker batch size bs seed accumulation accum prefetch factor lr rate momentum decay "
                          "dropout warmup beta eps epsilon patience".split())
"""Words naming a setting of the run (lemmas): a number said as their value ("batch size 64", "num_workers > 0",
"NUM_WORKERS from 1 to 4") is the setting's, never a figure of a quantity measured nearby (the data-time share)."""

CHANGE_LINKS = frozenset("( -> → => : = from to".split())
"""The tokens of a changed count ("(1 -> 4)", "from 1 to 4")."""

SETTING_NUMBER_LINKS = CHANGE_LINKS | frozenset("> < >= <= == != of be set at ~ , around about".split())
"""Tokens between a setting's name and its number, or between the numbers of a changed setting ("from 1 to 4"):
a changed count's links and the words of a value."""

TRIED_WORDS = frozenset("try tried trying swept sweeping tested testing experimented varied varying".split())
"""Verb forms (the text, not lemmas) that make a range of values ("tried lr from 1e-3 to 1e-6") the values tried,
not a change of the run. Not "test" or "sweep": as nouns ("on the test set I changed lr ...") they try nothing."""

COUNTED_SETTINGS = frozenset("gpu node worker rank process device card".split())
"""Things the run has a number of: a change of their count said right after them ("gpus (1 -> 4)", "workers:
2 -> 8") is the setting's, never a figure of a metric said nearby."""

CHANGE_MARKERS = frozenset({"->", "→", "=>", "-->", "to", "into", "instead"})

CHANGED_SETTINGS: dict[str, str] = {"batch_size": "batch_size", "learning_rate": "learning_rate",
                                    "mixed_precision": "precision"}
"""A setting said with its before and after values ("batch 64 -> 1024", "moved from fp32 to bf16", "lr 1e-4 =>
1e-3") is a change made to the run: the ``recent_change`` each such setting gives (the differential's DF-CHG-*
rows read what changed, whatever the words of the change)."""

REMEDY_WORDS = frozenset("help fix solve resolve delay only nothing matter improve cure prevent avoid disappear away "
                          "stable stabilize".split())
"""Words that make a change said in the sentence a remedy tried rather than what started the trouble ("changing
batch size or lr only delays it", "lowering the lr does not help"): no ``recent_change`` from it."""

PURPOSE_VERBS = frozenset("fight combat counter counteract tackle reduce lessen lower avoid prevent stop curb limit "
                           "mitigate minimize minimise fix solve address cure remove suppress kill beat handle deal "
                           "rid".split())
"""Verbs after a purpose's "to" ("added dropout to fight overfitting", "lowered the lr to avoid NaNs") whose object is
the trouble a change was made against: the trouble the user had before, not the symptom the run shows now."""
PURPOSE_CAUSES = (("because", "of"), ("due", "to"), ("against",))
"""Words before a trouble that make it the reason of an action ("because of overfitting I added dropout, now ...")."""
PURPOSE_ASKERS = frozenset("how way what want wanna need needs like try trying help helps ways best "
                           "tips advice".split())
"""Words right before a purpose's "to" that make it the user's wish or question ("how to prevent overfitting", "I
want to reduce overfitting"): the trouble is still theirs."""

CURVE_REMEDY_WORDS = frozenset({"improve"})
"""Words of ``REMEDY_WORDS`` that are also a curve's own movement: said with a curve as their subject ("switched to
fp16 and the loss stopped improving", "accuracy doesn't improve since I doubled the batch") they say the trouble,
not that the change was a remedy tried ("changing the lr didn't improve anything" still is one)."""
CURVE_SUBJECTS = frozenset("loss accuracy recall reward".split())
"""Quantities (``QUANTITIES`` values) whose movement ``CURVE_REMEDY_WORDS`` say."""
CURVE_VERB_FILLERS = frozenset("be do not no stop keep start begin never any anymore long longer still seem to have "
                               "really barely hardly more even just".split())
"""Lemmas that may stand between a curve and its ``CURVE_REMEDY_WORDS`` ("the loss has stopped improving")."""

NULL_OUTCOMES = frozenset("effect difference impact".split())
"""Outcomes that, denied right before ("has no effect", "makes no difference", "without any impact"), make a change
said in the sentence a remedy tried that did nothing ("changing the lr several times has no effect"); said plainly
("the effect of switching to fp16 was a NaN") they leave the change one that started the trouble."""

CHANGE_NAMES: dict[str, str] = {"batch_size": "the batch size", "learning_rate": "the learning rate",
                                "precision": "the precision", "gpu_count": "the number of GPUs",
                                "data_pipeline": "the data pipeline", "library_upgrade": "a library version"}
"""How a confirmation question names what changed (a change read from the text is certain; that it started the
trouble is what the user is asked to confirm)."""

THEN_MARKERS = frozenset("before previously earlier originally formerly initially use".split())
"""Words that set a sentence's earlier state against what follows "now" (``NOW_MARKERS``): "used to train on 1
GPU, now 4", "we used fp32 before, now amp". ("use" counts only as "used to".)"""

NOW_MARKERS = frozenset("now currently nowadays".split())
"""Words that open the present state of a then/now sentence: a setting said after them is the run's, one said
before them (its old value) is not, and the difference is what changed."""

HOST_NOUNS = frozenset("node machine server host".split())
"""Nouns counting the machines of a distributed run ("2 nodes x 8 GPUs": the GPU count said is per machine)."""

UNTIL_WORDS = frozenset("until till til".split())
"""Words that bound a stretch of the run by the step it ends at ("fine until step 8000")."""

ENDS_IN_ERROR = frozenset({("symptom", "memory_growth")})
"""Readings of a trouble that runs into an error named after it ("memory creeps up until it OOMs"): said before the
error's words, they are the trouble's own, not words of the error."""

RESTART_STEMS = ("resum", "restart", "restor", "reload", "load", "continu", "checkpoint", "ckpt", "relaunch")
"""Stems of the words of a restart (the lemmatiser leaves "resuming" whole): a hang said "after resuming" comes
after the restart, not after steps of training."""
RESUME_SPAN_REACH = 3
"""Tokens before a step said as a time that may name the restart it is the point of ("resuming from step 5000")."""
EPOCH_TURN_WORDS = frozenset({"next", "new", "each", "every", "following", "second"})
"""Words before "epoch" that make "the first step of the ... epoch" a step at the epoch boundary."""
TRAINED_SPANS = frozenset("step steps iteration iterations iter iters epoch epochs batch batches hour hours minute "
                          "minutes min mins h".split())
"""Units of a stretch of training counted before a hang ("trains 2 epochs, then hangs"): the run had taken steps."""
FOREVER_WORDS = frozenset("block blocked forever indefinitely deadlock deadlocked never".split())
"""Words saying a stopped run does not go on ("blocked on a queue", "waits forever"): a hang, not a pause."""

DEVICE_CONTEXT = frozenset("gpu card ddp fsdp deepspeed distributed torchrun slurm nccl cluster rank job "
                           "multinode multi-node".split())
"""Words that make "node" a machine of a run rather than a graph's node ("a second node, gpu util 100%")."""

ORDINAL_HOSTS = {"second": 2, "third": 3, "fourth": 4}
"""Ordinals before a host noun ("add a second node"): the run spans at least that many machines."""

RUN_PLACES = frozenset("step iteration iter batch epoch start beginning".split())
"""Places in a run a program can stop at ("stuck at the first iteration", "stuck after epoch 1": a hang there)."""

PLACE_FILLERS = frozenset("at after on in around before during the a my its first second last very right just forever "
                          "randomly sometimes always every each".split())
"""Words that may stand between "stuck" and the place in the run it names."""

SINGLE_DEVICE = frozenset("1 one single a".split())
"""Words counting one device ("on 1 GPU", "a single GPU"): the then-side of a move to several."""

CONTRAST_FINE = FALLBACK_CONTENT | frozenset("stable work converge".split())
"""Words that judge one of two runs set side by side as healthy ("with 64 it's fine", "fp32 ok", "on 1 GPU it
works"), said without a negation in a clause of their own. The other clause of the sentence, the one that states
the trouble, is the run being asked about (``_Reader._contrasted_runs``)."""

ELLIPSIS_LEADS = frozenset("with at on using for of".split())
"""Words before a bare number that stands for the setting the other half of a contrast names: "with bs 1024 it
blows up, with 64 it's fine" (64 is a batch size), "on 1 GPU fine, on 4 it diverges" (4 GPUs)."""

ELLIPSIS_OPENERS = frozenset("but and while whereas yet though although".split())
"""Linking words that may open a clause before its bare number: "with bs 128 it explodes, but 32 is fine"."""

ELLIPSIS_FOLLOWERS = frozenset("it it's its everything all things be is was seem seems look looks still too just "
                                "then".split())
"""Words that may follow such a bare number in its clause: "with 64 it's fine", "on 4 everything diverges". Any other
word after it is the number's own noun ("with 4 workers", "at 500 steps"): the number is that thing's."""

CONTRAST_LOWER = frozenset("small smaller low lower less fewer tiny".split())
"""Comparatives that set the healthy run's setting below the troubled one's without a number ("smaller batches are
fine", "a lower lr works")."""

SUBSTITUTE_VERBS = frozenset("switch move go change replace swap migrate".split())
"""Verbs that put one optimizer in another's place ("switch from AdamW to Lion", "replace Adam with SGD", "switching
the optimizer to Lion"). Said in a sentence that only weighs it (``WEIGHING_MARKERS``), the new one is the one
considered and the old one the run's (``_Reader._substitutions``)."""

REPLACEMENT_WORDS = frozenset("replacement alternative substitute".split())
"""Nouns that set a new optimizer against the run's: "is Lion a good replacement for AdamW?"."""

WEIGHING_MARKERS = frozenset("should want whether worth consider considering plan planning would could if thinking "
                             "suggest recommend wonder i'd we'd".split())
"""Words that make a sentence weigh a switch rather than report one made (a "?" does too). ``CHANGE_HYPOTHETICALS``
without the words of a thing tried: "tried switching to SGD" reports a run that was made."""

WEIGHING_LEADS = WEIGHING_MARKERS | frozenset("can may might".split())
"""Words before "use" or "try" (or before a name that is asked to "help") that make the optimizer after them one
weighed: "can I just use Lion?", "planning to try Lion", "would Lion help?"."""

SWITCH_REASONS: dict[str, str] = {
    **dict.fromkeys("memory vram ram footprint oom".split(), "memory"),
    **dict.fromkeys("instability unstable spike spikes divergence diverge".split(), "instability"),
    **dict.fromkeys("tuning retuning".split(), "tuning_cost"),
}
"""What a wish to switch optimizer is for, by the noun that says it (``switch_reason``): "to save memory", "because
of the instability", "to avoid all the tuning". Read only with a reason marker beside it (``REASON_MARKERS``)."""

TROUBLE_REASONS: dict[tuple[str, str], str] = {
    **{("loss_behavior", b): "instability" for b in ("spiking", "diverging", "oscillating", "nan_or_inf")},
    ("symptom", "unstable"): "instability",
    ("loss_behavior", "decreasing_slowly"): "slow_convergence", ("symptom", "convergence"): "slow_convergence",
}
"""The run's own trouble, read beside a weighed switch of optimizer, as the reason for it (``switch_reason``) when no
reason noun says one: "AdamW keeps giving me loss spikes, should I try Muon?" weighs the switch against
instability, "my adamw run converges slowly, is Sophia worth it?" against slow convergence."""

MODERN_OPTIMIZERS = frozenset({"lion", "sophia", "muon", "shampoo", "ademamix", "prodigy", "schedule_free"})
"""The newer optimizers a switch to is the modern-optimizer request (``vague_query`` modern_optimizer)."""

OWN_RUN_MARKERS = frozenset("my our current currently use using with from we i".split())
"""Words just before an optimizer's name that make it the run's own in a text that weighs a switch ("my AdamW run",
"we use AdamW", "current optimizer adamw", "works ok with adamw", "worth changing from adamw")."""
HEALTHY_RUN_WORDS = frozenset("fine well normal normally nicely healthy good great ok okay smoothly stable".split())
"""Words that say a run is healthy ("my AdamW run is fine", "training is stable"): a switch of optimizer weighed
beside them has no symptom behind it (``switch_reason`` none)."""
TROUBLE_WORDS = frozenset("problem problems issue issues wrong".split())
"""Words of trouble that, denied ("no problems so far", "nothing is wrong"), say the run is healthy."""

FIRST_EVAL = (r"\bepoch\s*[:#]?\s*(?:0|1|one)\b(?!\s*[.,]\d)|\bfirst\s+(?:epoch|eval\w*|validation|val)\b|"
              r"\b(?:from|since)\s+(?:the\s+)?(?:very\s+)?(?:start|beginning)\b(?!\s+of\b)")
"""The first evaluation said as a time ("epoch 1:", "at the first evaluation", "since the beginning"; not "since
the beginning of the week", a time of the calendar). The factor and reach are ``MT-FAR-ABOVE`` and
``MT-FIRST-EVAL-REACH`` (``knowledge.measurements``)."""

REASON_MARKERS = frozenset("save reduce cut lower free fit because due since reason about much lot short less "
                           "smaller avoid".split())
"""Words before a reason noun that make it the purpose or cause of a switch ("to save memory", "because of memory",
"too much memory", "short on memory", "care about lower memory usage")."""

REASON_HEADS = frozenset("reason bottleneck limit limitation problem issue concern constraint".split())
"""Nouns after a reason noun that make it the cause ("VRAM is the bottleneck", "memory is the main reason")."""

SUSPECT_NAMES: dict[str, str] = {
    "optimizer": "optimizer", "learning_rate": "learning rate", "schedule": "lr schedule", "batch_size": "batch size",
    "precision": "precision", "tuning": "hyperparameters", "clipping": "gradient clipping",
    "augmentation": "data augmentation", "architecture": "model architecture",
}
"""How ``self_diagnosis`` names a setting the user suspects, by its question topic (``TOPICS``): "could it be the
lr?", "is it my scheduler?", "maybe the batch is too small", "I think adam is the problem". A suspicion is the
user's hypothesis: the diagnosis checks it against the evidence (DX-MIS-*, PR-HOLD-02) rather than route on it."""

SUSPECT_HEADS = frozenset("problem issue culprit cause reason".split())
"""Nouns that make a setting said before them ("the lr might be the culprit") the suspected cause."""

SUSPECT_JUDGEMENTS = frozenset("too wrong bad off high low small large big broken responsible fault".split())
"""Words after "be" that make a yes/no question about a setting a suspicion ("could the batch size be too small?"),
where a value after it asks only about the value ("can the lr be 1e-3 with adamw?")."""

SUSPECT_DENIALS = frozenset("doubt rule".split())
"""Words that clear a setting named beside them ("I doubt the lr is the issue", "ruled out the batch size"):
what follows is no suspicion, whatever hedge or head noun it carries."""

SUSPECT_VERBS = frozenset("think guess suspect bet wonder maybe perhaps probably possibly might".split())
"""Words before a setting, in its clause, that make it suspected rather than stated ("I suspect the scheduler")."""

BOUNDED_OUTPUTS: dict[str, tuple[float, float]] = {"sigmoid": (0.0, 1.0), "tanh": (-1.0, 1.0)}
"""Output activations whose values lie in a fixed interval: a target outside it cannot be reached
(``target_range=outside_activation``, MS-RANGE-01)."""

OUTPUT_MARKERS = frozenset("output outputs out end last final head top".split())
"""Words that put an activation at the model's output ("sigmoid at the end", "tanh output head", "my last layer is a
sigmoid"), said within a few words of it; an activation without one may be a hidden layer's."""

TARGET_ANCHORS = frozenset("target label y predict gt groundtruth regress".split())
"""Words after which a range of numbers is the targets' ("targets are prices between 100 and 5000", "predict ages
(0-90 years)", "labels in the range 0..255"), until another quantity is named ("the model outputs 0.99")."""

RANGE_LINKS = frozenset("to and or - .. / ~".split())
"""Words joining the two ends of a range or a pair of values ("0 to 255", "between 100 and 5000", "1 or 2")."""

CLASS_ID_ANCHORS = frozenset("label labels target targets class classes id ids".split())
"""Words after which the numbers listed are class ids ("my targets are 1,2,3", "labels are in [1, num_classes]")."""

CLASS_CONTEXT = frozenset("class classes category categories classification classifier index assert".split())
"""Words that make listed ids class indices (a classification run), not regression values."""

RANGE_BEYOND = frozenset("above over beyond exceed exceeds exceeding".split())
"""Words before a number that put the values past it ("soft labels go above 1")."""

BOUNDED_LOSSES = frozenset({"bce", "bce_with_logits"})
"""Losses (``knowledge.terms`` names) whose targets must lie in [0, 1]: targets outside are
``target_range=outside_loss``."""

NAN_RANGE_LINKS = frozenset("to and - .. ~".split())
"""Words joining a NaN to a number as the two ends of a range of values ("between nan and 5", "from 0 to nan");
not "or" ("NaN or Inf", "nan or 0": values named, no range)."""
NAN_RANGE_OWNERS = {"target": "labels", "label": "labels", "input": "inputs", "feature": "inputs",
                    "pixel": "inputs", "image": "inputs", "sample": "inputs", "data": "inputs"}
"""Data nouns whose values a range with a NaN end belongs to (``nan_location``): "targets are between nan and 5" is
a NaN in the labels; a range of no named data ("values range from 0 to nan") says only that it is no loss going
NaN."""
RANGE_CAPS = frozenset("up max maximum upto as".split())
"""Words before a single bound that make it the top of a range ("up to 50", "max 300", "as high as 1000")."""

TIME_PREPOSITIONS = frozenset("after at per for in on during before every each within until till by over".split())
"""Prepositions that make a step, batch or iteration phrase after them a time ("after each step", "within 500
iterations"): a movement said beside it is not the steps' own (their speed), but the run's."""

TIME_COUNTS = frozenset("a an the few couple of hundred hundreds thousand thousands first last some several many "
                        "about around roughly approximately ~ maybe like just only another more".split())
"""Words of a count that may stand between such a preposition and its noun ("after a few hundred steps", "for
about 300 batches"); numbers are counts too."""

RANK_WORDS = frozenset("rank ranks process processes gpu gpus node nodes device devices replica "
                        "replicas shard shards".split())
"""Words for one member of a distributed job: counts of work compared between them say whether they are even.
(Not a data loader's workers: they share one rank's batches, and no collective waits on them.)"""

COUNT_LEADS = frozenset("number numbers amount of".split())
"""Words that may stand between a comparative and its count noun ("a different number of batches")."""

RANK_HANG_WORDS = frozenset("hang hangs hung stuck freeze freezes deadlock timeout wait waits block".split())
"""Words that say a job stalls: uneven counts said of a run otherwise judged fine are read only beside them."""

COUNT_NOUNS = frozenset("batch batches step steps iteration iterations iter iters sample samples example examples "
                        "length lengths size sizes".split())
"""What a rank has a number of in an epoch (batches, steps, samples; a shard's length)."""

UNEVEN_WORDS = frozenset("fewer more less different unequal uneven".split())
"""Comparatives that set one rank's count against another's ("one rank has fewer batches than the others")."""

EARLY_WORDS = frozenset("earlier first sooner before".split())
"""Words that say one rank ran out of its work before the others ("finishes its batches earlier than the others")."""

PATTERN_NOUNS = frozenset("pattern shape period cycle bump wave curve form".split())
"""Nouns after "same" that make it a shape recurring ("the same bump pattern again and again"), not a curve that
stays the same; a movement noun after it does too ("the same spike every 500 steps")."""

UNIT_SECONDS: dict[str, float] = {"ms": 0.001, "s": 1.0, "sec": 1.0, "second": 1.0, "min": 60.0, "minute": 60.0,
                                  "h": 3600.0, "hr": 3600.0, "hour": 3600.0, "day": 86400.0}
"""Seconds in each duration unit (``TIME_UNITS``): two measured durations are compared in one unit."""

STEP_TIME_WORDS = frozenset("step iteration iter it batch".split())
"""Words that make a timing one step's ("a step takes 200 ms", "iteration time 1 s", "2 it/s"): with data
parallelism each GPU takes its own batch, so a step's time compares no run speeds unless the global batch is
fixed (``GLOBAL_BATCH_FIXED``)."""

RUN_TIME_WORDS = frozenset("epoch run training total whole".split())
"""Words that make a timing the whole run's or an epoch's ("an epoch takes 14 min"): a speed comparable across
GPU counts."""

GLOBAL_BATCH_FIXED = frozenset("fix fixed same constant".split())
"""Words that, beside "global batch", say each GPU takes a share of one batch: per-step timings then compare."""

PHRASE_FILLERS = frozenset("any much really very even quite so that too".split())
"""Degree and polarity words that may stand inside a lexicon phrase without changing it: "isn't getting any better"
is "get better" negated, "doesn't go down very much" is "go down". (Only inside a phrase, never its first word.)"""

ADVERB_JUDGEMENTS = frozenset({"bad"})
"""Judgements (``MOVEMENTS`` values) whose adverb in -ly stands for the adjective: "does badly", "performs poorly",
"generalises horribly". (Not "good": "greatly" and "perfectly" say how much, not how well.)"""

CHANGE_VERBS = frozenset("change switch move increase decrease raise lower reduce double halve triple quadruple scale "
                          "bump cut enlarge adjust modify tweak replace rewrite swap update upgrade refactor go "
                          "downgrade slash shrink boost crank transition".split())
"""Verbs (lemmas; their forms come from ``knowledge.forms``) that say a setting of the run was changed when their
object is a setting (``CHANGE_OBJECTS``): "since doubling the lr", "I switched to fp16", "after raising
batch_size to 1024", "batch size changed to 1024". The change, whatever its words, is what the differential's
DF-CHG-* rows read; a change only weighed or asked about changes nothing (``CHANGE_HYPOTHETICALS``)."""

CHANGE_OBJECTS: dict[str, str] = {
    **dict.fromkeys(("batch", "batch size", "batch_size", "bs", "batchsize", "micro batch", "global batch"),
                    "batch_size"),
    **dict.fromkeys(("lr", "learning rate", "learning_rate", "blr", "base lr", "base_lr"), "learning_rate"),
    **dict.fromkeys(("precision", "fp16", "float16", "half precision", "bf16", "bfloat16", "fp8", "amp", "autocast",
                     "mixed precision", "mixed-precision"), "precision"),
    **dict.fromkeys(("dataloader", "data loader", "data loading", "data pipeline", "input pipeline", "pipeline",
                     "preprocessing", "data format", "tfrecord", "parquet", "webdataset", "how the data"),
                    "data_pipeline"),
    **dict.fromkeys(("torch", "pytorch", "transformers", "cuda", "cudnn", "lightning", "accelerate", "peft",
                     "deepspeed", "timm", "diffusers", "library", "package", "driver", "trl", "xformers"),
                    "library_upgrade"),
}
"""The objects of a change verb and what changed with them (``recent_change``). A library is changed only by an
update ("upgraded torch", "bumped transformers"), never by a switch ("switched to pytorch")."""

SUBSTITUTION_VERBS = frozenset("swap replace exchange trade".split())
"""Verbs whose object is the value a change leaves and whose "for" / "with" / "by" names the value now ("swapped adam
for sgd", "replaced fp16 with bf16"); "substitute" says them the other way round and is not one."""
MOTION_VERBS = frozenset("go move switch transition".split())
"""Change verbs that say a change only with somewhere to go: a "to" or "from" after them ("switched to fp16",
"moved the data pipeline to webdataset", "went from 64 to 1024"). Without one they are motion, not change: "each batch
goes through the dataloader", "went with lr 1e-3"."""

MOTION_COMPLEMENTS = frozenset("to from".split())
"""What makes a motion verb (``MOTION_VERBS``) a change: the place it goes to or leaves."""

SPENT_SHARES = frozenset("time % percent share fraction most half".split())
"""Words before a motion verb that make it where a share of the run's time goes, not a switch ("60% of the training
time goes to the DataLoader", "most of the step goes to data loading")."""

CHANGE_COMPARATIVES = frozenset("bigger larger higher smaller lower fewer".split())
"""Comparatives that set a value against the run's own old one: "bigger batch (1024 instead of 128)" is a change,
where "lr 1e-3 instead of 1e-2" alone is only a choice against another value."""

LR_RAISE_VERBS = frozenset("increase raise double triple quadruple bump enlarge boost crank".split())
"""Change verbs that say a setting went up: said of the learning rate, it is a raised LR (DF-CHG-LR's case)."""

LR_CHANGE_VERBS = frozenset("change adjust modify tweak alter retune".split())
"""Change verbs that say no way: said of the learning rate, the LR changed just before the trouble (``recent_change=
learning_rate``, as a raise; a lowered LR is ``LR_LOWER_VERBS``'s)."""
LR_LOWER_VERBS = frozenset("decrease lower reduce halve cut slash shrink".split())
"""Change verbs that say a setting went down: a lowered learning rate is no raise. Trouble at the lower LR says a
lower LR did not train stably (``lower_lr_stable`` false), not that the LR passed the stable edge."""

INSTABILITY_BEHAVIORS = frozenset("nan_or_inf diverging spiking oscillating".split())
"""Loss behaviours that make trouble after a lowered LR an instability the lower LR did not cure (``lower_lr_stable``
false); a plateau or slow run after lowering it is no such judgement."""

CHANGE_STOPS = frozenset("under with for in on at by of during while than through into over via".split())
"""Prepositions that end the search for a change verb's object: what follows them is another thing's ("weight
updates under lightning" change nothing of lightning; "changed the seed for the lr finder")."""

NOUN_MARKERS = frozenset("the a an my our this that each every weight gradient grad parameter param optimizer "
                         "scaler".split())
"""Words before a change word that make it a noun ("an update", "the weight updates", "each optimizer update"):
a noun says no change was made."""

SWITCH_ON_VERBS = frozenset("enable enabled enabling activate activated activating".split())
"""Verbs (lemmas or forms as typed) that switch a precision on ("enabled bf16 and training got slower"): a change to
the precision when their object follows them. Not after it ("with amp enabled, the loss goes NaN" says the run's
state, not a change)."""
SWITCH_ON_PARTICLE_VERBS = frozenset("turn switch flip".split())
"""Verbs that do the same with "on" right after them ("turned on amp and the loss went NaN")."""
RAISE_FORMS = frozenset("upped upping".split())
"""Forms of the verb "up" ("upped the lr to 1e-3"): a raise of the batch or the LR they name after them (the bare
"up" is a particle far more often: "the loss goes up")."""
LIBRARY_CHANGE_VERBS = frozenset("update upgrade bump downgrade".split())
"""The change verbs that say a library's version changed (``CHANGE_OBJECTS``' ``library_upgrade``)."""

CHANGE_OBJECT_BLOCKERS = frozenset("schedule scheduler warmup decay worker num_workers prefetch pin_memory "
                                   "persistent_workers finder weight weights parameter parameters param params tensor "
                                   "tensors gradient gradients grad grads model module layer".split())
"""Words right after a change's object that make it another thing's: "changed the lr schedule" changes the
schedule, not the LR; "update torch weights each step" updates the weights (an optimizer step), not torch."""

LOADING_SPEED_WORDS = frozenset("worker num_workers prefetch prefetch_factor pin_memory persistent_workers fast "
                                "faster slow slower speed throughput".split())
"""Words that make a changed data loader a change of its speed ("increased num_workers of the dataloader and it
is faster"), not of what the run is fed: no ``data_pipeline`` change where the sentence has one."""

UPGRADE_FLAGS = frozenset({"u", "upgrade"})
"""What makes "pip install" an update of the library named after it ("pip install -U torch", "--upgrade")."""

CHANGE_HYPOTHETICALS = frozenset("should want whether worth consider considering plan planning would could if "
                                 "thinking will might try tried trying suggest recommend".split())
"""Words that make a before -> after change one weighed, planned or asked about, not one made ("should I go from
64 to 1024?", "planning to move from fp32 to bf16"): the after-value is still the setting asked about, but
nothing changed in the run. ("how" asks only before an auxiliary, ``HOW_ASKS``: "changed how the data is loaded"
is a change made.)"""

HOW_ASKS = frozenset("do does did can could should would to".split())
"""Words after "how" that make it a question ("how do I change the lr", "how to switch to bf16")."""
"""Tokens that separate a before value from an after value ("from fp32 to bf16", "64 -> 1024")."""

# ------------------------------------------------------------------------------------------ compositions


@dataclass(frozen=True)
class Composition:
    """What a quantity moving a way (at a time, under a qualifier) states.

    Attributes:
        quantity: The quantity part (``QUANTITIES`` values; ``*`` any).
        movement: The movement part (``MOVEMENTS`` values), prefixed ``not-`` when negated.
        sets: The observations it states.
        split: Only for this split of the quantity (``train``, ``val``; None: any, ``none``: unsplit only).
        time: Only at this time (``TIMES`` values or ``later``, ``start``; None: any time).
        implicit: The quantity may be left unsaid ("it diverges", "NaN after 3 epochs" are about the loss).
        tags: Only when the clause says this much of it (``all``, ``some``).
        subject: Only when the quantity is the clause's subject: said before the movement, with no person before it
            ("the LR never changes" is the LR's trace; "I did not change the LR" and "I kept the LR the same" are the
            user's setting).
    """

    quantity: str
    movement: str
    sets: dict[str, Any]
    split: str | None = None
    time: str | None = None
    implicit: bool = False
    tags: frozenset[str] = field(default_factory=frozenset)
    subject: bool = False


def _c(quantity: str, movements: str, sets: dict[str, Any], **kw: Any) -> list[Composition]:
    return [Composition(quantity, m, sets, **kw) for m in movements.split()]


_NAN = {"symptom": "unstable", "loss_behavior": "nan_or_inf"}
_NAN_FWD = {"symptom": "unstable", "nan_location": "activations"}
_NL = {"symptom": "not_learning"}
_FLAT_START = {"symptom": "not_learning", "loss_behavior": "flat_from_start"}
_PLATEAU = {"symptom": "convergence", "loss_behavior": "plateau_after_learning"}
_EPOCH_JUMP = {"epoch_start_jump": True, "symptom": "unstable", "loss_behavior": "spiking"}
_EPOCH_STALL = {"epoch_start_stall": True, "symptom": "slow_training"}

COMPOSITIONS: tuple[Composition, ...] = tuple(
    # --- the run at each epoch's start ------------------------------------------------------------------------
    # a run that waits, pauses or freezes as every epoch begins and then runs at speed is no hang: the epoch's
    # start is slow (workers re-created, the dataset re-read), and only the run's or the loader's pause says it
    _c("run", "pause hang freeze stuck plateau slow", _EPOCH_STALL, time="epoch_start", implicit=True)
    # (a time that spikes or jumps as every epoch begins is the same stall, said as its figure)
    + _c("data_time", "pause hang freeze stuck slow spike jump up high", _EPOCH_STALL, time="epoch_start")
    + _c("step_time", "pause hang freeze stuck slow high spike jump up", _EPOCH_STALL, time="epoch_start")
    # --- the loss ---------------------------------------------------------------------------------------
    # a validation loss that stops falling says nothing of the training loss's shape (``loss_behavior`` is the
    # training curve's): the sentence around it decides (the frames below: training still falls, overfitting)
    # a noisy or spiking validation curve says nothing of the training curve's stability
    + _c("loss", "oscillate spike jump", {"not_working_aspect": "loss"}, split="val")
    # (said with its onset, "val loss plateaus after 10 epochs": the held-out curve stalled once it had learned, a
    # plateau of the run's progress, not of the training curve's shape)
    + _c("loss", "plateau stuck flatline not-down not-improve flat stay", {"symptom": "convergence"}, split="val",
         time="after_learning")
    + _c("loss", "plateau stuck flatline not-down not-improve flat stay", {"symptom": "convergence"}, split="val",
         time="later")
    # (alone, it says at least which figure is not working)
    + _c("loss", "flatline stuck not-change not-down not-improve not-converge not-learn flat same stay plateau",
         {"not_working_aspect": "loss"}, split="val")
    # a validation, test or eval loss that turns NaN is the evaluation pass's ("train and val loss are NaN" names
    # both splits, and is read as the unsplit loss)
    + _c("loss", "nan", {**_NAN, "nan_phase": "evaluation", "nan_onset": "immediate"}, split="val", time="start")
    + _c("loss", "nan", {**_NAN, "nan_phase": "evaluation", "nan_onset": "after_steps"}, split="val", time="later")
    + _c("loss", "nan", {**_NAN, "nan_phase": "evaluation"}, split="val")
    + _c("loss", "nan", {**_NAN, "nan_onset": "immediate"}, time="start", implicit=True)
    + _c("loss", "nan", {**_NAN, "nan_onset": "after_steps"}, time="later", implicit=True)
    + _c("loss", "nan", _NAN, implicit=True)
    + _c("loss", "diverge explode", {"symptom": "unstable", "loss_behavior": "diverging"}, implicit=True)
    + _c("loss", "overfit not-generalize", {"symptom": "overfitting"}, implicit=True)
    + _c("loss", "underfit", _NL, implicit=True)
    + _c("loss", "unstable overflow", {"symptom": "unstable"}, implicit=True)
    + _c("loss", "spike jump up", _EPOCH_JUMP, time="epoch_start", implicit=True)
    + _c("loss", "spike jump", _EPOCH_JUMP, time="each_epoch", implicit=True)
    # a step down as each epoch begins: the model meets examples it has already seen and recognises them
    + _c("loss", "down", {"symptom": "overfitting", "epoch_start_drop": True}, time="epoch_start", implicit=True)
    # a curve that comes back on a fixed interval ("spikes every 500 steps", "at regular intervals"): a cycle of
    # the loop or the data, not random instability
    + _c("loss", "spike jump up", {"symptom": "unstable", "loss_behavior": "spiking", "loss_periodic": True},
         time="periodic", implicit=True)
    + _c("loss", "oscillate", {"symptom": "unstable", "loss_behavior": "oscillating", "loss_periodic": True},
         time="periodic", implicit=True)
    # (a loss judged worse with no shape said is a higher loss: it rises, as "goes up" does)
    + _c("loss", "up worse", {"symptom": "unstable", "loss_behavior": "diverging"}, split="train")
    + _c("loss", "up worse", {"symptom": "unstable", "loss_behavior": "diverging"}, split="none")
    + _c("loss", "spike", {"symptom": "unstable", "loss_behavior": "spiking"}, implicit=True)
    + _c("loss", "jump", {"symptom": "unstable", "loss_behavior": "spiking"}, implicit=True)
    + _c("loss", "oscillate", {"symptom": "unstable", "loss_behavior": "oscillating"}, implicit=True)
    # (said with no quantity, only the words that can only mean a curve: "stuck", "flatlines", "doesn't improve";
    # "identical" or "same" alone may be said of anything)
    + _c("loss", "flatline stuck not-change not-down not-improve not-converge not-learn", _FLAT_START,
         time="start", implicit=True)
    + _c("loss", "flat same stay", _FLAT_START, time="start")
    # (flat over the whole run: it never moved from where it started)
    + _c("loss", "flatline stuck not-change not-down not-improve not-converge not-learn flat same stay", _FLAT_START,
         time="always")
    + _c("loss", "plateau stuck flatline not-down not-improve", _PLATEAU, time="after_learning", implicit=True)
    + _c("loss", "flat stay", _PLATEAU, time="after_learning")
    + _c("loss", "plateau", _PLATEAU, implicit=True)
    + _c("loss", "flatline stuck not-change not-down not-improve not-learn not-converge not-change_verb", _NL,
         implicit=True)
    + _c("loss", "flat", _NL)
    + _c("loss", "freeze", _NL)
    # (a swing around its start or one level, the loss named as its subject)
    + _c("loss", "swing_level", {"not_working_aspect": "loss"}, split="val")
    + _c("loss", "swing_level", _FLAT_START, time="start")
    + _c("loss", "swing_level", _PLATEAU, time="after_learning")
    + _c("loss", "swing_level", _NL)
    + _c("loss", "slow-down slow-improve slow-learn slow-converge slow",
         {"symptom": "not_learning", "loss_behavior": "decreasing_slowly"}, implicit=True)
    + _c("loss", "zero", {"loss_zero_from_start": True}, time="start")
    + _c("loss", "zero", {"loss_zero_from_start": True}, time="always")
    # a loss that was positive and then reads exactly 0: a non-finite step shown as 0, or targets that vanished
    + _c("loss", "zero", {"loss_collapses_zero": True}, time="later")
    + _c("loss", "negative", {"negative_loss": True})
    + _c("loss", "same", _NL, tags=frozenset({"all"}))
    + _c("loss", "nowhere", _NL, implicit=True)
    # a figure judged without its shape: at least which figure is not working
    + _c("loss", "high bad", {"not_working_aspect": "loss"})
    + _c("loss", "weird", {"not_working_aspect": "loss"})
    # --- validation against training ----------------------------------------------------------------------
    + _c("loss", "up worse", {"symptom": "overfitting", "val_loss_rising": True}, split="val")
    # --- accuracy and other metrics -------------------------------------------------------------------------
    + _c("accuracy", "flat flatline stuck not-up not-improve not-change not-increase stay chance not-above_chance",
         {**_NL, "metric_kind": "accuracy"})
    + _c("accuracy", "plateau", {"symptom": "convergence", "metric_kind": "accuracy"})
    # (an accuracy that rises, slowly: the run learns, at a pace the user finds slow; no flat curve, no failure to
    # learn: what is not working is how fast it converges)
    + _c("accuracy", "slow-up slow-improve slow-learn",
         {"not_working_aspect": "convergence_speed", "metric_kind": "accuracy"})
    # (a metric at zero throughout, "F1 is 0.0 for every epoch", "accuracy 0 from the start": it never learned to
    # get one right; a zero said once may be a broken metric or a moment, and stays only a figure that fails)
    + _c("accuracy", "zero", {**_NL, "metric_kind": "accuracy"}, time="each_epoch")
    + _c("accuracy", "zero", {**_NL, "metric_kind": "accuracy"}, time="always")
    + _c("accuracy", "zero", {**_NL, "metric_kind": "accuracy"}, time="start")
    # a held-out accuracy that falls is the model losing what generalised
    # (a fall said to be slow is still a fall: "validation accuracy slowly drops to 69%" is the same loss of what
    # generalised; for a loss, a slow fall is a slow descent, but an accuracy that goes down slowly still goes down)
    + _c("accuracy", "down slow-down worse", {"symptom": "overfitting", "metric_kind": "accuracy"}, split="val")
    + _c("accuracy", "down slow-down worse", {"not_working_aspect": "accuracy"}, split="train")
    + _c("accuracy", "low bad", {"not_working_aspect": "accuracy"})
    + _c("accuracy", "weird", {"not_working_aspect": "accuracy"})
    # (a fall of an accuracy said of no split: which split is unknown, the figure that is not working is)
    + _c("accuracy", "down slow-down worse", {"not_working_aspect": "accuracy"}, split="none")
    + _c("accuracy", "oscillate", {"metric_kind": "accuracy"})
    + _c("reward", "flat flatline stuck not-up not-improve down", {"task": "rl"})
    + _c("recall", "zero", {"class_imbalance": True}, tags=frozenset({"minority"}))
    # --- gradients --------------------------------------------------------------------------------------------
    + _c("grad", "explode huge up", {"symptom": "unstable", "grad_norm_trend": "exploding"})
    + _c("grad_norm", "explode up", {"symptom": "unstable", "grad_norm_trend": "exploding"})
    + _c("grad_norm", "huge", {"grad_norm_trend": "exploding"})
    + _c("grad", "vanish down", {"grad_norm_trend": "vanishing"})
    + _c("grad_norm", "vanish down", {"grad_norm_trend": "vanishing"})
    # (a norm that swings a lot from step to step is a spiky one: "the grad norm fluctuates a lot")
    + _c("grad", "spike jump oscillate", {"grad_norm_trend": "spiky"})
    + _c("grad_norm", "spike jump oscillate", {"grad_norm_trend": "spiky"})
    # a gradient norm logged as exactly 0: every gradient is zero
    + _c("grad_norm", "zero", {"symptom": "not_learning", "step_grads": "zero"}, tags=frozenset({"all"}))
    + _c("grad", "none", {"symptom": "not_learning", "step_grads": "none"})
    + _c("grad", "zero", {"symptom": "not_learning", "step_grads": "zero"}, tags=frozenset({"all"}))
    + _c("grad", "zero", {"grad_norm_trend": "vanishing"}, tags=frozenset({"some"}))
    # (a norm logged as NaN is the gradients', not the loss's: "the loss reads 0.0, grad_norm shows nan"; when it
    # first shows is said of the gradients as of any value, "grads are nan from the first step")
    + [c for q in ("grad", "grad_norm") for c in (
        _c(q, "nan", {"symptom": "unstable", "nan_location": "gradients", "nan_onset": "immediate"}, time="start")
        + _c(q, "nan", {"symptom": "unstable", "nan_location": "gradients", "nan_onset": "after_steps"}, time="later")
        + _c(q, "nan", {"symptom": "unstable", "nan_location": "gradients"}))]
    # --- the inputs -------------------------------------------------------------------------------------------
    + _c("inputs", "nan", {"nan_location": "inputs"})
    # --- where else the first non-finite value shows: the forward pass, the targets, the optimizer's state ----------
    # (outputs that turn NaN name the forward pass as where it is first seen; a NaN found in the inputs, said
    # beside it, is the earlier place and wins as the more specific reading of the same run)
    + _c("predictions", "nan", {**_NAN_FWD, "nan_onset": "immediate"}, time="start")
    + _c("predictions", "nan", {**_NAN_FWD, "nan_onset": "after_steps"}, time="later")
    + _c("predictions", "nan", _NAN_FWD)
    + _c("activations", "nan overflow", {**_NAN_FWD, "nan_onset": "immediate"}, time="start")
    + _c("activations", "nan overflow", {**_NAN_FWD, "nan_onset": "after_steps"}, time="later")
    + _c("activations", "nan overflow", _NAN_FWD)
    + _c("labels", "nan", {"nan_location": "labels"})
    + _c("optimizer_state", "nan", {"symptom": "unstable", "nan_location": "optimizer_state"})
    # --- weights ------------------------------------------------------------------------------------------------
    + _c("weights", "flat flatline same not-change stay not-change_verb stuck",
         {"symptom": "not_learning", "update_ratio": 0.0})
    + _c("weights", "nan", {"symptom": "unstable", "nan_location": "weights", "nan_onset": "immediate"}, time="start")
    + _c("weights", "nan", {"symptom": "unstable", "nan_location": "weights", "nan_onset": "after_steps"},
         time="later")
    + _c("weights", "nan", {"symptom": "unstable", "nan_location": "weights"})
    # --- the learning rate as the user watches it (logged, printed): the LR applied is not the LR set ----------------
    # ("constant", "the same", "not change" are left out: "a constant lr", "kept the lr the same", "I did not change
    # the lr" describe a setting the user chose, not the trace of the LR applied)
    + _c("lr", "flatline stay stuck not-down not-up", {"lr_observed": "stuck"})
    + _c("lr", "not-change not-change_verb", {"lr_observed": "stuck"}, subject=True)
    + _c("lr", "same flat", {"lr_observed": "stuck"}, time="always", subject=True)
    + _c("lr", "zero vanish", {"lr_observed": "near_zero"})
    # (only a rise: "the loss drops slowly at lr 1e-5" puts the manner next to the LR but it is the loss's)
    + _c("lr", "slow-up", {"scheduler_pace": "too_slow"})
    + _c("weights", "explode", {"symptom": "unstable"})
    # --- systems -------------------------------------------------------------------------------------------------
    + _c("memory", "up", {"symptom": "memory_growth"})
    # (a utilisation that falls or swings between busy and idle: the card waits on something, the input most often)
    + _c("gpu_util", "low slow down oscillate", {"symptom": "slow_training"})
    # ("zero GPU util", "GPU-Util is 0"): the card does nothing, the run waits on something else
    + _c("gpu_util", "zero", {"symptom": "slow_training", "gpu_utilization_pct": 0.0})
    + _c("throughput", "low slow down bad", {"symptom": "slow_training", "slow_kind": "per_step"})
    + _c("loss_scale", "vanish zero", {"symptom": "unstable", "loss_scale_issue": True})
    + _c("step_time_weak", "slow", {"symptom": "slow_training", "slow_kind": "per_step"})
    + _c("step_count", "slow", {"symptom": "slow_training", "slow_kind": "many_steps"})
    + _c("run", "slow", {"symptom": "slow_training"})
    + _c("step_time", "slow high up", {"symptom": "slow_training", "slow_kind": "per_step"})
    + _c("epoch_time", "slow high up huge", {"symptom": "slow_training"})
    # (a loading time that grows or spikes is time the step waits on its data)
    + _c("data_time", "slow up high huge spike jump", {"symptom": "slow_training"})
    # (a step time with spikes: some steps stall, the run is slow by them, not each step)
    + _c("step_time", "spike jump", {"symptom": "slow_training"})
    # (stuck at one value: "all predictions stick at 1", "the outputs are stuck at 0.5")
    + _c("predictions", "same flat flatline zero stuck", {"symptom": "not_learning", "predictions_constant": True})
    # predictions no better than a guess: the model has learned nothing
    + _c("predictions", "chance", {"symptom": "not_learning"})
    # the model itself said to guess ("the model is just guessing", "my net is basically a coin flip")
    + _c("model", "chance", {"symptom": "not_learning"})
    + _c("predictions_verb", "same flat flatline", {"symptom": "not_learning", "predictions_constant": True})
    + _c("progress", "stuck hang freeze flat flatline not-change", {"symptom": "hang"})
    + _c("run", "hang", {"symptom": "hang"}, implicit=True)
    + _c("run", "not-progress", {"symptom": "hang"}, implicit=True)
    # "not any faster", "no speedup": the run's speed is the complaint
    + _c("run", "not-fast", {"symptom": "slow_training"}, implicit=True)
    + _c("throughput", "not-fast not-up", {"symptom": "slow_training", "slow_kind": "per_step"})
    # ("it freezes at epoch 3": said of nothing, like a hang, the run's; a person freezing something is no hang)
    + _c("run", "freeze", {"symptom": "hang"}, implicit=True)
    # --- the vague complaint: a model, its results or the run judged bad with no symptom named ("my model is
    # garbage", "results got worse", "training is broken"); a fallback, read only when nothing else is, and it
    # asks the clarifying question rather than guess a symptom
    # results that worsen as training goes on ("the longer I train, the worse the results", "with more epochs the
    # performance gets lower and lower"): the training fit does not worsen with more training, the held-out does
    + _c("results", "worse down", {"symptom": "overfitting"}, time="run_longer")
    + _c("results", "bad worse down low broken wrong", {"vague_query": "performs_poorly"})
    + _c("model", "bad worse broken wrong", {"vague_query": "performs_poorly"})
    + _c("predictions", "bad wrong", {"vague_query": "performs_poorly"})
    + _c("predictions_verb", "bad", {"vague_query": "performs_poorly"})
    + _c("run", "bad worse broken wrong", {"vague_query": "not_working_well"})
    + _c("run", "underperform", {"vague_query": "performs_poorly"}, implicit=True)
    + _c("model", "underperform", {"vague_query": "performs_poorly"})
    + _c("run", "broken", {"vague_query": "not_working_well"}, implicit=True)
    # "training just doesn't work", "nothing works": the vague complaint, said with its negation
    + _c("run", "not-work", {"vague_query": "not_working_well"}, implicit=True)
    + _c("model", "not-work", {"vague_query": "not_working_well"})
)
"""The composition table: the first row that fits a reading states its observations."""

SETTING_VALUES: dict[str, tuple[str, Any]] = {
    "fp32": ("mixed_precision", "none"), "float32": ("mixed_precision", "none"),
    "full precision": ("mixed_precision", "none"), "bf16": ("mixed_precision", "bf16"),
    "bfloat16": ("mixed_precision", "bf16"), "fp16": ("mixed_precision", "fp16"),
    "float16": ("mixed_precision", "fp16"), "half precision": ("mixed_precision", "fp16"),
    "fp8": ("mixed_precision", "fp8"), "adam": ("optimizer", "adam"), "adamw": ("optimizer", "adamw"),
    "sgd": ("optimizer", "sgd"),
}
"""Values of a setting a change names ("from fp32 to bf16"): the after-value is the run's setting."""

_LIBRARIES = ("torch pytorch transformers cuda cudnn library lib package lightning accelerate peft deepspeed timm "
              "diffusers driver trl xformers")
"""Libraries whose update is a change to the run (``FRAMES``)."""
_STEP_UPDATES = "gradient grad weight parameter param optimizer scaler tensor model"
"""What the training step itself updates: an "update" said of them is the step's, not a library's."""

Bind = tuple[int, int | str, int | str]
"""A frame's binding: a word of group ``a`` is said of group ``b``'s word, not of ``c``'s (see ``FRAMES``)."""

_BF16_HARDWARE = ("gpu card hardware device cuda v100 t4 p100 k80 2080ti 1080ti 2080 1080 titan turing pascal volta "
                  "colab kaggle rtx gtx quadro tesla")
"""The hardware a lack of bf16 is said of: without it, a missing bf16 is a log's or the user's, not the card's."""

_ACCUM_NOT_STEPS = ("!sample !example !token !samples/sec !sample/sec !samples/s !tokens/s !tokens/sec !loss "
                    "!accuracy !memory !oom !lr !scheduler")
"""Words that make a drop said beside raised accumulation something other than its step rate (examples or tokens per
second, a curve, memory, the schedule); written as lemmas ("examples" is read as "example")."""
FRAMES: tuple[tuple[tuple[frozenset[str], ...], dict[str, Any], tuple[Bind, ...]], ...] = tuple(
    (tuple(frozenset(g.split()) for g in entry[0]), entry[1], tuple(entry[2]) if len(entry) > 2 else ())
    for entry in (
        # what changed between runs with the same seed, or between evaluations of one model
        (("seed", "different differ vary mismatch reproduce reproducible deterministic nondeterministic match "
          "same-result"), {"nondeterminism": "training_runs"}),
        # (not a run resumed from a checkpoint that goes on differently: that is the resume, not the evaluation)
        # (the difference said of what the evaluation gives, not of what the user varied between tries: "every
        # fine-tune I try, different sizes, ends the same way", nor of weights that training changes: "the weights
        # still change at every step"; "the same weights give different results" is the output's, by its verb)
        # ("three times", "not deterministic": the repetition counted, the determinism denied; "it is deterministic"
        # said plainly is the evaluation working as it should)
        (("evaluate evaluation eval checkpoint", "twice again same every each time", "different differ vary change "
          "nondeterministic ~reproducible ~deterministic", "!resume"), {"nondeterminism": "evaluation"},
         ((2, "output result prediction metric score accuracy acc loss number value logit answer evaluate evaluation "
              "eval checkpoint give get produce return yield predict", "size dataset setting config configuration "
              "gpu lr rate batch type version weight parameter param llm method"),)),
        # the evaluation itself said not to be deterministic ("evaluating one checkpoint is not deterministic"): not
        # the training runs', whose seeds are another frame's
        (("evaluate evaluation eval", "~deterministic ~reproducible nondeterministic", "!resume !train !training "
          "!seed"), {"nondeterminism": "evaluation"}),
        # memory a finished part of the run never gives back ("the memory of the previous fold is not freed", "GPU
        # memory is never released between trials"): what each part leaves adds up, a leak
        (("memory vram ram", "~free ~release ~reclaim"), {"symptom": "memory_growth"}),
        # logging that loses points (not a run that hangs, whose silence is no log at all: "the program hangs, no
        # crash no log")
        (("log wandb tensorboard mlflow dashboard plot curve metric point epoch step", "miss missing gap hole "
          "disappear ~log ~show partial subset", "!hang !freeze !deadlock !stuck"),
         {"metrics_dropped": True}),
        (("log print report plot curve", "loss", "accumulation accum accumulate gradient_accumulation_steps "
          "accum_steps", "divide scale small smaller shrink factor lower"), {"logged_loss": "scaled_by_accum"}),
        # the loss's size said to follow the accumulation setting ("the loss grows as I raise
        # gradient_accumulation_steps", "the loss is 4x higher with accumulation"): the scale, not the run, moves
        (("loss", "accumulation accum accumulate gradient_accumulation_steps accum_steps", "raise increase higher "
          "larger bigger proportional proportionally", "!nan !memory !oom !vram !speed "
          "!slow !fast"), {"logged_loss": "scaled_by_accum"}),
        # train and evaluation preprocessing that differ
        (("preprocess preprocessing normalize normalization transform tokenization resize preprocessed "
          "normalized", "train training", "val validation test eval evaluation inference",
          "different differently match mismatch ~normalized ~preprocessed but"), {"preprocessing_mismatch": True}),
        # one side said to skip the step the other takes ("training uses the imagenet normalization and the
        # inference code doesn't normalize", "trained on normalized inputs but predict on raw images"); not the
        # targets' scale, which is the loss's concern (targets_unscaled); nor raw inputs normalized "the same way for
        # training and validation", which is the two sides agreeing
        (("normalize normalization normalized preprocess preprocessing preprocessed", "train training",
          "val validation test eval evaluation inference predict deploy deployment production",
          "~normalize ~normalization ~preprocess ~preprocessing raw", "!target !label !y !should !how !whether "
          "!same !both !identical !consistent !consistently"),
         {"preprocessing_mismatch": True}),
        # the same held-out images scored outside the validation loop do better ("evaluating the val images by
        # hand gives much better results", "predicting the test images one by one they come out right"): the
        # model has learned; what the loop feeds it differs from what training fed it
        # (the scoring named: images checked or labelled by hand are the user's look at the data, not the model's)
        (("hand manually manual individually one-by-one", "val validation test held-out", "image sample example "
          "picture", "evaluate evaluation predict prediction infer inference classify score", "better higher "
          "correct right", "!worse !label !labeled !labelled"), {"preprocessing_mismatch": True}),
        # the training's random augmentation said to reach the validation data as well ("the validation images get
        # augmented too", "augmentation is also applied to my val set", "val accuracy is measured on augmented
        # images"): the augmenting word said of the held-out data, not of training ("augment the training set, keep
        # the validation set clean" is the right pipeline), and said plainly ("val is not augmented" is fine); an
        # augmentation that merely accompanies a held-out symptom ("val loss rises even with heavy augmentation")
        # names no held-out data it is applied to; test-time augmentation (TTA, averaged predictions) is meant, and
        # augmented copies that land on both sides of a split are a leak (val_in_train), not this
        (("augment augmentation", "val validation eval evaluation test held-out", "image set data sample split "
          "example picture img subset dataset", "too also apply same share inherit measure score compute",
          "!only !clean !even !despite !though !although !without !should !whether !how !want !train_accuracy "
          "!tta !test-time !inference !average !ensemble !copy !duplicate"),
         {"eval_augmented": True}, ((0, 1, "train training"),)),
        # (the random transforms named instead of the word: "the validation images get random crop/flip too")
        (("random", "val validation eval evaluation test held-out", "image set data sample split example picture img "
          "subset dataset", "crop flip jitter rotation rotate erase erasing", "too also",
          "!only !clean !even !despite !without !should !whether !how !want !seed !tta !test-time !inference "
          "!average !ensemble !copy !duplicate"),
         {"eval_augmented": True}, ((0, 1, "train training"),)),
        # the metric that early stopping or checkpointing watches is not there when it looks ("the monitored
        # metric val_loss is not available", "the callback can't find 'val_f1'", "the monitor key is missing")
        (("monitor earlystopping modelcheckpoint callback", "metric key quantity val_loss val_acc val_f1 value",
          "~available ~present ~find missing ~exist ~there ~log ~return absent", "!should !how !want"),
         {"monitor_mode": "unavailable"}),
        (("earlystopping modelcheckpoint callback monitor", "~find ~available ~present missing", "!file !path "
          "!checkpoint_path !directory !dir !folder !should !how"), {"monitor_mode": "unavailable"}),
        # checkpoint selection or early stopping in the wrong direction
        # ("max" of the metric's mode, not of a length: "raised max_epochs and resumed from the checkpoint" is read
        # as "max epochs", and a run continued from a checkpoint is not a checkpoint being selected)
        (("early earlystopping checkpoint modelcheckpoint best save", "max highest", "loss val_loss",
          "!resume !resuming !continue !maximum"), {"monitor_mode": "wrong_direction"}),
        (("early earlystopping checkpoint modelcheckpoint best save", "min lowest", "accuracy"),
         {"monitor_mode": "wrong_direction"}),
        (("checkpoint best", "worst"), {"monitor_mode": "wrong_direction"}),
        # the monitored metric absent where the callback checks it ("early stopping runs where the monitored metric
        # hasn't been logged yet", "ModelCheckpoint can't find the monitored key")
        (("monitor", "early earlystopping stop checkpoint modelcheckpoint callback", "~log ~exist ~available "
          "~find ~compute missing unavailable"), {"monitor_mode": "unavailable"}),
        # early stopping that fires while the validation loss still improves
        (("early earlystopping", "stop", "although while though when but", "loss", "still", "decrease improve down "
          "drop fall"), {"monitor_mode": "wrong_direction"}),
        # what changed just before the trouble began (the differential's DF-CHG-* rows): a library upgrade, a version
        # or an older commit that trained, precision switched on, a resume (not a change the user only considers)
        (("upgrade downgrade", "!should !want !plan !whether !worth !consider !considering !planning"),
         {"recent_change": "library_upgrade"}),
        (("version commit release", "old older previous early last", "fine work ok okay normal train normally"),
         {"recent_change": "library_upgrade"}),
        (("version", "fine work ok okay normally", "but however whereas while"), {"recent_change": "library_upgrade"}),
        # a library updated by name ("since I updated transformers", "bumped lightning"): the change word said of the
        # library, not of the training step's own updates ("gradient updates", "the optimizer's last update()")
        (("update upgrade bump", _LIBRARIES, "!should !want !whether !worth !consider !considering !planning !plan "
          "!how !if"), {"recent_change": "library_upgrade"}, ((0, 1, _STEP_UPDATES),)),
        # a newer release named as such ("the newer torch version", "latest lightning release"; not "new to DDP")
        (("new late", _LIBRARIES, "version release", "!should !want !whether !worth !consider !considering !planning "
          "!plan !how !if"), {"recent_change": "library_upgrade"}),
        # the input pipeline changed just before the trouble ("since I rewrote the preprocessing the loss is stuck")
        (("change switch replace rewrite refactor modify move new swap", "pipeline dataloader loader preprocessing "
          "preprocess augmentation dataset loading shard webdataset tfrecord parquet", "since after now once worse "
          "break broken drop stop lower fall different", "!should !want !whether !worth !consider !considering "
          # (a time of the loader's said beside the change words is its speed, "dataloader time spikes since
          # switching to fp16", "loading data spikes every time a new epoch starts": no pipeline changed)
          "!planning !plan !how !if !faster !speed !slow !worker !num_workers !throughput !time"),
         {"recent_change": "data_pipeline"}),
        # more (or fewer) GPUs than the run was tuned on, and worse results since ("went from 1 GPU to 8, accuracy is
        # worse"): not a speed complaint, which is the devices' own
        # ("moving" is as often a statistic's name, "Moving average ignored a value of inf on 4 GPUs": no move)
        (("gpu card node", "from add scale move switch increase much", "worse lower drop accuracy accurate loss "
          "converge result", "!faster !speed !speedup !slow !time !throughput !hang !stuck !freeze !oom "
          # (the devices' use is no count of them: "GPU util drops from the first step")
          "!memory !should !want !how !whether !moving_average !util !utilization !usage"),
         {"recent_change": "gpu_count", "world_size_changed": True, "multi_gpu": True},
         # (the move or start said of the devices, not of data put on one or a model begun anew: "I moved the data
         # to the GPU", "GPT-2 from scratch on 4 GPUs")
         ((1, "gpu card node", "scratch data tensor input batch dataset label target"),)),
        # the LR left as it was when the GPU count changed ("moved from 1 gpu to 8, kept the same learning rate",
        # "scaled to four nodes but left the lr unchanged", "didn't touch the learning rate"): the global batch grew,
        # the LR was not rescaled for it; the sameness said of the LR, not of the batch or the config beside it
        (("gpu node card", "from much move switch scale go add ->", "lr rate", "same unchanged ~touch ~adjust "
          "~scale ~rescale ~change ~modify ~increase ~raise", "!should !would !whether !how !if !error !sample "
          "!frame !success"),
         {"lr_world_scaling": "unchanged", "world_size_changed": True, "multi_gpu": True},
         ((3, 2, "batch config configuration hyperparameter hparam setting seed data dataset code"),)),
        # (any reduced format: fp16's trouble is its range, bf16's its 8-bit mantissa; the differential tells the
        # two apart by the format read beside the change, DF-CHG-PREC against DF-CHG-PREC-BF16)
        # ("by half" is a fraction, not the format: "throughput fell by half after enabling checkpointing")
        (("switch move enable turn", "fp16 amp autocast half float16 bf16 bfloat16",
          "since after when once now before_now",
          "!should !want !whether !worth !consider !checkpointing"), {"recent_change": "precision"}),
        # a finished run continued for more epochs or steps than planned ("raised the max epochs and continued
        # training", "resumed for 6 more epochs"): the run's length changed, not only its state (before the resume
        # frames: the first frame read for a name in a sentence stands)
        # (keys are lemmas: "more" is read as "much")
        (("raise increase extend much add bump", "epoch max_epochs num_epochs max_epoch step max_steps iteration",
          "continue resume resuming restart", "!should !want !whether !how !if !plan !planning !later"),
         {"recent_change": "extended"}),
        # (the run's length said changed without a resume word: "extended training by another 20k steps", "kept
        # training longer after the schedule ended"; "30 more epochs on top of a finished run" is a cue in
        # knowledge.keywords, its words being too common for a frame: "a much higher loss than at the epoch's end")
        (("extend", "training train run epoch step iteration", "!should !want !whether !how !if !plan !planning "
          "!later !dataset !data !vocabulary !vocab !context !sequence !window !model"), {"recent_change": "extended"}),
        (("keep continue", "train training", "long", "!should !want !whether !how !if !take !slow !time"),
         {"recent_change": "extended"}),
        (("continue keep train training", "past beyond", "end plan finish schedule max_epochs",
          "!should !want !whether !how !if !later"), {"recent_change": "extended"}),
        (("resume resuming", "since after when once checkpoint ckpt from training train run", "!should !want "
          "!whether !how !can !could !possible !able !support !supported"),
         {"recent_change": "resume"}),
        # (a restart the trouble came after: "after the restart, loss is back to 2.3", "restarted: loss spikes";
        # not one from scratch, a new run, nor a notebook's kernel or a machine's reboot said alone)
        (("restart restarting", "after since once", "!should !want !whether !how !can !could !possible !scratch "
          "!random !fresh !new !pretrained !kernel !notebook !jupyter !colab !computer !pc !machine !laptop !warm "
          "!sgdr !cosine !cycle !cyclic !schedule !scheduler !period"),
         {"recent_change": "resume"}),
        # (the run restarted or continued from where a checkpoint left it: "restarting the run from my last
        # checkpoint", "continuing training from ckpt"; not one loaded for inference or fine-tuning elsewhere)
        # (or from what a checkpoint holds: "restart training from the epoch 20 weights", "continuing from a saved
        # model"; not from random or pretrained weights, a new run)
        (("restart continue reload pick_up", "from", "checkpoint ckpt save weight epoch", "!should !want !whether !how "
          "!can !could !inference !finetune !fine-tune !pretrained !random !scratch !base"),
         {"recent_change": "resume"}),
        # (a checkpoint loaded and the training carried on: "after loading my checkpoint and continuing")
        (("load loading reload restore", "checkpoint ckpt", "continue resume", "!should !want !whether "
          "!how !can !could !inference !finetune !fine-tune !pretrained"), {"recent_change": "resume"}),
        # a run continued from a checkpoint ("restarted from the last checkpoint", "continue training from
        # checkpoint", "reloaded it after a crash"): a resume, not a checkpoint that fails to load
        (("resume restart reload restore continue load loading", "checkpoint ckpt crash epoch state",
          "again back reset initial start beginning over forget top", "!should !want !whether !how !fail !error "
          "!missing !unexpected !mismatch !later !warm !sgdr"), {"recent_change": "resume"}),
        (("resume", "at from", "epoch step iteration", "!should !want !whether !how !later"),
         {"recent_change": "resume"}),
        # what the run does right after a checkpoint is restored ("the loss spikes after restoring checkpoints", "loss
        # jumps after loading the checkpoint"): the run resumed from it; not a checkpoint loaded to evaluate, to
        # fine-tune elsewhere, or one that fails to load
        (("restore reload load loading", "checkpoint ckpt", "after since once",
          "!should !want !whether !how !can !could !inference !finetune !fine-tune !pretrained !eval !evaluate "
          "!evaluation !test !predict !prediction !fail !error !missing !unexpected !mismatch !accuracy !acc"),
         {"recent_change": "resume"}),
        # a run that was stopped, taken up again ("continuing a stopped run", "resuming the interrupted job", "I
        # restart a preempted training"): the taking up said of the run, not of a curve going on until a stop ("the
        # loss continues to drop until I stop training")
        (("resume continue restart", INTERRUPTION_WORDS, RUN_NOUNS,
          "!should !want !whether !how !can !could !possible"), {"recent_change": "resume"},
         ((0, 2, "loss accuracy acc metric lr rate gradient grad norm memory speed"),)),
        # the tracker's step axis starting over after a resume ("the step counter restarts", "the x axis of the logs
        # restarts at zero", "the logger thinks it's epoch 0 again"): the logging's step, not the run's state
        (("counter global_step axis x-axis logger", "restart reset zero 0 again backward", "resume resuming "
          "continue checkpoint ckpt", "!should !want !whether !how !loss !lr !rate"),
         {"symptom": "experiment_tracking"}),
        # a setting the user changed just before the trouble ("since I doubled the batch size it diverges",
        # "accuracy dropped after I changed the lr"): the change, not one weighed or planned, nor one that fixed it
        (("change switch increase double raise bump halve reduce decrease lower", "batch", "since after once now "
          "before_now",
          "!should !want !whether !worth !consider !considering !planning !plan !would !could !try !how !if "
          "!rate !lr !stable !fix !solve !help !resolve !step_count"), {"recent_change": "batch_size"}),
        # (a raise only: DF-CHG-LR reads a raised LR; a lowered one is ``lower_lr_stable``'s, and an LR "changed"
        # says no way and is left to the question)
        (("increase double raise bump triple quadruple", "lr rate",
          "since after once now before_now", "!should !want !whether !worth !consider !considering !planning !plan "
          "!would !could !try !how !if !batch !schedule !scheduler !warmup !decay !epoch !plateau !stable !fix !solve "
          "!help !resolve"),
         {"recent_change": "learning_rate"}),
        # a stock config (tuned for its authors' GPU count) run on fewer GPUs: the world changed and the config's
        # LR was used as it stands, unscaled for the smaller global batch
        (("stock default original provided official reference", "config configuration cfg yaml",
          "one two single 1 2 few less", "gpu", "!scale !rescale !adjust"),
         {"world_size_changed": True, "lr_world_scaling": "unchanged"}),
        # several classes on at once for one example ("each image can belong to several classes")
        (("several multiple", "class label tag category", "once same per each sample example image row",
          "!gpu !node !worker !loss !run !seed"), {"target_kind": "multi_hot"}),
        # labels said to be "multi-target" (several classes per example; not the error message of that name, which
        # also comes from one-hot rows and from an extra target dimension)
        (("multi multi-target multitarget", "target multi-target multitarget", "label",
          "!support !supported !regression !continuous !class !multi-class !multiclass !gpu !task !node"),
         {"target_kind": "multi_hot"}),
        # the model's own parameters cast to half precision ("model.half()", "I cast the model to fp16"): not autocast,
        # which keeps them in fp32
        (("half fp16 float16", "model network net weight parameter param", "convert cast put use",
          "!autocast !amp !scaler !gradscaler !mixed !bf16 !bfloat16 !input !image"),
         {"weights_dtype": "fp16"}),
        # a curve that repeats on a fixed period (not spikes at random steps)
        (("periodic cyclic cyclical sawtooth", "spike oscillate swing jump fluctuate pattern loss "
          "metric curve", "!schedule !scheduler !restart"), {"loss_periodic": True}),
        (("period", "fix regular regularly same constant", "spike oscillate swing jump fluctuate loss curve",
          "!schedule !scheduler !restart"), {"loss_periodic": True}),
        # spikes said to be regular ("my training loss has regular spikes"): a period, even unnamed (the adverb
        # "regularly" is often, not on a fixed period: "the loss regularly jumps around")
        # ("regular" said of the spikes or their intervals, not of the run's setup: "with regular fp32 training the
        # loss spikes once", "a regular ResNet-50 whose loss jumps to nan" name no period)
        (("regular", "spike jump swing", "loss curve metric", "!schedule !scheduler !restart !irregular !regularly"),
         {"loss_periodic": True},
         ((0, "spike jump swing interval", "run model network net resnet architecture optimizer "
              "adam adamw sgd setup data dataset batch precision fp32 fp16 bf16 amp transformer cnn pipeline code "
              "script version init initialization gpu machine"),)),
        # the curve said to repeat its shape ("the loss curve repeats the same bump pattern again and again"): a
        # swing with a period, not a flat curve (its "same" is the pattern's)
        (("repeat", "pattern bump shape cycle wave", "loss curve metric", "!schedule !scheduler !restart !token "
          "!word !phrase !util !utilization !gpu !memory"), {"loss_periodic": True, "symptom": "unstable"}),
        # clipping gradients the GradScaler has not unscaled yet
        (("clip clipping", "unscale", "before without ~unscale no missing skip"), {"clip_order": "before_unscale"}),
        # (the gradients said to be still scaled when clipped: "I clip the still scaled grads")
        (("clip clipping", "still", "scale"), {"clip_order": "before_unscale", "grad_scaler": True}),
        # a usual clip threshold that stops an AMP run dead ("with AMP, clip 1.0 effectively halts training"): the
        # norm clipped is the loss-scaled one (without AMP a halting clip is only a tight one, so AMP is required)
        # (halting or freezing the training, not a run that stops at some epoch with an error)
        # (what halts is the learning: "training", "the loss", "the updates"; a frozen machine, GPU or screen is a
        # hang of the system, no clipped norm)
        (("clip clipping clip_grad_norm clip_grad_scale max_norm gradient_clip_val", "halt freeze",
          "amp fp16 float16 gradscaler scaler autocast mixed", "train training learn learning loss update progress "
          "weight", "!unscale !bf16 !bfloat16 !oom !error !crash !hang !epoch !memory !machine "
          "!gpu !computer !system !process !script !screen !pc !laptop !server !node !display !desktop"),
         {"clip_order": "before_unscale", "grad_clipping": True}),
        # a weighted loss term whose weight changes nothing (not the model's weights or the LR)
        (("weight coefficient beta lambda alpha factor w", "loss term part component", "inert same "
          "identical", "!lr !rate !decay !lora"), {"loss_term_inert": True}),
        (("weight coefficient beta lambda alpha factor", "loss term", "whatever regardless", "same identical nothing "
          "~effect ~change ~difference ~affect", "!lr !rate"), {"loss_term_inert": True}),
        # a schedule set that does nothing to the LR ("the scheduler seems to do nothing", "milestones have no effect")
        (("scheduler milestone", "inert", "!loss !accuracy !acc !metric !result !curve !try"),
         {"lr_observed": "stuck"}),
        (("weight coefficient beta lambda alpha factor", "loss term", "~effect ~difference ~affect", "change vary "
          "set", "!lr !rate"), {"loss_term_inert": True}),
        # weights found at their initial values after training: no step reached them
        (("weight parameter param", "initial init", "still exactly remain stay equal unchanged", "after end "
          "training", "!lr !rate !load !pretrained !checkpoint"), {"update_ratio": 0.0, "symptom": "not_learning"}),
        # a reference implementation that trains: plain PyTorch, the original repo, the non-framework script
        (("plain vanilla pure original reference", "pytorch torch loop implementation repo code script version",
          "converge work train learn reach fine", "!slow !fast !speed !memory"),
         {"reference_works": True}),
        (("non", "while whereas but", "converge work train learn reach fine", "!slow !fast !speed "
          "!memory"), {"reference_works": True}),
        # an attention mask that leaves a row with nothing to attend to
        (("attention_mask mask", "all entirely fully only", "zero 0 padding pad", "!not"),
         {"attention_mask_empty": True}),
        # a figure the trainer reports against the user's own scoring of the same model ("the training log says 60%
        # test accuracy, but when I run the model myself only 27 of 7000 are right"): the two measure differently
        # (the class numbering, the preprocessing), not a model that learned nothing
        (("myself own manually manual separately", "run evaluate evaluation eval inference test predict compare score "
          "script",
          "report log show say print display output trainer", "accuracy acc metric right correct score",
          # (a disagreement between the two: one figure of one's own script is no metric gone wrong, "I wrote my
          # own evaluation script, the accuracy printed is 90%")
          "but whereas while only differ different difference mismatch disagree inconsistent ~match ~agree "
          "~same ~consistent", "!should !how !whether !want"), {"symptom": "metrics_wrong"}),
        # class ids numbered by the order of folders or names rather than by what they name ("the classes are
        # assigned by folder order, not by folder name", "ImageFolder sorted my numeric folders as strings")
        # (the order said to mismatch: sorted as strings, "10" before "2", another order at evaluation or on
        # another split, the user's own evaluation; folders read in order as ImageFolder does is no defect by itself)
        (("folder directory subfolder dir", "order sort alphabetical alphabetically lexicographic lexicographically "
          "string", "class label index id category", "string lexicographic lexicographically 10 before "
          "mismatch differ different differently wrong swap inconsistent instead eval evaluation "
          "inference test validation val own ~name ~match ~same ~consistent ~correspond",
          "!should !how !whether !want"),
         {"label_check": "class_order"}),
        # a piece of the loop's code added just before the trouble ("I added a scheduler and now the loss doesn't
        # come down", "since I implemented gradient accumulation it stopped learning"): the loop was edited (not a
        # remedy tried or weighed: "should I add a scheduler?", "adding a scheduler didn't help"; nor an edit said to
        # go well: "I added a discriminator and now training is stable", "now the loss goes down nicely")
        (("add introduce implement insert wire", "scheduler accumulation optimizer discriminator", "now since after "
          "when then", "!should !how !whether !want !could !would !help !fix !solve !try !recommend !need !better "
          "!improve !=fine !=nicely !=nice !=stable !=smooth !=smoothly !=work !=well !=good !=great"),
         {"recent_change": "training_loop"}),
        # an instability said to come early ("after a short while the loss explodes", "it diverges early on", "the
        # loss spikes right after the warmup"): the step is largest when the LR first reaches its peak
        (("loss run training it", "explode diverge spike blow jump", "early soon shortly", "!late !later !end"),
         {"unstable_early": True}),
        (("loss run training it", "explode diverge spike blow jump", "short", "while", "!late !later"),
         {"unstable_early": True}),
        # (the run by another name, "my pretraining spikes"; instability in other words, "goes crazy", "goes
        # unstable"; the warmup's end said as done or as the LR reaching its peak)
        (("loss run training it pretraining pretrain finetune", "explode diverge spike blow jump unstable crazy "
          "haywire", "warmup warm-up", "during after end finish peak", "!late !later !without !no !~warmup"),
         {"unstable_early": True}),
        # a spike the run recovers from by itself ("it jumps up, then comes back down", "spikes and recovers"), said
        # plainly ("it never comes back down" is a lasting divergence)
        (("loss spike jump", "spike jump rise shoot surge up", "=back =recover =recovers =recovered =return",
          "=down =normal =recover =recovers =recovered =drop =fall"), {"spike_recovers": True}),
        # the training and the validation loss jumping together ("both train and val loss spike"): the weights were
        # thrown off (not a validation loss rising while the training loss falls: overfitting; nor one set against
        # the other, "val loss higher than train and rising": a gap that widens)
        (("train training", "val validation eval", "spike jump rise shoot surge explode", "both and too also together "
          "same", "!while !whereas !but !decrease !fall !improve !overfit !gap !than"),
         {"val_spikes_with_train": True}),
        # clipping that is set and never acts ("clipping doesn't do anything", "gradient_clip_val=... not clipped")
        (("clip clipping", "~anything ~effect ~cap ~apply ~work ~kick ignore inert"), {"clip_ineffective": True}),
        # clipping set, and the norm it should cap still large ("clip at 1.0 but the grad norm is still 300")
        # (not the run clipping fails to save: "gradient clipping doesn't stop it, it still explodes" is clipping
        # that acts and a divergence it cannot prevent, the LR's or warmup's, not a clip that never engages)
        (("clip clipping", "still even", "norm grad gradient", "huge large high big above exceed explode "
          "past beyond way"), {"clip_ineffective": True}, ((3, 2, "loss lr weight it training run model"),)),
        # clipping said to be on and said not to clip ("my grad clipping isn't clipping")
        (("=clip =clipping", "~clip ~clipping ~cap"), {"clip_ineffective": True}),
        (("~clip", "val max"), {"clip_ineffective": True}),
        # the LR as logged or printed, against the schedule set: a plot of it that does not move, one that falls to
        # 0, a schedule expected to move it that does not (not the loss or a metric said to stay the same)
        (("tensorboard wandb log plot chart graph print display monitor", "lr rate", "constant same "
          "flat unchanged", "!loss !accuracy !acc !metric"), {"lr_observed": "stuck"}),
        (("lr rate scheduler schedule", "should expect supposed but however", "same constant unchanged "
          "~change ~update ~decay ~decrease ~drop", "!loss !accuracy !acc !metric !try !lower !higher"),
         {"lr_observed": "stuck"}),
        # (the fall is the LR's: in "Adam(lr=1e-3, weight_decay=0)" the decay is the weights')
        # (the fall said plainly: "the lr never reaches zero" denies it; a decay to 0 with no time said, "lr decays
        # to 0", is the shape a schedule is given, and the compositions claim it first)
        (("lr rate", "=fall =drop =decay =reach =shrink", "0 zero 0.0", "!accuracy !acc"),
         {"lr_observed": "near_zero"}, ((1, 0, "weight"),)),
        # the LR seen going back to where it began, mid-run ("the learning rate is reset to 0.01 at the first epoch
        # after resuming", "the lr went back to its starting value"): the schedule started over (not a reset the user
        # asks how to do, nor a warm-restart schedule chosen on purpose)
        (("lr rate", "reset", "!should !want !how !whether !restart !warm !cosineannealingwarmrestarts !sgdr"),
         {"lr_observed": "reset"}),
        (("lr rate", "back again", "initial start original beginning", "!should !want !how !whether "
          "!warm !sgdr"), {"lr_observed": "reset"}),
        (("lr rate schedule scheduler", "start restart begin", "over anew scratch again top", "!should !want !how "
          "!whether !warm !sgdr"), {"lr_observed": "reset"}),
        # a training step that hands the trainer nothing ("my training_step returned nothing", "training_step
        # returns None"): no loss reaches the optimizer (a question about what to return is not the step's trace)
        (("training_step", "return", "nothing none", "!should !must !need !how !what !whether"),
         {"trainer_loss": "missing"}),
        # (the same said as a return that is not there: "training_step has no return statement", "ends with
        # self.log(...) but no return", "I forgot the return in training_step")
        (("training_step", "~return", "!should !must !need !how !what !whether !to !back"),
         {"trainer_loss": "missing"}),
        (("training_step", "forget miss", "return", "!should !must !need !how !what !whether"),
         {"trainer_loss": "missing"}),
        # (what the step hands back is something else than the loss: "training_step gives back only the logits",
        # "returns a dict with key 'train_loss' instead of 'loss'"; Lightning minimises only a tensor or the value
        # under the key 'loss')
        (("training_step", "return give", "logit output prediction dict dictionary", "only just instead ~loss",
          "!should !must !need !how !what !whether"), {"trainer_loss": "missing"}),
        # a Trainer that gets no loss from the model ("the model did not return a loss", "no loss was returned",
        # "returns only logits, there is no label key in the batch"): without labels a Hugging Face model computes
        # none (not a loss that "does not return" to an earlier level)
        (("trainer training_step", "~return", "loss", "!to !back !level !previous !normal !before"),
         {"trainer_loss": "missing"}),
        (("trainer training_step", "return give output", "only just", "logit", "!should !how !what !whether"),
         {"trainer_loss": "missing"}),
        (("trainer", "~label", "batch dataset key input column", "!smoothing !noise !noisy !balance !imbalance"),
         {"trainer_loss": "missing"}),
        # a schedule that only moves at epoch ends where a per-step schedule was meant (not a remedy tried on the
        # LR that "only delays" or "just postpones" the trouble by some epochs: the change is the user's)
        (("scheduler schedule lr rate", "only just", "epoch", "change update adjust step decay",
          "!delay !postpone"), {"scheduler_pace": "too_slow"}),
        # --- how the data reaches each process (the distributed rows DD-DATA, DD-EPOCH, DD-UNEVEN) ---
        # (words in their base forms: the lemmatiser brings the plurals; a plural listed here would become a lemma
        # of its own and hide the base form elsewhere)
        # every process given the same batches ("each rank sees the same data", "all GPUs get identical batches"): the
        # sameness is the anchor, said plainly ("the ranks don't see the same data" states nothing)
        (("same identical", "rank ranks process gpu device worker node replica", "batch minibatch data sample "
          "example id index", "!order !epoch !number !count !size !length !speed !time !result !loss "
          "!accuracy !seed !lr !rate !model !weight !parameter"), {"rank_data": "identical"}),
        # ... or by the loss every process logs, the same to the digit on each ("all 4 processes print the same loss
        # at every step", "rank 0 and rank 1 log identical loss values"): only identical batches give that; said of
        # the ranks (processes), not of GPU counts compared ("the same loss with 1 and 4 GPUs" compares runs), nor a
        # loss reduced across ranks before it is logged ("all_reduce it before logging": the same by construction)
        (("identical same", "loss", "rank ranks process", "!order !speed !time !seed !lr !rate !single !one !count "
          "!number !curve !run !all_reduce !allreduce !all-reduce !reduce !average !mean"),
         {"rank_data": "identical"}),
        # the same order of the data every epoch ("the data order repeats each epoch", "not reshuffled between
        # epochs", "the same batches epoch after epoch")
        # (not an order of augmentations or transforms, which is a setting, nor said beside a healthy curve)
        (("same identical repeat", "order sequence permutation", "epoch", "!speed !time !loss !accuracy !number "
          "!count !size !augmentation !augment !transform !transformation !fine !good !healthy"),
         {"epoch_data_order": "repeated"}),
        # (a curve named beside it, the sameness bound to the order and not to the curve: "the sampler yields the same
        # sequence of samples every epoch, so the loss curve repeats itself")
        (("same identical", "order sequence permutation", "epoch", "!speed !time !number !count !size !should !how "
          "!whether !augmentation !augment !transform !transformation !fine !good !healthy"),
         {"epoch_data_order": "repeated"}, ((0, 1, "loss accuracy acc metric curve value"),)),
        (("same identical exact", "batch sample example image", "epoch", "!size !number !count !loss !accuracy "
          "!time !speed !rank !ranks !process !gpu !logit !output !prediction !predict"),
         {"epoch_data_order": "repeated"}, ((0, 1, "logit output prediction predict"),)),
        (("~reshuffle ~shuffle", "epoch", "!should !want !how !whether"), {"epoch_data_order": "repeated"}),
        # processes that run out of batches at different times ("the ranks have a different number of batches",
        # "uneven shards per GPU"): the one left waits in a collective no other process joins
        # (one process said to run out before the others: "rank 1 has fewer batches than the others", "one process
        # finishes its batches earlier than the rest")
        # (a loader's workers are no ranks: they split one process's batches)
        (("rank ranks process gpu", "batch step iteration", "few much less early soon late later extra",
          "other others rest another", "!speed !throughput !memory !oom !lr !rate !loss !accuracy !class !label !fast "
          "!slow !time"), {"rank_batch_counts": "uneven"}),
        (("rank ranks process gpu shard node", "number count length size len", "batch step iteration sample "
          "shard data", "differ different uneven unequal ~same ~equal", "!speed !throughput !memory !oom !lr !rate "
          "!loss !accuracy !class !label"), {"rank_batch_counts": "uneven"}),
        (("uneven unequal", "batch shard data input split rank ranks", "!class !label !memory"),
         {"rank_batch_counts": "uneven"}),
        # DDP's search for unused parameters switched on ("find_unused_parameters=True",
        # "ddp_find_unused_parameters_true"); not DDP's error that suggests it ("Expected to have finished
        # reduction ...": its words of a reduction not finished, not "expected", which a user's "slower than
        # expected" says too)
        (("find", "unused", "parameter param", "true enable turn pass set use add always", "!false !reduction "
          "!finish"), {"ddp_find_unused": True}),
        # --- the data and its targets ---
        # held-out examples that also sit in the training data, said as duplicates across the split ("the test rows
        # are duplicates of training rows", "duplicates across my train and test split"): not the oversampling that
        # duplicates training examples on purpose, nor a distributed sampler padding one split's shards
        (("duplicate", "train training", "val validation test held-out holdout", "!oversample !oversampling "
          "!upsample !upsampling !sampler !distributedsampler !rank !gpu !pad !padding !process"),
         {"val_in_train": True}),
        # ... or as the same items found in both splits ("the same images are in both train and val", "the same
        # patients appear in train and validation", "copies of one photo ended up in both"): the sameness said of
        # examples, not of settings or figures the two splits share ("the same augmentations for images in both
        # train and val" is a setting); said plainly ("the same images never appear in both" denies the leak), not
        # asked ("does the same image appear in both?", "how do I check whether ...", "is it possible that ...")
        (("same identical near-identical", "image photo picture sample example row patient frame record item file "
          "sentence document clip copy", "train training", "val validation test held-out holdout",
          "=both =also =appear =end =land",
          "!size !shape !resolution !preprocessing !preprocess !transform !normalization !normalize !distribution "
          "!augmentation !augment !order !seed !sampler !rank !gpu !should !how !whether !possible !do"),
         {"val_in_train": True}),
        # a dataset with no length where the number of steps is needed ("IterableDataset has no len()", "streaming
        # dataset, the scheduler needs the total steps")
        (("iterabledataset iterable stream streaming webdataset", "len length max step total number", "!speed !slow "
          "!fast !memory !hang !worker !duplicate !token"), {"data_length_unknown": True}),
        (("dataset data loader dataloader iterabledataset", "~len ~length unknown", "!token !pad !padding "
          "!max_length !context !shape"), {"data_length_unknown": True}),
        # inputs and labels no longer paired ("the labels don't match their images", "shuffled X and y separately");
        # not a shape, size or dtype that differs between output and target
        # (segmentation masks and annotations are labels too: "the images and masks don't line up"; an attention or
        # padding mask is not)
        (("label target y mask annotation", "input feature image x sample example row", "~match ~align ~pair ~line "
          "misaligned mismatch separately independently mixed belong", "!shape !size !dimension !dim !dtype !type "
          "!int64 !float !distribution !batch !expected !smoothing !noise !noisy !mixup !cutmix !augmentation !class "
          "!attention !pad !padding !length !token !loss"),
         {"label_check": "misaligned"}),
        # binary cross-entropy given targets outside [0, 1] ("BCE with masks of 0 and 255", "labels -1 and +1",
        # "the targets are not between 0 and 1", and the negative loss that follows)
        (("bce bceloss bcewithlogitsloss binary_cross_entropy", "target label mask", "255 -1 100 outside ~between "
          "negative ~normalize ~scale ~divide"), {"target_range": "outside_loss"}),
        # the output normalised along another axis than the classes ("softmax over dim=0", "over the batch
        # dimension", "normalising over the time axis")
        (("softmax log_softmax logsoftmax", "dim dimension axis", "0 wrong", "!class"), {"output_norm_dim": "other"}),
        (("softmax log_softmax logsoftmax normalize", "over across along", "batch time column step",
          "dim dimension axis"), {"output_norm_dim": "other"}),
        # the loss tensor kept (summed or listed for logging) while memory grows: each step's graph stays alive
        (("memory vram mem ram", "loss", "total append list tensor graph", "!gradient !grad !accumulation "
          "!accum !micro !eval !validation !val !inference"), {"kept_graphs": "running_loss_tensor"}),
        (("loss", "~item", "memory vram mem ram leak", "!eval !validation !val !inference"),
         {"kept_graphs": "running_loss_tensor"}),
        # activation checkpointing over inputs that need no gradient (frozen embeddings or backbone under
        # LoRA/adapters): the checkpointed blocks give no gradient to what they hold
        (("checkpointing", "frozen freeze ~require ~requires_grad none", "embedding input adapter lora backbone base",
          "!load !save !resume"), {"checkpoint_inputs_no_grad": True}),
        # the loop
        (("~zero_grad ~zero ~zeroing ~reset forget missing", "zero_grad grad gradient"),
         {"zero_grad_call": "missing"}),
        # the call left out is eval(), around validation ("my val loop never calls model.eval()")
        (("val validation validate evaluation", "forget never without ~call ~use ~switch ~put",
          "eval"), {"mode_switching": "validates_in_train_mode"}, ((1, 2, "train training"),)),
        (("mode model", "eval validation evaluate", "forget ~back ~switch ~call remain never", "train training"),
         {"mode_switching": "never_calls_train"}),
        (("eval", "~back ~return ~revert", "train training"), {"mode_switching": "never_calls_train"}),
        # evaluation run with the model still in training mode (dropout on, BatchNorm using batch statistics)
        (("train training", "mode", "keep stay remain leave still", "evaluation eval evaluate inference test "
          "validation validate"), {"mode_switching": "validates_in_train_mode"}),
        (("~eval", "model"), {"mode_switching": "validates_in_train_mode"}),
        # parameters made trainable (or added) after the optimizer was built, that never move: the optimizer does
        # not hold them ("I unfreeze the backbone at epoch 5 but its weights don't change")
        (("unfreeze unfroze unfrozen", "~change ~update ~train ~learn ~move ~improve same identical stay still "
          "frozen only optimizer", "!should !want !how !whether !when"), {"optimizer_params": "missing"}),
        (("add new", "layer module head parameter param block", "after", "optimizer", "~learn ~train ~update "
          "~change never same"), {"optimizer_params": "missing"}),
        (("requires_grad", "true", "optimizer", "~learn ~train ~update ~change still same"),
         {"optimizer_params": "missing"}),
        # parameters frozen on purpose that the optimizer still moves
        # (the change said of what was frozen, not of the part left to train beside it: "I froze the encoder and the
        # head weights are still updated" is the head training, as it should; "its weights" (lemma "it"), "they" are
        # the frozen part's)
        (("freeze frozen", "still", "change update modify move differ", "!not !never !nothing"),
         {"optimizer_params": "frozen_held"},
         ((2, "freeze frozen it they their them", "head classifier adapter lora rest other unfrozen trainable "
              "decoder"),)),
        # the loss scaler skipping
        (("skip skipped skipping", "step", "every all always each no"), {"scaler_skips": "persistent"}),
        (("scaler scale", "halve collapse tiny zero decrease drop reduce down", "keep always every until"),
         {"scaler_skips": "persistent", "grad_scaler": True}),
        (("scaler gradscaler", "inf nan overflow", "every all always each"), {"scaler_skips": "persistent"}),
        # a schedule said to run ahead of itself: stepped more often than it was defined for
        (("schedule scheduler warmup", "=too", "fast early soon quickly"), {"scheduler_pace": "too_fast"}),
        # (and behind itself: "the lr schedule is way too slow", "the warmup goes far too slowly"; the slowness the
        # schedule's, not the run's: "training is too slow, would a scheduler help?")
        (("schedule scheduler warmup decay", "=too", "slow slowly", "!should !how !whether !would !help"),
         {"scheduler_pace": "too_slow"}, ((2, 0, "training train speed throughput model gpu step epoch iteration "
                                              "convergence"),)),
        # a schedule stepped with every micro-batch while the optimizer steps once per accumulation ("I step the
        # scheduler every batch with accumulation 8", "scheduler.step() inside the micro-batch loop while
        # accumulating"): it runs as many times too fast as there are micro-batches per step
        (("scheduler schedule sched scheduler.step lr_scheduler lr_scheduler.step sched.step schedulre.step",
          "every each per inside", "batch micro micro-batch microbatch iteration forward",
          "accumulation accumulate accum accum_steps gradient_accumulation_steps",
          # (not when the optimizer steps every batch too: the schedule then keeps pace with it, and the wiring of
          # the accumulation is the trouble)
          "!should !how !whether !want !correct !correctly !right !optimizer !optimizer.step"),
         {"scheduler_pace": "too_fast"}),
        # optimizer steps per second said to fall once gradient accumulation was raised, or between runs with less
        # and more of it ("4x slower in it/s after raising accumulation to 4", "accumulation 1 vs 4: 8 it/s vs 2"):
        # each step runs more micro-batches; not a drop said of examples or tokens per second, a real slowdown
        (("accumulation accumulate accum accum_steps gradient_accumulation_steps grad_accum accumulation_steps "
          "accumulate_grad_batches", "increase raise bump high double set add enable from vs versus compare",
          "slow slowdown", _ACCUM_NOT_STEPS), {"accum_step_rate_drop": True}),
        (("accumulation accumulate accum accum_steps gradient_accumulation_steps grad_accum accumulation_steps "
          "accumulate_grad_batches", "increase raise bump high double set add enable from vs versus compare",
          "it/s", "drop fall decrease halve low", _ACCUM_NOT_STEPS), {"accum_step_rate_drop": True}),
        # (told by its effect under accumulation: "the lr decays 16 times faster than planned with accum_steps=16")
        (("lr rate schedule scheduler decay warmup cycle", "=faster", "accumulation accumulate accum accum_steps "
          "gradient_accumulation_steps", "!how !whether !want !speed !throughput !training"),
         {"scheduler_pace": "too_fast"}),
        # a detector's box-regression term named as the one that turns NaN ("loss_box_reg turns into nan", "the
        # bbox loss is inf"): the box targets' own numerics, not the whole run's; a classification term said beside
        # it ("loss_cls nan, loss_box_reg 1310", "regression loss inf and classification loss nan") is the run's; a
        # classification term said to be fine beside it ("loss_box_reg nan, loss_cls fine") leaves the box term alone
        (("box bbox giou", "nan inf infinite"),
         {"box_loss_nonfinite": True}, ((1, "box bbox giou", "cls classification class"),)),
        # the same recipe said to train worse under FSDP than under another backend ("with DeepSpeed the loss goes
        # down fine, but with FSDP it drops slowly", "the loss plateaus higher than the identical recipe under ZeRO-3"):
        # the training's result compared, not the step's speed or memory (FSDP slower in tokens/s is the slow run's);
        # the worse side said of FSDP, not of the other backend ("FSDP reaches a lower loss than DeepSpeed" is FSDP
        # doing better, "loss identical to DeepSpeed" no difference at all)
        (("fsdp", "deepspeed ddp megatron zero zero3 zero-3", "than but whereas while",
          "loss converge learn plateau accuracy", "higher worse slowly plateau stall stuck diverge underperform",
          "!throughput !token !tokens !tokens/s !memory !oom !hang !speed"),
         {"fsdp_trains_worse": True}, ((4, 0, 1),)),
        # (the comparison said without "than": "switched from DeepSpeed to FSDP and the loss goes down much slower",
        # "FSDP vs DeepSpeed, the FSDP curve is worse", "FSDP needs a 4x larger LR to match DeepSpeed"; the worse word
        # still FSDP's, and the training's result, not its speed: no speed word in the sentence)
        (("fsdp", "deepspeed ddp megatron zero zero3 zero-3", "loss converge learn curve train training result",
          "higher worse slowly plateau stall underperform",
          "!throughput !token !tokens !tokens/s !memory !oom !hang !speed !fast !faster !time !it/s !epoch !=match"),
         {"fsdp_trains_worse": True, "multi_gpu": True}, ((3, 0, 1),)),
        # (a larger learning rate that FSDP needs to match the other: the size said of the rate, not of a batch
        # that fits, nor one the docs say it can take)
        (("fsdp", "deepspeed megatron zero zero3 zero-3", "large larger big bigger high higher", "lr rate",
          "need require", "match reach same equal",
          "!throughput !token !memory !oom !hang !speed !fast !time !epoch !batch !fit !doc !can !should"),
         {"fsdp_trains_worse": True, "multi_gpu": True}, ((2, 3, "batch size model"),)),
        # (the loss said to fall slower under FSDP: the curve's pace, with no word of the step's speed)
        (("fsdp", "deepspeed megatron zero zero3 zero-3", "loss converge curve", "slow",
          "!throughput !token !tokens !tokens/s !memory !oom !hang !speed !fast !time !it/s !epoch !step "
          "!iteration !second"),
         {"fsdp_trains_worse": True, "multi_gpu": True}, ((3, 0, 1),)),
        # a lower learning rate
        (("low lower small smaller reduce decrease lowering", "lr rate blr base_lr",
          "~help still same ~fix ~solve ~work ~stop even !=work"),
         {"lower_lr_stable": False}),
        (("low lower small smaller reduce decrease lowering", "lr rate blr base_lr",
          "stable fix solve away disappear gone ~diverge"), {"lower_lr_stable": True}),
        # an optimizer change weighed for its memory ("switch to Lion to save optimizer memory", "AdamW's states eat
        # 30 GB, would Lion help?"): the reason for the switch, read next to a newer optimizer's name
        # (the optimizer's name anchors it: the memory may sit under a negation, "the states don't fit in memory")
        (("lion sophia adafactor muon shampoo prodigy ademamix schedulefree adamw8bit 8bit 8-bit",
          "memory vram footprint", "switch replace replacement substitute alternative move try consider "
          "considering instead vs versus save reduce help would worth plan planning think care",
          "!oom !leak !grow !growth !increase !creep"),
         {"switch_reason": "memory"}),
        # logging each micro-batch as a step under gradient accumulation ("I log every micro batch", "the x axis
        # counts micro-batches"): the curves' axis, not the run's speed
        (("micro micro-batch microbatch micro-step microstep", "log plot curve axis x-axis global_step "
          "dashboard tensorboard wandb", "!memory !oom !size !fit"), {"step_axis": "per_micro_batch"}),
        # the trainer's step counter moving by more than one per batch ("global_step moves by 2 per batch", "the
        # step count increases twice per iteration"): it counts optimizer steps, several per batch
        (("global_step global step counter", "2 two twice double", "batch iteration training_step",
          "move jump increase advance increment skip go count", "!should !how !whether !micro !accumulation "
          "!accumulate"), {"step_counter_multi": True},
         # (the count is the step's increment, not the devices': "global_step moves by 1 per batch, two gpus")
         ((1, 3, "gpu card device rank process node"),)),
        # (said of the optimizers that each count: "global_step is double the batches since I added a second
        # optimizer", "global_step = 2 x batch_idx with the discriminator's optimizer"; Lightning counts every
        # optimizer.step(), so two optimizers stepped per batch count two steps)
        (("global_step trainer.global_step step_counter", "2 two twice double second both", "optimizer discriminator "
          "generator opt_g opt_d optimizer.step", "!should !how !whether !micro !accumulation !accumulate !gpu !rank "
          "!device !node"), {"step_counter_multi": True}),
        # metrics that reach the logger only every k steps although asked for each one ("the logs only appear every
        # 2 steps", "metrics get logged every other step"): what the logging interval counts
        (("log metric", "appear show record write only", "every each", "2 two other second "
          "third", "!should !how !whether"), {"symptom": "metrics_wrong"}),
        # a batch or model said not to fit in memory: memory caps the batch
        (("memory vram", "~fit"), {"memory_limited": True}),
        # settings said not to be used
        (("~warmup",), {"warmup": False}),
        # the loss scaler said not to be used ("without a scaler", "never used GradScaler", "no scaling of the loss",
        # "no loss scaling"): not a scaler of the data (scikit-learn's), nor a scaler merely cleared of a fault ("no
        # nan in the scaler", "the scaler skips no step")
        (("~scaler ~gradscaler", "!standardscaler !minmaxscaler !feature !input !target !label !data !normalize "
          "!normalization !sklearn !nan !inf !overflow !skip !skipped !step"), {"grad_scaler": False}),
        (("~scaling", "loss", "!lr !rate !learning !input !feature !target !batch !gpu !width !law !issue !problem "
          "!linear !linearly !weight !term"), {"grad_scaler": False}),
        # training data said not to be shuffled ("the training set is not shuffled", "no shuffling in my loader", "I
        # don't shuffle my dataset"): every epoch then visits it in one order; an evaluation loader is never
        # shuffled, and a shuffle weighed or said not to help is no statement of the order
        (("~shuffle", "loader dataloader data dataset sample example training train set order", "!val !validation "
          "!test !eval !evaluation !should !how !whether !separately !independently !help !matter !fix"),
         {"epoch_data_order": "repeated"}),
        (("~scheduler ~schedule", "use any no without have"), {"lr_schedule": "none"}),
        # (not when clipping is set and said to have no effect: "clipping doesn't do anything", "gradient_clip_val=1
        # ... not clipped at all"; nor "not every step gets clipped": some steps are)
        (("~clip ~clipping", "!anything !effect !val !cap !every"),
         {"grad_clipping": False}),
        # a preference-tuning method named: its reward is a language model's, not an RL environment's ("GRPO
        # training: the reward stays flat"; outranks the reward's own reading, VALUE_PRIORITY)
        # (not a method only read about beside a run of another kind: "I read the DPO paper, my classifier loss is
        # flat" trains a classifier)
        (("grpo dpo rlhf rlaif simpo orpo kto trl trlx", "!classifier !classification !detection "
          "!segmentation !regression !regressor"), {"task": "preference_tuning"}),
        # the data
        (("imbalance imbalanced unbalanced skewed",), {"class_imbalance": True}),
        # a long tail of classes ("long-tailed labels", "the tail classes are never predicted")
        (("tail", "class category label dataset data distribution", "!loss !curve !latency !time !end"),
         {"class_imbalance": True}),
        (("rare minority", "class"), {"class_imbalance": True}),
        (("most majority", "label sample example data", "class"), {"class_imbalance": True}),
        # what the model outputs
        # (text generated in a loop is a language model's repetition, not a classifier's one answer: "the same
        # answer again and again", "repeats the same line")
        (("same", "label class answer", "get always every regardless matter", "!rare !minority !imbalanced !sample "
          "!example !again !repeat !repetition !repetitive !loop"), {"predictions_constant": True,
                                                                     "symptom": "not_learning"}),
        # (the sameness said of the outputs: "the loss is constant ... sigmoid output" is the loss's)
        (("predict prediction output logit", "same constant identical one regardless everything always only mean "
          "average",
          # ("compared with the original targets rather than the re-weighted ones": alternatives, no sameness)
          # (nor a one-hot encoding: "sigmoid output layer, targets one-hot")
          # (nor a count of hits: "only 27 of 7000 are right" scores the predictions, it does not say they agree)
          "!rare !minority !never !imbalanced !imbalance !differ !vary !slow !fast !speed !rather !hot !again !repeat "
          "!repetition !repetitive !loop !right !correct !correctly"
          # (nor a metric's code that takes the predictions from the outputs: "acc = (torch.argmax(logits) ==
          # y).float().mean()" says how the accuracy is computed; its mean and its argmax are no sameness of the
          # outputs, and "the argmax is always the same class" is still read by the rows on one class for all)
          " !argmax"),
         # (nor a use said to be the only one: "loaded for inference only, the outputs look fine")
         {"predictions_constant": True, "symptom": "not_learning"}, ((1, 0, "loss lr accuracy acc metric inference"),)),
        # predictions at the mean of the targets: a regression model that outputs one number
        # (not the code of a classifier's accuracy, whose argmax picks a class: "(torch.argmax(outputs) ==
        # targets).float().mean()")
        (("predict prediction output regressor", "mean average", "target label y value price", "!argmax"),
         {"task": "regression"}),
        # one number whatever the input ("gives the same number no matter the input")
        (("same constant identical", "number value", "regardless", "!loss !lr !rate !accuracy !acc !seed !metric"),
         {"predictions_constant": True, "symptom": "not_learning"}),
        # one answer given to every input ("gives one label for all test images", "outputs a single class for every
        # sample"); not one label per example, which is the data's format, nor "one of 10 classes" for each input
        (("one single", "label class prediction answer", "all every", "input image sample example picture",
          "give predict output return assign", "!rare !minority !per !each !correct !correctly !right !wrong !have"
          " !multi !multiple !classes !categories"), {"predictions_constant": True, "symptom": "not_learning"}),
        # everything put in one class ("everything is classified as background", "all images are predicted as 0")
        (("everything all every", "classify predict label", "as", "!rare !minority !never !correctly !correct !right "
          "!wrong"), {"predictions_constant": True, "symptom": "not_learning"}),
        # the model's output squashed before a loss that expects logits ("softmax then CrossEntropyLoss"; a softmax
        # kept for inference squashes nothing the loss sees)
        (("softmax", "crossentropyloss crossentropy cross_entropy entropy ce nll nllloss end last final",
          "!log !logsoftmax !log_softmax !log-softmax !inference"), {"output_activation": "softmax"}),
        # the same with a sigmoid in front of a loss ("the prediction goes through a sigmoid before the loss"); only a
        # loss that takes logits makes it a defect, which the cause's own condition checks
        (("sigmoid", "before into then", "loss bcewithlogitsloss bcewithlogits bce_with_logits",
          "!log !logsigmoid !log_sigmoid !log-sigmoid !inference"), {"output_activation": "sigmoid"}),
        # class ids counted from one ("labels start at 1", "1-based labels", "classes numbered from one"; ids alone are
        # any table's: "user ids start at 1"); targets
        # that go below zero or feed a regression loss are values, not class ids ("targets go from -1 to 1, MSE")
        # (not a curve that goes down beside one answer given to all: "gives one label for all images and the loss
        # doesn't go down")
        (("label target class", "start begin index based go", "1 one",
          "!0 !zero !dominate !-1 !negative !minus !mse !regression !down !all !every !differ !different !order "
          "!missing"),
         {"label_check": "not_zero_based"}),
        # ... set against the zero they should start from ("the label ids start from 1, not from 0"): the zero under
        # the negation is the start they lack
        (("label target class", "start begin", "1 one", "~0 ~zero", "!dominate !-1 !negative !minus !mse "
          "!regression"), {"label_check": "not_zero_based"}),
        # the class-index loss's own error told in words ("a target out of bounds error in the loss", "targets out of
        # range in CrossEntropyLoss"): a class id outside 0..C-1 reached the loss; an embedding's index out of range
        # is the tokens' (a vocabulary too small), and a regression target's range is its scale
        (("target", "out", "bound bounds range", "!embedding !token !tokens !vocab !vocabulary !input_ids !regression "
          "!mse !scale !normalize !normalise"), {"label_check": "not_zero_based"}),
        # regression targets left in their raw units
        # (the anchor is the scaling left undone: in "without normalizing the targets" the targets are under the
        # negation too)
        # (only a regression has targets with units to scale: "my targets are not normalized, up to 1e6" says the task)
        (("~normalize ~normalized ~scale ~scaling ~standardize unnormalized unscaled raw", "target y label",
          "!input !feature !image !logit !pixel !class !classification !string !text !token !category"),
         {"targets_unscaled": True, "task": "regression"}),
        # whether to scale the targets, asked: they are still in raw units ("would it help to normalize the target
        # too?", "should I standardize y?")
        (("normalize normalise standardize scale rescale", "target y", "should would help need worth",
          "!input !feature !image !logit !pixel !already !label"), {"targets_unscaled": True}),
        # one class for everything, said with the class ("always predicts the majority class", "only class 0"); not
        # the predictions of every rank gathered to rank 0, which is bookkeeping, not an answer
        (("predict prediction output say classify", "always only every everything all everywhere",
          "majority dominant negative 0 background normal", "!rare !minority !never !rank !gather !gpu !process "
          "!device !worker"),
         {"predictions_constant": True}),
        # a training metric scored on mixed batches (mixup, cutmix, manifold mixup) against one of the hard labels
        # (the accuracy said as the training figure, "train acc", "training accuracy": a run "trained with mixup"
        # whose test accuracy disappoints scores nothing on mixed batches)
        (("mixup cutmix", "train_accuracy"), {"train_metric_mixed": True}),
        # why BatchNorm is kept in eval mode (frozen) while the rest trains: its batch statistics need more examples
        # per device than the run has, a batch-size question ("why are the BN layers frozen during training?", "is it
        # to keep BatchNorm unchanged?")
        (("batchnorm bn batch_norm batchnorm2d frozenbatchnorm2d", "freeze frozen fix unchanged",
          "why purpose", "!never !forget !miss !missing"),
         {"symptom": "direct_question", "question_topic": "batch_size"}),
        # (whether to unfreeze it: "would unfreezing BN give better results on 16 GPUs?", "should I train the frozen
        # BatchNorm?": the same per-device batch question)
        (("batchnorm bn batch_norm batchnorm2d frozenbatchnorm2d", "unfreeze unfrozen frozen freeze",
          "should would better worth", "!never !forget !miss !missing !eval !mode !call"),
         {"symptom": "direct_question", "question_topic": "batch_size"}),
        # an augmentation that does not pay off ("the accuracy with mixup is not better than plain training",
        # "cutmix made my test accuracy worse"); the training figure under mixing is the line above
        # (the transforms by name: "accuracy dropped after I added color jitter"; the model said to get worse: "with
        # the augmentations on, the model gets worse on the test set")
        (("mixup cutmix randaugment autoaugment trivialaugment augmix augmentation augment jitter colorjitter "
          "randomresizedcrop", "accuracy acc result performance score model",
          "worse lower below drop hurt degrade reduce decrease down ~better ~improve ~help",
          "!train_accuracy !replace !change !switch !new"),
         {"augmentation_hurts": True}),
        # waiting for data
        (("wait waiting starve bottleneck", "dataloader loader data loading"), {"symptom": "slow_training"}),
        # more devices, no more speed ("4 GPUs are not faster than 1", "as slow on 8 GPUs as on a single one")
        (("gpu ddp distributed parallel node torchrun fsdp a100 h100 v100", "~fast ~faster ~speedup ~quick",
          "!hang !freeze !stuck "
          "!nan !crash !oom !cpu"), {"multi_gpu_speedup": "none", "symptom": "slow_training"}),
        # (the single one said of a device, not of a run, a node or an epoch: "one run takes 26 hours", "one node,
        # 4 gpus, slow" compare no device counts)
        (("gpu ddp distributed parallel node torchrun fsdp a100 h100 v100", "slow", "single one 1",
          "!hang !freeze !stuck "
          "!nan !crash !oom !cpu"), {"multi_gpu_speedup": "none", "symptom": "slow_training"},
         ((2, "gpu card device a100 h100 h200 v100 a6000 3090 4090", "run job node machine process worker epoch "
              "step iteration batch"),)),
        # (the speed said by its figure, compared: "it/s on 8 GPUs is lower than on one", "throughput with 4 GPUs is
        # no higher than with 1"; keys are lemmas: "slower" is read as "slow", "more" as "much", "faster" as "fast")
        # (more than one device counted, as below: "my GPU has lower throughput than a single A100" compares cards)
        (("gpu ddp distributed parallel node torchrun fsdp a100 h100 v100", "throughput it/s samples/sec samples/s "
          "tokens/sec tokens/s speed", "=lower =less =slow ~higher ~much ~fast", "single one 1",
          "2 3 4 8 16 32 64 two three four eight sixteen multiple several many ddp distributed parallel torchrun "
          "fsdp multi-gpu node", "!hang !freeze !stuck !nan !crash !oom !cpu"),
         {"multi_gpu_speedup": "none", "symptom": "slow_training"}),
        # more devices and the speed fell ("scaling to 4 nodes made throughput drop", "it/s went down when I added
        # GPUs", "throughput didn't increase with more gpus"): a move to more devices, the speed's own fall said
        (("gpu node ddp distributed fsdp torchrun multi-gpu card", "throughput it/s samples/sec samples/s tokens/sec "
          "tokens/s speed", "=drop =fall =decrease =down =lower =less =worse =decline =tank =plummet =halve ~increase "
          "~improve ~scale ~go_up", "scale scaling much add increase move go switch", "!hang !freeze !stuck !nan "
          "!crash !oom !cpu !should !want !whether !how !memory !util !utilization !usage !loss !accuracy"),
         {"multi_gpu_speedup": "none", "symptom": "slow_training"}),
        # more devices, some more speed but far from as much more ("4 GPUs only give a 1.5x speedup", "8 GPUs are
        # only about 2x faster", "scaling is far from linear", "more GPUs give diminishing returns")
        # (more than one device said: a count or a multi-device word; "my GPU is only slightly faster than my CPU"
        # compares one device with a processor)
        (("gpu ddp distributed parallel node torchrun fsdp a100 h100 v100 card multi-gpu", "2 3 4 8 16 32 64 two "
          "three four eight sixteen multiple several many ddp distributed parallel torchrun fsdp multi-gpu node",
          "only just barely slightly merely marginally", "fast faster speedup speed-up quick", "!hang !freeze !stuck "
          "!nan !crash !oom !single-gpu !cpu"), {"multi_gpu_speedup": "partial", "symptom": "slow_training"}),
        # hardware said to lack bf16 ("my V100 doesn't support bf16", "bf16 isn't supported on the T4", "a card
        # without bf16 support", "the GPU can't do bf16"): the format, not a speed or precision choice; another
        # format said beside it is what the sentence is about ("no fp8 support, only bf16")
        # (the hardware said: "bf16 isn't available in my tensorboard logs", "I lack a good understanding of bf16
        # support" say nothing of the card)
        (("bf16 bfloat16", "~support ~supported ~compatible ~available", _BF16_HARDWARE,
          "!fp8 !fp4 !int8 !flash !tf32"), {"bf16_supported": False}),
        (("gpu card hardware device v100 t4 p100 k80 2080ti rtx gtx quadro tesla", "~bf16 ~bfloat16", "!fp8 !fp4 "
          "!int8 !flash !tf32"), {"bf16_supported": False}),
        (("lack", "bf16 bfloat16", "support", _BF16_HARDWARE, "!understanding !understand"),
         {"bf16_supported": False}),
        # two runs said to be the same that still differ ("why do my two identical runs give different curves?")
        (("run", "identical same two", "different differ vary", "!lr !rate !batch !optimizer !hyperparameter !config "
          "!gpu !speed !time !seed"), {"nondeterminism": "training_runs"}),
        # runs that differ although nothing was changed ("the results are different every time I run it")
        (("result outcome", "different differ vary", "every each rerun", "!lr !rate !batch !optimizer "
          "!hyperparameter !config"), {"nondeterminism": "training_runs"}),
        # the loader's share of the time
        (("dataloader loader loading", "most majority bulk", "time"), {"symptom": "slow_training"}),
        # the run is slow per step
        (("slow", "throughput it/s iteration step", "!fast !quick"), {"slow_kind": "per_step"}),
        # a loss said to come out non-finite ("the model outputs nan as loss", "my loss function outputs nan"): the
        # loss is what is NaN, whatever else the output names (not one said finite, nor an evaluation's)
        (("nan inf", "output", "loss", "!fine !ok !okay !normal !finite !~nan !~inf !inference !eval !evaluation "
          "!validation !val !test !predict !generate !generation"),
         {"symptom": "unstable", "loss_behavior": "nan_or_inf"}),
        # a loss that fell and then stays at a floor ("flat at a floor after dropping first", "stuck after it went
        # down at first")
        (("loss", "stuck flat plateau stall floor", "after", "drop decrease fall", "first initially",
          "!should !how !whether"),
         {"symptom": "convergence", "loss_behavior": "plateau_after_learning"}),
        # host memory that grows with the number of GPU processes ("host RAM scales linearly with the number of GPUs",
        # "each rank holds its own copy of the dataset in RAM"): one copy per process (not GPU memory, nor the
        # loader's workers or a growth over steps or epochs, which are leaks; a growth denied is none)
        (("ram host_ram", "rank process gpu proc ddp",
          "=copy =linearly =scale =proportional =multiply =grow =increase =up =rise",
          "each every per number extra much one", "!vram !worker !num_workers !dataloader !loader !leak "
          "!epoch !step !iteration !oom_gpu"),
         {"host_ram_per_rank": True, "multi_gpu": True}),
        # training that fails only from a derived checkpoint ("from the base model it trains, from my merged one it
        # diverges"): the failure said of the derived weights, not of the base ones
        (("merge convert derive own", "checkpoint ckpt weight model adapter", "base original official pretrained hub",
          "explode diverge blow nan fail shoot", "!should !how !whether !inference !generate !generation"),
         {"checkpoint_specific": True}, ((3, 0, 2),)),
        # the loss of an evaluation loop or pass said non-finite ("the eval loop reports loss=nan", "in the validation
        # pass the loss is nan"): the evaluation's loss, as "eval loss=nan" is (not training's, nor both's)
        (("eval evaluation validation val test", "loop pass", "loss", "nan inf", "!train !training !both !also "
          "!too !should !how !whether"),
         {"nan_phase": "evaluation"}),
        # gradients said calm beside a loss gone non-finite ("the grad norm stays small and stable, then the loss is
        # nan", "the gradients are not exploding but the loss goes to inf"): the NaN did not grow through the
        # gradients; said plainly, and not beside a growth of them ("the grad norm is fine until it explodes")
        (("grad gradient", "norm", "=normal =fine =small =stable =ok =okay =low =tiny =reasonable =flat =steady "
          "=healthy", "=nan =inf", "!explode !spike !blow !huge !large !big !grow !increase !jump !rise !vanish "
          "!should !how !whether"),
         {"grad_norm_trend": "normal"}),
        # gradients said calm, without a norm, right before a NaN ("gradients were tiny, then suddenly nan",
        # "the gradients looked normal until the loss went nan"): the same calm, said by its time word
        (("grad gradient", "=normal =fine =small =stable =ok =okay =low =tiny =reasonable =steady =healthy",
          "=nan =inf", "then before until suddenly", "!explode !spike !blow !huge !large !big !grow !increase !jump "
          "!rise !vanish !climb !should !how !whether"),
         {"grad_norm_trend": "normal"}),
        # (the NaN said plainly in both: "the loss is not nan but it oscillates" has none to explain)
        (("grad gradient", "~explode ~blow ~spike", "=nan =inf", "!should !how !whether"),
         {"grad_norm_trend": "normal"}),
        # a metric said bad unless the model is put in eval mode ("the accuracy is very low unless I call model.eval()
        # first"): the evaluation that scored badly ran in train mode (dropout sampling, BatchNorm on batch statistics)
        (("accuracy acc metric score prediction predict result performance f1", "unless until", "eval",
          "low bad worse random wrong garbage poor terrible drop", "call model switch put set",
          "!should !how !whether !no_grad !memory !epoch !step !iteration !lr !rate !train"),
         {"mode_switching": "validates_in_train_mode"}),
        # a trained model that scores far worse once saved and loaded again ("after saving and reloading, the accuracy
        # is at chance", "the reloaded adapter's predictions look random"): the reload, said with a metric said bad
        # plainly ("the accuracy does not drop after reloading" is no drop); not data loading, nor pretrained weights
        # loaded to start from, nor a resumed run (``recent_change``), nor a question of how to load
        # (the model by its kind or file, "the classifier restored from the .pth"; what it does as a verb, "predicts
        # garbage", "performs badly"; and as bad as one never trained)
        (("reload reloading load loading restore", "model checkpoint ckpt weight dict adapter network net save again "
          "classifier pth",
          "accuracy acc metric score performance prediction predict perform f1 auc result",
          "=drop =low =worse =bad =random =chance =garbage =fall =decrease =terrible =poor =wrong =nonsense =degrade "
          "=untrained",
          "!dataloader !loader !worker !num_workers !pretrained !pretrain !imagenet !hub !resume !continue !how "
          "!utilization !util !usage !slow !slowly !time !gpu !cpu !memory !ram !data !dataset"),
         {"reload_metric_drop": True}),
        # a failure on one device that another runs fine ("NaN on MPS, on the CPU it trains normally"), the failure
        # said of the failing device
        (("mps m1 m2 m3 macbook mac silicon", "nan inf diverge explode", "cpu cuda linux nvidia",
          "fine normally ok work decrease fix only never", "!also !still !both"),
         {"device_specific": True}, ((1, 0, 2),)),
        (("colleague other another", "gpu card machine computer box", "fine normally ok work without",
          "nan inf diverge explode", "!also !still !both !too !either"),
         {"device_specific": True}, ((3, "my this one", 0),)),
        # gradients cleared at every micro-batch while accumulating ("zero_grad is called every iteration and I step
        # every 8", "I reset the gradients on every micro step"): nothing accumulates
        # (the micro-batch said plainly: "not after each micro-batch" denies it; and not cleared only every few
        # iterations or right after the optimizer's step, which is the correct loop)
        (("zero_grad zero reset clear", "every each",
          "=micro =micro-batch =microbatch =micro-step =iteration =backward",
          "accumulate accumulation accum step", "!epoch !should !how !whether !only_every !after_step"),
         {"zero_grad_call": "every_micro_batch", "grad_accumulation": True}),
        # class ids that differ between where the model is trained and where it is scored ("the class to index
        # mapping of the test set is not the one of training", "the class list at inference has another order")
        (("class label", "index id idx map order list", "differ different mismatch another other "
          "swap shift change ~same ~match ~consistent", "train training test eval evaluation inference",
          "!should !how !whether !shuffle !epoch !batch !imbalance !imbalanced !distribution"),
         {"label_check": "class_order"}),
        # the weights themselves cast to bfloat16 ("I cast the whole model to bf16", "params stored in bf16, no fp32
        # master copy"): not autocast, which keeps them in fp32
        # (the weights that are trained: a model loaded in bf16 to run it, or a frozen base under an adapter, holds
        # no weights the optimizer updates in bf16)
        (("bf16 bfloat16", "model network net weight parameter param", "convert cast put store pure master",
          "!=autocast !=amp !=mixed !input !image !support !supported !card !gpu !hardware !inference !generate "
          "!generation !eval !evaluation !evaluate !predict !prediction !serve !deploy !lora !qlora !peft !adapter "
          "!freeze !frozen"),
         {"weights_dtype": "bf16"}),
        # (a model loaded in bf16 and then trained itself: "loaded it with torch_dtype=torch.bfloat16 and trained it
        # directly"; not under autocast, an adapter or a frozen base)
        (("bf16 bfloat16", "model network net weight parameter param", "load", "train training fine-tune finetune",
          "!=autocast !=amp !=mixed !support !supported !card !gpu !hardware !inference !generate !generation !eval "
          "!evaluation !evaluate !predict !prediction !serve !deploy !lora !qlora !peft !adapter !freeze !frozen"),
         {"weights_dtype": "bf16"}),
        # a wish for LAMB for a large batch ("is LAMB worth it for very large batch training?")
        # (a wish, not a past switch: "I switched to LAMB and it helped" already uses it)
        (("lamb", "batch", "large huge big scale scaling increase global thousand", "worth try consider considering "
          "think should plan sense would could want wonder recommend", "!already"),
         {"considering": "lamb", "switch_reason": "large_batch"}),
        # image and mask transformed apart ("the flip is applied to the image but the mask is cropped separately"):
        # the labels no longer lie on their pixels
        # (a random transform drawn apart, not a size: "resized separately to the same size" or "their sizes were
        # different" is no misalignment, nor one transform said to be the same for both)
        (("mask", "image input img", "flip rotate crop randomcrop augment augmentation transform random seed",
          "separate separately independently different differ only ~align ~match misalign",
          "!attention !padding !pad !token !patch !=same"),
         {"label_check": "misaligned", "task": "segmentation"}, ((3, 2, "size shape resolution dimension"),)),
        # held-out accuracy falling while the training figure still improves
        # (each movement bound to its own split: "val acc rises while train acc drops" is no overfitting)
        (("val validation test eval", "drop decrease fall worse down decline", "while whereas but", "train training",
          "up increase improve rise climb", "acc accuracy f1 score metric", "!loss"),
         {"symptom": "overfitting", "metric_kind": "accuracy"}, ((1, 0, 3), (4, 3, 0))),
        (("val validation test eval", "drop decrease fall worse decline degrade", "while whereas but",
          "train training", "loss", "auc acc accuracy f1 score metric map iou miou bleu performance"),
         {"symptom": "overfitting"}, ((1, 0, 3),)),
        # the validation loss stalls while the training loss still falls
        (("val validation", "~decrease ~improve ~drop ~fall stuck flat plateau stagnate stall", "train training",
          "decrease drop improve fall", "loss", "!acc !accuracy"), {"symptom": "overfitting"}, ((1, 0, 2), (3, 2, 0))),
        # training that looks fine while held-out data does badly (the good word the training data's, the bad word
        # the held-out data's: "val accuracy is great but train accuracy is bad" is the opposite gap)
        (("fine good great ok okay perfect nail", "train training", "but and while whereas yet",
          "=bad =poor =useless =terrible =awful =garbage =low =worse",
          "val validation test unseen new eval", "!slow !speed !time !fast"), {"symptom": "overfitting"},
         ((0, 1, 4), (3, 4, 1))),
        # a tracker that shows only some of what was logged
        (("wandb tensorboard mlflow dashboard chart plot graph", "only", "part partial some subset fraction half",
          "step point log value"), {"metrics_dropped": True}),
        # more GPUs and an epoch that takes as long as before: the run is no faster ("went from 1 to 2 GPUs and the
        # epoch time stayed the same")
        (("gpu card node torchrun ddp", "same long", "time take", "!loss !accuracy !acc !result !worse !better "
          "!lr !batch !converge !metric"), {"symptom": "slow_training"}),
        # each step is quick, the run still needs too many of them
        (("fast quick", "step iteration", "forever many long ages slow converge convergence"),
         {"symptom": "slow_training", "slow_kind": "many_steps"}),
    ))
"""Concepts that state an observation when all their groups are said in one sentence, in any order (a word
``~w``: said under a negation, "I don't use warmup"; ``=w``: said without one, "not bad" is no "bad"; ``!w``: a
word the sentence must not hold). The first group is the frame's anchor: a plain word of it must be said without a
negation ("there is no class imbalance" states nothing). A frame may bind its words (``(a, b, c)``: a word of group
``a`` is said of a word of group ``b``, not of group ``c``: of the nearest of them before it in its clause, else after
it in its clause, else before it in the sentence; ``b`` or ``c`` may be words of their own, that the sentence need
not hold): the order-free frame then still says whose value each word is ("great" is the training data's only when
it is said of it). One frame fires at most once per sentence, and the first frame that sets an observation in a
sentence is the one that counts."""

CONCEPTS: dict[str, str] = {
    # a run taken up again where it stopped ("picking up a run from the last checkpoint"): a resume's verb
    **dict.fromkeys(("pick up", "pick back up"), "pick_up"),
    # the flag that makes a parameter trainable, which the tokens split ("requires_grad=True" is "requires", "grad")
    "require grad": "requires_grad",
    # a statistic named by how it is kept ("Moving average ignored a value of inf"): nothing moved
    **dict.fromkeys(("move average", "exponential move average", "move mean"), "moving_average"),
    # a change that changes nothing ("it has no effect", "doesn't matter", "nothing changed")
    **dict.fromkeys((
        "no effect", "zero effect", "not have any effect", "not have an effect", "not have much effect",
        "nothing change", "change nothing", "change absolutely nothing", "not change anything", "not change a thing",
        "no difference", "not make a difference", "not make any difference", "make no difference", "do nothing",
        "not do anything", "no change", "not matter", "not affect", "not affect anything", "same result",
        "identical result", "exactly the same"), "inert"),
    # a state compared with the one before a change ("slower than before", "than it used to"): a before -> after
    **dict.fromkeys(("than before", "than it use to", "compare to before", "than previously", "than it be before",
                     "than it be"), "before_now"),
    # whatever value was tried ("no matter the weight", "whatever lambda", "with any value")
    **dict.fromkeys(("no matter", "whatever", "regardless", "any value", "every value"), "regardless"),
    # the host's memory, not the GPU's ("system RAM", "host memory", "CPU memory")
    **dict.fromkeys(("host memory", "host ram", "system memory", "system ram", "cpu memory", "cpu ram"), "host_ram"),
    # a purpose asked ("is it to keep ...", "is this for ...")
    **dict.fromkeys(("be it to", "be it for", "be this to", "be this for", "be that to", "be that for"), "purpose"),
    # the training figure named as such ("train acc", "training accuracy", "accuracy on the training batches")
    # the trainer's step counter ("trainer.global_step", "the global step"), for the frame of several optimizers
    # counted in it
    **dict.fromkeys(("global step", "global _ step", "global_step"), "step_counter"),
    # gradients cleared only once every few iterations, or right after the optimizer's step: the loop of
    # accumulation done right (the frame of clearing at every micro-batch is ruled out by it)
    **dict.fromkeys((f"{z} only every" for z in ("zero_grad", "zero_grad ( )", "zero the gradient", "zero the grad",
                                                 "zero gradient", "reset the gradient", "clear the gradient",
                                                 "zero_grad be call", "zero_grad get call")), "only_every"),
    **dict.fromkeys(("after the step", "after the optimizer step", "after optimizer step", "after each optimizer step",
                     "after every optimizer step", "after the optimizer . step", "after optimizer . step",
                     "after each step", "after every step", "after the update", "after each update"), "after_step"),
    # the training step of a trainer's module, written out ("my lightning training step returns nothing")
    **dict.fromkeys(("training step", "train step", "training_step method"), "training_step"),
    **dict.fromkeys(("train accuracy", "training accuracy", "train acc", "training acc", "train metric",
                     "training metric", "accuracy on the training", "accuracy on train", "accuracy during training",
                     "accuracy in training", "train set accuracy", "training set accuracy"), "train_accuracy"),
}
"""Phrases (lemmas) a frame may name by one word: ``inert`` (a change with no effect), ``regardless`` (whatever the
value), ``train_accuracy`` (the training figure), ``purpose`` (a purpose asked). The phrase holds its own
negation, so its word is said plainly."""

CONCEPT_REACH = 5
"""Words in the longest ``CONCEPTS`` phrase."""

CLAIMS_BY_MOVEMENT: dict[str, tuple[str, ...]] = {"hang": ("symptom", "loss_behavior")}
"""Observations a reading of this movement owns in its words: a cue inside them reads nothing else for these
("the progress bar is stuck" is a hang, not a flat loss)."""

VALUE_PRIORITY: dict[str, dict[Any, int]] = {
    # a norm that spikes and keeps climbing is exploding: the trend outranks the transient
    "grad_norm_trend": {"exploding": 2, "vanishing": 1, "spiky": 0},
    # a preference method named beside a reward: the reward is the language model's (FRAMES)
    "task": {"preference_tuning": 1},
    # a tensor said kept (a loss summed as a tensor, outputs stored, evaluation with autograd on) outranks the loss
    # said kept as a number beside it ("I log loss.item() but my eval runs without no_grad")
    "kept_graphs": {"running_loss_tensor": 1, "stored_outputs": 1, "eval_with_grad": 1, "none": 0},
}
"""Which value wins when one text states two for an observation other than the symptom and the loss's shape."""

LOSS_BEHAVIOR_PRIORITY: dict[str, int] = {
    "nan_or_inf": P_UNSTABLE, "diverging": P_UNSTABLE, "oscillating": P_UNSTABLE - 6,
    "flat_from_start": P_NOT_LEARNING + 5, "plateau_after_learning": P_NOT_LEARNING + 3, "spiking": P_NOT_LEARNING + 2,
    "decreasing_slowly": P_NOT_LEARNING + 1,
}
"""Which loss behaviour wins when one text states two (as for the cues: a stall the run ends in outranks a
transient spike; non-finite and diverging first)."""

SYMPTOM_PRIORITY: dict[str, int] = {
    "unstable": P_UNSTABLE, "hang": P_UNSTABLE - 2, "memory_growth": P_OVERFIT + 2, "overfitting": P_OVERFIT,
    "not_learning": P_NOT_LEARNING, "convergence": P_NOT_LEARNING + 1, "slow_training": P_SLOW,
    "experiment_tracking": P_TRACKING, "direct_question": P_DIRECT, "crash": 1,
}
"""Which symptom a composed reading states wins when readings disagree (stability first, as for the cues; a
plateau after learning is more specific than "not learning"; a crash only when nothing else is said)."""

# ------------------------------------------------------------------------------------------ the loop's calls
# The calls of a training step, as people name them in prose or code ("loss.backward()", "zero the grads",
# "scaler.unscale_(opt)", "clip_grad_norm_"), and what the order they are said to run in states.

LOOP_CALLS: dict[str, str] = {
    "backward": "backward", "backward pass": "backward", "backprop": "backward", "backpropagation": "backward",
    "zero_grad": "zero_grad", "zero grad": "zero_grad", "zero the grad": "zero_grad", "zero the gradient": "zero_grad",
    "zero the grads": "zero_grad", "zero the gradients": "zero_grad", "zeroing grad": "zero_grad",
    "zeroing grads": "zero_grad", "zeroing the grads": "zero_grad", "zeroing the gradients": "zero_grad",
    "zeroing gradients": "zero_grad", "zero gradients": "zero_grad", "zero grads": "zero_grad",
    "reset the gradients": "zero_grad", "clear the gradients": "zero_grad", "set_to_none": "zero_grad",
    "unscale": "unscale", "unscale_": "unscale", "unscaling": "unscale",
    "clip": "clip", "clipping": "clip", "clip grad norm": "clip", "clip grad value": "clip", "clip_grad_norm_": "clip",
    "clip_grad_norm": "clip", "clip_grad_value_": "clip", "clip the grads": "clip", "clip the gradients": "clip",
    "step": "step",
}
"""Phrases (as typed, lower case) naming a call of the training step. A bare "step" is the optimizer's only as a
call ("opt.step()", "then step") and never beside a number ("after 100 steps")."""

STEP_OWNERS = frozenset("optimizer opt optim scaler sched".split())
"""Words before "step" that make it a call ("optimizer.step()", "scaler.step(opt)")."""

ORDER_AFTER = frozenset("after following".split())
"""Words before a call saying the call just named runs after it ("zero_grad after backward")."""
ORDER_BETWEEN = frozenset({"between"})
"""A word placing the call just named between the two calls that follow ("zero_grad is between backward and step")."""

CALL_ORDERS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    # the gradients cleared after backward() filled them and before the step read them: every step is lost
    (("backward", "zero_grad", "step"), {"zero_grad_call": "between_backward_and_step"}),
    # gradients clipped while the GradScaler's scale still multiplies them
    # (a clip said to run in an order is clipping in use)
    (("clip", "unscale"), {"clip_order": "before_unscale", "grad_scaler": True, "grad_clipping": True}),
    (("unscale", "clip"), {"clip_order": "after_unscale", "grad_scaler": True, "grad_clipping": True}),
)
"""Calls said to run in this order (each strictly after the one before it) and what that states."""

CALLS_LEFT_OUT: tuple[tuple[str, str, dict[str, Any]], ...] = (
    # clipping with the unscale said not to happen ("I never call unscale_")
    ("clip", "unscale", {"clip_order": "before_unscale", "grad_scaler": True, "grad_clipping": True}),
)
"""A call said to run while another is said not to (negated), and what that states."""

# ------------------------------------------------------------------------------------------ pasted evidence

ERROR_SIGNATURES: tuple[tuple[str, dict[str, Any]], ...] = (
    # autograd
    (r"element 0 of tensors does not require grad|does not have a grad_fn|has no grad_fn",
     {"boundary_topic": "autograd_error"}),
    (r"backward through the graph a second time|saved tensors after they have already been freed",
     {"boundary_topic": "autograd_error"}),
    # (the in-place check said with a hyphen or in words: "the in-place modification error", "inplace-operation
    # autograd error"; a parameter, a leaf, changed in place outside no_grad)
    (r"modified by an in-?place operation|\bin-?place[ -](?:operation|modification|op)s?\b[^.\n]{0,30}?\berror\b|"
     r"\berror\b[^.\n]{0,30}?\bin-?place[ -](?:operation|modification)s?\b|"
     r"leaf variable\b[^.\n]{0,60}?\bin-?place\b", {"boundary_topic": "autograd_error"}),
    # a custom autograd Function whose backward returns another number of gradients than forward took inputs
    (r"incorrect number of gradients|returned an invalid gradient at index", {"boundary_topic": "custom_autograd"}),
    # torch.utils.checkpoint's warning (reentrant variant): the checkpointed segment's inputs carry no grad
    (r"none of the inputs have requires_grad=true", {"checkpoint_inputs_no_grad": True, "symptom": "not_learning"}),
    # devices, dtypes and shapes
    (r"expected all tensors to be on the same device|found at least two devices|"
     r"input type \(torch\.(?:cuda\.)?\w+\) and weight type \(torch\.(?:cuda\.)?\w+\) should be the same|"
     r"tensors? on different devices|(?:model|inputs?|labels?|targets?)\b[^.\n]{0,40}\bon the (?:gpu|cpu|cuda)\b"
     r"[^.\n]{0,40}\bon the (?:gpu|cpu|cuda)", {"boundary_topic": "device_mismatch"}),
    (r"expected scalar type \w+ but found \w+|found dtype \w+ but expected \w+|"
     r"not implemented for '(?:float|int|long|double|half|bfloat16)'|expected (?:long|float)\b|"
     r"must have the same dtype|result type \w+ can'?t be cast to the desired output type",
     {"boundary_topic": "dtype_mismatch"}),
    (r"expected input batch_?size(?: \(\d+\))? to match target batch_?size|multi-?target not supported|"
     r"target size \(torch\.size\(\[[\d, ]*\]\)\) must be the same as input size|"
     r"target size must be the same as input size|size of tensor a \(\d+\) must match the size of tensor b|"
     r"shapes? (?:cannot|can'?t|can not|could not) be multiplied|size mismatch between|size mismatch,? m1\b|"
     r"0d or 1d target tensor expected",
     {"boundary_topic": "shape_mismatch"}),
    # (a kernel that failed: an index past a table's end, or a cuBLAS/cuDNN call; its status named with underscores
    # or in words; cuBLAS failing to allocate is memory, below)
    (r"device-side assert|device side assert|assertion `t >= 0 && t < n_classes` failed|"
     r"srcindex < srcselectdimsize|index out of range in self|illegal memory access|unspecified launch failure|"
     r"cublas[_ ]status[_ ](?!alloc)[a-z]+|cudnn[_ ]status[_ ](?:execution|mapping)[_ ]",
     {"boundary_topic": "cuda_assert"}),
    # memory
    # (said the other way round too: "gpu memory runs out in validation")
    (r"cuda out of memory|outofmemoryerror|out of (?:(?:cuda|gpu|vram|device|video)\s+)?memory|\booms?\b|"
     r"\boom(?:'?d|ed|ing)\b|\b(?:gpu|cuda|vram|device) (?:memory )?(?:runs?|ran|running) out\b",
     {"boundary_topic": "cuda_oom"}),
    # distributed
    (r"watchdog caught collective operation timeout|nccl (?:watchdog )?time ?out|collective operation timeout|"
     r"nccl\w* (?:allreduce |all_reduce )?timed out|watchdog timed out|watchdog timeout",
     {"boundary_topic": "collective_timeout", "multi_gpu": True}),
    # data loading
    # (the loader said as "the data loading" too, and its hang as a deadlock or a freeze; a stall is its slowness)
    (r"dataloader worker|worker \(pid|(?:dataloader|data ?loader|data loading)\w* "
     r"(?:crash|fail|die|hang|deadlock|freez)\w*|bus error encountered in worker|"
     r"workers? (?:keep )?(?:dying|died|crash)|"
     r"worker process of the dataloader|"
     # (an error that comes only with worker processes, the single-process loader fine: "errors only when
     # num_workers>0", "with num_workers=2 training dies with a h5py error", "random errors inside the worker")
     r"(?:error|exception|crash|fail)\w*[^.!?\n]{0,40}?\b(?:inside|in)\s+(?:the\s+|a\s+|each\s+)?workers?\b|"
     # (a failure to do something is no error here either: "the val error fails to go down with num_workers=4")
     r"(?<!training\s)(?<!train\s)(?<!val\s)(?<!validation\s)(?<!test\s)"
     r"(?:(?:error|exception|crash|dies|died)\w*|fail(?:s|ed|ure|ures|ing)?\b(?!\s+to\b))"
     r"[^.!?\n]{0,30}?\b"
     r"(?:only\s+)?(?:when|with|if|for)\s+(?:using\s+)?"
     r"(?:num_workers|workers)\s*(?:>\s*=?\s*[01]|=\s*[1-9]|is\s+(?:above|more\s+than|over)\s+0)|"
     r"\b(?:num_workers|workers)\s*(?:>\s*=?\s*[01]|=\s*[1-9]\d*)[^.!?\n]{0,50}?\b(?<!training\s)(?<!train\s)(?<!val\s)"
     # ("the model fails to learn", "accuracy fails to improve": a failure to do something is no error)
     r"(?<!test\s)(?<!validation\s)(?:(?:error|exception|crash|dies|died)(?:s|ed|es)?|fail(?:s|ed|ure)?(?!\s+to\b))\b"
     r"(?!\s+(?:rate|goes|went|is|was|drops|falls))",
     {"boundary_topic": "dataloader_failure"}),
    # an object a worker process or a spawned rank cannot receive
    (r"can'?t pickle|cannot pickle|\bpicklingerror\b|\bpickling error\b|not picklable|unpicklable",
     {"boundary_topic": "pickling"}),
    # DDP's check that every parameter got its gradient reduced in the step before (a branch left unused)
    (r"expected to have finished reduction|finished reduction in the prior iteration|"
     r"prior iteration(?:'s)? reduction|reduction (?:was |is )?not finished",
     {"collective_failure": "unfinished_reduction", "multi_gpu": True, "symptom": "crash"}),
    # best-checkpoint selection or early stopping with no metric to select on where it runs: evaluation off, on
    # another schedule than saving, or the monitored name never logged (transformers' and Lightning's checks)
    (r"load_best_model_at_end requires|save and eval strategy to match|round multiple of the evaluation steps|"
     r"could not find the monitored key|early stopping conditioned on metric|"
     r"metric_for_best_model[^.\n]{0,80}not found", {"monitor_mode": "unavailable", "symptom": "crash"}),
    # binary cross-entropy's own check on its targets (BCELoss refuses values outside [0, 1])
    (r"all elements of (?:the )?target should be between 0 and 1",
     {"target_range": "outside_loss", "symptom": "crash"}),
    # data with no length (streaming, IterableDataset, a generator) where the trainer or a schedule needs the step
    # count: Hugging Face asks for max_steps, len() fails on the loader
    (r"max_steps must be (?:set|specified|a (?:positive|non-negative)|> ?0)|when streaming is set to true|"
     r"(?:dataloader|dataset|iterable) does not have a length|"
     r"(?:iterabledataset|iterable_dataset|generator|_iterabledatasetfetcher)'? has no len\(\)",
     {"data_length_unknown": True, "symptom": "crash"}),
    # dynamo recompiling (the cache limit), before any other compile error: the more specific family
    (r"recompil\w*|cache_size_limit|recompile_limit|torch\._dynamo hit config", {"boundary_topic": "recompile_limit"}),
    # compilation
    (r"torch\._dynamo|torch\._inductor|inductorerror|backendcompilerfailed|torch\.compile\b[^.\n]{0,40}"
     r"(?:fail|error|crash|throw)|(?:fail|error|crash)\w*[^.\n]{0,30}torch\.compile|inductor compilation failed",
     {"boundary_topic": "compile_error"}),
    # checkpoints
    (r"error\(s\) in loading state_dict|missing key\(s\)|unexpected key\(s\)|unexpected keys|missing keys|"
     r"size mismatch for [\w.]+|(?:torch\.load|load_state_dict|loading (?:the )?(?:saved model|checkpoint|state.dict))"
     r"[^.\n]{0,40}\bfail|checkpoint won't load|can't load my checkpoint|\bload\w* a \w+ checkpoint fails",
     {"boundary_topic": "checkpoint_load"}),
)
"""Signatures of pasted errors (lower case, regular expressions) and what each states."""

CRASH_SIGNS = (r"traceback \(most recent call last\)|\b\w*(?:error|exception):|\b(?:runtime|value|type|index|"
               r"key|assertion)error\b|\bcrash(?:es|ed|ing)?\b|\bkilled\b|\bfails? with\b|\bthrows?\b|"
               r"\berror\b|\bdies\b|\bdied\b|\bexited unexpectedly\b")
"""Words and lines showing the run stopped with an error (``symptom=crash``)."""

PASTED_EXCEPTION = r"traceback \(most recent call last\)|(?<![\w.])[a-z_.]{0,120}(?:error|exception): *[`'\"]?[a-z_]"
"""A pasted exception line (its class, a colon, its message: "RuntimeError: no `loss` value ...") or a traceback:
the run stopped there, whatever else the sentence names. The class name starts after a non-name character and is
bounded (a dotted run of any length tried from each of its characters is quadratic), and the message starts with a
letter: "train error: 0.12" is a metric, not an exception."""

PASTED_CRASH_PRIORITY = 8
"""The symptom priority of a crash shown by pasted evidence: above a tracker's name and a question said beside it
(``keywords.P_TRACKING``, ``P_DIRECT``: "training_step returns {'log': tensorboard_logs} and raises RuntimeError:
..." is a crash), below every behaviour of a run that trains (a crash is 1 when only named in words)."""

CRASH_TOPICS = frozenset({"autograd_error", "device_mismatch", "dtype_mismatch", "shape_mismatch", "cuda_assert",
                          "cuda_oom", "collective_timeout", "dataloader_failure", "pickling", "custom_autograd"})
"""Error families that stop the run where they happen (a compile or load error stops it before training)."""

COMPARED_MARKERS = frozenset("between than versus vs compare".split())
"""Words that introduce what is compared: a negation before them is the comparison's, not the compared things'
("no difference between the LoRA model and the base one" still names a LoRA model; "not better than Adam" still
names Adam)."""

SCOPE_VERBS = frozenset("predict classify detect recognize recognise".split())
"""Verbs that keep a negation before them for themselves: in "never predicts the rare class" the rare class is
still said (a light verb such as "use" or "call" passes it on: "I don't use warmup"; a verb of showing too: "the logs
don't show any NaN")."""

FIX_LEMMAS = frozenset("fix solve resolve".split())
"""Verbs (and the noun "fix") that keep a negation before them for themselves: "I haven't fixed the OOM yet", "no fix
for the NaN" still say the OOM and the NaN, live."""

OUTCOME_VERBS = frozenset("decrease drop fall go come converge improve learn change move budge help work reduce "
                          "increase rise climb".split())
"""Verbs of how a run fares (its figures moving, it learning, a remedy helping): a negation before one is its own,
and does not reach a setting the run has in a circumstance after it ("loss not decreasing with Adam" names Adam in
use; "doesn't converge with fp16" names fp16), as it does after a verb of use ("I'm not using Adam", "not training
with fp16")."""
CIRCUMSTANCE_PREPS = frozenset("with using under on in during for".split())
"""Prepositions that open the circumstance a run fares in, after a verb of :data:`OUTCOME_VERBS`."""


DATA_NOUNS = frozenset("data dataset sample example label image row instance record target datapoint point "
                       "observation".split())
"""Nouns naming the training data ("95% of my data", "99% of the samples")."""

TIME_UNITS = frozenset("hour hr h day minute min second sec s ms".split())
"""Units of a duration ("3 hours per epoch", "2 s per step")."""
STEP_OPERATIONS = frozenset("backward forward pass call step iteration iter batch update".split())
"""Parts of a training step whose duration a user quotes ("my loss.backward() call takes 5 seconds")."""
SLOW_COMPLAINTS = frozenset("slow slowly slower sluggish forever age ages painfully unbearably unacceptably "
                            "crawl".split())
"""Words that make a quoted duration a complaint ("takes 5 seconds, painfully slow"); a bare figure is none."""
TOO_LONG = frozenset("long longer".split())
"""Said after "too", "so", "very" or "way" ("way too long"), or before "than expected", a duration complained of."""

CRASH_NAMED = (r"traceback \(most recent call last\)|\b[a-z]+(?:error|exception)\b|\berror:|"
               r"\b(?:value|type|runtime|index|key|assertion|attribute) error\b|"
               # ("batchnorm error when the batch size is 1"; not a metric: "training error with dropout")
               r"(?<!training )(?<!train )(?<!test )(?<!validation )(?<!val )(?<!reconstruction )(?<!squared )"
               r"(?<!absolute )(?<!prediction )(?<!relative )\berror (?:when|whenever|with|from|inside|during|in)\b|"
               r"\b(?:an|this|that|the following|weird|strange|cryptic) (?:error|exception)\b|"
               # (not the crash a run was restarted from: "reloaded the checkpoint after a crash" is a resume's history)
               r"(?<!after a )(?<!after the )(?<!from a )(?<!from the )"
               r"\b(?:crash(?:es|ed|ing)?|segfaults?|core dumped|killed|throws? an?|raises? an?|aborted)\b|"
               r"\bexits? with (?:code|status)\b|\bexited with\b|"
               # a run said to die ("training with batch_size 16 dies at the end of the epoch", "the job died after 3
               # epochs"): the run (or "it") is the subject, a few words before; not a metric, the gradients, the
               # dropout, units or layers that die (dead ReLUs, vanishing gradients), nor a pet or a battery; nor a
               # value that dies down, out or to zero
               r"\b(?:training|train|run|job|process|processes|kernel|script|program|it|worker|trainer|notebook|"
               r"python|session|node|rank)\b(?:\s+(?!(?:accuracy|acc|loss|losses|dropout|gradients?|grads?|metrics?|"
               r"score|f1|auc|relus?|neurons?|units?|activations?|layers?|filters|channels|features|signal|"
               r"battery|it)\b)[\w.=,'-]+){0,8}?(?<!\brate)(?<!\blr)\s+die[sd]\b(?!\s+(?:down|out|off|away|to)\b)")
"""A crash named in words or pasted, when no error family is recognised (``symptom=crash``, weakly): an error
class ("RuntimeError"), an error line ("error:") or "an error" said of the run, never "training error"."""

RELOAD_SAVED_SIDE = frozenset("save saving saved train training trained checkpointing".split())
"""Words tying a metric to the model before it was saved ("93% before saving", "at the end of training 0.93")."""

RELOAD_LOADED_SIDE = frozenset("load loading loaded reload reloading reloaded restore restoring restored".split())
"""Words tying a metric to the model once loaded again ("12% after loading", "reloaded: 0.12")."""

SHARE_OWNERS = frozenset({"gpu_util", "memory", "data_time", "data_time_weak", "step_time", "step_time_weak",
                          "epoch_time", "throughput", "progress"})
"""Quantities (``QUANTITIES`` values) a percentage in their sentence belongs to: what the machine does or how far the
run is, so "30% during validation" beside GPU usage is no accuracy of the validation split."""

RELOAD_NOT_METRIC = frozenset("gpu cpu memory ram vram util utilization usage time speed throughput worker "
                              "dataloader loader data dataset disk progress take spend wait".split())
"""Words that make a percentage beside saving/loading something other than a score (GPU use, data loading time)."""

RELOAD_STORY_REACH = 14
"""Tokens before and after a reload word a score told in order around it is looked for in (``_reload_told_in_order``):
a clause or two ("at the end of training 91%, I saved it, loaded it in a new script and now it gives 10%")."""
RELOAD_NOT_STORY = frozenset("pretrained pretrain imagenet hub resume resumed resuming continue continued continuing "
                             "finetune finetuning fine-tune".split())
"""Words that make a load in a told story another thing than the trained model saved and loaded again: weights
pretrained elsewhere, a resumed run (``recent_change``), a model fine-tuned from it."""

RELOAD_DROP = 0.5
"""A score once reloaded at or below this fraction of the score before saving is a reload that lost the model."""

CLASS_NOUNS = frozenset("class categories category label cls".split())
"""Nouns counting classes ("10 classes", "num_classes=5")."""

CLASS_ID_FILLERS = frozenset("an i is of or to in on at as be it we".split())
"""Short words after a singular class noun that name no class ("10 class a problem" is no count of class "a"; "500
class b" is): read as words, not as a class's id, when a number before the noun might count that class."""

SERIES_TURN = 0.05
"""How far (relative) a printed series must fall back from its best value to have turned ("val_acc 0.86 ... 0.80")."""

SERIES_TREND = 0.1
"""How far (relative to its first value) a printed series moving one way throughout must get to be a rise or a fall
("eval loss: 1.21, 1.25, 1.38, 1.52" rises; "2.30, 2.29, 2.28" is too little to say)."""

SERIES_UNITS = frozenset("% percent pct percentage minute min second sec s ms hour hr h gb mb gib mib kb x "
                         "times".split())
"""Units after a printed series that make its numbers something other than the loss or accuracy it names ("the loss
goes 2, 3, 4 minutes per epoch", "12, 15, 19 percent higher")."""

SERIES_SWEEP = frozenset("across than vs versus respectively compared seeds runs models datasets configs settings "
                         "sizes lrs rates folds trials experiments repeats restarts".split())
"""Words after a printed series that make it one value per run of a sweep or comparison, not a curve over training
("0.41, 0.45, 0.52 for batch sizes 32, 64 and 128", "across 3 seeds", "higher than the paper"); matched on the word as
written, since "run" and "model" alone are the run being complained of."""

HUGE_LOSS = 1e6
"""A training loss said to be this large or more has diverged (losses of classification and regression start at
order 1-100 on standardized targets)."""

HUGE_GRAD_NORM = 1e3
"""A gradient norm said to be this large or more is exploding (healthy norms of the whole model are of order
0.1-10; clipping thresholds are set at about 1)."""

CALM_GRAD_NORM = 10.0
"""A gradient norm said to be below this just before a NaN was in its ordinary range (the same order 0.1-10 as
above): the NaN did not grow through it, one backward made it."""
GROWTH_WORDS = frozenset("climb rise grow increase explode spike jump blow shoot up creep balloon".split())
"""Words that say a gradient norm grew: a small value said beside one is where the growth began, not a calm."""

# ------------------------------------------------------------------------------------------ code in a complaint
# Users paste lines of their loop and name API calls ("I do `running_loss += loss`", "nn.Softmax before
# CrossEntropyLoss", "without torch.no_grad() for eval"): the code itself states what the loop does. Each idiom
# below is one entry: the code as typed (a pattern over the lower-cased text, bounded so one pass stays linear),
# what it states when it is said to run, what it states when it is said NOT to run ("I never call
# sampler.set_epoch", "validation without no_grad"; the negation is the reader's shared one, see
# ``expert.talk._Reader._negated``), and the other idioms it needs within reach (a softmax states a double
# softmax only beside a loss that applies its own). An idiom without observations is context for the others.


@dataclass(frozen=True)
class CodeIdiom:
    """One code idiom of a training loop and the observations it states.

    Attributes:
        id: Stable id (``CI-...``).
        pattern: A regular expression over the lower-cased text; bounded gaps only.
        sets: What the idiom states when it is said to run ({}: context only).
        absent: What it states when it is said not to run (negated before it, or "... is never called" after).
        needs: Groups of idiom ids (``"CI-A|CI-B"``); one of each group must be said to run within ``reach``.
        unless: Idiom ids that, said to run within ``reach``, make it state nothing (the fix already there).
        reach: Characters either side in which the ``needs`` and ``unless`` are looked for.
        inner_negation: A negation inside the match negates it (an idiom told in words: "the warmup does not end
            too early"); code idioms hold no negation of their own.
    """

    id: str
    pattern: str
    sets: dict[str, Any] = field(default_factory=dict)
    absent: dict[str, Any] = field(default_factory=dict)
    needs: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    reach: int = 200
    inner_negation: bool = False


_LOSS_CALL = r"(?:criterion|loss_fn|loss_func\w*|lossfn|crit|loss_function|f\.\w+_loss|nn\.functional\.\w+_loss)"
"""A loss computed in code ("criterion(out, y)", "F.mse_loss(...)")."""
_HELD = (r"(?:\w+_)?(?:outputs?|out|preds?|predictions?|logits|loss(?:es)?|y_?hat|yp|scores?|probs?|"
         r"embeddings?)")
"""A tensor a loop may keep: an output, a prediction or a loss, bare (no ``.item()``, ``.detach()``)."""

CODE_IDIOMS: tuple[CodeIdiom, ...] = (
    # -- context: what the code around an idiom is about
    CodeIdiom("CI-CE", r"crossentropyloss|\bf\.cross_entropy\b|\bcross_entropy\(|\bcross[- ]entropy\b|\bce loss\b"),
    CodeIdiom("CI-NLL", r"\bnllloss\b|\bnll_loss\b|\bnll loss\b"),
    CodeIdiom("CI-BCE-LOGITS", r"bcewithlogitsloss|binary_cross_entropy_with_logits|\bbce with logits\b"),
    CodeIdiom("CI-EVAL-CONTEXT", r"\bmodel\.eval\(\)|\bval(?:idation|idate)?\b|\beval(?:uation|uate)?\b|"
                                 r"\btest(?:ing)? (?:loop|step|set)\b|\binference\b"),
    CodeIdiom("CI-INFERENCE", r"\binference\b|\b(?:at|for) (?:test|prediction|predict) time\b|\bwhen predicting\b|"
                              r"\bfor predictions?\b|\bdeploy\w*"),
    CodeIdiom("CI-MEMORY", r"\b(?:v?ram|memory|mem|oom|out of memory|memory_allocated)\b"),
    CodeIdiom("CI-DDP", r"\bddp\b|distributeddataparallel|\bdistributed\b|\bmulti[- ]?gpu\b|\btorchrun\b"),
    CodeIdiom("CI-LOSS-WORD", r"\bloss(?:es)?\b|"
                              r"\b(?:metric|objective) (?:i|we) (?:optimi[sz]e|minimi[sz]e|train on)\b"),
    CodeIdiom("CI-LOSS-MADE", r"\bloss\w* *= *torch\.(?:tensor|from_numpy|as_tensor)\(|\bbackward\b|"
                              r"requires_grad *= *true|requires_grad_\(|\bcompute[sd]?\b|\bcalculat\w+|\bbased\b|"
                              r"\bgo(?:es)? through\b|\bconverted back\b|\bback to (?:a )?(?:torch )?tensor\b"),
    CodeIdiom("CI-ITEM-ADDED", r"\+= *\w+\.item\(\)(?! *\*)|\badds? (?:the )?loss\.item\(\)|\bloss\.item\(\) "
                               r"(?:per|each|every) batch|"
                               r"\bsum\w* (?:of )?(?:the )?(?:batch )?mean(?:s| loss(?:es)?)?\b|"
                               r"\bmean (?:batch )?loss(?:es)? summed\b|\bsum of (?:the )?batch losses\b"),
    CodeIdiom("CI-PER-EXAMPLE-SUM", r"\.item\(\) *\* *\w+(?:\.size\(0\)|\.shape\[0\]|_size)|"
                                    r"\bmultipl\w* (?:it |them |each )?by (?:the )?batch[ _]?size\b"),
    # -- the loop's calls and their absence
    CodeIdiom("CI-ZERO-GRAD", r"\bzero_grad\b", absent={"zero_grad_call": "missing"}),
    CodeIdiom("CI-SET-EPOCH", r"\bset_epoch\b", absent={"epoch_data_order": "repeated"}),
    # a training loader built without shuffling ("DataLoader(ds, shuffle=False)"), or its shuffle said to be left
    # out ("forgot shuffle=True"): the same order every epoch; an evaluation loader beside it is never shuffled,
    # as it should not be
    # (an evaluation split named in code, "val_loader", "test_ds", "eval_dataset", is one too)
    CodeIdiom("CI-EVAL-DATA", r"\b(?:val|valid|validation|eval|evaluation|test|testing|dev)_\w+|"
                              r"\b\w+_(?:val|valid|validation|eval|test|dev)\b"),
    # (and said in words: "shuffle is off", "shuffle false", "shuffling disabled")
    CodeIdiom("CI-SHUFFLE-OFF", r"\bshuffle\s*=\s*false\b|\bshuffl(?:e|ing)\s+(?:is\s+|was\s+|set\s+to\s+|turned\s+|"
                                r"switched\s+)?(?:false|off|disabled)\b", sets={"epoch_data_order": "repeated"},
              unless=("CI-EVAL-CONTEXT", "CI-EVAL-DATA"), reach=60),
    CodeIdiom("CI-SHUFFLE-ON", r"\bshuffle\s*=\s*true\b", absent={"epoch_data_order": "repeated"},
              unless=("CI-EVAL-CONTEXT", "CI-EVAL-DATA"), reach=60),
    CodeIdiom("CI-DIST-SAMPLER", r"\bdistributedsampler\b|\bdistributed sampler\b",
              absent={"rank_data": "identical"}, needs=("CI-DDP",)),
    CodeIdiom("CI-EVAL-CALL", r"\.eval\(\)", absent={"mode_switching": "validates_in_train_mode"},
              needs=("CI-EVAL-CONTEXT",)),
    CodeIdiom("CI-TRAIN-CALL", r"\bmodel\.train\(\)|\.train\(\)(?! *(?:loop|step|function))",
              absent={"mode_switching": "never_calls_train"}, needs=("CI-EVAL-CALL",)),
    # an evaluation run with autograd on: every batch's graph kept until the loop moves on
    CodeIdiom("CI-NO-GRAD", r"\bno_grad\b|\binference_mode\b", absent={"kept_graphs": "eval_with_grad"},
              needs=("CI-EVAL-CONTEXT",)),
    # -- an activation in front of a loss that applies its own
    CodeIdiom("CI-SOFTMAX", r"(?<!log)(?<!log_)(?<!log-)\bsoftmax\b(?! *\(dim *= *0)",
              sets={"output_activation": "softmax", "loss_fn": "cross_entropy"}, needs=("CI-CE",),
              unless=("CI-LOG-SOFTMAX", "CI-INFERENCE"), reach=120),
    # (a log-softmax before NLLLoss is the loss's own pairing: it is said only when normalising the wrong axis)
    CodeIdiom("CI-LOG-SOFTMAX", r"\blog_?softmax\b", sets={"output_activation": "log_softmax"},
              needs=("CI-NORM-DIM",), unless=("CI-INFERENCE",), reach=40),
    CodeIdiom("CI-NORM-DIM", r"\blog_?softmax\([^)\n]{0,40}dim *= *0\b|\bsoftmax\([^)\n]{0,40}dim *= *0\b",
              sets={"output_norm_dim": "other"}),
    CodeIdiom("CI-SIGMOID", r"\bsigmoid\b", sets={"output_activation": "sigmoid", "loss_fn": "bce_with_logits"},
              needs=("CI-BCE-LOGITS",), unless=("CI-INFERENCE",), reach=120),
    # -- how the loss reduces
    CodeIdiom("CI-SUM-REDUCTION", r"reduction *= *['\"]sum['\"]|size_average *= *false",
              sets={"loss_reduction": "sum"}),
    # -- graphs kept alive between steps
    CodeIdiom("CI-RUNNING-TENSOR", r"\+= *(?:loss\b(?! *\.(?:item|detach|cpu|tolist|data|numpy))|"
                                   rf"{_LOSS_CALL} *\()", sets={"kept_graphs": "running_loss_tensor"}),
    # (the same said in words: "I keep the predictions in a list", with the memory that grows from it)
    CodeIdiom("CI-KEPT-IN-DETACHED", r"\.detach\(|\.item\(|\.cpu\(|\.tolist\(|\.numpy\(|\bdetach\w*"),
    CodeIdiom("CI-LISTED-OUTPUTS", r"\b(?:append|stor|keep|kept|collect|sav|accumulat|gather)\w* (?:[\w']+ ){0,4}?"
                                   r"(?:outputs?|preds?|predictions|logits|output tensors)\b[^.\n]{0,40}?\b"
                                   r"(?:in|to|into) (?:a |the |my )?(?:python )?(?:lists?|self\.\w+)\b|"
                                   r"\b(?:keep|store|save|build|make)\w* a list of (?:the )?(?:model )?"
                                   r"(?:outputs?|preds?|predictions|logits)\b",
              sets={"kept_graphs": "stored_outputs"}, needs=("CI-MEMORY",), unless=("CI-KEPT-IN-DETACHED",),
              inner_negation=True),
    CodeIdiom("CI-LOSS-SUM-TENSOR", r"\b(?:sum|total) of (?:the )?loss(?:es)? as (?:a )?tensors?\b|"
                                    r"\bloss(?:es)? (?:summed|accumulated|added up) as (?:a )?tensors?\b",
              sets={"kept_graphs": "running_loss_tensor"}, inner_negation=True),
    CodeIdiom("CI-APPEND-TENSOR", rf"\.(?:append|extend)\( *{_HELD} *\)", sets={"kept_graphs": "stored_outputs"}),
    # the loss kept only as a Python number ("I log loss.item()", "I only accumulate loss.item()", "running +=
    # loss.item()"): no graph is held through the running loss; said beside a kept tensor, that one stands
    CodeIdiom("CI-ITEM-ONLY", r"\b(?:log|logg\w*|print\w*|track\w*|record\w*|accumulat\w*|sum\w*|add\w*|keep\w*|"
                              r"stor\w*|use|using|append\w*|collect\w*) (?:only |just )?(?:the )?(?:\w+\.)?"
                              r"loss\w*\.item\(\)|\+= *(?:\w+\.)?loss\w*\.item\(\)(?! *\*)",
              sets={"kept_graphs": "none"},
              unless=("CI-RUNNING-TENSOR", "CI-APPEND-TENSOR", "CI-LISTED-OUTPUTS", "CI-LOSS-SUM-TENSOR"), reach=400),
    # -- where the graph between the loss and the weights is cut
    CodeIdiom("CI-NUMPY", r"\.numpy\(\)|\btorch\.from_numpy\b|\bnumpy\b|\bnp\.\w+\(|\bscipy\b|\bsklearn\b",
              sets={"graph_cut": "numpy"}, needs=("CI-LOSS-WORD", "CI-LOSS-MADE"), unless=("CI-EVAL-CONTEXT",),
              reach=100),
    CodeIdiom("CI-DETACHED-LOSS", rf"\bloss\w* *= *{_LOSS_CALL}\([^)\n]{{0,60}}\.detach\(\)",
              sets={"graph_cut": "detach"}),
    CodeIdiom("CI-ITEM-REWRAPPED", r"torch\.tensor\([^)\n]{0,40}\.item\(\)", sets={"graph_cut": "item"}),
    # -- a running loss averaged over the wrong count (a sum of batch means over the number of examples)
    CodeIdiom("CI-OVER-DATASET", r"/ *len\( *[\w.]*dataset *\)|/ *(?:num|n|total)_(?:samples|examples|images)\b|"
                                 r"\bdivid\w* [^.\n]{0,60}?by (?:the )?(?:total )?(?:number of (?:samples|examples|"
                                 r"images|items|data points)|(?:dataset|data set) size|size of the dataset|"
                                 r"sample count|len\( *[\w.]*dataset)",
              sets={"logged_loss": "wrong_denominator"}, needs=("CI-ITEM-ADDED",), unless=("CI-PER-EXAMPLE-SUM",),
              reach=160),
    CodeIdiom("CI-REWRAPPED", rf"\b(?:loss\w*|pred\w*|out\w*|y_?hat) *= *torch\.(?:tensor|as_tensor)\( *{_HELD} *[,)]",
              sets={"graph_cut": "detach"}),
    # -- every parameter frozen in code (a whole model set not to require grad), unless some are unfrozen again
    CodeIdiom("CI-UNFROZEN", r"requires_grad *= *true|requires_grad_\( *(?:true)? *\)|\bunfreez\w*"),
    CodeIdiom("CI-ALL-FROZEN", r"\bfor \w+ in (?:self\.)?model\.parameters\(\) *: *\w+\.requires_grad *= *false\b|"
                               r"\b(?:self\.)?model\.requires_grad_\( *false *\)",
              sets={"frozen_fraction": 1.0}, unless=("CI-UNFROZEN",), reach=300),
    # -- a GradScaler said to be left out of an fp16 loop
    CodeIdiom("CI-GRAD-SCALER", r"\bgradscaler\b|\bgrad scaler\b|\bloss scaler\b", absent={"grad_scaler": False}),
    # -- an LR schedule stepped in other units than it was defined in (a per-epoch schedule stepped each batch,
    # a schedule counted in steps stepped once an epoch)
    CodeIdiom("CI-PER-BATCH", r"\b(?:every|each|per) (?:batch|iteration|iter|mini-?batch|training step)\b|"
                              r"\b(?:inside|in) the (?:batch|inner|training|train|step) loop\b"),
    CodeIdiom("CI-PER-EPOCH", r"\b(?:once )?(?:per|each|every) epoch\b|\bat the end of (?:each|every|the) epoch\b|"
                              r"\b(?:in|inside) the epoch loop\b"),
    CodeIdiom("CI-EPOCH-SCHEDULE", r"\bsteplr\b|\bmultisteplr\b|\bexponentiallr\b|\bt_max *= *\w*epoch|"
                                   r"\bstep_size *= *\d+\b|\bmilestones *="),
    CodeIdiom("CI-STEP-SCHEDULE", r"\bonecyclelr\b|\btotal_steps\b|\bnum_training_steps\b|"
                                  r"\bget_\w+_schedule_with_warmup\b|\bsteps_per_epoch\b|\bt_max *= *[^,)\n]{0,30}"
                                  r"(?:len\(|steps)"),
    # (the same told by its effect: a warmup or decay said to end far too early has been stepped too often)
    CodeIdiom("CI-SCHEDULE-ENDS-EARLY", r"\b(?:warm-?up|schedule|scheduler|decay|annealing)\w* (?:\w+ ){0,2}?"
                                        r"(?:finish|end|complet|is over|runs? out|ran out|reach)\w* (?:\w+ ){0,2}?"
                                        r"(?:far |much |way )?(?:too (?:early|soon|fast|quickly)|long before)\b",
              sets={"scheduler_pace": "too_fast"}, unless=("CI-YES-NO-QUESTION",), reach=80, inner_negation=True),
    CodeIdiom("CI-SCHED-PER-BATCH", r"\b\w*sched\w*\.step\(\)", sets={"scheduler_pace": "too_fast"},
              needs=("CI-PER-BATCH", "CI-EPOCH-SCHEDULE"), unless=("CI-STEP-SCHEDULE", "CI-PER-EPOCH")),
    CodeIdiom("CI-SCHED-PER-EPOCH", r"\b\w*sched\w*\.step\(\)", sets={"scheduler_pace": "too_slow"},
              needs=("CI-PER-EPOCH", "CI-STEP-SCHEDULE"), unless=("CI-PER-BATCH", "CI-EPOCH-SCHEDULE")),
    # -- a language model's labels shifted twice: by the user's code, and again inside a model given the labels
    CodeIdiom("CI-MODEL-SHIFT", r"\([^()\n]{0,60}?\blabels *= *[^,)\n]{1,30}[,)]|\bwith labels *=|"
                                r"\b\w+forcausallm\b|\b\w*lmheadmodel\b|"
                                r"\b(?:model|it|forward|loss)(?:'s \w+)?(?: also| then)? "
                                r"(?:shifts|will shift|computes)\b|"
                                r"\bshifts? (?:them |the labels |the targets )?(?:again|internally|inside)\b|"
                                r"\b(?:give|pass) (?:the )?(?:labels|targets) to the model\b|\bwhich shifts\b"),
    CodeIdiom("CI-YES-NO-QUESTION", r"(?:^|[.!?\n] *)(?:does|do|will|would|could|can|should|is|are)\b"),
    CodeIdiom("CI-SHIFT-QUESTION", r"\b(?:do|should) (?:i|we) (?:need to |have to )?shift\b|\bwhether\b|\bor does\b"),
    CodeIdiom("CI-MANUAL-SHIFT", r"\b(?:labels?|targets?|input_ids)\w* *\[ *(?:\.\.\.|:) *, *1 *: *\]|"
                                 r"\bshift\w* (?:the )?(?:labels|targets)(?: by one)? (?:myself|manually|by hand)\b|"
                                 r"\b(?:labels|targets) (?:are |were )?(?:already )?(?:shifted|offset) (?:by one|"
                                 r"manually|myself)\b|\bshifted (?:the )?(?:labels|targets) manually\b|"
                                 r"\b(?:labels|targets) shifted manually\b",
              sets={"label_shift": "double"}, needs=("CI-MODEL-SHIFT",), unless=("CI-SHIFT-QUESTION",), reach=160),
    CodeIdiom("CI-SHIFTED-TWICE", r"\b(?:label |target )?shift\w* (?:is |was )?(?:done |applied )?twice\b|"
                                  r"\bdouble[- ]shift\w*", sets={"label_shift": "double"},
              unless=("CI-SHIFT-QUESTION",)),
    CodeIdiom("CI-WRONG-COUNT", r"\b(?:number|count) of (?:examples|samples|images) instead of (?:the )?(?:number of )?"
                                r"batches\b|"
                                r"\bdivided by (?:the )?(?:dataset size|number of (?:samples|examples|images))"
                                r"[^.\n]{0,20}?\b(?:not|instead of) (?:by )?(?:the )?(?:number of )?batches\b",
              sets={"logged_loss": "wrong_denominator"}),
    # -- torch's warning of a target that broadcasts, quoted or told
    CodeIdiom("CI-TARGET-SIZE-WARNING", r"\busing a target size\b|\bdifferent to the input size\b|"
                                        r"\btarget size (?:being |is )?different\b|"
                                        r"\bextra dim(?:ension)? of (?:size )?1\b|"
                                        r"\bone column\b[^.\n]{0,40}\bflat vector\b",
              sets={"target_shape": "broadcast"}),
    # -- the shapes of a prediction and its target said side by side, differing by a trailing 1 ("[64, 1] vs
    # [64]", "(N,1) ... (N)"): a regression loss broadcasts them; a classification loss takes [N, C] against [N]
    CodeIdiom("CI-SHAPE-BROADCAST", r"[\[(] *(?P<a>\w+) *, *1 *[\])][^\n]{0,80}?[\[(] *(?P=a) *,? *[\])]|"
                                    r"[\[(] *(?P<b>\w+) *,? *[\])][^\n]{0,80}?[\[(] *(?P=b) *, *1 *[\])]",
              sets={"target_shape": "broadcast"}, needs=("CI-LOSS-WORD",), unless=("CI-CE", "CI-NLL"), reach=160),
)
"""Code idioms of a training loop (``expert.talk`` reads them all in one pass)."""

CODE_ABSENT_AFTER = frozenset("missing absent".split())
"""Words after a call saying it is not there ("zero_grad() is missing")."""
CODE_CALL_VERBS = frozenset("call use run apply set do invoke include wrap there".split())
"""Verbs that, negated after a call ("set_epoch is never called"), say it does not run."""
CODE_ABSENT_LEADS = frozenset("forget forgot forgotten miss omit skip lack".split())
"""Words before a call saying it was left out ("I forgot model.train()")."""
CODE_HITS = 256
"""Matches of one idiom read at most: a pasted log repeating one line has said all it says long before."""


# -- the coarse reading: the last resort of the text reader (``expert.text``), read only when neither the cue list
# nor the composed readings understood anything. Words are written as stems: a trailing ``*`` matches any ending,
# an apostrophe is dropped before matching ("doesn't" is "doesnt"), and a word matches as typed or as its lemma
# (``knowledge.forms``: "died" and "dies" are "die", "hung" is "hang"). The families and their cue words come from how
# the seeds describe each symptom family (not learning, unstable, overfitting, slow, crash, memory) and from the
# general words of the dev phrasings; none is a phrase of a known complaint.

COARSE_TOPIC = frozenset(
    "loss losses accuracy acc metric* score* f1 auc bleu wer iou train training trained trains finetun* model models "
    "network net nets epoch* gpu* cuda batch* optimizer* optimiser* gradient* grad grads layer* weights params "
    "parameters lr learning checkpoint* iteration* dataset* dataloader* validation val torch pytorch lightning "
    "transformer* encoder* decoder*".split())
"""Words that make a text about a training run: without one, the coarse reading stays silent (off-topic text)."""
COARSE_TOPIC_TOGETHER = (frozenset("label* annotation*".split()),
                         frozenset("sample* example* input* image* class* dataset*".split()))
"""Words that make a text about training data only together: labels of samples (a jar's label is not)."""

SERVING_WORDS = frozenset("inference serving serve served deploy* production predict* api endpoint* latency "
                          "answer* respond* reply replies replied".split())
"""Words of a model in use, not in training (stems, as the coarse words are written): a slowness said beside one is
the model's speed in use (the ml-production boundary), no slow training run."""
TRAINING_WORDS = frozenset("train training trainer epoch step iteration iter fit finetune fine-tune batch "
                          "dataloader loader".split())
"""Words of a training run (lemmas): a speed said in a clause with one is the run's, whatever else is named."""
IN_USE_SUBJECTS = frozenset({None, "pronoun", "run", "model", "predictions"})
"""Quantities a speed said beside serving words is the model-in-use's speed of ("the model answers slowly once
deployed", "predictions are slow on the server"); a named curve keeps its own reading."""
COARSE_CONTENT = SERVING_WORDS
"""The coarse reading's name for ``SERVING_WORDS``."""
SEARCH_WORDS = frozenset("grid grids gridsearch gridsearchcv sweep sweeps hyperparameter* hyper-parameter* hparam* "
                         "trial trials optuna".split())
"""Words of a hyperparameter search (stems): a slowness said beside one is the search's cost in runs ("the grid
search takes forever", "each sweep takes days"), which many runs explain, no slow training run."""

COARSE_HEALTHY = frozenset("fine well normal normally nicely healthy expected good great ok okay smoothly".split())
"""Words that describe a run as healthy: unnegated, the coarse reading stays silent (no false alarm)."""
COARSE_CONTRAST = frozenset("but however whereas yet though although".split())
"""Words that turn a sentence from what is healthy to what is not ("fine on train but bad on test"): a healthy word
before one in its sentence silences nothing, and only what follows the contrast is read."""

# -- the status of a clause (``expert.talk.clause_status``), one judgement for every reading path: the composed
# readings, the cue list and the coarse fallback. What a clause says is stated, negated, asked, hedged, or past and
# fixed; the words below decide which.
BELIEF_WORDS = frozenset("think thought believe sure certain convinced".split())
"""Verbs of belief: negated ("I don't think", "I'm not sure") they deny all that follows in the sentence, however
far ("I don't really think the loss is exploding")."""
DOUBT_WORDS = frozenset("doubt unsure".split())
"""Words of doubt that deny what follows in their sentence without a negation ("I doubt the loss diverges")."""
WH_WORDS = frozenset("why what how where when which who".split())
"""Words after "not sure" that ask about a thing said rather than doubt it ("not sure why it diverges")."""
SUBORDINATORS = frozenset("until unless once if after before because since".split())
"""Words that open a clause of their own inside a sentence: a negation before one does not reach past it ("grows
without limit until I get out of memory", "doesn't converge unless I lower the lr", "the grads are none since I
resumed": the resume is said, not denied)."""
ASKING_OPENERS = frozenset("why how what where when which who whats hows is are does do did can could should would "
                           "will has have any anyone help idea ideas thoughts suggestions".split())
"""Words a real question opens with ("why does the loss explode?" still says it explodes); a statement that ends
in a question mark without one ("the weights differ between ranks?") only asks whether it is so."""
NEXT_DENIALS = (("they", "dont"), ("they", "do", "not"), ("they", "arent"), ("they", "are", "not"),
                ("theyre", "the", "same"), ("they", "are", "the", "same"), ("it", "doesnt"), ("it", "isnt"),
                ("they", "didnt"), ("they", "did", "not"), ("theyre", "all", "the", "same"),
                ("they", "are", "all", "the", "same"))
"""Words that, opening the next sentence (or near its start: "I checked, they don't"), deny the one before
(apostrophes dropped)."""
NEXT_NO = (frozenset("no nope".split()), frozenset("they theyre it its thats all everything same".split()))
"""A bare "no" opening the next sentence denies only alone or before what it denies ("No, they're the same");
"No idea why" denies nothing."""
NEXT_DENIAL_WORDS = 5
"""Words of the next sentence a denial is looked for in."""
RESOLVED_FORMS = frozenset("fixed solved resolved gone".split())
"""Past forms that say a trouble is over ("that's fixed now", "solved by lowering the batch", "the OOM is gone"):
said after the trouble, unnegated and of the trouble itself, they make it history. (Not "vanished": "the gradients
vanished" is a trouble; "gone" is said of the trouble only as its own subject or a pronoun, never "gone up".)"""
RESOLVED_PHRASES = (("went", "away"), ("got", "rid"), ("no", "longer", "happens"), ("not", "anymore"))
"""Phrases that say the same (as typed, apostrophes dropped)."""
RESOLVED_OBJECTS = frozenset("it that this them these those by with after when since now already for but and "
                             "so".split())
"""Words that may follow a past form of ``RESOLVED_FORMS`` when it is said of the trouble ("fixed it by ...",
"solved by ...", "OOM gone but now ..."); any other ("fixed the seed", "fixed a bug") makes it said of another thing."""
RESOLVED_PRONOUNS = frozenset("it that this them these those".split())
"""Objects after "fixed" that stand for the trouble said before ("fixed it by clipping")."""
RESOLVED_SUBJECTS = frozenset("it its that thats this which they theyre everything problem issue".split())
"""Subjects of a passive "fixed" that are the trouble ("that's fixed now"); "the lr was fixed" is the LR's."""
RESOLVED_AUX = frozenset("is was been be got gets get has have had now finally mostly all also seems".split())
"""Words between a passive "fixed" and its subject ("it has finally been fixed")."""
RELAPSE_WORDS = frozenset("still again back return returns returned reappear reappears reappeared recur recurs "
                          "recurred".split())
"""Words after a resolution that say the trouble came back ("fixed it, but it comes back after 1k steps")."""
RELAPSE_BACK_AFTER = frozenset("come comes came coming be is are was were its thats theyre go goes went going get gets "
                               "got".split())
"""Words after which "back" says the trouble returned ("it came back", "it's back"); after any other ("lowering it
back", "set the lr back") it says where a setting was put."""
RELAPSE_LEAD_WORDS = frozenset("now then and so also".split())
"""Words that may open a clause before its named subject ("..., now the loss still goes NaN"): passed over when
looking for that subject (``RELAPSE_DETERMINERS``)."""
RELAPSE_DETERMINERS = frozenset("the a an my our your their his her".split())
"""Words that open a named subject: a relapse word ("still") in a clause whose subject so named is not one of the
trouble's words says another thing is live ("OOM is solved, the loss still plateaus"), not that the trouble came
back. A pronoun or no subject ("but it still happens", "still does") keeps it a relapse."""
RESOLUTION_REACH = 30
"""Tokens after the trouble's clause that a resolution of it is looked for in (and, after a resolution, a relapse):
a fix is said beside its trouble ("we had OOM last week, solved by lowering batch"), and the bound keeps a long
message with no full stop from costing each word a walk to its end."""
FIXER_WORDS = RESOLVED_SUBJECTS | RESOLVED_AUX | frozenset(
    "i we you someone somebody finally already just actually eventually one".split())
"""Words between what opens a fix's own clause and the fix ("after <I finally> fixed it", "although <everything
was> fixed", "no <one has> fixed it")."""
UNRESOLVING_WORDS = frozenset("after since once when whenever although though even if unless until before because "
                              "think thought believe believed assumed hoped figured sure nobody noone no".split())
"""Words that, opening a fix's own clause, keep it from saying the trouble is over: a time ("right after I fixed
it"), a concession ("although everything was fixed"), a belief ("I thought I fixed it"), or no one ("nobody has
fixed it")."""
DENIAL_ENDS = frozenset({("it", "just"), ("its", "just"), ("it", "only"), ("they", "just"), ("theyre", "just")})
"""Word pairs (apostrophes dropped) that end what a denied belief is said of, as a comma or "but" do: "I don't
think the loss is exploding it just plateaus" denies the explosion only."""
FIXED_VERBS = frozenset("fixed solved resolved eliminated cured".split())
"""Past forms of a fix said with the trouble as their object ("I fixed the OOM, now the loss is NaN", "solved the
NaN issue"): the object is history, and what the next clause says is the run now. (Not "sorted": data is sorted.)"""
FIXING_VERBS = frozenset("fixing solving resolving eliminating curing".split())
"""Their gerunds, a fix done only after a word of time before them (``FIXED_AFTER``): "after fixing the shape error,
training is slow" (not "I'm fixing the OOM", "tried fixing the OOM")."""
FIXED_AFTER = frozenset("after since upon".split())
"""Words of time that make a gerund of ``FIXING_VERBS`` a fix done."""
RID_PHRASE = ("rid", "of")
"""The words that make "got rid of the OOM" a fix said with its object (after a form of "get")."""
FIXED_OBJECT_FILLERS = frozenset("the a an my our your this that these those its their all initial first original "
                                 "earlier previous old annoying stupid weird random occasional constant frequent "
                                 "persistent cuda gpu vram".split())
"""Words that may stand between a fix and the trouble it names as its object ("fixed the annoying cuda OOM"); any
other ("fixed the seed and now the loss is NaN", "fixed a bug, loss still NaN") makes the object another thing."""
FIXED_OBJECT_FILLER_REACH = 3
"""Words of ``FIXED_OBJECT_FILLERS`` at most between a fix and its object."""
FIX_UNDONE_OPENERS = frozenset("think thought believe believed assumed hoped figured sure nobody noone no if unless "
                               "whether".split())
"""Words that, opening a fix said with its object, keep the object live: a belief ("I thought I fixed the OOM"), no
one ("nobody has solved the NaN"), a condition ("if I fixed the OOM"). A time does not ("after I fixed the OOM, the
loss is NaN": the OOM is over), unlike a fix said after its trouble (``UNRESOLVING_WORDS``)."""
PAST_MARKERS = frozenset("had was were been went gone got became used last yesterday earlier previously before ago "
                          "once initially originally".split())
"""Words that put a clause in the past (as do past forms, "exploded"): only a trouble said in the past is made
history by a resolution after it; "training unstable; lowering the lr solved it" says the run's trouble and its
remedy."""
PAST_HABIT = (("used", "to"),)
"""Words that say a state was once and is no longer ("the loss used to go NaN"): what follows them is history."""
HABIT_FILLERS = frozenset("be get go become keep run take have always often sometimes randomly suddenly really very so "
                          "quite pretty super extremely just constantly occasionally frequently".split())
"""Lemmas that may stand between "used to" and the trouble it makes history ("used to be really slow", "used to
randomly go NaN"); any other ("the script I used to train the model crashes") makes "used" another verb's."""
HISTORY_NAMES = frozenset({"symptom", "loss_behavior", "nan_onset", "nan_step", "nan_phase", "concern",
                           "boundary_topic", "error_text"})
"""Observations of the trouble itself: a clause that says it is past and fixed sets none of them."""

COARSE_CHARS = 4000
"""Characters of a text the coarse reading looks at: a complaint's words, not a pasted log's (whose lines the
evidence readers own), so a megabyte of unread log costs the fallback no more than a long message."""
COARSE_PAIR_REACH = 6
"""Words between a subject and its direction word for a pair cue ("the val loss ... keeps going up")."""


@dataclass(frozen=True)
class CoarseFamily:
    """One symptom family the coarse reading can name, with the general words that suggest it.

    Attributes:
        family: The family's name, as the clarifying question says it.
        sets: The observation read when this family alone is suggested.
        phrases: Word sequences (stems) that suggest it; one starting with a negator is read as a whole.
        subjects: With ``directions``: a subject near a direction word suggests it ("memory ... grows").
        directions: See ``subjects``.
        needs: Words of which one must appear in the same sentence ("validation" beside "train").
        unless_next: Words after a phrase's last word that make it another thing ("error rate" is a metric).
        unless_prev: Words before a phrase's first word that make it another thing ("test error").
        unless_words: Words anywhere in the text that make the family another concern (a model served).
        guarded: The phrases' first words ``unless_next`` and ``unless_prev`` guard (empty: all of them).
    """

    family: str
    sets: dict[str, Any]
    phrases: tuple[tuple[str, ...], ...] = ()
    subjects: frozenset[str] = frozenset()
    directions: frozenset[str] = frozenset()
    needs: frozenset[str] = frozenset()
    unless_next: frozenset[str] = frozenset()
    unless_prev: frozenset[str] = frozenset()
    unless_words: frozenset[str] = frozenset()
    guarded: frozenset[str] = frozenset()


def _seqs(text: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p.split()) for p in text.split(","))


_METRIC_WORDS = frozenset("loss losses accuracy acc metric* score* f1 auc bleu wer iou dice map".split())

COARSE_FAMILIES: tuple[CoarseFamily, ...] = (
    CoarseFamily("the loss or accuracy not improving", {"symptom": "not_learning"},
                 phrases=_seqs("not learn*, doesnt learn*, dont learn*, didnt learn*, never learn*, not train, "
                               "dont train, doesnt train, not improv*, doesnt improv*, dont improv*, no improvement, "
                               "not converg*, doesnt converg*, never converg*, wont converg*, not going down, "
                               "doesnt go down, wont go down, not decreas*, doesnt decreas*, not moving, "
                               "doesnt move, doesnt change, not changing, no progress, random guess*, chance level, "
                               "same prediction*, same output*, same class, always predict*, always says, "
                               "always output*, always return*, stay* the same, stayed the same, remain* the same, "
                               "same every*, same value*, same number*, barely budge*, doesnt budge, wont budge, "
                               "not budg*, dont get better, doesnt get better, not get* better, never get* better, "
                               "wont get better, not pick* anything up, doesnt pick anything up, "
                               "not pick* up anything"),
                 # (not "does nothing" or "no better": a setting or an optimizer is as often said so)
                 # ("same" only in a phrase: "the same loss function as the paper" is no loss standing still)
                 subjects=_METRIC_WORDS,
                 directions=frozenset("stuck flat constant stagnat* plateau* stall* unchanged".split())),
    CoarseFamily("instability (spikes, NaN, divergence)", {"symptom": "unstable"},
                 phrases=_seqs("nan, nans, inf, explod*, blow* up, blew up, spik*, diverg*, unstabl*, instabil*, "
                               "erratic*, fluctuat*, oscillat*, all over the place, jump* around, goes crazy, "
                               "go* haywire, out of hand, fall* apart, fell apart, go* wild, went wild, shoot* up, "
                               "shot up, skyrocket*"),
                 # (weights, gradients or outputs said to grow huge: values running away, as a diverging loss does)
                 subjects=frozenset("weights gradients grads grad activations logits outputs".split()),
                 directions=frozenset("huge enormous massive gigantic astronomical".split())),
    CoarseFamily("overfitting (training fine, validation worse)", {"symptom": "overfitting"},
                 phrases=_seqs("overfit*, over fit*, memoriz*, generaliz*"),
                 subjects=frozenset("val validation valid test eval evaluation dev holdout unseen".split()),
                 directions=frozenset("worse gap drop* diverg* poor* bad badly terribl* awful* horribl* bomb* "
                                      "tank* collaps*".split()),
                 needs=frozenset("train training trained".split())),
    CoarseFamily("slow training", {"symptom": "slow_training"},
                 phrases=_seqs("slow*, sluggish, takes forever, too long, speed up, forever, take longer, "
                               "take way longer, take much longer, take so long, take ages, crawl, crawls, crawling, "
                               "snail* pace"),
                 # (an epoch or a run said to take hours or days: a duration people quote when it is too long)
                 subjects=frozenset("epoch epochs step steps iteration* training run".split()),
                 directions=frozenset("hours hrs days day week weeks overnight ages".split()),
                 unless_words=COARSE_CONTENT | SEARCH_WORDS),
    CoarseFamily("an error or crash", {"symptom": "crash"},
                 phrases=_seqs("error*, exception*, traceback, crash*, segfault*, segmentation fault, killed, "
                               "abort*, throws, raised"),
                 unless_next=frozenset("rate rates metric bar bars analysis".split()),
                 unless_prev=frozenset("train training test val validation mean squared absolute "
                                       "reconstruction".split()),
                 guarded=frozenset({"error*"})),
    # (the same family in words that name a run dying rather than an error: "training dies", "the script quits";
    # its own guards: the gradients or ReLUs that die leave the run alive)
    CoarseFamily("an error or crash", {"symptom": "crash"},
                 phrases=_seqs("die, keeps dying, quits, quit unexpectedly, keeps quitting, fall over, fell over"),
                 unless_next=frozenset("down out off".split()),
                 unless_prev=frozenset("relu relus neuron neurons unit units gradient gradients grad grads "
                                       "activation activations accuracy acc loss dropout battery".split()),
                 # (a run is what dies: "the gradients basically died" names none)
                 needs=frozenset("training train run job process kernel script program it worker trainer notebook "
                                 "python session node rank".split())),
    CoarseFamily("a run that hangs (no progress, no error)", {"symptom": "hang"},
                 phrases=_seqs("hang, hangs, hanging, hung, lock up, locks up, locked up, deadlock*, unresponsive, "
                               "stop responding, stopped responding, nothing happens, freeze up, froze up"),
                 unless_next=frozenset("out around in".split())),
    CoarseFamily("a problem with the training data", {"symptom": "data_problem"},
                 phrases=_seqs("duplicat*"),
                 subjects=frozenset("data dataset* sample* image* images augment* preprocess* "
                                    "transform*".split()),
                 directions=frozenset("corrupt* messed ruin* garbage destroy* mangl*".split()),
                 needs=frozenset("data dataset* sample* image* augment* preprocess* transform*".split()),
                 # (labels are the label family's; duplicates removed or filtered are a step taken, no trouble)
                 unless_words=frozenset("label* annotation* mislabel* remov* dedup* filter* drop*".split())),
    CoarseFamily("metrics that look wrong", {"symptom": "metrics_wrong"},
                 phrases=_seqs("suspiciously high, impossibly high"),
                 subjects=_METRIC_WORDS,
                 directions=frozenset("suspicious* impossibl* unrealistic* inflated bogus".split())),
    CoarseFamily("a checkpoint or pretrained weights that do not load", {"concern": "model_wont_load"},
                 phrases=_seqs("dont load, doesnt load, wont load, not load*, cant load, cannot load, "
                               "couldnt load, unable to load, fail* to load, dont seem to load, "
                               "doesnt seem to load"),
                 needs=frozenset("checkpoint* weights pretrained state_dict ckpt".split())),
    CoarseFamily("a model or batch too big for the GPU's memory", {"concern": "cuda_oom"},
                 phrases=_seqs("doesnt fit, does not fit, dont fit, do not fit, not fit, wont fit, too big, "
                               "too large"),
                 needs=frozenset("gpu gpus card vram memory cuda".split())),
    CoarseFamily("memory growing", {"symptom": "memory_growth"},
                 phrases=_seqs("memory leak*"),
                 subjects=frozenset("memory ram vram mem".split()),
                 directions=frozenset("grow* increas* climb* rising rises accumulat* creep* eat* ate hog* "
                                      "balloon* skyrocket*".split())),
    # (labels no longer paired with their inputs: what a look at them would show, not a generic data problem, whose
    # route is the augmentation skill's)
    CoarseFamily("labels that do not match their inputs", {"label_check": "misaligned"},
                 phrases=_seqs("mislabel*, label noise, noisy label*, wrong label*, no longer paired, not paired, "
                               "dont match, do not match, doesnt match, no longer match*"),
                 needs=frozenset("label* annotation* target* class* mislabel*".split()),
                 subjects=frozenset("label labels annotation* target targets class classes".split()),
                 directions=frozenset("mismatch* misalign* wrong swapped mixed shuffl* corrupt* belong* messed "
                                      "incorrect*".split())),
    CoarseFamily("model copies that differ between GPUs", {"replicas_in_sync": "diverged"},
                 phrases=_seqs("out of sync, not in sync, no longer in sync"),
                 subjects=frozenset("weights parameters params replica* copies checksum*".split()),
                 directions=frozenset("differ* different mismatch* diverg* drift*".split()),
                 needs=frozenset("rank ranks replica* gpus nodes processes workers".split())),
    CoarseFamily("the speed of a model in use (inference, serving)", {"concern": "inference_speed"},
                 phrases=_seqs("slow*, faster, too long, latency, speed up"),
                 needs=COARSE_CONTENT),
)
"""The coarse reading's families, in the order the clarifying question names them."""

NO_MORE = frozenset({"anymore", "any more", "no long", "no more"})
"""Words that say a denied movement has stopped ("the loss doesn't go down anymore", "no longer decreases"): the
quantity moved before, so the stall is a plateau after learning, not a curve flat from the start. (Lemmas:
"no longer" is read as "no long".)"""
SCARCELY = frozenset("barely hardly scarcely".split())
"""Adverbs that make a change of no stated direction next to none ("hardly budges", "barely moves"): no change. Said
of a direction ("barely decreases") they are a slow pace instead (``MOVEMENTS``' "slow")."""
MINOR_WORDS = frozenset("some small minor slight little tiny".split())
"""Words that make the noise on a curve slight ("with some fluctuations", "small oscillations"): beside a flat curve
it is incidental, the stall is what the curve does."""
