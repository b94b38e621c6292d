"""The real ethtool on this machine's interfaces, and on a veth pair in a throw-away namespace.

No traffic is sent anywhere: the collector only reads settings, and the namespace's veth pair
is connected to nothing but itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import ROOT

from pinchpoint.checks.collect.network import collect_network
from pinchpoint.checks.parse.ethtool import parse_ethtool_settings
from pinchpoint.checks.source import LiveSource, RecordingSource, SnapshotSource
from pinchpoint.checks.source.commands import Command
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.network import Duplex, NicKind

pytestmark = pytest.mark.tools

SYS_NET = Path("/sys/class/net")


def find_tool(name: str) -> str | None:
    """On PATH, or where Debian puts admin tools (not on a plain user's PATH)."""
    found = shutil.which(name)
    if found:
        return found
    for folder in ("/usr/sbin", "/sbin"):
        if os.access(f"{folder}/{name}", os.X_OK):
            return f"{folder}/{name}"
    return None


ETHTOOL = find_tool("ethtool")
IP = find_tool("ip")


@pytest.fixture
def ethtool_on_path(monkeypatch: pytest.MonkeyPatch) -> str:
    if ETHTOOL is None:
        pytest.skip("ethtool is not installed (Debian: apt-get install ethtool)")
    folder = os.path.dirname(ETHTOOL)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    return ETHTOOL


def sysfs(name: str, attribute: str) -> str | None:
    """The attribute as the kernel gives it now; None when absent or withheld (EINVAL)."""
    try:
        return (SYS_NET / name / attribute).read_text().strip()
    except OSError:
        return None


def test_collected_facts_agree_with_sysfs(ethtool_on_path: str) -> None:
    names = [n for n in sorted(os.listdir(SYS_NET)) if n != "lo" and (SYS_NET / n).is_dir()]
    if not names:
        pytest.skip("no network interface but lo is visible on this machine")
    log = ProblemLog()
    network = collect_network(LiveSource(), log)
    seen = {n.name: n for n in network.nics} | {b.name: b for b in network.bonds}
    assert sorted(seen) == names
    for nic in network.nics:
        assert nic.mtu == int(sysfs(nic.name, "mtu") or 0)
        assert nic.operstate == sysfs(nic.name, "operstate")
        assert nic.mac_address == sysfs(nic.name, "address")
        speed = sysfs(nic.name, "speed")
        if speed is not None and int(speed) > 0:
            assert nic.speed_mbps == int(speed)
        carrier = sysfs(nic.name, "carrier")
        if carrier is not None:
            assert nic.carrier is (carrier == "1")
        device = SYS_NET / nic.name / "device"
        assert (nic.kind is NicKind.PHYSICAL) == device.is_symlink()
        if nic.pci_address is not None:
            assert nic.pci_address in os.path.realpath(device)
        if nic.settings is not None:  # the real ethtool ran and its output parsed
            assert nic.settings.interface == nic.name
            if nic.settings.speed_mbps is not None and speed is not None:
                assert nic.settings.speed_mbps == int(speed)
        if nic.kind is NicKind.PHYSICAL:
            assert nic.settings is not None, nic.not_collected
            assert nic.driver is not None, nic.not_collected
            if nic.driver.bus_info and nic.pci_address:
                assert nic.driver.bus_info == nic.pci_address
    # Whatever could not be read says why; nothing is missing silently.
    for nic in network.nics:
        if nic.speed_mbps is None:
            assert nic.not_collected.get("speed_mbps")
        if nic.max_supported_speed_mbps is None:
            assert nic.not_collected.get("max_supported_speed_mbps")
    assert all(p.kind.value != "garbled" for p in log.problems())


def test_a_capture_of_this_machine_reads_back_the_same(
    ethtool_on_path: str, tmp_path: Path
) -> None:
    """What `capture` records (links, attributes, ethtool output) is all the collector needs."""
    if not [n for n in os.listdir(SYS_NET) if n != "lo"]:
        pytest.skip("no network interface but lo is visible on this machine")
    live = collect_network(RecordingSource(tmp_path / "snapshot"), ProblemLog())
    back = collect_network(SnapshotSource(tmp_path / "snapshot"), ProblemLog())
    # Reasons may differ in wording (a withheld attribute is simply absent from a capture).
    without_reasons = {
        "nics": {"__all__": {"not_collected"}},
        "bonds": {"__all__": {"not_collected"}},
    }
    assert back.model_dump(exclude=without_reasons) == live.model_dump(exclude=without_reasons)
    assert back.nics and all(
        set(b.not_collected) == set(a.not_collected)
        for a, b in zip(live.nics, back.nics, strict=True)
    )


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)


