"""MRSF (Sidemark): review comments in Markdown sidecar files."""
