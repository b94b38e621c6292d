"""The whole inventory of one host, read through a `Source`: every collector, every problem.

A collector that fails is recorded as a problem ("not collected: why") and the rest of the
inventory stands; nothing a host or a snapshot holds can make this raise.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from pinchpoint.checks.enclosure_class import SesFacts
from pinchpoint.checks.sas_fabric import FabricBuilder
from pinchpoint.checks.sas_sysfs import HostNode, SasSysfsWalker
from pinchpoint.checks.ses import collect_ses_facts
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.sysfs import ProblemLog
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.problems import ProblemKind
from pinchpoint.model.sas import SasFabric

log = logging.getLogger(__name__)

Progress = Callable[[str], None]
T = TypeVar("T")


def _first_line(source: Source, path: str) -> str | None:
    try:
        text = source.read_text(path).strip()
    except SourceError:
        return None
    return text.splitlines()[0] if text else None


def host_info(source: Source, kind: SourceKind | None = None) -> HostInfo:
    """Host name, kernel and capture time: from the manifest, else from /proc."""
    manifest = source.manifest()
    info = HostInfo(
        source=kind or source.kind,
        source_location=source.location,
        hostname=_first_line(source, "/proc/sys/kernel/hostname"),
        kernel=_first_line(source, "/proc/sys/kernel/osrelease"),
    )
    if manifest is not None:
        info.hostname = manifest.hostname or info.hostname
        info.kernel = manifest.kernel or info.kernel
        info.captured_at = manifest.captured_at
        info.tools = dict(manifest.tools)
    elif source.kind is SourceKind.LIVE:
        info.captured_at = datetime.now().astimezone()
    return info


def _guarded(part: str, problems: ProblemLog, fallback: T, step: Callable[[], T]) -> T:
    """Run one collector step; an unexpected failure becomes a problem, not a crash."""
    try:
        return step()
    except Exception as err:  # the safety net: a collector bug must not lose the report
        log.debug("collector %s failed:\n%s", part, traceback.format_exc())
        problems.add(
            part, part, ProblemKind.FAILED, f"collector failed: {type(err).__name__}: {err}"
        )
        return fallback


def collect_inventory(
    source: Source, *, kind: SourceKind | None = None, progress: Progress | None = None
) -> Inventory:
    """Read everything the inventory holds from `source`."""
    problems = ProblemLog()
    say = progress or (lambda _msg: None)
    say("reading host identity")
    host = _guarded(
        "host", problems, HostInfo(source=kind or source.kind), lambda: host_info(source, kind)
    )
    say("walking the SAS transport tree")
    walker = SasSysfsWalker(source, problems)
    hosts: list[HostNode] = _guarded("sas", problems, [], walker.hosts)
    say("reading enclosures (sysfs and SES pages)")
    ses: dict[str, SesFacts] = _guarded(
        "ses", problems, {}, lambda: collect_ses_facts(source, hosts, problems)
    )
    say("joining the fabric")
    fabric = _guarded("sas", problems, SasFabric(), lambda: FabricBuilder(hosts, ses).build())
    return Inventory(host=host, sas=fabric, problems=[*source.open_problems, *problems.problems()])
