"""Issue 15's NVMe case on the simulated nvme_deep_queue host: two of four NVMe SSDs hold 60–90
I/Os with 300–400 ms per I/O. The queue and latency rules judge them: the latency rules name
each overwhelmed drive with its queue and wait and give the advice for flash; the queue rules,
whose remedy is a queue setting, stay quiet — flash serves many I/Os at once (a shallower queue
would not help it) and the driver's 1023 holds nothing back."""

from __future__ import annotations

import pytest

from pinchpoint.model.findings import Finding, Severity
from pinchpoint.rules import latency, queue
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.latency.disk_overwhelmed import FLASH_REMEDIATION
from tests.rules.conftest import example_host

SLOW = {"NVMe nvme2 (0000:5e:00.0) nvme2n1", "NVMe nvme3 (0000:5f:00.0) nvme3n1"}


@pytest.fixture(scope="module")
def nvme_deep(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return example_host(tmp_path_factory, "nvme_deep_queue")


@pytest.fixture(scope="module")
def found(nvme_deep: RuleContext) -> list[Finding]:
    findings, skipped, _ = evaluate(nvme_deep, (*queue.RULES, *latency.RULES))
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return findings


def of(found: list[Finding], rule: str) -> dict[str, Finding]:
    return {f.entity.name: f for f in found if f.rule == rule}


def test_the_queues_and_waits_are_those_of_the_issue(nvme_deep: RuleContext) -> None:
    """Mean queue (aqu-sz) and wait of each drive over the sweep's intervals."""
    figures: dict[str, list[tuple[float, float]]] = {}
    for interval in nvme_deep.intervals:
        for device in interval.devices:
            if device.device.startswith("nvme"):
                wait = max(device.r_await, device.w_await)
                figures.setdefault(device.device, []).append((device.aqu_sz, wait))
    means = {
        name: (sum(q for q, _ in rows) / len(rows), sum(w for _, w in rows) / len(rows))
        for name, rows in figures.items()
    }
    for name in ("nvme2n1", "nvme3n1"):
        queue_depth, wait = means[name]
        assert 50 <= queue_depth <= 120 and 250 <= wait <= 600, (name, means[name])
    for name in ("nvme0n1", "nvme1n1"):
        queue_depth, wait = means[name]
        assert queue_depth < 5 and wait < 25, (name, means[name])


def test_each_deep_queued_drive_is_overwhelmed_with_the_advice_for_flash(
    found: list[Finding],
) -> None:
    overwhelmed = of(found, "latency.disk.overwhelmed")
    assert set(overwhelmed) == SLOW
    for finding in overwhelmed.values():
        assert finding.severity is Severity.CRITICAL
        facts = {f.name: f.value for f in finding.evidence[0].facts}
        queue_depth = facts["mean queue per disk"]
        latency_ms = facts["mean latency per I/O"]
        assert isinstance(queue_depth, float) and queue_depth > 50
        assert isinstance(latency_ms, float) and latency_ms > 250
        assert finding.remediation == FLASH_REMEDIATION
        assert "queue.hdd.too_deep" not in finding.remediation


def test_their_waits_are_over_the_line_and_the_healthy_drives_are_not(
    found: list[Finding],
) -> None:
    threshold = of(found, "latency.threshold")
    assert set(threshold) == SLOW
    assert all(f.severity is Severity.CRITICAL for f in threshold.values())
    named = {f.entity.name for f in found}
    assert not named & {"NVMe nvme0 (0000:3b:00.0) nvme0n1", "NVMe nvme1 (0000:3c:00.0) nvme1n1"}


def test_the_queue_rules_judge_the_drives_and_stay_quiet(
    nvme_deep: RuleContext, found: list[Finding]
) -> None:
    """Both queue rules run on this host (its NVMe namespaces are disks with statistics) and
    find nothing: not an HDD's queue to shorten, not an SSD held below what it serves."""
    _, skipped, _ = evaluate(nvme_deep, queue.RULES)
    assert skipped == []
    assert [f for f in found if f.rule.startswith("queue.")] == []
