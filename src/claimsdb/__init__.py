"""claimsdb: a provenance-tracked claims database."""

__version__ = "0.1.0"
