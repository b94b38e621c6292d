"""`pcie.link.downgraded`: a card whose link trained below the speed or width both the card and
its slot support (field case 3's lesson, for PCIe)."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.pcie import PcieLink
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.rules.pcie.cards import card_ref, cards, link_gbps, link_words


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Cards whose link trained below the speed or width both the card and its slot support."""
    inventory = context.inventory
    for card in cards(inventory):
        first = card[0]
        link, slot = first.link, first.upstream_link
        if not link.current_width or not link.current_speed_gts:
            continue  # link down or not reported: nothing trained to judge
        speed, width = _expected(link, slot)
        narrow = width is not None and link.current_width < width
        slow = speed is not None and link.current_speed_gts < speed
        if not (narrow or slow):
            continue
        ref = card_ref(card, inventory)
        slot_words = (
            f"its slot ({first.upstream_port}) supports "
            f"{link_words(slot.max_speed_gts, slot.max_width)}"
            if slot is not None and first.upstream_port
            else "the slot's capability is not known"
        )
        if narrow:
            cause = (
                "fewer lanes than both ends support: a card not fully seated, a damaged "
                "riser or slot, or a lane fault"
            )
            severity = None
        else:
            cause = (
                "only the speed is lower: many devices lower their link speed when idle "
                "(autonomous speed change for power saving); check again under load"
            )
            severity = Severity.INFO
        current = link_gbps(link.current_speed_gts, link.current_width)
        best = link_gbps(speed, width)
        yield Hit(
            entity=ref,
            title=(
                f"{ref.name} runs at {link_words(link.current_speed_gts, link.current_width)} "
                f"of {link_words(speed, width)}"
            ),
            severity=severity,
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name}: link trained at "
                        f"{link_words(link.current_speed_gts, link.current_width)}, the card "
                        f"supports {link_words(link.max_speed_gts, link.max_width)} and "
                        f"{slot_words}; {cause}"
                    ),
                    facts=[
                        Fact(name="current speed", value=link.current_speed_gts, unit="GT/s"),
                        Fact(name="current width", value=link.current_width, unit="lanes"),
                        Fact(name="card's maximum speed", value=link.max_speed_gts, unit="GT/s"),
                        Fact(name="card's maximum width", value=link.max_width, unit="lanes"),
                        Fact(
                            name="slot's maximum speed",
                            value=slot.max_speed_gts if slot else None,
                            unit="GT/s",
                        ),
                        Fact(
                            name="slot's maximum width",
                            value=slot.max_width if slot else None,
                            unit="lanes",
                        ),
                        Fact(name="data rate now", value=round(current or 0, 1), unit="Gb/s"),
                        Fact(
                            name="data rate both ends support",
                            value=round(best or 0, 1),
                            unit="Gb/s",
                        ),
                    ],
                )
            ],
        )


def _expected(link: PcieLink, slot: PcieLink | None) -> tuple[float | None, int | None]:
    """The speed and width both the card and its slot support (the card's own where the slot's
    capability is unknown)."""
    speed, width = link.max_speed_gts, link.max_width
    if slot is not None:
        if speed and slot.max_speed_gts:
            speed = min(speed, slot.max_speed_gts)
        if width and slot.max_width:
            width = min(width, slot.max_width)
    return speed, width


RULE = Rule(
    id="pcie.link.downgraded",
    title="PCIe card running below the link speed or width it and its slot support",
    severity=Severity.WARNING,
    needs=(Input.PCIE,),
    role=Role.CAUSE,
    remediation=(
        "Power down, reseat the card (and its riser) and clean the contacts; if it trains narrow "
        "again, move it to another slot of that width. Check the BIOS slot settings (link speed "
        "forced to a lower generation, lane bifurcation). Confirm with `lspci -vv -s ADDRESS` "
        "(LnkCap against LnkSta)."
    ),
    judge=judge,
    doc=(
        "Field case 3's lesson holds for PCIe: compare what a link negotiated with what it "
        "could do (a x8 card running x4 has half its bandwidth). The link is judged against "
        "what both ends support: the card's `max_link_speed`/`max_link_width` and those of the "
        "bridge port above it (the slot). A Gen4 drive in a Gen3 slot, or a x8 card in a slot "
        "wired x4, runs as the platform allows and is not a downgrade here (the slot limit "
        "shows in `pcie.slot.oversubscribed` when it costs bandwidth).\n\n"
        "A width below both ends is a fault (seating, riser, lane): warning. A speed below "
        "with the full width is often power management — devices may lower their link speed "
        "autonomously when idle — so it is reported as `info`, to be checked under load. "
        "Storage and network functions only; SR-IOV virtual functions share their parent's link."
    ),
)
