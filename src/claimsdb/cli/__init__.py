"""The `claims` command line: one module per command group, wired in app.py."""
