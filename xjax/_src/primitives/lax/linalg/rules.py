"""What the linear-algebra primitives share: shape checks, batching over leading
dimensions, and lowering lax-written code inline (kernel post-processing, HLO fallbacks)."""
from __future__ import annotations

from typing import Callable, Sequence

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray, result_sharding, spec_of
from xjax._src.foundations.sharding import PartitionSpec, ShardingTypeError
from xjax._src.core.values import get_aval
from xjax._src.interpreters import batching
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.primitive_builders import standard_primitive
from xjax._src.primitives.lax.operand_checks import weak_of


def check_matrix(name: str, aval: ShapedArray, square: bool = True) -> None:
  """Matrices (rank >= 2, optionally square) of a LAPACK dtype."""
  if aval.ndim < 2:  # the error classes JAX's primitives raise
    raise TypeError(f"{name}: input must have rank at least 2, got shape {aval.shape}.")
  if square and aval.shape[-1] != aval.shape[-2]:
    raise ValueError(f"{name}: input must be a (batch of) square matrices, got shape "
                     f"{aval.shape}.")
  lapack.check_dtype(name, aval.dtype)


def check_operands(name: str, avals: Sequence[ShapedArray], ranks: Sequence[int],
                   complex_ok: bool = True) -> None:
  """JAX's operand checks of a linear-algebra primitive: floating (or complex) dtypes, all
  equal, and at least the given ranks."""
  accepted = "floating, complexfloating" if complex_ok else "floating"
  for i, a in enumerate(avals):
    if not (dtypes.is_float(a.dtype) or (complex_ok and dtypes.is_complex(a.dtype))):
      raise TypeError(f"{name} does not accept dtype {a.dtype.name} at position {i}. "
                      f"Accepted dtypes at position {i} are subtypes of {accepted}.")
  if len({a.dtype for a in avals}) > 1:
    raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                    f"{', '.join(a.dtype.name for a in avals)}.")
  for i, (a, r) in enumerate(zip(avals, ranks)):
    if a.ndim < r:
      raise TypeError(f"Input {i} to {name} must have rank at least {r}, but got "
                      f"shape={a.shape}")


def lower_fn(ctx, fn: Callable, operands: Sequence[str],
             avals: Sequence[ShapedArray]) -> list[str]:
  """Emits ``fn`` (written with lax functions, returning a list) traced at ``avals``, whose
  splits (types over Explicit mesh axes) are left to the partitioner: the primitive's
  sharding rule has typed its results, and ``fn`` is its implementation."""
  closed = trace_to_jaxpr(lambda *xs: list(fn(*xs)), [
      a if a._sharding is None else a.update(sharding=None) for a in avals])
  return ctx.lower_jaxpr(closed.jaxpr, closed.consts, list(operands))


def per_matrix(fn: Callable, nbatch: int) -> Callable:
  """``fn`` written for unbatched operands, mapped over ``nbatch`` leading dimensions."""
  for _ in range(nbatch):
    fn = _mapped(fn)
  return fn


def _mapped(fn):
  def mapped(*xs):
    size = get_aval(xs[0]).shape[0]
    outs, dims = batching.batch_flat(lambda *ys: list(fn(*ys)), list(xs), [0] * len(xs),
                                     batching.AxisData(size, None))
    return [batching.matchaxis(o, d, 0, size) for o, d in zip(outs, dims)]
  return mapped


def lowering(kernel_rule: Callable, fallback: Callable | None, name: str,
             multiple_results: bool = True) -> Callable:
  """A lowering rule: the LAPACK kernel on the CPU, else ``fallback`` (an HLO algorithm
  written with lax for one matrix) mapped over the batch dimensions."""
  def lower(ctx, *operands, **params):
    avals_in = list(ctx.avals_in)
    if lapack.available(avals_in[0].dtype):
      return kernel_rule(ctx, *operands, **params)
    if fallback is None:
      raise NotImplementedError(f"{name} is only implemented on the CPU (LAPACK kernels).")
    nbatch = avals_in[0].ndim - 2
    outs = lower_fn(ctx, per_matrix(lambda *xs: fallback(*xs, **params), nbatch), operands,
                    avals_in)
    return outs if multiple_results else outs[0]
  return lower


def batch_leading(prim) -> Callable:
  """Batching rule: the mapped dimension becomes a leading batch dimension."""
  def batch(axis, args, dims, **params):
    xs = [batching.bdim_to_front(x, d, axis.size) for x, d in zip(args, dims)]
    out = prim.bind(*xs, **params)
    return out, ([0] * len(out) if prim.multiple_results else 0)
  return batch


def weak_as_operands(abstract_eval: Callable) -> Callable:
  """``abstract_eval`` with JAX's weak-type rule of its linear-algebra primitives: every
  result (integer ones too) is weakly typed where all operands are."""
  def rule(*avals, **params):
    out = abstract_eval(*avals, **params)
    if not avals or not weak_of(avals):
      return out
    if isinstance(out, (list, tuple)):
      return type(out)(o.update(weak_type=True) for o in out)
    return out.update(weak_type=True)
  return rule


def linalg_primitive(name: str, abstract_eval: Callable, lowering_rule: Callable,
                     multiple_results: bool = True, ranks: Sequence[int] | None = (2,)):
  """A primitive on (batches of) matrices and vectors, its operands of the given core
  ``ranks`` (their leading dimensions batch them): batched over the leading dimensions,
  with JAX's sharding rule (``batch_sharding_rule``; none where ``ranks`` is None) and weak
  types (``weak_as_operands``)."""
  prim = standard_primitive(name, weak_as_operands(abstract_eval), lowering_rule,
                            multiple_results)
  prim.batch = batch_leading(prim)
  if ranks is not None:
    prim.sharding_rule = batch_sharding_rule(prim, ranks)
  return prim


def batch_sharding_rule(prim, ranks: Sequence[int]) -> Callable:
  """JAX's sharding rule of its linear-algebra primitives: each operand unsplit on its
  core (matrix or vector) dimensions, all split alike on the batch dimensions, which every
  result keeps."""
  def rule(*avals, **params):
    batch_specs = []
    for i, (rank, aval) in enumerate(zip(ranks, avals)):
      spec = spec_of(aval)
      if any(p is not None for p in spec[len(spec) - rank:]):
        raise ShardingTypeError(f"Input {i} to {prim.name} must be unsharded on non-batch "
                                f"dimensions, but got {PartitionSpec(*spec)}.")
      batch_specs.append(spec[:len(spec) - rank])
    if any(b != batch_specs[0] for b in batch_specs[1:]):
      raise ShardingTypeError(f"All inputs to {prim.name} must have the same batch sharding, "
                              f"but got {batch_specs}.")
    outs = prim.abstract_eval(*avals, **params)
    typed = [result_sharding(prim.name, avals, o.shape, o.dtype,
                             batch_specs[0] + (None,) * (o.ndim - len(batch_specs[0])))
             for o in (outs if prim.multiple_results else [outs])]
    return typed if prim.multiple_results else typed[0]
  return rule
