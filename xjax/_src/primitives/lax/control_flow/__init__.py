"""Structured control flow: ``cond``/``switch``, ``while_loop``/``fori_loop``, ``scan``/``map``
and ``associative_scan``, each traced once into a higher-order primitive."""
from xjax._src.primitives.lax.control_flow.conditionals import cond, cond_p, switch
from xjax._src.primitives.lax.control_flow.loops import (fori_loop, map, scan, scan_p, while_loop,
                                                         while_p)
from xjax._src.primitives.lax.control_flow.associative import associative_scan
