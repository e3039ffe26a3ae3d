//! The part of Pygments the MLC book's `code2html` helper uses (chapter 4,
//! nine cells): `pygments.highlight(code, lexer, formatter)`,
//! `pygments.lexers.Python3Lexer` / `PythonLexer` and
//! `pygments.formatters.HtmlFormatter` with `get_style_defs`.
//!
//! The HTML has Pygments' shape — `<div class="highlight"><pre>` with one
//! `<span class="…">` per token, using Pygments' short token classes (`k`
//! keyword, `kn` import keyword, `nf` function name, `nd` decorator, `s2`
//! string, `mi` number, `c1` comment, `o` operator, `p` punctuation) — from a
//! small Python tokenizer of its own; the style sheet covers those classes.
//! The objects are host objects ([`HostObject`]) outside the `tvm` bindings.

use std::any::Any;
use std::rc::Rc;

use crate::python::builtins::builtin;
use crate::python::error::{PyErr, Res};
use crate::python::host_object::HostObject;
use crate::python::interp::Interp;
use crate::python::value::*;

/// Pygments' objects.
enum PygmentsObj {
    /// A lexer (`Python3Lexer()`); only Python is known.
    PythonLexer,
    /// `HtmlFormatter(cssclass=…)`.
    HtmlFormatter { cssclass: String },
}

impl HostObject for PygmentsObj {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn class_name(&self) -> Option<&'static str> {
        Some(match self {
            PygmentsObj::PythonLexer => "pygments.lexers.python.PythonLexer",
            PygmentsObj::HtmlFormatter { .. } => "pygments.formatters.html.HtmlFormatter",
        })
    }

    fn repr(&self, _it: &mut Interp) -> Res<String> {
        Ok(match self {
            PygmentsObj::PythonLexer => "<pygments.lexers.PythonLexer>".into(),
            PygmentsObj::HtmlFormatter { .. } => {
                "<pygments.formatters.html.HtmlFormatter object>".into()
            }
        })
    }

    fn get_attr(&self, _it: &mut Interp, this: &Value, name: &str) -> Res<Value> {
        match (self, name) {
            (PygmentsObj::HtmlFormatter { .. }, "get_style_defs") => {
                Ok(Value::BoundMethod(Rc::new((this.clone(), name.into()))))
            }
            (PygmentsObj::HtmlFormatter { cssclass }, "cssclass") => {
                Ok(Value::str(cssclass.as_str()))
            }
            (PygmentsObj::PythonLexer, "name") => Ok(Value::str("Python")),
            _ => Err(PyErr::attribute_error(format!(
                "'{}' object has no attribute '{name}'",
                self.type_name()
            ))),
        }
    }

    fn call_method(&self, it: &mut Interp, _this: &Value, name: &str, a: Args) -> Res<Value> {
        match (self, name) {
            (PygmentsObj::HtmlFormatter { cssclass }, "get_style_defs") => {
                let prefix = match a.pos.first() {
                    Some(v) => it.str_of(v)?,
                    None => format!(".{cssclass}"),
                };
                Ok(Value::str(style_defs(&prefix).as_str()))
            }
            _ => Err(PyErr::attribute_error(format!(
                "'{}' object has no attribute '{name}'",
                self.type_name()
            ))),
        }
    }
}

/// Colours for the token classes [`highlight_python`] emits (Pygments'
/// default style).
const STYLE: &[(&str, &str)] = &[
    ("c1", "color: #3D7B7B; font-style: italic"),
    ("k", "color: #008000; font-weight: bold"),
    ("kn", "color: #008000; font-weight: bold"),
    ("kc", "color: #008000; font-weight: bold"),
    ("ow", "color: #AA22FF; font-weight: bold"),
    ("nf", "color: #0000FF"),
    ("nc", "color: #0000FF; font-weight: bold"),
    ("nd", "color: #AA22FF"),
    ("nb", "color: #008000"),
    ("s1", "color: #BA2121"),
    ("s2", "color: #BA2121"),
    ("mi", "color: #666666"),
    ("mf", "color: #666666"),
    ("o", "color: #666666"),
];

fn style_defs(prefix: &str) -> String {
    let mut out = format!("{prefix} {{ background: #f8f8f8; }}\n");
    for (class, css) in STYLE {
        out.push_str(&format!("{prefix} .{class} {{ {css} }}\n"));
    }
    out.trim_end().to_string()
}

