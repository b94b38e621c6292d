"""Enclosure services: per SES device, its `/sys/class/enclosure` entry and its `sg_ses` pages.

SES devices are found as SCSI devices of type 13 in the SAS walk, so an enclosure that lacks
the EncServ bit (and so never appears in `/sys/class/enclosure`) is still read through sg_ses.
"""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.checks.collect.sas.enclosure_class import (
    SesFacts,
    read_enclosure_components,
    read_enclosure_id,
)
from pinchpoint.checks.collect.sas.ses_apply import SES_PAGES, SesPages, apply_pages, parse_page
from pinchpoint.checks.collect.sas.walk import SCSI_TYPE_ENCLOSURE, HostNode, PortNode, ScsiDevice
from pinchpoint.checks.source import Source
from pinchpoint.checks.source.commands import Command
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.problems import ProblemKind

__all__ = ["SG_SES_TIMEOUT_S", "collect_ses_facts", "ses_devices", "sg_ses_command"]

PART = "ses"
SG_SES_TIMEOUT_S = 15.0


def _devices_below(port: PortNode) -> Iterator[tuple[ScsiDevice, str | None]]:
    """SCSI devices below a port, each with its end device's enclosure identifier."""
    if port.end_device is not None:
        for dev in port.end_device.scsi_devices:
            yield dev, port.end_device.enclosure_identifier
    if port.expander is not None:
        for child in port.expander.ports:
            yield from _devices_below(child)


def ses_devices(hosts: list[HostNode]) -> list[tuple[ScsiDevice, str | None]]:
    """Every SCSI device of type 13 (enclosure services) under the walked hosts."""
    found: list[tuple[ScsiDevice, str | None]] = []
    for host in hosts:
        for port in host.ports:
            found.extend(d for d in _devices_below(port) if d[0].scsi_type == SCSI_TYPE_ENCLOSURE)
        found.extend((d, None) for d in host.direct_devices if d.scsi_type == SCSI_TYPE_ENCLOSURE)
    return found


def sg_ses_command(sg_device: str, page: str) -> Command:
    """`sg_ses --page=<page> /dev/<sgN>`, kept as `commands/sg_ses/<sgN>.<page>.txt`."""
    return Command(
        argv=("sg_ses", f"--page={page}", f"/dev/{sg_device}"),
        key=f"sg_ses/{sg_device}.{page}.txt",
        timeout_s=SG_SES_TIMEOUT_S,
    )


def _note_missing_pieces(log: ProblemLog, dev: ScsiDevice) -> None:
    if not dev.enclosure_dir:
        log.add(
            "enclosure",
            dev.hctl,
            ProblemKind.UNSUPPORTED,
            f"SES device {dev.hctl} has no /sys/class/enclosure entry (no EncServ bit, or the "
            "ses driver is not loaded): its slots are read through sg_ses only",
        )
    if dev.sg_device is None:
        log.add(
            PART,
            dev.hctl,
            ProblemKind.MISSING,
            f"SES device {dev.hctl} has no scsi_generic node (sg driver not loaded?): "
            "its SES pages cannot be read",
        )


class _PageRuns:
    """sg_ses runs and their decoding, recording every failure."""

    def __init__(self, source: Source, log: ProblemLog) -> None:
        self.source = source
        self.log = log
        self.decoded: dict[str, SesPages] = {}

    def run(self, wanted: list[tuple[SesFacts, str]]) -> list[tuple[SesFacts, str]]:
        """Run and decode the pages; returns those that gave nothing usable."""
        commands = [sg_ses_command(f.sg_device or "", page) for f, page in wanted]
        failed = []
        for (found, page), command, result in zip(
            wanted, commands, self.source.run_all(commands), strict=True
        ):
            pages = self.decoded.setdefault(found.hctl, SesPages())
            if not result.ok:
                self.log.add(PART, command.line, result.problem_kind, result.reason())
                failed.append((found, page))
                continue
            problem = parse_page(pages, page, result.stdout)
            if problem is not None:  # garbled, or cut short: ask the next I/O module too
                self.log.add(PART, command.line, ProblemKind.GARBLED, problem)
                failed.append((found, page))
        return failed


def collect_ses_facts(
    source: Source, hosts: list[HostNode], log: ProblemLog
) -> dict[str, SesFacts]:
    """SES facts keyed by the SES device's H:C:T:L.

    The I/O modules of one enclosure report the same slots, so every SES device is asked for
    its configuration page (its identity) but only the first of each enclosure for the other
    pages; where that one fails, the next I/O module is asked instead.
    """
    read = SysfsReader(source, "enclosure", log)
    facts: dict[str, SesFacts] = {}
    groups: dict[str, list[SesFacts]] = {}
    bays_read: set[str] = set()
    for dev, enclosure_identifier in ses_devices(hosts):
        found = SesFacts(hctl=dev.hctl, sg_device=dev.sg_device, sas_address=dev.sas_address)
        found.vendor, found.product, found.revision = dev.vendor, dev.model, dev.revision
        facts[dev.hctl] = found
        if dev.enclosure_dir:
            read_enclosure_id(read, dev.enclosure_dir, found)
            # The I/O modules of one enclosure list the same bays: read them once.
            if not (found.logical_id and found.logical_id in bays_read):
                read_enclosure_components(read, dev.enclosure_dir, found)
                bays_read.add(found.logical_id or dev.hctl)
        _note_missing_pieces(log, dev)
        if dev.sg_device is not None:
            key = found.logical_id or enclosure_identifier or dev.hctl
            groups.setdefault(key, []).append(found)
    runs = _PageRuns(source, log)
    wanted: list[tuple[SesFacts, str]] = []
    for members in groups.values():
        wanted.extend((members[0], page) for page in SES_PAGES)
        wanted.extend((other, "cf") for other in members[1:])
    failed = runs.run(wanted)
    retry: list[tuple[SesFacts, str]] = []
    for found, page in failed:
        if page == "cf":
            continue
        key = next(k for k, members in groups.items() if found in members)
        retry.extend((other, page) for other in groups[key][1:2])
    if retry:
        runs.run(retry)
    for hctl, pages in runs.decoded.items():
        apply_pages(facts[hctl], pages)
    return facts
