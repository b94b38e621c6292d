"""Copy a fake-root tree from the shared corpus into tests/fixtures as a pinchpoint snapshot.

The shared corpus stores every symlink as a regular file holding the link target with no
trailing newline (real sysfs attributes always end in a newline). This restores those links
so the fixture has the real kernel layout, and writes a manifest.json.

    python scripts/import_corpus_tree.py SRC_ROOT DEST_SNAPSHOT [--part sys --part proc]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
from pathlib import Path

# A flattened link: a relative path with no whitespace and no trailing newline.
_LINK_TEXT = re.compile(r"^(\.\./)*[A-Za-z0-9_.:+@-]+(/[A-Za-z0-9_.:+@-]+)*/?$")


def flattened_link_target(path: Path) -> str | None:
    """The link target stored in `path`, or None when it is a real attribute file."""
    if path.stat().st_size == 0 or path.stat().st_size > 512:
        return None
    data = path.read_bytes()
    if data.endswith(b"\n") or b"\x00" in data:
        return None
    text = data.decode("utf-8", errors="replace")
    if "/" not in text or not _LINK_TEXT.match(text):
        return None
    return text.rstrip("/")


def import_tree(src: Path, dest: Path, parts: list[str]) -> tuple[int, int]:
    """Copy `parts` of `src` into `dest`, restoring links; returns (files, links)."""
    files = links = 0
    for part in parts:
        for dirpath, _dirnames, filenames in os.walk(src / part):
            rel = Path(dirpath).relative_to(src)
            (dest / rel).mkdir(parents=True, exist_ok=True)
            for name in filenames:
                source_file = Path(dirpath) / name
                target_file = dest / rel / name
                link = flattened_link_target(source_file)
                if link is not None:
                    target_file.symlink_to(link)
                    links += 1
                else:
                    shutil.copyfile(source_file, target_file)
                    files += 1
    return files, links


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("src", type=Path)
    parser.add_argument("dest", type=Path)
    parser.add_argument("--part", action="append", default=[])
    parser.add_argument("--hostname", default=None)
    args = parser.parse_args()
    parts = args.part or ["sys", "proc"]
    if args.dest.exists():
        shutil.rmtree(args.dest)
    files, links = import_tree(args.src, args.dest, parts)
    manifest = {"format": "pinchpoint-snapshot", "version": 1}
    if args.hostname:
        manifest["hostname"] = args.hostname
    (args.dest / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"{files} files, {links} links restored into {args.dest}")


if __name__ == "__main__":
    main()
