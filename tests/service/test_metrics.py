"""`/metrics` exposition: parsed back with prometheus_client's own parsers on the demo host
(simulated, then inventoried and checked by the real pipeline), a SAN host and a host with a
downgraded NIC; values, labels, escaping, empty input, content negotiation, and the docs."""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from demo_host import shared_demo_root
from fixture_paths import ROOT, SPECS
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as parse_openmetrics,
)
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from pinchpoint import __version__
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Mute, Report
from pinchpoint.model.inventory import Inventory, SourceKind
from pinchpoint.naming import disk_ref
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.engine import build_report, rule_context
from pinchpoint.service.metrics import MetricsInput, SweepCounters, metrics_exposition
from pinchpoint.service.notify import NotifyCounts
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.disk_work import DiskWork
from pinchpoint.stats.gather import gather_statistics

DOCS = ROOT / "docs" / "prometheus.md"
GBIT = 1e9 / 8  # a line rate in bytes per second
MBIT = 1e6 / 8


def checked_host(snapshot: Path, kind: SourceKind | None = None) -> tuple[Inventory, Report]:
    """The inventory and report `pinchpoint check --snapshot` makes of a snapshot."""
    source = SnapshotSource(snapshot)
    inventory = collect_inventory(source, kind=kind)
    statistics = gather_statistics(source, inventory, live=False)
    return inventory, build_report(rule_context(inventory, statistics), CATALOG)


@pytest.fixture(scope="module")
def demo() -> tuple[Inventory, Report]:
    return checked_host(shared_demo_root(), SourceKind.DEMO)


def simulated(tmp_path: Path, spec: str) -> tuple[Inventory, Report]:
    write_snapshot(load_spec(SPECS / f"{spec}.toml"), tmp_path / spec)
    return checked_host(tmp_path / spec)


Samples = dict[str, list[Sample]]


def scrape(data: MetricsInput) -> Samples:
    """The exposition parsed back: samples by name (a parse error fails the test)."""
    body, content_type = metrics_exposition(data)
    assert content_type.startswith("text/plain; version=0.0.4")
    samples: Samples = {}
    for family in text_string_to_metric_families(body.decode("utf-8")):
        for sample in family.samples:
            samples.setdefault(sample.name, []).append(sample)
    return samples


def value(samples: Samples, metric: str, /, **labels: str) -> float:
    """The one sample of `metric` whose labels include `labels`."""
    found = [s for s in samples.get(metric, []) if labels.items() <= s.labels.items()]
    assert len(found) == 1, f"{metric}{labels}: {len(found)} samples"
    return found[0].value


def demo_input(demo: tuple[Inventory, Report], **extra: object) -> MetricsInput:
    inventory, report = demo
    fields: dict[str, object] = {
        "host": "demo-storage-head",
        "inventory": inventory,
        "report": report,
        "open_findings": report.findings,
        "demo": True,
    }
    fields.update(extra)
    return MetricsInput.model_validate(fields)


def test_the_demo_jbods_003_and_012_have_one_path_of_two(demo: tuple[Inventory, Report]) -> None:
    samples = scrape(demo_input(demo))
    paths = {s.labels["enclosure"]: s.value for s in samples["pinchpoint_enclosure_paths"]}
    expected = {
        s.labels["enclosure"]: s.value for s in samples["pinchpoint_enclosure_paths_expected"]
    }
    assert paths == {
        "JBOD-001": 2,
        "JBOD-002": 2,
        "JBOD-003": 1,
        "JBOD-007": 2,
        "JBOD-00B": 2,
        "JBOD-012": 1,
    }
    assert set(expected.values()) == {2}
    one = samples["pinchpoint_enclosure_paths"][2].labels
    assert one["enclosure_id"] == "enclosure:0x5000ccab1e97cfff"
    assert one["logical_id"] == "0x5000ccab1e97cfff" and "host" not in one
    assert value(samples, "pinchpoint_enclosures") == 6
    assert value(samples, "pinchpoint_sas_hbas") == 3
    assert value(samples, "pinchpoint_disks") == 360
    assert value(samples, "pinchpoint_disk_paths") == 600
    assert value(samples, "pinchpoint_disks_by_paths", paths="1") == 120  # 2 JBODs × 60
    assert value(samples, "pinchpoint_enclosure_slots", enclosure="JBOD-003") == 60
    assert value(samples, "pinchpoint_enclosure_disks", enclosure="JBOD-003") == 60


