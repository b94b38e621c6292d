"""One judgement of an enclosure's SES elements for the rule, the terminal and the web view:
on the real Areca 8028 pages (folded as the collector folds them) and on elements built here."""

from __future__ import annotations

from ses_capture import stored

from pinchpoint.checks.collect.sas.enclosure_class import SesFacts
from pinchpoint.checks.collect.sas.ses_apply import SES_PAGES, SesPages, apply_pages, parse_page
from pinchpoint.model.findings import Severity
from pinchpoint.model.sas import ElementLimits, Enclosure, EnclosureElement
from pinchpoint.stats.enclosure_elements import element_troubles, elements_summary


def areca() -> Enclosure:
    pages = SesPages()
    for page in SES_PAGES:
        assert parse_page(pages, page, stored(page)) is None
    found = SesFacts(hctl="0:0:0:0")
    apply_pages(found, pages)
    return Enclosure(
        id="enclosure:0xd5b401503fc0ec16",
        logical_id="0xd5b401503fc0ec16",
        elements=found.elements,
        status_summary=found.status_summary,
    )


def test_the_areca_summary_counts_what_is_installed() -> None:
    box = areca()
    assert elements_summary(box) == "1 fan, 2 temperature sensors 49–66 °C, 1 expander: all OK"
    assert element_troubles(box) == []


def test_elements_not_read_say_so() -> None:
    box = areca()
    box.elements = None
    assert elements_summary(box) == "elements not read"
    assert element_troubles(box) == []


def sensor(reading: float, status: str = "OK") -> EnclosureElement:
    return EnclosureElement(
        element_type="Temperature sensor",
        type_index=3,
        index=0,
        status=status,
        temperature_c=reading,
        limits=ElementLimits(high_critical=70, high_warning=60, low_warning=5, low_critical=0),
    )


def test_a_temperature_against_its_own_limits() -> None:
    def judged(reading: float) -> tuple[Severity, str] | None:
        box = Enclosure(id="enclosure:0x1", logical_id="0x1", elements=[sensor(reading)])
        troubles = element_troubles(box)
        return (troubles[0].severity, troubles[0].what) if troubles else None

    assert judged(59.0) is None
    assert judged(60.0) == (Severity.WARNING, "at 60 °C, over its 60 °C warning limit")
    assert judged(70.0) == (Severity.CRITICAL, "at 70 °C, over its 70 °C critical limit")
    assert judged(4.0) == (Severity.WARNING, "at 4 °C, under its 5 °C low warning limit")
    assert judged(-1.0) == (Severity.CRITICAL, "at -1 °C, under its 0 °C low critical limit")


def test_status_and_reading_both_count_and_the_worst_wins() -> None:
    box = Enclosure(
        id="enclosure:0x1", logical_id="0x1", elements=[sensor(72.0, status="Noncritical")]
    )
    (trouble,) = element_troubles(box)
    assert trouble.severity is Severity.CRITICAL
    assert trouble.what == "reports Noncritical; at 72 °C, over its 70 °C critical limit"


def test_fans_not_installed_beside_a_running_one_are_no_trouble() -> None:
    fans = [
        EnclosureElement(element_type="Cooling", type_index=2, index=i, status=s)
        for i, s in enumerate(["OK", "Not installed", "Not installed"])
    ]
    box = Enclosure(id="enclosure:0x1", logical_id="0x1", elements=fans)
    assert element_troubles(box) == []
    assert elements_summary(box) == "1 fan: all OK"
