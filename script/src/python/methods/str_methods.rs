//! The methods of `str`, and `str.format`'s mini-language.

use super::*;

/// Calls `s.name(args)`, routing each method to the family that implements it.
pub(super) fn str_method(it: &mut Interp, s: &Rc<str>, name: &str, a: Args) -> Res<Value> {
    match name {
        "join" | "split" | "rsplit" | "splitlines" | "partition" | "rpartition" => {
            str_split_join_method(it, s, name, a)
        }
        "strip" | "lstrip" | "rstrip" | "replace" | "removeprefix" | "removesuffix" => {
            str_edit_method(it, s, name, &a)
        }
        "startswith" | "endswith" | "find" | "rfind" | "index" | "rindex" | "count" => {
            str_search_method(s, name, &a)
        }
        "upper" | "lower" | "casefold" | "swapcase" | "title" | "capitalize" => {
            str_case_method(s, name)
        }
        "isdigit" | "isdecimal" | "isnumeric" | "isalpha" | "isalnum" | "isspace" | "isupper"
        | "islower" | "isidentifier" => str_predicate_method(s, name),
        "format" | "center" | "ljust" | "rjust" | "zfill" | "expandtabs" => {
            str_layout_method(it, s, name, &a)
        }
        "encode" => Err(PyErr::type_error("bytes are not supported")),
        _ => Err(no_attr(&Value::Str(s.clone()), name)),
    }
}

/// A Python list of the given strings.
fn str_list(it: &mut Interp, parts: Vec<String>) -> Res<Value> {
    it.new_list(parts.into_iter().map(Value::str).collect())
}

/// `join`, `split`/`rsplit`, `splitlines` and `partition`/`rpartition`.
fn str_split_join_method(it: &mut Interp, s: &Rc<str>, name: &str, mut a: Args) -> Res<Value> {
    Ok(match name {
        "join" => {
            let v =
                a.pos.first().cloned().ok_or_else(|| {
                    PyErr::type_error("join() takes exactly one argument (0 given)")
                })?;
            let items = it.items_of(&v)?;
            let mut parts = Vec::with_capacity(items.len());
            for (i, x) in items.iter().enumerate() {
                match x {
                    Value::Str(p) => parts.push(p.to_string()),
                    other => {
                        return Err(PyErr::type_error(format!(
                            "sequence item {i}: expected str instance, {} found",
                            other.type_name()
                        )))
                    }
                }
            }
            let total: usize = parts.iter().map(|p| p.len()).sum::<usize>() + s.len() * parts.len();
            it.check_alloc(total as u64)?;
            Value::str(parts.join(s))
        }
        "split" | "rsplit" => {
            let sep = match a.take(0, "sep") {
                None | Some(Value::None) => None,
                Some(Value::Str(x)) => Some(x.to_string()),
                Some(v) => {
                    return Err(PyErr::type_error(format!(
                        "must be str or None, not {}",
                        v.type_name()
                    )))
                }
            };
            let maxsplit = match a.take(1, "maxsplit") {
                Some(v) => num_i64(&v).unwrap_or(-1),
                None => -1,
            };
            let parts: Vec<String> = match sep {
                None => {
                    if name == "rsplit" && maxsplit >= 0 {
                        let rev: String = s.chars().rev().collect();
                        let mut p: Vec<String> = split_ws(&rev, maxsplit)
                            .into_iter()
                            .map(|x| x.chars().rev().collect())
                            .collect();
                        p.reverse();
                        p
                    } else {
                        split_ws(s, maxsplit)
                    }
                }
                Some(sep) => {
                    if sep.is_empty() {
                        return Err(PyErr::value_error("empty separator"));
                    }
                    if maxsplit < 0 {
                        s.split(sep.as_str()).map(str::to_string).collect()
                    } else if name == "split" {
                        s.splitn(maxsplit as usize + 1, sep.as_str())
                            .map(str::to_string)
                            .collect()
                    } else {
                        let mut p: Vec<String> = s
                            .rsplitn(maxsplit as usize + 1, sep.as_str())
                            .map(str::to_string)
                            .collect();
                        p.reverse();
                        p
                    }
                }
            };
            str_list(it, parts)?
        }
        "splitlines" => {
            let keep = a.take(0, "keepends").map_or(Ok(false), |v| it.truthy(&v))?;
            let mut out = Vec::new();
            let mut cur = String::new();
            let mut chars = s.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\n' || c == '\r' {
                    let mut end = c.to_string();
                    if c == '\r' && chars.peek() == Some(&'\n') {
                        chars.next();
                        end.push('\n');
                    }
                    if keep {
                        cur.push_str(&end);
                    }
                    out.push(std::mem::take(&mut cur));
                } else {
                    cur.push(c);
                }
            }
            if !cur.is_empty() {
                out.push(cur);
            }
            str_list(it, out)?
        }
        "partition" | "rpartition" => {
            let sep = str_arg(&a, 0, name)?.unwrap_or_default();
            if sep.is_empty() {
                return Err(PyErr::value_error("empty separator"));
            }
            let found = if name == "partition" {
                s.find(sep.as_str())
            } else {
                s.rfind(sep.as_str())
            };
            let parts = match found {
                Some(i) => (
                    s[..i].to_string(),
                    sep.clone(),
                    s[i + sep.len()..].to_string(),
                ),
                None if name == "partition" => (s.to_string(), String::new(), String::new()),
                None => (String::new(), String::new(), s.to_string()),
            };
            Value::tuple(vec![
                Value::str(parts.0),
                Value::str(parts.1),
                Value::str(parts.2),
            ])
        }
        _ => return Err(no_attr(&Value::Str(s.clone()), name)),
    })
}

