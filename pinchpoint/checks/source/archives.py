"""Snapshot archives uploaded to the service (`POST /v1/snapshots`): checked whole, then unpacked.

An archive is what `pinchpoint capture --tar` writes: a gzip-compressed tar holding one top
directory with `manifest.json` and the host's files at their host paths, including the many
relative symlinks of a sysfs capture (`sys/block/sda -> ../devices/…`), which must be kept.
(A tar holding the snapshot's files at its top, manifest included, is accepted too.)

Nothing is written until the whole archive has been read once and every member passed:

* sizes: the upload, each member, the unpacked total, the member count, and the ratio of
  unpacked to packed bytes (a zip bomb) — counted on the decompressed stream itself, and a tar
  header may not be larger than `HEADER_ALLOWANCE` (a PAX header is read into memory whole);
* names: no absolute path, no `..`, no duplicate, nothing below a symlink or a file, every
  member inside the snapshot directory;
* types: regular files, directories, symlinks and hard links only — no devices, FIFOs or
  sparse files;
* links: a symlink's target, followed through every other symlink of the archive as the
  kernel would follow it, must stay inside the snapshot directory; a hard link must name a
  regular file that came before it, inside the snapshot directory;
* a `manifest.json` that is a pinchpoint snapshot manifest.

Then a second pass writes each member the first pass accepted itself (`_Writer`), its data
read from the offset the first pass found it at (no header is parsed again): by directory
descriptors opened with O_NOFOLLOW, files created with O_EXCL | O_NOFOLLOW, never
`extractall`, so no member can be written through a link whatever the interpreter's tarfile
does (CVE-2025-4517 and its siblings are unfixed in Python 3.11.7), with the attribute policy
of tarfile's `data` filter (no owners, no setuid bits, sane modes). The CLI
(`--snapshot x.tar.gz`) and the service unpack through the same function.
A rejection raises `ArchiveRejected` with the HTTP status to answer (413 too large, 400 not a
readable gzip tar, 422 readable but refused) and a reason naming the member.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import json
import lzma
import os
import posixpath
import shutil
import tarfile
import zlib
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field, ValidationError

from pinchpoint.model.snapshot import SNAPSHOT_FORMAT, Manifest

MIB = 1024 * 1024
GIB = 1024 * MIB
MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 1 * MIB
HEADER_ALLOWANCE = 64 * 1024  # tar headers (PAX included) read between two members' data
RATIO_FLOOR_BYTES = 1 * MIB  # below this much unpacked, a high ratio is harmless (headers)
MAX_LINK_HOPS = 40  # the kernel's limit on symlinks followed in one lookup
MAX_NAME_COMPONENT_BYTES = 255
MAX_NAME_BYTES = 4095  # a member's whole path, PATH_MAX less its terminating NUL
COPY_CHUNK = 1 * MIB

TOO_LARGE = 413
MALFORMED = 400
REFUSED = 422


class ArchiveLimits(BaseModel):
    """How much one upload may hold."""

    max_bytes: int = Field(default=256 * MIB, gt=0)  # the compressed upload
    max_unpacked_bytes: int = Field(default=2 * GIB, gt=0)
    # The simulated 1,920-path host's snapshot holds 223,034 members (126,221 files, 49,309
    # symlinks, 47,504 directories): room for a host twice its size.
    max_members: int = Field(default=500_000, gt=0)
    max_member_bytes: int = Field(default=256 * MIB, gt=0)
    max_ratio: float = Field(default=200.0, gt=0)  # unpacked bytes / packed bytes


class ArchiveRejected(ValueError):  # noqa: N818 (the name the service's API code uses)
    """The archive was refused: `status` is the HTTP status to answer, `reason` says why in
    words the uploader acts on, `member` names the archive member at fault. A `ValueError`, so
    the CLI says it in one line with exit 2 as it does for any snapshot it cannot open."""

    def __init__(self, reason: str, status: int = REFUSED, member: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.member = member
        self.unpacked_bytes: int | None = None  # how far the decompressed stream was read


@dataclass(frozen=True, slots=True)
class _Entry:
    """What the first pass saw of one member; the second pass must see the same."""

    name: str  # normalised
    type: bytes
    size: int
    linkname: str


def _refuse(member: str, why: str, status: int = REFUSED) -> ArchiveRejected:
    return ArchiveRejected(f"member {member!r}: {why}", status, member)


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class _MeteredStream:
    """The decompressed tar stream, counted: too much in all, too much per packed byte, or too
    much read for headers between two members' data ends the read at once."""

    def __init__(self, raw: _Readable, packed_bytes: int, limits: ArchiveLimits) -> None:
        self._raw = raw
        self._packed = max(packed_bytes, 1)
        self._limits = limits
        self.total = 0
        self.allowed_until = HEADER_ALLOWANCE  # where the current member's data (and the
        # headers after it) must end in the stream; moved on as each member is seen

    def read(self, size: int = -1) -> bytes:
        try:
            data = self._raw.read(size)
        except OSError as err:
            if type(err) is not OSError:  # gzip's BadGzipFile and the like: said by `_readable`
                raise
            # bz2 says "Invalid data stream" with a bare OSError
            raise ArchiveRejected(f"corrupt compressed data ({err})", MALFORMED) from None
        self.total += len(data)
        limits = self._limits
        if self.total > limits.max_unpacked_bytes:
            raise self._stop(f"unpacks to more than {limits.max_unpacked_bytes:,} bytes", TOO_LARGE)
        if self.total > RATIO_FLOOR_BYTES and self.total > limits.max_ratio * self._packed:
            raise self._stop(
                f"unpacks to more than {limits.max_ratio:g} times its packed size "
                f"({self._packed:,} bytes): refused as a decompression bomb",
                TOO_LARGE,
            )
        if self.total > self.allowed_until:
            raise ArchiveRejected(
                f"a tar header is larger than {HEADER_ALLOWANCE:,} bytes", REFUSED
            )
        return data

    def _stop(self, reason: str, status: int) -> ArchiveRejected:
        """The refusal that ends the read here, saying how far it got."""
        error = ArchiveRejected(reason, status)
        error.unpacked_bytes = self.total
        return error

    def expect_member(self, member: tarfile.TarInfo) -> None:
        """Allow the stream to run to the end of `member`'s data and the next headers."""
        end = member.offset_data + _blocks(member.size) if member.isreg() else member.offset_data
        self.allowed_until = end + HEADER_ALLOWANCE


