//! `infer_access_regions` against what TVM 0.27's TVMScript parser fills in
//! for the same blocks (printed with the oracle; expected strings below).

use crate::arith_util;

use arith_util::print;
use compiler_core::analysis::regions::infer_access_regions;
use compiler_core::ir::{
    Annotations, BinOp, Block, BlockRealize, Buffer, BufferRegion, CmpOp, DataType, Expr, For,
    ForKind, IterKind, IterVar, MatchBufferRegion, Range, Stmt, StmtKind, Var,
};

fn i(v: i64) -> Expr {
    Expr::i32(v)
}
fn add(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::Add, a, b)
}
fn mul(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::Mul, a, b)
}
fn buf(name: &str, shape: &[i64]) -> Buffer {
    Buffer::new(name, DataType::f32(), shape.iter().map(|s| i(*s)).collect())
}
fn store(b: &Buffer, idx: Vec<Expr>, value: Expr) -> Stmt {
    Stmt::from_kind(StmtKind::Store {
        buffer: b.clone(),
        value,
        indices: idx,
    })
}
fn for_(v: &Var, ext: i64, body: Stmt) -> Stmt {
    Stmt::from_kind(StmtKind::For(For {
        loop_var: v.clone(),
        min: i(0),
        extent: i(ext),
        kind: ForKind::Serial,
        thread_tag: None,
        annotations: Annotations::new(),
        body,
    }))
}
fn iv(v: &Var, ext: i64, kind: IterKind) -> IterVar {
    IterVar {
        var: v.clone(),
        dom: Range::from_extent(i(ext)),
        kind,
    }
}
fn block(name: &str, iter_vars: Vec<IterVar>, init: Option<Stmt>, body: Stmt) -> Block {
    Block {
        name: name.into(),
        iter_vars,
        reads: vec![],
        writes: vec![],
        alloc_buffers: vec![],
        match_buffers: vec![],
        annotations: Annotations::new(),
        init,
        body,
        span: Default::default(),
    }
}
fn var(name: &str) -> Var {
    Var::new(name, DataType::i32())
}

fn region_str(r: &BufferRegion) -> String {
    let dims: Vec<String> = r
        .region
        .iter()
        .map(|rg| {
            if rg.extent.as_int() == Some(1) {
                print(&rg.min)
            } else {
                let end = compiler_core::arith::Analyzer::new()
                    .simplify(&add(rg.min.clone(), rg.extent.clone()));
                format!("{}:{}", print(&rg.min), print(&end))
            }
        })
        .collect();
    format!("{}[{}]", r.buffer.name, dims.join(", "))
}

fn show(b: &Block) -> String {
    let (r, w) = infer_access_regions(b);
    let r: Vec<String> = r.iter().map(region_str).collect();
    let w: Vec<String> = w.iter().map(region_str).collect();
    format!("T.reads({})\nT.writes({})", r.join(", "), w.join(", "))
}

#[test]
fn matmul_with_init_reads_operands_only() {
    // C[vi, vj] = D[vi] in init; C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk] + A[vi, vk + 1]
    let (a, b, c, d) = (
        buf("A", &[128, 128]),
        buf("B", &[128, 128]),
        buf("C", &[128, 128]),
        buf("D", &[128]),
    );
    let (vi, vj, vk) = (var("vi"), var("vj"), var("vk"));
    let ld = |bf: &Buffer, idx: Vec<Expr>| Expr::load(bf, idx);
    let init = store(
        &c,
        vec![vi.to_expr(), vj.to_expr()],
        ld(&d, vec![vi.to_expr()]),
    );
    let value = Expr::binary(
        BinOp::Add,
        Expr::binary(
            BinOp::Add,
            ld(&c, vec![vi.to_expr(), vj.to_expr()]),
            Expr::binary(
                BinOp::Mul,
                ld(&a, vec![vi.to_expr(), vk.to_expr()]),
                ld(&b, vec![vj.to_expr(), vk.to_expr()]),
            ),
        ),
        ld(&a, vec![vi.to_expr(), add(vk.to_expr(), i(1))]),
    );
    let body = store(&c, vec![vi.to_expr(), vj.to_expr()], value);
    let blk = block(
        "C",
        vec![
            iv(&vi, 128, IterKind::Spatial),
            iv(&vj, 128, IterKind::Spatial),
            iv(&vk, 128, IterKind::Reduce),
        ],
        Some(init),
        body,
    );
    assert_eq!(
        show(&blk),
        "T.reads(D[vi], A[vi, vk:vk + 2], B[vj, vk])\nT.writes(C[vi, vj])"
    );
}

