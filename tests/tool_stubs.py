"""Stand-ins for storage tools, put first on PATH by tests of hung, failing or garbled tools.

Each is a real executable shell script in a fresh directory; the collector runs it exactly as
it would run the real tool (argument list, timeout), so the failure paths are the real ones.
"""

from __future__ import annotations

import stat
from pathlib import Path


def fake_tool_dir(tmp_path: Path, name: str, body: str) -> Path:
    """A directory holding an executable `name` that runs the shell `body`; put it on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    tool = bin_dir / name
    tool.write_text(f"#!/bin/sh\n{body}\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return bin_dir
