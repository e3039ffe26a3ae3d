//! Random, mostly ill-formed IR: the verifier and structural equality must
//! never panic, whatever they are given (odd dtypes, wrong ranks, unbound
//! variables and buffers, reused definitions, mismatched bindings…).

use std::collections::BTreeMap;

use compiler_core::analysis::structural_equal::{
    assert_structural_equal, prim_func_equal, EqualOptions,
};
use compiler_core::analysis::verify::verify_prim_func;
use compiler_core::diag::Span;
use compiler_core::ir::*;
use proptest::prelude::*;

/// Builds IR from a stream of choices.
struct Gen<'a> {
    bytes: &'a [u8],
    pos: usize,
    vars: Vec<Var>,
    bufs: Vec<Buffer>,
}

impl Gen<'_> {
    fn next(&mut self) -> u8 {
        let b = self.bytes.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    fn pick<T: Clone>(&mut self, items: &[T]) -> Option<T> {
        if items.is_empty() {
            return None;
        }
        let k = self.next() as usize % items.len();
        Some(items[k].clone())
    }
    fn span(&mut self) -> Span {
        let s = self.next() as u32 * 7;
        Span::new(s, s + (self.next() as u32 % 5))
    }
    fn dtype(&mut self) -> DataType {
        match self.next() % 9 {
            0 | 1 => DataType::i32(),
            2 => DataType::i64(),
            3 => DataType::f32(),
            4 => DataType::bool(),
            5 => DataType::float(16),
            6 => DataType::int(8),
            7 => DataType::i32().with_lanes(4),
            _ => DataType {
                kind: ScalarKind::UInt,
                bits: self.next() % 3,
                lanes: self.next() as u16 % 2,
            },
        }
    }
    fn var(&mut self) -> Var {
        if self.next().is_multiple_of(3) || self.vars.is_empty() {
            let dt = self.dtype();
            let v = Var::new(format!("v{}", self.vars.len()), dt);
            self.vars.push(v.clone());
            v
        } else {
            self.pick(&self.vars.clone()).expect("non-empty")
        }
    }
    fn buffer(&mut self) -> Buffer {
        if self.next().is_multiple_of(4) || self.bufs.is_empty() {
            let rank = self.next() as usize % 3;
            let shape = (0..rank).map(|_| self.expr(1)).collect();
            let dt = self.dtype();
            let b = Buffer::new(format!("B{}", self.bufs.len()), dt, shape);
            self.bufs.push(b.clone());
            b
        } else {
            self.pick(&self.bufs.clone()).expect("non-empty")
        }
    }
    fn expr(&mut self, depth: usize) -> Expr {
        let sp = self.span();
        let dt = self.dtype();
        let choice = if depth == 0 {
            self.next() % 3
        } else {
            self.next() % 14
        };
        let kind = match choice {
            0 => ExprKind::Var(self.var()),
            1 => ExprKind::Int(self.next() as i64 * 37 - 900),
            2 => ExprKind::Float(self.next() as f64 / 3.0),
            3 => ExprKind::Binary(
                [BinOp::Add, BinOp::Mul, BinOp::FloorDiv, BinOp::Max][self.next() as usize % 4],
                self.expr(depth - 1),
                self.expr(depth - 1),
            ),
            4 => ExprKind::Cmp(CmpOp::Lt, self.expr(depth - 1), self.expr(depth - 1)),
            5 => ExprKind::And(self.expr(depth - 1), self.expr(depth - 1)),
            6 => ExprKind::Not(self.expr(depth - 1)),
            7 => ExprKind::Select {
                cond: self.expr(depth - 1),
                then: self.expr(depth - 1),
                otherwise: self.expr(depth - 1),
            },
            8 => ExprKind::Cast(self.expr(depth - 1)),
            9 => {
                let n = self.next() as usize % 4;
                let op = [Intrinsic::Exp, Intrinsic::IfThenElse, Intrinsic::Pow]
                    [self.next() as usize % 3]
                    .clone();
                ExprKind::Call {
                    op,
                    args: (0..n).map(|_| self.expr(depth - 1)).collect(),
                }
            }
            10 => {
                let buffer = self.buffer();
                let n = self.next() as usize % 3;
                ExprKind::Load {
                    buffer,
                    indices: (0..n).map(|_| self.expr(depth - 1)).collect(),
                }
            }
            11 => ExprKind::Let {
                var: self.var(),
                value: self.expr(depth - 1),
                body: self.expr(depth - 1),
            },
            12 => ExprKind::Ramp {
                base: self.expr(depth - 1),
                stride: self.expr(depth - 1),
            },
            _ => ExprKind::Broadcast(self.expr(depth - 1)),
        };
        Expr::new(kind, dt, sp)
    }
    fn range(&mut self) -> Range {
        Range::new(self.expr(1), self.expr(1))
    }
    fn region(&mut self) -> BufferRegion {
        let buffer = self.buffer();
        let n = self.next() as usize % 3;
        BufferRegion {
            buffer,
            region: (0..n).map(|_| self.range()).collect(),
        }
    }
    fn stmt(&mut self, depth: usize) -> Stmt {
        let sp = self.span();
        let choice = if depth == 0 {
            self.next() % 2
        } else {
            self.next() % 8
        };
        let kind = match choice {
            0 => {
                let buffer = self.buffer();
                let n = self.next() as usize % 3;
                StmtKind::Store {
                    buffer,
                    value: self.expr(2),
                    indices: (0..n).map(|_| self.expr(2)).collect(),
                }
            }
            1 => StmtKind::Evaluate(self.expr(2)),
            2 => {
                let kind = [ForKind::Serial, ForKind::Parallel, ForKind::ThreadBinding]
                    [self.next() as usize % 3];
                let thread_tag = (self.next().is_multiple_of(2)).then(|| "threadIdx.x".to_string());
                StmtKind::For(For {
                    loop_var: self.var(),
                    min: self.expr(1),
                    extent: self.expr(1),
                    kind,
                    thread_tag,
                    annotations: BTreeMap::new(),
                    body: self.stmt(depth - 1),
                })
            }
            3 => {
                let n = self.next() as usize % 3;
                let iter_vars: Vec<IterVar> = (0..n)
                    .map(|_| IterVar {
                        var: self.var(),
                        dom: self.range(),
                        kind: [IterKind::Spatial, IterKind::Reduce][self.next() as usize % 2],
                    })
                    .collect();
                let m = self.next() as usize % 3;
                let iter_values = (0..m).map(|_| self.expr(2)).collect();
                let reads = (0..self.next() as usize % 2)
                    .map(|_| self.region())
                    .collect();
                let writes = (0..self.next() as usize % 2)
                    .map(|_| self.region())
                    .collect();
                let alloc_buffers = (0..self.next() as usize % 2)
                    .map(|_| self.buffer())
                    .collect();
                let match_buffers = (0..self.next() as usize % 2)
                    .map(|_| MatchBufferRegion {
                        buffer: self.buffer(),
                        source: self.region(),
                    })
                    .collect();
                let init = (self.next().is_multiple_of(2)).then(|| self.stmt(depth - 1));
                let span = self.span();
                StmtKind::BlockRealize(BlockRealize {
                    iter_values,
                    predicate: self.expr(1),
                    block: Block {
                        name: format!("b{}", self.next() % 3),
                        iter_vars,
                        reads,
                        writes,
                        alloc_buffers,
                        match_buffers,
                        annotations: BTreeMap::new(),
                        init,
                        body: self.stmt(depth - 1),
                        span,
                    },
                })
            }
            4 => StmtKind::Let {
                var: self.var(),
                value: self.expr(2),
                body: self.stmt(depth - 1),
            },
            5 => StmtKind::If {
                cond: self.expr(2),
                then: self.stmt(depth - 1),
                otherwise: (self.next().is_multiple_of(2)).then(|| self.stmt(depth - 1)),
            },
            6 => {
                let n = self.next() as usize % 4;
                StmtKind::Seq((0..n).map(|_| self.stmt(depth - 1)).collect())
            }
            _ => StmtKind::Allocate {
                buffer: self.buffer(),
                body: self.stmt(depth - 1),
            },
        };
        Stmt::new(kind, sp)
    }
    fn func(&mut self) -> PrimFunc {
        let mut params = Vec::new();
        let mut buffer_map = Vec::new();
        for _ in 0..self.next() % 3 {
            let v = self.var();
            params.push(v.clone());
            if self.next().is_multiple_of(2) {
                let b = self.buffer();
                buffer_map.push((v, b));
            }
        }
        let body = self.stmt(4);
        let span = self.span();
        PrimFunc {
            params,
            buffer_map,
            body,
            attrs: BTreeMap::new(),
            span,
        }
    }
}

