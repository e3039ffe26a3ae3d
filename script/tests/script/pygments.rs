//! The book's `code2html` helper (chapter 4): `pygments.highlight` with
//! `Python3Lexer` and `HtmlFormatter`, shown through `IPython.display.HTML`.

use crate::support::*;
use tessel_script::Limits;

const CODE2HTML: &str = r#"import IPython

def code2html(code):
    """Helper function to use pygments to turn the code string into
    highlighted html."""
    import pygments
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import Python3Lexer
    formatter = HtmlFormatter()
    html = pygments.highlight(code, Python3Lexer(), formatter)
    return "<style>%s</style>%s\n" % (formatter.get_style_defs('.highlight'),
                                         html)

"#;

fn run(cell: &str) -> Run {
    run_source(&format!("{CODE2HTML}{cell}"), "<cell>", Limits::default())
}

#[test]
fn code2html_highlights_python() {
    let r = run(
        "src = '@T.prim_func\\ndef f(A: T.Buffer((4,), \"float32\")):  # a < b\\n    return None\\n'\n\
         print(IPython.display.HTML(code2html(src)).data)\n",
    );
    assert!(r.error.is_none(), "{}", r.output);
    let html = &r.output;
    assert!(html.starts_with("<style>.highlight {"), "{html}");
    assert!(html.contains(".highlight .k { color"), "{html}");
    assert!(
        html.contains(
            "<div class=\"highlight\"><pre><span></span><span class=\"nd\">@T.prim_func</span>\n"
        ),
        "{html}"
    );
    assert!(
        html.contains(
            "<span class=\"k\">def</span> <span class=\"nf\">f</span><span class=\"p\">(</span>"
        ),
        "{html}"
    );
    assert!(
        html.contains("<span class=\"s2\">&quot;float32&quot;</span>"),
        "{html}"
    );
    assert!(
        html.contains("<span class=\"c1\"># a &lt; b</span>"),
        "{html}"
    );
    assert!(
        html.contains("<span class=\"kc\">None</span>\n</pre></div>"),
        "{html}"
    );
}

#[test]
fn a_wrong_lexer_or_formatter_is_a_clear_error() {
    let r = run("import pygments\npygments.highlight('x', 1, 2)\n");
    let e = r.error.expect("an error");
    assert_eq!(e.kind, "TypeError");
    assert!(e.message.contains("Python3Lexer"), "{}", e.message);
}
