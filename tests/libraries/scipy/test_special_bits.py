"""xjax.scipy.special computes as JAX does, operation for operation: float32 results pinned
as the bit patterns JAX 0.10.2 gives, eager and under jit (where XLA folds the constant
operands at compile time, so the two can differ)."""
import numpy as np
import pytest

import xjax as jax
import xjax.scipy.special as xs

f32, f16 = np.float32, np.float16
bf16 = lambda v: jax.numpy.asarray(v, jax.numpy.bfloat16)
BF = [0.3, 1, 2, 3, 5, 7]

CASES = {  # name: (function, operands, eager bits, jit bits or None when the same)
    "betainc": (xs.betainc, (f32([0.5, 2., 7.5, 0.2, 30.]), f32([3., 0.7, 2.5, 0.2, 40.]),
                             f32([0.2, 0.9, 0.6, 0.5, 0.45])),
                [1060880917, 1059896800, 1040995175, 1056964614, 1059393112],
                [1060880904, 1059896804, 1040995175, 1056964614, 1059393112]),
    "betainc_grad": (jax.vmap(jax.grad(xs.betainc, 2)),
                     (f32([0.5, 2., 7.5]), f32([3., 0.7, 2.5]), f32([0.2, 0.9, 0.6])),
                     [1068219107, 1074316134, 1068152742], [1068219096, 1074316126, 1068152742]),
    "betainc_f16": (xs.betainc, (f16([0.5, 2., 7.5]), f16([3., 0.7, 2.5]), f16([0.2, 0.9, 0.6])),
                    [14814, 14694, 12388], None),
    "betaln": (xs.betaln, (f32([0.5, 3., 20., 1e3, 9.]), f32([3., 12., 8.5, 2e4, 2.])),
               [1032072384, 3235896656, 3247088612, 3313200482, 3230662255],
               [1032072512, 3235896655, 3247088612, 3313200482, 3230662254]),
    "beta": (xs.beta, (f32([0.5, 3., 20., -1.5]), f32([3., 12., 8.5, 2.])),
             [1065912456, 980422408, 855615462, 1068149418],
             [1065912465, 980422416, 855615462, 1068149416]),
    "expi": (xs.expi, (f32([-3., 0.5, 3., 10., 70.]),),
             [3159738594, 1055428480, 1092546810, 1159447465, 1860936665],
             [3159738594, 1055428480, 1092546811, 1159447465, 1860936665]),
    "expi_grad": (jax.vmap(jax.grad(xs.expi)), (f32([-3., 0.5, 3.]),),
                  [3163026351, 1079183692, 1087782632], None),
    "exp1": (xs.exp1, (f32([0.5, 1., 3., 40.]),),
             [1057967443, 1046521392, 1012254946, 536136985], None),
    "exp1_grad": (jax.vmap(jax.grad(xs.exp1)), (f32([0.5, 1., 3.]),),
                  [3214624152, 3200015026, 3163026351], None),
    "expn": (xs.expn, (f32([0, 2, 3, 5]), f32([0.5, 0.3, 2.5, 7.])),
             [1067140504, 1055928288, 1015381470, 950308953],
             [1067140504, 1055928296, 1015381470, 950308953]),
    "expn_grad": (jax.vmap(jax.grad(xs.expn, 1)), (f32([2, 3]), f32([0.3, 2.5])),
                  [3211254376, 3164745419], None),
    "spence": (xs.spence, (f32([0.2, 0.8, 1.3, 3., 40.]),),
               [1065980639, 1045959007, 3197068774, 3216500558, 3238349030],
               [1065980639, 1045959007, 3197068773, 3216500558, 3238349030]),
    # NaN past 1 as JAX's: log(1 - x) in the branch not taken
    "spence_grad": (jax.vmap(jax.grad(xs.spence)), (f32([0.3, 0.6, 1.7, 3.]),),
                    [3218876339, 3215161045, 4294967295, 3205275476],
                    [3218876328, 3215161029, 4290772992, 3205275475]),
    # eager, JAX differentiates its branch inside one compiled program (its piecewise's jit)
    "spence_grad_compiled": (jax.vmap(jax.grad(xs.spence)),
                             (f32([0.8215978, 0.9921128, 4.847819, 0.21471155]),),
                             [3213688037, 3212870120, 3201436406, 3220882389],
                             [3213688038, 3212870119, 3201436406, 3220882388]),
    "poch": (xs.poch, (f32([0.5, 3., -1.5, 7.]), f32([1.5, 2., 0.5, -2.5])),
             [1058041532, 1094713353, 2143289344, 1015306206],
             [1058041532, 1094713350, 2143289344, 1015306206]),
    "poch_grad": (jax.vmap(jax.grad(xs.poch), (0, None)), (f32([3., 7.]), f32(1.5)),
                  [1076722727, 1082216112], [1076722724, 1082216120]),
    "multigammaln": (lambda a: xs.multigammaln(a, 3), (f32([2.5, 4., 30.]),),
                     [1072743545, 1085072686, 1129475800], [1072743546, 1085072686, 1129475800]),
    "hyp1f1": (xs.hyp1f1, (f32([0.5, 2., 1.5, 3.]), f32([1.5, 0.7, 2.5, 4.]),
                           f32([0.8, -3., 120., 30.])),
               [1068247559, 3187689715, 2139095040, 1399375733], None),
    "hyp1f1_grad": (jax.vmap(jax.grad(xs.hyp1f1, (0, 1, 2))),
                    (f32([0.5, 2.]), f32([1.5, 3.]), f32([0.8, 2.])),
                    [[1061137870, 1075928995], [3196596930, 3219353069],
                     [1057808798, 1078752038]], None),
    "fresnel": (lambda x: jax.numpy.stack(xs.fresnel(x)), (f32([0.3, 1.2, 2.5, -4., 50.]),),
                [[1013402364, 1059034934, 1058964146, 3201781207, 1056750994],
                 [1050233622, 1060579053, 1055535625, 3204395442, 1056964581]],
                [[1013402364, 1059034934, 1058964146, 3201781207, 1056750994],
                 [1050233622, 1060579054, 1055535625, 3204395442, 1056964581]]),
    "fresnel_grad": (jax.vmap(jax.grad(lambda v: xs.fresnel(v)[0] + xs.fresnel(v)[1])),
                     (f32([0.3, 1.2, 2.5, -4.]),), [1066451494, 1040730244, 3215408500, 1065353216],
                     None),
    # bfloat16 operands (ml_dtypes' finfo: NumPy's cannot describe bfloat16)
    "exp1_bf16": (xs.exp1, (bf16(BF),), [16232, 15964, 15689, 15446, 14999, 14579], None),
    "expi_bf16": (xs.expi, (bf16(BF),), [48794, 16371, 16542, 16672, 16928, 17215], None),
    "hyp1f1_bf16": (xs.hyp1f1, (bf16(BF), bf16(BF[::-1]), bf16(BF) / 10),
                    [16256, 16259, 16274, 16326, 16585, 17114], None),
    "zeta_grad": (jax.vmap(jax.grad(xs.zeta, (0, 1))), (f32([1.5, 3., 7.5]), f32([2., 0.5, 10.])),
                  [[3229329872, 1084812134, 3022779853], [3204653456, 3259158902, 3007437220]],
                  [[3229329872, 1084812134, 3022779853], [3204653457, 3259158902, 3007437220]]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bit_for_bit_jax(name):
  f, args, eager, jitted = CASES[name]
  view = np.uint16 if args[0].dtype.itemsize == 2 else np.uint32
  np.testing.assert_array_equal(np.asarray(f(*args)).view(view), eager)
  np.testing.assert_array_equal(np.asarray(jax.jit(lambda: f(*args))()).view(view),
                                eager if jitted is None else jitted)
