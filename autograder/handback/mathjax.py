"""The course's MathJax 3 in nbgrader's pages (the formgrader, the feedback): offline, small, and speaking
the one MathJax 2 call nbgrader's formgrader makes.

nbconvert's templates load MathJax 2 from a CDN. templates/base/mathjax.html.j2, beside this module, replaces that
macro with :func:`mathjax_html` (the Jinja filter ``course_mathjax``, configured in nbgrader_config.py,
which the formgrader reads too). What a page gets:

- **the configuration**: ``$...$`` and ``$$...$$`` with escapes, SVG output (no font files to fetch),
  assistive MathML, as the website has it;
- **MathJax 3 inside the page, compressed**: tex-svg.js from the course's environment (the package
  sphinx-mathjax-offline), gzip-compressed and base64-encoded (2.1 MB becomes 0.9 MB), unpacked by the
  browser's own ``DecompressionStream`` and run as an inline script. Every page stays one file that works
  offline wherever it is opened: ``nbgrader release_feedback`` hands back the ``.html`` files alone, so
  MathJax in a file beside the pages would not reach the student. A browser without
  ``DecompressionStream`` (older than Chrome 80, Firefox 113, Safari 16.4) shows the formulas as TeX;
- **a MathJax 2 shim**: nbgrader's formgrade.js (``FormGrader.configureScrolling``) calls
  ``MathJax.Hub.Startup.signal.Interest(callback)`` and waits for the message ``"End"`` to focus the
  first score box. MathJax 3 has no ``MathJax.Hub``: the call threw, ``FormGrader.init()`` stopped before
  it made the keyboard manager, and the formgrader lost Tab between score boxes, Ctrl+Shift+F (flag) and
  its other keys. :data:`HUB_CALLS` is every MathJax 2 name the shim provides; ``Interest`` calls back
  with ``"End"`` once MathJax 3 has typeset the page (``MathJax.startup.promise``).
  tests/test_formgrader.py checks that nbgrader's scripts call no other MathJax 2 name.
"""

import base64
import gzip
import importlib.util
from functools import cache
from pathlib import Path

from ..course.course import CourseError

# The MathJax 2 names the shim defines (MathJax.Hub.<name>).
HUB_CALLS = ("Startup.signal.Interest",)

_CONFIG = r"""<script>
window.MathJax = {
  tex: {inlineMath: [['$', '$'], ['\\(', '\\)']], displayMath: [['$$', '$$'], ['\\[', '\\]']],
        processEscapes: true, processEnvironments: true, tags: 'ams'},
  options: {enableAssistiveMml: true}, svg: {fontCache: 'global'},
  startup: {ready: function () {
    MathJax.startup.defaultReady();
    MathJax.Hub = window.courseMathJaxHub;   // MathJax 3 replaced the configuration object: keep the shim
    MathJax.startup.promise.then(window.courseMathJaxTypeset);
  }}
};
// MathJax 2's Hub, as much of it as nbgrader's formgrade.js calls: the callbacks run once MathJax 3 has
// typeset the page (the message MathJax 2 sent then was "End").
(function () {
  var typeset, done = new Promise(function (resolve) { typeset = resolve; });
  window.courseMathJaxTypeset = function () { typeset(); };
  window.courseMathJaxHub = {
    Startup: {signal: {Interest: function (callback) { done.then(function () { callback("End"); }); }}}
  };
  window.MathJax.Hub = window.courseMathJaxHub;
})();
</script>
"""

_LOADER = """<script>
(function () {
  var packed = document.getElementById("course-mathjax-gz").textContent;
  if (typeof DecompressionStream === "undefined") { return; }   // formulas stay as TeX
  var bytes = Uint8Array.from(atob(packed), function (c) { return c.charCodeAt(0); });
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  new Response(stream).text().then(function (code) {
    var script = document.createElement("script");
    script.textContent = code;
    document.head.appendChild(script);
  });
})();
</script>
"""


def source():
    """The path of MathJax 3's tex-svg.js in the course's environment (sphinx-mathjax-offline)."""
    spec = importlib.util.find_spec("sphinx-mathjax-offline") or importlib.util.find_spec("sphinx_mathjax_offline")
    for root in [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []:
        script = root / "static" / "mathjax" / "tex-svg.js"
        if script.is_file():
            return script
    raise CourseError("MathJax for the feedback pages was not found (the package sphinx-mathjax-offline, "
                      "tex-svg.js): install the course's environment (make setup)")


@cache
def mathjax_html():
    """The configuration, the MathJax 2 shim and the compressed MathJax 3 of a page, as HTML.

    >>> html = mathjax_html()
    >>> html.count("<script") == 3 and "MathJax.Hub" in html and "src=" not in html
    True
    """
    packed = base64.b64encode(gzip.compress(source().read_bytes(), compresslevel=9, mtime=0)).decode("ascii")
    return (f'{_CONFIG}<script type="application/gzip+base64" id="course-mathjax-gz">{packed}</script>\n'
            f"{_LOADER}")


def mathjax_filter(_value=""):
    """The Jinja filter ``course_mathjax`` (nbgrader_config.py): :func:`mathjax_html`."""
    return mathjax_html()
