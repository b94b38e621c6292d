"""`[workload]` of a host spec: sampling, the device and link model's parameters, the loads on
disks and LUNs and the traffic on NICs (docs/simulator.md, docs/simulator-workload.md)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from pinchpoint.simulator.spec.values import SpecModel


class LoadSpec(SpecModel):
    """`[[workload.load]]`: the same work given to every device of a set."""

    pool: str | None = None
    enclosures: list[str] | None = None
    luns: bool = False
    devices: list[str] | None = None  # kernel names of disks off the SAS fabric: sda, nvme0n1, vda
    read_share: float = Field(default=0.5, ge=0.0, le=1.0)
    io_kib: int = Field(default=128, ge=1, le=16384)
    iops: float | None = Field(default=None, gt=0)
    mbps: float | None = Field(default=None, gt=0)
    pattern: Literal["random", "sequential"] = "random"
    burst: int = Field(default=1, ge=1, le=100000)
    even: bool = True
    sync_reads: bool = True

    @model_validator(mode="after")
    def _one_target_one_rate(self) -> Self:
        """A load names one set of devices and one offered rate."""
        targets = sum(
            (
                self.pool is not None,
                self.enclosures is not None,
                self.luns,
                self.devices is not None,
            )
        )
        if targets != 1:
            raise ValueError("give exactly one of pool, enclosures or luns = true, or devices")
        if (self.iops is None) == (self.mbps is None):
            raise ValueError("give exactly one of iops or mbps (offered per device)")
        return self

    @property
    def offered_iops(self) -> float:
        """I/Os per second offered to each device."""
        if self.iops is not None:
            return self.iops
        assert self.mbps is not None
        return self.mbps * 1_000_000 / (self.io_kib * 1024)


class NetworkLoadSpec(SpecModel):
    """`[[workload.network]]`: traffic offered to one NIC or bond, in MB/s (10^6 bytes)."""

    interface: str = Field(min_length=1)
    rx_mb_s: float = Field(default=0.0, ge=0)
    tx_mb_s: float = Field(default=0.0, ge=0)


class WorkloadSpec(SpecModel):
    """`[workload]`: sampling, the device and link model's parameters, and the loads."""

    samples: int = Field(default=13, ge=2, le=10000)
    interval_s: float = Field(default=10.0, gt=0, le=86400)
    start_uptime_s: float = Field(default=86400.0, ge=0)
    seed: int = 1
    path_policy: Literal["round-robin", "first"] = "round-robin"
    sas_link_efficiency: float = Field(default=0.55, gt=0, le=1)
    fc_link_efficiency: float = Field(default=0.8, gt=0, le=1)
    hdd_random_ms: float = Field(default=8.0, gt=0)
    hdd_sequential_ms: float = Field(default=0.5, ge=0)
    hdd_mbps: float = Field(default=200.0, gt=0)
    ssd_ms: float = Field(default=0.1, gt=0)
    ssd_mbps: float = Field(default=1000.0, gt=0)
    lun_ms: float = Field(default=0.02, gt=0)
    ncq_gain: float = Field(default=0.25, ge=0, le=4)
    max_utilisation: float = Field(default=0.9, gt=0, lt=1)
    nic_efficiency: float = Field(default=0.94, gt=0, le=1)
    record_latency: bool = False  # the snapshot carries an eBPF recording of the window
    load: list[LoadSpec] = Field(default_factory=list)
    network: list[NetworkLoadSpec] = Field(default_factory=list)
