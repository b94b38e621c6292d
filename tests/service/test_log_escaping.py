"""The service's logs carry a host's text as visible escapes: a snapshot whose manifest names the
host `evil\\x1b[2J\\x1b]0;pwn\\x07` is swept and its daily report written, with logging set up as
`pinchpoint serve` sets it up; no raw ESC or BEL reaches the log (issue 14, item 5)."""

from __future__ import annotations

import io
import json
import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import FIXTURES

from pinchpoint.service.runtime import Service
from pinchpoint.service.settings import TargetKind
from pinchpoint.text import configure_logging
from tests.api.conftest import demo_settings

EVIL_HOST = "evil\x1b[2J\x1b]0;pwn\x07"


@pytest.fixture
def serve_logging() -> Iterator[io.StringIO]:
    """The root logger as `serve` configures it, writing to a buffer (restored afterwards)."""
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    for handler in before:
        root.removeHandler(handler)
    stream = io.StringIO()
    configure_logging("info", stream)
    try:
        yield stream
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in before:
            root.addHandler(handler)
        root.setLevel(level)


def test_a_sweep_and_daily_report_of_an_evil_host_log_no_escape_sequence(
    tmp_path: Path, serve_logging: io.StringIO
) -> None:
    snapshot = tmp_path / "snapshot"
    shutil.copytree(FIXTURES / "snapshots" / "procfs-mpt3sas", snapshot, symlinks=True)
    manifest = snapshot / "manifest.json"
    data = json.loads(manifest.read_text())
    data["hostname"] = EVIL_HOST
    manifest.write_text(json.dumps(data))
    service = Service(
        demo_settings(tmp_path / "data", target=TargetKind.SNAPSHOT, snapshot=snapshot)
    )
    sweep = service.runner.run(service.runner.request("test"))
    assert sweep.report_id is not None, sweep.error
    service.write_daily_report()
    logged = serve_logging.getvalue()
    assert "daily report of evil\\x1b[2J\\x1b]0;pwn\\x07 written" in logged
    assert "\x1b" not in logged and "\x07" not in logged
