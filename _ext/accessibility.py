"""What the website needs to pass WCAG 2.1 AA beyond what the theme and myst-nb give.

- **Text alternatives from the chapter source.** A figure cell says what its
  figure shows in its metadata, beside the caption::

      mystnb:
        image:
          alt: Two curves ...
        figure:
          name: fig-...
          caption: ...

  myst-nb puts that text on the cell's PNG images itself. The HTML that
  ``lib.plotting`` writes (animation players, sliders) marks its pictures
  with ``data-course-alt="<detail>"``; here they get the same cell's text,
  followed by the detail (a slider frame's parameter values). A picture in a
  cell without ``image: alt:`` is a warning, which fails the build, so the
  reader never gets Sphinx's fallback, the image's file name.
- **Names that match what is seen.** myst-nb labels the summary of a hidden
  code cell "Toggle hidden content" while it shows "Show code cell source";
  the label is dropped so that the visible text names it.
- **Bibliography roles.** docutils marks the entries ``doc-biblioentry``
  (deprecated in DPUB-ARIA 1.1) inside a ``role="list"`` that also holds
  anchors; both roles are dropped, and the entries read as plain blocks.
- MathJax's settings (assistive MathML on) are in ``_config.yml``; the
  theme's templates overridden for accessibility are in ``_templates/``.
"""

import html
import re

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

_MARKED = re.compile(r'alt="[^"]*" data-course-alt="([^"]*)"')


def cell_alt(cell):
    """The ``mystnb: image: alt:`` text of a myst-nb code cell container (None when it has none)."""
    meta = cell.get("cell_metadata") or {}
    image = (meta.get("mystnb") or {}).get("image") or {}
    alt = image.get("alt")
    return " ".join(str(alt).split()) if alt else None


class CellAltText(SphinxPostTransform):
    """Give lib.plotting's pictures the alt text of their cell, and refuse images without one."""

    default_priority = 6          # after myst-nb chose each output's format (SelectMimeType, 4)
    formats = ("html",)

    def run(self, **kwargs):
        for cell in self.document.findall(nodes.container):
            if cell.get("nb_element") != "cell_code":
                continue
            alt = cell_alt(cell)
            for raw in list(cell.findall(nodes.raw)):
                text = raw.astext()
                if "data-course-alt=" not in text:
                    continue
                if not alt:
                    logger.warning("an animation or slider in a cell without `mystnb: image: alt:` "
                                   "(say what the figure shows, beside its caption)", location=cell)
                    continue
                new = _MARKED.sub(lambda m: 'alt="{}"'.format(html.escape(
                    f"{alt} ({html.unescape(m.group(1))})" if m.group(1) else alt)), text)
                raw.replace_self(nodes.raw(new, new, format=raw.get("format", "html"), classes=raw["classes"]))
            for image in cell.findall(nodes.image):
                if not image.get("alt"):
                    logger.warning("a figure in a cell without `mystnb: image: alt:` "
                                   "(say what the figure shows, beside its caption)", location=cell)


def _page_body(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if not body:
        return
    body = body.replace('<summary aria-label="Toggle hidden content">', "<summary>")
    body = body.replace('<div role="list" class="citation-list">', '<div class="citation-list">')
    body = body.replace(' role="doc-biblioentry"', "")
    context["body"] = body


def setup(app):
    app.add_post_transform(CellAltText)
    app.connect("html-page-context", _page_body)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