RENAMED = {  # deprecated name → the name that says what it holds (HBA ports, not paths)
    "pinchpoint_disks_by_paths": "pinchpoint_disks_by_hba_ports",
    "pinchpoint_enclosure_paths": "pinchpoint_enclosure_hba_ports",
    "pinchpoint_enclosure_paths_expected": "pinchpoint_enclosure_hba_ports_expected",
}


def hba_ports_label(labels: dict[str, str]) -> dict[str, str]:
    """The labels of a deprecated series as its new name has them (`paths` is `hba_ports`)."""
    renamed = dict(labels)
    if "paths" in renamed:
        renamed["hba_ports"] = renamed.pop("paths")
    return renamed


def test_hba_ports_are_named_so_and_the_old_paths_series_are_deprecated(
    demo: tuple[Inventory, Report],
) -> None:
    data = demo_input(demo)
    samples = scrape(data)
    assert value(samples, "pinchpoint_disks_by_hba_ports", hba_ports="1") == 120  # 2 JBODs × 60
    assert value(samples, "pinchpoint_disks_by_hba_ports", hba_ports="2") == 240
    ports = {s.labels["enclosure"]: s.value for s in samples["pinchpoint_enclosure_hba_ports"]}
    assert ports["JBOD-003"] == ports["JBOD-012"] == 1 and ports["JBOD-001"] == 2
    for old, new in RENAMED.items():
        relabelled = [(hba_ports_label(s.labels), s.value) for s in samples[old]]
        assert relabelled == [(s.labels, s.value) for s in samples[new]], old
    helps = {
        family.name: family.documentation
        for family in text_string_to_metric_families(metrics_exposition(data)[0].decode())
    }
    documented = DOCS.read_text(encoding="utf-8")
    for old, new in RENAMED.items():
        assert helps[old].startswith(f"Deprecated, removed in pinchpoint 0.3.0: use {new}")
        assert not helps[new].startswith("Deprecated")
        row = next(line for line in documented.splitlines() if line.startswith(f"| `{old}`"))
        assert "deprecated" in row.lower() and "0.3.0" in row and f"`{new}`" in row


def test_the_demo_chain_of_four_and_its_links(demo: tuple[Inventory, Report]) -> None:
    samples = scrape(demo_input(demo))
    depths = sorted(s.value for s in samples["pinchpoint_sas_chain_depth"])
    assert depths == [2, 2, 2, 4]
    port = {"port_id": "hba:0000:03:00.0/connector:0"}
    assert value(samples, "pinchpoint_sas_chain_enclosures", **port) == 4
    assert value(samples, "pinchpoint_sas_port_phys", **port) == 4
    assert value(samples, "pinchpoint_sas_port_phys_up", **port) == 4
    assert (
        value(samples, "pinchpoint_sas_port_negotiated_rate_bytes_per_second", **port) == 12 * GBIT
    )
    assert value(samples, "pinchpoint_sas_port_max_rate_bytes_per_second", **port) == 12 * GBIT
    hba = samples["pinchpoint_sas_port_phys"][0].labels["hba"]
    assert hba == "0000:03:00.0 SAS9300-8e"
    # expander-to-expander links, none per disk phy: the chains' 6 hops of 4 phys, and in each of
    # the 10 cabled H4060-J I/O modules its main expander's two 10-phy links to its sub-expanders
    links = samples["pinchpoint_sas_expander_link_phys"]
    assert sorted(s.value for s in links) == [4] * 6 + [10] * 20
    assert all(s.labels["attached_id"].startswith("expander:") for s in links)


