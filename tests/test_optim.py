"""schedlab.science.optim: the ||w||_1 = 1 sphere (normalisation, lattice, vertices,
uniform draws), xNES on functions with known minima, CMA-ES through the cma
library, and the search on the sphere with its budget and restarts."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from schedlab.science import optim
from schedlab.errors import InputError


# ---------------------------------------------------------------- the sphere --

def test_normalise_rows_and_zero():
    w = optim.normalise([[2.0, -1.0, 1.0], [0.0, 0.0, -3.0]])
    np.testing.assert_allclose(w, [[0.5, -0.25, 0.25], [0.0, 0.0, -1.0]])
    np.testing.assert_allclose(np.abs(w).sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="no direction"):
        optim.normalise([0.0, 0.0, 0.0])


def test_vertices_are_the_signed_unit_vectors():
    v = optim.vertices(3)
    assert v.tolist() == [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]
    with pytest.raises(InputError):
        optim.vertices(0)


def _brute_lattice(d, n):
    return {k for k in itertools.product(range(-n, n + 1), repeat=d) if sum(map(abs, k)) == n}


@pytest.mark.parametrize("d,n", [(1, 3), (2, 1), (2, 5), (3, 1), (3, 4), (3, 7), (4, 3)])
def test_lattice_is_every_point_of_the_sphere_on_the_grid(d, n):
    pts = optim.l1_lattice(d, n)
    expected = _brute_lattice(d, n)
    assert len(pts) == len(expected) == optim.lattice_size(d, n)
    assert {tuple(int(round(x)) for x in row * n) for row in pts} == expected
    np.testing.assert_allclose(np.abs(pts).sum(axis=1), 1.0)
    assert [tuple(r) for r in pts] == sorted(tuple(r) for r in pts)        # lexicographic order


def test_lattice_sizes():
    for n in (1, 2, 10, 100):
        assert optim.lattice_size(3, n) == 4 * n * n + 2        # the octahedron
    assert optim.lattice_size(6, 4) == len(optim.l1_lattice(6, 4)) == 912
    pts = optim.l1_lattice(3, 10)
    assert {tuple(v) for v in optim.vertices(3)} <= {tuple(r) for r in pts}
    with pytest.raises(InputError, match="resolution"):
        optim.l1_lattice(3, 0)


def test_uniform_l1_is_on_the_sphere_and_centred():
    rng = np.random.default_rng(5)
    x = optim.uniform_l1(rng, 3, 20000)
    np.testing.assert_allclose(np.abs(x).sum(axis=1), 1.0)
    assert np.all(np.abs(x.mean(axis=0)) < 0.02)
    # uniform on the octahedron: |w_1| is distributed as 1 - sqrt(U) on each face (P(|w_1| < 1/2) = 3/4)
    assert abs(np.mean(np.abs(x[:, 0]) < 0.5) - 0.75) < 0.02


# ---------------------------------------------------------------------- xNES --

def test_xnes_defaults_follow_the_paper():
    for d, lam in ((1, 4), (2, 6), (3, 7), (6, 9), (10, 10)):
        p = optim.xnes_defaults(d)
        assert p["popsize"] == lam == 4 + int(math.floor(3 * math.log(d)))
        assert p["eta_sigma"] == p["eta_B"] == pytest.approx(3 * (3 + math.log(d)) / (5 * d * math.sqrt(d)))
        u = p["utilities"]
        assert u.sum() == pytest.approx(0.0, abs=1e-12)
        assert np.all(np.diff(u) <= 0) and u[-1] == pytest.approx(-1 / lam)


def sphere(x):
    return float(np.sum((x - 1.5) ** 2))


def rosenbrock(x):
    return float(np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2))


def rotated_ellipsoid(x):
    d = x.size
    q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((d, d)))
    y = q @ (x - 0.7)
    return float(np.sum(10 ** (6 * np.arange(d) / (d - 1)) * y ** 2))


@pytest.mark.parametrize("d", [1, 2, 5])
def test_xnes_minimises_the_sphere(d):
    r = optim.xnes(sphere, np.zeros(d), 1.0, 3000, seed=1)
    assert r.f < 1e-10
    np.testing.assert_allclose(r.x, 1.5, atol=1e-5)
    assert r.evaluations <= 3000 and r.method == "xnes"


def test_xnes_adapts_its_shape_on_an_ill_conditioned_rotated_ellipsoid():
    r = optim.xnes(rotated_ellipsoid, np.zeros(4), 1.0, 8000, seed=2)
    assert r.f < 1e-8
    np.testing.assert_allclose(r.x, 0.7, atol=1e-4)


def test_xnes_follows_the_rosenbrock_valley():
    r = optim.xnes(rosenbrock, np.zeros(3), 0.5, 20000, seed=3)
    assert r.f < 1e-8
    np.testing.assert_allclose(r.x, 1.0, atol=1e-3)


def test_xnes_budget_history_and_seed():
    a = optim.xnes(sphere, np.zeros(3), 1.0, 100, seed=7)
    b = optim.xnes(sphere, np.zeros(3), 1.0, 100, seed=7)
    assert a.evaluations == 98 == len(a.history)          # 14 whole generations of 7
    assert np.all(np.diff(a.history) <= 0) and a.history[-1] == a.f
    assert a.f == b.f and np.array_equal(a.x, b.x)
    assert optim.xnes(sphere, np.zeros(3), 1.0, 100, seed=8).f != a.f
    with pytest.raises(InputError):
        optim.xnes(sphere, np.zeros(3), -1.0, 100)
    with pytest.raises(InputError):
        optim.xnes(sphere, np.zeros(3), 1.0, 0)


def test_xnes_stops_on_a_plateau_with_patience():
    r = optim.xnes(lambda x: 1.0, np.zeros(2), 1.0, 10000, seed=0, patience=5)
    assert r.info["stop"] == "patience" and r.evaluations == 6 * 6


def test_cmaes_minimises_the_sphere_and_rosenbrock():
    r = optim.cmaes(sphere, np.zeros(4), 1.0, 4000, seed=1)
    assert r.f < 1e-10 and r.method == "cma" and r.evaluations <= 4000
    r = optim.cmaes(rosenbrock, np.zeros(3), 0.5, 6000, seed=1)
    assert r.f < 1e-6


# ------------------------------------------------------- search on the sphere --

def _target(d, seed=0):
    return optim.normalise(np.random.default_rng(seed).laplace(size=d))


@pytest.mark.parametrize("method", ["xnes", "cma"])
def test_minimise_l1_finds_a_point_of_the_sphere(method):
    w0 = _target(4)
    r = optim.minimise_l1(lambda w: float(np.sum(np.abs(w - w0))), 4, method, 3000, seed=4)
    assert np.sum(np.abs(r.x)) == pytest.approx(1.0)
    np.testing.assert_allclose(r.x, w0, atol=1e-3)
    assert r.evaluations <= 3000 and len(r.history) == r.evaluations
    assert np.all(np.diff(r.history) <= 0)


def test_minimise_l1_scale_invariant_objective_and_vertices_first():
    seen = []

    def f(w):
        seen.append(np.array(w))
        return float(np.dot(w, [3.0, -1.0, 0.5]))      # linear: minimum at the vertex -e_0
    r = optim.minimise_l1(f, 3, "xnes", 200, seed=0)
    np.testing.assert_allclose(np.array(seen[:6]), optim.vertices(3))
    assert np.allclose(np.abs(np.array(seen)).sum(axis=1), 1.0)       # f only ever sees the sphere
    np.testing.assert_allclose(r.x, [-1.0, 0.0, 0.0])
    assert r.f == pytest.approx(-3.0)


def test_minimise_l1_restarts_on_a_plateau_with_doubled_populations():
    """A run that stops improving is restarted from a random point of the
    sphere with twice the population (IPOP), until the budget is spent."""
    multi = optim.minimise_l1(lambda w: 1.0, 3, "xnes", 1000, seed=1, patience=4)
    runs = multi.info["runs"]
    assert len(runs) >= 3 and all(r["stop"] == "patience" for r in runs[:-2])
    pops = [r["popsize"] for r in runs]
    k = pops.index(7, 1) if 7 in pops[1:] else len(pops)   # the budget's remainder: the default size
    assert pops[:k] == [7 * 2 ** i for i in range(k)] and set(pops[k:]) <= {7}
    assert len({tuple(r["start"]) for r in runs}) == len(runs)
    assert all(abs(sum(map(abs, r["start"])) - 1) < 1e-12 for r in runs)
    assert multi.evaluations <= 1000 and multi.evaluations == 6 + sum(r["evaluations"] for r in runs)
    single = optim.minimise_l1(lambda w: 1.0, 3, "xnes", 1000, seed=1, restarts=False)
    assert len(single.info["runs"]) == 1 and single.evaluations == 6 + 994 // 7 * 7
    cma = optim.minimise_l1(lambda w: 1.0, 3, "cma", 600, seed=1, patience=4)
    assert len(cma.info["runs"]) >= 2 and cma.evaluations <= 600


def test_minimise_l1_random_baseline_uses_the_whole_budget():
    r = optim.minimise_l1(lambda w: float(w[0]), 3, "random", 50, seed=0)
    assert r.evaluations == 50 and r.f == -1.0        # the vertex -e_0 is evaluated first
    with pytest.raises(InputError, match="method"):
        optim.minimise_l1(lambda w: 0.0, 3, "anneal", 50)


def _steps(w):
    """A piecewise-constant objective, like a schedule's (many plateaus)."""
    return float(np.floor(7.0 * np.dot(w, [0.9, -0.4, 0.25])) + np.floor(5.0 * w[1] * w[2]))


