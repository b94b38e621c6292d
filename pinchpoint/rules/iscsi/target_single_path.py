"""`iscsi.target.single_path`: an iSCSI LUN (by WWID, across every target and portal that
presents it) reached through fewer than two logged-in sessions, or all through one interface."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.iscsi import DEVICE_UP, IscsiDevice, IscsiSession
from pinchpoint.naming import iscsi_lun_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold


@dataclass(frozen=True)
class _Path:
    session: IscsiSession
    device: IscsiDevice

    @property
    def live(self) -> bool:
        """Logged in, and the SCSI device (where its state was read) running."""
        return self.session.logged_in and (
            self.device.state is None or self.device.state in DEVICE_UP
        )

    def words(self) -> str:
        """`session806 (sdc, 14:0:0:1) to 10.8.100.6:3260 from local address 10.8.100.20:
        FREE`."""
        s, d = self.session, self.device
        dev = f"{d.block_device}, {d.hctl}" if d.block_device else d.hctl
        route = f" to {s.portal}" if s.portal else ""
        route += f" from {s.interface}" if s.interface else ""
        states = " ".join(x for x in (s.state or "state unknown", d.state) if x)
        return f"{s.name} ({dev}){route}: {states}"


def _luns(sessions: list[IscsiSession]) -> dict[str, list[_Path]]:
    """Every LUN by its WWID (else its target and number) with the sessions presenting it."""
    found: dict[str, list[_Path]] = {}
    for session in sessions:
        for device in session.devices:
            key = device.wwid or f"{session.target or session.name}/lun{device.lun}"
            found.setdefault(key, []).append(_Path(session, device))
    return found


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs with fewer than two logged-in sessions, or all through one interface."""
    for key, paths in _luns(context.inventory.iscsi.sessions).items():
        targets = sorted({p.session.target for p in paths if p.session.target})
        ref = iscsi_lun_ref(key, paths[0].device.lun, targets)
        live = [p for p in paths if p.live]
        down = [p for p in paths if not p.live]
        interfaces = {p.session.interface for p in live}
        minimum = limits.number("min_sessions", ref.id)
        reasons: list[str] = []
        if len(live) < minimum:
            count = f"{len(live)} live session{'' if len(live) == 1 else 's'}"
            title = f"{ref.name} has {count if live else 'no live session'}"
            reasons.append(
                f"{len(live)} of {len(paths)} sessions presenting it logged in where "
                f"{minimum:g} are expected: "
                + ("losing it, or its interface, loses the LUN" if live else "its I/O fails")
            )
        elif len(live) >= 2 and None not in interfaces and len(interfaces) == 1:
            (interface,) = interfaces
            title = f"all {len(live)} sessions of {ref.name} leave through one interface"
            reasons.append(f"every live session leaves through {interface}: one NIC, one cable")
        else:
            continue
        if down:
            reasons.append("down: " + "; ".join(p.words() for p in down))
        facts = [
            Fact(name="sessions", value=len(paths)),
            Fact(name="live sessions", value=len(live)),
            Fact(name="live sessions expected", value=minimum),
            Fact(name="interfaces of live sessions", value=len({i for i in interfaces if i})),
            Fact(name="targets", value=len(targets)),
        ]
        facts += [Fact(name="session", value=p.words()) for p in paths]
        yield Hit(
            entity=ref,
            title=title,
            severity=Severity.WARNING,
            evidence=[Evidence(summary=f"{ref.name}: " + "; ".join(reasons), facts=facts)],
        )


RULE = Rule(
    id="iscsi.target.single_path",
    title="iSCSI LUN with a single session",
    severity=Severity.WARNING,
    needs=(Input.ISCSI,),
    remediation=(
        "`iscsiadm -m session -P 3` lists each session with its portal, interface and disks. "
        "Log in to the LUN's target through a second portal of the array from a second "
        "interface: bind an iface to each NIC (`iscsiadm -m iface -I iface1 -o new; iscsiadm "
        "-m iface -I iface1 -o update -n iface.net_ifacename -v <NIC>`), discover through it "
        "(`iscsiadm -m discovery -t st -p <portal> -I iface1`) and log in (`iscsiadm -m node "
        "-l`); set `node.startup = automatic` so it returns after a reboot, and put the LUN "
        "under dm-multipath. A session FAILED or FREE: check the network path to its portal "
        "and the array port, then `iscsiadm -m session -r <SID> --rescan`."
    ),
    judge=judge,
    doc=(
        "An iSCSI LUN is counted by its WWID (`device/wwid` of each SCSI device below the "
        "sessions in `/sys/class/iscsi_session`) across every target IQN and portal that "
        "presents it, since some arrays give each port its own IQN. A session is live when "
        "the kernel says LOGGED_IN and its SCSI device is running. A LUN with fewer than two "
        "live sessions, or whose live sessions all leave through one interface (the iface's "
        "bound net device, else the session's local address), has a single point of failure."
    ),
    thresholds={
        "min_sessions": Threshold(2, "Live sessions a LUN should have.", "sessions"),
    },
)
