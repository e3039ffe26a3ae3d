//! Memory-access pictures checked against the compiler's access regions:
//! the elements one iteration, lane, thread or workgroup touches are the
//! union of the regions `loop_regions` computes for the same point.

use std::collections::BTreeSet;

use compiler_core::ir::{PrimFunc, Stmt, StmtKind};
use tessel_session::loop_regions::{loop_regions, LoopRegions};
use tessel_session::memory_access::{
    flatten, memory_access, AccessError, AccessUnit, GridLayout, MemoryAccess, MemoryScope,
    DEFAULT_BUDGET,
};
use tessel_session::{run_script, ScriptEnv};

use super::script_mode::book;

/// The function `name` after the script's last schedule step.
fn scheduled(source: &str, name: &str) -> PrimFunc {
    let out = run_script(source, &ScriptEnv::default());
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let module = &out.module_snapshots.last().expect("a module").module;
    (**module.get_prim(name).expect("the function")).clone()
}

/// The pre-order number of the loop named `name` (as the playground numbers loops).
fn loop_number(func: &PrimFunc, name: &str) -> usize {
    let mut names = Vec::new();
    fn go(s: &Stmt, names: &mut Vec<String>) {
        if let StmtKind::For(f) = s.kind() {
            names.push(f.loop_var.name().to_string());
        }
        s.for_each_child(|c| go(c, names));
    }
    go(&func.body, &mut names);
    names
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("no loop `{name}` among {names:?}"))
}

/// The row-major offsets the regions of `buffer` with `access` cover.
fn region_cells(regions: &LoopRegions, buffer: &str, access: &str) -> BTreeSet<i64> {
    let mut cells = BTreeSet::new();
    for r in regions
        .regions
        .iter()
        .filter(|r| r.buffer == buffer && r.access == access)
    {
        let boxes = r
            .concrete
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no concrete region", r.text));
        let mut index = vec![0; boxes.len()];
        fill(&r.shape, boxes, 0, &mut index, &mut cells);
    }
    cells
}

fn fill(
    shape: &[i64],
    boxes: &[(i64, i64)],
    dim: usize,
    index: &mut Vec<i64>,
    out: &mut BTreeSet<i64>,
) {
    if dim == boxes.len() {
        out.insert(flatten(shape, index).expect("a region inside its buffer"));
        return;
    }
    let (min, extent) = boxes[dim];
    for i in min..min + extent {
        index[dim] = i;
        fill(shape, boxes, dim + 1, index, out);
    }
}

fn reads(m: &MemoryAccess, buffer: &str) -> BTreeSet<i64> {
    m.buffer(buffer)
        .expect("the buffer")
        .reads
        .iter()
        .copied()
        .collect()
}

fn writes(m: &MemoryAccess, buffer: &str) -> BTreeSet<i64> {
    m.buffer(buffer)
        .expect("the buffer")
        .writes
        .iter()
        .copied()
        .collect()
}

