"""Pressure resistance: acknowledge the pressure, ask the one fastest question, never route on an attribution.

Time, authority, self-diagnosis, expert-user and quick-question pressure are read from the complaint
(``KEYWORDS``) or given as the ``pressure`` observation. Each is acknowledged by a ``pressure_acknowledged``
flag whose detail the report shows as a note. A user's attribution (``self_diagnosis``, an optimizer they are
``considering``, what a senior or PM wants) is a hypothesis: while there is no symptom evidence the ``PR-HOLD``
rows guard every skill and ask for the loss behaviour (``Q-VERIFY-LOSS``), the question that separates LR,
optimizer, gradient and loss-function causes fastest.

``INVARIANTS`` lists the rationalizations table and the red-flag checklist as engine invariants; each names
the rules that enforce it and the property test in ``tests/test_judgement.py`` that checks it.
"""

from __future__ import annotations

from knowledge.clarification import EVIDENCE, HOLD_SALIENCE, hold
from knowledge.conditions import OptimizerSwitch
from knowledge.keywords import NOT_DONE_EFFECT
from knowledge.questions import LOSS_BEHAVIOR_CHOICES
from knowledge.record import dataclass
from knowledge.schema import Absent, Cite, Contains, Flag, Is, Keyword, Present, QuestionRow, Row

_P25 = "Pressure resistance"
_P3 = "Pressure resistance (diagnostician)"


# (the class is knowledge.conditions': the stored knowledge names it, and loading that imports no family)
OPTIMIZER_SWITCH = OptimizerSwitch()

_ATTRIBUTION_AVOID = ("acting on the suggested cause before the symptoms confirm it",)
_HOLD_REASON = "a user's attribution is a hypothesis, not evidence: the loss behaviour is verified first"

