"""Shared MCP layer used by every markmcp server."""
