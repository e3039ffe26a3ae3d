//! IPython rich display: `HTML`, `Markdown` and `Code` objects reach the
//! output as display chunks that say what they are, whichever way they are
//! shown (`display(...)`, `IPython.display.display(...)`, a cell's last
//! value), while their text stays what a text console prints.

use tessel_script::{Interpreter, Limits, Mime, OutputChunk, Stream};

fn notebook(cells: &[&str]) -> Vec<OutputChunk> {
    let mut i = Interpreter::new(Limits::default());
    let mut out = Vec::new();
    for cell in cells {
        i.run_notebook_cell(cell, "<cell>").unwrap();
        out.extend(i.take_output());
    }
    out
}

fn kinds(out: &[OutputChunk]) -> Vec<(Stream, Mime, &str)> {
    out.iter()
        .map(|c| (c.stream, c.mime.clone(), c.text.as_str()))
        .collect()
}

#[test]
fn display_calls_tag_each_chunk_with_its_kind() {
    let out = notebook(&[
        "from IPython.display import HTML, Markdown, Code, display\n\
         import IPython\n\
         display(HTML('<b>bold</b>'))\n\
         IPython.display.display(Markdown('# Title\\n- item'))\n\
         display(Code('x = 1', language='python'), Code('y'))\n\
         print('after')\n\
         display(42)\n",
    ]);
    assert_eq!(
        kinds(&out),
        vec![
            (Stream::Display, Mime::Html, "<b>bold</b>\n"),
            (Stream::Display, Mime::Markdown, "# Title\n- item\n"),
            (
                Stream::Display,
                Mime::Code {
                    language: Some("python".into())
                },
                "x = 1\n"
            ),
            (Stream::Display, Mime::Code { language: None }, "y\n"),
            (Stream::Stdout, Mime::Plain, "after\n"),
            (Stream::Display, Mime::Plain, "42\n"),
        ]
    );
}

#[test]
fn a_cells_last_value_displays_with_its_kind() {
    let out = notebook(&[
        "import IPython\nIPython.display.HTML('<i>x</i>')",
        "IPython.display.Markdown('*y*')",
        "IPython.display.Code('def f(): pass', language='Python')",
        "[1, 2]",
    ]);
    assert_eq!(
        kinds(&out),
        vec![
            (Stream::Display, Mime::Html, "<i>x</i>\n"),
            (Stream::Display, Mime::Markdown, "*y*\n"),
            (
                Stream::Display,
                Mime::Code {
                    language: Some("Python".into())
                },
                "def f(): pass\n"
            ),
            (Stream::Display, Mime::Plain, "[1, 2]\n"),
        ]
    );
    assert_eq!(out[2].mime.mime_type(), "text/x-python");
    assert_eq!(out[0].mime.mime_type(), "text/html");
    assert_eq!(out[3].mime.mime_type(), "text/plain");
}

#[test]
fn printing_or_repr_of_a_rich_object_is_plain_text() {
    // `print` writes the object's str to stdout: no rich kind there, and a
    // rich object inside a container shows as its repr.
    let out = notebook(&["import IPython\nh = IPython.display.HTML('<b>b</b>')\nprint(h)\n[h]"]);
    assert_eq!(
        kinds(&out),
        vec![
            (Stream::Stdout, Mime::Plain, "<b>b</b>\n"),
            (
                Stream::Display,
                Mime::Plain,
                "[<IPython.core.display.HTML object>]\n"
            ),
        ]
    );
}

#[test]
fn consecutive_displays_stay_separate_chunks() {
    let out = notebook(&[
        "from IPython.display import HTML, display\ndisplay(HTML('a'))\ndisplay(HTML('b'))",
    ]);
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out.iter().all(|c| c.mime == Mime::Html));
}
