"""`fc.port.downgraded` on a simulated SAN host and the real Emulex and CLARiiON captures."""

from __future__ import annotations

from pathlib import Path

from fixture_paths import FIXTURES

from tests.rules.conftest import findings, host_context

CLARIION = FIXTURES / "fc" / "ucs-qla2432-clariion"
EMULEX = FIXTURES / "snapshots" / "procfs-mpt3sas"


def test_a_port_at_8_of_16_gbit_is_downgraded(port_down: Path) -> None:
    found = findings(host_context(port_down, statistics=False), "fc.port.downgraded")
    assert len(found) == 1
    assert found[0].title == "FC port host0 at 8 Gb/s of 16 Gb/s"


def test_real_emulex_at_16_of_16_gbit_is_not_downgraded() -> None:
    context = host_context(EMULEX, statistics=False)
    assert context.inventory.fc.ports[0].speed_gbps == 16
    assert findings(context, "fc.port.downgraded") == []
    assert findings(context, "fc.port.not_online") == []


def test_clariion_port_at_2_of_4_gbit_is_downgraded_below_its_peer() -> None:
    found = findings(host_context(CLARIION, statistics=False), "fc.port.downgraded")
    assert [f.entity.name.split()[0] for f in found] == ["host5"]
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["negotiated speed"] == 2.0
    assert facts["peer speed"] == 4.0
