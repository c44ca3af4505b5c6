import { useEffect, useState } from 'react';

/** Copies `text` to the clipboard and says so for a moment ("Copied"). */
export function CopyButton({
  text,
  label = 'Copy',
  className = 'button button-secondary',
}: {
  readonly text: string;
  readonly label?: string;
  readonly className?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 1800);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };
  return (
    <button type="button" className={className} onClick={copy} aria-live="polite">
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select and copy by hand' : label}
    </button>
  );
}
