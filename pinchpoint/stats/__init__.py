"""What the numbers say: iostat figures between samples, histogram series kept with a resolution
that coarsens with age, and statistics summed along the hierarchy (disk → enclosure → chain →
HBA port → HBA; NIC → bond). Pure functions over `pinchpoint.model` types; no reading, no rules."""
