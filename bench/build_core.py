"""Build the C core from another source tree into a directory, for comparing
two builds in one environment (bench/core_identity.py, bench/callgrind_core.py):

  git worktree add /tmp/old <commit>          # or any copy of csrc/
  python bench/build_core.py /tmp/old/csrc /tmp/old-core
  SCHEDLAB_CORE_DIR=/tmp/old-core python bench/core_identity.py dump old.npz

Same compiler flags as the installed core (lib/schedlab/engine/_build.py)."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib" / "schedlab" / "engine"))
import _build  # noqa: E402

_build.CSRC = Path(sys.argv[1]).resolve()
out = Path(sys.argv[2]).resolve()
(out / "schedlab" / "engine").mkdir(parents=True, exist_ok=True)
os.chdir(out)       # the builder names the sources relative to the working directory
_build.make_builder(sanitize=False).compile(tmpdir=str(out), verbose=False)
print("built:", *sorted((out / "schedlab" / "engine").glob("_core*.so")))
