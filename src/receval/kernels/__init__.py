"""Array kernels: integers and floats in, arrays out. Imports only receval.errors from receval.

``Request`` (the kernel's request codes) and the option tuples (``VARIANTS``, ``GAINS``,
``IDEALS``, ``DISCOUNTS``) are defined once, in ``_ranking.pyx``; metric definitions read them
from here. Exact summation (``exact_partials``, and ``column_states``: a block's summary states
per metric) is compiled in ``_exact.pyx``.

The kernels are compiled (Cython) when receval is installed. Importing receval from a source
checkout that was never built, or from a build whose compiled modules cannot be loaded, raises
:class:`receval.errors.MissingExtensionError` with the reason and the fix.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _missing_extension(exc: ImportError) -> ImportError:
    """The error to raise when a compiled kernel module cannot be imported."""
    from ..errors import MissingExtensionError  # the errors module has no receval imports

    built = sorted(p.name for p in _HERE.iterdir() if p.suffix in (".so", ".pyd"))
    found = (
        f"compiled files found there: {', '.join(built)}" if built
        else "no compiled files (.so / .pyd) were found there"
    )
    return MissingExtensionError(
        f"receval's compiled kernels could not be imported ({type(exc).__name__}: {exc}).\n"
        f"Looked in {_HERE}: {found}. This happens when receval is imported from a source "
        "checkout that was never built, or when the build was made for another Python or numpy.\n"
        "How to fix it:\n"
        "  - install a prebuilt wheel: pip install receval (Linux, macOS and Windows wheels "
        "for CPython 3.10-3.13), in an environment where the source checkout is not on sys.path;\n"
        "  - or build from source: install a C compiler and the Python development headers "
        "(Debian/Ubuntu: apt install gcc python3-dev; Fedora: dnf install gcc python3-devel; "
        "macOS: xcode-select --install; Windows: Microsoft C++ Build Tools), then run "
        "pip install -e . in the checkout (set RECEVAL_NO_OPENMP=1 to build without OpenMP)."
    )


try:
    from ._diversity import (
        cut_sums,
        greedy_ideal,
        ideal_lists,
        intent_keys,
        intent_pairs,
        list_gains,
        str_codes,
    )
    from ._exact import column_states, exact_partials
    from ._fairness import (
        dense_factorize,
        kl_sums,
        list_kl_ratios,
        list_pass,
        profile_cells,
        train_lists,
        xlogy_ratios,
        xlogy_row_sums,
    )
    from ._join import (
        NotStrIds,
        adjacent_starts,
        all_str,
        first_codes,
        group_truth_raw,
        index_at,
        index_ids,
        join_lists,
        same_ids_at,
        sorted_index,
        utf8_at,
        utf8_take,
    )
    from ._packing import (
        gather_int64,
        group_rows,
        group_truth,
        nonfinite,
        pack_lists,
    )
    from ._ranking import (
        DISCOUNTS,
        GAINS,
        IDEALS,
        VARIANTS,
        MetricSetup,
        Request,
        compute_metrics,
        kernel_columns,
    )
except ImportError as _exc:  # a source tree without the compiled modules
    raise _missing_extension(_exc) from _exc

__all__ = ["DISCOUNTS", "GAINS", "IDEALS", "VARIANTS", "MetricSetup", "NotStrIds", "Request",
           "adjacent_starts", "all_str", "column_states", "compute_metrics", "cut_sums",
           "dense_factorize", "exact_partials", "first_codes", "gather_int64", "greedy_ideal", "group_rows", "group_truth",
           "group_truth_raw", "ideal_lists", "index_at", "index_ids", "intent_keys",
           "intent_pairs", "join_lists", "kernel_columns", "kl_sums", "list_gains",
           "list_kl_ratios", "list_pass", "nonfinite", "pack_lists", "profile_cells",
           "same_ids_at", "sorted_index", "str_codes", "train_lists", "utf8_at", "utf8_take",
           "xlogy_ratios",
           "xlogy_row_sums"]
