import type { ReactNode } from 'react';

/**
 * One term and its value in a <dl className="facts">. Screen readers announce the pair; tests find a
 * value from its term (ARIA does not let a definition be named, so there is no aria-labelledby here).
 */
export function Fact({ term, children }: { readonly term: string; readonly children: ReactNode }) {
  return (
    <div className="fact">
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
