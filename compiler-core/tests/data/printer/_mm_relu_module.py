# Helper for the sched_*.py cases: the mm_relu module from mm_relu.py.
import importlib.util
import pathlib
import sys


def mm_relu():
    path = pathlib.Path(__file__).resolve().parent / "mm_relu.py"
    spec = importlib.util.spec_from_file_location("printer_case_mm_relu_base", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.Module
