"""The subenclosure nickname page (`sg_ses --page=snic`): the nickname of each subenclosure."""

from __future__ import annotations

from collections.abc import Mapping

from pinchpoint.checks.parse.ses.page import (
    Line,
    SesParseError,
    fields_with_lines,
    optional_number,
    page_body,
    safely,
)
from pinchpoint.checks.parse.ses.values import (
    GarbledError,
    IncompleteError,
    field_key,
    number_value,
)
from pinchpoint.model.ses import SesNickname, SesNicknames

__all__ = ["parse_nicknames"]


def _nickname_key(name: str) -> str:
    """Key of a snic line, without the "subenclosure " prefix 1.48+ puts on most of them."""
    key = field_key(name)
    return key.removeprefix("subenclosure ") if key != "subenclosure identifier" else key


def _nickname(fields: Mapping[str, str]) -> SesNickname:
    """One nickname descriptor; `IncompleteError` without its "nickname:" line."""
    if "nickname" not in fields:
        raise IncompleteError("no 'nickname:' line")
    status = fields.get("nickname status")
    additional = fields.get("nickname additional status")
    return SesNickname(
        subenclosure_id=number_value(fields["subenclosure identifier"], "subenclosure identifier"),
        nickname=fields["nickname"],
        status=None if status is None else number_value(status, "nickname status"),
        additional_status=None
        if additional is None
        else number_value(additional, "nickname additional status"),
        language_code=fields.get("nickname language code") or None,
    )


def parse_nicknames(text: str) -> SesNicknames:
    """Decode `sg_ses --page=snic`: the nickname of each subenclosure."""
    body = page_body(text, "snic")
    page_lines: list[Line] = []
    drafts: list[tuple[Line, dict[str, str]]] = []
    for line in body.lines():
        name, colon, value = line.text.partition(":")
        key = _nickname_key(name)
        if not colon:
            body.warn(f"line {line.number}: not understood: {line.text!r}")
        elif key == "subenclosure identifier":
            drafts.append((line, {key: value.strip()}))
        elif drafts:  # the whole rest of the line: a nickname may hold ", x:"
            drafts[-1][1].setdefault(key, value.strip())
        else:
            page_lines.append(line)
    page_fields = fields_with_lines(page_lines)
    secondary = optional_number(
        body, "secondary subenclosures", page_fields.get("number of secondary subenclosures")
    )
    truncated = body.cut
    nicknames: list[SesNickname] = []
    for position, (line, fields) in enumerate(drafts):
        try:
            nicknames.append(_nickname(fields))
        except (GarbledError, IncompleteError) as bad:
            truncated = truncated or (
                isinstance(bad, IncompleteError) and position == len(drafts) - 1
            )
            body.warn(f"line {line.number}: nickname descriptor dropped: {bad}")
    if secondary is None:
        secondary = max(len(drafts) - 1, 0)
    if len(drafts) < secondary + 1:
        truncated = True
        body.warn(f"{secondary + 1} nickname descriptors announced, {len(drafts)} found")
    if not nicknames:
        raise SesParseError("snic", "no complete nickname descriptor after the header")
    generation = optional_number(body, "generation code", page_fields.get("generation code"))
    return safely(
        "snic",
        lambda: SesNicknames(
            inquiry=body.inquiry,
            primary_logical_id=body.primary_logical_id,
            generation_code=generation,
            truncated=truncated,
            warnings=body.warnings,
            secondary_subenclosure_count=secondary,
            nicknames=nicknames,
        ),
    )
