"""The `decoded` fixture: a page of the Areca capture, stored or decoded now by `sg_ses`."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from ses_capture import live, needs_sg_ses, stored


@pytest.fixture(params=["stored", pytest.param("live", marks=needs_sg_ses)])
def decoded(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """The text of a page: from the stored decoding, or from running sg_ses now."""
    return stored if request.param == "stored" else live
