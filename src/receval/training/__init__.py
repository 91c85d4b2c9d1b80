"""Evaluation inside training loops: push batches of model output, read the result.

:class:`Accumulator` takes each batch (top-k ids per user, or the scores of every item to rank
on their own device) and gives, at :meth:`~Accumulator.compute`, the result
:func:`receval.evaluate` gives on the whole run, bit for bit; accumulators of other users
merge, in one process or across ``torch.distributed`` ones (:func:`all_gather`).
:class:`PairAccumulator` takes torchmetrics' ``(preds, target, indexes)`` rows instead.
"""

from .accumulator import Accumulator, AccumulatorState, PairAccumulator
from .distributed import all_gather

__all__ = ["Accumulator", "AccumulatorState", "PairAccumulator", "all_gather"]