def _blocks(size: int) -> int:
    return -(-size // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE


def _tar_stream(stream: _MeteredStream) -> tarfile.TarFile:
    """A tar read once, in order, from `stream`; compression inside is not looked for."""
    try:
        return tarfile.open(fileobj=stream, mode="r|")  # type: ignore[call-overload,no-any-return]
    except tarfile.ReadError as err:
        if "empty file" in str(err):
            raise ArchiveRejected("the archive is empty: it holds no member") from None
        raise ArchiveRejected(
            f"not a tar archive inside the gzip compression ({err})", MALFORMED
        ) from None


@contextmanager
def _open_tar(
    archive: Path, limits: ArchiveLimits, compression: str = "gz"
) -> Iterator[tuple[tarfile.TarFile, _MeteredStream]]:
    """The archive as a tar stream over its metered decompressed bytes."""
    packed = archive.stat().st_size
    with archive.open("rb") as raw:
        unpacked: Any
        if compression == "gz":
            unpacked = gzip.GzipFile(fileobj=raw, mode="rb")
        elif compression == "xz":
            unpacked = lzma.LZMAFile(raw, mode="rb")  # noqa: SIM115 (closed by the `with` below)
        elif compression == "bz2":
            unpacked = bz2.BZ2File(raw, mode="rb")
        else:
            unpacked = raw
        with unpacked:
            stream = _MeteredStream(unpacked, packed, limits)
            with _tar_stream(stream) as tar:
                yield tar, stream


@contextmanager
def _readable(archive_name: str) -> Iterator[None]:
    """Turn what gzip, zlib and tarfile raise on broken input into a 400 that says so."""
    try:
        yield
    except EOFError:
        raise ArchiveRejected(
            f"{archive_name} is truncated: the compressed data ends early", MALFORMED
        ) from None
    except (gzip.BadGzipFile, zlib.error) as err:
        raise ArchiveRejected(f"{archive_name}: corrupt gzip data ({err})", MALFORMED) from None
    except lzma.LZMAError as err:
        raise ArchiveRejected(f"{archive_name}: corrupt xz data ({err})", MALFORMED) from None
    except tarfile.ReadError as err:
        raise ArchiveRejected(f"{archive_name} is truncated or corrupt: {err}", MALFORMED) from None


def _normalise(name: str) -> str:
    """The member's path as the rest of the checks use it; refuses absolute paths and `..`."""
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise _refuse(name, "absolute path")
    if "\\" in name:
        raise _refuse(name, "backslash in the path")
    if len(name) > MAX_NAME_BYTES // 4 and len(name.encode("utf-8", "surrogateescape")) > (
        MAX_NAME_BYTES
    ):
        raise _refuse(name[:200] + "…", f"a path longer than {MAX_NAME_BYTES:,} bytes")
    parts = name.split("/")
    if "" in parts or "." in parts:
        parts = [p for p in parts if p not in ("", ".")]
    if ".." in parts:
        raise _refuse(name, "path leaves its directory (..)")
    # 255 bytes a component: a character is at most 4 bytes, so only long ones need encoding.
    if parts and max(map(len, parts)) * 4 > MAX_NAME_COMPONENT_BYTES:
        for part in parts:
            if len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_COMPONENT_BYTES:
                raise _refuse(name, "a path component is longer than 255 bytes")
    return "/".join(parts) or "."


