"""Small fixes that keep the course website self-contained and free of console errors.

- Thebe (live code through a remote kernel) is switched off in _config.yml,
  but sphinx-thebe still adds its configuration script, twice, which throws
  "Identifier 'THEBE_JS_URL' has already been declared" and names a CDN.
  Its scripts are dropped from every page.
- The theme reads the colour mode from localStorage and falls back to an
  empty string on a first visit, which it then reports as an error; the
  fallback is set to "light".
- The homework page links ``course-kit.zip``: the package ``lib`` with the
  kit's own pinned requirements and a README with the set-up
  (``_ext/course_kit.py``), written beside the pages at the end of every
  HTML build, so that a student who has only the website can run a
  homework notebook.
- The bibliography lists its entries under the labels the text cites them
  by, "[Tedrake, 2022]", not under pybtex's "[Ted22]": a label style of
  ours, registered as the pybtex style "authoryear".
- The theme shows a second search field in a bar above the page, beside the
  one in the sidebar: the bar's persistent search is switched off.
- Where the course is published is one setting, ``repository.url`` in
  ``_config.yml``. Set, the pages get a repository button and the launch
  buttons of ``launch_buttons``; empty, neither, and no page links a
  repository. The chapter's ``.ipynb`` stays in the download menu either way.
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


# Jupyter Book's own repository, which it fills in when _config.yml names none.
JUPYTER_BOOK_DEFAULT = "https://github.com/executablebooks/jupyter-book"
LAUNCH_PROVIDERS = ("binderhub_url", "jupyterhub_url", "colab_url", "deepnote_url", "jupyterlite_url")


def _theme_options(app, config):
    """One search box; repository and launch buttons only when _config.yml's repository.url is set."""
    options = dict(config.html_theme_options or {})
    options.setdefault("navbar_persistent", [])
    url = (options.get("repository_url") or "").strip()
    if url.rstrip("/") == JUPYTER_BOOK_DEFAULT:
        url = ""
    options["repository_url"] = url
    options["use_repository_button"] = bool(url)
    if not url:
        launch = dict(options.get("launch_buttons") or {})
        launch.update({key: "" for key in LAUNCH_PROVIDERS})
        options["launch_buttons"] = launch
    config.html_theme_options = options


def _notebook_download(app, pagename, templatename, context, doctree):
    """Offer the executed chapter as .ipynb in the download menu, launch buttons or not.

    sphinx-book-theme copies the notebook for its download button only when a
    launch button is configured, which without a repository there is not.
    """
    from pathlib import Path
    from shutil import copy2

    if not context.get("sourcename", "").endswith((".md", ".md.txt")):
        return
    if "kernelspec" not in app.env.metadata.get(pagename, {}):
        return
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.is_file():
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def _course_kit(app, exception):
    """Write course-kit.zip (lib/ and the files of kit/; _ext/course_kit.py) beside the built pages."""
    if exception is not None or app.builder.format != "html":
        return
    from pathlib import Path

    from course_kit import write_kit

    write_kit(app.srcdir, Path(app.outdir) / "course-kit.zip")


def _author_year_style():
    """A pybtex style: the unsrt formatting, sorted by author and year, labelled "Author, Year"."""
    from pybtex.style.formatting.unsrt import Style
    from pybtex.style.labels import BaseLabelStyle

    class AuthorYearLabels(BaseLabelStyle):
        def format_labels(self, sorted_entries):
            for entry in sorted_entries:
                last = [" ".join(p.last_names) for p in entry.persons.get("author", [])]
                names = (last[0] if len(last) == 1 else f"{last[0]} and {last[1]}" if len(last) == 2
                         else f"{last[0]} et al.")
                yield f"{names}, {entry.fields.get('year', 'n.d.')}"

    class AuthorYearStyle(Style):
        default_label_style = AuthorYearLabels
        default_sorting_style = "author_year_title"

    return AuthorYearStyle


def setup(app):
    from pybtex.plugin import register_plugin

    register_plugin("pybtex.style.formatting", "authoryear", _author_year_style(), force=True)
    app.connect("build-finished", _course_kit)
    app.connect("config-inited", _theme_options)
    app.connect("html-page-context", _notebook_download, priority=500)
    app.connect("html-page-context", _drop_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