@pytest.fixture
def veth_namespace(ethtool_on_path: str) -> Iterator[str]:
    """A network namespace `pp-test-<pid>` holding a veth pair veth-t0/veth-t1, both up."""
    if IP is None:
        pytest.skip("iproute2 (ip) is not installed")
    if os.geteuid() != 0:
        pytest.skip("creating a network namespace needs root")
    namespace = f"pp-test-{os.getpid()}"
    added = _run(IP, "netns", "add", namespace)
    if added.returncode != 0:
        pytest.skip(f"`ip netns add` does not work here: {added.stderr.strip()}")
    try:
        steps = [
            ("link", "add", "veth-t0", "type", "veth", "peer", "name", "veth-t1"),
            ("link", "set", "veth-t0", "up"),
            ("link", "set", "veth-t1", "up"),
        ]
        for step in steps:
            done = _run(IP, "-n", namespace, *step)
            if done.returncode != 0:
                pytest.skip(f"`ip {' '.join(step)}` failed in a namespace: {done.stderr.strip()}")
        yield namespace
    finally:
        _run(IP, "netns", "del", namespace)


def test_real_ethtool_on_a_veth_in_a_namespace(veth_namespace: str) -> None:
    assert IP is not None
    command = Command(
        argv=(IP, "netns", "exec", veth_namespace, "ethtool", "veth-t0"),
        key="ethtool/veth-t0.txt",
        timeout_s=20.0,
    )
    result = LiveSource().run(command)
    assert result.ok, result.reason()
    settings = parse_ethtool_settings(result.stdout, "veth-t0")
    assert settings.speed_mbps == 10000
    assert settings.duplex is Duplex.FULL
    assert settings.supported_link_modes == []
    assert settings.link_detected is True


COLLECT_AND_PRINT = """
import json
from pinchpoint.checks.collect.network import collect_network
from pinchpoint.checks.source import LiveSource, RecordingSource, SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
log = ProblemLog()
network = collect_network(LiveSource(), log)
print(json.dumps({"network": network.model_dump(mode="json"),
                  "problems": [p.line() for p in log.problems()]}))
"""


def test_the_whole_collector_inside_the_namespace(veth_namespace: str) -> None:
    """`ip netns exec` mounts the namespace's own /sys: the collector sees only the veth pair."""
    assert IP is not None
    done = subprocess.run(
        [IP, "netns", "exec", veth_namespace, sys.executable, "-c", COLLECT_AND_PRINT],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["problems"] == []
    nics = {n["name"]: n for n in found["network"]["nics"]}
    assert sorted(nics) == ["veth-t0", "veth-t1"]
    for name, nic in nics.items():
        assert nic["id"] == f"nic:virtual/{name}"
        assert nic["kind"] == "virtual"
        assert nic["speed_mbps"] == 10000
        assert nic["carrier"] is True
        assert nic["driver"]["driver"] == "veth"
        assert nic["settings"]["speed_mbps"] == 10000
        assert nic["max_supported_speed_mbps"] is None
        assert "virtual interface (driver veth)" in nic["not_collected"]["max_supported_speed_mbps"]