def _member_type(member: tarfile.TarInfo) -> None:
    if member.issparse():
        raise _refuse(member.name, "sparse files are not accepted")
    if member.ischr() or member.isblk():
        raise _refuse(member.name, "device files are not accepted")
    if member.isfifo():
        raise _refuse(member.name, "FIFOs are not accepted")
    if not (member.isreg() or member.isdir() or member.issym() or member.islnk()):
        raise _refuse(member.name, f"member type {member.type!r} is not accepted")


def _resolve(path: str, links: dict[str, str]) -> str | None:
    """`path` with every symlink of the archive followed as the kernel would (`..` after a
    link goes up from where the link leads); None when it climbs above the archive's top."""
    todo = deque(p for p in path.split("/"))
    done: list[str] = []
    hops = 0
    while todo:
        part = todo.popleft()
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                return None
            done.pop()
            continue
        target = links.get("/".join([*done, part]))
        if target is None:
            done.append(part)
            continue
        hops += 1
        if hops > MAX_LINK_HOPS or target.startswith("/"):
            return None
        todo.extendleft(reversed(target.split("/")))
    return "/".join(done)


def _inside(path: str, root: str) -> bool:
    return root == "" or path == root or path.startswith(root + "/")


def _snapshot_root(entries: dict[str, _Entry]) -> str:
    """The directory holding the manifest: the archive's top, or its single top directory."""
    if MANIFEST in entries:
        root = ""
    else:
        tops = {name.split("/", 1)[0] for name in entries if name != "."}
        found = sorted(t for t in tops if f"{t}/{MANIFEST}" in entries)
        if not found:
            raise ArchiveRejected(
                f"no snapshot manifest: {MANIFEST} is neither at the archive's top nor in a "
                "top directory (is this a `pinchpoint capture --tar` archive?)"
            )
        if len(found) > 1:
            raise ArchiveRejected(f"more than one snapshot in the archive: {', '.join(found)}")
        root = found[0]
        for name in entries:
            if name != "." and not _inside(name, root):
                raise _refuse(name, f"lies outside the snapshot directory {root!r}")
    manifest = entries[posixpath.join(root, MANIFEST)]
    if manifest.type not in (tarfile.REGTYPE, tarfile.AREGTYPE):
        raise _refuse(manifest.name, "the manifest must be a regular file")
    return root


def _check_manifest(name: str, data: bytes) -> None:
    try:
        raw = json.loads(data)
    except (ValueError, UnicodeDecodeError) as err:
        raise _refuse(name, f"not JSON: {err}") from None
    if not isinstance(raw, dict) or raw.get("format") != SNAPSHOT_FORMAT:
        raise _refuse(name, f"not a pinchpoint snapshot manifest (format {SNAPSHOT_FORMAT!r})")
    try:
        Manifest.model_validate(raw)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors()
        )
        raise _refuse(name, f"invalid snapshot manifest: {problems}") from None


