"""markmcp: VisiMark, FigDown and MRSF document tools for AI agents over MCP."""

__version__ = "0.1.0"
