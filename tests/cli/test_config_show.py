"""One configuration for every command and the service: the same file found in the same order
(`--config`, `$PINCHPOINT_CONFIG`, `./pinchpoint.toml`, the user's, the system's), and
`pinchpoint config show` saying what is in force and where each setting came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.rules import config as rules_config
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import config_file_choice, load_config
from pinchpoint.service.settings import load_settings

RULE = "sas.chain.too_deep"


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A working directory, a user config directory and a system config file of their own."""
    work, user, system = tmp_path / "work", tmp_path / "xdg", tmp_path / "etc" / "pinchpoint.toml"
    for directory in (work, user / "pinchpoint", system.parent):
        directory.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user))
    monkeypatch.delenv("PINCHPOINT_CONFIG", raising=False)
    monkeypatch.delenv("PINCHPOINT_DATA_DIR", raising=False)
    monkeypatch.setattr(rules_config, "SYSTEM_CONFIG", system)
    return {"work": work / "pinchpoint.toml", "user": user / "pinchpoint" / "pinchpoint.toml",
            "system": system}  # fmt: skip


def config_with_port(path: Path, port: int) -> Path:
    path.write_text(f'[service]\nport = {port}\n[rules."{RULE}"]\nmax_enclosures = {port % 10}\n')
    return path


def test_each_place_is_used_in_order_by_the_rules_and_the_service_alike(
    places: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert config_file_choice(None).path is None
    assert load_settings(None).config_file is None
    for port, place in ((9001, "system"), (9002, "user"), (9003, "work")):
        config_with_port(places[place], port)
        assert config_file_choice(None).path == places[place]
        assert load_settings(None).port == port
        assert load_config(None, CATALOG).settings(RULE).thresholds == {"max_enclosures": port % 10}
    named = config_with_port(tmp_path / "named.toml", 9004)
    monkeypatch.setenv("PINCHPOINT_CONFIG", str(named))
    assert load_settings(None).port == 9004 and load_settings(None).config_file == named
    explicit = config_with_port(tmp_path / "explicit.toml", 9005)
    assert load_settings(explicit).port == 9005
    assert load_config(explicit, CATALOG).settings(RULE).thresholds == {"max_enclosures": 5}


def test_a_named_file_that_is_missing_is_an_error_not_the_defaults(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PINCHPOINT_CONFIG", "/nowhere/pinchpoint.toml")
    result = CliRunner().invoke(app, ["config", "show"])
    assert result.exit_code == 2
    assert "/nowhere/pinchpoint.toml: no such config file" in result.output


def test_config_show_says_where_each_setting_came_from(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    places["user"].write_text(
        '[service]\nport = 9555\n[service.schedule]\nsweep = "*/10 * * * *"\n'
        f'[rules."{RULE}"]\nseverity = "critical"\nmax_enclosures = 3\n'
    )
    monkeypatch.setenv("PINCHPOINT_DATA_DIR", "/srv/pinchpoint")
    monkeypatch.setenv("PINCHPOINT_ADMIN_TOKEN", "not-to-be-printed-0123456789")
    result = CliRunner().invoke(app, ["config", "show", "--format", "json"])
    assert result.exit_code == 0, result.output
    facts = json.loads(result.output)
    assert facts["file"] == str(places["user"]) and facts["file_origin"] == "the user's config"
    service = facts["service"]
    assert service["port"] == {"value": 9555, "from": str(places["user"])}
    assert service["data_dir"] == {"value": "/srv/pinchpoint", "from": "PINCHPOINT_DATA_DIR"}
    assert service["schedule.sweep"]["from"] == str(places["user"])
    assert service["schedule.smart"]["from"] == "default"
    assert service["listen"] == {"value": "127.0.0.1", "from": "default"}
    assert service["admin_token"]["value"] == "(set)"
    assert facts["rules"][RULE]["severity"] == "critical"
    assert facts["rules"][RULE]["thresholds"] == {"max_enclosures": 3}
    assert "not-to-be-printed" not in result.output
    table = CliRunner().invoke(app, ["config", "show"], env={"COLUMNS": "100"})
    assert table.exit_code == 0
    shown = " ".join(table.output.split())
    assert "the user's config" in shown and "PINCHPOINT_DATA_DIR" in shown
    assert "max_enclosures = 3" in table.output and "not-to-be-printed" not in table.output


def test_the_data_directory_is_the_same_rule_for_root_and_users(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert load_settings(None).resolved_data_dir() == tmp_path / "state" / "pinchpoint"
