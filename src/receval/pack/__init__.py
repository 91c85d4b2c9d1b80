"""Packing: raw ids to codes, ordered per-user lists joined with the truth."""

from .packed import (
           Packed,
           RunCodes,
           TruthPack,
           pack_run,
           pack_truth,
           run_codes,
           run_from_matrix,
           truth_from_sparse,
)

__all__ = ["Packed", "RunCodes", "TruthPack", "pack_run", "pack_truth", "run_codes",
           "run_from_matrix", "truth_from_sparse"]
