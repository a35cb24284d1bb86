"""Placeholder: being written now; replace this whole file."""
