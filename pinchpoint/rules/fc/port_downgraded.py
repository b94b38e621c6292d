"""`fc.port.downgraded`: an online FC port running below its own fastest rate or below
identical ports of the same host."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.fc import FcPort
from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import fc_port_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.units import gbps_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Online FC ports running below their own fastest rate or below identical peers."""
    ports = [p for p in context.inventory.fc.ports if p.online and p.speed_gbps]
    for port in ports:
        speed = port.speed_gbps
        assert speed is not None  # filtered above
        best = port.max_supported_gbps
        peers = [
            p
            for p in ports
            if p is not port
            and p.driver == port.driver
            and _model(p) == _model(port)
            and p.supported_speeds_gbps == port.supported_speeds_gbps
        ]
        faster = [p for p in peers if (p.speed_gbps or 0) > speed]
        below_own = best is not None and speed < best
        if not below_own and not faster:
            continue
        ref = fc_port_ref(port)
        facts = [
            Fact(name="negotiated speed", value=speed, unit="Gb/s"),
            Fact(name="supported speeds", value=port.supported_speeds_text),
        ]
        if below_own:
            summary = (
                f"{ref.name} negotiated {gbps_text(speed)} but supports {gbps_text(best)}: "
                "a damaged cable, a dirty or slower SFP, or a switch port set lower"
            )
        else:
            summary = f"{ref.name} negotiated {gbps_text(speed)} where identical ports run faster"
        facts += [
            Fact(name="peer speed", value=p.speed_gbps, unit="Gb/s", entity=fc_port_ref(p))
            for p in faster
        ]
        yield Hit(
            entity=ref,
            title=f"FC port {port.scsi_host} at {gbps_text(speed)}"
            + (f" of {gbps_text(best)}" if below_own and best is not None else ""),
            evidence=[
                Evidence(
                    summary=summary,
                    facts=facts,
                    peers=[fc_port_ref(p) for p in peers],
                )
            ],
        )


def _model(port: FcPort) -> str | None:
    return port.symbolic_name.model if port.symbolic_name else None


RULE = Rule(
    id="fc.port.downgraded",
    title="FC port running below its supported speed or its peers",
    severity=Severity.WARNING,
    needs=(Input.FC,),
    remediation=(
        "Compare the switch port's configured speed with the HBA's; replace the cable and "
        "clean or replace the SFPs at both ends (an 8G SFP in a 16G port negotiates 8G); then "
        "reset the link (`echo 1 > /sys/class/fc_host/hostN/issue_lip`) and check the speed."
    ),
    judge=judge,
    doc=(
        "An FC port negotiates the fastest rate both ends and the cable allow. A port below "
        "its own fastest supported rate, or below identical ports of the same host, points "
        "at a cable, an SFP or a switch setting (field case 3 found the same on a NIC). A "
        "port at its own maximum, like the real Emulex SN1100E2P at 16 of 4/8/16 Gbit, is "
        "not downgraded."
    ),
)
