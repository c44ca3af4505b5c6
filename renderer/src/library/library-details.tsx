// The selected item: its facts, the edits a producer makes (tempo ½×/2×, rating, favourite, tags,
// collections), the hand-off buttons and "more like this".
import { useId, useState } from 'react';
import { messageOf } from '../api/error-message';
import {
  addToCollection,
  createCollection,
  findSimilarItems,
  removeFromCollection,
  updateLibraryItem,
  type LibraryCollectionResponse,
  type LibraryItemPatch,
  type LibraryItemResponse,
} from '../api/library';
import { Problem } from '../ui/status';
import { multiplierLabel, tempoChoices } from './library-model';
import { CamelotBadge, Stars, Thumbnail } from './library-row';

export interface DetailsProps {
  readonly token: string;
  readonly item: LibraryItemResponse;
  readonly playingId: number | null;
  readonly collections: readonly LibraryCollectionResponse[];
  readonly onChanged: (item: LibraryItemResponse) => void;
  readonly onCollectionsChanged: () => void;
  readonly onPlay: (item: LibraryItemResponse) => void;
  readonly onOpen: (item: LibraryItemResponse) => void;
  readonly onDownload: (item: LibraryItemResponse) => void;
}

/** Tags as typed ("dusty, kick,  808") → ["dusty", "kick", "808"], each once. */
export function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((tag) => tag.trim())
        .filter((tag) => tag !== ''),
    ),
  ];
}

