"""`pinchpoint.toml`: which rules run, their severities and thresholds (host-wide and per
entity), and mutes. Every key is optional; with no file the rules run with their defaults.

```toml
slower_than_ms = 220                      # the "slow I/O" line of the latency breakdown

[rules."sas.chain.too_deep"]
severity = "critical"                     # instead of the rule's default
max_enclosures = 3                        # any other key is one of the rule's thresholds

[rules."net.mtu.mismatch"]
enabled = false

[[rules."latency.threshold".override]]    # thresholds for one entity, by its stable id
entity = "volume:LogicalDisk(L:)"
read_warning_ms = 2

[[mute]]
rule = "sas.enclosure.single_path"
entity = "enclosure:0x5000ccab0200947e"
until = 2026-12-01T00:00:00Z              # optional; without it the mute holds until removed
reason = "recabling booked for the maintenance window"
```

A mistake in the file (an unknown rule or threshold, a value of the wrong type) is an error
naming the key, never silently ignored: a typo must not turn a rule off.

Every command and the service read the same file, the first of (`config_file_choice`):
`--config FILE`, `$PINCHPOINT_CONFIG`, `./pinchpoint.toml`, `~/.config/pinchpoint/pinchpoint.toml`
(`$XDG_CONFIG_HOME`), `/etc/pinchpoint/pinchpoint.toml`. A file named by the first two must
exist; the others are used when they do.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from pinchpoint.model.findings import Mute, Severity
from pinchpoint.rules.base import Rule, ThresholdValue

CONFIG_FILE = "pinchpoint.toml"
CONFIG_ENV = "PINCHPOINT_CONFIG"
SYSTEM_CONFIG = Path("/etc/pinchpoint") / CONFIG_FILE
RESERVED_KEYS = ("enabled", "severity", "override")


MISSING_FILE_ADVICE = "check the path, or leave --config out"


class ConfigError(ValueError):
    """The config file cannot be used; the message names the file and the key."""


class EntityOverride(BaseModel):
    entity: str
    thresholds: dict[str, ThresholdValue] = Field(default_factory=dict)


class RuleSettings(BaseModel):
    enabled: bool = True
    severity: Severity | None = None
    thresholds: dict[str, ThresholdValue] = Field(default_factory=dict)
    overrides: list[EntityOverride] = Field(default_factory=list)

    def per_entity(self) -> dict[str, dict[str, ThresholdValue]]:
        return {o.entity: dict(o.thresholds) for o in self.overrides}


class Config(BaseModel):
    """The settings the engine applies; `Config()` is every rule at its defaults."""

    slower_than_ms: float = 220.0
    rules: dict[str, RuleSettings] = Field(default_factory=dict)
    mutes: list[Mute] = Field(default_factory=list)
    source: str | None = None  # the file it came from

    def settings(self, rule_id: str) -> RuleSettings:
        return self.rules.get(rule_id) or RuleSettings()


def _threshold(rule: Rule, name: str, value: Any, where: str) -> ThresholdValue:
    """A threshold value checked against the type of its default."""
    if name not in rule.thresholds:
        known = ", ".join(sorted(rule.thresholds)) or "none"
        raise ConfigError(f"{where}: {rule.id} has no threshold {name!r} (known: {known})")
    default = rule.thresholds[name].default
    numeric = isinstance(default, int | float) and not isinstance(default, bool)
    if numeric:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value
        kind = "number"
    elif isinstance(value, type(default)):
        return value
    else:
        kind = {bool: "boolean (true or false)", str: "string"}.get(
            type(default), type(default).__name__
        )
    shown = str(default).lower() if isinstance(default, bool) else repr(default)
    raise ConfigError(f"{where}: {rule.id}.{name} must be a {kind} like {shown}, not {value!r}")


def _rule_settings(rule: Rule, table: Mapping[str, Any], where: str) -> RuleSettings:
    settings = RuleSettings()
    for key, value in table.items():
        here = f"{where} [rules.{rule.id!r}]"
        if key == "enabled":
            if not isinstance(value, bool):
                raise ConfigError(f"{here}: enabled must be true or false, not {value!r}")
            settings.enabled = value
        elif key == "severity":
            try:
                settings.severity = Severity(value)
            except ValueError:
                raise ConfigError(
                    f"{here}: severity must be critical, warning or info, not {value!r}"
                ) from None
        elif key == "override":
            if not isinstance(value, list):
                raise ConfigError(f"{here}: write overrides as [[rules.{rule.id!r}.override]]")
            for item in value:
                entity = item.get("entity") if isinstance(item, dict) else None
                if not isinstance(entity, str) or not entity:
                    raise ConfigError(f'{here}: every override needs entity = "<stable id>"')
                thresholds = {
                    name: _threshold(rule, name, v, here)
                    for name, v in item.items()
                    if name != "entity"
                }
                settings.overrides.append(EntityOverride(entity=entity, thresholds=thresholds))
        else:
            settings.thresholds[key] = _threshold(rule, key, value, here)
    return settings


def _mute(item: Any, where: str, catalog: Mapping[str, Rule]) -> Mute:
    if not isinstance(item, dict):
        raise ConfigError(f"{where}: write mutes as [[mute]] tables")
    if item.get("rule") not in catalog:
        raise ConfigError(f"{where}: [[mute]] names no known rule: {item.get('rule')!r}")
    until = item.get("until")
    if isinstance(until, datetime) and until.tzinfo is None:
        item = {**item, "until": until.replace(tzinfo=UTC)}
    try:
        return Mute(
            rule=item["rule"],
            entity_id=item.get("entity", ""),
            until=item.get("until"),
            reason=item.get("reason", ""),
            severity_at_mute=item.get("severity"),
        )
    except ValidationError as err:
        raise ConfigError(f"{where}: [[mute]] for {item['rule']}: {err}") from None


def parse_config(data: Mapping[str, Any], catalog: Iterable[Rule], where: str) -> Config:
    """A `Config` from the parsed TOML `data`, checked against the rule `catalog`."""
    rules = {r.id: r for r in catalog}
    config = Config(source=where)
    for key, value in data.items():
        if key == "slower_than_ms":
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigError(f"{where}: slower_than_ms must be a positive number")
            config.slower_than_ms = float(value)
        elif key == "rules":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [rules] must be a table")
            for rule_id, table in value.items():
                if rule_id not in rules:
                    raise ConfigError(
                        f"{where}: unknown rule {rule_id!r} (`pinchpoint rules` lists them)"
                    )
                if not isinstance(table, dict):
                    raise ConfigError(f"{where}: [rules.{rule_id!r}] must be a table")
                config.rules[rule_id] = _rule_settings(rules[rule_id], table, where)
        elif key == "mute":
            if not isinstance(value, list):
                raise ConfigError(f"{where}: write mutes as [[mute]] tables")
            config.mutes = [_mute(item, where, rules) for item in value]
        elif key == "service":
            continue  # `pinchpoint serve`'s own table: pinchpoint/service/settings.py reads it
        else:
            raise ConfigError(
                f"{where}: unknown key {key!r} (slower_than_ms, rules, mute, service)"
            )
    return config


@dataclass(frozen=True)
class ConfigChoice:
    """The config file in force and why: `path` None means none was found (the defaults)."""

    path: Path | None
    origin: str


def config_search_path() -> list[tuple[Path, str]]:
    """The files looked for when none is named, in order, with how each is named."""
    user = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return [
        (Path(CONFIG_FILE), f"./{CONFIG_FILE}"),
        (user / "pinchpoint" / CONFIG_FILE, "the user's config"),
        (SYSTEM_CONFIG, "the system's config"),
    ]


def config_file_choice(explicit: Path | None) -> ConfigChoice:
    """The config file of a command or the service: `--config`, `$PINCHPOINT_CONFIG`, else the
    first of `config_search_path` that exists, else none."""
    if explicit is not None:
        return ConfigChoice(explicit, "--config")
    named = os.environ.get(CONFIG_ENV)
    if named:
        return ConfigChoice(Path(named), f"${CONFIG_ENV}")
    for path, origin in config_search_path():
        if path.is_file():
            return ConfigChoice(path.absolute(), origin)
    return ConfigChoice(None, "no config file: the defaults")


def load_config(path: Path | None, catalog: Iterable[Rule]) -> Config:
    """The config at `path`; without a path, the file `config_file_choice` finds, else the
    defaults. A named file that is missing or wrong is an error."""
    path = config_file_choice(path).path
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file — {MISSING_FILE_ADVICE}") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot be read: {(err.strerror or str(err)).lower()}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: cannot be read: not a text file (not UTF-8)") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    return parse_config(data, catalog, str(path))
