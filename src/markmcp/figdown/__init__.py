"""FigDown: figures as text."""
