"""`python -m pinchpoint`: the same command as the installed `pinchpoint`."""

from pinchpoint.cli import app

app(prog_name="pinchpoint")
