"""Cross-pack boundaries: every "when not to use this pack" row of both editions, from symptoms and error texts.

An exclusive boundary (``joint=False``) means another pack owns the problem: no question of ours is asked
(the engine's question rules require no exclusive boundary) and, with no route, the status is
``out_of_scope``. A joint boundary keeps our routes: we make the strategy call, the other pack handles its
API or method. Triggers are the ``concern`` read from the complaint, a ``question_topic``, the ``task``, and
real error messages (``Contains`` on ``error_text``).

An exclusive boundary turns joint when the complaint also carries a training symptom of ours (the engine's
``XB-MIXED-01``, ``expert.engine``): the error goes there, the symptom stays here.
"""

from __future__ import annotations

from typing import Any

from knowledge.keywords import P_OVERFIT
from knowledge.measurements import threshold
from knowledge.record import dataclass
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


# --------------------------------------------------------------------------------------------------------
# Areas other packs own, each recognised from real error messages and from descriptions in words.
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Area:
    """A kind of problem another pack owns, and how users show it to us.

    Attributes:
        topic: The ``boundary_topic`` value the complaint parser sets.
        pack: The pack that owns it.
        target: The part of that pack to load ("" when the seeds name none).
        why: Why it belongs there, in our words.
        avoid: The routing mistake it prevents.
        row: The seed boundary-table row it encodes.
        errors: Lower-case fragments of real error messages of this family (also matched in ``error_text``).
        words: A regular expression for the problem described in words (normalised, lower-case text).
        priority: Between two areas in one complaint, the higher wins (error text over description).
        symptom: The symptom its words describe too, with that symptom's rank ("memory is never released between
            folds" is memory growing, whatever error it ends in); None when the words name no symptom.
    """

    topic: str
    pack: str
    target: str
    why: str
    avoid: str
    row: str
    errors: tuple[str, ...] = ()
    words: str = ""
    priority: int = 0
    symptom: tuple[str, int] | None = None


_TENSORS = "tensor-operations-and-memory"
_DIST = "distributed-training-strategies"
_TC = "torch-compile"

def _gap(name: str) -> str:
    """Free text inside one sentence between the two halves of a description (a cue inside it still counts)."""
    return rf"(?P<{name}>(?:[^.!?\n]|[.!?](?=\S)){{0,80}}?)"  # "v2.1" and "cfg.x" do not end a sentence


_MULTI = (r"(?:ddp|fsdp|deepspeed|distributeddataparallel|dataparallel|multigpu|multiple\s+gpus|several\s+gpus|"
          r"\d+\s+gpus|two\s+gpus|multinode|multiple\s+nodes|distributed(?:\s+training)?|nccl|gloo|torchrun|"
          r"all_reduce|allreduce|all_gather|barrier|rank\s*\d|every\s+rank|other\s+ranks?)")
_HANG = (r"(?:hangs?|hanging|hung|freez\w*|froze|frozen|deadlock\w*|stuck|stalls?\s+forever|blocks?\s+forever|"
         r"never\s+(?:finishes|returns|progresses)|waits?\s+forever|no\s+progress)")

_SHAPES_DISAGREE = (r"(?:shapes?|dimensions?|dims?|sizes?)\s+(?:do|does|did|would|will|can|could)?\s*"
                    r"(?:n[o']?t|never)\s+(?:match|line\s+up|agree)")
"""Tensor shapes said not to fit, in words."""
_SHAPED_OP = (r"(?:multipl\w*|matmul|mat1|linear|dense|fc|conv\w*|concat\w*|torch\.cat|reshap\w*|"
              r"(?:first|last|next|final|input|hidden|output)\s+layer)\b")
"""Operations whose inputs must have fitting shapes (a product, a layer, a join): a shape error's place."""