def _survey(
    archive: Path, limits: ArchiveLimits, compression: str = "gz"
) -> tuple[list[tarfile.TarInfo], str]:
    """First pass: read every header (and the manifest), refuse on the first problem; returns
    the members as read (the second pass extracts these, without reading headers again)."""
    entries: dict[str, _Entry] = {}
    order: list[_Entry] = []
    members: list[tarfile.TarInfo] = []
    manifests: dict[str, bytes] = {}
    total = 0
    data_end = 0
    with _readable(archive.name), _open_tar(archive, limits, compression) as (tar, stream):
        for member in tar:
            stream.expect_member(member)
            if len(order) >= limits.max_members:
                raise ArchiveRejected(
                    f"more than {limits.max_members:,} members", TOO_LARGE, member.name
                )
            name = _normalise(member.name)
            _member_type(member)
            if name in entries:
                raise _refuse(member.name, "appears twice in the archive")
            if member.isreg():
                if member.size > limits.max_member_bytes:
                    raise _refuse(
                        member.name,
                        f"{member.size:,} bytes, more than the {limits.max_member_bytes:,} "
                        "allowed for one member",
                        TOO_LARGE,
                    )
                total += member.size
                if total > limits.max_unpacked_bytes:
                    raise _refuse(
                        member.name,
                        f"takes the archive past {limits.max_unpacked_bytes:,} unpacked bytes",
                        TOO_LARGE,
                    )
                data_end = member.offset_data + member.size
                if posixpath.basename(name) == MANIFEST and name.count("/") <= 1:
                    if member.size > MAX_MANIFEST_BYTES:
                        raise _refuse(member.name, "the manifest is larger than 1 MiB")
                    handle = tar.extractfile(member)
                    manifests[name] = handle.read() if handle is not None else b""
            linkname = member.linkname if (member.issym() or member.islnk()) else ""
            entry = _Entry(name, member.type, member.size if member.isreg() else 0, linkname)
            entries[name] = entry
            order.append(entry)
            members.append(member)
        if stream.total < data_end:
            raise ArchiveRejected(f"{archive.name} is truncated: the last member is cut short")
        # Read on to the end of the compressed data: a gzip whose end (its CRC and length) is
        # cut off is broken, even when the tar inside ended before.
        stream.allowed_until = limits.max_unpacked_bytes
        while stream.read(COPY_CHUNK):
            pass
    if not order:
        raise ArchiveRejected("the archive is empty: it holds no member")
    root = _snapshot_root(entries)
    manifest_name = posixpath.join(root, MANIFEST)
    _check_manifest(manifest_name, manifests.get(manifest_name, b""))
    _check_links(order, entries, root)
    return members, root


def _check_links(order: list[_Entry], entries: dict[str, _Entry], root: str) -> None:
    """Every path stays below no symlink or file, every link stays inside the snapshot."""
    links = {e.name: e.linkname for e in order if e.type == tarfile.SYMTYPE}
    regular_before: set[str] = set()
    directories: set[str] = set()  # paths known to be directories (or implied ones) all the way up
    for entry in order:
        above = entry.name.rpartition("/")[0]
        climbed = []
        while above and above not in directories:
            found = entries.get(above)
            if found is not None and found.type != tarfile.DIRTYPE:
                what = "a symlink" if found.type == tarfile.SYMTYPE else "a file"
                raise _refuse(entry.name, f"lies below {what} ({found.name!r})")
            climbed.append(above)
            above = above.rpartition("/")[0]
        directories.update(climbed)
        if entry.type == tarfile.SYMTYPE:
            if not entry.linkname or entry.linkname.startswith("/"):
                raise _refuse(entry.name, f"symlink to an absolute path ({entry.linkname!r})")
            target = _resolve(posixpath.join(posixpath.dirname(entry.name), entry.linkname), links)
            if target is None or not _inside(target, root):
                raise _refuse(
                    entry.name,
                    f"symlink points outside the snapshot ({entry.linkname!r})",
                )
        elif entry.type == tarfile.LNKTYPE:
            try:
                source = _normalise(entry.linkname)
            except ArchiveRejected:
                source = ""
            if source not in regular_before or not _inside(source, root):
                raise _refuse(
                    entry.name,
                    f"hard link to {entry.linkname!r}, which is not a file earlier in the snapshot",
                )
        elif entry.type in (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE):
            regular_before.add(entry.name)


