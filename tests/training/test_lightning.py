"""The Lightning callback: a validation epoch of score batches gives, in ``callback.result``
and in the trainer's logged metrics, what ``rv.evaluate`` gives on the whole run."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import receval as rv
from receval.topk import topk_from_scores

torch = pytest.importorskip("torch")
L = pytest.importorskip("lightning.pytorch")

# Lightning's own notices (its deprecations, "the dataloader has few workers") are not ours
pytestmark = pytest.mark.filterwarnings(
    "ignore::FutureWarning", "ignore::DeprecationWarning",
    "ignore::lightning.fabric.utilities.warnings.PossibleUserWarning",
    "ignore:.*does not have many workers:UserWarning")

N_USERS, N_ITEMS = 30, 25
METRICS = ["ndcg@5", "recall@5", "mrr"]


def _data():
    rng = np.random.default_rng(1)
    scores = rng.random((N_USERS, N_ITEMS)).astype(np.float32)
    train = rng.random((N_USERS, N_ITEMS)) < 0.2
    truth = {u: {int(i): 1 for i in rng.choice(N_ITEMS, 3, replace=False)}
             for u in range(N_USERS)}
    return scores, train, truth


class Scorer(L.LightningModule):
    def __init__(self, scores, train):
        super().__init__()
        self.scores, self.train_mask = torch.from_numpy(scores), torch.from_numpy(train)

    def validation_step(self, batch, batch_idx):
        users = batch[0]
        return {"users": users, "scores": self.scores[users],
                "exclude": self.train_mask[users]}


def test_a_validation_epoch_is_evaluated_and_logged():
    from receval.training.lightning import EvaluationCallback

    scores, train, truth = _data()
    cb = EvaluationCallback(truth, METRICS, k=5)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.arange(N_USERS)), batch_size=8)
    trainer = L.Trainer(callbacks=[cb], logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False,
                        accelerator="cpu", devices=1)
    for _ in range(2):  # two epochs: the accumulator starts afresh each time
        trainer.validate(Scorer(scores, train), dataloaders=loader, verbose=False)
    top = topk_from_scores(scores, 5, exclude=sp.csr_matrix(train))
    run = {u: {int(i): float(s) for i, s in zip(top.items[u], top.scores[u], strict=True)}
           for u in range(N_USERS)}
    expect = rv.evaluate(run, truth, METRICS)
    assert cb.result.summary == expect.summary
    for key, value in expect.summary.items():
        assert float(trainer.callback_metrics[f"val/{key}"]) == pytest.approx(value, rel=1e-6)


def test_outputs_without_a_batch_are_refused():
    from receval.training.lightning import EvaluationCallback

    cb = EvaluationCallback({0: {1: 1}}, ["ndcg@2"])
    with pytest.raises(rv.InputError, match="validation_step must return a dict"):
        cb.on_validation_batch_end(None, None, None, None, 0)
    with pytest.raises(rv.InputError, match="neither 'items' nor 'scores'"):
        cb.on_validation_batch_end(None, None, {"users": [0]}, None, 0)
