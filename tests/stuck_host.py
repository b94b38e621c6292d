"""A live host under a temporary root whose reads can block for good, as a read of a sysfs
attribute does when its driver hangs: the attribute is a FIFO no one writes, read the blocking
way. Tests of sweep deadlines and probes use it as the target of a sweep."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pinchpoint.checks.source import LiveSource, Source

HOSTNAME = "/proc/sys/kernel/hostname"
OPERSTATE = "/sys/class/net/eth0/operstate"


class HungDriver(LiveSource):
    """A live host under `root` where reading `hung` blocks, as a read of a sysfs attribute
    whose driver hangs does: the file is a FIFO no one writes, opened and read the blocking
    way until a test writes it."""

    def __init__(self, root: Path, hung: str) -> None:
        super().__init__(str(root))
        self.hung = hung

    def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        if path == self.hung:
            with open(self._real(path), "rb") as fifo:
                return fifo.read()
        return super().read_bytes(path, limit)


class LiveRoot:
    """The target of a sweep: a live host under `root` (no live statistics of this machine)."""

    source_kind = None
    live = False

    def __init__(self, root: Path, hung: str | None = None) -> None:
        self.root = root
        self.hung = hung

    @contextmanager
    def source(self) -> Iterator[Source]:
        if self.hung is None:
            yield LiveSource(str(self.root))
        else:
            yield HungDriver(self.root, self.hung)


def host_root(root: Path, *, fifo: str | None = None) -> Path:
    """A tiny host: a name and one NIC; `fifo` (a host path) is a FIFO instead of a file."""
    for path, text in ((HOSTNAME, "stuck-host\n"), (OPERSTATE, "up\n")):
        real = root / path.lstrip("/")
        real.parent.mkdir(parents=True, exist_ok=True)
        if path == fifo:
            os.mkfifo(real)
        else:
            real.write_text(text)
    return root


def release(fifo: Path) -> bool:
    """Write the FIFO so that a read blocked on it returns; False when no one reads it."""
    try:
        descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as err:
        if err.errno == errno.ENXIO:
            return False
        raise
    os.write(descriptor, b"up\n")
    os.close(descriptor)
    return True
