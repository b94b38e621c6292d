"""`disk.smart.degrading` on real smartctl outputs of disks that pass SMART but wear."""

from __future__ import annotations

import pytest

from pinchpoint.rules.config import Config, RuleSettings
from tests.rules.disk.conftest import (
    GROWN_260,
    NVME_MEDIA_7,
    REALLOC_304,
    health,
    rules_of,
    run,
)


@pytest.mark.parametrize(
    ("name", "first_sign"),
    [
        (REALLOC_304, ("reallocated sectors", 304)),
        (GROWN_260, ("grown defects", 260)),
        (NVME_MEDIA_7, ("media errors", 7)),
    ],
)
def test_wear_on_a_disk_that_passes_smart_is_degrading(
    name: str, first_sign: tuple[str, int]
) -> None:
    findings, _ = run([health(name)])
    assert rules_of(findings) == ["disk.smart.degrading"]
    facts = [(f.name, f.value) for f in findings[0].evidence[0].facts]
    assert facts[0] == first_sign


def test_degrading_thresholds_are_configurable() -> None:
    config = Config(
        rules={"disk.smart.degrading": RuleSettings(thresholds={"max_reallocated": 500})}
    )
    findings, _ = run([health(REALLOC_304)], config=config)
    assert findings == []
