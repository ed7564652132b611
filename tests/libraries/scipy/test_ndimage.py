"""xjax.scipy.ndimage.map_coordinates against scipy.ndimage in every boundary mode, orders 0
and 1."""
import numpy as np
import pytest
import scipy.ndimage

from xjax.scipy import ndimage


def test_map_coordinates():
  img = np.arange(20.0, dtype=np.float32).reshape(4, 5)
  coords = [np.array([0.4, -1.2, 3.7, 2.2, 5.6], np.float32),
            np.array([1.6, 0.3, 4.9, -0.6, 7.1], np.float32)]
  for mode, ref_mode in [("constant", "grid-constant"), ("nearest", "nearest"),
                         ("wrap", "grid-wrap"), ("mirror", "mirror"), ("reflect", "reflect")]:
    for order in (0, 1):
      np.testing.assert_allclose(
          ndimage.map_coordinates(img, coords, order, mode=mode, cval=-3.0),
          scipy.ndimage.map_coordinates(img, coords, order=order, mode=ref_mode, cval=-3.0),
          atol=1e-5, err_msg=f"{mode} order {order}")
  with pytest.raises(NotImplementedError, match="order"):
    ndimage.map_coordinates(img, coords, 3)
