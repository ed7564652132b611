"""jax.Array's placement attributes on traced values: what JAX 0.10.2's tracers answer under
jit, vmap and grad (error classes and messages recorded from the reference)."""
import inspect
import types

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import errors

TRANSFORMS = {
    "jit": lambda f: xjax.jit(f)(jnp.arange(3.0)),
    "vmap": lambda f: xjax.vmap(f)(jnp.arange(3.0)),
    "grad": lambda f: xjax.grad(lambda x: f(x).sum())(jnp.arange(3.0)),
}


def _under(transform, probe):
  """``probe(tracer)``'s result (or exception) under ``transform``."""
  seen = []

  def f(x):
    try:
      seen.append(probe(x))
    except Exception as e:  # recorded to be checked outside the transformation
      seen.append(e)
    return x
  TRANSFORMS[transform](f)
  return seen[0]


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("name,probe,message", [
    ("committed", lambda t: t.committed, "The 'committed' attribute is not available on"),
    ("addressable_shards", lambda t: t.addressable_shards,
     "The 'addressable_shards' attribute is not available on"),
    ("global_shards", lambda t: t.global_shards, "The global_shards property was called on"),
    ("is_fully_addressable", lambda t: t.is_fully_addressable,
     "The is_fully_addressable property was called on"),
    ("is_fully_replicated", lambda t: t.is_fully_replicated,
     "The is_fully_replicated property was called on"),
    ("traceback", lambda t: t.traceback, "The traceback property was called on"),
    ("addressable_data", lambda t: t.addressable_data(0),
     r"The addressable_data\(\) method was called on"),
    ("delete", lambda t: t.delete(), r"The delete\(\) method was called on"),
    ("devices", lambda t: t.devices(), r"The devices\(\) method was called on"),
    ("is_deleted", lambda t: t.is_deleted(), r"The is_deleted\(\) method was called on"),
    ("on_device_size_in_bytes", lambda t: t.on_device_size_in_bytes(),
     r"The on_device_size_in_bytes\(\) method was called on"),
    ("unsafe_buffer_pointer", lambda t: t.unsafe_buffer_pointer(),
     r"The unsafe_buffer_pointer\(\) method was called on"),
    ("tobytes", lambda t: t.tobytes(), r"The tobytes\(\) method was called on"),
])
def test_concrete_only_attributes_raise_concretization_errors(transform, name, probe, message):
  err = _under(transform, probe)
  assert type(err) is errors.ConcretizationTypeError, (name, err)
  shape = "float32[]" if transform == "vmap" else "float32[3]"
  assert f"{message.replace(chr(92), '')} traced array with shape {shape}" in str(err)


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_attribute_errors_keep_hasattr_false(transform):
  shape = "float32[]" if transform == "vmap" else "float32[3]"
  assert _under(transform, lambda t: (hasattr(t, "sharding"), hasattr(t, "device"),
                                      hasattr(t, "block_until_ready"))) == (False,) * 3
  err = _under(transform, lambda t: t.sharding)
  assert type(err) is AttributeError and str(err) == (
      f"The 'sharding' attribute is not available on traced array with shape {shape}. "
      "To query sharding information on tracers, use `jax.typeof(x)`.")
  for name in ("block_until_ready", "copy_to_host_async"):
    err = _under(transform, lambda t: getattr(t, name))
    assert type(err) is AttributeError
    assert str(err).startswith(f"The '{name}' method is not available on traced array with "
                               f"shape {shape}.")
  err = _under(transform, lambda t: t.device)
  assert type(err) is AttributeError and str(err).endswith("has no attribute device")


def test_tracer_identity_helpers():
  assert _under("jit", lambda t: t.dimension_as_value) is None
  assert _under("jit", lambda t: t.full_lower() is t and t.get_referent() is t)
  x = jnp.arange(3.0)
  assert _under("vmap", lambda t: t.batch_dim) == 0
  referent = _under("vmap", lambda t: t.get_referent())   # the batched value
  assert isinstance(referent, xjax.Array)
  np.testing.assert_array_equal(referent, x)


@pytest.mark.parametrize("transform", ["jit", "vmap"])
def test_byteswap_and_to_device_trace(transform):
  x = jnp.arange(3, dtype=jnp.uint16)
  f = lambda a: a.byteswap()
  out = xjax.jit(f)(x) if transform == "jit" else xjax.vmap(f)(x)
  np.testing.assert_array_equal(out, [0, 256, 512])   # from JAX 0.10.2
  device = xjax.devices()[0]
  np.testing.assert_array_equal(xjax.jit(lambda a: a.to_device(device))(x), x)


# jax.Array's methods that reduce or reshape, called with no arguments on a (2, 3) array.
_METHODS = ["var", "std", "mean", "sum", "prod", "max", "min", "all", "any", "argmax",
            "argmin", "cumsum", "cumprod", "ravel", "flatten", "squeeze", "transpose",
            "conj", "copy", "round", "sort", "argsort", "nonzero", "ptp", "trace", "item"]


@pytest.mark.parametrize("transform", ["jit", "make_jaxpr", "vmap", "grad"])
def test_every_array_method_is_a_method_of_tracers(transform):
  """No tracer's own attribute hides an array method (the jaxpr tracer's variable was
  once called ``var``, so ``x.var()`` failed under jit and make_jaxpr)."""
  x = np.arange(6.0, dtype=np.float32).reshape(2, 3) - 2.0
  names = [n for n in _METHODS if n not in ("nonzero", "item")]
  want = {n: np.asarray(getattr(jnp.asarray(x), n)()) for n in names}
  run = {"jit": lambda f: xjax.jit(f)(x),
         "make_jaxpr": lambda f: xjax.core.eval_jaxpr(
             (j := xjax.make_jaxpr(f)(x)).jaxpr, j.consts, x),
         "vmap": lambda f: [np.squeeze(v, 0) for v in xjax.vmap(f)(x[None])],
         "grad": lambda f: (xjax.grad(lambda y: sum(jnp.sum(v) for v in f(y)) * 0.)(x),
                            [getattr(jnp.asarray(x), n)() for n in names])[1]}[transform]
  got = run(lambda y: [getattr(y, n)() for n in names])
  for n, g in zip(names, got):
    np.testing.assert_allclose(np.asarray(g), want[n], rtol=1e-6, err_msg=n)
  cls = type(jnp.asarray(x))
  array_methods = [n for n in dir(cls) if not n.startswith("_")
                   and callable(inspect.getattr_static(cls, n))]
  shadowed = _under(transform if transform != "make_jaxpr" else "jit", lambda t: [
      n for n in array_methods
      if isinstance(inspect.getattr_static(t, n, None), types.MemberDescriptorType)])
  assert shadowed == [], shadowed