#[test]
fn update_without_init_reads_and_writes_the_output() {
    let (a, c) = (buf("A", &[128, 128]), buf("C", &[128, 128]));
    let (vi, vj) = (var("vi"), var("vj"));
    let value = Expr::binary(
        BinOp::Add,
        Expr::load(&c, vec![vi.to_expr(), vj.to_expr()]),
        Expr::load(&a, vec![vi.to_expr(), vj.to_expr()]),
    );
    let blk = block(
        "C",
        vec![
            iv(&vi, 128, IterKind::Spatial),
            iv(&vj, 128, IterKind::Reduce),
        ],
        None,
        store(&c, vec![vi.to_expr(), vj.to_expr()], value),
    );
    assert_eq!(
        show(&blk),
        "T.reads(C[vi, vj], A[vi, vj])\nT.writes(C[vi, vj])"
    );
}

#[test]
fn vector_add_is_pointwise() {
    let (a, b, c) = (buf("A", &[128]), buf("B", &[128]), buf("C", &[128]));
    let vi = var("vi");
    let value = Expr::binary(
        BinOp::Add,
        Expr::load(&a, vec![vi.to_expr()]),
        Expr::load(&b, vec![vi.to_expr()]),
    );
    let blk = block(
        "C",
        vec![iv(&vi, 128, IterKind::Spatial)],
        None,
        store(&c, vec![vi.to_expr()], value),
    );
    assert_eq!(show(&blk), "T.reads(A[vi], B[vi])\nT.writes(C[vi])");
}

#[test]
fn inner_loop_spans_its_range() {
    // for k in range(4): D[vi * 4 + k] = A[vi, k] + A[vi, k * 2 + 1] + B[vi // 2, vi % 2 + k]
    let (a, b, d) = (
        buf("A", &[128, 128]),
        buf("B", &[128, 128]),
        buf("D", &[128]),
    );
    let (vi, k) = (var("vi"), var("k"));
    let value = add(
        add(
            Expr::load(&a, vec![vi.to_expr(), k.to_expr()]),
            Expr::load(&a, vec![vi.to_expr(), add(mul(k.to_expr(), i(2)), i(1))]),
        ),
        Expr::load(
            &b,
            vec![
                Expr::binary(BinOp::FloorDiv, vi.to_expr(), i(2)),
                add(
                    Expr::binary(BinOp::FloorMod, vi.to_expr(), i(2)),
                    k.to_expr(),
                ),
            ],
        ),
    );
    let body = for_(
        &k,
        4,
        store(&d, vec![add(mul(vi.to_expr(), i(4)), k.to_expr())], value),
    );
    let blk = block("V", vec![iv(&vi, 32, IterKind::Spatial)], None, body);
    assert_eq!(
        show(&blk),
        "T.reads(A[vi, 0:8], B[vi // 2, vi % 2:vi % 2 + 4])\nT.writes(D[vi * 4:vi * 4 + 4])"
    );
}

#[test]
fn allocated_buffers_are_excluded_and_conditions_narrow_loops() {
    // X local; for k: X[k] = A[vi, k]; for k: if k < 2: D[vi * 4 + k] = X[k] + B[k, k]
    let (a, b, d) = (
        buf("A", &[128, 128]),
        buf("B", &[128, 128]),
        buf("D", &[128]),
    );
    let x = buf("X", &[4]);
    let (vi, k1, k2) = (var("vi"), var("k"), var("k"));
    let s1 = for_(
        &k1,
        4,
        store(
            &x,
            vec![k1.to_expr()],
            Expr::load(&a, vec![vi.to_expr(), k1.to_expr()]),
        ),
    );
    let cond = Expr::cmp(CmpOp::Lt, k2.to_expr(), i(2));
    let inner = store(
        &d,
        vec![add(mul(vi.to_expr(), i(4)), k2.to_expr())],
        add(
            Expr::load(&x, vec![k2.to_expr()]),
            Expr::load(&b, vec![k2.to_expr(), k2.to_expr()]),
        ),
    );
    let s2 = for_(
        &k2,
        4,
        Stmt::from_kind(StmtKind::If {
            cond,
            then: inner,
            otherwise: None,
        }),
    );
    let mut blk = block(
        "W",
        vec![iv(&vi, 32, IterKind::Spatial)],
        None,
        Stmt::seq(vec![s1, s2]),
    );
    blk.alloc_buffers.push(x);
    assert_eq!(
        show(&blk),
        "T.reads(A[vi, 0:4], B[0:2, 0:2])\nT.writes(D[vi * 4:vi * 4 + 2])"
    );
}

