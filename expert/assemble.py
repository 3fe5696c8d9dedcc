"""Turn the engine's facts and trail into a Diagnosis: findings with evidence, merged routes, plan, status."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from expert import rx
from expert.choose import open_candidates, supported
from expert.diagnosis import Diagnosis, QuestionView, choices_for
from expert.facts import established, has_ref
from expert.kb import engine_class, rule_catalogue
from expert.plan import order_plan
from expert.priors import first_stop as prior_first_stop
from expert.priors import is_default
from expert.priors import table as prior_table
from knowledge import question as question_row
from knowledge.fix_variants import fix_for
from knowledge.questions import WAIVED_ON_DECLINE
from knowledge.schema import Between, Cross, Find, Ge, Gt, Le, Lt, Row, holds, unmet
from knowledge.skills import HERE
from knowledge.terms import ADVICE_ACTIONS
from knowledge.vocabulary import MEASURED_SOURCES, Observation, spec

if TYPE_CHECKING:
    from expert.engine import Firing

SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2}
KIND_ORDER = {"cause": 0, "lint": 1, "symptom": 2, "note": 3}


def _kind(f: Any) -> str:
    return type(f).__name__


def _first_firings(trail: list[Firing], kind: str, key: str) -> dict[Any, Firing]:
    """The first firing that asserted a fact of ``kind``, by that fact's ``key`` field.

    One pass over the trail for every fact looked up, rather than a pass per fact.
    """
    first: dict[Any, Firing] = {}
    for rec in trail:
        # read as recorded (a fact's class is its plain dict's kind): the trail's dicts are made only where read
        for a in rec.facts_asserted():
            if (a["kind"] if type(a) is dict else type(a).__name__) == kind:
                first.setdefault(a.get(key), rec)
    return first


def evidence_of(observations: Mapping[str, Observation], rec: Firing | None) -> list[dict[str, Any]]:
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
        o = observations.get(m["name"])
        if o is not None and o.evidence:
            item["measured"] = o.evidence
        cond = conds.get(m["name"])
        if isinstance(cond, (Lt, Le, Gt, Ge, Between)):
            item["threshold"] = cond.describe()
            item["threshold_source"] = cond.source or (str(row.cite) if row else "")
        out.append(item)
    return out


@lru_cache(maxsize=1)
def _advice() -> tuple[tuple[str, Any], ...]:
    """``knowledge.terms.ADVICE_ACTIONS``' patterns, compiled: through the regex cache when the process has read it.

    A consultation has (its text reader reads it): the six come from it without compiling. A ``diagnose`` has
    not, and reading the whole table would cost it more than compiling the six (``re.compile``, equal patterns).
    """
    compile_ = rx.compile if rx.loaded() else re.compile
    return tuple((action, compile_(pattern)) for action, pattern in ADVICE_ACTIONS.items())


@lru_cache(maxsize=4096)
def actions_in(text: str) -> frozenset[str]:
    """``knowledge.terms.actions_in``: the advice actions a text names, by the same patterns.

    Read here with the patterns from the regex cache: compiling the six of them cost every process that
    assembles a report about a millisecond (``re.search`` compiles each on first use), and ``knowledge`` imports
    nothing of ours. Each text is read once per process, as there.
    """
    low = text.lower()
    return frozenset(action for action, rx_ in _advice() if rx_.search(low))


def _agree(fixes: list[dict[str, Any]], avoid_by: list[tuple[set[str], str]], ranked: list[str],
           steps: tuple[tuple[str, str], ...] = ()) -> tuple[list[dict[str, Any]], list[str]]:
    """Make the report agree with itself: never advise an action its own What NOT to Do forbids.

    When a fix advises what an avoid entry forbids (``knowledge.terms.actions_in``), the better-evidenced row
    keeps its text and the other's is dropped: causes in their evidence order first, then other findings,
    then rows without a finding (guards, routes), whose advice is generic. A primary plan step (``steps``: a
    route's rule and why; secondary steps are hedged, "only if...") is the engine's verdict and stays: an avoid
    entry of another row that forbids what it says to do is dropped ("Do not just lower the LR" beside a step
    "lower the peak LR").
    """
    rank = {rid: i for i, rid in reversed(list(enumerate(ranked)))}

    def r(rule: str) -> int:
        return rank.get(rule, len(rank))

    drop_fix: set[str] = set()
    drop_avoid: set[str] = set()
    # what each avoid entry forbids and its best-evidenced row, read once rather than once per fix
    forbids = [(rules, text, actions_in(text)) for rules, text in avoid_by]
    forbidding = [(rules, text, acts, min(r(x) for x in rules)) for rules, text, acts in forbids if acts]
    for f in fixes:
        does = actions_in(f"{f['explain']}\n{f['code']}")
        if not does:
            continue
        for rules, text, acts, best in forbidding:
            if f["rule"] in rules or not does & acts:
                continue  # a row's own fix and avoid are written together and never contradict
            if r(f["rule"]) <= best:
                drop_avoid.add(text)
            else:
                drop_fix.add(f["rule"])
    for rule, why in steps:
        does = actions_in(why)
        if does:
            drop_avoid |= {text for rules, text, acts, _ in forbidding if rule not in rules and does & acts}
    return ([f for f in fixes if f["rule"] not in drop_fix],
            [t for _, t in avoid_by if t not in drop_avoid])


def _why_first(lead: dict[str, Any], runner: dict[str, Any] | None, sym_value: Any) -> str:
    """Why the leading cause leads the differential rather than the runner-up, in one sentence."""
    if runner is None:
        return "the only cause the evidence supports so far"
    if lead["kind"] != "suspect" and runner["kind"] == "suspect":
        return f"an evidenced cause outranks a tentative lead ({runner['id']})"
    if sym_value is not None and sym_value in lead["explains"] and sym_value not in runner["explains"]:
        return f"it explains the {sym_value.replace('_', ' ')} symptom and {runner['id']} does not"
    if lead["kind"] == "suspect" and runner["kind"] == "lint":
        return (f"a lead that explains the symptom comes before a configuration warning; {runner['id']} is "
                "still shown, beside it")
    if SEVERITY_ORDER.get(lead["severity"], 9) < SEVERITY_ORDER.get(runner["severity"], 9):
        return f"it is more severe than {runner['id']} ({lead['severity']} vs {runner['severity']})"
    if KIND_ORDER.get(lead["kind"], 9) < KIND_ORDER.get(runner["kind"], 9):
        return f"a fault of the run comes before a configuration lint ({runner['id']})"
    measured = any(str(e["source"]).startswith("probe:") for e in lead["evidence"])
    if measured and not any(str(e["source"]).startswith("probe:") for e in runner["evidence"]):
        return f"it rests on a measurement, {runner['id']} on what was said"
    return f"equal evidence; the earlier entry in the knowledge leads ({runner['id']} follows)"


RUN_KIND_PACKS = frozenset({"deep-rl", "llm-specialist"})
"""Packs that own a kind of training run (RL, language-model fine-tuning), not a kind of failure: a boundary to one
of them, drawn from what the run is, may take the first stop from a symptom's default."""


def _defers(info: Any, pack: str) -> bool:
    """Whether a rule's row draws an exclusive boundary to ``pack``, a pack that owns the kind of run."""
    row = getattr(info, "row", None)
    return pack in RUN_KIND_PACKS and isinstance(row, Row) and any(
        isinstance(a, Cross) and a.pack == pack and not a.joint for a in row.then)


def _waived_gate(u: Any, declined: set[str]) -> bool:
    """Whether an unmet gate of a question is one the user waived by declining its own question."""
    return not u.known and not u.ref and any(q in declined for q in WAIVED_ON_DECLINE.get(u.name, ()))


def _differential(standing: list[dict[str, Any]], lead_id: str | None, values: Mapping[str, Any],
                  facts: list[Any], sym_value: Any, limit: int = 3) -> list[dict[str, Any]]:
    """The leading causes: those the evidence supports, the leader first, then the open candidates.

    An open candidate is a cause the knowledge could still conclude, that nothing known contradicts and that
    waits on observations a question can ask (``expert.choose.candidates``): what it needs is listed with the
    questions that ask for it. Open candidates are listed only while the lead is tentative (or there is none):
    an evidenced cause stands on its own.
    """
    ordered = sorted(standing, key=lambda f: f["id"] != lead_id)
    out: list[dict[str, Any]] = []
    for i, f in enumerate(ordered):
        entry = {"id": f["id"], "issue": f["issue"], "standing": "leading" if f["id"] == lead_id else "standing",
                 "tentative": f["kind"] == "suspect", "severity": f["severity"],
                 "for": [{"observation": e["observation"], "value": e["value"]} for e in f["evidence"]]}
        if f["id"] == lead_id:
            entry["why_first"] = _why_first(f, ordered[i + 1] if i + 1 < len(ordered) else None, sym_value)
        out.append(entry)
    if lead_id is not None and not any(e["tentative"] for e in out if e["id"] == lead_id):
        return out  # an evidenced cause stands: what is still open does not compete with it
    est = established(facts)

    def has(ref: str) -> bool:
        return has_ref(est, ref)

    eng = engine_class()
    declined = {f["question"] for f in facts if type(f).__name__ == "Declined"}
    asks: dict[str, list[str]] = {}
    for q in eng.questions.values():
        asks.setdefault(q.sets, []).append(q.id)
    shown = {e["id"] for e in out}
    # Only candidates something known speaks for (``expert.choose.supported``): one that merely waits on
    # questions whose own gates are unmet is possible for any run.
    refused = {q.sets for q in eng.questions.values() if q.id in declined}  # under any question that asks it
    # (``holds`` is ``not unmet(...)`` without listing the failures: it decides every question whose gates all hold,
    # and the failures are listed only to see whether each is a gate the user waived, which needs a decline)
    applicable = {q.sets for q in eng.questions.values() if q.sets not in values and q.sets not in refused
                  and (holds(q, values, has) or bool(declined) and not [
                      u for u in unmet(q, values, has, explain=False) if not _waived_gate(u, declined)])}
    opened = [p for p in open_candidates(eng.pooled, eng.questions, values, est, declined) if p.row.id not in shown
              and (sym_value is None or not p.explains or sym_value in p.explains)
              and supported(p, values, applicable)]
    # The causes the pending question decides come first: they are what its answer will confirm or rule out.
    pending = {f["sets"] for f in facts if type(f).__name__ == "Question"}
    opened.sort(key=lambda p: (not (p.names & pending), -p.weight, p.row.id))
    for p in opened[:limit]:
        missing = sorted(n for n in p.names if n not in values)
        finds = [a for a in p.row.then if isinstance(a, Find)]
        out.append({"id": p.row.id, "issue": finds[0].issue if finds else p.row.rationale, "standing": "open",
                    "tentative": True, "route": p.group, "needs": missing,
                    "asked_by": sorted({q for n in missing for q in asks.get(n, ())})})
    return out


def assemble(observations: Mapping[str, Observation], asked: list[dict[str, Any]], facts: list[Any],
             trail: list[Firing], incomplete: Sequence[str] = ()) -> Diagnosis:
    """Build the Diagnosis from the consultation's observations and answers, the engine's final facts and trail.

    ``incomplete`` says what a damaged log could not give: with any, the status is never clean.
    """
    cat = rule_catalogue()
    by_kind: dict[str, list[Any]] = {}
    for f in facts:
        by_kind.setdefault(_kind(f), []).append(f)

    # findings ---------------------------------------------------------------------------------------
    findings = []
    asserted_by = _first_firings(trail, "Finding", "id")
    for f in by_kind.get("Finding", []):
        rec = asserted_by.get(f["id"])
        info = cat.get(f["id"])
        findings.append({
            "id": f["id"], "category": f["category"], "severity": f["severity"], "issue": f["issue"],
            "kind": f.get("finding_kind", "cause"), "explains": list(f.get("explains", ())),
            "evidence": evidence_of(observations, rec), "rule": f["id"],
            "source": info.cite.as_dict() if info and info.cite else None,
        })
    findings.sort(key=lambda d: (SEVERITY_ORDER.get(d["severity"], 9), KIND_ORDER.get(d["kind"], 9), d["id"]))
    causes = [f for f in findings if f["kind"] in ("cause", "lint") and f["severity"] in ("warning", "critical")]
    sym = observations.get("symptom")
    sym_value = sym.value if sym else next((o["value"] for o in by_kind.get("Obs", []) if o["name"] == "symptom"),
                                           None)
    # A lint whose primary route the engine demoted (CORE-LINT-01: something about the run itself routes a first
    # stop) is a standing configuration warning beside the run's diagnosis, not its explanation; one whose route
    # still stands primary is what the run is read by, and may lead.
    leading_rules = {r["rule"] for r in by_kind.get("Route", []) if r["role"] == "primary"}

    def beside(f: dict[str, Any]) -> bool:
        return f["kind"] == "lint" and f["id"] not in leading_rules

    # The best-evidenced cause: one that explains the symptom, a cause (or a lint the run is read by) before a
    # lint standing beside the diagnosis, the most severe, a cause of the run before a configuration lint, and
    # among equals the one measured by a probe (numbers beat answers), then the id.
    causes.sort(key=lambda f: (sym_value is not None and sym_value not in f["explains"], beside(f),
                               SEVERITY_ORDER[f["severity"]], KIND_ORDER[f["kind"]],
                               not any(str(e["source"]).startswith("probe:") for e in f["evidence"]), f["id"]))
    # With no cause evidenced, the likeliest suspect leads (marked tentative): the evidence points at it more
    # specifically than at the symptom table's default first stop.
    suspects = [f for f in findings if f["kind"] == "suspect" and (sym_value is None or sym_value in f["explains"])]
    # A cause that does not explain the stated symptom (a slow loader beside a NaN) stands as a finding but
    # does not take the first stop from the symptom's own route. Nor does a lint standing beside the diagnosis
    # where a suspect explains the symptom: the tentative lead comes first and the warning is still shown.
    primary_cause = causes[0]["id"] if causes and (sym_value is None or sym_value in causes[0]["explains"]) \
        and not (suspects and beside(causes[0])) else None
    tentative = suspects[0]["id"] if suspects and primary_cause is None else None
    if tentative is not None:
        # The symptom table's reading of the same symptom is an effect the lead explains: shown under it.
        lead_finding = suspects[0]
        lead_finding["effects"] = [{"id": f["id"], "issue": f["issue"]} for f in findings if f["kind"] == "symptom"]
        # The lead is listed first: a configuration warning or a cause that does not explain the symptom stands
        # beside it, never in its place.
        findings = [lead_finding] + [f for f in findings if f["kind"] != "symptom" and f is not lead_finding]

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
    symptom_obs = observations.get("symptom")
    symptom_value = symptom_obs.value if symptom_obs else None
    derived_symptom = next((f for f in by_kind.get("Obs", []) if f["name"] == "symptom"), None)
    if symptom_value is None and derived_symptom is not None:
        symptom_value = derived_symptom["value"]
    plan = order_plan(((r["skill"], r["role"]) for r in merged.values()), symptom_value)
    lead = next((r["skill"] for r in by_kind.get("Route", []) if r["rule"] == (primary_cause or tentative)
                 and r["role"] == "primary"), None)
    if lead is None and plan and primary_cause is None and tentative is None \
            and is_default(merged[plan[0]]["rules"], cat):
        # Nothing evidenced chose the first stop: the symptom's default did. Where the dev threads that reached
        # the same default clearly confirmed another of the routed skills, that one leads (expert.priors).
        blocked = {b["skill"] for b in by_kind.get("Block", [])}
        lead = prior_first_stop(plan, symptom_value, blocked)
        if lead is not None:
            votes = prior_table().get(symptom_value or "", {})
            merged[lead]["why"] += (f" (first: {votes.get(lead, 0)} real threads that reached this symptom's default "
                                    f"confirmed it, against {votes.get(plan[0], 0)} for {plan[0]})")
    if lead in plan:
        # The first stop is where the best-evidenced cause (or the leading suspect, or the prior) is fixed; the
        # graph orders the rest.
        plan = [lead] + [s for s in plan if s != lead]
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

    # A plan whose every stop is the symptom table's default (no cause, no suspect chose any of it) is a guess about
    # causes of ours. A boundary the seeds draw as exclusive to a pack that owns the kind of run (an RL task: "RL
    # training issues: defer to deep-rl"; an LLM fine-tune) reads something more specific than the symptom; it stays
    # joint only because a training symptom was described alongside. Then the deferral is the first stop and the
    # guesses give way to it. Not for an unstable run: a NaN or a divergence is training dynamics, which those
    # boundaries leave here. (A boundary to a pack that owns a kind of failure, an OOM after memory growth, is often
    # the symptom's own consequence and does not displace the symptom's route.)
    deferred = [b for b in boundary if any(_defers(cat.get(r), b["pack"]) for r in b["rules"])]
    deferred_over_default = bool(plan and deferred and primary_cause is None and tentative is None
                                 and symptom_value != "unstable"
                                 and all(is_default(merged[s]["rules"], cat) for s in plan))
    if deferred_over_default:
        plan, routes = [], []
        boundary = deferred + [b for b in boundary if b not in deferred]

    # question ---------------------------------------------------------------------------------------
    qv = None
    qf = by_kind.get("Question", [])
    if qf:
        q = question_row(qf[0]["id"])
        if q is not None:
            qv = QuestionView(q.id, q.text, q.sets, spec(q.sets).kind, choices_for(q), q.why, str(q.cite),
                              str(qf[0].get("chosen", "")))

    # fixes and what not to do, from every row that fired and still stands --------------------------
    fixes: list[dict[str, Any]] = []
    fixed: set[str] = set()  # the rules in ``fixes`` (a rule's fix is listed once)
    avoid: list[str] = []
    standing = {f["id"] for f in by_kind.get("Finding", [])} | {r["rule"] for r in by_kind.get("Route", [])} \
        | {b["rule"] for b in by_kind.get("Boundary", [])} | {b["rule"] for b in by_kind.get("Block", [])} \
        | {f["rule"] for f in by_kind.get("Flag", [])}
    avoid_by: list[tuple[set[str], str]] = []  # (rules that say it, text)
    values = {name: o.value for name, o in observations.items()}
    for rec in trail:
        info = cat.get(rec.rule)
        row = info.row if info else None
        if not isinstance(row, Row) or row.id not in standing:
            continue
        fix, variant = fix_for(row.id, row.fix, values)  # the fix as the user's set-up writes it
        if fix is not None and row.id not in fixed:
            fixed.add(row.id)
            fixes.append({"rule": row.id, "explain": fix.explain, "code": fix.code,
                          **({"written_for": dict(sorted((k, str(v)) for k, v in variant.when.items()))}
                             if variant else {})})
        for a in row.avoid:
            same = next((rules for rules, t in avoid_by if t == a), None)
            if same is None:
                avoid_by.append(({row.id}, a))
            else:
                same.add(row.id)
    fixes, avoid = _agree(fixes, avoid_by, [f["id"] for f in causes] + [f["id"] for f in findings],
                          tuple((m["rule"], m["why"]) for m in merged.values() if m["role"] == "primary"))

    # Flags without a detail are internal markers between rows, not something to tell the user.
    notes = [{"rule": f["rule"], "name": f["name"], "detail": f["detail"]}
             for f in sorted(by_kind.get("Flag", []), key=lambda f: f["rule"]) if f["detail"]]

    # status -----------------------------------------------------------------------------------------
    exclusive = [b for b in boundary if not b["joint"]]
    if qv is not None:
        status = "needs_answer"
    elif (exclusive or deferred_over_default) and not any(r["pack"] == HERE for r in routes):
        # Routes that only point at other packs restate the boundary; nothing here is ours to diagnose.
        status = "out_of_scope"
    elif routes or any(f["severity"] in ("warning", "critical") for f in findings):
        status = "diagnosed"
    elif observations and (all(o.source.startswith(MEASURED_SOURCES) for o in observations.values())
                             or any(f["name"] == "healthy_evidence" for f in by_kind.get("Flag", []))):
        # Healthy evidence is healthy whoever reports it: a probe, a log, or a user declaring the same facts.
        status = "clean"
    else:
        status = "insufficient"
    if status == "clean" and incomplete:
        status = "insufficient"  # a damaged log is not a healthy one: what it lost may hold the problem

    symptom = None
    if symptom_value is not None:
        src = symptom_obs.source if symptom_obs else derived_symptom["source"]
        symptom = {"value": symptom_value, "label": symptom_value.replace("_", " "), "source": src}
    return Diagnosis(status=status, symptom=symptom, question=qv, findings=findings, routes=routes, plan=plan,
                     boundary=boundary, fixes=fixes, avoid=avoid, asked=asked, notes=notes,
                     causes=[f["id"] for f in causes], primary_cause=primary_cause, tentative=tentative,
                     incomplete=list(incomplete),
                     differential=_differential(
                         [f for f in findings if f["kind"] in ("cause", "lint", "suspect")
                          and (f["severity"] in ("warning", "critical") or f["kind"] == "suspect")],
                         primary_cause or tentative, {o.name: o.value for o in observations.values()}
                         | {o["name"]: o["value"] for o in by_kind.get("Obs", [])}, facts, sym_value))
