"""How `pinchpoint serve` is set up: where it listens, what it watches, where it keeps its data,
who may call it, when it sweeps and whom it tells.

Read from the `[service]` table of `pinchpoint.toml` (the file that also holds the rules'
thresholds), then environment variables (`PINCHPOINT_DATABASE_URL`, `PINCHPOINT_DATA_DIR`,
`PINCHPOINT_READ_TOKEN`, `PINCHPOINT_ADMIN_TOKEN`), then command-line options, each overriding the
one before. docs/service.md lists every key.

```toml
[service]
listen = "127.0.0.1"
port = 9460
data_dir = "/var/lib/pinchpoint"
database_url = "postgresql+psycopg://pinchpoint@db/pinchpoint"   # default: SQLite in data_dir
read_token_file = "/etc/pinchpoint/read.token"
admin_token_file = "/etc/pinchpoint/admin.token"
open_reads_on_loopback = false
allowed_hosts = ["store01.example.com"]   # Host headers answered; default: what it listens on

[service.schedule]
sweep = "*/5 * * * *"            # topology and health
smart = "0 * * * *"
daily_report = "0 6 * * *"
stats_interval_s = 10

[[service.webhook]]
url = "http://alertmanager:9093/api/v2/alerts"
format = "alertmanager"
min_severity = "warning"
```
"""

from __future__ import annotations

import os
import secrets
import tomllib
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, SecretStr, ValidationError, field_validator

from pinchpoint.model.findings import Severity
from pinchpoint.rules.config import ConfigChoice, config_file_choice
from pinchpoint.service.notify import WebhookTarget

DEFAULT_PORT = 9460
LOOPBACK = ("127.0.0.1", "::1", "localhost")
STALE_AFTER_SWEEP_GAPS = 3  # /readyz: the last sweep may be this many sweep intervals old


class SettingsError(ValueError):
    """The service cannot start with these settings; the message names the key."""


class Role(StrEnum):
    AGENT = "agent"  # sweeps this host (or the demo, or a snapshot)
    CENTRAL = "central"  # also accepts reports pushed by agents, for a fleet


class TargetKind(StrEnum):
    LIVE = "live"
    DEMO = "demo"
    SNAPSHOT = "snapshot"


class Schedule(BaseModel):
    """When the background jobs run: five-field cron expressions (minute hour day month weekday,
    in the service's local time), or "" to turn a job off."""

    sweep: str = "*/5 * * * *"
    smart: str = "0 * * * *"
    daily_report: str = "0 6 * * *"
    stats_interval_s: float = Field(default=10.0, ge=0)  # 0: no continuous sampling
    retention_days: int = Field(default=30, ge=1)
    prune: str = "17 3 * * *"
    compact_stats: str = "*/10 * * * *"  # roll statistics points into coarser tiers

    @field_validator("sweep", "smart", "daily_report", "prune", "compact_stats")
    @classmethod
    def _five_fields(cls, value: str) -> str:
        if not value:
            return value
        if len(value.split()) != 5:
            raise ValueError(f"{value!r} is not a five-field cron expression")
        from apscheduler.triggers.cron import CronTrigger

        try:
            CronTrigger.from_crontab(value)
        except ValueError as err:
            raise ValueError(f"{value!r}: {err}") from None
        return value

    def longest_sweep_gap_s(self) -> float | None:
        """The longest time between two scheduled sweeps (None: no sweep is scheduled)."""
        return longest_gap_s(self.sweep) if self.sweep else None


@cache
def longest_gap_s(expression: str) -> float:
    """The longest time between two runs of the cron `expression` over a week (in UTC, so that
    a daylight-saving change does not count), and up to the first run after that week."""
    from apscheduler.triggers.cron import CronTrigger

    trigger = CronTrigger.from_crontab(expression, timezone=UTC)
    week_start = datetime(2024, 1, 1, tzinfo=UTC)  # a Monday
    week_end = week_start + timedelta(days=7)
    longest = 0.0
    previous: datetime | None = None
    moment: datetime | None = trigger.get_next_fire_time(None, week_start)
    while moment is not None:
        if previous is not None:
            longest = max(longest, (moment - previous).total_seconds())
        if moment >= week_end and previous is not None:
            break
        previous, moment = moment, trigger.get_next_fire_time(moment, moment)
    return longest


