/**
 * The `grade` engine: a mechanical quality grade of a loop or one-shot (spec rule 11, `POST /grade`).
 *
 * Streamed over interleaved float32 chunks of any size (the route feeds the head, ~30 s). Memory is bounded
 * and independent of the clip's length except for the per-hop envelope, which is itself capped:
 * - the first and the last `EDGE_SECONDS` of every channel (a copy of the head, a ring buffer for the end);
 * - per-channel sums (DC), clip-run counters, Linkwitz–Riley filter states and low-band sums of squares;
 * - a 5 ms hop envelope of three energies (all channels, low band, first difference) for the bar
 *   envelopes: about 200 kB for 30 s, at most `ENVELOPE_CAPACITY` hops (then merged in pairs: 1.5 MB whatever
 *   the length);
 * - the `loudness` and `onsets` engines, run on the same chunks (their own bounded state).
 *
 * Six sub-scores, each 0..1 with the measurement behind it:
 * - seam_click: the wrap from the last sample to the first, per channel: |x[0] − x[N−1]| over the RMS
 *   sample-to-sample step of the first and last 1.5 ms (the rougher side: a wrap into a transient is masked).
 * - zero_crossing: each end's sample relative to the peak of the 10 ms beside it (0 = on a zero crossing,
 *   1 = on a crest), and the distance to the nearest sign change (the start's alone when `scopeGrade` cut).
 * - dc_offset: the mean of each channel.
 * - bar_consistency: the length against a whole number of 4/4 bars at the tempo of the onsets engine, refined
 *   on the onsets' metrical grid (dsp/grade-math `refineBeatPeriod`), and the bar-to-bar similarity of
 *   16-step energy envelopes in three bands. Null (not scored) when no tempo is found.
 * - level: integrated loudness and sample peak (too quiet), clip runs, true peak (from the loudness engine).
 * - bass_mono: the correlation of left and right below 120 Hz (4th-order Linkwitz–Riley low pass).
 *
 * The composite is the weighted geometric mean of the scored sub-scores (each floored at `SCORE_FLOOR`, the
 * weights of the role renormalised over the scored ones), so that one severe defect pulls the grade down
 * instead of being averaged away; digital silence scores 0. Tiers: S ≥ 0.9, A ≥ 0.8, B ≥ 0.65, C ≥ 0.5, else D.
 *
 * This file is the meter (the streaming measurement); grade-checks.ts turns its figures into the checks'
 * scores, reports and flags, and grade-policy.ts holds the policy (thresholds, weights, tiers, `scopeGrade`).
 *
 * Assumptions: the clip starts on a bar line, in 4/4; the clip fed is the whole loop. When the route cuts a
 * longer file at its head, `scopeGrade` marks the loop-only checks (seam, bar length) not applicable and
 * rescores without them: the seam and the length of a cut describe the cut, not the loop.
 */
import type { EngineSpec, StreamEngine, StreamFormat } from './engine.js';
import { loudnessEngine, type LoudnessResult } from './loudness.js';
import { onsetsEngine, type OnsetsResult } from './onsets.js';
import type { Biquad } from '../dsp/k-weighting.js';
import { HopEnvelope, lowPassBiquad } from '../dsp/grade-math.js';
import { gradeFigures, type GradeFigures } from './grade-checks.js';
import {
  BASS_CUTOFF_HZ,
  CLIP_LEVEL,
  CLIP_MIN_RUN,
  EDGE_SECONDS,
  ENVELOPE_CAPACITY,
  HOP_SECONDS,
  type GradeResult,
} from './grade-policy.js';

/** Biquad state slots per channel for the two low-pass sections: x1 x2 y1 y2 of each. */
const LP_STATE = 8;

class GradeMeter implements StreamEngine<GradeResult> {
  private readonly channels: number;
  private readonly sampleRate: number;
  private readonly role: string;
  private readonly loudness: StreamEngine<LoudnessResult>;
  private readonly onsets: StreamEngine<OnsetsResult>;
  private readonly lp: Biquad;

