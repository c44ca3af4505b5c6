import { createElement, type ReactNode } from 'react';
import { parseMarkdown, type Block, type Inline } from './markdown';

function renderInline(nodes: readonly Inline[]): ReactNode[] {
  return nodes.map((node, i) => {
    switch (node.kind) {
      case 'text':
        return node.text;
      case 'code':
        return <code key={i}>{node.text}</code>;
      case 'strong':
        return <strong key={i}>{renderInline(node.children)}</strong>;
      case 'em':
        return <em key={i}>{renderInline(node.children)}</em>;
      case 'link':
        return (
          <a key={i} href={node.href} target="_blank" rel="noopener noreferrer nofollow">
            {renderInline(node.children)}
          </a>
        );
    }
  });
}

function renderBlock(block: Block, key: number): ReactNode {
  switch (block.kind) {
    case 'heading':
      // One level down: the README sits under the page's own headings.
      return createElement(`h${Math.min(6, block.level + 2)}`, { key }, renderInline(block.children));
    case 'paragraph':
      return <p key={key}>{renderInline(block.children)}</p>;
    case 'code':
      return (
        <pre key={key}>
          <code>{block.text}</code>
        </pre>
      );
    case 'rule':
      return <hr key={key} />;
    case 'quote':
      return <blockquote key={key}>{block.children.map(renderBlock)}</blockquote>;
    case 'list': {
      const items = block.items.map((item, i) => <li key={i}>{renderInline(item)}</li>);
      return block.ordered ? (
        <ol key={key} start={block.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
  }
}

/** A README rendered from Markdown into elements made here (never HTML from the file). */
export function MarkdownView({ source }: { readonly source: string }) {
  return <div className="fl-markdown">{parseMarkdown(source).map(renderBlock)}</div>;
}
