"""``python -m wrd_score.cli``: the ``wrdscore`` command."""
import sys

from . import main

sys.exit(main())
