"""Differential sweep of weak types: xjax against the reference JAX.

For a broad set of functions (jnp ufuncs and reductions, lax primitives, control flow,
custom derivatives, checkpoint, nn, random samplers, scipy.special and scipy.stats), every
transformation (plain, jit, grad, value_and_grad, jvp, vjp, linearize, vmap, hessian, jacfwd,
jacrev, checkpoint and compositions) is applied to Python-scalar, weakly typed and strongly
typed inputs, and each output leaf is recorded as (shape, dtype, weak_type) -- or the error's
class. `make_jaxpr` of some transformations also records every equation's output avals (weak
types do not print in jaxprs, in JAX or xjax, so the avals are read from the objects).

    /tmp/ref/bin/python tools/differential_weak_types.py --out /tmp/ref.json
    .venv/bin/python -m xjax tools/differential_weak_types.py --out /tmp/xjax.json
    python tools/differential_weak_types.py --compare /tmp/ref.json /tmp/xjax.json

`--only SUBSTRING` keeps the cases whose name contains it (repeatable).
"""
import argparse
import collections
import json
import sys
import time


def _compare(ref_path, got_path, verbose):
  with open(ref_path) as f:
    ref = json.load(f)
  with open(got_path) as f:
    got = json.load(f)
  counts = {'result': 0, 'jaxpr': 0, 'jaxpr-structure': 0, 'missing': 0}
  for name in sorted(ref):
    if name not in got:
      counts['missing'] += 1
      continue
    r, g = ref[name], got[name]
    if name.endswith('|jaxpr'):
      if isinstance(r, dict) and isinstance(g, dict):
        if r['io'] != g['io']:
          counts['jaxpr'] += 1
          print(f'JAXPR-IO {name}\n  ref:  {r["io"]}\n  xjax: {g["io"]}')
        elif [e[0] for e in r['eqns']] != [e[0] for e in g['eqns']]:
          counts['jaxpr-structure'] += 1
          if verbose:
            print(f'STRUCT {name}\n  ref:  {r["eqns"]}\n  xjax: {g["eqns"]}')
        elif r['eqns'] != g['eqns']:
          counts['jaxpr'] += 1
          diff = [(a, b) for a, b in zip(r['eqns'], g['eqns']) if a != b]
          print(f'JAXPR {name}\n  ref vs xjax: {diff[:4]}')
        continue
    if r != g:
      counts['result'] += 1
      print(f'MISMATCH {name}\n  ref:  {r}\n  xjax: {g}')
  print(f'{len(ref)} reference cases; mismatches: {counts}')
  return sum(counts[k] for k in ('result', 'jaxpr'))


