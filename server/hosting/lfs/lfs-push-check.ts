/**
 * GitLab's LFS integrity check on pushes (`Gitlab::Checks::LfsIntegrity`): a push to a project with
 * `lfs_enabled` whose new commits add LFS pointer files naming objects the project does not link is
 * refused as a whole, before any ref moves, so a clone never meets a pointer the server cannot
 * serve. git runs the check as a pre-receive hook (the pushed objects still in quarantine): the
 * server hands `git http-backend` a hooks folder through `core.hooksPath` and the project's linked
 * oids in a file named by `CRATEHOUSE_LFS_LINKED`. The hook lists only the new blobs under 200 bytes
 * (`rev-list --filter=blob:limit=200 <new> --not --all`), reads them in one `cat-file --batch` and
 * keeps those that are pointers, so a push of large files costs one object walk, not their bytes.
 * A shell pre-filter in the hook makes that walk itself and starts node only when a new blob is
 * under 200 bytes (a pointer is about 130), handing it those blobs, so a push without one starts no
 * node at all and the walk is made once (by the shell, which also reports its failure).
 */
import { randomBytes } from 'node:crypto';
import { access, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectRecord } from '../../store/schema.js';
import type { LfsService } from './lfs.js';

/** GitLab's words (gitlab-shell prints them after `remote:`). */
export const lfsMissingMessage = 'GitLab: LFS objects are missing. Ensure LFS is properly set up or try a manual "git lfs push --all".';

/** The refusal when the check itself fails (the reason follows in parentheses). */
const uncheckedMessage = 'GitLab: could not check the pushed LFS pointers';

/** What one push adds to the environment of `git http-backend`; `release()` once the push is answered. */
export interface LfsPushGate {
  /** git configuration for the push (`core.hooksPath`). */
  readonly config: Readonly<Record<string, string>>;
  readonly env: Readonly<Record<string, string>>;
  release(): Promise<void>;
}

/**
 * The hook, run by git with the node that runs the server (Electron's binary acts as node with
 * ELECTRON_RUN_AS_NODE). Its pointer rule is parseLfsPointer's (lfs-pointer.ts): the spec's version
 * line, optional `ext-` lines, `oid sha256:<64 hex>`, `size <digits>`, each line ending in a newline.
 */
const hookProgram = String.raw`// Written by the Cratehouse server (server/hosting/lfs/lfs-push-check.ts); rewritten at each start.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const message = ${JSON.stringify(lfsMissingMessage)};
const unchecked = ${JSON.stringify(uncheckedMessage)};
const pointer = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\n(?:ext-\d+-\w+ sha256:[0-9a-f]{64}\n)*oid sha256:([0-9a-f]{64})\nsize \d{1,15}\n$/;

function git(args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error('git ' + args[0] + ' failed'))));
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

async function check() {
  const linkedFile = process.env.CRATEHOUSE_LFS_LINKED;
  if (!linkedFile) return true;
  // The new blobs under 200 bytes, one oid a line: the shell pre-filter listed them.
  const blobs = readFileSync(0, 'utf8').split('\n').filter((oid) => oid);
  if (blobs.length === 0) return true;
  const out = await git(['cat-file', '--batch'], blobs.join('\n') + '\n');
  const named = new Set();
  for (let at = 0; at < out.length; ) {
    const end = out.indexOf(10, at);
    const size = Number(out.subarray(at, end).toString('latin1').split(' ')[2]);
    const oid = pointer.exec(out.subarray(end + 1, end + 1 + size).toString('latin1'))?.[1];
    if (oid) named.add(oid);
    at = end + 1 + size + 1;
  }
  if (named.size === 0) return true;
  const linked = new Set(readFileSync(linkedFile, 'utf8').split('\n'));
  return [...named].every((oid) => linked.has(oid));
}

check().then(
  (ok) => {
    if (!ok) process.stderr.write(message + '\n');
    process.exit(ok ? 0 : 1);
  },
  (error) => {
    process.stderr.write(unchecked + ' (' + error.message + ').\n');
    process.exit(1);
  },
);
`;