AREAS: tuple[Area, ...] = (
    # the seeds' own error rows, here too so an error message outranks any description in the same complaint
    Area("cuda_oom", _PT, _OOM[1], _OOM[0], "tuning the optimizer or LR to make an OOM go away", "CUDA out of memory",
         errors=OOM_ERRORS.needles, priority=10),
    Area("amp_api", _PT, _AMP[1], _AMP[0], "debugging the AMP API with training advice",
         "torch.amp / GradScaler API", errors=tuple(n for n in AMP_ERRORS.needles if " " in n or "_" in n),
         priority=10),
    Area("distributed_error", _PT, _DDP[1], _DDP[0], "changing hyperparameters to fix a distributed set-up error",
         "DDP / FSDP not working (API failures)", errors=DDP_ERRORS.needles, priority=10),
    Area("compile_error", _PT, _COMPILE[1], _COMPILE[0], "treating a compiler error as a training-dynamics problem",
         "torch.compile errors", errors=COMPILE_ERRORS.needles, priority=10),
    Area("checkpoint_load", _PT, _LOAD[1], _LOAD[0], "retraining to work around a loading error",
         "Model won't load", errors=LOAD_ERRORS.needles + ("invalid load key", "storage has wrong size"),
         priority=10),
    Area("device_mismatch", _PT, _TENSORS,
         "tensors on different devices (CPU vs CUDA, two GPUs) are a PyTorch placement bug, not a training-dynamics "
         "problem", "changing hyperparameters to fix a device-placement error", "PyTorch implementation bugs",
         errors=("expected all tensors to be on the same device", "found at least two devices",
                 "input type (torch.cuda", "and weight type (torch.cuda", "expected object of device type",
                 "tensors to be on the same device", "should be the same or input should be a mkldnn tensor",
                 "is on cpu, but expected", "expected all tensors to be on the same"),
         words=r"(?:tensors?|inputs?|model|weights?|labels?)\s+(?:are\s+|is\s+)?on\s+(?:different|the\s+wrong)\s+"
               r"devices?|device\s+mismatch|"
               # (a placement error named as such: "a device error (cpu vs cuda:1)"; the devices merely named
               # against each other are not one: "on cpu vs cuda the results differ", "data on cpu, model on gpu")
               r"device\s+(?:placement\s+)?error",
         priority=10, symptom=("crash", 1)),
    Area("dtype_mismatch", _PT, _TENSORS,
         "a dtype mismatch (float vs long, half vs float) is a tensor-API error",
         "changing hyperparameters to fix a dtype error", "PyTorch implementation bugs",
         errors=("expected scalar type", "expected object of scalar type", "must have the same dtype",
                 "expected both vectors to have same dtype", "not implemented for 'half'",
                 "not implemented for 'bfloat16'", "result type float can't be cast", "found dtype"),
         words=r"dtype\s+mismatch", priority=10, symptom=("crash", 1)),
    Area("shape_mismatch", _PT, _TENSORS,
         "tensor shapes that do not fit (a layer's input, a batch dimension, channels) are a model-plumbing error",
         "tuning training to fix a shape error", "PyTorch implementation bugs",
         errors=("shapes cannot be multiplied", "size mismatch, m1", "the size of tensor a",
                 "expected input batch_size", "channels, but got", "must match the size of tensor",
                 "shape mismatch", "doesn't match the broadcast shape", "sizes of tensors must match"),
         # (said in words, beside the operation that failed: "the shapes don't match when multiplying in the
         # linear layer", "the fc layer's dimensions do not line up"; not the prediction against the target, a loss's)
         words=rf"shape\s+(?:mismatch|error)|{_SHAPES_DISAGREE}{_gap('gap1')}{_SHAPED_OP}|{_SHAPED_OP}{_gap('gap2')}"
               rf"{_SHAPES_DISAGREE}", priority=9, symptom=("crash", 1)),
    Area("autograd_error", _PT, "",
         "an autograd error (no grad_fn, an in-place modification, a second backward) is a graph-construction bug",
         "tuning the optimizer to fix an autograd error", "PyTorch implementation bugs",
         errors=("does not require grad and does not have a grad_fn", "modified by an inplace operation",
                 "trying to backward through the graph a second time", "a leaf variable that requires grad",
                 "one of the differentiated tensors", "grad can be implicitly created only for scalar outputs"),
         priority=10),
    Area("cuda_assert", _PT, "",
         "a device-side assert or illegal memory access is a kernel-level error (often an index out of range); "
         "rerun with CUDA_LAUNCH_BLOCKING=1 or on CPU to see the real message",
         "treating a CUDA assert as a training-dynamics problem", "PyTorch implementation bugs",
         errors=("device-side assert triggered", "srcindex < srcselectdimsize", "index out of range in self",
                 "illegal memory access", "cublas_status_execution_failed", "cudnn_status_execution_failed",
                 "cudnn_status_mapping_error", "cuda error: unspecified launch failure"),
         priority=10),
    Area("dataloader_failure", _PT, "",
         "DataLoader worker crashes and hangs (shared memory, fork safety, pickling) are data-loading "
         "infrastructure", "changing the model or optimizer to fix a DataLoader crash", "Data loading issues",
         errors=("dataloader worker (pid", "killed by signal", "bus error", "insufficient shared memory",
                 "dataloader worker exited unexpectedly", "received 0 items of ancdata", "too many open files",
                 "unable to write to file </torch_"),
         words=rf"(?:dataloader|data\s+loader|num_workers){_gap('gap1')}(?:{_HANG}|crash\w*|dies|died|killed|segfault\w*)|"
               rf"{_HANG}{_gap('gap2')}(?:dataloader|data\s+loader|num_workers|__getitem__)",
         priority=8),
    Area("pickling", _PT, "",
         "an object that cannot be pickled breaks worker processes and DDP spawning: a multiprocessing issue",
         "tuning training to fix a pickling error", "PyTorch implementation bugs",
         errors=("can't pickle", "cannot pickle", "picklingerror", "pickling error"), priority=10),
    Area("collective_timeout", _PT, _DIST,
         "an NCCL/gloo error or collective timeout is distributed set-up, not a hyperparameter choice",
         "changing hyperparameters to fix a distributed set-up error", "DDP / FSDP not working (API failures)",
         errors=("watchdog caught collective operation timeout", "nccl error", "ncclinternalerror",
                 "ncclsystemerror", "nccl timeout", "gloo", "connection closed by peer", "socket timeout",
                 "init_process_group", "processgroupnccl", "nccl_p2p", "collective operation timeout",
                 "unhandled system error", "ncclunhandledcudaerror"),
         priority=10),
    Area("distributed_hang", _PT, _DIST,
         "a multi-GPU run that hangs (mismatched collectives, rank-dependent code paths, a barrier not every rank "
         "reaches) is a distributed bring-up problem",
         "changing hyperparameters to unfreeze a hung distributed run", "DDP / FSDP not working (API failures)",
         words=rf"{_MULTI}{_gap('gap1')}{_HANG}|{_HANG}{_gap('gap2')}{_MULTI}", priority=7),
    Area("recompile_limit", _PT, _TC,
         "dynamo recompilations, graph breaks and the recompile cache limit are torch.compile behaviour",
         "treating a compiler problem as a training-dynamics problem", "torch.compile errors",
         errors=("cache_size_limit", "recompile_limit", "recompiling function", "graph break", "recompilation",
                 "torch._dynamo hit config", "exceeded the recompile limit", "recompiling", "recompiles",
                 "recompiled", "recompile"),
         # (above the compile errors: a recompiling model is also a compiled one, and the recompiles are its trouble)
         words=r"recompil\w*|graph\s+breaks?", priority=11),
    Area("cuda_graphs", _PT, _TC,
         "CUDA-graph capture and re-recording (static shapes, overwritten outputs) are a compile/runtime API issue",
         "treating a CUDA-graph problem as a training-dynamics problem", "torch.compile errors",
         # (CUDA's own wording only: "stream is capturing", cudaErrorStreamCapture..., "a previous error during
         # capture"; a bare "stream capture" or "during capture" is everyday talk of cameras, audio and video)
         errors=("cudagraph", "cuda graph", "cuda graphs", "rerecord", "accessing tensor output of cudagraphs",
                 "skipping cudagraphs", "stream is capturing", "streamcapture", "previous error during capture",
                 "make_graphed_callables"),
         # (the graph API by its module path, "torch.cuda.graph(...)", "make_graphed_callables"; a stream caught
         # capturing is CUDA's own word for a capture that met an operation it cannot record; a capture said
         # otherwise names CUDA or a graph beside it: "graph capture fails", "capturing the cuda stream")
         words=r"cuda[\s.-]?graphs?|rerecord\w*|make_graphed_callables|stream\s+is\s+capturing|"
               r"(?:cuda|graph)\s+(?:stream\s+)?captur\w*|captur\w+\s+(?:the\s+|a\s+)?(?:cuda\s+stream|"
               r"(?:cuda\s+)?graph)|\w*streamcapture\w*", priority=9),
    Area("memory_growth", _PT, _TENSORS,
         "memory that grows step after step (tensors kept alive by the graph, metrics accumulated on the GPU) is a "
         "memory-management bug, found by memory profiling",
         "shrinking the batch to hide a leak", "CUDA out of memory",
         words=r"(?:gpu\s+|cpu\s+|host\s+|cuda\s+)?(?:memory|ram|vram)\s+(?:usage\s+|use\s+)?(?:keeps?\s+|kept\s+)?"
               r"(?:grows?|growing|grew|increas\w*|climb\w*|ris\w*|going\s+up|goes\s+up|leak\w*|creeps?\s+up)|"
               r"memory\s+leak\w*|leak\w*\s+(?:gpu\s+)?memory|"
               # (held on from one run to the next in one process: "memory is never released between folds", "each
               # trial uses more memory than the previous one", "memory piles up across folds")
               r"memory\s+(?:of\s+(?:the\s+)?(?:previous|last|old)\s+\w+\s+)?(?:is|was|are|were|gets?|got)?\s*"
               r"(?:never|not|n't)\s+(?:being\s+|getting\s+)?(?:released|freed|reclaimed|cleared)|"
               r"more\s+(?:gpu\s+|cuda\s+)?memory\s+(?:allocated\s+)?(?:than\s+the\s+(?:previous|last|one\s+before)|"
               r"(?:with\s+)?(?:each|every)\s+(?:new\s+)?(?:fold|trial|run|model))|"
               r"(?:each|every)\s+(?:new\s+)?(?:fold|trial|run|model)\s+(?:uses?|takes?|allocates?|needs?|"
               r"starts?\s+with)\s+more\s+(?:gpu\s+|cuda\s+)?memory|"
               r"memory\s+(?:keeps?\s+)?(?:pil\w+|build\w*|accumulat\w*|stack\w*)\s+up\b",
         # (growth ranks as the symptom ranks when composed: above the crash an OOM at its end shows)
         priority=6, symptom=("memory_growth", P_OVERFIT + 2)),
    Area("profiling", _PT, "performance-profiling",
         "finding where the time goes is profiling, which the PyTorch pack does before any speed-up is chosen",
         "optimizing before profiling", "Profiling to identify bottleneck",
         words=r"profil(?:e|er|ing)\b|where\s+(?:the\s+)?time\s+(?:goes|is\s+spent)|find\s+(?:the\s+)?bottleneck",
         priority=3),
    Area("data_loading", _PT, "",
         "a slow input pipeline (workers, decoding, transforms on the main process, slow storage) is data-loading "
         "infrastructure", "tuning the optimizer while the GPU waits for data", "Data loading issues",
         words=r"data\s*loading\s+(?:is\s+)?(?:very\s+|too\s+|so\s+)?(?:slow|the\s+bottleneck|bottleneck\w*)|"
               r"slow\s+data\s*load\w*|(?:dataloader|data\s+loader)\s+(?:is\s+)?(?:very\s+|too\s+|so\s+)?slow|"
               # a wish for a faster loader ("how do I speed up the data loader?", "make the dataloader faster")
               # and the time loading takes ("data loading takes 20-30 minutes")
               r"(?:speed\s+up|accelerate)\s+(?:the\s+|my\s+|our\s+)?(?:data\s*loader|data\s*loading|input\s+pipeline)|"
               r"make\s+(?:the\s+|my\s+|our\s+)?(?:data\s*loader|data\s*loading|input\s+pipeline)\s+faster|"
               r"data\s*loading\s+(?:takes?|took|taking)\s+(?:\S+\s+){0,2}?(?:minutes?|mins?|hours?|hrs?)\b|"
               r"(?:minutes?|mins?|hours?|hrs?)\s+of\s+data\s*loading|"
               r"cpu\s+(?:usage\s+|utilization\s+|load\s+)?(?:is\s+|sits\s+|stays\s+)?(?:at\s+|near\s+|around\s+)?"
               r"100\s*%",
         priority=4),
    Area("custom_autograd", _PT, "",
         "writing a custom autograd Function (forward/backward, ctx, gradcheck) is PyTorch API work",
         "answering an autograd API question with training advice", "PyTorch implementation bugs",
         errors=("torch.autograd.function", "autograd.function", "save_for_backward",
                 "incorrect number of gradients"),
         words=r"custom\s+(?:autograd(?:\s+function)?|backward(?:\s+pass)?|gradient\s+function)|"
               r"(?:write|implement|define)\s+(?:my\s+own\s+|a\s+custom\s+|the\s+)?backward",
         priority=5),
    Area("quantization", _PROD, "inference-optimization",
         "quantization for serving (int8/int4, PTQ, QAT for deployment) is production inference optimization",
         "treating quantization as a training question", "Inference too slow",
         # (quantization-aware training by its fake-quant modules: "QAT with fake quant")
         words=r"quantiz\w*|\bint8\s+inference|\bptq\b|post[\s-]?training\s+quantiz\w*|fake[\s_-]?quant\w*",
         priority=3),
    Area("llm_finetuning", _LLM, "llm-finetuning-strategies.md",
         "LLM fine-tuning recipes (LoRA/QLoRA rank and targets, SFT data formatting, padding and EOS handling, chat "
         "templates) are LLM-specific technique; the training dynamics of the run stay here",
         "tuning generic hyperparameters before checking the LLM recipe", "RLHF for LLM / fine-tuning recipes",
         words=r"q?lora\b|lora[\s_-]?(?:rank|alpha|r)\b|peft\b|adapters?\b|sft(?:trainer)?\b|supervised\s+fine\w*|"
               r"instruction[\s-]?tun\w*|chat\s+template|trl\b|rl[\s-]?(?:fine[\s-]?)?tun\w*|rlvr|datacollatorforcompletiononlylm|completiononly\w*|(?:dpo|ppo|grpo|sft|reward|kto|orpo)"
               r"trainer\b",
         priority=2),
)
"""Problems another pack owns, by family (seeds 000/001: "When not to use", "Cross-pack boundaries")."""

