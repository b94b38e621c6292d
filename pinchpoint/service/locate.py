"""Light (or put out) an enclosure's or a slot's locate LED on a live host, so the technician
finds the right JBOD and bay: through `/sys/class/enclosure/<dev>/<slot>/locate` when the kernel
made that entry, else with `sg_ses --set=ident` on the enclosure's SES device."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pydantic import BaseModel

from pinchpoint.model.sas import Enclosure

ENCLOSURE_CLASS = "/sys/class/enclosure"
SG_SES_TIMEOUT_S = 20


class LocateError(RuntimeError):
    """The LED could not be switched; the message says why."""


class LocateResult(BaseModel):
    enclosure_id: str
    slot: int | None
    on: bool
    method: str  # "sysfs" or "sg_ses"
    device: str  # the file written or the SES device used


def _class_slot_file(enclosure: Enclosure, slot: int, root: str) -> Path | None:
    """`…/enclosure/<H:C:T:L>/<component>/locate` for `slot`, when the kernel lists it."""
    for hctl in (h for ses in enclosure.ses_devices for h in ses.hctls):
        device = Path(root, hctl)
        if not device.is_dir():
            continue
        for component in sorted(device.iterdir()):
            slot_file = component / "slot"
            try:
                number = int(slot_file.read_text().strip())
            except (OSError, ValueError):
                continue
            if number == slot and (component / "locate").exists():
                return component / "locate"
    return None


def _sg_ses(enclosure: Enclosure, selector: str, on: bool) -> str:
    """Run sg_ses on the first SES device that answers; returns the device used."""
    devices = [f"/dev/{d}" for ses in enclosure.ses_devices for d in ses.sg_devices]
    if not devices:
        raise LocateError(f"{enclosure.name}: no SES device (sg) is known to switch its LEDs")
    action = "--set=ident" if on else "--clear=ident"
    failures = []
    for device in devices:
        argv = ["sg_ses", selector, action, device]
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=SG_SES_TIMEOUT_S, check=False
            )
        except FileNotFoundError:
            raise LocateError("sg_ses is not installed (Debian package sg3-utils)") from None
        except subprocess.TimeoutExpired:
            failures.append(f"{device}: no answer in {SG_SES_TIMEOUT_S} s")
            continue
        if done.returncode == 0:
            return device
        said = (done.stderr or done.stdout).strip().splitlines()
        failures.append(f"{device}: sg_ses exit {done.returncode}: {said[-1] if said else ''}")
    raise LocateError(f"{enclosure.name}: " + "; ".join(failures))


def set_locate(
    enclosure: Enclosure, slot: int | None, on: bool, *, class_root: str = ENCLOSURE_CLASS
) -> LocateResult:
    """Switch the locate LED of `slot` (or of the whole enclosure when `slot` is None)."""
    if slot is not None:
        if enclosure.slots and slot not in {s.index for s in enclosure.slots}:
            raise LocateError(f"{enclosure.name} has no slot {slot}")
        path = _class_slot_file(enclosure, slot, class_root)
        refused = None
        if path is not None:
            try:
                with open(path, "w", encoding="ascii") as handle:
                    handle.write("1" if on else "0")
            except OSError as err:  # read-only /sys (a hardened unit): sg_ses may still do it
                refused = f"{path}: {os.strerror(err.errno or 0)}"
            else:
                return LocateResult(
                    enclosure_id=enclosure.id, slot=slot, on=on, method="sysfs", device=str(path)
                )
        try:
            device = _sg_ses(enclosure, f"--dev-slot-num={slot}", on)
        except LocateError as err:
            raise LocateError(f"{refused}; {err}" if refused else str(err)) from None
    else:
        device = _sg_ses(enclosure, "--index=enc,0", on)
    return LocateResult(enclosure_id=enclosure.id, slot=slot, on=on, method="sg_ses", device=device)
