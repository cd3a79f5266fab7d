"""`python -m claimsdb.cli`: the same as the `claims` command."""

from claimsdb.cli.app import main

main()
