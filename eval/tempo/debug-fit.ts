import { readWav16 } from '../real-audio/packages.js';
import { createOnsetStrength, pickOnsets } from '../../server/audio/dsp/onset-detection.js';
import { estimateTempo } from '../../server/audio/dsp/tempo.js';
import { gridFit, inferLoopTempo } from '../../server/audio/dsp/loop-tempo.js';
for (const f of process.argv.slice(2)) {
  const w = readWav16(f);
  const ch = w.channels;
  const n = w.samples.length / ch;
  const x = new Float32Array(w.samples.length);
  for (let i = 0; i < x.length; i++) x[i] = w.samples[i]! / 32768;
  const odf = createOnsetStrength(w.sampleRate);
  odf.push(x, ch);
  const env = odf.finish();
  const fr = odf.frameRate;
  const on = pickOnsets(env, fr);
  const st = on.map((t) => env[Math.round(t * fr)] ?? 0);
  const d = n / w.sampleRate;
  const det = estimateTempo(env, fr, {}, odf.accents());
  const mx = Math.max(...st);
  const out: string[] = [];
  for (const B of [1, 2, 4, 8]) {
    const bpm = (240 * B) / d;
    if (bpm < 60 || bpm > 200) continue;
    out.push(`B${B} ${bpm.toFixed(1)}: 16th ${gridFit(on, st, d / B / 16).toFixed(2)} trip ${gridFit(on, st, d / B / 12).toFixed(2)} 16th^2 ${gridFit(on, st.map((s) => s * s), d / B / 16).toFixed(2)}`);
  }
  const r = inferLoopTempo({ onsets: on, strengths: st, duration: d, detectedBpm: det ? det.bpm : null });
  console.log(f.split('/').pop(), d.toFixed(3), 'det', det?.bpm.toFixed(1), 'n', on.length, '=>', r?.bpm.toFixed(2), r?.source, r?.fit?.toFixed(2));
  if (process.env.V) console.log('   ', on.map((t, i) => `${((t / (d / 16)) % 16).toFixed(1)}:${(st[i]! / mx).toFixed(2)}`).join(' '));
}
