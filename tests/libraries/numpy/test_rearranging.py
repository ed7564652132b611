"""xjax.numpy's rearranging functions against NumPy: axes moves, atleast_*, stacking and
splitting, tile/repeat/flip/rot90/roll, append/select and the index helpers."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check
from tests.libraries.numpy.operands import A, I, V


def test_stacking_and_splitting():
  x = np.arange(24.).reshape(2, 3, 4).astype(np.float32)
  check(jnp.moveaxis(x, 0, -1), np.moveaxis(x, 0, -1))
  check(jnp.moveaxis(x, (0, 1), (-1, 0)), np.moveaxis(x, (0, 1), (-1, 0)))
  check(jnp.swapaxes(x, 0, -1), np.swapaxes(x, 0, -1))
  for f in ("atleast_1d", "atleast_2d", "atleast_3d"):
    for v in (np.float32(1), V, A):
      check(getattr(jnp, f)(v), getattr(np, f)(v))
  for f in ("hstack", "vstack", "dstack", "column_stack"):
    check(getattr(jnp, f)([A, A]), getattr(np, f)([A, A]))
    check(getattr(jnp, f)([V, V]), getattr(np, f)([V, V]))
  check(jnp.split(np.arange(6), 3), np.split(np.arange(6, dtype=np.int32), 3))
  check(jnp.split(I, [1, 3], axis=-1), np.split(I, [1, 3], axis=-1))
  check(jnp.array_split(np.arange(7), 3), np.array_split(np.arange(7, dtype=np.int32), 3))
  check(jnp.hsplit(I, 2), np.hsplit(I, 2))
  check(jnp.vsplit(I, [1]), np.vsplit(I, [1]))
  with pytest.raises(ValueError):
    jnp.split(np.arange(7), 3)
  with pytest.raises(ValueError):
    jnp.moveaxis(A, 0, 5)


def test_tile_repeat_flip_roll():
  check(jnp.tile(V, 2), np.tile(V, 2))
  check(jnp.tile(A, (2, 1, 2)), np.tile(A, (2, 1, 2)))
  check(jnp.repeat(I, 2), np.repeat(I, 2))
  check(jnp.repeat(I, 2, axis=-1), np.repeat(I, 2, axis=-1))
  check(jnp.repeat(V[:3], np.array([1, 0, 2])), np.repeat(V[:3], [1, 0, 2]))
  check(jnp.repeat(A, np.array([2, 0, 1]), axis=0), np.repeat(A, [2, 0, 1], axis=0))
  out = xjax.jit(lambda r: jnp.repeat(V[:3], r, total_repeat_length=4))(np.array([1, 0, 2]))
  check(out, np.array([3., 2., 2., 2.], np.float32))
  check(jnp.flip(A), np.flip(A))
  check(jnp.flip(A, -1), np.flip(A, -1))
  check(jnp.fliplr(I), np.fliplr(I))
  check(jnp.flipud(I), np.flipud(I))
  for k in range(-1, 4):
    check(jnp.rot90(I, k), np.rot90(I, k))
  check(jnp.roll(V, 2), np.roll(V, 2))
  check(jnp.roll(I, -1, axis=1), np.roll(I, -1, axis=1))
  check(jnp.roll(I, (1, 1), (0, 1)), np.roll(I, (1, 1), (0, 1)))
  check(jnp.roll(I, 5), np.roll(I, 5))
  check(jnp.roll(np.zeros((0,), np.float32), 1), np.zeros((0,), np.float32))


def test_append_select_and_index_helpers():
  check(jnp.append(I, V), np.append(I, V).astype(np.float32))
  check(jnp.append(I, I, axis=-1), np.append(I, I, axis=-1))
  conds, choices = [I < 3, I > 8], [I, -I]
  check(jnp.select(conds, choices, 99), np.select(conds, choices, 99))
  for f, args in (("tril_indices", (3, -1)), ("triu_indices", (3, 1, 4)),
                  ("diag_indices", (3,))):
    check(getattr(jnp, f)(*args), [i.astype(np.int32) for i in getattr(np, f)(*args)])
  check(jnp.indices((2, 3)), np.indices((2, 3)).astype(np.int32))
  check(jnp.indices((2, 3), sparse=True),
        [i.astype(np.int32) for i in np.indices((2, 3), sparse=True)])


def test_sequences_must_hold_arrays():
  # as JAX: lists are not array arguments here (NumPy would convert them)
  for f in (jnp.atleast_1d, jnp.atleast_2d, jnp.atleast_3d):
    with pytest.raises(TypeError, match=r"atleast_\dd requires ndarray or scalar arguments, "
                                        r"got <class 'list'> at position 1\."):
      f(1.0, [1, 2])
  for name in ("vstack", "hstack", "dstack", "column_stack"):
    with pytest.raises(TypeError, match=f"{name} requires ndarray or scalar arguments"):
      getattr(jnp, name)([[1, 2], [3, 4]])
  check(jnp.vstack([V, V]), np.vstack([V, V]))
  check(jnp.column_stack((V, V)), np.column_stack((V, V)))


def test_rot90_and_pad_argument_errors():
  with pytest.raises(ValueError, match=r"rot90 requires its first argument to have ndim at "
                                       r"least two, but got first argument of shape \(4,\)"):
    jnp.rot90(np.ones(4))
  with pytest.raises(ValueError, match=r"jnp.pad: pad_width with nd=2 has unsupported shape "
                                       r"\(3, 2\)\. Valid shapes are \(2, 2\), \(1, 2\), \(2,\), "
                                       r"\(1,\), or \(\)\."):
    jnp.pad(np.ones((2, 3)), ((1, 1), (1, 1), (1, 1)))
  check(jnp.pad(np.ones((2, 3)), ((1, 2),)), np.pad(np.ones((2, 3)), ((1, 2),)))
  with pytest.raises(TypeError, match=r"can only specify one unknown axis size with a `-1` "
                                      r"value, got \(-1, -1\)"):
    jnp.reshape(jnp.ones((2, 3)), (-1, -1))
  with pytest.raises(ValueError, match="can only specify one unknown dimension"):
    jnp.reshape(np.ones((2, 3)), (-1, -1))   # (NumPy's own reshape, as in JAX)


def test_stack_and_concatenate_read_any_sequence_of_arrays():
  """As JAX (jaxwell's VecField): only an array is taken whole; any other sequence (an
  object with __len__/__getitem__) is read element by element, as NumPy does."""
  class Triple:
    def __init__(self, *xs):
      self.xs = xs

    def __len__(self):
      return len(self.xs)

    def __getitem__(self, i):
      return self.xs[i]

  parts = [np.arange(2.0), np.ones(2), np.full(2, 2.0)]
  t = Triple(*map(jnp.asarray, parts))
  np.testing.assert_array_equal(jnp.stack(t), np.stack(parts))
  np.testing.assert_array_equal(jnp.concatenate(t), np.concatenate(parts))
  np.testing.assert_array_equal(jnp.stack(jnp.asarray(np.stack(parts)), axis=1),
                                np.stack(parts, axis=1))
  assert float(xjax.grad(lambda a: jnp.stack(Triple(a, 2 * a)).sum())(1.0)) == 3.0
  with pytest.raises(TypeError):
    jnp.stack(np.float32(1.0))
  with pytest.raises(TypeError):
    jnp.concatenate(3.0)


@pytest.mark.parametrize("name, error", [("concatenate", ValueError), ("vstack", ValueError),
                                         ("dstack", ValueError), ("column_stack", ValueError),
                                         ("hstack", IndexError), ("stack", TypeError)])
def test_joining_an_iterator_raises_jaxs_class(name, error):
  # JAX's reads a generator twice and fails on finding it empty (stack on its missing len);
  # xjax raises the same classes, saying why.
  with pytest.raises(error):
    getattr(jnp, name)(jnp.ones(2) for _ in range(2))
  np.testing.assert_array_equal(getattr(jnp, name)({0: jnp.ones(2)}.values()),
                                getattr(np, name)([np.ones(2)]))
