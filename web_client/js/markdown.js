/** The Markdown of docs/rules.md as DOM nodes, for the rules page: the
subset the rule book uses, built with createElement and textContent only
(no HTML is ever parsed, so the text cannot inject anything).

Blocks: headings (with GitHub's anchors, so the book's own "#moves" links
work), paragraphs, lists (- and 1.) whose items may hold paragraphs, code and
lists, fenced code, tables. Inline: `code`, **strong**, *emphasis* and
[links](…): "#anchor" within the page, http(s) addresses outside it, and
other files of the repository (engine.md) as plain text.
*/

import { h } from './dom.js';

/** GitHub's anchor of a heading: "Winning, getting stuck, undoing" → "winning-getting-stuck-undoing". */
function slug(text) {
  return text.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

const FENCE = /^(\s*)```/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const BULLET = /^(\s*)([-*]|\d+\.)\s+(.*)$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

const indentOf = (line) => line.match(/^\s*/)[0].length;
const blank = (line) => !line.trim();

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || BULLET.test(line) || line.trim().startsWith('|');
}

/** `text` with its inline marks as nodes. */
function inline(text, { prefix = '' } = {}) {
  const out = [];
  const pattern = /`([^`]+)`|\*\*(.+?)\*\*|\*([^*\s][^*]*?)\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    if (m[1] != null) out.push(h('code', { text: m[1] }));
    else if (m[2] != null) out.push(h('strong', {}, inline(m[2], { prefix })));
    else if (m[3] != null) out.push(h('em', {}, inline(m[3], { prefix })));
    else out.push(link(m[4], m[5], prefix));
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

function link(label, href, prefix) {
  const content = inline(label, { prefix });
  if (href.startsWith('#')) {
    const id = prefix + href.slice(1);
    return h('a', {
      href: `#${id}`, class: 'md-anchor',
      onclick: (e) => {
        e.preventDefault();
        const target = document.getElementById(id);
        if (target) target.scrollIntoView({ block: 'start' });
      },
    }, content);
  }
  if (/^https?:\/\//.test(href)) return h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, content);
  return h('span', { class: 'md-ref', title: href }, content); // another file of the repository
}

/** Markdown text → an array of block elements; heading ids get `prefix`. */
export function render(markdown, { prefix = '' } = {}) {
  return blocks(markdown.replace(/\r\n?/g, '\n').split('\n'), prefix);
}

function blocks(lines, prefix) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (blank(line)) {
      i += 1;
      continue;
    }
    let m = line.match(FENCE);
    if (m) {
      const code = [];
      const pad = m[1].length;
      i += 1;
      while (i < lines.length && !FENCE.test(lines[i])) code.push(lines[i++].slice(pad));
      i += 1;
      out.push(h('pre', {}, h('code', { text: code.join('\n') })));
      continue;
    }
    m = line.match(HEADING);
    if (m) {
      const level = m[1].length;
      out.push(h(`h${level}`, { id: prefix + slug(m[2].replace(/`/g, '')) }, inline(m[2], { prefix })));
      i += 1;
      continue;
    }
    if (line.trim().startsWith('|') && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1])) {
      const rows = [];
      rows.push(cells(line));
      i += 2;
      while (i < lines.length && lines[i].trim().startsWith('|')) rows.push(cells(lines[i++]));
      out.push(h('table', {},
        h('thead', {}, h('tr', {}, rows[0].map((c) => h('th', { scope: 'col' }, inline(c, { prefix }))))),
        h('tbody', {}, rows.slice(1).map((r) => h('tr', {}, r.map((c) => h('td', {}, inline(c, { prefix }))))))));
      continue;
    }
    m = line.match(BULLET);
    if (m) {
      const [list, next] = listAt(lines, i, prefix);
      out.push(list);
      i = next;
      continue;
    }
    const para = [];
    while (i < lines.length && !blank(lines[i]) && !(para.length && startsBlock(lines[i]))) para.push(lines[i++].trim());
    out.push(h('p', {}, inline(para.join(' '), { prefix })));
  }
  return out;
}

function cells(line) {
  return line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
}

/** The list starting at line `i`: its element and the line after it. */
function listAt(lines, i, prefix) {
  const first = lines[i].match(BULLET);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const list = h(ordered ? 'ol' : 'ul');
  while (i < lines.length) {
    const m = lines[i].match(BULLET);
    if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
    const width = m[1].length + m[2].length + 1;
    const item = [m[3]];
    i += 1;
    while (i < lines.length) {
      const line = lines[i];
      if (blank(line)) {
        let j = i;
        while (j < lines.length && blank(lines[j])) j += 1;
        if (j < lines.length && indentOf(lines[j]) >= width) {
          for (; i < j; i++) item.push('');
          continue;
        }
        break;
      }
      if (indentOf(line) >= width) item.push(line.slice(width));
      else if (!startsBlock(line) && !blank(item.at(-1))) item.push(line.trim()); // a lazy continuation
      else break;
      i += 1;
    }
    const content = blocks(item, prefix);
    const tight = content.length === 1 && content[0].tagName === 'P';
    list.append(h('li', {}, tight ? [...content[0].childNodes] : content));
    if (i < lines.length && blank(lines[i])) {
      let j = i;
      while (j < lines.length && blank(lines[j])) j += 1;
      const again = j < lines.length && lines[j].match(BULLET);
      if (!again || again[1].length !== indent) break;
      i = j;
    }
  }
  return [list, i];
}
