//! The tokenizer: source text → [`Token`]s.
//!
//! See the [module documentation](super) for an overview. The lexer runs to
//! completion up front (the token vector is what the parser backtracks over),
//! and stops at the first error: it then emits a [`Tok::Error`] token at the
//! offending position followed by [`Tok::Eof`], and keeps the diagnostic in
//! [`Lexed::error`]. The parser reports that diagnostic when it reaches the
//! error token, so errors come out in source order.

use crate::diag::{Diagnostic, Span};

/// Python's tokenizer limit on bracket nesting.
pub(crate) const MAX_BRACKETS: usize = 200;
/// Python's tokenizer limit on indentation levels.
pub(crate) const MAX_INDENTS: usize = 100;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Name(String),
    Int(i64),
    Float(f64),
    Imag(f64),
    Str(Box<StrTok>),
    Kw(Kw),
    Op(Op),
    /// An IPython magic line (`%pip ...`, `!ls`), without the newline.
    Magic(String),
    Newline,
    Indent,
    Dedent,
    /// Where the lexer gave up; see [`Lexed::error`].
    Error,
    Eof,
}

/// A string literal token. Non-f literals are decoded by the lexer; the body
/// of f-strings is parsed by the parser (it contains expressions).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StrTok {
    pub kind: StrKind,
    pub raw: bool,
    /// The text between the quotes.
    pub body: Span,
    /// Decoded value for [`StrKind::Str`].
    pub value: String,
    /// Decoded value for [`StrKind::Bytes`].
    pub bytes: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StrKind {
    Str,
    Bytes,
    FString,
}

macro_rules! keywords {
    ($($variant:ident => $text:literal,)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Kw { $($variant,)* }

        impl Kw {
            pub fn from_str(s: &str) -> Option<Kw> {
                match s { $($text => Some(Kw::$variant),)* _ => None }
            }
            pub fn as_str(self) -> &'static str {
                match self { $(Kw::$variant => $text,)* }
            }
        }
    };
}

keywords! {
    False => "False",
    None => "None",
    True => "True",
    And => "and",
    As => "as",
    Assert => "assert",
    Async => "async",
    Await => "await",
    Break => "break",
    Class => "class",
    Continue => "continue",
    Def => "def",
    Del => "del",
    Elif => "elif",
    Else => "else",
    Except => "except",
    Finally => "finally",
    For => "for",
    From => "from",
    Global => "global",
    If => "if",
    Import => "import",
    In => "in",
    Is => "is",
    Lambda => "lambda",
    Nonlocal => "nonlocal",
    Not => "not",
    Or => "or",
    Pass => "pass",
    Raise => "raise",
    Return => "return",
    Try => "try",
    While => "while",
    With => "with",
    Yield => "yield",
}

macro_rules! operators {
    ($($variant:ident => $text:literal,)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Op { $($variant,)* }

        impl Op {
            pub fn as_str(self) -> &'static str {
                match self { $(Op::$variant => $text,)* }
            }
        }

        /// All operators, longest first (for maximal munch).
        const OPERATORS: &[(&str, Op)] = &[$(($text, Op::$variant),)*];
    };
}

operators! {
    // three characters
    PowAssign => "**=",
    FloorDivAssign => "//=",
    ShlAssign => "<<=",
    ShrAssign => ">>=",
    Ellipsis => "...",
    // two characters
    Arrow => "->",
    Walrus => ":=",
    EqEq => "==",
    NotEq => "!=",
    LtE => "<=",
    GtE => ">=",
    Pow => "**",
    FloorDiv => "//",
    Shl => "<<",
    Shr => ">>",
    AddAssign => "+=",
    SubAssign => "-=",
    MulAssign => "*=",
    DivAssign => "/=",
    ModAssign => "%=",
    AndAssign => "&=",
    OrAssign => "|=",
    XorAssign => "^=",
    MatMulAssign => "@=",
    // one character
    Plus => "+",
    Minus => "-",
    Star => "*",
    Slash => "/",
    Percent => "%",
    At => "@",
    Amp => "&",
    Pipe => "|",
    Caret => "^",
    Tilde => "~",
    Lt => "<",
    Gt => ">",
    LParen => "(",
    RParen => ")",
    LBracket => "[",
    RBracket => "]",
    LBrace => "{",
    RBrace => "}",
    Comma => ",",
    Colon => ":",
    Semi => ";",
    Dot => ".",
    Assign => "=",
}

