/**
 * Labels of sonic-pi-samples from the sample names: a prefix rule per family, a per-file label where the
 * prefix does not decide (elec_*, glitch_*, loop_*, misc_*, perc_*, vinyl_*), and files left out with
 * the reason. Never from our analysis.
 */
import type { SampleRole } from '../../server/audio/engines/sample-role.js';

export interface NameLabel {
  readonly role: SampleRole | null;
  readonly rule: string;
}

const PREFIXES: readonly (readonly [string, SampleRole, string])[] = [
  ['ambi_', 'atmos', 'ambi_* (ambience)'],
  ['bass_', 'bass', 'bass_*'],
  ['bd_', 'percs', 'bd_* (bass drum)'],
  ['drum_cymbal_', 'tops', 'drum_cymbal_*'],
  ['drum_splash_', 'tops', 'drum_splash_* (cymbal)'],
  ['drum_', 'percs', 'drum_* (kick, snare, tom, cowbell, roll)'],
  ['guit_', 'melodic', 'guit_* (guitar)'],
  ['sn_', 'percs', 'sn_* (snare)'],
  ['tabla_', 'percs', 'tabla_* (hand percussion)'],
];

const FILES: Record<string, NameLabel> = {
  ambi_piano: { role: null, rule: 'left out: a piano phrase in an ambience, melodic or atmos' },
  elec_snare: { role: 'percs', rule: 'name: snare' },
  elec_filt_snare: { role: 'percs', rule: 'name: snare' },
  elec_hi_snare: { role: 'percs', rule: 'name: snare' },
  elec_lo_snare: { role: 'percs', rule: 'name: snare' },
  elec_mid_snare: { role: 'percs', rule: 'name: snare' },
  elec_soft_kick: { role: 'percs', rule: 'name: kick' },
  elec_hollow_kick: { role: 'percs', rule: 'name: kick' },
  elec_fuzz_tom: { role: 'percs', rule: 'name: tom' },
  elec_wood: { role: 'percs', rule: 'name: wood (block)' },
  elec_cymbal: { role: 'tops', rule: 'name: cymbal' },
  elec_bell: { role: 'melodic', rule: 'name: bell (pitched)' },
  elec_chime: { role: 'melodic', rule: 'name: chime (pitched)' },
  glitch_bass_g: { role: 'bass', rule: 'name: bass (in G)' },
  glitch_perc1: { role: 'percs', rule: 'name: perc' },
  glitch_perc2: { role: 'percs', rule: 'name: perc' },
  glitch_perc3: { role: 'percs', rule: 'name: perc' },
  glitch_perc4: { role: 'percs', rule: 'name: perc' },
  glitch_perc5: { role: 'percs', rule: 'name: perc' },
  loop_amen: { role: 'percs', rule: 'name: amen break (drum loop)' },
  loop_amen_full: { role: 'percs', rule: 'name: amen break (drum loop)' },
  loop_breakbeat: { role: 'percs', rule: 'name: breakbeat (drum loop)' },
  loop_industrial: { role: 'percs', rule: 'name: industrial (drum loop)' },
  loop_perc1: { role: 'percs', rule: 'name: perc loop' },
  loop_perc2: { role: 'percs', rule: 'name: perc loop' },
  loop_safari: { role: 'percs', rule: 'name: safari (percussion loop)' },
  loop_tabla: { role: 'percs', rule: 'name: tabla loop' },
  loop_drone_g_97: { role: 'atmos', rule: 'name: drone' },
  misc_crow: { role: 'atmos', rule: 'name: crow (field recording)' },
  perc_snap: { role: 'percs', rule: 'name: snap' },
  perc_snap2: { role: 'percs', rule: 'name: snap' },
  perc_swash: { role: 'tops', rule: 'name: swash (cymbal)' },
  perc_swoosh: { role: 'atmos', rule: 'name: swoosh (FX)' },
  vinyl_hiss: { role: 'atmos', rule: 'name: hiss (noise bed)' },
  vinyl_backspin: { role: 'atmos', rule: 'name: backspin (FX)' },
  vinyl_rewind: { role: 'atmos', rule: 'name: rewind (FX)' },
  vinyl_scratch: { role: 'atmos', rule: 'name: scratch (FX)' },
};

/** The label of one sample (file name without extension), or null with the reason it is left out. */
export function labelSonicPiSample(stem: string): NameLabel {
  const own = FILES[stem];
  if (own) return own;
  for (const [prefix, role, rule] of PREFIXES) if (stem.startsWith(prefix)) return { role, rule: `prefix ${rule}` };
  return { role: null, rule: 'left out: the name does not give a role (electronic blip, robot, phone, foley or unnamed loop)' };
}
