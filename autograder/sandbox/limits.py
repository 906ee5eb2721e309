"""Every limit of a grading run, in one place: its default and the environment variable that changes it.

Read when a command starts (:func:`Limits.from_environment`), so that the
grade command, its grading workers and the sandboxes they start all agree;
``grade --time-limit`` and ``--memory-limit`` override the two that the grade
command itself enforces. The per-cell limit is also handed to nbgrader's own
``Execute`` (nbgrader_config.py), which ``nbgrader validate`` uses.

>>> limits = Limits.from_environment({"RBD_CELL_TIMEOUT": "5"})
>>> limits.cell_s, limits.notebook_s
(5.0, 900)
>>> Limits.from_environment({"RBD_CELL_TIMEOUT": "soon"})
Traceback (most recent call last):
...
ValueError: RBD_CELL_TIMEOUT must be a positive number (seconds), not 'soon'
"""

import os
from dataclasses import dataclass, fields

MESSAGE_MB = 64   # the largest message between the grader's processes (autograder/sandbox/wire.py)
GRACE_S = 10      # past a cell's limit, a process that ignores the interrupt is killed this much later
TEMPLATE_END_S = 30   # a warm template's keeper that has not reported its child's namespace gone by then is
                      # killed, with the whole template (autograder/sandbox/warm.py)


@dataclass(frozen=True)
class Limits:
    """What one submission may use; each field is named ``<what>_<unit>``."""

    cell_s: float = 60.0        # one cell, or one call of a student's function, before it is interrupted
    notebook_s: int = 900       # one whole submission, before its grading worker is killed (--time-limit)
    worker_mb: int = 4096       # address space of a grading worker, 0 for none (--memory-limit)
    student_mb: int = 3072      # address space of a student's process
    processes: int = 128        # processes of a student's user
    cpu_s: int = 900            # CPU seconds of a student's process
    file_mb: int = 64           # largest file a student's process may write
    tmp_mb: int = 256           # the sandbox's private /tmp
    output_chars: int = 200_000  # output kept per cell
    handin_file_mb: float = 256.0  # one file of a hand-in, read before grading (a notebook full of plots is tens of MB)

    ENVIRONMENT = {"cell_s": "RBD_CELL_TIMEOUT", "notebook_s": "RBD_GRADE_TIME_LIMIT",
                   "worker_mb": "RBD_GRADE_MEMORY_MB", "student_mb": "RBD_STUDENT_MEMORY_MB",
                   "processes": "RBD_STUDENT_PROCESSES", "cpu_s": "RBD_STUDENT_CPU_S",
                   "handin_file_mb": "RBD_HANDIN_FILE_MB"}

    @classmethod
    def from_environment(cls, environ=None):
        """The defaults, with what the environment variables of :attr:`ENVIRONMENT` set."""
        environ = os.environ if environ is None else environ
        values = {}
        for spec in fields(cls):
            name = cls.ENVIRONMENT.get(spec.name)
            if name is None or not environ.get(name, "").strip():
                continue
            kind = type(spec.default)
            unit = {"s": "seconds", "mb": "MB"}.get(spec.name.rpartition("_")[2], "")
            try:
                value = kind(float(environ[name])) if kind is float else int(environ[name])
            except ValueError:
                value = -1
            if value < 0 or (value == 0 and spec.name not in ("worker_mb",)):
                raise ValueError(f"{name} must be a positive number{f' ({unit})' if unit else ''}, "
                                 f"not {environ[name]!r}")
            values[spec.name] = value
        return cls(**values)

    def student(self):
        """The limits autograder/sandbox/confine.py applies to a student's process."""
        return {"memory_mb": self.student_mb, "processes": self.processes, "file_mb": self.file_mb,
                "cpu_s": self.cpu_s}
