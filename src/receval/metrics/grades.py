"""The relevance scale of the graded stopping models (ERR, the C/W/L family): ``max_grade``,
the top of the relevance scale, or by default the largest relevance of the whole truth."""

from __future__ import annotations

from typing import Any

from ..errors import MetricError, plain
from .steps import POSITIVE, UserList


def max_grade_par(spec: Any, max_rel: float) -> float:
    """The kernel parameter: ``max_grade``, or the truth's largest relevance ``max_rel``."""
    grade = spec.get("max_grade")
    par = float(grade) if grade is not None else max(max_rel, POSITIVE)
    if par < max_rel:
        raise MetricError(
            f"{spec.key}: max_grade={plain(grade)} is below the largest relevance in the truth "
            f"({plain(max_rel)}), so a stopping probability (2^rel - 1) / 2^max_grade would exceed 1. "
            "Set max_grade to the top of the relevance scale, or leave it out (the truth "
            "maximum is used)."
        )
    return par


def auto_grade(spec: Any, user: UserList, notes: list[str]) -> float:
    """``max_grade``, or the whole truth's largest relevance when it is left out."""
    grade = spec.get("max_grade")
    if grade is not None:
        return float(grade)
    grade = max(user.truth_max, POSITIVE)
    notes.append(f"max_grade = {grade:g} (the largest relevance in the whole truth)")
    return grade
