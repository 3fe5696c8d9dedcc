"""The clarification protocol: a vague request gets exactly one clarifying question and no route until answered.

How it works, in rows:

* ``CL-EVID-*`` mark *symptom evidence* (a problem symptom, a described loss curve, a gradient-norm trend)
  with the flag ``symptom_evidence``. They run after symptom derivation (salience 45, below the 50s of
  ``derive``) so a symptom derived from an answer counts.
* ``CL-HOLD-*`` put a vague request on hold while there is no evidence and its clarifying answer is
  missing: a guard on every skill (``Block``), so nothing is routed on a guess. They run after the evidence
  rows (salience 40) and before any route (0); the engine's core guards apply them either way.
* ``Q-CLARIFY-*`` ask the one clarifying question; their ranks are negative, so they come before every
  symptom question (``Q-SYMPTOM`` has rank 0).
* ``CL-ANS-*`` turn the answer into a symptom (derived at salience 53: an explicit answer outranks the
  weak "a technique was named, so it is a direct question" derivation at 50/51, and yields to derivations
  from measured evidence at 54+) or into a route of its own.
"""

from __future__ import annotations

from knowledge.conditions import PROBLEM_SYMPTOMS
from knowledge.keywords import OTHER_TASK_AHEAD
from knowledge.schema import (
    Absent,
    Block,
    Cite,
    Cross,
    Derive,
    Find,
    Fix,
    Flag,
    Is,
    Keyword,
    Present,
    QuestionRow,
    RouteTo,
    Row,
    Salience,
)
from knowledge.skills import SKILLS

_T = "Ambiguous queries: clarification protocol"
_C25 = "000"
_C26 = "001"


EVIDENCE = "flag:symptom_evidence"
EVIDENCE_SALIENCE = Salience.CLARIFY + 5
HOLD_SALIENCE = Salience.CLARIFY
ANSWER_SALIENCE = Salience.CLARIFY + 13
ALL_SKILLS = tuple(s.name for s in SKILLS)


def hold(reason: str) -> tuple[Block, ...]:
    """Guards on every skill (and cross-pack target): no route at all until the ambiguity is settled.

    Args:
        reason: Why we wait, in words the why-not explanation shows.
    """
    return tuple(Block(s, reason, role="any") for s in ALL_SKILLS)


def _c(row: str, seed: str = _C26) -> Cite:
    return Cite(seed, _T, row)


_HOLD_AVOID = ("guessing a route for an ambiguous request: several routes fit, and a wrong one wastes more time "
               "than one question",)

