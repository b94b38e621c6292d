"""`fc.port.not_online`: an FC port whose state is not Online, so no path runs through it."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import fc_port_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """FC ports whose state is not Online: no path runs through them."""
    ports = context.inventory.fc.ports
    online = [p for p in ports if p.online]
    for port in ports:
        if port.online:
            continue
        ref = fc_port_ref(port)
        state = port.port_state or "unknown"
        yield Hit(
            entity=ref,
            title=f"FC port {port.scsi_host} is {state}, not Online",
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name}: port state {state}; {len(online)} of {len(ports)} FC "
                        f"ports of the host are Online"
                    ),
                    facts=[
                        Fact(name="port state", value=state),
                        Fact(name="negotiated speed", value=port.speed_text),
                        Fact(name="ports online", value=len(online)),
                        Fact(name="ports", value=len(ports)),
                    ],
                    peers=[fc_port_ref(p) for p in online],
                )
            ],
        )


RULE = Rule(
    id="fc.port.not_online",
    title="FC port not Online",
    severity=Severity.WARNING,
    needs=(Input.FC,),
    remediation=(
        "Check the port's cable and SFP, the switch port (enabled, zoned, not error-disabled) "
        "and the fabric login (`/sys/class/fc_host/hostN/port_state`); an unused port should be "
        "disabled or muted so that a lost path is noticed."
    ),
    judge=judge,
    doc=(
        "An FC port whose `port_state` is Linkdown, Offline, Blocked or Bypassed carries no "
        "path: every LUN seen through it has lost a path, and the host's bandwidth to the "
        "SAN is that of the ports left. Field case 2 shows what too little FC bandwidth does "
        "to latency."
    ),
)
