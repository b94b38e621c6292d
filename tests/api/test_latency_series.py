"""`GET /v1/stats` says what each heat map draws and answers every level of a SAN host.

Issue 18: the heat map was titled by the first histogram family the sampler met
("total_wait/read" on a write-only pool), and on a host with FC statistics the drill-down from
an FC adapter to its ports and from a port to its LUNs answered 404, an adapter's own series
had no points. Real services on simulated snapshots, the sampler ticked by the test."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import SPECS

from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import load_spec, spec_from_data, write_snapshot
from tests.api.conftest import QUIET, Server, demo_settings, start_server

TOTAL_WAIT = "total wait (queue + device)"


def snapshot_server(tmp_path: Path, spec: Path | dict[str, Any], ticks: int = 4) -> Server:
    """A service on the snapshot of `spec`, its first sweep done and `ticks` samples taken."""
    out = tmp_path / "snapshot"
    write_snapshot(load_spec(spec) if isinstance(spec, Path) else spec_from_data(spec), out)
    settings = demo_settings(
        tmp_path / "data", target=TargetKind.SNAPSHOT, snapshot=out, schedule=QUIET
    )
    server = start_server(settings)
    try:
        server.wait_for_report()
        for _ in range(ticks):
            server.service.sampler.tick()
    except BaseException:
        server.stop()
        raise
    return server


def zfs_spec(read_share: float) -> dict[str, Any]:
    """The mirrored pool of `zfs_mirror.toml` under a load with `read_share` of reads."""
    data = tomllib.loads((SPECS / "zfs_mirror.toml").read_text())
    data["workload"] = {
        "samples": 6,
        "interval_s": 10.0,
        "seed": 3,
        "load": [{"pool": "tank", "read_share": read_share, "mbps": 40.0, "io_kib": 128}],
    }
    return data


@pytest.fixture(scope="module", params=[0.0, 0.5], ids=["write-only", "read-write"])
def zfs_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[float, Server]]:
    server = snapshot_server(tmp_path_factory.mktemp("zfs"), zfs_spec(request.param))
    try:
        yield request.param, server
    finally:
        server.stop()


def enclosure_series(server: Server, **params: Any) -> dict[str, Any]:
    with server.client() as client:
        answer = client.get("/v1/stats", params={"by": "enclosure", **params})
    assert answer.status_code == 200, answer.text
    (first, *_) = answer.json()["series"]
    assert isinstance(first, dict)
    return first


def test_each_series_says_what_its_histograms_hold(zfs_server: tuple[float, Server]) -> None:
    read_share, server = zfs_server
    series = enclosure_series(server)
    drawn = [p for p in series["points"] if p["histogram"]]
    assert drawn, "the sampler stored histograms"
    if read_share == 0.0:  # the pool's read histograms are empty: nothing says "read"
        expected = f"write · {TOTAL_WAIT}"
        assert series["kinds_available"] == ["total_wait/write"]
        assert all(p["histogram_kinds"] == ["total_wait/write"] for p in drawn)
    else:
        expected = f"read + write · {TOTAL_WAIT}"
        assert series["kinds_available"] == ["total_wait/read", "total_wait/write"]
        labels = [c["label"] for c in series["latency_choices"]]
        assert labels == [expected, f"read · {TOTAL_WAIT}", f"write · {TOTAL_WAIT}"]
    assert series["latency"] == expected
    assert {p["latency"] for p in drawn} == {expected}


def test_the_user_chooses_read_or_write(zfs_server: tuple[float, Server]) -> None:
    read_share, server = zfs_server
    both = enclosure_series(server)
    writes = enclosure_series(server, kind="total_wait/write")
    reads = enclosure_series(server, kind="total_wait/read")
    assert writes["latency"] == f"write · {TOTAL_WAIT}"
    ios = {
        name: sum(p["ios"] for p in s["points"])
        for name, s in (("both", both), ("writes", writes), ("reads", reads))
    }
    if read_share == 0.0:
        assert reads["latency"] == "" and ios["reads"] == 0
        assert ios["writes"] == ios["both"] > 0
    else:
        assert reads["latency"] == f"read · {TOTAL_WAIT}"
        assert 0 < ios["reads"] < ios["both"] and 0 < ios["writes"] < ios["both"]
        assert abs(ios["reads"] + ios["writes"] - ios["both"]) <= len(both["points"]) * 2
    with server.client() as client:
        wrong = client.get("/v1/stats", params={"by": "enclosure", "kind": "sideways"})
    assert wrong.status_code == 422


@pytest.fixture(scope="module")
def san_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = snapshot_server(tmp_path_factory.mktemp("san"), SPECS / "san_host.toml")
    try:
        yield server
    finally:
        server.stop()


def stats(server: Server, **params: str) -> dict[str, Any]:
    with server.client() as client:
        answer = client.get("/v1/stats", params=params)
    assert answer.status_code == 200, f"{params}: {answer.status_code} {answer.text}"
    body: dict[str, Any] = answer.json()
    return body


def test_every_level_and_drill_down_of_a_san_host_answers(san_server: Server) -> None:
    inventory = san_server.service.store.latest_inventory()
    assert inventory is not None
    adapters, ports = inventory.fc.adapters, inventory.fc.ports
    assert len(adapters) == 2 and len(ports) == 2
    luns = {m.id for m in inventory.multipath.maps}
    for adapter in adapters:
        (own,) = stats(san_server, entity=adapter.id)["series"]
        assert own["level"] == "fc-adapter" and own["points"], adapter.id
        assert own["points"][-1]["values"]["write_iops"] > 0
        drill = stats(san_server, entity=adapter.id, by="fc-port")
        assert [s["entity"] for s in drill["series"]] == adapter.port_ids
        assert all(s["level"] == "fc-port" and s["points"] for s in drill["series"])
    for port in ports:
        (own,) = stats(san_server, entity=port.id)["series"]
        assert own["level"] == "fc-port" and own["points"]
        drill = stats(san_server, entity=port.id, by="lun")
        assert {s["entity"] for s in drill["series"]} == luns
        assert all(s["level"] == "lun" and s["points"] for s in drill["series"])
    for level in ("fc-adapter", "fc-port", "lun"):
        every = stats(san_server, by=level)
        assert every["total"] == {"fc-adapter": 2, "fc-port": 2, "lun": 3}[level]


def test_an_fc_port_carries_its_share_of_the_luns(san_server: Server) -> None:
    """A port's own series is the paths through it, not its LUNs summed (each LUN runs over
    both ports): the two ports together carry what the LUNs do."""
    ports = stats(san_server, by="fc-port")["series"]
    luns = stats(san_server, by="lun")["series"]

    def iops(series: dict[str, Any]) -> float:
        point = series["points"][-1]["values"]
        return float(point.get("read_iops", 0) + point.get("write_iops", 0))

    through_ports = sum(iops(s) for s in ports)
    in_luns = sum(iops(s) for s in luns)
    assert through_ports == pytest.approx(in_luns, rel=0.02)
    assert all(iops(s) < in_luns for s in ports)
