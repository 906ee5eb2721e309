"""Small fixes that keep the course website self-contained and free of console errors.

- Thebe (live code through a remote kernel) is switched off in _config.yml,
  but sphinx-thebe still adds its configuration script, twice, which throws
  "Identifier 'THEBE_JS_URL' has already been declared" and names a CDN.
  Its scripts are dropped from every page.
- The theme reads the colour mode from localStorage and falls back to an
  empty string on a first visit, which it then reports as an error; the
  fallback is set to "light".
"""


def _drop_thebe(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if scripts is not None:
        context["script_files"] = [
            s for s in scripts
            if "thebe" not in str(getattr(s, "filename", s) or "").lower()
            and "THEBE_JS_URL" not in str(getattr(s, "attributes", {}).get("body", ""))
        ]
    if not context.get("default_mode"):
        context["default_mode"] = "light"


def setup(app):
    app.connect("html-page-context", _drop_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
