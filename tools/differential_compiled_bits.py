"""Compares, bit for bit, the float32 results of realistic jitted programs (MLP and Adam
steps, attention, layer norm, convolutions, scans, mixed precision ...) under xjax and the
reference JAX: XLA rounds the same jaxpr differently when the StableHLO around it differs
(a reshape before a broadcast, one broadcast shared by several uses), so this catches
lowering differences that value comparisons within ulps do not.

    /tmp/ref/bin/python tools/differential_compiled_bits.py jax /tmp/r.json
    .venv/bin/python tools/differential_compiled_bits.py xjax /tmp/x.json
    python tools/differential_compiled_bits.py compare /tmp/r.json /tmp/x.json

Not run by CI: it needs the reference JAX.
"""
import sys, json, numpy as np
if sys.argv[1] == "compare":
  ref, got = (json.load(open(p)) for p in sys.argv[2:4])
  for name in ref:
    if ref[name] != got.get(name):
      if isinstance(ref[name], str) or isinstance(got.get(name), str):
        print("DIFF", name, str(ref[name])[:80], str(got.get(name))[:80])
        continue
      n = sum(sum(u != v for u, v in zip(a, b)) for a, b in zip(ref[name], got[name]))
      print("DIFF", name, n, "of", sum(len(a) for a in ref[name]), "values")
  print(len(ref), "programs compared")
  sys.exit(0)
if sys.argv[1] == "xjax":
  import xjax as jax, xjax.numpy as jnp
  from xjax import lax
else:
  import jax, jax.numpy as jnp
  from jax import lax
rng = np.random.default_rng(0)
def r(*s, dt=np.float32): return rng.standard_normal(s).astype(dt)
W1, b1, W2, b2 = r(16, 32), r(32), r(32, 4), r(4)
X, Y = r(64, 16), rng.integers(0, 4, 64)
def mlp(p, x):
  W1, b1, W2, b2 = p
  h = jax.nn.relu(x @ W1 + b1)
  return h @ W2 + b2
def loss(p, x, y):
  logits = mlp(p, x)
  return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 4), axis=-1))
P = (W1, b1, W2, b2)
progs = {}
progs['mlp_fwd'] = lambda: jax.jit(mlp)(P, X)
progs['mlp_loss'] = lambda: jax.jit(loss)(P, X, Y)
progs['mlp_grad'] = lambda: jax.jit(jax.grad(loss))(P, X, Y)
def sgd(p, x, y):
  g = jax.grad(loss)(p, x, y)
  return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)
def train(p):
  for _ in range(5):
    p = jax.jit(sgd)(p, X, Y)
  return p
progs['sgd5'] = lambda: train(P)
def adam_step(p, m, v, t, x, y):
  g = jax.grad(loss)(p, x, y)
  m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
  v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
  mh = jax.tree_util.tree_map(lambda m: m / (1 - 0.9 ** t), m)
  vh = jax.tree_util.tree_map(lambda v: v / (1 - 0.999 ** t), v)
  p = jax.tree_util.tree_map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), p, mh, vh)
  return p, m, v
def adam(p):
  m = jax.tree_util.tree_map(jnp.zeros_like, p); v = m
  for t in range(1, 4):
    p, m, v = jax.jit(adam_step)(p, m, v, t, X, Y)
  return p
progs['adam3'] = lambda: adam(P)
Z = r(8, 10, 32)
def layernorm(x):
  mu = x.mean(-1, keepdims=True); var = x.var(-1, keepdims=True)
  return (x - mu) / jnp.sqrt(var + 1e-5)
progs['layernorm'] = lambda: jax.jit(layernorm)(Z)
progs['layernorm_grad'] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(layernorm(z) ** 2)))(Z)
Q, K, V = r(2, 4, 10, 8), r(2, 4, 12, 8), r(2, 4, 12, 8)
def attn(q, k, v):
  s = jnp.einsum('bhqd,bhkd->bhqk', q, k) / jnp.sqrt(8.)
  return jnp.einsum('bhqk,bhkd->bhqd', jax.nn.softmax(s, axis=-1), v)