def test_the_demo_nics_and_pcie_links(demo: tuple[Inventory, Report]) -> None:
    samples = scrape(demo_input(demo))
    assert value(samples, "pinchpoint_nic_speed_bytes_per_second", nic="eno1") == 1000 * MBIT
    assert value(samples, "pinchpoint_nic_speed_bytes_per_second", nic="ens1f0") == 10 * GBIT
    assert value(samples, "pinchpoint_nic_max_speed_bytes_per_second", nic="ens1f0") == 10 * GBIT
    assert value(samples, "pinchpoint_nic_up", nic="ens1f1", bond="bond0") == 1
    assert value(samples, "pinchpoint_bond_members_up", bond="bond0") == 2
    assert value(samples, "pinchpoint_bond_speed_bytes_per_second", bond="bond0") == 20 * GBIT
    hba = {"pci_address": "0000:03:00.0"}
    assert value(samples, "pinchpoint_pcie_link_speed_transfers_per_second", **hba) == 8e9
    assert value(samples, "pinchpoint_pcie_link_width_lanes", **hba, kind="storage") == 8
    assert value(samples, "pinchpoint_pcie_link_max_width_lanes", **hba, driver="mpt3sas") == 8


def test_open_and_muted_findings_by_rule_and_severity(demo: tuple[Inventory, Report]) -> None:
    _, report = demo
    single = [f for f in report.findings if f.rule == "sas.enclosure.single_path"]
    muted = single[0].model_copy(
        update={"muted": Mute(rule=single[0].rule, entity_id=single[0].entity.id, reason="x")}
    )
    rest = [f for f in report.findings if f is not single[0]]
    samples = scrape(demo_input(demo, open_findings=[muted, *rest]))
    rule = {"rule": "sas.enclosure.single_path", "severity": "critical"}
    assert value(samples, "pinchpoint_findings_open", **rule) == 1
    assert value(samples, "pinchpoint_findings_muted", **rule) == 1
    chains = {"rule": "sas.chain.imbalance", "severity": "warning"}
    assert value(samples, "pinchpoint_findings_open", **chains) == 1
    assert value(samples, "pinchpoint_report_rules_evaluated") == report.rules_evaluated
    assert value(samples, "pinchpoint_report_timestamp_seconds") == (
        report.generated_at.timestamp()
    )


def test_sweeps_notifications_and_info(demo: tuple[Inventory, Report]) -> None:
    done = datetime(2026, 11, 22, 4, 0, tzinfo=UTC)
    samples = scrape(
        demo_input(
            demo,
            sweeps=SweepCounters(
                sweeps=12, errors=1, last_duration_s=4.5, last_success=done, collection_problems=3
            ),
            notifications=NotifyCounts(sent=5, failed=1, retried=7, pending=2),
        )
    )
    assert value(samples, "pinchpoint_sweeps_total") == 12
    assert value(samples, "pinchpoint_sweep_errors_total") == 1
    assert value(samples, "pinchpoint_sweep_duration_seconds") == 4.5
    assert value(samples, "pinchpoint_sweep_last_success_timestamp_seconds") == done.timestamp()
    assert value(samples, "pinchpoint_collection_problems") == 3
    assert value(samples, "pinchpoint_notifications_sent_total") == 5
    assert value(samples, "pinchpoint_notifications_failed_total") == 1
    assert value(samples, "pinchpoint_notifications_retried_total") == 7
    assert value(samples, "pinchpoint_notifications_pending") == 2
    assert value(samples, "pinchpoint_info", version=__version__, demo="true") == 1


