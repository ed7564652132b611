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
