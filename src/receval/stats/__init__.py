"""Statistics over per-user values: paired tests, resampling, corrections, effect sizes.

The entry point is :func:`compare`, which returns a :class:`Comparison`. The building blocks
work on per-user differences and are vectorized over pairs of systems.
"""

from ..results.comparison import PAIR_COLUMNS, Comparison
from .compare import TEST_TITLES, TESTS, compare
from .corrections import CORRECTIONS, adjust
from .groups import (
    GROUP_PAIR_COLUMNS,
    INTERACTION_COLUMNS,
    GroupComparison,
    anova_f,
    interaction_test,
)
from .paired import (
    ALTERNATIVES,
    TestResult,
    bootstrap,
    cohens_d,
    paired_ttest,
    permutation_test,
    sign_test,
    t_interval,
    wilcoxon,
    win_tie_loss,
)
from .tukey import TukeyResult, tukey_hsd

__all__ = [
    "ALTERNATIVES", "CORRECTIONS", "GROUP_PAIR_COLUMNS", "INTERACTION_COLUMNS", "PAIR_COLUMNS",
    "TESTS", "TEST_TITLES", "Comparison", "GroupComparison", "TestResult",
    "TukeyResult", "adjust", "anova_f", "bootstrap", "cohens_d", "compare", "interaction_test",
    "paired_ttest",
    "permutation_test", "sign_test", "t_interval", "tukey_hsd", "wilcoxon", "win_tie_loss",
]
