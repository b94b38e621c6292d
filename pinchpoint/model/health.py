"""Disk health as `smartctl -x -j` reports it: verdict, exit-status bits, wear, errors, links.

One `DiskHealth` per disk asked. Facts only: a failing attribute, a grown defect list or a
3.0 Gbit/s SATA link on a 6.0 Gbit/s drive is recorded as reported, and rules judge it.

Joining with the topology: `wwn` is the LU name as sysfs prints `wwid` (`naa.` + lowercase
hex), `serial` the drive's serial number; NVMe namespaces carry their `eui.` identifier.
Temperatures are °C, capacities bytes, link rates Gbit/s.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, computed_field

from pinchpoint.model.sas import PhyErrorCounters


class DiskProtocol(StrEnum):
    """The command set smartctl spoke to the drive (`device.protocol`)."""

    ATA = "ATA"  # SATA drives, also behind a SAS HBA or a USB bridge (SAT)
    SCSI = "SCSI"  # SAS and other SCSI drives, RAID logical volumes, virtual disks
    NVME = "NVMe"


class SmartctlExitFlag(StrEnum):
    """One bit of smartctl's exit status, named after smartctl(8) "RETURN VALUES"."""

    COMMAND_LINE_DID_NOT_PARSE = "command_line_did_not_parse"  # bit 0
    DEVICE_OPEN_FAILED = "device_open_failed"  # bit 1 (also: no IDENTIFY data, low-power mode)
    SMART_COMMAND_FAILED = "smart_command_failed"  # bit 2 (or a SMART data checksum error)
    DISK_FAILING = "disk_failing"  # bit 3: SMART status check returned "DISK FAILING"
    PREFAIL_ATTRIBUTES_AT_OR_BELOW_THRESHOLD = "prefail_attributes_at_or_below_threshold"  # 4
    ATTRIBUTES_AT_OR_BELOW_THRESHOLD_IN_PAST = "attributes_at_or_below_threshold_in_past"  # 5
    ERROR_LOG_HAS_ERRORS = "error_log_has_errors"  # bit 6: the device error log has records
    SELF_TEST_LOG_HAS_ERRORS = "self_test_log_has_errors"  # bit 7: failed self-tests logged


# Bit number → flag, in bit order (smartctl(8)).
EXIT_FLAG_BITS: tuple[SmartctlExitFlag, ...] = tuple(SmartctlExitFlag)

# What each bit means, in smartctl(8)'s words, for messages.
EXIT_FLAG_WORDING: dict[SmartctlExitFlag, str] = {
    SmartctlExitFlag.COMMAND_LINE_DID_NOT_PARSE: "command line did not parse",
    SmartctlExitFlag.DEVICE_OPEN_FAILED: (
        "device open failed, device did not return an IDENTIFY DEVICE structure, "
        "or device is in a low-power mode"
    ),
    SmartctlExitFlag.SMART_COMMAND_FAILED: (
        "some SMART or other ATA command to the disk failed, "
        "or there was a checksum error in a SMART data structure"
    ),
    SmartctlExitFlag.DISK_FAILING: 'SMART status check returned "DISK FAILING"',
    SmartctlExitFlag.PREFAIL_ATTRIBUTES_AT_OR_BELOW_THRESHOLD: "prefail attributes <= threshold",
    SmartctlExitFlag.ATTRIBUTES_AT_OR_BELOW_THRESHOLD_IN_PAST: (
        'SMART status check returned "DISK OK" but some (usage or prefail) attributes '
        "have been <= threshold at some time in the past"
    ),
    SmartctlExitFlag.ERROR_LOG_HAS_ERRORS: "the device error log contains records of errors",
    SmartctlExitFlag.SELF_TEST_LOG_HAS_ERRORS: (
        "the device self-test log contains records of errors"
    ),
}


class NvmeCriticalWarning(StrEnum):
    """One bit of the NVMe SMART/Health log's Critical Warning byte (names as smartctl's JSON)."""

    SPARE_BELOW_THRESHOLD = "spare_below_threshold"  # bit 0: available spare < threshold
    TEMPERATURE_ABOVE_OR_BELOW_THRESHOLD = "temperature_above_or_below_threshold"  # bit 1
    RELIABILITY_DEGRADED = "reliability_degraded"  # bit 2: media or internal errors
    MEDIA_READ_ONLY = "media_read_only"  # bit 3: the media was placed in read-only mode
    VOLATILE_MEMORY_BACKUP_FAILED = "volatile_memory_backup_failed"  # bit 4
    PERSISTENT_MEMORY_REGION_UNRELIABLE = "persistent_memory_region_unreliable"  # bit 5


