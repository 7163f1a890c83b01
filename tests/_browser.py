"""Where the page tests find their browser and keep their screenshots."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

#: Debian's chromium (``XUEZHAN_CHROMIUM`` names another).
CHROMIUM = os.environ.get("XUEZHAN_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: Screenshots kept as test artifacts (git-ignored).
ART = Path(__file__).resolve().parents[1] / "test-artifacts"
