"""xjax.nn.initializers: the reference's values for the same key, shape and dtype, and the
variance each initializer promises."""
import inspect

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from tests.checking import skip_off_recording_cpu

I = xjax.nn.initializers
k = xjax.random.key(42)

# Recorded from the reference JAX 0.10.2 with key = random.key(42).
CASES = {
    'uniform': 'I.uniform(10.)(k, (2, 3))',
    'normal': 'I.normal(5.)(k, (2, 3))',
    'truncated_normal': 'I.truncated_normal(5.)(k, (2, 3))',
    'glorot_uniform': 'I.glorot_uniform()(k, (2, 3))',
    'glorot_normal': 'I.glorot_normal()(k, (4, 5))',
    'lecun_normal_conv': 'I.lecun_normal()(k, (3, 3, 2, 4))',
    'he_uniform_bf16': 'I.he_uniform()(k, (2, 3), jnp.bfloat16)',
    'he_normal_axes': 'I.he_normal(in_axis=0, out_axis=1)(k, (3, 2))',
    'fan_geo_avg_batch': "I.variance_scaling(0.5, 'fan_geo_avg', 'normal', batch_axis=0)(k, (2, 3, 4))",
    'orthogonal': 'I.orthogonal()(k, (2, 3))',
    'orthogonal_axis0': 'I.orthogonal(2., column_axis=0)(k, (3, 2, 2))',
    'delta_orthogonal': 'I.delta_orthogonal()(k, (3, 3, 3))',
}
EXPECTED = {
    'uniform': ('float32', [[4.8870954513549805, 6.797971725463867, 6.162714958190918], [5.610160827636719, 4.50644588470459, 5.858658790588379]]),
    'normal': ('float32', [[-0.141523078083992, 2.3356592655181885, 1.4785147905349731], [0.7677295804023743, -0.6201640963554382, 1.084615707397461]]),
    'truncated_normal': ('float32', [[-0.13508248329162598, 2.2219040393829346, 1.409385323524475], [0.7325402498245239, -0.59181147813797, 1.034537434577942]]),
    'glorot_uniform': ('float32', [[-0.02473609521985054, 0.39391589164733887, 0.25473809242248535], [0.13367953896522522, -0.1081322431564331, 0.1881226748228073]]),
    'glorot_normal': ('float32', [[-0.014478543773293495, 0.23815029859542847, 0.15106211602687836, 0.07851585000753403, -0.06343211978673935], [0.11088480055332184, -0.7050447463989258, 0.38303905725479126, 0.26559165120124817, 0.45900407433509827], [-0.19623993337154388, 0.56908118724823, 0.7071547508239746, 0.5412567257881165, -0.028794383630156517], [0.45872312784194946, 0.2837161421775818, 0.1119740754365921, -0.7083239555358887, 0.3871704041957855]]),
    'lecun_normal_conv': ('float32', [[[[-0.007239271886646748, 0.11907514929771423, 0.07553105801343918, 0.039257925003767014], [-0.031716059893369675, 0.05544240027666092, -0.3525223731994629, 0.19151952862739563]], [[0.13279582560062408, 0.22950203716754913, -0.09811996668577194, 0.284540593624115], [0.3535773754119873, 0.2706283628940582, -0.014397191815078259, 0.22936156392097473]], [[0.1418580710887909, 0.05598703771829605, -0.35416197776794434, 0.19358520209789276], [-0.061725400388240814, -0.2937869131565094, -0.4465397298336029, 0.09094498306512833]]], [[[-0.06161639839410782, 0.3020711839199066, -0.34261274337768555, -0.13616687059402466], [0.06915327906608582, 0.37345096468925476, 0.17600633203983307, -0.02656383439898491]], [[-0.1279713362455368, 0.17192785441875458, 0.028346408158540726, -0.08877956122159958], [0.11597877740859985, 0.058227889239788055, -0.14178231358528137, -0.22286583483219147]], [[-0.05456889793276787, 0.07866600900888443, -0.047859132289886475, 0.023945556953549385], [0.09542296081781387, -0.2649891972541809, 0.11389349400997162, 0.30107083916664124]]], [[[0.11065284162759781, -0.178562730550766, 0.04509424418210983, -0.05079158395528793], [-0.05574444681406021, 0.3181089758872986, 0.09579657018184662, -0.045524436980485916]], [[-0.061277445405721664, -0.10454810410737991, 0.09370408207178116, 0.2957666218280792], [-0.26051703095436096, -0.20104242861270905, 0.2653100788593292, -0.09244094789028168]], [[-0.014096643775701523, -0.4633301794528961, 0.3653091788291931, -0.3571581542491913], [0.020624283701181412, -0.2087453156709671, -0.03019222803413868, -0.22759827971458435]]]]),
    'he_uniform_bf16': ('bfloat16', [[0.4609375, 1.1953125, 1.625], [1.1640625, -1.4609375, 1.1953125]]),
    'he_normal_axes': ('float32', [[-0.0250775758177042, 0.4124884605407715], [0.2616472840309143, 0.13599345088005066], [-0.10986766219139099, 0.19205811619758606]]),
    'fan_geo_avg_batch': ('float32', [[[-0.010753428563475609, 0.17747172713279724, 0.11234282702207565, 0.058334831148386], [-0.047122277319431305, 0.0824129730463028, -0.5474156141281128, 0.2871646583080292], [0.19809281826019287, 0.34578996896743774, -0.14607711136341095, 0.43303918838500977]], [[0.5492799878120422, 0.4106557071208954, -0.02138679474592209, 0.3455711603164673], [0.2117457389831543, 0.08322373032569885, -0.5503143072128296, 0.2903284728527069], [-0.09176800400018692, -0.44806787371635437, -0.7366296648979187, 0.1353512853384018]]]),
    'orthogonal': ('float32', [[-0.08792734146118164, 0.918591320514679, -0.3853037655353546], [0.8722633719444275, 0.2578020393848419, 0.41556569933891296]]),
    'orthogonal_axis0': ('float32', [[[-0.03307747840881348, 0.179438054561615], [-1.6838515996932983, 1.0636506080627441]], [[1.9597400426864624, -0.20293408632278442], [0.1386459767818451, 0.314667284488678]], [[-0.2914019823074341, 0.41621729731559753], [1.0686107873916626, 1.6124261617660522]]]),
    'delta_orthogonal': ('float32', [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[-0.01952970027923584, 0.9952678084373474, 0.09518957138061523], [0.10594390332698822, -0.09261152893304825, 0.9900500774383545], [-0.99418044090271, -0.02941983938217163, 0.10363386571407318]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]),
}
COMPLEX_UNIFORM = [[(-0.1018589437007904-0.7210308313369751j), (0.13193653523921967-0.5440173745155334j)], [(0.39510443806648254+0.8633787035942078j), (-0.06624709814786911+0.8330332040786743j)]]


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_reference(name):
  if name.startswith("orthogonal"):  # (a QR: LAPACK's bits depend on the CPU)
    skip_off_recording_cpu()
  dtype, values = EXPECTED[name]
  got = eval(CASES[name])
  assert str(got.dtype) == dtype
  np.testing.assert_allclose(np.asarray(got, np.float64), values, rtol=2e-7, atol=1e-7)