class ServiceSettings(BaseModel):
    """Everything `pinchpoint serve` needs to start."""

    listen: str = "127.0.0.1"
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    data_dir: Path | None = None  # default: see `default_data_dir`
    database_url: str | None = None  # default: SQLite in data_dir
    read_token: SecretStr | None = None
    admin_token: SecretStr | None = None
    open_reads_on_loopback: bool = False
    role: Role = Role.AGENT
    target: TargetKind = TargetKind.LIVE
    snapshot: Path | None = None
    demo_if_no_sas: bool = False
    push_to: str | None = None  # a central service's base URL
    push_token: SecretStr | None = None
    public_url: str | None = None  # links in notifications
    # Host header values the service answers (DNS rebinding: a page of another site must not
    # reach the API through a name of its own); empty: `default_allowed_hosts`. `*` allows any,
    # `*.example.com` every name under it. The loopback names are always allowed (probes).
    allowed_hosts: list[str] = Field(default_factory=list)
    raise_after: int = Field(default=2, ge=1)
    resolve_after: int = Field(default=2, ge=1)
    schedule: Schedule = Field(default_factory=Schedule)
    webhooks: list[WebhookTarget] = Field(default_factory=list)
    min_notify_severity: Severity = Severity.WARNING
    max_body_bytes: int = Field(default=8 * 1024 * 1024, gt=0)  # JSON and statistics bodies
    max_upload_bytes: int = Field(default=256 * 1024 * 1024, gt=0)  # snapshot archives
    config_file: Path | None = None  # the rules' pinchpoint.toml, re-read before each sweep
    live_stats_seconds: float = Field(default=1.0, gt=0)
    # record per-I/O latency in the kernel (eBPF, docs/ebpf.md) where this host allows it
    record_latency: bool = True
    # the most kernel memory the recorder's maps may take, whatever the CPU count (per-CPU
    # histograms where it holds them for every disk, else shared ones: docs/ebpf.md)
    record_map_budget_bytes: int = Field(default=64 * 1024 * 1024, gt=0)
    # /readyz: how old the last successful sweep may be (None: three scheduled sweep intervals)
    stale_sweep_after_s: float | None = Field(default=None, gt=0)
    # a sweep not done by then is abandoned and recorded as failed (a sweep of the 1,920-path
    # host takes 2-3 s); tools may run for `tool_budget_s` of it, all together
    sweep_deadline_s: float = Field(default=600.0, gt=0)
    tool_budget_s: float = Field(default=300.0, gt=0)

    @property
    def on_loopback(self) -> bool:
        return self.listen in LOOPBACK

    @property
    def reads_open(self) -> bool:
        """Read endpoints without a token: only on loopback and only when asked for."""
        return self.open_reads_on_loopback and self.on_loopback

    def sweep_stale_after_s(self) -> float | None:
        """How old the last successful sweep may be before /readyz says not ready: the
        setting, else three of the longest intervals between scheduled sweeps (900 s with the
        default `*/5`); None when neither is given (no scheduled sweep can be late)."""
        if self.stale_sweep_after_s is not None:
            return self.stale_sweep_after_s
        gap = self.schedule.longest_sweep_gap_s()
        return STALE_AFTER_SWEEP_GAPS * gap if gap else None

    def resolved_allowed_hosts(self) -> list[str]:
        """The Host names this service answers: the setting, else `default_allowed_hosts`;
        with the loopback names in both cases, so that local probes always get through."""
        chosen = self.allowed_hosts or default_allowed_hosts(self.listen, self.public_url)
        return list(dict.fromkeys([*chosen, *LOOPBACK]))

    def resolved_data_dir(self) -> Path:
        return self.data_dir or default_data_dir()

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.resolved_data_dir() / 'pinchpoint.db'}"


WILDCARD_ADDRESSES = ("", "0.0.0.0", "::")


def default_allowed_hosts(listen: str, public_url: str | None = None) -> list[str]:
    """The names and addresses the service listens on: the listen address, or for a wildcard
    one this machine's host name, its fully qualified name and the addresses they resolve to;
    the host of `public_url`; and the loopback names."""
    import socket
    from urllib.parse import urlsplit

    names: list[str] = []
    if listen in WILDCARD_ADDRESSES:
        own = [socket.gethostname(), socket.getfqdn()]
        names += own
        for name in own:
            try:
                found = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
            except (OSError, UnicodeError):
                continue
            names += [str(info[4][0]) for info in found]
    else:
        names.append(listen)
    if public_url:
        public = urlsplit(public_url).hostname
        if public:
            names.append(public)
    return list(dict.fromkeys(n.lower() for n in [*names, *LOOPBACK] if n))


