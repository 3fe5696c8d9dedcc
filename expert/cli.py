"""The ``trainopt`` command line: consult, diagnose, explain, facts, rules, rule, skills, demo.

Start-up stays cheap: this module imports only click and the error classes; the engine (experta,
networkx) loads inside the commands that need it, and torch only inside probes. The pipeline commands' bodies
(consult, diagnose, logs) are ``expert.pipeline``'s, which the program runs without click for a plain call.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from expert import pipeline, startup
from expert.pipeline import emit_report, failure, read_json
from expert.pipeline import exit_code_for as exit_code_for  # tests and callers import it from here
from knowledge.errors import EXIT_ACTION, EXIT_INTERRUPTED, InputError, excerpt, shorten_part

if TYPE_CHECKING:
    from expert.consultation import Consultation

FORMAT = click.Choice(["text", "markdown", "json"])
PLAIN_FORMAT = click.Choice(["text", "json"])


class _Group(click.Group):
    """Maps trainopt errors to their exit codes and anything unexpected to the internal-error code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as e:
            # click quotes the offending argument whole (an invalid choice, a path): keep it short and printable.
            e.message = shorten_part(e.message)
            raise
        except (click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except BaseException as e:  # noqa: BLE001 - reported as a plain call reports it (``expert.pipeline``)
            code = failure(e, ctx.invoked_subcommand)
            if code is None:
                raise
            ctx.exit(code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="trainopt", prog_name="trainopt", message="%(prog)s %(version)s")
def cli() -> None:
    """Diagnose PyTorch training problems and route them to the right specialist skill.

    Exit codes: 0 diagnosed or clean, 1 findings that need action or a question still open,
    2 usage or input error, 3 internal error, 4 the examined script called sys.exit (130: interrupted).
    """


VERBOSE = click.option("--verbose", "-v", is_flag=True,
                       help="Full report: every observation, full threshold sources, measured values, audit trail.")


# ---------------------------------------------------------------------------------------------------
# consult / diagnose / explain
# ---------------------------------------------------------------------------------------------------


@cli.command()
@click.option("--format", "fmt", type=FORMAT, default="text", show_default=True, help="Report format.")
@VERBOSE
def consult(fmt: str, verbose: bool) -> None:
    """Interactive consultation: a complaint, then one question at a time.

    At a question: a number picks a choice, or type the value (3e-4, 50k, 95%); `?` explains why it is asked,
    `why` shows the reasoning so far, `back` undoes the last answer (or the complaint), `forget NAME` drops a
    misread value, `skip` declines, `quit` stops. Lines can be edited, with history, at a terminal.
    """
    pipeline.consult(fmt, verbose)


@cli.command()
@click.argument("source", metavar="FILE|-")
@click.option("--format", "fmt", type=FORMAT, default="text", show_default=True, help="Report format.")
@VERBOSE
def diagnose(source: str, fmt: str, verbose: bool) -> None:
    """Diagnose from a JSON object of observations (never asks).

    The object maps observation names to values (see `trainopt facts`); an optional "complaint" holds free
    text and "declined" lists question ids to skip. A pending question is reported as what to answer next.
    """
    pipeline.diagnose(source, fmt, verbose)


def _consultation_from(report: str | None, observations: str | None) -> Consultation:
    from expert.consultation import Consultation

    if (report is None) == (observations is None):
        raise click.UsageError("give exactly one of --report FILE or --observations FILE|-")
    if observations is not None:
        return Consultation.from_json(read_json(observations))
    data = read_json(report)  # type: ignore[arg-type]
    if not isinstance(data, dict) or not isinstance(data.get("observations"), dict):
        raise InputError("not a trainopt JSON report (no 'observations' object)",
                         hint="save one with `trainopt diagnose --format json FILE > report.json`")
    obs = dict(data["observations"])
    obs["declined"] = data.get("declined", [])
    return Consultation.from_json(obs)


def _complete_skill(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion: skill names from the skill graph."""
    from click.shell_completion import CompletionItem

    from knowledge.skills import SKILLS

    return [CompletionItem(s.name, help=s.pack) for s in SKILLS if s.name.startswith(incomplete)]


def _complete_rule(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion: rule ids (row, question, hand-written and core rules)."""
    from click.shell_completion import CompletionItem

    from expert.kb import rule_catalogue

    up = incomplete.upper()
    return [CompletionItem(r, help=i.family) for r, i in sorted(rule_catalogue().items()) if r.startswith(up)]


@cli.command()
@click.argument("skill", shell_complete=_complete_skill)
@click.option("--why-not", is_flag=True, help="Explain why the skill was not routed (or not as primary).")
@click.option("--report", "report", metavar="FILE", help="A saved JSON report (trainopt diagnose --format json).")
@click.option("--observations", "observations", metavar="FILE|-", help="A JSON object of observations.")
@click.option("--format", "fmt", type=PLAIN_FORMAT, default="text", show_default=True)
@click.option("--verbose", "-v", is_flag=True, help="With --why-not, also the rows that what is known rules out.")
def explain(skill: str, why_not: bool, report: str | None, observations: str | None, fmt: str,
            verbose: bool) -> None:
    """Why SKILL was routed (route, rule, facts, provenance), or with --why-not why it was not.

    --why-not shows the guard that blocked SKILL, then the rows that route there, nearest first (the fewest
    missing facts); rows that what is known already rules out are counted, and listed with --verbose.
    """
    import os

    c = _consultation_from(report, observations)
    e = c.explain(skill, why_not=why_not)
    if fmt == "json":
        click.echo(json.dumps(e.as_dict(), indent=2))
    elif sys.stdout.isatty():
        from rich.console import Console

        # A terminal gets rich's tree, wrapped to its width; pipes get the plain tree, one line per node.
        Console(highlight=False, markup=False, emoji=False, no_color=bool(os.environ.get("NO_COLOR"))
                ).print(e.rich_tree(verbose=verbose))
    else:
        click.echo(e.text(verbose=verbose), nl=False)


# ---------------------------------------------------------------------------------------------------
# knowledge: facts, rules, rule, skills
# ---------------------------------------------------------------------------------------------------


@cli.command()
@click.option("--format", "fmt", type=PLAIN_FORMAT, default="text", show_default=True)
def facts(fmt: str) -> None:
    """List the observation vocabulary: every name, its type, allowed values and the question that asks it."""
    from knowledge import families
    from knowledge.vocabulary import VOCABULARY

    families()  # families may register extra observations; loading them imports no engine
    specs = sorted(VOCABULARY.values(), key=lambda s: (s.group, s.name))
    if fmt == "json":
        click.echo(json.dumps({"observations": [s.as_dict() for s in specs]}, indent=2))
        return
    group = None
    for s in specs:
        if s.group != group:
            group = s.group
            click.echo(f"\n[{group}]")
        asked = f"  (asked by {s.question})" if s.question else ""
        click.echo(f"  {s.name:<24} {s.kind:<5} {s.help}{asked}")
        click.echo(f"  {'':<24} {'':<5} allowed: {s.allowed()}")


def _rule_rows() -> list[dict[str, Any]]:
    from expert.kb import rule_catalogue

    out = []
    for rid, info in rule_catalogue().items():
        out.append({"id": rid, "family": info.family, "kind": info.kind, "rationale": info.rationale,
                    "cite": info.cite.as_dict() if info.cite else None})
    return out


@cli.command()
@click.option("--format", "fmt", type=PLAIN_FORMAT, default="text", show_default=True)
def rules(fmt: str) -> None:
    """List every rule: id, family, kind (row, question, hand-written, core) and its rationale."""
    rows = _rule_rows()
    if fmt == "json":
        click.echo(json.dumps({"rules": rows}, indent=2))
        return
    for r in rows:
        click.echo(f"{r['id']:<22} {r['family']:<12} {r['kind']:<8} {_one_line(r['rationale'])}")
    click.echo(f"\n{len(rows)} rules; `trainopt rule ID` shows one in full.", err=True)


def _one_line(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def rule_detail(rule_id: str) -> dict[str, Any]:
    """Everything known about one rule, JSON-ready (for ``trainopt rule ID``).

    Raises:
        InputError: Unknown rule id.
    """
    from expert.kb import rule_catalogue
    from expert.wording import plain
    from knowledge.measurements import MEASURE_BY_ID, threshold_detail
    from knowledge.schema import QuestionRow, Row

    if rule_id.upper() in MEASURE_BY_ID:  # thresholds are knowledge rows too (issue 7)
        return threshold_detail(rule_id.upper())
    cat = rule_catalogue()
    info = cat.get(rule_id) or cat.get(rule_id.upper())
    if info is None:
        ids = [*cat, *MEASURE_BY_ID]
        import difflib

        near = (difflib.get_close_matches(rule_id.upper(), ids, n=5, cutoff=0.6)
                or [r for r in ids if rule_id.upper() in r])
        hint = ("did you mean " + ", ".join(near[:5]) + "?") if near else "list them with `trainopt rules`"
        raise InputError(f"unknown rule {excerpt(rule_id)}", hint=hint)
    d: dict[str, Any] = {"id": info.id, "kind": info.kind, "family": info.family, "rationale": info.rationale,
                         "cite": info.cite.as_dict() if info.cite else None}
    row = info.row
    if isinstance(row, (Row, QuestionRow)):
        d["conditions"] = [{"observation": n, "test": c.describe()} for n, c in sorted(row.conditions().items())]
        d["need"] = list(row.need)
        d["unless"] = list(row.unless)
    if isinstance(row, Row):
        d["salience"] = row.salience
        d["conclusions"] = [{"action": type(a).__name__, **plain(vars(a))} for a in row.then]
        d["thresholds"] = row.thresholds()
        d["fix"] = {"explain": row.fix.explain, "code": row.fix.code} if row.fix else None
        d["avoid"] = list(row.avoid)
    if isinstance(row, QuestionRow):
        from expert.consultation import choices_for

        d.update({"sets": row.sets, "text": row.text, "rank": row.rank, "why": row.why,
                  "choices": [{"value": v, "label": lab} for v, lab in choices_for(row)]})
    return d


@cli.command()
@click.argument("rule_id", metavar="ID", shell_complete=_complete_rule)
@click.option("--format", "fmt", type=PLAIN_FORMAT, default="text", show_default=True)
def rule(rule_id: str, fmt: str) -> None:
    """Show one rule in full: conditions, conclusions, thresholds with sources, fix, what to avoid, citation."""
    d = rule_detail(rule_id)
    if fmt == "json":
        click.echo(json.dumps(d, indent=2))
        return
    echo = click.echo
    echo(f"{d['id']}  ({d['kind']}, family {d['family']})")
    if d["cite"]:
        echo(f"  source: {d['cite']['source']}\n          {d['cite']['table']} / {d['cite']['row']}")
    echo(f"  rationale: {d['rationale']}")
    if "text" in d:
        echo(f"  asks: {d['text']}  (sets {d['sets']}, rank {d['rank']})")
        for ch in d["choices"]:
            echo(f"    - {ch['value']}: {ch['label']}")
    if d.get("conditions") is not None:
        echo("  when:" + ("" if d["conditions"] else " always"))
        for c in d["conditions"]:
            echo(f"    {c['observation']} {c['test']}")
        for ref in d.get("need", []):
            echo(f"    needs {ref}")
        for ref in d.get("unless", []):
            echo(f"    unless {ref}")
    for c in d.get("conclusions", []):
        fields = ", ".join(f"{k}={v!r}" for k, v in c.items() if k != "action" and v not in ("", None))
        echo(f"  then: {c['action']}({fields})")
    for t in d.get("thresholds", []):
        echo(f"  threshold: {t['observation']} {t['test']}  (source: {t['source']})")
    if d.get("fix"):
        echo(f"  fix: {d['fix']['explain']}")
        for ln in (d["fix"]["code"] or "").splitlines():
            echo(f"      {ln}")
    for a in d.get("avoid", []):
        echo(f"  avoid: {a}")


@cli.command()
@click.option("--format", "fmt", type=PLAIN_FORMAT, default="text", show_default=True)
def skills(fmt: str) -> None:
    """Show the skill graph ("consult before" edges) and the seeds' scenario orders."""
    from expert.plan import describe_graphs

    g = describe_graphs()
    if fmt == "json":
        click.echo(json.dumps(g, indent=2))
        return
    click.echo("Skills:")
    for s in g["skills"]:
        click.echo(f"  {s['name']:<34} {s['pack']:<24} {_one_line(s['covers'], 70)}")
    for name, graph in g["graphs"].items():
        click.echo(f"\nGraph {name!r}: {' -> '.join(graph['topological_order'])}")
        for e in graph["edges"]:
            click.echo(f"  {e['before']} -> {e['after']}  ({', '.join(e['scenarios'])})")
    click.echo("\nScenario orders:")
    for sc in g["scenarios"]:
        click.echo(f"  {sc['name']} [{sc['graph']}]: {' -> '.join(sc['order'])}")
        click.echo(f"      {sc['why']}")


# ---------------------------------------------------------------------------------------------------
# demo
# ---------------------------------------------------------------------------------------------------


def run_demo(example: str, fmt: str = "text", write: Any = None) -> Consultation:
    """Replay a shipped consultation and print the transcript, the report and the audit trail.

    Args:
        example: Example name (see ``expert/examples``) or a path to a JSON script.
        fmt: Report format.
        write: Where the transcript goes (default: stdout, or stderr for JSON).

    Returns:
        The finished consultation.
    """
    from expert.repl import load_example, replay
    from expert.report import render, render_trail

    err = fmt == "json"
    out = write or (lambda s: click.echo(s, nl=False, err=err))
    c = replay(load_example(example), out)
    out("\n")
    if fmt == "json":
        click.echo(render(c.outcome(), "json"), nl=False)
        return c
    out(render(c.outcome(), fmt))
    out("\nOrdered plan: " + (" -> ".join(c.diagnosis.plan) or "(none)") + "\n")
    out("\nAudit trail (every rule firing, in order):\n" + render_trail(c.trace, markdown=fmt == "markdown") + "\n")
    return c


@cli.command()
@click.option("--replay", is_flag=True, help="Replay a shipped consultation instead of the live training run.")
@click.option("--example", default=None, help="Which shipped consultation to replay (see --list; implies --replay).")
@click.option("--list", "list_", is_flag=True, help="List the shipped consultations.")
@click.option("--format", "fmt", type=FORMAT, default="text", show_default=True, help="Report format.")
def demo(replay: bool, example: str | None, list_: bool, fmt: str) -> None:
    """Train a small broken run under the probes and print its diagnosis, plan and audit trail.

    With --replay (or --example), replay a shipped consultation instead: complaint, questions and answers.
    Exits 0 when the demo completes (whatever it diagnoses), so `make demo` succeeds.
    """
    from expert.repl import DEFAULT_EXAMPLE, list_examples

    startup.settle()  # it trains a model
    if list_:
        for name in list_examples():
            click.echo(name)
        return
    if replay or example:
        run_demo(example or DEFAULT_EXAMPLE, fmt)
        return
    from expert.demo import run_demo as live_demo

    err = fmt == "json"
    if err:
        c = live_demo(lambda t: click.echo(t, nl=False, err=True), fmt="text")
        from expert.report import render

        click.echo(render(c.outcome(), "json"), nl=False)
    else:
        live_demo(lambda t: click.echo(t, nl=False), fmt=fmt)


@cli.command()
@click.argument("script", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=FORMAT, default="text", show_default=True, help="Report format.")
def examine(script: str, fmt: str) -> None:
    """Probe your own model: SCRIPT.py defines trainopt_target() returning a dict with model, loss_fn, batch.

    Optional keys: optimizer, num_classes, val_batch, loader, scheduler, scaler, steps. The model, optimizer and
    RNGs are left exactly as found. Exits 1 when a finding needs action, 0 when clean, 2 when the script, the
    model, the loss or the optimizer raises (the message names the failing call and the last frame in your code).
    """
    import runpy

    from expert.consultation import Consultation
    from probes.exam import user_call

    startup.settle()  # the user's script builds and runs a model

    # Errors in the user's script (an import error, a failing factory) are theirs: exit 2 with the failing
    # call and the last frame in their code, never "a bug in trainopt".
    ns = user_call(f"script {script}", runpy.run_path, script, run_name="__trainopt__",
                   hint="run `python SCRIPT` to reproduce; install what it imports in this environment")
    factory = ns.get("trainopt_target")
    if not callable(factory):
        raise InputError(f"{script} defines no trainopt_target()",
                         hint="def trainopt_target(): return dict(model=..., loss_fn=..., batch=(x, y), optimizer=...)")
    target = user_call("trainopt_target()", factory)
    if not isinstance(target, dict) or not {"model", "loss_fn", "batch"} <= set(target):
        raise InputError("trainopt_target() must return a dict with model, loss_fn and batch")
    from probes import examine as probe_examine

    t = dict(target)
    model, loss_fn, batch = t.pop("model"), t.pop("loss_fn"), t.pop("batch")
    allowed = {"optimizer", "num_classes", "val_batch", "loader", "scheduler", "scaler", "steps", "at_init"}
    unknown = sorted(set(t) - allowed)
    if unknown:
        raise InputError(f"unknown keys from trainopt_target(): {', '.join(unknown)}",
                         hint="allowed: " + ", ".join(sorted(allowed)))
    c = Consultation()
    c.add(probe_examine(model, loss_fn, batch, **t))
    d = c.run()
    emit_report(c, fmt)
    if d.needs_action:
        sys.exit(EXIT_ACTION)


# ---------------------------------------------------------------------------------------------------
# logs (issue 11): offline training logs, optional plot
# ---------------------------------------------------------------------------------------------------

@cli.command()
@click.argument("path", metavar="PATH", type=click.Path())
@click.option("--plot", "plot_to", metavar="OUT.png", type=click.Path(dir_okay=False),
              help="Also draw the curves with the detected regimes marked (needs trainopt[plot]).")
@click.option("--map", "mapping", metavar="ROLE=COLUMN", multiple=True,
              help="Name the column that plays a role (loss, val_loss, val_acc, train_acc, lr, grad_norm, "
                   "throughput); repeatable.")
@click.option("--follow-links", is_flag=True,
              help="Read links in the run folder that lead out of it (skipped by default, with a note).")
@click.option("--format", "fmt", type=FORMAT, default="text", show_default=True, help="Report format.")
def logs(path: str, plot_to: str | None, mapping: tuple[str, ...], fmt: str, follow_links: bool) -> None:
    """Diagnose a finished run from its logs: PATH is a log file or a run folder.

    Reads Lightning metrics.csv, Hugging Face trainer_state.json, TensorBoard event files (every scalar),
    and CSV or JSONL with a step and a loss column, streaming in bounded memory. Recognised columns become
    observations with provenance log:<file>:<column>; the loss curve is classified and the run diagnosed.

    What cannot be read around (a damaged record, a line that is not text) is skipped and named in a note,
    and the verdict then says the evidence is incomplete: a damaged log is never reported clean. Links in a
    run folder that lead out of it are skipped unless --follow-links; pipes, devices and sockets are refused.
    """
    pipeline.logs(path, plot_to, mapping, fmt, follow_links)


@cli.command()
@click.argument("which", type=click.Choice(["observations", "report"]))
def schema(which: str) -> None:
    """Print the JSON Schema of the observations `diagnose` reads, or of the JSON report."""
    from expert.schema_json import render

    click.echo(render(which), nl=False)


def main() -> None:
    """Console-script entry point.

    The cyclic collector is paused while the command starts, and its objects are left out of the interpreter's
    final collection (``expert.startup``).
    """
    startup.hold()
    try:
        cli(prog_name="trainopt")
    except KeyboardInterrupt:  # before a command runs (while modules load) or after it returned
        sys.stderr.write("\ninterrupted.\n")
        sys.exit(EXIT_INTERRUPTED)
    finally:
        startup.finish()  # the process exits next (click ends every command with SystemExit)


def entry() -> None:
    """The program's entry point (the ``trainopt`` script, ``python -m trainopt``): ``main``, then a quick exit.

    The process ends here, its exit code and output kept, without the interpreter's teardown
    (``expert.startup.leave``). A library caller uses ``main``, which ends in ``SystemExit`` as click does.
    """
    try:
        main()
    except SystemExit as stop:
        startup.leave(stop.code)
    startup.leave(0)


if __name__ == "__main__":
    # the process's program (``python -m expert.cli``), or run by another program in its process (runpy)
    entry() if startup.is_program(globals()) else main()
