"""Overfitting: the multi-pronged route and the dataset-size decision factors."""

from __future__ import annotations

from knowledge.measurements import ge, lt, measure_source, threshold
from knowledge.schema import Between, Cite, Cross, Find, RouteTo, Row

_T = "Symptom: model overfits (multi-skill approach)"
_D = "Symptom: model overfits · decision factors"

ROWS = (
    Row("RT-OVF-01",
        {"symptom": "overfitting"},
        (RouteTo("overfitting-prevention", "primary", "a full regularization strategy: weight decay, dropout, "
                 "early stopping"),
         RouteTo("data-augmentation-strategies", "secondary", "enlarge the effective dataset"),
         RouteTo("hyperparameter-tuning", "secondary", "then find the regularization strength")),
        "Overfitting is never fixed by one technique: regularize, augment, then tune the strength.",
        Cite("000", _T, "overfitting-prevention first; augmentation highly recommended; then tuning")),
    Row("RT-OVF-02",
        {"symptom": "overfitting", "dataset_size": lt("MT-DATA-SMALL")},
        (Find("Overfitting", "warning", "fewer than 1K training examples: the model can memorise the set", kind="note"),
         RouteTo("data-augmentation-strategies", "primary", "with under 1K examples augmentation is critical")),
        "A tiny dataset is memorised quickly; more (augmented) data matters most, next to regularization.",
        Cite("000", _D, "small dataset (< 1K): data augmentation critical")),
    Row("RT-OVF-03",
        {"symptom": "overfitting", "dataset_size": Between(threshold("MT-DATA-SMALL"), threshold("MT-DATA-LARGE"),
                                                                 source=measure_source("MT-DATA-SMALL"))},
        (Find("Overfitting", "info", "1K-10K training examples: balance regularization and augmentation",
              kind="note"),),
        "At a medium size neither lever dominates; regularization and augmentation are weighed equally.",
        Cite("000", _D, "medium dataset (1K-10K): overfitting-prevention + augmentation balanced")),
    Row("RT-OVF-04",
        {"symptom": "overfitting", "dataset_size": ge("MT-DATA-LARGE")},
        (Find("Overfitting", "warning", "10K+ examples and still overfitting: the model may be too large for "
              "the data", kind="note"),
         Cross("neural-architectures", "model capacity relative to the data is an architecture question",
               joint=True, target="model size")),
        "With plenty of data, persistent overfitting suggests too much capacity; model size is discussed in the "
        "architecture pack while regularization stays here.",
        Cite("000", _D, "large dataset (> 10K) still overfitting: check model capacity (neural-architectures)")),
)
