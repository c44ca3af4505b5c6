/**
 * Labels of hydrogen-drumkits from each kit's drumkit.xml: the instrument name decides percs or tops.
 * At most three velocity layers per instrument (first, middle, last) keep near-identical hits from
 * outweighing the rest. Files used by instruments of both roles, or unnamed, are left out.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { SampleRole } from '../../server/audio/engines/sample-role.js';

const TOPS = /hi[- ]?hat|\bhh\b|hats?\b|\bh\.?h\.?\b|ride|crash|cymbal|splash|china|shaker|maraca|tambourine|cabasa|chh|ohh/i;
const PERCS =
  /kick|bass ?drum|bassdrum|\bbd\b|snare|clap|stick|rim|tom\b|toms?\b|tom ?(low|mid|hi)|conga|bongo|cajon|djembe|sangban|dununba|kenkeni|cowbell|agogo|clave|woodblock|wood block|tabla|snaps?\b|drum \d|timbale/i;
const SKIP = /whistle|zap|\bfx\b|waterglass|^click$|empty/i;

export interface HydrogenFile {
  /** Label key: `<kit>/<file>`. */
  readonly key: string;
  readonly file: string;
  readonly role: SampleRole | null;
  readonly rule: string;
}

/** Role of a drumkit.xml instrument name, or null with a reason. */
export function roleOfInstrument(name: string): { role: SampleRole | null; why: string } {
  const n = name.trim();
  if (!n || /^\d+$/.test(n) || /^sample:/i.test(n)) return { role: null, why: 'left out: instrument has no name' };
  if (SKIP.test(n)) return { role: null, why: `left out: "${n}" is neither drum nor cymbal` };
  // Bells of a ride are cymbals; bells of dunun drums and cowbells are percussion.
  if (TOPS.test(n)) return { role: 'tops', why: `instrument "${n}" (hat/cymbal/shaker)` };
  if (PERCS.test(n)) return { role: 'percs', why: `instrument "${n}" (kick/snare/clap/tom/hand percussion)` };
  return { role: null, why: `left out: "${n}" not a known drum name` };
}

/** The labelled files of every kit under `drumkitsDir`. */
export function labelHydrogenKits(drumkitsDir: string): HydrogenFile[] {
  const out = new Map<string, HydrogenFile>();
  for (const kit of readdirSync(drumkitsDir).sort()) {
    let xml: string;
    try {
      xml = readFileSync(path.join(drumkitsDir, kit, 'drumkit.xml'), 'utf8');
    } catch {
      continue;
    }
    for (const block of xml.split(/<instrument>/).slice(1)) {
      const body = block.split('</instrument>')[0]!;
      const name = decode(/<name>([^<]*)<\/name>/.exec(body)?.[1] ?? '');
      const files = [...body.matchAll(/<filename>([^<]+)<\/filename>/g)].map((m) => decode(m[1]!.trim()));
      const unique = [...new Set(files)];
      const picked = unique.length <= 3 ? unique : [unique[0]!, unique[Math.floor(unique.length / 2)]!, unique[unique.length - 1]!];
      const { role, why } = roleOfInstrument(name);
      for (const f of picked) {
        const key = `${kit}/${f}`;
        const prev = out.get(key);
        if (!existsSync(path.join(drumkitsDir, kit, f))) {
          out.set(key, { key, file: '', role: null, rule: 'left out: file named in drumkit.xml but not in the package' });
          continue;
        }
        if (prev && prev.role !== role)
          out.set(key, {
            key,
            file: path.join(drumkitsDir, kit, f),
            role: null,
            rule: `left out: used by instruments of different roles (${prev.rule}; ${why})`,
          });
        else if (!prev) out.set(key, { key, file: path.join(drumkitsDir, kit, f), role, rule: why });
      }
    }
  }
  return [...out.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

const decode = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
