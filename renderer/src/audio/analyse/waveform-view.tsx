import { useEffect, useId, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import WaveSurfer from 'wavesurfer.js';
import type { OnsetsResponse, WaveformResponse } from '../../api/audio';
import { updatePreferences, usePreferences } from '../../lib/use-preferences';
import { onsetStrengths, thinOnsets } from './onset-thinning';
import { usePlayheadTime, type Playhead } from './playhead';
import { amplitudeY, columnBins, columnMax, columnMin, formatClock, movingRms, seekTarget, zoomFactors } from './waveform-math';

const HEIGHT = 168;

interface Colours {
  readonly wave: string;
  readonly progress: string;
  readonly cursor: string;
  readonly rms: string;
  readonly onset: string;
}

/** The theme's colours, read from the CSS variables so the canvas follows light and dark. */
function readColours(element: HTMLElement): Colours {
  const style = getComputedStyle(element);
  const css = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    wave: css('--text-faint', '#7d8696'),
    progress: css('--accent', '#5cc8c2'),
    cursor: css('--text', '#e7eaf0'),
    rms: css('--text', '#e7eaf0'),
    onset: css('--warn', '#e9b85e'),
  };
}

/**
 * wavesurfer's renderFunction: the server's [max, min] per bin as a filled band per pixel column
 * (a bin's min and max can both sit on one side of zero, so mirrored bars would misdraw it).
 */
function drawBand(channels: Array<Float32Array | number[]>, ctx: CanvasRenderingContext2D): void {
  const [maxima = [], minima = []] = channels;
  const { width, height } = ctx.canvas;
  const { start, end } = columnBins(0, maxima.length, width, maxima.length);
  const top = columnMax(maxima, start, end);
  const bottom = columnMin(minima, start, end);
  // One path of column rectangles, filled once: a single draw call instead of one per column.
  ctx.beginPath();
  for (let x = 0; x < width; x++) {
    const y0 = amplitudeY(top[x] ?? 0, height);
    const y1 = amplitudeY(bottom[x] ?? 0, height);
    ctx.rect(x, y0, 1, Math.max(1, y1 - y0));
  }
  ctx.fill();
}

/** Two drawn onset ticks are at least this far apart, CSS px (a tick is 3 px wide). */
const ONSET_GAP_PX = 6;

/** The onsets the overlay may draw: times, their strengths, and whether the person shows them. */
interface ShownOnsets {
  readonly times: readonly number[];
  readonly strengths: Float32Array;
  readonly shown: boolean;
}

/**
 * The RMS envelope and the onset ticks, on a canvas laid over the visible part of wavesurfer's
 * scrolling wrapper: only the viewport is drawn, so zooming in costs no larger canvases.
 */
function drawOverlay(
  ws: WaveSurfer,
  canvas: HTMLCanvasElement,
  ctx: CanvasRenderingContext2D,
  rms: Float32Array,
  onsets: ShownOnsets,
  duration: number,
  colours: Colours,
): void {
  const total = ws.getWrapper().clientWidth;
  const view = ws.getWidth();
  const scroll = ws.getScroll();
  if (total <= 0 || view <= 0) return;
  const ratio = Math.max(1, window.devicePixelRatio || 1);
  canvas.style.left = `${scroll}px`;
  canvas.style.width = `${view}px`;
  const width = Math.round(view * ratio);
  const height = Math.round(HEIGHT * ratio);
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
  ctx.clearRect(0, 0, width, height);

  const bins = rms.length;
  if (bins > 0) {
    const { start, end } = columnBins((scroll / total) * bins, ((scroll + view) / total) * bins, width, bins);
    const level = columnMax(rms, start, end);
    ctx.beginPath();
    for (let x = 0; x < width; x++) {
      const y0 = amplitudeY(level[x] ?? 0, height);
      ctx.rect(x, y0, 1, amplitudeY(-(level[x] ?? 0), height) - y0);
    }
    ctx.globalAlpha = 0.55;
    ctx.fillStyle = colours.rms;
    ctx.fill();
    ctx.globalAlpha = 1;
  }

  if (duration > 0 && onsets.shown && onsets.times.length > 0) {
    const tick = Math.round(9 * ratio);
    ctx.fillStyle = colours.onset;
    // At most one tick per ONSET_GAP_PX at the current zoom, the strongest kept: a long file is not painted solid.
    const drawn = thinOnsets(onsets.times, onsets.strengths, {
      duration,
      totalPx: total,
      scrollPx: scroll,
      viewPx: view,
      minGapPx: ONSET_GAP_PX,
    });
    for (const t of drawn) {
      const x = Math.round(((t / duration) * total - scroll) * ratio);
      if (x < -1 || x > width + 1) continue;
      ctx.globalAlpha = 0.35;
      ctx.fillRect(x, 0, Math.max(1, Math.round(ratio)), height);
      ctx.globalAlpha = 1;
      ctx.fillRect(x - Math.round(ratio), 0, Math.round(3 * ratio), tick);
      ctx.fillRect(x - Math.round(ratio), height - tick, Math.round(3 * ratio), tick);
    }
  }
}

