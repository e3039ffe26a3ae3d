"""Make sure we run under a Python that has Apache TVM 0.27 (`import tvm`).

If `import tvm` fails, re-execute the current script with the interpreter named by $TVM_PYTHON, or the
project's default venv /root/.cache/tessel-tvm-venv/bin/python, when it exists.
"""

from __future__ import annotations

import os
import sys

DEFAULT_VENV_PYTHON = "/root/.cache/tessel-tvm-venv/bin/python"


def ensure_tvm() -> None:
    try:
        import tvm  # noqa: F401

        return
    except ImportError:
        pass
    candidates = [os.environ.get("TVM_PYTHON"), DEFAULT_VENV_PYTHON]
    for py in candidates:
        if py and os.path.exists(py) and os.path.realpath(py) != os.path.realpath(sys.executable):
            if os.environ.get("_TESSEL_TVM_REEXEC") == "1":
                break
            os.environ["_TESSEL_TVM_REEXEC"] = "1"
            os.execv(py, [py] + sys.argv)
    sys.stderr.write(
        "error: cannot `import tvm`. Run with the TVM 0.27 venv, e.g.\n"
        f"  {DEFAULT_VENV_PYTHON} {' '.join(sys.argv)}\n"
        "or set TVM_PYTHON to a python that has apache-tvm==0.27.0.post1 installed.\n"
    )
    sys.exit(2)
