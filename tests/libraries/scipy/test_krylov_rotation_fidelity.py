"""Fidelity of jax.scipy.sparse.linalg's gmres (both solve methods, its ``info``), the
square-operator check of cg/bicgstab/gmres, and Rotation's shape checks: the bit patterns
and messages below were recorded from JAX 0.10.2; SciPy is an independent oracle for the
solutions."""
import numpy as np
import pytest
import scipy.sparse.linalg

import xjax as jax
import xjax.numpy as jnp
from xjax.scipy.sparse import linalg as sla
from xjax.scipy.spatial.transform import Rotation

_RNG = np.random.RandomState(0)
X = _RNG.standard_normal(6).astype(np.float32)
Y = _RNG.standard_normal(6).astype(np.float32)
WIDE = _RNG.standard_normal((3, 4)).astype(np.float32)
A3 = _RNG.standard_normal((3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
_RNG = np.random.RandomState(1)
A8 = (_RNG.standard_normal((8, 8)) + 2 * np.eye(8)).astype(np.float32)
B8 = _RNG.standard_normal(8).astype(np.float32)


def _hex(x):
  return np.asarray(x).tobytes().hex()


def _assert_info(info, value):
  assert info.dtype == np.int32 and info.aval.weak_type
  assert int(info) == value


GMRES_CASES = {  # (A, b, keyword arguments) -> x's bits in JAX
    "batched": ((A3, X[:3], {}), "4739a33ee51133bd8f47e53e"),
    "incremental": ((A3, X[:3], dict(solve_method="incremental")), "4839a33ee41133bd8e47e53e"),
    "restart": ((A3, Y[:3], dict(restart=2, maxiter=3)), "ea61373ee82fcdbb4f5f79bd"),
    "M_x0": ((A3, Y[:3], dict(x0=jnp.ones(3), M=lambda v: v / 3.)), "e463373e001acdbb606279bd"),
    "diagonal": ((2 * np.eye(3, dtype=np.float32), X[:3], {}), "76cc613f66e14c3e918efa3e"),
    "batched_tol": ((A8, B8, dict(tol=1e-2)),
                    "1669eebf0879a7404f929040ef1e39415a33d940ddce7dc0a9bb7f403b6289c0"),
    "incremental_tol": ((A8, B8, dict(tol=1e-2, solve_method="incremental")),  # stops early
                        "116feebf247da740d79590400b233941ba37d94046d77dc005c07f40f26389c0"),
    "batched_restart": ((A8, B8, dict(restart=3, maxiter=4)),
                        "244a023fc0ca8abfb06f153cb6c5c0bfbc142c3f1df6b63f54a8a2beb8c82abe"),
    "incremental_restart": ((A8, B8, dict(restart=3, maxiter=4, solve_method="incremental")),
                            "1a4a023fb6ca8abf687a153ca1c5c0bff6142c3f11f6b63f37a8a2be98c82abe"),
}


@pytest.mark.parametrize("name", GMRES_CASES)
@pytest.mark.cpu_bits
def test_gmres_bits_and_info_match_jax(name):
  (a, b, kwargs), bits = GMRES_CASES[name]
  x, info = sla.gmres(jnp.asarray(a), jnp.asarray(b), **kwargs)
  assert x.dtype == np.float32 and not x.aval.weak_type
  assert _hex(x) == bits
  _assert_info(info, 0)


@pytest.mark.parametrize("method", ["batched", "incremental"])
def test_gmres_agrees_with_scipy(method):
  expected, scipy_info = scipy.sparse.linalg.gmres(A8.astype(np.float64), B8.astype(np.float64),
                                                   rtol=1e-10, atol=0.)
  assert scipy_info == 0
  x, info = sla.gmres(jnp.asarray(A8), jnp.asarray(B8), tol=1e-6, solve_method=method)
  np.testing.assert_allclose(x, expected, rtol=2e-4, atol=2e-4)
  _assert_info(info, 0)


def test_gmres_complex_and_pytree_bits():
  x, info = sla.gmres(jnp.array([[2., 1j], [0., 3.]], jnp.complex64),
                      jnp.array([1., 1j], jnp.complex64))
  assert x.dtype == np.complex64 and _hex(x) == "acaa2a3f0000000000000000aeaaaa3e"
  _assert_info(info, 0)
  x, info = sla.gmres(lambda d: {"a": 2. * d["a"], "c": jnp.asarray(A3) @ d["c"]},
                      {"a": jnp.asarray(Y[:2]), "c": jnp.asarray(X[:3])},
                      solve_method="incremental")
  assert _hex(x["a"]) == "fe38f33e64fd9abd" and _hex(x["c"]) == "4c39a33eea1133bd8f47e53e"
  _assert_info(info, 0)


def test_gmres_info_is_minus_one_for_nan_solution():
  x, info = sla.gmres(jnp.asarray(A3), jnp.asarray(X[:3]),
                      x0=jnp.array([np.nan, 0., 0.], jnp.float32))
  assert _hex(x) == "0000c07f0000000000000000"
  _assert_info(info, -1)
  # a NaN residual normalizes to zero: the solution stays finite, as in JAX
  x, info = sla.gmres(lambda v: v * jnp.nan, jnp.asarray(X[:3]), solve_method="incremental")
  assert _hex(x) == "000000000000000000000000"
  _assert_info(info, 0)


@pytest.mark.cpu_bits
def test_gmres_under_transformations_matches_jax():
  x, info = jax.jit(lambda a, b: sla.gmres(a, b, restart=4))(jnp.asarray(A8), jnp.asarray(B8))
  assert _hex(x) == "4c18253fea51e4bf16b3acbe1b7e1ec090a5a93eb1e612406ce7dfbe8a7519be"
  _assert_info(info, 0)
  x, info = jax.vmap(lambda b: sla.gmres(jnp.asarray(A3), b, solve_method="incremental"))(
      jnp.stack([X[:3], Y[:3]]))
  assert _hex(x) == "4739a33ee11133bd8c47e53ee763373eb31bcdbb4a6279bd"
  assert info.shape == (2,) and info.aval.weak_type and not np.any(info)
  # implicit gradients, through custom_linear_solve
  g = jax.grad(lambda b: sla.gmres(jnp.asarray(A3), b)[0].sum())(jnp.asarray(X[:3]))
  assert _hex(g) == "dcf1423e79d5833efa93943e"
  g = jax.grad(lambda b: sla.gmres(jnp.asarray(A8), b, solve_method="incremental")[0].sum())(
      jnp.asarray(B8))
  assert _hex(g) == "3c5c20be85c09ec01830a23fcc85a1bf658c89404d6d15c1259412c021ace240"
  np.testing.assert_allclose(g, np.linalg.solve(A8.T.astype(np.float64), np.ones(8)),
                             rtol=1e-3, atol=1e-3)
  g = jax.grad(lambda a: sla.gmres(a, jnp.asarray(X[:3]))[0].sum())(jnp.asarray(A3))
  assert _hex(g) == ("3a9778bdbd5c083cd898aebdd61ca8bdf56e383c9e25ecbded76bdbdb5db4f3ce71105be")


def test_cg_complex_bits():
  x, info = sla.cg(jnp.array([[2., 0.5j], [-0.5j, 3.]], jnp.complex64),
                   jnp.array([1., 1j], jnp.complex64))
  assert info is None and _hex(x) == "7ad31b3f0000000000000000d49bde3e"


@pytest.mark.parametrize("solver", [sla.cg, sla.bicgstab, sla.gmres])
def test_operator_must_be_a_square_matrix(solver):
  message = r"linear operator must be a square matrix, but has shape: \(3, 4\)"
  with pytest.raises(ValueError, match=message):
    solver(jnp.asarray(WIDE), jnp.asarray(X[:3]))
  with pytest.raises(ValueError, match=message):
    solver(WIDE, X[:3])  # NumPy arrays too
  with pytest.raises(ValueError, match=message):  # the preconditioner as well
    solver(jnp.asarray(A3), jnp.asarray(X[:3]), M=jnp.asarray(WIDE))
  with pytest.raises(ValueError, match=r"square matrix, but has shape: \(3,\)"):
    solver(jnp.asarray(X[:3]), jnp.asarray(X[:3]))
  with pytest.raises(TypeError, match="either a function or ndarray"):
    solver([[1., 0.], [0., 1.]], jnp.ones(2))


def test_gmres_argument_errors_are_jax_s():
  with pytest.raises(ValueError, match="^invalid solve_method qr, must be either "
                     "'incremental' or 'batched'$"):
    sla.gmres(jnp.asarray(A3), jnp.asarray(X[:3]), solve_method="qr")
  with pytest.raises(ValueError, match="x0 and b must have matching tree structure"):
    sla.gmres(jnp.asarray(A3), jnp.asarray(X[:3]), x0=[jnp.zeros(3)])
  with pytest.raises(ValueError, match=r"matching shapes: \[\(2,\)\] vs \[\(3,\)\]"):
    sla.cg(jnp.asarray(A3), jnp.asarray(X[:3]), x0=jnp.zeros(2))


_VECTORIZE = "on vectorized function with excluded=frozenset() and signature="


@pytest.mark.parametrize("shape,message", [
    ((3, 4), "inconsistent size for core dimension 'm': 4 vs 3"),
    ((2, 3, 4), "inconsistent size for core dimension 'm': 4 vs 3"),
    ((3,), "input with shape (3,) does not have enough dimensions for all core dimensions "
           "('m', 'm')"),
])
def test_rotation_from_matrix_shape_errors(shape, message):
  with pytest.raises(ValueError) as error:
    Rotation.from_matrix(jnp.ones(shape))
  assert str(error.value) == f"{message} {_VECTORIZE}'(m,m)->(n)'"


@pytest.mark.parametrize("shape,message", [
    ((6,), "inconsistent size for core dimension 'm': 6 vs 3"),
    ((2, 4), "inconsistent size for core dimension 'm': 4 vs 3"),
    ((), "input with shape () does not have enough dimensions for all core dimensions ('m',)"),
])
def test_rotation_apply_shape_errors(shape, message):
  with pytest.raises(ValueError) as error:
    Rotation.from_rotvec(jnp.array([0.1, 0.2, 0.3])).apply(jnp.ones(shape))
  assert str(error.value) == f"{message} {_VECTORIZE}'(m,m),(m),()->(m)'"


def test_rotation_shapes_that_fit_still_work():
  two = Rotation.from_rotvec(jnp.array([[0.1, 0.2, 0.3], [0., 0., np.pi / 2]]))
  assert two.apply(jnp.ones((5, 1, 3))).shape == (5, 2, 3)
  np.testing.assert_allclose(two[1].apply(jnp.array([1., 0., 0.])), [0., 1., 0.], atol=1e-6)
  with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
    two.apply(jnp.ones((3, 3)))  # 2 rotations against 3 vectors
  # a larger square matrix uses its leading 3x3 block (as JAX)
  m = np.random.RandomState(0).standard_normal((4, 4)).astype(np.float32)
  assert _hex(Rotation.from_matrix(m).as_quat()) == "2d7e523fa1b1043ff5eb4c3e0e8bfcbd"
  assert _hex(Rotation.from_matrix(m[:3, :3]).as_quat()) == "2d7e523fa1b1043ff5eb4c3e0e8bfcbd"
  # kept working where JAX fails (identity(num) asserts, random is not implemented there)
  assert Rotation.identity(3).as_matrix().shape == (3, 3, 3)
  quats = Rotation.random(jax.random.key(0), 2).as_quat()
  np.testing.assert_allclose(np.linalg.norm(quats, axis=-1), 1., rtol=1e-6)