#[test]
fn nested_block_regions_are_relaxed_over_outer_loops() {
    // outer: for i in range(4): inner(vi = i): D[vi] = A[vi, 0]
    let (a, d) = (buf("A", &[128, 128]), buf("D", &[128]));
    let (i_, vi) = (var("i"), var("vi"));
    let mut inner = block(
        "inner",
        vec![iv(&vi, 4, IterKind::Spatial)],
        None,
        store(
            &d,
            vec![vi.to_expr()],
            Expr::load(&a, vec![vi.to_expr(), i(0)]),
        ),
    );
    let (r, w) = infer_access_regions(&inner);
    inner.reads = r;
    inner.writes = w;
    let realize = Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
        iter_values: vec![i_.to_expr()],
        predicate: Expr::bool(true),
        block: inner,
    }));
    let outer = block("outer", vec![], None, for_(&i_, 4, realize));
    assert_eq!(show(&outer), "T.reads(A[0:4, 0])\nT.writes(D[0:4])");
}

#[test]
fn match_buffer_accesses_are_accesses_of_the_source_region() {
    // B_view = T.match_buffer(B[vi, vj * 2:vj * 2 + 2], (2,)); B_view[0] = A[vi, vj];
    // A_view = T.match_buffer(A[vi, 0:4], (4,)); C[vi, vj] = A_view[1]:
    // TVM 0.27 maps `A_view[1]` to `A[vi, 1]` and `B_view[0]` to `B[vi, vj * 2]`: it fills in
    // T.reads(A[vi, T.min(vj, 1):T.min(vj, 1) + (T.max(vj, 1) + 1 - T.min(vj, 1))]) (the same
    // region) and T.writes(B[vi, vj * 2], C[vi, vj]).
    let (a, b, c) = (buf("A", &[8, 16]), buf("B", &[8, 32]), buf("C", &[8, 16]));
    let (b_view, a_view) = (buf("B_view", &[2]), buf("A_view", &[4]));
    let (vi, vj) = (var("vi"), var("vj"));
    let source = |bf: &Buffer, dims: Vec<(Expr, i64)>| BufferRegion {
        buffer: bf.clone(),
        region: dims
            .into_iter()
            .map(|(min, ext)| Range::new(min, i(ext)))
            .collect(),
    };
    let body = Stmt::seq(vec![
        store(
            &b_view,
            vec![i(0)],
            Expr::load(&a, vec![vi.to_expr(), vj.to_expr()]),
        ),
        store(
            &c,
            vec![vi.to_expr(), vj.to_expr()],
            Expr::load(&a_view, vec![i(1)]),
        ),
    ]);
    let mut blk = block(
        "B",
        vec![
            iv(&vi, 8, IterKind::Spatial),
            iv(&vj, 16, IterKind::Spatial),
        ],
        None,
        body,
    );
    blk.match_buffers = vec![
        MatchBufferRegion {
            buffer: b_view,
            source: source(&b, vec![(vi.to_expr(), 1), (mul(vj.to_expr(), i(2)), 2)]),
        },
        MatchBufferRegion {
            buffer: a_view,
            source: source(&a, vec![(vi.to_expr(), 1), (i(0), 4)]),
        },
    ];
    assert_eq!(
        show(&blk),
        "T.reads(A[vi, T.min(vj, 1):T.max(vj, 1) + 1])\nT.writes(B[vi, vj * 2], C[vi, vj])"
    );
}
