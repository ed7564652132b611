"""``export(jit(f))(*args)``: a jitted function lowered for argument types to a program that
stands alone (every constant written into it), kept as a StableHLO portable artifact with
the pytree structures and avals it was exported for; ``Exported.call`` runs it, also under
``jit`` (spliced into the caller's program) and ``grad`` (through the exported VJP).
The program follows JAX's calling convention: a first ``i32`` platform-index argument
when exported for several platforms, then the arguments kept (``module_kept_var_idx``);
a shape-polymorphic program (read from JAX's bytes) is refined to the shapes of each call."""
from __future__ import annotations

import dataclasses
import functools
import weakref
from typing import Callable, Sequence

from xjax._src.foundations import tree_util
from xjax._src.backend import clients, lowering, mlir_modules
from xjax._src.core.avals import ShapedArray, tangent_aval
from xjax._src.core.jaxpr import eval_jaxpr
from xjax._src.core.trace import Primitive
from xjax._src.foundations.sharding import AbstractMesh, Mesh, NamedSharding, PartitionSpec
from xjax._src.api.jit import PjitFunction, jit
from xjax._src.api.shape_dtype_struct import ShapeDtypeStruct
from xjax._src.api.transformations import vjp
from xjax._src.api.export.shape_poly import is_symbolic_dim, solve

# The calling conventions this module reads and writes (JAX 0.10.2's numbers).
minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10
CALLING_CONVENTION_VERSION = 10

_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


@dataclasses.dataclass(frozen=True)
class DisabledSafetyCheck:
  """A safety check ``Exported.call`` skips: the platform check, or (accepted and kept, as
  xjax exports no custom calls needing it) a custom-call target check."""
  _impl: str

  @classmethod
  def platform(cls) -> "DisabledSafetyCheck":
    return cls("platform")

  @classmethod
  def custom_call(cls, target_name: str) -> "DisabledSafetyCheck":
    return cls(f"custom_call:{target_name}")

  def is_custom_call(self) -> str | None:
    """The custom-call target name, or None for another check."""
    return self._impl[len("custom_call:"):] if self._impl.startswith("custom_call:") else None

  def __str__(self) -> str:
    return self._impl

  __repr__ = __str__


def default_export_platform() -> str:
  """The platform ``export`` targets when given none: the default backend's."""
  return clients.default_backend()


@dataclasses.dataclass(frozen=True, eq=False)
class Exported:
  """A function exported for given argument types (see the module docstring)."""
  fun_name: str
  in_tree: tree_util.PyTreeDef
  in_avals: tuple
  out_tree: tree_util.PyTreeDef
  out_avals: tuple
  in_shardings_hlo: tuple
  out_shardings_hlo: tuple
  nr_devices: int
  platforms: tuple
  ordered_effects: tuple
  unordered_effects: tuple
  disabled_safety_checks: tuple
  mlir_module_serialized: bytes
  calling_convention_version: int
  module_kept_var_idx: tuple
  uses_global_constants: bool
  _get_vjp: Callable[["Exported"], "Exported"] | None
  # Per argument and result leaf, the sharding recorded at export (a NamedSharding over an
  # abstract mesh) or None; None for all when none were recorded.
  _in_named_shardings: tuple | None = None
  _out_named_shardings: tuple | None = None

  def __str__(self) -> str:
    return f"Exported(fun_name={self.fun_name}, ...)"  # as jaxprs print it

  def mlir_module(self) -> str:
    """The exported program as StableHLO text."""
    return _module_text(self.mlir_module_serialized)

  def has_vjp(self) -> bool:
    return self._get_vjp is not None

  def vjp(self) -> "Exported":
    """The exported VJP: takes the primal arguments and the output cotangents (flattened),
    returns the cotangents of the arguments."""
    if self._get_vjp is None:
      raise ValueError("No VJP is available")
    out = _vjps.get(self)
    if out is None:
      out = _vjps[self] = self._get_vjp(self)
    return out

  def serialize(self, vjp_order: int = 0) -> bytearray:
    """Bytes that ``deserialize`` reads back (with the VJPs up to ``vjp_order``)."""
    # serialization reads Exported's fields: the two modules import each other
    from xjax._src.api.export.serialization import serialize
    return serialize(self, vjp_order)

  def call(self, *args, **kwargs):
    """Runs the exported program on arguments of the exported structure and types."""
    return call_exported(self, args, kwargs)

  def in_shardings_jax(self, mesh: Mesh | AbstractMesh | None) -> tuple:
    """The arguments' shardings recorded at export, over ``mesh`` (None: over the abstract
    mesh they were exported with); None for an argument exported without one."""
    return tuple(_over_mesh(s, mesh)
                 for s in self._in_named_shardings or (None,) * len(self.in_avals))

  def out_shardings_jax(self, mesh: Mesh | AbstractMesh | None) -> tuple:
    """The results' shardings recorded at export, as ``in_shardings_jax``."""
    return tuple(_over_mesh(s, mesh)
                 for s in self._out_named_shardings or (None,) * len(self.out_avals))