/// `strip`/`lstrip`/`rstrip`, `replace`, `removeprefix` and `removesuffix`.
fn str_edit_method(it: &mut Interp, s: &Rc<str>, name: &str, a: &Args) -> Res<Value> {
    Ok(match name {
        "strip" | "lstrip" | "rstrip" => {
            let chars = str_arg(a, 0, name)?;
            let pred = |c: char| match &chars {
                Some(cs) => cs.contains(c),
                None => c.is_whitespace(),
            };
            Value::str(match name {
                "strip" => s.trim_matches(pred),
                "lstrip" => s.trim_start_matches(pred),
                _ => s.trim_end_matches(pred),
            })
        }
        "replace" => {
            let old = str_arg(a, 0, name)?.unwrap_or_default();
            let new = str_arg(a, 1, name)?.unwrap_or_default();
            let count = int_arg(a, 2, -1)?;
            // Check the result's size before building it.
            let hits = if old.is_empty() {
                s.chars().count() as u64 + 1
            } else {
                s.matches(old.as_str()).count() as u64
            };
            let hits = if count < 0 {
                hits
            } else {
                hits.min(count as u64)
            };
            it.check_alloc((s.len() as u64).saturating_add(hits.saturating_mul(new.len() as u64)))?;
            let out = if count < 0 {
                s.replace(&old, &new)
            } else {
                s.replacen(&old, &new, count as usize)
            };
            it.check_alloc(out.len() as u64)?;
            Value::str(out)
        }
        "removeprefix" => {
            let p = str_arg(a, 0, name)?.unwrap_or_default();
            Value::str(s.strip_prefix(p.as_str()).unwrap_or(s))
        }
        "removesuffix" => {
            let p = str_arg(a, 0, name)?.unwrap_or_default();
            Value::str(s.strip_suffix(p.as_str()).unwrap_or(s))
        }
        _ => return Err(no_attr(&Value::Str(s.clone()), name)),
    })
}

/// `startswith`/`endswith`, `find`/`rfind`, `index`/`rindex` and `count`.
fn str_search_method(s: &Rc<str>, name: &str, a: &Args) -> Res<Value> {
    Ok(match name {
        "startswith" | "endswith" => {
            let pats: Vec<String> = match a.pos.first() {
                Some(Value::Str(p)) => vec![p.to_string()],
                Some(Value::Tuple(t)) => t
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect(),
                _ => {
                    return Err(PyErr::type_error(format!(
                        "{name} first arg must be str or a tuple of str"
                    )))
                }
            };
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len() as i64;
            let norm = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
            let start = norm(int_arg(a, 1, 0)?);
            let end = norm(int_arg(a, 2, n)?);
            let sub: String = if start <= end {
                chars[start..end].iter().collect()
            } else {
                String::new()
            };
            Value::Bool(pats.iter().any(|p| {
                if name == "startswith" {
                    sub.starts_with(p.as_str())
                } else {
                    sub.ends_with(p.as_str())
                }
            }))
        }
        "find" | "rfind" | "index" | "rindex" | "count" => {
            let sub = str_arg(a, 0, name)?.unwrap_or_default();
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len() as i64;
            let norm = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
            let start = norm(int_arg(a, 1, 0)?);
            let end = norm(int_arg(a, 2, n)?);
            let hay: String = if start <= end {
                chars[start..end].iter().collect()
            } else {
                String::new()
            };
            let to_char = |byte: usize| hay[..byte].chars().count() as i64 + start as i64;
            match name {
                "count" => Value::Int(if sub.is_empty() {
                    hay.chars().count() as i64 + 1
                } else {
                    hay.matches(sub.as_str()).count() as i64
                }),
                _ => {
                    let found = if name.starts_with('r') {
                        hay.rfind(sub.as_str())
                    } else {
                        hay.find(sub.as_str())
                    };
                    match found {
                        Some(b) => Value::Int(to_char(b)),
                        None if name.ends_with("index") => {
                            return Err(PyErr::value_error("substring not found"))
                        }
                        None => Value::Int(-1),
                    }
                }
            }
        }
        _ => return Err(no_attr(&Value::Str(s.clone()), name)),
    })
}

