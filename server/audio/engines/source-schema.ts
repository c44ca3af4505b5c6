import { z } from 'zod';

/** `source` block of every analysis answer. */
export const sourceSchema = z.object({
  duration_s: z.number().describe('Length of the whole file in seconds'),
  sample_rate: z.number(),
  channels: z.number(),
  format: z.string().describe('Container or codec: wav, mp3, flac, vorbis, …'),
});