const KEYWORDS: &[&str] = &[
    "assert", "async", "await", "break", "continue", "del", "elif", "else", "except", "finally",
    "for", "global", "if", "lambda", "nonlocal", "pass", "raise", "return", "try", "while", "with",
    "yield", "def", "class",
];
const WORD_OPERATORS: &[&str] = &["and", "in", "is", "not", "or"];
const CONSTANTS: &[&str] = &["True", "False", "None"];
const BUILTINS: &[&str] = &[
    "print",
    "range",
    "len",
    "int",
    "float",
    "str",
    "list",
    "tuple",
    "dict",
    "set",
    "type",
    "isinstance",
    "enumerate",
    "zip",
    "min",
    "max",
    "abs",
    "sum",
    "super",
];

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Python source as Pygments' HTML: one span per token, plain text for
/// whitespace and names.
pub fn highlight_python(code: &str, cssclass: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = format!("<div class=\"{cssclass}\"><pre><span></span>");
    let span = |out: &mut String, class: &str, text: &str| {
        out.push_str(&format!("<span class=\"{class}\">{}</span>", escape(text)));
    };
    let mut i = 0;
    // The class of the next name: after `def` a function, after `class` a class.
    let mut next_name: Option<&str> = None;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            span(&mut out, "c1", &chars[start..i].iter().collect::<String>());
        } else if c == '"' || c == '\'' {
            let triple = i + 2 < chars.len() && chars[i + 1] == c && chars[i + 2] == c;
            let quote_len = if triple { 3 } else { 1 };
            i += quote_len;
            while i < chars.len() {
                if chars[i] == '\\' {
                    i += 2;
                    continue;
                }
                if chars[i] == c
                    && (!triple || (i + 2 < chars.len() && chars[i + 1] == c && chars[i + 2] == c))
                {
                    i += quote_len;
                    break;
                }
                if !triple && chars[i] == '\n' {
                    break;
                }
                i += 1;
            }
            let i_end = i.min(chars.len());
            i = i_end;
            let class = if c == '"' { "s2" } else { "s1" };
            span(&mut out, class, &chars[start..i].iter().collect::<String>());
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let class = if text.contains('.') || text.contains('e') {
                "mf"
            } else {
                "mi"
            };
            span(&mut out, class, &text);
        } else if c == '@' && (i == 0 || chars[i - 1] == '\n' || chars[i - 1] == ' ') {
            i += 1;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
            span(&mut out, "nd", &chars[start..i].iter().collect::<String>());
        } else if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let w = word.as_str();
            if let Some(class) = next_name.take() {
                span(&mut out, class, w);
            } else if matches!(w, "import" | "from") {
                span(&mut out, "kn", w);
            } else if KEYWORDS.contains(&w) {
                next_name = match w {
                    "def" => Some("nf"),
                    "class" => Some("nc"),
                    _ => None,
                };
                span(&mut out, "k", w);
            } else if WORD_OPERATORS.contains(&w) {
                span(&mut out, "ow", w);
            } else if CONSTANTS.contains(&w) {
                span(&mut out, "kc", w);
            } else if BUILTINS.contains(&w) {
                span(&mut out, "nb", w);
            } else {
                span(&mut out, "n", w);
            }
        } else if c.is_whitespace() {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            out.push_str(&chars[start..i].iter().collect::<String>());
        } else {
            i += 1;
            let class = if "()[]{},:;.".contains(c) { "p" } else { "o" };
            span(&mut out, class, &c.to_string());
        }
    }
    if !code.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("</pre></div>\n");
    out
}

fn as_pygments(v: &Value) -> Option<&PygmentsObj> {
    v.host().and_then(|o| o.as_any().downcast_ref())
}

fn highlight(it: &mut Interp, mut a: Args) -> Res<Value> {
    let code = a.req(0, "code", "highlight")?;
    let lexer = a.req(1, "lexer", "highlight")?;
    let formatter = a.req(2, "formatter", "highlight")?;
    let code = it.str_of(&code)?;
    if !matches!(as_pygments(&lexer), Some(PygmentsObj::PythonLexer)) {
        return Err(PyErr::type_error(
            "highlight() takes a lexer: Tessel's pygments has Python3Lexer and PythonLexer",
        ));
    }
    match as_pygments(&formatter) {
        Some(PygmentsObj::HtmlFormatter { cssclass }) => {
            let html = highlight_python(&code, cssclass);
            Ok(Value::str(html.as_str()))
        }
        _ => Err(PyErr::type_error(
            "highlight() takes a formatter: Tessel's pygments has HtmlFormatter",
        )),
    }
}

fn python_lexer(_it: &mut Interp, _a: Args) -> Res<Value> {
    Ok(Value::Host(Rc::new(PygmentsObj::PythonLexer)))
}

fn html_formatter(it: &mut Interp, mut a: Args) -> Res<Value> {
    let cssclass = match a.take_kw("cssclass") {
        Some(v) => it.str_of(&v)?,
        None => "highlight".to_string(),
    };
    // Other options (`style`, `linenos`, `full`) only change the looks.
    a.kw.clear();
    Ok(Value::Host(Rc::new(PygmentsObj::HtmlFormatter {
        cssclass,
    })))
}

/// Registers `pygments`, `pygments.lexers` and `pygments.formatters`.
pub(crate) fn install(it: &mut Interp) {
    let lexer = builtin("pygments.lexers.PythonLexer", python_lexer);
    let lexers = module(
        "pygments.lexers",
        vec![("Python3Lexer", lexer.clone()), ("PythonLexer", lexer)],
    );
    let formatter = builtin("pygments.formatters.HtmlFormatter", html_formatter);
    let formatters = module("pygments.formatters", vec![("HtmlFormatter", formatter)]);
    let top = module(
        "pygments",
        vec![
            ("highlight", builtin("pygments.highlight", highlight)),
            ("lexers", lexers.clone()),
            ("formatters", formatters.clone()),
        ],
    );
    it.modules.insert("pygments".into(), top);
    it.modules.insert("pygments.lexers".into(), lexers);
    it.modules.insert("pygments.formatters".into(), formatters);
}
