import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { setPendingAnalysis } from '../audio/sources/handoff';
import { looksLikeAudio } from './file-drop';

function carriesFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes('Files');
}

/**
 * Files dropped anywhere on the window (outside a screen's own drop zone) open in Analyse, as a
 * producer expects of a desktop audio tool; without this the browser would navigate to the file and
 * leave the app. The listeners are on `window`, not on an element: an element only catches drops on
 * itself, and the header, the margins beside the content and the space below it are not in one (the
 * miss the review found). They run after React's, so a zone that took the drop has called
 * preventDefault. Signed out (`enabled` false), a drop is still stopped but goes nowhere.
 */
export function WindowDrop({ enabled }: { readonly enabled: boolean }) {
  const navigate = useNavigate();
  const [over, setOver] = useState(false);
  // The window listeners are added once and read the latest values through this ref.
  const latest = useRef({ enabled, navigate });
  useEffect(() => {
    latest.current = { enabled, navigate };
  }, [enabled, navigate]);

  useEffect(() => {
    const onDragOver = (event: DragEvent) => {
      if (!carriesFiles(event) || event.defaultPrevented) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = latest.current.enabled ? 'copy' : 'none';
      if (latest.current.enabled) setOver(true);
    };
    const onDragLeave = (event: DragEvent) => {
      // Leaving the window (no element to enter) ends the hover.
      if (event.relatedTarget === null) setOver(false);
    };
    const onDrop = (event: DragEvent) => {
      setOver(false);
      if (!carriesFiles(event)) return;
      // A screen's own drop zone took it (it called preventDefault).
      if (event.defaultPrevented) return;
      event.preventDefault();
      if (!latest.current.enabled) return;
      const files = Array.from(event.dataTransfer?.files ?? []);
      const file = files.find(looksLikeAudio) ?? files[0];
      if (!file) return;
      setPendingAnalysis(file);
      void latest.current.navigate('/analyse');
    };
    const onDragEnd = () => setOver(false);
    window.addEventListener('dragover', onDragOver);
    window.addEventListener('dragleave', onDragLeave);
    window.addEventListener('drop', onDrop);
    window.addEventListener('dragend', onDragEnd);
    return () => {
      window.removeEventListener('dragover', onDragOver);
      window.removeEventListener('dragleave', onDragLeave);
      window.removeEventListener('drop', onDrop);
      window.removeEventListener('dragend', onDragEnd);
    };
  }, []);

  return over ? (
    <div className="window-drop-overlay" aria-hidden="true">
      <p>Drop to analyse</p>
    </div>
  ) : null;
}
