"""`python -m xjax SCRIPT` and `xjax.install_as_jax()`: real JAX programs, written against
`jax`, run unmodified in a subprocess."""
import os
import pathlib
import subprocess
import sys
import textwrap

REPO = pathlib.Path(__file__).resolve().parent.parent

PROGRAM = textwrap.dedent("""
    import sys
    import jax
    import jax.numpy as jnp
    from jax import grad, jit, vmap, random, lax
    from jax.example_libraries import optimizers, stax
    from jax.flatten_util import ravel_pytree
    from jax.experimental.ode import odeint

    # a small regression trained with Adam, as in JAX's tutorials
    init_fn, apply_fn = stax.serial(stax.Dense(8), stax.Tanh, stax.Dense(1))
    _, params = init_fn(random.PRNGKey(0), (-1, 2))
    x = random.normal(random.PRNGKey(1), (32, 2))
    y = jnp.sin(x[:, :1]) + x[:, 1:] ** 2
    loss = lambda p: jnp.mean((apply_fn(p, x) - y) ** 2)
    opt_init, opt_update, get_params = optimizers.adam(1e-2)
    state = opt_init(params)
    step = jit(lambda i, s: opt_update(i, grad(loss)(get_params(s)), s))
    first = float(loss(params))
    for i in range(100):
      state = step(i, state)
    last = float(loss(get_params(state)))
    flat, _ = ravel_pytree(get_params(state))
    ys = odeint(lambda y, t: -y, 1.0, jnp.array([0., 1.]))
    print("version", jax.__version__, jax.__version_info__)
    print("loss", first > 2 * last, flat.shape)
    print("ode", round(float(ys[1]), 5))
    print("segment", jax.ops.segment_sum(jnp.ones(3), jnp.array([0, 0, 1]), 2).tolist())
    print("numpy is xjax.numpy", jax.numpy is sys.modules["xjax.numpy"])
    print("args", sys.argv[1:])
    try:
      import jax.experimental.pallas
    except ModuleNotFoundError as e:
      print("missing", e.name, "differences.md" in str(e))
""")


def run(args, tmp_path, code=PROGRAM):
  script = tmp_path / "prog.py"
  script.write_text(code)
  env = dict(os.environ, PYTHONPATH=str(REPO))
  out = subprocess.run([sys.executable, *args(script)], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=300)
  assert out.returncode == 0, out.stderr
  return out.stdout


def check_output(stdout):
  assert "version 0.10.2 (0, 10, 2)" in stdout
  assert "loss True (33,)" in stdout
  assert "ode 0.36788" in stdout
  assert "segment [2.0, 1.0]" in stdout
  assert "numpy is xjax.numpy True" in stdout
  assert "missing jax.experimental.pallas True" in stdout


def test_python_dash_m_xjax(tmp_path):
  stdout = run(lambda s: ["-m", "xjax", str(s), "a", "b"], tmp_path)
  check_output(stdout)
  assert "args ['a', 'b']" in stdout


def test_install_as_jax(tmp_path):
  code = ("import xjax\nxjax.install_as_jax()\nassert xjax.__version__ != '0.10.2'\n"
          + PROGRAM)
  check_output(run(lambda s: [str(s)], tmp_path, code))
