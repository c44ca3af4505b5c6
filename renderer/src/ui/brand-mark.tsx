/** The Cratehouse mark: a crate of level-meter bars. Decorative; the product name sits next to it. */
export function BrandMark({ size = 28 }: { readonly size?: number }) {
  return (
    <svg className="brand-mark" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect x="1.5" y="1.5" width="29" height="29" rx="7" fill="none" stroke="currentColor" strokeWidth="2" opacity="0.55" />
      <rect x="7" y="15" width="3.5" height="10" rx="1.5" fill="currentColor" />
      <rect x="12.5" y="8" width="3.5" height="17" rx="1.5" fill="currentColor" />
      <rect x="18" y="12" width="3.5" height="13" rx="1.5" fill="currentColor" />
      <rect x="23.5" y="18" width="2.5" height="7" rx="1.25" fill="currentColor" opacity="0.7" />
    </svg>
  );
}
