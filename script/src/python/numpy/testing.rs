//! `np.testing`: `assert_allclose` and `assert_array_equal` with NumPy's
//! messages (NumPy 2.4's `assert_array_compare`).

use super::*;

fn err_msg_arg(it: &mut Interp, a: &mut Args, index: usize) -> Res<String> {
    match a.take(index, "err_msg") {
        None | Some(Value::None) => Ok(String::new()),
        Some(v) => it.str_of(&v),
    }
}

/// The repr NumPy puts in the message: at most 3 lines, then `...`.
fn short_repr(a: &NDArray) -> String {
    let r = if a.ndim() == 0 {
        format!(
            "array({})",
            compiler_core::eval::format::format_0d_element(a)
        )
    } else {
        array_repr(a)
    };
    if r.matches('\n').count() > 3 {
        let lines: Vec<&str> = r.lines().take(3).collect();
        format!("{}...", lines.join("\n"))
    } else {
        r
    }
}

fn build_err_msg(x: &NDArray, y: &NDArray, err_msg: &str, header: &str) -> String {
    let mut msg = vec![format!("\n{header}")];
    if !err_msg.is_empty() {
        if !err_msg.contains('\n') && err_msg.len() < 79 - header.len() {
            msg[0] = format!("{} {err_msg}", msg[0]);
        } else {
            msg.push(err_msg.to_string());
        }
    }
    msg.push(format!(" ACTUAL: {}", short_repr(x)));
    msg.push(format!(" DESIRED: {}", short_repr(y)));
    msg.join("\n")
}

fn unravel(shape: &[usize], mut flat: usize) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        let n = shape[d].max(1);
        idx[d] = flat % n;
        flat /= n;
    }
    idx
}

/// `0-d array2string` of a value in `dt`.
fn fmt0(dt: DataType, n: Num) -> String {
    let arr = if is_float(dt) {
        NDArray::from_f64_as(dt, &[], &[n.as_f64()])
    } else {
        NDArray::from_i64(dt, &[], &[n.as_i64()])
    };
    match arr {
        Ok(a) => compiler_core::eval::format::format_0d_element(&a),
        Err(_) => String::new(),
    }
}

/// The shared comparison: `close(i)` says whether element `i` (after
/// broadcasting) passes.
fn compare_arrays(
    it: &mut Interp,
    actual: &Value,
    desired: &Value,
    header: &str,
    err_msg: &str,
    close: &dyn Fn(f64, f64) -> bool,
) -> Res<()> {
    let x = super::module::array_from(it, actual, None)?;
    let y = super::module::array_from(it, desired, None)?;
    if !(x.ndim() == 0 || y.ndim() == 0 || x.shape() == y.shape()) {
        let reason = format!(
            "{err_msg}\n(shapes {}, {} mismatch)",
            shape_str(x.shape()),
            shape_str(y.shape())
        );
        return Err(PyErr::new(
            ExcKind::AssertionError,
            build_err_msg(&x, &y, &reason, header),
        ));
    }
    let shape = broadcast_shapes(x.shape(), y.shape())?;
    let n = numel(&shape);
    it.charge_steps(n as u64 / 16)?;
    let (mx, my) = (bmap(x.shape(), &shape), bmap(y.shape(), &shape));
    let float = is_float(x.dtype()) || is_float(y.dtype());
    let mut bad: Vec<usize> = Vec::new();
    let mut flagged = 0usize;
    for i in 0..n {
        let (p, q) = (
            x.get_flat_f64(at(&mx, i)).unwrap_or(0.0),
            y.get_flat_f64(at(&my, i)).unwrap_or(0.0),
        );
        if float {
            // NaNs and infinities must sit at the same places.
            if p.is_nan() || q.is_nan() {
                if p.is_nan() != q.is_nan() {
                    let e = build_err_msg(
                        &x,
                        &y,
                        &format!("{err_msg}\nnan location mismatch:"),
                        header,
                    );
                    return Err(PyErr::new(ExcKind::AssertionError, e));
                }
                flagged += 1;
                continue;
            }
            if p.is_infinite() || q.is_infinite() {
                if p != q {
                    let e = build_err_msg(
                        &x,
                        &y,
                        &format!("{err_msg}\ninf location mismatch:"),
                        header,
                    );
                    return Err(PyErr::new(ExcKind::AssertionError, e));
                }
                flagged += 1;
                continue;
            }
        }
        if !close(p, q) {
            bad.push(i);
        }
    }
    let _ = flagged;
    if bad.is_empty() {
        return Ok(());
    }
    let total = n;
    let percent = 100.0 * bad.len() as f64 / total as f64;
    let mut remarks = vec![format!(
        "Mismatched elements: {} / {} ({}%)",
        bad.len(),
        total,
        crate::python::fmt::fmt_general(percent, 3, false, false)
    )];
    if !shape.is_empty() {
        let lines: Vec<String> = bad
            .iter()
            .take(5)
            .map(|&i| {
                let idx = unravel(&shape, i);
                let xv = make_scalar(x.dtype(), elem(&x, at(&mx, i)));
                let yv = make_scalar(y.dtype(), elem(&y, at(&my, i)));
                // An f-string formats NumPy scalars through Python floats.
                let s = |v: &Value| match v {
                    Value::NpScalar(s) => match s.num {
                        _ if s.dtype.is_bool() => {
                            if s.num.as_i64() != 0 {
                                "True".into()
                            } else {
                                "False".into()
                            }
                        }
                        Num::I(i) => i.to_string(),
                        Num::F(f) => crate::python::fmt::float_repr(f),
                    },
                    _ => String::new(),
                };
                format!(
                    " [{}]: {} (ACTUAL), {} (DESIRED)",
                    idx.iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    s(&xv),
                    s(&yv)
                )
            })
            .collect();
        let head = match bad.len() {
            1 => "Mismatch at index:",
            2..=5 => "Mismatch at indices:",
            _ => "First 5 mismatches are at indices:",
        };
        remarks.push(format!("{head}\n{}", lines.join("\n")));
    }
    // Differences in the promoted dtype of `x - y`.
    let diff_dt = {
        let d = promote(x.dtype(), y.dtype());
        if d.is_bool() {
            DataType::bool()
        } else {
            d
        }
    };
    let mut max_abs: Option<Num> = None;
    let mut max_rel: Option<f64> = None;
    let mut any_nonzero = false;
    for &i in &bad {
        let (p, q) = (elem(&x, at(&mx, i)), elem(&y, at(&my, i)));
        let err = if is_float(diff_dt) {
            let e = normalize(diff_dt, Num::F(p.as_f64() - q.as_f64()));
            Num::F(e.as_f64().abs())
        } else {
            let e = normalize(diff_dt, Num::I(p.as_i64().wrapping_sub(q.as_i64())));
            Num::I(e.as_i64().wrapping_abs())
        };
        if max_abs.is_none_or(|m| err.as_f64() > m.as_f64()) {
            max_abs = Some(err);
        }
        if q.as_f64() != 0.0 {
            any_nonzero = true;
            let rel = err.as_f64() / q.as_f64().abs();
            let rel = if diff_dt == DataType::f32() {
                rel as f32 as f64
            } else {
                rel
            };
            max_rel = Some(max_rel.map_or(rel, |m: f64| m.max(rel)));
        }
    }
    remarks.push(format!(
        "Max absolute difference among violations: {}",
        fmt0(diff_dt, max_abs.unwrap_or(Num::I(0)))
    ));
    let rel_dt = if is_float(diff_dt) {
        diff_dt
    } else {
        DataType::f64()
    };
    let rel = if any_nonzero {
        max_rel.unwrap_or(f64::INFINITY)
    } else {
        f64::INFINITY
    };
    let rel_text = if any_nonzero {
        fmt0(rel_dt, Num::F(rel))
    } else {
        "inf".to_string()
    };
    remarks.push(format!(
        "Max relative difference among violations: {rel_text}"
    ));
    let full = format!("{err_msg}\n{}", remarks.join("\n"));
    Err(PyErr::new(
        ExcKind::AssertionError,
        build_err_msg(&x, &y, &full, header),
    ))
}

