//! NumPy-style printing of arrays (`str(arr)` with NumPy's default print
//! options: precision 8, `floatmode='maxprec'`, line width 75, summarising
//! arrays of more than 1000 elements with 3 edge items).
//!
//! This follows NumPy's `arrayprint.py`: one element format for the whole
//! array (chosen from the elements that are shown), positional notation
//! unless the magnitudes call for scientific, the integer and fraction parts
//! padded to common widths, and rows wrapped with a hanging indent.

use super::ndarray::NDArray;
use super::scalar::{round_to_f16, NumTy};

const LINE_WIDTH: usize = 75;
const THRESHOLD: usize = 1000;
const EDGE_ITEMS: usize = 3;
const PRECISION: usize = 8;

pub fn format_array(a: &NDArray) -> String {
    let ty = a.ty();
    if a.ndim() == 0 {
        return format_scalar(
            a.get_flat_f64(0).unwrap_or(0.0),
            a.get_flat_i64(0).unwrap_or(0),
            ty,
        );
    }
    if a.is_empty() {
        return "[]".to_string();
    }
    array2string(a, " ", "", LINE_WIDTH)
}

/// NumPy's `array2string(a, separator=sep, prefix=prefix)` with the line
/// width already reduced by the suffix's length. A 0-d array prints its
/// element with the array element format (`1.` rather than `1.0`).
fn array2string(a: &NDArray, separator: &str, prefix: &str, line_width: usize) -> String {
    let ty = a.ty();
    let summarize = a.len() > THRESHOLD;
    let shown = shown_indices(a.shape(), summarize);
    let format = ElemFormat::new(a, ty, &shown);
    let printer = Printer {
        a,
        format,
        summarize,
        separator,
    };
    let mut index = Vec::with_capacity(a.ndim());
    let hanging = format!(" {}", " ".repeat(prefix.chars().count()));
    printer.recurse(&mut index, &hanging, line_width)
}

/// The text NumPy's `array2string` gives a 0-d array (used in
/// `assert_allclose` messages): the element in array format.
pub fn format_0d_element(a: &NDArray) -> String {
    if a.is_empty() {
        return "[]".to_string();
    }
    array2string(a, " ", "", LINE_WIDTH)
}

/// NumPy's `repr(array)`: `array([1., 2.], dtype=float32)`, wrapped at 75
/// columns, the dtype left out for `float64`, `int64` and `bool`.
pub fn format_array_repr(a: &NDArray) -> String {
    use crate::ScalarKind;
    let dt = a.dtype();
    let implied = matches!(
        (dt.kind, dt.bits),
        (ScalarKind::Float, 64) | (ScalarKind::Int, 64) | (ScalarKind::Bool, _)
    );
    let prefix = "array(";
    let lst = if a.is_empty() {
        "[]".to_string()
    } else {
        array2string(a, ", ", prefix, LINE_WIDTH - 1)
    };
    let mut extras = Vec::new();
    if (a.is_empty() && a.shape() != [0]) || a.len() > THRESHOLD {
        let dims: Vec<String> = a.shape().iter().map(|d| d.to_string()).collect();
        let shape = if dims.len() == 1 {
            format!("({},)", dims[0])
        } else {
            format!("({})", dims.join(", "))
        };
        extras.push(format!("shape={shape}"));
    }
    if !implied || a.is_empty() {
        extras.push(format!("dtype={}", dtype_short_name(dt)));
    }
    if extras.is_empty() {
        return format!("{prefix}{lst})");
    }
    let arr_str = format!("{prefix}{lst},");
    let extra_str = format!("{})", extras.join(", "));
    let last_line_len = arr_str.len() - arr_str.rfind('\n').map_or(0, |i| i + 1);
    let spacer = if last_line_len + extra_str.len() + 1 > LINE_WIDTH {
        format!("\n{}", " ".repeat(prefix.len()))
    } else {
        " ".to_string()
    };
    format!("{arr_str}{spacer}{extra_str}")
}

/// NumPy's short dtype name (`float32`, `int64`, `bool`).
pub fn dtype_short_name(dt: crate::DataType) -> String {
    use crate::ScalarKind;
    match dt.kind {
        ScalarKind::Bool => "bool".to_string(),
        ScalarKind::Int => format!("int{}", dt.bits),
        ScalarKind::UInt => format!("uint{}", dt.bits),
        ScalarKind::Float => format!("float{}", dt.bits),
        _ => dt.to_string(),
    }
}

