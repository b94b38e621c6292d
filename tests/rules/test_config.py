"""`pinchpoint.toml`: every mistake is one clear message naming the file and the key; a good file
sets enablement, severities, thresholds (host-wide and per entity) and mutes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from pinchpoint.model.findings import Severity
from pinchpoint.rules.base import Threshold
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import Config, ConfigError, load_config, parse_config
from pinchpoint.rules.sas.chain_too_deep import RULE as CHAIN_TOO_DEEP

RULE = "sas.chain.too_deep"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pinchpoint.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_full_file_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        f"""
slower_than_ms = 100

[rules."{RULE}"]
severity = "critical"
max_enclosures = 3

[[rules."{RULE}".override]]
entity = "chain:hba:0000:03:00.0/connector:0"
max_enclosures = 5

[[mute]]
rule = "{RULE}"
entity = "chain:x"
until = 2026-12-01T00:00:00Z
reason = "recabling booked"
""",
    )
    config = load_config(path, CATALOG)
    assert config.source == str(path) and config.slower_than_ms == 100.0
    settings = config.settings(RULE)
    assert settings.enabled and settings.severity is Severity.CRITICAL
    assert settings.thresholds == {"max_enclosures": 3}
    assert settings.per_entity() == {"chain:hba:0000:03:00.0/connector:0": {"max_enclosures": 5}}
    (mute,) = config.mutes
    assert mute.entity_id == "chain:x" and mute.until == datetime(2026, 12, 1, tzinfo=UTC)


def test_no_file_means_the_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_config(None, CATALOG) == Config()


def test_the_file_in_the_working_directory_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, f'[rules."{RULE}"]\nenabled = false\n')
    monkeypatch.chdir(tmp_path)
    assert not load_config(None, CATALOG).settings(RULE).enabled


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[rules."sas.no.such"]\nenabled = false\n', "unknown rule 'sas.no.such'"),
        (f'[rules."{RULE}"]\nmax_enclosure = 3\n', "has no threshold 'max_enclosure'"),
        (f'[rules."{RULE}"]\nmax_enclosures = "three"\n', "must be a number like 4, not 'three'"),
        (f'[rules."{RULE}"]\nmax_enclosures = true\n', "must be a number like 4, not True"),
        (f'[rules."{RULE}"]\nenabled = "no"\n', "enabled must be true or false"),
        (f'[rules."{RULE}"]\nseverity = "fatal"\n', "severity must be critical, warning or info"),
        (f'[rules."{RULE}"]\noverride = 1\n', "write overrides as"),
        (f'[[rules."{RULE}".override]]\nmax_enclosures = 1\n', "every override needs entity"),
        (f'[rules."{RULE}"]\nmax_enclosures = 4\n[oops]\n', "unknown key 'oops'"),
        ("slower_than_ms = -1\n", "slower_than_ms must be a positive number"),
        ("slower_than_ms = true\n", "slower_than_ms must be a positive number"),
        ('rules = "all"\n', "[rules] must be a table"),
        (f'[rules]\n"{RULE}" = 3\n', "must be a table"),
        ('[[mute]]\nrule = "nope"\nentity = "x"\n', "[[mute]] names no known rule: 'nope'"),
        ('mute = "x"\n', "write mutes as [[mute]] tables"),
        (f'[[mute]]\nrule = "{RULE}"\nuntil = "tomorrow"\n', f"[[mute]] for {RULE}"),
        ("[rules\n", "not valid TOML"),
    ],
)
def test_a_mistake_is_one_message_naming_the_file_and_the_key(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as raised:
        load_config(path, CATALOG)
    assert message in str(raised.value)
    assert str(path) in str(raised.value)


def test_a_named_file_that_is_missing_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "absent.toml", CATALOG)


def test_a_binary_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "pinchpoint.toml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config(path, CATALOG)


def test_an_empty_file_is_the_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ""), CATALOG)
    assert config.rules == {} and config.mutes == []


def test_an_integer_is_accepted_for_a_float_threshold() -> None:
    rule = CHAIN_TOO_DEEP.__class__(
        **{**CHAIN_TOO_DEEP.__dict__, "thresholds": {"ratio": Threshold(1.5, "A ratio.")}}
    )
    config = parse_config({"rules": {RULE: {"ratio": 2}}}, [rule], "x.toml")
    assert config.settings(RULE).thresholds == {"ratio": 2}
