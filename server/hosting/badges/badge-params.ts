import { Params } from '../params.js';
import type { BadgeInput } from './badges.js';

/** The `:badge_id` path parameter of a group or project badge route (400 when it is not a whole number). */
export function badgeIdOf(raw: string | undefined): number {
  const p = new Params({ badge_id: raw });
  const [id] = p.checked(p.int('badge_id'));
  return id;
}

/** A badge's fields as a create or edit names them (the service checks which are required). */
export function badgeInputOf(p: Params): BadgeInput {
  return {
    name: p.has('name') ? (p.string('name') ?? null) : undefined,
    linkUrl: p.string('link_url'),
    imageUrl: p.string('image_url'),
  };
}
