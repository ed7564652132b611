"""Loads API reference pages in headless Chromium (`make docs-check`; not part of `make test`:
CI has no browser).

Builds the site (`mkdocs build --strict`, into build/docs unless --site is given with
--no-build), serves it from a local http.server, and for each page below: takes a screenshot
(build/api-check/*.png, to look at), reads the DOM Chromium rendered and checks the page's
title heading and entries are there, that the browser logged nothing to its console but the
search index's progress, and that no request the page made failed (a missing stylesheet
or script). Chromium: $CHROMIUM, else `chromium` on the PATH (Debian: `apt-get install chromium`).

    python tools/check_api_pages.py [--no-build] [--site build/docs] [--out build/api-check]
"""
import argparse
import functools
import html.parser
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (page, its title heading, ids of entries it must show)
PAGES = [
    ("api/xjax/", "xjax", ["xjax", "xjax.jit", "xjax.grad"]),
    ("api/numpy/", "xjax.numpy", ["xjax.numpy"]),
    ("api/numpy/creation/", "Array creation", ["xjax.numpy.zeros", "xjax.numpy.mgrid"]),
    ("api/numpy/arrays/", "The array type, constants, printing and files", ["xjax.numpy.pi"]),
    ("api/lax/control-flow/", "Control flow operators", ["xjax.lax.scan", "xjax.lax.cond"]),
    ("api/random/", "xjax.random", ["xjax.random.key", "xjax.random.normal"]),
    ("api/primitives/", "Primitives", ["xjax.extend.core.primitives.sin_p"]),
]


# the search plugin's worker says when it builds its index: progress, not an error
_SEARCH_PROGRESS = re.compile(r'\] "[^"]*index[^"]*", source: \S*/search/worker\.js')


class _Requests(http.server.SimpleHTTPRequestHandler):
  """Serves the site, recording each request's path and status."""
  log = []

  def log_request(self, code="-", size="-"):
    self.log.append((self.path, int(code) if str(code).isdigit() else 0))

  def log_message(self, *args):
    pass


class _Server(http.server.ThreadingHTTPServer):
  """Quiet when Chromium closes a connection early (its `--dump-dom` exits once the page loads)."""

  def handle_error(self, request, client_address):
    if not issubclass(sys.exc_info()[0], ConnectionError):
      super().handle_error(request, client_address)


class _Headings(html.parser.HTMLParser):
  """The text of the first <h1> and the ids of all headings."""

  def __init__(self):
    super().__init__()
    self.h1, self.ids, self._in_h1 = None, set(), False

  def handle_starttag(self, tag, attrs):
    if re.fullmatch(r"h[1-6]", tag):
      self.ids.update(value for name, value in attrs if name == "id")
      if tag == "h1" and self.h1 is None:
        self._in_h1, self.h1 = True, ""

  def handle_endtag(self, tag):
    if tag == "h1":
      self._in_h1 = False

  def handle_data(self, data):
    if self._in_h1:
      self.h1 += data


def _chromium():
  found = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
  if not found:
    sys.exit("no Chromium: set $CHROMIUM or install it (Debian: apt-get install -y chromium)")
  return found


def _run_chromium(chromium, *args):
  flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--enable-logging=stderr", "--v=0"]
  return subprocess.run([chromium, *flags, *args], capture_output=True, text=True, timeout=120)


def check_page(chromium, base, out_dir, page, title, ids):
  """The problems found on one page (an empty list when it is fine)."""
  url = base + page
  name = page.strip("/").replace("/", "_") or "index"
  shot = _run_chromium(chromium, f"--screenshot={os.path.join(out_dir, name + '.png')}",
                       "--window-size=1280,1600", url)
  dom = _run_chromium(chromium, "--dump-dom", url)
  problems = []
  for run in (shot, dom):
    if run.returncode != 0:
      problems.append(f"chromium exited {run.returncode}: {run.stderr[-500:]}")
    problems += [f"console: {line}" for line in run.stderr.splitlines()
                 if ":CONSOLE" in line and not _SEARCH_PROGRESS.search(line)]
  headings = _Headings()
  headings.feed(dom.stdout)
  if (headings.h1 or "").replace("\u00b6", "").strip() != title:
    problems.append(f"title heading {headings.h1!r}, expected {title!r}")
  problems += [f"no heading with id {i!r}" for i in ids if i not in headings.ids]
  return problems


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--site", default=os.path.join(ROOT, "build", "docs"))
  parser.add_argument("--out", default=os.path.join(ROOT, "build", "api-check"))
  parser.add_argument("--no-build", action="store_true", help="check the site already in --site")
  args = parser.parse_args()
  chromium = _chromium()
  if not args.no_build:
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", args.site],
                   cwd=ROOT, check=True)
  os.makedirs(args.out, exist_ok=True)
  server = _Server(("127.0.0.1", 0), functools.partial(_Requests, directory=args.site))
  threading.Thread(target=server.serve_forever, daemon=True).start()
  base = f"http://127.0.0.1:{server.server_address[1]}/"
  failures = 0
  try:
    for page, title, ids in PAGES:
      _Requests.log.clear()
      problems = check_page(chromium, base, args.out, page, title, ids)
      problems += [f"request {path} answered {code}" for path, code in _Requests.log if code >= 400]
      failures += bool(problems)
      print(f"{'FAIL' if problems else 'ok  '} {page}" + "".join(f"\n       {p}" for p in problems))
  finally:
    server.shutdown()
  print(f"screenshots in {args.out}")
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
