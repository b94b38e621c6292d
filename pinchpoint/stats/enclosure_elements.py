"""Is an enclosure's SES element in trouble? Judged once, here, for the rule
`enclosure.element.failed`, the inventory on a terminal, and the web view's enclosure page.

An element is in trouble when it reports Critical or Unrecoverable (critical) or Noncritical
(warning); when its temperature reaches the sensor's own critical or warning limit (from the
threshold page), high or low; or when a power supply, ESM/I/O module or SAS expander is Not
installed while its peers are installed (warning: redundancy lost). Fans and sensors Not
installed are no trouble: boards such as the Areca 8028 declare fan headers and PSU bays that
nothing is plugged into. A summary bit (CRIT) without an element behind it is no trouble either.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from pinchpoint.model.findings import Severity
from pinchpoint.model.sas import Enclosure, EnclosureElement

__all__ = [
    "ElementTrouble",
    "element_kind",
    "element_troubles",
    "elements_summary",
]

CRITICAL_STATUSES = frozenset({"critical", "unrecoverable"})
NONCRITICAL_STATUSES = frozenset({"noncritical"})
NOT_INSTALLED = "not installed"
ABSENT_STATUSES = frozenset({NOT_INSTALLED, "unsupported"})
# Element types whose peers stand in for each other.
REDUNDANT_TYPES = frozenset(
    {
        "power supply",
        "enclosure services controller electronics",
        "sas expander",
        "uninterruptible power supply",
    }
)
# Element types summarised per enclosure, with their plural, in this order.
SUMMARISED = (
    ("power supply", "power supply", "power supplies"),
    ("cooling", "fan", "fans"),
    ("temperature sensor", "temperature sensor", "temperature sensors"),
    ("enclosure services controller electronics", "I/O module", "I/O modules"),
    ("sas expander", "expander", "expanders"),
)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an element, and how bad it is."""

    severity: Severity
    what: str  # "reports Critical", "at 64 °C, over its 60 °C warning limit"


@dataclass(frozen=True)
class ElementTrouble:
    """An element and everything wrong with it, worst first."""

    element: EnclosureElement
    problems: tuple[Problem, ...]

    @property
    def severity(self) -> Severity:
        return max((p.severity for p in self.problems), key=lambda s: s.rank)

    @property
    def what(self) -> str:
        return "; ".join(p.what for p in self.problems)


def element_kind(element: EnclosureElement) -> str:
    """The element type as compared: lowercase, single spaces ("sas expander")."""
    return " ".join(element.element_type.lower().split())


def _status_problem(element: EnclosureElement) -> Problem | None:
    status = element.status.lower()
    if status in CRITICAL_STATUSES:
        return Problem(Severity.CRITICAL, f"reports {element.status}")
    if status in NONCRITICAL_STATUSES:
        return Problem(Severity.WARNING, f"reports {element.status}")
    return None


def _temperature_problem(element: EnclosureElement) -> Problem | None:
    """A reading at or past the sensor's own critical or warning limit (high or low)."""
    limits, reading = element.limits, element.temperature_c
    if limits is None or reading is None:
        return None
    for limit, severity, words, high in (
        (limits.high_critical, Severity.CRITICAL, "critical", True),
        (limits.high_warning, Severity.WARNING, "warning", True),
        (limits.low_critical, Severity.CRITICAL, "low critical", False),
        (limits.low_warning, Severity.WARNING, "low warning", False),
    ):
        if limit is None:
            continue
        if high and reading >= limit:
            return Problem(severity, f"at {reading:g} °C, over its {limit:g} °C {words} limit")
        if not high and reading < limit:
            return Problem(severity, f"at {reading:g} °C, under its {limit:g} °C {words} limit")
    return None


def _missing_problem(element: EnclosureElement, peers: list[EnclosureElement]) -> Problem | None:
    """Not installed while another element of its type is."""
    if element.status.lower() != NOT_INSTALLED or element_kind(element) not in REDUNDANT_TYPES:
        return None
    installed = [p for p in peers if p.status.lower() not in ABSENT_STATUSES]
    if not installed:
        return None
    return Problem(
        Severity.WARNING,
        f"is not installed; {len(installed)} of {len(peers)} {element.element_type} "
        "elements are installed",
    )


def element_troubles(enclosure: Enclosure) -> list[ElementTrouble]:
    """Every element of the enclosure in trouble, in the enclosure's element order."""
    if not enclosure.elements:
        return []
    by_type: dict[int, list[EnclosureElement]] = {}
    for element in enclosure.elements:
        by_type.setdefault(element.type_index, []).append(element)
    troubles = []
    for element in enclosure.elements:
        found = [
            p
            for p in (
                _status_problem(element),
                _temperature_problem(element),
                _missing_problem(element, by_type[element.type_index]),
            )
            if p is not None
        ]
        if found:
            troubles.append(ElementTrouble(element, tuple(found)))
    return troubles


def elements_summary(enclosure: Enclosure) -> str:
    """`2 power supplies, 4 fans, 2 temperature sensors 26–31 °C: all OK` or `…: 2 in trouble`,
    counting the elements installed; "elements not read" where the enclosure status page was
    not read."""
    if enclosure.elements is None:
        return "elements not read"
    counts = Counter(
        element_kind(e) for e in enclosure.elements if e.status.lower() not in ABSENT_STATUSES
    )
    parts = [
        f"{counts[kind]} {one if counts[kind] == 1 else many}"
        for kind, one, many in SUMMARISED
        if counts[kind]
    ]
    temperatures = [e.temperature_c for e in enclosure.elements if e.temperature_c is not None]
    if temperatures:
        low, high = min(temperatures), max(temperatures)
        span = f"{low:g} °C" if low == high else f"{low:g}–{high:g} °C"
        parts = [f"{p} {span}" if "temperature sensor" in p else p for p in parts]
    troubles = element_troubles(enclosure)
    verdict = "all OK" if not troubles else f"{len(troubles)} in trouble"
    return f"{', '.join(parts) or 'no elements'}: {verdict}"