AREA_BY_TOPIC = {a.topic: a for a in AREAS}


def _area_rows() -> tuple[Row, ...]:
    rows: list[Row] = []
    for n, a in enumerate(AREAS, 1):
        cite = _c(a.row)
        rows.append(_x(f"XB-FAM-{n:02d}", {"boundary_topic": a.topic}, a.pack, a.why, a.target, cite, a.avoid))
        if a.errors:
            rows.append(_x(f"XB-ERRFAM-{n:02d}", {"error_text": Contains(*a.errors)}, a.pack, a.why, a.target,
                           _c(f"{a.row} (error text)"), a.avoid))
    return tuple(rows)


def _area_keywords() -> tuple[Keyword, ...]:
    kws: list[Keyword] = []
    for a in AREAS:
        if a.errors:
            # error fragments are matched after the same normalisation as the complaint (the language layer's)
            kws.append(Keyword("", {"boundary_topic": a.topic}, _KE, negatable=False, priority=a.priority + 5,
                               phrases=tuple(a.errors)))
        if a.words:
            kws.append(Keyword(a.words, {"boundary_topic": a.topic}, _KC, negatable=True, priority=a.priority))
            if a.symptom is not None:
                kws.append(Keyword(a.words, {"symptom": a.symptom[0]}, _KC, negatable=True, priority=a.symptom[1]))
    return tuple(kws)




