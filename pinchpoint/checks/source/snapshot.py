"""A snapshot captured earlier: a directory (or a tarball unpacked to a temporary one) holding
files at their host paths and command outputs under `commands/` (docs/snapshot-format.md)."""

from __future__ import annotations

import json
import os
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pinchpoint.checks.source.base import Source, SourceError
from pinchpoint.checks.source.commands import Command, CommandResult, CommandStatus
from pinchpoint.model.inventory import SourceKind
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.model.snapshot import SNAPSHOT_FORMAT, Manifest


class SnapshotSource(Source):
    """A captured snapshot directory: files at their host paths, command outputs under commands/."""

    kind = SourceKind.SNAPSHOT
    short_read_is_end = True  # regular files: one read() where the file fits, half the calls

    def __init__(
        self,
        root: str | Path,
        location: str | None = None,
        open_problems: list[CollectionProblem] | None = None,
    ) -> None:
        self.root = os.path.realpath(root)
        self.location = location or str(root)
        self.open_problems = open_problems or []

    def _real(self, path: str) -> str:
        return self.root + path

    def resolve(self, path: str) -> str:
        real = os.path.realpath(self._real(path))
        if real != self.root and not real.startswith(self.root + os.sep):
            raise SourceError(path, ProblemKind.UNREADABLE, "symlink points outside the snapshot")
        return real[len(self.root) :] or "/"

    def run(self, command: Command) -> CommandResult:
        try:
            text = self.read_text(f"/commands/{command.key}")
        except SourceError as err:
            if err.kind is ProblemKind.MISSING:
                return CommandResult(command, CommandStatus.NOT_COLLECTED)
            return CommandResult(command, CommandStatus.FAILED, detail=err.reason)
        return CommandResult(command, CommandStatus.OK, stdout=text, returncode=0)

    def manifest(self) -> Manifest | None:
        try:
            raw: Any = json.loads(self.read_text("/manifest.json"))
        except (SourceError, ValueError):
            return None
        if not isinstance(raw, dict) or raw.get("format") != SNAPSHOT_FORMAT:
            return None
        try:
            return Manifest.model_validate(raw)
        except ValueError:
            return None


def _snapshot_root(extracted: Path) -> Path:
    """The directory holding manifest.json: the archive root or its single top directory."""
    if (extracted / "manifest.json").exists():
        return extracted
    children = [c for c in extracted.iterdir() if c.is_dir()]
    if len(children) == 1 and (children[0] / "manifest.json").exists():
        return children[0]
    if len(children) == 1 and not (extracted / "sys").exists():
        return children[0]
    return extracted


def is_archive(path: str | Path) -> bool:
    name = str(path)
    return name.endswith((".tar.gz", ".tgz", ".tar", ".tar.xz", ".tar.bz2"))


@contextmanager
def open_snapshot(path: str | Path) -> Iterator[SnapshotSource]:
    """A snapshot from a directory or a tarball (extracted safely to a temporary directory)."""
    location = str(path)
    if os.path.isdir(path):
        yield SnapshotSource(path, location)
        return
    if not os.path.exists(path):
        raise FileNotFoundError(f"no snapshot at {path}")
    if not is_archive(path):
        raise ValueError(f"{path} is neither a snapshot directory nor a .tar.gz archive")
    with tempfile.TemporaryDirectory(prefix="pinchpoint-snapshot-") as tmp:
        refused: list[CollectionProblem] = []

        def safe_member(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
            # The "data" filter refuses absolute paths, links leaving the tree, devices and
            # setuid bits. A refused member is left out and reported; the rest is kept.
            try:
                return tarfile.data_filter(member, dest)
            except tarfile.FilterError as err:
                refused.append(
                    CollectionProblem(
                        part="snapshot",
                        subject=member.name,
                        kind=ProblemKind.UNREADABLE,
                        reason=f"archive member left out: {err}",
                    )
                )
                return None

        try:
            with tarfile.open(path) as archive:
                archive.extractall(tmp, filter=safe_member)
        except (tarfile.TarError, EOFError, OSError) as err:
            raise ValueError(f"{path}: not a readable snapshot archive: {err}") from None
        yield SnapshotSource(_snapshot_root(Path(tmp)), location, refused)