@pytest.mark.parametrize("method", ["xnes", "cma", "random"])
def test_minimise_l1_with_f_many_is_the_same_search(method):
    """Values handed over together (f_many: the mixed study's many weight
    vectors in one simulation) give the very search f gives alone: the same
    points in the same order, the same history and result; f itself is then
    called for none of the points f_many answered."""
    calls = {"f": 0, "many": 0, "points": 0}

    def f(w):
        calls["f"] += 1
        return _steps(w)

    def f_many(W):
        calls["many"] += 1
        calls["points"] += len(W)
        return [_steps(w) for w in W]

    alone = optim.minimise_l1(_steps, 3, method, 400, seed=3, patience=4)
    together = optim.minimise_l1(f, 3, method, 400, seed=3, patience=4, f_many=f_many)
    assert together.evaluations == alone.evaluations and together.f == alone.f
    np.testing.assert_array_equal(together.x, alone.x)
    np.testing.assert_array_equal(together.history, alone.history)
    assert [r["evaluations"] for r in together.info["runs"]] == [r["evaluations"] for r in alone.info["runs"]]
    assert calls["f"] == 0 and calls["points"] == together.evaluations
    assert calls["many"] >= (2 if method == "random" else 3)      # vertices, then points or generations

    # values handed over in the wrong order are used as given: the search changes
    shuffled = optim.minimise_l1(_steps, 3, method, 400, seed=3, patience=4,
                                 f_many=lambda W: [_steps(w) for w in W][::-1])
    assert not np.array_equal(shuffled.history, alone.history)