ROWS = (
    # --- what counts as symptom evidence ---------------------------------------------------------------
    Row("CL-EVID-01", {"symptom": PROBLEM_SYMPTOMS},
        (Flag("symptom_evidence"),),
        "A named problem symptom (not learning, unstable, overfitting, slow, convergence, multi-task) is evidence "
        "to route on.",
        Cite(_C25, "Red flags checklist", "1. did I identify specific symptoms?"), salience=EVIDENCE_SALIENCE),
    Row("CL-EVID-02", {"loss_behavior": Present()},
        (Flag("symptom_evidence"),),
        "A described loss curve is the evidence that separates the routes (LR, optimizer, gradients, loss).",
        Cite(_C25, "Common rationalizations", "verify the root cause with the loss behaviour"),
        salience=EVIDENCE_SALIENCE),
    Row("CL-EVID-03", {"grad_norm_trend": Is("exploding", "vanishing", "spiky")},
        (Flag("symptom_evidence"),),
        "A measured gradient-norm pattern is evidence of a stability problem.",
        Cite(_C25, "Scenario: convergence issues", "gradient monitoring diagnoses first"),
        salience=EVIDENCE_SALIENCE),
    Row("CL-EVID-04", {"loss_scale_issue": True},
        (Flag("symptom_evidence"),),
        "A collapsing loss scale or underflowing low-precision gradients is an observed stability symptom.",
        Cite(_C26, "Symptom: training unstable", "keywords: FP8 underflow, loss scale"), salience=EVIDENCE_SALIENCE),
    # --- holds: one per kind of vague request ----------------------------------------------------------
    Row("CL-HOLD-01",
        {"vague_query": Is("fix_training", "improve_model", "not_working_well", "performs_poorly")},
        hold("the request is too vague to route: the clarifying question comes first"),
        "Fix/improve/not-working/performs-poorly requests each fan out to several routes; none is chosen until "
        "the clarifying answer names a symptom.",
        _c("never guess when ambiguous: ask once, route accurately", _C25),
        unless=(EVIDENCE,), salience=HOLD_SALIENCE, avoid=_HOLD_AVOID),
    Row("CL-HOLD-02", {"vague_query": "optimize_hyperparameters", "hparam_scope": Absent()},
        hold("which hyperparameters is not known yet: a broad search and a single LR question route differently"),
        "A tuning request routes to a search strategy or to one specialist depending on its scope.",
        _c("optimize hyperparameters: specific vs broad search", _C25),
        unless=(EVIDENCE,), salience=HOLD_SALIENCE, avoid=_HOLD_AVOID),
    Row("CL-HOLD-03", {"vague_query": "modern_optimizer", "switch_reason": Absent()},
        hold("the symptom behind the optimizer switch is not known yet"),
        "A modern optimizer is rarely the right first move; without the reason for leaving AdamW nothing can be "
        "recommended.",
        _c("should I use Lion / Sophia / Muon?"),
        unless=(EVIDENCE,), salience=HOLD_SALIENCE,
        avoid=("switching to a newer optimizer before naming the symptom it should fix",)),
    Row("CL-HOLD-04", {"vague_query": "preference_not_working", "preference_issue": Absent()},
        hold("method side or training dynamics is not known yet: they belong to different packs"),
        "A failing preference-tuning run is either a method problem (another pack) or a dynamics problem "
        "(this pack, jointly); routing before knowing which is a guess.",
        _c("DPO isn't working: method side or dynamics side"),
        unless=(EVIDENCE,), salience=HOLD_SALIENCE,
        avoid=("changing the optimizer of a preference-tuning run before checking the method side",)),
    # --- answers: fix my training ----------------------------------------------------------------------
    # (Q-CLARIFY-FIX sets the symptom itself; nothing to derive.)
    # --- answers: improve my model ---------------------------------------------------------------------
    Row("CL-ANS-IMPROVE-01", {"vague_query": "improve_model", "improve_target": "speed"},
        (Derive("symptom", "slow_training"),),
        "Improving training speed is the slow-training route (profile before optimizing).",
        _c("improve model: training speed", _C25), salience=ANSWER_SALIENCE),
    Row("CL-ANS-IMPROVE-02", {"vague_query": "improve_model", "improve_target": "generalization"},
        (Derive("symptom", "overfitting"),),
        "Improving generalization is the overfitting route.",
        _c("improve model: generalization", _C25), salience=ANSWER_SALIENCE),
    Row("CL-ANS-IMPROVE-03", {"vague_query": "improve_model", "improve_target": "accuracy"},
        (Flag("ask_poor_split"),),
        "Better accuracy can mean fitting the training set (underfitting) or generalizing (overfitting); "
        "which accuracy is poor decides.",
        _c("improve model: accuracy", _C25)),
    # --- answers: training not working well ------------------------------------------------------------
    Row("CL-ANS-WORKING-01", {"vague_query": "not_working_well", "not_working_aspect": "loss"},
        (Flag("verify_symptoms"),),
        "When the loss is what misbehaves, the loss curve is the next thing to ask for.",
        _c("training not working well: loss behaviour", _C25)),
    Row("CL-ANS-WORKING-02", {"vague_query": "not_working_well", "not_working_aspect": "accuracy"},
        (Flag("ask_poor_split"),),
        "When accuracy is what disappoints, train vs validation accuracy separates under- from overfitting.",
        _c("training not working well: accuracy", _C25)),
    Row("CL-ANS-WORKING-03", {"vague_query": "not_working_well", "not_working_aspect": "convergence_speed"},
        (Derive("symptom", "convergence"),),
        "Learning too slowly per step is a convergence problem: gradients, then LR, then the optimizer.",
        _c("training not working well: convergence speed", _C25), salience=ANSWER_SALIENCE),
    # --- answers: which accuracy is poor ---------------------------------------------------------------
    Row("CL-ANS-POOR-01", {"poor_split": Is("train", "both")},
        (Derive("symptom", "not_learning"),),
        "Poor training accuracy is underfitting: the model is not learning the training set.",
        _c("model performs poorly: training (or both) poor -> underfitting", _C25), salience=ANSWER_SALIENCE),
    Row("CL-ANS-POOR-02", {"poor_split": "val"},
        (Derive("symptom", "overfitting"),),
        "Good training but poor validation accuracy is overfitting.",
        _c("model performs poorly: validation poor -> overfitting", _C25), salience=ANSWER_SALIENCE),
    Row("CL-ANS-POOR-03", {"vague_query": "performs_poorly"},
        (Flag("ask_poor_split"),),
        "'Performs poorly' is settled by which accuracy is poor.",
        _c("model performs poorly: training or validation or both?", _C25)),
    # --- answers: optimize hyperparameters -------------------------------------------------------------
    Row("CL-ANS-HP-01", {"vague_query": "optimize_hyperparameters", "hparam_scope": "all"},
        (RouteTo("hyperparameter-tuning", "primary", "a broad search: strategy (random, Bayesian, PBT) before "
                 "running it"),
         RouteTo("experiment-tracking", "secondary", "a broad search needs its runs tracked and compared")),
        "Tuning everything is a search-strategy question; the search needs tracking to be comparable.",
        _c("optimize hyperparameters: all of them", _C25)),
    Row("CL-ANS-HP-02", {"vague_query": "optimize_hyperparameters", "hparam_scope": "learning_rate"},
        (RouteTo("learning-rate-scheduling", "primary", "the LR (and its warmup and schedule) is the one to tune "
                 "first"),
         RouteTo("optimization-algorithms", "secondary", "a sensible LR range depends on the optimizer")),
        "The LR has its own specialist; the optimizer sets its sensible range.",
        _c("optimize hyperparameters: specific ones like LR", _C25)),
    Row("CL-ANS-HP-03", {"vague_query": "optimize_hyperparameters", "hparam_scope": "specific"},
        (Derive("symptom", "direct_question"),),
        "A few specific hyperparameters are direct questions; the topic question then picks the specialist.",
        _c("optimize hyperparameters: specific ones", _C25), salience=ANSWER_SALIENCE),
    # --- answers: should I use Lion / Sophia / Muon? ---------------------------------------------------
    Row("CL-ANS-MODERN-01", {"switch_reason": "none"},
        (Find("Optimizer Choice", "info", "no symptom behind the switch: AdamW (with cosine and BF16) stays the "
              "default; read when the modern optimizer beats AdamW and when it does not", kind="note"),
         RouteTo("optimization-algorithms", "primary", "the 'when it beats AdamW / when not' tables",
                 section="modern optimizers")),
        "Being newer is not a reason to switch; the specialist's comparison tables are the answer.",
        _c("should I use Lion / Sophia / Muon? (modern optimizer is rarely the first move)"),
        fix=Fix("Keep AdamW with warmup and cosine decay in BF16; revisit only when a symptom appears.",
                "import torch\n"
                "opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95), weight_decay=0.1)\n"
                "warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=warmup_steps)\n"
                "decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total_steps - warmup_steps)\n"
                "sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[warmup_steps])"),
        avoid=("switching optimizer because it is newer or popular",)),
    Row("CL-ANS-MODERN-02", {"switch_reason": "memory"},
        (RouteTo("optimization-algorithms", "primary", "optimizer-state memory: 8-bit / paged AdamW, Lion's single "
                 "moment", section="memory-efficient optimizers"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "the memory math: what the optimizer state costs")),
        "Optimizer-state memory is a real reason to change optimizer variant; the memory sheet sizes the gain.",
        Cite(_C26, "Quick reference", "8-bit / paged optimizer: memory pressure, optimizer-state size")),
    Row("CL-ANS-MODERN-03", {"switch_reason": "instability"},
        (Derive("symptom", "unstable"),),
        "Instability with AdamW is diagnosed as instability (gradients first), not fixed by a new optimizer.",
        _c("what symptom is making you consider switching from AdamW? (instability)"), salience=ANSWER_SALIENCE),
    Row("CL-ANS-MODERN-04", {"switch_reason": "slow_convergence"},
        (Derive("symptom", "convergence"),),
        "Slow convergence goes through the convergence order: gradients, then LR, and only then the optimizer.",
        _c("what symptom is making you consider switching from AdamW? (slow convergence)"),
        salience=ANSWER_SALIENCE),
    Row("CL-ANS-MODERN-05", {"switch_reason": "large_batch"},
        (RouteTo("optimization-algorithms", "primary", "large-batch optimizers (layer-wise trust ratios such as "
                 "LAMB)"),
         RouteTo("batch-size-and-memory-tradeoffs", "secondary", "batch size vs convergence at scale")),
        "Very large batches are a documented case where a different optimizer family helps.",
        Cite("002", "Optimizers: LAMB", "large-batch pretraining where Adam diverges")),
    Row("CL-ANS-MODERN-06", {"switch_reason": "tuning_cost"},
        (RouteTo("optimization-algorithms", "primary", "LR-free or schedule-free optimizers (Prodigy, "
                 "Schedule-Free)", section="modern optimizers"),
         RouteTo("learning-rate-scheduling", "secondary", "what a schedule-free method replaces")),
        "Expensive LR tuning is the documented reason for LR-free and schedule-free optimizers.",
        Cite(_C26, "Direct questions", "which optimizer: Schedule-Free, Prodigy")),
    # --- answers: DPO isn't working --------------------------------------------------------------------
    Row("CL-ANS-DPO-00", {"vague_query": "preference_not_working"},
        (Derive("task", "preference_tuning"),),
        "A failing DPO/GRPO/SimPO run is a preference-tuning task.",
        _c("DPO isn't working"), salience=ANSWER_SALIENCE),
    Row("CL-ANS-DPO-01", {"preference_issue": "method_side"},
        (Cross("llm-specialist", "the preference method itself (beta, preference pairs, reference model, the "
               "choice of DPO vs GRPO vs SimPO) is task-driven and owned by the LLM pack",
               target="llm-finetuning-strategies.md"),),
        "Method-side problems of preference tuning belong wholly to the LLM pack.",
        _c("DPO isn't working: method-side issue -> cross-pack")),
    Row("CL-ANS-DPO-02", {"preference_issue": "dynamics_side"},
        (Cross("llm-specialist", "the preference method is checked there (beta, pairs, reference model); the "
               "training dynamics (clipping, LR, precision) stay here", joint=True,
               target="llm-finetuning-strategies.md"),
         RouteTo("gradient-management", "primary", "loss spikes or NaN in the preference run: gradients first"),
         RouteTo("learning-rate-scheduling", "secondary", "the LR and warmup of the preference run")),
        "Spiking or NaN losses in a preference run are training dynamics: here, jointly with the LLM pack.",
        _c("DPO isn't working: training-dynamics issue -> joint")),
)

