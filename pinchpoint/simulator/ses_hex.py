"""Raw SES diagnostic pages (SES-4) of a simulated SES device, as `sg_ses --inhex` reads them.

The simulator renders `sg_ses` text itself; these bytes let the real `sg_ses --status --page=PG
--inhex=FILE` decode the very same pages, so tests can check the two agree.
"""

from __future__ import annotations

from pinchpoint.simulator.ses_pages import AesPhy, SesPageSet


def _page(code: int, body: bytes, byte1: int = 0) -> bytes:
    """A diagnostic page: code, byte 1, length, body."""
    return bytes((code, byte1)) + len(body).to_bytes(2, "big") + body


def _field(text: str, width: int) -> bytes:
    """An ASCII field padded with spaces, as INQUIRY-style fields are."""
    return text.encode("ascii")[:width].ljust(width, b" ")


def configuration_page(pages: SesPageSet) -> bytes:
    """Page 0x1: the enclosure descriptor and type descriptor headers."""
    headers = b"".join(
        bytes((t.code, len(t.elements), 0, len(t.text.encode()))) for t in pages.types
    )
    texts = b"".join(t.text.encode() for t in pages.types)
    enclosure = (
        bytes(
            (
                (pages.relative_process_id << 4) | pages.process_count,
                0,
                len(pages.types),
                36,
            )
        )
        + pages.logical_id.to_bytes(8, "big")
        + _field(pages.vendor, 8)
        + _field(pages.product, 16)
        + _field(pages.revision, 4)
    )
    return _page(0x01, pages.generation.to_bytes(4, "big") + enclosure + headers + texts)


def status_page(pages: SesPageSet) -> bytes:
    """Page 0x2: every overall and individual status descriptor, in type order."""
    descriptors = b"".join(
        t.overall.status + b"".join(e.status for e in t.elements) for t in pages.types
    )
    return _page(0x02, pages.generation.to_bytes(4, "big") + descriptors, pages.summary_bits)


def threshold_page(pages: SesPageSet) -> bytes:
    """Page 0x5: every overall and individual threshold descriptor, in type order (zeros for
    elements without limits; sg_ses decodes the sensor types only)."""
    descriptors = b"".join(
        t.overall.threshold + b"".join(e.threshold for e in t.elements) for t in pages.types
    )
    return _page(0x05, pages.generation.to_bytes(4, "big") + descriptors)


def descriptor_page(pages: SesPageSet) -> bytes:
    """Page 0x7: the element descriptor texts, in type order."""

    def one(text: str) -> bytes:
        data = text.encode()
        return bytes((0, 0)) + len(data).to_bytes(2, "big") + data

    body = b"".join(
        one(t.overall.descriptor) + b"".join(one(e.descriptor) for e in t.elements)
        for t in pages.types
    )
    return _page(0x07, pages.generation.to_bytes(4, "big") + body)


def _phy(phy: AesPhy) -> bytes:
    """One 28-byte SAS phy descriptor of the additional element status page."""
    return (
        bytes((phy.device_type << 4, 0, phy.initiator_flags, phy.target_flags))
        + phy.attached_sas_address.to_bytes(8, "big")
        + phy.sas_address.to_bytes(8, "big")
        + bytes((phy.phy_identifier,))
        + bytes(7)
    )


def additional_page(pages: SesPageSet) -> bytes:
    """Page 0xa: slot and expander descriptors (EIP=1, EIIOE=0)."""
    descriptors = []
    for slot in pages.slots:
        specific = bytes((len(slot.phys), 0, 0, slot.slot)) + b"".join(_phy(p) for p in slot.phys)
        descriptors.append(bytes((0x16, 2 + len(specific), 0, slot.element_index)) + specific)
    for expander in pages.expanders:
        specific = (
            bytes((len(expander.phys), 0x40, 0, 0))
            + expander.sas_address.to_bytes(8, "big")
            + b"".join(bytes(pair) for pair in expander.phys)
        )
        descriptors.append(bytes((0x16, 2 + len(specific), 0, expander.element_index)) + specific)
    return _page(0x0A, pages.generation.to_bytes(4, "big") + b"".join(descriptors))


def nickname_page(pages: SesPageSet) -> bytes:
    """Page 0xf: the subenclosure nickname of the primary subenclosure."""
    descriptor = bytes(8) + pages.nickname.encode()[:32].ljust(32, b"\0")
    return _page(0x0F, pages.generation.to_bytes(4, "big") + descriptor)


def inhex(pages: SesPageSet) -> str:
    """Every page as ASCII hex, 16 bytes a line, pages separated by a blank line."""
    lines = []
    for page in (
        configuration_page(pages),
        status_page(pages),
        descriptor_page(pages),
        additional_page(pages),
        nickname_page(pages),
        threshold_page(pages),
    ):
        for i in range(0, len(page), 16):
            lines.append(" ".join(f"{b:02x}" for b in page[i : i + 16]))
        lines.append("")
    return "\n".join(lines)
