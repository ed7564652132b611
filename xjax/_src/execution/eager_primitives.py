"""Eager primitives: a primitive evaluated now, on the host where its operands are host
values (or small compiled results, for its first calls on them) and it has a host kernel,
else through a one-primitive program compiled through its lowering rule and cached by
(primitive, params, input avals, device)."""
from __future__ import annotations

from xjax._src.foundations.config import config
from xjax._src.foundations.sharding import PLACING
from xjax._src.core.avals import canonical
from xjax._src.core.jaxpr import Jaxpr, JaxprEqn, Var, jaxprs_in_params
from xjax._src.core.jaxpr_cache import bounded_put
from xjax._src.core.trace import eval_types
from xjax._src.core.values import get_aval
from xjax._src.backend import buffers, clients, executables, lowering
from xjax._src.execution import host_eval, spmd
from xjax._src.execution.array import Array
from xjax._src.execution.host_values import FETCHES_BEFORE_COMPILING
from xjax._src.execution.dispatch import input_buffers, params_key, pick_device, run_program
from xjax._src.execution.result_checks import checks_results


_primitive_cache: dict = {}
clients.register_backend_cache(_primitive_cache)
_PRIMITIVE_CACHE_SIZE = 8192  # executables; the oldest go first
# Primitives whose parameters hold jaxprs (loops, branches, calls) each compile a program of
# their own: kept apart and fewer, the least recently used going first.  A loop written with
# new closures on every call (distrax's multinomial sampler under vmap) makes a new program
# each time, and every CPU executable holds memory maps (dozens for a loop body), which the
# kernel limits (vm.max_map_count, 65530): past that, XLA's next compilation crashes.
_body_cache: dict = {}
clients.register_backend_cache(_body_cache)
_BODY_CACHE_SIZE = 64
# (primitive, avals, params) -> [host kernel or None, out avals, calls that fetched operands]
_host_kernels: dict = {}
_last_kernel: dict = {}  # parameterless primitive -> (config token, avals, its entry above)


def clear_caches() -> None:
  """Forgets compiled primitives and host kernels (part of ``xjax.clear_caches``; compiled
  jaxprs are keyed weakly on their jaxprs and go with the jit caches)."""
  _primitive_cache.clear()
  _body_cache.clear()
  _host_kernels.clear()
  _last_kernel.clear()


def apply_primitive(prim, *args, **params):
  """Evaluates one primitive now: on the host where its operands are host values and it
  has a host kernel for their types, else through a cached one-primitive compiled
  program."""
  out = apply_on_host(prim, args, params)
  if out is not None:
    return out
  if clients.several_devices:
    placing = spmd.placing_mesh(args)
    if placing is not None or _any_spread(args):
      return spmd.apply_primitive(prim, args, params, placing)
  avals = tuple([x.aval if type(x) is Array else get_aval(x) for x in args])
  device, committed = pick_device(args, prim.name)
  cache, size = (_body_cache, _BODY_CACHE_SIZE) if jaxprs_in_params(params) else (
      _primitive_cache, _PRIMITIVE_CACHE_SIZE)
  try:
    # Lowerings may read flags that affect tracing (jax_threefry_partitionable).
    key = (prim, avals, params_key(params), device, config._trace_token)
    entry = cache.pop(key, None) if cache is _body_cache else cache.get(key)
  except TypeError:  # unhashable params: compile without caching
    key, entry = None, None
  if entry is None:
    entry = _compile_primitive(prim, avals, params, device)
    if key is not None:
      bounded_put(cache, key, entry, size)
  elif cache is _body_cache:
    cache[key] = entry  # (back in as the most recent: its table is least recently used first)
  exe, out_avals = entry
  results = run_program(exe, input_buffers(args, avals, device), args, out_avals, committed,
                        prim.name)
  return results if prim.multiple_results else results[0]


def apply_on_host(prim, args, params):
  """``prim``'s result (a list with multiple results) computed on the host where its
  operands are host values and it has a host kernel for their types, else None. It reads
  no trace: the partial evaluation of eager differentiation calls it for known values."""
  if prim.host_kernel is None or clients.several_devices or checks_results() or PLACING[0]:
    return None
  results = _apply_on_host(prim, args, params)
  if results is None:
    return None
  return results if prim.multiple_results else results[0]


def _apply_on_host(prim, args, params) -> list | None:
  """The results of ``prim`` computed by its host kernel, or None where an operand is not
  a host value or the kernel does not take these types. (Eager differentiation's hot
  path: one pass over the operands, one flat cache key.)"""
  avals: list = []
  values: list = []
  on_device = None  # positions of small device Arrays, copied to the host if a kernel runs
  for i, x in enumerate(args):
    if type(x) is Array:
      aval = x.aval
      value = x._host if x._b is None else x._live_host()
      if value is None:
        if not host_eval.fetchable(x):
          return None
        on_device = [i] if on_device is None else [*on_device, i]
    else:
      aval = get_aval(x)
      value = host_eval.host_value(x, aval)
      if value is None:
        return None
    avals.append(aval)
    values.append(value)
  if not host_eval.enabled():
    return None
  token = config._trace_token
  last = _last_kernel.get(prim)  # (the last types a parameterless primitive was used on)
  if last is not None and not params and last[0] == token and last[1] == avals:
    entry = last[2]
  else:
    # (parameters in the order given: another order is another entry, as good)
    key = (prim, token, len(avals), *avals, *params.items())
    try:
      entry = _host_kernels.get(key)
    except TypeError:  # unhashable params
      return None
    if entry is None:
      out = eval_types(prim, avals, params)
      out_avals = [canonical(a) for a in out] if prim.multiple_results else [canonical(out)]
      entry = [host_eval.kernel_for(prim, avals, out_avals, params), out_avals, 0]
      bounded_put(_host_kernels, key, entry, _PRIMITIVE_CACHE_SIZE)
    if not params:
      _last_kernel[prim] = (token, avals, entry)
  kernel, out_avals, fetches = entry
  if kernel is None:
    return None
  if on_device is not None:  # compiled results: the first calls copy them (host_eval.fetched)
    if fetches >= FETCHES_BEFORE_COMPILING:
      return None
    entry[2] = fetches + 1
    for i in on_device:
      values[i] = host_eval.fetched(args[i])
      if values[i] is None:
        return None
  try:
    outs = kernel(*values)
  except host_eval.NotOnHost:
    return None
  if not prim.multiple_results:
    return [host_eval.make(outs, out_avals[0])]
  return [host_eval.make(v, a) for v, a in zip(outs, out_avals)]


def _any_spread(args) -> bool:
  """Whether an input is laid out over several devices (the program then runs on all)."""
  return any(type(x) is Array and buffers.is_spread(x._buf) for x in args)


def _compile_primitive(prim, avals, params, device):
  out = eval_types(prim, avals, params)
  out_avals = [canonical(a) for a in out] if prim.multiple_results else [canonical(out)]
  invars = [Var(a) for a in avals]
  outvars = [Var(a) for a in out_avals]
  jaxpr = Jaxpr((), invars, outvars, [JaxprEqn(prim, invars, outvars, params)])
  callbacks: list = []
  text = lowering.lower_module(jaxpr, prim.name, callbacks)
  return executables.compile(text, device, prim.name, out_avals, callbacks), out_avals
