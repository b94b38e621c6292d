"""The live host, writing everything read into a snapshot directory (what `capture` uses)."""

from __future__ import annotations

import itertools
import os
import posixpath
from pathlib import Path

from pinchpoint.checks.source.commands import Command, CommandResult, CommandStatus
from pinchpoint.checks.source.live import LiveSource


class RecordingSource(LiveSource):
    """The live host, writing everything read into a snapshot directory (what `capture` uses)."""

    def __init__(self, out_dir: str | Path, root: str = "/") -> None:
        super().__init__(root)
        self.out = os.path.realpath(out_dir)

    def _out(self, path: str) -> str:
        return self.out + path

    def _record_link(self, path: str, target: str, resolved_parent: bool = False) -> None:
        """Keep the link at `path` in the snapshot, with a target that cannot leave it. A
        relative target in plain form (`../` steps, then names, as the kernel writes sysfs
        links) that stays below the host's root from the link's resolved directory is kept as
        it is. Any other target (absolute, `..` after a name, or climbing past the root, where
        the kernel stays at `/`) is rewritten to climb to the snapshot's root and go down to
        the host path the kernel resolves it to. So an archive of the snapshot passes the
        extractor's link checks, and every link names what it named on the host."""
        parent = posixpath.dirname(path)
        if not resolved_parent:
            parent = self.resolve(parent)
        joined = target if target.startswith("/") else f"{parent}/{target}"
        host_parts: list[str] = []
        clamped = False
        for part in joined.split("/"):
            if part == "..":
                if host_parts:
                    host_parts.pop()
                else:
                    clamped = True  # `..` at the root stays there
            elif part not in ("", "."):
                host_parts.append(part)
        parts = [p for p in target.split("/") if p not in ("", ".")]
        climbs = len(parts) - len(list(itertools.dropwhile(lambda p: p == "..", parts)))
        plain = not (target.startswith("/") or clamped or ".." in parts[climbs:])
        written = target
        if not plain:
            up = len([p for p in parent.split("/") if p])
            written = "/".join([".."] * up + host_parts) or "."
        dest = self._out(posixpath.join(parent, posixpath.basename(path)))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if not os.path.lexists(dest):
            os.symlink(written, dest)

    def _record_dir(self, path: str) -> None:
        os.makedirs(self._out(path), exist_ok=True)

    def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        data = super().read_bytes(path, limit)
        real_path = self.resolve(path)
        dest = self._out(real_path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as handle:
            handle.write(data)
        return data

    def list_dir(self, path: str) -> list[str]:
        names = super().list_dir(path)
        base = self.resolve(path)
        self._record_dir(base)
        for name in names:
            child = posixpath.join(base, name)
            real = self._real(child)
            if os.path.islink(real):
                self._record_link(child, os.readlink(real), resolved_parent=True)
            elif os.path.isdir(real):
                self._record_dir(child)
        return names

    def read_link(self, path: str) -> str:
        target = super().read_link(path)
        self._record_link(path, target)
        return target

    def is_dir(self, path: str) -> bool:
        found = super().is_dir(path)
        if found:
            self._record_dir(self.resolve(path))
        return found

    def resolve(self, path: str) -> str:
        """Follow links one component at a time, recording each link met."""
        current = "/"
        for part in [p for p in path.split("/") if p]:
            candidate = posixpath.join(current, part)
            real = self._real(candidate)
            if os.path.islink(real):
                target = os.readlink(real)
                self._record_link(candidate, target, resolved_parent=True)
                joined = target if os.path.isabs(target) else posixpath.join(current, target)
                current = self.resolve(posixpath.normpath(joined))
            elif part == "..":
                current = posixpath.dirname(current)
            else:
                current = candidate
        return current

    def run(self, command: Command) -> CommandResult:
        result = super().run(command)
        # Keep whatever the tool printed: smartctl exits non-zero with a full report whenever
        # a log holds errors, and its JSON carries that status itself.
        if result.ok or (result.status is CommandStatus.FAILED and result.stdout.strip()):
            dest = Path(self.out, "commands", command.key)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(result.stdout, encoding="utf-8")
        return result
