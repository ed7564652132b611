"""lax.pcast: the cast to 'varying' is the identity on values (xjax's shard_map has no
varying-axes types); other targets are refused as JAX refuses them."""
import pytest
from tests.multi_device_run import run_cases

from xjax import lax


def test_pcast_over_four_devices():
  assert run_cases("tests/primitives/lax/pcast_cases.py") == 1


def test_pcast_arguments():
  x = {"a": 1.0}
  assert lax.pcast(x, "i", to="varying") is x and lax.pcast(x, (), to="varying") is x
  with pytest.raises(ValueError, match="Allowed `to` values are"):
    lax.pcast(x, "i", to="invariant")
  with pytest.raises(TypeError, match="must be a tuple or a str"):
    lax.pcast(x, {"i"}, to="varying")
  with pytest.raises(NotImplementedError, match="only to='varying'"):
    lax.pcast(x, "i", to="reduced")
