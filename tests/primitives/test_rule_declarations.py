"""Each rule of a primitive is declared once, and a primitive has only the attributes
``Primitive.ATTRIBUTES`` declares (see core/trace.py's XJAX_CHECK_RULE_DECLARATIONS)."""
import gc
import json
import os
import subprocess
import sys
import warnings

import xjax  # noqa: F401
from xjax._src.core.trace import Primitive


_IMPORT_EVERYTHING = """
import importlib, json, pkgutil, xjax
for m in pkgutil.walk_packages(xjax.__path__, "xjax."):
  importlib.import_module(m.name)
from xjax._src.core import trace
print(json.dumps(trace.rules_set_twice))
"""


def test_every_rule_is_set_once():
  env = dict(os.environ, XJAX_CHECK_RULE_DECLARATIONS="1")
  root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
  done = subprocess.run([sys.executable, "-c", _IMPORT_EVERYTHING], env=env, cwd=root,
                        capture_output=True, text=True, timeout=120)
  assert done.returncode == 0, done.stderr[-3000:]  # an undeclared attribute raises
  twice = json.loads(done.stdout.strip().splitlines()[-1])
  assert not twice, ("rules set a second time after the primitive was built (give "
                     f"the final rule where it is built): {twice}")


def test_primitives_have_only_declared_attributes():
  with warnings.catch_warnings():  # (isinstance on every live object wakes torch's shims)
    warnings.simplefilter("ignore")
    prims = [o for o in gc.get_objects() if isinstance(o, Primitive)]
  assert len(prims) > 100
  for p in prims:
    extra = set(vars(p)) - set(Primitive.ATTRIBUTES)
    assert not extra, f"primitive '{p.name}' has undeclared attributes {extra}"


def test_undeclared_attribute_raises_when_checking():
  code = ("from xjax._src.core.trace import Primitive\n"
          "p = Primitive('p')\n"
          "p.jvp = print\n"
          "p.jvp = repr\n"
          "try:\n"
          "  p.colour = 1\n"
          "except AttributeError as e:\n"
          "  print(e)\n"
          "from xjax._src.core import trace\n"
          "print(trace.rules_set_twice[-1][:2])\n")
  env = dict(os.environ, XJAX_CHECK_RULE_DECLARATIONS="1")
  done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                        text=True, timeout=120)
  assert done.returncode == 0, done.stderr[-3000:]
  assert done.stdout.splitlines() == [
      "Primitive 'p' has no attribute 'colour': a primitive's attributes are those "
      "Primitive.ATTRIBUTES declares.", "('p', 'jvp')"]