NVME_WARNING_BITS: tuple[NvmeCriticalWarning, ...] = tuple(NvmeCriticalWarning)


class SelfTestKind(StrEnum):
    """What a logged self-test was: ATA "Short offline", SCSI "Background long", NVMe "Extended"."""

    SHORT = "short"
    EXTENDED = "extended"  # ATA "Extended offline", SCSI "Background/Foreground long"
    CONVEYANCE = "conveyance"
    SELECTIVE = "selective"
    OFFLINE = "offline"  # ATA "Offline" data collection
    VENDOR = "vendor"
    OTHER = "other"


class SelfTestOutcome(StrEnum):
    """How a logged self-test ended."""

    PASSED = "passed"  # completed without error
    FAILED = "failed"  # read, servo, electrical or unknown failure; a failed segment
    ABORTED = "aborted"  # by the host, a reset, a format …: says nothing of the media
    IN_PROGRESS = "in progress"


class SelfTest(BaseModel):
    """One entry of a drive's self-test log, as smartctl decodes it (most recent first)."""

    kind: SelfTestKind
    description: str  # smartctl's words: "Extended offline", "Background long", "Short"
    outcome: SelfTestOutcome
    status: str  # smartctl's words: "Completed: read failure", "Failed in segment -->"
    power_on_hours: int | None = None  # the drive's age when the test ran
    failing_lba: int | None = None  # first LBA that failed, where the log names one


class AttributeFailure(StrEnum):
    """`when_failed` of an ATA attribute: its normalised value is or was at/below threshold."""

    NOW = "now"
    PAST = "past"


class AtaAttribute(BaseModel):
    """One ATA SMART attribute row (only failing ones are kept; see `AtaHealth`)."""

    attribute_id: int  # 5 = Reallocated_Sector_Ct, 197 = Current_Pending_Sector, …
    name: str
    value: int | None = None  # normalised value (vendor scale, usually 1–253, higher is better)
    worst: int | None = None
    threshold: int | None = None  # the vendor's failure threshold for `value`
    when_failed: AttributeFailure | None = None
    prefailure: bool | None = None  # True: crossing the threshold predicts failure
    raw_value: int | None = None
    raw_text: str | None = None  # smartctl's rendering of the raw value, e.g. "45 (Min/Max 43/48)"


class AtaHealth(BaseModel):
    """ATA/SATA facts: sector counters, failing attributes, the SATA link."""

    reallocated_sectors: int | None = None  # attribute 5 raw value
    pending_sectors: int | None = None  # attribute 197 raw value
    offline_uncorrectable: int | None = None  # attribute 198 raw value
    failing_now: list[AtaAttribute] = Field(default_factory=list)  # when_failed == "now"
    failed_in_past: list[AtaAttribute] = Field(default_factory=list)  # when_failed == "past"
    sata_link_current_gbps: float | None = None  # `interface_speed.current`, e.g. 3.0
    sata_link_max_gbps: float | None = None  # `interface_speed.max`: what the drive supports
    # Attribute 232 Available_Reservd_Space (normalised value and threshold): an SSD's spare.
    reserved_space_pct: int | None = None
    reserved_space_threshold_pct: int | None = None


class DiskSasPhy(BaseModel):
    """One phy of a disk's SAS port, from the Protocol Specific Port log page (0x18)."""

    identifier: int | None = None
    sas_address: str | None = None  # this phy's (the disk port's) address, "0x" + 16 hex
    attached_device_type: str | None = None  # "expander device", "SAS or SATA device", …
    attached_sas_address: str | None = None  # None when nothing is attached ("0x0")
    attached_phy_identifier: int | None = None
    negotiated_gbps: float | None = None  # "phy enabled; 12 Gbps" -> 12.0; None without link
    negotiated_text: str | None = None  # as smartctl says it
    errors: PhyErrorCounters = Field(default_factory=PhyErrorCounters)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def attached(self) -> bool:
        """Something answers at the far end of this phy."""
        return self.attached_sas_address is not None


class DiskSasPort(BaseModel):
    """One port of a SAS disk (`scsi_sas_port_N`): a dual-ported disk has two, A and B."""

    index: int  # N of `scsi_sas_port_N`, in the order the drive lists them (0 = first port)
    relative_target_port_id: int | None = None  # usually 1 = port A, 2 = port B
    sas_address: str | None = None  # the port's address (its first phy's)
    phys: list[DiskSasPhy] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def attached(self) -> bool:
        """Some phy of this port is cabled to something (an expander, an HBA)."""
        return any(p.attached for p in self.phys)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def attached_sas_addresses(self) -> list[str]:
        """The far ends of this port (the expander or HBA ports it hangs off)."""
        return sorted({p.attached_sas_address for p in self.phys if p.attached_sas_address})