#[test]
fn one_iteration_of_the_books_blocked_matmul_reads_the_regions_tiles() {
    let func = scheduled(&book(), "mm_relu");
    let j0 = loop_number(&func, "j_0");
    for at in [0, 1, 31] {
        let picture = memory_access(
            &func,
            AccessUnit::Iteration { loop_index: j0 },
            at,
            DEFAULT_BUDGET,
        )
        .expect("a picture");
        let regions = loop_regions(&func, j0, at).expect("regions");
        assert_eq!(picture.steps, 32);
        assert_eq!(picture.label, format!("j_0 = {at}"));
        // A[0, 0:128] and B[0:128, 4·at : 4·at + 4], exactly.
        assert_eq!(
            reads(&picture, "A"),
            region_cells(&regions, "A", "read"),
            "A at {at}"
        );
        assert_eq!(
            reads(&picture, "B"),
            region_cells(&regions, "B", "read"),
            "B at {at}"
        );
        assert_eq!(reads(&picture, "A").len(), 128);
        let b = picture.buffer("B").unwrap();
        assert_eq!(b.reads.len(), 128 * 4);
        assert!(b.reads_index(&[127, 4 * at + 3]) && !b.reads_index(&[0, 4 * at + 4]));
        for buffer in ["Y", "C"] {
            assert_eq!(
                writes(&picture, buffer),
                region_cells(&regions, buffer, "write"),
                "{buffer} at {at}"
            );
        }
        // The update reads Y where it writes it (its block names only A
        // and B as reads), and C reads the four Y it was computed from.
        assert!(reads(&picture, "Y").is_subset(&writes(&picture, "Y")));
        assert_eq!(region_cells(&regions, "Y", "read"), writes(&picture, "Y"));
    }
    // The counts: 128 k × 4 j_1 updates each load A, B and Y and store Y;
    // the init stores 4 Y; C loads 4 Y and stores 4 C. All global.
    let picture = memory_access(
        &func,
        AccessUnit::Iteration { loop_index: j0 },
        0,
        DEFAULT_BUDGET,
    )
    .unwrap();
    let global = picture.counts(MemoryScope::Global);
    assert_eq!(global.loads, 3 * 512 + 4);
    assert_eq!(global.stores, 512 + 4 + 4);
    assert_eq!(picture.counts(MemoryScope::Shared).loads, 0);
    assert_eq!(
        picture.buffer("A").unwrap().loads,
        512,
        "A[i, k] is read once per j_1"
    );
}

#[test]
fn a_lane_of_a_vectorized_loop_touches_one_element_of_its_row() {
    let source = format!("{}sch.vectorize(sch.get_loops(block_C)[-1])\n", book());
    let func = scheduled(&source, "mm_relu");
    let lane_loop = loop_number(&func, "ax0");
    for lane in 0..4 {
        let picture = memory_access(
            &func,
            AccessUnit::Lane {
                loop_index: lane_loop,
            },
            lane,
            DEFAULT_BUDGET,
        )
        .expect("a picture");
        let regions = loop_regions(&func, lane_loop, lane).unwrap();
        assert_eq!(picture.steps, 4);
        assert_eq!(reads(&picture, "Y"), region_cells(&regions, "Y", "read"));
        assert_eq!(writes(&picture, "C"), region_cells(&regions, "C", "write"));
        assert_eq!(picture.buffer("C").unwrap().writes, vec![lane]);
        assert!(picture.buffer("A").unwrap().reads.is_empty());
    }
    // A serial loop has no lanes.
    let j0 = loop_number(&func, "j_0");
    let err = memory_access(
        &func,
        AccessUnit::Lane { loop_index: j0 },
        0,
        DEFAULT_BUDGET,
    )
    .unwrap_err();
    assert_eq!(err, AccessError::NotVectorized("j_0".into()));
    assert!(err.to_string().contains("not vectorized"), "{err}");
}

const GPU_SHARED: &str =
    include_str!("../../../web-ui/examples/gpu_matmul_blocking_with_shared_256.py");

