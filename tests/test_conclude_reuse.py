"""A stop reuses the open run the user last saw (one engine run at a quit, not two), never a stale one."""

from __future__ import annotations

from expert import Consultation


def _counting(c: Consultation) -> list[str | None]:
    """Record each engine run ``c`` makes (its ``closed`` argument)."""
    runs: list[str | None] = []
    real = c._run_engine

    def counted(closed: str | None):  # noqa: ANN202 - the wrapped method's own return
        runs.append(closed)
        return real(closed)

    c._run_engine = counted  # type: ignore[method-assign]
    return runs


def _pending() -> Consultation:
    c = Consultation()
    c.observe(lr_schedule="cosine")
    return c


def test_a_stop_right_after_a_run_runs_only_the_closed_run_and_reports_the_same():
    fresh = _pending()
    fresh.conclude("quit")  # concluded before any run: both runs made here
    expected = fresh.to_json()
    c = _pending()
    assert c.run().question is not None
    runs = _counting(c)
    c.conclude("quit")
    assert c.to_json() == expected
    assert runs == ["quit"]


def test_an_input_changed_after_the_stop_is_run_afresh():
    c = _pending()
    c.run()
    c.conclude("quit")
    c.observe(optimizer="sgd")  # resumes asking: the kept run is not of these inputs
    runs = _counting(c)
    c.conclude("quit")
    d = c.run()
    fresh = Consultation()
    fresh.observe(lr_schedule="cosine", optimizer="sgd")
    fresh.conclude("quit")
    assert runs == [None, "quit"] or runs == [None]
    assert c.to_json() == fresh.to_json() and d.concluded == fresh.run().concluded


def test_a_kept_run_of_other_inputs_is_not_used():
    c = _pending()
    c.run()
    c.conclude("quit")
    c._obs.clear()  # an input changed behind conclude's back: the kept run no longer matches
    runs = _counting(c)
    c.run()
    assert runs[0] is None
