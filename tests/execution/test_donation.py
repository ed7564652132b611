"""Buffer donation (the FAQ's "Buffer donation"): aliasing, deleted inputs, warnings and
errors, with JAX 0.10.2's messages."""
import pickle
import warnings

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

DELETED = r"Array has been deleted with shape=float32\[2,3\]\."


def add(x, y):
  return x + y


def fresh(shape=(2, 3)):
  return jnp.ones(shape) * 1  # a computed buffer (host-put buffers may be views)


def test_donated_buffer_holds_the_result():
  x, y = fresh(), fresh()
  p = y.unsafe_buffer_pointer()
  z = xjax.jit(add, donate_argnums=(1,))(x, y)
  assert y.is_deleted() and not x.is_deleted()
  assert z.unsafe_buffer_pointer() == p  # the result reuses y's memory
  np.testing.assert_array_equal(z, np.full((2, 3), 2.0))
  assert (y.shape, y.dtype, y.ndim, y.size) == ((2, 3), np.float32, 2, 6)  # metadata kept


def test_lowered_module_aliases_donated_inputs():
  text = xjax.jit(add, donate_argnums=0).lower(jnp.ones(3), jnp.ones(3)).as_text()
  assert "%arg0: tensor<3xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<3xf32>)" in text


@pytest.mark.parametrize("use", [
    lambda y: y + 1, lambda y: np.asarray(y), lambda y: repr(y), lambda y: str(y),
    lambda y: print(y), lambda y: y[0], lambda y: xjax.jit(lambda a: a * 2)(y),
    lambda y: y.sum(), lambda y: float(y[0, 0]), lambda y: y.devices(), lambda y: y.device,
    lambda y: xjax.device_get(y), lambda y: xjax.device_put(y, xjax.devices()[0]),
    lambda y: y.block_until_ready(), lambda y: y.copy_to_host_async(), lambda y: y.is_ready(),
    lambda y: pickle.dumps(y)], ids=range(17))
def test_any_use_of_a_donated_array_raises(use):
  y = fresh()
  np.asarray(y)  # a cached host copy must not make it usable afterwards
  xjax.jit(add, donate_argnums=1)(fresh(), y)
  with pytest.raises(RuntimeError, match=DELETED):
    use(y)


def test_donated_array_can_be_deleted_again():
  y = fresh()
  xjax.jit(add, donate_argnums=1)(fresh(), y)
  assert y.delete() is None and y.is_deleted()


def _warnings_of(fn):
  with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    out = fn()
  return out, [str(x.message) for x in w if issubclass(x.category, UserWarning)]


def test_unusable_donations_warn():
  x, y = fresh(), fresh()
  z, msgs = _warnings_of(lambda: xjax.jit(add, donate_argnums=(0, 1))(x, y))
  assert msgs == ["Some donated buffers were not usable: float32[2,3].\nSee an explanation at "
                  "https://docs.jax.dev/en/latest/faq.html#buffer-donation."]
  assert x.is_deleted() and not y.is_deleted()  # only the used donation is consumed
  np.testing.assert_array_equal(z, np.full((2, 3), 2.0))
  y2 = fresh((1, 3))
  _, msgs = _warnings_of(lambda: xjax.jit(add, donate_argnums=(1,))(fresh(), y2))
  assert msgs[0].startswith("Some donated buffers were not usable: float32[1,3].")
  assert not y2.is_deleted()
  _, msgs = _warnings_of(
      lambda: xjax.jit(add, donate_argnums=(0, 1)).lower(jnp.ones(3), 2.0))
  assert msgs[0].startswith("Some donated buffers were not usable: ~float32[].")


def test_warning_once_per_compilation():
  f = xjax.jit(add, donate_argnums=(0, 1))
  _, msgs = _warnings_of(lambda: (f(fresh((3,)), fresh((3,))), f(fresh((3,)), fresh((3,)))))
  assert len(msgs) == 1


def test_pytree_arguments_donate_every_leaf():
  xs = [fresh((2, 3)), fresh((3, 4))]
  out = xjax.jit(lambda xs: [a + 1 for a in xs], donate_argnums=0)(xs)
  assert [a.is_deleted() for a in xs] == [True, True]
  np.testing.assert_array_equal(out[1], np.full((3, 4), 2.0))


@pytest.mark.parametrize("kw", [dict(donate_argnums=(1,)), dict(donate_argnames=("y",))])
@pytest.mark.parametrize("by_keyword", [False, True])
def test_donate_argnums_and_argnames_by_position_or_keyword(kw, by_keyword):
  """JAX 0.10.2 resolves donate_argnums and donate_argnames through the signature, so a
  donated parameter is donated however it is passed."""
  x, y = fresh(), fresh()
  f = xjax.jit(add, **kw)
  f(x, y=y) if by_keyword else f(x, y)
  assert y.is_deleted() and not x.is_deleted()


