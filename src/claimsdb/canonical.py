"""The JSON text the store's digests are computed from, made by one encoder built once.

`json.JSONEncoder(...).encode` builds a new C encoder for every call (and a dict to catch circular
references); a whole-store read hashes three payloads a claim, so building it is a third of the
encoding's time. `encoder()` builds that same C encoder (`json.encoder.c_make_encoder`, the one
`JSONEncoder.encode` calls) once, with the same arguments, so its text is the standard library's,
byte for byte, for every input: non-ASCII and lone surrogates as they are, floats by `float.__repr__`
(1e+16, -0.0, NaN), integers of any size. Only the check for circular references is left out: every
payload hashed here is a fresh tree of lists. Without the C accelerator it is `JSONEncoder.encode`.

orjson and msgspec were measured against it (issue 35): about five times faster still, but not
byte-identical (floats under 1e-4 as 0.00001, NaN and infinities as null, msgspec's exponents without
"+"; both refuse lone surrogates and orjson integers past 64 bits), and the gain over this encoder is
under a tenth of an export, so neither is used.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

# the C accelerator's encoder and string escaper (None without it), as JSONEncoder.iterencode takes them
c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
c_encode_basestring = getattr(json.encoder, "c_encode_basestring", None)


def _refuse(o: Any) -> Any:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def encoder(
    *, sort_keys: bool = False, separators: tuple[str, str] = (",", ":")
) -> Callable[[Any], str]:
    """`json.JSONEncoder(ensure_ascii=False, separators=separators, sort_keys=sort_keys).encode`,
    built once (see the module docstring)."""
    item_separator, key_separator = separators
    if c_make_encoder is None or c_encode_basestring is None:  # pragma: no cover
        return json.JSONEncoder(
            ensure_ascii=False, separators=separators, sort_keys=sort_keys
        ).encode
    encode = c_make_encoder(
        None,
        _refuse,
        c_encode_basestring,
        None,
        key_separator,
        item_separator,
        sort_keys,
        False,
        True,
    )

    def text(o: Any) -> str:
        return "".join(encode(o, 0))

    return text


# json.dumps(item, ensure_ascii=False) with ", " and ": ": a claim's line in `claims list --format json`
LINE = encoder(separators=(", ", ": "))
