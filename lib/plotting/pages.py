"""Numbers computed by a chapter, put into its text.

Introduced in: chapter 1.
"""


def glue(name, value, display=True):
    """Keep ``value`` under ``name`` for the chapter's text, which shows it with ``{glue}`name```.

    On the website this is myst-nb's ``glue``. The course kit that students
    install has no myst-nb (it holds what the computing needs, not the book's
    builder), so a chapter's notebook downloaded from the website and run
    there only shows ``value`` below its cell when ``display`` is true, as
    myst-nb's ``glue`` also does in Jupyter; nothing else reads the name then.

    Introduced in: chapter 1.
    """
    try:
        from myst_nb import glue as myst_glue
    except ImportError:  # the course kit: no book builder
        if display:
            from IPython.display import display as show
            show(value)
        return
    myst_glue(name, value, display=display)
