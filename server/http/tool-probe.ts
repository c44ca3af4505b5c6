import { execFile } from 'node:child_process';

/** Run `<path> <versionArg>` and return the first line of its output, or null when it cannot run. */
export function probeTool(path: string, versionArg: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(path, [versionArg], { timeout: 10_000, windowsHide: true }, (error, stdout) => {
      if (error) resolve(null);
      else resolve(stdout.split('\n')[0]?.trim() ?? '');
    });
  });
}

/** What a tool check found. */
export interface ToolInfo {
  readonly path: string;
  readonly version: string;
}
