"""Experiment tracking: in-flight tracking here, systematic search on top, the loop wiring; registries elsewhere."""

from __future__ import annotations

from knowledge.schema import Absent, Cite, Cross, Is, RouteTo, Row

_T = "Symptom: need to track experiments"
_ET = "experiment_tracking"

ROWS = (
    Row("RT-TRK-01",
        {"symptom": _ET, "tracking_scope": "in_flight"},
        (RouteTo("experiment-tracking", "primary", "set up and organise run tracking: MLflow, W&B, TensorBoard"),
         RouteTo("training-loop-architecture", "secondary", "wire logging into the loop with callbacks")),
        "Tracking during training is set up in the tracking specialist and wired into the loop's callbacks.",
        Cite("000", _T, "experiment-tracking (primary) + training-loop-architecture (for integration)")),
    Row("RT-TRK-02",
        {"symptom": _ET, "tuning_method": Is("grid", "random", "bayesian", "pbt")},
        (RouteTo("hyperparameter-tuning", "secondary", "a systematic search that logs into the tracker"),),
        "When many configurations are searched systematically, the search and the tracker work together.",
        Cite("000", _T, "hyperparameter-tuning (if systematic search)")),
    Row("RT-TRK-03",
        {"symptom": _ET, "tracking_scope": "registry"},
        (RouteTo("ml-production", "primary", "long-lived model registry, lineage, artifact lifecycle"),
         RouteTo("experiment-tracking", "secondary", "the in-flight logging during training stays here"),
         Cross("ml-production", "registry and lineage after the run belong to the production pack",
               joint=True, target="experiment-tracking-and-versioning.md")),
        "What happens to artifacts after the run is the production pack's; only in-flight logging is ours.",
        Cite("001", _T, "cross-pack boundary: production registry / lineage -> ml-production")),
    Row("RT-TRK-04",
        {"symptom": _ET, "tracking_scope": Absent()},
        (RouteTo("experiment-tracking", "primary", "start with in-flight tracking"),
         RouteTo("training-loop-architecture", "secondary", "wire logging into the loop with callbacks")),
        "If the scope is not given, the common case is tracking during training; the multi-skill note pairs it "
        "with the loop integration.",
        Cite("000", _T, "experiment-tracking (primary) + training-loop-architecture (for integration)"),
        need=("declined:Q-TRACK-SCOPE",)),
)
