"""Eager indexing with integer arrays, and eager ``.at[...]`` updates, run as one program
compiled per index template (the static entries, with the arrays as arguments): the same
values as the traced path and NumPy, one compile per template, and the op-by-op path for
the indices it cannot template (boolean masks).  Update values follow JAX 0.10.2: done in
the promoted dtype, with its FutureWarning where the cast back is unsafe."""
import logging

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

X = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
I = np.array([2, -1, 0], np.int32)

GATHERS = [
    (lambda x, i: x[i[1:]], lambda x, i: x[i[1:]]),
    (lambda x, i: x[:, i], lambda x, i: x[:, i]),
    (lambda x, i: x[1, i, None], lambda x, i: x[1, i, None]),
    (lambda x, i: x[..., i[::-1]], lambda x, i: x[..., i[::-1]]),
    (lambda x, i: x[i[2], 0, ::2], lambda x, i: x[i[2], 0, ::2]),
    (lambda x, i: x[:, i, i], lambda x, i: x[:, i, i]),
]

UPDATES = [  # (xjax update, the same on a NumPy copy)
    (lambda x, i: x.at[0, i].set(7.0), lambda x, i: _np_set(x, (0, i), 7.0)),
    (lambda x, i: x.at[:, i].add(1.5), lambda x, i: _np_add(x, (slice(None), i), 1.5)),
    (lambda x, i: x.at[1, i[:2]].mul(np.float32([2, 3])[:, None]),
     lambda x, i: _np_mul(x, (1, i[:2]), np.float32([2, 3])[:, None])),
    (lambda x, i: x.at[..., 1:3].min(5.0), lambda x, i: _np_min(x, (Ellipsis, slice(1, 3)), 5.0)),
    (lambda x, i: x.at[i[1:2]].max([[30.0] * 4] * 3),
     lambda x, i: _np_max(x, (i[1:2],), np.full((3, 4), 30.0, np.float32))),
    (lambda x, i: x.at[1, 1, 1].subtract(3), lambda x, i: _np_add(x, (1, 1, 1), -3.0)),
]


def _np_apply(x, idx, values, op):
  out = np.array(x)
  op(out, idx, values)
  return out


def _np_set(x, idx, v):
  return _np_apply(x, idx, v, lambda o, i, v: o.__setitem__(i, v))


def _np_add(x, idx, v):
  return _np_apply(x, idx, v, np.add.at)


def _np_mul(x, idx, v):
  return _np_apply(x, idx, v, np.multiply.at)


def _np_min(x, idx, v):
  return _np_apply(x, idx, v, np.minimum.at)


def _np_max(x, idx, v):
  return _np_apply(x, idx, v, np.maximum.at)


@pytest.mark.parametrize("take,expected", GATHERS + UPDATES)
def test_eager_equals_traced_and_numpy(take, expected):
  for index in (I, jnp.asarray(I)):
    eager = take(jnp.asarray(X), index)
    traced = xjax.jit(take)(jnp.asarray(X), jnp.asarray(I))
    want = expected(X, I)
    np.testing.assert_array_equal(np.asarray(eager), want)
    np.testing.assert_array_equal(np.asarray(traced), want)
    assert eager.dtype == traced.dtype == np.float32
    assert eager.weak_type == traced.weak_type


class _Compiles(logging.Handler):
  def __init__(self):
    super().__init__()
    self.names = []

  def emit(self, record):
    if record.getMessage().startswith("Compiling"):
      self.names.append(record.getMessage())


def _compiles_of(calls):
  handler = _Compiles()
  logger = logging.getLogger("xjax")
  logger.addHandler(handler)
  xjax.config.update("jax_log_compiles", True)
  try:
    for call in calls:
      call()
  finally:
    xjax.config.update("jax_log_compiles", False)
    logger.removeHandler(handler)
  return handler.names


def test_one_program_per_index_template():
  x = jnp.asarray(X) + 1   # a fresh signature for this test
  first = _compiles_of([lambda: x[:, jnp.array([0, 2])].block_until_ready()])
  assert len(first) == 1 and "_compiled_take" in first[0]
  again = _compiles_of([lambda: x[:, jnp.array([1, 1])], lambda: x[:, np.array([2, 0])]])
  assert again == []   # other index values, same template
  update = _compiles_of([lambda: x.at[jnp.array([1]), 0].set(3.0)])
  assert len(update) == 1 and "_compiled_scatter" in update[0]
  assert _compiles_of([lambda: x.at[jnp.array([0]), 0].set(-1.0),
                       lambda: x.at[np.array([1]), 0].set(9.0)]) == []


