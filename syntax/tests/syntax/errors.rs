//! Broken inputs: each must give one error with a sensible message and a
//! span pointing at the right place. The expectations are the rendered,
//! rustc-style diagnostics. Run with `UPDATE_EXPECT=1` to update.

use tessel_syntax::diag::render;
use tessel_syntax::{parse_expr, parse_module};
use tessel_test_support::{expect, Expect};

fn check(src: &str, expected: Expect) {
    match parse_module(src) {
        Ok(_) => panic!("expected an error for {src:?}"),
        Err(e) => expected.assert_eq(&render(&e, src, "main.py")),
    }
}

#[test]
fn missing_colon_after_for_header() {
    check(
        "for i in range(3)\n    pass\n",
        expect![[r#"
            error: expected `:` after `for` header, found end of line
             --> main.py:1:18
              |
            1 | for i in range(3)
              |                  ^ expected `:`
        "#]],
    );
}

#[test]
fn unclosed_paren_reported_at_opener() {
    check(
        "x = foo(1,\n        2\ny = 3\n",
        expect![[r#"
            error: `(` was never closed
             --> main.py:1:8
              |
            1 | x = foo(1,
              |        ^ unclosed delimiter
        "#]],
    );
}

#[test]
fn mismatched_bracket() {
    check(
        "a = [1, 2)\n",
        expect![[r#"
        error: closing `)` does not match opening `[`
         --> main.py:1:10
          |
        1 | a = [1, 2)
          |          ^
          |     - opened here
    "#]],
    );
}

#[test]
fn unmatched_closing_bracket() {
    check(
        "x = 1)\n",
        expect![[r#"
        error: unmatched `)`
         --> main.py:1:6
          |
        1 | x = 1)
          |      ^
    "#]],
    );
}

#[test]
fn missing_indented_block() {
    check(
        "def f():\nreturn 1\n",
        expect![[r#"
        error: expected an indented block after function definition on line 1
         --> main.py:2:1
          |
        2 | return 1
          | ^^^^^^ expected an indented block
    "#]],
    );
}

#[test]
fn missing_block_at_end_of_input() {
    check(
        "class A:\n",
        expect![[r#"
        error: expected an indented block after class definition on line 1
         --> main.py:1:9
          |
        1 | class A:
          |         ^ expected an indented block
    "#]],
    );
}

#[test]
fn bad_dedent() {
    check(
        "if x:\n        a = 1\n    b = 2\n",
        expect![[r#"
            error: unindent does not match any outer indentation level
             --> main.py:3:1
              |
            3 |     b = 2
              | ^^^^ this indentation
        "#]],
    );
}

#[test]
fn unexpected_indent() {
    check(
        "x = 1\n    y = 2\n",
        expect![[r#"
        error: unexpected indent
         --> main.py:2:1
          |
        2 |     y = 2
          | ^^^^ this line is indented more than the previous one
    "#]],
    );
}

#[test]
fn inconsistent_tabs_and_spaces() {
    check(
        "if x:\n\ta = 1\n        b = 2\n",
        expect![[r#"
        error: inconsistent use of tabs and spaces in indentation
         --> main.py:3:1
          |
        3 |         b = 2
          | ^^^^^^^^
    "#]],
    );
}

#[test]
fn assign_to_call() {
    check(
        "f(x) = 1\n",
        expect![[r#"
        error: cannot assign to function call
         --> main.py:1:1
          |
        1 | f(x) = 1
          | ^^^^ not a valid target
          |
          = note: maybe you meant `==` instead of `=`?
    "#]],
    );
}

#[test]
fn assign_to_literal_in_for_target() {
    check(
        "for 1 in x:\n    pass\n",
        expect![[r#"
        error: cannot assign to literal
         --> main.py:1:5
          |
        1 | for 1 in x:
          |     ^ not a valid target
          |
          = note: a loop target must be a name, attribute, subscript or tuple
    "#]],
    );
}

#[test]
fn unterminated_strings() {
    check(
        "s = 'abc\nt = 1\n",
        expect![[r#"
        error: unterminated string literal
         --> main.py:1:5
          |
        1 | s = 'abc
          |     ^
    "#]],
    );
    check(
        "s = \"\"\"abc\n\nt = 1\n",
        expect![[r#"
        error: unterminated triple-quoted string literal
         --> main.py:1:5
          |
        1 | s = """abc
          |     ^^^
    "#]],
    );
}

#[test]
fn fstring_errors() {
    check(
        "s = f'{x!z}'\n",
        expect![[r#"
        error: f-string: invalid conversion character
         --> main.py:1:9
          |
        1 | s = f'{x!z}'
          |         ^^
          |
          = note: expected `!s`, `!r` or `!a`
    "#]],
    );
    check(
        "s = f'{}'\n",
        expect![[r#"
        error: f-string: empty expression not allowed
         --> main.py:1:7
          |
        1 | s = f'{}'
          |       ^^
    "#]],
    );
    check(
        "s = f'{x'\n",
        expect![[r#"
        error: f-string: expecting `}`
         --> main.py:1:7
          |
        1 | s = f'{x'
          |       ^ field opened here
    "#]],
    );
    check(
        "s = f'a } b'\n",
        expect![[r#"
        error: f-string: single `}` is not allowed
         --> main.py:1:9
          |
        1 | s = f'a } b'
          |         ^
          |
          = note: write `}}` for a literal `}`
    "#]],
    );
    check(
        "s = f'{x +}'\n",
        expect![[r#"
            error: expected expression, found end of the f-string field
             --> main.py:1:11
              |
            1 | s = f'{x +}'
              |           ^ expected expression
        "#]],
    );
}

#[test]
fn bad_parameters() {
    check(
        "def f(a=1, b):\n    pass\n",
        expect![[r#"
        error: parameter without a default follows parameter with a default
         --> main.py:1:12
          |
        1 | def f(a=1, b):
          |            ^ needs a default value
    "#]],
    );
    check(
        "def f(a, a):\n    pass\n",
        expect![[r#"
        error: duplicate parameter `a` in function definition
         --> main.py:1:10
          |
        1 | def f(a, a):
          |          ^
    "#]],
    );
    check(
        "def f(*, **kw):\n    pass\n",
        expect![[r#"
        error: named parameters must follow bare `*`
         --> main.py:1:7
          |
        1 | def f(*, **kw):
          |       ^
    "#]],
    );
}

#[test]
fn bad_arguments() {
    check(
        "f(a=1, 2)\n",
        expect![[r#"
        error: positional argument follows keyword argument
         --> main.py:1:8
          |
        1 | f(a=1, 2)
          |        ^
          |   - keyword argument here
    "#]],
    );
    check(
        "f(a=1, a=2)\n",
        expect![[r#"
        error: keyword argument repeated: `a`
         --> main.py:1:8
          |
        1 | f(a=1, a=2)
          |        ^
    "#]],
    );
    check(
        "f(x for x in y, 1)\n",
        expect![[r#"
        error: generator expression must be parenthesized
         --> main.py:1:3
          |
        1 | f(x for x in y, 1)
          |   ^^^^^^^^^^^^ add parentheses around this
    "#]],
    );
}

#[test]
fn bad_numbers() {
    check(
        "x = 0777\n",
        expect![[r#"
        error: leading zeros in decimal integer literals are not permitted
         --> main.py:1:5
          |
        1 | x = 0777
          |     ^^^^
          |
          = note: use an `0o` prefix for octal integers
    "#]],
    );
    check(
        "x = 99999999999999999999\n",
        expect![[r#"
        error: integer literal is too large
         --> main.py:1:5
          |
        1 | x = 99999999999999999999
          |     ^^^^^^^^^^^^^^^^^^^^
          |
          = note: integer literals must fit in a signed 64-bit integer
    "#]],
    );
    check(
        "x = 1__0\n",
        expect![[r#"
        error: invalid decimal literal
         --> main.py:1:5
          |
        1 | x = 1__0
          |     ^^^^
    "#]],
    );
    check(
        "x = 12abc\n",
        expect![[r#"
        error: invalid decimal literal
         --> main.py:1:5
          |
        1 | x = 12abc
          |     ^^^^^
    "#]],
    );
    check(
        "x = 0x\n",
        expect![[r#"
        error: invalid hexadecimal literal
         --> main.py:1:5
          |
        1 | x = 0x
          |     ^^
    "#]],
    );
}

#[test]
fn missing_operand_and_stray_tokens() {
    check(
        "x = 1 +\n",
        expect![[r#"
        error: expected expression, found end of line
         --> main.py:1:8
          |
        1 | x = 1 +
          |        ^ expected expression
    "#]],
    );
    check(
        "x = 1 2\n",
        expect![[r#"
            error: expected end of statement, found number
             --> main.py:1:7
              |
            1 | x = 1 2
              |       ^ expected end of statement
              |
              = note: perhaps you forgot a comma or an operator?
        "#]],
    );
    check(
        "x = $y\n",
        expect![[r#"
        error: invalid character `$`
         --> main.py:1:5
          |
        1 | x = $y
          |     ^
    "#]],
    );
    check(
        "s = “quoted”\n",
        expect![[r#"
        error: invalid character `“` (U+201C); use an ASCII quote instead
         --> main.py:1:5
          |
        1 | s = “quoted”
          |     ^
    "#]],
    );
}

#[test]
fn try_without_handlers() {
    check(
        "try:\n    pass\nx = 1\n",
        expect![[r#"
        error: expected `except` or `finally` block after `try` block, found identifier `x`
         --> main.py:3:1
          |
        3 | x = 1
          | ^ expected `except` or `finally` block
    "#]],
    );
}

#[test]
fn conditional_expression_without_else() {
    check(
        "y = a if b\n",
        expect![[r#"
        error: expected `else` in conditional expression, found end of line
         --> main.py:1:11
          |
        1 | y = a if b
          |           ^ expected `else`
    "#]],
    );
}

#[test]
fn starred_errors() {
    check(
        "a, *b, *c = d\n",
        expect![[r#"
        error: multiple starred expressions in assignment
         --> main.py:1:8
          |
        1 | a, *b, *c = d
          |        ^^ second starred target
    "#]],
    );
    check(
        "*a = b\n",
        expect![[r#"
        error: starred assignment target must be in a list or tuple
         --> main.py:1:1
          |
        1 | *a = b
          | ^^ starred target
    "#]],
    );
    check(
        "print(*)\n",
        expect![[r#"
        error: expected expression, found `)`
         --> main.py:1:8
          |
        1 | print(*)
          |        ^ expected expression
    "#]],
    );
}

#[test]
fn annotated_tuple() {
    check(
        "a, b: int = 1, 2\n",
        expect![[r#"
        error: only single target (not tuple) can be annotated
         --> main.py:1:1
          |
        1 | a, b: int = 1, 2
          | ^^^^ tuple target
    "#]],
    );
}

#[test]
fn errors_come_in_source_order() {
    // The syntax error on line 1 is reported before the bad character on
    // line 3, even though the lexer sees the whole file first.
    check(
        "x = = 1\ny = 2\nz = $\n",
        expect![[r#"
        error: expected expression, found `=`
         --> main.py:1:5
          |
        1 | x = = 1
          |     ^ expected expression
    "#]],
    );
}

#[test]
fn deep_nesting_is_an_error() {
    let src = format!("x = {}1{}\n", "(".repeat(150), ")".repeat(150));
    let e = parse_module(&src).unwrap_err();
    assert_eq!(e.message, "code is nested too deeply");
    // Reported at the first bracket past the limit.
    assert_eq!(e.span.start, 4 + 100);
    let src = format!("x = {}1\n", "-".repeat(150));
    let e = parse_module(&src).unwrap_err();
    expect![[r#"
        error: code is nested too deeply
         --> main.py:1:105
          |
        1 | x = ------------------------------------------------------------------------------------------------------------------------------------------------------1
          |                                                                                                         ^ limit reached here
          |
          = note: nesting is limited to 100 levels (brackets, blocks, operators, lambdas) and syntax trees to 500 levels
    "#]].assert_eq(&render(&e, &src, "main.py"));
}

#[test]
fn parse_expr_errors() {
    let src = "a +";
    expect![[r#"
        error: expected expression, found end of input
         --> <expr>:1:4
          |
        1 | a +
          |    ^ expected expression
    "#]]
    .assert_eq(&render(&parse_expr(src).unwrap_err(), src, "<expr>"));
    let src = "a b";
    expect![[r#"
        error: expected end of expression, found identifier `b`
         --> <expr>:1:3
          |
        1 | a b
          |   ^ expected end of expression
    "#]]
    .assert_eq(&render(&parse_expr(src).unwrap_err(), src, "<expr>"));
    let src = "";
    expect![[r#"
        error: expected expression, found end of input
         --> <expr>:1:1
          |
        1 |
          | ^ expected expression
    "#]]
    .assert_eq(&render(&parse_expr(src).unwrap_err(), src, "<expr>"));
}

#[test]
fn unsupported_constructs() {
    check(
        "async def f():\n    pass\n",
        expect![[r#"
        error: `async` functions and statements are not supported
         --> main.py:1:1
          |
        1 | async def f():
          | ^^^^^
    "#]],
    );
    check(
        "x = await y\n",
        expect![[r#"
        error: `await` is not supported
         --> main.py:1:5
          |
        1 | x = await y
          |     ^^^^^
    "#]],
    );
}

#[test]
fn multiline_render_with_label_on_other_line() {
    check(
        "x = [\n    1,\n    2,\n)\n",
        expect![[r#"
        error: closing `)` does not match opening `[`
         --> main.py:4:1
          |
        1 | x = [
          |     - opened here
        ...
        4 | )
          | ^
    "#]],
    );
}

#[test]
fn python2_print() {
    check(
        "print \"hello\"\n",
        expect![[r#"
        error: expected end of statement, found string literal
         --> main.py:1:7
          |
        1 | print "hello"
          |       ^^^^^^^ expected end of statement
          |
          = note: `print` is a function in Python 3: write `print(...)`
    "#]],
    );
}

/// The marked code is data on the diagnostic, rendered exactly as a last
/// note with its heading.
#[test]
fn marked_code_renders_as_the_last_note() {
    use tessel_syntax::diag::Diagnostic;
    use tessel_syntax::Span;
    let src = "sch.split(l, [4])\n";
    let base = Diagnostic::error("split: bad", Span::new(0, 17)).with_note("first");
    let typed = base.clone().with_marked_code(
        "the IR, with the offending statement marked:",
        "for i in range(8):\n    pass",
    );
    let as_note = base
        .with_note("the IR, with the offending statement marked:\nfor i in range(8):\n    pass");
    assert_eq!(render(&typed, src, "s.py"), render(&as_note, src, "s.py"));
    assert!(typed.notes.iter().all(|n| !n.contains("offending")));
    assert_eq!(
        typed.marked_code.map(|m| m.code),
        Some("for i in range(8):\n    pass".to_string())
    );
}
