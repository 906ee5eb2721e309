"""``python -m autograder``: see autograder/README.md."""

import sys

from .cli import main

sys.exit(main())