ROWS = ROWS + _area_rows()

_KC = Cite("001", _T, "symptom column")
_KE = Cite("001", _T, "real error messages of each row")

_ATTN = r"\b(?:vit\w*|vision\s+transformers?|(?:vision\s+)?transformers?|swin\w*|deit\w*|beit\w*)\b"
"""Attention-based vision models by their names."""
_CONV = (r"\b(?:cnns?|convnets?|conv(?:olutional)?\s+(?:nets?|networks?|models?)|resnet\w*|efficientnet\w*|vgg\w*|"
         r"mobilenet\w*|convnext\w*|densenet\w*|regnet\w*)\b")
"""Convolutional models by their names."""
_CMP_GAP = r"(?:(?!\b(?:not|no|never|nor)\b|n't\b|\bnt\b)[^.!?\n])"
"""One character between the two architectures where no negation stands."""
_WORSE = (r"(?:worse|lower\s+(?:\w+\s+)?(?:accuracy|acc|score|scores|metrics?|map|miou|iou|f1|top-?[15]|auc|"
          r"precision|recall)|less\s+accura\w*|underperform\w*|(?:is|are|gets?|got)\s+(?:beaten|outperformed)\s+by|"
          r"loses?\s+to|lags?\s+(?:behind\s+)?)")
"""A model said to do worse than another (a lower quality measure, not a lower cost)."""
_BETTER = r"(?:beats?|outperforms?|does\s+better\s+than|is\s+better\s+than)"
"""A model said to do better than another."""
_SCRATCH = (r"(?:from\s+scratch|pre-?trained\s*=\s*false|without\s+(?:any\s+|a\s+)?pre-?train(?:ing|ed\s+(?:weights|"
            r"model|checkpoint))|with\s+no\s+pre-?train(?:ing|ed\s+weights)|random(?:ly)?\s+initiali[sz]ed)")
