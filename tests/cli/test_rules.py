"""`pinchpoint explain` with a mistyped id: the ids it offers
(`pinchpoint.cli.rules.close_matches`), against the real catalog."""

from __future__ import annotations

from pinchpoint.cli.rules import MAX_CLOSE_MATCHES, close_matches
from pinchpoint.rules.catalog import CATALOG

KNOWN = [rule.id for rule in CATALOG]


def test_close_spellings_are_offered_without_the_rest_of_the_family() -> None:
    """`sas.chain.to_deep` is one letter from `sas.chain.too_deep`: that comes first, and the
    `sas.` rules that are not spelt alike (single_path, phy.errors …) are left out."""
    found = close_matches("sas.chain.to_deep", KNOWN)
    assert found[0] == "sas.chain.too_deep"
    assert "sas.enclosure.single_path" not in found and "sas.phy.errors" not in found
    assert close_matches("net.link.downgraded_", KNOWN)[0] == "net.link.downgraded"


def test_the_family_is_offered_only_without_a_close_spelling() -> None:
    family = [r for r in KNOWN if r.startswith("sas.")]
    assert len(family) > MAX_CLOSE_MATCHES  # the catalog has more than would be shown
    assert close_matches("sas.zzz", KNOWN) == family[:MAX_CLOSE_MATCHES]


def test_never_more_than_five_and_nothing_for_an_unknown_family() -> None:
    for typed in ("latency", "sas.", "queue.hdd", "pcie.slot", "disk.smart.fail"):
        assert len(close_matches(typed, KNOWN)) <= MAX_CLOSE_MATCHES
    assert close_matches("qqq.zzz", KNOWN) == []
