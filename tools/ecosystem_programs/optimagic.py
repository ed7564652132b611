"""optimagic: its JAX how-to: minimize a function of a pytree of JAX arrays with scipy's L-BFGS-B
and a jitted jax.grad as the derivative, with bounds; then a least-squares fit whose
residuals' jax.jacfwd Jacobian drives scipy's trust-region reflective solver (64 bits)."""
import jax
import jax.numpy as jnp
import optimagic as om

jax.config.update("jax_enable_x64", True)


@om.mark.scalar
def criterion(x):
  return -x["a"] + (x["b"] ** 2).sum() + jnp.exp(0.5 * x["a"]) + ((x["b"] - 1.0) ** 4).sum()


@om.mark.least_squares
def residuals(p):
  t = jnp.linspace(0.0, 2.0, 9)
  data = 2.0 * jnp.exp(-1.3 * t) + 0.5
  return p[0] * jnp.exp(-p[1] * t) + p[2] - data


def run():
  start = {"a": jnp.array(0.0), "b": jnp.array([0.5, -0.3, 2.0])}
  res = om.minimize(fun=criterion, params=start, algorithm="scipy_lbfgsb",
                    jac=jax.jit(jax.grad(criterion)))
  bounded = om.minimize(fun=criterion, params=start, algorithm="scipy_lbfgsb",
                        jac=jax.jit(jax.grad(criterion)),
                        bounds=om.Bounds(upper={"a": jnp.array(1.0),
                                                "b": jnp.array([0.2, 0.2, 0.2])}))
  fit = om.minimize(fun=residuals, params=jnp.array([1.0, 1.0, 0.0]), algorithm="scipy_ls_trf",
                    jac=jax.jacfwd(residuals))
  return {"a": res.params["a"], "b": res.params["b"], "fun": res.fun,
          "bounded_a": bounded.params["a"], "bounded_b": bounded.params["b"],
          "bounded_fun": bounded.fun, "fit": fit.params, "fit_fun": fit.fun,
          "success": (res.success, bounded.success, fit.success)}
