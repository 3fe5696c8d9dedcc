"""How often each first stop was the confirmed one when a symptom's default was all trainopt had (generated).

Written by ``python -m bench.gen_priors`` from the corpus's dev split (``bench/corpus``): every dev case is
consulted with priors off, as an honest user; a case whose consultation ends on a symptom's default (no cause
evidenced, no suspect leading, the first stop routed by rows that read only the symptom and the loss curve)
votes, once per thread, for the first stop its thread confirmed. Held-back cases never vote. Read by
``expert.priors``; do not edit by hand.
"""

DEFAULT_READS = frozenset({"symptom", "loss_behavior"})
"""The observations a default row may read: a row that needs anything more is evidence, not a default."""

SEED_WEIGHT = 1.5
"""The seeds' own first stop counts as this many confirming threads: a prior must beat it clearly."""


# estimated from 89 dev cases that ended on a default (89 threads)
PRIORS: dict[str, dict[str, int]] = {
    'convergence': {
        'learning-rate-scheduling': 1,
    },
    'crash': {
        'pytorch-engineering': 6,
        'training-loop-architecture': 1,
    },
    'experiment_tracking': {
        'experiment-tracking': 1,
    },
    'hang': {
        'pytorch-engineering': 21,
        'training-loop-architecture': 1,
    },
    'memory_growth': {
        'pytorch-engineering': 7,
    },
    'metrics_wrong': {
        'experiment-tracking': 9,
        'training-loop-architecture': 1,
    },
    'not_learning': {
        'learning-rate-scheduling': 6,
        'batch-size-and-memory-tradeoffs': 1,
        'deep-rl': 1,
        'llm-specialist': 1,
        'neural-architectures': 1,
        'pytorch-engineering': 1,
    },
    'overfitting': {
        'overfitting-prevention': 5,
        'data-augmentation-strategies': 1,
        'loss-functions-and-objectives': 1,
    },
    'slow_training': {
        'pytorch-engineering': 18,
        'batch-size-and-memory-tradeoffs': 1,
    },
    'unstable': {
        'deep-rl': 1,
        'learning-rate-scheduling': 1,
        'optimization-algorithms': 1,
        'training-loop-architecture': 1,
    },
}