/**
 * The hook git runs: a shell pre-filter that answers 0 without starting node (about a second under
 * load) when the push adds no blob under 200 bytes, so no pointer file, which is most pushes (code,
 * large audio). Only then does node read the blobs, whose oids it is given. A listing that fails
 * refuses the push with the reason.
 */
function hookScript(nodePath: string, program: string): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh
# Written by the Cratehouse server (server/hosting/lfs/lfs-push-check.ts); rewritten at each start.
[ -n "$CRATEHOUSE_LFS_LINKED" ] || exit 0
revs=$(while read -r _old new _ref; do
  case $new in ''|*[!0]*) [ -n "$new" ] && printf '%s\\n' "$new" ;; esac
done)
[ -n "$revs" ] || exit 0
# shellcheck disable=SC2086 # one argument per new tip (hex names, no spaces)
if ! listed=$(git rev-list --objects --no-object-names --filter=blob:limit=200 $revs --not --all); then
  echo ${quote(`${uncheckedMessage} (git rev-list failed).`)} >&2
  exit 1
fi
[ -n "$listed" ] || exit 0
if ! types=$(printf '%s\\n' "$listed" | git cat-file --batch-check='%(objectname) %(objecttype)'); then
  echo ${quote(`${uncheckedMessage} (git cat-file failed).`)} >&2
  exit 1
fi
blobs=$(printf '%s\\n' "$types" | sed -n 's/ blob$//p')
[ -n "$blobs" ] || exit 0
printf '%s\\n' "$blobs" | ELECTRON_RUN_AS_NODE=1 exec ${quote(nodePath)} ${quote(program)}
`;
}

/** The LFS integrity check of one data dir's pushes. */
export class LfsPushCheck {
  private readonly hooksDir: string;
  private readonly tmpDir: string;
  private installed: Promise<void> | undefined;

  constructor(
    private readonly lfs: LfsService,
    dataDir: string,
    private readonly nodePath: string = process.execPath,
  ) {
    this.tmpDir = path.join(dataDir, 'tmp');
    // Not under tmp/: tmp/ holds only what a request or job is using, and is emptied at boot.
    this.hooksDir = path.join(dataDir, 'git-hooks');
  }

  /** What the push of `project` needs (nothing for projects without LFS). */
  async gate(project: Readonly<ProjectRecord>): Promise<LfsPushGate | undefined> {
    if (!project.settings.lfs_enabled) return undefined;
    await this.install();
    const file = path.join(this.tmpDir, `lfs-linked-${randomBytes(12).toString('hex')}`);
    await writeFile(file, this.lfs.linkedOids(project.id).join('\n') + '\n', { mode: 0o600 });
    return {
      config: { 'core.hooksPath': this.hooksDir },
      env: { CRATEHOUSE_LFS_LINKED: file },
      release: () => rm(file, { force: true }),
    };
  }

  /** Write the hook once per process (again if it was removed meanwhile), each file renamed into place whole. */
  private async install(): Promise<void> {
    const hook = path.join(this.hooksDir, 'pre-receive');
    if (
      this.installed &&
      (await access(hook).then(
        () => true,
        () => false,
      ))
    )
      return this.installed;
    this.installed = (async () => {
      await mkdir(this.hooksDir, { recursive: true });
      const program = path.join(this.hooksDir, 'lfs-integrity.mjs');
      const place = async (file: string, text: string, mode: number) => {
        const temp = `${file}.${randomBytes(6).toString('hex')}`;
        await writeFile(temp, text, { mode });
        await rename(temp, file);
      };
      await place(program, hookProgram, 0o644);
      await place(hook, hookScript(this.nodePath, program), 0o755);
    })();
    return this.installed;
  }
}
