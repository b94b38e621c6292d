"""The spec of an imagined storage host: a small TOML or YAML file that `load_spec` reads and
`write_snapshot` turns into a snapshot. Every table and key, with examples: docs/simulator.md.

One module per part of a spec:
  sas.py           [[hba]], [[switch]], [[enclosure]] and its disks, [[chain]]
  faults.py        [[degraded_link]], [[failing_disk]], [[lane_down]], [[phy_errors]]
  rest_of_host.py  [[nic]], [[bond]], [[fc_port]], [multipath], [fc_driver], [[nvme]],
                   [[partition]], [zfs]
  workload.py      [workload]
  host.py          [host] and the root of the file; references.py checks what it names
  values.py        what they share: the model base, SAS constants, checked value types, pcie
  load.py          reading a file, errors that name the field at fault
"""

from __future__ import annotations

from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.load import SpecError, load_spec, spec_from_data

__all__ = ["HostSpec", "SpecError", "load_spec", "spec_from_data"]
