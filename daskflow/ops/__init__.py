"""The op library: one module per family, each op declared once."""