/** performance.measure between a start mark and now; the e2e test reads these from the timeline. */
function measure(name: string, startMark: string): void {
  if (performance.getEntriesByName(startMark, 'mark').length === 0) return;
  performance.measure(name, startMark);
  performance.clearMarks(startMark);
}

/** The position readout, "0:12.34 / 1:05.00" (its own component: it changes every frame while playing). */
function Clock({ playhead, duration }: { readonly playhead: Playhead; readonly duration: number }) {
  const time = usePlayheadTime(playhead);
  return (
    <p className="an-clock mono" aria-label="Position">
      <span data-testid="playhead-time">{formatClock(time)}</span>
      <span className="muted"> / {formatClock(duration)}</span>
    </p>
  );
}

/**
 * The focusable slider around wavesurfer's host, whose ARIA value follows the playback position (its
 * own component for the same reason as Clock; re-rendering it keeps the host element and its focus).
 */
function PositionSlider({
  playhead,
  duration,
  hostRef,
  helpId,
  ready,
  onKeyDown,
}: {
  readonly playhead: Playhead;
  readonly duration: number;
  readonly hostRef: RefObject<HTMLDivElement | null>;
  readonly helpId: string;
  readonly ready: boolean;
  readonly onKeyDown: (event: KeyboardEvent<HTMLDivElement>) => void;
}) {
  const time = usePlayheadTime(playhead);
  return (
    <div
      className="an-wave"
      tabIndex={0}
      role="slider"
      aria-label="Playback position"
      aria-describedby={helpId}
      aria-valuemin={0}
      aria-valuemax={Math.round(duration * 100) / 100}
      aria-valuenow={Math.round(time * 100) / 100}
      aria-valuetext={`${formatClock(time)} of ${formatClock(duration)}`}
      onKeyDown={onKeyDown}
      data-ready={ready || undefined}
    >
      <div ref={hostRef} className="an-wave-host" />
    </div>
  );
}

/**
 * The waveform from the server's peaks with the RMS envelope and onset ticks, playing the local file
 * through an object URL: Play/Pause, click or drag to seek, arrow keys to seek, zoom.
 */
