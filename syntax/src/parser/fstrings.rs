//! String literals: implicit concatenation and f-strings (literal parts,
//! replacement fields, conversions, format specs).

use super::*;

impl<'a> Parser<'a> {
    // -----------------------------------------------------------------------
    // Strings and f-strings
    // -----------------------------------------------------------------------

    /// One or more adjacent string literals.
    pub(super) fn strings(&mut self) -> PResult<Expr> {
        let start = self.start();
        let mut toks: Vec<Box<StrTok>> = Vec::new();
        let mut first_kind = None;
        while let Tok::Str(s) = self.peek() {
            let s = s.clone();
            let is_bytes = s.kind == StrKind::Bytes;
            match first_kind {
                None => first_kind = Some(is_bytes),
                Some(b) if b != is_bytes => {
                    return Err(self.error("cannot mix bytes and nonbytes literals", self.span()));
                }
                Some(_) => {}
            }
            self.bump();
            toks.push(s);
        }
        let span = self.span_from(start);
        if first_kind == Some(true) {
            let bytes = toks.iter().flat_map(|t| t.bytes.iter().copied()).collect();
            return Ok(Expr::new(ExprKind::Bytes(bytes), span));
        }
        if toks.iter().all(|t| t.kind != StrKind::FString) {
            let s: String = toks.iter().map(|t| t.value.as_str()).collect();
            return Ok(Expr::new(ExprKind::Str(s), span));
        }
        let mut parts = Vec::new();
        for t in &toks {
            if t.kind == StrKind::FString {
                let (body_parts, _) =
                    self.fstring_parts(t.body.start as usize, t.body.end as usize, t.raw, 0)?;
                for p in body_parts {
                    push_part(&mut parts, p);
                }
            } else {
                push_part(&mut parts, FStringPart::Literal(t.value.clone()));
            }
        }
        Ok(Expr::new(ExprKind::FString(parts), span))
    }

    /// Parses f-string text in `src[pos..end]`. At `level` 0 this is a whole
    /// f-string body; at higher levels it is a format spec, which ends at an
    /// unmatched `}`. Returns the parts and the offset where parsing stopped.
    pub(super) fn fstring_parts(
        &self,
        mut pos: usize,
        end: usize,
        raw: bool,
        level: u32,
    ) -> PResult<(Vec<FStringPart>, usize)> {
        let bytes = self.src.as_bytes();
        let at = |i: usize| if i < end { bytes.get(i).copied() } else { None };
        let mut parts = Vec::new();
        let mut lit_start = pos;
        let flush = |parts: &mut Vec<FStringPart>, from: usize, to: usize| -> PResult<()> {
            if from < to {
                let text = self.src.get(from..to).unwrap_or("");
                let value = if raw {
                    text.to_string()
                } else {
                    lexer::decode_str(text, from)?
                };
                push_part(parts, FStringPart::Literal(value));
            }
            Ok(())
        };
        while let Some(b) = at(pos) {
            match b {
                b'\\' if !raw => {
                    // Keep escapes intact for `decode_str`, but never let
                    // them swallow a brace; skip over `\N{...}` names.
                    if at(pos + 1) == Some(b'N') && at(pos + 2) == Some(b'{') {
                        pos += 3;
                        while !matches!(at(pos), None | Some(b'}')) {
                            pos += 1;
                        }
                        pos += 1;
                    } else if matches!(at(pos + 1), Some(b'{' | b'}') | None) {
                        pos += 1;
                    } else {
                        pos += 2;
                    }
                }
                b'{' if level == 0 && at(pos + 1) == Some(b'{') => {
                    flush(&mut parts, lit_start, pos + 1)?;
                    pos += 2;
                    lit_start = pos;
                }
                b'}' if level == 0 && at(pos + 1) == Some(b'}') => {
                    flush(&mut parts, lit_start, pos + 1)?;
                    pos += 2;
                    lit_start = pos;
                }
                b'}' if level > 0 => break,
                b'}' => {
                    return Err(Box::new(
                        Diagnostic::error(
                            "f-string: single `}` is not allowed",
                            Span::from_range(pos..pos + 1),
                        )
                        .with_note("write `}}` for a literal `}`"),
                    ));
                }
                b'{' => {
                    flush(&mut parts, lit_start, pos)?;
                    let (field, next) = self.fstring_field(pos, end, raw, level)?;
                    parts.push(FStringPart::Field(field));
                    pos = next;
                    lit_start = pos;
                }
                _ => pos += 1,
            }
        }
        let stop = pos.min(end);
        flush(&mut parts, lit_start, stop)?;
        Ok((parts, stop))
    }