def _over_mesh(sharding: NamedSharding | None, mesh) -> NamedSharding | None:
  if sharding is None or mesh is None:
    return sharding
  new, old = mesh.abstract_mesh, sharding.mesh
  if (new.axis_sizes, new.axis_names, new.axis_types) != (
      old.axis_sizes, old.axis_names, old.axis_types):
    raise ValueError(f"NamedSharding new mesh {mesh} does not match the mesh used for "
                     f"export {old}.")
  return NamedSharding(mesh, sharding.spec, memory_kind=sharding.memory_kind)


def _recorded_shardings(fun_jit, traced) -> tuple[tuple, tuple]:
  """The shardings an export records per argument and result leaf, over abstract meshes:
  those ``jit``'s ``in_shardings``/``out_shardings`` give and a committed argument's own
  (JAX records also the result shardings it propagates; xjax none)."""
  entry, leaves = traced._entry, traced._leaves
  if fun_jit._bare_spec:   # PartitionSpecs, over the context mesh
    fun_jit = fun_jit._over_context_mesh()
  _, ins, outs = fun_jit._spread_layouts(entry, leaves, traced._args)
  ins = [s if s is not None or not getattr(x, "committed", False) else x.sharding
         for s, x in zip(ins, leaves)]
  return (tuple(map(_abstract_sharding, ins, entry.in_avals)),
          tuple(map(_abstract_sharding, outs, entry.closed.out_avals)))


def _abstract_sharding(sharding, aval) -> NamedSharding | None:
  if sharding is None:
    return None
  if isinstance(sharding, NamedSharding):
    return NamedSharding(sharding.mesh.abstract_mesh, sharding.spec,
                         memory_kind=sharding.memory_kind)
  # a sharding of one device: replicated over an empty mesh, as JAX records it
  return NamedSharding(AbstractMesh((), ()), PartitionSpec(*[None] * aval.ndim))


_vjps: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # Exported -> its VJP


@functools.lru_cache(maxsize=64)
def _module_text(data: bytes) -> str:
  return mlir_modules.deserialize_portable_artifact(data)


# ---------------------------------------------------------------------------------------
# export