/** The side panel (a sheet under the list on narrow screens) for one item. */
export function LibraryDetails({
  token,
  item,
  playingId,
  collections,
  onChanged,
  onCollectionsChanged,
  onPlay,
  onOpen,
  onDownload,
}: DetailsProps) {
  const ids = { tags: useId(), collection: useId() };
  const [tags, setTags] = useState(item.tags.join(', '));
  const [problem, setProblem] = useState<string | null>(null);
  const [similar, setSimilar] = useState<{
    readonly for: number;
    readonly items: readonly { item: LibraryItemResponse; distance: number }[];
  } | null>(null);
  const [similarBusy, setSimilarBusy] = useState(false);
  const [newCollection, setNewCollection] = useState('');
  // Saved tags replace what was typed (the screen gives each item its own panel, by key).
  const [tagsOf, setTagsOf] = useState(item.tags);
  if (tagsOf !== item.tags) {
    setTagsOf(item.tags);
    setTags(item.tags.join(', '));
  }

  const patch = (change: LibraryItemPatch) => {
    setProblem(null);
    updateLibraryItem(token, item.id, change).then(onChanged, (error: unknown) =>
      setProblem(messageOf(error, 'The change was not saved.')),
    );
  };
  const saveTags = () => {
    const next = parseTags(tags);
    if (next.join('\n') !== item.tags.join('\n')) patch({ tags: next });
  };
  const toggleCollection = (collection: LibraryCollectionResponse, member: boolean) => {
    const done = member ? removeFromCollection(token, collection.id, item.id) : addToCollection(token, collection.id, [item.id]);
    done.then(
      () => {
        onChanged({
          ...item,
          collection_ids: member ? item.collection_ids.filter((id) => id !== collection.id) : [...item.collection_ids, collection.id],
        });
        onCollectionsChanged();
      },
      (error: unknown) => setProblem(messageOf(error, 'The collection was not changed.')),
    );
  };
  const addCollection = () => {
    const name = newCollection.trim();
    if (name === '') return;
    createCollection(token, name)
      .then((collection) => addToCollection(token, collection.id, [item.id]).then(() => collection))
      .then(
        (collection) => {
          setNewCollection('');
          onChanged({ ...item, collection_ids: [...item.collection_ids, collection.id] });
          onCollectionsChanged();
        },
        (error: unknown) => setProblem(messageOf(error, 'The collection was not created.')),
      );
  };
  const showSimilar = () => {
    setSimilarBusy(true);
    findSimilarItems(token, item.id, 10)
      .then(
        (answer) => setSimilar({ for: item.id, items: answer.items }),
        (error: unknown) => setProblem(messageOf(error, 'Similar sounds could not be found.')),
      )
      .finally(() => setSimilarBusy(false));
  };

  return (
    <aside className="lib-details" aria-label={`Details of ${item.name}`}>
      <h2 className="lib-details-title">{item.name}</h2>
      {item.suggested_name ? <p className="lib-details-suggested mono">{item.suggested_name}</p> : null}
      <Thumbnail peaks={item.thumbnail} bars={64} />
      <dl className="lib-facts">
        <dt>Role</dt>
        <dd>
          {item.role ?? '–'}
          {item.role_confidence !== null ? <span className="muted"> ({Math.round(item.role_confidence * 100)} %)</span> : null}
        </dd>
        <dt>Key</dt>
        <dd>
          <CamelotBadge camelot={item.camelot} keyName={item.key} /> {item.key ?? ''}
        </dd>
        <dt>Loudness</dt>
        <dd>
          {item.loudness_lufs === null ? '–' : `${item.loudness_lufs.toFixed(1)} LUFS`}
          {item.true_peak_dbtp === null ? '' : `, peak ${item.true_peak_dbtp.toFixed(1)} dBTP`}
        </dd>
        <dt>Length</dt>
        <dd>{item.duration_s === null ? '–' : `${item.duration_s.toFixed(2)} s`}</dd>
        <dt>Tier</dt>
        <dd>{item.grade_tier ?? '–'}</dd>
        {item.path ? (
          <>
            <dt>On disk</dt>
            <dd className="mono lib-path">{item.path}</dd>
          </>
        ) : null}
      </dl>

      <div className="lib-tempo" role="group" aria-label="Tempo">
        <span className="label">Tempo</span>
        <div className="lib-segments">
          {tempoChoices(item.tempo_bpm).map((choice) => (
            <button
              key={choice.multiplier}
              type="button"
              className={choice.multiplier === item.tempo_multiplier ? 'lib-segment lib-segment-on' : 'lib-segment'}
              aria-pressed={choice.multiplier === item.tempo_multiplier}
              disabled={choice.bpm === null}
              onClick={() => patch({ tempo_multiplier: choice.multiplier })}
            >
              {multiplierLabel(choice.multiplier)} <span className="mono">{choice.bpm ?? '–'}</span>
            </button>
          ))}
        </div>
      </div>

      <div className="lib-edit-row">
        <Stars rating={item.rating} onRate={(rating) => patch({ rating })} />
        <button
          type="button"
          className={item.favourite ? 'lib-fav lib-fav-on' : 'lib-fav'}
          aria-pressed={item.favourite}
          onClick={() => patch({ favourite: !item.favourite })}
        >
          <span aria-hidden="true">{item.favourite ? '♥' : '♡'}</span> Favourite
        </button>
      </div>

      <label className="label" htmlFor={ids.tags}>
        Tags <span className="muted">(comma between tags)</span>
      </label>
      <input
        id={ids.tags}
        className="input lib-tags-input"
        value={tags}
        onChange={(event) => setTags(event.target.value)}
        onBlur={saveTags}
        onKeyDown={(event) => {
          event.stopPropagation();
          if (event.key === 'Enter') saveTags();
        }}
      />

      <fieldset className="lib-collections">
        <legend className="label">Collections</legend>
        {collections.map((collection) => {
          const member = item.collection_ids.includes(collection.id);
          return (
            <label key={collection.id} className="lib-check">
              <input type="checkbox" checked={member} onChange={() => toggleCollection(collection, member)} />
              {collection.name}
            </label>
          );
        })}
        <div className="lib-new-collection">
          <label className="visually-hidden" htmlFor={ids.collection}>
            New collection
          </label>
          <input
            id={ids.collection}
            className="input"
            placeholder="New collection"
            value={newCollection}
            onChange={(event) => setNewCollection(event.target.value)}
            onKeyDown={(event) => {
              event.stopPropagation();
              if (event.key === 'Enter') addCollection();
            }}
          />
          <button type="button" className="button button-secondary" onClick={addCollection} disabled={newCollection.trim() === ''}>
            Add
          </button>
        </div>
      </fieldset>

      {problem ? <Problem>{problem}</Problem> : null}

      <div className="lib-actions">
        <button type="button" className="button button-primary" onClick={() => onPlay(item)}>
          {playingId === item.id ? 'Stop' : 'Play'}
        </button>
        <button type="button" className="button button-secondary" onClick={() => onOpen(item)}>
          Open in Analyse
        </button>
        <button type="button" className="button button-secondary" onClick={() => onDownload(item)}>
          Download
        </button>
        <button type="button" className="button button-secondary" onClick={showSimilar} disabled={similarBusy || item.status !== 'ready'}>
          Similar
        </button>
      </div>

      {similar && similar.for === item.id ? (
        <section className="lib-similar" aria-label={`Similar to ${item.name}`}>
          <h3 className="lib-similar-title">More like this</h3>
          {similar.items.length === 0 ? <p className="muted">Nothing similar in your library yet.</p> : null}
          <ol className="lib-similar-list">
            {similar.items.map(({ item: other, distance }) => (
              <li key={other.id} className="lib-similar-item">
                <button
                  type="button"
                  className="lib-play"
                  aria-label={playingId === other.id ? `Stop ${other.name}` : `Play ${other.name}`}
                  onClick={() => onPlay(other)}
                >
                  <span aria-hidden="true">{playingId === other.id ? '■' : '▶'}</span>
                </button>
                <span className="lib-similar-name">{other.name}</span>
                <span className="muted">{other.role ?? ''}</span>
                <CamelotBadge camelot={other.camelot} keyName={other.key} />
                <span className="mono muted" title="Distance in the similarity space: smaller is closer">
                  {distance.toFixed(2)}
                </span>
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </aside>
  );
}
