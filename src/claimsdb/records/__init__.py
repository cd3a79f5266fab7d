"""Records: reading data files into entries (reading), validating each kind of record (validation), one
field's checks (fields), a claim's figures as a file gives them (figures), the validated records and their
limits (types). Nothing here touches the database."""

from claimsdb.records.reading import (
    STDIN,
    STDIN_NAME,
    Entry,
    duplicate_name,
    entries,
    json_lines,
    load,
    parse_json,
)

__all__ = [
    "STDIN",
    "STDIN_NAME",
    "Entry",
    "duplicate_name",
    "entries",
    "json_lines",
    "load",
    "parse_json",
]