/// The lexer's output.
#[derive(Debug)]
pub(crate) struct Lexed {
    /// Always ends with [`Tok::Eof`].
    pub tokens: Vec<Token>,
    /// The first error, if any (a [`Tok::Error`] token marks where).
    pub error: Option<Diagnostic>,
    /// True when `error` is "bracket was never closed" (reported at the end
    /// of the input, but usually the real cause of an earlier parse error).
    pub unclosed: bool,
}

/// Tokenizes a module. A leading byte-order mark is skipped, as in Python.
pub(crate) fn tokenize(src: &str) -> Lexed {
    let start = if src.starts_with('\u{feff}') { 3 } else { 0 };
    Lexer::new(src, start, src.len(), false, false).run()
}

/// Tokenizes `src[start..end]` as if inside brackets: no NEWLINE, INDENT or
/// DEDENT tokens. Used for [`super::parse_expr`] and (with `fstring` set,
/// which forbids comments) for f-string fields.
pub(crate) fn tokenize_expr(src: &str, start: usize, end: usize, fstring: bool) -> Lexed {
    Lexer::new(src, start, end, true, fstring).run()
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    end: usize,
    tokens: Vec<Token>,
    /// Indentation stack of (column with tabs to 8, column with tabs to 1).
    indents: Vec<(u32, u32)>,
    /// Open brackets and where they were opened.
    brackets: Vec<(u8, Span)>,
    at_line_start: bool,
    expr_mode: bool,
    fstring: bool,
}

type LexResult<T> = Result<T, Box<Diagnostic>>;

fn span(start: usize, end: usize) -> Span {
    Span::from_range(start..end)
}

