"""Input adapters: frames, dicts and files to canonical columns."""

from .frames import Columns, read_columns

__all__ = ["Columns", "read_columns"]
