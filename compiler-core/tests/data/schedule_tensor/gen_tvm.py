"""Regenerates TVM 0.27's results for the rfactor / blockize / tensorize tests.

    /root/.cache/tessel-tvm-venv/bin/python compiler-core/tests/data/schedule_tensor/gen_tvm.py [CASE...]

Each case is `<case>.py` (the program before, in the course dialect) and
`<case>.sched.py` (schedule calls in the form `print(sch.trace)` shows, with
`sch.get_block`). `<case>.intrin.py`, when present, defines tensor intrinsics
as pairs of functions `NAME_desc` / `NAME_impl`, registered under NAME.

Comment lines at the top of `<case>.sched.py` steer this script and the test:

* `# program: FILE` / `# intrin: FILE` — take the program / the intrinsics
  from FILE (in this directory) instead of `<case>.py` / `<case>.intrin.py`.

* `# expect-error: TEXT` — the schedule must fail; Tessel's message contains
  TEXT. This script writes TVM's message to `<case>.tvm_error.txt` (and fails
  if TVM accepts the schedule).
* `# tvm: skip REASON` — TVM cannot run this case (tensorize segfaults in
  0.27: it deep-copies the intrinsic through `save_json`, which crashes on
  any object in this build). `<case>.after.py` is then written by hand; this
  script only checks that TVM parses it.
* `# tvm: emulate-tensorize` — TVM runs the schedule up to each
  `sch.tensorize(...)`; that call is carried out by `emulate_tensorize`
  below: TVM 0.27's Tensorize steps after the pattern match (match buffers
  from the block's regions, the implementation's body), written with TVM's
  own IR objects, so `<case>.after.py` is still TVM's printing of TVM's IR.
  No trace files are written for these.
* `# tvm: differs REASON` — with `expect-error`: TVM accepts the schedule but
  Tessel deliberately refuses it (REASON says why, e.g. TVM drops a
  statement).

Otherwise it writes, from TVM:

* `<case>.after.py` — `sch.mod.script()` turned back into the course dialect
  (`tir`, `T.block`, `T.alloc_buffer`, `tir.noalias`);
* `<case>.trace.py` — `print(sch.trace)` in the course dialect (`get_block`);
* `<case>.trace.json` — `sch.trace.as_json()` (TVM's JSON shape).
"""
import json
import pathlib
import re
import sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[3] / "tools" / "tvm_oracle"))

from tvm_compat import parse_tvm, parse_tvm_all, to_tvm027  # noqa: E402

import tvm  # noqa: E402
from tvm import s_tir  # noqa: E402


def course_dialect(text: str) -> str:
    """TVM 0.27's printing in the course book's spelling."""
    return (
        text.replace("# from tvm.script import tirx as T", "# from tvm.script import tir as T")
        .replace("# from tvm.tirx.layout import Axis\n", "")
        .replace("@T.prim_func(s_tir=True)", "@T.prim_func")
        .replace("T.sblock_alloc_buffer(", "T.alloc_buffer(")
        .replace("T.sblock_attr(", "T.block_attr(")
        .replace("T.sblock(", "T.block(")
        .replace('# with T.sblock("root")', '# with T.block("root")')
        .replace('"tirx.noalias"', '"tir.noalias"')
    )


def trace_course_dialect(text: str) -> str:
    return (
        text.replace("# from tvm import s_tir", "# from tvm import tir")
        .replace("(sch: s_tir.Schedule)", "(sch: tir.Schedule)")
        .replace("sch.get_sblock(", "sch.get_block(")
    )


def to_json_value(o):
    """`trace.as_json()` holds TVM objects; this turns them into plain JSON values."""
    if o is None or isinstance(o, (bool, int, float, str)):
        return o
    if isinstance(o, tvm.tirx.IntImm):
        return bool(o.value) if str(o.ty) == "bool" else int(o.value)
    if isinstance(o, tvm.tirx.FloatImm):
        return float(o.value)
    return [to_json_value(x) for x in o]


def _buf(region):
    """The buffer of a region (`source` in TVM 0.27, `buffer` before)."""
    src = getattr(region, "source", None)
    return src if src is not None else region.buffer


def _lookup(pairs, key):
    for k, v in pairs:
        if k.same_as(key):
            return v
    raise KeyError(str(key))


