//! Reductions over an axis or the whole array (`sum`, `mean`, `max` and
//! friends), accumulating the way NumPy does for each dtype.

use super::*;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Red {
    Sum,
    Prod,
    Mean,
    Max,
    Min,
    ArgMax,
    ArgMin,
    Any,
    All,
    Std,
    Var,
}

fn red_name(r: Red) -> &'static str {
    match r {
        Red::Max => "maximum",
        Red::Min => "minimum",
        Red::ArgMax => "argmax",
        Red::ArgMin => "argmin",
        _ => "reduce",
    }
}

fn red_dtype(r: Red, dt: DataType) -> DataType {
    match r {
        Red::Sum | Red::Prod => match dt.kind {
            ScalarKind::Bool | ScalarKind::Int => DataType::i64(),
            ScalarKind::UInt => DataType::uint(64),
            _ => dt,
        },
        Red::Mean | Red::Std | Red::Var => {
            if is_float(dt) {
                dt
            } else {
                DataType::f64()
            }
        }
        Red::Max | Red::Min => dt,
        Red::ArgMax | Red::ArgMin => DataType::i64(),
        Red::Any | Red::All => DataType::bool(),
    }
}

/// `x` rounded to the precision NumPy accumulates `dt` in (float16 sums
/// accumulate in float32).
fn accumulate_in(dt: DataType, x: f64) -> f64 {
    if dt.kind == ScalarKind::Float && dt.bits <= 32 {
        x as f32 as f64
    } else {
        x
    }
}

/// NumPy's summation of floats in their own precision: pairwise over a
/// contiguous run (eight interleaved partial sums up to 128 elements,
/// halves above), one element after another when the reduced axis is not
/// the innermost; both added to the reduction's identity, 0.
fn float_sum(dt: DataType, vals: &[f64], pairwise: bool) -> f64 {
    let add = |x: f64, y: f64| accumulate_in(dt, x + y);
    fn pairs(v: &[f64], add: &dyn Fn(f64, f64) -> f64) -> f64 {
        let n = v.len();
        if n < 8 {
            v.iter().fold(-0.0, |r, &x| add(r, x))
        } else if n <= 128 {
            let mut r = [0.0f64; 8];
            r.copy_from_slice(&v[..8]);
            let whole = n - n % 8;
            let mut i = 8;
            while i < whole {
                for (j, acc) in r.iter_mut().enumerate() {
                    *acc = add(*acc, v[i + j]);
                }
                i += 8;
            }
            let mut res = add(
                add(add(r[0], r[1]), add(r[2], r[3])),
                add(add(r[4], r[5]), add(r[6], r[7])),
            );
            for &x in &v[whole..] {
                res = add(res, x);
            }
            res
        } else {
            let mut half = n / 2;
            half -= half % 8;
            add(pairs(&v[..half], add), pairs(&v[half..], add))
        }
    }
    if pairwise {
        add(0.0, pairs(vals, &add))
    } else {
        vals.iter().fold(0.0, |r, &x| add(r, x))
    }
}

