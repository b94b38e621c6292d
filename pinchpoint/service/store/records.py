"""What the report store returns: reports with how they were stored, summaries, findings across
reports with their state, mutes, hosts, diffs and what a prune removed.

Pydantic models, so the API serves them as they are. `SeverityCounts` comes from
`pinchpoint/report/summary.py`, `FindingState` from `pinchpoint/service/findings_state.py`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Generic, Literal, TypeVar
from urllib.parse import quote, urlencode

from pydantic import BaseModel, Field, computed_field

from pinchpoint.markup import markdown_html
from pinchpoint.model.findings import (
    EntityRef,
    Finding,
    Report,
    ReportStatus,
    Severity,
    report_status,
)
from pinchpoint.model.inventory import HostInfo
from pinchpoint.report.summary import SeverityCounts
from pinchpoint.service.events import FindingTransition
from pinchpoint.service.findings_state import FindingState

T = TypeVar("T")

Origin = Literal["sweep", "push", "upload", "cli"]
ORIGINS: tuple[Origin, ...] = ("sweep", "push", "upload", "cli")


class Page(BaseModel, Generic[T]):
    """One page of a longer list: `total` items match, `items` are those from `offset` on."""

    items: list[T]
    total: int
    limit: int
    offset: int


class StoredReport(BaseModel):
    """A report as it was saved, with how and when it arrived."""

    id: int
    origin: Origin
    duration_s: float | None
    stored_at: datetime
    has_inventory: bool = False  # the sweep's inventory was saved with it
    report: Report


class ReportSummary(BaseModel):
    """One report without its findings' bodies: for lists and the history of a host."""

    id: int
    host: str
    generated_at: datetime
    stored_at: datetime
    origin: Origin
    duration_s: float | None
    findings: SeverityCounts  # findings no mute held when the report was made
    muted: int = 0  # findings a mute held
    worst: Severity | None  # the worst unmuted finding's severity
    rules_evaluated: int
    skipped: int = 0  # rules that did not run
    collection_problems: int  # collectors that failed
    has_inventory: bool = False

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> ReportStatus:
        """ok, findings or partial, by the report's own rule (`model.findings.report_status`)."""
        return report_status(self.findings.total() > 0, self.rules_evaluated, self.skipped)


class SavedReport(BaseModel):
    """What `save_report` did: the new report's id, and the state changes to notify."""

    id: int
    host: str
    generated_at: datetime
    stored_at: datetime
    inventory_id: int | None = None
    inventory_stored: bool = False  # True when the inventory was new (not already stored)
    # False when the report is older than the host's newest one (a late push): it is kept as
    # history, but finding states did not move.
    states_advanced: bool = True
    # True when this host's report of the same generated_at was already stored (a retried
    # push): nothing was written, `id` is the stored report's.
    duplicate: bool = False
    transitions: list[FindingTransition] = Field(default_factory=list)


class MuteRecord(BaseModel):
    """A stored mute: for one host or (host None) every host."""

    id: int
    host: str | None
    rule: str
    entity_id: str
    until: datetime | None
    reason: str
    severity_at_mute: Severity | None
    created_at: datetime
    created_by: str | None
    # Not expired. A mute also stops holding for a finding that got worse than
    # `severity_at_mute`; that is per finding, and shows in the finding's state.
    active: bool


class RelatedFinding(BaseModel):
    """A finding folded into this one because they share a cause (`Finding.related`: the
    symptom, e.g. the latency of a single-pathed JBOD), as links: the view's page that shows
    what it measured (`href`) and the API's account of its rule (`rule_href`). Its evidence is
    already in the cause's, so it has no findings entry of its own."""

    id: str  # "<rule>@<entity id>"
    rule: str
    entity_id: str
    href: str  # the view's page of what it measured: latency page, enclosure page or topology
    rule_href: str  # GET /v1/rules/<rule>: what the rule finds, its thresholds and fix

    @classmethod
    def of(cls, finding_id: str) -> RelatedFinding:
        """The links of the finding `finding_id` ("<rule>@<entity id>": rule ids hold no `@`)."""
        rule, _, entity_id = finding_id.partition("@")
        category = rule.split(".", 1)[0]
        if category in ("latency", "queue"):
            href = f"/latency?{urlencode({'entity': entity_id})}"
        elif entity_id.startswith("enclosure:"):
            href = f"/enclosures/{quote(entity_id, safe='')}"
        else:
            href = "/topology"
        return cls(
            id=finding_id,
            rule=rule,
            entity_id=entity_id,
            href=href,
            rule_href=f"/v1/rules/{quote(rule, safe='')}",
        )


class FindingRecord(BaseModel):
    """One finding of one host across its reports: its state and history, and its last body."""

    host: str
    id: str  # "<rule>@<entity id>"
    rule: str
    category: str
    severity: Severity  # as in the last report that held it
    title: str
    entity: EntityRef
    state: FindingState
    first_seen: datetime  # generated_at of the first report that held it
    last_seen: datetime  # … and of the last one
    times_seen: int  # reports that held it
    opened_at: datetime | None = None  # when it last became open
    resolved_at: datetime | None = None  # when it last became resolved
    finding: Finding  # the last body seen
    mute: MuteRecord | None = None  # the mute that holds for it now, if any

    @computed_field  # type: ignore[prop-decorator]
    @property
    def remediation_html(self) -> str:
        """The fix (`finding.remediation`, Markdown) as HTML: `<code>` for commands, raw HTML
        in the text escaped, links only to http(s) or the service's own pages."""
        return markdown_html(self.finding.remediation)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def related_findings(self) -> list[RelatedFinding]:
        """`finding.related` (the ids of findings folded into this one) as links to the view
        and the API."""
        return [RelatedFinding.of(finding_id) for finding_id in self.finding.related]


class ReportDiff(BaseModel):
    """Findings of report `b` against report `a`, by finding id."""

    a: ReportSummary
    b: ReportSummary
    new: list[Finding]  # in b, not in a
    resolved: list[Finding]  # in a, not in b (a's body)
    persisting: list[Finding]  # in both (b's body)
    worsened: list[Finding]  # in both, more severe in b (b's body)


class HostRecord(BaseModel):
    """One host of the fleet as the store knows it."""

    name: str
    first_seen: datetime  # generated_at of its first report
    last_seen: datetime  # … and of its newest
    reports: int
    latest_report_id: int | None
    open_findings: SeverityCounts  # open, no mute holding
    muted_findings: int
    pending_findings: int
    host: HostInfo | None  # from its newest report


class PruneResult(BaseModel):
    """How many rows a prune removed, of each kind."""

    reports: int = 0
    inventories: int = 0
    inventory_parts: int = 0
    finding_states: int = 0
    mutes: int = 0
    fleet_findings: int = 0
