# SPDX-License-Identifier: GPL-2.0
"""Statistics of benchmark repetitions for bench_compare.py: the mean,
median and variance of a sample, the 95 % confidence interval of its mean,
and Welch's t-test of two samples, with Student's t distribution from the
regularized incomplete beta function (the standard library has none).
"""
# pylint: disable=invalid-name  # the formulas' names: a, b, x, t, df, n

import math

# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom,
# as the benchmarks use them for "ci95"; 1.96 beyond.
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
        2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
        2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
        2.048, 2.045, 2.042)


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 301):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def mean(values):
    """The arithmetic mean."""
    return sum(values) / len(values)


def median(values):
    """The median."""
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def variance(values):
    """The sample variance (n - 1)."""
    m = mean(values)
    return sum((x - m) ** 2 for x in values) / (len(values) - 1)


def welch(a, b):
    """Welch's t-test of two samples: (t, df, two-sided p)."""
    va, vb = variance(a), variance(b)
    sa, sb = va / len(a), vb / len(b)
    diff = mean(b) - mean(a)
    if sa + sb == 0.0:
        # No spread at all: any difference is certain, none is none.
        return (0.0, math.inf, 1.0) if diff == 0 else \
            (math.copysign(math.inf, diff), math.inf, 0.0)
    t = diff / math.sqrt(sa + sb)
    df = (sa + sb) ** 2 / (sa ** 2 / (len(a) - 1) + sb ** 2 / (len(b) - 1))
    return t, df, t_two_sided_p(t, df)


def ci95_half_width(values):
    """Half the width of the 95 % confidence interval of the mean."""
    n = len(values)
    q = T975[n - 2] if n - 1 <= len(T975) else 1.96
    return q * math.sqrt(variance(values)) / math.sqrt(n)


def det_same(means, before, after, pct):
    """Whether two deterministic counts are the same: apart by less than
    one instruction per element, by PCT % or less, or by no more than the
    repetitions' own spread (an interrupt or the page allocator's batched
    work in one repetition moves the mean of a few)."""
    diff = abs(means[1] - means[0])
    spread = max(ci95_half_width(s) if len(s) > 1 else 0.0
                 for s in (before, after))
    return diff < 1 or diff <= means[0] * pct / 100 or diff <= spread
