"""Locating a claim on a page: its figures (page, figure_check), its quote (quote), together (locate); bounded memory."""
