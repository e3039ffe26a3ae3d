//! `repr`, `str`, float printing, `%`-formatting, format specs and f-strings,
//! following CPython's output exactly.

use super::error::{ExcKind, PyErr, Res};
use super::interp::Interp;
use super::ops::{num_f64, num_i64};
use super::value::*;
use tessel_syntax::ast::FStringPart;

/// Containers nested deeper than this print as `...`.
const MAX_REPR_DEPTH: u32 = 64;

/// Shortest round-trip digits of `f`: (negative, digits, decimal exponent
/// of the first digit). Rust's `{:e}` finds how many digits are needed; the
/// digits themselves are then the correctly rounded ones (ties to even), as
/// CPython's `repr` picks them when two shortest candidates are equally
/// close (`87.600006103515625` is `87.60000610351562`).
pub fn shortest_digits(f: f64, f32_precision: bool) -> (bool, String, i32) {
    let shortest = if f32_precision {
        format!("{:e}", f as f32)
    } else {
        format!("{f:e}")
    };
    let mantissa_digits = shortest
        .split('e')
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
        .count()
        .max(1);
    let s = if f32_precision {
        format!("{:.*e}", mantissa_digits - 1, f as f32)
    } else {
        format!("{:.*e}", mantissa_digits - 1, f)
    };
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.as_str()),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    (neg, digits, exp)
}

/// Python's `repr(float)`.
pub fn float_repr(f: f64) -> String {
    float_repr_cutoff(f, false, 16)
}

/// `repr`-style float text with the switch to scientific notation when the
/// decimal exponent is `>= cutoff` (Python: 16) or `< -4`.
pub fn float_repr_cutoff(f: f64, f32_precision: bool, cutoff: i32) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let (neg, digits, exp) = shortest_digits(f, f32_precision);
    let sign = if neg { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0.0");
    }
    let decpt = exp + 1;
    if decpt > cutoff || decpt < -3 {
        let mant = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mant}e{esign}{:02}", exp.unsigned_abs())
    } else if decpt <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt as usize >= digits.len() {
        format!(
            "{sign}{digits}{}.0",
            "0".repeat(decpt as usize - digits.len())
        )
    } else {
        let (a, b) = digits.split_at(decpt as usize);
        format!("{sign}{a}.{b}")
    }
}

/// Python's `repr(str)`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// `0x…` for default object reprs.
fn addr(v: &Value) -> String {
    format!("0x{:x}", v.identity().unwrap_or(0))
}

impl Interp {
    pub(crate) fn repr(&mut self, v: &Value) -> Res<String> {
        self.repr_depth(v, 0)
    }

    pub(crate) fn str_of(&mut self, v: &Value) -> Res<String> {
        match v {
            Value::Str(s) => Ok(s.to_string()),
            Value::Float(f) => Ok(float_repr(*f)),
            Value::Array(a) => Ok(super::numpy::array_str(&a.borrow())),
            Value::NpScalar(s) => Ok(super::numpy::scalar_str(s)),
            Value::NpDType(d) => Ok(super::numpy::dtype_name(*d).to_string()),
            Value::Instance(i) => {
                if let Some(kind) = i.class.exc_kind() {
                    let _ = kind;
                    if i.class.lookup("__str__").is_none() {
                        return self.exception_str(v);
                    }
                }
                if let Some(m) = i.class.lookup("__str__") {
                    let r = self.call(&m, Args::new(vec![v.clone()]))?;
                    return match r {
                        Value::Str(s) => Ok(s.to_string()),
                        other => Err(PyErr::type_error(format!(
                            "__str__ returned non-string (type {})",
                            other.type_name()
                        ))),
                    };
                }
                self.repr(v)
            }
            Value::Host(o) => match o.clone().str(self)? {
                Some(s) => Ok(s),
                None => self.repr(v),
            },
            _ => self.repr(v),
        }
    }

    /// `str(exception)`: its single argument's `str`, or the tuple of them.
    pub(crate) fn exception_str(&mut self, v: &Value) -> Res<String> {
        let args = match v {
            Value::Instance(i) => i.dict.borrow().get("args").cloned(),
            _ => None,
        };
        let is_key_error =
            matches!(v, Value::Instance(i) if i.class.exc_kind() == Some(ExcKind::KeyError));
        match args {
            Some(Value::Tuple(t)) => match t.len() {
                0 => Ok(String::new()),
                1 if is_key_error => self.repr(&t[0]),
                1 => self.str_of(&t[0]),
                _ => self.repr(&Value::Tuple(t)),
            },
            Some(other) => self.str_of(&other),
            None => Ok(String::new()),
        }
    }

