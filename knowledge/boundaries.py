"""Cross-pack boundaries: every "when not to use this pack" row of both editions, from symptoms and error texts.

An exclusive boundary (``joint=False``) means another pack owns the problem: no question of ours is asked
(the engine's question rules require no exclusive boundary) and, with no route, the status is
``out_of_scope``. A joint boundary keeps our routes: we make the strategy call, the other pack handles its
API or method. Triggers are the ``concern`` read from the complaint, a ``question_topic``, the ``task``, and
real error messages (``Contains`` on ``error_text``).

``XB-MIXED-01`` (a hand-written join) turns an exclusive boundary joint when the complaint also carries a
training symptom of ours: the error goes there, the symptom stays here.
"""

from __future__ import annotations

from typing import Any

from expert._experta import AS, Fact
from expert.engine import hand_rule
from expert.facts import Boundary, Flag
from knowledge.schema import Cite, Contains, Cross, Is, Keyword, RouteTo, Row

_T = "When not to use the training-optimization pack"
_PT = "pytorch-engineering"
_PROD = "ml-production"
_LLM = "llm-specialist"

OOM_ERRORS = Contains("cuda out of memory", "outofmemoryerror", "cuda error: out of memory",
                      "cublas_status_alloc_failed", "hip out of memory", "mps backend out of memory")
DDP_ERRORS = Contains("expected to have finished reduction in the prior iteration", "find_unused_parameters",
                      "processgroupnccl", "nccl error", "ncclinternalerror", "collective operation timeout",
                      "distbackenderror", "flatparameter", "fullyshardeddataparallel", "distnetworkerror")
COMPILE_ERRORS = Contains("torch._dynamo", "backendcompilerfailed", "torch._inductor", "internaltorchdynamoerror",
                          "torch.compile", "dynamo.exc", "inductor error")
AMP_ERRORS = Contains("unscale_() has already been called", "attempting to unscale fp16 gradients",
                      "gradscaler", "torch.amp", "autocast", "no inf checks were recorded")
LOAD_ERRORS = Contains("error(s) in loading state_dict", "missing key(s) in state_dict", "unexpected key(s) in "
                       "state_dict", "size mismatch for", "unpicklingerror", "weights only load failed",
                       "pytorchstreamreader failed")


def _c(row: str, seed: str = "001") -> Cite:
    return Cite(seed, _T, row)


def _x(rid: str, when: dict[str, Any], pack: str, why: str, target: str, cite: Cite, avoid: str) -> Row:
    """One exclusive boundary row."""
    return Row(rid, when, (Cross(pack, why, target=target),),
               f"This belongs to {pack}: {why}.", cite, avoid=(avoid,))


_OOM = ("an out-of-memory error is an infrastructure problem (memory profiling, activation memory, "
        "fragmentation), not a training algorithm", "tensor-operations-and-memory")
_DDP = ("a DDP/FSDP failure is distributed set-up and API, not a hyperparameter or strategy choice",
        "distributed-training-strategies")
_COMPILE = ("a torch.compile / dynamo / inductor error is a compiler and API issue", "torch-compile")
_AMP = ("the torch.amp / GradScaler API is PyTorch's; when to use FP8 or BF16 is decided here",
        "mixed-precision-and-optimization")
_LOAD = ("a checkpoint that does not load is a serialization / state_dict issue", "checkpointing")

