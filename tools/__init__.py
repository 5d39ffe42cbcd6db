"""Operator and build tools (``python -m tools.<name>``)."""
