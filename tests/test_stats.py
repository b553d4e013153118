import numpy as np

from schedlab import stats


def test_relative_handles_zero_weeks():
    r = stats.relative([2, 0, 3, 1], [1, 0, 0, 4])
    assert r[0] == 2 and r[1] == 1 and np.isnan(r[2]) and r[3] == 0.25


def test_bootstrap_ci_covers_the_mean_and_shrinks_with_n():
    rng = np.random.default_rng(0)
    small = rng.normal(1.0, 0.5, 30)
    large = rng.normal(1.0, 0.5, 3000)
    m1, lo1, hi1 = stats.bootstrap_ci(small)
    m2, lo2, hi2 = stats.bootstrap_ci(large)
    assert lo1 < m1 < hi1 and lo2 < m2 < hi2
    assert lo2 < 1.0 < hi2
    assert (hi2 - lo2) < (hi1 - lo1) / 5
    # standard error of the mean ~ 0.5/sqrt(3000): the 95% half width ~ 1.96 se
    assert abs((hi2 - lo2) / 2 - 1.96 * 0.5 / np.sqrt(3000)) < 0.005
    # seeded and along an axis
    a = stats.bootstrap_ci(np.stack([small, small + 1]), axis=1)
    assert np.allclose(a[0], [m1, m1 + 1]) and np.allclose(a[1][0], lo1)
    assert stats.significant(lo2 + 0.5, hi2 + 0.5).item() and not stats.significant(lo2, hi2).item()


def test_deciles():
    lo, hi = stats.deciles(np.arange(101.0))
    assert lo == 10 and hi == 90