/// `upper`, `lower`/`casefold`, `swapcase`, `title` and `capitalize`.
fn str_case_method(s: &Rc<str>, name: &str) -> Res<Value> {
    Ok(match name {
        "upper" => Value::str(s.to_uppercase()),
        "lower" | "casefold" => Value::str(s.to_lowercase()),
        "swapcase" => Value::str(
            s.chars()
                .map(|c| {
                    if c.is_uppercase() {
                        c.to_lowercase().collect::<String>()
                    } else {
                        c.to_uppercase().collect()
                    }
                })
                .collect::<String>(),
        ),
        "title" => {
            let mut out = String::new();
            let mut prev_alpha = false;
            for c in s.chars() {
                if c.is_alphabetic() {
                    if prev_alpha {
                        out.extend(c.to_lowercase());
                    } else {
                        out.extend(c.to_uppercase());
                    }
                    prev_alpha = true;
                } else {
                    out.push(c);
                    prev_alpha = false;
                }
            }
            Value::str(out)
        }
        "capitalize" => {
            let mut cs = s.chars();
            Value::str(match cs.next() {
                Some(f) => f.to_uppercase().collect::<String>() + &cs.as_str().to_lowercase(),
                None => String::new(),
            })
        }
        _ => return Err(no_attr(&Value::Str(s.clone()), name)),
    })
}

/// The `is...` character-class predicates.
fn str_predicate_method(s: &Rc<str>, name: &str) -> Res<Value> {
    Ok(match name {
        "isdigit" | "isdecimal" | "isnumeric" => Value::Bool(
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_digit() || (name != "isdecimal" && c.is_numeric())),
        ),
        "isalpha" => Value::Bool(!s.is_empty() && s.chars().all(char::is_alphabetic)),
        "isalnum" => Value::Bool(!s.is_empty() && s.chars().all(char::is_alphanumeric)),
        "isspace" => Value::Bool(!s.is_empty() && s.chars().all(char::is_whitespace)),
        "isupper" => {
            Value::Bool(s.chars().any(char::is_uppercase) && !s.chars().any(char::is_lowercase))
        }
        "islower" => {
            Value::Bool(s.chars().any(char::is_lowercase) && !s.chars().any(char::is_uppercase))
        }
        "isidentifier" => Value::Bool(
            s.chars()
                .next()
                .is_some_and(|c| c == '_' || c.is_alphabetic())
                && s.chars().all(|c| c == '_' || c.is_alphanumeric()),
        ),
        _ => return Err(no_attr(&Value::Str(s.clone()), name)),
    })
}

/// `format`, `center`/`ljust`/`rjust`, `zfill` and `expandtabs`.
fn str_layout_method(it: &mut Interp, s: &Rc<str>, name: &str, a: &Args) -> Res<Value> {
    Ok(match name {
        "format" => {
            let out = str_format(it, s, a)?;
            Value::str(out)
        }
        "center" | "ljust" | "rjust" => {
            let w = int_arg(a, 0, 0)?.clamp(0, 100_000) as usize;
            let fill = str_arg(a, 1, name)?
                .and_then(|f| f.chars().next())
                .unwrap_or(' ');
            let n = s.chars().count();
            if n >= w {
                Value::Str(s.clone())
            } else {
                let pad = w - n;
                let f = |k: usize| fill.to_string().repeat(k);
                Value::str(match name {
                    "ljust" => format!("{s}{}", f(pad)),
                    "rjust" => format!("{}{s}", f(pad)),
                    _ => {
                        let left = pad / 2 + (pad & w & 1);
                        format!("{}{s}{}", f(left), f(pad - left))
                    }
                })
            }
        }
        "zfill" => {
            let w = int_arg(a, 0, 0)?.clamp(0, 100_000) as usize;
            let n = s.chars().count();
            if n >= w {
                Value::Str(s.clone())
            } else {
                let (sign, rest) = match s.chars().next() {
                    Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
                    _ => (String::new(), &s[..]),
                };
                Value::str(format!("{sign}{}{rest}", "0".repeat(w - n)))
            }
        }
        "expandtabs" => {
            let tab = int_arg(a, 0, 8)?.clamp(0, 1000) as usize;
            it.check_alloc(
                (s.len() as u64).saturating_add(s.matches('\t').count() as u64 * tab as u64),
            )?;
            let mut out = String::new();
            let mut col = 0;
            for c in s.chars() {
                match c {
                    '\t' => {
                        let n = if tab == 0 { 0 } else { tab - col % tab };
                        out.push_str(&" ".repeat(n));
                        col += n;
                    }
                    '\n' | '\r' => {
                        out.push(c);
                        col = 0;
                    }
                    c => {
                        out.push(c);
                        col += 1;
                    }
                }
            }
            Value::str(out)
        }
        _ => return Err(no_attr(&Value::Str(s.clone()), name)),
    })
}

