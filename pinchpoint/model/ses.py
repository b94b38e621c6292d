"""SES diagnostic pages as `sg_ses` decodes them: configuration, status, names, SAS addresses.

One model per page (`cf`, `es`, `ed`, `aes`, `snic`). The collectors join them:

* the configuration page gives the enclosure logical identifier (the JBOD's identity: the two
  I/O modules of one JBOD report the same one), vendor, product and the element types;
* the enclosure status page gives each element's condition and the slot LEDs;
* the element descriptor page gives each element its printed name ("SLOT 01");
* the additional element status page gives, per slot, the SAS address of the disk and of the
  expander phy it hangs off, and per expander its SAS address;
* the nickname page gives the name an administrator set (what sasutils names JBODs by).

Elements are addressed the way `sg_ses` addresses them: by type index (`[ti=N]`, the position
of the element type in the configuration page) and element number within that type. The
"Element index" of the additional element status page is a different number (it counts all
elements of all types), and neither is the slot number: that is `device_slot_number`.

SAS addresses and logical identifiers are lowercase `0x` plus 16 hex digits, as sysfs prints
`sas_address`; a zero address is `"0x0"` and means nothing is attached.

Every page result says whether the text ended early (`truncated`) and what could not be used
(`warnings`); every element it lists is complete.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, computed_field

NO_SAS_ADDRESS = "0x0"  # what a phy with nothing attached reports

ARRAY_DEVICE_SLOT = "Array device slot"
DEVICE_SLOT = "Device slot"
SAS_EXPANDER = "SAS expander"
# One per I/O module (an "ESM"): the electronics that answer SES (SES-3 element type 0x07).
ES_CONTROLLER = "Enclosure services controller electronics"


def same_element_type(a: str, b: str) -> bool:
    """Compare element type names as sg_ses versions spell them (case and spacing vary)."""
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def is_slot_type(element_type: str) -> bool:
    """True for the two element types that are disk slots ("Array device slot", "Device slot")."""
    return same_element_type(element_type, ARRAY_DEVICE_SLOT) or same_element_type(
        element_type, DEVICE_SLOT
    )


class SesInquiry(BaseModel):
    """The INQUIRY line `sg_ses` prints first when it talks to a device (absent with --inhex)."""

    vendor: str
    product: str
    revision: str


class SesPage(BaseModel):
    """What every decoded page carries besides its own content."""

    inquiry: SesInquiry | None = None  # from the first line of live output
    primary_logical_id: str | None = None  # "Primary enclosure logical identifier (hex): …"
    generation_code: int | None = None
    truncated: bool = False  # the text ended before the page did: some elements are missing
    warnings: list[str] = Field(default_factory=list)  # lines or elements that were not used


# --- configuration (cf, page 0x1) -------------------------------------------------------------


class SesSubenclosure(BaseModel):
    """One enclosure descriptor of the configuration page (the primary one, or a secondary)."""

    subenclosure_id: int
    primary: bool
    relative_es_process_id: int | None = None
    es_process_count: int | None = None
    type_descriptor_header_count: int
    logical_id: str | None = None  # None only when the enclosure descriptor is too short
    vendor: str | None = None
    product: str | None = None
    revision: str | None = None


class SesTypeDescriptor(BaseModel):
    """One type descriptor header: an element type, how many elements it may have, its text."""

    type_index: int  # position in the list = the `[ti=N]` other pages show
    element_type: str  # as sg_ses names it: "Array device slot", "SAS expander", "[0x1a]"
    subenclosure_id: int
    possible_elements: int
    text: str = ""


class SesConfiguration(SesPage):
    """Configuration page: who the enclosure is and which element types it has."""

    logical_id: str  # the primary subenclosure's enclosure logical identifier
    vendor: str | None = None
    product: str | None = None
    revision: str | None = None
    secondary_subenclosure_count: int
    subenclosures: list[SesSubenclosure]
    type_descriptors: list[SesTypeDescriptor]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def slot_count(self) -> int:
        """Disk slots of the primary subenclosure: "Array device slot" plus "Device slot"."""
        primary_id = next((s.subenclosure_id for s in self.subenclosures if s.primary), 0)
        return sum(
            t.possible_elements
            for t in self.type_descriptors
            if t.subenclosure_id == primary_id and is_slot_type(t.element_type)
        )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def io_module_count(self) -> int | None:
        """I/O modules the enclosure declares: its enclosure services controller elements, else
        the primary subenclosure's number of ES processes (one per I/O module); None when the
        page says neither. An I/O module may hold several SAS expanders (the HGST H4060-J's
        hold three), so expanders do not count them."""
        controllers = sum(
            t.possible_elements
            for t in self.type_descriptors
            if same_element_type(t.element_type, ES_CONTROLLER)
        )
        if controllers:
            return controllers
        primary = next((s for s in self.subenclosures if s.primary), None)
        return primary.es_process_count if primary is not None else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def expander_count(self) -> int:
        """SAS expander elements the enclosure declares (all subenclosures)."""
        return sum(
            t.possible_elements
            for t in self.type_descriptors
            if same_element_type(t.element_type, SAS_EXPANDER)
        )


# --- enclosure status (es, page 0x2) ----------------------------------------------------------


class SesStatusElement(BaseModel):
    """One status element: the overall one of a type (`element_number` None) or an individual one.

    `flags` holds every `Name=value` pair of the element's lines (values as integers, units
    dropped: "Actual speed=7500 rpm" -> 7500); `details` holds the other fragments verbatim
    ("Fan at highest speed", "Voltage: 0.94 volts"). The named booleans below read `flags`
    and are None when the element does not report them.
    """

    element_type: str
    subenclosure_id: int
    type_index: int
    element_number: int | None  # None for the "Overall descriptor"
    status: str  # "OK", "Not installed", "Critical", "Unsupported", …
    flags: dict[str, int] = Field(default_factory=dict)
    details: list[str] = Field(default_factory=list)

    def flag(self, *names: str) -> int | None:
        """The first of `names` present in `flags`, compared case-insensitively."""
        wanted = [n.lower() for n in names]
        for key, value in self.flags.items():
            if key.lower() in wanted:
                return value
        return None

    def _bool_flag(self, *names: str) -> bool | None:
        value = self.flag(*names)
        return None if value is None else value != 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def predicted_failure(self) -> bool | None:
        return self._bool_flag("Predicted failure")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ident(self) -> bool | None:
        """The locate LED (SES "Ident")."""
        return self._bool_flag("Ident")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fault_sensed(self) -> bool | None:
        return self._bool_flag("Fault sensed")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fault_requested(self) -> bool | None:
        """Array device slots print "Fault reqstd", device slots "Fault requested"."""
        return self._bool_flag("Fault reqstd", "Fault requested")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def device_off(self) -> bool | None:
        return self._bool_flag("Device off")


class SesEnclosureStatus(SesPage):
    """Enclosure status page: the enclosure's summary bits and every element's status."""

    invalid_operation: bool  # INVOP
    info: bool  # INFO
    non_critical: bool  # NON-CRIT
    critical: bool  # CRIT
    unrecoverable: bool  # UNRECOV
    elements: list[SesStatusElement]

    @property
    def slots(self) -> list[SesStatusElement]:
        """The individual (not overall) elements of the slot types, in page order."""
        return [
            e
            for e in self.elements
            if e.element_number is not None and is_slot_type(e.element_type)
        ]


# --- element descriptor (ed, page 0x7) --------------------------------------------------------


class SesDescriptorGroup(BaseModel):
    """The names of one element type's elements: the overall one and each individual one."""

    element_type: str
    subenclosure_id: int
    type_index: int
    overall: str | None = None  # "" when sg_ses prints "<empty>"
    descriptors: dict[int, str] = Field(default_factory=dict)  # element number -> "SLOT 01"


