"""Enclosure services: per SES device, its `/sys/class/enclosure` entry and its `sg_ses` pages.

SES devices are found as SCSI devices of type 13 in the SAS walk, so an enclosure that lacks
the EncServ bit (and so never appears in `/sys/class/enclosure`) is still read through sg_ses.
"""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.checks.commands import Command
from pinchpoint.checks.enclosure_class import SesFacts, read_enclosure_dir
from pinchpoint.checks.sas_sysfs import SCSI_TYPE_ENCLOSURE, HostNode, PortNode, ScsiDevice
from pinchpoint.checks.ses_apply import SES_PAGES, SesPages, apply_pages, parse_page
from pinchpoint.checks.source import Source
from pinchpoint.checks.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.problems import ProblemKind

PART = "ses"
SG_SES_TIMEOUT_S = 15.0


def _devices_below(port: PortNode) -> Iterator[ScsiDevice]:
    if port.end_device is not None:
        yield from port.end_device.scsi_devices
    if port.expander is not None:
        for child in port.expander.ports:
            yield from _devices_below(child)


def ses_devices(hosts: list[HostNode]) -> list[ScsiDevice]:
    """Every SCSI device of type 13 (enclosure services) under the walked hosts."""
    found: list[ScsiDevice] = []
    for host in hosts:
        for port in host.ports:
            found.extend(d for d in _devices_below(port) if d.scsi_type == SCSI_TYPE_ENCLOSURE)
        found.extend(d for d in host.direct_devices if d.scsi_type == SCSI_TYPE_ENCLOSURE)
    return found


def sg_ses_command(sg_device: str, page: str) -> Command:
    """`sg_ses --page=<page> /dev/<sgN>`, kept as `commands/sg_ses/<sgN>.<page>.txt`."""
    return Command(
        argv=("sg_ses", f"--page={page}", f"/dev/{sg_device}"),
        key=f"sg_ses/{sg_device}.{page}.txt",
        timeout_s=SG_SES_TIMEOUT_S,
    )


def collect_ses_facts(
    source: Source, hosts: list[HostNode], log: ProblemLog
) -> dict[str, SesFacts]:
    """SES facts keyed by the SES device's H:C:T:L."""
    read = SysfsReader(source, "enclosure", log)
    facts: dict[str, SesFacts] = {}
    commands: list[tuple[SesFacts, str, Command]] = []
    for dev in ses_devices(hosts):
        found = SesFacts(hctl=dev.hctl, sg_device=dev.sg_device, sas_address=dev.sas_address)
        found.vendor, found.product, found.revision = dev.vendor, dev.model, dev.revision
        facts[dev.hctl] = found
        if dev.enclosure_dir:
            read_enclosure_dir(read, dev.enclosure_dir, found)
        else:
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
            continue
        commands.extend((found, page, sg_ses_command(dev.sg_device, page)) for page in SES_PAGES)
    results = source.run_all([c for _, _, c in commands])
    decoded: dict[str, SesPages] = {}
    for (found, page, command), result in zip(commands, results, strict=True):
        pages = decoded.setdefault(found.hctl, SesPages())
        if not result.ok:
            log.add(PART, command.line, result.problem_kind, result.reason())
            continue
        problem = parse_page(pages, page, result.stdout)
        if problem is not None:
            log.add(PART, command.line, ProblemKind.GARBLED, problem)
    for hctl, pages in decoded.items():
        apply_pages(facts[hctl], pages)
    return facts
