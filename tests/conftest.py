"""Shared test set-up: grading and its sandbox.

Grading refuses to run without its sandbox (bubblewrap, autograder/sandbox.py)
unless asked. Where bubblewrap is not installed and not required, the tests
that grade homework to check something else (scores, feedback, the gradebook)
grade the course's own notebooks as ``grade --no-sandbox`` would; the tests of
the sandbox itself (tests/test_adversarial.py) skip. With
``RBD_REQUIRE_SANDBOX=1`` (as in CI) nothing is relaxed: every test grades in
the sandbox, and fails when there is none.
"""

import os
import shutil

if os.environ.get("RBD_REQUIRE_SANDBOX") != "1" and not shutil.which("bwrap"):
    os.environ.setdefault("RBD_NO_SANDBOX", "1")