fn reduce_lane(r: Red, a: &Opnd, idx: &[usize], float: bool, contiguous: bool) -> Res<Num> {
    let n = idx.len();
    if n == 0 {
        return match r {
            Red::Sum => Ok(if float { Num::F(0.0) } else { Num::I(0) }),
            Red::Prod => Ok(if float { Num::F(1.0) } else { Num::I(1) }),
            Red::Any => Ok(Num::I(0)),
            Red::All => Ok(Num::I(1)),
            Red::Mean | Red::Std | Red::Var => Ok(Num::F(f64::NAN)),
            _ => Err(PyErr::value_error(format!(
                "zero-size array to reduction operation {} which has no identity",
                red_name(r)
            ))),
        };
    }
    let dt = a.dtype;
    let values = || idx.iter().map(|&i| a.f(i)).collect::<Vec<f64>>();
    let mean_of = |v: &[f64]| accumulate_in(dt, float_sum(dt, v, contiguous) / n as f64);
    Ok(match r {
        Red::Sum => {
            if float {
                Num::F(float_sum(dt, &values(), contiguous))
            } else {
                Num::I(idx.iter().fold(0i64, |s, &i| s.wrapping_add(a.i(i))))
            }
        }
        Red::Prod => {
            if float {
                Num::F(idx.iter().map(|&i| a.f(i)).product())
            } else {
                Num::I(idx.iter().fold(1i64, |s, &i| s.wrapping_mul(a.i(i))))
            }
        }
        // Floats in their own precision, as NumPy's `_mean`/`_var` compute
        // them; integers in float64.
        Red::Mean if float => Num::F(mean_of(&values())),
        Red::Mean => Num::F(idx.iter().map(|&i| a.f(i)).sum::<f64>() / n as f64),
        Red::Var | Red::Std if float => {
            let v = values();
            let mean = mean_of(&v);
            let squares: Vec<f64> = v
                .iter()
                .map(|&x| {
                    let d = accumulate_in(dt, x - mean);
                    accumulate_in(dt, d * d)
                })
                .collect();
            let var = mean_of(&squares);
            Num::F(if r == Red::Std {
                accumulate_in(dt, var.sqrt())
            } else {
                var
            })
        }
        Red::Var | Red::Std => {
            let mean = idx.iter().map(|&i| a.f(i)).sum::<f64>() / n as f64;
            let var = idx.iter().map(|&i| (a.f(i) - mean).powi(2)).sum::<f64>() / n as f64;
            Num::F(if r == Red::Std { var.sqrt() } else { var })
        }
        Red::Max | Red::Min | Red::ArgMax | Red::ArgMin => {
            let want_max = matches!(r, Red::Max | Red::ArgMax);
            let mut best = 0usize;
            for j in 1..n {
                let (x, y) = (idx[j], idx[best]);
                let better = if float {
                    let (fx, fy) = (a.f(x), a.f(y));
                    if fy.is_nan() {
                        false
                    } else if fx.is_nan() {
                        true
                    } else if want_max {
                        fx > fy
                    } else {
                        fx < fy
                    }
                } else if want_max {
                    a.i(x) > a.i(y)
                } else {
                    a.i(x) < a.i(y)
                };
                if better {
                    best = j;
                }
            }
            match r {
                Red::ArgMax | Red::ArgMin => Num::I(best as i64),
                _ => {
                    if float {
                        Num::F(a.f(idx[best]))
                    } else {
                        Num::I(a.i(idx[best]))
                    }
                }
            }
        }
        Red::Any => Num::I(idx.iter().any(|&i| a.f(i) != 0.0) as i64),
        Red::All => Num::I(idx.iter().all(|&i| a.f(i) != 0.0) as i64),
    })
}

/// `axis` argument: `None` or an int (negative counts from the end).
pub fn axis_arg(v: Option<&Value>, ndim: usize) -> Res<Option<usize>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(x) => {
            let i = num_i64(x)
                .ok_or_else(|| PyErr::type_error("an integer is required for the axis"))?;
            let n = ndim as i64;
            let j = if i < 0 { i + n } else { i };
            if j < 0 || j >= n {
                return Err(PyErr::new(
                    ExcKind::ValueError,
                    format!("axis {i} is out of bounds for array of dimension {ndim}"),
                ));
            }
            Ok(Some(j as usize))
        }
    }
}

pub fn reduce(
    it: &mut Interp,
    v: &Value,
    r: Red,
    axis: Option<&Value>,
    keepdims: bool,
) -> Res<Value> {
    let a = opnd(it, v)?;
    let ndim = a.shape.len();
    let axis = axis_arg(axis, ndim)?;
    let out_dt = red_dtype(r, a.dtype);
    let float = is_float(a.dtype) && !matches!(r, Red::Any | Red::All);
    let total = numel(&a.shape);
    it.charge_steps(total as u64 / 16)?;
    // NumPy sums a run of memory pairwise, and across rows one row at a
    // time: the whole (C-ordered) array, or the innermost axis, is a run.
    let contiguous = axis.is_none_or(|k| a.shape[k + 1..].iter().product::<usize>() == 1);
    let (shape, lanes): (Vec<usize>, Vec<Vec<usize>>) = match axis {
        None => {
            let shape = if keepdims { vec![1; ndim] } else { vec![] };
            (shape, vec![(0..total).collect()])
        }
        Some(k) => {
            let outer: usize = a.shape[..k].iter().product();
            let len = a.shape[k];
            let inner: usize = a.shape[k + 1..].iter().product();
            let mut lanes = Vec::with_capacity(outer * inner);
            for o in 0..outer {
                for i in 0..inner {
                    lanes.push((0..len).map(|j| (o * len + j) * inner + i).collect());
                }
            }
            let mut shape = a.shape.clone();
            if keepdims {
                shape[k] = 1;
            } else {
                shape.remove(k);
            }
            (shape, lanes)
        }
    };
    let mut res = Vec::with_capacity(lanes.len());
    for lane in &lanes {
        res.push(normalize(
            out_dt,
            reduce_lane(r, &a, lane, float, contiguous)?,
        ));
    }
    let arr = if is_float(out_dt) {
        let v: Vec<f64> = res.iter().map(|n| n.as_f64()).collect();
        from_f(out_dt, &shape, &v)?
    } else {
        let v: Vec<i64> = res.iter().map(|n| n.as_i64()).collect();
        from_i(out_dt, &shape, &v)?
    };
    finish(it, arr)
}