ROWS = (
    # --- from the concern read in the complaint --------------------------------------------------------
    _x("XB-CONCERN-01", {"concern": "cuda_oom"}, _PT, *_OOM, _c("CUDA out of memory", "000"),
       "tuning the optimizer or LR to make an OOM go away"),
    _x("XB-CONCERN-02", {"concern": "distributed_api"}, _PT, *_DDP, _c("DDP / FSDP not working (API failures)"),
       "changing hyperparameters to fix a distributed set-up error"),
    _x("XB-CONCERN-03", {"concern": "compile_error"}, _PT, *_COMPILE, _c("torch.compile errors"),
       "treating a compiler error as a training-dynamics problem"),
    _x("XB-CONCERN-04", {"concern": "amp_api"}, _PT, *_AMP, _c("torch.amp / GradScaler API"),
       "debugging the AMP API with training-optimization advice"),
    _x("XB-CONCERN-05", {"concern": "architecture_choice"}, "neural-architectures",
       "the choice of architecture precedes training and is made by the architecture pack", "",
       _c("which architecture to use", "000"), "picking an architecture from training-optimization advice"),
    _x("XB-CONCERN-06", {"concern": "model_wont_load"}, _PT, *_LOAD, _c("model won't load", "000"),
       "retraining to work around a loading error"),
    _x("XB-CONCERN-07", {"concern": "inference_speed"}, _PROD,
       "inference speed is a production optimization (serving, quantization, batching), not training",
       "inference-optimization", _c("inference too slow", "000"), "applying training-speed advice to inference"),
    _x("XB-CONCERN-08", {"concern": "deployment"}, _PROD, "deploying a model is a production concern",
       "deployment", _c("how to deploy model", "000"), "treating deployment as a training question"),
    _x("XB-CONCERN-09", {"concern": "model_registry"}, _PROD,
       "a long-lived model registry and lineage are the artifact lifecycle after training; in-flight tracking "
       "stays here", "experiment-tracking-and-versioning", _c("production model registry / lineage"),
       "building a production registry out of in-flight experiment tracking"),
    _x("XB-CONCERN-10", {"concern": "rl_exploration"}, "deep-rl",
       "exploration is an RL-specific training concern (check the environment and the reward first)", "",
       _c("RL exploration issues", "000"), "tuning the optimizer to fix RL exploration"),
    _x("XB-CONCERN-11", {"concern": "preference_method"}, _LLM,
       "the preference-tuning method (DPO, GRPO, SimPO, ORPO, KTO, IPO) is chosen from the task by the LLM pack",
       "llm-finetuning-strategies.md", _c("DPO / GRPO / SimPO method choice"),
       "choosing a preference method from training-optimization advice"),
    _x("XB-CONCERN-12", {"concern": "rlhf"}, _LLM, "RLHF for LLMs is an LLM-specific technique",
       "llm-finetuning-strategies.md", _c("RLHF for LLM"), "treating RLHF as a generic training problem"),
    # --- from real error messages ----------------------------------------------------------------------
    _x("XB-ERR-01", {"error_text": OOM_ERRORS}, _PT, *_OOM, _c("CUDA out of memory (error text)", "000"),
       "tuning the optimizer or LR to make an OOM go away"),
    _x("XB-ERR-02", {"error_text": DDP_ERRORS}, _PT, *_DDP, _c("DDP / FSDP not working (error text)"),
       "changing hyperparameters to fix a distributed set-up error"),
    _x("XB-ERR-03", {"error_text": COMPILE_ERRORS}, _PT, *_COMPILE, _c("torch.compile errors (error text)"),
       "treating a compiler error as a training-dynamics problem"),
    _x("XB-ERR-04", {"error_text": AMP_ERRORS}, _PT, *_AMP, _c("torch.amp / GradScaler API (error text)"),
       "debugging the AMP API with training-optimization advice"),
    _x("XB-ERR-05", {"error_text": LOAD_ERRORS}, _PT, *_LOAD, _c("model won't load (error text)", "000"),
       "retraining to work around a loading error"),
    # --- from a direct question's topic and the task (the preference-method topic is RT-DQ-13's) ----------
    _x("XB-TOPIC-01", {"question_topic": "architecture"}, "neural-architectures",
       "the choice of architecture precedes training and is made by the architecture pack", "",
       _c("which architecture to use (question topic)", "000"),
       "picking an architecture from training-optimization advice"),
    _x("XB-TOPIC-02", {"question_topic": "deployment"}, _PROD, "deploying a model is a production concern",
       "deployment", _c("how to deploy model (question topic)", "000"),
       "treating deployment as a training question"),
    _x("XB-TASK-01", {"task": "rl"}, "deep-rl",
       "RL-specific training (policy algorithms, reward, exploration) is the RL pack's; check the environment and "
       "the reward before the optimizer", "", Cite("003", "Scope boundaries", "RL training issues: defer to deep-rl"),
       "tuning generic hyperparameters before checking the RL environment and reward"),
    # --- joint: preference-tuning instability ----------------------------------------------------------
    Row("XB-JOINT-01", {"task": "preference_tuning", "symptom": Is("unstable", "not_learning", "convergence")},
        (Cross(_LLM, "a preference-tuning run in trouble is checked on the method side there (beta, reference model, "
               "pairs) while its training dynamics are handled here", joint=True,
               target="llm-finetuning-strategies.md"),
         RouteTo("gradient-management", "primary", "preference-run instability: gradients first"),
         RouteTo("learning-rate-scheduling", "secondary", "the LR and warmup of the preference run")),
        "DPO instability is joint: the preference method there, the dynamics (gradients, LR) here.",
        _c("DPO training unstable: llm-specialist jointly with gradient-management + learning-rate-scheduling"),
        avoid=("assuming the optimizer alone fixes a preference-tuning instability",)),
)


