"""Schemathesis against the served OpenAPI document: every operation, generated inputs, over
real HTTP to a real uvicorn, then chains of operations along the document's links (a created
mute lifted, a listed report read and compared: the stateful phase). Answers must match the
document (status codes, content types, schemas) and never be a 5xx (`not_a_server_error`, one
of `all`). Run through schemathesis's own command line, as CI would."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.api.conftest import ADMIN_TOKEN, Server

# Exercised by their own tests: sweeps (minutes each), uploads, pushes and locate LEDs.
EXCLUDED = r"^/v1/(checks|snapshots|pushed-reports(/by-digest)?|maintenance/enclosures/.*/locate)$"


def test_every_operation_keeps_its_contract(demo_server: Server, tmp_path: Path) -> None:
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "--config-file",
        str(Path(__file__).with_name("schemathesis.toml")),
        "run",
        f"{demo_server.url}/openapi.json",
        "--header",
        f"Authorization: Bearer {ADMIN_TOKEN}",
        "--checks",
        "all",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--exclude-path-regex",
        EXCLUDED,
        "--max-examples",
        "20",
        "--workers",
        "1",
        "--request-timeout",
        "60",
        "--suppress-health-check",
        "all",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=1200, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    links = re.search(r"API Links:\s+(\d+) covered", done.stdout)
    assert links is not None and int(links.group(1)) > 0, done.stdout[-3000:]  # stateful ran
    assert "Server error" not in done.stdout
