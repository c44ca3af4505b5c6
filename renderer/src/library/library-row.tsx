// One row of the library list (a card on narrow screens) and the small widgets it is made of.
import type { CSSProperties, DragEvent } from 'react';
import type { LibraryItemResponse } from '../api/library';
import { camelotHue, thinPeaks } from './library-model';

/** The waveform thumbnail: the item's 64 peaks as mirrored bars. */
export function Thumbnail({ peaks, bars = 32 }: { readonly peaks: readonly number[]; readonly bars?: number }) {
  const values = thinPeaks(peaks, bars);
  if (values.length === 0) return <span className="lib-thumb lib-thumb-empty" aria-hidden="true" />;
  const width = 100 / values.length;
  return (
    <svg className="lib-thumb" viewBox="0 0 100 24" preserveAspectRatio="none" aria-hidden="true">
      {values.map((value, i) => {
        const height = Math.max(1, value * 22);
        return <rect key={i} x={i * width + width * 0.15} width={width * 0.7} y={12 - height / 2} height={height} />;
      })}
    </svg>
  );
}

/** The key as a Camelot badge, coloured by its place on the wheel, with the key name as its title. */
export function CamelotBadge({ camelot, keyName }: { readonly camelot: string | null; readonly keyName: string | null }) {
  if (!camelot) return <span className="muted">–</span>;
  const hue = camelotHue(camelot);
  return (
    <span className="lib-camelot" title={keyName ?? undefined} style={hue === undefined ? undefined : { ['--camelot-hue' as string]: hue }}>
      {camelot}
    </span>
  );
}

/** 0..5 stars; with `onRate`, each star is a button (the current rating's star clears it). */
export function Stars({ rating, onRate }: { readonly rating: number; readonly onRate?: (rating: number) => void }) {
  const stars = [1, 2, 3, 4, 5];
  if (!onRate)
    return (
      <span className="lib-stars" aria-label={`${rating} of 5 stars`}>
        {stars.map((n) => (
          <span key={n} aria-hidden="true" className={n <= rating ? 'lib-star lib-star-on' : 'lib-star'}>
            ★
          </span>
        ))}
      </span>
    );
  return (
    <span className="lib-stars" role="group" aria-label="Rating">
      {stars.map((n) => (
        <button
          key={n}
          type="button"
          className={n <= rating ? 'lib-star lib-star-button lib-star-on' : 'lib-star lib-star-button'}
          aria-label={`${n} star${n === 1 ? '' : 's'}`}
          aria-pressed={n <= rating}
          onClick={() => onRate(n === rating ? 0 : n)}
        >
          ★
        </button>
      ))}
    </span>
  );
}

function format(value: number | null, digits: number, unit = ''): string {
  return value === null || !Number.isFinite(value) ? '–' : `${value.toFixed(digits)}${unit}`;
}

export interface RowProps {
  readonly item: LibraryItemResponse;
  readonly index: number;
  readonly selected: boolean;
  readonly playing: boolean;
  readonly onSelect: (index: number) => void;
  readonly onPlay: (item: LibraryItemResponse) => void;
  readonly onFavourite: (item: LibraryItemResponse) => void;
  readonly onDragStart: (event: DragEvent<HTMLDivElement>, item: LibraryItemResponse) => void;
}

/** A library row: play, thumbnail, names, role, tempo, key, loudness, tier, rating, favourite, tags. */
export function LibraryRow({ item, index, selected, playing, onSelect, onPlay, onFavourite, onDragStart }: RowProps) {
  const analysing = item.status === 'analysing';
  return (
    <div
      id={`lib-row-${index}`}
      role="option"
      aria-selected={selected}
      aria-posinset={index + 1}
      className={`lib-row${selected ? ' lib-row-selected' : ''}`}
      style={rowPlace(index)}
      draggable
      onDragStart={(event) => onDragStart(event, item)}
      onClick={() => onSelect(index)}
      data-item-id={item.id}
    >
      <button
        type="button"
        className="lib-play"
        tabIndex={-1}
        aria-label={playing ? `Stop ${item.name}` : `Play ${item.name}`}
        onClick={(event) => {
          event.stopPropagation();
          onSelect(index);
          onPlay(item);
        }}
      >
        <span aria-hidden="true">{playing ? '■' : '▶'}</span>
      </button>
      <Thumbnail peaks={item.thumbnail} />
      <div className="lib-names">
        <span className="lib-name">{item.name}</span>
        <span className="lib-suggested muted">
          {analysing ? 'Analysing…' : item.status === 'failed' ? (item.error ?? 'Analysis failed') : (item.suggested_name ?? '')}
        </span>
      </div>
      <span className="lib-cell lib-role">{item.role ?? '–'}</span>
      <span className="lib-cell lib-bpm mono" title={item.tempo_multiplier !== 1 ? `Measured ${format(item.tempo_bpm, 1)} BPM` : undefined}>
        {format(item.bpm, 1)}
        {item.tempo_multiplier !== 1 ? <span className="lib-corrected">{item.tempo_multiplier === 2 ? '2×' : '½×'}</span> : null}
      </span>
      <span className="lib-cell lib-key">
        <CamelotBadge camelot={item.camelot} keyName={item.key} />
      </span>
      <span className="lib-cell lib-lufs mono">{format(item.loudness_lufs, 1)}</span>
      <span className={`lib-cell lib-tier lib-tier-${item.grade_tier ?? 'none'}`}>{item.grade_tier ?? '–'}</span>
      <span className="lib-cell lib-rating">
        <Stars rating={item.rating} />
      </span>
      <button
        type="button"
        tabIndex={-1}
        className={item.favourite ? 'lib-fav lib-fav-on' : 'lib-fav'}
        aria-label={item.favourite ? `Remove ${item.name} from favourites` : `Add ${item.name} to favourites`}
        aria-pressed={item.favourite}
        onClick={(event) => {
          event.stopPropagation();
          onFavourite(item);
        }}
      >
        <span aria-hidden="true">{item.favourite ? '♥' : '♡'}</span>
      </button>
      <span className="lib-cell lib-tags">
        {item.tags.map((tag) => (
          <span key={tag} className="lib-tag">
            {tag}
          </span>
        ))}
      </span>
    </div>
  );
}

/**
 * A row's place in the virtual list: its index, which library.css multiplies by the row height of the
 * layout in force (`--lib-row-height`), so rows move in the same frame as the media query that turns
 * them into cards, not a render later.
 */
export function rowPlace(index: number): CSSProperties {
  return { '--lib-row-index': index } as CSSProperties;
}
