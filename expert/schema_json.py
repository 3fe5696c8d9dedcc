"""JSON Schemas (draft 2020-12) generated from the vocabulary: the observations ``diagnose`` reads, the report.

The shipped copies live in ``trainopt/schema/``; ``python -m expert.schema_json`` rewrites them, and a test
fails when they drift from what the vocabulary and the knowledge say.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from knowledge.vocabulary import BOOL, ENUM, FLOAT, INT, VOCABULARY, Spec

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://trainopt.invalid/schema/"  # an identifier, never fetched
SHIPPED = Path(__file__).resolve().parent.parent / "trainopt" / "schema"
PROVENANCE = ("Where the value came from: declared, answer:<question id>, probe:<probe id>, text:<phrase>, "
              "log:<file>:<column> or derived:<rule id>.")


def _vocabulary() -> dict[str, Spec]:
    from knowledge import families

    families()  # families may register extra observations
    return dict(sorted(VOCABULARY.items()))


def value_schema(s: Spec) -> dict[str, Any]:
    """The canonical JSON form of one observation's value."""
    d: dict[str, Any] = {"description": s.help}
    if s.kind == ENUM:
        d.update(type="string", enum=list(s.choices))
    elif s.kind == BOOL:
        d["type"] = "boolean"
    elif s.kind in (INT, FLOAT):
        d["type"] = "integer" if s.kind == INT else "number"
        if s.low is not None:
            d["exclusiveMinimum" if s.low_open else "minimum"] = s.low
        if s.high is not None:
            d["maximum"] = s.high
    else:
        d.update(type="string", minLength=1)
    if s.unit:
        d["description"] += f" Unit: {s.unit}."
    return d


def _full(s: Spec, required_source: bool) -> dict[str, Any]:
    return {"type": "object", "properties": {"value": value_schema(s),
                                             "source": {"type": "string", "minLength": 1, "description": PROVENANCE},
                                             "evidence": {"type": "object",
                                                          "description": "Measured numbers behind the value."},
                                             "step": {"type": "integer", "minimum": 0,
                                                      "description": "The training step it was measured at."}},
            "required": ["value", "source"] if required_source else ["value"], "additionalProperties": False}


def observations_schema() -> dict[str, Any]:
    """Schema of the JSON object ``trainopt diagnose`` reads (and ``Consultation.from_json``).

    Values are shown in their canonical form; trainopt also accepts numbers and booleans written as text
    (``"3e-4"``, ``"yes"``) and enum values in any case, with ``-`` or spaces for ``_``.
    """
    props: dict[str, Any] = {
        "complaint": {"type": "string", "description": "Free text, read as in `trainopt consult`."},
        "declined": {"type": "array", "items": {"type": "string"}, "description": "Question ids not to ask."},
        "schema_version": {"type": "string"},
    }
    for name, s in _vocabulary().items():
        props[name] = {"anyOf": [value_schema(s), _full(s, required_source=False)]}
    return {"$schema": DRAFT, "$id": BASE + "observations.schema.json", "title": "trainopt observations",
            "description": "One JSON object of observations: names from `trainopt facts`, each a value or "
                           "{value, source, evidence}.",
            "type": "object", "properties": props, "additionalProperties": False}


