"""`disk.smart.failed` on real failed smartctl outputs."""

from __future__ import annotations

import pytest

from tests.rules.disk.conftest import (
    FAILED_NVME,
    FAILED_SATA,
    health,
    rules_of,
    run,
)


@pytest.mark.parametrize("name", [FAILED_SATA, FAILED_NVME])
def test_a_failed_smartctl_output_gives_smart_failed(name: str) -> None:
    findings, _ = run([health(name)])
    assert rules_of(findings) == ["disk.smart.failed"]  # not also "degrading": one finding
    facts = {f.name: f.value for f in findings[0].evidence[0].facts}
    assert facts["SMART overall health"] == "FAILED"
    assert findings[0].severity.value == "critical"


def test_the_failing_attribute_and_the_wear_are_the_evidence() -> None:
    findings, _ = run([health(FAILED_SATA)])
    evidence = findings[0].evidence[0]
    assert "attribute 5 Reallocated_Sector_Ct is at 133, at or below its threshold 140" in (
        evidence.summary
    )
    facts = {f.name: f.value for f in evidence.facts}
    assert facts["reallocated sectors"] == 535
    assert facts["pending sectors"] == 1