class SesElementDescriptors(SesPage):
    """Element descriptor page: printed names of elements, grouped by element type."""

    groups: list[SesDescriptorGroup]

    def descriptor(self, type_index: int, element_number: int) -> str | None:
        """The name of element `element_number` of type `[ti=type_index]`, if the page has it."""
        for group in self.groups:
            if group.type_index == type_index:
                return group.descriptors.get(element_number)
        return None


# --- additional element status (aes, page 0xa) ------------------------------------------------


class SesPhy(BaseModel):
    """One phy descriptor of a slot: what is attached and through which expander phy."""

    phy_index: int
    device_type: str  # "no SAS device attached", "end device", "expander device", …
    initiator_ports: list[str] = Field(default_factory=list)  # "SSP", "STP", "SMP"
    target_ports: list[str] = Field(default_factory=list)  # "SSP", "STP", "SMP", "SATA_device"
    attached_sas_address: str  # usually the expander's address
    sas_address: str  # the device's port address; "0x0" when nothing is there
    phy_identifier: int | None = None  # the expander phy the slot is wired to

    @property
    def attached(self) -> bool:
        """True when a device answers on this phy."""
        return self.sas_address != NO_SAS_ADDRESS


class SesExpanderPhy(BaseModel):
    """One "connector; other element" pair of a SAS expander element: expander phy `phy_index`."""

    phy_index: int
    connector_element_index: int | None = None  # "connector ei: N"; None for "no connector"
    other_element_index: int | None = None  # "other ei: N" (an element index, not a slot)
    description: str  # the text after "[N]", verbatim