def default_data_dir() -> Path:
    """The XDG state directory (`$XDG_STATE_HOME/pinchpoint`, `~/.local/state/pinchpoint`), by
    the same rule for root and for users: a deployment names its own (the systemd unit passes
    its StateDirectory, the image sets PINCHPOINT_DATA_DIR)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "pinchpoint"


def _token_from_file(path: Any, key: str, where: str) -> SecretStr:
    try:
        text = Path(str(path)).read_text(encoding="utf-8").strip()
    except OSError as err:
        raise SettingsError(f"{where}: {key} {path}: cannot be read: {err.strerror}") from None
    if not text:
        raise SettingsError(f"{where}: {key} {path} is empty")
    return SecretStr(text)


def _service_table(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The `[service]` table with token files read and webhooks renamed to the model's keys."""
    table = dict(data.get("service") or {})
    for name in ("read_token", "admin_token", "push_token"):
        if name in table:
            raise SettingsError(
                f"{where}: [service] {name}: keep tokens out of the config file; use "
                f"{name}_file or PINCHPOINT_{name.upper()}"
            )
        file_key = f"{name}_file"
        if file_key in table:
            table[name] = _token_from_file(table.pop(file_key), file_key, where)
    if "webhook" in table:
        table["webhooks"] = table.pop("webhook")
    return table


ENVIRONMENT = {
    "database_url": "PINCHPOINT_DATABASE_URL",
    "data_dir": "PINCHPOINT_DATA_DIR",
    "read_token": "PINCHPOINT_READ_TOKEN",
    "admin_token": "PINCHPOINT_ADMIN_TOKEN",
    "push_token": "PINCHPOINT_PUSH_TOKEN",
}


def _file_table(config_file: Path) -> dict[str, Any]:
    """The `[service]` table of `config_file`, read and checked."""
    try:
        data = tomllib.loads(config_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SettingsError(
            f"{config_file}: no such config file — check the path, or leave --config out"
        ) from None
    except OSError as err:
        why = (err.strerror or str(err)).lower()
        raise SettingsError(f"{config_file}: cannot be read: {why}") from None
    except UnicodeDecodeError:
        raise SettingsError(f"{config_file}: cannot be used: not a text file (not UTF-8)") from None
    except tomllib.TOMLDecodeError as err:
        raise SettingsError(f"{config_file}: cannot be used: not valid TOML: {err}") from None
    return _service_table(data, str(config_file))


def settings_layers(
    config_file: Path | None, **overrides: Any
) -> tuple[ConfigChoice, list[tuple[str, dict[str, Any]]]]:
    """The config file in force and the settings each layer gives, weakest first: the file's
    `[service]` table, the environment, the command line (None values are not given)."""
    choice = config_file_choice(config_file)
    layers: list[tuple[str, dict[str, Any]]] = []
    if choice.path is not None:
        table = _file_table(choice.path)
        table["config_file"] = choice.path
        layers.append((str(choice.path), table))
    environment = {k: os.environ.get(v) for k, v in ENVIRONMENT.items()}
    layers.append(("environment", {k: v for k, v in environment.items() if v}))
    layers.append(("command line", {k: v for k, v in overrides.items() if v is not None}))
    return choice, layers


def load_settings(config_file: Path | None, **overrides: Any) -> ServiceSettings:
    """Settings from the config file's `[service]` table (`config_file`, else the one every
    command finds: rules/config.py), the environment and `overrides` (command line options that
    were given; None values are ignored)."""
    return explained_settings(config_file, **overrides)[0]


def explained_settings(
    config_file: Path | None, **overrides: Any
) -> tuple[ServiceSettings, dict[str, str], ConfigChoice]:
    """`load_settings`, with where each setting comes from (the layer that gave it last, else
    "default"; for a table also `table.key` for each key a layer set) and the file in force —
    the file read once."""
    choice, layers = settings_layers(config_file, **overrides)
    where = str(choice.path) if choice.path else "settings"
    table: dict[str, Any] = {}
    origins = dict.fromkeys(ServiceSettings.model_fields, "default")
    for origin, values in layers:
        table.update(values)
        for key, value in values.items():
            if key not in origins:
                continue
            origins[key] = ENVIRONMENT[key] if origin == "environment" else origin
            if isinstance(value, Mapping):  # a table (schedule): each key it sets, too
                origins.update({f"{key}.{inner}": origin for inner in value})
    try:
        settings = ServiceSettings.model_validate(table)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'service'}: {e['msg']}" for e in err.errors()
        )
        raise SettingsError(f"{where}: [service] {problems}") from None
    return settings, origins, choice


def ensure_tokens(settings: ServiceSettings) -> list[Path]:
    """Give the service tokens when none were configured: random ones, kept in files of the
    data directory readable by the service's user only. Returns the files written."""
    written: list[Path] = []
    directory = settings.resolved_data_dir()
    for name in ("read_token", "admin_token"):
        if getattr(settings, name) is not None:
            continue
        path = directory / f"{name.replace('_', '.')}"
        kept = path.read_text(encoding="utf-8").strip() if path.is_file() else ""
        if kept:
            setattr(settings, name, SecretStr(kept))
            continue
        directory.mkdir(parents=True, exist_ok=True)
        token = secrets.token_urlsafe(32)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(token + "\n")
        setattr(settings, name, SecretStr(token))
        written.append(path)
    return written
