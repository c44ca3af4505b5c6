// Worker bootstrap when running from TypeScript sources (tests, `npm run dev`): register tsx in
// this worker thread, then load the real worker module. Built code uses analysis-worker.js directly.
import { register } from 'tsx/esm/api';

register();
const worker = await import('./analysis-worker.ts');
export const analyse = worker.analyse;
export const warmUp = worker.warmUp;
export const hashFile = worker.hashFile;
export const combineParts = worker.combineParts;
