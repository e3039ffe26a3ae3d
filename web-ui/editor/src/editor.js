// Tessel's code editor: CodeMirror 6 with Python highlighting, auto-indent,
// bracket matching, undo/redo, search, line numbers and lint squiggles.
// Bundled by build.mjs (esbuild) into one script that defines
// `window.TesselEditor`; the Rust UI (web-ui/src/editor.rs) drives it.

import { EditorState, Compartment } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, highlightSpecialChars, rectangularSelection, dropCursor,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import {
  indentOnInput, bracketMatching, foldGutter, foldKeymap, syntaxHighlighting, HighlightStyle, indentUnit,
} from '@codemirror/language';
import { closeBrackets, closeBracketsKeymap, autocompletion, completionKeymap } from '@codemirror/autocomplete';
import { setDiagnostics, lintGutter, lintKeymap } from '@codemirror/lint';
import { python, pythonLanguage } from '@codemirror/lang-python';
import { tags as t, highlightCode } from '@lezer/highlight';

// Token colours come from CSS classes (static/style.css), so light and dark
// mode are one stylesheet, shared with the IR view's highlighter.
const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword], class: 'tok-kw' },
  { tag: [t.string, t.special(t.string)], class: 'tok-str' },
  { tag: [t.number, t.bool, t.null], class: 'tok-num' },
  { tag: t.comment, class: 'tok-com' },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], class: 'tok-fn' },
  { tag: [t.definition(t.variableName), t.definition(t.className), t.className], class: 'tok-def' },
  { tag: t.meta, class: 'tok-dec' },
  { tag: t.propertyName, class: 'tok-prop' },
]);

const SCHEDULE_METHODS = [
  'get_block', 'get_sblock', 'get_loops', 'get_child_blocks', 'get_producers', 'get_consumers',
  'split', 'fuse', 'reorder', 'parallel', 'vectorize', 'unroll', 'bind', 'compute_at',
  'reverse_compute_at', 'compute_inline', 'reverse_compute_inline', 'cache_read', 'cache_write',
  'set_scope', 'storage_align', 'decompose_reduction', 'rfactor', 'blockize', 'tensorize',
  'annotate', 'unannotate', 'transform_layout', 'sample_perfect_tile', 'sample_categorical',
];
const T_FUNCS = [
  'prim_func', 'Buffer', 'block', 'sblock', 'axis.spatial', 'axis.reduce', 'axis.remap', 'grid',
  'init', 'reads', 'writes', 'alloc_buffer', 'match_buffer', 'func_attr', 'float32', 'float16',
  'int32', 'int64', 'max', 'min', 'exp', 'sqrt', 'if_then_else', 'serial', 'parallel',
  'vectorized', 'unroll', 'thread_binding', 'where', 'handle', 'cast',
];

function completions(context) {
  const word = context.matchBefore(/(sch|T)\.[\w.]*/);
  if (!word || (word.from === word.to && !context.explicit)) return null;
  const dot = word.text.indexOf('.');
  const list = word.text.startsWith('sch') ? SCHEDULE_METHODS : T_FUNCS;
  return {
    from: word.from + dot + 1,
    options: list.map((label) => ({ label, type: 'function' })),
    validFor: /^[\w.]*$/,
  };
}

