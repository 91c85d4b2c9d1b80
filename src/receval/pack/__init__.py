"""Packing: raw ids to codes, ordered per-user lists joined with the truth."""

from .matrix import run_from_matrix, truth_from_sparse
from .options import KernelOptions, kernel_options
from .packed import (
           BLOCK_POSITIONS,
           Packed,
           RunCodes,
           TruthPack,
           pack_run,
           pack_run_blocks,
           pack_truth,
           run_codes,
)

__all__ = ["BLOCK_POSITIONS", "KernelOptions", "Packed", "RunCodes", "TruthPack", "pack_run", "pack_run_blocks", "pack_truth", "run_codes", "kernel_options",
           "run_from_matrix", "truth_from_sparse"]
