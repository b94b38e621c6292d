"""Faults a host spec can inject into its SAS fabric and disks: `[[degraded_link]]`,
`[[failing_disk]]`, `[[lane_down]]` and `[[phy_errors]]` (docs/simulator.md)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from pinchpoint.simulator.spec.values import IoModule, SasRate, SpecModel


class DegradedLinkSpec(SpecModel):
    """`[[degraded_link]]`: an HBA phy, or an enclosure drive link, negotiated too low."""

    rate_gbps: SasRate
    hba: str | None = None
    phy: int | None = Field(default=None, ge=0)
    enclosure: str | None = None
    io_module: IoModule = "A"
    bay: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _one_end(self) -> Self:
        """A degraded link is either an HBA phy or a drive link."""
        hba_side = self.hba is not None or self.phy is not None
        bay_side = self.enclosure is not None or self.bay is not None
        if hba_side == bay_side:
            raise ValueError("give either hba and phy, or enclosure, io_module and bay")
        if hba_side and (self.hba is None or self.phy is None):
            raise ValueError("an HBA link needs both hba and phy")
        if bay_side and (self.enclosure is None or self.bay is None):
            raise ValueError("a drive link needs both enclosure and bay")
        return self


class FailingDiskSpec(SpecModel):
    """`[[failing_disk]]`: a disk whose smartctl report shows it unwell."""

    enclosure: str
    bay: int = Field(ge=0)
    kind: Literal["grown_defects", "reallocated", "smart_failed", "hot", "selftest_failed", "worn"]
    count: int = Field(default=120, ge=0)
    # "hot": the drive's reading (default: 20 °C above the enclosure's disks).
    temperature_c: int | None = Field(default=None, ge=-40, le=150)
    # "worn": the SSD's endurance used, % (default 90).
    endurance_used_pct: int = Field(default=90, ge=0, le=255)


LaneState = Literal["Unknown", "Phy disabled"]


class LaneDownSpec(SpecModel):
    """`[[lane_down]]`: one lane of an HBA connector's wide port with no link."""

    hba: str
    phy: int = Field(ge=0)
    state: LaneState = "Unknown"
    in_port: bool = False


class PhyErrorsSpec(SpecModel):
    """`[[phy_errors]]`: the error counters of one HBA or expander phy."""

    hba: str | None = None
    enclosure: str | None = None
    io_module: IoModule = "A"
    phy: int = Field(ge=0)
    invalid_dword_count: int = Field(default=0, ge=0)
    running_disparity_error_count: int = Field(default=0, ge=0)
    loss_of_dword_sync_count: int = Field(default=0, ge=0)
    phy_reset_problem_count: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _one_owner(self) -> Self:
        """The phy belongs to an HBA or to an enclosure's expander, not both."""
        if (self.hba is None) == (self.enclosure is None):
            raise ValueError("give either hba and phy, or enclosure, io_module and phy")
        return self

    @property
    def counters(self) -> dict[str, int]:
        """The four counters by their sysfs names."""
        return {
            "invalid_dword_count": self.invalid_dword_count,
            "running_disparity_error_count": self.running_disparity_error_count,
            "loss_of_dword_sync_count": self.loss_of_dword_sync_count,
            "phy_reset_problem_count": self.phy_reset_problem_count,
        }