"""A model trained without pretrained weights."""
_SMALL_IMAGES = (r"\b(?:cifar(?:-?\s?(?:10|100))?|tiny-?\s?imagenet|mini-?\s?imagenet|(?:fashion-?)?mnist|svhn|"
                 r"stl-?10|small\s+image\s+datasets?)\b")
"""Small image-classification datasets by their names (a few tens of thousands of images or fewer)."""
_LOW_OF_LOSS = "".join(rf"(?<!\b{said}\s{verb}\s{degree})" for said in ("loss", "error", "errors")
                       for verb in ("is", "was", "are", "were", "stays", "remains", "gets")
                       for degree in ("", r"very\s", r"quite\s", r"pretty\s", r"really\s", r"so\s"))
"""Lookbehinds: "low" not said of a loss or an error ("loss is low": the model does well, not poorly)."""


def _below(cap: int) -> str:
    """A whole number from 0 up to (not including) ``cap`` (10 to 100), as a pattern not inside a longer number."""
    tens, units = divmod(cap, 10)
    alts = [r"\d"] + ([rf"[1-{tens - 1}]\d"] if tens > 1 else [])
    alts += [rf"{tens}[0-{units - 1}]"] if units else []
    return rf"(?<![\d.])(?:{'|'.join(alts)})(?![\d])"