QUESTIONS = (
    QuestionRow(
        "Q-CLARIFY-FIX", "symptom",
        "Which problem do you want fixed: not learning, unstable, overfitting, or too slow?",
        {"vague_query": "fix_training"}, rank=-20,
        why="'Fix my training' fits at least four different routes; naming the problem picks one.",
        cite=_c("fix my training", _C25), unless=(EVIDENCE,),
        choices=(("not_learning", "not learning: loss stuck or barely moving"),
                 ("unstable", "unstable: spikes, divergence, NaN/Inf"),
                 ("overfitting", "overfitting: train good, validation bad"),
                 ("slow_training", "too slow: low throughput or long epochs"))),
    QuestionRow(
        "Q-CLARIFY-IMPROVE", "improve_target",
        "What do you want to improve: training speed, accuracy, or generalization?",
        {"vague_query": "improve_model"}, rank=-20,
        why="Speed, accuracy and generalization are different optimization targets with different routes.",
        cite=_c("improve model", _C25), unless=(EVIDENCE,),
        choices=(("speed", "training speed"), ("accuracy", "accuracy (fit)"),
                 ("generalization", "generalization (validation vs training)"))),
    QuestionRow(
        "Q-CLARIFY-WORKING", "not_working_aspect",
        "What is not working: the loss behaviour, the accuracy, or the speed of convergence?",
        {"vague_query": "not_working_well"}, rank=-20,
        why="'Not working' needs a specific symptom before anything can be routed.",
        cite=_c("training not working well", _C25), unless=(EVIDENCE,),
        choices=(("loss", "the loss behaves badly"), ("accuracy", "accuracy is poor"),
                 ("convergence_speed", "it learns, but converges too slowly"))),
    QuestionRow(
        "Q-CLARIFY-HPARAMS", "hparam_scope",
        "Which hyperparameters: all of them, a few specific ones, or the learning rate?",
        {"vague_query": "optimize_hyperparameters"}, rank=-20,
        why="A broad search and a single-hyperparameter question go to different specialists.",
        cite=_c("optimize hyperparameters", _C25), unless=(EVIDENCE,),
        choices=(("all", "all of them (a broad search)"), ("specific", "a few specific ones"),
                 ("learning_rate", "the learning rate"))),
    QuestionRow(
        "Q-CLARIFY-POOR", "poor_split",
        "Is the training accuracy poor, the validation accuracy, or both?",
        {}, rank=-18, need=("flag:ask_poor_split",),
        why="Poor training accuracy is underfitting (not learning); poor validation only is overfitting.",
        cite=_c("model performs poorly", _C25), unless=(EVIDENCE,),
        choices=(("train", "training accuracy is poor"), ("val", "only validation accuracy is poor"),
                 ("both", "both are poor"))),
    QuestionRow(
        "Q-CLARIFY-MODERN", "switch_reason",
        "What symptom makes you consider switching from AdamW?",
        {"vague_query": "modern_optimizer"}, rank=-20,
        why="A modern optimizer is rarely the right first move; the symptom behind the switch decides the route.",
        cite=_c("should I use Lion / Sophia / Muon?"), unless=(EVIDENCE,),
        choices=(("none", "nothing specific: it is newer / others use it"),
                 ("memory", "optimizer-state memory is too large"),
                 ("instability", "loss spikes or NaN with AdamW"),
                 ("slow_convergence", "it converges too slowly"),
                 ("large_batch", "training with very large batches"),
                 ("tuning_cost", "tuning the LR costs too much"))),
    QuestionRow(
        "Q-CLARIFY-DPO", "preference_issue",
        "Is it a method-side problem (beta, preference pairs, reference model) or a training-dynamics problem "
        "(loss spiking, NaN, divergence)?",
        {"vague_query": "preference_not_working"}, rank=-20,
        why="Method-side problems belong to the LLM pack; dynamics problems are routed here, jointly with it.",
        cite=_c("DPO isn't working"), unless=(EVIDENCE,),
        choices=(("method_side", "method side: beta, pairs, reference model, method choice"),
                 ("dynamics_side", "training dynamics: spikes, NaN, divergence"))),
)

