import { useEffect, useRef } from 'react';
import type { WaveformResponse } from '../../api/audio';
import { amplitudeY, columnBins, columnMax, columnMin, formatClock } from '../../audio/analyse/waveform-math';

const HEIGHT = 96;

/** Move a player (outside the component: the element is the page's, not React state). */
function seekAudio(audio: HTMLAudioElement, seconds: number): void {
  audio.currentTime = seconds;
}

/**
 * The server's waveform (min/max per bin) on a canvas, with the played part in the accent colour,
 * following an <audio> element; a click or the arrow keys seek it. Lighter than the Analyse screen's
 * wavesurfer view: no zoom or onsets, and the audio element stays the player.
 */
export function WaveformStrip({ waveform, audio }: { readonly waveform: WaveformResponse; readonly audio: HTMLAudioElement | null }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const duration = waveform.frames / waveform.source.sample_rate;

  useEffect(() => {
    const element = canvas.current;
    if (!element) return;
    const context = element.getContext('2d');
    if (!context) return;
    const maxima = waveform.min_max.map((pair) => pair[1]);
    const minima = waveform.min_max.map((pair) => pair[0]);
    let frame = 0;
    const draw = () => {
      frame = 0;
      const ratio = Math.max(1, window.devicePixelRatio || 1);
      const width = Math.max(1, Math.round(element.clientWidth * ratio));
      const height = Math.round(HEIGHT * ratio);
      if (element.width !== width) element.width = width;
      if (element.height !== height) element.height = height;
      const style = getComputedStyle(element);
      const wave = style.getPropertyValue('--text-faint').trim() || '#7d8696';
      const played = style.getPropertyValue('--accent').trim() || '#5cc8c2';
      const { start, end } = columnBins(0, maxima.length, width, maxima.length);
      const top = columnMax(maxima, start, end);
      const bottom = columnMin(minima, start, end);
      const at = audio && duration > 0 ? Math.round((audio.currentTime / duration) * width) : 0;
      context.clearRect(0, 0, width, height);
      for (const [from, to, colour] of [
        [0, at, played],
        [at, width, wave],
      ] as const) {
        context.beginPath();
        for (let x = from; x < to; x++) {
          const y0 = amplitudeY(top[x] ?? 0, height);
          const y1 = amplitudeY(bottom[x] ?? 0, height);
          context.rect(x, y0, 1, Math.max(1, y1 - y0));
        }
        context.fillStyle = colour;
        context.fill();
      }
    };
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(draw);
    };
    // While playing, follow every frame; timeupdate alone moves in quarter-second steps.
    let playing = 0;
    const follow = () => {
      draw();
      playing = audio && !audio.paused ? requestAnimationFrame(follow) : 0;
    };
    const onPlay = () => {
      if (playing === 0) playing = requestAnimationFrame(follow);
    };
    schedule();
    const resize = new ResizeObserver(schedule);
    resize.observe(element);
    audio?.addEventListener('play', onPlay);
    audio?.addEventListener('seeked', schedule);
    audio?.addEventListener('timeupdate', schedule);
    return () => {
      cancelAnimationFrame(frame);
      cancelAnimationFrame(playing);
      resize.disconnect();
      audio?.removeEventListener('play', onPlay);
      audio?.removeEventListener('seeked', schedule);
      audio?.removeEventListener('timeupdate', schedule);
    };
  }, [waveform, audio, duration]);

  const seek = (seconds: number) => {
    if (audio) seekAudio(audio, Math.min(duration, Math.max(0, seconds)));
  };

  return (
    <div
      className="fl-wave"
      role="slider"
      tabIndex={0}
      aria-label="Waveform: playback position"
      aria-valuemin={0}
      aria-valuemax={Math.round(duration * 100) / 100}
      aria-valuetext={`${formatClock(audio?.currentTime ?? 0)} of ${formatClock(duration)}`}
      aria-disabled={audio === null}
      onKeyDown={(event) => {
        if (!audio) return;
        const step = event.shiftKey ? 5 : 1;
        if (event.key === 'ArrowRight') seek(audio.currentTime + step);
        else if (event.key === 'ArrowLeft') seek(audio.currentTime - step);
        else if (event.key === ' ') void (audio.paused ? audio.play() : Promise.resolve(audio.pause()));
        else return;
        event.preventDefault();
      }}
    >
      <canvas
        ref={canvas}
        className="fl-wave-canvas"
        style={{ height: HEIGHT }}
        onClick={(event) => {
          const box = event.currentTarget.getBoundingClientRect();
          seek(((event.clientX - box.left) / box.width) * duration);
        }}
      />
    </div>
  );
}