function create(parent, doc, readOnly, onChange, onCommand) {
  const readOnlyConf = new Compartment();
  const readOnlyExt = (ro) => [EditorState.readOnly.of(ro), EditorView.editable.of(!ro)];
  let silent = false;
  const commands = keymap.of([
    { key: 'Mod-Enter', run: () => { onCommand('run'); return true; }, preventDefault: true },
    { key: 'Mod-s', run: () => { onCommand('share'); return true; }, preventDefault: true },
  ]);
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        commands,
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        foldGutter(),
        drawSelection(),
        dropCursor(),
        EditorState.allowMultipleSelections.of(true),
        indentOnInput(),
        indentUnit.of('    '),
        syntaxHighlighting(highlight),
        bracketMatching(),
        closeBrackets(),
        autocompletion({ override: [completions], activateOnTyping: true }),
        rectangularSelection(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        lintGutter(),
        keymap.of([
          ...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap,
          ...foldKeymap, ...completionKeymap, ...lintKeymap, indentWithTab,
        ]),
        python(),
        readOnlyConf.of(readOnlyExt(readOnly)),
        EditorView.contentAttributes.of({ 'aria-label': 'Script editor', 'aria-multiline': 'true' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !silent) onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    getDoc: () => view.state.doc.toString(),
    // Replaces the whole text as one undoable change.
    setDoc(text, notify) {
      if (text === view.state.doc.toString()) return;
      silent = !notify;
      try {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      } finally {
        silent = false;
      }
    },
    // Appends text at the end (one undoable change) and scrolls to it.
    append(text) {
      const end = view.state.doc.length;
      view.dispatch({
        changes: { from: end, insert: text },
        selection: { anchor: end + text.length },
        scrollIntoView: true,
      });
    },
    // diags: [[from, to, severity, message], ...] in UTF-16 offsets.
    setDiagnostics(diags) {
      const len = view.state.doc.length;
      const list = diags.map(([from, to, severity, message]) => {
        const f = Math.min(Math.max(0, from), len);
        return { from: f, to: Math.min(Math.max(f, to), len), severity, message };
      });
      view.dispatch(setDiagnostics(view.state, list));
    },
    setReadOnly(ro) {
      view.dispatch({ effects: readOnlyConf.reconfigure(readOnlyExt(ro)) });
    },
    // Moves the cursor to a UTF-16 offset and scrolls there.
    reveal(pos) {
      const p = Math.min(Math.max(0, pos), view.state.doc.length);
      view.dispatch({ selection: { anchor: p }, scrollIntoView: true });
      view.focus();
    },
    focus: () => view.focus(),
  };
}

// The Markdown renderer (markdown.js) and the HTML sanitiser (rich.js),
// each its own script, loaded once, the first time the page needs it.
const loading = {};
function load(file, global) {
  if (window[global]) return Promise.resolve(window[global]);
  if (!loading[file]) {
    loading[file] = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = new URL(file, document.baseURI).href;
      script.onload = () => resolve(window[global]);
      script.onerror = () => {
        delete loading[file];
        reject(new Error(`could not load ${file}`));
      };
      document.head.appendChild(script);
    });
  }
  return loading[file];
}
const loadMarkdown = () => load('tessel-markdown.js', 'TesselMarkdown');
const loadSanitiser = () => load('tessel-rich.js', 'TesselRich');

// `kind` → HTML, once its scripts have loaded: a display's HTML sanitised,
// a display's Markdown rendered then sanitised, an exercise statement (the
// site's own text) rendered by the safe-by-construction Markdown renderer.
const RENDERERS = {
  html: (text) => loadSanitiser().then((s) => s.html(text)),
  markdown: (text) => Promise.all([loadMarkdown(), loadSanitiser()])
    .then(([md, s]) => s.html(md.render(text))),
  statement: (text) => loadMarkdown().then((md) => md.render(text)),
};

// Fills `element` with `text` highlighted as the editor does (Python; any
// other language stays plain text).
function renderCode(element, text, language) {
  element.textContent = '';
  if (language) element.dataset.language = language;
  const code = text.replace(/\n$/, '');
  if (language && !/^(i?python\d?|py)$/i.test(language)) {
    element.textContent = code;
    return;
  }
  highlightCode(code, pythonLanguage.parser.parse(code), highlight, (piece, classes) => {
    const span = document.createElement('span');
    if (classes) span.className = classes;
    span.textContent = piece;
    element.appendChild(span);
  }, () => element.appendChild(document.createTextNode('\n')));
  element.dataset.rendered = 'code';
}

// Fills `element` with `text` rendered as `kind`: `code` (highlighted, in
// `language`), `html`, `markdown` or `statement` (see RENDERERS). Until the
// renderer has loaded (or if it cannot), the element shows the text as it is.
function renderRich(element, kind, text, language) {
  if (kind === 'code') {
    renderCode(element, text, language);
    return;
  }
  element.textContent = text;
  const render = RENDERERS[kind];
  if (!render) return;
  render(text).then((html) => {
    // A newer render of the same element may have superseded this one.
    if (element.textContent !== text) return;
    element.innerHTML = html;
    element.dataset.rendered = kind === 'statement' ? 'markdown' : kind;
  }, (e) => console.warn(e.message));
}

// `current` is the most recent editor (the e2e tests read the document through it).
window.TesselEditor = {
  renderRich,
  create(...args) {
    const editor = create(...args);
    window.TesselEditor.current = editor;
    return editor;
  },
  current: null,
};