export function WaveformView({
  url,
  waveform,
  onsets,
  tempoBpm,
  playhead,
}: {
  readonly url: string;
  readonly waveform: WaveformResponse;
  readonly onsets: OnsetsResponse | null;
  readonly tempoBpm: number | null;
  readonly playhead: Playhead;
}) {
  const host = useRef<HTMLDivElement>(null);
  const player = useRef<WaveSurfer | null>(null);
  const onsetTimes = useRef<ShownOnsets>({ times: [], strengths: new Float32Array(0), shown: true });
  const { showOnsets } = usePreferences();
  const colours = useRef<Colours | null>(null);
  const [playing, setPlaying] = useState(false);
  const [ready, setReady] = useState(false);
  const [playError, setPlayError] = useState<string | null>(null);
  const [factors, setFactors] = useState<number[]>([1]);
  const [zoom, setZoom] = useState(1);
  const helpId = useId();
  const duration = waveform.frames / waveform.source.sample_rate;

  /** Draws the overlay now (set while a player exists). */
  const redraw = useRef<() => void>(() => {});

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const theme = readColours(element);
    colours.current = theme;
    const maxima = Float32Array.from(waveform.min_max, (pair) => pair[1]);
    const minima = Float32Array.from(waveform.min_max, (pair) => pair[0]);
    const ws = WaveSurfer.create({
      container: element,
      height: HEIGHT,
      waveColor: theme.wave,
      progressColor: theme.progress,
      cursorColor: theme.cursor,
      cursorWidth: 2,
      normalize: false,
      dragToSeek: true,
      autoScroll: true,
      autoCenter: true,
      renderFunction: drawBand,
    });
    player.current = ws;
    const canvas = document.createElement('canvas');
    canvas.setAttribute('aria-hidden', 'true');
    Object.assign(canvas.style, { position: 'absolute', top: '0', left: '0', height: `${HEIGHT}px`, pointerEvents: 'none', zIndex: '3' });
    // The context is made now, before the data is drawn: creating one is part of setting up, not of drawing.
    const overlayContext = canvas.getContext('2d');
    // The envelope: RMS over 10 ms windows (the server's bins can be a millisecond, one cycle of a bass note).
    let envelope: Float32Array = new Float32Array(0);
    let frame = 0;
    const draw = () => {
      cancelAnimationFrame(frame);
      frame = 0;
      if (canvas.isConnected && overlayContext)
        drawOverlay(ws, canvas, overlayContext, envelope, onsetTimes.current, duration, colours.current ?? theme);
    };
    // Scrolling, zooming and resizing can fire several events per frame: draw once, before the paint.
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(draw);
    };
    redraw.current = draw;

    // 'decode' and 'ready' bracket wavesurfer's synchronous render of the peaks.
    ws.on('decode', () => {
      performance.mark('cratehouse:waveform-draw-start');
      envelope = movingRms(waveform.rms, Math.ceil((0.01 * waveform.bins) / duration));
    });
    ws.on('ready', () => {
      ws.getWrapper().appendChild(canvas);
      draw();
      measure('cratehouse:waveform-draw', 'cratehouse:waveform-draw-start');
      setReady(true);
      setFactors(zoomFactors(ws.getWidth() / duration, waveform.bins, duration));
    });
    ws.on('scroll', schedule);
    ws.on('zoom', schedule);
    ws.on('redraw', schedule);
    ws.on('resize', () => {
      schedule();
      setFactors(zoomFactors(ws.getWidth() / duration, waveform.bins, duration));
    });
    ws.on('timeupdate', (t) => playhead.set(t));
    ws.on('play', () => setPlaying(true));
    ws.on('pause', () => setPlaying(false));
    ws.on('finish', () => setPlaying(false));
    ws.on('error', (error) => setPlayError(`This browser cannot play the file (${error.message}); the analysis is unaffected.`));
    const detach = playhead.attach((t) => ws.setTime(Math.min(duration, Math.max(0, t))));
    playhead.set(0);
    ws.load(url, [maxima, minima], duration).catch(() => {
      // Failures arrive through the 'error' event; a superseded load needs nothing.
    });

    // The theme can change while the screen is open: recolour both layers.
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    const onScheme = () => {
      const next = readColours(element);
      colours.current = next;
      performance.mark('cratehouse:waveform-draw-start');
      ws.setOptions({ waveColor: next.wave, progressColor: next.progress, cursorColor: next.cursor });
      draw();
      measure('cratehouse:waveform-redraw', 'cratehouse:waveform-draw-start');
    };
    scheme.addEventListener('change', onScheme);
    // …or because the person picked a theme in Settings.
    window.addEventListener('cratehouse:theme', onScheme);
    return () => {
      cancelAnimationFrame(frame);
      redraw.current = () => {};
      scheme.removeEventListener('change', onScheme);
      window.removeEventListener('cratehouse:theme', onScheme);
      detach();
      ws.destroy();
      player.current = null;
      setReady(false);
      setPlaying(false);
      setZoom(1);
    };
  }, [url, waveform, duration, playhead]);

  useEffect(() => {
    const times = onsets?.onsets ?? [];
    onsetTimes.current = { times, strengths: onsetStrengths(times, waveform.rms, duration), shown: showOnsets };
    performance.mark('cratehouse:waveform-onsets-start');
    redraw.current();
    measure('cratehouse:waveform-onsets-draw', 'cratehouse:waveform-onsets-start');
  }, [onsets, waveform, duration, showOnsets]);

  const applyZoom = (factor: number) => {
    const ws = player.current;
    if (!ws) return;
    setZoom(factor);
    performance.mark('cratehouse:waveform-zoom-start');
    ws.zoom(factor === 1 ? 0 : (ws.getWidth() / duration) * factor);
    redraw.current();
    measure('cratehouse:waveform-zoom-draw', 'cratehouse:waveform-zoom-start');
  };

  const togglePlay = () => {
    const ws = player.current;
    if (!ws) return;
    ws.playPause().catch((error: unknown) =>
      setPlayError(`Playback did not start: ${error instanceof Error ? error.message : String(error)}`),
    );
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const ws = player.current;
    if (!ws) return;
    if (event.key === ' ' || event.key === 'k') {
      event.preventDefault();
      togglePlay();
      return;
    }
    const target = seekTarget(event.key, event.shiftKey, ws.getCurrentTime(), duration, tempoBpm);
    if (target === null) return;
    event.preventDefault();
    ws.setTime(target);
  };

  const zoomIndex = factors.indexOf(zoom);
  // aria-disabled rather than disabled: a disabled button would drop keyboard focus at the end of the range.
  const canZoomOut = ready && zoomIndex > 0;
  const canZoomIn = ready && zoomIndex >= 0 && zoomIndex < factors.length - 1;
  const stepName = tempoBpm ? 'a beat (Shift: a bar)' : 'a second (Shift: four)';

  return (
    <div className="an-wave-view">
      <div className="an-toolbar">
        <button type="button" className="button button-primary an-play" onClick={togglePlay} aria-disabled={!ready}>
          <span aria-hidden="true" className={playing ? 'an-icon-pause' : 'an-icon-play'} />
          {playing ? 'Pause' : 'Play'}
        </button>
        <Clock playhead={playhead} duration={duration} />
        <div className="an-zoom" role="group" aria-label="Zoom">
          <button
            type="button"
            className="button button-secondary an-small-button"
            onClick={() => canZoomOut && applyZoom(factors[zoomIndex - 1] ?? 1)}
            aria-disabled={!canZoomOut}
          >
            Zoom out
          </button>
          <span className="an-zoom-level mono" aria-live="polite">
            {zoom}×
          </span>
          <button
            type="button"
            className="button button-secondary an-small-button"
            onClick={() => canZoomIn && applyZoom(factors[zoomIndex + 1] ?? zoom)}
            aria-disabled={!canZoomIn}
          >
            Zoom in
          </button>
          <button
            type="button"
            className="button button-ghost an-small-button"
            onClick={() => ready && zoom !== 1 && applyZoom(1)}
            aria-disabled={!ready || zoom === 1}
          >
            Fit
          </button>
        </div>
      </div>
      <PositionSlider playhead={playhead} duration={duration} hostRef={host} helpId={helpId} ready={ready} onKeyDown={onKeyDown} />
      <p id={helpId} className="help an-legend">
        <span className="an-key an-key-peak" aria-hidden="true" /> Peak
        <span className="an-key an-key-rms" aria-hidden="true" /> RMS
        <label className="an-onset-toggle">
          <input type="checkbox" checked={showOnsets} onChange={(event) => updatePreferences({ showOnsets: event.target.checked })} />
          <span className="an-key an-key-onset" aria-hidden="true" /> Onsets ({onsets ? onsets.onset_count : '…'})
        </label>
        <span className="an-legend-help">Click or drag to seek; with the waveform focused, ← → move by {stepName}, Space plays.</span>
      </p>
      {playError ? <p className="an-inline-problem">{playError}</p> : null}
    </div>
  );
}
