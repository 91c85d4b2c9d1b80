"""``"irds:<dataset id>"`` inputs: an ir_datasets dataset's qrels or scored documents, read from
its local cache only.

``rv.evaluate(run, "irds:vaswani", ...)`` reads ``ir_datasets.load("vaswani").qrels_iter()`` as
the truth (``scoreddocs_iter()`` when the string is given as the run), the ``irds:`` prefix
being ir_measures' and PyTerrier's spelling. ir_datasets downloads a dataset's files on first
use; receval never does: while it reads, every network source of ir_datasets refuses, and a
file that is not in the cache (``IR_DATASETS_HOME``, default ``~/.ir_datasets``) is an error
that says how to fetch it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from ..errors import InputError, require

PREFIX = "irds:"
#: what each role reads from a dataset
_PART = {"truth": "qrels", "run": "scoreddocs"}
#: ir_datasets' classes that fetch over the network (ir_datasets/util/download.py)
_NETWORK = ("RequestsDownload", "GoogleDriveDownload", "GoogleCloudBucketStream")
_LOCK = threading.Lock()


class _Offline(Exception):
    """A network fetch that receval stopped."""


def is_irds(data: Any) -> bool:
    return isinstance(data, str) and data.startswith(PREFIX)


@contextlib.contextmanager
def _no_download(ir_datasets: Any) -> Iterator[None]:
    """While reading, ir_datasets' network sources raise instead of fetching."""
    download = require("ir_datasets.util.download", "ir_datasets")

    def refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise _Offline(getattr(self, "url", None) or type(self).__name__)

    saved = {}
    with _LOCK:
        try:
            for name in _NETWORK:
                cls = getattr(download, name, None)
                if cls is not None and "stream" in vars(cls):
                    saved[cls] = vars(cls)["stream"]
                    cls.stream = refuse
            yield
        finally:
            for cls, fn in saved.items():
                cls.stream = fn


def read_irds(name: str, role: str) -> list[Any]:
    """The qrels (``role="truth"``) or scored documents (``role="run"``) of the ir_datasets
    dataset ``name`` (``"irds:<id>"``): its named-tuple records, read from the local cache."""
    ir_datasets = require("ir_datasets", "ir_datasets")
    dataset_id = name[len(PREFIX):]
    part = _PART.get(role)
    if part is None:
        raise InputError(f"{role}: an irds: name gives a truth (qrels) or a run "
                         f"(scoreddocs), not {role}.")
    if not dataset_id:
        raise InputError(f"{role}: {name!r} names no dataset; write irds:<dataset id>, e.g. "
                         "'irds:vaswani'.")
    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(f"{role}: ir_datasets knows no dataset {dataset_id!r}; see "
                         "https://ir-datasets.com for the ids.") from None
    if not getattr(dataset, f"has_{part}")():
        raise InputError(f"{role}: ir_datasets' {dataset_id!r} has no {part}; pass the "
                         f"{role} as a table.")
    home = ir_datasets.util.home_path()
    try:
        with _no_download(ir_datasets):
            records = list(getattr(dataset, f"{part}_iter")())
    except _Offline as exc:
        raise InputError(
            f"{role}: the {part} of {dataset_id!r} are not in the local ir_datasets cache "
            f"({home}), and receval never downloads (it stopped a fetch of {exc}). Fetch them "
            f"once with ir_datasets itself, e.g. `ir_datasets export {dataset_id} {part} > "
            f"/dev/null`, then call again.") from None
    if not records:
        raise InputError(f"{role}: ir_datasets' {dataset_id!r} gave no {part} records.")
    return records
