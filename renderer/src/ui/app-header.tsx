import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { NavLink } from 'react-router';
import { BrandMark } from './brand-mark';

const screens = [
  { to: '/', label: 'Home', end: true },
  { to: '/library', label: 'Library', end: false },
  { to: '/analyse', label: 'Analyse', end: false },
  { to: '/batch', label: 'Batch', end: false },
  { to: '/sources', label: 'Sources', end: false },
  { to: '/projects', label: 'Projects', end: false },
  { to: '/settings', label: 'Settings', end: false },
] as const;

/**
 * The header of every screen: the brand, the screens, and the server's status. Below 960 px the
 * screens sit behind a Menu button (aria-expanded; opening moves focus to the first screen, Escape
 * or a click outside closes and gives focus back to the button); wider, they are a row of links.
 */
export function AppHeader({ signedIn, status }: { readonly signedIn: boolean; readonly status: ReactNode }) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!open) return;
    nav.current?.querySelector<HTMLElement>('a')?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node | null;
      if (target && (nav.current?.contains(target) || button.current?.contains(target))) return;
      setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open]);

  return (
    <header className="topbar">
      <div className="brand">
        <BrandMark />
        <h1 className="brand-name">Cratehouse</h1>
        <span className="brand-tagline">Audio analysis and project hosting</span>
      </div>
      {signedIn ? (
        <>
          <button
            ref={button}
            type="button"
            className="menu-button"
            aria-expanded={open}
            aria-controls={menuId}
            onClick={() => setOpen((value) => !value)}
          >
            <span className={`menu-icon${open ? ' menu-icon-open' : ''}`} aria-hidden="true" />
            Menu
          </button>
          <nav ref={nav} id={menuId} className={`main-nav${open ? ' main-nav-open' : ''}`} aria-label="Screens">
            {screens.map((screen) => (
              <NavLink key={screen.to} to={screen.to} end={screen.end} className="nav-link" onClick={() => setOpen(false)}>
                {screen.label}
              </NavLink>
            ))}
          </nav>
        </>
      ) : null}
      <div className="topbar-status" aria-live="polite">
        {status}
      </div>
    </header>
  );
}
