import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import {
  createBadge,
  deleteBadge,
  listBadges,
  renderBadge,
  updateBadge,
  type Badge,
  type BadgeInput,
  type BadgeOwner,
} from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { EmptyState, Panel } from '../ui/panel';
import { Busy } from '../ui/status';
import { ConfirmDialog, useConfirmedMutation } from './confirm-dialog';
import { fieldErrorsOf } from './field-errors';
import { Field, focusFirstInvalid, hostingKeys, InlineProblem, SubmitButton } from './widgets';

// Badge lists, forms and previews for both owners of badges: groups and projects.
const placeholders = [
  '%{project_path}',
  '%{project_id}',
  '%{default_branch}',
  '%{commit_sha}',
  '%{project_name}',
  '%{group_name}',
  '%{gitlab_server}',
];
/** What a change to `owner`'s badges makes stale: a group's badges also show in its projects' lists. */
const staleAfterChange = (owner: BadgeOwner) => (owner.kind === 'group' ? hostingKeys.allBadges : hostingKeys.badges(owner.kind, owner.id));

const isHttp = (url: string) => /^https?:\/\/\S+$/i.test(url.trim());

/**
 * A badge as it shows in a README: the rendered image, linked to the rendered link. Both URLs are the
 * user's: the image is an <img> (never markup put into the page) and is fetched without a Referer, so
 * the image host does not learn which project page showed it.
 */
export function BadgeImage({ name, link, image }: { readonly name: string | null; readonly link: string; readonly image: string }) {
  const [broken, setBroken] = useState(false);
  return (
    <a href={link} target="_blank" rel="noreferrer noopener" referrerPolicy="no-referrer" className="prj-badge-link">
      {broken ? (
        <span className="prj-badge-broken">Image did not load</span>
      ) : (
        <img
          src={image}
          alt={name || 'Badge'}
          className="prj-badge-img"
          referrerPolicy="no-referrer"
          loading="lazy"
          onError={() => setBroken(true)}
        />
      )}
    </a>
  );
}

function BadgePreview({
  owner,
  name,
  link,
  image,
}: {
  readonly owner: BadgeOwner;
  readonly name: string;
  readonly link: string;
  readonly image: string;
}) {
  const { token } = useSignedIn();
  const [asked, setAsked] = useState({ link, image });
  // Ask the server to render once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setAsked({ link, image }), 350);
    return () => clearTimeout(timer);
  }, [link, image]);
  const ready = isHttp(asked.link) && isHttp(asked.image);
  const render = useQuery({
    queryKey: [...hostingKeys.badges(owner.kind, owner.id), 'render', asked.link, asked.image],
    queryFn: ({ signal }) => renderBadge(token, owner, { link_url: asked.link.trim(), image_url: asked.image.trim() }, signal),
    enabled: ready,
  });
  return (
    <section className="prj-preview" aria-label="Badge preview" aria-live="polite">
      <p className="prj-subtitle">Preview</p>
      {!ready ? (
        <p className="prj-help">
          Enter both URLs (http or https) to see the badge as {owner.kind === 'group' ? "the group's projects" : 'the project'} will show
          it.
        </p>
      ) : null}
      {ready && render.isPending ? <Busy>Rendering…</Busy> : null}
      {ready && render.isError ? <InlineProblem>{render.error.message}</InlineProblem> : null}
      {ready && render.data ? (
        <>
          <BadgeImage
            key={render.data.rendered_image_url}
            name={render.data.name ?? (name.trim() || null)}
            link={render.data.rendered_link_url}
            image={render.data.rendered_image_url}
          />
          <dl className="prj-rendered">
            <dt>Rendered link</dt>
            <dd className="mono">{render.data.rendered_link_url}</dd>
            <dt>Rendered image</dt>
            <dd className="mono">{render.data.rendered_image_url}</dd>
          </dl>
        </>
      ) : null}
    </section>
  );
}