fn gen(bytes: &[u8]) -> PrimFunc {
    Gen {
        bytes,
        pos: 0,
        vars: Vec::new(),
        bufs: Vec::new(),
    }
    .func()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn analyses_never_panic(a in proptest::collection::vec(any::<u8>(), 0..300),
                            b in proptest::collection::vec(any::<u8>(), 0..300)) {
        let f = gen(&a);
        let g = gen(&b);
        let _ = verify_prim_func(&f, "f");
        let _ = verify_prim_func(&g, "g");
        // A function always equals itself.
        prop_assert_eq!(prim_func_equal(&f, &f), Ok(()));
        let _ = prim_func_equal(&f, &g);
        let map = EqualOptions { map_free_vars: true, ignore_global_symbol: true, compare_block_names: true };
        let _ = assert_structural_equal(&f, &g, map);
        if let Err(m) = prim_func_equal(&f, &g) {
            let _ = m.to_string();
        }
    }

    /// The same choices build the same program with fresh variables: equal.
    #[test]
    fn rebuilt_programs_are_equal(a in proptest::collection::vec(any::<u8>(), 0..300)) {
        let f = gen(&a);
        let g = gen(&a);
        let map = EqualOptions { map_free_vars: true, ..Default::default() };
        prop_assert_eq!(assert_structural_equal(&f, &g, map), Ok(()));
    }
}

#[test]
fn generator_makes_substantial_programs() {
    // A cheap LCG over many seeds: the generator must produce programs that
    // exercise the verifier (many diagnostics) rather than trivial ones.
    let mut state: u64 = 0x2545F4914F6CDD1D;
    let mut total = 0;
    for _ in 0..200 {
        let bytes: Vec<u8> = (0..300)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 56) as u8
            })
            .collect();
        let f = gen(&bytes);
        total += verify_prim_func(&f, "f").len();
    }
    assert!(total > 200, "only {total} diagnostics");
}
