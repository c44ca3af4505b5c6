import { describe, expect, it } from 'vitest';
import { planDrumItems, planKitItems } from './gm-plan.js';

describe('planKitItems (recorded kits: avldrums)', () => {
  const items = planKitItems(5, 'black-pearl');

  it('labels kit pieces by the GM drum map, keys prefixed with the kit', () => {
    const kick = items.find((i) => /^black-pearl\/drum_36_v/.test(i.key));
    const ride = items.find((i) => /^black-pearl\/drum_51_v/.test(i.key));
    expect(kick?.role).toBe('percs');
    expect(ride?.role).toBe('tops');
    expect(ride?.rule).toContain('(black-pearl kit)');
    expect(items).toHaveLength(planDrumItems(5).length);
  });

  it('leaves out hits of notes a drum kit has no instrument for, and hand or top loops that use them', () => {
    for (const note of [39, 52, 54, 56, 60, 61]) {
      const hits = items.filter((i) => i.key.startsWith(`black-pearl/drum_${note}_v`));
      expect(hits.length, `note ${note}`).toBeGreaterThan(0);
      for (const h of hits) {
        expect(h.role, h.key).toBeNull();
        expect(h.rule).toMatch(/^left out: note \d+/);
      }
    }
    const hand = items.filter((i) => i.key.includes('/loop_hand_'));
    expect(hand.some((i) => i.role === null)).toBe(true);
  });

  it('keeps drum loops with a kick and snare as percs even when a clap note is in them', () => {
    const loops = items.filter((i) => i.key.includes('/loop_drums_'));
    expect(loops.length).toBeGreaterThan(0);
    for (const l of loops) expect(l.role).toBe('percs');
  });
});