class SesPortPhy(BaseModel):
    """One phy of a SCSI port or enclosure services controller element (SAS, descriptor type 1)."""

    phy_index: int
    phy_identifier: int | None = None
    sas_address: str
    description: str = ""  # the connector / other element text, verbatim


class SesAdditionalElement(BaseModel):
    """One additional element status descriptor (a slot, an expander, a port, a controller)."""

    element_type: str
    subenclosure_id: int
    type_index: int | None = None  # None when the sg_ses version prints no `[ti=N]`
    element_index: int | None = None  # "Element index: N" (counts all elements; not a slot)
    element_number: int | None = None  # "Element N descriptor" when the device gives no index
    eiioe: int | None = None
    invalid: bool = False  # "flagged as invalid (no further information)"
    transport_protocol: str | None = None  # "SAS", "FCP", "PCIe", …
    phy_count: int | None = None  # "number of phys" (or ports)
    not_all_phys: bool | None = None
    device_slot_number: int | None = None  # the slot number, for device slots
    phys: list[SesPhy] = Field(default_factory=list)  # device slots
    sas_address: str | None = None  # SAS expander elements: the expander's own address
    expander_phys: list[SesExpanderPhy] = Field(default_factory=list)
    port_phys: list[SesPortPhy] = Field(default_factory=list)  # ports, controllers


class SesAdditionalStatus(SesPage):
    """Additional element status page: SAS addresses per slot and per expander."""

    elements: list[SesAdditionalElement]

    @property
    def device_slots(self) -> list[SesAdditionalElement]:
        """Elements that carry a device slot number, in page order."""
        return [e for e in self.elements if e.device_slot_number is not None]

    @property
    def expanders(self) -> list[SesAdditionalElement]:
        """SAS expander elements (those that report the expander's SAS address)."""
        return [e for e in self.elements if e.sas_address is not None]

    def slot(self, device_slot_number: int) -> SesAdditionalElement | None:
        """The element for slot `device_slot_number`, if the page has it."""
        return next((e for e in self.elements if e.device_slot_number == device_slot_number), None)


# --- subenclosure nickname (snic, page 0xf) ---------------------------------------------------


class SesNickname(BaseModel):
    """The nickname of one subenclosure."""

    subenclosure_id: int
    nickname: str  # stripped; "" when none is set
    status: int | None = None
    additional_status: int | None = None
    language_code: str | None = None  # None when sg_ses prints nothing (older versions)


class SesNicknames(SesPage):
    """Subenclosure nickname status page."""

    secondary_subenclosure_count: int
    nicknames: list[SesNickname]

    def nickname(self, subenclosure_id: int = 0) -> str | None:
        """The nickname of `subenclosure_id` (0 = primary), if the page has it."""
        return next(
            (n.nickname for n in self.nicknames if n.subenclosure_id == subenclosure_id), None
        )


# --- threshold in (th, page 0x5) --------------------------------------------------------------


class SesThreshold(BaseModel):
    """The limits of one sensor element (`[ti=N]`, element `element_number`).

    A limit sg_ses prints as `<res>` (reserved: the sensor has none) is None. `unit` says what
    the numbers are: "C" for a temperature sensor, "% above/below nominal" for a voltage or
    current sensor (the high limits are above nominal, the low ones below).
    """

    element_type: str
    subenclosure_id: int
    type_index: int
    element_number: int | None  # None for the "Overall descriptor"
    high_critical: float | None = None
    high_warning: float | None = None
    low_warning: float | None = None
    low_critical: float | None = None
    unit: str = ""


class SesThresholds(SesPage):
    """Threshold In page: the warning and critical limits of the sensors that have them."""

    invalid_operation: bool
    thresholds: list[SesThreshold]

    def threshold(self, type_index: int, element_number: int) -> SesThreshold | None:
        """The limits of element `element_number` of type `[ti=type_index]`, if listed."""
        return next(
            (
                t
                for t in self.thresholds
                if t.type_index == type_index and t.element_number == element_number
            ),
            None,
        )