function BadgeForm({
  owner,
  editing,
  onDone,
}: {
  readonly owner: BadgeOwner;
  readonly editing: Badge | null;
  readonly onDone: () => void;
}) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<BadgeInput>(() => ({
    name: editing?.name ?? '',
    link_url: editing?.link_url ?? '',
    image_url: editing?.image_url ?? '',
  }));
  const [checked, setChecked] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: (input: BadgeInput) => (editing ? updateBadge(token, owner, editing.id, input) : createBadge(token, owner, input)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: staleAfterChange(owner) });
      if (!editing) setForm({ name: '', link_url: '', image_url: '' });
      onDone();
    },
  });
  const errors = fieldErrorsOf(save.error, ['name', 'link_url', 'image_url']);
  const errorOf = (field: string) => checked[field] ?? errors.fields[field] ?? null;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (save.isPending) return;
    const found: Record<string, string> = {};
    if (!isHttp(form.link_url)) found.link_url = 'Enter an http:// or https:// link.';
    if (!isHttp(form.image_url)) found.image_url = 'Enter an http:// or https:// image URL.';
    setChecked(found);
    if (Object.keys(found).length > 0) {
      focusFirstInvalid(event.currentTarget, true);
      return;
    }
    save.mutate({ name: form.name?.trim() || undefined, link_url: form.link_url.trim(), image_url: form.image_url.trim() });
  };
  return (
    <form className="prj-form" onSubmit={submit} noValidate>
      <Field label="Name (optional)" error={errorOf('name')}>
        {(props) => (
          <input
            {...props}
            className="input"
            value={form.name ?? ''}
            onChange={(e) => setForm({ ...form, name: e.currentTarget.value })}
            autoComplete="off"
          />
        )}
      </Field>
      <Field label="Link URL" error={errorOf('link_url')} help="Where the badge leads.">
        {(props) => (
          <input
            {...props}
            className="input mono"
            type="url"
            value={form.link_url}
            placeholder="https://ci.example.com/%{project_path}"
            onChange={(e) => setForm({ ...form, link_url: e.currentTarget.value })}
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <Field label="Image URL" error={errorOf('image_url')} help="The badge picture (SVG or PNG).">
        {(props) => (
          <input
            {...props}
            className="input mono"
            type="url"
            value={form.image_url}
            placeholder="https://ci.example.com/%{project_path}/badge.svg"
            onChange={(e) => setForm({ ...form, image_url: e.currentTarget.value })}
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <p className="prj-help">
        Placeholders, filled from {owner.kind === 'group' ? "the group's first project" : 'this project'}:{' '}
        <span className="prj-codes">
          {placeholders.map((p) => (
            <code key={p}>{p}</code>
          ))}
        </span>
      </p>
      <BadgePreview owner={owner} name={form.name ?? ''} link={form.link_url} image={form.image_url} />
      <InlineProblem>{errors.general}</InlineProblem>
      <div className="actions">
        <SubmitButton pending={save.isPending} busyLabel="Saving…">
          {editing ? 'Save badge' : 'Add badge'}
        </SubmitButton>
        {editing ? (
          <button type="button" className="button button-secondary" onClick={onDone}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

/**
 * A group's or a project's badges: the list (a project's own badges, and those it inherits from its
 * groups, which are changed on the group), and the form to add or edit one.
 */
export function BadgeManager({ owner, title }: { readonly owner: BadgeOwner; readonly title: string }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const key = hostingKeys.badges(owner.kind, owner.id);
  const badges = useQuery({ queryKey: key, queryFn: ({ signal }) => listBadges(token, owner, signal) });
  const [editing, setEditing] = useState<Badge | null>(null);
  const remove = useConfirmedMutation({
    mutationFn: (badge: Badge) => deleteBadge(token, owner, badge.id),
    onSuccess: async (_data, badge) => {
      if (editing?.id === badge.id) setEditing(null);
      await queryClient.invalidateQueries({ queryKey: staleAfterChange(owner) });
    },
  });
  const where = owner.kind === 'group' ? 'every project of the group' : 'the project';
  return (
    <div className="prj-two">
      <Panel title={title}>
        {badges.isPending ? <Busy>Loading badges…</Busy> : null}
        {badges.isError ? <InlineProblem>{badges.error.message}</InlineProblem> : null}
        {badges.data && badges.data.length === 0 ? (
          <EmptyState title="No badges yet.">
            <p>Add a badge to show a status picture (build, release, licence) on {where}.</p>
          </EmptyState>
        ) : null}
        {badges.data && badges.data.length > 0 ? (
          <ul className="prj-badges" aria-label={owner.kind === 'group' ? 'Group badges' : 'Project badges'}>
            {badges.data.map((badge) => (
              <li key={badge.id} className="prj-badge">
                <BadgeImage name={badge.name} link={badge.rendered_link_url} image={badge.rendered_image_url} />
                <div className="prj-badge-text">
                  <p className="prj-subtitle">
                    {badge.name || `Badge #${badge.id}`}
                    {badge.kind !== owner.kind ? <span className="prj-tag prj-badge-kind">From a group</span> : null}
                  </p>
                  <p className="mono small muted prj-break">{badge.link_url}</p>
                  <p className="mono small muted prj-break">{badge.image_url}</p>
                </div>
                {badge.kind === owner.kind ? (
                  <div className="prj-row">
                    <button type="button" className="button button-secondary prj-small-button" onClick={() => setEditing(badge)}>
                      Edit<span className="visually-hidden"> {badge.name || `badge ${badge.id}`}</span>
                    </button>
                    <button type="button" className="button button-ghost prj-small-button" onClick={() => remove.ask(badge)}>
                      Delete<span className="visually-hidden"> {badge.name || `badge ${badge.id}`}</span>
                    </button>
                  </div>
                ) : (
                  <p className="prj-help prj-badge-note">Changed on the group</p>
                )}
              </li>
            ))}
          </ul>
        ) : null}
      </Panel>
      <Panel title={editing ? `Edit badge ${editing.name || `#${editing.id}`}` : 'Add a badge'}>
        <BadgeForm
          key={`${owner.kind}-${owner.id}-${editing?.id ?? 'new'}`}
          owner={owner}
          editing={editing}
          onDone={() => setEditing(null)}
        />
      </Panel>
      <ConfirmDialog {...remove.dialog} title="Delete this badge?" confirmLabel="Delete badge">
        <p>
          The badge <strong>{remove.target?.name || `#${remove.target?.id}`}</strong> disappears from {where}.
        </p>
      </ConfirmDialog>
    </div>
  );
}
