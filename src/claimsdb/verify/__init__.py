"""Re-verification of claims against their sources: fetch, extract text, locate evidence."""
