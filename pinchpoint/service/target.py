"""The host a service sweeps: this machine, the bundled demo host, or a captured snapshot."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pinchpoint.checks.collect.sas.presence import has_sas_hba
from pinchpoint.checks.source import LiveSource, Source
from pinchpoint.checks.source.choose import (
    demo_snapshot,
    open_source,
    simulate_demo,
)
from pinchpoint.checks.source.scratch import Scratch
from pinchpoint.model.inventory import SourceKind
from pinchpoint.service.settings import ServiceSettings, TargetKind


class HostTarget:
    """Where each sweep reads from. The demo host is simulated once, when the service starts,
    into a scratch directory that lives as long as the service."""

    def __init__(self, kind: TargetKind, snapshot: Path | None = None) -> None:
        if kind is TargetKind.SNAPSHOT and snapshot is None:
            raise ValueError("a snapshot target needs the snapshot's path")
        self.kind = kind
        self.snapshot = snapshot
        self._scratch: Scratch | None = None

    @classmethod
    def from_settings(cls, settings: ServiceSettings) -> HostTarget:
        """The target the settings name; the demo when asked to fall back from a SAS-less host."""
        if (
            settings.target is TargetKind.LIVE
            and settings.demo_if_no_sas
            and not has_sas_hba(LiveSource())
        ):
            return cls(TargetKind.DEMO)
        return cls(settings.target, settings.snapshot)

    def open(self) -> None:
        """Prepare the source (simulate the demo host); idempotent."""
        if self.kind is not TargetKind.DEMO or self._scratch is not None:
            return
        self._scratch = simulate_demo()
        self.snapshot = demo_snapshot(self._scratch)

    def close(self) -> None:
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    @property
    def live(self) -> bool:
        return self.kind is TargetKind.LIVE

    @property
    def source_kind(self) -> SourceKind | None:
        """What the inventory records as its source (None: what the source says itself)."""
        return SourceKind.DEMO if self.kind is TargetKind.DEMO else None

    @property
    def label(self) -> str:
        """How pages and logs name the target."""
        if self.kind is TargetKind.DEMO:
            return "demo host (simulated: field case 1, two single-pathed JBODs; a failed PSU)"
        if self.kind is TargetKind.SNAPSHOT:
            return f"snapshot {self.snapshot}"
        return "this host"

    def locate_refusal(self) -> str | None:
        """Why locate LEDs cannot be switched here, or None when they can."""
        if self.kind is TargetKind.DEMO:
            return "the demo host is simulated: it has no LEDs to light"
        if self.kind is TargetKind.SNAPSHOT:
            return "a snapshot is a record of another moment: its LEDs cannot be lit from here"
        return None

    @contextmanager
    def source(self) -> Iterator[Source]:
        """A source to read the host through, for one sweep."""
        if self.kind is not TargetKind.LIVE:
            self.open()
            assert self.snapshot is not None
        with open_source(self.snapshot) as (source, _kind):
            yield source
