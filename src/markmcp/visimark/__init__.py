"""VisiMark: Markdown whose numbers are proven."""
