"""Index helpers: mgrid, ogrid, r_, c_, s_, index_exp, ix_."""
from __future__ import annotations


from xjax._src.foundations import dtypes


from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax.shapes import reshape, transpose
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.creation import arange, array, asarray, zeros
from xjax._src.libraries.numpy.matrices import meshgrid
from xjax._src.libraries.numpy.numerical_ranges import linspace
from xjax._src.libraries.numpy.shaping import concatenate, expand_dims, stack


def _static(x, what):
  return concrete_or_error(x, what)


def _range(s: slice):
  """A slice as a 1-D range: ``start:stop:step``, or ``num`` points when step is complex."""
  start = 0 if s.start is None else _static(s.start, "slice start")
  stop = _static(s.stop, "slice stop")
  step = 1 if s.step is None else _static(s.step, "slice step")
  if isinstance(step, complex):
    return linspace(start, stop, int(abs(step)), endpoint=True)
  return arange(start, stop, step)


class _Grid:
  def __init__(self, sparse: bool):
    self.sparse = sparse

  def __getitem__(self, key):
    if isinstance(key, slice):
      return _range(key)
    axes = [_range(k) for k in key]
    dt = dtypes.result_type(*axes)
    axes = [a.astype(dt) for a in axes]
    grids = meshgrid(*axes, indexing="ij", sparse=self.sparse)
    return list(grids) if self.sparse else stack(grids, 0)


mgrid = _Grid(sparse=False)
mgrid.__doc__ = "Dense multi-dimensional 'meshgrid' built from slices: ``mgrid[0:3, 0:2]``."
ogrid = _Grid(sparse=True)
ogrid.__doc__ = "Open (sparse) multi-dimensional 'meshgrid' built from slices."


class _Concat:
  """Concatenation of slices, scalars and arrays along an axis; a leading string
  ``'axis[,ndmin[,trans1d]]'`` sets the axis, minimum rank and where 1-D items go, and
  ``'r'`` / ``'c'`` make a flat result a row / column."""

  def __init__(self, axis: int, ndmin: int, trans1d: int):
    self.defaults = (axis, ndmin, trans1d)

  def __getitem__(self, key):
    key = key if isinstance(key, tuple) else (key,)
    axis, ndmin, trans1d = self.defaults
    matrix = None
    spec = key[0] if key and isinstance(key[0], str) else None
    key = key[1:] if spec is not None else key
    if spec in ("r", "c"):
      matrix = 0 if spec == "r" else 1
    elif spec is not None:
      try:
        parts = [int(p) for p in spec.split(",")]
      except ValueError:
        raise ValueError(f"could not understand directive {spec!r}") from None
      axis, ndmin, trans1d = (parts + [ndmin, trans1d][len(parts) - 1:])[:3]
    items = []
    for item in key:
      arr = _range(item) if isinstance(item, slice) else asarray(item)
      items.append(self._shape(arr, ndmin, trans1d))
    if not items:
      return array([])
    out = concatenate(items, axis=axis)
    # 'r' / 'c': a flat result becomes a row (1, n) or a column (n, 1)
    return expand_dims(out, matrix) if matrix is not None and out.ndim == 1 else out

  @staticmethod
  def _shape(arr, ndmin, trans1d):
    nd = get_aval(arr).ndim
    if nd >= ndmin:
      return arr
    arr = reshape(arr, (1,) * (ndmin - nd) + get_aval(arr).shape)
    if trans1d == -1 or nd == 0:
      return arr
    k1 = trans1d + (ndmin - nd + 1 if trans1d < 0 else 0)
    k2 = ndmin - nd
    perm = list(range(k1)) + list(range(k2, ndmin)) + list(range(k1, k2))
    return transpose(arr, perm)

  def __len__(self):
    return 0


r_ = _Concat(0, 1, -1)
r_.__doc__ = "Concatenation along the first axis from slice syntax: ``r_[1:3, [5, 6]]``."
c_ = _Concat(-1, 2, 0)
c_.__doc__ = "Stacking as columns (1-D items become columns) from slice syntax: ``c_[a, b]``."


class _IndexExpression:
  def __init__(self, maketuple: bool):
    self.maketuple = maketuple

  def __getitem__(self, item):
    if self.maketuple and not isinstance(item, tuple):
      return (item,)
    return item


s_ = _IndexExpression(maketuple=False)
s_.__doc__ = "The index written in brackets, as a value: ``s_[1:3, 0]`` is ``(slice(1, 3), 0)``."
index_exp = _IndexExpression(maketuple=True)
index_exp.__doc__ = "As ``s_``, always a tuple: ``index_exp[2]`` is ``(2,)``."


def ix_(*args):
  """Open mesh of 1-D index arrays: the i-th output has shape 1 except along axis i."""
  args = arraylike("ix", *args)
  out = []
  n = len(args)
  for i, a in enumerate(args):
    a = asarray(a)
    if get_aval(a).ndim != 1:
      raise ValueError("Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                       f"{get_aval(a).shape}")
    if get_aval(a).dtype == bool:
      raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
    shape = (1,) * i + get_aval(a).shape + (1,) * (n - i - 1)
    if get_aval(a).size == 0:  # an integer index for empty arrays, as NumPy
      out.append(zeros(shape, dtypes.default_int_dtype()))
    else:
      out.append(reshape(a, shape))
  return tuple(out)


