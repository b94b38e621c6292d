"""The demo's six JBODs are HGST H4060-J shelves (Ultrastar Data60) as the real product is built:
60 bays numbered 0-59, each slot's SES descriptor "SLOT NN,<disk serial>", three expanders per
I/O module ("4U60_STOR_ENCL": a main one with the SES device, two sub-expanders of 30 bays)."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.simulator import SpecError, demo_spec, kernel_view, load_spec, spec_from_data
from pinchpoint.simulator.fabric import build_fabric
from pinchpoint.simulator.ses_pages import ses_page_set
from pinchpoint.simulator.spec.sas import slot_descriptor

SLOT = re.compile(r"SLOT (\d\d),([0-9A-Z]{8})")


def attr(path: Path) -> str:
    return path.read_text().rstrip("\n")


def test_the_demo_counts_360_disks_600_paths_10_ses_devices() -> None:
    view = kernel_view(demo_spec())
    assert len(view.disk_paths()) == 6 * 60 + 4 * 60
    assert len(view.ses_devices()) == 10
    # SCSI hosts in PCI order: hba1 (03:00.0, host1) the chain of four, side A; hba3 (04:00.0,
    # host2) the chain of two, side A; hba2 (81:00.0, host3) side B of both chains
    assert Counter(d.host.number for d in view.disk_paths()) == {1: 240, 2: 120, 3: 240}
    wwids = Counter(d.disk_port.disk.lu_name for d in view.disk_paths() if d.disk_port)
    assert len(wwids) == 360
    assert Counter(wwids.values()) == {2: 240, 1: 120}  # JBOD-003 and JBOD-012: one path


def test_every_demo_shelf_is_a_full_60_bay_h4060j() -> None:
    fabric = build_fabric(demo_spec())
    assert len(fabric.enclosures) == 6
    for enc in fabric.enclosures:
        assert (enc.spec.vendor, enc.spec.product, enc.spec.bays) == ("HGST", "H4060-J", 60)
        assert sorted(enc.disks) == list(range(60))


def test_each_io_module_has_a_main_expander_and_two_30_bay_sub_expanders() -> None:
    fabric = build_fabric(demo_spec())
    for enc in fabric.enclosures:
        for iom, expanders in enc.expanders.items():
            assert len(expanders) == 3, (enc.name, iom)
            main, *subs = expanders
            assert main.bay_phys == {}
            assert [sorted(s.bay_phys) for s in subs] == [list(range(30)), list(range(30, 60))]
            assert {e.product for e in expanders} == {"4U60_STOR_ENCL"}


def test_slot_descriptors_are_slot_number_and_disk_serial_as_the_shelf_reports_them() -> None:
    fabric = build_fabric(demo_spec())
    enc = next(e for e in fabric.enclosures if e.name == "JBOD-003")
    pages = ses_page_set(enc.ses["A"])
    slots = pages.types[0].elements
    assert len(slots) == 60
    for bay, element in enumerate(slots):
        match = SLOT.fullmatch(element.descriptor)
        assert match is not None, element.descriptor
        assert int(match.group(1)) == bay  # numbered from 0, like the device slot number
        assert match.group(2) == enc.disks[bay].serial
    assert [s.slot for s in pages.slots] == list(range(60))


def test_the_sysfs_enclosure_components_carry_the_descriptors(demo_root: Path) -> None:
    base = demo_root / "sys" / "class" / "enclosure"
    enclosures = sorted(os.listdir(base))
    assert len(enclosures) == 10
    for name in enclosures:
        device = (base / name).resolve()
        assert attr(device / "components") == "60"
        components = sorted(p for p in device.iterdir() if SLOT.fullmatch(p.name))
        assert len(components) == 60
        assert sorted(int(attr(c / "slot")) for c in components) == list(range(60))
        for component in components:
            match = SLOT.fullmatch(component.name)
            assert match is not None and int(match.group(1)) == int(attr(component / "slot"))


def test_the_sysfs_expanders_are_4u60_stor_encl(demo_root: Path) -> None:
    base = demo_root / "sys" / "class" / "sas_expander"
    products = Counter(attr(base / e / "product_id").strip() for e in os.listdir(base))
    assert products == {"4U60_STOR_ENCL": 10 * 3}  # 10 I/O modules cabled, 3 expanders each


def test_an_empty_bay_reports_its_number_only() -> None:
    assert slot_descriptor("SLOT {bay:02d},{serial}", 2, None) == "SLOT 02"
    assert slot_descriptor("SLOT {bay:02d},{serial}", 7, "8HK1ZT4H") == "SLOT 07,8HK1ZT4H"
    assert slot_descriptor("SLOT {number:02d}", 4, "8HK1ZT4H") == "SLOT 05"


def test_other_specs_keep_their_generic_one_based_labels() -> None:
    fabric = build_fabric(load_spec(SPECS / "jbod_4u60.toml"))
    (enc,) = fabric.enclosures
    assert ses_page_set(enc.ses["A"]).types[0].elements[4].descriptor == "SLOT 05"


@pytest.mark.parametrize("template", ["SLOT {slot}", "SLOT {bay:s}", "{0}", "SLOT {bay"])
def test_a_bad_slot_descriptor_template_is_refused_with_its_name(template: str) -> None:
    data = {"enclosure": [{"name": "J", "slot_descriptor": template}]}
    with pytest.raises(SpecError, match=r"slot_descriptor .*\{bay\}, \{number\} and \{serial\}"):
        spec_from_data(data)