def export(fun_jit, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = ()):
  """``export(jit(f), platforms=...)(*args, **kwargs) -> Exported``; arguments are arrays,
  scalars or ``ShapeDtypeStruct``s giving the types to export for."""
  if not isinstance(fun_jit, PjitFunction):
    raise ValueError(f"Function to be exported must be the result of `jit` but is: {fun_jit!r}")
  platforms = _platforms(platforms)
  checks = tuple(disabled_checks)
  for c in checks:
    if not isinstance(c, DisabledSafetyCheck):
      raise TypeError(f"disabled_checks must be DisabledSafetyChecks, got {c!r}")

  def do_export(*args, **kwargs) -> Exported:
    traced = fun_jit.trace(*args, **kwargs)
    entry = traced._entry
    _check_one_device(fun_jit)
    callbacks: list = []
    text = lowering.lower_self_contained(entry.closed, fun_jit._name, callbacks)
    if callbacks:
      raise NotImplementedError("serialization of host_callbacks is not yet implemented")
    has_kwargs, tree = entry.in_tree
    in_tree = tree if has_kwargs else tree_util.tree_structure(
        (tree_util.tree_unflatten(tree, [object()] * tree.num_leaves), {}))
    n_in, n_out = len(entry.in_avals), len(entry.closed.out_avals)
    in_named, out_named = _recorded_shardings(fun_jit, traced)
    return Exported(
        fun_name=fun_jit._name, in_tree=in_tree, in_avals=tuple(entry.in_avals),
        out_tree=entry.out_tree, out_avals=tuple(entry.closed.out_avals),
        in_shardings_hlo=(None,) * n_in, out_shardings_hlo=(None,) * n_out, nr_devices=1,
        platforms=platforms, ordered_effects=(), unordered_effects=(),
        disabled_safety_checks=checks,
        mlir_module_serialized=mlir_modules.serialize_portable_artifact(
            _with_platform_index(text, entry.in_avals, entry.closed.out_avals)
            if len(platforms) > 1 else text),
        calling_convention_version=CALLING_CONVENTION_VERSION,
        module_kept_var_idx=tuple(range(n_in)), uses_global_constants=False,
        _get_vjp=functools.partial(_export_vjp, entry.closed, platforms, checks),
        _in_named_shardings=in_named, _out_named_shardings=out_named)
  return do_export


def _with_platform_index(text: str, in_avals, out_avals) -> str:
  """The program with JAX's multi-platform ``main``: a first ``i32`` platform index (one
  program serves every platform: xjax lowers the same operations for each)."""
  funs = mlir_modules.callable_functions(text, lambda old: f"_xjax_export_{old}")
  ins = [lowering.tensor_type(a) for a in in_avals]
  params = [("%idx", 'tensor<i32> {jax.global_constant = "_platform_index"}')]
  params += [(f"%a{i}", t) for i, t in enumerate(ins)]
  main = _main_calling("_xjax_export_main", params, [], [f"%a{i}" for i in range(len(ins))],
                       ins, [lowering.tensor_type(a) for a in out_avals])
  return "module @jit_exported {\n" + "\n".join([main] + funs) + "\n}\n"


def _main_calling(callee: str, params, pre, operands, callee_ins, callee_outs,
                  outs=None) -> str:
  """A public ``main`` taking ``params`` ((name, type) pairs) that runs the operations
  ``pre``, calls ``callee`` on ``operands`` (of types ``callee_ins``) and returns its
  results (of types ``callee_outs``), converted to the types ``outs`` where given."""
  n = len(callee_outs)
  results = [f"%r#{i}" for i in range(n)] if n > 1 else ["%r"] * n
  bind = "" if n == 0 else "%r = " if n == 1 else f"%r:{n} = "
  lines = [*pre, f"{bind}func.call @{callee}({', '.join(operands)}) : "
                 f"({', '.join(callee_ins)}) -> ({', '.join(callee_outs)})"]
  returned = []
  for i, (r, t, want) in enumerate(zip(results, callee_outs, outs or callee_outs)):
    if want != t:
      lines.append(f"%o{i} = stablehlo.convert {r} : ({t}) -> {want}")
      r = f"%o{i}"
    returned.append((r, want))
  lines.append("return " + ", ".join(r for r, _ in returned) + " : "
               + ", ".join(t for _, t in returned) if returned else "return")
  sig = ", ".join(f"{name}: {t}" for name, t in params)
  body = "\n    ".join(lines)
  return (f"  func.func public @main({sig}) -> ({', '.join(t for _, t in returned)}) "
          f"{{\n    {body}\n  }}")


def _platforms(platforms) -> tuple:
  if platforms is None:
    return (default_export_platform(),)
  if isinstance(platforms, str):
    platforms = (platforms,)
  out = tuple(p.lower() for p in platforms)
  for p in out:
    if p not in _PLATFORMS:
      raise ValueError(f"Unsupported platform {p!r} for export: use one of {_PLATFORMS}.")
  return out


def _check_one_device(fun_jit) -> None:
  for s in tree_util.tree_leaves(fun_jit._shardings or ()):
    if len(getattr(s, "device_set", ())) > 1:
      raise NotImplementedError("export of a jit with shardings over several devices is not "
                                "supported by xjax: export the single-device function.")


