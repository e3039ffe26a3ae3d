//! What `create_prim_func` builds computes what the TE program means: each
//! case runs in the reference interpreter (with region checks) on random
//! inputs and is compared with a plain-Rust computation of the same thing.

use crate::te_cases;

use std::collections::HashMap;

use compiler_core::eval::{random_inputs, run_prim_func, EvalOptions, NDArray};
use compiler_core::te::create_prim_func_with;

/// A dense array of f64 for references.
#[derive(Clone)]
struct Nd {
    shape: Vec<usize>,
    data: Vec<f64>,
}

impl Nd {
    fn of(a: &NDArray) -> Nd {
        Nd {
            shape: a.shape().to_vec(),
            data: a.to_f64_vec(),
        }
    }
    fn zeros(shape: &[usize]) -> Nd {
        Nd {
            shape: shape.to_vec(),
            data: vec![0.0; shape.iter().product()],
        }
    }
    fn flat(&self, ix: &[usize]) -> usize {
        assert_eq!(ix.len(), self.shape.len());
        ix.iter()
            .zip(&self.shape)
            .fold(0, |acc, (i, d)| acc * d + i)
    }
    fn get(&self, ix: &[usize]) -> f64 {
        self.data[self.flat(ix)]
    }
    fn set(&mut self, ix: &[usize], v: f64) {
        let f = self.flat(ix);
        self.data[f] = v;
    }
    /// Fills every element from its index.
    fn fill(shape: &[usize], f: impl Fn(&[usize]) -> f64) -> Nd {
        let mut out = Nd::zeros(shape);
        for_each_index(shape, |ix| out.set(ix, f(ix)));
        out
    }
}

fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut ix = vec![0usize; shape.len()];
    loop {
        f(&ix);
        let mut d = shape.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            ix[d] += 1;
            if ix[d] < shape[d] {
                break;
            }
            ix[d] = 0;
        }
    }
}

type Reference = fn(&[Nd]) -> Vec<(usize, Nd)>;

fn relu(v: f64) -> f64 {
    v.max(0.0)
}

fn matmul(a: &Nd, b: &Nd) -> Nd {
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    Nd::fill(&[m, n], |ix| {
        (0..k)
            .map(|r| a.get(&[ix[0], r]) * b.get(&[r, ix[1]]))
            .sum()
    })
}

fn softmax_rows(x: &Nd, axis: usize) -> Nd {
    let n = x.shape[axis];
    Nd::fill(&x.shape, |ix| {
        let at = |r: usize| {
            let mut j = ix.to_vec();
            j[axis] = r;
            x.get(&j)
        };
        let m = (0..n).map(at).fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = (0..n).map(|r| (at(r) - m).exp()).sum();
        (x.get(ix) - m).exp() / s
    })
}

fn conv2d(
    data: &Nd,
    w: &Nd,
    stride: [usize; 2],
    pad_begin: [i64; 2],
    dil: [usize; 2],
    out: [usize; 2],
) -> Nd {
    let (n, co, ci, kh, kw) = (
        data.shape[0],
        w.shape[0],
        w.shape[1],
        w.shape[2],
        w.shape[3],
    );
    Nd::fill(&[n, co, out[0], out[1]], |ix| {
        let mut s = 0.0;
        for c in 0..ci {
            for r in 0..kh {
                for q in 0..kw {
                    let h = (ix[2] * stride[0] + r * dil[0]) as i64 - pad_begin[0];
                    let x = (ix[3] * stride[1] + q * dil[1]) as i64 - pad_begin[1];
                    if h < 0 || x < 0 || h >= data.shape[2] as i64 || x >= data.shape[3] as i64 {
                        continue;
                    }
                    s += data.get(&[ix[0], c, h as usize, x as usize]) * w.get(&[ix[1], c, r, q]);
                }
            }
        }
        s
    })
}

