//! The memory picture's panel drawn as HTML, in the worker: its controls
//! (loop, unit, Play/Pause, a slider over the units), the element loads and
//! stores by scope, and one SVG grid per buffer whose touched cells are
//! `rect`s carrying `data-buffer`, `data-index` (`i,j`) and `data-touched`
//! (`read`, `write` or `read write`). The page shows the text as it comes
//! and handles the controls' events (`memory_view.rs`), so the panel's code
//! stays out of the page's wasm, which every visit downloads.

use compiler_core::ir::{ForKind, PrimFunc, Stmt, StmtKind};
use tessel_session::memory_access::{
    unflatten, BufferAccess, GridLayout, MemoryAccess, MemoryScope,
};

use crate::protocol::MemoryOutcome;

/// The panel before the worker's first answer.
pub const DRAWING_HTML: &str = "<div class=\"memory-head\"><h3>Memory accesses</h3>\
<button class=\"hide\" id=\"memory-close\" aria-label=\"Close the memory picture\">✕</button></div>\
<p class=\"muted small\" id=\"memory-status\">Drawing…</p>";

/// A loop for the chooser: its name, extent and kind.
pub struct LoopChoice {
    pub name: String,
    pub extent: Option<i64>,
    /// `serial`, `vectorized`, `threadIdx.x`, ….
    pub kind: String,
}

/// The function's loops in pre-order (the playground's loop numbers).
pub fn loops_of(func: &PrimFunc) -> Vec<LoopChoice> {
    fn go(s: &Stmt, out: &mut Vec<LoopChoice>) {
        if let StmtKind::For(f) = s.kind() {
            out.push(LoopChoice {
                name: f.loop_var.name().to_string(),
                extent: f.extent.as_int(),
                kind: match (&f.thread_tag, f.kind) {
                    (Some(tag), ForKind::ThreadBinding) => tag.clone(),
                    _ => f.kind.script_name().to_string(),
                },
            });
        }
        s.for_each_child(|c| go(c, out));
    }
    let mut out = Vec::new();
    go(&func.body, &mut out);
    out
}

/// The whole panel: the controls for `out`, then the picture or why there
/// is none.
pub fn panel(
    out: &MemoryOutcome,
    loops: &[LoopChoice],
    picture: Option<&MemoryAccess>,
    playing: bool,
) -> String {
    let mut html = String::from(
        "<div class=\"memory-head\"><h3>Memory accesses</h3>\
         <button class=\"hide\" id=\"memory-close\" aria-label=\"Close the memory picture\">✕</button></div>\
         <div class=\"memory-controls\"><label class=\"small\">loop <select id=\"memory-loop\">\
         <option value=\"\">(none)</option>",
    );
    for (i, l) in loops.iter().enumerate() {
        let extent = l.extent.map_or("?".to_string(), |e| e.to_string());
        let kind = if l.kind == "serial" {
            String::new()
        } else {
            format!(" {}", escape(&l.kind))
        };
        html += &format!(
            "<option value=\"{i}\"{}>{} × {extent}{kind}</option>",
            if out.loop_index == Some(i) {
                " selected"
            } else {
                ""
            },
            escape(&l.name)
        );
    }
    html += "</select></label><label class=\"small\"> show one <select id=\"memory-unit\">";
    let offered = if out.units.is_empty() {
        std::slice::from_ref(&out.unit)
    } else {
        &out.units[..]
    };
    for u in offered {
        let u = escape(u);
        let selected = if u == out.unit { " selected" } else { "" };
        html += &format!("<option value=\"{u}\"{selected}>{u}</option>");
    }
    html += &format!(
        "</select></label><button id=\"memory-play\" class=\"tb\" aria-pressed=\"{playing}\">{}</button>\
         <input type=\"range\" id=\"memory-slider\" min=\"0\" max=\"{}\" value=\"{}\" aria-label=\"Which unit to draw\">",
        if playing { "❚❚ Pause" } else { "▶ Play" },
        (out.steps - 1).max(0),
        out.at,
    );
    match (picture, &out.error) {
        (Some(picture), None) => {
            html += &format!(
                "<span class=\"small\" id=\"memory-label\">{} {} of {}: {}</span></div>",
                escape(&out.unit),
                out.at,
                out.steps,
                escape(&out.label)
            );
            html += &render(picture);
        }
        (_, error) => {
            html += &format!(
                "</div><p class=\"error small\" id=\"memory-error\">{}</p>",
                escape(error.as_deref().unwrap_or("no picture"))
            );
        }
    }
    html
}

