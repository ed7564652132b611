"""Modules older and newer JAX code imports, run through `python -m xjax` as such programs
are: `jax.experimental.pjit`, `jax.experimental.compilation_cache`, `jax.lib` (empty in
JAX 0.10.2), stax's activations and optimizers' type names, `jax.api_util.safe_map`, and
the private `jax._src.util` / `jax._src.lax.lax` that JAX's own guides import.  Expected
outputs are JAX 0.10.2's."""
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]

# A jaxpr interpreter in the style of JAX's "custom interpreters" guide, and the primitives
# guide's imports; kept as text: xjax's own tree never imports `jax`.
PROGRAM = '''
import warnings
import jax, jax.numpy as jnp
from jax import lax
from jax.extend import core
from jax._src.util import safe_map, safe_zip, unzip2, split_list, partition_list, merge_lists
from jax._src.lax import lax as lax_internal

def eval_jaxpr(jaxpr, consts, *args):
  env = {}
  def read(v):
    return v.val if isinstance(v, core.Literal) else env[v]
  def write(v, val):
    env[v] = val
  safe_map(write, jaxpr.invars, args)
  safe_map(write, jaxpr.constvars, consts)
  for eqn in jaxpr.eqns:
    outvals = eqn.primitive.bind(*safe_map(read, eqn.invars), **eqn.params)
    if not eqn.primitive.multiple_results:
      outvals = [outvals]
    safe_map(write, eqn.outvars, outvals)
  return safe_map(read, jaxpr.outvars)

closed = jax.make_jaxpr(lambda x: jnp.exp(jnp.tanh(x)) * 2.0)(jnp.ones(3))
print("interpreted", [round(float(v), 5) for v in eval_jaxpr(closed.jaxpr, closed.literals, jnp.ones(3))[0]])
print("api_util.safe_map", jax.api_util.safe_map(lambda a, b: a + b, [1, 2], [3, 4]))
try:
  safe_zip([1, 2], [3])
except ValueError as e:
  print("safe_zip", e)
print("lists", unzip2([(1, 2), (3, 4)]), split_list([1, 2, 3, 4, 5], [1, 2]),
      partition_list([True, False, True], [1, 2, 3]), merge_lists([True, False, True], [1], [9, 8]))
print("lax internal", lax_internal.add_p is lax.add_p, lax_internal.exp(0.0), lax_internal.mul_p.name)

with warnings.catch_warnings(record=True) as w:
  warnings.simplefilter("always")
  from jax.experimental.pjit import pjit
print("pjit warns", [str(x.message) for x in w])
print("pjit", pjit(lambda x, y: x + y, static_argnums=(1,))(1.0, 2), pjit.__name__)
try:
  from jax.experimental.pjit import with_sharding_constraint
except ImportError as e:
  print("pjit ImportError", "cannot import name 'with_sharding_constraint'" in str(e))

import jax.lib
try:
  import jax.lib.xla_bridge
except ModuleNotFoundError as e:
  print("xla_bridge", str(e).startswith("No module named 'jax.lib.xla_bridge'"))

from jax.experimental.compilation_cache import compilation_cache as cc
import sys, tempfile
d = tempfile.mkdtemp()
cc.set_cache_dir(d)
cc.reset_cache()
print("cache dir", jax.config.jax_compilation_cache_dir == d)
jax.jit(lambda x: x * 3.0 + 1.0)(jnp.arange(7.0)).block_until_ready()
import os
print("cache written", len(os.listdir(d)) > 0)

from jax.example_libraries import stax, optimizers
x = jnp.array([-1.0, 0.5])
print("stax", stax.relu(x).tolist(), stax.logsoftmax is jax.nn.log_softmax,
      stax.glorot is jax.nn.initializers.glorot_normal, stax.randn is jax.nn.initializers.normal,
      [round(float(v), 5) for v in stax.gelu(x)], [round(float(v), 5) for v in stax.selu(x)])
print("optimizers", optimizers.Step, optimizers.Schedule, optimizers.Params)
'''


def test_legacy_and_private_modules_under_python_dash_m_xjax(tmp_path):
  script = tmp_path / "prog.py"
  script.write_text(PROGRAM)
  env = dict(os.environ, PYTHONPATH=str(REPO), XJAX_COMPILATION_CACHE="1")
  out = subprocess.run([sys.executable, "-m", "xjax", str(script)], capture_output=True,
                       text=True, cwd=tmp_path, env=env, timeout=300)
  assert out.returncode == 0, out.stderr[-3000:]
  lines = out.stdout.splitlines()
  assert lines == [
      "interpreted [4.28338, 4.28338, 4.28338]",
      "api_util.safe_map [4, 6]",
      "safe_zip safe_zip() argument 1 has length 1 but argument 0 has length 2. All lengths: "
      "(2, 1)",
      "lists ((1, 3), (2, 4)) [[1], [2, 3], [4, 5]] ([2], [1, 3]) [9, 1, 8]",
      "lax internal True 1.0 mul",
      "pjit warns ['jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` "
      "instead.']",
      "pjit 3.0 pjit",
      "pjit ImportError True",
      "xla_bridge True",
      "cache dir True",
      "cache written True",  # xjax persists every compilation (JAX: those over 1 s)
      "stax [0.0, 0.5] True True True [-0.15881, 0.34571] [-1.11133, 0.52535]",
      "optimizers <class 'int'> collections.abc.Callable[[int], float] typing.Any",
  ], out.stdout
