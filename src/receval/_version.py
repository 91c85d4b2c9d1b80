"""The package version, importable without loading the public surface."""

__version__ = "0.1.0"
