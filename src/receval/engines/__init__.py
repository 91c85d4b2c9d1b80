"""Engines: where packing and kernels run (local, in-process)."""
