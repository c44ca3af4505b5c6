import { it } from 'vitest';
import { onsetsEngine } from '../audio/onsets.js';
import { createOnsetStrength, pickOnsets } from '../audio/dsp/onset-detection.js';

function bass(bpm: number, bars: number, sr: number, pattern: number[], notes: number[], decay: number): Float32Array {
  const beat = 60 / bpm;
  const dur = bars * 4 * beat;
  const n = Math.round(dur * sr);
  const x = new Float32Array(n);
  const step = beat / 4;
  for (let b = 0; b < bars; b++) for (let s = 0; s < 16; s++) {
    const v = pattern[s]!;
    if (!v) continue;
    const f = notes[(b * 16 + s) % notes.length]!;
    const start = Math.round((b * 4 * beat + s * step) * sr);
    let ph = 0;
    for (let i = 0; start + i < n && i < sr; i++) {
      const t = i / sr;
      ph += f / sr;
      const saw = 2 * (ph - Math.floor(ph + 0.5));
      const env = Math.min(1, t / 0.003) * Math.exp(-t / decay);
      x[start + i] += 0.4 * v * (0.7 * Math.sin(2 * Math.PI * ph) + 0.3 * saw) * env;
    }
  }
  return x;
}
it('exp', () => {
  const pats: Record<string, number[]> = {
    quarters: [1,0,0,0, 1,0,0,0, 1,0,0,0, 1,0,0,0],
    eighths: [1,0,1,0, 1,0,1,0, 1,0,1,0, 1,0,1,0],
    offbeat: [0,0,1,0, 0,0,1,0, 0,0,1,0, 0,0,1,0],
    house: [1,0,0,1, 0,0,1,0, 1,0,0,1, 0,0,1,0],
    accent8: [1,0,0.5,0, 1,0,0.5,0, 1,0,0.5,0, 1,0,0.5,0],
    halfnotes: [1,0,0,0, 0,0,0,0, 1,0,0,0, 0,0,0,0],
    dotted: [1,0,0,1, 0,0,1,0, 0,0,1,0, 0,0,0,0],
  };
  const noteSets: Record<string, number[]> = { root: [55], oct: [55, 110], walk: [55, 55, 65.4, 73.4] };
  for (const bars of [2]) for (const [pn, p] of Object.entries(pats).filter(([k])=>k==='quarters'||k==='house')) for (const [nn, ns] of Object.entries(noteSets).filter(([k])=>k==='root')) for (const decay of [0.08, 0.3]) {
    const x = bass(124, bars, 44100, p, ns, decay);
    const odf = createOnsetStrength(44100); odf.push(x, 1); const env = odf.finish(); const fr = odf.frameRate; const on = pickOnsets(env, fr); const mx = Math.max(...on.map(t=>env[Math.round(t*fr)]!));
    console.log(on.map((t)=>((t/(60/124/4))%16).toFixed(1)+':'+(env[Math.round(t*fr)]!/mx).toFixed(2)).join(' '));
    const e = onsetsEngine.create({ sampleRate: 44100, channels: 1, channelLayout: null, totalFrames: null }, {});
    e.push(x);
    const r = e.finish();
    console.log(r.onsets.map((t)=>((t/(60/124/4))%16).toFixed(2)).join(' '));
    console.log(bars, pn, nn, decay, r.tempo_bpm, r.tempo_source, r.loop_bars, r.onset_count);
  }
});
