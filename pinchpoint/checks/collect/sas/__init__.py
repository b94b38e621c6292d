"""The SAS domain: HBAs, their ports and phys, expander chains, enclosures, bays and every disk
path, read from sysfs and the enclosures' SES pages, as one collector.

Three steps, each failing on its own: the transport tree is walked from `/sys/class/sas_host`
(`walk.py`); each enclosure is read through `/sys/class/enclosure` (`enclosure_class.py`) and
its `sg_ses` pages (`ses.py`, folded into its facts by `ses_apply.py`); the two are joined into
the fabric model (`fabric.py`).
"""

from __future__ import annotations

from pinchpoint.checks.collect.collector import Collector, Progress, guarded
from pinchpoint.checks.collect.sas.enclosure_class import SesFacts
from pinchpoint.checks.collect.sas.fabric import FabricBuilder
from pinchpoint.checks.collect.sas.ses import collect_ses_facts
from pinchpoint.checks.collect.sas.walk import HostNode, SasSysfsWalker
from pinchpoint.checks.source import Source
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import SasFabric

__all__ = ["COLLECTOR", "read_sas"]


def read_sas(source: Source, problems: ProblemLog, inventory: Inventory, say: Progress) -> None:
    """The SAS fabric of `inventory`: the walked tree joined with the enclosures' SES facts."""
    walker = SasSysfsWalker(source, problems)
    hosts: list[HostNode] = guarded("sas", problems, [], walker.hosts)
    say("reading enclosures (sysfs and SES pages)")
    ses: dict[str, SesFacts] = guarded(
        "ses", problems, {}, lambda: collect_ses_facts(source, hosts, problems)
    )
    say("joining the SAS fabric")
    inventory.sas = guarded("sas", problems, SasFabric(), lambda: FabricBuilder(hosts, ses).build())


COLLECTOR = Collector(part="sas", says="walking the SAS transport tree", read=read_sas)
