// The library's search box, filters and sort. Every change goes to the address (library-model.ts).
import { useEffect, useId, useState } from 'react';
import type { LibraryCollectionResponse, LibraryFilter, LibrarySort, LibrarySortField } from '../api/library';
import { librarySortFields } from '../api/library';
import { camelotOptions, libraryRoles, libraryTiers } from './library-model';

const sortLabels: Readonly<Record<LibrarySortField, string>> = {
  added_at: 'Added',
  name: 'Name',
  bpm: 'Tempo',
  duration_s: 'Length',
  loudness_lufs: 'Loudness',
  rating: 'Rating',
  key: 'Key',
};

function numberOrUndefined(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** A number field that keeps what is typed and reports only numbers (or undefined when empty). */
function NumberField({
  label,
  value,
  onChange,
  step,
}: {
  readonly label: string;
  readonly value: number | undefined;
  readonly onChange: (value: number | undefined) => void;
  readonly step?: string;
}) {
  const id = useId();
  const [text, setText] = useState(value === undefined ? '' : String(value));
  // A value changed from outside (the address, "clear") replaces what was typed.
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    setShown(value);
    setText(value === undefined ? '' : String(value));
  }
  return (
    <div className="lib-filter lib-filter-number">
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="input"
        inputMode="decimal"
        type="number"
        step={step ?? 'any'}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onBlur={() => onChange(numberOrUndefined(text))}
        onKeyDown={(event) => {
          if (event.key === 'Enter') onChange(numberOrUndefined(text));
        }}
      />
    </div>
  );
}

export interface FiltersProps {
  readonly filter: LibraryFilter;
  readonly sort: LibrarySort;
  readonly collections: readonly LibraryCollectionResponse[];
  readonly tags: readonly { readonly name: string; readonly count: number }[];
  readonly onChange: (filter: LibraryFilter, sort: LibrarySort) => void;
}

