//! The Device and Progress panels drawn as HTML, in the full worker, as
//! the memory picture is (`memory_picture`): the page sends what it knows
//! (the detected [`Capabilities`], the saved progress as raw JSON) in a
//! `Request::Panel`, shows the HTML that comes back, and handles the
//! controls' events by delegation. The progress file is written and read
//! here too (`Request::ProgressFile`), so neither the panels nor the file
//! format's reader are in the page's wasm, which every visit downloads.
//! The request ([`PanelAsk`]) comes as JSON inside the message, so the
//! core worker, which hands it on, carries no code for it.

use crate::capabilities::Capabilities;
use crate::html::escape_html;
use crate::progress;
use crate::protocol::{ExerciseProgress, PanelAsk, PanelOutcome};

/// The dialog until the worker's first answer (the full worker may still
/// be loading): closable, and saying so.
pub const LOADING_HTML: &str = "<div class=\"modal-backdrop\" id=\"panel-backdrop\"></div>\
<div class=\"gallery side-panel\" role=\"dialog\" aria-modal=\"true\"><div class=\"gallery-head\">\
<span class=\"spacer\"></span><button class=\"hide\" id=\"panel-close\" aria-label=\"Close\">✕</button></div>\
<p class=\"muted small\">Loading…</p></div>";

/// The answer to a [`PanelAsk`] (JSON): a panel, whole (backdrop,
/// dialog, head and body), or what Export and Import did.
pub fn answer(ask: &str) -> PanelOutcome {
    match serde_json::from_str(ask) {
        Ok(ask) => answer_ask(ask),
        // The page and this worker are built together: a bug if reached.
        Err(e) => PanelOutcome {
            html: format!(
                "<div class=\"modal-backdrop\" id=\"panel-backdrop\"></div>\
                 <div class=\"gallery side-panel\" role=\"dialog\"><p class=\"bad\">the panel request is malformed: {}</p>\
                 <button class=\"hide\" id=\"panel-close\" aria-label=\"Close\">✕</button></div>",
                escape_html(&e.to_string())
            ),
            ..PanelOutcome::default()
        },
    }
}

fn answer_ask(ask: PanelAsk) -> PanelOutcome {
    let html = match ask {
        PanelAsk::Device { caps } => device(&caps),
        PanelAsk::Progress {
            saved,
            titles,
            status,
        } => progress_view(&saved, &titles, status.as_ref()),
        PanelAsk::Export { saved } => return progress_file(&saved, None),
        PanelAsk::Import { saved, file } => return progress_file(&saved, Some(&file)),
    };
    PanelOutcome {
        html,
        ..PanelOutcome::default()
    }
}

/// The Device panel: what this device offers.
fn device(caps: &Capabilities) -> String {
    frame(
        "device-panel",
        "This device",
        "capabilities",
        "",
        &caps.panel_html(),
    )
}

/// The Progress view: every exercise passed or attempted in this browser,
/// with export and import, and what the last of those did.
fn progress_view(
    saved: &[(String, String)],
    titles: &[(String, String)],
    status: Option<&(bool, String)>,
) -> String {
    let status = status.map_or(String::new(), |(ok, text)| {
        format!(
            "<pre id=\"progress-status\" class=\"progress-status{}\" role=\"status\">{}</pre>",
            if *ok { "" } else { " bad" },
            escape_html(text)
        )
    });
    let body = format!(
        "{status}<div id=\"progress-table\">{}</div>",
        progress::table_html(&progress::from_storage(saved), titles)
    );
    frame(
        "progress-panel",
        "Progress",
        "progress-body",
        "<button id=\"progress-export\" class=\"tb\" title=\"Save this progress as a JSON file\">Export progress</button>\
         <label class=\"tb\" for=\"progress-import\" title=\"Merge a progress file saved by Export\">Import…</label>\
         <input type=\"file\" id=\"progress-import\" class=\"visually-hidden\" accept=\".json,application/json\">",
        &body,
    )
}

/// A side panel: the dialog (`dialog_id`), its title and tools, a close
/// button, and the body (`body_id`).
fn frame(dialog_id: &str, title: &str, body_id: &str, tools: &str, body: &str) -> String {
    format!(
        "<div class=\"modal-backdrop\" id=\"panel-backdrop\"></div>\
         <div class=\"gallery side-panel\" id=\"{dialog_id}\" role=\"dialog\" aria-modal=\"true\" aria-labelledby=\"panel-title\">\
         <div class=\"gallery-head\"><h2 id=\"panel-title\">{title}</h2><span class=\"spacer\"></span>{tools}\
         <button class=\"hide\" id=\"panel-close\" aria-label=\"Close\">✕</button></div>\
         <div class=\"gallery-body\" id=\"{body_id}\">{body}</div></div>"
    )
}