_KW = Cite(_C26, _T, "vague query column")
_HP = r"(?:hyper-?param\w*|hparams?)"
"""Hyperparameters named, spelled out or short."""
_TUNE = r"(?:optimi[sz]e|optimi[sz]ing|optimi[sz]ation|tune|tuning|search|searching|sweep|sweeping)"
"""Tuning said in the present or as a noun (a search asked for; "I tuned all of them" is one done)."""
_LR = r"(?:the\s+|my\s+)?(?:learning[\s-]rate|lr)\b"
_MODERN = ("lion", "sophia", "muon", "shampoo", "ademamix", "prodigy")
_PREF_RUN = r"(?:dpo|grpo|simpo|orpo|kto|ipo|preference[- ](?:tuning|optimi[sz]ation))"
"""A preference-tuning method or run named."""

KEYWORDS = (
    Keyword(r"fix (?:my|our|the|this) (?:training|model|run)", {"vague_query": "fix_training"}, _KW),
    Keyword(r"improve (?:my|our|the|this) (?:model|training|results?)", {"vague_query": "improve_model"}, _KW),
    # the improvement wished for named as speed ("how do I make my training faster?", "tips to speed up training",
    # "is there a way to make my fine-tuning quicker", "want to cut my training time in half"): the request to
    # improve, with its target said (a run said to be faster or slower is no wish: "with bf16 it trains faster")
    Keyword(r"(?:how\s+(?:do\s+i|to|can\s+i|could\s+i|should\s+i)|ways?\s+to|tips?\s+(?:for|to|on)|tricks?\s+"
            r"(?:for|to)|want\s+to|is\s+there\s+a\s+way\s+to|what\s+can\s+i\s+do\s+to|help\s+me)\s+"
            # (the data loader or inference made faster is another part's speed: "how to make the dataloader faster")
            r"(?![^.!?\n]{0,40}?\b(?:data\s*loader|dataloader|loader|data\s+loading|inference|preprocessing)\b)"
            r"(?:\w+\s+){0,2}?(?:speed\s+(?:it\s+|this\s+|things\s+)?up|make\s+(?:[\w-]+\s+){0,3}?(?:faster|quicker)|train\s+(?:\w+\s+)?faster|"
            r"reduce\s+(?:the\s+|my\s+)?(?:training\s+time|time\s+per\s+(?:epoch|step))|cut\s+(?:\w+\s+)?"
            r"training\s+time)|tips\s+for\s+faster\s+training|(?:any\s+)?tricks\s+to\s+speed\s+up",
            {"vague_query": "improve_model", "improve_target": "speed"}, _KW),
    Keyword(r"(?:training|model|it|run)(?: is|'s)? not (?:really |quite )?working(?: well| nicely)?|(?:training|model|"
            r"run) (?:isn't|doesn't|does not) (?:really )?work(?:ing)?(?: well)?|"
            # the same said of something unnamed in the run, or of its progress ("something's not working with my
            # training", "training not going great", "not working nicely")
            r"something(?:'s| is) not working|(?:training|run) (?:is )?not going (?:great|well)|"
            r"not working (?:well|nicely)", {"vague_query": "not_working_well"}, _KW, negatable=False),
    # what is not working, when it is the pace of convergence ("it converges way too slowly", "takes forever to
    # converge", "the convergence speed is terrible"): the clarifying answer, said up front
    Keyword(r"converg\w*\s+(?:\w+\s+){0,2}?(?:too|very|so|super|much|really)\s+(?:\w+\s+)?slow\w*|"
            r"converg\w*\s+so\s+slow|(?:take|takes|taking)\s+(?:forever|ages|too\s+long|way\s+too\s+long)\s+to\s+"
            r"converge|convergence(?:\s+speed)?\s+(?:is\s+)?(?:super\s+|very\s+|too\s+|so\s+|really\s+)?"
            r"(?:slow|terrible|awful)|convergence\s+takes\s+(?:way\s+)?too\s+(?:long|many)",
            {"not_working_aspect": "convergence_speed"}, _KW),
    Keyword(r"(?:optimi[sz]e|tune) (?:my |our |the )?hyper-?parameters", {"vague_query": "optimize_hyperparameters"},
            _KW),
    # the tuning request with its scope said: every hyperparameter at once ("tune all my hparams together", "search
    # the whole set of hyperparameters", "hyperparameter optimization over everything") ...
    Keyword(rf"{_TUNE}\s+(?:\w+\s+){{0,3}}?(?:all|every|each|the\s+whole\s+set\s+of|the\s+full\s+set\s+of)\s+"
            rf"(?:of\s+)?(?:the\s+|my\s+|our\s+|its\s+)?(?:\w+\s+)?{_HP}|"
            rf"{_HP}\s+{_TUNE}\b[^.!?\n]{{0,40}}?\b(?:all\s+of\s+them|over\s+everything|in\s+one\s+go|all\s+at\s+once)",
            {"vague_query": "optimize_hyperparameters", "hparam_scope": "all"}, _KW, priority=1),
    # ... or the learning rate alone ("tune my hyperparameters, but only the lr", "the only hyperparameter I want to
    # tune is the learning rate", "optimize the lr and nothing else"; "every hyperparameter, not just the lr" is no
    # such limit)
    Keyword(rf"\b{_TUNE}\b[^.!?\n]{{0,60}}?(?<!not\s)\b(?:only|just|specifically(?:\s+only)?)\s+{_LR}|"
            rf"(?<!not\s)\b(?:only|just)\s+(?:care\s+about\s+|want\s+to\s+)?{_TUNE}\s+{_LR}|"
            rf"\bthe\s+only\s+{_HP}\s+(?:\w+\s+){{0,4}}?is\s+{_LR}|"
            rf"\b{_TUNE}\b[^.!?\n]{{0,60}}?{_LR}\s*\(?(?:and\s+nothing\s+else|alone)\b",
            {"vague_query": "optimize_hyperparameters", "hparam_scope": "learning_rate"}, _KW, priority=1),
    Keyword(r"performs? (?:poorly|badly|bad)|poor (?:model )?performance|(?:results|accuracy) (?:are|is) "
            r"(?:bad|poor)",
            {"vague_query": "performs_poorly"}, _KW),
    *(Keyword(rf"should (?:i|we) (?:use|try|switch to|move to|go with) {name}",
              {"vague_query": "modern_optimizer", "considering": name}, _KW, priority=1) for name in _MODERN),
    Keyword(r"should (?:i|we) (?:use|try|switch to) schedule[- ]?free",
            {"vague_query": "modern_optimizer", "considering": "schedule_free"}, _KW, priority=1),
    Keyword(r"(?:dpo|grpo|simpo|orpo|kto|ipo|preference tuning)(?: run| training)? "
            r"(?:isn't|is not|not|doesn't|does not) work(?:ing)?",
            {"vague_query": "preference_not_working", "task": "preference_tuning"}, _KW, negatable=False),
    # the same failure said by what the run does not give ("DPO fine-tune doesn't give a better model", "DPO isn't
    # doing anything useful", "the preference optimization run fails to improve the chat model", "results are bad",
    # "same or worse", "can't get DPO to work"): a preference run that does not help, no symptom named
    Keyword(rf"{_PREF_RUN}\b[^.!?\n]{{0,60}}?\b(?:(?:doesn't|does not|didn't|did not|isn't|is not|fails? to|failed to)"
            r"\s+(?:\w+\s+)?(?:give|improve|help|do\s+anything|doing\s+anything)|(?:results?|outputs?)\s+(?:are|is)\s+"
            r"(?:bad|poor|worse)|no\s+improvement|(?:the\s+)?same\s+or\s+worse)|"
            rf"(?:can't|cannot|can not|couldn't)\s+get\s+{_PREF_RUN}\s+to\s+work",
            {"vague_query": "preference_not_working", "task": "preference_tuning"}, _KW, priority=1),
    Keyword(rf"{OTHER_TASK_AHEAD}(?:dpo|grpo|simpo|orpo|preference[- ]tuning)", {"task": "preference_tuning"},
            Cite(_C26, "Modern landscape routing", "DPO / GRPO / SimPO ... (cross-pack)")),
    Keyword(r"because (?:it'?s|it is) (?:newer|new|modern|state[- ]of[- ]the[- ]art|sota|popular)|everyone (?:uses|is "
            r"using)", {"switch_reason": "none"},
            Cite(_C26, "Common routing mistakes", "use Lion because it's modern")),
)