/// Python's `str()` of a NumPy scalar (public for the script interpreter).
pub fn format_numpy_scalar(f: f64, i: i64, dt: crate::DataType) -> String {
    match NumTy::of(dt) {
        Some(ty) => format_scalar(f, i, ty),
        None => f.to_string(),
    }
}

/// The flat offsets of the elements that will be printed.
fn shown_indices(shape: &[usize], summarize: bool) -> Vec<usize> {
    let mut out = vec![0usize];
    for &d in shape {
        let keep: Vec<usize> = if summarize && d > 2 * EDGE_ITEMS {
            (0..EDGE_ITEMS).chain(d - EDGE_ITEMS..d).collect()
        } else {
            (0..d).collect()
        };
        out = out
            .iter()
            .flat_map(|&base| keep.iter().map(move |&k| base * d + k))
            .collect();
    }
    out
}

/// Python's `str()` of a NumPy scalar.
fn format_scalar(f: f64, i: i64, ty: NumTy) -> String {
    match ty {
        NumTy::Bool => if i != 0 { "True" } else { "False" }.to_string(),
        NumTy::U64 => (i as u64).to_string(),
        t if !t.is_float() => i.to_string(),
        _ => {
            if !f.is_finite() {
                return nonfinite(f).to_string();
            }
            let (neg, digits, exp) = shortest(f, ty);
            let sign = if neg { "-" } else { "" };
            // NumPy 2 switches scalars to scientific notation at 1e16
            // (float64), 1e6 (float32) and 1e3 (float16).
            let max_positional = match ty {
                NumTy::F16 => 1e3,
                NumTy::F32 => 1e6,
                _ => 1e16,
            };
            if f == 0.0 || (1e-4..max_positional).contains(&f.abs()) {
                let (int, frac) = positional_parts(&digits, exp);
                let frac = if frac.is_empty() {
                    "0".to_string()
                } else {
                    frac
                };
                format!("{sign}{int}.{frac}")
            } else {
                let mant = if digits.len() > 1 {
                    format!("{}.{}", &digits[..1], &digits[1..])
                } else {
                    digits.clone()
                };
                format!("{sign}{mant}e{}", exp_string(exp, 2))
            }
        }
    }
}

fn nonfinite(f: f64) -> &'static str {
    if f.is_nan() {
        "nan"
    } else if f > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// `+05`, `-12`, `+100`: sign and at least `min_digits` digits.
fn exp_string(exp: i32, min_digits: usize) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{:0width$}", exp.unsigned_abs(), width = min_digits)
}

/// The shortest decimal digits that round back to `f` in type `ty`:
/// (negative, digits without leading zeros, decimal exponent of the first digit).
fn shortest(f: f64, ty: NumTy) -> (bool, String, i32) {
    let s = match ty {
        NumTy::F32 => format!("{:e}", f as f32),
        NumTy::F16 => {
            let mut found = format!("{f:e}");
            for p in 0..17 {
                let cand = format!("{f:.p$e}");
                if cand.parse::<f64>().map(round_to_f16) == Ok(f) {
                    found = cand;
                    break;
                }
            }
            found
        }
        _ => format!("{f:e}"),
    };
    parse_sci(&s)
}

/// Parses Rust's `{:e}` output (`-1.25e-3`) into (negative, digits, exponent).
fn parse_sci(s: &str) -> (bool, String, i32) {
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    if digits.is_empty() {
        digits.push('0');
    }
    (neg, digits, exp)
}

/// Integer and fraction digits of `0.d1d2… × 10^(exp+1)` written positionally.
fn positional_parts(digits: &str, exp: i32) -> (String, String) {
    if digits == "0" {
        return ("0".to_string(), String::new());
    }
    if exp >= 0 {
        let e = exp as usize;
        if digits.len() <= e + 1 {
            let int = format!("{digits}{}", "0".repeat(e + 1 - digits.len()));
            (int, String::new())
        } else {
            (digits[..e + 1].to_string(), digits[e + 1..].to_string())
        }
    } else {
        let zeros = "0".repeat((-exp - 1) as usize);
        ("0".to_string(), format!("{zeros}{digits}"))
    }
}