def _empty(dest: Path) -> None:
    """Remove what a failed extraction left in `dest` (links are removed, never followed)."""
    for child in dest.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def data_attributes(member: tarfile.TarInfo, dest: str = "") -> tarfile.TarInfo:
    """`member` with tarfile's `data` filter policy for its attributes: no owner, no setuid,
    setgid or sticky bit, no group or other write, owner read-write on files, default modes on
    directories and links. Its path checks (one `realpath` per member and per link: three
    quarters of the unpacking time of a 30,000-member capture) are left out, as the first pass
    checked every path and link more strictly, on the whole archive at once. The tests hold
    this to `tarfile.data_filter` member by member."""
    mode: int | None = member.mode & 0o755
    if member.isreg() or member.islnk():
        assert mode is not None
        if not mode & 0o100:
            mode &= ~0o111
        mode |= 0o600
    else:  # directories and symlinks: the first pass let nothing else through
        mode = None
    # None as tarfile's own filters pass them (typeshed types these as int and str only).
    attributes: dict[str, Any] = {
        "mode": mode,
        "uid": None,
        "gid": None,
        "uname": None,
        "gname": None,
    }
    return member.replace(**attributes, deep=False)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class _Writer:
    """Writes members below one directory by directory file descriptors: every directory is
    opened with O_NOFOLLOW | O_DIRECTORY from its parent's descriptor and every file created
    with O_CREAT | O_EXCL | O_NOFOLLOW, so nothing is ever written through a symlink or over
    an existing entry, whatever the interpreter's tarfile does (CVE-2025-4517 and its
    siblings). A member that would be is refused, naming it. The open directories are kept as
    a stack along the current path: a tar lists a tree depth first."""

    def __init__(self, dest: Path) -> None:
        self._root = os.open(dest, _DIR_FLAGS)
        self._names: list[str] = []
        self._fds: list[int] = [self._root]

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []
        self._names = []

    def directory(self, parts: list[str], member: str) -> int:
        """The descriptor of directory `parts` (made as needed), below no symlink."""
        common = 0
        while (
            common < len(self._names)
            and common < len(parts)
            and self._names[common] == parts[common]
        ):
            common += 1
        while len(self._names) > common:
            self._names.pop()
            os.close(self._fds.pop())
        for part in parts[common:]:
            parent = self._fds[-1]
            with suppress(FileExistsError):
                os.mkdir(part, 0o777, dir_fd=parent)
            try:
                fd = os.open(part, _DIR_FLAGS, dir_fd=parent)
            except OSError as err:
                if err.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _refuse(member, "would be written through a link or a file") from None
                raise
            self._names.append(part)
            self._fds.append(fd)
        return self._fds[-1]

    def write(self, member: tarfile.TarInfo, name: str, data: _Readable | None) -> None:
        parts = name.split("/") if name != "." else []
        if member.isdir():
            self.directory(parts, member.name)
            return
        if not parts:
            raise _refuse(member.name, "names the destination itself")
        parent = self.directory(parts[:-1], member.name)
        leaf = parts[-1]
        try:
            if member.issym():
                os.symlink(member.linkname, leaf, dir_fd=parent)
            elif member.islnk():
                source = member.linkname.strip("/").split("/")
                source = [p for p in source if p not in ("", ".")]
                source_dir = os.open(".", _DIR_FLAGS, dir_fd=self._root)
                try:
                    for part in source[:-1]:
                        below = os.open(part, _DIR_FLAGS, dir_fd=source_dir)
                        os.close(source_dir)
                        source_dir = below
                    os.link(
                        source[-1],
                        leaf,
                        src_dir_fd=source_dir,
                        dst_dir_fd=parent,
                        follow_symlinks=False,
                    )
                finally:
                    os.close(source_dir)
                mode = data_attributes(member).mode
                if mode is not None:
                    os.chmod(leaf, mode, dir_fd=parent, follow_symlinks=False)
            else:
                self._file(member, leaf, parent, data)
        except FileExistsError:
            raise _refuse(member.name, "would be written over an entry already there") from None
        except OSError as err:
            if err.errno in (errno.ELOOP, errno.ENOTDIR):
                raise _refuse(member.name, "would be written through a link or a file") from None
            raise

    @staticmethod
    def _file(member: tarfile.TarInfo, leaf: str, parent: int, data: _Readable | None) -> None:
        fd = os.open(leaf, _NEW_FILE_FLAGS, 0o600, dir_fd=parent)
        try:
            left = member.size
            while left > 0 and data is not None:
                chunk = data.read(min(left, COPY_CHUNK))
                if not chunk:
                    break
                left -= len(chunk)
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view) :]
            if left:
                raise ArchiveRejected(
                    f"member {member.name!r} is cut short", MALFORMED, member.name
                )
            mode = data_attributes(member).mode
            if mode is not None:
                os.fchmod(fd, mode)
            os.utime(fd, (member.mtime, member.mtime))
        finally:
            os.close(fd)


