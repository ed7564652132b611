"""mujoco-mjx: a pendulum model put on device and stepped with jax.jit(mjx.step)."""
import jax
import jax.numpy as jnp
import mujoco
from mujoco import mjx

XML = """
<mujoco>
  <option timestep="0.01"/>
  <worldbody>
    <body pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05" mass="1"/>
    </body>
  </worldbody>
</mujoco>
"""


def run():
  model = mujoco.MjModel.from_xml_string(XML)
  data = mujoco.MjData(model)
  data.qpos[0] = 0.5
  mjx_model, mjx_data = mjx.put_model(model), mjx.put_data(model, data)
  step = jax.jit(mjx.step)
  qpos = []
  for _ in range(10):
    mjx_data = step(mjx_model, mjx_data)
    qpos.append(mjx_data.qpos[0])
  batch = jax.vmap(lambda q: mjx.step(mjx_model, mjx_data.replace(qpos=q)))(jnp.array([[0.1], [0.2]]))
  return {"qpos": qpos, "qvel": mjx_data.qvel, "batch_qpos": batch.qpos[:, 0]}
