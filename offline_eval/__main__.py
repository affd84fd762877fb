from __future__ import annotations

import sys

from offline_eval.cli import main

sys.exit(main())
