import { useState, type DragEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { setPendingAnalysis } from '../audio/sources/handoff';
import { looksLikeAudio } from './file-drop';

function carriesFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer.types).includes('Files');
}

/**
 * Files dropped anywhere on the window (outside a screen's own drop zone) open in Analyse, as a
 * producer expects of a desktop audio tool; without this the browser would navigate to the file.
 */
export function WindowDrop({ children }: { readonly children: ReactNode }) {
  const navigate = useNavigate();
  const [over, setOver] = useState(false);
  return (
    <div
      className="window-drop"
      onDragOver={(event) => {
        if (!carriesFiles(event) || event.defaultPrevented) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={(event) => {
        if (event.relatedTarget === null) setOver(false);
      }}
      onDrop={(event) => {
        setOver(false);
        // A screen's own drop zone took it (it called preventDefault).
        if (event.defaultPrevented || !carriesFiles(event)) return;
        event.preventDefault();
        const files = Array.from(event.dataTransfer.files);
        const file = files.find(looksLikeAudio) ?? files[0];
        if (!file) return;
        setPendingAnalysis(file);
        void navigate('/analyse');
      }}
    >
      {children}
      {over ? (
        <div className="window-drop-overlay" aria-hidden="true">
          <p>Drop to analyse</p>
        </div>
      ) : null}
    </div>
  );
}
