"""``python -m cage_core.cli``: the ``cage`` command."""

import sys

from cage_core.cli.commands import main

sys.exit(main())
