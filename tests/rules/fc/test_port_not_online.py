"""`fc.port.not_online` on a simulated SAN host with a port down (and the LUNs it leaves on
one path)."""

from __future__ import annotations

from pathlib import Path

from tests.rules.conftest import findings, host_context


def test_a_port_down_and_the_luns_it_leaves_on_one_path(port_down: Path) -> None:
    context = host_context(port_down, statistics=False)
    down = findings(context, "fc.port.not_online")
    assert [f.entity.name.split()[0] for f in down] == ["host1"]
    assert "Linkdown" in down[0].title
    single = findings(context, "fc.lun.single_path")
    assert len(single) == 3
    assert all("single FC path" in f.title for f in single)