ROWS = (
    # --- acknowledge ---------------------------------------------------------------------------------
    Row("PR-TIME-01", {"pressure": "time"},
        (Flag("pressure_acknowledged", "Time is short, so one quick question comes first: it takes seconds, a "
              "wrong guess costs a failed demo or a longer outage."),),
        "Under time pressure a fast systematic diagnosis beats trial and error; we say so and ask one question.",
        Cite("000", _P25, "demo tomorrow / production training failing: fast clarification first"),
        avoid=("untested quick fixes under time pressure",)),
    Row("PR-AUTH-01", {"pressure": "authority"},
        (Flag("pressure_acknowledged", "The suggestion from your senior or PM is taken as a hypothesis: the "
              "symptoms are checked so it can be applied effectively, or shown not to be the cause."),),
        "Authority protocol: acknowledge, verify the symptoms, route on evidence rather than opinion.",
        Cite("000", _P25, "senior said use SGD / PM wants optimizer change"),
        avoid=("changing the optimizer because someone senior said so, without diagnosis",)),
    Row("PR-SELF-01", {"pressure": "self_diagnosis"},
        (Flag("pressure_acknowledged", "Your diagnosis is a hypothesis worth checking: the loss behaviour shows "
              "whether it holds."),),
        "User attribution is a hypothesis, not a diagnosis; it is verified with symptoms.",
        Cite("000", _P25, "I think it's the optimizer / obviously need to clip gradients"),
        avoid=_ATTRIBUTION_AVOID),
    Row("PR-EXPERT-01", {"pressure": "expert_user"},
        (Flag("pressure_acknowledged", "Routing follows the symptoms, not experience: specialist sheets help "
              "experts too, and they are quick."),),
        "Expert users benefit from specialist routing too; sophistication does not replace symptoms.",
        Cite("000", "Common rationalizations", "expert user doesn't need routing"),
        avoid=("skipping diagnosis because the user is experienced",)),
    Row("PR-QUICK-01", {"pressure": "quick_question"},
        (Flag("pressure_acknowledged", "A quick question still deserves the right answer; the specialist has "
              "quick diagnostics."),),
        "Quick questions are routed like any other; the specialist answers fast.",
        Cite("000", "Common rationalizations", "just a quick question"),
        avoid=("a direct answer without routing",)),
    # --- hold: an attribution alone never routes -----------------------------------------------------
    Row("PR-HOLD-01", {"pressure": Is("authority", "self_diagnosis")},
        (*hold(_HOLD_REASON), Flag("verify_symptoms")),
        "Authority or self-diagnosis pressure without symptoms: verify the symptoms before any route.",
        Cite("000", _P25, "verification protocol: attribution is a hypothesis"),
        unless=(EVIDENCE,), salience=HOLD_SALIENCE, avoid=_ATTRIBUTION_AVOID),
    Row("PR-HOLD-02", {"self_diagnosis": Present()},
        (*hold(_HOLD_REASON), Flag("verify_symptoms")),
        "A cause the user names is not evidence; without a symptom nothing is routed on it.",
        Cite("000", "Red flags", "accept user's self-diagnosis without verification"),
        unless=(EVIDENCE,), salience=HOLD_SALIENCE, avoid=_ATTRIBUTION_AVOID),
    Row("PR-HOLD-03", {"considering": OPTIMIZER_SWITCH, "switch_reason": Absent()},
        (*hold(_HOLD_REASON), Flag("verify_symptoms")),
        "A suggested optimizer change is verified against the loss behaviour before anything is routed.",
        Cite("000", "Common rationalizations", "user suggested optimizer change"),
        unless=(EVIDENCE,), salience=HOLD_SALIENCE, avoid=("switching optimizer before checking LR and gradients",)),
    # --- the one fast question -------------------------------------------------------------------------
    Row("PR-TIME-02", {"pressure": "time", "question_topic": Absent()},
        (Flag("verify_symptoms"),),
        "Rushed with no symptom named: the quickest discriminating question is whether the loss is flat, "
        "oscillating or NaN.",
        Cite("000", "Common rationalizations", "user is rushed: ask ONE quick diagnostic question"),
        unless=(EVIDENCE,)),
    Row("PR-QUICK-02", {"pressure": Is("quick_question", "time"), "question_topic": "optimizer"},
        (Flag("verify_symptoms"),),
        "'Just tell me which optimizer': the optimizer is rarely the issue, so the loss behaviour is asked first "
        "(the route to the optimizer specialist stands).",
        Cite("003", _P3, "just tell me which optimizer: what's your loss behaviour?")),
    Row("PR-RANDOM-01", {"considering": Contains("random search", "randomly", "random sweep", "sweep")},
        (Flag("pressure_acknowledged", "A random search is not a diagnosis: the symptom comes first, then a "
              "systematic change."), Flag("verify_symptoms")),
        "'I need to tune LR randomly': ask for the symptom and diagnose systematically.",
        Cite("003", _P3, "I need to tune LR randomly: what symptom are you seeing?"),
        unless=(EVIDENCE,), avoid=("trial-and-error tuning before the symptom is known",)),
)

QUESTIONS = (
    QuestionRow(
        "Q-VERIFY-LOSS", "loss_behavior",
        "Quick check first: how does the training loss behave (flat, slowly decreasing, oscillating, spiking, "
        "NaN...)?",
        {}, rank=-10, need=("flag:verify_symptoms",), unless=(EVIDENCE,),
        why="The loss curve is the fastest way to confirm or rule out a suspected cause: it separates LR, "
            "optimizer, gradient and loss-function problems in one answer.",
        cite=Cite("000", "Common rationalizations", "what loss behaviour are you seeing? (verify root cause)"),
        choices=LOSS_BEHAVIOR_CHOICES),
)

_KT = Cite("000", _P25, "time/emergency pressure")
_KA = Cite("000", _P25, "authority/hierarchy pressure")
_KS = Cite("000", _P25, "user self-diagnosis pressure")
_KM = Cite("003", "Common misdiagnoses", "user says column")
_OPT_NAMES = ("sgd", "adamw", "adam", "lamb", "lion", "sophia", "muon", "shampoo", "ademamix", "prodigy", "rmsprop")

