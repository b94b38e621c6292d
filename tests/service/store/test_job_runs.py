"""Store-wide scheduled jobs (prune, the daily report) run once per firing across the
instances over one store: the first to claim a firing runs it, the others skip it, and the next
firing is claimed again."""

from __future__ import annotations

from datetime import timedelta

from service.store.storetest import T0

from pinchpoint.service.store import Store


def test_one_instance_runs_each_firing(store: Store) -> None:
    assert store.claim_job("prune", "central-a:1", now=T0)
    assert not store.claim_job("prune", "central-b:1", now=T0 + timedelta(seconds=2))
    assert store.claim_job("daily_report", "central-b:1", now=T0 + timedelta(seconds=2))
    assert store.claim_job("prune", "central-b:1", now=T0 + timedelta(minutes=60))
    assert not store.claim_job("prune", "central-a:1", now=T0 + timedelta(minutes=60, seconds=1))