/** Search, filters (role, key, tempo with ½×/2×, loudness, tier, length, tag, favourites, collection) and sort. */
export function LibraryFilters({ filter, sort, collections, tags, onChange }: FiltersProps) {
  const ids = { q: useId(), role: useId(), key: useId(), tier: useId(), tag: useId(), collection: useId(), sort: useId() };
  const [q, setQ] = useState(filter.q ?? '');
  const [more, setMore] = useState(false);
  const [shownQ, setShownQ] = useState(filter.q);
  if (shownQ !== filter.q) {
    setShownQ(filter.q);
    setQ(filter.q ?? '');
  }
  // Search as the person types, a moment after the last key.
  useEffect(() => {
    if ((filter.q ?? '') === q) return;
    const timer = setTimeout(() => onChange({ ...filter, q: q || undefined }, sort), 250);
    return () => clearTimeout(timer);
  }, [q, filter, sort, onChange]);
  const set = (change: Partial<LibraryFilter>) => onChange({ ...filter, ...change }, sort);

  return (
    <div className="lib-filters" role="search" aria-label="Search the library">
      <div className="lib-filter lib-filter-q">
        <label className="label" htmlFor={ids.q}>
          Search
        </label>
        <input
          id={ids.q}
          className="input"
          type="search"
          placeholder="Name, suggested name or tag"
          value={q}
          onChange={(event) => setQ(event.target.value)}
        />
      </div>
      <div className="lib-filter">
        <label className="label" htmlFor={ids.role}>
          Role
        </label>
        <select
          id={ids.role}
          className="lib-select"
          value={filter.role ?? ''}
          onChange={(event) => set({ role: libraryRoles.find((r) => r === event.target.value) })}
        >
          <option value="">All roles</option>
          {libraryRoles.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
      </div>
      <div className="lib-filter">
        <label className="label" htmlFor={ids.key}>
          Key
        </label>
        <select
          id={ids.key}
          className="lib-select"
          value={filter.key ?? ''}
          onChange={(event) => set({ key: event.target.value || undefined })}
        >
          <option value="">Any key</option>
          {camelotOptions.map((option) => (
            <option key={option.code} value={option.code}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <NumberField label="BPM from" value={filter.bpmMin} onChange={(bpmMin) => set({ bpmMin })} />
      <NumberField label="BPM to" value={filter.bpmMax} onChange={(bpmMax) => set({ bpmMax })} />
      <label className="lib-check">
        <input
          type="checkbox"
          checked={filter.bpmRelated ?? false}
          onChange={(event) => set({ bpmRelated: event.target.checked || undefined })}
        />
        also ½× and 2×
      </label>
      <div className="lib-filter">
        <label className="label" htmlFor={ids.sort}>
          Sort
        </label>
        <select
          id={ids.sort}
          className="lib-select"
          value={`${sort.descending ? '-' : ''}${sort.field}`}
          onChange={(event) => {
            const text = event.target.value;
            const descending = text.startsWith('-');
            const field = librarySortFields.find((f) => f === (descending ? text.slice(1) : text));
            if (field) onChange(filter, { field, descending });
          }}
        >
          {librarySortFields.flatMap((field) => [
            <option key={field} value={field}>
              {sortLabels[field]} ↑
            </option>,
            <option key={`-${field}`} value={`-${field}`}>
              {sortLabels[field]} ↓
            </option>,
          ])}
        </select>
      </div>
      <button type="button" className="button button-ghost lib-more" aria-expanded={more} onClick={() => setMore((m) => !m)}>
        {more ? 'Fewer filters' : 'More filters'}
      </button>
      {more ? (
        <div className="lib-filters-more">
          <NumberField label="LUFS from" value={filter.lufsMin} onChange={(lufsMin) => set({ lufsMin })} />
          <NumberField label="LUFS to" value={filter.lufsMax} onChange={(lufsMax) => set({ lufsMax })} />
          <NumberField label="Length from (s)" value={filter.durationMin} onChange={(durationMin) => set({ durationMin })} />
          <NumberField label="Length to (s)" value={filter.durationMax} onChange={(durationMax) => set({ durationMax })} />
          <div className="lib-filter">
            <label className="label" htmlFor={ids.tier}>
              Tier
            </label>
            <select
              id={ids.tier}
              className="lib-select"
              value={filter.tier ?? ''}
              onChange={(event) => set({ tier: libraryTiers.find((t) => t === event.target.value) })}
            >
              <option value="">All tiers</option>
              {libraryTiers.map((tier) => (
                <option key={tier} value={tier}>
                  Tier {tier}
                </option>
              ))}
            </select>
          </div>
          <div className="lib-filter">
            <label className="label" htmlFor={ids.tag}>
              Tag
            </label>
            <select
              id={ids.tag}
              className="lib-select"
              value={filter.tag ?? ''}
              onChange={(event) => set({ tag: event.target.value || undefined })}
            >
              <option value="">Any tag</option>
              {tags.map((tag) => (
                <option key={tag.name} value={tag.name}>
                  {tag.name} ({tag.count})
                </option>
              ))}
            </select>
          </div>
          <div className="lib-filter">
            <label className="label" htmlFor={ids.collection}>
              Collection
            </label>
            <select
              id={ids.collection}
              className="lib-select"
              value={filter.collectionId ?? ''}
              onChange={(event) => set({ collectionId: event.target.value ? Number(event.target.value) : undefined })}
            >
              <option value="">All items</option>
              {collections.map((collection) => (
                <option key={collection.id} value={collection.id}>
                  {collection.name} ({collection.item_count})
                </option>
              ))}
            </select>
          </div>
        </div>
      ) : null}
      <label className="lib-check">
        <input
          type="checkbox"
          checked={filter.favourite ?? false}
          onChange={(event) => set({ favourite: event.target.checked || undefined })}
        />
        Favourites only
      </label>
    </div>
  );
}
