"""Fetching a source for `claims verify`: what may be fetched (targets), the fetch (httpx or a local file), snapshots, the text a page shows."""