pub fn assert_allclose(it: &mut Interp, mut a: Args) -> Res<Value> {
    let actual = a.req(0, "actual", "assert_allclose")?;
    let desired = a.req(1, "desired", "assert_allclose")?;
    let rtol = a.take(2, "rtol").and_then(|v| num_f64(&v)).unwrap_or(1e-7);
    let atol = a.take(3, "atol").and_then(|v| num_f64(&v)).unwrap_or(0.0);
    let _ = a.take(4, "equal_nan");
    let err_msg = err_msg_arg(it, &mut a, 5)?;
    let _ = a.take(6, "verbose");
    let _ = a.take_kw("strict");
    let header = format!(
        "Not equal to tolerance rtol={}, atol={}",
        crate::python::fmt::fmt_general(rtol, 6, false, false),
        crate::python::fmt::fmt_general(atol, 6, false, false)
    );
    let close = move |p: f64, q: f64| (p - q).abs() <= atol + rtol * q.abs();
    compare_arrays(it, &actual, &desired, &header, &err_msg, &close)?;
    Ok(Value::None)
}

pub fn assert_array_equal(it: &mut Interp, mut a: Args) -> Res<Value> {
    let actual = a.req(0, "actual", "assert_array_equal")?;
    let desired = a.req(1, "desired", "assert_array_equal")?;
    let err_msg = err_msg_arg(it, &mut a, 2)?;
    compare_arrays(
        it,
        &actual,
        &desired,
        "Arrays are not equal",
        &err_msg,
        &|p, q| p == q,
    )?;
    Ok(Value::None)
}

pub fn assert_array_almost_equal(it: &mut Interp, mut a: Args) -> Res<Value> {
    let actual = a.req(0, "actual", "assert_array_almost_equal")?;
    let desired = a.req(1, "desired", "assert_array_almost_equal")?;
    let decimal = a.take(2, "decimal").and_then(|v| num_i64(&v)).unwrap_or(6);
    let err_msg = err_msg_arg(it, &mut a, 3)?;
    let tol = 1.5 * 10f64.powi(-(decimal.clamp(0, 300) as i32));
    let header = format!("Arrays are not almost equal to {decimal} decimals");
    compare_arrays(it, &actual, &desired, &header, &err_msg, &move |p, q| {
        (p - q).abs() < tol
    })?;
    Ok(Value::None)
}