@contextmanager
def _decompressed(archive: Path, compression: str) -> Iterator[Any]:
    """The archive's tar bytes, as a file read forward (seeking forward decompresses)."""
    with archive.open("rb") as raw:
        if compression == "gz":
            with gzip.GzipFile(fileobj=raw, mode="rb") as unpacked:
                yield unpacked
        elif compression == "xz":
            with lzma.LZMAFile(raw, mode="rb") as unpacked_xz:
                yield unpacked_xz
        elif compression == "bz2":
            with bz2.BZ2File(raw, mode="rb") as unpacked_bz2:
                yield unpacked_bz2
        else:
            yield raw


def _unpack(
    archive: Path,
    dest: Path,
    members: list[tarfile.TarInfo],
    compression: str = "gz",
) -> None:
    """Second pass: write each member the first pass read and accepted with `_Writer`, its
    data read from the offset the first pass found it at (no header is parsed again, so
    nothing unchecked can slip in, and each member yields exactly the bytes the first pass
    counted against the limits)."""
    writer = _Writer(dest)
    try:
        with (
            _decompressed(archive, compression) as unpacked,
            tarfile.open(fileobj=unpacked, mode="r:") as tar,
        ):
            for member in members:
                data = tar.extractfile(member) if member.isreg() else None
                writer.write(member, _normalise(member.name), data)
    finally:
        writer.close()


def _compression(archive: Path, any_compression: bool) -> str:
    """How `archive` is packed, from its first bytes: gzip (what `capture --tar` writes and
    the service takes), or, where `any_compression` allows, xz, bzip2 or none."""
    with archive.open("rb") as handle:
        head = handle.read(512)
    if head[:2] == b"\x1f\x8b":
        return "gz"
    if any_compression:
        if head[:6] == b"\xfd7zXZ\x00":
            return "xz"
        if head[:3] == b"BZh":
            return "bz2"
        if len(head) == 512 and head[257:262] == b"ustar":
            return "tar"
        raise ArchiveRejected(
            f"{archive.name} is neither a tar archive nor a gzip, xz or bzip2-compressed one",
            MALFORMED,
        )
    raise ArchiveRejected(
        f"{archive.name} is not gzip-compressed: upload what `pinchpoint capture --tar` "
        "writes (.tar.gz)",
        MALFORMED,
    )


def extract_snapshot_archive(
    archive: Path,
    dest: Path,
    limits: ArchiveLimits | None = None,
    *,
    any_compression: bool = False,
) -> Path:
    """Check `archive` whole, unpack it into `dest` (created, or an empty directory) and return
    the snapshot's root inside `dest`. The service and the CLI both unpack through here (the
    CLI with `any_compression`: plain, xz and bzip2 tars too). Raises `ArchiveRejected`
    (nothing is left in `dest` then), or an `OSError` when the server cannot write (what was
    written is removed again)."""
    limits = limits or ArchiveLimits()
    size = archive.stat().st_size
    if size > limits.max_bytes:
        raise ArchiveRejected(
            f"{archive.name} is {size:,} bytes, more than the {limits.max_bytes:,} allowed",
            TOO_LARGE,
        )
    compression = _compression(archive, any_compression)
    if dest.exists() and any(dest.iterdir()):
        raise ValueError(f"{dest} is not empty")
    members, root = _survey(archive, limits, compression)
    dest.mkdir(parents=True, exist_ok=True)
    try:
        with _readable(archive.name):
            _unpack(archive, dest, members, compression)
    except tarfile.TarError as err:
        _empty(dest)
        raise ArchiveRejected(f"{archive.name} could not be unpacked: {err}", REFUSED) from err
    except BaseException:  # a full disk is the server's problem (an OSError), not the upload's
        _empty(dest)
        raise
    return dest / root if root else dest
