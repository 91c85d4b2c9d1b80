"""Merging accumulators across ``torch.distributed`` processes."""

from __future__ import annotations

from typing import Any

from ..errors import require
from .accumulator import Accumulator

__all__ = ["all_gather"]


def all_gather(acc: Accumulator, group: Any = None) -> Accumulator:
    """Merge the accumulators of every process of ``group`` (default: the whole world) into
    ``acc``, in rank order, and return it: after the call each process holds every process's
    batches, so :meth:`~Accumulator.compute` gives the result of the whole evaluation
    everywhere. Only the states cross (:meth:`Accumulator.state`: per-user values and exact
    metric states, no truth), through ``torch.distributed.all_gather_object``. Each user must
    be evaluated by one process only."""
    dist = require("torch", "torch").distributed
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError("all_gather needs an initialised torch.distributed process group "
                           "(torch.distributed.init_process_group).")
    world = dist.get_world_size(group)
    states: list[Any] = [None] * world
    dist.all_gather_object(states, acc.state(), group=group)
    acc.reset()
    for state in states:
        acc.merge(state)
    return acc