/// The largest side a grid is drawn at, in pixels.
const GRID_PX: f64 = 260.0;

/// The counts table and the grids of `picture`.
pub fn render(picture: &MemoryAccess) -> String {
    let at = picture.at;
    let mut html = format!(
        "<table class=\"memory-counts\" id=\"memory-counts\" data-at=\"{at}\">\
         <thead><tr><th>scope</th><th>loads</th><th>stores</th></tr></thead><tbody>"
    );
    for scope in MemoryScope::ALL {
        let c = picture.counts(scope);
        let name = scope.name();
        html += &format!(
            "<tr data-scope=\"{name}\"><td>{name}</td><td class=\"loads\">{}</td><td class=\"stores\">{}</td></tr>",
            c.loads, c.stores
        );
    }
    html += "</tbody></table>\
             <p class=\"muted small\">Element loads and stores; cells: <span class=\"key read\">read</span> \
             <span class=\"key write\">written</span> <span class=\"key both\">both</span></p>";
    html += &format!("<div class=\"memory-grids\" data-at=\"{at}\">");
    for b in &picture.buffers {
        html += &grid(b);
    }
    html += "</div>";
    html
}

/// One buffer as a grid: the touched cells drawn, each with its index.
fn grid(b: &BufferAccess) -> String {
    let layout = GridLayout::of(&b.shape);
    let (rows, cols) = (layout.rows.max(1), layout.cols.max(1));
    let cell = (GRID_PX / rows.max(cols) as f64).clamp(1.0, 14.0);
    let (w, h) = (cols as f64 * cell, rows as f64 * cell);
    let name = escape(&b.name);
    let shape = format!("{:?}", b.shape);
    let mut html = format!(
        "<figure class=\"memory-buffer\" data-buffer=\"{name}\" data-scope=\"{scope}\">\
         <figcaption><code>{name}</code><span class=\"muted small\"> {shape} {scope} · {} loads, {} stores</span></figcaption>\
         <svg class=\"memory-grid\" width=\"{}\" height=\"{}\" viewBox=\"-1 -1 {} {}\" role=\"img\" \
         aria-label=\"{name} {shape}: {} cells read, {} written\">\
         <rect class=\"buf\" x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\"/>",
        b.loads,
        b.stores,
        w + 2.0,
        h + 2.0,
        w + 2.0,
        h + 2.0,
        b.reads.len(),
        b.writes.len(),
        scope = escape(&b.scope),
    );
    for (offset, touched) in classify(&b.reads, &b.writes) {
        let index = unflatten(&b.shape, offset)
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let (row, col) = layout.cell(offset);
        html += &format!(
            "<rect class=\"cell {}\" x=\"{}\" y=\"{}\" width=\"{cell}\" height=\"{cell}\" \
             data-buffer=\"{name}\" data-index=\"{index}\" data-touched=\"{touched}\"/>",
            touched.replace(' ', "-"),
            col as f64 * cell,
            row as f64 * cell,
        );
    }
    html += "</svg></figure>";
    html
}

/// Every touched offset with `read`, `write` or `read write`, ascending
/// (both lists are ascending: one merge pass).
fn classify(reads: &[i64], writes: &[i64]) -> Vec<(i64, &'static str)> {
    let mut cells = Vec::with_capacity(reads.len() + writes.len());
    let (mut r, mut w) = (0, 0);
    while r < reads.len() || w < writes.len() {
        match (reads.get(r), writes.get(w)) {
            (Some(&x), Some(&y)) if x == y => {
                cells.push((x, "read write"));
                r += 1;
                w += 1;
            }
            (Some(&x), Some(&y)) if x < y => {
                cells.push((x, "read"));
                r += 1;
            }
            (Some(&x), None) => {
                cells.push((x, "read"));
                r += 1;
            }
            (_, Some(&y)) => {
                cells.push((y, "write"));
                w += 1;
            }
            (None, None) => break,
        }
    }
    cells
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_written_or_both() {
        assert_eq!(
            classify(&[1, 2, 5], &[2, 3]),
            vec![(1, "read"), (2, "read write"), (3, "write"), (5, "read")]
        );
    }
}