class ScsiHealth(BaseModel):
    """SCSI/SAS facts: defects, uncorrected errors, transport and ports."""

    vendor: str | None = None
    product: str | None = None
    transport: str | None = None  # "SAS (SPL-4)", "Parallel SCSI (SPI-4)", …
    grown_defects: int | None = None  # `scsi_grown_defect_list`: blocks reassigned since format
    uncorrected_read_errors: int | None = None  # error counter log, `total_uncorrected_errors`
    uncorrected_write_errors: int | None = None
    uncorrected_verify_errors: int | None = None
    sas_ports: list[DiskSasPort] = Field(default_factory=list)


class NvmeNamespace(BaseModel):
    """One namespace of an NVMe controller (a block device `nvmeXnY`)."""

    namespace_id: int
    size_bytes: int | None = None
    eui64: str | None = None  # "eui." + 16 hex, as sysfs `wwid` prints an EUI-64


class NvmeHealth(BaseModel):
    """NVMe facts from the SMART/Health Information log (log page 0x02)."""

    critical_warning: int | None = None  # the raw byte
    critical_warnings: list[NvmeCriticalWarning] = Field(default_factory=list)  # its set bits
    critical_warning_other_bits: int = 0  # set bits above those named (reserved in the spec)
    media_errors: int | None = None  # unrecovered data integrity errors
    percentage_used: int | None = None  # vendor estimate of life used; may exceed 100
    available_spare_pct: int | None = None
    available_spare_threshold_pct: int | None = None
    error_log_entries: int | None = None  # `num_err_log_entries`
    namespaces: list[NvmeNamespace] = Field(default_factory=list)


class SmartctlMessage(BaseModel):
    """A message smartctl printed (`smartctl.messages`), e.g. why the device did not open."""

    text: str
    severity: str | None = None  # "error", "warning", "information"


class DiskHealth(BaseModel):
    """What smartctl says about one disk; `collected` is False when it said nothing usable."""

    id: str  # `disk:` + WWN, else NVMe EUI-64, else serial; `disk:device:<name>` if none known
    device: str  # the name asked, e.g. "sda", "nvme0": a name of the moment, never an id
    collected: bool = True  # False: smartctl gave no facts (see `not_collected_reason`)
    not_collected_reason: str | None = None
    smartctl_device_type: str | None = None  # `device.type`: "sat", "nvme", "sat+megaraid,0"
    protocol: DiskProtocol | None = None
    # Identity, to join with the topology.
    wwn: str | None = None  # "naa.5000c500a1b2c3d4": the LU name as sysfs `wwid` prints it
    serial: str | None = None
    model: str | None = None
    firmware: str | None = None
    rotation_rate_rpm: int | None = None  # 0 = solid state (smartctl's convention)
    user_capacity_bytes: int | None = None
    # The verdict and how smartctl got there.
    smart_available: bool | None = None  # `smart_support.available`
    smart_enabled: bool | None = None
    smart_passed: bool | None = None  # `smart_status.passed`; None = no verdict reported
    exit_status: int | None = None  # `smartctl.exit_status`, the bitmask
    exit_flags: list[SmartctlExitFlag] = Field(default_factory=list)  # its set bits, in order
    messages: list[SmartctlMessage] = Field(default_factory=list)
    # Life and environment.
    temperature_c: int | None = None  # `temperature.current`
    power_on_hours: int | None = None  # `power_on_time.hours`
    # The drive's own temperature limits: warning (ATA SCT `op_limit_max`, NVMe WCTEMP) and
    # critical (SCSI `drive_trip`, ATA SCT `limit_max`, NVMe CCTEMP); None where not reported.
    temperature_warning_c: int | None = None
    temperature_critical_c: int | None = None
    # Endurance used, % (100 = the rated life; may exceed 100), and where it was read: NVMe
    # `percentage_used`, ATA device statistics or a wear attribute, SCSI's endurance indicator.
    endurance_used_pct: int | None = None
    endurance_source: str | None = None
    # The self-test log, most recent first; None when the report holds no self-test log.
    self_tests: list[SelfTest] | None = None
    # Per protocol; the others stay None.
    ata: AtaHealth | None = None
    scsi: ScsiHealth | None = None
    nvme: NvmeHealth | None = None


class DiskHealthInventory(BaseModel):
    """Health of every disk asked, in the order asked; failures are in the problem log too."""

    disks: list[DiskHealth] = Field(default_factory=list)
    smartctl_version: str | None = None  # "7.3", from the first report that names it

    @computed_field  # type: ignore[prop-decorator]
    @property
    def collected_count(self) -> int:
        return sum(1 for d in self.disks if d.collected)
