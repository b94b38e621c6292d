"""Service settings: the config file's [service] table, the environment, tokens."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinchpoint.service.settings import SettingsError, ensure_tokens, load_settings


def test_defaults_listen_on_loopback_with_reads_closed(tmp_path: Path) -> None:
    settings = load_settings(None, data_dir=tmp_path)
    assert settings.listen == "127.0.0.1" and settings.port == 9460
    assert not settings.reads_open
    assert settings.resolved_database_url() == f"sqlite:///{tmp_path / 'pinchpoint.db'}"


def test_open_reads_hold_on_loopback_only(tmp_path: Path) -> None:
    assert load_settings(None, open_reads_on_loopback=True).reads_open
    assert not load_settings(None, open_reads_on_loopback=True, listen="0.0.0.0").reads_open


def test_the_environment_overrides_the_file_and_options_override_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "pinchpoint.toml"
    config.write_text('[service]\nport = 9000\ndatabase_url = "sqlite:///a.db"\n')
    monkeypatch.setenv("PINCHPOINT_DATABASE_URL", "postgresql+psycopg://db/pinchpoint")
    settings = load_settings(config, port=9100)
    assert settings.port == 9100
    assert settings.database_url == "postgresql+psycopg://db/pinchpoint"


def test_tokens_come_from_files_never_from_the_config_text(tmp_path: Path) -> None:
    token = tmp_path / "admin.token"
    token.write_text("s3cret-admin\n")
    config = tmp_path / "pinchpoint.toml"
    config.write_text(f'[service]\nadmin_token_file = "{token}"\n')
    settings = load_settings(config)
    assert settings.admin_token is not None
    assert settings.admin_token.get_secret_value() == "s3cret-admin"
    assert "s3cret" not in repr(settings)
    config.write_text('[service]\nadmin_token = "inline"\n')
    with pytest.raises(SettingsError, match="keep tokens out of the config file"):
        load_settings(config)


def test_missing_tokens_are_generated_once_and_kept_private(tmp_path: Path) -> None:
    settings = load_settings(None, data_dir=tmp_path)
    written = ensure_tokens(settings)
    assert sorted(p.name for p in written) == ["admin.token", "read.token"]
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in written)
    again = load_settings(None, data_dir=tmp_path)
    assert ensure_tokens(again) == []
    assert again.admin_token == settings.admin_token


def test_mistakes_name_the_key(tmp_path: Path) -> None:
    config = tmp_path / "pinchpoint.toml"
    config.write_text('[service]\nport = "many"\n')
    with pytest.raises(SettingsError, match="port"):
        load_settings(config)
    config.write_text('[service.schedule]\nsweep = "61 * * * *"\n')
    with pytest.raises(SettingsError, match=r"schedule\.sweep"):
        load_settings(config)
    config.write_text("[service\n")
    with pytest.raises(SettingsError, match="cannot be used"):
        load_settings(config)


def test_a_sweep_is_stale_after_three_scheduled_intervals_unless_set(tmp_path: Path) -> None:
    assert load_settings(None).sweep_stale_after_s() == 3 * 5 * 60  # the default `*/5`
    hourly = load_settings(None, schedule={"sweep": "0 * * * *"})
    assert hourly.sweep_stale_after_s() == 3 * 3600
    twice_a_day = load_settings(None, schedule={"sweep": "0 6,20 * * *"})
    assert twice_a_day.sweep_stale_after_s() == 3 * 14 * 3600  # the longer gap, overnight
    weekdays = load_settings(None, schedule={"sweep": "0 * * * 1-5"})
    assert weekdays.sweep_stale_after_s() == 3 * (48 + 1) * 3600  # over the weekend
    assert load_settings(None, schedule={"sweep": ""}).sweep_stale_after_s() is None
    config = tmp_path / "pinchpoint.toml"
    config.write_text("[service]\nstale_sweep_after_s = 600\n")
    assert load_settings(config).sweep_stale_after_s() == 600
    config.write_text("[service]\nstale_sweep_after_s = 0\n")
    with pytest.raises(SettingsError, match="stale_sweep_after_s"):
        load_settings(config)


def test_the_recorders_map_budget_defaults_to_64_mib(tmp_path: Path) -> None:
    assert load_settings(None).record_map_budget_bytes == 64 * 2**20
    config = tmp_path / "pinchpoint.toml"
    config.write_text("[service]\nrecord_map_budget_bytes = 33554432\n")
    assert load_settings(config).record_map_budget_bytes == 32 * 2**20
    for bad in ("0", "-1", '"64M"'):
        config.write_text(f"[service]\nrecord_map_budget_bytes = {bad}\n")
        with pytest.raises(SettingsError, match="record_map_budget_bytes"):
            load_settings(config)


def test_allowed_hosts_default_to_what_the_service_listens_on() -> None:
    import socket

    on_one = load_settings(None, listen="192.0.2.10").resolved_allowed_hosts()
    assert on_one == ["192.0.2.10", "127.0.0.1", "::1", "localhost"]
    everywhere = load_settings(None, listen="0.0.0.0").resolved_allowed_hosts()
    assert socket.gethostname().lower() in everywhere and "localhost" in everywhere
    public = load_settings(None, public_url="https://pp.example.com:9460/")
    assert "pp.example.com" in public.resolved_allowed_hosts()


def test_allowed_hosts_from_the_file_keep_the_loopback_names(tmp_path: Path) -> None:
    config = tmp_path / "pinchpoint.toml"
    config.write_text('[service]\nallowed_hosts = ["store01.example.com"]\n', encoding="utf-8")
    allowed = load_settings(config).resolved_allowed_hosts()
    assert allowed == ["store01.example.com", "127.0.0.1", "::1", "localhost"]
