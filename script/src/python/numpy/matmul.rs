//! `a @ b` / `np.matmul` (batch axes broadcast, 1-D operands promoted) and
//! `np.einsum`, with their step charge.

use super::*;

/// Multiply-adds of a library call charged as one step: `a @ b` runs
/// natively, so a 1024³ matmul (about a second of work) costs 16.8M of the
/// 100M steps a cell has, while Python-level loops keep their price.
const MACS_PER_STEP: u64 = 64;

/// `a @ b` / `np.matmul`: 1-D operands are promoted to a row (left) or a
/// column (right) and the added axis removed again; the axes before the last
/// two broadcast as batch axes.
pub fn matmul(it: &mut Interp, l: &Value, r: &Value) -> Res<Value> {
    let a = opnd(it, l)?;
    let b = opnd(it, r)?;
    if a.shape.is_empty() || b.shape.is_empty() {
        return Err(PyErr::value_error(
            "matmul: Input operand 0 does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)",
        ));
    }
    let out = promote(a.dtype, b.dtype);
    let (a_vec, b_vec) = (a.shape.len() == 1, b.shape.len() == 1);
    let a_shape: Vec<usize> = if a_vec {
        vec![1, a.shape[0]]
    } else {
        a.shape.clone()
    };
    let b_shape: Vec<usize> = if b_vec {
        vec![b.shape[0], 1]
    } else {
        b.shape.clone()
    };
    let (m, k) = (a_shape[a_shape.len() - 2], a_shape[a_shape.len() - 1]);
    let (k2, n) = (b_shape[b_shape.len() - 2], b_shape[b_shape.len() - 1]);
    if k != k2 {
        return Err(PyErr::value_error(format!(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {k2} is different from {k})"
        )));
    }
    let a_batch = &a_shape[..a_shape.len() - 2];
    let b_batch = &b_shape[..b_shape.len() - 2];
    let batch = broadcast_shapes(a_batch, b_batch)?;
    let batches: usize = batch.iter().product();
    let mut shape = batch.clone();
    if !a_vec {
        shape.push(m);
    }
    if !b_vec {
        shape.push(n);
    }
    alloc_check(it, out, batches * m * n)?;
    let macs = (batches as u64)
        .saturating_mul(m as u64)
        .saturating_mul(n as u64)
        .saturating_mul(k as u64);
    it.charge_steps(macs / MACS_PER_STEP)?;
    // The flat offset of batch `i`'s matrix in an operand whose batch axes
    // are `own` (broadcast against `batch`).
    let offset = |own: &[usize], i: usize, size: usize| -> usize {
        let mut rest = i;
        let mut flat = 0;
        let mut stride = 1;
        for (d, &full) in batch.iter().enumerate().rev() {
            let idx = rest % full;
            rest /= full;
            let skip = batch.len() - own.len();
            if d >= skip {
                let extent = own[d - skip];
                flat += if extent == 1 { 0 } else { idx } * stride;
                stride *= extent;
            }
        }
        flat * size
    };
    let arr = if is_float(out) {
        let av: Vec<f64> = (0..a.shape.iter().product()).map(|i| a.f(i)).collect();
        let bv: Vec<f64> = (0..b.shape.iter().product()).map(|i| b.f(i)).collect();
        let mut c = vec![0.0f64; batches * m * n];
        for bi in 0..batches {
            let (ao, bo) = (offset(a_batch, bi, m * k), offset(b_batch, bi, k * n));
            let c_mat = &mut c[bi * m * n..(bi + 1) * m * n];
            for i in 0..m {
                for p in 0..k {
                    let x = av[ao + i * k + p];
                    let row = &bv[bo + p * n..bo + p * n + n];
                    let out_row = &mut c_mat[i * n..i * n + n];
                    for (o, y) in out_row.iter_mut().zip(row) {
                        *o += x * y;
                    }
                }
            }
        }
        from_f(out, &shape, &c)?
    } else {
        let mut c = vec![0i64; batches * m * n];
        for bi in 0..batches {
            let (ao, bo) = (offset(a_batch, bi, m * k), offset(b_batch, bi, k * n));
            for i in 0..m {
                for p in 0..k {
                    let x = a.i(ao + i * k + p);
                    for j in 0..n {
                        let o = &mut c[bi * m * n + i * n + j];
                        *o = o.wrapping_add(x.wrapping_mul(b.i(bo + p * n + j)));
                    }
                }
            }
        }
        from_i(out, &shape, &c)?
    };
    finish(it, arr)
}

