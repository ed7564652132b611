"""Functions wrapped with a stack of transformations, as JAX's internals pass them around
(``jax.extend.linear_util``).

A ``WrappedFun`` is a function ``f`` with keyword ``params`` and the transformations applied
to it.  A transformation is written as a generator (``transformation``,
``transformation_with_aux``) or as a function of the inner callable (``transformation2``,
``transformation_with_aux2``); those ``with_aux`` record an auxiliary output in a ``Store``
read through a thunk after the call.  Wrapped functions compare equal when they compute the
same thing (same ``f``, params and transformations), so ``cache`` can memoize on them.
"""
from __future__ import annotations

import time
import weakref
from functools import partial
from typing import Callable

from xjax._src.foundations.config import config
from xjax._src.interpreters.staging import fun_name


class StoreException(Exception):
  """A store read while empty, or written twice."""


_EMPTY = object()


class Store:
  """A value written once (by a transformation's call) and read afterwards."""
  __slots__ = ("_val",)

  def __init__(self) -> None:
    self._val = _EMPTY

  def store(self, val) -> None:
    if self._val is not _EMPTY:
      raise StoreException("Store occupied")
    self._val = val

  def reset(self) -> None:
    self._val = _EMPTY

  @property
  def val(self):
    if self._val is _EMPTY:
      raise StoreException("Store empty")
    return self._val

  def __bool__(self) -> bool:
    return self._val is not _EMPTY


class EqualStore(Store):
  """A store that may be written again with an equal value."""
  __slots__ = ()

  def store(self, val) -> None:
    if self._val is _EMPTY:
      self._val = val
      return
    try:
      same = bool(self._val == val)
    except Exception:
      raise StoreException("Store occupied") from None
    if not same:
      raise StoreException("Store occupied with not-equal value")


class WrappedFun:
  """``f`` with keyword ``params`` and ``transforms`` (outermost first), each a
  ``(gen, static_args)``; ``f_transformed`` is the composed callable and ``stores`` the
  auxiliary-output stores of the transformations (None for those without)."""
  __slots__ = ("f", "f_transformed", "transforms", "stores", "params", "in_type", "debug_info")

  def __init__(self, f: Callable, f_transformed: Callable, transforms: tuple, stores: tuple,
               params: tuple, in_type, debug_info) -> None:
    self.f = f
    self.f_transformed = f_transformed
    self.transforms = transforms
    self.stores = stores
    self.params = params
    self.in_type = in_type
    self.debug_info = debug_info

  @property
  def __name__(self) -> str:
    return fun_name(self.f)

  def wrap(self, gen: Callable, gen_static_args: tuple, out_store: Store | None) -> WrappedFun:
    """This function with one more transformation: ``gen(inner, [out_store,]
    *gen_static_args, *args, **kwargs)``."""
    lead = (self.f_transformed,) if out_store is None else (self.f_transformed, out_store)
    return WrappedFun(self.f, partial(gen, *lead, *gen_static_args),
                      ((gen, gen_static_args),) + self.transforms,
                      (out_store,) + self.stores, self.params, None, self.debug_info)

  def populate_stores(self, stores) -> None:
    """Copies the values of ``stores`` (those of an equal function's call) into ours."""
    for mine, theirs in zip(self.stores, stores):
      if mine is not None:
        mine.store(theirs.val)

  def call_wrapped(self, *args, **kwargs):
    return self.f_transformed(*args, **kwargs)

  def replace_debug_info(self, debug_info) -> WrappedFun:
    return WrappedFun(self.f, self.f_transformed, self.transforms, self.stores, self.params,
                      self.in_type, debug_info)

  def with_unknown_names(self) -> WrappedFun:
    forget = getattr(self.debug_info, "with_unknown_names", None)
    return self if forget is None else self.replace_debug_info(forget())

  def __repr__(self) -> str:
    stack = "\n".join(f"{i}   : {fun_name(gen)}   {fun_name(args)}"
                      for i, (gen, args) in enumerate(self.transforms))
    return f"Wrapped function:\n{stack}\nCore: {fun_name(self.f)}\n"

  def __hash__(self) -> int:
    return hash((self.f, self.transforms, self.params, self.in_type))

  def __eq__(self, other) -> bool:
    return (isinstance(other, WrappedFun) and self.f == other.f
            and self.transforms == other.transforms and self.params == other.params
            and self.in_type == other.in_type)


def wrap_init(f: Callable, params=None, *, debug_info=None) -> WrappedFun:
  """``f`` as a WrappedFun, called with the keyword arguments ``params`` (a dict)."""
  given = {} if params is None else dict(params)
  return WrappedFun(f, partial(f, **given) if given else f, (), (),
                    tuple(sorted(given.items())), None, debug_info)


