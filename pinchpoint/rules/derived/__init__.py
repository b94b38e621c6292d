"""Derived facts: what several rules need from the same inputs — the statistics' breakdown,
each disk's latency figures, a pool's write-back set, the daisy chains, the HBA-port index,
identical-NIC groups, the measured links, the SAN LUNs — each computed by one small named
function of the `RuleContext`. A rule lists the facts it reads in its declaration
(`derived=(daisy_chains, …)`) and reads each with `context.derived(daisy_chains)`: the engine
provides it, computed once per check however many rules ask."""