KEYWORDS = (
    # time
    Keyword(r"demo (?:is )?(?:tomorrow|today|tonight|in an hour)|deadline|asap|urgent(?:ly)?|in a (?:hurry|rush)|"
            r"no time|quick fix|production (?:training|run|job) (?:is )?(?:failing|down|broken)|"
            # a due date said by the event and how soon it comes ("I have a demo in 2 hours", "submission is
            # tonight", "the paper is due tomorrow"), or time said to run out
            r"(?:demo|submission|presentation|paper|report|thesis|defen[cs]e) (?:is )?(?:due )?(?:tomorrow|today|"
            r"tonight|this (?:evening|afternoon|morning)|in (?:an?|\d+|one|two|three|a few) (?:hours?|minutes?|days?))"
            r"(?! (?:went|was|is over|passed))|"
            r"(?:due|ends?) (?:tomorrow|tonight|today)|running out of time|out of time",
            {"pressure": "time"}, _KT, priority=1),
    # authority
    Keyword(r"(?:senior|lead|boss|manager|pm|product manager|advisor|supervisor|professor|team ?lead|pi)"
            r"(?: engineer)? (?:said|says|told (?:me|us)|wants|insists|asked|suggested)|"
            # the same hierarchy said the other way round ("I was told by my supervisor", "according to my lead")
            r"(?:told|instructed|asked|ordered) by (?:my|our|the) (?:senior|lead|boss|manager|advisor|supervisor|"
            r"professor|team ?lead|pi)\b|according to (?:my|our) (?:senior|lead|boss|manager|advisor|supervisor|"
            r"professor|team ?lead|pi)\b",
            {"pressure": "authority"}, _KA, priority=3),
    Keyword(r"(?:optimi[sz]er change|change (?:the )?optimi[sz]er|switch(?:ing)? optimi[sz]ers?|(?:a )?different "
            r"optimi[sz]er)" + NOT_DONE_EFFECT, {"considering": "optimizer change"}, _KA),
    # ("I use adam" is the run's optimizer: only a use someone asks for or weighs is a switch)
    *(Keyword(rf"(?:(?:to|should|must|just|says?|said|wants?|would|could) use|switch(?:ing)? to|try(?:ing)?|"
              rf"move to|go with|change to) {name}" + NOT_DONE_EFFECT,
              {"considering": name}, _KA, priority=1) for name in _OPT_NAMES),
    # self-diagnosis
    Keyword(r"(?:i (?:think|guess|bet|suspect)|i(?:'m| am) (?:sure|certain|convinced)) (?:that )?(?:it'?s|it is) the "
            r"optimi[sz]er|the optimi[sz]er is "
            r"(?:the (?:problem|issue|culprit)|wrong|bad)|blame the optimi[sz]er|need (?:a )?(?:different|another|"
            r"better) optimi[sz]er",
            {"pressure": "self_diagnosis", "self_diagnosis": "optimizer"}, _KS, priority=2),
    Keyword(r"obviously (?:i |we )?(?:just )?need (?:to )?clip(?:ping)?(?: the)? gradients?|obviously (?:a )?"
            r"gradient (?:clipping|problem|issue)|(?:just|obviously) (?:need to )?clip (?:the )?gradients?",
            {"pressure": "self_diagnosis", "self_diagnosis": "gradients", "considering": "gradient clipping"},
            _KS, priority=2),
    Keyword(r"(?:i (?:think|guess|suspect)|i(?:'m| am) (?:sure|certain)) (?:that )?(?:it'?s|it is) the "
            r"(?:learning rate|lr)",
            {"pressure": "self_diagnosis", "self_diagnosis": "learning rate"}, _KS, priority=2),
    Keyword(r"batch(?: size)? (?:is )?too small|need (?:a )?(?:bigger|larger) batch",
            {"self_diagnosis": "batch size too small"}, _KM),
    Keyword(r"model (?:is )?too small|need (?:a )?(?:bigger|larger) model|more (?:parameters|capacity)",
            {"self_diagnosis": "model too small", "considering": "bigger model"}, _KM),
    # (a wish or a plan: "worse after more epochs", "with more epochs it overfits" tell what happened, not a wish)
    # ("when I train for more epochs it gets worse": a condition of what happened, no plan)
    Keyword(r"(?:need|needs|needed|should|could|would|will|must|want|wants|try|trying|just|maybe|perhaps|"
            r"(?<!when i train )(?<!when we train )(?<!if i train )(?<!if we train )(?<!whenever i train )"
            r"(?<!when i trained )(?<!if i trained )"
            r"(?:to|for|add|adding|run|running)(?: it| the model| them)?)\s+(?:\w+\s+){0,2}?(?:more|additional|extra) "
            r"epochs|train (?:it |for )?longer|more epochs\s*\?",
            {"considering": "more epochs"}, _KM),
    Keyword(r"random(?:ly)? (?:search|tun\w+|sweep)|tune (?:the )?(?:lr|learning rate) randomly|hyper-?parameter sweep",
            {"considering": "random search"}, _KM),
    # expert user / quick question
    Keyword(r"i(?:'m| am) an? (?:expert|senior|experienced)|i know what i'?m doing|(?:years|decades?) of experience|"
            r"i'?ve trained (?:many|hundreds|lots|dozens)", {"pressure": "expert_user"},
            Cite("000", "Common rationalizations", "expert user"), priority=0),
    Keyword(r"quick question|just tell me|simple question|just a quick|(?:quick|short|fast) q\b|fast question|"
            r"just quickly|a quick one(?![-\w])", {"pressure": "quick_question"},
            Cite("000", "Common rationalizations", "just a quick question"), priority=0),
)