/// NumPy's `dragon4_positional(x, precision=8, unique=True, trim='.')`:
/// (sign and integer part, fraction digits).
fn positional(f: f64, ty: NumTy) -> (String, String) {
    let (neg, digits, exp) = shortest(f, ty);
    let (mut int, mut frac) = positional_parts(&digits, exp);
    if frac.len() > PRECISION {
        // Round the exact binary value at the cut-off (there are no ties:
        // a dyadic rational never ends in a lone 5 at the 9th decimal).
        let s = match ty {
            NumTy::F32 => format!("{:.*}", PRECISION, (f as f32).abs()),
            _ => format!("{:.*}", PRECISION, f.abs()),
        };
        let (i, fr) = s.split_once('.').unwrap_or((&s, ""));
        int = i.to_string();
        frac = fr.trim_end_matches('0').to_string();
    }
    if neg {
        int.insert(0, '-');
    }
    (int, frac)
}

/// NumPy's `dragon4_scientific(x, precision=8, unique=True, trim='.')`:
/// (sign and leading digit, fraction digits, exponent).
fn scientific(f: f64, ty: NumTy) -> (String, String, i32) {
    let (neg, mut digits, mut exp) = shortest(f, ty);
    if digits.len() > PRECISION + 1 {
        let s = match ty {
            NumTy::F32 => format!("{:.*e}", PRECISION, (f as f32).abs()),
            _ => format!("{:.*e}", PRECISION, f.abs()),
        };
        let (_, d, e) = parse_sci(&s);
        digits = d;
        exp = e;
    }
    let sign = if neg { "-" } else { "" };
    (
        format!("{sign}{}", &digits[..1]),
        digits[1..].to_string(),
        exp,
    )
}

enum ElemFormat {
    Bool,
    Int { width: usize },
    Float(FloatFormat),
}

struct FloatFormat {
    ty: NumTy,
    exp_format: bool,
    pad_left: usize,
    pad_right: usize,
    /// Scientific only: fraction digits shown, and exponent digits.
    precision: usize,
    exp_size: usize,
}

impl ElemFormat {
    fn new(a: &NDArray, ty: NumTy, shown: &[usize]) -> ElemFormat {
        if ty == NumTy::Bool {
            return ElemFormat::Bool;
        }
        if !ty.is_float() {
            let strs = shown.iter().map(|&i| int_string(a, i, ty));
            let width = strs.map(|s| s.len()).max().unwrap_or(0);
            return ElemFormat::Int { width };
        }
        let vals: Vec<f64> = shown.iter().filter_map(|&i| a.get_flat_f64(i)).collect();
        ElemFormat::Float(FloatFormat::new(&vals, ty))
    }

    fn word(&self, a: &NDArray, flat: usize, ty: NumTy) -> String {
        match self {
            ElemFormat::Bool => {
                if a.get_flat_i64(flat).unwrap_or(0) != 0 {
                    " True".to_string()
                } else {
                    "False".to_string()
                }
            }
            ElemFormat::Int { width } => format!("{:>width$}", int_string(a, flat, ty)),
            ElemFormat::Float(ff) => ff.format(a.get_flat_f64(flat).unwrap_or(0.0)),
        }
    }
}

fn int_string(a: &NDArray, flat: usize, ty: NumTy) -> String {
    let i = a.get_flat_i64(flat).unwrap_or(0);
    if ty == NumTy::U64 {
        (i as u64).to_string()
    } else {
        i.to_string()
    }
}

