"""A rule's remediation (Markdown: `code`, **bold**, *emphasis*, links, lists) for the places
that show it: HTML for the web view and the HTML report, Rich text for the terminal — one parser
(markdown-it-py, CommonMark) for both, so no view shows raw backticks.

Remediations carry host text (device names, paths a rule quotes), so the HTML is made with raw
HTML off (a `<script>` in the text is printed, not run), links only to http(s) or a page of the
service, and the terminal text goes through `printable`.
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.text import Text

from pinchpoint.text import printable

# The styles of inline Markdown on a terminal (code stands out as a command to type).
CODE_STYLE = "bold cyan"
STRONG_STYLE = "bold"
EM_STYLE = "italic"
LINK_STYLE = "underline"

_SAFE_LINK_PREFIXES = ("http://", "https://", "/", "#")


def _parser() -> MarkdownIt:
    """CommonMark with raw HTML off (it is escaped) and links checked by `_link_allowed`."""
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    parser.disable(["image"])  # a remediation draws nothing from elsewhere
    parser.validateLink = _link_allowed  # type: ignore[method-assign]
    return parser


def _link_allowed(url: str) -> bool:
    return url.strip().lower().startswith(_SAFE_LINK_PREFIXES)


_PARSER = _parser()


@lru_cache(maxsize=2048)
def markdown_html(text: str) -> str:
    """`text` as HTML: `<p>Run <code>sg_ses -p 2 /dev/sg3</code>.</p>`; raw HTML escaped, links
    only to http(s) or a path of the service. Remediations repeat: the answers are kept."""
    rendered: str = _PARSER.render(text)
    return rendered.strip()


def markdown_plain(text: str) -> str:
    """`text` without its Markdown marks: what a tooltip, a log line or a short cell shows."""
    return markdown_rich(text).plain


def _append_inline(out: Text, children: list[Token]) -> None:
    styles: list[str] = []
    for token in children:
        kind = token.type
        if kind == "text":
            out.append(printable(token.content), style=" ".join(styles) or None)
        elif kind == "code_inline":
            out.append(printable(token.content), style=CODE_STYLE)
        elif kind in ("softbreak", "hardbreak"):
            out.append(" " if kind == "softbreak" else "\n")
        elif kind == "strong_open":
            styles.append(STRONG_STYLE)
        elif kind == "em_open":
            styles.append(EM_STYLE)
        elif kind == "link_open":
            styles.append(LINK_STYLE)
        elif kind in ("strong_close", "em_close", "link_close") and styles:
            styles.pop()
        elif kind == "html_inline":  # not produced with html off; kept as text if it were
            out.append(printable(token.content))


@lru_cache(maxsize=2048)
def _rich_cached(text: str) -> Text:
    out = Text()
    bullets: list[int | None] = []  # per open list: the next number, None for a bullet list
    starts_item = False
    for token in _PARSER.parse(text):
        kind = token.type
        if kind == "bullet_list_open":
            bullets.append(None)
        elif kind == "ordered_list_open":
            bullets.append(int(token.attrGet("start") or 1))
        elif kind in ("bullet_list_close", "ordered_list_close"):
            bullets.pop()
        elif kind == "list_item_open":
            starts_item = True
        elif kind == "paragraph_open":
            if out.plain:
                out.append("\n")
            if starts_item and bullets:
                number = bullets[-1]
                indent = "  " * (len(bullets) - 1)
                out.append(f"{indent}• " if number is None else f"{indent}{number}. ")
                if number is not None:
                    bullets[-1] = number + 1
                starts_item = False
        elif kind == "inline":
            _append_inline(out, token.children or [])
        elif kind in ("code_block", "fence"):
            if out.plain:
                out.append("\n")
            out.append(printable(token.content.rstrip("\n"), lines=True), style=CODE_STYLE)
    return out


def markdown_rich(text: str) -> Text:
    """`text` as Rich text for a terminal: `code` in bold cyan without its backticks, **bold**,
    *italic*, lists as `•` or `1.` lines; host text made printable."""
    return _rich_cached(text).copy()
