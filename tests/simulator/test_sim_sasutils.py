"""stanford-rc/sasutils `sas_devices` (0.6.1) counts the demo's disks and paths from the tree.

Runs only where sasutils is importable (`pip install -e '.[bench]'`). Its sysfs root is pointed
at the snapshot's `sys` (as `unshare -m` with a bind mount on /sys would), and its call to
`sg_ses --page=snic` answers from the snapshot's `commands/sg_ses` outputs.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sas_devices = pytest.importorskip("sasutils.cli.sas_devices")
sasutils_sysfs = pytest.importorskip("sasutils.sysfs")


def run_sas_devices(
    root: Path, args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    def nickname(sg_name: str) -> str | None:
        found = re.search(
            r"\n\s+nickname:\s*(\S+)",
            (root / "commands" / "sg_ses" / f"{sg_name}.snic.txt").read_text(),
        )
        return found.group(1) if found else None

    monkeypatch.setattr(sasutils_sysfs.sysfs, "path", str(root / "sys"))
    monkeypatch.setattr(sas_devices, "ses_get_snic_nickname", nickname)
    monkeypatch.setattr(sys, "argv", ["sas_devices", *args])
    sas_devices.main()
    return str(capsys.readouterr().out)


def test_sas_devices_sees_the_miscabled_jbods(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run_sas_devices(demo_root, ["-q"], monkeypatch, capsys)
    groups = re.findall(
        r"\*\*\* Enclosure group: (.*)\n.*\n\s*(\d+) x\s+disk .*\s(\d)\s+running", out
    )
    by_nickname = {
        tuple(sorted(set(re.findall(r":([\w-]+)\]", members)))): (int(count), int(paths))
        for members, count, paths in groups
    }
    assert by_nickname == {
        ("JBOD-001",): (60, 2),
        ("JBOD-002",): (60, 2),
        ("JBOD-003",): (60, 1),
        ("JBOD-007",): (60, 2),
        ("JBOD-00B",): (60, 2),
        ("JBOD-012",): (60, 1),
    }
    dual = [members for members, _, paths in groups if paths == "2"]
    assert all(members.count("[sg") == 2 for members in dual)  # both I/O modules' SES devices


def test_sas_devices_counts_hosts_expanders_and_end_devices(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run_sas_devices(demo_root, ["-q", "-v", "-o", "{paths} {wwid}"], monkeypatch, capsys)
    assert "Found 3 SAS hosts" in out
    assert "Found 30 SAS expanders" in out
    assert "Found 610 SAS end devices" in out
    assert "Resolved 6 enclosure groups" in out