impl FloatFormat {
    fn new(vals: &[f64], ty: NumTy) -> FloatFormat {
        let finite: Vec<f64> = vals.iter().copied().filter(|x| x.is_finite()).collect();
        let nonzero = finite.iter().filter(|&&x| x != 0.0).map(|x| x.abs());
        let (mut max, mut min) = (f64::NEG_INFINITY, f64::INFINITY);
        for x in nonzero {
            max = max.max(x);
            min = min.min(x);
        }
        let exp_format = max.is_finite() && (max >= 1e8 || min < 1e-4 || max / min > 1e3);
        let mut ff = FloatFormat {
            ty,
            exp_format,
            pad_left: 0,
            pad_right: 0,
            precision: 0,
            exp_size: 0,
        };
        if finite.is_empty() {
            // Only nan/inf: no padding beyond their own width.
        } else if exp_format {
            for &x in &finite {
                let (int, frac, exp) = scientific(x, ty);
                ff.pad_left = ff.pad_left.max(int.len());
                ff.precision = ff.precision.max(frac.len());
                ff.exp_size = ff.exp_size.max(exp_string(exp, 2).len() - 1);
            }
            ff.pad_right = ff.exp_size + 2 + ff.precision;
        } else {
            for &x in &finite {
                let (int, frac) = positional(x, ty);
                ff.pad_left = ff.pad_left.max(int.len());
                ff.pad_right = ff.pad_right.max(frac.len());
            }
        }
        if finite.len() != vals.len() {
            let neginf = vals.contains(&f64::NEG_INFINITY);
            let offset = ff.pad_right + 1;
            let inflen = 3 + neginf as usize;
            ff.pad_left = ff
                .pad_left
                .max(3usize.saturating_sub(offset))
                .max(inflen.saturating_sub(offset));
        }
        ff
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let s = nonfinite(x);
            let width = self.pad_left + self.pad_right + 1;
            return format!("{s:>width$}");
        }
        if self.exp_format {
            let (int, mut frac, exp) = scientific(x, self.ty);
            while frac.len() < self.precision {
                frac.push('0');
            }
            format!(
                "{int:>w$}.{frac}e{}",
                exp_string(exp, self.exp_size),
                w = self.pad_left
            )
        } else {
            let (int, frac) = positional(x, self.ty);
            format!(
                "{int:>l$}.{frac:<r$}",
                l = self.pad_left,
                r = self.pad_right
            )
        }
    }
}

struct Printer<'a> {
    a: &'a NDArray,
    format: ElemFormat,
    summarize: bool,
    /// `" "` for `str`, `", "` for `repr`.
    separator: &'a str,
}

impl Printer<'_> {
    fn word(&self, index: &[usize]) -> String {
        let flat = self.a.flat_index(index).unwrap_or(0);
        self.format.word(self.a, flat, self.a.ty())
    }

    /// NumPy's `_formatArray.recurser`.
    fn recurse(&self, index: &mut Vec<usize>, hanging: &str, width: usize) -> String {
        let axis = index.len();
        let shape = self.a.shape();
        if axis == shape.len() {
            return self.word(index);
        }
        let axes_left = shape.len() - axis;
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let len = shape[axis];
        let show_summary = self.summarize && 2 * EDGE_ITEMS < len;
        let (leading, trailing) = if show_summary {
            (EDGE_ITEMS, EDGE_ITEMS)
        } else {
            (0, len)
        };
        let mut child = |i: usize, this: &Self| {
            index.push(i);
            let s = this.recurse(index, &next_hanging, next_width);
            index.pop();
            s
        };
        let mut s = String::new();
        if axes_left == 1 {
            let elem_width = width.saturating_sub(1);
            let mut line = hanging.to_string();
            for i in 0..leading {
                let word = child(i, self);
                extend_line(&mut s, &mut line, &word, elem_width, hanging);
                line.push_str(self.separator);
            }
            if show_summary {
                extend_line(&mut s, &mut line, "...", elem_width, hanging);
                line.push_str(self.separator);
            }
            for i in (2..=trailing).rev() {
                let word = child(len - i, self);
                extend_line(&mut s, &mut line, &word, elem_width, hanging);
                line.push_str(self.separator);
            }
            let word = child(len - 1, self);
            extend_line(&mut s, &mut line, &word, elem_width, hanging);
            s.push_str(&line);
        } else {
            let line_sep = format!(
                "{}{}",
                self.separator.trim_end(),
                "\n".repeat(axes_left - 1)
            );
            for i in 0..leading {
                let nested = child(i, self);
                s.push_str(hanging);
                s.push_str(&nested);
                s.push_str(&line_sep);
            }
            if show_summary {
                s.push_str(hanging);
                s.push_str("...");
                s.push_str(&line_sep);
            }
            for i in (2..=trailing).rev() {
                let nested = child(len - i, self);
                s.push_str(hanging);
                s.push_str(&nested);
                s.push_str(&line_sep);
            }
            let nested = child(len - 1, self);
            s.push_str(hanging);
            s.push_str(&nested);
        }
        format!("[{}]", s.get(hanging.len()..).unwrap_or(""))
    }
}

/// NumPy's `_extendLine`: wrap before `word` if the line would get too long
/// (unless wrapping cannot help).
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let needs_wrap = line.len() + word.len() > width && line.len() > prefix.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = prefix.to_string();
    }
    line.push_str(word);
}
