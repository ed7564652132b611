"""`jax._src.api_util`: e3nn-jax (hence jax-md) completes argnums from argnames, and the
reverse, through ``infer_argnums_and_argnames``; brainstate flattens vmap's axes with
``flatten_axes``."""
from __future__ import annotations

import inspect

from xjax._src.extend.api_util import flatten_axes  # noqa: F401
from xjax._src.compat.jax_private_compat import missing


def _as_tuple(x, kind):
  return (x,) if isinstance(x, kind) else tuple(x)


def infer_argnums_and_argnames(sig: inspect.Signature, argnums, argnames
                               ) -> tuple[tuple[int, ...], tuple[str, ...]]:
  """(argnums, argnames): the one not given is read off ``sig``'s positional-or-keyword
  parameters; both given are returned as tuples unchecked; neither gives ``((), ())``."""
  if argnums is None and argnames is None:
    return (), ()
  if argnums is not None and argnames is not None:
    return _as_tuple(argnums, int), _as_tuple(argnames, str)
  named = [(i, name) for i, (name, p) in enumerate(sig.parameters.items())
           if p.kind == p.POSITIONAL_OR_KEYWORD]
  if argnums is None:
    argnames = _as_tuple(argnames, str)
    return tuple(i for i, name in named if name in argnames), argnames
  argnums = _as_tuple(argnums, int)
  return argnums, tuple(name for i, name in named if i in argnums)


def __getattr__(name: str):
  raise missing("jax._src.api_util", name)