def test_disk_work_as_counters_and_the_topology_on_one_info_series(
    demo: tuple[Inventory, Report],
) -> None:
    inventory, _ = demo
    disk = next(d for d in inventory.sas.disks if len({p.hba_id for p in d.paths}) == 2)
    work = DiskWork(
        disk=disk.id,
        reads=1200,
        writes=30,
        read_bytes=4096e3,
        written_bytes=8192,
        read_seconds=6.0,
        write_seconds=0.25,
        busy_seconds=9.5,
        queued_seconds=12.0,
    )
    samples = scrape(demo_input(demo, work=[work]))
    labels = {"disk": disk.id}
    assert value(samples, "pinchpoint_disk_reads_completed_total", **labels) == 1200
    assert value(samples, "pinchpoint_disk_writes_completed_total", **labels) == 30
    assert value(samples, "pinchpoint_disk_read_bytes_total", **labels) == 4096e3
    assert value(samples, "pinchpoint_disk_written_bytes_total", **labels) == 8192
    assert value(samples, "pinchpoint_disk_read_time_seconds_total", **labels) == 6.0
    assert value(samples, "pinchpoint_disk_write_time_seconds_total", **labels) == 0.25
    assert value(samples, "pinchpoint_disk_io_time_seconds_total", **labels) == 9.5
    assert value(samples, "pinchpoint_disk_io_time_weighted_seconds_total", **labels) == 12.0
    for name, found in samples.items():  # the disk's other series carry `disk` alone
        if name.startswith("pinchpoint_disk_") and name.endswith("_total"):
            assert all(set(s.labels) == {"disk"} for s in found), name
    # one info series per disk of the inventory, whether it has work or not
    infos = samples["pinchpoint_disk_info"]
    assert len(infos) == len(inventory.sas.disks) == 360
    assert len({s.labels["disk"] for s in infos}) == 360
    (info,) = [s for s in infos if s.labels["disk"] == disk.id]
    assert info.value == 1
    assert info.labels["name"] == disk_ref(disk, inventory).name
    enclosure = next(e for e in inventory.sas.enclosures if e.id == disk.enclosure_id)
    assert info.labels["enclosure"] == enclosure.name and info.labels["slot"] == str(disk.slot)
    # a dual-pathed disk on two HBAs names both, as the SAS port series name each HBA
    hbas = {s.labels["hba"] for s in samples["pinchpoint_sas_port_phys"]}
    assert info.labels["hba"].count(",") == 1 and set(info.labels["hba"].split(",")) <= hbas
    ports = {s.labels["port"] for s in samples["pinchpoint_sas_port_phys"]}
    assert set(info.labels["port"].split(",")) <= ports
    assert info.labels["model"] == (disk.model or "")


def test_no_work_yet_no_work_series() -> None:
    samples = scrape(MetricsInput(host="fresh", work=[]))
    assert not [name for name in samples if name.startswith("pinchpoint_disk")]


def test_a_san_host_shows_its_fc_ports_speed_and_state(tmp_path: Path) -> None:
    inventory, report = simulated(tmp_path, "san_port_down")
    samples = scrape(MetricsInput(host="db-san-02", inventory=inventory, report=report))
    up = {"port": "host0", "wwpn": "0x10000000c90ac742"}
    assert value(samples, "pinchpoint_fc_port_up", **up) == 1
    assert value(samples, "pinchpoint_fc_port_speed_bytes_per_second", **up) == 8 * GBIT
    assert value(samples, "pinchpoint_fc_port_max_speed_bytes_per_second", **up) == 16 * GBIT
    down = {"port": "host1"}
    assert value(samples, "pinchpoint_fc_port_up", **down) == 0
    assert value(samples, "pinchpoint_fc_port_info", **down, state="Linkdown") == 1
    assert len(samples["pinchpoint_fc_port_speed_bytes_per_second"]) == 1  # no speed when down
    assert value(samples, "pinchpoint_enclosures") == 0