_POOR_PCT = _below(int(threshold("MT-VIT-POOR-PCT")))
"""A percentage below the score a convolutional net reaches on small image data (``MT-VIT-POOR-PCT``)."""
_POOR_SCORE = (rf"(?:\b{_LOW_OF_LOSS}(?:low|poor|bad|terrible|disappointing)\b(?!\s+(?:(?:train\w*|val\w*|eval\w*|"
               r"test)\s+)?(?:loss|error|lr|learning\s+rate|memory|latency|variance))|\bfar\s+(?:below|lower|worse)|"
               r"\bmuch\s+(?:lower|worse)|\bonly\s+(?:gets?|got|reach\w*|achiev\w*)|\bstuck\b|\bstays?\s+(?:at|"
               rf"around|near|below)|\b(?:around|about|only|just)\s+{_POOR_PCT}(?:\.\d+)?\s*%)")
"""A score said to be poor (a low loss, error, LR or memory is no poor score, nor a percentage a CNN reaches)."""
_NOT_PRETRAINED = (r"(?<!pretrained\s)(?<!pre-trained\s)(?<!fine-tuned\s)(?<!finetuned\s)"
                   r"(?![^\n]{0,200}?\b(?:fine-?tun\w*|pre-?trained\s+(?:on|weights|model|checkpoint|vit)|"
                   r"imagenet-?21k|jft))")
"""Where a vision transformer is named: not one fine-tuned from pretrained weights ("I fine-tuned a pretrained ViT
..."), whose gap to a paper or a CNN has other causes."""

