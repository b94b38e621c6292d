"""Reading a host spec file (TOML or YAML) into a validated `HostSpec`, with errors that name
each field at fault (docs/simulator.md)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from pinchpoint.simulator.spec.host import HostSpec


class SpecError(ValueError):
    """A spec that cannot describe a host; the message names the field at fault."""


def load_spec(path: Path) -> HostSpec:
    """Read a spec file: TOML (`.toml`) or YAML (`.yaml`, `.yml`), chosen by suffix."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            with open(path, "rb") as handle:
                data: Any = tomllib.load(handle)
        elif suffix in (".yaml", ".yml"):
            with open(path, encoding="utf-8") as handle:
                data = yaml.safe_load(handle)
        else:
            raise SpecError(f"{path}: unknown spec format {suffix!r} (use .toml, .yaml or .yml)")
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as err:
        raise SpecError(f"{path}: not valid {suffix[1:].upper()}: {err}") from None
    return spec_from_data(data, str(path))


def spec_from_data(data: Any, origin: str = "spec") -> HostSpec:
    """A validated spec from parsed TOML/YAML data; errors name each field at fault."""
    if not isinstance(data, dict):
        raise SpecError(f"{origin}: the top level must be a table of sections")
    try:
        return HostSpec.model_validate(data)
    except ValidationError as err:
        lines = []
        for error in err.errors():
            where = _location(tuple(error["loc"]))
            message = str(error["msg"]).removeprefix("Value error, ")
            lines.append(f"{where}: {message}" if where else message)
        raise SpecError(f"{origin}: " + "; ".join(lines)) from None


def _location(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a field path: `hba[0].phys`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
