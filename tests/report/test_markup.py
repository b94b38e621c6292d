"""A remediation's Markdown rendered for each place that shows it: HTML with raw HTML escaped
and links only to http(s) or the service's pages; Rich text for the terminal with commands
styled, never raw backticks; host text kept as visible escapes."""

from __future__ import annotations

import pytest
from rich.console import Console

from pinchpoint.markup import CODE_STYLE, markdown_html, markdown_plain, markdown_rich
from pinchpoint.rules.catalog import CATALOG, rule_by_id


def test_code_becomes_a_code_element() -> None:
    html = markdown_html("Run `smartctl -t long /dev/sdb` and **wait**.")
    assert html == "<p>Run <code>smartctl -t long /dev/sdb</code> and <strong>wait</strong>.</p>"


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script> then `x`",
        '<img src=x onerror="alert(1)">',
        "`zpool replace tank <old> <new>`",
    ],
)
def test_raw_html_is_escaped_never_markup(text: str) -> None:
    html = markdown_html(text)
    assert "<script" not in html and "<img" not in html and "<old>" not in html
    assert "&lt;" in html


@pytest.mark.parametrize(
    ("link", "kept"),
    [
        ("https://docs.kernel.org/block/", True),
        ("/findings?rule=x", True),
        ("javascript:alert(1)", False),
        ("data:text/html,<b>x</b>", False),
        ("file:///etc/passwd", False),
    ],
)
def test_links_only_to_http_or_the_service(link: str, kept: bool) -> None:
    html = markdown_html(f"see [the docs]({link})")
    assert ("<a href=" in html) is kept, html


def test_every_rules_fix_renders_without_backticks() -> None:
    """The catalog's remediations, each through both renderers."""
    with_code = [rule for rule in CATALOG if "`" in rule.remediation]
    assert len(with_code) >= 10  # the renderers matter: many fixes name commands
    for rule in CATALOG:
        assert "`" not in markdown_html(rule.remediation).replace("&#96;", ""), rule.id
        assert "`" not in markdown_rich(rule.remediation).plain, rule.id


def test_on_a_terminal_code_is_styled_not_quoted() -> None:
    rule = rule_by_id("queue.hdd.too_deep")
    assert rule is not None and "`" in rule.remediation
    text = markdown_rich(rule.remediation)
    styled = [text.plain[span.start : span.end] for span in text.spans if span.style == CODE_STYLE]
    assert styled and all("`" not in s for s in styled)
    console = Console(record=True, width=80, force_terminal=True, color_system="standard")
    console.print(text)
    assert "\x1b[1;36m" in console.export_text(styles=True)  # bold cyan, as CODE_STYLE says


def test_lists_and_paragraphs_on_a_terminal() -> None:
    text = markdown_rich("First:\n\n- one `a`\n- two\n\n1. three\n2. four")
    assert text.plain == "First:\n• one a\n• two\n1. three\n2. four"


def test_host_text_in_a_fix_is_printable() -> None:
    assert markdown_plain("reseat `/dev/sd\x1b[2Jb`") == "reseat /dev/sd\\x1b[2Jb"