KEYWORDS = (
    # concerns described in words
    # ("runs out of CUDA memory", "OOMs", "OOM'd": the same failure in other words)
    Keyword(r"out of (?:(?:cuda|gpu|vram|device|video)\s+)?memory|\booms?\b|\boom(?:'?d|ed|ing)\b|oom error",
            {"concern": "cuda_oom"}, _KC),
    # a multi-GPU launch that runs on one device: the launcher or the environment, not the training
    Keyword(r"only (?:uses?|using|used|sees?|detects?|runs? on|utili[sz]es?) (?:one|1|a single) (?:gpu|device)|"
            r"(?:only|just) (?:one|1) (?:of (?:my|the) \d+ )?gpus? (?:is|are|gets?|was) (?:used|utili[sz]ed|busy|"
            r"working)|num_processes (?:shows?|is|stays?) 1\b",
            {"concern": "distributed_api", "multi_gpu": True}, _KC, negatable=False),
    Keyword(r"(?:ddp|fsdp|distributed(?: training)?|deepspeed) (?:is )?(?:not working|doesn'?t work|hangs?|hanging|"
            r"crash(?:es|ing)?|fails?|failing|errors?)", {"concern": "distributed_api"}, _KC, negatable=False),
    Keyword(r"torch\.compile (?:errors?|fails?|failing|crash(?:es)?|breaks?)|(?:error|fails?) (?:in|with) "
            r"torch\.compile", {"concern": "compile_error"}, _KC, negatable=False),
    Keyword(r"gradscaler (?:error|api|usage|not working)|autocast (?:error|api|not working)|how (?:do i|to) use "
            r"(?:torch\.amp|gradscaler|autocast)", {"concern": "amp_api"}, _KC, negatable=False),
    Keyword(r"which (?:model )?architecture|what architecture should|choose an? architecture|resnet or (?:a )?vit|"
            r"cnn or (?:a )?transformer", {"concern": "architecture_choice"}, _KC),
    # one family of architecture doing worse than another on the same data ("ViT-B is much worse than ResNet18 on
    # small datasets", "the CNN beats my vision transformer"): which architecture suits the data is the question,
    # most often a transformer's missing inductive bias on a few thousand images
    # (a comparison denied in its gap, "the ViT is not worse than the ResNet", or called expected is no concern;
    # "lower" counts only of a quality, "lower latency" or "lower loss" is a CNN doing better, not worse)
    Keyword(rf"(?:{_ATTN}(?:{_CMP_GAP}{{0,60}}?)\b{_WORSE}{_CMP_GAP}{{0,40}}?{_CONV}|"
            rf"{_CONV}(?:{_CMP_GAP}{{0,60}}?)\b{_WORSE}{_CMP_GAP}{{0,40}}?{_ATTN}|"
            rf"{_CONV}(?:{_CMP_GAP}{{0,40}}?)\b{_BETTER}{_CMP_GAP}{{0,40}}?{_ATTN}|"
            rf"{_ATTN}(?:{_CMP_GAP}{{0,40}}?)\b{_BETTER}{_CMP_GAP}{{0,40}}?{_CONV})"
            r"(?![^.!?\n]*\b(?:expected|as\s+it\s+should))",
            {"concern": "architecture_choice"}, _KC),
    # a vision transformer trained from scratch on a small image dataset that scores poorly ("a ViT on Tiny-ImageNet
    # from scratch (pretrained=False) stays around 7%"): without large-scale pretraining a ViT lacks the convolution's
    # inductive bias and loses to a CNN on such data, which is the architecture pack's choice, not a tuning problem
    # (the three said in one sentence, the poor score within the next 200 characters; a ViT fine-tuned from
    # pretrained weights, or on ImageNet-scale data, is not this)
    Keyword(rf"{_NOT_PRETRAINED}{_ATTN}(?=[^.!?\n]*{_SCRATCH})(?=[^.!?\n]*{_SMALL_IMAGES})"
            rf"(?=[^\n]{{0,200}}?(?<!\bnot\s)(?<!n't\s){_POOR_SCORE})"
            r"(?![^.!?\n]*\b(?:expected|as\s+it\s+should))",
            {"concern": "architecture_choice"}, _KC),
    # a vision transformer on a small image dataset scoring far below the figure its paper reports ("far below the
    # ~99% the ViT paper reports on CIFAR"): the paper's figures come from models pretrained on hundreds of millions
    # of images, so a ViT trained on the small set alone cannot reach them (not said of a fine-tuned or pretrained
    # ViT, whose gap has other causes)
    Keyword(rf"{_NOT_PRETRAINED}{_ATTN}(?=[^\n]{{0,200}}?{_SMALL_IMAGES})(?=[^\n]{{0,200}}?\b(?:below|lower\s+than|"
            r"worse\s+than|short\s+of)\b[^.!?\n]{0,40}?\b(?:paper|reported|published|claimed)\b)",
            {"concern": "architecture_choice"}, _KC),
    Keyword(r"(?:model|checkpoint|weights|state_dict) (?:won'?t|will not|doesn'?t|does not|can'?t|cannot) load|"
            r"(?:can'?t|cannot|unable to|fail(?:s|ed)? to) load (?:the |my )?(?:model|checkpoint|weights)",
            {"concern": "model_wont_load"}, _KC, negatable=False),
    Keyword(r"inference (?:is )?(?:too |very )?slow|slow inference|inference (?:latency|speed|throughput)|serving "
            r"latency|"
            # inference speed in other words: at inference time, when serving, in production, latency per request
            # ("make the model faster at inference time", "predictions take too long when serving", "reduce
            # latency in production"); not the training run's own speed
            r"(?:fast|faster|quicker|speed\s*up|slow|slower|too\s+long|latency)\b(?:(?!train|epoch|,)[^.!?\n]){0,40}?\b"
            r"(?:at\s+inference|"
            r"for\s+inference|during\s+inference|in\s+production|when\s+serv\w+|in\s+(?:the\s+|my\s+|our\s+)?app\b|"
            r"behind\s+an?\s+api)|(?:at\s+inference(?:\s+time)?|in\s+production|when\s+serv\w+|(?:our|my|the)\s+serving"
            r"(?:\s+endpoint)?|deployed\s+(?:model|classifier|network))\b(?:(?!train|epoch|,)[^.!?\n]){0,40}?\b(?:fast|"
            r"faster|slow|slower|too\s+long|latency)|(?<!loading\s)(?<!loader\s)(?<!data\s)(?:high|low(?:er)?|reduce|p\d\d)"
            r"\s+(?:the\s+)?latency|(?<!loading\s)(?<!loader\s)(?<!data\s)latency\s+(?:of\s+(?:my|the|our)\s+model|per\s+"
            r"(?:request|query|sample|image)|must|under|below)\b",
            {"concern": "inference_speed"}, _KC, priority=2),
    Keyword(r"deploy(?:ing|ment)? (?:the |my |a )?model|how (?:do i|to) deploy|put (?:it|the model) in production",
            {"concern": "deployment"}, _KC),
    Keyword(r"model registry|model lineage|register (?:the |my )?model", {"concern": "model_registry"}, _KC),
    Keyword(r"exploration (?:issues?|problems?)|(?:agent|policy) (?:doesn'?t|does not|won'?t) explore|"
            r"not exploring|"
            # the agent said to try too little: it never explores, the exploration is too little or broken, the
            # epsilon of epsilon-greedy decays too soon, the policy settles on one action (its entropy gone), or the
            # goal or the reward is never reached at all
            r"(?:agent|policy|it|model|actor)\s+(?:\w+\s+)?(?:never|barely|hardly|doesn'?t|does\s+not|won'?t|isn'?t|is\s+"
            r"not|stops?|stopped)\s+(?:\w+\s+)?explor\w*|(?:no|little|not\s+enough|insufficient|too\s+little|lack\s+of|"
            r"more|better)\s+exploration|exploration\s+(?:\w+\s+){0,2}?(?:broken|insufficient|too\s+(?:low|little|short)|"
            r"not\s+working|doesn'?t\s+work|collaps\w*)|(?:epsilon|eps|ε)(?:[\s_-]+greedy)?(?:[\s_-]+decay)?\s+(?:\w+\s+){0,2}?"
            r"(?:decays?|decayed|decreases?|drops?|falls?|goes\s+down|annealed|anneals)\s+(?:\w+\s+){0,4}?(?:too|way\s+too)"
            r"\s+(?:fast|quickly|soon|early)|(?:always|only)\s+(?:takes?|picks?|chooses?|selects?|does|outputs?|plays?)\s+"
            r"(?:the\s+)?(?:same|one|a\s+single)\s+action|(?:converg\w*|collaps\w*|settl\w*)\s+(?:\w+\s+){0,2}?(?:to|on)\s+"
            r"(?:a\s+single|one|the\s+same)\s+action|never\s+(?:tr(?:y|ies|ied)|takes?|picks?)\s+(?:any\s+)?(?:other|"
            r"another|different)\s+actions?|(?:policy\s+)?entropy\s+(?:\w+\s+)?(?:goes|went|drops?|dropped|falls?|fell|"
            r"collaps\w*)\s+(?:to\s+)?(?:0|zero|nothing)\b|never\s+(?:finds?|reaches?|gets?\s+to|discovers?|sees?)\s+"
            r"(?:the\s+|any\s+)?(?:goal|reward|target\s+state)",
            {"concern": "rl_exploration", "task": "rl"}, _KC, negatable=False),
    Keyword(r"(?:dpo|grpo|simpo|orpo|kto|ipo|sft) (?:vs\.?|or|versus) (?:dpo|grpo|simpo|orpo|kto|ipo|sft)|which "
            r"preference(?:[- ]tuning)? method", {"concern": "preference_method"}, _KC, priority=1),
    Keyword(r"rlhf|rlaif", {"concern": "rlhf"}, _KC),
    Keyword(r"reinforcement learning|\bppo\b|q-learning|policy gradient", {"task": "rl"}, _KC),
    # RL named by its algorithms, libraries, environments and quantities (RLHF trainers are the LLM pack's)
    Keyword(r"d?dqn|a[23]c|sac|td3|ddpg|ppo2|rainbow|stable[\s-]?baselines\d?|sb3|rllib|cleanrl|gym(?:nasium)?|"
            r"cartpole\w*|atari|mujoco|mountaincar\w*|acrobot\w*|replay\s+buffer|(?:mean\s+|average\s+|discounted\s+)?"
            r"episode\s+(?:rewards?|returns?|lengths?)|(?:mean|average|discounted)\s+(?:rewards?|returns?)|"
            r"reward\s+(?:function|shaping|signal|hacking|clipping|scale)|(?:my|the|an|rl)\s+agent|"
            r"(?:custom|own|gym)\s+env(?:ironment)?s?|"
            # the critic's value loss and its explained variance
            r"vf_loss|value[\s_-](?:function|head)[\s_-]loss|explained[\s_]variance",
            {"task": "rl"}, _KC, negatable=False),
    # the actor-critic family by name: everyday words too ("the actor and the critic at the play"), so read only in
    # a text about training
    Keyword(r"actor[\s-]critic", {"task": "rl"}, _KC, negatable=False, scope=False),
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
    # the trainers' refusals when the step hands back no loss (Hugging Face's model output without a loss,
    # Lightning's dict without the key, or its training_step returning None): one message, one cause (LP-NOLOSS-02)
    Keyword(r"did not return a loss|no [`'\"]?loss[`'\"]? value in the dictionary|training_step(?:\(\))?[`'\"]? "
            r"returned [`'\"]?none", {"error_text": "The training step did not return a loss"}, _KE, negatable=False,
            priority=3),
    Keyword(r"error\(s\) in loading state_dict|missing key\(s\) in state_dict|unexpected key\(s\) in state_dict|"
            r"size mismatch for", {"error_text": "Error(s) in loading state_dict"}, _KE, negatable=False,
            priority=3),
) + _area_keywords()
