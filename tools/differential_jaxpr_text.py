"""Compares the text of `jax.make_jaxpr(f)(x)` under xjax and the reference JAX.

Each case is the body of a one-argument function of `x`, a float32 (2, 3) array, written
against the public API (`jnp`, `lax`, `jax`). `record` traces every case under one library
and writes {case: jaxpr text} ("ERR <class>" where tracing raises) as JSON; `compare`
prints the cases whose texts differ, each with a unified diff, and their count.

    .venv/bin/python tools/differential_jaxpr_text.py record --lib xjax --out /tmp/x.json
    /tmp/ref/bin/python tools/differential_jaxpr_text.py record --lib jax --out /tmp/j.json
    python tools/differential_jaxpr_text.py compare /tmp/j.json /tmp/x.json
    python tools/differential_jaxpr_text.py both --ref-python /tmp/ref/bin/python   # all three
    python tools/differential_jaxpr_text.py both take var   # only the named cases

Not run by CI: it needs the reference JAX, which xjax's environment does not hold.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import json
import re
import subprocess
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CASES = {
  "var": "jnp.var(x)",
  "std": "jnp.std(x, axis=0)",
  "diag": "jnp.diag(x)",
  "take": "jnp.take(x, jnp.array([0, 1]), axis=1)",
  "interp": "jnp.interp(x, jnp.arange(3.), jnp.arange(3.))",
  "isin": "jnp.isin(x, jnp.array([1., 2.]))",
  "fft": "jnp.fft.fft(x)",
  "rfft": "jnp.fft.rfft(x)",
  "pad": "jnp.pad(x, 1)",
  "relu": "jax.nn.relu(x)",
  "slice_in_dim": "lax.slice_in_dim(x, 0, 1, axis=1)",
  "mean": "jnp.mean(x)",
  "softmax": "jax.nn.softmax(x)",
  "logsumexp": "jax.nn.logsumexp(x)",
  "gelu": "jax.nn.gelu(x)",
  "linspace": "jnp.linspace(0., 1., 5) + x[0, 0]",
  "cumsum": "jnp.cumsum(x, axis=0)",
  "argmax": "jnp.argmax(x, axis=1)",
  "einsum": "jnp.einsum('ij,kj->ik', x, x)",
  "norm": "jnp.linalg.norm(x)",
  "triu": "jnp.triu(x)",
  "tile": "jnp.tile(x, 2)",
  "roll": "jnp.roll(x, 1)",
  "sort": "jnp.sort(x)",
  "median": "jnp.median(x)",
  "flip": "jnp.flip(x)",
  "outer": "jnp.outer(x, x)",
  "allclose": "jnp.allclose(x, x)",
  "nan_to_num": "jnp.nan_to_num(x)",
  "round": "jnp.round(x, 2)",
  "polyval": "jnp.polyval(jnp.array([1., 2.]), x)",
  "cross": "jnp.cross(x, x)",
  "trace": "jnp.trace(x)",
  "ravel_multi": "x.ravel()",
  "split": "jnp.split(x, 3, axis=1)",
  "one_hot": "jax.nn.one_hot(jnp.array([0, 2]), 3)",
  "silu": "jax.nn.silu(x)",
  "log_softmax": "jax.nn.log_softmax(x)",
  "normalize": "jax.nn.standardize(x)",
  "dot_int": "jnp.dot(x, jnp.ones((3,), jnp.int32))",
  "matmul_mixed": "x @ jnp.ones((3, 2), jnp.float16)",
  "where1": "jnp.where(x > 1)",
  "clip_int": "jnp.clip(x, 1, 2)",
  "searchsorted": "jnp.searchsorted(jnp.arange(5.), x)",
  "histogram": "jnp.histogram(x, bins=3, range=(0, 5))[0]",
  "digitize": "jnp.digitize(x, jnp.array([1., 2.]))",
  "convolve": "jnp.convolve(x[0], x[1])",
  "kron": "jnp.kron(x, x)",
  "vander": "jnp.vander(x[0])",
  "average": "jnp.average(x, weights=x)",
  "cov": "jnp.cov(x)",
  "corrcoef": "jnp.corrcoef(x)",
  "unwrap": "jnp.unwrap(x)",
  "diff": "jnp.diff(x)",
  "meshgrid": "jnp.meshgrid(x[0], x[1])",
  "argsort": "jnp.argsort(x)",
  "percentile": "jnp.percentile(x, 50.)",
  "nanmean": "jnp.nanmean(x)",
  "logaddexp": "jnp.logaddexp(x, 1.)",
  "sigmoid": "jax.nn.sigmoid(x)",
  "softplus": "jax.nn.softplus(x)",
  "hypot": "jnp.hypot(x, x)",
  "arctan2": "jnp.arctan2(x, 1.)",
  "sinc": "jnp.sinc(x)",
  "i0": "jnp.i0(x)",
  "heaviside": "jnp.heaviside(x, 0.5)",
  "ldexp": "jnp.ldexp(x, 2)",
  "frexp": "jnp.frexp(x)",
  "modf": "jnp.modf(x)",
  "divmod": "jnp.divmod(x, 2.)",
  "floor_divide": "x // 2.",
  "power": "x ** 3",
  "power_f": "x ** 2.5",
  "mod": "x % 2.",
  "at_set": "x.at[0, 1].set(5.)",
  "at_add": "x.at[:, 1].add(5.)",
  "index_arr": "x[jnp.array([1, 0])]",
  "index_bool": "x[:, jnp.array([True, False, True])]",
  "index_neg": "x[-1]",
  "index_slice": "x[:, 1:]",
  "expand": "x[None, :, None]",
  "random_normal": "jax.random.normal(jax.random.key(0), (2,)) + x[0, :2]",
  "random_uniform": "jax.random.uniform(jax.random.PRNGKey(0), (2,)) + x[0, :2]",
  "random_split": "jax.random.split(jax.random.key(0))",
  "random_bernoulli": "jax.random.bernoulli(jax.random.key(1), 0.3, (3,))",
  "random_categorical": "jax.random.categorical(jax.random.key(1), x)",
  "random_randint": "jax.random.randint(jax.random.key(1), (3,), 0, 10)",
  # transformations and control flow, as JAX's tutorials print them
  "grad_sin": "jax.grad(lambda y: jnp.sum(jnp.sin(y)))(x)",
  "grad_tanh_mlp": "jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w.T)))(x)",
  "grad_logsumexp": "jax.grad(lambda y: jax.nn.logsumexp(y))(x)",
  "grad_softmax": "jax.grad(lambda y: jnp.sum(jax.nn.softmax(y) ** 2))(x)",
  "grad_mean_sq": "jax.grad(lambda y: jnp.mean((y - 1.) ** 2))(x)",
  "grad_where": "jax.grad(lambda y: jnp.sum(jnp.where(y > 1, y, 0.)))(x)",
  "grad_max": "jax.grad(lambda y: jnp.max(y))(x)",
  "grad_norm": "jax.grad(lambda y: jnp.linalg.norm(y))(x)",
  "value_and_grad": "jax.value_and_grad(lambda y: jnp.sum(y ** 3))(x)",
  "jvp_exp": "jax.jvp(jnp.exp, (x,), (x,))",
  "vjp_sin": "jax.vjp(jnp.sin, x)[1](x)",
  "vmap_dot": "jax.vmap(jnp.dot)(x, x)",
  "vmap_in_axes": "jax.vmap(lambda a, b: a * b, in_axes=(0, None))(x, x[0])",
  "vmap_grad": "jax.vmap(jax.grad(lambda y: jnp.sum(jnp.sin(y))))(x)",
  "jacfwd": "jax.jacfwd(jnp.sin)(x[0])",
  "jacrev": "jax.jacrev(jnp.sin)(x[0])",
  "hessian": "jax.hessian(lambda y: jnp.sum(y ** 3))(x[0])",
  "nested_jit": "jax.jit(lambda y: jnp.sin(y) * 2)(x)",
  "jit_static": "jax.jit(lambda y, n: y * n, static_argnums=1)(x, 3)",
  "cond": "lax.cond(x[0, 0] > 0, lambda y: y + 1, lambda y: y - 1, x)",
  "switch": "lax.switch(1, [jnp.sin, jnp.cos], x)",
  "while_loop": "lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2), (0, x))",
  "fori_loop": "lax.fori_loop(0, 3, lambda i, c: c + i, x)",
  "scan": "lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(3), x)",
  "scan_grad": "jax.grad(lambda y: lax.scan(lambda c, r: (c * r, None), 1., y.ravel())[0])(x)",
  "map": "lax.map(jnp.sum, x)",
  "checkpoint": "jax.grad(lambda y: jnp.sum(jax.checkpoint(jnp.sin)(y)))(x)",
  "custom_jvp": "jax.grad(lambda y: jnp.sum(jax.nn.relu(y)))(x)",
  "stop_gradient": "jax.grad(lambda y: jnp.sum(lax.stop_gradient(y) * y))(x)",
  "pure_callback": "jax.pure_callback(lambda a: a, jax.ShapeDtypeStruct((2, 3), jnp.float32), x)",
  "debug_print": "jax.debug.print('{}', x)",
  "cumsum_grad": "jax.grad(lambda y: jnp.sum(jnp.cumsum(y, axis=1) ** 2))(x)",
  "sort_grad": "jax.grad(lambda y: jnp.sum(jnp.sort(y, axis=1) * jnp.arange(3.)))(x)",
  "index_grad": "jax.grad(lambda y: y[1, 2] + y[0, 0])(x)",
  "at_set_grad": "jax.grad(lambda y: jnp.sum(y.at[0].set(2.) ** 2))(x)",
  "reshape_grad": "jax.grad(lambda y: jnp.sum(y.reshape(3, 2) @ y))(x)",
  "astype": "x.astype(jnp.int32) + 1",
  "weak_scalar": "x * 2 + 1.5",
  "int_pow": "x ** 2",
  "concat": "jnp.concatenate([x, x], axis=0)",
  "stack": "jnp.stack([x, x])",
  "transpose": "x.T @ x",
  "sum_keepdims": "jnp.sum(x, axis=1, keepdims=True)",
  "argmin": "jnp.argmin(x, axis=0)",
  "zeros_like": "jnp.zeros_like(x) + jnp.ones(3)",
  "eye": "jnp.eye(3) @ x.T",
  "arange_dyn": "jnp.arange(3) * x",
  "layer_norm": "(x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)",
  "dropout": "jnp.where(jax.random.bernoulli(jax.random.key(0), 0.5, x.shape), x / 0.5, 0)",
  # JAX documentation tutorials (Thinking in JAX, JIT, vmap, autodiff, control flow, pytrees,
  # state, custom derivatives, checkpointing, understanding jaxprs, custom interpreters)
  "doc_understand_func1": "jnp.sum(x + jnp.sin(x) * 3.)",
  "doc_jit_selu": "jax.jit(lambda y: 1.05 * jnp.where(y > 0, y, 1.67 * jnp.exp(y) - 1.67))(x)",
  "doc_jit_log2": "jax.jit(lambda y: jnp.log(y) / jnp.log(2))(x)",
  "doc_norm": "(x - x.mean(0)) / x.std(0)",
  "doc_lax_add_weak": "lax.add(x, 1.)",
  "doc_conv_nhwc": "lax.conv_general_dilated(x[None, :, :, None], jnp.ones((2, 2, 1, 4)), (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))",
  "doc_lax_dot_general": "lax.dot_general(x, x, (((1,), (1,)), ((), ())))",
  "doc_jit_static_argnames": "jax.jit(lambda y, neg: -y if neg else y, static_argnames='neg')(x, neg=True)",
  "doc_jit_static_loop": "jax.jit(lambda y, n: sum(y * i for i in range(n)), static_argnums=1)(x, 3)",
  "doc_jit_donate": "jax.jit(lambda y: y + 1, donate_argnums=0)(x)",
  "doc_jit_keep_unused": "jax.jit(lambda a, b: a, keep_unused=True)(x, x)",
  "doc_jit_inline": "jax.jit(jnp.cos, inline=True)(x) + 1",
  "doc_jit_pytree_in": "jax.jit(lambda p: p['w'] @ p['b'])({'w': x, 'b': x[0]})",
  "doc_jit_float_arg": "jax.jit(lambda a, b: a * b)(x, 2.)",
  "doc_jit_closed_const": "jax.jit(lambda y: y + jnp.arange(3.))(x)",
  "doc_jit_numpy_const": "jax.jit(lambda y: y * __import__('numpy').arange(3.))(x)",
  "doc_numpy_const": "x * __import__('numpy').ones((2, 3), 'float32')",
  "doc_named_call": "jax.named_call(jnp.sin, name='my_sin')(x)",
  # automatic vectorization
  "doc_vmap_manual_convolve": "jax.vmap(lambda a, w: jnp.array([jnp.dot(a[i - 1:i + 2], w) for i in range(1, len(a) - 1)]))(jnp.tile(x, 2), x)",
  "doc_vmap_convolve": "jax.vmap(jnp.convolve)(x, x)",
  "doc_vmap_none_first": "jax.vmap(lambda a, b: a @ b, in_axes=(None, 0))(x, x)",
  "doc_vmap_dict_axes": "jax.vmap(lambda p: p['a'] + p['b'], in_axes=({'a': 0, 'b': None},))({'a': x, 'b': x[0]})",
  "doc_vmap_psum": "jax.vmap(lambda r: r / lax.psum(r, 'i'), axis_name='i')(x)",
  "doc_vmap_cond": "jax.vmap(lambda r: lax.cond(r[0] > 1, jnp.sin, jnp.cos, r))(x)",
  "doc_vmap_while": "jax.vmap(lambda r: lax.while_loop(lambda c: c[0] < 10., lambda c: c * 2., r))(x + 1.)",
  "doc_vmap_scan": "jax.vmap(lambda r: lax.scan(lambda c, e: (c + e, c), 0., r))(x)",
  "doc_vmap_dynamic_slice": "jax.vmap(lambda r, i: lax.dynamic_slice(r, (i,), (2,)))(x, jnp.array([0, 1]))",
  "doc_vmap_index": "jax.vmap(lambda r, i: r[i])(x, jnp.array([0, 2]))",
  "doc_vmap_random": "jax.vmap(lambda k: jax.random.normal(k, (2,)))(jax.random.split(jax.random.key(0), 3))",
  "doc_vmap_per_example_grad": "jax.vmap(jax.grad(lambda w, r: jnp.sum((r @ w) ** 2)), in_axes=(None, 0))(x[0], x)",
  # automatic differentiation
  "doc_grad_tanh": "jax.grad(jnp.tanh)(x[0, 0])",
  "doc_grad3_tanh": "jax.grad(jax.grad(jax.grad(jnp.tanh)))(x[0, 0])",
  "doc_logreg_grad": "jax.grad(lambda W, b: -jnp.sum(jnp.log(jnp.where(jnp.array([True, False]), jax.nn.sigmoid(x @ W + b), 1 - jax.nn.sigmoid(x @ W + b)))), argnums=(0, 1))(x[0], x[1, 0])",
  "doc_grad_dict_params": "jax.grad(lambda p: jnp.sum(jnp.tanh(x @ p['W'] + p['b'])))({'W': x.T, 'b': x[0, :2]})",
  "doc_value_and_grad_aux": "jax.value_and_grad(lambda y: (jnp.sum(y ** 2), y * 2), has_aux=True)(x)",
  "doc_grad_argnums1": "jax.grad(lambda a, b: jnp.sum(a * jnp.sin(b)), argnums=1)(x, x)",
  "doc_linearize": "jax.linearize(jnp.sin, x)[1](x)",
  "doc_vjp_two_args": "jax.vjp(lambda a, b: a * b, x, x)[1](x)",
  "doc_jacobian_logreg": "jax.jacobian(lambda W: jax.nn.sigmoid(x @ W))(x[0])",
  "doc_hvp_fwd_rev": "jax.jvp(jax.grad(lambda y: jnp.sum(jnp.sin(y) ** 2)), (x,), (jnp.ones_like(x),))[1]",
  "doc_hvp_rev_rev": "jax.grad(lambda y: jnp.vdot(jax.grad(lambda z: jnp.sum(jnp.sin(z) ** 2))(y), jnp.ones_like(y)))(x)",
  "doc_jacfwd_jacrev": "jax.jacfwd(jax.jacrev(lambda y: jnp.sum(jnp.tanh(y) ** 2)))(x[0])",
  "doc_vmap_jvp_jmp": "jax.vmap(lambda v: jax.jvp(jnp.sin, (x[0],), (v,))[1])(jnp.eye(3))",
  "doc_vmap_vjp_mjp": "jax.vmap(jax.vjp(jnp.sin, x[0])[1])(jnp.eye(3))",
  "doc_stop_gradient_td": "jax.grad(lambda th: (1. + lax.stop_gradient(jnp.dot(th, x[1])) - jnp.dot(th, x[0])) ** 2)(x[0])",
  "doc_straight_through": "jax.grad(lambda y: jnp.sum(y + lax.stop_gradient(jnp.round(y) - y)))(x)",
  "doc_grad_complex_abs": "jax.grad(lambda z: jnp.abs(z) ** 2)(x[0, 0] + 1j)",
  "doc_grad_holomorphic": "jax.grad(lambda z: jnp.sum(jnp.sin(z)), holomorphic=True)(x.astype(jnp.complex64))",
  "doc_jacrev_dict": "jax.jacrev(lambda p: jnp.tanh(p['a'] * p['b']))({'a': x[0], 'b': x[1]})",
  # control flow
  "doc_fori_dynamic_bound": "lax.fori_loop(0, x[0, 1].astype(jnp.int32), lambda i, c: c * 2., x)",
  "doc_fori_unroll": "lax.fori_loop(0, 3, lambda i, c: c * 2., x, unroll=True)",
  "doc_cond_two_operands": "lax.cond(x[0, 0] > 0, lambda a, b: a + b, lambda a, b: a - b, x, x)",
  "doc_cond_no_operands": "lax.cond(x[0, 0] > 0, lambda: 1., lambda: 2.)",
  "doc_switch_traced": "lax.switch(x[0, 1].astype(jnp.int32), [lambda a: a + 1., lambda a: a - 2., lambda a: a + 3.], x)",
  "doc_bitwise_bools": "~((x > 1) & (x < 4)) | (x == 0)",
  "doc_scan_length": "lax.scan(lambda c, _: (c * 2, c), x[0], None, length=3)",
  "doc_scan_unroll": "lax.scan(lambda c, r: (c * r, c), jnp.ones(3), x, unroll=2)",
  "doc_associative_scan": "lax.associative_scan(jnp.add, x, axis=1)",
  "doc_grad_fori": "jax.grad(lambda y: jnp.sum(lax.fori_loop(0, 3, lambda i, c: jnp.sin(c), y)))(x)",
  "doc_grad_cond": "jax.grad(lambda y: lax.cond(y > 1., jnp.sin, jnp.cos, y))(x[0, 0])",
  "doc_jvp_while": "jax.jvp(lambda y: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1])), (0, y))[1], (x,), (x,))",
  "doc_understand_fori_index": "lax.fori_loop(0, 3, lambda i, c: (c[0] + x[0, i], c[1] + 1.), (0., 0.))",
  "doc_understand_scan_extra": "lax.scan(lambda c, ae: (c + ae[0] * ae[1] + x[0, 0], c), 0., (x[0], jnp.ones(3)))",
  "doc_understand_cond_tuple": "lax.cond(x[0, 0] > 0, lambda t: jnp.add(t[0], t[1]), lambda t: jnp.subtract(t[0], t[1]), (x, 1.))",
  # pytrees and state
  "doc_tree_map": "jax.tree_util.tree_map(lambda a: a * 2, {'a': x, 'b': [x[0], x[1]]})",
  "doc_namedtuple_jit": "jax.jit(lambda p: p.a * p.b)(__import__('collections').namedtuple('P', 'a b')(x, x))",
  "doc_ravel_pytree": "__import__(jax.__name__ + '.flatten_util', fromlist=['_']).ravel_pytree({'a': x, 'b': x[0]})[0]",
  "doc_mlp_forward": "(lambda params, inp: (lambda h: h @ params[1]['w'] + params[1]['b'])(jax.nn.relu(inp @ params[0]['w'] + params[0]['b'])))([{'w': x.T, 'b': x[:, 0]}, {'w': x, 'b': x[0]}], x)",
  "doc_mlp_sgd": "(lambda P: jax.tree.map(lambda p, g: p - 0.01 * g, P, jax.grad(lambda q: jnp.mean((jax.nn.relu(x @ q[0]['w'] + q[0]['b']) @ q[1]['w'] + q[1]['b'] - x) ** 2))(P)))([{'w': x.T, 'b': x[:, 0]}, {'w': x, 'b': x[0]}])",
  "doc_linreg_update": "(lambda P: jax.tree.map(lambda p, g: p - 0.005 * g, P, jax.grad(lambda p: jnp.mean((p['weight'] * x[0] + p['bias'] - x[1]) ** 2))(P)))({'weight': x[0, 0], 'bias': x[0, 1]})",
  "doc_adam_step": "(lambda P, Z: (lambda g: jax.tree.map(lambda p_, m_, v_: p_ - 1e-3 * (m_ / (1 - 0.9)) / (jnp.sqrt(v_ / (1 - 0.999)) + 1e-8), P, jax.tree.map(lambda m_, g_: 0.9 * m_ + 0.1 * g_, Z, g), jax.tree.map(lambda v_, g_: 0.999 * v_ + 0.001 * g_ ** 2, Z, g)))(jax.grad(lambda p: jnp.mean((x @ p['w'].T + p['b'][:2]) ** 2))(P)))({'w': x, 'b': x[0]}, {'w': jnp.zeros_like(x), 'b': jnp.zeros_like(x[0])})",
  # random
  "doc_random_fold_in": "jax.random.normal(jax.random.fold_in(jax.random.key(0), 1), (3,)) + x",
  "doc_random_choice": "jax.random.choice(jax.random.key(0), 5, (2,))",
  "doc_random_traced_seed": "jax.random.normal(jax.random.key(x[0, 1].astype(jnp.int32)), (3,))",
  # custom derivative rules
  "doc_custom_jvp_log1pexp": "(f := jax.custom_jvp(lambda y: jnp.log(1. + jnp.exp(y))), f.defjvp(lambda p, t: (f(p[0]), (1. - 1. / (1. + jnp.exp(p[0]))) * t[0])), jax.grad(lambda y: jnp.sum(f(y)))(x))[-1]",
  "doc_custom_jvp_call": "(f := jax.custom_jvp(lambda y: jnp.log(1. + jnp.exp(y))), f.defjvp(lambda p, t: (f(p[0]), (1. - 1. / (1. + jnp.exp(p[0]))) * t[0])), f(x))[-1]",
  "doc_custom_jvp_defjvps": "(f := jax.custom_jvp(lambda y: y / (1 + jnp.sqrt(y))), f.defjvps(lambda t, ans, y: ((jnp.sqrt(y) + 2) / (2 * (jnp.sqrt(y) + 1) ** 2)) * t), jax.grad(lambda y: jnp.sum(f(y)))(x))[-1]",
  "doc_custom_jvp_vmap": "(f := jax.custom_jvp(lambda y: jnp.sin(y)), f.defjvp(lambda p, t: (jnp.sin(p[0]), jnp.cos(p[0]) * t[0])), jax.vmap(f)(x))[-1]",
  "doc_custom_jvp_nondiff": "(f := jax.custom_jvp(lambda fn, y: fn(y), nondiff_argnums=(0,)), f.defjvp(lambda fn, p, t: (fn(p[0]), 2. * t[0])), jax.grad(lambda y: jnp.sum(f(jnp.sin, y)))(x))[-1]",
  "doc_custom_vjp_sin": "(f := jax.custom_vjp(lambda y: jnp.sin(y)), f.defvjp(lambda y: (jnp.sin(y), jnp.cos(y)), lambda res, g: (res * g,)), jax.grad(lambda y: jnp.sum(f(y)))(x))[-1]",
  "doc_custom_vjp_call": "(f := jax.custom_vjp(lambda y: jnp.sin(y)), f.defvjp(lambda y: (jnp.sin(y), jnp.cos(y)), lambda res, g: (res * g,)), f(x))[-1]",
  "doc_custom_vjp_clip_grad": "(f := jax.custom_vjp(lambda lo, hi, y: y), f.defvjp(lambda lo, hi, y: (y, (lo, hi)), lambda res, g: (None, None, jnp.clip(g, res[0], res[1]))), jax.grad(lambda y: jnp.sum(f(-1., 1., jnp.sin(y))))(x))[-1]",
  "doc_custom_vjp_nondiff": "(f := jax.custom_vjp(lambda fn, y: fn(y), nondiff_argnums=(0,)), f.defvjp(lambda fn, y: (fn(y), y), lambda fn, res, g: (g * res,)), jax.grad(lambda y: jnp.sum(f(jnp.sin, y)))(x))[-1]",
  "doc_custom_vjp_vjp": "(f := jax.custom_vjp(lambda a, b: a * b), f.defvjp(lambda a, b: (a * b, (a, b)), lambda res, g: (g * res[1], g * res[0])), jax.vjp(f, x, x)[1](x))[-1]",
  "doc_custom_vjp_jvp_err": "(f := jax.custom_vjp(lambda y: jnp.sin(y)), f.defvjp(lambda y: (jnp.sin(y), jnp.cos(y)), lambda res, g: (res * g,)), jax.jvp(f, (x,), (x,)))[-1]",
  # gradient checkpointing
  "doc_checkpoint_plain": "jax.checkpoint(lambda y: jnp.sin(jnp.sin(y)))(x)",
  "doc_checkpoint_dots_policy": "jax.grad(lambda W: jnp.sum(jax.checkpoint(lambda W1, v: jnp.sin(jnp.dot(W1.T, jnp.sin(jnp.dot(W1, v)))), policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)(W, x[0])))(x)",
  "doc_checkpoint_nothing_saveable": "jax.grad(lambda y: jnp.sum(jax.checkpoint(lambda z: jnp.sin(jnp.sin(z)), policy=jax.checkpoint_policies.nothing_saveable)(y)))(x)",
  "doc_checkpoint_everything_saveable": "jax.grad(lambda y: jnp.sum(jax.checkpoint(lambda z: jnp.sin(jnp.sin(z)), policy=jax.checkpoint_policies.everything_saveable)(y)))(x)",
  "doc_checkpoint_name": "__import__(jax.__name__ + '.ad_checkpoint', fromlist=['_']).checkpoint_name(jnp.sin(x), 'a')",
  "doc_checkpoint_save_names": "jax.grad(lambda y: jnp.sum(jax.checkpoint(lambda z: jnp.sin(__import__(jax.__name__ + '.ad_checkpoint', fromlist=['_']).checkpoint_name(jnp.sin(z), 'a')), policy=jax.checkpoint_policies.save_only_these_names('a'))(y)))(x)",
  "doc_checkpoint_linearize": "jax.linearize(jax.checkpoint(lambda y: jnp.sin(jnp.sin(y))), x)[1](x)",
  "doc_checkpoint_scan": "jax.grad(lambda y: lax.scan(jax.checkpoint(lambda c, r: (jnp.sin(c * r), None)), 1., y.ravel())[0])(x)",
  # jnp functions commonly used
  "doc_einsum_outer_batch": "jnp.einsum('bi,bj->bij', x, x)",
  "doc_mean_where": "jnp.mean(x, where=x > 1)",
  "doc_take_traced": "jnp.take(x, x[0].astype(jnp.int32), axis=1)",
  "doc_index_traced_scalar": "x[x[0, 1].astype(jnp.int32)]",
  "doc_index_traced_col": "x[:, x[0, 1].astype(int)]",
  "doc_take_along_axis": "jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)",
  "doc_index_two_arrays": "x[jnp.array([0, 1]), jnp.array([2, 0])]",
  "doc_dynamic_slice": "lax.dynamic_slice(x, (0, x[0, 1].astype(jnp.int32)), (2, 2))",
  "doc_dynamic_update_slice": "lax.dynamic_update_slice(x, x[:1], (1, 0))",
  "doc_dynamic_index_in_dim": "lax.dynamic_index_in_dim(x, x[0, 1].astype(jnp.int32), axis=1, keepdims=False)",
  "doc_at_min": "x.at[:, 0].min(1.)",
  "doc_at_add_dup": "x.at[jnp.array([0, 0])].add(1.)",
  "doc_at_set_traced": "x.at[x[0, 1].astype(int)].set(0.)",
  "doc_at_get_fill": "x.at[5].get(mode='fill', fill_value=0.)",
  "doc_one_hot_traced": "jax.nn.one_hot(x[0].astype(jnp.int32), 4)",
  "doc_top_k": "lax.top_k(x, 2)",
  "doc_unique_size": "jnp.unique(x, size=3)",
  # nn layers by hand
  "doc_cross_entropy": "-jnp.mean(jnp.sum(jax.nn.log_softmax(x) * jax.nn.one_hot(jnp.array([0, 2]), 3), axis=-1))",
  "doc_cross_entropy_grad": "jax.grad(lambda z: -jnp.mean(jnp.sum(jax.nn.log_softmax(z) * jax.nn.one_hot(jnp.array([0, 2]), 3), axis=-1)))(x)",
  "doc_ce_int_labels_grad": "jax.grad(lambda z: -jnp.take_along_axis(jax.nn.log_softmax(z), jnp.array([[0], [2]]), axis=-1).mean())(x)",
  "doc_maxpool": "lax.reduce_window(x, -jnp.inf, lax.max, (1, 2), (1, 1), 'VALID')",
  "doc_batchnorm": "(x - x.mean(0)) * lax.rsqrt(x.var(0) + 1e-5)",
  "doc_attention": "jax.nn.softmax(x @ x.T / jnp.sqrt(3.)) @ x",
  "doc_dot_product_attention": "jax.nn.dot_product_attention(x[None, :, None], x[None, :, None], x[None, :, None])",
  "doc_gelu_exact": "jax.nn.gelu(x, approximate=False)",
  "doc_gelu_grad": "jax.grad(lambda y: jnp.sum(jax.nn.gelu(y)))(x)",
  # weak types and dtypes
  "doc_weak_f16": "x.astype(jnp.float16) + 1.",
  "doc_weak_int_float": "x.astype(jnp.int32) * 2.5",
  # callbacks and debugging
  "doc_debug_print_kw": "jax.debug.print('x={x}', x=x)",
  "doc_debug_callback": "jax.debug.callback(lambda a: None, x)",
  "doc_debug_print_grad": "jax.grad(lambda y: (jax.debug.print('{}', y), jnp.sum(y))[1])(x)",
  "doc_pure_callback_vmapped": "jax.vmap(lambda r: jax.pure_callback(lambda a: a, jax.ShapeDtypeStruct(r.shape, r.dtype), r, vmap_method='sequential'))(x)",
  "doc_pmap_psum": "jax.pmap(lambda y: lax.psum(y, 'rows'), axis_name='rows')(x[:1])",
}


def record(lib: str, names: list[str]) -> dict[str, str]:
  warnings.simplefilter("ignore")
  jax = importlib.import_module(lib)
  ns = {"jax": jax, "jnp": importlib.import_module(f"{lib}.numpy"),
        "lax": importlib.import_module(f"{lib}.lax")}
  x = ns["jnp"].arange(6.0).reshape(2, 3)
  out = {}
  for name in names or CASES:
    f = eval(f"lambda x: {CASES[name]}", ns)  # noqa: S307 - the cases above
    try:
      out[name] = re.sub(r"0x[0-9a-f]+", "0xADDRESS", str(jax.make_jaxpr(f)(x)))
    except Exception as e:  # a case the library refuses to trace
      out[name] = f"ERR {type(e).__name__}"
  return out


def compare(ref: dict, ours: dict) -> int:
  differ = [name for name in ref if ref[name] != ours.get(name)]
  for name in differ:
    print(f"===== {name}: {CASES.get(name, '')}")
    print("\n".join(difflib.unified_diff(ref[name].splitlines(),
                                         ours.get(name, "missing").splitlines(),
                                         "jax", "xjax", lineterm="", n=1)))
  print(f"{len(differ)} of {len(ref)} jaxpr texts differ: {' '.join(differ)}")
  return len(differ)


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  sub = parser.add_subparsers(dest="mode", required=True)
  r = sub.add_parser("record")
  r.add_argument("--lib", choices=["jax", "xjax"], required=True)
  r.add_argument("--out", required=True)
  r.add_argument("names", nargs="*")
  cmp = sub.add_parser("compare")
  cmp.add_argument("ref")
  cmp.add_argument("ours")
  both = sub.add_parser("both")
  both.add_argument("--ref-python", default="/tmp/ref/bin/python")
  both.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"))
  both.add_argument("names", nargs="*")
  args = parser.parse_args()
  if args.mode == "record":
    Path(args.out).write_text(json.dumps(record(args.lib, args.names), indent=1))
  elif args.mode == "compare":
    compare(json.loads(Path(args.ref).read_text()), json.loads(Path(args.ours).read_text()))
  else:
    files = {}
    for lib, python in [("jax", args.ref_python), ("xjax", args.python)]:
      files[lib] = Path(f"/tmp/differential_jaxpr_text_{lib}.json")
      subprocess.run([python, __file__, "record", "--lib", lib, "--out", str(files[lib]),
                      *args.names], check=True)
    compare(json.loads(files["jax"].read_text()), json.loads(files["xjax"].read_text()))


if __name__ == "__main__":
  main()
