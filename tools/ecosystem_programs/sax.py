"""sax: the README's quick start: a directional coupler and a dispersive waveguide as
S-dictionary models, combined by sax.circuit into a Mach-Zehnder interferometer, evaluated over
wavelength with two circuit backends (klu, through klujax's sparse solver, which turns on 64-bit
mode at import, and filipsson_gunnar), a ring resonator (a feedback loop), and
jax.jit(jax.grad) of a transmission in the coupling and the arm length."""
import jax
import jax.numpy as jnp
import sax


def coupler(coupling=0.5):
  kappa = coupling ** 0.5
  tau = (1 - coupling) ** 0.5
  return sax.reciprocal({("in0", "out0"): tau, ("in0", "out1"): 1j * kappa,
                         ("in1", "out0"): 1j * kappa, ("in1", "out1"): tau})


def waveguide(wl=1.55, wl0=1.55, neff=2.34, ng=3.4, length=10.0, loss=0.0):
  dwl = wl - wl0
  dneff_dwl = (ng - neff) / wl0
  neff = neff - dwl * dneff_dwl
  phase = 2 * jnp.pi * neff * length / wl
  amplitude = jnp.asarray(10 ** (-loss * length / 20), dtype=complex)
  return sax.reciprocal({("in0", "out0"): amplitude * jnp.exp(1j * phase)})


MZI = {
    "instances": {"lft": "coupler", "top": "waveguide", "rgt": "coupler"},
    "connections": {"lft,out0": "rgt,in0", "lft,out1": "top,in0", "top,out0": "rgt,in1"},
    "ports": {"in0": "lft,in0", "in1": "lft,in1", "out0": "rgt,out0", "out1": "rgt,out1"},
}
RING = {
    "instances": {"dc": "coupler", "wg": "waveguide"},
    "connections": {"dc,out1": "wg,in0", "wg,out0": "dc,in1"},
    "ports": {"in0": "dc,in0", "out0": "dc,out0"},
}
MODELS = {"coupler": coupler, "waveguide": waveguide}


def run():
  wl = jnp.linspace(1.53, 1.57, 200)
  out = {}
  for backend in ["klu", "filipsson_gunnar"]:
    mzi, _ = sax.circuit(netlist=MZI, models=MODELS, backend=backend)
    result = mzi(wl=wl, lft={"coupling": 0.3}, top={"length": 200.0}, rgt={"coupling": 0.8})
    out[backend + "_bar"] = jnp.abs(result["in0", "out0"][::20]) ** 2
    out[backend + "_cross"] = jnp.abs(result["in0", "out1"][::20]) ** 2
  ring, _ = sax.circuit(netlist=RING, models=MODELS, backend="klu")
  through = ring(wl=wl, dc={"coupling": 0.1}, wg={"length": 50.0, "loss": 0.01})
  mzi, _ = sax.circuit(netlist=MZI, models=MODELS)

  def transmission(coupling, length):
    s = mzi(wl=1.55, lft={"coupling": coupling}, top={"length": length})
    return jnp.abs(s["in0", "out0"]) ** 2

  grads = jax.jit(jax.grad(transmission, argnums=(0, 1)))(0.4, 120.0)
  return {**out, "ring": jnp.abs(through["in0", "out0"][::10]) ** 2,
          "ring_phase": jnp.angle(through["in0", "out0"][::25]), "grads": jnp.stack(grads)}
