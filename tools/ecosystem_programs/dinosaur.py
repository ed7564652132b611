"""dinosaur (NeuralGCM's dynamical core): its baroclinic-instability example: the
Jablonowski-Williamson steady state plus its perturbation and a humidity tracer on a T21
spectral grid with 8 sigma levels, integrated by the primitive equations with an IMEX
Runge-Kutta step (time_integration.repeated, jitted), a spectral filter, and the nodal fields
(temperature anomaly, vorticity, log surface pressure) after six hours."""
import jax
import jax.numpy as jnp
import numpy as np
from dinosaur import coordinate_systems
from dinosaur import filtering
from dinosaur import primitive_equations
from dinosaur import primitive_equations_states
from dinosaur import scales
from dinosaur import sigma_coordinates
from dinosaur import spherical_harmonic
from dinosaur import time_integration
from dinosaur import units
from dinosaur import xarray_utils


def run():
  physics_specs = units.SimUnits.from_si()
  coords = coordinate_systems.CoordinateSystem(
      spherical_harmonic.Grid.with_wavenumbers(longitude_wavenumbers=22),
      sigma_coordinates.SigmaCoordinates.equidistant(8))
  initial_state_fn, aux_features = primitive_equations_states.steady_state_jw(
      coords, physics_specs)
  state = initial_state_fn()
  state = state + primitive_equations_states.baroclinic_perturbation_jw(coords, physics_specs)
  state.tracers = {"specific_humidity": primitive_equations_states.gaussian_scalar(
      coords, physics_specs)}
  state.sim_time = 0.0
  ref_temps = aux_features[xarray_utils.REF_TEMP_KEY]
  orography = np.zeros(coords.horizontal.modal_shape, np.float32)
  eq = primitive_equations.PrimitiveEquationsSigma(
      ref_temps, orography, coords, physics_specs, humidity_key="specific_humidity")
  dt = physics_specs.nondimensionalize(30 * scales.units.minute)
  step_fn = time_integration.imex_rk_sil3(eq, time_step=dt)
  filters = [time_integration.exponential_step_filter(coords.horizontal, dt)]
  step_fn = time_integration.step_with_filters(step_fn, filters)
  final = jax.jit(time_integration.repeated(step_fn, 12))(state)
  nodal = coords.horizontal.to_nodal(final)
  temperature = nodal.temperature_variation
  smoothed = filtering.exponential_filter(coords.horizontal)(final.vorticity)
  return {"sim_time": final.sim_time, "temp_mean": temperature.mean(axis=(1, 2)),
          "temp_std": temperature.std(axis=(1, 2)), "temp_sample": temperature[4, ::8, ::8],
          "vorticity_rms": jnp.sqrt((nodal.vorticity ** 2).mean(axis=(1, 2))),
          "divergence_rms": jnp.sqrt((nodal.divergence ** 2).mean(axis=(1, 2))),
          "log_surface_pressure": nodal.log_surface_pressure[0, ::8, ::8],
          "humidity": nodal.tracers["specific_humidity"].sum(axis=(1, 2)),
          "modal_vorticity": final.vorticity[3, :4, :4], "filtered": smoothed[3, 16:20, 16:20],
          "unfiltered": final.vorticity[3, 16:20, 16:20]}