def report_schema() -> dict[str, Any]:
    """Schema of the JSON report (``--format json``, ``Consultation.to_json``)."""
    from expert.consultation import SCHEMA_VERSION, STATUSES
    from knowledge.schema import FINDING_KINDS
    from knowledge.skills import SKILL_BY_NAME

    vocab = _vocabulary()
    skills = sorted(SKILL_BY_NAME)
    string, strings = {"type": "string"}, {"type": "array", "items": {"type": "string"}}
    obj = {"type": "object"}
    cite = {"type": ["object", "null"]}
    question = {"type": ["object", "null"], "required": ["id", "text", "sets", "type", "choices", "why"],
                "properties": {"id": string, "text": string, "sets": {"enum": list(vocab)},
                               "type": {"enum": [ENUM, FLOAT, INT, BOOL, "str"]},
                               "choices": {"type": "array", "items": {
                                   "type": "object", "required": ["value", "label"],
                                   "properties": {"value": string, "label": string}}},
                               "why": string, "source": string}}
    finding = {"type": "object", "required": ["id", "category", "severity", "issue", "evidence"],
               "properties": {"id": string, "category": string,
                              "severity": {"enum": ["info", "warning", "critical"]}, "issue": string,
                              "evidence": {"type": "array"}, "rule": string, "source": cite,
                              "kind": {"enum": list(FINDING_KINDS)},
                              "effects": {"type": "array", "items": {
                                  "type": "object", "required": ["id", "issue"],
                                  "properties": {"id": string, "issue": string}}}}}
    route = {"type": "object", "required": ["skill", "role", "pack", "why", "rule"],
             "properties": {"skill": string, "role": {"enum": ["primary", "secondary"]}, "pack": string,
                            "why": string, "rule": string, "rules": strings, "section": string, "sheet": string}}
    firing = {"type": "object", "required": ["seq", "rule", "matched", "asserted", "retracted"],
              "properties": {"seq": {"type": "integer", "minimum": 0}, "rule": string, "kind": string,
                             "family": string, "cite": cite, "matched": {"type": "array", "items": obj},
                             "asserted": {"type": "array", "items": obj},
                             "retracted": {"type": "array", "items": obj}}}
    observed = {name: _full(s, required_source=True) for name, s in vocab.items()}
    return {
        "$schema": DRAFT, "$id": BASE + "report.schema.json", "title": "trainopt report",
        "description": f"The Training Diagnosis as JSON (schema_version {SCHEMA_VERSION}). The report is always "
                       "strict JSON: a non-finite number anywhere in it (a measured value, declared evidence) is "
                       'written as the string "NaN", "Infinity" or "-Infinity", never as a bare NaN token.',
        "type": "object",
        "required": ["schema_version", "status", "question", "symptom", "findings", "routes", "plan", "boundary",
                     "fixes", "avoid", "trace", "observations", "declined"],
        "properties": {
            "schema_version": {"const": SCHEMA_VERSION},
            "status": {"enum": list(STATUSES)},
            "question": question,
            "symptom": {"type": ["object", "null"], "required": ["value", "source"],
                        "properties": {"value": {"enum": list(vocab["symptom"].choices)}, "label": string,
                                       "source": string}},
            "findings": {"type": "array", "items": finding},
            "routes": {"type": "array", "items": route},
            "plan": {"type": "array", "items": {"enum": skills}, "uniqueItems": True},
            "boundary": {"type": "array", "items": {"type": "object", "required": ["pack", "why"],
                                                    "properties": {"pack": string, "why": string,
                                                                   "joint": {"type": "boolean"}}}},
            "fixes": {"type": "array", "items": {"type": "object", "required": ["explain"],
                                                 "properties": {"rule": string, "explain": string,
                                                                "code": {"type": ["string", "null"]},
                                                                # the set-up a variant's wording is for
                                                                "written_for": {"type": "object",
                                                                                "additionalProperties": string}}}},
            "avoid": strings,
            "trace": {"type": "array", "items": firing},
            "needs_action": {"type": "boolean"},
            "tentative": {"type": ["string", "null"]},
            "differential": {"type": "array", "items": {
                "type": "object", "required": ["id", "issue", "standing"],
                "properties": {"id": string, "issue": string,
                               "standing": {"enum": ["leading", "standing", "open"]},
                               "tentative": {"type": "boolean"}, "severity": string,
                               "for": {"type": "array", "items": {"type": "object",
                                                                  "required": ["observation", "value"]}},
                               "why_first": string, "route": string, "needs": strings, "asked_by": strings}}},
            "complaints": strings,
            "observations": {"type": "object", "properties": observed, "additionalProperties": False},
            "declined": strings,
            "asked": {"type": "array", "items": {"type": "object", "required": ["question", "answer"]}},
            "revisions": {"type": "array", "items": {"type": "object", "required": ["name"]}},
            "notes": {"type": "array", "items": obj},
            "concluded": {
                "description": "Present only when asking stopped with a question still open (quit, end of input, "
                               "the question bound): why it stopped. The plan then leads with the best of what is "
                               "known (a tentative lead where no cause is evidenced), and 'question' is the one "
                               "whose answer would best separate the leading causes.", **string},
            "evidence_incomplete": {
                "description": "Present only when a log was damaged: what was skipped (lines, records, cells) and "
                               "where. The status is then never clean.", **strings},
            "suspected": {
                "description": "Present only when a complaint asked about a cause or suspected a setting ('could it "
                               "be a softmax before the loss?', 'maybe the lr is too low?'): the user's hypotheses, "
                               "as the observation a yes would record, its source ending '(suspected)' (a yes records "
                               "it with '(confirmed)'; a no drops it). A setting suspected beside a described trouble "
                               "is also among the observations, as self_diagnosis. Never evidence of a cause: the "
                               "question that checks one is asked first. Read back with the report.",
                "type": "array", "items": {"type": "object", "required": ["name", "value", "source"],
                                           "properties": {"name": string, "value": {}, "source": string}}},
        },
    }


SCHEMAS = {"observations": observations_schema, "report": report_schema}


def render(name: str) -> str:
    """One schema as the text shipped in ``trainopt/schema/<name>.schema.json``."""
    return json.dumps(SCHEMAS[name](), indent=2, sort_keys=False) + "\n"


def write(folder: Path = SHIPPED) -> list[Path]:
    """(Re)write the shipped schema files; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in SCHEMAS:
        p = folder / f"{name}.schema.json"
        p.write_text(render(name))
        out.append(p)
    return out


if __name__ == "__main__":
    for path in write():
        sys.stdout.write(f"wrote {path}\n")
