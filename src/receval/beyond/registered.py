"""Kept for ``import receval.beyond.registered``: importing it registers the beyond-accuracy
metric families, as importing :mod:`receval.beyond` does.

Each family module registers its own metrics beside its array code (:mod:`.catalogue`,
:mod:`.dq`, :mod:`.popularity`, :mod:`.diversity`, :mod:`.serendipity`,
:mod:`.personalization`, :mod:`.runs`, :mod:`.categories`); the registry imports them on first
need (:data:`receval.metrics.spec.PLUGIN_MODULES`).

>>> import receval as rv
>>> run = {"u1": {"a": 3, "b": 2}, "u2": {"a": 3, "c": 2}}
>>> truth = {"u1": {"b": 1}, "u2": {"c": 1}}
>>> res = rv.evaluate(run, truth, ["coverage@2", "gini@2"], catalog=["a", "b", "c", "d"])
>>> res.summary["coverage@2"]         # 3 of the 4 catalogue items are recommended
0.75
"""
