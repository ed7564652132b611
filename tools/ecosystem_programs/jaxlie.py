"""jaxlie: SO3/SE3 construction, composition, exp/log, and a jitted gradient w.r.t. a tangent."""
import jax
import jax.numpy as jnp
import jaxlie


def run():
  rotation = jaxlie.SO3.from_rpy_radians(0.1, -0.2, 0.3)
  pose = jaxlie.SE3.from_rotation_and_translation(rotation, jnp.array([1.0, 2.0, 3.0]))
  point = jnp.array([0.5, -0.5, 1.0])
  twist = jnp.array([0.1, 0.0, -0.2, 0.05, 0.1, 0.0])
  moved = jax.jit(lambda t: (pose @ jaxlie.SE3.exp(t)) @ point)(twist)
  grad = jax.grad(lambda t: jnp.sum((pose @ jaxlie.SE3.exp(t)) @ point))(twist)
  return {"wxyz": rotation.wxyz, "moved": moved, "log": (pose.inverse() @ pose).log(), "grad": grad,
          "rpy": jnp.array(rotation.as_rpy_radians())}
