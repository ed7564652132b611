"""xjax.scipy.cluster.vq.vq against scipy.cluster.vq's."""
import numpy as np
import scipy.cluster.vq

from xjax.scipy import cluster

RNG = np.random.RandomState(0)


def test_vq():
  obs = RNG.randn(6, 3).astype(np.float32)
  code, dist = cluster.vq.vq(obs, obs[:2] + 0.1)
  code2, dist2 = scipy.cluster.vq.vq(obs, obs[:2] + 0.1)
  np.testing.assert_array_equal(code, code2)
  np.testing.assert_allclose(dist, dist2, rtol=1e-6)
