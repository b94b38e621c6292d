"""Collectors: one module per domain of the inventory, each ending with its `COLLECTOR`
(`collector.py`), run in turn by `inventory.py`; and the readers of statistics (diskstats,
/proc/net/dev samples, imported files) that `pinchpoint.stats` uses.
"""
