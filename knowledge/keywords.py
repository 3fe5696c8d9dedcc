"""Free-text cues from the seeds' keyword lists: phrases -> observations, with priorities and negatability.

Priorities decide between cues that set the same observation differently (stability first):
instability 30 > overfitting 20 > not learning 15 > convergence 12 > slow 10 > multi-task 8 >
tracking 7 > direct question 5 > new setup 3. A value written ``$conv`` is read from the match (see
``expert.text``). Cues that already contain their negation ("not learning") are not negatable.
"""

from __future__ import annotations

from typing import Any

from knowledge.measurements import threshold

# the priority scale is the schema's (``Keyword.priority``), where the talk reader reads it without this module
from knowledge.schema import (
    P_DIRECT,
    P_MULTI_TASK,
    P_NEW_SETUP,
    P_NOT_LEARNING,
    P_OVERFIT,
    P_TRACKING,
    P_UNSTABLE,
    Cite,
    Keyword,
)
from knowledge.terms import LOSS_SPELLINGS, OPTIMIZER_SPELLINGS, SCHEDULE_SPELLINGS

_NL = Cite("000", "Symptom: model not learning", "keywords")
_LOOP = Cite("003", "Scope boundaries", "training loop issues (zero_grad, train/eval mode)")
_UN = Cite("001", "Symptom: training unstable", "keywords (NaN, Inf, exploding, diverging, spikes, FP8 underflow, "
                                                 "loss scale)")
_OF = Cite("000", "Symptom: model overfits", "keywords")
_SL = Cite("000", "Symptom: training too slow", "keywords")
_TR = Cite("000", "Symptom: need to track experiments", "keywords")
_MO = Cite("001", "Modern landscape routing", "keywords")
_DQ = Cite("001", "Symptom: which X should I use? (direct questions)", "question column")
_SC = Cite("000", "Cross-cutting multi-skill scenarios", "scenario names")
_QR = Cite("001", "Quick reference", "diagnostic question column (values users quote)")
_CV = Cite("000", "When to use", "convergence issues (slow learning, plateaus, local minima)")

# A ratio or ranking metric named, and a change said of it (the cues of a metric averaged over evaluation batches).
_METRIC_NAMES = (r"\b(?:dice|iou|jaccard|f1|f-?score|f-?measure|precision\s*(?:/|and)\s*recall|auc|auroc|mean\s+"
                 r"average\s+precision|bleu)\b(?!\s*[-_]?\s*loss)")
_METRIC_PLURAL = (r"\b(?:dice|iou|jaccard|f1|f-?score|auc|auroc|bleu|precision|recall)(?:s|es)?\b"
                  r"(?!\s*[-_]?\s*loss)")
"""The same metrics as nouns that take a plural ("the batch AUCs", "per-batch dice scores")."""
_METRIC_MOVES = r"(?:chang\w*|differ\w*|depend\w*|var(?:y|ies|ied)|is\s+different|not\s+the\s+same)"
# The evaluation's batch size: named as the evaluation's ("eval batch size", "the batch size of the val loader"),
# not a batch size one trains with ("when I train with a larger batch size", "the batch size I train with").
_EVAL_BATCH = (r"(?:eval\w*|val\w*|test\w*|inference|prediction)[\s_-]+(?:loader[\s_-]+)?batch[\s_-]?size|"
               r"batch[\s_-]?size\s+(?:\w+\s+){0,2}?(?:for|of|in|during|at|when)\s+(?:the\s+)?(?:eval\w*|"
               r"val\w*|test\w*|inference|predict\w*|scoring)")

_TRAIN_VAL = (r"between\s+(?:the\s+|my\s+)?(?:train\w*|val\w*)\s+(?:\w+\s+){0,2}?(?:and|vs\.?|&)\s+(?:the\s+)?"
              r"(?:train\w*|val\w*|valid\w*|test)(?:\s+(?:acc\w*|loss\w*|curves?|metrics?))?|between\s+the\s+"
              r"(?:two\s+)?curves")
"""The two sides of the train/validation gap, said after the gap's noun ("between train and val accuracy")."""
_VAL_LOSS = r"\b(?:val(?:idation)?|eval(?:uation)?|test|dev)[\s_-]?loss\b"
def _int_at_least(n: int) -> str:
    """A regex for a whole number ``n`` or more (no leading zero): longer numbers, or as long and not smaller."""
    d = str(n)
    alts = [rf"[1-9]\d{{{len(d)},}}"]
    for i, c in enumerate(d):
        if i == len(d) - 1:
            alts.append(rf"{d[:i]}[{c}-9]")
        elif c != "9":
            alts.append(rf"{d[:i]}[{int(c) + 1}-9]\d{{{len(d) - i - 1}}}")
    return "(?:" + "|".join(alts) + ")"


# the factor of ``MT-FAR-ABOVE`` or more, the one the numbers' reading (``expert.text._first_eval_gap``) applies
_FACTOR = (rf"(?<![\d.]){_int_at_least(int(threshold('MT-FAR-ABOVE')))}(?:\.\d+)?\s*"
           r"(?:x|\u00d7|times|-?fold)")
_FAR_ABOVE = (rf"(?:(?:{_FACTOR}|(?:several\s+|a\s+few\s+|two\s+|"
              r"three\s+|many\s+)?orders?\s+of\s+magnitude)\s+(?:larger|higher|bigger|greater|above|more|worse)|"
              # the factor said of the training loss itself ("100x the train loss", "50 times that of training")
              rf"{_FACTOR}\s+(?:the\s+|that\s+of\s+(?:the\s+)?)train(?:ing)?\b)")
"""A factor of ten or more above ("100x larger", "orders of magnitude higher", "100x the train loss")."""
_HUGE = (r"(?:enormous|huge|massive|gigantic|way\s+(?:higher|larger|bigger|above)|far\s+(?:higher|larger|bigger|above)|"
         r"so\s+much\s+(?:higher|larger|bigger))\b")
"""A size said in words that no ordinary gap is ("enormous", "way higher", "so much larger"): ``_FAR_ABOVE`` in
words, for the validation loss beside the training loss."""
_AT_FIRST = (r"(?:(?:after|from|at|in|by|since|on)\s+(?:the\s+)?(?:very\s+)?first\s+epoch|(?:after|from|at|in|since)\s+"
             r"epoch\s+(?:1|one|0)\b|(?:from|since)\s+the\s+(?:very\s+)?(?:start|beginning)|right\s+away|immediately|"
             r"from\s+(?:the\s+)?first\s+eval\w*)")
"""The first evaluation ("after the first epoch", "from epoch 1", "right away")."""

# Negations built into a cue ("not learning"): spelled out so the cue itself carries them.
NEG = (r"(?:not|never|no\s+longer|isn't|isnt|doesn't|doesnt|don't|dont|won't|wont|wasn't|aren't|hasn't|"
       r"haven't|didn't|can't|cannot)")
NUM = r"\d[\d,]*(?:\.\d+)?(?:e-?\d+)?|\.\d+(?:e-?\d+)?"
MODERN = (r"lion|sophia|muon|shampoo|ademamix|schedule[-\s]?free|prodigy|adamw[-_\s]?8[-\s]?bit|"
          r"8[-\s]?bit\s+(?:adamw?|optimi[sz]ers?)|bitsandbytes|paged\s+(?:adamw?|optimi[sz]ers?)|"
          r"wsd(?:\s+schedule)?|warmup[-\s]stable[-\s]decay|infinite[-\s]lr|fp8|bf16|bfloat16|fp16|"
          r"mixed\s+precision|mu-?p|µp|μp|mu[-\s]?transfer|zero[-\s]?(?:stage\s*)?[123]|zero\s+stage(?![-\s]*\d)|fsdp|"
          r"deepspeed|dpo|grpo|simpo|orpo|kto|ipo|rlhf|rlaif")
_LEAD = (r"switch(?:ing)?\s+(?:over\s+)?to|try(?:ing)?(?:\s+out)?|consider(?:ing)?|"
         r"should\s+(?:i|we)\s+(?:use|try|switch\s+to|go\s+(?:with|for)|move\s+to)|mov(?:e|ing)\s+to|"
         r"migrat\w*\s+to|thinking\s+(?:of|about)(?:\s+using)?|worth\s+(?:using|trying)|"
         r"(?:does|would|will|can|could)\s+(?:using\s+)?|"
         # the switch said with what it leaves ("switch from AdamW to Lion", "replace AdamW with Lion", "switching
         # the optimizer to Lion")
         r"switch(?:ing)?\s+(?:over\s+)?from\s+[\w-]+\s+to|switch(?:ing)?\s+(?:the\s+|my\s+|our\s+)?optimi[sz]er\s+"
         r"to|replac(?:e|ing)\s+(?:the\s+|my\s+)?[\w-]+\s+(?:optimi[sz]er\s+)?(?:with|by)")
_DONE = r"(?<!after\s)(?<!since\s)(?<!when\s)(?<!once\s)"
"""Not after a word that makes the lead a change already made ("after switching to")."""
_NOT_DONE_EFFECT = (r"(?![^.!?,\n]{0,12}?\b(?<!\bhave\s)(?<!\bever\s)(?:made|caused|broke|hurt|led\s+to|"
                    r"resulted\s+in|ruined|degraded|worsened|slowed|changed|helped|fixed|solved|"
                    # what the switch did not do, said in the past ("switching to bf16 did not change anything",
                    # "... didn't help", "... had no effect"): a remedy tried, not one weighed
                    r"did(?:n'?t|\s+not)\s+(?:\w+\s+)?(?:help|fix|solve|change|improve|matter|work|do)|"
                    r"did\s+nothing|had\s+(?:no|zero|little)\s+effect)\b)")
"""A lookahead: the switch named is not followed by what it did, in the past ("switching to FSDP made the loss
worse" is a change made, not one weighed); a past said as never done or as ever ("would switching to FSDP have
changed anything", "has it ever caused nan") still weighs it."""
NOT_DONE_EFFECT = _NOT_DONE_EFFECT
"""The same lookahead for the other packs' switch cues (``knowledge.pressure``)."""
_ASKED = (r"((?<=\bwould\s)|(?<=\bshould\s)|(?<=\bcould\s)|(?<=\bdoes\s)|(?<=\bdid\s)|(?<=\bhas\s)|(?<=\bhave\s)|"
          r"(?<=\bwill\s)|(?<=\bcan\s))?(?<!why\shas\s)(?<!why\sdid\s)(?<!why\sdoes\s)(?<!why\shave\s)")
"""A question's auxiliary just before the lead ("has switching to bf16 caused nan for anyone?"): what follows is
asked, the switch still weighed ("why has switching ... caused" asks about a change made). Group 1 of the pattern
it opens (the effect lookahead is skipped when it holds)."""
_WHICH = (r"(?:which|what|best|good|right|recommended|optimal|ideal)\s+(?:kind\s+of\s+|type\s+of\s+|sort\s+of\s+)?"
          # (a default or typical value asked for: "what's a good default batch size")
          r"(?:default\s+|typical\s+)?")
_SHARD = (r"zero[-\s]?(?:stage\s*)?[123]|zero\s+stage(?![-\s]*\d)|fsdp|(?:full|hybrid)[-\s]shard\w*|"
          r"sharding\s+(?:strateg\w*|setup|config\w*|approach)|"
          # the model's own state sharded, or the model split over GPUs ("shard the optimizer states across gpus",
          # "split a model too large for one GPU across 4 GPUs"); not the data's shards ("100 webdataset shards")
          r"shard(?:ing)?\s+(?:the\s+|my\s+)?(?:model|optimi[sz]er(?:\s+states?)?|weights|parameters|params|gradients)\b|"
          r"split\w*\s+(?:the\s+|a\s+|my\s+)?model\b[^.!?\n]{0,40}?\bacross\s+(?:\w+\s+)?gpus?\b")
"""Sharding named (ZeRO stages, FSDP, full or hybrid shard)."""
MODERN_OPT = (r"lion|sophia|muon|shampoo|ademamix|schedule[-\s]?free(?:\s+adamw?)?|prodigy|adamw[-_\s]?8[-\s]?bit|"
              r"8[-\s]?bit\s+adamw?|paged\s+adamw?|lamb|adamw?|sgd")
"""Optimizers users ask about by name (informational questions)."""
_NO_NEG_GAP = rf"(?:(?!(?:{NEG}|no|nothing|neither|nor)\b)\S+\s+)"
"""One word of a gap inside a cue that must not negate what follows ("lowering the LR *didn't* fix it")."""
PCT = r"\d+(?:\.\d+)?\s*%?|\.\d+"
_NOT_RATIO = (r"(?!\d|\.\d)(?!\s*%?\s*(?:x\b|\u00d7|/\s*\d|times\b|[-\s]?fold\b|(?:percentage\s+)?points?\b|pts\b|pp\b|"
              r"(?:lower|higher|less|more|smaller|bigger|larger|greater|worse|better)\s+than\b|"
              r"(?:lower|higher|worse|better|below|above|behind|ahead\s+of|short\s+of)\b(?!\s+(?:or|and)\b)))")
"""After a metric's figure: not a multiplier, a fraction or a difference ("8x lower", "1/4 of", "5% lower than
train", "2% below the baseline", "3 points behind"), which compare the metric with another run's or a reference
instead of giving its value."""
_PREF = r"(?:dpo|grpo|simpo|orpo|kto|ipo|ppo|rlhf)"
_GAP = r"(?:(?!\.\s)[^!?\n])"
"""One character inside a sentence (a dot only when no space follows: "0..255", "1.0")."""
_VALUE_GAP = r"(?:(?!\.\s|batch|bs\b|epoch|lr\b|step|dim|class|seed|worker|output|logit|\[)[^!?\n])"
"""One character between a target and its value, not past another setting's name ("labels 0/1, batch 64"), the
outputs' own values ("targets in [0, 1], the model outputs 0 to 40") or a bracketed range."""
_SQUASH = (r"(?:(?:output|last\s+layer|final\s+layer|top|head|end(?:s|ed)?\s+(?:in|with))\b(?:(?!\.\s)[^!?\n]){0,30}?"
           r"\b(?:nn\.|torch\.|f\.)?(?:sigmoid|tanh)\b|(?:nn\.|torch\.|f\.)?(?:sigmoid|tanh)\b(?:(?!\.\s)[^!?\n]){0,25}?\b(?:at\s+the\s+end|"
           r"output|head|last\s+layer|final\s+layer|regressor))")
"""A sigmoid or tanh said to be the network's output ("last layer is a sigmoid", "tanh output head")."""
_TARGET = (r"\b(?<!multi-)(?<!multi\s)(?:targets?|labels?|y(?:\s+values)?|ground[\s-]?truth|prices?|ages|counts|"
           r"distances?|temperatures?|pixel\s+values|target\s+values|regress\w*|predicting)\b"
           # (not a class id named as a label: "label 3 is predicted for everything")
           r"(?!\s*[#=:]?\s*\d+\s+(?:is|are|was|were|gets?|got)\b)")
"""What a regression is asked to reach, as users name it."""
_BEYOND = (r"(?<!\d)(?<!\d\.)(?:[2-9]|\d{2,})(?:,\d{3})*(?:\.\d+)?(?!\d)(?!\s*(?:classes|categories|class|labels?|"
           r"epochs?|steps?|%|percent|gb|samples|images|dim\w*|outputs?|units|neurons|tags|layers|features|columns|k\b))")
"""A value of 2 or more (not a count of classes, steps, units...): beyond a sigmoid's or a tanh's reach."""
"""Preference-tuning methods by the names users weigh them with ("DPO or PPO?")."""
"""An accuracy as users type it: 0.95, .95, 95 or 95%."""


_FINE = r"(?:is|was|are|were|runs?|ran|trains?|trained)\s+(?:fine|normally|ok(?:ay)?|well)"
"""A run said to go well ("trains fine", "was ok")."""
_BASE_WEIGHTS = (r"(?:(?:original|base|official|upstream|stock|vanilla|pretrained)\s+(?:[\w./-]+\s+){0,3}?"
                 r"(?:weights|checkpoints?|ckpts?)|base\s+(?:[\w./-]+\s+){0,2}?models?)")
"""The weights a model started from, named as such ("the original Llama weights", "the base model")."""


_BN = r"\b(?:batch[\s_-]?norm\w*|bn|sync[\s_-]?bn|frozen[\s_-]?bn)\b"
"""BatchNorm by its names."""
_BN_LOCAL = (r"(?<!sync\s)(?<!sync-)(?<!sync_)(?<!replaced\s)(?<!replace\s)(?<!removed\s)(?<!remove\s)"
             r"(?<!instead\sof\s)(?<!without\s)(?<!\bno\s)"
             r"\b(?:batch[\s_-]?norm\w*|bn|frozen[\s_-]?bn)\b")
"""BatchNorm that normalises over one device's batch: not SyncBN, not named as removed or replaced."""
_BN_GAP = (r"(?:(?!\b(?:layer|group|instance)[\s_-]?norm|\b(?:ln|gn)\b|\binstead\b|\breplac\w*|\bremov\w*|"
           r"\bswap\w*|\bsync[\s_-]?(?:bn|batch))[^.!?\n])")
"""One character of the words between BatchNorm and a per-device batch, where no other norm or replacement stands."""
_BASE_FINE = rf"(?:\b(?:works?|worked|{_FINE})(?:\s+(?:fine|normally|ok(?:ay)?|well))?\s+(?:with|from|on|using)\s+" \
             rf"(?:the\s+)?{_BASE_WEIGHTS}|\b{_BASE_WEIGHTS}\s+(?:works?|worked|{_FINE})\b)"
"""The original weights said to work ("works fine with the base weights", "the base model trains fine")."""
_OTHER_CKPT = (r"(?:\b(?:fine[\s-]?tuned|finetuned|converted|merged|quantized|quantised|exported|derived|modified|"
               r"saved|new|own|my|our)\s+(?:[\w./-]+\s+){0,2}?(?:checkpoints?|ckpts?|weights|models?)\b|"
               r"\b(?:a|an|the|this|that)\s+(?:[\w./-]+\s+){0,3}?(?:derivative|fine[\s-]?tune|finetune|variant)\b"
               r"(?!\s+(?:of|on)\s+(?:the\s+)?(?:code|script|loop|recipe|config)))")
"""Another checkpoint than the base, named as such ("my fine-tuned checkpoint", "the converted weights", "a Chinese
Llama-2 derivative", "a community fine-tune")."""
_ANY_CKPT = r"\b(?:regardless|either|any\s+(?:checkpoints?|weights|models?)|also\s+with|with\s+any)\b"
"""Words that say a failure of any weights alike: no one checkpoint's."""
_DEVICE_BATCH = (r"(?:\b(?P<bn_batch>\d+)\s+(?:images?|imgs?|samples?|examples?|clips?|volumes?)\s+(?:per|each|a|/)\s*"
                 r"(?:gpu|card|device|rank)\b|\bbatch(?:[\s_-]?size)?\s*(?:of|=|:|is)?\s*(?P<v>\d+)\s+(?:per|on\s+each|"
                 r"each)\s+(?:gpu|card|device|rank)\b)")
"""A per-device batch said with its number ("2 images per GPU", "batch of 1 per card")."""
_RANK_BATCH = _DEVICE_BATCH.replace("?P<bn_batch>", "?P<per_rank_batch>")
"""The same per-device batch, its number read as the rank's batch."""


def _names(table: dict[str, str], skip: frozenset[str]) -> str:
    """A pattern for the spellings of ``terms`` (``_`` as an optional separator), longest first."""
    keys = sorted({k for k in table if len(k) > 2 and k not in skip}, key=lambda k: (-len(k), k))
    return "|".join(k.replace("_", r"[-_\s]?") for k in keys)


# Spellings too ambiguous in prose ("custom", "linear", "step", "plateau", "constant"...) are left to the
# questions; class names and library spellings are safe.
_AMBIGUOUS_LOSSES = frozenset({"custom", "huber", "focal", "dice", "mae"})
_AMBIGUOUS_SCHEDULES = frozenset({"step", "linear", "constant", "none", "plateau", "exponential", "polynomial",
                                  "multistep", "trapezoidal", "sgdr", "wsd", "cosine"})
LOSS_NAMES = (rf"(?:{_names(LOSS_SPELLINGS, _AMBIGUOUS_LOSSES)}|(?:focal|dice|huber)[-_\s]?loss)"
              r"(?:[-_\s]?loss)?")
# Library and class spellings of optimizers ("FusedAdam", "adamw_torch_fused", "SophiaG"); the plain names have
# their own cues above, which a switch cue can hide.
_PLAIN_OPTIMIZERS = frozenset({"sgd", "sgd_momentum", "momentum", "nesterov", "adam", "adamw", "lamb", "lion", "sophia",
                               "muon", "shampoo", "ademamix", "prodigy", "schedulefree", "schedule_free", "rmsprop",
                               "adagrad", "adadelta", "adafactor", "radam", "nadam", "adamax", "lbfgs", "adamw_8bit",
                               "paged_adamw", "adam_w"})
OPTIMIZER_NAMES = _names(OPTIMIZER_SPELLINGS, _PLAIN_OPTIMIZERS)
SCHEDULE_NAMES = (rf"{_names(SCHEDULE_SPELLINGS, _AMBIGUOUS_SCHEDULES)}|"
                  r"(?:cosine|linear|step|exponential|polynomial|constant|wsd|trapezoidal)[-_\s]+(?:lr[-_\s]+)?"
                  r"(?:schedul\w*|decay|annealing)")


_SEARCH = (r"bayesian\s+optimi[sz]ation|bayesian\s+search|grid\s+search|hyperband|asha|successive\s+halving|"
           r"population[\s-]based\s+training|pbt|tpe|optuna|ray\s+tune")
"""Named hyperparameter search strategies (random search alone is left to the pressure cue)."""


OTHER_TASK_AHEAD = (r"(?![^.?!\n]*\b(?:classifier|classification|detector|detection|segmentation|regression|"
                     r"regressor)\b)")
"""A lookahead: no other kind of run named later in the sentence (a preference method read about beside a
classifier's run is not the run's task)."""


_SET_TO = r"(?:\s*[=:]\s*|\s+(?:(?:is|was|of|at)\s+)?(?:set\s+)?(?:to|of|at|is|was|=)\s+)"
"""Between a setting's name and its value: "=", ":", or words ("to", "of", "is set to", "at")."""
_CLIP_NAME = r"(?:max[_\s]grad[_\s]norm|max_norm|clip(?:ping)?[\s_]?(?:norm|value|threshold))"
"""The clipping limit's names as a setting is written with its value ("max_grad_norm", "clipnorm", "clip value")."""
_CLIP_LIMIT = (r"(?:max[\s_]?(?:grad[\s_]?)?norm\b|max_grad_norm|max_norm|"
               r"clip(?:ping)?[\s_]?(?:value|threshold|norm)\b|(?:the\s+)?clipping\s+threshold\b)")
"""The clipping limit as users name it (max_norm, max_grad_norm, the clip value or the clipping threshold)."""
_CLIP_SUBJECT = (r"(?:grad(?:ient)?s?[\s_-]?norms?|grad(?:ient)?s|norms?|clip\w*)\b"
                 r"(?:(?!\b(?:not|never|no|isn'?t|wasn'?t|aren'?t)\b)[^.!?\n]){0,30}?")
"""The gradient norm or clipping named before a bare "threshold", no negation between: "the grad norm is above the
threshold" is the clip limit; "the loss is above the threshold" or an early-stopping threshold is not."""


_UNDER_ZERO = (r"(?<!never\s)(?<!not\s)(?<!n't\s)\b(?:goes|go|went|drops?|dropped|falls?|fell|gets?|got|is|becomes?|"
               r"became|ends?\s+up)\s+(?:(?!not\b|never\b)\w+\s+)?(?:below|under|less\s+than)\s+(?:zero|0)"
               r"(?!\s*point\b|\s*[.,]\s*\d|\d)")
"""A value said to go under zero ("goes below zero", "drops under 0"; "under zero point one" is a small value)."""
_KL_NAME = r"(?:\bkl(?:[\s_-]?div(?:ergence)?)?(?:[\s_-]?loss)?|kldivloss|kl_div(?:\(\))?)\b"
"""The KL divergence named as a loss (KL, KL divergence, KLDivLoss, kl_div())."""


def _above_every_step(limit: str) -> str:
    """A norm above clip limit ``limit`` at every step ("above max_norm at every step", "always above max_norm")."""
    above = r"(?:above|over|>|exceed\w*|greater\s+than|larger\s+than|bigger\s+than|higher\s+than)"
    return (rf"{above}\s*(?:the\s+)?{limit}(?:\s*\(?\s*\d+(?:\.\d+)?\s*\)?)?[^.!?\n]{{0,25}}?\b(?:at|on|in)\s+"
            rf"(?:every|each|all)\s+(?:single\s+)?(?:steps?|iterations?|updates?)\b|"
            rf"(?:always|constantly|all\s+the\s+time)\s*{above}\s*(?:the\s+)?{limit}")


_NOT_FROZEN = r"(?![^.!?\n]{0,80}?\b(?:froze|frozen|freez\w*|requires_grad\s*=\s*false)\b)"
"""Not followed, in its sentence, by a freeze (what the user froze is meant to get no gradient)."""


def _k(pattern: str, cite: Cite, priority: int = 0, negatable: bool = True, scope: bool = True,
       lends_scope: bool = True, **sets: Any) -> Keyword:
    return Keyword(pattern, dict(sets), cite, negatable=negatable, priority=priority, scope=scope,
                   lends_scope=lends_scope)


_LOSS_VALUE_LINK = r"(?:(?:of|is|=|:|at|was|around|about|only|just|~|starts?|started|begins?|began|sits?)\s*){0,3}"
"""Between a loss and its value: "=", "of", "is around", "~", or where the curve starts or sits ("starts at 25")."""
_NOT_COUNT = r"(?!\d|\.\d|\s*(?:epochs?|steps?|iter\w*|hours?|h\b|mins?\b|minutes?|samples?|images?|gpus?|x\b|%))"
"""After a number: it is no count of epochs, steps, time or things, nor a factor or a percentage."""
_LOSS_PAIR_LINK = r"(?:,|;|but|while|and|with|/|vs\.?|versus|whereas)?"
"""What joins a training and a validation loss said in one breath ("train loss 0.4, val loss 1.2", "val_loss=15 with
train_loss=0.7")."""

