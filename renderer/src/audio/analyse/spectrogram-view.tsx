import { useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import type { SpectrumResponse } from '../../api/audio';
import { lutGradient, magmaLut } from './colour-map';
import { usePlayheadTime, type Playhead } from './playhead';
import { flattenFrames, frequencyTicks, spectrogramImage, valueToDb, type ValueRange } from './spectrogram-image';
import type { SpectrogramImage, SpectrogramJob } from './spectrogram-worker';
import { timeTicks } from './waveform-math';

const HEIGHT = 220;
const legendGradient = lutGradient(magmaLut, 17);

/** The playback position as a line over the spectrogram (its own component: it moves every frame). */
function Cursor({ playhead, duration }: { readonly playhead: Playhead; readonly duration: number }) {
  const time = usePlayheadTime(playhead);
  const left = duration > 0 ? Math.min(100, (time / duration) * 100) : 0;
  return <div className="an-spec-cursor" style={{ left: `${left}%` }} aria-hidden="true" />;
}

let sharedWorker: Worker | null | undefined;

/**
 * The worker that maps spectra to pixels, started on first use and kept for the next file (starting
 * one costs more than the mapping). Null where workers cannot start; the page then maps them itself.
 */
export function spectrogramWorker(): Worker | null {
  if (sharedWorker === undefined) {
    try {
      sharedWorker = new Worker(new URL('./spectrogram-worker.ts', import.meta.url), { type: 'module' });
    } catch {
      sharedWorker = null;
    }
  }
  return sharedWorker;
}

let nextJob = 0;

/** Map a spectrum to pixels in the worker (or here, without one). */
function renderImage(spectrum: SpectrumResponse): Promise<SpectrogramImage> {
  const id = ++nextJob;
  const values = flattenFrames(spectrum.data, spectrum.bands);
  const frames = spectrum.data.length;
  const worker = spectrogramWorker();
  if (!worker) return Promise.resolve({ id, ...spectrogramImage(values, frames, spectrum.bands) });
  return new Promise((resolve, reject) => {
    const onMessage = (event: MessageEvent<SpectrogramImage>) => {
      if (event.data.id !== id) return;
      worker.removeEventListener('message', onMessage);
      worker.removeEventListener('error', onError);
      resolve(event.data);
    };
    const onError = (event: ErrorEvent) => {
      worker.removeEventListener('message', onMessage);
      worker.removeEventListener('error', onError);
      reject(new Error(event.message || 'The spectrogram could not be drawn.'));
    };
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', onError);
    const job: SpectrogramJob = { id, frames, bands: spectrum.bands, values };
    worker.postMessage(job, [values.buffer]);
  });
}

/**
 * The /spectrum answer as a heatmap: frames × bands mapped through the magma LUT (in a worker) into
 * an ImageData at the data's own size, then scaled onto the visible canvas in one drawImage.
 */
export function SpectrogramView({
  spectrum,
  duration,
  playhead,
}: {
  readonly spectrum: SpectrumResponse;
  readonly duration: number;
  readonly playhead: Playhead;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const image = useRef<HTMLCanvasElement | null>(null);
  const [drawn, setDrawn] = useState<{ readonly spectrum: SpectrumResponse; readonly range: ValueRange } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // At least 14 px between labels on the axis.
  const ticks = useMemo(() => frequencyTicks(spectrum.band_hz, undefined, 14 / HEIGHT), [spectrum]);
  const seconds = useMemo(() => timeTicks(duration), [duration]);
  const range = drawn?.spectrum === spectrum ? drawn.range : null;

  useEffect(() => {
    const target = canvas.current;
    if (!target) return;
    let cancelled = false;
    /** Scale the frames × bands image onto the canvas at its current size. */
    const paint = () => {
      const source = image.current;
      const ctx = target.getContext('2d');
      if (!source || !ctx) return;
      const ratio = Math.max(1, window.devicePixelRatio || 1);
      const width = Math.max(1, Math.round(target.clientWidth * ratio));
      const height = Math.max(1, Math.round(HEIGHT * ratio));
      if (target.width !== width) target.width = width;
      if (target.height !== height) target.height = height;
      ctx.imageSmoothingEnabled = true;
      // Bilinear: 'high' (mipmapped bicubic) costs milliseconds in software rendering for no visible gain.
      ctx.imageSmoothingQuality = 'low';
      ctx.drawImage(source, 0, 0, width, height);
    };

    // The answer has just been committed: from here to pixels on the canvas is the latency.
    performance.mark('cratehouse:spectrogram-arrived');
    performance.mark('cratehouse:spectrogram-prepare-start');
    const rendering = spectrum.data.length > 0 && spectrum.bands > 0 ? renderImage(spectrum) : null;
    performance.measure('cratehouse:spectrogram-prepare', 'cratehouse:spectrogram-prepare-start');
    rendering?.then(
      ({ pixels, range: span }) => {
        if (cancelled) return;
        performance.mark('cratehouse:spectrogram-draw-start');
        const offscreen = image.current ?? document.createElement('canvas');
        offscreen.width = spectrum.data.length;
        offscreen.height = spectrum.bands;
        offscreen.getContext('2d')?.putImageData(new ImageData(pixels, spectrum.data.length, spectrum.bands), 0, 0);
        image.current = offscreen;
        paint();
        target.dataset.drawn = spectrum.scale;
        performance.measure('cratehouse:spectrogram-draw', 'cratehouse:spectrogram-draw-start');
        performance.measure('cratehouse:spectrogram-latency', 'cratehouse:spectrogram-arrived');
        setDrawn({ spectrum, range: span });
      },
      (error: unknown) => {
        if (!cancelled) setProblem(error instanceof Error ? error.message : 'The spectrogram could not be drawn.');
      },
    );

    const observer = new ResizeObserver(paint);
    observer.observe(target);
    return () => {
      cancelled = true;
      delete target.dataset.drawn;
      observer.disconnect();
    };
  }, [spectrum]);

  const seek = (event: MouseEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    if (box.width > 0) playhead.seek(((event.clientX - box.left) / box.width) * duration);
  };

  return (
    <div className="an-spec">
      {problem ? <p className="an-inline-problem">{problem}</p> : null}
      <div className="an-spec-body">
        <div className="an-spec-axis" aria-hidden="true">
          {ticks.map((tick) => (
            <span key={tick.hz} className="an-spec-hz mono" style={{ top: `${tick.fromTop * 100}%` }}>
              {tick.label}
            </span>
          ))}
        </div>
        <div className="an-spec-plot" onClick={seek}>
          <canvas
            ref={canvas}
            className="an-spec-canvas"
            style={{ height: HEIGHT }}
            data-scale={spectrum.scale}
            role="img"
            aria-label={`Spectrogram, ${spectrum.scale === 'mel' ? 'mel' : 'logarithmic'} frequency scale, ${spectrum.bands} bands from ${Math.round(spectrum.band_hz[0] ?? 0)} Hz to ${Math.round((spectrum.band_hz.at(-1) ?? 0) / 1000)} kHz over ${spectrum.frames} frames`}
          />
          <Cursor playhead={playhead} duration={duration} />
        </div>
      </div>
      <div className="an-spec-footer">
        <div className="an-spec-times mono" aria-hidden="true">
          {seconds.map((t) => (
            <span key={t} style={{ left: `${duration > 0 ? (t / duration) * 100 : 0}%` }}>
              {t} s
            </span>
          ))}
        </div>
      </div>
      <div className="an-spec-legend">
        <span className="muted small">Hz, {spectrum.scale === 'mel' ? 'mel' : 'log'} scale · click to seek</span>
        {range ? (
          <span className="an-spec-scale">
            <span className="mono small">{Math.round(valueToDb(range.low, spectrum.db_floor))} dB</span>
            <span className="an-spec-ramp" style={{ backgroundImage: legendGradient }} aria-hidden="true" />
            <span className="mono small">{Math.round(valueToDb(range.high, spectrum.db_floor))} dB</span>
          </span>
        ) : null}
      </div>
    </div>
  );
}
