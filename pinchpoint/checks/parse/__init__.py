"""Pure parsers: the text or bytes a tool or a kernel file printed in, typed facts out; no I/O.

Reading the text (through a `Source`, live, or a user's file) is `pinchpoint.checks.collect`.
"""