fn references() -> Vec<(&'static str, Reference)> {
    vec![
        ("seed000_vector_add", |a| {
            vec![(2, Nd::fill(&[128], |i| a[0].get(i) + a[1].get(i)))]
        }),
        ("seed001_relu_1d", |a| {
            vec![(1, Nd::fill(&[10], |i| relu(a[0].get(i))))]
        }),
        ("seed001_relu_2d", |a| {
            vec![(1, Nd::fill(&[10, 20], |i| relu(a[0].get(i))))]
        }),
        ("seed003_matmul_8", |a| vec![(2, matmul(&a[0], &a[1]))]),
        ("seed001_matmul_relu_all", |a| {
            let c = matmul(&a[0], &a[1]);
            let d = Nd::fill(&c.shape, |i| relu(c.get(i)));
            vec![(2, c), (3, d)]
        }),
        ("seed003_linear_relu", |a| {
            let y = Nd::fill(&[16], |i| {
                let s: f64 = (0..8).map(|j| a[0].get(&[i[0], j]) * a[1].get(&[j])).sum();
                relu(s + a[2].get(i))
            });
            vec![(3, y)]
        }),
        ("own_softmax_stages", |a| vec![(1, softmax_rows(&a[0], 1))]),
        ("own_varargs_3d", |a| {
            vec![(1, Nd::fill(&[2, 3, 4], |i| a[0].get(i) * 2.0 + 1.0))]
        }),
        ("own_mixed_varargs", |a| {
            vec![(
                1,
                Nd::fill(&[2, 3, 4], |i| a[0].get(i) - a[0].get(&[i[0], 0, 0])),
            )]
        }),
        ("own_int_ops", |a| {
            let e = Nd::fill(&[8], |i| {
                let v = a[0].get(i) as i64;
                (-v + v.div_euclid(3) + v.rem_euclid(4) + i[0] as i64) as f64
            });
            vec![(1, e)]
        }),
        ("own_int8_cast", |a| {
            vec![(
                1,
                Nd::fill(&[4, 4], |i| a[0].get(i) * a[0].get(&[i[1], i[0]])),
            )]
        }),
        ("own_pad_any", |a| {
            let p = Nd::fill(&[6, 7], |i| {
                if i[0] < 1 || i[0] >= 5 || i[1] < 1 || i[1] >= 6 {
                    0.0
                } else {
                    a[0].get(&[i[0] - 1, i[1] - 1])
                }
            });
            vec![(1, p)]
        }),
        ("own_select", |a| {
            vec![(
                1,
                Nd::fill(&[4, 5], |i| {
                    let v = a[0].get(i);
                    if v > 0.0 {
                        v
                    } else {
                        v * 0.5
                    }
                }),
            )]
        }),
        ("own_index_simplify", |a| {
            vec![(1, Nd::fill(&[2, 5], |i| a[0].get(i)))]
        }),
        ("own_multi_output", |a| {
            vec![
                (1, Nd::fill(&[4, 5], |i| a[0].get(i) + 1.0)),
                (2, Nd::fill(&[4, 5], |i| a[0].get(i) * 2.0)),
            ]
        }),
        ("own_max_min_reduce", |a| {
            let row = |i: usize| (0..5).map(move |k| (i, k));
            vec![
                (
                    1,
                    Nd::fill(&[4], |i| {
                        row(i[0])
                            .map(|(r, k)| a[0].get(&[r, k]))
                            .fold(f64::MIN, f64::max)
                    }),
                ),
                (
                    2,
                    Nd::fill(&[4], |i| {
                        row(i[0])
                            .map(|(r, k)| a[0].get(&[r, k]))
                            .fold(f64::MAX, f64::min)
                    }),
                ),
            ]
        }),
        ("own_reduce_nonzero_min", |a| {
            vec![(
                1,
                Nd::fill(&[4], |i| (1..4).map(|k| a[0].get(&[i[0], k]) * 2.0).sum()),
            )]
        }),
        ("own_scalar_reduce", |a| {
            vec![(1, Nd::fill(&[], |_| a[0].data.iter().sum()))]
        }),
        ("own_scalar_copy", |a| {
            vec![(1, Nd::fill(&[], |_| a[0].get(&[2]) * 3.0))]
        }),
        // TVM 0.27 drops `where=`: every k is summed.
        ("own_where_dropped", |a| {
            vec![(
                1,
                Nd::fill(&[4], |i| (0..5).map(|k| a[0].get(&[i[0], k])).sum()),
            )]
        }),
        ("own_argmax", |a| {
            let (idx, m) = (&a[0], &a[1]);
            let mut ti = Nd::zeros(&[3]);
            let mut tv = Nd::zeros(&[3]);
            for i in 0..3 {
                let (mut bi, mut bv) = (-1.0, f32::MIN as f64);
                for k in 0..4 {
                    let v = m.get(&[i, k]);
                    if bv < v {
                        bi = idx.get(&[i, k]);
                        bv = v;
                    }
                }
                ti.set(&[i], bi);
                tv.set(&[i], bv);
            }
            vec![(2, ti), (3, tv)]
        }),
        ("own_override_iter_value", |a| {
            vec![(
                1,
                Nd::fill(&[4, 5], |i| a[0].get(i) + (i[0] * 5 + i[1]) as f64),
            )]
        }),
        ("own_override_pad", |a| {
            let p = Nd::fill(&[6, 7], |i| {
                if i[0] >= 1 && i[0] < 5 && i[1] >= 1 && i[1] < 6 {
                    a[0].get(&[i[0] - 1, i[1] - 1])
                } else {
                    0.0
                }
            });
            vec![(1, p)]
        }),
        ("topi_add", |a| {
            vec![(2, Nd::fill(&[2, 3], |i| a[0].get(i) + a[1].get(&[i[1]])))]
        }),
        ("topi_subtract_scalar_lhs", |a| {
            vec![(1, Nd::fill(&[4, 3], |i| 2.0 - a[0].get(i)))]
        }),
        ("topi_multiply_bcast", |a| {
            vec![(
                2,
                Nd::fill(&[4, 5, 3], |i| {
                    a[0].get(&[i[0], 0, i[2]]) * a[1].get(&[i[1], 0])
                }),
            )]
        }),
        ("topi_divide", |a| {
            vec![(2, Nd::fill(&[2, 3], |i| a[0].get(i) / a[1].get(&[i[0], 0])))]
        }),
        ("topi_relu_int", |a| {
            vec![(1, Nd::fill(&[5], |i| relu(a[0].get(i))))]
        }),
        ("topi_dense_bias", |a| {
            let y = Nd::fill(&[2, 4], |i| {
                (0..3)
                    .map(|k| a[0].get(&[i[0], k]) * a[1].get(&[i[1], k]))
                    .sum::<f64>()
                    + a[2].get(&[i[1]])
            });
            vec![(3, y)]
        }),
        ("topi_dense_int8", |a| {
            let y = Nd::fill(&[2, 4], |i| {
                (0..3)
                    .map(|k| a[0].get(&[i[0], k]) * a[1].get(&[i[1], k]))
                    .sum::<f64>()
            });
            vec![(2, y)]
        }),
        ("topi_nn_matmul_tt", |a| {
            let y = Nd::fill(&[2, 4], |i| {
                (0..3)
                    .map(|k| a[0].get(&[k, i[0]]) * a[1].get(&[i[1], k]))
                    .sum::<f64>()
            });
            vec![(2, y)]
        }),
        ("topi_nn_matmul_batch", |a| {
            let y = Nd::fill(&[2, 5, 3, 6], |i| {
                (0..4)
                    .map(|k| a[0].get(&[i[0], 0, i[2], k]) * a[1].get(&[i[1], k, i[3]]))
                    .sum::<f64>()
            });
            vec![(2, y)]
        }),
        ("topi_matmul", |a| vec![(2, matmul(&a[0], &a[1]))]),
        ("topi_transpose_axes", |a| {
            vec![(1, Nd::fill(&[4, 3, 1], |i| a[0].get(&[i[0], i[2], i[1]])))]
        }),
        ("topi_reshape_3d", |a| {
            vec![(
                1,
                Nd {
                    shape: vec![6, 4],
                    data: a[0].data.clone(),
                },
            )]
        }),
        ("topi_softmax_axis0", |a| vec![(1, softmax_rows(&a[0], 0))]),
        ("topi_sum_keepdims", |a| {
            vec![(
                1,
                Nd::fill(&[2, 1], |i| (0..3).map(|k| a[0].get(&[i[0], k])).sum()),
            )]
        }),
        ("topi_sum_all", |a| {
            vec![(1, Nd::fill(&[], |_| a[0].data.iter().sum()))]
        }),
        ("topi_argmax", |a| {
            let first_max = |r: usize| {
                (0..5).fold(0, |b, k| {
                    if a[0].get(&[r, k]) > a[0].get(&[r, b]) {
                        k
                    } else {
                        b
                    }
                })
            };
            vec![(1, Nd::fill(&[3], |i| first_max(i[0]) as f64))]
        }),
        ("topi_argmin_two_axes", |a| {
            let at = |r: usize, f: usize| a[0].get(&[r, f / 4, f % 4]);
            let first_min =
                |r: usize| (0..12).fold(0, |b, f| if at(r, f) < at(r, b) { f } else { b });
            vec![(1, Nd::fill(&[2, 1, 1], |i| first_min(i[0]) as f64))]
        }),
        ("topi_max_keepdims", |a| {
            vec![(
                1,
                Nd::fill(&[1, 1, 1], |_| {
                    a[0].data.iter().cloned().fold(f64::MIN, f64::max)
                }),
            )]
        }),
        ("topi_conv2d", |a| {
            vec![(2, conv2d(&a[0], &a[1], [1, 1], [1, 1], [1, 1], [8, 8]))]
        }),
        ("topi_conv2d_stride", |a| {
            vec![(2, conv2d(&a[0], &a[1], [2, 2], [0, 0], [1, 1], [3, 3]))]
        }),
        ("topi_conv2d_dilated", |a| {
            vec![(2, conv2d(&a[0], &a[1], [1, 2], [1, 0], [2, 2], [7, 3]))]
        }),
        ("topi_chain_override", |a| {
            let y = Nd::fill(&[2, 4], |i| {
                relu(
                    (0..3)
                        .map(|k| a[0].get(&[i[0], k]) * a[1].get(&[i[1], k]))
                        .sum::<f64>()
                        + a[2].get(&[i[1]]),
                )
            });
            vec![(3, y)]
        }),
        ("topi_override_mix", |a| {
            let s = softmax_rows(&a[0], 1);
            let r = Nd {
                shape: vec![3, 2],
                data: s.data,
            };
            vec![(
                1,
                Nd::fill(&[2], |i| (0..3).map(|k| r.get(&[k, i[0]])).sum()),
            )]
        }),
    ]
}

