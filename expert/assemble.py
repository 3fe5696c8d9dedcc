"""Turn the engine's facts and trail into a Diagnosis: findings with evidence, merged routes, plan, status."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from expert.diagnosis import Diagnosis, QuestionView, choices_for
from expert.kb import rule_catalogue
from expert.plan import order_plan
from expert.vocabulary import spec
from knowledge import question as question_row
from knowledge.schema import Between, Ge, Gt, Le, Lt, Row
from knowledge.skills import HERE

if TYPE_CHECKING:
    from expert.consultation import Consultation
    from expert.engine import Firing

SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2}


def _kind(f: Any) -> str:
    return type(f).__name__


def _firing_for(trail: list[Firing], kind: str, **match: Any) -> Firing | None:
    for rec in trail:
        for a in rec.asserted:
            if a["kind"] == kind and all(a.get(k) == v for k, v in match.items()):
                return rec
    return None


def evidence_of(c: Consultation, rec: Firing | None) -> list[dict[str, Any]]:
    """The observations a firing matched, with provenance, probe measurements and the thresholds applied."""
    if rec is None:
        return []
    info = rule_catalogue().get(rec.rule)
    row = info.row if info else None
    conds = row.conditions() if isinstance(row, Row) else {}
    out = []
    for m in rec.matched:
        if m["kind"] != "Obs":
            continue
        item: dict[str, Any] = {"observation": m["name"], "value": m["value"], "source": m["source"]}
        o = c.observations.get(m["name"])
        if o is not None and o.evidence:
            item["measured"] = o.evidence
        cond = conds.get(m["name"])
        if isinstance(cond, (Lt, Le, Gt, Ge, Between)):
            item["threshold"] = cond.describe()
            item["threshold_source"] = cond.source or (str(row.cite) if row else "")
        out.append(item)
    return out


def assemble(c: Consultation, facts: list[Any], trail: list[Firing]) -> Diagnosis:
    """Build the Diagnosis for consultation ``c`` from the engine's final facts and trail."""
    cat = rule_catalogue()
    by_kind: dict[str, list[Any]] = {}
    for f in facts:
        by_kind.setdefault(_kind(f), []).append(f)

    # findings ---------------------------------------------------------------------------------------
    findings = []
    for f in by_kind.get("Finding", []):
        rec = _firing_for(trail, "Finding", id=f["id"])
        info = cat.get(f["id"])
        findings.append({
            "id": f["id"], "category": f["category"], "severity": f["severity"], "issue": f["issue"],
            "evidence": evidence_of(c, rec), "rule": f["id"],
            "source": info.cite.as_dict() if info and info.cite else None,
        })
    findings.sort(key=lambda d: (SEVERITY_ORDER.get(d["severity"], 9), d["id"]))

    # routes (merged per skill: primary wins; every contributing rule kept) --------------------------
    merged: dict[str, dict[str, Any]] = {}
    for r in sorted(by_kind.get("Route", []), key=lambda r: (r["role"] != "primary", r["rule"], r["skill"])):
        cur = merged.get(r["skill"])
        if cur is None:
            merged[r["skill"]] = {"skill": r["skill"], "role": r["role"], "pack": r["pack"], "why": r["why"],
                                  "rule": r["rule"], "section": r["section"], "rules": [r["rule"]]}
        else:
            if r["rule"] not in cur["rules"]:
                cur["rules"].append(r["rule"])
            if r["section"] and not cur["section"]:
                cur["section"] = r["section"]
    symptom_obs = c.observations.get("symptom")
    symptom_value = symptom_obs.value if symptom_obs else None
    derived_symptom = next((f for f in by_kind.get("Obs", []) if f["name"] == "symptom"), None)
    if symptom_value is None and derived_symptom is not None:
        symptom_value = derived_symptom["value"]
    plan = order_plan(((r["skill"], r["role"]) for r in merged.values()), symptom_value)
    routes = [merged[s] for s in plan]

    # boundaries -------------------------------------------------------------------------------------
    # One entry per (pack, exclusive/joint): several rows may draw the same boundary; all their ids are kept.
    boundary: list[dict[str, Any]] = []
    for b in sorted(by_kind.get("Boundary", []), key=lambda b: (b["joint"], b["rule"])):
        same = next((x for x in boundary if x["pack"] == b["pack"] and x["joint"] == b["joint"]), None)
        if same is None:
            boundary.append({"pack": b["pack"], "joint": b["joint"], "why": b["why"], "rule": b["rule"],
                             "target": b["target"], "rules": [b["rule"]]})
        else:
            same["rules"].append(b["rule"])
            same["target"] = same["target"] or b["target"]

    # question ---------------------------------------------------------------------------------------
    qv = None
    qf = by_kind.get("Question", [])
    if qf:
        q = question_row(qf[0]["id"])
        if q is not None:
            qv = QuestionView(q.id, q.text, q.sets, spec(q.sets).kind, choices_for(q), q.why, str(q.cite))

    # fixes and what not to do, from every row that fired and still stands --------------------------
    fixes: list[dict[str, Any]] = []
    avoid: list[str] = []
    standing = {f["id"] for f in by_kind.get("Finding", [])} | {r["rule"] for r in by_kind.get("Route", [])} \
        | {b["rule"] for b in by_kind.get("Boundary", [])} | {b["rule"] for b in by_kind.get("Block", [])} \
        | {f["rule"] for f in by_kind.get("Flag", [])}
    for rec in trail:
        info = cat.get(rec.rule)
        row = info.row if info else None
        if not isinstance(row, Row) or row.id not in standing:
            continue
        if row.fix is not None and not any(x["rule"] == row.id for x in fixes):
            fixes.append({"rule": row.id, "explain": row.fix.explain, "code": row.fix.code})
        for a in row.avoid:
            if a not in avoid:
                avoid.append(a)

    # Flags without a detail are internal markers between rows, not something to tell the user.
    notes = [{"rule": f["rule"], "name": f["name"], "detail": f["detail"]}
             for f in sorted(by_kind.get("Flag", []), key=lambda f: f["rule"]) if f["detail"]]

    # status -----------------------------------------------------------------------------------------
    exclusive = [b for b in boundary if not b["joint"]]
    if qv is not None:
        status = "needs_answer"
    elif exclusive and not any(r["pack"] == HERE for r in routes):
        # Routes that only point at other packs restate the boundary; nothing here is ours to diagnose.
        status = "out_of_scope"
    elif routes or any(f["severity"] in ("warning", "critical") for f in findings):
        status = "diagnosed"
    elif c.observations and all(o.source.startswith("probe:") for o in c.observations.values()):
        status = "clean"
    else:
        status = "insufficient"

    symptom = None
    if symptom_value is not None:
        src = symptom_obs.source if symptom_obs else derived_symptom["source"]
        symptom = {"value": symptom_value, "label": symptom_value.replace("_", " "), "source": src}
    return Diagnosis(status=status, symptom=symptom, question=qv, findings=findings, routes=routes, plan=plan,
                     boundary=boundary, fixes=fixes, avoid=avoid, asked=c.asked, notes=notes)