/// `np.einsum(subscripts, *operands)`: explicit (`"ij,jk->ik"`) and
/// implicit (`"ij,jk"`: the letters used once, in alphabetical order) modes,
/// repeated letters in one operand (diagonals), sums over letters the
/// output lacks. Ellipses (`...`) are refused with a clear error.
pub fn einsum(it: &mut Interp, subscripts: &str, operands: &[Value]) -> Res<Value> {
    let spec: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    if spec.contains('.') {
        return Err(PyErr::value_error(
            "einsum: ellipsis ('...') subscripts are not supported; name every axis",
        ));
    }
    let (inputs, output) = match spec.split_once("->") {
        Some((i, o)) => (i.to_string(), Some(o.to_string())),
        None => (spec.clone(), None),
    };
    let terms: Vec<&str> = inputs.split(',').collect();
    if terms.len() != operands.len() {
        return Err(PyErr::value_error(format!(
            "einsum: {} operands for {} subscript terms in '{subscripts}'",
            operands.len(),
            terms.len()
        )));
    }
    let letter = |c: char| -> Res<char> {
        if c.is_ascii_alphabetic() {
            Ok(c)
        } else {
            Err(PyErr::value_error(format!(
                "einsum: invalid subscript '{c}' in '{subscripts}' (letters only)"
            )))
        }
    };
    // Every letter's extent, checked across operands.
    let mut sizes: Vec<(char, usize)> = Vec::new();
    let mut ops = Vec::with_capacity(operands.len());
    for (term, v) in terms.iter().zip(operands) {
        let o = opnd(it, v)?;
        let letters: Vec<char> = term.chars().map(letter).collect::<Res<_>>()?;
        if letters.len() != o.shape.len() {
            return Err(PyErr::value_error(format!(
                "einsum: operand has {} dimensions but '{term}' names {}",
                o.shape.len(),
                letters.len()
            )));
        }
        for (&c, &n) in letters.iter().zip(&o.shape) {
            match sizes.iter().find(|(l, _)| *l == c) {
                Some(&(_, m)) if m != n => {
                    return Err(PyErr::value_error(format!(
                        "einsum: size of label '{c}' for operand ({n}) does not match previous terms ({m})"
                    )))
                }
                Some(_) => {}
                None => sizes.push((c, n)),
            }
        }
        ops.push((letters, o));
    }
    let out_letters: Vec<char> = match output {
        Some(o) => {
            let letters: Vec<char> = o.chars().map(letter).collect::<Res<_>>()?;
            for (k, c) in letters.iter().enumerate() {
                if letters[..k].contains(c) {
                    return Err(PyErr::value_error(format!(
                        "einsum: output subscript '{c}' appears more than once"
                    )));
                }
                if !sizes.iter().any(|(l, _)| l == c) {
                    return Err(PyErr::value_error(format!(
                        "einsum: output subscript '{c}' does not appear in the input"
                    )));
                }
            }
            letters
        }
        None => {
            let mut once: Vec<char> = sizes
                .iter()
                .map(|&(c, _)| c)
                .filter(|c| inputs.chars().filter(|x| x == c).count() == 1)
                .collect();
            tessel_ir::sort::ascending(&mut once);
            once
        }
    };
    // Loop order: the output's letters, then the summed ones.
    let mut order = out_letters.clone();
    order.extend(
        sizes
            .iter()
            .map(|&(c, _)| c)
            .filter(|c| !out_letters.contains(c)),
    );
    let extent = |c: char| sizes.iter().find(|(l, _)| *l == c).map_or(1, |&(_, n)| n);
    let extents: Vec<usize> = order.iter().map(|&c| extent(c)).collect();
    let out_shape: Vec<usize> = out_letters.iter().map(|&c| extent(c)).collect();
    let out_len: usize = out_shape.iter().product();
    let inner: usize = extents[out_letters.len()..].iter().product();
    // Each operand's stride along each loop letter (repeated letters add up).
    let strides: Vec<Vec<usize>> = ops
        .iter()
        .map(|(letters, o)| {
            let mut own = vec![0usize; letters.len()];
            let mut acc = 1;
            for d in (0..letters.len()).rev() {
                own[d] = acc;
                acc *= o.shape[d];
            }
            order
                .iter()
                .map(|c| {
                    letters
                        .iter()
                        .zip(&own)
                        .filter(|(l, _)| *l == c)
                        .map(|(_, s)| *s)
                        .sum()
                })
                .collect()
        })
        .collect();
    let dtype = ops
        .iter()
        .map(|(_, o)| o.dtype)
        .reduce(promote)
        .unwrap_or(DataType::f64());
    alloc_check(it, dtype, out_len)?;
    let work = (out_len as u64)
        .saturating_mul(inner as u64)
        .saturating_mul(ops.len() as u64);
    it.charge_steps(work / MACS_PER_STEP)?;
    let mut index = vec![0usize; order.len()];
    let mut flat_f = vec![0.0f64; out_len];
    let mut flat_i = vec![0i64; out_len];
    let float = is_float(dtype);
    for out_pos in 0..out_len {
        for _ in 0..inner {
            let (mut pf, mut pi) = (1.0f64, 1i64);
            for ((_, o), st) in ops.iter().zip(&strides) {
                let at: usize = index.iter().zip(st).map(|(i, s)| i * s).sum();
                if float {
                    pf *= o.f(at);
                } else {
                    pi = pi.wrapping_mul(o.i(at));
                }
            }
            if float {
                flat_f[out_pos] += pf;
            } else {
                flat_i[out_pos] = flat_i[out_pos].wrapping_add(pi);
            }
            // Next index, innermost letter fastest.
            for d in (0..order.len()).rev() {
                index[d] += 1;
                if index[d] < extents[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }
    let arr = if float {
        from_f(dtype, &out_shape, &flat_f)?
    } else {
        from_i(dtype, &out_shape, &flat_i)?
    };
    finish(it, arr)
}
