"""Apache TVM 0.27 on the CPU, for `cargo xtask bench`: the benchmark's
matmul schedules built with `tvm.compile(mod, target="llvm")` and timed with
`time_evaluator`, and `tvm.compile`'s time for the course programs whose
Tessel compile time the CPU benchmark measures.

    python tools/bench/tvm_cpu.py [--n 1024] [--repeat 3] [--out FILE.tsv] [--skip-run]

Rows written to --out (tab-separated):
    run     KEY  GFLOPS           (KEY: a = no schedule, b = seeds' blocking, c = hand)
    compile LABEL  MS             (median of tvm.compile over --compile-runs)
One thread (TVM_NUM_THREADS=1 unless set), like Tessel's wasm.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("TVM_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.ensure_tvm()

import numpy as np  # noqa: E402
import tvm  # noqa: E402
import tvm_compat  # noqa: E402  (tools/tvm_oracle, on the path via common)

LABELS = {"a": "(a) no schedule", "b": "(b) seeds' blocking", "c": "(c) hand schedule"}


def seed(name: str):
    path = os.path.join(common.ROOT, "compiler-core", "tests", "data", "seeds", name)
    with open(path) as f:
        return tvm_compat.parse_tvm(tvm_compat.to_tvm027(f.read()), name.replace(".", "_"))


def read(path: str) -> str:
    with open(os.path.join(common.HERE, path)) as f:
        return f.read()


def as_module(obj):
    return obj if isinstance(obj, tvm.ir.IRModule) else tvm.IRModule({"main": obj})


# The programs of the CPU benchmark's compile-time table (same labels).
def compile_programs(n: int):
    return [
        ("vector add", lambda: as_module(seed("seed000_01_vecadd.py")), None),
        ("mm_relu", lambda: as_module(seed("seed001_02_mm_relu.py")), None),
        ("mm_relu + book schedule", lambda: as_module(seed("seed001_02_mm_relu.py")),
         read("schedules/mm_relu.py")),
        ("bmm_relu (target)", lambda: as_module(seed("seed001_10_bmm_relu_target.py")), None),
        (f"matmul {n} (a)", lambda: common.matmul(n), None),
        (f"matmul {n} (b) blocking", lambda: common.matmul(n), common.cpu_schedule_text("b")),
        (f"matmul {n} (c) hand", lambda: common.matmul(n), common.cpu_schedule_text("c")),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--compile-runs", type=int, default=5)
    ap.add_argument("--only", default="a,b,c")
    ap.add_argument("--skip-run", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    n = args.n
    rows = []
    if not args.skip_run:
        rng = np.random.default_rng(0)
        a_np = rng.random((n, n), dtype=np.float32)
        b_np = rng.random((n, n), dtype=np.float32)
        want = a_np.astype(np.float64) @ b_np.astype(np.float64)
        dev = tvm.cpu()
        print(f"TVM {tvm.__version__} llvm, f32 matmul {n}^3, TVM_NUM_THREADS={os.environ['TVM_NUM_THREADS']}")
        for key in args.only.split(","):
            mod = common.apply_schedule(common.matmul(n), common.cpu_schedule_text(key))
            ex = tvm.compile(mod, target="llvm")
            a = tvm.runtime.tensor(a_np, dev)
            b = tvm.runtime.tensor(b_np, dev)
            c = tvm.runtime.empty((n, n), "float32", dev)
            reps = 1 if key == "a" else args.repeat
            ev = ex.mod.time_evaluator("main", dev, number=1, repeat=reps)
            t = min(ev(a, b, c).results)
            got = c.numpy()
            err = np.max(np.abs(got - want) / (1 + np.abs(want)))
            if err > 1e-3:
                raise SystemExit(f"{key}: TVM's result is off by {err}")
            gf = 2 * n**3 / t / 1e9
            print(f"{LABELS[key]:<22} {gf:8.2f} GFLOPS ({t:.3f} s, best of {reps})")
            rows.append(f"run\t{key}\t{gf:.4f}")
    print("tvm.compile(target='llvm') time, ms (median of %d)" % args.compile_runs)
    for label, make, sched in compile_programs(n):
        times = []
        for _ in range(args.compile_runs):
            mod = common.apply_schedule(make(), sched)
            t0 = time.perf_counter()
            tvm.compile(mod, target="llvm")
            times.append(time.perf_counter() - t0)
        ms = 1e3 * sorted(times)[len(times) // 2]
        print(f"{label:<26} {ms:8.1f}")
        rows.append(f"compile\t{label}\t{ms:.3f}")
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
