"""Kept for ``import receval.beyond.registered``: importing it registers the beyond-accuracy
metric families, as importing :mod:`receval.beyond` does.

Each family module registers its own metrics beside its array code (:mod:`.catalogue`,
:mod:`.dq`, :mod:`.popularity`, :mod:`.diversity`, :mod:`.serendipity`,
:mod:`.personalization`, :mod:`.runs`, :mod:`.categories`); the registry imports them on first
need (:data:`receval.metrics.spec.PLUGIN_MODULES`).

>>> import receval as rv, receval.beyond.registered  # doctest: +SKIP
>>> rv.evaluate(run, truth, ["coverage@10", "gini@10", "ild@10", "novelty@10"],
...             train=train, item_features=features)  # doctest: +SKIP
"""
