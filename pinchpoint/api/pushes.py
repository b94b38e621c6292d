"""What agents push, as the two push routes take it: the bodies (an inventory whole, or its parts
by digest with the JSON of those the central lacks) and the store's `PushedInventory` made from
them without validating the parts into models (the store checks a part once per content).

A 1,920-path host's inventory is 6.8 MB of JSON; made into models it costs about half a second
of a core, and nothing on the central reads those models when the parts are already stored.
So a part stays JSON here: decoded once by the route, written back compact (`pydantic_core`,
which writes what the agent's `model_dump_json` wrote) and hashed."""

from __future__ import annotations

from typing import Annotated, Any, cast

from pydantic import (
    BaseModel,
    Field,
    GetJsonSchemaHandler,
    StringConstraints,
    TypeAdapter,
    create_model,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticSerializationError, to_json
from pydantic_core import core_schema as cs

from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import INVENTORY_FORMAT_VERSION, HostInfo, Inventory
from pinchpoint.service.store import StoreInputError
from pinchpoint.service.store.bodies import (
    InventoryPart,
    PushedInventory,
    default_part,
    digest,
    part_names,
)

Digest = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
MAX_PARTS = 64  # part names in one push (the model has a dozen)


class _SchemaOf:
    """Field metadata: the value is taken as decoded JSON, unvalidated, but documented (OpenAPI)
    as `annotation`, which is what the store checks it against."""

    def __init__(self, annotation: Any) -> None:
        self.annotation = annotation

    def __get_pydantic_json_schema__(
        self, _schema: cs.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(TypeAdapter(self.annotation).core_schema)


def _raw_parts() -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name in part_names():
        field = Inventory.model_fields[name]
        assert field.default_factory is not None, name
        fields[name] = (
            Annotated[Any, _SchemaOf(field.annotation)],
            Field(default_factory=field.default_factory),
        )
    return fields


class _InventoryHead(BaseModel):
    format_version: int = INVENTORY_FORMAT_VERSION
    host: HostInfo


# The inventory of a full push: its host block a model, each part decoded JSON.
RawInventory = cast(
    type[_InventoryHead],
    create_model(
        "RawInventory",
        __base__=_InventoryHead,
        __doc__="An inventory as pushed whole; each part is checked by the store.",
        **_raw_parts(),
    ),
)


class PushedReport(BaseModel):
    """What an agent sends: its report and the inventory it was made from."""

    report: Report
    inventory: RawInventory | None = None  # type: ignore[valid-type]
    duration_s: float | None = None


class InventoryByDigest(BaseModel):
    """An inventory as its host block and the SHA-256 of each part's compact JSON."""

    format_version: int = INVENTORY_FORMAT_VERSION
    host: HostInfo
    parts: dict[Annotated[str, StringConstraints(max_length=64)], Digest] = Field(
        max_length=MAX_PARTS
    )


class PushedByDigest(BaseModel):
    """A push naming the inventory's parts by digest, with the JSON of those the central does
    not hold (`bodies`, by part name): the central answers 409 `missing-parts` naming the ones
    it lacks, and the agent sends again with them. A part in neither takes the model's default."""

    report: Report
    inventory: InventoryByDigest | None = None
    bodies: dict[Annotated[str, StringConstraints(max_length=64)], Any] = Field(
        default_factory=dict, max_length=MAX_PARTS
    )
    duration_s: float | None = None


def _compact(name: str, value: Any) -> bytes:
    """A decoded part written back as compact JSON (what its digest is of)."""
    try:
        return to_json(value)
    except PydanticSerializationError as err:
        raise StoreInputError(f"inventory.{name}: not JSON the store can keep ({err})") from None


def whole_inventory(inventory: _InventoryHead) -> PushedInventory:
    """The store's view of an inventory pushed whole: every part with its JSON."""
    parts = []
    for name in part_names():
        raw = _compact(name, getattr(inventory, name))
        parts.append(InventoryPart(name=name, json=raw, digest=digest(raw)))
    return PushedInventory(
        format_version=inventory.format_version, host=inventory.host, parts=tuple(parts)
    )


def inventory_by_digest(inventory: InventoryByDigest, bodies: dict[str, Any]) -> PushedInventory:
    """The store's view of an inventory pushed by digest: the parts sent with their JSON
    (which must have the digest named for them), the others by digest; names this version
    does not know are left out, as a whole push leaves unknown fields out."""
    parts = []
    for name in part_names():
        named = inventory.parts.get(name)
        if name in bodies:
            raw = _compact(name, bodies[name])
            sent = digest(raw)
            if named is not None and named != sent:
                raise StoreInputError(
                    f"inventory.parts.{name}: the JSON sent in bodies.{name} has another "
                    f"digest ({sent}): send the part as its compact JSON"
                )
            parts.append(InventoryPart(name=name, json=raw, digest=sent))
        elif named is not None:
            parts.append(InventoryPart(name=name, json=None, digest=named))
        else:
            raw = default_part(name)
            parts.append(InventoryPart(name=name, json=raw, digest=digest(raw)))
    return PushedInventory(
        format_version=inventory.format_version, host=inventory.host, parts=tuple(parts)
    )
