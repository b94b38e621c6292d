"""What pinchpoint concludes: the rule catalog, the engine that runs it, and its configuration.

A rule is a unit: one module `rules/<domain>/<name>.py`, named from its id (the id's first part
is the domain: `sas.enclosure.single_path` lives in `rules/sas/enclosure_single_path.py`), and
one test module beside it, `tests/rules/<domain>/test_<name>.py`. To add a rule:

1. Write the module, top to bottom: a docstring saying what it finds, `judge(context, limits)`
   yielding a `Hit` per entity (evidence without a rule id: the engine stamps it), then the
   declaration `RULE = Rule(id=…, title=…, severity=…, needs=…, remediation=…, judge=judge,
   doc=…, thresholds=…)` (`rules/base.py` says what each field means). Name entities through
   `pinchpoint.naming`.
2. What several rules derive from the same inputs (the breakdown, each disk's latency, the daisy
   chains …) is a derived fact in `rules/derived/`: list the ones the judge reads in
   `derived=(…)` and read each with `context.derived(fact)`; the engine computes it once per
   check. Helpers only your rule uses stay in its module; helpers the rules of one domain share
   go in a small named module of that domain, never imported across domains.
3. Add `RULE` to its domain's `RULES` (`rules/<domain>/__init__.py`); `rules/catalog.py` lists
   the domains. Regenerate the docs: `pinchpoint rules --markdown > docs/rules.md`.

A rule whose inputs (`needs`) are missing is skipped with the reason; one that fails is skipped
with its error; neither stops the others.
"""
