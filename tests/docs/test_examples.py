"""Each program in examples/ runs in its smoke mode, reaches its goal, and draws its PNG when
matplotlib is installed; without matplotlib, `--plot` fails with a one-line message."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")

# example -> (pattern of its summary line, a check on the numbers it captures)
GOALS = {
  "mlp_classifier.py": (r"training accuracy ([\d.]+)", lambda acc: float(acc) >= 0.9),
  "rnn_scan.py": (r"error ([\d.]+) -> test ([\d.]+)", lambda a, b: float(b) < 0.1 * float(a)),
  "gaussian_process.py": (r"inside the data: ([\d.]+)", lambda err: float(err) < 0.3),
  "ode_gradients.py": (r"stiffness ([\d.]+) \(true 2.0\), damping ([\d.]+)",
                       lambda k, c: abs(float(k) - 2.0) < 0.2 and abs(float(c) - 0.3) < 0.05),
  "convnet_step.py": (r"test accuracy ([\d.]+)", lambda acc: float(acc) >= 0.9),
  "data_parallel.py": (r"(same) loss curve on 1 and 4 devices", lambda same: True),
  "explicit_sharding.py": (r"loss curves on 1 and 8 devices agree to ([\d.e+-]+)",
                           lambda gap: float(gap) < 1e-5),
}


def _run(args, **kw):
  return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                        timeout=300, **kw)


def _has_matplotlib():
  try:
    import matplotlib  # noqa: F401
    return True
  except ImportError:
    return False


# Runs an example (argv[2:]) with example_cli.save checking the figure it saves: no title
# overlaps another subplot's axes, and the figure's title overlaps no subplot's title.
CHECKED_SAVE = """
import runpy, sys
sys.path.insert(0, sys.argv[1])
import example_cli
saved = example_cli.save

def save(fig, path):
  saved(fig, path)
  renderer = fig.canvas.get_renderer()
  titles = [(ax, ax.title.get_window_extent(renderer)) for ax in fig.axes if ax.get_title()]
  if fig._suptitle is not None:
    titles.append((None, fig._suptitle.get_window_extent(renderer)))
  for ax, box in titles:
    for other in fig.axes:
      assert other is ax or not box.overlaps(other.get_window_extent(renderer)), (
          f"title {ax.get_title() if ax else 'of the figure'!r} overlaps another subplot")

example_cli.save = save
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.parametrize("name", sorted(GOALS))
def test_example_smoke_run(name, tmp_path):
  png = tmp_path / "out.png"
  args = [os.path.join(EXAMPLES, name), "--smoke"]
  if _has_matplotlib():
    args = ["-c", CHECKED_SAVE, EXAMPLES, *args, "--plot", str(png)]
  out = _run(args)
  assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
  pattern, goal = GOALS[name]
  found = re.search(pattern, out.stdout)
  assert found and goal(*found.groups()), out.stdout
  if _has_matplotlib():
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_is_a_one_line_message(tmp_path):
  hide = ("import runpy, sys; sys.modules['matplotlib'] = None; sys.path.insert(0, sys.argv[1]); "
          "sys.argv = sys.argv[2:]; runpy.run_path(sys.argv[0], run_name='__main__')")
  out = _run(["-c", hide, EXAMPLES, os.path.join(EXAMPLES, "mlp_classifier.py"), "--smoke",
              "--plot", str(tmp_path / "out.png")])
  assert out.returncode == 1
  assert out.stdout == ""
  assert out.stderr.strip().splitlines() == [
    "--plot needs matplotlib, which is not installed: pip install matplotlib (or pip install -e '.[examples]')"]


def test_demo_quick():
  """`make demo` in its quick mode: both tables and the showcase, with the seeds' outcomes."""
  out = _run([os.path.join(EXAMPLES, "demo.py"), "--quick"])
  assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
  text = out.stdout
  assert re.search(r"global read \+ print \(FAQ\) +\[0, 2, 4\], printed 3x +\[0, 1, 2\], printed 1x", text)
  assert re.search(r"log\(exp\(100\.\)\) +inf +100\.0", text)
  assert re.search(r"x\[x < 0\] +\[-1\.5 -0\.5\] +NonConcreteBooleanIndexError", text)
  assert "jit vs eager" in text and "jit vs NumPy" in text
  assert len(re.findall(r"\d+\.\dx +\d+\.\dx\n", text)) == 6
  assert "input deleted=True" in text and "-> [3. 2. 1.]" in text
