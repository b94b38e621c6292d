"""Findings and reports: what the rules conclude, with the evidence and the fix.

A finding names one entity by its stable id (the same ids the inventory uses, so history and
mutes survive reboots) and by the name a technician uses (a JBOD's nickname, an HBA's PCI
address and board). Its evidence holds the numbers and the peers it was compared with; its
remediation says what to do. A rule that could not run is reported as skipped with the reason,
never as passed. `docs/report-format.md` documents the JSON form.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field, computed_field

from pinchpoint.model.inventory import HostInfo
from pinchpoint.model.latency_source import LatencySource
from pinchpoint.model.problems import CollectionProblem

REPORT_FORMAT_VERSION = 1


class Severity(StrEnum):
    CRITICAL = "critical"  # data at risk or a path gone: act now
    WARNING = "warning"  # performance lost or redundancy reduced: plan a fix
    INFO = "info"  # worth knowing, nothing to fix urgently

    @property
    def rank(self) -> int:
        """2 for critical, 1 for warning, 0 for info: for sorting and `--fail-on`."""
        return {"critical": 2, "warning": 1, "info": 0}[self.value]


class EntityKind(StrEnum):
    """What a finding is about."""

    HOST = "host"
    HBA = "hba"
    HBA_PORT = "hba_port"
    PHY = "phy"
    CHAIN = "chain"
    ENCLOSURE = "enclosure"
    EXPANDER = "expander"
    DISK = "disk"
    PARTITION = "partition"
    BLOCK_DEVICE = "block_device"
    VDEV = "vdev"
    POOL = "pool"
    LUN = "lun"
    FC_PORT = "fc_port"
    FC_ADAPTER = "fc_adapter"
    NIC = "nic"
    BOND = "bond"
    PCIE_DEVICE = "pcie_device"
    VOLUME = "volume"  # an imported volume (a Windows LogicalDisk)
    CONTROLLER = "controller"  # a disk controller outside the SAS fabric (AHCI, NVMe, virtio)
    CONTROLLER_PORT = "controller_port"  # a port of one (an ATA port)


class EntityRef(BaseModel):
    """An entity by stable id and by the name a person uses for it."""

    kind: EntityKind
    id: str  # stable: "enclosure:0x5000ccab0200947e", "hba:0000:03:00.0", "nic:…"
    name: str  # "JBOD-003", "0000:03:00.0 SAS9300-8e", "eno1 on store01"


class Fact(BaseModel):
    """One number (or value) of the evidence, named and with its unit."""

    name: str  # "paths present", "queue per disk", "negotiated speed"
    value: float | int | str | bool | None
    unit: str | None = None  # "ms", "Mb/s", "I/Os", "%"
    entity: EntityRef | None = None  # whose value it is, when not the finding's own entity


class Evidence(BaseModel):
    """One piece of proof: a sentence, the facts behind it and the peers it compares with."""

    rule: str = ""  # the rule that produced it, stamped by the engine (a finding may carry several)
    summary: str  # "2 of 2 expected paths present on JBOD-001; JBOD-003 has 1"
    facts: list[Fact] = Field(default_factory=list)
    peers: list[EntityRef] = Field(default_factory=list)


class Mute(BaseModel):
    """A finding silenced on purpose: which rule, which entity, until when, and why."""

    rule: str
    entity_id: str
    until: datetime | None = None  # None: until lifted by hand
    reason: str
    severity_at_mute: Severity | None = None  # the mute lifts when the finding gets worse

    def holds(self, finding: Finding, now: datetime) -> bool:
        """Whether this mute silences `finding` at `now` (see `mute_holds`)."""
        rank = self.severity_at_mute.rank if self.severity_at_mute is not None else None
        return mute_holds(self.rule, self.entity_id, self.until, rank, finding, now)


def mute_holds(
    rule: str,
    entity_id: str,
    until: datetime | None,
    severity_rank_at_mute: int | None,
    finding: Finding,
    now: datetime,
) -> bool:
    """The one rule of muting, for the engine's mutes and the store's alike: a mute holds for a
    finding of its rule and entity until it expires, and lifts as soon as the finding is worse
    than it was when muted (Ceph's mutes do the same). The store mirrors it in SQL
    (`pinchpoint.service.store.mute_holds.holds_clause`); a test checks the two agree."""
    if rule != finding.rule or entity_id != finding.entity.id:
        return False
    if until is not None and until <= now:
        return False
    return severity_rank_at_mute is None or finding.severity.rank <= severity_rank_at_mute


class Finding(BaseModel):
    """One conclusion about one entity: what is wrong, the proof, and the fix."""

    id: str  # "<rule>@<entity id>": stable across reports, the key of history and mutes
    rule: str
    category: str  # the rule id's first part: "sas", "latency", "queue", "san", "fc", "net" …
    severity: Severity
    title: str  # one line: "JBOD-003 has 1 of 2 SAS paths"
    entity: EntityRef
    evidence: list[Evidence] = Field(default_factory=list)
    remediation: str
    muted: Mute | None = None
    # Findings folded into this one because they share its cause (the latency of a
    # single-pathed JBOD is the symptom, the missing cable the cause): their ids.
    related: list[str] = Field(default_factory=list)


class SkippedRule(BaseModel):
    """A rule that did not run, and why (inputs missing, disabled, failed)."""

    rule: str
    reason: str


class ReportStatus(StrEnum):
    """What a report says as a whole. `partial` is never a green OK: most rules could not run
    (a VM without SAS, a snapshot without samples), so no findings proves little."""

    OK = "ok"  # the rules ran and found nothing unmuted
    FINDINGS = "findings"  # at least one unmuted finding
    PARTIAL = "partial"  # most rules could not run (their reasons: `Report.status_reasons`)


def report_status(has_findings: bool, rules_evaluated: int, skipped: int) -> ReportStatus:
    """The one rule of a report's status, for a report and a stored summary alike: `partial`
    when more rules were skipped than ran (20 of 31 on a VM), else `findings` when an unmuted
    finding stands, else `ok`."""
    if skipped > rules_evaluated:
        return ReportStatus.PARTIAL
    return ReportStatus.FINDINGS if has_findings else ReportStatus.OK


STATUS_REASONS = 3  # the most common reasons a partial report names


class Report(BaseModel):
    """One evaluation of every rule against one host."""

    format_version: int = REPORT_FORMAT_VERSION
    host: HostInfo
    generated_at: datetime
    findings: list[Finding] = Field(default_factory=list)
    skipped: list[SkippedRule] = Field(default_factory=list)
    collection: list[CollectionProblem] = Field(default_factory=list)  # collectors that failed
    rules_evaluated: int = 0
    latency: LatencySource | None = None  # where the latency the rules judged came from

    def worst(self) -> Severity | None:
        """The highest severity among findings that are not muted; None when there are none."""
        active = [f.severity for f in self.findings if f.muted is None]
        return max(active, key=lambda s: s.rank) if active else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> ReportStatus:
        """ok, findings or partial (`report_status`)."""
        has_findings = any(f.muted is None for f in self.findings)
        return report_status(has_findings, self.rules_evaluated, len(self.skipped))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status_reasons(self) -> list[str]:
        """Why a partial report is partial: `20 of 31 rules could not run`, then its commonest
        reasons with their counts (`9 rules: no diskstats samples …`); empty otherwise."""
        if self.status is not ReportStatus.PARTIAL:
            return []
        total = self.rules_evaluated + len(self.skipped)
        reasons = Counter(skipped.reason for skipped in self.skipped)
        lines = [f"{len(self.skipped)} of {total} rules could not run"]
        for reason, count in reasons.most_common(STATUS_REASONS):
            lines.append(f"{count} {'rule' if count == 1 else 'rules'}: {reason}")
        rest = len(reasons) - STATUS_REASONS
        if rest > 0:
            lines.append(f"{rest} other {'reason' if rest == 1 else 'reasons'}")
        return lines
