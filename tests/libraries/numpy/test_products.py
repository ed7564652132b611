"""xjax.numpy's products against NumPy: vdot, inner, outer, tensordot, kron, cross and
einsum."""
import numpy as np
import pytest

import xjax.numpy as jnp

from tests.checking import check
from tests.libraries.numpy.operands import A, V

R = np.random.RandomState(1)


def test_products():
  check(jnp.vdot(A, A), np.vdot(A, A), rtol=1e-5)
  check(jnp.inner(A, A), np.inner(A, A), rtol=1e-5)
  check(jnp.outer(np.arange(3), np.arange(2.)), np.outer(np.arange(3), np.arange(2.)).astype(
      np.float32))
  check(jnp.tensordot(A, A), np.tensordot(A, A), rtol=1e-5)
  check(jnp.tensordot(A, A.T, 1), np.tensordot(A, A.T, 1), rtol=1e-5)
  check(jnp.tensordot(A, A, (1, 1)), np.tensordot(A, A, (1, 1)), rtol=1e-5)
  check(jnp.tensordot(A, A, ([0, -1], [0, 1])), np.tensordot(A, A, ([0, 1], [0, 1])),
        rtol=1e-5)
  check(jnp.kron(np.eye(2, dtype=np.float32), V), np.kron(np.eye(2, dtype=np.float32), V))
  check(jnp.cross(np.array([1., 2, 3]), np.array([4., 5, 6])),
        np.cross([1., 2, 3], [4., 5, 6]).astype(np.float32))
  check(jnp.cross(np.array([1, 2]), np.array([3, 4])), np.int32(1 * 4 - 2 * 3))
  b = R.randn(5, 3).astype(np.float32)
  check(jnp.cross(b, b[::-1]), np.cross(b, b[::-1]), rtol=1e-5)


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk", [(3, 4), (4, 2)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]),
    ("...j,j->...", [(2, 3, 4), (4,)]), ("ij,kj,k->i", [(3, 4), (5, 4), (5,)]),
    ("ij->", [(3, 4)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("i,j", [(3,), (2,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("i...,i...->...", [(3, 2), (3, 2)]),
    ("ba,ab", [(2, 3), (3, 2)])])
def test_einsum(spec, shapes):
  ops = [R.randn(*s).astype(np.float32) for s in shapes]
  check(jnp.einsum(spec, *ops), np.einsum(spec, *ops).astype(np.float32), rtol=1e-4,
        atol=1e-4)


def test_einsum_output_subscripts_come_from_the_inputs():
  with pytest.raises(ValueError, match="Output character 'j' did not appear in the input"):
    jnp.einsum("i->j", np.ones(3))
  with pytest.raises(ValueError, match="Output character 'i' appeared more than once"):
    jnp.einsum("i->ii", np.ones(3))


def test_mixed_dtype_products_contract_in_the_result_type():
  """Operands reach dot_general in their own dtypes; einsum's sums are taken in the
  contraction's type (int8 operands summed as int32 under preferred_element_type)."""
  x = np.arange(6., dtype=np.float32).reshape(2, 3) - 2.5
  i = np.array([1, -2, 3], np.int32)
  check(jnp.dot(x, i), x @ i.astype(np.float32))
  check(jnp.dot(x, 2), x * 2)
  check(jnp.dot(np.array([True, False, True]), i), np.int32(4))
  check(jnp.einsum('ij,k->i', x, i), x.sum(1) * np.float32(i.sum()))
  i8 = np.array([100, 100, 27], np.int8)
  check(jnp.einsum('j,k->', i8, i8, preferred_element_type=jnp.int32), np.int32(227 * 227))
  b = np.array([True, False, True])
  check(jnp.einsum('j,k->', b, b), np.True_)


# JAX 0.10.2's jaxprs (opt_einsum plans the order; each pair is one dot_general, (rhs, lhs)
# first when that order needs no transpose).
_JAX_EINSUM_JAXPRS = {
    ("ij,kj->ki", ((2, 3), (4, 3))): """{ lambda ; a:f32[2,3] b:f32[4,3]. let
    c:f32[4,2] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      preferred_element_type=float32
    ] b a
  in (c,) }""",
    ("ij,jk,kl->il", ((3, 3), (3, 3), (3, 3))): """{ lambda ; a:f32[3,3] b:f32[3,3] c:f32[3,3]. let
    d:f32[3,3] = dot_general[
      dimension_numbers=(([0], [1]), ([], []))
      preferred_element_type=float32
    ] b a
    e:f32[3,3] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] d c
  in (e,) }""",
    ("ii->i", ((3, 3),)): """{ lambda ; a:f32[3,3]. let
    b:u32[3,3] = iota[dimension=0 dtype=uint32 shape=(3, 3) sharding=None] 
    c:u32[3,3] = iota[dimension=1 dtype=uint32 shape=(3, 3) sharding=None] 
    d:bool[3,3] = eq b c
    e:f32[3,3] = broadcast_in_dim 0.0:f32[]
    f:f32[3,3] = select_n d e a
    g:f32[3] = reduce_sum[axes=(0,) out_sharding=None] f
  in (g,) }""",
}


@pytest.mark.parametrize("spec,shapes", list(_JAX_EINSUM_JAXPRS))
def test_einsum_builds_jaxs_program(spec, shapes):
  import xjax
  ops = [np.ones(s, np.float32) for s in shapes]
  text = str(xjax.make_jaxpr(lambda *o: jnp.einsum(spec, *o))(*ops))
  assert text == _JAX_EINSUM_JAXPRS[spec, shapes]


def test_multi_dot_contracts_in_jaxs_order():
  """(AB)C for three equal square matrices, as JAX's einsum-based multi_dot: the float32
  result is bit for bit the compiled (A @ B) @ C, not A @ (B @ C)."""
  import xjax
  rng = np.random.default_rng(1)
  a, b, c = (rng.standard_normal((6, 6)).astype(np.float32) for _ in range(3))
  got = np.asarray(jnp.linalg.multi_dot([a, b, c]))
  left = np.asarray(xjax.jit(lambda a, b, c: (a @ b) @ c)(a, b, c))
  np.testing.assert_array_equal(got, left)
  assert "dot_general" in str(xjax.make_jaxpr(lambda *m: jnp.linalg.multi_dot(m))(a, b, c))
  with pytest.raises(TypeError):
    jnp.linalg.multi_dot([[[1., 2.]], a])  # lists are not arrays, as in JAX


def test_dot_general_transpose_keeps_the_preferred_element_type():
  """The cotangent's dot_general carries the product's preferred_element_type (JAX prints
  it), and a mixed float/int einsum differentiates in the float type."""
  import xjax
  f = lambda a, b: jnp.sum(jnp.einsum("ij,j", a, b))
  x, i = np.arange(6., dtype=np.float32).reshape(2, 3), np.array([1, -2, 3], np.int32)
  text = str(xjax.make_jaxpr(xjax.grad(f))(x, i))
  assert text.count("preferred_element_type=float32") == 2
  check(xjax.grad(f)(x, i), np.broadcast_to(i.astype(np.float32), (2, 3)))
