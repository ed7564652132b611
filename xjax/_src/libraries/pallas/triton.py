"""Triton's kernel operations (``jax.experimental.pallas.triton``) as interpret mode runs
them: masked ``load``/``store`` and atomic read-modify-writes on a ref or a ref view
(``ref.at[idx]``), primitives discharged to gathers and scatters; ``CompilerParams`` as a
record.  Operations that only mean something to Triton's code generator raise."""
from __future__ import annotations

import dataclasses

import numpy as np

from xjax._src.core.trace import Primitive
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax.dot import Precision
from xjax._src.primitives.state.indexing import parse, read, read_aval, updated
from xjax._src.primitives.state.types import AbstractRef, RefView, ref_effect
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.pallas.pallas_call import uninitialized_value
from xjax._src.libraries.pallas.specs import CompilerParams as _BaseCompilerParams


@dataclasses.dataclass(frozen=True)
class CompilerParams(_BaseCompilerParams):
  """Triton's warps and pipeline stages for a kernel; interpret mode has no code
  generation for them to tune."""
  BACKEND = "triton"
  num_warps: int | None = None
  num_stages: int | None = None


def _target(ref):
  """(the ref, the index into it) of a ref or a view ``ref.at[idx]``."""
  if isinstance(ref, RefView):
    return ref.ref, ref.idx
  if type(get_aval(ref)) is not AbstractRef:
    raise TypeError(f"expected a Pallas ref or ref view, got {type(ref).__name__}")
  return ref, ...


def _split(ref, idx):
  indexer, dyn = parse(idx, get_aval(ref).shape)
  return indexer, dyn


def _mask_to(mask, shape):
  return jnp.broadcast_to(jnp.asarray(mask, bool), shape)


def load(ref, *, mask=None, other=None, cache_modifier=None, eviction_policy=None,
         volatile=False):
  """``ref[...]`` where ``mask`` holds and ``other`` elsewhere (undefined without it: the
  interpreter's uninitialized value).  The cache hints do not change the value."""
  ref, idx = _target(ref)
  indexer, dyn = _split(ref, idx)
  aval = read_aval(get_aval(ref).inner_aval, indexer, tuple(map(get_aval, dyn)))
  if mask is None:
    return load_p.bind(ref, *dyn, indexer=indexer, masked=False)
  mask = _mask_to(mask, aval.shape)
  other = (uninitialized_value(aval.shape, aval.dtype) if other is None
           else jnp.broadcast_to(jnp.asarray(other, aval.dtype), aval.shape))
  return load_p.bind(ref, mask, other, *dyn, indexer=indexer, masked=True)


def store(ref, val, *, mask=None, eviction_policy=None) -> None:
  """Writes ``val`` to ``ref[...]`` where ``mask`` holds."""
  ref, idx = _target(ref)
  indexer, dyn = _split(ref, idx)
  aval = read_aval(get_aval(ref).inner_aval, indexer, tuple(map(get_aval, dyn)))
  val = jnp.broadcast_to(jnp.asarray(val, aval.dtype), aval.shape)
  mask = np.ones(aval.shape, bool) if mask is None else _mask_to(mask, aval.shape)
  store_p.bind(ref, val, mask, *dyn, indexer=indexer, op="set")


def _rmw(op):
  def atomic(x_ref_or_view, idx, val, *, mask=None):
    ref, base = _target(x_ref_or_view)
    if base is not Ellipsis:
      raise NotImplementedError("atomic operations on a ref view with a further index are "
                                "not supported; index the ref once.")
    indexer, dyn = _split(ref, idx)
    aval = read_aval(get_aval(ref).inner_aval, indexer, tuple(map(get_aval, dyn)))
    val = jnp.broadcast_to(jnp.asarray(val, aval.dtype), aval.shape)
    mask = np.ones(aval.shape, bool) if mask is None else _mask_to(mask, aval.shape)
    return store_p.bind(ref, val, mask, *dyn, indexer=indexer, op=op)
  atomic.__name__ = f"atomic_{op}"
  atomic.__doc__ = (f"Atomically combines ``val`` into ``x_ref[idx]`` ({op}) where ``mask`` "
                    "holds; returns the values there before.")
  return atomic


atomic_add, atomic_max, atomic_min = _rmw("add"), _rmw("max"), _rmw("min")
atomic_and, atomic_or, atomic_xor = _rmw("and"), _rmw("or"), _rmw("xor")
atomic_xchg = _rmw("xchg")


def atomic_cas(ref, cmp, val):
  """Where ``ref[...]`` equals ``cmp`` stores ``val``; returns the old values."""
  old = load(ref)
  store(ref, val, mask=old == cmp)
  return old


def dot(a, b, trans_a=False, trans_b=False, allow_tf32=None, precision=None):
  """``a @ b`` of blocks, either transposed first."""
  a = a.T if trans_a else a
  b = b.T if trans_b else b
  if allow_tf32 is not None and precision is None:
    precision = Precision.DEFAULT if allow_tf32 else Precision.HIGHEST
  return jnp.dot(a, b, precision=precision)


def _triton_only(what):
  def unsupported(*args, **kwargs):
    raise NotImplementedError(f"pallas.triton.{what} is a Triton code-generation feature "
                              "that xjax's interpret mode does not support.")
  unsupported.__name__ = what
  return unsupported


approx_tanh = _triton_only("approx_tanh")
debug_barrier = _triton_only("debug_barrier")
elementwise_inline_asm = _triton_only("elementwise_inline_asm")
max_contiguous = _triton_only("max_contiguous")


# ---------------------------------------------------------------------------------------
# The primitives: a masked read, and a masked write or atomic update

def _load_abstract_eval(ref, *rest, indexer, masked):
  dyn = rest[2:] if masked else rest
  return read_aval(ref.inner_aval, indexer, dyn)


def _load_discharge(value, *rest, indexer, masked):
  if not masked:
    return value, read(value, indexer, rest)
  mask, other, *dyn = rest
  return value, jnp.where(mask, read(value, indexer, dyn), other)


load_p = Primitive("load")
load_p.effects = lambda **_: (ref_effect,)
load_p.abstract_eval = _load_abstract_eval
load_p.discharge = _load_discharge

_COMBINE = {"add": jnp.add, "max": jnp.maximum, "min": jnp.minimum,
            "and": jnp.bitwise_and, "or": jnp.bitwise_or, "xor": jnp.bitwise_xor,
            "xchg": lambda old, x: x, "set": lambda old, x: x}


def _store_discharge(value, x, mask, *dyn, indexer, op):
  old = read(value, indexer, dyn)
  if op == "add":   # repeated indices accumulate, as atomics do
    return updated(value, indexer, dyn, jnp.where(mask, x, jnp.zeros_like(x)), True), old
  # lanes that are masked off may alias written ones: write only where some lane writes
  new = _COMBINE[op](old, x)
  written = updated(jnp.zeros(value.shape, np.int32), indexer, dyn,
                    mask.astype(np.int32), True) > 0
  spread = updated(jnp.zeros_like(value), indexer, dyn,
                   jnp.where(mask, new, jnp.zeros_like(new)), True)
  return jnp.where(written, spread, value), old


store_p = Primitive("masked_swap")
store_p.effects = lambda **_: (ref_effect,)
store_p.abstract_eval = lambda ref, x, mask, *dyn, indexer, op: read_aval(
    ref.inner_aval, indexer, dyn)
store_p.discharge = _store_discharge