def _sweep(only, out_path, profile):
  import numpy as np
  import jax
  import jax.numpy as jnp
  from jax import lax, random
  import jax.nn as nn
  import jax.scipy.special as sp
  import jax.scipy.stats as st

  f32 = jnp.float32
  scalars = {'py': 0.7, 'weak': jnp.asarray(0.7), 'strong': jnp.asarray(0.7, f32),
             'pyint': 2, 'weakint': jnp.asarray(2), 'int': jnp.asarray(2, jnp.int32)}
  vectors = {'py': 0.7, 'weak': jnp.full(3, 0.7), 'strong': jnp.asarray([0.3, 0.5, 0.7], f32),
             'pyint': 2, 'weakint': jnp.full(3, 2), 'int': jnp.asarray([1, 2, 3], jnp.int32)}
  matrices = {'weak': jnp.full((2, 3), 0.7), 'strong': jnp.asarray([[.3, .5, .7], [.2, .4, .6]], f32),
              'py': 0.7, 'pyint': 2, 'weakint': jnp.full((2, 3), 2),
              'int': jnp.asarray([[1, 2, 3], [4, 5, 6]], jnp.int32)}
  key = random.key(0)

  def leaf_record(x):
    if isinstance(x, (bool, int, float, complex)):
      return type(x).__name__
    aval = x if isinstance(x, jax.ShapeDtypeStruct) else jax.typeof(x)
    return [list(aval.shape), str(aval.dtype), bool(getattr(aval, 'weak_type', False))]

  def record(tree):
    return [leaf_record(x) for x in jax.tree_util.tree_leaves(tree)]

  def is_float(x):
    return jnp.issubdtype(jax.typeof(x).dtype, jnp.inexact)

  def total(out):
    leaves = [l for l in jax.tree_util.tree_leaves(out) if is_float(l)]
    if len(leaves) == 1 and jnp.shape(leaves[0]) == ():
      return leaves[0]
    return sum(jnp.sum(l) for l in leaves)

  def ones_tangent(x):
    if isinstance(x, float):
      return 1.0
    return jnp.ones_like(x)

  def cotangent(x):
    if is_float(x):
      return jnp.ones_like(x)
    return np.zeros(jnp.shape(x), jax.dtypes.float0)

  # Transformations: each takes (f, args, float positions) and returns the outputs.
  def t_grad(f, a, p):
    return jax.grad(lambda *a: total(f(*a)), argnums=p)(*a)

  def t_vag(f, a, p):
    return jax.value_and_grad(lambda *a: total(f(*a)), argnums=p)(*a)

  def closed(f, a, p):
    """f of the float arguments only, the others closed over."""
    def g(*xs):
      full = list(a)
      for i, x in zip(p, xs):
        full[i] = x
      return f(*full)
    return g, [a[i] for i in p]

  def t_jvp(f, a, p):
    g, xs = closed(f, a, p)
    return jax.jvp(g, xs, [ones_tangent(x) for x in xs])

  def t_vjp(f, a, p):
    g, xs = closed(f, a, p)
    out, fun = jax.vjp(g, *xs)
    return out, fun(jax.tree_util.tree_map(cotangent, out))

  def t_linearize(f, a, p):
    g, xs = closed(f, a, p)
    out, fun = jax.linearize(g, *xs)
    return out, fun(*[ones_tangent(x) for x in xs])

  def t_vmap(f, a, p, kinds):
    axes = tuple(None if k.startswith('py') else 0 for k in kinds)
    return jax.vmap(f, in_axes=axes)(*a)

  transforms = {
      'plain': lambda f, a, p: f(*a),
      'jit': lambda f, a, p: jax.jit(f)(*a),
      'checkpoint': lambda f, a, p: jax.checkpoint(f)(*a),
      'grad': t_grad,
      'value_and_grad': t_vag,
      'jvp': t_jvp,
      'vjp': t_vjp,
      'linearize': t_linearize,
      'hessian': lambda f, a, p: jax.hessian(f, argnums=p)(*a),
      'jacfwd': lambda f, a, p: jax.jacfwd(f, argnums=p)(*a),
      'jacrev': lambda f, a, p: jax.jacrev(f, argnums=p)(*a),
      'jit_grad': lambda f, a, p: jax.jit(lambda *a: t_grad(f, a, p))(*a),
      'grad_jit': lambda f, a, p: t_grad(jax.jit(f), a, p),
      'grad_checkpoint': lambda f, a, p: t_grad(jax.checkpoint(f), a, p),
      'grad_grad': lambda f, a, p: t_grad(lambda *a: t_grad(f, a, p[:1]), a, p[:1]),
      'jvp_grad': lambda f, a, p: t_jvp(lambda *a: t_grad(f, a, p), a, p),
      'jvp_jit': lambda f, a, p: t_jvp(jax.jit(f), a, p),
      'jit_jvp': lambda f, a, p: jax.jit(lambda *a: t_jvp(f, a, p))(*a),
      'jit_vjp': lambda f, a, p: jax.jit(lambda *a: t_vjp(f, a, p))(*a),
      'linearize_jit': lambda f, a, p: t_linearize(jax.jit(f), a, p),
      'hessian_checkpoint': lambda f, a, p: jax.hessian(jax.checkpoint(f), argnums=p)(*a),
      'jacrev_jit': lambda f, a, p: jax.jacrev(jax.jit(f), argnums=p)(*a),
  }
  batched = {
      'vmap': lambda f, a, p, k: t_vmap(f, a, p, k),
      'jit_vmap': lambda f, a, p, k: jax.jit(lambda *a: t_vmap(f, a, p, k))(*a),
      'vmap_grad': lambda f, a, p, k: t_vmap(lambda *a: t_grad(f, a, p), a, p, k),
      'vmap_jvp': lambda f, a, p, k: t_vmap(lambda *a: t_jvp(f, a, p), a, p, k),
      'vmap_vjp': lambda f, a, p, k: t_vmap(lambda *a: t_vjp(f, a, p), a, p, k),
      'grad_vmap': lambda f, a, p, k: t_grad(lambda *a: t_vmap(f, a, p, k), a, p),
      'vmap_checkpoint': lambda f, a, p, k: t_vmap(jax.checkpoint(f), a, p, k),
      'vmap_hessian': lambda f, a, p, k: t_vmap(lambda *a: jax.hessian(f, argnums=p)(*a), a, p, k),
  }
  jaxpr_of = ('plain', 'grad', 'jvp', 'vjp', 'hessian', 'vmap')
  # Run on concrete values (eager dispatch included); the rest only traced, with the inputs
  # closed over (Python scalars stay Python scalars), as compiling them all takes hours.
  concrete = ('plain', 'jit', 'checkpoint', 'grad', 'value_and_grad', 'jvp', 'vjp', 'linearize', 'vmap')

  def run(tname, thunk):
    return record(thunk() if tname in concrete else jax.eval_shape(thunk))

  def pos_record(jaxpr, out):
    for e in jaxpr.eqns:
      out.append([e.primitive.name, [str(v.aval) for v in e.outvars]])
      for v in e.params.values():
        for sub in (v if isinstance(v, (tuple, list)) else (v,)):
          inner = getattr(sub, 'jaxpr', sub)
          if hasattr(inner, 'eqns') and hasattr(inner, 'outvars'):
            out.append(['{', [str(x.aval) for x in inner.invars]])
            pos_record(inner, out)
            out.append(['}', [str(getattr(x, 'aval', x)) for x in inner.outvars]])
    return out

  def jaxpr_record(fun, args):
    closed_jaxpr = jax.make_jaxpr(fun)(*args)
    io = [[str(a) for a in closed_jaxpr.in_avals], [str(a) for a in closed_jaxpr.out_avals]]
    return {'io': io, 'eqns': pos_record(closed_jaxpr.jaxpr, [])}

  un = [('py',), ('weak',), ('strong',)]
  bi = [('py', 'py'), ('py', 'weak'), ('weak', 'strong'), ('strong', 'py'), ('strong', 'strong')]
  bint = [('weak', 'pyint'), ('strong', 'int'), ('pyint', 'weak')]

  def ident_jvp(x):
    return x * 2.

  ident_jvp = jax.custom_jvp(ident_jvp)
  ident_jvp.defjvp(lambda p, t: (ident_jvp(p[0]), t[0] * 2.))

  def cvjp_f(x, y):
    return x * y + 1.

  cvjp_f = jax.custom_vjp(cvjp_f)
  cvjp_f.defvjp(lambda x, y: (cvjp_f(x, y), (x, y)), lambda r, g: (g * r[1], g * r[0]))

  def cvjp_const(x):
    return x * 3.

  cvjp_const = jax.custom_vjp(cvjp_const)
  cvjp_const.defvjp(lambda x: (cvjp_const(x), None), lambda r, g: (3. * g,))

  def scan_fn(x, y):
    def body(c, z):
      return c * z + jnp.sin(c), c * y
    return lax.scan(body, x, jnp.arange(3.))

  def scan_ckpt(x, y):
    def body(c, z):
      return c * z + jnp.sin(c) * y, c
    c, ys = lax.scan(jax.checkpoint(body), x, jnp.arange(3.))
    return c + ys.sum()

  def scan_const_carry(x, y):
    return lax.scan(lambda c, z: (c + x * z, 2.), 1., jnp.arange(3.))

  funcs = [
      # (name, function, argument combinations, float-argument positions or None for all)
      *[(f'jnp.{n}', getattr(jnp, n), un, None) for n in (
          'sin', 'cos', 'tan', 'exp', 'exp2', 'log', 'log2', 'log1p', 'expm1', 'tanh', 'sinh',
          'arctan', 'arcsinh', 'sqrt', 'cbrt', 'abs', 'negative', 'square', 'reciprocal',
          'floor', 'ceil', 'round', 'sign', 'deg2rad', 'sinc', 'real', 'conj', 'positive',
          'fabs', 'trunc', 'signbit', 'isfinite', 'nan_to_num', 'i0', 'angle')],
      *[(f'jnp.{n}', getattr(jnp, n), bi + bint, None) for n in (
          'add', 'subtract', 'multiply', 'divide', 'true_divide', 'power', 'maximum', 'minimum',
          'arctan2', 'hypot', 'mod', 'floor_divide', 'logaddexp', 'copysign', 'fmax', 'heaviside',
          'float_power', 'remainder', 'fmod', 'greater', 'equal')],
      ('jnp.where', lambda x, y: jnp.where(x > y, x, y), bi, None),
      ('jnp.where_const', lambda x, y: jnp.where(x > y, x, 1.), bi, None),
      ('jnp.clip', lambda x, y: jnp.clip(x, 0., y), bi, None),
      ('jnp.polyval', lambda x, y: jnp.polyval(jnp.asarray([1., 2.]), x) * y, bi, None),
      ('op.rpow', lambda x: 2. ** x, un, None),
      ('op.pow_int', lambda x: x ** 2, un, None),
      ('op.pow_float', lambda x: x ** 2.5, un, None),
      ('op.div_int', lambda x: x / 2, un, None),
      ('op.sub_int', lambda x: x - 1, un, None),
      ('op.mul_bool', lambda x: x * (x > 0), un, None),
      ('jnp.sum', lambda x: jnp.sum(x), un, None),
      ('jnp.mean', lambda x: jnp.mean(x * jnp.ones(3)), un, None),
      ('jnp.prod', lambda x: jnp.prod(jnp.stack([x, x])), un, None),
      ('jnp.max', lambda x, y: jnp.max(jnp.stack([x, y])), bi, None),
      ('jnp.var', lambda x, y: jnp.var(jnp.stack([x, y])), bi, None),
      ('jnp.std', lambda x, y: jnp.std(jnp.stack([x, y])), bi, None),
      ('jnp.cumsum', lambda x, y: jnp.cumsum(jnp.stack([x, y])), bi, None),
      ('jnp.linalg.norm', lambda x, y: jnp.linalg.norm(jnp.stack([x, y])), bi, None),
      ('jnp.dot', lambda x, y: jnp.dot(jnp.stack([x, y]), jnp.stack([y, x])), bi, None),
      ('jnp.outer', lambda x, y: jnp.outer(jnp.stack([x, y]), jnp.stack([y, x])), bi, None),
      ('jnp.interp', lambda x, y: jnp.interp(x, jnp.asarray([0., 1.]), jnp.asarray([y, 2.])), bi, None),
      ('jnp.sort', lambda x, y: jnp.sort(jnp.stack([x, y])), bi, None),
      ('jnp.asarray', lambda x: jnp.asarray(x), un, None),
      ('jnp.array_list', lambda x, y: jnp.array([x, y]), bi, None),
      ('jnp.zeros_like', lambda x: jnp.zeros_like(x) + x, un, None),
      ('jnp.full_like', lambda x: jnp.full_like(x, 3.), un, None),
      ('jnp.astype', lambda x: jnp.asarray(x).astype(jnp.float32), un, None),
      ('jnp.einsum', lambda x, y: jnp.einsum('i,i->', jnp.stack([x, y]), jnp.stack([y, x])), bi, None),
      ('jnp.select', lambda x, y: jnp.select([x > y], [x], y), bi, None),
      ('jnp.piecewise', lambda x: jnp.piecewise(x, [x > 0.5], [lambda v: v * 2, lambda v: 1.]), un, None),
      ('jnp.index', lambda x, y: jnp.stack([x, y])[1], bi, None),
      ('jnp.at_set', lambda x, y: jnp.zeros(2).at[0].set(x) * y, bi, None),
      ('jnp.at_add_weak', lambda x, y: jnp.full(2, 1.).at[0].add(x) + y, bi, None),
      ('lax.add', lambda x, y: lax.add(x, y), [('py', 'py'), ('weak', 'weak'), ('strong', 'strong'), ('weak', 'py')], None),
      ('lax.mul', lambda x, y: lax.mul(x, y), [('py', 'py'), ('weak', 'weak'), ('strong', 'strong'), ('weak', 'py')], None),
      ('lax.sin', lax.sin, un, None),
      ('lax.exp', lax.exp, un, None),
      ('lax.logistic', lax.logistic, un, None),
      ('lax.rsqrt', lax.rsqrt, un, None),
      ('lax.integer_pow', lambda x: lax.integer_pow(x, 3), un, None),
      ('lax.integer_pow_neg', lambda x: lax.integer_pow(x, -2), un, None),
      ('lax.pow', lambda x, y: lax.pow(x, y), [('weak', 'weak'), ('strong', 'strong'), ('py', 'py')], None),
      ('lax.square', lax.square, un, None),
      ('lax.erf_inv', lambda x: lax.erf_inv(x * 0.5), un, None),
      ('lax.stop_gradient', lambda x: lax.stop_gradient(x) * x, un, None),
      ('lax.convert_element_type', lambda x: lax.convert_element_type(x, jnp.float32), un, None),
      ('lax.convert_f16', lambda x: lax.convert_element_type(x, jnp.float16), un, None),
      ('lax.select', lambda x, y: lax.select(x > y, x, y), [('weak', 'weak'), ('strong', 'strong')], None),
      ('lax.clamp', lambda x, y: lax.clamp(0., x, y), bi, None),
      ('lax.max', lambda x, y: lax.max(x, y), [('weak', 'weak'), ('strong', 'strong')], None),
      ('lax.broadcast', lambda x: lax.broadcast(x, (2,)), un, None),
      ('lax.broadcast_in_dim', lambda x: lax.broadcast_in_dim(x, (2, 2), ()), un, None),
      ('lax.reshape', lambda x: lax.reshape(jnp.asarray(x), (1, 1)), un, None),
      ('lax.expand_dims', lambda x: lax.expand_dims(x, (0,)), un, None),
      ('lax.pad', lambda x, y: lax.pad(jnp.stack([x, y]), 0., [(1, 1, 0)]), bi, None),
      ('lax.pad_weak', lambda x, y: lax.pad(lax.broadcast(x, (2,)), y, [(1, 1, 0)]), bi, None),
      ('lax.concatenate', lambda x, y: lax.concatenate([lax.broadcast(x, (1,)), lax.broadcast(y, (1,))], 0), [('weak', 'weak'), ('strong', 'strong')], None),
      ('lax.dynamic_slice', lambda x, y: lax.dynamic_slice(lax.broadcast(x, (3,)) * y, (1,), (2,)), bi, None),
      ('lax.dynamic_update_slice', lambda x, y: lax.dynamic_update_slice(lax.broadcast(x, (3,)), lax.broadcast(y, (1,)), (1,)), [('weak', 'weak'), ('strong', 'strong')], None),
      ('lax.dynamic_index', lambda x: lax.dynamic_index_in_dim(lax.broadcast(x, (3,)), 1, keepdims=False), un, None),
      ('lax.reduce_sum', lambda x: lax.reduce_sum(lax.broadcast(x, (3,)), (0,)), un, None),
      ('lax.reduce_max', lambda x: lax.reduce_max(lax.broadcast(x, (3,)), (0,)), un, None),
      ('lax.cumsum', lambda x: lax.cumsum(lax.broadcast(x, (3,))), un, None),
      ('lax.cumprod', lambda x: lax.cumprod(lax.broadcast(x, (3,))), un, None),
      ('lax.cummax', lambda x: lax.cummax(lax.broadcast(x, (3,))), un, None),
      ('lax.sort', lambda x, y: lax.sort(jnp.stack([x, y])), bi, None),
      ('lax.top_k', lambda x, y: lax.top_k(jnp.stack([x, y]), 1)[0], bi, None),
      ('lax.argmax', lambda x, y: lax.argmax(jnp.stack([x, y]), 0, jnp.int32) * x, bi, None),
      ('lax.reduce_precision', lambda x: lax.reduce_precision(x, 5, 10), un, None),
      ('lax.dot_general', lambda x, y: lax.dot_general(lax.broadcast(x, (2,)), lax.broadcast(y, (2,)), (((0,), (0,)), ((), ()))), [('weak', 'weak'), ('strong', 'strong'), ('weak', 'strong')], None),
      ('lax.rem', lambda x, y: lax.rem(x, y), [('weak', 'weak'), ('strong', 'strong')], None),
      ('lax.atan2', lambda x, y: lax.atan2(x, y), [('weak', 'weak'), ('strong', 'strong')], None),
      ('lax.nextafter', lambda x, y: lax.nextafter(x, y), [('weak', 'weak'), ('strong', 'strong')], None),
      ('lax.cond', lambda x, y: lax.cond(x > y, lambda a, b: a * 2., lambda a, b: a + b, x, y), bi, None),
      ('lax.cond_const', lambda x, y: lax.cond(x > y, lambda a: 1., lambda a: a, x), bi, None),
      ('lax.cond_consts', lambda x, y: lax.cond(x > y, lambda: 1., lambda: 2.) * x, bi, None),
      ('lax.cond_tuple', lambda x, y: lax.cond(x > 0., lambda a, b: (a, b * 2), lambda a, b: (b, a), x, y), bi, None),
      ('lax.cond_close', lambda x, y: lax.cond(True, lambda: x * y, lambda: y), bi, None),
      ('lax.switch', lambda x, y: lax.switch(1, [lambda a, b: a, lambda a, b: a * b, lambda a, b: 3.], x, y), bi, None),
      ('lax.while_loop', lambda x, y: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * y), (0, x))[1], bi, None),
      ('lax.while_pyconst', lambda x, y: lax.while_loop(lambda c: c[1] < 3., lambda c: (c[0] * y, c[1] + 1.), (x, 0.)), bi, None),
      ('lax.fori_loop', lambda x, y: lax.fori_loop(0, 3, lambda i, c: c * y + i, x), bi, None),
      ('lax.fori_loop_dyn', lambda x, y: lax.fori_loop(0, jnp.asarray(3), lambda i, c: c * y, x), bi, None),
      ('lax.fori_pair', lambda x, y: lax.fori_loop(0, 2, lambda i, c: (c[0] * c[1], c[1] + 1.), (x, y)), bi, None),
      ('lax.scan', scan_fn, bi, None),
      ('lax.scan_ckpt', scan_ckpt, bi, None),
      ('lax.scan_const_carry', scan_const_carry, bi, None),
      ('lax.scan_none', lambda x, y: lax.scan(lambda c, _: (c * y, None), x, None, length=3), bi, None),
      ('lax.scan_rev', lambda x, y: lax.scan(lambda c, z: (c + z * y, c), x, jnp.ones(2), reverse=True), bi, None),
      ('lax.map', lambda x, y: lax.map(lambda z: z * x + y, jnp.arange(3.)), bi, None),
      ('lax.associative_scan', lambda x, y: lax.associative_scan(jnp.add, jnp.stack([x, y])), bi, None),
      ('custom_jvp', ident_jvp, un, None),
      ('custom_jvp.logsumexp', lambda x, y: nn.logsumexp(jnp.stack([x, y])), bi, None),
      ('custom_vjp', cvjp_f, bi, None),
      ('custom_vjp_const', cvjp_const, un, None),
      ('checkpoint.inner', lambda x, y: jax.checkpoint(lambda a, b: jnp.sin(a) * b)(x, y), bi, None),
      ('checkpoint.policy', lambda x, y: jax.checkpoint(lambda a, b: jnp.sin(a) * b, policy=jax.checkpoint_policies.nothing_saveable)(x, y), bi, None),
      ('checkpoint.const', lambda x, y: jax.checkpoint(lambda a: (a, 2.))(x), bi, None),
      ('jit.inner_const', lambda x, y: jax.jit(lambda a: (a * y, 3.))(x), bi, None),
      ('jit.passthrough', lambda x, y: jax.jit(lambda a, b: (b, a))(x, y), bi, None),
      *[(f'nn.{n}', getattr(nn, n), un, None) for n in (
          'relu', 'relu6', 'gelu', 'softplus', 'sigmoid', 'silu', 'elu', 'leaky_relu', 'celu',
          'selu', 'log_sigmoid', 'soft_sign', 'hard_tanh', 'hard_sigmoid', 'mish', 'squareplus',
          'sparse_plus', 'tanh')],
      ('nn.softmax', lambda x, y: nn.softmax(jnp.stack([x, y])), bi, None),
      ('nn.log_softmax', lambda x, y: nn.log_softmax(jnp.stack([x, y])), bi, None),
      ('nn.standardize', lambda x, y: nn.standardize(jnp.stack([x, y])), bi, None),
      ('nn.one_hot', lambda x: nn.one_hot(1, 3) * x, un, None),
      ('random.uniform', lambda x, y: random.uniform(key, (), minval=x, maxval=y + 1.), bi, None),
      ('random.normal', lambda x: random.normal(key) * x, un, None),
      ('random.gamma', lambda x: random.gamma(key, x + 1.), un, None),
      ('random.beta', lambda x, y: random.beta(key, x, y), bi, None),
      ('random.bernoulli', lambda x: random.bernoulli(key, x) * x, un, None),
      ('random.truncated_normal', lambda x, y: random.truncated_normal(key, -x, y), bi, None),
      ('random.exponential', lambda x: random.exponential(key) * x, un, None),
      ('random.categorical', lambda x, y: random.categorical(key, jnp.stack([x, y])) * x, bi, None),
      ('random.poisson', lambda x: random.poisson(key, x) * x, un, None),
      ('random.dirichlet', lambda x, y: random.dirichlet(key, jnp.stack([x, y])), bi, None),
      ('random.multivariate_normal', lambda x, y: random.multivariate_normal(key, jnp.stack([x, y]), jnp.eye(2)), bi, None),
      *[(f'special.{n}', getattr(sp, n), un, None) for n in (
          'gammaln', 'digamma', 'erf', 'erfc', 'erfinv', 'logit', 'expit', 'ndtr', 'ndtri',
          'log_ndtr', 'i0e', 'i1e', 'i0', 'i1', 'entr', 'gamma', 'spence', 'exp1',
          'expi', 'factorial')],
      *[(f'special.{n}', getattr(sp, n), bi, None) for n in (
          'xlogy', 'xlog1py', 'betaln', 'gammainc', 'gammaincc', 'zeta', 'kl_div', 'rel_entr', 'beta')],
      ('special.betainc', lambda x, y: sp.betainc(x, y, 0.5), bi, None),
      ('special.logsumexp', lambda x, y: sp.logsumexp(jnp.stack([x, y])), bi, None),
      ('special.polygamma', lambda x: sp.polygamma(1, x), un, None),
  ]
  stats = [
      ('norm', ('logpdf', 'pdf', 'cdf', 'logcdf', 'sf', 'logsf', 'ppf', 'isf'), 3),
      ('t', ('logpdf', 'pdf', 'cdf', 'sf', 'ppf'), 4),
      ('gamma', ('logpdf', 'pdf', 'cdf', 'logcdf', 'sf', 'logsf'), 4),
      ('beta', ('logpdf', 'pdf', 'cdf', 'logcdf', 'sf', 'logsf'), 5),
      ('expon', ('logpdf', 'pdf', 'cdf', 'logcdf', 'sf', 'logsf', 'ppf'), 3),
      ('laplace', ('logpdf', 'pdf', 'cdf'), 3),
      ('logistic', ('logpdf', 'pdf', 'cdf', 'sf', 'isf', 'ppf'), 3),
      ('cauchy', ('logpdf', 'pdf', 'cdf', 'logcdf', 'sf', 'logsf', 'isf', 'ppf'), 3),
      ('chi2', ('logpdf', 'pdf', 'cdf', 'logcdf', 'sf', 'logsf'), 4),
      ('uniform', ('logpdf', 'pdf', 'cdf', 'ppf'), 3),
      ('truncnorm', ('logpdf', 'pdf', 'cdf', 'logcdf', 'sf', 'logsf'), 5),
      ('vonmises', ('logpdf', 'pdf'), 2),
      ('wrapcauchy', ('logpdf', 'pdf'), 2),
      ('gennorm', ('logpdf', 'pdf', 'cdf'), 2),
      ('pareto', ('logpdf', 'pdf'), 4),
      ('poisson', ('logpmf', 'pmf', 'cdf'), 3),
      ('bernoulli', ('logpmf', 'pmf', 'cdf', 'ppf'), 2),
      ('binom', ('logpmf', 'pmf'), 4),
      ('geom', ('logpmf', 'pmf'), 3),
      ('nbinom', ('logpmf', 'pmf'), 4),
      ('betabinom', ('logpmf', 'pmf'), 5),
      ('gumbel_l', ('logpdf', 'pdf', 'cdf', 'logcdf', 'sf', 'ppf'), 3),
      ('gumbel_r', ('logpdf', 'pdf', 'cdf', 'logcdf', 'sf', 'ppf'), 3),
  ]
  values = {'py': 0.3, 'weak': jnp.asarray(0.3), 'strong': jnp.asarray(0.3, f32),
            'pyint': 1, 'int': jnp.asarray(1, jnp.int32), 'weakint': jnp.asarray(1)}
  results = {}
  seconds = collections.Counter()

  def attempt(name, thunk):
    if only and not any(o in name for o in only):
      return
    start = time.perf_counter()
    try:
      results[name] = thunk()
    except Exception as e:  # the class is what is compared
      results[name] = f'error {type(e).__name__}'
    seconds[name.split('|')[1] + ('|jaxpr' if name.endswith('jaxpr') else '')] += time.perf_counter() - start

  for fname, f, combos, _ in funcs:
    for kinds in combos:
      a = tuple(scalars[k] for k in kinds)
      p = tuple(i for i, k in enumerate(kinds) if k in ('py', 'weak', 'strong'))
      if not p:
        continue
      for tname, t in transforms.items():
        attempt(f'{fname}|{tname}|{",".join(kinds)}', lambda: run(tname, lambda: t(f, a, p)))
      va = tuple(vectors[k] for k in kinds)
      for tname, t in batched.items():
        attempt(f'{fname}|{tname}|{",".join(kinds)}', lambda: run(tname, lambda: t(f, va, p, kinds)))
      for tname in jaxpr_of:
        if tname == 'vmap':
          fun = lambda *a: t_vmap(f, a, p, kinds)
          args = va
        else:
          fun = lambda *a: transforms[tname](f, a, p)
          args = a
        attempt(f'{fname}|{tname}|{",".join(kinds)}|jaxpr', lambda: jaxpr_record(fun, args))

  for dist, methods, nargs in stats:
    for method in methods:
      f = getattr(getattr(st, dist), method, None)
      if f is None:
        continue
      for kinds in [('py',) * nargs, ('weak',) * nargs, ('strong',) * nargs,
                    ('strong',) + ('py',) * (nargs - 1), ('py',) + ('strong',) * (nargs - 1),
                    ('weak',) + ('py',) * (nargs - 1), ('pyint',) + ('py',) * (nargs - 1),
                    ('int',) + ('weak',) * (nargs - 1), ('pyint',) + ('strong',) * (nargs - 1)]:
        a = tuple(values[k] for k in kinds)
        p = tuple(i for i, k in enumerate(kinds) if k in ('py', 'weak', 'strong'))
        base = f'stats.{dist}.{method}'
        attempt(f'{base}|plain|{",".join(kinds)}', lambda: record(f(*a)))
        attempt(f'{base}|jit|{",".join(kinds)}', lambda: record(jax.jit(f)(*a)))
        if p:
          attempt(f'{base}|grad|{",".join(kinds)}', lambda: record(t_grad(f, a, p)))
          attempt(f'{base}|jvp|{",".join(kinds)}', lambda: record(t_jvp(f, a, p)))
          va = tuple(vectors[k] if k in ('weak', 'strong') else values[k] for k in kinds)
          axes = tuple(0 if k in ('weak', 'strong') else None for k in kinds)
          attempt(f'{base}|vmap|{",".join(kinds)}', lambda: record(jax.vmap(f, in_axes=axes)(*va)))
  mv = st.multivariate_normal
  for kinds in [('weak', 'weak'), ('strong', 'strong'), ('weak', 'strong'), ('strong', 'weak')]:
    x, m = (jnp.stack([values[k], values[k]]) for k in kinds)
    attempt(f'stats.multivariate_normal.logpdf|plain|{",".join(kinds)}',
            lambda: record(mv.logpdf(x, m, jnp.eye(2))))
    attempt(f'stats.multivariate_normal.pdf|plain|{",".join(kinds)}',
            lambda: record(mv.pdf(x, m, jnp.eye(2))))
  attempt('stats.dirichlet.logpdf|plain|weak', lambda: record(
      st.dirichlet.logpdf(jnp.full(2, 0.5), jnp.full(2, 2.))))
  attempt('stats.dirichlet.logpdf|plain|strong', lambda: record(
      st.dirichlet.logpdf(jnp.asarray([.3, .7], f32), jnp.asarray([2., 3.], f32))))

  with open(out_path, 'w') as fh:
    json.dump(results, fh, indent=0, sort_keys=True)
  print(f'{len(results)} cases written to {out_path}')
  if profile:
    for name, sec in seconds.most_common():
      print(f'{sec:8.2f}s {name}')


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--out')
  parser.add_argument('--only', action='append', default=[])
  parser.add_argument('--compare', nargs=2, metavar=('REF', 'XJAX'))
  parser.add_argument('--profile', action='store_true', help='print the seconds each transformation took')
  parser.add_argument('--verbose', action='store_true', help='also show structural jaxpr differences')
  args = parser.parse_args()
  if args.compare:
    sys.exit(1 if _compare(*args.compare, args.verbose) else 0)
  _sweep(args.only, args.out, args.profile)


if __name__ == '__main__':
  main()