@functools.lru_cache(maxsize=64)
def _vjp_for(closed) -> Callable:
  """The jitted VJP of ``closed``: (primals..., output cotangents...) -> input cotangents."""
  n = len(closed.in_avals)

  def fun_vjp_jax(*args):
    _, pullback = vjp(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs), *args[:n])
    return tuple(pullback(list(args[n:])))
  return jit(fun_vjp_jax)


def _export_vjp(closed, platforms, checks, primal: Exported) -> Exported:
  specs = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in primal.in_avals]
  specs += [ShapeDtypeStruct(a.shape, a.dtype) for a in map(tangent_aval, primal.out_avals)]
  return export(_vjp_for(closed), platforms=platforms, disabled_checks=checks)(*specs)


# ---------------------------------------------------------------------------------------
# Calling an Exported

def _call_abstract_eval(*avals, exported):
  """The result avals of a call, after checking the arguments' avals as JAX does (a
  polymorphic program's dimension variables solved from the arguments' shapes)."""
  names = _arg_names(exported)
  for name, got, want in zip(names, avals, exported.in_avals):
    _check_arg(name, got, want)
  if not _is_polymorphic(exported):
    return list(exported.out_avals)
  env = solve(exported.in_avals, [a.shape for a in avals], names)
  return [a.update(shape=tuple(d if isinstance(d, int) else d.evaluate(env) for d in a.shape))
          for a in exported.out_avals]


def _is_polymorphic(exp: Exported) -> bool:
  return any(is_symbolic_dim(d) for a in exp.in_avals + exp.out_avals for d in a.shape)


def _call_lowering(ctx, *args, exported):
  """A call of the exported program, its functions added to this module once for each
  signature."""
  table = ctx.module.__dict__.setdefault("_exported_functions", {})
  key = (id(exported), tuple(ctx.avals_in))
  name = table.get(key)
  if name is None:
    taken = ctx.module._taken
    base = lowering._unique(lowering._sanitize(f"call_exported_{exported.fun_name}"), taken)
    rename = lambda old: base if old == "main" else lowering._unique(f"{base}_{old}", taken)
    text = _callable_module(exported, tuple(ctx.avals_in), _platform_index(exported))
    for fn in mlir_modules.callable_functions(text, rename):
      ctx.module.functions.append("  " + fn)
    ctx.module._keepalive.append(exported)
    table[key] = name = base
  kept = [args[i] for i in exported.module_kept_var_idx]
  kept_avals = [ctx.avals_in[i] for i in exported.module_kept_var_idx]
  return ctx.op("func.call", kept, list(ctx.avals_out), {"callee": f"@{name}"},
                in_avals=kept_avals)


def _platform_index(exp: Exported) -> int:
  here = clients.default_backend()
  return exp.platforms.index(here) if here in exp.platforms else 0  # the check is disabled


def _type(aval) -> str:
  """The program's type of ``aval``; ``?`` for a symbolic dimension."""
  if not any(map(is_symbolic_dim, aval.shape)):
    return lowering.tensor_type(aval)
  dims = "".join(f"{'?' if is_symbolic_dim(d) else d}x" for d in aval.shape)
  return f"tensor<{dims}{lowering.element_type(aval.dtype)}>"