def emulate_tensorize(sch, block_or_loop, tensor_intrin, preserve_unit_iters=True):
    """TVM 0.27's `Tensorize` (src/s_tir/schedule/primitive/blockize_tensorize.cc)
    from its step 3 on: the real one deep-copies the intrinsic through
    `save_json`, which segfaults in this build. The description is assumed to
    match (the Rust tests check the matching); the description's buffers map
    to the block's write then read regions in order, as the comparator maps
    them."""
    if isinstance(block_or_loop, s_tir.schedule.LoopRV):
        block_or_loop = sch.blockize(block_or_loop, preserve_unit_iters=preserve_unit_iters)
    intrin = s_tir.TensorIntrin.get(tensor_intrin)
    desc, impl = intrin.desc, intrin.impl
    block = sch.get(block_or_loop)
    dblock = desc.body.block
    rhs_map, base = [], []
    for lhs, rhs in list(zip(block.writes, dblock.writes)) + list(zip(block.reads, dblock.reads)):
        if not any(k.same_as(_buf(rhs)) for k, _ in rhs_map):
            rhs_map.append((_buf(rhs), _buf(lhs)))
        if not any(k.same_as(_buf(lhs)) for k, _ in base):
            base.append((_buf(lhs), [r.min for r in lhs.region]))
    impl_block = impl.body.block
    impl_region = []
    for r in list(impl_block.reads) + list(impl_block.writes):
        if not any(k.same_as(_buf(r)) for k, _ in impl_region):
            impl_region.append((_buf(r), r.region))
    match_buffers = []
    for dp, ip in zip(desc.params, impl.params):
        # TVM 0.27's parameters are the buffers themselves (no buffer_map).
        ib, db = ip, dp
        cur = _lookup(rhs_map, db)
        old = _lookup(impl_region, ib)
        mins = _lookup(base, cur)
        offset = len(mins) - len(old)
        region = [tvm.ir.Range.from_min_extent(m, tvm.tirx.IntImm(str(m.ty), 1)) for m in mins[:offset]]
        region += [tvm.ir.Range.from_min_extent(m, r.extent) for m, r in zip(mins[offset:], old)]
        match_buffers.append(s_tir.MatchBufferRegion(ib, tvm.tirx.BufferRegion(cur, region)))
    annotations = dict(block.annotations)
    for k, v in impl_block.annotations.items():
        annotations.setdefault(k, v)
    new = s_tir.SBlock(
        block.iter_vars, block.reads, block.writes, block.name_hint, impl_block.body,
        block.init, block.alloc_buffers, match_buffers, annotations,
    )
    sch.state.replace(sch.get_sref(block_or_loop), new, {block: new})


def directives(sched: str) -> dict:
    out = {}
    for line in sched.splitlines():
        m = re.match(r"#\s*(expect-error|tvm|program|intrin):\s*(.*)", line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def run_case(case: str) -> None:
    sched = (here / f"{case}.sched.py").read_text()
    d = directives(sched)
    src = (here / d.get("program", f"{case}.py")).read_text()
    if d.get("tvm", "").startswith("skip") and "expect-error" in d:
        print(f"{case}: skipped ({d['tvm']})")
        return
    if d.get("tvm", "").startswith("skip"):
        after = (here / f"{case}.after.py").read_text()
        parse_tvm(to_tvm027(after))
        print(f"{case}: skipped (hand-written {case}.after.py parses in TVM)")
        return
    intrin = here / d.get("intrin", f"{case}.intrin.py")
    if intrin.exists():
        funcs = parse_tvm_all(to_tvm027(intrin.read_text()))
        for name in funcs:
            if name.endswith("_desc"):
                base = name[: -len("_desc")]
                s_tir.TensorIntrin.register(base, funcs[name], funcs[base + "_impl"], override=True)
    mod = parse_tvm(to_tvm027(src))
    if isinstance(mod, tvm.tirx.PrimFunc):
        mod = tvm.IRModule({"main": mod})
    sch = s_tir.Schedule(mod)
    code = sched.replace("sch.get_block(", "sch.get_sblock(")
    emulate = d.get("tvm", "").startswith("emulate-tensorize")
    if emulate:
        code = code.replace("sch.tensorize(", "emulate_tensorize(sch, ")
    try:
        exec(compile(code, f"{case}.sched.py", "exec"), {"sch": sch, "emulate_tensorize": emulate_tensorize})
    except Exception as e:  # noqa: BLE001 - TVM raises several kinds
        if "expect-error" not in d:
            raise
        msg = str(e)
        tail = msg.split("Error message:")[-1].strip()
        (here / f"{case}.tvm_error.txt").write_text(tail + "\n")
        print(f"{case}: TVM rejects it too")
        return
    if "expect-error" in d:
        if d.get("tvm", "").startswith("differs"):
            print(f"{case}: TVM accepts it; Tessel deliberately refuses ({d['tvm']})")
            return
        sys.exit(f"{case}: TVM accepts a schedule the test expects to fail")
    (here / f"{case}.after.py").write_text(course_dialect(sch.mod.script()) + "\n")
    if emulate:
        print(f"{case}: wrote after (tensorize emulated)")
        return
    (here / f"{case}.trace.py").write_text(trace_course_dialect(str(sch.trace)) + "\n")
    (here / f"{case}.trace.json").write_text(json.dumps(to_json_value(sch.trace.as_json())) + "\n")
    print(f"{case}: wrote after/trace/json")


def main() -> None:
    cases = sys.argv[1:] or sorted(p.name[: -len(".sched.py")] for p in here.glob("*.sched.py"))
    for case in cases:
        run_case(case)


if __name__ == "__main__":
    main()
