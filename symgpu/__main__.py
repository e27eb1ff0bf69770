"""``python -m symgpu`` runs the command line."""

import sys

from symgpu.cli import main

sys.exit(main())
