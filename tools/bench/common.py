"""Shared by the benchmark's TVM scripts: the matmul program and the
schedules, read from the same files the Rust benchmarks read, so TVM and
Tessel compile exactly the same schedule."""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "tvm_oracle"))

from _tvm_python import ensure_tvm  # noqa: E402

# The CPU schedules (Tessel's `codegen-wasm/benches/matmul.rs` reads them too).
CPU_SCHEDULES = {
    "a": None,
    "b": os.path.join(HERE, "schedules", "cpu_blocking.py"),
    "c": os.path.join(HERE, "schedules", "cpu_hand.py"),
}
# The GPU schedules: the course's schedule cases (book ch. 6.1).
GPU_CASES = {
    "blocking": "book_gpu_matmul_blocking",
    "blocking_with_shared": "book_gpu_matmul_blocking_with_shared",
}


def gpu_schedule_text(case: str) -> str:
    path = os.path.join(ROOT, "compiler-core", "tests", "data", "schedule", case + ".py")
    with open(path) as f:
        text = f.read()
    return text.split("# --- schedule ---", 1)[1].split("# --- expect-error", 1)[0]


def cpu_schedule_text(key: str) -> str | None:
    path = CPU_SCHEDULES[key]
    if path is None:
        return None
    with open(path) as f:
        return f.read()


def matmul(n: int):
    """The course's matmul (MyModuleMatmul) at size n, as a TVM 0.27 IRModule."""
    import tvm
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def main(a: T.handle, b: T.handle, c: T.handle):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        A = T.match_buffer(a, (n, n), "float32")
        B = T.match_buffer(b, (n, n), "float32")
        C = T.match_buffer(c, (n, n), "float32")
        for i, j, k in T.grid(n, n, n):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    return tvm.IRModule({"main": main})


def apply_schedule(mod, text: str | None):
    """Runs schedule text written for the course's API on TVM 0.27."""
    import tvm

    sch = tvm.s_tir.Schedule(mod)
    if text:
        text = text.replace("sch.get_block(", "sch.get_sblock(")
        exec(compile(text, "<schedule>", "exec"), {"sch": sch, "tvm": tvm})
    return sch.mod
