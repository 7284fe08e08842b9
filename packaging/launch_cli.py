"""Entry point of the packaged ``curator`` command."""

import sys

from curator.cli.main import main

sys.exit(main())
