// A small Markdown reader for READMEs: headings, paragraphs, lists, block quotes, fenced and indented
// code, rules, and inline code, emphasis, links and autolinks. It produces a tree that
// markdown-view.tsx turns into React elements, so user text only ever becomes text nodes: raw HTML
// stays literal text and only http(s) and mailto links survive.

/** Inline content. */
export type Inline =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'code'; readonly text: string }
  | { readonly kind: 'strong' | 'em'; readonly children: readonly Inline[] }
  | { readonly kind: 'link'; readonly href: string; readonly children: readonly Inline[] };

/** Block content. */
export type Block =
  | { readonly kind: 'heading'; readonly level: 1 | 2 | 3 | 4 | 5 | 6; readonly children: readonly Inline[] }
  | { readonly kind: 'paragraph'; readonly children: readonly Inline[] }
  | { readonly kind: 'code'; readonly text: string }
  | { readonly kind: 'rule' }
  | { readonly kind: 'quote'; readonly children: readonly Block[] }
  | { readonly kind: 'list'; readonly ordered: boolean; readonly start: number; readonly items: readonly (readonly Inline[])[] };

/** The URL when it is absolute http(s) or mailto; anything else (javascript:, data:, relative) is refused. */
export function safeHref(url: string): string | null {
  const trimmed = url.trim();
  if (!/^(https?:\/\/|mailto:)/i.test(trimmed)) return null;
  try {
    const parsed = new URL(trimmed);
    return ['http:', 'https:', 'mailto:'].includes(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

const inlinePattern =
  /(`+)([\s\S]*?)\1|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|\*([^*\s][^*]*?)\*|\b_([^_\s][^_]*?)_\b|\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)|<(https?:\/\/[^>\s]+)>|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/;

/** Inline Markdown to a list of inline nodes. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let rest = text;
  const pushText = (t: string) => {
    if (t === '') return;
    const last = out[out.length - 1];
    if (last?.kind === 'text') out[out.length - 1] = { kind: 'text', text: last.text + t };
    else out.push({ kind: 'text', text: t });
  };
  while (rest !== '') {
    const m = inlinePattern.exec(rest);
    if (!m) {
      pushText(rest);
      break;
    }
    pushText(rest.slice(0, m.index));
    const [whole, , code, strong1, strong2, em1, em2, linkText, linkUrl, angle, bare] = m;
    if (code !== undefined) out.push({ kind: 'code', text: code.trim() === '' ? code : code.replace(/^ (.*) $/s, '$1') });
    else if (strong1 !== undefined || strong2 !== undefined) out.push({ kind: 'strong', children: parseInline(strong1 ?? strong2 ?? '') });
    else if (em1 !== undefined || em2 !== undefined) out.push({ kind: 'em', children: parseInline(em1 ?? em2 ?? '') });
    else if (linkText !== undefined) {
      const href = safeHref(linkUrl ?? '');
      const children = parseInline(linkText);
      if (href) out.push({ kind: 'link', href, children });
      else
        for (const child of children) {
          if (child.kind === 'text') pushText(child.text);
          else out.push(child);
        }
    } else {
      const url = angle ?? bare ?? '';
      const href = safeHref(url);
      if (href) out.push({ kind: 'link', href, children: [{ kind: 'text', text: url }] });
      else pushText(whole);
    }
    rest = rest.slice(m.index + whole.length);
  }
  return out;
}

const headingLine = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const ruleLine = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const fenceLine = /^ {0,3}(```+|~~~+)/;
const itemLine = /^ {0,3}([-*+]|(\d{1,9})[.)])\s+(.*)$/;
const quoteLine = /^ {0,3}>\s?(.*)$/;

/** A Markdown document to blocks. */
export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  const blank = (line: string | undefined) => line === undefined || line.trim() === '';
  const startsBlock = (line: string) =>
    headingLine.test(line) || ruleLine.test(line) || fenceLine.test(line) || itemLine.test(line) || quoteLine.test(line);
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (blank(line)) {
      i++;
      continue;
    }
    const fence = fenceLine.exec(line);
    if (fence) {
      const marker = fence[1] ?? '```';
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trimStart().startsWith(marker)) body.push(lines[i++] ?? '');
      i++;
      blocks.push({ kind: 'code', text: body.join('\n') });
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i] ?? '') || (blank(lines[i]) && /^( {4}|\t)/.test(lines[i + 1] ?? ''))))
        body.push((lines[i++] ?? '').replace(/^( {4}|\t)/, ''));
      blocks.push({ kind: 'code', text: body.join('\n') });
      continue;
    }
    const heading = headingLine.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: (heading[1] ?? '#').length as 1 | 2 | 3 | 4 | 5 | 6, children: parseInline(heading[2] ?? '') });
      i++;
      continue;
    }
    if (ruleLine.test(line)) {
      blocks.push({ kind: 'rule' });
      i++;
      continue;
    }
    if (quoteLine.test(line)) {
      const body: string[] = [];
      while (i < lines.length && !blank(lines[i])) {
        const next = lines[i++] ?? '';
        body.push(quoteLine.exec(next)?.[1] ?? next);
      }
      blocks.push({ kind: 'quote', children: parseMarkdown(body.join('\n')) });
      continue;
    }
    const item = itemLine.exec(line);
    if (item) {
      const ordered = item[2] !== undefined;
      const items: Inline[][] = [];
      let current: string[] = [];
      while (i < lines.length) {
        const next = lines[i] ?? '';
        const m = itemLine.exec(next);
        if (m && (m[2] !== undefined) === ordered) {
          if (current.length > 0) items.push(parseInline(current.join(' ')));
          current = [m[3] ?? ''];
        } else if (!blank(next) && !startsBlock(next)) current.push(next.trim());
        else if (blank(next) && itemLine.test(lines[i + 1] ?? '')) {
          // A blank line between items keeps the list going.
        } else break;
        i++;
      }
      if (current.length > 0) items.push(parseInline(current.join(' ')));
      blocks.push({ kind: 'list', ordered, start: ordered ? Number(item[2]) : 1, items });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && !blank(lines[i]) && (para.length === 0 || !startsBlock(lines[i] ?? ''))) {
      const next = lines[i + 1];
      // A setext heading: the paragraph's text underlined with === or ---.
      if (next !== undefined && para.length === 0 && /^ {0,3}(=+|-+)\s*$/.test(next)) {
        blocks.push({ kind: 'heading', level: next.trim().startsWith('=') ? 1 : 2, children: parseInline((lines[i] ?? '').trim()) });
        i += 2;
        break;
      }
      para.push((lines[i++] ?? '').trim());
    }
    if (para.length > 0) blocks.push({ kind: 'paragraph', children: parseInline(para.join(' ')) });
  }
  return blocks;
}