_MISMATCH_LINK = r"(?:but|while|whereas|yet|though|although|however|vs\.?|versus|instead\s+of|doesn'?t\s+match|" \
    r"does\s+not\s+match|mismatch\w*)"
"""What sets two counts said in one breath against each other ("num_labels=10 but out_features=5")."""

_NOT_ASKED_ITEMS = "".join(
    rf"(?<!\b{lead}\s{filler})" for lead in ("does", "do", "did", "whether", "if", r"possible\sthat", "can", "could",
                                             "might", "may")
    for filler in ("", r"the\s", r"the\ssame\s", r"same\s", r"any\s", r"some\s", r"my\s"))
"""Lookbehinds: the items after a yes/no question's lead or "whether" ("does the same image appear in both ...",
"check whether the same images are in both ...", "is it possible that the same images ..."): asked, not found."""

_OPT_GAP = r"(?:(?!(?:not|never|no)\b)\w+\s+)"
"""One word between the optimizer and its making, not a negation ("the optimizer is never created before FSDP")."""

KEYWORDS: tuple[Keyword, ...] = (
    # The symptoms and curve shapes (not learning, plateaus, NaN, divergence, spikes, oscillation, overfitting,
    # slowness, tracking requests) are read by the parser of training talk (expert.talk, knowledge.talk):
    # a quantity moving a way, at a time, under its qualifiers. Only settings named in passing stay here.
    # (the loss's kind may sit between: "my handwritten dice loss", "a self-written contrastive loss"; not the
    # data's or the loop's: "my own training loop, the loss ...")
    _k(r"(?:custom|hand[-\s]?written|self[-\s]?written|self[-\s]?made|home[-\s]?made|my\s+own)\s+"
       r"(?:(?!(?:training|train|loop|dataset|data|model|and|but|the|so|with)\b)[\w-]+\s+){0,2}?loss(?:\s+function)?",
       _UN, 0, custom_loss=True),
    # a hand-written loss said not to be used ("no custom loss, just CrossEntropyLoss", "I don't use a custom loss"):
    # the negation on the loss itself, not a clause's ("there is no nan in my custom loss" uses one)
    _k(r"(?:\bno|\bwithout(?:\s+a(?:ny)?)?|\bnot\s+(?:a|any|using\s+a(?:ny)?)|(?:\bdon'?t|\bdo\s+not|\bdidn'?t|"
       r"\bnever)\s+(?:use|have|write|wrote)(?:\s+a(?:ny)?)?)\s+(?:custom|hand[-\s]?written|self[-\s]?written|"
       r"home[-\s]?made)\s+loss",
       _UN, 1, negatable=False, custom_loss=False),
    # a loss the user took as code rather than from the library ("this focal loss implementation", "I implemented
    # a dice loss"): its formula is theirs to check, like a hand-written one
    # (matched beside the loss's name, not over it, so the name is still read)
    _k(r"(?<=loss\s)implementation\b(?!\s+(?:in|from|of)\s+(?:torch|pytorch|keras|tensorflow|the\s+library))|"
       r"implement(?:ed|ing)\b(?=\s+(?:an?\s+|my\s+own\s+|our\s+own\s+)?(?:[\w-]+\s+){0,2}loss\b)",
       _UN, 0, custom_loss=True),
    # a loss the user says they wrote ("I wrote a custom dice + log loss", "the loss I wrote myself", "implemented my
    # own cross entropy"): its formula is theirs, like a hand-written one (not a training loop or script they wrote)
    _k(r"\b(?:wrote|write|writing|written|coded)\s+(?:a|an|my|our|the)\s+(?:own\s+|custom\s+)?"
       r"(?:(?!(?:training|train|loop|script|dataset|data|model)\b)[\w+-]+\s+){0,3}?loss\b|"
       r"\bloss(?:\s+function)?\s+(?:that\s+|which\s+)?(?:i|we)\s+(?:wrote|coded|implemented|made)\b|"
       r"\b(?:custom|implement(?:ed|ing)\s+(?:my|our)\s+own)\s+(?:[\w-]+\s+)?[+&]\s+(?:[\w-]+\s+)?loss\b|"
       r"\bimplement(?:ed|ing)\s+(?:my|our)\s+own\s+(?:cross[\s-]?entropy|focal|dice|contrastive|triplet|hinge|"
       r"nll|bce|mse|kl[\s-]?divergence|softmax)\b",
       _UN, 0, custom_loss=True),
    # A loss whose formula the user writes out (a log, a square root, a division taken by hand) is a hand-written
    # loss, the usual home of log(0), sqrt'(0) and x/0: said as code (torch.log(...), p.sqrt()) or in words
    # ("I take the log of the probabilities", "my loss divides by the number of positives"). Fused built-ins
    # (log_softmax, logsigmoid) and logging calls (self.log(...), wandb.log) are not formulas.
    # (the log of the loss itself, for a plot or a log-scale axis, is no formula of it)
    _k(r"(?:torch|math|np|numpy)\.(?:log|log1p|log2|log10|sqrt|rsqrt)\b|\w\)?\.(?:log|sqrt)\(\)|"
       r"(?:tak(?:e|es|ing)|comput(?:e|es|ing)|appl(?:y|ies|ying)|us(?:e|es|ing))\s+(?:the\s+|a\s+)?"
       r"(?:log(?:arithm)?|square\s+root|sqrt)\s+of\b(?!\s+(?:the\s+|my\s+)?(?:loss(?:es)?|curves?|plots?|lr|"
       r"learning\s+rate)\b)|"
       r"\bloss\b[^.!?\n]{0,40}?\bdivid(?:e|es|ed|ing)\s+by\b|\bdivid(?:e|es|ed|ing)\s+by\b[^.!?\n]{0,40}?\bin\s+"
       r"(?:my|the|our)\s+loss\b|"
       # anomaly detection naming a formula op whose backward gave NaN ("SqrtBackward0 returned nan values"):
       # sqrt, log, a division or a power taken by hand at its singularity
       r"\b(?:sqrt|rsqrt|log|log1p|log2|div|pow|acos|asin|atan2)backward\d*'?\s+returned\s+nan",
       _UN, 0, custom_loss=True),
    # validation data reaching training: said as a leak, an overlap, training on the validation data, or a split
    # drawn separately on every process
    _k(r"(?:data|label|test|validation|val)\s+leak\w*|leak\w*\s+(?:of\s+)?(?:the\s+|my\s+)?(?:test|validation|val)\b|"
       r"train(?:ed|ing|s)?\s+on\s+(?:(?:my|the|some|part\s+of\s+(?:my|the))\s+)?(?:validation|val|test)\s+"
       r"(?:data|set|samples|examples|images)|"
       r"overlap\w*\s+between\s+(?:the\s+|my\s+)?(?:train\w*|val\w*|test)\s+(?:and|&)\s+(?:the\s+)?(?:train\w*|val\w*|test)|"
       r"(?:validation|val|test|eval)\s+(?:split|set|data|samples|examples|rows)\s+(?:also\s+|might\s+|may\s+)?"
       r"(?:overlap\w*|shar\w*|duplicat\w*)\s+(?:(?:rows|examples|samples|images|items)\s+)?(?:with\s+)?"
       r"(?:the\s+|my\s+)?train\w*|"
       r"train\w*\s+(?:split|set|data)\s+(?:also\s+|might\s+|may\s+)?(?:overlap\w*|shar\w*)\s+(?:with\s+)?"
       r"(?:the\s+|my\s+)?(?:validation|val|test|eval)\b|"
       r"(?:different|own|separate)\s+(?:train[/\s-]*(?:val|test)\s+)?splits?\s+(?:on|for|per|in)\s+(?:each|every)\s+"
       r"(?:gpu|rank|process|device|node)|(?:each|every)\s+(?:gpu|rank|process|device)\s+(?:ends\s+up\s+with|gets?|has|"
       r"draws?|uses?|makes?)\s+(?:a\s+)?(?:different|its\s+own)\s+(?:train[/\s-]*(?:val|test)\s+)?split",
       _OF, 0, val_in_train=True),
    # held-out examples said to sit in the training data too ("some test images are also in the train set",
    # "duplicates between train and val")
    _k(r"(?:test|val\w*|eval\w*|held[\s-]?out)\s+(?:images?|samples?|examples?|data|set|rows?|sentences?)\s+(?:are\s+|is\s+)?"
       r"also\s+(?:in|part\s+of)\s+(?:the\s+|my\s+)?train\w*|duplicat\w*\s+(?:\w+\s+){0,2}?(?:between|across)\s+(?:the\s+)?"
       r"train\w*\s+(?:and|&)\s+(?:the\s+)?(?:test|val\w*|eval\w*)",
       _OF, 0, negatable=False, val_in_train=True),
    # items said to sit in both splits ("108 patients have cells in both the train and the validation indices",
    # "some images are in both the training and test sets"): an item, a verb of being there, then "in both <train>
    # and <held-out>"; not a setting or a figure both splits share ("the images are resized in both train and val",
    # "the loss falls in both"), and a denial ("no patient is in both") cancels it; asked ("does the same image
    # appear in both train and val?", "how do I check whether ..."), it is a check wanted, not a leak found
    _k(_NOT_ASKED_ITEMS + r"\b(?:samples?|patients?|subjects?|images?|photos?|examples?|cells?|instances?|rows?|"
       r"records?|items?|files?|ids?|individuals?|users?|sequences?|documents?|frames?|clips?|sentences?|molecules?|"
       r"scenes?)\b"
       r"(?:\s*\([^)]{0,30}\))?\s+(?:also\s+)?(?:(?:have|has|had)\s+(?!been\b)(?:\w+\s+){1,2}|(?:are|is|were|was|"
       r"appear\w*|occur\w*|show\w*\s+up|end\w*\s+up|land\w*|exist\w*|belong\w*|sit\w*)\s+(?:also\s+)?"
       r"(?:present\s+|found\s+|included\s+|contained\s+)?)in\s+both\s+(?:the\s+|my\s+)?train\w*"
       r"(?:\s+(?:set|split|data|indices|index|ids))?\s+(?:and|&)\s+(?:the\s+|my\s+)?"
       r"(?:val\w*|test\w*|eval\w*|held[\s-]?out)",
       _OF, 0, val_in_train=True),
    # a pause at every epoch's start, before its first step: the input pipeline starting again
    _k(r"(?:wast|wait|spend|spent|los[ei]|lost|paus|stall|idl|freez|hang)\w*\b[^.!?\n]{0,50}?(?:(?:at\s+the\s+)?"
       r"(?:start|beginning)\s+of\s+(?:every|each)\s+(?:new\s+)?epoch|(?:every|each)\s+epoch\s+(?:transition|boundary|"
       r"switch|change)|before\s+(?:the\s+)?first\s+(?:iteration|batch|"
       r"step)\s+of\s+(?:every|each)\s+epoch)|"
       r"first\s+(?:iteration|batch|step)\s+of\s+(?:every|each)\s+(?:new\s+)?epoch\s+(?:is\s+|takes\s+)?(?:very\s+|so\s+|"
       r"really\s+|extremely\s+)?(?:slow|long|ages|forever|\d+\s*(?:min\w*|s\b|sec\w*))|"
       r"(?:long|big|huge)\s+(?:pause|stall|delay|gap|wait)\s+(?:at\s+the\s+(?:start|beginning)\s+of\s+(?:every|each)\s+"
       r"epoch|between\s+(?:the\s+)?epochs)|"
       # the start of every epoch said to be slow ("slow to start every epoch", "startup of each epoch takes
       # forever", "each new epoch waits a minute before the first batch", "epoch 3 begins and nothing happens")
       r"(?:slow|long)\s+to\s+(?:start|begin|get\s+going)\s+(?:at\s+)?(?:every|each)\s+(?:new\s+)?epoch|"
       r"(?:start(?:up)?|beginning)\s+of\s+(?:every|each)\s+(?:new\s+)?epoch\s+(?:is|takes)\s+(?:very\s+|so\s+|"
       r"really\s+|extremely\s+)?(?:slow|long|ages|forever)|(?:every|each)\s+(?:new\s+)?epoch\s+(?:waits?|stalls?|"
       r"pauses?|hangs?)\b[^.!?\n]{0,40}?before\s+(?:the\s+)?first\s+(?:batch|step|iteration)|epoch\s+\d+\s+"
       r"(?:begins|starts)\s+and\s+nothing\s+happens",
       _SL, 0, epoch_start_stall=True, symptom="slow_training"),
    # the pause said as what every epoch opens with ("every epoch begins with a long pause before the first batch",
    # "each new epoch starts with a 2 minute wait")
    _k(r"(?:every|each)\s+(?:new\s+)?epoch\s+(?:begins?|starts?|opens?)\s+with\s+(?:an?\s+)?(?:\d+\s*[-\s]?"
       r"(?:s|sec\w*|min\w*|minutes?|hours?)\s+|(?:very\s+|really\s+)?(?:long|big|huge|noticeable)\s+)?"
       r"(?:pause|wait|stall|delay|freeze)\b",
       _SL, 0, epoch_start_stall=True, symptom="slow_training"),
    # a long wait before the first step that ends, training then going on as usual ("hangs for two hours before
    # the first step, then continues normally", "sits at step 0 for an hour and eventually starts training"): a
    # process working through something before it starts, not one waiting forever (not at every epoch's start, which
    # is epoch_start_stall)
    _k(r"(?:hang|stall|paus|wait|stuck|sit|sat|freez|frozen|idl|silent|noth)\w*\b[^.!?\n]{0,60}?"
       r"(?:before\s+(?:the\s+|its\s+|my\s+)?first\s+(?:step|batch|iteration|log)(?!\w)(?![^.!?\n]{0,12}?\b(?:of\s+)?"
       r"(?:every|each)\s+(?:new\s+)?epoch)|at\s+(?:step|iteration|batch)\s+0\b)[^.!?\n]{0,80}?"
       r"\b(?:then|and\s+then|after\s+that|but\s+then|before\s+it|eventually|finally|afterwards)\b[^.!?\n]{0,30}?"
       r"\b(?:continu\w*|resum\w*|start\w*|train\w*|runs?|proceed\w*|carr(?:y|ies)\s+on|goes\s+on|picks?\s+up)\b|"
       r"(?:eventually|finally|after\s+(?:about\s+|around\s+)?(?:an?\s+|\d+\s+|a\s+few\s+|several\s+|two\s+|"
       r"three\s+)?(?:hours?|minutes?|mins?|h)\b)[^.!?\n]{0,20}?\b(?:it\s+|training\s+|the\s+run\s+)?"
       r"(?:starts?|started|continues|continued|resumes|resumed|proceeds|proceeded|gets\s+going|got\s+going)\s+"
       r"(?:training\s+|to\s+train\s+)?(?:normally|as\s+usual|fine|at\s+(?:normal|full)\s+speed)",
       _SL, 0, negatable=False, first_step_stall=True),
    # a duration the run takes before its first step starts ("it takes 10 minutes before the very first step starts",
    # "took an hour before the first batch showed up"): the step comes, after a wait (not one at every epoch's start)
    _k(r"(?:takes?|took|taking)\s+(?:about\s+|around\s+|over\s+|almost\s+)?"
       r"(?:\d+|an?|several|many)\s*(?:min\w*|minutes?|hours?|h|hrs?)\b\s+before\s+(?:the\s+|its\s+|my\s+)?"
       r"(?:very\s+)?first\s+(?:step|batch|iteration)\s+(?:even\s+)?(?:starts?|begins?|runs?|arrives?|shows?|"
       r"appears?|showed|is\s+(?:done|run|logged))(?![^.!?\n]{0,40}?\b(?:every|each)\s+(?:new\s+)?epoch)",
       _SL, 0, negatable=False, first_step_stall=True),
    # the same wait said by where it sits (at the start, before training starts, right after a resume) and by the
    # normal speed that follows ("stuck ~30 min at the beginning, then ok", "a long silent wait before the first
    # iteration, afterwards normal it/s", "the first step takes ages but the steps after it are as fast as before")
    # (a duration said: a loss "stuck at the beginning, then going down normally" is a curve, not a wait)
    _k(r"(?=[^.!?\n]{0,120}?(?:\d+\s*(?:min\w*|h\b|hours?|hrs?\b|sec\w*|s\b)|\bages\b|\bforever\b|\blong\s+(?:\w+\s+)?"
       r"(?:time|wait)|\bhours?\b|\bminutes?\b|\ba\s+while\b))"
       r"(?:(?:long\s+(?:\w+\s+)?wait|(?:hang|stall|paus|wait|stuck|sit|sat|freez|frozen|idl|silent|noth)\w*)\b"
       r"[^.!?\n]{0,50}?(?:\bat\s+the\s+"
       r"(?:very\s+)?(?:start|beginning)\b|\bbefore\s+(?:the\s+|its\s+|my\s+)?(?:first\s+(?:step|batch|iteration|log)|"
       r"(?:step|iteration)\s+1\b|training\s+(?:starts|begins|gets\s+going))|\bafter\s+(?:the\s+|a\s+)?"
       r"(?:resum\w*|restart\w*))|\b(?:resum\w*|restart\w*)[^.!?\n]{0,40}?\b(?:nothing\s+happens|noth\w*\s+for|"
       r"(?:hang|stall|wait|stuck|sit|freez)\w*\s+for)\b)[^.!?\n]{0,80}?\b(?:then|afterwards|after\s+that|after\s+it|"
       r"once\s+it\s+(?:starts|begins|gets\s+going))\b[^.!?\n]{0,30}?\b(?:normal\w*|fine|ok(?:ay)?|as\s+fast|as\s+usual|"
       r"at\s+(?:the\s+)?(?:normal|full|usual)\s+speed|continu\w*)\b|"
       r"\bfirst\s+(?:step|iteration|batch)\s+takes?\s+(?:ages|forever|hours|(?:very\s+|so\s+)?long)\b[^.!?\n]{0,60}?"
       r"\b(?:steps?|iterations?|batch(?:es)?)\s+(?:after\s+(?:it|that)?|afterwards)\s*(?:are|is|run|go)\s+"
       r"(?:as\s+fast|normal\w*|fine|quick\w*|fast)",
       _SL, 0, negatable=False, first_step_stall=True),
    # a wait said never to end, or nothing working while it lasts ("torch.load hangs and never returns", "a deadlock
    # in the workers", "GPU and CPU both at 0%"): no first step after a pause, a process that waits
    _k(r"(?:hang|hung|stuck|freez|frozen|block)\w*\b[^.!?\n]{0,40}?\b(?:never\s+(?:returns?|finish\w*|complet\w*|"
       r"continu\w*|recover\w*|progress\w*|gets?\s+past|moves?\s+on|starts?))\b|"
       r"\bdead-?lock\w*|"
       r"\b(?:gpu\s+and\s+cpu|cpu\s+and\s+gpu)\s+(?:are\s+|both\s+|are\s+both\s+)*(?:at\s+)?0\s*%|"
       r"\bcpu\b[^.!?\n]{0,20}?\b(?:at\s+|is\s+at\s+|shows?\s+)?0\s*%|\b0\s*%\s+cpu\b",
       _SL, 0, negatable=False, first_step_stall=False),
    # (augmenting is said of photos too: the phrase reads itself, but lends no other word of the text its topic)
    _k(r"heavy\s+(?:data\s+)?augment\w*|lots\s+of\s+augment\w*|expensive\s+augment\w*",
       _SL, 0, lends_scope=False, heavy_augmentation=True),
    _k(r"(?:limited|capped|constrained|bounded)\s+by\s+(?:gpu\s+|vram\s+)?memory|memory[\s-](?:limited|bound|"
       r"constrained)|(?:can't|cannot|can\s+not)\s+(?:increase|raise)\s+(?:the\s+|my\s+)?batch(?:\s+size)?|"
       # out of memory whenever the batch is raised, the batch named before and referred back to ("the batch_size
       # I give the datamodule ... I run out of GPU memory when I raise it")
       r"\bbatch[\s_-]?size\b[^.!?\n]{0,160}?(?:out\s+of\s+(?:gpu\s+|cuda\s+|gpu\s+)?memory|\boom\w*)[^.!?\n]{0,40}?"
       r"\b(?:when|whenever|if|once|as\s+soon\s+as)\s+(?:i\s+|we\s+)?(?:raise|increase|bump|double)\s+it\b",
       _SL, 0, memory_limited=True),
    # --- modern landscape: what the user considers switching to ----------------------------------------
    # ("after switching to bf16", "since moving to FSDP": a change already made, the run's setting, not one weighed)
    # ("switching from DDP to FSDP made the loss worse": the switch as the subject of what it did, made already)
    # (the first letters of the leads looked at first: the guards behind them are tried only where one may stand)
    _k(rf"(?=[stcmwdr]){_DONE}{_ASKED}(?:{_LEAD})\s*(?:the\s+|a\s+|an\s+)?(?P<considering>{MODERN})(?(1)|{_NOT_DONE_EFFECT})",
       _MO, P_DIRECT, considering="$text"),
    _k(rf"(?P<considering>{MODERN})\s+(?:vs\.?|versus|or|instead\s+of|over|rather\s+than|(?:an?\s+)?(?:good\s+|"
       r"reasonable\s+|drop-in\s+|better\s+)?(?:replacement|substitute|alternative)\s+(?:for|to))\s+adamw?|"
       rf"adamw?\s+(?:vs\.?|versus|or)\s+(?P<v>{MODERN})",
       _MO, P_DIRECT, considering="$text"),
    # --- optimizer in use: named by the parser of training talk (knowledge.talk.SETTING_NAMES, with an option
    # said after the name: OPTIMIZER_OPTIONS); a switch cue around a name takes precedence (expert.text) ---------
    # --- precision in use --------------------------------------------------------------------------------
    # Formats named by name (fp16, bf16, AMP...), the grad scaler and clipping are read by the parser
    # (knowledge.talk.SETTING_NAMES). Lightning and Keras name formats by bit width in config syntax, which stays
    # here: precision=16 / "16-mixed" / "16-bit precision" is fp16.
    _k(r"16[\s-]?bit(?:\s+(?:mixed\s+)?precision)?|precision\s*=\s*['\"]?16\b"
       r"(?:-mixed)?|16-mixed", _UN, 2, mixed_precision="fp16"),
    # --- direct "which X should I use?" questions --------------------------------------------------------
    _k(rf"{_WHICH}optimi[sz]ers?|(?:how\s+(?:do\s+i|to|should\s+i)\s+)?(?:choose|pick)\s+(?:an?\s+|the\s+)?"
       r"optimi[sz]er",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="optimizer"),
    _k(rf"{_WHICH}(?:initial\s+|peak\s+|base\s+|starting\s+)?(?:learning[\s-]rate|lr)|"
       r"how\s+(?:do\s+i|to|should\s+i)\s+(?:choose|pick|set|find)\s+(?:the\s+|a\s+|my\s+)?(?:learning[\s-]rate|lr)",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="learning_rate"),
    _k(rf"{_WHICH}(?:lr\s+|learning[\s-]rate\s+)?(?:schedul\w*|decay)|wsd\s+(?:vs\.?|or)\s+cosine|"
       r"cosine\s+(?:vs\.?|or)\s+wsd",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="schedule"),
    _k(rf"{_WHICH}batch[\s-]?size|how\s+(?:big|large)\s+(?:a\s+|should\s+(?:the|my)\s+)?batch(?:[\s-]?size)?",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="batch_size"),
    _k(rf"{_WHICH}precision|(?:fp8|bf16|fp16)\s+(?:vs\.?|or|versus)\s+(?:fp8|bf16|fp16|fp32)",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="precision"),
    _k(rf"{_WHICH}loss(?:\s+function)?(?!\s+(?:behaviou?r|curve))",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="loss_function"),
    # asking how to weight the loss by example or class ("could I weight training samples in the loss so the rare
    # ones count more?", "how do I reweight the classes?"): a question about the objective, not a symptom
    _k(r"(?:(?:could|can|should|shall)\s+i|how\s+(?:do\s+i|to|can\s+i|should\s+i))\s+(?:re-?)?weight\s+(?:the\s+|my\s+)?"
       r"(?:training\s+)?(?:samples?|examples?|classes|images?|instances?|losses|loss)\b",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="loss_function"),
    _k(r"how\s+(?:do\s+i|to|can\s+i|should\s+i)\s+(?:prevent|avoid|reduce|stop|fix)\s+over-?fit\w*|"
       # the same asked as the ways of it ("what are the standard ways to prevent overfitting?", "best practices to
       # stop a model from overfitting?", "what techniques prevent overfitting", "overfitting prevention methods",
       # "how can I make sure my model won't overfit"): not "I added dropout to prevent overfitting", a purpose
       r"(?:ways?|methods?|techniques?|tips|tricks|practices?|what\s+\w+)\s+(?:to\s+|that\s+|for\s+)?"
       r"(?:\w+\s+)?(?:prevent|avoid|reduc|stop|combat|fight)\w*\s+(?:\w+\s+){0,3}?over-?fit\w*|"
       r"over-?fit\w*\s+prevention|(?:make\s+sure|ensure)\s+(?:that\s+)?(?:my\s+|the\s+)?(?:model|net\w*)\s+"
       r"(?:won'?t|will\s+not|doesn'?t|does\s+not)\s+over-?fit",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="overfitting"),
    _k(rf"{_WHICH}(?:data\s+)?augmentations?", _DQ, P_DIRECT, symptom="direct_question",
       question_topic="augmentation"),
    _k(r"how\s+(?:do\s+i|to|should\s+i|can\s+i)\s+(?:tune|search)\s+(?:my\s+|the\s+)?hyper-?param\w*|"
       r"hyper-?param(?:eter)?s?\s+(?:search|tuning|sweeps?)|optuna|ray\s+tune|hyperopt",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="tuning"),
    _k(r"how\s+(?:do\s+i|to|should\s+i|can\s+i)\s+track\s+(?:my\s+|our\s+)?(?:experiments?|runs?)",
       _DQ, P_TRACKING, symptom="experiment_tracking", question_topic="tracking"),
    _k(r"mu-?p|µp|μp|mu[-\s]?transfer", _DQ, P_DIRECT, symptom="direct_question", question_topic="mup"),
    # sharding named as the run's setting ("full fine-tuning with FSDP on 4 A100s, the loss goes to 0", "FSDP is
    # slower than DDP") is no question about it: the topic and the request come only when something asks (a "?", a
    # choice, "should"); a plain mention says a multi-GPU run (knowledge.talk.SETTING_NAMES)
    _k(rf"(?:\b(?:should|which|whether|worth|or|vs\.?|versus|how|recommend)\b[^.!?\n]{{0,60}}?(?:{_SHARD})|"
       rf"(?:{_SHARD})[^.!?\n]{{0,60}}?\?|(?:{_SHARD})\s+(?:or|vs\.?|versus)\b)",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="sharding"),
    _k(r"(?:dpo|grpo|simpo|orpo|kto|ipo)\s+(?:vs\.?|or|versus)\s+(?:sft|dpo|grpo|simpo|orpo|kto|ipo|ppo|rlhf)|"
       r"(?:which|what)\s+preference[-\s](?:tuning\s+|alignment\s+|optimi[sz]ation\s+)?(?:method|algorithm|objective|"
       r"loss|approach|technique)|"
       # two preference methods weighed against each other, however it is said ("GRPO better than DPO?", "PPO with
       # a reward model or just DPO", "choosing between DPO and IPO") or one judged as enough ("is DPO good enough")
       rf"between\s+{_PREF}\s+(?:and|or|vs\.?)\s+{_PREF}|"
       rf"{_PREF}\b[^.?!\n]{{0,40}}?\b(?:better|worse|simpler)\s+than\s+(?:just\s+|plain\s+)?{_PREF}|"
       rf"{_PREF}\b[^.?!\n]{{0,40}}?\bor\b[^.?!\n]{{0,30}}?{_PREF}\b[^.!\n]{{0,40}}\?|"
       rf"(?:is|would|will)\s+{_PREF}\s+(?:good\s+enough|enough|better|worth\s+it|the\s+better\s+choice)",
       _DQ, P_DIRECT, symptom="direct_question", question_topic="preference_method"),
    # the LR finder (range test) and what it suggests: a question about choosing the LR. The sweep raises the LR
    # until the loss blows up, so the spikes and divergence said of it are the sweep's, not the run's (above the
    # unstable cue for that reason)
    _k(r"(?:lr|learning[\s-]rate)[\s_-]?finder|lr_find\w*|(?:lr|learning[\s-]rate)\s+range\s+test|tuner\.lr_find",
       _DQ, P_UNSTABLE + 1, negatable=False, symptom="direct_question", question_topic="learning_rate"),
    _k(r"8[-\s]?bit\s+optimi[sz]ers?|paged\s+optimi[sz]ers?|bitsandbytes", _DQ, P_DIRECT,
       symptom="direct_question", question_topic="memory_optimizer"),
    # (above the RL cue: RLHF runs PPO on a language model, and TRL / trlx are libraries for exactly that)
    # (and the parts of such a run by name: the reward model trained on chosen/rejected pairs, TRL's trainers,
    # DPO spelt out)
    # (not a method named beside a run of another kind later in the sentence: "I read the DPO paper, my
    # classifier loss is flat"; nor "rm accuracy" alone, which names a metric, not a reward model's run)
    _k(rf"{OTHER_TASK_AHEAD}(?:dpo|grpo|simpo|orpo|kto|rlhf|preference[-\s]tuning|\btrlx?\b|"
       r"reward[-\s]?model(?:s|l?ing)?\b|rewardtrainer|(?:dpo|grpo|orpo|kto|ppo)trainer|"
       r"direct\s+preference\s+optimi[sz]ation|group\s+relative\s+policy\s+optimi[sz]ation|chosen\s*(?:/|and|vs\.?|versus)\s*rejected|"
       r"preference\s+(?:pairs|data(?:set)?|model)\b|\brm\s+(?:training|stage|checkpoint)\b)",
       _MO, 1, negatable=False, task="preference_tuning"),
    # --- scenarios ---------------------------------------------------------------------------------------
    # (a run said to have been "trained from scratch" is one already made, set beside another such as a resumed
    # one: the user describes it, they are not asking how to set one up)
    _k(r"new\s+(?:training\s+)?(?:pipeline|project|setup)|set(?:ting)?\s+up\s+(?:a\s+|my\s+|the\s+|our\s+)?"
       r"(?:new\s+)?training|first\s+time\s+train\w*|(?<!trained\s)from\s+scratch|start(?:ing)?\s+(?:a\s+)?new\s+"
       r"(?:training|project|model)",
       _SC, P_NEW_SETUP, symptom="new_setup"),
    _k(r"multi[-\s]?task|multiple\s+(?:tasks|objectives|losses|heads)|auxiliary\s+loss(?:es)?|"
       r"combined\s+loss|sum\s+of\s+(?:\w+\s+)?losses|(?:task|loss)\s+weight(?:s|ing)?|"
       # several losses or heads counted ("two losses", "my 3 task losses", "shared backbone with two heads"), a
       # loss summed from named terms ("total loss = loss_a + loss_b"), two losses combined, the losses weighted
       r"(?<!attention\s)(?:two|three|four|2|3|4|several)\s+(?:different\s+|separate\s+)?(?:task\s+)?"
       r"(?:losses|loss\s+terms|heads|objectives)\b|"
       r"\bloss\w*\s*=\s*\w*loss\w*\s*\+\s*\w*loss|"
       r"combin\w*\s+(?:an?\s+|the\s+|two\s+|my\s+)?[\w-]+\s+loss\s+(?:and|with)\s+(?:an?\s+|the\s+)?[\w-]+\s+"
       r"(?:loss|term)|weight\w*\s+(?:my\s+|the\s+|these\s+)?(?:\w+\s+)?(?:task\s+)?losses",
       _SC, P_MULTI_TASK, symptom="multi_task"),
    # one loss term drowning the others ("the regression loss is 1000x bigger and swamps the classifier's", "one
    # of them overwhelms the others", "the big loss takes over the gradients"): the combined objective's balance,
    # read before what the neglected task is said to do ("the other head never learns")
    _k(r"\b(?:loss(?:es)?|term|task)\b[^.!?\n]{0,60}?\b(?:dominat\w*|swamp\w*|overwhelm\w*|drown\w*|"
       r"overshadow\w*|take\w*\s+over|took\s+over)\b|"
       r"(?:one|each)\s+of\s+them\s+(?:dominat\w*|swamp\w*|overwhelm\w*|drown\w*)",
       _SC, P_NOT_LEARNING + 1, symptom="multi_task"),
    # several losses or tasks, then one of them said far smaller or larger than another, or neglected ("two losses,
    # the regression one is 1000x bigger so the classifier never learns", "loss_b is tiny compared to loss_a",
    # "the second task of my multi-task net does not improve"): the balance of the combined objective again
    _k(r"(?:multi[-\s]?task\w*|(?:two|three|2|3|several|multiple)\s+(?:\w+\s+)?(?:losses|heads|tasks|objectives)|"
       r"auxiliary\s+loss|loss_?\w+\s*\+\s*loss_?\w+)[^.!?\n]{0,120}?"
       r"(?:(?:\d+\s*x|\d+\s+times|orders?\s+of\s+magnitude|much|way|far)\s+(?:bigger|larger|smaller|greater|higher|"
       r"lower)|tiny\s+compared|(?:gets?|is|being)\s+ignored|never\s+learns?|"
       r"(?:does\s*n[o']?t|doesn't|doesnt|don't|dont)\s+(?:improve|learn|move)|stays?\s+(?:bad|where\s+it\s+started)|"
       r"(?:hardly|barely)\s+moves?)",
       _SC, P_NOT_LEARNING + 1, negatable=False, symptom="multi_task"),
    # several classes on at once for one example, said with the verb of membership ("each sample can belong to
    # several classes at once", "an image may be assigned more than one label"), whatever the sentence says of the
    # loss beside it (the FRAMES reading of the same idea stays silent beside a loss)
    _k(r"(?:belong\w*|assigned|tagged|labell?ed)\s+(?:to\s+|with\s+)?(?:several|multiple|more\s+than\s+one|many)\s+"
       r"(?:class(?:es)?|labels?|categor(?:y|ies)|tags?)\b|(?:several|multiple|more\s+than\s+one)\s+"
       r"(?:labels?|class(?:es)?|tags?)\s+"
       r"(?:per\s+(?:sample|example|image|row|item)|at\s+once|at\s+the\s+same\s+time)",
       _QR, 0, target_kind="multi_hot"),
    # --- numbers users quote -----------------------------------------------------------------------------
    # the share of ReLU units that never fire, as users count it ("90% of the relu units output zero", "about 70
    # percent of neurons in layer 3 never activate", "most ReLUs died (85% always zero)"): the probe's
    # dead_relu_fraction said in words (units, neurons or ReLUs; outputs and activations only when said ReLU's)
    _k(r"(?P<dead_relu_fraction>\d+(?:\.\d+)?)\s*(?:%|percent)\s+of\s+(?:the\s+|my\s+|all\s+)?(?:hidden\s+)?"
       r"(?:relu\s+(?:units|neurons|outputs|activations)|relus|units|neurons)\b[^.!?\n]{0,40}?"
       r"\b(?:are\s+dead|dead|died|output\s+(?:zero|0)|(?:are|is)\s+(?:exactly\s+|always\s+)?(?:zero|0)\b|"
       r"never\s+(?:fire|fires|activate|activates))|"
       r"\b(?:relus|relu\s+units|neurons)\s+(?:are\s+)?(?:dead|died)\s*\(\s*(?P<v>\d+(?:\.\d+)?)\s*%\s*"
       r"(?:always\s+zero|dead|never\s+fire)",
       _NL, 0, negatable=False, dead_relu_fraction="$frac"),
    # (the learning rate and the batch size quoted with their number are read by the parser of training talk:
    # knowledge.talk.QUOTED_SETTINGS)
    # the width of the classification head as Hugging Face users set it
    _k(r"num_labels\s*=\s*(?P<num_outputs>\d+)", _QR, 0, negatable=False, num_outputs="$int"),
    # ... and as PyTorch code or words give it: the head's Linear with its out_features ("my last layer is
    # nn.Linear(512, 10)", "model.fc = nn.Linear(2048, 20)", "fc has out_features=100"), or the count of logits the
    # head is said to give ("the head outputs 5 logits", "the classifier has 10 outputs"); the head named, so a
    # hidden layer's width or a count of layers or attention heads is not read (nor a numbered "fc1" followed by
    # another Linear, on its line or the next ones, "fc1 = nn.Linear(784, 128), fc2 = nn.Linear(128, 10)": the
    # chain's last one is the head)
    _k(r"\b(?:head|classifier|fc(?!\d)|fc\d+(?![^!?]{0,40}?linear\([^)]*\)[^!?]{0,80}?linear\()|"
       r"last\s+layer|final\s+layer|output\s+layer|out_layer|last\s+linear|final\s+linear)"
       r"[\w.]*[^.;!?\n]{0,25}?(?:nn\.)?linear\(\s*\d+\s*,\s*(?P<num_outputs>\d+)\s*[,)]",
       _QR, 0, negatable=False, num_outputs="$int"),
    _k(r"\b(?:head|classifier|fc|last\s+layer|final\s+layer|output\s+layer)[\w.]*[^.;!?\n]{0,25}?\bout_features\s*[=:]\s*"
       r"(?P<num_outputs>\d+)",
       _QR, 0, negatable=False, num_outputs="$int"),
    _k(r"\b(?:head|classifier|last\s+layer|final\s+layer|output\s+layer)\s+(?:\w+\s+){0,2}?(?:outputs?|gives?|produces?|"
       r"returns?|has|with|emits?)\s+(?:only\s+)?(?P<num_outputs>\d+)\s+(?:logits|outputs|output\s+units|output\s+neurons|"
       r"scores)\b",
       _QR, 0, negatable=False, num_outputs="$int"),
    # the class count a config gives set against the width of a Linear said in the same breath, with a word that
    # contrasts them ("num_labels=10 but out_features=5", "num_classes=10 while my nn.Linear(768, 5)",
    # "out_features=3 whereas num_labels=7"): the two are said to disagree, so the Linear is the head whatever it is
    # called; the config's count is the classes the data has (the cue hides the bare num_labels cue inside it)
    _k(r"\b(?:num_labels|num_classes|n_classes|nclasses)\s*[=:]\s*(?P<num_classes>\d+)[^.;!?\n]{0,40}?"
       rf"\b{_MISMATCH_LINK}\b[^.;!?\n]{{0,40}}?(?:\bout_features\s*[=:]\s*|(?:nn\.)?linear\(\s*\d+\s*,\s*)"
       r"(?P<num_outputs>\d+)\b",
       _QR, 1, negatable=False, num_classes="$int", num_outputs="$int"),
    _k(r"(?:\bout_features\s*[=:]\s*|(?:nn\.)?linear\(\s*\d+\s*,\s*)(?P<num_outputs>\d+)\b[^.;!?\n]{0,40}?"
       rf"\b{_MISMATCH_LINK}\b[^.;!?\n]{{0,40}}?\b(?:num_labels|num_classes|n_classes|nclasses)\s*[=:]\s*"
       r"(?P<num_classes>\d+)",
       _QR, 1, negatable=False, num_classes="$int", num_outputs="$int"),
    # Hugging Face TrainingArguments said as set ("I set max_grad_norm=0", "lr_scheduler_type='cosine'"): the
    # argument's value is the run's setting, as the same setting said in words is
    # (said in words as well: "I set max_grad_norm to 1", "max grad norm of 0.5", "max_grad_norm is 0")
    # (and any name of the clipping limit, with or without a word before its value: "clip norm = 1", Keras's
    # "clipnorm=1.0", "max_norm=1.0"; only HF's max_grad_norm at zero turns clipping off: torch's clip_grad_norm_
    # with max_norm=0 zeroes the gradients instead)
    _k(rf"\b{_CLIP_NAME}(?:{_SET_TO}|\s+)(?:0*[1-9]\d*(?:\.\d+)?|0*\.\d*[1-9]\d*)\b(?!\.\d)", _QR, 0,
       grad_clipping=True),
    _k(rf"\bmax[_\s]grad[_\s]norm{_SET_TO}['\"]?(?:0(?:\.0+)?|none)\b(?!\.\d)", _QR, 0, grad_clipping=False),
    _k(r"\blr_scheduler_type\s*[=:]\s*['\"]?(?P<lr_schedule>[a-z_]+)", _QR, 0, lr_schedule="$schedule"),
    _k(r"\bignore_data_skip\s*[=:]\s*['\"]?true\b", _QR, 0, ignore_data_skip=True),
    _k(r"\bignore_data_skip\s*[=:]\s*['\"]?false\b", _QR, 0, ignore_data_skip=False),
    _k(r"(?:gpu\s+(?:util\w*|usage|load)|util\w*)\s*(?:(?:of|is|=|:|at|around|about|~|only|just|sits\s+at)\s*){0,3}"
       r"(?P<gpu_utilization_pct>\d+(?:\.\d+)?)\s*%|(?P<v>\d+(?:\.\d+)?)\s*%\s+gpu\s+(?:util\w*|usage|load)",
       _SL, 0, negatable=False, gpu_utilization_pct="$pct"),
    # the card itself said to sit at a share, as a monitor shows it ("task manager shows gpu at 0"; a figure with a
    # unit after it is no share: "shows gpu at 80 degrees")
    _k(r"(?:shows?|showing|says|reports?)\s+(?:the\s+)?gpu\s+(?:is\s+|sitting\s+|stays?\s+)?at\s+"
       r"(?P<gpu_utilization_pct>\d+(?:\.\d+)?)(?:\s*%|(?!\s*[\w.]))",
       _SL, 0, negatable=False, gpu_utilization_pct="$pct"),
    _k(r"(?P<dataset_size>\d[\d,]*(?:\.\d+)?\s*[km]?)\s+(?:training\s+|train\s+|labell?ed\s+|total\s+)?"
       r"(?:examples|samples|images|imgs|pictures|sentences|documents|records|rows|data\s*points|instances|clips)"
       r"(?!\s*(?:per|each|a|every|/|on\s+each)\b)",
       _OF, 0, negatable=False, dataset_size="$count"),
    _k(r"train(?:ing)?\s+acc(?:uracy)?\s*(?:of|is|=|:|at|was|reaches|hits)?\s*(?P<train_metric>\d+(?:\.\d+)?\s*%?)"
       + _NOT_RATIO,
       _OF, 1, negatable=False, train_metric="$frac", metric_kind="accuracy"),
    _k(r"val(?:idation)?\s+acc(?:uracy)?\s*(?:(?:of|is|=|:|at|was|only|just|stays\s+at)\s*){0,3}"
       r"(?P<val_metric>\d+(?:\.\d+)?\s*%?)" + _NOT_RATIO,
       _OF, 1, negatable=False, val_metric="$frac", metric_kind="accuracy"),
    _k(r"loss\s+(?:is\s+|goes\s+|becomes\s+|went\s+|turns\s+|gets\s+|became\s+)?negative|negative\s+(?:\w+\s+)?loss",
       _UN, 0, negative_loss=True),
    # ... said as a value under zero ("goes below zero", "drops under 0", "the loss is -2.1"; not "under zero point
    # one", a small positive value said in words), or of a divergence that cannot be negative (a KL term, KLDivLoss
    # fed probabilities where it takes log-probabilities)
    _k(r"\bloss\b(?:\s+term)?[^.!?\n]{0,30}?" + _UNDER_ZERO + r"|\bloss\b(?:\s+term)?[^.!?\n]{0,20}?"
       r"\b(?:is|was|reads|becomes?|became|reaches|reached|hits?|goes\s+to|went\s+to)\s+(?:(?!not\b|never\b)\w+\s+)?"
       r"(?<![\w.-])-\s*\d",
       _UN, 0, negative_loss=True),
    _k(rf"{_KL_NAME}(?:\s+term)?[^.!?\n]{{0,30}}?" + _UNDER_ZERO + rf"|{_KL_NAME}(?:\s+term)?[^.!?\n]{{0,20}}?"
       r"\b(?:giv(?:es|ing)|outputs?|returns?|is|be|becomes?)\s+(?:(?!not\b|never\b)\w+\s+)?(?:negative|-\s*\d)",
       _UN, 0, negative_loss=True),
    # the train/validation gap said to grow ("the gap between train and val accuracy gets bigger every epoch", "the
    # generalization gap widens the longer I train", "the distance between the curves grows", "the curves separate
    # more and more", "training accuracy pulls further away from validation"): overfitting, with its trend. A
    # difference or distance counts only said between train and validation; "the gap is not growing" is no growth.
    _k(rf"(?:(?:generali[sz]ation\s+|train(?:ing)?\s*[/-]?\s*val(?:idation)?\s+)gap(?:\s+{_TRAIN_VAL})?|"
       # (the bare gap only as the one in view, "so the gap grows": "the data loading gap grows" is another's)
       rf"(?:(?<=\bthe\s)|(?<=\bthis\s)|(?<=\bthat\s))gap(?:\s+{_TRAIN_VAL})?|"
       rf"(?:difference|distance)\s+{_TRAIN_VAL})\s+(?:is\s+|keeps\s+|kept\s+|just\s+|only\s+|steadily\s+)?"
       r"(?:gets?\s+(?:bigger|larger|wider)|getting\s+(?:bigger|larger|wider)|got\s+(?:bigger|larger|wider)|grows?\b|"
       r"growing|grew|widens?|widening|widened|increases?\b|increasing|increased)|"
       r"\b(?:curves|losses|they)\s+(?:\w+\s+){0,2}?(?:separate|diverge|drift\s+apart)\w*\s+more\s+and\s+more|"
       r"\btrain\w*\s+(?:acc\w*|loss|metric)\s+(?:\w+\s+){0,2}?pull\w*\s+(?:further|farther)\s+(?:and\s+(?:further|farther)"
       r"\s+)?away\s+from\s+(?:the\s+)?val\w*",
       _OF, P_OVERFIT, symptom="overfitting", gap_trend="widening"),
    # the weights initialised from a plain normal distribution ("nn.init.normal_(w, 0, 1)", "weights from a standard
    # normal", "init with N(0,1)", "initializing the parameters with a gaussian of std 1"): said with the
    # initialisation or the weights, not "the initial loss looks normal" nor "normally distributed inputs"; the
    # normal inits named for an activation (kaiming_normal_, xavier_normal_) are theirs
    _k(r"(?<!kaiming_)(?<!xavier_)(?<!he_)\bnormal_\s*\([^()\n]{0,60}\)|\b(?:init(?:iali[sz]\w*|s|ed)?|weights?|parameters|params)\b"
       r"(?:(?!\bnot\b|\bnever\b|n't\b)[^.!?\n]){0,40}?\b(?:(?:a\s+|the\s+)?standard\s+normal\b|normal\s+distribution|normal\s*\(\s*0|"
       r"normal\s+0\s*[,/]\s*1\b|gaussian\b|n\(\s*0\s*,\s*1\s*\)|randn\b)",
       _NL, 0, init_scheme="normal"),
    # an accuracy gap in percentage points: the val number is a difference, not the val accuracy
    _k(rf"val(?:idation)?(?:\s+acc(?:uracy)?)?\s+(?:is\s+)?(?:about\s+|around\s+|roughly\s+|~)?"
       rf"(?P<generalization_gap>{NUM})\s*(?:%|percentage\s+points?|points?|pts|pp)\s+(?:below|lower\s+than|under|"
       r"behind|worse\s+than)\s+(?:the\s+)?train\w*|(?:gap|difference)\s+of\s+(?:about\s+|around\s+|~)?"
       rf"(?P<v>{NUM})\s*(?:%|percentage\s+points?|points?|pts|pp)",
       _OF, P_OVERFIT, negatable=False, symptom="overfitting", generalization_gap="$frac"),
    # a train/val pair in one breath: "train acc 0.99 but val 0.6", "training accuracy is 99% while validation 60%"
    _k(rf"train(?:ing)?\s+acc(?:uracy)?\s*(?:(?:of|is|=|:|at|was|reaches|reached|hits|around|about|~)\s*){{0,2}}"
       rf"(?P<train_metric>{PCT})\s*(?:,|but|while|and|/|vs\.?|versus|whereas)?\s*(?:the\s+|my\s+|an?\s+)?"
       rf"(?:val(?:idation)?|test|dev)(?:\s+acc(?:uracy)?)?\s*(?:(?:of|is|=|:|at|was|only|just|around|about|stays\s+at|"
       rf"stuck\s+at|~)\s*){{0,3}}(?P<val_metric>{PCT})",
       _OF, 2, negatable=False, train_metric="$frac", val_metric="$frac", metric_kind="accuracy"),
    _k(r"train(?:ing)?\s+(?P<train_metric>\d+(?:\.\d+)?\s*%)\s*(?:,|/|and|but|vs\.?)?\s*(?:val(?:idation)?|test)\s+"
       r"(?P<val_metric>\d+(?:\.\d+)?\s*%)",
       _OF, 1, negatable=False, train_metric="$frac", val_metric="$frac", metric_kind="accuracy"),
    # (the logged spelling too, "train_loss=0.7, val_loss=15", and either order: "val_loss=15 with train_loss=0.7")
    # (a value said where the curve starts or sits, "val loss starts at 25 while train loss is 0.6"; the second loss
    # named by its split alone, "val loss ~20 and train ~1", but never a count, "and train 10 epochs")
    _k(rf"train(?:ing)?[\s_]+loss\s*{_LOSS_VALUE_LINK}(?P<train_metric>{NUM})\s*"
       rf"{_LOSS_PAIR_LINK}\s*(?:(?:the|a|an|my|our)\s+)?val(?:idation)?(?:[\s_]+loss)?\s*{_LOSS_VALUE_LINK}"
       rf"(?P<val_metric>{NUM}){_NOT_COUNT}",
       _OF, 2, negatable=False, train_metric="$num", val_metric="$num", metric_kind="loss"),
    _k(rf"val(?:idation)?[\s_]+loss\s*{_LOSS_VALUE_LINK}(?P<val_metric>{NUM})\s*"
       rf"{_LOSS_PAIR_LINK}\s*(?:(?:the|a|an|my|our)\s+)?train(?:ing)?(?:[\s_]+loss)?\s*{_LOSS_VALUE_LINK}"
       rf"(?P<train_metric>{NUM}){_NOT_COUNT}",
       _OF, 2, negatable=False, train_metric="$num", val_metric="$num", metric_kind="loss"),
    # informational questions about an optimizer are direct questions, not a wish to switch
    _k(rf"(?:when|why|how|where|in\s+what\s+cases?|for\s+what)\s+(?:does|do|would|is|are|can|could|should)\s+"
       rf"(?:the\s+|a\s+)?(?:{MODERN_OPT})(?:\s+optimi[sz]er)?\s+(?:actually\s+|really\s+)?"
       r"(?:beat|outperform|work|help|better|worse|differ|compare|win|fail|make\s+sense|pay\s+off)\w*"
       r"(?:\s+(?:than\s+|over\s+|against\s+|to\s+)?(?:the\s+|plain\s+)?(?:adamw?|sgd))?|"
       rf"(?:what\s+is|what's|explain|how\s+does)\s+(?:the\s+)?(?:{MODERN_OPT})(?:\s+optimi[sz]er)?(?:\s+work)?",
       _DQ, P_DIRECT + 1, negatable=False, symptom="direct_question", question_topic="optimizer"),
    # in-flight tracking named as such (a registry cue, higher, wins when both are named)
    _k(r"experiment\s+tracking|track(?:ing)?\s+(?:my\s+|our\s+|the\s+)?(?:experiments?|runs?|metrics)|"
       r"log(?:ging)?\s+(?:my\s+|the\s+)?(?:metrics|runs?|experiments?)|compar(?:e|ing)\s+(?:my\s+|the\s+)?runs|"
       r"dashboards?",
       _TR, P_TRACKING - 1, tracking_scope="in_flight"),
    # settings users quote (class names and library spellings are canonicalised by knowledge.terms)
    _k(LOSS_NAMES, _QR, 0, negatable=False, loss_fn="$loss"),
    # CTC is only ever a loss (and its decoder): a model or repository named for it trains with it ("Wav2Vec2ForCTC",
    # "crnn_ctc", "ctc_pytorch"), where the name hides the word from the loss names above
    _k(r"[a-z0-9]*forctc|ctc_[a-z0-9_]+|[a-z0-9]+_ctc", _QR, 0, negatable=False, loss_fn="ctc"),
    _k(SCHEDULE_NAMES, _QR, 0, lr_schedule="$schedule"),
    # a schedule counted in steps but stepped once an epoch ("my warmup is 2000 steps but I call scheduler.step()
    # once per epoch", "num_training_steps is in steps and I call sched.step() outside the batch loop"): it runs as
    # many times too slow as an epoch has steps
    _k(r"\b(?:warm-?up|schedule|decay|cycle|num_training_steps|num_warmup_steps|total_steps|t_max)\w*\s+(?:is\s+|of\s+|"
       r"for\s+|over\s+|=\s*|lasts\s+|(?:is\s+)?defined\s+over\s+)?\d+(?:\.\d+)?\s*k?\s+(?:optimizer\s+|training\s+)?"
       r"steps\b[^.!?\n]{0,80}?\b\w*sched\w*(?:\.step\(\))?"
       r"[^.!?\n]{0,20}?\b(?:only\s+)?(?:once\s+)?(?:per|each|every)\s+epoch\b|"
       r"\b\w*sched\w*\.step\(\)\s+(?:only\s+)?outside\s+(?:of\s+)?(?:the\s+)?(?:batch|inner|step|training|train)\s+loop\b",
       _LOOP, 0, negatable=False, scheduler_pace="too_slow"),
    _k(r"warmup", _QR, 0, warmup=True),
    # a warmup option set to zero is the warmup switched off ("--lr_warmup_steps=0", "warmup_ratio: 0.0"), whatever
    # its name holds: the option named is no warmup used
    _k(r"\b(?:(?:lr|num)_)?warm_?up_(?:steps|ratio|epochs?|iters?|iterations)\s*[=:]\s*['\"]?(?:0+(?:\.0+)?|\.0+)"
       r"['\"]?(?![\w.]*[1-9])", _QR, 1, negatable=False, warmup=False),
    _k(r"(?:no|without(?:\s+any)?|disabled?)\s+(?:lr\s+|learning[\s-]rate\s+)?warmup|warmup\s+(?:disabled|off)",
       _QR, 1, negatable=False, warmup=False),
    # (several devices, named or counted, are read by the parser of training talk: knowledge.talk.SETTING_NAMES)
    # (a count above one is accumulation itself, said with its count: "accum_steps=16", "grad accumulation 8")
    # (the value a change led to, not the one it left: "gradient_accumulation_steps from 1 to 8", "accumulation 1 vs
    # 4"; and the bare word
    # before its count, "with accumulation 4")
    _k(r"(?:grad(?:ient)?[\s_-]?accum\w*(?:[\s_-]?steps)?|accumulate_grad_batches|accum(?:ulation)?[\s_-]?steps|"
       r"(?<!loss\s)(?<!losses\s)(?<!metric\s)(?<!metrics\s)accum(?:ulation)?|"
       r"--accumulate)(?:\s+from\s+\d+|\s*\d+\s*(?:vs\.?|versus|->|→))?\s*(?:of|=|:|is|to)?\s*(?P<grad_accum_steps>0*(?:[2-9]|[1-9]\d+))(?!\d)",
       _QR, 0, negatable=False, grad_accum_steps="$int", grad_accumulation=True),
    # (the count said after the verb: "I accumulate gradients over 4 micro batches", "accumulating the grads of 8
    # batches")
    # (gradients named, or micro-batches and passes, which only gradients accumulate over: "the loss accumulated
    # over 50 steps" is a logged sum, no accumulation of gradients)
    _k(r"(?:accumulat\w*\s+(?:the\s+|my\s+)?grad(?:ient)?s?|grad(?:ient)?s?\s+(?:are\s+|get\s+|were\s+)?"
       r"accumulated)\s+(?:over|across|for|of)\s+(?P<grad_accum_steps>0*(?:[2-9]|"
       r"[1-9]\d+))\s+(?:micro[\s-]?)?(?:batch(?:es)?|steps|iterations|forward\s+passes)\b",
       _QR, 0, negatable=False, grad_accum_steps="$int", grad_accumulation=True),
    _k(r"(?<!loss\s)(?<!losses\s)(?<!metric\s)(?<!metrics\s)(?<!is\s)(?<!are\s)(?<!was\s)(?<!were\s)"
       r"accumulat\w*\s+(?:over|across|for|of)\s+"
       r"(?P<grad_accum_steps>0*(?:[2-9]|[1-9]\d+))\s+(?:(?:micro[\s-]?)?batch(?:es)?|(?:forward|backward)"
       r"(?:\s+and\s+backward)?\s+passes)\b",
       _QR, 0, negatable=False, grad_accum_steps="$int", grad_accumulation=True),
    _k(r"(?:grad(?:ient)?[\s_-]?accum\w*(?:[\s_-]?steps)?|accumulate_grad_batches|accum(?:ulation)?[\s_-]?steps|"
       r"(?<!loss\s)(?<!losses\s)(?<!metric\s)(?<!metrics\s)accum(?:ulation)?|"
       r"--accumulate)(?:\s+from\s+\d+|\s*\d+\s*(?:vs\.?|versus|->|→))?\s*(?:of|=|:|is|to)?\s*(?P<grad_accum_steps>0*1)(?!\d)",
       _QR, -1, negatable=False, grad_accum_steps="$int"),
    # (below a count above one said in the same text: runs compared, "accumulation 1 gives 8 it/s, accumulation 4
    # gives 2", are about the one with accumulation, the value changed to)
    # boxes said to be degenerate or outside the image ("some boxes have zero width", "xmax <= xmin", "bounding
    # boxes outside the image")
    _k(r"(?:degenerate|invalid|empty|zero[\s-]area|negative)\s+(?:bounding\s+|gt\s+|ground[\s-]truth\s+)?boxe?s?\b|"
       r"boxe?s?\s+(?:with|of|having|has|have)\s+(?:a\s+)?(?:zero|negative|0)\s+(?:width|height|area)|"
       r"(?:x_?max|x2)\s*<=?\s*(?:x_?min|x1)|(?:y_?max|y2)\s*<=?\s*(?:y_?min|y1)|"
       r"boxe?s?\s+(?:that\s+)?(?:go|goes|going|are|extend|extends|reach|reaches|lie)\s+(?:partly\s+)?"
       r"(?:outside|out\s+of|beyond)\s+(?:the\s+)?image",
       _UN, 0, boxes_invalid=True),
    # accumulation said without its count ("I'm doing gradient accumulation", "with accelerator.accumulate(model)")
    _k(r"grad(?:ient)?[\s_-]?accumulat\w*|accumulat\w*\s+(?:the\s+)?grad(?:ient)?s?\b|accelerator\.accumulate|"
       r"accumulate_grad_batches|gradient_accumulation_steps",
       _QR, 0, grad_accumulation=True),
    # a finished run trained further ("trained for 30 more epochs on top of a finished run", "10 extra epochs after
    # the final checkpoint"): the run's length changed (recent_change=extended), not asked
    _k(r"\b\d+[k]?\s+(?:more|extra|additional)\s+(?:epochs?|steps?|iterations?)\s+(?:on\s+top\s+of|after|past|beyond)"
       r"\s+(?:the\s+|a\s+|an\s+|my\s+)?(?:already\s+)?(?:finished|completed|final|planned|end|full|converged)\b"
       r"(?![^.!?\n]*\?)", _QR, 0, recent_change="extended"),
    # the accumulation context wrapped around the loop rather than entered per batch ("the with
    # accelerator.accumulate(model): block wrapped around the for loop", "no_sync() outside the loop")
    # ("wraps the full epoch loop", "called once for the entire loop", "I wrapped the whole for loop in
    # accelerator.accumulate")
    _k(r"(?:accumulate|no_sync)\b(?:(?!\binside\b|\bnot\b|n't\b)[^.;]){0,40}?\b(?:around|outside(?:\s+of)?|wraps?|"
       r"wrapping|once\s+(?:for|over))\s+(?:the\s+)?(?:whole\s+|entire\s+|full\s+)?"
       r"(?:for\s+)?(?:training\s+|batch\s+|epoch\s+|dataloader\s+)?(?:loop|epoch)|"
       r"\bwrap\w*\s+(?:the\s+)?(?:whole|entire|full)\s+(?:for\s+|training\s+|epoch\s+|dataloader\s+|batch\s+){0,2}"
       r"(?:loop|epoch)\b(?:(?!\bnot\b|n't\b)[^.;]){0,40}?\b(?:\w+\.)?(?:accumulate|no_sync)",
       _LOOP, 2, accum_wiring="around_loop", grad_accumulation=True),
    # (set to a value too: "I set weight decay to 0.5", "weight decay was raised to 0.1")
    # (and the new value of a change made to it, said in the passive: "weight decay was bumped up to 0.1", "wd got
    # cut to 1e-4", "weight decay has been set to 0.05")
    _k(rf"(?:weight[\s_-]?decay|wd)\s*(?:(?:of|=|:|is|at|(?:(?:was|is|got|gets|has\s+been|had\s+been)\s+)?"
       rf"(?:(?:set|raised|increased|lowered|reduced|decreased|changed|bumped|cut|dropped|halved|doubled|upped|"
       rf"brought|pushed|cranked|slashed|moved)\s+)?(?:(?:up|down|back)\s+)?to|was)\s*)?"
       rf"(?P<weight_decay>{NUM})(?!\s*(?:x\b|times\b|%))", _QR, 0,
       weight_decay="$num"),
    _k(r"(?:num_classes|n_classes|nclasses)\s*=?\s*(?P<num_classes>\d+)|(?P<v>\d+)[\s-]+(?:classes|categories|"
       r"class\s+classification)", _QR, 0, negatable=False, num_classes="$int"),
    # command-line flags of training scripts (timm, the ImageNet example, detectron-style): "-b 128" is the batch
    # size, a short flag that stands alone (after a blank, never inside a word or a longer flag)
    _k(r"(?<![\w-])-b(?:\s+|=)(?P<batch_size>\d+)\b(?![.,]\d)", _QR, 0, negatable=False, batch_size="$int"),
    # a schedule's kind said bare right after the learning rate it schedules ("lr 1e-4 cosine", "lr=3e-4, cosine"):
    # "cosine" or "linear" alone is ambiguous, next to a rate it is the rate's schedule (not "linear warmup",
    # "a linear layer" or "a linear probe")
    _k(rf"\b(?:lr|learning[\s_]rate)\s*(?:[=:]|of|at|is)?\s*(?:{NUM})\s*,?\s+(?:with\s+(?:an?\s+)?)?"
       r"(?P<lr_schedule>cosine|linear|constant|polynomial|exponential|wsd|inverse[\s_]sqrt)\b"
       r"(?![-_\s]*(?:warm|layer|probe|regress|model|head|classifier|scal|kernel|interp|combination|annealing|"
       r"schedul|decay))",
       _QR, 0, negatable=False, lr_schedule="$schedule"),
    # an optimizer's learning rate said with "at" ("adamw at 5e-5", "sgd @ 0.01"): only a value written like a rate
    # (a decimal or a negative power) and no figure's ("adam at 0.5 accuracy"), so "adam at 100 epochs" is no rate
    _k(r"\b(?:adamw?|sgd|rmsprop|lion|lamb|adafactor|adagrad|radam|nadam|sophia|muon|prodigy)\s+(?:at|@)\s+"
       r"(?:(?:an?\s+)?(?:lr|learning\s+rate)\s+(?:of\s+)?)?"
       r"(?P<learning_rate>\d*\.\d+(?:e-?\d+)?|\d+(?:\.\d+)?e-\d+)(?![\d.])"
       r"(?!\s*(?:%|epochs?|steps?|iter|acc|loss|val|f1|auc|map\b|dice|iou|score|precision|recall|perplex|ppl|bleu))",
       _QR, 0, negatable=False, learning_rate="$num"),
    # the count said in words ("set the number of classes to 2", "number of classes is 10", "num classes: 5")
    _k(rf"\b(?:number|num|no\.?)\s+of\s+(?:classes|categories|labels|output\s+classes)(?:\s+in\s+the\s+config)?"
       rf"{_SET_TO}(?P<num_classes>\d+)\b(?![.,]\d)", _QR, 0, negatable=False, num_classes="$int"),
    # (the count in brackets after its name: "smaller than the number of classes (4)")
    _k(r"\b(?:number|num|no\.?)\s+of\s+(?:classes|categories|labels|output\s+classes)\s*\(\s*(?P<num_classes>\d+)\s*\)",
       _QR, 0, negatable=False, num_classes="$int"),
    # the labels said to take so many distinct values ("my labels have 7 different values", "the targets take 12
    # unique values"): that many classes (not a count of examples: "labels have 7 missing values" says no kind)
    _k(r"\b(?:labels?|targets?|class\s+ids?|y)\s+(?:have|has|had|take|takes|took|contain|contains|with)\s+"
       r"(?P<num_classes>\d+)\s+(?:different|distinct|unique)\s+(?:values|labels|ids|classes)\b",
       _QR, 0, negatable=False, num_classes="$int"),
    _k(r"(?:binary|two[\s-]class)\s+classifi\w*", _QR, 0, negatable=False, num_classes=2, task="classification"),
    # what the model is and does
    # (segmentation models and datasets by name; not U-Net, which diffusion models are built on too)
    _k(r"segment\w*|deeplab\w*|bisenet\w*|pspnet\w*|segformer\w*|mask2former\w*|maskformer\w*|segnet\w*|"
       r"cityscapes\w*|ade20k\w*", _QR, 0, negatable=False, task="segmentation"),
    # A detector's own loss terms and model names say detection; it outranks "classification" (priority 1),
    # since every detector has a classification loss beside its box loss. ("anomaly detection" is the autograd
    # tool, and an SSD without a detector's name is a disk.)
    _k(r"(?:object\s+)?(?<!anomaly\s)detect(?:ion|or|ors)|yolo\w*|faster[\s-]?r-?cnn|mask[\s-]?r-?cnn|retinanet|"
       r"detectron\w*|mmdet\w*|(?:vgg\w*|mobilenet\w*)[\s-]+ssd\w*|ssd[\s_-]?(?:300|512|lite)\w*|"
       r"loss_(?:box_reg|bbox|rpn\w*)|(?:bounding[\s-]?box|b?box)[\s_-]+(?:regression|reg)\b|\brpn\b|"
       r"\bfcos\b|\bdetr\b|efficientdet\w*|centernet\w*", _QR, 1, negatable=False, task="detection"),
    _k(r"classif(?:ier|iers|ication|y|ying)", _QR, 0, negatable=False, task="classification"),
    # ("sign-language model" is no language model)
    _k(r"(?<!sign[-\s])language\s+model\w*|\bllms?\b|causal\s+lm|gpt-?\d*\w*|llama\w*|mistral\w*|next[\s-]token|"
       r"qwen\w*|gemma\w*|phi-?\d\w*|falcon-?\d+\w*|starcoder\w*|deepseek\w*|vicuna\w*|mixtral\w*|decoder[\s-]only|"
       r"code-?llama\w*|baichuan\w*|chatglm\w*|internlm\w*|"
       # (what only a text generator is tuned with: a chat template, instruction tuning, SFT on prompts and answers,
       # an end-of-sequence token to learn, a causal-LM class)
       r"chat[\s_-]?templates?|apply_chat_template|instruction[\s-]?(?:tun\w*|fine[\s-]?tun\w*)|\bsft\b|sfttrainer|"
       r"\w*forcausallm\b|causal[\s-]+language|\bchat\s+model|eos[\s_]token|end[\s-]of[\s-](?:sequence|text)\s+token|"
       r"\w+-instruct\b|"
       # ("LM" for the language model, as its trainers write it: "my LM dataset", "the LM head", "LM loss")
       r"\blms?\b(?=\s+(?:dataset|data|training|train|loss|head|fine[\s-]?tun\w*|finetun\w*|pre-?train\w*|run|"
       r"model))|(?:my|our|causal|masked)\s+lm\b",
       _QR, 0, negatable=False, task="language_modeling"),
    # (not a detector's box-regression term: "regression loss", "bbox regression")
    _k(r"(?<!box\s)(?<!bbox\s)regression(?!\s+(?:loss|head|branch|term))", _QR, 0, negatable=False,
       scope=False, task="regression"),
    # a continuous quantity the model is said to predict ("predicting house prices", "forecast energy demand",
    # "salary as the target"): a value, not a class, so a regression (a price class or an age group is not)
    _k(r"\b(?:predict\w*|forecast\w*|estimat\w*)\s+(?:the\s+|a\s+|an\s+|my\s+|our\s+)?(?:[a-z-]+\s+){0,2}?(?:prices?|salar(?:y|ies)|costs?|temperatures?|sales|"
       r"revenues?|demand|energy|consumption|ages?|income|rents?|durations?|quantit(?:y|ies)|(?:power\s+)?loads?)\b"
       r"(?!\s+(?:class|classes|categor\w+|groups?|bins?|buckets?|ranges?|labels?)\b)|"
       r"\b(?:prices?|salar(?:y|ies))\s+(?:as|are)\s+(?:the\s+|my\s+)?(?:labels?|targets?)\b",
       _QR, 0, negatable=False, scope=False, task="regression"),
    # the model named by its task ("my regressor", "regressors")
    _k(r"regressors?\b", _QR, 0, negatable=False, task="regression"),
    # evaluation run with autograd on: torch.no_grad() said to be missing around the validation / test loop
    _k(r"(?:without|forg[eo]t\w*|no|missing|not\s+(?:use|using|wrap\w*)|don'?t\s+use)\s+(?:the\s+|any\s+)?"
       r"(?:torch\.)?no_grad(?:\(\))?[^.!?\n]{0,60}?\b(?:eval|valid|test|inference)|"
       r"\b(?:eval|valid|test|inference)\w*[^.!?\n]{0,60}?(?:without|no|missing|forg[eo]t\w*|not\s+(?:use|using|"
       r"wrap\w*)|don'?t\s+use)\s+(?:the\s+|any\s+)?(?:torch\.)?no_grad", _UN, 0, negatable=False,
       kept_graphs="eval_with_grad"),
    # (the model family is read by the parser of training talk: knowledge.talk.MODEL_FAMILIES and SETTING_NAMES)
    # "why doesn't mixed precision speed anything up?" is a precision-strategy question
    # (a difference is the speed's only when said of it: "switching to bf16 made no difference" is a change made
    # that did not help, whatever the trouble it was meant for)
    _k(r"(?:mixed\s+precision|fp16|bf16|amp|precision\s*=\s*16|half\s+precision)(?P<gap1>[^.!?\n]{0,60}?)"
       r"(?:no\s+(?:speed\w*|difference(?=[^.!?\n]{0,40}?\b(?:speed|throughput|runtime|time|faster|slower|"
       r"it/s)\b))|(?:doesn't|does\s+not|didn't|did\s+not|won't)\s+(?:speed|make\s+\w+\s+"
       r"faster|help\s+(?:with\s+)?speed))",
       _DQ, P_DIRECT + 1, negatable=False, symptom="direct_question", question_topic="precision"),
    _k(OPTIMIZER_NAMES, _QR, 1, optimizer="$optimizer"),
    # no gradient at all said to reach the weights ("no gradients for any parameters", "the encoder gets no grad"):
    # after backward the gradients are None (not "no gradient clipping", nor torch.no_grad around an evaluation, nor
    # a part the user froze, which gets none by design: "no gradient for the embeddings after I froze them")
    _k(rf"\bno\s+grad(?:ient)?s?\s+(?:(?:at\s+all|whatsoever)\s+)?(?:for|flows?|flowing|reach\w*|to|into)\b"
       rf"(?!\s+(?:clip\w*|accum\w*|check\w*|norm\w*|scal\w*)){_NOT_FROZEN}|"
       r"\b(?:gets?|getting|got|receives?|receiving|received|has|have|having)\s+no\s+grad(?:ient)?s?\b"
       rf"(?!\s*[-_]?\s*(?:clip\w*|accum\w*|check\w*|norm\w*|scal\w*)){_NOT_FROZEN}",
       _NL, 1, negatable=False, step_grads="none", symptom="not_learning"),
    # questions about an optimizer's own settings are optimizer questions
    _k(rf"(?:how|what|which)\s+(?:should\s+|do\s+|can\s+|to\s+)?(?:i\s+|we\s+)?(?:pick|choose|set|tune|select|use)?\s*"
       rf"(?:the\s+|my\s+|good\s+)?(?:{MODERN_OPT}|optimi[sz]er)(?:'s)?\s+(?:hyper-?param\w*|settings|betas?|"
       r"eps(?:ilon)?|momentum\s+values?)",
       _DQ, P_DIRECT, negatable=False, symptom="direct_question", question_topic="optimizer"),
    # two versions of one library set side by side, the older one training: "NaN on PyTorch 1.5; on 1.4 the loss
    # decreases normally" is a regression the upgrade brought (the DF-CHG-LIB rows), said without "upgrade"; the
    # second version may name its library again, the same one ("nan with deepspeed 0.13.5. With deepspeed 0.10.2 the
    # same script trains fine"), never another ("deepspeed 0.13.5 with transformers 4.38 trains fine" is one setup)
    _k(r"(?P<lib>pytorch|torch|transformers|lightning|accelerate|peft|trl|deepspeed|timm|diffusers)\s*(?:==\s*|v)?"
       r"\d+\.\d+(?:\.\d+)?\b(?P<gap1>[^!?\n]{0,120}?)\b(?:on|with|under|in|using)\s+"
       r"(?:(?P=lib)\s*(?:==\s*|v)?|v|version\s+)?\d+\.\d+"
       r"(?:\.\d+)?\b(?P<gap2>[^.!?\n]{0,60}?)(?<!n't\s)(?<!not\s)\b(?:works?|worked|fine|normal(?:ly)?|ok(?:ay)?|"
       r"trains?|trained|decreas\w*|converg\w*)\b",
       _UN, 0, negatable=False, recent_change="library_upgrade"),
    # two versions of one library compared by speed or result ("torch 1.12.1 runs slower than torch 1.8.2", "the
    # same code on pytorch 0.2.0 is 20x slower than on 0.1.12"), or the version said to be all that differs ("only the
    # pytorch version differs", "a git pull of torch"): the runs differ by the library, a change the trouble followed
    # (the newer version the worse one, which expert.text checks: "torch 2.1 is faster than torch 2.0" is no
    # complaint)
    _k(r"(?P<lib>pytorch|torch|transformers|lightning|accelerate|peft|trl|deepspeed|timm|diffusers)\s*(?:==\s*|v)?"
       r"(?P<ver1>\d+\.\d+(?:\.\d+)?)\b(?:[^.!?\n]|\.(?=\d)){0,60}?\b(?:\d+x\s+)?(?P<cmp>slower|faster|worse|better)"
       r"\s+than\s+(?:on\s+|with\s+)?(?:(?P=lib)\s*(?:==\s*|v)?|v|version\s+)?(?P<ver2>\d+\.\d+(?:\.\d+)?)|"
       r"\b(?:only|just)\s+(?:the\s+)?(?:pytorch|torch|transformers|lightning|accelerate|peft|trl|deepspeed|timm|"
       r"diffusers|library)\s+versions?\s+(?:differs?|is\s+different|are\s+different|changed)\b|"
       r"\bgit\s+pull(?:ed)?\s+(?:of\s+|on\s+)?(?:the\s+)?(?:pytorch|torch|transformers|lightning|accelerate|peft|"
       r"trl|deepspeed|timm|diffusers)\b",
       _UN, 0, negatable=False, recent_change="library_upgrade"),
    # the same said the other way round: the version that trains first, then the one that does not ("it worked
    # with torch 1.13 but not with 2.0", "trains fine on transformers 4.20, fails on 4.21")
    _k(r"\b(?:works?|worked|fine|trains?|trained|converg\w*)\b[^.!?\n]{0,30}?\b(?:on|with|under|in|using)\s+"
       r"(?:(?:pytorch|torch|transformers|lightning|accelerate|peft|trl|deepspeed|timm|diffusers)\s*(?:==\s*|v)?|v|"
       r"version\s+)\d+\.\d+(?:\.\d+)?\b[^.!?\n]{0,40}?\b(?:but\s+not|not\s+(?:on|with|in|under|using)|fails?|failed|breaks?|"
       r"broke|nan|diverg\w*)\b",
       _UN, 0, negatable=False, recent_change="library_upgrade"),
    # the same code fine on another device ("works on other GPUs and on CPU", "trains fine on the CPU"): what fails is
    # this device's arithmetic, not the code
    # (a bare "runs on CPU" is where the run is, not a device it is fine on: a fine run must be said)
    _k(r"\b(?:works?|worked|(?:runs?|ran|trains?|trained)\s+(?:fine|normally|ok|well)|is\s+fine|was\s+fine)\b"
       r"(?:\s+fine|\s+normally|\s+ok)?\s+"
       r"(?:on|with)\s+(?:the\s+|a\s+|my\s+)?(?:cpu|other\s+(?:gpus?|cards|machines)|another\s+(?:gpu|card|machine)|"
       r"(?:a\s+)?different\s+(?:gpus?|cards?))\b",
       _UN, 0, negatable=False, device_specific=True),
    # the same code fine from the original weights ("works with the original Llama weights", "the base checkpoint
    # trains fine"): what fails is the other checkpoint, not the code (the NaN row needs the failure said too).
    # "model" counts only after "base": "the original model works" is as often another implementation.
    # Only a failure tied to another checkpoint counts ("... but my fine-tuned checkpoint gives nan"): steps of
    # fine-tuning from the base ("works, but after 2000 steps of fine-tuning the loss is nan") share the weights'
    # start, and a failure said of any weights ("regardless of checkpoint", "with either") is no checkpoint's.
    _k(rf"{_BASE_FINE}(?P<gap1>(?:(?!{_ANY_CKPT})[^\n]){{0,120}}?){_OTHER_CKPT}|"
       rf"{_OTHER_CKPT}(?P<gap2>(?:(?!{_ANY_CKPT})[^\n]){{0,120}}?){_BASE_FINE}",
       _UN, 0, negatable=False, checkpoint_specific=True),
    # a few examples per device said beside BatchNorm ("2 images per GPU is too small for BN", "bs=2 with
    # BatchNorm", "batch of 1 per card ... BN layers"): the batch BatchNorm normalises over (MS-BN-01 judges its
    # size). Without BatchNorm named the same batch says nothing about normalisation (LayerNorm models).
    # BatchNorm said absent or replaced ("I don't use BatchNorm", "replaced BatchNorm with LayerNorm", "GroupNorm
    # instead of BatchNorm") normalises nothing: a negation before it cancels, and a replacement word or another
    # norm in the gap breaks the pair. SyncBN (_BN_LOCAL leaves it out) already normalises over all devices.
    _k(rf"{_BN_LOCAL}(?P<gap1>{_BN_GAP}{{0,80}}?){_DEVICE_BATCH}", _QR, 0, bn_batch="$int"),
    _k(rf"{_DEVICE_BATCH}(?P<gap1>{_BN_GAP}{{0,80}}?){_BN_LOCAL}", _QR, 0, bn_batch="$int"),
    # (the same per-device batch is the rank's own batch: read beside it, over the same words, for the
    # data-parallel rows; a lone "bs=2 with BatchNorm" may be a global batch and is left to bn_batch)
    _k(rf"{_BN_LOCAL}(?P<gap1>{_BN_GAP}{{0,80}}?){_RANK_BATCH}", _QR, 0, per_rank_batch="$int"),
    _k(rf"{_RANK_BATCH}(?P<gap1>{_BN_GAP}{{0,80}}?){_BN_LOCAL}", _QR, 0, per_rank_batch="$int"),
    _k(rf"\b(?:bs|batch[\s_-]?size)\s*(?:=|:|of|is)?\s*(?P<bn_batch>\d+)\s+(?:with|and|using|under)\s+(?:the\s+)?"
       rf"{_BN_LOCAL}", _QR, 0, bn_batch="$int"),
    # a version without the framework that trains ("while the non-PyG train.py reaches 98%"): the parser's frame for
    # a reference implementation reads "non" as a word, which the closed compound "non-PyG" (read "nonpyg") no
    # longer has; only frameworks follow "non" here ("the nonlinear model trains" is no reference)
    _k(r"(?:while|whereas|but)\s+(?:the\s+|my\s+|a\s+|an\s+)?non-?(?:pyg|geometric|lightning|hf|hugging\s?face|"
       r"trainer|framework|accelerate|deepspeed|keras|tf|tensorflow|jax|fastai|mmcv|mmdet\w*|detectron\w*|pytorch|"
       r"torch)[\w.-]*\s+(?:[\w.]+\s+){0,3}?"
       r"(?:reach\w*|trains?|trained|works?|worked|converg\w*|learns?|learned|hits?|gets?\s+to)\b",
       _NL, 0, negatable=False, reference_works=True),
    # the offset between a language model's logits and its labels, as users find it (the row is LS-SHIFT-01)
    _k(r"(?:shift\w*\s+(?:the\s+)?labels?|labels?\s+(?:are\s+|get\s+|is\s+)?shifted)(?P<gap1>[^.!?\n]{0,80}?)\b(?:twice|"
       r"again|a\s+second\s+time)\b|double[\s-]shift\w*|shifted\s+twice|token\s+after\s+the\s+next(?:\s+one)?|"
       r"(?:trained|computed|compared|scored)\s+(?:\w+\s+){0,2}?against\s+labels\s*\[\s*(?:\.\.\.|:)\s*,\s*1\s*:",
       _NL, 0, negatable=False, label_shift="double"),
    _k(r"(?:computed|compared|scored)\s+(?:straight|directly)\s+against\s+the\s+labels|"
       r"(?:no|without(?:\s+any)?|never\s+does\s+the|doesn'?t\s+do\s+the)\s+(?:internal\s+)?(?:label\s+)?shift(?:ing)?"
       r"(?:\s+of\s+the\s+labels)?|labels?\s+(?:are\s+|is\s+)?(?:not|never)\s+shifted",
       _NL, 0, negatable=False, label_shift="missing"),
    # a progress bar whose count looks wrong (jumps, half the batches, a total that does not match) is a question
    # about what the display counts, not about training ("stuck" or "frozen" bars are hangs, read elsewhere)
    _k(r"progress[\s-]?bar\w*(?P<gap1>[^.!?\n]{0,80}?)\b(?:jump\w*|skip\w*|wrong\s+(?:total|count|number)|"
       r"(?:total|count)\s+(?:is\s+|looks\s+)?(?:wrong|off)|half(?:[\s-]?way)?|twice|doubl\w*)\b",
       _TR, P_TRACKING + 1, negatable=False, symptom="metrics_wrong"),
    # clipping that is configured and never acts, said with its negation on the clip itself ("the gradients are
    # not clipped at all"), which the parser's frame for LP-CLIP-01 cannot anchor on
    _k(r"(?:grad(?:ient)?s?|(?:grad(?:ient)?[\s_-]?)?norms?)\s+(?:are|were|is|get|got)\s+(?:not|never)\s+(?:being\s+|actually\s+)?"
       r"clipped|(?:clipping|gradient_clip_val|clip_grad\w*)\s+(?:is\s+|was\s+|gets\s+)?(?:never|not)\s+(?:being\s+|actually\s+)?"
       r"appl(?:ied|y)|no\s+clipping\s+(?:happens|(?:is|gets)\s+(?:done|applied))",
       _LOOP, 0, negatable=False, clip_ineffective=True),
    # clipping that cuts the gradient at every step (the pre-clip norm always above max_norm): the threshold is below
    # the run's ordinary gradient norm, so every update is rescaled to max_norm ("every step gets clipped", "the grad
    # norm is above max_grad_norm at every step", "clipping kicks in on 100% of the steps")
    _k(r"(?<!not\s)(?:every|each)\s+(?:single\s+)?(?:step|update|iteration|batch)\s+(?:is\s+|was\s+|gets\s+|got\s+|being\s+)?"
       r"clipped|(?<!not\s)(?:all|100\s*%\s+of)\s+(?:the\s+|my\s+)?(?:steps|updates|iterations)\s+(?:are\s+|get\s+|got\s+|were\s+)?"
       r"clipped|clipping\s+(?:is\s+|was\s+|being\s+)?(?:always\s+active|active\s+(?:at|on|in)\s+(?:every|each|all)|"
       r"kicks?\s+in\s+(?:on|at|in)\s+(?:every|each|all|100\s*%)|hits?\s+(?:every|each|all))|" +
       # (a bare "threshold" is the clip limit only with the gradient norm or clipping named before it; a negation
       # before the cue denies it: "not every step gets clipped", "the norm is never above max_norm")
       _above_every_step(_CLIP_LIMIT) + "|" + _CLIP_SUBJECT + "(?:" + _above_every_step(r"threshold\b") + ")",
       _LOOP, 0, grad_clipping=True, grad_clip_active="every_step"),
    # --- the training loop as users describe its bugs (observations of the loop causes) ---------------------
    # Each cue carries its own negation ("forgot", "never"), so a leading "no" does not cancel it.
    _k(r"(?:forg[eo]t\w*|never|didn'?t|did\s+not|without|missing|no)\s+(?:to\s+)?(?:call\w*\s+)?(?:the\s+)?"
       r"(?:optimi[sz]er\.|opt\.|model\.)?zero_?grad(?:\(\))?|"
       r"grad(?:ient)?s?\s+(?:are\s+|were\s+|get\s+)?never\s+(?:cleared|zeroed|reset)|"
       r"(?:not|never)\s+(?:clearing|zeroing|resetting)\s+(?:the\s+)?grad(?:ient)?s?",
       _LOOP, negatable=False, zero_grad_call="missing"),
    _k(r"zero_?grad(?:\(\))?\s+(?:only\s+)?once\s+(?:per|an?|each|every)\s+epoch|"
       # (said with the verb: "I zero the gradients once per epoch", "clear the grads only at the start of each epoch")
       r"(?:zero\w*|clear\w*|reset\w*)\s+(?:out\s+)?(?:the\s+|my\s+)?grad(?:ient)?s?\s+(?:only\s+)?(?:once\s+(?:per|an?|each|"
       r"every)\s+epoch|(?:at\s+the\s+(?:start|beginning)\s+of\s+)(?:each|every)\s+epoch)",
       _LOOP, negatable=False, zero_grad_call="once_per_epoch"),
    # gradients cleared at every micro-batch under accumulation: nothing accumulates ("I zero the grads every
    # micro batch", "zero_grad() inside the accumulation loop")
    _k(r"(?:zero\w*|clear\w*|reset\w*)\s+(?:out\s+)?(?:the\s+|my\s+)?grad(?:ient)?s?\s+(?:on\s+|at\s+|in\s+|after\s+)?"
       r"(?:every|each)\s+micro[\s-]?(?:batch|step)|zero_?grad(?:\(\))?\s+(?:on\s+|at\s+|in\s+|after\s+)?(?:every|each)\s+"
       r"micro[\s-]?(?:batch|step)|zero_?grad(?:\(\))?\s+inside\s+(?:the\s+)?(?:accumulation|micro[\s-]?batch)\s+loop",
       _LOOP, negatable=False, zero_grad_call="every_micro_batch"),
    # accumulation without dividing the loss: the gradients are summed ("I don't divide the loss by 4", "the loss
    # is never scaled by the accumulation steps")
    _k(r"(?:don'?t|do\s+not|didn'?t|did\s+not|never|forg[eo]t\s+to|without)\s+(?:divid\w*|scal\w*|normali[sz]\w*|"
       r"averag\w*)\s+(?:the\s+|my\s+)?loss(?:es)?\s+by\s+(?:the\s+)?(?:number\s+of\s+)?(?:grad\w*\s+)?(?:accum\w*|"
       r"\d+\b|micro[\s-]?(?:batches|steps))|loss(?:es)?\s+(?:is\s+|are\s+|was\s+)?(?:not|never)\s+(?:divided|scaled|"
       r"normali[sz]ed|averaged)\s+by\s+(?:the\s+)?(?:number\s+of\s+)?(?:grad\w*\s+)?(?:accum\w*|\d+\b|micro[\s-]?"
       r"(?:batches|steps))",
       _LOOP, negatable=False, loss_scaled_for_accum=False),
    _k(r"(?:never|forg[eo]t\s+to|didn'?t|did\s+not)\s+(?:call\s+|switch\s+back\s+to\s+|put\s+(?:it\s+)?back\s+(?:in(?:to)?\s+)?)?"
       r"model\.train\(\)|(?:left|stays?|stuck)\s+(?:the\s+model\s+)?in\s+eval\s+mode",
       _LOOP, negatable=False, mode_switching="never_calls_train"),
    _k(r"(?:without|forg[eo]t\s+to\s+call|never\s+call(?:ed)?|didn'?t\s+call|did\s+not\s+call)\s+model\.eval\(\)|"
       r"validat\w*\s+(?:\w+\s+)?in\s+train(?:ing)?\s+mode",
       _LOOP, negatable=False, mode_switching="validates_in_train_mode"),
    # accumulation said not to match the larger batch, with the sequences' token counts in view ("accumulation 2
    # with batch 1 does not give the same gradient as batch 2 when my samples have 11 and 101 tokens")
    # (the token counts named, not padding alone: padded images are no token mean; a batch-norm layer's batch
    # dependence is another reason accumulation differs, and no token count's)
    _k(r"accumulat\w*(?![^.!?\n]{0,320}\b(?:batch[\s_-]?norm\w*|bn)\b)[^.!?\n]{0,160}?(?:not\s+(?:give\s+|"
       r"produce\s+|yield\s+)?(?:the\s+)?same|not\s+equivalent|"
       r"isn'?t\s+equivalent|doesn'?t\s+match|does\s+not\s+match|differs?\s+from|(?:is|are|was|gives?)\s+"
       r"different\s+(?:from|than))[^.!?\n]{0,160}?(?:\btokens?\b|"
       r"sequence\s+lengths?|(?:different|varying|variable)\s+(?:sequence\s+|token\s+)?lengths)",
       _LOOP, negatable=False, accum_token_mean=True, grad_accumulation=True),
    # eval() said to be called, as a concession ("even though I call .eval() on my model", "despite setting
    # model.eval()"): the evaluation runs with the modules' mode switched
    _k(r"(?:even\s+though|although|despite|in\s+spite\s+of)\s+(?:i\s+|we\s+)?(?:(?:do|did|have|had)\s+)?"
       r"(?:call(?:ed|ing|s)?|us(?:e|ed|ing)|sett?(?:ing)?|putt?(?:ing)?|switch(?:ed|ing)?)\s+(?:\S+\s+){0,3}?"
       r"(?:\w*\.)?eval\(\)",
       _LOOP, negatable=False, mode_switching="train_and_eval"),
    # --- issue 7: the causes users hit, as they describe them (loop, data, measurement, precision) --------
    # optimizer steps
    _k(r"(?:grad(?:ient)?s?\s+(?:are\s+|get\s+|were\s+)?(?:set\s+to\s+zero|zeroed|cleared|reset)|zero_?grad(?:\(\))?\s+"
       r"(?:is\s+)?(?:called\s+)?)(?:\s*on\s+the\s+line)?\s+(?:right\s+|just\s+|directly\s+)?before\s+(?:the\s+)?"
       r"(?:optimi[sz]er(?:\.|\s+)?step(?:s|ped|ping)?|opt\.step|\.?step\(\))|zero_?grad(?:\(\))?\s+(?:is\s+)?(?:called\s+)?(?:right\s+|"
       r"just\s+)?(?:after|following)\s+(?:the\s+|loss\.)?backward",
       _LOOP, negatable=False, zero_grad_call="between_backward_and_step"),
    _k(r"(?:forg[eo]t\w*|never|didn'?t|did\s+not|without)\s+(?:to\s+)?(?:call\w*\s+|running\s+)?(?:the\s+)?"
       r"(?:optimi[sz]er\.step(?:\(\))?|opt\.step(?:\(\))?|optimi[sz]er\s+step)|(?:optimi[sz]er|opt)\.step\(\)\s+(?:is\s+|was\s+)?"
       r"(?:never|not)\s+(?:called|reached|executed|run)",
       _LOOP, negatable=False, optimizer_step_call="missing"),
    _k(r"(?:optimi[sz]er\.step(?:\(\))?|optimi[sz]er\s+step|opt\.step(?:\(\))?)\s+(?:is\s+|gets\s+)?(?:called\s+|run\s+|taken\s+)?"
       r"twice|(?:call\w*|step\w*)\s+(?:the\s+)?optimi[sz]er\s+twice|both\s+scaler\.step(?:\(\w*\))?\s+and\s+"
       r"optimi[sz]er\.step|scaler\.step\(\w*\)\s+(?:and\s+|followed\s+by\s+)?(?:then\s+)?(?:also\s+)?optimi[sz]er\.step",
       _LOOP, negatable=False, optimizer_step_call="twice"),
    _k(r"optimi[sz]er\.step\(\)\s+(?:directly\s+)?(?:instead\s+of|without)\s+scaler\.step|(?:without|not\s+using|never\s+"
       r"call\w*)\s+scaler\.step",
       _LOOP, negatable=False, optimizer_step_call="outside_scaler"),
    # the parameters the optimizer holds
    _k(r"param(?:eter)?s?\b(?P<gap1>[^.!?\n]{0,60}?)(?:are|were|is|was|get|got)\s+(?:never|not)\s+(?:appended|added|passed|"
       r"included|given|registered)\s+(?:to|in(?:to)?)\s+(?:the\s+)?(?:list\s+(?:given|passed)\s+to\s+the\s+|param(?:eter)?\s+"
       r"groups?\s+of\s+the\s+)?optimi[sz]er|optimi[sz]er\s+(?:does\s+not|doesn'?t|did\s+not|didn'?t)\s+(?:include|contain|"
       r"see|hold|update)\s+(?:the\s+)?(?:new|added|unfrozen|extra)\s+(?:layers?|param(?:eter)?s|weights|head)|"
       r"unfr[eo]z\w*\s+(?:the\s+)?(?:\w+\s+)?(?:layers?|backbone|encoder|param(?:eter)?s|weights)\s+after\s+"
       r"(?:creating|building|constructing|defining|initiali[sz]ing)\s+the\s+optimi[sz]er",
       _LOOP, negatable=False, optimizer_params="missing"),
    _k(r"(?:replac\w*|swapp?\w*|re-?creat\w*|re-?initiali[sz]\w*|redefin\w*|re-?instantiat\w*|wrapp?\w*)\s+(?:the\s+)?"
       r"(?:\w+\s+)?(?:head|classifier|last\s+layer|final\s+layer|fc\s+layer|output\s+layer|model)(?:\s+in\s+(?:fsdp|ddp|"
       r"deepspeed))?\s+after\s+(?:creating|building|constructing|defining|initiali[sz]ing)\s+the\s+optimi[sz]er|"
       r"(?:created|built|defined|constructed)\s+the\s+optimi[sz]er\s+before\s+(?:replacing|changing|swapping|wrapping|"
       r"re-?creating|re-?initiali[sz]ing)",
       _LOOP, negatable=False, optimizer_params="stale"),
    # ... and said by the sharding wrapper the optimizer was built before: "created the optimizer before FSDP", "the
    # optimizer is defined before the model is wrapped in FSDP", "wrapped the model in FSDP after creating the
    # optimizer". FSDP (flat parameters, use_orig_params=False) replaces the tensors it shards; accelerate's prepare()
    # does so only under FSDP and takes the optimizer with the model otherwise ("optimizer defined before
    # accelerator.prepare" is the usual order there, and DeepSpeed's initialize takes a client optimizer built before
    # it), so the order counts only with FSDP said beside it.
    _k(r"(?:\boptimi[sz]er\s+(?:is\s+|was\s+|gets?\s+|got\s+)?" + _OPT_GAP + r"{0,2}?(?:created|built|made|constructed|"
       r"defined|initiali[sz]ed|instantiated|set\s+up)\s+" + _OPT_GAP + r"{0,2}?before\s+(?:i\s+|we\s+)?(?:(?:wrapping|"
       r"sharding|wrap|shard)\s+(?:the\s+|my\s+)?(?:model\s+)?(?:(?:in|with|into|using)\s+)?fsdp|fsdp|"
       r"the\s+(?:model|network)\s+(?:is|was|gets?|got)\s+(?:wrapped|sharded)|(?:the\s+)?fsdp\s+"
       r"(?:wrap\w*|initiali[sz]\w*|sharding))|"
       r"(?<!\bnot\s)(?<!\bnever\s)(?<!n't\s)(?<!\bto\s)\b(?:creat(?:e|es|ed|ing)|buil(?:d|ds|t|ding)|"
       r"defin(?:e|es|ed|ing)|initiali[sz](?:e|es|ed|ing)|made|constructed|instantiated|set\s+up)\s+(?:the\s+|my\s+)?"
       r"optimi[sz]er\s+" + _OPT_GAP + r"{0,2}?before\s+(?:fsdp|(?:wrapping|sharding)\s+(?:the\s+|my\s+)?"
       r"(?:model\s+)?(?:(?:in|with|into|using)\s+)?fsdp)|"
       r"\b(?:wrap\w*|shard\w*)\s+(?:the\s+|my\s+)?model\s+(?:(?:in|with|into|using)\s+)?fsdp\s+after\s+"
       r"(?:creating|building|constructing|defining|making|initiali[sz]ing)\s+(?:the\s+|my\s+)?optimi[sz]er|"
       r"fsdp[^.!?\n]{0,80}?\boptimi[sz]er\s+(?:is\s+|was\s+)?" + _OPT_GAP + r"{0,2}?(?:created|built|made|"
       r"constructed|defined|initiali[sz]ed|instantiated)\s+" + _OPT_GAP + r"{0,2}?before\s+(?:calling\s+)?"
       r"(?:accelerator\.)?prepare|"
       r"\boptimi[sz]er\s+(?:is\s+|was\s+)?" + _OPT_GAP + r"{0,2}?(?:created|built|made|constructed|defined|"
       r"initiali[sz]ed|instantiated)\s+" + _OPT_GAP + r"{0,2}?before\s+(?:calling\s+)?(?:accelerator\.)?prepare"
       r"[^.!?\n]{0,80}?fsdp)"
       # asked, not told ("is it a problem if the optimizer is created before FSDP?")
       r"(?![^.!?\n]*\?)",
       _LOOP, negatable=False, optimizer_params="stale", multi_gpu=True),
    _k(r"fr[eo]z\w*\s+(?:the\s+)?(?:\w+\s+)?(?:layers?|backbone|encoder|weights)\s+after\s+(?:creating|building|"
       r"constructing|defining)\s+the\s+optimi[sz]er|(?:frozen|freezed)\s+(?:layers?\s+)?(?:layers?|weights|param(?:eter)?s|"
       r"backbone)\s+(?:still\s+|keep\s+)?(?:change|changing|get\s+updated|are\s+updated|move|moving|keep\s+changing)|"
       r"chang\w*\s+in\s+(?:the\s+)?(?:frozen|freezed)\s+(?:layers?\s+)?(?:layers?|weights|param(?:eter)?s)",
       _LOOP, negatable=False, optimizer_params="frozen_held"),
    # ... said by when the optimizer was built (before the freezing), or by frozen weights that still move, drift or
    # differ afterwards ("froze the encoder at epoch 5 but its weights keep changing", "requires_grad = False but the
    # weights are not the same after training"); "unfreezing" is the other way round ('missing', above)
    _k(r"(?:\bfr(?:e?e|o)z\w*|requires_grad\s*(?:=|to|is)?\s*false)[^.!?\n]{0,40}?\bafter\s+(?:creating|building|constructing|"
       r"defining|making)\s+the\s+optimi[sz]er|\boptimi[sz]er\s+(?:was\s+|is\s+|were\s+|got\s+)?(?:\w+\s+){0,2}?"
       r"(?:created|built|made|constructed|defined|initiali[sz]ed|instantiated)\s+(?:once\s+)?(?:\w+\s+){0,2}?before\s+"
       r"(?:i\s+|we\s+)?(?:fr(?:e?e|o)z\w*|setting\s+requires_grad)|"
       r"(?:\bfr(?:e?e|o)z\w*|requires_grad\s*(?:=|to|is)?\s*false)[^.!?\n]{0,80}?\b(?:its|their|these|those|the\s+frozen|"
       r"frozen|the\s+same)\s+(?:\w+\s+)?(?:weights?|param(?:eter)?s|layers?|embeddings?)\s+(?:still\s+|keep\s+|keeps\s+|"
       r"continue\s+to\s+|(?:are|is)\s+not\s+the\s+same|(?:\w+\s+)?drift\w*|differ\b)(?:\w+\s+)?(?:chang\w*|mov\w*|"
       r"drift\w*|updat\w*)?|"
       r"requires_grad\s*(?:=|to|is)?\s*false[^.!?\n]{0,30}?\bbut\s+(?:the\s+)?(?:weights?|param(?:eter)?s)\s+(?:are|is)\s+"
       r"not\s+the\s+same|"
       r"\b(?:layers?|weights|param(?:eter)?s)\s+(?:that\s+)?(?:i|we)\s+fr(?:e?e|o)z\w*\s+(?:still\s+|keep\s+)(?:\w+\s+)?"
       r"(?:chang\w*|mov\w*|drift\w*|updat\w*)",
       _LOOP, negatable=False, optimizer_params="frozen_held"),
    # a count of trainable parameters that is zero (PEFT's print_trainable_parameters, a parameter summary): every
    # parameter is frozen, whatever the adapter or wrapper that was meant to train
    _k(r"trainable\s+param(?:eter)?s?\s*(?:count\s*)?(?:[:=]|is|are|of)?\s*0(?![\d.,])|(?:\b0|\bzero|\bno)\s+trainable\s+"
       r"param(?:eter)?s?\b",
       _LOOP, negatable=False, frozen_fraction=1.0),
    # graphs kept between steps
    _k(r"(?:total|running|epoch|train|cumulative|sum)_?loss\s*\+=\s*loss(?!\s*\.\s*item)(?:\b|$)|(?:summ|accumulat|add)\w*\s+"
       r"(?:up\s+)?(?:the\s+)?loss(?:es)?\s+(?:tensors?\s+)?without\s+(?:calling\s+)?\.?item",
       _LOOP, negatable=False, kept_graphs="running_loss_tensor"),
    _k(r"(?:append|stor|sav|collect|keep)\w*\s+(?:the\s+|all\s+(?:the\s+)?)?(?:outputs?|predictions|logits|losses|"
       r"activations)(?P<gap1>[^.!?\n]{0,40}?)without\s+(?:calling\s+)?\.?detach",
       _LOOP, negatable=False, kept_graphs="stored_outputs"),
    _k(r"(?:validation|evaluation|eval|val|test)\s+(?:loop\s+|step\s+|pass\s+)?(?:runs?\s+|is\s+|was\s+)?(?:done\s+)?"
       r"without\s+(?:torch\.)?no_grad|(?:forg[eo]t|never\s+used|didn'?t\s+use|no)\s+(?:to\s+(?:use|wrap\s+\w+\s+in)\s+)?"
       r"(?:with\s+)?torch\.no_grad\(\)",
       _LOOP, negatable=False, kept_graphs="eval_with_grad"),
    # the run's own stable LR: lowering the LR removes the instability, or raising it brought it on
    _k(r"(?:lower(?:ing|ed)?|reduc(?:e|ed|ing)|decreas(?:e|ed|ing)|drop(?:ped|ping)?|cut(?:ting)?)\s+(?:the\s+|my\s+)?"
       r"(?:base[\s_.-]?)?(?:lr|learning[\s-]rate)\s+" + _NO_NEG_GAP + r"{0,4}?"
       r"(?:fix(?:es|ed)?|solv(?:es|ed)|avoid(?:s|ed)?|"
       r"stabili[sz](?:es|ed)|prevent(?:s|ed)?|got\s+rid\s+of|gets\s+rid\s+of|made\s+it\s+stable|makes\s+it\s+stable)|"
       r"(?:with|at|using)\s+(?:a\s+)?(?:lower|smaller|reduced)\s+(?:lr|learning[\s-]rate)\s+" + _NO_NEG_GAP + r"{0,3}?"
       r"(?:it\s+)?(?:works?|worked|trains?\s+fine|trained\s+fine|is\s+stable|was\s+stable|no\s+(?:more\s+)?nans?)|"
       r"(?:after|since|when|once)\s+(?:i\s+|we\s+)?(?:raised|increased|raising|increasing|doubled|bumped(?:\s+up)?)\s+"
       r"(?:the\s+|my\s+)?(?:base[\s_.-]?)?(?:lr|learning[\s-]rate)|"
       r"(?:base[\s_.-]?)?(?:lr|learning[\s-]rate)\s*(?:=|:|of|was|at)?\s*(?:" + NUM + r")\s+(?:it\s+)?"
       r"(?:trained|trains|worked|works|ran|was)\s+(?:just\s+)?(?:fine|ok|okay|well|stable|stably)",
       _UN, 0, negatable=False, lower_lr_stable=True),
    # an activation in front of a loss that applies its own (double softmax, double sigmoid); a cue that names
    # the loss sets it too, since a longer cue hides the loss-name cue inside it
    _k(r"(?:nn\.|f\.)?softmax\s*(?:\(\)\s*)?(?:layer\s+|activation\s+)?(?:before|into|followed\s+by|and\s+then)\s+"
       r"(?:the\s+|a\s+|an\s+)?(?:nn\.)?(?:cross[\s_-]?entropy(?:[\s_-]?loss)?|ce\s+loss)",
       _NL, 0, output_activation="softmax", loss_fn="cross_entropy"),
    _k(r"(?:nn\.|f\.)?softmax\s*(?:\(\)\s*)?(?:layer\s+|activation\s+)?(?:before|into|followed\s+by|and\s+then)\s+"
       r"(?:the\s+|a\s+|an\s+)?(?:nn\.)?nll(?:[\s_-]?loss)?",
       _NL, 0, output_activation="softmax", loss_fn="nll"),
    _k(r"(?:ends?|ended|ending|finish(?:es|ed)?)\s+(?:with|in)\s+(?:a\s+|an\s+)?(?:nn\.)?softmax(?:\s+layer)?|"
       r"(?:applied|apply|applying)\s+(?:a\s+)?softmax\s+(?:to|on)\s+(?:the\s+)?(?:outputs?|logits)\s+before\s+"
       r"(?:the\s+)?loss",
       _NL, 0, output_activation="softmax"),
    _k(r"(?:nn\.|torch\.)?sigmoid\s*(?:\(\)\s*)?(?:layer\s+|activation\s+)?(?:before|into|followed\s+by|and\s+then)\s+"
       r"(?:the\s+|a\s+|an\s+)?(?:nn\.)?bce[\s_-]?with[\s_-]?logits(?:[\s_-]?loss)?",
       _NL, 0, output_activation="sigmoid", loss_fn="bce_with_logits"),
    _k(r"(?:ends?|ended|ending|finish(?:es|ed)?)\s+(?:with|in)\s+(?:a\s+|an\s+)?(?:nn\.)?sigmoid(?:\s+layer)?",
       _NL, 0, output_activation="sigmoid"),
    # labels and targets
    _k(r"labels?\s+(?:start|begin)s?\s+(?:at|from)\s+1\b|1-?based\s+(?:labels?|class(?:es)?|class\s+(?:ids|indices)|"
       r"indices|targets?)|(?:labels?|classes|class\s+ids)\s+(?:go\s+|run\s+|are\s+)?(?:numbered\s+|indexed\s+)?from\s+1\s+"
       r"(?:to|through)\s+\d+|target\s+-?\d+\s+is\s+out\s+of\s+bounds|t\s*>=\s*0\s*&&\s*t\s*<\s*n_classes|"
       r"device[\s-]side\s+assert\w*(?P<gap1>[^.!?\n]{0,80}?)(?:cross[\s_-]?entropy\w*|nll\w*)|"
       r"(?:cross[\s_-]?entropy\w*|nll\w*)(?P<gap2>[^.!?\n]{0,80}?)device[\s-]side\s+assert|"
       # binary masks saved as 0/255 images: 255 is the usual ignore_index, so the foreground is never trained
       r"(?:masks?|labels?|annotations?|ground[\s-]truth)\b(?P<gap3>[^.!?\n]{0,40}?)\b0\s+(?:for\s+(?:the\s+)?\w+\s+)?"
       r"and\s+255\b|255\s+(?:for|as)\s+(?:the\s+)?(?:foreground|target|object|positive)\s*(?:class|pixels?)?",
       _NL, 0, negatable=False, label_check="not_zero_based"),
    # class ids counted from one, said by their values ("labels are in [1, num_classes]", "targets are 1,2,3 not 0,1,2")
    _k(r"(?:labels?|targets?|classes|class\s+ids)\s+(?:are\s+)?(?:in|within)\s+(?:the\s+range\s+)?\[\s*1\s*,|"
       r"(?:labels?|targets?|classes)\s+(?:are\s+)?1\s*,\s*2\s*,\s*3\b[^.!?\n]{0,20}?\bnot\s+0\s*,\s*1\b",
       _NL, 0, negatable=False, label_check="not_zero_based"),
    _k(r"(?:labels?|targets?)\s+(?:are\s+|were\s+|got\s+)?(?:shuffled|sorted|permuted)\s+(?:separately|independently)|"
       # the pairing named as one ("image/label mismatch", "input-target misalignment")
       r"(?:images?|inputs?|samples?|data|features?|x)\s*[/-]\s*(?:labels?|targets?|masks?|annotations?|y)\s+"
       r"(?:mismatch\w*|misalign\w*)|(?:labels?|targets?|masks?|y)\s*[/-]\s*(?:images?|inputs?|samples?|x)\s+"
       r"(?:mismatch\w*|misalign\w*)|"
       # one side reordered and not the other ("I sorted the labels but not the inputs", "sorted the file list but
       # not the label list")
       r"(?:shuffl|sort|permut|reorder)\w*\s+(?:only\s+)?(?:the\s+|my\s+)?(?:labels?|targets?|y|inputs?|images?|"
       r"features|samples|x|files?|file\s+(?:list|names|paths)|image\s+(?:list|paths))(?:\s+list)?\s+(?:but\s+)?not\s+"
       r"(?:the\s+|my\s+)?(?:labels?|targets?|y|inputs?|images?|features|samples|x|files?)\b|"
       r"shuffl\w+\s+(?:only\s+)?(?:the\s+)?(?:inputs?|images?|features|samples|x)\s+(?:but\s+)?not\s+(?:the\s+)?"
       r"(?:labels?|targets?|y)|(?:labels?|targets?)\s+(?:are\s+|were\s+)?(?:mismatched|misaligned|out\s+of\s+sync|"
       r"off\s+by\s+one)\s+(?:with|from)\s+(?:the\s+)?(?:inputs?|images?|data|samples|features)|"
       # (a pairing displaced by a row: "labels are off by one row from the images", "labels shifted by one relative
       # to the files"; not a language model's labels shifted against its tokens, which is their right place)
       r"(?:labels?|targets?)\s+(?:are\s+|were\s+|got\s+)?(?:off|shifted|offset)\s+by\s+(?:one|1)\s+(?:rows?\s+|"
       r"places?\s+|positions?\s+)?(?:from|relative\s+to|against|compared\s+to|vs\.?)\s+(?:the\s+|my\s+)?"
       r"(?:images?|files?|file\s+list|rows|samples|pictures|photos|features)\b|"
       # (both sides named first: "the images and labels got out of sync")
       r"(?:images?|photos?|pictures?|inputs?|samples?|files?|features|x)\s+and\s+(?:the\s+|their\s+)?(?:labels?|targets?|y)\s+"
       r"(?:got\s+|are\s+|were\s+|went\s+|get\s+|fell\s+|are\s+now\s+)?(?:out\s+of\s+sync|misaligned|mismatched)|"
       # (said with the negation on the alignment: "the label masks don't line up with the padded inputs")
       r"(?:label[\s_-]?masks?|loss[\s_-]?masks?|labels?|targets?)\s+(?:don'?t|do\s+not|doesn'?t|does\s+not|no\s+longer|"
       r"(?:are|is)\s+not|aren'?t|isn'?t)\s+(?:line\s+up|lined\s+up|align(?:ed)?|match(?:ed)?)\s+(?:with\s+)?(?:the\s+)?"
       r"(?:padded\s+)?(?:inputs?|input_ids|tokens|images?|samples|features)",
       _NL, 0, negatable=False, label_check="misaligned"),
    # the classes said to be balanced ("the classes are balanced", "a balanced dataset", "10,000 samples, balanced"):
    # no imbalance (a balanced *sampler*, *loss* or class weight is a remedy, and "balanced accuracy" a metric:
    # neither is matched)
    _k(r"\b(?:classes|labels|data(?:set)?|class\s+distribution|class\s+counts|splits?|samples|examples|images)\s+"
       r"(?:are|is|were|was|seem|look)\s+(?:(?:all\s+)?(?:perfectly|roughly|fairly|pretty|well|evenly|quite|nicely|"
       r"completely|almost|approximately|about|equally)\s+)?balanced\b|"
       r"\b(?<!class[\s-])(?<!class_)balanced\s+(?:binary\s+|two[\s-]class\s+|multi[\s-]?class\s+)?"
       r"(?:data(?:set)?|classes|labels|class\s+distribution|splits?|training\s+(?:data|set))\b|"
       r"\b(?:samples|examples|images|rows|data(?:set)?)\s*,\s*(?:(?:perfectly|roughly|evenly)\s+)?balanced\b"
       r"(?!\s+(?:sampl|loss|weight|batch|accuracy))",
       _QR, 0, class_imbalance=False),
    _k(r"(?:class|label)[\s-]imbalance\w*|(?:imbalanced|unbalanced|skewed)\s+(?:data(?:set)?|classes|labels|class\s+"
       r"distribution)|(?:rare|minority|under-?represented)\s+class(?:es)?|(?:predicts?|outputs?)\s+(?:only\s+|always\s+)?"
       r"the\s+majority\s+class|some\s+(?:classes|objects|categories)\s+(?:are\s+)?under-?represented",
       _QR, 0, class_imbalance=True),
    # the classes said NOT to be balanced ("the classes are not balanced", "my data isn't balanced at all", "not a
    # balanced dataset", "non-balanced labels"): an imbalance, the negation being the statement's own; not a balance
    # only short of perfect ("not perfectly balanced", "not exactly 50/50 but close"), which is near balance
    _k(r"\b(?:classes|labels|data(?:set)?|class\s+distribution|class\s+counts|targets)\s+(?:are|is|were|was)(?:n'?t|"
       r"\s+not)\s+(?:(?:very|really|well|at\s+all)\s+)?balanced\b|"
       r"\b(?:not|non)[\s-](?:a\s+)?balanced\s+(?:data(?:set)?|classes|labels|class\s+distribution)\b",
       _QR, 0, negatable=False, class_imbalance=True),
    # (the prefix typed as "in-" or a letter dropped, the usual slips the spelling corrector leaves: "inbalanced
    # dataset", "unbalaced classes"; a negation still cancels them: "the data is not inbalanced")
    _k(r"\b(?:in|um)balanc\w*|\bun?balac\w*", _QR, 0, class_imbalance=True),
    # an imbalance denied ("the dataset is not imbalanced", "the labels aren't skewed"): the classes are balanced
    _k(r"\b(?:classes|labels|data(?:set)?|class\s+distribution|targets)\s+(?:are|is|were|was)(?:n'?t|\s+not)\s+"
       r"(?:(?:very|really|that|too)\s+)?(?:imbalanced|unbalanced|skewed)\b",
       _QR, 0, negatable=False, class_imbalance=False),
    # a top-k accuracy said with its figure ("top-1 58%", "top1 acc = 0.71", "top-5 accuracy of 90%"): an accuracy
    _k(r"\btop-?[15](?:\s+acc(?:uracy)?)?\s*(?:[=:]|is|of|at|was|stuck\s+at|around)?\s*(?:\d+(?:\.\d+)?\s*%|0?\.\d+\b)",
       _QR, 0, negatable=False, metric_kind="accuracy"),
    # one class id given to every input, said with the id ("predicts 1 for all samples", "outputs class 0 for every
    # image", "argmax gives 2 for each input"): the predictions are constant. The quantifier must range over the
    # inputs (or end the clause): "outputs 1 for every epoch" counts no inputs, and a loss said of it is no answer
    _k(r"\b(?:predicts?|predicted|predicting|outputs?|outputting|returns?|returning|gives?|giving|classif(?:y|ies)|"
       r"labels?|says?)\s+(?:(?:only|just|always)\s+)?(?:(?:the\s+)?(?:class|label|category)\s+)?"
       # (the class by its id, by a quoted name, or as one side of a binary task: "predicts 'cat'", "says positive")
       r"(?:['\"]?\d{1,3}['\"]?(?![.\d%])|['\"][\w -]{1,20}['\"]|positive|negative|true|false|yes|no)"
       r"\s+(?:for|on|to|with)\s+(?:(?:all|every|each|any)(?:\s+(?:single|one|of))?(?:\s+(?:the|my|our))?"
       r"(?:\s+(?:test|val|validation|train|training|new|input|of))?\s*(?:samples?|inputs?|images?|examples?|"
       r"instances?|rows?|items?|data(?:\s*points?)?|ones?|cases?|sentences?|texts?|pictures?|records?|patients?|"
       r"things?)\b|(?:all|every|each|any)(?=\s*(?:$|[.,;:!?)\n])|\s+(?:and|but|so|even|no\s+matter|regardless)\b)|"
       r"everything|anything)",
       _QR, 0, predictions_constant=True, symptom="not_learning"),
    # ... or said as the predictions' one value ("all predictions are 1", "argmax is always 3", "the preds are all
    # class 0", "torch.argmax(logits, dim=1) is always 2"): every prediction is that one class
    _k(r"\b(?:all|every)\s+(?:(?:the|my|of\s+the|of\s+my)\s+)?(?:predictions?|preds|predicted\s+(?:labels?|classes?)|"
       r"argmax(?:es)?)\s+(?:are|is|were|was|come\s+out(?:\s+as)?|equals?)\s+(?:(?:class|label)\s+)?['\"]?\d{1,3}\b"
       r"(?![.\d%])|"
       r"\b(?:argmax(?:\([^)]{0,40}\))?|predictions?|preds|predicted\s+(?:labels?|class(?:es)?))\s+(?:is|are|was|were|"
       r"stays?|remains?|gives?|returns?)\s+(?:always|all|constantly|only|just|every\s+time)\s+"
       r"(?:(?:class|label)\s+)?['\"]?\d{1,3}\b(?![.\d%])|"
       r"\bargmax(?:\([^)]{0,40}\))?\s+(?:gives|returns|is)\s+(?:(?:class|label)\s+)?\d{1,3}\s+(?:for|on)\s+"
       r"(?:all|every|each|any)\b|"
       # (the one answer said to persist: "it keeps predicting class 0", "just keeps outputting 1")
       r"\b(?:keeps?|kept|keeping)\s+(?:on\s+)?(?:predicting|outputting|returning|giving|guessing)\s+"
       r"(?:(?:the\s+)?(?:class|label)\s+)?['\"]?\d{1,3}\b(?![.\d%])",
       _QR, 0, predictions_constant=True, symptom="not_learning"),
    # the accuracy said to equal the largest class's share ("accuracy is exactly the proportion of negatives", "val
    # acc = the majority class ratio", "my accuracy matches the share of class 0"): the score of answering that class
    # for every input, which is what the model does
    # (a denial between them is the statement's: "accuracy is not the same as the share of positives")
    _k(r"\b(?:accuracy|acc)\b(?:(?!\b(?:not|never|above|below|over|under|better|worse|higher|lower)\b|n't)"
       r"[^.;!?\n]){0,40}?(?:\b(?:equals?|equal\s+to|same\s+as|is\s+(?:exactly|just|only)|exactly|matche?s?|matching|"
       r"identical\s+to)|=)\s+(?:to\s+)?(?:the\s+)?(?:majority[\s-]class(?:\s+(?:ratio|share|"
       r"proportion|fraction|frequency|baseline|rate))?|class\s+(?:ratio|prior|imbalance\s+ratio|frequency)|"
       r"(?:ratio|proportion|share|fraction|percentage|frequency|prevalence)\s+of\s+(?:the\s+)?(?:majority(?:\s+class)?|"
       r"negatives?|positives?|(?:class|label)\s+\w+|zeros|ones|(?:biggest|largest|dominant)\s+class))",
       _QR, 0, predictions_constant=True),
    # one side of a binary task never given ("it never flags a single fraud", "never predicts any positive", "not
    # one positive prediction"): every input gets the other class, a constant answer (the negation is the statement)
    _k(r"\b(?:never|not\s+once|doesn'?t\s+ever|does\s+not\s+ever)\s+(?:flags?|predicts?|detects?|catch(?:es)?|"
       r"outputs?|finds?|marks?|labels?)\s+(?:a\s+single|any|one)\s+(?:positive|fraud\w*|anomal\w*|defect\w*|spam|"
       r"1s?|ones)\b|\b(?:not\s+(?:a\s+single|one)|zero|no)\s+positive\s+predictions?\b",
       _QR, 0, negatable=False, predictions_constant=True),
    # a class counted as a small share, under 10% ("only 2% positives", "0.5% fraud cases", "the foreground class is
    # only 2% of the pixels", "defects make up 3% of the images"): the majority class dominates the labels
    _k(r"(?<![\d.])(?:\d|0?\.\d+|\d\.\d+)\s*%\s+(?:of\s+(?:the\s+|my\s+)?(?:data(?:set)?|samples|examples|labels|pixels|"
       r"images|rows|records)\s+(?:are\s+)?)?(?:positives?\b|positive\s+(?:class|samples|examples|labels)|fraud\w*|"
       r"anomal\w*|defect\w*|minority)|"
       r"(?:positives?|foreground|minority|rare|fraud\w*|anomal\w*|defects?)\s+(?:class\s+|cases?\s+|samples?\s+|examples?\s+)?"
       r"(?:is|are|makes?\s+up|account\s+for)\s+(?:only\s+|just\s+|about\s+|around\s+|~\s*)?"
       r"(?:\d|0?\.\d+|\d\.\d+)\s*%(?!\d)",
       _QR, 0, class_imbalance=True),
    _k(r"(?:unnormali[sz]ed|un-?scaled|non-?normali[sz]ed|not\s+normali[sz]ed|raw)\s+(?:regression\s+)?(?:targets?|"
       r"labels?|y\s+values)|(?:forg[eo]t|didn'?t|did\s+not|never)\s+(?:to\s+)?(?:scale|normali[sz]e|standardi[sz]e)\s+"
       r"(?:the\s+|my\s+)?(?:regression\s+)?(?:targets?|labels?)|(?:targets?|labels?)\s+(?:range\s+|ranging\s+|go\s+|are\s+)?"
       r"(?:from|between)\s+-?\d+\s+(?:and|to)\s+(?:\d{4,}|\d{1,3}(?:,\d{3})+|\d+\s*k\b)|"
       # (values kept in their units of measure: "predicting house prices in dollars", "the target is energy in kWh
       # (0 to 20000)")
       r"(?:prices?|salar(?:y|ies)|targets?|labels?|costs?|revenues?|energy|sales)\s+(?:\w+\s+){0,2}?in\s+"
       r"(?:raw\s+)?(?:dollars|euros|usd|eur|cents|kwh|mwh|watts|raw\s+units)\b",
       _QR, 0, negatable=False, targets_unscaled=True),
    # a squashing output (sigmoid, tanh) asked for targets beyond its range ("sigmoid at the end, targets go up to
    # 300", "ages 0-90 with a sigmoid output neuron"): the output said as the network's last, a target with a value
    # of 2 or more in the same sentence
    _k(rf"{_SQUASH}{_GAP}{{0,80}}?{_TARGET}{_VALUE_GAP}{{0,40}}?{_BEYOND}|{_TARGET}{_VALUE_GAP}{{0,40}}?{_BEYOND}"
       rf"{_GAP}{{0,80}}?{_SQUASH}",
       _QR, 0, negatable=False, target_range="outside_activation"),
    _k(r"(?:strong|heavy|aggressive|extreme|lots\s+of|a\s+lot\s+of)\s+(?:data\s+)?augment\w*", _QR, 0,
       lends_scope=False, augmentation_strength="strong"),
    # the same said of the augmentation afterwards or as a comparative ("the augmentation is too aggressive", "I
    # made the augmentations stronger", "heavy aug"), of its transforms ("strong distortions"), or as two of the
    # strong policies stacked ("RandAugment + mixup + cutmix", "trivialaugment wide + mixup 1.0"): one policy
    # alone may be mild, and two weighed ("should I use mixup and cutmix?") are not yet the run's
    _k(r"(?:strong|heavy|aggressive|extreme)\s+aug\b|\baugment\w*\s+(?:is\s+|are\s+|was\s+|were\s+)?(?:too\s+|very\s+|"
       r"really\s+|way\s+too\s+|quite\s+)?(?:strong|heavy|aggressive|extreme)\b|(?:made|make|making)\s+(?:the\s+|my\s+)?"
       r"augment\w*\s+(?:much\s+|a\s+lot\s+|even\s+)?(?:stronger|heavier|more\s+aggressive)|(?:strong|heavy|aggressive|"
       r"extreme)\s+(?:image\s+)?(?:distortions?|transforms?|transformations?)\b|"
       r"(?<!\buse\s)(?<!\btry\s)(?<!\badd\s)(?<!\bcombine\s)"
       r"(?:randaug\w*|autoaug\w*|trivialaug\w*|mixup|cutmix|random\s+erasing)\b[^.;!?\n]{0,40}?(?:\+|\band\b|,|&|\bwith\b)"
       r"\s*(?:randaug\w*|autoaug\w*|trivialaug\w*|mixup|cutmix|random\s+erasing)\b", _QR, 0,
       lends_scope=False, augmentation_strength="strong"),
    # training on the raw data said outright ("no data augmentation", "without any augmentation", "I don't augment")
    # ("no augmentation helped": none of those tried, not a run without any; "with and without augmentation" is a
    # comparison)
    _k(r"(?<!with\sand\s)(?<!with\sor\s)\b(?:no|without(?:\s+any)?|zero)\s+(?:data\s+|image\s+)?augment\w*(?!\s+(?:\w+\s+)?(?:help\w*|work\w*|fix\w*|"
       r"made|makes|chang\w*|improv\w*|did|does|do)\b)|"
       r"\b(?:don't|do\s+not|didn't|did\s+not|never)\s+(?:use\s+(?:any\s+)?(?:data\s+)?augmentation|augment)\b",
       _QR, 0, negatable=False, scope=False, augmentation_strength="none"),
    # only flips and crops as the augmentation ("the only augmentation is random flips", "augmentation: just a
    # horizontal flip and a random crop"), with no stronger transform named in the rest of the clause
    _k(r"\bonly\s+augment\w*\s+(?:is|are|i\s+use)\s+(?:a\s+|the\s+)?(?:random\s+)?(?:horizontal\s+)?(?:flip|crop)\w*|"
       r"\baugment\w*\s*(?:is|are|:)?\s*(?:only|just)\s+(?:a\s+|the\s+)?(?:random\s+)?(?:horizontal\s+)?"
       r"(?:flip|crop)\w*(?:\s+(?:and|\+|&)\s+(?:a\s+)?(?:random\s+)?(?:horizontal\s+)?(?:flip|crop)\w*)?"
       r"(?![^.;!?\n]{0,60}?\b(?:colou?r|scale|mixup|cutmix|randaug\w*|autoaug\w*|rotation|jitter))",
       _QR, 0, negatable=False, augmentation_strength="light"),
    # measurement integrity
    # (an odd-looking loss is asked about, not read: it may be the run's behaviour; an odd *logged* value is the log's)
    _k(r"(?:metrics?|accuracy|loss|numbers?|values?|curves?|results?)\s+(?:\w+\s+){0,2}(?:looks?|seems?)\s+(?:wrong|off|"
       r"impossible|too\s+good\s+to\s+be\s+true|suspicious)|(?:values?|numbers?|metrics?)\s+(?:i|we)\s+(?:log|logged|"
       r"print|printed|report|reported)\s+(?:\w+\s+){0,2}(?:looks?|seems?)\s+(?:strange|weird|odd)|(?:can'?t|cannot|couldn'?t)\s+"
       r"(?:possibly\s+)?be\s+(?:right|correct|true)|(?:logged|reported|printed|displayed|shown)\s+(?:\w+\s+){0,4}"
       r"(?:doesn'?t|does\s+not|don'?t|do\s+not)\s+match|"
       # predictions read back from a run ("the predicted labels printed at the end look wrong")
       r"(?:predictions|predicted\s+(?:labels|classes|values))\b[^.!?\n]{0,60}?\b(?:looks?|seems?)\s+(?:wrong|off|"
       r"strange|weird)|"
       # whether a logged number is reduced over the processes ("is the val_acc I log averaged over the GPUs?")
       r"(?:logged|logs?|metrics?|accuracy|acc|numbers?|values?)\b[^.!?\n]{0,60}?\b(?:averaged|reduced|synced|"
       r"synchroni[sz]ed|aggregated|gathered)\s+(?:over|across)\s+(?:the\s+|all\s+)?(?:gpus|ranks|processes|devices)\b",
       _TR, P_TRACKING + 2, negatable=False, symptom="metrics_wrong"),
    # a metric the user's code or the trainer reports, said to be wrong ("the accuracy my compute_metrics reports is
    # off", "the reported F1 is incorrect"): the measurement's, not the model's (a model that is bad is "poor", "low")
    _k(r"(?:metrics?|accuracy|acc|f1|scores?|precision|recall|auc)\b[^.!?\n]{0,50}?\b(?:reports?|returns?|gives?|"
       r"computes?|logs?|prints?|shows?)\s+(?:is|are|was|were)\s+(?:\w+\s+)?(?:wrong|off|incorrect)\b|"
       r"(?:reported|logged|printed|displayed|computed)\s+(?:\w+\s+){0,2}(?:metrics?|accuracy|acc|f1|scores?)\s+"
       r"(?:is|are|was|were)\s+(?:\w+\s+)?(?:wrong|off|incorrect)\b",
       _TR, P_TRACKING + 2, negatable=False, symptom="metrics_wrong"),
    # an accuracy-like score outside [0, 1] ("accuracy prints 312%", "val acc is bigger than 1.0", "accuracy = 1.83",
    # "accuracy above 100 percent"): a fraction or a percentage cannot get there, so the computation is wrong (the
    # usual slip: correct counts summed over batches and divided by the number of batches); a decimal between 1 and
    # 10 with no unit is not read as a percentage, the way an accuracy of "1.83" never is, while "85" or "85.2" is
    _k(r"\b(?:acc(?:uracy)?|f1(?:[\s-]score)?|precision|recall)\b[^.!?\n]{0,40}?(?:"
       r"(?<![\d.])(?:[1-9]\d{3,}|[2-9]\d\d|1\d[1-9]|1[1-9]\d)(?:\.\d+)?\s*(?:%|percent)|"
       r"(?:above|over|greater\s+than|more\s+than|bigger\s+than|larger\s+than|higher\s+than|exceeds?|exceeding|"
       r"beyond)\s+(?:1(?:\.0+)?(?![\d.%])|one\b|100\s*(?:%|percent)|a\s+hundred\s+percent)|"
       r"(?:=|:|\bis|\bof|\bas|\blike)\s*[1-9]\.\d+(?!\s*(?:%|percent|pp\b|points?\b))(?![\d.]))",
       _TR, P_TRACKING + 2, negatable=False, symptom="metrics_wrong"),
    # the validation loss far above the training loss at once ("val loss is 100x larger already after the first
    # epoch", "from epoch 1 the validation loss is orders of magnitude higher"): a gap no memorising opens in one
    # epoch; the two losses are computed differently
    _k(rf"{_VAL_LOSS}[^.!?\n]{{0,40}}?{_FAR_ABOVE}[^.!?\n]{{0,60}}?{_AT_FIRST}|"
       rf"{_AT_FIRST}[^.!?\n]{{0,60}}?{_VAL_LOSS}[^.!?\n]{{0,40}}?{_FAR_ABOVE}|"
       # (the time said between: "val loss huge since the beginning, like 100x the train loss")
       rf"{_VAL_LOSS}[^.!?\n]{{0,30}}?{_AT_FIRST}[^.!?\n]{{0,30}}?{_FAR_ABOVE}",
       _TR, P_OVERFIT + 1, negatable=False, val_loss_far_above_from_start=True, symptom="metrics_wrong"),
    # (or said in words of size, with the training loss named beside it in the sentence: "train loss looks normal,
    # eval loss is enormous from the first epoch", "why is my val loss so much larger than my training loss from the
    # start", "the gap between train and val loss is enormous from the first eval"; never both said huge)
    _k(rf"(?![^.!?\n]*\bboth\b)(?:\btrain(?:ing)?\b[^.!?\n]{{0,60}}?(?:{_VAL_LOSS}|\bval(?:idation)?\b)[^.!?\n]{{0,30}}?"
       rf"{_HUGE}|{_VAL_LOSS}[^.!?\n]{{0,30}}?{_HUGE}[^.!?\n]{{0,30}}?\btrain(?:ing)?\b)[^.!?\n]{{0,40}}?{_AT_FIRST}",
       _TR, P_OVERFIT + 1, negatable=False, val_loss_far_above_from_start=True, symptom="metrics_wrong"),
    _k(r"(?:logged|reported|displayed|printed|shown)\s+(?:training\s+|train\s+)?loss\s+(?:\w+\s+){0,3}(?:depends\s+on|"
       r"changes\s+with|scales\s+with|shrinks\s+with|is\s+divided\s+by|divided\s+by)\s+(?:the\s+)?(?:grad(?:ient)?[\s_-]?"
       r"accum\w*|accumulate_grad_batches|accumulation\s+(?:steps|factor))|loss\s+(?:is\s+|gets\s+)?(?:divided|scaled)\s+"
       r"by\s+(?:the\s+)?(?:grad(?:ient)?\s+)?accum\w*(?:\s+steps)?\s+(?:in|for|when|before)\s+(?:the\s+)?log\w*",
       _TR, P_TRACKING + 2, logged_loss="scaled_by_accum", symptom="metrics_wrong"),
    _k(r"(?:smaller|larger|bigger|lower|higher|off)\s+(?:than\s+(?:the\s+)?(?:\w+\s+){0,3}?)?by\s+"
       r"(?:roughly\s+|about\s+|approximately\s+|exactly\s+)?(?:a\s+factor\s+of\s+)?(?:the\s+)?(?:batch[\s_-]?size|"
       r"number\s+of\s+(?:gpus|devices|processes|batches|accumulation\s+steps))",
       _TR, P_TRACKING + 2, logged_loss="wrong_denominator", symptom="metrics_wrong"),
    _k(r"(?:x[\s-]?axis|step\s+(?:count|counter|axis)|global[\s_]?step)\s+(?:\w+\s+){0,4}?(?:counts?|is|are|shows?)\s+"
       r"(?:the\s+)?micro[\s-]?batch\w*|(?:logged|logging|log)\s+(?:per|every|each)\s+micro[\s-]?batch|global[\s_]?step\s+"
       r"(?:is\s+|gets\s+)?(?:incremented|increased|multiplied)\s+(?:\w+\s+){0,3}(?:accum\w*|micro[\s-]?batch\w*)",
       _TR, P_TRACKING + 2, step_axis="per_micro_batch", symptom="metrics_wrong"),
    _k(r"(?:evaluat\w*|validat\w*|inference|predictions?|test\s+(?:accuracy|metrics?|results?))(?P<gap1>[^.!?\n]{0,60}?)"
       r"(?:different|differ\w*|chang\w*|vary|varies|inconsistent|non-?deterministic)(?P<gap2>[^.!?\n]{0,40}?)"
       r"(?:from\s+run\s+to\s+run|each\s+time|every\s+time|between\s+runs|across\s+runs|on\s+every\s+run)",
       _TR, P_TRACKING + 3, nondeterminism="evaluation", symptom="metrics_wrong"),
    # a ratio or ranking metric whose value moves with how the evaluation set is batched ("the val dice changes
    # with shuffle=True or False", "my F1 depends on the eval batch size"): per-batch values averaged, not counts
    # summed (not a loss of that name, whose batch dependence is the training objective's; not "mixed precision").
    # The batch size must be the evaluation's (eval/val/test batch size, the val loader's, one checkpoint scored
    # twice): a model trained with another batch size is another model, its metric rightly differs.
    _k(_METRIC_NAMES + r"(?P<gap1>[^.!?\n]{0,60}?)" + _METRIC_MOVES + r"(?P<gap2>[^.!?\n]{0,60}?)"
       r"(?:" + _EVAL_BATCH + r"|shuffl\w*|batch\s+order|order\s+of\s+(?:the\s+)?batches|drop_last|last\s+batch)",
       _TR, P_TRACKING + 3, metric_batch_averaged=True, symptom="metrics_wrong"),
    # (the evaluation named between: "my f1 changes when I evaluate the same checkpoint with a larger batch size")
    _k(_METRIC_NAMES + r"(?P<gap1>[^.!?\n]{0,60}?)" + _METRIC_MOVES + r"(?P<gap2>[^.!?\n]{0,40}?\b(?:evaluat\w*|"
       r"validat\w*|val|eval|test(?:ing)?|inference|score[sd]?|scoring|same\s+(?:checkpoint|model|weights))\b"
       r"(?![^.!?\n]{0,30}?\btrain)[^.!?\n]{0,30}?)batch[\s_-]?size",
       _TR, P_TRACKING + 3, metric_batch_averaged=True, symptom="metrics_wrong"),
    # (or the averaging said outright, whatever moves: "IoU per batch, then the mean over batches", "the average of
    # the batch AUCs", "per-batch F1 averaged over the loader", "the mean of the F1 of all batches")
    _k(_METRIC_NAMES + r"(?P<gap1>[^.!?\n]{0,40}?)\b(?:per|each|every|for\s+(?:each|every)|of\s+(?:each|every|all"
       r"(?:\s+the)?))\s+(?:\w+\s+)?batch(?:es)?\b(?P<gap2>[^.!?\n]{0,40}?)\b(?:np\.)?(?:mean|averag\w*)|"
       r"(?:mean|averag\w*)\s+(?:of|over|across)\s+(?:the\s+|all\s+(?:the\s+)?)?(?:per[\s-]?batch|batch(?:[\s-]?wise|"
       r"[\s-]?level)?)\s+" + _METRIC_PLURAL + r"|(?:mean|averag\w*)\s+(?:of|over|across)\s+(?:the\s+)?" +
       _METRIC_PLURAL + r"\s+(?:of|over|across|for|from)\s+(?:each|every|all(?:\s+the)?|the)\s+(?:\w+\s+)?batch|"
       r"(?:per|each)[\s-]?batch\s+" + _METRIC_PLURAL + r"(?P<gap3>[^.!?\n]{0,40}?)\b(?:mean|averag\w*)",
       _TR, P_TRACKING + 3, metric_batch_averaged=True, symptom="metrics_wrong"),
    # (a per-example metric, accuracy or the metrics in general, said to be averaged batch by batch: "metrics
    # averaged per batch", "I average accuracy over batches and the last batch is smaller", "val acc is the mean of
    # the per-batch accuracies": a plain mean of batch values weighs a short last batch as much as a full one;
    # the loss only with the short batch said, since a loss averaged over batches is the usual running mean)
    _k(r"\b(?:metrics?|accurac(?:y|ies)|acc|scores?)\s+(?:is\s+|are\s+|get\s+|gets\s+)?(?:averaged|meaned)\s+"
       r"(?:per[\s-]batch|(?:over|across)\s+(?:all\s+)?(?:the\s+)?batches|for\s+each\s+batch)|"
       r"\baverag\w*\s+(?:the\s+|my\s+)?(?:val\w*\s+|eval\w*\s+|test\s+)?(?:metrics?|accurac(?:y|ies)|acc|scores?)\s+"
       r"(?:per[\s-]batch|(?:over|across)\s+(?:all\s+)?(?:the\s+)?batches|for\s+each\s+batch)|"
       r"\bmean\s+of\s+(?:the\s+)?(?:per[\s-]batch|batch)\s+(?:metrics|accuracies|scores)\b|"
       r"\b(?:metrics?|accuracy|acc|scores?)\s+(?:is\s+|are\s+)?(?:computed|calculated|measured)\s+(?:per|for\s+each|"
       r"on\s+each)\s+batch\s+(?:and\s+(?:then\s+)?|then\s+)(?:averaged|meaned)|"
       r"\b(?:loss|losses)\s+(?:is\s+|are\s+)?averag\w*\s+(?:over|across)\s+(?:all\s+)?(?:the\s+)?batches\b"
       r"(?=[^.!?\n]{0,60}?\b(?:last|final)\s+batch\w*\s+(?:is\s+)?(?:smaller|shorter|partial|incomplete))",
       _TR, P_TRACKING + 3, metric_batch_averaged=True, symptom="metrics_wrong"),
    _k(r"(?:same|fixed|identical)\s+(?:random\s+)?seeds?(?P<gap1>[^.!?\n]{0,60}?)(?:different\s+results|differ\w*|not\s+"
       r"reproducible|non-?deterministic|vary|varies)|(?:not|isn'?t|aren'?t|non-?)\s*reproducib\w*|"
       r"(?:results?|runs?|training)\s+(?:are\s+|is\s+)?non-?deterministic",
       _TR, P_TRACKING + 2, negatable=False, nondeterminism="training_runs", symptom="metrics_wrong"),
    _k(r"(?:metrics?|values?|points?|curves?|logs?|epochs?|steps?)\s+(?:\w+\s+){0,3}?(?:are\s+|is\s+|go\s+|get\s+|went\s+)?"
       r"(?:missing\s+from\s+(?:the\s+)?(?:logs?|dashboard|tensorboard|wandb)|dropped\s+from\s+(?:the\s+)?(?:logs?|"
       r"dashboard)|never\s+(?:show\s+up|appear|get\s+logged))|(?:last|final)\s+(?:epoch|step|few\s+steps)(?:'s)?\s+"
       r"(?:metrics?\s+)?(?:is\s+|are\s+)?(?:never|not)\s+logged",
       _TR, P_TRACKING + 2, negatable=False, metrics_dropped=True, symptom="metrics_wrong"),
    # precision hygiene: benign scaler skips, a collapsing scale, half-precision weights
    _k(r"overflow\w*!?[.,:;]?\s+(?:rank\s+\d+\s+)?skipp\w*\s+(?:the\s+)?(?:optimi[sz]er\s+)?(?:step|update)\w*"
       r"(?:[^.!?\n]{0,80}?(?:reduc\w*|lower\w*)(?:\s+(?:the\s+)?loss\s+scal\w*)?(?:\s+to\s+[1-9][\d.]*(?![\d.]*e-))?)?|"
       r"(?:grad\s*)?scaler\s+(?:occasionally\s+|sometimes\s+)?skip(?:s|ped|ping)\s+(?:a\s+few\s+|some\s+|the\s+first\s+"
       r"(?:few\s+)?)?(?:optimi[sz]er\s+)?steps?",
       _UN, P_DIRECT, negatable=False, scaler_skips="occasional", mixed_precision="fp16", grad_scaler=True,
       symptom="direct_question", question_topic="precision"),
    # a scale that has fallen below 1 (from a start of 2**16) has halved on overflow after overflow
    _k(r"skipp\w*\s+(?:every|each|all(?:\s+the)?)\s+steps?|every\s+step\s+(?:is\s+|gets\s+)?skipped|(?:loss\s+)?scale\s+"
       r"(?:keeps?\s+)?(?:halving|dropping|decreasing)\s+(?:on\s+)?every\s+step|(?:reduc\w*|lower\w*)\s+(?:the\s+)?loss\s+"
       r"scale\s+to\s+(?:0\.\d+|\d(?:\.\d+)?e-\d+)",
       _UN, P_UNSTABLE, negatable=False, scaler_skips="persistent", symptom="unstable"),
    # the scaler's own log line with the scale at its floor ("Attempted loss scale: 1, reducing to 1", "... 2,
    # reducing to 1", "Current loss scale already at minimum - cannot decrease scale anymore"): a dynamic scale starts
    # at 2**16 (GradScaler, DeepSpeed's initial_scale_power 16) and halves on each overflow, so at 2 or below it has
    # halved fifteen times or more and sits at DeepSpeed's min_loss_scale of 1: overflow on every step, not the
    # calibration of the first few (a scale still in the thousands or millions, as the benign cue above reads)
    _k(r"attempted\s+loss\s+scale:?\s*[12](?:\.0+)?,?\s+reducing\s+to\s+[12](?:\.0+)?(?![\d.])|"
       r"(?:current\s+)?loss\s+scale\s+(?:is\s+)?already\s+at\s+(?:its\s+)?minimum|"
       r"cannot\s+decrease\s+(?:the\s+)?(?:loss\s+)?scale\s+any\s*more",
       _UN, P_UNSTABLE + 1, negatable=False, loss_scale_issue=True, scaler_skips="persistent", symptom="unstable"),
    _k(r"model\.half\(\)|\.half\(\)\s+on\s+the\s+model|model\.to\((?:torch\.)?(?:float16|half)\)|pure\s+(?:fp16|"
       r"float16|half[\s-]precision)\s+(?:weights|training|model)", _UN, 3, negatable=False, weights_dtype="fp16",
       mixed_precision="fp16"),
    # (the model cast itself, not loaded in it: "torch_dtype=torch.bfloat16" is how a frozen base under LoRA or a
    # model for inference is loaded, and says nothing of the weights the optimizer updates)
    _k(r"model\.bfloat16\(\)|model\.to\((?:dtype\s*=\s*)?(?:torch\.)?bfloat16\)|pure\s+(?:bf16|bfloat16)\s+"
       r"(?:weights|training|model)",
       _UN, 3, negatable=False, weights_dtype="bf16", mixed_precision="bf16"),
    # the seeds' rows still unrouted: model size vs data, model variants, loop design, clipping, search strategy
    _k(r"model\s+(?:is\s+)?(?:way\s+|much\s+|far\s+)?(?:too|very)\s+(?:big|large|deep)\s+for\s+(?:the\s+|my\s+|this\s+|such\s+a\s+)?"
       r"(?:small\s+)?(?:data(?:set)?|amount\s+of\s+data)|(?:huge|large|big|very\s+deep)\s+(?:model|network)\s+(?:on|with|"
       r"for)\s+(?:a\s+|very\s+|such\s+a\s+)?(?:small|tiny|little)\s+(?:data(?:set)?|amount\s+of\s+data)|"
       r"(?:many|far|way|much)\s+more\s+param(?:eter)?s\s+than\s+(?:training\s+)?(?:examples|samples|images|data\s*points)|"
       # (the data counted: "the model is way too big for 500 training images")
       r"model\s+(?:is\s+)?(?:way\s+|much\s+|far\s+)?(?:too|very)\s+(?:big|large|deep)\s+for\s+(?:only\s+|just\s+)?"
       r"\d[\d,]*k?\s+(?:training\s+)?(?:images|samples|examples|rows|sentences|data\s*points|records)",
       _OF, 0, negatable=False, capacity_vs_data="too_large"),
    _k(r"(?:which|what)\s+(?:model\s+)?(?:variant|backbone|model\s+size|depth|width)\s+(?:should|to|is\s+best)|"
       r"compar\w+\s+(?:two\s+|different\s+|several\s+|these\s+)?(?:model\s+)?(?:variants|architectures|backbones|"
       r"model\s+sizes)|(?:a\s+)?(?:bigger|larger|smaller|deeper|wider)\s+(?:model|network|backbone)\s+(?:or|vs\.?|"
       r"versus)\s+(?:a\s+)?(?:bigger|larger|smaller|deeper|wider|shallower)",
       _DQ, P_DIRECT, negatable=False, symptom="direct_question", question_topic="architecture"),
    _k(r"(?:how|where)\s+(?:should|do|to|can)\s+(?:i\s+|we\s+)?(?:structure|design|write|organi[sz]e|set\s+up)\s+"
       r"(?:my\s+|the\s+|a\s+)?training\s+loop|training[\s-]loop\s+(?:design|structure|best\s+practices?)|"
       r"where\s+(?:should|do)\s+(?:i|we)\s+(?:put|call|place)\s+(?:the\s+)?(?:optimi[sz]er\.)?(?:zero_grad|"
       r"scheduler\.step|model\.eval|optimi[sz]er\.step|clip_grad\w*|checkpoint\w*)",
       _DQ, P_DIRECT, negatable=False, symptom="direct_question", question_topic="training_loop"),
    _k(r"(?:what|which)\s+(?:a\s+|the\s+)?(?:good\s+)?(?:max_?norm|clip(?:ping)?\s+(?:value|threshold|norm)|gradient\s+"
       r"clipping\s+(?:value|threshold|norm))|how\s+(?:do\s+i|to|should\s+i)\s+(?:choose|pick|set)\s+(?:a\s+|the\s+)?"
       r"(?:max_?norm|clip(?:ping)?\s+(?:value|threshold)|gradient\s+clipping\s+(?:value|threshold))|"
       r"clip_grad_norm_?\s+(?:vs\.?|or|versus)\s+clip_grad_value_?|clip(?:ping)?\s+by\s+norm\s+(?:vs\.?|or)\s+"
       r"(?:by\s+)?value",
       _DQ, P_DIRECT + 1, negatable=False, symptom="direct_question", question_topic="clipping"),
    # naming a search strategy (or comparing two, random search included) is a tuning question, not pressure to
    # tune at random: the comparison spans the pressure cue's "random search" and hides it
    _k(rf"(?:{_SEARCH}|random\s+search)\s+(?:or|vs\.?|versus|instead\s+of|over)\s+(?:{_SEARCH}|random\s+search)|"
       rf"(?!grid)(?:{_SEARCH})",
       _DQ, P_DIRECT, negatable=False, symptom="direct_question", question_topic="tuning", hparam_scope="all"),
    # (a grid search named alone is everyday too, "a grid search over the restaurants in town": read only in a text
    # about training)
    _k(r"grid\s+search", _DQ, P_DIRECT, negatable=False, scope=False, symptom="direct_question",
       question_topic="tuning", hparam_scope="all"),
    # label smoothing named as part of the run ("CrossEntropyLoss(label_smoothing=0.1)", "with smoothed labels"),
    # not switched off ("label_smoothing=0"), nor the concept asked about ("I wonder what label smoothing does")
    _k(r"(?<!what\s)(?<!how\s)(?<!why\s)(?<!whether\s)(?<!is\s)label[\s_-]?smooth\w*(?!\s*[=:]\s*0(?:\.0*)?(?![\d.]))|smoothed\s+(?:labels|targets)|(?:smooth|soft)\s+"
       r"one[\s-]?hot\s+(?:labels|targets)",
       _QR, 0, label_smoothing=True),
    # how the search is being run, said of the user's own search: a grid (every combination of listed values,
    # "a full grid over lr and wd", "GridSearchCV", "tune with a grid"), or one setting varied at a time with
    # the others held ("one hyperparameter at a time", "one by one", "sweep the lr, keep the best, then sweep
    # dropout"). Read as the current method: the advice differs for each (AP-08 for the second).
    _k(r"(?:grid[\s_-]?search\w*|(?:full|exhaustive|complete|whole|big|large|huge|coarse|fine|my|our|a|the)\s+grid)\s+"
       r"(?:of|over|on|across|for)\s+(?:\w+\s+){0,2}?(?:lrs?|learning[\s-]rates?|hyper-?param\w*|hparams?|"
       r"param(?:eter)?s|values|settings|knobs|configs?|configurations|weight[\s_-]decays?|wds?|dropouts?|"
       r"batch[\s_-]?sizes|optimi[sz]ers?)\b|(?:tun\w*|search\w*|sweep\w*|optimi[sz]\w*)\s+(?:\w+\s+){0,3}?(?:with|"
       r"using|via|by)\s+(?:a\s+|the\s+)?grid\b|(?:point|edge|corner|boundary|border)s?\s+of\s+(?:the\s+|my\s+)?"
       r"grid\b",
       _DQ, P_DIRECT, negatable=False, tuning_method="grid", symptom="direct_question", question_topic="tuning"),
    # (a grid search named with nothing of training searched over is everyday too, "a grid search over the
    # restaurants in town": read only in a text about training)
    _k(r"grid[\s_-]?search\w*", _DQ, P_DIRECT, negatable=False, scope=False, tuning_method="grid",
       symptom="direct_question", question_topic="tuning"),
    # a Bayesian (model-based) search, named as such or by the samplers and libraries that run one ("bayesian
    # optimisation over 6 hyperparameters", "Optuna's TPE sampler", "hyperopt", "wandb sweep with method: bayes",
    # "a Gaussian-process optimiser"): the search the user runs, not a Bayesian model ("bayesian neural network",
    # "bayesian inference") nor a Gaussian process fitted as the model ("gaussian process regression")
    _k(r"\bbayes(?:ian)?[\s_-]+(?:hyper-?param(?:eter)?s?\s+|hp\s+|hpo\s+)?(?:optimi[sz]\w*|search\w*|sweep\w*|"
       r"tun(?:e|ing|er)\b|opt\b|hpo\b)|\bbayes[\s_-]?opt\w*|\boptuna\b|\bhyperopt\b|\btpe(?:[\s_]?sampler)?\b|"
       r"\bmethod\s*[:=]\s*['\"]?bayes\b|\bgaussian[\s-]process\s+(?:based\s+)?(?:bayesian\s+)?optimi[sz]\w*",
       _DQ, P_DIRECT, negatable=False, tuning_method="bayesian"),
    _k(r"(?:one|a\s+single|1)\s+(?:hyper-?param(?:eter)?|param(?:eter)?|setting|knob|thing|variable|value|factor)s?\s+"
       r"(?:at\s+a\s+time|per\s+(?:run|experiment|trial|sweep))|(?:tun\w*|optimi[sz]\w*|sweep\w*|search\w*)\s+"
       r"(?:[^.!?\n]{0,80}?\s)?(?<!not\s)(?<!n't\s)one\s+at\s+a\s+time|(?:tun\w*|optimi[sz]\w*|sweep\w*|search\w*)\s+(?:the\s+|"
       r"my\s+|our\s+)?(?:hyper-?param(?:eter)?s?|hparams?|params?|parameters|settings|knobs)\s+(?:one\s+by\s+one|"
       r"one\s+after\s+(?:the\s+)?other|separately|individually|independently|sequentially)|(?:each|every)\s+"
       r"(?:hyper-?param(?:eter)?|hparam|param(?:eter)?|setting|knob)\s+(?:separately|individually|independently|"
       r"on\s+its\s+own|alone)|coordinate[\s-]?(?:wise|descent)\s+(?:tun\w*|search)|(?:sweep|tune|tuning)\s+"
       r"(?:the\s+)?(?:lr|learning[\s-]rate)\s+(?:first|alone)\b[^.!?\n]{0,60}?\bthen\s+(?:sweep|tune|tuning|the|"
       r"batch|dropout|weight|wd)",
       # ("tune the whole set together, not one at a time" says the opposite)
       _DQ, P_DIRECT, negatable=False, tuning_method="one_at_a_time"),
    # early stopping named as part of the run: the callback by its class name, or early stopping said to act or
    # to be configured ("early stopping kills the run", "the early stopping callback", "early stopping with
    # patience 3"). A question weighing it ("should I use early stopping?") is the attribution's to drop, and
    # "no early stopping" is negated.
    _k(r"early[\s_-]?stopping[\s_-]?callback|earlystopping\w*|early[\s_-]?stop(?:ping|per)?\s+(?:callback|patience|"
       r"(?:with|at)\s+patience|(?:min_?delta|mode|monitor)\b)|early[\s_-]?stop(?:ping)?\s+(?:\w+\s+){0,6}?(?:stops|stopped|"
       r"kills?|killed|ends?|ended|triggers?|triggered|fires?|fired|halts?|halted|terminates?|terminated|never\s+"
       r"(?:stops|triggers|fires)|does\s+nothing|(?:is\s+)?not\s+working|doesn'?t\s+work|happens?|kicks?\s+in|kicked\s+"
       r"in)\b|(?:use|using|used|with|added|adding|add|have|enabled?)\s+(?:an?\s+|the\s+)?early[\s_-]?stop(?:ping)?\b"
       r"(?!\s*\?)",
       _OF, P_DIRECT, regularization="early_stopping"),
    # checkpoint selection and early stopping compared the wrong way
    _k(r"(?:ended\s+up\s+with|saved|loaded|kept|picked|selected|got|restored)\s+(?:the\s+)?worst\s+(?:checkpoint|model|"
       r"epoch)(?:\s+instead\s+of\s+the\s+best)?|greater_is_better|(?:best|saved)\s+(?:checkpoint|model)\s+(?:is|was)\s+"
       r"(?:actually\s+)?the\s+worst|mode\s*=\s*['\"]?max['\"]?(?P<gap1>[^.!?\n]{0,40}?)(?:val_?)?loss|"
       r"(?:val_?)?loss(?P<gap2>[^.!?\n]{0,40}?)mode\s*=\s*['\"]?max\b|early\s+stopping\s+(?:stops|stopped|triggers|"
       r"triggered|fires|fired)\s+(?:\w+\s+){0,3}?(?:while|although|even\s+though|when)\s+(?:the\s+)?(?:val(?:idation)?\s+)?"
       r"loss\s+(?:is\s+|was\s+)?(?:still\s+)?(?:decreasing|improving|going\s+down)",
       _LOOP, negatable=False, monitor_mode="wrong_direction"),
    # prediction and target shapes that broadcast in the loss (torch's own warning, and its description)
    _k(r"using\s+a\s+target\s+size\s+(?P<gap1>[^!?\n]{0,60}?)\s*that\s+is\s+different\s+to\s+the\s+input\s+size|"
       r"(?:target|label)s?\s+(?:and|vs\.?)\s+(?:output|prediction|input)s?\s+(?:have\s+)?(?:different|mismatched)\s+"
       r"shapes?(?P<gap2>[^.!?\n]{0,40}?)broadcast\w*|broadcast\w*\s+(?:in|inside)\s+(?:the\s+)?(?:mse|l1|loss)",
       _NL, 0, negatable=False, target_shape="broadcast"),
    # a perfect score on held-out data, as users quote it
    _k(r"(?:test|val(?:idation)?|eval(?:uation)?|held[\s-]out)\b(?P<gap1>[^.!?\n]{0,40}?)\b100(?:\.0+)?\s*%\s+acc(?:uracy)?|"
       r"(?:test|val(?:idation)?|eval(?:uation)?)\s+acc(?:uracy)?\s+(?:of\s+|is\s+|=\s*|reaches\s+|hits\s+)?100(?:\.0+)?\s*%",
       _OF, 3, negatable=False, val_metric=1.0, metric_kind="accuracy"),
    # graph cuts as users describe them (the rows are LP-GRAPH-01/02)
    _k(r"(?:sub-?modules?|layers?|blocks?|heads?)\s+(?:are\s+|were\s+)?(?:kept|stored|held|put|saved)\s+in\s+a\s+(?:plain\s+|"
       r"regular\s+|normal\s+|simple\s+)?(?:python\s+)?list|(?:plain|regular|normal|python)\s+list\s+(?:of\s+(?:layers|"
       r"modules|blocks)\s+)?instead\s+of\s+(?:an?\s+)?(?:nn\.)?module_?list",
       _LOOP, negatable=False, graph_cut="python_list"),
    _k(r"(?:loss|targets?|outputs?|predictions)\s+(?:is\s+|are\s+)?(?:computed|calculated|done)\s+(?:with|in|using)\s+numpy|"
       r"(?:convert\w*|turn\w*|cast\w*)\s+(?:the\s+|my\s+)?(?:outputs?|predictions|preds|logits)\s+(?:to|into)\s+numpy"
       r"\s+(?:arrays?\s+)?(?:before|to\s+compute|for)\s+(?:comput\w*\s+|calculat\w*\s+)?(?:the\s+)?loss|\w+\.detach\(\)\.(?:cpu\(\)\.)?numpy\(\)(?P<gap1>[^.!?\n]{0,40}?)(?:loss|backward)",
       _LOOP, negatable=False, graph_cut="numpy"),
    _k(r"loss\.item\(\)\s+(?:and\s+)?(?:then\s+)?(?:call\w*\s+)?\.?backward|backward\w*\s+on\s+(?:the\s+)?"
       r"(?:loss\.)?item\(\)|torch\.tensor\(\s*loss\.item\(\)|loss\s*=\s*torch\.tensor\([^)\n]{0,40}\.item\(\)|(?:wrapp?\w*|re-?creat\w*)\s+"
       r"(?:the\s+)?loss\s+(?:value\s+)?(?:in|as)\s+(?:a\s+)?(?:new\s+)?torch\.tensor",
       _LOOP, negatable=False, graph_cut="item"),
    # the output detached before the loss, said in words ("I detach the output before the loss by accident")
    _k(r"detach\w*\s+(?:the\s+|my\s+)?(?:outputs?|predictions|preds|logits)\s+(?:\w+\s+){0,2}?(?:before|prior\s+to)\s+"
       r"(?:comput\w*\s+|calculat\w*\s+)?(?:the\s+)?loss",
       _LOOP, negatable=False, graph_cut="detach"),
    # Adam's betas out of order or range, as users quote them ("betas=(0.999, 0.9)", "beta2 = 0.9")
    _k(r"betas?\s*(?:=|:|are|is|of)?\s*[(\[]\s*0?\.99\d*\s*,\s*0?\.9\d?\s*[)\]]|beta_?1\s*(?:=|:|of|is)\s*0?\.999|"
       r"(?:swapped|switched|reversed)\s+(?:the\s+)?(?:adam\s+)?betas|betas?\s+(?:are\s+|were\s+)?(?:swapped|reversed)",
       _LOOP, negatable=False, adam_betas="swapped"),
    _k(r"beta_?2\s*(?:=|:|of|is|to)\s*0?\.(?:[0-8]\d*|9)(?![\d])", _LOOP, negatable=False, adam_betas="beta2_low"),
    # DDP gradients never all-reduced (every backward under no_sync, or the unwrapped module stepped)
    _k(r"grad(?:ient)?s?\s+(?:are\s+|were\s+|get\s+|got\s+)?(?:never|not)\s+(?:get\s+|being\s+)?(?:synced|synchroni[sz]ed|"
       r"all-?reduced|averaged\s+across)|no_sync\(?\)?\s+(?:on|for|around)\s+(?:every|each|all)\s+(?:the\s+)?(?:micro[\s-]?"
       r"batch|step|backward)\w*|(?:every|each|all)\s+(?:the\s+)?backward\w*\s+(?:\w+\s+)?(?:inside|in|under)\s+(?:model\.)?no_sync|"
       # (the step said to take them: "the optimizer steps with unsynced gradients", "steps inside the no_sync
       # context"; the all-reduce said never to happen)
       r"\bunsynced\s+grad(?:ient)?s?|\bstep\w*\s+(?:the\s+optimi[sz]er\s+)?inside\s+(?:the\s+)?no_sync|"
       r"\b(?:all-?reduce|allreduce|gradient\s+sync\w*)\s+(?:never|doesn'?t|does\s+not|did\s+not|didn'?t)\s+"
       r"(?:happen|run|occur)\w*",
       _LOOP, negatable=False, grads_synced="unsynced", multi_gpu=True),
    # several devices said by a count before the card's name ("8xA100", "4x H100") or of the processes as a whole
    # ("all 4 processes print the same loss"; one card, "1xA100", is no multi-GPU run)
    # (not a factor of something else: "a 2x GPU memory saving"; not a DataLoader's worker processes: "num_workers=4
    # and all 4 processes use 100% CPU")
    _k(r"\b(?:[2-9]|[1-9]\d+)\s*x\s*(?:a100|h100|h200|v100|a10g?|a6000|l4|l40s?|t4|3090|4090|rtx\s*\d{4}|gpus?)\b"
       r"(?!\s*(?:memory|mem|vram|ram|saving|savings|speed\w*|faster|slower|less|more|utili[sz]\w*)\b)|"
       r"\ball\s+(?:the\s+)?(?:[2-9]|[1-9]\d+|two|three|four|eight)\s+(?:ranks\b|"
       r"processes\b(?![^.!?\n]{0,60}?\b(?:cpu|workers?)\b))",
       _QR, 0, negatable=False, multi_gpu=True),
    # several devices given to the launcher or the trainer as a setting: a list of two or more device ids
    # ("--gpu_ids 0,1", "CUDA_VISIBLE_DEVICES=0,1,2,3", "devices=[0, 1]") or a count of two or more ("--gpus 4",
    # "Trainer(gpus=2)", "--num_processes 8"); one device ("--gpus 0,", "CUDA_VISIBLE_DEVICES=0", "gpus=1") is no
    # multi-GPU run, and a bare word with numbers after it in prose ("batch 8 per gpu, 16 and 32") is no setting:
    # the flag's dashes or an "=" make it one
    _k(r"(?:\bcuda_visible_devices\s*=\s*['\"]?|(?:--(?:gpus?|devices?)(?:[_-]?ids?)?\s*[=\s]|"
       r"\b(?:gpus?|devices?)(?:[_-]?ids?)?\s*=)\s*\[?\s*['\"]?)\d+\s*,\s*\d+|"
       r"(?:--(?:gpus|devices|num[_-]?gpus|n[_-]?gpus|num[_-]processes)\s*[=\s]|"
       r"\b(?:gpus|devices|num[_-]?gpus|n[_-]?gpus|num[_-]processes)\s*=)\s*(?:[2-9]|[1-9]\d+)\b"
       # (a single index with its trailing comma, "--gpus 2," or gpus="2,", is one device; a comma before the next
       # argument, "Trainer(gpus=2, precision=16)", ends the count)
       r"(?!\s*,\s*(?:['\")\]]|$))",
       _QR, 0, negatable=False, multi_gpu=True),
    # several cards said by a count in words or digits before the card's name ("my two RTX 3090s", "on 2 A100s",
    # "four V100 cards"): the job has as many devices (one, "a single 3090", is no multi-GPU run)
    _k(r"\b(?:[2-9]|[1-9]\d+|two|three|four|five|six|seven|eight|sixteen)\s+(?:nvidia\s+|geforce\s+)?(?:rtx\s*)?"
       r"(?:a100|h100|h200|v100|a10g?|a6000|l4|l40s?|t4|\d{4}(?:\s*ti)?)(?:s\b|\s+(?:cards|gpus)\b)",
       _QR, 0, negatable=False, multi_gpu=True),
    # a second machine added to the job ("when I add a second node", "with another server", "on two servers"), not
    # a move to another single machine ("when I go to the second server in our lab")
    # ("on another server with a single GPU" is the move too: "on"/"over" take a count of machines, not "another")
    _k(r"(?:\b(?:add(?:ed|ing)?|with|plus|across)\s+(?:a\s+|the\s+)?(?:second|2nd|another|two|2|several|multiple)|"
       r"\b(?:and|over|on)\s+(?:the\s+)?(?:two|2|several|multiple))\s+(?:nodes?|servers?|machines?)\b"
       r"(?!\s+types?\b)(?![^.!?\n]{0,30}?\b(?:a\s+single|one|1)\s+(?:gpu|card|device)\b)",
       _QR, 0, negatable=False, multi_gpu=True),
    # the LR and the number of devices ("scaled the lr linearly with the number of gpus"; "did not scale the lr
    # when going from 1 to 8 gpus")
    _k(r"(?<!not\s)(?<!n't\s)(?<!never\s)scal(?:e|ed|ing)\s+(?:the\s+|my\s+)?(?:lr|learning[\s-]rate)\s+(?:up\s+)?"
       r"(?:linearly\s+)?(?:with|by)\s+(?:the\s+)?(?:number\s+of\s+|#\s*)?(?:gpus|devices|world[\s_]size|ranks|nodes)|"
       r"linear(?:ly)?\s+scal\w*\s+(?:of\s+)?(?:the\s+)?(?:lr|learning[\s-]rate)\s+(?:with|by|to)\s+(?:the\s+)?"
       r"(?:number\s+of\s+)?(?:gpus|devices|world[\s_]size)",
       _LOOP, negatable=False, lr_world_scaling="scaled", multi_gpu=True),
    _k(r"(?:didn'?t|did\s+not|never|without)\s+(?:re)?scal\w*\s+(?:the\s+|my\s+)?(?:lr|learning[\s-]rate)"
       r"(?P<gap1>[^.!?\n]{0,60}?)\b(?:gpus?|devices|world[\s_]size|ranks|nodes)\b",
       _LOOP, negatable=False, lr_world_scaling="unchanged", multi_gpu=True),
    # the loss summed over the batch instead of averaged (its scale then grows with the batch size)
    _k(r"loss(?:es)?\s+(?:is\s+|are\s+|gets\s+|was\s+)?summed\s+(?:instead\s+of\s+(?:averaged|the\s+mean)|over\s+(?:the\s+)?"
       r"batch)|sum\s+(?:the\s+)?loss(?:es)?\s+(?:over|across)\s+(?:the\s+)?batch\s+instead\s+of\s+(?:averaging|the\s+"
       r"mean)",
       _NL, 0, negatable=False, loss_reduction="sum"),
    # ... said by the reduction's name or the code that sums ("reduction='sum'", "sum reduction", "loss.sum() instead
    # of loss.mean()", "((pred - y)**2).sum()"), or by what is summed over the batch's items ("I sum the BCE over all
    # pixels", "summing per-sample losses (not mean)"); a loss that is the sum of its terms is no such reduction, and
    # summed errors count mistakes (an accuracy), no loss; a negation denies it ("I don't use reduction='sum'",
    # "sum reduction is not what I use")
    _k(r"\breduction\s*(?:=|:)\s*['\"]?sum\b|\bsum\s+reduction\b(?!\s+(?:is|was)\s*(?:not|n'?t)\b|\s+isn'?t\b)|"
       # (the square's "**" follows a bracket, where no word boundary is: "((pred - y) ** 2).sum()")
       r"(?:\b(?:loss(?:es)?|bce|mse|nll)|\*\*\s*2\s*\)|\.pow\(\s*2\s*\))\s*\.sum\(\s*\)|"
       # the loss assigned from, or said to be, a tensor's sum ("loss = errors.sum()", "errors.sum() as the loss")
       r"\bloss\s*(?:=|is\s+(?:just\s+)?)\s*[\w.]{1,40}\.sum\(\s*\)(?!\s*[/+*-])|"
       r"\b[\w.]{1,40}\.sum\(\s*\)\s+as\s+(?:the\s+|my\s+)?loss\b|\bsum(?:s|med|ming)?\s+(?:up\s+)?(?:the\s+|my\s+|all\s+)?(?:per[\s-](?:sample|example|pixel|token|"
       r"item)\s+)?(?:losses|loss|bce|mse|nll|cross[\s-]entropy)\b[^.!?\n]{0,30}?(?:\(?\s*not\s+(?:the\s+)?"
       r"(?:mean|averag\w*)|instead\s+of\s+(?:averag\w*|the\s+mean|mean)|over\s+(?:all\s+)?(?:the\s+)?(?:pixels|tokens|"
       r"samples|examples|elements|batch))",
       _NL, 0, loss_reduction="sum"),
    # an LR schedule stepped in other units than it was defined in
    _k(r"(?:lr|learning[\s-]rate)(?:\s+schedul\w*)?\s+(?:\w+\s+){0,2}?(?:decays?|decayed|reach\w*|hits?|drops?|dropped|goes|"
       r"went|runs?\s+out|ran\s+out|ends?|ended)\s+(?:\w+\s+){0,4}?(?:(?:much\s+|way\s+|far\s+)?too\s+(?:early|fast|soon|quickly)|"
       r"long\s+before|much\s+(?:earlier|sooner|faster))|t_max\s*=\s*(?:num_|n_)?epochs?\b(?P<gap1>[^!?\n]{0,60}?)"
       r"(?:every|each|per)\s+(?:batch|step|iteration)",
       _LOOP, negatable=False, scheduler_pace="too_fast"),
    # (told by where the schedule ends against where it was set to end: "the LR reaches its end value after about
    # 2.5k steps instead of at 10k", "the lr hits its minimum after 3000 of 12000 steps", "the learning rate is 0
    # after half of max_train_steps"): a schedule can only reach its end, floor or zero before the planned step
    # count if it advances faster than it was defined for; reaching it late is not possible, a slow schedule never
    # gets there, so the end value said with an earlier step is the fast pace (not the peak: a warmup that peaks
    # late is the slow one, and "reaches its final value at the end of training" is the plan kept)
    _k(r"(?:\blr|learning[\s-]rate)(?:\s+schedul\w*)?\s+(?:\w+\s+){0,2}?(?:reach\w*|hits?|hit|gets?\s+to|got\s+to|"
       r"falls?\s+to|fell\s+to|drops?\s+to|dropped\s+to|decays?\s+to|decayed\s+to|is\s+(?:already\s+)?at|was\s+"
       r"(?:already\s+)?at|becomes?|became|is|was)\s+(?:already\s+)?(?:(?:its|the)\s+(?:end|final|minimum|min|lowest|"
       r"floor|last|eta_min|min_lr)(?:\s+(?:value|lr|learning\s+rate))?|0(?:\.0+)?|zero)\s+"
       r"(?:(?:after|at|by|within|in)\s+(?:only\s+)?(?:about\s+|around\s+|roughly\s+|~\s*)?(?P<part>[\d.,]+\s*k?)\s*"
       r"(?:steps?|iterations?|iters?|epochs?|updates?)?\s*(?:,\s*)?(?:instead\s+of|rather\s+than|not\s+(?:at|after)|"
       # (a part "of" or "out of" a whole is the early end only when both are counts and the part the smaller:
       # "after 3000 of 12000 steps"; "after 100 epochs of training" is a duration, "10k of 10k" the end as planned;
       # expert.text compares the two)
       r"(?:of|out\s+of)\s+(?P<whole>[\d.,]*\d\s*k?)(?!\w|[.,]\d))|"
       r"(?:after|at|by|within|in)\s+(?:only\s+)?(?:about\s+|around\s+|roughly\s+)?(?:half|a\s+quarter|"
       r"a\s+third|one\s+quarter|one\s+third|the\s+first\s+half|\d{1,2}\s*%)\s+(?:of|through)\s+(?:the\s+|my\s+)?"
       r"(?:training|run|steps|max_train_steps|max_steps|total\s+steps|epochs|schedule))",
       _LOOP, negatable=False, scheduler_pace="too_fast"),
    # (the mirror, told by where the warmup peaks against where it was set to peak: "the warmup peaks after 4000
    # steps instead of 400", "the lr reaches its peak 10x later than it should", "the learning rate hits its max way
    # too late"): the peak is a fixed count of schedule steps away, so reaching it after more optimizer steps than
    # planned is a schedule advancing slower than it was defined for; expert.text checks the late count is the larger
    _k(r"(?:\blr|learning[\s-]rate|warm-?up)(?:\s+schedul\w*)?\s+(?:\w+\s+){0,2}?(?:peak(?:s|ed)?|(?:reach\w*|hits?|"
       r"gets?\s+to|got\s+to|climbs?\s+to|climbed\s+to|rises?\s+to|rose\s+to)\s+(?:its|the)\s+(?:peak|max|maximum|"
       r"top|target|full)(?:\s+(?:value|lr|learning\s+rate))?)\s+"
       r"(?:(?:only\s+)?(?:after|at|by|around|near)\s+(?:about\s+|around\s+|roughly\s+|~\s*)?(?:steps?\s+|iterations?\s+|"
       r"iters?\s+|epochs?\s+)?(?P<late>[\d.,]*\d\s*k?)\s*(?:steps?|iterations?|iters?|epochs?|updates?)?\s*(?:,\s*)?"
       r"(?:instead\s+of|rather\s+than|not\s+(?:at|after)|vs\.?|versus)\s+(?:at\s+|after\s+)?(?:steps?\s+)?"
       r"(?P<due>[\d.,]*\d\s*k?)(?!\w|[.,]\d)|"
       r"(?:about\s+|around\s+|roughly\s+|~\s*)?(?:\d+(?:\.\d+)?\s*x|\d+\s+times|much|way|far|a\s+lot)\s+later\s+than\s+"
       r"(?:it\s+should|planned|expected|configured|intended|specified|scheduled|i\s+(?:set|planned|configured|expected)|"
       r"set|it\s+was\s+(?:set|configured|supposed\s+to))|(?:much\s+|way\s+|far\s+)?too\s+late)",
       _LOOP, negatable=False, scheduler_pace="too_slow"),
    # an LR scheduler stepped per batch where it was defined per epoch ("I call scheduler.step() every batch instead
    # of every epoch", "the lr scheduler steps each iteration instead of once per epoch"): it runs out that many
    # times too early; the other way round ("stepped every epoch instead of every step") it barely moves
    _k(r"\b(?:lr_?|learning_rate_?)?sched(?:ul(?:er|ers|ing))?\b(?:\.step\(\))?[^.!?\n]{0,40}?\b(?:every|each|per|"
       r"once\s+per|after\s+(?:every|each))\s+(?:batch|step|iteration|iter|optimizer\s+step)\s+(?:instead\s+of|"
       r"rather\s+than)\s+(?:once\s+)?(?:every|each|per|after\s+(?:every|each)|at\s+the\s+end\s+of\s+(?:each|every|"
       r"the))\s+epoch",
       _LOOP, scheduler_pace="too_fast"),
    _k(r"\b(?:lr_?|learning_rate_?)?sched(?:ul(?:er|ers|ing))?\b(?:\.step\(\))?[^.!?\n]{0,40}?\b(?:every|each|per|"
       r"once\s+per|after\s+(?:every|each))\s+epoch\s+(?:instead\s+of|rather\s+than)\s+(?:every|each|per|"
       r"after\s+(?:every|each))\s+(?:batch|step|iteration|iter|optimizer\s+step)",
       _LOOP, scheduler_pace="too_slow"),
    # (told by how many schedule steps one call takes: "scheduler.step() advances the schedule by the number of
    # GPUs", "the lr scheduler steps 4 times per call on 4 gpus", "it is stepped twice per iteration"): the schedule
    # moves several of its own steps for each optimizer step, so it ends that many times too early
    # (an LR scheduler only: "lr_scheduler", "sched.step()", the bare "scheduler" unless another kind is named, "the
    # job scheduler"; and not said of it in a question or a denial: "asked whether the scheduler is stepped twice per
    # iteration; it is not", "once per step, not twice": no negator in the gaps, none closing the clause)
    _k(r"(?<!\bjob\s)(?<!\btask\s)(?<!\bcron\s)(?<!\bslurm\s)(?<!\bevent\s)(?<!\bprocess\s)(?<!\bthread\s)"
       r"(?<!\bwhether\sthe\s)(?<!\bwhether\s)(?<!\bif\sthe\s)"
       r"(?:\b(?:lr_?|learning_rate_?|warmup_?)?sched(?:ul(?:er|ers|ing))?\b|\w*lr_?sched\w*|lr\s+schedul\w*|"
       r"learning[\s-]rate\s+schedul\w*)(?:\.step\(\))?\s+"
       r"(?:(?!(?:not|never|no|isn't|wasn't|don't|doesn't|didn't)\b)\S+\s+){0,6}?"
       r"(?:steps?|stepped|stepping|advances?|advanced|advancing|moves?|moved|updates?|updated|is\s+called|gets\s+called)"
       r"\s+(?:(?!(?:not|never|no|isn't|wasn't|don't|doesn't|didn't)\b)\S+\s+){0,4}?(?:by\s+the\s+number\s+of\s+(?:gpus?|processes|devices|ranks|workers)\b|"
       r"(?:\d+|two|three|four|eight|several|multiple|num_processes|world_size)\s+times\s+(?:per|each|every|for\s+each|"
       r"for\s+every|on\s+each|on\s+every|in\s+each|with\s+each|with\s+every)\s+(?:call|step|iteration|batch|loop|"
       r"optimizer\s+step|update)\b|twice\s+(?:per|each|every|for\s+each|for\s+every|on\s+each|with\s+each)\s+"
       r"(?:call|step|iteration|batch|loop|optimizer\s+step|update)\b)"
       r"(?![^.!?\n]{0,60}?\b(?:it|that|this)\s+(?:is|was|'s|does|did)(?:\s+not|n't)\b)",
       _LOOP, negatable=False, scope=False, scheduler_pace="too_fast"),
    _k(r"(?:lr\s+|learning[\s-]rate\s+)?warm-?up\s+(?:never\s+(?:ends|finishes|completes)|takes\s+(?:forever|the\s+whole\s+run))|"
       # ("the LR never changes" is an LR that does not follow its schedule at all: lr_observed, not the pace)
       r"(?:lr|learning[\s-]rate)(?:\s+schedul\w*)?\s+barely\s+(?:decays?|changes?|moves?)",
       _LOOP, negatable=False, scheduler_pace="too_slow"),
    # a schedule that has not run its course when training ends ("the logged learning rate never gets down to 0 at
    # the end of training", "lr_scheduler.num_training_steps is larger than the number of steps actually trained"):
    # it was defined for more steps than it is stepped; not a floor set on purpose ("never reaches 0 because
    # eta_min=1e-6"), nor the loss's own
    _k(r"\b(?:lr|learning[\s-]rate)\b[^.!?\n]{0,30}?\bnever\s+(?:gets?\s+(?:down\s+)?to|reach(?:es)?|hits?|"
       r"goes\s+(?:down\s+)?to|decays?\s+to|falls?\s+to|drops?\s+to)\s+(?:0|zero|its\s+(?:final|end|minimum|min)\s+"
       r"value)\b[^.!?\n]{0,40}?\b(?:at|by)\s+the\s+end\b"
       r"(?![^.!?\n]{0,60}?\b(?:eta_min|min_lr|minimum\s+(?:lr|learning\s+rate)|floor)\b)|"
       r"\b(?:\w+\.)?(?:num_training_steps|total_steps|t_max)\b\s+(?:is|was)\s+(?:much\s+|far\s+)?(?:larger|greater|"
       r"bigger|higher|more)\s+than\s+(?:the\s+number\s+of\s+)?(?:optimizer\s+)?(?:steps|iterations)\s+"
       r"(?:actually\s+|really\s+)?(?:trained|run|taken|done|performed)",
       _LOOP, negatable=False, scheduler_pace="too_slow"),
)
