"""`python -m pinchpoint`: the same command as the installed `pinchpoint`."""

from pinchpoint.cli import main

main()
