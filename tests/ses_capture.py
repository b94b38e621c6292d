"""The real Areca 8028 SES capture the `sg_ses` parser tests share: the stored decodings of
its pages (sg_ses 2.48, Debian sg3-utils 1.46) and the capture decoded now by the installed
`sg_ses` (tests/fixtures/ses/SOURCES.md)."""

from __future__ import annotations

import shutil
import subprocess
from functools import cache

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "ses"
HEX_CAPTURE = FIXTURES / "sg3utils_inhex_ses_areca8028_all_pages.hex"
PAGES = ("cf", "es", "ed", "aes", "snic", "th")

ARECA_LOGICAL_ID = "0xd5b401503fc0ec16"
ARECA_EXPANDER = "0x5001b4d516ecc03f"
CASCADED_EXPANDER = "0x5001517e85c3efff"
SLOT_18_DISK = "0x5000c5003011cb29"

needs_sg_ses = [
    pytest.mark.tools,
    pytest.mark.skipif(shutil.which("sg_ses") is None, reason="sg_ses (sg3-utils) not installed"),
]


def stored(page: str) -> str:
    """The decoding of the capture kept beside it (sg_ses 2.48, Debian sg3-utils 1.46)."""
    return (FIXTURES / f"sg3utils_inhex_areca8028_sg_ses_{page}.txt").read_text()


@cache
def live(page: str) -> str:
    """The capture decoded now by the installed sg_ses."""
    argv = ["sg_ses", "--status", f"--page={page}", f"--inhex={HEX_CAPTURE}"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, f"{' '.join(argv)}: exit {done.returncode}: {done.stderr}"
    return done.stdout