def test_a_downgraded_nic_runs_below_its_max_speed(tmp_path: Path) -> None:
    inventory, report = simulated(tmp_path, "downgraded_nic")
    samples = scrape(MetricsInput(host="h", inventory=inventory, report=report))
    assert value(samples, "pinchpoint_nic_speed_bytes_per_second", nic="eno1") == 100 * MBIT
    assert value(samples, "pinchpoint_nic_max_speed_bytes_per_second", nic="eno1") == 1000 * MBIT
    assert (
        value(samples, "pinchpoint_nic_max_common_speed_bytes_per_second", nic="eno1") == 100 * MBIT
    )
    peers = [
        s.value
        for s in samples["pinchpoint_nic_speed_bytes_per_second"]
        if s.labels["nic"] != "eno1"
    ]
    assert peers == [1000 * MBIT] * 3


def test_odd_names_are_escaped_and_read_back_intact(demo: tuple[Inventory, Report]) -> None:
    inventory, report = demo
    odd = 'JBOD "east" \\rack\\ 7\nrow 2 – ünïcode'
    enclosures = [inventory.sas.enclosures[0].model_copy(update={"nickname": odd})]
    sas = inventory.sas.model_copy(update={"enclosures": enclosures})
    data = MetricsInput(
        host='host "a"\\b',
        inventory=inventory.model_copy(update={"sas": sas}),
        report=report,
    )
    body, _ = metrics_exposition(data)
    assert b'\\"east\\"' in body and b"\\\\rack" in body and b"\\n" in body
    samples = scrape(data)
    (sample,) = samples["pinchpoint_enclosure_paths"]
    assert sample.labels["enclosure"] == odd
    assert value(samples, "pinchpoint_info", hostname='host "a"\\b') == 1


def test_before_the_first_sweep_the_exposition_is_valid_and_small() -> None:
    samples = scrape(MetricsInput(host="fresh"))
    assert value(samples, "pinchpoint_sweeps_total") == 0
    assert value(samples, "pinchpoint_info", demo="false") == 1
    assert "pinchpoint_enclosures" not in samples
    assert "pinchpoint_findings_open" not in samples
    assert "pinchpoint_notifications_sent_total" not in samples
    assert "pinchpoint_sweep_duration_seconds" not in samples


PROMETHEUS_ACCEPT = (  # what Prometheus 2.x sends by default
    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
    "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
)


def test_the_text_format_whenever_the_scraper_accepts_it(demo: tuple[Inventory, Report]) -> None:
    for accept in (None, "", PROMETHEUS_ACCEPT, "text/plain", "*/*"):
        _, content_type = metrics_exposition(demo_input(demo), accept=accept)
        assert content_type.startswith("text/plain; version=0.0.4"), accept


def test_openmetrics_when_the_scraper_takes_nothing_else(demo: tuple[Inventory, Report]) -> None:
    for accept in (
        "application/openmetrics-text; version=1.0.0",
        "application/openmetrics-text;version=1.0.0, text/plain;q=0",
    ):
        body, content_type = metrics_exposition(demo_input(demo), accept=accept)
        assert content_type.startswith("application/openmetrics-text"), accept
        assert body.endswith(b"# EOF\n")
        names = {f.name for f in parse_openmetrics(body.decode("utf-8"))}
        assert {"pinchpoint_sweeps", "pinchpoint_enclosure_paths"} <= names


