"""Daisy chains: the port chains that reach the same enclosures (a chain's A side and its B
side), and the enclosures of each in cabling order."""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Chain
from pinchpoint.rules.base import RuleContext


@dataclass(frozen=True)
class DaisyChain:
    """One cabled daisy chain: its sides (one port chain each) and its enclosures."""

    sides: list[Chain]  # in inventory order
    enclosure_ids: list[str]  # in cabling order from its longest side

    @property
    def head(self) -> Chain:
        """The longest side: what names the daisy chain."""
        return max(self.sides, key=lambda c: c.enclosure_count)


def daisy_chains(context: RuleContext) -> list[DaisyChain]:
    """The host's daisy chains, in inventory order."""
    return [DaisyChain(sides, _enclosures_of(sides)) for sides in _grouped(context.inventory)]


def _grouped(inventory: Inventory) -> list[list[Chain]]:
    """The port chains that reach the same enclosures, grouped: one group per cabled daisy
    chain, in inventory order."""
    groups: list[tuple[set[str], list[Chain]]] = []
    for chain in inventory.sas.chains:
        members = set(chain.enclosure_ids)
        joined = [g for g in groups if g[0] & members]
        for group in joined:
            groups.remove(group)
            members |= group[0]
        merged = [c for g in joined for c in g[1]] + [chain]
        groups.append((members, merged))
    order = {c.id: i for i, c in enumerate(inventory.sas.chains)}
    result = [sorted(g[1], key=lambda c: order[c.id]) for g in groups]
    return sorted(result, key=lambda chains: order[chains[0].id])


def _enclosures_of(chains: list[Chain]) -> list[str]:
    """The enclosures of one daisy chain in cabling order from its longest side."""
    longest = max(chains, key=lambda c: c.enclosure_count)
    rest = [e for c in chains for e in c.enclosure_ids if e not in longest.enclosure_ids]
    return list(dict.fromkeys([*longest.enclosure_ids, *rest]))
