"""jit's device=/backend= and compiler_options= with 4 CPU devices (run by
tests/api/test_jit_arguments.py in a subprocess).  Placements are those of JAX 0.10.2."""
import warnings

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.errors import JaxRuntimeError
from xjax.sharding import Mesh, NamedSharding, PartitionSpec as P

if xjax.device_count() < 4:
  pytest.skip("needs 4 CPU devices (run through tests/api/test_jit_arguments.py)",
              allow_module_level=True)

warnings.simplefilter("ignore", DeprecationWarning)   # jit's device=/backend= warn
D = xjax.devices()
X = np.linspace(-1.0, 1.0, 4, dtype=np.float32)


def f(x):
  return jnp.sin(x) * 2.0


def test_device_runs_every_call_there():
  g = xjax.jit(f, device=D[2])
  for x in (X, jnp.asarray(X), xjax.device_put(X, D[1])):
    out = g(x)
    np.testing.assert_allclose(out, np.sin(X) * 2.0, rtol=1e-6)
    assert out.devices() == {D[2]} and out.committed
  assert xjax.vmap(g)(X[:, None]).devices() == {D[2]}
  assert xjax.grad(lambda x: g(x).sum())(X).devices() == {D[2]}
  assert g.lower(X).compile()(X).devices() == {D[2]}
  with pytest.raises(ValueError, match=r"Got device ids passed to compile \[1\] on platform "
                                       r"CPU and devices ids calculated from array shardings "
                                       r"and out_shardings \[2\] on platform CPU"):
    g.lower(X).compile(device_assignment=(D[1],))


def test_backend_runs_on_its_first_device():
  g = xjax.jit(f, backend="cpu")
  out = g(xjax.device_put(X, D[1]))
  assert out.devices() == {D[0]} and out.committed
  assert g.lower(X).compile()(X).devices() == {D[0]}


def test_without_placement_computation_follows_the_data():
  out = xjax.jit(f)(xjax.device_put(X, D[3]))
  assert out.devices() == {D[3]}


def test_compiler_options_reach_programs_over_several_devices():
  mesh = Mesh(np.array(D), ("x",))
  spread = NamedSharding(mesh, P("x"))
  g = xjax.jit(f, in_shardings=spread, compiler_options={"not_an_option": True})
  with pytest.raises(JaxRuntimeError, match="No such compile option: 'not_an_option'"):
    g(X)
  out = xjax.jit(f, in_shardings=spread, compiler_options={"xla_cpu_enable_fast_math": False})(X)
  np.testing.assert_allclose(out, np.sin(X) * 2.0, rtol=1e-6)
  assert len(out.devices()) == 4


def test_single_device_shardings_place_the_call():
  S = xjax.sharding.SingleDeviceSharding
  for kw in (dict(in_shardings=S(D[1])), dict(out_shardings=S(D[1])),
             dict(in_shardings=S(D[1]), out_shardings=S(D[1]))):
    out = xjax.jit(f, **kw)(jnp.asarray(X))
    np.testing.assert_allclose(out, np.sin(X) * 2.0, rtol=1e-6)
    assert out.devices() == {D[1]} and out.committed
  # an input committed elsewhere is moved to the device in_shardings names (as JAX)
  assert xjax.jit(f, in_shardings=S(D[0]))(xjax.device_put(X, D[3])).devices() == {D[0]}
  assert xjax.jit(f, out_shardings=S(D[2])).lower(X).compile()(X).devices() == {D[2]}
  with pytest.raises(ValueError, match="incompatible devices"):
    xjax.jit(f, in_shardings=S(D[0]), out_shardings=S(D[1]))(X)