/// Export (`import` is `None`): the progress file of `saved`. Import: the
/// file read and merged into `saved`, giving what to save, or what is
/// wrong with it (nothing is saved then).
fn progress_file(saved: &[(String, String)], import: Option<&str>) -> PanelOutcome {
    let local = progress::from_storage(saved);
    let Some(text) = import else {
        let n = local.len();
        return PanelOutcome {
            file: Some(progress::export(&local)),
            status: Some((
                true,
                format!("exported {n} exercise{} to tessel-progress.json", plural(n)),
            )),
            ..PanelOutcome::default()
        };
    };
    match progress::import(text) {
        Ok(imported) => {
            let changed = progress::merge(&local, &imported);
            let passed = imported.values().filter(|p| p.passed).count();
            let status = format!(
                "imported {} exercise{} ({passed} passed); {} updated here",
                imported.len(),
                plural(imported.len()),
                changed.len()
            );
            PanelOutcome {
                saves: changed
                    .iter()
                    .map(|(id, p)| (ExerciseProgress::key(id), p.to_json()))
                    .collect(),
                status: Some((true, status)),
                ..PanelOutcome::default()
            }
        }
        Err(why) => PanelOutcome {
            status: Some((false, why)),
            ..PanelOutcome::default()
        },
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capabilities::Gpu;

    fn record(passed: bool, attempts: u32) -> String {
        ExerciseProgress {
            answer: "C = A + B\n".into(),
            hints: 0,
            passed,
            attempts,
        }
        .to_json()
    }

    #[test]
    fn the_device_panel_is_a_dialog_with_the_facts() {
        let caps = Capabilities {
            relaxed_simd: false,
            isolated: true,
            shared_memory: true,
            cores: Some(8),
            gpu: Gpu::Missing("no adapter".into()),
        };
        let ask = serde_json::to_string(&PanelAsk::Device { caps }).unwrap();
        let out = answer(&ask);
        assert!(out.html.contains("id=\"device-panel\""), "{}", out.html);
        assert!(out.html.contains("id=\"panel-close\""));
        assert!(out
            .html
            .contains("<div class=\"gallery-body\" id=\"capabilities\">"));
        assert!(out
            .html
            .contains("<tr data-cap=\"relaxed-simd\" data-ok=\"no\">"));
        assert_eq!(out.file, None);
        assert!(out.saves.is_empty());
    }

    #[test]
    fn the_progress_view_reads_the_saved_records_and_shows_the_status() {
        let saved = vec![
            ("exercise.broadcast-add".to_string(), record(true, 2)),
            ("exercise.junk".to_string(), "{".to_string()),
        ];
        let titles = vec![
            ("broadcast-add".to_string(), "Broadcast add".to_string()),
            ("gemm".to_string(), "GEMM".to_string()),
        ];
        let out = answer_ask(PanelAsk::Progress {
            saved,
            titles,
            status: Some((false, "bad <file>".into())),
        });
        let html = &out.html;
        assert!(html.contains("id=\"progress-panel\""), "{html}");
        assert!(html.contains("data-exercise=\"broadcast-add\" data-status=\"passed\""));
        assert!(html.contains("data-exercise=\"gemm\" data-status=\"not-attempted\""));
        assert!(!html.contains("junk"), "{html}");
        assert!(
            html.contains("1 of 2 exercises passed, 0 attempted"),
            "{html}"
        );
        assert!(html.contains(
            "<pre id=\"progress-status\" class=\"progress-status bad\" role=\"status\">bad &lt;file&gt;</pre>"
        ));
    }

    #[test]
    fn export_then_import_elsewhere_saves_what_changed() {
        let here = vec![
            ("exercise.broadcast-add".to_string(), record(true, 2)),
            ("exercise.gemm".to_string(), record(false, 1)),
        ];
        let ask = PanelAsk::Export {
            saved: here.clone(),
        };
        let exported = answer(&serde_json::to_string(&ask).unwrap());
        let file = exported.file.expect("a file");
        assert_eq!(
            exported.status,
            Some((true, "exported 2 exercises to tessel-progress.json".into()))
        );
        // Another browser, where gemm was passed already.
        let there = vec![("exercise.gemm".to_string(), record(true, 3))];
        let imported = answer_ask(PanelAsk::Import {
            saved: there.clone(),
            file,
        });
        assert_eq!(
            imported.status,
            Some((
                true,
                "imported 2 exercises (1 passed); 1 updated here".into()
            ))
        );
        assert_eq!(
            imported.saves,
            vec![("exercise.broadcast-add".to_string(), record(true, 2))]
        );
        assert_eq!(imported.file, None);
        let refused = progress_file(&there, Some("[1]"));
        assert!(refused.saves.is_empty());
        assert!(matches!(&refused.status, Some((false, why)) if why.contains("holds a list")));
        // A malformed request (a bug) still gives a closable dialog.
        let broken = answer("{\"panel\": \"nothing\"}");
        assert!(broken.html.contains("malformed"), "{}", broken.html);
        assert!(broken.html.contains("id=\"panel-close\""));
    }
}