def test_every_metric_is_named_and_labelled_by_the_rules(
    demo: tuple[Inventory, Report], tmp_path: Path
) -> None:
    """Prefix, no `host` label (Prometheus adds `instance`), base units, every name documented."""
    inventory, report = demo
    san, _ = simulated(tmp_path, "san_port_down")
    everything = inventory.model_copy(update={"fc": san.fc})
    samples = scrape(
        demo_input(
            demo,
            inventory=everything,
            sweeps=SweepCounters(sweeps=1, last_duration_s=1.0, last_success=datetime.now(UTC)),
            notifications=NotifyCounts(),
            work=[DiskWork(disk=inventory.sas.disks[0].id, reads=1, read_seconds=0.01)],
            open_findings=[
                *report.findings,
                report.findings[0].model_copy(
                    update={"muted": Mute(rule="r", entity_id="e", reason="x")}
                ),
            ],
        )
    )
    documented = DOCS.read_text(encoding="utf-8")
    for name, found in samples.items():
        assert name.startswith("pinchpoint_")
        assert all("host" not in s.labels for s in found), name
        assert not re.search(r"_(ms|milliseconds|gbps|mbps|percent)$", name), name
        assert f"`{name}`" in documented, f"{name} is not in docs/prometheus.md"


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool (Debian: prometheus)")
def test_promtool_finds_nothing_to_lint(demo: tuple[Inventory, Report], tmp_path: Path) -> None:
    """Prometheus' own linter: names, units (bytes, not bits), counters, help texts."""
    san, _ = simulated(tmp_path, "san_port_down")
    inventory, _ = demo
    data = demo_input(
        demo,
        inventory=inventory.model_copy(update={"fc": san.fc}),
        notifications=NotifyCounts(),
        sweeps=SweepCounters(sweeps=1, last_duration_s=1.0, last_success=datetime.now(UTC)),
        work=[DiskWork(disk=inventory.sas.disks[0].id, reads=1, read_seconds=0.01)],
    )
    body, _ = metrics_exposition(data)
    lint = subprocess.run(
        ["promtool", "check", "metrics"], input=body, capture_output=True, check=False
    )
    assert lint.returncode == 0, (lint.stdout + lint.stderr).decode()


def test_disk_work_written_directly_is_what_prometheus_client_writes(
    demo: tuple[Inventory, Report],
) -> None:
    """The text format writes the per-disk families itself (issue 17): byte for byte what
    `generate_latest` writes for the same families — hostile disk ids escaped alike, values
    formatted alike (integers, fractions, large, zero) — parsed back the same, and promtool
    finds nothing to lint."""
    from prometheus_client.exposition import generate_latest

    from pinchpoint.service.metrics import metrics_registry, text_exposition

    inventory, report = demo
    odd = ['lun:"quoted"', "lun:back\\slash", "lun:new\nline", "lun:ünïcode"]
    work = [
        DiskWork(
            disk=disk,
            reads=float(at * 1_234_567),
            writes=at / 7,
            read_bytes=1e21 * at,
            written_bytes=0.0,
            read_seconds=at * 0.001,
            busy_seconds=123456789.125,
        )
        for at, disk in enumerate([*(d.id for d in inventory.sas.disks), *odd])
    ]
    data = MetricsInput(host="store-01", inventory=inventory, report=report, work=work)
    direct = text_exposition(data)
    assert direct == generate_latest(metrics_registry(data))
    assert b'lun:\\"quoted\\"' in direct and b"lun:new\\nline" in direct
    odd_model = inventory.model_copy(deep=True)
    odd_model.sas.disks[0].model = 'M"o\\d\nel'  # the info line's labels escaped alike
    data_odd = MetricsInput(host="store-01", inventory=odd_model, report=report, work=work)
    assert text_exposition(data_odd) == generate_latest(metrics_registry(data_odd))
    assert b'model="M\\"o\\\\d\\nel"' in text_exposition(data_odd)
    assert metrics_exposition(data)[0] == direct
    parsed = list(text_string_to_metric_families(direct.decode()))
    reads = next(f for f in parsed if f.name == "pinchpoint_disk_reads_completed")
    assert len(reads.samples) == len(work)
    if shutil.which("promtool") is not None:
        clean = MetricsInput(host="store-01", inventory=inventory, report=report, work=work[:-4])
        done = subprocess.run(
            ["promtool", "check", "metrics"],
            input=text_exposition(clean),
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
