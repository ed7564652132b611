"""scipy/linalg details found by tools/differential_expressions.py
(tools/expressions/scipy_nn_linalg.txt), pinned to JAX 0.10.2's results."""
import numpy as np

import xjax.numpy as jnp
import xjax.scipy.linalg as sl
import xjax.scipy.ndimage as nd
import xjax.scipy.signal as sg
import xjax.scipy.stats as st


def test_empty_determinants_and_linalg_containers():
  assert float(jnp.linalg.det(jnp.zeros((0, 0)))) == 1.
  np.testing.assert_array_equal(jnp.linalg.det(jnp.zeros((2, 0, 0))), [1., 1.])
  assert type(sl.svd(jnp.eye(2))) is tuple and type(sl.schur(jnp.eye(2))) is list


def test_convolve_in_three_dimensions_and_of_integers():
  t = jnp.arange(24.).reshape(2, 3, 4)
  out = sg.convolve(t, jnp.ones((1, 2, 2)))
  assert out.shape == (2, 4, 5) and float(out[0, 0, 0]) == 0. and float(out[0, 1, 1]) == 10.
  r = sg.convolve(jnp.arange(6), jnp.array([1, 2, 1]))
  assert r.dtype == jnp.float32
  np.testing.assert_array_equal(r, np.convolve(np.arange(6), [1, 2, 1]))


def test_map_coordinates_rounds_half_away_from_zero():
  m = jnp.arange(12.).reshape(3, 4)
  out = nd.map_coordinates(m, [jnp.array([0.5, 1.5]), jnp.array([1.5, 2.5])], order=0)
  np.testing.assert_array_equal(out, [m[1, 2], m[2, 3]])
  np.testing.assert_array_equal(
      nd.map_coordinates(jnp.arange(6), [jnp.array([0.4, 2.5, 4.6])], order=1), [0, 3, 5])


def test_mode_counts_nans_as_one_value():
  res = st.mode(jnp.array([1., np.nan, np.nan, 2.]))
  assert np.isnan(float(res.mode)) and int(res.count) == 2
