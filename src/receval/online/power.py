"""Power, sample size and minimum detectable effect of a two-sample z test.

With arms of ``n_a``, ``n_b`` units, per-unit variances ``var_a``, ``var_b`` and absolute effect
``delta``: ``SE = sqrt(var_a / n_a + var_b / n_b)`` and, two-sided,

    power = Phi(delta / SE - z_{1-alpha/2}) + Phi(-delta / SE - z_{1-alpha/2}),

    n_a = (z_{1-alpha/2} + z_{power})^2 (var_a + var_b / ratio) / delta^2,   n_b = ratio * n_a,

    MDE = (z_{1-alpha/2} + z_{power}) * SE   (the far tail is ignored, as is usual).

With CUPED every variance is multiplied by ``1 - rho2`` (Deng et al., WSDM 2013), ``rho2`` in
``[0, 1)``. For a ratio
metric use ``var = n * Var(R)`` from the delta method on historical data. References: van Belle,
*Statistical Rules of Thumb* (2008), ch. 2 (``n ~ 16 var / delta^2``); Kohavi, Longbotham,
Sommerfield & Henne, "Controlled experiments on the web", Data Min. Knowl. Disc. 18 (2009).
One-sided tests (``alternative="larger"``) use ``z_{1-alpha}`` and only the upper tail.
"""

from __future__ import annotations

import math

from scipy import stats

from ..errors import PolicyError, plain
from ..validation import FINITE, PROBABILITY_OPEN, Interval, Options, Real, validate_params
from ._params import POSITIVE

#: the share of variance CUPED removes: ``rho2 = 1`` would leave no variance at all
RHO2 = [Interval(Real, 0, 1, closed="left")]
_COMMON = {"alpha": PROBABILITY_OPEN, "rho2": RHO2,
           "alternative": [Options(("two-sided", "larger"))]}


def _z(alpha: float, alternative: str) -> float:
    if not 0 < alpha < 1:
        raise PolicyError(f"alpha={plain(alpha)} must lie in (0, 1), e.g. 0.05.")
    if alternative == "two-sided":
        return float(stats.norm.ppf(1 - alpha / 2))
    if alternative == "larger":
        return float(stats.norm.ppf(1 - alpha))
    raise PolicyError(f"alternative={plain(alternative)} is not valid; choose 'two-sided' or 'larger'.")


def _positive(**kw: float) -> None:
    for k, v in kw.items():
        if not (v > 0 and math.isfinite(v)):
            raise PolicyError(f"{k}={plain(v)} must be a positive finite number.")


@validate_params({**_COMMON, "effect": FINITE, "var_a": POSITIVE, "n_a": POSITIVE,
                  "var_b": [None, *POSITIVE], "n_b": [None, *POSITIVE]})
def power(effect: float, var_a: float, n_a: float, *, var_b: float | None = None,
          n_b: float | None = None, alpha: float = 0.05, rho2: float = 0.0,
          alternative: str = "two-sided") -> float:
    """Probability that the z test rejects when the true absolute effect is ``effect``."""
    var_b = var_a if var_b is None else var_b
    n_b = n_a if n_b is None else n_b
    _positive(var_a=var_a, var_b=var_b, n_a=n_a, n_b=n_b)
    z = _z(alpha, alternative)
    se = math.sqrt((1 - rho2) * (var_a / n_a + var_b / n_b))
    out = stats.norm.cdf(effect / se - z)
    if alternative == "two-sided":
        out += stats.norm.cdf(-effect / se - z)
    return float(out)


@validate_params({**_COMMON, "effect": FINITE, "var_a": POSITIVE, "var_b": [None, *POSITIVE],
                  "power": PROBABILITY_OPEN, "ratio": POSITIVE})
def sample_size(effect: float, var_a: float, *, var_b: float | None = None, alpha: float = 0.05,
                power: float = 0.8, ratio: float = 1.0, rho2: float = 0.0,
                alternative: str = "two-sided") -> float:
    """Units needed in arm A (arm B gets ``ratio`` times as many); round up to use it."""
    var_b = var_a if var_b is None else var_b
    if effect == 0:
        raise PolicyError("sample_size: effect=0 is not valid; no sample detects a zero effect "
                          "(give the smallest effect worth detecting).")
    _positive(var_a=var_a, var_b=var_b, ratio=ratio, effect=abs(effect))
    if not 0 < power < 1:
        raise PolicyError(f"power={plain(power)} must lie in (0, 1), e.g. 0.8.")
    zsum = _z(alpha, alternative) + float(stats.norm.ppf(power))
    return zsum ** 2 * (1 - rho2) * (var_a + var_b / ratio) / effect ** 2


@validate_params({**_COMMON, "var_a": POSITIVE, "n_a": POSITIVE, "var_b": [None, *POSITIVE],
                  "n_b": [None, *POSITIVE], "power": PROBABILITY_OPEN})
def mde(var_a: float, n_a: float, *, var_b: float | None = None, n_b: float | None = None,
        alpha: float = 0.05, power: float = 0.8, rho2: float = 0.0,
        alternative: str = "two-sided") -> float:
    """Smallest absolute effect detected with probability ``power``."""
    var_b = var_a if var_b is None else var_b
    n_b = n_a if n_b is None else n_b
    _positive(var_a=var_a, var_b=var_b, n_a=n_a, n_b=n_b)
    if not 0 < power < 1:
        raise PolicyError(f"power={plain(power)} must lie in (0, 1), e.g. 0.8.")
    se = math.sqrt((1 - rho2) * (var_a / n_a + var_b / n_b))
    return (_z(alpha, alternative) + float(stats.norm.ppf(power))) * se
