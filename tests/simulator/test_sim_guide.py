"""docs/simulator.md keeps up with the spec models: every table has a section listing each of
its keys with the model's default, and every example in it is a valid spec."""

from __future__ import annotations

import json
import re
import tomllib
import typing
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from fixture_paths import ROOT
from pydantic import BaseModel

from pinchpoint.simulator.spec import HostSpec, spec_from_data

GUIDE = ROOT / "docs" / "simulator.md"
_HEADING = re.compile(r"^#+ (.*)$", re.M)
_TABLE_IN_HEADING = re.compile(r"`\[{0,2}([a-z_][a-z_.]*)\]{0,2}`")
_KEY_ROW = re.compile(r"^\| `(\w+)` \| ([^|]*) \|", re.M)
_EXAMPLE = re.compile(r"^```(toml|yaml)\n(.*?)^```", re.M | re.S)
_CODE = re.compile(r"^```.*?^```", re.M | re.S)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The spec models a field holds, through `list[…]`, `… | None` and `Annotated[…]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def spec_tables(
    model: type[BaseModel] = HostSpec, path: str = ""
) -> Iterator[tuple[str, type[BaseModel]]]:
    """Every table of a spec by its dotted path (`hba`, `hba.pcie`, `zfs.pool.log` …)."""
    for name, field in model.model_fields.items():
        for inner in _models_in(field.annotation):
            table = f"{path}.{name}" if path else name
            yield table, inner
            yield from spec_tables(inner, table)


def guide_sections() -> dict[str, dict[str, str]]:
    """Per table path named in a heading of the guide: its keys and their default cells."""
    text = _CODE.sub("", GUIDE.read_text(encoding="utf-8"))  # a `# comment` is no heading
    headings = list(_HEADING.finditer(text))
    sections: dict[str, dict[str, str]] = {}
    for heading, following in zip(headings, [*headings[1:], None], strict=True):
        body = text[heading.end() : following.start() if following else len(text)]
        keys = {m.group(1): m.group(2).strip() for m in _KEY_ROW.finditer(body)}
        for table in _TABLE_IN_HEADING.findall(heading.group(1)):
            sections[table] = keys
    return sections


def guide_examples() -> list[tuple[str, Any]]:
    """The guide's example blocks, parsed: (language, data)."""
    text = GUIDE.read_text(encoding="utf-8")
    return [
        (lang, tomllib.loads(body) if lang == "toml" else yaml.safe_load(body))
        for lang, body in _EXAMPLE.findall(text)
    ]


def _added_to(base: dict[str, Any], example: dict[str, Any]) -> dict[str, Any]:
    """An example as the guide reads it: its `[[…]]` entries join the base's, `[…]` replace."""
    merged = dict(base)
    for key, value in example.items():
        merged[key] = [*base.get(key, []), *value] if isinstance(value, list) else value
    return merged


TABLES = sorted({path: model for path, model in spec_tables()}.items())


@pytest.mark.parametrize(("path", "model"), TABLES, ids=[p for p, _ in TABLES])
def test_every_table_has_a_section_with_each_of_its_keys(path: str, model: type[BaseModel]) -> None:
    sections = guide_sections()
    assert path in sections, f"docs/simulator.md has no heading naming `{path}`"
    assert list(sections[path]) == list(model.model_fields), f"the keys of `{path}`"


@pytest.mark.parametrize(("path", "model"), TABLES, ids=[p for p, _ in TABLES])
def test_documented_defaults_are_the_models(path: str, model: type[BaseModel]) -> None:
    documented = guide_sections()[path]
    for name, field in model.model_fields.items():
        cell = documented[name]
        if field.is_required():
            assert cell == "required", f"{path}.{name}"
            continue
        default = field.get_default(call_default_factory=True)
        if isinstance(default, bool | int | float | str | list | dict):
            assert cell.startswith(f"`{json.dumps(default)}`"), f"{path}.{name}: {cell}"
        else:
            assert cell != "required", f"{path}.{name} has a default"


def test_the_first_example_is_a_whole_spec_and_the_yaml_says_the_same() -> None:
    (_, first), *others = guide_examples()
    spec = spec_from_data(first)
    assert [h.name for h in spec.hba] == ["hba1", "hba2"]
    assert spec.workload is not None and spec.zfs is not None
    yaml_data = next(data for lang, data in others if lang == "yaml")
    assert spec_from_data(yaml_data).model_dump(include={"hba", "enclosure", "chain"}) == (
        spec.model_dump(include={"hba", "enclosure", "chain"})
    )


def test_every_later_example_added_to_the_first_is_a_valid_spec() -> None:
    (_, first), *others = guide_examples()
    examples = [data for lang, data in others if lang == "toml"]
    assert len(examples) >= 10
    for example in examples:
        spec_from_data(_added_to(first, example), f"example {sorted(example)}")