def _transformation2(gen: Callable, fun: WrappedFun, *gen_static_args) -> WrappedFun:
  return fun.wrap(gen, gen_static_args, None)


def _transformation_with_aux2(gen: Callable, fun: WrappedFun, *gen_static_args,
                              use_eq_store: bool = False, unk_names: bool = False):
  store = EqualStore() if use_eq_store else Store()
  fun = fun.wrap(gen, gen_static_args, store)
  return (fun.with_unknown_names() if unk_names else fun), lambda: store.val


def transformation2(gen: Callable, *args, **kwargs):
  """``gen(inner, *static_args, *args, **kwargs)`` as a transformation:
  ``transformation2(gen)(fun, *static_args)`` is ``fun`` transformed (arguments given
  with ``gen`` make a partial application, as JAX's curried form)."""
  return partial(_transformation2, gen, *args, **kwargs)


def transformation_with_aux2(gen: Callable, *args, **kwargs):
  """``gen(inner, store, *static_args, *args, **kwargs)`` as a transformation with an
  auxiliary output (``store.store(aux)``): ``(fun, aux_thunk) = t(fun, *static_args)``."""
  return partial(_transformation_with_aux2, gen, *args, **kwargs)


def _run_generator(gen: Callable, inner: Callable, static_args: tuple, args, kwargs):
  steps = gen(*static_args, *args, **kwargs)
  inner_args, inner_kwargs = next(steps)
  return steps.send(inner(*inner_args, **inner_kwargs))


def _generator_transformation(gen: Callable, fun: WrappedFun, *gen_static_args) -> WrappedFun:
  def gen2(inner, *args, **kwargs):
    return _run_generator(gen, inner, (), args, kwargs)
  gen2.__name__ = fun_name(gen)
  return fun.wrap(gen2, gen_static_args, None)


def _generator_transformation_with_aux(gen: Callable, fun: WrappedFun, *gen_static_args):
  def gen2(inner, store, *args, **kwargs):
    ans, aux = _run_generator(gen, inner, (), args, kwargs)
    store.store(aux)
    return ans
  gen2.__name__ = fun_name(gen)
  return _transformation_with_aux2(gen2, fun, *gen_static_args)


def transformation(gen: Callable, *args):
  """A transformation written as a generator ``gen(*static_args, *args, **kwargs)`` that
  yields the ``(args, kwargs)`` to call the wrapped function with, is sent its result, and
  yields the transformed result: ``transformation(gen)(fun, *static_args)``."""
  return partial(_generator_transformation, gen, *args)


def transformation_with_aux(gen: Callable, *args):
  """As ``transformation``, the generator's second yield being ``(result, aux)``:
  ``(fun, aux_thunk) = transformation_with_aux(gen)(fun, *static_args)``."""
  return partial(_generator_transformation_with_aux, gen, *args)


def cache(call: Callable, *, explain: Callable | None = None):
  """Memoizes ``call(fun: WrappedFun, *args)`` on ``fun``'s transformations and params,
  ``args`` and the configuration that changes tracing; a hit fills ``fun``'s stores with
  those of the call that computed the result.  Entries go with ``fun.f``.  ``explain(fun,
  first_use, cache, key, seconds)`` is called on misses while
  ``jax_explain_cache_misses`` is on."""
  tables: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

  def memoized(fun: WrappedFun, *args):
    table = tables.setdefault(fun.f, fresh := {})
    key = (fun.transforms, fun.params, fun.in_type, args, config.trace_state_key())
    hit = table.get(key)
    if hit is not None:
      ans, stores = hit
      fun.populate_stores(stores)
      return ans
    start = time.time()
    ans = call(fun, *args)
    if explain is not None and config._read("jax_explain_cache_misses"):
      explain(fun, table is fresh, table, key, time.time() - start)
    table[key] = (ans, fun.stores)
    return ans

  memoized.evict_function = lambda f: tables.pop(f, None)
  memoized.cache_clear = tables.clear
  return memoized


def merge_linear_aux(aux1: Callable, aux2: Callable):
  """``(True, aux1())`` or ``(False, aux2())``: whichever of two auxiliary outputs was
  stored; StoreException when neither or both were."""
  try:
    out1 = aux1()
  except StoreException:
    try:
      return False, aux2()
    except StoreException:
      raise StoreException("neither store occupied") from None
  try:
    aux2()
  except StoreException:
    return True, out1
  raise StoreException("both stores occupied")


@transformation2
def hashable_partial(f, *args):
  """``fun`` with leading arguments ``args`` fixed (part of its identity)."""
  return f(*args)
