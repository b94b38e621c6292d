"""The `sg_ses` outputs of simulated SES devices: content, and identity with the real sg_ses.

The real-tool tests encode the simulated pages to raw SES bytes (`ses_hex`), have the installed
sg_ses (sg3_utils 1.46) decode them with `--inhex`, and require the very text the snapshot
holds below its INQUIRY line.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.simulator import DEMO_SPEC_PATH, demo_spec, kernel_view, load_spec, spec_from_data
from pinchpoint.simulator.discovery import ScsiDeviceView
from pinchpoint.simulator.ses_hex import inhex
from pinchpoint.simulator.ses_pages import ses_page_set
from pinchpoint.simulator.ses_text import PAGES, page_text
from pinchpoint.simulator.spec import HostSpec

NO_SG_SES = shutil.which("sg_ses") is None
ENCLOSURE_FAULTS = DEMO_SPEC_PATH.parent / "enclosure_faults.toml"  # failed PSU, fan, IOM, hot


def odd_spec() -> HostSpec:
    """Empty bays, SATA disks, a missing path and a single-I/O-module enclosure in one host."""
    return spec_from_data(
        {
            "hba": [{"name": "h", "phys": 16}],
            "enclosure": [
                {
                    "name": "SAS-2IOM",
                    "bays": 12,
                    "empty_bays": [0, 7],
                    "missing_disk_paths": [{"bay": 3}],
                },
                {"name": "SATA-2IOM", "bays": 8, "disk": {"protocol": "sata"}},
                {"name": "SAS-1IOM", "bays": 4, "io_modules": 1, "vendor": "ACME", "product": "J4"},
            ],
            "chain": [
                {"hba": "h", "connector": 0, "enclosures": ["SAS-2IOM", "SATA-2IOM"]},
                {
                    "hba": "h",
                    "connector": 1,
                    "io_module": "B",
                    "enclosures": ["SATA-2IOM", "SAS-2IOM"],
                },
                {"hba": "h", "connector": 2, "enclosures": ["SAS-1IOM"]},
            ],
        }
    )


def ses_of(spec: HostSpec) -> list[ScsiDeviceView]:
    return kernel_view(spec).ses_devices()


def read(root: Path, sg: str, page: str) -> str:
    return (root / "commands" / "sg_ses" / f"{sg}.{page}.txt").read_text()


def test_every_ses_device_has_its_six_pages(demo_root: Path) -> None:
    files = sorted(p.name for p in (demo_root / "commands" / "sg_ses").iterdir())
    sgs = sorted({name.split(".")[0] for name in files})
    assert len(sgs) == 10 and len(files) == 60
    for sg in sgs:
        device = (demo_root / "sys" / "class" / "scsi_generic" / sg / "device").resolve()
        assert (device / "type").read_text() == "13\n"
        for page in PAGES:
            text = read(demo_root, sg, page)
            assert text.startswith("  HGST      H4060-J           3010\n"), text[:60]


def test_configuration_page_lists_what_the_enclosure_has(demo_root: Path) -> None:
    for cf in (demo_root / "commands" / "sg_ses").glob("*.cf.txt"):
        text = cf.read_text()
        counts = dict(
            re.findall(
                r"Element type: ([\w ]+), subenclosure id: 0\n"
                r"\s+number of possible elements: (\d+)",
                text,
            )
        )
        # a single-pathed JBOD still reports both of its I/O modules' expanders
        assert counts["Array device slot"] == "60"
        assert counts["SAS expander"] == "6"  # an H4060-J: 3 per I/O module
        assert counts["Enclosure"] == "1"
        assert counts["SAS connector"] == "4"
        assert "number of ES processes: 2" in text
        assert re.search(r"enclosure logical identifier \(hex\): 5000cca[0-9a-f]{9}\n", text)


def test_additional_status_lists_both_ports_own_side_first(demo_root: Path) -> None:
    seen_sides = set()
    for aes in sorted((demo_root / "commands" / "sg_ses").glob("*.aes.txt")):
        text = aes.read_text()
        assert text.splitlines()[1].startswith("  Primary enclosure logical identifier (hex): ")
        slots = re.findall(
            r"number of phys: (\d+), not all phys: 0, device slot number: (\d+)", text
        )
        assert [int(s) for _, s in slots] == list(range(60))
        assert {n for n, _ in slots} == {"2"}
        first_phy_ids = set(re.findall(r"phy index: 0\n(?:.*\n){5}\s+phy identifier: (0x\d)", text))
        assert len(first_phy_ids) == 1
        seen_sides |= first_phy_ids
        expander_addresses = re.findall(r"\n        SAS address: (0x[0-9a-f]+)\n", text)
        assert len(expander_addresses) == 6
        attached = set(re.findall(r"attached SAS address: (0x[0-9a-f]+)", text))
        assert attached < set(expander_addresses) and len(attached) == 4  # the sub-expanders
    assert seen_sides == {"0x0", "0x1"}  # IOM A lists port A first, IOM B port B


def test_status_descriptor_and_nickname_pages(scenario: Callable[[str], Path]) -> None:
    root = scenario("disk_missing_one_path")
    for snic in sorted((root / "commands" / "sg_ses").glob("*.snic.txt")):
        sg = snic.name.split(".")[0]
        nickname = re.search(r"\n   nickname: (\S+)\n", snic.read_text())
        assert nickname and nickname.group(1) in {"JBOD-A", "JBOD-B"}
        ed = read(root, sg, "ed")
        assert re.findall(r"Element \d+ descriptor: (SLOT \d\d)", ed) == [
            f"SLOT {i:02d}" for i in range(1, 25)
        ]
        es = read(root, sg, "es")
        slot_section = es.split("Element type: Power supply")[0]
        assert slot_section.count("status: OK") == 24


def test_empty_bays_show_not_installed() -> None:
    (dev, *_) = ses_of(odd_spec())
    assert dev.ses is not None
    pages = ses_page_set(dev.ses)
    es = page_text(pages, "es")
    slot_section = es.split("Element type: Power supply")[0]
    assert slot_section.count("status: Not installed") == 2
    aes = page_text(pages, "aes")
    assert aes.count("SAS device type: no SAS device attached") == 2 + 1  # 2 empty, 1 dead port


@pytest.mark.tools
@pytest.mark.skipif(NO_SG_SES, reason="sg_ses (sg3-utils) not installed")
@pytest.mark.parametrize(
    "spec_name", ["demo", "jbod_4u60", "sas_switch", "no_encserv", "odd", "enclosure_faults"]
)
@pytest.mark.parametrize("page", PAGES)
def test_text_equals_what_real_sg_ses_prints(tmp_path: Path, spec_name: str, page: str) -> None:
    spec = {
        "demo": demo_spec,
        "odd": odd_spec,
        "enclosure_faults": lambda: load_spec(ENCLOSURE_FAULTS),
    }.get(spec_name, lambda: load_spec(SPECS / f"{spec_name}.toml"))()
    seen: set[int] = set()
    for dev in ses_of(spec):
        assert dev.ses is not None
        if id(dev.ses) in seen:
            continue
        seen.add(id(dev.ses))
        pages = ses_page_set(dev.ses)
        hex_file = tmp_path / f"{dev.sg_name}.hex"
        hex_file.write_text(inhex(pages))
        argv = ["sg_ses", "--status", f"--page={page}", f"--inhex={hex_file}"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        assert done.returncode == 0, done.stderr
        live = page_text(pages, page)
        assert live.split("\n", 1)[1] == done.stdout == page_text(pages, page, live=False)
