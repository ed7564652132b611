"""jaxsim: a fixed-base double pendulum built from an SDF string: rigid-body dynamics (ABA
forward dynamics, the CRBA mass matrix, gravity forces, a link Jacobian, kinematics and
energy), a jitted simulation of 50 steps with js.model.step, and the gradient of the final
joint angle in the initial one."""
import jax
import jax.numpy as jnp
import jaxsim.api as js

LINK = """
    <link name="{name}"><pose>0 0 {z} 0 0 0</pose>
      <inertial><pose>0 0 -0.25 0 0 0</pose><mass>{mass}</mass><inertia><ixx>0.02</ixx>
        <iyy>0.02</iyy><izz>0.001</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>
      <collision name="{name}_collision"><pose>0 0 -0.25 0 0 0</pose>
        <geometry><box><size>0.05 0.05 0.5</size></box></geometry></collision>
    </link>"""
JOINT = """
    <joint name="{name}" type="revolute"><parent>{parent}</parent><child>{child}</child>
      <axis><xyz>0 1 0</xyz><limit><lower>-3.1</lower><upper>3.1</upper></limit></axis>
    </joint>"""
SDF = ('<sdf version="1.7"><model name="double_pendulum">'
       '<link name="base"><pose>0 0 2 0 0 0</pose><inertial><mass>1.0</mass><inertia>'
       '<ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz>'
       '</inertia></inertial></link>'
       '<joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>'
       + LINK.format(name="upper", mass=1.0, z=2.0) + LINK.format(name="lower", mass=0.5, z=1.5)
       + JOINT.format(name="shoulder", parent="base", child="upper")
       + JOINT.format(name="elbow", parent="upper", child="lower") + "</model></sdf>")


def run():
  model = js.model.JaxSimModel.build_from_model_description(model_description=SDF,
                                                            time_step=0.001)
  data = js.data.JaxSimModelData.build(model=model, joint_positions=jnp.array([0.4, -0.2]),
                                       joint_velocities=jnp.array([0.1, 0.3]))
  _, joint_accelerations = js.model.forward_dynamics_aba(
      model, data, joint_forces=jnp.array([0.5, -0.1]))
  lower = js.link.name_to_idx(model, link_name="lower")

  @jax.jit
  def simulate(q0):
    state = js.data.JaxSimModelData.build(model=model, joint_positions=jnp.array([q0, -0.2]))
    state = jax.lax.fori_loop(0, 50, lambda _, d: js.model.step(model, d), state)
    return state.joint_positions

  return {"dofs": model.dofs(), "joint_names": " ".join(model.joint_names()),
          "total_mass": js.model.total_mass(model),
          "joint_accelerations": joint_accelerations,
          "mass_matrix": js.model.free_floating_mass_matrix(model, data)[6:, 6:],
          "gravity_forces": js.model.free_floating_gravity_forces(model, data)[6:],
          "lower_jacobian": js.link.jacobian(model, data, link_index=lower)[:, 6:],
          "lower_transform": js.link.transform(model, data, link_index=lower),
          "energy": js.model.mechanical_energy(model, data),
          "simulated": simulate(0.4), "grad": jax.grad(lambda q: simulate(q)[0])(0.4)}
