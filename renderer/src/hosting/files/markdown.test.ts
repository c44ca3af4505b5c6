import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown, safeHref } from './markdown';

describe('markdown', () => {
  it('reads headings, paragraphs, lists, code and rules', () => {
    const blocks = parseMarkdown(
      '# Beat Tape\n\nStems for the *second* track.\nSee below.\n\n- kick\n- bass\n\n1. mix\n2. master\n\n```\nffmpeg -i a.wav\n```\n\n---\n',
    );
    expect(blocks).toEqual([
      { kind: 'heading', level: 1, children: [{ kind: 'text', text: 'Beat Tape' }] },
      {
        kind: 'paragraph',
        children: [
          { kind: 'text', text: 'Stems for the ' },
          { kind: 'em', children: [{ kind: 'text', text: 'second' }] },
          { kind: 'text', text: ' track. See below.' },
        ],
      },
      { kind: 'list', ordered: false, start: 1, items: [[{ kind: 'text', text: 'kick' }], [{ kind: 'text', text: 'bass' }]] },
      { kind: 'list', ordered: true, start: 1, items: [[{ kind: 'text', text: 'mix' }], [{ kind: 'text', text: 'master' }]] },
      { kind: 'code', text: 'ffmpeg -i a.wav' },
      { kind: 'rule' },
    ]);
  });

  it('reads setext headings and block quotes', () => {
    expect(parseMarkdown('Title\n=====\n\n> quoted **bold**')).toEqual([
      { kind: 'heading', level: 1, children: [{ kind: 'text', text: 'Title' }] },
      {
        kind: 'quote',
        children: [
          {
            kind: 'paragraph',
            children: [
              { kind: 'text', text: 'quoted ' },
              { kind: 'strong', children: [{ kind: 'text', text: 'bold' }] },
            ],
          },
        ],
      },
    ]);
  });

  it('keeps http(s) links and turns other schemes into plain text', () => {
    expect(parseInline('[site](https://example.com/a) and [x](javascript:void) and <https://e.test/>')).toEqual([
      { kind: 'link', href: 'https://example.com/a', children: [{ kind: 'text', text: 'site' }] },
      { kind: 'text', text: ' and x and ' },
      { kind: 'link', href: 'https://e.test/', children: [{ kind: 'text', text: 'https://e.test/' }] },
    ]);
    expect(safeHref('JAVASCRIPT:alert(1)')).toBeNull();
    expect(safeHref('data:text/html,x')).toBeNull();
    expect(safeHref('/relative')).toBeNull();
    expect(safeHref('http://example.com')).toBe('http://example.com/');
  });

  it('leaves raw HTML as text', () => {
    expect(parseMarkdown('<img src=x onerror=alert(1)> hi')).toEqual([
      { kind: 'paragraph', children: [{ kind: 'text', text: '<img src=x onerror=alert(1)> hi' }] },
    ]);
  });

  it('reads code spans literally', () => {
    expect(parseInline('run `npm **i**` now')).toEqual([
      { kind: 'text', text: 'run ' },
      { kind: 'code', text: 'npm **i**' },
      { kind: 'text', text: ' now' },
    ]);
  });
});
