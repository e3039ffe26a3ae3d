//! Literal spellings: floats the way TVM's C++ printer writes them, Python
//! string literals, and identifier sanitising.

/// A float literal as TVM 0.27 prints a `FloatImm` value (without the
/// `T.float32(…)` wrapper):
///
/// - infinities and NaN as quoted strings: `"inf"`, `"-inf"`, `"nan"`;
/// - integral values in fixed notation with one decimal: `1.0`, `-0.0`,
///   `100000002004087734272.0`;
/// - anything else like C's `%.17g`: `0.10000000000000001`, `1.5`,
///   `1.0000000000000001e-05`.
pub(crate) fn float_literal(v: f64) -> String {
    if v.is_nan() {
        return "\"nan\"".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "\"inf\"" } else { "\"-inf\"" }.to_string();
    }
    if v.round() == v {
        return format!("{v:.1}");
    }
    format_g17(v)
}

/// C's `printf("%.17g", v)` for a finite value.
fn format_g17(v: f64) -> String {
    const P: i32 = 17;
    // Scientific form with P significant digits gives the decimal exponent
    // after rounding, which is what %g bases its choice on.
    let sci = format!("{:.*e}", (P - 1) as usize, v);
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (sci.clone(), 0),
    };
    if !(-4..P).contains(&exp) {
        let m = trim_fraction_zeros(&mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.unsigned_abs())
    } else {
        let decimals = (P - 1 - exp).max(0) as usize;
        trim_fraction_zeros(&format!("{v:.decimals$}"))
    }
}

/// Drops trailing zeros of the fraction, and the point if nothing is left.
fn trim_fraction_zeros(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    let t = s.trim_end_matches('0');
    t.strip_suffix('.').unwrap_or(t).to_string()
}

/// A double-quoted Python string literal.
pub(crate) fn str_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Python's keywords (and the constants that are keywords): never usable as
/// a variable name in printed code.
pub(crate) const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// An identifier built from a name hint the way TVM does (every byte that is
/// not an ASCII letter, digit or `_` becomes `_`), plus two repairs TVM does
/// not make, so the output stays parseable: an empty hint becomes `v` (as in
/// TVM) and a hint starting with a digit gets a leading `_`.
pub(crate) fn sanitize_identifier(hint: &str) -> String {
    let mut out = String::with_capacity(hint.len());
    for c in hint.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else {
            for _ in 0..c.len_utf8() {
                out.push('_');
            }
        }
    }
    if out.is_empty() {
        out.push('v');
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_match_tvm() {
        // Expected strings printed by TVM 0.27 (`tirx.FloatImm(dt, v).script()`).
        let cases: &[(f64, &str)] = &[
            (1e-5, "1.0000000000000001e-05"),
            (3.0e10, "30000000000.0"),
            (0.1, "0.10000000000000001"),
            (-2.5, "-2.5"),
            (1e-30, "1.0000000000000001e-30"),
            (123456789.0, "123456789.0"),
            (f64::INFINITY, "\"inf\""),
            (f64::NEG_INFINITY, "\"-inf\""),
            (f64::NAN, "\"nan\""),
            (1e-7, "9.9999999999999995e-08"),
            (0.001, "0.001"),
            (3.4e38, "339999999999999996123846586046231871488.0"),
            (-0.0, "-0.0"),
            (0.0001, "0.0001"),
            (1e-12, "9.9999999999999998e-13"),
            (5e-8, "4.9999999999999998e-08"),
            (2e-6, "1.9999999999999999e-06"),
            (1.17549435e-38, "1.17549435e-38"),
            (1.0, "1.0"),
            (0.0, "0.0"),
            (100.0, "100.0"),
            (0.5, "0.5"),
            (1e16, "10000000000000000.0"),
            (1e17, "100000000000000000.0"),
            (12345.678, "12345.678"),
            (1e-300, "1e-300"),
            (1.0 / 3.0, "0.33333333333333331"),
            (1.0f32 as f64 / 3.0f32 as f64, "0.33333333333333331"),
            ((1.0f32 / 3.0f32) as f64, "0.3333333432674408"),
            (1.5, "1.5"),
        ];
        for (v, want) in cases {
            assert_eq!(float_literal(*v), *want, "value {v:e}");
        }
        let big = float_literal(1e300);
        assert!(big.starts_with("1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160"));
        assert!(big.ends_with(".0"));
    }

    #[test]
    fn identifiers() {
        assert_eq!(sanitize_identifier("a.b"), "a_b");
        assert_eq!(sanitize_identifier("x y"), "x_y");
        assert_eq!(sanitize_identifier(""), "v");
        assert_eq!(sanitize_identifier("1x"), "_1x");
        assert_eq!(sanitize_identifier("A_shared"), "A_shared");
        assert_eq!(sanitize_identifier("é"), "__");
    }

    #[test]
    fn strings() {
        assert_eq!(str_literal("threadIdx.x"), "\"threadIdx.x\"");
        assert_eq!(str_literal("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }
}
