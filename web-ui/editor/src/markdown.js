// Markdown for the playground (`marked`: CommonMark + GitHub tables, small,
// no dependencies), safe by construction: raw HTML in the Markdown is shown
// as text, links keep only http(s), mailto and in-page targets, and images
// only inline `data:` ones (nothing loads from the network). Exercise
// statements use it as is; the console's Markdown displays also go
// through the HTML sanitiser (rich.js). Bundled on its own
// (build/tessel-markdown.js) and loaded by editor.js on first use.
import { Marked } from 'marked';

const SAFE_LINK = /^(https?:|mailto:|#)/i;
const INLINE_IMAGE = /^data:image\/(png|gif|jpe?g|webp);base64,[a-z0-9+/=\s]*$/i;
const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const markdown = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html(token) {
      return escapeHtml(token.text);
    },
    link(token) {
      // `false`: marked's own rendering.
      return SAFE_LINK.test(token.href.trim()) ? false : this.parser.parseInline(token.tokens);
    },
    image(token) {
      return INLINE_IMAGE.test(token.href.trim()) ? false : escapeHtml(token.text);
    },
  },
});

window.TesselMarkdown = { render: (text) => markdown.parse(text) };
