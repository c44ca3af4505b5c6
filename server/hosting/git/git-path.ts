import { probeTool } from '../../http/tool-probe.js';

/** Find system git; null when it does not run. */
export async function resolveGit(configured: string): Promise<{ readonly path: string; readonly version: string } | null> {
  const line = await probeTool(configured, '--version');
  return line === null ? null : { path: configured, version: /git version (\S+)/.exec(line)?.[1] ?? line };
}
