"""The queue rules together (`pinchpoint.rules.queue.RULES`): skipped without statistics, and
never failing on garbled figures."""

from __future__ import annotations

from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.queue import RULES
from tests.rules.queue.conftest import (
    findings,
    shallow_findings,
    with_figures,
)


def test_without_statistics_the_rules_are_skipped(deep: RuleContext) -> None:
    _, skipped, _ = evaluate(RuleContext(inventory=deep.inventory), RULES)
    reasons = {s.rule: s.reason for s in skipped}
    assert sorted(reasons) == ["queue.hdd.too_deep", "queue.ssd.too_shallow"]
    assert all("no diskstats samples" in r for r in reasons.values())


def test_garbled_queue_figures_never_crash_the_queue_rules(
    deep: RuleContext, flash: RuleContext
) -> None:
    for context in (deep, flash):
        assert findings(with_figures(context, aqu_sz=float("nan"))) == []
        assert shallow_findings(with_figures(context, aqu_sz=float("nan"))) == []
        zero = RuleContext(
            inventory=context.inventory,
            intervals=[i.model_copy(update={"interval_s": 0.0}) for i in context.intervals],
        )
        assert shallow_findings(zero) == [] and findings(zero) == []
