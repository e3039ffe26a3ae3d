"""Dumps Apache TVM 0.27's WGSL for the course's GPU matmul schedules, with
what a host needs to launch it, to a JSON file the GPU benchmark reads
(`codegen-wgsl/benches/matmul_gpu.rs`).

    python tools/bench/tvm_wgsl.py [-o tools/bench/data/tvm_wgsl.json] [--sizes 1024,256]

Per schedule and size: the kernels' WGSL source, entry point, workgroup size
and grid (from the thread bindings of the scheduled function), the storage
bindings (binding index -> parameter index) and the uniform TVM's host
passes (`podArgs`: packGridDimX, the number of workgroups along x). The
committed JSON lets the benchmark run where TVM is not installed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.ensure_tvm()

import tvm  # noqa: E402


def thread_extents(mod) -> dict[str, int]:
    """Thread tag -> extent, from the loops the schedule bound."""
    out: dict[str, int] = {}

    def visit(node):
        if node is None:
            return
        if isinstance(node, tvm.tirx.For) and node.thread_binding is not None:
            tag = node.thread_binding.thread_tag
            ext = int(node.extent)
            if out.get(tag, ext) != ext:
                raise SystemExit(f"{tag} bound with extents {out[tag]} and {ext}")
            out[tag] = ext
        # No statement visitor in 0.27's Python API: walk the fields that
        # hold statements.
        for field in ("body", "block", "init", "then_case", "else_case"):
            child = getattr(node, field, None)
            if isinstance(child, tvm.tirx.Stmt):
                visit(child)
        for child in getattr(node, "seq", None) or []:
            visit(child)

    visit(mod["main"].body)
    return out


BINDING = re.compile(r"@group\(0\) @binding\((\d+)\) var<(storage|uniform)(?:, (read|read_write))?> (\w+) : ")
ENTRY = re.compile(r"@compute @workgroup_size\(([^)]*)\)\s*fn (\w+)\(")


def dump(n: int, case: str) -> dict:
    mod = common.apply_schedule(common.matmul(n), common.gpu_schedule_text(common.GPU_CASES[case]))
    ext = thread_extents(mod)
    t0 = time.perf_counter()
    ex = tvm.compile(mod, target=tvm.target.Target("webgpu", host="llvm"))
    compile_s = time.perf_counter() - t0
    kernels = []
    params = ["A", "B", "C"]
    for m in ex.mod.imports:
        if m.kind != "webgpu":
            continue
        src = m.inspect_source()
        info = json.loads(m.inspect_source("func_info"))
        # The source holds every kernel, each after a `// Function: NAME` header.
        parts = re.split(r"^// Function: (\w+)\n//-+\n", src, flags=re.M)
        bodies = {}
        for name, body in zip(parts[1::2], parts[2::2]):
            if body.strip():
                bodies[name] = body.strip() + "\n"
        for name, fi in info.items():
            wgsl = bodies[name]
            entry = ENTRY.search(wgsl)
            wg = [int(x.strip().rstrip("u")) for x in entry.group(1).split(",")]
            while len(wg) < 3:
                wg.append(1)
            grid = [ext.get("blockIdx.x", 1), ext.get("blockIdx.y", 1), ext.get("blockIdx.z", 1)]
            want_wg = [ext.get("threadIdx.x", 1), ext.get("threadIdx.y", 1), ext.get("threadIdx.z", 1)]
            if wg != want_wg:
                raise SystemExit(f"{case}: workgroup_size {wg} but thread extents {want_wg}")
            storage, uniform = [], None
            handles = [i for i, t in enumerate(fi["arg_types"]) if t == "handle"]
            for b in BINDING.finditer(wgsl):
                idx, kind, access, var = int(b.group(1)), b.group(2), b.group(3), b.group(4)
                if kind == "uniform":
                    uniform = idx
                    continue
                # TVM binds the buffer arguments in order: binding k = k-th handle.
                param = handles[idx]
                storage.append({"binding": idx, "param": param, "name": var,
                                "read_write": access == "read_write"})
                assert var.startswith(params[param]), (var, params[param])
            pod = re.search(r"struct PODArgs \{([^}]*)\}", wgsl)
            fields = re.findall(r"(\w+)\s*:", pod.group(1)) if pod else []
            if fields and fields != ["packGridDimX"]:
                raise SystemExit(f"{case}: unexpected uniform fields {fields}")
            kernels.append({
                "name": name,
                "entry": entry.group(2),
                "wgsl": wgsl,
                "workgroup_size": wg,
                "grid": grid,
                "storage": storage,
                # packGridDimX: the kernel returns for workgroups whose packed
                # x index is greater than this (TVM's host passes grid x - 1).
                "uniform_binding": uniform,
                "uniform": [grid[0] - 1] if uniform is not None else [],
                "launch_param_tags": fi["launch_param_tags"],
            })
    return {"n": n, "schedule": case, "tvm_version": tvm.__version__,
            "compile_s": compile_s, "kernels": kernels}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--out", default=os.path.join(common.HERE, "data", "tvm_wgsl.json"))
    ap.add_argument("--sizes", default="1024,256")
    args = ap.parse_args()
    out = []
    for n in [int(s) for s in args.sizes.split(",")]:
        for case in common.GPU_CASES:
            d = dump(n, case)
            print(f"{case} n={n}: {len(d['kernels'])} kernel(s), grid {d['kernels'][0]['grid']}, "
                  f"workgroup {d['kernels'][0]['workgroup_size']}, tvm.compile {d['compile_s'] * 1e3:.0f} ms")
            out.append(d)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"generator": "tools/bench/tvm_wgsl.py", "cases": out}, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
