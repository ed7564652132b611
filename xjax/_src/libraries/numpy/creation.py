"""Array creation: asarray/array, zeros/ones/full/empty (+ _like), arange."""
from __future__ import annotations

import warnings

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.foundations.errors import api_boundary
from xjax._src.execution.array import Array, make_array
from xjax._src.foundations.sharding import (PLACING, NamedSharding, PartitionSpec, placement_mesh,
                                            type_sharding)
from xjax._src.core.concrete import canonicalize_shape
from xjax._src.core.dim_expr import is_symbolic_dim
from xjax._src.core.trace import Tracer, current_trace, eval_trace
from xjax._src.api.shape_dtype_struct import ShapeDtypeStruct
from xjax._src.core.typed_ndarray import TYPED_SCALARS
from xjax._src.core.values import get_aval
from xjax._src.interpreters.ad import JVPTracer
from xjax._src.interpreters.staging import staged_constant
from xjax._src.primitives.lax import lax
from xjax._src.primitives.lax.elementwise import copy_p
from xjax._src.primitives.lax.shapes import varying_like
from xjax._src.foundations.wrapping import with_keyword
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.primitives.lax.sharding_constraint import place_out_sharding


def placed(out, device):
  """``out``, committed to ``device`` when one is given (the ``device=`` argument): made on
  the default device, then moved, as in JAX. Without one, under ``set_mesh`` an
  uncommitted result is replicated over the mesh (``P()``), as JAX transfers it."""
  if isinstance(out, Tracer):
    return out
  if device is None:
    mesh = placement_mesh() if PLACING[0] else None
    if mesh is None or type(out) is not Array or out._committed:
      return out
    device = NamedSharding(mesh, PartitionSpec())
  from xjax._src.api.placement import device_put
  return device_put(out, device)


def _with_device(fn):
  """``fn`` taking ``device=`` and placing its result there; its errors show the user's
  frames only (a ragged list's ValueError is raised from the user's call, as JAX's)."""
  return api_boundary(with_keyword(fn, "device", placed))


def _with_out_sharding(fn):
  """``fn`` taking ``out_sharding=`` (after ``device=``), its result laid out so and, over
  Explicit mesh axes, typed so (``place_out_sharding``)."""
  return api_boundary(with_keyword(fn, "out_sharding", place_out_sharding))


def _positional_array_options(args, copy, order, ndmin):
  """``jnp.array``'s ``copy``, ``order`` and ``ndmin`` given by position: taken, with
  JAX's DeprecationWarning (and TypeError where they clash with keywords)."""
  if len(args) > 3:
    raise TypeError(f"array() takes at most 5 positional arguments but {len(args) + 2} were "
                    "given")
  for i, name in enumerate(["copy", "order", "ndmin"]):
    if i < len(args) and [copy, order, ndmin][i] != [True, "K", 0][i]:
      raise TypeError(f"array() got multiple values for argument '{name}'")
  warnings.warn("Passing the copy, order, and ndmin arguments to jnp.array positionally is "
                "deprecated. Use keyword arguments instead.", DeprecationWarning,
                stacklevel=7)  # (the caller, past the wrappers)
  return (list(args) + [copy, order, ndmin][len(args):])[:3]


def _requested_dtype(dtype, name):
  if dtype is None:
    return None
  return dtypes.check_user_dtype_supported(dtype, name)


def _check_order(order) -> None:
  """Arrays have one memory order here, as in JAX: only ``'K'`` (keep) is accepted."""
  if order is not None and order != "K":
    raise NotImplementedError("Only implemented for order='K'")


@_with_out_sharding
@api_boundary
def asarray(a, dtype=None, order=None, *, copy=None, device=None):
  """Converts ``a`` to an Array (no copy when it already is one of the right dtype)."""
  _check_order(order)
  dt = _requested_dtype(dtype, "asarray")
  if isinstance(a, (Array, Tracer)) and not copy:
    if dt is None or (get_aval(a).dtype == dt and not get_aval(a).weak_type):
      if type(a) is JVPTracer:  # (eager differentiation's: converted, as JAX's)
        aval = get_aval(a)
        a = lax.convert_element_type(a, aval.dtype, aval.weak_type)
      return placed(a, device)
    return placed(lax.convert_element_type(a, dt), device)  # explicit dtype: strong type
  return array(a, dtype=dt, copy=bool(copy), device=device)