/// `str.format(*args, **kwargs)`.
pub fn str_format(it: &mut Interp, fmt: &str, a: &Args) -> Res<String> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut auto = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' {
            if chars.get(i + 1) == Some(&'{') {
                out.push('{');
                i += 2;
                continue;
            }
            // Find the matching '}' (allowing one level of nesting in the spec).
            let mut depth = 1;
            let mut j = i + 1;
            while j < chars.len() {
                match chars[j] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if j >= chars.len() {
                return Err(PyErr::value_error(
                    "Single '{' encountered in format string",
                ));
            }
            let field: String = chars[i + 1..j].iter().collect();
            i = j + 1;
            // field_name[!conv][:spec]
            let (head, spec) = match field.find(':') {
                Some(p) => (field[..p].to_string(), field[p + 1..].to_string()),
                None => (field.clone(), String::new()),
            };
            let (fname, conv) = match head.find('!') {
                Some(p) => (head[..p].to_string(), head[p + 1..].chars().next()),
                None => (head, None),
            };
            // The first part of the name: index, keyword or auto.
            let split = fname.find(['.', '[']).unwrap_or(fname.len());
            let (first, rest) = fname.split_at(split);
            let mut v = if first.is_empty() {
                let v = a.pos.get(auto).cloned().ok_or_else(|| {
                    PyErr::index_error(format!(
                        "Replacement index {auto} out of range for positional args tuple"
                    ))
                })?;
                auto += 1;
                v
            } else if let Ok(n) = first.parse::<usize>() {
                a.pos.get(n).cloned().ok_or_else(|| {
                    PyErr::index_error(format!(
                        "Replacement index {n} out of range for positional args tuple"
                    ))
                })?
            } else {
                a.kw.iter()
                    .find(|(k, _)| &**k == first)
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| PyErr::key_error(Value::str(first)))?
            };
            // .attr and [key] accessors.
            let mut r = rest;
            while !r.is_empty() {
                if let Some(after) = r.strip_prefix('.') {
                    let end = after.find(['.', '[']).unwrap_or(after.len());
                    v = it.get_attr(&v, &after[..end])?;
                    r = &after[end..];
                } else if let Some(after) = r.strip_prefix('[') {
                    let end = after
                        .find(']')
                        .ok_or_else(|| PyErr::value_error("Missing ']' in format string"))?;
                    let key = &after[..end];
                    let k = match key.parse::<i64>() {
                        Ok(n) => Value::Int(n),
                        Err(_) => Value::str(key),
                    };
                    v = it.get_item(&v, k)?;
                    r = &after[end + 1..];
                } else {
                    break;
                }
            }
            let v = match conv {
                Some('r') | Some('a') => Value::str(it.repr(&v)?),
                Some('s') => Value::str(it.str_of(&v)?),
                _ => v,
            };
            // Nested fields inside the spec.
            let spec = if spec.contains('{') {
                let inner = Args {
                    pos: a.pos[auto.min(a.pos.len())..].to_vec(),
                    kw: a.kw.clone(),
                    data: None,
                };
                let s = str_format(it, &spec, &inner)?;
                if spec.matches('{').count() > 0 && spec.contains("{}") {
                    auto += spec.matches("{}").count();
                }
                s
            } else {
                spec
            };
            out.push_str(&it.format_value(&v, &spec)?);
        } else if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(PyErr::value_error(
                "Single '}' encountered in format string",
            ));
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}