progs['attention'] = lambda: jax.jit(attn)(Q, K, V)
progs['attention_grad'] = lambda: jax.jit(jax.grad(lambda q: jnp.sum(attn(q, K, V) ** 2)))(Q)
progs['dpa'] = lambda: jax.jit(jax.nn.dot_product_attention)(Q.transpose(0, 2, 1, 3), K.transpose(0, 2, 1, 3), V.transpose(0, 2, 1, 3))
IMG, KER = r(2, 3, 16, 16), r(8, 3, 3, 3)
def conv(img, ker):
  y = lax.conv_general_dilated(img, ker, (1, 1), 'SAME')
  return jnp.mean(jax.nn.gelu(y))
progs['conv'] = lambda: jax.jit(conv)(IMG, KER)
progs['conv_grad'] = lambda: jax.jit(jax.grad(conv, argnums=(0, 1)))(IMG, KER)
progs['logsumexp'] = lambda: jax.jit(lambda z: jax.nn.logsumexp(z, axis=-1))(Z)
progs['softmax_grad'] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(jax.nn.softmax(z) * Z)))(Z)
progs['gelu_grad'] = lambda: jax.jit(jax.vmap(jax.grad(lambda a: jax.nn.gelu(a))))(Z.ravel())
progs['silu_tanh'] = lambda: jax.jit(lambda z: jnp.tanh(jax.nn.silu(z)) * jax.nn.sigmoid(z))(Z)
progs['norm'] = lambda: jax.jit(lambda z: jnp.linalg.norm(z, axis=-1))(Z)
progs['scan_rnn'] = lambda: jax.jit(lambda w, xs: lax.scan(lambda h, x: (jnp.tanh(h @ w + x), h.sum()), jnp.zeros(32), xs))(r(32, 32) * 0.1, r(20, 32))
progs['cumsum_var'] = lambda: jax.jit(lambda z: jnp.cumsum(z, axis=1).var(axis=0))(Z)
progs['std_ddof'] = lambda: jax.jit(lambda z: jnp.std(z, axis=(0, 1), ddof=1))(Z)
progs['mse_grad'] = lambda: jax.jit(jax.grad(lambda w: jnp.mean((X @ w - 1.) ** 2)))(r(16))
progs['logistic_reg'] = lambda: jax.jit(jax.grad(lambda w: jnp.mean(jnp.logaddexp(0., -(X @ w)))))(r(16))
progs['hessian'] = lambda: jax.jit(jax.hessian(lambda w: jnp.sum(jnp.logaddexp(0., X[:, :4] @ w))))(r(4))
progs['cross_entropy'] = lambda: jax.jit(lambda l: -jnp.sum(jax.nn.log_softmax(l) * jax.nn.one_hot(Y, 4)) / 64)(r(64, 4))
progs['bf16_mlp'] = lambda: jax.jit(mlp)(jax.tree_util.tree_map(lambda a: a.astype(jnp.bfloat16), P), X.astype(jnp.bfloat16)).astype(jnp.float32)
progs['f16_sum'] = lambda: jax.jit(lambda z: jnp.sum(z.astype(jnp.float16), axis=-1).astype(jnp.float32))(Z)
progs['matmul_chain'] = lambda: jax.jit(lambda a: a @ a @ a @ a)(r(16, 16))
progs['poly'] = lambda: jax.jit(lambda z: jnp.polyval(jnp.array([1., -2., 0.5, 3.]), z))(Z)
progs['erf_exp'] = lambda: jax.jit(lambda z: jax.scipy.special.erf(z) * jnp.exp(-z ** 2))(Z)
progs['where_mix'] = lambda: jax.jit(lambda z: jnp.where(z > 0, jnp.log1p(z), jnp.expm1(z)))(Z)
progs['vmap_mlp'] = lambda: jax.jit(jax.vmap(lambda x: mlp(P, x)))(X)
progs['per_ex_grad'] = lambda: jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))(P, X[:8, None], Y[:8, None])
progs['normalize'] = lambda: jax.jit(lambda z: z / jnp.linalg.norm(z, axis=-1, keepdims=True))(Z)
progs['cosine'] = lambda: jax.jit(lambda a, b: jnp.sum(a * b, -1) / (jnp.linalg.norm(a, axis=-1) * jnp.linalg.norm(b, axis=-1)))(X, X[::-1])
progs['mean_center'] = lambda: jax.jit(lambda z: (z - z.mean(0)) / z.std(0))(X)
progs['batchnorm'] = lambda: jax.jit(lambda z, g, b: g * (z - z.mean(0)) * lax.rsqrt(z.var(0) + 1e-5) + b)(X, r(16), r(16))
progs['rmsnorm'] = lambda: jax.jit(lambda z: z * lax.rsqrt(jnp.mean(z * z, -1, keepdims=True) + 1e-6))(Z)
progs['triu_mask'] = lambda: jax.jit(lambda s: jax.nn.softmax(jnp.where(jnp.tril(jnp.ones((10, 10), bool)), s, -1e9)))(r(10, 10))
progs['cumprod'] = lambda: jax.jit(lambda z: jnp.cumprod(1 + 0.01 * z, axis=-1))(Z)
progs['sort_median'] = lambda: jax.jit(lambda z: jnp.median(z, axis=-1))(Z)
A = r(6, 6); SPD = A @ A.T + 6 * np.eye(6, dtype=np.float32); B = r(6, 3)
progs['cholesky_solve'] = lambda: jax.jit(lambda a, b: jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(a), b))(SPD, B)
progs['solve'] = lambda: jax.jit(jnp.linalg.solve)(A, B)
progs['solve_grad'] = lambda: jax.jit(jax.grad(lambda a: jnp.sum(jnp.linalg.solve(a, B))))(A)
progs['inv'] = lambda: jax.jit(jnp.linalg.inv)(A)
progs['slogdet'] = lambda: jax.jit(lambda a: jnp.linalg.slogdet(a)[1])(A)
progs['eigh'] = lambda: jax.jit(lambda a: jnp.linalg.eigh(a)[0])(SPD)
progs['svdvals'] = lambda: jax.jit(lambda a: jnp.linalg.svd(a, compute_uv=False))(A)
progs['qr_r'] = lambda: jax.jit(lambda a: jnp.abs(jnp.linalg.qr(a)[1]))(A)
progs['expm'] = lambda: jax.jit(jax.scipy.linalg.expm)(A * 0.1)
progs['fft_abs'] = lambda: jax.jit(lambda z: jnp.abs(jnp.fft.rfft(z, axis=-1)))(Z)
progs['lgamma_digamma'] = lambda: jax.jit(lambda z: jax.scipy.special.gammaln(jnp.abs(z) + 0.1) + jax.scipy.special.digamma(jnp.abs(z) + 0.1))(Z)
progs['erfinv'] = lambda: jax.jit(lambda z: jax.scipy.special.erfinv(jnp.tanh(z) * 0.99))(Z)
progs['logsumexp_grad'] = lambda: jax.jit(jax.grad(lambda z: jax.nn.logsumexp(z)))(Z)
progs['maxpool'] = lambda: jax.jit(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), 'VALID'))(IMG)
progs['avgpool_grad'] = lambda: jax.jit(jax.grad(lambda x: jnp.sum(lax.reduce_window(x, 0., lax.add, (1, 1, 3, 3), (1, 1, 1, 1), 'SAME') ** 2)))(IMG)
progs['maxpool_grad'] = lambda: jax.jit(jax.grad(lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), 'VALID') ** 2)))(IMG)
progs['conv_transpose'] = lambda: jax.jit(lambda x, k: lax.conv_transpose(x, k, (2, 2), 'SAME', dimension_numbers=('NCHW', 'OIHW', 'NCHW')))(IMG, r(3, 3, 3, 3))
progs['conv_stride_dil'] = lambda: jax.jit(lambda x, k: lax.conv_general_dilated(x, k, (2, 2), 'SAME', rhs_dilation=(2, 2)))(IMG, KER)
progs['gather_grad'] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(z[jnp.array([0, 2, 2, 5]), 1:4] ** 2)))(X)
progs['scatter_add'] = lambda: jax.jit(lambda z: jnp.zeros((5, 16)).at[jnp.array([0, 1, 1, 4, 0])].add(z[:5]))(X)
progs['segment_sum'] = lambda: jax.jit(lambda z: jax.ops.segment_sum(z, Y, 4))(X)
progs['take_along'] = lambda: jax.jit(lambda z: jnp.take_along_axis(z, jnp.argsort(z, axis=-1), axis=-1))(Z)
progs['topk'] = lambda: jax.jit(lambda z: lax.top_k(z, 3)[0])(Z)
progs['cumsum_grad'] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(jnp.cumsum(z, axis=-1) ** 2)))(Z)
progs['cummax'] = lambda: jax.jit(lambda z: lax.cummax(z, axis=2))(Z)
progs['while'] = lambda: jax.jit(lambda z: lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, jnp.sin(c[1]) * 1.1), (0, z))[1])(Z)
progs['fori_grad'] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(lax.fori_loop(0, 4, lambda i, c: jnp.tanh(c * 1.5), z))))(Z)
progs['cond_grad'] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(lax.cond(z.sum() > 0, jnp.sin, jnp.cos, z))))(Z)
progs['remat_grad'] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(jax.checkpoint(lambda a: jnp.sin(jnp.tanh(a) * a))(z))))(Z)
progs['hypot_atan2'] = lambda: jax.jit(lambda a, b: jnp.hypot(a, b) + jnp.arctan2(a, b))(X, X[::-1])
progs['pow_frac'] = lambda: jax.jit(lambda z: jnp.abs(z) ** 1.7 + z ** 3)(Z)
progs['round_clip'] = lambda: jax.jit(lambda z: jnp.clip(jnp.round(z * 3.3, 2), -1.5, 1.5))(Z)
progs['int_ops'] = lambda: jax.jit(lambda z: (jnp.floor_divide((z * 10).astype(jnp.int32), 3) % 7).astype(jnp.float32))(Z)
progs['complex_mul'] = lambda: jax.jit(lambda a, b: jnp.abs(jnp.exp(1j * a) * (b + 2j)) )(X, X[::-1])
progs['f16_mlp'] = lambda: jax.jit(mlp)(jax.tree_util.tree_map(lambda a: a.astype(jnp.float16), P), X.astype(jnp.float16)).astype(jnp.float32)
progs['bf16_grad'] = lambda: jax.tree_util.tree_map(lambda a: a.astype(jnp.float32), jax.jit(jax.grad(lambda p: jnp.sum(mlp(p, X.astype(jnp.bfloat16)).astype(jnp.float32) ** 2)))(jax.tree_util.tree_map(lambda a: a.astype(jnp.bfloat16), P)))
progs['einsum3'] = lambda: jax.jit(lambda a, b, c: jnp.einsum('ij,jk,kl->il', a, b, c))(r(5, 7), r(7, 3), r(3, 9))
progs['tensordot'] = lambda: jax.jit(lambda a, b: jnp.tensordot(a, b, axes=([1, 2], [0, 1])))(Z, r(10, 32, 5))
progs['outer_kron'] = lambda: jax.jit(lambda a, b: jnp.kron(a, b))(r(3, 4), r(2, 5))
progs['var_mixed'] = lambda: jax.jit(lambda z: jnp.var(z.astype(jnp.float16), axis=0).astype(jnp.float32))(X)
progs['softplus_grad'] = lambda: jax.jit(jax.vmap(jax.grad(jax.nn.softplus)))(Z.ravel())
progs['log_sigmoid'] = lambda: jax.jit(jax.nn.log_sigmoid)(Z * 10)
progs['elu_selu'] = lambda: jax.jit(lambda z: jax.nn.elu(z) + jax.nn.selu(z) + jax.nn.celu(z))(Z)
progs['glu'] = lambda: jax.jit(lambda z: jax.nn.glu(z))(Z)
progs['standardize'] = lambda: jax.jit(lambda z: jax.nn.standardize(z, axis=-1))(Z)
progs['norm_ord'] = lambda: jax.jit(lambda a: jnp.stack([jnp.linalg.norm(a, 1), jnp.linalg.norm(a, 'fro'), jnp.linalg.norm(a, jnp.inf)]))(A)
progs['interp'] = lambda: jax.jit(lambda z: jnp.interp(z, jnp.linspace(-2, 2, 9), jnp.sin(jnp.linspace(-2, 2, 9))))(Z)
progs['histogram'] = lambda: jax.jit(lambda z: jnp.histogram(z, bins=9, range=(-3, 3))[0].astype(jnp.float32))(Z)
progs['polyfit'] = lambda: jax.jit(lambda y: jnp.polyfit(jnp.linspace(0, 1, 32), y, 3))(Z[0, 0])
progs['trapezoid'] = lambda: jax.jit(lambda z: jnp.trapezoid(z, dx=0.1, axis=-1))(Z)
progs['logaddexp_grad'] = lambda: jax.jit(jax.grad(lambda a: jnp.sum(jnp.logaddexp(a, a[::-1]))))(X)
progs['xlogy_entropy'] = lambda: jax.jit(lambda p: -jnp.sum(jax.scipy.special.xlogy(p, p), -1))(jax.nn.softmax(Z))
progs['kl_div'] = lambda: jax.jit(lambda p, q: jnp.sum(jax.scipy.special.rel_entr(p, q)))(jax.nn.softmax(Z), jax.nn.softmax(Z[::-1]))
progs['norm_logpdf'] = lambda: jax.jit(lambda z: jax.scipy.stats.norm.logpdf(z, 0.5, 2.0))(Z)
progs['mvn_logpdf'] = lambda: jax.jit(lambda z: jax.scipy.stats.multivariate_normal.logpdf(z, jnp.zeros(6), SPD))(r(10, 6))
U = jnp.abs(Z) + 0.1
progs['int_pows'] = lambda: jax.jit(lambda z: jnp.stack([z ** 3, z ** 5, z ** -2, z ** 7, lax.integer_pow(z, 12)]))(U)
progs['unary_mix'] = lambda: jax.jit(lambda z: jnp.stack([lax.rsqrt(z), jnp.tan(z), jnp.cbrt(z), jnp.exp2(z), jnp.log2(z), jnp.log10(z), jnp.arcsinh(z), jnp.arccosh(z + 1), jnp.arctanh(z / 3)]))(U)
progs['special_mix'] = lambda: jax.jit(lambda z: jnp.stack([jax.scipy.special.erfc(z), jax.scipy.special.gammaln(z), jax.scipy.special.digamma(z), jax.scipy.special.gammainc(2., z), jax.scipy.special.i0e(z), jax.scipy.special.i1(z), jax.scipy.special.ndtri(z / 3), jax.scipy.special.log_ndtr(z - 2)]))(U)
progs['logistic_softplus'] = lambda: jax.jit(lambda z: jnp.stack([jax.nn.sigmoid(z), jax.nn.softplus(z), jax.nn.log_sigmoid(z), jax.nn.silu(z), jax.nn.mish(z), jax.nn.gelu(z, approximate=False)]))(Z)
progs['int_pow_grad'] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(z ** 3 + z ** -2)))(U)
progs['mixed_dtype_arith'] = lambda: jax.jit(lambda z: (z.astype(jnp.float16) * 3.3 + jnp.float16(1)).astype(jnp.float32) + (z.astype(jnp.bfloat16) / 7).astype(jnp.float32))(Z)
progs['random_normal_math'] = lambda: jax.jit(lambda k: jnp.tanh(jax.random.normal(k, (64,)) * 2) ** 2)(jax.random.key(1))
progs['categorical_logits'] = lambda: jax.jit(lambda l: jax.nn.log_softmax(l * 3.7, axis=0) - jax.nn.logsumexp(l, axis=1, keepdims=True))(r(8, 6))
progs['clip_grad_norm'] = lambda: jax.jit(lambda g: g * jnp.minimum(1., 1. / (jnp.sqrt(jnp.sum(g * g)) + 1e-6)))(X)
progs['ema'] = lambda: jax.jit(lambda z: lax.scan(lambda c, x: (0.9 * c + 0.1 * x, c), jnp.zeros(32), z.reshape(-1, 32))[0])(Z)
out = {}
for name, f in progs.items():
  try:
    res = f()
    leaves = jax.tree_util.tree_leaves(res)
    out[name] = [np.asarray(l).astype(np.float32).ravel().view(np.uint32).tolist() for l in leaves]
  except Exception as e:
    out[name] = 'ERR ' + type(e).__name__ + str(e)[:100]
json.dump(out, open(sys.argv[2], 'w'))
