import { describe, expect, it } from 'vitest';
import { analyzeEngine } from './analyze.js';
import { engines, getEngineId } from './registry.js';

describe('engine registry', () => {
  it('files every engine under its own id (the cache key and worker tasks carry the id)', () => {
    for (const [id, engine] of Object.entries(engines)) expect(engine.id, id).toBe(id);
  });

  it('registers the parts of every split engine', () => {
    expect(analyzeEngine.split?.parts).toEqual(['analyze-features', 'analyze-sample']);
    for (const engine of Object.values(engines)) {
      for (const part of engine.split?.parts ?? []) expect(getEngineId(part)).toBe(part);
    }
  });

  it('refuses an id no engine has', () => {
    expect(() => getEngineId('analyse')).toThrow('unknown engine analyse');
    expect(() => getEngineId('toString')).toThrow('unknown engine toString');
  });
});
