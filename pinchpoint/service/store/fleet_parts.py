"""The parts of a pushed inventory as the fleet facts read them: made models of just the fields
`rules/derived/fleet_facts.py` reads, so that a new host's facts do not cost its whole inventory
made models.

A 1,920-path host's `sas`, `health` and `block` parts are 5 MB of JSON; made whole models they
are some 90,000 Python objects (the expanders' phys, every path of every disk, each disk's
SMART log), and the collector's passes over them cost more than the validation. The facts read
a few fields of each: a disk's identity, firmware and slot, a block device's controller, a
health record's model and firmware. Here each such part is validated by a schema of those
fields alone (`LEAN`: their types, constraints and defaults as the inventory's models have
them; every other key is skipped while the JSON is parsed, never made an object), which makes
objects of the inventory's own models (a subclass without a validator of its own), so the fact
code runs unchanged on them. A field left out is not set: reading it is an AttributeError, never
a default that would judge wrongly (`tests/service/store/test_fleet_parts.py` compares the
facts so taken with those of the whole inventory on hosts of every kind).

Only JSON the store took is read this way: a part held (checked against the whole model when it
was stored), or one sent that has a held part's digest. The objects made are for the facts only:
never stored, never served."""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from functools import cache
from typing import Annotated, Any, Union, cast, get_args, get_origin

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import SchemaValidator
from pydantic_core import core_schema as cs

from pinchpoint.model.inventory import Inventory
from pinchpoint.service.store.bodies import PartError, validated_part

# Which fields of a model are read: a name and either None (the field whole, as the model
# validates it) or the fields read of the model(s) it holds.
Fields = Mapping[str, "Fields | None"]

LEAN: dict[str, Fields] = {
    "sas": {
        "disks": {
            "id": None,
            "wwid": None,
            "vendor": None,
            "model": None,
            "serial": None,
            "revision": None,
            "size_bytes": None,
            "enclosure_id": None,
            "slot": None,
            "paths": {"block_device": None},
        },
        "hbas": {"pci_address": None, "board_name": None, "driver": None, "firmware": None},
        "expanders": {"sas_address": None, "vendor": None, "product": None, "revision": None},
        "enclosures": {
            "id": None,
            "nickname": None,
            "product": None,
            "logical_id": None,
            "slots": {"index": None, "descriptor": None},
            "ses_devices": {
                "id": None,
                "sas_address": None,
                "vendor": None,
                "product": None,
                "revision": None,
            },
        },
    },
    "health": {
        "disks": {
            "id": None,
            "device": None,
            "collected": None,
            "wwn": None,
            "model": None,
            "firmware": None,
            "user_capacity_bytes": None,
            "nvme": {"namespaces": None},
        },
    },
    "block": {
        "devices": {
            "id": None,
            "name": None,
            "kind": None,
            "wwid": None,
            "dm_uuid": None,
            "size_bytes": None,
            "holders": None,
            "controller": None,
        },
    },
}
# The parts the facts read whole (small on any host); the others they do not read at all.
WHOLE = ("network", "pcie", "multipath", "fc", "iscsi", "nvme")


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The one model a field's annotation holds (`X`, `X | None`, `list[X]`, `dict[str, X]`),
    None when it holds none."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    found = {_model_in(arg) for arg in get_args(annotation)} - {None}
    if len(found) > 1:
        raise TypeError(f"{annotation!r} holds more than one model")
    return found.pop() if found else None


def _schema_of(annotation: Any, model: type[BaseModel], lean: cs.CoreSchema) -> cs.CoreSchema:
    """The core schema of `annotation` with `model` in it validated by `lean`."""
    if annotation is model:
        return lean
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType) and type(None) in args:
        (inner,) = [arg for arg in args if arg is not type(None)]
        return cs.nullable_schema(_schema_of(inner, model, lean))
    if origin is list:
        return cs.list_schema(_schema_of(args[0], model, lean))
    if origin is dict:
        return cs.dict_schema(TypeAdapter(args[0]).core_schema, _schema_of(args[1], model, lean))
    raise TypeError(f"{annotation!r}: no lean schema for it")


def _field_schema(field: FieldInfo, schema: cs.CoreSchema) -> cs.ModelField:
    """A model field of `schema`, with the field's default where it has one."""
    if field.default_factory is not None:
        if field.default_factory_takes_validated_data:
            raise TypeError("a default made from the data")
        factory = cast(Callable[[], Any], field.default_factory)
        return cs.model_field(cs.with_default_schema(schema, default_factory=factory))
    if not field.is_required():
        return cs.model_field(cs.with_default_schema(schema, default=field.default))
    return cs.model_field(schema)


def _lean_schema(model: type[BaseModel], fields: Fields) -> cs.CoreSchema:
    """A schema that makes `model`'s own objects of the `fields` named alone (their types,
    constraints and defaults as the model has them; the keys of the others ignored, their
    attributes left unset: reading one is an error, never a default)."""
    made: dict[str, cs.ModelField] = {}
    for name, inner in fields.items():
        field = model.model_fields[name]
        annotation = field.annotation
        if inner is None:
            typed: Any = Annotated[annotation, *field.metadata] if field.metadata else annotation
            schema = TypeAdapter(typed).core_schema
        else:
            held = _model_in(annotation)
            if held is None:
                raise TypeError(f"{model.__name__}.{name} holds no model")
            schema = _schema_of(annotation, held, _lean_schema(held, inner))
        made[name] = _field_schema(field, schema)
    return cs.model_schema(
        _lean_class(model), cs.model_fields_schema(made, extra_behavior="ignore")
    )


@cache
def _lean_class(model: type[BaseModel]) -> type[BaseModel]:
    """A subclass of `model` for the objects a lean schema makes: the model's fields, methods
    and properties, never a validator of its own (pydantic-core would take a model's own
    validator, of every field, for a schema naming the model itself)."""
    return cast(
        type[BaseModel],
        type(
            f"Lean{model.__name__}",
            (model,),
            {"__module__": __name__, "model_config": ConfigDict(defer_build=True)},
        ),
    )


@cache
def _lean_validator(name: str) -> SchemaValidator:
    model = _model_in(Inventory.model_fields[name].annotation)
    assert model is not None, name
    return SchemaValidator(_lean_schema(model, LEAN[name]))


def fact_part_read(name: str) -> bool:
    """Whether the fleet facts read part `name` of an inventory."""
    return name in LEAN or name in WHOLE


def fact_part(name: str, raw: bytes) -> Any:
    """Part `name` of an inventory as the fleet facts read it, from JSON the store took: the
    fields `LEAN` names validated, the part whole for `WHOLE`, None for a part they do not read
    (`PartError` should the JSON not be what the model takes)."""
    if name in WHOLE:
        return validated_part(name, raw)
    if name not in LEAN:
        return None
    try:
        return _lean_validator(name).validate_json(raw)
    except ValidationError as err:
        wrong = [
            f"inventory.{'.'.join(str(p) for p in (name, *e['loc']))}: {e['msg']}"
            for e in err.errors(include_url=False)[:3]
        ]
        raise PartError("; ".join(wrong)) from None
