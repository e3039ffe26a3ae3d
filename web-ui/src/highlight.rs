//! A small Python/TVMScript highlighter for the IR view (the editor uses
//! CodeMirror's). Token classes match the editor's (`tok-*` in style.css).

const KEYWORDS: &[&str] = &[
    "for", "in", "with", "def", "class", "return", "if", "else", "elif", "import", "from", "as",
    "True", "False", "None", "lambda", "and", "or", "not", "while", "pass",
];

/// Splits one line into `(class, text)` pieces; class is "" for plain text.
pub fn tokens(line: &str) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let push = |out: &mut Vec<(&'static str, String)>, class: &'static str, s: String| {
        if let Some(last) = out.last_mut() {
            if last.0 == class && class.is_empty() {
                last.1.push_str(&s);
                return;
            }
        }
        out.push((class, s));
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '#' {
            push(&mut out, "tok-com", chars[i..].iter().collect());
            break;
        } else if c == '"' || c == '\'' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != c {
                if chars[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            let end = (j + 1).min(chars.len());
            push(&mut out, "tok-str", chars[i..end].iter().collect());
            i = end;
        } else if c.is_ascii_digit() {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_alphanumeric() || chars[j] == '.') {
                j += 1;
            }
            push(&mut out, "tok-num", chars[i..j].iter().collect());
            i = j;
        } else if c == '@' {
            let mut j = i + 1;
            while j < chars.len()
                && (chars[j].is_alphanumeric() || chars[j] == '_' || chars[j] == '.')
            {
                j += 1;
            }
            push(&mut out, "tok-dec", chars[i..j].iter().collect());
            i = j;
        } else if c.is_alphabetic() || c == '_' {
            let mut j = i;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            let next_is_call = chars.get(j) == Some(&'(');
            let after_dot = i > 0 && chars[i - 1] == '.';
            let class = if KEYWORDS.contains(&word.as_str()) {
                "tok-kw"
            } else if next_is_call {
                "tok-fn"
            } else if after_dot {
                "tok-prop"
            } else {
                ""
            };
            push(&mut out, class, word);
            i = j;
        } else {
            push(&mut out, "", c.to_string());
            i += 1;
        }
    }
    out
}
