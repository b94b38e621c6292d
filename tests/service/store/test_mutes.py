"""Mutes in the store: for one host or every host, expiring, lifted when the finding gets worse,
silencing notifications, and the same rule as the rules engine."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from service.store.storetest import T0, CheckedHost, at, reseverity, table_rows, with_findings

from pinchpoint.model.findings import EntityKind, EntityRef, Finding, Mute, Severity
from pinchpoint.rules.engine import mute_for
from pinchpoint.service.events import TransitionKind
from pinchpoint.service.store import FindingState, Store, StoreInputError
from pinchpoint.service.store.mute_holds import holding_mute
from pinchpoint.service.store.schema import MuteRow


def _chain(demo: CheckedHost) -> Finding:
    return next(f for f in demo.report.findings if f.rule == "sas.chain.imbalance")


def _mute(finding: Finding, **kwargs: object) -> Mute:
    return Mute(
        rule=finding.rule,
        entity_id=finding.entity.id,
        reason=kwargs.pop("reason", "chain rebuilt in the maintenance window"),  # type: ignore[arg-type]
        **kwargs,  # type: ignore[arg-type]
    )


def _state(store: Store, finding: Finding, host: str, minutes: float) -> FindingState:
    records = store.findings(host=host, rule=finding.rule, now=T0 + timedelta(minutes=minutes))
    return records.items[0].state


def test_a_mute_silences_an_open_finding_until_it_expires(store: Store, demo: CheckedHost) -> None:
    chain = _chain(demo)
    store.save_report(at(demo.report, 0))
    store.save_report(at(demo.report, 5))
    record = store.add_mute(
        _mute(chain, until=T0 + timedelta(hours=1)),
        host="demo-storage-head",
        created_by="ops",
        now=T0 + timedelta(minutes=6),
    )
    assert (record.host, record.created_by, record.active) == ("demo-storage-head", "ops", True)
    assert record.created_at == T0 + timedelta(minutes=6)
    assert _state(store, chain, "demo-storage-head", 30) is FindingState.MUTED
    muted = store.findings(state=FindingState.MUTED, now=T0 + timedelta(minutes=30))
    assert [r.id for r in muted.items] == [chain.id]
    assert muted.items[0].mute == record
    assert store.findings(state=FindingState.OPEN, now=T0 + timedelta(minutes=30)).total == 2
    # an hour later the mute has expired
    assert _state(store, chain, "demo-storage-head", 61) is FindingState.OPEN
    assert store.mutes(now=T0 + timedelta(minutes=61)) == []
    expired = store.mutes(active_only=False, now=T0 + timedelta(minutes=61))
    assert [(m.id, m.active) for m in expired] == [(record.id, False)]


def test_a_mute_lifts_when_the_finding_gets_worse(store: Store, demo: CheckedHost) -> None:
    chain = _chain(demo)
    assert chain.severity is Severity.WARNING
    store.add_mute(_mute(chain, severity_at_mute=Severity.WARNING), now=T0)
    first = store.save_report(with_findings(at(demo.report, 0), [chain]))
    opened = store.save_report(with_findings(at(demo.report, 5), [chain]))
    assert first.transitions == [] and opened.transitions == []  # muted: nobody is told
    assert _state(store, chain, "demo-storage-head", 6) is FindingState.MUTED
    worse = store.save_report(
        with_findings(at(demo.report, 10), [reseverity(chain, Severity.CRITICAL)])
    )
    assert [(t.kind, t.previous_severity) for t in worse.transitions] == [
        (TransitionKind.WORSENED, Severity.WARNING)
    ]
    record = store.findings(rule=chain.rule, now=T0 + timedelta(minutes=11)).items[0]
    assert (record.state, record.mute) == (FindingState.OPEN, None)


def test_a_mute_for_one_host_leaves_the_others_alone(store: Store, demo: CheckedHost) -> None:
    chain = _chain(demo)
    for host in ("store01", "store02"):
        store.save_report(at(demo.report, 0, host=host))
        store.save_report(at(demo.report, 5, host=host))
    only = store.add_mute(_mute(chain), host="store01", now=T0)
    assert _state(store, chain, "store01", 6) is FindingState.MUTED
    assert _state(store, chain, "store02", 6) is FindingState.OPEN
    everywhere = store.add_mute(_mute(chain, reason="all heads: known"), now=T0)
    assert _state(store, chain, "store02", 6) is FindingState.MUTED
    assert [m.id for m in store.mutes(host="store02", now=T0)] == [everywhere.id]
    assert [m.id for m in store.mutes(host="store01", now=T0)] == [only.id, everywhere.id]
    assert [m.id for m in store.mutes(now=T0)] == [only.id, everywhere.id]
    hosts = {h.name: h for h in store.hosts()}
    assert hosts["store01"].muted_findings == 1
    assert hosts["store01"].open_findings.critical == 2


def test_a_finding_muted_in_the_report_itself_raises_no_notification(
    store: Store, demo: CheckedHost
) -> None:
    chain = _chain(demo)
    muted = chain.model_copy(update={"muted": _mute(chain)})
    saves = [store.save_report(with_findings(at(demo.report, m), [muted])) for m in (0, 5)]
    assert [s.transitions for s in saves] == [[], []]
    summary = store.report_summaries().items[0]
    assert (summary.muted, summary.findings.warning, summary.worst) == (1, 0, None)


def test_active_mutes_are_what_the_rules_engine_applies(store: Store, demo: CheckedHost) -> None:
    chain = _chain(demo)
    store.add_mute(_mute(chain, until=T0 + timedelta(hours=2)), host="demo-storage-head", now=T0)
    store.add_mute(_mute(chain, reason="other host"), host="store09", now=T0)
    mutes = store.active_mutes("demo-storage-head", now=T0 + timedelta(hours=1))
    assert len(mutes) == 1 and mutes[0].until == T0 + timedelta(hours=2)
    assert mute_for(chain, mutes, T0 + timedelta(hours=1)) == mutes[0]
    assert store.active_mutes("demo-storage-head", now=T0 + timedelta(hours=3)) == []


def test_a_mute_is_deleted_once(store: Store, demo: CheckedHost) -> None:
    record = store.add_mute(_mute(_chain(demo)), now=T0)
    assert store.delete_mute(record.id)
    assert not store.delete_mute(record.id)
    assert store.mutes(active_only=False) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"reason": "  "}, "a mute needs a reason"),
        ({"rule": ""}, "a mute needs a rule"),
        ({"entity_id": " "}, "a mute needs a entity id"),
        ({"until": T0 - timedelta(seconds=1)}, "the mute would have expired already"),
        ({"until": T0}, "the mute would have expired already"),
    ],
)
def test_a_bad_mute_is_refused_with_a_clear_message(
    store: Store, store_url: str, demo: CheckedHost, change: dict[str, object], message: str
) -> None:
    store.add_mute(_mute(_chain(demo)), now=T0)
    before = table_rows(store_url)
    mute = _mute(_chain(demo)).model_copy(update=change)
    with pytest.raises(StoreInputError, match=message):
        store.add_mute(mute, now=T0)
    with pytest.raises(StoreInputError, match="the mute's host is empty"):
        store.add_mute(_mute(_chain(demo)), host="", now=T0)
    assert table_rows(store_url) == before


# -- the same rule as the engine (no database needed) --------------------------------------

SEVERITIES = st.sampled_from(list(Severity))
MOMENT = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


@given(
    finding_severity=SEVERITIES,
    mute_severity=st.none() | SEVERITIES,
    until_minutes=st.none() | st.integers(-5, 5),
    same_rule=st.booleans(),
    same_entity=st.booleans(),
)
def test_a_stored_mute_holds_exactly_when_the_engine_would_apply_it(
    finding_severity: Severity,
    mute_severity: Severity | None,
    until_minutes: int | None,
    same_rule: bool,
    same_entity: bool,
) -> None:
    finding = Finding(
        id="sas.chain.imbalance@chain:x",
        rule="sas.chain.imbalance",
        category="sas",
        severity=finding_severity,
        title="t",
        entity=EntityRef(kind=EntityKind.CHAIN, id="chain:x", name="x"),
        remediation="r",
    )
    until = None if until_minutes is None else MOMENT + timedelta(minutes=until_minutes)
    mute = Mute(
        rule=finding.rule if same_rule else "sas.enclosure.single_path",
        entity_id=finding.entity.id if same_entity else "chain:y",
        until=until,
        reason="r",
        severity_at_mute=mute_severity,
    )
    row = MuteRow(
        id=1,
        host=None,
        rule=mute.rule,
        entity_id=mute.entity_id,
        until=until,
        reason="r",
        severity_at_mute=mute_severity.value if mute_severity else None,
        severity_rank_at_mute=mute_severity.rank if mute_severity else None,
    )
    engine_says = mute_for(finding, [mute], MOMENT) is not None
    assert (holding_mute([row], "any-host", finding, MOMENT) is not None) == engine_says
