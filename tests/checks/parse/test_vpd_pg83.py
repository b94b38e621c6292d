"""The Device Identification VPD page (0x83): the real page of a Seagate SAS disk (sg3_utils'
`inhex/vpd_dev_id.hex`, decoded by `sg_vpd` beside it), a LIO iSCSI LUN's page as the
simulator writes it, the real but UTF-8-mangled pages of the procfs capture, and truncated,
empty and hostile bytes."""

from __future__ import annotations

from pathlib import Path

from fixture_paths import FIXTURES

from pinchpoint.checks.parse.vpd_pg83 import (
    ASSOCIATION_LU,
    ASSOCIATION_PORT,
    ASSOCIATION_TARGET,
    EUI64,
    NAA,
    SCSI_NAME,
    T10_VENDOR,
    Designator,
    lun_identity,
    parse_vpd_pg83,
)
from pinchpoint.simulator.iscsi import vpd_pg83_lio

VPD = FIXTURES / "vpd"
PROCFS = FIXTURES / "snapshots" / "procfs-mpt3sas"


def hex_page(path: Path) -> bytes:
    """sg3_utils' inhex format: hex pairs, `#` comments."""
    lines = (line.split("#", 1)[0] for line in path.read_text().splitlines())
    return bytes.fromhex(" ".join(lines))


SEAGATE = hex_page(VPD / "sg3utils_inhex_seagate_sas_disk_vpd_dev_id.hex")


def test_the_real_seagate_page_as_sg_vpd_decodes_it() -> None:
    page = parse_vpd_pg83(SEAGATE)
    assert page.problems == []
    decoded = [(d.association_name, d.type_name, d.text()) for d in page.designators]
    assert decoded == [  # sg_vpd --page=di of the same bytes (…_sg_vpd_di.txt)
        ("logical unit", "NAA", "5000c5003011cb2b"),
        ("target port", "NAA", "5000c5003011cb29"),
        ("target port", "relative target port", "00000001"),
        ("target device", "NAA", "5000c5003011cb28"),
        ("target device", "SCSI name string", "naa.5000C5003011CB28"),
    ]
    sg_vpd = (VPD / "sg3utils_inhex_seagate_sas_disk_sg_vpd_di.txt").read_text()
    assert "0x5000c5003011cb2b" in sg_vpd and "naa.5000C5003011CB28" in sg_vpd
    # the LU's own NAA, not the port's or the target device's (the kernel's `wwid`)
    assert page.lun_id == "naa.5000c5003011cb2b"


def test_a_lio_iscsi_lun_is_named_by_its_naa_not_its_vendor_id_or_port() -> None:
    page = parse_vpd_pg83(vpd_pg83_lio(0x6001405AB12, "ab12", "iqn.2003-01.org.x:t1", 1))
    assert page.problems == []
    kinds = [(d.association, d.kind) for d in page.designators]
    assert kinds == [(ASSOCIATION_LU, NAA), (ASSOCIATION_LU, T10_VENDOR), (1, SCSI_NAME)]
    assert page.designators[1].text() == "LIO-ORG ab12"
    assert page.designators[2].text() == "iqn.2003-01.org.x:t1,t,0x0001"
    assert page.lun_id == "naa." + f"{0x6001405AB12:032x}"


def test_the_kernels_order_of_preference() -> None:
    def d(
        kind: int, value: bytes, association: int = ASSOCIATION_LU, code_set: int = 1
    ) -> Designator:
        return Designator(association, kind, code_set, value)

    vendor = d(T10_VENDOR, b"ACME    0123456789abcdef0123", code_set=2)
    eui = d(EUI64, bytes(range(1, 9)))
    naa16 = d(NAA, bytes([0x60] + [1] * 15))
    assert lun_identity([vendor]) == "t10.ACME    0123456789abcdef0123"
    assert lun_identity([eui, vendor]) == "eui.0102030405060708"  # anything over a vendor id
    assert lun_identity([naa16, eui]) == "naa.60" + "01" * 15  # longer wins
    naa8 = d(NAA, bytes(range(8)))
    assert lun_identity([naa8, eui]) == "naa.0001020304050607"  # NAA over EUI-64 of its size
    assert lun_identity([eui, naa8]) == "naa.0001020304050607"
    name = d(SCSI_NAME, b"iqn.2001-05.com.equallogic:0-8a0906-lun1\x00\x00\x00\x00", code_set=3)
    assert lun_identity([naa16, name]) == "iqn.2001-05.com.equallogic:0-8a0906-lun1"
    port_only = d(NAA, bytes([0x50] * 8), association=ASSOCIATION_PORT)
    target = d(NAA, bytes([0x50] * 8), association=ASSOCIATION_TARGET)
    assert lun_identity([port_only, target]) is None  # nothing names the LU itself
    assert lun_identity([d(NAA, bytes(12))]) is None  # no NAA is 12 bytes


def test_the_real_pages_mangled_by_the_capture_format_are_refused() -> None:
    pages = sorted(PROCFS.rglob("vpd_pg83"))
    assert pages, "the procfs capture holds vpd_pg83 files"
    for path in pages:
        page = parse_vpd_pg83(path.read_bytes())
        assert page.lun_id is None and page.designators == []
        assert page.problems == ["page code 0xef, not 0x83 (the bytes are garbled)"]


def test_truncated_empty_and_hostile_pages() -> None:
    assert parse_vpd_pg83(b"").problems == ["0 bytes: shorter than the 4-byte page header"]
    cut = parse_vpd_pg83(SEAGATE[:34])
    assert cut.lun_id == "naa.5000c5003011cb2b"  # the first designator was whole
    assert cut.problems[0] == "the page says 72 bytes follow its header, 30 do"
    assert "runs past the page's end" in cut.problems[1]
    header_only = parse_vpd_pg83(bytes([0, 0x83, 0, 0]))
    assert (header_only.designators, header_only.problems, header_only.lun_id) == ([], [], None)
    evil = b"\x1b]0;owned\x07\xff"
    body = bytes([3, 0x08, 0, len(evil)]) + evil
    page = parse_vpd_pg83(bytes([0, 0x83, 0, len(body)]) + body)
    assert page.lun_id == "\\x1b]0;owned\\x07\\xff"  # escaped, never raw
    assert parse_vpd_pg83(bytes(range(256)) * 3).problems  # noise: refused, no exception