@functools.lru_cache(maxsize=64)
def _callable_module(exp: Exported, avals: tuple, platform_index: int) -> str:
  """The exported program as a module whose ``main`` takes just the kept arguments of this
  call's types: the platform index passed, shapes refined where the program is
  polymorphic (its shape assertions checked)."""
  text = exp.mlir_module()
  poly = _is_polymorphic(exp)
  if len(exp.platforms) == 1 and not poly:
    return text
  funs = mlir_modules.callable_functions(text, lambda old: f"_exported_{old}")
  kept = exp.module_kept_var_idx
  params = [(f"%a{i}", lowering.tensor_type(avals[i])) for i in kept]
  pre, operands, callee_ins = [], [], []
  if len(exp.platforms) > 1:
    pre.append(f"%idx = stablehlo.constant dense<{platform_index}> : tensor<i32>")
    operands.append("%idx")
    callee_ins.append("tensor<i32>")
  for (name, t), i in zip(params, kept):
    want = _type(exp.in_avals[i])
    if want != t:
      pre.append(f"{name}_c = stablehlo.convert {name} : ({t}) -> {want}")
      name = f"{name}_c"
    operands.append(name)
    callee_ins.append(want)
  outs = [lowering.tensor_type(a) for a in _call_abstract_eval(*avals, exported=exp)]
  main = _main_calling("_exported_main", params, pre, operands, callee_ins,
                       [_type(a) for a in exp.out_avals], outs)
  text = "module @exported {\n" + "\n".join([main] + funs) + "\n}\n"
  return mlir_modules.refine_polymorphic_shapes(text) if poly else text


call_exported_p = Primitive("call_exported", multiple_results=True)
call_exported_p.abstract_eval = _call_abstract_eval
call_exported_p.lowering = _call_lowering


def call_exported(exp: Exported, args: tuple, kwargs: dict):
  leaves, tree = tree_util.tree_flatten((args, kwargs))
  if tree != exp.in_tree:
    raise ValueError(
        "The invocation args and kwargs must have the same pytree structure as when the "
        f"function '{exp.fun_name}' was exported, but they have the following structural "
        f"differences: exported for {exp.in_tree}, called with {tree}.")
  if exp.nr_devices != 1:
    raise NotImplementedError(f"Function {exp.fun_name} was exported for {exp.nr_devices} "
                              "devices: xjax calls exported functions on one device.")
  here = clients.default_backend()
  if here not in exp.platforms and DisabledSafetyCheck.platform() not in (
      exp.disabled_safety_checks):
    raise ValueError(f"Function '{exp.fun_name}' was exported for platforms "
                     f"'{exp.platforms}' but it is used on '{(here,)}'.")
  outs = _differentiable_call(exp)(*leaves)
  return tree_util.tree_unflatten(exp.out_tree, list(outs))


@functools.lru_cache(maxsize=256)
def _arg_names(exp: Exported) -> tuple:
  """How JAX's messages name each argument leaf: "args[0]", "kwargs['k']"."""
  paths = tree_util.tree_flatten_with_path(
      tree_util.tree_unflatten(exp.in_tree, [0] * exp.in_tree.num_leaves))[0]
  return tuple(("args" if path[0].idx == 0 else "kwargs") + tree_util.keystr(path[1:])
               for path, _ in paths)


def _check_arg(name: str, got: ShapedArray, want: ShapedArray) -> None:
  if len(got.shape) != len(want.shape):
    raise ValueError(f"Rank mismatch for {name}: expected {_shape(want)} and called with "
                     f"{_shape(got)}")
  if got.dtype != want.dtype:
    raise ValueError(f"Dtype mismatch for {name}: expected {want.dtype} and called with "
                     f"{got.dtype}")
  for i, (g, w) in enumerate(zip(got.shape, want.shape)):
    if not is_symbolic_dim(w) and g != w:
      raise ValueError(f"Shape mismatch for {name}.shape[{i}] (expected same constant): "
                       f"expected {_shape(want)} and called with {_shape(got)}")


def _shape(aval) -> str:
  return "(" + ", ".join(map(str, aval.shape)) + ("," if len(aval.shape) == 1 else "") + ")"


@functools.lru_cache(maxsize=256)
def _differentiable_call(exp: Exported) -> Callable:
  """The flat call of ``exp``, differentiated in reverse mode by its exported VJP."""
  from xjax._src.primitives.custom_derivatives import custom_vjp

  @custom_vjp
  def f_flat(*xs):
    return tuple(call_exported_p.bind(*xs, exported=exp))

  def f_flat_vjp_fwd(*xs):
    return f_flat(*xs), xs

  def f_flat_vjp_bwd(primals, cts):
    return tuple(exp.vjp().call(*primals, *cts))
  f_flat.defvjp(f_flat_vjp_fwd, f_flat_vjp_bwd)
  return f_flat

