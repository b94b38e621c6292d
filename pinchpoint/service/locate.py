"""Light (or put out) an enclosure's or a slot's locate LED on a live host, so the technician
finds the right JBOD and bay: through `/sys/class/enclosure/<dev>/<slot>/locate` when the kernel
made that entry, else with `sg_ses --set=ident` on the enclosure's SES device.

This module decides which LED and which way; switching it on the host is
`pinchpoint.checks.source.locate`."""

from __future__ import annotations

from pydantic import BaseModel

from pinchpoint.checks.source.locate import (
    ENCLOSURE_CLASS,
    LocateError,
    class_slot_file,
    sg_ses_ident,
    write_locate_file,
)
from pinchpoint.model.sas import Enclosure

__all__ = ["LocateError", "LocateResult", "set_locate"]


class LocateResult(BaseModel):
    enclosure_id: str
    slot: int | None
    on: bool
    method: str  # "sysfs" or "sg_ses"
    device: str  # the file written or the SES device used


def set_locate(
    enclosure: Enclosure, slot: int | None, on: bool, *, class_root: str = ENCLOSURE_CLASS
) -> LocateResult:
    """Switch the locate LED of `slot` (or of the whole enclosure when `slot` is None)."""
    if slot is None:
        device = sg_ses_ident(enclosure, "--index=enc,0", on)
        return LocateResult(
            enclosure_id=enclosure.id, slot=None, on=on, method="sg_ses", device=device
        )
    if enclosure.slots and slot not in {s.index for s in enclosure.slots}:
        raise LocateError(f"{enclosure.name} has no slot {slot}")
    path = class_slot_file(enclosure, slot, class_root)
    refused = None
    if path is not None:
        try:
            write_locate_file(path, on)
        except LocateError as err:  # read-only /sys (a hardened unit): sg_ses may still do it
            refused = str(err)
        else:
            return LocateResult(
                enclosure_id=enclosure.id, slot=slot, on=on, method="sysfs", device=str(path)
            )
    try:
        device = sg_ses_ident(enclosure, f"--dev-slot-num={slot}", on)
    except LocateError as err:
        raise LocateError(f"{refused}; {err}" if refused else str(err)) from None
    return LocateResult(enclosure_id=enclosure.id, slot=slot, on=on, method="sg_ses", device=device)