def test_complex_and_constant_initializers():
  got = I.variance_scaling(1., "fan_in", "uniform")(k, (2, 2), jnp.complex64)
  np.testing.assert_allclose(np.asarray(got), np.asarray(COMPLEX_UNIFORM), rtol=1e-6)
  np.testing.assert_array_equal(I.constant(-7)(k, (2, 3)), np.full((2, 3), -7, np.float32))
  assert I.zeros(k, (2,)).dtype == jnp.float32 and I.ones(k, (2,), jnp.float16).dtype == jnp.float16
  assert isinstance(I.glorot_uniform(), I.Initializer)
  assert I.kaiming_normal is I.he_normal and I.xavier_uniform is I.glorot_uniform


@pytest.mark.parametrize("make, variance", [
    (lambda: I.glorot_uniform(), 2 / (300 + 200)), (lambda: I.glorot_normal(), 2 / (300 + 200)),
    (lambda: I.lecun_normal(), 1 / 300), (lambda: I.he_uniform(), 2 / 300),
    (lambda: I.variance_scaling(3., "fan_out", "normal"), 3 / 200)])
def test_variance_scaling_variances(make, variance):
  w = np.asarray(make()(xjax.random.key(0), (300, 200)), np.float64)
  np.testing.assert_allclose(w.var(), variance, rtol=0.05)


