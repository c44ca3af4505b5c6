/** The freepats labels come from instrument names, and each library plays its own variant of the render plan. */
import { describe, expect, it } from 'vitest';
import { labelFreepatsPatch, planFreepatsItems, readFreepatsConfig } from './freepats.js';
import { planGmItems } from './gm-plan.js';

const CFG = `dir /usr/share/midi/freepats

drumset 0

 36	Drum_000/036_Kick_2.pat amp=100
 38	Drum_000/038_Snare_1.pat
 39	Drum_000/039_Clap_Hand.pat amp=100
 42	Drum_000/042_Hi-Hat_Closed.pat
 51	Drum_000/051_Cymbal_Ride_1.pat
 54	Drum_000/054_Tombourine.pat
 71	Drum_000/071_Whistle_1_High_Short.pat

bank 0

 24	Tone_000/024_Nylon_Guitar.pat
 33	Tone_000/033_Finger_Bass.pat
 70	Tone_000/070_Bassoon.pat
 47	Tone_000/047_Timpani.pat
 95	Tone_000/095_Sweep_Pad.pat
 101	Tone_000/101_Goblins--Unicorn.pat
`;

describe('freepats labels', () => {
  const patches = readFreepatsConfig(CFG);
  const role = (name: string) => labelFreepatsPatch(patches.find((p) => p.name === name)!).role;

  it('reads drum notes and programs with their instrument names', () => {
    expect(patches).toHaveLength(13);
    expect(patches[0]).toEqual({ kind: 'drum', number: 36, file: 'Drum_000/036_Kick_2.pat', name: 'Kick_2' });
    expect(patches.find((p) => p.name === 'Nylon_Guitar')).toMatchObject({ kind: 'tone', number: 24 });
  });

  it('labels by the role table: kicks percs, hats and tambourines tops, basses bass (not bassoons), pads atmos', () => {
    expect([role('Kick_2'), role('Snare_1'), role('Hi-Hat_Closed'), role('Tombourine')]).toEqual(['percs', 'percs', 'tops', 'tops']);
    expect([role('Finger_Bass'), role('Bassoon'), role('Nylon_Guitar')]).toEqual(['bass', 'melodic', 'melodic']);
    expect([role('Sweep_Pad'), role('Goblins--Unicorn')]).toEqual(['atmos', 'atmos']);
    // Ambiguous or outside the table: left out, with the reason.
    expect(role('Timpani')).toBeNull();
    expect(role('Whistle_1_High_Short')).toBeNull();
  });

  it('plans hits for every labelled drum, loops only from drums the set has, nothing for left-out patches', () => {
    const items = planFreepatsItems(patches);
    expect(items.filter((i) => i.key.startsWith('Drum_000/036_Kick_2/hit_'))).toHaveLength(2);
    expect(items.some((i) => i.key.includes('Whistle') && i.role !== null)).toBe(false);
    // The kit here has kick, snare, clap, hat and ride but no congas: drum loops yes, hand loops no.
    expect(items.some((i) => i.key.startsWith('Drum_000/loop_drums_'))).toBe(true);
    expect(items.some((i) => i.key.startsWith('Drum_000/loop_hand_'))).toBe(false);
  });
});

describe('render plan variants', () => {
  const signature = (variant: number) => planGmItems(variant).map((i) => `${i.key}:${JSON.stringify(i.notes)}:${JSON.stringify(i.render)}`);

  it('is the same plan for the same variant, and a different one for another', () => {
    expect(signature(1)).toEqual(signature(1));
    const [a, b, c] = [signature(0), signature(1), signature(2)];
    const shared = (x: string[], y: string[]) => x.filter((s) => y.includes(s)).length / x.length;
    expect(shared(a, b)).toBeLessThan(0.2);
    expect(shared(b, c)).toBeLessThan(0.2);
  });

  it('keeps the labels of the plan: the same roles per program in every variant', () => {
    const roles = (variant: number) => [...new Set(planGmItems(variant).map((i) => `${i.program}:${i.role}`))].sort();
    expect(roles(1)).toEqual(roles(0));
    expect(roles(2)).toEqual(roles(0));
  });

  it('makes some items wet and levels vary in the variants, none in variant 0', () => {
    const wet = (variant: number) => planGmItems(variant).filter((i) => (i.render?.reverb ?? 0) > 0).length;
    expect(wet(0)).toBe(0);
    expect(wet(1)).toBeGreaterThan(50);
    expect(new Set(planGmItems(2).map((i) => i.render?.gainDb)).size).toBeGreaterThan(20);
  });
});