    /// Parses the replacement field starting at the `{` at `open`; returns
    /// it and the offset after its closing `}`.
    pub(super) fn fstring_field(
        &self,
        open: usize,
        end: usize,
        raw: bool,
        level: u32,
    ) -> PResult<(FStringField, usize)> {
        if level >= 2 {
            return Err(self.error(
                "f-string: expressions nested too deeply",
                Span::from_range(open..open + 1),
            ));
        }
        let bytes = self.src.as_bytes();
        let at = |i: usize| if i < end { bytes.get(i).copied() } else { None };
        let unclosed = || {
            Box::new(
                Diagnostic::error("f-string: expecting `}`", Span::from_range(open..open + 1))
                    .with_label(Span::from_range(open..open + 1), "field opened here"),
            )
        };
        // Find where the expression ends: a top-level `}`, `!`, `:` or the
        // `=` of a self-documenting field.
        let expr_start = open + 1;
        let mut pos = expr_start;
        let mut depth = 0usize;
        let mut debug_eq = None;
        loop {
            let Some(b) = at(pos) else {
                return Err(unclosed());
            };
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' if depth > 0 => depth -= 1,
                b'}' if depth > 0 => depth -= 1,
                b'\'' | b'"' => {
                    let q = b;
                    let triple = at(pos + 1) == Some(q) && at(pos + 2) == Some(q);
                    pos += if triple { 3 } else { 1 };
                    loop {
                        match at(pos) {
                            None => {
                                return Err(self.error(
                                    "f-string: unterminated string",
                                    Span::from_range(open..end),
                                ))
                            }
                            Some(b'\\') => pos += 2,
                            Some(c)
                                if c == q
                                    && (!triple
                                        || (at(pos + 1) == Some(q) && at(pos + 2) == Some(q))) =>
                            {
                                pos += if triple { 3 } else { 1 };
                                break;
                            }
                            Some(_) => pos += 1,
                        }
                    }
                    continue;
                }
                _ if depth > 0 => {}
                b'}' | b':' => break,
                b'!' if at(pos + 1) != Some(b'=') => break,
                b'!' | b'<' | b'>' | b'=' if at(pos + 1) == Some(b'=') => pos += 1,
                b'=' => {
                    debug_eq = Some(pos);
                    break;
                }
                _ => {}
            }
            pos += 1;
        }
        let expr_end = pos;
        let text = self.src.get(expr_start..expr_end).unwrap_or("");
        if text.trim().is_empty() {
            return Err(self.error(
                "f-string: empty expression not allowed",
                Span::from_range(open..expr_end + 1),
            ));
        }
        let expr = self.sub_parse(expr_start, expr_end)?;
        let mut debug_text = None;
        if let Some(eq) = debug_eq {
            pos = eq + 1;
            while matches!(at(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                pos += 1;
            }
            debug_text = Some(self.src.get(expr_start..pos).unwrap_or("").to_string());
        }
        let mut conversion = None;
        if at(pos) == Some(b'!') {
            let c = at(pos + 1);
            match c {
                Some(c @ (b's' | b'r' | b'a')) if matches!(at(pos + 2), Some(b':' | b'}')) => {
                    conversion = Some(c as char);
                    pos += 2;
                }
                _ => {
                    let len = self
                        .src
                        .get(pos + 1..end)
                        .and_then(|s| s.chars().next())
                        .map_or(0, char::len_utf8);
                    return Err(Box::new(
                        Diagnostic::error(
                            "f-string: invalid conversion character",
                            Span::from_range(pos..pos + 1 + len),
                        )
                        .with_note("expected `!s`, `!r` or `!a`"),
                    ));
                }
            }
        }
        let mut format_spec = None;
        if at(pos) == Some(b':') {
            let (spec, stop) = self.fstring_parts(pos + 1, end, raw, level + 1)?;
            format_spec = Some(spec);
            pos = stop;
        }
        if at(pos) != Some(b'}') {
            return Err(unclosed());
        }
        pos += 1;
        if debug_text.is_some() && conversion.is_none() && format_spec.is_none() {
            conversion = Some('r');
        }
        Ok((
            FStringField {
                expr: Box::new(expr),
                debug_text,
                conversion,
                format_spec,
                span: Span::from_range(open..pos),
            },
            pos,
        ))
    }

    /// Parses the expression of an f-string field in `src[start..end]`.
    pub(super) fn sub_parse(&self, start: usize, end: usize) -> PResult<Expr> {
        let lexed = lexer::tokenize_expr(self.src, start, end, true);
        let mut sub = Parser::new(self.src, lexed);
        sub.nesting = self.nesting + 1;
        sub.depth = self.depth + 1;
        sub.in_fstring = true;
        sub.last_end = u32::try_from(start).unwrap_or(u32::MAX);
        if sub.nesting > MAX_NESTING || sub.depth > MAX_DEPTH {
            return Err(sub.too_deep());
        }
        let e = sub.star_exprs_or_yield()?;
        if !matches!(sub.peek(), Tok::Eof) {
            return Err(sub.expected("`}`", "after f-string expression"));
        }
        Ok(e)
    }
}

fn push_part(parts: &mut Vec<FStringPart>, part: FStringPart) {
    if let FStringPart::Literal(new) = &part {
        if new.is_empty() {
            return;
        }
        if let Some(FStringPart::Literal(last)) = parts.last_mut() {
            last.push_str(new);
            return;
        }
    }
    parts.push(part);
}