def test_orthogonal_initializers_are_orthogonal():
  w = np.asarray(I.orthogonal()(k, (5, 3)), np.float64)
  np.testing.assert_allclose(w.T @ w, np.eye(3), atol=1e-5)
  kernel = np.asarray(I.delta_orthogonal()(k, (3, 3, 4, 4)), np.float64)
  centre = kernel[1, 1]
  np.testing.assert_allclose(centre.T @ centre, np.eye(4), atol=1e-5)
  assert np.count_nonzero(kernel) == np.count_nonzero(centre)


def test_bad_arguments():
  with pytest.raises(ValueError, match="invalid mode"):
    I.variance_scaling(1., "fan_x", "normal")(k, (2, 2))
  with pytest.raises(ValueError, match="invalid distribution"):
    I.variance_scaling(1., "fan_in", "cauchy")(k, (2, 2))
  with pytest.raises(ValueError, match="at least 2D"):
    I.glorot_uniform()(k, (3,))
  with pytest.raises(ValueError, match="2D"):
    I.orthogonal()(k, (3,))
  with pytest.raises(ValueError, match="3D, 4D or 5D"):
    I.delta_orthogonal()(k, (3, 3))


def test_signatures_are_jaxs():
  # Their annotations are JAX's text (fiddle prints a configured initializer's parameters
  # with them); recorded from JAX 0.10.2's inspect.signature.
  dtype = "dtype: 'DTypeLikeInexact | None' = None"
  axes = ("in_axis: 'int | Sequence[int]' = -2, out_axis: 'int | Sequence[int]' = -1, "
          f"batch_axis: 'int | Sequence[int]' = (), {dtype}")
  init = (f"(key: 'Array', shape: 'core.Shape', {dtype}, "
          "out_sharding: 'OutShardingType' = None) -> 'Array'")
  assert str(inspect.signature(I.normal)) == \
      f"(stddev: 'RealNumeric' = 0.01, {dtype}) -> 'Initializer'"
  assert str(inspect.signature(I.truncated_normal)) == (
      f"(stddev: 'RealNumeric' = 0.01, {dtype}, lower: 'RealNumeric' = -2.0, "
      "upper: 'RealNumeric' = 2.0) -> 'Initializer'")
  assert str(inspect.signature(I.variance_scaling)) == (
      "(scale: 'RealNumeric', mode: \"Literal['fan_in'] | Literal['fan_out'] | "
      "Literal['fan_avg'] | Literal['fan_geo_avg']\", distribution: \"Literal['truncated_normal']"
      f" | Literal['normal'] | Literal['uniform']\", {axes}) -> 'Initializer'")
  assert str(inspect.signature(I.glorot_uniform)) == f"({axes}) -> 'Initializer'"
  assert str(inspect.signature(I.orthogonal)) == \
      f"(scale: 'RealNumeric' = 1.0, column_axis: 'int' = -1, {dtype}) -> 'Initializer'"
  assert str(inspect.signature(I.zeros)) == init.replace("= dtype", "= None")
  for made in (I.normal(), I.constant(1.0), I.he_normal(), I.delta_orthogonal()):
    assert str(inspect.signature(made)) == init