fn is_id_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_id_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str, start: usize, end: usize, expr_mode: bool, fstring: bool) -> Lexer<'a> {
        let end = end.min(src.len());
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos: start.min(end),
            end,
            tokens: Vec::new(),
            indents: vec![(0, 0)],
            brackets: Vec::new(),
            at_line_start: !expr_mode,
            expr_mode,
            fstring,
        }
    }

    fn run(mut self) -> Lexed {
        let mut unclosed = false;
        let error = if u32::try_from(self.src.len()).is_err() {
            Some(Box::new(Diagnostic::error(
                "source files larger than 4 GiB are not supported",
                Span::default(),
            )))
        } else {
            match self.lex_all() {
                Ok(()) => None,
                Err((e, is_unclosed)) => {
                    unclosed = is_unclosed;
                    Some(e)
                }
            }
        };
        if let Some(e) = &error {
            self.tokens.push(Token {
                kind: Tok::Error,
                span: e.span,
            });
        }
        let eof = span(self.end, self.end);
        self.tokens.push(Token {
            kind: Tok::Eof,
            span: eof,
        });
        Lexed {
            tokens: self.tokens,
            error: error.map(|e| *e),
            unclosed,
        }
    }

    fn peek(&self) -> Option<u8> {
        if self.pos < self.end {
            self.bytes.get(self.pos).copied()
        } else {
            None
        }
    }

    fn peek_at(&self, n: usize) -> Option<u8> {
        let i = self.pos + n;
        if i < self.end {
            self.bytes.get(i).copied()
        } else {
            None
        }
    }

    fn peek_char(&self) -> Option<char> {
        self.src.get(self.pos..self.end)?.chars().next()
    }

    fn push(&mut self, kind: Tok, start: usize, end: usize) {
        self.tokens.push(Token {
            kind,
            span: span(start, end),
        });
    }

    fn err<T>(&self, msg: impl Into<String>, start: usize, end: usize) -> LexResult<T> {
        Err(Box::new(Diagnostic::error(msg, span(start, end))))
    }

    /// Lexes everything; the error carries "is an unclosed bracket" too.
    fn lex_all(&mut self) -> Result<(), (Box<Diagnostic>, bool)> {
        loop {
            if self.at_line_start && self.brackets.is_empty() {
                self.at_line_start = false;
                if !self.indentation().map_err(|e| (e, false))? {
                    break;
                }
            }
            match self.next_token() {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => return Err((e, false)),
            }
        }
        // End of input.
        if !self.expr_mode {
            if let Some(&(open, at)) = self.brackets.last() {
                let d = Diagnostic::error(format!("`{}` was never closed", open as char), at)
                    .with_label(at, "unclosed delimiter");
                return Err((Box::new(d), true));
            }
            let needs_newline = self
                .tokens
                .last()
                .is_some_and(|t| !matches!(t.kind, Tok::Newline | Tok::Dedent | Tok::Indent));
            if needs_newline {
                self.push(Tok::Newline, self.end, self.end);
            }
            while self.indents.len() > 1 {
                self.indents.pop();
                self.push(Tok::Dedent, self.end, self.end);
            }
        }
        Ok(())
    }

    /// Handles the start of a logical line: skips blank and comment-only
    /// lines, emits INDENT/DEDENT tokens and recognizes IPython magics.
    /// Returns false at the end of the input.
    fn indentation(&mut self) -> LexResult<bool> {
        loop {
            let line_start = self.pos;
            let (mut col, mut alt) = (0u32, 0u32);
            while let Some(b) = self.peek() {
                match b {
                    b' ' => {
                        col = col.saturating_add(1);
                        alt = alt.saturating_add(1);
                    }
                    b'\t' => {
                        col = (col / 8).saturating_add(1).saturating_mul(8);
                        alt = alt.saturating_add(1);
                    }
                    b'\x0c' => {
                        col = 0;
                        alt = 0;
                    }
                    _ => break,
                }
                self.pos += 1;
            }
            match self.peek() {
                None => return Ok(false),
                Some(b'#') => {
                    self.skip_comment();
                    self.skip_newline();
                    continue;
                }
                Some(b'\n' | b'\r') => {
                    self.skip_newline();
                    continue;
                }
                Some(b'\\') if matches!(self.peek_at(1), Some(b'\n' | b'\r') | None) => {
                    // A line consisting of a continuation only: join it.
                    self.pos += 1;
                    if !self.skip_newline() {
                        return self.err(
                            "unexpected end of input after line continuation character",
                            self.pos - 1,
                            self.pos,
                        );
                    }
                    continue;
                }
                Some(_) => {}
            }
            let here = self.pos;
            let &(top, top_alt) = self.indents.last().unwrap_or(&(0, 0));
            let inconsistent = || {
                Err(Box::new(Diagnostic::error(
                    "inconsistent use of tabs and spaces in indentation",
                    span(line_start, here),
                )))
            };
            if col == top {
                if alt != top_alt {
                    return inconsistent();
                }
            } else if col > top {
                if alt <= top_alt {
                    return inconsistent();
                }
                if self.indents.len() >= MAX_INDENTS {
                    return self.err("too many levels of indentation", line_start, here);
                }
                self.indents.push((col, alt));
                self.push(Tok::Indent, line_start, here);
            } else {
                while self.indents.last().is_some_and(|&(c, _)| c > col) {
                    self.indents.pop();
                    self.push(Tok::Dedent, here, here);
                }
                let &(top, top_alt) = self.indents.last().unwrap_or(&(0, 0));
                if top != col {
                    return Err(Box::new(
                        Diagnostic::error(
                            "unindent does not match any outer indentation level",
                            span(line_start, here),
                        )
                        .with_label(span(line_start, here), "this indentation"),
                    ));
                }
                if alt != top_alt {
                    return inconsistent();
                }
            }
            if !self.expr_mode && matches!(self.peek(), Some(b'%' | b'!')) {
                let start = self.pos;
                while !matches!(self.peek(), None | Some(b'\n' | b'\r')) {
                    self.pos += 1;
                }
                let text = self.src.get(start..self.pos).unwrap_or("").trim_end();
                self.push(Tok::Magic(text.to_string()), start, start + text.len());
            }
            return Ok(true);
        }
    }

    fn skip_comment(&mut self) {
        while !matches!(self.peek(), None | Some(b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Skips one `\n`, `\r\n` or `\r`; false if there was none.
    fn skip_newline(&mut self) -> bool {
        match self.peek() {
            Some(b'\r') => {
                self.pos += 1;
                if self.peek() == Some(b'\n') {
                    self.pos += 1;
                }
                true
            }
            Some(b'\n') => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    /// Lexes one token (or skips whitespace/comments/newlines inside
    /// brackets). Returns false at the end of the input.
    fn next_token(&mut self) -> LexResult<bool> {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\x0c')) {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(b) = self.peek() else {
            return Ok(false);
        };
        match b {
            b'#' => {
                if self.fstring {
                    return self.err("f-string expression cannot include `#`", start, start + 1);
                }
                self.skip_comment();
            }
            b'\n' | b'\r' => {
                self.skip_newline();
                if self.brackets.is_empty() && !self.expr_mode {
                    self.push(Tok::Newline, start, self.pos);
                    self.at_line_start = true;
                }
            }
            b'\\' => {
                self.pos += 1;
                if !self.skip_newline() {
                    if self.peek().is_none() {
                        return self.err(
                            "unexpected end of input after line continuation character",
                            start,
                            start + 1,
                        );
                    }
                    return self.err(
                        "unexpected character after line continuation character",
                        start,
                        start + 1,
                    );
                }
            }
            b'0'..=b'9' => self.number()?,
            b'.' if matches!(self.peek_at(1), Some(b'0'..=b'9')) => self.number()?,
            b'\'' | b'"' => self.string(start, StrKind::Str, false)?,
            _ => {
                let c = self.peek_char().unwrap_or('\u{fffd}');
                if is_id_start(c) {
                    self.name_or_string()?;
                } else {
                    self.operator(c)?;
                }
            }
        }
        Ok(true)
    }

    fn name_or_string(&mut self) -> LexResult<()> {
        let start = self.pos;
        while let Some(c) = self.peek_char() {
            if !is_id_continue(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        let text = self.src.get(start..self.pos).unwrap_or("");
        if matches!(self.peek(), Some(b'\'' | b'"')) && text.len() <= 2 {
            let lower = text.to_ascii_lowercase();
            let prefix = match lower.as_str() {
                "r" => Some((StrKind::Str, true)),
                "u" => Some((StrKind::Str, false)),
                "b" => Some((StrKind::Bytes, false)),
                "br" | "rb" => Some((StrKind::Bytes, true)),
                "f" => Some((StrKind::FString, false)),
                "fr" | "rf" => Some((StrKind::FString, true)),
                _ => None,
            };
            if let Some((kind, raw)) = prefix {
                return self.string(start, kind, raw);
            }
        }
        let kind = match Kw::from_str(text) {
            Some(kw) => Tok::Kw(kw),
            None => Tok::Name(text.to_string()),
        };
        self.push(kind, start, self.pos);
        Ok(())
    }

    /// Lexes a string literal whose prefix starts at `start`; `self.pos` is
    /// at the opening quote.
    fn string(&mut self, start: usize, kind: StrKind, raw: bool) -> LexResult<()> {
        let quote = self.peek().unwrap_or(b'"');
        let triple = self.peek_at(1) == Some(quote) && self.peek_at(2) == Some(quote);
        let qlen = if triple { 3 } else { 1 };
        self.pos += qlen;
        let body_start = self.pos;
        let body_end;
        loop {
            let Some(b) = self.peek() else {
                let what = if triple {
                    "unterminated triple-quoted string literal"
                } else {
                    "unterminated string literal"
                };
                return self.err(what, start, body_start);
            };
            match b {
                b'\\' => {
                    self.pos += 1;
                    if !self.skip_newline() {
                        // Skip the escaped character (whole UTF-8 sequence).
                        match self.peek_char() {
                            Some(c) => self.pos += c.len_utf8(),
                            None => continue,
                        }
                    }
                }
                b'\n' | b'\r' if !triple => {
                    return self.err("unterminated string literal", start, body_start);
                }
                _ if b == quote
                    && (!triple
                        || (self.peek_at(1) == Some(quote) && self.peek_at(2) == Some(quote))) =>
                {
                    body_end = self.pos;
                    self.pos += qlen;
                    break;
                }
                _ => self.pos += 1,
            }
        }
        let body = self.src.get(body_start..body_end).unwrap_or("");
        let mut tok = StrTok {
            kind,
            raw,
            body: span(body_start, body_end),
            value: String::new(),
            bytes: Vec::new(),
        };
        match kind {
            StrKind::Str => {
                tok.value = if raw {
                    body.to_string()
                } else {
                    decode_str(body, body_start)?
                };
            }
            StrKind::Bytes => {
                tok.bytes = decode_bytes(body, body_start, raw)?;
            }
            StrKind::FString => {}
        }
        self.push(Tok::Str(Box::new(tok)), start, self.pos);
        Ok(())
    }

    fn digits(&mut self, valid: impl Fn(u8) -> bool) {
        while let Some(b) = self.peek() {
            if valid(b) || b == b'_' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn number(&mut self) -> LexResult<()> {
        let start = self.pos;
        let radix = match (self.peek(), self.peek_at(1)) {
            (Some(b'0'), Some(b'x' | b'X')) => Some(16),
            (Some(b'0'), Some(b'o' | b'O')) => Some(8),
            (Some(b'0'), Some(b'b' | b'B')) => Some(2),
            _ => None,
        };
        if let Some(radix) = radix {
            self.pos += 2;
            self.digits(|b| (b as char).is_ascii_alphanumeric());
            let text = self.src.get(start + 2..self.pos).unwrap_or("");
            let kind = match radix {
                16 => "hexadecimal",
                8 => "octal",
                _ => "binary",
            };
            let digits_ok = !text.is_empty()
                && !text.ends_with('_')
                && !text.contains("__")
                && text.chars().all(|c| c == '_' || c.is_digit(radix));
            if !digits_ok {
                return self.err(format!("invalid {kind} literal"), start, self.pos);
            }
            let clean: String = text.chars().filter(|&c| c != '_').collect();
            let value = match i64::from_str_radix(&clean, radix) {
                Ok(v) => v,
                Err(_) => return self.too_large(start),
            };
            self.push(Tok::Int(value), start, self.pos);
            return self.after_number(start);
        }
        let is_digit = |b: u8| b.is_ascii_digit();
        self.digits(is_digit);
        let mut is_float = false;
        if self.peek() == Some(b'.') {
            is_float = true;
            self.pos += 1;
            if matches!(self.peek(), Some(b'0'..=b'9')) {
                self.digits(is_digit);
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.peek_at(1), Some(b'+' | b'-')));
            if matches!(self.peek_at(1 + sign), Some(b'0'..=b'9')) {
                is_float = true;
                self.pos += 1 + sign;
                self.digits(is_digit);
            }
        }
        let text = self.src.get(start..self.pos).unwrap_or("");
        let underscores_ok = !text.contains("__")
            && !text.ends_with('_')
            && !text.contains("_.")
            && !text.contains("._")
            && !text.contains("_e")
            && !text.contains("_E")
            && !text.contains("e_")
            && !text.contains("E_");
        if !underscores_ok {
            return self.err("invalid decimal literal", start, self.pos);
        }
        let clean: String = text.chars().filter(|&c| c != '_').collect();
        if matches!(self.peek(), Some(b'j' | b'J')) {
            self.pos += 1;
            let value = clean.parse::<f64>().unwrap_or(f64::NAN);
            self.push(Tok::Imag(value), start, self.pos);
        } else if is_float {
            let value = clean.parse::<f64>().unwrap_or(f64::NAN);
            self.push(Tok::Float(value), start, self.pos);
        } else {
            if clean.len() > 1 && clean.starts_with('0') && clean.bytes().any(|b| b != b'0') {
                return Err(Box::new(
                    Diagnostic::error(
                        "leading zeros in decimal integer literals are not permitted",
                        span(start, self.pos),
                    )
                    .with_note("use an `0o` prefix for octal integers"),
                ));
            }
            let value = match clean.parse::<i64>() {
                Ok(v) => v,
                Err(_) => return self.too_large(start),
            };
            self.push(Tok::Int(value), start, self.pos);
        }
        self.after_number(start)
    }

    fn too_large(&self, start: usize) -> LexResult<()> {
        Err(Box::new(
            Diagnostic::error("integer literal is too large", span(start, self.pos))
                .with_note("integer literals must fit in a signed 64-bit integer"),
        ))
    }

    /// A number must not run into an identifier (`1abc`) or another `.`.
    fn after_number(&mut self, start: usize) -> LexResult<()> {
        if let Some(c) = self.peek_char() {
            if is_id_continue(c) {
                let mut end = self.pos;
                while let Some(c) = self.src.get(end..self.end).and_then(|s| s.chars().next()) {
                    if !is_id_continue(c) {
                        break;
                    }
                    end += c.len_utf8();
                }
                return self.err("invalid decimal literal", start, end);
            }
        }
        Ok(())
    }

    fn operator(&mut self, c: char) -> LexResult<()> {
        let start = self.pos;
        let rest = self.src.get(self.pos..self.end).unwrap_or("");
        let Some(&(text, op)) = OPERATORS.iter().find(|(text, _)| rest.starts_with(text)) else {
            let len = c.len_utf8();
            let msg = match c {
                '!' => "invalid character `!` (did you mean `not`?)".to_string(),
                '$' | '?' | '`' => format!("invalid character `{c}`"),
                '\u{201c}' | '\u{201d}' | '\u{2018}' | '\u{2019}' => format!(
                    "invalid character `{c}` (U+{:04X}); use an ASCII quote instead",
                    c as u32
                ),
                _ if c.is_control() || c.is_whitespace() => {
                    format!("invalid character U+{:04X} in source", c as u32)
                }
                _ => format!("invalid character `{c}` (U+{:04X})", c as u32),
            };
            return self.err(msg, start, start + len);
        };
        self.pos += text.len();
        let here = span(start, self.pos);
        match op {
            Op::LParen | Op::LBracket | Op::LBrace => {
                if self.brackets.len() >= MAX_BRACKETS {
                    return Err(Box::new(
                        Diagnostic::error("too many nested parentheses", here).with_note(format!(
                            "brackets may be nested at most {MAX_BRACKETS} levels deep"
                        )),
                    ));
                }
                let open = match op {
                    Op::LParen => b'(',
                    Op::LBracket => b'[',
                    _ => b'{',
                };
                self.brackets.push((open, here));
            }
            Op::RParen | Op::RBracket | Op::RBrace => {
                let (close, want) = match op {
                    Op::RParen => (b')', b'('),
                    Op::RBracket => (b']', b'['),
                    _ => (b'}', b'{'),
                };
                match self.brackets.pop() {
                    Some((open, _)) if open == want => {}
                    Some((open, at)) => {
                        return Err(Box::new(
                            Diagnostic::error(
                                format!(
                                    "closing `{}` does not match opening `{}`",
                                    close as char, open as char
                                ),
                                here,
                            )
                            .with_label(at, "opened here"),
                        ));
                    }
                    None if self.fstring && close == b'}' => {
                        return self.err("f-string: single `}` is not allowed", start, self.pos);
                    }
                    None => {
                        return self.err(format!("unmatched `{}`", close as char), start, self.pos);
                    }
                }
            }
            _ => {}
        }
        self.push(Tok::Op(op), start, self.pos);
        Ok(())
    }
}

/// Decodes the escapes of a (non-raw) `str` literal body starting at byte
/// offset `base` of the source.
pub(crate) fn decode_str(body: &str, base: usize) -> LexResult<String> {
    let mut out = String::with_capacity(body.len());
    decode(body, base, false, |v| {
        out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
    })?;
    Ok(out)
}

/// Decodes a bytes literal body (escapes unless `raw`); only ASCII
/// characters are allowed.
pub(crate) fn decode_bytes(body: &str, base: usize, raw: bool) -> LexResult<Vec<u8>> {
    if let Some((i, c)) = body.char_indices().find(|(_, c)| !c.is_ascii()) {
        return Err(Box::new(Diagnostic::error(
            "bytes can only contain ASCII literal characters",
            span(base + i, base + i + c.len_utf8()),
        )));
    }
    if raw {
        return Ok(body.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(body.len());
    let mut bad = None;
    decode(body, base, true, |v| match u8::try_from(v) {
        Ok(b) => out.push(b),
        Err(_) => bad = Some(v),
    })?;
    if let Some(v) = bad {
        return Err(Box::new(Diagnostic::error(
            format!("escape value {v:#o} is out of range for bytes"),
            span(base, base + body.len()),
        )));
    }
    Ok(out)
}

fn decode(body: &str, base: usize, bytes: bool, mut emit: impl FnMut(u32)) -> LexResult<()> {
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            emit(c as u32);
            continue;
        }
        let Some((_, e)) = chars.next() else {
            emit('\\' as u32);
            break;
        };
        let mut hex = |n: usize, what: &str| -> LexResult<u32> {
            let mut v = 0u32;
            for _ in 0..n {
                match chars.peek().and_then(|(_, d)| d.to_digit(16)) {
                    Some(d) => {
                        v = v * 16 + d;
                        chars.next();
                    }
                    None => {
                        let end = chars.peek().map_or(body.len(), |&(j, _)| j);
                        return Err(Box::new(Diagnostic::error(
                            format!("truncated `\\{what}` escape: expected {n} hex digits"),
                            span(base + i, base + end),
                        )));
                    }
                }
            }
            Ok(v)
        };
        match e {
            '\n' => {}
            '\r' => {
                if chars.peek().is_some_and(|&(_, c)| c == '\n') {
                    chars.next();
                }
            }
            '\\' => emit('\\' as u32),
            '\'' => emit('\'' as u32),
            '"' => emit('"' as u32),
            'a' => emit(7),
            'b' => emit(8),
            'f' => emit(12),
            'n' => emit(10),
            'r' => emit(13),
            't' => emit(9),
            'v' => emit(11),
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|(_, d)| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                emit(v);
            }
            'x' => emit(hex(2, "x")?),
            'u' if !bytes => emit(hex(4, "u")?),
            'U' if !bytes => {
                let v = hex(8, "U")?;
                if v > 0x10ffff {
                    return Err(Box::new(Diagnostic::error(
                        "`\\U` escape is out of the Unicode range",
                        span(base + i, base + i + 10),
                    )));
                }
                emit(v);
            }
            'N' if !bytes => {
                return Err(Box::new(Diagnostic::error(
                    "`\\N{...}` escapes are not supported",
                    span(base + i, base + i + 2),
                )));
            }
            other => {
                // Python keeps unknown escapes verbatim (with a warning).
                emit('\\' as u32);
                emit(other as u32);
            }
        }
    }
    Ok(())
}