    fn repr_depth(&mut self, v: &Value, depth: u32) -> Res<String> {
        if depth > MAX_REPR_DEPTH {
            return Ok("...".into());
        }
        Ok(match v {
            Value::None => "None".into(),
            Value::Bool(b) => if *b { "True" } else { "False" }.into(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => float_repr(*f),
            Value::Str(s) => str_repr(s),
            Value::List(l) => {
                let items = l.borrow().clone();
                let mut parts = Vec::with_capacity(items.len());
                for x in &items {
                    parts.push(self.repr_depth(x, depth + 1)?);
                }
                format!("[{}]", parts.join(", "))
            }
            Value::Tuple(t) => {
                let mut parts = Vec::with_capacity(t.len());
                for x in t.iter() {
                    parts.push(self.repr_depth(x, depth + 1)?);
                }
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            Value::Dict(d) => {
                let items = d.borrow().items();
                let mut parts = Vec::with_capacity(items.len());
                for (k, x) in &items {
                    parts.push(format!(
                        "{}: {}",
                        self.repr_depth(k, depth + 1)?,
                        self.repr_depth(x, depth + 1)?
                    ));
                }
                format!("{{{}}}", parts.join(", "))
            }
            Value::Set(d) => {
                let keys = d.borrow().keys();
                if keys.is_empty() {
                    "set()".into()
                } else {
                    let mut parts = Vec::with_capacity(keys.len());
                    for k in &keys {
                        parts.push(self.repr_depth(k, depth + 1)?);
                    }
                    format!("{{{}}}", parts.join(", "))
                }
            }
            Value::Range(r) => {
                if r.step == 1 {
                    format!("range({}, {})", r.start, r.stop)
                } else {
                    format!("range({}, {}, {})", r.start, r.stop, r.step)
                }
            }
            Value::Slice(s) => format!(
                "slice({}, {}, {})",
                self.repr_depth(&s.start, depth + 1)?,
                self.repr_depth(&s.stop, depth + 1)?,
                self.repr_depth(&s.step, depth + 1)?
            ),
            Value::Func(f) => format!("<function {} at {}>", f.qualname, addr(v)),
            Value::Method(m) => {
                let fname = match &m.1 {
                    Value::Func(f) => f.qualname.to_string(),
                    _ => "?".into(),
                };
                let recv = self.repr_depth(&m.0, depth + 1)?;
                format!("<bound method {fname} of {recv}>")
            }
            Value::Builtin(b) => {
                let short = b.name.rsplit('.').next().unwrap_or(&b.name);
                format!("<built-in function {short}>")
            }
            Value::BoundMethod(m) => format!(
                "<built-in method {} of {} object at {}>",
                m.1,
                m.0.type_name(),
                addr(&m.0)
            ),
            Value::Class(c) => c.repr(),
            Value::Instance(i) => {
                if i.class.lookup("__repr__").is_none() && i.class.exc_kind().is_some() {
                    let args = i.dict.borrow().get("args").cloned();
                    let inner = match args {
                        Some(Value::Tuple(t)) if t.len() == 1 => {
                            self.repr_depth(&t[0], depth + 1)?
                        }
                        Some(Value::Tuple(t)) => {
                            let r = self.repr_depth(&Value::Tuple(t), depth + 1)?;
                            r.trim_start_matches('(')
                                .trim_end_matches(')')
                                .trim_end_matches(',')
                                .to_string()
                        }
                        _ => String::new(),
                    };
                    return Ok(format!("{}({inner})", i.class.name));
                }
                if let Some(m) = i.class.lookup("__repr__") {
                    let r = self.call(&m, Args::new(vec![v.clone()]))?;
                    return match r {
                        Value::Str(s) => Ok(s.to_string()),
                        other => Err(PyErr::type_error(format!(
                            "__repr__ returned non-string (type {})",
                            other.type_name()
                        ))),
                    };
                }
                format!(
                    "<{}.{} object at {}>",
                    i.class.module,
                    i.class.name,
                    addr(v)
                )
            }
            Value::Module(m) => format!("<module '{}'>", m.name),
            Value::Iter(_) => format!("<iterator object at {}>", addr(v)),
            Value::Array(a) => super::numpy::array_repr(&a.borrow()),
            Value::NpScalar(s) => super::numpy::scalar_repr(s),
            Value::NpDType(d) => format!("dtype('{}')", super::numpy::dtype_name(*d)),
            Value::Host(o) => o.clone().repr(self)?,
        })
    }

    // ------------------------------------------------------------------
    // format()

    /// `format(value, spec)`.
    pub(crate) fn format_value(&mut self, v: &Value, spec: &str) -> Res<String> {
        match v {
            Value::Bool(b) if spec.is_empty() => Ok(if *b { "True" } else { "False" }.into()),
            Value::Int(_) | Value::Bool(_) => {
                let i = num_i64(v).unwrap_or(0);
                format_int(i, spec)
            }
            Value::Float(f) => format_float(*f, spec),
            Value::Str(s) => format_str(s, spec),
            Value::NpScalar(s) => {
                // NumPy scalars format through the Python float or int.
                if spec.is_empty() {
                    return Ok(match s.num {
                        _ if s.dtype.is_bool() => {
                            if s.num.as_i64() != 0 {
                                "True".into()
                            } else {
                                "False".into()
                            }
                        }
                        Num::I(i) => i.to_string(),
                        Num::F(f) => float_repr(f),
                    });
                }
                match s.num {
                    Num::I(i) if !s.dtype.is_bool() => format_int(i, spec),
                    n => format_float(n.as_f64(), spec),
                }
            }
            Value::Instance(i) if i.class.lookup("__format__").is_some() => {
                let m = self.get_attr(v, "__format__")?;
                let r = self.call(&m, Args::new(vec![Value::str(spec)]))?;
                self.str_of(&r)
            }
            _ => {
                if spec.is_empty() {
                    self.str_of(v)
                } else {
                    // Host objects with a numeric value format like floats.
                    if let Some(f) = num_f64(v) {
                        return format_float(f, spec);
                    }
                    let s = self.str_of(v)?;
                    if matches!(v, Value::Host(_)) {
                        return format_str(&s, spec);
                    }
                    Err(PyErr::type_error(format!(
                        "unsupported format string passed to {}.__format__",
                        v.type_name()
                    )))
                }
            }
        }
    }

    pub(crate) fn eval_fstring(&mut self, parts: &[FStringPart]) -> Res<Value> {
        let mut out = String::new();
        self.fstring_into(parts, &mut out)?;
        Ok(Value::str(out))
    }

    fn fstring_into(&mut self, parts: &[FStringPart], out: &mut String) -> Res<()> {
        for p in parts {
            match p {
                FStringPart::Literal(s) => out.push_str(s),
                FStringPart::Field(f) => {
                    let v = self.eval(&f.expr)?;
                    if let Some(t) = &f.debug_text {
                        out.push_str(t);
                    }
                    let conv = match (f.conversion, &f.debug_text, &f.format_spec) {
                        (Some(c), _, _) => Some(c),
                        (None, Some(_), None) => Some('r'),
                        _ => None,
                    };
                    let v = match conv {
                        Some('r') | Some('a') => Value::str(self.repr(&v)?),
                        Some('s') => Value::str(self.str_of(&v)?),
                        _ => v,
                    };
                    let spec = match &f.format_spec {
                        Some(sp) => {
                            let mut s = String::new();
                            self.fstring_into(sp, &mut s)?;
                            s
                        }
                        None => String::new(),
                    };
                    let text = self.format_value(&v, &spec).map_err(|e| e.at(f.span))?;
                    out.push_str(&text);
                }
            }
        }
        Ok(())
    }
}

/// A parsed format spec.
#[derive(Default, Debug)]
struct Spec {
    fill: char,
    align: Option<char>,
    sign: Option<char>,
    alt: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

fn parse_spec(spec: &str) -> Res<Spec> {
    let chars: Vec<char> = spec.chars().collect();
    let mut s = Spec {
        fill: ' ',
        ..Spec::default()
    };
    let mut i = 0;
    let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
    if chars.len() >= 2 && is_align(chars[1]) {
        s.fill = chars[0];
        s.align = Some(chars[1]);
        i = 2;
    } else if !chars.is_empty() && is_align(chars[0]) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if let Some(&c) = chars.get(i) {
        if matches!(c, '+' | '-' | ' ') {
            s.sign = Some(c);
            i += 1;
        }
    }
    if chars.get(i) == Some(&'z') {
        i += 1;
    }
    if chars.get(i) == Some(&'#') {
        s.alt = true;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        s.zero = true;
        i += 1;
    }
    let mut w = String::new();
    while let Some(&c) = chars.get(i) {
        if c.is_ascii_digit() {
            w.push(c);
            i += 1;
        } else {
            break;
        }
    }
    if !w.is_empty() {
        s.width = w
            .parse()
            .map_err(|_| PyErr::value_error("Too many decimal digits in format string"))?;
    }
    if let Some(&c) = chars.get(i) {
        if c == ',' || c == '_' {
            s.grouping = Some(c);
            i += 1;
        }
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        let mut p = String::new();
        while let Some(&c) = chars.get(i) {
            if c.is_ascii_digit() {
                p.push(c);
                i += 1;
            } else {
                break;
            }
        }
        if p.is_empty() {
            return Err(PyErr::value_error("Format specifier missing precision"));
        }
        s.precision = Some(
            p.parse()
                .map_err(|_| PyErr::value_error("Too many decimal digits in format string"))?,
        );
    }
    if let Some(&c) = chars.get(i) {
        s.ty = Some(c);
        i += 1;
    }
    if i < chars.len() {
        return Err(PyErr::value_error("Invalid format specifier"));
    }
    if s.width > 100_000 || s.precision.is_some_and(|p| p > 10_000) {
        return Err(PyErr::value_error("format width or precision too large"));
    }
    Ok(s)
}

/// Pads `body` (with its sign split off in `sign`) to the spec's width.
fn pad(sign: &str, body: &str, spec: &Spec, default_align: char) -> String {
    let (fill, align) = if spec.zero && spec.align.is_none() {
        ('0', '=')
    } else {
        (spec.fill, spec.align.unwrap_or(default_align))
    };
    let len = sign.chars().count() + body.chars().count();
    if len >= spec.width {
        return format!("{sign}{body}");
    }
    let n = spec.width - len;
    let f = |k: usize| fill.to_string().repeat(k);
    match align {
        '<' => format!("{sign}{body}{}", f(n)),
        '^' => format!("{}{sign}{body}{}", f(n / 2), f(n - n / 2)),
        '=' => format!("{sign}{}{body}", f(n)),
        _ => format!("{}{sign}{body}", f(n)),
    }
}

fn group(digits: &str, sep: char, every: usize) -> String {
    let mut out = String::new();
    let n = digits.len();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(every) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

fn sign_str(neg: bool, spec: &Spec) -> &'static str {
    if neg {
        "-"
    } else {
        match spec.sign {
            Some('+') => "+",
            Some(' ') => " ",
            _ => "",
        }
    }
}

pub fn format_int(i: i64, spec_text: &str) -> Res<String> {
    let spec = parse_spec(spec_text)?;
    match spec.ty {
        Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => return format_float(i as f64, spec_text),
        Some('s') => {
            return Err(PyErr::value_error(
                "Unknown format code 's' for object of type 'int'",
            ))
        }
        _ => {}
    }
    if spec.precision.is_some() {
        return Err(PyErr::value_error(
            "Precision not allowed in integer format specifier",
        ));
    }
    let neg = i < 0;
    let mag = i.unsigned_abs();
    let (prefix, digits) = match spec.ty {
        Some('b') => ("0b", format!("{mag:b}")),
        Some('o') => ("0o", format!("{mag:o}")),
        Some('x') => ("0x", format!("{mag:x}")),
        Some('X') => ("0X", format!("{mag:X}")),
        Some('c') => {
            let c = char::from_u32(i as u32).ok_or_else(|| {
                PyErr::new(ExcKind::OverflowError, "%c arg not in range(0x110000)")
            })?;
            return Ok(pad("", &c.to_string(), &spec, '<'));
        }
        None | Some('d') | Some('n') => ("", mag.to_string()),
        Some(c) => {
            return Err(PyErr::value_error(format!(
                "Unknown format code '{c}' for object of type 'int'"
            )))
        }
    };
    let digits = match spec.grouping {
        Some(sep) => group(&digits, sep, if prefix.is_empty() { 3 } else { 4 }),
        None => digits,
    };
    let sign = format!(
        "{}{}",
        sign_str(neg, &spec),
        if spec.alt { prefix } else { "" }
    );
    Ok(pad(&sign, &digits, &spec, '>'))
}

/// `%e`-style: mantissa with `prec` digits and a signed two-digit exponent.
pub fn fmt_exp(x: f64, prec: usize, upper: bool, alt: bool) -> String {
    let s = format!("{:.*e}", prec, x.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut mant = mant.to_string();
    if alt && !mant.contains('.') {
        mant.push('.');
    }
    let e = if upper { 'E' } else { 'e' };
    let esign = if exp < 0 { '-' } else { '+' };
    format!("{mant}{e}{esign}{:02}", exp.unsigned_abs())
}

/// `%g`-style formatting of a finite non-negative value.
pub fn fmt_general(x: f64, prec: usize, upper: bool, alt: bool) -> String {
    let p = prec.max(1);
    let exp = if x == 0.0 {
        0
    } else {
        let s = format!("{:.*e}", p - 1, x);
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i32>().ok())
            .unwrap_or(0)
    };
    if exp >= -4 && exp < p as i32 {
        let s = format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, x);
        if alt {
            if s.contains('.') {
                s
            } else {
                format!("{s}.")
            }
        } else {
            strip_zeros(&s)
        }
    } else {
        let s = fmt_exp(x, p - 1, upper, alt);
        if alt {
            s
        } else {
            let (m, e) = s
                .split_once(if upper { 'E' } else { 'e' })
                .unwrap_or((&s, ""));
            format!("{}{}{e}", strip_zeros(m), if upper { 'E' } else { 'e' })
        }
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

pub fn format_float(x: f64, spec_text: &str) -> Res<String> {
    let spec = parse_spec(spec_text)?;
    let neg = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    let upper = matches!(spec.ty, Some('E' | 'F' | 'G'));
    let body = if !x.is_finite() {
        let t = if x.is_nan() { "nan" } else { "inf" };
        if upper {
            t.to_uppercase()
        } else {
            t.to_string()
        }
    } else {
        match spec.ty {
            Some('f' | 'F') => {
                let s = format!("{:.*}", spec.precision.unwrap_or(6), a);
                if spec.alt && !s.contains('.') {
                    format!("{s}.")
                } else {
                    s
                }
            }
            Some('e' | 'E') => fmt_exp(a, spec.precision.unwrap_or(6), upper, spec.alt),
            Some('g' | 'G') => fmt_general(a, spec.precision.unwrap_or(6), upper, spec.alt),
            Some('%') => format!("{:.*}%", spec.precision.unwrap_or(6), a * 100.0),
            Some('n') => fmt_general(a, spec.precision.unwrap_or(6), false, spec.alt),
            None => match spec.precision {
                None => float_repr(a),
                Some(p) => {
                    let s = fmt_general(a, p, false, spec.alt);
                    if s.contains(['.', 'e', 'n', 'i']) {
                        s
                    } else {
                        format!("{s}.0")
                    }
                }
            },
            Some(c) => {
                return Err(PyErr::value_error(format!(
                    "Unknown format code '{c}' for object of type 'float'"
                )))
            }
        }
    };
    let body = match spec.grouping {
        Some(sep) if x.is_finite() => {
            let (int, rest) = match body.find(|c: char| !c.is_ascii_digit()) {
                Some(i) => body.split_at(i),
                None => (body.as_str(), ""),
            };
            format!("{}{rest}", group(int, sep, 3))
        }
        _ => body,
    };
    Ok(pad(sign_str(neg, &spec), &body, &spec, '>'))
}

pub fn format_str(s: &str, spec_text: &str) -> Res<String> {
    let spec = parse_spec(spec_text)?;
    if let Some(c) = spec.ty {
        if c != 's' {
            return Err(PyErr::value_error(format!(
                "Unknown format code '{c}' for object of type 'str'"
            )));
        }
    }
    if spec.sign.is_some() {
        return Err(PyErr::value_error(
            "Sign not allowed in string format specifier",
        ));
    }
    let body: String = match spec.precision {
        Some(p) => s.chars().take(p).collect(),
        None => s.to_string(),
    };
    Ok(pad("", &body, &spec, '<'))
}

/// `fmt % args`.
pub fn percent_format(it: &mut Interp, fmt: &str, args: &Value) -> Res<String> {
    let mut args = PercentArgs::new(args);
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let spec = parse_percent_spec(&chars, &mut i, &mut args)?;
        if spec.conv == '%' {
            out.push('%');
            continue;
        }
        let v = args.take(spec.key.as_deref())?;
        // `i` is just past the conversion character.
        let (neg, body) = percent_convert(it, &spec, &v, i - 1)?;
        push_percent_padded(&mut out, &spec, neg, &body);
    }
    if args.mapping.is_none() && args.next < args.items.len() {
        return Err(PyErr::type_error(
            "not all arguments converted during string formatting",
        ));
    }
    Ok(out)
}

/// The right operand of `fmt % args`: positional items taken in order, or
/// a mapping that `%(key)` directives look up.
struct PercentArgs {
    items: Vec<Value>,
    mapping: Option<Value>,
    next: usize,
}

impl PercentArgs {
    fn new(args: &Value) -> Self {
        let (items, mapping): (Vec<Value>, Option<Value>) = match args {
            Value::Tuple(t) => (t.to_vec(), None),
            Value::Dict(_) => (vec![args.clone()], Some(args.clone())),
            other => (vec![other.clone()], None),
        };
        PercentArgs {
            items,
            mapping,
            next: 0,
        }
    }

    /// The mapping's entry for `key`, or else the next positional item.
    fn take(&mut self, key: Option<&str>) -> Res<Value> {
        if let Some(k) = key {
            let m = self
                .mapping
                .clone()
                .ok_or_else(|| PyErr::type_error("format requires a mapping"))?;
            return match &m {
                Value::Dict(d) => d
                    .borrow()
                    .get_str(k)
                    .ok_or_else(|| PyErr::key_error(Value::str(k))),
                _ => Err(PyErr::type_error("format requires a mapping")),
            };
        }
        let v = self
            .items
            .get(self.next)
            .cloned()
            .ok_or_else(|| PyErr::type_error("not enough arguments for format string"))?;
        self.next += 1;
        Ok(v)
    }
}

/// One `%[(key)][flags][width][.precision]conv` directive.
struct PercentSpec {
    key: Option<String>,
    left: bool,
    zero: bool,
    plus: bool,
    space: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
    conv: char,
}

/// Parses the directive after a `%` at `chars[*i]`, leaving `*i` just past
/// its conversion character; a `*` width or precision takes an argument.
fn parse_percent_spec(chars: &[char], i: &mut usize, args: &mut PercentArgs) -> Res<PercentSpec> {
    let mut key = None;
    if chars.get(*i) == Some(&'(') {
        let start = *i + 1;
        let mut j = start;
        while j < chars.len() && chars[j] != ')' {
            j += 1;
        }
        key = Some(chars[start..j.min(chars.len())].iter().collect::<String>());
        *i = j + 1;
    }
    let mut flags = String::new();
    while let Some(&f) = chars.get(*i) {
        if matches!(f, '-' | '+' | ' ' | '#' | '0') {
            flags.push(f);
            *i += 1;
        } else {
            break;
        }
    }
    let width = percent_count(chars, i, args, key.as_deref())?;
    let mut precision = None;
    if chars.get(*i) == Some(&'.') {
        *i += 1;
        let p = percent_count(chars, i, args, key.as_deref())?;
        precision = Some(p.parse::<usize>().unwrap_or(0));
    }
    // Length modifiers are ignored, as in Python.
    while matches!(chars.get(*i), Some('h' | 'l' | 'L')) {
        *i += 1;
    }
    let Some(&conv) = chars.get(*i) else {
        return Err(PyErr::value_error("incomplete format"));
    };
    *i += 1;
    let left = flags.contains('-');
    Ok(PercentSpec {
        key,
        left,
        zero: flags.contains('0') && !left,
        plus: flags.contains('+'),
        space: flags.contains(' '),
        alt: flags.contains('#'),
        width: width.parse::<usize>().unwrap_or(0).min(100_000),
        precision: precision.map(|p| p.min(10_000)),
        conv,
    })
}

/// A width or precision: its digits, or the argument a `*` takes.
fn percent_count(
    chars: &[char],
    i: &mut usize,
    args: &mut PercentArgs,
    key: Option<&str>,
) -> Res<String> {
    let mut digits = String::new();
    if chars.get(*i) == Some(&'*') {
        let w = args.take(key)?;
        digits = num_i64(&w).unwrap_or(0).to_string();
        *i += 1;
    } else {
        while let Some(&d) = chars.get(*i) {
            if d.is_ascii_digit() {
                digits.push(d);
                *i += 1;
            } else {
                break;
            }
        }
    }
    Ok(digits)
}

/// Converts one argument: whether it is negative, and its digits or text
/// without sign or padding. `conv_index` places an unknown conversion.
fn percent_convert(
    it: &mut Interp,
    spec: &PercentSpec,
    v: &Value,
    conv_index: usize,
) -> Res<(bool, String)> {
    let conv = spec.conv;
    let precision = spec.precision;
    let alt = spec.alt;
    Ok(match conv {
        's' | 'r' | 'a' => {
            let s = if conv == 's' {
                it.str_of(v)?
            } else {
                it.repr(v)?
            };
            let s = match precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            };
            (false, s)
        }
        'd' | 'i' | 'u' => {
            let n = match v {
                Value::Float(f) => *f as i64,
                other => num_i64(other)
                    .or_else(|| num_f64(other).map(|f| f as i64))
                    .ok_or_else(|| {
                        PyErr::type_error(format!(
                            "%{conv} format: a real number is required, not {}",
                            other.type_name()
                        ))
                    })?,
            };
            (n < 0, n.unsigned_abs().to_string())
        }
        'x' | 'X' | 'o' => {
            let n = num_i64(v).ok_or_else(|| {
                PyErr::type_error(format!(
                    "%{conv} format: an integer is required, not {}",
                    v.type_name()
                ))
            })?;
            let m = n.unsigned_abs();
            let s = match conv {
                'x' => format!("{}{m:x}", if alt { "0x" } else { "" }),
                'X' => format!("{}{m:X}", if alt { "0X" } else { "" }),
                _ => format!("{}{m:o}", if alt { "0o" } else { "" }),
            };
            (n < 0, s)
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
            let x = num_f64(v).ok_or_else(|| {
                PyErr::type_error(format!("must be real number, not {}", v.type_name()))
            })?;
            let a = x.abs();
            let p = precision.unwrap_or(6);
            let upper = conv.is_ascii_uppercase();
            let body = if !x.is_finite() {
                let t = if x.is_nan() { "nan" } else { "inf" };
                if upper {
                    t.to_uppercase()
                } else {
                    t.to_string()
                }
            } else {
                match conv {
                    'e' | 'E' => fmt_exp(a, p, upper, alt),
                    'f' | 'F' => format!("{a:.p$}"),
                    _ => fmt_general(a, p, upper, alt),
                }
            };
            (x.is_sign_negative() && !x.is_nan(), body)
        }
        'c' => {
            let s = match v {
                Value::Str(s) if s.chars().count() == 1 => s.to_string(),
                other => match num_i64(other).and_then(|n| char::from_u32(n as u32)) {
                    Some(c) => c.to_string(),
                    None => return Err(PyErr::type_error("%c requires int or char")),
                },
            };
            (false, s)
        }
        other => {
            return Err(PyErr::value_error(format!(
                "unsupported format character '{other}' (0x{:x}) at index {conv_index}",
                other as u32,
            )))
        }
    })
}

/// Appends a converted argument with its sign, padded to the spec's width.
fn push_percent_padded(out: &mut String, spec: &PercentSpec, neg: bool, body: &str) {
    // Text conversions take no sign and pad with spaces only.
    let numeric = !matches!(spec.conv, 's' | 'r' | 'a' | 'c');
    let sign = if neg {
        "-"
    } else if spec.plus && numeric {
        "+"
    } else if spec.space && numeric {
        " "
    } else {
        ""
    };
    let width = spec.width;
    let len = sign.chars().count() + body.chars().count();
    if len >= width {
        out.push_str(sign);
        out.push_str(body);
    } else if spec.left {
        out.push_str(sign);
        out.push_str(body);
        out.push_str(&" ".repeat(width - len));
    } else if spec.zero && numeric {
        out.push_str(sign);
        out.push_str(&"0".repeat(width - len));
        out.push_str(body);
    } else {
        out.push_str(&" ".repeat(width - len));
        out.push_str(sign);
        out.push_str(body);
    }
}
