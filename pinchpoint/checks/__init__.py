"""What we look at, by role: `source/` (where facts come from: the live host, a snapshot, the
command runner), `parse/` (pure parsers: text or bytes in, typed facts out) and `collect/`
(one collector per domain, reading through a `Source` and calling the parsers)."""