#[test]
fn created_functions_compute_the_te_semantics() {
    let cases: HashMap<&str, te_cases::Builder> = te_cases::all().into_iter().collect();
    let opts = EvalOptions {
        check_regions: true,
        ..EvalOptions::default()
    };
    let mut failures = Vec::new();
    for (name, reference) in references() {
        let build = cases[name];
        let (args, ov) = build().unwrap();
        let f = create_prim_func_with(&args, ov).unwrap();
        for seed in [1u64, 2] {
            let mut arrays = random_inputs(&f, seed, &HashMap::new()).unwrap();
            let inputs: Vec<Nd> = arrays.iter().map(Nd::of).collect();
            if let Err(e) = run_prim_func(&f, &mut arrays, &opts) {
                failures.push(format!("{name}: interpreter error: {}", e.message));
                continue;
            }
            for (pos, want) in reference(&inputs) {
                let got = Nd::of(&arrays[pos]);
                assert_eq!(got.shape, want.shape, "{name}: output {pos} shape");
                let tol = |w: f64| 1e-5 * w.abs().max(1.0);
                if let Some((i, (g, w))) = got
                    .data
                    .iter()
                    .zip(&want.data)
                    .enumerate()
                    .find(|(_, (g, w))| (**g - **w).abs() > tol(**w))
                {
                    failures.push(format!(
                        "{name} (seed {seed}): output {pos}[{i}] = {g}, want {w}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