def test_donation_with_static_arguments():
  f = xjax.jit(lambda n, x: x * n, static_argnums=0, donate_argnums=1)
  x = fresh()
  np.testing.assert_array_equal(f(3, x), np.full((2, 3), 3.0))
  assert x.is_deleted()


def test_donating_host_values_and_scalars():
  f = xjax.jit(lambda a, b: a * b, donate_argnums=0)
  host = np.ones(3, np.float32)
  np.testing.assert_array_equal(f(host, 2.0), [2.0, 2.0, 2.0])
  np.testing.assert_array_equal(host, [1.0, 1.0, 1.0])  # NumPy input untouched
  g = xjax.jit(lambda a: a * 2, donate_argnums=0)
  assert float(g(2.0)) == 4.0 and float(g(2.0)) == 4.0  # cached scalar buffers survive
  assert float(jnp.float32(2.0) * 2.0) == 4.0


def test_donating_the_same_array_twice():
  # JAX 0.10.2's runtime raises JaxRuntimeError naming flattened argument 2 (first use: 1);
  # xjax names the same positions and their pytree paths.
  x = fresh()
  with pytest.raises(xjax.errors.JaxRuntimeError, match="donated twice"):
    _warnings_of(lambda: xjax.jit(add, donate_argnums=(0, 1))(x, x))
  assert not x.is_deleted()
  state = {"m": [{"a": fresh((2,)), "b": x}], "v": x}
  step = xjax.jit(lambda s, y: xjax.tree.map(lambda a: a + 1, s), donate_argnums=(0, 1))
  with pytest.raises(xjax.errors.JaxRuntimeError) as err:
    _warnings_of(lambda: step(state, x))
  assert str(err.value).startswith(
      "INVALID_ARGUMENT: The same buffer was donated twice in one call: s['v'] (flattened "
      "argument 2) is the buffer of s['m'][0]['b'] (flattened argument 1), which is donated.")
  with pytest.raises(xjax.errors.JaxRuntimeError) as err:
    xjax.jit(add, donate_argnums=(0,))(x, x)  # donated and used
  assert "used again in the same call: y (flattened argument 1) is the buffer of x " \
         "(flattened argument 0), which is donated" in str(err.value)
  with pytest.raises(xjax.errors.JaxRuntimeError, match="x .flattened argument 0. is the buffer of y"):
    xjax.jit(add, donate_argnums=(1,))(x, x)  # used, then donated
  np.testing.assert_array_equal(x, np.ones((2, 3)))


def test_donating_zeros_made_alike():
  # Each jnp.zeros(()) is an array of its own (as in JAX), though a host scalar's 0-d Array is
  # cached: donating one leaves the others alone (optax's schedule_free state holds two).
  a, b, c = jnp.zeros(()), jnp.zeros(()), jnp.zeros_like(1.0)
  assert a is not b and c is not jnp.zeros_like(1.0)
  out = xjax.jit(lambda a, b: (a + 1, b + 2), donate_argnums=(0, 1))(a, b)
  assert [float(o) for o in out] == [1.0, 2.0] and a.is_deleted() and b.is_deleted()
  assert float(jnp.zeros(())) == 0.0 and float(c) == 0.0


def test_bad_donation_options():
  with pytest.raises(ValueError, match=r"Jitted function has donate_argnums=\(5,\), but only "
                     "accepts 2 positional arguments."):
    xjax.jit(add, donate_argnums=(5,))
  with pytest.raises(ValueError, match=r"Jitted function has invalid argnames \{'q'\} in "
                     "donate_argnames. Function does not take these args."):
    xjax.jit(add, donate_argnames=("q",))
  with pytest.raises(ValueError, match=r"static_argnames and donate_argnames cannot intersect. "
                     r"Argument names \{'x'\} appear in both"):
    xjax.jit(add, donate_argnums=(0,), static_argnums=(0,))


def test_donation_saves_memory():
  """A donated update loop keeps one copy of its state: the live buffers do not grow."""
  from xjax._src.backend import clients
  step = xjax.jit(lambda p, g: p - 0.1 * g, donate_argnums=0)
  p, g = jnp.zeros(1 << 20) * 1, jnp.ones(1 << 20)
  step(p, g)
  p = jnp.zeros(1 << 20) * 1
  before = len(clients.live_buffers())
  pointer = p.unsafe_buffer_pointer()
  for _ in range(5):
    p = step(p, g)
  assert len(clients.live_buffers()) == before
  assert p.unsafe_buffer_pointer() == pointer
  np.testing.assert_allclose(p, np.full(1 << 20, -0.5, np.float32), rtol=1e-6)
