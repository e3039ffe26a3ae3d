"""Regenerates the TVM 0.27 printings the printer tests compare against.

    /root/.cache/tessel-tvm-venv/bin/python compiler-core/tests/data/printer/gen_tvm.py

For every `<case>.py` here (a TVMScript program defining `Module` or the
function named by `PRINT`), writes `<case>.tvm.txt` with TVM's `.script()`.

Where Tessel deliberately prints differently from TVM 0.27 (symbolic shapes,
which 0.27 prints in a form it cannot parse), `<case>.ours.txt` holds
Tessel's printing; this script checks that TVM parses it (header imports
uncommented) into a module structurally equal to its parse of `<case>.py`.
"""
import importlib.util
import pathlib
import sys

import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import tvm

here = pathlib.Path(__file__).resolve().parent


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # TVMScript reads the source through inspect
    spec.loader.exec_module(mod)
    return mod


for path in sorted(here.glob("*.py")):
    if path.name == "gen_tvm.py" or path.name.startswith("_"):
        continue
    mod = load(path, "printer_case_" + path.stem)
    obj = getattr(mod, getattr(mod, "PRINT", "Module"))
    (here / (path.stem + ".tvm.txt")).write_text(obj.script())
    print("wrote", path.stem + ".tvm.txt")
    ours = here / (path.stem + ".ours.txt")
    if ours.exists():
        text = ours.read_text()
        for imp in ("from tvm.script import ir as I", "from tvm.script import tirx as T"):
            text = text.replace("# " + imp, imp)
        with tempfile.TemporaryDirectory() as tmp:
            src = pathlib.Path(tmp) / (path.stem + "_ours.py")
            src.write_text(text)
            theirs = load(src, "printer_ours_" + path.stem)
            obj2 = getattr(theirs, getattr(mod, "PRINT", "Module"))
            tvm.ir.assert_structural_equal(obj, obj2, map_free_vars=True)
        print("checked", ours.name, "parses equal to", path.name)
