//! Bindings to the CodeMirror editor bundle (`web-ui/editor/src/editor.js`,
//! which defines `window.TesselEditor`), and to its rich output: code
//! highlighted as in the editor, Markdown and HTML through the renderers it
//! loads on first use (`web-ui/editor/src/markdown.js`, `rich.js`).

use wasm_bindgen::prelude::*;

use web_ui::protocol::EditorDiag;

#[wasm_bindgen]
extern "C" {
    pub type EditorHandle;

    #[wasm_bindgen(js_namespace = TesselEditor, js_name = create)]
    pub fn create_editor(
        parent: &web_sys::HtmlElement,
        doc: &str,
        read_only: bool,
        on_change: &js_sys::Function,
        on_command: &js_sys::Function,
    ) -> EditorHandle;

    /// Fills `element` with `text` rendered as `kind`: `code` highlighted
    /// (`language` empty or Python); `html`, `markdown` or `statement` once
    /// their renderer has loaded.
    #[wasm_bindgen(js_namespace = TesselEditor, js_name = renderRich)]
    pub fn render_rich(element: &web_sys::HtmlElement, kind: &str, text: &str, language: &str);

    #[wasm_bindgen(method, js_name = getDoc)]
    pub fn get_doc(this: &EditorHandle) -> String;
    #[wasm_bindgen(method, js_name = setDoc)]
    pub fn set_doc(this: &EditorHandle, doc: &str, notify: bool);
    #[wasm_bindgen(method)]
    pub fn append(this: &EditorHandle, text: &str);
    #[wasm_bindgen(method, js_name = setDiagnostics)]
    fn set_diagnostics_js(this: &EditorHandle, diags: &JsValue);
    #[wasm_bindgen(method, js_name = setReadOnly)]
    pub fn set_read_only(this: &EditorHandle, read_only: bool);
    #[wasm_bindgen(method)]
    pub fn reveal(this: &EditorHandle, pos: u32);
    #[wasm_bindgen(method)]
    pub fn focus(this: &EditorHandle);
}

impl EditorHandle {
    pub fn set_diagnostics(&self, diags: &[EditorDiag]) {
        let list = js_sys::Array::new();
        for d in diags {
            let item = js_sys::Array::new();
            item.push(&JsValue::from(d.from));
            item.push(&JsValue::from(d.to));
            item.push(&JsValue::from_str(&d.severity));
            item.push(&JsValue::from_str(&d.message));
            list.push(&item);
        }
        self.set_diagnostics_js(&list);
    }
}
