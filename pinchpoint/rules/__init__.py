"""What pinchpoint concludes: the rule catalog, the engine that runs it, and its configuration.

Each rule is a small documented unit (`pinchpoint.rules.base.Rule`) in the module of its
category; `pinchpoint.rules.catalog.CATALOG` lists them all in one place."""
