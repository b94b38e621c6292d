"""Parsers for what `sg_ses --page=PG` prints (cf, es, ed, aes, snic, th) into
`pinchpoint.model.ses`.

Pure functions of text, no I/O: the collectors run `sg_ses` (or read a snapshot) and hand the
output here. Accepted shapes:

* `sg_ses --status --page=PG --inhex=FILE` (no INQUIRY line);
* live `sg_ses --page=PG /dev/sgN`, which first prints the INQUIRY line
  (`  HGST      H4060-J           3010`), on newer versions a timestamp, and for most pages
  `  Primary enclosure logical identifier (hex): …` before the page header;
* the wording of sg3_utils 1.46 (Debian, sg_ses 2.48) and of the later versions (1.48 and on):
  headers with or without the trailing colon, "Element Descriptor In" or "Element descriptor",
  "status descriptor list" or "Status descriptor list:", "nickname:" or "subenclosure nickname:"
  (the change that broke sasutils), logical identifiers printed with or without leading zeros.
  Keys are compared case-insensitively with spacing collapsed.

Not accepted: `--join`/`--all` output, `--inner-hex`, and `--filter` for the es page (its
truncation check compares an element's lines with those of the type's overall element).

What happens with bad input:

* empty, binary, the wrong page, or a header with nothing complete after it: `SesParseError`,
  one line saying what was expected and what was found;
* a page whose text ends early keeps every element that is complete, drops the one the text
  ended inside, and returns with `truncated=True` and a warning naming where it ended. A last
  line without its newline was cut mid-line: it is ignored (a half-printed SAS address would
  otherwise be believed);
* an element with a value that does not parse ("number of phys: x") is dropped with a warning;
  the rest of the page stands and `truncated` stays False.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pinchpoint.checks.parse.ses.additional_status import parse_additional_status
from pinchpoint.checks.parse.ses.configuration import parse_configuration
from pinchpoint.checks.parse.ses.element_descriptors import parse_element_descriptors
from pinchpoint.checks.parse.ses.enclosure_status import parse_enclosure_status
from pinchpoint.checks.parse.ses.nicknames import parse_nicknames
from pinchpoint.checks.parse.ses.page import SesParseError
from pinchpoint.checks.parse.ses.thresholds import parse_thresholds
from pinchpoint.model.ses import SesPage

__all__ = [
    "PAGE_PARSERS",
    "SesParseError",
    "parse_additional_status",
    "parse_configuration",
    "parse_element_descriptors",
    "parse_enclosure_status",
    "parse_nicknames",
    "parse_thresholds",
]

# The parser for each `sg_ses --page=` abbreviation.
PAGE_PARSERS: Mapping[str, Callable[[str], SesPage]] = {
    "cf": parse_configuration,
    "es": parse_enclosure_status,
    "ed": parse_element_descriptors,
    "aes": parse_additional_status,
    "snic": parse_nicknames,
    "th": parse_thresholds,
}