#[test]
fn a_gpu_thread_and_workgroup_match_the_regions_of_their_bound_loops() {
    let func = scheduled(GPU_SHARED, "main");
    let thread_loop = loop_number(&func, "i_1_j_1_fused");
    for thread in [0, 9, 63] {
        let picture =
            memory_access(&func, AccessUnit::Thread, thread, DEFAULT_BUDGET).expect("a picture");
        assert_eq!(picture.steps, 64);
        let regions = loop_regions(&func, thread_loop, thread).unwrap();
        // What the thread computes: its 8 × 8 tile of C through C_local,
        // from the shared tiles, exactly as the compute block's regions say.
        assert_eq!(writes(&picture, "C"), region_cells(&regions, "C", "write"));
        assert_eq!(writes(&picture, "C").len(), 64);
        // (Only the compute block reads the shared tiles.)
        for shared in ["A_shared", "B_shared"] {
            assert_eq!(
                reads(&picture, shared),
                region_cells(&regions, shared, "read"),
                "{shared}"
            );
        }
        // The cooperative fetch: each thread brings a 64th of each tile
        // from global memory, where the regions relax every thread's share.
        let a = reads(&picture, "A");
        let a_tiles = region_cells(&regions, "A", "read");
        assert!(
            a.is_subset(&a_tiles) && a.len() * 64 == a_tiles.len(),
            "{} of {}",
            a.len(),
            a_tiles.len()
        );
        // 32 k_0 × 8 k_1 × 8 × 8 updates, each loading A_shared and B_shared.
        let shared = picture.counts(MemoryScope::Shared);
        assert_eq!(shared.loads, 2 * 32 * 8 * 8 * 8);
        assert_eq!(
            shared.stores,
            2 * 32 * 2 * 4,
            "two fetches of 2 × 4 elements per k_0"
        );
        assert_eq!(picture.counts(MemoryScope::Global).stores, 64);
        assert_eq!(picture.counts(MemoryScope::Local).stores, 64 + 32 * 8 * 64);
    }
    let block_loop = loop_number(&func, "j_0");
    for group in [0, 3] {
        let picture =
            memory_access(&func, AccessUnit::Workgroup, group, DEFAULT_BUDGET).expect("a picture");
        assert_eq!(picture.steps, 16);
        let regions = loop_regions(&func, block_loop, group).unwrap();
        for buffer in ["A", "B"] {
            assert_eq!(
                reads(&picture, buffer),
                region_cells(&regions, buffer, "read"),
                "{buffer}"
            );
        }
        assert_eq!(writes(&picture, "C"), region_cells(&regions, "C", "write"));
        assert_eq!(writes(&picture, "C").len(), 64 * 64);
    }
}

#[test]
fn bad_requests_are_refused_with_a_reason() {
    let func = scheduled(&book(), "mm_relu");
    let i = loop_number(&func, "i");
    // One iteration of i runs 32 × (4 + 128 × 4 + 4) loop iterations.
    let err = memory_access(&func, AccessUnit::Iteration { loop_index: i }, 0, 1000).unwrap_err();
    assert_eq!(err, AccessError::OverBudget { budget: 1000 });
    assert!(
        err.to_string().contains("more than 1000 loop iterations"),
        "{err}"
    );
    assert!(memory_access(
        &func,
        AccessUnit::Iteration { loop_index: i },
        0,
        DEFAULT_BUDGET
    )
    .is_ok());
    let err = memory_access(
        &func,
        AccessUnit::Iteration { loop_index: i },
        128,
        DEFAULT_BUDGET,
    )
    .unwrap_err();
    assert!(err.to_string().contains("there are 128"), "{err}");
    let err = memory_access(
        &func,
        AccessUnit::Iteration { loop_index: 99 },
        0,
        DEFAULT_BUDGET,
    )
    .unwrap_err();
    assert_eq!(err, AccessError::NoSuchLoop(99));
    let err = memory_access(&func, AccessUnit::Thread, 0, DEFAULT_BUDGET).unwrap_err();
    assert!(err.to_string().contains("threadIdx"), "{err}");
}

#[test]
fn buffers_lay_out_as_grids() {
    assert_eq!(GridLayout::of(&[128]), GridLayout { rows: 1, cols: 128 });
    assert_eq!(GridLayout::of(&[16, 8]), GridLayout { rows: 16, cols: 8 });
    // Higher dimensions: rows of the last one.
    let g = GridLayout::of(&[2, 3, 4]);
    assert_eq!(g, GridLayout { rows: 6, cols: 4 });
    assert_eq!(g.cell(flatten(&[2, 3, 4], &[1, 2, 3]).unwrap()), (5, 3));
    assert_eq!(flatten(&[2, 3], &[2, 0]), None);
}
