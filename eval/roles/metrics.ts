/** Accuracy, per-role accuracy, confusion matrix and expected calibration error of role answers. */
import { SAMPLE_ROLES, type SampleRole } from '../../server/audio/engines/sample-role.js';

export interface Prediction {
  readonly truth: SampleRole;
  readonly role: SampleRole;
  readonly confidence: number;
}

export interface RoleMetrics {
  readonly n: number;
  readonly accuracy: number;
  /** Accuracy per true role (null when the role has no files). */
  readonly perRole: Record<SampleRole, { n: number; accuracy: number | null }>;
  /** confusion[truth][answer] counts. */
  readonly confusion: Record<SampleRole, Record<SampleRole, number>>;
  /** Expected calibration error over 10 equal-width confidence bins. */
  readonly ece: number;
}

/** The metrics of a list of predictions. */
export function computeMetrics(preds: readonly Prediction[]): RoleMetrics {
  const confusion = Object.fromEntries(SAMPLE_ROLES.map((t) => [t, Object.fromEntries(SAMPLE_ROLES.map((r) => [r, 0]))])) as Record<
    SampleRole,
    Record<SampleRole, number>
  >;
  let right = 0;
  for (const p of preds) {
    confusion[p.truth][p.role]++;
    if (p.truth === p.role) right++;
  }
  const perRole = Object.fromEntries(
    SAMPLE_ROLES.map((t) => {
      const n = SAMPLE_ROLES.reduce((s, r) => s + confusion[t][r], 0);
      return [t, { n, accuracy: n > 0 ? confusion[t][t] / n : null }];
    }),
  ) as RoleMetrics['perRole'];
  return { n: preds.length, accuracy: preds.length ? right / preds.length : 0, perRole, confusion, ece: expectedCalibrationError(preds) };
}

/** ECE: Σ over 10 bins of (bin share) · |accuracy − mean confidence| (Guo et al. 2017). */
export function expectedCalibrationError(preds: readonly Prediction[], bins = 10): number {
  const count = new Array<number>(bins).fill(0);
  const conf = new Array<number>(bins).fill(0);
  const hits = new Array<number>(bins).fill(0);
  for (const p of preds) {
    const b = Math.min(bins - 1, Math.floor(p.confidence * bins));
    count[b]!++;
    conf[b]! += p.confidence;
    if (p.truth === p.role) hits[b]!++;
  }
  let ece = 0;
  for (let b = 0; b < bins; b++)
    if (count[b]! > 0) ece += (count[b]! / preds.length) * Math.abs(hits[b]! / count[b]! - conf[b]! / count[b]!);
  return ece;
}

const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)} %`);

/** Markdown lines: the headline, per-role accuracy and the confusion matrix. */
export function formatMetrics(title: string, m: RoleMetrics): string[] {
  const lines = [`**${title}**: accuracy ${pct(m.accuracy)} (${m.n} files), ECE ${m.ece.toFixed(3)}`, ''];
  lines.push(`| truth \\ answer | ${SAMPLE_ROLES.join(' | ')} | accuracy |`, `|---|${SAMPLE_ROLES.map(() => '---').join('|')}|---|`);
  for (const t of SAMPLE_ROLES) {
    if (m.perRole[t].n === 0) continue;
    lines.push(`| ${t} (${m.perRole[t].n}) | ${SAMPLE_ROLES.map((r) => m.confusion[t][r]).join(' | ')} | ${pct(m.perRole[t].accuracy)} |`);
  }
  return lines;
}

/** One table row per library: n, accuracy, each role's accuracy, ECE. */
export function formatLibraryRows(rows: readonly { library: string; m: RoleMetrics }[]): string[] {
  const out = [
    `| library | files | accuracy | ${SAMPLE_ROLES.join(' | ')} | ECE |`,
    `|---|---|---|${SAMPLE_ROLES.map(() => '---').join('|')}|---|`,
  ];
  for (const { library, m } of rows)
    out.push(
      `| ${library} | ${m.n} | ${pct(m.accuracy)} | ${SAMPLE_ROLES.map((r) => (m.perRole[r].n ? `${pct(m.perRole[r].accuracy)} (${m.perRole[r].n})` : '—')).join(' | ')} | ${m.ece.toFixed(3)} |`,
    );
  return out;
}