def as_operand(x):
  """``x`` as an array operand of a function JAX jits: a tracer as it is (a jitted function
  forwards its input under ``linearize``), anything else through ``asarray``. Under eager
  ``jvp`` the result is a new value, as the jitted function's (``jvp(jnp.real, (1.,),
  (1.,))`` gives an Array primal, not the Python number passed in)."""
  if not isinstance(x, Tracer):
    return asarray(x)
  if type(x) is JVPTracer and not isinstance(x.primal, Tracer) and (
      not isinstance(x.tangent, Tracer)):  # (vjp's tangents are staged: forwarded there)
    aval = get_aval(x)
    return lax.convert_element_type(x, aval.dtype, aval.weak_type)
  return x


@_with_out_sharding
@_with_device
def array(object, dtype=None, *args, copy=True, order="K", ndmin: int = 0):
  """A new Array from a scalar, NumPy array, nested sequence, or Array/tracer. ``copy``,
  ``order`` and ``ndmin`` given by position are deprecated, as in JAX."""
  if args:
    copy, order, ndmin = _positional_array_options(args, copy, order, ndmin)
  _check_order(order)
  dt = _requested_dtype(dtype, "array")
  if type(object) is list and dt is None and ndmin == 0 and _all_floats(object):
    # the common case first: a list of Python floats (a strongly typed default float)
    dt = dtypes.default_float_dtype()
    return staged_constant(make_array(np.array(object, dt), dtype=dt, weak_type=False))
  if isinstance(object, (Array, Tracer)):
    out = copy_p.bind(object) if copy else object  # (a new array: JAX's ``copy`` op)
    out = out if dt is None else lax.convert_element_type(out, dt)
  elif isinstance(object, (list, tuple)) and _must_stack_on_device(object):
    leaves = tree_util.tree_leaves(object)
    if dt is None and not any(dtypes.is_extended(get_aval(x).dtype) for x in leaves):
      dt = dtypes.canonicalize_dtype(dtypes.result_type(*leaves))
    # each element converted to the sequence's dtype (strongly typed), then stacked, as JAX
    parts = [lax.expand_dims(array(o, dtype=dt, copy=False), (0,)) for o in object]
    while len(parts) > 16:  # a tree of concatenations, as JAX (wide ones compile slowly)
      parts = [lax.concatenate(parts[i:i + 16], 0) for i in range(0, len(parts), 16)]
    out = lax.concatenate(parts, 0)
  elif hasattr(object, "__jax_array__"):
    return array(object.__jax_array__(), dtype=dtype, copy=copy, ndmin=ndmin)
  else:
    if object is None:
      raise ValueError("None is not a valid value for jnp.array")
    weak = (type(object) in (int, float, complex) or type(object) in TYPED_SCALARS) \
        and dt is None
    if weak:
      get_aval(object)  # a Python int outside the default integer's range: OverflowError
    if isinstance(object, (list, tuple)):
      host = _host_from_sequence(object, dt)
    else:  # a Python int out of dt's range raises OverflowError
      if type(object) in (float, complex) and dt is not None and dtypes.is_integer(dt):
        object = int(object)  # as JAX: NaN is a ValueError, infinity an OverflowError
      host = np.asarray(object, dt if type(object) is int else None)
      _check_holdable(host)
    if dt is None:
      if weak:
        dt = get_aval(object).dtype
      else:
        dt = dtypes.canonicalize_dtype(host.dtype)
    out = staged_constant(make_array(host.astype(dt, copy=False), dtype=dt, weak_type=weak))
  if ndmin > get_aval(out).ndim:
    out = lax.reshape(out, (1,) * (ndmin - get_aval(out).ndim) + get_aval(out).shape)
  return out


def _all_floats(seq) -> bool:
  for o in seq:
    if type(o) is not float:
      return False
  return bool(seq)


def _must_stack_on_device(seq) -> bool:
  """A sequence holding tracers, PRNG keys or arrays whose type is sharded: values that have
  no host copy to build from, or whose layout the result's type follows."""
  for o in seq:
    if isinstance(o, Tracer) or (isinstance(o, Array) and (
        dtypes.is_extended(o.dtype) or o.aval._sharding is not None)):
      return True
    if isinstance(o, (list, tuple)) and _must_stack_on_device(o):
      return True
  return False