def test_static_slices_of_a_shape_share_one_program():
  """As JAX's, an eager unit-stride slice runs as a dynamic slice with its start indices as
  operands: a loop over a large array's batches compiles once."""
  data = np.arange(5000 * 3, dtype=np.float32).reshape(5000, 3)
  x = jnp.asarray(data) + 1   # a device Array, too large for the host
  outs = []
  names = _compiles_of([lambda i=i: outs.append(x[i:i + 100]) for i in range(0, 500, 100)])
  assert len(names) == 1 and "dynamic_slice" in names[0], names
  for i, out in zip(range(0, 500, 100), outs):
    np.testing.assert_array_equal(out, data[i:i + 100] + 1)
  assert _compiles_of([lambda: x[7:107]]) == []
  np.testing.assert_array_equal(x[1000:3000:1000], data[1000:3000:1000] + 1)  # a strided slice


def test_iterating_an_array_unstacks_chunks_of_rows():
  """JAX's iteration: an ``unstack`` of each chunk of 100 rows, in order (one program for
  the two full chunks; the 50-row tail is small enough to be unstacked on the host)."""
  data = np.arange(250 * 50, dtype=np.float32).reshape(250, 50)
  x = jnp.asarray(data) + 1
  rows = []
  names = _compiles_of([lambda: rows.extend(iter(x))])
  assert sorted(n.split()[1] for n in names) == ["dynamic_slice", "dynamic_slice",
                                                 "unstack"], names
  assert len(rows) == 250
  for row, expected in zip(rows, data + 1):
    np.testing.assert_array_equal(row, expected)
  keys = xjax.random.split(xjax.random.key(0), 3)
  np.testing.assert_array_equal(xjax.random.key_data(list(keys)[2]),
                                xjax.random.key_data(keys[2]))
  with pytest.raises(TypeError, match="iteration over a 0-d array"):
    iter(jnp.asarray(1.0))


def test_boolean_masks_and_python_lists_take_the_op_by_op_path():
  x = jnp.asarray(X)
  mask = X > 20
  np.testing.assert_array_equal(np.asarray(x[mask]), X[mask])
  np.testing.assert_array_equal(np.asarray(x.at[mask].set(0.0)), np.where(mask, 0, X))
  np.testing.assert_array_equal(np.asarray(x.at[0, 0, :2].set([5.0, 6.0]))[0, 0],
                                [5, 6, 2, 3])
  with pytest.raises(TypeError, match="non-tuple sequence"):
    x[[0, 1]]


def test_update_values_are_promoted_as_jax():
  xi = jnp.arange(5)
  for _ in range(2):   # the warning comes with every call, compiled or not
    with pytest.warns(FutureWarning, match="cannot safely cast value from dtype=float32"):
      out = xi.at[jnp.array([1, 1, 3])].add(2.7)
    np.testing.assert_array_equal(np.asarray(out), [0, 6, 2, 5, 4])   # JAX 0.10.2's
    assert out.dtype == np.int32
  with pytest.warns(FutureWarning):
    np.testing.assert_array_equal(np.asarray(xi.at[2].mul(2.5)), [0, 1, 5, 3, 4])
  u8 = jnp.arange(5, dtype=jnp.uint8)
  np.testing.assert_array_equal(np.asarray(u8.at[2].subtract(3)), [0, 1, 255, 3, 4])
  with pytest.warns(FutureWarning, match="to dtype=bfloat16"):
    bf = jnp.ones(3, jnp.bfloat16).at[1].add(np.float32(1e-3))   # in float32, then rounded
  assert bf.dtype == jnp.bfloat16 and float(bf[1]) == 1.0
  with pytest.raises(OverflowError, match="too large to convert to int32"):
    jnp.zeros(3, jnp.float32).at[0].set(2**40)


def test_update_errors_are_jaxs():
  x = jnp.asarray(X)
  with pytest.raises(ValueError, match=r"Incompatible types for broadcasting: input "
                                       r"type=float32\[7\] and requested "
                                       r"type=float32\[3,3,4\]"):
    x.at[jnp.asarray(I)].set(jnp.ones(7))
  with pytest.raises(IndexError, match="Too many indices: array is 3-dimensional, but 4 "
                                       "were indexed"):
    x[I, I, I, I]
  with pytest.raises(TypeError, match="got indexer with type float64"):
    x[np.array([1.5])]
