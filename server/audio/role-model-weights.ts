/** Placeholder weights (replaced by npm run fit:roles). */
import type { RoleModelWeights } from './role-model.js';

export const ROLE_MODEL_WEIGHTS: RoleModelWeights = {
  features: [],
  mean: [],
  scale: [],
  roles: ['percs', 'bass', 'melodic', 'tops', 'atmos'],
  weights: [[], [], [], [], []],
  bias: [0, 0, 0, 0, 0],
  temperature: 1,
  fitted: {},
};