  private readonly edgeFrames: number;
  private readonly head: Float32Array;
  private headFrames = 0;
  /** Ring of the last edgeFrames frames: frame f lives in slot f mod edgeFrames. */
  private readonly ring: Float32Array;

  private readonly dcSum: Float64Array;
  private readonly prev: Float64Array;
  private readonly run: Int32Array;
  private clipRuns = 0;
  private clippedSamples = 0;
  /** Low-pass state of channels 0 and 1 (LP_STATE each). */
  private readonly lpState = new Float64Array(2 * LP_STATE);
  private sLL = 0;
  private sRR = 0;
  private sLR = 0;

  private readonly envelope: HopEnvelope;
  private posInHop = 0;
  private eFull = 0;
  private eLow = 0;
  private eHigh = 0;

  private frames = 0;
  private finished = false;

  constructor(format: StreamFormat, role: string) {
    const { sampleRate, channels } = format;
    if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`channel count must be a positive integer, got ${channels}`);
    this.channels = channels;
    this.sampleRate = sampleRate;
    this.role = role;
    this.loudness = loudnessEngine.create(format, {});
    this.onsets = onsetsEngine.create(format, {});
    this.lp = lowPassBiquad(BASS_CUTOFF_HZ, sampleRate);
    this.edgeFrames = Math.max(16, Math.ceil(EDGE_SECONDS * sampleRate));
    this.head = new Float32Array(this.edgeFrames * channels);
    this.ring = new Float32Array(this.edgeFrames * channels);
    this.dcSum = new Float64Array(channels);
    this.prev = new Float64Array(channels);
    this.run = new Int32Array(channels);
    this.envelope = new HopEnvelope(3, ENVELOPE_CAPACITY, Math.max(1, Math.round(HOP_SECONDS * sampleRate)));
  }

  push(chunk: Float32Array): void {
    if (this.finished) throw new Error('grade: push after finish');
    const c = this.channels;
    if (chunk.length % c !== 0) throw new RangeError(`chunk length ${chunk.length} is not a multiple of ${c} channels`);
    const frames = chunk.length / c;
    if (frames === 0) return;
    this.loudness.push(chunk);
    this.onsets.push(chunk);
    this.keepEdges(chunk, frames);
    if (c === 1) this.scanMono(chunk, frames);
    else this.scanMulti(chunk, frames);
    this.frames += frames;
  }

  /** Copy the head until full, and the chunk's last frames into the end ring. */
  private keepEdges(chunk: Float32Array, frames: number): void {
    const c = this.channels;
    const e = this.edgeFrames;
    if (this.headFrames < e) {
      const take = Math.min(frames, e - this.headFrames);
      this.head.set(chunk.subarray(0, take * c), this.headFrames * c);
      this.headFrames += take;
    }
    const take = Math.min(frames, e);
    for (let k = frames - take; k < frames;) {
      const slot = (this.frames + k) % e;
      const n = Math.min(frames - k, e - slot);
      this.ring.set(chunk.subarray(k * c, (k + n) * c), slot * c);
      k += n;
    }
  }

  /** Close the current hop (energies summed over its frames). */
  private completeHop(): void {
    this.envelope.push([this.eFull, this.eLow, this.eHigh]);
    this.eFull = 0;
    this.eLow = 0;
    this.eHigh = 0;
    this.posInHop = 0;
  }

  /** Clip-run bookkeeping for one channel's sample (called only at and just after a clipped sample). */
  private endRun(ch: number): void {
    const r = this.run[ch]!;
    if (r >= CLIP_MIN_RUN) {
      this.clipRuns++;
      this.clippedSamples += r;
    }
    this.run[ch] = 0;
  }

  private scanMono(chunk: Float32Array, frames: number): void {
    const { b0, b1, b2, a1, a2 } = this.lp;
    const st = this.lpState;
    let x1 = st[0]!,
      x2 = st[1]!,
      y1 = st[2]!,
      y2 = st[3]!,
      u1 = st[4]!,
      u2 = st[5]!,
      z1 = st[6]!,
      z2 = st[7]!;
    let sum = this.dcSum[0]!;
    let prev = this.prev[0]!;
    let sLL = this.sLL;
    let eFull = this.eFull,
      eLow = this.eLow,
      eHigh = this.eHigh;
    let pos = this.posInHop;
    let hop = this.envelope.hopFrames;
    for (let i = 0; i < frames; i++) {
      const v = chunk[i]!;
      sum += v;
      const d = v - prev;
      prev = v;
      eHigh += d * d;
      eFull += v * v;
      if (v >= CLIP_LEVEL || v <= -CLIP_LEVEL) this.run[0]!++;
      else if (this.run[0]! > 0) this.endRun(0);
      // Two cascaded sections (4th-order Linkwitz–Riley), direct form I.
      const y = b0 * v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
      x2 = x1;
      x1 = v;
      y2 = y1;
      y1 = y;
      const z = b0 * y + b1 * u1 + b2 * u2 - a1 * z1 - a2 * z2;
      u2 = u1;
      u1 = y;
      z2 = z1;
      z1 = z;
      sLL += z * z;
      eLow += z * z;
      if (++pos === hop) {
        this.eFull = eFull;
        this.eLow = eLow;
        this.eHigh = eHigh;
        this.completeHop();
        eFull = eLow = eHigh = 0;
        pos = 0;
        hop = this.envelope.hopFrames;
      }
    }
    st[0] = x1;
    st[1] = x2;
    st[2] = y1;
    st[3] = y2;
    st[4] = u1;
    st[5] = u2;
    st[6] = z1;
    st[7] = z2;
    this.dcSum[0] = sum;
    this.prev[0] = prev;
    this.sLL = sLL;
    this.eFull = eFull;
    this.eLow = eLow;
    this.eHigh = eHigh;
    this.posInHop = pos;
  }

  /** Two or more channels: channels 0 and 1 in registers (and low-passed), further ones in a loop. */
  private scanMulti(chunk: Float32Array, frames: number): void {
    const ch = this.channels;
    const { b0, b1, b2, a1, a2 } = this.lp;
    const st = this.lpState;
    let lx1 = st[0]!,
      lx2 = st[1]!,
      ly1 = st[2]!,
      ly2 = st[3]!,
      lu1 = st[4]!,
      lu2 = st[5]!,
      lz1 = st[6]!,
      lz2 = st[7]!;
    let rx1 = st[8]!,
      rx2 = st[9]!,
      ry1 = st[10]!,
      ry2 = st[11]!,
      ru1 = st[12]!,
      ru2 = st[13]!,
      rz1 = st[14]!,
      rz2 = st[15]!;
    let sumL = this.dcSum[0]!,
      sumR = this.dcSum[1]!;
    let prevL = this.prev[0]!,
      prevR = this.prev[1]!;
    let sLL = this.sLL,
      sRR = this.sRR,
      sLR = this.sLR;
    let eFull = this.eFull,
      eLow = this.eLow,
      eHigh = this.eHigh;
    let pos = this.posInHop;
    let hop = this.envelope.hopFrames;
    const run = this.run;
    const dc = this.dcSum;
    const prevs = this.prev;
    for (let i = 0, k = 0; i < frames; i++, k += ch) {
      const l = chunk[k]!;
      const r = chunk[k + 1]!;
      sumL += l;
      sumR += r;
      const dl = l - prevL;
      const dr = r - prevR;
      prevL = l;
      prevR = r;
      eHigh += dl * dl + dr * dr;
      eFull += l * l + r * r;
      if (l >= CLIP_LEVEL || l <= -CLIP_LEVEL) run[0]!++;
      else if (run[0]! > 0) this.endRun(0);
      if (r >= CLIP_LEVEL || r <= -CLIP_LEVEL) run[1]!++;
      else if (run[1]! > 0) this.endRun(1);
      for (let c = 2; c < ch; c++) {
        const v = chunk[k + c]!;
        dc[c] = dc[c]! + v;
        const d = v - prevs[c]!;
        prevs[c] = v;
        eHigh += d * d;
        eFull += v * v;
        if (v >= CLIP_LEVEL || v <= -CLIP_LEVEL) run[c]!++;
        else if (run[c]! > 0) this.endRun(c);
      }
      const ly = b0 * l + b1 * lx1 + b2 * lx2 - a1 * ly1 - a2 * ly2;
      const ry = b0 * r + b1 * rx1 + b2 * rx2 - a1 * ry1 - a2 * ry2;
      lx2 = lx1;
      lx1 = l;
      ly2 = ly1;
      ly1 = ly;
      rx2 = rx1;
      rx1 = r;
      ry2 = ry1;
      ry1 = ry;
      const lz = b0 * ly + b1 * lu1 + b2 * lu2 - a1 * lz1 - a2 * lz2;
      const rz = b0 * ry + b1 * ru1 + b2 * ru2 - a1 * rz1 - a2 * rz2;
      lu2 = lu1;
      lu1 = ly;
      lz2 = lz1;
      lz1 = lz;
      ru2 = ru1;
      ru1 = ry;
      rz2 = rz1;
      rz1 = rz;
      sLL += lz * lz;
      sRR += rz * rz;
      sLR += lz * rz;
      eLow += lz * lz + rz * rz;
      if (++pos === hop) {
        this.eFull = eFull;
        this.eLow = eLow;
        this.eHigh = eHigh;
        this.completeHop();
        eFull = eLow = eHigh = 0;
        pos = 0;
        hop = this.envelope.hopFrames;
      }
    }
    st.set([lx1, lx2, ly1, ly2, lu1, lu2, lz1, lz2, rx1, rx2, ry1, ry2, ru1, ru2, rz1, rz2]);
    this.dcSum[0] = sumL;
    this.dcSum[1] = sumR;
    this.prev[0] = prevL;
    this.prev[1] = prevR;
    this.sLL = sLL;
    this.sRR = sRR;
    this.sLR = sLR;
    this.eFull = eFull;
    this.eLow = eLow;
    this.eHigh = eHigh;
    this.posInHop = pos;
  }

  /** The last min(frames, edgeFrames) frames, in time order. */
  private tail(): Float32Array {
    const c = this.channels;
    const e = this.edgeFrames;
    const n = Math.min(this.frames, e);
    const out = new Float32Array(n * c);
    for (let k = 0; k < n; k++) {
      const slot = (this.frames - n + k) % e;
      out.set(this.ring.subarray(slot * c, (slot + 1) * c), k * c);
    }
    return out;
  }

  finish(): GradeResult {
    if (this.finished) throw new Error('grade: finish called twice');
    this.finished = true;
    const loudness = this.loudness.finish();
    const onsets = this.onsets.finish();
    this.closeStream();
    return gradeFigures(this.figures(loudness, onsets), this.role);
  }

  /** The partial last hop (its energies scaled to a whole hop, so that it reads as the same power) and open clip runs. */
  private closeStream(): void {
    if (this.posInHop > 0) {
      const s = this.envelope.hopFrames / this.posInHop;
      this.envelope.push([this.eFull * s, this.eLow * s, this.eHigh * s]);
    }
    for (let c = 0; c < this.channels; c++) if (this.run[c]! > 0) this.endRun(c);
  }

  /** What was measured, for the checks. */
  private figures(loudness: LoudnessResult, onsets: OnsetsResult): GradeFigures {
    return {
      channels: this.channels,
      sampleRate: this.sampleRate,
      frames: this.frames,
      head: this.head.subarray(0, this.headFrames * this.channels),
      tail: this.tail(),
      dcSums: this.dcSum,
      clipRuns: this.clipRuns,
      clippedSamples: this.clippedSamples,
      low: { ll: this.sLL, rr: this.sRR, lr: this.sLR },
      envelope: this.envelope,
      loudness,
      onsets,
    };
  }
}

/** Loop/one-shot quality grade (spec rule 11). `role` is a hint that picks the weight row (see ROLE_WEIGHTS). */
export const gradeEngine: EngineSpec<{ role: string }, GradeResult> = {
  id: 'grade',
  version: '4',
  needsTotalFrames: false,
  create(format, params) {
    return new GradeMeter(format, params.role ?? '');
  },
};
