"""`capture` records the SES pages the elements come from, the threshold page with them: a host
whose SES device answers with the real Areca 8028 pages (the installed `sg_ses` decoding the
real capture), recorded, then read back from the snapshot."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest
from ses_capture import HEX_CAPTURE, needs_sg_ses
from tool_stubs import fake_tool_dir

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import RecordingSource, SnapshotSource
from pinchpoint.simulator import spec_from_data, write_snapshot

pytestmark = needs_sg_ses


def test_the_threshold_page_is_captured_and_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = tmp_path / "host"
    spec = spec_from_data(
        {
            "hba": [{"name": "h"}],
            "enclosure": [{"name": "J", "bays": 4, "io_modules": 1}],
            "chain": [{"hba": "h", "enclosures": ["J"]}],
        }
    )
    write_snapshot(spec, host)
    shutil.rmtree(host / "commands" / "sg_ses")  # the tool answers, not the simulator's files
    real = shlex.quote(str(shutil.which("sg_ses")))
    body = f'exec {real} --status "$1" --inhex={shlex.quote(str(HEX_CAPTURE))}'
    monkeypatch.setenv("PATH", str(fake_tool_dir(tmp_path, "sg_ses", body)))
    live = collect_inventory(RecordingSource(tmp_path / "snap", root=str(host)))
    (recorded,) = sorted((tmp_path / "snap" / "commands" / "sg_ses").glob("*.th.txt"))
    assert "high critical=95, high warning=90" in recorded.read_text()
    again = collect_inventory(SnapshotSource(tmp_path / "snap"))
    for inventory in (live, again):
        (box,) = inventory.sas.enclosures
        assert box.elements is not None
        chip = next(e for e in box.elements if e.descriptor == "Chip Temp")
        assert chip.temperature_c == 66.0
        assert chip.limits is not None
        assert (chip.limits.high_warning, chip.limits.high_critical) == (90.0, 95.0)
        assert box.status_summary == ["CRIT"]
        # the I/O module's firmware from its configuration page, not the INQUIRY's 3010
        assert [d.revision for d in box.ses_devices] == ["0133"]
    assert again.sas.enclosures[0].elements == live.sas.enclosures[0].elements