class MixedBoundaryRules:
    """An exclusive boundary becomes joint when the complaint also describes a training symptom of ours."""

    @hand_rule("XB-MIXED-01",
               Cite("001", "Cross-pack boundaries (bidirectional)", "route deliberately when a question spans packs"),
               "An error another pack owns plus a training symptom we own is a joint case: the error goes there, "
               "the symptom is still diagnosed and routed here (our questions stay open).",
               AS.boundary << Boundary(joint=False), Flag(name="symptom_evidence"), salience=95)
    def mixed(self, boundary: Fact) -> None:
        """Re-declare the exclusive boundary as joint."""
        d = {k: v for k, v in boundary.as_dict().items() if not str(k).startswith("__")}
        self.retract(boundary)
        d["joint"] = True
        d["why"] = f"{d['why']}; the training symptom described alongside stays here"
        self.declare(Boundary(**d))


MIXINS = (MixedBoundaryRules,)

_KC = Cite("001", _T, "symptom column")
_KE = Cite("001", _T, "real error messages of each row")

KEYWORDS = (
    # concerns described in words
    Keyword(r"out of memory|\boom\b|oom error|ran out of (?:gpu )?memory", {"concern": "cuda_oom"}, _KC),
    Keyword(r"(?:ddp|fsdp|distributed(?: training)?|deepspeed) (?:is )?(?:not working|doesn'?t work|hangs?|hanging|"
            r"crash(?:es|ing)?|fails?|failing|errors?)", {"concern": "distributed_api"}, _KC, negatable=False),
    Keyword(r"torch\.compile (?:errors?|fails?|failing|crash(?:es)?|breaks?)|(?:error|fails?) (?:in|with) "
            r"torch\.compile", {"concern": "compile_error"}, _KC, negatable=False),
    Keyword(r"gradscaler (?:error|api|usage|not working)|autocast (?:error|api|not working)|how (?:do i|to) use "
            r"(?:torch\.amp|gradscaler|autocast)", {"concern": "amp_api"}, _KC, negatable=False),
    Keyword(r"which (?:model )?architecture|what architecture should|choose an? architecture|resnet or (?:a )?vit|"
            r"cnn or (?:a )?transformer", {"concern": "architecture_choice"}, _KC),
    Keyword(r"(?:model|checkpoint|weights|state_dict) (?:won'?t|will not|doesn'?t|does not|can'?t|cannot) load|"
            r"(?:can'?t|cannot|unable to|fail(?:s|ed)? to) load (?:the |my )?(?:model|checkpoint|weights)",
            {"concern": "model_wont_load"}, _KC, negatable=False),
    Keyword(r"inference (?:is )?(?:too |very )?slow|slow inference|inference (?:latency|speed|throughput)|serving "
            r"latency", {"concern": "inference_speed"}, _KC, priority=2),
    Keyword(r"deploy(?:ing|ment)? (?:the |my |a )?model|how (?:do i|to) deploy|put (?:it|the model) in production",
            {"concern": "deployment"}, _KC),
    Keyword(r"model registry|model lineage|register (?:the |my )?model", {"concern": "model_registry"}, _KC),
    Keyword(r"exploration (?:issues?|problems?)|(?:agent|policy) (?:doesn'?t|does not|won'?t) explore|"
            r"not exploring", {"concern": "rl_exploration", "task": "rl"}, _KC, negatable=False),
    Keyword(r"(?:dpo|grpo|simpo|orpo|kto|ipo|sft) (?:vs\.?|or|versus) (?:dpo|grpo|simpo|orpo|kto|ipo|sft)|which "
            r"preference(?:[- ]tuning)? method", {"concern": "preference_method"}, _KC, priority=1),
    Keyword(r"rlhf|rlaif", {"concern": "rlhf"}, _KC),
    Keyword(r"reinforcement learning|\bppo\b|q-learning|policy gradient", {"task": "rl"}, _KC),
    # real error messages (a negation before them is part of the message, not of the user's claim)
    Keyword(r"cuda out of memory|outofmemoryerror|cuda error: out of memory",
            {"error_text": "CUDA out of memory"}, _KE, negatable=False, priority=3),
    Keyword(r"expected to have finished reduction in the prior iteration",
            {"error_text": "Expected to have finished reduction in the prior iteration"}, _KE, negatable=False,
            priority=3),
    Keyword(r"processgroupnccl|nccl error|collective operation timeout",
            {"error_text": "NCCL error"}, _KE, negatable=False, priority=3),
    Keyword(r"torch\._dynamo|backendcompilerfailed|torch\._inductor|internaltorchdynamoerror",
            {"error_text": "torch._dynamo BackendCompilerFailed"}, _KE, negatable=False, priority=3),
    Keyword(r"unscale_\(\) has already been called|attempting to unscale fp16 gradients",
            {"error_text": "GradScaler: unscale_() error"}, _KE, negatable=False, priority=3),
    Keyword(r"error\(s\) in loading state_dict|missing key\(s\) in state_dict|unexpected key\(s\) in state_dict|"
            r"size mismatch for", {"error_text": "Error(s) in loading state_dict"}, _KE, negatable=False,
            priority=3),
)