@dataclass(frozen=True)
class Invariant:
    """A rationalization or red flag turned into a property of the engine.

    Attributes:
        id: Stable id.
        statement: What always holds, in our words.
        cite: The seed row it encodes.
        rules: Rule ids that enforce it.
        test: Name of the property test in ``tests/test_judgement.py``.
    """

    id: str
    statement: str
    cite: Cite
    rules: tuple[str, ...]
    test: str


_R = "Common rationalizations"
_F = "Red flags checklist"

INVARIANTS = (
    Invariant("INV-01", "A self-diagnosis, a suggested optimizer, or authority alone never produces a route.",
              Cite("000", _R, "user suggested optimizer change"), ("PR-HOLD-01", "PR-HOLD-02", "PR-HOLD-03"),
              "test_no_route_from_attribution_alone"),
    Invariant("INV-02", "At most one question is pending after any run.",
              Cite("000", "Clarification protocol", "ask ONE diagnostic question"), (),
              "test_at_most_one_question"),
    Invariant("INV-03", "An ambiguous request without an answer or evidence yields a question and no route.",
              Cite("000", _F, "1. did I identify specific symptoms? If no, ask"),
              ("CL-HOLD-01", "CL-HOLD-02", "CL-HOLD-03", "CL-HOLD-04"), "test_ambiguous_request_asks"),
    Invariant("INV-04", "Pressure of any kind never removes a pending question.",
              Cite("000", _R, "user is rushed, skip diagnostic questions / time pressure means guess"),
              ("PR-TIME-01", "PR-AUTH-01", "PR-SELF-01", "PR-EXPERT-01", "PR-QUICK-01"),
              "test_pressure_never_removes_question"),
    Invariant("INV-05", "Expert-user and quick-question pressure never remove a route.",
              Cite("000", _R, "expert user doesn't need routing / just a quick question"),
              ("PR-EXPERT-01", "PR-QUICK-01"), "test_expert_and_quick_keep_routes"),
    Invariant("INV-06", "Pressure is always acknowledged with a note.",
              Cite("000", _P25, "acknowledge, verify, route on evidence"),
              ("PR-TIME-01", "PR-AUTH-01", "PR-SELF-01", "PR-EXPERT-01", "PR-QUICK-01"),
              "test_pressure_is_acknowledged"),
    Invariant("INV-07", "Another pack's concern is never answered as ours: an exclusive boundary asks nothing.",
              Cite("000", _F, "5. is this training-optimization or another pack?"), ("XB-CONCERN-01",),
              "test_exclusive_boundary_never_asks"),
)
