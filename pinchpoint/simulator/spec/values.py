"""What every part of a host spec shares: the strict model base, SAS constants, the checked
value types (SAS rates, 64-bit addresses, PCI addresses) and the PCIe link table."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

IoModule = Literal["A", "B"]
IO_MODULE_NAMES: tuple[IoModule, ...] = ("A", "B")
SAS_RATES_GBPS = (1.5, 3.0, 6.0, 12.0, 22.5)
CONNECTOR_PHYS = 4
EXPANDER_PORT_PHYS = 8  # phys 0-3 in, 4-7 out, on every enclosure's main expander
SUB_EXPANDER_LINK_WIDTH = 10
FIXED_CAPTURE_TIME = datetime(2025, 1, 1, tzinfo=UTC)

_PCI_ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-1][0-9a-f]\.[0-7]$")
_HEX_ADDRESS = re.compile(r"^0x[0-9a-f]{16}$")


class SpecModel(BaseModel):
    """A table of a spec: unknown keys are refused (a typo is an error), values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _sas_rate(value: float) -> float:
    """Only the rates SAS defines."""
    if value not in SAS_RATES_GBPS:
        raise ValueError(f"must be one of {', '.join(str(r) for r in SAS_RATES_GBPS)} Gbit/s")
    return value


def _hex_address(value: str) -> str:
    """A 64-bit SAS address or WWN, normalised to `0x` + 16 lower-case digits."""
    text = value.strip().lower()
    if not text.startswith("0x"):
        text = "0x" + text
    if not _HEX_ADDRESS.match(text):
        raise ValueError("must be 16 hex digits, e.g. 0x5000ccab0400a003")
    return text


def _pci_or_none(value: str | None) -> str | None:
    """A PCI address `DDDD:BB:DD.F`, lower case."""
    if value is not None and not _PCI_ADDRESS.match(value.lower()):
        raise ValueError("must look like 0000:03:00.0")
    return None if value is None else value.lower()


SasRate = Annotated[float, AfterValidator(_sas_rate)]
HexAddress = Annotated[str, AfterValidator(_hex_address)]
PciAddress = Annotated[str | None, AfterValidator(_pci_or_none)]


class PcieSpec(SpecModel):
    """The PCIe link of a PCI device: what it negotiated and what the slot and card could do."""

    current_gts: float = 8.0
    current_width: int = Field(default=8, ge=1)
    max_gts: float = 8.0
    max_width: int = Field(default=8, ge=1)
