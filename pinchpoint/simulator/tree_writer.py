"""A fast writer of directories, small files and relative symlinks below one root.

Tens of thousands of sysfs attributes are written per snapshot, so this avoids per-file
overhead: raw `os.open`/`os.write`, each directory created once, no pathlib. With `share`,
files of identical content become hard links to one inode: far cheaper where creating an
inode is slow, but then a file edited in place changes every file sharing its inode.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC


def relative_link(target: str, link: str) -> str:
    """The relative path the kernel writes for a link at `link` to `target`.

    As kernfs does: climb from the link's directory to the nearest ancestor of the target's
    parent, then name the path down to the target, so a link to an ancestor still ends with
    that ancestor's name (`../../../phy-1:0`, never `../..`).
    """
    base = link.split("/")[:-1]
    parts = target.split("/")
    common = 0
    for a, b in zip(base, parts[:-1], strict=False):
        if a != b:
            break
        common += 1
    return "../" * (len(base) - common) + "/".join(parts[common:])


class TreeWriter:
    """Writes below `root`; every path given is relative to it, with `/` separators."""

    def __init__(self, root: str, share: bool = False) -> None:
        self.root = root
        self._dirs: set[str] = {""}
        self._share = share
        self._first: dict[bytes, str] = {}  # content -> first file holding it (when sharing)

    def mkdir(self, path: str) -> None:
        """Create `path` and any missing parents."""
        if path in self._dirs:
            return
        parent = path.rpartition("/")[0]
        if parent not in self._dirs:
            self.mkdir(parent)
        os.mkdir(f"{self.root}/{path}")
        self._dirs.add(path)

    def write(self, path: str, data: bytes) -> None:
        """A file holding exactly `data`; its directory must have been made with `mkdir`."""
        self._file(f"{self.root}/{path}", data)

    def _file(self, full: str, data: bytes) -> None:
        """Create one file (or, sharing, link it to the first of equal content)."""
        if self._share:
            first = self._first.get(data)
            if first is not None:
                os.link(first, full)
                return
            self._first[data] = full
        fd = os.open(full, _FLAGS, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def attrs(self, directory: str, values: Mapping[str, str]) -> None:
        """sysfs attributes: each value followed by a newline, as the kernel prints them."""
        self.mkdir(directory)
        prefix = f"{self.root}/{directory}/"
        if self._share:
            for name, value in values.items():
                self._file(prefix + name, f"{value}\n".encode())
            return
        for name, value in values.items():
            fd = os.open(prefix + name, _FLAGS, 0o644)
            try:
                os.write(fd, f"{value}\n".encode())
            finally:
                os.close(fd)

    def link(self, path: str, target: str) -> None:
        """A relative symlink at `path` pointing at `target` (a path below the same root)."""
        parent = path.rpartition("/")[0]
        self.mkdir(parent)
        os.symlink(relative_link(target, path), f"{self.root}/{path}")
