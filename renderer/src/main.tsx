import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { applyTheme, readPreferences } from './lib/use-preferences';
import './styles.css';

// The chosen theme before the first paint, so a light choice does not flash dark.
applyTheme(readPreferences());

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
