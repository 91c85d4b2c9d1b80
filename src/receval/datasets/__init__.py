"""Built-in data: a seeded synthetic interaction log and a tiny example run / truth.

- :func:`synthetic_interactions`: realistic implicit-feedback log (Zipf popularity, varied
  activity, timestamps, graded ratings); :func:`temporal_split`: global time split.
- :func:`example_path` / :func:`load_example`: the small CSV files shipped with the package
  (``example_run.csv``, ``example_truth.csv``, ``example_run_b.csv``), used by the README's
  first commands.
- :func:`load_movielens` / :func:`load_trec`: readers for public data sets you have downloaded
  (MovieLens ratings, ml-100k's ``u.data`` or RecBole's atomic ``.inter``; TREC qrels with a
  run or a folder of runs). Nothing is ever downloaded; :func:`recbole_movielens_path` finds
  the MovieLens 100K ratings inside an installed RecBole, without importing it.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

from ..errors import InputError, plain
from .public import TrecCollection, load_movielens, load_trec, recbole_movielens_path
from .synthetic import TemporalSplit, synthetic_interactions, temporal_split

EXAMPLES = ("run", "run_b", "truth", "train")


def example_path(name: str = "run") -> Path:
    """Path of a shipped example file: ``run``, ``run_b``, ``truth`` or ``train``."""
    if name not in EXAMPLES:
        raise InputError(f"no example {plain(name)}; choose one of {list(EXAMPLES)}.")
    data = resources.files("receval.datasets").joinpath("data")
    return Path(str(data.joinpath(f"example_{name}.csv")))


def load_example(name: str = "run") -> pd.DataFrame:
    """A shipped example file as a pandas frame."""
    return pd.read_csv(example_path(name))


__all__ = ["EXAMPLES", "TemporalSplit", "TrecCollection", "example_path", "load_example",
           "load_movielens", "load_trec", "recbole_movielens_path", "synthetic_interactions",
           "temporal_split"]
