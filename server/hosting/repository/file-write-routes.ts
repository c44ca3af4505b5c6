import type { Request, Router } from 'express';
import type { Params } from '../params.js';
import { paramsOf, viewerOf } from '../request.js';
import { contentOf, projectContext, type HistoryRouteDeps } from './shared-routes.js';
import type { ActionInput, CommitInput } from './repository-writer.js';

/**
 * Mount POST, PUT and DELETE /projects/:id/repository/files/:file_path: each one commit of one
 * action through the same writer as POST /repository/commits (GitLab's Files::*Service answers).
 */
export function mountFileWriteRoutes(router: Router, deps: HistoryRouteDeps): void {
  const { writer } = deps;
  const filePathOf = (req: Request) => String(req.params.file_path);
  const commitOf = (p: Params, action: ActionInput, changed: string): CommitInput => {
    const [branch, message] = p.checked(p.string('branch'), p.string('commit_message'));
    return {
      branch,
      message,
      actions: [action],
      startBranch: p.string('start_branch') || undefined,
      authorName: p.string('author_name') || undefined,
      authorEmail: p.string('author_email') || undefined,
      changedMessage: () => changed,
    };
  };
  const encodingOf = (p: Params) => p.oneOf('encoding', ['text', 'base64'] as const);
  const executableOf = (p: Params) => p.bool('execute_filemode');

  router.post('/projects/:id/repository/files/:file_path', async (req, res) => {
    const { project } = projectContext(deps, req, res);
    const p = paramsOf(req).require('branch', 'commit_message', 'content');
    const filePath = filePathOf(req);
    const action: ActionInput = {
      action: 'create',
      filePath,
      content: contentOf(p.string('content'), encodingOf(p)),
      executable: executableOf(p),
    };
    const input = commitOf(p, action, '');
    await writer.commit(viewerOf(deps.projects, res), project, input);
    res.status(201).json({ file_path: filePath, branch: input.branch });
  });

  router.put('/projects/:id/repository/files/:file_path', async (req, res) => {
    const { project } = projectContext(deps, req, res);
    const p = paramsOf(req).require('branch', 'commit_message', 'content');
    const filePath = filePathOf(req);
    const action: ActionInput = {
      action: 'update',
      filePath,
      content: contentOf(p.string('content'), encodingOf(p)),
      executable: executableOf(p),
      lastCommitId: p.string('last_commit_id') || undefined,
    };
    const input = commitOf(p, action, 'You are attempting to update a file that has changed since you started editing it.');
    await writer.commit(viewerOf(deps.projects, res), project, input);
    res.json({ file_path: filePath, branch: input.branch });
  });

  router.delete('/projects/:id/repository/files/:file_path', async (req, res) => {
    const { project } = projectContext(deps, req, res);
    const p = paramsOf(req).require('branch', 'commit_message');
    const action: ActionInput = { action: 'delete', filePath: filePathOf(req), lastCommitId: p.string('last_commit_id') || undefined };
    await writer.commit(
      viewerOf(deps.projects, res),
      project,
      commitOf(p, action, 'You are attempting to delete a file that has been previously updated.'),
    );
    res.status(204).end();
  });
}
