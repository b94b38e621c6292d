"""Spec loading (TOML, YAML) and validation: every error names the field at fault."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from fixture_paths import SPECS

from pinchpoint.simulator import DEMO_SPEC_PATH, SpecError, demo_spec, load_spec, spec_from_data
from pinchpoint.simulator.spec import HostSpec

SCENARIOS = sorted(p.stem for p in SPECS.glob("*.toml"))


def small(**changes: Any) -> dict[str, Any]:
    """A valid two-HBA, two-JBOD spec as data, with top-level sections replaced."""
    data: dict[str, Any] = {
        "hba": [{"name": "h1"}, {"name": "h2"}],
        "enclosure": [{"name": "E1"}, {"name": "E2"}],
        "chain": [
            {"hba": "h1", "io_module": "A", "enclosures": ["E1", "E2"]},
            {"hba": "h2", "io_module": "B", "enclosures": ["E2", "E1"]},
        ],
    }
    data.update(changes)
    return data


def test_demo_spec_is_package_data() -> None:
    assert DEMO_SPEC_PATH.name == "demo.toml" and DEMO_SPEC_PATH.is_file()
    spec = demo_spec()
    assert [h.name for h in spec.hba] == ["hba1", "hba2", "hba3"]
    assert [e.name for e in spec.enclosure] == [
        "JBOD-001",
        "JBOD-002",
        "JBOD-003",
        "JBOD-007",
        "JBOD-00B",
        "JBOD-012",
    ]
    assert spec.hba_named("hba2").numa_node == 1


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_specs_load(name: str) -> None:
    assert isinstance(load_spec(SPECS / f"{name}.toml"), HostSpec)


def test_yaml_and_toml_give_the_same_spec(tmp_path: Path) -> None:
    with open(DEMO_SPEC_PATH, "rb") as handle:
        data = tomllib.load(handle)
    for suffix in (".yaml", ".yml"):
        path = tmp_path / f"demo{suffix}"
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        assert load_spec(path) == demo_spec()


def test_every_field_but_names_has_a_default() -> None:
    spec = spec_from_data(
        {
            "hba": [{"name": "h"}],
            "switch": [{"name": "s"}],
            "enclosure": [{"name": "e"}],
            "chain": [{"hba": "h", "enclosures": ["e"]}],
            "degraded_link": [{"hba": "h", "phy": 0, "rate_gbps": 6.0}],
        }
    )
    hba, enclosure, chain = spec.hba[0], spec.enclosure[0], spec.chain[0]
    assert (hba.phys, hba.driver, hba.sas_transport, hba.pci_address) == (8, "mpt3sas", True, None)
    assert (enclosure.bays, enclosure.io_modules, enclosure.disk.protocol) == (24, 2, "sas")
    assert (chain.connector, chain.io_module, chain.switch) == (0, "A", None)
    assert spec.host.hostname and spec.host.kernel
    assert spec_from_data({}) == HostSpec()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (small(chain=[{"hba": "nope", "enclosures": ["E1"]}]), "chain[0].hba: unknown HBA 'nope'"),
        (small(chain=[{"hba": "h1", "connector": 2, "enclosures": ["E1"]}]), "chain[0].connector"),
        (small(chain=[{"hba": "h1", "enclosures": ["E9"]}]), "unknown enclosure 'E9'"),
        (small(chain=[{"hba": "h1", "enclosures": []}]), "chain[0].enclosures"),
        (small(chain=[{"hba": "h1", "switch": "sw", "enclosures": ["E1"]}]), "unknown switch"),
        (
            small(enclosure=[{"name": "E1", "empty_bays": [24]}, {"name": "E2"}]),
            "enclosure[0]: empty_bays: bay 24 is outside 0..23",
        ),
        (
            small(enclosure=[{"name": "E1", "missing_disk_paths": [{"bay": 99}]}, {"name": "E2"}]),
            "missing_disk_paths: bay 99",
        ),
        (
            small(enclosure=[{"name": "E1", "io_modules": 1}, {"name": "E2"}]),
            "chain[1].io_module: enclosure 'E1' has no I/O module B",
        ),
        (
            small(
                chain=[
                    {"hba": "h1", "enclosures": ["E1"]},
                    {"hba": "h2", "enclosures": ["E1"]},
                ]
            ),
            "chain[1].enclosures: I/O module A of 'E1' is already cabled by chain[0]",
        ),
        (
            small(
                chain=[
                    {"hba": "h1", "enclosures": ["E1"]},
                    {"hba": "h1", "io_module": "B", "enclosures": ["E2"]},
                ]
            ),
            "chain[1]: HBA 'h1' connector 0 is already cabled by chain[0]",
        ),
        (
            small(
                switch=[{"name": "sw"}],
                chain=[
                    {"hba": "h1", "switch": "sw", "enclosures": ["E1"]},
                    {"hba": "h2", "switch": "sw", "enclosures": ["E2"]},
                ],
            ),
            "chain[1].switch: switch 'sw' is already cabled to HBA 'h1' connector 0",
        ),
        (small(degraded_link=[{"hba": "h1", "phy": 8, "rate_gbps": 6.0}]), "degraded_link[0].phy"),
        (
            small(degraded_link=[{"enclosure": "E1", "bay": 24, "rate_gbps": 3.0}]),
            "degraded_link[0].bay: bay 24 is outside 0..23",
        ),
        (
            small(degraded_link=[{"hba": "h1", "phy": 1, "enclosure": "E1", "rate_gbps": 3.0}]),
            "degraded_link[0]: give either hba and phy",
        ),
        (small(hba=[{"name": "h1", "phyz": 4}, {"name": "h2"}]), "hba[0].phyz: Extra inputs"),
        (
            small(hba=[{"name": "h1", "max_rate_gbps": 10.0}, {"name": "h2"}]),
            "hba[0].max_rate_gbps",
        ),
        (small(hba=[{"name": "h1", "pci_address": "3:0"}, {"name": "h2"}]), "hba[0].pci_address"),
        (small(enclosure=[{"bays": 12}, {"name": "E2"}]), "enclosure[0].name: Field required"),
        (small(enclosure=[{"name": "E1", "logical_id": "0x12"}, {"name": "E2"}]), "logical_id"),
        (small(hba=[{"name": "h1"}, {"name": "h1"}]), "hba: 'h1' is used twice"),
        (small(lane_down=[{"hba": "h9", "phy": 1}]), "lane_down[0].hba: unknown HBA 'h9'"),
        (small(lane_down=[{"hba": "h1", "phy": 8}]), "lane_down[0].phy: HBA 'h1' has phys 0..7"),
        (
            small(lane_down=[{"hba": "h1", "phy": 5}]),
            "lane_down[0].phy: phy 5 is on connector 1 of HBA 'h1', which no chain cables",
        ),
        (
            small(lane_down=[{"hba": "h1", "phy": 1, "state": "Gone"}]),
            "lane_down[0].state: Input should be 'Unknown' or 'Phy disabled'",
        ),
        (
            small(lane_down=[{"hba": "h1", "phy": p} for p in range(4)]),
            "every lane of HBA 'h1' connector 0 is down",
        ),
        (
            small(lane_down=[{"hba": "h1", "phy": 1}, {"hba": "h1", "phy": 1}]),
            "lane_down[1]: HBA 'h1' phy 1 is listed twice",
        ),
        (
            small(
                lane_down=[{"hba": "h1", "phy": 1}],
                degraded_link=[{"hba": "h1", "phy": 1, "rate_gbps": 6.0}],
            ),
            "lane_down[0]: phy 1 is also a degraded_link",
        ),
        (small(phy_errors=[{"phy": 1}]), "phy_errors[0]: give either hba and phy, or enclosure"),
        (
            small(phy_errors=[{"hba": "h1", "enclosure": "E1", "phy": 1}]),
            "phy_errors[0]: give either hba and phy",
        ),
        (small(phy_errors=[{"hba": "h1", "phy": 8}]), "phy_errors[0].phy: HBA 'h1' has phys 0..7"),
        (
            small(phy_errors=[{"enclosure": "E1", "phy": 33}]),
            "phy_errors[0].phy: the main expander of 'E1' has phys 0..32",
        ),
        (
            small(phy_errors=[{"hba": "h1", "phy": 1, "invalid_dword_count": -1}]),
            "phy_errors[0].invalid_dword_count",
        ),
        (
            small(partition=[{"enclosure": "E9", "bay": 0}]),
            "partition[0].enclosure: unknown enclosure 'E9'",
        ),
        (
            small(
                enclosure=[{"name": "E1", "empty_bays": [3]}, {"name": "E2"}],
                partition=[{"enclosure": "E1", "bay": 3}],
            ),
            "partition[0].bay: bay 3 holds no disk",
        ),
        (
            small(partition=[{"enclosure": "E1", "bay": 0, "start": 0}]),
            "partition[0].start: Input should be greater than or equal to 1",
        ),
        (
            small(partition=[{"enclosure": "E1", "bay": 0, "start": 23437770752}]),
            "partition[0]: it ends beyond the disk's 23437770752 sectors",
        ),
        (
            small(
                partition=[
                    {"enclosure": "E1", "bay": 0, "start": 2048, "size": 4096},
                    {"enclosure": "E1", "bay": 0, "number": 2, "start": 4096},
                ]
            ),
            "partition: E1 bay 0: partitions 1 and 2 overlap",
        ),
        (
            small(
                partition=[
                    {"enclosure": "E1", "bay": 0, "start": 2048, "size": 2048},
                    {"enclosure": "E1", "bay": 0, "start": 8192},
                ]
            ),
            "partition: E1 bay 0 has a partition number twice",
        ),
        (
            small(
                zfs={"pool": [{"name": "tank", "enclosures": ["E1", "E2"]}]},
                partition=[{"enclosure": "E2", "bay": 5}],
            ),
            "partition[0]: E2 bay 5 is one of ZFS pool 'tank''s bays",
        ),
    ],
)
def test_validation_errors_name_the_field(data: dict[str, Any], expected: str) -> None:
    with pytest.raises(SpecError) as caught:
        spec_from_data(data)
    assert expected in str(caught.value)


def test_lost_io_module_may_be_listed_by_a_chain() -> None:
    data = small(enclosure=[{"name": "E1", "lose_path": ["B"]}, {"name": "E2"}])
    data["chain"].append({"hba": "h1", "connector": 1, "io_module": "B", "enclosures": ["E1"]})
    assert spec_from_data(data).enclosure_named("E1").lose_path == ["B"]


def test_load_spec_refuses_unknown_formats_and_bad_syntax(tmp_path: Path) -> None:
    (tmp_path / "host.json").write_text("{}")
    with pytest.raises(SpecError, match="unknown spec format"):
        load_spec(tmp_path / "host.json")
    (tmp_path / "bad.toml").write_text("[[hba]\nname=")
    with pytest.raises(SpecError, match="not valid TOML"):
        load_spec(tmp_path / "bad.toml")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    with pytest.raises(SpecError, match="top level"):
        load_spec(tmp_path / "list.yaml")
