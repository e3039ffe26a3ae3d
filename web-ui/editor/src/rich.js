// The HTML sanitiser for the playground's console: IPython's HTML displays,
// and its Markdown displays once markdown.js has rendered them, turned into
// HTML that is safe to put in the page. Bundled on its own
// (build/tessel-rich.js) and loaded by editor.js the first time the console
// shows HTML or Markdown, so other pages never download it.
//
// Sanitising: DOMPurify (the maintained DOM-based sanitiser browsers'
// own Sanitizer API was modelled on), with a stricter policy than its
// default: no scripts or event handlers (DOMPurify's default), and nothing
// that loads from the network on its own or submits anything — no
// iframes, objects, forms, media, style sheets or `<link>`/`<base>`/`<meta>`,
// no `src`/`srcset`/`poster`/`background` other than inline `data:` images,
// no CSS `url(...)` or `@import` in `style` attributes. Links stay (only
// http(s), mailto and in-page) and open in a new tab. Ids and names get a
// `user-content-` prefix so displayed HTML cannot clobber the page's own.
import DOMPurify from 'dompurify';

const FORBID_TAGS = [
  'style', 'link', 'meta', 'base', 'iframe', 'frame', 'frameset', 'object', 'embed',
  'form', 'input', 'button', 'select', 'textarea', 'option', 'audio', 'video', 'source',
  'track', 'picture', 'portal', 'noscript', 'template',
];
// Attributes that make the browser fetch something by themselves.
const LOADS = new Set(['src', 'srcset', 'poster', 'background', 'lowsrc', 'dynsrc', 'longdesc',
  'action', 'formaction', 'ping', 'data', 'codebase', 'xlink:href', 'cite']);
const INLINE_IMAGE = /^data:image\/(png|gif|jpe?g|webp);base64,[a-z0-9+/=\s]*$/i;
const SAFE_LINK = /^(https?:|mailto:|#)/i;
const FETCHING_CSS = /url\s*\(|image-set|image\s*\(|@import|expression\s*\(/i;

const purify = DOMPurify(window);
purify.addHook('uponSanitizeAttribute', (node, data) => {
  const name = data.attrName;
  const value = data.attrValue.trim();
  if (LOADS.has(name)) {
    data.keepAttr = name === 'src' && node.nodeName === 'IMG' && INLINE_IMAGE.test(value);
  } else if (name === 'href') {
    data.keepAttr = node.nodeName === 'A' && SAFE_LINK.test(value);
  } else if (name === 'style') {
    data.keepAttr = !FETCHING_CSS.test(value);
  }
});
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS,
  SANITIZE_NAMED_PROPS: true,
};

/** Sanitised HTML for untrusted HTML. */
function html(text) {
  return purify.sanitize(text, CONFIG);
}

window.TesselRich = { html };