def _host_from_sequence(seq, dt):
  leaves = []
  _collect_leaves(seq, leaves)
  for v in leaves:
    if type(v) in _NUMBERS:
      continue
    if isinstance(v, (str, bytes)):  # a value here, not a dtype name as in result_type
      raise dtypes.unsupported_dtype_error(np.asarray(v).dtype, v)
    if v is None:
      raise ValueError("None is not a valid value for jnp.array")
    if not isinstance(v, (np.ndarray, np.generic, Array)) and not hasattr(v, "__jax_array__"):
      _check_holdable(np.asarray(v))  # (dicts, objects: no array holds them)
  if dt is None:
    dt = dtypes.result_type(*leaves) if leaves else dtypes.default_float_dtype()
  # Converting straight to dt makes a Python int out of its range an OverflowError
  return np.asarray(_to_host(seq), dtype=dt)


_NUMBERS = frozenset((bool, int, float, complex))


def _check_holdable(host: np.ndarray) -> None:
  """JAX's TypeError, naming the first element, for strings, bytes and objects."""
  if (host.dtype.kind in "OUSV" and host.dtype != dtypes.float0
      and not (dtypes.is_inexact(host.dtype) or dtypes.is_integer(host.dtype))):
    raise dtypes.unsupported_dtype_error(host.dtype, host.ravel()[0] if host.size else None)


def _collect_leaves(o, leaves: list) -> None:
  if isinstance(o, (list, tuple)):
    for v in o:
      _collect_leaves(v, leaves)
  else:
    leaves.append(o)


def _to_host(o):
  if isinstance(o, (list, tuple)):
    return [_to_host(v) for v in o]
  if isinstance(o, Array):
    return np.asarray(o)
  return o


_PYTHON_SCALARS = (bool, int, float, complex)  # (of any size: converted to the dtype asked)


@api_boundary
def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
  dt = _requested_dtype(dtype, "full")
  fill_value, = arraylike("full", fill_value)
  shape = canonicalize_shape(shape)
  if type(fill_value) not in _PYTHON_SCALARS and get_aval(fill_value).shape:
    # shaping converts its operands with asarray: creation and shaping import each other
    from xjax._src.libraries.numpy.shaping import broadcast_to
    out = broadcast_to(asarray(fill_value, dtype=dt), shape)
    return place_out_sharding(placed(out, device), out_sharding)
  return _filled(shape, fill_value, dt, device, out_sharding)


@api_boundary
def zeros(shape, dtype=None, *, device=None, out_sharding=None):
  dt = _requested_dtype(dtype, "zeros") or dtypes.default_float_dtype()
  return _filled(canonicalize_shape(shape), 0, dt, device, out_sharding)


@api_boundary
def ones(shape, dtype=None, *, device=None, out_sharding=None):
  dt = _requested_dtype(dtype, "ones") or dtypes.default_float_dtype()
  return _filled(canonicalize_shape(shape), 1, dt, device, out_sharding)


@api_boundary
def empty(shape, dtype=None, *, device=None, out_sharding=None):
  dt = _requested_dtype(dtype, "empty") or dtypes.default_float_dtype()
  return _filled(canonicalize_shape(shape), 0, dt, device, out_sharding)


def _filled(shape, fill_value, dtype, device, out_sharding):
  """``lax.full`` on ``device``, laid out as ``out_sharding`` says: traced over Explicit mesh
  axes its broadcast takes the type's split (a parameter in jaxprs, as JAX's); any other
  layout, and an eager one, is placed afterwards (``place_out_sharding``)."""
  typed = (type_sharding(out_sharding, len(shape))
           if out_sharding is not None and current_trace() is not eval_trace else None)
  out = lax.full(shape, fill_value, dtype, sharding=typed)
  return place_out_sharding(placed(out, device), out_sharding)


def _like(name, value):
  def fn(a, dtype=None, shape=None, *, device=None):
    if not (hasattr(a, "dtype") and hasattr(a, "shape")):
      a, = arraylike(name, a)
    return full_like(a, value, dtype, shape, device=device, _name=name)
  fn.__name__ = fn.__qualname__ = name
  return api_boundary(fn)


zeros_like = _with_out_sharding(_like("zeros_like", 0))
ones_like = _with_out_sharding(_like("ones_like", 1))


