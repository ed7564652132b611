"""sympy2jax: SymPy expressions as an Equinox module (its README's cos/sin example), called
and differentiated with respect to its parameters."""
import equinox as eqx
import jax
import jax.numpy as jnp
import sympy
import sympy2jax


def run():
  x_sym = sympy.symbols("x_sym")
  module = sympy2jax.SymbolicModule([1.0 * sympy.cos(x_sym), 2.0 * sympy.sin(x_sym)])
  x = jnp.linspace(0.0, 1.0, 4)
  cos, sin = module(x_sym=x)
  grads = eqx.filter_grad(lambda m: sum(jnp.sum(o) for o in m(x_sym=x)))(module)
  return {"cos": cos, "sin": sin, "grads": jnp.stack(jax.tree.leaves(grads)),
          "sympy": str(module.sympy())}
