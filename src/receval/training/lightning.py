"""A PyTorch Lightning callback that evaluates the validation epoch with receval.

Needs ``lightning`` (or the older ``pytorch_lightning``), imported when the callback class is
first used.

The LightningModule's ``validation_step`` returns the batch's model output as a dict:

- ``{"users": ..., "items": ...}`` (optionally ``"scores"``): the top-k item ids per user
  (:meth:`receval.training.Accumulator.update`), or
- ``{"users": ..., "scores": ...}`` (optionally ``"exclude"``, a boolean mask of the
  training items): the scores of every item, ranked on their device
  (:meth:`~receval.training.Accumulator.update_scores`, with the callback's ``k``).

At the end of each validation epoch the callback merges the processes' accumulators
(:func:`receval.training.all_gather`, when the trainer runs several), logs every metric as
``prefix + key`` through ``pl_module.log_dict`` and keeps the :class:`~receval.EvalResult` in
``callback.result``.

>>> cb = EvaluationCallback(val_truth, ["ndcg@10", "recall@20"], k=20)  # doctest: +SKIP
>>> trainer = lightning.Trainer(callbacks=[cb])                        # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError, MissingDependencyError
from ..results import EvalResult
from .accumulator import Accumulator
from .distributed import all_gather

__all__ = ["EvaluationCallback"]  # noqa: F822 - made on first access (__getattr__)


def _callback_base() -> type:
    """Lightning's ``Callback`` (the package, then its older name), imported on first use so
    that this module imports without Lightning (its documentation and doctests)."""
    try:
        from lightning.pytorch import Callback
    except ImportError:  # pragma: no cover - depends on what is installed
        try:
            from pytorch_lightning import Callback
        except ImportError as exc:
            raise MissingDependencyError(
                "receval.training.lightning needs PyTorch Lightning: pip install lightning"
            ) from exc
    return Callback


def __getattr__(name: str) -> Any:
    """``EvaluationCallback``: the evaluation hooks on Lightning's ``Callback`` base class."""
    if name != "EvaluationCallback":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    cls = type("EvaluationCallback", (_EvaluationHooks, _callback_base()),
               {"__doc__": _EvaluationHooks.__doc__, "__module__": __name__})
    globals()[name] = cls
    return cls


class _EvaluationHooks:
    """Evaluate each validation epoch from the ``validation_step`` outputs (module docstring).

    Parameters
    ----------
    truth, metrics, **kwargs : as for :class:`~receval.training.Accumulator` (policies,
        ``compat=``, ``item_ids=`` ...); the truth is packed once, for every epoch.
    k : list length ranked from a batch of scores (default: the deepest cutoff).
    prefix : the prefix of the logged names (``"val/ndcg@10"``).
    """

    def __init__(self, truth: Any, metrics: Any, *, k: int | None = None,
                 prefix: str = "val/", **kwargs: Any) -> None:
        super().__init__()
        self.accumulator = Accumulator(truth, metrics, **kwargs)
        self.k = k
        self.prefix = prefix
        self.result: EvalResult | None = None

    def on_validation_epoch_start(self, trainer: Any, pl_module: Any) -> None:
        self.accumulator.reset()

    def on_validation_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any,
                                batch_idx: int, dataloader_idx: int = 0) -> None:
        if not isinstance(outputs, dict) or "users" not in outputs:
            raise InputError(
                "EvaluationCallback: validation_step must return a dict with 'users' and "
                f"'items' (top-k ids) or 'scores' (every item's score); got {type(outputs)}.")
        if "items" in outputs:
            self.accumulator.update(outputs["users"], outputs["items"], outputs.get("scores"))
        elif "scores" in outputs:
            self.accumulator.update_scores(outputs["users"], outputs["scores"], self.k,
                                           exclude=outputs.get("exclude"))
        else:
            raise InputError("EvaluationCallback: the validation_step output has 'users' but "
                             "neither 'items' nor 'scores'.")

    def on_validation_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        if getattr(trainer, "world_size", 1) > 1:
            all_gather(self.accumulator)
        self.result = self.accumulator.compute()
        values = {self.prefix + key: float(value) for key, value in self.result.summary.items()}
        pl_module.log_dict(values, sync_dist=False, rank_zero_only=False)
