"""Switching a locate LED on this host: the kernel's enclosure class file of a slot, or
`sg_ses --set/--clear=ident` on the enclosure's SES device, run through the command runner every
tool goes through (an argument list, a timeout, never a shell). Which LED to switch, and how to
fall back from one way to the other, is decided by `pinchpoint.service.locate`."""

from __future__ import annotations

import os
from pathlib import Path

from pinchpoint.checks.source.commands import Command, CommandStatus, run_command
from pinchpoint.model.sas import Enclosure

ENCLOSURE_CLASS = "/sys/class/enclosure"
SG_SES_TIMEOUT_S = 20


class LocateError(RuntimeError):
    """The LED could not be switched; the message says why."""


def class_slot_file(enclosure: Enclosure, slot: int, class_root: str) -> Path | None:
    """`…/enclosure/<H:C:T:L>/<component>/locate` for `slot`, when the kernel lists it."""
    for hctl in (h for ses in enclosure.ses_devices for h in ses.hctls):
        device = Path(class_root, hctl)
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


def write_locate_file(path: Path, on: bool) -> None:
    """Write "1" or "0" to an enclosure class `locate` file; `LocateError` with the reason when
    the kernel refuses (a read-only /sys under a hardened unit)."""
    try:
        with open(path, "w", encoding="ascii") as handle:
            handle.write("1" if on else "0")
    except OSError as err:
        raise LocateError(f"{path}: {os.strerror(err.errno or 0)}") from None


def sg_ses_command(selector: str, on: bool, device: str) -> Command:
    """`sg_ses <selector> --set=ident|--clear=ident <device>` as the runner takes it."""
    action = "--set=ident" if on else "--clear=ident"
    key = f"sg_ses/{Path(device).name}.{action.removeprefix('--')}.txt"
    return Command(argv=("sg_ses", selector, action, device), key=key, timeout_s=SG_SES_TIMEOUT_S)


def sg_ses_ident(enclosure: Enclosure, selector: str, on: bool) -> str:
    """Run sg_ses on the first SES device of `enclosure` that answers; returns the device used."""
    devices = [f"/dev/{d}" for ses in enclosure.ses_devices for d in ses.sg_devices]
    if not devices:
        raise LocateError(f"{enclosure.name}: no SES device (sg) is known to switch its LEDs")
    failures = []
    for device in devices:
        done = run_command(sg_ses_command(selector, on, device))
        if done.ok:
            return device
        if done.status is CommandStatus.TOOL_MISSING:
            raise LocateError("sg_ses is not installed (Debian package sg3-utils)")
        if done.status is CommandStatus.TIMEOUT:
            failures.append(f"{device}: no answer in {SG_SES_TIMEOUT_S} s")
            continue
        if done.returncode is None:  # not started: not permitted, or the OS refused
            failures.append(f"{device}: {done.reason()}")
            continue
        said = (done.stderr or done.stdout).strip().splitlines()
        failures.append(f"{device}: sg_ses exit {done.returncode}: {said[-1] if said else ''}")
    raise LocateError(f"{enclosure.name}: " + "; ".join(failures))