@api_boundary
def empty_like(prototype, dtype=None, shape=None, *, device=None):
  """An array like ``prototype`` (zeros: arrays are immutable, so uninitialized memory would
  serve nothing; JAX's name for the first parameter)."""
  if not (hasattr(prototype, "dtype") and hasattr(prototype, "shape")):
    prototype, = arraylike("ones_like", prototype)  # (the function JAX's message names)
  return full_like(prototype, 0, dtype, shape, device=device, _name="empty_like")


@_with_out_sharding
@api_boundary
def full_like(a, fill_value, dtype=None, shape=None, *, device=None, _name="full_like"):
  """An array like ``a``, on ``a``'s device when ``a`` is committed (as in JAX); an array
  ``fill_value`` is broadcast to the shape."""
  if hasattr(a, "dtype") and hasattr(a, "shape"):
    _, fill_value = arraylike("full_like", 0, fill_value)
    if hasattr(a, "__jax_array__") and not isinstance(a, (Array, Tracer)):
      a = ShapeDtypeStruct(a.shape, a.dtype)  # (JAX reads only these, as of any such value)
  else:
    a, fill_value = arraylike("full_like", a, fill_value)
  dt = _requested_dtype(dtype, _name)
  aval = get_aval(a)
  shape = aval.shape if shape is None else canonicalize_shape(shape)
  if device is None and type(a) is Array and a.committed:
    device = a.device
  if type(fill_value) not in _PYTHON_SCALARS and get_aval(fill_value).ndim:
    # shaping converts its operands with asarray: creation and shaping import each other
    from xjax._src.libraries.numpy.shaping import broadcast_to
    value = asarray(fill_value, dtype=aval.dtype if dt is None else dt)
    return placed(varying_like(broadcast_to(value, shape), aval), device)
  if dt is None:  # keeps a's weak type
    return placed(lax.full_like(a, fill_value, shape=shape), device)
  return placed(varying_like(lax.full(shape, fill_value, dt), aval), device)


@_with_out_sharding
@_with_device
def arange(start, stop=None, step=None, dtype=None):
  """Evenly spaced values; the bounds must be concrete (the length is static)."""
  from xjax._src.core.concrete import concrete_or_error
  dt = _requested_dtype(dtype, "arange")
  for i, v in enumerate((start, stop, step)):
    if isinstance(v, (list, tuple)):
      raise TypeError(f"arange requires ndarray, scalar, or None arguments, got {type(v)} at "
                      f"position {i}.")
  if start is None:
    raise TypeError("must be real number, not NoneType")
  start_name = "stop" if stop is None and step is None else "start"
  bounds = [v for v in (start, stop, step) if v is not None]  # their dtypes give the result's
  start = concrete_or_error(start, f"arange {start_name}")
  stop = None if stop is None else concrete_or_error(stop, "arange stop")
  step = None if step is None else concrete_or_error(step, "arange step")
  for name, v in ((start_name, start), ("stop", stop), ("step", step)):
    if v is not None and np.ndim(v) != 0:
      raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={v}")
  if dt is None:
    dt = dtypes.result_type(*bounds)
    dt = dtypes.canonicalize_dtype(dt)
  if dt == np.bool_:
    raise TypeError("arange does not accept dtype bool")
  if any(np.iscomplexobj(v) for v in (start, stop, step)):
    raise ValueError("Passing complex start/stop/step to jnp.arange is not supported (JAX "
                     "0.10 removed it); build the real and imaginary parts separately.")
  # JAX's formula: an iota in the result dtype, shifted and scaled on the device (float16
  # and bfloat16 work in float32), so values match JAX to the last bit
  if stop is None:
    start, stop = 0, start
  if is_symbolic_dim(stop) and start == 0 and step is None:
    return lax.iota(dt, stop)     # (a symbolic length)
  if step is not None:
    work = np.float32 if dtypes.is_float(dt) and dtypes.finfo(dt).bits < 32 else dt
    size = max(0, int(np.ceil((stop - start) / step)))
    out = lax.add(lax.convert_element_type(start, work),
                  lax.mul(lax.convert_element_type(step, work), lax.iota(work, size)))
    return lax.convert_element_type(out, dt)
  if start == 0:
    return lax.iota(dt, max(0, int(np.ceil(stop))))
  return lax.add(lax.convert_element_type(start, dt),
                 lax.iota(dt, max(0, int(np.ceil(stop - start)))))
